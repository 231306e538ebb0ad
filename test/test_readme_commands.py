"""Every command and request in the README and docs/ runs as written (issue 25).

The commands are read from the documents themselves: every line of a ``bash`` block (a command
may continue over lines) and every inline command span (``robot-state-core`` with arguments,
``make ...``, ``python ...``). Each one is either run here, verbatim, against the state the
document describes, or listed in :data:`NOT_RUN` with the reason and the test that covers it
instead; a command in neither fails the test, so a new README command needs a test.

How they run:

* ``robot-state-core``/``.venv/bin/...`` commands and shell blocks: ``bash -c`` with the text as
  written, in a scratch directory holding ``.venv`` (a link to this venv) and ``docs/images``,
  so relative paths resolve as in a checkout and nothing in the repository is overwritten.
* ``make demo`` and ``robot-state-core run --simulate --view 8080``: started as written in the
  repository, waited for until they serve, then stopped with Ctrl-C (exit code 0).
* ``ros2 service call`` / ``ros2 topic pub --once``: ros2cli is not installable here (no wheel;
  ../shared/reference/ros_wheels.md), so the request text is parsed as ros2cli parses it (the
  YAML into the message type named on the command line) and sent with rclpy to
  ``robot-state-core run --simulate``, the state of ``make demo`` (every joint sweeping, the
  mobile base included). Each answer is checked: success codes, an IK solution reaching the
  target, a Cartesian path with fraction 1, the published box in the scene.
"""

from __future__ import annotations

from dataclasses import dataclass
import importlib
import os
from pathlib import Path
import re
import shlex
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
FENCE = re.compile(r'^```(\w*)\n(.*?)^```', re.S | re.M)
INLINE = re.compile(r'`((?:\.venv/bin/)?robot-state-core(?: [^`\s]+){2,}[^`]*|make [a-z][^`]*|'
                    r'CI=true [^`]+|python3? [^`]+)`')
SHELL = ('bash', 'sh', 'shell', 'console')

_SUITE = 'the test suite itself: CI runs `.ci/run`, which is `make test`'
_BENCH = ('a benchmark run (minutes; speed is measured in benchmarks/, never in tests); the '
          'harness is tested by test_benchmark_harness.py')
_NO_ROS2CLI = ('needs ros2cli, which no reachable registry has (ros_wheels.md); the colcon build '
               'and the installed executables are run by test_colcon_package.py, the launch '
               'files through the launch library by test_launch_and_config.py')
_STAND_INS = ('what tools/setup_env.py runs (step 4) on every fresh set-up, with the pins of '
              'constraints.txt; test_interface_hashes.py checks the result')

