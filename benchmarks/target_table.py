"""The target table of issues 12, 27 and 30: one row per target, from the modules' ``Target``s.

Each benchmark module tags the ``Target`` rows that measure a target with ``key`` (the row
below) and ``figures`` (its numbers, SI units). This module judges those figures against the
**issues'** thresholds (a module's own ``Target.met`` may use an older or looser one) and renders
``results/latest_targets.md``: the rows in order, each with our figure, the peer's, the named
values ("framings": ratios, times, counts) every target is stated in, and the verdict (met /
**MISSED** / not measured / not run, with why). A target is a set of :class:`Check` s on those
values, grouped by framing where the issue asks for two (equal work and as shipped; serial and
threaded): the verdict cell then gives one verdict per framing.

Several runs (``run.py --runs N``): every run is judged on its own figures (ours and the peer's
are timed in the same run, so only their ratio within a run is meaningful); each value shown and
judged is the **median over the runs of that run's paired value** (``_overall``), fixed before
any run; a row that misses in any run says so in its verdict and in the spread column (min–max
of every value and each run's verdict).

Figure names per key (what the modules put in ``Target.figures``):

- ``fk``: ``ours_s``, ``ffk_s`` (Pinocchio fFK alone, same root joint), ``readout_s`` (fFK +
  readout); ``fixed_s`` (optional: the same robot's fixed-base FK, timed beside ours) on a
  robot with a root joint, which adds issue 30's checks.
- ``fk_jacobian``: ``ours_s`` (one call), ``peer_s`` (fFK + cFJ), ``three_calls_s`` (optional),
  ``fixed_s`` (optional, as in ``fk``: adds issue 30's check).
- ``robot_state``: ``ours_s`` (set all positions, read every link pose), ``peer_s`` (fFK +
  readout); ``links_s`` (optional: set all positions, read the poses one link at a time: adds
  issue 30's check), ``fixed_links_s`` (optional: the same on the fixed-base twin, reported).
- ``ik`` without ``peer_s`` (issue 30's free-flyer root unlocked in the group, no TRAC-IK
  peer): ``default_s``, ``default_success`` (as shipped), ``locked_s``, ``locked_success``
  (optional: the same targets with the root joint out of the group, reported).
- ``fk_batch``: ``ours_serial_rate``, ``ours_threaded_rate``, ``threads``, ``pin_rate``
  (configs/s), optionally ``pin_threaded_rate``.
- ``ik``: ``equal_s``, ``equal_success`` (one seed, no seed table, TRAC-IK's tolerances),
  ``peer_s``, ``peer_success`` (TRAC-IK), ``default_s``, ``default_success`` (as shipped).
- ``ik_seed_table``: ``build_s``.
- ``ik_small_moves``: ``ours_s``, ``peer_s`` (medians), ``ours_success``, ``peer_success``,
  ``ours_jumps``, ``peer_jumps`` (answers with a joint > 0.5 rad from the seed).
- ``self_collision``: ``ours_s``, ``ours_nocull_s``, ``peer_pairs_s`` (coal on the pair list),
  ``peer_manager_s`` (coal with its broad-phase manager).
- ``world_boxes``: ``ours_s``, ``peer_s`` (coal + its manager), ``peer_pairs_s`` (without).
- ``distance``: ``ours_s``, ``peer_s`` (coal, same pruning), ``peer_all_s`` (coal, all pairs).
- ``tf_latency``: ``ours_s``, ``peer_s`` (floor with our transport tricks), ``relay_s``
  (optional: bare rclpy relay), ``backlog_ok``, ``disturbed`` (0/1) (p50s).
- ``node_start``: ``warm_s``, ``cold_s``. ``first_answer``: ``cold_s``, ``warm_s``.
- ``compute_ik``, ``validity_100_objects``: ``ours_s``, ``empty_s``, ``solve_s`` (the work
  measured independently, in process) (p50s).
- ``memory``: ``bytes`` (deep size), optionally ``bytes_after_fk``. ``ik_first_call``:
  ``first_s``, ``next_s``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
import statistics
from typing import Any

from common import fmt_bytes, fmt_ms, fmt_pct, fmt_rate, fmt_ratio, fmt_us, Table, Target

#: Issue 12's overhead allowance of a service round trip over its floor and solve [ms].
IK_OVERHEAD_MS = 0.3
#: Issue 30 (a floating / planar root joint): FK and FK + tip Jacobian ≤ this × the same
#: robot's fixed-base time (timed in the same run) ...
ROOT_VS_FIXED = 1.5
#: ... FK ≤ this × Pinocchio's fFK alone with the same root joint ...
ROOT_VS_FFK = 3.0
#: ... ``RobotState`` set all positions + read every link pose one by one ≤ this [µs] ...
STATE_LINKS_US = 10.0
#: ... IK with the free-flyer root unlocked in the group: success ≥ this [%].
FREE_ROOT_IK_SUCCESS_PCT = 99.0
#: The framing names of the FK row's checks when issue 30's join them.
OLD_FRAMING, ISSUE30 = 'issues 12, 27', 'issue 30'


@dataclass(frozen=True)
class Check:
    """One threshold of a target on a named value of a :class:`Judgement`.

    Attributes:
        label: The value's label in ``Judgement.values``.
        op: ``'<='`` or ``'>='``: how the value must compare with ``limit``.
        limit: The threshold, in the value's unit.
        framing: The framing the check belongs to (``''``: the row has one framing).
    """

    label: str
    op: str
    limit: float
    framing: str = ''

    def passes(self, value: float) -> bool:
        """Whether ``value`` meets the threshold."""
        return value <= self.limit if self.op == '<=' else value >= self.limit


@dataclass(frozen=True)
class Judgement:
    """One case of a row: its figures as text, its named values and the target's checks.

    Attributes:
        measured: Our figure(s) as text.
        peer: The peer's figure(s) as text ('—' without a peer).
        values: ``(label, value, unit)`` per framing; unit ``'×'``, ``'µs'``, ``'ms'``, ``'s'``,
            ``'pp'`` (percentage points), ``'%'`` or ``''`` (a count).
        checks: The target's thresholds on ``values``; none: reported, no target.
        caveat: Said beside the verdict (e.g. a disturbed trial).
    """

    measured: str
    peer: str
    values: tuple[tuple[str, float, str], ...] = ()
    checks: tuple[Check, ...] = ()
    caveat: str = ''

    def value(self, label: str) -> tuple[float, str]:
        """The value and unit of ``label``."""
        return next((v, u) for name, v, u in self.values if name == label)

    def missed(self) -> list[tuple[Check, float, str]]:
        """The checks this judgement misses, with the value and its unit."""
        out = []
        for check in self.checks:
            value, unit = self.value(check.label)
            if not check.passes(value):
                out.append((check, value, unit))
        return out

    @property
    def met(self) -> bool | None:
        """Whether every check passes; ``None`` without checks (reported only)."""
        return not self.missed() if self.checks else None


Judge = Callable[[Mapping[str, float]], Judgement]


@dataclass(frozen=True)
class IssueRow:
    """One row of the target table.

    Attributes:
        key: Stable key, matched with ``Target.key``.
        module: ``NAME`` of the benchmark module that measures it.
        part: The module's part (``run.py --only PART``) that measures it.
        benchmark: The issue's wording of the benchmark.
        target: The target, with the issue that set it.
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
    if unit in ('µs', 'ms'):
        return f'{value:.3g} {unit}'
    if unit == 'pp':
        return f'{value:+.1f} pp'
    if unit == '%':
        return f'{value:.1f} %'
    if unit == '':
        return f'{value:g}'
    return f'{value:.2f} {unit}'


