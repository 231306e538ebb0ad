"""Conversions between moveit_msgs / geometry_msgs / shape_msgs and the core (no math here).

Frames: the services accept poses in the model frame or in any link frame of the robot (an
empty ``frame_id`` means the model frame); frame ids may carry the node's ``frame_prefix``.
Anything else is a :class:`FrameError` (→ ``FRAME_TRANSFORM_FAILURE``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
import math
from typing import Any
import weakref

from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Pose, PoseStamped, Transform
from moveit_msgs.msg import MoveItErrorCodes
from moveit_msgs.msg import RobotState as RobotStateMsg
import numpy as np
from numpy.typing import NDArray
from shape_msgs.msg import SolidPrimitive
from trajectory_msgs.msg import JointTrajectoryPoint, MultiDOFJointTrajectoryPoint

from robot_state_core import kinematics
from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError, UnknownNameError
from robot_state_core.geometry.shapes import Shape, SHAPE_MODULES
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.ros.log_limits import clip, RESPONSE_MESSAGE_LIMIT
from robot_state_core.scene.constraints import (
    Constraints,
    JointConstraint,
    OrientationConstraint,
    OrientationParameterization,
    PositionConstraint,
)
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    FloatArray,
    pose_from_xyz_quat_xyzw,
    quat_xyzw_from_rotation,
    rotation_from_quat_xyzw,
)
from robot_state_core.state.robot_state import RobotState


class FrameError(RobotStateCoreError):
    """A frame id is neither the model frame nor a link of the robot."""


# ------------------------------------------------------------------------------ poses


def pose_to_matrix(pose: Pose, what: str = 'pose') -> FloatArray:
    """``geometry_msgs/Pose`` → (4, 4); the quaternion is normalized.

    Args:
        pose: The pose.
        what: What the pose is, named in errors (e.g. ``'pose_stamped_vector[1]'``).

    Raises:
        InvalidArgumentError: A NaN/inf position, or a quaternion that defines no rotation
            (NaN/inf, norm outside ``[1e-12, 1e12]``,
            :func:`~robot_state_core.spatial.transforms.check_quat_xyzw`).
    """
    o, p = pose.orientation, pose.position
    xyz = [p.x, p.y, p.z]
    if not (math.isfinite(xyz[0]) and math.isfinite(xyz[1]) and math.isfinite(xyz[2])):
        raise InvalidArgumentError(f'{what}: the position {xyz} is not finite')
    quat = [o.x, o.y, o.z, o.w]
    check_quat_xyzw(quat, what, 'the orientation')
    return pose_from_xyz_quat_xyzw(xyz, quat)


def matrix_to_pose(X: FloatArray) -> Pose:
    """(4, 4) → ``geometry_msgs/Pose``."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = X[:3, 3].tolist()
    qx, qy, qz, qw = quat_xyzw_from_rotation(X[:3, :3]).tolist()
    pose.orientation.x, pose.orientation.y = qx, qy
    pose.orientation.z, pose.orientation.w = qz, qw
    return pose


def matrix_to_transform(X: FloatArray) -> Transform:
    """(4, 4) → ``geometry_msgs/Transform``."""
    t = Transform()
    t.translation.x, t.translation.y, t.translation.z = X[:3, 3].tolist()
    qx, qy, qz, qw = quat_xyzw_from_rotation(X[:3, :3]).tolist()
    t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w = qx, qy, qz, qw
    return t


def transform_to_matrix(t: Transform) -> FloatArray:
    """``geometry_msgs/Transform`` → (4, 4)."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (t.translation.x, t.translation.y,
                                                         t.translation.z)
    pose.orientation = t.rotation
    return pose_to_matrix(pose)


def strip_prefix(frame_id: str, frame_prefix: str) -> str:
    """A frame id without the node's frame prefix and any leading '/'."""
    frame = frame_id.lstrip('/')
    if frame_prefix and frame.startswith(frame_prefix):
        frame = frame[len(frame_prefix):]
    return frame


