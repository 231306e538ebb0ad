"""The compiled IK iteration (robot_state_core.ik.compiled) against its numpy references.

The scalar pieces are checked against the spatial module (rotation log to 1e-12, angle
wrapping bit for bit) and numpy's solver; one iteration of the compiled kernel against the
numpy reference iteration (robot_state_core.ik.reference: tip errors, step, clipping,
wrapping); the compiled loop of single requests against the Python loop (same iterations,
restarts and solution). IK answers themselves are verified by FK in test_ik.py and the MoveIt
port.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from pathlib import Path
import time

import numpy as np
import pytest
import robot_corpus

from robot_state_core import kinematics as kin
from robot_state_core.description.joint_types import floating, mimic, planar, rpy_floating
from robot_state_core.ik import reference
from robot_state_core.ik import search as ik_search
from robot_state_core.ik.cache import default_ik_cache
from robot_state_core.ik.problem import Problem, ProblemEntry
from robot_state_core.ik.requests import resolve
from robot_state_core.ik.solver import prepare_ik, solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.io.default_robot import (
    default_robot_srdf_path,
    default_robot_urdf_path,
    package_root,
)
from robot_state_core.kinematics import compiled as fk_kernels
from robot_state_core.kinematics.plan import compiled_kernels
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial import compiled as spatial_compiled
from robot_state_core.spatial import transforms
from robot_state_core.spatial.transforms import (
    random_quat_xyzw,
    rotation_angle,
    rotation_exp,
    rotation_from_quat_xyzw,
    rotation_log,
    wrap_angle,
)

RESOURCES = Path(__file__).resolve().parent / 'resources'


@pytest.fixture(scope='module')
def compiled() -> object:
    ik_search.ready_ik_kernels()
    return ik_search.ik_kernels()


@pytest.fixture(scope='module')
def models() -> dict[str, RobotModel]:
    out = {'default': RobotModel.from_urdf_file(
        default_robot_urdf_path(), default_robot_srdf_path(),
        package_map={'robot_state_core': package_root()})}
    for name in ('panda', 'talos'):
        r = robot_corpus.test_robot(name)
        out[name] = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path,
                                              package_map=r.package_map)
    r = robot_corpus.test_robot('talos')  # a humanoid whose free-flyer root IK may move
    out['talos_free'] = RobotModel.from_urdf_string(
        r.urdf_path.read_text(), _FREE_ROOT_SRDF, package_map=r.package_map)
    out['all_types'] = RobotModel.from_urdf_string(
        (RESOURCES / 'all_joint_types.urdf').read_text(), _ALL_TYPES_SRDF)
    return out


_ALL_TYPES_SRDF = '''<?xml version="1.0"?>
<robot name="all_joint_types">
  <group name="whole"><chain base_link="world" tip_link="tool"/></group>
</robot>
'''


_FREE_ROOT_SRDF = '''<?xml version="1.0"?>
<robot name="talos">
  <virtual_joint name="root_joint" type="floating" parent_frame="world" child_link="base_link"/>
  <group name="free_arm">
    <joint name="root_joint"/>
    <chain base_link="base_link" tip_link="gripper_left_base_link"/>
  </group>
</robot>
'''


# Problems covering: m < n (one 6-row tip, 7 variables), m > n (two tips, n x n normal form),
# mimic folding (Panda's right finger), continuous wrapping (default robot's wrist roll),
# position only, a shared torso (Talos).
PROBLEMS = [
    ('panda', 'arm', ['panda_hand_tcp'], False),
    ('panda', 'arm', ['panda_hand_tcp'], True),
    ('panda', 'arm_and_hand', ['panda_hand_tcp', 'panda_rightfinger'], False),
    ('default', 'arm', ['tool0'], False),
    ('talos', 'all_arms_torso', ['gripper_left_base_link', 'gripper_right_base_link'], False),
]
# Multi-DOF joints in the group (issue 30): a planar base with its lift and arm (x, y, theta
# additive, theta wrapped), Talos' free-flyer root with its torso and arm (7 z variables,
# 6 columns: the translation adds v_FM, the quaternion turns by exp(w_FM)), and a chain of
# every joint type (floating, rpy_floating, planar, revolute, continuous, prismatic).
MULTI_DOF_PROBLEMS = [
    ('default', 'whole_body', ['tool0'], False),
    ('talos_free', 'free_arm', ['gripper_left_base_link'], False),
    ('all_types', 'whole', ['tool'], False),
]


def _random_rows(model: RobotModel, k: Problem, rng: np.random.Generator,
                 n: int) -> np.ndarray:
    lo = np.where(np.isfinite(k.z_lower), k.z_lower, -4.0)
    hi = np.where(np.isfinite(k.z_upper), k.z_upper, 4.0)
    return lo + rng.random((n, lo.size)) * (hi - lo)


def _search(model: RobotModel, group: str, tips: list[str], position_only: bool,
            seed: int, options: IKOptions | None = None,
            compiled: bool = True) -> ik_search.Search:
    """A search with targets from FK of a random configuration (seeded)."""
    _, entry, order, msg = resolve(default_ik_cache(), model,
                                   group, tips, len(tips), position_only)
    assert entry is not None, msg
    tips = [tips[i] for i in order]  # the problem's tips are in link order
    assert entry.problem.compiled
    if not compiled:
        entry = ProblemEntry(dataclasses.replace(entry.problem, compiled=False))
    rng = np.random.default_rng(seed)
    q = np.array(model.default_positions)
    q[entry.problem.q_active] = _random_rows(model, entry.problem, rng, 1)[0]
    model.apply_mimic(q)
    X = kin.forward_kinematics(model, q)
    targets = np.stack([X[model.link_index(t)] for t in tips])[None]
    return ik_search.Search(model, entry, np.array(model.default_positions)[None], targets,
                            options or IKOptions(position_only=position_only, random_seed=seed),
                            None, np.random.default_rng(seed))


# ------------------------------------------------------------------------------ scalar pieces


def _rotations(rng: np.random.Generator) -> list[np.ndarray]:
    out = list(rotation_from_quat_xyzw(random_quat_xyzw(rng, (200,))))
    axes = [np.array(a, dtype=float) for a in
            ([1, 0, 0], [0, 1, 0], [0, 0, 1], [1, -1, 0], [-1, 2, -3], [0.3, -0.2, -0.9])]
    axes += list(rng.normal(size=(20, 3)))
    for a in axes:
        a = a / np.linalg.norm(a)
        for angle in (0.0, 1e-14, 1e-9, 1e-6, 0.5, math.pi / 2, 3.0, math.pi - 1e-6,
                      math.pi - 1e-10, math.pi):
            out.append(rotation_exp(angle * a))
    return out


def test_rotation_log_matches_spatial(compiled: object) -> None:
    """The scalar log equals spatial.transforms.rotation_log (and its angle) to 1e-12.

    Random rotations, tiny angles and angles up to exactly pi about axis-aligned and random
    axes (the symmetric-part branch).
    """
    rng = np.random.default_rng(0)
    out = np.zeros(3)
    for R in _rotations(rng):
        theta = compiled.rotation_log_and_angle(np.ascontiguousarray(R), out, 0)
        expected = rotation_log(R)
        if np.linalg.norm(expected) > math.pi - 1e-6:  # w and -w are the same rotation at pi
            assert min(np.abs(out - expected).max(), np.abs(out + expected).max()) < 1e-12
        else:
            np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)
        assert abs(theta - float(rotation_angle(R))) < 1e-12
        np.testing.assert_allclose(rotation_exp(out), R, rtol=0, atol=1e-12)


def test_wrap_angle_matches_spatial(compiled: object) -> None:
    """Scalar wrapping equals spatial.transforms.wrap_angle bit for bit ([-pi, pi))."""
    rng = np.random.default_rng(1)
    values = np.concatenate([
        rng.uniform(-50.0, 50.0, 500),
        [0.0, math.pi, -math.pi, 2 * math.pi, -2 * math.pi, 3 * math.pi, -3 * math.pi,
         math.pi - 1e-16, -math.pi - 1e-16, math.nextafter(math.pi, 0.0), 1e-300, -1e-300,
         7.0, -7.0]])
    expected = wrap_angle(values)
    got = np.array([compiled.wrap_angle(float(v)) for v in values])
    np.testing.assert_array_equal(got, expected)


def test_cholesky_solve_matches_numpy(compiled: object) -> None:
    """The damped normal equations are solved as numpy.linalg.solve does (SPD, 1..12)."""
    rng = np.random.default_rng(2)
    for n in range(1, 13):
        J = rng.normal(size=(n + 2, n))
        A = J.T @ J + 1e-6 * np.eye(n)
        b = rng.normal(size=n)
        expected = np.linalg.solve(A, b)
        work, x = np.zeros((12, 12)), np.zeros(12)
        work[:n, :n] = A
        x[:n] = b
        compiled.cholesky_solve(work, x, n)
        np.testing.assert_allclose(x[:n], expected, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------ one iteration


@pytest.mark.parametrize(('robot', 'group', 'tips', 'position_only'),
                         PROBLEMS + MULTI_DOF_PROBLEMS)
def test_iteration_matches_numpy_iteration(models: dict[str, RobotModel], robot: str,
                                           group: str, tips: list[str],
                                           position_only: bool) -> None:
    """Errors, |e|², worst tip errors and the clipped, wrapped step equal the numpy path's.

    Rows include values outside the bounds and beyond ±pi for continuous variables (the
    step clips and wraps them).
    """
    model = models[robot]
    search = _search(model, group, tips, position_only, seed=3,
                     options=IKOptions(position_only=position_only, num_seeds=8))
    k = search.k
    rng = np.random.default_rng(4)
    search.z = _random_rows(model, k, rng, 8)
    search.z[0] += 3.0  # out of bounds / beyond pi
    search._bind_rows()
    e_c, perr_c, rerr_c, norm_c, z_next = (a.copy() for a in search._iterate())
    X_WL, X_tip = ik_search.tip_poses(search, search.z, search.rows)
    e, perr, rerr = reference.errors(k, X_tip, search.rows.target)
    J = reference.jacobian(k, X_WL)
    norm = np.vecdot(e, e)
    np.testing.assert_allclose(e_c, e, rtol=0, atol=1e-12)
    np.testing.assert_allclose(perr_c, perr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rerr_c, rerr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(norm_c, norm, rtol=1e-12, atol=1e-14)
    z_ref = reference.step(model, k, search.options, search.z, search.base, search.prob, e, J,
                           norm)  # the numpy step
    np.testing.assert_allclose(z_next, z_ref, rtol=0, atol=1e-9)
    assert np.all(z_next >= k.z_lower) and np.all(z_next <= k.z_upper)
    if k.wrap_z.size:
        assert np.all(np.abs(z_next[:, k.wrap_z]) <= math.pi)


# ------------------------------------------------------------------------------ the loop


@pytest.mark.parametrize(('robot', 'group', 'tips', 'position_only'),
                         PROBLEMS[:4] + MULTI_DOF_PROBLEMS)
def test_compiled_loop_matches_python_loop(models: dict[str, RobotModel], robot: str,
                                           group: str, tips: list[str],
                                           position_only: bool) -> None:
    """The compiled loop of single requests takes the Python loop's path exactly.

    Same iterations, seeds tried (restarts from the ranked pool), best row and solution for
    several seeded targets, with a hard iteration cap and no deadline.
    """
    model = models[robot]
    for seed in range(5):
        runs = []
        for compiled in (True, False):
            s = _search(model, group, tips, position_only, seed=seed, compiled=compiled)
            reason = s.run(time.perf_counter() + 100.0, 60)
            runs.append((s, reason))
        (a, ra), (b, rb) = runs
        assert ra == rb
        assert a.iterations == b.iterations
        np.testing.assert_array_equal(a.seeds_tried, b.seeds_tried)
        np.testing.assert_array_equal(a.solved, b.solved)
        np.testing.assert_allclose(a.solution, b.solution, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a.best_z, b.best_z, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a.best_error, b.best_error, rtol=1e-6, atol=1e-12)


def test_each_kernel_compiles_one_signature(models: dict[str, RobotModel],
                                            compiled: object) -> None:
    """Every call the solver makes matches the warm-up's signature (no recompilation)."""
    prepare_ik(models['panda'], 'arm', ['panda_hand_tcp'])  # broadcast (read-only) targets
    for robot, group, tips, position_only in PROBLEMS + MULTI_DOF_PROBLEMS:
        s = _search(models[robot], group, tips, position_only, seed=9)
        s.run(time.perf_counter() + 100.0, 5)
    assert len(compiled.iterate.signatures) == 1
    assert len(compiled.search.signatures) == 1
    assert len(compiled.rank_pool.signatures) == 1
    assert len(compiled.start_single.signatures) == 1
    # The FK and Jacobian kernels the IK kernel calls keep their one signature too.
    kernels = compiled_kernels()
    assert len(kernels.forward.signatures) == 1
    assert len(kernels.point_jacobian.signatures) == 1


