"""Numerical IK (robot_state_core.ik.solver): FK -> IK -> FK round trips, setFromIK semantics.

Every test is seeded (targets, seeds and the solver's restart sampler). Timing assertions use
the contract ``elapsed <= 1.1 * timeout + 1 ms`` plus :data:`CI_SLACK` for loaded CI machines.
"""

from __future__ import annotations

from pathlib import Path
import threading
import time

import numpy as np
from numpy.typing import NDArray
import pytest
import robot_corpus

from robot_state_core import kinematics as kin
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.ik import reference
from robot_state_core.ik import search as ik_search
from robot_state_core.ik.cache import default_ik_cache, IKCache
from robot_state_core.ik.requests import resolve
from robot_state_core.ik.solver import prepare_ik, solve_ik, solve_ik_batch
from robot_state_core.ik.types import IKOptions, IKRequest, IKResult, IKStatus
from robot_state_core.io.default_robot import (
    default_robot_srdf_path,
    default_robot_urdf_path,
    package_root,
)
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import rotation_log

RESOURCES = Path(__file__).resolve().parent / 'resources'
POSITION_CHECK = 1e-4  # [m] independent FK re-check (the solver's tolerance is 1e-5)
ROTATION_CHECK = 1e-3  # [rad] (the solver's tolerance is 1e-4)
LIMIT_SLACK = 1e-9
CI_SLACK = 0.02  # [s] added to every timing bound for loaded CI machines
SOLVE_TIMEOUT = 0.5  # [s] generous: round-trip tests check correctness, not speed

UR5_SRDF = '''<?xml version="1.0"?>
<robot name="ur5">
  <group name="manipulator"><chain base_link="base_link" tip_link="tool0"/></group>
</robot>
'''


# ------------------------------------------------------------------------------ models


@pytest.fixture(scope='module')
def default_robot() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path(),
                                     package_map={'robot_state_core': package_root()})


@pytest.fixture(scope='module')
def all_joint_types() -> RobotModel:
    return RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf',
                                     RESOURCES / 'all_joint_types.srdf')


def _corpus(name: str) -> RobotModel:
    r = robot_corpus.test_robot(name)
    return RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    return _corpus('panda')


@pytest.fixture(scope='module')
def talos() -> RobotModel:
    return _corpus('talos')


@pytest.fixture(scope='module')
def ur5() -> RobotModel:
    r = robot_corpus.test_robot('ur5')
    return RobotModel.from_urdf_string(r.urdf_path.read_text(), UR5_SRDF,
                                       package_map=r.package_map)


@pytest.fixture(scope='module')
def models(default_robot: RobotModel, all_joint_types: RobotModel, panda: RobotModel,
           ur5: RobotModel, talos: RobotModel) -> dict[str, RobotModel]:
    return {'default': default_robot, 'all_joint_types': all_joint_types, 'panda': panda,
            'ur5': ur5, 'talos': talos}


# ------------------------------------------------------------------------------ helpers


