"""Ellipsoids: ``Ellipsoid(a, b, c)``, the solid ``(x/a)² + (y/b)² + (z/c)² <= 1`` (Drake's).

All of the kind's math: the local bounding box and support point (``D² d / |D d|``), the
bounding radius, the exact point signed distance (nearest point by Eberly's bisection), the
posed bounding box (the half extent along axis i is ``|row i of R diag(a)|``), padding (every
semi-axis ``·s + p``: exact on the axes, a little less than ``p`` between them) and the numbers
of its other forms: fcl's ``Ellipsoid`` (semi-axes), a scaled trimesh icosphere for drawing and
RViz's SPHERE scaled per axis (diameters). Neither URDF, MoveIt's ``SolidPrimitive`` nor the
``.scene`` format has an ellipsoid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.shapes._common import (
    check_lengths,
    LocalSupport,
    MeshArrays,
    PointDistance,
    Vec3,
)

BOUNDED = True
CONVEX = True
MESH_FILE = False
SWEPT = False
BALL = False
URDF_ELEMENT: str | None = None
RVIZ_SPHERE = 2
'''``visualization_msgs/Marker.SPHERE`` (RViz draws it scaled per axis as an ellipsoid).'''
SOLID_PRIMITIVE: int | None = None
MOVEIT_SHAPE: str | None = None


@dataclass(frozen=True, slots=True)
class Ellipsoid:
    """Solid ellipsoid ``(x/a)^2 + (y/b)^2 + (z/c)^2 <= 1`` centred at the origin (Drake's).

    Attributes:
        a: Semi-axis along x [m].
        b: Semi-axis along y [m].
        c: Semi-axis along z [m].
    """

    a: float
    b: float
    c: float

    def __post_init__(self) -> None:
        check_lengths(self, 'a', 'b', 'c')
        if min(self.a, self.b, self.c) <= 0.0:  # Drake's rule (an ellipsoid is not URDF)
            raise InvalidArgumentError(
                f'Ellipsoid: the semi-axes a, b and c must all be > 0, got ({self.a!r}, '
                f'{self.b!r}, {self.c!r})')


def local_aabb(shape: Ellipsoid,
               vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)``: ``∓(a, b, c)``."""
    h = np.array([shape.a, shape.b, shape.c], dtype=np.float64)
    return -h, h


def support(shape: Ellipsoid, vertices: FloatArray | None = None) -> LocalSupport:
    """Maximizes ``d·p`` on ``p = D u``, ``|u| = 1``: ``u = D d / |D d|`` (``+c z`` for 0)."""
    a, b, c = float(shape.a), float(shape.b), float(shape.c)

    def local(x: float, y: float, z: float) -> Vec3:
        n = math.sqrt((a * x) ** 2 + (b * y) ** 2 + (c * z) ** 2)
        return (a * a * x / n, b * b * y / n, c * c * z / n) if n > 0.0 else (0.0, 0.0, c)
    return local


def bounding_radius(shape: Ellipsoid, vertices: FloatArray | None = None) -> float:
    """The largest semi-axis [m]."""
    return float(max(shape.a, shape.b, shape.c))


def point_signed_distance(shape: Ellipsoid, p_GQ: FloatArray,
                          mesh: Any = None) -> PointDistance:
    """Exact signed distance (nearest point by Eberly's bisection)."""
    return _ellipsoid_sdf(np.array([shape.a, shape.b, shape.c], dtype=np.float64), p_GQ)


def fcl_geometry(fcl: Any, shape: Ellipsoid) -> Any:
    """``fcl.Ellipsoid(a, b, c)`` (semi-axes)."""
    return fcl.Ellipsoid(float(shape.a), float(shape.b), float(shape.c))


def padded(shape: Ellipsoid, padding: float, scale: float) -> tuple[Ellipsoid, FloatArray]:
    """Every semi-axis ``·s + p``."""
    p, s = padding, scale
    return Ellipsoid(shape.a * s + p, shape.b * s + p, shape.c * s + p), np.eye(4)


def aabb_table(shapes: Sequence[Ellipsoid]) -> FloatArray:
    """``(n, 3)`` semi-axes, for :func:`posed_aabbs`."""
    return np.array([(s.a, s.b, s.c) for s in shapes], dtype=np.float64).reshape(-1, 3)


def posed_aabbs(table: FloatArray, R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Exact: ``R diag(a) B``, the half extent along axis i is ``|row i of R diag(a)|``."""
    half = np.sqrt(np.einsum('nij,nj->ni', R ** 2, table ** 2))
    return p - half, p + half


def triangles(shape: Ellipsoid) -> MeshArrays:
    """A unit icosphere (3 subdivisions) scaled by the semi-axes."""
    import trimesh
    sphere = trimesh.creation.icosphere(subdivisions=3, radius=1.0)
    v = np.asarray(sphere.vertices, dtype=np.float64) * np.array([shape.a, shape.b, shape.c],
                                                                    dtype=np.float64)
    return v, np.asarray(sphere.faces, dtype=np.int64)


def rviz_markers(shape: Ellipsoid) -> list[tuple[int, Vec3, float | None, str]]:
    """One SPHERE with the three diameters."""
    return [(RVIZ_SPHERE, (2.0 * shape.a, 2.0 * shape.b, 2.0 * shape.c), None, '')]


def _eberly_root(ratios: tuple[float, ...], z: tuple[float, ...], g: float) -> float:
    """Root ``s`` of ``sum_i (r_i z_i / (s + r_i))^2 + (z_k / (s + 1))^2 = 1`` (Eberly 2013).

    ``ratios`` are the ``r_i`` of the first ``k`` axes (1 or 2: ellipse or ellipsoid), ``z`` the
    ``k + 1`` scaled coordinates. The left side decreases in ``s`` on the bracket
    ``[z_k - 1, |(r_i z_i, z_k)| - 1]`` (upper end 0 for a point inside, ``g < 0``), so halving it
    until the midpoint repeats ends in at most ~1100 steps.
    """
    n = tuple(r * zi for r, zi in zip(ratios, z, strict=False))
    zk = z[-1]
    s0, s1 = zk - 1.0, (0.0 if g < 0.0 else math.hypot(*n, zk) - 1.0)
    s = s0
    for _ in range(1200):
        s = 0.5 * (s0 + s1)
        if s in (s0, s1):
            break
        value = (n[0] / (s + ratios[0])) ** 2
        for ni, ri in zip(n[1:], ratios[1:], strict=True):
            value += (ni / (s + ri)) ** 2
        value = value + (zk / (s + 1.0)) ** 2 - 1.0
        if value > 0.0:
            s0 = s
        elif value < 0.0:
            s1 = s
        else:
            break
    return s


def _ellipse_nearest(e0: float, e1: float, y0: float, y1: float) -> tuple[float, float]:
    """Nearest point of the ellipse ``(x0/e0)^2 + (x1/e1)^2 = 1`` to ``(y0, y1)``.

    Requires ``e0 >= e1 > 0`` and ``y0, y1 >= 0`` (first quadrant); Eberly (2013), for points
    inside or outside.
    """
    if y1 > 0.0:
        if y0 > 0.0:
            z0, z1 = y0 / e0, y1 / e1
            g = z0 * z0 + z1 * z1 - 1.0
            if g == 0.0:
                return y0, y1
            r0 = (e0 / e1) ** 2
            s = _eberly_root((r0,), (z0, z1), g)
            return r0 * y0 / (s + r0), y1 / (s + 1.0)
        return 0.0, e1
    numer, denom = e0 * y0, e0 * e0 - e1 * e1
    if numer < denom:  # on the major axis, inside the evolute: off-axis nearest point
        t = numer / denom
        return e0 * t, e1 * math.sqrt(max(0.0, 1.0 - t * t))
    return e0, 0.0


def _ellipsoid_nearest(e: FloatArray, y: FloatArray) -> FloatArray:
    """Nearest point of the ellipsoid with semi-axes ``e`` (sorted descending) to ``y >= 0``."""
    e0, e1, e2 = (float(v) for v in e)
    y0, y1, y2 = (float(v) for v in y)
    if y2 > 0.0:
        if y1 > 0.0:
            if y0 > 0.0:
                z = (y0 / e0, y1 / e1, y2 / e2)
                g = z[0] ** 2 + z[1] ** 2 + z[2] ** 2 - 1.0
                if g == 0.0:
                    return np.array([y0, y1, y2])
                r0, r1 = (e0 / e2) ** 2, (e1 / e2) ** 2
                s = _eberly_root((r0, r1), z, g)
                return np.array([r0 * y0 / (s + r0), r1 * y1 / (s + r1), y2 / (s + 1.0)])
            x1, x2 = _ellipse_nearest(e1, e2, y1, y2)
            return np.array([0.0, x1, x2])
        if y0 > 0.0:
            x0, x2 = _ellipse_nearest(e0, e2, y0, y2)
            return np.array([x0, 0.0, x2])
        return np.array([0.0, 0.0, e2])
    d0, d1 = e0 * e0 - e2 * e2, e1 * e1 - e2 * e2
    n0, n1 = e0 * y0, e1 * y1
    if n0 < d0 and n1 < d1:  # in the plane of the two larger axes, inside the evolute
        t0, t1 = n0 / d0, n1 / d1
        discr = 1.0 - t0 * t0 - t1 * t1
        if discr > 0.0:
            return np.array([e0 * t0, e1 * t1, e2 * math.sqrt(discr)])
    x0, x1 = _ellipse_nearest(e0, e1, y0, y1)
    return np.array([x0, x1, 0.0])


def _ellipsoid_sdf(axes: FloatArray, p: FloatArray) -> PointDistance:
    """Exact signed distance to an ellipsoid (nearest point by Eberly's bisection)."""
    sign = np.where(p < 0.0, -1.0, 1.0)
    order = np.argsort(-axes, kind='stable')
    x = np.empty(3)
    x[order] = _ellipsoid_nearest(axes[order], np.abs(p)[order])
    N = sign * x
    diff = p - N
    dist = float(np.linalg.norm(diff))
    inside = float(np.sum((p / axes) ** 2)) < 1.0
    if dist > 0.0:
        grad = -diff / dist if inside else diff / dist
    else:  # on the surface: the outward normal there
        n = N / (axes * axes)
        grad = n / float(np.linalg.norm(n))
    return (-dist if inside else dist), N, grad
