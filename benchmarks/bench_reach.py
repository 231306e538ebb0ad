"""Reach-study benchmarks (issue 29): throughput on one core, local workers, Ray, seeding.

The study: Panda (example-robot-data), group ``arm``, tip ``panda_hand_tcp``, in front of a
generated part (a 30 x 30 x 4 cm plate with a 10 x 10 cm square hole, trimesh, written as STL)
added to the scene as the world object ``'part'`` with the hand and fingers as touch links;
evaluator ``Multiplicative(Manipulability, JointLimitPenalty)``; IK with collision checking,
``ik_timeout`` 50 ms (and the study's 400-iteration bound, whichever comes first). Targets:
``targets_from_mesh(even=False)`` on the plate, N = 10 000 (``--quick``: 1 000), a new sample
(seed ``settings.seed + k``) in every repeat ``k``; the executors of one repeat solve the same
targets with the same study seed.

* ``one_core``: the initial pass (``run_initial_pass``) in process (``InProcess``) in a child
  process pinned to one CPU with single-threaded numeric libraries (``bench_reach.py
  --one-core-child``): targets/s, where the time goes (IK, collision checks, scoring) from one
  extra instrumented pass, and what ``DistancePenalty`` would add.
* ``workers``: the initial pass on a new ``LocalProcesses(1)`` and a new ``LocalProcesses(2)``,
  interleaved: the first pass (worker start-up included, also reported apart) and a second one
  on the same, running workers.
* ``ray``: a fresh ``RayCluster(num_cpus=2)`` per repeat (``ray.init`` reported apart), its
  first and second pass, beside a new ``LocalProcesses(2)``'s first and second pass.
* ``seeding``: a whole ``run_study`` (initial pass, then neighbour-seeding passes until REACH's
  stop rule) on ``LocalProcesses(2)``: reach %, normalised score and time per pass.

Every executor's arrays are compared with the in-process ones (same targets, same seed).

Run through ``benchmarks/run.py`` (``--module reach``, ``--only one_core|workers|ray|seeding``,
``--quick``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
import json
import math
from operator import attrgetter
import os
from pathlib import Path
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, TypeVar

from bench_ros import FOREIGN_LIMIT, PYTHON, system_busy_seconds, wait_for_quiet
from common import (
    fmt_pct,
    fmt_ratio,
    Progress,
    quiet_native_output,
    REPO_ROOT,
    Section,
    Settings,
    Table,
    Target,
)
import numpy as np

sys.path.insert(0, str(REPO_ROOT / 'test'))
from reach_parts import HOLE_HALF, PLATE_HALF, PLATE_HALF_THICKNESS, plate_with_hole
import robot_corpus

from robot_state_core.errors import BackendUnavailableError
from robot_state_core.reach.evaluators import (
    DistancePenalty,
    Evaluator,
    JointLimitPenalty,
    Manipulability,
    Multiplicative,
)
from robot_state_core.reach.executors import InProcess, LocalProcesses, RayCluster
from robot_state_core.reach.results import ReachResult
from robot_state_core.reach.study import (
    Batch,
    BatchSolution,
    build,
    Executor,
    flip_targets,
    neighbours,
    PART_ID,
    ReachParameters,
    ReachProblem,
    run_initial_pass,
    run_study,
)
from robot_state_core.reach.targets import targets_from_mesh

NAME = 'reach'
QUIET_WAIT_S = (30.0, 5.0)  # longest wait for a quiet machine before a repeat (full, quick)
QUIET_BUDGET_S = (300.0, 30.0)  # waits and re-runs of disturbed repeats, per run (full, quick)
TITLE = 'robot_state_core reach-study benchmarks (issue 29)'
PARTS = ('one_core', 'workers', 'ray', 'seeding')
METHOD = ('Method: whole passes are timed with `time.perf_counter` (GC on: a pass lasts '
          'seconds). Every repeat `k` samples new targets (seed + k); within a repeat the '
          'executors compared solve the same targets with the same study seed, in an order '
          'that rotates from repeat to repeat. A cell is the median [min–max] over the repeats; '
          'a ratio is the median of the per-repeat ratios (each pairs two executors timed back '
          'to back on the same targets). The thresholds (`TARGET_*` in `bench_reach.py`) were '
          'fixed before the run. The machine is shared: each pass reports the cores that other '
          "processes used meanwhile (the whole machine's busy time from `/proc/stat` minus that "
          "of this process and its descendants: workers, the child, Ray's processes). Before "
          'every repeat the run waits for the machine to be quiet (other processes < '
          f'{FOREIGN_LIMIT} cores, at most {QUIET_WAIT_S[0]:.0f} s); a repeat in which other '
          'processes used more than that during a pass is run once more and the less disturbed '
          f'of the two kept (while the waits and re-runs stay within {QUIET_BUDGET_S[0]:.0f} s '
          f'per run; quick: {QUIET_WAIT_S[1]:.0f} s and {QUIET_BUDGET_S[1]:.0f} s).')

THIS_FILE = Path(__file__).resolve()
CHILD_ROLE = '--one-core-child'

#: Issue 29, fixed before the run: targets/s of the in-process initial pass on one core.
TARGET_RATE = 500.0
#: Issue 29: time of the pass on 1 local worker / on 2 local workers, at least this.
TARGET_SPEEDUP = 1.8
#: Issue 29: Ray (2 CPUs, cold workers, ray.init excluded) / 2 local workers, at most this.
TARGET_RAY_RATIO = 1.10

TARGETS = (10_000, 1_000)  # targets per repeat (full, quick)
REPEATS = (3, 2)  # timed passes per executor (full, quick)
DISTANCE_TARGETS = (1_000, 200)  # targets of the DistancePenalty comparison (full, quick)
WARM_TARGETS = 64  # one batch solved before the in-process timing (not counted)
SEEDING_NEIGHBOURS = 8.0  # the seeding radius gives this many neighbours per target on average

#: The study (as test/test_reach_study.py: ``reach_parts.plate_with_hole``, ``TIP``, ``TOUCH``).
PART_POSITION = (0.45, 0.0, 0.25)  # m, in front of Panda
TIP = 'panda_hand_tcp'
TOUCH = ('panda_hand', 'panda_leftfinger', 'panda_rightfinger')
IK_TIMEOUT_S = 0.05
#: The single-threaded environment of the one-core child.
THREAD_ENV = {'OMP_NUM_THREADS': '1', 'OPENBLAS_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1',
              'NUMBA_NUM_THREADS': '1'}
DISTANCE = DistancePenalty(0.025, 2, (PART_ID,), TOUCH)  # REACH's example: 2.5 cm, squared


R = TypeVar('R')


def _pick(settings: Settings, value: tuple[R, R]) -> R:
    return value[1] if settings.quick else value[0]


# ---------------------------------------------------------------------------- the study


def part_pose() -> np.ndarray:
    """``X_WP``: the plate in front of Panda, level."""
    X = np.eye(4)
    X[:3, 3] = PART_POSITION
    return X


def seeding_radius(area: float, count: int) -> float:
    """Neighbour radius [m] giving :data:`SEEDING_NEIGHBOURS` neighbours on average (0.1 mm)."""
    return round(math.sqrt(SEEDING_NEIGHBOURS * area / (math.pi * count)), 4)


def make_problem(part: str, radius: float, seed: int,
                 evaluator: Evaluator | None = None) -> ReachProblem:
    """The benchmark's study (``evaluator``: another than Manipulability x JointLimitPenalty)."""
    panda = robot_corpus.test_robot('panda')
    return ReachProblem(
        str(panda.urdf_path), str(panda.srdf_path), 'arm',
        evaluator or Multiplicative((Manipulability(), JointLimitPenalty())), tip=TIP,
        part=part, part_pose=tuple(part_pose().ravel().tolist()), touch_links=TOUCH,
        package_map=tuple((k, str(v)) for k, v in panda.package_map.items()),
        parameters=ReachParameters(radius=radius, ik_timeout=IK_TIMEOUT_S, collision=True,
                                   seed=seed))


