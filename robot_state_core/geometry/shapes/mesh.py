"""Triangle meshes: ``Mesh(uri, scale, path)``, a mesh file's triangles (a surface).

All of the kind's math: the triangles the backends use (:func:`read_triangles`: the scaled,
welded file, shared through the mesh store), the bounds of its vertices, the point signed
distance (nearest triangle, sign from the winding number: exact for closed meshes), padding
(scaled about the centre of its bounding box), fcl's OBBRSS ``BVHModel`` (shared per file and
scale; rebuilt for moved vertices, python-fcl has no refit), Drake's deformable reference mesh
(:func:`deformable_mesh`) and the numbers of its other forms: its triangles for drawing, RViz's
MESH_RESOURCE (the URI and scale), URDF's ``<mesh filename scale>`` and MoveIt's mesh
(``shape_msgs/Mesh``, the ``.scene`` ``mesh``: its triangles; :func:`from_arrays` reads one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray, Int64Array, IntArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import _mesh_file
from robot_state_core.geometry.shapes._common import MeshArrays, PointDistance
from robot_state_core.geometry.triangles import (
    closest_point_on_triangles,
    TriangleMesh,
    winding_number,
)

BOUNDED = True
CONVEX = False
MESH_FILE = True
SWEPT = False
BALL = False
URDF_ELEMENT: str | None = 'mesh'
SOLID_PRIMITIVE: int | None = None
MOVEIT_SHAPE: str | None = 'mesh'
FCL_BYTES_PER_TRIANGLE = 2 * 260 + 12 + 8
'''Estimated size of an OBBRSS BVH: ~2F nodes of ~260 bytes (OBB + RSS + indices) and copies
of the vertices and triangles (the mesh store's byte budget).'''


@dataclass(frozen=True, slots=True)
class Mesh:
    """A triangle mesh file.

    Attributes:
        uri: The filename as written in the description (``package://``, ``file://`` or a path).
        scale: Per-axis scale factors applied to the vertices.
        path: The resolved local file, or ``None`` when not (yet) resolved.
        problem: Why ``path`` is ``None`` as the loader found it (e.g. ``file /ws/pkg/a.stl
            does not exist (package 'pkg' found at /ws/pkg)``), or ``None``. Not compared:
            it tells how the shape was loaded, not what it is.
    """

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


def read_triangles(shape: Mesh) -> MeshArrays:
    """The scaled, welded triangles of the file (:func:`~meshes.load_mesh`, cached, read-only).

    Raises:
        RobotStateCoreError: The mesh is unresolved, missing or unreadable, or its scale is
            unusable (the subclass of the underlying reader).
    """
    return meshes.load_mesh(*meshes.cache_key(shape))


def triangles(shape: Mesh) -> MeshArrays:
    """Its triangles, for drawing (:func:`read_triangles`)."""
    return read_triangles(shape)


def point_signed_distance(shape: Mesh, p_GQ: FloatArray,
                          mesh: TriangleMesh | None = None) -> PointDistance:
    """The nearest triangle, negative inside (winding number > 1/2: exact for closed meshes)."""
    m = _mesh_file.need_mesh(shape, mesh)
    dist, p_GN, face = closest_point_on_triangles(p_GQ, m.soup)
    inside = winding_number(p_GQ, m.vertices, m.faces) > 0.5
    return _mesh_file.surface_distance(p_GQ, m, dist, p_GN, face, inside)


def fcl_from_arrays(fcl: Any, vertices: FloatArray, faces: Int64Array) -> Any:
    """An OBBRSS ``fcl.BVHModel`` of the triangles."""
    model = fcl.BVHModel()
    model.beginModel(len(faces), len(vertices))
    model.addSubModel(vertices, faces)
    model.endModel()
    return model


def fcl_geometry(fcl: Any, shape: Mesh) -> Any:
    """The file's ``BVHModel``, shared per file and scale (the mesh store)."""
    return _mesh_file.shared_fcl_geometry(fcl, shape, meshes.load_mesh, fcl_from_arrays,
                                          FCL_BYTES_PER_TRIANGLE)


def fcl_with_vertices(fcl: Any, vertices: FloatArray, old_vertices: FloatArray,
                      faces: Int64Array, where: str) -> tuple[Any, FloatArray, Int64Array]:
    """A private ``BVHModel`` of the same triangles on moved vertices (same vertex count).

    Raises:
        InvalidArgumentError: Not ``old_vertices``' shape, or not finite.
    """
    if vertices.shape != old_vertices.shape:
        raise InvalidArgumentError(f'{where}: expected vertices of shape {old_vertices.shape}, '
                                   f'got {vertices.shape}')
    _mesh_file.check_vertices(vertices, where)
    return fcl_from_arrays(fcl, vertices, faces), vertices, faces


def urdf_attributes(shape: Mesh) -> dict[str, str | tuple[float, ...]]:
    """``<mesh filename="uri" scale="sx sy sz">`` (the URI as written)."""
    return {'filename': shape.uri, 'scale': shape.scale}


def from_arrays(vertices: ArrayLike, faces: ArrayLike,
                where: str = 'mesh_shape_from_arrays') -> Mesh:
    """A collidable :class:`Mesh` for a triangle mesh given by arrays (``shape_msgs/Mesh``).

    No file is written: the arrays are held in memory under a path named by their hash
    (:func:`~robot_state_core.geometry.meshes.register_mesh_arrays`; identical arrays share one
    entry and one fcl ``BVHModel``, built from the arrays). The triangles are welded as a mesh
    file's are; coordinates keep their float64 values.

    Args:
        vertices: ``(V, 3)`` vertex positions [m] in the shape frame.
        faces: ``(F, 3)`` vertex indices per triangle, ``F >= 1``.
        where: Named in errors.

    Returns:
        ``Mesh(uri=<path>, path=<path>)`` with ``<path> = 'mem://<sha1 of the arrays>'``.

    Raises:
        InvalidArgumentError: Malformed or non-finite arrays, indices out of range.
    """
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    try:
        f = np.ascontiguousarray(faces).astype(np.int64, casting='safe')
    except TypeError as err:
        raise InvalidArgumentError(f'{where}: faces must be integers') from err
    if v.ndim != 2 or v.shape[1] != 3 or len(v) == 0 or not np.isfinite(v).all():
        raise InvalidArgumentError(f'{where}: vertices must be a finite (V, 3) array, got '
                                   f'shape {v.shape}')
    if f.ndim != 2 or f.shape[1] != 3 or len(f) == 0:
        raise InvalidArgumentError(f'{where}: faces must be an (F >= 1, 3) array, got shape '
                                   f'{f.shape}')
    if f.min() < 0 or f.max() >= len(v):
        raise InvalidArgumentError(f'{where}: face indices must be in [0, {len(v)})')
    path = meshes.register_mesh_arrays(v, f)
    return Mesh(uri=path, path=path)


def deformable_mesh(shape: Mesh, resolution_hint: float,
                    where: str = 'deformable_mesh') -> tuple[FloatArray, IntArray]:
    """Scaled vertices ``(V, 3)`` in G and faces ``(T, 3)`` of the file, as trimesh reads it.

    Drake's deformable mesh of a file is its triangles (``resolution_hint`` is only stored).

    Raises:
        InvalidArgumentError: The URI is not resolved to a local file, or the file cannot be
            read.
    """
    path = shape.path
    if path is None:
        uri = shape.uri
        path = uri[len('file://'):] if uri.startswith('file://') else (
            uri if '://' not in uri else None)
    if path is None:
        raise InvalidArgumentError(f'{where}: mesh {shape.uri!r} is not resolved to a local '
                                   'file; resolve it or pass vertices_G')
    try:
        import trimesh
    except ImportError as err:  # pragma: no cover - trimesh is a declared dependency
        raise InvalidArgumentError(f'{where}: loading {path!r} needs trimesh; pass vertices_G '
                                   'instead') from err
    try:
        mesh = trimesh.load(path, force='mesh')
        vertices = np.asarray(mesh.vertices, dtype=np.float64).reshape(-1, 3)
        faces = np.asarray(mesh.faces, dtype=np.intp).reshape(-1, 3)
    except (OSError, ValueError, AttributeError) as err:
        raise InvalidArgumentError(f'{where}: cannot read mesh {path!r}: {err}') from err
    return vertices * np.asarray(shape.scale, dtype=np.float64), faces