def random_q(model: RobotModel, group: str, rng: np.random.Generator,
             base: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """Uniform within the bounds for the group's active variables (others: ``base``)."""
    q = np.array(model.default_positions if base is None else base, dtype=np.float64)
    for j in model.group(group).active_joint_indices:
        s, n = int(model.joint_q_start[j]), int(model.joint_nq[j])
        t = model.joint_types[j]
        lo = np.asarray(model.variable_lower[s:s + n])
        hi = np.asarray(model.variable_upper[s:s + n])
        if t is JointType.FLOATING:
            q[s:s + 3] = rng.uniform(-1.0, 1.0, 3)
            quat = rng.normal(size=4)
            q[s + 3:s + 7] = quat / np.linalg.norm(quat)
        elif t is JointType.RPY_FLOATING:
            q[s:s + 3] = rng.uniform([-np.pi, -1.4, -np.pi], [np.pi, 1.4, np.pi])
            q[s + 3:s + 6] = rng.uniform(-1.0, 1.0, 3)
        else:
            q[s:s + n] = rng.uniform(np.where(np.isfinite(lo), lo, -1.0),
                                     np.where(np.isfinite(hi), hi, 1.0))
    return model.apply_mimic(q)


def pose_errors(model: RobotModel, q: NDArray[np.float64], tips: list[str],
                targets: list[NDArray[np.float64]]) -> tuple[float, float]:
    """Worst (position, rotation) error of the tips at ``q``, by an independent FK."""
    X = kin.forward_kinematics(model, q)
    dp, dr = 0.0, 0.0
    for tip, X_WT in zip(tips, targets, strict=True):
        X_WL = X[model.link_index(tip)]
        dp = max(dp, float(np.linalg.norm(X_WL[:3, 3] - X_WT[:3, 3])))
        dr = max(dr, float(np.linalg.norm(rotation_log(X_WL[:3, :3] @ X_WT[:3, :3].T))))
    return dp, dr


def assert_within_bounds(model: RobotModel, group: str, q: NDArray[np.float64]) -> None:
    idx = np.asarray(model.group(group).active_variable_indices)
    bounded = np.asarray(model.variable_bounded)[idx]
    lo, hi = np.asarray(model.variable_lower)[idx], np.asarray(model.variable_upper)[idx]
    assert np.all(q[idx][bounded] >= lo[bounded] - LIMIT_SLACK)
    assert np.all(q[idx][bounded] <= hi[bounded] + LIMIT_SLACK)


def assert_mimic_consistent(model: RobotModel, q: NDArray[np.float64]) -> None:
    np.testing.assert_allclose(q, model.apply_mimic(q.copy()), rtol=0, atol=1e-12)


def round_trip(model: RobotModel, group: str, tips: list[str], n: int, seed: int,
               **options: object) -> list[IKResult]:
    """FK of random in-bounds configurations -> IK from random seeds -> FK re-check."""
    rng = np.random.default_rng(seed)
    results = []
    links = [model.link_index(t) for t in tips]
    for i in range(n):
        X = kin.forward_kinematics(model, random_q(model, group, rng))
        targets = [X[li] for li in links]
        start = random_q(model, group, rng)
        request = IKRequest(group, tuple(targets), tuple(tips), start, SOLVE_TIMEOUT,
                            IKOptions(random_seed=i, **options))  # type: ignore[arg-type]
        result = solve_ik(model, request)
        assert result.status is IKStatus.SUCCESS, (i, result)
        dp, dr = pose_errors(model, result.q, tips, targets)
        assert dp < POSITION_CHECK, (i, dp)
        if not options.get('position_only'):
            assert dr < ROTATION_CHECK, (i, dr)
        assert result.position_error < 1e-5 and result.position_error == pytest.approx(
            dp, abs=1e-9)
        assert_within_bounds(model, group, result.q)
        assert_mimic_consistent(model, result.q)
        # Variables outside the group keep the seed's values.
        outside = np.setdiff1d(np.arange(model.nq), np.concatenate(
            [model.group(group).active_variable_indices, model.mimic_variable]))
        np.testing.assert_array_equal(result.q[outside], start[outside])
        results.append(result)
    return results


# ------------------------------------------------------------------------------ solver kernel


@pytest.mark.parametrize(('robot', 'group', 'tips'), [
    ('all_joint_types', 'everything', ['tool', 'finger_c']),  # floating, rpy, chained mimic
    ('default', 'whole_body', ['tool0', 'lift_link']),  # planar base, prismatic lift
    ('panda', 'arm_and_hand', ['panda_hand_tcp', 'panda_rightfinger']),  # mimic finger
    ('talos', 'all_arms_torso', ['gripper_left_base_link', 'gripper_right_base_link']),
])
def test_solver_kernel_matches_kinematics(models: dict[str, RobotModel], robot: str,
                                          group: str, tips: list[str]) -> None:
    """The solver's tip poses and Jacobians equal the kinematics module's, for every joint type.

    The solver runs the same FK and Jacobian kernels on configurations it assembles from its
    active variables; this checks the assembly (active variables, mimic followers, variables
    outside the group moved off their defaults) and the column selection and mimic folding
    against kinematics.forward_kinematics and kinematics.jacobian + fold_mimic_columns.
    """
    model = models[robot]
    rng = np.random.default_rng(20)
    links = [model.link_index(t) for t in tips]
    base = random_q(model, group, rng)
    base[~np.isin(np.arange(model.nq), model.group(group).active_variable_indices)] += 0.1
    model.apply_mimic(base)
    _, entry, order, msg = resolve(default_ik_cache(), model, group, tips, len(tips), False)
    assert entry is not None, msg
    links = [links[i] for i in order]  # the problem's tips are in link order
    k = entry.problem
    qs = np.stack([random_q(model, group, rng, base) for _ in range(4)])
    search = ik_search.Search(model, entry, base[None],
                              np.broadcast_to(np.eye(4), (1, len(tips), 4, 4)).copy(),
                              IKOptions(num_seeds=1), None, np.random.default_rng(0))
    X_WL, X_tip = ik_search.tip_poses(search, qs[:, k.q_active], search.rows)
    J = reference.jacobian(k, X_WL)
    for r, q in enumerate(qs):
        X = kin.forward_kinematics(model, q)
        expected = []
        for t, li in enumerate(links):
            np.testing.assert_allclose(X_tip[t, r], X[li], rtol=0, atol=1e-12)
            full = kin.fold_mimic_columns(model, kin.jacobian(model, q, li, X_WL=X))
            expected.append(full[:, k.v_active])
        np.testing.assert_allclose(J[r], np.concatenate(expected), rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize(('robot', 'group', 'tips'), [
    ('default', 'arm', ['tool0']),
    ('all_joint_types', 'arm', ['prismatic_link']),
    ('all_joint_types', 'arm', ['tool']),  # rigidly attached below the chain tip
    ('panda', 'arm', ['panda_link7']),
    ('panda', 'arm', ['panda_hand_tcp']),
    ('ur5', 'manipulator', ['tool0']),
    ('talos', 'l_arm_torso', ['gripper_left_base_link']),
])
def test_fk_ik_fk_round_trip(models: dict[str, RobotModel], robot: str, group: str,
                             tips: list[str]) -> None:
    """IK reaches FK targets of random configurations from random seeds, within bounds."""
    round_trip(models[robot], group, tips, n=15, seed=7)


def test_default_tip_is_the_group_tip(panda: RobotModel) -> None:
    """Without tip_links the group's chain tip is used (Panda 'arm': panda_link7)."""
    assert panda.group('arm').tip_link == 'panda_link7'
    rng = np.random.default_rng(3)
    X = kin.forward_kinematics(panda, random_q(panda, 'arm', rng))
    target = X[panda.link_index('panda_link7')]
    result = solve_ik(panda, IKRequest('arm', (target,), timeout=SOLVE_TIMEOUT,
                                       options=IKOptions(random_seed=0)))
    assert result.success
    assert pose_errors(panda, result.q, ['panda_link7'], [target])[0] < POSITION_CHECK


def test_multi_dof_joints_in_the_group(all_joint_types: RobotModel,
                                       default_robot: RobotModel) -> None:
    """Floating (quaternion), rpy_floating and planar variables are solved through integrate."""
    results = round_trip(all_joint_types, 'everything', ['tool'], n=6, seed=11)
    j = all_joint_types.joint_index('float')
    s = int(all_joint_types.joint_q_start[j])
    for r in results:
        assert np.linalg.norm(r.q[s + 3:s + 7]) == pytest.approx(1.0, abs=1e-12)
    round_trip(default_robot, 'whole_body', ['tool0'], n=6, seed=12)  # planar base


def test_continuous_joints_are_wrapped(default_robot: RobotModel) -> None:
    """Continuous variables of solutions lie in [-pi, pi] (wrist_roll_joint is continuous)."""
    v = default_robot.variable_index('wrist_roll_joint')
    assert not default_robot.variable_bounded[v]
    for r in round_trip(default_robot, 'arm', ['tool0'], n=10, seed=5):
        assert -np.pi <= r.q[v] <= np.pi


def test_position_only(panda: RobotModel) -> None:
    """Position-only IK matches the tip position and ignores the orientation."""
    results = round_trip(panda, 'arm', ['panda_hand_tcp'], n=10, seed=21, position_only=True)
    assert all(r.rotation_error == 0.0 for r in results)
    # An orientation no configuration reaches together with that position is irrelevant.
    rng = np.random.default_rng(4)
    X = kin.forward_kinematics(panda, random_q(panda, 'arm', rng))[
        panda.link_index('panda_hand_tcp')].copy()
    X[:3, :3] = np.diag([1.0, -1.0, -1.0]) @ X[:3, :3]
    result = solve_ik(panda, IKRequest('arm', (X,), ('panda_hand_tcp',), None, SOLVE_TIMEOUT,
                                       IKOptions(position_only=True, random_seed=1)))
    assert result.success
    assert pose_errors(panda, result.q, ['panda_hand_tcp'], [X])[0] < POSITION_CHECK


def test_multiple_tips_are_solved_jointly(panda: RobotModel, talos: RobotModel) -> None:
    """Several tips: both Talos grippers (shared torso) and two links of one Panda chain."""
    round_trip(talos, 'all_arms_torso', ['gripper_left_base_link', 'gripper_right_base_link'],
               n=5, seed=31)
    round_trip(panda, 'arm', ['panda_link4', 'panda_hand_tcp'], n=5, seed=32)


def test_mimic_followers_move_tips(panda: RobotModel) -> None:
    """A tip moved by a mimic joint (right finger) is solved through its source's column."""
    assert 'panda_finger_joint2' in panda.mimic_joint_names
    round_trip(panda, 'arm_and_hand', ['panda_hand_tcp', 'panda_rightfinger'], n=5, seed=41)


def test_variables_that_move_no_tip_keep_the_seed(panda: RobotModel) -> None:
    """The finger of 'arm_and_hand' does not move the hand frame: it keeps its seed value."""
    rng = np.random.default_rng(6)
    X = kin.forward_kinematics(panda, random_q(panda, 'arm', rng))[
        panda.link_index('panda_hand')]
    seed = panda.apply_mimic(np.array(panda.default_positions))
    finger = panda.variable_index('panda_finger_joint1')
    seed[finger] = 0.0123
    result = solve_ik(panda, IKRequest('arm_and_hand', (X,), ('panda_hand',), seed,
                                       SOLVE_TIMEOUT, IKOptions(random_seed=2)))
    assert result.success
    assert result.q[finger] == 0.0123


def test_seed_outside_bounds_is_clipped(panda: RobotModel) -> None:
    """A seed beyond the limits still gives an in-bounds solution."""
    rng = np.random.default_rng(8)
    X = kin.forward_kinematics(panda, random_q(panda, 'arm', rng))[
        panda.link_index('panda_hand_tcp')]
    seed = np.array(panda.default_positions)
    seed[:7] = 10.0
    result = solve_ik(panda, IKRequest('arm', (X,), ('panda_hand_tcp',), seed, SOLVE_TIMEOUT,
                                       IKOptions(random_seed=0)))
    assert result.success
    assert_within_bounds(panda, 'arm', result.q)


def test_seed_already_at_the_target(ur5: RobotModel) -> None:
    """A seed that already reaches the target is returned after one iteration."""
    q = random_q(ur5, 'manipulator', np.random.default_rng(9))
    X = kin.forward_kinematics(ur5, q)[ur5.link_index('tool0')]
    result = solve_ik(ur5, IKRequest('manipulator', (X,), seed=q, timeout=SOLVE_TIMEOUT))
    assert result.success
    assert result.iterations == 1
    np.testing.assert_allclose(result.q, q, rtol=0, atol=1e-12)


def test_results_are_deterministic_for_a_random_seed(panda: RobotModel) -> None:
    """The same request and random_seed give the same solution.

    The clock does not matter as long as the timeout is not reached.
    """
    rng = np.random.default_rng(10)
    X = kin.forward_kinematics(panda, random_q(panda, 'arm', rng))[
        panda.link_index('panda_hand_tcp')]
    seed = random_q(panda, 'arm', rng)
    request = IKRequest('arm', (X,), ('panda_hand_tcp',), seed, SOLVE_TIMEOUT,
                        IKOptions(random_seed=123))
    a, b = solve_ik(panda, request), solve_ik(panda, request)
    assert a.success and b.success
    np.testing.assert_array_equal(a.q, b.q)
    assert (a.iterations, a.seeds_tried) == (b.iterations, b.seeds_tried)


def _ur5_problems(ur5: RobotModel, n: int, seed: int
                  ) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """``n`` (target X_WT of tool0, seed q) pairs: FK of random in-bounds configurations."""
    rng = np.random.default_rng(seed)
    tool0 = ur5.link_index('tool0')
    return [(kin.forward_kinematics(ur5, random_q(ur5, 'manipulator', rng))[tool0],
             random_q(ur5, 'manipulator', rng)) for _ in range(n)]


def _ur5_request(X: NDArray[np.float64], seed: NDArray[np.float64], random_seed: int,
                 validity: object = None) -> IKRequest:
    # An iteration cap, not the clock, ends a failing search: results are reproducible.
    return IKRequest('manipulator', (X,), ('tool0',), seed, SOLVE_TIMEOUT,
                     IKOptions(random_seed=random_seed, max_iterations=400),
                     validity)  # type: ignore[arg-type]


def test_reused_workspace_leaks_nothing_between_requests(ur5: RobotModel) -> None:
    """Single requests reuse their search arrays; results stay independent of each other.

    Each result is checked by FK; it is not changed by the next request, and solving the
    same request again (after others) gives the same answer.
    """
    problems = _ur5_problems(ur5, 6, seed=41)
    results = [solve_ik(ur5, _ur5_request(X, q0, i)) for i, (X, q0) in enumerate(problems)]
    kept = [r.q.copy() for r in results]
    again = [solve_ik(ur5, _ur5_request(X, q0, i)) for i, (X, q0) in enumerate(problems)]
    for (X, _), r, q, r2 in zip(problems, results, kept, again, strict=True):
        assert r.success
        np.testing.assert_array_equal(r.q, q)  # not overwritten by later requests
        dp, dr = pose_errors(ur5, r.q, ['tool0'], [X])
        assert dp < POSITION_CHECK and dr < ROTATION_CHECK
        np.testing.assert_array_equal(r2.q, r.q)
        assert (r2.iterations, r2.seeds_tried) == (r.iterations, r.seeds_tried)


def test_nested_request_from_the_validity_callback(ur5: RobotModel) -> None:
    """A validity callback may itself solve IK for the same group on the same thread."""
    (X_outer, q_outer), (X_inner, q_inner) = _ur5_problems(ur5, 2, seed=42)
    inner: list[IKResult] = []

    def validity(q: NDArray[np.float64]) -> bool:
        inner.append(solve_ik(ur5, _ur5_request(X_inner, q_inner, 5)))
        return True

    outer = solve_ik(ur5, _ur5_request(X_outer, q_outer, 4, validity))
    assert outer.success and len(inner) == 1 and inner[0].success
    for r, X in ((outer, X_outer), (inner[0], X_inner)):
        dp, dr = pose_errors(ur5, r.q, ['tool0'], [X])
        assert dp < POSITION_CHECK and dr < ROTATION_CHECK
    alone = solve_ik(ur5, _ur5_request(X_outer, q_outer, 4))  # the nested solve changed nothing
    np.testing.assert_array_equal(alone.q, outer.q)


def test_concurrent_requests_from_threads(ur5: RobotModel) -> None:
    """Requests from several threads at once give the answers they give one at a time."""
    problems = _ur5_problems(ur5, 24, seed=43)
    expected = [solve_ik(ur5, _ur5_request(X, q0, i)) for i, (X, q0) in enumerate(problems)]
    got: dict[int, IKResult] = {}

    def worker(offset: int) -> None:
        for i in range(offset, len(problems), 4):
            got[i] = solve_ik(ur5, _ur5_request(*problems[i], i))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(len(problems)))
    for i, (X, _) in enumerate(problems):
        assert got[i].success and expected[i].success
        np.testing.assert_array_equal(got[i].q, expected[i].q)
        dp, dr = pose_errors(ur5, got[i].q, ['tool0'], [X])
        assert dp < POSITION_CHECK and dr < ROTATION_CHECK


# ------------------------------------------------------------------------------ validity callback


def test_validity_callback_vetoes_candidates(panda: RobotModel) -> None:
    """Solutions with joint 1 < 0 are vetoed; the returned solution respects the callback."""
    seen: list[tuple[int, ...]] = []

    def joint1_not_negative(q: NDArray[np.float64]) -> bool:
        seen.append(q.shape)
        return bool(q[0] >= 0.0)

    rng = np.random.default_rng(12)
    tip = panda.link_index('panda_hand_tcp')
    for i in range(5):
        q = random_q(panda, 'arm', rng)
        q[0] = abs(q[0])
        X = kin.forward_kinematics(panda, q)[tip]
        result = solve_ik(panda, IKRequest('arm', (X,), ('panda_hand_tcp',), None,
                                           SOLVE_TIMEOUT, IKOptions(random_seed=i),
                                           joint1_not_negative))
        assert result.success
        assert result.q[0] >= 0.0
        assert pose_errors(panda, result.q, ['panda_hand_tcp'], [X])[0] < POSITION_CHECK
    assert seen and all(shape == (panda.nq,) for shape in seen)


def test_validity_callback_vetoing_everything(panda: RobotModel) -> None:
    """When every candidate is vetoed: NO_SOLUTION at the timeout, the seed returned."""
    calls: list[NDArray[np.float64]] = []

    def veto(q: NDArray[np.float64]) -> bool:
        calls.append(q)
        return False

    X = kin.forward_kinematics(panda, random_q(panda, 'arm', np.random.default_rng(13)))[
        panda.link_index('panda_hand_tcp')]
    seed = np.array(panda.default_positions)
    timeout = 0.05
    start = time.perf_counter()
    result = solve_ik(panda, IKRequest('arm', (X,), ('panda_hand_tcp',), seed, timeout,
                                       IKOptions(random_seed=0), veto))
    elapsed = time.perf_counter() - start
    assert result.status is IKStatus.NO_SOLUTION
    assert calls and 'validity callback' in result.message
    np.testing.assert_array_equal(result.q, seed)
    assert elapsed <= 1.1 * timeout + 0.001 + CI_SLACK


# ------------------------------------------------------------------------------ failures, timing


def unreachable(model: RobotModel) -> NDArray[np.float64]:
    X = np.eye(4)
    X[:3, 3] = [3.0, 0.0, 0.5]  # beyond the reach of every arm used here
    return X


@pytest.mark.parametrize('timeout', [0.002, 0.01, 0.05])
def test_timeout_is_honoured(panda: RobotModel, timeout: float) -> None:
    """Unreachable target: TIMED_OUT within 1.1 x timeout + 1 ms (+ CI slack), seed back."""
    seed = random_q(panda, 'arm', np.random.default_rng(14))
    request = IKRequest('arm', (unreachable(panda),), ('panda_hand_tcp',), seed, timeout,
                        IKOptions(random_seed=0))
    solve_ik(panda, request)  # warm the per-model caches
    start = time.perf_counter()
    result = solve_ik(panda, request)
    elapsed = time.perf_counter() - start
    assert result.status is IKStatus.TIMED_OUT
    assert elapsed <= 1.1 * timeout + 0.001 + CI_SLACK
    assert result.elapsed <= elapsed
    assert result.iterations >= 1 and result.seeds_tried >= 8
    np.testing.assert_array_equal(result.q, seed)
    assert result.position_error > 1.0


def test_prepare_ik(ur5: RobotModel) -> None:
    """prepare_ik moves the set-up out of the first request and does not change results."""
    rng = np.random.default_rng(19)
    X = kin.forward_kinematics(ur5, random_q(ur5, 'manipulator', rng))[ur5.link_index('tool0')]
    seed = random_q(ur5, 'manipulator', rng)
    request = IKRequest('manipulator', (X,), (), seed, SOLVE_TIMEOUT, IKOptions(random_seed=5))
    fresh = RobotModel.from_urdf_string(
        robot_corpus.test_robot('ur5').urdf_path.read_text(), UR5_SRDF,
        package_map=robot_corpus.test_robot('ur5').package_map)
    prepare_ik(fresh, 'manipulator')
    a, b = solve_ik(fresh, request), solve_ik(ur5, request)
    assert a.success and b.success
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-12)
    timeout = 0.001
    start = time.perf_counter()
    solve_ik(fresh, IKRequest('manipulator', (unreachable(fresh),), timeout=timeout))
    assert time.perf_counter() - start <= 1.1 * timeout + 0.001 + CI_SLACK
    with pytest.raises(InvalidArgumentError, match='unknown group'):
        prepare_ik(ur5, 'no_such_group')
    with pytest.raises(InvalidArgumentError, match='seed'):
        prepare_ik(ur5, 'manipulator', seed=np.zeros(2))


