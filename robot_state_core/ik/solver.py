"""Numerical inverse kinematics: batched damped least squares with random restarts.

This module implements MoveIt's ``setFromIK`` semantics (seed rows RS-70..RS-80, pitfall 12)
with our own solver instead of a ``KinematicsBase`` plugin:

* Targets ``X_WT`` are poses of the tip links in the **model frame** W (``model.model_frame``),
  never in the group's base frame. A tip may be any link the group's active joints move,
  including links rigidly attached below the chain tip (RS-80).
* The free variables are the group's **active** variables (no fixed, no mimic joints). Every
  other variable keeps its seed value; mimic variables follow their sources.
* ``timeout`` is in seconds; ``None`` or ``<= 0`` means the group's ``default_ik_timeout``
  (RS-76). The clock is read before every iteration (single requests of 1-DOF groups: before
  every compiled burst of at most ``_BURST`` iterations), and an iteration starts only when
  the measured mean iteration time fits in the remaining time (a single request always gets
  one iteration, so a seed that already solves the request is found).
* A validity callback may veto a converged candidate (RS-77); the search then goes on.
* Expected failures are result values (:class:`IKStatus`), never exceptions (design study B7).

Algorithm (one search = ``num_seeds`` configurations iterated as one array):

1. Compile, once per (model, group, set of tips), the problem's index tables: the active
   variables ``z``, the velocity columns of the joints they move (mimic followers folded onto
   their sources) and the Jacobian tables of the tips. They are kept with the problem's sample
   table and scratch arrays in a bounded :class:`~.cache.IKCache`, never on the model.
2. Each iteration completes every row's configuration from ``z`` and runs the package's one
   FK kernel and one Jacobian kernel (:mod:`robot_state_core.kinematics.compiled`) on all
   rows at once: the tip poses, the model-frame error
   ``e = [p_T - p_tip; log(R_T R_tipᵀ)]`` per tip (position-only drops the rotation rows) and
   the point Jacobians ``[linear; angular]`` of the tips (mimic columns folded into their
   sources); several tips stack their rows and are solved jointly.
3. A Levenberg-Marquardt step ``dv = Jᵀ (J Jᵀ + λ I)⁻¹ e`` (the ``n x n`` normal form when
   there are more rows than variables), ``λ = damping · |e|² + 1e-9``, each component clipped
   to ``max_step``, added to 1-DOF and planar variables (floating and rpy_floating joints add
   ``v_FM`` to their translation and turn their orientation by ``exp(w_FM)``: their type
   modules' ``step_quaternion`` and ``step_angles``), then clipped to the position bounds,
   continuous angles wrapped to ``[-π, π]``.
4. A row within both tolerances is a candidate (inside the bounds by construction) and the
   validity callback decides. A row that stalls (no 1 % error decrease in ``stall_iterations``)
   or reaches ``restart_iterations`` restarts from the next entry of its restart pool (from a
   fresh sample once the callback has vetoed a candidate of that problem).
5. Seeds: the first row is the request's seed; the others, and every restart, come from a pool
   of uniform samples within the bounds ranked by their initial tip error (the samples whose
   tips are closest to the targets first), then from fresh samples. Single requests draw the
   pool from a per-problem table of samples with known tip poses in the frame of the link
   above the group's joints (a window of consecutive table rows at a random offset), so
   ranking costs no FK, and a moving base does not invalidate the table. All randomness
   comes from a :class:`numpy.random.Generator` seeded by ``random_seed``.
   ``ranked_restarts=False`` takes the pool as fresh uniform samples in the order drawn
   instead (no ranking, no table).

Batches (:func:`solve_ik_batch`) stack the rows of many targets into one array; a target's rows
are dropped once it is solved.

Compiled path (:mod:`robot_state_core.ik.compiled`, imported on the first request): steps 2-3
run as one numba kernel per iteration (every joint type), and a single
request runs steps 2-5 in compiled bursts (best row, stall and pool restarts included),
returning to Python to read the clock, for candidates (bounds check, validity callback) and
for fresh samples; its set-up (seed projection, pool ranking, rows) is one compiled call too.
The arrays of a single compiled search live in a per-thread workspace of the kernel entry,
reused from request to request (``_Workspace``), and the cache remembers resolved (group, tips)
names, so a request's Python set-up is a few dozen operations. The numpy iteration
(:mod:`.reference`) is the tests' oracle: they check that both take the same steps.

Measured (2-core VM shared with other jobs, load 3-6, ``benchmarks/run.py --only ik``,
1 000 targets, 5 and 50 ms timeouts): Panda ``panda_link0 -> panda_hand_tcp``, UR5
``base_link -> tool0`` and Talos torso + left arm solve >= 98.7 % of random reachable targets
from random seeds with a median of 0.30-0.52 ms (UR5 0.30-0.35 ms; 6 iterations of 8 rows
for the median UR5 solve), 0.2-0.6x TRAC-IK's in the same runs (TRAC-IK's own figures swing
2-3x with the load). About a third of a UR5 solve is the compiled search; the rest is the
request's checks, two kernel calls and the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
import math
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core import kinematics
from robot_state_core._typing import as_finite_float, BoolArray, FloatArray, IntArray
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_types import JOINT_TYPES
from robot_state_core.description.joints import JointType
from robot_state_core.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    RobotStateCoreError,
    UnknownNameError,
)
from robot_state_core.ik.cache import default_ik_cache, IKCache
from robot_state_core.ik.types import IKOptions, IKRequest, IKResult, IKStatus, ValidityCallback
from robot_state_core.jit import kernels
from robot_state_core.kinematics.forward import run_forward
from robot_state_core.kinematics.jacobian import link_columns, link_jacobians
from robot_state_core.kinematics.plan import LinkColumns, ready_kernels
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    random_quat_xyzw,
    rotation_log_and_angle,
    unit_quat_xyzw,
    wrap_angle,
)

__all__ = [
    'MAX_TIP_LINKS',
    'damped_least_squares',
    'prepare_ik',
    'retarget_pose',
    'solve_ik',
    'solve_ik_batch',
]



_MULTI_DOF = (JointType.PLANAR, JointType.FLOATING, JointType.RPY_FLOATING)
_ORTHONORMAL_TOL = 1e-4
'''Largest ``|RᵀR - I|`` accepted in a target rotation; smaller deviations are projected away.'''
_LAMBDA_MIN = 1e-9
_STALL_RATIO = 0.99
'''A row "progresses" when its error norm drops below this fraction of its best so far.'''


@dataclass(frozen=True)
class _Kernel:
    """Index arrays and constants of one (model, group, tips, position-only) IK problem.

    The search works on ``z``, the group's active variables (``q[:, q_active]``), and rebuilds
    full configurations only for candidates and results.
    """

    n: int  # free velocity variables (Jacobian columns after folding)
    nv: int  # the model's velocity variables
    v_active: IntArray  # (n,) their model velocity indices
    q_active: IntArray  # (na,) q indices of the active variables: z = q[:, q_active]
    additive: bool  # every active joint is 1-DOF or planar: z += dv is exact
    anchor: int  # the seed table's frame: the deepest link above every moving joint
    anchor_fixed: bool  # no variable moves the anchor (its pose is a constant)
    table_key_q: IntArray  # non-moving variables between the anchor and the tips
    col_v: IntArray  # (nc,) model velocity variables of the joints the active variables move
    fold: FloatArray  # (nc, n) column -> free variable (mimic multipliers)
    fold_needed: bool  # fold is not the identity
    tips: IntArray  # (T,) tip link indices
    tip_columns: tuple[LinkColumns, ...]  # (T,) the Jacobian kernel's tables of each tip
    has_mimic: bool  # the model has mimic variables (full configurations apply them)
    position_only: bool
    z_lower: FloatArray  # (na,) clip bounds (-inf/inf where a variable is not clipped)
    z_upper: FloatArray
    clip_z: IntArray  # z indices with real position bounds (checked on candidates)
    wrap_z: IntArray  # z indices of angles wrapped to [-pi, pi]
    sample_z: IntArray  # z indices sampled uniformly on restarts
    sample_lower: FloatArray
    sample_range: FloatArray
    sample_all: bool  # every variable is sampled (no quaternions, no unbounded translations)
    quat_z: IntArray  # (F, 4) z indices of quaternions (xyzw), sampled uniformly on SO(3)
    quat_sampled: tuple[bool, ...]  # (F,) the quaternion moves a tip
    sampled_mask: BoolArray  # (na,) variables drawn by the sampler
    table_ok: bool  # every variable that moves a tip is sampled (pool samples can be cached)
    compiled: bool  # the compiled iteration (ik.compiled) runs; False only for the tests'
    # numpy reference
    steps: IntArray  # (A, 2) z index and column of each additive variable (compiled step)
    multi_steps: IntArray  # (F, 3) kind, first z index, first column of each floating or
    # rpy_floating joint
    mimic: IntArray  # (M, 2) mimic variable, source (q indices) for the compiled iteration
    mimic_coefficients: FloatArray  # (M, 2) multiplier, offset
    tip_offsets: IntArray  # (T + 1,) slices of the tips' Jacobian tables below
    tip_table: IntArray  # (C, 4) the tips' LinkColumns.columns, stacked (writable, see below)
    tip_frames: FloatArray  # (C, 4, 3) the tips' LinkColumns.frames, stacked (writable)


@dataclass
class _KernelCache:
    """A problem's entry of an :class:`~robot_state_core.ik.cache.IKCache`."""

    kernel: _Kernel
    table: tuple[bytes, tuple[FloatArray, FloatArray, FloatArray, BoolArray]] | None = None
    anchor_pose: FloatArray | None = None  # X_WA of a fixed anchor (``_Kernel.anchor_fixed``)
    # Per thread: the idle workspace of single compiled searches (see _Workspace).
    local: threading.local = field(default_factory=threading.local)


