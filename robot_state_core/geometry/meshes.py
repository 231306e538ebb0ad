"""Triangle meshes for collision: loading (trimesh), scaling, caching and convex hulls.

:func:`load_mesh` reads STL, OBJ, PLY, OFF, glTF and, when ``pycollada`` is installed, COLLADA
(``.dae``) files through trimesh, applies the description's per-axis ``scale`` and caches the
result per ``(real path, scale, file identity)``: every geometry that names the same file at the
same scale shares one vertex/face array pair (and, in the fcl backend, one BVH). The file
identity (:func:`file_identity`: size, modification time, inode) is read on every look-up, so a
file rewritten on disk is read again by the next model, scene or query object that uses it;
what was built from the old file keeps the old geometry. Duplicate vertices are
merged (STL stores three per triangle), so vertex counts are those of the welded mesh.

:func:`load_mesh_parts` splits the same triangles by the colours the file gives them
(materials, per-face or per-vertex colours), for drawing; the colours are read in the same
trimesh load as the geometry and cached beside it.

:func:`convex_hull` is a small numpy quickhull (trimesh's hull needs scipy, which the project
does not install); it returns outward-oriented triangles, which fcl's ``Convex`` needs for its
support-point edge walk.

:func:`register_mesh_arrays` takes a mesh given as arrays (``shape_msgs/Mesh``, e.g. a
``moveit_msgs/CollisionObject``'s meshes) without a file: it is stored in memory under a
``mem://<sha1 of the arrays>`` path, and every function here (hence the fcl backend, which
builds its ``BVHModel`` or ``Convex`` from the arrays directly) accepts that path like a file.
Identical arrays share one entry, one vertex/face pair and one BVH.

Returned arrays are read-only: they are shared through the cache.

Memory is bounded (hostile input: a publisher sending endless distinct mesh objects). Every
cache here, and the fcl geometries the backend builds (:func:`cached`, :func:`cache`), is one
least-recently-used store with a byte budget, :data:`MESH_CACHE_BYTES` (256 MiB): in-memory
meshes, scaled meshes, convex hulls, BVHs. Dropping a file's entry only costs a re-read. An
in-memory mesh has no file to re-read, so the path :func:`register_mesh_arrays` returns holds
its arrays: a ``Mesh`` shape (a world object's, an attached body's) keeps its mesh loadable for
as long as the shape lives, whatever the store dropped, and the arrays are freed with the last
shape that uses them. :func:`mesh_cache_info` reports the store's size.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
import functools
import hashlib
import math
import os
from pathlib import Path
import threading
from typing import Any, cast, Protocol
import weakref

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import FloatArray, Int64Array
from robot_state_core.errors import InvalidArgumentError, RobotDescriptionError

__all__ = [
    'MAX_MESH_PARTS',
    'MEMORY_SCHEME',
    'MESH_CACHE_BYTES',
    'MeshCacheInfo',
    'MeshFileShape',
    'MeshPart',
    'cache',
    'cache_key',
    'cached',
    'clear_mesh_cache',
    'convex_hull',
    'euler_characteristic',
    'file_identity',
    'hull_planes',
    'load_mesh',
    'load_mesh_parts',
    'mesh_cache_info',
    'mesh_file',
    'mesh_hull',
    'register_mesh_arrays',
]

class MeshFileShape(Protocol):
    """A shape made of a mesh file (``Mesh``, ``Convex``): what this module reads of it."""

    @property
    def uri(self) -> str:
        """The filename as written in the description."""

    @property
    def scale(self) -> tuple[float, float, float]:
        """Per-axis scale factors applied to the vertices."""

    @property
    def path(self) -> str | None:
        """The resolved local file, or ``None``."""

    @property
    def problem(self) -> str | None:
        """Why ``path`` is ``None``, when the loader found out."""


MEMORY_SCHEME = 'mem://'
'''Prefix of the paths of meshes held in memory (:func:`register_mesh_arrays`).'''

MESH_CACHE_BYTES = 256 * 2**20
'''Byte budget of the mesh store (in-memory meshes, scaled meshes, hulls, fcl geometries).

Read at every insertion, so it may be changed at run time; least recently used entries are
dropped until the store fits. A robot's meshes fit many times over (measured: Panda 1.5 MiB,
Talos 16 MiB with every mesh, hull and BVH of both mesh modes); entries in use by live shapes
stay loadable whatever is dropped (module docstring).
'''

MAX_MESH_PARTS = 16
'''Most parts :func:`load_mesh_parts` splits one mesh file into (one per colour).'''


@dataclass(frozen=True)
class MeshCacheInfo:
    """Size of the mesh store (:func:`mesh_cache_info`).

    Attributes:
        entries: Entries in the store (in-memory meshes, scaled meshes, hulls, fcl geometries).
        nbytes: Their size [bytes] (array sizes; fcl geometries estimated), ``<= budget``.
        budget: :data:`MESH_CACHE_BYTES` [bytes].
        in_memory_meshes: In-memory meshes still loadable: those in the store plus those only
            held by live shapes.
    """

    entries: int
    nbytes: int
    budget: int
    in_memory_meshes: int


class _ByteLru:
    """A least-recently-used map whose values' sizes add up to at most :data:`MESH_CACHE_BYTES`.

    Thread-safe (the service node answers queries on several threads). Values are computed
    outside the lock; two threads may compute the same entry, the second insertion wins.
    """

    def __init__(self) -> None:
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            item = self._entries.get(key)
            if item is None:
                return None
            self._entries.move_to_end(key)
            return item[0]

    def put(self, key: Hashable, value: object, nbytes: int) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.nbytes -= old[1]
            self._entries[key] = (value, nbytes)
            self.nbytes += nbytes
            while self.nbytes > MESH_CACHE_BYTES and self._entries:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.nbytes -= dropped

    def clear(self, keep: type | None = None) -> None:
        """Drop every entry (but those whose value is a ``keep`` instance)."""
        with self._lock:
            for key, (value, nbytes) in list(self._entries.items()):
                if keep is None or not isinstance(value, keep):
                    del self._entries[key]
                    self.nbytes -= nbytes


class _StoredMesh:
    """The welded arrays of one in-memory mesh (read-only), shared by every shape that uses it."""

    __slots__ = ('__weakref__', 'faces', 'nbytes', 'vertices')

    def __init__(self, vertices: FloatArray, faces: Int64Array) -> None:
        self.vertices = vertices
        self.faces = faces
        self.nbytes = int(vertices.nbytes + faces.nbytes)


class _MemoryPath(str):
    """A ``mem://`` path that holds its mesh's arrays: the mesh stays loadable while it lives.

    Equal to (and hashed like) the plain string; copies are the object itself, and pickling
    carries the arrays, so a copied or unpickled shape still loads.
    """

    _mesh: _StoredMesh

    def __copy__(self) -> _MemoryPath:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> _MemoryPath:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, FloatArray, Int64Array]]:
        return _memory_path, (str(self), self._mesh.vertices, self._mesh.faces)


def _memory_path(path: str, vertices: FloatArray, faces: Int64Array) -> _MemoryPath:
    """The path object of an in-memory mesh; registers its arrays if they are not held."""
    with _IN_MEMORY_LOCK:
        stored = _IN_MEMORY.get(path)
        if stored is None:
            vertices, faces = np.array(vertices, dtype=np.float64), np.array(faces, dtype=np.int64)
            vertices.setflags(write=False)
            faces.setflags(write=False)
            stored = _IN_MEMORY[path] = _StoredMesh(vertices, faces)
    _STORE.put(('mem', path), stored, stored.nbytes)
    out = _MemoryPath(path)
    out._mesh = stored
    return out


# The mesh store (every cache of this module and the fcl geometries, one byte budget).
_STORE = _ByteLru()
# In-memory meshes by path, while anything holds them: the store (recently used ones) or a
# _MemoryPath, i.e. a live shape. Like a file on disk, a held entry outlives clear_mesh_cache.
_IN_MEMORY: weakref.WeakValueDictionary[str, _StoredMesh] = weakref.WeakValueDictionary()
_IN_MEMORY_LOCK = threading.Lock()


def cached(key: Hashable) -> object | None:
    """The store's entry under ``key`` (marked as just used), or ``None``.

    For the fcl backend's geometries; keys are tuples starting with the backend's own tag.
    """
    return _STORE.get(key)


def cache(key: Hashable, value: object, nbytes: int) -> None:
    """Put ``value`` (about ``nbytes`` bytes) in the store; older entries may be dropped."""
    _STORE.put(key, value, int(nbytes))


def mesh_cache_info() -> MeshCacheInfo:
    """The mesh store's entries and bytes, its budget and the in-memory meshes held."""
    return MeshCacheInfo(len(_STORE), _STORE.nbytes, MESH_CACHE_BYTES, len(_IN_MEMORY))


