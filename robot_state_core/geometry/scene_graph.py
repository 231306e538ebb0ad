"""The Drake-style geometry registry (seed S0, ``seed_features.md`` §3.1-§3.2, G-C1..G-C12).

:class:`SceneGraph` is the nexus for all geometry (G-C1): *producers* register a source, frames
and geometries; *consumers* read them through the :class:`SceneGraphInspector`
(:meth:`SceneGraph.model_inspector`) and turn frame poses into geometry poses with
:meth:`SceneGraph.compute_world_poses`. The registry's data is a
:class:`~robot_state_core.geometry.geometry_state.GeometryState`, which the inspector reads.
There is no collision backend here; the query layer consumes this registry through a
:class:`~robot_state_core.geometry.query_object.QueryObject` (one pose snapshot, on the fcl
backend of ``fcl_backend.py``). A
:class:`~robot_state_core.scene.planning_scene.PlanningScene` keeps one registry as its
geometry store. The package top level exports the class as ``GeometrySceneGraph`` (design
study C1), since ``robot_state_core.description.scene_graph`` holds the tesseract one.

Ids (design study B3). :data:`SourceId`, :data:`FrameId` and :data:`GeometryId` are
``typing.NewType`` ints, drawn from one process-wide counter. An id therefore names exactly one
thing in one registry: a frame id passed where a geometry id is expected is reported as
"not a registered geometry (it is a frame id)", ids of another registry are unknown here, and
:meth:`SceneGraph.remove_role` can take either a frame or a geometry id (G-27/G-28). The world
frame id is ``FrameId(0)`` in every registry (:meth:`SceneGraph.world_frame_id`, G-31).

Ownership (G-C2). Every mutating call takes the owning :data:`SourceId`; read-only calls span
all sources. The registry counts its own internal source (name
:data:`INTERNAL_SOURCE_NAME`, owner of the world frame) among the sources, as Drake does, but
refuses edits made with it.

Versions (G-C10, G-32). The registry keeps one version per role. Each change draws a fresh value
from a process-wide counter, so equal versions (even across registries) imply identical role
data; different versions do not imply different data. The changes are Drake's
(``geometry_state.cc``), which the seed's table summarizes:

=========================================  ===============================================
operation                                  versions changed
=========================================  ===============================================
register frame/geometry without roles      none
register geometry with properties          each role it brings (perception: if rendered)
assign_role (NEW or REPLACE)               that role (perception: if a renderer accepts it)
remove_role                                that role, if any geometry lost it (perception:
                                           if it was rendered); UNASSIGNED: none
remove_geometry (+ the ones hanging on it)  each role a removed geometry had (perception:
                                           if one was rendered)
change_shape                               each assigned role (perception: if rendered)
rename_frame / rename_geometry             none
collision_filter_manager() / its apply()   proximity (apply also bumps [D])
add_renderer                               perception, if the renderer takes geometry
remove_renderer                            perception, always
set_deformable_configuration               none (kinematics, not model data)
=========================================  ===============================================

The one ``[D]`` entry goes beyond Drake (``docs/decisions.md``): a filter manager that is
applied twice must not leave equal versions on different filter data.

Collision filtering (G-29, G-30). Rigid geometries affixed to the same frame (anchored ones share
the world frame) never collide; deformables get no implicit filter. Explicit filters are
declared through :meth:`SceneGraph.collision_filter_manager` with :class:`GeometrySet` s and
apply, as in Drake, to geometries that have the proximity role when the declaration is applied
(losing that role drops the geometry's filters). Beside declarations, the manager holds named
*compiled filters* (our addition, :meth:`CollisionFilterManager.set_compiled_filter`): layers
of excluded id pairs replaced as a whole, which is how a planning scene installs its ACM. The
inspector reports the result (``collision_filtered``, ``get_collision_candidates``).

Poses (G-C4, G-C5, G-C11). Frames are posed relative to their parent (``X_PF``); a geometry is
fixed in its frame (``X_FG``). :meth:`SceneGraph.compute_world_poses` takes one ``X_PF`` per
registered frame, composes the frame tree with the package's one composition
(:func:`robot_state_core.spatial.composition.compose_tree`), and
returns ``X_WG`` for every geometry as one ``(G, 4, 4)`` array, in the stable order of
``model_inspector().get_all_geometry_ids()`` (registration order).

Not here (S0 [EXT] rows): contexts (G-C9, G-14, the context variants), ports (G-07..G-09),
scalar conversion (G-02) and the inherited System API (G-33).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
import itertools
import math
from typing import Any, Self, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.errors import GeometryRegistrationError, InvalidArgumentError
from robot_state_core.geometry.geometry_state import (
    DeformableRecord,
    FrameRecord,
    GeometryRecord,
    GeometryState,
    INTERNAL_SOURCE_ID,
    INTERNAL_SOURCE_NAME,
    new_id,
    SourceRecord,
    WORLD_FRAME_NAME,
)
from robot_state_core.geometry.identifiers import (
    FrameId,
    GeometryId,
    GeometryVersion,
    ReferenceMesh,
    SourceId,
    WORLD_FRAME_ID,
)
from robot_state_core.geometry.inspector import SceneGraphInspector
from robot_state_core.geometry.roles import (
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    RENDERER_ACCEPTING,
    Role,
    RoleAssign,
    RoleProperties,
    SINGLE_ROLES,
)
from robot_state_core.geometry.shapes import module_of, Shape, SHAPE_TYPES
from robot_state_core.spatial.composition import compose_tree, poses_on_frames
from robot_state_core.spatial.transforms import as_pose

_PROPERTY_TYPES = (ProximityProperties, IllustrationProperties, PerceptionProperties)


def _as_pose(X: ArrayLike, where: str, what: str = 'X_FG') -> FloatArray:
    """A read-only float64 copy of a finite ``(4, 4)`` pose, else InvalidArgumentError."""
    out = as_pose(X, where, what)
    out.setflags(write=False)
    return out


def _read_only(a: NDArray[Any]) -> NDArray[Any]:
    a.setflags(write=False)
    return a


def _canonical_name(name: object) -> str:
    """Drake's canonical geometry name: leading/trailing whitespace removed."""
    return name.strip() if isinstance(name, str) else ''


# ---------------------------------------------------------------------------- public value types


@dataclass(frozen=True, slots=True)
class GeometryFrame:
    """A frame to register (Drake ``GeometryFrame``; G-10, G-11).

    Attributes:
        name: Unique among the frames of its source.
        frame_group: Free integer tag (MultibodyPlant uses the body's model instance).
        id: Assigned at construction, fresh for every instance (also for
            ``dataclasses.replace``); registering the same frame twice raises (G-10 b).
    """

    name: str
    frame_group: int = 0
    id: FrameId = field(init=False, compare=False, default_factory=lambda: FrameId(new_id()))

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InvalidArgumentError(f'GeometryFrame: name must be a str, got {self.name!r}')
        if isinstance(self.frame_group, bool) or not isinstance(self.frame_group, int):
            raise InvalidArgumentError(
                f'GeometryFrame {self.name!r}: frame_group must be an int, got '
                f'{self.frame_group!r}')


