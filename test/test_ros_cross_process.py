"""Cross-process smoke test over real DDS (loopback only, private domain).

A child process runs the project's node on the default robot; it publishes /tf_static (tf2's
static QoS: reliable, transient local, depth 1) and /robot_description (transient local). A
subscriber written with plain rclpy in this process joins *after* both were published and must
still receive both (that is what transient local durability guarantees late joiners).
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
import ros_testing  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from robot_state_core.io.default_robot import default_robot_urdf_path  # noqa: E402

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def _fixed_joints(urdf: Path) -> dict[str, str]:
    """Child -> parent of every fixed joint, read straight from the XML (independent of us)."""
    root = etree.parse(str(urdf)).getroot()
    return {j.find('child').get('link'): j.find('parent').get('link')
            for j in root.findall('joint') if j.get('type') == 'fixed'}


def test_late_joiner_receives_tf_static_and_robot_description(ros) -> None:
    """A subscriber created after publication still gets both latched topics, in full."""
    child = ros_testing.ChildProcess(['-m', 'robot_state_core', 'run', '--duration', '60'])
    try:
        # run()'s own status line (not the node's log line, which comes before the services
        # exist): the SIGINT below must not land in the middle of start-up
        child.wait_for_line("published robot '", timeout=30)
        node = ros.node('late_joiner')
        got: dict[str, object] = {}
        node.create_subscription(TFMessage, '/tf_static', lambda m: got.setdefault('tf', m),
                                 LATCHED)
        node.create_subscription(String, 'robot_description',
                                 lambda m: got.setdefault('description', m), LATCHED)
        ros.spin_until(lambda: len(got) == 2, what='/tf_static and /robot_description')
    finally:
        code = child.stop()
    assert code == 0, child.lines

    urdf = default_robot_urdf_path()
    assert got['description'].data == urdf.read_text(encoding='utf-8')
    expected = _fixed_joints(urdf)
    transforms = got['tf'].transforms
    assert {t.child_frame_id: t.header.frame_id for t in transforms} == expected
    assert len(expected) >= 3
    for t in transforms:
        q = t.transform.rotation
        assert abs(q.x ** 2 + q.y ** 2 + q.z ** 2 + q.w ** 2 - 1.0) < 1e-12
    assert TFMessage.__module__.startswith('tf2_msgs')
