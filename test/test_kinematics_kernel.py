"""The compiled FK and Jacobian kernels (issue 11 item 2, issue 12): one path, one cache.

* The batched and the single-configuration FK (and ``update_forward_kinematics``,
  ``local_joint_transforms`` + ``compose_link_poses``, ``forward_kinematics_soa``, the
  Jacobian) are the same kernel: their poses agree to 1e-15 on robots with every joint type
  (planar, floating, rpy_floating, mimic). Correctness against Pinocchio stays in
  ``test_kinematics.py`` / ``test_jacobian.py``; this file checks the paths against each other.
* Every kernel compiles one signature whatever array kinds callers pass (read-only,
  non-contiguous, lists, batches): a signature that varies would recompile in each process.
* The kernel cache lives in the user cache directory, works from a read-only install and
  prints nothing; ``import robot_state_core`` does not import numba.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
import shutil
import stat
import subprocess
import sys

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core import kinematics as kin
from robot_state_core.errors import (
    InvalidArgumentError,
    InvalidIndexError,
    InvalidTypeError,
    UnknownNameError,
)
from robot_state_core.io.default_robot import default_robot_urdf_path
from robot_state_core.kinematics.plan import compiled_kernels, entries
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial import transforms
from robot_state_core.spatial.composition import composition_kernels

RESOURCES = Path(__file__).resolve().parent / 'resources'
PACKAGE_DIR = Path(__file__).resolve().parents[1] / 'robot_state_core'
SAME = 1e-15
'''Largest difference between two paths of the one kernel (numpy's batched sin/cos of the
multi-DOF motions may differ from the single-row call in the last bit).'''


def _model(name: str) -> RobotModel:
    if name == 'all_joint_types':
        return RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf')
    if name == 'default_robot':
        return RobotModel.from_urdf_file(default_robot_urdf_path())
    r = robot_corpus.test_robot(name)
    return RobotModel.from_urdf_file(r.urdf_path, package_map=r.package_map)


# all_joint_types: floating, rpy_floating, planar, prismatic, continuous, chained mimic;
# default_robot: planar base; panda: mimic finger; talos_full: 60 links.
ROBOTS = ['all_joint_types', 'default_robot', 'panda', 'talos_full']


@pytest.mark.parametrize('name', ROBOTS)
def test_tf_frames_are_the_local_transforms_and_their_quaternions(name: str) -> None:
    """``local_joint_frames`` (one compiled call, what /tf publishes) is bitwise numpy's.

    That is, the local transforms' translations and ``quat_xyzw_from_rotation`` of their
    rotations, for every joint in any order.
    """
    model = _model(name)
    rng = np.random.default_rng(11)
    joints = np.arange(model.joint_count)[::-1].copy()  # any order, as the publisher selects
    for _ in range(8):
        q = pinocchio_oracle.random_q(model, rng)
        X = kin.local_joint_transforms(model, q)[joints]
        translations, quats = kin.local_joint_frames(model, q, joints)
        np.testing.assert_array_equal(translations, X[:, :3, 3])
        np.testing.assert_array_equal(quats, transforms.quat_xyzw_from_rotation(X[:, :3, :3]))
    with pytest.raises(InvalidArgumentError):
        kin.local_joint_frames(model, np.full(model.nq, np.nan), joints)


@pytest.mark.parametrize('name', ROBOTS)
def test_single_and_batched_paths_give_the_same_poses(name: str) -> None:
    """Every FK entry point and the Jacobian agree between batch and single configurations."""
    model = _model(name)
    rng = np.random.default_rng(7)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(16)])
    X = kin.forward_kinematics(model, Q)
    soa = kin.forward_kinematics_soa(model, Q)
    X_PC = kin.local_joint_transforms(model, Q)
    composed = kin.compose_link_poses(model, X_PC)
    data = kin.KinematicsData(model)
    tip = model.link_count - 1
    J = kin.jacobian(model, Q, tip, (0.1, -0.2, 0.3))
    worst = 0.0
    for n, q in enumerate(Q):
        single = kin.forward_kinematics(model, q)
        kin.update_forward_kinematics(model, data, q)
        for other in (X[n], soa[..., n], composed[n], data.X_WL,
                      kin.compose_link_poses(model, kin.local_joint_transforms(model, q))):
            worst = max(worst, float(np.abs(other - single).max()))
        worst = max(worst, float(np.abs(X_PC[n] - data.X_PC).max()))
        worst = max(worst, float(np.abs(J[n] - kin.jacobian(model, q, tip,
                                                              (0.1, -0.2, 0.3))).max()))
        assert np.array_equal(single[0], np.eye(4))
    assert worst <= SAME, f'{name}: paths differ by {worst:.3g}'


def test_each_kernel_compiles_one_signature() -> None:
    """Read-only, non-contiguous, list, batched and single inputs reuse one compiled signature."""
    model = _model('all_joint_types')
    rng = np.random.default_rng(2)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(6)])
    read_only = Q[0].copy()
    read_only.setflags(write=False)
    strided = np.asfortranarray(Q)
    for q in (Q[0], read_only, Q[0].tolist(), Q, strided, Q[::2], Q.reshape(2, 3, -1)):
        kin.forward_kinematics(model, q)
        kin.local_joint_transforms(model, q)
        kin.jacobian(model, q, model.link_count - 1)
        kin.jacobian(model, q, model.link_count - 1, (0.0, 0.1, 0.0))
        kin.forward_kinematics_and_jacobian(model, q, model.link_count - 1)
    X_PC = kin.local_joint_transforms(model, Q)
    kin.compose_link_poses(model, X_PC[:, ::-1][:, ::-1])  # a non-contiguous view
    kin.point_jacobian_columns(rng.normal(size=(4, 3)), rng.normal(size=(2, 4, 3)),
                               prismatic=np.array([1]))
    kernels = compiled_kernels()
    kin.fold_mimic_columns(model, kin.jacobian(model, Q, model.link_count - 1))
    kin.fold_mimic_columns(model, kin.jacobian(model, Q[0], model.link_count - 1).tolist())
    for name in ('forward', 'forward_one', 'local_transforms', 'point_jacobian',
                 'point_jacobian_one', 'jacobian_columns', 'fold_mimic', 'forward_jacobian_one'):
        signatures = getattr(kernels, name).signatures
        assert len(signatures) == 1, f'{name} compiled {len(signatures)} signatures'
    signatures = composition_kernels().compose_tree.signatures
    assert len(signatures) == 1, f'compose_tree compiled {len(signatures)} signatures'


_SCRIPT = '''
import sys
import numpy as np
import robot_state_core
from robot_state_core.model.robot_model import RobotModel
from robot_state_core import kinematics
assert 'numba' not in sys.modules, 'import robot_state_core imported numba'
model = RobotModel.from_urdf_file(sys.argv[1])
X = kinematics.forward_kinematics(model, np.asarray(model.default_positions))
assert X.shape == (model.link_count, 4, 4) and np.array_equal(X[0], np.eye(4))
from robot_state_core.jit.cache import cache_directory
print(cache_directory())
'''


def test_kernel_cache_in_user_cache_dir_with_read_only_install(tmp_path: Path) -> None:
    """A read-only copy of the package caches its kernels under $XDG_CACHE_HOME, silently."""
    site = tmp_path / 'site'
    shutil.copytree(PACKAGE_DIR, site / 'robot_state_core',
                    ignore=shutil.ignore_patterns('__pycache__'))
    for root, dirs, files in os.walk(site):
        for f in files:
            os.chmod(os.path.join(root, f), stat.S_IRUSR | stat.S_IRGRP)
        for d in dirs:
            os.chmod(os.path.join(root, d), stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP
                     | stat.S_IXGRP)
    home, xdg = tmp_path / 'home', tmp_path / 'xdg'
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != 'NUMBA_CACHE_DIR'}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(site),
               PYTHONDONTWRITEBYTECODE='1')
    urdf = str(RESOURCES / 'all_joint_types.urdf')
    try:
        for run in ('cold', 'warm'):
            done = subprocess.run([sys.executable, '-c', _SCRIPT, urdf], env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            assert done.returncode == 0, f'{run}: {done.stderr}'
            assert done.stderr == '', f'{run}: stderr {done.stderr!r}'
            assert Path(done.stdout.strip()) == xdg / 'robot_state_core' / 'numba'
        cached = [p.name for p in (xdg / 'robot_state_core' / 'numba').rglob('*')
                  if p.suffix in ('.nbi', '.nbc')]
        assert any(n.startswith('compiled.forward') for n in cached), cached
        in_package = [p for p in site.rglob('*') if p.suffix in ('.nbi', '.nbc', '.pyc')]
        assert not in_package, in_package
        assert not (home / '.cache').exists()
    finally:
        for root, dirs, _ in os.walk(site):
            for d in dirs:
                os.chmod(os.path.join(root, d), stat.S_IRWXU)


def test_bound_entry_points_run_the_one_compiled_signature() -> None:
    """The single-configuration calls bind their kernel's one signature and keep its results.

    After the first calls the bound entry points are used; read-only, non-contiguous and list
    inputs are converted before them (no second signature, no misread buffer), and the results
    equal the batch kernel's row.
    """
    model = _model('all_joint_types')
    rng = np.random.default_rng(5)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(3)])
    tip = model.link_count - 1
    for _ in range(2):
        kin.fold_mimic_columns(model, kin.jacobian(model, Q[0], tip))
    assert entries.forward_one is not None and entries.point_jacobian_one is not None
    assert entries.fold_mimic is not None
    X = kin.forward_kinematics(model, Q)
    J = kin.fold_mimic_columns(model, kin.jacobian(model, Q, tip, (0.1, 0.0, -0.2)))
    read_only = Q[1].copy()
    read_only.setflags(write=False)
    for n, q in ((0, Q[0]), (1, read_only), (2, np.asfortranarray(Q)[2]), (2, Q[2].tolist())):
        assert np.array_equal(kin.forward_kinematics(model, q), X[n])
        X_WL = kin.forward_kinematics(model, q)[::-1][::-1]
        single = kin.fold_mimic_columns(model, kin.jacobian(model, q, tip, (0.1, 0.0, -0.2),
                                                            X_WL=X_WL))
        assert np.abs(single - J[n]).max() <= SAME


@pytest.mark.parametrize('name', ['all_joint_types', 'panda'])
def test_parallel_row_blocks_give_the_serial_kernels_poses(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch split into row blocks on worker threads is bitwise the serial kernel's result.

    The threshold is lowered so a small batch takes the parallel path; every block is a
    C-contiguous slice, so the kernel keeps its one signature (multi-DOF motions included).
    """
    forward = importlib.import_module('robot_state_core.kinematics.forward')
    model = _model(name)
    rng = np.random.default_rng(11)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(7)])
    serial = kin.forward_kinematics(model, Q)
    data = kin.KinematicsData(model)
    kin.update_forward_kinematics(model, data, Q[3])
    monkeypatch.setattr(forward, 'PARALLEL_MIN_COMPOSITIONS', 1)
    pool, blocks = forward._workers()
    assert blocks == 1 or pool is not None
    assert np.array_equal(kin.forward_kinematics(model, Q), serial)
    assert np.array_equal(np.moveaxis(kin.forward_kinematics_soa(model, Q), -1, 0), serial)
    assert np.array_equal(kin.forward_kinematics(model, Q[:1]), serial[:1])
    X_PC = np.empty((1, model.joint_count, 4, 4))
    assert np.array_equal(forward.run_forward(kin.plan(model), Q[3:4].copy(), X_PC)[0],
                          serial[3])
    assert np.array_equal(X_PC[0], data.X_PC)
    assert len(compiled_kernels().forward.signatures) == 1