def frame_pose(model: RobotModel, X_WL: FloatArray, frame_id: str,
               frame_prefix: str = '') -> FloatArray:
    """``X_WF`` of a frame id: '' or the model frame → identity; a link → its pose.

    Raises:
        FrameError: Neither the model frame nor a link of this robot.
    """
    frame = strip_prefix(frame_id, frame_prefix)
    if frame in ('', model.model_frame):
        return np.eye(4)
    if model.has_link(frame):
        return np.asarray(X_WL[model.link_index(frame)])
    raise FrameError(f"frame '{frame_id}' is neither the model frame '{model.model_frame}' "
                     'nor a link of this robot')


def pose_stamped_in_model_frame(model: RobotModel, X_WL: FloatArray, msg: PoseStamped,
                                frame_prefix: str = '', what: str = 'pose') -> FloatArray:
    """``X_WT`` of a PoseStamped (see :func:`frame_pose` for the accepted frames).

    Raises:
        FrameError: The header frame is unknown.
        InvalidArgumentError: The pose is not finite or its quaternion is degenerate.
    """
    frame = strip_prefix(msg.header.frame_id, frame_prefix)
    X_WH = None if frame in ('', model.model_frame) else \
        frame_pose(model, X_WL, msg.header.frame_id, frame_prefix)
    X_HT = pose_to_matrix(msg.pose, what)
    return X_HT if X_WH is None else X_WH @ X_HT


# ------------------------------------------------------------------------------ robot state


def apply_robot_state_msg(state: RobotState, msg: Any,
                          attach: Callable[[Any, Any], None] | None = None) -> None:
    """Overlay a ``moveit_msgs/RobotState`` on a core RobotState (MoveIt semantics).

    ``joint_state`` may name 1-DOF joints and MoveIt-style multi-DOF variables
    (``base/x`` ...); ``multi_dof_joint_state`` sets planar/floating/rpy joints from transforms.
    With ``is_diff`` false the attached bodies are replaced by the message's; with ``is_diff``
    true they are added/removed as the message says (through ``attach``).

    Raises:
        UnknownNameError: A joint or variable name is not known (→ INVALID_ROBOT_STATE).
        InvalidArgumentError: Length mismatches or non-finite values.
    """
    js = msg.joint_state
    if len(js.position) and len(js.name) != len(js.position):
        raise InvalidArgumentError(f'robot_state.joint_state has {len(js.name)} names but '
                                   f'{len(js.position)} positions')
    if len(js.name) and len(js.position):
        positions = np.asarray(js.position, dtype=np.float64)
        if not np.isfinite(positions).all():
            raise InvalidArgumentError('robot_state.joint_state has non-finite positions')
        state.set_variable_positions(list(js.name), positions)
    mdof = msg.multi_dof_joint_state
    if len(mdof.joint_names) != len(mdof.transforms):
        raise InvalidArgumentError(f'robot_state.multi_dof_joint_state has '
                                   f'{len(mdof.joint_names)} names but {len(mdof.transforms)} '
                                   'transforms')
    for name, t in zip(mdof.joint_names, mdof.transforms, strict=True):
        state.set_joint_pose(name, transform_to_matrix(t))
    if attach is not None:
        if not msg.is_diff:
            state.clear_attached_bodies()
        for aco in msg.attached_collision_objects:
            attach(state, aco)


@dataclass(frozen=True)
class _StateMsgLayout:
    """Where a model's joints go in a ``moveit_msgs/RobotState`` (computed once per model).

    Attributes:
        names: The 1-DOF joints (revolute, continuous, prismatic), model order.
        q_index: ``(n,)`` their position variables' indices in ``RobotState.positions``.
        multi_dof: The planar, floating and rpy_floating joints, model order.
        multi_dof_index: Their joint indices.
        transforms: Per multi-DOF joint, the last ``(variables as bytes, translation +
            quaternion xyzw)`` computed: a joint whose variables did not change (a base that
            did not move) reuses the numbers.
    """

    names: tuple[str, ...]
    q_index: NDArray[np.intp]
    multi_dof: tuple[str, ...]
    multi_dof_index: tuple[int, ...]
    transforms: dict[int, tuple[bytes, list[float]]] = field(default_factory=dict)


