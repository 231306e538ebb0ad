"""Drake's RpyFloatingJoint (seed 001): kernels, q̇ ↔ v maps, singularity, joint class."""

from __future__ import annotations

from collections.abc import Callable
import math
import warnings

import numpy as np
import pytest

from robot_state_core.description.joint_types.rpy_floating import (
    rpy_floating_map_qdot_to_velocity,
    rpy_floating_map_velocity_to_qdot,
    rpy_floating_pose,
    rpy_floating_qdot_to_velocity_matrix,
    rpy_floating_velocity_to_qdot_matrix,
    rpy_from_rotation,
    RPY_SINGULARITY_COS_TOL,
    RPY_WARNING_COS_TOL,
)
from robot_state_core.description.joints import JointType
from robot_state_core.errors import RobotStateCoreError, SingularityError
from robot_state_core.model.rpy_floating import JointContext, RpyFloatingJoint

TOL = 1e-12
'''Exact-arithmetic comparisons (a few ulps of O(1) values).'''
INVERSE_TOL = 1e-9
'''N·N⁺ = I at pitch up to 0.1 rad from the singularity (condition number ~1/cos(pitch)).'''
FD_STEP = 1e-6
'''Central-difference step [s] for Ṙ.'''
FD_TOL = 1e-8
'''Central differences: O(h²) truncation plus O(eps/h) round-off.'''
GIMBAL_REBUILD_TOL = 1e-15
'''rpy_from_rotation rebuilds R to rounding, at and next to the gimbal lock (Drake's algorithm).'''
SEED = 20240611
SENTINEL = 42.0
'''Context entries outside the joint's slice are filled with this and must not change.'''

PITCH_MARGIN = 0.1
'''Random test configurations keep |pitch ∓ π/2| >= this [rad].'''


# ------------------------------------------------------------------------------------------------
# Independent reference: rotations as quaternion products of axis-angle rotations


def _quat_wxyz(axis: np.ndarray, angle: float) -> np.ndarray:
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * np.asarray(axis)])


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w1, v1, w2, v2 = a[0], a[1:], b[0], b[1:]
    return np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])


def _quat_rotate(quat: np.ndarray, vector: np.ndarray) -> np.ndarray:
    conj = quat * np.array([1.0, -1.0, -1.0, -1.0])
    return _quat_mul(_quat_mul(quat, np.concatenate([[0.0], vector])), conj)[1:]


def _reference_rotation(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """R_FM as the composition yaw about Fz ∘ pitch about Fy ∘ roll about Fx (extrinsic xyz)."""
    ex, ey, ez = np.eye(3)
    quat = _quat_mul(_quat_mul(_quat_wxyz(ez, yaw), _quat_wxyz(ey, pitch)), _quat_wxyz(ex, roll))
    return np.stack([_quat_rotate(quat, e) for e in np.eye(3)], axis=-1)


def _reference_rotations(angles: np.ndarray) -> np.ndarray:
    """``_reference_rotation`` for ``(n, 3)`` angles at once: ``(n, 3, 3)``."""
    half = 0.5 * np.asarray(angles, dtype=np.float64)
    (cr, cp, cy), (sr, sp, sy) = np.cos(half).T, np.sin(half).T
    # quaternion of qz(yaw) * qy(pitch) * qx(roll), Hamilton product written out
    w = cy * cp * cr + sy * sp * sr
    x = cy * cp * sr - sy * sp * cr
    y = cy * sp * cr + sy * cp * sr
    z = sy * cp * cr - cy * sp * sr
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)


def _random_q(rng: np.random.Generator, shape: tuple[int, ...] = ()) -> np.ndarray:
    """Random rpy_floating positions with pitch at least PITCH_MARGIN from ±π/2."""
    q = rng.uniform(-np.pi, np.pi, size=(*shape, 6))
    q[..., 1] = rng.uniform(-np.pi / 2 + PITCH_MARGIN, np.pi / 2 - PITCH_MARGIN, size=shape)
    q[..., 3:6] = rng.normal(size=(*shape, 3))
    return q


def _vee(S: np.ndarray) -> np.ndarray:
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2.0


# ------------------------------------------------------------------------------------------------
# Kernels: pose and angle extraction


def test_pose_matches_quaternion_composition() -> None:
    """X_FM(q): rotation Rz(yaw)Ry(pitch)Rx(roll) built independently, translation q[3:6]."""
    rng = np.random.default_rng(SEED)
    q = rng.uniform(-2 * np.pi, 2 * np.pi, size=(40, 6))
    X = rpy_floating_pose(q)
    assert X.shape == (40, 4, 4)
    for Xi, qi in zip(X, q, strict=True):
        np.testing.assert_allclose(Xi[:3, :3], _reference_rotation(*qi[:3]), atol=TOL)
        np.testing.assert_allclose(Xi[:3, 3], qi[3:6], atol=0)
        np.testing.assert_array_equal(Xi[3], [0.0, 0.0, 0.0, 1.0])


