"""A MoveIt-like planning scene: robot geometry, world objects, attached bodies, collision checks.

:class:`PlanningScene` aggregates what MoveIt's ``planning_scene::PlanningScene`` holds for
``/check_state_validity`` and collision-aware IK: the robot model and its geometry
(:class:`~robot_state_core.scene.robot_geometry.RobotGeometry`), the current state, an editable
:class:`~robot_state_core.description.acm.AllowedCollisionMatrix`, the world (MoveIt
``CollisionObject`` semantics) and bodies attached to the current state. Queries take any state of
the model.

Geometry store (issue 11, design study B3). The scene keeps **one** Drake-style
:class:`~robot_state_core.geometry.scene_graph.SceneGraph` (:attr:`PlanningScene.scene_graph`):
source ``'robot'`` with a frame per link, the links' proximity (and illustration) geometry
(:meth:`RobotGeometry.register <robot_state_core.scene.robot_geometry.RobotGeometry.register>`) and
the shapes of each attached body on a frame of its own, a child of its link's frame
(``'attached:<body>'``); source ``'world'`` with each world
object's shapes as anchored geometry. Applying or removing world objects and attaching or
detaching bodies registers and removes geometry there (attached bodies follow the queried
state's bodies).

Collision filtering (seed Q1/Q2, §8.15). A pair of geometries is checked unless:

* both belong to one body (same link, same attached body, same world object: G-30), or a
  robot link's collision flag is off (SG-13);
* the ACM allows it. The default ACM is the SRDF's ``disable_collisions`` (ALWAYS entries), and
  nothing else: as in MoveIt, adjacent links collide unless the SRDF disables them. ACM names
  are link names, attached-body ids and world-object ids; CONDITIONAL entries are decided per
  contact by calling ``decider(contact)`` with a :class:`Contact`;
* an attached body and one of its ``touch_links`` (the link it hangs on only when listed, as
  MoveIt's checker); two bodies attached to the same link (MoveIt);
* two world objects (never checked, as in MoveIt).

These rules are the registry's collision-filter state, one mechanism: pairs on one frame (one
link; one attached body; world objects, all anchored on the world frame) are filtered by the
registry's same-frame rule (G-30), and the rest (ACM ALWAYS entries, disabled links, touch
links, bodies on one link, half-space pairs) is compiled into
the registry's filter layer ``'planning_scene'``
(:meth:`~robot_state_core.geometry.scene_graph.CollisionFilterManager.set_compiled_filter`)
when the ACM, the world or the attached bodies change. Filters declared on
:attr:`PlanningScene.scene_graph` through its ``collision_filter_manager()`` apply too.
CONDITIONAL entries stay candidates; their deciders run per contact.

Self collision covers robot links and attached bodies among themselves; world collision covers
them against world objects. A group restricts checks to pairs where at least one body is a
link the group moves (MoveIt's "updated links": the links below the group's active, non-mimic
joints, ``JointModelGroup.updated_link_model_names``) or attached to one.

Everything is compiled into index form when the world, the attached bodies or the ACM change
(keyed on the registry's proximity version, so nothing is recompiled per query): one combined
geometry list (robot geometries, then attached shapes, then world shapes) with their registry
ids, one python-fcl object per geometry, the registry's candidate pairs in that order and
candidate-pair arrays per request kind. A query then computes the link poses once
(``state.get_link_poses()``), poses every moving geometry with one batched product and answers
through a :class:`~robot_state_core.geometry.query_object.QueryObject` bound to those poses
(:meth:`PlanningScene.query_object`): ``has_collisions``, ``compute_point_pair_penetration`` and
``compute_minimum_signed_distance`` on the selected pairs. Names are resolved only when results
are reported.

Contacts (:class:`Contact`). Body 1 is always the earlier body in the combined order (robot
link, then attached body, then world object), so a robot-world contact names the robot first.
``normal_W`` is the unit normal pointing **from body 1 into body 2**: moving body 2 by
``depth * normal_W`` (or body 1 by ``-depth * normal_W``) separates them. This is the normal
MoveIt's default (FCL) checker reports (fcl's ``Contact.normal``, from ``o1`` to ``o2``); it is
``-nhat_BA_W`` of the backend's :class:`~robot_state_core.geometry.query.PenetrationAsPointPair`
with A = body 1. ``position_W`` is the midpoint of the two deepest points (fcl's ``pos`` for
primitive pairs). For triangle meshes, depths are per triangle pair (a mesh is a surface).

Padding (MoveIt's two collision environments): the padded robot (:meth:`PlanningScene.
set_link_padding`, ``set_link_scale``) is checked against the world, the unpadded robot against
itself.

Exchange. World objects follow MoveIt's ``World`` (``set_object_pose`` creates an object without
shapes, ``move_object`` is relative, one shape is moved or removed by index, colours and types
are kept by id through attach and detach, REMOVE takes the object's ACM entries along);
:meth:`PlanningScene.diff` makes a child scene that records its changes (the diff messages of
:mod:`robot_state_core.ros.planning_scene_conversions`); ``load_geometry_text`` and
``save_geometry_text`` read and write MoveIt's ``.scene`` files
(:mod:`robot_state_core.scene.scene_file`).

Threads. Queries (``check_collision``, ``distance_*``, ``is_state_valid``, ``query_object``,
frame lookups) may run from many threads at once, as MoveIt's const ``checkCollision``: the
compiled tables are made under the scene's lock and are immutable, and every thread poses fcl
objects of its own. The scene's edit methods take the same lock, so they are safe beside
queries. Edits made outside them (the mutable :attr:`PlanningScene.current_state`, the ACM
object edited in place, a handed-out :attr:`PlanningScene.scene_graph`) are the caller's to
serialise, as in MoveIt. :meth:`PlanningScene.copy` returns an independent snapshot (its own
state, ACM, world mapping and registry; immutable geometry and meshes are shared).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
import contextlib
import dataclasses
from dataclasses import dataclass, field
import enum
import functools
import logging
import math
import threading
from types import MappingProxyType
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import BoolArray, FloatArray, Int64Array, IntArray
from robot_state_core.description.acm import AllowedCollisionMatrix, DecideContactFn
from robot_state_core.errors import (
    GeometryRegistrationError,
    InvalidArgumentError,
    InvalidTypeError,
    ModelMismatchError,
    RobotStateCoreError,
    UnknownNameError,
)
from robot_state_core.geometry.fcl_backend import (
    Broadphase,
    check_broadphase,
    FclObjects,
)
from robot_state_core.geometry.identifiers import FrameId, GeometryId, SourceId
from robot_state_core.geometry.inspector import SceneGraphInspector
from robot_state_core.geometry.query import (
    as_vec3,
    PenetrationAsPointPair,
    SignedDistancePair,
)
from robot_state_core.geometry.query_object import candidate_index_pairs, QueryObject
from robot_state_core.geometry.roles import ProximityProperties
from robot_state_core.geometry.scene_graph import GeometryFrame, GeometryInstance, SceneGraph
from robot_state_core.geometry.shapes import Mesh, module_of, Shape, SHAPE_TYPES
from robot_state_core.geometry.shapes.mesh import from_arrays as mesh_from_arrays
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.constraints import (
    ConstraintEvalResult,
    Constraints,
    evaluate_constraints,
)
from robot_state_core.scene.robot_geometry import (
    MeshMode,
    RobotGeometry,
    RobotGeometryRegistration,
)
from robot_state_core.scene.scene_file import (
    format_scene_text,
    parse_scene_text,
    SceneText,
    SceneTextObject,
)
from robot_state_core.spatial.transforms import as_pose, rigid_inverse
from robot_state_core.state.attached_body import AttachedBody
from robot_state_core.state.robot_state import RobotState

__all__ = [
    'DEFAULT_SCENE_NAME',
    'BodyType',
    'CollisionObjectOperation',
    'CollisionRequest',
    'CollisionResult',
    'Contact',
    'DistanceRequest',
    'DistanceRequestType',
    'DistanceResult',
    'DistanceResultsData',
    'ObjectType',
    'PlanningScene',
    'SceneChanges',
    'StateValidity',
    'WorldObject',
]

_LOG = logging.getLogger(__name__)

_FILTER_NAME = 'planning_scene'
'''Name of the scene's compiled filter in its registry.'''


_P = ParamSpec('_P')
_R = TypeVar('_R')


def _locked(method: Callable[Concatenate[PlanningScene, _P], _R]
            ) -> Callable[Concatenate[PlanningScene, _P], _R]:
    """Run a scene method under the scene's lock (edits, and what reads mutable scene data)."""
    def run(self: PlanningScene, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)
    run.__name__, run.__qualname__ = method.__name__, method.__qualname__
    run.__doc__ = method.__doc__
    return run


class CollisionObjectOperation(enum.IntEnum):
    """``moveit_msgs/CollisionObject.operation``."""

    ADD = 0
    REMOVE = 1
    APPEND = 2
    MOVE = 3


class BodyType(enum.IntEnum):
    """``moveit_msgs/ContactInformation`` body types."""

    ROBOT_LINK = 0
    WORLD_OBJECT = 1
    ROBOT_ATTACHED = 2


def _pose(value: ArrayLike, where: str) -> FloatArray:
    X = as_pose(value, where)
    X.setflags(write=False)
    return X


def _pose_map(poses: Mapping[str, ArrayLike] | None, where: str) -> dict[str, FloatArray]:
    return {str(k): _pose(v, f'{where}: subframe {k!r}') for k, v in (poses or {}).items()}


def _shape_pairs(shapes: object, where: str) -> tuple[tuple[Shape, Any], ...]:
    """``shapes`` as a tuple of ``(shape, X_OS)`` pairs (validated later by WorldObject)."""
    if not isinstance(shapes, Iterable) or isinstance(shapes, str):
        raise InvalidTypeError(f'{where}: shapes must be an iterable of (shape, X_OS) pairs, got '
                               f'{shapes!r}')
    pairs = []
    for k, item in enumerate(shapes):
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise InvalidArgumentError(f'{where}: shapes[{k}] must be a (shape, X_OS) pair, got '
                                       f'{item!r}')
        pairs.append((item[0], item[1]))
    return tuple(pairs)


def _check_meshes(shapes: Iterable[Shape], where: str) -> None:
    """Read every mesh (and convex hull) of ``shapes`` now, so that no query fails on it later.

    Meshes are cached per file and scale, so the collision backend reuses what is read here.

    Raises:
        InvalidArgumentError: A mesh is unresolved, missing or unreadable, or its scale or hull
            is unusable.
    """
    for k, shape in enumerate(shapes):
        module = module_of(shape, where)
        if not module.MESH_FILE:
            continue
        try:
            module.read_triangles(shape)
        except RobotStateCoreError as err:
            raise InvalidArgumentError(f'{where}: shape {k} ({type(shape).__name__} '
                                       f'{getattr(shape, "uri", "")!r}) is not usable: '
                                       f'{err}') from err


def _stack(poses: Sequence[FloatArray]) -> FloatArray:
    return np.stack(poses) if poses else np.zeros((0, 4, 4))


# ---------------------------------------------------------------------------- value types


@dataclass(frozen=True)
class ObjectType:
    """A recognised object type (``object_recognition_msgs/ObjectType``).

    Attributes:
        key: The type's key in its database.
        db: The database (free text, e.g. a JSON description).
    """

    key: str = ''
    db: str = ''


def _rgba(value: ArrayLike, where: str) -> tuple[float, float, float, float]:
    try:
        c = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{where}: a colour is 4 numbers (r, g, b, a), got '
                                   f'{value!r}') from err
    if c.shape != (4,) or not np.isfinite(c).all():
        raise InvalidArgumentError(f'{where}: a colour is 4 finite numbers (r, g, b, a), got '
                                   f'{value!r}')
    r, g, b, a = (float(v) for v in c)
    return r, g, b, a