def _kernel(cache: IKCache, model: RobotModel, group: JointModelGroup, tips: tuple[int, ...],
            position_only: bool) -> _KernelCache:
    """The set-up of a problem (tips in link order), from ``cache`` or built now."""
    return cache.problem(model, (group.name, tips, position_only), lambda: _KernelCache(
        _compile_kernel(model, group, tips, position_only)))




def _compile_kernel(model: RobotModel, group: JointModelGroup, tips: tuple[int, ...],
                    position_only: bool) -> _Kernel:
    """Index tables of the (group, tips) problem (ValueError if a tip does not move)."""
    types = model.joint_types
    q_start = np.asarray(model.joint_q_start)
    v_start = np.asarray(model.joint_v_start)
    nq_of = np.asarray(model.joint_nq)
    nv_of = np.asarray(model.joint_nv)
    p = kinematics.plan(model)
    active_joints = [int(j) for j in group.active_joint_indices if nv_of[j] > 0]
    active_set = set(active_joints)
    v_active = kinematics.velocity_indices_of_joints(model, active_joints)
    n = int(v_active.size)
    column_of_v = {int(v): i for i, v in enumerate(v_active)}
    q_active = np.concatenate([np.arange(q_start[j], q_start[j] + nq_of[j])
                               for j in active_joints]).astype(np.intp)
    z_of_q = {int(v): i for i, v in enumerate(q_active)}
    mimic = {int(v): (int(s), float(m), float(o)) for v, s, m, o in zip(
        model.mimic_variable, model.mimic_source, model.mimic_multiplier, model.mimic_offset,
        strict=True)}

    def moves(j: int) -> bool:
        if j in active_set:
            return True
        src = mimic.get(int(q_start[j])) if nv_of[j] else None
        return src is not None and src[0] in z_of_q

    # Joints on the root -> tip paths, ancestors first (model joint order is depth-first).
    path: set[int] = set()
    for t in tips:
        link = t
        while (j := int(model.link_parent_joint[link])) >= 0:
            path.add(j)
            link = int(model.joint_parent_link[j])
    moving = sorted(j for j in path if moves(j))
    # The seed table holds tip poses in the frame of the anchor, the deepest link above every
    # moving joint: non-moving variables above it (a mobile or floating base) move the anchor
    # and the tips alike, so only those between the anchor and the tips key the table.
    above: list[list[int]] = []  # each moving joint's ancestor links, itself first
    for j in moving:
        chain, link = [], int(model.joint_parent_link[j])
        while True:
            chain.append(link)
            if (pj := int(model.link_parent_joint[link])) < 0:
                break
            link = int(model.joint_parent_link[pj])
        above.append(chain)
    common = set.intersection(*(set(c) for c in above)) if above else {0}
    anchor = next((link for link in above[0] if link in common), 0) if above else 0
    anchor_path: set[int] = set()
    link = anchor
    while (j := int(model.link_parent_joint[link])) >= 0:
        anchor_path.add(j)
        link = int(model.joint_parent_link[j])
    table_key_q = sorted(v for j in path if j not in moving and j not in anchor_path
                         for v in range(int(q_start[j]), int(q_start[j] + nq_of[j])))
    anchor_fixed = not any(nq_of[j] for j in anchor_path)
    pos = {j: i for i, j in enumerate(moving)}
    nm = len(moving)

    def nearest_moving(link: int) -> int:
        while (j := int(model.link_parent_joint[link])) >= 0:
            if j in pos:
                return pos[j]
            link = int(model.joint_parent_link[j])
        return nm

    tip_moving = np.array([nearest_moving(t) for t in tips], dtype=np.intp)
    if np.any(tip_moving == nm):
        static = [model.link_names[t] for t, m in zip(tips, tip_moving, strict=True) if m == nm]
        raise ValueError(f'tip link(s) {static} are not moved by the active joints of group '
                         f'{group.name!r}')
    # Jacobian columns: every velocity variable of every moving joint, folded onto z.
    col_v, fold_rows = [], []
    for j in moving:
        for v in range(int(v_start[j]), int(v_start[j] + nv_of[j])):
            row = np.zeros(n)
            if j in active_set:
                row[column_of_v[v]] = 1.0
            else:  # a mimic follower: its column adds to its source's
                src, mult, _ = mimic[int(q_start[j])]
                row[column_of_v[int(v_start[int(model.variable_joint[src])])]] = mult
            col_v.append(v)
            fold_rows.append(row)
    cv = np.asarray(col_v, dtype=np.intp)
    fold = np.asarray(fold_rows).reshape(cv.size, n)
    # Bounds in z.
    bounded = np.asarray(model.variable_bounded)[q_active]
    lower = np.asarray(model.variable_lower)[q_active]
    upper = np.asarray(model.variable_upper)[q_active]
    quat, wrap, rpy_angles = [], [], []
    for j in active_joints:  # each joint type module's declarations
        z0 = z_of_q[int(q_start[j])]
        module = JOINT_TYPES[types[j]]
        angles, orientation = module.ANGLE_VARIABLES, module.ORIENTATION_VARIABLES
        if orientation and not angles:  # a quaternion
            quat.append(z0 + np.asarray(orientation))
        rpy_angles += [z0 + a for a in angles if a in orientation]
        wrap += [z0 + a for a in angles
                 if a not in orientation and not model.variable_bounded[int(q_start[j]) + a]]
    quat_z = np.stack(quat).astype(np.intp) if quat else np.zeros((0, 4), np.intp)
    in_quat = np.isin(np.arange(q_active.size), quat_z.reshape(-1))
    clip = bounded & ~in_quat
    clip_z = np.flatnonzero(clip)
    # Unbounded angles (rpy_floating) are sampled in [-pi, pi]; unbounded translations keep
    # their seed values.
    is_rpy = np.isin(np.arange(q_active.size), rpy_angles)
    finite = np.isfinite(lower) & np.isfinite(upper) & ~in_quat
    # Variables that move no tip (a gripper in an arm+hand group) keep their seed values.
    influential = np.zeros(q_active.size, dtype=bool)
    for j in active_joints:
        cols = [column_of_v[v] for v in range(int(v_start[j]), int(v_start[j] + nv_of[j]))]
        if np.any(fold[:, cols]):
            z0 = z_of_q[int(q_start[j])]
            influential[z0:z0 + int(nq_of[j])] = True
    sample_z = np.flatnonzero((finite | is_rpy) & influential)
    sampled = np.zeros(q_active.size, dtype=bool)
    sampled[sample_z] = True
    for f in quat_z:
        sampled[f] = influential[f[0]]
    s_lo = np.where(is_rpy, -np.pi, lower)[sample_z]
    s_hi = np.where(is_rpy, np.pi, upper)[sample_z]
    additive = all(not JOINT_TYPES[types[j]].ORIENTATION_VARIABLES for j in active_joints)
    steps, multi_steps = [], []  # the compiled step: z += dv, or an SE(3) step
    for j in active_joints:
        z0, c0 = z_of_q[int(q_start[j])], column_of_v[int(v_start[j])]
        module = JOINT_TYPES[types[j]]
        if module.ORIENTATION_VARIABLES:
            multi_steps.append((module.KERNEL_KIND, z0, c0))
        else:
            steps += [(z0 + i, c0 + i) for i in range(module.NQ)]
    tip_columns = tuple(link_columns(model, p, t) for t in tips)
    return _Kernel(
        n=n, nv=model.nv, v_active=_ro(v_active, np.intp), q_active=_ro(q_active, np.intp),
        additive=additive, anchor=anchor, anchor_fixed=anchor_fixed,
        table_key_q=_ro(table_key_q, np.intp), col_v=_ro(cv, np.intp),
        fold=_ro(fold), fold_needed=fold.shape != (n, n) or not np.array_equal(fold, np.eye(n)),
        tips=_ro(tips, np.intp),
        tip_columns=tip_columns,
        has_mimic=bool(len(model.mimic_variable)), position_only=position_only,
        z_lower=_ro(np.where(clip, lower, -np.inf)), z_upper=_ro(np.where(clip, upper, np.inf)),
        clip_z=_ro(clip_z, np.intp), wrap_z=_ro(wrap, np.intp), sample_z=_ro(sample_z, np.intp),
        sample_lower=_ro(s_lo), sample_range=_ro(s_hi - s_lo),
        sample_all=sample_z.size == q_active.size, quat_z=_ro(quat_z, np.intp),
        quat_sampled=tuple(bool(influential[f[0]]) for f in quat_z),
        sampled_mask=_ro(sampled, np.bool_), table_ok=bool(np.all(sampled | ~influential)),
        compiled=True,
        steps=_ro(np.asarray(steps, dtype=np.intp).reshape(-1, 2), np.intp),
        multi_steps=_ro(np.asarray(multi_steps, dtype=np.intp).reshape(-1, 3), np.intp),
        mimic=_ro(np.stack([np.asarray(model.mimic_variable, dtype=np.intp),
                            np.asarray(model.mimic_source, dtype=np.intp)], axis=1), np.intp),
        mimic_coefficients=_ro(np.stack([np.asarray(model.mimic_multiplier, dtype=np.float64),
                                         np.asarray(model.mimic_offset, dtype=np.float64)],
                                        axis=1)),
        tip_offsets=_ro(np.cumsum([0] + [c.columns.shape[0] for c in tip_columns]), np.intp),
        # Writable, as the Jacobian kernel's own tables: numba types read-only arrays apart,
        # and the kernel must keep its one signature when the IK kernel calls it.
        tip_table=np.concatenate([c.columns for c in tip_columns]).astype(np.intp),
        tip_frames=np.concatenate([c.frames for c in tip_columns]).astype(np.float64))


# ------------------------------------------------------------------------------ iteration kernels


@dataclass(frozen=True)
class _Rows:
    """What a set of rows keeps fixed: the configurations ``z`` completes, and the targets."""

    base: FloatArray  # (R, nq), or (1, nq) shared: non-active variables of each row
    target: FloatArray  # (T, R, 4, 4), or (T, 1, 4, 4) shared: X_WT

    @staticmethod
    def bind(base: FloatArray, X_WT: FloatArray, prob: IntArray | None) -> _Rows:
        """Rows of problems ``prob`` (``None``: every row belongs to problem 0)."""
        if prob is None:
            return _Rows(base[:1], X_WT[0][:, None])
        return _Rows(base[prob], np.swapaxes(X_WT[prob], 0, 1))