def test_zero_timeout_means_the_group_default(panda: RobotModel) -> None:
    """A timeout of 0, None or < 0 means the group's default_ik_timeout (RS-76)."""
    default = panda.group('arm').default_ik_timeout
    for timeout in (0.0, None, -1.0):
        start = time.perf_counter()
        result = solve_ik(panda, IKRequest('arm', (unreachable(panda),), ('panda_hand_tcp',),
                                           None, timeout))
        elapsed = time.perf_counter() - start
        assert result.status is IKStatus.TIMED_OUT
        assert 0.5 * default <= elapsed <= 1.1 * default + 0.001 + CI_SLACK


def test_return_approximate(panda: RobotModel) -> None:
    """return_approximate gives the closest configuration found instead of the seed."""
    seed = np.array(panda.default_positions)
    target = unreachable(panda)
    result = solve_ik(panda, IKRequest('arm', (target,), ('panda_hand_tcp',), seed, 0.02,
                                       IKOptions(random_seed=0, return_approximate=True)))
    assert result.status is IKStatus.TIMED_OUT
    dp, _ = pose_errors(panda, result.q, ['panda_hand_tcp'], [target])
    dp_seed, _ = pose_errors(panda, seed, ['panda_hand_tcp'], [target])
    assert dp == pytest.approx(result.position_error, abs=1e-9)
    assert dp < dp_seed
    assert_within_bounds(panda, 'arm', result.q)


