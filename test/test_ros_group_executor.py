"""CallbackGroupExecutor: worker groups on their own thread, the rest inline, no busy loop.

The service node's compute_ik runs on a worker thread (its callback group is a worker group);
FK, validity and the topics run inline in the spinning thread. What is checked here, with a
small node whose "slow" service blocks until the test releases it:

- an inline callback (service, subscription) is answered while a worker callback runs, and it
  runs in the spinning thread itself;
- callbacks of one worker group never overlap, run on one thread that is not the spinning one;
- an exception in a worker callback is raised by the spinning thread's ``spin_once``;
- a coroutine callback (rclpy's own task handling) still works;
- ``shutdown`` ends the worker threads.
"""

from __future__ import annotations

import os
from pathlib import Path
import threading
import time
from typing import Any

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
std_srvs = pytest.importorskip('std_srvs.srv')
pytest.importorskip('moveit_msgs')
from moveit_msgs.msg import MoveItErrorCodes  # noqa: E402
from moveit_msgs.srv import GetPositionFK, GetPositionIK  # noqa: E402
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.task import Future  # noqa: E402
import ros_testing  # noqa: E402
from std_msgs.msg import String  # noqa: E402
import yaml  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.ros.group_executor import CallbackGroupExecutor  # noqa: E402

Trigger = std_srvs.Trigger
#: How long a call may take before the test fails [s].
CALL_TIMEOUT = 10.0


class _Probe(Node):
    """``slow`` (worker group, blocks until released), ``fast``, ``coro`` and a subscription."""

    def __init__(self, context: Any) -> None:
        super().__init__('group_executor_probe', context=context)
        self.slow_group = MutuallyExclusiveCallbackGroup()
        self.release = threading.Event()
        self.slow_started = threading.Event()
        self.running = 0
        self.max_running = 0
        self.threads: dict[str, set[int]] = {'slow': set(), 'fast': set()}
        self.received: list[str] = []
        self._count_lock = threading.Lock()
        self.create_service(Trigger, 'slow', self._slow, callback_group=self.slow_group)
        self.create_service(Trigger, 'fast', self._fast)
        self.create_service(Trigger, 'coro', self._coro, callback_group=self.slow_group)
        self.hold_started = threading.Event()
        self.hold_future: Future[bool] = Future()
        self.create_service(Trigger, 'hold', self._hold, callback_group=self.slow_group)
        self.create_subscription(String, 'chatter', self._on_chatter, 10)

    def _slow(self, request: Any, response: Any) -> Any:
        with self._count_lock:
            self.running += 1
            self.max_running = max(self.max_running, self.running)
        self.threads['slow'].add(threading.get_ident())
        self.slow_started.set()
        self.release.wait(CALL_TIMEOUT)
        time.sleep(0.02)  # overlap with a second queued call would show in max_running
        with self._count_lock:
            self.running -= 1
        response.success = True
        return response

    def _fast(self, request: Any, response: Any) -> Any:
        self.threads['fast'].add(threading.get_ident())
        response.success = True
        return response

    async def _coro(self, request: Any, response: Any) -> Any:
        response.success = True
        response.message = 'from a coroutine'
        return response

    async def _hold(self, request: Any, response: Any) -> Any:
        self.hold_started.set()
        await self.hold_future  # the group stays busy until the test completes it
        response.success = True
        return response

    def _on_chatter(self, msg: String) -> None:
        self.received.append(msg.data)


class _Spinner:
    """Spins the executor in a thread (``spin_once`` in a loop, as the entry points do)."""

    def __init__(self, executor: CallbackGroupExecutor) -> None:
        self.executor = executor
        self.ident = 0
        self.error: BaseException | None = None
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.ident = threading.get_ident()
        try:
            while not self._stop:
                self.executor.spin_once(timeout_sec=0.1)
        except BaseException as exc:  # reported by the test
            self.error = exc

    def stop(self) -> None:
        self._stop = True
        self.thread.join(timeout=CALL_TIMEOUT)


@pytest.fixture
def probe(ros):
    node = _Probe(ros.context)
    executor = CallbackGroupExecutor([node.slow_group], context=ros.context)
    executor.add_node(node)
    spinner = _Spinner(executor)
    yield node, spinner
    node.release.set()
    executor.shutdown(timeout_sec=2.0)
    spinner.stop()
    node.destroy_node()


def _client(ros, name: str) -> Any:
    client = ros.node(f'client_{name}').create_client(Trigger, name)
    ros.wait_for_service(client)
    return client