def make_targets(part: str, count: int, seed: int) -> np.ndarray:
    """``count`` targets ``X_WT`` on the part (not flipped), sample seed ``seed``."""
    return targets_from_mesh(part, count, seed=seed, X_WP=part_pose(), even=False).X_WT


@dataclass
class Study:
    """What every part shares: the part file, the problem, the targets of each repeat.

    Attributes:
        part: The part's STL file.
        area: The part's surface [m²].
        count: Targets per repeat.
        seeds: Target sample seed of each repeat.
        problem: The study.
        tmp: Scratch directory (the child's arrays).
        quiet: The run's waits for a quiet machine and re-runs.
        arrays: ``{(executor, repeat): (reached, q, score, timeouts)}`` for the identity check.
    """

    part: str
    area: float
    count: int
    seeds: tuple[int, ...]
    problem: ReachProblem
    tmp: Path
    quiet: Quiet
    arrays: dict[tuple[str, int], tuple[np.ndarray, np.ndarray, np.ndarray, int]] = field(
        default_factory=dict)
    _goals: dict[int, np.ndarray] = field(default_factory=dict)

    def goals(self, k: int) -> np.ndarray:
        """The flipped IK goals of repeat ``k`` (what ``run_initial_pass`` takes)."""
        if k not in self._goals:
            self._goals[k] = flip_targets(make_targets(self.part, self.count, self.seeds[k]))
        return self._goals[k]


# ---------------------------------------------------------------------------- measuring


@dataclass
class PassRecord:
    """One ``Executor.run`` call (one pass) as :class:`Recorder` saw it.

    Attributes:
        start: ``perf_counter`` at the call.
        end: ``perf_counter`` at its return.
        first: Seconds from the call to the first solution back.
        first_worker_s: That batch's time in its worker (including the worker's build).
        batch_s: Every batch's time in its worker [s].
        timeouts: Targets stopped by the IK clock rather than the iteration bound.
        problems: IK problems solved (targets, or neighbour candidates).
        cpu_end: :func:`_cpu` at the return.
    """

    start: float
    end: float = 0.0
    cpu_end: tuple[float, float, float] = (0.0, 0.0, 0.0)
    first: float = math.nan
    first_worker_s: float = math.nan
    batch_s: list[float] = field(default_factory=list)
    timeouts: int = 0
    problems: int = 0

    @property
    def startup(self) -> float:
        """Start-up estimate [s]: first solution back minus a typical batch's solve time."""
        return self.first - statistics.median(self.batch_s)

    @property
    def transfer(self) -> float:
        """Worker process start, imports and the problem's transfer [s] (first batch)."""
        return self.first - self.first_worker_s

    @property
    def worker_build(self) -> float:
        """The worker's build of the problem [s]: its first batch minus a typical one."""
        return self.first_worker_s - statistics.median(self.batch_s)


