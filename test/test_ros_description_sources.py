"""Where the description comes from, over real DDS: a URDF file argument, and the topic mode.

Issue 16: ``robot_state_publisher robot.urdf`` (the many tutorials' form) must publish what the
parameter form publishes; a missing file is one line naming it and exit code 1.
robot_state_publisher (Jazzy, Kilted <= 3.4.3) reads ``options.arguments()[1]`` when
``robot_description`` is empty.

Topic mode: robot_state_publisher 3.4.4 (Kilted, PR #234 backported in #244) reads the description
from the ``robot_description`` topic when ``use_robot_description_topic`` is true.

Our entry points run as real processes; the publishers and listeners here are plain rclpy.
Expected frames come from the URDF's XML (lxml), independent of our loader.
"""

from __future__ import annotations

from lxml import etree
import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
from rclpy.parameter import Parameter  # noqa: E402
import ros_testing  # noqa: E402
from rsp_testing import (  # noqa: E402
    ALL_IN_ONE,
    LATCHED,
    node_process,
    params_file,
    spin_until,
    STATE_PUBLISHER,
    TfRecorder,
)
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from robot_state_core.io.default_robot import default_robot_urdf_path  # noqa: E402
from robot_state_core.ros.state_publisher_node import StatePublisherNode  # noqa: E402

URDF = default_robot_urdf_path()


def _fixed_joints(text: str) -> dict[str, str]:
    """Child -> parent of every fixed joint, read straight from the XML."""
    root = etree.fromstring(text.encode())
    return {j.find('child').get('link'): j.find('parent').get('link')
            for j in root.findall('joint') if j.get('type') == 'fixed'}


def _statics(ros, child: ros_testing.ChildProcess, name: str) -> tuple[list[tuple], str]:
    """The /tf_static transforms (sorted, numbers exact) and the robot_description received."""
    tf = TfRecorder(ros, name)
    spin_until(ros, child, lambda: bool(tf.static_messages and tf.descriptions),
               '/tf_static and robot_description', timeout=20.0)
    transforms = sorted(_transform_tuple(t) for t in tf.static_messages[-1].transforms)
    return transforms, tf.descriptions[-1]


def _transform_tuple(t) -> tuple:
    p, q = t.transform.translation, t.transform.rotation
    return t.header.frame_id, t.child_frame_id, (p.x, p.y, p.z), (q.x, q.y, q.z, q.w)


def _run(ros, name: str, *argv: str, entry: str | None = None) -> tuple[list[tuple], str]:
    child = node_process(*argv) if entry is None else node_process(*argv, entry=entry)
    try:
        return _statics(ros, child, name)
    finally:
        assert child.stop() == 0, child.lines


def test_urdf_file_argument_publishes_what_the_parameter_form_publishes(ros, tmp_path) -> None:
    """``robot_state_publisher robot.urdf`` (also with ``--ros-args -p frame_prefix:=...``).

    /tf_static and /robot_description equal the parameter form's, number for number; the frames
    are the URDF's fixed joints and the description is the file's text.
    """
    text = URDF.read_text(encoding='utf-8')
    by_file = _run(ros, 'listener_file', str(URDF))
    prefixed = _run(ros, 'listener_prefixed', str(URDF), '--ros-args', '-p', 'frame_prefix:=r1/')
    # the parameter form, in this process (same node class, so it cannot differ by start-up)
    node = StatePublisherNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=text)])
    try:
        tf = TfRecorder(ros, 'listener_parameter')
        ros.spin_until(lambda: bool(tf.static_messages and tf.descriptions), what='latched')
        by_parameter = (sorted(_transform_tuple(t) for t in tf.static_messages[-1].transforms),
                        tf.descriptions[-1])
    finally:
        node.destroy_node()
    assert by_file == by_parameter
    assert by_file[1] == text
    expected = _fixed_joints(text)
    assert len(expected) >= 3
    assert {c: p for p, c, _, _ in by_file[0]} == expected
    assert prefixed[1] == text
    assert prefixed[0] == sorted(('r1/' + p, 'r1/' + c, xyz, q) for p, c, xyz, q in by_file[0])


def test_urdf_file_argument_of_the_all_in_one_process(ros) -> None:
    """``robot_state_core_all robot.urdf`` publishes the same latched topics from the file."""
    text = URDF.read_text(encoding='utf-8')
    transforms, description = _run(ros, 'listener_all', str(URDF), entry=ALL_IN_ONE)
    assert description == text
    assert {c: p for p, c, _, _ in transforms} == _fixed_joints(text)


