"""The IK solver's per-problem state, in an explicit and bounded object (Pinocchio's ``Data``).

Solving a (model, group, tips) problem for the first time builds its index tables, a table of
2 048 pool samples whose tip poses are filled as requests use them, and per-thread scratch
arrays: about 0.1-1 MB per problem, and 1-2 ms that later requests of the same problem do not
pay again. None of it lives on the immutable :class:`~robot_state_core.model.RobotModel`; it
lives in an :class:`IKCache`, a least-recently-used table of at most ``max_problems`` problems.

* Callers that pass no cache share the process's :func:`default_ik_cache` (16 problems).
  A server that answers requests from the network gives its solver its own cache, so the
  tips a client names can never grow the process: the 17th distinct problem evicts the
  least recently used one.
* The tips of a request are a set: ``(a, b)`` and ``(b, a)`` are one problem (the solver
  orders them by link index and the targets with them).
* What a cache holds never changes an answer: with a fixed ``random_seed`` a request gets the
  same result from a new cache, a warm one, or after any other requests (``test_ik_cache.py``).

Thread safety: an :class:`IKCache` may be shared by any number of threads (its table is
guarded by a lock; each thread gets its own scratch arrays).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
import threading
from typing import Any, Generic, TypeVar
import weakref

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.model.robot_model import RobotModel

__all__ = ['DEFAULT_MAX_PROBLEMS', 'IKCache', 'default_ik_cache']

DEFAULT_MAX_PROBLEMS = 16
'''Problems (model, group, tips, position-only) the default cache keeps.'''

_EntryT = TypeVar('_EntryT')


class _LRU(Generic[_EntryT]):
    """A least-recently-used table of per-model entries (callers hold the lock)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[int, Hashable],
                                  tuple[weakref.ref[RobotModel], _EntryT]] = OrderedDict()

    def get(self, model: RobotModel, key: Hashable) -> _EntryT | None:
        full = (id(model), key)
        hit = self.entries.get(full)
        if hit is None or hit[0]() is not model:  # (a dead model's id may be reused)
            return None
        self.entries.move_to_end(full)
        return hit[1]

    def put(self, model: RobotModel, key: Hashable, entry: _EntryT) -> None:
        full = (id(model), key)
        self.entries[full] = (weakref.ref(model), entry)
        self.entries.move_to_end(full)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)


class IKCache:
    """A bounded, thread-safe LRU table of IK problem set-ups (see the module docstring).

    Entries belong to one model each and are never handed to another model, even one that
    reuses a dead model's ``id``. Besides the problems it keeps a memo of the requests' names
    (group and tip link names -> the problem), ``8 * max_problems`` entries of a few hundred
    bytes, so a repeated request skips its name checks.

    Args:
        max_problems: Problems kept; the least recently used one is evicted beyond it (>= 1).

    Raises:
        InvalidArgumentError: ``max_problems`` is not an integer >= 1.
    """

    def __init__(self, max_problems: int = DEFAULT_MAX_PROBLEMS) -> None:
        """See the class docstring."""
        if isinstance(max_problems, bool) or not isinstance(max_problems, int) \
                or max_problems < 1:
            raise InvalidArgumentError(f'IKCache: max_problems must be an integer >= 1, got '
                                       f'{max_problems!r}')
        self._lock = threading.Lock()
        self._problems: _LRU[Any] = _LRU(max_problems)
        self._names: _LRU[Any] = _LRU(8 * max_problems)
        self._built = 0

    @property
    def max_problems(self) -> int:
        """The most problems kept."""
        return self._problems.size

    @property
    def built(self) -> int:
        """Problems set up by this cache so far (misses; evicted ones counted too)."""
        return self._built

    def __len__(self) -> int:
        """Problems held now (``<= max_problems``)."""
        return len(self._problems.entries)

    def clear(self) -> None:
        """Forget every problem (later requests set theirs up again; answers do not change)."""
        with self._lock:
            self._problems.entries.clear()
            self._names.entries.clear()

    def problem(self, model: RobotModel, key: Hashable, build: Callable[[], _EntryT]) -> _EntryT:
        """The set-up of problem ``key`` of ``model``, built by ``build()`` on a miss.

        ``build`` runs outside the lock (it may take milliseconds); two threads missing the
        same key at once both build, and the first stored entry wins.
        """
        with self._lock:
            hit = self._problems.get(model, key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        entry = build()
        with self._lock:
            hit = self._problems.get(model, key)
            if hit is not None:
                return hit  # type: ignore[no-any-return]
            self._problems.put(model, key, entry)
            self._built += 1
        return entry

    def named(self, model: RobotModel, key: Hashable) -> Any:
        """The memo of a request's names, or ``None``."""
        with self._lock:
            return self._names.get(model, key)

    def remember_name(self, model: RobotModel, key: Hashable, value: Any) -> None:
        """Add a request's names to the memo."""
        with self._lock:
            self._names.put(model, key, value)


_DEFAULT: IKCache = IKCache(DEFAULT_MAX_PROBLEMS)


def default_ik_cache() -> IKCache:
    """The cache of callers that pass none (``RobotState.set_from_ik``, the CLI, scripts)."""
    return _DEFAULT