def _real_path(path: str) -> str:
    """``os.path.realpath``, memoized; an in-memory path as a plain string.

    The plain string matters: cache keys must not hold a :class:`_MemoryPath` (and with it
    the arrays of a mesh no shape uses any more).
    """
    if path.startswith(MEMORY_SCHEME):
        return str.__str__(path)
    return _real_file_path(path)


@functools.lru_cache(maxsize=4096)
def _real_file_path(path: str) -> str:
    """``os.path.realpath``, memoized (cleared by :func:`clear_mesh_cache`).

    Planning-scene copies look up every mesh of the robot again; resolving symlinks each time
    was 60 % of a copy's first collision check.
    """
    return os.path.realpath(path)


def file_identity(path: str) -> tuple[int, int, int]:
    """``(size, mtime_ns, inode)`` of a mesh file, ``(0, 0, 0)`` for an in-memory or missing one.

    Part of every cache key of a file's data, so a changed file is never served from the cache.
    """
    if path.startswith(MEMORY_SCHEME):
        return (0, 0, 0)
    try:
        st = os.stat(path)
    except OSError:
        return (0, 0, 0)  # (the loader reports the missing file)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _check_scale(scale: ArrayLike) -> tuple[float, float, float]:
    s = np.asarray(scale, dtype=np.float64).reshape(-1)
    if s.shape == (1,):
        s = np.repeat(s, 3)
    if s.shape != (3,) or not np.all(np.isfinite(s)) or np.any(s == 0.0):
        raise InvalidArgumentError(f'load_mesh: scale must be 3 finite non-zero factors, '
                                   f'got {scale!r}')
    return float(s[0]), float(s[1]), float(s[2])


