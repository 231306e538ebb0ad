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
  every compiled burst of at most ``search._BURST`` iterations), and an iteration starts only when
  the measured mean iteration time fits in the remaining time (a single request always gets
  one iteration, so a seed that already solves the request is found).
* A validity callback may veto a converged candidate (RS-77); the search then goes on.
* Expected failures are result values (:class:`IKStatus`), never exceptions (design study B7).

This module holds the entry points (:func:`solve_ik`, :func:`solve_ik_batch`,
:func:`prepare_ik`); the solver's parts are one module each: :mod:`.requests` checks a request
and resolves its names, :mod:`.problem` compiles a problem's tables (step 1 below),
:mod:`.search` iterates the rows (steps 2-4) from the starts :mod:`.seeds` draws (step 5),
:mod:`.compiled` is the compiled iteration and :mod:`.reference` the numpy one, the tests'
oracle.

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
   ``v_FM`` to their translation and turn their orientation by ``exp(w_FM)``: the floating
   type's ``step_quaternion``, through quaternions for rpy angles), then clipped to the
   position bounds, continuous angles wrapped to ``[-π, π]``.
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
The arrays of a single compiled search live in a per-thread workspace of the problem's cache
entry, reused from request to request (:mod:`.search`), and the cache remembers resolved
(group, tips) names, so a request's Python set-up is a few dozen operations. The numpy
iteration (:mod:`.reference`) is the tests' oracle: they check that both take the same steps.

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
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.ik.cache import IKCache
from robot_state_core.ik.problem import full_configurations, ProblemEntry
from robot_state_core.ik.requests import (
    cache_or_default,
    check_seed,
    check_seed_quaternions,
    check_target,
    invalid_result,
    MAX_TIP_LINKS,
    resolve,
    resolve_timeout,
)
from robot_state_core.ik.search import ready_ik_kernels, Search, tip_poses
from robot_state_core.ik.seeds import in_anchor, seed_table
from robot_state_core.ik.types import IKOptions, IKRequest, IKResult, IKStatus, ValidityCallback
from robot_state_core.jit import kernels
from robot_state_core.model.robot_model import RobotModel

