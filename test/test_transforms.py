"""Batched SE(3)/SO(3) kernels: round trips, batch == loop, conventions."""

from __future__ import annotations

import numpy as np
import pytest

from robot_state_core.spatial import transforms as tf

TOL = 1e-12


def _rx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def test_rpy_is_fixed_axis_zyx_composition() -> None:
    """R(rpy) = Rz(yaw) Ry(pitch) Rx(roll), the URDF convention, for a batch of angles."""
    rng = np.random.default_rng(0)
    rpy = rng.uniform(-np.pi, np.pi, size=(50, 3))
    R = tf.rotation_from_rpy(rpy)
    expected = np.stack([_rz(y) @ _ry(p) @ _rx(r) for r, p, y in rpy])
    np.testing.assert_allclose(R, expected, atol=TOL)


@pytest.mark.parametrize('shape', [(), (7,), (3, 5)])
def test_quaternion_round_trip_any_batch_shape(shape: tuple[int, ...]) -> None:
    """R -> quat_xyzw -> R is the identity, w >= 0, unit norm, for any batch shape."""
    rng = np.random.default_rng(1)
    q = rng.normal(size=(*shape, 4))
    R = tf.rotation_from_quat_xyzw(q)
    q2 = tf.quat_xyzw_from_rotation(R)
    assert q2.shape == (*shape, 4)
    np.testing.assert_allclose(np.linalg.norm(q2, axis=-1), 1.0, atol=TOL)
    assert np.all(q2[..., 3] >= 0)
    np.testing.assert_allclose(tf.rotation_from_quat_xyzw(q2), R, atol=1e-12)


def test_quaternion_branches_near_pi_rotations() -> None:
    """Rotations by ~pi about each axis (where the trace branch fails) convert exactly."""
    for axis_matrix, expected in ((_rx(np.pi), [1, 0, 0, 0]), (_ry(np.pi), [0, 1, 0, 0]),
                                  (_rz(np.pi), [0, 0, 1, 0])):
        q = tf.quat_xyzw_from_rotation(axis_matrix)
        assert np.allclose(np.abs(q), expected, atol=TOL)


def test_single_rotation_and_quaternion_bitwise_equal_batch() -> None:
    """One (3, 3) / one (4,) takes the plain-float path: bit for bit the batch's numbers.

    Random rotations (every Shepperd branch: rotations near pi about each axis, near the
    identity), non-unit quaternions with negative w, and a non-rotation matrix; NaN/inf input
    keeps the array path (NaN out).
    """
    rng = np.random.default_rng(12)
    quats = np.concatenate([rng.normal(size=(2000, 4)) * rng.uniform(1e-3, 1e3, (2000, 1)),
                            [[1, 0, 0, 1e-9], [0, 1, 0, -1e-9], [0, 0, 1, 1e-9],
                             [1e-9, 0, 0, 1], [0, 0, 0, -1], [0.5, 0.5, 0.5, 0.5]]])
    R_batch = tf.rotation_from_quat_xyzw(quats)
    mats = np.concatenate([R_batch, [_rx(np.pi), _ry(np.pi), _rz(np.pi), np.eye(3),
                                     np.diag([2.0, 0.5, 1.0]), -np.eye(3)]])
    q_batch = tf.quat_xyzw_from_rotation(mats)
    for i, q in enumerate(quats):
        R = tf.rotation_from_quat_xyzw(q)
        assert R.shape == (3, 3) and R.dtype == np.float64
        assert np.array_equal(R, R_batch[i]), i
    for i, m in enumerate(mats):
        q = tf.quat_xyzw_from_rotation(m)
        assert q.shape == (4,) and q.dtype == np.float64
        assert np.array_equal(q, q_batch[i]) and np.array_equal(np.signbit(q),
                                                                 np.signbit(q_batch[i])), i
    with np.errstate(invalid='ignore'):
        assert np.isnan(tf.quat_xyzw_from_rotation(np.full((3, 3), np.nan))).all()
        assert np.isnan(tf.rotation_from_quat_xyzw([np.nan, 0.0, 0.0, 1.0])).all()


def test_quaternion_order_helpers() -> None:
    """Xyzw <-> wxyz reorder is a pure permutation and round trips."""
    q = np.array([0.1, 0.2, 0.3, 0.9])
    np.testing.assert_array_equal(tf.quat_wxyz_from_xyzw(q), [0.9, 0.1, 0.2, 0.3])
    np.testing.assert_array_equal(tf.quat_xyzw_from_wxyz(tf.quat_wxyz_from_xyzw(q)), q)


def test_pose_from_xyz_rpy_batch_equals_loop() -> None:
    """Batched pose construction equals per-element construction bit for bit."""
    rng = np.random.default_rng(2)
    xyz, rpy = rng.normal(size=(10, 3)), rng.normal(size=(10, 3))
    X = tf.pose_from_xyz_rpy(xyz, rpy)
    for i in range(10):
        np.testing.assert_array_equal(X[i], tf.pose_from_xyz_rpy(xyz[i], rpy[i]))
    np.testing.assert_array_equal(X[:, 3], np.tile([0, 0, 0, 1.0], (10, 1)))
    np.testing.assert_array_equal(X[:, :3, 3], xyz)
