"""The configuration space: integrate, difference, joint values from a joint's motion.

The Lie-group maps of every joint type (angles wrap, quaternions on SO(3)); conventions in
:mod:`robot_state_core.kinematics`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    all_finite,
    as_finite_float,
    FloatArray,
)
from robot_state_core.description.joint_types import JOINT_TYPES
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.kinematics.plan import broadcast_batch, check_configuration
from robot_state_core.model.robot_model import RobotModel


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

    MoveIt's ``JointModel::computeTransform``: the joint type module's ``motion`` on the
    joint's slice of ``q``.

    Args:
        model: The robot model.
        joint: Index of a multi-DOF joint.
        q: ``(nq,)`` joint positions (checked by the caller).
    """
    start = int(model.joint_q_start[joint])
    out: FloatArray = JOINT_TYPES[model.joint_types[joint]].motion(
        q[start:start + int(model.joint_nq[joint])])
    return out


def joint_positions_from_motion(model: RobotModel, joint: int, X_FM: FloatArray) -> FloatArray:
    """The joint's variables ``(nq_j,)`` whose motion is closest to ``X_FM`` ``(4, 4)``.

    MoveIt ``computeVariablePositions`` (the joint type module's ``positions_from_motion``);
    components the joint cannot represent are dropped.

    Raises:
        InvalidArgumentError: The joint is FIXED (it has no variables).
    """
    t = model.joint_types[joint]
    module = JOINT_TYPES[t]
    if not module.NQ:
        raise InvalidArgumentError(f'joint {model.joint_names[joint]!r} ({t.value}) has no '
                                   'variables')
    if hasattr(module, 'motion_coefficients'):  # 1-DOF: along or about the joint's axis
        out: FloatArray = module.positions_from_motion(X_FM, model.joint_axes[joint])
    else:
        out = module.positions_from_motion(X_FM)
    return out


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
    for slots in p.type_slots:  # each joint type's integrate, on all its joints at once
        out[..., slots.q] = slots.module.integrate(out[..., slots.q], va[..., slots.v] * dt)
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
    for slots in p.type_slots:  # each joint type's difference, on all its joints at once
        out[..., slots.v] = slots.module.difference(a[..., slots.q], b[..., slots.q],
                                                    slots.parameters.wrap)
    return out