_STATE_MSG_LAYOUTS: weakref.WeakKeyDictionary[RobotModel, _StateMsgLayout] = \
    weakref.WeakKeyDictionary()


def _state_msg_layout(model: RobotModel) -> _StateMsgLayout:
    layout = _STATE_MSG_LAYOUTS.get(model)
    if layout is None:
        nq = model.joint_nq.tolist()  # JointState: one variable; MultiDOFJointState: several
        one = [j for j in range(model.joint_count) if nq[j] == 1]
        multi = [j for j in range(model.joint_count) if nq[j] > 1]
        layout = _StateMsgLayout(
            tuple(model.joint_names[j] for j in one),
            np.array([model.joint_q_start[j] for j in one], dtype=np.intp),
            tuple(model.joint_names[j] for j in multi), tuple(multi))
        _STATE_MSG_LAYOUTS[model] = layout
    return layout


def robot_state_to_msg(state: RobotState, msg: Any = None) -> Any:
    """A full ``moveit_msgs/RobotState`` (no attached bodies, as compute_ik returns).

    Args:
        state: The state.
        msg: A ``moveit_msgs/RobotState`` to fill (e.g. a response's ``solution``); ``None``
            makes a new one.

    Returns:
        ``msg`` (or the new message): ``joint_state`` with every 1-DOF joint in model order,
        ``multi_dof_joint_state`` with every multi-DOF joint's transform ``X_FM``.
    """
    return positions_to_robot_state_msg(state.robot_model, state.positions, msg)


def positions_to_robot_state_msg(model: RobotModel, q: FloatArray, msg: Any = None) -> Any:
    """:func:`robot_state_to_msg` of the positions ``q`` ``(nq,)`` of ``model`` (mimic applied).

    A multi-DOF joint's transform is its motion ``X_FM`` from its variables
    (:func:`~robot_state_core.kinematics.multi_dof_joint_motion`, as
    ``RobotState.get_joint_pose``); its numbers are reused while those variables do not change.
    """
    layout = _state_msg_layout(model)
    if msg is None:
        msg = RobotStateMsg()
    msg.joint_state.name = list(layout.names)
    msg.joint_state.position = array('d', q[layout.q_index].tobytes())
    if layout.multi_dof:
        transforms = []
        for j in layout.multi_dof_index:
            start = int(model.joint_q_start[j])
            key = q[start:start + int(model.joint_nq[j])].tobytes()
            cached = layout.transforms.get(j)
            if cached is None or cached[0] != key:
                X = kinematics.multi_dof_joint_motion(model, j, q)
                cached = layout.transforms[j] = (
                    key, X[:3, 3].tolist() + quat_xyzw_from_rotation(X[:3, :3]).tolist())
            t = Transform()
            tr, rot = t.translation, t.rotation
            tr.x, tr.y, tr.z, rot.x, rot.y, rot.z, rot.w = cached[1]
            transforms.append(t)
        mdof = msg.multi_dof_joint_state
        mdof.joint_names = list(layout.multi_dof)
        mdof.transforms = transforms
    return msg