def test_single_configuration_fast_paths_keep_the_checks() -> None:
    """The fast paths (kernel-ready ``q``) raise what the general path raises, in its order.

    NaN/inf in ``q`` is refused by FK and by the Jacobian even when poses are passed in; an
    unknown link or a bad ``X_WL`` falls back to the general checks (``q``'s error first).
    """
    model = _model('panda')
    q = np.asarray(model.default_positions, dtype=np.float64).copy()
    X = kin.forward_kinematics(model, q)
    tip = 'panda_hand_tcp'
    J = kin.jacobian(model, q, tip, X_WL=X)
    assert np.array_equal(J, kin.jacobian(model, q[None], tip)[0])
    assert np.array_equal(J, kin.jacobian(model, q, tip))
    assert np.array_equal(kin.fold_mimic_columns(model, J),
                          kin.fold_mimic_columns(model, J[None])[0])
    bad = q.copy()
    for value in (np.nan, np.inf):
        bad[2] = value
        with pytest.raises(InvalidArgumentError, match=r'forward_kinematics: q contains NaN'):
            kin.forward_kinematics(model, bad)
        with pytest.raises(InvalidArgumentError, match=r'jacobian: q contains NaN'):
            kin.jacobian(model, bad, tip, X_WL=X)
        with pytest.raises(InvalidArgumentError, match=r'jacobian: q contains NaN'):
            kin.jacobian(model, bad, tip)
        with pytest.raises(InvalidArgumentError, match=r'jacobian: q contains NaN'):
            kin.jacobian(model, bad, 'no_such_link')
    with pytest.raises(UnknownNameError):
        kin.jacobian(model, q, 'no_such_link', X_WL=X)
    with pytest.raises(InvalidArgumentError, match=r'X_WL must have shape'):
        kin.jacobian(model, q, tip, X_WL=X[:-1].copy())
    assert np.array_equal(kin.jacobian(model, q, tip, X_WL=np.asfortranarray(X)), J)


