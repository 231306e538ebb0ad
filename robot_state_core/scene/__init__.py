"""The MoveIt-shaped planning scene.

World objects, collision and state-validity checks over the geometry registry, kinematic
constraints, and ACM generation (MoveIt Setup Assistant's sampling).
"""
