"""Prismatic joints: a translation by d along a unit axis.

All of the type's math (Pinocchio's ``JointModelPrismatic``): the motion ``X_FM(d)`` (identity
rotation, translation ``d · axis``) as the coefficients the compiled FK evaluates, its motion
subspace (one translational column), integrate, difference and the joint value of a motion.
MoveIt's distance factor is 1.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import BoolArray, FloatArray
from robot_state_core.description.joint_types.limits import limited_bounds
from robot_state_core.description.joint_types.parameters import JointParameters
from robot_state_core.description.joints import Joint

NQ = 1
NV = 1
KERNEL_KIND = 3
'''The compiled FK's code of the type (:mod:`robot_state_core.kinematics.compiled`).'''
STATE_SPACE_DIMENSION = 1
'''MoveIt ``getStateSpaceDimension()``: the default distance factor.'''
ANGLE_VARIABLES: tuple[int, ...] = ()
'''Position variables that are angles [rad] (wrapped when unbounded: continuous joints).'''
TRANSLATION_VARIABLES: tuple[int, ...] = (0,)
'''Position variables that are translations [m].'''
ORIENTATION_VARIABLES: tuple[int, ...] = ()
'''Position variables that parameterise an orientation (sampled on SO(3)).'''
NEUTRAL: tuple[float, ...] = (0.0,)
'''The neutral configuration (Pinocchio ``neutral``): the default positions.'''


def motion_coefficients(axis: ArrayLike) -> FloatArray:
    """``C`` ``(4, 4, 4)`` with ``X_FM(d) = C[0] + d C[3]`` (``C[1] = C[2] = 0``).

    Args:
        axis: ``(3,)`` unit axis in the joint frame F.
    """
    C = np.zeros((4, 4, 4))
    C[0] = np.eye(4)
    C[3, :3, 3] = np.asarray(axis, dtype=np.float64)
    return C


def velocity_columns(axis: ArrayLike) -> tuple[FloatArray, list[bool], list[bool]]:
    """The motion subspace: axes ``(1, 3)``, rotational flags, in-joint-frame flags."""
    return np.asarray(axis, dtype=np.float64)[None], [False], [False]


def integrate(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q + v`` ``(..., 1)``."""
    out: FloatArray = q + v
    return out


def difference(q0: FloatArray, q1: FloatArray, wrap: BoolArray) -> FloatArray:
    """``q1 - q0`` ``(..., k, 1)`` (``wrap`` is unused: a translation has no period)."""
    out: FloatArray = q1 - q0
    return out


def positions_from_motion(X_FM: FloatArray, axis: ArrayLike) -> FloatArray:
    """The displacement d ``(1,)`` of the motion ``X_FM`` ``(4, 4)`` along the axis [m]."""
    return np.array([float(X_FM[:3, 3] @ np.asarray(axis, dtype=np.float64))])


def prepare(q: FloatArray, where: str, name: str) -> FloatArray:
    """Positions ``(..., k, 1)`` ready for :func:`distance` and :func:`interpolate` (as given)."""
    return q


def distance(q0: FloatArray, q1: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``PrismaticJointModel::distance`` ``(..., k)``: ``|Δd|``."""
    out: FloatArray = np.abs(q1 - q0)[..., 0]
    return out


def interpolate(q0: FloatArray, q1: FloatArray, t: FloatArray, p: JointParameters) -> FloatArray:
    """MoveIt ``PrismaticJointModel::interpolate`` ``(..., k, 1)``: ``(1 - t) d0 + t d1``."""
    tt = t[..., None]
    out: FloatArray = (1.0 - tt) * q0 + tt * q1
    return out


def position_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """MoveIt's variable bounds: ``<limit>`` narrowed by ``<safety_controller>``."""
    return limited_bounds(joint)
