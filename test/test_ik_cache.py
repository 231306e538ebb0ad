"""IK state lives in an explicit, bounded IKCache, never on the model (issue 26 item 1).

Checked here: a cache never holds more problems than its size, however many tip sets the
requests name; the model gains nothing from requests; ``(a, b)`` and ``(b, a)`` are one problem
and get one answer; with a fixed ``random_seed`` an answer is the same from a new cache, a
warm one, after other requests, and after ``clear()``; every IK answer is checked by FK
(Pinocchio) so that "the same answer" is never the same wrong one.
"""

from __future__ import annotations

import itertools

import numpy as np
import pinocchio_oracle
import pytest

from robot_state_core import kinematics as kin
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.ik.cache import default_ik_cache, IKCache
from robot_state_core.ik.solver import MAX_TIP_LINKS, prepare_ik, solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest, IKStatus
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel

GROUP = 'whole_body'
'''The default robot's multi-tip group (planar base, lift, arm): its tips are any links it
moves.'''


class _Oracle:
    """Pinocchio's FK of the default robot (not our code)."""

    def __init__(self, model: RobotModel) -> None:
        import pinocchio

        self.pin, self.model = pinocchio, model
        self.pm, _ = pinocchio_oracle.load(default_robot_urdf_path())
        self.data = self.pm.createData()

    def pose(self, q: np.ndarray, link: str) -> np.ndarray:
        self.pin.framesForwardKinematics(self.pm, self.data, pinocchio_oracle.to_pinocchio_q(
            self.model, self.pm, np.asarray(q)))
        out: np.ndarray = self.data.oMf[self.pm.getFrameId(link)].homogeneous
        return out


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


def _moved_links(model: RobotModel) -> list[str]:
    group = model.group(GROUP)
    return [n for n in group.link_names if n != 'base_link'] + ['tcp']


def _targets(model: RobotModel, tips: tuple[str, ...], seed: int) -> tuple[np.ndarray, ...]:
    q = np.array(model.default_positions)
    rng = np.random.default_rng(seed)
    for i in model.group(GROUP).active_variable_indices:
        lo, hi = max(model.variable_lower[i], -1.0), min(model.variable_upper[i], 1.0)
        q[i] = rng.uniform(lo, hi)
    model.apply_mimic(q)
    X = kin.forward_kinematics(model, q)
    return tuple(X[model.link_index(t)] for t in tips)


def _request(model: RobotModel, tips: tuple[str, ...], seed: int, **options) -> IKRequest:
    return IKRequest(group=GROUP, targets=_targets(model, tips, seed), tip_links=tips,
                     timeout=5.0, options=IKOptions(**{'random_seed': 7, 'max_iterations': 400,
                                                       **options}))


def test_a_cache_holds_at_most_its_size_and_the_model_gains_nothing(model: RobotModel) -> None:
    """120 distinct tip sets through a 16-problem cache: 16 held, the model's tables unchanged."""
    cache = IKCache(max_problems=16)
    links = _moved_links(model)
    solve_ik(model, _request(model, ('tool0',), 0), cache=IKCache())  # the model's FK plans
    derived_before = dict(model._derived)
    sets = [c for size in (1, 2, 3) for c in itertools.combinations(links, size)][:120]
    assert len(sets) == 120
    for k, tips in enumerate(sets):
        result = solve_ik(model, _request(model, tips, k, max_iterations=3), cache=cache)
        assert result.status is not IKStatus.INVALID_REQUEST, result.message
        assert len(cache) <= 16
    assert len(cache) == 16 and cache.built == 120
    assert model._derived == derived_before, 'IK state was stored on the model'


def test_tips_in_any_order_are_one_problem_with_one_answer(model: RobotModel) -> None:
    """All 6 orders of 3 tips: one set-up, the same configuration, each target reached."""
    oracle = _Oracle(model)
    cache = IKCache()
    tips = ('lift_link', 'forearm_link', 'tcp')
    targets = dict(zip(tips, _targets(model, tips, 3), strict=True))
    answers = []
    for order in itertools.permutations(tips):
        request = IKRequest(group=GROUP, targets=tuple(targets[t] for t in order),
                            tip_links=order, timeout=5.0,
                            options=IKOptions(random_seed=7, max_iterations=2000))
        result = solve_ik(model, request, cache=cache)
        assert result.success, result.message
        for t in order:  # every tip at its own target (Pinocchio FK)
            X = oracle.pose(result.q, t)
            assert np.linalg.norm(X[:3, 3] - targets[t][:3, 3]) < 1e-4
        answers.append(result.q)
    assert cache.built == 1
    for q in answers[1:]:
        np.testing.assert_array_equal(q, answers[0])


