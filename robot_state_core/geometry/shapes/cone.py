"""Cones: ``Cone(radius, length)`` along z, centred (fcl): base at ``-l/2``, apex at ``+l/2``.

All of the kind's math: the local bounding box and support point (the apex or a point on the
base rim), the bounding radius, the exact point signed distance (in the half-plane of the
profile through the point), the posed bounding box (the hull of the base disc and the apex),
padding (``radius·s + p``, ``length·s + 2p``: approximate, the slanted side moves out by less
than ``p`` near the apex) and the numbers of its other forms: fcl's ``Cone``, a trimesh cone for
drawing (32 sections, moved to be centred), MoveIt's ``SolidPrimitive.CONE``
``(CONE_HEIGHT, CONE_RADIUS)`` and the ``.scene`` ``cone r l``. RViz and URDF have no cone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.geometry.shapes._common import (
    check_lengths,
    disc_radial_extent,
    LocalSupport,
    MeshArrays,
    PointDistance,
    trimesh_arrays,
    Vec3,
)

BOUNDED = True
CONVEX = True
MESH_FILE = False
SWEPT = False
BALL = False
URDF_ELEMENT: str | None = None
SOLID_PRIMITIVE: int | None = 4
'''``shape_msgs/SolidPrimitive.CONE``; dimensions ``(CONE_HEIGHT, CONE_RADIUS)``.'''
SOLID_PRIMITIVE_SIZE = 2
MOVEIT_SHAPE: str | None = 'cone'
SCENE_FILE_FIELDS: tuple[str, ...] = ('radius', 'length')


@dataclass(frozen=True, slots=True)
class Cone:
    """Cone along z, centred at the origin (fcl convention), base radius ``radius``."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        check_lengths(self, 'radius', 'length')