def _speed(f: Mapping[str, float], peer: str, ours: str = 'ours_s') -> float:
    return f[peer] / f[ours]


def _fk(f: Mapping[str, float]) -> Judgement:
    values: tuple[tuple[str, float, str], ...] = (
        ('vs fFK alone', f['ours_s'] / f['ffk_s'], '×'),
        ('vs fFK + readout', f['ours_s'] / f['readout_s'], '×'))
    if 'fixed_s' not in f:
        return Judgement(f'{fmt_us(f["ours_s"])} µs',
                         f'fFK alone {fmt_us(f["ffk_s"])} µs; fFK + readout '
                         f'{fmt_us(f["readout_s"])} µs', values,
                         (Check('vs fFK alone', '<=', 1.5),
                          Check('vs fFK + readout', '<=', 0.5)))
    # A root joint: issue 30's checks beside issues 12 and 27 (each a framing of its own).
    return Judgement(f'{fmt_us(f["ours_s"])} µs; fixed-base twin {fmt_us(f["fixed_s"])} µs',
                     f'fFK alone {fmt_us(f["ffk_s"])} µs; fFK + readout '
                     f'{fmt_us(f["readout_s"])} µs',
                     (*values, ('vs fixed base', f['ours_s'] / f['fixed_s'], '×')),
                     (Check('vs fFK alone', '<=', 1.5, OLD_FRAMING),
                      Check('vs fFK + readout', '<=', 0.5, OLD_FRAMING),
                      Check('vs fixed base', '<=', ROOT_VS_FIXED, ISSUE30),
                      Check('vs fFK alone', '<=', ROOT_VS_FFK, ISSUE30)))


