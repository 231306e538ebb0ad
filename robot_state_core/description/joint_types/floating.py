"""Floating joints: ``(x, y, z, qx, qy, qz, qw)``, a free rigid motion with a quaternion.

All of the type's math (Pinocchio's ``JointModelFreeFlyer``, MoveIt's ``FloatingJointModel``,
Drake's ``QuaternionFloatingJoint``): the motion ``X_FM = [R(quat), p]`` with the quaternion
normalised (numpy for batches, :func:`motion_rows` for the compiled FK), the quaternion check,
the motion subspace (velocities ``[w_FM; v_FM]``, angular first, both in F: Drake's order),
integrate (exact on SO(3)), difference (the rotation vector of ``R1 R0ᵀ``) and the joint values
of a motion. MoveIt's distance factor is 6.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robot_state_core._typing import BoolArray, FloatArray
from robot_state_core.description.joint_types.parameters import JointParameters
from robot_state_core.description.joints import Joint
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    quat_angle,
    quat_multiply,
    quat_slerp,
    quat_xyzw_from_rotation,
    quat_xyzw_from_rotation_vector,
    QUATERNION_MAX_NORM,
    QUATERNION_MIN_NORM,
    random_quat_xyzw,
    rotation_exp,
    rotation_from_quat_xyzw,
    rotation_log,
)

NQ = 7
NV = 6
KERNEL_KIND = 5
'''The compiled FK's code of the type (:mod:`robot_state_core.kinematics.compiled`).'''
STATE_SPACE_DIMENSION = 6
'''MoveIt ``getStateSpaceDimension()``: the default distance factor.'''
ANGLE_VARIABLES: tuple[int, ...] = ()
'''Position variables that are angles [rad] (wrapped when unbounded: continuous joints).'''
TRANSLATION_VARIABLES: tuple[int, ...] = (0, 1, 2)
'''Position variables that are translations [m].'''
ORIENTATION_VARIABLES: tuple[int, ...] = (3, 4, 5, 6)
'''Position variables that parameterise an orientation: the quaternion, xyzw.'''
NEUTRAL: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
'''The neutral configuration (Pinocchio ``neutral``): the default positions.'''
_MIN_NORM2 = QUATERNION_MIN_NORM ** 2
_MAX_NORM2 = QUATERNION_MAX_NORM ** 2


def motion(q: FloatArray) -> FloatArray:
    """``X_FM`` ``(..., 4, 4)`` of positions ``(..., 7)`` (the quaternion normalised here)."""
    M = np.zeros((*q.shape[:-1], 4, 4))
    M[..., :3, :3] = rotation_from_quat_xyzw(q[..., 3:7])
    M[..., :3, 3] = q[..., 0:3]
    M[..., 3, 3] = 1.0
    return M


def motion_rows(q: Any, i: int) -> Any:
    """The top three rows (4-tuples) of ``X_FM`` of the positions ``q[i:i + 7]``.

    Plain Python on floats, compiled into the FK kernels: the operations of
    :func:`~robot_state_core.spatial.transforms.rotation_from_quat_xyzw` (normalise, then the
    rotation) in its order. The caller has checked the quaternion (:func:`usable_quaternion`).
    """
    x, y, z, w = q[i + 3], q[i + 4], q[i + 5], q[i + 6]
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), q[i]),
            (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), q[i + 1]),
            (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), q[i + 2]))


def usable_quaternion(q: Any, i: int) -> bool:
    """Whether the quaternion of the positions ``q[i:i + 7]`` defines a rotation.

    Finite, with a norm in ``[QUATERNION_MIN_NORM, QUATERNION_MAX_NORM]``: the test of
    :func:`~robot_state_core.spatial.transforms.check_quat_xyzw` (which names the offender).
    Plain Python on floats, compiled into the FK kernels.
    """
    x, y, z, w = q[i + 3], q[i + 4], q[i + 5], q[i + 6]
    norm2: float = x * x + y * y + z * z + w * w
    return _MIN_NORM2 <= norm2 <= _MAX_NORM2


def step_quaternion(x: float, y: float, z: float, w: float, wx: float, wy: float,
                    wz: float) -> tuple[float, float, float, float]:
    """The unit quaternion of ``exp(w_FM) R(quat)``: :func:`integrate`'s rotation, one joint.

    ``exp(w) ⊗ quat`` (Hamilton product, xyzw), normalised, ``w >= 0`` (as
    :func:`~robot_state_core.spatial.transforms.quat_xyzw_from_rotation`). Plain Python on
    floats, compiled into the IK iteration (:mod:`robot_state_core.ik.compiled`).
    """
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    # sin(θ/2)/θ, its Taylor series below 1e-4 rad (error < 1e-17)
    s = 0.5 - theta * theta / 48.0 if theta < 1e-4 else math.sin(0.5 * theta) / theta
    ex, ey, ez, ew = s * wx, s * wy, s * wz, math.cos(0.5 * theta)
    nx = ew * x + ex * w + ey * z - ez * y
    ny = ew * y - ex * z + ey * w + ez * x
    nz = ew * z + ex * y - ey * x + ez * w
    nw = ew * w - ex * x - ey * y - ez * z
    norm = math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
    if nw < 0.0:
        norm = -norm
    return nx / norm, ny / norm, nz / norm, nw / norm


def velocity_columns() -> tuple[FloatArray, list[bool], list[bool]]:
    """The motion subspace ``[w_FM; v_FM]``: F's axes, rotations then translations.

    Returns axes ``(6, 3)``, rotational flags and in-joint-frame flags.
    """
    return np.vstack([np.eye(3), np.eye(3)]), [True] * 3 + [False] * 3, [True] * 6


def integrate(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q ⊕ v``: ``p + v_FM``, ``R = exp(w_FM) R(quat)`` ``(..., 7)`` (unit quaternion out).

    Args:
        q: ``(..., 7)`` positions.
        v: ``(..., 6)`` ``[w_FM; v_FM]`` times the duration.
    """
    out = np.array(q, dtype=np.float64)
    out[..., :3] += v[..., 3:]
    R = rotation_exp(v[..., :3]) @ rotation_from_quat_xyzw(q[..., 3:])
    out[..., 3:] = quat_xyzw_from_rotation(R)
    return out


