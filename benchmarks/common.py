"""Timing, report and machine-info helpers shared by the benchmark modules.

Method (``/work/shared/reference/baselines.md`` §6): the tools compared in one table are timed
**interleaved in the same loop** (every repeat runs each tool once, in a rotating order), each
cell is the **median of the repeats** (7 by default), and ratios are only formed between tools
timed in the same run. Timing samples run with the garbage collector disabled, like ``timeit``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
import contextlib
from dataclasses import dataclass, field
import datetime as _dt
import gc
from importlib import metadata
import os
from pathlib import Path
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
#: FastDDS participant profile of every benchmark process that speaks DDS (fast discovery).
FASTDDS_PROFILE = REPO_ROOT / 'config' / 'fastdds_fast_discovery.xml'


def dds_env(domain: int, ament_prefix: str | Path) -> dict[str, str]:
    """The environment of a DDS child: this one, kept on loopback, on a private domain.

    The profile goes under the name the venv's Fast DDS reads: Fast DDS 2.14 (Jazzy,
    ``libfastrtps``) only ``FASTRTPS_DEFAULT_PROFILES_FILE``, Fast DDS 3 (Kilted)
    ``FASTDDS_DEFAULT_PROFILES_FILE`` (its rmw warns about the old name, so that one is unset).
    """
    env = dict(os.environ)
    names = ('FASTRTPS_DEFAULT_PROFILES_FILE', 'FASTDDS_DEFAULT_PROFILES_FILE')
    for key in ('ROS_STATIC_PEERS', 'ROS_LOCALHOST_ONLY', 'ROS_DISCOVERY_SERVER', *names):
        env.pop(key, None)
    jazzy = Path(ament_prefix, 'lib', 'libfastrtps.so').exists()
    env.update({'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST', 'ROS_DOMAIN_ID': str(domain),
                names[0] if jazzy else names[1]: str(FASTDDS_PROFILE),
                'RMW_IMPLEMENTATION': 'rmw_fastrtps_cpp', 'AMENT_PREFIX_PATH': str(ament_prefix)})
    return env


# ---------------------------------------------------------------------------- settings/progress


@dataclass(frozen=True)
class Settings:
    """Knobs shared by every benchmark module (``run.py`` builds them from the command line).

    Attributes:
        quick: Smoke run: fewer repeats and IK targets; numbers are not for comparison.
        repeats: Timing repeats per cell (the cell is their median).
        sample_time: Target duration of one timing sample [s] (calls per sample are
            calibrated so a sample lasts at least this long).
        batch_size: Configurations per batched-FK call.
        ik_targets: Random IK targets per robot.
        ik_timeouts: IK timeouts [s].
        seed: Seed of every random number generator.
    """

    quick: bool = False
    repeats: int = 7
    sample_time: float = 0.02
    batch_size: int = 10_000
    ik_targets: int = 1000
    ik_timeouts: tuple[float, ...] = (0.005, 0.05)
    seed: int = 20261129

    @classmethod
    def make(cls, quick: bool, seed: int | None = None) -> Settings:
        """Full settings, or the reduced ``--quick`` ones."""
        base = (cls(quick=True, repeats=3, sample_time=0.005, ik_targets=50)
                if quick else cls())
        if seed is not None:
            base = cls(**{**base.__dict__, 'seed': seed})
        return base


class Progress:
    """One line per benchmark step on stdout, with the time since the run started."""

    def __init__(self, stream: Any = None) -> None:
        self.start = time.perf_counter()
        self.stream = stream or sys.stdout

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.perf_counter() - self.start

    def step(self, message: str) -> None:
        """Print ``[  12.3s] message`` and flush."""
        print(f'[{self.elapsed():7.1f}s] {message}', file=self.stream, flush=True)


@contextlib.contextmanager
def quiet_native_output() -> Iterator[None]:
    """Silence file descriptors 1 and 2 for C/C++ code (e.g. KDL's URDF parser warnings).

    C stdio buffers are flushed before the descriptors are restored, so nothing printed inside
    leaks out later. Python-level prints inside are silenced too.
    """
    import ctypes

    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        libc.fflush(None)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def load_average() -> str:
    """``1.23, 0.45, 0.67`` (1/5/15 min), or ``?``."""
    return ', '.join(f'{x:.2f}' for x in os.getloadavg()) if hasattr(os, 'getloadavg') else '?'


# ---------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Timing:
    """Per-call durations [s] of one tool, one value per repeat."""

    samples: tuple[float, ...]
    number: int  # calls per sample

    @property
    def median(self) -> float:
        """Median over the repeats [s per call]."""
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        """Fastest repeat [s per call]."""
        return min(self.samples)

    @property
    def max(self) -> float:
        """Slowest repeat [s per call]."""
        return max(self.samples)


def _sample(fn: Callable[[], object], number: int) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        return (time.perf_counter() - t0) / number
    finally:
        if enabled:
            gc.enable()


def calibrate(fn: Callable[[], object], sample_time: float) -> int:
    """Calls per sample so that one sample lasts at least ``sample_time`` (1, 2, 5, 10, ...)."""
    fn()  # warm-up (caches, lazy plans)
    number = 1
    while True:
        for factor in (1, 2, 5):
            n = number * factor
            if _sample(fn, n) * n >= sample_time:
                return n
        number *= 10


def interleaved(cases: Mapping[str, Callable[[], object]], repeats: int,
                sample_time: float, number: int | None = None) -> dict[str, Timing]:
    """Time every case in the same loop: each repeat runs every case once, rotating the order.

    Args:
        cases: ``{label: zero-argument callable}``.
        repeats: Samples per case (report the median).
        sample_time: Target sample duration [s] when ``number`` is not given.
        number: Calls per sample for every case (e.g. 1 for batched calls); calibrated per
            case when ``None``.

    Returns:
        ``{label: Timing}`` in the order of ``cases``.
    """
    names = list(cases)
    counts = {n: number if number is not None else calibrate(cases[n], sample_time)
              for n in names}
    if number is not None:
        for n in names:
            cases[n]()  # warm-up
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            samples[n].append(_sample(cases[n], counts[n]))
    return {n: Timing(tuple(samples[n]), counts[n]) for n in names}


# ---------------------------------------------------------------------------- formatting


def fmt_us(seconds: float) -> str:
    """Microseconds with 3 significant digits."""
    us = seconds * 1e6
    return f'{us:.3g}' if us < 100 else f'{us:,.0f}'


def fmt_timing_us(t: Timing) -> str:
    """``median [min–max]`` in µs."""
    return f'{fmt_us(t.median)} [{fmt_us(t.min)}–{fmt_us(t.max)}]'


def fmt_ms(seconds: float) -> str:
    """Milliseconds with 2 decimals (3 significant digits below 0.1 ms)."""
    ms = seconds * 1e3
    return f'{ms:.3g}' if ms < 0.1 else f'{ms:.2f}'


def fmt_rate(per_second: float) -> str:
    """``1,234k`` / ``1.23M`` style rate."""
    if per_second >= 1e6:
        return f'{per_second / 1e6:.2f}M'
    if per_second >= 1e3:
        return f'{per_second / 1e3:,.0f}k'
    return f'{per_second:.0f}'


def fmt_ratio(x: float) -> str:
    """``1.23×``."""
    return f'{x:.2f}×' if x < 10 else f'{x:.1f}×'


def fmt_bytes(n: float) -> str:
    """Bytes with a binary unit (B, KiB, MiB)."""
    if abs(n) < 1024:
        return f'{n:,.0f} B'
    if abs(n) < 1024**2:
        return f'{n / 1024:,.1f} KiB'
    return f'{n / 1024**2:,.1f} MiB'


def fmt_pct(fraction: float) -> str:
    """``99.3``."""
    return f'{100 * fraction:.1f}'


# ---------------------------------------------------------------------------- report


@dataclass
class Table:
    """A markdown table with an optional title and notes under it."""

    headers: Sequence[str]
    rows: list[Sequence[str]] = field(default_factory=list)
    title: str = ''
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        """Append a row (cells converted with ``str``)."""
        self.rows.append([str(c) for c in cells])

    def markdown(self) -> str:
        """The table as GitHub markdown."""
        out = [f'**{self.title}**', ''] if self.title else []
        out.append('| ' + ' | '.join(self.headers) + ' |')
        out.append('|' + '|'.join('---' for _ in self.headers) + '|')
        out += ['| ' + ' | '.join(r) + ' |' for r in self.rows]
        if self.notes:
            out.append('')
            out += [f'- {n}' for n in self.notes]
        return '\n'.join(out)


@dataclass(frozen=True)
class Target:
    """One issue target and whether this run met it.

    Attributes:
        benchmark: Short name of the benchmark (first column of the module's report).
        description: ``'<case>: <the module's target>'`` (the case is the text before ``': '``).
        measured: The measured figures as text.
        met: The module's verdict; ``None``: not measured (skipped) or reported only.
        detail: Why missed / skipped.
        key: The issue-12 row this target measures (``target_table.ISSUE_ROWS``), '' if none.
        figures: The row's numbers for the issue-12 table, SI units (seconds, configs/s,
            bytes, fractions); the names each key needs are listed in ``target_table``.
    """

    benchmark: str
    description: str
    measured: str
    met: bool | None  # None: not measured (skipped)
    detail: str = ''
    key: str = ''
    figures: Mapping[str, float] = field(default_factory=dict)


@dataclass
class Section:
    """One benchmark's part of the report."""

    title: str
    intro: str = ''
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def markdown(self) -> str:
        """The section as markdown (``##`` heading)."""
        out = [f'## {self.title}', '']
        if self.intro:
            out += [self.intro, '']
        for t in self.tables:
            out += [t.markdown(), '']
        if self.notes:
            out += ['Notes:', ''] + [f'- {n}' for n in self.notes] + ['']
        return '\n'.join(out)


def targets_table(targets: Iterable[Target]) -> Table:
    """Summary table of the targets: met / MISSED / skipped (reported: measured, no target)."""
    table = Table(['benchmark', 'target', 'measured', 'verdict'])
    for t in targets:
        verdict = (('reported' if t.figures else 'skipped') if t.met is None
                   else 'met' if t.met else '**MISSED**')
        if t.detail:
            verdict += f' ({t.detail})'
        table.add(t.benchmark, t.description, t.measured, verdict)
    return table


# ---------------------------------------------------------------------------- machine info


def _cpu_model() -> str:
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _physical_cores() -> int | None:
    try:
        text = Path('/proc/cpuinfo').read_text()
    except OSError:
        return None
    cores, phys = set(), ''
    for line in text.splitlines():
        if line.startswith('physical id'):
            phys = line.split(':', 1)[1].strip()
        elif line.startswith('core id'):
            cores.add((phys, line.split(':', 1)[1].strip()))
    return len(cores) or None


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return 'not installed'


def _git(*args: str) -> str:
    try:
        out = subprocess.run(['git', *args], cwd=REPO_ROOT, capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ''
    return out.stdout.strip()


def machine_info() -> dict[str, str]:
    """Date, CPU, cores, load, Python and library versions, and the repository commit."""
    import numpy as np

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else None
    load = load_average()
    commit = _git('rev-parse', '--short', 'HEAD')
    # (the reports of an earlier run are outputs, not a change of what is measured)
    dirty = _git('status', '--porcelain', '--untracked-files=no', '--', '.',
                 ':(exclude)benchmarks/results')
    threads = {k: v for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')
               if (v := os.environ.get(k))}
    return {
        'date': _dt.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z'),
        'cpu': _cpu_model(),
        'cores': (f'{os.cpu_count()} logical, {_physical_cores() or "?"} physical, '
                  f'{affinity if affinity is not None else "?"} usable by this process'),
        'load average (1/5/15 min) at start': load,
        'os': f'{platform.system()} {platform.release()} ({platform.machine()})',
        'python': f'{platform.python_implementation()} {platform.python_version()}',
        'numpy': np.__version__,
        'pinocchio (pin)': _version('pin'),
        'pytracik': _version('pytracik'),
        'example-robot-data': _version('example-robot-data'),
        'robot_state_core': (f'{_version("robot_state_core")}, commit {commit or "?"}'
                             + (' + uncommitted changes' if dirty else '')),
        'thread env': ', '.join(f'{k}={v}' for k, v in threads.items()) or 'unset',
    }


def machine_table(info: Mapping[str, str]) -> Table:
    """Machine info as a two-column table."""
    table = Table(['', ''])
    for k, v in info.items():
        table.add(k, v)
    return table


def render_report(title: str, info: Mapping[str, str], settings: Settings,
                  sections: Sequence[Section], command: str, runtime: float,
                  method: str | None = None) -> str:
    """The whole markdown report (``method``: replaces the default method paragraph)."""
    mode = ('**quick smoke run** (fewer repeats and IK targets: not for comparison)'
            if settings.quick else 'full run')
    out = [
        f'# {title}', '',
        f'Generated by `{command}` ({mode}) in {runtime:.0f} s.', '',
        f'Method: tools in one table are timed interleaved in the same loop (rotating order), '
        f'{settings.repeats} repeats, each cell is the median [min–max] over the repeats; '
        f'single-call samples last ≥ {settings.sample_time * 1e3:.0f} ms each; ratios are '
        f'between tools of the same run only. GC is disabled inside timing samples. '
        f'Random seed {settings.seed}.' if method is None else method, '',
        '## Machine', '', machine_table(info).markdown(), '',
    ]
    targets = [t for s in sections for t in s.targets]
    if targets:
        out += ['## Targets', '', targets_table(targets).markdown(), '']
    for s in sections:
        out.append(s.markdown())
    return '\n'.join(out).rstrip() + '\n'
