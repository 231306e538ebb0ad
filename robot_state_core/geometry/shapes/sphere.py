"""Spheres: ``Sphere(radius)``, centred at the origin.

All of the kind's math: a ball around a point core (:func:`swept_core`: GJK/EPA run on the
centre and add the radius, and the fcl backend corrects fcl's radius-weighted contact points
from the centre), the local bounding box and support point, the point signed distance (Drake's:
+x at the centre), the posed bounding box, padding (``radius·s + p``: the exact offset surface),
Drake's deformable sphere mesh (:func:`deformable_mesh`), and the numbers of its other forms:
fcl's ``Sphere``, a trimesh icosphere for drawing, RViz's SPHERE (diameters), URDF's
``<sphere radius>``, MoveIt's ``SolidPrimitive.SPHERE`` ``(radius,)`` and the ``.scene``
``sphere r``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.geometry.shapes._common import (
    check_lengths,
    LocalSupport,
    MeshArrays,
    PointDistance,
    sphere_sdf,
    trimesh_arrays,
    Vec3,
)

BOUNDED = True
CONVEX = True
MESH_FILE = False
SWEPT = True
BALL = True
URDF_ELEMENT: str | None = 'sphere'
RVIZ_SPHERE = 2
'''``visualization_msgs/Marker.SPHERE``.'''
SOLID_PRIMITIVE: int | None = 2
'''``shape_msgs/SolidPrimitive.SPHERE``; dimensions ``(SPHERE_RADIUS,)``.'''
SOLID_PRIMITIVE_SIZE = 1
MOVEIT_SHAPE: str | None = 'sphere'
SCENE_FILE_FIELDS: tuple[str, ...] = ('radius',)


@dataclass(frozen=True, slots=True)
class Sphere:
    """Sphere centred at the origin."""

    radius: float

    def __post_init__(self) -> None:
        check_lengths(self, 'radius')


def swept_core(shape: Sphere) -> tuple[float, float]:
    """``(half length, radius)`` of the ball-swept core: a point (half length 0)."""
    return 0.0, float(shape.radius)


def local_aabb(shape: Sphere,
               vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)``: the cube of half edge ``radius``."""
    h = np.full(3, float(shape.radius))
    return -h, h


def support(shape: Sphere, vertices: FloatArray | None = None) -> LocalSupport:
    """The surface point along the direction (``+z`` for the zero direction)."""
    r = float(shape.radius)

    def local(x: float, y: float, z: float) -> Vec3:
        n = math.sqrt(x * x + y * y + z * z)
        return (r * x / n, r * y / n, r * z / n) if n > 0.0 else (0.0, 0.0, r)
    return local


def bounding_radius(shape: Sphere, vertices: FloatArray | None = None) -> float:
    """The radius [m]."""
    return float(shape.radius)


def point_signed_distance(shape: Sphere, p_GQ: FloatArray, mesh: Any = None) -> PointDistance:
    """Drake's sphere distance (gradient +x within the tolerance of the centre)."""
    return sphere_sdf(float(shape.radius), p_GQ)


def fcl_geometry(fcl: Any, shape: Sphere) -> Any:
    """``fcl.Sphere(radius)``."""
    return fcl.Sphere(float(shape.radius))


def padded(shape: Sphere, padding: float, scale: float) -> tuple[Sphere, FloatArray]:
    """``radius·s + p`` (the exact offset surface)."""
    return Sphere(shape.radius * scale + padding), np.eye(4)


def aabb_table(shapes: Sequence[Sphere]) -> FloatArray:
    """``(n,)`` radii, for :func:`posed_aabbs`."""
    return np.array([s.radius for s in shapes], dtype=np.float64)


def posed_aabbs(table: FloatArray, R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``p ± r`` (rotation does not matter)."""
    r = table[:, None]
    return p - r, p + r


def triangles(shape: Sphere) -> MeshArrays:
    """The trimesh icosphere, 3 subdivisions (1280 triangles)."""
    import trimesh
    return trimesh_arrays(trimesh.creation.icosphere(subdivisions=3, radius=shape.radius))


def rviz_markers(shape: Sphere) -> list[tuple[int, Vec3, float | None, str]]:
    """One SPHERE of the diameter."""
    d = 2.0 * shape.radius
    return [(RVIZ_SPHERE, (d, d, d), None, '')]


def urdf_attributes(shape: Sphere) -> dict[str, str | tuple[float, ...]]:
    """``<sphere radius="r">``."""
    return {'radius': (shape.radius,)}


def solid_primitive_dimensions(shape: Sphere) -> list[float]:
    """``[radius]``."""
    return [shape.radius]


def from_solid_primitive(d: Sequence[float]) -> Sphere:
    """The sphere of ``SolidPrimitive`` dimensions ``[radius]``."""
    return Sphere(d[0])


def scene_file_numbers(shape: Sphere) -> list[float]:
    """``r``."""
    return [shape.radius]


def from_scene_file(numbers: Sequence[float]) -> Sphere:
    """The sphere of ``r``."""
    return Sphere(*numbers)


def _midpoint_on_sphere(points: list[tuple[float, float, float]],
                        midpoint: dict[tuple[int, int], int], i: int, j: int) -> int:
    """Index of the unit-sphere point above the midpoint of edge ``ij`` (added once)."""
    key = (min(i, j), max(i, j))
    if key not in midpoint:
        x, y, z = (0.5 * (a + b) for a, b in zip(points[i], points[j], strict=True))
        n = math.sqrt(x * x + y * y + z * z)
        points.append((x / n, y / n, z / n))
        midpoint[key] = len(points) - 1
    return midpoint[key]


def deformable_mesh(shape: Sphere, resolution_hint: float,
                    where: str = '') -> tuple[FloatArray, IntArray]:
    """Drake's deformable sphere mesh (``MakeSphereVolumeMesh``), its surface triangles.

    An octahedron with its corners on the sphere, each triangle split into four (edge midpoints
    pushed out to the sphere) ``L`` times, where ``L`` is the smallest level whose equator
    chords are at most ``resolution_hint``: ``L = ceil(log2(pi / asin(e / 2r))) - 2`` with
    ``e = min(hint, 2r)``, clamped to ``[0, 8]`` (Drake's cap). Level 0 is the octahedron.

    Returns:
        ``(V, 3)`` vertices [m] in the sphere's frame and ``(T, 3)`` outward triangles.
    """
    radius = float(shape.radius)
    edge = min(resolution_hint, 2.0 * radius)
    level = max(0, math.ceil(math.log2(math.pi / math.asin(edge / (2.0 * radius)))) - 2)
    level = min(level, 8)
    points: list[tuple[float, float, float]] = [
        (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0),
        (0.0, 0.0, 1.0), (0.0, 0.0, -1.0)]
    tris = [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4),
            (1, 0, 5), (2, 1, 5), (3, 2, 5), (0, 3, 5)]
    for _ in range(level):
        midpoint: dict[tuple[int, int], int] = {}
        finer = []
        for a, b, c in tris:
            ab, bc, ca = (_midpoint_on_sphere(points, midpoint, i, j)
                          for i, j in ((a, b), (b, c), (c, a)))
            finer += [(a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca)]
        tris = finer
    return radius * np.array(points), np.array(tris, dtype=np.intp)
