"""A reach study: IK with collision checking for every target, scored, then neighbour seeding.

REACH's workflow (``reach/src/reach_study.cpp``, ``reach/src/utils.cpp``) on this library's
core:

1. **Initial pass** (REACH ``ReachStudy::run``): every target ``X_WT`` is turned about its x
   axis by π (REACH's ``target * AngleAxis(π, x)``: the tool's z axis points into the surface
   whose normal is the target's z axis; :attr:`ReachParameters.flip` turns that off), then
   solved from the zero configuration (clipped to the bounds) for the group's tip, every
   candidate vetoed when the robot collides with itself or the scene; a solution is scored by
   the evaluator, an unreached target scores 0.
2. **Optimisation** (REACH ``ReachStudy::optimize`` and ``reachNeighborsDirect``): every
   reached target seeds IK for its neighbours within :attr:`ReachParameters.radius`; a
   neighbour takes the new solution when it was not reached or the new score is higher. Passes
   repeat until the normalised total score improves by at most
   :attr:`ReachParameters.step_improvement_threshold` (relative) or after
   :attr:`ReachParameters.max_steps` passes. A pass only replaces a record by a better one, so
   the reach percentage never drops.

   One difference, recorded in ``docs/decisions.md`` (R1): REACH updates records while the pass
   runs (a later seed may come from a record updated in the same pass, in thread order); here a
   pass seeds from the records as they were when it started and takes, per neighbour, the best
   of its candidates, so a pass is one batch of independent IK problems that any number of
   workers solve with the same answer.

The work is split into batches of :attr:`ReachParameters.batch_size` targets, each solved with
its own random seed (from the study's seed, the pass and the batch index), so the results do
not depend on which process solves a batch (:mod:`~robot_state_core.reach.executors`). IK runs
until :attr:`ReachParameters.ik_iterations` iterations or :attr:`ReachParameters.ik_timeout`
per target, whichever comes first; a target stopped by the clock
(:attr:`BatchSolution.timeouts`) is the only way two runs of one study can differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
import hashlib
import json
import threading
import time
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.shapes import Mesh
from robot_state_core.ik.solver import solve_ik_batch
from robot_state_core.ik.types import IKOptions, IKStatus
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.reach.evaluators import EvalContext, Evaluator
from robot_state_core.reach.results import ReachDatabase, ReachResult
from robot_state_core.reach.targets import free_rotation
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.state.robot_state import RobotState

__all__ = ['Batch', 'BatchSolution', 'ReachParameters', 'ReachProblem', 'flip_targets',
           'neighbours', 'optimize', 'run_initial_pass', 'run_study', 'solve_batch']

PART_ID = 'part'
'''World-object id of the study's part in its scene.'''
Progress = Callable[[str, int, int], None]
'''``progress(phase, done, total)``: ``phase`` is ``'initial'`` or ``'optimize k'``.'''


@dataclass(frozen=True)
class ReachParameters:
    """Settings of a study (REACH's ``optimization`` block and its IK solver's).

    Attributes:
        radius: Neighbour radius of the optimisation [m] (REACH ``radius``).
        max_steps: Most optimisation passes (REACH ``max_steps``).
        step_improvement_threshold: Stop when the normalised total score improves by at most
            this fraction (REACH ``step_improvement_threshold``).
        ik_timeout: IK budget per target [s] (REACH's MoveIt IK solver: the group's
            kinematics.yaml timeout, 0.05 s by default).
        ik_iterations: IK iterations per target before giving up (bounds the work the same
            way on every machine).
        collision: Veto IK candidates in collision (REACH: ``MoveItIKSolver`` checks the
            solution against the planning scene).
        flip: Turn targets by π about their x axis before solving (REACH).
        free_rotation_steps: Solve each target turned about its tool axis in this many equal
            angles and keep the best-scoring solution (REACH's ``DiscretizedMoveItIKSolver``;
            1: the target as given).
        seed: Random seed of the study.
        batch_size: Targets per batch (the unit of work handed to a worker).
    """

    radius: float = 0.05
    max_steps: int = 10
    step_improvement_threshold: float = 0.01
    ik_timeout: float = 0.05
    ik_iterations: int = 400
    collision: bool = True
    flip: bool = True
    free_rotation_steps: int = 1
    seed: int = 0
    batch_size: int = 64

    def __post_init__(self) -> None:
        checks = {'radius': self.radius >= 0.0, 'max_steps': self.max_steps >= 0,
                  'step_improvement_threshold': self.step_improvement_threshold >= 0.0,
                  'ik_timeout': self.ik_timeout > 0.0, 'ik_iterations': self.ik_iterations > 0,
                  'batch_size': self.batch_size > 0,
                  'free_rotation_steps': self.free_rotation_steps >= 1}
        for name, ok in checks.items():
            if not ok:
                raise InvalidArgumentError(f'ReachParameters: invalid {name} '
                                           f'{getattr(self, name)!r}')


@dataclass(frozen=True)
class ReachProblem:
    """Everything a worker needs to solve batches of a study; picklable, small.

    Workers build the model and scene from it once per process (:func:`solve_batch`), so the
    description files must be readable at the same paths on every machine that runs workers.

    Attributes:
        urdf: URDF (or xacro) file.
        srdf: SRDF file, or ``None``.
        group: The group solved for.
        tip: The tip link (``None``: the group's tip).
        scene_text: World objects as a MoveIt ``.scene`` text, or ``None``.
        part: The part's mesh file, added to the scene as the world object ``'part'``
            (REACH's ``collision_mesh_filename``), or ``None``.
        part_pose: The part's pose ``X_WP`` in the model frame, 16 numbers row-major.
        touch_links: Links allowed to touch the part (REACH's ``touch_links``; e.g. the tool
            whose tip is on the surface).
        package_roots: Directories holding ROS packages (``package://`` URIs).
        package_map: ``{package: directory}``.
        evaluator: Scores a solution (:mod:`~robot_state_core.reach.evaluators`).
        parameters: The study's settings.
        padding: Link padding of the collision checks [m].
    """

    urdf: str
    srdf: str | None
    group: str
    evaluator: Evaluator
    tip: str | None = None
    scene_text: str | None = None
    part: str | None = None
    part_pose: tuple[float, ...] = tuple(np.eye(4).ravel().tolist())
    touch_links: tuple[str, ...] = ()
    package_roots: tuple[str, ...] = ()
    package_map: tuple[tuple[str, str], ...] = ()
    parameters: ReachParameters = field(default_factory=ReachParameters)
    padding: float = 0.0

    def key(self) -> str:
        """A digest of the problem (what a worker's cache of built problems is keyed by)."""
        return hashlib.sha256(repr(self).encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        """The problem as JSON values (saved with the results)."""
        p = self.parameters
        return {'urdf': self.urdf, 'srdf': self.srdf, 'group': self.group, 'tip': self.tip,
                'scene': self.scene_text is not None, 'part': self.part,
                'part_pose': list(self.part_pose), 'touch_links': list(self.touch_links),
                'package_roots': list(self.package_roots),
                'evaluator': repr(self.evaluator),
                'parameters': {k: getattr(p, k) for k in p.__dataclass_fields__}}


@dataclass(frozen=True)
class _Built:
    model: RobotModel
    scene: PlanningScene
    context: EvalContext
    tip: str
    columns: np.ndarray  # the group's active variables in the model's variable order
    q0: FloatArray  # the zero configuration, clipped to the bounds


_BUILT: dict[str, _Built] = {}
_BUILT_LOCK = threading.Lock()


def build(problem: ReachProblem) -> _Built:
    """The problem's model, scene and evaluation context, built once per process."""
    key = problem.key()
    with _BUILT_LOCK:
        built = _BUILT.get(key)
        if built is not None:
            return built
        model = RobotModel.from_urdf_file(problem.urdf, problem.srdf,
                                          package_roots=list(problem.package_roots),
                                          package_map=dict(problem.package_map) or None)
        scene = PlanningScene(model, padding=problem.padding)
        if problem.scene_text:
            scene.load_geometry_text(problem.scene_text)
        if problem.part is not None:
            X_WP = np.array(problem.part_pose, dtype=np.float64).reshape(4, 4)
            scene.apply_world_object(CollisionObjectOperation.ADD, PART_ID, X_WP,
                                     [(Mesh(problem.part, path=problem.part), np.eye(4))])
            for link in problem.touch_links:
                scene.acm.set_entry(PART_ID, link, True)
        group = model.group(problem.group)
        tip = problem.tip or group.tip_link
        if not tip:
            raise InvalidArgumentError(f'reach study: group {problem.group!r} has no tip link; '
                                       'give one')
        active = set(np.flatnonzero(np.asarray(model.active_variable_mask)).tolist())
        columns = np.array([i for i in group.variable_indices if i in active], dtype=np.intp)
        q0 = np.clip(np.zeros(model.nq), model.variable_lower, model.variable_upper)
        q0 = np.where(np.isfinite(q0), q0, np.asarray(model.default_positions))
        built = _Built(model, scene, EvalContext(model, scene, group.name, tip), tip, columns,
                       q0)
        _BUILT.clear()  # one study per process at a time: keep memory bounded
        _BUILT[key] = built
        return built


def flip_targets(X_WT: ArrayLike) -> FloatArray:
    """REACH's IK goals: each target turned by π about its own x axis (``(N, 4, 4)``)."""
    X = np.array(X_WT, dtype=np.float64)
    flip = np.diag([1.0, -1.0, -1.0, 1.0])
    out: FloatArray = X @ flip
    return out


@dataclass(frozen=True)
class Batch:
    """A unit of work: targets, their seeds and the batch's random seed.

    Attributes:
        index: Target indices into the study (``(B,)``).
        X_WT: ``(B, 4, 4)`` IK goals.
        seeds: ``(B, n)`` seeds of the group's variables.
        random_seed: The IK random seed of this batch.
    """

    index: np.ndarray
    X_WT: FloatArray
    seeds: FloatArray
    random_seed: int


@dataclass(frozen=True)
class BatchSolution:
    """What a worker returns for a :class:`Batch`.

    Attributes:
        index: The batch's target indices.
        reached: ``(B,)`` solved without collision.
        score: ``(B,)`` scores (0 where not reached).
        q: ``(B, n)`` solutions of the group's variables (the seed where not reached).
        timeouts: Targets stopped by the clock rather than the iteration bound.
        seconds: Wall time of the batch in the worker [s].
    """

    index: np.ndarray
    reached: np.ndarray
    score: FloatArray
    q: FloatArray
    timeouts: int
    seconds: float


def solve_batch(problem: ReachProblem, batch: Batch) -> BatchSolution:
    """Solve and score one batch (what every executor runs, in whatever process)."""
    started = time.perf_counter()
    b = build(problem)
    p = problem.parameters
    model, cols = b.model, b.columns
    steps = p.free_rotation_steps
    count = len(batch.index)
    goals = free_rotation(batch.X_WT, steps).reshape(-1, 4, 4) if steps > 1 else batch.X_WT
    seeds = np.tile(b.q0, (count * steps, 1))
    seeds[:, cols] = np.repeat(batch.seeds, steps, axis=0)
    state = RobotState(model)

    def valid(q: FloatArray) -> bool:
        state.set_variable_positions(q)
        return not b.scene.is_state_colliding(state, problem.group)

    results = solve_ik_batch(model, problem.group, goals, seeds, tip_link=b.tip,
                             timeout_per_target=p.ik_timeout,
                             options=IKOptions(random_seed=batch.random_seed,
                                               max_iterations=p.ik_iterations),
                             validity_callback=valid if p.collision else None)
    solved = np.array([r.success for r in results], dtype=bool).reshape(count, steps)
    scores = np.array([problem.evaluator.score(b.context, r.q) if r.success else -np.inf
                       for r in results]).reshape(count, steps)
    best = np.argmax(scores, axis=1)  # REACH evaluateIK: the best-scoring solution
    rows = np.arange(count)
    q_all = np.array([r.q[cols] for r in results]).reshape(count, steps, len(cols))
    reached = solved[rows, best]
    score = np.where(reached, scores[rows, best], 0.0)
    q = np.where(reached[:, None], q_all[rows, best], batch.seeds)
    timeouts = sum(r.status is IKStatus.TIMED_OUT for r in results)
    return BatchSolution(batch.index, reached, score, q, int(timeouts),
                         time.perf_counter() - started)


class Executor(Protocol):
    """Runs batches of one problem (:mod:`~robot_state_core.reach.executors`)."""

    def run(self, problem: ReachProblem, batches: Sequence[Batch],
            done: Callable[[BatchSolution], None]) -> None:
        """Solve every batch; call ``done`` (in the caller's thread) as each one finishes."""


def _batch_seed(seed: int, phase: int, k: int) -> int:
    digest = hashlib.sha256(json.dumps([seed, phase, k]).encode()).digest()
    return int.from_bytes(digest[:4], 'little')


def _batches(index: np.ndarray, X: FloatArray, seeds: FloatArray, size: int, seed: int,
             phase: int) -> list[Batch]:
    return [Batch(index[s:s + size], X[s:s + size], seeds[s:s + size],
                  _batch_seed(seed, phase, k))
            for k, s in enumerate(range(0, len(index), size))]


def neighbours(points: ArrayLike, radius: float, *, chunk: int = 512) -> list[np.ndarray]:
    """For every point, the other points closer than ``radius`` (REACH ``getNeighbors``).

    Args:
        points: ``(N, 3)`` positions [m].
        radius: Neighbour radius [m] (strictly closer; the point itself is left out).
        chunk: Rows compared at once (memory: ``chunk * N`` distances).

    Returns:
        One array of indices per point, ascending.
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    centre = p.mean(axis=0) if len(p) else np.zeros(3)
    p = p - centre  # smaller magnitudes: less cancellation in |a|^2 + |b|^2 - 2 a.b
    norms = (p * p).sum(axis=1)
    out: list[np.ndarray] = []
    r2 = float(radius) ** 2
    for s in range(0, len(p), chunk):
        d2 = norms[s:s + chunk, None] + norms[None, :] - 2.0 * (p[s:s + chunk] @ p.T)
        d2[np.arange(len(d2)), np.arange(s, s + len(d2))] = np.inf
        out.extend(np.flatnonzero(row < r2) for row in d2)
    return out


def _merge(result: ReachResult, sol: BatchSolution, seeds: FloatArray) -> None:
    i = sol.index
    result.reached[i], result.score[i], result.q[i] = sol.reached, sol.score, sol.q
    result.seed[i], result.done[i] = seeds, True


def run_initial_pass(problem: ReachProblem, X_WT: FloatArray, executor: Executor, *,
                     result: ReachResult | None = None, progress: Progress | None = None,
                     checkpoint: Callable[[ReachResult], None] | None = None) -> ReachResult:
    """REACH's ``run``: every target (not yet ``done`` in ``result``) solved from zero.

    Args:
        problem: The study.
        X_WT: ``(N, 4, 4)`` IK goals (already flipped, :func:`flip_targets`).
        executor: Where the batches run.
        result: A pass to continue (a resumed study); ``None``: a new one.
        progress: Called as batches finish.
        checkpoint: Called with the pass so far after each batch (to save it).
    """
    b = build(problem)
    n = len(b.columns)
    out = result.copy() if result is not None else ReachResult.empty(len(X_WT), n)
    # The partition into batches (and each batch's seed) is over all targets, so a resumed
    # pass solves the batches it lacks exactly as an uninterrupted one would.
    everything = _batches(np.arange(len(X_WT)), X_WT, np.tile(b.q0[b.columns], (len(X_WT), 1)),
                          problem.parameters.batch_size, problem.parameters.seed, 0)
    batches = [batch for batch in everything if not np.all(out.done[batch.index])]
    for batch in batches:  # a batch saved in part is solved again whole
        out.done[batch.index] = False
    total, count = len(X_WT), int(np.count_nonzero(out.done))
    if progress is not None:
        progress('initial', count, total)

    def done(sol: BatchSolution) -> None:
        nonlocal count
        _merge(out, sol, np.tile(b.q0[b.columns], (len(sol.index), 1)))
        count += len(sol.index)
        if checkpoint is not None:  # saved before anything can stop the study
            checkpoint(out)
        if progress is not None:
            progress('initial', count, total)
    executor.run(problem, batches, done)
    return out


def optimize(problem: ReachProblem, X_WT: FloatArray, start: ReachResult, executor: Executor,
             *, progress: Progress | None = None, step: int = 1) -> ReachResult:
    """One optimisation pass (REACH ``reachNeighborsDirect`` over every reached target).

    Every reached target seeds IK for each neighbour within the radius; a neighbour takes the
    best of its candidates when it was not reached or the candidate scores higher.

    Returns:
        The new pass (``start`` is not changed).
    """
    near = neighbours(X_WT[:, :3, 3], problem.parameters.radius)
    reached = np.flatnonzero(start.reached)
    out = start.copy()
    if len(reached) == 0:
        return out
    # (neighbour j, seed record i) pairs: every neighbour of every reached record
    j = np.concatenate([near[r] for r in reached]).astype(np.intp)
    i = np.concatenate([np.full(len(near[r]), r) for r in reached]).astype(np.intp)
    batches = _batches(np.arange(len(j)), X_WT[j], start.q[i], problem.parameters.batch_size,
                       problem.parameters.seed, step)
    if progress is not None:
        progress(f'optimize {step}', 0, len(j))
    best_score = np.full(len(X_WT), -np.inf)
    best_q = np.zeros_like(start.q)
    best_seed = np.zeros_like(start.q)
    count = 0

    def done(sol: BatchSolution) -> None:
        nonlocal count
        for k, ok, s, q in zip(sol.index, sol.reached, sol.score, sol.q, strict=True):
            if ok and s > best_score[j[k]]:
                best_score[j[k]], best_q[j[k]], best_seed[j[k]] = s, q, start.q[i[k]]
        count += len(sol.index)
        if progress is not None:
            progress(f'optimize {step}', count, len(j))
    executor.run(problem, batches, done)
    better = np.isfinite(best_score) & (~start.reached | (best_score > start.score))
    out.reached[better] = True
    out.score[better] = best_score[better]
    out.q[better] = best_q[better]
    out.seed[better] = best_seed[better]
    return out


def run_study(problem: ReachProblem, X_WT: ArrayLike, executor: Executor, *,
              database: ReachDatabase | None = None, progress: Progress | None = None,
              save: Callable[[ReachDatabase], None] | None = None) -> ReachDatabase:
    """A whole study (REACH ``runReachStudy``): the initial pass, then the optimisation.

    Args:
        problem: The study.
        X_WT: ``(N, 4, 4)`` targets in the model frame (REACH's target poses; flipped here
            when :attr:`ReachParameters.flip`).
        executor: Where the batches run.
        database: Results of this study to continue (:meth:`ReachDatabase.load`): an
            unfinished initial pass is finished, an unoptimised one is optimised.
        progress: ``progress(phase, done, total)`` as batches finish.
        save: Called with the database after every batch of the initial pass and every
            optimisation pass (a study stopped at any point is resumed from the last save).

    Raises:
        InvalidArgumentError: Malformed targets, or a ``database`` of other targets.
    """
    T = np.asarray(X_WT, dtype=np.float64)
    if T.ndim != 3 or T.shape[1:] != (4, 4) or len(T) == 0 or not np.all(np.isfinite(T)):
        raise InvalidArgumentError(f'run_study: targets must be a finite (N, 4, 4) array with '
                                   f'N >= 1, got shape {T.shape}')
    goals = flip_targets(T) if problem.parameters.flip else T
    b = build(problem)
    names = tuple(b.model.variable_names[c] for c in b.columns)
    db = database if database is not None else ReachDatabase(
        goals, problem.group, b.tip, names, (), problem.describe())
    if database is not None and (db.X_WT.shape != goals.shape
                                 or not np.allclose(db.X_WT, goals, atol=1e-9)):
        raise InvalidArgumentError('run_study: the database holds other targets than the '
                                   'study; start a new one')

    def keep(first: ReachResult) -> None:
        if save is not None:
            save(db.with_results((first,)))
    if not db.complete:
        first = run_initial_pass(problem, goals, executor,
                                 result=db.results[0] if db.results else None,
                                 progress=progress, checkpoint=keep)
        db = db.with_results((first,))
        if save is not None:
            save(db)
    p = problem.parameters
    passes = list(db.results)
    while not db.optimized and len(passes) - 1 < p.max_steps:
        previous = passes[-1].summary().norm_total_pose_score
        new = optimize(problem, goals, passes[-1], executor, progress=progress,
                       step=len(passes))
        passes.append(new)
        db = db.with_results(passes)
        if save is not None:
            save(db)
        score = new.summary().norm_total_pose_score
        if previous <= 0.0 or abs(score - previous) / previous <= p.step_improvement_threshold:
            break
    db = replace(db, optimized=True)
    if save is not None:
        save(db)
    return db
