"""Geometry of configuration space: bounds, wrapping, distance, interpolation and sampling.

MoveIt ``RobotState`` rows RS-130..RS-138 (seed 004, inventory §4.13) as batched free
functions over positions ``q`` ``(..., nq)`` in model variable order; leading dimensions are
batch dimensions and broadcast. ``RobotState`` methods are thin facades over these (design
study B6). Nothing here loops over joints in Python: per-model index arrays and masks are
built once (:func:`_plan`, owned by the model through ``RobotModel.derived`` like
:func:`robot_state_core.kinematics.plan`) and each function loops at most over the joint type
modules (:mod:`robot_state_core.description.joint_types`), whose ``distance``,
``interpolate``, ``random_orientations`` and ``orientations_near`` hold each type's math;
the masks of bounded, wrapped and translational variables come from the modules'
``ANGLE_VARIABLES``, ``TRANSLATION_VARIABLES`` and ``ORIENTATION_VARIABLES``.

Per joint type (variables, see :data:`robot_state_core.description.joints.JOINT_TYPE_INFO`):

==============  ===============================  ==========================================  ======
type            position bounds                  distance between ``q0`` and ``q1``          factor
==============  ===============================  ==========================================  ======
REVOLUTE        ``[lower, upper]`` (clipped)     ``|Δq|``                                    1
PRISMATIC       ``[lower, upper]`` (clipped)     ``|Δq|``                                    1
CONTINUOUS      none; wraps into ``[-π, π)``     ``|wrap(Δq)|`` (shortest arc, ``<= π``)     1
PLANAR          x, y none; theta wraps           ``‖Δxy‖ + w_ang·|wrap(Δθ)|`` (holonomic)    3
                                                 or turn-drive-turn (``diff_drive``)
FLOATING        translation none; quaternion     ``‖Δt‖ + w_ang·2·acos|⟨quat0, quat1⟩|``     6
                (xyzw) must be unit length
RPY_FLOATING    none; roll, pitch, yaw wrap      ``‖Δt‖ + w_ang·angle(R1 R0ᵀ)``              6
==============  ===============================  ==========================================  ======

``w_ang`` is the joint's ``RobotModel.joint_angular_distance_weights`` entry (SRDF
``angular_distance_weight``, default 1). The *factor* is MoveIt's per-joint distance factor
(``RobotModel.joint_distance_factors``, the joint's state-space dimension): :func:`distance`
weights each joint by it by default, exactly as MoveIt's ``RobotState::distance`` does, so a
planar base counts three times its joint distance.

Conventions shared by every function:
    * **Active joints only** (inventory §8.9, §8.11): mimic variables are never checked,
      clipped, counted in distances or sampled; they are recomputed from their source with
      :meth:`RobotModel.apply_mimic` wherever positions are produced.
    * ``variables`` restricts a function to a subset of the variables: an index array into
      ``q`` (e.g. ``group.variable_indices``) or a boolean mask of shape ``(nq,)``. It must
      select whole joints (all or none of a multi-DOF joint's variables). Variables outside
      the selection are returned unchanged. ``None`` selects every variable.
    * Wrapped angles lie in ``[-π, π)`` (:func:`wrap_angle`), like
      :func:`robot_state_core.kinematics.difference`; MoveIt wraps into ``(-π, π]``.
    * Inputs are validated once at the boundary: wrong shapes, non-finite values and bad
      indices raise :class:`~robot_state_core.errors.InvalidArgumentError` (design study B7).
    * Boolean and scalar results have the batch shape (a 0-d array for a single ``q``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import BoolArray, FloatArray, IntArray
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_types import floating, JOINT_TYPES
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.kinematics import difference
from robot_state_core.kinematics.plan import plan as kinematics_plan
from robot_state_core.kinematics.plan import TypeSlots
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    MAX_COORDINATE,
    normalize_quat_xyzw_or_identity,
    random_rotation_vectors,
    wrap_angle,
)

__all__ = [
    'DEFAULT_RANDOM_TRANSLATION_RANGE',
    'QUATERNION_NORM_TOLERANCE',
    'distance',
    'enforce_position_bounds',
    'enforce_velocity_bounds',
    'harmonize_positions',
    'interpolate',
    'is_valid_velocity_move',
    'joint_distances',
    'min_distance_to_position_bounds',
    'random_positions',
    'random_positions_near',
    'satisfies_bounds',
    'satisfies_position_bounds',
    'satisfies_velocity_bounds',
    'velocity_limits_v',
    'wrap_angle',
]

Variables = ArrayLike | None
PerJoint = float | ArrayLike | Mapping[str, float]

QUATERNION_NORM_TOLERANCE = 10.0 * float(np.finfo(np.float32).eps)
'''Largest ``|‖quat‖² - 1|`` a FLOATING joint's quaternion may have to satisfy its bounds.

MoveIt's ``FloatingJointModel::satisfiesPositionBounds`` tolerance (about 1.2e-6).'''

DEFAULT_RANDOM_TRANSLATION_RANGE = 1.0
'''Half-width [m] of the box :func:`random_positions` samples unbounded translations from.

MoveIt samples 0 for unbounded planar/floating translations; a box is more useful for tests
and sampling-based planners, and it is an explicit keyword argument.'''

_TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------- per-model plan


@dataclass(frozen=True)
class _Selection:
    """Selected active variables, joints and velocity variables."""

    var: BoolArray  # (nq,)
    joint: BoolArray  # (J,)
    v: BoolArray  # (nv,)


@dataclass(frozen=True)
class _BoundsPlan:
    """Masks and index arrays of one model, built once (see :func:`_plan`)."""

    bounded: BoolArray  # (nq,) real scalar limits: revolute, prismatic (not quaternions)
    revolute: BoolArray  # (nq,) bounded REVOLUTE variables (harmonize)
    circle: BoolArray  # (nq,) unbounded angles on the circle: continuous joints, planar theta
    orientation_angle: BoolArray  # (nq,) unbounded angles of an orientation (rpy_floating)
    translation: BoolArray  # (nq,) unbounded translations (planar x/y, floating, rpy xyz)
    quaternion: BoolArray  # (nq,) FLOATING rot_x..rot_w
    types: tuple[TypeSlots, ...]  # the kinematics plan's, per joint type module
    # (JOINT_TYPES order: the random draws' order)
    floating: IntArray  # (F,)
    floating_quat_q: IntArray  # (F, 4) xyzw
    variable_joint: IntArray  # (nq,)
    joint_nq: IntArray  # (J,)
    v_joint: IntArray  # (nv,) joint owning each velocity variable
    velocity_limits_v: FloatArray  # (nv,)
    everything: _Selection  # every active variable


def _plan(model: RobotModel) -> _BoundsPlan:
    """The :class:`_BoundsPlan` of ``model`` (compiled on first use, owned by the model)."""
    return model.derived(_build_plan)


def _build_plan(model: RobotModel) -> _BoundsPlan:
    J, nq, nv = model.joint_count, model.nq, model.nv
    types = model.joint_types
    q_start = np.asarray(model.joint_q_start, dtype=np.intp).reshape(J)
    v_start = np.asarray(model.joint_v_start, dtype=np.intp).reshape(J)
    joint_nq = np.asarray(model.joint_nq, dtype=np.intp).reshape(J)
    var_joint = np.asarray(model.variable_joint, dtype=np.intp).reshape(nq)
    local = np.arange(nq) - q_start[var_joint]
    var_module = [JOINT_TYPES[types[j]] for j in var_joint.tolist()]

    def declared(attribute: str) -> BoolArray:
        return np.array([i in getattr(m, attribute) for m, i in zip(var_module, local.tolist(),
                                                                     strict=True)], dtype=bool)

    model_bounded = np.asarray(model.variable_bounded, dtype=bool).reshape(nq)
    orientation = declared('ORIENTATION_VARIABLES')
    angle = declared('ANGLE_VARIABLES')
    quaternion = orientation & ~angle
    bounded = model_bounded & ~quaternion
    translation = declared('TRANSLATION_VARIABLES') & ~bounded
    circle = angle & ~orientation & ~bounded
    orientation_angle = angle & orientation & ~bounded
    is_revolute = np.array([types[j] is JointType.REVOLUTE for j in var_joint.tolist()], bool)
    floating = np.array([j for j, t in enumerate(types) if t is JointType.FLOATING], np.intp)
    # Velocity variables: FLOATING v = [w; v] maps onto q = [t; quat], the others 1:1.
    v_joint = np.repeat(np.arange(J, dtype=np.intp), np.asarray(model.joint_nv, np.intp))
    v_local = np.arange(nv) - v_start[v_joint]
    v_floating = np.array([types[j] is JointType.FLOATING for j in v_joint.tolist()], bool)
    q_of_v = q_start[v_joint] + np.where(v_floating, (v_local + 3) % 6, v_local)
    velocity_limits_v = np.asarray(model.variable_velocity_limits, np.float64)[q_of_v]
    active_var = np.asarray(model.active_variable_mask, dtype=bool).reshape(nq)
    active_joint = joint_nq > 0
    active_joint[var_joint[~active_var]] = False
    everything = _Selection(_ro(active_var, np.bool_), _ro(active_joint, np.bool_),
                            _ro(active_joint[v_joint], np.bool_))
    return _BoundsPlan(
        bounded=_ro(bounded, np.bool_), revolute=_ro(bounded & is_revolute, np.bool_),
        circle=_ro(circle, np.bool_), orientation_angle=_ro(orientation_angle, np.bool_),
        translation=_ro(translation, np.bool_), quaternion=_ro(quaternion, np.bool_),
        types=kinematics_plan(model).type_slots, floating=_ro(floating, np.intp),
        floating_quat_q=_ro((q_start[floating][:, None] + np.arange(3, 7)).reshape(-1, 4),
                            np.intp),
        variable_joint=_ro(var_joint, np.intp), joint_nq=_ro(joint_nq, np.intp),
        v_joint=_ro(v_joint, np.intp), velocity_limits_v=_ro(velocity_limits_v),
        everything=everything)


# ---------------------------------------------------------------------------- validation


def _positions(model: RobotModel, q: ArrayLike, function: str, name: str = 'q') -> FloatArray:
    """``q`` as float64 ``(..., nq)``, finite; InvalidArgumentError otherwise."""
    try:
        a = np.asarray(q, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: {name} is not numeric: {err}') from err
    if a.ndim == 0 or a.shape[-1] != model.nq:
        raise InvalidArgumentError(f'{function}: {name} must have shape (..., {model.nq}), got '
                                   f'{a.shape}')
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f'{function}: {name} contains NaN or inf')
    return a


def _finite(value: ArrayLike, function: str, name: str) -> FloatArray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: {name} is not numeric: {err}') from err
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f'{function}: {name} must be finite, got {value!r}')
    return a


def _batch_shape(function: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError as err:
        raise InvalidArgumentError(f'{function}: batch shapes {list(shapes)} do not '
                                   'broadcast') from err


def _selection(model: RobotModel, p: _BoundsPlan, variables: Variables,
               function: str) -> _Selection:
    """Resolve ``variables`` to masks of selected *active* variables, joints and velocities."""
    if variables is None:
        return p.everything
    a = np.asarray(variables)
    nq = model.nq
    if a.dtype == np.bool_:
        if a.shape != (nq,):
            raise InvalidArgumentError(f'{function}: a boolean variables mask must have shape '
                                       f'({nq},), got {a.shape}')
        mask = a.copy()
    else:
        if a.size == 0:
            a = a.astype(np.intp)
        if a.ndim > 1 or not np.issubdtype(a.dtype, np.integer):
            raise InvalidArgumentError(f'{function}: variables must be a 1-D integer index '
                                       f'array or an ({nq},) boolean mask, got {a.dtype} '
                                       f'{a.shape}')
        a = a.reshape(-1)
        if a.size and (a.min() < 0 or a.max() >= nq):
            raise InvalidArgumentError(f'{function}: variable indices must lie in [0, {nq}), '
                                       f'got {a.tolist()}')
        mask = np.zeros(nq, dtype=bool)
        mask[a] = True
    counts = np.bincount(p.variable_joint[mask], minlength=model.joint_count)
    partial = (counts > 0) & (counts < p.joint_nq)
    if partial.any():
        names = [model.joint_names[j] for j in np.flatnonzero(partial)]
        raise InvalidArgumentError(f'{function}: variables select only part of the multi-DOF '
                                   f'joint(s) {names}; select all variables of a joint or none')
    joint = (counts > 0) & p.everything.joint
    return _Selection(mask & p.everything.var, joint, joint[p.v_joint])


def _per_joint(model: RobotModel, selection: _Selection, value: PerJoint, function: str,
               name: str, default: float | None) -> FloatArray:
    """A non-negative finite value per model joint ``(J,)`` from a scalar, array or mapping.

    Arrays have one entry per model joint ``(J,)`` or one per selected active joint (model
    order); the two readings coincide whenever both lengths are equal. A mapping is keyed by
    joint name; selected joints it omits get ``default`` (``None``: they must be present).
    """
    J = model.joint_count
    if isinstance(value, Mapping):
        out = np.full(J, np.nan if default is None else default)
        for joint_name, v in value.items():
            out[model.joint_index(joint_name)] = _finite(v, function, f'{name}[{joint_name!r}]')
        missing = selection.joint & np.isnan(out)
        if missing.any():
            names = [model.joint_names[j] for j in np.flatnonzero(missing)]
            raise InvalidArgumentError(f'{function}: {name} has no entry for selected joint(s) '
                                       f'{names}')
        out = np.where(np.isnan(out), 0.0, out)
    else:
        a = _finite(value, function, name)
        n_selected = int(selection.joint.sum())
        if a.ndim == 0:
            out = np.full(J, float(a))
        elif a.shape == (J,):
            out = a.astype(np.float64, copy=True)
        elif a.shape == (n_selected,):
            out = np.full(J, 0.0 if default is None else default)
            out[selection.joint] = a
        else:
            raise InvalidArgumentError(
                f'{function}: {name} must be a scalar, a ({J},) array over the model joints or '
                f'a ({n_selected},) array over the selected active joints, got shape {a.shape}')
    if np.any(out < 0.0):
        raise InvalidArgumentError(f'{function}: {name} must be non-negative')
    return out


def _rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    if rng is None or isinstance(rng, np.random.Generator | int | np.integer):
        return np.random.default_rng(rng)
    raise InvalidArgumentError(f'expected a numpy Generator or an int seed, got {type(rng)}')


def _size(size: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if size is None:
        return ()
    dims = (size,) if isinstance(size, int | np.integer) else size
    if not isinstance(dims, tuple | list) or not all(
            isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise InvalidArgumentError(f'size must be a non-negative int or a tuple of them, got '
                                   f'{size!r}')
    return tuple(int(d) for d in dims)


def _canonical(p: _BoundsPlan, q: FloatArray, sel: _Selection, function: str,
               name: str) -> FloatArray:
    """``q`` with the selected angles wrapped and non-unit quaternions normalized (no clipping).

    Valid values (angles in ``[-π, π)``, unit quaternions) are kept bit for bit.
    """
    out = np.array(q, dtype=np.float64)
    angles = sel.var & (p.circle | p.orientation_angle)
    out[..., angles] = wrap_angle(out[..., angles])
    fq = p.floating_quat_q[sel.joint[p.floating]]
    if fq.size:
        floating.unit_quaternions(out[..., fq], function, name)  # raises on zero quaternions
        out[..., fq] = normalize_quat_xyzw_or_identity(out[..., fq])
    return out


# ---------------------------------------------------------------------------- velocity limits


def velocity_limits_v(model: RobotModel) -> FloatArray:
    """Velocity limit of each velocity variable ``(nv,)`` (read-only).

    1-DOF, planar and rpy_floating velocity variables take their position variable's limit
    (``variable_velocity_limits``); a FLOATING joint's ``[w (3); v (3)]`` take the limits of
    its quaternion and translation variables. ``inf`` where no limit is specified [rad/s, m/s].
    """
    return _plan(model).velocity_limits_v


def _rates(model: RobotModel, p: _BoundsPlan, qdot: ArrayLike, sel: _Selection,
           function: str) -> tuple[FloatArray, FloatArray, BoolArray]:
    """``(rates, limits, selected)`` for ``(..., nq)`` variable rates or ``(..., nv)`` v."""
    try:
        a = np.asarray(qdot, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: qdot is not numeric: {err}') from err
    if a.ndim >= 1 and a.shape[-1] == model.nq:
        limits, selected = np.asarray(model.variable_velocity_limits, np.float64), sel.var
    elif a.ndim >= 1 and a.shape[-1] == model.nv:
        limits, selected = p.velocity_limits_v, sel.v
    else:
        raise InvalidArgumentError(f'{function}: qdot must have shape (..., {model.nq}) or '
                                   f'(..., {model.nv}), got {a.shape}')
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f'{function}: qdot contains NaN or inf')
    return a, limits, selected


# ---------------------------------------------------------------------------- satisfies


def satisfies_position_bounds(model: RobotModel, q: ArrayLike, margin: float = 0.0,
                              variables: Variables = None) -> BoolArray:
    """Whether positions are within their bounds (RS-135, RS-136).

    Revolute and prismatic variables must satisfy ``lower - margin <= q <= upper + margin``
    (a positive ``margin`` widens the bounds, a negative one tightens them). Continuous joints,
    planar x/y/theta, rpy_floating variables and floating translations are unbounded and
    always satisfy. A FLOATING joint's quaternion must have unit length:
    ``|‖quat‖² - 1| <=`` :data:`QUATERNION_NORM_TOLERANCE` (margin not applied). Mimic
    variables are not checked.

    Args:
        model: The robot model.
        q: ``(..., nq)`` positions [rad, m].
        margin: Bound widening [rad or m, per variable].
        variables: Optional subset of variables (index array or mask; whole joints).

    Returns:
        ``(...)`` bool: every selected active variable satisfies its bounds.

    Raises:
        InvalidArgumentError: Bad shape, non-finite ``q`` or ``margin``, bad ``variables``.
    """
    function = 'satisfies_position_bounds'
    a = _positions(model, q, function)
    m = float(_finite(margin, function, 'margin'))
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    ok = np.ones(a.shape[:-1], dtype=bool)
    checked = sel.var & p.bounded
    if checked.any():
        x = a[..., checked]
        lower = np.asarray(model.variable_lower)[checked] - m
        upper = np.asarray(model.variable_upper)[checked] + m
        ok &= np.all((x >= lower) & (x <= upper), axis=-1)
    fq = p.floating_quat_q[sel.joint[p.floating]]
    if fq.size:
        norm2 = np.einsum('...i,...i->...', a[..., fq], a[..., fq])
        ok &= np.all(np.abs(norm2 - 1.0) <= QUATERNION_NORM_TOLERANCE, axis=-1)
    return np.asarray(ok)


def satisfies_velocity_bounds(model: RobotModel, qdot: ArrayLike, margin: float = 0.0,
                              variables: Variables = None) -> BoolArray:
    """Whether every selected velocity satisfies ``|qdot| <= limit + margin`` (RS-135/136).

    Args:
        model: The robot model.
        qdot: ``(..., nq)`` rates of the position variables, or ``(..., nv)`` velocity
            variables (limits from :func:`velocity_limits_v`); the two agree when ``nq == nv``.
            Unspecified limits are ``inf`` and always satisfied [rad/s, m/s].
        margin: Limit widening [rad/s or m/s].
        variables: Optional subset of *position* variables (whole joints).

    Returns:
        ``(...)`` bool.

    Raises:
        InvalidArgumentError: Bad shape, non-finite values, bad ``variables``.
    """
    function = 'satisfies_velocity_bounds'
    m = float(_finite(margin, function, 'margin'))
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    a, limits, selected = _rates(model, p, qdot, sel, function)
    ok = np.all(np.abs(a[..., selected]) <= limits[selected] + m, axis=-1)
    return np.asarray(ok)


def satisfies_bounds(model: RobotModel, q: ArrayLike, qdot: ArrayLike | None = None,
                     margin: float = 0.0, variables: Variables = None) -> BoolArray:
    """Position bounds, and velocity bounds when ``qdot`` is given (RS-135).

    MoveIt checks velocities only when the state has them; pass ``qdot=None`` for "no
    velocities". See :func:`satisfies_position_bounds` and :func:`satisfies_velocity_bounds`.

    Returns:
        ``(...)`` bool, the batch shapes of ``q`` and ``qdot`` broadcast.
    """
    ok = satisfies_position_bounds(model, q, margin, variables)
    if qdot is not None:
        ok = np.asarray(ok & satisfies_velocity_bounds(model, qdot, margin, variables))
    return ok


# ---------------------------------------------------------------------------- enforce/harmonize


def enforce_position_bounds(model: RobotModel, q: ArrayLike,
                            variables: Variables = None) -> FloatArray:
    """Bring positions into their bounds (RS-132, RS-133); returns a new array.

    * revolute and prismatic variables are clipped to ``[lower, upper]``;
    * continuous joints, planar theta and rpy_floating roll/pitch/yaw are wrapped into
      ``[-π, π)`` (the pose is unchanged);
    * FLOATING quaternions are normalized unless already unit within ``100 eps`` (on the
      squared norm); a zero quaternion becomes the identity ``(0, 0, 0, 1)`` (MoveIt
      ``normalizeRotation``);
    * unbounded translations are left alone;
    * mimic variables are recomputed from their sources.

    Variables that already satisfy their bounds are returned bit for bit, so enforcing is
    idempotent and leaves valid configurations unchanged.

    Args:
        model: The robot model.
        q: ``(..., nq)`` positions.
        variables: Optional subset of variables (whole joints); the others are unchanged
            (except mimic variables, which always follow their source).

    Returns:
        ``(..., nq)`` positions satisfying :func:`satisfies_position_bounds`.

    Raises:
        InvalidArgumentError: Bad shape, non-finite ``q``, bad ``variables``.
    """
    function = 'enforce_position_bounds'
    out = np.array(_positions(model, q, function), dtype=np.float64)
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    clipped = sel.var & p.bounded
    out[..., clipped] = np.clip(out[..., clipped], np.asarray(model.variable_lower)[clipped],
                                np.asarray(model.variable_upper)[clipped])
    angles = sel.var & (p.circle | p.orientation_angle)
    out[..., angles] = wrap_angle(out[..., angles])
    fq = p.floating_quat_q[sel.joint[p.floating]]
    if fq.size:
        out[..., fq] = normalize_quat_xyzw_or_identity(out[..., fq])
    return model.apply_mimic(out)


def enforce_velocity_bounds(model: RobotModel, qdot: ArrayLike,
                            variables: Variables = None) -> FloatArray:
    """Clip velocities to ``[-limit, limit]`` (RS-133); returns a new array.

    Args:
        model: The robot model.
        qdot: ``(..., nq)`` variable rates or ``(..., nv)`` velocity variables (see
            :func:`satisfies_velocity_bounds`).
        variables: Optional subset of position variables (whole joints). Mimic velocities are
            never changed.

    Returns:
        The clipped velocities, same shape as ``qdot``.

    Raises:
        InvalidArgumentError: Bad shape, non-finite values, bad ``variables``.
    """
    function = 'enforce_velocity_bounds'
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    a, limits, selected = _rates(model, p, qdot, sel, function)
    out = np.array(a, dtype=np.float64)
    out[..., selected] = np.clip(out[..., selected], -limits[selected], limits[selected])
    return out


def harmonize_positions(model: RobotModel, q: ArrayLike,
                        variables: Variables = None) -> FloatArray:
    """Shift angles by multiples of 2π without changing the pose (RS-134, ``harmonizePosition``).

    The exact rule (MoveIt ``RevoluteJointModel::harmonizePosition``) for a revolute variable
    ``v`` with bounds ``[lo, hi]``:

    * ``lo <= v <= hi``: unchanged;
    * ``v < lo``: ``v + k·2π`` with the largest integer ``k >= 0`` such that
      ``v + k·2π <= hi``;
    * ``v > hi``: ``v - k·2π`` with the largest integer ``k >= 0`` such that
      ``v - k·2π >= lo``.

    So a value outside the bounds lands inside them whenever some multiple of 2π does (always
    when ``hi - lo >= 2π``), and otherwise moves as far toward them as it can without passing
    the opposite bound. Continuous joints, planar theta and rpy_floating roll/pitch/yaw are
    wrapped into ``[-π, π)``. Prismatic variables, translations and quaternions are untouched;
    mimic variables are recomputed from their sources.

    Args:
        model: The robot model.
        q: ``(..., nq)`` positions.
        variables: Optional subset of variables (whole joints).

    Returns:
        ``(..., nq)`` harmonized positions; forward kinematics is unchanged.

    Raises:
        InvalidArgumentError: Bad shape, non-finite ``q``, bad ``variables``.
    """
    function = 'harmonize_positions'
    out = np.array(_positions(model, q, function), dtype=np.float64)
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    rev = sel.var & p.revolute
    if rev.any():
        v = out[..., rev]
        lo = np.asarray(model.variable_lower)[rev]
        hi = np.asarray(model.variable_upper)[rev]
        up = v + np.floor((hi - v) / _TWO_PI) * _TWO_PI
        up = np.where(up > hi, up - _TWO_PI, up)  # guard against rounding past hi
        down = v - np.floor((v - lo) / _TWO_PI) * _TWO_PI
        down = np.where(down < lo, down + _TWO_PI, down)
        out[..., rev] = np.where(v < lo, np.maximum(up, v), np.where(v > hi,
                                                                     np.minimum(down, v), v))
    angles = sel.var & (p.circle | p.orientation_angle)
    out[..., angles] = wrap_angle(out[..., angles])
    return model.apply_mimic(out)


def min_distance_to_position_bounds(model: RobotModel, q: ArrayLike,
                                    variables: Variables = None) -> tuple[FloatArray, IntArray]:
    """Smallest distance of a bounded variable to one of its bounds (RS-137).

    MoveIt ``getMinDistanceToPositionBounds``: over the selected active revolute and prismatic
    variables (continuous, planar, floating and rpy_floating joints are skipped), the minimum
    of ``|q - lower|`` and ``|q - upper|``. As in MoveIt the distance is unsigned, so a value
    *outside* its bounds reports its distance to the nearer bound; check
    :func:`satisfies_position_bounds` first. Ties go to the lowest variable index.

    Args:
        model: The robot model.
        q: ``(..., nq)`` positions.
        variables: Optional subset of variables (whole joints).

    Returns:
        ``(distance, variable_index)``, both of batch shape ``(...)``: the distance [rad or m]
        and the index into ``q`` of the variable where it occurs.

    Raises:
        InvalidArgumentError: Bad shape, non-finite ``q``, bad ``variables``, or the selection
            has no bounded variable (MoveIt would return ``DBL_MAX`` and no joint).
    """
    function = 'min_distance_to_position_bounds'
    a = _positions(model, q, function)
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    candidates = np.flatnonzero(sel.var & p.bounded).astype(np.intp)
    if not candidates.size:
        raise InvalidArgumentError(f'{function}: the selection has no bounded (revolute or '
                                   'prismatic) active variable')
    x = a[..., candidates]
    d = np.minimum(np.abs(x - np.asarray(model.variable_lower)[candidates]),
                   np.abs(x - np.asarray(model.variable_upper)[candidates]))
    k = np.argmin(d, axis=-1)
    dist = np.take_along_axis(d, k[..., None], axis=-1)[..., 0]
    return np.asarray(dist), np.asarray(candidates[k])


# ---------------------------------------------------------------------------- distance


def joint_distances(model: RobotModel, q0: ArrayLike, q1: ArrayLike,
                    variables: Variables = None,
                    angular_weight: PerJoint | None = None) -> FloatArray:
    """Distance between two configurations per joint (the terms of :func:`distance`, RS-130).

    Per joint type (MoveIt ``JointModel::distance``): revolute and prismatic ``|Δq|``;
    continuous ``|wrap(Δq)|`` (shortest arc); holonomic planar ``‖Δ(x, y)‖ + w·|wrap(Δθ)|``;
    diff-drive planar (SRDF ``motion_model``) ``‖Δ(x, y)‖ + w·(|turn₁| + |turn₂|)``, the
    turns of MoveIt's turn-drive-turn path (driving forwards or backwards, whichever turns
    less; no first turn below ``min_translational_distance``); floating
    ``‖Δt‖ + w·2·acos|⟨quat0, quat1⟩|`` (the rotation angle, Eigen's ``angularDistance``;
    ``quat`` and ``-quat`` are the same rotation); rpy_floating ``‖Δt‖ + w·angle(R1 R0ᵀ)``.
    ``w`` is the joint's angular weight (MoveIt ``angular_distance_weight``), so multi-DOF
    terms add metres and radians. Every holonomic term is a metric, so their sum satisfies the
    triangle inequality.

    Args:
        model: The robot model.
        q0: ``(..., nq)`` positions.
        q1: ``(..., nq)`` positions (batch shapes broadcast).
        variables: Optional subset of variables (whole joints).
        angular_weight: Weight of the rotation term of planar, floating and rpy_floating joints:
            ``None`` (the model's ``joint_angular_distance_weights``, from the SRDF), a scalar,
            a ``(J,)`` array, an array over the selected active joints, or a mapping joint
            name → weight (omitted joints: 1).

    Returns:
        ``(..., J)`` non-negative distances, model joint order; 0 for fixed, mimic and
        unselected joints.

    Raises:
        InvalidArgumentError: Bad shapes, non-finite values, zero quaternions, bad
            ``variables`` or weights.
    """
    function = 'joint_distances'
    a = _positions(model, q0, function, 'q0')
    b = _positions(model, q1, function, 'q1')
    batch = _batch_shape(function, a.shape[:-1], b.shape[:-1])
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    w_ang = _angular_weights(model, sel, angular_weight, function)
    return _joint_distances(p, sel, a, b, batch, w_ang, model.joint_count, function)


def _angular_weights(model: RobotModel, sel: _Selection, angular_weight: PerJoint | None,
                     function: str) -> FloatArray:
    if angular_weight is None:
        return np.asarray(model.joint_angular_distance_weights, dtype=np.float64)
    return _per_joint(model, sel, angular_weight, function, 'angular_weight', 1.0)


def _joint_distances(p: _BoundsPlan, sel: _Selection, a: FloatArray, b: FloatArray,
                     batch: tuple[int, ...], w_ang: FloatArray, J: int,
                     function: str) -> FloatArray:
    out = np.zeros((*batch, J))
    for t in p.types:  # each joint type's distance, on its selected joints at once
        keep = sel.joint[t.joints]
        if keep.any():
            js, qs, m = t.joints[keep], t.q[keep], t.module
            params = replace(t.parameters[keep], angular_weight=w_ang[js])
            out[..., js] = m.distance(m.prepare(a[..., qs], function, 'q0'),
                                      m.prepare(b[..., qs], function, 'q1'), params)
    return out


def distance(model: RobotModel, q0: ArrayLike, q1: ArrayLike, variables: Variables = None,
             weights: PerJoint | None = None,
             angular_weight: PerJoint | None = None) -> FloatArray:
    """Weighted sum of the per-joint distances over the active joints (RS-130).

    ``distance = Σ_j weights[j] · joint_distances[j]`` (see :func:`joint_distances` for the
    per-type terms). By default ``weights`` are MoveIt's per-joint distance factors
    (``model.joint_distance_factors``: 3 for planar, 6 for floating joints), which makes this
    MoveIt's ``RobotModel::distance`` (``RobotState::distance`` of the whole state or of a
    group). Symmetric, zero for equal configurations (and for ``quat`` vs ``-quat``), and
    satisfies the triangle inequality for non-negative weights and holonomic planar joints.

    Args:
        model: The robot model.
        q0: ``(..., nq)`` positions.
        q1: ``(..., nq)`` positions (batch shapes broadcast).
        variables: Optional subset of variables (whole joints), e.g. a group's
            ``variable_indices``.
        weights: Per-joint factors: ``None`` (the model's ``joint_distance_factors``), a
            scalar, a ``(J,)`` array, an array over the selected active joints, or a mapping
            joint name → factor (omitted joints: 1). ``weights=1.0`` sums the plain joint
            distances (MoveIt's ``distance(other, joint)`` for a single joint).
        angular_weight: Rotation weight of multi-DOF joints (see :func:`joint_distances`;
            ``None``: the model's, from the SRDF).

    Returns:
        ``(...)`` distances (metres and radians summed).

    Raises:
        InvalidArgumentError: Bad shapes, non-finite values, zero quaternions, bad
            ``variables``, negative weights.
    """
    function = 'distance'
    a = _positions(model, q0, function, 'q0')
    b = _positions(model, q1, function, 'q1')
    batch = _batch_shape(function, a.shape[:-1], b.shape[:-1])
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    w_ang = _angular_weights(model, sel, angular_weight, function)
    w = (np.asarray(model.joint_distance_factors, dtype=np.float64) if weights is None
         else _per_joint(model, sel, weights, function, 'weights', 1.0))
    d = _joint_distances(p, sel, a, b, batch, w_ang, model.joint_count, function)
    return np.asarray(d @ np.where(sel.joint, w, 0.0))


# ---------------------------------------------------------------------------- interpolation


def interpolate(model: RobotModel, q0: ArrayLike, q1: ArrayLike, t: ArrayLike,
                variables: Variables = None) -> FloatArray:
    """Configuration at fraction ``t`` of the way from ``q0`` to ``q1`` (RS-131).

    Per joint type: revolute, prismatic and translations ``(1 - t)·q0 + t·q1``; continuous
    joints and planar theta along the shortest arc, result wrapped into ``[-π, π)``;
    ``diff_drive`` planar joints along MoveIt's turn-drive-turn path (``t`` split between the
    legs by their lengths, turns weighted by the angular weight); FLOATING
    quaternions by shortest-path slerp (``quat1`` and ``-quat1`` give the same path; constant
    angular rate); rpy_floating orientations along the rotation geodesic
    ``R(t) = exp(t·log(R1 R0ᵀ)) R0``, converted back to wrapped roll/pitch/yaw. Mimic
    variables are recomputed from their sources.

    Endpoints are exact: where ``t == 0`` the selected variables equal ``q0`` and where
    ``t == 1`` they equal ``q1``, bit for bit when the endpoint is valid (otherwise its angles
    are wrapped into ``[-π, π)`` and its quaternions normalized, sign kept). In between,
    quaternions stay in ``q0``'s hemisphere and rpy angles take the canonical representation
    (pitch in ``[-π/2, π/2]``), so coordinates may jump at ``t == 1`` while the pose does not.

    ``t`` outside ``[0, 1]`` extrapolates along the same path (no warning, no clipping: the
    result can leave the bounds; see :func:`enforce_position_bounds`).

    Args:
        model: The robot model.
        q0: ``(..., nq)`` start positions.
        q1: ``(..., nq)`` end positions.
        t: ``(...)`` fraction(s); batch shapes of ``q0``, ``q1`` and ``t`` broadcast.
        variables: Optional subset of variables (whole joints); the other variables are
            copied from ``q0``.

    Returns:
        ``(..., nq)`` positions.

    Raises:
        InvalidArgumentError: ``t`` is NaN or infinite, bad shapes, non-finite positions,
            zero quaternions, bad ``variables``.
    """
    function = 'interpolate'
    a = _positions(model, q0, function, 'q0')
    b = _positions(model, q1, function, 'q1')
    try:
        tt = np.asarray(t, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: t is not numeric: {err}') from err
    if not np.all(np.isfinite(tt)):
        raise InvalidArgumentError(f'{function}: t must be finite, got {t!r}')
    batch = _batch_shape(function, a.shape[:-1], b.shape[:-1], tt.shape)
    a = np.broadcast_to(a, (*batch, model.nq))
    b = np.broadcast_to(b, (*batch, model.nq))
    tt = np.broadcast_to(tt, batch)
    T = tt[..., None]
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    out = np.array(a, dtype=np.float64)
    for jt in p.types:  # each joint type's interpolation, on its selected joints at once
        keep = sel.joint[jt.joints]
        if keep.any():
            qs, m = jt.q[keep], jt.module
            out[..., qs] = m.interpolate(m.prepare(a[..., qs], function, 'q0'),
                                         m.prepare(b[..., qs], function, 'q1'), T,
                                         jt.parameters[keep])
    at_start = (tt == 0.0)[..., None] & sel.var
    at_end = (tt == 1.0)[..., None] & sel.var
    if at_start.any():
        out = np.where(at_start, _canonical(p, a, sel, function, 'q0'), out)
    if at_end.any():
        out = np.where(at_end, _canonical(p, b, sel, function, 'q1'), out)
    return model.apply_mimic(out)


# ---------------------------------------------------------------------------- sampling


def random_positions(model: RobotModel, rng: np.random.Generator | int | None,
                     variables: Variables = None, base: ArrayLike | None = None, *,
                     size: int | tuple[int, ...] | None = None,
                     translation_range: float = DEFAULT_RANDOM_TRANSLATION_RANGE) -> FloatArray:
    """Uniformly random positions (MoveIt ``setToRandomPositions``).

    * revolute and prismatic: uniform in ``[lower, upper]``;
    * continuous joints and planar theta: uniform in ``[-π, π)``;
    * unbounded translations (planar x/y, floating and rpy_floating xyz): uniform in
      ``[-translation_range, translation_range]`` (MoveIt samples 0 there);
    * FLOATING quaternions and rpy_floating orientations: uniform on SO(3) (normalized
      Gaussian quaternions; rpy angles extracted, pitch in ``[-π/2, π/2]``);
    * mimic variables follow their sources.

    Random draws do not depend on ``variables``: one seed gives every variable the same
    value whatever subset is sampled.

    Args:
        model: The robot model.
        rng: A ``numpy.random.Generator`` (advanced), or a seed for a new one.
        variables: Optional subset of variables (whole joints) to sample; the others come from
            ``base``.
        base: ``(..., nq)`` positions for the unsampled variables (default: the model's
            default positions).
        size: Extra batch shape, broadcast against ``base``'s batch shape.
        translation_range: Half-width [m] of the box for unbounded translations.

    Returns:
        ``(..., nq)`` positions satisfying :func:`satisfies_position_bounds`.

    Raises:
        InvalidArgumentError: Bad ``base``, ``variables`` or ``translation_range``.
    """
    function = 'random_positions'
    gen = _rng(rng)
    r = float(_finite(translation_range, function, 'translation_range'))
    if not 0.0 <= r <= MAX_COORDINATE:
        raise InvalidArgumentError(f'{function}: translation_range must be in [0, '
                                   f'{MAX_COORDINATE:g}] m, got {r}')
    start = (np.asarray(model.default_positions, np.float64) if base is None
             else _positions(model, base, function, 'base'))
    batch = _batch_shape(function, start.shape[:-1], _size(size))
    out = np.array(np.broadcast_to(start, (*batch, model.nq)))
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    lower = np.where(p.translation, -r, np.where(p.circle, -math.pi, model.variable_lower))
    upper = np.where(p.translation, r, np.where(p.circle, math.pi, model.variable_upper))
    scalar = p.bounded | p.translation | p.circle
    lower, upper = np.where(scalar, lower, 0.0), np.where(scalar, upper, 0.0)
    u = gen.random((*batch, model.nq))
    chosen = sel.var & scalar
    out[..., chosen] = (lower + u * (upper - lower))[..., chosen]
    for t in _orientation_types(p):  # uniform on SO(3), drawn for every such joint
        drawn = t.module.random_orientations(gen, (*batch, t.joints.size))
        keep = sel.joint[t.joints]
        if keep.any():
            out[..., t.q[keep][:, list(t.module.ORIENTATION_VARIABLES)]] = drawn[..., keep, :]
    return model.apply_mimic(out)


def random_positions_near(model: RobotModel, rng: np.random.Generator | int | None,
                          near: ArrayLike, distance: PerJoint, variables: Variables = None, *,
                          size: int | tuple[int, ...] | None = None) -> FloatArray:
    """Random positions near ``near`` (MoveIt ``setToRandomPositionsNearBy``).

    With ``d`` the distance of a joint (one number per joint, used in metres for its
    translations and radians for its rotations, as in MoveIt):

    * revolute and prismatic: uniform in ``[near - d, near + d] ∩ [lower, upper]`` (if
      ``near`` lies more than ``d`` outside its bounds, the nearest bound);
    * continuous joints and planar theta: uniform in ``[near - d, near + d]``, then wrapped;
    * translations: uniform in ``[near - d, near + d]`` per coordinate;
    * FLOATING and rpy_floating orientations: ``near`` rotated by a random rotation vector
      uniform in the ball of radius ``min(d, π)``, so the rotation angle to ``near`` is
      at most ``d``;
    * mimic variables follow their sources.

    Hence, per joint, :func:`joint_distances` to ``near`` is at most ``d`` for 1-DOF joints,
    ``(√2 + w)·d`` for planar and ``(√3 + w)·d`` for floating and rpy_floating joints
    (``w`` = angular weight), when ``near`` is within bounds.

    Args:
        model: The robot model.
        rng: A ``numpy.random.Generator`` (advanced), or a seed for a new one.
        near: ``(..., nq)`` seed positions.
        distance: Maximum distance: a scalar for every joint, a ``(J,)`` array over the model
            joints, an array over the selected active joints (MoveIt's vector, E11), or a
            mapping joint name → distance that must cover every selected active joint.
            Non-negative [m or rad].
        variables: Optional subset of variables (whole joints); the others are copied from
            ``near``.
        size: Extra batch shape, broadcast against ``near``'s batch shape.

    Returns:
        ``(..., nq)`` positions.

    Raises:
        InvalidArgumentError: Bad ``near``, ``variables`` or ``distance`` (negative, wrong
            length, missing joints), zero quaternions in ``near``.
        UnknownNameError: ``distance`` names an unknown joint.
    """
    function = 'random_positions_near'
    gen = _rng(rng)
    a = _positions(model, near, function, 'near')
    batch = _batch_shape(function, a.shape[:-1], _size(size))
    a = np.broadcast_to(a, (*batch, model.nq))
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    d_joint = _per_joint(model, sel, distance, function, 'distance', None)
    d = d_joint[p.variable_joint]
    u = gen.random((*batch, model.nq))
    out = np.array(a, dtype=np.float64)
    lower = np.asarray(model.variable_lower)
    upper = np.asarray(model.variable_upper)
    boxed = sel.var & (p.bounded | p.translation)
    x, db = a[..., boxed], d[boxed]
    lo = np.maximum(lower[boxed], x - db)
    hi = np.minimum(upper[boxed], x + db)
    empty = lo > hi
    nearest = np.clip(x, lower[boxed], upper[boxed])
    lo, hi = np.where(empty, nearest, lo), np.where(empty, nearest, hi)
    out[..., boxed] = lo + u[..., boxed] * (hi - lo)
    circle = sel.var & p.circle
    out[..., circle] = wrap_angle(a[..., circle] + d[circle] * (2.0 * u[..., circle] - 1.0))
    for t in _orientation_types(p):  # rotated by at most d, drawn for every such joint
        rotvecs = random_rotation_vectors(gen, (*batch, t.joints.size), d_joint[t.joints])
        keep = sel.joint[t.joints]
        if keep.any():
            qs = t.q[keep]
            near_o = t.module.prepare(a[..., qs], function, 'near')[
                ..., list(t.module.ORIENTATION_VARIABLES)]
            out[..., qs[:, list(t.module.ORIENTATION_VARIABLES)]] = (
                t.module.orientations_near(near_o, rotvecs[..., keep, :]))
    return model.apply_mimic(out)


def _orientation_types(p: _BoundsPlan) -> tuple[TypeSlots, ...]:
    """The joint types of the model that have an orientation (registry order)."""
    return tuple(t for t in p.types if t.module.ORIENTATION_VARIABLES)


# ---------------------------------------------------------------------------- velocity moves


def is_valid_velocity_move(model: RobotModel, q0: ArrayLike, q1: ArrayLike, dt: ArrayLike,
                           variables: Variables = None) -> BoolArray:
    """Whether ``q0 → q1`` in ``dt`` seconds respects the velocity limits (RS-138).

    MoveIt ``isValidVelocityMove``, per velocity variable of the selected active joints:
    ``|difference(q0, q1)| <= dt · limit`` with :func:`robot_state_core.kinematics.difference`
    (shortest arc for continuous joints and planar theta, where MoveIt compares raw values;
    rotation-vector components of ``R1 R0ᵀ`` for floating and rpy_floating joints) and the
    limits of :func:`velocity_limits_v` (``inf``: unlimited).

    Args:
        model: The robot model.
        q0: ``(..., nq)`` start positions.
        q1: ``(..., nq)`` end positions.
        dt: ``(...)`` positive durations [s]; batch shapes broadcast.
        variables: Optional subset of variables (whole joints).

    Returns:
        ``(...)`` bool.

    Raises:
        InvalidArgumentError: ``dt`` not finite and positive, bad shapes, non-finite
            positions, zero quaternions, bad ``variables``.
    """
    function = 'is_valid_velocity_move'
    a = _positions(model, q0, function, 'q0')
    b = _positions(model, q1, function, 'q1')
    duration = _finite(dt, function, 'dt')
    if np.any(duration <= 0.0):
        raise InvalidArgumentError(f'{function}: dt must be positive, got {dt!r}')
    batch = _batch_shape(function, a.shape[:-1], b.shape[:-1], duration.shape)
    p = _plan(model)
    sel = _selection(model, p, variables, function)
    fq = p.floating_quat_q[sel.joint[p.floating]]
    if fq.size:
        floating.unit_quaternions(a[..., fq], function, 'q0')
        floating.unit_quaternions(b[..., fq], function, 'q1')
    dv = difference(model, a, b)[..., sel.v]
    limits = p.velocity_limits_v[sel.v]
    ok = np.all(np.abs(dv) <= duration[..., None] * limits, axis=-1)
    return np.asarray(np.broadcast_to(ok, batch))
