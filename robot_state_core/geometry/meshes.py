"""Triangle meshes for collision: loading (trimesh), scaling, caching and convex hulls.

:func:`load_mesh` reads STL, OBJ, PLY, OFF, glTF and, when ``pycollada`` is installed, COLLADA
(``.dae``) files through trimesh, applies the description's per-axis ``scale`` and caches the
result per ``(real path, scale)``: every geometry that names the same file at the same scale
shares one vertex/face array pair (and, in the fcl backend, one BVH). Duplicate vertices are
merged (STL stores three per triangle), so vertex counts are those of the welded mesh.

:func:`convex_hull` is a small numpy quickhull (trimesh's hull needs scipy, which the project
does not install); it returns outward-oriented triangles, which fcl's ``Convex`` needs for its
support-point edge walk.

:func:`register_mesh_arrays` takes a mesh given as arrays (``shape_msgs/Mesh``, e.g. a
``moveit_msgs/CollisionObject``'s meshes) without a file: it is stored in memory under a
``mem://<sha1 of the arrays>`` path, and every function here (hence the fcl backend, which
builds its ``BVHModel`` or ``Convex`` from the arrays directly) accepts that path like a file.
Identical arrays share one entry, one vertex/face pair and one BVH.

Returned arrays are read-only: they are shared through the cache.
"""

from __future__ import annotations

from collections.abc import Sequence
import functools
import hashlib
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import FloatArray, Int64Array
from robot_state_core.errors import InvalidArgumentError, RobotDescriptionError
from robot_state_core.geometry.shapes import Convex, Mesh

__all__ = [
    'MEMORY_SCHEME',
    'cache_key',
    'clear_mesh_cache',
    'convex_hull',
    'euler_characteristic',
    'hull_planes',
    'load_mesh',
    'mesh_file',
    'mesh_hull',
    'read_shape_mesh',
    'register_mesh_arrays',
]

MEMORY_SCHEME = 'mem://'
'''Prefix of the paths of meshes held in memory (:func:`register_mesh_arrays`).'''

# In-memory meshes by path: welded (V, 3) float64 vertices and (F, 3) int64 faces, read-only.
# Like a file on disk, an entry outlives clear_mesh_cache (the derived caches are cleared).
_IN_MEMORY: dict[str, tuple[FloatArray, Int64Array]] = {}


@functools.lru_cache(maxsize=4096)
def _real_path(path: str) -> str:
    """``os.path.realpath``, memoized (cleared by :func:`clear_mesh_cache`).

    Planning-scene copies look up every mesh of the robot again; resolving symlinks each time
    was 60 % of a copy's first collision check. In-memory paths are returned unchanged.
    """
    if path.startswith(MEMORY_SCHEME):
        return path
    return os.path.realpath(path)


def _check_scale(scale: ArrayLike) -> tuple[float, float, float]:
    s = np.asarray(scale, dtype=np.float64).reshape(-1)
    if s.shape == (1,):
        s = np.repeat(s, 3)
    if s.shape != (3,) or not np.all(np.isfinite(s)) or np.any(s == 0.0):
        raise InvalidArgumentError(f'load_mesh: scale must be 3 finite non-zero factors, '
                                   f'got {scale!r}')
    return float(s[0]), float(s[1]), float(s[2])


def cache_key(shape: Mesh | Convex) -> tuple[str, tuple[float, float, float]]:
    """The ``(real path, scale)`` key under which a mesh shape's data is cached and shared.

    Raises:
        InvalidArgumentError: Invalid scale.
        RobotDescriptionError: Unresolved URI.
    """
    return _real_path(mesh_file(shape)), _check_scale(shape.scale)


def mesh_file(shape: Mesh | Convex) -> str:
    """The local file of a mesh shape.

    Raises:
        RobotDescriptionError: The shape's URI was never resolved to a file.
    """
    if shape.path is None:
        raise RobotDescriptionError(f'mesh {shape.uri!r} was not resolved to a local file; '
                                    'load the description with a resolver that knows its '
                                    'package')
    return shape.path


def load_mesh(path: str | os.PathLike[str],
              scale: ArrayLike = (1.0, 1.0, 1.0)) -> tuple[FloatArray, Int64Array]:
    """Load a triangle mesh file, scaled, from the cache when possible.

    Args:
        path: Mesh file (STL, OBJ, PLY, OFF, glTF/GLB; DAE needs ``pycollada``). Scenes with
            several parts are concatenated, with their node transforms applied.
        scale: Per-axis scale factors (a scalar is applied to all axes). A negative product
            mirrors the mesh, and the triangle winding is flipped to stay outward.

    Returns:
        ``(vertices, faces)``: (V, 3) float64 vertices in the mesh frame [m] and (F, 3) int64
        vertex indices, both read-only and shared between callers.

    Raises:
        InvalidArgumentError: Invalid ``scale``.
        RobotDescriptionError: Missing, unreadable or empty file, or an unsupported format.
    """
    s = _check_scale(scale)
    real = _real_path(os.fspath(path))
    return _load_cached(real, s)