_ONE_JOINT = ('<robot name="one"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
              '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
              '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')


def test_cache_entries_depend_on_the_fk_kernels_source(compiled: object) -> None:
    """The IK kernels' cache index keys carry the hash of the sources they compile in.

    They compile the FK/Jacobian kernels (kinematics/compiled.py), spatial's scalar rotation
    log and angle wrap, the one pose product, and the joint types' scalar motions and
    quaternion test into themselves, so a change there alone must recompile them (numba keys
    a cache entry on its own file only); the FK kernels' keys carry the hash of what they
    compile in.
    """
    inlined = (transforms, spatial_compiled, planar, floating, rpy_floating, mimic)  # named

    def stamp(modules: tuple[object, ...]) -> str:
        return hashlib.sha256(b''.join(Path(str(m.__file__)).read_bytes()
                                       for m in modules)).hexdigest()

    for kernel in (compiled.iterate, compiled.search, compiled.start_single):
        sig = kernel.signatures[0]
        key = kernel._cache._index_key(sig, kernel.targetctx.codegen())
        assert key[-1] == stamp((fk_kernels, *inlined))
    kin.forward_kinematics(RobotModel.from_urdf_string(_ONE_JOINT), np.zeros(1))
    kernel = fk_kernels.forward_one
    key = kernel._cache._index_key(kernel.signatures[0], kernel.targetctx.codegen())
    assert key[-1] == stamp(inlined)


