"""The first-stage state publisher node, in process: static transforms and bad descriptions."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from robot_state_core.default_robot import default_robot_urdf_path  # noqa: E402
from robot_state_core.errors import RobotDescriptionError, UrdfLoadError  # noqa: E402
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