def test_iteration_budget_gives_no_solution(panda: RobotModel) -> None:
    result = solve_ik(panda, IKRequest('arm', (unreachable(panda),), ('panda_hand_tcp',),
                                       None, 10.0, IKOptions(max_iterations=12)))
    assert result.status is IKStatus.NO_SOLUTION
    assert result.iterations == 12
    assert 'iteration budget' in result.message


# ------------------------------------------------------------------------------ invalid requests


def _target(model: RobotModel) -> NDArray[np.float64]:
    X: NDArray[np.float64] = kin.forward_kinematics(model, np.array(model.default_positions))[
        model.link_index('panda_hand_tcp')]
    return X


@pytest.mark.parametrize(('change', 'fragment'), [
    ({'group': 'no_such_group'}, 'unknown group'),
    ({'tip_links': ('no_such_link',)}, 'unknown link'),
    ({'tip_links': ('panda_link0',)}, 'not moved by the active joints'),
    ({'tip_links': ('panda_hand_tcp', 'panda_hand_tcp'), 'targets': 'two'}, 'repeat'),
    ({'targets': 'two'}, 'give one target per tip'),
    ({'targets': ()}, 'no targets'),
    ({'targets': 'nan'}, 'not finite'),
    ({'targets': 'shape'}, 'shape (4, 4)'),
    ({'targets': 'bottom'}, 'bottom row'),
    ({'targets': 'shear'}, 'not orthonormal'),
    ({'targets': 'mirror'}, 'not orthonormal'),
    ({'seed': np.zeros(3)}, 'seed must have shape'),
    ({'seed': np.full(9, np.inf)}, 'seed is not finite'),
    ({'timeout': float('nan')}, 'timeout must be finite'),
    ({'group': 'arm_and_hand', 'tip_links': ()}, 'no tip link'),
])
def test_invalid_requests(panda: RobotModel, change: dict[str, object], fragment: str) -> None:
    """Malformed requests give INVALID_REQUEST with a message, never an exception."""
    X = _target(panda)
    fields: dict[str, object] = {'group': 'arm', 'targets': (X,),
                                 'tip_links': ('panda_hand_tcp',), 'seed': None,
                                 'timeout': 0.01}
    fields.update(change)
    bad = {'two': (X, X), 'nan': (np.full((4, 4), np.nan),), 'shape': (np.eye(3),),
           'bottom': (2.0 * np.eye(4),), 'shear': (np.array([[1.0, 0.5, 0, 0], [0, 1, 0, 0],
                                                            [0, 0, 1, 0], [0, 0, 0, 1]]),),
           'mirror': (np.diag([1.0, 1.0, -1.0, 1.0]),)}
    if isinstance(fields['targets'], str):
        fields['targets'] = bad[fields['targets']]
    result = solve_ik(panda, IKRequest(**fields))  # type: ignore[arg-type]
    assert result.status is IKStatus.INVALID_REQUEST
    assert fragment in result.message
    assert result.q.shape == (panda.nq,)
    assert result.iterations == 0