def robot_trajectory_msg(model: RobotModel, group: str, path: FloatArray, times: FloatArray,
                         velocities: FloatArray, frame_id: str, msg: Any) -> Any:
    """Fill a ``moveit_msgs/RobotTrajectory`` with a group's path (``getRobotTrajectoryMsg``).

    The group's active 1-DOF joints go to ``joint_trajectory`` (positions, velocities,
    ``time_from_start``), its planar/floating/rpy_floating joints to
    ``multi_dof_joint_trajectory`` (the joint transform ``X_FM`` per point).

    Args:
        model: The robot model.
        group: The group whose joints are written.
        path: ``(K, nq)`` configurations.
        times: ``(K,)`` times from the start [s].
        velocities: ``(K, nv)`` velocities.
        frame_id: The header frame of both trajectories (the model frame).
        msg: The message to fill.

    Returns:
        ``msg``.
    """
    g = model.group(group)
    single = [j for j in g.active_joint_indices.tolist() if model.joint_nq[j] == 1]
    multi = [j for j in g.active_joint_indices.tolist() if model.joint_nq[j] > 1]
    q_cols = np.array([model.joint_q_start[j] for j in single], dtype=np.intp)
    v_cols = np.array([model.joint_v_start[j] for j in single], dtype=np.intp)

    def duration(t: float) -> Any:
        ns = round(t * 1e9)
        return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)

    jt = msg.joint_trajectory
    jt.header.frame_id = frame_id
    jt.joint_names = [model.joint_names[j] for j in single]
    jt.points = [JointTrajectoryPoint(positions=path[k, q_cols].tolist(),
                                      velocities=velocities[k, v_cols].tolist(),
                                      time_from_start=duration(float(times[k])))
                 for k in range(len(path))] if single else []
    mt = msg.multi_dof_joint_trajectory
    mt.header.frame_id = frame_id
    mt.joint_names = [model.joint_names[j] for j in multi]
    mt.points = [MultiDOFJointTrajectoryPoint(
        transforms=[matrix_to_transform(kinematics.multi_dof_joint_motion(model, j, path[k]))
                    for j in multi],
        time_from_start=duration(float(times[k]))) for k in range(len(path))] if multi else []
    return msg


# ------------------------------------------------------------------------------ shapes


_SOLID_PRIMITIVES = {m.SOLID_PRIMITIVE: m for m in SHAPE_MODULES.values()
                     if m.SOLID_PRIMITIVE is not None}
'''The shape module of each ``SolidPrimitive`` type (BOX, SPHERE, CYLINDER, CONE).'''


def shape_from_primitive(prim: SolidPrimitive) -> Shape:
    """``shape_msgs/SolidPrimitive`` → a core shape (full sizes; cylinder/cone along z).

    Raises:
        InvalidArgumentError: Unsupported type or wrong/invalid dimensions.
    """
    d = list(prim.dimensions)
    module = _SOLID_PRIMITIVES.get(prim.type)
    if module is None:
        raise InvalidArgumentError(f'unsupported SolidPrimitive type {prim.type}')
    size = module.SOLID_PRIMITIVE_SIZE
    if len(d) < size or not all(np.isfinite(d)) or min(d[:size]) <= 0:
        raise InvalidArgumentError(f'invalid SolidPrimitive dimensions {d} for type '
                                   f'{prim.type}')
    shape: Shape = module.from_solid_primitive(d)
    return shape


# ------------------------------------------------------------------------------ constraints


def _finite(values: Any, what: str) -> None:
    a = np.asarray(values, dtype=np.float64)
    if not np.isfinite(a).all():
        raise InvalidArgumentError(f'{what} is not finite: {a.tolist()}')


def _link(model: RobotModel, name: str, frame_prefix: str) -> str:
    link = strip_prefix(name, frame_prefix)
    if not model.has_link(link):
        raise UnknownNameError(name, 'link', model.link_names)
    return link


