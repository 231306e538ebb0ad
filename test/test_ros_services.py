"""compute_ik / compute_fk / check_state_validity over real DDS (moveit_msgs types).

The server node runs in process on its own CallbackGroupExecutor thread (compute_ik on a worker
thread, as the entry points run it); clients are plain rclpy. Every MoveIt error code the
services produce is exercised.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
pytest.importorskip('fcl')
from geometry_msgs.msg import PoseStamped  # noqa: E402
from moveit_msgs.msg import (  # noqa: E402
    AttachedCollisionObject,
    CollisionObject,
    JointConstraint,
    MoveItErrorCodes,
)
from moveit_msgs.srv import GetPositionFK, GetPositionIK, GetStateValidity  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from shape_msgs.msg import SolidPrimitive  # noqa: E402

from robot_state_core import kinematics as kin  # noqa: E402
from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.ros.group_executor import CallbackGroupExecutor  # noqa: E402
from robot_state_core.ros.moveit_conversions import matrix_to_pose  # noqa: E402
from robot_state_core.ros.state_server_node import StateServerNode  # noqa: E402

CALL_TIMEOUT = 20.0


@pytest.fixture
def server(ros):
    node = StateServerNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=default_robot_urdf_path().read_text()),
        Parameter('robot_description_semantic', value=default_robot_srdf_path().read_text()),
        # the collision-aware whole-body solve below asks for 2 s (default cap 1 s)
        Parameter('max_ik_timeout', value=5.0)])
    executor = CallbackGroupExecutor(node.worker_callback_groups, context=ros.context)
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield node
    executor.shutdown(timeout_sec=2.0)
    node.destroy_node()


def _call(ros, client, request):
    ros.wait_for_service(client)
    future = client.call_async(request)
    ros.spin_until(future.done, timeout=CALL_TIMEOUT, what=client.srv_name)
    return future.result()


def _ready_pose(server, link: str = 'tool0') -> np.ndarray:
    state = server.scene.current_state.copy()
    state.set_to_default_values('arm', 'ready')
    return state.get_global_link_transform(link)


def _ik_request(server, X, link='', group='arm', frame='world', avoid=False):
    req = GetPositionIK.Request()
    req.ik_request.group_name = group
    req.ik_request.ik_link_name = link
    req.ik_request.pose_stamped = PoseStamped()
    req.ik_request.pose_stamped.header.frame_id = frame
    req.ik_request.pose_stamped.pose = matrix_to_pose(X)
    req.ik_request.avoid_collisions = avoid
    req.ik_request.timeout.sec = 0
    req.ik_request.timeout.nanosec = 200_000_000
    return req


def test_compute_ik_success_and_error_codes(ros, server) -> None:
    """Every compute_ik error code, each with message and source filled.

    SUCCESS (checked by FK), INVALID_GROUP_NAME, INVALID_LINK_NAME, FRAME_TRANSFORM_FAILURE,
    INVALID_ROBOT_STATE and NO_IK_SOLUTION.
    """
    client = ros.node('ik_client').create_client(GetPositionIK, 'compute_ik')
    X = _ready_pose(server)
    ok = _call(ros, client, _ik_request(server, X))
    assert ok.error_code.val == MoveItErrorCodes.SUCCESS
    assert ok.error_code.source == 'robot_state_core'
    names = list(ok.solution.joint_state.name)
    model = server.model
    q = model.default_positions.copy()
    q[[model.variable_index(n) for n in names]] = ok.solution.joint_state.position
    model.apply_mimic(q)
    np.testing.assert_allclose(kin.forward_kinematics(model, q)[model.link_index('tool0')], X,
                               atol=1e-4)
    cases = [
        (_ik_request(server, X, group='no_group'), MoveItErrorCodes.INVALID_GROUP_NAME),
        (_ik_request(server, X, link='no_link'), MoveItErrorCodes.INVALID_LINK_NAME),
        (_ik_request(server, X, frame='some_camera'), MoveItErrorCodes.FRAME_TRANSFORM_FAILURE),
    ]
    bad_state = _ik_request(server, X)
    bad_state.ik_request.robot_state.joint_state.name = ['bogus_joint']
    bad_state.ik_request.robot_state.joint_state.position = [0.0]
    cases.append((bad_state, MoveItErrorCodes.INVALID_ROBOT_STATE))
    far = X.copy()
    far[:3, 3] += [5.0, 0.0, 0.0]
    cases.append((_ik_request(server, far), MoveItErrorCodes.NO_IK_SOLUTION))
    mismatch = _ik_request(server, X)
    mismatch.ik_request.ik_link_names = ['tool0']
    mismatch.ik_request.pose_stamped_vector = [mismatch.ik_request.pose_stamped] * 2
    cases.append((mismatch, MoveItErrorCodes.INVALID_LINK_NAME))
    for request, code in cases:
        response = _call(ros, client, request)
        assert response.error_code.val == code, response.error_code.message
        assert response.error_code.message
        assert response.error_code.source == 'robot_state_core'


def test_compute_ik_pose_in_a_link_frame_and_multi_tip(ros, server) -> None:
    """A pose expressed in a robot link frame works; two tips are solved jointly."""
    client = ros.node('ik_client2').create_client(GetPositionIK, 'compute_ik')
    X = _ready_pose(server)
    state = server.scene.current_state.copy()
    X_WB = state.get_global_link_transform('base_link')
    in_base = _ik_request(server, np.linalg.inv(X_WB) @ X, frame='base_link')
    assert _call(ros, client, in_base).error_code.val == MoveItErrorCodes.SUCCESS
    multi = _ik_request(server, X)
    tcp = _ready_pose(server, 'tcp')
    multi.ik_request.ik_link_names = ['tool0', 'tcp']
    poses = []
    for pose in (X, tcp):
        ps = PoseStamped()
        ps.header.frame_id = 'world'
        ps.pose = matrix_to_pose(pose)
        poses.append(ps)
    multi.ik_request.pose_stamped_vector = poses
    assert _call(ros, client, multi).error_code.val == MoveItErrorCodes.SUCCESS


def test_compute_ik_link_frame_is_resolved_in_the_request_state(ros, server) -> None:
    """A link-frame pose is placed with the request's robot_state, not the current state.

    The request moves the planar base (the link frame moves with it); the solution, checked
    by core FK of the returned state, puts tool0 at ``X_WB(request state) @ X_BT``. The same
    target in the model frame is solved where it is given (no FK of the request needed).
    """
    client = ros.node('ik_client3').create_client(GetPositionIK, 'compute_ik')
    model = server.model
    X_WT = _ready_pose(server)
    moved = server.scene.current_state.copy()
    moved.set_variable_positions({'base_joint/x': 0.4, 'base_joint/y': -0.3,
                                  'base_joint/theta': 0.7})
    X_WB = moved.get_global_link_transform('base_link')
    assert not np.allclose(X_WB, np.eye(4))
    for frame, target, expected in (('base_link', X_WT, X_WB @ X_WT), ('world', X_WT, X_WT)):
        req = _ik_request(server, target, frame=frame)
        req.ik_request.robot_state.joint_state.name = list(model.variable_names)
        req.ik_request.robot_state.joint_state.position = moved.positions.tolist()
        res = _call(ros, client, req)
        assert res.error_code.val == MoveItErrorCodes.SUCCESS, res.error_code.message
        q = moved.positions.copy()
        sol = res.solution.joint_state
        q[[model.variable_index(n) for n in sol.name]] = sol.position
        base = res.solution.multi_dof_joint_state
        assert list(base.joint_names) == ['base_joint']
        t = base.transforms[0].translation
        np.testing.assert_allclose([t.x, t.y], [0.4, -0.3], atol=1e-12)  # not in group 'arm'
        model.apply_mimic(q)
        np.testing.assert_allclose(kin.forward_kinematics(model, q)[model.link_index('tool0')],
                                   expected, atol=1e-4)


def test_compute_ik_without_robot_state_starts_from_the_current_state(ros, server) -> None:
    """An empty ``robot_state`` means the current state (MoveIt), also as it changes.

    The current state's base moves between requests (as joint_states would move it); each
    answer carries that base (variables outside group 'arm' are the current ones) and puts
    tool0 on the target, checked by core FK of the returned positions with that base.
    """
    client = ros.node('ik_client_current').create_client(GetPositionIK, 'compute_ik')
    model = server.model
    for x, y, theta in ((0.0, 0.0, 0.0), (0.5, -0.2, 0.9), (0.5, -0.2, 0.9), (-1.0, 0.3, -2.0)):
        server._on_joint_state(JointState(
            name=['base_joint/x', 'base_joint/y', 'base_joint/theta'], position=[x, y, theta]))
        current = server.scene.current_state.copy()
        ready = current.copy()  # the arm's 'ready' pose, reachable from this base
        ready.set_to_default_values('arm', 'ready')
        X_WT = ready.get_global_link_transform('tool0')
        res = _call(ros, client, _ik_request(server, X_WT))
        assert res.error_code.val == MoveItErrorCodes.SUCCESS, res.error_code.message
        t = res.solution.multi_dof_joint_state.transforms[0]
        np.testing.assert_allclose([t.translation.x, t.translation.y], [x, y], atol=1e-12)
        assert math.isclose(2.0 * math.atan2(t.rotation.z, t.rotation.w), theta,
                            abs_tol=1e-12)
        q = current.positions.copy()
        sol = res.solution.joint_state
        q[[model.variable_index(n) for n in sol.name]] = sol.position
        model.apply_mimic(q)
        np.testing.assert_allclose(kin.forward_kinematics(model, q)[model.link_index('tool0')],
                                   X_WT, atol=1e-4)


def test_compute_fk_codes(ros, server) -> None:
    """Poses of named links in the header frame; unknown links → INVALID_LINK_NAME."""
    client = ros.node('fk_client').create_client(GetPositionFK, 'compute_fk')
    req = GetPositionFK.Request()
    req.header.frame_id = 'base_link'
    req.fk_link_names = ['tool0', 'camera_link']
    res = _call(ros, client, req)
    assert res.error_code.val == MoveItErrorCodes.SUCCESS
    assert list(res.fk_link_names) == ['tool0', 'camera_link']
    assert res.pose_stamped[0].header.frame_id == 'base_link'
    req.fk_link_names = ['tool0', 'nope']
    assert _call(ros, client, req).error_code.val == MoveItErrorCodes.INVALID_LINK_NAME
    req.fk_link_names = []
    assert _call(ros, client, req).error_code.val == MoveItErrorCodes.INVALID_LINK_NAME
    req.fk_link_names = ['tool0']
    req.header.frame_id = 'elsewhere'
    assert _call(ros, client, req).error_code.val == MoveItErrorCodes.FRAME_TRANSFORM_FAILURE


def _box_object(object_id: str, X, size=(0.2, 0.2, 0.2), op=CollisionObject.ADD):
    obj = CollisionObject()
    obj.header.frame_id = 'world'
    obj.id = object_id
    obj.pose = matrix_to_pose(X)
    prim = SolidPrimitive(type=SolidPrimitive.BOX, dimensions=list(size))
    obj.primitives = [prim]
    obj.primitive_poses = [matrix_to_pose(np.eye(4))]
    obj.operation = op
    return obj


def test_validity_with_world_and_attached_objects(ros, server) -> None:
    """World and attached objects make a state invalid, with typed contacts.

    A world box at the gripper gives WORLD_OBJECT contacts; an attached object touching a link
    not in touch_links gives ROBOT_ATTACHED contacts.
    """
    client = ros.node('valid_client').create_client(GetStateValidity, 'check_state_validity')
    pub_node = ros.node('scene_pub')
    objects = pub_node.create_publisher(CollisionObject, 'collision_object', 100)
    attached = pub_node.create_publisher(AttachedCollisionObject, 'attached_collision_object', 100)
    ros.wait_for_subscribers(objects)
    ros.wait_for_subscribers(attached)
    req = GetStateValidity.Request()
    req.group_name = 'arm'
    assert _call(ros, client, req).valid  # default state, empty world
    X = server.scene.current_state.get_global_link_transform('tool0')
    objects.publish(_box_object('box', X))
    ros.spin_until(lambda: 'box' in server.scene.world, what='world box')
    res = _call(ros, client, req)
    assert not res.valid
    assert res.contacts
    assert any(c.WORLD_OBJECT in (c.body_type_1, c.body_type_2) for c in res.contacts)
    assert all(c.header.frame_id == 'world' for c in res.contacts)
    objects.publish(_box_object('box', np.eye(4), op=CollisionObject.REMOVE))
    ros.spin_until(lambda: 'box' not in server.scene.world, what='box removed')
    assert _call(ros, client, req).valid
    aco = AttachedCollisionObject()
    aco.link_name = 'tool0'
    X_big = server.scene.current_state.get_global_link_transform('tool0')
    aco.object = _box_object('tool', X_big, size=(0.05, 0.05, 1.2))
    aco.touch_links = ['tool0', 'gripper_palm_link', 'wrist_roll_link']
    attached.publish(aco)
    ros.spin_until(lambda: server.scene.current_state.has_attached_body('tool'),
                   what='attached body')
    res = _call(ros, client, req)
    assert not res.valid
    assert any(c.ROBOT_ATTACHED in (c.body_type_1, c.body_type_2) for c in res.contacts)
    # constraints are reported one result each
    req2 = GetStateValidity.Request()
    req2.constraints.joint_constraints = [JointConstraint(
        joint_name='elbow_joint', position=0.0, tolerance_above=0.1, tolerance_below=0.1,
        weight=1.0)]
    res2 = _call(ros, client, req2)
    assert len(res2.constraint_result) == 1


def test_collision_aware_ik_avoids_a_world_box(ros, server) -> None:
    """With avoid_collisions, the whole-body solution stays clear of an obstacle.

    The box sits where the arm's own 'ready' solution would put the forearm.
    """
    client = ros.node('ik_client3').create_client(GetPositionIK, 'compute_ik')
    pub = ros.node('box_pub').create_publisher(CollisionObject, 'collision_object', 100)
    ros.wait_for_subscribers(pub)
    X = _ready_pose(server)
    state = server.scene.current_state.copy()
    state.set_to_default_values('arm', 'ready')
    X_elbow = state.get_global_link_transform('forearm_link')
    pub.publish(_box_object('obstacle', X_elbow, size=(0.12, 0.12, 0.12)))
    ros.spin_until(lambda: 'obstacle' in server.scene.world, what='obstacle')
    request = _ik_request(server, X, group='whole_body', link='tool0', avoid=True)
    request.ik_request.timeout.sec = 2
    res = _call(ros, client, request)
    assert res.error_code.val == MoveItErrorCodes.SUCCESS, res.error_code.message
    solved = server.scene.current_state.copy()
    solved.set_variable_positions(list(res.solution.joint_state.name),
                                  np.array(res.solution.joint_state.position))
    for name, t in zip(res.solution.multi_dof_joint_state.joint_names,
                       res.solution.multi_dof_joint_state.transforms, strict=True):
        from robot_state_core.ros.moveit_conversions import transform_to_matrix

        solved.set_joint_pose(name, transform_to_matrix(t))
    assert server.scene.is_state_valid(solved, 'whole_body').valid
    np.testing.assert_allclose(solved.get_global_link_transform('tool0'), X, atol=1e-3)
