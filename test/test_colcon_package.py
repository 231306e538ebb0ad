"""colcon builds and tests this package as an ament_python package in a scratch workspace.

This proves what a ROS user gets from ``colcon build``: the Python package, the console
scripts under ``lib/robot_state_core`` (for ``ros2 run``), and launch/, config/, package.xml, the
ament index marker and the default robot under ``share/robot_state_core``.
"""

from __future__ import annotations

import os
from pathlib import Path
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.colcon

REPO = Path(__file__).resolve().parents[1]
COLCON = Path(sys.prefix) / 'bin' / 'colcon'
IGNORE = shutil.ignore_patterns('.venv', '.git', 'build', 'install', 'log', '__pycache__',
                                '*.egg-info', '.pytest_cache', '.mypy_cache', '.ruff_cache',
                                'interfaces', 'benchmarks')


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, 'AMENT_PREFIX_PATH': sys.prefix, 'COLCON_LOG_LEVEL': 'warning'}
    env.pop('PYTHONPATH', None)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          check=False)


@pytest.fixture(scope='module')
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not COLCON.exists():
        pytest.skip('colcon is not installed in this environment')
    ws = tmp_path_factory.mktemp('colcon_ws')
    shutil.copytree(REPO, ws / 'src' / 'robot_state_core', ignore=IGNORE)
    out = _run([str(COLCON), 'build', '--event-handlers', 'console_direct-'], ws)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return ws


def test_colcon_build_installs_package_layout(workspace: Path) -> None:
    """Colcon build installs code, executables and every share/ file a ROS user needs."""
    prefix = workspace / 'install' / 'robot_state_core'
    share = prefix / 'share' / 'robot_state_core'
    for rel in ('package.xml', 'launch', 'config/fastdds_fast_discovery.xml',
                'robots/rsc_mobile_manipulator/rsc_mobile_manipulator.urdf',
                'robots/rsc_mobile_manipulator/rsc_mobile_manipulator.srdf'):
        assert (share / rel).exists(), rel
    assert list((share / 'robots/rsc_mobile_manipulator/meshes').glob('*.stl'))
    assert (prefix / 'share/ament_index/resource_index/packages/robot_state_core').is_file()
    for exe in ('robot_state_publisher', 'robot-state-core'):
        assert (prefix / 'lib' / 'robot_state_core' / exe).is_file(), exe
    site = list(prefix.glob('lib/python3*/site-packages/robot_state_core/__init__.py'))
    assert site, 'Python package not installed'


def test_colcon_test_passes(workspace: Path) -> None:
    """Colcon test runs the package's pytest suite (core tests) and reports no failure.

    The browser tests are left to the main run (they drive Chromium for ~30 s), and so is the
    loader fuzz (worker processes, ~10 s of CPU).
    """
    out = _run([str(COLCON), 'test', '--event-handlers', 'console_direct-',
                '--pytest-args', '-m', 'not ros and not colcon and not browser and not fuzz',
                '-q'],
               workspace)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    result = _run([str(COLCON), 'test-result', '--all', '--verbose'], workspace)
    assert result.returncode == 0, result.stdout[-4000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert '0 errors, 0 failures' in summary, result.stdout[-2000:]
    tests = int(summary.split()[1] if summary.startswith('Summary') else summary.split()[0])
    assert tests > 10, summary