__all__ = [
    'MAX_TIP_LINKS',
    'damped_least_squares',
    'prepare_ik',
    'retarget_pose',
    'solve_ik',
    'solve_ik_batch',
]


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
    ready_ik_kernels()  # one-time kernel set-up of the process, before the clock starts
    start = time.perf_counter()
    if not isinstance(request, IKRequest):
        raise InvalidTypeError(f'solve_ik: request must be an IKRequest, got '
                               f'{type(request).__name__}')
    if not isinstance(request.options, IKOptions):
        raise InvalidTypeError(f'solve_ik: request.options must be IKOptions, got '
                               f'{type(request.options).__name__}')
    seed, msg = check_seed(model, request.seed)
    if seed is None:
        return invalid_result(model, None, f'solve_ik: {msg}', start)
    targets = request.targets
    if isinstance(targets, np.ndarray) and targets.shape == (4, 4):
        targets = (targets,)
    if not isinstance(targets, Sequence | np.ndarray):
        return invalid_result(model, seed, f'solve_ik: targets must be a sequence of (4, 4) '
                              f'poses, got {targets!r}', start)
    checked = []
    for i, X in enumerate(targets):
        a, msg = check_target(X, f'target {i}')
        if a is None:
            return invalid_result(model, seed, f'solve_ik: {msg}', start)
        checked.append(a)
    if not checked:
        return invalid_result(model, seed, 'solve_ik: no targets', start)
    group, k, order, msg = resolve(cache_or_default(cache), model, request.group,
                                   request.tip_links, len(checked),
                                   request.options.position_only)
    if k is None:
        return invalid_result(model, seed, f'solve_ik: {msg}', start)
    timeout, msg = resolve_timeout(request.timeout, group)
    if timeout is None:
        return invalid_result(model, seed, f'solve_ik: {msg}', start)
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
    ready_ik_kernels()  # one-time kernel set-up of the process, before the clock starts
    start = time.perf_counter()
    opts = options if options is not None else IKOptions()
    if not isinstance(opts, IKOptions):
        raise InvalidTypeError(f'solve_ik_batch: options must be IKOptions, got '
                               f'{type(opts).__name__}')
    try:
        T = np.asarray(targets, dtype=np.float64)
    except (TypeError, ValueError) as err:
        return [invalid_result(model, None, f'solve_ik_batch: targets are not a numeric '
                               f'(M, 4, 4) array ({err})', start)]
    if T.ndim == 2:
        T = T[None]
    if T.ndim != 3 or T.shape[1:] != (4, 4):
        return [invalid_result(model, None, f'solve_ik_batch: targets must have shape '
                               f'(M, 4, 4), got {T.shape}', start)
                for _ in range(max(1, len(T) if T.ndim else 1))]
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
        return [invalid_result(model, None, f'solve_ik_batch: seeds must be finite with shape '
                               f'({M}, {model.nq}) or ({model.nq},), got {S.shape}', start)
                for _ in range(M)]
    _, msg = check_seed_quaternions(model, S)
    if msg:
        return [invalid_result(model, None, f'solve_ik_batch: {msg}', start) for _ in range(M)]
    g, k, _, msg = resolve(cache_or_default(cache), model, group,
                           (tip_link,) if tip_link else (), 1, opts.position_only)
    if k is None:
        return [invalid_result(model, S[i], f'solve_ik_batch: {msg}', start) for i in range(M)]
    timeout, msg = resolve_timeout(timeout_per_target, g)
    if timeout is None:
        return [invalid_result(model, S[i], f'solve_ik_batch: {msg}', start) for i in range(M)]
    results: list[IKResult | None] = [None] * M
    good, checked = [], []
    for i in range(M):
        a, msg = check_target(T[i], f'target {i}')
        if a is None:
            results[i] = invalid_result(model, S[i], f'solve_ik_batch: {msg}', start)
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
    ready_ik_kernels()  # the process's one-time kernel set-up (decision S17) is paid here
    q, msg = check_seed(model, seed)
    if q is None:
        raise InvalidArgumentError(f'prepare_ik: {msg}')
    tips = tuple(tip_links)
    count = len(tips) or 1
    _, entry, _, msg = resolve(cache_or_default(cache), model, group, tips, count,
                               position_only)
    if entry is None:
        raise InvalidArgumentError(f'prepare_ik: {msg}')
    search = Search(model, entry, q[None], np.broadcast_to(np.eye(4), (1, count, 4, 4)),
                    IKOptions(num_seeds=1), None, _generator(0))
    table = seed_table(entry, search.base, search.base_z)
    if table is not None and not kernels.interpreted():  # twins: requests fill what they use
        z_table, p_table, r_table, known = table
        z = z_table if entry.problem.sample_all else np.where(
            entry.problem.sampled_mask, z_table, search.base_z[0])
        X_WL, X_tip = tip_poses(search, z, search.rows_of_one)
        p_table[:], r_table[:] = in_anchor(entry.problem, X_WL, X_tip)
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


def _run(model: RobotModel, entry: ProblemEntry, seeds: FloatArray, X_WT: FloatArray,
         options: IKOptions, validity: ValidityCallback | None, start: float,
         deadline: float, stop: threading.Event | None = None) -> list[IKResult]:
    """Search ``P`` problems (seeds ``(P, nq)``, targets ``(P, T, 4, 4)``) as one array."""
    rng = _generator(options.random_seed)
    search = Search(model, entry, seeds, X_WT, options, validity, rng)
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
            q = full_configurations(model, search.k, search.base, search.best_z[p][None],
                                    np.array([p]))[0]
        else:
            q = search.base[p].copy()
        perr, rerr = search.best_error[p]
        out.append(IKResult(status, q, float(perr), float(rerr), search.iterations,
                            end - start, int(search.seeds_tried[p]), '; '.join(notes)))
    search.release()  # the results hold copies
    return out
