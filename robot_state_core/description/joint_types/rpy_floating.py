"""rpy_floating joints (Drake ``RpyFloatingJoint``): a free rigid motion with roll-pitch-yaw.

All of the type's math (seed 001, rows J-T8, J-R5..J-R13, §1.5): the motion (numpy for batches,
:func:`motion_rows` for the compiled FK), the motion subspace, integrate, difference, the joint
values of a motion and the velocity ↔ q̇ maps. Conventions:

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

MoveIt has no such type; its distance factor is 6, like a floating joint's (decision S9).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import BoolArray, FloatArray
from robot_state_core.description.joint_types.floating import velocity_columns
from robot_state_core.description.joint_types.parameters import JointParameters
from robot_state_core.description.joints import Joint
from robot_state_core.errors import InvalidArgumentError, SingularityError
from robot_state_core.spatial.transforms import (
    random_quat_xyzw,
    rotation_angle,
    rotation_exp,
    rotation_from_quat_xyzw,
    rotation_from_rpy,
    rotation_log,
    rpy_from_rotation,
    wrap_angle,
)

__all__ = [
    'RPY_SINGULARITY_COS_TOL',
    'RPY_WARNING_COS_TOL',
    'rpy_floating_map_qdot_to_velocity',
    'rpy_floating_map_velocity_to_qdot',
    'rpy_floating_pose',
    'rpy_floating_qdot_to_velocity_matrix',
    'rpy_floating_velocity_to_qdot_matrix',
    'rpy_from_rotation',
    'velocity_columns',
]

NQ = 6
NV = 6
KERNEL_KIND = 6
'''The compiled FK's code of the type (:mod:`robot_state_core.kinematics.compiled`).'''
STATE_SPACE_DIMENSION = 6
'''The default distance factor (a floating joint's: decision S9).'''
TRANSLATION_VARIABLES: tuple[int, ...] = (3, 4, 5)
'''Position variables that are translations [m].'''
ANGLE_VARIABLES: tuple[int, ...] = (0, 1, 2)
'''Position variables that are angles [rad].'''
ORIENTATION_VARIABLES: tuple[int, ...] = (0, 1, 2)
'''Position variables that parameterise an orientation (sampled on SO(3)).'''
NEUTRAL: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
'''The neutral configuration (Pinocchio ``neutral``): the default positions.'''

RPY_SINGULARITY_COS_TOL = 1e-3
'''``|cos(pitch)|`` below which the rpy_floating v → q̇ maps raise (Drake's threshold).'''

RPY_WARNING_COS_TOL = 1e-2
'''``|cos(pitch)|`` below which setting rpy angles warns (|pitch ∓ π/2| < about 0.57°).'''

_MAX_LISTED_VALUES = 5
_GIMBAL_LOCK_EPS = float(np.finfo(np.float64).eps)
'''Drake's gimbal-lock test (as ``spatial.transforms.rpy_from_rotation``).'''

_NQ = NQ
_NV = NV


def motion(q: FloatArray) -> FloatArray:
    """``X_FM`` ``(..., 4, 4)`` of positions ``(..., 6)`` (no argument checks)."""
    M = np.zeros((*q.shape[:-1], 4, 4))
    M[..., :3, :3] = rotation_from_rpy(q[..., 0:3])
    M[..., :3, 3] = q[..., 3:6]
    M[..., 3, 3] = 1.0
    return M


def motion_rows(q: Any, i: int) -> Any:
    """The top three rows (4-tuples) of ``X_FM`` of the positions ``q[i:i + 6]``.

    Plain Python on floats, compiled into the FK kernels: the operations of
    :func:`~robot_state_core.spatial.transforms.rotation_from_rpy` in its order.
    """
    cr, cp, cy = math.cos(q[i]), math.cos(q[i + 1]), math.cos(q[i + 2])
    sr, sp, sy = math.sin(q[i]), math.sin(q[i + 1]), math.sin(q[i + 2])
    return ((cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, q[i + 3]),
            (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, q[i + 4]),
            (-sp, cp * sr, cp * cr, q[i + 5]))


# velocity_columns: the floating joint's (the same [w_FM; v_FM] in F), imported above.


def integrate(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q ⊕ v``: ``p + v_FM``, ``R = exp(w_FM) R(rpy)`` ``(..., 6)``.

    Args:
        q: ``(..., 6)`` positions.
        v: ``(..., 6)`` ``[w_FM; v_FM]`` times the duration.
    """
    out = np.array(q, dtype=np.float64)
    out[..., 3:] += v[..., 3:]
    out[..., :3] = rpy_from_rotation(rotation_exp(v[..., :3]) @ rotation_from_rpy(q[..., :3]))
    return out


def difference(q0: FloatArray, q1: FloatArray, wrap: BoolArray | None = None) -> FloatArray:
    """``v`` ``(..., 6)`` with ``integrate(q0, v) == q1``: ``[log(R1 R0ᵀ); p1 - p0]``."""
    R0 = rotation_from_rpy(q0[..., :3])
    R1 = rotation_from_rpy(q1[..., :3])
    out = np.empty((*np.broadcast_shapes(q0.shape[:-1], q1.shape[:-1]), 6))
    out[..., :3] = rotation_log(R1 @ np.swapaxes(R0, -1, -2))
    out[..., 3:] = q1[..., 3:] - q0[..., 3:]
    return out