@pytest.mark.parametrize('name', ROBOTS)
def test_forward_kinematics_and_jacobian_is_the_three_calls(name: str) -> None:
    """The one-call FK + Jacobian is bitwise ``forward_kinematics``, ``jacobian``, the fold.

    Every link (the root's Jacobian is all zeros), folded or not, from kernel-ready and other
    ``q`` (lists, read-only, strided: the general single path; all_joint_types and
    default_robot have multi-DOF joints, so never the fast path); a batch equals the single
    calls.
    """
    model = _model(name)
    rng = np.random.default_rng(13)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(3)])
    read_only = Q[1].copy()
    read_only.setflags(write=False)
    links = range(model.link_count) if model.link_count <= 16 else range(0, model.link_count, 7)
    for fold in (True, False):
        for li in links:
            X_b, J_b = kin.forward_kinematics_and_jacobian(model, Q[None], li, fold_mimic=fold)
            assert X_b.shape == (1, 3, model.link_count, 4, 4)
            assert J_b.shape == (1, 3, 6, model.nv)
            for n, q in ((0, Q[0]), (1, read_only), (2, np.asfortranarray(Q)[2]),
                         (2, Q[2].tolist())):
                X, J = kin.forward_kinematics_and_jacobian(model, q, model.link_names[li],
                                                           fold_mimic=fold)
                X3 = kin.forward_kinematics(model, q)
                J3 = kin.jacobian(model, q, li, X_WL=X3)
                if fold:
                    J3 = kin.fold_mimic_columns(model, J3)
                assert np.array_equal(X, X3) and np.array_equal(J, J3), (li, fold)
                assert np.abs(X_b[0, n] - X).max() <= SAME
                assert np.abs(J_b[0, n] - J).max() <= SAME
    assert len(compiled_kernels().forward_jacobian_one.signatures) == 1


