"""Process entry points of the ROS layer (console scripts and the CLI's ``run``)."""

from __future__ import annotations

import os
from pathlib import Path
import sys
import time
from typing import TextIO

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.parameter import Parameter

from robot_state_core.errors import RobotStateCoreError
from robot_state_core.ros.state_publisher_node import StatePublisherNode


def state_publisher_main(args: list[str] | None = None) -> int:
    """``ros2 run robot_state_core robot_state_publisher`` (parameters via ``--ros-args``)."""
    rclpy.init(args=args)
    try:
        node = StatePublisherNode()
    except RobotStateCoreError as exc:
        print(f'robot_state_publisher: {exc}', file=sys.stderr)
        rclpy.try_shutdown()
        return 1
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


def run(urdf_path: Path, *, duration: float | None = None, frame_prefix: str = '',
        status_period: float = 1.0, out: TextIO = sys.stdout) -> int:
    """Run the state publisher on a URDF file and print a live status line.

    Args:
        urdf_path: URDF file to publish.
        duration: Stop after this many seconds (``None``: until Ctrl-C).
        frame_prefix: Prefix for every frame id.
        status_period: Seconds between status updates.
        out: Stream for the status line (a TTY gets an in-place line, anything else one line
            per update).

    Returns:
        The process exit code.
    """
    description = urdf_path.read_text(encoding='utf-8')
    rclpy.init()
    node = None
    try:
        try:
            node = StatePublisherNode(parameter_overrides=[
                Parameter('robot_description', value=description),
                Parameter('frame_prefix', value=frame_prefix)])
        except RobotStateCoreError as exc:
            print(f'robot-state-core run: {exc}', file=sys.stderr)
            return 1
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        dds = (f"domain {os.environ.get('ROS_DOMAIN_ID', '0')}, discovery "
               f"{os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE', 'SUBNET (default)')}")
        print(f"published robot '{node.robot_name}' ({node.model.link_count} links, "
              f'{node.model.joint_count} joints): /robot_description and '
              f'{node.static_transform_count} transforms on /tf_static [{dds}]',
              file=out, flush=True)
        start = time.monotonic()
        next_status = start
        tty = out.isatty()
        while rclpy.ok() and (duration is None or time.monotonic() - start < duration):
            executor.spin_once(timeout_sec=0.1)
            now = time.monotonic()
            if now >= next_status:
                counts = node.subscriber_counts()
                line = (f'[{now - start:6.1f} s] {node.robot_name}: subscribers '
                        + ', '.join(f'{k}={v}' for k, v in counts.items()))
                print(('\r' + line) if tty else line, end='' if tty else '\n', file=out,
                      flush=True)
                next_status = now + status_period
        if tty:
            print(file=out)
        return 0
    except (KeyboardInterrupt, ExternalShutdownException):
        return 0
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