def test_nearly_orthonormal_targets_are_accepted(panda: RobotModel) -> None:
    """Float32-level rotation noise is projected away, not rejected."""
    q = random_q(panda, 'arm', np.random.default_rng(15))
    X = kin.forward_kinematics(panda, q)[panda.link_index('panda_hand_tcp')]
    noisy = X.astype(np.float32).astype(np.float64)
    result = solve_ik(panda, IKRequest('arm', (noisy,), ('panda_hand_tcp',), q, SOLVE_TIMEOUT))
    assert result.success


def test_programmer_errors_raise(panda: RobotModel) -> None:
    with pytest.raises(TypeError):
        solve_ik(panda, 'arm')  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        IKOptions(num_seeds=0)
    with pytest.raises(InvalidArgumentError):
        IKOptions(position_tolerance=0.0)
    with pytest.raises(InvalidArgumentError):
        IKOptions(max_iterations=0)


# ------------------------------------------------------------------------------ batch


def test_batch_results_verified_by_fk(panda: RobotModel) -> None:
    """solve_ik_batch: every target solved, re-checked by FK, bounds respected."""
    rng = np.random.default_rng(16)
    M = 40
    tip = panda.link_index('panda_hand_tcp')
    targets = kin.forward_kinematics(panda, np.stack([random_q(panda, 'arm', rng)
                                                      for _ in range(M)]))[:, tip]
    seeds = np.stack([random_q(panda, 'arm', rng) for _ in range(M)])
    results = solve_ik_batch(panda, 'arm', targets, seeds, tip_link='panda_hand_tcp',
                             timeout_per_target=0.05, options=IKOptions(random_seed=0))
    assert len(results) == M
    for i, r in enumerate(results):
        assert r.success, (i, r)
        dp, dr = pose_errors(panda, r.q, ['panda_hand_tcp'], [targets[i]])
        assert dp < POSITION_CHECK and dr < ROTATION_CHECK
        assert_within_bounds(panda, 'arm', r.q)
        np.testing.assert_array_equal(r.q[7:], seeds[i][7:])  # the fingers keep their seeds


