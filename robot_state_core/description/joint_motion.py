"""Vectorized joint kernels: local motion transforms and velocity ↔ q̇ maps per joint type.

This module owns the batched math behind the joint classes (design study B1/B2): pure functions
over numpy arrays with arbitrary leading batch dimensions and no Python loops. Public functions
validate shapes once; the private helpers trust their input.

It is the one joint-motion kernel, also for the compiled FK
(:mod:`robot_state_core.kinematics.compiled`), which has no joint math of its own: for 1-DOF
joints the kinematics plan builds, once per model, the coefficients of the motion polynomial
``X_PC = X_PJ (C0 + sin θ C1 + (1 - cos θ) C2 + θ C3)`` from
:func:`one_dof_motion_coefficients`, and the compiled kernel only evaluates that polynomial;
multi-DOF motions (planar, floating, rpy_floating) are computed per call by
:func:`multi_dof_motion` (batched over configurations) and handed to the kernel, which only
composes them with the joint origins.

rpy_floating (Drake ``RpyFloatingJoint``, seed 001, rows J-T8, J-R5..J-R13, §1.5):
    * positions ``q = [roll, pitch, yaw, x, y, z]`` (angles FIRST, rad; then ``p_FM`` in m);
    * velocities ``v = [w_FM; v_FM]`` (angular FIRST, both expressed in the parent frame F);
      these are *not* the angle rates;
    * orientation ``R_FM(q) = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` (space-fixed x-y-z, the URDF
      convention, see :func:`robot_state_core.spatial.transforms.rotation_from_rpy`; its inverse
      :func:`robot_state_core.spatial.transforms.rpy_from_rotation` is re-exported here);
    * ``v = N⁺(q) q̇`` with ``w_FM = E_F(q) [ṙ, ṗ, ẏ]``,
      ``E_F = [[cy·cp, -sy, 0], [sy·cp, cy, 0], [-sp, 0, 1]]``, always defined;
    * ``q̇ = N(q) v`` with ``N = (N⁺)⁻¹``, which divides by ``cos(pitch)``: it is singular at
      the gimbal lock ``pitch = π/2 + kπ`` and raises :class:`SingularityError` when
      ``|cos(pitch)| <`` :data:`RPY_SINGULARITY_COS_TOL` (Drake's guard).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError, SingularityError
from robot_state_core.spatial.transforms import (
    rotation_from_quat_xyzw,
    rotation_from_rpy,
    rpy_from_rotation,
    skew,
)

__all__ = [
    'RPY_SINGULARITY_COS_TOL',
    'RPY_WARNING_COS_TOL',
    'multi_dof_motion',
    'one_dof_motion_coefficients',
    'rpy_floating_map_qdot_to_velocity',
    'rpy_floating_map_velocity_to_qdot',
    'rpy_floating_pose',
    'rpy_floating_qdot_to_velocity_matrix',
    'rpy_floating_velocity_to_qdot_matrix',
    'rpy_from_rotation',
]

RPY_SINGULARITY_COS_TOL = 1e-3
'''``|cos(pitch)|`` below which the rpy_floating v → q̇ maps raise (Drake's threshold).'''

RPY_WARNING_COS_TOL = 1e-2
'''``|cos(pitch)|`` below which setting rpy angles warns (|pitch ∓ π/2| < about 0.57°).'''

_MAX_LISTED_VALUES = 5

_NQ = 6
_NV = 6


def _batch(a: ArrayLike, n: int, function: str, argument: str) -> FloatArray:
    """``a`` as float64 with shape ``(..., n)``; ValueError naming the expected shape."""
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim < 1 or arr.shape[-1] != n:
        raise InvalidArgumentError(
            f'{function}: {argument} must have shape (..., {n}), got {arr.shape}')
    return arr


def _trig(q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(cos pitch, sin pitch, cos yaw, sin yaw)`` of ``(..., 6)`` rpy_floating positions."""
    pitch, yaw = q[..., 1], q[..., 2]
    return np.cos(pitch), np.sin(pitch), np.cos(yaw), np.sin(yaw)


