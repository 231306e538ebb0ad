"""Where a reach study's batches run: this process, local worker processes, or a Ray cluster.

Every executor runs :func:`~robot_state_core.reach.study.solve_batch` on each
:class:`~robot_state_core.reach.study.Batch` and hands the solutions back in the caller's thread.
A batch carries its own random seed, so the results do not depend on the executor or on the
number of workers. A worker builds the problem's model and scene once
(:func:`~robot_state_core.reach.study.build`) and keeps it for the batches that follow.

A worker that dies loses nothing: its unfinished batches are solved again (local processes: in a
new pool; Ray: the task is retried on another worker, Ray's ``max_retries``). A batch that kills
:data:`MAX_ATTEMPTS` workers in a row ends the study with :class:`ReachWorkerError`.

Thread safety: an executor runs one study at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
import multiprocessing
from typing import Any

from robot_state_core.errors import BackendUnavailableError, RobotStateCoreError
from robot_state_core.reach.study import Batch, BatchSolution, ReachProblem, solve_batch

__all__ = ['MAX_ATTEMPTS', 'InProcess', 'LocalProcesses', 'RayCluster', 'ReachWorkerError']

MAX_ATTEMPTS = 3
'''Times a batch is started before a dying worker ends the study.'''
RAY_INSTALL_HINT = 'pip install ray==2.60.0 (the version this project is tested with)'


class ReachWorkerError(RobotStateCoreError):
    """A batch could not be solved: its workers died :data:`MAX_ATTEMPTS` times."""


class InProcess:
    """Solve the batches here, one after another (the default)."""

    def run(self, problem: ReachProblem, batches: Sequence[Batch],
            done: Callable[[BatchSolution], None]) -> None:
        """Solve every batch in order."""
        for batch in batches:
            done(solve_batch(problem, batch))


class LocalProcesses:
    """Solve the batches in ``workers`` processes of this machine (``--workers N``).

    The processes start with the first study and stay (with the model each one built) for the
    passes and studies that follow, until :meth:`close` (or the end of a ``with`` block).

    Args:
        workers: Number of worker processes (each builds the model once).
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f'LocalProcesses: workers must be >= 1, got {workers}')
        self.workers = int(workers)
        self.restarts = 0
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: no forked copies of this process's threads and locks (ROS, viser, numba)
            self._pool = ProcessPoolExecutor(self.workers,
                                             mp_context=multiprocessing.get_context('spawn'))
        return self._pool

    def close(self) -> None:
        """Stop the worker processes (idempotent; the next study starts new ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> LocalProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, problem: ReachProblem, batches: Sequence[Batch],
            done: Callable[[BatchSolution], None]) -> None:
        """Solve every batch; batches of a worker that died are solved again in a new pool."""
        attempts = [0] * len(batches)
        todo = list(range(len(batches)))
        while todo:
            pool = self._get_pool()
            running: dict[Future[BatchSolution], int] = {}
            try:
                for k in todo:
                    attempts[k] += 1
                    running[pool.submit(solve_batch, problem, batches[k])] = k
                todo = []
                broken = False
                while running:
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        k = running.pop(future)
                        try:
                            solution = future.result()
                        except BrokenProcessPool:
                            broken = True
                            todo.append(k)
                            continue
                        done(solution)
                    if broken:  # every batch still running died with the pool
                        todo.extend(running.values())
                        running.clear()
            except BaseException:  # Ctrl-C or a failing callback: no orphaned workers
                self.close()
                raise
            if todo:
                self.close()  # the broken pool; the next round starts a new one
                self.restarts += 1
                worst = max(attempts[k] for k in todo)
                if worst >= MAX_ATTEMPTS:
                    raise ReachWorkerError(f'a worker process died {worst} times solving the '
                                           f'same batch; the study stops')
                todo.sort()


class RayCluster:
    """Solve the batches as Ray tasks (``--ray-address ADDR``; ``ray.init`` semantics).

    Args:
        address: A running cluster (``'auto'``, ``'ray://host:10001'``, ...); ``None`` starts
            a local one.
        num_cpus: CPUs of a local cluster (``None``: Ray's default, every core).
        init_kwargs: Further ``ray.init`` arguments.

    Raises:
        BackendUnavailableError: Ray is not installed.
    """

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 **init_kwargs: Any) -> None:
        try:
            import ray
        except ImportError as err:
            raise BackendUnavailableError(f'Ray is not installed: {RAY_INSTALL_HINT}') from err
        self._ray = ray
        if not ray.is_initialized():
            kwargs = dict(init_kwargs)
            kwargs.setdefault('include_dashboard', False)
            kwargs.setdefault('log_to_driver', False)
            kwargs.setdefault('configure_logging', False)
            if address is None and num_cpus is not None:
                kwargs['num_cpus'] = num_cpus
            ray.init(address=address, **kwargs)
        self._solve = ray.remote(max_retries=MAX_ATTEMPTS - 1)(solve_batch)

    def run(self, problem: ReachProblem, batches: Sequence[Batch],
            done: Callable[[BatchSolution], None]) -> None:
        """Solve every batch as a Ray task (the problem is put in the object store once)."""
        ray = self._ray
        ref = ray.put(problem)
        pending = {self._solve.remote(ref, b): k for k, b in enumerate(batches)}
        while pending:
            finished, _ = ray.wait(list(pending), num_returns=1)
            for task in finished:
                pending.pop(task)
                try:
                    done(ray.get(task))
                except ray.exceptions.WorkerCrashedError as err:
                    raise ReachWorkerError(f'Ray workers died {MAX_ATTEMPTS} times solving the '
                                           f'same batch; the study stops') from err

    def shutdown(self) -> None:
        """Disconnect from (or stop the local) cluster."""
        self._ray.shutdown()