def read_shape_mesh(shape: Mesh | Convex) -> tuple[FloatArray, Int64Array]:
    """Read what the collision backend will use for ``shape`` now: its hull or its mesh.

    Args:
        shape: A mesh shape; a :class:`Convex` is read as the hull of its file.

    Returns:
        ``(vertices (V, 3) m, faces (F, 3))``, scaled and cached like :func:`load_mesh`.

    Raises:
        RobotStateCoreError: The mesh is unresolved, missing or unreadable, or its scale or hull
            is unusable (the subclass of the underlying reader).
    """
    path, scale = cache_key(shape)
    return mesh_hull(path, scale) if isinstance(shape, Convex) else load_mesh(path, scale)


def clear_mesh_cache() -> None:
    """Forget every cached mesh and hull (e.g. after a mesh file changed on disk)."""
    _real_path.cache_clear()
    _load_cached.cache_clear()
    _hull_cached.cache_clear()


@functools.cache
def _load_cached(path: str, scale: tuple[float, float, float]) -> tuple[FloatArray, Int64Array]:
    if path.startswith(MEMORY_SCHEME):
        if path not in _IN_MEMORY:
            raise RobotDescriptionError(f'in-memory mesh {path!r} was never registered '
                                        '(register_mesh_arrays)')
        vertices, faces = _IN_MEMORY[path]
        return _scaled(vertices, faces, scale)
    if not os.path.isfile(path):
        raise RobotDescriptionError(f'mesh file {path!r} does not exist')
    if not os.access(path, os.R_OK):
        raise RobotDescriptionError(f'mesh file {path!r} is not readable')
    vertices, faces = _read_with_trimesh(path)
    return _scaled(vertices, faces, scale)


def _scaled(vertices: FloatArray, faces: Int64Array,
            scale: tuple[float, float, float]) -> tuple[FloatArray, Int64Array]:
    """Read-only scaled copies; a mirroring scale flips the winding to stay outward."""
    v = vertices * np.asarray(scale)
    f = faces.copy()
    if scale[0] * scale[1] * scale[2] < 0.0:
        f = f[:, ::-1].copy()
    v.setflags(write=False)
    f.setflags(write=False)
    return v, f


def _read_with_trimesh(path: str) -> tuple[FloatArray, Int64Array]:
    try:
        import trimesh
    except ImportError as err:  # pragma: no cover - trimesh is a declared dependency
        raise RobotDescriptionError(f'cannot load mesh {path!r}: trimesh is not installed '
                                    '(pip install trimesh)') from err
    suffix = Path(path).suffix.lower()
    try:
        mesh: Any = trimesh.load_mesh(path)
    except ImportError as err:
        hint = ' (COLLADA needs: pip install pycollada)' if suffix == '.dae' else ''
        raise RobotDescriptionError(f'cannot load mesh {path!r}: {err}{hint}') from err
    except Exception as err:  # trimesh raises ValueError, KeyError, ... on malformed files
        raise RobotDescriptionError(
            f'cannot load mesh {path!r}: {type(err).__name__}: {err}') from err
    vertices = np.asarray(getattr(mesh, 'vertices', np.zeros((0, 3))), dtype=np.float64)
    faces = np.asarray(getattr(mesh, 'faces', np.zeros((0, 3))), dtype=np.int64)
    if vertices.ndim != 2 or vertices.shape[1] != 3 or faces.ndim != 2 or faces.shape[1] != 3 \
            or len(faces) == 0:
        raise RobotDescriptionError(f'mesh file {path!r} holds no triangles '
                                    f'(unsupported or corrupt {suffix or "file"})')
    if not np.all(np.isfinite(vertices)):
        raise RobotDescriptionError(f'mesh file {path!r} has non-finite vertices')
    return vertices, faces


