"""The per-(model, group, tips) IK problem: its index tables, compiled once and cached.

Step 1 of the solver's algorithm (:mod:`.solver`): a :class:`Problem` holds the active
variables ``z`` of a (group, set of tips, position-only) problem, the velocity columns of the
joints they move (mimic followers folded onto their sources), the tips' Jacobian tables, the
bounds, wrapping and sampling tables, and the step tables of the compiled iteration. A
:class:`ProblemEntry` keeps a problem with its seed table (:mod:`.seeds`) and per-thread
workspace (:mod:`.search`) in a bounded :class:`~.cache.IKCache`, never on the model.

:func:`project` and :func:`full_configurations` are the two operations on rows of ``z`` that
the search and the numpy reference iteration (:mod:`.reference`) share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import threading

import numpy as np

from robot_state_core import kinematics
from robot_state_core._typing import BoolArray, FloatArray, IntArray
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_types import JOINT_TYPES
from robot_state_core.ik.cache import IKCache
from robot_state_core.kinematics.jacobian import link_columns
from robot_state_core.kinematics.plan import LinkColumns
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import unit_quat_xyzw, wrap_angle

__all__ = [
    'LAMBDA_MIN',
    'Problem',
    'ProblemEntry',
    'compile_problem',
    'full_configurations',
    'problem_entry',
    'project',
]

LAMBDA_MIN = 1e-9
'''The step's smallest damping ``λ`` (both iterations: ``λ = damping · |e|² + LAMBDA_MIN``).'''


@dataclass(frozen=True)
class Problem:
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
    # numpy reference iteration (ik.reference)
    steps: IntArray  # (A, 2) z index and column of each additive variable (compiled step)
    multi_steps: IntArray  # (F, 3) kind, first z index, first column of each floating or
    # rpy_floating joint
    mimic: IntArray  # (M, 2) mimic variable, source (q indices) for the compiled iteration
    mimic_coefficients: FloatArray  # (M, 2) multiplier, offset
    tip_offsets: IntArray  # (T + 1,) slices of the tips' Jacobian tables below
    tip_table: IntArray  # (C, 4) the tips' LinkColumns.columns, stacked (writable, see below)
    tip_frames: FloatArray  # (C, 4, 3) the tips' LinkColumns.frames, stacked (writable)


@dataclass
class ProblemEntry:
    """A problem's entry of an :class:`~robot_state_core.ik.cache.IKCache`."""

    problem: Problem
    # The seed table (seeds.seed_table) and the bytes of the variables that key it.
    table: tuple[bytes, tuple[FloatArray, FloatArray, FloatArray, BoolArray]] | None = None
    anchor_pose: FloatArray | None = None  # X_WA of a fixed anchor (``Problem.anchor_fixed``)
    # Per thread: the idle workspace of single compiled searches (see search._Workspace).
    local: threading.local = field(default_factory=threading.local)


def problem_entry(cache: IKCache, model: RobotModel, group: JointModelGroup,
                  tips: tuple[int, ...], position_only: bool) -> ProblemEntry:
    """The set-up of a problem (tips in link order), from ``cache`` or built now."""
    return cache.problem(model, (group.name, tips, position_only), lambda: ProblemEntry(
        compile_problem(model, group, tips, position_only)))


def compile_problem(model: RobotModel, group: JointModelGroup, tips: tuple[int, ...],
                    position_only: bool) -> Problem:
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
    return Problem(
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


def project(k: Problem, z: FloatArray) -> FloatArray:
    """Clip bounded variables, wrap angles, normalize quaternions of rows ``z`` (in place)."""
    np.maximum(z, k.z_lower, out=z)
    np.minimum(z, k.z_upper, out=z)
    if k.wrap_z.size:
        z[:, k.wrap_z] = wrap_angle(z[:, k.wrap_z])
    if k.quat_z.size:
        z[:, k.quat_z] = unit_quat_xyzw(z[:, k.quat_z])
    return z


def full_configurations(model: RobotModel, k: Problem, base: FloatArray, z: FloatArray,
                        prob: IntArray) -> FloatArray:
    """Full configurations ``(R, nq)`` of rows ``z`` of problems ``prob`` (mimic applied).

    Args:
        model: The robot model.
        k: The problem.
        base: ``(P, nq)`` every problem's configuration outside ``z`` (its projected seed).
        z: ``(R, na)`` the rows' active variables.
        prob: ``(R,)`` each row's problem.
    """
    q = base[prob]
    q[:, k.q_active] = z
    model.apply_mimic(q)
    return q
