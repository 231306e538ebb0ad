"""MoveIt-style ``RobotState``: one configuration of a robot model, with lazy kinematics.

A :class:`RobotState` is a *facade* (design study B6). It owns the mutable values of one
configuration and the caches derived from them. Every computation is a free function
(:mod:`~robot_state_core.kinematics`, :mod:`~robot_state_core.kinematics.bounds`,
:mod:`~robot_state_core.ik.solver`, :mod:`~robot_state_core.state.attached_body`) that the methods
call.

Values (seed §4, RS-01..RS-47):
    * ``positions`` ``(nq,)`` in model variable order (``model.variable_names``);
      ``velocities`` ``(nv,)`` in velocity-variable order (:attr:`RobotState.velocity_names`;
      equal to the position order unless the model has quaternion FLOATING joints).
    * Accelerations and efforts share one ``(nv,)`` buffer, as in MoveIt: setting one drops
      the other (``has_accelerations`` and ``has_effort`` are never both True).
    * Array properties are **read-only live views**; writes go through the setters so that the
      mimic map and the dirty flags cannot be bypassed. ``copy()`` them to keep a snapshot.
    * Mimic joints follow their source after **every** position setter (and their velocities
      and accelerations follow by the multiplier): values given for mimic variables are
      overwritten by ``multiplier * source + offset``.

Kinematics (RS-110..RS-120):
    * Setters only mark the caches dirty. Every getter that reads a cache brings it up to date
      first, so no getter returns stale data (RS-114 decided for "never stale"). ``update()``
      forces the work up front.
    * Poses are ``(4, 4)`` arrays in the model frame W (monogram ``X_WL``: link L in W).

Unknown names raise :class:`~robot_state_core.errors.UnknownNameError` (with did-you-mean), or
are skipped with ``unknown='ignore'``; index accessors raise
:class:`~robot_state_core.errors.InvalidIndexError` (an ``IndexError``) out of range or for a
negative index, and :class:`~robot_state_core.errors.InvalidTypeError` for a non-int one.

FLOATING joints: every position setter refuses a degenerate quaternion (NaN, inf, norm below
1e-12 or above 1e12) with :class:`~robot_state_core.errors.InvalidArgumentError` and changes
nothing; valid ones are stored as given (as in MoveIt) and used normalized.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
import contextlib
import copy as copy_module
from dataclasses import dataclass
import logging
from typing import Any, Literal, TypeAlias
import warnings

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core import kinematics
from robot_state_core._typing import (
    all_finite,
    as_finite_float,
    as_float_array,
    as_index,
    FloatArray,
    IntArray,
)
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_types import floating
from robot_state_core.description.joints import Joint, JointType
from robot_state_core.description.links import Link
from robot_state_core.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    ModelMismatchError,
    UnknownNameError,
)
from robot_state_core.geometry.shapes import Shape
from robot_state_core.ik.solver import damped_least_squares, retarget_pose, solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.kinematics import bounds
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.robot_model import RobotModel, VariableSelection
from robot_state_core.model.rpy_floating import JointContext
from robot_state_core.spatial.composition import poses_on_frames
from robot_state_core.spatial.transforms import (
    as_pose,
    check_quat_xyzw,
)
from robot_state_core.state import formatting as state_formatting
from robot_state_core.state.attached_body import (
    aabb_of_shapes,
    attached_body_global_poses,
    AttachedBody,
    AttachedBodyPoses,
    DetachPosture,
    interleaved_aabb,
    shape_aabbs,
    ShapeExtents,
)

__all__ = [
    'DEFAULT_DIFF_IK_DAMPING',
    'FrameInfo',
    'GroupStateValidityCallback',
    'RobotState',
]

_LOG = logging.getLogger(__name__)
Unknown: TypeAlias = Literal['raise', 'ignore']
GroupLike: TypeAlias = 'str | JointModelGroup'
VariableKey: TypeAlias = 'str | int'
GroupStateValidityCallback: TypeAlias = Callable[['RobotState', JointModelGroup, FloatArray],
                                                 bool]
'''MoveIt's ``GroupStateValidityCallbackFn``: ``fn(state, group, group_positions) -> bool``.

``state`` holds the candidate configuration; ``group_positions`` are its values of every group
variable, in group order (RS-77, RS-88).'''
AttachedBodyCallback: TypeAlias = Callable[[AttachedBody, bool], None]
'''``fn(body, attached)``: True when just attached, False when about to be removed (RS-147).'''

DEFAULT_DIFF_IK_DAMPING = 1e-3
'''Damping λ of the differential IK (``q̇ = Jᵀ(JJᵀ + λ²I)⁻¹ twist``) [m or rad].

Relative error ``(λ/σ)²`` for a singular value σ of the Jacobian, gain at most ``1/(2λ)``
near a singularity.'''

_Kind = Literal['q', 'v', 'a', 'e']


@dataclass(frozen=True)
class FrameInfo:
    """Result of :meth:`RobotState.get_frame_info` (MoveIt ``getFrameInfo``, RS-126).

    Attributes:
        X_WF: ``(4, 4)`` pose of the frame in the model frame (the identity when not found).
        link: The robot link the frame belongs to: a link itself, or the link an attached
            body (or its subframe) is attached to; ``''`` when not found. Its rigidly
            connected parent is :meth:`RobotState.get_rigidly_connected_parent_link`.
        found: Whether the frame is known.
    """

    X_WF: FloatArray
    link: str
    found: bool


# ============================================================================ per-model data


@dataclass(frozen=True)
class _StatePlan:
    """Index data a state needs beyond the model's arrays (built once per model)."""

    velocity_names: tuple[str, ...]
    velocity_index: Mapping[str, int]
    geometry_link: IntArray  # (G,) link of each collision body, model link order
    geometry_start: IntArray  # (L + 1,) link l owns bodies [start[l], start[l + 1])
    X_LG: FloatArray  # (G, 4, 4) collision origins
    geometry_extents: ShapeExtents
    rigid_parent: IntArray  # (L,) nearest ancestor reached through non-fixed joint (or root)
    group_velocities: Mapping[str, tuple[IntArray, IntArray]]  # name -> (all, active) v idx
    quat_q: IntArray | None  # (F, 4) q indices of FLOATING quaternions; None without any
    floating_starts: tuple[int, ...]  # q index of each FLOATING joint's first variable


def _state_plan(model: RobotModel) -> _StatePlan:
    """The :class:`_StatePlan` of ``model`` (compiled on first use, owned by the model)."""
    return model.derived(_build_state_plan)




def _build_state_plan(model: RobotModel) -> _StatePlan:
    names = [j.name if not s else f'{j.name}/{s}' for j in model.joints
             for s in j.info.velocity_suffixes]
    geometry_link = [li for li, link in enumerate(model.links) for _ in link.collisions]
    counts = np.bincount(np.asarray(geometry_link, dtype=np.intp), minlength=model.link_count)
    origins = [c.origin for link in model.links for c in link.collisions]
    shapes = [c.geometry for link in model.links for c in link.collisions]
    rigid = np.arange(model.link_count, dtype=np.intp)
    fixed = np.array([t is JointType.FIXED for t in model.joint_types], dtype=bool)
    for level in model.levels:  # sweep by depth: a fixed child inherits its parent's entry
        lv = level[fixed[level]]
        rigid[model.joint_child_link[lv]] = rigid[model.joint_parent_link[lv]]
    floating_q = kinematics.plan(model).floating_q
    quat_q = floating_q[:, 3:]
    groups = {g.name: (_ro(kinematics.velocity_indices_of_joints(model, g.joint_indices),
                           np.intp),
                       _ro(kinematics.velocity_indices_of_joints(model, g.active_joint_indices),
                           np.intp))
              for g in model.groups.values()}
    return _StatePlan(
        velocity_names=tuple(names), velocity_index={n: i for i, n in enumerate(names)},
        geometry_link=_ro(geometry_link, np.intp),
        geometry_start=_ro(np.concatenate([[0], np.cumsum(counts)]), np.intp),
        X_LG=_ro(np.stack(origins) if origins else np.zeros((0, 4, 4))),
        geometry_extents=ShapeExtents.from_shapes(shapes), rigid_parent=_ro(rigid, np.intp),
        group_velocities=groups, quat_q=_ro(quat_q, np.intp) if quat_q.size else None,
        floating_starts=tuple(floating_q[:, 0].tolist()))