def _raise_if_singular(q: FloatArray, cp: FloatArray, function: str) -> None:
    """Raise SingularityError if any ``|cos(pitch)| < RPY_SINGULARITY_COS_TOL`` (seed §1.5)."""
    singular = np.abs(cp) < RPY_SINGULARITY_COS_TOL
    if not np.any(singular):
        return
    pitches = q[..., 1][singular]
    listed = ', '.join(f'{p:.9g}' for p in pitches[:_MAX_LISTED_VALUES])
    more = f' and {pitches.size - _MAX_LISTED_VALUES} more' if (
        pitches.size > _MAX_LISTED_VALUES) else ''
    raise SingularityError(
        f'{function}: rpy_floating velocity → q̇ map is undefined at the gimbal-lock '
        f'singularity pitch = π/2 + kπ; |cos(pitch)| < {RPY_SINGULARITY_COS_TOL:g} for '
        f'pitch = [{listed}{more}] rad. Keep pitch away from ±π/2 or use a quaternion '
        f'FLOATING joint (JointType.FLOATING, Drake QuaternionFloatingJoint) instead, which '
        f'has no singularity.',
        values=pitches.tolist())


def one_dof_motion_coefficients(joint_type: JointType, axis: ArrayLike) -> FloatArray:
    """Coefficients ``C`` ``(4, 4, 4)`` of a 1-DOF joint's motion in its joint frame.

    ``X_FM(θ) = C[0] + sin θ C[1] + (1 - cos θ) C[2] + θ C[3]`` (Rodrigues for revolute and
    continuous joints about the unit ``axis``; a translation along it for prismatic ones).
    The one joint-motion kernel of 1-DOF joints: the FK plan and IK's kernel both build their
    per-joint products from these.


    Args:
        joint_type: REVOLUTE, CONTINUOUS or PRISMATIC.
        axis: ``(3,)`` unit axis in the joint frame.
    """
    a = np.asarray(axis, dtype=np.float64)
    C = np.zeros((4, 4, 4))
    C[0] = np.eye(4)
    if joint_type is JointType.PRISMATIC:
        C[3, :3, 3] = a
    else:
        K = skew(a)
        C[1, :3, :3] = K
        C[2, :3, :3] = K @ K
    return C


def multi_dof_motion(joint_type: JointType, q: FloatArray,
                     basis: FloatArray | None = None) -> FloatArray:
    """Motion ``X_FM(q)`` ``(..., 4, 4)`` of PLANAR, FLOATING and RPY_FLOATING joints.

    The one joint-motion kernel of multi-DOF joints (FK, IK and :func:`rpy_floating_pose`
    call it).

    Args:
        joint_type: PLANAR, FLOATING or RPY_FLOATING.
        q: ``(..., nq_j)`` the joints' variables: planar ``(x, y, θ)``, floating
            ``(x, y, z, qx, qy, qz, qw)`` (normalized here), rpy_floating
            ``(roll, pitch, yaw, x, y, z)``.
        basis: Planar only: ``(..., 3, 3)`` plane bases ``[e1, e2, n]`` (broadcast against
            the batch of ``q``).
    """
    M = np.zeros((*q.shape[:-1], 4, 4))
    M[..., 3, 3] = 1.0
    if joint_type is JointType.PLANAR:
        if basis is None:
            raise InvalidArgumentError('multi_dof_motion: a PLANAR joint needs its plane basis')
        c, s = np.cos(q[..., 2]), np.sin(q[..., 2])
        Rz = np.zeros((*q.shape[:-1], 3, 3))
        Rz[..., 0, 0], Rz[..., 0, 1], Rz[..., 1, 0], Rz[..., 1, 1] = c, -s, s, c
        Rz[..., 2, 2] = 1.0
        M[..., :3, :3] = basis @ Rz @ np.swapaxes(basis, -1, -2)
        M[..., :3, 3] = basis[..., :, 0] * q[..., 0:1] + basis[..., :, 1] * q[..., 1:2]
    elif joint_type is JointType.FLOATING:
        M[..., :3, :3] = rotation_from_quat_xyzw(q[..., 3:7])
        M[..., :3, 3] = q[..., 0:3]
    else:
        M[..., :3, :3] = rotation_from_rpy(q[..., 0:3])
        M[..., :3, 3] = q[..., 3:6]
    return M