@dataclass(eq=False)
class GeometryInstance:
    """A geometry to register (Drake ``GeometryInstance``; design study B3).

    Attributes:
        X_FG: ``(4, 4)`` pose of the geometry G in the frame F it is registered on (for
            :meth:`SceneGraph.register_anchored_geometry` F is the world W; for
            :meth:`SceneGraph.register_geometry_relative` it is the parent geometry's frame
            ``P``, i.e. the value is ``X_PG``). Stored as a read-only float64 copy.
        shape: One of the frozen shapes of :mod:`robot_state_core.geometry.shapes`.
        name: Must be non-empty after stripping whitespace when registered, and unique among
            the geometries of its frame that share a role (G-13 d, G-26).
        properties: At most one property set per role; each role is assigned on registration.
        id: Assigned at construction, fresh for every instance (also for
            ``dataclasses.replace``); registering the same instance twice raises.

    Raises:
        InvalidArgumentError: A bad pose or shape, a non-role property set, or two property
            sets of one role.
    """

    X_FG: FloatArray
    shape: Shape
    name: str
    properties: Sequence[RoleProperties] = ()
    id: GeometryId = field(init=False, default_factory=lambda: GeometryId(new_id()))

    def __post_init__(self) -> None:
        self.X_FG = _as_pose(self.X_FG, 'GeometryInstance')
        if not isinstance(self.shape, SHAPE_TYPES):
            raise InvalidArgumentError(
                f'GeometryInstance: shape must be one of {[t.__name__ for t in SHAPE_TYPES]}, '
                f'got {type(self.shape).__name__}')
        props = tuple(self.properties)
        roles = []
        for p in props:
            if not isinstance(p, _PROPERTY_TYPES):
                raise InvalidArgumentError(
                    'GeometryInstance: properties must be Proximity/Illustration/Perception'
                    f'Properties, got {type(p).__name__}')
            roles.append(p.role)
        if len(set(roles)) != len(roles):
            raise InvalidArgumentError(
                f'GeometryInstance {self.name!r}: more than one property set for one role')
        self.properties = props

    def properties_for(self, role: Role) -> RoleProperties | None:
        """The property set of ``role``, or ``None``."""
        return next((p for p in self.properties if p.role == role), None)

    def set_properties(self, properties: RoleProperties) -> None:
        """Sets (or replaces) the property set of ``properties.role``."""
        if not isinstance(properties, _PROPERTY_TYPES):
            raise InvalidArgumentError('GeometryInstance.set_properties: expected role '
                                       f'properties, got {type(properties).__name__}')
        self.properties = (*(p for p in self.properties if p.role != properties.role),
                           properties)

    @property
    def proximity_properties(self) -> ProximityProperties | None:
        """The proximity properties, or ``None``."""
        p = self.properties_for(Role.PROXIMITY)
        return p if isinstance(p, ProximityProperties) else None

    @property
    def illustration_properties(self) -> IllustrationProperties | None:
        """The illustration properties, or ``None``."""
        p = self.properties_for(Role.ILLUSTRATION)
        return p if isinstance(p, IllustrationProperties) else None

    @property
    def perception_properties(self) -> PerceptionProperties | None:
        """The perception properties, or ``None``."""
        p = self.properties_for(Role.PERCEPTION)
        return p if isinstance(p, PerceptionProperties) else None


class GeometrySet:
    """Geometries and frames named together for a collision filter (Drake ``GeometrySet``).

    A frame stands for the geometries directly affixed to it when the declaration is applied.
    Any ``Iterable`` of frame and/or geometry ids is accepted wherever a ``GeometrySet`` is.
    """

    __slots__ = ('frame_ids', 'geometry_ids')

    def __init__(self, geometry_ids: Iterable[GeometryId] = (),
                 frame_ids: Iterable[FrameId] = ()) -> None:
        self.geometry_ids: frozenset[GeometryId] = frozenset(geometry_ids)
        self.frame_ids: frozenset[FrameId] = frozenset(frame_ids)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GeometrySet):
            return NotImplemented
        return self.geometry_ids == other.geometry_ids and self.frame_ids == other.frame_ids

    def __hash__(self) -> int:
        return hash((self.geometry_ids, self.frame_ids))

    def __repr__(self) -> str:
        return (f'GeometrySet(geometry_ids={sorted(self.geometry_ids)}, '
                f'frame_ids={sorted(self.frame_ids)})')


GeometrySetLike: TypeAlias = GeometrySet | Iterable[int]
'''A :class:`GeometrySet`, or any iterable of frame and/or geometry ids.'''


@dataclass(frozen=True, slots=True)
class _FilterStatement:
    exclude: bool
    set_a: GeometrySet | tuple[int, ...]
    set_b: GeometrySet | tuple[int, ...] | None  # None: "within set_a"


def _freeze_set(s: GeometrySetLike) -> GeometrySet | tuple[int, ...]:
    return s if isinstance(s, GeometrySet) else tuple(s)


class CollisionFilterDeclaration:
    """An ordered list of exclude/allow statements (Drake ``CollisionFilterDeclaration``).

    Methods return ``self`` so statements chain:
    ``CollisionFilterDeclaration().exclude_within(a).allow_between(b, c)``. Allowing cannot undo
    the implicit same-frame filter (G-30).
    """

    __slots__ = ('_statements',)

    def __init__(self) -> None:
        self._statements: list[_FilterStatement] = []

    def exclude_between(self, set_a: GeometrySetLike, set_b: GeometrySetLike) -> Self:
        """Filters every pair (a, b) with a in ``set_a`` and b in ``set_b`` (a != b)."""
        self._statements.append(_FilterStatement(True, _freeze_set(set_a), _freeze_set(set_b)))
        return self

    def exclude_within(self, geometry_set: GeometrySetLike) -> Self:
        """Filters every pair of distinct geometries of ``geometry_set``."""
        self._statements.append(_FilterStatement(True, _freeze_set(geometry_set), None))
        return self

    def allow_between(self, set_a: GeometrySetLike, set_b: GeometrySetLike) -> Self:
        """Removes explicit filters between the two sets."""
        self._statements.append(_FilterStatement(False, _freeze_set(set_a), _freeze_set(set_b)))
        return self

    def allow_within(self, geometry_set: GeometrySetLike) -> Self:
        """Removes explicit filters within the set."""
        self._statements.append(_FilterStatement(False, _freeze_set(geometry_set), None))
        return self

    def __len__(self) -> int:
        return len(self._statements)

    def statements(self) -> tuple[_FilterStatement, ...]:
        """The statements in declaration order."""
        return tuple(self._statements)


def exclude_between(set_a: GeometrySetLike,
                    set_b: GeometrySetLike) -> CollisionFilterDeclaration:
    """A declaration with one exclude-between statement: ``apply(exclude_between(a, b))``."""
    return CollisionFilterDeclaration().exclude_between(set_a, set_b)


def exclude_within(geometry_set: GeometrySetLike) -> CollisionFilterDeclaration:
    """A declaration with one exclude-within statement."""
    return CollisionFilterDeclaration().exclude_within(geometry_set)


class CollisionFilterManager:
    """Edits the explicit collision filters of one registry (Drake ``CollisionFilterManager``).

    Obtain one from :meth:`SceneGraph.collision_filter_manager` (which bumps the proximity
    version, G-29) and do not keep it beyond the current scope. Every :meth:`apply` bumps the
    proximity version again [D]. Only geometries with the proximity role at apply time are
    affected; others in a set are ignored, as in Drake.
    """

    __slots__ = ('_scene_graph',)

    def __init__(self, scene_graph: SceneGraph) -> None:
        self._scene_graph = scene_graph

    def apply(self, declaration: CollisionFilterDeclaration) -> None:
        """Applies the statements in order; all sets are validated first (all or nothing).

        Raises:
            GeometryRegistrationError: A set names an unknown frame or geometry id.
        """
        self._scene_graph._apply_filter_declaration(declaration)

    def exclude_between(self, set_a: GeometrySetLike, set_b: GeometrySetLike) -> None:
        """``apply(exclude_between(set_a, set_b))``."""
        self.apply(exclude_between(set_a, set_b))

    def exclude_within(self, geometry_set: GeometrySetLike) -> None:
        """``apply(exclude_within(geometry_set))``."""
        self.apply(exclude_within(geometry_set))

    def allow_between(self, set_a: GeometrySetLike, set_b: GeometrySetLike) -> None:
        """``apply(CollisionFilterDeclaration().allow_between(set_a, set_b))``."""
        self.apply(CollisionFilterDeclaration().allow_between(set_a, set_b))

    def allow_within(self, geometry_set: GeometrySetLike) -> None:
        """``apply(CollisionFilterDeclaration().allow_within(geometry_set))``."""
        self.apply(CollisionFilterDeclaration().allow_within(geometry_set))

    def set_compiled_filter(self, name: str, excluded_pairs: ArrayLike) -> None:
        """Installs (or replaces) the compiled filter layer ``name`` (our addition).

        A compiled filter is a named set of excluded geometry pairs, replaced as a whole, that
        sits beside the declarations: a pair is filtered if a declaration or any layer excludes
        it. A :class:`~robot_state_core.scene.planning_scene.PlanningScene` installs its ACM and
        MoveIt's body rules as the layer ``'planning_scene'`` and replaces it when they change,
        so nothing is recompiled per query. As with declarations, pairs naming a geometry
        without the proximity role are ignored, removing a geometry (or its proximity role)
        drops its pairs, and the proximity version changes.

        Args:
            name: The layer's name.
            excluded_pairs: ``(K, 2)`` geometry ids.

        Raises:
            GeometryRegistrationError: An id is not a registered geometry.
            InvalidArgumentError: ``name`` is not a non-empty str, or the pairs are not
                ``(K, 2)`` integers.
        """
        self._scene_graph._set_compiled_filter(name, excluded_pairs)

    def remove_compiled_filter(self, name: str) -> bool:
        """Removes the compiled filter layer ``name``; returns whether it existed (our addition).

        The proximity version changes if it did.
        """
        return self._scene_graph._remove_compiled_filter(name)