def test_missing_urdf_file_is_one_line_and_exit_code_1(ros_domain, tmp_path) -> None:
    """A file that cannot be opened: exactly one output line, naming it; exit code 1.

    Both entry points (robot_state_publisher and robot_state_core_all), run side by side.
    """
    missing = tmp_path / 'no_such_robot.urdf'
    children = {name: node_process(str(missing), '--ros-args', '-p', 'frame_prefix:=r1/',
                                   entry=entry)
                for name, entry in (('robot_state_publisher', STATE_PUBLISHER),
                                    ('robot_state_core_all', ALL_IN_ONE))}
    for name, child in children.items():
        assert child.proc.wait(timeout=30) == 1
        child.stop()
        assert len(child.lines) == 1, child.lines
        line = child.lines[0]
        assert line.startswith(f'{name}: failed to open URDF file'), line
        assert str(missing) in line


ARM = '''<robot name="arm">
  <link name="base"/><link name="upper"/><link name="camera"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="camera_mount" type="fixed"><parent link="upper"/><child link="camera"/>
    <origin xyz="0.2 0 0.1" rpy="0 0 0"/></joint>
</robot>'''
ARM_MOVED_CAMERA = ARM.replace('<robot name="arm">', '<robot name="arm2">').replace(
    'xyz="0.2 0 0.1"', 'xyz="0.3 0 0.4"')


@ros_testing.needs_topic_mode
def test_topic_mode_builds_the_model_and_follows_a_second_description(ros, tmp_path) -> None:
    """use_robot_description_topic: the node builds its model from the topic and follows it.

    The description published (transient local) by another process before our node starts
    reaches it; /tf_static and /tf follow it; a second description replaces the first; a broken
    one is ignored with robot_state_publisher's log line; our node never publishes
    robot_description.
    """
    source = ros.node('description_source')
    description_pub = source.create_publisher(String, 'robot_description', LATCHED)
    description_pub.publish(String(data=ARM))  # before the node exists: transient local
    child = node_process('--ros-args', '--params-file', str(params_file(
        tmp_path, use_robot_description_topic=True, ignore_timestamp=True)))
    try:
        tf = TfRecorder(ros, 'topic_mode_listener')
        joint_pub = source.create_publisher(JointState, 'joint_states', 10)
        spin_until(ros, child, lambda: tf.can_transform('upper', 'camera'), 'the first statics',
                   timeout=20.0)
        assert tf.lookup('upper', 'camera').translation == pytest.approx((0.2, 0.0, 0.1))
        angle = 0.7
        spin_until(ros, child, lambda: tf.can_transform('base', 'upper'), '/tf of shoulder',
                   tick=lambda: joint_pub.publish(JointState(name=['shoulder'],
                                                             position=[angle])))
        shoulder = tf.lookup('base', 'upper')
        assert shoulder.translation == pytest.approx((0.0, 0.0, 0.5))
        assert shoulder.quat_xyzw == pytest.approx((0, 0, np.sin(angle / 2), np.cos(angle / 2)))
        description_pub.publish(String(data='<robot name="broken">'))  # depth 1: one at a time
        child.wait_for_line('Failed to parse robot description from topic', timeout=20.0)
        description_pub.publish(String(data=ARM_MOVED_CAMERA))
        spin_until(ros, child,
                   lambda: tf.lookup('upper', 'camera').translation[0] == pytest.approx(0.3),
                   'the second description')
        assert tf.lookup('upper', 'camera').translation == pytest.approx((0.3, 0.0, 0.4))
        assert len(tf.static_messages[-1].transforms) == 1
        assert source.count_publishers('/robot_description') == 1  # ours only subscribes
        assert description_pub.get_subscription_count() >= 2  # the node and the recorder
    finally:
        assert child.stop() == 0, child.lines


@ros_testing.needs_topic_mode
def test_all_in_one_topic_mode_starts_the_services_with_the_first_description(
        ros, tmp_path) -> None:
    """robot_state_core_all with use_robot_description_topic: compute_fk once a description came.

    The services need a model: they appear after the first description and answer on it.
    """
    moveit_srv = pytest.importorskip('moveit_msgs.srv')
    child = node_process('--ros-args', '--params-file', str(params_file(
        tmp_path, use_robot_description_topic=True)), entry=ALL_IN_ONE)
    try:
        source = ros.node('all_in_one_source')
        client = source.create_client(moveit_srv.GetPositionFK, 'compute_fk')
        tf = TfRecorder(ros, 'all_in_one_listener')
        spin_until(ros, child, lambda: bool(tf.static_messages), 'the empty /tf_static',
                   timeout=20.0)
        assert not client.service_is_ready()
        source.create_publisher(String, 'robot_description', LATCHED).publish(String(data=ARM))
        spin_until(ros, child, client.service_is_ready, 'compute_fk', timeout=20.0)
        request = moveit_srv.GetPositionFK.Request(fk_link_names=['camera'])
        request.header.frame_id = 'base'
        future = client.call_async(request)
        spin_until(ros, child, future.done, 'the compute_fk response')
        (pose,) = future.result().pose_stamped
        p = pose.pose.position
        assert (p.x, p.y, p.z) == pytest.approx((0.2, 0.0, 0.6))  # shoulder 0: 0.5 + 0.1 up
    finally:
        assert child.stop() == 0, child.lines