def _fk_jacobian(f: Mapping[str, float]) -> Judgement:
    ours = f['ours_s']  # the one-call API; the three calls are reported beside it
    values: tuple[tuple[str, float, str], ...] = (
        ('ours', ours * 1e6, 'µs'), ('vs fFK + cFJ', ours / f['peer_s'], '×'))
    measured = f'{fmt_us(ours)} µs (one call)'
    if 'three_calls_s' in f:
        three = f['three_calls_s']
        values += (('three calls', three * 1e6, 'µs'),
                   ('three calls vs fFK + cFJ', three / f['peer_s'], '×'))
        measured += f'; three calls {fmt_us(three)} µs'
    if 'fixed_s' not in f:
        return Judgement(measured, f'fFK + computeFrameJacobian {fmt_us(f["peer_s"])} µs',
                         values, (Check('ours', '<=', 5.0),))
    measured += f'; fixed-base twin {fmt_us(f["fixed_s"])} µs'
    return Judgement(measured, f'fFK + computeFrameJacobian {fmt_us(f["peer_s"])} µs',
                     (*values, ('vs fixed base', ours / f['fixed_s'], '×')),
                     (Check('ours', '<=', 5.0, 'issue 12'),
                      Check('vs fixed base', '<=', ROOT_VS_FIXED, ISSUE30)))


def _robot_state(f: Mapping[str, float]) -> Judgement:
    values: tuple[tuple[str, float, str], ...] = (
        ('ours / fFK + readout', f['ours_s'] / f['peer_s'], '×'),)
    if 'links_s' not in f:
        return Judgement(f'{fmt_us(f["ours_s"])} µs', f'fFK + readout {fmt_us(f["peer_s"])} µs',
                         values)
    measured = f'{fmt_us(f["ours_s"])} µs; per link {fmt_us(f["links_s"])} µs'
    values += (('per link', f['links_s'] * 1e6, 'µs'),)
    if 'fixed_links_s' in f:
        measured += f' (fixed-base twin {fmt_us(f["fixed_links_s"])} µs)'
        values += (('per link vs fixed base', f['links_s'] / f['fixed_links_s'], '×'),)
    return Judgement(measured, f'fFK + readout {fmt_us(f["peer_s"])} µs', values,
                     (Check('per link', '<=', STATE_LINKS_US, ISSUE30),))


def _fk_batch(f: Mapping[str, float]) -> Judgement:
    threads = int(f['threads'])
    peer = f'Pinocchio loop (1 thread) {fmt_rate(f["pin_rate"])} configs/s'
    values = [('serial vs pin loop', f['ours_serial_rate'] / f['pin_rate'], '×'),
              ('threaded vs pin loop', f['ours_threaded_rate'] / f['pin_rate'], '×')]
    if 'pin_threaded_rate' in f:
        peer += f'; Pinocchio, {threads} threads {fmt_rate(f["pin_threaded_rate"])} configs/s'
        values.append(('threaded vs pin threaded',
                       f['ours_threaded_rate'] / f['pin_threaded_rate'], '×'))
    return Judgement(f'1 thread {fmt_rate(f["ours_serial_rate"])} configs/s; {threads} threads '
                     f'{fmt_rate(f["ours_threaded_rate"])} configs/s', peer, tuple(values),
                     (Check('serial vs pin loop', '>=', 3.0, 'serial'),
                      Check('threaded vs pin loop', '>=', 3.0, f'{threads} threads')))


