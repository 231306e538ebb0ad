"""Planning-scene benchmarks (issue 23): many world objects in one message; before/after.

* ``many_objects``: N world boxes (0.01 m cubes, seeded random positions, 10 % of them near the
  robot) arrive in **one** ``moveit_msgs/PlanningScene`` diff message and the scene is queried
  once. Every case runs in a **fresh child process** (``python benchmarks/bench_scene.py
  --add-child ...``), so its memory growth and first-query cost are its own: the child builds
  the default robot's model and a ``PlanningScene``, runs one ``check_collision`` (warm-up of the
  robot part, not counted), reads ``ru_maxrss``, then times building the message (a client's
  work, reported apart), ``apply_planning_scene_msg(scene, msg)``, the first and a second
  ``scene.check_collision(scene.current_state)``. Two forms: N objects with one box each, and
  MoveIt's form of its ``TestCollisionMapAdditionSpeed`` test (one object ``map`` holding N
  boxes). N = 1 000, 10 000 (judged: ≤ 5 s for apply + first query, ≤ 300 MB RSS growth) and
  100 000 (reported only).
* ``apply_dds``: the same 10 000-object message over DDS: a server process
  (``all_in_one_main`` of the default robot, namespace ``/bench``) and a client process
  (``bench_scene.py --dds-client``) that calls ``/bench/apply_planning_scene`` and then
  ``/bench/check_state_validity``; round trips and the server's memory growth (``VmHWM``).
* ``before_after``: the 'robot vs 100 world boxes' check of ``bench_collision.py`` (same boxes,
  states and seeds) timed for the current tree and for the commit before issue 23's work
  (``git worktree add /tmp/rsc_before 9b9dee2``, imported through ``PYTHONPATH`` with the same
  venv), in alternating child processes (``bench_scene.py --world-child ...``).

The benchmark process imports neither rclpy nor the old code: both run in children.

Run through ``benchmarks/run.py`` (``--module scene``, ``--only many_objects|apply_dds|
before_after``, ``--quick``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
import contextlib
import json
import os
from pathlib import Path
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from bench_ros import (
    Child,
    child,
    FOREIGN_LIMIT,
    MATCH_TIMEOUT,
    missing_ros_modules,
    PYTHON,
    ros_env,
    shm_leftovers,
    shm_segments,
    STOP_TIMEOUT,
    system_busy_seconds,
    wait_for_quiet,
)
from common import (
    fmt_ms,
    fmt_pct,
    fmt_ratio,
    fmt_us,
    interleaved,
    Progress,
    REPO_ROOT,
    Section,
    Settings,
    Table,
    Target,
)
import numpy as np

NAME = 'scene'
TITLE = 'robot_state_core planning-scene benchmarks (issue 23)'
PARTS = ('many_objects', 'apply_dds', 'before_after')
METHOD = ("Method: every measured case runs in its own fresh child process (the venv's "
          'python), so memory growth, first-call costs and the imported code are its own. '
          'Times are wall clock (`time.perf_counter`) of one call unless a table says '
          'otherwise; the before/after part times whole passes over the states (calibrated to '
          '≥ 20 ms per sample, GC off, median of the repeats inside each child) and alternates '
          'old and new children. Ratios are between children of the same run only.')

THIS_FILE = Path(__file__).resolve()
ROLES = ('--add-child', '--world-child', '--dds-client')

# ---------------------------------------------------------------- many_objects (issue 23 row 1)
ADD_SIZES = (1_000, 10_000, 100_000)  # full run
ADD_SIZES_QUICK = (1_000, 10_000)
JUDGED_N = 10_000
FORMS = ('objects', 'map')  # N objects with one box each; one object 'map' with N boxes
FORM_LABELS = {'objects': 'N objects × 1 box', 'map': "1 object 'map' × N boxes (MoveIt's test)"}
BOX_SIDE = 0.01  # m (MoveIt's TestCollisionMapAdditionSpeed)
NEAR_FRACTION = 0.1  # of the boxes near the robot (so the query has candidates)
NEAR_MARGIN = 0.3  # m around the box of the link origins in the default state
FAR_LO, FAR_HI = (-10.0, -10.0, 0.0), (10.0, 10.0, 3.0)  # m: the other boxes
TARGET_TOTAL_S = 5.0  # apply + first query (MoveIt's test allows 5 s for 10 000 shapes)
TARGET_RSS_MB = 300.0  # ru_maxrss growth
ADD_TIMEOUT_S = {1_000: 60.0, 10_000: 90.0, 100_000: 150.0}  # per child (report 'timed out')
MAX_CHILD_GB = 8.0  # address-space cap of a child (a guard for the shared machine)
ADD_SEED_OFFSET = 23  # positions: settings.seed + this + N

# ---------------------------------------------------------------- apply_dds
DDS_N = 10_000
DDS_NAMESPACE = '/bench'
DDS_CALL_TIMEOUT_S = 120.0
SERVER_SNIPPET = 'from robot_state_core.ros.main import all_in_one_main; all_in_one_main()'

# ---------------------------------------------------------------- before_after (issue 23 row 2)
BEFORE_COMMIT = '9b9dee2'
WORKTREE = Path('/tmp/rsc_before')
BA_CHILDREN = (9, 2)  # children per version and robot (full, quick)
BA_REPEATS = (15, 3)  # timed samples inside each child (full, quick)
BA_STATES = (200, 20)  # states per pass (bench_collision's WORLD_TIME_STATES for the Panda)
RATIO_LIMIT = 1.05  # verdict: median over the rounds of new/old time per state ≤ this
BA_TIMEOUT_S = 180.0
#: Before each round: wait until other processes use < FOREIGN_LIMIT cores (at most this long
#: [s]); a round whose child saw more is run once more and the less disturbed one kept. Quiet
#: waits and re-runs stop once QUIET_BUDGET_S [s] went into them (full, quick).
QUIET_WAIT_S = (5.0, 1.0)
QUIET_BUDGET_S = (60.0, 5.0)
DEFAULT_BOX_MARGIN = 0.0  # m: the default robot's margin (~40 % of its states collide)
#: The same in both versions' children: single-threaded numeric libraries (the check itself
#: runs on the calling thread).
THREAD_ENV = {'OMP_NUM_THREADS': '1', 'OPENBLAS_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1',
              'NUMBA_NUM_THREADS': '1'}


def _pick(settings: Settings, value: tuple[int, int]) -> int:
    return value[1] if settings.quick else value[0]


def _kib(key: str, pid: int | str = 'self') -> int:
    """``VmRSS`` / ``VmHWM`` / ... of a process [KiB] from ``/proc/<pid>/status`` (0 if absent)."""
    try:
        for line in Path(f'/proc/{pid}/status').read_text().splitlines():
            if line.startswith(key + ':'):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _maxrss_kib() -> int:
    """Peak resident set size of this process [KiB] (Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _mb(kib: float) -> str:
    return f'{kib / 1024:,.0f}'


def _s(seconds: float) -> str:
    return f'{seconds:.3f}' if seconds < 10 else f'{seconds:.1f}'


# ---------------------------------------------------------------------------- the message


def default_robot_scene() -> Any:
    """A ``PlanningScene`` of the embedded default robot (with its SRDF)."""
    from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
    from robot_state_core.model.robot_model import RobotModel
    from robot_state_core.scene.planning_scene import PlanningScene

    return PlanningScene(RobotModel.from_urdf_file(default_robot_urdf_path(),
                                                   default_robot_srdf_path()))


def near_region(scene: Any) -> tuple[np.ndarray, np.ndarray]:
    """The box of the link origins in the scene's current state, grown by ``NEAR_MARGIN``."""
    origins = scene.current_state.get_link_poses()[:, :3, 3]
    return origins.min(axis=0) - NEAR_MARGIN, origins.max(axis=0) + NEAR_MARGIN


def box_positions(n: int, seed: int, near_lo: np.ndarray, near_hi: np.ndarray) -> np.ndarray:
    """``(n, 3)`` seeded box centres: ``NEAR_FRACTION`` near the robot, the rest far, shuffled."""
    rng = np.random.default_rng(seed)
    k = round(n * NEAR_FRACTION)
    P = np.concatenate([rng.uniform(near_lo, near_hi, size=(k, 3)),
                        rng.uniform(FAR_LO, FAR_HI, size=(n - k, 3))])
    return P[rng.permutation(n)]


def scene_message(P: np.ndarray, form: str) -> Any:
    """One ``moveit_msgs/PlanningScene`` diff adding a 0.01 m box at each row of ``P``.

    ``objects``: one ``CollisionObject`` (ADD, frame 'world', pose = the box centre) per box;
    ``map``: one object ``map`` (identity pose) whose primitive poses are the box centres.
    """
    from geometry_msgs.msg import Pose
    from moveit_msgs.msg import CollisionObject
    from moveit_msgs.msg import PlanningScene as PlanningSceneMsg
    from shape_msgs.msg import SolidPrimitive

    def pose(p: Sequence[float]) -> Any:
        out = Pose()
        out.position.x, out.position.y, out.position.z = p
        out.orientation.w = 1.0
        return out

    def box() -> Any:
        return SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[BOX_SIDE] * 3)

    msg = PlanningSceneMsg()
    msg.is_diff = True
    msg.robot_state.is_diff = True
    rows = P.tolist()
    objects = []
    if form == 'objects':
        for i, p in enumerate(rows):
            obj = CollisionObject()
            obj.header.frame_id = 'world'
            obj.id = f'box{i}'
            obj.pose = pose(p)
            obj.primitives = [box()]
            obj.operation = CollisionObject.ADD
            objects.append(obj)
    elif form == 'map':
        obj = CollisionObject()
        obj.header.frame_id = 'world'
        obj.id = 'map'
        obj.pose.orientation.w = 1.0
        obj.primitives = [box() for _ in rows]
        obj.primitive_poses = [pose(p) for p in rows]
        obj.operation = CollisionObject.ADD
        objects.append(obj)
    else:
        raise ValueError(f'unknown form {form!r}')
    msg.world.collision_objects = objects
    return msg