def cache_key(shape: MeshFileShape) -> tuple[str, tuple[float, float, float]]:
    """The ``(real path, scale)`` key under which a mesh shape's data is cached and shared.

    Raises:
        InvalidArgumentError: Invalid scale.
        RobotDescriptionError: Unresolved URI.
    """
    return _real_path(mesh_file(shape)), _check_scale(shape.scale)


def mesh_file(shape: MeshFileShape) -> str:
    """The local file of a mesh shape.

    Raises:
        RobotDescriptionError: The shape's URI did not resolve to a file; the message says why
            when the loader recorded it (``shape.problem``: the file is not in its package,
            the package was not found, ...).
    """
    if shape.path is None:
        if shape.problem is not None:
            raise RobotDescriptionError(f'mesh {shape.uri!r} has no local file: {shape.problem}')
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


@dataclass(frozen=True, eq=False)
class MeshPart:
    """The triangles of a mesh file that share one colour (:func:`load_mesh_parts`).

    Attributes:
        vertices: ``(V, 3)`` the vertices these faces use, in the mesh frame, scaled [m].
        faces: ``(F, 3)`` indices into ``vertices``, wound as in :func:`load_mesh`.
        rgba: The colour the file gives these faces (8 bits per channel, in [0, 1]), or
            ``None`` when it gives them none.
    """

    vertices: FloatArray
    faces: Int64Array
    rgba: tuple[float, float, float, float] | None


