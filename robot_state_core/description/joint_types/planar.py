"""Planar joints: ``(x, y, θ)``, a translation in the x-y plane of the joint frame and a yaw.

All of the type's math (Pinocchio's ``JointModelPlanar``, MoveIt's ``PlanarJointModel``): the
motion ``X_FM = [Rz(θ), (x, y, 0)]`` (numpy for batches, :func:`motion_rows` for the compiled
FK), its motion subspace (x and y translate along F's axes, θ rotates about F's z), integrate,
difference (θ on the circle when unbounded) and the joint values of a motion. The plane is
always F's x-y plane, whatever the URDF ``<axis>`` (MoveIt and Pinocchio; decision L1). MoveIt's
distance factor is 3.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robot_state_core._typing import BoolArray, FloatArray
from robot_state_core.description.joint_types.parameters import JointParameters
from robot_state_core.description.joints import Joint
from robot_state_core.spatial.transforms import normalize_angle, wrap_angle

NQ = 3
NV = 3
KERNEL_KIND = 4
'''The compiled FK's code of the type (:mod:`robot_state_core.kinematics.compiled`).'''
STATE_SPACE_DIMENSION = 3
'''MoveIt ``getStateSpaceDimension()``: the default distance factor.'''
TRANSLATION_VARIABLES: tuple[int, ...] = (0, 1)
'''Position variables that are translations [m].'''
ANGLE_VARIABLES: tuple[int, ...] = (2,)
'''Position variables that are angles on the circle [rad] (when unbounded).'''
ORIENTATION_VARIABLES: tuple[int, ...] = ()
'''Position variables that parameterise an orientation (sampled on SO(3)).'''
NEUTRAL: tuple[float, ...] = (0.0, 0.0, 0.0)
'''The neutral configuration (Pinocchio ``neutral``): the default positions.'''


def motion(q: FloatArray) -> FloatArray:
    """``X_FM`` ``(..., 4, 4)`` of positions ``(..., 3)`` ``(x [m], y [m], θ [rad])``."""
    M = np.zeros((*q.shape[:-1], 4, 4))
    c, s = np.cos(q[..., 2]), np.sin(q[..., 2])
    M[..., 0, 0], M[..., 0, 1], M[..., 1, 0], M[..., 1, 1] = c, -s, s, c
    M[..., 2, 2] = M[..., 3, 3] = 1.0
    M[..., 0, 3], M[..., 1, 3] = q[..., 0], q[..., 1]
    return M


def motion_rows(q: Any, i: int) -> Any:
    """The top three rows (4-tuples) of ``X_FM`` of the positions ``q[i:i + 3]``.

    Plain Python on floats, compiled into the FK kernels; bitwise :func:`motion`'s values.
    """
    x, y, t = q[i], q[i + 1], q[i + 2]
    c, s = math.cos(t), math.sin(t)
    return (c, -s, 0.0, x), (s, c, 0.0, y), (0.0, 0.0, 1.0, 0.0)


def velocity_columns() -> tuple[FloatArray, list[bool], list[bool]]:
    """The motion subspace ``(ẋ, ẏ, θ̇)``: F's x, y (translations) and z (rotation) axes.

    Returns axes ``(3, 3)``, rotational flags and in-joint-frame flags (all three columns are
    expressed in F, so x and y stay along F's axes whatever θ: decision S3).
    """
    return np.eye(3), [False, False, True], [True, True, True]


def integrate(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q + v`` ``(..., 3)``: the velocity's x and y are along F's axes (not wrapped)."""
    out: FloatArray = q + v
    return out


def difference(q0: FloatArray, q1: FloatArray, wrap: BoolArray) -> FloatArray:
    """``q1 - q0`` ``(..., k, 3)``; θ along the shortest arc where ``wrap`` ``(k,)``."""
    d: FloatArray = q1 - q0
    d[..., 2] = np.where(wrap, wrap_angle(d[..., 2]), d[..., 2])
    return d


def positions_from_motion(X_FM: FloatArray) -> FloatArray:
    """``(x, y, θ)`` of the motion ``X_FM`` ``(4, 4)`` (projected onto the plane)."""
    return np.array([X_FM[0, 3], X_FM[1, 3], math.atan2(X_FM[1, 0], X_FM[0, 0])])


def prepare(q: FloatArray, where: str, name: str) -> FloatArray:
    """Positions ``(..., k, 3)`` ready for :func:`distance` and :func:`interpolate` (as given)."""
    return q


def distance(q0: FloatArray, q1: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``PlanarJointModel::distance`` ``(..., k)``: ``‖Δ(x, y)‖ + w · turn``.

    ``turn`` is ``|wrap(Δθ)|`` (holonomic) or, for a diff drive, the two turns of the
    turn-drive-turn path (:func:`turn_drive_turn`); ``w`` the joint's angular weight.
    """
    xy0, xy1, th0, th1 = q0[..., :2], q1[..., :2], q0[..., 2], q1[..., 2]
    turn = np.abs(wrap_angle(th1 - th0))
    if p.diff_drive.any():
        first, _, last = turn_drive_turn(xy0, th0, xy1, th1, p.min_translation)
        turn = np.where(p.diff_drive, np.abs(first) + np.abs(last), turn)
    out: FloatArray = np.linalg.norm(xy1 - xy0, axis=-1) + p.angular_weight * turn
    return out


def interpolate(q0: FloatArray, q1: FloatArray, t: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``PlanarJointModel::interpolate`` ``(..., k, 3)`` at ``t`` ``(..., 1)``.

    Holonomic: x, y linear, θ along the shortest arc (wrapped into ``[-π, π)``: decision
    S11); a diff drive along the turn-drive-turn path (:func:`diff_drive_interpolate`).
    """
    tt = t[..., None]
    out: FloatArray = (1.0 - tt) * q0 + tt * q1
    th0, th1 = q0[..., 2], q1[..., 2]
    out[..., 2] = np.where(p.wrap, wrap_angle(th0 + t * wrap_angle(th1 - th0)), out[..., 2])
    if p.diff_drive.any():
        xy_t, th_t = diff_drive_interpolate(q0[..., :2], th0, q1[..., :2], th1, t,
                                            p.angular_weight, p.min_translation)
        out[..., :2] = np.where(p.diff_drive[:, None], xy_t, out[..., :2])
        out[..., 2] = np.where(p.diff_drive, wrap_angle(th_t), out[..., 2])
    return out


def turn_drive_turn(xy0: FloatArray, th0: FloatArray, xy1: FloatArray, th1: FloatArray,
                     min_translation: FloatArray
                     ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """MoveIt ``computeTurnDriveTurnGeometry``: ``(first turn, drive heading, last turn)``.

    A differential drive turns to face the goal position (or away from it, driving backwards,
    whichever makes the two turns smaller; ties go forwards), drives straight, then turns to the
    goal heading. Below ``min_translation`` [m] there is no first turn. Shapes broadcast
    ``(..., P, 2)`` positions and ``(..., P)`` headings.
    """
    d = xy1 - xy0
    heading = np.arctan2(d[..., 1], d[..., 0])
    moves = np.hypot(d[..., 0], d[..., 1]) > min_translation
    straight = np.where(moves, normalize_angle(heading - th0), 0.0)
    backward = normalize_angle(straight - math.pi)
    cost_straight = np.abs(straight) + np.abs(normalize_angle(th1 - (th0 + straight)))
    cost_backward = np.abs(backward) + np.abs(normalize_angle(th1 - (th0 + backward)))
    first = np.where(cost_straight <= cost_backward, straight, backward)
    drive_heading = th0 + first
    return first, drive_heading, normalize_angle(th1 - drive_heading)


def diff_drive_interpolate(xy0: FloatArray, th0: FloatArray, xy1: FloatArray, th1: FloatArray,
                            t: FloatArray, w_ang: FloatArray, min_translation: FloatArray
                            ) -> tuple[FloatArray, FloatArray]:
    """MoveIt ``PlanarJointModel::interpolate`` for ``diff_drive``: ``(xy, theta)`` at ``t``.

    The fraction ``t`` runs along the turn-drive-turn path with each leg's share its length
    (turns weighted by ``w_ang``); ``t <= 0`` is the start, a zero-length path the goal.
    """
    first, drive_heading, last = turn_drive_turn(xy0, th0, xy1, th1, min_translation)
    d_first, d_last = np.abs(first) * w_ang, np.abs(last) * w_ang
    d_drive = np.linalg.norm(xy1 - xy0, axis=-1)
    total = d_first + d_drive + d_last
    tiny = total <= np.finfo(np.float64).eps
    safe = np.where(tiny, 1.0, total)
    f_first, f_drive = d_first / safe, d_drive / safe
    with np.errstate(divide='ignore', invalid='ignore'):
        in_first = t <= f_first
        in_drive = ~in_first & (t <= f_first + f_drive)
        p_first = np.where(in_first, t / np.where(f_first > 0, f_first, 1.0), 0.0)
        p_drive = np.where(in_drive, (t - f_first) / np.where(f_drive > 0, f_drive, 1.0), 0.0)
        f_last = 1.0 - f_first - f_drive
        p_last = (t - f_first - f_drive) / np.where(f_last > 0, f_last, 1.0)
    theta = np.where(in_first, th0 + first * p_first,
                     np.where(in_drive, drive_heading, drive_heading + last * p_last))
    xy = np.where(in_first[..., None], xy0,
                  np.where(in_drive[..., None], xy0 + (xy1 - xy0) * p_drive[..., None], xy1))
    start = t <= 0.0
    theta = np.where(start, th0, np.where(tiny, th1, theta))
    xy = np.where(start[..., None], xy0, np.where(tiny[..., None], xy1, xy))
    return xy, theta


def position_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """MoveIt ``PlanarJointModel``'s bounds: x, y unbounded, θ in ``[-π, π]`` (wrapping)."""
    inf = math.inf
    return [-inf, -inf, -math.pi], [inf, inf, math.pi], [False] * 3
