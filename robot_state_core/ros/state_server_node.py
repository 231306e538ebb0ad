"""MoveIt-compatible kinematics and validity services (design study B4b, B10).

Services (relative names): ``compute_ik`` (moveit_msgs/GetPositionIK), ``compute_fk``
(GetPositionFK), ``check_state_validity`` (GetStateValidity). Topics: ``joint_states`` (the
current state), ``collision_object`` and ``attached_collision_object`` (the planning scene's world
and attached objects), ``contact_markers`` (MarkerArray of the last validity check with contacts).

Threading: services share one MutuallyExclusiveCallbackGroup, subscriptions another, so a long IK
solve on a MultiThreadedExecutor never stalls joint states. Shared state (current RobotState and
the planning scene) is snapshotted under one lock and never held during a solve. Every callback is
convert → core → convert, and every request gets a MoveIt error code with message and source.

MoveIt quirks we do not copy (decision C3): ``timeout.nanosec`` is honoured (MoveIt drops it);
a zero timeout means the group default from ``kinematics.yaml``.
"""

from __future__ import annotations

from collections import defaultdict
import math
from pathlib import Path
import threading
import time
from typing import Any

from moveit_msgs.msg import (
    AttachedCollisionObject,
    CollisionObject,
    ConstraintEvalResult,
    ContactInformation,
    MoveItErrorCodes,
)
from moveit_msgs.srv import GetPositionFK, GetPositionIK, GetStateValidity
import numpy as np
from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import JointState
from visualization_msgs.msg import MarkerArray
import yaml

from robot_state_core.errors import RobotStateCoreError, UnknownNameError
from robot_state_core.ik import IKRequest, prepare_ik, solve_ik
from robot_state_core.markers import contact_markers
from robot_state_core.planning_scene import (
    BodyType,
    CollisionObjectOperation,
    PlanningScene,
)
from robot_state_core.robot_model import RobotModel
from robot_state_core.robot_state import RobotState
from robot_state_core.ros import qos
from robot_state_core.ros.conversions import joint_state_arrays, marker_array
from robot_state_core.ros.moveit_conversions import (
    apply_robot_state_msg,
    constraints_from_msg,
    error_code,
    frame_pose,
    FrameError,
    matrix_to_pose,
    pose_stamped_in_model_frame,
    robot_state_to_msg,
    strip_prefix,
    world_object_from_msg,
)

SOURCE = 'robot_state_core'
WARN_THROTTLE_S = 5.0

_SERVER_PARAMETERS: tuple[tuple[str, Any, ParameterDescriptor], ...] = (
    ('robot_description', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING, read_only=True,
        description='URDF XML (used when the node does not share a model).')),
    ('robot_description_semantic', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING, read_only=True,
        description='SRDF XML: groups, named states, disabled collision pairs.')),
    ('kinematics_config', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING, read_only=True,
        description='Path of a MoveIt-style kinematics.yaml (per-group IK timeout).')),
    ('frame_prefix', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING,
        description='Frame prefix of the TF tree; accepted (and stripped) in request frames.')),
    ('package_roots', [''], ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING_ARRAY, read_only=True,
        description='Directories containing ROS packages (mesh URIs).')),
)


def server_parameter_types() -> dict[str, int]:
    """``{name: ParameterType}`` of the service node's parameters."""
    return {name: d.type for name, _, d in _SERVER_PARAMETERS}