# ---------------------------------------------------------------------------- issue 10 item 7


def _rcl_parameter(ros_domain: int, rule_value: str) -> str:
    """What a node gets for ``-p robot_description:=<rule_value>`` after rcl parsed it."""
    from rclpy.context import Context
    from rclpy.node import Node

    context = Context()
    rclpy.init(args=['node', '--ros-args', '-p', f'robot_description:={rule_value}'],
               context=context, domain_id=ros_domain)
    try:
        node = Node('rcl_yaml_probe', context=context)
        try:
            node.declare_parameter('robot_description', '')
            return node.get_parameter('robot_description').value
        finally:
            node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)


def test_what_rcl_does_with_a_p_value(ros_domain) -> None:
    """The rcl library parses every ``-p`` value as YAML, for rclpy and rclcpp alike.

    The parser is ``rcl_parse_yaml_value``.

    Line breaks of a multi-line XML text fold into spaces (harmless for XML); ``' #'`` starts a
    comment, so the rest of the description is silently dropped; ``': '`` (or a ``':'`` at a
    line end) starts a mapping, and rcl refuses the whole command line. This is why the README
    recipe ``-p robot_description:="$(cat robot.urdf)"`` failed on our own robot, whose header
    comment had ``robot_name: ...`` (the same happens with the C++ robot_state_publisher).
    """
    from rclpy.impl.implementation_singleton import rclpy_implementation

    folded = _rcl_parameter(ros_domain, '<robot name="a">\n  <link name="b"/>\n</robot>')
    assert folded == '<robot name="a"> <link name="b"/> </robot>'
    cut = _rcl_parameter(ros_domain, '<robot name="a"> <!-- x # y --> </robot>')
    assert cut == '<robot name="a"> <!-- x'
    with pytest.raises(rclpy_implementation.RCLError):  # Kilted: RCLInvalidROSArgsError
        _rcl_parameter(ros_domain, '<robot name="a">\n<!-- note: a comment -->\n</robot>')


def test_readme_recipe_works_on_the_embedded_robot(ros) -> None:
    """``-p robot_description:="$(cat robot.urdf)"`` on the embedded robot publishes it.

    The received description is rcl's folded text (line breaks become spaces); it describes the
    same fixed joints as the file.
    """
    text = URDF.read_text(encoding='utf-8')
    transforms, description = _run(ros, 'recipe_listener', '--ros-args', '-p',
                                   f'robot_description:={text.rstrip(chr(10))}')
    assert description.split() == text.split()
    assert {c: p for p, c, _, _ in transforms} == _fixed_joints(text) == \
        _fixed_joints(description)


@pytest.mark.parametrize(('comment', 'fragment'), [
    ('<!-- base: the mobile base -->', 'starts a YAML mapping'),
    ('<!-- issue #12 -->', 'starts a YAML comment'),
])
def test_yaml_hostile_description_is_one_line_and_exit_code_1(ros_domain, comment,
                                                              fragment) -> None:
    """A -p description rcl would refuse or cut: one line naming the line and the fix; exit 1.

    Before: a Python traceback (rcl's RCLInvalidROSArgsError) for ': ', and for ' #' a
    description silently cut at the comment.
    """
    text = URDF.read_text(encoding='utf-8').replace(
        '<robot name="rsc_mobile_manipulator">', f'<robot name="rsc_mobile_manipulator">\n'
        f'  {comment}', 1)
    line = text.splitlines().index(f'  {comment}') + 1
    children = {name: node_process('--ros-args', '-p', f'robot_description:={text}',
                                   entry=entry)
                for name, entry in (('robot_state_publisher', STATE_PUBLISHER),
                                    ('robot_state_core_all', ALL_IN_ONE))}
    for name, child in children.items():
        assert child.proc.wait(timeout=60) == 1
        child.stop()
        assert len(child.lines) == 1, child.lines
        assert child.lines[0].startswith(f'{name}: line {line} of -p robot_description:=')
        assert fragment in child.lines[0] and f'{name} robot.urdf' in child.lines[0]
