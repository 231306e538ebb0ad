"""Helpers for tests that use real DDS: contexts, waiting for matches, child processes.

Nothing here sleeps blindly: every wait polls a condition (spinning the executor while it does)
and fails with a clear message when its timeout expires.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
import os
from pathlib import Path
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node

from robot_state_core.ros.params import has_topic_mode

#: Tests of robot_state_publisher's topic mode, which only Kilted's 3.4.4 has (decision R4).
needs_topic_mode = pytest.mark.skipif(
    not has_topic_mode(), reason='no use_robot_description_topic on this distribution (R4)')

#: Generous default for DDS discovery and matching [s] (typically < 0.4 s with our profile).
MATCH_TIMEOUT = 10.0
SHM_DIR = Path('/dev/shm')


#: Name parts of FastDDS shared-memory files: Fast DDS 3 (Kilted) writes ``fastdds_*``, Fast DDS
#: 2.14 (Jazzy's ``fastrtps``) ``fastrtps_*``; data-sharing segments are ``fast_datasharing_*``.
SHM_MARKERS = ('fastdds', 'fastrtps', 'fast_datasharing')


def shm_segments() -> set[str]:
    """Names of FastDDS shared-memory files currently in /dev/shm."""
    if not SHM_DIR.is_dir():
        return set()
    return {p.name for p in SHM_DIR.iterdir() if any(m in p.name for m in SHM_MARKERS)}


def _mapped_shm_segments() -> set[str]:
    """FastDDS segment names that some live process still has mapped (i.e. in use)."""
    in_use: set[str] = set()
    for maps in Path('/proc').glob('[0-9]*/maps'):
        try:
            text = maps.read_text()
        except OSError:  # the process went away or is not ours to read
            continue
        for line in text.splitlines():
            if '/dev/shm/' in line and any(m in line for m in SHM_MARKERS):
                in_use.add(line.rsplit('/', 1)[-1].split(' ')[0])
    return in_use


def assert_no_shm_leftovers(before: set[str], timeout: float = 5.0) -> None:
    """Fail if FastDDS segments created since ``before`` remain unused after ``timeout`` s.

    A leftover is a participant segment (``fastdds_<guid>``, not a per-port one) that no live
    process maps any more: what a participant that was not shut down cleanly leaves behind.
    Segments still mapped by running processes (another DDS user on the machine) are not ours
    to judge.
    """
    def leftovers() -> set[str]:
        new = {n for n in shm_segments() - before if '_port' not in n}
        if not new:
            return new
        mapped = _mapped_shm_segments()
        return {n for n in new if n.removesuffix('_el') not in mapped and n not in mapped}

    deadline = time.monotonic() + timeout
    remaining = leftovers()
    while remaining and time.monotonic() < deadline:
        threading.Event().wait(0.05)
        remaining = leftovers()
    assert not remaining, f'FastDDS shared-memory segments left behind: {sorted(remaining)}'


@dataclass
class RosTestContext:
    """An rclpy context on a private domain plus the nodes and executor of one test."""

    domain_id: int
    context: Context = field(init=False)
    executor: SingleThreadedExecutor = field(init=False)
    nodes: list[Node] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.context = Context()
        rclpy.init(context=self.context, domain_id=self.domain_id)
        self.executor = SingleThreadedExecutor(context=self.context)

    def node(self, name: str, **kwargs: Any) -> Node:
        """Create a plain rclpy node in this context, spun by :attr:`executor`."""
        return self.add(Node(name, context=self.context, **kwargs))

    def add(self, node: Node) -> Node:
        """Register a node created elsewhere (it must use :attr:`context`)."""
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def spin_until(self, predicate: Callable[[], bool], timeout: float = MATCH_TIMEOUT,
                   what: str = 'condition') -> None:
        """Spin the executor until ``predicate()`` holds; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f'timed out after {timeout:.1f} s waiting for {what}')
            self.executor.spin_once(timeout_sec=0.02)

    def wait_for_subscribers(self, publisher: Any, count: int = 1,
                             timeout: float = MATCH_TIMEOUT) -> None:
        """Wait until ``publisher`` is matched with at least ``count`` subscriptions."""
        self.spin_until(lambda: publisher.get_subscription_count() >= count, timeout,
                        f'{count} subscriber(s) on {publisher.topic_name}')

    def wait_for_publishers(self, subscription: Any, count: int = 1,
                            timeout: float = MATCH_TIMEOUT) -> None:
        """Wait until ``subscription`` is matched with at least ``count`` publishers."""
        self.spin_until(lambda: subscription.get_publisher_count() >= count, timeout,
                        f'{count} publisher(s) on {subscription.topic_name}')

    def wait_for_service(self, client: Any, timeout: float = MATCH_TIMEOUT) -> None:
        """Wait until the service behind ``client`` is available."""
        self.spin_until(client.service_is_ready, timeout, f'service {client.srv_name}')

    def close(self) -> None:
        """Destroy every node, shut the executor and context down."""
        for node in self.nodes:
            self.executor.remove_node(node)
            node.destroy_node()
        self.nodes.clear()
        self.executor.shutdown(timeout_sec=1.0)
        rclpy.try_shutdown(context=self.context)


class ChildProcess:
    """A Python child process (same venv and environment) whose stdout lines can be awaited."""

    def __init__(self, args: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.args = [sys.executable, *args]
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, **(env or {})})
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip('\n'))
        self._queue.put(None)

    def wait_for_line(self, needle: str, timeout: float = 30.0) -> str:
        """Return the first output line containing ``needle``; fail on timeout or exit."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f'no line containing {needle!r} within {timeout} s; '
                                     f'output so far: {self.lines}')
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f'child exited ({self.proc.wait()}) before printing '
                                     f'{needle!r}; output: {self.lines}')
            self.lines.append(line)
            if needle in line:
                return line

    def stop(self, timeout: float = 10.0) -> int:
        """Interrupt the child (SIGINT, like Ctrl-C) and return its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=timeout)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)
        return self.proc.returncode