def test_a_fixed_seed_gives_the_same_answer_whatever_came_before(model: RobotModel) -> None:
    """New cache, warm cache, after other problems, after clear(): one answer, FK-checked."""
    oracle = _Oracle(model)
    tips = ('tool0',)
    request = _request(model, tips, 11)
    first = solve_ik(model, request, cache=IKCache())
    assert first.success, first.message
    X = oracle.pose(first.q, 'tool0')
    np.testing.assert_allclose(X[:3, 3], request.targets[0][:3, 3], atol=1e-4)
    cache = IKCache(max_problems=2)
    answers = [solve_ik(model, request, cache=cache), solve_ik(model, request, cache=cache)]
    for k, other in enumerate(itertools.combinations(_moved_links(model), 2)):
        if k == 5:
            break
        solve_ik(model, _request(model, other, 100 + k), cache=cache)  # evicts tool0's
    answers.append(solve_ik(model, request, cache=cache))
    cache.clear()
    answers.append(solve_ik(model, request, cache=cache))
    answers.append(solve_ik(model, request))  # the default cache
    for result in answers:
        assert result.success
        np.testing.assert_array_equal(result.q, first.q)
        assert result.iterations == first.iterations


def test_too_many_tips_is_an_invalid_request(model: RobotModel) -> None:
    links = list(model.link_names)
    tips = tuple(links[:MAX_TIP_LINKS + 1])
    eye = np.eye(4)
    result = solve_ik(model, IKRequest(group=GROUP, targets=(eye,) * len(tips), tip_links=tips),
                      cache=IKCache())
    assert result.status is IKStatus.INVALID_REQUEST
    assert f'at most {MAX_TIP_LINKS}' in result.message


def test_cache_size_is_checked() -> None:
    for bad in (0, -1, 1.5, True, '16'):
        with pytest.raises(InvalidArgumentError, match='max_problems'):
            IKCache(bad)  # type: ignore[arg-type]


def test_prepare_ik_fills_the_cache_it_is_given(model: RobotModel) -> None:
    cache = IKCache()
    prepare_ik(model, 'arm', cache=cache)
    assert len(cache) == 1 and cache.built == 1
    assert default_ik_cache() is not cache


def test_a_moving_base_keeps_the_seed_table_and_the_answer(model: RobotModel,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The arm's seed table is built once for any base pose, and ranks as world-frame FK does.

    The table holds tip poses in the frame of the link above the arm's joints, so the planar
    base and the lift (not in group ``arm``) move it with the tip. The same arm target carried
    by five base poses, solved with one ``random_seed`` from the same arm seed, gives the same
    arm answer (the search is invariant under a rigid motion of base and target; a table in the
    wrong frame would rank other restarts first) and builds one table; every answer is checked
    with Pinocchio.
    """
    from robot_state_core.ik import seeds

    oracle = _Oracle(model)
    builds = []
    sample = seeds.sample_rows

    def counting(k, rng, base_z, prob):  # type: ignore[no-untyped-def]
        if len(prob) == seeds.TABLE_SIZE:
            builds.append(1)
        return sample(k, rng, base_z, prob)

    monkeypatch.setattr(seeds, 'sample_rows', counting)
    arm = model.group('arm').active_variable_indices
    base = [model.variable_index(v) for v in ('base_joint/x', 'base_joint/y', 'base_joint/theta',
                                              'lift_joint')]
    q_goal = np.array(model.default_positions)
    q_goal[arm] = [0.6, -0.4, 1.9, 0.3, 0.7, -0.5]
    cache, answers = IKCache(), []
    for x, y, theta, lift in [(0, 0, 0, 0), (3.0, -2.0, 1.2, 0.2), (-7.5, 4.0, -2.8, 0.35),
                              (0.1, 0.0, 3.1, 0.05), (50.0, 50.0, 0.5, 0.3)]:
        q = q_goal.copy()
        q[base] = [x, y, theta, lift]
        X_target = kin.forward_kinematics(model, q)[model.link_index('tool0')]
        seed = np.array(model.default_positions)
        seed[base] = q[base]
        result = solve_ik(model, IKRequest(group='arm', targets=(X_target,), tip_links=('tool0',),
                                           seed=seed, timeout=5.0,
                                           options=IKOptions(random_seed=3)), cache=cache)
        assert result.status is IKStatus.SUCCESS
        np.testing.assert_allclose(oracle.pose(result.q, 'tool0'), X_target, atol=1e-4)
        np.testing.assert_array_equal(result.q[base], q[base])
        answers.append(result.q[arm])
    assert len(builds) == 1, f'the seed table was built {len(builds)} times'
    for answer in answers[1:]:
        np.testing.assert_allclose(answer, answers[0], atol=1e-6)