def load_mesh_parts(path: str | os.PathLike[str],
                    scale: ArrayLike = (1.0, 1.0, 1.0)) -> tuple[MeshPart, ...]:
    """A mesh file's triangles grouped by the colours the file gives them, cached.

    Colours come from the file's materials (COLLADA diffuse, MTL ``Kd``, glTF
    ``baseColorFactor``; textures are not sampled) and from per-face or per-vertex colours
    (PLY, ...; vertex colours averaged per face), 8 bits per channel; equal colours are one
    part. A file (or the faces of it) without colour gives a part with ``rgba=None``. At most
    :data:`MAX_MESH_PARTS` parts: faces of rarer colours join the kept colour nearest to theirs
    (uncoloured ones the largest part), so a vertex-coloured scan stays a few parts.

    Args:
        path: Mesh file, as for :func:`load_mesh` (an in-memory mesh is one uncoloured part).
        scale: Per-axis scale factors, as for :func:`load_mesh`.

    Returns:
        The parts, largest first. Together they are exactly :func:`load_mesh`'s triangles:
        every face once, with the same scaled vertices (a single part holds those arrays
        themselves). Arrays are read-only.

    Raises:
        InvalidArgumentError: Invalid ``scale``.
        RobotDescriptionError: As :func:`load_mesh`.
    """
    s = _check_scale(scale)
    real = _real_path(os.fspath(path))
    key = ('parts', real, s, file_identity(real))
    hit = _STORE.get(key)
    if hit is not None:
        return cast(tuple[MeshPart, ...], hit)  # what was put under this key
    vertices, faces = _load_cached(real, s)
    parts = _split_by_color(vertices, faces, _colors_cached(real))
    _STORE.put(key, parts, sum(p.vertices.nbytes + p.faces.nbytes for p in parts))
    return parts


def _split_by_color(vertices: FloatArray, faces: Int64Array,
                    colors: Int64Array) -> tuple[MeshPart, ...]:
    """Faces grouped by colour key (at most :data:`MAX_MESH_PARTS` groups), largest first."""
    if len(colors) == 0:
        return (MeshPart(vertices, faces, None),)
    keys, group, counts = np.unique(colors, return_inverse=True, return_counts=True)
    order = np.argsort(-counts, kind='stable')
    kept, dropped = order[:MAX_MESH_PARTS], order[MAX_MESH_PARTS:]
    into = np.arange(len(keys))
    if len(dropped):  # a rarer colour joins the nearest kept colour (RGBA distance)
        rgba = (keys[:, None] >> np.array([24, 16, 8, 0])) & 0xFF
        colored = kept[keys[kept] >= 0]
        d2 = ((rgba[dropped, None, :] - rgba[None, colored, :]) ** 2).sum(axis=2)
        into[dropped] = colored[np.argmin(d2, axis=1)]
        into[dropped[keys[dropped] < 0]] = kept[0]  # faces without colour: the largest part
    group = into[group.reshape(-1)]
    sizes = np.bincount(group, minlength=len(keys))
    used_groups = np.argsort(-sizes, kind='stable')[:np.count_nonzero(sizes)]
    if len(used_groups) == 1:
        return (MeshPart(vertices, faces, _key_rgba(int(keys[used_groups[0]]))),)
    parts = []
    for k in used_groups:
        used, local = np.unique(faces[group == k], return_inverse=True)
        v, f = vertices[used], local.reshape(-1, 3).astype(np.int64)
        v.setflags(write=False)
        f.setflags(write=False)
        parts.append(MeshPart(v, f, _key_rgba(int(keys[k]))))
    return tuple(parts)


def clear_mesh_cache() -> None:
    """Forget every cached mesh, hull and fcl geometry (e.g. after a mesh file changed on disk).

    In-memory meshes are kept (they have no file to be re-read from).
    """
    _real_file_path.cache_clear()
    _STORE.clear(keep=_StoredMesh)


_Arrays = tuple[FloatArray, Int64Array]