def test_inline_callbacks_answer_while_a_worker_callback_runs(
        ros, probe) -> None:
    node, spinner = probe
    slow, fast = _client(ros, 'slow'), _client(ros, 'fast')
    publisher = ros.node('talker').create_publisher(String, 'chatter', 10)
    slow_future = slow.call_async(Trigger.Request())
    ros.spin_until(node.slow_started.is_set, CALL_TIMEOUT, 'the slow callback to start')
    fast_future = fast.call_async(Trigger.Request())
    ros.spin_until(fast_future.done, CALL_TIMEOUT, 'fast')
    ros.wait_for_subscribers(publisher)
    publisher.publish(String(data='hello'))
    ros.spin_until(lambda: node.received == ['hello'], CALL_TIMEOUT, 'the message')
    assert not slow_future.done(), 'the inline callbacks should not wait for the worker one'
    assert fast_future.result().success
    node.release.set()
    ros.spin_until(slow_future.done, CALL_TIMEOUT, 'slow')
    assert slow_future.result().success
    assert node.threads['fast'] == {spinner.ident}  # inline: the spinning thread
    assert spinner.error is None


def test_one_worker_group_runs_one_callback_at_a_time_on_its_own_thread(ros, probe) -> None:
    node, spinner = probe
    slow, coro = _client(ros, 'slow'), _client(ros, 'coro')
    futures = [slow.call_async(Trigger.Request()) for _ in range(3)]
    ros.spin_until(node.slow_started.is_set, CALL_TIMEOUT, 'the slow callback to start')
    node.release.set()
    ros.spin_until(lambda: all(f.done() for f in futures), CALL_TIMEOUT, 'three slow calls')
    assert all(f.result().success for f in futures)
    assert node.max_running == 1
    assert len(node.threads['slow']) == 1 and spinner.ident not in node.threads['slow']
    future = coro.call_async(Trigger.Request())  # rclpy's task path (a coroutine callback)
    ros.spin_until(future.done, CALL_TIMEOUT, 'coro')
    assert future.result().message == 'from a coroutine'
    workers = [t for t in threading.enumerate() if t.name.startswith('callback group')]
    assert workers
    spinner.executor.shutdown(timeout_sec=2.0)
    assert not any(t.is_alive() for t in workers)
    assert spinner.error is None


def test_an_error_in_a_worker_callback_is_raised_by_spin_once(ros) -> None:
    node = Node('raiser', context=ros.context)
    group = MutuallyExclusiveCallbackGroup()
    ran_on: list[int] = []

    def fail() -> None:
        timer.cancel()
        ran_on.append(threading.get_ident())
        raise ValueError('raised on the worker thread')

    timer = node.create_timer(0.01, fail, callback_group=group)
    executor = CallbackGroupExecutor([group], context=ros.context)
    executor.add_node(node)
    try:
        def spin() -> None:
            deadline = time.monotonic() + CALL_TIMEOUT
            while time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.05)

        with pytest.raises(ValueError, match='raised on the worker thread'):
            spin()
        assert ran_on and ran_on[0] != threading.get_ident()
    finally:
        executor.remove_node(node)
        executor.shutdown(timeout_sec=2.0)
        node.destroy_node()


_SERVER = ('import sys; from robot_state_core.ros.main import state_server_main; '
           'sys.exit(state_server_main(sys.argv))')


def test_standalone_server_answers_fk_while_ik_solves(ros, tmp_path) -> None:
    """``robot_state_server`` alone (``_spin_node``) runs compute_ik on a worker thread too.

    Before, it spun the node on a SingleThreadedExecutor: compute_fk waited behind a solve.
    """
    params = tmp_path / 'server.yaml'
    params.write_text(yaml.safe_dump({'robot_state_server': {'ros__parameters': {
        'robot_description': default_robot_urdf_path().read_text(encoding='utf-8'),
        'robot_description_semantic': default_robot_srdf_path().read_text(encoding='utf-8'),
    }}}), encoding='utf-8')
    child = ros_testing.ChildProcess(['-c', _SERVER, '--ros-args', '--params-file', str(params)])
    try:
        child.wait_for_line('services ready', timeout=60)
        node = ros.node('standalone_clients')
        ik = node.create_client(GetPositionIK, 'compute_ik')
        fk = node.create_client(GetPositionFK, 'compute_fk')
        ros.wait_for_service(ik)
        ros.wait_for_service(fk)
        request = GetPositionIK.Request()
        request.ik_request.group_name = 'arm'
        request.ik_request.pose_stamped.header.frame_id = 'world'
        request.ik_request.pose_stamped.pose.position.x = 5.0  # unreachable: the whole 1 s
        request.ik_request.pose_stamped.pose.orientation.w = 1.0
        request.ik_request.timeout.sec = 1
        ik_future = ik.call_async(request)
        time.sleep(0.1)  # the solve has started
        fk_future = fk.call_async(GetPositionFK.Request(fk_link_names=['tool0']))
        ros.spin_until(fk_future.done, CALL_TIMEOUT, 'compute_fk')
        assert not ik_future.done(), 'compute_fk should not wait for the IK solve'
        assert fk_future.result().error_code.val == MoveItErrorCodes.SUCCESS
        ros.spin_until(ik_future.done, CALL_TIMEOUT, 'compute_ik')
        assert ik_future.result().error_code.val == MoveItErrorCodes.NO_IK_SOLUTION
    finally:
        assert child.stop() == 0