@pytest.mark.parametrize(('robot', 'group', 'tips', 'position_only'), PROBLEMS[:4])
def test_compiled_set_up_matches_numpy_set_up(models: dict[str, RobotModel], robot: str,
                                              group: str, tips: list[str],
                                              position_only: bool) -> None:
    """``start_single`` (one compiled call) sets a single search up as the numpy code does.

    The seed lies outside the bounds and beyond ±π (clipped and wrapped); the projected seed,
    the rows, the ranked pool and the bookkeeping are equal.
    """
    model = models[robot]
    _, entry, order, msg = resolve(default_ik_cache(), model,
                                   group, tips, len(tips), position_only)
    assert entry is not None, msg
    tips = [tips[i] for i in order]  # the problem's tips are in link order
    k = entry.problem
    seed = np.array(model.default_positions)
    seed[k.q_active] = _random_rows(model, k, np.random.default_rng(5), 1)[0] + 3.0
    model.apply_mimic(seed)
    X = kin.forward_kinematics(model, np.array(model.default_positions))
    targets = np.stack([X[model.link_index(t)] for t in tips])[None]
    options = IKOptions(position_only=position_only, num_seeds=6)
    searches = []
    for compiled in (True, False):
        e = entry if compiled else ProblemEntry(dataclasses.replace(k, compiled=False))
        searches.append(ik_search.Search(model, e, seed[None].copy(), targets, options, None,
                                         np.random.default_rng(11)))
    a, b = searches
    assert a.workspace is not None and b.workspace is None  # the compiled set-up ran
    np.testing.assert_allclose(a.base, b.base, rtol=0, atol=1e-15)
    np.testing.assert_allclose(a.base_z, b.base_z, rtol=0, atol=1e-15)
    np.testing.assert_allclose(a.z, b.z, rtol=0, atol=1e-15)
    np.testing.assert_allclose(a.pool, b.pool, rtol=0, atol=1e-15)
    for name in ('row_best', 'row_end', 'row_due', 'pool_next', 'seeds_tried', 'solved',
                 'solution', 'solution_error', 'best_norm', 'best_z', 'best_error', 'vetoed'):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    if k.wrap_z.size:
        assert np.all(np.abs(a.base_z[0, k.wrap_z]) <= math.pi)
    assert np.all(a.base_z >= k.z_lower) and np.all(a.base_z <= k.z_upper)