def test_batch_with_shared_seed_and_default_tip(ur5: RobotModel) -> None:
    rng = np.random.default_rng(17)
    tip = ur5.link_index('tool0')
    targets = kin.forward_kinematics(ur5, np.stack([random_q(ur5, 'manipulator', rng)
                                                    for _ in range(10)]))[:, tip]
    results = solve_ik_batch(ur5, 'manipulator', targets, np.array(ur5.default_positions),
                             timeout_per_target=0.05, options=IKOptions(random_seed=1))
    assert all(r.success for r in results)


def test_batch_invalid_entries(panda: RobotModel) -> None:
    """A malformed target fails alone; a malformed group fails every target."""
    X = _target(panda)
    targets = np.stack([X, np.full((4, 4), np.nan), X])
    results = solve_ik_batch(panda, 'arm', targets, tip_link='panda_hand_tcp',
                             timeout_per_target=0.05, options=IKOptions(random_seed=0))
    assert [r.status for r in results] == [IKStatus.SUCCESS, IKStatus.INVALID_REQUEST,
                                           IKStatus.SUCCESS]
    results = solve_ik_batch(panda, 'nope', targets[[0, 2]])
    assert [r.status for r in results] == [IKStatus.INVALID_REQUEST] * 2
    assert 'unknown group' in results[0].message
    results = solve_ik_batch(panda, 'arm', targets[[0, 2]], np.zeros((5, 2)))
    assert all(r.status is IKStatus.INVALID_REQUEST for r in results)


