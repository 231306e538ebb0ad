"""What the two mesh-file shapes (``Mesh`` and ``Convex``) share.

Their fields and validation, their bounds from the vertices the backends read (the local box,
the support point, the bounding radius), their RViz MESH_RESOURCE marker, padding (scaled
about the centre of the mesh's bounding box) and the fcl geometry shared per file and scale in
the mesh store (:mod:`~robot_state_core.geometry.meshes`).
"""

from __future__ import annotations

from collections.abc import Callable
import math
import os
from typing import Any, TypeVar

import numpy as np

from robot_state_core._typing import FloatArray, Int64Array
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes._common import (
    LocalSupport,
    MeshArrays,
    PointDistance,
    translation,
    Vec3,
)
from robot_state_core.geometry.triangles import TriangleMesh
from robot_state_core.spatial.transforms import MAX_COORDINATE

RVIZ_MESH_RESOURCE = 10
'''``visualization_msgs/Marker.MESH_RESOURCE``.'''
BYTES_PER_VERTEX = 24
'''Estimated bytes per vertex of a shared fcl geometry (the mesh store's byte budget).'''


MeshFile = meshes.MeshFileShape

_M = TypeVar('_M', bound=MeshFile)


def check_mesh(shape: MeshFile) -> None:
    """A str (or path) URI and problem, and three finite scale factors (<= MAX_COORDINATE)."""
    kind = type(shape).__name__
    if not isinstance(shape.uri, str | os.PathLike):
        raise InvalidTypeError(f'{kind}: uri must be a str, got {shape.uri!r}')
    if shape.path is not None and not isinstance(shape.path, str | os.PathLike):
        raise InvalidTypeError(f'{kind}: path must be a str or None, got {shape.path!r}')
    if shape.problem is not None and not isinstance(shape.problem, str):
        raise InvalidTypeError(f'{kind}: problem must be a str or None, got {shape.problem!r}')
    try:
        scale = [float(s) for s in shape.scale]
    except (TypeError, ValueError) as err:
        raise InvalidTypeError(f'{kind}: scale must be three numbers, got '
                               f'{shape.scale!r}') from err
    if len(scale) != 3 or not all(math.isfinite(s) and abs(s) <= MAX_COORDINATE
                                  for s in scale):
        raise InvalidArgumentError(f'{kind}: scale must be three finite factors of magnitude '
                                   f'<= {MAX_COORDINATE:g}, got {shape.scale!r}')


def local_aabb(shape: MeshFile,
               vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """``(lo_G, hi_G)`` of the (scaled) vertices the backend uses."""
    if vertices is None or len(vertices) == 0:
        raise InvalidArgumentError(f'local_aabb: mesh {shape.uri!r} needs its vertices')
    v = np.asarray(vertices, dtype=np.float64)
    return v.min(axis=0), v.max(axis=0)


def support(shape: MeshFile, vertices: FloatArray | None = None) -> LocalSupport:
    """The vertex farthest along the direction (the first of equals)."""
    if vertices is None or len(vertices) == 0:
        raise InvalidArgumentError(f'support_point: mesh {shape.uri!r} needs its vertices')
    V = np.asarray(vertices, dtype=np.float64)

    def local(x: float, y: float, z: float) -> Vec3:
        p = V[int(np.argmax(V[:, 0] * x + V[:, 1] * y + V[:, 2] * z))]
        return (float(p[0]), float(p[1]), float(p[2]))
    return local


def bounding_radius(shape: MeshFile, vertices: FloatArray | None = None) -> float:
    """The largest vertex norm [m]."""
    assert vertices is not None
    return float(np.sqrt(np.max(np.einsum('ij,ij->i', vertices, vertices))))


def surface_distance(p: FloatArray, mesh: TriangleMesh, dist: float, p_GN: FloatArray,
                     face: int, inside: bool) -> PointDistance:
    """The signed distance of ``p`` from its nearest surface point ``p_GN`` on ``face``."""
    diff = p - p_GN
    if dist > 0.0:
        grad = diff / dist if not inside else -diff / dist
    else:
        normals, _ = meshes.hull_planes(mesh.vertices, mesh.faces[face:face + 1])
        grad = normals[0]
    return (-dist if inside else dist), p_GN, grad


def check_vertices(vertices: FloatArray, where: str) -> None:
    """InvalidArgumentError unless ``vertices`` is a finite ``(V, 3)`` array."""
    if vertices.ndim != 2 or vertices.shape[1] != 3 or not np.all(np.isfinite(vertices)):
        raise InvalidArgumentError(f'{where}: vertices must be a finite (V, 3) array')


def need_mesh(shape: MeshFile, mesh: TriangleMesh | None) -> TriangleMesh:
    """``mesh``, or InvalidArgumentError: a mesh shape's point queries need its triangles."""
    if mesh is None:
        raise InvalidArgumentError(
            f'point_signed_distance: {type(shape).__name__} {shape.uri!r} needs its triangles')
    return mesh


def padded(shape: _M, padding: float, scale: float) -> tuple[_M, FloatArray]:
    """Scaled about the centre ``c`` of the mesh's box: per axis ``f_k = (s·e_k + 2p) / e_k``.

    The box faces move out by exactly ``p`` (``e`` the box extents; a flat axis is only
    scaled); the result is the same file at scale ``f·scale`` plus the shift ``(1 - f)·c``.
    """
    p, s = padding, scale
    vertices, _ = meshes.load_mesh(meshes.mesh_file(shape), shape.scale)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    centre, extent = 0.5 * (lo + hi), hi - lo
    flat = extent <= 1e-12
    f = np.where(flat, s, (s * extent + 2 * p) / np.where(flat, 1.0, extent))
    new_scale = tuple(float(v) for v in f * np.asarray(shape.scale, dtype=np.float64))
    new_shape: _M = type(shape)(shape.uri, (new_scale[0], new_scale[1], new_scale[2]),
                                shape.path)  # type: ignore[call-arg]
    return new_shape, translation((1.0 - f) * centre)


def shared_fcl_geometry(fcl: Any, shape: MeshFile,
                        read: Callable[[str, tuple[float, float, float]], MeshArrays],
                        build: Callable[[Any, FloatArray, Int64Array], Any],
                        bytes_per_face: int) -> Any:
    """The fcl geometry ``build`` makes of ``read``'s arrays, shared per file and scale."""
    key = meshes.cache_key(shape)
    tagged = ('fcl', type(shape).__name__, *key, meshes.file_identity(key[0]))
    geometry = meshes.cached(tagged)
    if geometry is None:
        v, f = read(*key)
        geometry = build(fcl, v, f)
        meshes.cache(tagged, geometry, bytes_per_face * len(f) + BYTES_PER_VERTEX * len(v))
    return geometry


def rviz_markers(shape: MeshFile) -> list[tuple[int, Vec3, float | None, str]]:
    """One MESH_RESOURCE of the URI as written, with the mesh scale."""
    sx, sy, sz = (float(s) for s in shape.scale)
    return [(RVIZ_MESH_RESOURCE, (sx, sy, sz), None, shape.uri)]
