"""Run the benchmark modules (``benchmarks/bench_*.py``) and write their markdown reports.

Usage::

    .venv/bin/python benchmarks/run.py                 # full run, every module (~3 min, 2 cores)
    .venv/bin/python benchmarks/run.py --quick         # smoke run (fewer repeats/targets)
    .venv/bin/python benchmarks/run.py --only fk       # one part: fk | ik | memory | self | ...
    .venv/bin/python benchmarks/run.py --only collision  # one whole module (= --module collision)
    .venv/bin/python benchmarks/run.py --runs 3        # three runs: target table with spread

Each module ``bench_<name>.py`` defines ``NAME``, ``TITLE``, ``PARTS`` and
``run(settings, progress, parts) -> list[Section]`` (optionally ``METHOD``, a paragraph that
replaces the default method text of the report). A full run writes
``results/<NAME>_<YYYY-MM-DD>.md`` and the stable copy ``results/latest_<NAME>.md``. Quick or
partial (``--only PART``) runs write ``results/<NAME>_<YYYY-MM-DD>_<quick|fk|...>.md`` and leave
the ``latest_`` copy alone, so it always holds a complete full run. ``--only <NAME>`` (a module
name instead of a part) runs that whole module, like ``--module <NAME>``, and counts as complete.

After the modules, the run writes the target table of issues 12 and 27 (``target_table.py``):
``results/latest_targets.md`` and a dated copy ``results/targets_<YYYY-MM-DD>.md``. Quick runs,
``--only PART`` runs and runs without one of the modules that measure issue rows (kinematics,
collision, ros) write only ``targets_<YYYY-MM-DD>_<quick|fk|kinematics|...>.md``, so
``latest_targets.md`` always holds a complete full run; rows of modules or parts that did not run
say so. ``--runs N`` runs the selection N times, **each run in its own Python process**
(first-call figures — IK's first solve, the first ``RobotState`` — and numba's per-process kernel
loading would otherwise be measured warm from the second run on) and adds each row's spread over
the runs. The module reports then hold the last run. ``summary.py`` regenerates the README's
benchmark summary from ``latest_targets.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
from pathlib import Path
import subprocess
import sys
import tempfile
import time
from types import ModuleType

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from common import (  # noqa: E402
    load_average,
    machine_info,
    Progress,
    render_report,
    Settings,
    Target,
)
from target_table import ISSUE_ROWS, render, RunRecord  # noqa: E402

RESULTS = HERE / 'results'
#: The modules that measure the target rows (a run of all of them may write latest_targets.md).
ISSUE_MODULES = {row.module for row in ISSUE_ROWS}


def discover() -> list[ModuleType]:
    """Every ``bench_*.py`` module next to this file that defines ``PARTS``, in name order.

    Standalone scripts (``bench_node_hostile.py``: run on its own, prints one table) are left
    out.
    """
    modules = [importlib.import_module(p.stem) for p in sorted(HERE.glob('bench_*.py'))]
    return [m for m in modules if hasattr(m, 'PARTS')]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='smoke run: 3 repeats, short samples, 50 IK targets')
    parser.add_argument('--only', action='append', metavar='PART',
                        help='run only this part (repeatable): fk, ik, memory, self, world, '
                        'distance, batch, profile, ...; a module name (e.g. collision) runs '
                        'all of its parts, like --module')
    parser.add_argument('--module', action='append', metavar='NAME',
                        help='run only this benchmark module (e.g. kinematics)')
    parser.add_argument('--seed', type=int, default=None, help='random seed')
    parser.add_argument('--output-dir', type=Path, default=RESULTS,
                        help=f'where to write the reports (default {RESULTS})')
    parser.add_argument('--runs', type=int, default=1, metavar='N',
                        help='run the selection N times (each in its own process) and add the '
                        'spread over the runs to the target table (default 1)')
    parser.add_argument('--record', type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error('--runs must be at least 1')
    return args


def child_args(args: argparse.Namespace, record: Path) -> list[str]:
    """Command-line arguments of one of ``--runs N``'s child runs (same selection, one run)."""
    out = ['--quick'] if args.quick else []
    for p in args.only or ():
        out += ['--only', p]
    for m in args.module or ():
        out += ['--module', m]
    if args.seed is not None:
        out += ['--seed', str(args.seed)]
    return [*out, '--output-dir', str(args.output_dir), '--record', str(record)]