# ---------------------------------------------------------------------------- many_objects


def add_child_main(n: int, form: str, seed: int, profile: bool = False) -> dict[str, Any]:
    """One ``many_objects`` case in this fresh process (``--add-child``)."""
    import robot_state_core
    from robot_state_core.ros.planning_scene_conversions import apply_planning_scene_msg

    out: dict[str, Any] = {'module': robot_state_core.__file__, 'n': n, 'form': form,
                           'rss_import_kib': _kib('VmRSS')}
    t0 = time.perf_counter()
    scene = default_robot_scene()
    warm = scene.check_collision(scene.current_state)  # robot part: kernels, tables
    out['warm_s'] = time.perf_counter() - t0
    out['warm_collision'] = bool(warm.collision)
    near_lo, near_hi = near_region(scene)
    P = box_positions(n, seed, near_lo, near_hi)
    out['near_region'] = [near_lo.tolist(), near_hi.tolist()]
    before_max, before_rss = _maxrss_kib(), _kib('VmRSS')
    profilers: list[Any] = []
    if profile:
        import cProfile

        profilers = [cProfile.Profile(), cProfile.Profile()]  # apply, first query
    t0 = time.perf_counter()
    msg = scene_message(P, form)
    t1 = time.perf_counter()
    msg_rss = _kib('VmRSS')
    with profilers[0] if profilers else contextlib.nullcontext():
        t2 = time.perf_counter()
        apply_planning_scene_msg(scene, msg)
        t3 = time.perf_counter()
    with profilers[1] if profilers else contextlib.nullcontext():
        t3 = time.perf_counter()
        first = scene.check_collision(scene.current_state)
        t4 = time.perf_counter()
    second = scene.check_collision(scene.current_state)
    t5 = time.perf_counter()
    out.update(build_s=t1 - t0, apply_s=t3 - t2, query1_s=t4 - t3, query2_s=t5 - t4,
               collision=bool(first.collision), collision2=bool(second.collision),
               world_objects=len(scene.world), maxrss_before_kib=before_max,
               maxrss_after_kib=_maxrss_kib(), rss_before_kib=before_rss,
               rss_msg_kib=msg_rss, rss_after_kib=_kib('VmRSS'))
    for what, profiler in zip(('apply_planning_scene_msg', 'first check_collision'), profilers,
                              strict=False):
        import io
        import pstats

        for order, count in (('cumulative', 20), ('tottime', 12)):
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats(order).print_stats(count)
            print(f'==== {what}, by {order}', text.getvalue(), sep='\n', file=sys.stderr)
    return out


