"""An rclpy executor that runs chosen callback groups on their own worker threads.

Why not rclpy's ``MultiThreadedExecutor`` (``num_threads=3``, what the entry points used):
measured on the default robot's service node (``robot-state-core run``, one request at a time,
2-core machine under load 1.7-1.9), it spent 2.5-3.4 ms of process CPU per compute_fk request
(its callback costs 0.2-0.25 ms in process), spread over the spinning thread and three pool
threads; this executor spends 1.0-1.3 ms, all in the spinning thread. In rclpy before 10.0.4
(ros2/rclpy#1452, fixed by ros2/rclpy#1547) a handler submitted to the pool stays in the
executor's task list until a pool thread starts it, and meanwhile every ``spin_once`` yields it
again and returns at once (two ``spin_once`` returns per request measured, one here); each
handler also wakes the spinning thread twice (after taking the request, after the callback),
and the pool hop costs a thread switch even for a 0.2 ms callback. (While a callback runs, the
MultiThreadedExecutor does not spin: the pending-handler loop is a per-request cost.)

:class:`CallbackGroupExecutor` keeps rclpy's wait logic (``wait_for_ready_callbacks``) for the
spinning thread and changes which thread waits for what and runs it:

- a *worker group* has its own thread (started with the first ``spin_once``), so a long
  callback there (an IK solve) never delays the others;
- the worker **waits for its group's services itself** (an rcl wait set of those services and
  one guard condition; they are left out of the spinning thread's wait set): a request is
  taken, answered and sent by the thread that was woken for it, as in a single-threaded
  executor; the spinning thread is not woken, and no thread hands the request over. Measured on
  the services benchmark (``robot-state-core run``, compute_ik with distinct targets), the
  round trip's overhead over the empty-service floor and the in-process solve fell from
  1.1-1.4 ms (hand-off from the spinning thread, whose wait-set rebuild then competed for the
  GIL) to about 0.4 ms, with the cheaper conversions of ``moveit_conversions``;
- the group's other entities (subscriptions, timers...) stay in the spinning thread's wait set
  and are queued to the worker (:meth:`_GroupWorker.submit`, which hands an idle worker the GIL
  at once); the spinning thread is woken when the group is free again only if it left one of
  them out meanwhile;
- every other callback runs inline in the spinning thread, as in ``SingleThreadedExecutor``
  (a thread for every group was measured too: compute_fk then paid a thread hop, 0.3 ms more
  per round trip in one run of the services benchmark); a handler is never put in the
  executor's task list, so nothing is yielded twice;
- coroutine callbacks and waitables (which may await) and tasks made with ``create_task`` keep
  rclpy's own handling (run inline, resumed by the spinning thread); a coroutine service of a
  worker group stays in the spinning thread's wait set.

Call :meth:`~CallbackGroupExecutor.shutdown` before destroying the nodes: it stops the workers
(the entry points do).

Exceptions raised by a callback on a worker thread are raised by the next ``spin_once`` of the
spinning thread, as ``MultiThreadedExecutor`` does. Works with rclpy 7.1 (Jazzy) and 9.x
(Kilted): it relies on ``Executor._make_handler(entity, node, take_from_wait_list)``, the
``_take_*`` methods, ``_work_tracker`` and ``_rclpy.WaitSet``, present in both.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
import contextlib
import functools
import inspect
import queue
import threading
import time
from typing import Any

from rclpy.callback_groups import CallbackGroup, MutuallyExclusiveCallbackGroup
from rclpy.context import Context
from rclpy.exceptions import InvalidHandle
from rclpy.executors import (
    ConditionReachedException,
    Executor,
    ExternalShutdownException,
    ShutdownException,
    TimeoutException,
)
from rclpy.guard_condition import GuardCondition
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.service import Service
from rclpy.task import Future

#: Longest wait [s] of the spinning thread for an idle worker to pick up a callback.
HANDOFF_TIMEOUT_S = 0.005
#: How often [s] a worker looks again at a request of its group while the group runs a
#: coroutine callback in the spinning thread (the only case where it is busy elsewhere).
BUSY_GROUP_POLL_S = 0.001


class _Dispatch:
    """One ready callback: take its request/message and run it (inline or on a worker)."""

    __slots__ = ('entity', 'executor', 'take', 'worker')

    def __init__(self, executor: CallbackGroupExecutor, entity: Any,
                 take: Callable[[Any], Any], worker: _GroupWorker | None) -> None:
        self.executor = executor
        self.entity = entity
        self.take = take
        self.worker = worker

    def run(self) -> None:
        """Take the entity's data and run its callback to the end (rclpy's handler steps)."""
        executor, entity = self.executor, self.entity
        group = entity.callback_group
        on_worker = self.worker is not None
        if executor._is_shutdown or (group is not None
                                     and not group.beginning_execution(entity)):
            entity._executor_event = False  # not taken: back into the wait set
            executor._wake_waiter()
            return
        with executor._work_tracker:
            try:
                call = self.take(entity)
                entity._executor_event = False
                if on_worker and not isinstance(group, MutuallyExclusiveCallbackGroup):
                    executor._wake_waiter()  # a reentrant group may run this entity again
                if call is not None:
                    coroutine = call()
                    try:
                        coroutine.send(None)
                    except StopIteration:
                        pass
                    else:  # only plain callbacks are dispatched here (see _make_handler)
                        coroutine.close()
                        raise RuntimeError(f'callback of {entity!r} awaited: not supported '
                                           'on a worker thread')
            finally:
                if group is not None:
                    group.ending_execution(entity)
                if self.worker is not None:
                    self.worker.group_done()

    def __call__(self) -> None:
        self.run()


class _GroupWorker:
    """A thread that runs one callback group's callbacks, one after the other.

    The worker waits for its group's services itself: their requests are in its own rcl wait
    set (those services and one guard condition), never in the spinning thread's, so a request
    is taken, answered and sent by the thread that waited for it, as a single-threaded
    executor would, with no thread hop and no wake-up of the spinning thread. The group's other
    entities (subscriptions, timers...) stay in the spinning thread's wait set and are handed
    over (:meth:`submit`).
    """

    def __init__(self, executor: CallbackGroupExecutor, group: CallbackGroup, name: str) -> None:
        self._executor = executor
        self.group = group
        self._queue: collections.deque[_Dispatch] = collections.deque()
        self._pending = 0  # submitted and not finished
        self._pending_lock = threading.Lock()
        self._started = threading.Event()
        self._stopping = False
        #: Set by the spinning thread while it leaves out an entity of this group because the
        #: group is busy; the worker then wakes it when the group is free again.
        self.main_waiting = False
        self._guard = GuardCondition(None, None, context=executor.context)
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def wake(self) -> None:
        """Make the worker rebuild its wait set (a node or service came or went, or stop)."""
        with contextlib.suppress(Exception):  # destroyed by a shutdown meanwhile
            self._guard.trigger()

    def submit(self, dispatch: _Dispatch) -> None:
        """Queue ``dispatch``; when the worker was idle, return once it has picked it up.

        The hand-off wait (at most :data:`HANDOFF_TIMEOUT_S`, typically tens of µs) releases
        the GIL to the worker at once; without it the worker waits for the spinning thread to
        reach a GIL switch (``sys.getswitchinterval()``), measured 0.23-0.28 ms per callback
        with the entry points' 0.25 ms interval (0.07 ms with the wait). A busy worker (a long
        solve) is not waited for.
        """
        with self._pending_lock:
            idle = self._pending == 0
            self._pending += 1
        if idle:
            self._started.clear()
        self._queue.append(dispatch)
        self.wake()
        if idle:
            self._started.wait(HANDOFF_TIMEOUT_S)

    def group_done(self) -> None:
        """After a callback of the group: wake the spinning thread if it waits for the group."""
        if self.main_waiting:
            self.main_waiting = False
            self._executor._wake_waiter()

    def stop(self) -> None:
        self._stopping = True
        self.wake()

    def _loop(self) -> None:
        executor = self._executor
        try:
            while not self._stopping and executor.context.ok():
                services = executor.worker_services(self.group)
                try:
                    ready = self._wait(services)
                except Exception as exc:  # raised again by the spinning thread; worker ends
                    executor._errors.put(exc)
                    executor._wake_waiter()
                    return
                while self._queue:
                    item = self._queue.popleft()
                    self._started.set()
                    self._run(item.run)
                for srv in services:
                    if srv.handle.pointer in ready and not self._stopping:
                        if not self.group.can_execute(srv):
                            # the group runs a coroutine callback in the spinning thread (its
                            # own rclpy task): the request waits; poll instead of spinning
                            time.sleep(BUSY_GROUP_POLL_S)
                            continue
                        with self._pending_lock:
                            self._pending += 1
                        self._run(functools.partial(self._serve, srv))
        finally:
            with contextlib.suppress(Exception):
                self._guard.destroy()

    def _run(self, call: Callable[[], None]) -> None:
        try:
            call()
        except Exception as exc:  # raised again by the spinning thread
            self._executor._errors.put(exc)
            self._executor._wake_waiter()
        finally:
            with self._pending_lock:
                if self._pending:
                    self._pending -= 1

    def _wait(self, services: list[Any]) -> set[int]:
        """Wait for a request of ``services`` or the guard; the ready services' pointers."""
        context = self._executor.context
        with contextlib.ExitStack() as stack:
            handles = []
            for srv in services:
                try:
                    stack.enter_context(srv.handle)
                    handles.append(srv.handle)
                except InvalidHandle:  # destroyed meanwhile
                    pass
            try:
                stack.enter_context(self._guard.handle)
                stack.enter_context(context.handle)
                wait_set = _rclpy.WaitSet(0, 1, 0, 0, len(handles), 0, context.handle)
                wait_set.clear_entities()
                for handle in handles:
                    wait_set.add_service(handle)
                wait_set.add_guard_condition(self._guard.handle)
                wait_set.wait(-1)  # releases the GIL
            except Exception:  # the context or the guard went away: stopping
                if not self._stopping and context.ok():
                    raise
                return set()
            return set(wait_set.get_ready_entities('service'))

    def _serve(self, srv: Any) -> None:
        """Take one request of ``srv``, run its callback, send the response."""
        group = self.group
        if not group.beginning_execution(srv):  # (taken meanwhile: tried again next round)
            return
        try:
            with self._executor._work_tracker:
                try:
                    with srv.handle:
                        request, header = srv.handle.service_take_request(srv.srv_type.Request)
                    if header is None:
                        return
                    response = srv.callback(request, srv.srv_type.Response())
                    srv.send_response(response, header)
                except InvalidHandle:  # the service was destroyed meanwhile
                    pass
        finally:
            group.ending_execution(srv)
            self.group_done()


