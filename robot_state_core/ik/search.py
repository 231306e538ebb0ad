"""The IK search: rows of one or more problems iterated as one array, restarts and candidates.

Steps 2-4 of the solver's algorithm (:mod:`.solver`) and the bookkeeping around them: a
:class:`Search` holds ``num_seeds`` rows per problem (:class:`Rows`: what a set of rows keeps
fixed), starts them from the seed and the restart pool (:mod:`.seeds`), iterates them, tracks
each problem's best row, restarts rows that stall, and hands converged rows to the bounds check
and the validity callback. Rows of solved problems are dropped.

The iteration is the compiled one (:mod:`robot_state_core.ik.compiled`, imported on the first
request through :func:`ik_kernels`): one kernel call per iteration for several problems, and
for a single problem compiled bursts of iterations (best row, stall and pool restarts
included) that return to Python to read the clock, for candidates and for fresh samples; its
set-up is one compiled call too. The arrays of a single compiled search live in a per-thread
workspace of the problem's cache entry, reused from request to request (``_Workspace``). The
numpy reference iteration (:mod:`.reference`) runs only for a problem whose ``compiled`` flag
the tests cleared.
"""

from __future__ import annotations

from dataclasses import dataclass
import threading
import time
from typing import Any

import numpy as np

from robot_state_core import kinematics
from robot_state_core._typing import BoolArray, FloatArray, IntArray
from robot_state_core.ik import reference
from robot_state_core.ik.problem import LAMBDA_MIN, ProblemEntry, project
from robot_state_core.ik.seeds import (
    anchor_targets,
    in_anchor,
    pool_score,
    pool_size,
    sample_rows,
    seed_table,
    SeedTable,
    table_window,
)
from robot_state_core.ik.types import IKOptions, ValidityCallback
from robot_state_core.jit import kernels
from robot_state_core.kinematics.forward import run_forward
from robot_state_core.kinematics.plan import ready_kernels
from robot_state_core.model.robot_model import RobotModel

__all__ = ['Rows', 'Search', 'ik_kernels', 'ready_ik_kernels', 'tip_poses']

_STALL_RATIO = 0.99
'''A row "progresses" when its error norm drops below this fraction of its best so far.'''
_POOL_CHUNK = 4096
'''Pool samples evaluated in one array (bounds memory).'''
_BURST = 16
'''Most compiled iterations between two readings of the clock (single problems).'''
_COST_MARGIN = 1.25
'''An iteration starts only if ``now + margin * mean iteration time`` is before the deadline.'''


# ------------------------------------------------------------------------------ rows


@dataclass(frozen=True)
class Rows:
    """What a set of rows keeps fixed: the configurations ``z`` completes, and the targets."""

    base: FloatArray  # (R, nq), or (1, nq) shared: non-active variables of each row
    target: FloatArray  # (T, R, 4, 4), or (T, 1, 4, 4) shared: X_WT

    @staticmethod
    def bind(base: FloatArray, X_WT: FloatArray, prob: IntArray | None) -> Rows:
        """Rows of problems ``prob`` (``None``: every row belongs to problem 0)."""
        if prob is None:
            return Rows(base[:1], X_WT[0][:, None])
        return Rows(base[prob], np.swapaxes(X_WT[prob], 0, 1))


def tip_poses(search: Search, z: FloatArray, rows: Rows) -> tuple[FloatArray, FloatArray]:
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


# ------------------------------------------------------------------------------ compiled iteration


_ik_compiled: Any = None
_ik_ready = False
_NO_LOCALS = np.zeros((0, 0, 4, 4))
_ORIGIN = np.zeros((1, 3))


def ik_kernels() -> Any:
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


def ready_ik_kernels() -> None:
    """Compile or load the FK, Jacobian and IK kernels once per process (before any clock)."""
    global _ik_ready
    ready_kernels()
    if not _ik_ready and not kernels.interpreted():  # twins need no warming
        ik_kernels().warm_up()
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
    def of(search: Search, R: int) -> _Scratch:
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
    filled in place instead. Each thread keeps one idle workspace per problem entry
    (``ProblemEntry.local``): a search takes it (or allocates one) and ``solver._run`` gives it
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
    def take(search: Search, K: int, size: int) -> _Workspace:
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

    def give_back(self, entry: ProblemEntry) -> None:
        """Make this workspace this thread's idle one again (the search is over)."""
        entry.local.idle = self


# ------------------------------------------------------------------------------ search