def _ik(f: Mapping[str, float]) -> Judgement:
    if 'peer_s' not in f:
        return _ik_free_root(f)
    return Judgement(
        f'equal work: median {fmt_ms(f["equal_s"])} ms, success '
        f'{fmt_pct(f["equal_success"])} %; as shipped: median {fmt_ms(f["default_s"])} ms, '
        f'success {fmt_pct(f["default_success"])} %',
        f'TRAC-IK median {fmt_ms(f["peer_s"])} ms, success {fmt_pct(f["peer_success"])} %',
        (('equal work / TRAC-IK', f['equal_s'] / f['peer_s'], '×'),
         ('equal work success − TRAC-IK', 100 * (f['equal_success'] - f['peer_success']), 'pp'),
         ('as shipped / TRAC-IK', f['default_s'] / f['peer_s'], '×'),
         ('as shipped success − TRAC-IK', 100 * (f['default_success'] - f['peer_success']),
          'pp')),
        (Check('equal work / TRAC-IK', '<=', 0.7, 'equal work'),
         Check('equal work success − TRAC-IK', '>=', 0.0, 'equal work'),
         Check('as shipped / TRAC-IK', '<=', 1.0, 'as shipped'),
         Check('as shipped success − TRAC-IK', '>=', 0.0, 'as shipped')))


def _ik_free_root(f: Mapping[str, float]) -> Judgement:
    """Issue 30: the free-flyer root unlocked in the group (no TRAC-IK peer on that)."""
    values: tuple[tuple[str, float, str], ...] = (
        ('success', 100 * f['default_success'], '%'), ('median', f['default_s'] * 1e3, 'ms'))
    peer = '—'
    if 'locked_s' in f:
        peer = (f'root locked (out of the group): median {fmt_ms(f["locked_s"])} ms, success '
                f'{fmt_pct(f["locked_success"])} %')
        values += (('vs root locked', f['default_s'] / f['locked_s'], '×'),)
    return Judgement(f'as shipped: median {fmt_ms(f["default_s"])} ms, success '
                     f'{fmt_pct(f["default_success"])} %', peer, values,
                     (Check('success', '>=', FREE_ROOT_IK_SUCCESS_PCT, ISSUE30),))


def _ik_seed_table(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'{fmt_ms(f["build_s"])} ms once', '—',
                     (('build', f['build_s'] * 1e3, 'ms'),))


def _ik_small_moves(f: Mapping[str, float]) -> Judgement:
    return Judgement(
        f'median {fmt_ms(f["ours_s"])} ms, success {fmt_pct(f["ours_success"])} %, '
        f'{f["ours_jumps"]:g} jumps',
        f'TRAC-IK median {fmt_ms(f["peer_s"])} ms, success {fmt_pct(f["peer_success"])} %, '
        f'{f["peer_jumps"]:g} jumps',
        (('success', 100 * f['ours_success'], '%'),
         ('median / TRAC-IK', f['ours_s'] / f['peer_s'], '×'),
         ('jumps', f['ours_jumps'], ''), ('TRAC-IK jumps', f['peer_jumps'], '')),
        (Check('success', '>=', 100.0), Check('median / TRAC-IK', '<=', 1.0),
         Check('jumps', '<=', 0.0)))


def _self_collision(f: Mapping[str, float]) -> Judgement:
    faster = min(f['peer_pairs_s'], f['peer_manager_s'])
    return Judgement(f'{fmt_us(f["ours_s"])} µs/state; without our cull '
                     f'{fmt_us(f["ours_nocull_s"])} µs',
                     f'coal on the pair list {fmt_us(f["peer_pairs_s"])} µs; coal + its '
                     f'manager {fmt_us(f["peer_manager_s"])} µs',
                     (('speed vs the faster coal', faster / f['ours_s'], '×'),
                      ('vs coal pair list', _speed(f, 'peer_pairs_s'), '×'),
                      ('vs coal + manager', _speed(f, 'peer_manager_s'), '×'),
                      ('without our cull vs the faster coal', faster / f['ours_nocull_s'], '×')),
                     (Check('speed vs the faster coal', '>=', 1.5),))


