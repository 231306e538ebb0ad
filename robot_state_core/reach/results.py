"""Reach study results: per-target records, REACH's summary, a file format, comparison, heat map.

A study's results are a :class:`ReachDatabase`: the target poses and one :class:`ReachResult`
per pass (the initial pass, then one per optimisation step), as REACH's ``ReachDatabase`` keeps
``results`` (``reach/include/reach/types.h``). A result holds arrays over the targets, so ten
thousand targets are a few megabytes and compare in microseconds.

File format (:meth:`ReachDatabase.save`): one NumPy ``.npz`` archive (``numpy.load`` reads it
without this library) with

* ``meta``: a JSON string: ``format`` (``'robot_state_core.reach/1'``), ``group``, ``tip``,
  ``variable_names`` (the group's active variables, the columns of ``q``), ``passes``,
  ``complete`` (the initial pass has every target: a study stopped early is resumed from the
  file), ``optimized`` (the optimisation has ended) and ``study`` (the study's own
  description, free-form);
* ``X_WT``: ``(N, 4, 4)`` the IK goals in the model frame [m];
* per pass ``k``: ``reached_k (N,) bool``, ``score_k (N,)``, ``q_k (N, n)`` [rad, m],
  ``seed_k (N, n)``, ``done_k (N,) bool`` (targets evaluated in that pass).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import colorsys
from dataclasses import dataclass, field, replace
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError

__all__ = ['FORMAT', 'ReachComparison', 'ReachDatabase', 'ReachResult', 'ReachSummary',
           'compare', 'heat_map_colors']

FORMAT = 'robot_state_core.reach/1'
'''The ``format`` entry of a saved database.'''
HEAT_MAP_MAX_HUE = 0.75
'''Hue of the lowest score in :func:`heat_map_colors` (blue; REACH: ``0.75 * 360``).'''


@dataclass(frozen=True)
class ReachSummary:
    """REACH's ``ReachResultSummary`` of one pass (``reach/src/types.cpp``, calculateResults).

    Attributes:
        reach_percentage: 100 x reached / targets.
        total_pose_score: Sum of the reached targets' scores.
        norm_total_pose_score: ``total_pose_score / (reached / targets)``, as REACH defines it
            (0 when nothing is reached, where REACH divides by zero).
        reached: Targets reached.
        targets: Targets in the study.
    """

    reach_percentage: float
    total_pose_score: float
    norm_total_pose_score: float
    reached: int
    targets: int


@dataclass(frozen=True, eq=False)
class ReachResult:
    """One pass of a study: for every target, whether IK reached it, its score and solution.

    Attributes:
        reached: ``(N,)`` IK found a collision-free solution.
        score: ``(N,)`` the evaluator's score of the solution (0 where not reached).
        q: ``(N, n)`` the solution's group variables (the seed where not reached) [rad, m].
        seed: ``(N, n)`` the seed IK started from.
        done: ``(N,)`` targets evaluated (all True once the pass is complete).
    """

    reached: np.ndarray
    score: FloatArray
    q: FloatArray
    seed: FloatArray
    done: np.ndarray

    @staticmethod
    def empty(count: int, n: int) -> ReachResult:
        """A pass with no target evaluated yet."""
        return ReachResult(np.zeros(count, dtype=bool), np.zeros(count), np.zeros((count, n)),
                           np.zeros((count, n)), np.zeros(count, dtype=bool))

    def copy(self) -> ReachResult:
        """An independent copy (the arrays are copied)."""
        return ReachResult(self.reached.copy(), self.score.copy(), self.q.copy(),
                           self.seed.copy(), self.done.copy())

    def summary(self) -> ReachSummary:
        """REACH's summary of this pass (:class:`ReachSummary`)."""
        n = len(self.reached)
        reached = int(np.count_nonzero(self.reached))
        total = float(np.sum(self.score[self.reached]))
        fraction = reached / n if n else 0.0
        return ReachSummary(100.0 * fraction, total, total / fraction if fraction else 0.0,
                            reached, n)


