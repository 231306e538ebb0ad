"""A xacro robot through the launch file and the CLI's ``run``, over real DDS (issue 14).

``ros2 launch`` is not installable here, so ``launch/robot_state_core.launch.xml`` is evaluated
by a small stand-in (``launch_xml_stand_in.py``: the file's arguments, ``<let>``s and
substitutions, with ``$(command 'xacro ...')`` running the real ``xacro`` command from the venv
and ``$(find-pkg-share)`` an ament prefix laid out like a colcon install). The node it asks for is
then started as its console entry point with the evaluated parameters, and a plain rclpy
subscriber checks what it publishes: ``robot_description`` equals the xacro command's output, and
``/tf_static`` holds the tool transform in closed form.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
import re
import subprocess
import sys

import pytest
import yaml

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('xacro')
from launch_xml_stand_in import LaunchXml, run_command  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
import ros_testing  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
XACRO_DIR = Path(__file__).resolve().parent / 'resources' / 'xacro'
ARM = XACRO_DIR / 'rsc_xacro_arm' / 'urdf' / 'rsc_arm.urdf.xacro'
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
VENV_BIN = str(Path(sys.executable).parent)


@pytest.fixture(scope='module')
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ament prefix like colcon's install/: robot_state_core and the two xacro packages."""
    root = tmp_path_factory.mktemp('install')
    share = root / 'share'
    index = share / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True)
    ours = share / 'robot_state_core'
    ours.mkdir()
    for name, target in (('config', REPO / 'config'), ('launch', REPO / 'launch'),
                         ('robots', REPO / 'robot_state_core' / 'robots')):
        (ours / name).symlink_to(target)
    for package in ('rsc_xacro_arm', 'rsc_xacro_common'):
        (share / package).symlink_to(XACRO_DIR / package)
    for package in ('robot_state_core', 'rsc_xacro_arm', 'rsc_xacro_common'):
        (index / package).write_text('')
    return root


def _entry_point(executable: str) -> tuple[str, str]:
    """``module, function`` of a console script named in setup.py."""
    match = re.search(rf"'{re.escape(executable)} = ([\w.]+):(\w+)'",
                      (REPO / 'setup.py').read_text())
    assert match, f'{executable} is not a console script of setup.py'
    return match.group(1), match.group(2)


def _xacro(args: list[str], prefix: Path) -> str:
    env = {**os.environ, 'AMENT_PREFIX_PATH': str(prefix)}
    return subprocess.run([str(Path(VENV_BIN) / 'xacro'), *args], env=env, check=True,
                          capture_output=True, text=True, timeout=60).stdout