def _child_env(pythonpath: Path) -> dict[str, str]:
    env = {**os.environ, **THREAD_ENV, 'PYTHONPATH': str(pythonpath), 'PYTHONUNBUFFERED': '1'}
    env.pop('PYTHONSTARTUP', None)
    return env


def _run_json_child(args: Sequence[str], env: dict[str, str],
                    timeout: float) -> tuple[dict[str, Any] | None, str, float]:
    """Run ``bench_scene.py ARGS`` in a fresh capped child; ``(result or None, problem, wall)``.

    The result is the last stdout line that starts with ``{``; the problem is 'timed out' or the
    last stderr line of a failed child.
    """
    limit = int(MAX_CHILD_GB * 2**30)

    def cap() -> None:  # runs in the child before exec
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    t0 = time.perf_counter()
    try:
        proc = subprocess.run([PYTHON, str(THIS_FILE), *args], env=env, cwd=REPO_ROOT,
                              capture_output=True, text=True, preexec_fn=cap, check=False,
                              timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run killed it
        return None, f'timed out (> {timeout:.0f} s)', time.perf_counter() - t0
    wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith('{')]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ['no output'])[-1]
        return None, f'child exited {proc.returncode}: {tail[:200]}', wall
    return json.loads(lines[-1]), '', wall


def bench_many_objects(settings: Settings, progress: Progress) -> Section:
    sizes = ADD_SIZES_QUICK if settings.quick else ADD_SIZES
    table = Table(['form', 'N', 'message build s (client, not judged)', 'apply s',
                   'first query s', '**total s** (apply + first query)', 'second query ms',
                   'RSS growth MB (ru_maxrss)', 'RSS now MB: before → message → after',
                   'first query: collision', 'verdict'],
                  title='N world boxes (0.01 m) in one PlanningScene diff message, queried once '
                        '(default robot, one fresh child process per row)')
    section = Section(
        'Row 1: many world boxes added in one message and queried once',
        "Each row is a fresh child process (`bench_scene.py --add-child`, the venv's python, "
        f'address space capped at {MAX_CHILD_GB:g} GiB). The child builds the default robot '
        '(`RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())`) '
        'and `PlanningScene(model)`, runs one `check_collision(scene.current_state)` (warm-up '
        'of the robot part, not counted), reads `ru_maxrss`, then: builds ONE '
        '`moveit_msgs/PlanningScene` diff (`is_diff`, frame `world`) — **message build**, a '
        "client's work, not judged —, applies it with "
        '`robot_state_core.ros.planning_scene_conversions.apply_planning_scene_msg(scene, '
        'msg)` — **apply** —, then `scene.check_collision(scene.current_state)` — **first '
        'query** — and once more — **second query**. Boxes: 0.01 m cubes at seeded random '
        f'centres, {NEAR_FRACTION:.0%} in the box of the link origins (default state) grown by '
        f'{NEAR_MARGIN:g} m, the rest uniform in {FAR_LO}–{FAR_HI} m (same positions for both '
        'forms). Forms: **N objects × 1 box** (one `CollisionObject` ADD per box, pose = '
        "centre) and **1 object 'map' × N boxes** (MoveIt's `TestCollisionMapAdditionSpeed`: "
        "one object holding every box, primitive poses = centres). **RSS growth** = "
        '`ru_maxrss` after − before (peak, includes the message); the current RSS (`VmRSS`) '
        'before, after building the message and at the end is shown beside it. Target (issue '
        f'23) for N = {JUDGED_N:,}: total ≤ {TARGET_TOTAL_S:g} s and RSS growth ≤ '
        f'{TARGET_RSS_MB:g} MB; other N are reported only.',
        [table])
    modules: set[str] = set()
    for n in sizes:
        for form in FORMS:
            seed = settings.seed + ADD_SEED_OFFSET + n
            args = ['--add-child', '--n', str(n), '--form', form, '--seed', str(seed)]
            r, problem, wall = _run_json_child(args, _child_env(REPO_ROOT),
                                               ADD_TIMEOUT_S.get(n, 120.0))
            judged = n == JUDGED_N
            if r is None:
                table.add(FORM_LABELS[form], f'{n:,}', '—', '—', '—', '—', '—', '—', '—', '—',
                          problem if not judged else f'**MISSED** ({problem})')
                progress.step(f'many        {form:<7} N={n:>7,}: {problem}')
                if judged:
                    section.targets.append(Target(
                        'Many world boxes', f'{FORM_LABELS[form]}, N = {n:,}: apply + first '
                        f'query ≤ {TARGET_TOTAL_S:g} s and RSS growth ≤ {TARGET_RSS_MB:g} MB',
                        problem, False, problem))
                continue
            modules.add(str(r['module']))
            total = r['apply_s'] + r['query1_s']
            growth = (r['maxrss_after_kib'] - r['maxrss_before_kib']) / 1024
            ok = total <= TARGET_TOTAL_S and growth <= TARGET_RSS_MB
            verdict = ('met' if ok else '**MISSED**') if judged else 'reported'
            table.add(FORM_LABELS[form], f'{n:,}', _s(r['build_s']), _s(r['apply_s']),
                      _s(r['query1_s']), f'**{_s(total)}**', fmt_ms(r['query2_s']),
                      f'{growth:,.0f}', f'{_mb(r["rss_before_kib"])} → {_mb(r["rss_msg_kib"])} '
                      f'→ {_mb(r["rss_after_kib"])}',
                      f'{"yes" if r["collision"] else "no"} ({r["world_objects"]:,} world '
                      f'object{"s" if r["world_objects"] != 1 else ""})', verdict)
            progress.step(f'many        {form:<7} N={n:>7,}: build {_s(r["build_s"])} s, apply '
                          f'{_s(r["apply_s"])} s, first query {_s(r["query1_s"])} s, total '
                          f'{_s(total)} s, second {fmt_ms(r["query2_s"])} ms, RSS +{growth:,.0f} '
                          f'MB (child {wall:.1f} s)')
            if judged:
                missed = []
                if total > TARGET_TOTAL_S:
                    missed.append(f'total {fmt_ratio(total / TARGET_TOTAL_S)} the limit')
                if growth > TARGET_RSS_MB:
                    missed.append(f'RSS {fmt_ratio(growth / TARGET_RSS_MB)} the limit')
                section.targets.append(Target(
                    'Many world boxes', f'{FORM_LABELS[form]}, N = {n:,}: apply + first query '
                    f'≤ {TARGET_TOTAL_S:g} s and RSS growth ≤ {TARGET_RSS_MB:g} MB',
                    f'{_s(total)} s (apply {_s(r["apply_s"])} + first query '
                    f'{_s(r["query1_s"])}); +{growth:,.0f} MB; message build '
                    f'{_s(r["build_s"])} s (not counted)', ok, '; '.join(missed)))
    section.notes.append('Imported code: ' + ', '.join(f'`{m}`' for m in sorted(modules))
                         + '.')
    section.notes.append('The first query stops at the first contact (some of the boxes near '
                         'the robot touch it): its cost is mostly the one-time build of the '
                         "world's tables after the change (layout, candidate pairs, fcl "
                         'objects); the second query shows the per-query cost. `bench_scene.py '
                         '--add-child --n N --form F --seed S --profile` prints where the apply '
                         'and the first query spend their time.')
    section.notes.append("MoveIt's `TestCollisionMapAdditionSpeed` adds 10 000 0.01 m boxes "
                         '(all at the identity) to one object with `World::addToObject` and '
                         'allows 5 s; it times only the addition, these rows also time the '
                         'message conversion and the first query.')
    return section