def test_batch_unreachable_target_times_out(panda: RobotModel) -> None:
    """An unreachable target in a batch times out; the reachable one is solved.

    The batch's deadline is ``2 * timeout`` of wall-clock time. What is asserted does not depend
    on the machine being idle: the solve searches until about the deadline (the unreachable
    result's ``elapsed``) and the CPU time this thread spent is within the deadline plus one
    iteration, which a solver ignoring its deadline would exceed. Wall-clock overshoot (this
    process descheduled by other load) is not a property of the solver; speed is measured in
    ``benchmarks/``.
    """
    targets = np.stack([_target(panda), unreachable(panda)])
    # compiled kernels and caches first: their one-off cost is not part of the deadline property
    assert solve_ik_batch(panda, 'arm', targets[:1], tip_link='panda_hand_tcp',
                          timeout_per_target=SOLVE_TIMEOUT)[0].success
    timeout = 0.05  # long enough for the reachable target on a loaded machine
    cpu_start = time.thread_time()
    results = solve_ik_batch(panda, 'arm', targets, tip_link='panda_hand_tcp',
                             timeout_per_target=timeout, options=IKOptions(random_seed=0))
    cpu = time.thread_time() - cpu_start
    assert results[0].success
    assert results[1].status is IKStatus.TIMED_OUT
    assert results[1].elapsed >= 0.5 * 2 * timeout  # it searched (it may stop one step early)
    assert cpu <= 1.1 * 2 * timeout + 0.001 + CI_SLACK, cpu


