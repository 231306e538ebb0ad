"""Bounded node logs (issue 10 node item 6): user text clipped, repeated warnings throttled.

Before: a 100 kB group name was echoed verbatim and 1 000 garbage requests wrote 731 kB of
stderr. The helpers below are what every node log line and response message goes through.
"""

from __future__ import annotations

from robot_state_core.ros.log_limits import (
    clip,
    LOG_LINE_LIMIT,
    quoted,
    ThrottledLogger,
    USER_TEXT_LIMIT,
)


class _Recorder:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def warning(self, text: str) -> None:
        self.lines.append(('warning', text))

    def error(self, text: str) -> None:
        self.lines.append(('error', text))


def test_clip_keeps_head_and_tail_and_says_how_much_is_gone() -> None:
    """A 100 kB name becomes ~USER_TEXT_LIMIT characters naming the number cut out."""
    name = 'g' * 50_000 + 'MIDDLE' + 'h' * 50_000
    short = clip(name)
    assert len(short) <= USER_TEXT_LIMIT + 40
    assert short.startswith('ggg') and short.endswith('hhh')
    head, rest = short.split('...[')
    count, tail = rest.split(' more characters]...')
    assert int(count) == len(name) - len(head) - len(tail)
    assert clip('short name') == 'short name'


def test_clip_escapes_line_breaks_and_control_characters() -> None:
    """A name cannot forge a second log line or send terminal escapes."""
    forged = 'arm\n[ERROR] [robot_state_publisher]: fake\x1b[31m\ttab'
    out = clip(forged)
    assert '\n' not in out and '\x1b' not in out and '\t' not in out
    assert out == 'arm\\n[ERROR] [robot_state_publisher]: fake\\x1b[31m\\ttab'


def test_quoted_lists_a_few_clipped_names() -> None:
    names = ['a', 'b' * 1000, 'c', 'd', 'e', 'f', 'g']
    text = quoted(names)
    assert text.startswith("'a', 'bbb") and text.endswith('and 2 more')
    assert len(text) < 6 * USER_TEXT_LIMIT


def test_throttled_logger_one_line_per_kind_and_period_with_a_count() -> None:
    """1 000 warnings of one kind within a period give one line; the next says 999 were held."""
    now = [0.0]
    out = _Recorder()
    log = ThrottledLogger(out, period_s=5.0, clock=lambda: now[0])
    for k in range(1000):
        now[0] = k * 0.001
        log.warning('bad_request', f'request {k} refused: ' + 'x' * 10_000)
    log.error('other_kind', 'another kind is not held back by the first')
    assert [level for level, _ in out.lines] == ['warning', 'error']
    assert len(out.lines[0][1]) <= LOG_LINE_LIMIT + 40
    assert not log.would_log('bad_request')
    now[0] = 5.5
    assert log.would_log('bad_request')
    assert log.warning('bad_request', 'again')
    assert out.lines[-1][1] == 'again [999 similar messages not logged in the last 5 s]'
    assert not log.warning('bad_request', 'held')
