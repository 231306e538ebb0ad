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
from robot_state_core.description.joint_motion import one_dof_motion_coefficients
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError
from robot_state_core.jit import kernels
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import check_quat_xyzw, plane_basis

_ONE_DOF = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)

LINK_COLUMNS_CACHE_SIZE = 1024
'''Links whose Jacobian structure is cached per model (every link of any real robot).'''
_DENSE_FOLD_MAX_NV = 64
'''Largest ``nv`` for which the mimic fold is one dense ``(nv, nv)`` product (32 kB); larger
models fold with index arithmetic, so the plan stays O(links + joints) in memory.'''


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
    fk_joints: IntArray  # (J, 5): kind (0 fixed, 1 revolute/continuous, 2 multi-DOF,
    # 3 prismatic), q index of a 1-DOF joint's variable, row of a multi-DOF joint in the
    # motions array, parent link, child link
    fk_coefficients: FloatArray  # (J, 4, 3, 4): X_PC = B0 + sin θ B1 + (1 - cos θ) B2 + θ B3
    # (top rows; B0 = X_PJ for every joint)
    fk_multi_count: int  # K: multi-DOF joints (planar, then floating, then rpy_floating)
    single_q_shape: tuple[int, ...] | None  # (nq,) when one configuration may take the
    # single-configuration fast path of :mod:`.forward` / :mod:`.jacobian` (no multi-DOF
    # joints: their motions and quaternion tests need numpy before the kernel), else None
    pose_shape: tuple[int, int, int]  # (L, 4, 4): one configuration's link poses
    jacobian_shape: tuple[int, int]  # (6, nv): one point Jacobian
    planar: IntArray
    planar_q: IntArray  # (P, 3)
    planar_basis: FloatArray  # (P, 3, 3)
    floating: IntArray
    floating_q: IntArray  # (F, 7)
    floating_labels: tuple[str, ...]  # "FLOATING joint 'name'" per floating joint (messages)
    rpy: IntArray
    rpy_q: IntArray  # (R, 6)
    child: IntArray
    parent: IntArray
    # Jacobian columns, one per velocity variable:
    v_joint: IntArray  # (nv,) owning joint
    v_rotational: BoolArray  # (nv,)
    v_axis: FloatArray  # (nv, 3) axis in the column's frame
    v_in_joint_frame: BoolArray  # (nv,) frame is F (joint frame) rather than the child link
    q_of_v: IntArray  # (nv,) q index of 1-DOF/planar velocity variables (-1 otherwise)
    mimic_v: IntArray  # (m,) velocity index of each mimic joint
    mimic_source_v: IntArray  # (m,)
    mimic_multiplier: FloatArray
    mimic_fold: FloatArray | None  # (nv, nv): J_folded = J @ mimic_fold; None for large nv
    mimic_table: FloatArray  # (m, 3): mimic velocity index, source's, multiplier (the compiled
    # fold's table, :func:`~robot_state_core.kinematics.compiled.fold_mimic`; writable, like
    # the FK tables, for numba's fast argument typing; nothing writes it)
    angle_variables: IntArray  # q indices of angles that wrap (continuous, planar theta)
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
        fk.forward(np.zeros((1, 0)), np.zeros((0, 5), np.intp), np.zeros((0, 4, 3, 4)),
                   np.zeros((1, 0, 4, 4)), np.zeros((0, 0, 4, 4)), X_WL)
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
    ``model.derived(build_plan)`` themselves (one call less than :func:`plan`).
    """
    J, L, nq, nv = model.joint_count, model.link_count, model.nq, model.nv
    types = model.joint_types
    X_PJ = np.asarray(model.joint_origins)
    axes = np.asarray(model.joint_axes)
    child = np.asarray(model.joint_child_link)
    parent = np.asarray(model.joint_parent_link)
    parent_joint = np.asarray(model.link_parent_joint)
    if np.any(parent_joint[parent] >= np.arange(J)):  # the model's depth-first joint order
        raise RobotStateCoreError('kinematics plan: joints are not in topological order')
    idx = {t: np.array([j for j, tt in enumerate(types) if tt is t], dtype=np.intp)
           for t in (JointType.PLANAR, JointType.FLOATING, JointType.RPY_FLOATING)}
    fk_joints = np.zeros((J, 5), dtype=np.intp)
    fk_joints[:, 3] = parent
    fk_joints[:, 4] = child
    B = np.zeros((J, 4, 3, 4))
    B[:, 0] = X_PJ[:, :3]
    multi = np.concatenate([idx[JointType.PLANAR], idx[JointType.FLOATING],
                            idx[JointType.RPY_FLOATING]])
    fk_joints[multi, 0] = 2
    fk_joints[multi, 2] = np.arange(multi.size)
    for j, t in enumerate(types):  # plan construction (once per model), not a hot path
        if t in _ONE_DOF:
            fk_joints[j, :2] = 3 if t is JointType.PRISMATIC else 1, model.joint_q_start[j]
            B[j, 1:] = (X_PJ[j] @ one_dof_motion_coefficients(t, axes[j])[1:])[:, :3]

    def q_slices(joints: IntArray, n: int) -> IntArray:
        return (np.asarray(model.joint_q_start)[joints][:, None] + np.arange(n)).reshape(-1, n)

    # Velocity columns.
    v_joint = np.repeat(np.arange(J, dtype=np.intp), np.asarray(model.joint_nv))
    v_rot = np.zeros(nv, dtype=bool)
    v_axis = np.zeros((nv, 3))
    v_in_f = np.zeros(nv, dtype=bool)
    q_of_v = np.full(nv, -1, dtype=np.intp)
    for j, t in enumerate(types):
        v0, q0 = int(model.joint_v_start[j]), int(model.joint_q_start[j])
        if t in _ONE_DOF:
            v_rot[v0] = t is not JointType.PRISMATIC
            v_axis[v0] = axes[j]
            q_of_v[v0] = q0
        elif t is JointType.PLANAR:
            P = plane_basis(axes[j])
            v_axis[v0:v0 + 3] = P.T
            v_rot[v0 + 2] = True
            v_in_f[v0:v0 + 3] = True
            q_of_v[v0:v0 + 3] = np.arange(q0, q0 + 3)
        elif t in (JointType.FLOATING, JointType.RPY_FLOATING):
            v_axis[v0:v0 + 3] = np.eye(3)
            v_axis[v0 + 3:v0 + 6] = np.eye(3)
            v_rot[v0:v0 + 3] = True
            v_in_f[v0:v0 + 6] = True
    q_to_v = np.full(nq, -1, dtype=np.intp)
    q_to_v[q_of_v[q_of_v >= 0]] = np.flatnonzero(q_of_v >= 0)
    mimic_v = q_to_v[np.asarray(model.mimic_variable)]
    mimic_src_v = q_to_v[np.asarray(model.mimic_source)]
    planar = idx[JointType.PLANAR]
    return KinematicsPlan(
        link_count=L, joint_count=J,
        fk_joints=np.ascontiguousarray(fk_joints), fk_coefficients=np.ascontiguousarray(B),
        fk_multi_count=int(multi.size),
        single_q_shape=None if multi.size else (nq,), pose_shape=(L, 4, 4),
        jacobian_shape=(6, nv),
        planar=_ro(planar, np.intp), planar_q=_ro(q_slices(planar, 3), np.intp),
        planar_basis=_ro(np.stack([plane_basis(axes[j]) for j in planar]) if planar.size
                         else np.zeros((0, 3, 3))),
        floating=_ro(idx[JointType.FLOATING], np.intp),
        floating_q=_ro(q_slices(idx[JointType.FLOATING], 7), np.intp),
        floating_labels=tuple(f'FLOATING joint {model.joint_names[j]!r}'
                              for j in idx[JointType.FLOATING]),
        rpy=_ro(idx[JointType.RPY_FLOATING], np.intp),
        rpy_q=_ro(q_slices(idx[JointType.RPY_FLOATING], 6), np.intp),
        child=_ro(child, np.intp), parent=_ro(parent, np.intp),
        v_joint=_ro(v_joint, np.intp), v_rotational=_ro(v_rot, np.bool_), v_axis=_ro(v_axis),
        v_in_joint_frame=_ro(v_in_f, np.bool_),
        q_of_v=_ro(q_of_v, np.intp), mimic_v=_ro(mimic_v, np.intp),
        mimic_source_v=_ro(mimic_src_v, np.intp),
        mimic_multiplier=_ro(np.asarray(model.mimic_multiplier)),
        mimic_fold=_ro(_fold_matrix(nv, mimic_v, mimic_src_v, np.asarray(model.mimic_multiplier)))
        if nv <= _DENSE_FOLD_MAX_NV else None,
        mimic_table=np.ascontiguousarray(np.stack(
            [mimic_v, mimic_src_v, np.asarray(model.mimic_multiplier)], axis=1).reshape(-1, 3),
            dtype=np.float64),
        angle_variables=angle_variables(model))


def _fold_matrix(nv: int, mimic_v: IntArray, source_v: IntArray, mult: FloatArray) -> FloatArray:
    M = np.eye(nv)
    for m, s, k in zip(mimic_v, source_v, mult, strict=True):  # once per model
        M[m, s] += k
        M[m, m] = 0.0
    return M


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
        finite: Test finiteness here. ``False`` only for a caller whose compiled kernel tests
            it (:func:`~robot_state_core.kinematics.compiled.forward_one` returns it) and
            raises :func:`not_finite` itself; models with multi-DOF joints are tested here
            anyway (their numpy motions and the quaternion test need finite values).

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
    floating = p.floating.size
    # A Python sum is the cheapest finiteness test of one small configuration (NaN and inf
    # propagate; only values near 1e308, unusable anyway, can overflow it).
    if (finite or p.fk_multi_count) and not (
            math.isfinite(sum(a.tolist())) if len(shape) == 1 and shape[0] <= 64
            else all_finite(a)):
        raise not_finite(function, name)
    if floating:
        check_quat_xyzw(a[..., p.floating_q[:, 3:]], function,
                        f'{name}: the quaternion (rot_x, rot_y, rot_z, rot_w)',
                        p.floating_labels)
    return a, p


def not_finite(function: str, name: str = 'q') -> InvalidArgumentError:
    """The error of a configuration with NaN or inf (:func:`check_configuration`'s)."""
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


def angle_variables(model: RobotModel) -> IntArray:
    """Q indices of angles that wrap: continuous joints and planar theta (once per model)."""
    idx = [int(model.joint_q_start[j]) for j, t in enumerate(model.joint_types)
           if t is JointType.CONTINUOUS]
    idx += [int(model.joint_q_start[j]) + 2 for j, t in enumerate(model.joint_types)
            if t is JointType.PLANAR]
    out: IntArray = _ro(sorted(idx), np.intp)
    return out