# ------------------------------------------------------------------------------ quality


def test_panda_success_rate(panda: RobotModel) -> None:
    """At least 98 % success at 50 ms under the protocol of baselines.md 3b.

    Random in-bounds targets and seeds, success = 1e-4 m and 1e-3 rad by an independent FK.
    """
    rng = np.random.default_rng(18)
    tip = panda.link_index('panda_hand_tcp')
    n, ok = 60, 0
    for i in range(n):
        X = kin.forward_kinematics(panda, random_q(panda, 'arm', rng))[tip]
        r = solve_ik(panda, IKRequest('arm', (X,), ('panda_hand_tcp',),
                                      random_q(panda, 'arm', rng), 0.05,
                                      IKOptions(random_seed=i)))
        dp, dr = pose_errors(panda, r.q, ['panda_hand_tcp'], [X])
        ok += r.success and dp < POSITION_CHECK and dr < ROTATION_CHECK
    assert ok >= 0.98 * n


@pytest.mark.parametrize('group', ['arm', 'whole_body'])  # the compiled and the numpy path
def test_a_stop_event_ends_a_long_solve_at_once(default_robot: RobotModel, group: str) -> None:
    """``IKRequest.stop`` set from another thread ends an 8 s solve at once.

    The target is unreachable (issue 25: nodes end a running solve when they shut down).
    """
    X = np.eye(4)
    X[:3, 3] = (50.0, 0.0, 1.0)  # far beyond the reach: the solve would use its whole timeout
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t0 = time.perf_counter()
    result = solve_ik(default_robot, IKRequest(group, (X,), ('tool0',), timeout=8.0, stop=stop))
    elapsed = time.perf_counter() - t0
    assert result.status is IKStatus.TIMED_OUT
    assert 'stopped' in result.message
    assert 0.3 <= elapsed < 0.6, elapsed


def test_unranked_restarts_read_no_table_and_iterate_the_seed_alone(
        ur5: RobotModel, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ranked_restarts=False``: no sample table is built or read; one seed means one row.

    A target 1 cm / 3° from the seed is solved from the seed itself (one start, the solution
    next to the seed); a far target still succeeds through fresh uniform restarts.
    """
    def no_table(*args: object) -> None:
        raise AssertionError('the sample table was read')

    monkeypatch.setattr(ik_search, 'seed_table', no_table)
    rng = np.random.default_rng(27)
    tool0 = ur5.link_index('tool0')
    options = IKOptions(num_seeds=1, ranked_restarts=False, random_seed=3)
    q0 = random_q(ur5, 'manipulator', rng)
    X = kin.forward_kinematics(ur5, q0)[tool0].copy()
    X[:3, 3] += [0.01, 0.0, 0.0]
    c, s = np.cos(np.radians(3.0)), np.sin(np.radians(3.0))
    X[:3, :3] = X[:3, :3] @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    near = solve_ik(ur5, IKRequest('manipulator', (X,), seed=q0, timeout=SOLVE_TIMEOUT,
                                   options=options), cache=IKCache())
    assert near.success
    assert near.seeds_tried == 1
    assert np.max(np.abs(near.q - q0)) < 0.2
    far = kin.forward_kinematics(ur5, random_q(ur5, 'manipulator', rng))[tool0]
    result = solve_ik(ur5, IKRequest('manipulator', (far,), seed=q0, timeout=SOLVE_TIMEOUT,
                                     options=options), cache=IKCache())
    assert result.success
    np.testing.assert_allclose(kin.forward_kinematics(ur5, result.q)[tool0], far, atol=1e-4)
    with pytest.raises(AssertionError, match='table was read'):  # the default reads it
        solve_ik(ur5, IKRequest('manipulator', (far,), seed=q0, timeout=SOLVE_TIMEOUT),
                 cache=IKCache())