def _world_boxes(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'{fmt_us(f["ours_s"])} µs/state',
                     f'coal + broad-phase manager {fmt_us(f["peer_s"])} µs; coal on the pair '
                     f'list {fmt_us(f["peer_pairs_s"])} µs',
                     (('speed vs coal + manager', _speed(f, 'peer_s'), '×'),
                      ('speed vs coal without', _speed(f, 'peer_pairs_s'), '×')),
                     (Check('speed vs coal + manager', '>=', 1.3),))


def _distance(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'{fmt_ms(f["ours_s"])} ms/state',
                     f'coal, same pruning {fmt_ms(f["peer_s"])} ms; coal, all pairs '
                     f'{fmt_ms(f["peer_all_s"])} ms',
                     (('speed vs coal, same pruning', _speed(f, 'peer_s'), '×'),
                      ('speed vs coal, all pairs', _speed(f, 'peer_all_s'), '×')),
                     (Check('speed vs coal, same pruning', '>=', 1.0),))


def _tf_latency(f: Mapping[str, float]) -> Judgement:
    backlog = f.get('backlog_ok', 1.0) >= 0.5
    values = [('p50 ours / floor', f['ours_s'] / f['peer_s'], '×'),
              ('backlog-free', 1.0 if backlog else 0.0, '')]
    checks = [Check('p50 ours / floor', '<=', 1.0, 'floor with our tricks'),
              Check('backlog-free', '>=', 1.0, 'floor with our tricks')]
    peer = f'floor with our transport tricks p50 {fmt_ms(f["peer_s"])} ms'
    if 'relay_s' in f:
        values.append(('p50 ours / bare relay', f['ours_s'] / f['relay_s'], '×'))
        checks.append(Check('p50 ours / bare relay', '<=', 1.2, 'bare rclpy relay'))
        peer += f'; bare rclpy relay p50 {fmt_ms(f["relay_s"])} ms'
    return Judgement(f'p50 {fmt_ms(f["ours_s"])} ms' + ('' if backlog else ', backlog'), peer,
                     tuple(values), tuple(checks),
                     'not conclusive: other processes busy during the trial'
                     if f.get('disturbed', 0.0) >= 0.5 else '')


def _node_start(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'warm {f["warm_s"]:.2f} s; cold {f["cold_s"]:.2f} s', '—',
                     (('warm', f['warm_s'], 's'), ('cold', f['cold_s'], 's')),
                     (Check('warm', '<=', 1.0),))


def _first_answer(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'cold {f["cold_s"]:.2f} s; warm {f["warm_s"]:.2f} s', '—',
                     (('cold', f['cold_s'], 's'), ('warm', f['warm_s'], 's')),
                     (Check('cold', '<=', 2.0), Check('warm', '<=', 2.0)))


def _service_budget(f: Mapping[str, float], checked: bool) -> Judgement:
    ours, empty, solve = f['ours_s'], f['empty_s'], f['solve_s']
    budget = empty + solve + IK_OVERHEAD_MS * 1e-3
    return Judgement(f'p50 {fmt_ms(ours)} ms',
                     f'empty service {fmt_ms(empty)} + in-process work {fmt_ms(solve)} + '
                     f'{IK_OVERHEAD_MS:g} = {fmt_ms(budget)} ms',
                     (('ours / budget', ours / budget, '×'),
                      ('overhead', (ours - empty - solve) * 1e3, 'ms')),
                     (Check('ours / budget', '<=', 1.0),) if checked else ())


def _compute_ik(f: Mapping[str, float]) -> Judgement:
    return _service_budget(f, checked=True)


def _validity_100_objects(f: Mapping[str, float]) -> Judgement:
    return _service_budget(f, checked=False)


