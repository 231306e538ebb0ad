"""Reach study results: REACH's summary, heat map and comparison; the file format round trip.

Origins: ``reach/src/types.cpp`` of ros-industrial/reach (``calculateResults``:
reach percentage, total pose score, ``norm_total_pose_score = score / pct_success``;
``computeHeatMapColors``: HSV hue from 0.75 * 360 (blue) down to 0 (red), value 0 for
unreached targets). The expected numbers are worked out by hand here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.reach.results import (
    compare,
    heat_map_colors,
    ReachDatabase,
    ReachResult,
)


def _result(reached: list[bool], score: list[float]) -> ReachResult:
    n = len(reached)
    q = np.arange(2 * n, dtype=float).reshape(n, 2)
    return ReachResult(np.array(reached), np.array(score), q, -q, np.ones(n, dtype=bool))


def test_summary_follows_reach_calculate_results() -> None:
    r = _result([True, False, True, True], [0.5, 0.0, 0.25, 1.0])
    s = r.summary()
    assert s.reach_percentage == pytest.approx(75.0)
    assert s.total_pose_score == pytest.approx(1.75)
    assert s.norm_total_pose_score == pytest.approx(1.75 / 0.75)  # REACH: score / pct_success
    assert (s.reached, s.targets) == (3, 4)
    nothing = _result([False, False], [0.0, 0.0]).summary()
    assert (nothing.reach_percentage, nothing.norm_total_pose_score) == (0.0, 0.0)


def test_heat_map_is_reach_hsv_blue_to_red_and_black_when_unreached() -> None:
    r = _result([True, True, True, False], [0.0, 0.5, 1.0, 0.0])
    colors = heat_map_colors(r)
    # score / max: 0 -> hue 270° (blue-violet: r = 0.5, g = 0, b = 1), 0.5 -> hue 135°
    # (green-cyan: r = 0, g = 1, b = 0.25), 1 -> hue 0° (red); unreached: value 0 (black)
    np.testing.assert_allclose(colors[0], [0.5, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(colors[1], [0.0, 1.0, 0.25], atol=1e-12)
    np.testing.assert_allclose(colors[2], [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(colors[3], [0.0, 0.0, 0.0], atol=1e-12)
    full = heat_map_colors(_result([True, True], [0.5, 1.0]), full_range=True)
    np.testing.assert_allclose(full[0], [0.5, 0.0, 1.0], atol=1e-12)  # the lowest reached


def test_database_round_trip_and_refusals(tmp_path: Path) -> None:
    X = np.tile(np.eye(4), (4, 1, 1))
    X[:, 0, 3] = np.arange(4)
    first = _result([True, False, True, True], [0.5, 0.0, 0.25, 1.0])
    second = _result([True, True, True, True], [0.6, 0.1, 0.25, 1.0])
    db = ReachDatabase(X, 'arm', 'tool0', ('j1', 'j2'), (first, second), {'note': 'x'},
                       optimized=True)
    path = tmp_path / 'study.reach.npz'
    db.save(path)
    back = ReachDatabase.load(path)
    assert (back.group, back.tip, back.variable_names, back.optimized) == (
        'arm', 'tool0', ('j1', 'j2'), True)
    assert back.study == {'note': 'x'} and back.complete and len(back.results) == 2
    for a, b in zip(db.results, back.results, strict=True):
        for name in ('reached', 'score', 'q', 'seed', 'done'):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(back.X_WT, X)
    # numpy alone reads it (the format is documented, not tied to this library)
    with np.load(path) as raw:
        assert raw['q_1'].shape == (4, 2)
    (tmp_path / 'bad.npz').write_bytes(b'not a zip')
    with pytest.raises(InvalidArgumentError, match=r'bad\.npz'):
        ReachDatabase.load(tmp_path / 'bad.npz')


def test_compare_target_by_target() -> None:
    X = np.tile(np.eye(4), (3, 1, 1))
    a = ReachDatabase(X, 'arm', 't', ('j1', 'j2'), (_result([True, True, False], [1, 2, 0]),))
    b = ReachDatabase(X, 'arm', 't', ('j1', 'j2'), (_result([True, False, True], [3, 0, 1]),))
    c = compare(a, b)
    assert c.both.tolist() == [True, False, False]
    assert c.only_a.tolist() == [False, True, False]
    assert c.only_b.tolist() == [False, False, True]
    assert c.score_delta.tolist() == [2.0, -2.0, 1.0]
    other = ReachDatabase(X[:2], 'arm', 't', ('j1', 'j2'), (_result([True, True], [1, 2]),))
    with pytest.raises(InvalidArgumentError, match='different targets'):
        compare(a, other)