#: Commands not run here, each with the reason (the text as it appears, whitespace-normalized).
NOT_RUN: dict[str, str] = {
    'make test': _SUITE,
    'CI=true bash .ci/run': _SUITE,
    'make pytest': _SUITE,
    'make setup-jazzy pytest-jazzy': _SUITE,
    'make pytest-jazzy': _SUITE,
    'make pytest PYTEST_ARGS="-m \'not colcon\'"': _SUITE,
    'make fuzz': ('the full loader fuzz (6 000 cases, minutes); test_fuzz_loaders.py runs the '
                  'same fuzzer on a smaller sample'),
    'make bench': _BENCH,
    'make bench BENCH_ARGS=--quick': _BENCH,
    'make bench BENCH_ARGS="--module viewer"': _BENCH,
    'python benchmarks/run.py --module kinematics --module collision --module ros --runs 3':
        _BENCH,
    'mkdir -p ~/ws/src && cd ~/ws/src && git clone <this repository> robot_state_core':
        'a placeholder (<this repository>); test_colcon_package.py copies the checkout into a '
        'colcon workspace instead',
    'pip install -c robot_state_core/constraints.txt urdfdom-py python-fcl trimesh pycollada '
    'lxml viser': "installs into the user's ROS Python; this venv has these pins already "
                  '(tools/setup_env.py)',
    'cd ~/ws && colcon build --packages-select robot_state_core && . install/setup.bash':
        'run by test_colcon_package.py in a scratch workspace',
    'robot-state-core check robot.urdf.xacro --xacro-arg name:=value --package-root ~/ws/src':
        'placeholder file names; test_xacro.py and test_ros_launch_xacro.py run `check` and '
        '`run` on xacro files with --xacro-arg and --package-root',
    "robot-state-core check: xacro urdf/arm_macros.xacro:10: name 'box_edge' is not defined "
    "when evaluating expression 'box_edge'": 'an error message quoted in the text, not a '
                                             'command; test_xacro.py checks it',
    '. .venv/bin/activate': _STAND_INS,
    'export AMENT_PREFIX_PATH=$VIRTUAL_ENV': _STAND_INS,
    '.venv/bin/python benchmarks/summary.py': ('rewrites the README summary; '
                                               'test_benchmark_harness.py checks that the '
                                               'committed summary is what it writes'),
    'robot-state-core run --ignore-timestamp --no-services': (
        "the /tf benchmark's node, started by bench_ros.py with a robot and a driver; "
        'test_ros_tf.py runs the same command line against a joint_states publisher'),
}
NOT_RUN_PATTERNS: tuple[tuple[str, str], ...] = (
    (r'ros2 (launch|run) ', _NO_ROS2CLI),
    (r'pip install --no-build-isolation -c constraints\.txt \./interfaces/', _STAND_INS),
    (r'\.venv/bin/python benchmarks/run\.py', _BENCH),
    (r'ray start ', 'starts a Ray cluster on several machines; the same study runs on a local Ray '
                    'cluster in this file (`--ray-address local`) and in test_reach_study.py'),
)


@dataclass(frozen=True)
class Command:
    """A command of a document: where it is and its text as written."""

    document: str
    line: int
    text: str

    @property
    def key(self) -> str:
        """The text without comments and line continuations, whitespace-normalized."""
        text = _without_comments(self.text).replace('\\\n', ' ')
        return ' '.join(text.split())

    def __str__(self) -> str:
        return f'{self.document}:{self.line}: {self.key}'


def _without_comments(text: str) -> str:
    """``text`` without shell comments (``#`` after whitespace, outside quotes, to line end)."""
    out, quote, skipping = [], '', False
    for i, ch in enumerate(text):
        if skipping:
            if ch == '\n':
                skipping = False
                out.append(ch)
            continue
        if quote:
            quote = '' if ch == quote else quote
        elif ch in '\'"':
            quote = ch
        elif ch == '#' and (i == 0 or text[i - 1].isspace()):
            skipping = True
            continue
        out.append(ch)
    return ''.join(out)


def _unique(commands: list[Command]) -> list[Command]:
    """The first command of each key (a command documented twice runs once)."""
    seen: dict[str, Command] = {}
    for c in commands:
        seen.setdefault(c.key, c)
    return list(seen.values())


def _documents() -> list[Path]:
    return [REPO / 'README.md', REPO / 'interfaces' / 'README.md',
            REPO / 'benchmarks' / 'README.md', *sorted((REPO / 'docs').glob('*.md'))]


def _split(body: str) -> list[tuple[int, str]]:
    """The commands of a shell block (a command ends where its quotes and continuations do)."""
    out: list[tuple[int, str]] = []
    text, start = '', 0
    for i, line in enumerate(body.splitlines()):
        if not text and (not line.strip() or line.lstrip().startswith('#')):
            continue
        if not text:
            start = i
        text = f'{text}\n{line}' if text else line
        if text.rstrip().endswith('\\'):
            continue
        try:
            shlex.split(text, comments=True)
        except ValueError:  # a quote still open
            continue
        out.append((start, text))
        text = ''
    assert not text, f'unterminated command: {text!r}'
    return out