def positions_from_motion(X_FM: FloatArray) -> FloatArray:
    """``(roll, pitch, yaw, x, y, z)`` of the motion ``X_FM`` ``(4, 4)``."""
    return np.concatenate([rpy_from_rotation(X_FM[:3, :3]), X_FM[:3, 3]])


def prepare(q: FloatArray, where: str, name: str) -> FloatArray:
    """Positions ``(..., k, 6)`` ready for :func:`distance` and :func:`interpolate` (as given)."""
    return q


def distance(q0: FloatArray, q1: FloatArray, p: JointParameters) -> FloatArray:
    """``‖Δt‖ + w · angle(R1 R0ᵀ)`` ``(..., k)`` (a floating joint's distance: decision S9)."""
    R = rotation_from_rpy(q1[..., :3]) @ np.swapaxes(rotation_from_rpy(q0[..., :3]), -1, -2)
    out: FloatArray = (np.linalg.norm(q1[..., 3:] - q0[..., 3:], axis=-1)
                       + p.angular_weight * rotation_angle(R))
    return out


def interpolate(q0: FloatArray, q1: FloatArray, t: FloatArray, p: JointParameters) -> FloatArray:
    """Positions ``(..., k, 6)`` at ``t`` ``(..., 1)``: translation linear, rotation geodesic.

    ``R(t) = exp(t log(R1 R0ᵀ)) R0``, converted back to wrapped roll/pitch/yaw.
    """
    tt = t[..., None]
    out: FloatArray = (1.0 - tt) * q0 + tt * q1
    R0 = rotation_from_rpy(q0[..., :3])
    w = rotation_log(rotation_from_rpy(q1[..., :3]) @ np.swapaxes(R0, -1, -2))
    out[..., :3] = wrap_angle(rpy_from_rotation(rotation_exp(tt * w) @ R0))
    return out


def quaternion_of_angles(roll: float, pitch: float,
                         yaw: float) -> tuple[float, float, float, float]:
    """The unit quaternion (xyzw) of ``Rz(yaw) Ry(pitch) Rx(roll)``: ``qz ⊗ qy ⊗ qx``.

    Plain Python on floats, compiled into the IK iteration (:mod:`robot_state_core.ik.compiled`),
    which turns it with the floating joint's ``step_quaternion`` and reads the angles back with
    :func:`angles_of_quaternion`: :func:`integrate`'s rotation for one joint.
    """
    cr, sr = math.cos(0.5 * roll), math.sin(0.5 * roll)
    cp, sp = math.cos(0.5 * pitch), math.sin(0.5 * pitch)
    cy, sy = math.cos(0.5 * yaw), math.sin(0.5 * yaw)
    return (sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy)


def angles_of_quaternion(x: float, y: float, z: float, w: float) -> tuple[float, float, float]:
    """Roll, pitch, yaw of a unit quaternion (xyzw, ``w >= 0``): Drake's ``RollPitchYaw``.

    :func:`~robot_state_core.spatial.transforms.rpy_from_rotation`'s algorithm on one
    quaternion: pitch from the rotation's entries, roll and yaw from the half-angle sums (0 at
    the lock), each brought into ``[-π, π]`` by one ``±2π``. Plain Python on floats, compiled
    into the IK iteration.
    """
    r00 = 1.0 - 2.0 * (y * y + z * z)
    r10 = 2.0 * (x * y + z * w)
    r20 = 2.0 * (x * z - y * w)
    r21 = 2.0 * (y * z + x * w)
    r22 = 1.0 - 2.0 * (x * x + y * y)
    pitch = math.atan2(-r20, math.sqrt(0.5 * (r00 * r00 + r10 * r10 + r21 * r21 + r22 * r22)))
    eps = _GIMBAL_LOCK_EPS
    half_sum = 0.0 if abs(x + z) <= eps and abs(w - y) <= eps else math.atan2(x + z, w - y)
    half_difference = (0.0 if abs(z - x) <= eps and abs(w + y) <= eps
                       else math.atan2(z - x, w + y))
    roll = half_sum - half_difference
    yaw = half_sum + half_difference
    if roll > math.pi:
        roll -= 2.0 * math.pi
    elif roll < -math.pi:
        roll += 2.0 * math.pi
    if yaw > math.pi:
        yaw -= 2.0 * math.pi
    elif yaw < -math.pi:
        yaw += 2.0 * math.pi
    return roll + 0.0, pitch + 0.0, yaw + 0.0


def random_orientations(rng: np.random.Generator, shape: tuple[int, ...]) -> FloatArray:
    """Uniform orientations on SO(3) as wrapped roll, pitch, yaw ``(*shape, 3)``."""
    R = rotation_from_quat_xyzw(random_quat_xyzw(rng, shape))
    out: FloatArray = wrap_angle(rpy_from_rotation(R))
    return out


def orientations_near(near: FloatArray, rotation_vectors: FloatArray) -> FloatArray:
    """Roll, pitch, yaw ``near`` ``(..., 3)`` turned by ``rotation_vectors`` ``(..., 3)``."""
    out: FloatArray = wrap_angle(rpy_from_rotation(
        rotation_exp(rotation_vectors) @ rotation_from_rpy(near)))
    return out


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
    return motion(qq)


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


def position_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """Unbounded angles and translation (Drake ``RpyFloatingJoint`` has no position limits)."""
    return [-math.inf] * 6, [math.inf] * 6, [False] * 6