def rpy_floating_pose(q: ArrayLike) -> FloatArray:
    """Poses ``X_FM(q)`` of an rpy_floating joint (J-R10, J-G18).

    Args:
        q: ``(..., 6)`` positions ``[roll, pitch, yaw, x, y, z]`` (rad, then m; angles first).

    Returns:
        ``(..., 4, 4)`` poses ``X_FM``: rotation ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``,
        translation ``p_FM = q[..., 3:6]``.

    Raises:
        ValueError: ``q`` does not have shape ``(..., 6)``.
    """
    qq = _batch(q, _NQ, 'rpy_floating_pose', 'q')
    return multi_dof_motion(JointType.RPY_FLOATING, qq)


def rpy_floating_qdot_to_velocity_matrix(q: ArrayLike) -> FloatArray:
    """``N⁺(q)``, the matrix mapping q̇ to v for an rpy_floating joint (seed §1.5).

    ``v = N⁺(q) q̇`` with ``N⁺ = blockdiag(E_F(q), I₃)`` and
    ``E_F = [[cy·cp, -sy, 0], [sy·cp, cy, 0], [-sp, 0, 1]]`` (c = cos, s = sin, p = pitch,
    y = yaw); its columns are ``Rz Ry x̂``, ``Rz ŷ`` and ``ẑ``, the axes of the roll, pitch
    and yaw rates expressed in F. Defined everywhere (rank 5 at the singularity).

    Args:
        q: ``(..., 6)`` positions ``[roll, pitch, yaw, x, y, z]``.

    Returns:
        ``(..., 6, 6)`` matrices mapping ``[ṙ, ṗ, ẏ, ẋ, ẏ, ż]`` to ``[w_FM; v_FM]`` (in F).

    Raises:
        ValueError: ``q`` does not have shape ``(..., 6)``.
    """
    qq = _batch(q, _NQ, 'rpy_floating_qdot_to_velocity_matrix', 'q')
    cp, sp, cy, sy = _trig(qq)
    N_plus = np.zeros((*qq.shape[:-1], _NV, _NQ))
    N_plus[..., 0, 0] = cy * cp
    N_plus[..., 0, 1] = -sy
    N_plus[..., 1, 0] = sy * cp
    N_plus[..., 1, 1] = cy
    N_plus[..., 2, 0] = -sp
    N_plus[..., 2, 2] = 1.0
    N_plus[..., 3, 3] = N_plus[..., 4, 4] = N_plus[..., 5, 5] = 1.0
    return N_plus


def rpy_floating_velocity_to_qdot_matrix(q: ArrayLike) -> FloatArray:
    """``N(q) = N⁺(q)⁻¹``, the matrix mapping v to q̇ for an rpy_floating joint (seed §1.5).

    ``E_F⁻¹ = [[cy/cp, sy/cp, 0], [-sy, cy, 0], [sp·cy/cp, sp·sy/cp, 1]]``; the translational
    block is the identity.

    Args:
        q: ``(..., 6)`` positions ``[roll, pitch, yaw, x, y, z]``.

    Returns:
        ``(..., 6, 6)`` matrices mapping ``[w_FM; v_FM]`` to ``[ṙ, ṗ, ẏ, ẋ, ẏ, ż]``.

    Raises:
        ValueError: ``q`` does not have shape ``(..., 6)``.
        SingularityError: ``|cos(pitch)| <`` :data:`RPY_SINGULARITY_COS_TOL` for any batch
            element (gimbal lock at ``pitch = π/2 + kπ``); nothing is computed.
    """
    function = 'rpy_floating_velocity_to_qdot_matrix'
    qq = _batch(q, _NQ, function, 'q')
    cp, sp, cy, sy = _trig(qq)
    _raise_if_singular(qq, cp, function)
    N = np.zeros((*qq.shape[:-1], _NQ, _NV))
    N[..., 0, 0] = cy / cp
    N[..., 0, 1] = sy / cp
    N[..., 1, 0] = -sy
    N[..., 1, 1] = cy
    N[..., 2, 0] = sp * cy / cp
    N[..., 2, 1] = sp * sy / cp
    N[..., 2, 2] = 1.0
    N[..., 3, 3] = N[..., 4, 4] = N[..., 5, 5] = 1.0
    return N