class Recorder:
    """An executor that runs another and records each pass (:class:`PassRecord`)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.passes: list[PassRecord] = []

    def run(self, problem: ReachProblem, batches: Sequence[Batch],
            done: Callable[[BatchSolution], None]) -> None:
        """Run the batches on the inner executor, recording every solution."""
        record = PassRecord(time.perf_counter())
        self.passes.append(record)

        def seen(solution: BatchSolution) -> None:
            if not record.batch_s:
                record.first = time.perf_counter() - record.start
                record.first_worker_s = solution.seconds
            record.batch_s.append(solution.seconds)
            record.timeouts += solution.timeouts
            record.problems += len(solution.index)
            done(solution)
        self.inner.run(problem, batches, seen)
        record.cpu_end = _cpu()
        record.end = record.cpu_end[0]


def _descendants_cpu() -> float:
    """CPU time of the live descendants of this process [s] (``/proc/<pid>/stat``)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf('SC_CLK_TCK')
    for entry in os.scandir('/proc'):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, 'stat').read_text().rpartition(')')[2].split()
        except OSError:
            continue
        pid = int(entry.name)
        parent[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    me, total = os.getpid(), 0.0
    for pid, seconds in cpu.items():
        up = parent.get(pid, 0)
        while up > 1 and up != me:
            up = parent.get(up, 0)
        total += seconds if up == me else 0.0
    return total


def _cpu() -> tuple[float, float, float]:
    """``(wall, machine busy CPU, CPU of this process and its descendants)`` [s].

    Descendants: the live ones from ``/proc`` plus those already waited for
    (``RUSAGE_CHILDREN``); a process that ends in between moves from one to the other with its
    total, so differences of two readings count it once.
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.perf_counter(), system_busy_seconds(),
            time.process_time() + children.ru_utime + children.ru_stime + _descendants_cpu())


def _others(c0: tuple[float, float, float], c1: tuple[float, float, float]) -> float:
    """Cores other processes used between two :func:`_cpu` readings."""
    return ((c1[1] - c0[1]) - (c1[2] - c0[2])) / (c1[0] - c0[0])


class Quiet:
    """Waits for a quiet machine before each repeat; runs a disturbed repeat once more.

    A repeat is disturbed when other processes used more than ``FOREIGN_LIMIT`` cores during
    one of its passes. Waits and re-runs stop once their time exceeds the run's budget.

    Args:
        wait: Longest wait before a repeat [s].
        budget: Most seconds all waits and re-runs may take.
    """

    def __init__(self, wait: float, budget: float) -> None:
        self.wait = wait
        self.budget = budget
        self.spent = 0.0
        self.reruns = 0

    def settle(self) -> float:
        """Wait until other processes use < ``FOREIGN_LIMIT`` cores (bounded); seconds waited."""
        waited, _ = wait_for_quiet(FOREIGN_LIMIT, min(self.wait, max(self.budget - self.spent,
                                                                     0.0)))
        self.spent += waited
        return waited

    def repeat(self, run_one: Callable[[], R], others: Callable[[R], float]) -> tuple[R, bool]:
        """``run_one()`` after a wait; once more if disturbed (the less disturbed is kept).

        Returns:
            The kept result and whether the repeat was run again.
        """
        self.settle()
        first = run_one()
        if others(first) <= FOREIGN_LIMIT or self.spent >= self.budget:
            return first, False
        t0 = time.monotonic()
        self.settle()
        again = run_one()
        self.spent += time.monotonic() - t0
        self.reruns += 1
        return (again if others(again) < others(first) else first), True


@dataclass(frozen=True)
class Timed:
    """One timed initial pass.

    Attributes:
        seconds: Wall time of ``run_initial_pass`` [s].
        record: What the executor saw.
        result: The pass.
        others: Cores other processes used meanwhile.
    """

    seconds: float
    record: PassRecord
    result: ReachResult
    others: float


def timed_pass(problem: ReachProblem, goals: np.ndarray, executor: Executor) -> Timed:
    """Time ``run_initial_pass`` of ``goals`` on ``executor`` (the parent has built the study)."""
    recorder = Recorder(executor)
    c0 = _cpu()
    result = run_initial_pass(problem, goals, recorder)
    c1 = _cpu()
    return Timed(c1[0] - c0[0], recorder.passes[0], result, _others(c0, c1))


def _keep(study: Study, label: str, k: int, t: Timed) -> None:
    study.arrays[label, k] = (t.result.reached, t.result.q, t.result.score, t.record.timeouts)


def _med(values: Sequence[float], digits: int = 2) -> str:
    """``median [min–max]`` (just the value for one)."""
    m = statistics.median(values)
    if len(values) == 1:
        return f'{m:.{digits}f}'
    return f'{m:.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]'


# ---------------------------------------------------------------------------- study section


def study_section(settings: Settings, study: Study) -> Section:
    """The study's settings and the cost of making its targets."""
    times = {}
    for even in (False, True):
        t0 = time.perf_counter()
        made = targets_from_mesh(study.part, study.count, seed=study.seeds[0], X_WP=part_pose(),
                                 even=even)
        times[even] = (time.perf_counter() - t0, len(made.X_WT))
    p = study.problem.parameters
    near = neighbours(study.goals(0)[:, :3, 3], p.radius)
    table = Table(['', ''])
    table.add('robot', 'Panda (example-robot-data `panda.urdf` + `panda.srdf`), group `arm`, '
              f'tip `{TIP}`')
    table.add('part', f'plate {2 * PLATE_HALF * 100:.0f} x {2 * PLATE_HALF * 100:.0f} x '
              f'{2 * PLATE_HALF_THICKNESS * 100:.0f} cm with a {2 * HOLE_HALF * 100:.0f} x '
              f'{2 * HOLE_HALF * 100:.0f} cm square hole (trimesh, STL; surface '
              f'{study.area:.3f} m²), centre at {PART_POSITION} m, level; world object '
              f"`'{PART_ID}'`, touch links {', '.join(f'`{t}`' for t in TOUCH)}")
    table.add('targets', f'{study.count:,} per repeat, `targets_from_mesh(even=False, seed='
              f'{study.seeds[0]} + k)` (area-uniform samples, face normals; REACH flips each '
              f'about x); making them: even=False {times[False][0] * 1e3:.0f} ms, even=True '
              f'{times[True][0] * 1e3:.0f} ms ({times[True][1]:,} targets)')
    table.add('IK', f'`ik_timeout` {p.ik_timeout * 1e3:.0f} ms or {p.ik_iterations} '
              f'iterations per target, whichever first; collision checking {p.collision}; '
              f'batches of {p.batch_size}; study seed {p.seed}')
    table.add('evaluator', '`Multiplicative((Manipulability(), JointLimitPenalty()))` '
              '(`DistancePenalty`: its cost is measured in the one-core part, not used)')
    table.add('neighbour seeding', f'radius {p.radius * 1e3:.1f} mm (mean '
              f'{np.mean([len(n) for n in near]):.1f} neighbours per target), at most '
              f'{p.max_steps} passes, stop at ≤ {p.step_improvement_threshold:.0%} '
              'normalised-score improvement (REACH defaults but the radius)')
    table.add('repeats', f'{_pick(settings, REPEATS)} per executor')
    table.add('machine', f'{os.cpu_count()} logical CPUs: two local workers, or Ray with 2 '
              "CPUs, use the whole machine (the parent process and Ray's own processes "
              'share it)')
    return Section('The study', tables=[table], notes=[
        'even=False is used: it always gives exactly N targets and is the cheaper of the two '
        '(even=True may return fewer than N; its spacing is not needed here).'])


# ---------------------------------------------------------------------------- one core


def bench_one_core(settings: Settings, progress: Progress, study: Study) -> Section:
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[-1]
    config = {'part': study.part, 'count': study.count, 'seeds': list(study.seeds),
              'radius': study.problem.parameters.radius, 'seed': study.problem.parameters.seed,
              'distance_count': _pick(settings, DISTANCE_TARGETS), 'out': str(study.tmp),
              'quiet_wait': study.quiet.wait,
              'quiet_budget': max(study.quiet.budget - study.quiet.spent, 0.0)}
    path = study.tmp / 'one_core.json'
    path.write_text(json.dumps(config), encoding='utf-8')
    progress.step(f'reach       one_core: child pinned to CPU {cpu}, {len(study.seeds)} passes '
                  f'of {study.count:,} targets + a distance-penalty and an instrumented pass')
    out = _run_child(progress, path, cpu)
    study.quiet.spent += out['quiet_spent']
    study.quiet.reruns += sum(out['rerun'])
    rates = [study.count / s for s in out['seconds']]
    table = Table(['repeat', 'targets seed', 'pass [s]', '**targets/s**', 'reach %',
                   'IK timeouts', 'other processes [cores]', 're-run'],
                  title=f'Initial pass in process, one CPU: {study.count:,} targets')
    for k, seed in enumerate(study.seeds):
        table.add(k, seed, f'{out["seconds"][k]:.2f}', f'{rates[k]:.0f}',
                  f'{out["reach"][k]:.1f}', out['timeouts'][k], f'{out["others"][k]:.2f}',
                  'yes' if out['rerun'][k] else 'no')
        arrays = np.load(study.tmp / f'inprocess_{k}.npz')
        study.arrays['in process (one core)', k] = (arrays['reached'], arrays['q'],
                                                    arrays['score'], out['timeouts'][k])
    rate = statistics.median(rates)
    table.add('**median**', '', _med(out['seconds']), f'**{_med(rates, 0)}**', '', '', '', '')
    split = out['split']
    total = split['total']
    ik_only = split['ik'] - split['collision']
    rest = total - split['ik'] - split['scoring']
    parts = Table(['where', 's', '% of the pass', 'calls', 'per call'],
                  title=f"Where the time goes: one more pass of repeat 0's targets with timers "
                  f'({total:.2f} s, {study.count / total:.0f} targets/s)')
    for label, seconds, calls in (
            ('IK iterations (`solve_ik_batch` minus the collision checks)', ik_only,
             split['ik_calls']),
            ('collision checks (`PlanningScene.is_state_colliding`, with its FK)',
             split['collision'], split['collision_calls']),
            ('scoring (the evaluator, `Multiplicative.score`)', split['scoring'],
             split['scoring_calls']),
            ('the rest (batches, seeds, merging the results)', rest, 0)):
        parts.add(label, f'{seconds:.2f}', fmt_pct(seconds / total),
                  f'{calls:,}' if calls else '—', _per_call(seconds, calls) if calls else '—')
    dist = out['distance']
    distance = Table(['evaluator', 'pass [s]', 'targets/s', 'vs without'],
                     title=f"`DistancePenalty` (threshold {DISTANCE.threshold} m, exponent "
                     f"{DISTANCE.exponent}, to the part): the first {dist['count']:,} targets "
                     'of repeat 0, in process, one CPU')
    for label, key in (('Manipulability x JointLimitPenalty (the study)', 'plain'),
                       ('x DistancePenalty', 'with')):
        distance.add(label, f'{dist[key]:.2f}', f'{dist["count"] / dist[key]:.0f}',
                     fmt_ratio(dist[key] / dist['plain']))
    progress.step(f'reach       one_core: {rate:.0f} targets/s (median), split IK '
                  f'{ik_only / total:.0%} / collision {split["collision"] / total:.0%} / '
                  f'scoring {split["scoring"] / total:.0%}')
    target = Target('reach', f'{study.count:,} targets on a part, Panda, IK @50 ms with '
                    f'collision checking, one core: ≥ {TARGET_RATE:.0f} targets/s (issue 29)',
                    f'{_med(rates, 0)} targets/s', rate >= TARGET_RATE)
    return Section('One core: the initial pass in process', tables=[table, parts, distance],
                   targets=[target], notes=[
        f'A child process (`bench_reach.py {CHILD_ROLE}`) pinned to CPU {cpu} of {cpus} '
        '(`sched_setaffinity`) with ' + ', '.join(f'`{k}=1`' for k in THREAD_ENV) + '. The '
        "package's numba kernels are `njit(nogil=True)` without `parallel`, so they run on the "
        "calling thread anyway, and the batched-FK thread pool sizes itself from the usable "
        'CPUs (one here).',
        'Timed: `run_initial_pass(problem, goals, InProcess())` with `perf_counter`, IK, '
        'collision checks and scoring of every target. Not timed: building the study '
        f'({out["build_s"]:.2f} s: model, scene, part) and one warm-up batch of '
        f'{WARM_TARGETS} other targets ({out["warm_s"]:.2f} s, with the IK set-up and the '
        'kernels); both happen once per process (the workers part reports them as start-up).',
        'The split comes from wrapping `solve_ik_batch`, `is_state_colliding` and the '
        "evaluator's `score` with timers in that extra pass (its total shows their cost); the "
        'collision checks run inside IK (the validity callback vetoes candidates), so IK '
        'iterations are `solve_ik_batch` minus them.',
        'The child waits for a quiet machine before each repeat and runs a disturbed one once '
        'more (the method above); "other processes" are the cores the rest of the machine '
        'used during the kept pass.'])


def _per_call(seconds: float, calls: float) -> str:
    us = 1e6 * seconds / calls
    return f'{us / 1e3:.1f} ms' if us >= 1e4 else f'{us:.1f} µs'


def _run_child(progress: Progress, config: Path, cpu: int) -> dict[str, Any]:
    """Run the one-core child pinned to ``cpu``; its JSON result (progress lines forwarded)."""
    env = {**os.environ, **THREAD_ENV, 'PYTHONUNBUFFERED': '1'}
    with subprocess.Popen([PYTHON, str(THIS_FILE), CHILD_ROLE, str(config)], env=env,
                          cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.sched_setaffinity(0, {cpu})) as proc:
        assert proc.stdout is not None
        result: dict[str, Any] | None = None
        for line in proc.stdout:
            if line.startswith('{'):
                result = json.loads(line)
            elif line.strip():
                progress.step(f'reach       one_core: {line.strip()}')
        code = proc.wait()
    if code != 0 or result is None:
        raise RuntimeError(f'the one-core child exited with {code}')
    return result


def _timer(owner: Any, name: str, totals: dict[str, float], bucket: str) -> None:
    """Replace ``owner.name`` by a wrapper adding its time and calls to ``totals[bucket]``."""
    original = getattr(owner, name)
    totals[bucket] = totals[f'{bucket}_calls'] = 0

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[bucket] += time.perf_counter() - t0
            totals[f'{bucket}_calls'] += 1
    setattr(owner, name, timed)


def one_core_child(config_path: Path) -> dict[str, Any]:
    """The one-core child: timed in-process passes, the distance-penalty cost, the split."""
    import robot_state_core.reach.study as study_module
    from robot_state_core.scene.planning_scene import PlanningScene

    config = json.loads(config_path.read_text(encoding='utf-8'))
    part, count, seeds = config['part'], config['count'], config['seeds']
    problem = make_problem(part, config['radius'], config['seed'])
    t0 = time.perf_counter()
    build(problem)
    build_s = time.perf_counter() - t0
    warm = flip_targets(make_targets(part, WARM_TARGETS, max(seeds) + 1))
    t0 = time.perf_counter()
    run_initial_pass(problem, warm, InProcess())
    warm_s = time.perf_counter() - t0
    out: dict[str, Any] = {'build_s': build_s, 'warm_s': warm_s, 'seconds': [], 'reach': [],
                           'timeouts': [], 'others': [], 'rerun': []}
    quiet = Quiet(config['quiet_wait'], config['quiet_budget'])
    goals0 = None
    for k, seed in enumerate(seeds):
        goals = flip_targets(make_targets(part, count, seed))
        goals0 = goals if goals0 is None else goals0
        t, rerun = quiet.repeat(partial(timed_pass, problem, goals, InProcess()),
                                attrgetter('others'))
        np.savez(Path(config['out']) / f'inprocess_{k}.npz', reached=t.result.reached,
                 q=t.result.q, score=t.result.score)
        for key, value in (('seconds', t.seconds), ('reach', t.result.summary().reach_percentage),
                           ('timeouts', t.record.timeouts), ('others', t.others),
                           ('rerun', rerun)):
            out[key].append(value)
        print(f'repeat {k}: {count / t.seconds:.0f} targets/s, other processes '
              f'{t.others:.2f} cores' + (' (run twice)' if rerun else ''), flush=True)
    assert goals0 is not None
    few = goals0[:config['distance_count']]
    distance: dict[str, float] = {'count': len(few)}
    for key, evaluator in (('plain', None), ('with', Multiplicative(
            (Manipulability(), JointLimitPenalty(), DISTANCE)))):
        other = make_problem(part, config['radius'], config['seed'], evaluator)
        build(other)
        run_initial_pass(other, warm, InProcess())  # the IK set-up of the rebuilt model
        quiet.settle()
        distance[key] = timed_pass(other, few, InProcess()).seconds
    out['distance'] = distance
    print(f'distance penalty: {distance["with"] / distance["plain"]:.2f}x the pass', flush=True)
    build(problem)
    run_initial_pass(problem, warm, InProcess())
    split: dict[str, float] = {}
    _timer(study_module, 'solve_ik_batch', split, 'ik')
    _timer(PlanningScene, 'is_state_colliding', split, 'collision')
    _timer(Multiplicative, 'score', split, 'scoring')
    quiet.settle()
    split['total'] = timed_pass(problem, goals0, InProcess()).seconds
    out['split'] = split
    out['quiet_spent'] = quiet.spent
    return out


# ---------------------------------------------------------------------------- workers


def _executor_row(table: Table, label: str, runs: Sequence[Timed], count: int) -> None:
    table.add(label, _med([r.seconds for r in runs]),
              _med([count / r.seconds for r in runs], 0),
              _med([r.record.first for r in runs]),
              _med([r.record.startup for r in runs]),
              _med([r.record.transfer for r in runs]) + ' / '
              + _med([r.record.worker_build for r in runs]),
              _med([1e3 * statistics.median(r.record.batch_s) for r in runs], 0),
              sum(r.record.timeouts for r in runs), _med([r.others for r in runs]))


def _executor_table(title: str) -> Table:
    return Table(['executor', 'pass [s]', 'targets/s', 'first batch back [s]',
                  'start-up [s]', 'of which: start + transfer / build in the worker [s]',
                  'batch in a worker [ms]', 'IK timeouts', 'other processes [cores]'],
                 title=title)


STARTUP_NOTE = (
    'A `LocalProcesses` executor starts its worker pool (spawn: a fresh interpreter per worker, '
    'which imports the package and the main module, `run.py`) at its first pass, sends the '
    'problem and batches (pickled), and each worker builds the study (model, scene, part) '
    'before its first batch; the workers then stay for the passes that follow until the '
    'executor is closed. "first": a new executor\'s first pass, start-up included (a new study '
    'on new workers); "second": the next pass on the same executor and the same targets '
    '(workers running, study built); the executor is closed after it (not timed). "first '
    'batch back" is the time from the call to the first solution; "start-up" is that minus '
    'the median batch time, split into process start + imports + transfer (first back minus '
    "that batch's time in its worker) and the worker's build (that batch's time minus the "
    'median batch).')


@dataclass(frozen=True)
class TwoPasses:
    """A new executor's first pass (start-up included) and its second on the same targets."""

    first: Timed
    second: Timed

    @property
    def others(self) -> float:
        """The larger of the two passes' other-process cores."""
        return max(self.first.others, self.second.others)


def local_passes(progress: Progress, study: Study, k: int, workers: int,
                 what: str) -> TwoPasses:
    """Two passes of repeat ``k``'s targets on a new ``LocalProcesses(workers)``, then closed."""
    with LocalProcesses(workers) as executor:
        passes = TwoPasses(timed_pass(study.problem, study.goals(k), executor),
                           timed_pass(study.problem, study.goals(k), executor))
    first = passes.first
    progress.step(f'reach       {what} repeat {k}: {workers} local worker(s) first pass '
                  f'{first.seconds:.2f} s (first batch back {first.record.first:.2f} s), '
                  f'second {passes.second.seconds:.2f} s (other processes '
                  f'{passes.others:.2f} cores)')
    return passes


def bench_workers(settings: Settings, progress: Progress, study: Study) -> Section:
    workers = {'1 worker': 1, '2 workers': 2}
    runs: dict[str, list[TwoPasses]] = {label: [] for label in workers}
    per_repeat = Table(['repeat', 'order', '1 worker: first / second pass [s]',
                        '2 workers: first / second pass [s]', '**1 / 2, first pass**',
                        '1 / 2, second pass', 'other processes [cores] (max)', 're-run'],
                       title='Per repeat (the same targets for every pass)')
    ratios, second_ratios = [], []
    for k in range(len(study.seeds)):
        order = list(workers) if k % 2 == 0 else list(workers)[::-1]

        def one_repeat(k: int = k, order: list[str] = order) -> dict[str, TwoPasses]:
            return {label: local_passes(progress, study, k, workers[label], 'workers')
                    for label in order}
        kept, rerun = study.quiet.repeat(one_repeat, lambda r: max(p.others for p in r.values()))
        for label, pair in kept.items():
            runs[label].append(pair)
            _keep(study, f'LocalProcesses({workers[label]}), first pass', k, pair.first)
            _keep(study, f'LocalProcesses({workers[label]}), second pass', k, pair.second)
        one, two = kept['1 worker'], kept['2 workers']
        ratios.append(one.first.seconds / two.first.seconds)
        second_ratios.append(one.second.seconds / two.second.seconds)
        per_repeat.add(k, ' then '.join(order),
                       f'{one.first.seconds:.2f} / {one.second.seconds:.2f}',
                       f'{two.first.seconds:.2f} / {two.second.seconds:.2f}',
                       f'**{fmt_ratio(ratios[-1])}**', fmt_ratio(second_ratios[-1]),
                       f'{max(one.others, two.others):.2f}', 'yes' if rerun else 'no')
    table = _executor_table(f'Initial pass, {study.count:,} targets, `LocalProcesses(n)`, median '
                            f'[min–max] over {len(study.seeds)} repeats')
    for label, passes in runs.items():
        n = workers[label]
        _executor_row(table, f'`LocalProcesses({n})`, first pass (start-up included)',
                      [p.first for p in passes], study.count)
        _executor_row(table, f'`LocalProcesses({n})`, second pass (workers running)',
                      [p.second for p in passes], study.count)
    ratio = statistics.median(ratios)
    second = statistics.median(second_ratios)
    progress.step(f'reach       workers: 2 vs 1 worker {ratio:.2f}x first pass, {second:.2f}x '
                  'second pass (medians)')
    target = Target('reach', f'2 local workers vs 1, same study ({study.count:,} targets, '
                    f'initial pass, start-up included): ≥ {TARGET_SPEEDUP}× (issue 29)',
                    f'{fmt_ratio(ratio)} (per repeat: '
                    + ', '.join(fmt_ratio(r) for r in ratios) + f'); second pass, workers '
                    f'running: {fmt_ratio(second)}', ratio >= TARGET_SPEEDUP)
    return Section('Local workers: 2 vs 1', tables=[table, per_repeat], targets=[target], notes=[
        'The study is the initial pass only (`run_initial_pass`); the seeding part times the '
        'optimisation passes.', STARTUP_NOTE,
        f'The machine has {os.cpu_count()} logical CPUs: two workers use all of them, beside '
        'this process (which only hands out batches and merges solutions) and whatever else '
        'runs ("other processes"). Judged (rule fixed before the run): the median of the '
        "per-repeat ratios of the first passes (start-up included); the second passes' ratio "
        'is reported.'])


# ---------------------------------------------------------------------------- ray


@dataclass(frozen=True)
class RayRepeat:
    """One repeat of the Ray part: a fresh cluster's start, two passes, its stop; the peer."""

    init: float
    ray: TwoPasses
    stop: float
    local: TwoPasses

    @property
    def others(self) -> float:
        """The largest other-process cores of the repeat's passes."""
        return max(self.ray.others, self.local.others)


def _ray_repeat(progress: Progress, study: Study, k: int, order: Sequence[str]) -> RayRepeat:
    """``RayCluster(num_cpus=2)`` started, two passes, stopped; ``LocalProcesses(2)``; in order.

    Raises:
        BackendUnavailableError: Ray is not installed.
    """
    times: dict[str, Any] = {}
    for which in order:
        if which == 'local':
            times['local'] = local_passes(progress, study, k, 2, 'ray')
            continue
        t0 = time.perf_counter()
        with quiet_native_output():
            cluster = RayCluster(num_cpus=2)
        times['init'] = time.perf_counter() - t0
        try:
            times['ray'] = TwoPasses(timed_pass(study.problem, study.goals(k), cluster),
                                     timed_pass(study.problem, study.goals(k), cluster))
        finally:
            t0 = time.perf_counter()
            with quiet_native_output():
                cluster.shutdown()
            times['stop'] = time.perf_counter() - t0
        progress.step(f'reach       ray repeat {k}: ray.init {times["init"]:.1f} s, first pass '
                      f'{times["ray"].first.seconds:.2f} s, second '
                      f'{times["ray"].second.seconds:.2f} s (other processes '
                      f'{times["ray"].others:.2f} cores)')
    return RayRepeat(**times)


def bench_ray(settings: Settings, progress: Progress, study: Study) -> Section:
    repeats: list[RayRepeat] = []
    per_repeat = Table(['repeat', 'order', '`ray.init` [s]', 'Ray: first / second pass [s]',
                        'shutdown [s]', '2 local workers: first / second pass [s]',
                        '**Ray / local, first pass**', 'Ray / local, second pass',
                        '(init + first) / local first', 'other processes [cores] (max)',
                        're-run'],
                       title='Per repeat (a fresh local Ray cluster and a new 2-worker executor '
                       'each time; the same targets for every pass of a repeat)')
    for k in range(len(study.seeds)):
        order = ('Ray', 'local') if k % 2 == 0 else ('local', 'Ray')
        try:
            r, rerun = study.quiet.repeat(
                partial(_ray_repeat, progress, study, k, order),
                attrgetter('others'))
        except BackendUnavailableError as err:
            return Section('Ray', str(err), targets=[Target(
                'reach', 'Ray local cluster (2 CPUs) vs `--workers 2`', 'not run', None,
                str(err))])
        repeats.append(r)
        _keep(study, 'RayCluster, first pass', k, r.ray.first)
        _keep(study, 'RayCluster, second pass', k, r.ray.second)
        lo = r.local.first.seconds
        per_repeat.add(k, ' then '.join(order), f'{r.init:.2f}',
                       f'{r.ray.first.seconds:.2f} / {r.ray.second.seconds:.2f}', f'{r.stop:.2f}',
                       f'{lo:.2f} / {r.local.second.seconds:.2f}',
                       f'**{fmt_ratio(r.ray.first.seconds / lo)}**',
                       fmt_ratio(r.ray.second.seconds / r.local.second.seconds),
                       fmt_ratio((r.init + r.ray.first.seconds) / lo), f'{r.others:.2f}',
                       'yes' if rerun else 'no')
    ratio = statistics.median(r.ray.first.seconds / r.local.first.seconds for r in repeats)
    second = statistics.median(r.ray.second.seconds / r.local.second.seconds for r in repeats)
    with_init = statistics.median((r.init + r.ray.first.seconds) / r.local.first.seconds
                                  for r in repeats)
    init = [r.init for r in repeats]
    table = _executor_table(f'Initial pass, {study.count:,} targets, median [min–max] over '
                            f'{len(repeats)} repeats')
    for label, path in (('`RayCluster(num_cpus=2)`, first pass after `ray.init`', 'ray.first'),
                        ('`RayCluster(num_cpus=2)`, second pass', 'ray.second'),
                        ('`LocalProcesses(2)`, first pass (start-up included)', 'local.first'),
                        ('`LocalProcesses(2)`, second pass', 'local.second')):
        _executor_row(table, label, [attrgetter(path)(r) for r in repeats], study.count)
    progress.step(f'reach       ray: Ray / local {ratio:.2f}x first pass, {second:.2f}x second '
                  f'pass, ray.init {statistics.median(init):.1f} s')
    target = Target('reach', f'Ray local cluster (2 CPUs) vs `--workers 2` ({study.count:,} '
                    "targets, initial pass, first pass of each: workers' start-up included, "
                    f'`ray.init` excluded): ≤ {(TARGET_RAY_RATIO - 1):.0%} slower (issue 29)',
                    f'Ray / local {fmt_ratio(ratio)} (second pass {fmt_ratio(second)}; with '
                    f'`ray.init` {fmt_ratio(with_init)}; `ray.init` {_med(init, 1)} s)',
                    ratio <= TARGET_RAY_RATIO)
    return Section('Ray local cluster vs 2 local workers', tables=[table, per_repeat],
                   targets=[target], notes=[
        'Judged (rule fixed before the run): the first pass on a fresh `RayCluster(num_cpus=2)` '
        '(its worker processes import the package and build the study) against the first pass '
        'of a new `LocalProcesses(2)` (whose workers do the same), on the same targets; the '
        'median of the per-repeat ratios. `ray.init` (starting the cluster: GCS, raylet, its '
        'worker processes) is **not** included in the judged ratio: it is reported in its own '
        'column and in "(init + first) / local first"; a study on a running cluster '
        '(`--ray-address`) does not pay it. The second passes (workers running on both sides) '
        'are compared too (reported).', STARTUP_NOTE,
        "Ray was started with `include_dashboard=False`, `log_to_driver=False` (the executor's "
        'defaults); its own processes (GCS, raylet) share the 2 CPUs with its workers and are '
        'counted as ours (descendants of this process), not as other processes.'])


# ---------------------------------------------------------------------------- seeding


def bench_seeding(settings: Settings, progress: Progress, study: Study) -> Section:
    study.quiet.settle()
    with LocalProcesses(2) as executor:
        recorder = Recorder(executor)
        started = _cpu()
        db = run_study(study.problem, make_targets(study.part, study.count, study.seeds[0]),
                       recorder)
    ends = [started] + [r.cpu_end for r in recorder.passes]
    table = Table(['pass', 'IK problems', 'pass [s]', 'IK timeouts', '**reach %**', 'reached',
                   'Δ reach [pp]', 'normalised score', 'total score', 'other processes [cores]'],
                  title=f'`run_study` on `LocalProcesses(2)`, {study.count:,} targets '
                  f"(repeat 0's), radius {study.problem.parameters.radius * 1e3:.1f} mm")
    summaries = [r.summary() for r in db.results]
    drops = []
    for k, (s, record) in enumerate(zip(summaries, recorder.passes, strict=True)):
        delta = s.reach_percentage - summaries[k - 1].reach_percentage if k else 0.0
        if delta < 0:
            drops.append(k)
        table.add('initial' if k == 0 else f'optimisation {k}', f'{record.problems:,}',
                  f'{ends[k + 1][0] - ends[k][0]:.1f}', record.timeouts,
                  f'**{s.reach_percentage:.2f}**', f'{s.reached:,}',
                  f'{delta:+.2f}' if k else '—', f'{s.norm_total_pose_score:.2f}',
                  f'{s.total_pose_score:.2f}', f'{_others(ends[k], ends[k + 1]):.2f}')
    reach = ' → '.join(f'{s.reach_percentage:.2f}' for s in summaries)
    progress.step(f'reach       seeding: reach % per pass {reach}')
    study.arrays['run_study initial pass (LocalProcesses(2))', 0] = (
        db.results[0].reached, db.results[0].q, db.results[0].score, recorder.passes[0].timeouts)
    target = Target('reach', 'neighbour-seeding pass: reach % never lower than before the pass '
                    f'(issue 29; {len(summaries) - 1} passes, {study.count:,} targets)',
                    f'reach % {reach}; normalised score '
                    + ' → '.join(f'{s.norm_total_pose_score:.1f}' for s in summaries),
                    not drops, f'lower after pass {drops}' if drops else '')
    return Section('Neighbour seeding', tables=[table], targets=[target], notes=[
        'Each optimisation pass seeds IK for every neighbour (within the radius) of every '
        "reached target from that target's solution; a neighbour takes its best candidate when "
        'it was unreached or scores higher (REACH `reachNeighborsDirect`, decision R1); passes '
        'stop when the normalised score improves by ≤ 1 % or after `max_steps`.',
        "Pass time: from the end of the previous pass (the study's start for the initial "
        'pass) to the end of this one: finding the neighbours and the IK of every candidate; '
        'the 2 workers start in the initial pass (its time includes their start-up) and stay '
        'for the optimisation passes. Verdict: met when no pass has a lower reach % '
        'than the pass before it (the normalised score is reported). One run after a wait for '
        'a quiet machine; not re-run (the verdict does not depend on time).'])


# ---------------------------------------------------------------------------- identical


def identity_section(study: Study) -> Section:
    """Every executor's arrays against the reference's (same targets, same study seed)."""
    labels = list(dict.fromkeys(label for label, _ in study.arrays))
    table = Table(['executor', 'compared with', 'repeats', 'targets', 'reached equal',
                   'q equal (else the largest Δq, rad)', 'score equal', 'IK timeouts (both)'],
                  title='Same targets, same study seed: the arrays of every pass')
    if len(labels) < 2:
        return Section('Identical results across executors', 'Fewer than two executors ran.',
                       targets=[Target('reach', 'same seed: identical arrays on every executor',
                                       'not run', None, 'fewer than two executors ran')])
    reference = labels[0]
    same = True
    for label in labels[1:]:
        keys = [k for (lab, k) in study.arrays if lab == label and (reference, k) in study.arrays]
        reached = q = score = True
        dq = 0.0
        timeouts = 0
        for k in keys:
            a, b = study.arrays[reference, k], study.arrays[label, k]
            reached &= bool(np.array_equal(a[0], b[0]))
            q &= bool(np.array_equal(a[1], b[1]))
            score &= bool(np.array_equal(a[2], b[2]))
            dq = max(dq, float(np.max(np.abs(a[1] - b[1]))))
            timeouts += a[3] + b[3]
        same &= reached and q and score
        table.add(label, reference, ', '.join(map(str, keys)), f'{study.count:,}',
                  'yes' if reached else '**no**', 'yes' if q else f'**no** ({dq:.3g})',
                  'yes' if score else '**no**', timeouts)
    return Section('Identical results across executors', tables=[table], targets=[Target(
        'reach', 'same targets and seed: identical reached / q / score arrays on every '
        'executor', 'bitwise identical' if same else 'differences (see the table)', same)],
        notes=['Bitwise comparison. IK stops at 400 iterations or the 50 ms budget per target, '
               'whichever comes first; only a target stopped by the clock (an IK timeout) '
               'may legitimately differ between runs.'])


# ---------------------------------------------------------------------------- entry


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Run the selected parts (``one_core``, ``workers``, ``ray``, ``seeding``)."""
    count = _pick(settings, TARGETS)
    seeds = tuple(settings.seed + k for k in range(_pick(settings, REPEATS)))
    with tempfile.TemporaryDirectory(prefix='bench_reach_') as tmp:
        mesh = plate_with_hole()
        part = Path(tmp) / 'plate.stl'
        mesh.export(part)
        radius = seeding_radius(float(mesh.area), count)
        study = Study(str(part), float(mesh.area), count, seeds,
                      make_problem(str(part), radius, settings.seed), Path(tmp),
                      Quiet(_pick(settings, QUIET_WAIT_S), _pick(settings, QUIET_BUDGET_S)))
        build(study.problem)  # in this process too (run_initial_pass reads it), not timed
        sections = [study_section(settings, study)]
        steps = (('one_core', bench_one_core), ('workers', bench_workers), ('ray', bench_ray),
                 ('seeding', bench_seeding))
        for part_name, fn in steps:
            if part_name in parts:
                sections.append(fn(settings, progress, study))
        sections.append(identity_section(study))
    q = study.quiet
    sections.append(Section('Machine load', f'Waits for a quiet machine and re-runs of disturbed '
                            f'repeats took {q.spent:.0f} s (budget {q.budget:.0f} s: none starts '
                            f'after it is spent, the last may end past it); '
                            f'{q.reruns} repeat(s) were run twice.'))
    return sections


if __name__ == '__main__':
    if sys.argv[1:2] == [CHILD_ROLE]:
        parser = argparse.ArgumentParser(prog='bench_reach.py', description='the one-core '
                                         'child of the reach benchmark (started by it)')
        parser.add_argument(CHILD_ROLE, type=Path, dest='config', help='JSON config')
        print(json.dumps(one_core_child(parser.parse_args().config)), flush=True)
        raise SystemExit(0)
    import run as _run

    raise SystemExit(_run.main(['--module', NAME, *sys.argv[1:]]))
