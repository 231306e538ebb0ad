"""First contact (issue 25): with an empty kernel cache, every service answers within 2 s.

``robot-state-core run`` starts in a child process with ``NUMBA_CACHE_DIR`` pointing at a new,
empty directory (a fresh machine, a new venv, a colcon install). The clock starts when the
child is spawned; ``compute_fk``, ``compute_ik`` and ``check_state_validity`` must each be
answered correctly within :data:`FIRST_ANSWER_S` of it: FK against Pinocchio, the IK solution's
FK (Pinocchio) against the target, validity against a state known to be free and one known to
collide. The kernels meanwhile compile in the node's child (jit/background.py); for the default
robot the test waits for the switch to the compiled kernels and asks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
from moveit_msgs.msg import CollisionObject  # noqa: E402
from moveit_msgs.srv import GetPositionFK, GetPositionIK, GetStateValidity  # noqa: E402
import pinocchio_oracle  # noqa: E402
import robot_corpus  # noqa: E402
import ros_testing  # noqa: E402
from shape_msgs.msg import SolidPrimitive  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.model.robot_model import RobotModel  # noqa: E402
from robot_state_core.ros.moveit_conversions import matrix_to_pose  # noqa: E402
from robot_state_core.state.robot_state import RobotState  # noqa: E402

FIRST_ANSWER_S = 2.0
'''Issue 25: every service answers correctly within this long after the process start.'''
IK_TIMEOUT_S = 1.0
'''The IK requests' own timeout (the interpreted kernels solve these in ~0.03-0.3 s).'''
SWITCH_TIMEOUT_S = 240.0
'''Longest wait for the kernels compiled in the background (~30 s on an idle 2-core machine).'''


@dataclass(frozen=True)
class Robot:
    name: str
    urdf: Path
    srdf: Path
    group: str
    tip: str
    args: tuple[str, ...]
    package_map: dict[str, Path]


def _robot(name: str) -> Robot:
    if name == 'default':
        return Robot(name, default_robot_urdf_path(), default_robot_srdf_path(), 'arm', 'tool0',
                     (), {})
    r = robot_corpus.test_robot(name)
    group, tip = {'panda': ('arm', 'panda_link7'),
                  'talos': ('l_arm', 'wrist_left_ft_tool_link')}[name]
    return Robot(name, r.urdf_path, r.srdf_path, group, tip,
                 ('--urdf', str(r.urdf_path), '--srdf', str(r.srdf_path), '--package-root',
                  str(robot_corpus.example_robot_data_share())), r.package_map)


class _Oracle:
    """Pinocchio's FK for the robot (not our code)."""

    def __init__(self, robot: Robot, model: RobotModel) -> None:
        import pinocchio as pin

        self.pin = pin
        self.model = model
        self.pm, _ = pinocchio_oracle.load(robot.urdf)
        self.data = self.pm.createData()

    def pose(self, q: np.ndarray, link: str) -> np.ndarray:
        self.pin.framesForwardKinematics(self.pm, self.data,
                                         pinocchio_oracle.to_pinocchio_q(self.model, self.pm, q))
        out: np.ndarray = self.data.oMf[self.pm.getFrameId(link)].homogeneous
        return out


def _joint_state(model: RobotModel, q: np.ndarray, names: list[str]) -> dict:
    return {'name': names, 'position': [float(q[model.variable_index(n)]) for n in names]}


def _requests(robot: Robot, model: RobotModel, rng: np.random.Generator):
    """An FK request of a random group state, an IK request of another, validity of both."""
    state = RobotState(model)
    state.set_to_default_values()
    names = list(model.group(robot.group).active_variable_names)
    fk_state, ik_goal = state.copy(), state.copy()
    fk_state.set_to_random_positions(robot.group, rng)
    ik_goal.set_to_random_positions(robot.group, rng)
    fk = GetPositionFK.Request()
    fk.header.frame_id = model.model_frame
    fk.fk_link_names = [robot.tip]
    fk.robot_state.joint_state.name = names
    fk.robot_state.joint_state.position = [float(fk_state.get_variable_position(n))
                                           for n in names]
    fk.robot_state.is_diff = True
    ik = GetPositionIK.Request()
    ik.ik_request.group_name = robot.group
    ik.ik_request.ik_link_name = robot.tip
    ik.ik_request.pose_stamped.header.frame_id = model.model_frame
    X_target = ik_goal.get_global_link_transform(robot.tip)
    ik.ik_request.pose_stamped.pose = matrix_to_pose(X_target)
    ik.ik_request.timeout.nanosec = int(IK_TIMEOUT_S * 1e9) - 1
    validity = GetStateValidity.Request()
    validity.group_name = robot.group
    return fk, fk_state.positions.copy(), ik, X_target, validity


def _full_q(model: RobotModel, joint_state) -> np.ndarray:
    state = RobotState(model)
    state.set_to_default_values()
    state.set_variable_positions(dict(zip(joint_state.name, joint_state.position, strict=True)))
    return state.positions.copy()


