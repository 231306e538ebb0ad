"""Issue 10, node items 1-7: what a hostile or careless client does to ``robot_state_core_all``.

Not a test (nothing asserts): it measures, over real DDS on loopback and a private domain, the
figures the issue asks for, against any checkout (``--checkout``, default this one), so the same
script gives the before and after numbers:

1. /tf after a zero floating-joint quaternion followed by a translation-only update (is a
   transform published, is it finite);
2. the node's resident memory (VmRSS) while it receives 10^6 distinct unknown joint names
   (``--messages`` x ``--names`` fresh names, each message paced by its /tf);
3. compute_fk on a link that only the new description has, after a runtime description change;
4. compute_fk latency while an 8 s compute_ik runs, and how long that compute_ik takes;
5. the compute_ik codes for a NaN goal, a zero-quaternion goal and an orientation constraint
   with an unknown parameterization;
6. the stderr bytes and lines written for 1 000 garbage requests (100 kB group names);
7. the README recipe ``-p robot_description:="$(cat robot.urdf)"`` on the embedded robot (exit
   code and output lines after 10 s).

Usage::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_node_hostile.py [--checkout DIR]
        [--messages 100] [--names 10000] [--domain 190]

Needs the dev venv (rclpy, moveit_msgs). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from common import dds_env, REPO_ROOT

ROBOT = REPO_ROOT / 'test' / 'resources' / 'all_joint_types.urdf'
ENTRY = 'import sys; from robot_state_core.ros.main import {0} as m; sys.exit(m())'


def _env(checkout: Path, domain: int) -> dict[str, str]:
    return {**dds_env(domain, sys.prefix), 'PYTHONPATH': str(checkout)}


class NodeProcess:
    """An entry point of the checkout in a child process; stderr goes to a file (its bytes)."""

    def __init__(self, checkout: Path, domain: int, entry: str, *argv: str) -> None:
        """Start ``entry`` of ``checkout`` with ``argv`` on ROS domain ``domain``."""
        self.err = tempfile.NamedTemporaryFile(prefix='node_stderr_', delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen([sys.executable, '-c', ENTRY.format(entry), *argv],
                                     stdout=subprocess.DEVNULL, stderr=self.err,
                                     env=_env(checkout, domain), cwd=tempfile.gettempdir())

    def stderr_bytes(self) -> int:
        """Bytes written to stderr so far."""
        return os.path.getsize(self.err.name)

    def stderr_text(self) -> str:
        """The stderr text so far."""
        return Path(self.err.name).read_text(errors='replace')

    def rss_mib(self) -> float:
        """Resident memory of the process [MiB]."""
        for line in Path(f'/proc/{self.proc.pid}/status').read_text().splitlines():
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
        return math.nan

    def stop(self) -> int:
        """SIGINT, wait (kill after 15 s); the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.unlink(self.err.name)
        return self.proc.returncode


