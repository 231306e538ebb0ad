"""Helpers for the robot_state_publisher tests that run our node as a real process over DDS.

Nothing here sleeps blindly: every wait spins the test's executor until a condition holds, and
fails at once (with the child's output) if the node process has exited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
import time
from typing import Any

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
import ros_testing
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
import yaml

#: tf2_ros TransformListener's QoS: /tf reliable depth 100, /tf_static transient local depth 100.
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TF_STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: robot_state_publisher's robot_description QoS: ``QoS(1).transient_local()`` (reliable).
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)

_ENTRY = 'import sys; from robot_state_core.ros.main import {0} as m; sys.exit(m())'
#: Entry points as their console scripts run them (``robot_state_publisher``,
#: ``robot_state_core_all``), with this checkout's code.
STATE_PUBLISHER = _ENTRY.format('state_publisher_main')
ALL_IN_ONE = _ENTRY.format('all_in_one_main')


def node_process(*argv: str, entry: str = STATE_PUBLISHER) -> ros_testing.ChildProcess:
    """Start an entry point in a child process with the command line ``argv``."""
    return ros_testing.ChildProcess(['-c', entry, *argv])


def params_file(directory: Path, **parameters: Any) -> Path:
    """A ``--params-file`` for every node (``/**``), as launch_ros writes for ``parameters``."""
    path = directory / 'params.yaml'
    path.write_text(yaml.safe_dump({'/**': {'ros__parameters': parameters}}), encoding='utf-8')
    return path


@dataclass(frozen=True)
class Edge:
    """One received transform: ``child`` in ``parent``."""

    parent: str
    translation: tuple[float, float, float]
    quat_xyzw: tuple[float, float, float, float]


class TfRecorder:
    """Records /tf, /tf_static and robot_description as a plain rclpy subscriber would."""

    def __init__(self, ros: Any, name: str = 'rsp_test_listener') -> None:
        self.ros = ros
        self.node = ros.node(name)
        self.edges: dict[str, Edge] = {}
        self.static_messages: list[TFMessage] = []
        self.descriptions: list[str] = []
        self.node.create_subscription(TFMessage, '/tf', self._on_tf, TF_QOS)
        self.node.create_subscription(TFMessage, '/tf_static', self._on_static, TF_STATIC_QOS)
        self.node.create_subscription(String, 'robot_description',
                                      lambda m: self.descriptions.append(m.data), LATCHED)

    def _on_tf(self, msg: TFMessage) -> None:
        for t in msg.transforms:
            p, q = t.transform.translation, t.transform.rotation
            self.edges[t.child_frame_id] = Edge(t.header.frame_id, (p.x, p.y, p.z),
                                                (q.x, q.y, q.z, q.w))

    def _on_static(self, msg: TFMessage) -> None:
        self.static_messages.append(msg)
        self._on_tf(msg)

    def can_transform(self, parent: str, child: str) -> bool:
        """Whether a transform ``child`` in ``parent`` was received (direct edge)."""
        edge = self.edges.get(child)
        return edge is not None and edge.parent == parent

    def lookup(self, parent: str, child: str) -> Edge:
        """The last transform of ``child`` in ``parent``."""
        assert self.can_transform(parent, child), (parent, child, self.edges)
        return self.edges[child]

    def frames(self) -> set[str]:
        """Every frame id seen, parents and children."""
        return set(self.edges) | {e.parent for e in self.edges.values()}


def spin_until(ros: Any, child: ros_testing.ChildProcess, predicate: Callable[[], bool],
               what: str, timeout: float = 10.0, tick: Callable[[], None] | None = None) -> None:
    """Spin until ``predicate()``; fail on timeout or as soon as the node process exits.

    Args:
        ros: The test's ``RosTestContext``.
        child: The node process.
        predicate: The condition.
        what: Description for the failure message.
        timeout: Seconds (upstream's tests poll 100 x 100 ms = 10 s).
        tick: Called before every spin (e.g. to publish a JointState again).
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        code = child.proc.poll()
        if code is not None:
            child.stop()
            raise AssertionError(f'node process exited ({code}) before {what}: {child.lines}')
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout:.1f} s waiting for {what}')
        if tick is not None:
            tick()
        ros.executor.spin_once(timeout_sec=0.02)
