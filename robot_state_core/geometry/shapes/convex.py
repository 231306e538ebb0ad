"""Convex hulls: ``Convex(uri, scale, path)``, the convex hull of a mesh file (a solid).

All of the kind's math: the hull the backends use (:func:`read_triangles`: the numpy
quickhull of the scaled file, outward triangles, shared through the mesh store), the bounds of
its vertices, the point signed distance (face planes inside, the nearest triangle outside),
padding (scaled about the centre of the mesh's bounding box), fcl's ``Convex`` (shared per file
and scale; a new hull for moved vertices) and the numbers of its other forms: the hull's
triangles for drawing and RViz's MESH_RESOURCE (the file and scale). URDF, MoveIt's messages and
the ``.scene`` format have no convex hull.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray, Int64Array
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import _mesh_file
from robot_state_core.geometry.shapes._common import MeshArrays, PointDistance
from robot_state_core.geometry.triangles import closest_point_on_triangles, TriangleMesh

BOUNDED = True
CONVEX = True
MESH_FILE = True
SWEPT = False
BALL = False
URDF_ELEMENT: str | None = None
SOLID_PRIMITIVE: int | None = None
MOVEIT_SHAPE: str | None = None
FCL_BYTES_PER_FACE = 16 + 24 + 8
'''Estimated size of an ``fcl.Convex`` per face (its faces and normals; the mesh store).'''


@dataclass(frozen=True, slots=True)
class Convex:
    """The convex hull of a mesh file (same fields as :class:`Mesh`)."""

    uri: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    path: str | None = None
    problem: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        _mesh_file.check_mesh(self)


local_aabb = _mesh_file.local_aabb
support = _mesh_file.support
bounding_radius = _mesh_file.bounding_radius
padded = _mesh_file.padded
rviz_markers = _mesh_file.rviz_markers


def read_triangles(shape: Convex) -> MeshArrays:
    """The hull of the scaled file (:func:`~meshes.mesh_hull`, cached, read-only).

    Raises:
        RobotStateCoreError: The mesh is unresolved, missing or unreadable, or its scale or
            hull is unusable (the subclass of the underlying reader).
    """
    return meshes.mesh_hull(*meshes.cache_key(shape))


def triangles(shape: Convex) -> MeshArrays:
    """The hull's triangles, for drawing (:func:`read_triangles`)."""
    return read_triangles(shape)


def point_signed_distance(shape: Convex, p_GQ: FloatArray,
                          mesh: TriangleMesh | None = None) -> PointDistance:
    """Exact: the nearest face plane inside, the nearest triangle outside."""
    m = _mesh_file.need_mesh(shape, mesh)
    p = p_GQ
    dist, p_GN, face = closest_point_on_triangles(p, m.soup)
    normals, offsets = meshes.hull_planes(m.vertices, m.faces)
    s = normals @ p - offsets
    k = int(np.argmax(s))
    if s[k] <= 0.0:
        return float(s[k]), p - s[k] * normals[k], normals[k]
    return _mesh_file.surface_distance(p, m, dist, p_GN, face, False)


def fcl_from_arrays(fcl: Any, vertices: FloatArray, faces: Int64Array) -> Any:
    """An ``fcl.Convex`` of the hull (outward triangles: fcl walks their edges)."""
    flat = np.column_stack([np.full(len(faces), 3), faces]).ravel().tolist()
    return fcl.Convex(vertices, len(faces), flat)


def fcl_geometry(fcl: Any, shape: Convex) -> Any:
    """The hull's ``fcl.Convex``, shared per file and scale (the mesh store)."""
    return _mesh_file.shared_fcl_geometry(fcl, shape, meshes.mesh_hull, fcl_from_arrays,
                                          FCL_BYTES_PER_FACE)


def fcl_with_vertices(fcl: Any, vertices: FloatArray, old_vertices: FloatArray,
                      faces: Int64Array, where: str) -> tuple[Any, FloatArray, Int64Array]:
    """A private ``fcl.Convex`` of the hull of moved vertices (any count).

    Raises:
        InvalidArgumentError: Not a finite ``(V, 3)`` array.
    """
    _mesh_file.check_vertices(vertices, where)
    v, f = meshes.convex_hull(vertices)
    return fcl_from_arrays(fcl, v, f), v, f
