"""The python-fcl collision backend: the ONLY module of robot_state_core that imports ``fcl``.

``fcl`` is imported lazily by :func:`require_fcl`, at query time, so descriptions load and
kinematics run without it; a missing python-fcl raises :class:`BackendUnavailableError`
(design study B7).

Shapes map to fcl geometries one to one (:func:`make_collision_geometry`: each kind's
``fcl_geometry`` in its module of :mod:`robot_state_core.geometry.shapes`); sizes follow the
shapes (full lengths; cylinders, capsules and cones along z, centred; fcl's ``Cone`` has its
apex at ``+length/2``; ``Ellipsoid(a, b, c)`` semi-axes).
``HalfSpace`` is
``fcl.Halfspace(n=(0, 0, 1), d=0)``, i.e. ``z <= 0`` (checked by the characterization test).
A ``Mesh`` becomes one OBBRSS ``BVHModel`` per ``(file, scale)``, shared by every object that
uses it; a ``Convex`` becomes an ``fcl.Convex`` of the mesh's convex hull, also shared. Meshes
given as arrays (``mem://`` paths, :func:`~robot_state_core.geometry.meshes.register_mesh_arrays`)
are built straight from their arrays, shared per content hash and scale; no file is involved.
The shared geometries live in the byte-bounded mesh store of
:mod:`~robot_state_core.geometry.meshes` (least recently used first out; a dropped one is
rebuilt when next needed, objects already built keep theirs).

:class:`FclObjects` holds one ``fcl.CollisionObject`` per geometry and answers queries over an
explicit candidate-pair list (``(P, 2)`` geometry indices), with three broad phases
(``broadphase=``): ``'pairs'`` runs the narrow phase on every listed pair, ``'aabb'`` first drops
pairs whose posed bounding boxes are provably apart (compiled: world axis-aligned boxes, then the
oriented boxes' separating-axis test, :mod:`~robot_state_core.geometry.compiled`), and
``'manager'`` lets an ``fcl.DynamicAABBTreeCollisionManager`` propose pairs and keeps the listed
ones. Poses reach the fcl objects lazily: :meth:`FclObjects.set_poses` records them, and an
object is re-posed in fcl only when a query hands it to fcl (pushing a pose costs ~2 µs per
object through python-fcl; a broad phase that drops most pairs leaves most objects alone).
The minimum distance over a pair list (:meth:`FclObjects.minimum_distance`,
:meth:`FclObjects.minimum_distance_pair`) is a best-first search on lower bounds from the posed
boxes (:func:`~robot_state_core.geometry.compiled.pair_bounds`): exact, each exact distance
computed once, stopping at the first pair whose bound exceeds the best distance found.

Result conventions are Drake's (see :mod:`robot_state_core.geometry.query`): for a pair
``(A, B)`` (the row order of the candidate list), ``nhat_BA_W`` points out of B into A,
``p_WCb = p_WCa + depth * nhat_BA_W`` for contacts and ``p_WCa = p_WCb + distance * nhat_BA_W``
for signed distances.

python-fcl 0.7 facts this module relies on or works around (all pinned by
``test/test_collision_characterize.py``):

* ``Contact.normal`` points from ``o1`` to ``o2``; we call ``collide(A, B)``, so
  ``nhat_BA_W = -normal``. Exception: for a primitive/convex ``o1`` against a mesh (BVH) ``o2``
  fcl evaluates the swapped pair and does not flip the normal back; we do.
* ``Contact.pos`` is the midpoint of the two deepest points for most primitive pairs, so
  ``p_WCa = pos - depth/2 * nhat_BA_W``; for sphere pairs fcl's ``pos`` is radius-weighted, so
  the sphere's deepest point (centre minus radius along the normal) is used instead. For
  sphere–mesh contacts ``pos`` lies on the triangle and the depth comes out negative; both are
  corrected. Mesh contacts are per triangle pair (a mesh is a surface): depths are local
  triangle penetrations, not a volumetric depth; ``collide_pairs`` returns the first ``k`` fcl
  finds, ``distance_pairs`` the deepest. Primitive–triangle penetration goes through libccd's
  MPR, which is *a* separating direction, not the minimal one.
* Our own geometry replaces fcl's distances and contacts wherever the shapes are convex
  (primitives, ellipsoids and ``Convex`` hulls) or a half-space is involved; fcl still gives the
  collision verdict, so ``any_collision`` and ``collide_pairs`` agree (a pair fcl calls
  colliding that is apart by less than fcl's tolerance gets a depth-0 contact). Half-space pairs
  are closed form (``distance()`` with a ``Halfspace`` segfaults, and two half-spaces never
  collide in fcl, so such a pair is refused); a sphere against a convex shape uses the exact
  point signed distance; every other convex pair goes through GJK (apart) and EPA
  (penetrating) on exact support functions
  (:mod:`~robot_state_core.geometry.convex_distance`): the depth is the minimum translation
  distance with a witness on each surface, to ~1e-12 of the pair's size. That is plain Python,
  ~0.1-0.5 ms per pair (results are cached per pose), where fcl takes tens of microseconds:
  a distance query over a robot made of primitives takes about 3x fcl's time. fcl's own answers
  there are MPR's penetration (a separating direction, not the minimal one: box–cylinder off
  by 0.4 m, normals up to 80 degrees off) and libccd GJK distances good to ~1e-5..1e-3 m.
* ``distance()`` returns -1 for penetrating primitives, so for meshes penetration is taken
  from ``collide``: ``distance = -depth``; it returns 0 or -1 when meshes touch, and then the
  deepest triangle contact gives ``-depth``. Shape–mesh ``distance()`` returns its nearest
  points swapped, and sphere–mesh nearest points are wrong (recomputed from the triangles).
* Separation distances with a triangle mesh come from fcl: exact for sphere–mesh (recomputed)
  and mesh–mesh, libccd GJK (~1e-4 m) for other primitives against a mesh.
* Callbacks of the collision manager receive fresh wrapper objects without their geometry, so
  objects are recognised by their pose (the exact doubles we set), checking every geometry
  with that pose when poses coincide. Half-spaces are kept out of the manager (registering one
  crashes python-fcl) and their pairs are checked directly.
* python-fcl exposes no BVH refit: :meth:`FclObjects.update_mesh_vertices` rebuilds the BVH.
* A shared geometry is safe: each ``CollisionObject`` holds a reference to the Python geometry
  (python-fcl never deletes the C++ object while one exists).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import importlib
import math
from types import ModuleType
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray, Int64Array, IntArray
from robot_state_core.errors import BackendUnavailableError, InvalidArgumentError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.convex_distance import convex_signed_distance
from robot_state_core.geometry.query import (
    check_pairs,
    closest_point_on_triangles,
    ContactSummary,
    local_aabb,
    PenetrationAsPointPair,
    SignedDistancePair,
    SignedDistanceToPoint,
    support_point,
    TriangleSoup,
)
from robot_state_core.geometry.shapes import module_of, Shape
from robot_state_core.geometry.triangles import TriangleMesh
from robot_state_core.jit import kernels

_Exact = tuple[FloatArray, FloatArray, float, FloatArray]
Broadphase = Literal['pairs', 'aabb', 'manager']
BROADPHASES: tuple[Broadphase, ...] = ('pairs', 'aabb', 'manager')

__all__ = [
    'BROADPHASES',
    'Broadphase',
    'FclObjects',
    'clear_geometry_cache',
    'make_collision_geometry',
    'require_fcl',
]

# Contacts requested when a mesh pair's penetration depth is needed (its deepest triangle).
_MAX_MESH_CONTACTS = 10_000

# Geometry kinds (small ints, for vectorized masks).
_PRIMITIVE, _SPHERE, _HALFSPACE, _MESH, _CONVEX = range(5)

_kernels: ModuleType | None = None
_bound: dict[str, Any] = {}  # kernel name -> its entry point (see compiled.bound)


def _kernel(name: str) -> Any:
    """Broad-phase kernel ``name``, through its entry point once compiled (no argument typing)."""
    fn = _bound.get(name)
    if fn is None:
        fn = compiled_broadphase().bound(name)
        if fn is not getattr(compiled_broadphase(), name):
            _bound[name] = fn
    return fn

def compiled_broadphase() -> Any:
    """The compiled broad phase (:mod:`robot_state_core.geometry.compiled`), imported on first use.

    Lazy on purpose (allow-listed in ``test_import_structure``): numba costs 0.4-0.7 s to import,
    which ``import robot_state_core`` and a node that never checks collisions should not pay.
    Typed ``Any``: numba's dispatchers carry no annotations.
    """
    global _kernels
    if _kernels is None:
        from robot_state_core.geometry import compiled
        _kernels = kernels.select(compiled)
    return _kernels


def _on_kernel_switch() -> None:
    """After a kernel switch (:mod:`robot_state_core.jit.kernels`): forget module and entries."""
    global _kernels
    _kernels = None
    _bound.clear()


kernels.on_switch(_on_kernel_switch)


def _replace_by_closed_form(A: Shape, B: Shape) -> bool:
    """True where our own geometry replaces fcl's distances and contacts (FclObjects._exact).

    Every pair with a half-space (fcl crashes or is wrong there) and every pair of convex
    shapes (primitives and hulls: fcl's GJK/MPR are approximate); fcl keeps triangle meshes.
    """
    a, b = module_of(A), module_of(B)
    if not a.BOUNDED or not b.BOUNDED:
        return True
    return bool(a.CONVEX and b.CONVEX)


def check_broadphase(value: str, where: str) -> Broadphase:
    """``value`` as a :data:`Broadphase`, or InvalidArgumentError naming ``where``."""
    for b in BROADPHASES:
        if value == b:
            return b
    raise InvalidArgumentError(f'{where}: unknown broadphase {value!r}; expected one of '
                               f'{", ".join(BROADPHASES)}')


def require_fcl() -> Any:
    """The ``fcl`` module (python-fcl).

    Raises:
        BackendUnavailableError: python-fcl is not installed (or cannot be imported).
    """
    try:
        return importlib.import_module('fcl')
    except ImportError as err:
        raise BackendUnavailableError(
            'collision and distance queries need python-fcl, which cannot be imported '
            f'({err}); install it with: pip install python-fcl') from err


def clear_geometry_cache() -> None:
    """Forget the shared fcl mesh/convex geometries (objects already built keep theirs).

    They live in the mesh store (:func:`~robot_state_core.geometry.meshes.clear_mesh_cache`
    clears it with the meshes and hulls it holds).
    """
    meshes.clear_mesh_cache()


def make_collision_geometry(shape: Shape) -> Any:
    """The fcl geometry of a shape (mesh and convex geometries are shared per file and scale).

    Args:
        shape: Any :data:`~robot_state_core.geometry.shapes.Shape`.

    Returns:
        An ``fcl.CollisionGeometry``.

    Raises:
        BackendUnavailableError: python-fcl is missing.
        InvalidArgumentError: Negative or non-finite sizes, or an unknown shape type.
        RobotDescriptionError: A mesh file is unresolved, missing or unreadable.
    """
    fcl = require_fcl()
    return module_of(shape, 'make_collision_geometry').fcl_geometry(fcl, shape)


def _kind(shape: Shape) -> int:
    module = module_of(shape)
    if module.BALL:
        return _SPHERE
    if not module.BOUNDED:
        return _HALFSPACE
    if not module.CONVEX:
        return _MESH
    if module.MESH_FILE:
        return _CONVEX
    return _PRIMITIVE


class _PairTable:
    """A validated candidate-pair list and its rank lookup (sorted pair keys, no ``G × G`` table).

    ``rank_of(a, b)`` is the row of the pair ``(a, b)`` (either order) or -1: a binary search
    over ``a * n + b`` keys, so 10 000 geometries cost the pairs' size, not ``n²``.
    """

    __slots__ = ('_keys', '_n', '_rows', 'listed', 'pairs')

    def __init__(self, pairs: IntArray, n: int) -> None:
        # frozen and C-contiguous intp: the compiled broad phase's one argument kind
        self.pairs = np.array(pairs, dtype=np.intp, order='C', copy=pairs.flags.writeable)
        self.pairs.setflags(write=False)
        # small tables as Python lists (the verdict loop indexes them per query); a large one
        # (thousands of world objects) is converted only for the rows a query keeps
        self.listed: list[list[int]] | None = self.pairs.tolist() if len(pairs) <= 4096 \
            else None
        self._n = n
        keys = self.pairs[:, 0].astype(np.int64) * n + self.pairs[:, 1]
        self._rows = np.argsort(keys, kind='stable')
        self._keys = keys[self._rows]

    def ranks(self, a: IntArray, b: IntArray) -> IntArray:
        """Rows of the pairs ``(a[k], b[k])`` as listed (not swapped), -1 where absent."""
        out = np.full(len(a), -1, dtype=np.intp)
        if len(self._keys) and len(a):
            keys = np.asarray(a, dtype=np.int64) * self._n + np.asarray(b, dtype=np.int64)
            pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
            found = self._keys[pos] == keys
            out[found] = self._rows[pos[found]]
        return out

    def rank_of(self, a: int, b: int) -> int:
        """Row of the pair ``{a, b}`` in either order, or -1."""
        r = self.ranks(np.array([a, b]), np.array([b, a]))
        return int(r[0]) if r[0] >= 0 else int(r[1])


class FclObjects:
    """One ``fcl.CollisionObject`` per geometry, posed in the world, with pair queries.

    Geometries are addressed by *index* (0..G-1, the order of ``shapes``); results carry the
    corresponding ``ids`` (e.g. the registry's ``GeometryId``). Poses are set in one call,
    :meth:`set_poses`, and stay until the next one.

    Attributes:
        ids: (G,) read-only ids reported in results.
        generation: Counts the changes of poses and ids (a snapshot over these objects is
            stale once it moved on).
    """

    def __init__(self, shapes: Sequence[Shape], ids: Sequence[int] | None = None, *,
                 broadphase: Broadphase = 'pairs') -> None:
        """Build the fcl objects (meshes are loaded and their BVHs built once, shared).

        Args:
            shapes: The G shapes, in geometry-index order.
            ids: G ids to report in results (default: the indices).
            broadphase: Default broad phase: ``'pairs'``, ``'aabb'`` or ``'manager'``.

        Raises:
            BackendUnavailableError: python-fcl is missing.
            InvalidArgumentError: Invalid shapes, ids or broad phase.
            RobotDescriptionError: A mesh cannot be loaded.
        """
        fcl = require_fcl()
        self._fcl = fcl
        self._shapes: list[Shape] = list(shapes)
        n = len(self._shapes)
        id_list = list(range(n)) if ids is None else [int(i) for i in ids]
        if len(id_list) != n:
            raise InvalidArgumentError(f'FclObjects: {n} shapes but {len(id_list)} ids')
        self.ids: Int64Array = np.array(id_list, dtype=np.int64)
        self.ids.setflags(write=False)
        self._id_list = id_list
        self.broadphase = broadphase
        self._geoms = [make_collision_geometry(s) for s in self._shapes]
        self._objects = [fcl.CollisionObject(g, fcl.Transform()) for g in self._geoms]
        self._kinds = np.array([_kind(s) for s in self._shapes], dtype=np.int8)
        self._is_bvh = self._kinds == _MESH
        self._is_halfspace = self._kinds == _HALFSPACE
        self._vertices: list[FloatArray | None] = []
        self._faces: list[Int64Array | None] = []
        self._radius: list[float] = []  # of the spheres (their contact points), else 0
        for shape in self._shapes:
            module = module_of(shape)
            v, f = module.read_triangles(shape) if module.MESH_FILE else (None, None)
            self._vertices.append(v)
            self._faces.append(f)
            self._radius.append(module.swept_core(shape)[1] if module.BALL else 0.0)
        lo_hi = [local_aabb(s, v) for s, v in zip(self._shapes, self._vertices, strict=True)]
        self._lo_G = np.array([a for a, _ in lo_hi]).reshape(n, 3)
        self._hi_G = np.array([b for _, b in lo_hi]).reshape(n, 3)
        self._finite = np.isfinite(self._lo_G).all(axis=1) & np.isfinite(self._hi_G).all(axis=1)
        self._local_boxes()
        self._X_WG = np.tile(np.eye(4), (n, 1, 1))
        self._stale = np.zeros(n, dtype=bool)  # pose recorded but not yet pushed to fcl
        self.generation = 0  # bumped whenever poses or ids change (QueryObject checks it)
        self._box_lo = np.zeros((n, 3))
        self._box_hi = np.zeros((n, 3))
        self._update_boxes()
        self._manager: Any = None
        self._manager_stale = True
        self._pose_index: dict[bytes, list[int]] | None = None
        self._pose_rotation_index: dict[tuple[bytes, bytes], list[int]] = {}
        self._table: _PairTable | None = None
        self._table_source: object = None
        self._closed_form: dict[tuple[type, type], bool] = {}
        self._exact_cache: dict[tuple[int, int], _Exact | None] = {}  # at the current poses
        self._contact_requests: dict[int, Any] = {}
        self._meshes: dict[int, TriangleMesh] = {}
        self._hit_request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
        self._distance_request = fcl.DistanceRequest(enable_nearest_points=True,
                                                     enable_signed_distance=False)
        self._value_request = fcl.DistanceRequest(enable_nearest_points=False,
                                                  enable_signed_distance=False)
        # python-fcl copies a distance's witnesses and geometries into the result only when
        # it improves on the result's min_distance: a result at -inf is never written, and
        # fcl.distance's return value is all minimum_distance reads
        self._sink = fcl.DistanceResult(min_distance_=-math.inf)
        # minimum_distance's fast path: a mesh against a mesh or a non-sphere convex shape
        self._is_mesh: list[bool] = (self._kinds == _MESH).tolist()
        self._plain: list[bool] = ((self._kinds != _SPHERE)
                                   & (self._kinds != _HALFSPACE)).tolist()

    # ----------------------------------------------------------------------------------------
    # State

    def __len__(self) -> int:
        return len(self._objects)

    @property
    def shapes(self) -> tuple[Shape, ...]:
        """The shapes, in geometry-index order."""
        return tuple(self._shapes)

    @property
    def broadphase(self) -> Broadphase:
        """The default broad phase of the queries (``'pairs'``, ``'aabb'`` or ``'manager'``)."""
        return self._broadphase

    @broadphase.setter
    def broadphase(self, value: Broadphase) -> None:
        self._broadphase = self._check_broadphase(value)

    @staticmethod
    def _check_broadphase(value: str) -> Broadphase:
        return check_broadphase(value, 'FclObjects')

    @property
    def X_WG(self) -> FloatArray:
        """(G, 4, 4) the current geometry poses (read-only copy)."""
        out = self._X_WG.copy()
        out.setflags(write=False)
        return out

    def geometry(self, index: int) -> Any:
        """The fcl geometry of geometry ``index`` (shared between equal meshes)."""
        return self._geoms[self._check_index(index)]

    def collision_object(self, index: int) -> Any:
        """The ``fcl.CollisionObject`` of geometry ``index``, posed at its current pose."""
        return self._posed(self._check_index(index))

    def _posed(self, i: int) -> Any:
        """The fcl object of geometry ``i``, its recorded pose pushed first if it changed."""
        obj = self._objects[i]
        if self._stale[i]:
            X = self._X_WG[i]
            obj.setRotation(X[:3, :3])
            obj.setTranslation(X[:3, 3])
            self._stale[i] = False
        return obj

    def _push_all(self) -> None:
        for i in np.flatnonzero(self._stale).tolist():
            self._posed(i)

    def set_ids(self, ids: Sequence[int]) -> None:
        """Replace the ids reported in results; geometries and poses stay.

        Used when a registry re-registered the same shapes under new ``GeometryId`` s.

        Raises:
            InvalidArgumentError: Not one id per geometry.
        """
        id_list = [int(i) for i in ids]
        if len(id_list) != len(self._objects):
            raise InvalidArgumentError(f'FclObjects.set_ids: {len(self._objects)} geometries but '
                                       f'{len(id_list)} ids')
        self.ids = np.array(id_list, dtype=np.int64)
        self.ids.setflags(write=False)
        self._id_list = id_list
        self.generation += 1

    def _check_index(self, index: int) -> int:
        i = int(index)
        if not 0 <= i < len(self._objects):
            raise InvalidArgumentError(f'FclObjects: geometry index {index} out of range '
                                       f'[0, {len(self._objects)})')
        return i

    def set_poses(self, X_WG: ArrayLike) -> None:
        """Pose every geometry in the world.

        The poses are recorded; an object whose pose changed is pushed to fcl when a query
        first hands it to fcl.

        Args:
            X_WG: (G, 4, 4) pose of each geometry G in the world (rigid transforms).

        Raises:
            InvalidArgumentError: Wrong shape or non-finite values.
        """
        X = np.ascontiguousarray(X_WG, dtype=np.float64)
        n = len(self._objects)
        if X.shape != (n, 4, 4):
            raise InvalidArgumentError(f'FclObjects.set_poses: X_WG must have shape ({n}, 4, 4),'
                                       f' got {X.shape}')
        changed = compiled_broadphase().update_poses(X, self._X_WG, self._stale, self._lo_G,
                                                     self._hi_G, self._finite, self._box_lo,
                                                     self._box_hi)
        if changed < 0:
            raise InvalidArgumentError(f'FclObjects.set_poses: X_WG must be finite (pose '
                                       f'{-1 - changed} is not)')
        if changed:
            self._poses_changed()

    def set_frame_poses(self, X_WF: FloatArray, frame: IntArray, X_FG: FloatArray) -> None:
        """Pose the first ``K`` geometries on frames: ``X_WG[g] = X_WF[frame[g]] X_FG[g]``.

        The fast path of a posed robot (Drake's geometry poses: frame pose times the geometry's
        pose in its frame); geometries ``K..G-1`` (e.g. world objects) keep their poses. No
        checks: ``X_WF`` must be finite rigid transforms (a FK result), ``frame`` valid frame
        indices.

        Args:
            X_WF: ``(F, 4, 4)`` C-contiguous frame poses in the world.
            frame: ``(K,)`` C-contiguous intp, the frame of each of the first K geometries.
            X_FG: ``(K, 4, 4)`` C-contiguous poses of those geometries in their frames.
        """
        if not (X_WF.flags.c_contiguous and frame.flags.c_contiguous
                and X_FG.flags.c_contiguous):
            raise InvalidArgumentError('FclObjects.set_frame_poses: arrays must be C-contiguous')
        if _kernel('pose_on_frames')(X_WF, frame, X_FG, self._X_WG, self._stale, self._lo_G,
                                     self._hi_G, self._finite, self._box_lo, self._box_hi):
            self._poses_changed()

    def _poses_changed(self) -> None:
        self.generation += 1
        self._manager_stale = True
        self._pose_index = None
        self._exact_cache.clear()

    def world_aabbs(self) -> tuple[FloatArray, FloatArray]:
        """``(lo_W, hi_W)``, each (G, 3): world AABBs at the current poses (read-only views).

        ``±inf`` on every axis for a geometry with an infinite extent (a half-space).
        """
        lo, hi = self._box_lo.view(), self._box_hi.view()
        lo.setflags(write=False)
        hi.setflags(write=False)
        return lo, hi

    def _local_boxes(self) -> None:
        """Centres and half extents of the geometries' local boxes (zeros where infinite)."""
        finite = self._finite[:, None]
        lo = np.where(finite, self._lo_G, 0.0)
        hi = np.where(finite, self._hi_G, 0.0)
        self._box_c = np.ascontiguousarray(0.5 * (lo + hi))
        self._box_h = np.ascontiguousarray(0.5 * (hi - lo))

    def _update_boxes(self) -> None:
        compiled_broadphase().world_boxes(self._lo_G, self._hi_G, self._X_WG, self._finite,
                                          self._box_lo, self._box_hi)

    def cull(self, pairs: IntArray, max_distance: float = 0.0, *,
             deepest_first: bool = False) -> IntArray:
        """The rows of ``pairs`` whose geometries may be within ``max_distance`` [m].

        Conservative (:func:`~robot_state_core.geometry.compiled.cull_pairs`): a dropped pair
        is provably farther apart; a kept one may still be apart. ``inf`` keeps every pair.

        Args:
            pairs: (P, 2) geometry indices (C-contiguous intp, as :meth:`_pairs` returns).
            max_distance: The distance [m]; 0 for collision.
            deepest_first: Order the rows by how deeply the pairs' boxes overlap, deepest
                first (for a verdict: the likeliest contact is tried first), else increasing.

        Returns:
            (K,) row indices into ``pairs``.
        """
        if not len(pairs) or math.isinf(max_distance):
            return np.arange(len(pairs))
        if not (pairs.dtype == np.intp and pairs.flags.c_contiguous):
            pairs = np.ascontiguousarray(pairs, dtype=np.intp)
        rows = np.empty(len(pairs), dtype=np.intp)
        count = _kernel('cull_pairs')(pairs, self._X_WG, self._finite, self._box_lo,
                                      self._box_hi, self._box_c, self._box_h,
                                      float(max(max_distance, 0.0)), bool(deepest_first), rows)
        return rows[:count]

    # ----------------------------------------------------------------------------------------
    # Deformable meshes

    def update_mesh_vertices(self, index: int, vertices: ArrayLike) -> None:
        """Move the vertices of a mesh (or convex) geometry, keeping its triangles.

        The geometry stops sharing its BVH with other objects: a private BVH (or convex hull)
        is rebuilt from the new vertices (python-fcl has no refit API).

        Args:
            index: A geometry whose shape is a :class:`Mesh` or :class:`Convex`.
            vertices: (V, 3) new vertex positions in the geometry frame [m]; same V as before
                (the mesh's welded vertex count, see :func:`meshes.load_mesh`).

        Raises:
            InvalidArgumentError: Not a mesh geometry, wrong vertex count, non-finite values.
        """
        i = self._check_index(index)
        old_v, faces = self._vertices[i], self._faces[i]
        shape = self._shapes[i]
        module = module_of(shape)
        if old_v is None or faces is None or not module.MESH_FILE:
            raise InvalidArgumentError(f'FclObjects.update_mesh_vertices: geometry {index} is a '
                                       f'{type(shape).__name__}, not a mesh')
        fcl = self._fcl
        geom, v, faces = module.fcl_with_vertices(fcl, np.array(vertices, dtype=np.float64),
                                                  old_v, faces,
                                                  'FclObjects.update_mesh_vertices')
        v.setflags(write=False)
        obj = fcl.CollisionObject(geom, fcl.Transform())
        obj.setRotation(self._X_WG[i, :3, :3])
        obj.setTranslation(self._X_WG[i, :3, 3])
        self._stale[i] = False
        if self._manager is not None:  # never a half-space: only meshes get here
            self._manager.unregisterObject(self._objects[i])
            self._manager.registerObject(obj)
            self._manager_stale = True
        self._geoms[i], self._objects[i] = geom, obj
        self._vertices[i], self._faces[i] = v, faces
        self._meshes.pop(i, None)
        self._lo_G[i], self._hi_G[i] = v.min(axis=0), v.max(axis=0)
        self._local_boxes()
        self._update_boxes()
        self._exact_cache.clear()

    # ----------------------------------------------------------------------------------------
    # Candidate pairs and broad phase

    def _pairs(self, pairs: ArrayLike, where: str) -> IntArray:
        table = self._table
        if table is not None:
            if pairs is self._table_source and isinstance(pairs, np.ndarray) \
                    and not pairs.flags.writeable:  # a precompiled (frozen) pair list
                return table.pairs
            if isinstance(pairs, np.ndarray) and pairs.shape == table.pairs.shape \
                    and np.array_equal(pairs, table.pairs):
                return table.pairs
        checked = check_pairs(pairs, len(self._objects), where)
        both = self._is_halfspace[checked[:, 0]] & self._is_halfspace[checked[:, 1]]
        if np.any(both):
            bad = checked[both][0]
            raise InvalidArgumentError(f'{where}: pair {tuple(bad.tolist())} is two half-spaces,'
                                       ' which have no finite contact or distance')
        self._table = _PairTable(checked, len(self._objects))
        self._table_source = pairs
        return self._table.pairs

    def _candidates(self, pairs: IntArray, broadphase: Broadphase,
                    max_distance: float = 0.0) -> IntArray:
        if broadphase == 'aabb' and len(pairs):
            return pairs[self.cull(pairs, max_distance)]
        return pairs

    def _manager_ready(self) -> Any:
        self._push_all()
        if self._manager is None:
            manager = self._fcl.DynamicAABBTreeCollisionManager()
            # A Halfspace inside the manager crashes python-fcl; half-space pairs are
            # checked directly instead (see _manager_pairs).
            manager.registerObjects([o for o, h in zip(self._objects, self._is_halfspace,
                                                       strict=True) if not h])
            manager.setup()
            self._manager = manager
            self._manager_stale = False
        elif self._manager_stale:
            self._manager.update()
            self._manager_stale = False
        return self._manager

    def _resolve(self, obj: Any) -> list[int]:
        """Geometry indices whose pose is the pose of a manager callback's object wrapper."""
        if self._pose_index is None:
            index: dict[bytes, list[int]] = {}
            for i, t in enumerate(self._X_WG[:, :3, 3]):
                index.setdefault(t.tobytes(), []).append(i)
            self._pose_index = index
            self._pose_rotation_index = {}
        translation = obj.getTranslation().tobytes()
        found = self._pose_index[translation]
        if len(found) > 1:  # geometries at one position (same link origin): match the rotation
            R = obj.getRotation()
            key = (translation, R.tobytes())
            same = self._pose_rotation_index.get(key)
            if same is None:  # once per pose update, not once per callback
                same = [i for i in found if np.array_equal(self._X_WG[i, :3, :3], R)] or found
                self._pose_rotation_index[key] = same
            found = same
        return found

    def _halfspace_ranks(self) -> list[int]:
        assert self._table is not None
        pairs = self._table.pairs
        with_hs = self._is_halfspace[pairs[:, 0]] | self._is_halfspace[pairs[:, 1]]
        out: list[int] = np.flatnonzero(with_hs).tolist()
        return out

    def _manager_pairs(self, visit: Callable[[int], bool]) -> None:
        """Run the manager's self-collision traversal; ``visit(rank)`` returns True to stop."""
        assert self._table is not None
        table = self._table
        seen: set[int] = set()
        for r in self._halfspace_ranks():
            seen.add(r)
            if visit(r):
                return

        def callback(o1: Any, o2: Any, _data: Any) -> bool:
            for a in self._resolve(o1):
                for b in self._resolve(o2):
                    r = table.rank_of(a, b)
                    if r < 0 or r in seen:
                        continue
                    seen.add(r)
                    if visit(r):
                        return True
            return False

        self._manager_ready().collide(None, callback)

    def _manager_distance_pairs(self, visit: Callable[[int], None],
                                max_distance: float) -> None:
        assert self._table is not None
        table = self._table
        seen: set[int] = set()
        for r in self._halfspace_ranks():
            seen.add(r)
            visit(r)

        def callback(o1: Any, o2: Any, _data: Any) -> tuple[bool, float]:
            for a in self._resolve(o1):
                for b in self._resolve(o2):
                    r = table.rank_of(a, b)
                    if r >= 0 and r not in seen:
                        seen.add(r)
                        visit(r)
            return False, max_distance

        self._manager_ready().distance(None, callback)

    # ----------------------------------------------------------------------------------------
    # Collision queries

    def _hit(self, a: int, b: int) -> bool:
        result = self._fcl.CollisionResult()
        return bool(self._fcl.collide(self._posed(a), self._posed(b), self._hit_request,
                                      result))

    def any_collision(self, pairs: ArrayLike, *, broadphase: Broadphase | None = None) -> bool:
        """Whether any candidate pair is in contact (stops at the first hit).

        Args:
            pairs: (P, 2) geometry indices.
            broadphase: Overrides the default broad phase.

        Raises:
            InvalidArgumentError: Invalid pairs (see :func:`query.check_pairs`), or a pair of two
                half-spaces.
        """
        table = self._pairs(pairs, 'FclObjects.any_collision')
        mode = self._mode(broadphase)
        if mode == 'manager':
            hit = [False]

            def visit(r: int) -> bool:
                a, b = table[r]
                hit[0] = self._hit(int(a), int(b))
                return hit[0]

            self._manager_pairs(visit)
            return hit[0]
        if mode == 'pairs':
            return any(self._hit(a, b) for a, b in table.tolist())
        # verdict only: the deepest box overlap is tried first
        rows = self.cull(table, deepest_first=True).tolist()
        if not rows:
            return False
        listed = self._table.listed if self._table is not None and table is self._table.pairs \
            else None
        collide = self._hit
        if listed is None:
            return any(collide(a, b) for a, b in table[rows].tolist())
        return any(collide(*listed[r]) for r in rows)

    def colliding_pairs(self, pairs: ArrayLike, *,
                        broadphase: Broadphase | None = None) -> IntArray:
        """The candidate pairs that are in contact, in candidate-list order.

        Args:
            pairs: (P, 2) geometry indices.
            broadphase: Overrides the default broad phase.

        Returns:
            (K, 2) geometry indices (rows of ``pairs``).
        """
        table = self._pairs(pairs, 'FclObjects.colliding_pairs')
        mode = self._mode(broadphase)
        hits: list[int] = []
        if mode == 'manager':
            def visit(r: int) -> bool:
                a, b = table[r]
                if self._hit(int(a), int(b)):
                    hits.append(r)
                return False

            self._manager_pairs(visit)
            hits.sort()
            return table[np.array(hits, dtype=np.intp)].reshape(-1, 2)
        cand = self._candidates(table, mode)
        keep = [k for k, (a, b) in enumerate(cand.tolist()) if self._hit(a, b)]
        out: IntArray = cand[np.array(keep, dtype=np.intp)].reshape(-1, 2)
        return out

    def collide_pairs(self, pairs: ArrayLike, max_contacts_per_pair: int = 1,
                      total_max: int | None = None, *,
                      broadphase: Broadphase | None = None) -> list[PenetrationAsPointPair]:
        """Contacts of the candidate pairs (MoveIt-style truncation).

        Args:
            pairs: (P, 2) geometry indices; A is the first column, B the second.
            max_contacts_per_pair: At most this many contacts per pair (>= 1).
            total_max: Stop once this many contacts are collected (``None``: no limit).
            broadphase: Overrides the default broad phase.

        Returns:
            Contacts ordered by candidate-pair order. With ``total_max`` and the ``'manager'``
            broad phase, *which* pairs make the cut can differ from the other broad phases.
        """
        return list(self.collide_summary(pairs, max_contacts_per_pair, total_max,
                                         broadphase=broadphase).contacts)

    def collide_summary(self, pairs: ArrayLike, max_contacts_per_pair: int = 1,
                        total_max: int | None = None, *,
                        broadphase: Broadphase | None = None) -> ContactSummary:
        """As :meth:`collide_pairs`, wrapped in a :class:`ContactSummary`."""
        table = self._pairs(pairs, 'FclObjects.collide_pairs')
        if int(max_contacts_per_pair) < 1:
            raise InvalidArgumentError('FclObjects.collide_pairs: max_contacts_per_pair must be '
                                       f'>= 1, got {max_contacts_per_pair}')
        if total_max is not None and int(total_max) < 1:
            raise InvalidArgumentError('FclObjects.collide_pairs: total_max must be >= 1 or '
                                       f'None, got {total_max}')
        k = int(max_contacts_per_pair)
        limit = math.inf if total_max is None else int(total_max)
        request = self._contact_requests.get(k)
        if request is None:
            request = self._contact_requests[k] = self._fcl.CollisionRequest(
                num_max_contacts=k, enable_contact=True)
        found: list[tuple[int, list[PenetrationAsPointPair]]] = []
        count = [0]

        def visit(r: int) -> bool:
            a, b = table[r]
            contacts = self._contacts(int(a), int(b), request, k)
            if contacts:
                room = limit - count[0]
                contacts = contacts[:int(min(room, len(contacts)))]
                found.append((r, contacts))
                count[0] += len(contacts)
            return count[0] >= limit

        mode = self._mode(broadphase)
        truncated = False
        if mode == 'manager':
            self._manager_pairs(visit)
            truncated = count[0] >= limit
        else:
            cand = self._candidates(table, mode)
            assert self._table is not None
            for r in self._table.ranks(cand[:, 0], cand[:, 1]).tolist():
                if visit(int(r)):
                    truncated = True
                    break
        found.sort(key=lambda item: item[0])
        return ContactSummary.from_contacts([c for _, cs in found for c in cs],
                                            truncated=truncated)

    def _mode(self, broadphase: Broadphase | None) -> Broadphase:
        return self._broadphase if broadphase is None else self._check_broadphase(broadphase)

    def _contacts(self, a: int, b: int, request: Any,
                  k: int) -> list[PenetrationAsPointPair]:
        fcl = self._fcl
        result = fcl.CollisionResult()
        fcl.collide(self._posed(a), self._posed(b), request, result)
        if not result.is_collision:
            return []
        if self._use_closed_form(a, b):
            exact = self._exact(a, b)
            if exact is not None:  # fcl's verdict, our geometry
                p_a, p_b, distance, nhat = exact
                if distance > 0.0:  # fcl's tolerance calls a touching pair colliding
                    p_a = p_b = 0.5 * (p_a + p_b)
                return [PenetrationAsPointPair(self._id_list[a], self._id_list[b], p_a, p_b,
                                               nhat, max(-distance, 0.0))]
        kind_a, kind_b = self._kinds[a], self._kinds[b]
        flip = kind_a != _MESH and kind_b == _MESH
        sphere_mesh = {kind_a, kind_b} == {_SPHERE, _MESH}
        out = []
        for c in result.contacts[:k]:
            n_AB = -c.normal if flip else c.normal
            nhat = -n_AB / max(float(np.linalg.norm(n_AB)), 1e-300)
            depth = abs(float(c.penetration_depth))
            pos = c.pos
            if sphere_mesh and kind_a == _MESH:  # pos is on the triangle: A's deepest point
                p_a, p_b = pos, pos + depth * nhat
            elif sphere_mesh:
                p_a, p_b = pos - depth * nhat, pos
            elif kind_a == _SPHERE:  # fcl's pos is radius-weighted, the sphere point is exact
                p_a = self._X_WG[a, :3, 3] - self._radius[a] * nhat
                p_b = p_a + depth * nhat
            elif kind_b == _SPHERE:
                p_b = self._X_WG[b, :3, 3] + self._radius[b] * nhat
                p_a = p_b - depth * nhat
            else:
                p_a, p_b = pos - 0.5 * depth * nhat, pos + 0.5 * depth * nhat
            out.append(PenetrationAsPointPair(self._id_list[a], self._id_list[b], p_a, p_b,
                                              nhat, depth))
        return out

    # ----------------------------------------------------------------------------------------
    # Distance queries

    def distance_pairs(self, pairs: ArrayLike, max_distance: float = math.inf, *,
                       broadphase: Broadphase | None = None) -> list[SignedDistancePair]:
        """Signed distances and witness points of the candidate pairs.

        Pairs of convex shapes (primitives, ellipsoids, hulls) and half-space pairs are exact:
        the distance when apart, minus the minimum translation distance when penetrating, with
        a witness on each surface (``FclObjects._exact``). Touching or penetrating meshes
        (fcl: 0 or -1) get ``-depth`` of their deepest triangle contact; a mesh fully inside
        another shape has no triangle contact and reports its positive surface distance
        (meshes are surfaces).

        Args:
            pairs: (P, 2) geometry indices; A is the first column, B the second.
            max_distance: Report only pairs with ``distance <= max_distance`` [m]; the ``'aabb'``
                and ``'manager'`` broad phases skip pairs whose boxes are farther apart.
            broadphase: Overrides the default broad phase.

        Returns:
            Results in candidate-pair order.
        """
        table = self._pairs(pairs, 'FclObjects.distance_pairs')
        limit = float(max_distance)
        if math.isnan(limit):
            raise InvalidArgumentError('FclObjects.distance_pairs: max_distance is NaN')
        mode = self._mode(broadphase)
        found: list[tuple[int, SignedDistancePair]] = []

        def visit(r: int) -> None:
            a, b = table[r]
            result = self._signed_distance(int(a), int(b))
            if result.distance <= limit:
                found.append((r, result))

        if mode == 'manager':
            self._manager_distance_pairs(visit, limit)
        else:
            cand = self._candidates(table, mode, max_distance=limit) if math.isfinite(limit) \
                else table
            assert self._table is not None
            for r in self._table.ranks(cand[:, 0], cand[:, 1]).tolist():
                visit(int(r))
        found.sort(key=lambda item: item[0])
        return [d for _, d in found]

    def distance_bounds(self, pairs: ArrayLike) -> FloatArray:
        """Lower bounds on the signed distance of the candidate pairs [m], at the current poses.

        From the posed bounding boxes (:func:`~robot_state_core.geometry.compiled.pair_bounds`):
        0 for a pair whose boxes may touch, else a gap no larger than the pair's distance.

        Args:
            pairs: (P, 2) geometry indices.

        Returns:
            (P,) the bounds, in candidate-pair order.
        """
        table = self._pairs(pairs, 'FclObjects.distance_bounds')
        out = np.empty(len(table))
        if len(table):
            _kernel('pair_bounds')(table, self._X_WG, self._finite, self._box_lo, self._box_hi,
                                   self._box_c, self._box_h, out)
        return out

    def minimum_distance_pair(self, pairs: ArrayLike) -> SignedDistancePair | None:
        """The candidate pair of smallest signed distance, with its witness points.

        Best first: the pairs are visited in increasing order of their box bound
        (:meth:`distance_bounds`) and the search stops at the first pair whose bound exceeds
        the smallest distance found so far (or 0, so that every pair whose boxes may touch is
        computed when the smallest distance is a penetration). A skipped pair cannot be closer
        than the answer, so the distance equals the minimum over every pair; each exact
        distance is computed once.

        Args:
            pairs: (P, 2) geometry indices.

        Returns:
            The closest pair (the first in bound order among equal distances), ``None``
            without pairs.
        """
        table = self._pairs(pairs, 'FclObjects.minimum_distance_pair')

        def measure(a: int, b: int) -> tuple[float, SignedDistancePair]:
            found = self._signed_distance(a, b)
            return found.distance, found

        closest: SignedDistancePair | None = self._best_first(table, measure)[1]
        return closest

    def minimum_distance(self, pairs: ArrayLike) -> float:
        """The smallest signed distance of the candidate pairs [m], ``inf`` without pairs.

        :meth:`minimum_distance_pair`'s search and value, without witness points: a pair
        whose distance is fcl's as is (a triangle mesh against a mesh, a box, cylinder, capsule,
        cone, ellipsoid or hull) and that fcl measures apart costs one ``fcl.distance``
        without nearest points (fcl computes the same per-triangle distances and keeps the
        points only when asked); every other pair (convex pairs, spheres and half-spaces
        against anything, touching or penetrating meshes) goes through the full signed
        distance, as in :meth:`distance_pairs`.

        Args:
            pairs: (P, 2) geometry indices.
        """
        table = self._pairs(pairs, 'FclObjects.minimum_distance')
        distance, request, sink = self._fcl.distance, self._value_request, self._sink
        posed, mesh, plain = self._posed, self._is_mesh, self._plain

        def measure(a: int, b: int) -> tuple[float, None]:
            if (mesh[a] or mesh[b]) and plain[a] and plain[b]:
                d = float(distance(posed(a), posed(b), request, sink))
                if d > 0.0:
                    return d, None
            return self._signed_distance(a, b).distance, None

        distance_min: float = self._best_first(table, measure)[0]
        return distance_min

    def _best_first(self, table: IntArray, measure: Callable[[int, int], tuple[float, Any]]
                    ) -> tuple[float, Any]:
        """``(distance, payload)`` of the closest pair of ``table`` (see the two callers)."""
        if not len(table):
            return math.inf, None
        bounds = np.empty(len(table))
        _kernel('pair_bounds')(table, self._X_WG, self._finite, self._box_lo, self._box_hi,
                               self._box_c, self._box_h, bounds)
        order = np.argsort(bounds, kind='stable')
        listed = self._table.listed if self._table is not None else None
        best, payload = math.inf, None
        limit = math.inf
        for r, bound in zip(order.tolist(), bounds[order].tolist(), strict=True):
            if bound > limit:
                break
            a, b = listed[r] if listed is not None else table[r].tolist()
            d, found = measure(a, b)
            if d < best or (payload is None and found is not None):
                best, payload = d, found
                limit = max(d, 0.0)
        return best, payload

    def _make_pair(self, a: int, b: int, p_WCa: FloatArray, p_WCb: FloatArray,
                   distance: float, nhat: FloatArray) -> SignedDistancePair:
        Xa, Xb = self._X_WG[a], self._X_WG[b]
        p_ACa = Xa[:3, :3].T @ (p_WCa - Xa[:3, 3])
        p_BCb = Xb[:3, :3].T @ (p_WCb - Xb[:3, 3])
        return SignedDistancePair(self._id_list[a], self._id_list[b], p_ACa, p_BCb, distance,
                                  nhat, p_WCa, p_WCb)

    def _signed_distance(self, a: int, b: int) -> SignedDistancePair:
        if self._use_closed_form(a, b):
            exact = self._exact(a, b)
            if exact is not None:
                return self._make_pair(a, b, *exact)
        fcl = self._fcl
        result = fcl.DistanceResult()
        d = float(fcl.distance(self._posed(a), self._posed(b), self._distance_request,
                               result))
        if d <= 0.0:  # touching or penetrating: fcl has no (reliable) signed distance
            exact = self._exact(a, b)  # sphere pairs: exact penetration from the point SDF
            if exact is not None and exact[2] <= 0.0:
                return self._make_pair(a, b, *exact)
            return self._distance_from_contact(a, b)
        kind_a, kind_b = self._kinds[a], self._kinds[b]
        if {kind_a, kind_b} == {_SPHERE, _MESH}:
            return self._sphere_mesh_distance(a, b, d)
        p1 = np.asarray(result.nearest_points[0], dtype=np.float64)
        p2 = np.asarray(result.nearest_points[1], dtype=np.float64)
        if kind_b == _MESH and kind_a != _MESH:  # fcl evaluated (B, A) and kept that order
            p1, p2 = p2, p1
        return self._make_pair(a, b, p1, p2, d, self._direction(a, b, p1, p2, d))

    def _direction(self, a: int, b: int, p_WCa: FloatArray, p_WCb: FloatArray,
                   d: float) -> FloatArray:
        """nhat_BA_W from the witness points, or from a contact normal when they coincide."""
        diff = p_WCa - p_WCb
        norm = float(np.linalg.norm(diff))
        if norm > 1e-12 and abs(d) > 1e-12:
            out: FloatArray = diff / norm if d > 0.0 else -diff / norm
            return out
        contacts = self._contacts(a, b, self._fcl.CollisionRequest(num_max_contacts=1,
                                                                   enable_contact=True), 1)
        if contacts:
            return contacts[0].nhat_BA_W.copy()
        centre = self._X_WG[a, :3, 3] - self._X_WG[b, :3, 3]  # arbitrary but deterministic
        n = float(np.linalg.norm(centre))
        return centre / n if n > 0.0 else np.array([0.0, 0.0, 1.0])

    def _distance_from_contact(self, a: int, b: int) -> SignedDistancePair:
        fcl = self._fcl
        k = _MAX_MESH_CONTACTS if self._is_bvh[a] or self._is_bvh[b] else 1
        contacts = self._contacts(a, b, fcl.CollisionRequest(num_max_contacts=k,
                                                             enable_contact=True), k)
        if not contacts:  # touching, or fcl's distance and collide disagree within tolerance
            result = fcl.DistanceResult()
            d = float(fcl.distance(self._posed(a), self._posed(b),
                                   fcl.DistanceRequest(enable_nearest_points=True,
                                                       enable_signed_distance=True), result))
            p1 = np.asarray(result.nearest_points[0], dtype=np.float64)
            p2 = np.asarray(result.nearest_points[1], dtype=np.float64)
            if self._is_bvh[b] and not self._is_bvh[a]:
                p1, p2 = p2, p1
            d = min(max(d, -1e-9), 0.0)  # only a touching pair gets here
            return self._make_pair(a, b, p1, p2, d, self._direction(a, b, p1, p2, d))
        c = max(contacts, key=lambda k: k.depth)
        return self._make_pair(a, b, c.p_WCa, c.p_WCb, -c.depth, c.nhat_BA_W)

    def _mesh(self, i: int) -> TriangleMesh | None:
        """Geometry ``i``'s triangles (kept with their soup), None for an analytic shape."""
        mesh = self._meshes.get(i)
        if mesh is None:
            v, f = self._vertices[i], self._faces[i]
            if v is None or f is None:
                return None
            mesh = self._meshes[i] = TriangleMesh(v, f)
        return mesh

    def _soup(self, i: int) -> TriangleSoup:
        mesh = self._mesh(i)
        assert mesh is not None
        return mesh.soup

    def _sphere_mesh_distance(self, a: int, b: int, d: float) -> SignedDistancePair:
        # fcl's sphere-triangle distance returns wrong nearest points: recompute them exactly.
        s, m = (a, b) if self._kinds[a] == _SPHERE else (b, a)
        radius = self._radius[s]
        X_WM = self._X_WG[m]
        c_W = self._X_WG[s, :3, 3]
        c_M = X_WM[:3, :3].T @ (c_W - X_WM[:3, 3])
        dist, p_M, _ = closest_point_on_triangles(
            c_M, self._soup(m), upper_bound=(d + radius) * (1.0 + 1e-9) + 1e-12)
        p_mesh = X_WM[:3, :3] @ p_M + X_WM[:3, 3]
        u = (c_W - p_mesh) / dist  # dist > radius > 0 here (penetration went to collide)
        p_sphere = c_W - radius * u
        distance = dist - radius
        if s == a:
            return self._make_pair(a, b, p_sphere, p_mesh, distance, u)
        return self._make_pair(a, b, p_mesh, p_sphere, distance, -u)

    def _use_closed_form(self, a: int, b: int) -> bool:
        key = (type(self._shapes[a]), type(self._shapes[b]))
        cached = self._closed_form.get(key)
        if cached is None:
            cached = self._closed_form[key] = _replace_by_closed_form(self._shapes[a],
                                                                     self._shapes[b])
        return cached

    def _exact(self, a: int, b: int) -> _Exact | None:
        """Our ``(p_WCa, p_WCb, distance, nhat_BA_W)`` where we have one, else None (meshes).

        Every half-space pair (closed form from a support point), a sphere against any convex
        shape (the exact point signed distance: a convex set plus a ball has signed distance
        ``sdf - r``), and every other pair of convex shapes (GJK and EPA on exact support
        functions, :func:`~robot_state_core.geometry.convex_distance.convex_signed_distance`:
        the penetration depth is the minimum translation distance). fcl's answers for these
        are crashes (half-spaces), GJK-approximate when apart, or MPR's (not minimal)
        penetration. The pair is computed in one order (lower geometry index first) and
        swapped for the other, so ``(A, B)`` and ``(B, A)`` give bit-identical results, as Drake's
        id-ordered pairs do; results are kept until the poses change (a contact query and a
        distance query on the same poses compute once).
        """
        if a > b:
            swapped = self._exact(b, a)
            if swapped is None:
                return None
            p_b, p_a, distance, nhat = swapped
            return p_a, p_b, distance, -nhat
        key = (a, b)
        if key not in self._exact_cache:
            self._exact_cache[key] = self._compute_exact(a, b)
        return self._exact_cache[key]

    def _compute_exact(self, a: int, b: int) -> _Exact | None:
        kind_a, kind_b = self._kinds[a], self._kinds[b]
        if kind_a == _HALFSPACE or kind_b == _HALFSPACE:
            return self._halfspace_exact(a, b)
        if kind_a == _MESH or kind_b == _MESH:
            return None
        if kind_b == _SPHERE:
            return self._sphere_exact(b, a, swap=True)
        if kind_a == _SPHERE:
            return self._sphere_exact(a, b, swap=False)
        return convex_signed_distance(self._shapes[a], self._X_WG[a], self._shapes[b],
                                      self._X_WG[b], self._vertices[a], self._vertices[b],
                                      faces_a=self._faces[a], faces_b=self._faces[b])

    def _halfspace_exact(self, a: int, b: int) -> _Exact:
        h, o = (a, b) if self._is_halfspace[a] else (b, a)
        X_WH = self._X_WG[h]
        n_W = X_WH[:3, 2].copy()
        p_O = support_point(self._shapes[o], self._X_WG[o], -n_W, self._vertices[o])
        distance = float(n_W @ (p_O - X_WH[:3, 3]))
        p_H = p_O - distance * n_W
        if h == b:  # A is the shape: nhat points out of the half-space into A
            return p_O, p_H, distance, n_W
        return p_H, p_O, distance, -n_W

    def _sphere_exact(self, s: int, o: int, *, swap: bool) -> _Exact:
        """Sphere ``s`` against convex ``o``; ``swap``: the sphere is B."""
        radius = self._radius[s]
        X_WO = self._X_WG[o]
        R, t = X_WO[:3, :3], X_WO[:3, 3]
        c_W = self._X_WG[s, :3, 3]
        sdf, p_ON, grad_O = self._point_distance_local(o, R.T @ (c_W - t))
        grad_W = R @ grad_O  # out of o, towards the sphere's centre
        p_o = R @ p_ON + t
        p_s = c_W - radius * grad_W
        distance = sdf - radius
        if swap:  # A = o, B = sphere: nhat out of the sphere into o
            return p_o, p_s, distance, -grad_W
        return p_s, p_o, distance, grad_W

    # ----------------------------------------------------------------------------------------
    # Point queries

    def signed_distance_to_point(self, p_WQ: ArrayLike,
                                 indices: ArrayLike | None = None,
                                 max_distance: float = math.inf
                                 ) -> list[SignedDistanceToPoint]:
        """Signed distance from a point Q to geometries (Drake ``ComputeSignedDistanceToPoint``).

        Primitives and half-spaces are closed form; convex hulls are exact (face planes inside,
        nearest triangle outside); meshes use the nearest triangle and a winding-number test
        for the sign (exact for closed meshes). No fcl call is involved.

        Args:
            p_WQ: (3,) query point in the world [m].
            indices: Geometry indices to test (default: all).
            max_distance: Report only geometries with ``distance <= max_distance`` [m].

        Returns:
            One result per reported geometry, in ``indices`` order.
        """
        p = np.asarray(p_WQ, dtype=np.float64).reshape(-1)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise InvalidArgumentError('FclObjects.signed_distance_to_point: p_WQ must be a '
                                       f'finite 3-vector, got {p_WQ!r}')
        which = range(len(self._objects)) if indices is None else \
            [self._check_index(i) for i in np.asarray(indices).reshape(-1).tolist()]
        out = []
        for i in which:
            X = self._X_WG[i]
            R, t = X[:3, :3], X[:3, 3]
            p_G = R.T @ (p - t)
            distance, p_GN, grad_G = self._point_distance_local(i, p_G)
            if distance <= max_distance:
                out.append(SignedDistanceToPoint(self._id_list[i], p_GN, distance, R @ grad_G,
                                                 R @ p_GN + t))
        return out

    def _point_distance_local(self, i: int,
                              p_G: FloatArray) -> tuple[float, FloatArray, FloatArray]:
        shape = self._shapes[i]
        out: tuple[float, FloatArray, FloatArray] = module_of(shape).point_signed_distance(
            shape, p_G, self._mesh(i))
        return out