# ---------------------------------------------------------------------------- apply_dds


def dds_client_main(config_path: Path, output_path: Path) -> int:
    """``--dds-client``: apply the N-box message over DDS, then check validity once."""
    from moveit_msgs.srv import ApplyPlanningScene, GetStateValidity
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    cfg = json.loads(config_path.read_text(encoding='utf-8'))
    rclpy.init()
    node = rclpy.create_node('bench_scene_client')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        ns = cfg['namespace']
        apply = node.create_client(ApplyPlanningScene, f'{ns}/apply_planning_scene')
        validity = node.create_client(GetStateValidity, f'{ns}/check_state_validity')
        for cli in (apply, validity):
            if not cli.wait_for_service(timeout_sec=float(cfg['match_timeout'])):
                raise RuntimeError(f'service {cli.srv_name} not available')

        def call(cli: Any, request: Any, timeout: float) -> tuple[float, Any]:
            t0 = time.perf_counter()
            future = cli.call_async(request)
            executor.spin_until_future_complete(future, timeout_sec=timeout)
            dt = time.perf_counter() - t0
            if not future.done():
                cli.remove_pending_request(future)
                return dt, None
            return dt, future.result()

        check = GetStateValidity.Request()
        check.robot_state.is_diff = True  # the server's current state
        warm_s, warm = call(validity, check, 60.0)  # robot part, not counted
        if warm is None:
            raise RuntimeError('warm-up check_state_validity timed out')
        t0 = time.perf_counter()
        P = box_positions(int(cfg['n']), int(cfg['seed']), np.asarray(cfg['near_lo']),
                          np.asarray(cfg['near_hi']))
        request = ApplyPlanningScene.Request()
        request.scene = scene_message(P, 'objects')
        build_s = time.perf_counter() - t0
        print('client ready', flush=True)
        go = Path(cfg['go_file'])
        deadline = time.monotonic() + float(cfg['match_timeout'])
        while not go.exists():  # the parent reads the server's memory first
            if time.monotonic() > deadline:
                raise RuntimeError('no go signal from the benchmark')
            threading.Event().wait(0.01)
        apply_s, applied = call(apply, request, float(cfg['call_timeout']))
        check1_s, first = call(validity, check, float(cfg['call_timeout']))
        check2_s, second = call(validity, check, float(cfg['call_timeout']))
        output_path.write_text(json.dumps({
            'warm_s': warm_s, 'warm_valid': bool(warm.valid), 'build_s': build_s,
            'apply_s': apply_s, 'applied': None if applied is None else bool(applied.success),
            'check1_s': check1_s, 'valid1': None if first is None else bool(first.valid),
            'contacts1': 0 if first is None else len(first.contacts),
            'check2_s': check2_s, 'valid2': None if second is None else bool(second.valid)}),
            encoding='utf-8')
        print('client done', flush=True)
        return 0
    except RuntimeError as exc:
        print(f'client: {exc}', flush=True)
        return 1
    finally:
        executor.remove_node(node)
        node.destroy_node()
        executor.shutdown(timeout_sec=1.0)
        rclpy.try_shutdown()