def test_pose_angles_come_first_and_zero_is_identity() -> None:
    """Angles come first in q: a pure roll rotates about x; zero angles give R = I."""
    X = rpy_floating_pose([np.pi / 2, 0.0, 0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(X[:3, :3] @ [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], atol=TOL)
    np.testing.assert_allclose(X[:3, 3], [1.0, 2.0, 3.0], atol=0)
    np.testing.assert_allclose(rpy_floating_pose([0.0, 0.0, 0.0, 4.0, 5.0, 6.0])[:3, :3],
                               np.eye(3), atol=0)


@pytest.mark.parametrize('shape', [(), (7,), (3, 4)])
def test_pose_batch_equals_loop(shape: tuple[int, ...]) -> None:
    """Any leading batch shape gives the same poses as one call per configuration."""
    rng = np.random.default_rng(SEED + 1)
    q = rng.uniform(-np.pi, np.pi, size=(*shape, 6))
    X = rpy_floating_pose(q)
    assert X.shape == (*shape, 4, 4)
    flat = q.reshape(-1, 6)
    looped = np.stack([rpy_floating_pose(qi) for qi in flat]).reshape(*shape, 4, 4)
    np.testing.assert_array_equal(X, looped)


@pytest.mark.parametrize('shape', [(), (50,), (4, 5)])
def test_rpy_from_rotation_round_trip_away_from_singularity(shape: tuple[int, ...]) -> None:
    """Angles with pitch in (-π/2, π/2) and roll, yaw in (-π, π) are recovered exactly."""
    rng = np.random.default_rng(SEED + 2)
    angles = _random_q(rng, shape)[..., :3]
    R = rpy_floating_pose(np.concatenate([angles, np.zeros((*shape, 3))], axis=-1))[..., :3, :3]
    recovered = rpy_from_rotation(R)
    assert recovered.shape == (*shape, 3)
    np.testing.assert_allclose(recovered, angles, atol=1e-10)


def test_rpy_from_rotation_returns_principal_angles_for_any_input() -> None:
    """Angles outside the principal ranges map to principal angles of the same rotation."""
    rng = np.random.default_rng(SEED + 3)
    angles = rng.uniform(-3 * np.pi, 3 * np.pi, size=(200, 3))
    R = rpy_floating_pose(np.concatenate([angles, np.zeros((200, 3))], axis=-1))[..., :3, :3]
    recovered = rpy_from_rotation(R)
    assert np.all(np.abs(recovered[:, 1]) <= np.pi / 2)
    assert np.all(np.abs(recovered[:, [0, 2]]) <= np.pi)
    R_again = rpy_floating_pose(np.concatenate([recovered, np.zeros((200, 3))], axis=-1))
    np.testing.assert_allclose(R_again[..., :3, :3], R, atol=1e-10)


def _principal(angle: float) -> float:
    """``angle`` wrapped into (-π, π]."""
    return math.pi - (math.pi - angle) % (2 * math.pi)


def _locked_rotation(pitch_sign: float, phi: float) -> np.ndarray:
    """R at pitch = ±π/2 exactly (exact zeros), closed form.

    ``Rz(y)Ry(π/2)Rx(r)`` depends only on ``φ = y - r``; ``Rz(y)Ry(-π/2)Rx(r)`` only on
    ``φ = y + r``.
    """
    s, c = math.sin(phi), math.cos(phi)
    if pitch_sign > 0:
        return np.array([[0.0, -s, c], [0.0, c, s], [-1.0, 0.0, 0.0]])
    return np.array([[0.0, -s, -c], [0.0, c, -s], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize('pitch', [np.pi / 2, -np.pi / 2])
def test_rpy_from_rotation_splits_the_angle_at_the_gimbal_lock_as_drake(pitch: float) -> None:
    """At pitch = ±π/2 the determined angle is split evenly, as Drake's RollPitchYaw(R) does.

    Only yaw - roll (pitch = +π/2) or yaw + roll (pitch = -π/2) is determined there. Drake
    (math/roll_pitch_yaw.cc, CalcRollPitchYawFromQuaternionAndRotationMatrix) sets the
    undetermined half-angle to 0: +π/2 gives roll = -(yaw - roll)/2, yaw = +(yaw - roll)/2;
    -π/2 gives roll = yaw = (roll + yaw)/2, with the determined angle in [-π, π].
    """
    rng = np.random.default_rng(SEED + 4)
    for roll, yaw in rng.uniform(-np.pi, np.pi, size=(20, 2)):
        phi = _principal(yaw - roll if pitch > 0 else yaw + roll)
        R = _locked_rotation(pitch, phi)
        np.testing.assert_allclose(R, _reference_rotation(roll, pitch, yaw), atol=1e-15)
        r, p, y = rpy_from_rotation(R)
        assert p == pitch
        expected = (-phi / 2, phi / 2) if pitch > 0 else (phi / 2, phi / 2)
        assert (r, y) == pytest.approx(expected, rel=0, abs=1e-15)
        np.testing.assert_allclose(_reference_rotation(r, p, y), R, rtol=0,
                                   atol=GIMBAL_REBUILD_TOL)


@pytest.mark.parametrize('offset', [0.0, 1e-16, 1e-15, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3])
@pytest.mark.parametrize('sign', [1.0, -1.0])
def test_rpy_from_rotation_rebuilds_rotation_near_the_gimbal_lock(offset: float,
                                                                   sign: float) -> None:
    """rpy_floating_pose(rpy_from_rotation(R)) = R to 1e-15 at any distance from the lock.

    R = Rz(y)Ry(p)Rx(r) is built by the product formula (as Drake's RotationMatrix(RollPitchYaw)
    does); |roll|, |yaw| <= π/2. The old extraction (roll = 0 below |cos(pitch)| = 1e-8, else
    atan2 of cos-scaled entries) rebuilt R only to ~|cos(pitch)|: 2e-10 at 1e-10 rad from the
    lock. Angles up to π: see the next test.
    """
    rng = np.random.default_rng(SEED + 40)
    q = np.zeros((2000, 6))
    q[:, :3] = rng.uniform(-np.pi / 2, np.pi / 2, size=(2000, 3))
    q[:, 1] = sign * (np.pi / 2 - offset)
    R = rpy_floating_pose(q)[:, :3, :3]
    q[:, :3] = rpy_from_rotation(R)
    np.testing.assert_allclose(rpy_floating_pose(q)[:, :3, :3], R, rtol=0,
                               atol=GIMBAL_REBUILD_TOL)


def test_rpy_from_rotation_rebuild_error_is_at_the_one_ulp_floor_for_any_angles() -> None:
    """Any roll and yaw, R from the independent quaternion composition, near the lock.

    Rebuilding cannot beat rounding: changing roll and yaw by one ulp (4.4e-16 at π) already
    moves R by up to ~1.2e-15. The rebuild error stays within twice that floor (measured:
    1.4e-15 over 2·10⁶ such rotations).
    """
    rng = np.random.default_rng(SEED + 41)
    angles = rng.uniform(-np.pi, np.pi, size=(20000, 3))
    angles[:, 1] = np.where(np.arange(20000) % 2, 1.0, -1.0) * (
        np.pi / 2 - 10.0 ** -rng.uniform(0, 16, size=20000))
    R = _reference_rotations(angles)
    rebuilt = _reference_rotations(rpy_from_rotation(R))
    one_ulp = angles.copy()
    one_ulp[:, 0] = np.nextafter(one_ulp[:, 0], 9.0)
    one_ulp[:, 2] = np.nextafter(one_ulp[:, 2], -9.0)
    floor = float(np.max(np.abs(_reference_rotations(one_ulp) - R)))
    assert floor < 2e-15
    assert float(np.max(np.abs(rebuilt - R))) <= 2.0 * floor


# ------------------------------------------------------------------------------------------------
# Kernels: q̇ ↔ v maps


def test_qdot_to_velocity_matches_finite_differences() -> None:
    """N⁺(q)·q̇ = [ω; ṗ] with ω^ = Ṙ Rᵀ (expressed in F), by central differences of R(q(t))."""
    rng = np.random.default_rng(SEED + 5)
    for _ in range(25):
        q = _random_q(rng)
        qdot = rng.normal(size=6)
        R_plus = rpy_floating_pose(q + FD_STEP * qdot)[:3, :3]
        R_minus = rpy_floating_pose(q - FD_STEP * qdot)[:3, :3]
        R_dot = (R_plus - R_minus) / (2 * FD_STEP)
        w_FM = _vee(R_dot @ rpy_floating_pose(q)[:3, :3].T)
        v = rpy_floating_qdot_to_velocity_matrix(q) @ qdot
        np.testing.assert_allclose(v[:3], w_FM, atol=FD_TOL)
        np.testing.assert_allclose(v[3:], qdot[3:], atol=0)
        np.testing.assert_allclose(rpy_floating_map_qdot_to_velocity(q, qdot), v, atol=TOL)


def test_velocity_to_qdot_matrix_is_the_inverse() -> None:
    """N·N⁺ = N⁺·N = I at random non-singular q, for a (3, 4) batch."""
    rng = np.random.default_rng(SEED + 6)
    q = _random_q(rng, (3, 4))
    N_plus = rpy_floating_qdot_to_velocity_matrix(q)
    N = rpy_floating_velocity_to_qdot_matrix(q)
    assert N_plus.shape == N.shape == (3, 4, 6, 6)
    eye = np.broadcast_to(np.eye(6), N.shape)
    np.testing.assert_allclose(N @ N_plus, eye, atol=INVERSE_TOL)
    np.testing.assert_allclose(N_plus @ N, eye, atol=INVERSE_TOL)
    np.testing.assert_array_equal(N_plus[..., 3:, 3:], eye[..., 3:, 3:])
    np.testing.assert_array_equal(N_plus[..., :3, 3:], 0.0)
    np.testing.assert_array_equal(N_plus[..., 3:, :3], 0.0)


def test_qdot_to_velocity_matrix_matches_seed_formula() -> None:
    """The angular block is E_F = [[cy·cp, -sy, 0], [sy·cp, cy, 0], [-sp, 0, 1]] (seed §1.5)."""
    roll, pitch, yaw = 0.3, -0.8, 2.1
    cp, sp, cy, sy = math.cos(pitch), math.sin(pitch), math.cos(yaw), math.sin(yaw)
    E_F = np.array([[cy * cp, -sy, 0.0], [sy * cp, cy, 0.0], [-sp, 0.0, 1.0]])
    N_plus = rpy_floating_qdot_to_velocity_matrix([roll, pitch, yaw, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(N_plus[:3, :3], E_F, atol=TOL)


def test_maps_equal_matrices_and_round_trip_with_broadcasting() -> None:
    """map_* equal the matrices applied to vectors; q (5, 6) broadcasts against v (6,)."""
    rng = np.random.default_rng(SEED + 7)
    q = _random_q(rng, (5,))
    v = rng.normal(size=6)
    qdot = rpy_floating_map_velocity_to_qdot(q, v)
    assert qdot.shape == (5, 6)
    np.testing.assert_allclose(qdot, rpy_floating_velocity_to_qdot_matrix(q) @ v, atol=1e-10)
    np.testing.assert_allclose(rpy_floating_map_qdot_to_velocity(q, qdot),
                               np.broadcast_to(v, (5, 6)), atol=1e-10)
    single = rpy_floating_map_velocity_to_qdot(q[2], v)
    np.testing.assert_allclose(single, qdot[2], atol=TOL)


@pytest.mark.parametrize('function', [rpy_floating_pose, rpy_floating_qdot_to_velocity_matrix,
                                      rpy_floating_velocity_to_qdot_matrix])
@pytest.mark.parametrize('bad', [np.zeros(5), np.zeros((2, 7)), np.float64(1.0)])
def test_kernels_reject_wrong_q_shape(function: Callable[[object], np.ndarray],
                                      bad: np.ndarray) -> None:
    """Shape errors name the expected (..., 6) shape."""
    with pytest.raises(ValueError, match=r'q must have shape \(\.\.\., 6\)'):
        function(bad)


def test_map_kernels_reject_wrong_shapes() -> None:
    """Vector and broadcast errors in the maps are ValueErrors naming the argument."""
    with pytest.raises(ValueError, match=r'qdot must have shape \(\.\.\., 6\)'):
        rpy_floating_map_qdot_to_velocity(np.zeros(6), np.zeros(3))
    with pytest.raises(ValueError, match=r'v must have shape \(\.\.\., 6\)'):
        rpy_floating_map_velocity_to_qdot(np.zeros(6), np.zeros(7))
    with pytest.raises(ValueError, match='does not broadcast'):
        rpy_floating_map_velocity_to_qdot(np.zeros((2, 6)), np.zeros((3, 6)))
    with pytest.raises(ValueError, match=r'R must have shape \(\.\.\., 3, 3\)'):
        rpy_from_rotation(np.eye(4))


@pytest.mark.parametrize('pitch', [np.pi / 2, -np.pi / 2, 3 * np.pi / 2, np.pi / 2 + 5e-4])
def test_velocity_to_qdot_raises_at_the_singularity(pitch: float) -> None:
    """|cos(pitch)| < 1e-3 raises SingularityError naming the singularity, pitch and remedy."""
    q = np.array([0.2, pitch, -0.4, 0.0, 0.0, 0.0])
    calls: list[Callable[[], object]] = [
        lambda: rpy_floating_velocity_to_qdot_matrix(q),
        lambda: rpy_floating_map_velocity_to_qdot(q, np.ones(6))]
    for call in calls:
        with pytest.raises(SingularityError) as info:
            call()
        message = str(info.value)
        assert 'gimbal-lock' in message
        assert 'π/2 + kπ' in message
        assert f'{pitch:.9g}' in message
        assert 'quaternion FLOATING joint' in message
        assert info.value.values == pytest.approx((pitch,))
        assert isinstance(info.value, ArithmeticError)
        assert isinstance(info.value, RobotStateCoreError)
    N_plus = rpy_floating_qdot_to_velocity_matrix(q)
    assert np.all(np.isfinite(N_plus))
    # The roll and yaw axes (nearly) coincide: numerically rank 5.
    assert np.linalg.matrix_rank(N_plus, tol=RPY_SINGULARITY_COS_TOL) == 5


def test_singularity_error_lists_only_offending_batch_entries() -> None:
    """In a batch, the message and .values carry only the singular pitches."""
    q = np.zeros((4, 6))
    q[:, 1] = [0.0, np.pi / 2, 0.5, -np.pi / 2]
    with pytest.raises(SingularityError) as info:
        rpy_floating_map_velocity_to_qdot(q, np.ones(6))
    assert info.value.values == pytest.approx((np.pi / 2, -np.pi / 2))
    assert '0.5' not in str(info.value)


def test_velocity_to_qdot_defined_just_outside_the_guard() -> None:
    """With |cos(pitch)| = 2·tolerance the map is finite and still inverts N⁺."""
    pitch = math.acos(2 * RPY_SINGULARITY_COS_TOL)
    q = np.array([0.1, pitch, 0.2, 0.0, 0.0, 0.0])
    N = rpy_floating_velocity_to_qdot_matrix(q)
    assert np.all(np.isfinite(N))
    np.testing.assert_allclose(N @ rpy_floating_qdot_to_velocity_matrix(q), np.eye(6),
                               atol=1e-9)


# ------------------------------------------------------------------------------------------------
# Joint class: identity, layout, damping, limits


def _joint(**kwargs: float | int) -> RpyFloatingJoint:
    return RpyFloatingJoint('base', 'world', 'base_link', **kwargs)  # type: ignore[arg-type]


def test_identity_and_layout() -> None:
    """type_name 'rpy_floating', 6 q and 6 v, rotates and translates, starts as given."""
    joint = _joint(position_start=3, velocity_start=2)
    assert joint.type_name() == RpyFloatingJoint.TYPE_NAME == 'rpy_floating'
    assert joint.JOINT_TYPE is JointType.RPY_FLOATING
    assert (joint.name, joint.frame_on_parent, joint.frame_on_child) == (
        'base', 'world', 'base_link')
    assert (joint.num_positions(), joint.num_velocities()) == (6, 6)
    assert (joint.position_start(), joint.velocity_start()) == (3, 2)
    assert joint.can_rotate() and joint.can_translate()
    text = repr(joint)
    assert "name='base'" in text and 'position_start=3' in text and 'angular_damping=0.0' in text


def test_suffixes_and_index_errors() -> None:
    """Suffixes qx qy qz x y z / wx wy wz vx vy vz; indices outside [0, 6) raise IndexError."""
    joint = _joint()
    assert [joint.position_suffix(i) for i in range(6)] == ['qx', 'qy', 'qz', 'x', 'y', 'z']
    assert [joint.velocity_suffix(i) for i in range(6)] == ['wx', 'wy', 'wz', 'vx', 'vy', 'vz']
    for bad in (6, -1, 100):
        with pytest.raises(IndexError, match='out of range'):
            joint.position_suffix(bad)
        with pytest.raises(IndexError, match='out of range'):
            joint.velocity_suffix(bad)


@pytest.mark.parametrize('kwargs', [
    {'angular_damping': -0.1}, {'translational_damping': -1e-9},
    {'angular_damping': math.nan}, {'translational_damping': math.inf},
])
def test_constructor_rejects_bad_damping(kwargs: dict[str, float]) -> None:
    """Negative or non-finite damping raises ValueError (J-R1, J-D4)."""
    with pytest.raises(ValueError, match='damping must be finite and non-negative'):
        _joint(**kwargs)


@pytest.mark.parametrize('args', [('', 'world', 'b'), ('j', '', 'b'), ('j', 'world', '')])
def test_constructor_rejects_empty_names(args: tuple[str, str, str]) -> None:
    """The joint and frame names must be non-empty."""
    with pytest.raises(ValueError, match='non-empty string'):
        RpyFloatingJoint(*args)


def test_constructor_rejects_negative_starts() -> None:
    """position_start and velocity_start are non-negative ints."""
    with pytest.raises(ValueError, match='position_start'):
        _joint(position_start=-1)
    with pytest.raises(ValueError, match='velocity_start'):
        _joint(velocity_start=1.5)


def test_damping_vector_layout_and_setter() -> None:
    """Damping vector = [d_ang]*3 + [d_trans]*3; the setter validates size and sign."""
    joint = _joint(angular_damping=0.5, translational_damping=2.0)
    assert joint.default_angular_damping() == 0.5
    assert joint.default_translational_damping() == 2.0
    np.testing.assert_array_equal(joint.default_damping_vector(), [0.5] * 3 + [2.0] * 3)
    assert np.all(_joint().default_damping_vector() == 0.0)
    joint.set_default_damping_vector([1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(joint.default_damping_vector(), [1, 2, 3, 4, 5, 6])
    assert (joint.default_angular_damping(), joint.default_translational_damping()) == (1, 4)
    with pytest.raises(ValueError, match=r'shape \(6,\)'):
        joint.set_default_damping_vector([1.0] * 5)
    with pytest.raises(ValueError, match='non-negative'):
        joint.set_default_damping_vector([1.0] * 5 + [-1.0])
    with pytest.raises(ValueError, match='finite'):
        joint.set_default_damping_vector([1.0] * 5 + [math.nan])
    np.testing.assert_array_equal(joint.default_damping_vector(), [1, 2, 3, 4, 5, 6])


def test_damping_forces_oppose_velocity() -> None:
    """τ = -d_ang·w_FM, f = -d_trans·v_FM; add_in_damping adds into the joint's v slice."""
    joint = _joint(angular_damping=0.5, translational_damping=2.0, velocity_start=1)
    context = JointContext.zeros(6, 8)
    joint.set_velocities(context, [1.0, -2.0, 3.0, 0.5, 0.25, -1.0])
    expected = np.array([-0.5, 1.0, -1.5, -1.0, -0.5, 2.0])
    np.testing.assert_allclose(joint.damping_forces(context), expected, atol=TOL)
    forces = np.full(8, 10.0)
    joint.add_in_damping(context, forces)
    np.testing.assert_allclose(forces, np.concatenate([[10.0], 10.0 + expected, [10.0]]),
                               atol=TOL)
    with pytest.raises(ValueError, match='needs'):
        joint.add_in_damping(context, np.zeros(4))


def test_non_uniform_damping_vector_uses_elements_0_and_3_as_drake() -> None:
    """A non-uniform damping vector: τ = -d[0]·w_FM, f = -d[3]·v_FM, as in Drake.

    Drake's RpyFloatingJoint::DoAddInDamping reads GetDampingVector(context)[0] for all three
    angular and [3] for all three translational components; the seed's formula
    τ = -default_angular_damping()·ω says the same. The other elements are stored unused.
    """
    joint = _joint()
    joint.set_default_damping_vector([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    context = JointContext.zeros(6, 6)
    w, v = np.array([0.1, 0.2, 0.3]), np.array([0.4, 0.5, 0.6])
    joint.set_angular_velocity(context, w).set_translational_velocity(context, v)
    expected = np.concatenate([-1.0 * w, -4.0 * v])
    np.testing.assert_array_equal(joint.damping_forces(context), expected)
    np.testing.assert_array_equal(joint.damping_forces(context)[0:3],
                                  -joint.default_angular_damping() * w)
    np.testing.assert_array_equal(joint.default_damping_vector(), [1, 2, 3, 4, 5, 6])
    forces = np.zeros(6)
    joint.add_in_damping(context, forces)
    np.testing.assert_array_equal(forces, expected)


def test_per_dof_force_and_single_dof_access_raise() -> None:
    """add_in_one_force (J-G8) and get_one_position/velocity (J-G7) are unsupported."""
    joint = _joint()
    context = JointContext.zeros(6, 6)
    with pytest.raises(TypeError, match='not supported by rpy_floating'):
        joint.add_in_one_force(context, 0, 1.0, np.zeros(6))
    with pytest.raises(TypeError, match='single degree of freedom'):
        joint.get_one_position(context)
    with pytest.raises(TypeError, match='single degree of freedom'):
        joint.get_one_velocity(context)


def test_no_limits_by_default() -> None:
    """Position, velocity and acceleration limits are all (-inf, inf), size 6 (J-R1)."""
    joint = _joint()
    for lower, upper in ((joint.position_lower_limits(), joint.position_upper_limits()),
                         (joint.velocity_lower_limits(), joint.velocity_upper_limits()),
                         (joint.acceleration_lower_limits(), joint.acceleration_upper_limits())):
        assert lower.shape == upper.shape == (6,)
        assert np.all(lower == -np.inf) and np.all(upper == np.inf)


@pytest.mark.parametrize('kind', ['position', 'velocity', 'acceleration'])
def test_limit_setters_store_and_validate(kind: str) -> None:
    """Setters store copies; wrong shape, NaN and lower > upper raise ValueError."""
    joint = _joint()
    setter = getattr(joint, f'set_{kind}_limits')
    lower, upper = np.arange(6.0) - 10, np.arange(6.0)
    upper[0] = np.inf
    setter(lower, upper)
    lower[:] = 0.0  # the joint must have copied
    np.testing.assert_array_equal(getattr(joint, f'{kind}_lower_limits')(), np.arange(6.0) - 10)
    np.testing.assert_array_equal(getattr(joint, f'{kind}_upper_limits')()[1:],
                                  np.arange(6.0)[1:])
    with pytest.raises(ValueError, match=r'shape \(6,\)'):
        setter(np.zeros(5), np.ones(5))
    with pytest.raises(ValueError, match='NaN'):
        setter(np.full(6, math.nan), np.ones(6))
    with pytest.raises(ValueError, match=r'lower_limits > upper_limits at indices \[2\]'):
        setter(np.array([0, 0, 2, 0, 0, 0.0]), np.ones(6))
    np.testing.assert_array_equal(getattr(joint, f'{kind}_lower_limits')(), np.arange(6.0) - 10)


# ------------------------------------------------------------------------------------------------
# Joint class: context accessors


def _sentinel_context(nq: int = 10, nv: int = 9) -> JointContext:
    return JointContext(np.full(nq, SENTINEL), np.full(nv, SENTINEL))


def test_context_accessors_round_trip_at_nonzero_start() -> None:
    """Every accessor reads/writes only [start : start + 6]; setters chain."""
    joint = _joint(position_start=3, velocity_start=2)
    context = _sentinel_context()
    angles, p_FM = np.array([0.1, -0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    w_FM, v_FM = np.array([0.4, 0.5, 0.6]), np.array([-1.0, -2.0, -3.0])
    result = (joint.set_angles(context, angles).set_translation(context, p_FM)
              .set_angular_velocity(context, w_FM).set_translational_velocity(context, v_FM))
    assert result is joint
    np.testing.assert_array_equal(context.positions[3:9], np.concatenate([angles, p_FM]))
    np.testing.assert_array_equal(context.velocities[2:8], np.concatenate([w_FM, v_FM]))
    assert np.all(np.delete(context.positions, range(3, 9)) == SENTINEL)
    assert np.all(np.delete(context.velocities, range(2, 8)) == SENTINEL)
    np.testing.assert_array_equal(joint.get_angles(context), angles)
    np.testing.assert_array_equal(joint.get_translation(context), p_FM)
    np.testing.assert_array_equal(joint.get_angular_velocity(context), w_FM)
    np.testing.assert_array_equal(joint.get_translational_velocity(context), v_FM)
    np.testing.assert_array_equal(joint.get_positions(context), np.concatenate([angles, p_FM]))
    np.testing.assert_array_equal(joint.get_velocities(context), np.concatenate([w_FM, v_FM]))
    np.testing.assert_array_equal(joint.get_spatial_velocity(context),
                                  np.concatenate([w_FM, v_FM]))


def test_getters_return_copies() -> None:
    """Mutating a returned array does not change the context."""
    joint = _joint()
    context = JointContext.zeros(6, 6)
    joint.get_angles(context)[:] = 1.0
    joint.get_positions(context)[:] = 1.0
    joint.get_velocities(context)[:] = 1.0
    assert np.all(context.positions == 0.0) and np.all(context.velocities == 0.0)


def test_positions_velocities_and_spatial_velocity_setters() -> None:
    """set_positions/set_velocities/set_spatial_velocity write the whole slice and chain."""
    joint = _joint(position_start=1, velocity_start=3)
    context = _sentinel_context()
    q, V_FM = np.arange(1.0, 7.0) / 10, np.arange(-6.0, 0.0)
    assert joint.set_positions(context, q) is joint
    assert joint.set_spatial_velocity(context, V_FM) is joint
    np.testing.assert_array_equal(context.positions[1:7], q)
    np.testing.assert_array_equal(context.velocities[3:9], V_FM)
    np.testing.assert_array_equal(joint.get_angular_velocity(context), V_FM[:3])
    assert joint.set_velocities(context, -V_FM) is joint
    np.testing.assert_array_equal(joint.get_spatial_velocity(context), -V_FM)
    assert context.positions[0] == SENTINEL and context.velocities[2] == SENTINEL


def test_pose_and_orientation_round_trip() -> None:
    """set_pose/get_pose and set_orientation reproduce X_FM; the angles are principal."""
    rng = np.random.default_rng(SEED + 8)
    joint = _joint(position_start=2)
    context = _sentinel_context()
    for q in _random_q(rng, (10,)):
        X_FM = rpy_floating_pose(q)
        assert joint.set_pose(context, X_FM) is joint
        np.testing.assert_allclose(joint.get_pose(context), X_FM, atol=1e-12)
        np.testing.assert_allclose(joint.get_positions(context), q, atol=1e-10)
    R_FM = _reference_rotation(0.3, 0.2, -0.1)
    joint.set_translation(context, [7.0, 8.0, 9.0])
    assert joint.set_orientation(context, R_FM) is joint
    np.testing.assert_allclose(joint.get_angles(context), [0.3, 0.2, -0.1], atol=TOL)
    np.testing.assert_array_equal(joint.get_translation(context), [7.0, 8.0, 9.0])
    assert context.positions[:2].tolist() == [SENTINEL, SENTINEL]


def test_pose_setters_reject_non_rigid_input() -> None:
    """Non-rotations, wrong shapes and bad last rows raise ValueError; q is unchanged."""
    joint = _joint()
    context = JointContext.zeros(6, 6)
    with pytest.raises(ValueError, match='not a proper rotation'):
        joint.set_orientation(context, 2 * np.eye(3))
    with pytest.raises(ValueError, match='not a proper rotation'):
        joint.set_orientation(context, np.diag([1.0, 1.0, -1.0]))  # a reflection
    with pytest.raises(ValueError, match=r'shape \(3, 3\)'):
        joint.set_orientation(context, np.eye(4))
    bad_row = np.eye(4)
    bad_row[3, 0] = 1.0
    with pytest.raises(ValueError, match='last row'):
        joint.set_pose(context, bad_row)
    with pytest.raises(ValueError, match=r'shape \(4, 4\)'):
        joint.set_pose(context, np.eye(3))
    assert np.all(context.positions == 0.0)


def test_setters_validate_vectors() -> None:
    """Wrong shapes and non-finite values raise ValueError naming the expected shape."""
    joint = _joint()
    context = JointContext.zeros(6, 6)
    with pytest.raises(ValueError, match=r'angles must have shape \(3,\), got \(4,\)'):
        joint.set_angles(context, np.zeros(4))
    with pytest.raises(ValueError, match='p_FM must be finite'):
        joint.set_translation(context, [0.0, math.inf, 0.0])
    with pytest.raises(ValueError, match=r'V_FM must have shape \(6,\)'):
        joint.set_spatial_velocity(context, np.zeros(3))
    with pytest.raises(ValueError, match='w_FM must be finite'):
        joint.set_angular_velocity(context, [math.nan, 0.0, 0.0])
    assert np.all(context.positions == 0.0) and np.all(context.velocities == 0.0)


def test_context_too_short_or_wrong_dtype_raises() -> None:
    """A context that does not cover the joint's slice, or is not float64, is rejected."""
    joint = _joint(position_start=2)
    with pytest.raises(ValueError, match=r'has 6 entries; this joint needs \[2:8\]'):
        joint.get_angles(JointContext.zeros(6, 6))

    class IntContext:
        positions = np.zeros(8, dtype=int)
        velocities = np.zeros(6)

    with pytest.raises(ValueError, match='1-D float64 numpy array'):
        joint.set_angles(IntContext(), [0.0, 0.0, 0.0])


def test_joint_context_copies_and_validates() -> None:
    """JointContext copies its inputs to float64 and requires 1-D arrays."""
    source = [1, 2, 3]
    context = JointContext(source, np.zeros(2))  # type: ignore[arg-type]
    assert context.positions.dtype == np.float64
    context.positions[0] = 5.0
    assert source[0] == 1
    with pytest.raises(ValueError, match='must be 1-D'):
        JointContext(np.zeros((2, 3)), np.zeros(2))


def test_class_maps_use_context_q() -> None:
    """map_qdot_to_velocity/map_velocity_to_qdot use the context's q and invert each other."""
    rng = np.random.default_rng(SEED + 9)
    joint = _joint(position_start=4)
    context = _sentinel_context()
    q = _random_q(rng)
    joint.set_positions(context, q)
    qdot = rng.normal(size=6)
    v = joint.map_qdot_to_velocity(context, qdot)
    np.testing.assert_allclose(v, rpy_floating_map_qdot_to_velocity(q, qdot), atol=TOL)
    np.testing.assert_allclose(joint.map_velocity_to_qdot(context, v), qdot, atol=1e-10)


def test_class_map_velocity_to_qdot_raises_with_joint_name() -> None:
    """At pitch = π/2 the class map raises SingularityError naming the joint."""
    joint = _joint()
    context = JointContext(np.array([0.0, np.pi / 2, 0.0, 0.0, 0.0, 0.0]), np.zeros(6))
    with pytest.raises(SingularityError, match=r"joint 'base'.*π/2 \+ kπ") as info:
        joint.map_velocity_to_qdot(context, np.ones(6))
    assert info.value.values == pytest.approx((np.pi / 2,))
    assert np.all(np.isfinite(joint.map_qdot_to_velocity(context, np.ones(6))))


# ------------------------------------------------------------------------------------------------
# Joint class: singularity warnings


def _near_singular_rotation() -> np.ndarray:
    return _reference_rotation(0.2, np.pi / 2 - 1e-3, 0.1)


_NEAR_SINGULAR_SETTERS: dict[str, Callable[[RpyFloatingJoint, JointContext], object]] = {
    'set_angles': lambda j, c: j.set_angles(c, [0.0, np.pi / 2, 0.0]),
    'set_angles_minus': lambda j, c: j.set_angles(c, [0.0, -np.pi / 2 + 1e-3, 0.0]),
    'set_angles_3pi_2': lambda j, c: j.set_angles(c, [0.0, 3 * np.pi / 2, 0.0]),
    'set_orientation': lambda j, c: j.set_orientation(c, _near_singular_rotation()),
    'set_pose': lambda j, c: j.set_pose(c, np.block([[_near_singular_rotation(), np.ones((3, 1))],
                                                     [np.zeros((1, 3)), np.ones((1, 1))]])),
    'set_default_angles': lambda j, c: j.set_default_angles([0.0, np.pi / 2, 0.0]),
    'set_default_pose': lambda j, c: j.set_default_pose(rpy_floating_pose([0, -np.pi / 2, 0,
                                                                           0, 0, 0])),
}


@pytest.mark.parametrize('case', sorted(_NEAR_SINGULAR_SETTERS))
def test_setting_near_singularity_warns_at_the_callers_line(case: str) -> None:
    """Setting pitch with |cos(pitch)| < RPY_WARNING_COS_TOL warns; the value is still set."""
    joint = _joint()
    context = JointContext.zeros(6, 6)
    with pytest.warns(RuntimeWarning, match=r'gimbal-lock singularity pitch = π/2 \+ kπ') as rec:
        _NEAR_SINGULAR_SETTERS[case](joint, context)
    assert len(rec) == 1
    assert rec[0].filename == __file__  # stacklevel points at the caller
    assert 'FLOATING' in str(rec[0].message)
    pitch = (joint.get_default_angles() if 'default' in case else joint.get_angles(context))[1]
    assert abs(math.cos(pitch)) < RPY_WARNING_COS_TOL


def test_no_warning_away_from_singularity() -> None:
    """Just outside the warning band, and for ordinary poses, nothing is warned."""
    joint = _joint()
    context = JointContext.zeros(6, 6)
    pitch = math.acos(1.5 * RPY_WARNING_COS_TOL)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        joint.set_angles(context, [1.0, pitch, 2.0])
        joint.set_angles(context, [1.0, -pitch, 2.0])
        joint.set_orientation(context, _reference_rotation(0.1, 1.2, 0.3))
        joint.set_pose(context, rpy_floating_pose([0.1, -1.2, 0.3, 1, 2, 3]))
        joint.set_default_angles([0.0, 1.0, 0.0])
        joint.set_default_pose(np.eye(4))
        joint.set_positions(context, [0.0, np.pi / 2, 0.0, 0.0, 0.0, 0.0])  # generic: silent
    assert joint.get_angles(context)[1] == np.pi / 2


# ------------------------------------------------------------------------------------------------
# Joint class: defaults


def test_defaults() -> None:
    """Default angles/translation/positions/pose are stored in the joint; v₀ is always zero."""
    joint = _joint(position_start=1, velocity_start=2)
    assert np.all(joint.default_positions() == 0.0)
    np.testing.assert_array_equal(joint.get_default_pose(), np.eye(4))
    joint.set_default_angles([0.1, 0.2, 0.3])
    joint.set_default_translation([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(joint.default_positions(), [0.1, 0.2, 0.3, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(joint.get_default_angles(), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(joint.get_default_translation(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(joint.get_default_pose(),
                               rpy_floating_pose([0.1, 0.2, 0.3, 1.0, 2.0, 3.0]), atol=0)
    X_FM = rpy_floating_pose([-0.5, 0.4, 2.5, -1.0, 0.0, 4.0])
    joint.set_default_pose(X_FM)
    np.testing.assert_allclose(joint.default_positions(), [-0.5, 0.4, 2.5, -1.0, 0.0, 4.0],
                               atol=1e-12)
    joint.set_default_positions(np.arange(6.0))
    np.testing.assert_array_equal(joint.default_positions(), np.arange(6.0))
    np.testing.assert_array_equal(joint.default_velocities(), np.zeros(6))
    context = _sentinel_context()
    assert joint.set_default_state(context) is joint
    np.testing.assert_array_equal(context.positions[1:7], np.arange(6.0))
    np.testing.assert_array_equal(context.velocities[2:8], np.zeros(6))
    assert context.positions[0] == SENTINEL and context.velocities[8] == SENTINEL
    with pytest.raises(ValueError, match=r'shape \(6,\)'):
        joint.set_default_positions(np.zeros(7))
    with pytest.raises(ValueError, match='finite'):
        joint.set_default_translation([0.0, 0.0, math.nan])


# ------------------------------------------------------------------------------------------------
# Joint class: random distributions


ANGLE_BOUNDS = (np.array([-0.5, -0.4, -3.0]), np.array([0.5, 0.4, 3.0]))
TRANSLATION_BOUNDS = (np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0]))


def _assert_within(values: np.ndarray, bounds: tuple[np.ndarray, np.ndarray]) -> None:
    assert np.all(values >= bounds[0]) and np.all(values <= bounds[1])


def test_no_distribution_samples_default_positions() -> None:
    """Without any distribution, sampling returns the default positions."""
    joint = _joint()
    joint.set_default_translation([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(joint.sample_positions(np.random.default_rng(SEED)),
                                  [0.0, 0.0, 0.0, 1.0, 2.0, 3.0])


def test_angles_distribution_then_translation_distribution() -> None:
    """Angles only → translation is zero (not the default); adding translation keeps angles."""
    joint = _joint()
    joint.set_default_translation([9.0, 9.0, 9.0])
    joint.set_random_angles_distribution(ANGLE_BOUNDS)
    samples = np.stack([joint.sample_positions(np.random.default_rng(s)) for s in range(20)])
    _assert_within(samples[:, :3], ANGLE_BOUNDS)
    assert np.all(samples[:, 3:] == 0.0)
    assert np.ptp(samples[:, 0]) > 0.1  # really random
    joint.set_random_translation_distribution(TRANSLATION_BOUNDS)
    samples = np.stack([joint.sample_positions(np.random.default_rng(s)) for s in range(20)])
    _assert_within(samples[:, :3], ANGLE_BOUNDS)
    _assert_within(samples[:, 3:], TRANSLATION_BOUNDS)
    assert np.ptp(samples[:, 3]) > 0.1


def test_translation_distribution_then_angles_distribution() -> None:
    """Translation only → angles are zero (not the default); adding angles keeps translation."""
    joint = _joint()
    joint.set_default_angles([0.3, 0.3, 0.3])
    joint.set_random_translation_distribution(TRANSLATION_BOUNDS)
    sample = joint.sample_positions(np.random.default_rng(SEED))
    assert np.all(sample[:3] == 0.0)
    _assert_within(sample[3:], TRANSLATION_BOUNDS)
    joint.set_random_angles_distribution(ANGLE_BOUNDS)
    sample = joint.sample_positions(np.random.default_rng(SEED))
    _assert_within(sample[:3], ANGLE_BOUNDS)
    _assert_within(sample[3:], TRANSLATION_BOUNDS)
    assert np.all(sample[:3] != 0.0)


def test_sampling_is_deterministic_for_a_seeded_generator() -> None:
    """Equal seeds give equal samples; set_random_state writes them and zero velocities."""
    joint = _joint(position_start=2, velocity_start=1)
    joint.set_random_angles_distribution(ANGLE_BOUNDS)
    joint.set_random_translation_distribution(lambda rng: rng.normal(size=3))
    first = joint.sample_positions(np.random.default_rng(SEED))
    second = joint.sample_positions(np.random.default_rng(SEED))
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first, joint.sample_positions(np.random.default_rng(SEED + 1)))
    context = _sentinel_context()
    assert joint.set_random_state(context, np.random.default_rng(SEED)) is joint
    np.testing.assert_array_equal(context.positions[2:8], first)
    np.testing.assert_array_equal(context.velocities[1:7], np.zeros(6))


def test_distribution_validation() -> None:
    """Bad bounds, bad sampler output and a non-Generator rng are rejected."""
    joint = _joint()
    with pytest.raises(ValueError, match='lower_limits > upper_limits'):
        joint.set_random_translation_distribution((np.ones(3), np.zeros(3)))
    with pytest.raises(ValueError, match='must be finite'):
        joint.set_random_translation_distribution((np.zeros(3), np.full(3, np.inf)))
    with pytest.raises(ValueError, match=r'shape \(3,\)'):
        joint.set_random_angles_distribution(lambda rng: rng.uniform(size=4))
    with pytest.raises(ValueError, match='callable'):
        joint.set_random_angles_distribution((np.zeros(3),))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r'numpy\.random\.Generator'):
        joint.sample_positions(0)  # type: ignore[arg-type]
    assert np.all(joint.sample_positions(np.random.default_rng(SEED)) == 0.0)


def test_angles_distribution_near_singularity_warns() -> None:
    """Pitch bounds or sampled pitches reaching |cos(pitch)| < tolerance warn; narrow do not."""
    joint = _joint()
    with pytest.warns(RuntimeWarning, match=r'random pitch .* π/2 \+ kπ') as rec:
        joint.set_random_angles_distribution((np.full(3, -np.pi), np.full(3, np.pi)))
    assert rec[0].filename == __file__
    with pytest.warns(RuntimeWarning, match='random pitch'):
        joint.set_random_angles_distribution(
            (np.array([0.0, 1.5, 0.0]), np.array([0.0, 1.565, 0.0])))  # 1.565: |cos| < 1e-2
    with pytest.warns(RuntimeWarning, match='random pitch'):
        joint.set_random_angles_distribution(lambda rng: rng.uniform(-np.pi, np.pi, size=3))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        joint.set_random_angles_distribution(
            (np.array([-3.0, 1.6, -3.0]), np.array([3.0, 4.7, 3.0])))  # between ±π/2 + kπ
        joint.set_random_angles_distribution(ANGLE_BOUNDS)
        joint.set_random_angles_distribution(lambda rng: rng.uniform(-1.0, 1.0, size=3))
    assert np.all(np.abs(joint.sample_positions(np.random.default_rng(SEED))[:3]) <= 1.0)