def test_xml_launch_runs_the_node_on_a_xacro_robot(ros, prefix: Path, tmp_path: Path) -> None:
    """launch.xml use_default_robot:=false urdf:=arm.urdf.xacro xacro_args:=... namespace:=r2."""
    ament = f'{prefix}{os.pathsep}{sys.prefix}'
    env = {**os.environ, 'AMENT_PREFIX_PATH': ament,
           'PATH': VENV_BIN + os.pathsep + os.environ.get('PATH', '')}
    launch = LaunchXml(REPO / 'launch' / 'robot_state_core.launch.xml',
                       {'robot_state_core': prefix / 'share' / 'robot_state_core'},
                       lambda command: run_command(command, env))
    nodes = launch.nodes({'use_default_robot': 'false', 'urdf': str(ARM),
                          'xacro_args': 'links:=4 prefix:=r2_', 'namespace': 'r2'})
    assert len(nodes) == 1
    node = nodes[0]
    expected = _xacro([str(ARM), 'links:=4', 'prefix:=r2_'], prefix)
    assert node.parameters['robot_description'] == expected
    params = tmp_path / 'launch_params.yaml'
    params.write_text(yaml.safe_dump({'/**': {'ros__parameters': node.parameters}}))
    module, function = _entry_point(node.executable)
    child = ros_testing.ChildProcess(
        ['-c', f'import sys; from {module} import {function} as main; sys.exit(main())',
         '--ros-args', '-r', f'__ns:=/{node.namespace}',
         *(a for f in node.parameter_files for a in ('--params-file', str(f))),
         '--params-file', str(params)],
        env={'AMENT_PREFIX_PATH': ament})
    try:
        child.wait_for_line('published robot_description', timeout=60)
        listener = ros.node('launch_listener')
        got: dict[str, object] = {}
        listener.create_subscription(String, '/r2/robot_description',
                                     lambda m: got.setdefault('description', m), LATCHED)
        listener.create_subscription(TFMessage, '/tf_static',
                                     lambda m: got.setdefault('tf', m), LATCHED)
        ros.spin_until(lambda: len(got) == 2, what='/r2/robot_description and /tf_static')
    finally:
        code = child.stop()
    assert code == 0, child.lines
    assert not [line for line in child.lines if 'unresolved' in line or 'ERROR' in line]
    assert got['description'].data == expected
    tool = {t.child_frame_id: t for t in got['tf'].transforms}['r2_tool0']
    assert tool.header.frame_id == 'r2_link_4'
    v, q = tool.transform.translation, tool.transform.rotation
    # <origin xyz="0 0 $(arg link_length)" rpy="${pi} 0 0"/>, link_length default 0.3
    assert (v.x, v.y, v.z) == pytest.approx((0.0, 0.0, 0.3), abs=1e-12)
    assert (abs(q.x), q.y, q.z, q.w) == pytest.approx((1.0, 0.0, 0.0, math.cos(math.pi / 2)),
                                                      abs=1e-12)


def _distribution_of_the_wheels() -> str:
    """Told apart by the DDS wheel, not by rclpy: Jazzy ships Fast DDS 2 as ros-fastrtps."""
    import importlib.metadata

    try:
        importlib.metadata.version('ros-fastrtps')
    except importlib.metadata.PackageNotFoundError:
        return 'Kilted'
    return 'Jazzy'


def test_cli_run_publishes_a_xacro_robot(ros, prefix: Path) -> None:
    """robot-state-core run --urdf arm.urdf.xacro --xacro-arg ... --package-root ..."""
    child = ros_testing.ChildProcess(
        ['-m', 'robot_state_core', 'run', '--urdf', str(ARM), '--xacro-arg', 'links:=2',
         '--xacro-arg', 'with_tool:=false', '--package-root', str(XACRO_DIR),
         '--no-services', '--duration', '60'])
    try:
        line = child.wait_for_line("published robot '", timeout=60)
        listener = ros.node('run_listener')
        got: list[String] = []
        listener.create_subscription(String, 'robot_description', got.append, LATCHED)
        ros.spin_until(lambda: bool(got), what='robot_description')
    finally:
        code = child.stop()
    assert code == 0, child.lines
    assert "published robot 'rsc_xacro_arm' (3 links, 2 joints)" in line
    assert f'[ROS 2 {_distribution_of_the_wheels()}, domain ' in line
    assert got[0].data == _xacro([str(ARM), 'links:=2', 'with_tool:=false'], prefix)


def test_cli_run_reports_a_broken_xacro_with_file_and_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A xacro error stops `run` before ROS starts: exit 2, one line with file:line."""
    from robot_state_core.apps.cli import main as cli_main

    code = cli_main(['run', '--urdf', str(XACRO_DIR / 'broken' / 'undefined_property.urdf.xacro'),
                     '--duration', '1'])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ''
    assert err.startswith('robot-state-core run: xacro ')
    assert 'broken_macros.xacro:10' in err
    assert err.count('\n') == 1


def test_ros_distro_comes_from_ros_distro_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a ROS install setup.bash exports ROS_DISTRO, which wins over the wheel's version."""
    from robot_state_core.ros.distro import ros_distro

    ros_distro.cache_clear()
    try:
        monkeypatch.setenv('ROS_DISTRO', 'Humble')
        assert ros_distro() == 'humble'
        ros_distro.cache_clear()
        monkeypatch.delenv('ROS_DISTRO')
        assert ros_distro() == _distribution_of_the_wheels().lower()
    finally:
        ros_distro.cache_clear()