def bench_apply_dds(settings: Settings, progress: Progress) -> Section:
    import yaml

    from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path

    missing = missing_ros_modules()
    if missing:
        progress.step(f'dds         skipped: missing {missing}')
        return Section('Row 1 over DDS: skipped', f'Missing Python modules: {missing}.')
    import domain_coordinator

    table = Table(['call', 'round trip s', 'result'],
                  title=f'{DDS_N:,} world boxes (N objects × 1 box) over DDS, default robot')
    mem = Table(['server process', 'VmHWM MB', 'VmRSS MB'], title='Server memory')
    section = Section(
        f'Row 1 over DDS: apply_planning_scene with {DDS_N:,} objects, then '
        'check_state_validity',
        'A server child runs `python -c "' + SERVER_SNIPPET + '" <default URDF> --ros-args -r '
        f'__ns:={DDS_NAMESPACE} --params-file <yaml with robot_description_semantic>` '
        '(services and the state publisher in one process); a client child '
        '(`bench_scene.py --dds-client`, SingleThreadedExecutor, `call_async` + '
        '`spin_until_future_complete`) waits for both services, makes one untimed '
        '`check_state_validity` (warm-up of the robot part), builds the message (the same '
        f'{DDS_N:,} positions as the `many_objects` row, N objects × 1 box), and after the '
        "benchmark read the server's `/proc/<pid>/status` sends `apply_planning_scene` "
        "(`is_diff`) and then `check_state_validity` (empty diff robot state: the server's "
        'current state) twice. The server applies a diff to a copy of its scene, swaps it in and '
        'publishes the full scene on `monitored_planning_scene` (all inside the apply round '
        "trip). **Memory** = the server's `VmHWM` (peak RSS) after the calls − "
        'before the apply. Loopback DDS (`ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`, the '
        'fast-discovery FastDDS profile, `rmw_fastrtps_cpp`, a private `ROS_DOMAIN_ID` from '
        "ros-domain-coordinator). Reported, not judged (the issue's figure is the in-process "
        'one).',
        [table, mem])
    registry: list[Child] = []
    before = shm_segments()
    scene = default_robot_scene()
    near_lo, near_hi = near_region(scene)
    with domain_coordinator.domain_id() as domain, \
            tempfile.TemporaryDirectory(prefix='bench_scene_') as tmp_name:
        tmp = Path(tmp_name)
        env = ros_env(int(domain))
        params = tmp / 'params.yaml'
        params.write_text(yaml.safe_dump({'/**': {'ros__parameters': {
            'robot_description_semantic': default_robot_srdf_path().read_text()}}}),
            encoding='utf-8')
        go = tmp / 'go'
        config, output = tmp / 'client.json', tmp / 'client_out.json'
        config.write_text(json.dumps({
            'n': DDS_N, 'seed': settings.seed + ADD_SEED_OFFSET + DDS_N,
            'near_lo': near_lo.tolist(), 'near_hi': near_hi.tolist(),
            'namespace': DDS_NAMESPACE, 'match_timeout': MATCH_TIMEOUT,
            'call_timeout': DDS_CALL_TIMEOUT_S, 'go_file': str(go)}), encoding='utf-8')
        progress.step(f'dds         ROS_DOMAIN_ID={domain}; server {DDS_NAMESPACE} (default '
                      'robot), client with the message')
        try:
            with child('server (all_in_one_main)',
                       ['-c', SERVER_SNIPPET, str(default_robot_urdf_path()), '--ros-args', '-r',
                        f'__ns:={DDS_NAMESPACE}', '--params-file', str(params)], env,
                       registry) as server, \
                    child('scene client', [str(THIS_FILE), '--dds-client', '--config',
                                           str(config), '--output', str(output)], env,
                          registry) as client:
                client.wait_for_line('client ready', 2 * MATCH_TIMEOUT)
                hwm0, rss0 = _kib('VmHWM', server.pid), _kib('VmRSS', server.pid)
                go.touch()
                rc = client.wait(3 * DDS_CALL_TIMEOUT_S + 30.0)
                hwm1, rss1 = _kib('VmHWM', server.pid), _kib('VmRSS', server.pid)
                if rc != 0 or not output.exists():
                    raise RuntimeError(f'client exited with {rc}: {client.tail()}')
                server_tail = server.tail(4)
                data = json.loads(output.read_text(encoding='utf-8'))
        except RuntimeError as exc:
            progress.step(f'dds         FAILED: {exc}')
            section.intro += f'\n\n**Failed**: {exc}'
            return section
    table.add('message build (client)', _s(data['build_s']), 'not counted')
    table.add('`check_state_validity` warm-up (empty world)', _s(data['warm_s']),
              f'valid = {data["warm_valid"]}; not counted')
    table.add(f'`apply_planning_scene` ({DDS_N:,} objects)', f'**{_s(data["apply_s"])}**',
              f'success = {data["applied"]}')
    table.add('`check_state_validity`, first after the apply', f'**{_s(data["check1_s"])}**',
              f'valid = {data["valid1"]} ({data["contacts1"]} contacts)')
    table.add('apply + first check', f'**{_s(data["apply_s"] + data["check1_s"])}**', '')
    table.add('`check_state_validity`, second', _s(data['check2_s']),
              f'valid = {data["valid2"]}')
    mem.add('before the apply (after warm-up)', _mb(hwm0), _mb(rss0))
    mem.add('after the calls', _mb(hwm1), _mb(rss1))
    mem.add('**growth**', f'**{_mb(hwm1 - hwm0)}**', _mb(rss1 - rss0))
    progress.step(f'dds         apply_planning_scene {_s(data["apply_s"])} s '
                  f'(success {data["applied"]}), check_state_validity {_s(data["check1_s"])} s '
                  f'then {_s(data["check2_s"])} s; server VmHWM +{_mb(hwm1 - hwm0)} MB')
    section.targets.append(Target(
        'Many world boxes over DDS', f'{DDS_N:,} objects: apply_planning_scene + first '
        'check_state_validity round trips; server peak RSS growth (reported)',
        f'{_s(data["apply_s"])} + {_s(data["check1_s"])} = '
        f'{_s(data["apply_s"] + data["check1_s"])} s; +{_mb(hwm1 - hwm0)} MB', None,
        figures={'apply_s': data['apply_s'], 'check_s': data['check1_s']}))
    alive = [c.label for c in registry if c.proc.poll() is None]
    orphaned, _foreign = shm_leftovers(before)
    section.notes.append('Children stopped (SIGINT, then kill after '
                         f'{STOP_TIMEOUT:.0f} s); exit codes: '
                         + ', '.join(f'{c.label}: {c.proc.returncode}' for c in registry)
                         + ('' if not alive else f'; **still alive: {alive}**')
                         + ('; no FastDDS participant segment left.' if not orphaned
                            else f'; **FastDDS segments left: {orphaned}**.'))
    if server_tail and server_tail != '(no output)':
        section.notes.append(f'Server output (last lines): `{server_tail}`')
    return section


# ---------------------------------------------------------------------------- before_after


def world_child_main(config_path: Path) -> dict[str, Any]:
    """``--world-child``: time the robot-vs-100-boxes check with whichever code is imported."""
    import robot_state_core
    from robot_state_core.geometry.shapes import Box
    from robot_state_core.model.robot_model import RobotModel
    import robot_state_core.scene.planning_scene as ps

    cfg = json.loads(config_path.read_text(encoding='utf-8'))
    kwargs = {}
    if cfg.get('package_map'):
        kwargs['package_map'] = {k: Path(v) for k, v in cfg['package_map'].items()}
    model = RobotModel.from_urdf_file(cfg['urdf'], cfg['srdf'], **kwargs)
    scene = ps.PlanningScene(model, broadphase=cfg['broadphase'])
    for b, (edges, X) in enumerate(cfg['boxes']):
        scene.apply_world_object(ps.CollisionObjectOperation.ADD, f'box{b}',
                                 np.asarray(X, dtype=float).reshape(4, 4),
                                 [(Box(*edges), np.eye(4))])
    Q = np.asarray(cfg['Q'], dtype=float)
    request = ps.CollisionRequest(self_collision=False)
    state = scene.current_state
    set_q, check = state.set_variable_positions, scene.check_collision

    def run() -> list[bool]:
        out = []
        for q in Q:
            set_q(q)
            out.append(check(state, request).collision)
        return out

    verdicts = run()  # warm-up (and the verdicts)
    busy0, cpu0, wall0 = system_busy_seconds(), time.process_time(), time.monotonic()
    t = interleaved({'check': run}, int(cfg['repeats']), float(cfg['sample_time']))['check']
    wall = time.monotonic() - wall0
    foreign = (system_busy_seconds() - busy0 - (time.process_time() - cpu0)) / wall
    n = len(Q)
    return {'module': robot_state_core.__file__, 'scene_module': ps.__file__,
            'per_state_s': [s / n for s in t.samples], 'median_s': t.median / n,
            'passes_per_sample': t.number, 'verdicts': [bool(v) for v in verdicts],
            'foreign_cores': max(foreign, 0.0), 'timed_s': wall}


