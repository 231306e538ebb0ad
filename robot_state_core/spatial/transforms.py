"""Spatial math: the one module for SO(3), SE(3), quaternions, rpy and angles (batched).

Every rotation conversion, angle wrap, skew matrix, rotation angle, rotation log/exp and the
quaternion algebra (product, conjugate, angle, slerp, sampling) of the package lives here;
kinematics, IK, bounds, the RobotState facade and the joints call these functions and keep no
private copies. :mod:`robot_state_core.spatial.transforms` re-exports the historical names.

Conventions (design study B5):
    * Poses are homogeneous matrices named in monogram notation: ``X_AB`` is frame B measured
      and expressed in frame A, shape ``(..., 4, 4)``.
    * Rotations are ``(..., 3, 3)`` matrices.
    * ``rpy`` is URDF's fixed-axis roll-pitch-yaw: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
    * Quaternion order is part of every name: ``quat_xyzw`` (ROS messages, MoveIt variables)
      or ``quat_wxyz``. This module is the only place where the two orders are converted.

Every function accepts arbitrary leading batch dimensions and never loops in Python (except
:func:`xyz_euler_from_rotation`, a scalar helper of the constraint checks).
"""

from __future__ import annotations

from collections.abc import Sequence
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray as FloatArray
from robot_state_core.errors import InvalidArgumentError

MAX_COORDINATE = 1e9
'''Largest accepted magnitude of a length or translation at an API or description boundary [m].

A million kilometres is beyond any robot or world, and it keeps every derived number usable:
sums over the longest accepted chain (``robot_model.MAX_LINKS`` links) and their squares
(distances, Jacobian moment arms) stay finite and precise to about 1e-7 m. Larger finite values
(``1e308``) would overflow to inf, then NaN, in forward kinematics.'''

RIGID_TOLERANCE = 10.0 * float(np.finfo(np.float32).eps)
'''Largest ``|RᵀR - I|`` entry (and ``|det R - 1|``) of an accepted rigid transform (~1.2e-6).

The float32-level tolerance MoveIt uses for unit quaternions; poses computed in float64 are
orders of magnitude closer, while a scaled, sheared or mirrored matrix is far outside.'''

QUATERNION_MIN_NORM = 1e-12
'''Quaternions shorter than this are degenerate: their direction is noise (or they are zero).'''

QUATERNION_MAX_NORM = 1e12
'''Quaternions longer than this are refused: a norm that far from 1 is a units or memory bug,
and beyond ~1e154 the squared norm overflows (MoveIt then silently uses the identity).'''

_NORMALIZE_TOLERANCE = 100.0 * float(np.finfo(np.float64).eps)
'''``|‖q‖² - 1|`` above which MoveIt's ``FloatingJointModel::normalizeRotation`` divides.'''