def _ask(ros, clients, robot: Robot, model: RobotModel, oracle: _Oracle, seed: int) -> dict:
    """Every service once, answers checked; returns when each correct answer arrived."""
    fk_req, q_fk, ik_req, X_target, validity_req = _requests(robot, model,
                                                             np.random.default_rng(seed))
    futures = {'compute_fk': clients['compute_fk'].call_async(fk_req),
               'compute_ik': clients['compute_ik'].call_async(ik_req),
               'check_state_validity': clients['check_state_validity'].call_async(validity_req)}
    answered: dict[str, float] = {}

    def done() -> bool:
        for name, future in futures.items():
            if name not in answered and future.done():
                answered[name] = time.monotonic()
        return len(answered) == len(futures)

    ros.spin_until(done, timeout=30.0, what='the three answers')
    fk = futures['compute_fk'].result()
    assert fk.error_code.val == 1, fk.error_code
    np.testing.assert_allclose(_pose_matrix(fk.pose_stamped[0].pose),
                               oracle.pose(q_fk, robot.tip), atol=1e-9)
    ik = futures['compute_ik'].result()
    assert ik.error_code.val == 1, ik.error_code
    q_ik = _full_q(model, ik.solution.joint_state)
    X_ik = oracle.pose(q_ik, robot.tip)
    assert np.linalg.norm(X_ik[:3, 3] - X_target[:3, 3]) < 1e-4
    assert np.linalg.norm(X_ik[:3, :3] - X_target[:3, :3]) < 1e-3
    assert futures['check_state_validity'].result().valid is not None
    return answered


def _pose_matrix(pose) -> np.ndarray:
    from robot_state_core.spatial.transforms import pose_from_xyz_quat_xyzw

    p, o = pose.position, pose.orientation
    out: np.ndarray = pose_from_xyz_quat_xyzw([p.x, p.y, p.z], [o.x, o.y, o.z, o.w])
    return out


@pytest.mark.parametrize('name', ['default', 'panda', 'talos'])
def test_services_answer_within_two_seconds_of_a_cold_start(ros, tmp_path, name) -> None:
    """Empty kernel cache: FK, IK and validity answered correctly ≤ 2 s after the spawn."""
    robot = _robot(name)
    model = RobotModel.from_urdf_file(robot.urdf, robot.srdf, package_map=robot.package_map)
    oracle = _Oracle(robot, model)
    node = ros.node(f'first_start_client_{name}')
    clients = {'compute_fk': node.create_client(GetPositionFK, 'compute_fk'),
               'compute_ik': node.create_client(GetPositionIK, 'compute_ik'),
               'check_state_validity': node.create_client(GetStateValidity,
                                                          'check_state_validity')}
    cache = tmp_path / 'numba'
    cache.mkdir()
    start, spawned = time.monotonic(), time.time()
    child = ros_testing.ChildProcess(['-m', 'robot_state_core', 'run', *robot.args],
                                     env={'NUMBA_CACHE_DIR': str(cache)})
    try:
        for client in clients.values():
            ros.wait_for_service(client, timeout=30.0)
        discovered = time.monotonic() - start
        answered = _ask(ros, clients, robot, model, oracle, seed=1)
        late = {k: round(t - start, 2) for k, t in answered.items() if t - start > FIRST_ANSWER_S}
        if late:
            child.stop()
            pytest.fail(f'answered later than {FIRST_ANSWER_S} s after the start: {late}; '
                        f'spawned at {spawned:.3f} (wall clock), services discovered after '
                        f'{discovered:.2f} s; the node printed '
                        f'{child.lines}')
        if name == 'default':  # the switch to the compiled kernels, and the answers after it
            line = child.wait_for_line('compiled kernels in use after', timeout=SWITCH_TIMEOUT_S)
            assert 'compiled here' not in line, line  # every kernel came from the child
            files = {p: p.stat().st_mtime_ns for p in cache.rglob('*') if p.is_file()}
            assert any(p.suffix == '.nbc' for p in files), 'nothing compiled into the cache'
            _ask(ros, clients, robot, model, oracle, seed=2)
            after = {p: p.stat().st_mtime_ns for p in cache.rglob('*') if p.is_file()}
            assert after == files, 'a request compiled a kernel the workload did not'
    finally:
        code = child.stop()
    assert code == 0, child.lines


def test_a_box_on_the_tool_makes_the_state_invalid_during_a_cold_start(ros, tmp_path) -> None:
    """Validity with the interpreted kernels: free at 'ready', colliding with a box on tool0."""
    cache = tmp_path / 'numba'
    cache.mkdir()
    child = ros_testing.ChildProcess(['-m', 'robot_state_core', 'run'],
                                     env={'NUMBA_CACHE_DIR': str(cache)})
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    state = RobotState(model)
    state.set_to_default_values('arm', 'ready')
    node = ros.node('first_start_validity')
    client = node.create_client(GetStateValidity, 'check_state_validity')
    objects = node.create_publisher(CollisionObject, 'collision_object', 10)
    try:
        ros.wait_for_service(client, timeout=30.0)
        request = GetStateValidity.Request()
        request.group_name = 'arm'
        request.robot_state.joint_state.name = list(model.variable_names[3:])
        request.robot_state.joint_state.position = [float(v) for v in state.positions[3:]]
        request.robot_state.is_diff = True
        future = client.call_async(request)
        ros.spin_until(future.done, timeout=10.0, what='validity')
        assert future.result().valid
        ros.wait_for_subscribers(objects)
        box = CollisionObject()
        box.header.frame_id = model.model_frame  # where tool0 is in the requested state
        box.id = 'box'
        box.primitives = [SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[0.1, 0.1, 0.1])]
        box.primitive_poses = [matrix_to_pose(state.get_global_link_transform('tool0'))]
        box.operation = CollisionObject.ADD
        objects.publish(box)

        def invalid() -> bool:
            f = client.call_async(request)
            ros.spin_until(f.done, timeout=10.0, what='validity')
            return not f.result().valid

        ros.spin_until(invalid, timeout=10.0, what='the box to make the state invalid')
    finally:
        code = child.stop()
    assert code == 0, child.lines