def _default_robot_world(settings: Settings, index: int) -> dict[str, Any]:
    """The default robot's scenario, drawn with bench_collision's box drawing."""
    from types import SimpleNamespace

    import bench_collision as bc
    from bench_kinematics import random_q
    import fcl

    from robot_state_core.geometry.fcl_backend import make_collision_geometry
    from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path

    scene = default_robot_scene()
    model = scene.model
    rng = np.random.default_rng(settings.seed + index)
    base = set(model.group('base').variable_names) if model.has_group('base') else set()
    moving = [i for i, name in enumerate(model.variable_names) if name not in base]
    Q = random_q(model, rng, _pick(settings, bc.N_STATES), moving)
    geo = scene.geometry
    X_WG = geo.world_poses(scene.current_state.get_link_poses())
    robot_objects = [fcl.CollisionObject(make_collision_geometry(shape),
                                         fcl.Transform(X[:3, :3], X[:3, 3]))
                     for shape, X in zip(geo.shapes, X_WG, strict=True)]
    key = 'default'
    bc.BOX_MARGIN.setdefault(key, DEFAULT_BOX_MARGIN)
    probe = SimpleNamespace(key=key, robot=SimpleNamespace(model=model), Q=Q)
    boxes = bc._random_boxes(probe, np.random.default_rng(settings.seed + 100 + index),
                             robot_objects)  # type: ignore[arg-type]
    return {'label': f'default robot (`{model.name}`, base fixed at the origin)',
            'urdf': str(default_robot_urdf_path()), 'srdf': str(default_robot_srdf_path()),
            'package_map': {}, 'boxes': [(e.tolist(), X.reshape(-1).tolist()) for e, X in boxes],
            'Q': Q, 'margin': DEFAULT_BOX_MARGIN}


def _panda_world(settings: Settings) -> dict[str, Any]:
    """bench_collision's Panda scenario: the same robot, states and boxes as its world part."""
    import bench_collision as bc
    import robot_corpus

    k = [key for key, _ in bc.ROBOTS].index('panda')
    cr = bc.load_collision_robot('panda', dict(bc.ROBOTS)['panda'], settings,
                                 np.random.default_rng(settings.seed + k))
    probe = bc.FclLoop(cr, cr.gm, cr.gd)
    probe.pose_all(cr.robot.pmap.q(cr.robot.model.default_positions))
    boxes = bc._random_boxes(cr, np.random.default_rng(settings.seed + 100 + k), probe.objects)
    r = robot_corpus.test_robot('panda')
    return {'label': cr.label, 'urdf': str(r.urdf_path), 'srdf': str(r.srdf_path),
            'package_map': {k: str(v) for k, v in r.package_map.items()},
            'boxes': [(e.tolist(), X.reshape(-1).tolist()) for e, X in boxes], 'Q': cr.Q,
            'margin': bc.BOX_MARGIN['panda']}


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(['git', *args], cwd=REPO_ROOT, capture_output=True, text=True,
                          check=False, timeout=60)


@contextlib.contextmanager
def before_worktree() -> Any:
    """``git worktree add --detach /tmp/rsc_before 9b9dee2``; removed (``--force``) on exit."""
    registered = _git('worktree', 'list', '--porcelain').stdout
    if f'worktree {WORKTREE}' in registered:
        _git('worktree', 'remove', '--force', str(WORKTREE))
    elif WORKTREE.exists():
        raise RuntimeError(f'{WORKTREE} exists and is not a worktree of this repository')
    out = _git('worktree', 'add', '--detach', str(WORKTREE), BEFORE_COMMIT)
    if out.returncode != 0:
        raise RuntimeError(f'git worktree add failed: {out.stderr.strip()}')
    try:
        yield subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=WORKTREE, capture_output=True,
                             text=True, check=False).stdout.strip()
    finally:
        _git('worktree', 'remove', '--force', str(WORKTREE))