@dataclass(frozen=True, eq=False)
class ReachDatabase:
    """A study's targets and its passes (REACH's ``ReachDatabase``).

    Attributes:
        X_WT: ``(N, 4, 4)`` IK goals of the tip in the model frame [m].
        group: The group solved for.
        tip: The tip link.
        variable_names: The group's active variables (columns of ``q``).
        results: The passes: the initial pass, then one per optimisation step.
        study: The study's description (saved with the results; free-form JSON values).
        optimized: The optimisation has ended (converged or ``max_steps`` passes).
    """

    X_WT: FloatArray
    group: str
    tip: str
    variable_names: tuple[str, ...]
    results: tuple[ReachResult, ...]
    study: Mapping[str, Any] = field(default_factory=dict)
    optimized: bool = False

    @property
    def complete(self) -> bool:
        """Whether the initial pass evaluated every target."""
        return bool(self.results) and bool(np.all(self.results[0].done))

    @property
    def final(self) -> ReachResult:
        """The last pass.

        Raises:
            InvalidArgumentError: The database has no pass.
        """
        if not self.results:
            raise InvalidArgumentError('ReachDatabase: no results (REACH: "Database contains '
                                       'no results")')
        return self.results[-1]

    def with_results(self, results: Sequence[ReachResult]) -> ReachDatabase:
        """The same study with other passes."""
        return replace(self, results=tuple(results))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the database (module docstring), atomically (a temporary file renamed)."""
        target = Path(path)
        arrays: dict[str, Any] = {'X_WT': self.X_WT}
        for k, r in enumerate(self.results):
            arrays.update({f'reached_{k}': r.reached, f'score_{k}': r.score, f'q_{k}': r.q,
                           f'seed_{k}': r.seed, f'done_{k}': r.done})
        meta = {'format': FORMAT, 'group': self.group, 'tip': self.tip,
                'variable_names': list(self.variable_names), 'passes': len(self.results),
                'complete': self.complete, 'optimized': self.optimized,
                'study': dict(self.study)}
        arrays['meta'] = np.array(json.dumps(meta))
        partial = target.with_name(target.name + '.partial.npz')
        np.savez_compressed(partial, **arrays)
        os.replace(partial, target)

    @staticmethod
    def load(path: str | os.PathLike[str]) -> ReachDatabase:
        """Read a database written by :meth:`save`.

        Raises:
            InvalidArgumentError: Not such a file, another format, or inconsistent arrays
                (the message names the file and the entry).
        """
        try:
            with np.load(Path(path), allow_pickle=False) as data:
                meta = json.loads(str(data['meta']))
                if meta.get('format') != FORMAT:
                    raise InvalidArgumentError(f'{path}: not a reach database of format '
                                               f'{FORMAT!r} (format {meta.get("format")!r})')
                X = np.array(data['X_WT'], dtype=np.float64)
                passes = tuple(ReachResult(
                    np.array(data[f'reached_{k}'], dtype=bool),
                    np.array(data[f'score_{k}'], dtype=np.float64),
                    np.array(data[f'q_{k}'], dtype=np.float64),
                    np.array(data[f'seed_{k}'], dtype=np.float64),
                    np.array(data[f'done_{k}'], dtype=bool)) for k in range(int(meta['passes'])))
        except (OSError, KeyError, ValueError, json.JSONDecodeError) as err:
            raise InvalidArgumentError(f'{path}: cannot read the reach database: '
                                       f'{type(err).__name__}: {err}') from err
        names = tuple(str(v) for v in meta['variable_names'])
        n = len(X)
        for k, r in enumerate(passes):
            if r.reached.shape != (n,) or r.q.shape != (n, len(names)) \
                    or r.seed.shape != r.q.shape or r.score.shape != (n,) or r.done.shape != (n,):
                raise InvalidArgumentError(f'{path}: pass {k} does not match {n} targets and '
                                           f'{len(names)} variables')
        return ReachDatabase(X, str(meta['group']), str(meta['tip']), names, passes,
                             meta.get('study', {}), bool(meta.get('optimized', False)))


@dataclass(frozen=True, eq=False)
class ReachComparison:
    """Two studies of the same targets compared target by target (REACH's comparison).

    Attributes:
        both: ``(N,)`` reached in both.
        only_a: ``(N,)`` reached in ``a`` only.
        only_b: ``(N,)`` reached in ``b`` only.
        score_delta: ``(N,)`` ``score_b - score_a`` (0 where neither reached).
        summary_a: ``a``'s summary.
        summary_b: ``b``'s summary.
    """

    both: np.ndarray
    only_a: np.ndarray
    only_b: np.ndarray
    score_delta: FloatArray
    summary_a: ReachSummary
    summary_b: ReachSummary


def compare(a: ReachDatabase, b: ReachDatabase, *, atol: float = 1e-9) -> ReachComparison:
    """Compare the final passes of two studies of the same targets.

    Raises:
        InvalidArgumentError: The studies' targets differ (count or poses beyond ``atol``).
    """
    if a.X_WT.shape != b.X_WT.shape or not np.allclose(a.X_WT, b.X_WT, atol=atol):
        raise InvalidArgumentError(f'compare: the studies have different targets '
                                   f'({len(a.X_WT)} and {len(b.X_WT)} poses, or other poses)')
    ra, rb = a.final, b.final
    return ReachComparison(ra.reached & rb.reached, ra.reached & ~rb.reached,
                           rb.reached & ~ra.reached, rb.score - ra.score, ra.summary(),
                           rb.summary())


def heat_map_colors(result: ReachResult, *, full_range: bool = False) -> FloatArray:
    """``(N, 3)`` RGB in [0, 1]: REACH's heat map of scores (``computeHeatMapColors``).

    Hue from blue (``HEAT_MAP_MAX_HUE``, the lowest score) to red (the highest): the score
    divided by the highest (``full_range``: scaled between the lowest reached and the highest
    score); unreached targets are black (value 0).
    """
    score = np.asarray(result.score, dtype=np.float64)
    top = float(score.max()) if len(score) else 0.0
    reached = np.asarray(result.reached, dtype=bool)
    low = float(score[reached].min()) if np.any(reached) else 0.0
    span = (top - low) if full_range else top
    norm = (score - (low if full_range else 0.0)) / span if span > 0 else np.ones_like(score)
    out = np.zeros((len(score), 3))
    for i, (s, r) in enumerate(zip(np.clip(norm, 0.0, 1.0), reached, strict=True)):
        out[i] = colorsys.hsv_to_rgb(HEAT_MAP_MAX_HUE * (1.0 - s), 1.0, 1.0 if r else 0.0)
    return out