def constraints_from_msg(model: RobotModel, X_WL: FloatArray, msg: Any, frame_prefix: str = '',
                         warn: Callable[[str], object] | None = None) -> Constraints:
    """``moveit_msgs/Constraints`` → core constraints with regions in the model frame.

    Everything is checked here, before any evaluation: names, numbers, primitives and
    quaternions (decision V2). An unknown orientation ``parameterization`` is read as
    XYZ_EULER_ANGLES with a warning, as MoveIt's ``OrientationConstraint::configure`` does.

    Args:
        model: The robot model.
        X_WL: ``(L, 4, 4)`` link poses of the state the header frames are resolved in.
        msg: The ``moveit_msgs/Constraints``.
        frame_prefix: The node's frame prefix (accepted in frame ids and link names).
        warn: Receives the warning about an unknown parameterization.

    Raises:
        FrameError: A header frame is unknown.
        UnknownNameError: A constraint names a link or joint the model does not have.
        InvalidArgumentError: A NaN/inf number, a bad primitive or pose, a position constraint
            without a primitive region, or a degenerate orientation quaternion.
    """
    joints = []
    for k, c in enumerate(msg.joint_constraints):
        if not (model.has_variable(c.joint_name) or model.has_joint(c.joint_name)):
            raise UnknownNameError(c.joint_name, 'joint', model.joint_names)
        _finite([c.position, c.tolerance_above, c.tolerance_below, c.weight],
                f'joint_constraints[{k}] (position, tolerances, weight)')
        joints.append(JointConstraint(c.joint_name, c.position, c.tolerance_above,
                                      c.tolerance_below, c.weight))
    positions = []
    for k, c in enumerate(msg.position_constraints):
        link = _link(model, c.link_name, frame_prefix)
        offset = c.target_point_offset
        _finite([offset.x, offset.y, offset.z, c.weight],
                f'position_constraints[{k}] (target_point_offset, weight)')
        if not len(c.constraint_region.primitives):
            raise InvalidArgumentError(f'position_constraints[{k}] has no primitive in its '
                                       'constraint_region (mesh regions are not supported)')
        X_WH = frame_pose(model, X_WL, c.header.frame_id, frame_prefix)
        region = tuple(
            (shape_from_primitive(p),
             X_WH @ pose_to_matrix(pose, f'position_constraints[{k}] primitive_poses[{i}]'))
            for i, (p, pose) in enumerate(zip(c.constraint_region.primitives,
                                              c.constraint_region.primitive_poses,
                                              strict=False)))
        positions.append(PositionConstraint(link, region, (offset.x, offset.y, offset.z),
                                            c.weight))
    orientations = []
    for k, c in enumerate(msg.orientation_constraints):
        link = _link(model, c.link_name, frame_prefix)
        o = c.orientation
        q = check_quat_xyzw([o.x, o.y, o.z, o.w], f'orientation_constraints[{k}]',
                            'the orientation')
        tolerances = (c.absolute_x_axis_tolerance, c.absolute_y_axis_tolerance,
                      c.absolute_z_axis_tolerance)
        _finite([*tolerances, c.weight],
                f'orientation_constraints[{k}] (absolute tolerances, weight)')
        try:
            parameterization = OrientationParameterization(c.parameterization)
        except ValueError:
            parameterization = OrientationParameterization.XYZ_EULER_ANGLES
            if warn is not None:
                warn(f'orientation_constraints[{k}]: unknown parameterization '
                     f'{c.parameterization}, using XYZ_EULER_ANGLES (as MoveIt)')
        X_WH = frame_pose(model, X_WL, c.header.frame_id, frame_prefix)
        R = X_WH[:3, :3] @ rotation_from_quat_xyzw(q)
        orientations.append(OrientationConstraint(
            link, tuple(quat_xyzw_from_rotation(R).tolist()), tolerances, parameterization,
            c.weight))
    return Constraints(msg.name, tuple(joints), tuple(positions), tuple(orientations))


# ------------------------------------------------------------------------------ error codes


def error_code(val: int, message: str = '', source: str = 'robot_state_core') -> Any:
    """A filled ``moveit_msgs/MoveItErrorCodes`` (the message clipped: it may quote requests)."""
    return MoveItErrorCodes(val=int(val), message=clip(message, RESPONSE_MESSAGE_LIMIT),
                            source=source)