def test_forward_kinematics_and_jacobian_refuses_bad_input() -> None:
    """Bad ``q`` or link: ``jacobian``'s typed errors, ``q``'s first, on both paths."""
    model = _model('panda')
    q = np.asarray(model.default_positions, dtype=np.float64).copy()
    tip = 'panda_hand_tcp'
    kin.forward_kinematics_and_jacobian(model, q, tip)  # binds the entry point
    bad = q.copy()
    for value in (np.nan, np.inf, -np.inf):
        bad[3] = value
        for arg in (bad, bad.tolist(), bad[None]):
            for link in (tip, model.link_index(tip), 'no_such_link'):
                with pytest.raises(InvalidArgumentError, match=r'q contains NaN or inf'):
                    kin.forward_kinematics_and_jacobian(model, arg, link)
                with pytest.raises(InvalidArgumentError, match=r'q contains NaN or inf'):
                    kin.jacobian(model, arg, link)
    for arg in (q, q.tolist(), q[None]):
        with pytest.raises(UnknownNameError, match='no_such_link'):
            kin.forward_kinematics_and_jacobian(model, arg, 'no_such_link')
        with pytest.raises(InvalidIndexError):
            kin.forward_kinematics_and_jacobian(model, arg, model.link_count)
        with pytest.raises(InvalidIndexError):
            kin.forward_kinematics_and_jacobian(model, arg, -1)
        with pytest.raises(InvalidTypeError):
            kin.forward_kinematics_and_jacobian(model, arg, 2.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r'q must have shape'):
        kin.forward_kinematics_and_jacobian(model, q[:-1].copy(), tip)
    with pytest.raises(InvalidArgumentError, match=r'q is not numeric'):
        kin.forward_kinematics_and_jacobian(model, ['a'] * model.nq, tip)
    floating = _model('all_joint_types')  # multi-DOF: the general single path
    q_f = np.asarray(floating.default_positions, dtype=np.float64).copy()
    q_f[0] = np.nan
    with pytest.raises(InvalidArgumentError, match=r'q contains NaN or inf'):
        kin.forward_kinematics_and_jacobian(floating, q_f, floating.link_count - 1)
    q_f = np.asarray(floating.default_positions, dtype=np.float64).copy()
    quat = kin.plan(floating).floating_q[0, 3:]
    q_f[quat] = 0.0  # a degenerate quaternion (decisions.md H1), single and batched
    for arg in (q_f, q_f[None]):
        with pytest.raises(InvalidArgumentError, match=r"FLOATING joint 'float'"):
            kin.forward_kinematics_and_jacobian(floating, arg, floating.link_count - 1)


