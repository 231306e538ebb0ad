"""Half-spaces: ``HalfSpace()``, the solid ``z <= 0`` of its frame (boundary plane z = 0).

All of the kind's math: it is unbounded (no support point, no bounding radius; its local box
is infinite below and beside the plane, ``hi_z = 0``), its point signed distance is ``z``,
padding moves the plane out by ``p`` along +z (scale does not apply), and the numbers of its
other forms: fcl's ``Halfspace(n = (0, 0, 1), d = 0)`` and a square of
:data:`DRAWN_SIZE` on the plane for drawing. RViz, URDF, MoveIt's ``SolidPrimitive`` and the
``.scene`` format have none (MoveIt's planes are refused, decision PS4).
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.geometry.shapes._common import MeshArrays, PointDistance, translation, Vec3

BOUNDED = False
CONVEX = True
MESH_FILE = False
SWEPT = False
BALL = False
URDF_ELEMENT: str | None = None
SOLID_PRIMITIVE: int | None = None
MOVEIT_SHAPE: str | None = None
DRAWN_SIZE = 4.0
'''Edge [m] of the square drawn for a half-space (on its boundary plane z = 0).'''


@dataclass(frozen=True, slots=True)
class HalfSpace:
    """The half-space ``z <= 0`` of the geometry frame (its boundary plane is z = 0)."""


def local_aabb(shape: HalfSpace,
               vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(-inf, -inf, -inf)``, ``(inf, inf, 0)``."""
    return np.full(3, -math.inf), np.array([math.inf, math.inf, 0.0])


def point_signed_distance(shape: HalfSpace, p_GQ: FloatArray,
                          mesh: Any = None) -> PointDistance:
    """``z``, the nearest point below Q on the plane, gradient +z."""
    p = p_GQ
    return float(p[2]), np.array([p[0], p[1], 0.0]), np.array([0.0, 0.0, 1.0])


def fcl_geometry(fcl: Any, shape: HalfSpace) -> Any:
    """``fcl.Halfspace((0, 0, 1), 0)``: ``n·p <= d``, i.e. ``z <= 0``."""
    return fcl.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)


def padded(shape: HalfSpace, padding: float, scale: float) -> tuple[HalfSpace, FloatArray]:
    """The same half-space, its frame moved by ``p`` along +z."""
    return shape, translation((0.0, 0.0, padding))


def triangles(shape: HalfSpace) -> MeshArrays:
    """A square of :data:`DRAWN_SIZE` on the boundary plane (two triangles, facing +z)."""
    h = 0.5 * DRAWN_SIZE
    v = np.array([[-h, -h, 0.0], [h, -h, 0.0], [h, h, 0.0], [-h, h, 0.0]])
    return v, np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int64)


def rviz_markers(shape: HalfSpace) -> list[tuple[int, Vec3, float | None, str]]:
    """None: RViz has no half-space."""
    return []
