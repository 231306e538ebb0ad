"""Bounded log output of the nodes: user text clipped, repeated warnings throttled (issue 10).

A hostile or careless client must not be able to fill the disk or the terminal through the
node's log: every string that came from the network (names, ids, frames, exception texts that
quote them) goes through :func:`clip` before it is logged or echoed in a response message, and
per-message or per-request warnings go through a :class:`ThrottledLogger`, which emits one line
per kind and period and says how many similar lines it held back.
"""

from __future__ import annotations

from collections.abc import Callable
import threading
import time
from typing import Any

#: Characters of one user-supplied string (a name, an id, a frame) kept in a log line.
USER_TEXT_LIMIT = 120
#: Characters of one whole log line (after the user strings were clipped).
LOG_LINE_LIMIT = 600
#: Characters of a MoveItErrorCodes message sent back to a client.
RESPONSE_MESSAGE_LIMIT = 1000
#: Seconds between two lines of the same kind of per-message warning.
WARN_THROTTLE_S = 5.0

_ESCAPES = {ord('\n'): '\\n', ord('\r'): '\\r', ord('\t'): '\\t'}


def clip(text: object, limit: int = USER_TEXT_LIMIT) -> str:
    """``text`` as one printable line of at most about ``limit`` characters.

    Line breaks and other control characters are escaped (a name cannot start a forged log
    line); a longer text keeps its head and tail around ``...[N more characters]...``.

    Args:
        text: Anything; ``str(text)`` is clipped.
        limit: Characters to keep (at least 16).

    Returns:
        The clipped text.
    """
    s = str(text)
    if len(s) > 4 * limit:  # escape only what can be kept: a 100 kB name costs no 100 kB copy
        s = s[:2 * limit] + s[-2 * limit:]
        hidden = len(str(text)) - 4 * limit
    else:
        hidden = 0
    if not s.isprintable():
        s = ''.join(_ESCAPES.get(ord(c), c) if c.isprintable() or ord(c) in _ESCAPES
                    else f'\\x{ord(c):02x}' if ord(c) < 256 else f'\\u{ord(c):04x}' for c in s)
    limit = max(16, int(limit))
    if len(s) <= limit and not hidden:
        return s
    head = (limit * 2) // 3
    tail = max(0, limit - head - 8)
    hidden += len(s) - head - tail
    return f'{s[:head]}...[{hidden} more characters]...{s[len(s) - tail:] if tail else ""}'


def quoted(names: Any, limit: int = USER_TEXT_LIMIT, count: int = 5) -> str:
    """``'a', 'b', 'c' and N more``: the first ``count`` user strings, each clipped."""
    items = list(names)
    listed = ', '.join(f"'{clip(n, limit)}'" for n in items[:count])
    return listed + (f' and {len(items) - count} more' if len(items) > count else '')


class ThrottledLogger:
    """One line per kind of message and period, with the count of those held back.

    Thread-safe (the service node logs from several executor threads). Kinds are fixed strings
    chosen by the code, never user text, so the bookkeeping is bounded.

    Args:
        logger: An rclpy logger (``node.get_logger()``) or anything with ``warning``/``error``
            methods.
        period_s: Seconds between two lines of one kind.
        clock: Monotonic clock [s] (tests pass a fake one).
    """

    def __init__(self, logger: Any, period_s: float = WARN_THROTTLE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._logger = logger
        self._period = float(period_s)
        self._clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, tuple[float, int]] = {}

    def _admit(self, kind: str) -> tuple[bool, int]:
        now = self._clock()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and now - last[0] < self._period:
                self._last[kind] = (last[0], last[1] + 1)
                return False, 0
            self._last[kind] = (now, 0)
            return True, last[1] if last is not None else 0

    def _line(self, text: str, held_back: int) -> str:
        line = clip(text, LOG_LINE_LIMIT)
        if held_back:
            line += (f' [{held_back} similar message{"s" if held_back != 1 else ""} not logged '
                     f'in the last {self._period:g} s]')
        return line

    def would_log(self, kind: str) -> bool:
        """Whether a message of ``kind`` logged now would be written (does not consume it)."""
        with self._lock:
            last = self._last.get(kind)
        return last is None or self._clock() - last[0] >= self._period

    def warning(self, kind: str, text: str) -> bool:
        """Log a warning of ``kind`` unless one was logged within the period.

        Returns:
            Whether the line was written.
        """
        ok, held_back = self._admit(kind)
        if ok:
            self._logger.warning(self._line(text, held_back))
        return ok

    def error(self, kind: str, text: str) -> bool:
        """Log an error of ``kind`` unless one was logged within the period (see warning)."""
        ok, held_back = self._admit(kind)
        if ok:
            self._logger.error(self._line(text, held_back))
        return ok