def repeated_runs(args: argparse.Namespace, progress: Progress) -> list[RunRecord] | None:
    """Run the selection ``args.runs`` times, each in a child process; their records.

    Returns ``None`` when a child run fails.
    """
    records = []
    with tempfile.TemporaryDirectory(prefix='bench_runs_') as tmp:
        for k in range(args.runs):
            progress.step(f'=== run {k + 1} of {args.runs} (own process)')
            record = Path(tmp) / f'run_{k}.json'
            code = subprocess.run([sys.executable, str(Path(__file__).resolve()),
                                   *child_args(args, record)], check=False).returncode
            if code != 0 or not record.exists():
                print(f'run {k + 1} of {args.runs} failed (exit code {code})', file=sys.stderr)
                return None
            records.append(RunRecord.from_json(json.loads(record.read_text(encoding='utf-8'))))
    return records


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = Settings.make(args.quick, args.seed)
    modules = discover()
    known_parts = {p for m in modules for p in m.PARTS}
    names = {m.NAME for m in modules}
    whole = set(args.only or ()) & names  # `--only <module NAME>`: every part of that module
    only_parts = set(args.only or ()) - names
    bad = sorted(only_parts - known_parts)
    if bad:
        print(f'unknown part(s) {bad}; known: {sorted(known_parts)} or a module name '
              f'{sorted(names)}', file=sys.stderr)
        return 2
    if args.module:
        unknown = sorted(set(args.module) - {m.NAME for m in modules})
        if unknown:
            print(f'unknown module(s) {unknown}; known: {[m.NAME for m in modules]}',
                  file=sys.stderr)
            return 2
        modules = [m for m in modules if m.NAME in args.module]
    progress = Progress()
    info = machine_info()
    progress.step(f'machine: {info["cpu"]}; {info["cores"]}; python {info["python"]}, numpy '
                  f'{info["numpy"]}, pinocchio {info["pinocchio (pin)"]}')
    command = 'python benchmarks/run.py ' + ' '.join(sys.argv[1:] if argv is None else argv)
    today = dt.date.today().isoformat()
    args.output_dir.mkdir(parents=True, exist_ok=True)
    # latest_targets.md only from a full run of every module that measures an issue row, so
    # that a partial run never replaces it (its table goes to a dated file with a suffix).
    selected = sorted(m.NAME for m in modules if not args.only or m.NAME in whole)
    partial = sorted(ISSUE_MODULES - set(selected)) and selected
    complete_run = not args.quick and not only_parts and not partial
    suffix = ''.join(f'_{p}' for p in ((['quick'] if args.quick else []) + sorted(only_parts)
                                       + (selected if partial and not only_parts else [])))
    if args.runs > 1:
        records = repeated_runs(args, progress)
        if records is None:
            return 1
    else:
        records = [run_modules(args, modules, whole, only_parts, settings, info, command,
                               progress)]
        if args.record is not None:  # a child of --runs N: the parent writes the table
            args.record.write_text(json.dumps(records[0].to_json()), encoding='utf-8')
            return 0
    text = render(records, info, command.strip(), args.quick, progress.elapsed())
    written = [args.output_dir / f'targets_{today}{suffix}.md']
    if complete_run:
        written.append(args.output_dir / 'latest_targets.md')
    for path in written:
        path.write_text(text, encoding='utf-8')
    progress.step('== target table: wrote ' + ', '.join(_shown(p) for p in written))
    return 0


def _shown(path: Path) -> str:
    return str(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)


def run_modules(args: argparse.Namespace, modules: list[ModuleType], whole: set[str],
                only_parts: set[str], settings: Settings, info: dict[str, str], command: str,
                progress: Progress) -> RunRecord:
    """Run the selected parts of every module once, write their reports; the run's record."""
    started = dt.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')
    load_start, t_run = load_average(), time.perf_counter()
    today = dt.date.today().isoformat()
    parts_run: dict[str, tuple[str, ...]] = {}
    targets: dict[str, tuple[Target, ...]] = {}
    for module in modules:
        complete = not args.only or module.NAME in whole
        parts = [p for p in module.PARTS if complete or p in only_parts]
        if not parts:
            continue
        suffix = ''.join(f'_{p}' for p in ((['quick'] if args.quick else [])
                                           + ([] if complete else sorted(only_parts))))
        progress.step(f'== {module.NAME}: {", ".join(parts)}'
                      f'{" (quick)" if settings.quick else ""}')
        t0 = time.perf_counter()
        sections = module.run(settings, progress, parts)
        parts_run[module.NAME] = tuple(parts)
        targets[module.NAME] = tuple(t for s in sections for t in s.targets)
        info = {**info, 'load average (1/5/15 min) at end': load_average()}
        text = render_report(module.TITLE, info, settings, sections, command.strip(),
                             time.perf_counter() - t0, method=getattr(module, 'METHOD', None))
        path = args.output_dir / f'{module.NAME}_{today}{suffix}.md'
        path.write_text(text, encoding='utf-8')
        written = [path]
        if not suffix:
            latest = args.output_dir / f'latest_{module.NAME}.md'
            latest.write_text(text, encoding='utf-8')
            written.append(latest)
        progress.step(f'== {module.NAME} done in {time.perf_counter() - t0:.0f} s; wrote '
                      + ', '.join(_shown(p) for p in written))
    return RunRecord(parts_run, targets, started, load_start, load_average(),
                     time.perf_counter() - t_run)


if __name__ == '__main__':
    raise SystemExit(main())
