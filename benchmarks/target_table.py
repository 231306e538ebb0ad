"""Issue 12's target table: one row per issue target, assembled from the modules' ``Target`` rows.

Each benchmark module tags the ``Target`` rows that measure an issue-12 target with ``key`` (the
row below) and ``figures`` (its numbers, SI units). This module judges those figures against the
**issue's** thresholds (a module's own ``Target.met`` may use an older or looser one) and renders
``results/latest_targets.md``: the rows in the issue's order, each with our figure, the peer's,
the ratio in every framing the issue asks for, and the verdict (met / **MISSED** / not measured
/ not run, with why). With several runs (``run.py --runs N``) the figures shown are the median of
each figure over the runs, the verdict is the majority of the runs' own verdicts (``_overall``),
and a last column gives the spread: min–max of every ratio and each run's verdict, with the rows
missed in any run flagged.

Figure names per key (what the modules put in ``Target.figures``; compute_ik's ``solve_s`` is
the in-process back-to-back solve, the optional ``server_solve_s`` the solve inside our server):

| key | figures |
|---|---|
| ``fk`` | ``ours_s``, ``ffk_s`` (Pinocchio fFK alone), ``readout_s`` (fFK + readout) |
| ``fk_jacobian`` | ``ours_s`` (one call), ``peer_s`` (fFK + cFJ), ``three_calls_s`` (optional) |
| ``fk_batch`` | ``ours_rate``, ``pin_rate`` (configs/s; Pinocchio fFK in a Python loop) |
| ``ik`` | ``ours_s``, ``peer_s`` (medians), ``ours_success``, ``peer_success`` (fractions) |
| ``self_collision`` | ``ours_s``, ``peer_s`` (coal via Pinocchio), ``best_s`` (best broad phase) |
| ``world_boxes`` | ``ours_s``, ``peer_s`` (coal + its manager), ``peer_pairs_s`` (without) |
| ``distance`` | ``ours_s``, ``peer_s`` (coal, same pruning), ``peer_all_s`` (coal, all pairs) |
| ``tf_latency`` | ``ours_s``, ``peer_s`` (p50s), ``backlog_ok``, ``disturbed`` (0/1) |
| ``node_start`` | ``warm_s``, ``cold_s`` |
| ``compute_ik`` | ``ours_s``, ``empty_s``, ``solve_s``, ``budget_s``, ``server_solve_s`` (p50s) |
| ``memory`` | ``bytes`` (deep size), optionally ``bytes_after_fk`` |
| ``ik_first_call`` | ``first_s``, ``next_s`` |
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
import statistics
from typing import Any

from common import fmt_bytes, fmt_ms, fmt_pct, fmt_rate, fmt_ratio, fmt_us, Table, Target

#: Issue 12's IK overhead allowance of the compute_ik round trip [ms] (budget is computed by
#: the module; this is only for the target text).
IK_OVERHEAD_MS = 0.3


@dataclass(frozen=True)
class Judgement:
    """One case of an issue row judged against the issue's threshold.

    Attributes:
        measured: Our figure(s) as text.
        peer: The peer's figure(s) as text ('—' without a peer).
        ratios: ``(framing, value, unit)`` per framing; unit ``'×'``, ``'µs'``, ``'ms'``,
            ``'s'`` (the spread over runs is taken per framing).
        met: The issue's verdict; ``None``: reported, no target.
        why: Why missed (or a caveat).
    """

    measured: str
    peer: str
    ratios: tuple[tuple[str, float, str], ...] = ()
    met: bool | None = None
    why: str = ''


Judge = Callable[[Mapping[str, float]], Judgement]


@dataclass(frozen=True)
class IssueRow:
    """One row of issue 12's target table.

    Attributes:
        key: Stable key, matched with ``Target.key``.
        module: ``NAME`` of the benchmark module that measures it.
        part: The module's part (``run.py --only PART``) that measures it.
        benchmark: The issue's wording of the benchmark.
        target: The issue's target.
        judge: Judges one case's figures.
    """

    key: str
    module: str
    part: str
    benchmark: str
    target: str
    judge: Judge


def _fmt(value: float, unit: str) -> str:
    if unit == '×':
        return fmt_ratio(value)
    if unit == 'µs':
        return f'{value:.3g} µs'
    if unit == 'ms':
        return f'{value:.3g} ms'
    return f'{value:.2f} {unit}'


def _fk(f: Mapping[str, float]) -> Judgement:
    r_read, r_ffk = f['ours_s'] / f['readout_s'], f['ours_s'] / f['ffk_s']
    why = [w for w, bad in ((f'{fmt_ratio(r_read)} > 0.5× fFK + readout', r_read > 0.5),
                            (f'{fmt_ratio(r_ffk)} > 3× fFK alone', r_ffk > 3.0)) if bad]
    return Judgement(f'{fmt_us(f["ours_s"])} µs',
                     f'fFK + readout {fmt_us(f["readout_s"])} µs; fFK alone '
                     f'{fmt_us(f["ffk_s"])} µs',
                     (('vs fFK + readout', r_read, '×'), ('vs fFK alone', r_ffk, '×')),
                     not why, '; '.join(why))


def _fk_jacobian(f: Mapping[str, float]) -> Judgement:
    ours = f['ours_s']  # the one-call API; the three calls are reported beside it
    met = ours <= 5e-6
    ratios: tuple[tuple[str, float, str], ...] = (
        ('ours', ours * 1e6, 'µs'), ('vs fFK + cFJ', ours / f['peer_s'], '×'))
    measured = f'{fmt_us(ours)} µs (one call)'
    if 'three_calls_s' in f:
        three = f['three_calls_s']
        ratios += (('three calls', three * 1e6, 'µs'),
                   ('three calls vs fFK + cFJ', three / f['peer_s'], '×'))
        measured += f'; three calls {fmt_us(three)} µs'
    return Judgement(measured, f'fFK + computeFrameJacobian {fmt_us(f["peer_s"])} µs', ratios,
                     met, '' if met else f'{fmt_us(ours)} µs > 5 µs')


def _fk_batch(f: Mapping[str, float]) -> Judgement:
    speed = f['ours_rate'] / f['pin_rate']
    met = speed >= 3.0
    return Judgement(f'{fmt_rate(f["ours_rate"])} configs/s',
                     f'Pinocchio loop {fmt_rate(f["pin_rate"])} configs/s',
                     (('speed vs pin loop', speed, '×'),), met,
                     '' if met else f'{fmt_ratio(speed)} < 3× the loop')


def _ik(f: Mapping[str, float]) -> Judgement:
    ratio = f['ours_s'] / f['peer_s']
    why = [w for w, bad in ((f'median {fmt_ratio(ratio)} > 1.0× TRAC-IK', ratio > 1.0),
                            ("success below TRAC-IK's", f['ours_success'] < f['peer_success']))
           if bad]
    return Judgement(f'median {fmt_ms(f["ours_s"])} ms, success {fmt_pct(f["ours_success"])} %',
                     f'TRAC-IK median {fmt_ms(f["peer_s"])} ms, success '
                     f'{fmt_pct(f["peer_success"])} %',
                     (('median ours / TRAC-IK', ratio, '×'),), not why, '; '.join(why))


def _self_collision(f: Mapping[str, float]) -> Judgement:
    speed, best = f['peer_s'] / f['ours_s'], f['peer_s'] / f['best_s']
    met = speed >= 1.0
    return Judgement(f'{fmt_us(f["ours_s"])} µs/state (best broad phase '
                     f'{fmt_us(f["best_s"])} µs)',
                     f'coal via Pinocchio {fmt_us(f["peer_s"])} µs/state',
                     (('speed vs coal', speed, '×'), ('best broad phase vs coal', best, '×')),
                     met, '' if met else f'needs {fmt_ratio(1.0 / speed)} faster')


def _world_boxes(f: Mapping[str, float]) -> Judgement:
    speed, pairs = f['peer_s'] / f['ours_s'], f['peer_pairs_s'] / f['ours_s']
    met = speed >= 1.0
    return Judgement(f'{fmt_us(f["ours_s"])} µs/state',
                     f'coal + broad-phase manager {fmt_us(f["peer_s"])} µs; coal on the pair '
                     f'list {fmt_us(f["peer_pairs_s"])} µs',
                     (('speed vs coal + manager', speed, '×'),
                      ('speed vs coal without', pairs, '×')),
                     met, '' if met else f'needs {fmt_ratio(1.0 / speed)} faster')


def _distance(f: Mapping[str, float]) -> Judgement:
    same, every = f['peer_s'] / f['ours_s'], f['peer_all_s'] / f['ours_s']
    return Judgement(f'{fmt_ms(f["ours_s"])} ms/state',
                     f'coal, same pruning {fmt_ms(f["peer_s"])} ms; coal, all pairs '
                     f'{fmt_ms(f["peer_all_s"])} ms',
                     (('speed vs coal, same pruning', same, '×'),
                      ('speed vs coal, all pairs', every, '×')),
                     True, 'a method target (same work on both sides): no speed threshold')


def _tf_latency(f: Mapping[str, float]) -> Judgement:
    ratio = f['ours_s'] / f['peer_s']
    why = [w for w, bad in ((f'{fmt_ratio(ratio)} > 1.2× relay', ratio > 1.2),
                            ('backlog', f.get('backlog_ok', 1.0) < 0.5)) if bad]
    if f.get('disturbed', 0.0) >= 0.5:
        why.append('not conclusive: other processes busy during the trial')
    return Judgement(f'p50 {fmt_ms(f["ours_s"])} ms'
                     + ('' if f.get('backlog_ok', 1.0) >= 0.5 else ', backlog'),
                     f'bare rclpy relay p50 {fmt_ms(f["peer_s"])} ms',
                     (('p50 ours / relay', ratio, '×'),),
                     ratio <= 1.2 and f.get('backlog_ok', 1.0) >= 0.5, '; '.join(why))


def _node_start(f: Mapping[str, float]) -> Judgement:
    warm, cold = f['warm_s'], f.get('cold_s')
    why = [w for w, bad in ((f'warm {warm:.2f} s > 1 s', warm > 1.0),
                            ('cold not measured', cold is None)) if bad]
    ratios = [('warm', warm, 's')] + ([('cold', cold, 's')] if cold is not None else [])
    return Judgement(f'warm {warm:.2f} s; cold ' + (f'{cold:.2f} s' if cold is not None else '?'),
                     '—', tuple(ratios), not why, '; '.join(why))


def _compute_ik(f: Mapping[str, float]) -> Judgement:
    """The compute_ik budget: empty floor + solve + 0.3 ms.

    Judged with the solve as timed inside our server when known (the solve the round trip
    contains: a request finds the CPU idle, as the empty-service floor's does); the in-process
    back-to-back solve is the second framing (bench_ros.py: the idle-gap table).
    """
    ours, empty, solve = f['ours_s'], f['empty_s'], f['solve_s']
    allowance = IK_OVERHEAD_MS * 1e-3
    server = f.get('server_solve_s')
    ratios: list[tuple[str, float, str]] = []
    if server is not None:
        budget = empty + server + allowance
        peer = (f'empty service {fmt_ms(empty)} + solve {fmt_ms(server)} (timed inside our '
                f'server) + {IK_OVERHEAD_MS:g} = {fmt_ms(budget)} ms; with the solve back to '
                f'back in process ({fmt_ms(solve)} ms): {fmt_ms(empty + solve + allowance)} ms')
        ratios += [('ours / budget', ours / budget, '×'),
                   ('overhead', (ours - empty - server) * 1e3, 'ms')]
    else:
        budget = f['budget_s']
        peer = (f'empty service {fmt_ms(empty)} + solve {fmt_ms(solve)} + '
                f'{IK_OVERHEAD_MS:g} = {fmt_ms(budget)} ms')
    ratios += [('ours / budget, solve back to back', ours / (empty + solve + allowance), '×'),
               ('overhead, solve back to back', (ours - empty - solve) * 1e3, 'ms')]
    met = ours <= budget
    return Judgement(f'p50 {fmt_ms(ours)} ms', peer, tuple(ratios), met,
                     '' if met else f'{fmt_ms(ours - budget)} ms over the budget')


def _memory(f: Mapping[str, float]) -> Judgement:
    text = fmt_bytes(f['bytes'])
    if 'bytes_after_fk' in f:
        text += f' ({fmt_bytes(f["bytes_after_fk"])} after FK)'
    return Judgement(text, '—')


def _ik_first_call(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'first {fmt_ms(f["first_s"])} ms, next {fmt_ms(f["next_s"])} ms', '—',
                     (('first / next', f['first_s'] / f['next_s'], '×'),))


#: Issue 12's targets, in the issue's order (the last two: "also report").
ISSUE_ROWS: tuple[IssueRow, ...] = (
    IssueRow('fk', 'kinematics', 'fk', 'FK, one config, all links → `(L,4,4)`: Panda, UR5, '
             'Talos full', '≤ 0.5× Pinocchio fFK + readout **and** ≤ 3× Pinocchio fFK alone', _fk),
    IssueRow('fk_jacobian', 'kinematics', 'fk', 'FK + tip Jacobian, Panda', '≤ 5 µs',
             _fk_jacobian),
    IssueRow('fk_batch', 'kinematics', 'fk', 'batched FK, N = 10 000, Panda / Talos',
             "≥ 3× Pinocchio's loop (configs/s, 2 cores)", _fk_batch),
    IssueRow('ik', 'kinematics', 'ik', 'IK @5 ms and @50 ms, random reachable targets, Panda / '
             'UR5 / Talos torso+arm', "success ≥ TRAC-IK's **and** median ≤ 1.0× TRAC-IK", _ik),
    IssueRow('self_collision', 'collision', 'self', 'self-collision from q (FK included on both '
             'sides), Panda meshes / Talos', '≥ 1.0× coal via Pinocchio', _self_collision),
    IssueRow('world_boxes', 'collision', 'world', 'robot vs 100 world boxes',
             '≥ 1.0× coal **with its broad-phase manager**', _world_boxes),
    IssueRow('distance', 'collision', 'distance', 'minimum distance, collision-free states',
             'the same work on both sides (all pairs on both, or the same pruning on both)',
             _distance),
    IssueRow('tf_latency', 'ros', 'tf', 'joint_states → /tf latency @1 kHz',
             'p50 ≤ 1.2× a bare rclpy relay, no backlog', _tf_latency),
    IssueRow('node_start', 'ros', 'node_start', 'node start to first /tf_static, default robot',
             'cold (empty kernel cache) and warm figures reported; warm ≤ 1 s', _node_start),
    IssueRow('compute_ik', 'ros', 'services', 'compute_ik round trip, default robot, distinct '
             'targets', f'≤ empty-service floor + solve time + {IK_OVERHEAD_MS:g} ms',
             _compute_ik),
    IssueRow('memory', 'kinematics', 'memory', 'memory per `RobotState` and per '
             '`KinematicsData`', 'report only', _memory),
    IssueRow('ik_first_call', 'kinematics', 'memory', "IK's first call (cold seed tables)",
             'report only', _ik_first_call),
)


# ---------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class RunRecord:
    """What one benchmark run produced, for the target table.

    Attributes:
        parts: ``{module NAME: parts run}`` for every module that ran.
        targets: ``{module NAME: its Target rows, in report order}``.
        started: Local date and time the run started.
        load_start: Load average (1/5/15 min) at the start.
        load_end: Load average at the end.
        seconds: Duration of the run [s].
    """

    parts: Mapping[str, tuple[str, ...]]
    targets: Mapping[str, tuple[Target, ...]]
    started: str = ''
    load_start: str = ''
    load_end: str = ''
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (``from_json`` reads it back)."""
        return {'parts': {k: list(v) for k, v in self.parts.items()},
                'targets': {m: [{**asdict(t), 'figures': dict(t.figures)} for t in ts]
                            for m, ts in self.targets.items()},
                'started': self.started, 'load_start': self.load_start,
                'load_end': self.load_end, 'seconds': self.seconds}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunRecord:
        """The record ``to_json`` wrote."""
        return cls({k: tuple(v) for k, v in data['parts'].items()},
                   {m: tuple(Target(**t) for t in ts) for m, ts in data['targets'].items()},
                   data.get('started', ''),
                   data.get('load_start', ''), data.get('load_end', ''),
                   float(data.get('seconds', 0.0)))


def case_name(target: Target) -> str:
    """The case of a target: its description up to the first ``': '``."""
    return target.description.partition(': ')[0]


@dataclass
class _Case:
    name: str
    per_run: list[Target | None] = field(default_factory=list)


def _median_figures(targets: Iterable[Target]) -> dict[str, float]:
    """Median over runs of every figure present in all of them."""
    figs = [t.figures for t in targets if t.figures]
    if not figs:
        return {}
    names = [k for k in figs[0] if all(k in f for f in figs)]
    return {k: float(statistics.median(f[k] for f in figs)) for k in names}


def _overall(median: Judgement, judged: Sequence[Judgement | None]) -> Judgement:
    """The verdict over several runs: the majority of the runs' own verdicts.

    Each run is judged on its own figures (ours and the peer's are timed in the same run, so
    their ratio is only meaningful within a run); ``median`` (the judgement of the median
    figures, whose ratios are shown) decides with one run. Where the two disagree the verdict
    says both.
    """
    runs = [j for j in judged if j is not None and j.met is not None]
    if len(runs) < 2 or median.met is None:
        return median
    met = sum(1 for j in runs if j.met)
    majority = 2 * met > len(runs)
    if majority == median.met:
        return median
    if majority:
        why = f'in {met} of {len(runs)} runs; on the median figures: {median.why or "missed"}'
    else:
        why = f'missed in {len(runs) - met} of {len(runs)} runs, met on the median figures'
    return replace(median, met=majority, why=why)


def _verdict(j: Judgement) -> str:
    if j.met is None:
        return 'reported (no target)'
    if j.met:
        return 'met' + (f' ({j.why})' if j.why else '')
    return f'**MISSED** ({j.why})' if j.why else '**MISSED**'


def _short_verdict(j: Judgement | None) -> str:
    if j is None:
        return 'not measured'
    return 'report' if j.met is None else 'met' if j.met else 'MISSED'


def _spread(judged: Sequence[Judgement | None]) -> str:
    done = [j for j in judged if j is not None]
    cells: list[str] = []
    missed = sum(1 for j in done if j.met is False)
    if missed:
        cells.append(f'**missed in {missed} of {len(judged)} runs**')
    if done:
        for k, (label, _, unit) in enumerate(done[0].ratios):
            values = [j.ratios[k][1] for j in done if len(j.ratios) > k]
            cells.append(f'{label} {_fmt(min(values), unit)} – {_fmt(max(values), unit)}')
    cells.append('runs: ' + ', '.join(_short_verdict(j) for j in judged))
    return '; '.join(cells)


def _not_measured_reason(row: IssueRow, runs: Sequence[RunRecord]) -> str:
    """Why a row has no figures in these runs (module/part not run, or skipped)."""
    parts = runs[0].parts
    if row.module not in parts:
        return f'not run (module `{row.module}` not in this run)'
    if row.part not in parts[row.module]:
        return f'not run (part `{row.part}` of `{row.module}` not selected)'
    reasons = sorted({t.detail or t.measured for r in runs
                      for t in r.targets.get(row.module, ()) if not t.key and t.met is None}
                     - {''})
    why = '; '.join(reasons) or f'no result: see `latest_{row.module}.md`'
    return f'not measured ({why})'


def target_rows(runs: Sequence[RunRecord]) -> Table:
    """Issue 12's table over one or more runs of the same selection.

    Args:
        runs: The runs (at least one), all of the same modules and parts.

    Returns:
        The table: one line per case of every issue row (a row without cases gets one line
        saying why), with a spread column when there is more than one run.
    """
    if not runs:
        raise ValueError('target_rows needs at least one run')
    many = len(runs) > 1
    headers = ['#', 'benchmark (issue 12)', 'target', 'case', 'ours', 'peer', 'ours vs peer',
               'verdict']
    if many:
        headers.append(f'spread over {len(runs)} runs')
    table = Table(headers)
    for number, row in enumerate(ISSUE_ROWS, start=1):
        cases: dict[str, _Case] = {}
        for k, run in enumerate(runs):
            for t in run.targets.get(row.module, ()):
                if t.key != row.key:
                    continue
                case = cases.setdefault(case_name(t), _Case(case_name(t)))
                case.per_run += [None] * (k + 1 - len(case.per_run))
                case.per_run[k] = t
        first = True
        if not cases:
            cells = [str(number), row.benchmark, row.target, '—', '—', '—', '—',
                     _not_measured_reason(row, runs)]
            table.add(*cells, *(['—'] if many else []))
            continue
        for case in cases.values():
            case.per_run += [None] * (len(runs) - len(case.per_run))
            measured = [t for t in case.per_run if t is not None and t.figures]
            judged: list[Judgement | None] = [
                row.judge(t.figures) if t is not None and t.figures else None
                for t in case.per_run]
            if measured:
                j = _overall(row.judge(_median_figures(measured)), judged)
                cells = [j.measured, j.peer,
                         '; '.join(f'{_fmt(v, u)} {label}' for label, v, u in j.ratios) or '—',
                         _verdict(j)]
            else:
                why = '; '.join(sorted({t.detail or t.measured for t in case.per_run
                                        if t is not None})) or 'no figures'
                cells = ['—', '—', '—', f'not measured ({why})']
            table.add(str(number), row.benchmark if first else '″',
                      row.target if first else '″', case.name, *cells,
                      *([_spread(judged)] if many else []))
            first = False
    return table


def render(runs: Sequence[RunRecord], info: Mapping[str, str], command: str, quick: bool,
           seconds: float) -> str:
    """The whole ``latest_targets.md``.

    Args:
        runs: The runs (one, or ``--runs N``).
        info: Machine info of the first run (``common.machine_info``).
        command: The command line.
        quick: Whether this was a ``--quick`` smoke run.
        seconds: Wall time of the whole invocation [s].

    Returns:
        Markdown text.
    """
    mode = ('**quick smoke run** (fewer repeats and IK targets: not for comparison)' if quick
            else 'full run')
    runs_table = Table(['run', 'started', 'load at start (1/5/15 min)', 'load at end', 'seconds',
                        'modules (parts)'])
    for k, run in enumerate(runs, start=1):
        runs_table.add(k, run.started, run.load_start, run.load_end, f'{run.seconds:.0f}',
                       '; '.join(f'{m} ({", ".join(p)})' for m, p in run.parts.items()))
    machine = Table(['', ''])
    for key in ('cpu', 'cores', 'python', 'numpy', 'pinocchio (pin)', 'pytracik',
                'robot_state_core', 'thread env'):
        if key in info:
            machine.add(key, info[key])
    figures = ('the median of each figure over the runs, and the ratios of those medians; '
               "the verdict is the majority of the runs' verdicts (each run judged on its own "
               'figures: ours and the peer are timed in the same run), with both said where the '
               "median figures would judge otherwise; the last column gives every run's ratio "
               'range and verdict' if len(runs) > 1 else 'from this one run')
    out = [
        '# Issue 12 targets', '',
        f'Generated by `{command}` ({mode}, {len(runs)} run{"s" if len(runs) > 1 else ""}) in '
        f'{seconds:.0f} s; date {info.get("date", "?")}; commit '
        f'{info.get("robot_state_core", "?").rpartition("commit ")[2]}.', '',
        f"Every target of issue 12 in the issue's order, judged against the issue's "
        f'threshold (the module reports `latest_<module>.md` have the full tables). Figures: '
        f'{figures}. Ratios are between tools timed in the same run. "×" speed rows: > 1 means '
        'ours is faster; "ours / peer" time rows: < 1 means ours is faster.', '',
        '## Targets', '', target_rows(runs).markdown(), '',
        '## Runs', '', runs_table.markdown(), '',
        '## Machine', '', machine.markdown(), '',
    ]
    return '\n'.join(out).rstrip() + '\n'