def _load_cached(path: str, scale: tuple[float, float, float]) -> _Arrays:
    key = ('mesh', path, scale, file_identity(path))
    hit = _STORE.get(key)
    if hit is not None:
        return cast(_Arrays, hit)  # what was put under this key
    if path.startswith(MEMORY_SCHEME):
        stored = _IN_MEMORY.get(path)
        if stored is None:
            raise RobotDescriptionError(f'in-memory mesh {path!r} is not held: never registered '
                                        '(register_mesh_arrays), or dropped from the mesh store '
                                        'after the last shape using it was deleted')
        _STORE.get(('mem', path))  # mark it as used
        out = _scaled(stored.vertices, stored.faces, scale)
    else:
        vertices, faces, _ = _read_file(path)
        out = _scaled(vertices, faces, scale)
    _STORE.put(key, out, out[0].nbytes + out[1].nbytes)
    return out


def _read_file(path: str) -> tuple[FloatArray, Int64Array, Int64Array]:
    """Read a mesh file: unscaled ``(vertices, faces)`` and its face colour keys.

    The colour keys (:func:`_face_color_keys`) are stored under their own key, so the file is
    parsed once whether its geometry or its colours are asked for first.
    """
    if not os.path.isfile(path):
        raise RobotDescriptionError(f'mesh file {path!r} does not exist')
    if not os.access(path, os.R_OK):
        raise RobotDescriptionError(f'mesh file {path!r} is not readable')
    identity = file_identity(path)
    vertices, faces, colors = _read_with_trimesh(path)
    colors.setflags(write=False)
    _STORE.put(('face colors', path, identity), colors, colors.nbytes)
    return vertices, faces, colors


_NO_COLORS: Int64Array = np.zeros(0, dtype=np.int64)
_NO_COLORS.setflags(write=False)


def _colors_cached(path: str) -> Int64Array:
    """The face colour keys of a mesh file (empty: the file gives no colour), cached."""
    if path.startswith(MEMORY_SCHEME):
        return _NO_COLORS
    hit = _STORE.get(('face colors', path, file_identity(path)))
    if hit is not None:
        return cast(Int64Array, hit)  # what _read_file put under this key
    return _read_file(path)[2]


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


def _read_with_trimesh(path: str) -> tuple[FloatArray, Int64Array, Int64Array]:
    """``(vertices, faces, face colour keys)`` of a file, as ``trimesh.load_mesh`` reads it.

    The scene's geometries are concatenated with their node transforms applied, exactly as
    ``trimesh.load_mesh`` (``Scene.to_mesh``) does. Their colours are read first and their
    visuals then dropped: copying face colours (``Scene.dump``) needs scipy, which the project
    does not install, and merging materials is wasted work. The keys are empty when no face
    has a colour.
    """
    try:
        import trimesh
    except ImportError as err:  # pragma: no cover - trimesh is a declared dependency
        raise RobotDescriptionError(f'cannot load mesh {path!r}: trimesh is not installed '
                                    '(pip install trimesh)') from err
    suffix = Path(path).suffix.lower()
    try:
        scene = trimesh.load_scene(path)
        keys = {name: _face_color_keys(g) for name, g in scene.geometry.items()
                if isinstance(g, trimesh.Trimesh)}
        for name in keys:
            scene.geometry[name].visual = trimesh.visual.ColorVisuals()
        parts = [g for g in scene.dump() if isinstance(g, trimesh.Trimesh)]
        mesh: Any = trimesh.util.concatenate(parts)
        colors = np.concatenate([keys[g.metadata['name']] for g in parts] or [_NO_COLORS])
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
    return vertices, faces, (colors if np.any(colors >= 0) else _NO_COLORS)