def _resolve_velocity_variables(model: RobotModel, names: Iterable[str],
                                unknown: Unknown) -> VariableSelection:
    """``RobotModel.resolve_variables`` for velocity-variable names."""
    index = _state_plan(model).velocity_index
    var_idx, in_idx, missing = [], [], []
    for k, name in enumerate(names):
        v = index.get(name)
        if v is None:
            if unknown == 'raise':
                raise UnknownNameError(name, 'velocity variable', index)
            missing.append(name)
        else:
            var_idx.append(v)
            in_idx.append(k)
    return VariableSelection(_ro(var_idx, np.intp), _ro(in_idx, np.intp), tuple(missing))


# ============================================================================ frames


def _attached_owner(bodies: Mapping[str, AttachedBody], name: str
                    ) -> tuple[AttachedBody, str] | None:
    """The body that frame ``name`` belongs to, and the subframe (``''`` for the body itself).

    MoveIt ``RobotState::getFrameInfo``: an attached body called ``name`` first; otherwise the
    first body, in name order, whose name followed by ``/`` starts ``name`` and which has the
    rest as a subframe. Body and subframe names may themselves contain ``/``
    (``'obj/with/slash/sub/frame'`` is subframe ``'sub/frame'`` of body ``'obj/with/slash'``).
    """
    body = bodies.get(name)
    if body is not None:
        return body, ''
    for body_name in sorted(bodies):
        body = bodies[body_name]
        if name.startswith(body_name + '/') and name[len(body_name) + 1:] in body.subframes:
            return body, name[len(body_name) + 1:]
    return None


# ============================================================================ RobotState