def difference(q0: FloatArray, q1: FloatArray, wrap: BoolArray | None = None) -> FloatArray:
    """``v`` ``(..., 6)`` with ``integrate(q0, v) == q1``: ``[log(R1 R0ᵀ); p1 - p0]``."""
    R0 = rotation_from_quat_xyzw(q0[..., 3:])
    R1 = rotation_from_quat_xyzw(q1[..., 3:])
    out = np.empty((*np.broadcast_shapes(q0.shape[:-1], q1.shape[:-1]), 6))
    out[..., :3] = rotation_log(R1 @ np.swapaxes(R0, -1, -2))
    out[..., 3:] = q1[..., :3] - q0[..., :3]
    return out


def positions_from_motion(X_FM: FloatArray) -> FloatArray:
    """``(x, y, z, qx, qy, qz, qw)`` of the motion ``X_FM`` ``(4, 4)`` (w >= 0)."""
    return np.concatenate([X_FM[:3, 3], quat_xyzw_from_rotation(X_FM[:3, :3])])


def unit_quaternions(quat: FloatArray, where: str, name: str) -> FloatArray:
    """Normalize ``(..., 4)`` quaternions; InvalidArgumentError for degenerate ones.

    Degenerate: zero, tiny, huge or not finite
    (:func:`~robot_state_core.spatial.transforms.check_quat_xyzw`).
    """
    q = check_quat_xyzw(quat, where, f'{name}: a FLOATING joint quaternion (rot_x..rot_w)')
    out: FloatArray = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return out


def prepare(q: FloatArray, where: str, name: str) -> FloatArray:
    """Positions ``(..., k, 7)`` with unit quaternions (checked: :func:`unit_quaternions`)."""
    out = np.array(q, dtype=np.float64)
    out[..., 3:] = unit_quaternions(q[..., 3:], where, name)
    return out


def distance(q0: FloatArray, q1: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``FloatingJointModel::distance`` ``(..., k)``: ``‖Δt‖ + w · angle``.

    ``angle = 2 acos|⟨quat0, quat1⟩|`` (Eigen's ``angularDistance``: ``quat`` and ``-quat``
    are one rotation) of :func:`prepare`'d positions.
    """
    out: FloatArray = (np.linalg.norm(q1[..., :3] - q0[..., :3], axis=-1)
                       + p.angular_weight * quat_angle(q0[..., 3:], q1[..., 3:]))
    return out


def interpolate(q0: FloatArray, q1: FloatArray, t: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``FloatingJointModel::interpolate`` ``(..., k, 7)`` at ``t`` ``(..., 1)``.

    Translation linear, quaternion by shortest-path slerp (constant angular rate) of
    :func:`prepare`'d positions.
    """
    tt = t[..., None]
    out: FloatArray = (1.0 - tt) * q0 + tt * q1
    out[..., 3:] = quat_slerp(q0[..., 3:], q1[..., 3:], t)
    return out


def random_orientations(rng: np.random.Generator, shape: tuple[int, ...]) -> FloatArray:
    """Uniform orientations on SO(3): ``(*shape, 4)`` unit quaternions (xyzw)."""
    return random_quat_xyzw(rng, shape)


def orientations_near(near: FloatArray, rotation_vectors: FloatArray) -> FloatArray:
    """``near`` ``(..., 4)`` (unit quaternions) turned by ``rotation_vectors`` ``(..., 3)``."""
    return quat_multiply(near, quat_xyzw_from_rotation_vector(rotation_vectors))


def position_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """MoveIt ``FloatingJointModel``'s bounds: translation unbounded, quaternion in [-1, 1]."""
    inf = math.inf
    return [-inf] * 3 + [-1.0] * 4, [inf] * 3 + [1.0] * 4, [False] * 3 + [True] * 4