def _face_color_keys(mesh: Any) -> Int64Array:
    """Each face's colour in one trimesh geometry as ``0xRRGGBBAA``, -1 where the file has none.

    A material gives all its faces its colour (glTF ``baseColorFactor``, else the material's
    main colour: COLLADA diffuse, MTL ``Kd``; a texture image is not sampled); per-face
    colours are used as they are and per-vertex colours averaged per face (trimesh).
    """
    from trimesh.visual.color import to_rgba
    from trimesh.visual.material import PBRMaterial

    visual, n = mesh.visual, len(mesh.faces)
    kind = getattr(visual, 'kind', None)
    if kind == 'texture':
        material = visual.material
        rgba = (material.baseColorFactor if isinstance(material, PBRMaterial)
                else getattr(material, 'main_color', None))
        if rgba is None:
            return np.full(n, -1, dtype=np.int64)
        return np.full(n, _pack_rgba(to_rgba(rgba).reshape(1, 4))[0], dtype=np.int64)
    if kind in ('face', 'vertex'):
        return _pack_rgba(np.asarray(visual.face_colors))
    return np.full(n, -1, dtype=np.int64)


def _pack_rgba(rgba: NDArray[np.uint8]) -> Int64Array:
    """``(N, 4)`` 8-bit RGBA colours as ``0xRRGGBBAA`` integers."""
    c = rgba.astype(np.int64)
    out: Int64Array = (c[:, 0] << 24) | (c[:, 1] << 16) | (c[:, 2] << 8) | c[:, 3]
    return out


def _key_rgba(key: int) -> tuple[float, float, float, float] | None:
    """A ``0xRRGGBBAA`` colour as RGBA in [0, 1]; ``None`` for -1 (no colour)."""
    if key < 0:
        return None
    r, g, b, a = ((key >> shift) & 0xFF for shift in (24, 16, 8, 0))
    return r / 255.0, g / 255.0, b / 255.0, a / 255.0


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
        and :func:`cache_key` (through ``Mesh.path``) like a file path. The returned string
        object holds the mesh: keep it (in a ``Mesh`` shape) and the mesh stays loadable; a
        copy of the text alone loads only while the store still has the mesh.

    Raises:
        RobotDescriptionError: trimesh is not installed.
    """
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    f = np.ascontiguousarray(faces, dtype=np.int64)
    digest = hashlib.sha1(v.tobytes() + f.tobytes(), usedforsecurity=False).hexdigest()
    path = f'{MEMORY_SCHEME}{digest}'
    stored = _IN_MEMORY.get(path)
    if stored is not None:
        return _memory_path(path, stored.vertices, stored.faces)
    try:
        import trimesh
    except ImportError as err:  # pragma: no cover - trimesh is a declared dependency
        raise RobotDescriptionError('in-memory meshes need trimesh (pip install '
                                    'trimesh)') from err
    # One vertex per triangle corner, as an STL stores them; trimesh then welds them.
    soup = v[f].reshape(-1, 3)
    mesh = trimesh.Trimesh(vertices=soup, faces=np.arange(len(soup)).reshape(-1, 3),
                           process=True)
    return _memory_path(path, np.asarray(mesh.vertices), np.asarray(mesh.faces))


def mesh_hull(path: str | os.PathLike[str],
              scale: ArrayLike = (1.0, 1.0, 1.0)) -> tuple[FloatArray, Int64Array]:
    """The convex hull of a (scaled) mesh file, cached per ``(real path, scale, identity)``.

    Returns:
        ``(vertices, faces)`` of the hull, as :func:`convex_hull`; read-only.

    Raises:
        InvalidArgumentError: Invalid scale, or a flat mesh (no 3D hull).
        RobotDescriptionError: As :func:`load_mesh`.
    """
    s = _check_scale(scale)
    return _hull_cached(_real_path(os.fspath(path)), s)


def _hull_cached(path: str, scale: tuple[float, float, float]) -> _Arrays:
    key = ('hull', path, scale, file_identity(path))
    hit = _STORE.get(key)
    if hit is not None:
        return cast(_Arrays, hit)  # what was put under this key
    v, _ = _load_cached(path, scale)
    hv, hf = convex_hull(v)
    hv.setflags(write=False)
    hf.setflags(write=False)
    _STORE.put(key, (hv, hf), hv.nbytes + hf.nbytes)
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