def bench_before_after(settings: Settings, progress: Progress) -> Section:
    children = _pick(settings, BA_CHILDREN)
    n_states = _pick(settings, BA_STATES)
    repeats = _pick(settings, BA_REPEATS)
    quiet_wait = QUIET_WAIT_S[1] if settings.quick else QUIET_WAIT_S[0]
    budget = [QUIET_BUDGET_S[1] if settings.quick else QUIET_BUDGET_S[0]]
    table = Table(['robot', 'code', 'children', 'µs/state: median of the children [min–max]',
                   'new / old per round: median [min–max]', 'ratio of the medians',
                   'in collision %', 'verdict'],
                  title='check_collision(state, CollisionRequest(self_collision=False)) with '
                        '100 world boxes, before (9b9dee2) and after (this tree)')
    section = Section(
        'Row 2: check_collision with 100 world objects, before/after',
        "The scenario of `bench_collision.py`'s 'robot vs 100 world boxes' part, built by its "
        'own code: the Panda with its sampled states and boxes exactly as there (same seeds: '
        '`load_collision_robot`, `_random_boxes`), and the default robot with the same box '
        f'drawing (margin {DEFAULT_BOX_MARGIN:g} m; its planar base is kept at the origin, '
        'the other variables uniform within their limits). Check: '
        "`PlanningScene(model, broadphase='aabb')` (the default), the boxes added by "
        '`apply_world_object(ADD, ...)`, then per state `set_variable_positions(q)` + '
        '`check_collision(state, CollisionRequest(self_collision=False))`, over the first '
        f"{n_states} states. **old** = commit {BEFORE_COMMIT} (the commit before issue 23's "
        f'work) checked out with `git worktree add {WORKTREE} {BEFORE_COMMIT}` and imported '
        f'through `PYTHONPATH={WORKTREE}` with the same venv python; **new** = this tree '
        '(`PYTHONPATH` = the repository). Each child (`bench_scene.py --world-child`) loads '
        'the robot, builds the scene, makes one untimed pass (warm-up, verdicts), then times '
        f'{repeats} samples of whole passes (≥ {settings.sample_time * 1e3:.0f} ms '
        'each, GC off) and reports their median per state. Children alternate old/new '
        f'(rounds of one each, the order swapped every round), {children} per version and '
        'robot; every child has the same environment apart from `PYTHONPATH` ('
        + ', '.join(f'`{k}={v}`' for k, v in THREAD_ENV.items()) + ', the same CPU affinity). '
        f'**Verdict rule (fixed before the run): met when the median over the rounds of '
        f'new/old time per state is ≤ {RATIO_LIMIT:.2f} ({RATIO_LIMIT - 1:.0%} noise '
        'allowance), otherwise MISSED.** An untimed warm-up child per version runs first '
        '(compiled-kernel caches). As in the ROS benchmark, each round first waits (at most '
        f'{quiet_wait:g} s) until other processes use < {FOREIGN_LIMIT:g} cores, each child '
        'reports the CPU other processes used while it timed (`/proc/stat` minus its own), and '
        f'a round with a child above {FOREIGN_LIMIT:g} cores is run once more, the less '
        f'disturbed one kept (waits stop after {budget[0]:g} s in all).',
        [table])
    t0 = time.perf_counter()
    scenarios = [_panda_world(settings), _default_robot_world(settings, 2)]
    progress.step(f'before/after scenarios built in {time.perf_counter() - t0:.1f} s: '
                  + ', '.join(f'{len(s["boxes"])} boxes, {len(s["Q"])} states' for s in scenarios))
    with tempfile.TemporaryDirectory(prefix='bench_scene_ba_') as tmp_name:
        tmp = Path(tmp_name)
        configs = []
        for k, s in enumerate(scenarios):
            path = tmp / f'world_{k}.json'
            path.write_text(json.dumps({
                'urdf': s['urdf'], 'srdf': s['srdf'], 'package_map': s['package_map'],
                'broadphase': 'aabb', 'boxes': s['boxes'],
                'Q': np.asarray(s['Q'])[:n_states].tolist(), 'repeats': repeats,
                'sample_time': settings.sample_time}), encoding='utf-8')
            configs.append(path)
        try:
            with before_worktree() as head:
                progress.step(f'before/after worktree {WORKTREE} at {head[:10]}')
                envs = {'old': _child_env(WORKTREE), 'new': _child_env(REPO_ROOT)}
                roots = {'old': str(WORKTREE), 'new': str(REPO_ROOT)}
                warm_notes = []
                for version in ('old', 'new'):  # untimed: compiled-kernel caches
                    _r, problem, wall = _run_json_child(['--world-child', '--config',
                                                         str(configs[1])], envs[version],
                                                        BA_TIMEOUT_S)
                    if problem:
                        raise RuntimeError(f'{version} warm-up child: {problem}')
                    warm_notes.append(f'{version} {wall:.1f} s')
                progress.step('before/after warm-up children: ' + ', '.join(warm_notes))
                for k, s in enumerate(scenarios):
                    _before_after_robot(s, configs[k], children, envs, roots, table, section,
                                        progress, quiet_wait, budget)
                section.notes.append(f'Worktree HEAD: `{head}`; untimed warm-up children '
                                     '(wall, incl. start-up): ' + ', '.join(warm_notes) + '.')
        except RuntimeError as exc:
            progress.step(f'before/after FAILED: {exc}')
            section.intro += f'\n\n**Failed**: {exc}'
    left = WORKTREE.exists() or f'worktree {WORKTREE}' in _git('worktree', 'list',
                                                                '--porcelain').stdout
    section.notes.append(f'`git worktree remove --force {WORKTREE}` afterwards: '
                         + ('**the worktree is still there**' if left else 'removed') + '.')
    return section


