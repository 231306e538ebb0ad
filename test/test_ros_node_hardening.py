"""Issue 10 node items 3-6, in process over real DDS.

Description swaps, callback groups and the IK timeout cap, specific MoveIt error codes, bounded
logs.

The nodes run in this process (the service node on its own CallbackGroupExecutor thread with
compute_ik's group on a worker thread, as in ``robot_state_core_all``); clients and publishers
are plain rclpy. Expected poses come from the URDF text (origins written below), not from our
kinematics.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
pytest.importorskip('fcl')
from geometry_msgs.msg import PoseStamped  # noqa: E402
from moveit_msgs.msg import (  # noqa: E402
    CollisionObject,
    Constraints,
    JointConstraint,
    MoveItErrorCodes,
    OrientationConstraint,
    PositionConstraint,
)
from moveit_msgs.srv import GetPositionFK, GetPositionIK, GetStateValidity  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from shape_msgs.msg import SolidPrimitive  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.ros.group_executor import CallbackGroupExecutor  # noqa: E402
from robot_state_core.ros.log_limits import LOG_LINE_LIMIT, RESPONSE_MESSAGE_LIMIT  # noqa: E402
from robot_state_core.ros.moveit_conversions import matrix_to_pose  # noqa: E402
from robot_state_core.ros.state_publisher_node import StatePublisherNode  # noqa: E402
from robot_state_core.ros.state_server_node import StateServerNode  # noqa: E402

CALL_TIMEOUT = 20.0
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
ARM = '''<robot name="arm">
  <link name="base"/><link name="upper"/><link name="camera"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="camera_mount" type="fixed"><parent link="upper"/><child link="camera"/>
    <origin xyz="0.2 0 0.1"/></joint>
</robot>'''
#: The same arm with a new link ``lidar`` 0.3 m above ``upper``.
ARM_WITH_LIDAR = ARM.replace('<robot name="arm">', '<robot name="arm_lidar">').replace(
    '</robot>', '''  <link name="lidar"/>
  <joint name="lidar_mount" type="fixed"><parent link="upper"/><child link="lidar"/>
    <origin xyz="0 0 0.3"/></joint>
</robot>''')


def _with_mesh(path: str) -> str:
    """ARM_WITH_LIDAR renamed, whose lidar has a collision mesh at ``path``."""
    return ARM_WITH_LIDAR.replace('arm_lidar', 'arm_mesh').replace(
        '<link name="lidar"/>', f'<link name="lidar"><collision><geometry><mesh filename='
                                f'"file://{path}"/></geometry></collision></link>')


class _Services:
    """A service node spun by its own executor in a thread, as the entry points spin it.

    :class:`CallbackGroupExecutor` with the node's ``worker_callback_groups`` (compute_ik) on a
    worker thread; FK, validity and the topics inline in the spinning thread.
    """

    def __init__(self, ros, node: StateServerNode) -> None:
        self.node = node
        self.executor = CallbackGroupExecutor(node.worker_callback_groups,
                                              context=ros.context)
        self.executor.add_node(node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=2.0)
        self.node.destroy_node()


@pytest.fixture
def all_in_one(ros):
    """robot_state_core_all in process: the publisher (test executor) and its service node."""
    publisher = ros.add(StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=ARM)]))
    server = StateServerNode(model=publisher.model, context=ros.context)
    publisher.add_model_listener(server.model_listener)
    services = _Services(ros, server)
    yield publisher, server
    services.close()


@pytest.fixture
def default_server(ros):
    """The service node on the default robot (from its parameters), max_ik_timeout 1 s."""
    node = StateServerNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=default_robot_urdf_path().read_text()),
        Parameter('robot_description_semantic', value=default_robot_srdf_path().read_text())])
    services = _Services(ros, node)
    yield node
    services.close()


def _call(ros, client, request, timeout: float = CALL_TIMEOUT):
    ros.wait_for_service(client)
    future = client.call_async(request)
    ros.spin_until(future.done, timeout=timeout, what=client.srv_name)
    return future.result()


def _fk(ros, client, link: str, frame: str = 'base'):
    request = GetPositionFK.Request(fk_link_names=[link])
    request.header.frame_id = frame
    return _call(ros, client, request)


# ---------------------------------------------------------------------------- item 3


def test_all_in_one_services_switch_with_the_description(ros, all_in_one, tmp_path) -> None:
    """Issue 10 node item 3: after a description change compute_fk knows the new links.

    Before: /tf_static had the new links but compute_fk on one answered INVALID_LINK_NAME
    (-18): the services kept the start-up model. Now both nodes switch together. A description
    whose collision mesh is not a mesh is accepted as MoveIt accepts it (decision V8): the
    element is left out with one warning naming the link and the URI.
    """
    publisher, server = all_in_one
    client = ros.node('fk_client').create_client(GetPositionFK, 'compute_fk')
    assert _fk(ros, client, 'lidar').error_code.val == MoveItErrorCodes.INVALID_LINK_NAME
    result = publisher.set_parameters([Parameter('robot_description',
                                                 value=ARM_WITH_LIDAR)])[0]
    assert result.successful, result.reason
    assert server.model.name == publisher.robot_name == 'arm_lidar'
    response = _fk(ros, client, 'lidar')
    assert response.error_code.val == MoveItErrorCodes.SUCCESS, response.error_code.message
    p = response.pose_stamped[0].pose.position
    assert (p.x, p.y, p.z) == pytest.approx((0.0, 0.0, 0.8))  # 0.5 + 0.3 at shoulder 0
    not_a_mesh = tmp_path / 'lidar.stl'
    not_a_mesh.write_text('this is not a mesh\n', encoding='utf-8')
    accepted = publisher.set_parameters([Parameter('robot_description',
                                                   value=_with_mesh(str(not_a_mesh)))])[0]
    assert accepted.successful, accepted.reason
    assert server.model.name == publisher.robot_name == 'arm_mesh'
    geometry = server.scene.geometry
    assert geometry.skipped == ('lidar/0',) and len(geometry.unreadable) == 1
    assert "link 'lidar'" in geometry.unreadable[0] and 'lidar.stl' in geometry.unreadable[0]
    assert _fk(ros, client, 'lidar').error_code.val == MoveItErrorCodes.SUCCESS
    validity = ros.node('validity_client').create_client(GetStateValidity,
                                                         'check_state_validity')
    assert _call(ros, validity, GetStateValidity.Request()).valid


def test_separate_server_follows_the_description_topic(ros, tmp_path) -> None:
    """A separate robot_state_server follows robot_description; a bad one keeps the model.

    A description with an unreadable collision mesh is not bad (decision V8): it is served.
    """
    server = StateServerNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=ARM)])
    services = _Services(ros, server)
    try:
        source = ros.node('description_source')
        pub = source.create_publisher(String, 'robot_description', LATCHED)
        client = source.create_client(GetPositionFK, 'compute_fk')
        ros.wait_for_subscribers(pub)
        pub.publish(String(data=ARM_WITH_LIDAR))
        ros.spin_until(lambda: server.model.name == 'arm_lidar', what='the new description')
        response = _fk(ros, client, 'lidar')
        assert response.error_code.val == MoveItErrorCodes.SUCCESS
        assert response.pose_stamped[0].pose.position.z == pytest.approx(0.8)
        pub.publish(String(data='<robot name="broken">'))
        ros.spin_until(lambda: server.descriptions_received >= 2, what='description 2')
        assert server.model.name == 'arm_lidar'
        assert _fk(ros, client, 'lidar').error_code.val == MoveItErrorCodes.SUCCESS
        not_a_mesh = tmp_path / 'lidar.stl'
        not_a_mesh.write_text('solid nothing\n', encoding='utf-8')
        pub.publish(String(data=_with_mesh(str(not_a_mesh))))
        ros.spin_until(lambda: server.model.name == 'arm_mesh', what='the mesh description')
        assert server.scene.geometry.skipped == ('lidar/0',)
        assert _fk(ros, client, 'lidar').error_code.val == MoveItErrorCodes.SUCCESS
    finally:
        services.close()


# ---------------------------------------------------------------------------- item 4


def _unreachable_ik(seconds: int) -> GetPositionIK.Request:
    request = GetPositionIK.Request()
    request.ik_request.group_name = 'arm'
    request.ik_request.pose_stamped.header.frame_id = 'world'
    request.ik_request.pose_stamped.pose.position.x = 5.0
    request.ik_request.pose_stamped.pose.orientation.w = 1.0
    request.ik_request.timeout.sec = seconds
    return request


def test_fk_and_validity_answer_while_ik_solves_and_the_ik_timeout_is_capped(
        ros, default_server) -> None:
    """Issue 10 node item 4: FK/validity have their own callback group; IK timeouts are capped.

    Before: every service shared one mutually exclusive group, so compute_fk waited 7.5 s
    behind an 8 s compute_ik. Now the 8 s request is cut to max_ik_timeout (1 s, said in the
    message) and FK and validity answer while it runs (structural: their responses arrive
    before the IK response).
    """
    node = ros.node('clients')
    ik = node.create_client(GetPositionIK, 'compute_ik')
    fk = node.create_client(GetPositionFK, 'compute_fk')
    validity = node.create_client(GetStateValidity, 'check_state_validity')
    for client in (ik, fk, validity):
        ros.wait_for_service(client)
    started = time.monotonic()
    ik_future = ik.call_async(_unreachable_ik(8))
    fk_request = GetPositionFK.Request(fk_link_names=['tool0'])
    fk_future = fk.call_async(fk_request)
    ros.spin_until(fk_future.done, timeout=CALL_TIMEOUT, what='compute_fk')
    validity_future = validity.call_async(GetStateValidity.Request())
    ros.spin_until(validity_future.done, timeout=CALL_TIMEOUT, what='check_state_validity')
    assert not ik_future.done(), 'FK and validity should not wait for the IK solve'
    assert fk_future.result().error_code.val == MoveItErrorCodes.SUCCESS
    ros.spin_until(ik_future.done, timeout=CALL_TIMEOUT, what='compute_ik')
    elapsed = time.monotonic() - started
    code = ik_future.result().error_code
    assert code.val == MoveItErrorCodes.NO_IK_SOLUTION
    assert 'requested timeout 8 s capped to max_ik_timeout = 1 s' in code.message
    assert elapsed < 8.0, elapsed  # the solve itself took about 1 s (the cap)
    assert default_server.set_parameters([Parameter('max_ik_timeout', value=0.0)])[0] \
        .successful is False  # outside the descriptor's range


# ---------------------------------------------------------------------------- item 5


def _reachable_ik(server) -> GetPositionIK.Request:
    state = server.scene.current_state.copy()
    state.set_to_default_values('arm', 'ready')
    request = GetPositionIK.Request()
    request.ik_request.group_name = 'arm'
    request.ik_request.pose_stamped = PoseStamped()
    request.ik_request.pose_stamped.header.frame_id = 'world'
    request.ik_request.pose_stamped.pose = matrix_to_pose(state.get_global_link_transform('tool0'))
    request.ik_request.timeout.nanosec = 500_000_000
    return request


def _orientation(quat, parameterization=0, link='tool0', frame='world'):
    c = OrientationConstraint(link_name=link, parameterization=parameterization,
                              absolute_x_axis_tolerance=math.pi,
                              absolute_y_axis_tolerance=math.pi,
                              absolute_z_axis_tolerance=math.pi, weight=1.0)
    c.header.frame_id = frame
    c.orientation.x, c.orientation.y, c.orientation.z, c.orientation.w = quat
    return c


def _position(link='tool0', frame='world', dims=(10.0, 10.0, 10.0)):
    c = PositionConstraint(link_name=link, weight=1.0)
    c.header.frame_id = frame
    if dims is not None:
        c.constraint_region.primitives = [SolidPrimitive(type=SolidPrimitive.BOX,
                                                         dimensions=list(dims))]
        c.constraint_region.primitive_poses = [matrix_to_pose(np.eye(4))]
    return c


def test_goal_and_constraint_errors_have_specific_codes(ros, default_server, capfd) -> None:
    """Issue 10 node item 5 (compute_ik): user errors get specific codes, never FAILURE.

    Before: a NaN position or zero quaternion answered FRAME_TRANSFORM_FAILURE (-21) and an
    unknown orientation parameterization FAILURE (99999, "internal error"). Codes: decisions
    V1-V4 in docs/decisions.md.
    """
    client = ros.node('ik_codes').create_client(GetPositionIK, 'compute_ik')
    codes = MoveItErrorCodes
    cases = []
    nan_goal = _reachable_ik(default_server)
    nan_goal.ik_request.pose_stamped.pose.position.x = math.nan
    cases.append(('NaN goal position', nan_goal, codes.INVALID_GOAL_CONSTRAINTS, 'not finite'))
    for quat in ((0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1e-200), (0.0, 0.0, 0.0, 1e200)):
        request = _reachable_ik(default_server)
        o = request.ik_request.pose_stamped.pose.orientation
        o.x, o.y, o.z, o.w = quat
        cases.append((f'goal quaternion {quat}', request, codes.INVALID_GOAL_CONSTRAINTS,
                      'pose_stamped'))
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(orientation_constraints=[
        _orientation((0.0, 0.0, 0.0, 0.0))])
    cases.append(('zero-quaternion orientation constraint', request,
                  codes.INVALID_GOAL_CONSTRAINTS, 'orientation_constraints[0]'))
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(joint_constraints=[JointConstraint(
        joint_name='no_such_joint', position=0.0, tolerance_above=0.1, tolerance_below=0.1,
        weight=1.0)])
    cases.append(('unknown joint in a constraint', request, codes.INVALID_GOAL_CONSTRAINTS,
                  'no_such_joint'))
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(position_constraints=[_position('no_link')])
    cases.append(('unknown link in a constraint', request, codes.INVALID_LINK_NAME, 'no_link'))
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(position_constraints=[_position(dims=None)])
    cases.append(('position constraint without a region', request,
                  codes.INVALID_GOAL_CONSTRAINTS, 'no primitive'))
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(position_constraints=[_position(dims=(-1, 1, 1))])
    cases.append(('negative box', request, codes.INVALID_GOAL_CONSTRAINTS, 'dimensions'))
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(position_constraints=[_position(
        frame='some_camera')])
    cases.append(('unknown constraint frame', request, codes.FRAME_TRANSFORM_FAILURE,
                  'some_camera'))
    for what, request, code, fragment in cases:
        response = _call(ros, client, request)
        assert response.error_code.val == code, (what, response.error_code.message)
        assert fragment in response.error_code.message, (what, response.error_code.message)
    # an unknown parameterization is read as XYZ_EULER_ANGLES with a warning, as MoveIt
    request = _reachable_ik(default_server)
    request.ik_request.constraints = Constraints(orientation_constraints=[
        _orientation((0.0, 0.0, 0.0, 1.0), parameterization=7)])
    response = _call(ros, client, request)
    assert response.error_code.val == codes.SUCCESS, response.error_code.message
    err = capfd.readouterr().err
    assert 'unknown parameterization 7, using XYZ_EULER_ANGLES' in err
    assert 'internal error' not in err


def test_validity_user_errors_are_specific_and_never_nan(ros, default_server, capfd) -> None:
    """Issue 10 node item 5 (check_state_validity): user errors are specific, never NaN.

    They answer valid = false with a specific warning (no catch-all), and no constraint distance
    is NaN.

    Before: unknown frames/joints and bad primitives took the catch-all error path, and a
    zero-quaternion orientation constraint returned a NaN distance.
    """
    client = ros.node('validity_codes').create_client(GetStateValidity, 'check_state_validity')
    bad = {
        'zero quaternion': Constraints(orientation_constraints=[_orientation((0, 0, 0, 0))]),
        'unknown frame': Constraints(position_constraints=[_position(frame='some_camera')]),
        'unknown joint': Constraints(joint_constraints=[JointConstraint(
            joint_name='no_such_joint', position=0.0, tolerance_above=0.1,
            tolerance_below=0.1, weight=1.0)]),
        'bad primitive': Constraints(position_constraints=[_position(dims=(1.0, math.nan, 1.0))]),
        'NaN joint position': Constraints(joint_constraints=[JointConstraint(
            joint_name='elbow_joint', position=math.nan, tolerance_above=0.1,
            tolerance_below=0.1, weight=1.0)]),
    }
    for what, constraints in bad.items():
        response = _call(ros, client, GetStateValidity.Request(constraints=constraints))
        assert not response.valid, what
        assert all(math.isfinite(r.distance) for r in response.constraint_result), what
    unknown_group = _call(ros, client, GetStateValidity.Request(group_name='no_group'))
    assert not unknown_group.valid
    # an unknown parameterization is evaluated as XYZ Euler angles (MoveIt), finite distance
    odd = _call(ros, client, GetStateValidity.Request(constraints=Constraints(
        orientation_constraints=[_orientation((0.0, 0.0, 0.0, 1.0), parameterization=5)])))
    assert odd.valid
    assert len(odd.constraint_result) == 1 and math.isfinite(odd.constraint_result[0].distance)
    err = capfd.readouterr().err
    assert 'check_state_validity: invalid constraints' in err
    assert 'internal error' not in err


# ---------------------------------------------------------------------------- item 6


def test_garbage_requests_leave_bounded_clipped_logs(ros, default_server, capfd) -> None:
    """Issue 10 node item 6: 300 garbage requests with 100 kB names, little stderr.

    Before: 1 000 garbage requests wrote 731 kB of stderr (names echoed verbatim). Now user text
    is clipped and each kind of warning is logged once per 5 s with a count of those held back.
    """
    node = ros.node('garbage')
    ik = node.create_client(GetPositionIK, 'compute_ik')
    validity = node.create_client(GetStateValidity, 'check_state_validity')
    objects = node.create_publisher(CollisionObject, 'collision_object', 100)
    ros.wait_for_subscribers(objects)
    capfd.readouterr()
    huge = 'g' * 100_000
    for k in range(100):
        request = _unreachable_ik(0)
        request.ik_request.group_name = f'{huge}{k}'
        response = _call(ros, ik, request)
        assert response.error_code.val == MoveItErrorCodes.INVALID_GROUP_NAME
        assert len(response.error_code.message) <= RESPONSE_MESSAGE_LIMIT + 40
        assert not _call(ros, validity, GetStateValidity.Request(group_name=f'{huge}{k}')).valid
        obj = CollisionObject(id=f'{huge}{k}', operation=CollisionObject.ADD)
        obj.header.frame_id = 'world'
        obj.pose.orientation.w = 1.0
        obj.primitives = [SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[-1.0, 1.0, 1.0])]
        obj.primitive_poses = [obj.pose]
        objects.publish(obj)
    sentinel = CollisionObject(id='sentinel', operation=CollisionObject.ADD)
    sentinel.header.frame_id = 'world'
    sentinel.pose.orientation.w = 1.0
    sentinel.primitives = [SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[0.1, 0.1, 0.1])]
    sentinel.primitive_poses = [sentinel.pose]
    objects.publish(sentinel)  # reliable, in order: the garbage objects were handled before
    ros.spin_until(lambda: 'sentinel' in default_server.scene.world, what='the sentinel object')
    err = capfd.readouterr().err
    lines = err.splitlines()
    assert len(err) < 6_000, (len(err), lines[:10])
    assert all(len(line) < LOG_LINE_LIMIT + 200 for line in lines)
    assert any("unknown group 'ggg" in line for line in lines)
