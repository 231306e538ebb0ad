"""Boxes: ``Box(x, y, z)``, axis-aligned and centred at the origin, ``x, y, z`` full edges [m].

All of the kind's math: the local bounding box and support point, the bounding radius, the
point signed distance (Drake's ``ComputeDistanceToBox``), the posed bounding box (exact under
any rotation), padding (every edge ``·s + 2p``: each face moves out by exactly ``p``), and the
numbers of its other forms: fcl's ``Box`` (full edges), a trimesh box for drawing, RViz's CUBE
(full edges), URDF's ``<box size>``, MoveIt's ``SolidPrimitive.BOX`` ``(x, y, z)`` and the
``.scene`` ``box x y z``.
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
URDF_ELEMENT: str | None = 'box'
RVIZ_CUBE = 1
'''``visualization_msgs/Marker.CUBE``.'''
SOLID_PRIMITIVE: int | None = 1
'''``shape_msgs/SolidPrimitive.BOX``; dimensions ``(BOX_X, BOX_Y, BOX_Z)``.'''
SOLID_PRIMITIVE_SIZE = 3
MOVEIT_SHAPE: str | None = 'box'
SCENE_FILE_FIELDS: tuple[str, ...] = ('size', 'size', 'size')


@dataclass(frozen=True, slots=True)
class Box:
    """Axis-aligned box centred at the origin; ``x, y, z`` are full edge lengths [m]."""

    x: float
    y: float
    z: float

    def __post_init__(self) -> None:
        check_lengths(self, 'x', 'y', 'z')


def local_aabb(shape: Box, vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)``: the box itself."""
    h = 0.5 * np.array([shape.x, shape.y, shape.z])
    return -h, h


def support(shape: Box, vertices: FloatArray | None = None) -> LocalSupport:
    """The corner in the direction's octant (``+h`` on axes where it is 0)."""
    hx, hy, hz = 0.5 * shape.x, 0.5 * shape.y, 0.5 * shape.z

    def local(x: float, y: float, z: float) -> Vec3:
        return (hx if x >= 0.0 else -hx, hy if y >= 0.0 else -hy, hz if z >= 0.0 else -hz)
    return local


def bounding_radius(shape: Box, vertices: FloatArray | None = None) -> float:
    """Half the diagonal [m]."""
    return 0.5 * math.sqrt(shape.x ** 2 + shape.y ** 2 + shape.z ** 2)


def point_signed_distance(shape: Box, p_GQ: FloatArray, mesh: Any = None) -> PointDistance:
    """Drake's box distance (:func:`~robot_state_core.geometry.shapes._common.box_sdf`)."""
    return box_sdf(0.5 * np.array([shape.x, shape.y, shape.z]), p_GQ)


def fcl_geometry(fcl: Any, shape: Box) -> Any:
    """``fcl.Box(x, y, z)`` (full edges)."""
    return fcl.Box(float(shape.x), float(shape.y), float(shape.z))


def padded(shape: Box, padding: float, scale: float) -> tuple[Box, FloatArray]:
    """Every full edge ``·s + 2p`` (sharp corners: a superset of the rounded offset body)."""
    p, s = padding, scale
    return Box(shape.x * s + 2 * p, shape.y * s + 2 * p, shape.z * s + 2 * p), np.eye(4)


def aabb_table(shapes: Sequence[Box]) -> FloatArray:
    """``(n, 3)`` half extents, for :func:`posed_aabbs`."""
    return np.array([(0.5 * s.x, 0.5 * s.y, 0.5 * s.z) for s in shapes],
                    dtype=np.float64).reshape(-1, 3)


def posed_aabbs(table: FloatArray, R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Exact boxes of posed boxes: the half extent along world axis i is ``Σ_j |R_ij| h_j``."""
    half = np.einsum('nij,nj->ni', np.abs(R), table)
    return p - half, p + half


def triangles(shape: Box) -> MeshArrays:
    """The trimesh box (12 triangles)."""
    import trimesh
    return trimesh_arrays(trimesh.creation.box(extents=(shape.x, shape.y, shape.z)))


def rviz_markers(shape: Box) -> list[tuple[int, Vec3, float | None, str]]:
    """One CUBE of the full edges."""
    return [(RVIZ_CUBE, (shape.x, shape.y, shape.z), None, '')]


def urdf_attributes(shape: Box) -> dict[str, str | tuple[float, ...]]:
    """``<box size="x y z">``."""
    return {'size': (shape.x, shape.y, shape.z)}


def solid_primitive_dimensions(shape: Box) -> list[float]:
    """``[x, y, z]``."""
    return [shape.x, shape.y, shape.z]


def from_solid_primitive(d: Sequence[float]) -> Box:
    """The box of ``SolidPrimitive`` dimensions ``[x, y, z]``."""
    return Box(d[0], d[1], d[2])


def scene_file_numbers(shape: Box) -> list[float]:
    """``x y z``."""
    return [shape.x, shape.y, shape.z]


def from_scene_file(numbers: Sequence[float]) -> Box:
    """The box of ``x y z``."""
    return Box(*numbers)