class Search:
    """Rows of one or more IK problems, iterated as one array.

    Every problem ``p`` owns ``num_seeds`` rows; ``prob`` maps rows to problems. Rows of
    solved problems are dropped.
    """

    def __init__(self, model: RobotModel, entry: ProblemEntry, seeds: FloatArray, X_WT: FloatArray,
                 options: IKOptions, validity: ValidityCallback | None,
                 rng: np.random.Generator) -> None:
        k = entry.problem
        self.model, self.entry, self.k, self.options = model, entry, k, options
        self.validity, self.rng = validity, rng
        P = seeds.shape[0]
        self.P = P
        self.workspace: _Workspace | None = None
        if P == 1 and k.compiled:
            self._init_single(seeds, X_WT)
            return
        base = seeds.copy()
        base[:, k.q_active] = project(k, base[:, k.q_active])
        model.apply_mimic(base)
        self.base = base  # (P, nq): projected seeds; non-group variables never change
        self.base_z = base[:, k.q_active]
        self.targets = X_WT  # (P, T, 4, 4)
        self.plan = kinematics.plan(model)
        self.rows_of_one = Rows(base[:1], X_WT[0][:, None])
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
        size = pool_size(K, 1)
        ws = _Workspace.take(self, K, size)
        self.workspace = ws
        base = ws.base
        base[0] = seeds[0]
        self.base = base
        self.base_z = ws.base_z
        self.targets = X_WT
        rows = Rows(base, X_WT[0][:, None])
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
        table = (seed_table(self.entry, base, self.base_z) if k.sample_all and o.ranked_restarts
                 else None)
        if table is None:
            self._init_single_pool(seeds, K)
            return
        pick = table_window(self.rng, size)
        # The ranking's targets, in the table's anchor frame (T, 1, 4, 4).
        X_AT = ws.targets if k.anchor == 0 else np.ascontiguousarray(
            anchor_targets(self.entry, self.plan, base, self.targets[0])[:, None])
        for _ in range(2):
            unknown: int = ik_kernels().start_single(
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
        z0 = project(k, base[:1, k.q_active])[0]  # a copy: clipped, wrapped, unit quaternions
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
        """Give the workspace back to this thread's problem entry (the search is over)."""
        if self.workspace is not None:
            self.workspace.give_back(self.entry)
            self.workspace = None

    def _fill_pool(self, K: int) -> None:
        """Sample a pool of restart configurations per problem, best (smallest error) first.

        Starting from the samples whose tips are already closest to the targets cuts the
        iterations to convergence by about a third (Panda, 8 seeds: 83 % -> 93 % of the
        targets solved within 10 iterations). A single problem draws its pool from a cached
        table of samples whose tip poses are known, so only the scoring costs time.
        """
        P, k = self.P, self.k
        size = pool_size(K, P)
        if not self.options.ranked_restarts:  # fresh uniform samples in the order drawn
            prob = np.repeat(np.arange(P), size)
            self.pool = sample_rows(k, self.rng, self.base_z, prob).reshape(P, size, -1)
            self._reset_pool_next(K)
            return
        table = seed_table(self.entry, self.base, self.base_z) if P == 1 else None
        if table is not None:
            z_table, p_table, r_table, known = table
            # A window of consecutive table rows at a random offset (wrapping around): the
            # rows are independent uniform samples, so a window is as random as scattered
            # picks, and reading it is sequential (scattered reads of the ~300 kB table cost
            # ~30 us of cache misses on a busy machine).
            pick = table_window(self.rng, size)
            if not k.sample_all:
                cand = np.where(k.sampled_mask, z_table[pick], self.base_z[0])
            if not known[pick].all():  # tip poses of table rows are computed on first use
                self._learn(table, pick)
            # The table's poses are in the anchor frame.
            X_AT = anchor_targets(self.entry, self.plan, self.base, self.targets[0])
            if k.compiled and k.sample_all:  # the same ranking, compiled (ik.compiled.rank_pool)
                ws = self.workspace
                cand = ws.pool if ws is not None else np.empty((size, z_table.shape[1]))
                ik_kernels().rank_pool(pick, z_table, p_table, r_table, X_AT,
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
            cand = sample_rows(k, self.rng, self.base_z, prob)
            score = np.empty(prob.size)
            for lo in range(0, prob.size, _POOL_CHUNK):
                sl = slice(lo, lo + _POOL_CHUNK)
                rc = Rows.bind(self.base, self.targets, None if P == 1 else prob[sl])
                _, X_tip = tip_poses(self, cand[sl], rc)
                score[sl] = pool_score(k, X_tip, rc.target)
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

    def _learn(self, table: SeedTable, pick: IntArray) -> None:
        """Compute the tip poses of the table rows ``pick`` that the table does not know yet."""
        z_table, p_table, r_table, known = table
        fresh = np.zeros(known.size, dtype=bool)  # (np.unique imports numpy.ma)
        fresh[pick] = True
        new = np.flatnonzero(fresh & ~known)
        z_new = z_table[new]
        if not self.k.sample_all:
            z_new = np.where(self.k.sampled_mask, z_new, self.base_z[0])
        X_WL, X_tip = tip_poses(self, z_new, self.rows_of_one)
        p_table[:, new], r_table[:, new] = in_anchor(self.k, X_WL, X_tip)
        known[new] = True

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
            z = sample_rows(self.k, self.rng, self.base_z, prob)
            z[pooled] = self.pool[prob[pooled], index[pooled]]
            self.z[rows] = z
        np.add.at(self.pool_next, prob, 1)

    def _bind_rows(self) -> None:
        """Lay the per-problem constants out for the current rows (and the compiled scratch)."""
        self.rows = Rows.bind(self.base, self.targets, None if self.P == 1 else self.prob)
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
        ran: int = ik_kernels().search(
            self.z, s.base, k.q_active, k.mimic, k.mimic_coefficients, self.plan.fk_joints,
            self.plan.fk_coefficients, _NO_LOCALS, s.Q, s.X_WL, k.tips,
            k.tip_offsets, k.tip_table, k.tip_frames, _ORIGIN, s.J_all, s.targets, k.col_v,
            k.fold, 3 if k.position_only else 6, float(o.damping), LAMBDA_MIN,
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
        ik_kernels().iterate(
            self.z, s.base, k.q_active, k.mimic, k.mimic_coefficients, self.plan.fk_joints,
            self.plan.fk_coefficients, _NO_LOCALS, s.Q, s.X_WL, k.tips,
            k.tip_offsets, k.tip_table, k.tip_frames, _ORIGIN, s.J_all, s.targets, k.col_v,
            k.fold, 3 if k.position_only else 6, float(o.damping), LAMBDA_MIN,
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
                # The numpy reference iteration: only the tests take it (see ik.reference).
                X_WL, X_tip = tip_poses(self, self.z, self.rows)
                e, perr, rerr = reference.errors(k, X_tip, self.rows.target)
                J = reference.jacobian(k, X_WL)
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
                self.z = reference.step(self.model, k, o, self.z, self.base, self.prob, e, J, norm)
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