def _before_after_robot(s: dict[str, Any], config: Path, children: int,
                        envs: dict[str, dict[str, str]], roots: dict[str, str], table: Table,
                        section: Section, progress: Progress, quiet_wait: float,
                        budget: list[float]) -> None:
    """Alternate old/new children for one robot; add its rows, target and notes.

    ``budget[0]``: seconds left for quiet waits (shared by the robots, decremented).
    """
    results: dict[str, list[dict[str, Any]]] = {'old': [], 'new': []}
    reruns, waited = 0, 0.0
    for r in range(children):
        order = ('old', 'new') if r % 2 == 0 else ('new', 'old')
        best: dict[str, dict[str, Any]] | None = None
        for attempt in range(2):
            if budget[0] > 0:
                w, _busy = wait_for_quiet(FOREIGN_LIMIT, min(quiet_wait, budget[0]))
                budget[0] -= w
                waited += w
            outs: dict[str, dict[str, Any]] = {}
            for version in order:
                out, problem, _wall = _run_json_child(['--world-child', '--config',
                                                       str(config)], envs[version],
                                                      BA_TIMEOUT_S)
                if out is None:
                    raise RuntimeError(f'{s["label"]}: {version} child {r + 1}: {problem}')
                if not str(out['module']).startswith(roots[version] + os.sep):
                    raise RuntimeError(f'{version} child imported {out["module"]}, expected '
                                       f'code under {roots[version]}')
                outs[version] = out
            disturbance = max(o['foreign_cores'] for o in outs.values())
            if best is None or disturbance < max(o['foreign_cores'] for o in best.values()):
                best = outs
            if disturbance <= FOREIGN_LIMIT or attempt == 1 or budget[0] <= 0:
                break
            reruns += 1
        assert best is not None
        for version in order:
            results[version].append(best[version])
    old = [o['median_s'] for o in results['old']]
    new = [o['median_s'] for o in results['new']]
    ratios = [b / a for a, b in zip(old, new, strict=True)]
    ratio = statistics.median(ratios)
    met = ratio <= RATIO_LIMIT
    verdicts = {v: results[v][0]['verdicts'] for v in results}
    agree = float(np.mean(np.asarray(verdicts['old']) == np.asarray(verdicts['new'])))
    stable = all(o['verdicts'] == results[v][0]['verdicts'] for v in results
                 for o in results[v])
    for version, times in (('old', old), ('new', new)):
        table.add(s['label'], f'{version} (`{results[version][0]["scene_module"]}`)'
                  .replace(str(REPO_ROOT) + os.sep, ''), len(times),
                  f'{fmt_us(statistics.median(times))} [{fmt_us(min(times))}–'
                  f'{fmt_us(max(times))}]',
                  '' if version == 'old' else
                  f'**{ratio:.3f}** [{min(ratios):.3f}–{max(ratios):.3f}]',
                  '' if version == 'old' else
                  f'{statistics.median(new) / statistics.median(old):.3f}',
                  fmt_pct(float(np.mean(verdicts[version]))),
                  '' if version == 'old' else ('met' if met else '**MISSED**'))
    section.targets.append(Target(
        'World check before/after', f'{s["label"]}: new/old time per state ≤ '
        f'{RATIO_LIMIT:.2f} (median over {children} rounds)',
        f'{fmt_us(statistics.median(new))} vs {fmt_us(statistics.median(old))} µs/state; '
        f'median ratio {ratio:.3f} [{min(ratios):.3f}–{max(ratios):.3f}]', met,
        '' if met else f'{fmt_ratio(ratio)} the old time'))
    foreign = {v: [o['foreign_cores'] for o in results[v]] for v in results}
    disturbed = sum(1 for v in results for x in foreign[v] if x > FOREIGN_LIMIT)
    section.notes.append(
        f'{s["label"]}: CPU used by other processes while each child timed (cores), old: '
        + ', '.join(f'{x:.2f}' for x in foreign['old']) + '; new: '
        + ', '.join(f'{x:.2f}' for x in foreign['new'])
        + f'; {reruns} round(s) run again (a child saw > {FOREIGN_LIMIT:g} cores), '
        f'{waited:.0f} s spent waiting for a quiet machine'
        + (f'; **{disturbed} kept child(ren) still disturbed**' if disturbed else '') + '.')
    section.notes.append(f'{s["label"]}: verdicts old vs new agree on {fmt_pct(agree)}% of '
                         f'{len(verdicts["old"])} states'
                         + ('' if stable else ' (**verdicts differ between children of one '
                            'version**)') + '; per-round ratios: '
                         + ', '.join(f'{x:.3f}' for x in ratios) + '.')
    progress.step(f'before/after {s["label"][:28]:<28} old {fmt_us(statistics.median(old))} '
                  f'µs, new {fmt_us(statistics.median(new))} µs per state; new/old median '
                  f'{ratio:.3f} [{min(ratios):.3f}–{max(ratios):.3f}] → '
                  f'{"met" if met else "MISSED"}; verdicts agree {fmt_pct(agree)}%; '
                  f'{reruns} re-run(s), {disturbed} disturbed child(ren) kept')


# ---------------------------------------------------------------------------- entry


def code_fingerprint() -> tuple[str, str]:
    """``(HEAD commit, sha256 of every robot_state_core/**/*.py)`` of this tree, short forms.

    Children import the tree when they start: a fingerprint that differs between the start and
    the end of the run means that some children measured other code (edits meanwhile).
    """
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((REPO_ROOT / 'robot_state_core').rglob('*.py')):
        digest.update(str(path.relative_to(REPO_ROOT)).encode())
        digest.update(path.read_bytes())
    head = _git('rev-parse', '--short', 'HEAD').stdout.strip()
    return head, digest.hexdigest()[:12]


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Run the selected parts (``many_objects``, ``apply_dds``, ``before_after``)."""
    sections: list[Section] = []
    steps: list[tuple[str, Callable[[Settings, Progress], Section]]] = [
        ('many_objects', bench_many_objects), ('apply_dds', bench_apply_dds),
        ('before_after', bench_before_after)]
    start = code_fingerprint()
    for part, fn in steps:
        if part in parts:
            sections.append(fn(settings, progress))
    end = code_fingerprint()
    same = start == end
    progress.step(f'scene       code under test: HEAD {start[0]}, robot_state_core sources '
                  f'{start[1]}' + ('' if same else f' → HEAD {end[0]}, sources {end[1]}: '
                                   'CHANGED DURING THE RUN'))
    sections.insert(0, Section(
        'Code under test',
        f'HEAD `{start[0]}`, sha256 of `robot_state_core/**/*.py` `{start[1]}` at the start; '
        + ('the same at the end (no edit of the package during the run).' if same else
           f'**at the end HEAD `{end[0]}`, sources `{end[1]}`: the package changed during the '
           'run, so children started at different times may have measured different code.**')))
    return sections


def role_main(argv: Sequence[str]) -> int:
    """Entry point of the child roles (``--add-child``, ``--world-child``, ``--dds-client``)."""
    parser = argparse.ArgumentParser(prog='bench_scene.py', description='child roles of the '
                                     'planning-scene benchmark (started by the benchmark)')
    role = parser.add_mutually_exclusive_group(required=True)
    for flag in ROLES:
        role.add_argument(flag, action='store_true')
    parser.add_argument('--n', type=int, help='add-child: boxes')
    parser.add_argument('--form', choices=FORMS, help='add-child: message form')
    parser.add_argument('--seed', type=int, help='add-child: seed of the positions')
    parser.add_argument('--profile', action='store_true',
                        help='add-child: cProfile of apply + first query on stderr (diagnostic)')
    parser.add_argument('--config', type=Path, help='world-child / dds-client: JSON config')
    parser.add_argument('--output', type=Path, help='dds-client: JSON results')
    ns = parser.parse_args(argv)
    if ns.add_child:
        if ns.n is None or ns.form is None or ns.seed is None:
            parser.error('--add-child needs --n, --form and --seed')
        print(json.dumps(add_child_main(ns.n, ns.form, ns.seed, ns.profile)), flush=True)
        return 0
    if ns.config is None:
        parser.error('--world-child and --dds-client need --config')
    if ns.world_child:
        print(json.dumps(world_child_main(ns.config)), flush=True)
        return 0
    if ns.output is None:
        parser.error('--dds-client needs --output')
    return dds_client_main(ns.config, ns.output)


if __name__ == '__main__':
    if any(a in ROLES for a in sys.argv[1:]):
        raise SystemExit(role_main(sys.argv[1:]))
    import run as _run

    raise SystemExit(_run.main(['--module', NAME, *sys.argv[1:]]))
