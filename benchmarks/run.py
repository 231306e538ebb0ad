"""Run the benchmark modules (``benchmarks/bench_*.py``) and write their markdown reports.

Usage::

    .venv/bin/python benchmarks/run.py                 # full run, every module (~3 min, 2 cores)
    .venv/bin/python benchmarks/run.py --quick         # smoke run (fewer repeats/targets)
    .venv/bin/python benchmarks/run.py --only fk       # one part: fk | ik | memory | self | ...
    .venv/bin/python benchmarks/run.py --only collision  # one whole module (= --module collision)

Each module ``bench_<name>.py`` defines ``NAME``, ``TITLE``, ``PARTS`` and
``run(settings, progress, parts) -> list[Section]`` (optionally ``METHOD``, a paragraph that
replaces the default method text of the report). A full run writes
``results/<NAME>_<YYYY-MM-DD>.md`` and the stable copy ``results/latest_<NAME>.md``. Quick or
partial (``--only PART``) runs write ``results/<NAME>_<YYYY-MM-DD>_<quick|fk|...>.md`` and leave
the ``latest_`` copy alone, so it always holds a complete full run. ``--only <NAME>`` (a module
name instead of a part) runs that whole module, like ``--module <NAME>``, and counts as complete.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
from pathlib import Path
import sys
import time
from types import ModuleType

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from common import load_average, machine_info, Progress, render_report, Settings  # noqa: E402

RESULTS = HERE / 'results'


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
    return parser.parse_args(argv)


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
                      + ', '.join(str(p.relative_to(Path.cwd()) if p.is_relative_to(Path.cwd())
                                      else p) for p in written))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
