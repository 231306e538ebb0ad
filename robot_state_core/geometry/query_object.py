"""Geometric queries on one pose snapshot of a registry (Drake ``QueryObject``; G-C12, Q1-Q5).

A :class:`QueryObject` is bound to one set of geometry poses ``X_WG`` (computed from one set
of frame poses, e.g. the link poses of a
:class:`~robot_state_core.state.robot_state.RobotState`) and to the registry's
collision-filter state at that moment. It answers the proximity queries with Drake's names
(``has_collisions``, ``compute_point_pair_penetration``,
``compute_signed_distance_pairwise_closest_points``,
``compute_signed_distance_pair_closest_points``, ``compute_signed_distance_to_point``).
Results carry registry :data:`~robot_state_core.geometry.identifiers.GeometryId` s and follow
Drake's conventions (:mod:`robot_state_core.geometry.query`).

How the pieces fit::

    SceneGraph (registry: sources, frames, geometries, roles, filters)
      └─ GeometryState ──> SceneGraphInspector (read-only view)
                      └──> candidate pairs (same-frame rule, declarations, compiled filters)
    frame poses ──> X_WG ──> QueryObject (this module) ──> FclObjects (python-fcl narrow phase)

Two producers make snapshots: :meth:`QueryObject.from_scene_graph` (any registry and its frame
poses) and :meth:`robot_state_core.scene.planning_scene.PlanningScene.query_object` (a state of the
scene's robot; the scene keeps its fcl objects and compiled arrays between queries, so a query
costs one batched pose product plus the narrow phase).

Both producers return **baked** snapshots: each owns its posed fcl objects, so it answers for
its poses for as long as it is kept, whatever its producer does next (Drake's QueryObject is
either live or baked; ours are baked). The planning scene's own queries use snapshots over the
thread's shared fcl objects, answered at once; a snapshot used after its objects were posed
for another state raises :class:`~robot_state_core.errors.StaleQueryObjectError` instead of
answering for poses it was not made for.

Our additions: every query takes an optional ``pairs`` argument, a subset of
:meth:`QueryObject.candidate_pairs` (positions into :attr:`QueryObject.geometry_ids`), which is
how the planning scene applies MoveIt's group and self/world selections;
``compute_point_pair_penetration`` takes MoveIt's contact limits; and
:meth:`QueryObject.compute_minimum_signed_distance` returns the minimum over the pairs with an
AABB bound (the number MoveIt's distance queries report).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray, Int64Array, IntArray
from robot_state_core.errors import (
    GeometryRegistrationError,
    InvalidArgumentError,
    StaleQueryObjectError,
)
from robot_state_core.geometry.fcl_backend import Broadphase, FclObjects
from robot_state_core.geometry.identifiers import GeometryId
from robot_state_core.geometry.inspector import SceneGraphInspector
from robot_state_core.geometry.query import (
    aabb_overlaps,
    PenetrationAsPointPair,
    SignedDistancePair,
    SignedDistanceToPoint,
)
from robot_state_core.geometry.roles import Role
from robot_state_core.geometry.scene_graph import FramePoses, SceneGraph

__all__ = ['QueryObject', 'candidate_index_pairs']


def candidate_index_pairs(candidate_ids: ArrayLike, geometry_ids: Int64Array) -> IntArray:
    """Registry candidate pairs (ids) as index pairs into an ordered list of geometries.

    Args:
        candidate_ids: ``(K, 2)`` geometry-id pairs, e.g.
            :meth:`~robot_state_core.geometry.inspector.SceneGraphInspector.get_collision_candidate_array`.
        geometry_ids: ``(G,)`` the geometries, in the caller's index order.

    Returns:
        ``(P, 2)`` index pairs ``a < b`` in ``numpy.triu_indices(G, 1)`` order; pairs naming a
        geometry outside ``geometry_ids`` are dropped.
    """
    pairs = np.asarray(candidate_ids, dtype=np.int64).reshape(-1, 2)
    ids = np.asarray(geometry_ids, dtype=np.int64)
    G = len(ids)
    if len(pairs) == 0 or G < 2:
        return np.zeros((0, 2), dtype=np.intp)
    order = np.argsort(ids, kind='stable')
    sorted_ids = ids[order]
    pos = np.minimum(np.searchsorted(sorted_ids, pairs), G - 1)
    inside = (sorted_ids[pos] == pairs).all(axis=1)
    index = order[pos[inside]]
    a, b = index.min(axis=1), index.max(axis=1)
    rank = np.argsort(a * G + b, kind='stable')
    out: IntArray = np.column_stack([a[rank], b[rank]]).astype(np.intp)
    return out


class QueryObject:
    """Proximity queries on one pose snapshot, honouring the registry's filters (module doc).

    Attributes:
        geometry_ids: ``(G,)`` the snapshot's geometries, in index order (read-only).
    """

    __slots__ = ('_candidate_set', '_candidates', '_generation', '_index', '_inspector',
                 '_objects', 'geometry_ids')

    def __init__(self, inspector: SceneGraphInspector, objects: FclObjects,
                 geometry_ids: Int64Array, candidates: IntArray,
                 index_of: dict[int, int] | None = None) -> None:
        """Bind a snapshot (producers call this; see the module docstring).

        Args:
            inspector: The registry's inspector.
            objects: fcl objects of the ``G`` geometries, already posed; their ids are
                ``geometry_ids``.
            geometry_ids: ``(G,)`` registry ids, in index order.
            candidates: ``(P, 2)`` index pairs ``i < j`` the filters let through.
            index_of: ``{geometry id: index}`` (built when not given).
        """
        self._inspector = inspector
        self._objects = objects
        self._generation = objects.generation
        self.geometry_ids = geometry_ids
        self._candidates = candidates
        self._candidate_set: set[tuple[int, int]] | None = None
        self._index = index_of if index_of is not None else {
            g: k for k, g in enumerate(geometry_ids.tolist())}

    @classmethod
    def from_scene_graph(cls, scene_graph: SceneGraph, frame_poses: FramePoses, *,
                         broadphase: Broadphase = 'aabb') -> QueryObject:
        """A snapshot of every rigid proximity geometry of a registry at the given frame poses.

        Deformable geometries are left out (no deformable contact here).

        Args:
            scene_graph: The registry.
            frame_poses: ``X_PF`` of every registered frame
                (:meth:`~robot_state_core.geometry.scene_graph.SceneGraph.compute_world_poses`).
            broadphase: The fcl broad phase of the queries.

        Raises:
            InvalidArgumentError: Bad frame poses (G-C11).
            BackendUnavailableError: python-fcl is missing.
        """
        inspector = scene_graph.model_inspector()
        all_ids = inspector.get_all_geometry_ids(Role.PROXIMITY)
        X_WG = scene_graph.compute_world_poses(frame_poses, Role.PROXIMITY)
        rigid = np.array([not inspector.is_deformable(g) for g in all_ids], dtype=bool)
        ids = np.array(all_ids, dtype=np.int64)[rigid] if len(all_ids) else \
            np.zeros(0, dtype=np.int64)
        ids.setflags(write=False)
        objects = FclObjects([inspector.get_shape(GeometryId(g)) for g in ids.tolist()],
                             ids.tolist(), broadphase=broadphase)
        objects.set_poses(X_WG[rigid] if len(all_ids) else np.zeros((0, 4, 4)))
        candidates = candidate_index_pairs(inspector.get_collision_candidate_array(), ids)
        return cls(inspector, objects, ids, candidates)

    # ------------------------------------------------------------------ the snapshot

    def inspector(self) -> SceneGraphInspector:
        """The registry's inspector (Drake ``QueryObject::inspector``)."""
        return self._inspector

    def candidate_pairs(self) -> IntArray:
        """``(P, 2)`` index pairs the filters let through (positions into ``geometry_ids``)."""
        return self._candidates

    def _position(self, geometry_id: GeometryId, where: str) -> int:
        k = self._index.get(int(geometry_id))
        if k is None:
            raise GeometryRegistrationError(
                f'{where}: geometry id {geometry_id!r} is not a proximity geometry of this '
                'snapshot')
        return k

    def get_pose_in_world(self, geometry_id: GeometryId) -> FloatArray:
        """``X_WG`` of one geometry at the snapshot (Drake ``GetPoseInWorld``).

        Raises:
            GeometryRegistrationError: Not a geometry of the snapshot.
        """
        k = self._position(geometry_id, 'QueryObject.get_pose_in_world')
        out: FloatArray = self._fresh().X_WG[k]
        return out

    def _pairs(self, pairs: ArrayLike | None) -> IntArray:
        if pairs is None:
            return self._candidates
        if isinstance(pairs, np.ndarray) and pairs.ndim == 2 and pairs.dtype == np.intp:
            return pairs  # the scene's selections: no conversion per query
        out: IntArray = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        return out

    def _fresh(self) -> FclObjects:
        """The snapshot's fcl objects; StaleQueryObjectError once they were posed anew."""
        objects = self._objects
        if objects.generation != self._generation:
            raise StaleQueryObjectError(
                'QueryObject: its geometries were posed for another state after the snapshot '
                'was taken (a snapshot over shared fcl objects is valid until their next '
                'query; PlanningScene.query_object returns one that stays valid)')
        return objects

    # ------------------------------------------------------------------ queries

    def has_collisions(self, *, pairs: ArrayLike | None = None,
                       broadphase: Broadphase | None = None) -> bool:
        """True if any candidate pair is in contact (Drake ``HasCollisions``; Q1, Q2).

        Stops at the first contact.

        Args:
            pairs: A subset of :meth:`candidate_pairs` (default: all of them).
            broadphase: Overrides the snapshot's broad phase.
        """
        table = self._pairs(pairs)
        return len(table) > 0 and self._fresh().any_collision(table, broadphase=broadphase)

    def compute_point_pair_penetration(
            self, *, pairs: ArrayLike | None = None, max_contacts_per_pair: int = 1,
            max_contacts: int | None = None,
            broadphase: Broadphase | None = None) -> list[PenetrationAsPointPair]:
        """Contacts of the candidate pairs (Drake ``ComputePointPairPenetration``; Q3).

        Args:
            pairs: A subset of :meth:`candidate_pairs` (default: all of them).
            max_contacts_per_pair: Contacts per pair (> 1 only matters for meshes).
            max_contacts: Stop after this many contacts (default: no limit).
            broadphase: Overrides the snapshot's broad phase.

        Returns:
            Contacts in pair order; ``id_A`` is the geometry of the pair's first index.
        """
        table = self._pairs(pairs)
        if len(table) == 0:
            return []
        return self._fresh().collide_pairs(table, max_contacts_per_pair, max_contacts,
                                           broadphase=broadphase)

    def compute_signed_distance_pairwise_closest_points(
            self, max_distance: float = math.inf, *, pairs: ArrayLike | None = None,
            broadphase: Broadphase | None = None) -> list[SignedDistancePair]:
        """Signed distances of the candidate pairs within ``max_distance`` (Q4).

        Drake ``ComputeSignedDistancePairwiseClosestPoints``.

        Args:
            max_distance: Report pairs with ``distance <= max_distance`` [m].
            pairs: A subset of :meth:`candidate_pairs` (default: all of them).
            broadphase: Overrides the snapshot's broad phase.
        """
        table = self._pairs(pairs)
        if len(table) == 0:
            return []
        return self._fresh().distance_pairs(table, max_distance, broadphase=broadphase)

    def compute_signed_distance_pair_closest_points(
            self, geometry_id_A: GeometryId,
            geometry_id_B: GeometryId) -> SignedDistancePair:
        """Signed distance of one pair (Drake ``ComputeSignedDistancePairClosestPoints``).

        ``id_A`` of the result is ``geometry_id_A``. As in Drake, a filtered pair is refused.

        Raises:
            GeometryRegistrationError: An id is not a geometry of the snapshot.
            InvalidArgumentError: The two ids are equal, or the pair is filtered.
        """
        where = 'QueryObject.compute_signed_distance_pair_closest_points'
        a = self._position(geometry_id_A, where)
        b = self._position(geometry_id_B, where)
        if a == b:
            raise InvalidArgumentError(f'{where}: the two geometries are the same '
                                       f'({geometry_id_A})')
        if self._candidate_set is None:
            self._candidate_set = {(int(i), int(j)) for i, j in self._candidates.tolist()}
        if (min(a, b), max(a, b)) not in self._candidate_set:
            raise InvalidArgumentError(
                f'{where}: the pair ({geometry_id_A}, {geometry_id_B}) is filtered (same frame, '
                'a filter declaration or a compiled filter)')
        return self._fresh().distance_pairs(np.array([[a, b]]), broadphase='pairs')[0]

    def compute_signed_distance_to_point(self, p_WQ: ArrayLike,
                                         threshold: float = math.inf
                                         ) -> list[SignedDistanceToPoint]:
        """Signed distance from a point to every geometry within ``threshold`` (Q5).

        Drake ``ComputeSignedDistanceToPoint``.
        """
        return self._fresh().signed_distance_to_point(p_WQ, None, threshold)

    def find_collision_candidates(self) -> list[tuple[GeometryId, GeometryId]]:
        """Candidate pairs whose world AABBs overlap (Drake ``FindCollisionCandidates``)."""
        table = self._candidates
        if len(table) == 0:
            return []
        lo, hi = self._fresh().world_aabbs()
        hit = table[aabb_overlaps(lo, hi, table)]
        ids = self.geometry_ids
        return [(GeometryId(int(ids[a])), GeometryId(int(ids[b]))) for a, b in hit.tolist()]

    def compute_minimum_signed_distance(self, *, pairs: ArrayLike | None = None) -> float:
        """The minimum signed distance [m] over the pairs; ``inf`` without pairs (our addition).

        The distance of :meth:`compute_minimum_signed_distance_pair`, by the same search
        without witness points (:meth:`FclObjects.minimum_distance`).
        """
        table = self._pairs(pairs)
        if len(table) == 0:
            return math.inf
        return self._fresh().minimum_distance(table)

    def compute_minimum_signed_distance_pair(self, *, pairs: ArrayLike | None = None
                                             ) -> SignedDistancePair | None:
        """The pair of smallest signed distance with its witness points, ``None`` without pairs.

        Best first (:meth:`FclObjects.minimum_distance_pair`, our addition; MoveIt's global
        distance query): pairs in increasing order of a lower bound from their posed bounding
        boxes, stopping at the first whose bound exceeds the smallest distance found (or 0);
        the skipped pairs cannot be closer.
        """
        table = self._pairs(pairs)
        if len(table) == 0:
            return None
        return self._fresh().minimum_distance_pair(table)

    def __repr__(self) -> str:
        return (f'<QueryObject: {len(self.geometry_ids)} geometries, '
                f'{len(self._candidates)} candidate pairs>')
