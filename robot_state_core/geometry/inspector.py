"""Read-only view of a geometry registry (Drake ``SceneGraphInspector``; G-04, G-C2, G-C10).

:class:`SceneGraphInspector` answers every model question a consumer has (names, ownership, the
frame tree, shapes, poses in frames, role properties, collision filters, versions) without a
source id: read-only calls span all sources (G-C2). It is a *live* view: it reflects later
edits of its :class:`~robot_state_core.geometry.scene_graph.SceneGraph`. Obtain it with
``scene_graph.model_inspector()``.

Lookups of unknown ids raise
:class:`~robot_state_core.errors.GeometryRegistrationError`; getters hand out copies (property
sets) or read-only arrays, so the registry and its versions cannot be changed behind its back.
Id lists are tuples in registration order, which is stable.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
from numpy.typing import NDArray

from robot_state_core._typing import FloatArray
from robot_state_core.errors import GeometryRegistrationError, InvalidArgumentError
from robot_state_core.geometry.geometry_state import GeometryState
from robot_state_core.geometry.identifiers import (
    FrameId,
    GeometryId,
    GeometryVersion,
    ReferenceMesh,
    SourceId,
    WORLD_FRAME_ID,
)
from robot_state_core.geometry.identifiers import (
    has_role as _has_role,
)
from robot_state_core.geometry.roles import (
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Role,
    RoleProperties,
    SINGLE_ROLES,
)
from robot_state_core.geometry.shapes import Shape


class SceneGraphInspector:
    """Read-only queries over one :class:`SceneGraph` (G-04)."""

    __slots__ = ('_sg',)

    def __init__(self, state: GeometryState) -> None:
        """A view of ``state`` (the registry's :class:`GeometryState`, which stays live)."""
        self._sg = state

    # ------------------------------------------------------------------ counts

    def num_sources(self) -> int:
        """Registered sources, including the registry's internal one (so always >= 1)."""
        return len(self._sg.sources)

    def num_frames(self) -> int:
        """Registered frames, including the world frame (so always >= 1)."""
        return len(self._sg.frames)

    def num_geometries(self) -> int:
        """Registered geometries of every kind (anchored, dynamic, deformable)."""
        return len(self._sg.geometries)

    def num_anchored_geometries(self) -> int:
        """Rigid geometries on the world frame (G-C3)."""
        return sum(1 for g in self._sg.geometries.values()
                   if g.frame_id == WORLD_FRAME_ID and g.deformable is None)

    def num_dynamic_geometries(self) -> int:
        """Rigid geometries on registered (moving) frames (G-C4)."""
        return sum(1 for g in self._sg.geometries.values() if g.frame_id != WORLD_FRAME_ID)

    def num_deformable_geometries(self) -> int:
        """Deformable geometries (G-C6)."""
        return sum(1 for g in self._sg.geometries.values() if g.deformable is not None)

    def num_geometries_with_role(self, role: Role) -> int:
        """Geometries with ``role`` (``Role.UNASSIGNED``: with no role)."""
        return len(self.get_all_geometry_ids(role))

    def num_frames_for_source(self, source_id: SourceId) -> int:
        """The number of frames the source registered.

        Raises:
            GeometryRegistrationError: Unknown source.
        """
        return len(self.frames_for_source(source_id))

    # ------------------------------------------------------------------ ids

    @staticmethod
    def world_frame_id() -> FrameId:
        """The world frame's id (G-31)."""
        return WORLD_FRAME_ID

    def source_is_registered(self, source_id: SourceId) -> bool:
        """True if ``source_id`` is registered (G-06)."""
        return source_id in self._sg.sources

    def get_all_source_ids(self) -> tuple[SourceId, ...]:
        """Every source id; the first is the registry's internal source."""
        return tuple(self._sg.sources)

    def get_all_frame_ids(self) -> tuple[FrameId, ...]:
        """Every frame id; the first is the world frame, then registration order."""
        return tuple(self._sg.frames)

    def frames_for_source(self, source_id: SourceId) -> tuple[FrameId, ...]:
        """The frames a source registered, in registration order (parents first).

        Raises:
            GeometryRegistrationError: Unknown source.
        """
        return self._sg.frame_ids(source_id)

    def get_all_geometry_ids(self, role: Role | None = None) -> tuple[GeometryId, ...]:
        """Geometry ids in registration order (the order of ``compute_world_poses``).

        Args:
            role: Only geometries with this role; ``Role.UNASSIGNED``: only those without any
                role; ``None``: all.
        """
        if role is None:
            return tuple(self._sg.geometries)
        return tuple(gid for gid, g in self._sg.geometries.items()
                     if _has_role(g.role_flags(), role))

    def get_all_deformable_geometry_ids(self) -> tuple[GeometryId, ...]:
        """Deformable geometry ids in registration order."""
        return tuple(gid for gid, g in self._sg.geometries.items() if g.deformable is not None)

    def get_geometry_ids(self, frame_id: FrameId,
                         role: Role | None = None) -> tuple[GeometryId, ...]:
        """Geometries *directly* affixed to a frame (world: anchored and deformable ones).

        Raises:
            GeometryRegistrationError: Unknown frame.
        """
        frame = self._sg.frame(frame_id, 'SceneGraphInspector.get_geometry_ids', 'G-04')
        geometries = self._sg.geometries
        return tuple(gid for gid in frame.geometry_ids
                     if _has_role(geometries[gid].role_flags(), role))

    def num_geometries_for_frame(self, frame_id: FrameId) -> int:
        """The number of geometries directly affixed to a frame.

        Raises:
            GeometryRegistrationError: Unknown frame.
        """
        return len(self.get_geometry_ids(frame_id))

    def get_geometry_id_by_name(self, frame_id: FrameId, role: Role, name: str) -> GeometryId:
        """The geometry on ``frame_id`` with ``role`` and (canonical) ``name``.

        Raises:
            GeometryRegistrationError: Unknown frame; no such geometry; or, for
                ``Role.UNASSIGNED``, several geometries match.
        """
        where = 'SceneGraphInspector.get_geometry_id_by_name'
        canonical = name.strip()
        matches = [gid for gid in self.get_geometry_ids(frame_id, role)
                   if self._sg.geometries[gid].name == canonical]
        if len(matches) != 1:
            known = sorted({self._sg.geometries[g].name
                            for g in self.get_geometry_ids(frame_id, role)})
            problem = 'no geometry' if not matches else f'{len(matches)} geometries'
            raise GeometryRegistrationError(
                f'{where}: {problem} named {canonical!r} with role {role!r} on '
                f'{self._sg.describe(frame_id)}; names with that role: {known[:10]}')
        return matches[0]

    # ------------------------------------------------------------------ names and ownership

    def get_name(self, any_id: SourceId | FrameId | GeometryId) -> str:
        """The name of a source, frame or geometry (ids are unique across kinds).

        Raises:
            GeometryRegistrationError: Not a registered source, frame or geometry id.
        """
        sg = self._sg
        if any_id in sg.sources:
            return sg.sources[SourceId(any_id)].name
        if any_id in sg.frames:
            return sg.frames[FrameId(any_id)].name
        if any_id in sg.geometries:
            return sg.geometries[GeometryId(any_id)].name
        raise GeometryRegistrationError(
            f'SceneGraphInspector.get_name: id {any_id!r} is not a registered source, frame or '
            'geometry')

    def _owner(self, frame_or_geometry_id: FrameId | GeometryId, where: str) -> SourceId:
        sg = self._sg
        if frame_or_geometry_id in sg.geometries:
            return sg.geometries[GeometryId(frame_or_geometry_id)].source_id
        if frame_or_geometry_id in sg.frames:
            return sg.frames[FrameId(frame_or_geometry_id)].source_id
        raise GeometryRegistrationError(
            f'{where}: id {frame_or_geometry_id!r} is not a registered frame or geometry')

    def get_owning_source_name(self, frame_or_geometry_id: FrameId | GeometryId) -> str:
        """The name of the source that registered a frame or geometry (G-C2).

        The world frame belongs to the internal source ``'SceneGraphInternal'``.

        Raises:
            GeometryRegistrationError: Not a registered frame or geometry id.
        """
        owner = self._owner(frame_or_geometry_id, 'SceneGraphInspector.get_owning_source_name')
        return self._sg.sources[owner].name

    def belongs_to_source(self, frame_or_geometry_id: FrameId | GeometryId,
                          source_id: SourceId) -> bool:
        """True if the source registered the frame or geometry.

        Raises:
            GeometryRegistrationError: Unknown source, or not a registered frame/geometry id.
        """
        where = 'SceneGraphInspector.belongs_to_source'
        if source_id not in self._sg.sources:
            raise self._sg.unknown(where, 'source', source_id, 'G-C2')
        return self._owner(frame_or_geometry_id, where) == source_id

    # ------------------------------------------------------------------ frames

    def get_parent_frame(self, frame_id: FrameId) -> FrameId:
        """The frame's parent (the world for frames hung on it, and for the world itself).

        Raises:
            GeometryRegistrationError: Unknown frame.
        """
        return self._sg.frame(frame_id, 'SceneGraphInspector.get_parent_frame',
                               'G-C5').parent_id

    def get_frame_group(self, frame_id: FrameId) -> int:
        """The frame's ``frame_group`` (0 for the world).

        Raises:
            GeometryRegistrationError: Unknown frame.
        """
        return self._sg.frame(frame_id, 'SceneGraphInspector.get_frame_group',
                               'G-10').frame_group

    # ------------------------------------------------------------------ geometries

    def get_frame_id(self, geometry_id: GeometryId) -> FrameId:
        """The frame the geometry is affixed to (world for anchored/deformable).

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return self._sg.geometry(geometry_id, 'SceneGraphInspector.get_frame_id',
                                  'G-04').frame_id

    def get_parent_geometry(self, geometry_id: GeometryId) -> GeometryId | None:
        """The geometry it was registered relative to (G-C7), else ``None``.

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return self._sg.geometry(geometry_id, 'SceneGraphInspector.get_parent_geometry',
                                  'G-C7').parent_geometry_id

    def get_shape(self, geometry_id: GeometryId) -> Shape:
        """The geometry's (frozen) shape.

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return self._sg.geometry(geometry_id, 'SceneGraphInspector.get_shape', 'G-04').shape

    def get_pose_in_frame(self, geometry_id: GeometryId) -> FloatArray:
        """``X_FG``: read-only ``(4, 4)`` pose of G in its frame F (``X_WG`` if anchored).

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return self._sg.geometry(geometry_id, 'SceneGraphInspector.get_pose_in_frame',
                                  'G-04').X_FG

    def get_roles(self, geometry_id: GeometryId) -> Role:
        """The geometry's roles as flags (``Role.UNASSIGNED`` if none).

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return self._sg.geometry(geometry_id, 'SceneGraphInspector.get_roles',
                                  'G-C8').role_flags()

    def get_properties(self, geometry_id: GeometryId, role: Role) -> RoleProperties | None:
        """A copy of the geometry's properties for ``role``, ``None`` without that role.

        Raises:
            GeometryRegistrationError: Unknown geometry.
            InvalidArgumentError: ``role`` is not PROXIMITY, ILLUSTRATION or PERCEPTION.
        """
        where = 'SceneGraphInspector.get_properties'
        if role not in SINGLE_ROLES:
            raise InvalidArgumentError(f'{where}: role must be a single role, got {role!r}')
        props = self._sg.geometry(geometry_id, where, 'G-C8').roles.get(Role(role))
        return None if props is None else props.copy()

    def get_proximity_properties(self, geometry_id: GeometryId) -> ProximityProperties | None:
        """A copy of the proximity properties, or ``None`` (G-23)."""
        props = self.get_properties(geometry_id, Role.PROXIMITY)
        return props if isinstance(props, ProximityProperties) else None

    def get_illustration_properties(
            self, geometry_id: GeometryId) -> IllustrationProperties | None:
        """A copy of the illustration properties, or ``None`` (G-24)."""
        props = self.get_properties(geometry_id, Role.ILLUSTRATION)
        return props if isinstance(props, IllustrationProperties) else None

    def get_perception_properties(self, geometry_id: GeometryId) -> PerceptionProperties | None:
        """A copy of the perception properties, or ``None`` (G-25)."""
        props = self.get_properties(geometry_id, Role.PERCEPTION)
        return props if isinstance(props, PerceptionProperties) else None

    def get_renderers(self, geometry_id: GeometryId) -> tuple[str, ...]:
        """Names of the renderers that reify the geometry (G-25), sorted.

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return tuple(sorted(self._sg.geometry(geometry_id, 'SceneGraphInspector.get_renderers',
                                               'G-25').renderers))

    def is_deformable(self, geometry_id: GeometryId) -> bool:
        """True for deformable geometry (G-16).

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        return self._sg.geometry(geometry_id, 'SceneGraphInspector.is_deformable',
                                  'G-16').deformable is not None

    def get_reference_mesh(self, geometry_id: GeometryId) -> ReferenceMesh | None:
        """The rest mesh of a deformable geometry, vertices in its frame F (G-16).

        ``None`` for a rigid geometry (Drake returns ``nullptr``).

        Raises:
            GeometryRegistrationError: Unknown geometry.
        """
        geometry = self._sg.geometry(geometry_id, 'SceneGraphInspector.get_reference_mesh',
                                      'G-16')
        return None if geometry.deformable is None else geometry.deformable.reference

    def get_deformable_configuration(self, geometry_id: GeometryId) -> FloatArray:
        """The current ``(V, 3)`` vertex positions in F of a deformable geometry (read-only).

        Raises:
            GeometryRegistrationError: Unknown or not deformable geometry.
        """
        return self._sg.deformable_configuration(geometry_id)

    # ------------------------------------------------------------------ collision filters

    def collision_filtered(self, geometry_id_a: GeometryId, geometry_id_b: GeometryId) -> bool:
        """True if contact between the two geometries is never reported (G-29, G-30).

        Filtered are: rigid geometries on the same frame (anchored ones share the world frame;
        deformables are never filtered implicitly), pairs excluded through the collision filter
        manager (declarations and compiled filters), and a geometry with itself.

        Raises:
            GeometryRegistrationError: Unknown geometry, or one without the proximity role
                (as in Drake).
        """
        where = 'SceneGraphInspector.collision_filtered'
        a = self._sg.geometry(geometry_id_a, where, 'G-29')
        b = self._sg.geometry(geometry_id_b, where, 'G-29')
        for g in (a, b):
            if Role.PROXIMITY not in g.roles:
                raise GeometryRegistrationError(
                    f'{where}: {self._sg.describe(g.id)} has no proximity role; collision '
                    'filtering is only defined between proximity geometries (G-29)')
        if a.id == b.id:
            return True
        if a.frame_id == b.frame_id and a.deformable is None and b.deformable is None:
            return True
        return self._sg.explicitly_filtered(a.id, b.id)

    def get_collision_candidate_array(self, skip_compiled_filters: Collection[str] = ()
                                      ) -> NDArray[np.int64]:
        """Every unfiltered pair of proximity geometries as a ``(K, 2)`` id array.

        Each row is ``(lower id, higher id)``; rows follow the registration order of their
        geometries (stable). This is the candidate list a collision backend checks: same-frame
        rigid pairs, pairs excluded by declarations and pairs of compiled filters are removed
        (G-29, G-30).

        Args:
            skip_compiled_filters: Compiled filter layers to ignore (our addition: a planning
                scene asks for its candidates under another ACM this way).
        """
        ids = np.fromiter((gid for gid, g in self._sg.geometries.items()
                           if Role.PROXIMITY in g.roles), dtype=np.int64)
        pairs = self._sg.candidate_pairs(ids, skip_compiled_filters)
        a_ids, b_ids = ids[pairs[:, 0]], ids[pairs[:, 1]]
        out: NDArray[np.int64] = np.stack([np.minimum(a_ids, b_ids), np.maximum(a_ids, b_ids)],
                                          axis=1)
        return out

    def get_collision_candidates(self) -> list[tuple[GeometryId, GeometryId]]:
        """:meth:`get_collision_candidate_array` as a list of ``(GeometryId, GeometryId)``."""
        return [(GeometryId(a), GeometryId(b))
                for a, b in self.get_collision_candidate_array().tolist()]

    # ------------------------------------------------------------------ versions

    def geometry_version(self) -> GeometryVersion:
        """The current per-role versions (G-C10; compare with ``is_same_as``)."""
        return self._sg.geometry_version()
