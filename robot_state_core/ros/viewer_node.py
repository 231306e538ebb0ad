"""``robot-state-core view --ros``: the browser viewer following a running ROS graph.

:class:`ViewerNode` subscribes to ``joint_states`` (sensor-data QoS, as robot_state_publisher)
and ``collision_object`` (MoveIt's planning-scene topic) and hands them to a
:class:`~robot_state_core.viewer.app.RobotViewer` in follow mode: the page then shows what the
running nodes see, as RViz's RobotModel display would. The viewer draws the newest joint state
at up to its ``max_fps`` and re-evaluates collisions at most every ``collision_period``.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from moveit_msgs.msg import CollisionObject  # an exec_depend in package.xml
import numpy as np
import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState

from robot_state_core.ros import qos
from robot_state_core.ros.conversions import joint_state_arrays
from robot_state_core.ros.planning_scene_conversions import collision_object_geometry
from robot_state_core.scene.planning_scene import CollisionObjectOperation
from robot_state_core.viewer.app import RobotViewer

WARN_THROTTLE_S = 5.0


class ViewerNode(Node):
    """Feeds ``joint_states`` and ``collision_object`` into a viewer (module docstring).

    Args:
        viewer: The viewer; switched to follow mode.
        frame_prefix: Prefix of the frame ids in collision objects.
        **kwargs: Passed to :class:`rclpy.node.Node`.
    """

    def __init__(self, viewer: RobotViewer, frame_prefix: str = '', **kwargs: Any) -> None:
        super().__init__('robot_state_core_viewer', **kwargs)
        self.viewer = viewer
        self.frame_prefix = frame_prefix
        self.joint_states_received = 0
        self.collision_objects_received = 0
        viewer.set_following(True)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 qos.JOINT_STATES)
        self.create_subscription(CollisionObject, 'collision_object',
                                 self._on_collision_object, qos.COLLISION_OBJECTS)

    def _on_joint_state(self, msg: JointState) -> None:
        names, positions = joint_state_arrays(msg)
        if len(names) != positions.size or not np.isfinite(positions).all():
            self.get_logger().warning('joint_states: invalid message ignored',
                                      throttle_duration_sec=WARN_THROTTLE_S)
            return
        self.joint_states_received += 1
        self.viewer.follow(names, positions)

    def _on_collision_object(self, msg: Any) -> None:
        self.collision_objects_received += 1
        try:
            op = CollisionObjectOperation(msg.operation[0] if isinstance(msg.operation, bytes)
                                          else msg.operation)
            if op is CollisionObjectOperation.REMOVE:
                self.viewer.apply_world_object(op, msg.id)
                return
            state = self.viewer.state
            X_WO, shapes, subframes = collision_object_geometry(
                self.viewer.planning_scene, state, msg, self.frame_prefix)
            self.viewer.apply_world_object(op, msg.id, X_WO, shapes, subframes)
        except Exception as exc:  # a bad message must not stop the viewer
            self.get_logger().warning(f"collision_object '{msg.id}': {exc}")


def follow_ros(viewer: RobotViewer, *, duration: float | None = None, frame_prefix: str = '',
               status_period: float = 5.0, out: TextIO = sys.stderr) -> int:
    """Spin a :class:`ViewerNode` until Ctrl-C (or ``duration`` seconds); returns the exit code.

    Prints a status line every ``status_period`` seconds: joint states received and frames
    drawn per second.
    """
    rclpy.init()
    node: ViewerNode | None = None
    try:
        node = ViewerNode(viewer, frame_prefix)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        start = time.monotonic()
        last, last_js, last_frames = start, 0, viewer.frames_sent
        while rclpy.ok() and (duration is None or time.monotonic() - start < duration):
            executor.spin_once(timeout_sec=0.05)
            now = time.monotonic()
            if now - last >= status_period:
                js, frames = node.joint_states_received, viewer.frames_sent
                print(f'[{now - start:6.1f} s] joint_states {(js - last_js) / (now - last):5.1f} '
                      f'Hz | page updates {(frames - last_frames) / (now - last):5.1f} /s | '
                      f'{viewer.url}', file=out, flush=True)
                last, last_js, last_frames = now, js, frames
        return 0
    except (KeyboardInterrupt, ExternalShutdownException):
        return 0
    except Exception:
        if rclpy.ok():
            raise
        return 0  # Ctrl-C shut the context down inside an rcl call: a normal stop
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
