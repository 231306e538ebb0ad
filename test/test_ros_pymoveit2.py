"""pymoveit2 (PyPI 5.0.0, the Python client most ROS 2 users drive MoveIt with) against us.

``robot-state-core run`` serves the embedded robot in a child process; this process runs a
plain rclpy node with pymoveit2's ``MoveIt2`` on it (spun by its own executor thread, as
pymoveit2's examples do) and publishes the robot's joint states. Each call is the one
pymoveit2's README and examples show, and each answer is checked independently: FK and IK
poses by Pinocchio, scene changes by a ``check_state_validity`` that must change accordingly
(and by ``get_planning_scene``). Planning and execution are not ours: pymoveit2's calls get a
clear refusal at once (docs/decisions.md CP5), never a hang.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
pymoveit2 = pytest.importorskip('pymoveit2')
from moveit_msgs.srv import GetPlanningScene, GetStateValidity  # noqa: E402
import pinocchio_oracle  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402
import ros_testing  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.model.robot_model import RobotModel  # noqa: E402
from robot_state_core.spatial.transforms import quat_xyzw_from_rotation  # noqa: E402
from robot_state_core.state.robot_state import RobotState  # noqa: E402

ARM = ['shoulder_pan_joint', 'shoulder_lift_joint', 'elbow_joint', 'forearm_roll_joint',
       'wrist_pitch_joint', 'wrist_roll_joint']
CALL_TIMEOUT = 10.0


def _pin_pose(model: RobotModel, q: np.ndarray, link: str) -> np.ndarray:
    import pinocchio as pin

    pm, _ = pinocchio_oracle.load(default_robot_urdf_path())
    data = pm.createData()
    pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
    out: np.ndarray = data.oMf[pm.getFrameId(link)].homogeneous
    return out


def _wait(predicate, timeout: float = CALL_TIMEOUT, what: str = 'condition') -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout} s waiting for {what}')
        time.sleep(0.02)


class _Client:
    """The test's node: pymoveit2's MoveIt2, joint states, and our own checking clients."""

    def __init__(self, ros, model: RobotModel, state: RobotState) -> None:
        self.node = rclpy.create_node('pymoveit2_user', context=ros.context)
        self.executor = MultiThreadedExecutor(3, context=ros.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()
        self.model, self.state = model, state
        self.joints = self.node.create_publisher(JointState, 'joint_states', 10)
        self.node.create_timer(0.05, self._publish_joint_state)
        self.validity = self.node.create_client(GetStateValidity, 'check_state_validity')
        self.scene = self.node.create_client(GetPlanningScene, 'get_planning_scene')
        self.moveit2 = pymoveit2.MoveIt2(node=self.node, joint_names=ARM,
                                         base_link_name='world', end_effector_name='tool0',
                                         group_name='arm')

    def _publish_joint_state(self) -> None:
        msg = JointState()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        names = [n for n in self.model.variable_names if '/' not in n]
        msg.name = names
        msg.position = [float(self.state.get_variable_position(n)) for n in names]
        self.joints.publish(msg)

    def call(self, client, request):
        assert client.wait_for_service(timeout_sec=CALL_TIMEOUT), client.srv_name
        future = client.call_async(request)
        _wait(future.done, what=client.srv_name)
        return future.result()

    def valid(self) -> bool:
        request = GetStateValidity.Request()
        request.group_name = 'arm'
        return bool(self.call(self.validity, request).valid)

    def world(self) -> set[str]:
        scene = self.call(self.scene, GetPlanningScene.Request()).scene
        return {o.id for o in scene.world.collision_objects}

    def attached(self) -> set[str]:
        scene = self.call(self.scene, GetPlanningScene.Request()).scene
        return {a.object.id for a in scene.robot_state.attached_collision_objects}

    def close(self) -> None:
        # The executor first: destroying an action client while a spinning thread waits on it
        # raises in that thread (rcl: "action client pointer is invalid").
        self.executor.shutdown(timeout_sec=2.0)
        self.thread.join(timeout=5.0)
        self.moveit2.destroy()
        self.node.destroy_node()


@pytest.fixture
def client(ros):
    child = ros_testing.ChildProcess(['-m', 'robot_state_core', 'run', '--duration', '120'])
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    state = RobotState(model)
    state.set_to_default_values('arm', 'ready')
    user = None
    try:
        child.wait_for_line("published robot '", timeout=60)
        # pymoveit2's IK and Cartesian calls use MoveIt's short default timeouts: against the
        # compiled kernels (a first start serves interpreted ones for ~30 s, test_ros_first_start).
        child.wait_for_line('compiled kernels in use', timeout=240)
        user = _Client(ros, model, state)
        yield user
    finally:
        if user is not None:
            user.close()
        assert child.stop() == 0, child.lines


def test_pymoveit2_kinematics(client) -> None:
    """MoveIt2.compute_fk and compute_ik: poses checked by Pinocchio."""
    model, state = client.model, client.state
    _wait(lambda: client.moveit2.joint_state is not None, what='a joint state at pymoveit2')
    q_arm = [float(state.get_variable_position(n)) + 0.1 for n in ARM]
    pose = client.moveit2.compute_fk(joint_state=q_arm, timeout_sec=CALL_TIMEOUT)
    assert pose is not None and pose.header.frame_id == 'world'
    q = state.positions.copy()
    q[[model.variable_index(n) for n in ARM]] = q_arm
    expected = _pin_pose(model, q, 'tool0')
    p = pose.pose.position
    np.testing.assert_allclose([p.x, p.y, p.z], expected[:3, 3], atol=1e-9)

    target = _pin_pose(model, state.positions, 'tool0')
    target[:3, 3] += (0.05, 0.02, -0.03)
    quat = quat_xyzw_from_rotation(target[:3, :3])
    solution = client.moveit2.compute_ik(position=tuple(target[:3, 3]), quat_xyzw=tuple(quat),
                                         timeout_sec=CALL_TIMEOUT)
    assert solution is not None
    q_ik = state.positions.copy()
    for name, value in zip(solution.name, solution.position, strict=True):
        if model.has_variable(name):
            q_ik[model.variable_index(name)] = value
    model.apply_mimic(q_ik)
    np.testing.assert_allclose(_pin_pose(model, q_ik, 'tool0')[:3, 3], target[:3, 3],
                               atol=1e-4)


def test_pymoveit2_collision_objects(client, tmp_path) -> None:
    """pymoveit2's scene calls change the scene as our services see it.

    add_collision_box/sphere/cylinder/mesh, move_collision, remove_collision_object,
    attach/detach, allow_collisions and clear_all_collision_objects, each followed by
    check_state_validity and get_planning_scene.
    """
    import trimesh

    m = client.moveit2
    X = _pin_pose(client.model, client.state.positions, 'tool0')
    at_tool = tuple(float(v) for v in X[:3, 3])
    identity = (0.0, 0.0, 0.0, 1.0)
    far = (3.0, 3.0, 0.5)
    assert client.valid()

    m.add_collision_box('box', size=(0.1, 0.1, 0.1), position=at_tool, quat_xyzw=identity,
                        frame_id='world')
    _wait(lambda: not client.valid(), what='the box at the tool')
    m.move_collision('box', position=far, quat_xyzw=identity, frame_id='world')
    _wait(client.valid, what='the box moved away')
    m.remove_collision_object('box')
    _wait(lambda: 'box' not in client.world(), what='the box removed')

    mesh_file = tmp_path / 'cube.stl'
    trimesh.creation.box(extents=(0.1, 0.1, 0.1)).export(mesh_file)
    for add, name in ((lambda: m.add_collision_sphere('ball', radius=0.06, position=at_tool,
                                                      quat_xyzw=identity, frame_id='world'),
                       'ball'),
                      (lambda: m.add_collision_cylinder('can', height=0.1, radius=0.05,
                                                        position=at_tool, quat_xyzw=identity,
                                                        frame_id='world'), 'can'),
                      (lambda: m.add_collision_mesh(str(mesh_file), 'cube', position=at_tool,
                                                    quat_xyzw=identity, frame_id='world'),
                       'cube')):
        add()
        _wait(lambda: not client.valid(), what=f'the {name} at the tool')
        m.remove_collision_object(name)
        _wait(client.valid, what=f'the {name} removed')

    # attach a world object to the gripper (pymoveit2 passes no touch links: MoveIt then
    # checks the body against the link it hangs on too)
    m.add_collision_box('tool', size=(0.02, 0.02, 0.02), position=far, quat_xyzw=identity,
                        frame_id='world')
    _wait(lambda: 'tool' in client.world(), what='the tool in the world')
    m.attach_collision_object('tool', link_name='tool0', touch_links=['tool0'])
    _wait(lambda: 'tool' in client.attached(), what='the tool attached')
    assert 'tool' not in client.world()
    m.detach_collision_object('tool')
    _wait(lambda: 'tool' in client.world() and not client.attached(), what='the tool detached')

    m.add_collision_box('wall', size=(0.1, 0.1, 0.1), position=at_tool, quat_xyzw=identity,
                        frame_id='world')
    _wait(lambda: not client.valid(), what='the wall at the tool')
    future = m.allow_collisions('wall', True)
    assert future is not None
    _wait(future.done, what='allow_collisions')
    assert m.process_allow_collision_future(future)
    assert client.valid()  # the wall may now touch every link
    future = m.clear_all_collision_objects()
    assert future is not None
    _wait(future.done, what='clear_all_collision_objects')
    assert m.process_clear_all_collision_objects_future(future)
    assert client.world() == set()


def test_pymoveit2_cartesian_plan(client) -> None:
    """MoveIt2.plan(cartesian=True): compute_cartesian_path reaches the target.

    The last point reaches the target (Pinocchio FK), straight from the current state.
    """
    model, state = client.model, client.state
    m = client.moveit2
    _wait(lambda: m.joint_state is not None, what='a joint state at pymoveit2')
    target = _pin_pose(model, state.positions, 'tool0')
    target[:3, 3] += (0.05, 0.0, -0.02)
    quat = quat_xyzw_from_rotation(target[:3, :3])
    trajectory = m.plan(position=tuple(target[:3, 3]), quat_xyzw=tuple(quat), cartesian=True,
                        cartesian_max_step=0.01, timeout_sec=CALL_TIMEOUT)
    assert trajectory is not None and len(trajectory.points) >= 6
    q = state.positions.copy()
    for name, value in zip(trajectory.joint_names, trajectory.points[-1].positions,
                           strict=True):
        q[model.variable_index(name)] = value
    np.testing.assert_allclose(_pin_pose(model, q, 'tool0')[:3, 3], target[:3, 3], atol=1e-4)


def test_pymoveit2_planning_is_refused_at_once(client) -> None:
    """Planning and execution are not ours: refused within 2 s, never a hang.

    plan() (GetMotionPlan: PLANNING_FAILED with our message) and, through the MoveGroup action
    (use_move_group_action), move_to_configuration() + wait_until_executed() (goal rejected).
    """
    m = client.moveit2
    _wait(lambda: m.joint_state is not None, what='a joint state at pymoveit2')
    assert m._plan_kinematic_path_service.wait_for_service(timeout_sec=CALL_TIMEOUT)  # found
    start = time.monotonic()
    trajectory = m.plan(joint_positions=[0.0] * len(ARM), timeout_sec=CALL_TIMEOUT)
    assert trajectory is None
    assert time.monotonic() - start < 2.0
    # On a node and executor of its own, stopped before the action client is destroyed.
    node = rclpy.create_node('pymoveit2_action_user', context=client.node.context)
    executor = MultiThreadedExecutor(2, context=client.node.context)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    action = pymoveit2.MoveIt2(node=node, joint_names=ARM, base_link_name='world',
                               end_effector_name='tool0', group_name='arm',
                               use_move_group_action=True)
    try:
        _wait(lambda: action.joint_state is not None, what='a joint state (action client)')
        start = time.monotonic()
        action.move_to_configuration([0.0] * len(ARM), timeout_sec=CALL_TIMEOUT)
        assert action.wait_until_executed(timeout_sec=CALL_TIMEOUT) is False
        # (includes discovering the action server, a new client: up to ~3 s of DDS discovery)
        assert time.monotonic() - start < CALL_TIMEOUT / 2
        assert 'reject' in (action.last_failure() or '').lower()
    finally:
        executor.shutdown(timeout_sec=2.0)
        spinner.join(timeout=5.0)
        action.destroy()
        node.destroy_node()