def _tip_poses(search: _Search, z: FloatArray, rows: _Rows) -> tuple[FloatArray, FloatArray]:
    """FK of the rows ``z`` ``(R, na)``: the package's FK kernel on full configurations.

    Returns:
        ``(X_WL, X_tip)``: every link pose ``(R, L, 4, 4)`` and the tip poses
        ``(T, R, 4, 4)``, in the model frame.
    """
    k = search.k
    q = np.repeat(rows.base, z.shape[0], axis=0) if rows.base.shape[0] == 1 else rows.base.copy()
    q[:, k.q_active] = z
    if k.has_mimic:
        search.model.apply_mimic(q)
    X_WL = run_forward(search.plan, q)
    return X_WL, np.swapaxes(X_WL[:, k.tips], 0, 1)


def _in_anchor(k: _Kernel, X_WL: FloatArray, X_tip: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Tip positions ``(T, R, 3)`` and flattened rotations ``(T, R, 9)`` in the anchor frame.

    Args:
        k: The problem.
        X_WL: ``(R, L, 4, 4)`` every link pose of the rows.
        X_tip: ``(T, R, 4, 4)`` the rows' tip poses in the model frame.
    """
    X_WA = X_WL[:, k.anchor]
    R_AW = np.swapaxes(X_WA[:, :3, :3], -1, -2)
    p: FloatArray = np.einsum('rij,trj->tri', R_AW, X_tip[..., :3, 3] - X_WA[None, :, :3, 3])
    r = np.einsum('rij,trjk->trik', R_AW, X_tip[..., :3, :3])
    return p, r.reshape(*r.shape[:2], 9)


def _errors(k: _Kernel, X_tip: FloatArray, X_WT: FloatArray
            ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Tip errors ``(e, position_error, rotation_error)``.

    ``e`` ``(R, T * width)`` stacks ``[p_T - p_tip; log(R_T R_tipᵀ)]`` per tip in the model
    frame (``width`` 3 when position-only); the worst tip errors are ``(R,)`` [m] and [rad].
    """
    T, R = X_tip.shape[:2]
    e = np.empty((T, R, 3 if k.position_only else 6))
    dp = np.subtract(X_WT[..., :3, 3], X_tip[..., :3, 3], out=e[..., :3])
    perr = np.vecdot(dp, dp)
    perr = np.sqrt(perr[0] if T == 1 else perr.max(axis=0))
    if k.position_only:
        rerr = np.zeros(R)
    else:
        dw, angle = rotation_log_and_angle(
            X_WT[..., :3, :3] @ np.swapaxes(X_tip[..., :3, :3], -1, -2))
        e[..., 3:] = dw
        rerr = angle[0] if T == 1 else angle.max(axis=0)
    stacked: FloatArray = e[0] if T == 1 else np.swapaxes(e, 0, 1).reshape(R, -1)
    return stacked, perr, rerr


def _jacobian(k: _Kernel, X_WL: FloatArray) -> FloatArray:
    """Tip point Jacobians ``(R, T * width, n)`` of the free variables (the Jacobian kernel).

    Rows ``[linear; angular]`` per tip in the model frame; mimic followers are folded into
    their sources' columns.
    """
    R, T = X_WL.shape[0], k.tips.size
    width = 3 if k.position_only else 6
    J_all = np.zeros((T, R, 6, k.nv))
    for t in range(T):
        link_jacobians(X_WL, int(k.tips[t]), k.tip_columns[t], J_all[t])
    J = J_all[:, :, :width][..., k.col_v]  # (T, R, width, nc)
    if k.fold_needed:
        J = J @ k.fold
    return np.swapaxes(J, 0, 1).reshape(R, T * width, k.n)


# ------------------------------------------------------------------------------ compiled iteration


_ik_compiled: Any = None
_ik_ready = False
_NO_LOCALS = np.zeros((0, 0, 4, 4))
_ORIGIN = np.zeros((1, 3))


def _ik_kernels() -> Any:
    """The compiled IK iteration (:mod:`robot_state_core.ik.compiled`), imported on first use.

    Lazy on purpose (allow-listed in ``test_import_structure``), as
    :func:`~robot_state_core.kinematics.plan.compiled_kernels`: numba costs 0.4-0.7 s to
    import, which ``import robot_state_core`` should not pay. Typed ``Any``: numba's
    dispatchers carry no annotations.
    """
    global _ik_compiled
    if _ik_compiled is None:
        from robot_state_core.ik import compiled
        _ik_compiled = kernels.select(compiled)
    return _ik_compiled


def _on_kernel_switch() -> None:
    """After a kernel switch (:mod:`robot_state_core.jit.kernels`): forget module and flag."""
    global _ik_compiled, _ik_ready
    _ik_compiled = None
    _ik_ready = False


kernels.on_switch(_on_kernel_switch)


def _ready_ik_kernels() -> None:
    """Compile or load the FK, Jacobian and IK kernels once per process (before any clock)."""
    global _ik_ready
    ready_kernels()
    if not _ik_ready and not kernels.interpreted():  # twins need no warming
        _ik_kernels().warm_up()
        _ik_ready = True


@dataclass(frozen=True)
class _Scratch:
    """Per-row arrays of the compiled iteration (rebuilt when the rows change)."""

    base: FloatArray  # (R or 1, nq)
    targets: FloatArray  # (T, R or 1, 4, 4) C-contiguous
    Q: FloatArray  # (R, nq)
    X_WL: FloatArray  # (R, L, 4, 4)
    J_all: FloatArray  # (T, R, 6, nv) zeros outside the tips' columns
    E: FloatArray  # (R, m)
    J: FloatArray  # (m, n)
    A: FloatArray  # (max(m, n), max(m, n))
    b: FloatArray  # (max(m, n),)
    dv: FloatArray  # (n,) one row's step
    perr: FloatArray  # (R,)
    rerr: FloatArray
    norm: FloatArray
    Z_next: FloatArray  # (R, na) the burst kernel's stepped rows

    @staticmethod
    def of(search: _Search, R: int) -> _Scratch:
        k, rows, p = search.k, search.rows, search.plan
        T = k.tips.size
        m = T * (3 if k.position_only else 6)
        big = max(m, k.n)
        base = np.array(rows.base, order='C')  # copies: writable and C-contiguous, always
        return _Scratch(
            base=base, targets=np.array(rows.target, order='C'),
            Q=np.empty((R, base.shape[1])), X_WL=np.empty((R, p.link_count, 4, 4)),
            J_all=np.zeros((T, R, 6, k.nv)), E=np.empty((R, m)), J=np.empty((m, k.n)),
            A=np.empty((big, big)), b=np.empty(big), dv=np.empty(k.n), perr=np.empty(R),
            rerr=np.empty(R), norm=np.empty(R), Z_next=np.empty((R, search.z.shape[1])))


@dataclass(frozen=True)
class _Workspace:
    """The arrays of one single compiled search (one problem, ``K`` rows), reused.

    Allocating them costs ~40 µs per request (twenty small numpy allocations); a workspace is
    filled in place instead. Each thread keeps one idle workspace per kernel entry
    (``_KernelCache.local``): a search takes it (or allocates one) and :func:`_run` gives it
    back once the results are built (they copy what they keep); a search that is never
    given back (an exception from the validity callback, a test) just drops its workspace.
    A nested request on the same thread (from a validity callback) finds none idle and
    allocates its own, so no two live searches share one.
    """

    K: int  # rows (num_seeds)
    base: FloatArray  # (1, nq)
    base_z: FloatArray  # (1, na)
    prob: IntArray  # (K,) zeros
    z: FloatArray  # (K, na)
    pool: FloatArray  # (S, na) the ranked restart pool
    row_best: FloatArray  # (K,)
    row_end: IntArray  # (K,)
    row_due: IntArray  # (K,)
    seeds_tried: IntArray  # (1,)
    solved: BoolArray  # (1,)
    solution: FloatArray  # (1, nq)
    solution_error: FloatArray  # (1, 2)
    best_norm: FloatArray  # (1,)
    best_z: FloatArray  # (1, na)
    best_error: FloatArray  # (1, 2)
    vetoed: IntArray  # (1,)
    finished_iter: IntArray  # (1,)
    finished_time: FloatArray  # (1,)
    pool_next: IntArray  # (1,)
    state: IntArray  # (2,) the burst kernel's pool entry and seeds tried
    targets: FloatArray  # (T, 1, 4, 4) the scratch's targets
    scratch: _Scratch

    @staticmethod
    def take(search: _Search, K: int, size: int) -> _Workspace:
        """An idle workspace of this thread for ``K`` rows and pool ``size``, or a new one."""
        local = search.entry.local
        ws: _Workspace | None = getattr(local, 'idle', None)
        if ws is not None:
            local.idle = None
            if ws.K == K and ws.pool.shape[0] == size:
                return ws
        k, p, model = search.k, search.plan, search.model
        na, nq, T = k.q_active.size, model.nq, k.tips.size
        m = T * (3 if k.position_only else 6)
        big = max(m, k.n)
        base = np.empty((1, nq))
        targets = np.empty((T, 1, 4, 4))
        i = np.intp
        scratch = _Scratch(
            base=base, targets=targets, Q=np.empty((K, nq)),
            X_WL=np.empty((K, p.link_count, 4, 4)), J_all=np.zeros((T, K, 6, k.nv)),
            E=np.empty((K, m)), J=np.empty((m, k.n)), A=np.empty((big, big)), b=np.empty(big),
            dv=np.empty(k.n), perr=np.empty(K), rerr=np.empty(K), norm=np.empty(K),
            Z_next=np.empty((K, na)))
        return _Workspace(
            K=K, base=base, base_z=np.empty((1, na)), prob=np.zeros(K, i), z=np.empty((K, na)),
            pool=np.empty((size, na)), row_best=np.empty(K), row_end=np.empty(K, i),
            row_due=np.empty(K, i), seeds_tried=np.empty(1, i), solved=np.empty(1, bool),
            solution=np.empty((1, nq)), solution_error=np.empty((1, 2)),
            best_norm=np.empty(1), best_z=np.empty((1, na)), best_error=np.empty((1, 2)),
            vetoed=np.empty(1, i), finished_iter=np.empty(1, i), finished_time=np.empty(1),
            pool_next=np.empty(1, i), state=np.empty(2, i), targets=targets, scratch=scratch)

    def give_back(self, entry: _KernelCache) -> None:
        """Make this workspace this thread's idle one again (the search is over)."""
        entry.local.idle = self


# ------------------------------------------------------------------------------ search


class _Search:
    """Rows of one or more IK problems, iterated as one array.

    Every problem ``p`` owns ``num_seeds`` rows; ``prob`` maps rows to problems. Rows of
    solved problems are dropped.
    """

    def __init__(self, model: RobotModel, entry: _KernelCache, seeds: FloatArray, X_WT: FloatArray,
                 options: IKOptions, validity: ValidityCallback | None,
                 rng: np.random.Generator) -> None:
        k = entry.kernel
        self.model, self.entry, self.k, self.options = model, entry, k, options
        self.validity, self.rng = validity, rng
        P = seeds.shape[0]
        self.P = P
        self.workspace: _Workspace | None = None
        if P == 1 and k.compiled:
            self._init_single(seeds, X_WT)
            return
        base = seeds.copy()
        base[:, k.q_active] = self._project(base[:, k.q_active])
        model.apply_mimic(base)
        self.base = base  # (P, nq): projected seeds; non-group variables never change
        self.base_z = base[:, k.q_active]
        self.targets = X_WT  # (P, T, 4, 4)
        self.plan = kinematics.plan(model)
        self.rows_of_one = _Rows(base[:1], X_WT[0][:, None])
        K = options.num_seeds
        self.prob = np.repeat(np.arange(P), K)
        self.z = self.base_z[self.prob]
        self._fill_pool(K)
        first = self.pool[:, :K - 1].reshape(-1, self.z.shape[1])
        fresh = np.ones(self.z.shape[0], dtype=bool)
        fresh[::K] = False  # each problem's first row starts at its seed
        self.z[fresh] = first
        R = self.z.shape[0]
        self.row_best = np.full(R, np.inf)
        self.row_end = np.full(R, options.restart_iterations, dtype=np.intp)
        self.row_due = np.full(R, options.stall_iterations, dtype=np.intp)
        self.seeds_tried = np.full(P, K, dtype=np.intp)
        self.solved = np.zeros(P, dtype=bool)
        self.solution = base.copy()
        self.solution_error = np.full((P, 2), np.inf)
        self.best_norm = np.full(P, np.inf)
        self.best_z = self.base_z.copy()
        self.best_error = np.full((P, 2), np.inf)  # (position, rotation)
        self.vetoed = np.zeros(P, dtype=np.intp)
        self.finished_iter = np.zeros(P, dtype=np.intp)
        self.finished_time = np.zeros(P)
        self.iterations = 0
        self._bind_rows()

    def _init_single(self, seeds: FloatArray, X_WT: FloatArray) -> None:
        """``__init__`` of one problem with the compiled iteration, in a reused workspace.

        The same state as the general set-up, filled in place (``_Workspace``); with a sample
        table (every variable sampled), one compiled call (``ik.compiled.start_single``)
        projects the seed, ranks the pool and starts the rows.
        """
        k, o, model = self.k, self.options, self.model
        K = o.num_seeds
        self.plan = kinematics.plan(model)
        size = _pool_size(K, 1)
        ws = _Workspace.take(self, K, size)
        self.workspace = ws
        base = ws.base
        base[0] = seeds[0]
        self.base = base
        self.base_z = ws.base_z
        self.targets = X_WT
        rows = _Rows(base, X_WT[0][:, None])
        self.rows_of_one = self.rows = rows
        ws.targets[...] = rows.target  # (T, 1, 4, 4) C-contiguous
        self.prob = ws.prob
        self.z = ws.z
        self.row_best, self.row_end, self.row_due = ws.row_best, ws.row_end, ws.row_due
        self.seeds_tried, self.solved, self.solution = ws.seeds_tried, ws.solved, ws.solution
        self.solution_error, self.best_norm, self.best_z = (ws.solution_error, ws.best_norm,
                                                            ws.best_z)
        self.best_error, self.vetoed = ws.best_error, ws.vetoed
        self.finished_iter, self.finished_time = ws.finished_iter, ws.finished_time
        self.seeds_tried[0] = K
        self.solved[0] = False
        self.solution_error.fill(np.inf)
        self.vetoed[0] = 0
        self.finished_iter[0] = 0
        self.finished_time[0] = 0.0
        self.iterations = 0
        self._scratch = ws.scratch
        table = self._table() if k.sample_all and o.ranked_restarts else None
        if table is None:
            self._init_single_pool(seeds, K)
            return
        pick = self._pick(size)
        # The ranking's targets, in the table's anchor frame (T, 1, 4, 4).
        X_AT = ws.targets if k.anchor == 0 else np.ascontiguousarray(
            self._anchor_targets()[:, None])
        for _ in range(2):
            unknown: int = _ik_kernels().start_single(
                seeds[0], base, k.q_active, k.mimic, k.mimic_coefficients, k.z_lower,
                k.z_upper, k.wrap_z, ws.base_z[0], pick, *table, X_AT,
                3 if k.position_only else 6, ws.z, ws.pool, ws.row_best, ws.row_end,
                ws.row_due, o.restart_iterations, o.stall_iterations, ws.best_norm,
                ws.best_z[0], ws.best_error[0], ws.solution[0])
            if not unknown:
                break
            self._learn(table, pick)  # (base is projected: the table's poses use it)
        self.pool: FloatArray = ws.pool[None]  # (1, S, na)
        self.pool_next = ws.pool_next
        self.pool_next[0] = K - 1

    def _init_single_pool(self, seeds: FloatArray, K: int) -> None:
        """The rest of :meth:`_init_single` without a sample table (numpy set-up)."""
        k, o, base = self.k, self.options, self.base
        z0 = self._project(base[:1, k.q_active])[0]  # a copy: clipped, wrapped, unit quaternions
        base[0, k.q_active] = z0
        if k.has_mimic:
            self.model.apply_mimic(base)
        self.base_z[0] = z0
        self._fill_pool(K)
        self.z[0] = z0
        self.z[1:] = self.pool[0, :K - 1]
        self.row_best.fill(np.inf)
        self.row_end.fill(o.restart_iterations)
        self.row_due.fill(o.stall_iterations)
        self.solution[0] = base[0]
        self.best_norm[0] = np.inf
        self.best_z[0] = z0
        self.best_error.fill(np.inf)

    def release(self) -> None:
        """Give the workspace back to this thread's kernel entry (the search is over)."""
        if self.workspace is not None:
            self.workspace.give_back(self.entry)
            self.workspace = None

    # -- configuration helpers

    def _project(self, z: FloatArray) -> FloatArray:
        """Clip bounded variables, wrap angles, normalize quaternions (in place)."""
        k = self.k
        np.maximum(z, k.z_lower, out=z)
        np.minimum(z, k.z_upper, out=z)
        if k.wrap_z.size:
            z[:, k.wrap_z] = wrap_angle(z[:, k.wrap_z])
        if k.quat_z.size:
            z[:, k.quat_z] = unit_quat_xyzw(z[:, k.quat_z])
        return z

    def _full(self, z: FloatArray, prob: IntArray) -> FloatArray:
        """Full configurations ``(R, nq)`` of rows ``z`` of problems ``prob`` (mimic applied)."""
        q = self.base[prob]
        q[:, self.k.q_active] = z
        self.model.apply_mimic(q)
        return q

    def _sample(self, prob: IntArray) -> FloatArray:
        """Uniform random rows of z for problems ``prob`` (unsampled variables: the seed)."""
        k = self.k
        u = self.rng.random((prob.size, k.sample_z.size))
        if k.sample_all:
            sample: FloatArray = k.sample_lower + u * k.sample_range
            return sample
        z = self.base_z[prob]
        z[:, k.sample_z] = k.sample_lower + u * k.sample_range
        if k.quat_z.size:
            quat = random_quat_xyzw(self.rng, (prob.size, k.quat_z.shape[0]))
            for f in range(k.quat_z.shape[0]):
                if k.quat_sampled[f]:
                    z[:, k.quat_z[f]] = quat[:, f]
        return z

    def _fill_pool(self, K: int) -> None:
        """Sample a pool of restart configurations per problem, best (smallest error) first.

        Starting from the samples whose tips are already closest to the targets cuts the
        iterations to convergence by about a third (Panda, 8 seeds: 83 % -> 93 % of the
        targets solved within 10 iterations). A single problem draws its pool from a cached
        table of samples whose tip poses are known, so only the scoring costs time.
        """
        P, k = self.P, self.k
        size = _pool_size(K, P)
        if not self.options.ranked_restarts:  # fresh uniform samples in the order drawn
            self.pool = self._sample(np.repeat(np.arange(P), size)).reshape(P, size, -1)
            self._reset_pool_next(K)
            return
        table = self._table() if P == 1 else None
        if table is not None:
            z_table, p_table, r_table, known = table
            # A window of consecutive table rows at a random offset (wrapping around): the
            # rows are independent uniform samples, so a window is as random as scattered
            # picks, and reading it is sequential (scattered reads of the ~300 kB table cost
            # ~30 us of cache misses on a busy machine).
            pick = self._pick(size)
            if not k.sample_all:
                cand = np.where(k.sampled_mask, z_table[pick], self.base_z[0])
            if not known[pick].all():  # tip poses of table rows are computed on first use
                self._learn(table, pick)
            X_AT = self._anchor_targets()  # the table's poses are in the anchor frame
            if k.compiled and k.sample_all:  # the same ranking, compiled (ik.compiled.rank_pool)
                ws = self.workspace
                cand = ws.pool if ws is not None else np.empty((size, z_table.shape[1]))
                _ik_kernels().rank_pool(pick, z_table, p_table, r_table, X_AT,
                                        3 if k.position_only else 6, cand)
            else:
                d = p_table[:, pick] - X_AT[:, None, :3, 3]
                score = np.vecdot(d, d).sum(axis=0)
                if not k.position_only:  # 3 - tr(R_T R_tipᵀ) per tip; the constant 3 T is dropped
                    score -= np.einsum('tnj,tj->n', r_table[:, pick],
                                       X_AT[:, :3, :3].reshape(-1, 9))
                cand = (z_table[pick] if k.sample_all else cand)[np.argsort(score)]
        else:
            prob = np.repeat(np.arange(P), size)
            cand = self._sample(prob)
            score = np.empty(prob.size)
            for lo in range(0, prob.size, _POOL_CHUNK):
                sl = slice(lo, lo + _POOL_CHUNK)
                rc = _Rows.bind(self.base, self.targets, None if P == 1 else prob[sl])
                _, X_tip = _tip_poses(self, cand[sl], rc)
                score[sl] = self._score(X_tip, rc.target)
            cand = cand[np.argsort(score) if P == 1 else np.lexsort((score, prob))]
        self.pool = cand.reshape(P, size, -1)
        self._reset_pool_next(K)

    def _reset_pool_next(self, K: int) -> None:
        """Every problem's next restart: pool entry ``K - 1`` (its rows took the first ones)."""
        if self.workspace is not None:
            self.pool_next = self.workspace.pool_next
            self.pool_next[0] = K - 1
        else:
            self.pool_next = np.full(self.P, K - 1, dtype=np.intp)

    def _pick(self, size: int) -> IntArray:
        """``size`` sample-table rows: a window of consecutive rows at a random offset.

        The window wraps around the table's end. The rows are independent uniform samples, so
        a window is as random as scattered picks, and reading it is sequential (scattered
        reads of the ~300 kB table cost ~30 us of cache misses on a busy machine).
        """
        off = int(self.rng.random() * _TABLE_SIZE)
        if size <= _TABLE_SIZE:
            return _CYCLE[off:off + size]
        return np.arange(off, off + size) % _TABLE_SIZE

    def _learn(self, table: tuple[FloatArray, FloatArray, FloatArray, BoolArray],
               pick: IntArray) -> None:
        """Compute the tip poses of the table rows ``pick`` that the table does not know yet."""
        z_table, p_table, r_table, known = table
        fresh = np.zeros(known.size, dtype=bool)  # (np.unique imports numpy.ma)
        fresh[pick] = True
        new = np.flatnonzero(fresh & ~known)
        z_new = z_table[new]
        if not self.k.sample_all:
            z_new = np.where(self.k.sampled_mask, z_new, self.base_z[0])
        X_WL, X_tip = _tip_poses(self, z_new, self.rows_of_one)
        p_table[:, new], r_table[:, new] = _in_anchor(self.k, X_WL, X_tip)
        known[new] = True

    def _anchor_targets(self) -> FloatArray:
        """The single problem's targets ``(T, 4, 4)`` in the seed table's anchor frame.

        A new C-contiguous writable array (the compiled ranking's argument type).
        """
        k, entry = self.k, self.entry
        X_WT = np.asarray(self.targets[0])
        if k.anchor == 0:  # the model frame
            return np.array(X_WT, dtype=np.float64)
        X_WA = entry.anchor_pose if k.anchor_fixed else None
        if X_WA is None:
            X_WA = run_forward(self.plan, self.base[:1])[0, k.anchor]
            if k.anchor_fixed:
                entry.anchor_pose = X_WA
        R_AW = X_WA[:3, :3].T
        out = np.array(X_WT)
        out[:, :3, :3] = R_AW @ X_WT[:, :3, :3]
        out[:, :3, 3] = (X_WT[:, :3, 3] - X_WA[:3, 3]) @ R_AW.T
        return out

    def _score(self, X_tip: FloatArray, X_WT: FloatArray) -> FloatArray:
        """``|dp|² + 3 - tr(R_T R_tipᵀ)`` summed over tips (``3 - tr = 2 (1 - cos θ) ~ θ²``)."""
        dp = X_WT[..., :3, 3] - X_tip[..., :3, 3]
        score: FloatArray = np.einsum('tri,tri->r', dp, dp)
        if not self.k.position_only:
            trace = np.einsum('trij,trij->r', np.broadcast_to(
                X_WT[..., :3, :3], X_tip[..., :3, :3].shape), X_tip[..., :3, :3])
            score += 3.0 * X_tip.shape[0] - trace
        return score

    def _table(self) -> tuple[FloatArray, FloatArray, FloatArray, BoolArray] | None:
        """The sample table of the single problem, or ``None`` if it cannot have one.

        ``(z (N, na), p_AL (T, N, 3), R_AL (T, N, 9), known (N,))``: samples drawn once from a
        fixed-seed generator, and the tip positions and flattened rotations, in the frame of
        the problem's anchor link (``_Kernel.anchor``), of the rows already used (``known``).
        Filling the poses on first use keeps the first call cheap and every result independent
        of the calls before it. A mobile or floating base moves the anchor and the tips alike,
        so the table survives base motion; only non-moving variables between the anchor and
        the tips key it. There is no table when some variable that moves a tip is not sampled
        (its seed value would enter the poses).
        """
        entry, k = self.entry, self.k
        if not k.table_ok:
            return None
        key = self.base[0, k.table_key_q].tobytes()
        cached = entry.table
        if cached is not None and cached[0] == key:
            return cached[1]
        rng, self.rng = self.rng, np.random.default_rng(_TABLE_SEED)
        try:
            z = self._sample(np.zeros(_TABLE_SIZE, dtype=np.intp))
        finally:
            self.rng = rng
        T = k.tips.size
        table = (z, np.zeros((T, _TABLE_SIZE, 3)), np.zeros((T, _TABLE_SIZE, 9)),
                 np.zeros(_TABLE_SIZE, dtype=bool))
        entry.table = (key, table)  # one reference swap: safe with concurrent readers
        return table

    def _restart(self, rows: IntArray) -> None:
        """Restart ``rows`` from their problems' next pool entries (then fresh samples)."""
        prob = self.prob[rows]
        if self.P == 1:
            rank = np.arange(rows.size)
        else:  # rank of each row among the restarting rows of its problem
            order = np.argsort(prob, kind='stable')
            ps = prob[order]
            starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
            counts = np.diff(np.r_[starts, ps.size])
            rank = np.empty(rows.size, dtype=np.intp)
            rank[order] = np.arange(ps.size) - np.repeat(starts, counts)
        index = self.pool_next[prob] + rank
        pooled = index < self.pool.shape[1]
        if pooled.all():
            self.z[rows] = self.pool[prob, index]
        else:
            z = self._sample(prob)
            z[pooled] = self.pool[prob[pooled], index[pooled]]
            self.z[rows] = z
        np.add.at(self.pool_next, prob, 1)

    def _bind_rows(self) -> None:
        """Lay the per-problem constants out for the current rows (and the compiled scratch)."""
        self.rows = _Rows.bind(self.base, self.targets, None if self.P == 1 else self.prob)
        if self.k.compiled:
            self._scratch = _Scratch.of(self, self.z.shape[0])

    def _search_burst(self, budget: int) -> int:
        """Up to ``budget`` compiled iterations of the single problem (``ik.compiled.search``).

        Returns:
            The iterations run, negated when the caller must finish the last one (a
            candidate, or restarts beyond the pool).
        """
        k, o, s = self.k, self.options, self._scratch
        ws = self.workspace
        state = ws.state if ws is not None else np.empty(2, np.intp)
        state[0] = self.pool_next[0]
        state[1] = self.seeds_tried[0]
        ran: int = _ik_kernels().search(
            self.z, s.base, k.q_active, k.mimic, k.mimic_coefficients, self.plan.fk_joints,
            self.plan.fk_coefficients, _NO_LOCALS, s.Q, s.X_WL, k.tips,
            k.tip_offsets, k.tip_table, k.tip_frames, _ORIGIN, s.J_all, s.targets, k.col_v,
            k.fold, 3 if k.position_only else 6, float(o.damping), _LAMBDA_MIN,
            float(o.max_step), k.z_lower, k.z_upper, k.wrap_z, k.steps, k.multi_steps, s.E, s.J,
            s.A, s.b, s.dv, s.perr, s.rerr, s.norm, s.Z_next, budget, self.iterations,
            float(o.position_tolerance), float(o.orientation_tolerance), o.stall_iterations,
            o.restart_iterations, _STALL_RATIO, self.row_best, self.row_end, self.row_due,
            self.pool[0], state, self.best_norm, self.best_z[0], self.best_error[0])
        self.pool_next[0] = state[0]
        self.seeds_tried[0] = state[1]
        return ran

    def _iterate(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """The compiled iteration: ``(e, perr, rerr, norm, z_next)`` of the current rows."""
        k, o, s = self.k, self.options, self._scratch
        z_next = np.empty_like(self.z)
        _ik_kernels().iterate(
            self.z, s.base, k.q_active, k.mimic, k.mimic_coefficients, self.plan.fk_joints,
            self.plan.fk_coefficients, _NO_LOCALS, s.Q, s.X_WL, k.tips,
            k.tip_offsets, k.tip_table, k.tip_frames, _ORIGIN, s.J_all, s.targets, k.col_v,
            k.fold, 3 if k.position_only else 6, float(o.damping), _LAMBDA_MIN,
            float(o.max_step), k.z_lower, k.z_upper, k.wrap_z, k.steps, k.multi_steps, s.E, s.J,
            s.A, s.b, s.dv, s.perr, s.rerr, s.norm, z_next)
        return s.E, s.perr, s.rerr, s.norm, z_next

    # -- main loop

    def run(self, deadline: float, max_iterations: int | None,
            stop: threading.Event | None = None) -> str:
        """Iterate until every problem is solved, the deadline, the iteration cap or ``stop``.

        Returns:
            ``'done'``, ``'deadline'``, ``'iterations'`` or ``'stopped'``.
        """
        k, o = self.k, self.options
        ptol, rtol = o.position_tolerance, o.orientation_tolerance
        burst = k.compiled and self.P == 1
        # Running mean of this search's iteration time [s] (measured per request, so an
        # answer never depends on earlier requests).
        cost = 0.0
        while True:
            start = time.perf_counter()
            # Start an iteration only if it finishes in time; a single problem always gets
            # one (its seed is checked even when the set-up used the whole timeout).
            if start + _COST_MARGIN * cost > deadline and (self.iterations or self.P > 1):
                return 'deadline'
            if stop is not None and stop.is_set():
                return 'stopped'
            if max_iterations is not None and self.iterations >= max_iterations:
                return 'iterations'
            if burst:
                # As many iterations as fit before the deadline at the measured mean cost
                # (at most _BURST: the clock is read between bursts).
                budget = 1 if cost == 0.0 else max(1, min(
                    _BURST, int((deadline - start) / (_COST_MARGIN * cost))))
                if max_iterations is not None:
                    budget = min(budget, max_iterations - self.iterations)
                ran = self._search_burst(budget)
                self.iterations += abs(ran)
                elapsed = (time.perf_counter() - start) / abs(ran)
                cost = elapsed if cost == 0.0 else 0.7 * cost + 0.3 * min(elapsed, 2.0 * cost)
                if ran > 0:
                    continue
                # The last iteration has a candidate or needs fresh samples: finish it here.
                s = self._scratch
                e, perr, rerr, norm, J = s.E, s.perr, s.rerr, s.norm, s.Z_next.copy()
            elif k.compiled:
                e, perr, rerr, norm, z_next = self._iterate()
                J = z_next  # the step is taken: rows are dropped from it as from J
            else:
                X_WL, X_tip = _tip_poses(self, self.z, self.rows)
                e, perr, rerr = _errors(k, X_tip, self.rows.target)
                J = _jacobian(k, X_WL)
                norm = np.vecdot(e, e)
            if not burst:  # (the burst kernel counted it and tracked the best row)
                self.iterations += 1
                self._track_best(norm, perr, rerr)
            vetoed = None
            if burst:  # a few rows: Python floats are cheaper than numpy masks
                p_l, r_l = perr.tolist(), rerr.tolist()
                candidates = [r for r, x in enumerate(p_l)
                              if x < ptol and (k.position_only or r_l[r] < rtol)]
                if candidates:
                    vetoed = self._accept(candidates, perr, rerr)
                    if self.solved[0]:
                        return 'done'
            elif perr.min() < ptol:  # rare: test the full condition only then
                converged = perr < ptol
                if not k.position_only:
                    converged &= rerr < rtol
                if converged.any():
                    vetoed = self._accept(np.flatnonzero(converged), perr, rerr)
            if vetoed is not None:
                if self.solved.all():
                    return 'done'
                keep = ~self.solved[self.prob]
                if not keep.all():
                    self._compact(keep)
                    e, J, norm, vetoed = e[keep], J[keep], norm[keep], vetoed[keep]
            # A row restarts when it has not improved by 1 % for stall_iterations, or after
            # restart_iterations in all (row_due: the iteration at which it restarts).
            it = self.iterations
            improved = norm < self.row_best * _STALL_RATIO
            np.copyto(self.row_best, norm, where=improved)
            np.copyto(self.row_due, np.minimum(self.row_end, it + o.stall_iterations),
                      where=improved)
            restart = self.row_due <= it
            if vetoed is not None:
                restart |= vetoed
            if k.compiled:
                self.z = J
            else:
                self._step(e, J, norm)
            if restart.any():
                rows = np.flatnonzero(restart)
                self._restart(rows)
                self.row_best[rows] = np.inf
                self.row_end[rows] = it + o.restart_iterations
                self.row_due[rows] = it + o.stall_iterations
                np.add.at(self.seeds_tried, self.prob[rows], 1)
            if burst:
                continue
            elapsed = time.perf_counter() - start
            # Spikes (preemption, GC) are clipped so one slow iteration does not stop later
            # searches from starting.
            cost = elapsed if cost == 0.0 else 0.7 * cost + 0.3 * min(elapsed, 2.0 * cost)

    def _track_best(self, norm: FloatArray, perr: FloatArray, rerr: FloatArray) -> None:
        """Remember each problem's best row so far (for ``return_approximate``)."""
        if self.P == 1:
            r = int(np.argmin(norm))
            if norm[r] < self.best_norm[0]:
                self.best_norm[0] = norm[r]
                self.best_z[0] = self.z[r]
                self.best_error[0] = perr[r], rerr[r]
            return
        better = np.flatnonzero(norm < self.best_norm[self.prob])
        if better.size:
            rows = better[np.lexsort((norm[better], self.prob[better]))]
            ps = self.prob[rows]
            rows = rows[np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])]  # best row per problem
            ps = self.prob[rows]
            self.best_norm[ps] = norm[rows]
            self.best_z[ps] = self.z[rows]
            self.best_error[ps, 0] = perr[rows]
            self.best_error[ps, 1] = rerr[rows]

    def _accept(self, rows: IntArray | list[int], perr: FloatArray,
                rerr: FloatArray) -> BoolArray:
        """Check converged rows (bounds, validity); returns the vetoed rows (to restart)."""
        vetoed = np.zeros(self.z.shape[0], dtype=bool)
        k = self.k
        for r in rows:
            p = int(self.prob[r])
            if self.solved[p]:
                continue
            z = self.z[r]
            # (z_lower/z_upper are -inf/inf where a variable is not clipped)
            if k.clip_z.size and ((z < k.z_lower).any() or (z > k.z_upper).any()):
                vetoed[r] = True  # cannot happen: every step is clipped
                continue
            q = self.base[p].copy()
            q[k.q_active] = z
            if k.has_mimic:
                self.model.apply_mimic(q)
            if self.validity is not None and not self.validity(q.copy()):
                self.vetoed[p] += 1
                vetoed[r] = True
                # The ranked pool leads back to the same basin: restart from fresh samples.
                self.pool_next[p] = self.pool.shape[1]
                continue
            self.solved[p] = True
            self.solution[p] = q
            self.solution_error[p] = perr[r], rerr[r]
            self.finished_iter[p] = self.iterations
            self.finished_time[p] = time.perf_counter()
        return vetoed

    def _compact(self, keep: BoolArray) -> None:
        for name in ('z', 'prob', 'row_best', 'row_end', 'row_due'):
            setattr(self, name, getattr(self, name)[keep])
        self._bind_rows()

    def _step(self, e: FloatArray, J: FloatArray, norm: FloatArray) -> None:
        """One damped least-squares step for every row (in place)."""
        k, o = self.k, self.options
        m, n = J.shape[-2], J.shape[-1]
        lam = o.damping * norm + _LAMBDA_MIN
        Jt = np.swapaxes(J, -1, -2)
        if m <= n:
            A = J @ Jt
            A.reshape(-1, m * m)[:, ::m + 1] += lam[:, None]
            dv = (Jt @ np.linalg.solve(A, e[..., None]))[..., 0]
        else:
            A = Jt @ J
            A.reshape(-1, n * n)[:, ::n + 1] += lam[:, None]
            dv = np.linalg.solve(A, Jt @ e[..., None])[..., 0]
        np.minimum(np.maximum(dv, -o.max_step, out=dv), o.max_step, out=dv)
        if k.additive:
            self.z += dv
        else:
            q = self._full(self.z, self.prob)
            v = np.zeros((q.shape[0], self.model.nv))
            v[:, k.v_active] = dv
            self.z = kinematics.integrate(self.model, q, v)[:, k.q_active]
        self._project(self.z)