def _memory(f: Mapping[str, float]) -> Judgement:
    text = fmt_bytes(f['bytes'])
    if 'bytes_after_fk' in f:
        text += f' ({fmt_bytes(f["bytes_after_fk"])} after FK)'
    return Judgement(text, '—')


def _ik_first_call(f: Mapping[str, float]) -> Judgement:
    return Judgement(f'first {fmt_ms(f["first_s"])} ms, next {fmt_ms(f["next_s"])} ms', '—',
                     (('first / next', f['first_s'] / f['next_s'], '×'),))


#: The targets of issues 12 and 27, in the order of the table.
ISSUE_ROWS: tuple[IssueRow, ...] = (
    IssueRow('fk', 'kinematics', 'fk', 'FK, one config, all links → `(L,4,4)`; fixed, '
             'floating and planar bases', '≤ 1.5× Pinocchio fFK alone (27) **and** ≤ 0.5× fFK + '
             'readout (12); with a root joint also ≤ 1.5× the fixed-base twin **and** ≤ 3× fFK '
             'alone (30)', _fk),
    IssueRow('fk_jacobian', 'kinematics', 'fk', 'FK + tip Jacobian; fixed, floating and planar '
             'bases', '≤ 5 µs (12); with a root joint also ≤ 1.5× the fixed-base twin (30)',
             _fk_jacobian),
    IssueRow('robot_state', 'kinematics', 'fk', '`RobotState`: set all positions, read every '
             'link pose', 'report (27); Panda, per link ≤ 10 µs (30)', _robot_state),
    IssueRow('fk_batch', 'kinematics', 'fk', 'batched FK, N = 10 000, Panda / Talos',
             "≥ 3× Pinocchio's loop (12), serial and threaded", _fk_batch),
    IssueRow('ik', 'kinematics', 'ik', 'IK @5 ms and @50 ms, random reachable targets',
             'equal tolerances, one seed: median ≤ 0.7× TRAC-IK (27); as shipped: ≤ 1.0× (12); '
             "success ≥ TRAC-IK's in both; free-flyer root unlocked in the group: success ≥ "
             '99 %, median reported (30)', _ik),
    IssueRow('ik_seed_table', 'kinematics', 'ik', "building IK's seed table (once per problem)",
             'report (27)', _ik_seed_table),
    IssueRow('ik_small_moves', 'kinematics', 'ik', 'seeded IK for small moves (1 cm / 3°, seed = '
             'previous solution), Panda, 300 trials', '100 % success, median ≤ 1.0× TRAC-IK, 0 '
             'jumps > 0.5 rad (27)', _ik_small_moves),
    IssueRow('self_collision', 'collision', 'self', 'self-collision from q (FK included on all '
             'sides)', '≥ 1.5× the faster of coal on the pair list and coal with its manager '
             '(27)', _self_collision),
    IssueRow('world_boxes', 'collision', 'world', 'robot vs 100 world boxes',
             '≥ 1.3× coal **with its broad-phase manager** (27)', _world_boxes),
    IssueRow('distance', 'collision', 'distance', 'minimum distance, collision-free states',
             '≥ 1.0× coal with the same pruning (27)', _distance),
    IssueRow('tf_latency', 'ros', 'tf', 'joint_states → /tf latency @1 kHz',
             'p50 ≤ 1.0× a floor with our transport tricks, no backlog (27); ≤ 1.2× a bare '
             'rclpy relay (12)', _tf_latency),
    IssueRow('node_start', 'ros', 'node_start', 'node start to first /tf_static, default robot',
             'cold (empty kernel cache) and warm reported; warm ≤ 1 s (12)', _node_start),
    IssueRow('first_answer', 'ros', 'first_answer', 'process start to the first answer of '
             'compute_fk, compute_ik and check_state_validity', 'cold and warm ≤ 2 s (25)',
             _first_answer),
    IssueRow('compute_ik', 'ros', 'services', 'compute_ik round trip, default robot, distinct '
             'targets', f'≤ empty-service floor + independently measured solve + '
             f'{IK_OVERHEAD_MS:g} ms (12)', _compute_ik),
    IssueRow('validity_100_objects', 'ros', 'validity', 'check_state_validity round trip with '
             '100 world objects, default robot', 'report (27)', _validity_100_objects),
    IssueRow('memory', 'kinematics', 'memory', 'memory per `RobotState` and per '
             '`KinematicsData`', 'report (12)', _memory),
    IssueRow('ik_first_call', 'kinematics', 'memory', "IK's first call (cold seed tables)",
             'report (12)', _ik_first_call),
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
    """The judgement over several runs: every value is the median of the runs' paired values.

    ``median`` is the judgement of the median figures (its texts are shown). Its values are
    replaced by the median over the runs of each run's own value (a ratio within one run pairs
    ours with the peer timed beside it), and the checks judge those. With one run nothing changes.
    """
    runs = [j for j in judged if j is not None]
    if len(runs) < 2:
        return median
    values = tuple((label, float(statistics.median(
        v for j in runs for name, v, _ in j.values if name == label)), unit)
        for label, _, unit in median.values)
    return replace(median, values=values)


def _missed_text(check: Check, value: float, unit: str) -> str:
    return f'{check.label} {_fmt(value, unit)} {">" if check.op == "<=" else "<"} ' \
           f'{_fmt(check.limit, unit)}'


def _verdict(j: Judgement, judged: Sequence[Judgement | None] = ()) -> str:
    """Met / **MISSED** per framing, why, and how many runs missed."""
    if not j.checks:
        return 'reported (no target)'
    framings = list(dict.fromkeys(c.framing for c in j.checks))
    missed = j.missed()
    parts = []
    for framing in framings:
        why = [_missed_text(*m) for m in missed if m[0].framing == framing]
        text = f'**MISSED** ({"; ".join(why)})' if why else 'met'
        parts.append(f'{framing}: {text}' if framing else text)
    out = '; '.join(parts)
    runs = [r for r in judged if r is not None]
    misses = sum(1 for r in runs if r.met is False)
    if len(runs) > 1 and misses:
        out += f' — missed in {misses} of {len(runs)} runs'
    return out + (f' ({j.caveat})' if j.caveat else '')


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
        for label, _, unit in done[0].values:
            values = [v for j in done for name, v, _ in j.values if name == label]
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
    """The target table over one or more runs of the same selection.

    Args:
        runs: The runs (at least one), all of the same modules and parts.

    Returns:
        The table: one line per case of every issue row (a row without cases gets one line
        saying why), with a spread column when there is more than one run.
    """
    if not runs:
        raise ValueError('target_rows needs at least one run')
    many = len(runs) > 1
    headers = ['#', 'benchmark', 'target (issue)', 'case', 'ours', 'peer', 'ours vs peer',
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
                         '; '.join(f'{_fmt(v, u)} {label}' for label, v, u in j.values) or '—',
                         _verdict(j, judged)]
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
    figures = ("the median of each figure over the runs; each value in 'ours vs peer' (and "
               "each value the verdict judges) is the median over the runs of that run's own "
               'paired value, ours and the peer timed in the same run (the rule was fixed '
               'before the runs); a row that missed in any run says so in its verdict; the last '
               "column gives every value's range and each run's verdict"
               if len(runs) > 1 else 'from this one run')
    out = [
        '# Benchmark targets (issues 12 and 27)', '',
        f'Generated by `{command}` ({mode}, {len(runs)} run{"s" if len(runs) > 1 else ""}) in '
        f'{seconds:.0f} s; date {info.get("date", "?")}; commit '
        f'{info.get("robot_state_core", "?").rpartition("commit ")[2]}.', '',
        'Every target of issues 12 and 27, judged against the threshold of the issue named in '
        'its target (the module reports `latest_<module>.md` have the full tables and say how '
        'each side does equal work). Where a target has two framings (equal work and as '
        'shipped; serial and threaded; two floors) the verdict gives one per framing. Figures: '
        f'{figures}. "×" speed values: > 1 means ours is faster; "ours / peer" time values: '
        '< 1 means ours is faster; "pp": percentage points.', '',
        '## Targets', '', target_rows(runs).markdown(), '',
        '## Runs', '', runs_table.markdown(), '',
        '## Machine', '', machine.markdown(), '',
    ]
    return '\n'.join(out).rstrip() + '\n'