def test_a_reused_workspace_follows_a_moving_base(models: dict[str, RobotModel]) -> None:
    """The base's motion is computed again when the base moved, not when it did not.

    The default robot's arm group leaves the planar base out of the problem: a request reuses
    the thread's workspace and its base motion while the base variables are unchanged. Every
    solution is checked by FK at its own base pose (a stale base motion would miss).
    """
    model = models['default']
    base = [i for i, name in enumerate(model.variable_names) if name.startswith('base_joint/')]
    assert len(base) == 3
    rng = np.random.default_rng(17)
    tip = model.link_index('tool0')
    for pose in ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.5, -0.7, 2.0], [1.5, -0.7, 2.0],
                 [-3.0, 0.2, -1.0], [0.0, 0.0, 0.0]):
        seed = np.array(model.default_positions)
        seed[base] = pose
        _, entry, order, _ = resolve(default_ik_cache(), model, 'arm', ['tool0'], 1, False)
        assert entry is not None
        assert order == (0,)
        q = seed.copy()
        q[entry.problem.q_active] = _random_rows(model, entry.problem, rng, 1)[0]
        X = kin.forward_kinematics(model, q)[tip]
        result = solve_ik(model, IKRequest(group='arm', targets=(X,), tip_links=('tool0',),
                                           seed=seed))
        assert result.success, result.message
        np.testing.assert_array_equal(result.q[base], pose)
        X_found = kin.forward_kinematics(model, result.q)[tip]
        assert np.linalg.norm(X_found[:3, 3] - X[:3, 3]) < 1e-5
        assert rotation_angle(X_found[:3, :3].T @ X[:3, :3]) < 1e-4