_POOL_FACTOR = 32
'''Restart pool size per problem, in multiples of ``num_seeds``.'''
_TABLE_SIZE = 2048
'''Cached pool samples per kernel (single problems draw their pools from them).'''
_TABLE_SEED = 0x1C0FFEE
_CYCLE = np.arange(2 * _TABLE_SIZE, dtype=np.intp) % _TABLE_SIZE
'''Table rows ``0 .. N - 1`` twice: ``_CYCLE[off:off + size]`` is a wrapping window.'''
_POOL_CHUNK = 4096
'''Pool samples evaluated in one array (bounds memory).'''
_BURST = 16
'''Most compiled iterations between two readings of the clock (single problems).'''
_COST_MARGIN = 1.25
'''An iteration starts only if ``now + margin * mean iteration time`` is before the deadline.'''
_POOL_ROWS = 4096
MAX_TIP_LINKS = 16
'''Most tip links in one request (each distinct set of tips is a problem to set up).'''
'''Pool samples of all problems together, at most (bounds the set-up cost of batches).'''


# ------------------------------------------------------------------------------ public API


def damped_least_squares(J: FloatArray, twist: FloatArray, damping: float) -> FloatArray:
    """``Jᵀ(JJᵀ + λ²I)⁻¹ twist`` through the SVD (differential IK step).

    Singular values below ``eps · max(σmax, 1)`` are dropped.

    Args:
        J: ``(m, n)`` Jacobian.
        twist: ``(m,)`` desired velocity.
        damping: ``λ`` (same units as the singular values).

    Returns:
        ``(n,)`` joint velocities.
    """
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    keep = s > np.finfo(float).eps * max(float(s.max(initial=0.0)), 1.0)
    gain: FloatArray = np.where(keep, s / (s * s + damping * damping + (~keep)), 0.0)
    out: FloatArray = Vt.T @ (gain * (U.T @ twist))
    return out


