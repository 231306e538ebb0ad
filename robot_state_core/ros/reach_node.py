"""``robot-state-core reach STUDY --ros``: a reach study against the live scene, shown in RViz.

:class:`ReachNode` runs a study (:mod:`robot_state_core.reach`) whose world is the running
graph's planning scene, fetched from ``get_planning_scene`` (MoveIt's move_group service, which
``robot_state_server`` serves too), and publishes the result as a heat map on
``reach/markers`` (``visualization_msgs/MarkerArray``, latched so RViz shows it whenever it
subscribes): a sphere per target in REACH's colours (blue = low score, red = high, black = not
reached) and a line along each target's tool axis. The service ``~/run``
(``std_srvs/Trigger``) runs the study again against the scene as it is then; its message is
the summary (reach %, normalised score, passes).

Without a scene service within ``scene_timeout`` the study runs with the study file's own
scene, and the node says so.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
import threading
import time
from typing import Any

from geometry_msgs.msg import Point
from moveit_msgs.msg import PlanningSceneComponents  # an exec_depend in package.xml
from moveit_msgs.srv import GetPlanningScene
import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from std_msgs.msg import ColorRGBA
from std_srvs.srv import Trigger
from visualization_msgs.msg import Marker, MarkerArray

from robot_state_core.reach.config import StudyFile
from robot_state_core.reach.results import heat_map_colors, ReachDatabase
from robot_state_core.reach.study import build, Executor, run_study
from robot_state_core.ros import qos
from robot_state_core.ros.planning_scene_conversions import apply_planning_scene_msg
from robot_state_core.scene.planning_scene import PlanningScene

__all__ = ['ReachNode', 'reach_markers', 'run_reach_node']

SPHERE_DIAMETER = 0.01
'''Diameter [m] of a target's sphere in the heat map.'''
AXIS_LENGTH = 0.03
'''Length [m] of the line along a target's tool axis.'''


def reach_markers(db: ReachDatabase, frame: str, stamp: Any) -> Any:
    """The heat map of a study's final pass as a ``MarkerArray`` (module docstring).

    Args:
        db: The study's results (goals in the model frame).
        frame: Frame id of the markers (the model frame, with any prefix).
        stamp: Header stamp.
    """
    colors = [ColorRGBA(r=float(r), g=float(g), b=float(b), a=1.0)
              for r, g, b in heat_map_colors(db.final)]
    p = db.X_WT[:, :3, 3]
    tool = p - AXIS_LENGTH * db.X_WT[:, :3, 2]  # the goal's z axis points into the part
    spheres = Marker(ns='reach', id=0, type=Marker.SPHERE_LIST, action=Marker.ADD)
    spheres.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in p]
    spheres.colors = colors
    spheres.scale.x = spheres.scale.y = spheres.scale.z = SPHERE_DIAMETER
    axes = Marker(ns='reach_tool_axes', id=0, type=Marker.LINE_LIST, action=Marker.ADD)
    axes.points = [Point(x=float(x), y=float(y), z=float(z))
                   for pair in zip(p, tool, strict=True) for x, y, z in pair]
    axes.colors = [c for c in colors for _ in range(2)]
    axes.scale.x = 0.1 * SPHERE_DIAMETER
    for m in (spheres, axes):
        m.header.frame_id = frame
        m.header.stamp = stamp
        m.pose.orientation.w = 1.0
        m.color.a = 1.0
    return MarkerArray(markers=[Marker(action=Marker.DELETEALL), spheres, axes])


class ReachNode(Node):
    """Runs a study against the live scene and publishes its heat map (module docstring).

    Args:
        study: The study (:func:`robot_state_core.reach.config.load_study`).
        executor: Where the batches run.
        output: Results file written after every pass (``None``: not saved).
        scene_service: The ``moveit_msgs/GetPlanningScene`` service to read the world from.
        scene_timeout: Seconds to wait for that service [s].
        frame_prefix: Prefix of the marker frame id (as the nodes' ``frame_prefix``).
        **kwargs: Passed to :class:`rclpy.node.Node`.
    """

    def __init__(self, study: StudyFile, executor: Executor, *, output: Path | None = None,
                 scene_service: str = 'get_planning_scene', scene_timeout: float = 2.0,
                 frame_prefix: str = '', **kwargs: Any) -> None:
        super().__init__('reach_study', **kwargs)
        self.study = study
        self.executor_ = executor
        self.output = output
        self.scene_timeout = float(scene_timeout)
        self.frame_prefix = frame_prefix
        self.database: ReachDatabase | None = None
        self.runs = 0
        self._running = threading.Lock()
        self._markers = self.create_publisher(MarkerArray, 'reach/markers', qos.LATCHED)
        self._scene = self.create_client(GetPlanningScene, scene_service,
                                         callback_group=MutuallyExclusiveCallbackGroup())
        self.create_service(Trigger, '~/run', self._on_run,
                            callback_group=MutuallyExclusiveCallbackGroup())

    def live_scene_text(self) -> str | None:
        """The world of the live planning scene as MoveIt ``.scene`` text, or ``None``.

        ``None`` when the service does not answer within ``scene_timeout``.
        """
        if not self._scene.wait_for_service(timeout_sec=self.scene_timeout):
            return None
        request = GetPlanningScene.Request()
        request.components.components = PlanningSceneComponents.WORLD_OBJECT_GEOMETRY
        done = threading.Event()
        future = self._scene.call_async(request)
        future.add_done_callback(lambda _: done.set())
        if not done.wait(self.scene_timeout) or future.result() is None:
            return None
        model = build(self.study.problem).model
        scene = PlanningScene(model)
        apply_planning_scene_msg(scene, future.result().scene, self.frame_prefix)
        return scene.save_geometry_text()

    def run(self) -> ReachDatabase:
        """Run the study against the live scene, publish its heat map, return the results."""
        with self._running:
            text = self.live_scene_text()
            problem = self.study.problem
            if text is None:
                self.get_logger().warning(
                    f'no planning scene from {self._scene.srv_name} within '
                    f'{self.scene_timeout:.1f} s: the study runs with its own scene')
            else:
                problem = replace(problem, scene_text=text)
            started = time.monotonic()
            output = self.output
            db = run_study(problem, self.study.targets.X_WT, self.executor_,
                           save=(lambda d: d.save(output)) if output is not None else None)
            self.database = db
            self.runs += 1
            frame = self.frame_prefix + build(problem).model.model_frame
            self._markers.publish(reach_markers(db, frame, self.get_clock().now().to_msg()))
            s = db.final.summary()
            self.get_logger().info(
                f'reach study: {s.reach_percentage:.1f} % of {s.targets} targets reached, '
                f'normalized score {s.norm_total_pose_score:.4g}, {len(db.results)} passes, '
                f'{time.monotonic() - started:.1f} s; heat map on reach/markers')
            return db

    def _on_run(self, request: Any, response: Any) -> Any:
        try:
            s = self.run().final.summary()
            response.success = True
            response.message = (f'reach {s.reach_percentage:.1f} % ({s.reached}/{s.targets}), '
                                f'normalized score {s.norm_total_pose_score:.4g}')
        except Exception as exc:  # the service must answer
            response.success = False
            response.message = f'{type(exc).__name__}: {exc}'
        return response


def run_reach_node(study: StudyFile, executor: Executor, *, output: Path | None,
                   duration: float | None = None) -> int:
    """Run the node until Ctrl-C (or ``duration`` seconds): one study at start, then ``~/run``.

    Returns:
        The exit code (0).
    """
    rclpy.init()
    node = ReachNode(study, executor, output=output)
    spinner = MultiThreadedExecutor(num_threads=2)
    spinner.add_node(node)
    thread = threading.Thread(target=spinner.spin, name='reach-ros', daemon=True)
    thread.start()
    try:
        node.run()
        deadline = None if duration is None else time.monotonic() + duration
        while rclpy.ok() and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        spinner.shutdown(timeout_sec=1.0)
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return 0