class Client:
    """Plain rclpy in this process: publishers, service clients, a /tf recorder."""

    def __init__(self, domain: int) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import QoSProfile, ReliabilityPolicy
        from sensor_msgs.msg import JointState
        from tf2_msgs.msg import TFMessage

        self.rclpy = rclpy
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain)
        self.node = rclpy.create_node('bench_hostile', context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.JointState = JointState
        self.pub = self.node.create_publisher(
            JointState, 'joint_states', QoSProfile(depth=100,
                                                   reliability=ReliabilityPolicy.RELIABLE))
        self.tf: dict[str, tuple[float, ...]] = {}
        self.non_finite = 0
        self.node.create_subscription(TFMessage, '/tf', self._on_tf,
                                      QoSProfile(depth=100,
                                                 reliability=ReliabilityPolicy.RELIABLE))

    def _on_tf(self, msg: Any) -> None:
        for t in msg.transforms:
            p, q = t.transform.translation, t.transform.rotation
            values = (p.x, p.y, p.z, q.x, q.y, q.z, q.w)
            if not all(math.isfinite(v) for v in values):
                self.non_finite += 1
            self.tf[t.child_frame_id] = values

    def spin_until(self, predicate: Any, timeout: float) -> bool:
        """Spin until ``predicate()``; False after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.01)
        return True

    def call(self, service_type: Any, name: str, request: Any, timeout: float = 30.0) -> Any:
        """Call a service; its response, or None."""
        client = self.node.create_client(service_type, name)
        try:
            if not self.spin_until(client.service_is_ready, 30.0):
                return None
            future = client.call_async(request)
            self.spin_until(future.done, timeout)
            return future.result() if future.done() else None
        finally:
            self.node.destroy_client(client)

    def close(self) -> None:
        """Destroy the node and shut the context down."""
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


def _publisher_figures(args: argparse.Namespace, rows: list[tuple[str, str]]) -> None:
    node = NodeProcess(args.checkout, args.domain, 'all_in_one_main', str(ROBOT), '--ros-args',
                       '-p', 'ignore_timestamp:=true')
    client = Client(args.domain)
    try:
        client.spin_until(lambda: client.pub.get_subscription_count() >= 2, 60.0)
        marker = itertools.count(1)

        def paced(names: list[str], values: list[float]) -> bool:
            value = next(marker) * 1e-3
            client.pub.publish(client.JointState(name=['float/trans_x', *names],
                                                 position=[value, *values]))
            return client.spin_until(
                lambda: 'floating_body' in client.tf and client.tf['floating_body'][0] != 0.0
                and abs(client.tf['floating_body'][0] - _x(value)) < 1e-9, 10.0)

        paced([], [])
        fresh = itertools.count()
        for _ in range(3):
            paced([f'warm_{next(fresh)}' for _ in range(args.names)], [0.0] * args.names)
        before = node.rss_mib()
        checkpoints = []
        lost = 0
        for k in range(1, args.messages + 1):
            names = [f'hostile_joint_{next(fresh):09d}' for _ in range(args.names)]
            if not paced(names, [0.0] * len(names)):
                lost += 1
            if k % max(1, args.messages // 5) == 0:
                checkpoints.append(f'{k * args.names:,}: +{node.rss_mib() - before:.1f}')
        rows.append((f'2. node RSS growth over {args.messages * args.names:,} distinct unknown '
                     'names [MiB]', f'start {before:.0f} MiB; ' + ', '.join(checkpoints)
                     + (f' ({lost} messages without /tf)' if lost else '')))
        # 1 after 2: on the old code a zero quaternion stuck, and no later message published
        rot = ['float/rot_x', 'float/rot_y', 'float/rot_z', 'float/rot_w']
        client.pub.publish(client.JointState(name=rot, position=[0.0, 0.0, 0.0, 0.0]))
        arrived = paced([], [])
        rows.append(('1. /tf after a zero quaternion, then a translation-only update',
                     f'{"published" if arrived else "nothing published (10 s)"}; '
                     f'{client.non_finite} non-finite transforms'))
    finally:
        client.close()
        node.stop()


def _x(trans_x: float) -> float:
    """X of the floating body's translation for ``float/trans_x`` (origin xyz/rpy 0.1 0.2 0.3)."""
    cy, cp = math.cos(0.3), math.cos(0.2)
    return 0.1 + cy * cp * trans_x


def _service_figures(args: argparse.Namespace, rows: list[tuple[str, str]]) -> None:
    from geometry_msgs.msg import PoseStamped
    from moveit_msgs.msg import Constraints, MoveItErrorCodes, OrientationConstraint
    from moveit_msgs.srv import GetPositionFK, GetPositionIK, GetStateValidity
    from rcl_interfaces.msg import Parameter as ParameterMsg
    from rcl_interfaces.msg import ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters

    robots = args.checkout / 'robot_state_core' / 'robots' / 'rsc_mobile_manipulator'
    urdf = robots / 'rsc_mobile_manipulator.urdf'
    srdf = (robots / 'rsc_mobile_manipulator.srdf').read_text()
    params = Path(tempfile.mkdtemp()) / 'params.yaml'
    params.write_text('/**:\n  ros__parameters:\n    robot_description_semantic: |\n'
                      + ''.join(f'      {line}\n' for line in srdf.splitlines()))
    node = NodeProcess(args.checkout, args.domain, 'all_in_one_main', str(urdf), '--ros-args',
                       '--params-file', str(params))
    client = Client(args.domain)
    names = {v: k for k, v in vars(MoveItErrorCodes).items() if k.isupper()
             and isinstance(v, int)}
    try:
        # 3. description change, then compute_fk on a new link
        text = urdf.read_text().replace('</robot>', '<link name="bench_lidar"/><joint '
                                        'name="bench_mount" type="fixed"><parent link="tool0"/>'
                                        '<child link="bench_lidar"/></joint></robot>')
        value = ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=text)
        set_result = client.call(SetParameters, '/robot_state_publisher/set_parameters',
                                 SetParameters.Request(parameters=[ParameterMsg(
                                     name='robot_description', value=value)]))
        ok = set_result is not None and set_result.results[0].successful
        fk = GetPositionFK.Request(fk_link_names=['bench_lidar'])
        response = client.call(GetPositionFK, 'compute_fk', fk)
        code = response.error_code.val if response else None
        rows.append(('3. compute_fk on a link of the new description',
                     f'description accepted: {ok}; {code} ({names.get(code, "?")})'))

        # 4. compute_fk while an 8 s compute_ik runs
        ik_client = client.node.create_client(GetPositionIK, 'compute_ik')
        client.spin_until(ik_client.service_is_ready, 30.0)
        ik = GetPositionIK.Request()
        ik.ik_request.group_name = 'arm'
        ik.ik_request.pose_stamped = PoseStamped()
        ik.ik_request.pose_stamped.header.frame_id = 'world'
        ik.ik_request.pose_stamped.pose.position.x = 5.0
        ik.ik_request.pose_stamped.pose.orientation.w = 1.0
        ik.ik_request.timeout.sec = 8
        started = time.monotonic()
        ik_future = ik_client.call_async(ik)
        client.spin_until(lambda: False, 0.3)  # the solve is under way
        fk_started = time.monotonic()
        client.call(GetPositionFK, 'compute_fk', GetPositionFK.Request(fk_link_names=['tool0']))
        fk_ms = (time.monotonic() - fk_started) * 1e3
        client.spin_until(ik_future.done, 30.0)
        ik_s = time.monotonic() - started
        message = ik_future.result().error_code.message if ik_future.done() else 'no answer'
        rows.append(('4. compute_fk latency during an 8 s compute_ik; the compute_ik',
                     f'{fk_ms:.0f} ms; {ik_s:.2f} s ({message[-60:]})'))

        # 5. codes
        codes = []
        for what, change in (('NaN goal', lambda r: setattr(
                r.ik_request.pose_stamped.pose.position, 'x', math.nan)),
                ('zero-quaternion goal', lambda r: setattr(
                    r.ik_request.pose_stamped.pose.orientation, 'w', 0.0)),
                ('parameterization 7', lambda r: setattr(r.ik_request, 'constraints', Constraints(
                    orientation_constraints=[OrientationConstraint(
                        link_name='tool0', parameterization=7, absolute_x_axis_tolerance=3.2,
                        absolute_y_axis_tolerance=3.2, absolute_z_axis_tolerance=3.2,
                        weight=1.0)])))):
            request = GetPositionIK.Request()
            request.ik_request.group_name = 'arm'
            request.ik_request.pose_stamped.header.frame_id = 'world'
            request.ik_request.pose_stamped.pose.position.x = 0.3
            request.ik_request.pose_stamped.pose.position.z = 1.0
            request.ik_request.pose_stamped.pose.orientation.w = 1.0
            request.ik_request.timeout.nanosec = 100_000_000
            change(request)
            response = client.call(GetPositionIK, 'compute_ik', request)
            code = response.error_code.val if response else None
            codes.append(f'{what}: {code} ({names.get(code, "?")})')
        rows.append(('5. compute_ik codes', '; '.join(codes)))

        # 6. 1 000 garbage requests
        start_bytes = node.stderr_bytes()
        start_lines = node.stderr_text().count('\n')
        huge = 'g' * 100_000
        for k in range(500):
            request = GetPositionIK.Request()
            request.ik_request.group_name = f'{huge}{k}'
            client.call(GetPositionIK, 'compute_ik', request)
            client.call(GetStateValidity, 'check_state_validity',
                        GetStateValidity.Request(group_name=f'{huge}{k}'))
        time.sleep(0.5)
        rows.append(('6. stderr for 1 000 garbage requests (100 kB group names)',
                     f'{node.stderr_bytes() - start_bytes:,} bytes, '
                     f'{node.stderr_text().count(chr(10)) - start_lines} lines'))
    finally:
        client.close()
        node.stop()