def documented_commands() -> list[Command]:
    """Every command of the README and docs/ (shell blocks and inline command spans)."""
    found = []
    for path in _documents():
        name = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding='utf-8')
        for m in FENCE.finditer(text):
            if m.group(1) not in SHELL:
                continue
            first = text[:m.start(2)].count('\n') + 1
            found += [Command(name, first + k, c) for k, c in _split(m.group(2))]
        prose = FENCE.sub(lambda m: '\n' * m.group(0).count('\n'), text)
        found += [Command(name, prose[:m.start()].count('\n') + 1, m.group(1))
                  for m in INLINE.finditer(prose)]
    return found


def _not_run_reason(command: Command) -> str | None:
    reason = NOT_RUN.get(command.key)
    if reason is None:
        reason = next((r for p, r in NOT_RUN_PATTERNS if re.match(p, command.key)), None)
    return reason


if not all(p.is_file() for p in _documents()):  # colcon's package copy (test_colcon_package)
    pytest.skip('the README commands run against the whole checkout, not a package copy',
                allow_module_level=True)
COMMANDS = documented_commands()
ROS_REQUESTS = _unique([c for c in COMMANDS
                        if c.key.startswith(('ros2 service call', 'ros2 topic pub'))])
SERVING = _unique([c for c in COMMANDS
                   if c.key.startswith(('make demo', 'robot-state-core run --simulate'))])
SHELL_RUNS = _unique([c for c in COMMANDS if _not_run_reason(c) is None
                      and not c.key.startswith(('ros2 service call', 'ros2 topic pub', 'SHARE=',
                                                'P=', 'make demo',
                                                'robot-state-core run --simulate'))])


def test_every_command_is_run_or_has_a_reason() -> None:
    """No command without a test; no stale entry in NOT_RUN."""
    handled = {c.key for c in ROS_REQUESTS + SHELL_RUNS + SERVING}
    unhandled = [str(c) for c in COMMANDS if c.key not in handled
                 and _not_run_reason(c) is None and not c.key.startswith(('SHARE=', 'P='))]
    assert not unhandled, 'commands without a test or a reason:\n' + '\n'.join(unhandled)
    keys = {c.key for c in COMMANDS}
    stale = [k for k in NOT_RUN if k not in keys]
    assert not stale, f'NOT_RUN entries no document contains any more: {stale}'
    assert len(ROS_REQUESTS) >= 7 and len(SHELL_RUNS) >= 4 and SERVING


# --------------------------------------------------------------------------- shell commands

@pytest.fixture(scope='module')
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch checkout-like directory: ``.venv`` (this venv) and ``docs/images``."""
    root = tmp_path_factory.mktemp('readme')
    (root / '.venv').symlink_to(Path(sys.prefix))
    (root / 'examples').symlink_to(REPO / 'examples')  # read only: outputs go to build/
    (root / 'docs' / 'images').mkdir(parents=True)
    return root


def _script(command: Command) -> str:
    """The command's text; the variable lines of its block first (``SHARE=``, ``P=``)."""
    if '$P' in command.text or '$SHARE' in command.text:
        prefix = [c.text for c in COMMANDS if c.document == command.document
                  and c.key.startswith(('SHARE=', 'P=')) and c.line < command.line]
        return '\n'.join([*prefix, command.text])
    return command.text


