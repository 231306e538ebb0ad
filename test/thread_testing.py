"""Run test work in several threads at once: a barrier start, errors re-raised in the caller."""

from __future__ import annotations

from collections.abc import Callable, Iterator
import contextlib
import sys
import threading


def run_threads(work: Callable[[int], None], n: int) -> None:
    """Run ``work(k)`` for ``k < n``, each in its own thread, started together.

    Raises:
        BaseException: The first error a thread raised.
    """
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def run(k: int) -> None:
        try:
            barrier.wait()
            work(k)
        except BaseException as exc:  # reported by the calling thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@contextlib.contextmanager
def fast_thread_switches() -> Iterator[None]:
    """Switch threads every 10 us (default 5 ms), so that the queries of threads interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(old)
