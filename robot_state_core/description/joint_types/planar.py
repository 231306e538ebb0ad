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
from robot_state_core.spatial.transforms import wrap_angle

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
