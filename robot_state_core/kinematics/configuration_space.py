"""The configuration space: integrate, difference, joint values from a joint's motion.

The Lie-group maps of every joint type (angles wrap, quaternions on SO(3)); conventions in
:mod:`robot_state_core.kinematics`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    all_finite,
    as_finite_float,
    FloatArray,
)
from robot_state_core.description.joint_motion import multi_dof_motion
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.kinematics.plan import broadcast_batch, check_configuration, plan
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    quat_xyzw_from_rotation,
    rotation_exp,
    rotation_from_quat_xyzw,
    rotation_from_rpy,
    rotation_log,
    rpy_from_rotation,
    wrap_angle,
)


def joint_motion(model: RobotModel, joint: int, X_PC: FloatArray) -> FloatArray:
    """``X_FM = X_PJ⁻¹ @ X_PC`` ``(4, 4)``: a joint's motion without its origin.

    Args:
        model: The robot model.
        joint: Joint index.
        X_PC: ``(4, 4)`` the joint's local transform (child link in parent link).
    """
    out: FloatArray = np.asarray(np.linalg.solve(model.joint_origins[joint], X_PC),
                                 dtype=np.float64)
    return out


def multi_dof_joint_motion(model: RobotModel, joint: int, q: FloatArray) -> FloatArray:
    """``X_FM`` ``(4, 4)`` of a PLANAR, FLOATING or RPY_FLOATING joint from its variables.

    MoveIt's ``JointModel::computeTransform``: the joint-motion kernel
    (:func:`~robot_state_core.description.joint_motion.multi_dof_motion`) on the joint's slice
    of ``q``, as FK evaluates it (the plane basis of a planar joint from the plan).

    Args:
        model: The robot model.
        joint: Index of a multi-DOF joint.
        q: ``(nq,)`` joint positions (checked by the caller).
    """
    t = model.joint_types[joint]
    start = int(model.joint_q_start[joint])
    qj = q[start:start + int(model.joint_nq[joint])]
    basis = None
    if t is JointType.PLANAR:
        p = plan(model)
        basis = p.planar_basis[int(np.flatnonzero(p.planar == joint)[0])]
    out: FloatArray = multi_dof_motion(t, qj, basis)
    return out


def joint_positions_from_motion(model: RobotModel, joint: int, X_FM: FloatArray) -> FloatArray:
    """The joint's variables ``(nq_j,)`` whose motion is closest to ``X_FM`` ``(4, 4)``.

    MoveIt ``computeVariablePositions``; components the joint cannot represent are dropped.

    Raises:
        InvalidArgumentError: The joint is FIXED (it has no variables).
    """
    t = model.joint_types[joint]
    R, p = X_FM[:3, :3], X_FM[:3, 3]
    axis = np.asarray(model.joint_axes[joint])
    if t in (JointType.REVOLUTE, JointType.CONTINUOUS):
        return np.array([float(rotation_log(R) @ axis)])
    if t is JointType.PRISMATIC:
        return np.array([float(p @ axis)])
    if t is JointType.PLANAR:
        kp = plan(model)
        P = kp.planar_basis[int(np.flatnonzero(kp.planar == joint)[0])]
        M = P.T @ R @ P
        return np.array([p @ P[:, 0], p @ P[:, 1], math.atan2(M[1, 0], M[0, 0])])
    if t is JointType.FLOATING:
        return np.concatenate([p, quat_xyzw_from_rotation(R)])
    if t is JointType.RPY_FLOATING:
        return np.concatenate([rpy_from_rotation(R), p])
    raise InvalidArgumentError(f'joint {model.joint_names[joint]!r} ({t.value}) has no '
                               'variables')


# ---------------------------------------------------------------------------- configuration space


def integrate(model: RobotModel, q: ArrayLike, v: ArrayLike, dt: float = 1.0) -> FloatArray:
    """``q ⊕ v dt``: move along velocity ``v`` for ``dt`` seconds (exact on SO(3) parts).

    Args:
        model: The robot model.
        q: ``(..., nq)`` positions.
        v: ``(..., nv)`` velocities (``[w_FM; v_FM]`` for floating/rpy joints).
        dt: Duration [s].

    Returns:
        ``(..., nq)`` new positions (quaternions unit, mimic variables not re-applied).
    """
    qa, p = check_configuration(model, q, 'integrate')
    try:
        va = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'integrate: v is not numeric ({err})') from err
    if va.shape[-1:] != (model.nv,):
        raise InvalidArgumentError(f'integrate: v must have shape (..., {model.nv}), got '
                                   f'{va.shape}')
    if not all_finite(va):
        raise InvalidArgumentError('integrate: v contains NaN or inf')
    dt = as_finite_float(dt, 'integrate', 'dt')
    batch = broadcast_batch(qa, va, 'integrate', 'v')
    out = np.array(np.broadcast_to(qa, (*batch, model.nq)))
    simple = p.q_of_v >= 0
    out[..., p.q_of_v[simple]] += va[..., simple] * dt
    for joints, kind in ((p.floating, 'floating'), (p.rpy, 'rpy')):
        if not joints.size:
            continue
        v0 = np.asarray(model.joint_v_start)[joints][:, None] + np.arange(6)
        w, lin = va[..., v0[:, :3]] * dt, va[..., v0[:, 3:]] * dt
        if kind == 'floating':
            qs = p.floating_q
            out[..., qs[:, :3]] += lin
            R = rotation_exp(w) @ rotation_from_quat_xyzw(out[..., qs[:, 3:]])
            out[..., qs[:, 3:]] = quat_xyzw_from_rotation(R)
        else:
            qs = p.rpy_q
            out[..., qs[:, 3:]] += lin
            R = rotation_exp(w) @ rotation_from_rpy(out[..., qs[:, :3]])
            out[..., qs[:, :3]] = rpy_from_rotation(R)
    return out


def difference(model: RobotModel, q0: ArrayLike, q1: ArrayLike) -> FloatArray:
    """The velocity ``v`` with ``integrate(q0, v) == q1`` (shortest arc for angles).

    Args:
        model: The robot model.
        q0: ``(..., nq)`` start positions.
        q1: ``(..., nq)`` end positions.

    Returns:
        ``(..., nv)``; continuous joints and planar theta take the shortest arc, quaternion
        and rpy joints the rotation vector of ``R1 R0^T`` (in the joint frame F).
    """
    a, p = check_configuration(model, q0, 'difference', 'q0')
    b, _ = check_configuration(model, q1, 'difference', 'q1')
    shape = broadcast_batch(a, b, 'difference', 'q1')
    out = np.zeros((*shape, model.nv))
    simple = p.q_of_v >= 0
    d = b[..., p.q_of_v[simple]] - a[..., p.q_of_v[simple]]
    wrap = np.asarray(model.variable_bounded)[p.q_of_v[simple]] == False  # noqa: E712
    wrap &= np.isin(np.arange(model.nq)[p.q_of_v[simple]], p.angle_variables)
    d = np.where(wrap, wrap_angle(d), d)
    out[..., simple] = d
    for joints, qs, kind in ((p.floating, p.floating_q, 'floating'), (p.rpy, p.rpy_q, 'rpy')):
        if not joints.size:
            continue
        v0 = np.asarray(model.joint_v_start)[joints][:, None] + np.arange(6)
        if kind == 'floating':
            R0 = rotation_from_quat_xyzw(a[..., qs[:, 3:]])
            R1 = rotation_from_quat_xyzw(b[..., qs[:, 3:]])
            t0, t1 = a[..., qs[:, :3]], b[..., qs[:, :3]]
        else:
            R0 = rotation_from_rpy(a[..., qs[:, :3]])
            R1 = rotation_from_rpy(b[..., qs[:, :3]])
            t0, t1 = a[..., qs[:, 3:]], b[..., qs[:, 3:]]
        out[..., v0[:, :3]] = rotation_log(R1 @ np.swapaxes(R0, -1, -2))
        out[..., v0[:, 3:]] = t1 - t0
    return out