def register_mesh_arrays(vertices: FloatArray, faces: Int64Array) -> str:
    """Hold a triangle mesh given as arrays in memory; its path for :class:`Mesh` shapes.

    The triangles are welded as a mesh file's are (trimesh merges duplicate vertices and drops
    unreferenced ones, exactly as when they are read from an STL written from the arrays), so
    vertex counts and order are those :func:`load_mesh` gives for that file; coordinates keep
    their float64 values (an STL would round them to float32). Identical arrays give the same
    path and share one entry.

    Args:
        vertices: ``(V, 3)`` finite float64 vertex positions [m], validated by the caller.
        faces: ``(F >= 1, 3)`` int64 vertex indices in ``[0, V)``, validated by the caller.

    Returns:
        ``'mem://<sha1 of the arrays>'``, accepted by :func:`load_mesh`, :func:`mesh_hull`
        and :func:`cache_key` (through ``Mesh.path``) like a file path.

    Raises:
        RobotDescriptionError: trimesh is not installed.
    """
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    f = np.ascontiguousarray(faces, dtype=np.int64)
    digest = hashlib.sha1(v.tobytes() + f.tobytes(), usedforsecurity=False).hexdigest()
    path = f'{MEMORY_SCHEME}{digest}'
    if path not in _IN_MEMORY:
        try:
            import trimesh
        except ImportError as err:  # pragma: no cover - trimesh is a declared dependency
            raise RobotDescriptionError('in-memory meshes need trimesh (pip install '
                                        'trimesh)') from err
        # One vertex per triangle corner, as an STL stores them; trimesh then welds them.
        soup = v[f].reshape(-1, 3)
        mesh = trimesh.Trimesh(vertices=soup, faces=np.arange(len(soup)).reshape(-1, 3),
                               process=True)
        welded_v = np.array(mesh.vertices, dtype=np.float64)
        welded_f = np.array(mesh.faces, dtype=np.int64)
        welded_v.setflags(write=False)
        welded_f.setflags(write=False)
        _IN_MEMORY[path] = (welded_v, welded_f)
    return path


def mesh_hull(path: str | os.PathLike[str],
              scale: ArrayLike = (1.0, 1.0, 1.0)) -> tuple[FloatArray, Int64Array]:
    """The convex hull of a (scaled) mesh file, cached per ``(real path, scale)``.

    Returns:
        ``(vertices, faces)`` of the hull, as :func:`convex_hull`; read-only.

    Raises:
        InvalidArgumentError: Invalid scale, or a flat mesh (no 3D hull).
        RobotDescriptionError: As :func:`load_mesh`.
    """
    s = _check_scale(scale)
    return _hull_cached(_real_path(os.fspath(path)), s)


@functools.cache
def _hull_cached(path: str, scale: tuple[float, float, float]) -> tuple[FloatArray, Int64Array]:
    v, _ = _load_cached(path, scale)
    hv, hf = convex_hull(v)
    hv.setflags(write=False)
    hf.setflags(write=False)
    return hv, hf


def convex_hull(vertices: ArrayLike, *,
                rel_tol: float = 1e-10) -> tuple[FloatArray, Int64Array]:
    """Convex hull of a point set (quickhull, numpy).

    Args:
        vertices: (N, 3) points [m], N >= 4.
        rel_tol: Points closer than ``rel_tol * (bounding-box diagonal)`` to a hull face count
            as on it (and are dropped when not needed).

    Returns:
        ``(hull_vertices, faces)``: (H, 3) the hull's vertices (a subset of the input) and
        (K, 3) triangles indexing them, counter-clockwise seen from outside (outward normals).
        Coplanar facets are returned triangulated.

    Raises:
        InvalidArgumentError: Fewer than 4 points, non-finite points, or all points (nearly)
            on a plane or line.
    """
    pts = np.asarray(vertices, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 3 or len(pts) < 4:
        raise InvalidArgumentError(f'convex_hull: need (N >= 4, 3) points, got {pts.shape}')
    if not np.all(np.isfinite(pts)):
        raise InvalidArgumentError('convex_hull: points must be finite')
    pts = np.unique(pts, axis=0)
    diag = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))
    eps = rel_tol * max(diag, 1e-300)
    faces = _quickhull(pts, eps)
    used, inverse = np.unique(faces, return_inverse=True)
    return pts[used].copy(), inverse.reshape(-1, 3).astype(np.int64)


def _initial_simplex(pts: FloatArray, eps: float) -> list[int]:
    extremes = np.concatenate([pts.argmin(axis=0), pts.argmax(axis=0)])
    cand = pts[extremes]
    d2 = ((cand[:, None, :] - cand[None, :, :]) ** 2).sum(axis=-1)
    i, j = np.unravel_index(int(np.argmax(d2)), d2.shape)
    a, b = int(extremes[i]), int(extremes[j])
    ab = pts[b] - pts[a]
    if np.linalg.norm(ab) <= eps:
        raise InvalidArgumentError('convex_hull: all points coincide')
    line = np.linalg.norm(np.cross(pts - pts[a], ab), axis=1) / np.linalg.norm(ab)
    c = int(np.argmax(line))
    if line[c] <= eps:
        raise InvalidArgumentError('convex_hull: points are collinear (no 3D hull)')
    n = np.cross(ab, pts[c] - pts[a])
    n /= np.linalg.norm(n)
    plane = (pts - pts[a]) @ n
    d = int(np.argmax(np.abs(plane)))
    if abs(plane[d]) <= eps:
        raise InvalidArgumentError('convex_hull: points are coplanar (flat mesh, no 3D hull)')
    return [a, b, c, d]