class RobotState:
    """The state of a robot (MoveIt ``moveit::core::RobotState``).

    Positions, velocities, accelerations or efforts, lazily cached link and collision-body
    poses, and attached bodies.

    Args:
        model: The compiled model the state belongs to.
        rng: Random generator (or seed) for the ``set_to_random_*`` methods; ``None`` draws
            fresh entropy on first use (RS-07).

    Raises:
        InvalidArgumentError: ``model`` is not a :class:`RobotModel`.

    Unlike MoveIt (RS-01), a new state holds the model's default positions (never garbage);
    velocities, accelerations and efforts are absent (``has_velocities()`` is False).
    """

    def __init__(self, model: RobotModel,
                 rng: np.random.Generator | int | None = None) -> None:
        if not isinstance(model, RobotModel):
            raise InvalidArgumentError(f'RobotState: model must be a RobotModel, got '
                                       f'{type(model).__name__}')
        if not (rng is None or isinstance(rng, np.random.Generator)
                or (isinstance(rng, int | np.integer) and not isinstance(rng, bool) and rng >= 0)):
            raise InvalidTypeError(f'RobotState: rng must be a numpy Generator, a non-negative '
                                   f'int seed or None, got {rng!r}')
        self._model = model
        self._plan = _state_plan(model)
        self._q: FloatArray = np.array(model.default_positions, dtype=np.float64)
        self._v: FloatArray = np.zeros(model.nv)
        self._ae: FloatArray = np.zeros(model.nv)  # accelerations OR efforts (RS-31, RS-41)
        self._has_v = self._has_a = self._has_e = False
        self._rng_source = rng
        self._rng: np.random.Generator | None = None
        self._data = kinematics.KinematicsData(model)  # link poses of the last FK
        self._links_read: FloatArray | None = None  # a read-only view of data.X_WL
        self._X_WG: FloatArray = np.zeros((self._plan.geometry_link.size, 4, 4))
        self._attached: dict[str, AttachedBody] = {}
        self._attached_poses: dict[str, AttachedBodyPoses] = {}
        self._dirty_links = True
        self._dirty_locals = True  # data.X_PC (local joint transforms), computed when asked
        self._dirty_collision = True
        self._attached_callback: AttachedBodyCallback | None = None

    # ------------------------------------------------------------------ model access

    @property
    def robot_model(self) -> RobotModel:
        """The model this state belongs to (RS-03)."""
        return self._model

    def get_joint_model(self, name: str) -> Joint:
        """The joint ``name`` of the model (RS-04). Raises :class:`UnknownNameError`."""
        return self._model.joint(name)

    def get_link_model(self, name: str) -> Link:
        """The link ``name`` of the model (RS-04). Raises :class:`UnknownNameError`."""
        return self._model.link(name)

    def get_joint_model_group(self, name: str) -> JointModelGroup:
        """The group ``name`` (RS-04). Raises :class:`UnknownNameError`."""
        return self._model.group(name)

    @property
    def variable_count(self) -> int:
        """Number of position variables ``nq`` (RS-05)."""
        return self._model.nq

    @property
    def variable_names(self) -> tuple[str, ...]:
        """Position-variable names in memory order (RS-06; ``joint/suffix`` for multi-DOF)."""
        return self._model.variable_names

    @property
    def velocity_names(self) -> tuple[str, ...]:
        """Velocity-variable names (``nv``); ``float/wx`` ... for quaternion joints."""
        return self._plan.velocity_names

    @property
    def random_number_generator(self) -> np.random.Generator:
        """The state's generator, created on first use from the constructor's ``rng`` (RS-07)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._rng_source)
        return self._rng

    # ------------------------------------------------------------------ copying

    def copy(self) -> RobotState:
        """An independent copy: values, flags, caches and attached bodies (RS-02).

        Attached bodies are immutable, so the copy shares them; attaching or clearing on one
        state never affects the other. The copy gets its own generator, spawned from this one.
        """
        other = RobotState(self._model, self.random_number_generator.spawn(1)[0])
        other.copy_from(self)
        return other

    def __copy__(self) -> RobotState:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> RobotState:
        return self.copy()

    def copy_from(self, other: RobotState) -> None:
        """Make this state equal to ``other`` (MoveIt ``operator=`` / ``copyFrom``).

        Raises:
            ModelMismatchError: ``other`` belongs to another model.
        """
        self._check_same_model(other, 'copy_from')
        self._q[:], self._v[:], self._ae[:] = other._q, other._v, other._ae
        # New cache arrays: views handed out earlier keep their (then current) values.
        self._data = other._data.copy()
        self._links_read = None
        self._X_WG = other._X_WG.copy()
        self._has_v, self._has_a, self._has_e = other._has_v, other._has_a, other._has_e
        self._dirty_links, self._dirty_collision = other._dirty_links, other._dirty_collision
        self._dirty_locals = other._dirty_locals
        self._attached = dict(other._attached)
        self._attached_poses = dict(other._attached_poses)

    def _check_same_model(self, other: RobotState, method: str) -> None:
        if not isinstance(other, RobotState):
            raise InvalidTypeError(f'RobotState.{method}: expected a RobotState, got '
                                   f'{type(other).__name__}')
        if other._model is not self._model:
            name = other._model.name if isinstance(other, RobotState) else type(other).__name__
            raise ModelMismatchError(f'RobotState.{method}: the other state belongs to model '
                                     f"{name!r}, not to this state's model "
                                     f'{self._model.name!r} (states only combine with states '
                                     'of the same RobotModel instance)')

    # ------------------------------------------------------------------ value plumbing

    def _buffer(self, kind: _Kind) -> FloatArray:
        return self._q if kind == 'q' else self._v if kind == 'v' else self._ae

    def _select(self, kind: _Kind, first: Any, values: Any,
                unknown: Unknown) -> tuple[IntArray | slice, FloatArray]:
        """Resolve a setter's arguments to ``(indices, values)`` (validated, finite)."""
        n = self._model.nq if kind == 'q' else self._model.nv
        if values is None and type(first) is np.ndarray:  # the whole vector (hot path)
            return slice(None), _vector(first, n, f'{kind}: values')
        if isinstance(first, Mapping):
            names, vals = list(first.keys()), list(first.values())
        elif values is not None:
            if not isinstance(first, str) and not isinstance(first, Iterable):
                raise InvalidTypeError(f'RobotState: {kind}: names must be a name or a '
                                       f'sequence of names, got {first!r}')
            names, vals = [first] if isinstance(first, str) else list(first), values
        else:
            return slice(None), _vector(first, n, f'{kind}: values')
        sel = (self._model.resolve_variables(names, unknown) if kind == 'q'
               else _resolve_velocity_variables(self._model, names, unknown))
        arr = _vector(vals, len(names), f'{kind}: values for {len(names)} names')
        return sel.variable_indices, arr[sel.input_indices]

    def _index(self, kind: _Kind, key: VariableKey) -> int:
        n = self._model.nq if kind == 'q' else self._model.nv
        if isinstance(key, str):
            return (self._model.variable_index(key) if kind == 'q' else int(
                _resolve_velocity_variables(self._model, (key,), 'raise').variable_indices[0]))
        return as_index(key, n, 'RobotState', 'variable index' if kind == 'q'
                        else 'velocity variable index')

    def _mark(self, kind: _Kind) -> None:
        """MoveIt ``markVelocity/markAcceleration/markEffort``: the first set zero-fills."""
        if kind == 'v' and not self._has_v:
            self._v[:] = 0.0
            self._has_v = True
        elif kind == 'a' and not self._has_a:
            self._ae[:] = 0.0
            self._has_a, self._has_e = True, False
        elif kind == 'e' and not self._has_e:
            self._ae[:] = 0.0
            self._has_a, self._has_e = False, True

    def _changed(self, kind: _Kind) -> None:
        """After a write: re-apply the mimic map, mark kinematics dirty."""
        if kind == 'q':
            self._model.apply_mimic(self._q)
            self._dirty_links = self._dirty_locals = self._dirty_collision = True
        elif kind in ('v', 'a'):
            kinematics.apply_mimic_rates(self._model, self._buffer(kind))

    def _write(self, kind: _Kind, index: IntArray | slice | int, values: Any) -> None:
        if kind == 'q' and self._plan.quat_q is not None:
            self._write_with_quaternions(self._plan.quat_q, index, values)
            return
        self._mark(kind)
        self._buffer(kind)[index] = values
        self._changed(kind)

    def _write_with_quaternions(self, quat_q: IntArray, index: IntArray | slice | int,
                                values: Any) -> None:
        """Write positions of a model with FLOATING joints: all or nothing.

        Every FLOATING joint's quaternion must stay usable
        (:func:`~robot_state_core.spatial.transforms.check_quat_xyzw`), else nothing is written.
        Valid
        quaternions are stored as given, as MoveIt stores them; forward kinematics uses them
        normalized (MoveIt ``FloatingJointModel::computeTransform``) and ``enforce_bounds``
        normalizes the stored values (MoveIt ``normalizeRotation``).
        """
        if type(index) is slice and index == _ALL:  # the whole vector: no copy needed
            q = values
        else:
            q = self._q.copy()
            q[index] = values
        floats = q.tolist()  # the joint type's scalar test; the numpy one names the offender
        usable = floating.usable_quaternion
        for i in self._plan.floating_starts:
            if not usable(floats, i):
                check_quat_xyzw(q[quat_q], 'RobotState: positions',
                                'the quaternion (rot_x, rot_y, rot_z, rot_w)',
                                kinematics.plan(self._model).floating_labels)
        self._q[:] = q
        self._changed('q')

    def _set(self, kind: _Kind, first: Any, values: Any, unknown: Unknown) -> None:
        index, vals = self._select(kind, first, values, unknown)
        self._write(kind, index, vals)

    # ------------------------------------------------------------------ positions

    @property
    def positions(self) -> FloatArray:
        """``(nq,)`` positions, a read-only live view (RS-10/RS-11; a JointContext for reads)."""
        return _view(self._q)

    def set_variable_positions(self, values: ArrayLike | Mapping[str, float] | Iterable[str],
                               positions: ArrayLike | None = None, *,
                               unknown: Unknown = 'raise') -> None:
        """Set positions (RS-12, RS-13, RS-15); mimic variables are then recomputed.

        Accepts the full ``(nq,)`` array, a ``{name: value}`` mapping, or ``(names, values)``.

        Args:
            values: ``(nq,)`` positions, a mapping, or the variable names.
            positions: The values when ``values`` holds names.
            unknown: ``'raise'`` or ``'ignore'`` (skip) unknown names.

        Raises:
            UnknownNameError: Unknown name with ``unknown='raise'``.
            InvalidArgumentError: Wrong length or non-finite values.
        """
        self._set('q', values, positions, unknown)

    def set_variable_position(self, key: VariableKey, value: float) -> None:
        """Set one position by name or index (RS-16, RS-17)."""
        self._write('q', self._index('q', key), _scalar(value))

    def get_variable_position(self, key: VariableKey) -> float:
        """One position by name or index (RS-18, RS-19)."""
        return float(self._q[self._index('q', key)])

    def get_missing_variables(self, names: Iterable[str]) -> list[str]:
        """State variables not in ``names``, mimic variables excluded (RS-14)."""
        given = set(names)
        active = np.asarray(self._model.active_variable_mask)
        return [n for n, a in zip(self._model.variable_names, active, strict=True)
                if a and n not in given]

    def set_variable_values(self, names: Sequence[str], positions: ArrayLike = (),
                            velocities: ArrayLike = (), *, unknown: Unknown = 'raise') -> None:
        """Apply a ``JointState``-like message (RS-100).

        Positions and velocities are set by name; efforts are ignored; empty sequences are
        skipped.
        """
        if len(np.atleast_1d(positions)):
            self.set_variable_positions(names, positions, unknown=unknown)
        if len(np.atleast_1d(velocities)):
            self.set_variable_velocities(names, velocities, unknown=unknown)

    @contextlib.contextmanager
    def joint_context(self) -> Iterator[JointContext]:
        """A writable ``JointContext`` for Drake-style joint objects (``RpyFloatingJoint``).

        The context holds copies of ``positions`` and ``velocities``; leaving the ``with``
        block writes them back through the setters (mimic map, dirty flags, has-velocity
        flag), and an exception inside the block discards them. For reads, the state itself is
        a context (``joint.get_pose(state)``).
        """
        ctx = JointContext(self._q.copy(), self._v.copy())
        yield ctx
        self.set_variable_positions(ctx.positions)
        if not np.array_equal(ctx.velocities, self._v):
            self.set_variable_velocities(ctx.velocities)

    # ------------------------------------------------------------------ velocities

    @property
    def velocities(self) -> FloatArray:
        """``(nv,)`` velocities, a read-only live view (RS-21).

        Meaningful only while :meth:`has_velocities` is True (MoveIt returns the buffer too).
        """
        return _view(self._v)

    def has_velocities(self) -> bool:
        """Whether velocities are present (RS-20)."""
        return self._has_v

    def zero_velocities(self) -> None:
        """Velocities present and all zero (RS-22)."""
        self._v[:] = 0.0
        self._has_v = True

    def drop_velocities(self) -> None:
        """Velocities absent (not the same as zero) (RS-26)."""
        self._has_v = False

    def set_variable_velocities(self, values: ArrayLike | Mapping[str, float] | Iterable[str],
                                velocities: ArrayLike | None = None, *,
                                unknown: Unknown = 'raise') -> None:
        """Set velocities like :meth:`set_variable_positions`, by velocity-variable name (RS-23).

        The first set zero-fills the velocities not given (MoveIt ``markVelocity``).
        """
        self._set('v', values, velocities, unknown)

    def set_variable_velocity(self, key: VariableKey, value: float) -> None:
        """Set one velocity by name or index (RS-24)."""
        self._write('v', self._index('v', key), _scalar(value))

    def get_variable_velocity(self, key: VariableKey) -> float:
        """One velocity by name or index (RS-25)."""
        return float(self._v[self._index('v', key)])

    def invert_velocity(self) -> None:
        """Negate the velocities if present (RS-47)."""
        if self._has_v:
            np.negative(self._v, out=self._v)

    # ------------------------------------------------------------------ accelerations

    @property
    def accelerations(self) -> FloatArray:
        """``(nv,)`` accelerations, a read-only live view of the buffer shared with efforts."""
        return _view(self._ae)

    def has_accelerations(self) -> bool:
        """Whether accelerations are present; then ``has_effort()`` is False (RS-30)."""
        return self._has_a

    def zero_accelerations(self) -> None:
        """Accelerations present and zero; drops efforts (RS-32)."""
        self._ae[:] = 0.0
        self._has_a, self._has_e = True, False

    def drop_accelerations(self) -> None:
        """Accelerations absent (RS-35)."""
        self._has_a = False

    def set_variable_accelerations(self,
                                   values: ArrayLike | Mapping[str, float] | Iterable[str],
                                   accelerations: ArrayLike | None = None, *,
                                   unknown: Unknown = 'raise') -> None:
        """Set accelerations like :meth:`set_variable_velocities`; drops efforts (RS-33)."""
        self._set('a', values, accelerations, unknown)

    def set_variable_acceleration(self, key: VariableKey, value: float) -> None:
        """Set one acceleration by name or index (RS-33)."""
        self._write('a', self._index('a', key), _scalar(value))

    def get_variable_acceleration(self, key: VariableKey) -> float:
        """One acceleration by name or index (RS-34)."""
        return float(self._ae[self._index('a', key)])

    # ------------------------------------------------------------------ efforts

    @property
    def efforts(self) -> FloatArray:
        """``(nv,)`` efforts, a read-only live view of the buffer shared with accelerations."""
        return _view(self._ae)

    def has_effort(self) -> bool:
        """Whether efforts are present; then ``has_accelerations()`` is False (RS-40)."""
        return self._has_e

    def zero_effort(self) -> None:
        """Efforts present and zero; drops accelerations (RS-42)."""
        self._ae[:] = 0.0
        self._has_a, self._has_e = False, True

    def drop_effort(self) -> None:
        """Efforts absent (RS-45)."""
        self._has_e = False

    def drop_dynamics(self) -> None:
        """Drop velocities, accelerations and efforts (RS-46)."""
        self._has_v = self._has_a = self._has_e = False

    def set_variable_efforts(self, values: ArrayLike | Mapping[str, float] | Iterable[str],
                             efforts: ArrayLike | None = None, *,
                             unknown: Unknown = 'raise') -> None:
        """Set efforts like :meth:`set_variable_velocities`; drops accelerations (RS-43)."""
        self._set('e', values, efforts, unknown)

    def set_variable_effort(self, key: VariableKey, value: float) -> None:
        """Set one effort by name or index (RS-43)."""
        self._write('e', self._index('e', key), _scalar(value))

    def get_variable_effort(self, key: VariableKey) -> float:
        """One effort by name or index (RS-44)."""
        return float(self._ae[self._index('e', key)])

    # ------------------------------------------------------------------ single joints

    def _joint_q(self, joint: str) -> slice:
        j = self._model.joint_index(joint)
        start = int(self._model.joint_q_start[j])
        return slice(start, start + int(self._model.joint_nq[j]))

    def _joint_v(self, joint: str) -> slice:
        j = self._model.joint_index(joint)
        start = int(self._model.joint_v_start[j])
        return slice(start, start + int(self._model.joint_nv[j]))

    def set_joint_positions(self, joint: str, values: ArrayLike) -> None:
        """Set every position variable of one joint (RS-50); mimics follow."""
        index = self._joint_q(joint)
        self._write('q', index, _vector(values, index.stop - index.start, f'joint {joint!r}'))

    def get_joint_positions(self, joint: str) -> FloatArray:
        """A copy of one joint's position variables (RS-53)."""
        return self._q[self._joint_q(joint)].copy()

    def set_joint_velocities(self, joint: str, values: ArrayLike) -> None:
        """Set one joint's velocity variables (RS-52)."""
        index = self._joint_v(joint)
        self._write('v', index, _vector(values, index.stop - index.start, f'joint {joint!r}'))

    def get_joint_velocities(self, joint: str) -> FloatArray:
        """A copy of one joint's velocities (RS-53)."""
        return self._v[self._joint_v(joint)].copy()

    def set_joint_accelerations(self, joint: str, values: ArrayLike) -> None:
        """Set one joint's accelerations (drops efforts)."""
        index = self._joint_v(joint)
        self._write('a', index, _vector(values, index.stop - index.start, f'joint {joint!r}'))

    def get_joint_accelerations(self, joint: str) -> FloatArray:
        """A copy of one joint's accelerations (RS-53)."""
        return self._ae[self._joint_v(joint)].copy()

    def set_joint_efforts(self, joint: str, values: ArrayLike) -> bool:
        """Set one joint's efforts (RS-52).

        Returns:
            False, with an error logged and nothing changed, while accelerations are present
            (they share the buffer; MoveIt refuses likewise, E13).
        """
        if self._has_a:
            _LOG.error(f'RobotState.set_joint_efforts({joint!r}): accelerations are present '
                       'and share memory with efforts; drop_accelerations() first')
            return False
        index = self._joint_v(joint)
        self._write('e', index, _vector(values, index.stop - index.start, f'joint {joint!r}'))
        return True

    def get_joint_efforts(self, joint: str) -> FloatArray:
        """A copy of one joint's efforts (RS-53)."""
        return self._ae[self._joint_v(joint)].copy()

    def set_joint_pose(self, joint: str, X_FM: ArrayLike) -> None:
        """Set a joint from its motion transform (RS-51).

        MoveIt's ``setJointPositions(joint, Isometry3d)``.

        Args:
            joint: Joint name (any non-fixed type).
            X_FM: ``(4, 4)`` pose of the child link frame M in the joint frame F (the parent
                link frame moved by the joint origin), i.e. the motion *without* the origin.
                What the joint cannot represent (e.g. a revolute joint's translation) is
                dropped: revolute/continuous take the rotation angle about their axis,
                prismatic the translation along it, planar the in-plane part.

        Raises:
            InvalidArgumentError: Not a finite ``(4, 4)`` array, or a fixed joint.
        """
        pose = as_pose(X_FM, f'RobotState.set_joint_pose({joint!r})', 'X_FM')
        j = self._model.joint_index(joint)
        self.set_joint_positions(joint,
                                 kinematics.joint_positions_from_motion(self._model, j, pose))

    def get_joint_pose(self, joint: str) -> FloatArray:
        """``X_FM`` ``(4, 4)``: the joint's motion transform (RS-116).

        MoveIt's ``getJointTransform``; the identity for fixed joints.
        """
        j = self._model.joint_index(joint)
        if self._model.joint_nq[j] > 1:  # multi-DOF: from its variables, as MoveIt does
            return kinematics.multi_dof_joint_motion(self._model, j, self._q)
        return kinematics.joint_motion(self._model, j, self._local_transforms()[j])

    # ------------------------------------------------------------------ groups

    def _group(self, group: GroupLike) -> JointModelGroup:
        if not isinstance(group, str | JointModelGroup):
            raise InvalidTypeError(f'RobotState: group must be a group name or a '
                                   f'JointModelGroup, got {group!r}')
        if isinstance(group, JointModelGroup):
            if self._model.group(group.name) is not group:
                raise ModelMismatchError(f'RobotState: group {group.name!r} is not a group of '
                                         f'model {self._model.name!r}')
            return group
        return self._model.group(group)

    def _group_v(self, group: GroupLike, active: bool = False) -> IntArray:
        return self._plan.group_velocities[self._group(group).name][int(active)]

    def set_joint_group_positions(self, group: GroupLike, values: ArrayLike) -> None:
        """Set every group variable, mimic ones included, in group order (RS-60)."""
        idx = self._group(group).variable_indices
        self._write('q', idx, _vector(values, idx.size, f'group {_name(group)!r}'))

    def set_joint_group_active_positions(self, group: GroupLike, values: ArrayLike) -> None:
        """Set the group's active variables (no mimic ones), in group order (RS-61)."""
        idx = self._group(group).active_variable_indices
        self._write('q', idx, _vector(values, idx.size, f'group {_name(group)!r} (active)'))

    def get_joint_group_positions(self, group: GroupLike) -> FloatArray:
        """Copy of every group variable in group order (RS-62, ``copyJointGroupPositions``)."""
        return self._q[self._group(group).variable_indices]

    def get_joint_group_active_positions(self, group: GroupLike) -> FloatArray:
        """Copy of the group's active variables in group order (the IK seed)."""
        return self._q[self._group(group).active_variable_indices]

    def set_joint_group_velocities(self, group: GroupLike, values: ArrayLike) -> None:
        """Set the velocity variables of every group joint, in group order (RS-63)."""
        idx = self._group_v(group)
        self._write('v', idx, _vector(values, idx.size, f'group {_name(group)!r}'))

    def get_joint_group_velocities(self, group: GroupLike) -> FloatArray:
        """Copy of the group's velocity variables (RS-63)."""
        return self._v[self._group_v(group)]

    def set_joint_group_accelerations(self, group: GroupLike, values: ArrayLike) -> None:
        """Set the accelerations of every group joint, in group order (RS-64)."""
        idx = self._group_v(group)
        self._write('a', idx, _vector(values, idx.size, f'group {_name(group)!r}'))

    def get_joint_group_accelerations(self, group: GroupLike) -> FloatArray:
        """Copy of the group's accelerations (RS-64)."""
        return self._ae[self._group_v(group)]

    # ------------------------------------------------------------------ whole-state setters

    def set_to_default_values(self, group: GroupLike | None = None,
                              name: str | None = None) -> bool:
        """Default positions, or a group's named state (RS-101, RS-102).

        Without arguments: every variable at its default (0, or mid-range when 0 is out of
        bounds); velocities and accelerations/efforts are zeroed (their flags are kept).
        With ``group`` and ``name``: the SRDF ``group_state`` values.

        Returns:
            False if the group has no state ``name`` (nothing changed), else True.

        Raises:
            UnknownNameError: Unknown group.
            InvalidArgumentError: Only one of ``group`` and ``name`` given.
        """
        if (group is None) != (name is None):
            raise InvalidArgumentError('set_to_default_values: give both group and name, or '
                                       'neither')
        if group is None or name is None:
            self._write('q', slice(None), self._model.default_positions)
            self._v[:], self._ae[:] = 0.0, 0.0
            return True
        states = self._group(group).named_states
        if name not in states:
            return False
        self.set_variable_positions(states[name])
        return True

    def set_to_random_positions(self, group: GroupLike | None = None,
                                rng: np.random.Generator | None = None) -> None:
        """Uniform random positions within the bounds, whole state or group (RS-103).

        See :func:`bounds.random_positions` (unbounded translations within ±1 m, quaternions
        uniform on SO(3)); variables outside ``group`` keep their values; mimics follow.
        """
        self._write('q', slice(None), bounds.random_positions(
            self._model, rng or self.random_number_generator, self._variables(group),
            self._q))

    def set_to_random_positions_near_by(self, group: GroupLike, near: RobotState,
                                        distance: float | ArrayLike,
                                        rng: np.random.Generator | None = None) -> None:
        """Random group positions near ``near``, clamped to the bounds (RS-104, RS-105).

        Args:
            group: The group; the other variables of this state are unchanged.
            near: The seed state (same model).
            distance: Scalar, or one value per **active joint** of the group [m or rad]
                (:func:`bounds.random_positions_near`).
            rng: Generator; default the state's.

        Raises:
            InvalidArgumentError: ``distance`` has the wrong length or is negative.
            ModelMismatchError: ``near`` belongs to another model.
        """
        self._check_same_model(near, 'set_to_random_positions_near_by')
        idx = self._group(group).variable_indices
        q = bounds.random_positions_near(self._model, rng or self.random_number_generator,
                                         near._q, distance, idx)
        self._write('q', idx, q[idx])

    # ------------------------------------------------------------------ kinematics caches

    def _links(self) -> FloatArray:
        if self._dirty_links:  # the single-configuration FK kernel; local transforms when asked
            self._data.X_WL = kinematics.forward_kinematics(self._model, self._q)
            self._links_read = None
            self._dirty_links = False
        return self._data.X_WL

    def _read_links(self) -> FloatArray:
        """A read-only view of :meth:`_links` (made once per FK: per-link reads index it)."""
        X = self._links()
        if self._links_read is None:
            self._links_read = _view(X)
        return self._links_read

    def _local_transforms(self) -> FloatArray:
        if self._dirty_locals:
            self._data.X_PC = kinematics.local_joint_transforms(self._model, self._q)
            self._dirty_locals = False
        return self._data.X_PC

    def _collision(self) -> FloatArray:
        X_WL = self._links()
        if self._dirty_collision:
            self._X_WG = poses_on_frames(X_WL, self._plan.geometry_link, self._plan.X_LG)
            self._attached_poses = {n: attached_body_global_poses(
                b, X_WL[self._model.link_index(b.link)]) for n, b in self._attached.items()}
            self._dirty_collision = False
        return self._X_WG

    def update(self, force: bool = False) -> None:
        """Bring every cache up to date; ``force`` recomputes even clean ones (RS-110)."""
        if force:
            self._dirty_links = self._dirty_locals = self._dirty_collision = True
        self._collision()
        self._local_transforms()

    def update_link_transforms(self) -> None:
        """Bring the link poses up to date (RS-111)."""
        self._links()

    def update_collision_body_transforms(self) -> None:
        """Bring collision-body and attached-body poses up to date (RS-112)."""
        self._collision()

    @property
    def dirty_link_transforms(self) -> bool:
        """Whether the link poses need recomputing (RS-117)."""
        return self._dirty_links

    @property
    def dirty_collision_body_transforms(self) -> bool:
        """Whether link or collision-body poses need recomputing (RS-117)."""
        return self._dirty_links or self._dirty_collision

    @property
    def dirty(self) -> bool:
        """Any cache dirty (MoveIt ``dirty()`` = ``dirtyCollisionBodyTransforms()``)."""
        return self.dirty_collision_body_transforms

    def dirty_joint_transform(self, joint: str) -> bool:
        """Whether ``joint``'s transform needs recomputing (one flag for all joints)."""
        self._model.joint_index(joint)
        return self._dirty_links

    def get_global_link_transform(self, link: str | int) -> FloatArray:
        """``X_WL`` ``(4, 4)`` of one link in the model frame, up to date (RS-113).

        Raises:
            UnknownNameError: Unknown link name.
            InvalidIndexError: Index out of range or negative (never counted from the end).
            InvalidTypeError: ``link`` is neither a str nor an int.
        """
        index = (self._model.link_index(link) if isinstance(link, str) else
                 as_index(link, self._model.link_count, 'RobotState.get_global_link_transform',
                          'link index'))
        links: FloatArray = (self._links_read if self._links_read is not None
                             and not self._dirty_links else self._read_links())
        pose: FloatArray = links[index]  # a view of a read-only view: read-only
        return pose

    def get_link_poses(self) -> FloatArray:
        """``X_WL`` ``(L, 4, 4)`` of every link, model link order, read-only (RS-113)."""
        return _view(self._links())

    def get_collision_body_transform(self, link: str, index: int) -> FloatArray:
        """``X_WG`` of the link's ``index``-th collision body (RS-115).

        Raises:
            UnknownNameError: Unknown link.
            InvalidIndexError: The link has no ``index``-th collision body (an IndexError).
            InvalidTypeError: ``index`` is not an int.
        """
        li = self._model.link_index(link)
        start, stop = self._plan.geometry_start[li], self._plan.geometry_start[li + 1]
        k = as_index(index, int(stop - start), f'RobotState.get_collision_body_transform('
                     f'{link!r})', 'collision body index')
        return _view(self._collision()[start + k])

    def get_collision_body_transforms(self) -> FloatArray:
        """``X_WG`` ``(G, 4, 4)`` of every link collision body.

        Links in model order, each link's ``collisions`` in order.
        """
        return _view(self._collision())

    # ------------------------------------------------------------------ frames

    def _resolve_frame(self, name: str) -> tuple[str, AttachedBody | None, str] | None:
        """``(link, body, subframe)`` of a frame as MoveIt's ``getFrameInfo`` resolves it.

        ``link`` is the link itself for a link (``body`` None), the attach link for a body
        (``subframe`` ``''``) or one of its subframes; None if unknown. No kinematics.

        Raises:
            InvalidTypeError: ``name`` is not a str.
        """
        if not isinstance(name, str):
            raise InvalidTypeError(f'RobotState: frame name must be a str, got {name!r}')
        name = name.lstrip('/')
        if self._model.has_link(name):
            return name, None, ''
        owner = _attached_owner(self._attached, name)
        return None if owner is None else (owner[0].link, owner[0], owner[1])

    def _frame(self, name: str) -> tuple[FloatArray, str] | None:
        """``(X_WF, link)`` of a frame (see :meth:`_resolve_frame`); None if unknown."""
        found = self._resolve_frame(name)
        if found is None:
            return None
        link, body, sub = found
        if body is None:
            return self._links()[self._model.link_index(link)], link
        self._collision()
        poses = self._attached_poses[body.name]
        X_WF = poses.subframe(sub) if sub else poses.X_WB
        return None if X_WF is None else (X_WF, link)

    def get_frame_transform(self, name: str) -> FloatArray:
        """``X_WF`` of a link, an attached body, or ``'<body>/<subframe>'`` (RS-125).

        A leading ``/`` is ignored; the model frame is the root link.

        Raises:
            UnknownNameError: Unknown frame (use :meth:`get_frame_info` or
                :meth:`knows_frame_transform` to probe; MoveIt returns the identity).
        """
        found = self._frame(name)
        if found is None:
            raise UnknownNameError(name, 'frame', self._known_frames())
        return _view(found[0])

    def get_frame_info(self, name: str) -> FrameInfo:
        """``X_WF``, the robot link it belongs to, and whether it was found (RS-126).

        MoveIt ``getFrameInfo``: for a link the link itself, for an attached body or one of its
        subframes the link the body is attached to; the identity, ``''`` and ``found=False``
        when unknown.
        """
        found = self._frame(name)
        if found is None:
            return FrameInfo(_ro(np.eye(4)), '', False)
        return FrameInfo(_view(found[0]), found[1], True)

    def knows_frame_transform(self, name: str) -> bool:
        """Whether :meth:`get_frame_transform` knows ``name`` (RS-127); False for a non-str."""
        return isinstance(name, str) and self._resolve_frame(name) is not None

    def _known_frames(self) -> list[str]:
        subs = [f'{n}/{s}' for n, b in self._attached.items() for s in b.subframes]
        return [*self._model.link_names, *self._attached, *subs]

    def get_rigidly_connected_parent_link(self, frame: str) -> str:
        """The nearest link reached from ``frame`` through fixed joints only (RS-119).

        ``frame`` is a link, an attached body or a subframe, resolved like
        :meth:`get_frame_info` (names containing ``/`` included, as in MoveIt since 2.11;
        leading ``/`` dropped, decisions.md S5).

        Raises:
            UnknownNameError: Unknown frame.
        """
        found = self._resolve_frame(frame)
        if found is None:
            raise UnknownNameError(frame, 'frame', self._known_frames())
        return self._model.link_names[int(
            self._plan.rigid_parent[self._model.link_index(found[0])])]

    # ------------------------------------------------------------------ Jacobians

    def get_jacobian(self, group: GroupLike, link: str | None = None,
                     reference_point: ArrayLike = (0.0, 0.0, 0.0)) -> FloatArray:
        """Jacobian of a point on ``link`` in the group's root frame (RS-85, RS-86).

        MoveIt's ``getJacobian`` (and moveit_py's ``get_jacobian``): the rows are expressed in
        the frame of the group's **root link** R, the parent link of the group's first joint
        (:meth:`get_group_root_link`); R is the model frame when the group starts at the root.
        For the model frame use :meth:`get_jacobian_in_model_frame`.

        Args:
            group: The group; its active joints give the columns (group order; a mimic
                joint's column is folded into its source).
            link: The link; ``None`` = the group's tip link.
            reference_point: ``(3,)`` point in the **link** frame [m].

        Returns:
            ``(6, n)``: ``[v_RP; ω_R]`` per unit velocity of each column (linear velocity of
            the point and angular velocity of the link, both in R). Columns of multi-DOF
            joints follow ``kinematics.jacobian``.

        Raises:
            InvalidArgumentError: ``link`` is None and the group has no tip link, or the
                group has no joints.
            UnknownNameError: Unknown group or link.
        """
        g = self._group(group)
        R_WR = self._links()[self._model.link_index(self.get_group_root_link(g))][:3, :3]
        return kinematics.jacobian_in_frame(
            self.get_jacobian_in_model_frame(g, link, reference_point), R_WR)

    def get_jacobian_in_model_frame(self, group: GroupLike, link: str | None = None,
                                    reference_point: ArrayLike = (0.0, 0.0, 0.0)
                                    ) -> FloatArray:
        """Like :meth:`get_jacobian`, with the rows expressed in the **model frame** W.

        ``(6, n)`` ``[v_WP; ω_W]``, the world-aligned Jacobian of the point (Pinocchio's
        ``LOCAL_WORLD_ALIGNED``); equal to :meth:`get_jacobian` when the group's root link is
        the model frame.

        Raises:
            InvalidArgumentError: ``link`` is None and the group has no tip link.
            UnknownNameError: Unknown group or link.
        """
        g = self._group(group)
        tip = link if link is not None else _tip(g)
        point = _vector(reference_point, 3, 'get_jacobian: reference_point')
        J = kinematics.jacobian(self._model, self._q, tip, point, X_WL=self._links())
        return kinematics.fold_mimic_columns(self._model, J)[:, self._group_v(g, True)]

    def get_group_root_link(self, group: GroupLike) -> str:
        """The frame :meth:`get_jacobian` is expressed in (MoveIt's ``getJacobian`` frame).

        The parent link of the group's first joint, in model order.

        Raises:
            InvalidArgumentError: The group has no joints.
            UnknownNameError: Unknown group.
        """
        g = self._group(group)
        if not g.joint_indices.size:
            raise InvalidArgumentError(f'group {g.name!r} has no joints, so no root link')
        return self._model.link_names[int(self._model.joint_parent_link[g.joint_indices[0]])]

    def compute_variable_velocity(self, group: GroupLike, twist: ArrayLike,
                                  tip: str | None = None,
                                  damping: float = DEFAULT_DIFF_IK_DAMPING) -> FloatArray:
        """Velocities of the group's active variables that move ``tip`` with ``twist`` (RS-87).

        Args:
            group: The group.
            twist: ``(6,)`` ``[v; ω]`` of the tip origin, expressed in the **tip frame**
                [m/s, rad/s].
            tip: The tip link; ``None`` = the group's tip.
            damping: Damped-least-squares λ (0 = MoveIt's pseudo-inverse).

        Returns:
            ``(n,)`` velocities, columns as in :meth:`get_jacobian` (the model-frame Jacobian
            rotated into the tip frame, whatever the group's root link; decisions.md S-rows).
        """
        tip = tip if tip is not None else _tip(self._group(group))
        velocity = _vector(twist, 6, 'compute_variable_velocity: twist')
        lam = _non_negative(damping, 'compute_variable_velocity', 'damping')
        J = kinematics.jacobian_in_frame(self.get_jacobian_in_model_frame(group, tip),
                                         self.get_global_link_transform(tip)[:3, :3])
        return damped_least_squares(J, velocity, lam)

    def integrate_variable_velocity(self, group: GroupLike, qdot: ArrayLike, dt: float,
                                    validity_callback: GroupStateValidityCallback | None = None
                                    ) -> bool:
        """``q ← q ⊕ qdot·dt`` for the group, then ``enforce_bounds(group)`` (RS-88).

        Args:
            group: The group.
            qdot: ``(n,)`` velocities of its active velocity variables.
            dt: Duration [s].
            validity_callback: Optional check of the result.

        Returns:
            The callback's verdict (True without one). The state is changed either way, as in
            MoveIt.
        """
        g = self._group(group)
        v = np.zeros(self._model.nv)
        v[self._group_v(g, True)] = _vector(qdot, self._group_v(g, True).size, 'qdot')
        duration = as_finite_float(dt, 'RobotState.integrate_variable_velocity', 'dt')
        self._write('q', slice(None), kinematics.integrate(self._model, self._q, v, duration))
        self.enforce_bounds(g)
        return validity_callback is None or bool(
            validity_callback(self, g, self.get_joint_group_positions(g)))

    def set_from_diff_ik(self, group: GroupLike, twist: ArrayLike, tip: str | None, dt: float,
                         validity_callback: GroupStateValidityCallback | None = None,
                         damping: float = DEFAULT_DIFF_IK_DAMPING) -> bool:
        """Move the group so that ``tip`` follows ``twist`` for ``dt`` seconds (RS-89).

        ``twist`` is in the tip frame; damped least squares, then
        :meth:`integrate_variable_velocity`.
        """
        duration = as_finite_float(dt, 'RobotState.set_from_diff_ik', 'dt')
        qdot = self.compute_variable_velocity(group, twist, tip, damping)
        return self.integrate_variable_velocity(group, qdot, duration, validity_callback)

    # ------------------------------------------------------------------ inverse kinematics

    def set_from_ik(self, group: GroupLike, poses: ArrayLike | Sequence[ArrayLike],
                    tip: str | Sequence[str] | None = None, timeout: float = 0.0,
                    validity_callback: GroupStateValidityCallback | None = None,
                    options: IKOptions | None = None) -> bool:
        """Solve IK for the group and set it on success (RS-70..RS-80).

        Args:
            group: The group whose active variables are solved for.
            poses: ``X_WT`` ``(4, 4)`` or a sequence of them (one per tip), in the **model
                frame**.
            tip: Tip frame(s): links, attached bodies or ``'<body>/<subframe>'`` (resolved to
                their rigidly connected link, RS-80). ``None`` = the group's tip link.
            timeout: Seconds; ``<= 0`` = the group's default IK timeout (RS-76).
            validity_callback: ``fn(state, group, values) -> bool`` veto on candidates
                (RS-77); ``state`` is a scratch copy holding the candidate.
            options: Solver settings.

        Returns:
            True on success (the group now holds the solution). False otherwise, with the
            state unchanged (also for malformed requests, E10).
        """
        g = self._group(group)
        targets, tips = self._ik_targets(g, poses, tip)
        if targets is None:
            return False
        request = IKRequest(g.name, targets, tips, self._q.copy(), timeout,
                            options or IKOptions(), _ik_validity(self, g, validity_callback))
        result = solve_ik(self._model, request)
        if result.success:
            self.set_joint_group_positions(g, result.q[g.variable_indices])
        return result.success

    def _ik_targets(self, g: JointModelGroup, poses: Any, tip: str | Sequence[str] | None
                    ) -> tuple[tuple[FloatArray, ...] | None, tuple[str, ...]]:
        """Targets per tip link, or ``None`` when a frame is unknown or the counts differ.

        Frames that are not links are retargeted onto their rigidly connected link (RS-80).
        """
        arr = np.asarray(poses, dtype=np.float64)
        targets = [arr] if arr.shape == (4, 4) else list(arr)
        names = [tip] if isinstance(tip, str) else list(tip) if tip is not None else [_tip(g)]
        if len(names) != len(targets) or not all(self.knows_frame_transform(n) for n in names):
            return None, ()
        links = [self.get_rigidly_connected_parent_link(n) if not self._model.has_link(n)
                 else n for n in names]
        return tuple(X if n == lk else retarget_pose(X, self.get_frame_transform(n),
                                                 self.get_global_link_transform(lk))
                     for X, n, lk in zip(targets, names, links, strict=True)), tuple(links)

    # ------------------------------------------------------------------ bounds

    def _variables(self, group: GroupLike | None, joint: str | None = None
                   ) -> IntArray | None:
        """The variables of a group or a joint for :mod:`bounds` (None: every variable)."""
        if group is not None and joint is not None:
            raise InvalidArgumentError('RobotState: give a group or a joint, not both')
        if joint is not None:
            index = self._joint_q(joint)
            return np.arange(index.start, index.stop, dtype=np.intp)
        return None if group is None else self._group(group).variable_indices

    def satisfies_position_bounds(self, group: GroupLike | None = None, margin: float = 0.0,
                                  *, joint: str | None = None) -> bool:
        """Active positions within ``[lower - margin, upper + margin]`` (RS-135, RS-136).

        Whole state, one group, or one ``joint``. Quaternions must be unit length; unbounded
        variables always satisfy (:func:`bounds.satisfies_position_bounds`).
        """
        return bool(bounds.satisfies_position_bounds(self._model, self._q, margin,
                                                     self._variables(group, joint)))

    def satisfies_velocity_bounds(self, group: GroupLike | None = None, margin: float = 0.0,
                                  *, joint: str | None = None) -> bool:
        """Active velocities within ``±(limit + margin)``; True when absent (RS-136)."""
        return not self._has_v or bool(bounds.satisfies_velocity_bounds(
            self._model, self._v, margin, self._variables(group, joint)))

    def satisfies_bounds(self, group: GroupLike | None = None, margin: float = 0.0, *,
                         joint: str | None = None) -> bool:
        """Position bounds, and velocity bounds when velocities are present (RS-135)."""
        return (self.satisfies_position_bounds(group, margin, joint=joint)
                and self.satisfies_velocity_bounds(group, margin, joint=joint))

    def enforce_position_bounds(self, group: GroupLike | None = None, *,
                                joint: str | None = None) -> None:
        """Clamp active positions, wrap continuous angles, normalize quaternions (RS-133)."""
        self._write('q', slice(None), bounds.enforce_position_bounds(
            self._model, self._q, self._variables(group, joint)))

    def enforce_velocity_bounds(self, group: GroupLike | None = None, *,
                                joint: str | None = None) -> None:
        """Clamp active velocities to their limits, if present (RS-133)."""
        if self._has_v:
            self._write('v', slice(None), bounds.enforce_velocity_bounds(
                self._model, self._v, self._variables(group, joint)))

    def enforce_bounds(self, group: GroupLike | None = None, *,
                       joint: str | None = None) -> None:
        """Position bounds, and velocity bounds when velocities are present (RS-132)."""
        self.enforce_position_bounds(group, joint=joint)
        self.enforce_velocity_bounds(group, joint=joint)

    def harmonize_positions(self, group: GroupLike | None = None, *,
                            joint: str | None = None) -> None:
        """Shift revolute values by multiples of 2π toward their bounds (RS-134)."""
        self._write('q', slice(None), bounds.harmonize_positions(
            self._model, self._q, self._variables(group, joint)))

    def get_min_distance_to_position_bounds(self, group: GroupLike | None = None
                                            ) -> tuple[float, str]:
        """``(distance, joint)`` of the active joint closest to its bounds (RS-137).

        Revolute and prismatic joints only; the distance is unsigned, as in MoveIt.

        Raises:
            InvalidArgumentError: The selection has no bounded variable.
        """
        d, v = bounds.min_distance_to_position_bounds(self._model, self._q,
                                                      self._variables(group))
        return float(d), self._model.joint_names[int(self._model.variable_joint[int(v)])]

    def distance(self, other: RobotState, group: GroupLike | None = None, *,
                 joint: str | None = None) -> float:
        """Configuration distance to ``other`` over the active joints (RS-130).

        MoveIt's ``distance``: for the whole state or a group, each active joint's distance
        times its distance factor (``model.joint_distance_factors``: 3 for a planar joint, 6 for
        a floating one, 1 otherwise; :func:`bounds.distance`); for one ``joint``, its plain
        joint distance (no factor, as in MoveIt). Rotation terms use the SRDF
        ``angular_distance_weight``; diff-drive planar joints their turn-drive-turn distance.

        Raises:
            ModelMismatchError: ``other`` belongs to another model.
        """
        self._check_same_model(other, 'distance')
        return float(bounds.distance(self._model, self._q, other._q,
                                     self._variables(group, joint),
                                     weights=1.0 if joint is not None else None))

    def interpolate(self, to: RobotState, t: float, out_state: RobotState | None = None,
                    group: GroupLike | None = None, *, joint: str | None = None
                    ) -> RobotState:
        """Positions ``t`` of the way from this state to ``to`` (RS-131).

        Continuous angles take the shortest arc, quaternions slerp; ``t = 1`` reproduces
        ``to`` exactly; mimics follow. Writes into ``out_state`` (a new copy of this state
        when None) and returns it; with ``group`` or ``joint`` only their variables are
        written.

        Raises:
            InvalidArgumentError: ``t`` is not finite. (Outside ``[0, 1]`` it warns.)
            ModelMismatchError: ``to`` or ``out_state`` belongs to another model.
        """
        self._check_same_model(to, 'interpolate')
        out = out_state if out_state is not None else self.copy()
        self._check_same_model(out, 'interpolate')
        idx = self._variables(group, joint)
        q = bounds.interpolate(self._model, self._q, to._q, _fraction(t), idx)
        out._write('q', slice(None) if idx is None else idx, q if idx is None else q[idx])
        return out

    def is_valid_velocity_move(self, other: RobotState, group: GroupLike, dt: float) -> bool:
        """Whether reaching ``other`` in ``dt`` seconds respects the velocity limits (RS-138).

        Checks the group's active variables.
        """
        self._check_same_model(other, 'is_valid_velocity_move')
        return bool(bounds.is_valid_velocity_move(self._model, self._q, other._q, dt,
                                                  self._variables(group)))

    # ------------------------------------------------------------------ attached bodies

    def attach_body(self, body: AttachedBody | str, link: str | None = None,
                    shapes: Iterable[Shape] = (), shape_poses: ArrayLike | None = None,
                    pose: ArrayLike | None = None, touch_links: Iterable[str] = (),
                    detach_posture: DetachPosture | None = None,
                    subframes: Mapping[str, ArrayLike] | None = None) -> AttachedBody:
        """Attach a body to a link of this state only (RS-140, RS-141).

        Pass an :class:`AttachedBody`, or its fields (``body`` is then the name): ``pose`` is
        ``X_LB`` (default identity), ``shape_poses`` are ``X_BS`` (default identities),
        ``subframes`` are ``{name: X_BF}``. A body with the same name is replaced.

        Returns:
            The attached body.

        Raises:
            UnknownNameError: ``link`` is not a link of the model.
            InvalidArgumentError: Malformed fields.
        """
        b = body if isinstance(body, AttachedBody) else AttachedBody.create(
            body, link or '', shapes, shape_poses, pose, touch_links, detach_posture, subframes)
        self._model.link_index(b.link)
        self._attached[b.name] = b
        self._dirty_collision = True
        if self._attached_callback is not None:
            self._attached_callback(b, True)
        return b

    def has_attached_body(self, name: str) -> bool:
        """Whether a body ``name`` is attached (RS-146)."""
        return name in self._attached

    def get_attached_body(self, name: str) -> AttachedBody | None:
        """The attached body ``name``, or ``None`` (RS-145)."""
        return self._attached.get(name)

    def get_attached_bodies(self, link: str | None = None, group: GroupLike | None = None
                            ) -> list[AttachedBody]:
        """All attached bodies, or those on ``link``, or on the links of ``group`` (RS-142)."""
        links = self._body_links(link, group)
        return [b for b in self._attached.values() if links is None or b.link in links]

    def _body_links(self, link: str | None, group: GroupLike | None) -> set[str] | None:
        if link is not None:
            return {self._model.link_names[self._model.link_index(link)]}
        return None if group is None else set(self._group(group).link_names)

    def get_attached_body_poses(self, name: str) -> AttachedBodyPoses | None:
        """Up-to-date model-frame poses of body ``name``, or ``None``.

        Body, shapes and subframes (MoveIt ``getGlobalCollisionBodyTransforms``).
        """
        self._collision()
        return self._attached_poses.get(name)

    def clear_attached_body(self, name: str) -> bool:
        """Detach body ``name``; False if it was not attached (RS-143)."""
        body = self._attached.get(name)
        if body is None:
            return False
        if self._attached_callback is not None:
            self._attached_callback(body, False)
        del self._attached[name]
        self._attached_poses.pop(name, None)
        return True

    def clear_attached_bodies(self, link: str | None = None,
                              group: GroupLike | None = None) -> None:
        """Detach all bodies, or those on ``link``, or on ``group``'s links (RS-144)."""
        for body in self.get_attached_bodies(link, group):
            self.clear_attached_body(body.name)

    def set_attached_body_update_callback(self, callback: AttachedBodyCallback | None) -> None:
        """Call ``callback(body, attached)`` on every attach/detach (RS-147)."""
        self._attached_callback = callback

    def compute_aabb(self) -> FloatArray:
        """Box around every link collision body and attached shape (RS-152).

        ``[minx, maxx, miny, maxy, minz, maxz]`` [m] in the model frame; zeros without
        geometry.
        """
        lo, hi = shape_aabbs(self._plan.geometry_extents, self._collision())
        boxes = [(lo, hi)] + [shape_aabbs(self._attached[n].extents, p.X_WS)
                              for n, p in self._attached_poses.items()]
        return interleaved_aabb(np.concatenate([b[0] for b in boxes]),
                                np.concatenate([b[1] for b in boxes]))

    def compute_attached_body_aabb(self, name: str) -> FloatArray:
        """Box around body ``name``'s shapes (zeros if it has none).

        Raises:
            UnknownNameError: Unknown body.
        """
        poses = self.get_attached_body_poses(name)
        if poses is None:
            raise UnknownNameError(name, 'attached body', self._attached)
        return aabb_of_shapes(self._attached[name].extents, poses.X_WS)

    # ------------------------------------------------------------------ printing

    def state_info(self) -> str:
        """Model, flags and values (MoveIt ``printStateInfo``, RS-155)."""
        flags = (f'velocities={self._has_v}, accelerations={self._has_a}, '
                 f'effort={self._has_e}, attached={list(self._attached)}')
        return f'RobotState of {self._model.name!r} ({flags})\n' + self.positions_info()

    def positions_info(self) -> str:
        """``name=value`` per position variable (MoveIt ``printStatePositions``, RS-153)."""
        return '\n'.join(f'{n}={x:.6g}' for n, x in zip(self._model.variable_names,
                                                          self._q.tolist(), strict=True))

    def dirty_info(self) -> str:
        """The dirty flags (MoveIt ``printDirtyInfo``, RS-155)."""
        return (f'dirty link transforms: {self._dirty_links}\n'
                f'dirty collision body transforms: {self.dirty_collision_body_transforms}')

    def positions_with_limits(self, group: GroupLike | None = None) -> str:
        """A bar per single-variable active joint, ``|`` at the value (RS-154).

        MoveIt ``printStatePositionsWithJointLimits``: revolute, prismatic and continuous
        joints (the latter over ``[-π, π]``); multi-DOF and mimic joints are left out.
        """
        header = f'Joint limits for group {_name(group) if group is not None else "(all)"}'
        joints = (self._group(group).active_joint_indices if group is not None
                  else range(self._model.joint_count))
        body = state_formatting.format_limit_bars(self._model, self._q, joints,
                                  lambda name: self.satisfies_bounds(joint=name))
        return header + ('\n' + body if body else '')

    def transforms_info(self) -> str:
        """Every link pose (MoveIt ``printTransforms``, RS-155)."""
        X_WL = self._links()
        return '\n'.join(f'{name}: {state_formatting.format_transform(X)}'
                         for name, X in zip(self._model.link_names, X_WL, strict=True))

    def state_tree(self) -> str:
        """The joint/link tree with values and poses (MoveIt ``getStateTreeString``)."""
        return state_formatting.format_tree(self._model, self._q, self._links())

    def __str__(self) -> str:
        return self.state_info()

    def __repr__(self) -> str:
        return (f'RobotState({self._model.name!r}, nq={self._model.nq}, '
                f'attached={list(self._attached)})')


