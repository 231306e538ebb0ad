"""The compiled kinematics plan of a model and the argument checks the kinematics share.

:class:`KinematicsPlan` holds every per-model table of FK, Jacobians and configuration-space
maps, compiled once by :func:`plan` and owned by the immutable model (``RobotModel.derived``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    all_finite,
    as_index,
    BoolArray,
    FloatArray,
    IntArray,
)
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_types import JOINT_TYPES
from robot_state_core.description.joint_types.parameters import JointParameters
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError
from robot_state_core.jit import kernels
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import check_quat_xyzw

LINK_COLUMNS_CACHE_SIZE = 1024
'''Links whose Jacobian structure is cached per model (every link of any real robot).'''


@dataclass(frozen=True)
class TypeSlots:
    """The joints of one joint type module in a model and their variables (batched math)."""

    module: ModuleType  # the type's module (:mod:`robot_state_core.description.joint_types`)
    joints: IntArray  # (k,) joint indices
    q: IntArray  # (k, NQ) their position variables
    v: IntArray  # (k, NV) their velocity variables
    parameters: JointParameters  # the model's values for them (wrap, SRDF distance properties)


@dataclass(frozen=True)
class LinkColumns:
    """Per-link Jacobian structure (the Jacobian kernel's tables): the columns moving a link.

    Writable for numba's fast argument typing (like the FK tables); nothing writes them.
    """

    columns: IntArray  # (k, 4): velocity variable, child link of its joint (the centre of
    # rotation and the 1-DOF frame), parent link if expressed in the joint frame F (else -1),
    # 1 if translational
    frames: FloatArray  # (k, 4, 3): axis in the column's frame, then R_PJ (rows) for F
    link: int  # the link's index


@dataclass(frozen=True)
class KinematicsPlan:
    """Every per-model table of FK, Jacobians and configuration-space maps, compiled once.

    Built by :func:`plan` on first use and owned by the model (``RobotModel.derived``); the
    single and the batched FK, the Jacobian, ``integrate``/``difference`` and IK's kernel
    compiler read it. Arrays are read-only.
    """

    link_count: int  # L
    joint_count: int  # J
    # Tables of the compiled FK kernel (:mod:`.compiled`), joint order (depth-first, so a
    # joint's parent link is composed before it). C-contiguous and, unlike every other plan
    # array, writable: numba types read-only arguments on a slow path (+0.5 µs per array
    # per call). Nothing writes them.
    fk_joints: IntArray  # (J, 4): kind (the type module's KERNEL_KIND), q index of the
    # joint's first variable, parent link, child link
    fk_coefficients: FloatArray  # (J, 4, 3, 4): X_PC = B0 + sin θ B1 + (1 - cos θ) B2 + θ B3
    # (top rows; B0 = X_PJ for every joint; 1-DOF joints only use the other terms)
    q_shape: tuple[int]  # (nq,): one configuration
    pose_shape: tuple[int, int, int]  # (L, 4, 4): one configuration's link poses
    jacobian_shape: tuple[int, int]  # (6, nv): one point Jacobian
    type_slots: tuple[TypeSlots, ...]  # per joint type module with moving joints in the model,
    # JOINT_TYPES order
    floating_q: IntArray  # (F, 7) variables of the floating joints
    floating_labels: tuple[str, ...]  # "FLOATING joint 'name'" per floating joint (messages)
    child: IntArray
    parent: IntArray
    # Jacobian columns, one per velocity variable (each type module's ``velocity_columns``):
    v_joint: IntArray  # (nv,) owning joint
    v_rotational: BoolArray  # (nv,)
    v_axis: FloatArray  # (nv, 3) axis in the column's frame
    v_in_joint_frame: BoolArray  # (nv,) frame is F (joint frame) rather than the child link
    q_of_v: IntArray  # (nv,) q index of 1-DOF/planar velocity variables (-1 otherwise)
    mimic_v: IntArray  # (m,) velocity index of each mimic joint
    mimic_source_v: IntArray  # (m,)
    mimic_multiplier: FloatArray
    mimic_table: FloatArray  # (m, 3): mimic velocity index, source's, multiplier (the compiled
    # fold's table, :func:`~robot_state_core.kinematics.compiled.fold_mimic`; writable, like
    # the FK tables, for numba's fast argument typing; nothing writes it)
    link_columns: dict[int, LinkColumns] = field(default_factory=dict, compare=False,
                                                  repr=False)
    '''Jacobian structure per link, filled on first use (bounded, see
    ``LINK_COLUMNS_CACHE_SIZE``): the only mutable part, a cache of pure functions of the
    model.'''
    named_link_columns: dict[str, LinkColumns] = field(default_factory=dict, compare=False,
                                                       repr=False)
    '''The same per link name, for the single-configuration fast paths (one dict lookup for
    the name's index and its tables); filled and bounded likewise.'''


_compiled: ModuleType | None = None


def compiled_kernels() -> Any:
    """The FK and Jacobian kernels (:mod:`robot_state_core.kinematics.compiled`), on first use.

    Lazy on purpose (allow-listed in ``test_import_structure``): numba costs 0.4-0.7 s to
    import, which ``import robot_state_core`` and a node's first ``/tf_static`` (fixed joints
    need no FK) should not pay. The variant the process runs
    (:func:`robot_state_core.jit.kernels.select`: the compiled module, or its interpreted twin
    while a node's kernels compile). Typed ``Any``: numba's dispatchers carry no annotations.
    """
    global _compiled
    if _compiled is None:
        from robot_state_core.kinematics import compiled
        _compiled = kernels.select(compiled)
    return _compiled


_ready = False


def ready_kernels() -> Any:
    """:func:`compiled_kernels` with the FK and Jacobian kernels compiled (or loaded from cache).

    The first call in a process compiles both kernels for their one signature (seconds with an
    empty cache, ~0.5 s to load them) by running them on empty inputs; later calls return at
    once. IK calls it before it starts its clock, so a request's timeout is never spent on
    this one-time set-up (as MoveIt loads its kinematics plugins before the first request).
    """
    global _ready
    fk = compiled_kernels()
    if not _ready and not kernels.interpreted():  # twins need no warming
        X_WL = np.zeros((1, 1, 4, 4))
        fk.forward(np.zeros((1, 0)), np.zeros((0, 4), np.intp), np.zeros((0, 4, 3, 4)),
                   np.zeros((0, 0, 4, 4)), X_WL)
        fk.point_jacobian(X_WL, 0, np.zeros((1, 3)), np.zeros((0, 4), np.intp),
                          np.zeros((0, 4, 3)), np.zeros((1, 6, 0)))
        _ready = True
    return fk


def _on_kernel_switch() -> None:
    """After a kernel switch: forget the module, the bound entry points and the warm flag."""
    global _compiled, _ready
    _compiled = None
    _ready = False
    for name in KernelEntries.__slots__:
        setattr(entries, name, None)


class KernelEntries:
    """The bound entry points of the single-configuration kernels, once they exist.

    A numba dispatcher types every argument on every call to pick its compiled signature
    (~0.8 µs of a 3.5 µs single FK here). Each of these kernels has exactly one signature
    (``test_each_kernel_compiles_one_signature``), so after its first call (compiled or loaded
    from the cache) :func:`kernel_entry` binds that signature's entry point and later calls
    skip the typing. Callers must pass exactly that signature's argument kinds (C-contiguous,
    writable float64/intp arrays of the documented ranks, Python int/float scalars): the ones
    in :mod:`.forward` and :mod:`.jacobian` check them right before the call. ``None`` until
    bound.
    """

    __slots__ = ('fold_mimic', 'forward_jacobian_one', 'forward_one', 'point_jacobian_one')

    def __init__(self) -> None:
        self.forward_one: Any = None
        self.point_jacobian_one: Any = None
        self.fold_mimic: Any = None
        self.forward_jacobian_one: Any = None


entries = KernelEntries()
'''The process's bound kernel entry points (:class:`KernelEntries`).'''
kernels.on_switch(_on_kernel_switch)


def kernel_entry(name: str) -> Any:
    """The kernel ``name`` of :class:`KernelEntries`: bound if it has its one signature.

    Before its first call, the dispatcher itself (which compiles or loads the kernel); the
    next call binds the entry point into :data:`entries`.
    """
    kernel = getattr(compiled_kernels(), name)
    entry = kernels.entry_point(kernel)
    if entry is None:  # not compiled yet, or an interpreted twin
        return kernel
    setattr(entries, name, entry)
    return entry


def plan(model: RobotModel) -> KinematicsPlan:
    """The :class:`KinematicsPlan` of ``model`` (compiled on first use, owned by the model)."""
    return model.derived(build_plan)


def build_plan(model: RobotModel) -> KinematicsPlan:
    """Build ``model``'s :class:`KinematicsPlan` (once per model).

    The builder :func:`plan` passes to ``model.derived``; hot paths call
    ``model.derived(build_plan)`` themselves (one call less than :func:`plan`). Every joint's
    numbers come from its type's module (:data:`~robot_state_core.description.joint_types.
    JOINT_TYPES`).
    """
    J, L, nq, nv = model.joint_count, model.link_count, model.nq, model.nv
    types = model.joint_types
    X_PJ = np.asarray(model.joint_origins)
    axes = np.asarray(model.joint_axes)
    child = np.asarray(model.joint_child_link)
    parent = np.asarray(model.joint_parent_link)
    parent_joint = np.asarray(model.link_parent_joint)
    q_start = np.asarray(model.joint_q_start, dtype=np.intp)
    v_start = np.asarray(model.joint_v_start, dtype=np.intp)
    if np.any(parent_joint[parent] >= np.arange(J)):  # the model's depth-first joint order
        raise RobotStateCoreError('kinematics plan: joints are not in topological order')
    fk_joints = np.stack([np.zeros(J, np.intp), q_start, parent, child], axis=1)
    B = np.zeros((J, 4, 3, 4))
    B[:, 0] = X_PJ[:, :3]
    v_rot = np.zeros(nv, dtype=bool)
    v_axis = np.zeros((nv, 3))
    v_in_f = np.zeros(nv, dtype=bool)
    bounded = np.asarray(model.variable_bounded)
    members: dict[ModuleType, list[int]] = {}
    for j, t in enumerate(types):  # plan construction (once per model), not a hot path
        module = JOINT_TYPES[t]
        fk_joints[j, 0] = module.KERNEL_KIND
        if not module.NV:
            continue
        members.setdefault(module, []).append(j)
        if hasattr(module, 'motion_coefficients'):
            B[j, 1:] = (X_PJ[j] @ module.motion_coefficients(axes[j])[1:])[:, :3]
            columns = module.velocity_columns(axes[j])
        else:
            columns = module.velocity_columns()
        v0 = v_start[j]
        v_axis[v0:v0 + module.NV], v_rot[v0:v0 + module.NV], v_in_f[v0:v0 + module.NV] = columns
    wrap = [any(not bounded[q_start[j] + a] for a in JOINT_TYPES[t].ANGLE_VARIABLES)
            for j, t in enumerate(types)]  # an unbounded angle: differences take the short arc
    parameters = JointParameters(
        wrap=_ro(wrap, np.bool_),
        angular_weight=_ro(np.asarray(model.joint_angular_distance_weights, np.float64)),
        diff_drive=_ro([m == 'diff_drive' for m in model.joint_motion_models], np.bool_),
        min_translation=_ro(np.asarray(model.joint_min_translational_distances, np.float64)))
    slots = []
    for module in dict.fromkeys(JOINT_TYPES.values()):  # registry order (sampling draws in it)
        if module not in members:
            continue
        js = np.array(members[module], dtype=np.intp)
        slots.append(TypeSlots(
            module=module, joints=_ro(js, np.intp),
            q=_ro((q_start[js][:, None] + np.arange(module.NQ)).reshape(-1, module.NQ), np.intp),
            v=_ro((v_start[js][:, None] + np.arange(module.NV)).reshape(-1, module.NV), np.intp),
            parameters=parameters[js]))
    v_joint = np.repeat(np.arange(J, dtype=np.intp), np.asarray(model.joint_nv))
    one_q = np.asarray([JOINT_TYPES[types[j]].NQ == JOINT_TYPES[types[j]].NV for j in v_joint],
                       dtype=bool)
    q_of_v = np.where(one_q, q_start[v_joint] + (np.arange(nv) - v_start[v_joint]), -1)
    q_to_v = np.full(nq, -1, dtype=np.intp)
    q_to_v[q_of_v[q_of_v >= 0]] = np.flatnonzero(q_of_v >= 0)
    mimic_v = q_to_v[np.asarray(model.mimic_variable)]
    mimic_src_v = q_to_v[np.asarray(model.mimic_source)]
    floating_joints = [j for j, t in enumerate(types) if t is JointType.FLOATING]
    return KinematicsPlan(
        link_count=L, joint_count=J,
        fk_joints=np.ascontiguousarray(fk_joints), fk_coefficients=np.ascontiguousarray(B),
        q_shape=(nq,), pose_shape=(L, 4, 4), jacobian_shape=(6, nv),
        type_slots=tuple(slots),
        floating_q=_ro((q_start[floating_joints][:, None] + np.arange(7)).reshape(-1, 7),
                       np.intp),
        floating_labels=tuple(f'FLOATING joint {model.joint_names[j]!r}'
                              for j in floating_joints),
        child=_ro(child, np.intp), parent=_ro(parent, np.intp),
        v_joint=_ro(v_joint, np.intp), v_rotational=_ro(v_rot, np.bool_), v_axis=_ro(v_axis),
        v_in_joint_frame=_ro(v_in_f, np.bool_),
        q_of_v=_ro(q_of_v, np.intp), mimic_v=_ro(mimic_v, np.intp),
        mimic_source_v=_ro(mimic_src_v, np.intp),
        mimic_multiplier=_ro(np.asarray(model.mimic_multiplier)),
        mimic_table=np.ascontiguousarray(np.stack(
            [mimic_v, mimic_src_v, np.asarray(model.mimic_multiplier)], axis=1).reshape(-1, 3),
            dtype=np.float64))


FLOAT64 = np.dtype(np.float64)
'''The float64 dtype (hot paths compare a dtype with ``is``: an equal non-native dtype is not
this object and takes the general path).'''


def check_configuration(model: RobotModel, q: ArrayLike, function: str, name: str = 'q',
                        finite: bool = True) -> tuple[FloatArray, KinematicsPlan]:
    """``q`` as float64 ``(..., nq)``, finite, with usable quaternions; and the model's plan.

    Args:
        model: The robot model.
        q: The configuration(s).
        function: The caller's name (messages).
        name: The argument's name (messages).
        finite: Test the values here (:func:`check_values`). ``False`` only for a caller that
            runs a single-configuration kernel, which tests them itself
            (:func:`~robot_state_core.kinematics.compiled.configuration_status`; the caller
            raises :func:`configuration_error`), or that calls :func:`check_values` itself.

    Raises:
        InvalidArgumentError: Not numeric, wrong shape, NaN or inf, or a FLOATING joint's
            quaternion that is degenerate
            (:func:`~robot_state_core.spatial.transforms.check_quat_xyzw`).
    """
    if type(q) is np.ndarray and q.dtype == FLOAT64:
        a = q
    else:
        try:
            a = np.asarray(q, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise InvalidArgumentError(f'{function}: {name} is not numeric ({err})') from err
    shape = a.shape
    if not shape or shape[-1] != model.nq:
        raise InvalidArgumentError(f'{function}: {name} must have shape (..., {model.nq}), got '
                                   f'{shape}')
    p = model.derived(build_plan)
    if finite:
        check_values(p, a, function, name)
    return a, p


def check_values(p: KinematicsPlan, a: FloatArray, function: str, name: str = 'q') -> None:
    """Refuse NaN or inf in ``a`` ``(..., nq)`` and FLOATING joints' degenerate quaternions.

    Raises:
        InvalidArgumentError: Naming ``function``, ``name`` and the first offending joint.
    """
    # A Python sum is the cheapest finiteness test of one small configuration (NaN and inf
    # propagate; only values near 1e308, unusable anyway, can overflow it).
    if not (math.isfinite(sum(a.tolist())) if a.ndim == 1 and a.shape[0] <= 64
            else all_finite(a)):
        raise not_finite(function, name)
    if p.floating_labels:
        check_quat_xyzw(a[..., p.floating_q[:, 3:]], function,
                        f'{name}: the quaternion (rot_x, rot_y, rot_z, rot_w)',
                        p.floating_labels)


def configuration_error(p: KinematicsPlan, q: FloatArray, status: int,
                        function: str) -> InvalidArgumentError:
    """The error of a configuration a kernel found unusable (its nonzero status).

    :func:`check_values`' error for ``q`` ``(nq,)``: the kernels return only a status code
    (:func:`~robot_state_core.kinematics.compiled.configuration_status`); the message naming
    the offending joint is built here, on the error path only.
    """
    try:
        check_values(p, q, function)
    except InvalidArgumentError as err:
        return err
    return not_finite(function)  # pragma: no cover - the kernel and check_values agree


def not_finite(function: str, name: str = 'q') -> InvalidArgumentError:
    """The error of a configuration with NaN or inf (:func:`check_values`')."""
    return InvalidArgumentError(f'{function}: {name} contains NaN or inf')


def check_point(point: ArrayLike, function: str, name: str) -> FloatArray:
    """A finite ``(..., 3)`` point [m]."""
    try:
        a = np.asarray(point, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: {name} is not numeric ({err})') from err
    if a.ndim == 0 or a.shape[-1] != 3:
        raise InvalidArgumentError(f'{function}: {name} must have shape (3,) or (..., 3), got '
                                   f'{a.shape}')
    if not all_finite(a):
        raise InvalidArgumentError(f'{function}: {name} contains NaN or inf: {a.tolist()}')
    return a


def broadcast_batch(a: FloatArray, b: FloatArray, function: str, name: str) -> tuple[int, ...]:
    """The broadcast batch shape of two ``(..., n)`` arrays; InvalidArgumentError if none."""
    try:
        return np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError as err:
        raise InvalidArgumentError(f'{function}: batch shape of {name} {b.shape[:-1]} does not '
                                   f'broadcast against {a.shape[:-1]}') from err


def check_link(model: RobotModel, link: object, function: str) -> int:
    """A link name or index as a validated index (negative and float indices are refused)."""
    if isinstance(link, str):
        return int(model.link_index(link))
    return as_index(link, model.link_count, function, 'link index')
