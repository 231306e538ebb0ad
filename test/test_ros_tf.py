"""State publisher over real DDS: TF matches core FK; runtime description change; bad input.

The node runs in a child process (``robot-state-core run``); the JointState publisher and the
TF listener in this process are plain rclpy (independent of the project's ROS code).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
import pinocchio_oracle  # noqa: E402
from rclpy.qos import (  # noqa: E402
    DurabilityPolicy,
    qos_profile_sensor_data,
    QoSProfile,
    ReliabilityPolicy,
)
import robot_corpus  # noqa: E402
import ros_testing  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from robot_state_core import kinematics as kin  # noqa: E402
from robot_state_core.io.default_robot import default_robot_urdf_path  # noqa: E402
from robot_state_core.model.robot_model import RobotModel  # noqa: E402
from robot_state_core.publishing.frame_transforms import fixed_joint_transforms  # noqa: E402
from robot_state_core.spatial.transforms import rotation_from_quat_xyzw  # noqa: E402

STATIC = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.TRANSIENT_LOCAL)
DYNAMIC = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TF_TOL = 1e-9


def _robot(name: str) -> tuple[Path, list[str]]:
    if name == 'default':
        return default_robot_urdf_path(), []
    r = robot_corpus.test_robot(name)
    return r.urdf_path, [str(robot_corpus.example_robot_data_share().parent)]


class TfListener:
    """Accumulates /tf and /tf_static into a parent/child edge table (plain rclpy)."""

    def __init__(self, ros) -> None:
        self.node = ros.node('tf_listener')
        self.edges: dict[str, tuple[str, np.ndarray]] = {}
        self.static: dict[str, tuple[str, np.ndarray]] = {}
        self.messages = 0
        self.node.create_subscription(TFMessage, '/tf', self._dynamic, DYNAMIC)
        self.node.create_subscription(TFMessage, '/tf_static', self._static, STATIC)

    @staticmethod
    def _pose(t) -> np.ndarray:
        X = np.eye(4)
        r, p = t.transform.rotation, t.transform.translation
        X[:3, :3] = rotation_from_quat_xyzw([r.x, r.y, r.z, r.w])
        X[:3, 3] = [p.x, p.y, p.z]
        return X

    def _dynamic(self, msg: TFMessage) -> None:
        self.messages += 1
        for t in msg.transforms:
            assert np.isfinite(self._pose(t)).all()
            self.edges[t.child_frame_id] = (t.header.frame_id, self._pose(t))

    def _static(self, msg: TFMessage) -> None:
        # Like tf2's buffer: static transforms accumulate; a later message (an empty one from a
        # topic-mode node, or one for other frames) never removes what was received.
        self.static.update({t.child_frame_id: (t.header.frame_id, self._pose(t))
                            for t in msg.transforms})

    def world_pose(self, frame: str, root: str) -> np.ndarray:
        X = np.eye(4)
        while frame != root:
            parent, X_PC = {**self.static, **self.edges}[frame]
            X = X_PC @ X
            frame = parent
        return X


def _child(urdf: Path, roots: list[str], *extra: str) -> ros_testing.ChildProcess:
    args = ['-m', 'robot_state_core', 'run', '--urdf', str(urdf), '--ignore-timestamp',
            '--no-services', '--duration', '120', *extra]
    for root in roots:
        args += ['--package-root', root]
    child = ros_testing.ChildProcess(args)
    child.wait_for_line('published robot', timeout=60)
    return child


@pytest.mark.parametrize('robot', ['default', 'panda', 'talos'])
def test_tf_composes_to_core_fk(ros, robot: str) -> None:
    """/tf + /tf_static received by a plain listener compose to the core FK (<= 1e-9)."""
    urdf, roots = _robot(robot)
    model = RobotModel.from_urdf_file(urdf, package_roots=roots)
    child = _child(urdf, roots)
    try:
        listener = TfListener(ros)
        pub = ros.node('joint_state_source').create_publisher(JointState, 'joint_states',
                                                               qos_profile_sensor_data)
        ros.wait_for_subscribers(pub)
        fixed = set(fixed_joint_transforms(model).child_frames)
        ros.spin_until(lambda: fixed <= listener.static.keys(), what='/tf_static of the robot')
        rng = np.random.default_rng(0)
        for _ in range(3):
            q = pinocchio_oracle.random_q(model, rng)
            active = np.flatnonzero(model.active_variable_mask)
            msg = JointState(name=[model.variable_names[i] for i in active],
                             position=q[active].tolist())
            before = listener.messages
            pub.publish(msg)
            ros.spin_until(lambda b=before: listener.messages > b, what='/tf for the state')
            X = kin.forward_kinematics(model, q)
            for i, link in enumerate(model.link_names[1:], start=1):
                np.testing.assert_allclose(listener.world_pose(link, model.link_names[0]),
                                           X[i], rtol=0, atol=TF_TOL)
    finally:
        assert child.stop() == 0, child.lines[-20:]


def test_bad_joint_states_never_produce_bad_tf(ros) -> None:
    """NaN, inf, length mismatch, unknown names, empty and huge messages: node alive, no NaN."""
    urdf, roots = _robot('default')
    child = _child(urdf, roots)
    try:
        listener = TfListener(ros)
        pub = ros.node('bad_source').create_publisher(JointState, 'joint_states',
                                                      qos_profile_sensor_data)
        ros.wait_for_subscribers(pub)
        bad = [JointState(name=['elbow_joint'], position=[float('nan')]),
               JointState(name=['elbow_joint'], position=[float('inf')]),
               JointState(name=['elbow_joint', 'lift_joint'], position=[0.1]),
               JointState(name=['no_such_joint'], position=[0.3]),
               JointState(),
               JointState(name=[f'j{i}' for i in range(20000)], position=[0.0] * 20000)]
        # Each bad message is followed by a good one whose /tf we wait for, so the sensor-data
        # (best effort, depth 5) queue never overflows and every bad message is processed.
        for k, msg in enumerate(bad):
            pub.publish(msg)
            angle = 0.1 + 0.05 * k
            before = listener.messages
            pub.publish(JointState(name=['elbow_joint'], position=[angle]))
            ros.spin_until(lambda b=before: listener.messages > b, what='/tf after bad input')
            assert listener.edges['forearm_link'][1][2, 2] == pytest.approx(np.cos(angle))
    finally:
        assert child.stop() == 0
    text = '\n'.join(child.lines)
    assert 'non-finite' in text
    assert "unknown joint variable 'no_such_joint'" in text
    assert text.count("'no_such_joint'") == 1  # warned once
