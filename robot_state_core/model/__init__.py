"""The immutable robot description and what it is built from.

Joints and links, the tesseract-style editable scene graph, the compiled :class:`RobotModel`,
its SRDF semantics (``semantics``: groups, end effectors, joint properties), joint model groups
and the allowed collision matrix.
"""