def retarget_pose(X_WT: FloatArray, X_WF: FloatArray, X_WP: FloatArray) -> FloatArray:
    """Target ``(4, 4)`` of link P such that its rigidly attached frame F reaches ``X_WT``.

    ``X_WT @ X_FP`` with ``X_FP = X_WF⁻¹ X_WP`` (current poses of F and P in W).
    """
    out: FloatArray = X_WT @ np.linalg.solve(X_WF, X_WP)
    return out


def _invalid(model: RobotModel, seed: FloatArray | None, message: str, start: float) -> IKResult:
    q = np.array(seed if seed is not None else model.default_positions, dtype=np.float64)
    return IKResult(IKStatus.INVALID_REQUEST, q, math.inf, math.inf, 0,
                    time.perf_counter() - start, 0, message)


_BOTTOM_ROW = np.array([0.0, 0.0, 0.0, 1.0])


def _det3(r0: list[float], r1: list[float], r2: list[float]) -> float:
    """Determinant of the 3 x 3 matrix with rows ``r0 r1 r2`` (their first 3 entries)."""
    (a, b, c), (d, e, f), (g, h, i) = r0[:3], r1[:3], r2[:3]
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def _check_target(X: Any, what: str) -> tuple[FloatArray | None, str]:
    """``(X, '')`` with the rotation re-orthonormalized, or ``(None, reason)``."""
    try:
        a = np.array(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        return None, f'{what} is not a numeric array ({err})'
    if a.shape != (4, 4):
        return None, f'{what} must have shape (4, 4), got {a.shape}'
    # Scalar checks (Python floats): a dozen numpy calls on 16 numbers cost ~20 µs.
    r0, r1, r2, r3 = a.tolist()
    if not all(map(math.isfinite, r0 + r1 + r2 + r3)):
        return None, f'{what} is not finite'
    if max(abs(r3[0]), abs(r3[1]), abs(r3[2]), abs(r3[3] - 1.0)) > 1e-9:
        return None, f'{what} has bottom row {r3}, expected [0, 0, 0, 1]'
    deviation = 0.0  # max |RᵀR - I|
    for i in range(3):
        for j in range(i, 3):
            x = r0[i] * r0[j] + r1[i] * r1[j] + r2[i] * r2[j] - (1.0 if i == j else 0.0)
            deviation = max(deviation, abs(x))
    if deviation > _ORTHONORMAL_TOL or _det3(r0, r1, r2) <= 0.0:
        return None, f'{what} rotation is not orthonormal with det +1'
    if deviation > 1e-12:
        U, _, Vt = np.linalg.svd(a[:3, :3])
        a[:3, :3] = U @ Vt
    a[3] = _BOTTOM_ROW
    return a, ''


def _check_seed(model: RobotModel, seed: Any) -> tuple[FloatArray | None, str]:
    if seed is None:
        return np.array(model.default_positions, dtype=np.float64), ''
    try:
        a = np.array(seed, dtype=np.float64)
    except (TypeError, ValueError) as err:
        return None, f'seed is not a numeric array ({err})'
    if a.shape != (model.nq,):
        return None, f'seed must have shape ({model.nq},), got {a.shape}'
    if not np.isfinite(a).all():
        return None, 'seed is not finite'
    if not kinematics.plan(model).floating_labels:
        return a, ''
    return _check_seed_quaternions(model, a)


def _check_seed_quaternions(model: RobotModel, seeds: FloatArray) -> tuple[FloatArray | None, str]:
    """``(seeds, '')``, or ``(None, reason)`` when a FLOATING quaternion is degenerate."""
    p = kinematics.plan(model)
    if p.floating_labels:
        try:
            check_quat_xyzw(seeds[..., p.floating_q[:, 3:]], 'seed',
                            'the quaternion (rot_x, rot_y, rot_z, rot_w)', p.floating_labels)
        except InvalidArgumentError as err:
            return None, str(err)
    return seeds, ''


def _resolve_timeout(timeout: float | None, group: JointModelGroup) -> tuple[float | None, str]:
    if timeout is None:
        return float(group.default_ik_timeout), ''
    try:
        t = as_finite_float(timeout, 'IK', 'timeout')
    except RobotStateCoreError as err:
        return None, str(err)
    if not math.isfinite(t):
        return None, f'timeout must be finite, got {timeout!r}'
    return (t if t > 0.0 else float(group.default_ik_timeout)), ''


def _pool_size(K: int, P: int) -> int:
    """Restart pool samples per problem of ``P`` problems with ``K`` rows each.

    While the kernels compile (interpreted twins, jit/background.py) the pool is only the
    ``K - 1`` first restarts: ranking a full pool evaluates FK of 32 K samples, 90 % of an
    interpreted solve (so a 50 ms timeout ran out before the third iteration). The answers
    then differ from the compiled kernels' (another pool), and are checked the same way.
    """
    if kernels.interpreted():
        return max(K - 1, 1)
    return max(K - 1, min(_POOL_FACTOR * K, _POOL_ROWS // P))


def _cache(cache: IKCache | None) -> IKCache:
    """``cache``, or the process's default one for ``None`` (an empty cache is falsy)."""
    return default_ik_cache() if cache is None else cache


def _resolve(cache: IKCache, model: RobotModel, group_name: str, tip_names: Sequence[str],
             n_targets: int, position_only: bool
             ) -> tuple[Any, _KernelCache | None, tuple[int, ...], str]:
    """Group, problem set-up and target order for the request, or an error message.

    The tips are a set: the problem's tips are in link order, and ``order`` lists the
    request's targets in that order. A request whose group name is a ``str`` and tips a
    ``tuple`` of ``str`` finds its resolution in the cache's memo once it has resolved.
    """
    key = None
    if type(group_name) is str and isinstance(tip_names, tuple) and all(
            type(t) is str for t in tip_names):
        key = (group_name, tip_names, n_targets, bool(position_only))
        hit = cache.named(model, key)
        if hit is not None:
            group, tips, order = hit
            return group, _kernel(cache, model, group, tips, position_only), order, ''
    group, tips, order, msg = _resolve_checked(model, group_name, tip_names, n_targets)
    if msg:
        return group, None, (), msg
    try:
        entry = _kernel(cache, model, group, tips, position_only)
    except ValueError as err:
        return group, None, (), str(err)
    if key is not None:
        cache.remember_name(model, key, (group, tips, order))
    return group, entry, order, ''


def _resolve_checked(model: RobotModel, group_name: str, tip_names: Sequence[str],
                     n_targets: int) -> tuple[Any, tuple[int, ...], tuple[int, ...], str]:
    """:func:`_resolve`'s checks: group, tips in link order and the targets' order."""
    try:
        group = model.group(group_name)
    except RobotStateCoreError as err:
        return None, (), (), str(err)
    if isinstance(tip_names, str) or not isinstance(tip_names, Sequence) or not all(
            isinstance(t, str) for t in tip_names):
        return group, (), (), f'tip links must be a sequence of link names, got {tip_names!r}'
    if len(tip_names) > MAX_TIP_LINKS:
        return group, (), (), (f'{len(tip_names)} tip links; at most {MAX_TIP_LINKS} per '
                               'request')
    tips = tuple(tip_names) or ((group.tip_link,) if group.tip_link else ())
    if not tips:
        return group, (), (), (f'group {group_name!r} is not a chain and has no tip link; pass '
                               'tip_links')
    if len(tips) != n_targets:
        return group, (), (), (f'{n_targets} target(s) for {len(tips)} tip link(s) '
                               f'{list(tips)}; give one target per tip')
    if len(set(tips)) != len(tips):
        return group, (), (), f'tip links {list(tips)} repeat a link'
    indices = []
    for name in tips:
        if not model.has_link(name):
            return group, (), (), str(UnknownNameError(name, 'link', model.link_names))
        indices.append(model.link_index(name))
    if group.active_variable_count == 0:
        return group, (), (), f'group {group_name!r} has no active variables'
    order = tuple(sorted(range(len(indices)), key=indices.__getitem__))
    return group, tuple(indices[i] for i in order), order, ''


def solve_ik(model: RobotModel, request: IKRequest, *, cache: IKCache | None = None) -> IKResult:
    """Solve one IK request (MoveIt ``RobotState::setFromIK``, RS-70..RS-80).

    Args:
        model: The robot model (``RobotModel``).
        request: Group, targets ``X_WT`` in the model frame, tips, seed, timeout [s], options
            and validity callback.
        cache: Where the problem's set-up is kept (:class:`~robot_state_core.ik.cache.IKCache`);
            ``None``: the process's default cache. The answer does not depend on it.

    Returns:
        The result. Malformed requests (unknown group or link, wrong shapes, non-finite or
        non-rigid targets, a tip the group does not move) give ``INVALID_REQUEST`` with a
        ``message``; no exception is raised for them.

    Raises:
        InvalidTypeError: ``request`` is not an :class:`IKRequest`, or its ``options`` are not
            :class:`IKOptions` (programmer errors; a ``TypeError``).
        Exception: Whatever the validity callback raises is propagated.
    """
    _ready_ik_kernels()  # one-time kernel set-up of the process, before the clock starts
    start = time.perf_counter()
    if not isinstance(request, IKRequest):
        raise InvalidTypeError(f'solve_ik: request must be an IKRequest, got '
                               f'{type(request).__name__}')
    if not isinstance(request.options, IKOptions):
        raise InvalidTypeError(f'solve_ik: request.options must be IKOptions, got '
                               f'{type(request.options).__name__}')
    seed, msg = _check_seed(model, request.seed)
    if seed is None:
        return _invalid(model, None, f'solve_ik: {msg}', start)
    targets = request.targets
    if isinstance(targets, np.ndarray) and targets.shape == (4, 4):
        targets = (targets,)
    if not isinstance(targets, Sequence | np.ndarray):
        return _invalid(model, seed, f'solve_ik: targets must be a sequence of (4, 4) poses, '
                        f'got {targets!r}', start)
    checked = []
    for i, X in enumerate(targets):
        a, msg = _check_target(X, f'target {i}')
        if a is None:
            return _invalid(model, seed, f'solve_ik: {msg}', start)
        checked.append(a)
    if not checked:
        return _invalid(model, seed, 'solve_ik: no targets', start)
    group, k, order, msg = _resolve(_cache(cache), model, request.group,
                                    request.tip_links, len(checked),
                                    request.options.position_only)
    if k is None:
        return _invalid(model, seed, f'solve_ik: {msg}', start)
    timeout, msg = _resolve_timeout(request.timeout, group)
    if timeout is None:
        return _invalid(model, seed, f'solve_ik: {msg}', start)
    X_WT = checked[0][None, None] if len(checked) == 1 else np.stack(
        [checked[i] for i in order])[None]
    results = _run(model, k, seed[None], X_WT, request.options, request.validity_callback,
                   start, start + timeout, request.stop)
    return results[0]


def solve_ik_batch(model: RobotModel, group: str, targets: ArrayLike,
                   seeds: ArrayLike | None = None, *, tip_link: str | None = None,
                   timeout_per_target: float | None = None,
                   options: IKOptions | None = None,
                   validity_callback: ValidityCallback | None = None,
                   cache: IKCache | None = None) -> list[IKResult]:
    """Solve many single-tip IK problems at once, iterated as one array.

    Every target gets ``options.num_seeds`` rows (its seed plus random samples); a target's
    rows are dropped as soon as it is solved. The whole batch shares one deadline,
    ``len(targets) * timeout_per_target`` after the call starts; each result's ``elapsed`` is
    the time until that target was solved (or the batch ended).

    Args:
        model: The robot model.
        group: Group name.
        targets: ``(M, 4, 4)`` tip poses ``X_WT`` in the model frame [m].
        seeds: ``(M, nq)`` or ``(nq,)`` (shared) seeds; ``None``: the default positions.
        tip_link: Tip link; ``None``: the group's tip link.
        timeout_per_target: Budget per target [s]; ``None`` or ``<= 0``: the group default.
        options: Solver settings (``random_seed`` seeds the whole batch).
        validity_callback: ``fn(q) -> bool`` veto on full ``(nq,)`` candidates.
        cache: Where the problem's set-up is kept; ``None``: the process's default cache.

    Returns:
        One :class:`IKResult` per target, in order. A malformed target gives INVALID_REQUEST
        for that target; a malformed group, tip, seed array or timeout gives INVALID_REQUEST for
        every target.
    """
    _ready_ik_kernels()  # one-time kernel set-up of the process, before the clock starts
    start = time.perf_counter()
    opts = options if options is not None else IKOptions()
    if not isinstance(opts, IKOptions):
        raise InvalidTypeError(f'solve_ik_batch: options must be IKOptions, got '
                               f'{type(opts).__name__}')
    try:
        T = np.asarray(targets, dtype=np.float64)
    except (TypeError, ValueError) as err:
        return [_invalid(model, None, f'solve_ik_batch: targets are not a numeric (M, 4, 4) '
                         f'array ({err})', start)]
    if T.ndim == 2:
        T = T[None]
    if T.ndim != 3 or T.shape[1:] != (4, 4):
        return [_invalid(model, None, f'solve_ik_batch: targets must have shape (M, 4, 4), '
                         f'got {T.shape}', start) for _ in range(max(1, len(T) if T.ndim else 1))]
    M = T.shape[0]
    if seeds is None:
        S = np.tile(np.asarray(model.default_positions, dtype=np.float64), (M, 1))
    else:
        try:
            S = np.array(seeds, dtype=np.float64)
        except (TypeError, ValueError):
            S = np.full((0,), np.nan)
        if S.shape == (model.nq,):
            S = np.tile(S, (M, 1))
    if S.shape != (M, model.nq) or not np.all(np.isfinite(S)):
        return [_invalid(model, None, f'solve_ik_batch: seeds must be finite with shape '
                         f'({M}, {model.nq}) or ({model.nq},), got {S.shape}', start)
                for _ in range(M)]
    _, msg = _check_seed_quaternions(model, S)
    if msg:
        return [_invalid(model, None, f'solve_ik_batch: {msg}', start) for _ in range(M)]
    g, k, _, msg = _resolve(_cache(cache), model, group,
                            (tip_link,) if tip_link else (), 1, opts.position_only)
    if k is None:
        return [_invalid(model, S[i], f'solve_ik_batch: {msg}', start) for i in range(M)]
    timeout, msg = _resolve_timeout(timeout_per_target, g)
    if timeout is None:
        return [_invalid(model, S[i], f'solve_ik_batch: {msg}', start) for i in range(M)]
    results: list[IKResult | None] = [None] * M
    good, checked = [], []
    for i in range(M):
        a, msg = _check_target(T[i], f'target {i}')
        if a is None:
            results[i] = _invalid(model, S[i], f'solve_ik_batch: {msg}', start)
        else:
            good.append(i)
            checked.append(a)
    if good:
        solved = _run(model, k, S[good], np.stack(checked)[:, None], opts, validity_callback,
                      start, start + timeout * M)
        for i, r in zip(good, solved, strict=True):
            results[i] = r
    return [r for r in results if r is not None]


def prepare_ik(model: RobotModel, group: str, tip_links: Sequence[str] = (), *,
               position_only: bool = False, seed: ArrayLike | None = None,
               cache: IKCache | None = None) -> None:
    """Compile the IK kernel of a (group, tips) pair and fill its sample table now.

    The first request for a (group, tips, position_only) combination otherwise pays about
    1-2 ms of set-up inside its timeout. The first call of a process also compiles or loads
    the FK, Jacobian and IK kernels (before any request's clock, decision S17). Nodes call
    this once at start-up for the groups they serve. Results do not depend on whether it was
    called.

    Args:
        model: The robot model.
        group: Group name.
        tip_links: Tip links (``()``: the group's tip link).
        position_only: Prepare position-only requests instead of full-pose ones.
        seed: ``(nq,)`` configuration whose non-group variables the requests will use (the
            cached constants depend on them); ``None``: the default positions.
        cache: The cache the requests will use; ``None``: the process's default cache.

    Raises:
        InvalidArgumentError: The group, tips or seed are invalid (the message says why).
    """
    _ready_ik_kernels()  # the process's one-time kernel set-up (decision S17) is paid here
    q, msg = _check_seed(model, seed)
    if q is None:
        raise InvalidArgumentError(f'prepare_ik: {msg}')
    tips = tuple(tip_links)
    count = len(tips) or 1
    _, entry, _, msg = _resolve(_cache(cache), model, group, tips, count,
                                position_only)
    if entry is None:
        raise InvalidArgumentError(f'prepare_ik: {msg}')
    search = _Search(model, entry, q[None], np.broadcast_to(np.eye(4), (1, count, 4, 4)),
                     IKOptions(num_seeds=1), None, _generator(0))
    table = search._table()
    if table is not None and not kernels.interpreted():  # twins: requests fill what they use
        z_table, p_table, r_table, known = table
        z = z_table if entry.kernel.sample_all else np.where(
            entry.kernel.sampled_mask, z_table, search.base_z[0])
        X_WL, X_tip = _tip_poses(search, z, search.rows_of_one)
        p_table[:], r_table[:] = _in_anchor(entry.kernel, X_WL, X_tip)
        known[:] = True


_THREAD = threading.local()


def _generator(seed: int | None) -> np.random.Generator:
    """A generator for ``seed``, reset to its seeded state.

    Generators are cached per thread (creating one costs 10-30 us); ``None`` gives this
    thread's free-running generator.
    """
    cache: dict[int | None, tuple[np.random.Generator, Any]] | None = getattr(
        _THREAD, 'generators', None)
    if cache is None:
        cache = _THREAD.generators = {}
    hit = cache.get(seed)
    if hit is None:
        if len(cache) >= 64:
            cache.clear()
        gen = np.random.default_rng(seed)
        cache[seed] = (gen, gen.bit_generator.state)
        return gen
    gen, state = hit
    if seed is not None:
        gen.bit_generator.state = state
    return gen


def _run(model: RobotModel, entry: _KernelCache, seeds: FloatArray, X_WT: FloatArray,
         options: IKOptions, validity: ValidityCallback | None, start: float,
         deadline: float, stop: threading.Event | None = None) -> list[IKResult]:
    """Search ``P`` problems (seeds ``(P, nq)``, targets ``(P, T, 4, 4)``) as one array."""
    rng = _generator(options.random_seed)
    search = _Search(model, entry, seeds, X_WT, options, validity, rng)
    reason = search.run(deadline, options.max_iterations, stop)
    end = time.perf_counter()
    out = []
    for p in range(search.P):
        if search.solved[p]:
            perr, rerr = search.solution_error[p]
            out.append(IKResult(IKStatus.SUCCESS, search.solution[p].copy(), float(perr),
                                float(rerr), int(search.finished_iter[p]),
                                float(search.finished_time[p] - start),
                                int(search.seeds_tried[p])))
            continue
        status = (IKStatus.NO_SOLUTION if search.vetoed[p] or reason == 'iterations'
                  else IKStatus.TIMED_OUT)
        notes = []
        if search.vetoed[p]:
            notes.append(f'{int(search.vetoed[p])} candidate(s) rejected by the validity '
                         'callback')
        notes.append({'deadline': 'timeout expired', 'iterations': 'iteration budget used',
                      'done': 'search ended', 'stopped': 'stopped (request.stop was set)'}[reason])
        if options.return_approximate:
            q = search._full(search.best_z[p][None], np.array([p]))[0]
        else:
            q = search.base[p].copy()
        perr, rerr = search.best_error[p]
        out.append(IKResult(status, q, float(perr), float(rerr), search.iterations,
                            end - start, int(search.seeds_tried[p]), '; '.join(notes)))
    search.release()  # the results hold copies
    return out
