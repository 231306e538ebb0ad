"""Long IK solves never stall TF: the TF path and the services run on separate executors.

The all-in-one process (state publisher + services) runs in a child process, a second child
publishes joint_states at 500 Hz (a driver), and this process calls compute_ik back to back
with solves that use their whole timeout (an unreachable target) while it measures /tf latency
(arrival − JointState stamp). Stated bounds (for a loaded 2-core CI box; typical figures are
p50 3-13 ms, p99 15-55 ms): p99 latency below 100 ms and no gap between two /tf messages longer
than 250 ms while the solves run.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
pytest.importorskip('fcl')
from geometry_msgs.msg import PoseStamped  # noqa: E402
from moveit_msgs.msg import MoveItErrorCodes  # noqa: E402
from moveit_msgs.srv import GetPositionIK  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
import ros_testing  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

P99_BOUND_MS = 100.0
MAX_GAP_MS = 250.0
WINDOW_S = 3.0
RATE_HZ = 500.0
DRIVER = '''
import time, rclpy
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import JointState
rclpy.init()
node = Node('driver')
pub = node.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
names = ['shoulder_pan_joint', 'shoulder_lift_joint', 'elbow_joint']
start = time.monotonic()
print('driving', flush=True)
def tick():
    t = time.monotonic() - start
    msg = JointState(name=names, position=[(0.3 * t) % 1.0, 0.2, 1.0])
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(time.time_ns(), 1_000_000_000)
    pub.publish(msg)
node.create_timer(1.0 / RATE, tick)
try:
    rclpy.spin(node)
except (KeyboardInterrupt, Exception):
    pass
'''.replace('RATE', str(RATE_HZ))


def test_tf_latency_bound_while_ik_solves(ros) -> None:
    """p99 /tf latency < 100 ms and no TF starvation while compute_ik runs back to back."""
    child = ros_testing.ChildProcess(['-m', 'robot_state_core.cli', 'run',
                                      '--ignore-timestamp', '--duration', '120'])
    driver = ros_testing.ChildProcess(['-c', DRIVER])
    try:
        child.wait_for_line('published robot', timeout=60)
        driver.wait_for_line('driving', timeout=60)
        node = ros.node('observer')
        latencies: list[float] = []
        arrivals: list[float] = []

        def on_tf(msg: TFMessage) -> None:
            now = time.time_ns()
            stamp = msg.transforms[0].header.stamp
            latencies.append((now - (stamp.sec * 1_000_000_000 + stamp.nanosec)) * 1e-6)
            arrivals.append(now * 1e-6)

        node.create_subscription(TFMessage, '/tf', on_tf,
                                 QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
        client = node.create_client(GetPositionIK, 'compute_ik')
        ros.wait_for_service(client, timeout=30)
        ros.spin_until(lambda: len(latencies) > 100, what='/tf flowing', timeout=30)
        request = GetPositionIK.Request()
        request.ik_request.group_name = 'arm'
        request.ik_request.pose_stamped = PoseStamped()
        request.ik_request.pose_stamped.header.frame_id = 'world'
        request.ik_request.pose_stamped.pose.position.x = 5.0  # unreachable: full timeout
        request.ik_request.pose_stamped.pose.orientation.w = 1.0
        request.ik_request.timeout.nanosec = 250_000_000
        latencies.clear()
        arrivals.clear()
        start = time.monotonic()
        calls = 0
        while time.monotonic() - start < WINDOW_S:
            future = client.call_async(request)
            ros.spin_until(future.done, timeout=10, what='compute_ik')
            assert future.result().error_code.val == MoveItErrorCodes.NO_IK_SOLUTION
            calls += 1
        elapsed = time.monotonic() - start
    finally:
        driver.stop()
        assert child.stop() == 0
    assert calls >= 5
    lat = np.array(latencies)
    assert lat.size > 100, f'{lat.size} TF messages in {elapsed:.1f} s'
    p99 = float(np.percentile(lat, 99))
    assert p99 < P99_BOUND_MS, f'p50 {np.percentile(lat, 50):.1f} ms, p99 {p99:.1f} ms'
    gap = float(np.max(np.diff(arrivals)))
    assert gap < MAX_GAP_MS, f'longest /tf gap {gap:.1f} ms'