# ============================================================================ argument checks


_ALL = slice(None)


def _view(a: FloatArray) -> FloatArray:
    v = a.view()
    v.setflags(write=False)
    return v


def _name(group: GroupLike) -> str:
    return group.name if isinstance(group, JointModelGroup) else group


def _tip(group: JointModelGroup) -> str:
    if not group.tip_link:
        raise InvalidArgumentError(f'group {group.name!r} is not a chain and has no tip link; '
                                   'pass the link explicitly')
    return group.tip_link


def _vector(values: ArrayLike, n: int, what: str) -> FloatArray:
    a = as_float_array(values, 'RobotState', what)
    if a.shape != (n,):
        raise InvalidArgumentError(f'RobotState: {what}: expected shape ({n},), got {a.shape}')
    if not all_finite(a):
        raise InvalidArgumentError(f'RobotState: {what}: values must be finite')
    return a


def _scalar(value: float) -> float:
    return as_finite_float(value, 'RobotState', 'value')


def _non_negative(value: float, where: str, what: str) -> float:
    x = as_finite_float(value, f'RobotState.{where}', what)
    if x < 0.0:
        raise InvalidArgumentError(f'RobotState.{where}: {what} must be >= 0, got {value!r}')
    return x


def _fraction(t: float) -> float:
    x = as_finite_float(t, 'RobotState.interpolate', 't')
    if not 0.0 <= x <= 1.0:
        warnings.warn(f'RobotState.interpolate: t = {x} is outside [0, 1] (extrapolating)',
                      RuntimeWarning, stacklevel=3)
    return x


def _ik_validity(state: RobotState, group: JointModelGroup,
                 callback: GroupStateValidityCallback | None
                 ) -> Callable[[FloatArray], bool] | None:
    """Adapt ``fn(state, group, values)`` to the solver's ``fn(q)`` on a scratch copy."""
    if callback is None:
        return None
    scratch = copy_module.copy(state)

    def check(q: FloatArray) -> bool:
        scratch.set_variable_positions(q)
        return bool(callback(scratch, group, scratch.get_joint_group_positions(group)))

    return check