FramePoses: TypeAlias = Mapping[FrameId, ArrayLike] | tuple[Sequence[FrameId], ArrayLike]
'''Frame poses ``X_PF`` (pose of each frame in its parent): ``{frame_id: (4, 4)}``, or
``(frame_ids, (F, 4, 4) array)``.'''


# ---------------------------------------------------------------------------- internal records


@dataclass(frozen=True, slots=True, eq=False)
class _PoseLayout:
    """Arrays for batched pose composition, rebuilt when the registry changes."""

    revision: int
    frame_order: tuple[FrameId, ...]  # non-world frames, registration (= topological) order
    tree: IntArray  # (F, 2): each frame's parent and its own index in the world-first stack
    geometry_ids: tuple[GeometryId, ...]
    geometry_frame_index: IntArray  # (G,) index into the world-first frame stack
    geometry_roles: NDArray[np.int64]  # (G,) role bits
    X_FG: FloatArray  # (G, 4, 4)


# ---------------------------------------------------------------------------- the registry


class SceneGraph:
    """The geometry registry: sources, frames, geometries, roles, filters, renderers (G-01).

    See the module docstring for ids, ownership, the version table and pose conventions. Not
    copyable (G-03): there is no ``copy``/``clone``.
    """

    def __init__(self) -> None:
        self._gs = GeometryState()
        self._layout_cache: _PoseLayout | None = None
        self._inspector: SceneGraphInspector | None = None

    def __repr__(self) -> str:
        return (f'<SceneGraph: {len(self._gs.sources) - 1} sources, {len(self._gs.frame_order)} '
                f'frames, {len(self._gs.geometries)} geometries>')

    # ------------------------------------------------------------------ ids, lookups, messages

    @staticmethod
    def world_frame_id() -> FrameId:
        """The world frame's id (G-31)."""
        return WORLD_FRAME_ID

    def model_inspector(self) -> SceneGraphInspector:
        """A live read-only view of this registry (G-04)."""
        if self._inspector is None:
            self._inspector = SceneGraphInspector(self._gs)
        return self._inspector

    def _describe(self, any_id: int) -> str:
        return self._gs.describe(any_id)

    def _unknown(self, where: str, kind: str, any_id: object,
                 rule: str) -> GeometryRegistrationError:
        return self._gs.unknown(where, kind, any_id, rule)

    def _source(self, source_id: SourceId, where: str, rule: str) -> SourceRecord:
        """The registered user source ``source_id`` (the internal source is refused)."""
        source = self._gs.sources.get(source_id)
        if source is None:
            raise self._unknown(where, 'source', source_id, rule)
        if source_id == INTERNAL_SOURCE_ID:
            raise GeometryRegistrationError(
                f'{where}: source id {source_id} is the SceneGraph internal source; register '
                f'your own with register_source() ({rule})')
        return source

    def _frame(self, frame_id: FrameId, where: str, rule: str) -> FrameRecord:
        return self._gs.frame(frame_id, where, rule)

    def _geometry(self, geometry_id: GeometryId, where: str, rule: str) -> GeometryRecord:
        return self._gs.geometry(geometry_id, where, rule)

    def _owned_geometry(self, source_id: SourceId, geometry_id: GeometryId, where: str,
                        rule: str) -> GeometryRecord:
        """Checks in Drake's order: source known, geometry known, geometry owned."""
        self._source(source_id, where, rule)
        geometry = self._geometry(geometry_id, where, rule)
        if geometry.source_id != source_id:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(geometry_id)} belongs to '
                f'{self._describe(geometry.source_id)}, not to {self._describe(source_id)} '
                f'({rule})')
        return geometry

    def _bump(self, role: Role) -> None:
        self._gs.bump(role)

    def _edited(self) -> None:
        self._gs.edited()

    def _name_conflict(self, frame: FrameRecord, name: str, roles: Iterable[Role],
                       exclude: GeometryId | None = None) -> tuple[GeometryId, Role] | None:
        """A geometry of ``frame`` named ``name`` that has one of ``roles`` (G-26, G-17)."""
        wanted = set(roles)
        for gid in frame.geometry_names.get(name, ()):
            other = self._gs.geometries[gid]
            if gid != exclude:
                common = wanted.intersection(other.roles)
                if common:
                    return gid, min(common)
        return None

    # ------------------------------------------------------------------ sources

    def register_source(self, name: str = '') -> SourceId:
        """Registers a geometry source; its id is the token for every edit (G-05).

        Args:
            name: Unique among the sources; empty gives ``'Source_<id>'``.

        Raises:
            GeometryRegistrationError: The name is already used by another source (G-05).
            InvalidArgumentError: ``name`` is not a str.
        """
        where = 'SceneGraph.register_source'
        if not isinstance(name, str):
            raise InvalidArgumentError(f'{where}: name must be a str, got {name!r}')
        source_id = SourceId(new_id())
        final = name or f'Source_{source_id}'
        for other in self._gs.sources.values():
            if other.name == final:
                raise GeometryRegistrationError(
                    f'{where}: a source named {final!r} is already registered (id {other.id}); '
                    'source names must be unique (G-05)')
        self._gs.sources[source_id] = SourceRecord(source_id, final)
        self._edited()
        return source_id

    def source_is_registered(self, source_id: SourceId) -> bool:
        """True if ``source_id`` is a registered source (G-06)."""
        return source_id in self._gs.sources

    # ------------------------------------------------------------------ frames

    def register_frame(self, source_id: SourceId, frame: GeometryFrame,
                       parent_id: FrameId | None = None) -> FrameId:
        """Registers frame F, hung on the world (G-10) or on a frame P of the source (G-11).

        Its pose is provided relative to the parent (``X_WF`` or ``X_PF``) when poses are
        computed (G-C5). Registers no geometry and changes no version.

        Args:
            source_id: The owning source.
            frame: The frame (its ``id`` becomes the returned id).
            parent_id: ``None`` or :meth:`world_frame_id` for the world, otherwise a frame
                registered by the same source.

        Returns:
            ``frame.id``.

        Raises:
            GeometryRegistrationError: (a) the source is unknown; (b) the parent is unknown or
                owned by another source; (c) ``frame.id`` is already registered; (d) the source
                already has a frame with this name (G-10 a-c, G-11 a-d).
            InvalidArgumentError: ``frame`` is not a :class:`GeometryFrame`.
        """
        where = 'SceneGraph.register_frame'
        on_world = parent_id is None or parent_id == WORLD_FRAME_ID
        rule = 'G-10' if on_world else 'G-11'
        source = self._source(source_id, where, f'{rule} a')
        if not isinstance(frame, GeometryFrame):
            raise InvalidArgumentError(
                f'{where}: frame must be a GeometryFrame, got {type(frame).__name__}')
        if parent_id is None or on_world:
            parent = self._gs.frames[WORLD_FRAME_ID]
        else:
            parent = self._frame(parent_id, where, 'G-11 b: unknown parent frame')
            if parent.source_id != source_id:
                raise GeometryRegistrationError(
                    f'{where}: parent {self._describe(parent_id)} belongs to '
                    f'{self._describe(parent.source_id)}, not to {self._describe(source_id)}; a '
                    'frame can only hang on the world or on a frame of its own source (G-11 b)')
        if frame.id in self._gs.frames:
            raise GeometryRegistrationError(
                f'{where}: frame id {frame.id} ({frame.name!r}) is already registered; create '
                f'a new GeometryFrame ({rule} {"b" if on_world else "c"})')
        fid = source.frame_by_name.get(frame.name)
        if fid is not None:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(source_id)} already has a frame named '
                f'{frame.name!r} (id {fid}) ({rule} {"c" if on_world else "d"})')
        self._gs.frame_order.append(frame.id)
        self._gs.frames[frame.id] = FrameRecord(frame.id, frame.name, source_id, parent.id,
                                        frame.frame_group, depth=parent.depth + 1,
                                        index=len(self._gs.frame_order))
        parent.child_frame_ids.append(frame.id)
        source.frame_ids.append(frame.id)
        source.frame_by_name[frame.name] = frame.id
        self._edited()
        return frame.id

    def rename_frame(self, frame_id: FrameId, name: str) -> None:
        """Renames a frame; changes no version (G-12).

        As in Drake, any registered frame can be renamed, the world frame included, and the
        name is used as given; renaming a frame to its own name does nothing.

        Raises:
            GeometryRegistrationError: The frame is unknown, or another frame of the same
                source already has ``name`` (G-12).
        """
        where = 'SceneGraph.rename_frame'
        if not isinstance(name, str):
            raise InvalidArgumentError(f'{where}: name must be a str, got {name!r}')
        frame = self._frame(frame_id, where, 'G-12')
        if frame.name == name:
            return
        by_name = self._gs.sources[frame.source_id].frame_by_name
        fid = by_name.get(name)
        if fid is not None and fid != frame_id:
            raise GeometryRegistrationError(
                f'{where}: cannot rename {self._describe(frame_id)} to {name!r}: '
                f'{self._describe(fid)} of the same source has that name (G-12)')
        del by_name[frame.name]
        by_name[name] = frame_id
        frame.name = name
        self._edited()

    def frame_ids(self, source_id: SourceId | None = None) -> tuple[FrameId, ...]:
        """Registered frames (world excluded) in registration order, which is parents-first.

        Args:
            source_id: Only this source's frames; ``None`` for all (the order expected by
                :meth:`compute_frame_world_poses`).

        Raises:
            GeometryRegistrationError: ``source_id`` is unknown.
        """
        return self._gs.frame_ids(source_id)

    # ------------------------------------------------------------------ geometry registration

    def register_geometry(self, source_id: SourceId, frame_id: FrameId,
                          instance: GeometryInstance) -> GeometryId:
        """Registers rigid geometry G fixed at ``instance.X_FG`` in frame F (G-13, G-C4).

        Roles are assigned from ``instance.properties``; each brings its version change
        (G-32). ``frame_id`` may be the world frame, which registers anchored geometry (G-C3).

        Raises:
            GeometryRegistrationError: (a) the source is unknown; (b) the frame is unknown or
                not owned by the source; (c) ``instance`` is None; (d) the name is empty after
                stripping; the instance is already registered; another geometry of the frame
                with the same name has one of the instance's roles (G-13, G-26).
        """
        where = 'SceneGraph.register_geometry'
        source = self._source(source_id, where, 'G-13 a')
        self._check_instance(instance, where, 'G-13 c')
        frame = self._frame(frame_id, where, 'G-13 b')
        if frame_id != WORLD_FRAME_ID and frame.source_id != source_id:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(frame_id)} belongs to '
                f'{self._describe(frame.source_id)}, not to {self._describe(source_id)} '
                '(G-13 b)')
        return self._add_geometry(source, frame, instance, instance.X_FG, None, None, where,
                                  'G-13')

    def register_anchored_geometry(self, source_id: SourceId,
                                   instance: GeometryInstance) -> GeometryId:
        """Registers anchored geometry on the world frame, ``instance.X_FG`` = X_WG (G-15, G-C3).

        Raises:
            GeometryRegistrationError: (a) the source is unknown; (b) the name is empty after
                stripping; ``instance`` is None or already registered; a name clash within a
                role among the world frame's geometries (G-15, G-26).
        """
        where = 'SceneGraph.register_anchored_geometry'
        source = self._source(source_id, where, 'G-15 a')
        self._check_instance(instance, where, 'G-15')
        return self._add_geometry(source, self._gs.frames[WORLD_FRAME_ID], instance,
                                  instance.X_FG, None, None, where, 'G-15')

    def register_geometry_relative(self, source_id: SourceId, geometry_id: GeometryId,
                                   instance: GeometryInstance) -> GeometryId:
        """Registers rigid geometry G posed relative to a registered geometry P (G-C7).

        G is affixed to P's frame F with ``X_FG = X_FP @ instance.X_FG`` (``instance.X_FG`` is
        read as ``X_PG``), and hangs from P: removing P removes G (G-19). Later changes of P's
        pose (``change_shape(..., X_FG=...)``) do not move G.

        Raises:
            GeometryRegistrationError: The source or P is unknown, P is not owned by the
                source, P is deformable, or any :meth:`register_geometry` rule (c, d) fails.
        """
        where = 'SceneGraph.register_geometry_relative'
        parent = self._owned_geometry(source_id, geometry_id, where, 'G-C7')
        self._check_instance(instance, where, 'G-13 c')
        if parent.deformable is not None:
            raise GeometryRegistrationError(
                f'{where}: cannot pose rigid geometry relative to deformable '
                f'{self._describe(geometry_id)} (G-C7)')
        return self._add_geometry(self._gs.sources[source_id], self._gs.frames[parent.frame_id],
                                  instance, parent.X_FG @ _as_pose(instance.X_FG, where), parent,
                                  None, where, 'G-C7')

    def register_deformable_geometry(
            self, source_id: SourceId, frame_id: FrameId, instance: GeometryInstance,
            resolution_hint: float, *, vertices_G: ArrayLike | None = None,
            faces: ArrayLike | None = None) -> GeometryId:
        """Registers deformable (meshed) geometry on the world frame (experimental; G-16, G-C6).

        The reference mesh is the ``instance.shape`` mesh posed by ``instance.X_FG``; its vertex
        positions in F (= W) are also the initial configuration, which
        :meth:`set_deformable_configuration` updates. Deformables get no implicit collision
        filter (G-30) and cannot be reshaped (G-18 d).

        Args:
            source_id: The owning source.
            frame_id: Must be :meth:`world_frame_id` (G-16 b).
            instance: Its shape must be a :class:`~robot_state_core.geometry.shapes.Mesh` (the
                file's triangles) or a :class:`~robot_state_core.geometry.shapes.Sphere`, meshed
                as Drake meshes it (an octahedron refined until the equator's edges are at most
                ``resolution_hint``; the surface triangles are kept). Other shapes raise, as in
                Drake.
            resolution_hint: Typical edge length [m] of the mesh, > 0 (used for a sphere, stored
                for a mesh file).
            vertices_G: ``(V, 3)`` vertex positions [m] in G to use instead of reading the mesh
                file (``Mesh.scale`` is then not applied).
            faces: ``(T, 3)`` triangle vertex indices going with ``vertices_G``.

        Raises:
            GeometryRegistrationError: (a) the source is unknown; (b) ``frame_id`` is not the
                world frame; (c) ``instance`` is None; (d) the name is invalid or clashes
                within a role; ``resolution_hint <= 0``; the shape is neither a Sphere nor a
                Mesh (G-16).
            InvalidArgumentError: Bad ``vertices_G``/``faces``, or an unreadable mesh file.
        """
        where = 'SceneGraph.register_deformable_geometry'
        source = self._source(source_id, where, 'G-16 a')
        if frame_id != WORLD_FRAME_ID:
            raise GeometryRegistrationError(
                f'{where}: deformable geometry must be registered on the world frame '
                f'(id {WORLD_FRAME_ID}), got {self._describe(frame_id)} (G-16 b)')
        self._check_instance(instance, where, 'G-16 c')
        try:
            hint = float(resolution_hint)
        except (TypeError, ValueError):
            hint = math.nan
        if not (math.isfinite(hint) and hint > 0.0):
            raise GeometryRegistrationError(
                f'{where}: resolution_hint must be a finite length > 0 m, got '
                f'{resolution_hint!r} (G-16)')
        make_mesh = getattr(module_of(instance.shape, where), 'deformable_mesh', None)
        if make_mesh is None:  # the kinds with a Drake deformable mesh: Sphere and Mesh
            raise GeometryRegistrationError(
                f"{where}: we don't yet generate deformable meshes for "
                f'{type(instance.shape).__name__} (deformable geometry {instance.name!r} needs '
                'a Sphere or a Mesh, as in Drake) (G-16)')
        if vertices_G is None:
            vertices, tris = make_mesh(instance.shape, hint, where)
        else:
            vertices = np.array(vertices_G, dtype=np.float64)
            if vertices.ndim != 2 or vertices.shape[1] != 3 or len(vertices) == 0 \
                    or not np.isfinite(vertices).all():
                raise InvalidArgumentError(f'{where}: vertices_G must be a finite (V, 3) array '
                                           f'with V >= 1, got shape {vertices.shape}')
            tris = np.zeros((0, 3), dtype=np.intp) if faces is None else np.array(faces)
        if tris.ndim != 2 or tris.shape[1] != 3 or not np.issubdtype(tris.dtype, np.integer) \
                or (len(tris) and (tris.min() < 0 or tris.max() >= len(vertices))):
            raise InvalidArgumentError(f'{where}: faces must be a (T, 3) integer array of '
                                       f'vertex indices < {len(vertices)}')
        X_FG = _as_pose(instance.X_FG, where)
        q_FG = _read_only(vertices @ X_FG[:3, :3].T + X_FG[:3, 3])
        reference = ReferenceMesh(q_FG, _read_only(tris.astype(np.intp)))
        return self._add_geometry(source, self._gs.frames[WORLD_FRAME_ID], instance, X_FG, None,
                                  DeformableRecord(hint, reference, q_FG), where, 'G-16')

    @staticmethod
    def _check_instance(instance: object, where: str, rule: str) -> None:
        if instance is None:
            raise GeometryRegistrationError(f'{where}: geometry instance is None ({rule})')
        if not isinstance(instance, GeometryInstance):
            raise InvalidArgumentError(
                f'{where}: expected a GeometryInstance, got {type(instance).__name__}')

    def _add_geometry(self, source: SourceRecord, frame: FrameRecord,
                      instance: GeometryInstance, X_FG: FloatArray, parent: GeometryRecord | None,
                      deformable: DeformableRecord | None, where: str, rule: str) -> GeometryId:
        """Validates everything, then registers and assigns the instance's roles."""
        if any(instance.id in table for table in (self._gs.geometries, self._gs.frames,
                                                    self._gs.sources)):
            raise GeometryRegistrationError(
                f'{where}: geometry id {instance.id} ({instance.name!r}) is already registered; '
                f'create a new GeometryInstance ({rule})')
        name = _canonical_name(instance.name)
        if not name:
            raise GeometryRegistrationError(
                f'{where}: geometry name {instance.name!r} is empty after removing whitespace '
                f'({rule} d)')
        props = {p.role: p for p in instance.properties}
        clash = self._name_conflict(frame, name, props)
        if clash is not None:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(frame.id)} already has {self._describe(clash[0])} '
                f'with the {clash[1].name} role; names must be unique per frame and role '
                '(G-26)')
        for p in props.values():
            if isinstance(p, PerceptionProperties):
                self._accepting(p, where)  # validate before mutating anything
        X = _as_pose(X_FG, where)  # the instance is mutable: validate again
        if not isinstance(instance.shape, SHAPE_TYPES):
            raise InvalidArgumentError(f'{where}: not a shape: {type(instance.shape).__name__}')
        geometry = GeometryRecord(instance.id, name, source.id, frame.id, instance.shape, X,
                             None if parent is None else parent.id, deformable=deformable)
        self._gs.geometries[geometry.id] = geometry
        frame.add_geometry(geometry.id, name)
        if parent is not None:
            parent.child_geometry_ids.append(geometry.id)
        for role in SINGLE_ROLES:  # Drake's order
            if role in props:
                self._set_role(geometry, props[role].copy(), where)
        self._edited()
        return geometry.id

    # ------------------------------------------------------------------ deformable configuration

    def set_deformable_configuration(self, geometry_id: GeometryId, q_FG: ArrayLike) -> None:
        """Sets the vertex positions of a deformable geometry (the seed's configuration port).

        Kinematics data, not model data: no version changes (G-C6, G-08).

        Args:
            geometry_id: A deformable geometry.
            q_FG: ``(V, 3)`` vertex positions [m] in its frame F (the world), V as registered.

        Raises:
            GeometryRegistrationError: Unknown or not deformable geometry.
            InvalidArgumentError: Wrong shape or non-finite values.
        """
        where = 'SceneGraph.set_deformable_configuration'
        geometry = self._geometry(geometry_id, where, 'G-C6')
        if geometry.deformable is None:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(geometry_id)} is not deformable (G-C6)')
        q = np.array(q_FG, dtype=np.float64)
        expected = geometry.deformable.reference.vertices.shape
        if q.shape != expected or not np.isfinite(q).all():
            raise InvalidArgumentError(
                f'{where}: {self._describe(geometry_id)} needs finite vertex positions of shape '
                f'{expected}, got shape {q.shape}' + (' with non-finite values'
                                                      if q.shape == expected else ''))
        geometry.deformable.configuration = _read_only(q)

    def get_deformable_configuration(self, geometry_id: GeometryId) -> FloatArray:
        """The current ``(V, 3)`` vertex positions in F of a deformable geometry (read-only).

        Raises:
            GeometryRegistrationError: Unknown or not deformable geometry.
        """
        return self._gs.deformable_configuration(geometry_id)

    # ------------------------------------------------------------------ geometry edits

    def rename_geometry(self, geometry_id: GeometryId, name: str) -> None:
        """Renames a geometry; changes no version (G-17).

        Drake's ``RenameGeometry``: ``name`` is stored as given (not canonicalized, and ``''``
        is accepted), renaming to the current name does nothing, and the only rule is that no
        other geometry of the frame with one of this geometry's roles has ``name``.

        Raises:
            GeometryRegistrationError: Unknown geometry; or another geometry of its frame with
                that name shares one of its roles (G-17).
            InvalidArgumentError: ``name`` is not a str.
        """
        where = 'SceneGraph.rename_geometry'
        if not isinstance(name, str):
            raise InvalidArgumentError(f'{where}: name must be a str, got {name!r}')
        geometry = self._geometry(geometry_id, where, 'G-17')
        if geometry.name == name:
            return
        clash = self._name_conflict(self._gs.frames[geometry.frame_id], name, geometry.roles,
                                    exclude=geometry_id)
        if clash is not None:
            raise GeometryRegistrationError(
                f'{where}: cannot rename {self._describe(geometry_id)} to {name!r}: '
                f'{self._describe(clash[0])} on the same frame has the {clash[1].name} role '
                '(G-17)')
        frame = self._gs.frames[geometry.frame_id]
        frame.forget_name(geometry.id, geometry.name)
        frame.geometry_names.setdefault(name, []).append(geometry.id)
        geometry.name = name
        self._edited()

    def change_shape(self, source_id: SourceId, geometry_id: GeometryId, shape: Shape,
                     X_FG: ArrayLike | None = None) -> None:
        """Replaces a geometry's shape (and pose in its frame if ``X_FG`` is given) (G-18).

        The id, roles, filters and (without ``X_FG``) pose stay. Bumps the version of each
        assigned role (perception only if rendered) (G-32).

        Raises:
            GeometryRegistrationError: (a) unknown source; (b) unknown geometry; (c) not owned
                by the source; (d) deformable geometry (G-18).
            InvalidArgumentError: Not a shape, or a bad ``X_FG``.
        """
        where = 'SceneGraph.change_shape'
        geometry = self._owned_geometry(source_id, geometry_id, where, 'G-18')
        if geometry.deformable is not None:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(geometry_id)} is deformable; its shape cannot be '
                'changed (G-18 d)')
        if not isinstance(shape, SHAPE_TYPES):
            raise InvalidArgumentError(f'{where}: not a shape: {type(shape).__name__}')
        new_pose = None if X_FG is None else _as_pose(X_FG, where)
        geometry.shape = shape
        if new_pose is not None:
            geometry.X_FG = new_pose
        if Role.PROXIMITY in geometry.roles:
            self._bump(Role.PROXIMITY)
        if Role.ILLUSTRATION in geometry.roles:
            self._bump(Role.ILLUSTRATION)
        if geometry.renderers:
            self._bump(Role.PERCEPTION)
        self._edited()

    def remove_geometry(self, source_id: SourceId, geometry_id: GeometryId) -> None:
        """Removes a geometry and every geometry hanging from it (G-19, G-C7).

        Works for dynamic, anchored and deformable geometry. Versions (G-32): each role a
        removed geometry had (perception: if one was rendered), as Drake removes the roles one
        by one. Filters naming the removed geometries are dropped.

        Raises:
            GeometryRegistrationError: (a) unknown source; (b) unknown geometry; (c) not owned
                by the source (G-19).
        """
        where = 'SceneGraph.remove_geometry'
        root = self._owned_geometry(source_id, geometry_id, where, 'G-19')
        removed: list[GeometryRecord] = []
        stack = [root]
        while stack:
            g = stack.pop()
            removed.append(g)
            stack.extend(self._gs.geometries[c] for c in g.child_geometry_ids)
        if root.parent_geometry_id is not None:
            self._gs.geometries[root.parent_geometry_id].child_geometry_ids.remove(root.id)
        gone: set[int] = set()
        proximity = rendered = illustrated = False
        for g in removed:
            frame = self._gs.frames[g.frame_id]
            del frame.geometry_ids[g.id]
            frame.forget_name(g.id, g.name)
            del self._gs.geometries[g.id]
            gone.add(g.id)
            proximity = proximity or Role.PROXIMITY in g.roles
            rendered = rendered or bool(g.renderers)
            illustrated = illustrated or Role.ILLUSTRATION in g.roles
        self._purge_filters(gone)
        if proximity:
            self._bump(Role.PROXIMITY)
        if rendered:
            self._bump(Role.PERCEPTION)
        if illustrated:
            self._bump(Role.ILLUSTRATION)
        self._edited()

    # ------------------------------------------------------------------ roles

    def _accepting(self, props: PerceptionProperties, where: str) -> frozenset[str]:
        """The ``('renderer', 'accepting')`` whitelist; empty means every renderer (G-25)."""
        value = props.get_property_or_default(*RENDERER_ACCEPTING, None)
        if value is None:
            return frozenset()
        if not isinstance(value, (set, frozenset)) or not all(isinstance(v, str) for v in value):
            raise InvalidArgumentError(
                f'{where}: perception property {RENDERER_ACCEPTING} must be a set of renderer '
                f'names, got {value!r} (G-25)')
        return frozenset(value)

    def _set_role(self, geometry: GeometryRecord, props: RoleProperties, where: str) -> None:
        """Stores ``props`` (already copied) and bumps the role version per G-32."""
        role = props.role
        geometry.roles[role] = props
        if isinstance(props, PerceptionProperties):
            accepting = self._accepting(props, where)
            geometry.renderers = {r for r in self._gs.renderers if not accepting or r in accepting}
            if geometry.renderers:
                self._bump(Role.PERCEPTION)
        else:
            self._bump(role)

    def assign_role(self, source_id: SourceId, geometry_id: GeometryId,
                    properties: RoleProperties, assign: RoleAssign = RoleAssign.NEW) -> None:
        """Assigns the role implied by the type of ``properties`` (G-23..G-26).

        A copy of ``properties`` is stored. Empty properties still assign the role (G-26).
        Versions: proximity/illustration always bump that role; perception bumps only if a
        renderer accepts the geometry (G-25, G-32).

        Args:
            source_id: The owning source.
            geometry_id: The geometry.
            properties: Proximity-, Illustration- or PerceptionProperties.
            assign: ``NEW`` (the role must not be assigned) or ``REPLACE`` (it must be).

        Raises:
            GeometryRegistrationError: Unknown source or geometry; geometry not owned;
                ``NEW`` on an assigned role; ``REPLACE`` on a missing role; ``REPLACE`` of
                perception (not supported, G-25); another geometry of the same frame with the
                same name already has the role (G-26).
            InvalidArgumentError: ``properties`` is not a role property set, ``assign`` is not
                a RoleAssign, or a malformed ``('renderer', 'accepting')`` value.
        """
        where = 'SceneGraph.assign_role'
        geometry = self._owned_geometry(source_id, geometry_id, where, 'G-26')
        if not isinstance(properties, _PROPERTY_TYPES):
            raise InvalidArgumentError(
                f'{where}: the role is inferred from the properties type; expected Proximity-, '
                f'Illustration- or PerceptionProperties, got {type(properties).__name__} (G-26)')
        if not isinstance(assign, RoleAssign):
            raise InvalidArgumentError(f'{where}: assign must be a RoleAssign, got {assign!r}')
        role = properties.role
        if role == Role.PERCEPTION and assign is RoleAssign.REPLACE:
            raise GeometryRegistrationError(
                f'{where}: replacing perception properties of {self._describe(geometry_id)} '
                'is not supported; remove the role and assign it anew (G-25)')
        has_role = role in geometry.roles
        if assign is RoleAssign.NEW and has_role:
            raise GeometryRegistrationError(
                f'{where}: {self._describe(geometry_id)} already has the {role.name} role; use '
                'RoleAssign.REPLACE to change its properties (G-26)')
        if assign is RoleAssign.REPLACE and not has_role:
            raise GeometryRegistrationError(
                f'{where}: cannot replace the {role.name} properties of '
                f'{self._describe(geometry_id)}: the role is not assigned; use RoleAssign.NEW '
                '(G-26)')
        if assign is RoleAssign.NEW:
            clash = self._name_conflict(self._gs.frames[geometry.frame_id], geometry.name, (role,),
                                        exclude=geometry_id)
            if clash is not None:
                raise GeometryRegistrationError(
                    f'{where}: cannot assign the {role.name} role to '
                    f'{self._describe(geometry_id)}: {self._describe(clash[0])} on the same '
                    'frame has the same name and that role (G-26)')
        stored = properties.copy()
        if isinstance(stored, PerceptionProperties):
            self._accepting(stored, where)  # validate before mutating
        self._set_role(geometry, stored, where)
        self._edited()

    def _remove_role(self, geometry: GeometryRecord, role: Role) -> tuple[bool, bool]:
        """Removes ``role`` without bumping; returns (removed, was rendered)."""
        if role not in geometry.roles:
            return False, False
        del geometry.roles[role]
        rendered = False
        if role == Role.PERCEPTION:
            rendered = bool(geometry.renderers)
            geometry.renderers = set()
        elif role == Role.PROXIMITY:
            self._purge_filters({geometry.id})
        return True, rendered

    def remove_role(self, source_id: SourceId, frame_or_geometry_id: FrameId | GeometryId,
                    role: Role) -> int:
        """Removes ``role`` from one geometry (G-28) or from the geometries on a frame (G-27).

        Ids are unique across kinds, so one method serves both seed overloads. On a frame,
        only the geometries *directly* affixed to it and owned by the source are affected (for
        the world frame: the source's anchored and deformable geometries). Removing proximity
        drops the geometry's explicit collision filters. Versions (G-32): the role's version
        bumps if any geometry lost it (perception: only if one was rendered).

        Args:
            source_id: The owning source.
            frame_or_geometry_id: A geometry id, or a frame id.
            role: PROXIMITY, ILLUSTRATION or PERCEPTION; ``Role.UNASSIGNED`` is accepted and
                removes nothing (Drake: "one can't remove the unassigned role"), after the ids
                are checked.

        Returns:
            The number of geometries that lost the role (0 or 1 for a geometry).

        Raises:
            GeometryRegistrationError: Unknown source; the id is neither a registered frame nor
                a registered geometry; the geometry or (non-world) frame is not owned by the
                source (G-27, G-28).
            InvalidArgumentError: ``role`` is not a Role value of Drake's (a combination of
                flags such as ``PROXIMITY | ILLUSTRATION``).
        """
        where = 'SceneGraph.remove_role'
        if role not in SINGLE_ROLES and role != Role.UNASSIGNED:
            raise InvalidArgumentError(
                f'{where}: role must be PROXIMITY, ILLUSTRATION, PERCEPTION or UNASSIGNED, got '
                f'{role!r}')
        role = Role(role)
        if frame_or_geometry_id in self._gs.geometries:
            targets = [self._owned_geometry(source_id, GeometryId(frame_or_geometry_id), where,
                                            'G-28')]
        else:
            self._source(source_id, where, 'G-27')
            frame = self._gs.frames.get(FrameId(frame_or_geometry_id))
            if frame is None:
                raise GeometryRegistrationError(
                    f'{where}: id {frame_or_geometry_id!r} is neither a registered frame nor a '
                    'registered geometry (G-27, G-28)')
            if frame.id != WORLD_FRAME_ID and frame.source_id != source_id:
                raise GeometryRegistrationError(
                    f'{where}: {self._describe(frame.id)} belongs to '
                    f'{self._describe(frame.source_id)}, not to {self._describe(source_id)} '
                    '(G-27)')
            targets = [self._gs.geometries[g] for g in frame.geometry_ids
                       if self._gs.geometries[g].source_id == source_id]
        if role == Role.UNASSIGNED:
            return 0
        count = 0
        rendered = False
        for geometry in targets:
            removed, was_rendered = self._remove_role(geometry, role)
            count += removed
            rendered = rendered or was_rendered
        if count:
            if role != Role.PERCEPTION:
                self._bump(role)
            elif rendered:
                self._bump(Role.PERCEPTION)
            self._edited()
        return count

    # ------------------------------------------------------------------ renderers

    def add_renderer(self, name: str, engine: object) -> None:
        """Adds a render engine under a unique name (G-20).

        The engine is stored as given (no rendering here). It takes every perception geometry
        whose ``('renderer', 'accepting')`` set is empty/missing or names it; the perception
        version bumps if it takes any (G-20, G-32). Order of addition does not matter.

        Raises:
            GeometryRegistrationError: ``name`` is already used (G-20).
            InvalidArgumentError: ``name`` is not a non-empty str, or ``engine`` is None.
        """
        where = 'SceneGraph.add_renderer'
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f'{where}: name must be a non-empty str, got {name!r}')
        if engine is None:
            raise InvalidArgumentError(f'{where}: engine is None')
        if name in self._gs.renderers:
            raise GeometryRegistrationError(
                f'{where}: A renderer with the name {name!r} already exists (G-20)')
        self._gs.renderers[name] = engine
        took = False
        for geometry in self._gs.geometries.values():
            props = geometry.roles.get(Role.PERCEPTION)
            if isinstance(props, PerceptionProperties):
                accepting = self._accepting(props, where)
                if not accepting or name in accepting:
                    geometry.renderers.add(name)
                    took = True
        if took:
            self._bump(Role.PERCEPTION)
        self._edited()

    def remove_renderer(self, name: str) -> None:
        """Removes a renderer; bumps the perception version (always, as Drake does) (G-21).

        Raises:
            GeometryRegistrationError: No renderer has that name (G-21).
        """
        where = 'SceneGraph.remove_renderer'
        if name not in self._gs.renderers:
            raise GeometryRegistrationError(
                f'{where}: A renderer with the name {name!r} does not exist; registered: '
                f'{list(self._gs.renderers)} (G-21)')
        del self._gs.renderers[name]
        for geometry in self._gs.geometries.values():
            geometry.renderers.discard(name)
        self._bump(Role.PERCEPTION)
        self._edited()

    def has_renderer(self, name: str) -> bool:
        """True if a renderer has that name (G-22)."""
        return name in self._gs.renderers

    def renderer_count(self) -> int:
        """The number of renderers (G-22)."""
        return len(self._gs.renderers)

    def registered_renderer_names(self) -> list[str]:
        """The renderer names, in the order added (G-22)."""
        return list(self._gs.renderers)

    def get_renderer_type_name(self, name: str) -> str:
        """The engine's qualified type name (``module.Class``), ``''`` if none (G-22)."""
        engine = self._gs.renderers.get(name)
        if engine is None:
            return ''
        kind = type(engine)
        return f'{kind.__module__}.{kind.__qualname__}'

    # ------------------------------------------------------------------ collision filters

    def collision_filter_manager(self) -> CollisionFilterManager:
        """A manager for this registry's collision filters; bumps the proximity version (G-29).

        Do not keep the manager beyond the current scope; acquiring one is cheap.
        """
        self._bump(Role.PROXIMITY)
        self._edited()
        return CollisionFilterManager(self)

    def _resolve_set(self, geometry_set: GeometrySet | tuple[int, ...], where: str) -> set[int]:
        """Proximity geometry ids named by a set (frames expand to their geometries)."""
        geometries: list[int] = []
        frames: list[int] = []
        if isinstance(geometry_set, GeometrySet):
            for gid in geometry_set.geometry_ids:
                if gid not in self._gs.geometries:
                    raise self._unknown(where, 'geometry', gid, 'G-29')
                geometries.append(gid)
            for frame_id in geometry_set.frame_ids:
                if frame_id not in self._gs.frames:
                    raise self._unknown(where, 'frame', frame_id, 'G-29')
                frames.append(frame_id)
        else:
            for any_id in geometry_set:
                if any_id in self._gs.geometries:
                    geometries.append(any_id)
                elif any_id in self._gs.frames:
                    frames.append(any_id)
                else:
                    raise GeometryRegistrationError(
                        f'{where}: id {any_id!r} in a collision filter set is neither a '
                        'registered frame nor a registered geometry (G-29)')
        for fid in frames:
            geometries.extend(self._gs.frames[FrameId(fid)].geometry_ids)
        records = self._gs.geometries
        return {g for g in geometries if Role.PROXIMITY in records[GeometryId(g)].roles}

    def _apply_filter_declaration(self, declaration: CollisionFilterDeclaration) -> None:
        where = 'CollisionFilterManager.apply'
        if not isinstance(declaration, CollisionFilterDeclaration):
            raise InvalidArgumentError(f'{where}: expected a CollisionFilterDeclaration, got '
                                       f'{type(declaration).__name__}')
        resolved = [(s.exclude, self._resolve_set(s.set_a, where),
                     None if s.set_b is None else self._resolve_set(s.set_b, where))
                    for s in declaration.statements()]
        for exclude, a, b in resolved:
            if b is None:
                ordered = sorted(a)
                pairs = set(itertools.combinations(ordered, 2))
            else:
                pairs = {(min(x, y), max(x, y)) for x in a for y in b if x != y}
            if exclude:
                self._gs.excluded |= pairs
            else:
                self._gs.excluded -= pairs
        self._bump(Role.PROXIMITY)
        self._edited()

    def _set_compiled_filter(self, name: str, excluded_pairs: ArrayLike) -> None:
        where = 'CollisionFilterManager.set_compiled_filter'
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f'{where}: name must be a non-empty str, got {name!r}')
        try:
            pairs = np.asarray(excluded_pairs)
            if pairs.size == 0:
                pairs = pairs.reshape(0, 2)
            ok = pairs.ndim == 2 and pairs.shape[1] == 2 and (
                pairs.size == 0 or np.issubdtype(pairs.dtype, np.integer))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InvalidArgumentError(f'{where}: excluded_pairs must be a (K, 2) array of '
                                       f'geometry ids, got {excluded_pairs!r}')
        flat = pairs.astype(np.int64).reshape(-1)
        geometries = self._gs.geometries
        unknown = [g for g in np.unique(flat).tolist() if g not in geometries]
        if unknown:
            raise self._unknown(where, 'geometry', unknown[0], 'G-29')
        proximity = {g for g in np.unique(flat).tolist()
                     if Role.PROXIMITY in geometries[GeometryId(g)].roles}
        pairs = pairs.astype(np.int64)
        lo = np.minimum(pairs[:, 0], pairs[:, 1])
        hi = np.maximum(pairs[:, 0], pairs[:, 1])
        known = np.fromiter(proximity, dtype=np.int64, count=len(proximity))
        keep = (lo != hi) & np.isin(lo, known) & np.isin(hi, known)
        canonical = np.unique(np.column_stack([lo[keep], hi[keep]]), axis=0).reshape(-1, 2)
        canonical.setflags(write=False)
        self._gs.compiled_filters[name] = canonical
        self._bump(Role.PROXIMITY)
        self._edited()

    def _remove_compiled_filter(self, name: str) -> bool:
        if self._gs.compiled_filters.pop(name, None) is None:
            return False
        self._bump(Role.PROXIMITY)
        self._edited()
        return True

    def _clone(self) -> SceneGraph:
        """An independent registry with the same ids, versions and filters.

        For ``PlanningScene.copy``; the registry itself is not copyable (G-03).
        """
        other = SceneGraph.__new__(SceneGraph)
        other._gs = self._gs.copy()
        other._layout_cache = None
        other._inspector = None
        return other

    def _purge_filters(self, ids: set[int]) -> None:
        self._gs.purge_filters(ids)

    # ------------------------------------------------------------------ poses

    def _layout(self) -> _PoseLayout:
        layout = self._layout_cache
        if layout is not None and layout.revision == self._gs.revision:
            return layout
        frames = [self._gs.frames[f] for f in self._gs.frame_order]
        parent_index = np.fromiter((self._gs.frames[f.parent_id].index for f in frames),
                                   dtype=np.intp, count=len(frames))
        geometries = list(self._gs.geometries.values())
        count = len(geometries)
        X_FG = np.stack([g.X_FG for g in geometries]) if geometries else np.empty((0, 4, 4))
        layout = _PoseLayout(
            revision=self._gs.revision,
            frame_order=tuple(self._gs.frame_order),
            tree=np.stack([parent_index, np.arange(1, len(frames) + 1)], axis=1),
            geometry_ids=tuple(self._gs.geometries),
            geometry_frame_index=np.fromiter(
                (self._gs.frames[g.frame_id].index for g in geometries), dtype=np.intp,
                count=count),
            geometry_roles=np.fromiter((int(g.role_flags()) for g in geometries),
                                       dtype=np.int64, count=count),
            X_FG=_read_only(X_FG))
        self._layout_cache = layout
        return layout

    def _check_frame_coverage(self, provided: Sequence[int], layout: _PoseLayout,
                              where: str) -> None:
        """Every registered frame exactly once, nothing else (G-C11)."""
        seen: set[int] = set()
        for fid in provided:
            if fid in seen:
                raise InvalidArgumentError(
                    f'{where}: {self._describe(fid)} is given more than one pose (G-C11)')
            seen.add(fid)
        extra = [f for f in provided if f not in self._gs.frames or f == WORLD_FRAME_ID]
        if extra:
            what = ', '.join('the world frame (never posed)' if f == WORLD_FRAME_ID
                             else f'unregistered {self._describe(f)}' for f in extra[:5])
            raise InvalidArgumentError(
                f'{where}: poses given for frames no source registered: {what} (G-C11)')
        missing = [f for f in layout.frame_order if f not in seen]
        if missing:
            by_source: dict[SourceId, list[str]] = {}
            for f in missing:
                by_source.setdefault(self._gs.frames[f].source_id, []).append(self._describe(f))
            detail = '; '.join(f'{self._describe(s)} is missing {", ".join(names[:5])}'
                               + (f' and {len(names) - 5} more' if len(names) > 5 else '')
                               for s, names in by_source.items())
            raise InvalidArgumentError(
                f'{where}: a source must provide a pose for every one of its frames: '
                f'{detail} (G-C11)')

    def _frame_pose_stack(self, frame_poses: FramePoses, layout: _PoseLayout,
                          where: str) -> FloatArray:
        """The ``(F, 4, 4)`` X_PF stack in ``layout.frame_order``, validated (G-C11)."""
        order = layout.frame_order
        count = len(order)
        if isinstance(frame_poses, Mapping):
            self._check_frame_coverage(list(frame_poses), layout, where)
            X = np.empty((count, 4, 4))
            for i, fid in enumerate(order):
                try:
                    X_i = np.asarray(frame_poses[fid], dtype=np.float64)
                except (TypeError, ValueError) as err:
                    raise InvalidArgumentError(
                        f'{where}: the pose of {self._describe(fid)} is not a (4, 4) array: '
                        f'{err} (G-C11)') from err
                if X_i.shape != (4, 4):
                    raise InvalidArgumentError(
                        f'{where}: the pose of {self._describe(fid)} must be (4, 4), got shape '
                        f'{X_i.shape} (G-C11)')
                X[i] = X_i
        else:
            try:
                ids_in, X_in = frame_poses
                ids = tuple(ids_in)
                X = np.asarray(X_in, dtype=np.float64)
            except (TypeError, ValueError) as err:
                raise InvalidArgumentError(
                    f'{where}: frame_poses must be a {{frame_id: X_PF}} mapping or a '
                    f'(frame_ids, (F, 4, 4) array) pair: {err}') from err
            if X.shape != (len(ids), 4, 4):
                raise InvalidArgumentError(
                    f'{where}: {len(ids)} frame ids need a ({len(ids)}, 4, 4) pose array, got '
                    f'shape {X.shape} (G-C11)')
            if ids != order:
                self._check_frame_coverage(ids, layout, where)
                position = {f: i for i, f in enumerate(ids)}
                X = X[np.fromiter((position[f] for f in order), dtype=np.intp, count=count)]
        finite = np.isfinite(X).all(axis=(1, 2))
        if not finite.all():
            bad = order[int(np.argmin(finite))]
            raise InvalidArgumentError(
                f'{where}: the pose of {self._describe(bad)} (owned by '
                f'{self._describe(self._gs.frames[bad].source_id)}) is not finite (G-C11)')
        return X

    def _compose_frames(self, X_PF: FloatArray, layout: _PoseLayout) -> FloatArray:
        """World-first ``(F + 1, 4, 4)`` X_WF stack: the package's one tree composition."""
        return compose_tree(layout.tree, X_PF, len(X_PF) + 1)

    def compute_frame_world_poses(self, frame_poses: FramePoses) -> FloatArray:
        """World poses of every registered frame from their parent-relative poses (G-C5).

        Args:
            frame_poses: ``X_PF`` for every registered frame, either ``{frame_id: (4, 4)}`` or
                ``(frame_ids, (F, 4, 4))``. Passing ``frame_ids()`` in that order skips the
                reordering.

        Returns:
            ``X_WF`` ``(F, 4, 4)`` in :meth:`frame_ids` order (world frame excluded).

        Raises:
            InvalidArgumentError: A frame is missing, unregistered (or the world frame) or
                given twice; a pose is not ``(4, 4)`` or not finite (G-C11).
        """
        layout = self._layout()
        X_PF = self._frame_pose_stack(frame_poses, layout, 'SceneGraph.compute_frame_world_poses')
        return self._compose_frames(X_PF, layout)[1:]

    def compute_world_poses(self, frame_poses: FramePoses,
                            role: Role | None = None) -> FloatArray:
        """World poses ``X_WG`` of the geometries from the frames' parent-relative poses.

        ``X_WG = X_WF @ X_FG`` with ``X_WF`` composed along the frame tree (G-C4, G-C5).
        Anchored and deformable geometries (on the world frame) get ``X_WG = X_FG``.

        Args:
            frame_poses: ``X_PF`` for every registered frame (see
                :meth:`compute_frame_world_poses`; G-C11).
            role: Only geometries with this role (``Role.UNASSIGNED``: with no role);
                ``None`` for all.

        Returns:
            ``X_WG`` ``(G, 4, 4)`` in the order of
            ``model_inspector().get_all_geometry_ids(role)`` (registration order).

        Raises:
            InvalidArgumentError: As :meth:`compute_frame_world_poses`.
        """
        layout = self._layout()
        X_PF = self._frame_pose_stack(frame_poses, layout, 'SceneGraph.compute_world_poses')
        X_WF = self._compose_frames(X_PF, layout)
        frame_index, X_FG = layout.geometry_frame_index, layout.X_FG
        if role is not None:
            keep = _role_mask(layout.geometry_roles, role)
            frame_index, X_FG = frame_index[keep], X_FG[keep]
        return poses_on_frames(X_WF, frame_index, X_FG)


def _role_mask(role_bits: NDArray[np.int64], role: Role) -> NDArray[np.bool_]:
    """Vectorized :func:`_has_role` over a role-bit array."""
    mask: NDArray[np.bool_] = (role_bits == 0 if role == Role.UNASSIGNED
                               else (role_bits & int(role)) == int(role))
    return mask


__all__ = [
    'INTERNAL_SOURCE_NAME',
    'WORLD_FRAME_ID',
    'WORLD_FRAME_NAME',
    'CollisionFilterDeclaration',
    'CollisionFilterManager',
    'FrameId',
    'FramePoses',
    'GeometryFrame',
    'GeometryId',
    'GeometryInstance',
    'GeometrySet',
    'GeometrySetLike',
    'GeometryVersion',
    'ReferenceMesh',
    'SceneGraph',
    'SourceId',
    'exclude_between',
    'exclude_within',
]
