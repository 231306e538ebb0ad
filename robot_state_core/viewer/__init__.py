"""Browser viewer (application layer over the core): ``robot-state-core view`` / ``snapshot``.

* :mod:`~robot_state_core.viewer.scene_meshes`: visual/collision elements as triangles.
* :mod:`~robot_state_core.viewer.camera`: camera framing (fit the robot in the picture).
* :mod:`~robot_state_core.viewer.controls`: slider ranges and the groups offered IK.
* :mod:`~robot_state_core.viewer.app`: :class:`RobotViewer`, the viser page.
* :mod:`~robot_state_core.viewer.browser`: headless Chromium (DevTools protocol) for snapshots.

The ROS side of ``view --ros`` lives in :mod:`robot_state_core.ros.viewer_node`.
"""
