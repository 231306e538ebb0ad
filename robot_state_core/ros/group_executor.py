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

:class:`CallbackGroupExecutor` keeps rclpy's wait logic (``wait_for_ready_callbacks``) and
changes only how a ready callback is run:

- a callback of a *worker group* is queued to that group's own thread (one thread per group,
  started with the executor's first callback of it), so a long callback there (an IK solve)
  never delays the others; every other callback runs inline in the spinning thread, as in
  ``SingleThreadedExecutor`` (a thread for every group was measured too: compute_fk then paid
  a thread hop, 0.3 ms more per round trip in one run of the services benchmark);
- a handler is never put in the executor's task list, so nothing is yielded twice; the spinning
  thread is woken once per worker callback, when it ends and its group can take the next one
  (inline callbacks wake nothing: the wait set is rebuilt after them anyway), and it hands an
  idle worker the GIL at once (:meth:`_GroupWorker.submit`);
- coroutine callbacks and waitables (which may await) and tasks made with ``create_task`` keep
  rclpy's own handling (run inline, resumed by the spinning thread).

Exceptions raised by a callback on a worker thread are raised by the next ``spin_once`` of the
spinning thread, as ``MultiThreadedExecutor`` does. Works with rclpy 7.1 (Jazzy) and 9.x
(Kilted): it relies on ``Executor._make_handler(entity, node, take_from_wait_list)`` and the
``_take_*`` methods, present in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import contextlib
import inspect
import queue
import threading
from typing import Any

from rclpy.callback_groups import CallbackGroup, MutuallyExclusiveCallbackGroup
from rclpy.context import Context
from rclpy.executors import (
    ConditionReachedException,
    Executor,
    ExternalShutdownException,
    ShutdownException,
    TimeoutException,
)
from rclpy.task import Future

#: Longest wait [s] of the spinning thread for an idle worker to pick up a callback.
HANDOFF_TIMEOUT_S = 0.005


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
                if on_worker:
                    executor._wake_waiter()  # the group can take its next callback

    def __call__(self) -> None:
        self.run()


class _GroupWorker:
    """A thread that runs one callback group's callbacks, one after the other."""

    def __init__(self, executor: CallbackGroupExecutor, name: str) -> None:
        self._executor = executor
        self._queue: queue.SimpleQueue[_Dispatch | None] = queue.SimpleQueue()
        self._pending = 0  # submitted and not finished
        self._pending_lock = threading.Lock()
        self._started = threading.Event()
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def submit(self, dispatch: _Dispatch) -> None:
        """Queue ``dispatch``; when the worker was idle, return once it has picked it up.

        The hand-off wait (at most :data:`HANDOFF_TIMEOUT_S`, typically tens of µs) releases
        the GIL to the worker at once; without it the worker waits for the spinning thread to
        reach a GIL switch (``sys.getswitchinterval()``), measured 0.23-0.28 ms per IK request
        with the entry points' 0.25 ms interval (0.07 ms with the wait). A busy worker (a long
        solve) is not waited for.
        """
        with self._pending_lock:
            idle = self._pending == 0
            self._pending += 1
        if idle:
            self._started.clear()
        self._queue.put(dispatch)
        if idle:
            self._started.wait(HANDOFF_TIMEOUT_S)

    def stop(self) -> None:
        self._queue.put(None)

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            self._started.set()
            try:
                item.run()
            except Exception as exc:  # raised again by the spinning thread
                self._executor._errors.put(exc)
                self._executor._wake_waiter()
            finally:
                with self._pending_lock:
                    self._pending -= 1


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

    def _worker_for(self, group: CallbackGroup | None) -> _GroupWorker | None:
        if group is None or not any(g is group for g in self._worker_groups):
            return None
        with self._workers_lock:
            worker = self._workers.get(id(group))
            if worker is None and not self._is_shutdown:
                worker = self._workers[id(group)] = _GroupWorker(
                    self, f'callback group {len(self._workers) + 1}')
            return worker

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
        future.add_done_callback(lambda _: self.wake())
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
