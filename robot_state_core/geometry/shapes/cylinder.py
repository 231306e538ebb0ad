"""Cylinders: ``Cylinder(radius, length)`` along z, centred at the origin, ``length`` full.

All of the kind's math: the local bounding box and support point (a point on an end disc's
rim), the bounding radius, the point signed distance (Drake's: the 2-D box of the cross section
through the point), the posed bounding box (an end disc swept along the axis), padding
(``radius·s + p``, ``length·s + 2p``: caps and mantle move out by exactly ``p``) and the numbers
of its other forms: fcl's ``Cylinder``, a trimesh cylinder for drawing (32 sections), RViz's
CYLINDER (diameters, height), URDF's ``<cylinder radius length>``, MoveIt's
``SolidPrimitive.CYLINDER`` ``(CYLINDER_HEIGHT, CYLINDER_RADIUS)`` and the ``.scene``
``cylinder r l``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.geometry.shapes._common import (
    box_sdf,
    check_lengths,
    disc_radial_extent,
    distance_tolerance,
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
URDF_ELEMENT: str | None = 'cylinder'
RVIZ_CYLINDER = 3
'''``visualization_msgs/Marker.CYLINDER``.'''
SOLID_PRIMITIVE: int | None = 3
'''``shape_msgs/SolidPrimitive.CYLINDER``; dimensions ``(CYLINDER_HEIGHT, CYLINDER_RADIUS)``.'''
SOLID_PRIMITIVE_SIZE = 2
MOVEIT_SHAPE: str | None = 'cylinder'
SCENE_FILE_FIELDS: tuple[str, ...] = ('radius', 'length')


@dataclass(frozen=True, slots=True)
class Cylinder:
    """Cylinder along z, centred at the origin; ``length`` is the full height [m]."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        check_lengths(self, 'radius', 'length')


def local_aabb(shape: Cylinder,
               vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)``: ``∓(r, r, l/2)``."""
    h = np.array([shape.radius, shape.radius, 0.5 * shape.length])
    return -h, h


def support(shape: Cylinder, vertices: FloatArray | None = None) -> LocalSupport:
    """A point on the rim of the end disc (its centre for a direction along the axis)."""
    r, half = float(shape.radius), 0.5 * float(shape.length)

    def local(x: float, y: float, z: float) -> Vec3:
        rho = math.hypot(x, y)
        zc = half if z >= 0.0 else -half
        return (r * x / rho, r * y / rho, zc) if rho > 0.0 else (0.0, 0.0, zc)
    return local


def bounding_radius(shape: Cylinder, vertices: FloatArray | None = None) -> float:
    """The distance from the centre to the rims [m]."""
    return math.hypot(shape.radius, 0.5 * shape.length)


def point_signed_distance(shape: Cylinder, p_GQ: FloatArray,
                          mesh: Any = None) -> PointDistance:
    """Drake's cylinder distance: the 2-D box of the cross section through Q."""
    p = p_GQ
    rho = math.hypot(p[0], p[1])
    e_r = np.array([1.0, 0.0, 0.0]) if rho < distance_tolerance(shape.radius) else \
        np.array([p[0] / rho, p[1] / rho, 0.0])
    _, N2, g2 = box_sdf(np.array([shape.radius, 0.5 * shape.length]), np.array([rho, p[2]]))
    p_GN = N2[0] * e_r + np.array([0.0, 0.0, N2[1]])
    grad = g2[0] * e_r + np.array([0.0, 0.0, g2[1]])
    return float(grad @ (p - p_GN)), p_GN, grad


def fcl_geometry(fcl: Any, shape: Cylinder) -> Any:
    """``fcl.Cylinder(radius, length)``."""
    return fcl.Cylinder(float(shape.radius), float(shape.length))


def padded(shape: Cylinder, padding: float, scale: float) -> tuple[Cylinder, FloatArray]:
    """``radius·s + p``, ``length·s + 2p``."""
    p, s = padding, scale
    return Cylinder(shape.radius * s + p, shape.length * s + 2 * p), np.eye(4)


def aabb_table(shapes: Sequence[Cylinder]) -> FloatArray:
    """``(n, 2)`` half lengths and radii, for :func:`posed_aabbs`."""
    return np.array([(0.5 * s.length, s.radius) for s in shapes],
                    dtype=np.float64).reshape(-1, 2)


def posed_aabbs(table: FloatArray, R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Exact: a disc of normal ``z_W`` has the half extent ``r √(1 - z_i²)`` along axis i."""
    z = R[:, :, 2]
    radial = disc_radial_extent(z) * table[:, 1, None]
    half = np.abs(z) * table[:, 0, None] + radial
    return p - half, p + half


def triangles(shape: Cylinder) -> MeshArrays:
    """The trimesh cylinder, 32 sections."""
    import trimesh
    return trimesh_arrays(trimesh.creation.cylinder(radius=shape.radius, height=shape.length,
                                                    sections=32))


def rviz_markers(shape: Cylinder) -> list[tuple[int, Vec3, float | None, str]]:
    """One CYLINDER: diameter, diameter, height."""
    d = 2.0 * shape.radius
    return [(RVIZ_CYLINDER, (d, d, shape.length), None, '')]


def urdf_attributes(shape: Cylinder) -> dict[str, str | tuple[float, ...]]:
    """``<cylinder radius="r" length="l">``."""
    return {'radius': (shape.radius,), 'length': (shape.length,)}


def solid_primitive_dimensions(shape: Cylinder) -> list[float]:
    """``[length, radius]`` (``CYLINDER_HEIGHT`` = 0, ``CYLINDER_RADIUS`` = 1)."""
    return [shape.length, shape.radius]


def from_solid_primitive(d: Sequence[float]) -> Cylinder:
    """The cylinder of ``SolidPrimitive`` dimensions ``[height, radius]``."""
    return Cylinder(radius=d[1], length=d[0])


def scene_file_numbers(shape: Cylinder) -> list[float]:
    """``r l``."""
    return [shape.radius, shape.length]


def from_scene_file(numbers: Sequence[float]) -> Cylinder:
    """The cylinder of ``r l``."""
    radius, length = numbers
    return Cylinder(radius, length)