def _load_kinematics(path: str) -> dict[str, Any]:
    if not path:
        return {}
    data = yaml.safe_load(Path(path).read_text(encoding='utf-8')) or {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


class _ServiceStats:
    """Call counts and durations per service (for the live status line)."""

    def __init__(self) -> None:
        self.count: dict[str, int] = defaultdict(int)
        self.total_ms: dict[str, float] = defaultdict(float)
        self.last_ms: dict[str, float] = {}

    def record(self, name: str, ms: float) -> None:
        self.count[name] += 1
        self.total_ms[name] += ms
        self.last_ms[name] = ms


class StateServerNode(Node):
    """compute_ik / compute_fk / check_state_validity over a planning scene.

    Args:
        node_name: Node name.
        model: A model to share (the all-in-one process passes the publisher's); ``None``
            loads ``robot_description`` (+ semantic) from the parameters.
        **kwargs: Forwarded to ``rclpy.node.Node`` (``parameter_overrides``, ``context``...).

    Raises:
        RobotDescriptionError: No model given and the description parameter is empty/invalid.
    """

    def __init__(self, node_name: str = 'robot_state_server', model: RobotModel | None = None,
                 **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        for name, default, descriptor in _SERVER_PARAMETERS:
            self.declare_parameter(name, default, descriptor)
        try:
            kinematics = _load_kinematics(self.get_parameter('kinematics_config').value)
            if model is None:
                from robot_state_core.ros.params import StatePublisherConfig
                from robot_state_core.ros.state_publisher_node import load_model

                model = load_model(StatePublisherConfig(
                    robot_description=self.get_parameter('robot_description').value,
                    robot_description_semantic=self.get_parameter(
                        'robot_description_semantic').value,
                    package_roots=tuple(p for p in self.get_parameter('package_roots').value
                                        if p)))
            if kinematics:
                model = RobotModel.from_scene_graph(model.to_scene_graph(), model.srdf,
                                                    kinematics)
        except (RobotStateCoreError, OSError, yaml.YAMLError):
            self.destroy_node()
            raise
        self.model = model
        self.scene = PlanningScene(model)
        for name in model.group_names:  # compile IK kernels now, not inside a request timeout
            group = model.group(name)
            if group.tip_link and group.active_joint_names:
                try:
                    prepare_ik(model, name)
                except RobotStateCoreError as exc:
                    self.get_logger().debug(f'IK not prepared for group {name!r}: {exc}')
        self._lock = threading.Lock()
        self.stats = _ServiceStats()
        services = MutuallyExclusiveCallbackGroup()
        topics = MutuallyExclusiveCallbackGroup()
        self.create_service(GetPositionIK, 'compute_ik', self._on_compute_ik,
                            callback_group=services)
        self.create_service(GetPositionFK, 'compute_fk', self._on_compute_fk,
                            callback_group=services)
        self.create_service(GetStateValidity, 'check_state_validity', self._on_validity,
                            callback_group=services)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 qos.JOINT_STATES, callback_group=topics)
        self.create_subscription(CollisionObject, 'collision_object', self._on_collision_object,
                                 qos.COLLISION_OBJECTS, callback_group=topics)
        self.create_subscription(AttachedCollisionObject, 'attached_collision_object',
                                 self._on_attached_object, qos.COLLISION_OBJECTS,
                                 callback_group=topics)
        self._contacts_pub = self.create_publisher(MarkerArray, 'contact_markers', qos.MARKERS)
        self.get_logger().info(f"services ready for robot '{model.name}' (groups: "
                               f"{', '.join(model.group_names) or 'none'})")

    # ------------------------------------------------------------------ helpers

    @property
    def _prefix(self) -> str:
        return str(self.get_parameter('frame_prefix').value or '')

    def _snapshot(self) -> RobotState:
        with self._lock:
            return self.scene.current_state.copy()

    def status_text(self) -> str:
        """One-line service statistics: calls and mean/last time per service."""
        parts = []
        for name in ('compute_ik', 'compute_fk', 'check_state_validity'):
            n = self.stats.count.get(name, 0)
            if n:
                parts.append(f'{name} {n}x mean {self.stats.total_ms[name] / n:.1f} ms')
        return 'services: ' + (', '.join(parts) if parts else 'no calls yet')

    # ------------------------------------------------------------------ topics

    def _on_joint_state(self, msg: JointState) -> None:
        try:
            names, positions = joint_state_arrays(msg)
            if len(names) != positions.size or not np.isfinite(positions).all():
                self.get_logger().warning('joint_states: invalid message ignored',
                                          throttle_duration_sec=WARN_THROTTLE_S)
                return
            with self._lock:
                self.scene.current_state.set_variable_positions(list(names), positions,
                                                                unknown='ignore')
        except Exception as exc:
            self.get_logger().error(f'joint_states callback failed: {exc}',
                                    throttle_duration_sec=WARN_THROTTLE_S)

    def _object_from_msg(self, msg: CollisionObject) -> tuple[np.ndarray, list[Any],
                                                              dict[str, np.ndarray]]:
        return world_object_from_msg(self.model, self.scene.current_state.get_link_poses(),
                                     msg, self.scene, self._prefix)

    def _on_collision_object(self, msg: CollisionObject) -> None:
        try:
            op = CollisionObjectOperation(msg.operation[0] if isinstance(msg.operation, bytes)
                                          else msg.operation)
            with self._lock:
                if op is CollisionObjectOperation.REMOVE:
                    self.scene.apply_world_object(op, msg.id)
                else:
                    X_WO, shapes, subframes = self._object_from_msg(msg)
                    self.scene.apply_world_object(op, msg.id, X_WO, shapes, subframes)
        except Exception as exc:
            self.get_logger().warning(f"collision_object '{msg.id}': {exc}")

    def _on_attached_object(self, msg: AttachedCollisionObject) -> None:
        try:
            obj = msg.object
            op = CollisionObjectOperation(obj.operation[0] if isinstance(obj.operation, bytes)
                                          else obj.operation)
            link = strip_prefix(msg.link_name, self._prefix)
            with self._lock:
                if op is CollisionObjectOperation.REMOVE:
                    self.scene.detach_object(obj.id)
                else:
                    shapes: list[Any] = []
                    X_WO = None
                    subframes: dict[str, np.ndarray] = {}
                    if obj.primitives or obj.meshes:
                        X_WO, shapes, subframes = self._object_from_msg(obj)
                    self.scene.attach_object(link, obj.id, X_WO, shapes, subframes,
                                             touch_links=list(msg.touch_links))
        except Exception as exc:
            self.get_logger().warning(f"attached_collision_object '{msg.object.id}': {exc}")

    # ------------------------------------------------------------------ compute_ik

    def _on_compute_ik(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        try:
            self._compute_ik(request.ik_request, response)
        except Exception as exc:
            response.error_code = error_code(MoveItErrorCodes.FAILURE, f'internal error: {exc}',
                                             SOURCE)
        self.stats.record('compute_ik', (time.perf_counter() - start) * 1e3)
        return response

    def _compute_ik(self, req: Any, response: Any) -> None:
        codes = MoveItErrorCodes
        if not self.model.has_group(req.group_name):
            response.error_code = error_code(codes.INVALID_GROUP_NAME,
                                             f"unknown group '{req.group_name}'", SOURCE)
            return
        group = self.model.group(req.group_name)
        state = self._snapshot()
        try:
            apply_robot_state_msg(state, req.robot_state)
        except RobotStateCoreError as exc:
            response.error_code = error_code(codes.INVALID_ROBOT_STATE, str(exc), SOURCE)
            return
        X_WL = state.get_link_poses()
        if req.pose_stamped_vector:
            if len(req.ik_link_names) != len(req.pose_stamped_vector):
                response.error_code = error_code(
                    codes.INVALID_LINK_NAME, f'{len(req.ik_link_names)} ik_link_names for '
                    f'{len(req.pose_stamped_vector)} poses', SOURCE)
                return
            tips = [strip_prefix(n, self._prefix) for n in req.ik_link_names]
            poses = list(req.pose_stamped_vector)
        else:
            tip = strip_prefix(req.ik_link_name, self._prefix) or group.tip_link
            tips, poses = [tip], [req.pose_stamped]
        unknown = [t for t in tips if not self.model.has_link(t)]
        if unknown or not all(tips):
            response.error_code = error_code(
                codes.INVALID_LINK_NAME, f'unknown or missing IK link(s) {unknown or tips} for '
                f"group '{group.name}'", SOURCE)
            return
        try:
            targets = tuple(pose_stamped_in_model_frame(self.model, X_WL, p, self._prefix)
                            for p in poses)
        except (FrameError, RobotStateCoreError) as exc:
            response.error_code = error_code(codes.FRAME_TRANSFORM_FAILURE, str(exc), SOURCE)
            return
        timeout = req.timeout.sec + req.timeout.nanosec * 1e-9
        validity = None
        constraints = None
        if len(req.constraints.joint_constraints) or len(req.constraints.position_constraints) \
                or len(req.constraints.orientation_constraints):
            try:
                constraints = constraints_from_msg(self.model, X_WL, req.constraints,
                                                   self._prefix)
            except (FrameError, RobotStateCoreError) as exc:
                response.error_code = error_code(codes.FRAME_TRANSFORM_FAILURE, str(exc),
                                                 SOURCE)
                return
        if req.avoid_collisions or constraints is not None:
            with self._lock:
                scene = self.scene.copy()
            checker = state.copy()

            def validity(q: np.ndarray) -> bool:
                checker.set_variable_positions(q)
                result = scene.is_state_valid(checker, group.name if req.avoid_collisions
                                              else None, constraints,
                                              check_collisions=bool(req.avoid_collisions))
                return bool(result.valid)

        result = solve_ik(self.model, IKRequest(
            group=group.name, targets=targets, tip_links=tuple(tips),
            seed=np.array(state.positions), timeout=timeout if timeout > 0 else None,
            validity_callback=validity))
        if result.success:
            state.set_variable_positions(result.q)
            response.solution = robot_state_to_msg(state)
            response.error_code = error_code(codes.SUCCESS, '', SOURCE)
        elif result.status.value == 'invalid_request':
            response.error_code = error_code(codes.INVALID_ROBOT_STATE, result.message, SOURCE)
        else:
            response.error_code = error_code(
                codes.NO_IK_SOLUTION, f'no solution within {result.elapsed * 1e3:.1f} ms '
                f'({result.status.value}; best error {result.position_error:.2e} m, '
                f'{result.rotation_error:.2e} rad)', SOURCE)

    # ------------------------------------------------------------------ compute_fk

    def _on_compute_fk(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        codes = MoveItErrorCodes
        try:
            state = self._snapshot()
            try:
                apply_robot_state_msg(state, request.robot_state)
            except RobotStateCoreError as exc:
                response.error_code = error_code(codes.INVALID_ROBOT_STATE, str(exc), SOURCE)
                return response
            X_WL = state.get_link_poses()
            try:
                X_WH = frame_pose(self.model, X_WL, request.header.frame_id, self._prefix)
            except FrameError as exc:
                response.error_code = error_code(codes.FRAME_TRANSFORM_FAILURE, str(exc), SOURCE)
                return response
            X_HW = np.linalg.inv(X_WH)
            frame = request.header.frame_id or (self._prefix + self.model.model_frame)
            unknown = []
            for name in request.fk_link_names:
                link = strip_prefix(name, self._prefix)
                if not self.model.has_link(link):
                    unknown.append(name)
                    continue
                from geometry_msgs.msg import PoseStamped

                ps = PoseStamped()
                ps.header.frame_id = frame
                ps.header.stamp = self.get_clock().now().to_msg()
                ps.pose = matrix_to_pose(X_HW @ X_WL[self.model.link_index(link)])
                response.pose_stamped.append(ps)
                response.fk_link_names.append(name)
            if not request.fk_link_names or unknown:
                response.error_code = error_code(
                    codes.INVALID_LINK_NAME, f'unknown link(s) {unknown}' if unknown
                    else 'fk_link_names is empty', SOURCE)
            else:
                response.error_code = error_code(codes.SUCCESS, '', SOURCE)
        except Exception as exc:
            response.error_code = error_code(codes.FAILURE, f'internal error: {exc}', SOURCE)
        self.stats.record('compute_fk', (time.perf_counter() - start) * 1e3)
        return response

    # ------------------------------------------------------------------ check_state_validity

    def _on_validity(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        try:
            self._validity(request, response)
        except Exception as exc:
            self.get_logger().error(f'check_state_validity failed: {exc}')
            response.valid = False
        self.stats.record('check_state_validity', (time.perf_counter() - start) * 1e3)
        return response

    def _validity(self, request: Any, response: Any) -> None:
        state = self._snapshot()
        with self._lock:
            scene = self.scene.copy()
        try:
            apply_robot_state_msg(state, request.robot_state)
        except RobotStateCoreError as exc:
            self.get_logger().warning(f'check_state_validity: invalid robot_state: {exc}')
            response.valid = False
            return
        group = request.group_name or None
        if group is not None and not self.model.has_group(group):
            self.get_logger().warning(f"check_state_validity: unknown group '{group}'")
            response.valid = False
            return
        constraints = constraints_from_msg(self.model, state.get_link_poses(),
                                           request.constraints, self._prefix)
        result = scene.is_state_valid(state, group, constraints, contacts=True)
        stamp = self.get_clock().now().to_msg()
        frame = self._prefix + self.model.model_frame
        for c in result.contacts:
            info = ContactInformation()
            info.header.frame_id = frame
            info.header.stamp = stamp
            info.position.x, info.position.y, info.position.z = (float(v) for v in c.position_W)
            info.normal.x, info.normal.y, info.normal.z = (float(v) for v in c.normal_W)
            info.depth = float(c.depth)
            info.contact_body_1, info.contact_body_2 = c.body_name_1, c.body_name_2
            info.body_type_1, info.body_type_2 = int(c.body_type_1), int(c.body_type_2)
            response.contacts.append(info)
        response.constraint_result = [ConstraintEvalResult(result=r.result,
                                                           distance=float(r.distance))
                                      for r in result.constraint_results]
        response.valid = bool(result.valid)
        if result.contacts:
            self._contacts_pub.publish(marker_array(
                contact_markers([(c.body_name_1, c.body_name_2, c.position_W)
                                 for c in result.contacts], self.model.model_frame),
                stamp, self._prefix, delete_all_first=True))


__all__ = ['BodyType', 'StateServerNode', 'UnknownNameError', 'server_parameter_types']
_ = math  # reserved for future timeout arithmetic