def test_a_worker_group_service_is_waited_for_and_answered_by_its_worker(ros, probe) -> None:
    """The spinning thread never handles the worker's requests: no handler is made for them."""
    node, spinner = probe
    node.release.set()
    slow = _client(ros, 'slow')
    handled: list[Any] = []
    make_handler = spinner.executor._make_handler

    def counting(entity: Any, *args: Any) -> Any:
        handled.append(entity)
        return make_handler(entity, *args)

    spinner.executor._make_handler = counting  # type: ignore[method-assign]
    for _ in range(10):
        future = slow.call_async(Trigger.Request())
        ros.spin_until(future.done, CALL_TIMEOUT, 'slow')
        assert future.result().success
    assert not handled, 'the spinning thread took a request of a worker-group service'
    assert len(node.threads['slow']) == 1 and spinner.ident not in node.threads['slow']
    assert node.max_running == 1
    assert spinner.error is None


def test_worker_services_follow_nodes_and_services_that_come_and_go(ros, probe) -> None:
    """A node added while spinning, and a service destroyed and made again, are served."""
    node, spinner = probe
    other = Node('group_executor_late', context=ros.context)
    answered_on: list[int] = []

    def late(request: Any, response: Any) -> Any:
        answered_on.append(threading.get_ident())
        response.success = True
        return response

    try:
        service = other.create_service(Trigger, 'late', late, callback_group=node.slow_group)
        spinner.executor.add_node(other)
        client = _client(ros, 'late')
        for round_ in range(2):
            future = client.call_async(Trigger.Request())
            ros.spin_until(future.done, CALL_TIMEOUT, f'late (round {round_})')
            assert future.result().success
            if round_ == 0:  # destroy it while the worker waits on it; make it again
                other.destroy_service(service)
                service = other.create_service(Trigger, 'late', late,
                                               callback_group=node.slow_group)
                ros.wait_for_service(client)
        assert len(set(answered_on)) == 1 and spinner.ident not in answered_on
        assert spinner.error is None
    finally:
        spinner.executor.remove_node(other)
        other.destroy_node()


def _worker_cpu_s() -> float | None:
    """CPU time [s] of the (first) worker thread so far, from /proc (None: not started)."""
    worker = next((t for t in threading.enumerate() if t.name.startswith('callback group')),
                  None)
    if worker is None or worker.native_id is None:
        return None
    fields = Path(f'/proc/self/task/{worker.native_id}/stat').read_text().rsplit(')', 1)[1]
    utime, stime = fields.split()[11:13]
    return (int(utime) + int(stime)) / os.sysconf('SC_CLK_TCK')


def test_a_worker_request_waits_while_its_group_runs_a_coroutine(ros, probe) -> None:
    """A worker request waits while its group runs a coroutine callback, then is answered.

    The coroutine is an rclpy task of the spinning thread; it holds the group until it ends.
    """
    node, spinner = probe
    node.release.set()
    hold, slow = _client(ros, 'hold'), _client(ros, 'slow')
    hold_future = hold.call_async(Trigger.Request())
    ros.spin_until(node.hold_started.is_set, CALL_TIMEOUT, 'the coroutine to start')
    slow_future = slow.call_async(Trigger.Request())
    ros.spin_until(lambda: _worker_cpu_s() is not None, CALL_TIMEOUT, 'the worker thread')
    cpu_before = _worker_cpu_s()
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        ros.executor.spin_once(timeout_sec=0.02)
    assert not slow_future.done(), 'the group is busy with the coroutine'
    cpu_after = _worker_cpu_s()
    assert cpu_before is not None and cpu_after is not None
    cpu = cpu_after - cpu_before
    assert cpu < 0.1, f'the waiting worker used {cpu:.2f} s of CPU in 0.5 s (a busy loop)'
    node.hold_future.set_result(True)
    ros.spin_until(lambda: hold_future.done() and slow_future.done(), CALL_TIMEOUT, 'both')
    assert hold_future.result().success and slow_future.result().success
    assert len(node.threads['slow']) == 1 and spinner.ident not in node.threads['slow']
    assert node.max_running == 1
    assert spinner.error is None