def rpy_floating_map_qdot_to_velocity(q: ArrayLike, qdot: ArrayLike) -> FloatArray:
    """``v = N⁺(q) q̇`` for an rpy_floating joint, without forming the matrix (seed §1.5).

    Args:
        q: ``(..., 6)`` positions ``[roll, pitch, yaw, x, y, z]``.
        qdot: ``(..., 6)`` position rates ``[ṙ, ṗ, ẏ, ẋ, ẏ, ż]`` (rad/s, m/s); batch
            dimensions broadcast against ``q``.

    Returns:
        ``(..., 6)`` velocities ``[w_FM; v_FM]``, both expressed in F.

    Raises:
        ValueError: ``q`` or ``qdot`` does not have shape ``(..., 6)``, or their batch
            dimensions do not broadcast.
    """
    function = 'rpy_floating_map_qdot_to_velocity'
    qq = _batch(q, _NQ, function, 'q')
    qd = _batch(qdot, _NQ, function, 'qdot')
    shape = _broadcast_batch(qq, qd, function, 'qdot')
    cp, sp, cy, sy = _trig(qq)
    rd, pd, yd = qd[..., 0], qd[..., 1], qd[..., 2]
    v = np.empty((*shape, _NV))
    v[..., 0] = cy * cp * rd - sy * pd
    v[..., 1] = sy * cp * rd + cy * pd
    v[..., 2] = -sp * rd + yd
    v[..., 3:6] = qd[..., 3:6]
    return v


def rpy_floating_map_velocity_to_qdot(q: ArrayLike, v: ArrayLike) -> FloatArray:
    """``q̇ = N(q) v`` for an rpy_floating joint, without forming the matrix (seed §1.5).

    ``ṙ = (cy·ωx + sy·ωy)/cp``, ``ṗ = -sy·ωx + cy·ωy``, ``ẏ = ωz + sp·ṙ``; ``ẋyz = v_FM``.

    Args:
        q: ``(..., 6)`` positions ``[roll, pitch, yaw, x, y, z]``.
        v: ``(..., 6)`` velocities ``[w_FM; v_FM]`` expressed in F (rad/s, m/s); batch
            dimensions broadcast against ``q``.

    Returns:
        ``(..., 6)`` position rates ``[ṙ, ṗ, ẏ, ẋ, ẏ, ż]``.

    Raises:
        ValueError: ``q`` or ``v`` does not have shape ``(..., 6)``, or their batch dimensions
            do not broadcast.
        SingularityError: ``|cos(pitch)| <`` :data:`RPY_SINGULARITY_COS_TOL` for any batch
            element (gimbal lock at ``pitch = π/2 + kπ``).
    """
    function = 'rpy_floating_map_velocity_to_qdot'
    qq = _batch(q, _NQ, function, 'q')
    vv = _batch(v, _NV, function, 'v')
    shape = _broadcast_batch(qq, vv, function, 'v')
    cp, sp, cy, sy = _trig(qq)
    _raise_if_singular(qq, cp, function)
    wx, wy, wz = vv[..., 0], vv[..., 1], vv[..., 2]
    roll_rate = (cy * wx + sy * wy) / cp
    qdot = np.empty((*shape, _NQ))
    qdot[..., 0] = roll_rate
    qdot[..., 1] = -sy * wx + cy * wy
    qdot[..., 2] = wz + sp * roll_rate
    qdot[..., 3:6] = vv[..., 3:6]
    return qdot


def _broadcast_batch(q: FloatArray, other: FloatArray, function: str,
                     argument: str) -> tuple[int, ...]:
    """The broadcast batch shape of ``q`` and ``other``; ValueError if they do not broadcast."""
    try:
        return np.broadcast_shapes(q.shape[:-1], other.shape[:-1])
    except ValueError as err:
        raise InvalidArgumentError(
            f'{function}: batch shape of {argument} {other.shape[:-1]} does not broadcast '
            f'against the batch shape of q {q.shape[:-1]}') from err