@dataclass(frozen=True, eq=False)
class WorldObject:
    """A collision object of the world (MoveIt ``World::Object`` / ``CollisionObject``).

    Attributes:
        id: Object id (unique in the world).
        X_WO: ``(4, 4)`` pose of the object frame O in the model frame (read-only).
        shapes: ``((shape, X_OS), ...)``: each shape with its pose in the object frame.
        subframes: ``{name: X_OF}``: named frames on the object.
    """

    id: str
    X_WO: FloatArray
    shapes: tuple[tuple[Shape, FloatArray], ...] = ()
    subframes: Mapping[str, FloatArray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = f'WorldObject {self.id!r}'
        if not isinstance(self.id, str) or not self.id:
            raise InvalidArgumentError(f'WorldObject: id must be a non-empty str, got '
                                       f'{self.id!r}')
        object.__setattr__(self, 'X_WO', _pose(self.X_WO, f'{where}: X_WO'))
        shapes = []
        for k, item in enumerate(self.shapes):
            try:
                shape, X_OS = item
            except (TypeError, ValueError) as err:
                raise InvalidArgumentError(f'{where}: shapes must be (shape, X_OS) pairs, got '
                                           f'{item!r}') from err
            if not isinstance(shape, SHAPE_TYPES):
                raise InvalidArgumentError(f'{where}: shape {k} is not a shape: {shape!r}')
            shapes.append((shape, _pose(X_OS, f'{where}: pose of shape {k}')))
        object.__setattr__(self, 'shapes', tuple(shapes))
        object.__setattr__(self, 'subframes', MappingProxyType(
            {str(k): _pose(v, f'{where}: subframe {k!r}') for k, v in
             dict(self.subframes).items()}))

    @property
    def shape_poses(self) -> FloatArray:
        """``(K, 4, 4)`` ``X_OS`` of the shapes."""
        return _stack([X for _, X in self.shapes])

    def shape_world_poses(self) -> FloatArray:
        """``(K, 4, 4)`` ``X_WS = X_WO @ X_OS`` of the shapes."""
        out: FloatArray = self.X_WO @ self.shape_poses
        return out

    def subframe_world_pose(self, name: str) -> FloatArray | None:
        """``X_WF`` of subframe ``name``, or ``None``."""
        X_OF = self.subframes.get(name)
        return None if X_OF is None else self.X_WO @ X_OF

    def __repr__(self) -> str:
        return (f'WorldObject({self.id!r}: {len(self.shapes)} shape(s), '
                f'subframes={list(self.subframes)})')


@dataclass(frozen=True, eq=False)
class Contact:
    """One contact (MoveIt ``collision_detection::Contact`` / ``ContactInformation``).

    Attributes:
        body_name_1: Link name, attached-body id or world-object id of body 1.
        body_type_1: Its :class:`BodyType`.
        body_name_2: Body 2 (later in the order robot link < attached body < world object).
        body_type_2: Its :class:`BodyType`.
        position_W: ``(3,)`` contact point in the model frame [m] (midpoint of the deepest
            points).
        normal_W: ``(3,)`` unit normal pointing from body 1 into body 2 (module docstring).
        depth: Penetration depth ``>= 0`` [m].
    """

    body_name_1: str
    body_type_1: BodyType
    body_name_2: str
    body_type_2: BodyType
    position_W: FloatArray  # noqa: N815 (monogram names, design B5)
    normal_W: FloatArray  # noqa: N815 (monogram names, design B5)
    depth: float

    def __post_init__(self) -> None:
        object.__setattr__(self, 'position_W', as_vec3(self.position_W, 'Contact.position_W'))
        object.__setattr__(self, 'normal_W', as_vec3(self.normal_W, 'Contact.normal_W'))
        object.__setattr__(self, 'depth', float(self.depth))

    @property
    def pair(self) -> tuple[str, str]:
        """``(body_name_1, body_name_2)``."""
        return self.body_name_1, self.body_name_2


@dataclass(frozen=True)
class CollisionRequest:
    """What to compute (MoveIt ``collision_detection::CollisionRequest``).

    Attributes:
        group_name: Restrict to pairs involving a link moved by this group (or a body attached
            to one); ``None``: the whole robot.
        contacts: Report contacts (else only the verdict; the check stops at the first hit).
        max_contacts: At most this many contacts overall (>= 1).
        max_contacts_per_pair: At most this many contacts per geometry pair (>= 1).
        distance: Also compute the minimum signed distance over the checked pairs.
        self_collision: Check robot links and attached bodies among themselves.
        world_collision: Check them against world objects.
    """

    group_name: str | None = None
    contacts: bool = False
    max_contacts: int = 1
    max_contacts_per_pair: int = 1
    distance: bool = False
    self_collision: bool = True
    world_collision: bool = True

    def __post_init__(self) -> None:
        if int(self.max_contacts) < 1 or int(self.max_contacts_per_pair) < 1:
            raise InvalidArgumentError(
                f'CollisionRequest: max_contacts ({self.max_contacts}) and '
                f'max_contacts_per_pair ({self.max_contacts_per_pair}) must be >= 1')


@dataclass(frozen=True)
class CollisionResult:
    """The answer (MoveIt ``collision_detection::CollisionResult``).

    Attributes:
        collision: True when a checked pair is in collision.
        contacts: The reported contacts (empty unless requested), in pair order.
        contact_count: ``len(contacts)``.
        distance: Minimum signed distance over the checked pairs [m] when requested, else
            ``inf`` (MoveIt: ``DBL_MAX``); ``inf`` too when no pair is checked.
    """

    collision: bool
    contacts: tuple[Contact, ...] = ()
    contact_count: int = 0
    distance: float = math.inf

    def contacts_by_pair(self) -> dict[tuple[str, str], list[Contact]]:
        """``{(body_name_1, body_name_2): [contacts]}`` (MoveIt's ``ContactMap`` layout)."""
        out: dict[tuple[str, str], list[Contact]] = {}
        for c in self.contacts:
            out.setdefault(c.pair, []).append(c)
        return out


@dataclass(frozen=True)
class StateValidity:
    """The answer of :meth:`PlanningScene.is_state_valid` (``GetStateValidity`` response).

    Attributes:
        valid: Not in collision and every constraint satisfied.
        contacts: The contacts (when requested).
        constraint_results: One result per constraint (joint, position, orientation order).
        message: Why the state is invalid (``''`` when valid).
    """

    valid: bool
    contacts: tuple[Contact, ...] = ()
    constraint_results: tuple[ConstraintEvalResult, ...] = ()
    message: str = ''


class DistanceRequestType(enum.Enum):
    """What a distance query reports (MoveIt ``DistanceRequestType``)."""

    GLOBAL = 'global'
    '''Only the minimum over all pairs.'''
    SINGLE = 'single'
    '''The minimum of each pair of bodies.'''
    LIMITED = 'limited'
    '''Up to ``max_contacts_per_body`` results per pair of bodies (the smallest).'''
    ALL = 'all'
    '''Every geometry pair's result, per pair of bodies.'''


@dataclass(frozen=True)
class DistanceRequest:
    """A distance query (MoveIt ``collision_detection::DistanceRequest``).

    Distances are always signed and witness points always computed (MoveIt's
    ``enable_signed_distance`` and ``enable_nearest_points``; docs/decisions.md).

    Attributes:
        type: What to report.
        group_name: Restrict to pairs with a link the group moves (MoveIt ``enableGroup``);
            ``None``: the whole robot.
        acm: An ACM to use instead of the scene's (``None``: the scene's; MoveIt's ``nullptr``
            means no ACM, which is an empty :class:`AllowedCollisionMatrix` here).
        max_contacts_per_body: Results per pair of bodies for ``LIMITED``.
        distance_threshold: Report pairs closer than this [m].
    """

    type: DistanceRequestType = DistanceRequestType.GLOBAL
    group_name: str | None = None
    acm: AllowedCollisionMatrix | None = None
    max_contacts_per_body: int = 1
    distance_threshold: float = math.inf

    def __post_init__(self) -> None:
        if not isinstance(self.type, DistanceRequestType):
            raise InvalidArgumentError(f'DistanceRequest: type must be a DistanceRequestType, '
                                       f'got {self.type!r}')
        if int(self.max_contacts_per_body) < 1 or math.isnan(self.distance_threshold):
            raise InvalidArgumentError(
                f'DistanceRequest: max_contacts_per_body ({self.max_contacts_per_body}) must be '
                f'>= 1 and distance_threshold ({self.distance_threshold}) a number')


@dataclass(frozen=True)
class DistanceResultsData:
    """One distance result (MoveIt ``DistanceResultsData``).

    Attributes:
        distance: Signed distance [m] (negative: penetration depth); ``inf`` when empty.
        nearest_points: ``(2, 3)`` the closest (deepest) points on body 0 and body 1, model
            frame [m].
        link_names: The two bodies (link, attached-body or world-object names).
        body_types: Their :class:`BodyType`.
        normal: ``(3,)`` unit vector from body 0 towards body 1 (MoveIt: ``p1 - p0``
            normalised; for penetration the direction that separates body 1 from body 0).
    """

    distance: float = math.inf
    nearest_points: FloatArray = field(default_factory=lambda: np.zeros((2, 3)))
    link_names: tuple[str, str] = ('', '')
    body_types: tuple[BodyType, BodyType] = (BodyType.WORLD_OBJECT, BodyType.WORLD_OBJECT)
    normal: FloatArray = field(default_factory=lambda: np.zeros(3))


@dataclass(frozen=True)
class DistanceResult:
    """The answer of a distance query (MoveIt ``DistanceResult``).

    Attributes:
        collision: Some reported pair is at distance <= 0.
        minimum_distance: The smallest result (empty when no pair was within the threshold).
        distances: ``{(name_a, name_b): results}`` with ``name_a <= name_b``, sorted by
            distance (empty for ``GLOBAL``, as in MoveIt).
    """

    collision: bool
    minimum_distance: DistanceResultsData
    distances: Mapping[tuple[str, str], tuple[DistanceResultsData, ...]]


DEFAULT_SCENE_NAME = '(noname)'
'''A new scene's name (MoveIt's).'''


@dataclass(frozen=True)
class SceneChanges:
    """What a diff scene changed (:meth:`PlanningScene.changes`; MoveIt's diff bookkeeping).

    Attributes:
        world_changed: World objects added or modified (they are in the scene's world).
        world_removed: World objects removed (or moved onto the robot by an attach).
        robot_state: The current state (positions or attached bodies) changed.
        acm: The ACM was edited or replaced.
        link_padding_and_scale: Link padding or scale changed.
        object_colors: Ids whose colour was set or removed.
        object_types: Ids whose type was set or removed.
        name: The name changed.
        fixed_frames: Fixed frames were set.
    """

    world_changed: tuple[str, ...] = ()
    world_removed: tuple[str, ...] = ()
    robot_state: bool = False
    acm: bool = False
    link_padding_and_scale: bool = False
    object_colors: tuple[str, ...] = ()
    object_types: tuple[str, ...] = ()
    name: bool = False
    fixed_frames: bool = False

    def __bool__(self) -> bool:
        return any(dataclasses.astuple(self))


@dataclass(eq=False)
class _DiffRecord:
    """A diff scene's change record and the snapshot it compares against."""

    state: RobotState
    acm: AllowedCollisionMatrix
    acm_version: int
    name: str
    world: dict[str, bool] = field(default_factory=dict)  # id -> removed
    colors: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    padding: bool = False
    fixed_frames: bool = False

    @classmethod
    def start(cls, scene: PlanningScene) -> _DiffRecord:
        return cls(scene.current_state.copy(), scene.acm, scene.acm.version, scene.name)


# ---------------------------------------------------------------------------- compiled data


@dataclass(frozen=True, eq=False)
class _Layout:
    """The combined geometry list for one world version and one set of attached bodies."""

    world_version: int
    bodies: tuple[AttachedBody, ...]
    shapes: tuple[Shape, ...]  # robot, then attached, then world
    n_moving: int  # robot + attached geometries (posed from link poses)
    moving_link: IntArray  # (n_moving,) link index
    X_LS: FloatArray  # (n_moving, 4, 4) pose in the link frame
    X_WS_static: FloatArray  # (n_world, 4, 4)
    body_type: NDArray[np.int8]  # (G,) BodyType values
    body_name: tuple[str, ...]  # (G,) link / attached id / world id
    geometry_name: tuple[str, ...]  # (G,) 'link/i', 'body/k', 'object/k'
    body_index: IntArray  # (G,) unique per body
    ref_link: IntArray  # (G,) link index (robot, attached), -1 for world
    frame_key: IntArray  # (G,) the registry frame: link index, L + body index, -1 world
    attached_index: IntArray  # (G,) index into bodies, -1 otherwise
    touch: BoolArray  # (A, L) attached body may touch link (incl. its own link)
    enabled: BoolArray  # (G,) takes part in queries
    ids: Int64Array  # (G,) registry GeometryId of each geometry
    index_of: dict[int, int]  # GeometryId -> index


@dataclass(frozen=True, eq=False)
class _Pairs:
    """Candidate pairs of a layout under one ACM."""

    pairs: IntArray  # (P, 2), a < b
    is_world: BoolArray  # (P,) one side is a world object
    deciders: tuple[DecideContactFn | None, ...]  # (P,) CONDITIONAL decider or None
    # (self_collision, world_collision, group) -> selection; filled on demand (deterministic
    # values, so concurrent fills by several threads are harmless)
    selections: dict[tuple[bool, bool, str | None], _Selection] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class _Selection:
    unconditional: IntArray  # (P, 2)
    conditional: IntArray  # (Q, 2)
    deciders: tuple[DecideContactFn, ...]  # (Q,)

    @functools.cached_property
    def all(self) -> IntArray:
        """Unconditional then conditional pairs, one frozen array per selection.

        The backend recognises it by identity (no comparison per query).
        """
        if not len(self.conditional):
            return self.unconditional
        out: IntArray = np.concatenate([self.unconditional, self.conditional])
        out.setflags(write=False)
        return out


# ---------------------------------------------------------------------------- the scene


class PlanningScene:
    """Robot, world objects, attached bodies and the ACM, with collision queries (module doc)."""

    def __init__(self, model: RobotModel, *, broadphase: Broadphase = 'aabb',
                 padding: float | Mapping[str, float] = 0.0,
                 scale: float | Mapping[str, float] = 1.0,
                 mesh_mode: MeshMode | Mapping[str, MeshMode] = 'exact') -> None:
        """Create a scene with an empty world and the model's default state.

        Args:
            model: The robot model (its SRDF ``disable_collisions`` seed the ACM).
            broadphase: fcl broad phase: ``'aabb'`` (default: the compiled cull of the
                precompiled candidate pairs, world AABBs then the oriented boxes'
                separating-axis test, a verdict trying the deepest box overlap first; then the
                narrow phase), ``'pairs'`` (narrow phase on every candidate pair) or
                ``'manager'`` (fcl's dynamic AABB tree). Measured in
                ``benchmarks/bench_collision.py``: ``'aabb'`` was fastest in every case
                (7x-8x ``'pairs'`` for self collision on Panda and Talos, 85x-150x with 100
                world boxes; ``'manager'`` slower than ``'aabb'``). ``'pairs'`` is the path
                without the compiled cull and its ordering, with the same verdicts.
            padding: Padding of every robot link [m], or ``{link: padding}`` (see
                :mod:`robot_state_core.scene.robot_geometry` for what it means per shape).
                Attached bodies take their link's padding and scale; world objects are
                neither padded nor scaled (MoveIt). As in MoveIt's planning scene, the padded
                robot is checked against the world and the unpadded robot against itself.
            scale: Scale of every robot link, or ``{link: scale}`` (MoveIt link scale).
            mesh_mode: ``'exact'`` (default, triangle meshes) or ``'convex'`` (hulls), or a
                ``{link: mode}`` mapping.

        Raises:
            InvalidArgumentError: Invalid model, broad phase, padding or mesh mode.
        """
        if not isinstance(model, RobotModel):
            raise InvalidArgumentError(f'PlanningScene: model must be a RobotModel, got '
                                       f'{type(model).__name__}')
        self._lock = threading.RLock()
        self._model = model
        self._broadphase = self._check_broadphase(broadphase)
        self._geometry = RobotGeometry(model, padding=padding, scale=scale, mesh_mode=mesh_mode)
        self._shadow: PlanningScene | None = None  # the unpadded robot, for self collision
        self._state = RobotState(model)
        self._acm = AllowedCollisionMatrix()
        for a, b, reason in model.disabled_collision_pairs:
            self._acm.add_allowed_collision(a, b, reason)
        self._world: dict[str, WorldObject] = {}
        self._world_version = 0
        self._colors: dict[str, tuple[float, float, float, float]] = {}
        self._types: dict[str, ObjectType] = {}
        self._name = DEFAULT_SCENE_NAME
        self._fixed_frames: dict[str, FloatArray] = {}
        self._parent: PlanningScene | None = None
        self._record: _DiffRecord | None = None
        self._edits = 0
        self._acm_seen: tuple[AllowedCollisionMatrix, int] = (self._acm, self._acm.version)
        self._group_links: dict[str, BoolArray] = {}
        # The geometry store: one registry with the sources 'robot' and 'world'.
        # A copy of the robot's own registry (RobotGeometry.register, same ids), plus 'world'.
        sg = self._geometry.scene_graph._clone()
        self._bind_registry(sg, dataclasses.replace(self._geometry.registration, scene_graph=sg),
                            sg.register_source('world'))
        self._sg_shared = False  # True while a copy may hold the same registry object
        self._sg_handed_out = False  # scene_graph returned it: callers may hold and edit it
        self._world_ids: dict[str, tuple[GeometryId, ...]] = {}
        # (body, its registry frame, its geometries), in the queried state's order
        self._attached_ids: tuple[tuple[AttachedBody, FrameId, tuple[GeometryId, ...]], ...] = ()
        # per link: frames of detached bodies, reused by the next body attached there (the
        # registry cannot remove frames; the pool stays as large as the most bodies once
        # attached to that link together)
        self._free_body_frames: dict[int, list[FrameId]] = {}
        self._reset_caches()

    def _bind_registry(self, sg: SceneGraph, robot: RobotGeometryRegistration,
                       world_source: SourceId) -> None:
        self._sg = sg
        self._robot = robot
        self._world_source = world_source
        self._inspector: SceneGraphInspector = sg.model_inspector()

    def _own_registry(self) -> None:
        """Copy-on-write: before the first edit after :meth:`copy`, take a private registry.

        A registry shared between a scene and its copies is never edited; each one that edits
        first takes its own copy (same ids, versions and filters, so compiled arrays stay
        valid).
        """
        if self._sg_shared:
            sg = self._sg._clone()
            self._bind_registry(sg, dataclasses.replace(self._robot, scene_graph=sg),
                                self._world_source)
            self._sg_shared = False

    def _reset_caches(self) -> None:
        self._layout: _Layout | None = None
        # per thread: (layout, its posed fcl objects); queries of several threads never share
        # the fcl objects they pose
        self._tls = threading.local()
        self._pairs: _Pairs | None = None
        self._pairs_key: tuple[_Layout, AllowedCollisionMatrix, int, int] | None = None
        self._filter_key: tuple[_Layout, AllowedCollisionMatrix, int] | None = None
        self._custom: dict[int, tuple[AllowedCollisionMatrix, tuple[object, ...], _Pairs]] = {}

    @staticmethod
    def _check_broadphase(value: str) -> Broadphase:
        return check_broadphase(value, 'PlanningScene')

    # ------------------------------------------------------------------ properties

    @property
    def model(self) -> RobotModel:
        """The robot model."""
        return self._model

    @property
    def geometry(self) -> RobotGeometry:
        """The robot's (padded) geometry, shared by copies."""
        return self._geometry

    def get_link_padding(self) -> dict[str, float]:
        """``{link: padding [m]}`` of every link with collision geometry (``getLinkPadding``)."""
        geo = self._geometry
        return {n: geo.padding_of(n) for n, has in zip(self._model.link_names,
                                                        geo.link_has_geometry, strict=True) if has}

    def get_link_scale(self) -> dict[str, float]:
        """``{link: scale}`` of every link with collision geometry (MoveIt ``getLinkScale``)."""
        geo = self._geometry
        return {n: geo.scale_of(n) for n, has in zip(self._model.link_names,
                                                      geo.link_has_geometry, strict=True) if has}

    @_locked
    def set_link_padding(self, padding: Mapping[str, float]) -> None:
        """Set the padding [m] of the given links; the others keep theirs (``setLinkPadding``).

        The robot geometry is rebuilt (same registry ids and filters).

        Raises:
            UnknownNameError: An unknown link.
            InvalidArgumentError: A negative or non-finite padding.
        """
        self._set_link_factors(padding, None)

    @_locked
    def set_link_scale(self, scale: Mapping[str, float]) -> None:
        """Set the scale of the given links; the others keep theirs (MoveIt ``setLinkScale``).

        Raises:
            UnknownNameError: An unknown link.
            InvalidArgumentError: A non-positive or non-finite scale.
        """
        self._set_link_factors(None, scale)

    @_locked
    def set_padding(self, padding: float) -> None:
        """Set the padding [m] of every link (MoveIt ``setPadding``)."""
        self._set_link_factors(dict.fromkeys(self._model.link_names, padding), None)

    @_locked
    def set_scale(self, scale: float) -> None:
        """Set the scale of every link (MoveIt ``setScale``)."""
        self._set_link_factors(None, dict.fromkeys(self._model.link_names, scale))

    def _set_link_factors(self, padding: Mapping[str, float] | None,
                          scale: Mapping[str, float] | None) -> None:
        geo, names = self._geometry, self._model.link_names
        pad = {n: geo.padding_of(n) for n in names}
        sc = {n: geo.scale_of(n) for n in names}
        for given, into in ((padding, pad), (scale, sc)):
            for link, value in (given or {}).items():
                self._model.link_index(link)  # UnknownNameError
                into[link] = value
        if pad == {n: geo.padding_of(n) for n in names} and \
                sc == {n: geo.scale_of(n) for n in names}:
            return
        new = RobotGeometry(self._model, padding=pad, scale=sc,
                            mesh_mode={n: geo.mesh_mode_of(n) for n in names})
        if new.names != geo.names:  # (the same elements are read: a guard, never expected)
            raise RobotStateCoreError('PlanningScene: the rebuilt robot geometry differs')
        self._own_registry()
        source = self._robot.source_id
        for gid, shape, X_LG in zip(self._robot.proximity_ids, new.shapes, new.X_LG,
                                    strict=True):
            self._sg.change_shape(source, gid, shape, X_LG)
        self._geometry = new
        self._layout = None
        if self._record is not None:
            self._record.padding = True
        self._changed()

    @property
    def broadphase(self) -> Broadphase:
        """The fcl broad phase of the queries."""
        return self._broadphase

    @property
    def current_state(self) -> RobotState:
        """The scene's current state (mutable; attached bodies live here)."""
        return self._state

    @property
    def acm(self) -> AllowedCollisionMatrix:
        """The allowed collision matrix (editable; recompiled lazily when its version changes)."""
        return self._acm

    @acm.setter
    @_locked
    def acm(self, value: AllowedCollisionMatrix) -> None:
        if not isinstance(value, AllowedCollisionMatrix):
            raise InvalidArgumentError(f'PlanningScene.acm: expected an AllowedCollisionMatrix, '
                                       f'got {type(value).__name__}')
        self._acm = value

    @property
    def world(self) -> Mapping[str, WorldObject]:
        """Read-only live mapping ``{object id: WorldObject}``."""
        return MappingProxyType(self._world)

    @property
    @_locked
    def version(self) -> int:
        """Increases with every change of the world, the attached bodies or the ACM."""
        seen = (self._acm, self._acm.version)
        if seen[0] is not self._acm_seen[0] or seen[1] != self._acm_seen[1]:
            self._acm_seen = seen
            self._edits += 1
        return self._edits

    def _changed(self, world: bool = False) -> None:
        self.version  # noqa: B018 - fold pending ACM edits in first
        self._edits += 1
        if world:
            self._world_version += 1

    @_locked
    def copy(self) -> PlanningScene:
        """An independent snapshot, safe to use from another thread.

        The copy has its own current state, ACM, world mapping, registry (copy-on-write: the
        two share the registry until one of them edits it, which then takes a copy with the
        same ids, versions and filters) and fcl objects; the immutable robot geometry, world
        objects, attached bodies, meshes and compiled index arrays are shared.
        """
        other = PlanningScene.__new__(PlanningScene)
        other._lock = threading.RLock()
        other._model = self._model
        other._broadphase = self._broadphase
        other._geometry = self._geometry
        other._shadow = None
        other._state = self._state.copy()
        other._acm = self._acm.copy()
        other._world = dict(self._world)
        other._colors = dict(self._colors)
        other._types = dict(self._types)
        other._name = self._name
        other._fixed_frames = dict(self._fixed_frames)
        other._parent = None
        other._record = None
        other._world_version = self._world_version
        other._edits = self.version
        other._acm_seen = (other._acm, other._acm.version)
        other._group_links = dict(self._group_links)
        other._sg_handed_out = False
        if self._sg_handed_out:  # others may edit this one: the copy takes its own now
            sg = self._sg._clone()
            other._bind_registry(sg, dataclasses.replace(self._robot, scene_graph=sg),
                                 self._world_source)
            other._sg_shared = False
        else:  # shared until one of the two edits it (copy-on-write, _own_registry)
            other._bind_registry(self._sg, self._robot, self._world_source)
            other._sg_shared = self._sg_shared = True
        other._world_ids = dict(self._world_ids)
        other._attached_ids = self._attached_ids
        other._free_body_frames = {k: list(v) for k, v in self._free_body_frames.items()}
        other._reset_caches()
        layout = other._layout = self._layout
        if layout is not None and self._pairs is not None and self._pairs_current(layout):
            assert self._pairs_key is not None and self._filter_key is not None
            other._pairs = self._pairs
            other._pairs_key = (layout, other._acm, other._acm.version, self._pairs_key[3])
            other._filter_key = (layout, other._acm, other._acm.version)
        return other

    def locked(self) -> contextlib.AbstractContextManager[bool]:
        """The scene's lock, to read several of its parts as one snapshot (re-entrant)."""
        return self._lock

    # ------------------------------------------------------------------ diff scenes

    @_locked
    def diff(self) -> PlanningScene:
        """A child scene that records what changes in it (MoveIt ``PlanningScene::diff``).

        The child starts as a snapshot of this scene (:meth:`copy`; MoveIt's child inherits
        its parent's state and ACM live until it changes them, docs/decisions.md) and records
        every change: :meth:`changes` lists them, :meth:`push_diffs` applies them to this
        scene, :meth:`clear_diffs` forgets them, :meth:`decouple_parent` makes the child a
        plain scene.
        """
        child = self.copy()
        child._parent = self
        child._record = _DiffRecord.start(child)
        return child

    @property
    def parent(self) -> PlanningScene | None:
        """The scene this one is a diff of (:meth:`diff`), or ``None``."""
        return self._parent

    @_locked
    def changes(self) -> SceneChanges:
        """What changed since :meth:`diff` (or :meth:`clear_diffs`); nothing for a plain scene."""
        record = self._record
        if record is None:
            return SceneChanges()
        state = self._state
        bodies = state.get_attached_bodies()
        state_changed = not np.array_equal(state.positions, record.state.positions) or \
            tuple(bodies) != tuple(record.state.get_attached_bodies())
        return SceneChanges(
            tuple(k for k, v in record.world.items() if not v),
            tuple(k for k, v in record.world.items() if v),
            state_changed,
            self._acm is not record.acm or self._acm.version != record.acm_version,
            record.padding, tuple(sorted(record.colors)), tuple(sorted(record.types)),
            self._name != record.name, record.fixed_frames)

    def push_diffs(self) -> None:
        """Apply this child's changes to its parent (MoveIt ``pushDiffs``).

        World objects changed here replace the parent's, removed ones are removed there (with
        their ACM entries, colours and types); a changed state, ACM, padding/scale, name or
        fixed frames replace the parent's; changed colours and types are copied. The record
        is kept (:meth:`clear_diffs` forgets it).

        Raises:
            InvalidArgumentError: This scene is not a diff (no parent).
        """
        parent = self._parent
        if parent is None:
            raise InvalidArgumentError('PlanningScene.push_diffs: this scene has no parent '
                                       '(it was not made by diff())')
        with self._lock, parent._lock:
            changes = self.changes()
            for oid in changes.world_removed:
                if oid in parent._world:
                    parent._remove_world(oid)
                    parent._changed(world=True)
            for oid in changes.world_changed:
                parent._put_world(self._world[oid])
            for oid in changes.object_colors:
                color = self._colors.get(oid)
                if color is None:
                    parent.remove_object_color(oid)
                else:
                    parent.set_object_color(oid, color)
            for oid in changes.object_types:
                kind = self._types.get(oid)
                if kind is None:
                    parent.remove_object_type(oid)
                else:
                    parent.set_object_type(oid, kind)
            if changes.robot_state:
                parent._state.copy_from(self._state)
                parent._changed()
            if changes.acm:
                parent.acm = self._acm.copy()
            if changes.link_padding_and_scale:
                parent._set_link_factors(self.get_link_padding(), self.get_link_scale())
            if changes.name:
                parent.name = self._name
            if changes.fixed_frames:
                parent.set_fixed_frames(self._fixed_frames)

    @_locked
    def clear_diffs(self) -> None:
        """Forget this child's changes: a fresh snapshot of its parent (``clearDiffs``)."""
        parent = self._parent
        if parent is None:
            return
        fresh = parent.copy()
        lock = self._lock
        self.__dict__.update(fresh.__dict__)
        self._lock = lock
        self._parent = parent
        self._record = _DiffRecord.start(self)

    @_locked
    def decouple_parent(self) -> None:
        """Keep the content, forget the parent and the change record (``decoupleParent``)."""
        self._parent = None
        self._record = None

    def _record_world(self, object_id: str, *, removed: bool) -> None:
        if self._record is not None:
            self._record.world[object_id] = removed

    def _record_id(self, table: str, object_id: str) -> None:
        if self._record is not None:
            getattr(self._record, table).add(object_id)

    # ------------------------------------------------------------------ name and frames

    @property
    def name(self) -> str:
        """The scene's name (MoveIt ``getName``; ``'(noname)'`` by default)."""
        return self._name

    @name.setter
    @_locked
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise InvalidArgumentError(f'PlanningScene.name must be a str, got {value!r}')
        self._name = value

    @property
    def fixed_frames(self) -> Mapping[str, FloatArray]:
        """``{frame: X_WF}``: the extra fixed frames (MoveIt scene transforms; no model frame)."""
        return MappingProxyType(self._fixed_frames)

    @_locked
    def set_fixed_frames(self, frames: Mapping[str, ArrayLike]) -> None:
        """Add or replace fixed frames ``{name: X_WF}`` (MoveIt ``Transforms::setTransforms``).

        Frames not given are kept. The model frame is always the identity and is skipped.

        Raises:
            InvalidArgumentError: An empty name or a malformed pose (nothing is set).
        """
        new = {}
        for frame, X in frames.items():
            if not isinstance(frame, str) or not frame.lstrip('/'):
                raise InvalidArgumentError(f'PlanningScene.set_fixed_frames: frame names are '
                                           f'non-empty str, got {frame!r}')
            name = frame.lstrip('/')
            if name != self._model.model_frame:
                new[name] = _pose(X, f'PlanningScene.set_fixed_frames: frame {frame!r}')
        if new:
            self._fixed_frames.update(new)
            if self._record is not None:
                self._record.fixed_frames = True
            self._changed()

    def knows_frame_transform(self, name: str, state: RobotState | None = None) -> bool:
        """Whether :meth:`get_frame_transform` knows ``name`` (``knowsFrameTransform``)."""
        return self._frame(name, state) is not None

    def get_frame_transform(self, name: str, state: RobotState | None = None) -> FloatArray:
        """``X_WF`` of a frame the scene knows (MoveIt ``getFrameTransform``).

        Known frames: the model frame; the links, attached bodies and their subframes
        (``'<body>/<subframe>'``) of ``state`` (default: the current state); world objects
        and their subframes (``'<object>/<subframe>'``); the fixed frames. A leading ``/`` is
        ignored.

        Raises:
            UnknownNameError: An unknown frame (MoveIt returns the identity).
        """
        found = self._frame(name, state)
        if found is None:
            raise UnknownNameError(name, 'frame', [self._model.model_frame, *self._world,
                                                   *self._fixed_frames])
        return found

    def _frame(self, name: str, state: RobotState | None) -> FloatArray | None:
        if not isinstance(name, str):
            return None
        frame = name.lstrip('/')
        if frame == self._model.model_frame:
            return np.eye(4)
        state = self._state if state is None else state
        if state.knows_frame_transform(frame):
            return np.array(state.get_frame_transform(frame))
        obj = self._world.get(frame)
        if obj is not None:
            return np.array(obj.X_WO)
        head, _, sub = frame.partition('/')
        obj = self._world.get(head)
        if obj is not None and sub:
            return obj.subframe_world_pose(sub)
        X = self._fixed_frames.get(frame)
        return None if X is None else np.array(X)

    # ------------------------------------------------------------------ world objects

    @_locked
    def apply_world_object(self, op: CollisionObjectOperation | int, object_id: str,
                           X_WO: ArrayLike | None = None,
                           shapes: Iterable[tuple[Shape, ArrayLike]] = (),
                           subframes: Mapping[str, ArrayLike] | None = None, *,
                           shape_poses: Sequence[ArrayLike] | None = None) -> None:
        """Apply a ``CollisionObject`` operation to the world (MoveIt semantics).

        MoveIt's ``processCollisionObjectMsg`` on core values.

        * ADD: create the object; an existing object of that id is replaced. Needs shapes.
          ``X_WO`` defaults to the identity.
        * APPEND: add shapes to the object, creating it when absent. Needs shapes. On an
          existing object ``X_WO`` is ignored and the new shapes' poses are taken in the
          object's current frame (MoveIt ``World::addToObject``); the subframes are replaced
          by ``subframes`` (none given: cleared), as MoveIt's ``setSubframesOfObject``.
        * MOVE: set the object pose, keeping shapes and subframes (``shapes`` are ignored, as
          in MoveIt, which warns). ``shape_poses``, when given and non-empty, are the new
          poses of all the object's shapes in the object frame (their count must match).
        * REMOVE: remove the object, its ACM pair entries, colour and type (MoveIt: objects
          removed from the world leave no ACM entries behind, moveit2 #3183); an empty
          ``object_id`` removes every world object.

        Nothing changes when the call raises.

        Args:
            op: The operation.
            object_id: The object id.
            X_WO: ``(4, 4)`` object pose in the model frame.
            shapes: ``(shape, X_OS)`` pairs, poses in the object frame.
            subframes: ``{name: X_OF}``.
            shape_poses: MOVE only: ``X_OS`` of every shape of the object.

        Raises:
            UnknownNameError: MOVE or REMOVE of an unknown id.
            InvalidArgumentError: Unknown operation, ADD or APPEND without shapes, MOVE without
                a pose or with a wrong number of shape poses, malformed poses or shapes, an
                empty id for ADD/APPEND/MOVE.
        """
        try:
            operation = CollisionObjectOperation(op)
        except ValueError as err:
            raise InvalidArgumentError(f'PlanningScene.apply_world_object: unknown operation '
                                       f'{op!r}') from err
        if not isinstance(object_id, str):
            raise InvalidArgumentError(f'PlanningScene.apply_world_object: object_id must be a '
                                       f'str, got {object_id!r}')
        where = f'PlanningScene.apply_world_object({operation.name}, {object_id!r})'
        if operation is CollisionObjectOperation.REMOVE:
            if not object_id:
                self.remove_all_world_objects()
                return
            if object_id not in self._world:
                raise UnknownNameError(object_id, 'world object', self._world)
            self._remove_world(object_id)
            self._changed(world=True)
            return
        if not object_id:
            raise InvalidArgumentError(f'{where}: the object id must not be empty')
        shape_list = _shape_pairs(shapes, where)
        old = self._world.get(object_id)
        if operation is CollisionObjectOperation.MOVE:
            if old is None:
                raise UnknownNameError(object_id, 'world object', self._world)
            if X_WO is None:
                raise InvalidArgumentError(f'{where}: MOVE needs a pose')
            if shape_list:
                _LOG.debug(f'{where}: MOVE ignores the {len(shape_list)} shape(s) given')
            moved = old.shapes
            if shape_poses is not None and len(shape_poses):
                if len(shape_poses) != len(old.shapes):
                    raise InvalidArgumentError(
                        f"{where}: {len(shape_poses)} shape poses for the object's "
                        f'{len(old.shapes)} shapes')
                moved = tuple((shape, _pose(X, f'{where}: shape pose {k}'))
                              for k, ((shape, _), X) in enumerate(zip(old.shapes, shape_poses,
                                                                       strict=True)))
            self._put_world(WorldObject(object_id, np.asarray(X_WO, dtype=np.float64), moved,
                                        old.subframes), same_shapes=True)
            return
        if not shape_list:
            raise InvalidArgumentError(f'{where}: no shapes given')
        _check_meshes([sh for sh, _ in shape_list], where)
        if operation is CollisionObjectOperation.ADD or old is None:
            new = WorldObject(object_id, np.eye(4) if X_WO is None else
                              np.asarray(X_WO, dtype=np.float64), shape_list,
                              _pose_map(subframes, where))
        else:  # APPEND to an existing object: its pose stays, its subframes are replaced
            new = WorldObject(object_id, old.X_WO, (*old.shapes, *shape_list),
                              _pose_map(subframes, where))
        self._put_world(new)

    @_locked
    def remove_all_world_objects(self) -> None:
        """Remove every world object with its ACM pair entries, colour and type.

        MoveIt ``removeAllCollisionObjects``.
        """
        if not self._world:
            return
        self._clear_scene_filter()  # one purge here instead of one per geometry
        for oid in list(self._world):
            self._remove_world(oid)
        self._changed(world=True)

    @_locked
    def set_object_pose(self, object_id: str, X_WO: ArrayLike) -> None:
        """Set a world object's pose; an absent object is created without shapes.

        MoveIt ``World::setObjectPose``. Shapes and subframes keep their poses in the object
        frame.

        Raises:
            InvalidArgumentError: Empty id or malformed pose.
        """
        if not isinstance(object_id, str) or not object_id:
            raise InvalidArgumentError(f'PlanningScene.set_object_pose: object_id must be a '
                                       f'non-empty str, got {object_id!r}')
        old = self._world.get(object_id)
        X = np.asarray(X_WO, dtype=np.float64)
        if old is None:
            self._put_world(WorldObject(object_id, X))
        else:
            self._put_world(WorldObject(object_id, X, old.shapes, old.subframes),
                            same_shapes=True)

    @_locked
    def move_object(self, object_id: str, X_W: ArrayLike) -> None:
        """Move a world object by ``X_W``, relative: ``X_WO <- X_W @ X_WO``.

        MoveIt ``World::moveObject`` (``X_W`` is applied in the model frame).

        Raises:
            UnknownNameError: No such world object.
            InvalidArgumentError: Malformed pose.
        """
        old = self._world_object(object_id)
        X = _pose(X_W, f'PlanningScene.move_object({object_id!r})')
        self._put_world(WorldObject(object_id, X @ old.X_WO, old.shapes, old.subframes),
                        same_shapes=True)

    @_locked
    def move_shape_in_object(self, object_id: str, index: int, X_OS: ArrayLike) -> None:
        """Set the pose ``X_OS`` of shape ``index`` of a world object, in the object frame.

        MoveIt ``World::moveShapeInObject`` (which finds the shape by pointer; ours by index).

        Raises:
            UnknownNameError: No such world object.
            InvalidArgumentError: ``index`` out of range, malformed pose.
        """
        old = self._world_object(object_id)
        k = self._shape_index(old, index, 'move_shape_in_object')
        X = _pose(X_OS, f'PlanningScene.move_shape_in_object({object_id!r}, {index})')
        shapes = list(old.shapes)
        shapes[k] = (shapes[k][0], X)
        self._put_world(WorldObject(object_id, old.X_WO, tuple(shapes), old.subframes),
                        same_shapes=True)

    @_locked
    def remove_shape_from_object(self, object_id: str, index: int) -> None:
        """Remove shape ``index`` of a world object (MoveIt ``World::removeShapeFromObject``).

        Removing the last shape removes the object, with its ACM entries, colour and type.

        Raises:
            UnknownNameError: No such world object.
            InvalidArgumentError: ``index`` out of range.
        """
        old = self._world_object(object_id)
        k = self._shape_index(old, index, 'remove_shape_from_object')
        shapes = old.shapes[:k] + old.shapes[k + 1:]
        if not shapes:
            self._remove_world(object_id)
            self._changed(world=True)
            return
        self._put_world(WorldObject(object_id, old.X_WO, shapes, old.subframes))

    @_locked
    def set_subframes_of_object(self, object_id: str,
                                subframes: Mapping[str, ArrayLike]) -> None:
        """Replace a world object's subframes ``{name: X_OF}`` (``setSubframesOfObject``).

        Raises:
            UnknownNameError: No such world object.
            InvalidArgumentError: A malformed pose.
        """
        old = self._world_object(object_id)
        where = f'PlanningScene.set_subframes_of_object({object_id!r})'
        self._put_world(WorldObject(object_id, old.X_WO, old.shapes,
                                    _pose_map(subframes, where)), same_shapes=True)

    def _world_object(self, object_id: str) -> WorldObject:
        obj = self._world.get(object_id)
        if obj is None:
            raise UnknownNameError(object_id, 'world object', self._world)
        return obj

    @staticmethod
    def _shape_index(obj: WorldObject, index: int, method: str) -> int:
        if not isinstance(index, int | np.integer) or not 0 <= int(index) < len(obj.shapes):
            raise InvalidArgumentError(f'PlanningScene.{method}({obj.id!r}): shape index '
                                       f'{index!r} is not in [0, {len(obj.shapes)})')
        return int(index)

    def _put_world(self, obj: WorldObject, *, same_shapes: bool = False) -> None:
        """Store ``obj`` (new or replacing one of its id) and its geometry in the registry.

        ``same_shapes``: ``obj`` has the shapes of the object it replaces (moved, or new
        subframes): the registered geometries are re-posed, keeping their ids and filters.
        """
        if same_shapes and obj.id in self._world_ids:
            self._world[obj.id] = obj
            self._move_world(obj)
        else:
            self._world[obj.id] = obj
            self._register_world(obj)
        self._record_world(obj.id, removed=False)
        self._changed(world=True)

    def _remove_world(self, object_id: str) -> None:
        """Drop a world object, its geometry, its ACM pair entries, colour and type."""
        del self._world[object_id]
        self._unregister_world(object_id)
        self._acm.remove_allowed_collision(object_id)
        for table, changed in ((self._colors, 'colors'), (self._types, 'types')):
            if table.pop(object_id, None) is not None and self._record is not None:
                getattr(self._record, changed).add(object_id)
        self._record_world(object_id, removed=True)

    # ------------------------------------------------------------------ .scene text

    @_locked
    def load_geometry_text(self, text: str, offset: ArrayLike | None = None) -> SceneText:
        """Add the objects of a ``.scene`` text to the world (MoveIt ``loadGeometryFromStream``).

        Either format (:mod:`robot_state_core.scene.scene_file`). As in MoveIt the scene takes
        the text's name; each object's pose is set (``offset @ X_WO``; an absent object is
        created), its shapes are appended, its colour set when not all zero, and (new format)
        its subframes replaced. The whole text is parsed first: a malformed text raises and
        leaves the scene unchanged.

        Args:
            text: The ``.scene`` text.
            offset: ``(4, 4)`` pose applied to every object pose (MoveIt's ``offset``).

        Returns:
            The parsed text.

        Raises:
            SceneFileError: A malformed text; the message names the line.
            InvalidArgumentError: A malformed ``offset``.
        """
        parsed = parse_scene_text(text)
        X_off = np.eye(4) if offset is None else _pose(offset, 'load_geometry_text: offset')
        staged: dict[str, WorldObject] = {}
        for obj in parsed.objects:
            old = staged.get(obj.id) or self._world.get(obj.id)
            X_WO = X_off @ obj.X_WO
            shapes = (*(old.shapes if old is not None else ()), *obj.shapes)
            subframes = dict(old.subframes) if old is not None and parsed.old_format else {}
            subframes.update(obj.subframes)
            staged[obj.id] = WorldObject(obj.id, X_WO, shapes, subframes)
        for obj in parsed.objects:
            if obj.color is not None:
                _rgba(obj.color, f'load_geometry_text: object {obj.id!r}')
        for new in staged.values():
            self._put_world(new)
        for obj in parsed.objects:
            if obj.color is not None:
                self.set_object_color(obj.id, obj.color)
        self.name = parsed.name
        return parsed

    def save_geometry_text(self) -> str:
        """The world objects as a ``.scene`` text, new format (MoveIt ``saveGeometryToStream``).

        Objects in id order, each with its colour (``0 0 0 0`` without one).

        Raises:
            SceneFileError: A shape the format cannot hold (ellipsoid, capsule, half-space,
                convex hull); nothing is returned.
        """
        with self._lock:
            objects = [SceneTextObject(o.id, o.X_WO, o.shapes, self._colors.get(o.id),
                                       dict(o.subframes))
                       for _, o in sorted(self._world.items())]
            name = self._name
        return format_scene_text(name, objects)

    # ------------------------------------------------------------------ colours and types

    @_locked
    def set_object_color(self, object_id: str, rgba: ArrayLike) -> None:
        """Set the display colour of an object id (MoveIt ``setObjectColor``).

        World or attached: colours are kept by id through attach and detach.

        Raises:
            InvalidArgumentError: Empty id, or ``rgba`` not 4 finite numbers.
        """
        if not isinstance(object_id, str) or not object_id:
            raise InvalidArgumentError(f'PlanningScene.set_object_color: object_id must be a '
                                       f'non-empty str, got {object_id!r}')
        self._colors[object_id] = _rgba(rgba, f'PlanningScene.set_object_color({object_id!r})')
        self._record_id('colors', object_id)
        self._changed()

    def get_object_color(self, object_id: str) -> tuple[float, float, float, float] | None:
        """The colour of ``object_id`` as ``(r, g, b, a)``, or ``None``."""
        return self._colors.get(object_id)

    def has_object_color(self, object_id: str) -> bool:
        """Whether ``object_id`` has a colour."""
        return object_id in self._colors

    @_locked
    def remove_object_color(self, object_id: str) -> bool:
        """Forget the colour of ``object_id``; returns whether it had one."""
        if self._colors.pop(object_id, None) is None:
            return False
        self._record_id('colors', object_id)
        self._changed()
        return True

    @property
    def object_colors(self) -> Mapping[str, tuple[float, float, float, float]]:
        """Read-only live mapping ``{object id: (r, g, b, a)}``."""
        return MappingProxyType(self._colors)

    @_locked
    def set_object_type(self, object_id: str, object_type: ObjectType) -> None:
        """Set the recognised type of an object id (MoveIt ``setObjectType``).

        ``object_recognition_msgs/ObjectType``; kept through attach and detach.

        Raises:
            InvalidArgumentError: Empty id or not an :class:`ObjectType`.
        """
        if not isinstance(object_id, str) or not object_id or \
                not isinstance(object_type, ObjectType):
            raise InvalidArgumentError(f'PlanningScene.set_object_type: needs a non-empty id '
                                       f'and an ObjectType, got {object_id!r}, {object_type!r}')
        self._types[object_id] = object_type
        self._record_id('types', object_id)
        self._changed()

    def get_object_type(self, object_id: str) -> ObjectType | None:
        """The type of ``object_id``, or ``None``."""
        return self._types.get(object_id)

    def has_object_type(self, object_id: str) -> bool:
        """Whether ``object_id`` has a type."""
        return object_id in self._types

    @_locked
    def remove_object_type(self, object_id: str) -> bool:
        """Forget the type of ``object_id``; returns whether it had one."""
        if self._types.pop(object_id, None) is None:
            return False
        self._record_id('types', object_id)
        self._changed()
        return True

    @property
    def object_types(self) -> Mapping[str, ObjectType]:
        """Read-only live mapping ``{object id: ObjectType}``."""
        return MappingProxyType(self._types)

    # ------------------------------------------------------------------ attached objects

    @_locked
    def attach_object(self, link: str, object_id: str, X_WO: ArrayLike | None = None,
                      shapes: Iterable[tuple[Shape, ArrayLike]] = (),
                      subframes: Mapping[str, ArrayLike] | None = None,
                      touch_links: Iterable[str] = ()) -> AttachedBody:
        """Attach an object to a link of the current state (MoveIt ``AttachedCollisionObject``).

        Without shapes, the world object ``object_id`` is moved from the world onto the link,
        keeping its world pose at the current state (or, if it is already attached, it is
        re-attached to ``link`` keeping its world pose). With shapes, a new body is attached:
        ``X_WO`` is its pose in the model frame at the current state (default: the link frame),
        ``shapes`` are ``(shape, X_OS)``; a world object of the same id is removed (MoveIt).
        Poses are converted to the link frame. As in MoveIt, ``link`` is a touch link only when
        listed: a body is checked against the link it is attached to unless it may touch it.

        Args:
            link: The link to attach to.
            object_id: The body id.
            X_WO: ``(4, 4)`` object pose in the model frame (with shapes only).
            shapes: ``(shape, X_OS)`` pairs.
            subframes: ``{name: X_OF}``; without shapes they are added to (or replace same-named)
                subframes of the existing object.
            touch_links: Links the body may touch.

        Returns:
            The attached body.

        Raises:
            UnknownNameError: Unknown link or touch link; no shapes and no such world object or
                attached body.
            InvalidArgumentError: Malformed poses or shapes, empty id.
        """
        li = self._model.link_index(link)
        if not isinstance(object_id, str) or not object_id:
            raise InvalidArgumentError(f'PlanningScene.attach_object: object_id must be a '
                                       f'non-empty str, got {object_id!r}')
        touch = set(touch_links)
        for t in touch:
            self._model.link_index(t)
        state = self._state
        X_WL = state.get_global_link_transform(li)
        X_LW = rigid_inverse(X_WL)
        shape_list = [(s, _pose(X, 'PlanningScene.attach_object: shape pose'))
                      for s, X in _shape_pairs(shapes, 'PlanningScene.attach_object')]
        _check_meshes([sh for sh, _ in shape_list], 'PlanningScene.attach_object')
        from_world = not shape_list and object_id in self._world
        if shape_list:
            X_WB = np.array(X_WL) if X_WO is None else _pose(
                X_WO, 'PlanningScene.attach_object: X_WO')
            sub = dict(subframes or {})
        elif from_world:
            obj = self._world[object_id]
            X_WB = np.array(obj.X_WO)
            shape_list = list(obj.shapes)
            sub = {**obj.subframes, **(subframes or {})}
        else:
            body = state.get_attached_body(object_id)
            if body is None:
                raise UnknownNameError(object_id, 'world object or attached body', self._world)
            X_WB = state.get_global_link_transform(body.link) @ body.pose
            shape_list = list(zip(body.shapes, body.shape_poses, strict=True))
            sub = {**body.subframes, **(subframes or {})}
        new = AttachedBody.create(object_id, link, [s for s, _ in shape_list],
                                  _stack([X for _, X in shape_list]), X_LW @ X_WB, touch, None,
                                  sub)
        if object_id in self._world:  # moved onto the robot, or replaced by the new body
            del self._world[object_id]
            self._unregister_world(object_id)
            self._world_version += 1
            self._record_world(object_id, removed=True)
        attached = state.attach_body(new)
        self._changed()
        return attached

    @_locked
    def detach_object(self, object_id: str) -> WorldObject:
        """Detach a body from the current state and put it back into the world.

        The world object keeps the body's current world pose, shapes and subframes.

        Returns:
            The new world object.

        Raises:
            UnknownNameError: No body ``object_id`` is attached.
        """
        state = self._state
        body = state.get_attached_body(object_id)
        if body is None:
            raise UnknownNameError(object_id, 'attached object',
                                   [b.name for b in state.get_attached_bodies()])
        X_WB = state.get_global_link_transform(body.link) @ body.pose
        obj = WorldObject(object_id, X_WB, tuple(zip(body.shapes, body.shape_poses,
                                                     strict=True)), body.subframes)
        state.clear_attached_body(object_id)
        self._put_world(obj)
        return obj

    # ------------------------------------------------------------------ meshes

    def mesh_shape(self, vertices: ArrayLike, faces: ArrayLike) -> Mesh:
        """A collidable shape for a triangle mesh given by arrays (``shape_msgs/Mesh``).

        :func:`~robot_state_core.geometry.shapes.mesh.from_arrays`.
        """
        return mesh_from_arrays(vertices, faces, 'PlanningScene.mesh_shape')

    # ------------------------------------------------------------------ the registry

    @property
    @_locked
    def scene_graph(self) -> SceneGraph:
        """The scene's geometry store, a Drake-style registry (live: edits of the scene show).

        Sources: ``'robot'`` (a frame per link, proximity and illustration geometry; bodies
        attached to the current state are proximity geometry ``'<body>/<k>'`` on a frame of
        their own, ``'attached:<body>'``, child of their link's frame, pose ``X_LB``) and
        ``'world'`` (each world object's shapes as anchored geometry ``'<object>/<k>'``). Its
        collision-filter state holds the scene's rules as the compiled
        filter ``'planning_scene'`` once a query has run (module docstring). The scene's
        queries honour filters declared here through ``collision_filter_manager()``; the
        geometries of the scene's sources are the scene's to edit (register your own under a
        source of your own: they are not part of the scene's queries).
        """
        self._pairs_for(self._layout_for(tuple(self._state.get_attached_bodies())))
        self._own_registry()  # handed out: the caller may keep and edit it
        self._sg_handed_out = True
        return self._sg

    def _register(self, source: SourceId, frame: FrameId, X_FG: FloatArray, shape: Shape,
                  name: str) -> GeometryId:
        self._own_registry()
        instance = GeometryInstance(X_FG, shape, name, (ProximityProperties(),))
        try:
            return self._sg.register_geometry(source, frame, instance)
        except GeometryRegistrationError:  # a name taken on that frame (e.g. ' a' and 'a')
            instance = GeometryInstance(X_FG, shape, f'{name}#{instance.id}',
                                        (ProximityProperties(),))
            return self._sg.register_geometry(source, frame, instance)

    def _register_world(self, obj: WorldObject) -> None:
        """(Re-)register a world object's shapes as anchored geometry of the 'world' source."""
        self._unregister_world(obj.id)
        world = self._sg.world_frame_id()
        self._world_ids[obj.id] = tuple(
            self._register(self._world_source, world, X_WS, shape, f'{obj.id}/{k}')
            for k, (shape, X_WS) in enumerate(zip((s for s, _ in obj.shapes),
                                                  obj.shape_world_poses(), strict=True)))

    def _move_world(self, obj: WorldObject) -> None:
        self._own_registry()
        for gid, (shape, _), X_WS in zip(self._world_ids[obj.id], obj.shapes,
                                         obj.shape_world_poses(), strict=True):
            self._sg.change_shape(self._world_source, gid, shape, X_WS)

    def _clear_scene_filter(self) -> None:
        """Drop the scene's compiled filter (recompiled at the next query).

        Done before many removals: the registry then has no filter pairs to purge per removed
        geometry.
        """
        if self._filter_key is not None:
            self._own_registry()
            self._sg.collision_filter_manager().remove_compiled_filter(_FILTER_NAME)
            self._filter_key = None

    def _unregister_world(self, object_id: str) -> None:
        if object_id in self._world_ids:
            self._own_registry()
        for gid in self._world_ids.pop(object_id, ()):
            self._sg.remove_geometry(self._world_source, gid)

    def _sync_attached(self, bodies: tuple[AttachedBody, ...]) -> bool:
        """Make the registry hold exactly ``bodies`` as attached geometry (by identity).

        Each body has a frame of its own, a child of its link's frame (pose ``X_LB``), named
        ``'attached:<body>'``: its shapes (``X_BS``) are then paired with the link it hangs on
        unless that link is a touch link, as MoveIt checks them. A detached body's frame is
        kept for the next body attached to the same link.

        Returns:
            Whether the registry changed.
        """
        registered = self._attached_ids
        if len(registered) == len(bodies) and all(
                b is r for b, (r, _, _) in zip(bodies, registered, strict=True)):
            return False
        self._own_registry()
        wanted = {id(b) for b in bodies}
        kept: dict[int, tuple[FrameId, tuple[GeometryId, ...]]] = {}
        source = self._robot.source_id
        for body, frame, ids in registered:
            if id(body) in wanted:
                kept[id(body)] = frame, ids
            else:
                for gid in ids:
                    self._sg.remove_geometry(source, gid)
                self._free_body_frames.setdefault(self._model.link_index(body.link),
                                                  []).append(frame)
        out = []
        for body in bodies:
            held = kept.get(id(body))
            if held is None:
                frame = self._body_frame(body)
                held = frame, tuple(
                    self._register(source, frame, X_BS, shape, f'{body.name}/{k}')
                    for k, (shape, X_BS) in enumerate(zip(body.shapes, body.shape_poses,
                                                          strict=True)))
            out.append((body, *held))
        self._attached_ids = tuple(out)
        return True

    def _body_frame(self, body: AttachedBody) -> FrameId:
        """A frame for ``body`` on its link's frame: a free one renamed, or a new one."""
        li = self._model.link_index(body.link)
        source = self._robot.source_id
        taken = {self._inspector.get_name(f) for f in self._inspector.frames_for_source(source)}
        free = self._free_body_frames.get(li)
        frame = free.pop() if free else None
        name = base = f'attached:{body.name}'
        if frame is not None and self._inspector.get_name(frame) == name:
            return frame
        k = 0
        while name in taken:  # another frame has the name (a link, a body being replaced)
            k += 1
            name = f'{base}#{k}'
        if frame is not None:
            self._sg.rename_frame(frame, name)
            return frame
        return self._sg.register_frame(source, GeometryFrame(name),
                                       self._robot.link_frame_ids[li])

    # ------------------------------------------------------------------ compilation

    def _layout_for(self, bodies: tuple[AttachedBody, ...]) -> _Layout:
        layout = self._layout
        # the last layout's bodies are the ones the registry holds (each sync builds a layout)
        if layout is not None and layout.world_version == self._world_version \
                and layout.bodies == bodies:  # AttachedBody compares by identity
            return layout
        # the registry holds the bodies of the query (nothing to compare without bodies)
        edited = bool(bodies or self._attached_ids) and self._sync_attached(bodies)
        if not edited and layout is not None and layout.world_version == self._world_version \
                and layout.bodies == bodies:
            return layout
        model, geo = self._model, self._geometry
        n_links = model.link_count
        shapes: list[Shape] = list(geo.shapes)
        moving_link = list(geo.geometry_link.tolist())
        X_LS = list(geo.X_LG)
        body_type = [BodyType.ROBOT_LINK] * len(geo)
        body_name = [model.link_names[i] for i in moving_link]
        geometry_name = list(geo.names)
        body_index = list(moving_link)
        ref_link = list(moving_link)
        frame_key = list(moving_link)
        attached_index = [-1] * len(geo)
        enabled = [bool(geo.link_collision_enabled[i]) for i in moving_link]
        ids: list[int] = list(self._robot.proximity_ids)
        touch = np.zeros((len(bodies), n_links), dtype=bool)
        for a, (body, _, body_ids) in enumerate(self._attached_ids):
            li = model.link_index(body.link)
            for t in body.touch_links:
                if model.has_link(t):
                    touch[a, model.link_index(t)] = True
            for k, (shape, X) in enumerate(zip(body.shapes, body.shape_poses_in_link_frame,
                                               strict=True)):
                geometry_name.append(f'{body.name}/{k}')
                shapes.append(shape)
                moving_link.append(li)
                X_LS.append(X)
                body_type.append(BodyType.ROBOT_ATTACHED)
                body_name.append(body.name)
                body_index.append(n_links + a)
                ref_link.append(li)
                frame_key.append(n_links + a)
                attached_index.append(a)
                enabled.append(True)
            ids.extend(body_ids)
        n_moving = len(shapes)
        X_static: list[FloatArray] = []
        for w, obj in enumerate(self._world.values()):
            for k, ((shape, _), X) in enumerate(zip(obj.shapes, obj.shape_world_poses(),
                                                    strict=True)):
                geometry_name.append(f'{obj.id}/{k}')
                shapes.append(shape)
                X_static.append(X)
                body_type.append(BodyType.WORLD_OBJECT)
                body_name.append(obj.id)
                body_index.append(n_links + len(bodies) + w)
                ref_link.append(-1)
                frame_key.append(-1)
                attached_index.append(-1)
                enabled.append(True)
            ids.extend(self._world_ids[obj.id])
        id_array = np.array(ids, dtype=np.int64)
        id_array.setflags(write=False)
        layout = _Layout(
            self._world_version, bodies, tuple(shapes), n_moving,
            np.array(moving_link, dtype=np.intp), _stack(X_LS), _stack(X_static),
            np.array([int(t) for t in body_type], dtype=np.int8), tuple(body_name),
            tuple(geometry_name),
            np.array(body_index, dtype=np.intp), np.array(ref_link, dtype=np.intp),
            np.array(frame_key, dtype=np.intp),
            np.array(attached_index, dtype=np.intp), touch, np.array(enabled, dtype=bool),
            id_array, {g: k for k, g in enumerate(ids)})
        self._layout = layout
        return layout

    def _pairs_current(self, layout: _Layout | None) -> bool:
        key = self._pairs_key
        return key is not None and key[0] is layout and key[1] is self._acm \
            and key[2] == self._acm.version \
            and key[3] == self._inspector.geometry_version().proximity

    @staticmethod
    def _rule_exclusions(layout: _Layout, pairs: IntArray) -> BoolArray:
        """``(P,)`` the pairs the scene's rules other than the ACM exclude.

        Geometries of links whose collision flag is off, an attached body against its touch
        links (its own link only when listed, as MoveIt), two bodies attached to one link, and
        two half-spaces.
        """
        i, j = pairs[:, 0], pairs[:, 1]
        bt_i, bt_j = layout.body_type[i], layout.body_type[j]
        excluded: BoolArray = ~(layout.enabled[i] & layout.enabled[j])
        attached = int(BodyType.ROBOT_ATTACHED)
        rob_att = (bt_i == int(BodyType.ROBOT_LINK)) & (bt_j == attached)
        excluded[rob_att] |= layout.touch[layout.attached_index[j[rob_att]],
                                          layout.ref_link[i[rob_att]]]
        excluded |= (bt_i == attached) & (bt_j == attached) & \
            (layout.ref_link[i] == layout.ref_link[j])  # bodies on one link (MoveIt)
        halfspace = np.array([not module_of(s).BOUNDED for s in layout.shapes], dtype=bool)
        excluded |= halfspace[i] & halfspace[j]
        return excluded

    def _compile_filter(self, layout: _Layout, structural: IntArray, allowed: BoolArray
                        ) -> None:
        """Install the scene's rules as the registry's compiled filter ``'planning_scene'``.

        Pairs the registry already filters (rigid geometries on one frame: the geometries of
        one link, of one attached body; every pair of world objects, which are anchored on
        the world frame) are left to that rule and are not in
        ``structural``. Excluded here: ACM ALWAYS entries (``allowed``, one per structural
        pair) and :meth:`_rule_exclusions`.
        """
        excluded = self._rule_exclusions(layout, structural) | allowed
        i, j = structural[:, 0], structural[:, 1]
        ids = layout.ids
        self._own_registry()
        self._sg.collision_filter_manager().set_compiled_filter(
            _FILTER_NAME, np.column_stack([ids[i[excluded]], ids[j[excluded]]]))

    def _pairs_for(self, layout: _Layout) -> _Pairs:
        if self._pairs is not None and self._pairs_current(layout):
            return self._pairs
        structural = _structural_pairs(layout)
        compiled = self._acm.compile(layout.body_name, structural)
        filter_key = (layout, self._acm, self._acm.version)
        key = self._filter_key
        if key is None or key[0] is not layout or key[1] is not self._acm \
                or key[2] != self._acm.version:
            self._compile_filter(layout, structural, compiled.allowed)
            self._filter_key = filter_key
        pairs = candidate_index_pairs(self._inspector.get_collision_candidate_array(),
                                      layout.ids)
        deciders: list[DecideContactFn | None] = [None] * len(pairs)
        if compiled.conditional:
            rank = {(int(a), int(b)): r for r, (a, b) in enumerate(pairs.tolist())}
            for row, decider in compiled.conditional:
                a, b = structural[row].tolist()
                r = rank.get((a, b))
                if r is not None:
                    deciders[r] = decider
        world = int(BodyType.WORLD_OBJECT)
        result = _Pairs(pairs, layout.body_type[pairs[:, 1]] == world, tuple(deciders))
        self._pairs = result
        self._pairs_key = (layout, self._acm, self._acm.version,
                           self._inspector.geometry_version().proximity)
        return result

    def _moved_links(self, group: str) -> BoolArray:
        """The links a group check covers: MoveIt's updated links of the group.

        MoveIt (``CollisionEnvFCL``, ``active_components_only``) checks a pair when one of its
        bodies is a link of ``getUpdatedLinkModelsWithGeometry()`` (or attached to one): the
        links below the group's *root active* joints. A group's fixed joints and mimic joints
        move nothing on their own, so e.g. the Panda's ``hand`` group covers the fingers but
        not ``panda_hand``.
        """
        moved = self._group_links.get(group)
        if moved is None:
            model = self._model
            moved = np.zeros(model.link_count, dtype=bool)
            for name in model.group(group).updated_link_model_names:
                moved[model.link_index(name)] = True
            moved.setflags(write=False)
            self._group_links[group] = moved
        return moved

    def _selection(self, layout: _Layout, pairs: _Pairs, self_collision: bool,
                   world_collision: bool, group: str | None) -> _Selection:
        key = (self_collision, world_collision, group)
        sel = pairs.selections.get(key)
        if sel is not None:
            return sel
        mask = np.where(pairs.is_world, world_collision, self_collision)
        if group is not None:
            moved = self._moved_links(group)
            active = (layout.ref_link >= 0) & moved[np.maximum(layout.ref_link, 0)]
            mask &= active[pairs.pairs[:, 0]] | active[pairs.pairs[:, 1]]
        cond = np.array([d is not None for d in pairs.deciders], dtype=bool)
        unconditional, conditional = pairs.pairs[mask & ~cond], pairs.pairs[mask & cond]
        for table in (unconditional, conditional):  # frozen: the backend recognises them
            table.setflags(write=False)
        sel = _Selection(unconditional, conditional,
                         tuple(d for d, m in zip(pairs.deciders, mask, strict=True)
                               if d is not None and m))
        pairs.selections[key] = sel
        return sel

    def _pairs_with(self, layout: _Layout, acm: AllowedCollisionMatrix | None) -> _Pairs:
        """The candidate pairs under the scene's ACM (``acm`` None) or under another ACM.

        Another ACM replaces the scene's ACM entries only: the scene's other rules (disabled
        links, touch links, half-spaces) and filters declared on the registry still apply.
        The last few such ACMs are cached by identity and version.
        """
        scene_pairs = self._pairs_for(layout)
        if acm is None or acm is self._acm:
            return scene_pairs
        version = self._inspector.geometry_version().proximity
        key = (layout, acm.version, version)
        hit = self._custom.get(id(acm))
        if hit is not None and hit[0] is acm and hit[1] == key:
            return hit[2]
        base = candidate_index_pairs(
            self._inspector.get_collision_candidate_array(skip_compiled_filters=(_FILTER_NAME,)),
            layout.ids)
        compiled = acm.compile(layout.body_name, base)
        keep = ~(self._rule_exclusions(layout, base) | compiled.allowed)
        deciders: list[DecideContactFn | None] = [None] * len(base)
        for row, decider in compiled.conditional:
            deciders[row] = decider
        kept = base[keep]
        world = int(BodyType.WORLD_OBJECT)
        result = _Pairs(kept, layout.body_type[kept[:, 1]] == world,
                        tuple(d for d, k in zip(deciders, keep, strict=True) if k))
        if len(self._custom) >= 4:
            self._custom.pop(next(iter(self._custom)))
        self._custom[id(acm)] = (acm, key, result)
        return result

    def _objects(self, layout: _Layout) -> FclObjects:
        """This thread's fcl objects for ``layout`` (built or re-identified when it changed)."""
        tls = self._tls
        fcl: FclObjects | None = getattr(tls, 'fcl', None)
        fcl_layout: _Layout | None = getattr(tls, 'layout', None)
        if fcl is not None and fcl_layout is layout:
            return fcl
        if fcl is None or fcl_layout is None or fcl_layout.shapes != layout.shapes:
            fcl = FclObjects(layout.shapes, layout.ids.tolist(), broadphase=self._broadphase)
        else:  # same shapes (e.g. a world object moved): only ids and poses change
            fcl.set_ids(layout.ids.tolist())
        X_WG = fcl.X_WG.copy()  # the moving geometries are posed per query (_prepare)
        X_WG[layout.n_moving:] = layout.X_WS_static
        fcl.set_poses(X_WG)
        tls.fcl, tls.layout = fcl, layout
        return fcl

    def _check_state(self, state: RobotState) -> None:
        if not isinstance(state, RobotState) or state.robot_model is not self._model:
            raise ModelMismatchError('PlanningScene: the state belongs to another model (states '
                                     'only combine with the RobotModel instance of the scene)')

    def _query(self, state: RobotState, self_collision: bool = True,
               world_collision: bool = True, group: str | None = None,
               acm: AllowedCollisionMatrix | None = None
               ) -> tuple[_Layout, QueryObject, _Selection]:
        """Pose the geometries for ``state``; the snapshot and the selected pairs.

        The compiled data (layout, candidate pairs, selections) is made or fetched under the
        scene's lock and is immutable; the fcl objects are this thread's own, posed outside
        the lock. So queries of several threads run side by side and never see each other's
        poses.
        """
        with self._lock:
            self._check_state(state)
            if group is not None:
                self._model.group(group)  # UnknownNameError before anything else
            layout = self._layout_for(tuple(state.get_attached_bodies()))
            pairs = self._pairs_with(layout, acm)
            sel = self._selection(layout, pairs, self_collision, world_collision, group)
            inspector = self._inspector
        fcl = self._objects(layout)
        fcl.set_frame_poses(state.get_link_poses(), layout.moving_link, layout.X_LS)
        return layout, QueryObject(inspector, fcl, layout.ids, pairs.pairs, layout.index_of), sel

    def _self_scene(self) -> PlanningScene:
        """The scene that answers self-collision pairs: the unpadded robot (MoveIt).

        MoveIt's planning scene checks the padded robot against the world and the unpadded
        robot against itself (``getCollisionEnvUnpadded()->checkSelfCollision``). Without
        padding or scaling that is this scene; else a scene of the unpadded robot that shares
        this scene's ACM (self-collision involves no world object).
        """
        geo = self._geometry
        if geo.unpadded:
            return self
        with self._lock:
            shadow = self._shadow
            if shadow is None:
                names = self._model.link_names
                shadow = self._shadow = PlanningScene(
                    self._model, broadphase=self._broadphase,
                    mesh_mode={n: geo.mesh_mode_of(n) for n in names})
            shadow._acm = self._acm
            return shadow

    def _parts(self, self_collision: bool, world_collision: bool
               ) -> list[tuple[PlanningScene, bool, bool]]:
        """``(scene, self pairs, world pairs)`` to query, world pairs first (MoveIt's order)."""
        selfish = self._self_scene() if self_collision else self
        if selfish is self:
            return [(self, self_collision, world_collision)]
        parts = [(self, False, True)] if world_collision else []
        return [*parts, (selfish, True, False)]

    # ------------------------------------------------------------------ queries

    def query_object(self, state: RobotState) -> QueryObject:
        """A Drake-style snapshot of the scene's geometry at ``state`` (Drake ``QueryObject``).

        The geometries are the robot's (proximity, padded), the bodies attached to ``state``
        and the world objects, in that order; the candidates are the registry's (the scene's
        rules and any filter declared on :attr:`scene_graph`), CONDITIONAL ACM pairs included.
        Baked: the snapshot owns its posed fcl objects (the meshes' BVHs are shared), so it
        answers for ``state`` and this scene for as long as it is kept, whatever queries or
        edits follow.

        Raises:
            ModelMismatchError: The state belongs to another model.
            BackendUnavailableError: python-fcl is missing.
        """
        with self._lock:
            self._check_state(state)
            layout = self._layout_for(tuple(state.get_attached_bodies()))
            pairs = self._pairs_with(layout, None)
            inspector = self._inspector
        fcl = FclObjects(layout.shapes, layout.ids.tolist(), broadphase=self._broadphase)
        X_WG = fcl.X_WG.copy()
        X_WG[layout.n_moving:] = layout.X_WS_static
        fcl.set_poses(X_WG)
        fcl.set_frame_poses(state.get_link_poses(), layout.moving_link, layout.X_LS)
        return QueryObject(inspector, fcl, layout.ids, pairs.pairs, layout.index_of)

    @_locked
    def candidate_pairs(self, state: RobotState | None = None,
                        request: CollisionRequest = CollisionRequest()
                        ) -> tuple[tuple[str, str], ...]:
        """The geometry pairs a collision check of ``state`` would test, by geometry name.

        Names are ``'<link>/<i>'`` (robot), ``'<body>/<k>'`` (attached) and ``'<object>/<k>'``
        (world); CONDITIONAL pairs are included. For inspection and tests, not a hot path.

        Args:
            state: The state whose attached bodies count (default: the current state).
            request: Its ``group_name``, ``self_collision`` and ``world_collision`` apply.

        Raises:
            UnknownNameError: Unknown group.
        """
        state = self._state if state is None else state
        self._check_state(state)
        if request.group_name is not None:
            self._model.group(request.group_name)
        layout = self._layout_for(tuple(state.get_attached_bodies()))
        sel = self._selection(layout, self._pairs_for(layout), request.self_collision,
                              request.world_collision, request.group_name)
        names = layout.geometry_name
        return tuple((names[a], names[b]) for a, b in sel.all.tolist())

    def _contact(self, layout: _Layout, c: PenetrationAsPointPair) -> Contact:
        a, b = layout.index_of[int(c.id_A)], layout.index_of[int(c.id_B)]
        return Contact(layout.body_name[a], BodyType(int(layout.body_type[a])),
                       layout.body_name[b], BodyType(int(layout.body_type[b])),
                       0.5 * (c.p_WCa + c.p_WCb), -c.nhat_BA_W, c.depth)

    def _conditional_contacts(self, layout: _Layout, query: QueryObject, sel: _Selection,
                              per_pair: int, limit: int) -> list[Contact]:
        out: list[Contact] = []
        for pair, decider in zip(sel.conditional, sel.deciders, strict=True):
            found = query.compute_point_pair_penetration(
                pairs=pair[None], max_contacts_per_pair=per_pair, broadphase='pairs')
            for c in found:
                contact = self._contact(layout, c)
                if not decider(contact):
                    out.append(contact)
                    if len(out) >= limit:
                        return out
        return out

    def _contacts(self, layout: _Layout, query: QueryObject, sel: _Selection, per_pair: int,
                  limit: int) -> list[Contact]:
        """Up to ``limit`` contacts, at most ``per_pair`` per body pair (MoveIt's pair key)."""
        ask = limit
        while True:
            found = query.compute_point_pair_penetration(
                pairs=sel.unconditional, max_contacts_per_pair=per_pair, max_contacts=ask)
            contacts = [self._contact(layout, c) for c in found]
            if len(sel.conditional):
                contacts += self._conditional_contacts(layout, query, sel, per_pair, ask)
            kept: list[Contact] = []
            per_body: dict[tuple[str, str], int] = {}
            for c in contacts:
                key = (min(c.pair), max(c.pair))
                if per_body.get(key, 0) < per_pair:
                    per_body[key] = per_body.get(key, 0) + 1
                    kept.append(c)
            if len(kept) >= limit or len(found) < ask:  # enough, or nothing left out
                return kept[:limit]
            ask *= 2  # some body pair had more than per_pair: look further

    def check_collision(self, state: RobotState, request: CollisionRequest = CollisionRequest(),
                        acm: AllowedCollisionMatrix | None = None) -> CollisionResult:
        """Check a state against itself and the world (MoveIt ``checkCollision``).

        As in MoveIt, the padded robot is checked against the world and the unpadded robot
        against itself (:meth:`set_link_padding`); world pairs are checked first.
        ``max_contacts_per_pair`` counts per pair of bodies (links, attached bodies, world
        objects), as MoveIt's contact map does.

        Args:
            state: A state of the scene's model; its attached bodies are checked too.
            request: What to check and report.
            acm: An ACM to use instead of the scene's (MoveIt's ``checkCollision`` overload
                with an ACM); the scene's other rules still apply.

        Returns:
            The verdict, contacts (if requested) and distance (if requested).

        Raises:
            ModelMismatchError: The state belongs to another model.
            UnknownNameError: Unknown group.
            BackendUnavailableError: python-fcl is missing.
        """
        contacts: list[Contact] = []
        collision = False
        distance = math.inf
        per_pair = int(request.max_contacts_per_pair)
        limit = int(request.max_contacts)
        for scene, self_pairs, world_pairs in self._parts(request.self_collision,
                                                          request.world_collision):
            layout, query, sel = scene._query(state, self_pairs, world_pairs,
                                              request.group_name, acm)
            if request.distance:
                distance = min(distance, query.compute_minimum_signed_distance(pairs=sel.all))
            if not request.contacts:
                if not collision:
                    collision = query.has_collisions(pairs=sel.unconditional) or bool(
                        len(sel.conditional)
                        and scene._conditional_contacts(layout, query, sel, per_pair, 1))
            elif len(contacts) < limit:
                contacts += scene._contacts(layout, query, sel, per_pair, limit - len(contacts))
                collision = bool(contacts)
            if collision and not request.distance and (not request.contacts
                                                       or len(contacts) >= limit):
                break
        return CollisionResult(collision, tuple(contacts), len(contacts), distance)

    def check_self_collision(self, state: RobotState,
                             request: CollisionRequest = CollisionRequest(),
                             acm: AllowedCollisionMatrix | None = None) -> CollisionResult:
        """Self collision only: robot links and attached bodies (MoveIt ``checkSelfCollision``).

        The unpadded robot, as MoveIt's planning scene.
        """
        return self.check_collision(state, dataclasses.replace(request, self_collision=True,
                                                               world_collision=False), acm)

    def is_state_colliding(self, state: RobotState, group: str | None = None) -> bool:
        """Whether ``state`` is in collision, optionally for one group (``isStateColliding``)."""
        return self.check_collision(state, CollisionRequest(group_name=group)).collision

    def distance_to_collision(self, state: RobotState, group: str | None = None,
                              self_collision: bool = False, world_collision: bool = True
                              ) -> float:
        """Minimum signed distance [m] over the checked pairs (negative when penetrating).

        By default the robot (padded) against the world, as MoveIt's ``distanceToCollision``;
        ``self_collision=True`` adds the robot's own pairs (unpadded). Same pair selection as
        :meth:`check_collision` (CONDITIONAL pairs count as candidates). Penetrating
        convex/primitive pairs report minus their penetration depth; touching or penetrating
        meshes report minus their deepest triangle contact.

        Returns:
            The distance, or ``inf`` when no pair is checked.

        Raises:
            ModelMismatchError: The state belongs to another model.
            UnknownNameError: Unknown group.
        """
        out = math.inf
        for scene, self_pairs, world_pairs in self._parts(self_collision, world_collision):
            _, query, sel = scene._query(state, self_pairs, world_pairs, group)
            out = min(out, query.compute_minimum_signed_distance(pairs=sel.all))
        return out

    def distance_self(self, state: RobotState,
                      request: DistanceRequest = DistanceRequest()) -> DistanceResult:
        """Distances among the robot's links and attached bodies (MoveIt ``distanceSelf``).

        The unpadded robot, as MoveIt's planning scene checks itself.

        Raises:
            ModelMismatchError: The state belongs to another model.
            UnknownNameError: Unknown group.
        """
        return self._distance(state, request, self_pairs=True)

    def distance_robot(self, state: RobotState,
                       request: DistanceRequest = DistanceRequest()) -> DistanceResult:
        """Distances between the (padded) robot and the world objects (``distanceRobot``).

        Raises:
            ModelMismatchError: The state belongs to another model.
            UnknownNameError: Unknown group.
        """
        return self._distance(state, request, self_pairs=False)

    def _distance(self, state: RobotState, request: DistanceRequest, *,
                  self_pairs: bool) -> DistanceResult:
        scene = self._self_scene() if self_pairs else self
        layout, query, sel = scene._query(state, self_pairs, not self_pairs,
                                          request.group_name, request.acm)
        if request.type is DistanceRequestType.GLOBAL:
            closest = query.compute_minimum_signed_distance_pair(pairs=sel.all)
            found = [] if closest is None or closest.distance > request.distance_threshold \
                else [closest]
        else:
            found = query.compute_signed_distance_pairwise_closest_points(
                request.distance_threshold, pairs=sel.all)
        data = sorted((_distance_data(layout, d) for d in found), key=lambda r: r.distance)
        minimum = data[0] if data else DistanceResultsData()
        by_pair: dict[tuple[str, str], list[DistanceResultsData]] = {}
        if request.type is not DistanceRequestType.GLOBAL:
            keep = 1 if request.type is DistanceRequestType.SINGLE else (
                int(request.max_contacts_per_body)
                if request.type is DistanceRequestType.LIMITED else len(data))
            for r in data:
                entries = by_pair.setdefault((min(r.link_names), max(r.link_names)), [])
                if len(entries) < keep:
                    entries.append(r)
        return DistanceResult(bool(data) and minimum.distance <= 0.0, minimum,
                              MappingProxyType({k: tuple(v) for k, v in by_pair.items()}))

    def is_state_valid(self, state: RobotState, group: str | None = None,
                       constraints: Constraints | None = None, *, check_collisions: bool = True,
                       contacts: bool = False) -> StateValidity:
        """MoveIt ``/check_state_validity`` semantics: collision and constraints.

        Collision of ``group`` (pairs involving a link it moves or a body attached to one), or
        of the whole robot when ``group`` is None; with ``contacts``, every contact up to
        ``(world objects + links with geometry)²`` is reported (MoveIt). Constraints are
        evaluated when given and non-empty. Joint bounds are **not** checked.

        Args:
            state: The state to check.
            group: Group name, or ``None``.
            constraints: Constraints to evaluate, or ``None``.
            check_collisions: False skips the collision check (constraints only).
            contacts: Report contacts.

        Returns:
            The validity, contacts, per-constraint results and a message.

        Raises:
            UnknownNameError: Unknown group, or a constraint names an unknown link/joint.
            ModelMismatchError: The state belongs to another model.
        """
        if group is not None:
            self._model.group(group)
        collision = False
        found: tuple[Contact, ...] = ()
        if check_collisions:
            n = len(self._world) + int(self._geometry.link_has_geometry.sum())
            result = self.check_collision(state, CollisionRequest(
                group_name=group, contacts=contacts, max_contacts=max(1, n * n)))
            collision, found = result.collision, result.contacts
        results: tuple[ConstraintEvalResult, ...] = ()
        if constraints is not None and not constraints.is_empty():
            results = evaluate_constraints(self._model, state.positions,
                                           state.get_link_poses(), constraints).results
        failed = [k for k, r in enumerate(results) if not r.result]
        problems = []
        if collision:
            pairs = list(dict.fromkeys(c.pair for c in found))
            detail = ', '.join(f'{a} - {b}' for a, b in pairs[:5])
            more = f' and {len(pairs) - 5} more' if len(pairs) > 5 else ''
            problems.append('in collision' + (f': {detail}{more}' if detail else ''))
        if failed:
            problems.append(f'constraint(s) {failed} violated')
        return StateValidity(not collision and not failed, found, results, '; '.join(problems))

    def __repr__(self) -> str:
        return (f'PlanningScene({self._model.name!r}: {len(self._geometry)} robot geometries, '
                f'{len(self._world)} world objects, '
                f'{len(self._state.get_attached_bodies())} attached bodies)')




def _structural_pairs(layout: _Layout) -> IntArray:
    """``(P, 2)`` index pairs ``i < j`` a scene may check: not on one frame, not both world.

    Frames are the registry's: one per link, one per attached body, the world.

    Moving geometries (robot, then attached) come first in a layout, so every such pair has
    ``i < n_moving``: ``n_moving² / 2 + n_moving × n_world`` pairs, never ``G²``.
    """
    m, G = layout.n_moving, len(layout.shapes)
    ref = layout.frame_key
    i, j = np.triu_indices(m, 1)
    keep = ref[i] != ref[j]
    wi = np.repeat(np.arange(m, dtype=np.intp), G - m)
    wj = np.tile(np.arange(m, G, dtype=np.intp), m)
    out: IntArray = np.column_stack([np.concatenate([i[keep], wi]),
                                     np.concatenate([j[keep], wj])]).astype(np.intp)
    return out


def _distance_data(layout: _Layout, d: SignedDistancePair) -> DistanceResultsData:
    a, b = layout.index_of[int(d.id_A)], layout.index_of[int(d.id_B)]
    return DistanceResultsData(
        d.distance, np.stack([d.p_WCa, d.p_WCb]), (layout.body_name[a], layout.body_name[b]),
        (BodyType(int(layout.body_type[a])), BodyType(int(layout.body_type[b]))), -d.nhat_BA_W)
