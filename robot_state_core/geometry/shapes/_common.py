"""What several shape modules share: size validation and Drake's distance conventions.

Sizes are full lengths in ``[0, MAX_COORDINATE]`` m (:func:`check_lengths`); the point signed
distances follow Drake's ``DistanceToPoint`` conventions (:func:`box_sdf`, :func:`sphere_sdf`,
used by the box and cylinder, and the sphere and capsule modules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray, Int64Array
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.spatial.transforms import MAX_COORDINATE

Vec3 = tuple[float, float, float]
LocalSupport = Callable[[float, float, float], Vec3]
'''A support mapping in the shape frame: ``(dx, dy, dz) -> argmax_p d·p`` (plain floats).'''
PointDistance = tuple[float, FloatArray, FloatArray]
'''``(distance, p_GN, grad_G)`` of a point signed distance, in the shape frame G.'''
MeshArrays = tuple[FloatArray, Int64Array]
'''``(vertices (V, 3), faces (F, 3))`` of a triangle mesh.'''


def check_lengths(shape: object, *names: str) -> None:
    """Each named field of ``shape`` is a finite length in ``[0, MAX_COORDINATE]`` [m]."""
    for name in names:
        value = getattr(shape, name)
        if isinstance(value, bool | np.bool_) or not isinstance(
                value, int | float | np.integer | np.floating):
            raise InvalidTypeError(f'{type(shape).__name__}: {name} must be a number, got '
                                   f'{value!r}')
        if not 0.0 <= float(value) <= MAX_COORDINATE:
            raise InvalidArgumentError(
                f'{type(shape).__name__}: {name} must be a finite length in [0, '
                f'{MAX_COORDINATE:g}] m, got {value!r}'
                + (' (sizes are full lengths and cannot be negative)' if value < 0 else ''))


def translation(p: ArrayLike) -> FloatArray:
    """The pose ``[I, p]`` (4, 4)."""
    X = np.eye(4)
    X[:3, 3] = np.asarray(p, dtype=np.float64)
    return X


def distance_tolerance(size: float) -> float:
    """Drake's ``DistanceToPointRelativeTolerance``: ``1e-14 * max(1, size)`` [m]."""
    return 1e-14 * max(1.0, size)


def _sign(x: float) -> float:
    """Drake's ``Sign``: -1 for negative values, +1 otherwise (also for 0)."""
    return -1.0 if x < 0.0 else 1.0


def box_sdf(h: FloatArray, p: FloatArray) -> PointDistance:
    """Signed distance to the box ``[-h, h]`` (2-D or 3-D), Drake's conventions.

    A coordinate within Drake's relative tolerance of ``±h`` is on the boundary: the nearest
    point snaps to it, and a point on an edge or corner gets the normalized sum of the faces'
    normals as its gradient. Inside, the nearest face wins (ties: x, then y, then z; a zero
    coordinate counts as positive), as in Drake's ``ComputeDistanceToBox``.
    """
    C = p.copy()
    outside = False
    boundary = []
    for i in range(len(h)):
        tol = distance_tolerance(float(h[i]))
        a = abs(float(p[i]))
        if a > h[i] + tol:
            outside = True
            C[i] = _sign(float(p[i])) * h[i]
        elif a >= h[i] - tol:
            boundary.append(i)
            C[i] = _sign(float(p[i])) * h[i]
    grad = np.zeros(len(h))
    if outside:
        diff = p - C
        dist = float(np.linalg.norm(diff))
        return dist, C, diff / dist
    if boundary:
        for i in boundary:
            grad[i] = _sign(float(C[i]))
        grad /= float(np.linalg.norm(grad))
        return float(grad @ (p - C)), C, grad
    axis = int(np.argmax(np.abs(p) - h))
    sign = _sign(float(p[axis]))
    C[axis] = sign * h[axis]
    grad[axis] = sign
    return float(grad @ (p - C)), C, grad


def sphere_sdf(radius: float, p: FloatArray) -> PointDistance:
    """Drake's sphere distance: gradient ``p/|p|``, or +x within the tolerance of the centre."""
    n = float(np.linalg.norm(p))
    u = p / n if n > distance_tolerance(radius) else np.array([1.0, 0.0, 0.0])
    N = radius * u
    return float((p - N) @ u), N, u


def disc_radial_extent(z: FloatArray) -> FloatArray:
    """``sqrt(1 - z_i²)`` (clipped): the half extent along axis i of a unit disc of normal z."""
    out: FloatArray = np.sqrt(np.clip(1.0 - z * z, 0.0, None))
    return out


def trimesh_arrays(mesh: Any) -> MeshArrays:
    """``(vertices float64, faces int64)`` of a ``trimesh.Trimesh``."""
    return (np.asarray(mesh.vertices, dtype=np.float64),
            np.asarray(mesh.faces, dtype=np.int64))
