"""The first-stage state publisher node, in process: static transforms and bad descriptions."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from ros_testing import needs_topic_mode  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from robot_state_core.errors import RobotDescriptionError, UrdfLoadError  # noqa: E402
from robot_state_core.io.default_robot import default_robot_urdf_path  # noqa: E402
from robot_state_core.ros.distro import ros_distro  # noqa: E402
from robot_state_core.ros.params import has_topic_mode  # noqa: E402
from robot_state_core.ros.state_publisher_node import StatePublisherNode  # noqa: E402

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
URDF = '''<robot name="tiny">
  <link name="base"/><link name="sensor"/><link name="arm"/>
  <joint name="sensor_mount" type="fixed"><parent link="base"/><child link="sensor"/>
    <origin xyz="0.1 -0.2 0.3" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>'''


def _make(ros, description: str, prefix: str = '') -> StatePublisherNode:
    return StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=description),
        Parameter('frame_prefix', value=prefix)])


def test_static_transform_values_and_prefix(ros) -> None:
    """Only fixed joints go to /tf_static, with the URDF origin and frame_prefix applied."""
    ros.add(_make(ros, URDF, prefix='r1/'))
    got: list[TFMessage] = []
    ros.node('listener').create_subscription(TFMessage, '/tf_static', got.append, LATCHED)
    ros.spin_until(lambda: bool(got), what='/tf_static')
    (t,) = got[0].transforms
    assert (t.header.frame_id, t.child_frame_id) == ('r1/base', 'r1/sensor')
    p, q = t.transform.translation, t.transform.rotation
    np.testing.assert_allclose([p.x, p.y, p.z], [0.1, -0.2, 0.3])
    np.testing.assert_allclose([q.x, q.y, q.z, q.w], [0, 0, np.sqrt(0.5), np.sqrt(0.5)],
                               atol=1e-15)


def test_default_robot_description_loads(ros) -> None:
    """The embedded robot loads and has several static frames."""
    node = ros.add(_make(ros, default_robot_urdf_path().read_text(encoding='utf-8')))
    assert node.static_transform_count >= 3
    assert node.robot_name == 'rsc_mobile_manipulator'


@pytest.mark.parametrize(('description', 'error'), [
    ('', RobotDescriptionError),
    ('   ', RobotDescriptionError),
    ('<robot name="x"><joint name="j" type="fixed"><parent link="a"/></joint></robot>',
     UrdfLoadError),
    ('not xml at all', RobotDescriptionError),
])
def test_bad_description_is_a_typed_error(ros, description: str, error: type) -> None:
    """An empty or invalid robot_description raises a typed error with the reason."""
    with pytest.raises(error) as info:
        _make(ros, description)
    assert str(info.value)


TINY2 = '''<robot name="tiny2"><link name="base"/><link name="lidar"/>
  <joint name="lidar_mount" type="fixed"><parent link="base"/><child link="lidar"/>
  <origin xyz="0 0 1"/></joint></robot>'''


def test_description_change_republishes_and_drops_stale_frames(ros) -> None:
    """A runtime description change republishes both latched topics, complete and fresh.

    An invalid or empty description is rejected with the reason and changes nothing.
    """
    from std_msgs.msg import String

    node = ros.add(_make(ros, URDF, prefix='p/'))
    statics: list[TFMessage] = []
    descriptions: list[str] = []
    listener = ros.node('late_listener')
    listener.create_subscription(TFMessage, '/tf_static', statics.append, LATCHED)
    listener.create_subscription(String, 'robot_description',
                                 lambda m: descriptions.append(m.data), LATCHED)
    ros.spin_until(lambda: statics and descriptions, what='latched topics')
    assert {t.child_frame_id for t in statics[-1].transforms} == {'p/sensor'}
    result = node.set_parameters([Parameter('robot_description', value=TINY2)])[0]
    assert result.successful, result.reason
    ros.spin_until(lambda: len(statics) >= 2 and len(descriptions) >= 2, what='republish')
    assert {(t.header.frame_id, t.child_frame_id) for t in statics[-1].transforms} == {
        ('p/base', 'p/lidar')}
    assert descriptions[-1] == TINY2
    bad = node.set_parameters([Parameter('robot_description', value='<robot name="x">')])[0]
    assert not bad.successful
    assert 'XML' in bad.reason
    empty = node.set_parameters([Parameter('robot_description', value='')])[0]
    assert not empty.successful
    assert 'empty' in empty.reason
    assert node.robot_name == 'tiny2'


def test_markers_in_link_frames_with_full_sizes(ros) -> None:
    """robot_markers: one namespace per link, link frames, full sizes, mesh URIs kept."""
    from visualization_msgs.msg import Marker, MarkerArray

    node = ros.add(_make(ros, default_robot_urdf_path().read_text(encoding='utf-8')))
    arrays: list[MarkerArray] = []
    ros.node('marker_listener').create_subscription(MarkerArray, 'robot_markers',
                                                    arrays.append, 10)
    node.publish_markers()
    ros.spin_until(lambda: any(len(a.markers) > 5 for a in arrays), timeout=15.0,
                   what='robot_markers')
    markers = [m for a in arrays for m in a.markers if m.action == Marker.ADD]
    assert {m.ns for m in markers} >= {'base_link', 'camera_link'}
    assert all(m.header.frame_id == m.ns for m in markers)
    assert all(m.color.a > 0 for m in markers)
    meshes = [m for m in markers if m.type == Marker.MESH_RESOURCE]
    assert meshes
    assert all(m.mesh_resource.startswith('package://robot_state_core/') for m in meshes)
    cylinders = [m for m in markers if m.type == Marker.CYLINDER]
    assert all(m.scale.x == m.scale.y > 0 for m in cylinders)


def test_frame_prefix_on_dynamic_tf(ros) -> None:
    """frame_prefix is applied to every frame id on /tf too (not only /tf_static)."""
    from sensor_msgs.msg import JointState

    ros.add(StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=URDF), Parameter('frame_prefix', value='r2/'),
        Parameter('ignore_timestamp', value=True)]))
    got: list[TFMessage] = []
    node = ros.node('tf_prefix_listener')
    node.create_subscription(TFMessage, '/tf', got.append, 100)
    pub = node.create_publisher(JointState, 'joint_states', 10)
    ros.wait_for_subscribers(pub)
    ros.spin_until(lambda: (pub.publish(JointState(name=['shoulder'], position=[0.5]))
                            or bool(got)), what='/tf')
    (t,) = got[0].transforms
    assert (t.header.frame_id, t.child_frame_id) == ('r2/base', 'r2/arm')


def test_description_file_used_only_when_the_parameter_is_empty(ros, tmp_path) -> None:
    """robot_state_publisher's fallback: the file named on the command line, parameter first.

    Origin: ros/robot_state_publisher (jazzy) src/robot_state_publisher.cpp, constructor: the
    file ``options.arguments()[1]`` is read only when ``robot_description`` is empty.
    """
    path = tmp_path / 'tiny2.urdf'
    path.write_text(TINY2, encoding='utf-8')
    from_file = ros.add(StatePublisherNode(context=ros.context, description_file=str(path)))
    assert from_file.robot_name == 'tiny2'
    assert from_file.get_parameter('robot_description').value == ''  # as upstream: not set
    # runtime changes still validate against the description in use (the file's)
    ok = from_file.set_parameters([Parameter('robot_description_semantic', value='')])[0]
    assert ok.successful, ok.reason
    assert from_file.robot_name == 'tiny2'
    param_wins = _make(ros, URDF)
    assert param_wins.robot_name == 'tiny'
    ignored = StatePublisherNode(context=ros.context, description_file=str(tmp_path / 'none'),
                                 parameter_overrides=[Parameter('robot_description', value=URDF)])
    ros.add(ignored)
    assert ignored.robot_name == 'tiny'


@pytest.mark.parametrize(('content', 'error', 'fragment'), [
    (None, RobotDescriptionError, 'failed to open URDF file'),
    ('<robot name="x"><joint name="j" type="fixed"><parent link="a"/></joint></robot>',
     UrdfLoadError, 'bad.urdf'),
])
def test_bad_description_file_is_a_typed_error_naming_it(ros, tmp_path, content, error,
                                                         fragment) -> None:
    """A missing or invalid URDF file raises a typed error whose message names the file."""
    path = tmp_path / 'bad.urdf'
    if content is not None:
        path.write_text(content, encoding='utf-8')
    with pytest.raises(error) as info:
        StatePublisherNode(context=ros.context, description_file=str(path))
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


@needs_topic_mode
def test_topic_mode_in_process(ros) -> None:
    """use_robot_description_topic: no robot_description parameter; bad descriptions are kept out.

    Origin: ros/robot_state_publisher (kilted, 3.4.4) src/robot_state_publisher.cpp: in the topic
    mode the parameter is not declared, nothing is published on robot_description, and a
    description that fails to parse is logged ("Failed to parse robot description from topic")
    while the current model stays.
    """
    from rclpy.exceptions import ParameterNotDeclaredException
    from std_msgs.msg import String

    node = ros.add(StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('use_robot_description_topic', value=True)]))
    assert not node.has_parameter('robot_description')
    assert not node.has_model
    with pytest.raises(RobotDescriptionError):
        node.model  # noqa: B018
    assert 'robot_description' not in node.subscriber_counts()
    with pytest.raises(ParameterNotDeclaredException):
        node.set_parameters([Parameter('robot_description', value=URDF)])
    pub = ros.node('description_source').create_publisher(String, 'robot_description', LATCHED)
    pub.publish(String(data=URDF))
    ros.spin_until(lambda: node.has_model, what='the model from the topic')
    assert node.robot_name == 'tiny'
    for bad in ('', '<robot name="x">'):
        before = node.descriptions_received
        pub.publish(String(data=bad))
        ros.spin_until(lambda b=before: node.descriptions_received > b, what='a bad description')
        assert node.robot_name == 'tiny'
    pub.publish(String(data=TINY2))
    ros.spin_until(lambda: node.robot_name == 'tiny2', what='the second description')
    assert node.static_transform_count == 1


def test_description_file_argument_is_the_first_non_ros_argument() -> None:
    """``options.arguments()[1]`` upstream: the command line without ROS arguments."""
    from robot_state_core.ros.main import description_file_argument

    assert description_file_argument(['rsp', 'a.urdf', '--ros-args', '-p', 'x:=1']) == 'a.urdf'
    assert description_file_argument(['rsp', '--ros-args', '-p', 'x:=1', '--', 'b.urdf',
                                      'c.urdf']) == 'b.urdf'
    assert description_file_argument(['rsp', '--ros-args', '-p', 'x:=1']) is None
    assert description_file_argument(['rsp']) is None


def test_zero_stamp_is_published_with_the_node_clock(ros) -> None:
    """Decision C3 (docs/decisions.md R7): robot_state_publisher would drop this message."""
    from sensor_msgs.msg import JointState

    node = ros.add(_make(ros, URDF))
    got: list[TFMessage] = []
    listener = ros.node('zero_stamp_listener')
    listener.create_subscription(TFMessage, '/tf', got.append, 100)
    pub = listener.create_publisher(JointState, 'joint_states', 10)
    ros.wait_for_subscribers(pub)
    before = node.get_clock().now().nanoseconds
    ros.spin_until(lambda: (pub.publish(JointState(name=['shoulder'], position=[0.5]))
                            or bool(got)), what='/tf')
    stamp = got[0].transforms[0].header.stamp
    assert stamp.sec * 1_000_000_000 + stamp.nanosec >= before


@needs_topic_mode
def test_publish_frequency_range_in_the_topic_mode(ros) -> None:
    """docs/decisions.md R13: out-of-range publish_frequency is rejected in the topic mode too."""
    node = ros.add(StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('use_robot_description_topic', value=True)]))
    assert not node.set_parameters([Parameter('publish_frequency', value=5000.0)])[0].successful
    assert node.set_parameters([Parameter('publish_frequency', value=50.0)])[0].successful


def test_topic_mode_parameter_follows_the_distribution(ros) -> None:
    """Decision R4: use_robot_description_topic exists where robot_state_publisher has it.

    Jazzy's robot_state_publisher 3.3.4 has no topic mode and does not declare the parameter, so
    ``-p use_robot_description_topic:=true`` is ignored there and the description comes from the
    parameter; Kilted's 3.4.4 declares it (run on both distributions by ``make test``).
    """
    assert has_topic_mode('jazzy') is False
    assert has_topic_mode('kilted') is True and has_topic_mode('Kilted') is True
    node = ros.add(StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('use_robot_description_topic', value=True),
        Parameter('robot_description', value=default_robot_urdf_path().read_text())]))
    jazzy = ros_distro() == 'jazzy'
    assert node.has_parameter('use_robot_description_topic') is not jazzy
    assert node.has_model is jazzy  # Kilted: waits for the topic; Jazzy: the parameter
    assert node.has_parameter('robot_description') is jazzy


def test_queued_joint_states_are_all_published_in_order_in_one_wake_up(ros) -> None:
    """JointStates queued while the node was busy: one executor wake-up takes them all.

    In order, and each still gets its own /tf (robot_state_publisher publishes one per
    message).
    """
    from sensor_msgs.msg import JointState

    node = ros.add(StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=URDF),
        Parameter('ignore_timestamp', value=True)]))
    got: list[float] = []
    listener = ros.node('burst_listener')
    tf_sub = listener.create_subscription(
        TFMessage, '/tf', lambda m: got.append(m.transforms[0].transform.rotation.z), 100)
    pub = listener.create_publisher(JointState, 'joint_states', 10)
    ros.wait_for_subscribers(pub)
    ros.wait_for_publishers(tf_sub)
    sub = node._joint_states_sub
    wake_ups: list[int] = []
    inner = sub.callback

    def counted(msg: JointState) -> None:
        wake_ups.append(1)
        inner(msg)

    sub.callback = counted
    angles = [0.1, 0.2, 0.3, 0.4, 0.5]  # the joint_states queue keeps 5 (sensor-data QoS)
    for a in angles:
        pub.publish(JointState(name=['shoulder'], position=[a]))
    time.sleep(0.5)  # let the middleware deliver all five before the executor runs again
    ros.spin_until(lambda: len(got) == len(angles), what='five /tf messages')
    np.testing.assert_allclose(got, np.sin(np.array(angles) / 2), rtol=1e-12)
    assert len(wake_ups) < len(angles), 'queued messages were not taken in one wake-up'