def as_pose(X: object, where: str = '', what: str = 'pose') -> FloatArray:
    """A float64 copy of a finite rigid ``(4, 4)`` homogeneous transform (the boundary check).

    Args:
        X: Anything array-like.
        where: Caller named in the message (``'Joint'``, ``'RobotState.set_joint_pose'``).
        what: The argument's name in the message.

    Raises:
        InvalidArgumentError: Not a finite ``(4, 4)`` array; the rotation block is not a
            rotation within :data:`RIGID_TOLERANCE` (scaled, sheared, mirrored); the last row
            is not ``[0, 0, 0, 1]``; or a translation exceeds :data:`MAX_COORDINATE`.
    """
    try:
        a = np.array(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{where}: {what} must be a (4, 4) transform; {err}') from err
    values = a.ravel().tolist() if a.shape == (4, 4) else [math.nan]
    if not math.isfinite(sum(values)):
        raise InvalidArgumentError(
            f'{where}: {what} must be a finite (4, 4) transform, got shape {a.shape}'
            + ('' if a.shape != (4, 4) else ' with non-finite values'))
    # Scalar Python arithmetic: a fraction of the cost of the equivalent small numpy calls.
    r00, r01, r02, t0, r10, r11, r12, t1, r20, r21, r22, t2, b0, b1, b2, b3 = values
    error = max(abs(r00 * r00 + r10 * r10 + r20 * r20 - 1.0),  # RᵀR - I, column by column
                abs(r01 * r01 + r11 * r11 + r21 * r21 - 1.0),
                abs(r02 * r02 + r12 * r12 + r22 * r22 - 1.0),
                abs(r00 * r01 + r10 * r11 + r20 * r21), abs(r00 * r02 + r10 * r12 + r20 * r22),
                abs(r01 * r02 + r11 * r12 + r21 * r22),
                abs(b0), abs(b1), abs(b2), abs(b3 - 1.0))
    det = (r00 * (r11 * r22 - r12 * r21) - r01 * (r10 * r22 - r12 * r20)
           + r02 * (r10 * r21 - r11 * r20))
    if not error <= RIGID_TOLERANCE or abs(det - 1.0) > RIGID_TOLERANCE:
        raise InvalidArgumentError(
            f'{where}: {what} is not a rigid transform (its rotation block must be orthonormal '
            f'with determinant +1 and its last row [0, 0, 0, 1], within {RIGID_TOLERANCE:.1e})')
    if max(abs(t0), abs(t1), abs(t2)) > MAX_COORDINATE:
        raise InvalidArgumentError(
            f'{where}: {what} translation {[t0, t1, t2]} exceeds {MAX_COORDINATE:g} m')
    return a


def check_quat_xyzw(quat: ArrayLike, where: str, what: str = 'quaternion',
                    names: Sequence[str] | None = None) -> FloatArray:
    """Refuse degenerate quaternions: ``(..., 4)`` xyzw, each finite with a usable norm.

    Args:
        quat: ``(..., 4)`` quaternions in xyzw order (need not be unit length).
        where: Caller named in the message.
        what: What the quaternions are (e.g. ``'q'``).
        names: Optional labels of the last batch axis (``quat`` is then ``(..., k, 4)``), e.g.
            ``"joint 'base'"``; the message names the offending one.

    Returns:
        ``quat`` as a float64 array (not normalized: see :func:`normalize_quat_xyzw`).

    Raises:
        InvalidArgumentError: A quaternion has a NaN or inf component, or its norm is below
            :data:`QUATERNION_MIN_NORM` (zero, or so small its direction is noise) or above
            :data:`QUATERNION_MAX_NORM`. The first offending quaternion is named.
    """
    if names is None and isinstance(quat, list | tuple) and len(quat) == 4:
        x, y, z, w = quat
        if type(x) is float and type(y) is float and type(z) is float and type(w) is float:
            norm2f = x * x + y * y + z * z + w * w  # floats: overflow gives inf, NaN stays
            if QUATERNION_MIN_NORM ** 2 <= norm2f <= QUATERNION_MAX_NORM ** 2:
                return np.array(quat, dtype=np.float64)  # one message's quaternion: no arrays
    q = np.asarray(quat, dtype=np.float64)
    with np.errstate(over='ignore', invalid='ignore', under='ignore'):
        norm2 = np.einsum('...i,...i->...', q, q)
    bad = ~((norm2 >= QUATERNION_MIN_NORM ** 2) & (norm2 <= QUATERNION_MAX_NORM ** 2))
    if not np.any(bad):
        return q
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    value = q[first]
    with np.errstate(over='ignore', invalid='ignore', under='ignore'):
        scale = float(np.abs(value).max())
        norm = scale * float(np.linalg.norm(value / scale)) if 0.0 < scale < math.inf \
            else scale
    owner = ''
    if names is not None and first:
        owner = f' of {names[first[-1]]}'
        first = first[:-1]
    at = f' at batch index {first}' if first else ''
    problem = ('has NaN or inf components' if not math.isfinite(norm) else
               'is a zero quaternion' if norm == 0.0 else f'has a degenerate norm {norm:.3g}')
    raise InvalidArgumentError(
        f'{where}: {what}{owner}{at} {problem}: {value.tolist()}; a quaternion needs finite '
        f'components and a norm in [{QUATERNION_MIN_NORM:g}, {QUATERNION_MAX_NORM:g}] to '
        'define a rotation')


def normalize_quat_xyzw(quat: ArrayLike) -> FloatArray:
    """MoveIt ``FloatingJointModel::normalizeRotation`` for valid ``(..., 4)`` quaternions.

    Quaternions with ``|‖q‖² - 1| <= 100 eps`` are returned bit for bit; the others are divided
    by their norm. Check them with :func:`check_quat_xyzw` first (MoveIt replaces a zero
    quaternion by the identity; we refuse it).
    """
    q = np.asarray(quat, dtype=np.float64)
    norm2 = np.einsum('...i,...i->...', q, q)[..., None]
    out: FloatArray = np.where(np.abs(norm2 - 1.0) <= _NORMALIZE_TOLERANCE, q,
                               q / np.sqrt(norm2))
    return out


def unit_quat_xyzw(quat: FloatArray, min_norm: float = QUATERNION_MIN_NORM) -> FloatArray:
    """Plain normalization of ``(..., 4)`` xyzw quaternions (e.g. IK iterates).

    Quaternions with norm ``<= min_norm`` become the identity ``(0, 0, 0, 1)``.
    """
    norm = np.linalg.norm(quat, axis=-1, keepdims=True)
    ok = norm > min_norm
    out: FloatArray = np.where(ok, quat / np.where(ok, norm, 1.0), _IDENTITY_QUATERNION)
    return out


_ZERO_QUATERNION_NORM = 100.0 * float(np.finfo(np.float64).eps)
'''MoveIt ``normalizeRotation``'s "zero quaternion" threshold (the identity in enforce).'''
_IDENTITY_QUATERNION = np.array([0.0, 0.0, 0.0, 1.0])


def normalize_quat_xyzw_or_identity(quat: FloatArray) -> FloatArray:
    """MoveIt ``normalizeRotation`` on ``(..., 4)`` quaternions.

    Through :func:`normalize_quat_xyzw`: kept bit for
    bit when ``|‖q‖² - 1| <= 100 eps``, else divided by the norm; a (near-)zero one (norm
    below ``100 eps``, MoveIt's threshold) becomes the identity ``(0, 0, 0, 1)``.

    Quaternions whose squared norm overflows are scaled by their largest component first, so
    they keep their direction (MoveIt's division by an infinite norm gives zero, then the
    identity).
    """
    with np.errstate(over='ignore'):
        norm2 = np.einsum('...i,...i->...', quat, quat)[..., None]
    scale = np.where(np.isfinite(norm2), 1.0, np.max(np.abs(quat), axis=-1, keepdims=True))
    zero = norm2 < _ZERO_QUATERNION_NORM ** 2
    safe = np.where(zero, _IDENTITY_QUATERNION, quat / scale)
    out: FloatArray = np.where(zero, _IDENTITY_QUATERNION, normalize_quat_xyzw(safe))
    return out


def rotation_from_rpy(rpy: ArrayLike) -> FloatArray:
    """Rotation matrices from URDF roll-pitch-yaw angles.

    Args:
        rpy: ``(..., 3)`` angles [roll, pitch, yaw] in radians.

    Returns:
        ``(..., 3, 3)`` rotation matrices ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
    """
    a = np.asarray(rpy, dtype=np.float64)
    cr, cp, cy = np.cos(a[..., 0]), np.cos(a[..., 1]), np.cos(a[..., 2])
    sr, sp, sy = np.sin(a[..., 0]), np.sin(a[..., 1]), np.sin(a[..., 2])
    R = np.empty((*a.shape[:-1], 3, 3))
    R[..., 0, 0] = cy * cp
    R[..., 0, 1] = cy * sp * sr - sy * cr
    R[..., 0, 2] = cy * sp * cr + sy * sr
    R[..., 1, 0] = sy * cp
    R[..., 1, 1] = sy * sp * sr + cy * cr
    R[..., 1, 2] = sy * sp * cr - cy * sr
    R[..., 2, 0] = -sp
    R[..., 2, 1] = cp * sr
    R[..., 2, 2] = cp * cr
    return R


def pose_from_xyz_rpy(xyz: ArrayLike, rpy: ArrayLike) -> FloatArray:
    """Homogeneous poses from translations and URDF roll-pitch-yaw angles.

    Args:
        xyz: ``(..., 3)`` translations [m].
        rpy: ``(..., 3)`` angles [rad], broadcastable against ``xyz``.

    Returns:
        ``(..., 4, 4)`` poses ``X_AB``.
    """
    return _homogeneous(np.asarray(xyz, dtype=np.float64), rotation_from_rpy(rpy))


def _homogeneous(p: FloatArray, R: FloatArray) -> FloatArray:
    """``(..., 4, 4)`` poses from translations ``(..., 3)`` and rotations ``(..., 3, 3)``."""
    shape = np.broadcast_shapes(p.shape[:-1], R.shape[:-2])
    X = np.zeros((*shape, 4, 4))
    X[..., :3, :3] = R
    X[..., :3, 3] = p
    X[..., 3, 3] = 1.0
    return X


def pose_from_xyz_quat_xyzw(xyz: ArrayLike, quat_xyzw: ArrayLike) -> FloatArray:
    """Homogeneous poses from translations and quaternions.

    Args:
        xyz: ``(..., 3)`` translations [m].
        quat_xyzw: ``(..., 4)`` quaternions in xyzw order (normalized here; non-zero, see
            :func:`check_quat_xyzw`), broadcastable against ``xyz``.

    Returns:
        ``(..., 4, 4)`` poses ``X_AB`` (the rotation is :func:`rotation_from_quat_xyzw`'s).
    """
    if isinstance(xyz, list | tuple) and isinstance(quat_xyzw, list | tuple) \
            and len(xyz) == 3 and len(quat_xyzw) == 4:
        values = [float(v) for v in (*xyz, *quat_xyzw)]
        if all(math.isfinite(v) for v in values):  # one pose in plain floats (bitwise equal)
            x, y, z = values[:3]
            (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = \
                _rotation_from_quat_xyzw_scalar(values[3:])
            return np.array([[r00, r01, r02, x], [r10, r11, r12, y], [r20, r21, r22, z],
                             [0.0, 0.0, 0.0, 1.0]])
    return _homogeneous(np.asarray(xyz, dtype=np.float64), rotation_from_quat_xyzw(quat_xyzw))


def quat_xyzw_from_rotation(R: ArrayLike) -> FloatArray:
    """Unit quaternions ``[x, y, z, w]`` (w >= 0) from rotation matrices.

    Per element, the largest of ``|w|, |x|, |y|, |z|`` is taken from the diagonal (a square
    root of a quantity >= 1/4) and the other three from off-diagonal sums or differences divided
    by it — the numerically stable branch, chosen with masks rather than Python control flow.

    Args:
        R: ``(..., 3, 3)`` rotation matrices.

    Returns:
        ``(..., 4)`` quaternions in xyzw order with non-negative w.
    """
    m = np.asarray(R, dtype=np.float64)
    if m.shape == (3, 3):
        one = m.tolist()
        if all(math.isfinite(v) for row in one for v in row):
            return np.array(_quat_xyzw_from_rotation_scalar(one))
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    # 4 q_i^2 for i = x, y, z, w (xyzw order)
    four_sq = np.stack([1.0 + 2.0 * m00 - trace, 1.0 + 2.0 * m11 - trace,
                        1.0 + 2.0 * m22 - trace, 1.0 + trace], axis=-1)
    branch = np.argmax(four_sq, axis=-1)
    big = 0.5 * np.sqrt(np.max(four_sq, axis=-1))  # the largest |q_i|, >= 1/2
    inv = 0.25 / big
    d21 = (m[..., 2, 1] - m[..., 1, 2]) * inv
    d02 = (m[..., 0, 2] - m[..., 2, 0]) * inv
    d10 = (m[..., 1, 0] - m[..., 0, 1]) * inv
    s10 = (m[..., 1, 0] + m[..., 0, 1]) * inv
    s02 = (m[..., 0, 2] + m[..., 2, 0]) * inv
    s21 = (m[..., 2, 1] + m[..., 1, 2]) * inv
    is_x, is_y, is_z = branch == 0, branch == 1, branch == 2
    q = np.empty((*m.shape[:-2], 4))
    q[..., 0] = np.where(is_x, big, np.where(is_y, s10, np.where(is_z, s02, d21)))
    q[..., 1] = np.where(is_x, s10, np.where(is_y, big, np.where(is_z, s21, d02)))
    q[..., 2] = np.where(is_x, s02, np.where(is_y, s21, np.where(is_z, big, d10)))
    q[..., 3] = np.where(is_x, d21, np.where(is_y, d02, np.where(is_z, d10, big)))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    out: FloatArray = np.where(q[..., 3:4] < 0.0, -q, q)
    return out


def _quat_xyzw_from_rotation_scalar(m: list[list[float]]) -> list[float]:
    """:func:`quat_xyzw_from_rotation` of one finite ``(3, 3)`` rotation in plain floats."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = m
    return list(quat_xyzw_from_rotation_floats(m00, m01, m02, m10, m11, m12, m20, m21, m22))


def quat_xyzw_from_rotation_floats(m00: float, m01: float, m02: float, m10: float, m11: float,
                                   m12: float, m20: float, m21: float,
                                   m22: float) -> tuple[float, float, float, float]:
    """:func:`quat_xyzw_from_rotation` of one finite rotation given by its nine entries.

    The same operations in the same order, so bitwise equal to the array form (tested), without
    its ~40 array operations on 0-d arrays: the per-request conversions of the ROS services.
    Plain Python on floats, so compiled callers (the /tf kernel) compile this one source.
    """
    trace = m00 + m11 + m22
    f0 = 1.0 + 2.0 * m00 - trace
    f1 = 1.0 + 2.0 * m11 - trace
    f2 = 1.0 + 2.0 * m22 - trace
    f3 = 1.0 + trace
    branch, largest = 0, f0  # np.argmax: the first largest
    if f1 > largest:
        branch, largest = 1, f1
    if f2 > largest:
        branch, largest = 2, f2
    if f3 > largest:
        branch, largest = 3, f3
    big = 0.5 * math.sqrt(largest)
    inv = 0.25 / big
    d21, d02, d10 = (m21 - m12) * inv, (m02 - m20) * inv, (m10 - m01) * inv
    s10, s02, s21 = (m10 + m01) * inv, (m02 + m20) * inv, (m21 + m12) * inv
    if branch == 0:
        x, y, z, w = big, s10, s02, d21
    elif branch == 1:
        x, y, z, w = s10, big, s21, d02
    elif branch == 2:
        x, y, z, w = s02, s21, big, d10
    else:
        x, y, z, w = d21, d02, d10, big
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    sign = -1.0 if w / norm < 0.0 else 1.0
    return sign * (x / norm), sign * (y / norm), sign * (z / norm), sign * (w / norm)


def rotation_from_quat_xyzw(quat_xyzw: ArrayLike) -> FloatArray:
    """Rotation matrices from quaternions in xyzw order (normalized first).

    Args:
        quat_xyzw: ``(..., 4)`` quaternions; need not be unit length but must be non-zero.

    Returns:
        ``(..., 3, 3)`` rotation matrices.
    """
    q = np.asarray(quat_xyzw, dtype=np.float64)
    if q.shape == (4,):
        one = q.tolist()
        if all(math.isfinite(v) for v in one):
            return np.array(_rotation_from_quat_xyzw_scalar(one))
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    R = np.empty((*q.shape[:-1], 3, 3))
    R[..., 0, 0] = 1 - 2 * (y * y + z * z)
    R[..., 0, 1] = 2 * (x * y - z * w)
    R[..., 0, 2] = 2 * (x * z + y * w)
    R[..., 1, 0] = 2 * (x * y + z * w)
    R[..., 1, 1] = 1 - 2 * (x * x + z * z)
    R[..., 1, 2] = 2 * (y * z - x * w)
    R[..., 2, 0] = 2 * (x * z - y * w)
    R[..., 2, 1] = 2 * (y * z + x * w)
    R[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return R


def _rotation_from_quat_xyzw_scalar(quat: list[float]) -> list[list[float]]:
    """:func:`rotation_from_quat_xyzw` of one finite quaternion in plain floats (bitwise equal)."""
    x, y, z, w = quat
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def quat_wxyz_from_xyzw(quat_xyzw: ArrayLike) -> FloatArray:
    """Reorder ``(..., 4)`` quaternions from xyzw to wxyz."""
    q = np.asarray(quat_xyzw, dtype=np.float64)
    return np.concatenate([q[..., 3:4], q[..., :3]], axis=-1)


def quat_xyzw_from_wxyz(quat_wxyz: ArrayLike) -> FloatArray:
    """Reorder ``(..., 4)`` quaternions from wxyz to xyzw."""
    q = np.asarray(quat_wxyz, dtype=np.float64)
    return np.concatenate([q[..., 1:4], q[..., 0:1]], axis=-1)


def skew(w: ArrayLike) -> FloatArray:
    """Skew-symmetric matrices ``[w]x`` (..., 3, 3) with ``[w]x @ v == cross(w, v)``."""
    a = np.asarray(w, dtype=np.float64)
    S = np.zeros((*a.shape[:-1], 3, 3))
    S[..., 0, 1], S[..., 0, 2] = -a[..., 2], a[..., 1]
    S[..., 1, 0], S[..., 1, 2] = a[..., 2], -a[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -a[..., 1], a[..., 0]
    return S


def rotation_exp(w: ArrayLike) -> FloatArray:
    """Rotation matrices ``exp([w]x)`` from rotation vectors (axis * angle) [rad].

    Args:
        w: ``(..., 3)`` rotation vectors.

    Returns:
        ``(..., 3, 3)`` rotations (Rodrigues; exact second-order series near zero).
    """
    a = np.asarray(w, dtype=np.float64)
    theta2 = np.einsum('...i,...i->...', a, a)
    theta = np.sqrt(theta2)
    small = theta2 < 1e-12
    safe = np.where(small, 1.0, theta)
    A = np.where(small, 1.0 - theta2 / 6.0, np.sin(safe) / safe)
    B = np.where(small, 0.5 - theta2 / 24.0, (1.0 - np.cos(safe)) / (safe * safe))
    K = skew(a)
    out: FloatArray = (np.eye(3) + A[..., None, None] * K
                       + B[..., None, None] * (K @ K))
    return out


def rotation_log(R: ArrayLike) -> FloatArray:
    """Rotation vectors ``w`` with ``exp([w]x) = R`` and ``|w| <= pi``.

    ``theta = atan2(|vee(R - R^T)| / 2, (tr R - 1) / 2)``; the axis comes from ``vee`` for
    ``theta < pi/2`` and from the symmetric part ``(R + R^T)/2 - cos(theta) I =
    (1 - cos(theta)) a a^T`` beyond, which stays accurate up to ``theta = pi``.

    Args:
        R: ``(..., 3, 3)`` rotation matrices.

    Returns:
        ``(..., 3)`` rotation vectors [rad].
    """
    m = np.asarray(R, dtype=np.float64)
    cos = (np.trace(m, axis1=-2, axis2=-1) - 1.0) * 0.5
    vee = np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                    m[..., 1, 0] - m[..., 0, 1]], axis=-1)
    sin = 0.5 * np.linalg.norm(vee, axis=-1)
    theta = np.arctan2(sin, cos)
    small = sin < 1e-12
    factor = np.where(small, 0.5 + theta ** 2 / 12.0, theta / np.where(small, 1.0, 2.0 * sin))
    w: FloatArray = factor[..., None] * vee
    obtuse = cos < 0.0
    if np.any(obtuse):
        mo = m[obtuse]
        c = cos[obtuse]
        S = 0.5 * (mo + np.swapaxes(mo, -1, -2)) - c[..., None, None] * np.eye(3)
        k = np.argmax(np.diagonal(S, axis1=-2, axis2=-1), axis=-1)
        col = np.take_along_axis(S, k[:, None, None].repeat(3, axis=1), axis=2)[..., 0]
        axis = col / np.linalg.norm(col, axis=-1, keepdims=True)
        sign = np.where(np.einsum('...i,...i->...', axis, vee[obtuse]) < 0.0, -1.0, 1.0)
        w[obtuse] = axis * (theta[obtuse] * sign)[..., None]
    return w


def pose_error(X_WA: ArrayLike, X_WB: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Position and orientation error of pose B relative to A, both in the common frame W.

    Args:
        X_WA: ``(..., 4, 4)`` reference poses.
        X_WB: ``(..., 4, 4)`` poses.

    Returns:
        ``(dp_W, dw_W)``: ``p_WB - p_WA`` (..., 3) [m] and the rotation vector of
        ``R_WB @ R_WA^T`` (..., 3) [rad], both expressed in W.
    """
    A = np.asarray(X_WA, dtype=np.float64)
    B = np.asarray(X_WB, dtype=np.float64)
    dp = B[..., :3, 3] - A[..., :3, 3]
    dw = rotation_log(B[..., :3, :3] @ np.swapaxes(A[..., :3, :3], -1, -2))
    return dp, dw


_ERROR_GATHER = np.array([7, 2, 3, 5, 6, 1, 0, 4, 8], dtype=np.intp)
'''Flat indices of R21, R02, R10 | R12, R20, R01 | R00, R11, R22 (vee and trace in one gather).'''
_HALVES = np.full(3, 0.5)


def rotation_log_and_angle(R: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(log(R), |log(R)|)`` for ``(..., 3, 3)`` rotations: the hot-path form of the log.

    ``theta = atan2(|vee(R - Rᵀ)| / 2, (tr R - 1) / 2)`` (as :func:`rotation_angle`) is accurate
    everywhere; the axis ``vee / (2 sin theta)`` loses accuracy only near ``theta = pi``, where
    :func:`rotation_log`'s exact symmetric-part formula takes over. One gather and two dot
    products: a fraction of :func:`rotation_log`'s cost on small batches (IK iterations).

    Args:
        R: ``(..., 3, 3)`` rotation matrices.

    Returns:
        ``(w, theta)``: rotation vectors ``(..., 3)`` [rad] and their norms ``(...)`` [rad].
    """
    g = R.reshape(*R.shape[:-2], 9)[..., _ERROR_GATHER]
    vee = g[..., 0:3] - g[..., 3:6]
    cos = np.vecdot(g[..., 6:9], _HALVES) - 0.5
    two_sin = np.sqrt(np.vecdot(vee, vee))
    theta = np.arctan2(0.5 * two_sin, cos)
    # theta / (2 sin theta) -> 1/2 as theta -> 0 (and vee = 0 at theta = 0 exactly).
    w: FloatArray = vee * (theta / np.maximum(two_sin, 1e-300))[..., None]
    if two_sin.min(initial=1.0) < 1e-9:
        near_pi = (two_sin < 1e-9) & (cos < 0.0)
        if near_pi.any():
            w[near_pi] = rotation_log(R[near_pi])
    return w, theta


def rotation_angle(R: ArrayLike) -> FloatArray:
    """Angle [rad, ``[0, π]``] of rotation matrices ``(..., 3, 3)`` (atan2 form, accurate)."""
    m = np.asarray(R, dtype=np.float64)
    vee = np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                    m[..., 1, 0] - m[..., 0, 1]], axis=-1)
    out: FloatArray = np.arctan2(0.5 * np.linalg.norm(vee, axis=-1),
                                 0.5 * (np.trace(m, axis1=-2, axis2=-1) - 1.0))
    return out


# ---------------------------------------------------------------------------- angles

_TWO_PI = 2.0 * math.pi


def wrap_angle(angle: ArrayLike) -> FloatArray:
    """Wrap angles into ``[-π, π)``: ``3.2 -> 3.2 - 2π``, ``π -> -π``.

    Args:
        angle: Angles of any shape [rad].

    Returns:
        The angles plus the multiple of 2π that brings them into ``[-π, π)``; angles already
        in that range are returned bit for bit (so wrapping is idempotent).
    """
    a = np.asarray(angle, dtype=np.float64)
    w = np.remainder(a + math.pi, _TWO_PI) - math.pi
    # np.remainder can round up to exactly 2π for tiny negative arguments.
    w = np.where(w >= math.pi, -math.pi, w)
    out: FloatArray = np.where((a >= -math.pi) & (a < math.pi), a, w)
    return out


def rotation_log_into(M: Any, out: Any, o: int) -> float:
    """``log(M)`` of one ``(3, 3)`` rotation into ``out[o:o + 3]``; returns its angle [rad].

    The scalar form of :func:`rotation_log` (tested against it to 1e-12), written for compiled
    callers (the IK kernels compile it with numba; plain Python here): ``θ = atan2(|vee(M - Mᵀ)| /
    2, (tr M - 1) / 2)``; the axis is ``vee / (2 sin θ)`` for ``θ < π/2`` and, beyond, the unit
    column of largest diagonal of ``(M + Mᵀ)/2 - cos θ I = (1 - cos θ) a aᵀ`` (sign from ``vee``),
    accurate up to ``θ = π``.
    """
    v0 = M[2, 1] - M[1, 2]
    v1 = M[0, 2] - M[2, 0]
    v2 = M[1, 0] - M[0, 1]
    cos = 0.5 * (M[0, 0] + M[1, 1] + M[2, 2]) - 0.5
    two_sin = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    theta = math.atan2(0.5 * two_sin, cos)
    if cos < 0.0:
        k = 0
        best = M[0, 0] - cos
        for i in range(1, 3):
            if M[i, i] - cos > best:
                best = M[i, i] - cos
                k = i
        c0 = 0.5 * (M[0, k] + M[k, 0]) - (cos if k == 0 else 0.0)
        c1 = 0.5 * (M[1, k] + M[k, 1]) - (cos if k == 1 else 0.0)
        c2 = 0.5 * (M[2, k] + M[k, 2]) - (cos if k == 2 else 0.0)
        scale = theta / math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
        if c0 * v0 + c1 * v1 + c2 * v2 < 0.0:
            scale = -scale
        out[o] = c0 * scale
        out[o + 1] = c1 * scale
        out[o + 2] = c2 * scale
        return theta
    # θ / (2 sin θ) -> 1/2 as θ -> 0 (and vee = 0 at θ = 0 exactly).
    factor = theta / max(two_sin, 1e-300)
    out[o] = v0 * factor
    out[o + 1] = v1 * factor
    out[o + 2] = v2 * factor
    return theta


def wrap_angle_scalar(a: float) -> float:
    """Scalar :func:`wrap_angle`: into ``[-π, π)`` (for compiled callers; bitwise equal)."""
    if -math.pi <= a < math.pi:
        return a
    w = (a + math.pi) % (2.0 * math.pi) - math.pi
    return -math.pi if w >= math.pi else w


def normalize_angle(angle: ArrayLike) -> FloatArray:
    """Angles in ``(-π, π]`` (ROS ``angles::normalize_angle``, which MoveIt's diff drive uses)."""
    out: FloatArray = -wrap_angle(-np.asarray(angle, dtype=np.float64))
    return out


def _principal(angle: FloatArray) -> FloatArray:
    """``angle`` in ``(-2π, 2π)`` moved into ``[-π, π]`` by at most one ``±2π`` (Drake)."""
    out: FloatArray = np.where(angle > np.pi, angle - 2.0 * np.pi,
                               np.where(angle < -np.pi, angle + 2.0 * np.pi, angle))
    return out


# ---------------------------------------------------------------------------- Euler angles

_GIMBAL_LOCK_EPS = float(np.finfo(np.float64).eps)
'''Drake's gimbal-lock test in ``RollPitchYaw(RotationMatrix)``: machine epsilon.'''


def rpy_from_rotation(R: ArrayLike) -> FloatArray:
    """Roll-pitch-yaw angles of rotation matrices, the inverse of ``rotation_from_rpy`` (J-R7).

    Drake's ``RollPitchYaw(RotationMatrix)`` algorithm (``math/roll_pitch_yaw.cc``), which
    stays accurate up to and at the gimbal lock:

    * ``pitch = atan2(-R20, sqrt((R00² + R10² + R21² + R22²) / 2))`` in ``[-π/2, π/2]``;
    * with the canonical unit quaternion ``(w, x, y, z)`` of ``R`` (``w >= 0``), the half-sum
      and half-difference of roll and yaw are ``zA = (roll + yaw)/2 = atan2(x + z, w - y)``
      and ``zB = (yaw - roll)/2 = atan2(z - x, w + y)``; ``roll = zA - zB``,
      ``yaw = zA + zB``, each brought into ``[-π, π]`` by one ``±2π``.

    At the gimbal lock only ``yaw - roll`` (pitch = +π/2) or ``yaw + roll`` (pitch = -π/2)
    is determined. Where both components of a half-angle pair are within machine epsilon of
    zero (the lock, to rounding), Drake sets that half-angle to 0, which splits the angle
    evenly: at pitch = +π/2, ``roll = -(yaw - roll)/2`` and ``yaw = +(yaw - roll)/2``; at
    pitch = -π/2, ``roll = yaw = (roll + yaw)/2``. Near the lock the ill-determined combination
    only moves ``R`` by ``|cos(pitch)|`` times its error, so ``R`` is rebuilt to rounding
    (max element error ≈ 1e-15) at any distance from the lock.

    Args:
        R: ``(..., 3, 3)`` rotation matrices ``R_FM`` (orthonormality is not checked).

    Returns:
        ``(..., 3)`` angles ``[roll, pitch, yaw]`` in radians: roll and yaw in ``[-π, π]``,
        pitch in ``[-π/2, π/2]``.

    Raises:
        InvalidArgumentError: ``R`` does not have shape ``(..., 3, 3)``.
    """
    m = np.asarray(R, dtype=np.float64)
    if m.ndim < 2 or m.shape[-2:] != (3, 3):
        raise InvalidArgumentError(
            f'rpy_from_rotation: R must have shape (..., 3, 3), got {m.shape}')
    r00, r10, r20, r21, r22 = (m[..., 0, 0], m[..., 1, 0], m[..., 2, 0], m[..., 2, 1],
                               m[..., 2, 2])
    cos_pitch = np.sqrt(0.5 * (r00 * r00 + r10 * r10 + r21 * r21 + r22 * r22))
    pitch = np.arctan2(-r20, cos_pitch)
    quat = quat_xyzw_from_rotation(m)
    x, y, z, w = quat[..., 0], quat[..., 1], quat[..., 2], quat[..., 3]
    half_sum = _half_angle(x + z, w - y)
    half_difference = _half_angle(z - x, w + y)
    angles = np.stack([_principal(half_sum - half_difference), pitch,
                       _principal(half_sum + half_difference)], axis=-1)
    out: FloatArray = angles + 0.0  # + 0.0: no -0.0 angles
    return out


def _half_angle(sine: FloatArray, cosine: FloatArray) -> FloatArray:
    """``atan2(sine, cosine)``, or 0 where both are within machine epsilon of 0 (Drake)."""
    locked = (np.abs(sine) <= _GIMBAL_LOCK_EPS) & (np.abs(cosine) <= _GIMBAL_LOCK_EPS)
    out: FloatArray = np.where(locked, 0.0, np.arctan2(sine, cosine))
    return out


def xyz_euler_from_rotation(R: FloatArray) -> FloatArray:
    """Intrinsic X-Y-Z Euler angles (Eigen's ``eulerAngles(0, 1, 2)`` convention) of ``R``.

    Args:
        R: One ``(3, 3)`` rotation matrix ``R = Rx(a) Ry(b) Rz(c)``.

    Returns:
        ``(3,)`` angles ``[a, b, c]`` [rad]; at the gimbal lock everything goes into ``a``.
    """
    b = math.asin(max(-1.0, min(1.0, R[0, 2])))
    if abs(math.cos(b)) > 1e-12:
        a = math.atan2(-R[1, 2], R[2, 2])
        c = math.atan2(-R[0, 1], R[0, 0])
    else:  # gimbal lock: put everything in a
        a = math.atan2(R[2, 1], R[1, 1])
        c = 0.0
    return np.array([a, b, c])


# ---------------------------------------------------------------------------- quaternion algebra

_SMALL_ANGLE = 1e-12


def quat_multiply(a: FloatArray, b: FloatArray) -> FloatArray:
    """Hamilton product of xyzw quaternions ``(..., 4)``: ``R(a ⊗ b) = R(a) R(b)``."""
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    out: FloatArray = np.stack([aw * bx + ax * bw + ay * bz - az * by,
                                aw * by - ax * bz + ay * bw + az * bx,
                                aw * bz + ax * by - ay * bx + az * bw,
                                aw * bw - ax * bx - ay * by - az * bz], axis=-1)
    return out


def quat_conjugate(q: FloatArray) -> FloatArray:
    """Conjugates (inverses of unit quaternions) of xyzw quaternions ``(..., 4)``."""
    out: FloatArray = q * np.array([-1.0, -1.0, -1.0, 1.0])
    return out


def quat_xyzw_from_rotation_vector(w: FloatArray) -> FloatArray:
    """Unit xyzw quaternions ``(..., 4)`` of rotation vectors ``(..., 3)`` [rad]."""
    theta = np.linalg.norm(w, axis=-1)
    small = theta < _SMALL_ANGLE
    scale = np.where(small, 0.5, np.sin(0.5 * theta) / np.where(small, 1.0, theta))
    return np.concatenate([scale[..., None] * w, np.cos(0.5 * theta)[..., None]], axis=-1)


def quat_angle(q0: FloatArray, q1: FloatArray) -> FloatArray:
    """Rotation angle [rad, in ``[0, π]``] between unit quaternions: ``2·acos|⟨q0, q1⟩|``.

    Computed as ``2·atan2(‖vec(q0* ⊗ q1)‖, |⟨q0, q1⟩|)``, which stays accurate for small
    angles where ``acos`` loses half the digits.
    """
    rel = quat_multiply(quat_conjugate(q0), q1)
    out: FloatArray = 2.0 * np.arctan2(np.linalg.norm(rel[..., :3], axis=-1),
                                       np.abs(rel[..., 3]))
    return out


def quat_slerp(q0: FloatArray, q1: FloatArray, t: FloatArray) -> FloatArray:
    """Shortest-path slerp of unit xyzw quaternions ``(..., 4)`` at ``t`` ``(...)``.

    ``q(t) = q0 ⊗ exp(t·log(q0* ⊗ ±q1))`` with the sign making the relative rotation's
    ``w >= 0``: ``q1`` and ``-q1`` give the same path. The angle to ``q0`` grows linearly with
    ``t`` (constant angular rate); any finite ``t`` extrapolates along the same geodesic.
    """
    rel = quat_multiply(quat_conjugate(q0), q1)
    rel = np.where(rel[..., 3:4] < 0.0, -rel, rel)
    s = np.linalg.norm(rel[..., :3], axis=-1)
    half = np.arctan2(s, rel[..., 3])  # half the relative rotation angle, in [0, π/2]
    small = s < _SMALL_ANGLE
    factor = np.where(small, t, np.sin(t * half) / np.where(small, 1.0, s))
    step = np.concatenate([factor[..., None] * rel[..., :3], np.cos(t * half)[..., None]],
                          axis=-1)
    out = quat_multiply(q0, step)
    result: FloatArray = out / np.linalg.norm(out, axis=-1, keepdims=True)
    return result


def random_quat_xyzw(rng: np.random.Generator, shape: tuple[int, ...]) -> FloatArray:
    """Uniformly distributed unit quaternions ``(*shape, 4)`` (normalized 4-D Gaussians)."""
    g = rng.standard_normal((*shape, 4))
    norm = np.linalg.norm(g, axis=-1, keepdims=True)
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    out: FloatArray = np.where(norm < QUATERNION_MIN_NORM, identity,
                               g / np.maximum(norm, QUATERNION_MIN_NORM))
    return out


def random_rotation_vectors(rng: np.random.Generator, shape: tuple[int, ...],
                            max_angle: FloatArray) -> FloatArray:
    """Rotation vectors ``(*shape, 3)`` uniform in the ball of radius ``min(max_angle, π)``."""
    axis = rng.standard_normal((*shape, 3))
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    axis = np.where(norm < QUATERNION_MIN_NORM, np.array([1.0, 0.0, 0.0]),
                    axis / np.maximum(norm, QUATERNION_MIN_NORM))
    radius = np.minimum(max_angle, math.pi) * np.cbrt(rng.random(shape))
    out: FloatArray = axis * radius[..., None]
    return out


# ---------------------------------------------------------------------------- SE(3)


def rigid_inverse(X: FloatArray) -> FloatArray:
    """Inverses ``X_BA`` ``(..., 4, 4)`` of rigid transforms ``X_AB`` (transpose, no solve)."""
    out = np.zeros_like(X)
    Rt = np.swapaxes(X[..., :3, :3], -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -np.einsum('...ij,...j->...i', Rt, X[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out