def _env(ros_domain: int | None = None) -> dict[str, str]:
    env = {**os.environ, 'PATH': f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    if ros_domain is not None:
        env['ROS_DOMAIN_ID'] = str(ros_domain)
    return env


@pytest.mark.parametrize('command', SHELL_RUNS, ids=str)
def test_shell_command_runs_as_written(command: Command, sandbox: Path) -> None:
    """The command exits 0 with its documented output files in place."""
    cwd = REPO if command.key.startswith(('make ', 'python3 tools/')) else sandbox
    done = subprocess.run(['bash', '-c', _script(command)], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f'{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}'
    for output in re.findall(r'--output (\S+)', command.key):
        assert (cwd / output).stat().st_size > 1000, f'{output} was not written'


@pytest.mark.parametrize('command', SERVING, ids=str)  # Kilted: make demo runs .venv
def test_serving_command_starts_and_stops(command: Command, ros_domain: int) -> None:
    """``make demo`` and what it runs serve, and stop.

    Ctrl-C (to the process group, as a terminal sends it) ends them, or ``--duration`` does
    (exit code 0).
    """
    proc = subprocess.Popen(['bash', '-c', command.key], cwd=REPO, env=_env(ros_domain),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip())
            if 'joint_states' in line and '--duration' not in command.key:
                os.killpg(proc.pid, signal.SIGINT)
                break
        code = proc.wait(timeout=60.0)
        lines += proc.stdout.read().splitlines()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = '\n'.join(lines)
    assert "published robot '" in text and 'joint_states' in text, text[-3000:]
    assert 'Traceback' not in text, text[-3000:]
    if command.key.startswith('make') and '--duration' not in command.key:
        # make stops its recipe on Ctrl-C and then ends itself by the same signal (GNU make's
        # documented behaviour), so the shell sees -SIGINT; what ran under it must end cleanly.
        assert code in (0, 2, -signal.SIGINT), text[-3000:]
    else:
        assert code == 0, text[-3000:]
    deadline = time.monotonic() + 2.0
    while _group_alive(proc.pid):
        assert time.monotonic() < deadline, f'processes of {command.key!r} outlived it'
        time.sleep(0.05)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


# --------------------------------------------------------------------------- ROS requests

def fill_message(message: object, values: dict) -> None:
    """Set ``message``'s fields from a ros2cli-style YAML mapping (nested messages and lists)."""
    types = type(message).get_fields_and_field_types()  # type: ignore[attr-defined]
    for name, value in values.items():
        assert name in types, f'{type(message).__name__} has no field {name!r}'
        current = getattr(message, name)
        if isinstance(value, dict):
            fill_message(current, value)
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            package, type_name = re.search(r'(\w+)/(\w+)', types[name]).groups()
            item_type = getattr(importlib.import_module(f'{package}.msg'), type_name)
            items = []
            for item in value:
                m = item_type()
                fill_message(m, item)
                items.append(m)
            setattr(message, name, items)
        elif isinstance(current, float):
            setattr(message, name, float(value))
        elif types[name] in ('byte', 'octet') and isinstance(value, int):
            setattr(message, name, bytes([value]))  # ros2cli: a YAML int into a byte field
        elif isinstance(value, list) and 'double' in types[name]:
            setattr(message, name, [float(v) for v in value])
        else:
            setattr(message, name, value)


def _interface(name: str) -> type:
    package, kind, type_name = name.split('/')
    return getattr(importlib.import_module(f'{package}.{kind}'), type_name)


@pytest.fixture(scope='module')
def demo(tmp_path_factory: pytest.TempPathFactory):
    """``robot-state-core run --simulate`` (the state of ``make demo``) and an rclpy client."""
    rclpy = pytest.importorskip('rclpy')
    pytest.importorskip('moveit_msgs')
    import domain_coordinator
    import ros_testing

    with domain_coordinator.domain_id() as domain:
        os.environ['ROS_DOMAIN_ID'] = str(domain)
        ros = ros_testing.RosTestContext(int(domain))
        child = ros_testing.ChildProcess(['-m', 'robot_state_core', 'run', '--simulate'])
        try:
            child.wait_for_line("published robot '", timeout=120.0)
            # The README describes the steady state: compiled kernels. On a machine's first
            # start they compile for ~30 s, and IK with the examples' 50 ms timeouts may time
            # out meanwhile (README "The first start on a machine"; test_ros_first_start.py
            # checks that window with its own timeouts).
            child.wait_for_line('compiled kernels in use', timeout=240.0)
            yield ros
        finally:
            code = child.stop()
            ros.close()
            del os.environ['ROS_DOMAIN_ID']
            assert rclpy is not None
        assert code == 0, child.lines[-20:]


def _check_answer(command: Command, response: object, ros, request: object) -> None:
    from robot_state_core.io.default_robot import default_robot_urdf_path

    name = type(response).__name__
    if hasattr(response, 'error_code'):
        assert response.error_code.val == 1, f'{command}: {response.error_code}'
    if name.startswith('GetPositionIK'):
        import pinocchio as pin
        import pinocchio_oracle

        from robot_state_core import RobotModel, RobotState
        from robot_state_core.io.default_robot import default_robot_srdf_path

        model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
        state = RobotState(model)
        js = response.solution.joint_state
        state.set_variable_positions(dict(zip(js.name, js.position, strict=True)))
        mdj = response.solution.multi_dof_joint_state
        for joint, t in zip(mdj.joint_names, mdj.transforms, strict=True):
            state.set_variable_positions({f'{joint}/x': t.translation.x,
                                          f'{joint}/y': t.translation.y,
                                          f'{joint}/theta': 2.0 * np.arctan2(t.rotation.z,
                                                                             t.rotation.w)})
        pm, _ = pinocchio_oracle.load(default_robot_urdf_path())
        data = pm.createData()
        pin.framesForwardKinematics(pm, data,
                                    pinocchio_oracle.to_pinocchio_q(model, pm, state.positions))
        pose = request.ik_request.pose_stamped
        X_WF = data.oMf[pm.getFrameId(pose.header.frame_id)].homogeneous
        X_WT = data.oMf[pm.getFrameId('tool0')].homogeneous
        p = pose.pose.position
        np.testing.assert_allclose((np.linalg.inv(X_WF) @ X_WT)[:3, 3], [p.x, p.y, p.z],
                                   atol=1e-4)
    if name.startswith('GetCartesianPath'):
        assert response.fraction == 1.0, f'{command}: fraction {response.fraction}'
    if name.startswith('ApplyPlanningScene'):
        assert response.success, f'{command}: {request}'


@pytest.mark.ros
@pytest.mark.parametrize('command', ROS_REQUESTS, ids=str)
def test_ros_request_as_written(command: Command, demo) -> None:
    """The request, parsed as ros2cli parses it, answered with success by the demo."""
    args = shlex.split(command.key)
    ros = demo
    node = ros.node(f'readme_{command.line}')
    if args[:3] == ['ros2', 'service', 'call']:
        service, type_name, text = args[3], args[4], args[5]
        srv = _interface(type_name)
        request = srv.Request()
        fill_message(request, yaml.safe_load(text))
        client = node.create_client(srv, service)
        ros.wait_for_service(client, timeout=60.0)
        future = client.call_async(request)
        ros.spin_until(future.done, timeout=30.0, what=service)
        _check_answer(command, future.result(), ros, request)
        return
    assert args[:4] == ['ros2', 'topic', 'pub', '--once'], command
    topic, type_name, text = args[4], args[5], args[6]
    msg_type = _interface(type_name)
    message = msg_type()
    fill_message(message, yaml.safe_load(text))
    publisher = node.create_publisher(msg_type, topic, 10)
    ros.wait_for_subscribers(publisher)
    publisher.publish(message)
    from moveit_msgs.srv import GetPlanningScene

    client = node.create_client(GetPlanningScene, '/get_planning_scene')
    ros.wait_for_service(client)

    def present() -> bool:
        f = client.call_async(GetPlanningScene.Request())
        ros.spin_until(f.done, timeout=10.0, what='get_planning_scene')
        return message.id in {o.id for o in f.result().scene.world.collision_objects}

    ros.spin_until(present, timeout=10.0, what=f'{message.id} in the scene')