def _recipe_figure(args: argparse.Namespace, rows: list[tuple[str, str]]) -> None:
    urdf = args.checkout / 'robot_state_core' / 'robots' / 'rsc_mobile_manipulator' / \
        'rsc_mobile_manipulator.urdf'
    text = urdf.read_text().rstrip('\n')  # what "$(cat robot.urdf)" passes
    node = NodeProcess(args.checkout, args.domain, 'state_publisher_main', '--ros-args', '-p',
                       f'robot_description:={text}')
    with contextlib.suppress(subprocess.TimeoutExpired):
        node.proc.wait(timeout=10)
    code = node.proc.poll()
    out = node.stderr_text()
    traceback = 'Traceback' in out
    node.stop()
    rows.append(('7. README recipe -p robot_description:="$(cat robot.urdf)", embedded robot',
                 f'{"running after 10 s" if code is None else f"exit code {code}"}; '
                 f'{out.count(chr(10))} stderr lines'
                 f'{", a Python traceback" if traceback else ""}'))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--checkout', type=Path, default=REPO_ROOT)
    parser.add_argument('--messages', type=int, default=100)
    parser.add_argument('--names', type=int, default=10_000)
    parser.add_argument('--domain', type=int, default=190)
    args = parser.parse_args()
    args.checkout = args.checkout.resolve()
    rows: list[tuple[str, str]] = []
    for part in (_publisher_figures, _service_figures, _recipe_figure):
        started = time.monotonic()
        try:
            part(args, rows)
        except Exception as exc:  # a benchmark reports, it does not stop
            rows.append((part.__name__, f'failed: {type(exc).__name__}: {exc}'))
        print(f'{part.__name__}: {time.monotonic() - started:.0f} s', file=sys.stderr,
              flush=True)
    print(f'checkout {args.checkout}, load {os.getloadavg()[0]:.1f}, '
          f'{threading.active_count()} threads\n')
    print('| item | measured |\n|---|---|')
    for item, value in sorted(rows):
        print(f'| {item} | {value} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