class CallbackGroupExecutor(Executor):
    """Runs worker groups' callbacks on one thread per group, the rest inline.

    Args:
        worker_groups: The callback groups whose callbacks run on their own thread (each group
            one thread); every other callback runs in the thread that spins.
        context: The rclpy context (``None``: the default one).
    """

    def __init__(self, worker_groups: Iterable[CallbackGroup], *,
                 context: Context | None = None) -> None:
        super().__init__(context=context)
        self._worker_groups = list(worker_groups)
        self._workers: dict[int, _GroupWorker] = {}
        self._workers_lock = threading.Lock()
        self._errors: queue.SimpleQueue[BaseException] = queue.SimpleQueue()

    # ------------------------------------------------------------------ dispatch

    def _wake_waiter(self) -> None:
        guard = self._guard
        if guard is not None:
            with contextlib.suppress(Exception):  # destroyed by a shutdown meanwhile
                guard.trigger()

    def _is_worker_group(self, group: CallbackGroup | None) -> bool:
        return group is not None and any(g is group for g in self._worker_groups)

    def _worker_for(self, group: CallbackGroup | None) -> _GroupWorker | None:
        if not self._is_worker_group(group):
            return None
        assert group is not None
        with self._workers_lock:
            worker = self._workers.get(id(group))
            if worker is None and not self._is_shutdown:
                worker = self._workers[id(group)] = _GroupWorker(
                    self, group, f'callback group {len(self._workers) + 1}')
            return worker

    @staticmethod
    def _worker_served(entity: Any) -> bool:
        """A service with a plain callback: its worker waits for and answers its requests."""
        return isinstance(entity, Service) and not inspect.iscoroutinefunction(entity.callback)

    def worker_services(self, group: CallbackGroup) -> list[Any]:
        """The services of ``group`` (in this executor's nodes) that its worker serves."""
        return [srv for node in self.get_nodes() for srv in node.services
                if srv.callback_group is group and self._worker_served(srv)]

    def can_execute(self, entity: Any) -> bool:
        """The executor's test, leaving out what the workers wait for themselves (services)."""
        group = entity.callback_group
        if not self._is_worker_group(group):
            return bool(super().can_execute(entity))
        if self._worker_served(entity) or entity._executor_event:
            return False
        worker = self._worker_for(group)
        if worker is None:
            return False
        worker.main_waiting = True  # before the test: the worker's group_done() then sees it
        if group.can_execute(entity):
            worker.main_waiting = False
            return True
        return False

    def _start_workers(self) -> None:
        for group in self._worker_groups:
            self._worker_for(group)

    def _wake_workers(self) -> None:
        with self._workers_lock:
            workers = list(self._workers.values())
        for worker in workers:
            worker.wake()

    def wake(self) -> None:
        """Wake the spinning thread and the workers (an entity was created or destroyed)."""
        super().wake()
        self._wake_workers()

    def add_node(self, node: Any) -> bool:
        """Add a node; its worker groups' services are served by the workers from now on."""
        added = bool(super().add_node(node))
        self._wake_workers()
        return added

    def remove_node(self, node: Any) -> None:
        """Remove a node (its services leave the workers' wait sets too)."""
        super().remove_node(node)
        self._wake_workers()

    def _make_handler(self, entity: Any, node: Any,
                      take_from_wait_list: Callable[[Any], Any]) -> Any:
        """The handler of one ready entity (rclpy's hook): a :class:`_Dispatch` if plain."""
        callback = getattr(entity, 'callback', None)
        if callback is None or inspect.iscoroutinefunction(callback) or \
                take_from_wait_list == self._take_waitable:
            return super()._make_handler(entity, node, take_from_wait_list)
        entity._executor_event = True  # out of the wait set until taken (as rclpy does)
        return _Dispatch(self, entity, take_from_wait_list,
                         self._worker_for(entity.callback_group))

    # ------------------------------------------------------------------ spinning

    def _raise_worker_error(self) -> None:
        try:
            error = self._errors.get_nowait()
        except queue.Empty:
            return
        raise error

    def _spin_once_impl(self, timeout_sec: Any = None,
                        wait_condition: Callable[[], bool] = lambda: False) -> None:
        self._raise_worker_error()
        if len(self._workers) < len(self._worker_groups) and not self._is_shutdown:
            self._start_workers()  # from the first spin, the workers serve their services
        try:
            handler, _, _ = self.wait_for_ready_callbacks(timeout_sec, None, wait_condition)
        except (ShutdownException, TimeoutException, ConditionReachedException,
                ExternalShutdownException):
            return
        if isinstance(handler, _Dispatch):
            if handler.worker is not None:
                handler.worker.submit(handler)
            else:
                handler.run()
        else:  # rclpy's Task (coroutines, waitables, create_task): inline, as rclpy runs it
            handler()
            exception = handler.exception()
            if exception is not None:
                raise exception
            handler.result()
        self._raise_worker_error()

    def spin_once(self, timeout_sec: float | None = None) -> None:
        """Wait up to ``timeout_sec`` for one ready callback and run or dispatch it."""
        self._spin_once_impl(timeout_sec)

    def _spin_once_until_future_complete(self, future: Future[Any],
                                         timeout_sec: Any = None) -> None:
        self._spin_once_impl(timeout_sec, future.done)

    def spin_once_until_future_complete(self, future: Future[Any],
                                        timeout_sec: Any = None) -> None:
        """:meth:`spin_once`, returning as soon as ``future`` is done."""
        future.add_done_callback(lambda _: self._wake_waiter())
        self._spin_once_until_future_complete(future, timeout_sec)

    def shutdown(self, timeout_sec: float | None = None) -> bool:
        """Stop: wait for running callbacks (up to ``timeout_sec``), then end the workers."""
        done = bool(super().shutdown(timeout_sec))
        with self._workers_lock:
            workers = list(self._workers.values())
            self._workers.clear()
        for worker in workers:
            worker.stop()
        for worker in workers:
            if worker.thread is not threading.current_thread():
                worker.thread.join(timeout=timeout_sec)
        return done


__all__ = ['CallbackGroupExecutor']
