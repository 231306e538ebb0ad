"""Revolute and continuous joints: a rotation by θ about a unit axis through the joint origin.

All of the type's math (Pinocchio's ``JointModelRevolute`` / ``JointModelRevoluteUnbounded``):
the motion ``X_FM(θ) = I + sin θ K + (1 - cos θ) K²`` (Rodrigues, ``K = [axis]×``) as the
coefficients the compiled FK evaluates, its motion subspace (one rotational column), integrate
and difference (a continuous joint's difference takes the shortest arc), and the joint value
of a motion. MoveIt's distance factor is 1.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import BoolArray, FloatArray
from robot_state_core.description.joint_types.limits import limited_bounds
from robot_state_core.description.joint_types.parameters import JointParameters
from robot_state_core.description.joints import Joint, JointType
from robot_state_core.spatial.transforms import rotation_log, skew, wrap_angle

NQ = 1
NV = 1
KERNEL_KIND = 1
'''The compiled FK's code of the type (:mod:`robot_state_core.kinematics.compiled`).'''
STATE_SPACE_DIMENSION = 1
'''MoveIt ``getStateSpaceDimension()``: the default distance factor.'''
ANGLE_VARIABLES: tuple[int, ...] = (0,)
'''Position variables that are angles [rad] (wrapped when unbounded: continuous joints).'''
TRANSLATION_VARIABLES: tuple[int, ...] = ()
'''Position variables that are translations [m].'''
ORIENTATION_VARIABLES: tuple[int, ...] = ()
'''Position variables that parameterise an orientation (sampled on SO(3)).'''
NEUTRAL: tuple[float, ...] = (0.0,)
'''The neutral configuration (Pinocchio ``neutral``): the default positions.'''


def motion_coefficients(axis: ArrayLike) -> FloatArray:
    """``C`` ``(4, 4, 4)`` with ``X_FM(θ) = C[0] + sin θ C[1] + (1 - cos θ) C[2] + θ C[3]``.

    Args:
        axis: ``(3,)`` unit axis in the joint frame F.
    """
    K = skew(np.asarray(axis, dtype=np.float64))
    C = np.zeros((4, 4, 4))
    C[0] = np.eye(4)
    C[1, :3, :3] = K
    C[2, :3, :3] = K @ K
    return C


def velocity_columns(axis: ArrayLike) -> tuple[FloatArray, list[bool], list[bool]]:
    """The motion subspace: axes ``(1, 3)``, rotational flags, in-joint-frame flags.

    The column is expressed in the child link frame (the axis is fixed there and in F).
    """
    return np.asarray(axis, dtype=np.float64)[None], [True], [False]


def integrate(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q + v`` ``(..., 1)`` (continuous joints are not wrapped here: MoveIt's neither)."""
    out: FloatArray = q + v
    return out


def difference(q0: FloatArray, q1: FloatArray, wrap: BoolArray) -> FloatArray:
    """``q1 - q0`` ``(..., k, 1)``; the shortest arc (wrapped into ``[-π, π)``) where ``wrap``.

    Args:
        q0: ``(..., k, 1)`` start angles of ``k`` joints [rad].
        q1: ``(..., k, 1)`` end angles [rad].
        wrap: ``(k,)`` the joint is unbounded (continuous): its angle is on the circle.
    """
    d: FloatArray = q1 - q0
    out: FloatArray = np.where(wrap[:, None], wrap_angle(d), d)
    return out


def positions_from_motion(X_FM: FloatArray, axis: ArrayLike) -> FloatArray:
    """θ ``(1,)`` of the motion ``X_FM`` ``(4, 4)`` (the rotation about the axis only)."""
    return np.array([float(rotation_log(X_FM[:3, :3]) @ np.asarray(axis, dtype=np.float64))])


def prepare(q: FloatArray, where: str, name: str) -> FloatArray:
    """Positions ``(..., k, 1)`` ready for :func:`distance` and :func:`interpolate` (as given)."""
    return q


def distance(q0: FloatArray, q1: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``RevoluteJointModel::distance`` ``(..., k)``: ``|Δθ|``, shortest arc if ``wrap``."""
    out: FloatArray = np.abs(difference(q0, q1, p.wrap))[..., 0]
    return out


def interpolate(q0: FloatArray, q1: FloatArray, t: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``RevoluteJointModel::interpolate`` ``(..., k, 1)`` at ``t`` ``(..., 1)``.

    ``(1 - t) θ0 + t θ1``; an unbounded angle along the shortest arc, wrapped into ``[-π, π)``
    (decision S11).
    """
    tt = t[..., None]
    out: FloatArray = np.where(p.wrap[:, None], wrap_angle(q0 + tt * wrap_angle(q1 - q0)),
                               (1.0 - tt) * q0 + tt * q1)
    return out


def position_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """MoveIt's variable bounds: ``<limit>`` (and safety), a continuous joint's ``[-π, π]``.

    Returns ``(lower, upper, bounded)`` per variable; a continuous joint's bounds are not
    position limits (``bounded`` False: its angle wraps).
    """
    if joint.type is JointType.CONTINUOUS:
        return [-math.pi], [math.pi], [False]
    return limited_bounds(joint)