def local_aabb(shape: Cone, vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)``: ``∓(r, r, l/2)``."""
    h = np.array([shape.radius, shape.radius, 0.5 * shape.length])
    return -h, h


def support(shape: Cone, vertices: FloatArray | None = None) -> LocalSupport:
    """The apex or a point on the base rim."""
    r, half = float(shape.radius), 0.5 * float(shape.length)

    def local(x: float, y: float, z: float) -> Vec3:
        rho = math.hypot(x, y)
        rim = (r * x / rho, r * y / rho, -half) if rho > 0.0 else (0.0, 0.0, -half)
        if z * half >= x * rim[0] + y * rim[1] - z * half:
            return (0.0, 0.0, half)
        return rim
    return local


def bounding_radius(shape: Cone, vertices: FloatArray | None = None) -> float:
    """The distance from the centre to the base rim [m] (the apex is at ``l/2``)."""
    return math.hypot(shape.radius, 0.5 * shape.length)


def point_signed_distance(shape: Cone, p_GQ: FloatArray, mesh: Any = None) -> PointDistance:
    """Exact: the nearest point of the profile (base and slant) in the half-plane through Q."""
    p = p_GQ
    rho, e_r = _radial(p)
    q = np.array([rho, p[2]])
    half, r = 0.5 * shape.length, shape.radius
    edges = [(np.array([0.0, -half]), np.array([r, -half])),
             (np.array([r, -half]), np.array([0.0, half]))]
    inside = p[2] >= -half and rho * shape.length <= r * (half - p[2])
    dist, N2 = _polygon2_sdf(edges, inside, q)
    p_GN = N2[0] * e_r + np.array([0.0, 0.0, N2[1]])
    diff = p - p_GN
    n = float(np.linalg.norm(diff))
    if not n > 0.0:  # on the surface: the outward normal(s) of the profile edge(s) there
        return dist, p_GN, _profile_normal(edges, N2, e_r)
    return dist, p_GN, (diff / n if not inside else -diff / n)


def fcl_geometry(fcl: Any, shape: Cone) -> Any:
    """``fcl.Cone(radius, length)`` (fcl's apex is at ``+length/2``)."""
    return fcl.Cone(float(shape.radius), float(shape.length))


def padded(shape: Cone, padding: float, scale: float) -> tuple[Cone, FloatArray]:
    """``radius·s + p``, ``length·s + 2p``."""
    p, s = padding, scale
    return Cone(shape.radius * s + p, shape.length * s + 2 * p), np.eye(4)


def aabb_table(shapes: Sequence[Cone]) -> FloatArray:
    """``(n, 2)`` half lengths and base radii, for :func:`posed_aabbs`."""
    return np.array([(0.5 * s.length, s.radius) for s in shapes],
                    dtype=np.float64).reshape(-1, 2)


def posed_aabbs(table: FloatArray, R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Exact: the hull of the base disc and the apex."""
    z = R[:, :, 2]
    h = table[:, 0, None]
    base, apex = p - h * z, p + h * z
    disc = disc_radial_extent(z) * table[:, 1, None]
    return np.minimum(base - disc, apex), np.maximum(base + disc, apex)


def triangles(shape: Cone) -> MeshArrays:
    """The trimesh cone (32 sections), moved down by ``l/2`` (trimesh's base is at z = 0)."""
    import trimesh
    v, f = trimesh_arrays(trimesh.creation.cone(radius=shape.radius, height=shape.length,
                                                sections=32))
    return v - np.array([0.0, 0.0, 0.5 * shape.length]), f


def rviz_markers(shape: Cone) -> list[tuple[int, Vec3, float | None, str]]:
    """None: RViz has no cone primitive."""
    return []


def solid_primitive_dimensions(shape: Cone) -> list[float]:
    """``[length, radius]`` (``CONE_HEIGHT`` = 0, ``CONE_RADIUS`` = 1)."""
    return [shape.length, shape.radius]


def from_solid_primitive(d: Sequence[float]) -> Cone:
    """The cone of ``SolidPrimitive`` dimensions ``[height, radius]``."""
    return Cone(radius=d[1], length=d[0])


def scene_file_numbers(shape: Cone) -> list[float]:
    """``r l``."""
    return [shape.radius, shape.length]


def from_scene_file(numbers: Sequence[float]) -> Cone:
    """The cone of ``r l``."""
    radius, length = numbers
    return Cone(radius, length)


def _radial(p: FloatArray) -> tuple[float, FloatArray]:
    """Distance from the z axis and the unit radial direction (x axis on the axis)."""
    rho = math.hypot(p[0], p[1])
    if rho > 0.0:
        return rho, np.array([p[0] / rho, p[1] / rho, 0.0])
    return 0.0, np.array([1.0, 0.0, 0.0])


def _segment_closest(a: FloatArray, b: FloatArray, p: FloatArray) -> FloatArray:
    ab = b - a
    length2 = float(ab @ ab)
    t = float(np.clip((p - a) @ ab / length2, 0.0, 1.0)) if length2 > 0.0 else 0.0  # a point
    out: FloatArray = a + t * ab
    return out


def _polygon2_sdf(edges: Sequence[tuple[FloatArray, FloatArray]], inside: bool,
                  q: FloatArray) -> tuple[float, FloatArray]:
    """Signed distance in the (rho, z) half-plane to a solid of revolution's profile edges."""
    best, N = math.inf, q
    for a, b in edges:
        c = _segment_closest(a, b, q)
        d = float(np.linalg.norm(q - c))
        if d < best:
            best, N = d, c
    return (-best if inside else best), N


def _profile_normal(edges: Sequence[tuple[FloatArray, FloatArray]], N2: FloatArray,
                    e_r: FloatArray) -> FloatArray:
    """Outward normal at a profile point: the normalized sum over the edges through it."""
    n2 = np.zeros(2)
    for a, b in edges:
        t = b - a
        length = float(np.linalg.norm(t))
        if length > 0.0 and np.linalg.norm(_segment_closest(a, b, N2) - N2) <= 1e-15:
            n2 += np.array([t[1], -t[0]]) / length  # outward for CCW order (a point: none)
    norm = float(np.linalg.norm(n2))
    if norm == 0.0:
        return e_r
    n2 /= norm
    out: FloatArray = n2[0] * e_r + np.array([0.0, 0.0, n2[1]])
    return out
