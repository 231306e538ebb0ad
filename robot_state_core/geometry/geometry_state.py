"""The data of a geometry registry (Drake ``GeometryState``; G-04, G-C2, G-C10, G-29, G-30).

:class:`GeometryState` holds everything a
:class:`~robot_state_core.geometry.scene_graph.SceneGraph` knows: its sources, frames and
geometries (internal records), renderers, per-role versions and the collision-filter state. The
registry edits it (every rule of registration, ownership and versioning lives in
``scene_graph.py``); its read-only
:class:`~robot_state_core.geometry.inspector.SceneGraphInspector` and the query layer
(:class:`~robot_state_core.geometry.query_object.QueryObject`) read it. Both modules import this
one, so none of them imports the registry (no import cycle).

Collision-filter state (G-29, G-30). A pair of proximity geometries is filtered when

* both are rigid and affixed to the same frame (anchored geometries share the world frame);
  deformables get no implicit filter;
* a :class:`~robot_state_core.geometry.scene_graph.CollisionFilterManager` declaration excluded
  it (``excluded``: canonical ``(low id, high id)`` pairs; ``allow_*`` statements remove them);
* a *compiled filter* excludes it: a named layer of id pairs installed as a whole with
  :meth:`CollisionFilterManager.set_compiled_filter
  <robot_state_core.geometry.scene_graph.CollisionFilterManager.set_compiled_filter>`
  (our addition). A :class:`~robot_state_core.scene.planning_scene.PlanningScene` compiles
  its ACM and MoveIt's body rules into the layer ``'planning_scene'`` and replaces it when they
  change.

:meth:`GeometryState.candidate_pairs` turns the filter state into the candidate pairs of any
ordered list of geometries with array operations; the inspector's
``get_collision_candidate_array`` and the planning scene's compiled pair list both come from it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
import itertools

import numpy as np

from robot_state_core._typing import BoolArray, FloatArray, Int64Array, IntArray
from robot_state_core.errors import GeometryRegistrationError
from robot_state_core.geometry.identifiers import (
    FrameId,
    GeometryId,
    GeometryVersion,
    ReferenceMesh,
    SourceId,
    WORLD_FRAME_ID,
)
from robot_state_core.geometry.roles import Role, RoleProperties, SINGLE_ROLES
from robot_state_core.geometry.shapes import Shape

new_id = itertools.count(1).__next__
'''Draws an id of any kind (source, frame, geometry), unique in the process.'''
new_version = itertools.count(1).__next__
'''Draws a role version value, unique in the process.'''

WORLD_FRAME_NAME = 'world'
'''The world frame's name.'''
INTERNAL_SOURCE_NAME = 'SceneGraphInternal'
'''Name of the registry's own source, which owns the world frame.'''
INTERNAL_SOURCE_ID = SourceId(new_id())
'''Id of the registry's own source (the same in every registry).'''


@dataclass(slots=True, eq=False)
class SourceRecord:
    """A registered source (internal record)."""

    id: SourceId
    name: str
    frame_ids: list[FrameId] = field(default_factory=list)
    #: Frame name -> id, for the per-source uniqueness checks (a 10 000-frame chain must not
    #: scan every frame per registration).
    frame_by_name: dict[str, FrameId] = field(default_factory=dict)

    def copy(self) -> SourceRecord:
        """An independent copy."""
        return SourceRecord(self.id, self.name, list(self.frame_ids), dict(self.frame_by_name))


@dataclass(slots=True, eq=False)
class FrameRecord:
    """A registered frame (internal record)."""

    id: FrameId
    name: str
    source_id: SourceId
    parent_id: FrameId
    frame_group: int
    depth: int  # world 0
    index: int  # position in the world-first frame stack: world 0, others 1..F
    child_frame_ids: list[FrameId] = field(default_factory=list)
    #: The frame's geometries in registration order (an ordered set: O(1) removal).
    geometry_ids: dict[GeometryId, None] = field(default_factory=dict)
    #: ``{name: geometries of that name}``, for the name rules (G-17, G-26) in O(1).
    geometry_names: dict[str, list[GeometryId]] = field(default_factory=dict)

    def copy(self) -> FrameRecord:
        """An independent copy."""
        return FrameRecord(self.id, self.name, self.source_id, self.parent_id,
                           self.frame_group, self.depth, self.index, list(self.child_frame_ids),
                           dict(self.geometry_ids),
                           {k: list(v) for k, v in self.geometry_names.items()})

    def add_geometry(self, geometry_id: GeometryId, name: str) -> None:
        """Record a geometry of this frame."""
        self.geometry_ids[geometry_id] = None
        self.geometry_names.setdefault(name, []).append(geometry_id)

    def forget_name(self, geometry_id: GeometryId, name: str) -> None:
        """Drop ``geometry_id`` from the name index under ``name``."""
        same = self.geometry_names[name]
        same.remove(geometry_id)
        if not same:
            del self.geometry_names[name]


@dataclass(slots=True, eq=False)
class DeformableRecord:
    """The mesh data of a deformable geometry (internal record)."""

    resolution_hint: float
    reference: ReferenceMesh
    configuration: FloatArray  # current vertex positions in F, (V, 3), read-only


@dataclass(slots=True, eq=False)
class GeometryRecord:
    """A registered geometry (internal record)."""

    id: GeometryId
    name: str
    source_id: SourceId
    frame_id: FrameId
    shape: Shape
    X_FG: FloatArray
    parent_geometry_id: GeometryId | None
    child_geometry_ids: list[GeometryId] = field(default_factory=list)
    roles: dict[Role, RoleProperties] = field(default_factory=dict)
    renderers: set[str] = field(default_factory=set)
    deformable: DeformableRecord | None = None

    def role_flags(self) -> Role:
        """The roles as flags (``Role.UNASSIGNED`` if none)."""
        flags = Role.UNASSIGNED
        for role in self.roles:
            flags |= role
        return flags

    def copy(self) -> GeometryRecord:
        """An independent copy.

        Shapes, poses, meshes and role property sets are shared: the registry stores its own
        copy of a property set and replaces it (never edits it in place); getters hand out
        copies.
        """
        deformable = self.deformable
        if deformable is not None:
            deformable = DeformableRecord(deformable.resolution_hint, deformable.reference,
                                          deformable.configuration)
        return GeometryRecord(self.id, self.name, self.source_id, self.frame_id, self.shape,
                              self.X_FG, self.parent_geometry_id, list(self.child_geometry_ids),
                              dict(self.roles),
                              set(self.renderers), deformable)


class GeometryState:
    """Sources, frames, geometries, renderers, versions and collision filters of a registry.

    Attributes:
        sources: ``{SourceId: SourceRecord}``; the first is the internal source.
        frames: ``{FrameId: FrameRecord}``; the first is the world frame.
        frame_order: Non-world frames in registration (= topological) order.
        geometries: ``{GeometryId: GeometryRecord}`` in registration order.
        renderers: ``{name: engine}`` in the order added.
        versions: The current version of each single role.
        excluded: Pairs excluded by filter declarations, canonical ``(low id, high id)``.
        compiled_filters: ``{name: (K, 2) int64 array}``, the compiled layers: canonical
            ``(low id, high id)`` rows, unique, sorted, read-only.
        revision: Bumped by every model edit (keys caches of derived arrays).
    """

    __slots__ = ('_version', 'compiled_filters', 'excluded', 'frame_order', 'frames',
                 'geometries', 'renderers', 'revision', 'sources', 'versions')

    def __init__(self) -> None:
        self.sources: dict[SourceId, SourceRecord] = {
            INTERNAL_SOURCE_ID: SourceRecord(INTERNAL_SOURCE_ID, INTERNAL_SOURCE_NAME,
                                             [WORLD_FRAME_ID],
                                             {WORLD_FRAME_NAME: WORLD_FRAME_ID})}
        self.frames: dict[FrameId, FrameRecord] = {
            WORLD_FRAME_ID: FrameRecord(WORLD_FRAME_ID, WORLD_FRAME_NAME, INTERNAL_SOURCE_ID,
                                        WORLD_FRAME_ID, 0, depth=0, index=0)}
        self.frame_order: list[FrameId] = []
        self.geometries: dict[GeometryId, GeometryRecord] = {}
        self.renderers: dict[str, object] = {}
        self.versions: dict[Role, int] = {role: new_version() for role in SINGLE_ROLES}
        self.excluded: set[tuple[int, int]] = set()
        self.compiled_filters: dict[str, Int64Array] = {}
        self.revision = 0
        self._version: GeometryVersion | None = None

    def copy(self) -> GeometryState:
        """An independent copy with the same ids, versions and filters.

        Drake copies its geometry state into each context; renderer engines are shared.
        """
        other = GeometryState.__new__(GeometryState)
        other.sources = {k: v.copy() for k, v in self.sources.items()}
        other.frames = {k: v.copy() for k, v in self.frames.items()}
        other.frame_order = list(self.frame_order)
        other.geometries = {k: v.copy() for k, v in self.geometries.items()}
        other.renderers = dict(self.renderers)
        other.versions = dict(self.versions)
        other.excluded = set(self.excluded)
        other.compiled_filters = dict(self.compiled_filters)
        other.revision = self.revision
        other._version = self._version
        return other

    # ------------------------------------------------------------------ lookups, messages

    def describe(self, any_id: int) -> str:
        """``"frame 'name' (id 7)"`` and the like, for messages."""
        if any_id in self.sources:
            return f'source {self.sources[SourceId(any_id)].name!r} (id {any_id})'
        if any_id in self.frames:
            return f'frame {self.frames[FrameId(any_id)].name!r} (id {any_id})'
        if any_id in self.geometries:
            return f'geometry {self.geometries[GeometryId(any_id)].name!r} (id {any_id})'
        return f'id {any_id}'

    def unknown(self, where: str, kind: str, any_id: object,
                rule: str) -> GeometryRegistrationError:
        """The error for an unknown id of ``kind`` (naming what the id is, if anything)."""
        hint = ''
        if isinstance(any_id, int) and not isinstance(any_id, bool):
            tables: tuple[tuple[str, Collection[int]], ...] = (
                ('source', self.sources.keys()), ('frame', self.frames.keys()),
                ('geometry', self.geometries.keys()))
            for other, table in tables:
                if other != kind and any_id in table:
                    hint = f' ({any_id} is a {other} id: {self.describe(any_id)})'
        return GeometryRegistrationError(
            f'{where}: {kind} id {any_id!r} is not registered{hint} ({rule})')

    def frame(self, frame_id: FrameId, where: str, rule: str) -> FrameRecord:
        """The frame record, or GeometryRegistrationError."""
        frame = self.frames.get(frame_id)
        if frame is None:
            raise self.unknown(where, 'frame', frame_id, rule)
        return frame

    def geometry(self, geometry_id: GeometryId, where: str, rule: str) -> GeometryRecord:
        """The geometry record, or GeometryRegistrationError."""
        geometry = self.geometries.get(geometry_id)
        if geometry is None:
            raise self.unknown(where, 'geometry', geometry_id, rule)
        return geometry

    def frame_ids(self, source_id: SourceId | None = None) -> tuple[FrameId, ...]:
        """Registered frames (world excluded) in registration order, of one source or all.

        Raises:
            GeometryRegistrationError: ``source_id`` is unknown.
        """
        if source_id is None:
            return tuple(self.frame_order)
        source = self.sources.get(source_id)
        if source is None:
            raise self.unknown('SceneGraph.frame_ids', 'source', source_id, 'G-C2')
        return tuple(f for f in source.frame_ids if f != WORLD_FRAME_ID)

    def deformable_configuration(self, geometry_id: GeometryId) -> FloatArray:
        """The current ``(V, 3)`` vertex positions in F of a deformable geometry (read-only).

        Raises:
            GeometryRegistrationError: Unknown or not deformable geometry.
        """
        where = 'SceneGraph.get_deformable_configuration'
        geometry = self.geometry(geometry_id, where, 'G-C6')
        if geometry.deformable is None:
            raise GeometryRegistrationError(
                f'{where}: {self.describe(geometry_id)} is not deformable (G-C6)')
        return geometry.deformable.configuration

    # ------------------------------------------------------------------ versions

    def bump(self, role: Role) -> None:
        """Draws a new version for ``role``."""
        self.versions[role] = new_version()
        self._version = None

    def geometry_version(self) -> GeometryVersion:
        """The current per-role versions (one immutable object until the next bump)."""
        version = self._version
        if version is None:
            v = self.versions
            version = self._version = GeometryVersion(
                proximity=v[Role.PROXIMITY], illustration=v[Role.ILLUSTRATION],
                perception=v[Role.PERCEPTION])
        return version

    def edited(self) -> None:
        """Records a model edit."""
        self.revision += 1

    # ------------------------------------------------------------------ collision filters

    def purge_filters(self, ids: set[int]) -> None:
        """Drops every explicit and compiled filter naming one of ``ids``."""
        if self.excluded:
            self.excluded.difference_update(
                [p for p in self.excluded if p[0] in ids or p[1] in ids])
        if not self.compiled_filters:
            return
        gone = np.fromiter(ids, dtype=np.int64, count=len(ids))
        for name, pairs in list(self.compiled_filters.items()):
            hit = np.isin(pairs, gone).any(axis=1)
            if hit.any():
                kept = pairs[~hit]
                kept.setflags(write=False)
                self.compiled_filters[name] = kept

    def explicitly_filtered(self, a: int, b: int) -> bool:
        """True if a declaration or a compiled filter excludes the pair ``(a, b)``."""
        lo, hi = min(a, b), max(a, b)
        return (lo, hi) in self.excluded or any(
            bool(((p[:, 0] == lo) & (p[:, 1] == hi)).any())
            for p in self.compiled_filters.values())

    def _excluded_pairs(self, skip_layers: Collection[str] = ()) -> Int64Array:
        """Every declared or compiled excluded pair, ``(K, 2)`` canonical ids (may repeat).

        Compiled layers named in ``skip_layers`` are left out.
        """
        parts = [np.array(sorted(self.excluded), dtype=np.int64).reshape(-1, 2),
                 *(p for name, p in self.compiled_filters.items() if name not in skip_layers)]
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def candidate_pairs(self, geometry_ids: Sequence[int] | Int64Array,
                        skip_layers: Collection[str] = ()) -> IntArray:
        """The unfiltered pairs among ``geometry_ids`` as positions into that sequence.

        The cost is linear in the number of pairs on different frames (plus same-frame pairs
        with a deformable geometry), not in ``n²``: thousands of world geometries on the world
        frame next to a robot's links give about ``n × links`` pairs, not ``n²/2``.

        Args:
            geometry_ids: ``(n,)`` registered geometry ids, in the order the caller indexes
                them (no role check here; callers pass proximity geometries).
            skip_layers: Compiled filter layers to ignore.

        Returns:
            ``(P, 2)`` positions ``(i, j)`` with ``i < j``, in ``numpy.triu_indices(n, 1)``
            order, of the pairs that are neither implicitly filtered (rigid, same frame) nor
            excluded by a declaration or a compiled filter.
        """
        ids = np.asarray(geometry_ids, dtype=np.int64).reshape(-1)
        n = len(ids)
        if n < 2:
            return np.zeros((0, 2), dtype=np.intp)
        records = [self.geometries[GeometryId(int(g))] for g in ids.tolist()]
        frame = np.fromiter((self.frames[g.frame_id].index for g in records), dtype=np.intp,
                            count=n)
        rigid = np.fromiter((g.deformable is None for g in records), dtype=bool, count=n)
        i, j = _cross_frame_pairs(frame, rigid)
        excluded = self._excluded_pairs(skip_layers)
        if len(excluded) and len(i):
            order = np.argsort(ids, kind='stable')
            sorted_ids = ids[order]
            pos = np.searchsorted(sorted_ids, excluded)
            pos = np.minimum(pos, n - 1)
            found = (sorted_ids[pos] == excluded).all(axis=1)
            pa, pb = order[pos[found, 0]], order[pos[found, 1]]
            codes = np.minimum(pa, pb) * n + np.maximum(pa, pb)
            keep = ~np.isin(i * n + j, codes)
            i, j = i[keep], j[keep]
        return np.column_stack([i, j]).astype(np.intp)


def _cross_frame_pairs(frame: IntArray, rigid: BoolArray) -> tuple[IntArray, IntArray]:
    """Positions ``(i, j)``, ``i < j``, in ``triu_indices`` order, of the pairs not on one frame.

    Same-frame pairs are kept when one of the two geometries is deformable.
    """
    n = len(frame)
    order = np.argsort(frame, kind='stable')
    starts = np.flatnonzero(np.r_[True, frame[order][1:] != frame[order][:-1]])
    ends = np.r_[starts[1:], n]
    parts_i: list[IntArray] = []
    parts_j: list[IntArray] = []
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        block, later = order[s:e], order[e:]
        if len(later):
            parts_i.append(np.repeat(block, len(later)))
            parts_j.append(np.tile(later, len(block)))
        soft = block[~rigid[block]]
        if len(soft):  # a deformable geometry meets every other geometry of its frame
            parts_i.append(np.repeat(soft, len(block)))
            parts_j.append(np.tile(block, len(soft)))
    if not parts_i:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    a, b = np.concatenate(parts_i), np.concatenate(parts_j)
    i, j = np.minimum(a, b), np.maximum(a, b)
    keys = i[i != j].astype(np.int64) * n + j[i != j]
    keys.sort()  # triu order
    if not rigid.all():  # pairs of two deformable geometries on one frame came twice
        keys = keys[np.r_[True, keys[1:] != keys[:-1]]]
    return keys // n, keys % n


__all__ = [
    'INTERNAL_SOURCE_ID',
    'INTERNAL_SOURCE_NAME',
    'WORLD_FRAME_NAME',
    'DeformableRecord',
    'FrameRecord',
    'GeometryRecord',
    'GeometryState',
    'SourceRecord',
    'new_id',
    'new_version',
]
