"""The editable robot description (tesseract's scene graph layer).

Links, joints (every type, with the joint-motion kernel that says how each type moves), the
tesseract-style :class:`~robot_state_core.description.scene_graph.SceneGraph` that holds them, and
the allowed collision matrix. The URDF/SRDF loaders (:mod:`robot_state_core.io`) produce these;
:class:`~robot_state_core.model.robot_model.RobotModel` compiles them.
"""