def _quickhull(pts: FloatArray, eps: float) -> Int64Array:
    a, b, c, d = _initial_simplex(pts, eps)
    cap = 64
    F = np.zeros((cap, 3), dtype=np.int64)
    Nrm = np.zeros((cap, 3))
    Off = np.zeros(cap)
    alive = np.zeros(cap, dtype=bool)
    count = 0
    centroid = pts[[a, b, c, d]].mean(axis=0)

    def add_faces(tris: NDArray[np.int64]) -> NDArray[np.int64]:
        nonlocal F, Nrm, Off, alive, cap, count
        k = len(tris)
        while count + k > cap:
            cap *= 2
            F = np.resize(F, (cap, 3))
            Nrm = np.resize(Nrm, (cap, 3))
            Off = np.resize(Off, cap)
            grown = np.zeros(cap, dtype=bool)
            grown[:len(alive)] = alive
            alive = grown
        p0, p1, p2 = pts[tris[:, 0]], pts[tris[:, 1]], pts[tris[:, 2]]
        n = np.cross(p1 - p0, p2 - p0)
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
        idx = np.arange(count, count + k)
        F[idx], Nrm[idx], Off[idx] = tris, n, np.einsum('ij,ij->i', n, p0)
        alive[idx] = True
        count += k
        return idx

    simplex = np.array([[a, b, c], [a, c, d], [a, d, b], [b, d, c]], dtype=np.int64)
    for row in simplex:  # orient outward (away from the simplex centroid)
        p0, p1, p2 = pts[row]
        if np.cross(p1 - p0, p2 - p0) @ (centroid - p0) > 0.0:
            row[[1, 2]] = row[[2, 1]]
    first = add_faces(simplex)

    owner = np.full(len(pts), -1, dtype=np.int64)
    owner_dist = np.full(len(pts), -math.inf)
    _assign(pts, np.arange(len(pts)), first, Nrm, Off, eps, owner, owner_dist)
    for v in (a, b, c, d):
        owner[v], owner_dist[v] = -1, -math.inf

    while True:
        eye = int(np.argmax(owner_dist))
        if owner_dist[eye] <= eps:
            break
        p = pts[eye]
        live = np.flatnonzero(alive[:count])
        visible = live[(Nrm[live] @ p - Off[live]) > eps]
        vis_faces = F[visible]
        edges = np.concatenate([vis_faces[:, [0, 1]], vis_faces[:, [1, 2]],
                                vis_faces[:, [2, 0]]])
        n_pts = len(pts)
        code = edges[:, 0] * n_pts + edges[:, 1]
        reverse = edges[:, 1] * n_pts + edges[:, 0]
        horizon = edges[~np.isin(reverse, code)]
        alive[visible] = False
        new = add_faces(np.column_stack([horizon, np.full(len(horizon), eye)]))
        orphans = np.flatnonzero(np.isin(owner, visible))
        owner[orphans], owner_dist[orphans] = -1, -math.inf
        owner[eye], owner_dist[eye] = -1, -math.inf
        orphans = orphans[orphans != eye]
        if len(orphans):
            _assign(pts, orphans, new, Nrm, Off, eps, owner, owner_dist)
    out: Int64Array = F[:count][alive[:count]]
    return out


def _assign(pts: FloatArray, which: NDArray[np.intp] | NDArray[np.int64],
            faces: NDArray[np.int64], Nrm: FloatArray, Off: FloatArray, eps: float,
            owner: NDArray[np.int64], owner_dist: FloatArray) -> None:
    """Give each point in ``which`` to the face (among ``faces``) it is farthest outside of."""
    dist = pts[which] @ Nrm[faces].T - Off[faces]
    best = np.argmax(dist, axis=1)
    best_d = dist[np.arange(len(which)), best]
    outside = best_d > eps
    owner[which[outside]] = faces[best[outside]]
    owner_dist[which[outside]] = best_d[outside]


def hull_planes(vertices: FloatArray, faces: Int64Array) -> tuple[FloatArray, FloatArray]:
    """Outward unit normals (K, 3) and offsets (K,) of a hull's faces: inside is ``n·p <= o``."""
    p0, p1, p2 = (vertices[faces[:, i]] for i in range(3))
    n = np.cross(p1 - p0, p2 - p0)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    return n, np.einsum('ij,ij->i', n, p0)


def euler_characteristic(faces: Sequence[Sequence[int]] | Int64Array) -> int:
    """``V - E + F`` of a closed triangle mesh (2 for a sphere-like hull)."""
    f = np.asarray(faces, dtype=np.int64)
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    n_edges = len(np.unique(edges, axis=0))
    return int(len(np.unique(f)) - n_edges + len(f))