def test_large_outputs_reuse_only_memory_no_caller_references(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A batched FK output reuses a dropped earlier output's memory, never one still in use.

    Thresholds lowered so small batches are pooled: a result, or any view of it, keeps its
    buffer out of reuse; a dropped one is reused; the pool keeps within its byte cap; every
    result is the kernel's poses.
    """
    forward = importlib.import_module('robot_state_core.kinematics.forward')
    model = _model('panda')
    rng = np.random.default_rng(3)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(5)])
    expected = kin.forward_kinematics(model, Q)
    nbytes = expected.nbytes
    monkeypatch.setattr(forward, 'POOLED_OUTPUT_MIN_BYTES', 1024)
    monkeypatch.setattr(forward, 'POOLED_OUTPUT_MAX_BYTES', 3 * nbytes)
    monkeypatch.setattr(forward, '_pool', [])

    def address(X: np.ndarray) -> int:
        return int(X.__array_interface__['data'][0])

    first = kin.forward_kinematics(model, Q)
    second = kin.forward_kinematics(model, Q)
    assert not np.shares_memory(first, second)
    view = first[2]
    kept = address(first)
    del first
    third = kin.forward_kinematics(model, Q)
    assert not np.shares_memory(third, view)  # a view keeps its buffer in use
    assert np.array_equal(view, expected[2])
    del view
    reused = kin.forward_kinematics(model, Q)
    assert address(reused) == kept  # dropped everywhere: reused
    for X in (second, third, reused):
        assert np.array_equal(X, expected)
    held = [kin.forward_kinematics(model, Q) for _ in range(3)]  # beyond the cap: not pooled
    assert sum(b.nbytes for b in forward._pool) <= 3 * nbytes
    assert all(np.array_equal(X, expected) for X in held)
    soa = kin.forward_kinematics_soa(model, Q)
    assert np.array_equal(np.moveaxis(soa, -1, 0), expected)
