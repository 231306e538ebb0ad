"""Interpreted twins of the kernels, and their preparation in the background (issue 25).

jit/kernels.py and jit/background.py. Each case runs in a child process with its own
``NUMBA_CACHE_DIR``: the switch between compiled kernels and twins is process-wide, and
"nothing compiled" is checked on an empty cache.
"""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import sys
import textwrap

TEST_DIR = Path(__file__).resolve().parent


def _run(code: str, cache: Path, timeout: float = 300.0) -> str:
    env = {**os.environ, 'NUMBA_CACHE_DIR': str(cache),
           'PYTHONPATH': os.pathsep.join([str(TEST_DIR), os.environ.get('PYTHONPATH', '')])}
    proc = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=env, text=True,
                          capture_output=True, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not proc.stderr.strip(), proc.stderr
    return proc.stdout


TWINS = '''
import numpy as np
import pinocchio as pin
import pinocchio_oracle
from robot_state_core.jit import kernels

kernels.use_interpreted()

from robot_state_core import RobotModel, RobotState
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.kinematics import forward_kinematics, jacobian
from robot_state_core.scene.planning_scene import PlanningScene

model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
pm, _ = pinocchio_oracle.load(default_robot_urdf_path())
data = pm.createData()
rng = np.random.default_rng(7)
state = RobotState(model)
worst = 0.0
for _ in range(20):
    state.set_to_random_positions(rng=rng)
    q = state.positions.copy()
    X = forward_kinematics(model, q)
    pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
    tip = data.oMf[pm.getFrameId('tool0')].homogeneous
    worst = max(worst, np.abs(X[model.link_index('tool0')] - tip).max())
    J = jacobian(model, q, 'tool0')
    pin.computeJointJacobians(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
assert worst < 1e-9, worst
goal = RobotState(model)
goal.set_to_default_values('arm', 'ready')
X_goal = goal.get_global_link_transform('tool0')
solver = RobotState(model)
solver.set_to_default_values()
assert solver.set_from_ik('arm', X_goal, timeout=2.0)
q = solver.positions.copy()
pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
assert np.abs(data.oMf[pm.getFrameId('tool0')].homogeneous - X_goal).max() < 1e-4
scene = PlanningScene(model)
ready = scene.current_state
ready.set_to_default_values('arm', 'ready')
assert not scene.check_collision(ready).collision
from robot_state_core.kinematics import compiled
from robot_state_core.ik import compiled as ik_compiled
from robot_state_core.geometry import compiled as broad_phase
loaded = [name for m in (compiled, ik_compiled, broad_phase) for name, v in vars(m).items()
          if getattr(v, 'overloads', None)]
assert not loaded, loaded
print('ok', worst)
'''


def test_twins_match_pinocchio_and_compile_nothing(tmp_path: Path) -> None:
    """Twins: FK, IK and a collision check are right, and nothing compiles.

    FK of 20 random states and the IK solution are checked by Pinocchio's FK; no kernel is
    compiled or loaded, and the cache stays empty.
    """
    cache = tmp_path / 'numba'
    cache.mkdir()
    assert _run(TWINS, cache).startswith('ok')
    assert not [p for p in cache.rglob('*') if p.is_file()]


PREPARE = '''
import time
from robot_state_core.jit import kernels
from robot_state_core.jit.background import kernel_preparation, signature_file

lines = []
preparation = kernel_preparation()
preparation.start(log=lines.append)
assert kernels.interpreted()
assert preparation.status == {status!r}, preparation.status
assert preparation.wait(timeout=240.0)
assert preparation.status == 'compiled', preparation.status
assert not kernels.interpreted()
assert signature_file().is_file()
assert len(lines) == 1 and 'compiled kernels in use after' in lines[0], lines
assert 'compiled here' not in lines[0], lines
from robot_state_core import RobotModel, RobotState
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
state = RobotState(model)
state.set_to_default_values('arm', 'ready')
state.get_global_link_transform('tool0')
from robot_state_core.kinematics import compiled
assert compiled.forward_one.overloads, 'the compiled FK is in use'
print('ok', preparation.elapsed)
'''

STOP = '''
import time
from robot_state_core.jit.background import kernel_preparation

lines = []
preparation = kernel_preparation()
preparation.start(log=lines.append)
assert preparation.status == 'compiling', preparation.status
time.sleep(1.0)
t0 = time.monotonic()
preparation.stop()
stopped = time.monotonic() - t0
assert stopped < 1.0, stopped
assert preparation.wait(timeout=5.0)
assert preparation.status.startswith('failed'), preparation.status
assert not lines, lines
print('ok', stopped)
'''


def test_background_compile_then_cached_start(tmp_path: Path) -> None:
    """Empty cache: the child compiles and the process switches; then only loading.

    A second process finds the signature file and only loads (no child). Stopping a compiling
    child takes < 1 s.
    """
    cache = tmp_path / 'numba'
    cache.mkdir()
    assert _run(STOP, cache).startswith('ok')
    assert _run(PREPARE.format(status='compiling'), cache).startswith('ok')
    assert _run(PREPARE.format(status='loading'), cache).startswith('ok')


def test_a_library_process_keeps_its_compiled_kernels(tmp_path: Path) -> None:
    """A process that already runs compiled kernels is not switched to the twins."""
    code = '''
    from robot_state_core import RobotModel, RobotState
    from robot_state_core.io.default_robot import default_robot_urdf_path
    from robot_state_core.jit import kernels
    from robot_state_core.jit.background import kernel_preparation
    RobotState(RobotModel.from_urdf_file(default_robot_urdf_path())).get_global_link_transform(
        'tool0')
    kernel_preparation().start()
    assert not kernels.interpreted() and kernel_preparation().status == 'compiled'
    print('ok')
    '''
    assert _run(code, tmp_path / 'numba') == 'ok\n'
