"""Capsules: ``Capsule(radius, length)``, a cylinder of ``length`` along z plus hemispherical caps.

All of the kind's math: a ball around a segment core (:func:`swept_core`: GJK/EPA run on the
segment and add the radius), the local bounding box and support point (an end cap centre plus
the ball's support point), the point signed distance (Drake's: an end cap's sphere, or the
spine's cross section), the posed bounding box (a ball swept along the axis), padding
(``radius·s + p``, ``length·s``: the exact offset surface) and the numbers of its other forms:
fcl's ``Capsule``, a trimesh capsule for drawing, RViz markers (a CYLINDER and two SPHEREs)
and URDF's ``<capsule radius length>`` (our extension, as Drake and Gazebo read it). MoveIt's
``SolidPrimitive`` and the ``.scene`` format have no capsule.
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
BALL = False
URDF_ELEMENT: str | None = 'capsule'
RVIZ_SPHERE = 2
'''``visualization_msgs/Marker.SPHERE``.'''
RVIZ_CYLINDER = 3
'''``visualization_msgs/Marker.CYLINDER``.'''
SOLID_PRIMITIVE: int | None = None
MOVEIT_SHAPE: str | None = None


@dataclass(frozen=True, slots=True)
class Capsule:
    """Capsule along z (cylinder of ``length`` plus hemispherical caps), centred at origin."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        check_lengths(self, 'radius', 'length')


def swept_core(shape: Capsule) -> tuple[float, float]:
    """``(half length, radius)`` of the ball-swept core: the segment ``z ∈ [-l/2, l/2]``."""
    return 0.5 * float(shape.length), float(shape.radius)


def local_aabb(shape: Capsule,
               vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)``: ``∓(r, r, l/2 + r)``."""
    h = np.array([shape.radius, shape.radius, 0.5 * shape.length + shape.radius])
    return -h, h


def support(shape: Capsule, vertices: FloatArray | None = None) -> LocalSupport:
    """The end-cap centre plus the sphere's support point."""
    r, half = float(shape.radius), 0.5 * float(shape.length)

    def local(x: float, y: float, z: float) -> Vec3:
        n = math.sqrt(x * x + y * y + z * z)
        zc = half if z >= 0.0 else -half
        return (r * x / n, r * y / n, zc + r * z / n) if n > 0.0 else (0.0, 0.0, zc)
    return local


def bounding_radius(shape: Capsule, vertices: FloatArray | None = None) -> float:
    """``l/2 + r`` [m]."""
    half, radius = swept_core(shape)
    return radius + half


def point_signed_distance(shape: Capsule, p_GQ: FloatArray, mesh: Any = None) -> PointDistance:
    """Drake's capsule distance: an end cap's sphere, or the spine's cross section."""
    p = p_GQ
    half = 0.5 * shape.length
    if abs(p[2]) >= half:
        c = np.array([0.0, 0.0, half if p[2] >= half else -half])
        dist, N, u = sphere_sdf(float(shape.radius), p - c)
        return dist, c + N, u
    dist, N, u = sphere_sdf(float(shape.radius), np.array([p[0], p[1], 0.0]))
    return dist, np.array([N[0], N[1], p[2]]), u


def fcl_geometry(fcl: Any, shape: Capsule) -> Any:
    """``fcl.Capsule(radius, length)`` (``length`` between the cap centres; 0 is a ball)."""
    return fcl.Capsule(float(shape.radius), float(shape.length))


def padded(shape: Capsule, padding: float, scale: float) -> tuple[Capsule, FloatArray]:
    """``radius·s + p``, ``length·s``."""
    return Capsule(shape.radius * scale + padding, shape.length * scale), np.eye(4)


def aabb_table(shapes: Sequence[Capsule]) -> FloatArray:
    """``(n, 2)`` half lengths and radii, for :func:`posed_aabbs`."""
    return np.array([(0.5 * s.length, s.radius) for s in shapes],
                    dtype=np.float64).reshape(-1, 2)


def posed_aabbs(table: FloatArray, R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Exact: the segment's extent ``|z_i| l/2`` plus the ball's radius."""
    z = R[:, :, 2]
    half = np.abs(z) * table[:, 0, None] + table[:, 1, None]
    return p - half, p + half


def triangles(shape: Capsule) -> MeshArrays:
    """The trimesh capsule (its ``height`` is the distance between the cap centres)."""
    import trimesh
    return trimesh_arrays(trimesh.creation.capsule(height=shape.length, radius=shape.radius,
                                                   count=(32, 32)))


def rviz_markers(shape: Capsule) -> list[tuple[int, Vec3, float | None, str]]:
    """A CYLINDER and a SPHERE at each end (RViz has no capsule)."""
    d = 2.0 * shape.radius
    half = 0.5 * shape.length
    return [(RVIZ_CYLINDER, (d, d, shape.length), None, ''),
            (RVIZ_SPHERE, (d, d, d), half, ''),
            (RVIZ_SPHERE, (d, d, d), -half, '')]


def urdf_attributes(shape: Capsule) -> dict[str, str | tuple[float, ...]]:
    """``<capsule radius="r" length="l">``."""
    return {'radius': (shape.radius,), 'length': (shape.length,)}
