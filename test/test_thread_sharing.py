"""One model shared by four threads: FK, Jacobians, IK and collision answer as serially.

docs/threads.md lists which public classes may be shared between threads; this checks the
claims for the read paths (issue 26 item 1): one ``RobotModel``, one ``PlanningScene`` and one
``IKCache`` used by 4 threads at once (thread switches every 10 µs, so they interleave inside
calls), each thread with its own ``RobotState`` s and its own inputs. Every answer must equal
the one computed before the threads started, bitwise; the IK answers are also checked by
Pinocchio's FK, so "equal" is never "equally wrong".
"""

from __future__ import annotations

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus
import thread_testing

from robot_state_core import kinematics as kin
from robot_state_core.geometry.shapes import Box
from robot_state_core.ik.cache import IKCache
from robot_state_core.ik.solver import solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.state.robot_state import RobotState

THREADS = 4
PER_THREAD = 40
TIP = 'panda_hand_tcp'


@pytest.fixture(scope='module')
def panda() -> tuple[RobotModel, object]:
    robot = robot_corpus.test_robot('panda')
    return (RobotModel.from_urdf_file(robot.urdf_path, robot.srdf_path,
                                      package_map=robot.package_map), robot)


def test_fk_ik_and_collision_from_four_threads_equal_serial(panda, switch_interval) -> None:
    model, robot = panda
    scene = PlanningScene(model)
    for k, (x, y, z) in enumerate([(0.5, 0.0, 0.4), (0.0, 0.5, 0.6), (-0.4, -0.3, 0.3)]):
        X = np.eye(4)
        X[:3, 3] = (x, y, z)
        scene.apply_world_object(CollisionObjectOperation.ADD, f'box{k}', X,
                                 [(Box(0.3, 0.3, 0.3), np.eye(4))])
    cache = IKCache(max_problems=4)
    tip = model.link_index(TIP)
    rng = np.random.default_rng(20261203)
    inputs = []  # per thread: (q, IK target, IK seed) x PER_THREAD, all distinct
    for _ in range(THREADS):
        rows = []
        for _ in range(PER_THREAD):
            state = RobotState(model)
            state.set_to_random_positions(rng=rng)
            goal = state.copy()
            goal.set_to_random_positions('arm', rng)
            rows.append((state.positions.copy(), goal.get_global_link_transform(TIP).copy()))
        inputs.append(rows)

    def answer(q: np.ndarray, X_target: np.ndarray) -> tuple:
        X = kin.forward_kinematics(model, q)
        J = kin.jacobian(model, q, tip, X_WL=X)
        result = solve_ik(model, IKRequest(
            group='arm', targets=(X_target,), tip_links=(TIP,), seed=q, timeout=10.0,
            options=IKOptions(random_seed=5, max_iterations=500)), cache=cache)
        state = RobotState(model)
        state.set_variable_positions(q)
        return X, J, result.success, result.q, scene.check_collision(state).collision

    serial = [[answer(q, X) for q, X in rows] for rows in inputs]
    assert any(s[4] for rows in serial for s in rows), 'no colliding state among the inputs'
    assert not all(s[4] for rows in serial for s in rows), 'no free state among the inputs'
    got: list[list[tuple]] = [[] for _ in range(THREADS)]

    def work(k: int) -> None:
        for q, X in inputs[k]:
            got[k].append(answer(q, X))

    thread_testing.run_threads(work, THREADS)
    pm, _ = pinocchio_oracle.load(robot.urdf_path)
    import pinocchio

    data = pm.createData()
    frame = pm.getFrameId(TIP)
    for k in range(THREADS):
        for (_, X_target), a, b in zip(inputs[k], serial[k], got[k], strict=True):
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_array_equal(a[1], b[1])
            assert a[2] == b[2] and a[4] == b[4]
            np.testing.assert_array_equal(a[3], b[3])
            if b[2]:
                pinocchio.framesForwardKinematics(
                    pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, b[3]))
                assert np.linalg.norm(data.oMf[frame].translation - X_target[:3, 3]) < 1e-4
    assert sum(s[2] for rows in serial for s in rows) >= 0.9 * THREADS * PER_THREAD
