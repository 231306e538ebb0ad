"""``robot-state-core`` command line.

Sub-commands:
    run      the ROS nodes on a URDF (default: the embedded robot), with a live status line.
    check    load a URDF (and SRDF) and report what it contains.

Wherever a URDF is accepted, a xacro file (``robot.urdf.xacro``) is too: it is expanded as the
``xacro`` command does, with ``--xacro-arg name:=value`` (repeatable) and ``$(find pkg)``
resolved through ``--package-root`` and the ament index.
    fk       link poses for a configuration (JSON).
    ik       solve IK for a group and a target pose (JSON).
    collide  collision check of a configuration, with contacts (JSON).
    gen-acm  sample configurations and write SRDF <disable_collisions> (MoveIt Setup Assistant).
    view     serve a browser page showing the robot (sliders, IK gizmos, live collisions;
             ``--reach``: a reach study's targets in heat-map colours, click one to see it).
    snapshot write a PNG of a configuration, drawn by that page in a headless browser.
    reach    run a reach study (REACH) from a YAML file, in process, in local worker processes
             (``--workers N``) or on a Ray cluster (``--ray-address``); resumable.
    reach-compare
             compare two reach studies of the same targets, target by target (JSON).
    warm-kernels
             compile the kernels into the user cache now (nodes otherwise compile them in the
             background on their first start, serving with interpreted kernels meanwhile).

Configurations are given as ``--positions '{"joint": value, ...}'`` (JSON, MoveIt variable
names) and/or ``--state NAME`` (an SRDF named state); unspecified variables take the defaults.
ROS is imported only by ``run``, ``view --ros`` and ``reach --ros``; every other command works
without a ROS installation.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
import json
import logging
import math
from pathlib import Path
import signal
import subprocess
import sys
import time
from typing import Any, TYPE_CHECKING

import numpy as np

from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError, UnknownNameError
from robot_state_core.ik.solver import solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.io.load_report import LoadMessage, summarize
from robot_state_core.io.xacro import parse_xacro_args
from robot_state_core.jit.background import kernel_preparation
from robot_state_core.jit.cache import cache_directory
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    pose_from_xyz_rpy,
    quat_xyzw_from_rotation,
    rotation_from_quat_xyzw,
)
from robot_state_core.state.robot_state import RobotState
from robot_state_core.viewer.camera import DEFAULT_AZIMUTH_DEG, DEFAULT_ELEVATION_DEG

if TYPE_CHECKING:  # annotations only; imported where used (viser costs ~0.4 s at start-up)
    from robot_state_core.reach.results import ReachDatabase
    from robot_state_core.viewer.app import RobotViewer


def _cmd_run(ns: argparse.Namespace) -> int:
    from robot_state_core.ros.main import run  # ROS only here

    if ns.urdf:
        urdf, srdf = Path(ns.urdf), Path(ns.srdf) if ns.srdf else None
    else:
        urdf = default_robot_urdf_path()
        srdf = Path(ns.srdf) if ns.srdf else default_robot_srdf_path()
    viewer = _start_viewer_process(urdf, srdf, ns) if ns.view is not None else None
    try:
        return run(urdf, srdf_path=srdf, package_roots=ns.package_root, duration=ns.duration,
                   frame_prefix=ns.frame_prefix, simulate=ns.simulate, sim_rate=ns.sim_rate,
                   publish_frequency=ns.publish_frequency, ignore_timestamp=ns.ignore_timestamp,
                   with_services=not ns.no_services,
                   xacro_args=parse_xacro_args(ns.xacro_arg))
    except KeyboardInterrupt:  # a Ctrl-C that landed after run() had cleaned up: a normal stop
        return 0
    finally:
        if viewer is not None:
            viewer.send_signal(signal.SIGINT)  # a clean stop (DDS participant, port)
            try:
                viewer.wait(timeout=10.0)
            except subprocess.TimeoutExpired:
                viewer.kill()
                viewer.wait()


def _start_viewer_process(urdf: Path, srdf: Path | None,
                          ns: argparse.Namespace) -> subprocess.Popen[bytes]:
    """``robot-state-core view --ros`` as a child process (its own GIL: /tf latency stays)."""
    cmd = [sys.executable, '-m', 'robot_state_core', 'view', '--ros', '--urdf', str(urdf),
           '--port', str(ns.view), '--frame-prefix', ns.frame_prefix]
    if srdf is not None:
        cmd += ['--srdf', str(srdf)]
    for root in ns.package_root:
        cmd += ['--package-root', root]
    for item in ns.xacro_arg:
        cmd += ['--xacro-arg', item]
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL)


def _cmd_check(ns: argparse.Namespace) -> int:
    model = RobotModel.from_urdf_file(ns.urdf, ns.srdf, package_roots=ns.package_root,
                                      xacro_args=parse_xacro_args(ns.xacro_arg))
    types = Counter(t.value for t in model.joint_types)
    print(f"robot '{model.name}': {model.link_count} links, {model.joint_count} joints "
          f"({', '.join(f'{n} {t}' for t, n in sorted(types.items()))}), nq={model.nq}, "
          f'nv={model.nv}, model frame {model.model_frame!r}')
    if model.mimic_joint_names:
        print(f"mimic joints: {', '.join(model.mimic_joint_names)}")
    for name in model.group_names:
        group = model.group(name)
        chain = f' chain {group.base_link} -> {group.tip_link}' if group.is_chain else ''
        print(f'group {name!r}: {len(group.active_joint_names)} active joints{chain}; '
              f"states: {', '.join(group.named_states) or '-'}")
    print_load_report(model.load_messages, verbose=ns.verbose)
    return 0


def print_load_report(messages: Sequence[LoadMessage], verbose: bool = False,
                      out: Any = None) -> None:
    """One ``warning:`` / ``note:`` line per kind of load message (issue 17).

    Args:
        messages: The :class:`~robot_state_core.io.load_report.LoadMessage` s of a load.
        verbose: Also print every message in full under its kind (and the DEBUG kinds).
        out: Stream (default stdout).
    """
    by_kind: dict[str, list[LoadMessage]] = {}
    for m in messages:
        by_kind.setdefault(m.kind, []).append(m)
    labels = {logging.WARNING: 'warning', logging.INFO: 'note', logging.DEBUG: 'debug'}
    for (level, line), group in zip(summarize(messages), by_kind.values(), strict=True):
        if level < logging.INFO and not verbose:
            continue
        print(f'{labels.get(level, "warning")}: {line}', file=out)
        if verbose:
            for m in group:
                print(f'  - {m.text}', file=out)


def _model_and_state(ns: argparse.Namespace) -> tuple[RobotModel, RobotState]:
    urdf = Path(ns.urdf) if ns.urdf else default_robot_urdf_path()
    srdf = Path(ns.srdf) if ns.srdf else (None if ns.urdf else default_robot_srdf_path())
    model = RobotModel.from_urdf_file(urdf, srdf, package_roots=ns.package_root,
                                      xacro_args=parse_xacro_args(ns.xacro_arg))
    state = RobotState(model)
    if ns.state:
        done = any(state.set_to_default_values(group, ns.state) for group in model.group_names
                   if ns.state in model.group(group).named_states)
        if not done:
            raise UnknownNameError(ns.state, 'named state',
                                   [n for g in model.group_names
                                    for n in model.group(g).named_states])
    if ns.positions:
        values = json.loads(ns.positions)
        state.set_variable_positions({str(k): float(v) for k, v in values.items()})
    return model, state


def _pose_json(X: Any) -> dict[str, list[float]]:
    return {'position': [float(v) for v in X[:3, 3]],
            'orientation_xyzw': [float(v) for v in quat_xyzw_from_rotation(X[:3, :3])]}


def _cmd_fk(ns: argparse.Namespace) -> int:
    model, state = _model_and_state(ns)
    links = ns.links or list(model.link_names)
    out = {'frame': model.model_frame,
           'poses': {link: _pose_json(state.get_global_link_transform(link)) for link in links}}
    print(json.dumps(out, indent=2))
    return 0


def _cmd_ik(ns: argparse.Namespace) -> int:
    model, state = _model_and_state(ns)
    values = [float(v) for v in ns.target]
    X = np.eye(4)
    X[:3, 3] = values[:3]
    if len(values) == 7:
        X[:3, :3] = rotation_from_quat_xyzw(values[3:])
    elif len(values) != 3:
        print('robot-state-core ik: --target takes x y z [qx qy qz qw]', file=sys.stderr)
        return 2
    group = model.group(ns.group)
    result = solve_ik(model, IKRequest(
        group=group.name, targets=(X,), tip_links=(ns.tip,) if ns.tip else (),
        seed=np.array(state.positions), timeout=ns.timeout or None,
        options=IKOptions(position_only=len(values) == 3)))
    out = {'status': result.status.value, 'success': result.success,
           'position_error_m': result.position_error, 'rotation_error_rad': result.rotation_error,
           'iterations': result.iterations, 'elapsed_ms': result.elapsed * 1e3,
           'positions': {model.variable_names[i]: float(result.q[i])
                         for i in group.active_variable_indices}}
    print(json.dumps(out, indent=2))
    return 0 if result.success else 1


def _cmd_collide(ns: argparse.Namespace) -> int:
    # collide only (start-up time: `run` publishes /tf_static before the scene is imported)
    from robot_state_core.scene.planning_scene import CollisionRequest, PlanningScene

    model, state = _model_and_state(ns)
    scene = PlanningScene(model, padding=ns.padding)
    if ns.scene:
        scene.load_geometry_text(_read_text(ns.scene, '--scene'))
    result = scene.check_collision(state, CollisionRequest(
        group_name=ns.group, contacts=True, max_contacts=100, max_contacts_per_pair=1))
    out = {'collision': result.collision,
           'distance_m': scene.distance_to_collision(state, ns.group, self_collision=True),
           'contacts': [{'body_1': c.body_name_1, 'body_2': c.body_name_2,
                         'position': [float(v) for v in c.position_W],
                         'normal': [float(v) for v in c.normal_W], 'depth': float(c.depth)}
                        for c in result.contacts]}
    print(json.dumps(out, indent=2))
    return 1 if result.collision else 0


def _cmd_gen_acm(ns: argparse.Namespace) -> int:
    # gen-acm only (start-up time: `run` publishes /tf_static before the scene is imported)
    from robot_state_core.scene.acm_generation import generate_acm, srdf_disable_collisions

    urdf = Path(ns.urdf) if ns.urdf else default_robot_urdf_path()
    model = RobotModel.from_urdf_file(urdf, ns.srdf, package_roots=ns.package_root,
                                      xacro_args=parse_xacro_args(ns.xacro_arg))
    report = generate_acm(model, num_samples=ns.samples, seed=ns.seed,
                          always_fraction=ns.min_collision_fraction, progress=sys.stderr)
    text = srdf_disable_collisions(report)
    if ns.output:
        Path(ns.output).write_text(text, encoding='utf-8')
        print(f'wrote {len(report.pairs)} disabled pairs to {ns.output}', file=sys.stderr)
    else:
        print(text)
    return 0


def _load_reach(ns: argparse.Namespace) -> ReachDatabase | None:
    """The study of ``--reach`` (``None`` without); its URDF/SRDF become the defaults."""
    if not ns.reach:
        return None
    from robot_state_core.reach.results import ReachDatabase  # --reach only (start-up time)

    db = ReachDatabase.load(ns.reach)
    if not ns.urdf:
        urdf = db.study.get('urdf')
        if not urdf:
            raise InvalidArgumentError(f'--reach {ns.reach}: the study names no URDF; give '
                                       '--urdf (and --srdf)')
        ns.urdf = str(urdf)
        ns.srdf = ns.srdf or db.study.get('srdf')
        ns.package_root = ns.package_root or [str(r) for r in db.study.get('package_roots', [])]
    return db


def _show_reach(viewer: RobotViewer, db: ReachDatabase, ns: argparse.Namespace) -> None:
    """Draw the study (and its part when its file is there); the robot at the best target.

    Without ``--state``/``--positions`` the robot takes the solution of the best-scoring
    reached target (none reached: the viewer's first named state).
    """
    part = db.study.get('part')
    if part and not Path(str(part)).is_file():
        print(f"warning: --reach {ns.reach}: the study's part {part} is not there; drawn "
              'without it', file=sys.stderr)
        part = None
    viewer.show_reach(db, part_mesh=str(part) if part else None)
    final = db.final
    if not (ns.state or ns.positions) and final.reached.any():
        viewer.show_reach_target(int(np.argmax(np.where(final.reached, final.score,
                                                        -np.inf))))


def _viewer_for(ns: argparse.Namespace, **kwargs: Any) -> RobotViewer:
    """A viewer showing the configuration and boxes of ``ns`` (state checked before serving)."""
    kernel_preparation().start()  # before any kernel runs: serve now, compile in a child
    reach = _load_reach(ns)
    model, state = _model_and_state(ns)
    boxes = [[float(v) for v in box] for box in ns.box or []]
    for box in boxes:
        if len(box) != 6 or any(v <= 0 for v in box[3:]):
            raise InvalidArgumentError(f'--box takes x y z sx sy sz (sizes > 0), got {box}')
    from robot_state_core.viewer.app import RobotViewer  # view/snapshot only (start-up time)

    viewer = RobotViewer(model, **kwargs)
    try:
        if ns.state or ns.positions:  # else the viewer opens at the SRDF's first named state
            viewer.set_positions(dict(zip(model.variable_names, state.positions.tolist(),
                                          strict=True)))
        for k, box in enumerate(boxes):
            viewer.add_box(f'box_{k + 1}', box[3:], pose_from_xyz_rpy(box[:3], (0, 0, 0)))
        if ns.scene:
            viewer.load_scene_text(_read_text(ns.scene, '--scene'))
        if reach is not None:
            _show_reach(viewer, reach, ns)
        viewer.frame_camera()  # around the world objects (and reach targets) too
    except BaseException:
        viewer.stop()
        raise
    return viewer


def _print_viewer_summary(viewer: RobotViewer) -> None:
    status = viewer.collision_status
    print(f"robot '{viewer.model.name}': {viewer.model.link_count} links; collision: "
          f"{'yes (' + ', '.join(status.colliding_links) + ')' if status.collision else 'no'}; "
          f'minimum distance {status.min_distance:.4f} m', file=sys.stderr)
    shown = viewer.warnings if len(viewer.warnings) <= 3 else viewer.warnings[:2]
    for w in shown:  # issue 17: a few lines, not one per mesh
        print(f'warning: {w}', file=sys.stderr)
    if len(shown) < len(viewer.warnings):
        print(f'warning: ... and {len(viewer.warnings) - len(shown)} more mesh warnings (each '
              "in the log at WARNING, logger 'robot_state_core.viewer.app')", file=sys.stderr)


def _cmd_view(ns: argparse.Namespace) -> int:
    viewer = _viewer_for(ns, host=ns.host, port=ns.port, follow=ns.ros)
    try:
        print(f'viewer: {viewer.url}', flush=True)
        _print_viewer_summary(viewer)
        if ns.ros:
            from robot_state_core.ros.viewer_node import follow_ros  # ROS only here

            return follow_ros(viewer, duration=ns.duration, frame_prefix=ns.frame_prefix)
        deadline = None if ns.duration is None else time.monotonic() + ns.duration
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.1 if deadline is None else max(0.0, min(0.1, deadline
                                                                 - time.monotonic())))
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        viewer.stop()
        kernel_preparation().stop()


def _cmd_warm_kernels(ns: argparse.Namespace) -> int:
    from robot_state_core.apps.kernel_workload import run as run_workload  # numba: start-up time

    print(f'compiling the kernels into {cache_directory()} (about 30 s the first time; '
          'nodes started meanwhile serve with interpreted kernels)', flush=True)
    seconds, count = run_workload()
    print(f'{count} kernel signatures compiled or loaded in {seconds:.1f} s; nodes now start '
          'with compiled kernels')
    return 0


def _cmd_snapshot(ns: argparse.Namespace) -> int:
    try:
        width, height = (int(v) for v in ns.size.lower().split('x'))
    except ValueError:
        print(f'robot-state-core snapshot: --size takes WxH (e.g. 800x600), got {ns.size!r}',
              file=sys.stderr)
        return 2
    from robot_state_core.viewer.browser import HeadlessBrowser  # snapshot only (start-up time)
    from robot_state_core.viewer.snapshot import page_screenshot

    viewer = _viewer_for(ns, port=0, controls=False,
                         collision_colors=not ns.no_collision_colors)
    try:
        camera = ns.camera or []
        if len(camera) == 6:
            viewer.look_from(camera[:3], camera[3:])
        elif len(camera) in (0, 2, 3):
            azimuth, elevation = camera[:2] if camera else (DEFAULT_AZIMUTH_DEG,
                                                           DEFAULT_ELEVATION_DEG)
            viewer.frame_camera(azimuth_deg=azimuth, elevation_deg=elevation,
                                distance=camera[2] if len(camera) == 3 else None,
                                aspect=width / height, fit=ns.fit)
        else:
            raise InvalidArgumentError(f'--camera takes AZ EL [DIST] or X Y Z LX LY LZ, got '
                                       f'{len(camera)} numbers')
        if ns.no_grid:
            viewer.set_show_grid(False)
            viewer.set_show_world_axes(False)
        with HeadlessBrowser(width, height) as browser:
            shot = page_screenshot(viewer, browser, timeout=ns.timeout)
        Path(ns.output).write_bytes(shot.png)
        _print_viewer_summary(viewer)
        print(f'wrote {ns.output} ({shot.width}x{shot.height}, {len(shot.png) / 1024:.0f} kB, '
              f'{100 * shot.foreground_fraction:.1f} % foreground) in {shot.shown_s:.1f} s',
              file=sys.stderr)
        return 0
    finally:
        viewer.stop()


class _ProgressLine:
    """A progress bar with rate and ETA on stderr (one line redrawn; every 2 s when logged)."""

    def __init__(self) -> None:
        self._phase = ''
        self._start = time.monotonic()
        self._last = 0.0
        self._tty = sys.stderr.isatty()

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if phase != self._phase:
            if self._phase and self._tty:
                print(file=sys.stderr)
            self._phase, self._start, self._last = phase, now, 0.0
        finished = done >= total
        if not finished and now - self._last < (0.2 if self._tty else 2.0):
            return
        self._last = now
        elapsed = max(now - self._start, 1e-9)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else math.inf
        width = 30
        bar = '#' * int(width * done / max(total, 1))
        text = (f'{phase:<11} [{bar:<{width}}] {done}/{total} {100 * done / max(total, 1):5.1f} %'
                f'  {rate:7.0f}/s  ETA {eta:5.0f} s' if not finished else
                f'{phase:<11} [{bar:<{width}}] {done}/{total} done in {elapsed:.1f} s '
                f'({rate:.0f}/s)')
        print(('\r' if self._tty else '') + text, end='' if self._tty and not finished else '\n',
              file=sys.stderr, flush=True)


def _cmd_reach(ns: argparse.Namespace) -> int:
    # reach only (start-up time): the study, its evaluators and executors
    from robot_state_core.reach.config import load_study
    from robot_state_core.reach.executors import InProcess, LocalProcesses, RayCluster
    from robot_state_core.reach.results import ReachDatabase
    from robot_state_core.reach.study import Executor, run_study

    study = load_study(ns.study)
    output = Path(ns.output) if ns.output else study.path.with_suffix('.reach.npz')
    output.parent.mkdir(parents=True, exist_ok=True)
    database = None
    if output.exists() and not ns.restart:
        database = ReachDatabase.load(output)
        print(f'resuming {output} ({len(database.results)} passes saved'
              f'{", optimized" if database.optimized else ""}; --restart starts anew)',
              file=sys.stderr)
    executor: Executor
    if ns.ray_address:
        executor = RayCluster(None if ns.ray_address == 'local' else ns.ray_address)
        where = f'Ray cluster {ns.ray_address}'
    elif ns.workers > 1:
        executor, where = LocalProcesses(ns.workers), f'{ns.workers} local worker processes'
    else:
        executor, where = InProcess(), 'this process'
    print(f'reach study {study.path.name}: {len(study.targets)} targets '
          f'({study.targets.source}), group {study.problem.group}, in {where}',
          file=sys.stderr)
    try:
        if ns.ros:
            from robot_state_core.ros.reach_node import run_reach_node  # ROS only here

            return run_reach_node(study, executor, output=output, duration=ns.duration)
        db = run_study(study.problem, study.targets.X_WT, executor, database=database,
                       progress=_ProgressLine(), save=lambda d: d.save(output))
    finally:
        if isinstance(executor, LocalProcesses):
            executor.close()
    for k, result in enumerate(db.results):
        s = result.summary()
        print(f"{'initial' if k == 0 else f'optimize {k}':<11} reach {s.reach_percentage:5.1f} %"
              f'  ({s.reached}/{s.targets})  total score {s.total_pose_score:.4g}'
              f'  normalized {s.norm_total_pose_score:.4g}')
    print(f'wrote {output}', file=sys.stderr)
    return 0


def _cmd_reach_compare(ns: argparse.Namespace) -> int:
    from robot_state_core.reach.results import compare, ReachDatabase

    a, b = ReachDatabase.load(ns.a), ReachDatabase.load(ns.b)
    c = compare(a, b)
    print(json.dumps({
        'a': {'file': ns.a, 'reach_percentage': c.summary_a.reach_percentage,
              'norm_total_pose_score': c.summary_a.norm_total_pose_score},
        'b': {'file': ns.b, 'reach_percentage': c.summary_b.reach_percentage,
              'norm_total_pose_score': c.summary_b.norm_total_pose_score},
        'reached_in_both': int(c.both.sum()), 'reached_only_in_a': int(c.only_a.sum()),
        'reached_only_in_b': int(c.only_b.sum()),
        'score_delta_mean': float(c.score_delta[c.both].mean()) if c.both.any() else 0.0},
        indent=2))
    return 0


#: Help text of --urdf: a URDF or a xacro file.
_URDF_HELP = 'URDF or xacro (*.xacro) file (default: the embedded default robot)'
_SCENE_HELP = "a MoveIt .scene file (world objects; the Setup Assistant's and RViz's format)"
_REACH_HELP = ("a reach study's results (.reach.npz of `reach`): its targets in heat-map "
               "colours, its part, and the robot at the best-scoring target's solution "
               "(unless --state/--positions); --urdf/--srdf/--package-root default to the "
               "study's")


def _read_text(path: str, option: str) -> str:
    """The text of a file named on the command line (a typed error names the option)."""
    try:
        return Path(path).read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidArgumentError(f'{option} {path}: {exc}') from exc


def _add_description_arguments(p: argparse.ArgumentParser) -> None:
    """``--package-root`` and ``--xacro-arg`` (every command that loads a description)."""
    p.add_argument('--package-root', action='append', default=[],
                   help='directory containing ROS packages (package:// URIs and xacro '
                        '$(find pkg)); repeatable')
    p.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                   help='xacro argument for a .xacro description; repeatable')


def _add_configuration_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument('--urdf', help=_URDF_HELP)
    p.add_argument('--srdf', help="SRDF file (default: the embedded robot's, if no --urdf)")
    _add_description_arguments(p)
    p.add_argument('--positions', help='JSON object {variable: value} (rad, m)')
    p.add_argument('--state', help='an SRDF named state (e.g. home, ready)')


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``robot-state-core``."""
    parser = argparse.ArgumentParser(prog='robot-state-core', description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    p_run = sub.add_parser('run', help='publish a robot on ROS 2 with a live status line')
    p_run.add_argument('--urdf', help=_URDF_HELP)
    p_run.add_argument('--duration', type=float, default=None,
                       help='stop after this many seconds (default: run until Ctrl-C)')
    p_run.add_argument('--srdf', help="SRDF file (default: the embedded robot's, if no --urdf)")
    _add_description_arguments(p_run)
    p_run.add_argument('--frame-prefix', default='', help='prefix for every frame id')
    p_run.add_argument('--simulate', action='store_true',
                       help='also publish joint_states that sweep every joint smoothly')
    p_run.add_argument('--sim-rate', type=float, default=50.0,
                       help='rate of the simulated joint states [Hz] (default 50)')
    p_run.add_argument('--publish-frequency', type=float, default=20.0,
                       help='robot_state_publisher publish_frequency [Hz] (default 20)')
    p_run.add_argument('--ignore-timestamp', action='store_true',
                       help='publish /tf for every joint_states message')
    p_run.add_argument('--no-services', action='store_true',
                       help='do not serve compute_ik / compute_fk / check_state_validity')
    p_run.add_argument('--view', type=int, nargs='?', const=8080, default=None, metavar='PORT',
                       help='also serve the browser viewer following the nodes (`view --ros`) '
                            'on PORT (default 8080) and print its URL')
    p_run.set_defaults(func=_cmd_run)
    p_check = sub.add_parser('check', help='load a URDF and report its contents')
    p_check.add_argument('urdf', help='URDF or xacro (*.xacro) file')
    p_check.add_argument('srdf', nargs='?', default=None, help='SRDF file (optional)')
    _add_description_arguments(p_check)
    p_check.add_argument('-v', '--verbose', action='store_true',
                         help='print every load message, not one line per kind')
    p_check.set_defaults(func=_cmd_check)
    p_fk = sub.add_parser('fk', help='link poses for a configuration (JSON)')
    _add_configuration_arguments(p_fk)
    p_fk.add_argument('--links', nargs='*', help='links to report (default: all)')
    p_fk.set_defaults(func=_cmd_fk)
    p_ik = sub.add_parser('ik', help='solve IK for a group (JSON)')
    _add_configuration_arguments(p_ik)
    p_ik.add_argument('--group', required=True, help='joint model group (e.g. arm)')
    p_ik.add_argument('--target', nargs='+', required=True,
                      help='x y z [qx qy qz qw] in the model frame (3 values: position only)')
    p_ik.add_argument('--tip', help='tip link (default: the group tip)')
    p_ik.add_argument('--timeout', type=float, default=0.0, help='[s] (0: group default)')
    p_ik.set_defaults(func=_cmd_ik)
    p_col = sub.add_parser('collide', help='collision check of a configuration (JSON)')
    _add_configuration_arguments(p_col)
    p_col.add_argument('--group', default=None, help='restrict to a group (MoveIt semantics)')
    p_col.add_argument('--padding', type=float, default=0.0, help='link padding [m]')
    p_col.add_argument('--scene', help=_SCENE_HELP)
    p_col.set_defaults(func=_cmd_collide)
    p_acm = sub.add_parser('gen-acm', help='generate SRDF disable_collisions by sampling')
    p_acm.add_argument('--urdf', help=_URDF_HELP)
    p_acm.add_argument('--srdf', help='SRDF file (groups; optional)')
    _add_description_arguments(p_acm)
    p_acm.add_argument('--samples', type=int, default=10000,
                       help='random configurations of the "never in collision" phase '
                            "(default 10000, the Setup Assistant's default density)")
    p_acm.add_argument('--min-collision-fraction', type=float, default=0.95,
                       help='fraction of a 200-sample batch in collision above which a pair '
                            'is "always" in collision (default 0.95)')
    p_acm.add_argument('--seed', type=int, default=0, help='random seed (default 0)')
    p_acm.add_argument('--output', help='write to this file instead of stdout')
    p_acm.set_defaults(func=_cmd_gen_acm)
    p_view = sub.add_parser('view', help='serve a browser page showing the robot')
    _add_configuration_arguments(p_view)
    p_view.add_argument('--scene', help=_SCENE_HELP)
    p_view.add_argument('--reach', metavar='RESULTS', help=_REACH_HELP)
    p_view.add_argument('--box', nargs=6, action='append', metavar=('X', 'Y', 'Z', 'SX', 'SY',
                                                                      'SZ'),
                        help='add a world box at x y z with edges sx sy sz [m]; repeatable')
    p_view.add_argument('--port', type=int, default=8080,
                        help='HTTP port (default 8080; the next free one if taken)')
    p_view.add_argument('--host', default='127.0.0.1',
                        help='address to listen on (default 127.0.0.1; 0.0.0.0 for all)')
    p_view.add_argument('--ros', action='store_true',
                        help='follow /joint_states and collision_object (an RViz stand-in)')
    p_view.add_argument('--frame-prefix', default='',
                        help='with --ros: prefix of frame ids in collision objects')
    p_view.add_argument('--duration', type=float, default=None,
                        help='stop after this many seconds (default: run until Ctrl-C)')
    p_view.set_defaults(func=_cmd_view)
    p_snap = sub.add_parser('snapshot', help='write a PNG of a configuration (headless browser)')
    _add_configuration_arguments(p_snap)
    p_snap.add_argument('--scene', help=_SCENE_HELP)
    p_snap.add_argument('--reach', metavar='RESULTS', help=_REACH_HELP)
    p_snap.add_argument('--box', nargs=6, action='append', metavar=('X', 'Y', 'Z', 'SX', 'SY',
                                                                      'SZ'),
                        help='add a world box at x y z with edges sx sy sz [m]; repeatable')
    p_snap.add_argument('--output', required=True, help='PNG file to write')
    p_snap.add_argument('--size', default='800x600', help='image size WxH (default 800x600)')
    p_snap.add_argument('--camera', nargs='+', type=float, metavar='V',
                        help='AZ EL [DIST]: view from azimuth AZ (about +z, from +x) and '
                             'elevation EL [deg], at DIST [m] from the centre (default: as '
                             'close as --fit allows); or X Y Z LX LY LZ: camera position and '
                             f'look-at point [m] (default: AZ {DEFAULT_AZIMUTH_DEG:g} EL '
                             f'{DEFAULT_ELEVATION_DEG:g})')
    p_snap.add_argument('--fit', action=argparse.BooleanOptionalAction, default=True,
                        help='frame tightly: the robot spans 90 %% of the picture (default; '
                             '--no-fit: its bounding sphere fits the view height)')
    p_snap.add_argument('--no-collision-colors', action='store_true',
                        help='draw links in their own colours even when they collide')
    p_snap.add_argument('--no-grid', action='store_true',
                        help='leave out the ground grid and the world axes')
    p_snap.add_argument('--timeout', type=float, default=90.0,
                        help='seconds to wait for the page to draw (default 90)')
    p_snap.set_defaults(func=_cmd_snapshot)
    p_reach = sub.add_parser('reach', help='run a reach study (REACH) described in a YAML '
                                           'file; resumes from its results file')
    p_reach.add_argument('study', help='the study (YAML: robot, group, targets, evaluator, ...)')
    p_reach.add_argument('--output', help='results file (default: STUDY.reach.npz beside it)')
    p_reach.add_argument('--workers', type=int, default=1,
                         help='local worker processes (default 1: this process)')
    p_reach.add_argument('--ray-address', default=None, metavar='ADDR',
                         help="run on a Ray cluster (ray.init address, e.g. 'auto' or "
                              "'ray://head:10001'; 'local' starts one on this machine)")
    p_reach.add_argument('--restart', action='store_true',
                         help='ignore an existing results file and start anew')
    p_reach.add_argument('--ros', action='store_true',
                         help='run against the live planning scene (get_planning_scene), '
                              'publish the heat map on reach/markers and serve ~/run')
    p_reach.add_argument('--duration', type=float, default=None,
                         help='with --ros: stop after this many seconds (default: Ctrl-C)')
    p_reach.set_defaults(func=_cmd_reach)
    p_cmp = sub.add_parser('reach-compare', help='compare two reach studies of the same targets')
    p_cmp.add_argument('a', help='results file of the first study')
    p_cmp.add_argument('b', help='results file of the second study')
    p_cmp.set_defaults(func=_cmd_reach_compare)
    p_warm = sub.add_parser('warm-kernels', help='compile the kernels now (after an install)')
    p_warm.set_defaults(func=_cmd_warm_kernels)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``robot-state-core`` console script."""
    ns = build_parser().parse_args(argv)
    try:
        return int(ns.func(ns))
    except RobotStateCoreError as exc:
        print(f'robot-state-core {ns.command}: {exc}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
