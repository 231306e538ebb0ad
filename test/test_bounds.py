"""Configuration-space geometry (RS-130..RS-138): bounds, distance, interpolation, sampling.

Most tests run on the hand-written robot with every joint type (``all_joint_types.urdf``: a
floating, an rpy_floating, a planar, a revolute, a continuous and a prismatic joint, plus a
mimic chain finger_b = 2·finger_a + 0.01, finger_c = -0.5·finger_b + 0.2).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
import pytest

from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.kinematics import bounds, forward_kinematics
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import rotation_from_quat_xyzw, rotation_from_rpy

RESOURCES = Path(__file__).resolve().parent / 'resources'
TWO_PI = 2.0 * math.pi

EXACT = 1e-12  # pure arithmetic on a handful of floats
ROUND_TRIP = 1e-9  # rotation/rpy/quaternion round trips
FK_TOL = 1e-9  # forward kinematics of equivalent configurations [m]
STAT_TOL = 0.03  # sample means of a few thousand draws
N_SAMPLES = 300

FloatArray = NDArray[np.float64]

# One row per joint type of the test robot: (joint, type label).
JOINT_OF_TYPE = {'revolute': 'rev', 'continuous': 'cont', 'prismatic': 'slide',
                 'planar': 'plane', 'floating': 'float', 'rpy_floating': 'rpy'}

WIDE_URDF = '''<?xml version="1.0"?>
<robot name="wide">
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="wide" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-4" upper="4" effort="1" velocity="1"/></joint>
  <joint name="narrow" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
    <limit lower="0.5" upper="2.0" effort="1" velocity="1"/></joint>
</robot>
'''


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf',
                                     RESOURCES / 'all_joint_types.srdf')


@pytest.fixture(scope='module')
def wide() -> RobotModel:
    return RobotModel.from_urdf_string(WIDE_URDF)


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def var(model: RobotModel, name: str) -> int:
    return model.variable_index(name)


def joint_vars(model: RobotModel, joint: str) -> NDArray[np.intp]:
    j = model.joint_index(joint)
    start = int(model.joint_q_start[j])
    return np.arange(start, start + int(model.joint_nq[j]), dtype=np.intp)


def samples(model: RobotModel, seed: int, n: int = N_SAMPLES) -> FloatArray:
    return bounds.random_positions(model, np.random.default_rng(seed), size=n)


def rotation_angle(R: FloatArray) -> FloatArray:
    """Independent oracle: angle of rotation matrices, atan2(|vee(R - Rᵀ)| / 2, (tr R - 1) / 2).

    (acos((tr R - 1) / 2) alone loses half the digits near 0: 2e-8 for a rounding-level R.)
    """
    c = (np.trace(R, axis1=-2, axis2=-1) - 1.0) / 2.0
    vee = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                    R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    out: FloatArray = np.arctan2(np.linalg.norm(vee, axis=-1) / 2.0, c)
    return out


def quat(model: RobotModel, q: FloatArray) -> FloatArray:
    return q[..., joint_vars(model, 'float')[3:]]


def rpy_angles(model: RobotModel, q: FloatArray) -> FloatArray:
    return q[..., joint_vars(model, 'rpy')[:3]]


def with_values(model: RobotModel, **values: float) -> FloatArray:
    """Default positions with some variables (``'plane__theta'`` for ``plane/theta``) set."""
    q = np.array(model.default_positions)
    for name, value in values.items():
        q[var(model, name.replace('__', '/'))] = value
    return model.apply_mimic(q)


# ---------------------------------------------------------------------------- wrapping


def test_wrap_angle_into_half_open_interval() -> None:
    """3.2 wraps to 3.2 - 2π; π maps to -π; in-range values are returned bit for bit."""
    assert bounds.wrap_angle(3.2) == pytest.approx(3.2 - TWO_PI, abs=EXACT)
    assert bounds.wrap_angle(math.pi) == -math.pi
    assert bounds.wrap_angle(-math.pi) == -math.pi
    assert bounds.wrap_angle(-3.2) == pytest.approx(-3.2 + TWO_PI, abs=EXACT)
    values = np.random.default_rng(1).uniform(-100.0, 100.0, 1000)
    w = bounds.wrap_angle(values)
    assert np.all((w >= -math.pi) & (w < math.pi))
    k = (values - w) / TWO_PI
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)
    inside = np.array([0.1, -3.0, 3.14159, -math.pi])
    assert np.array_equal(bounds.wrap_angle(inside), inside)


# ---------------------------------------------------------------------------- enforce


def test_enforce_wraps_continuous_planar_theta_and_rpy(model: RobotModel) -> None:
    """Unbounded angles wrap into [-π, π); the pose is unchanged."""
    q = with_values(model, cont=3.2, plane__theta=-7.0, **{'rpy/qx': 4.0, 'rpy/qz': -3.5})
    out = bounds.enforce_position_bounds(model, q)
    assert out[var(model, 'cont')] == pytest.approx(3.2 - TWO_PI, abs=EXACT)
    assert out[var(model, 'plane/theta')] == pytest.approx(-7.0 + TWO_PI, abs=EXACT)
    assert out[var(model, 'rpy/qx')] == pytest.approx(4.0 - TWO_PI, abs=EXACT)
    assert out[var(model, 'rpy/qz')] == pytest.approx(-3.5 + TWO_PI, abs=EXACT)
    np.testing.assert_allclose(forward_kinematics(model, out), forward_kinematics(model, q),
                               atol=FK_TOL)


def test_enforce_clips_bounded_variables_and_updates_mimic(model: RobotModel) -> None:
    """Revolute/prismatic values are clipped; mimic variables follow the clipped source."""
    q = with_values(model, rev=5.0, slide=-1.0, finger_a_joint=0.5)
    out = bounds.enforce_position_bounds(model, q)
    assert out[var(model, 'rev')] == 1.9  # MoveIt: safety_controller soft_upper_limit
    assert out[var(model, 'slide')] == -0.1
    assert out[var(model, 'finger_a_joint')] == 0.04
    assert out[var(model, 'finger_b_joint')] == pytest.approx(2.0 * 0.04 + 0.01, abs=EXACT)
    assert out[var(model, 'finger_c_joint')] == pytest.approx(
        -0.5 * (2.0 * 0.04 + 0.01) + 0.2, abs=EXACT)
    assert q[var(model, 'rev')] == 5.0  # the input is not modified
    assert bounds.satisfies_position_bounds(model, out)


def test_enforce_normalizes_quaternions(model: RobotModel) -> None:
    """Non-unit quaternions are normalized (same rotation); a zero one becomes the identity."""
    q = np.array(model.default_positions)
    fq = joint_vars(model, 'float')[3:]
    q[fq] = [0.2, -0.4, 0.6, 1.0]
    out = bounds.enforce_position_bounds(model, q)
    assert np.linalg.norm(out[fq]) == pytest.approx(1.0, abs=EXACT)
    np.testing.assert_allclose(out[fq] * np.linalg.norm(q[fq]), q[fq], atol=EXACT)
    q[fq] = 0.0
    assert np.array_equal(bounds.enforce_position_bounds(model, q)[fq], [0.0, 0.0, 0.0, 1.0])


def test_enforce_leaves_valid_configurations_bit_for_bit(model: RobotModel) -> None:
    """Valid configurations are unchanged and enforcing is idempotent."""
    q = samples(model, 2)
    assert np.array_equal(bounds.enforce_position_bounds(model, q), q)
    wild = q + np.random.default_rng(3).normal(0.0, 5.0, q.shape)
    once = bounds.enforce_position_bounds(model, wild)
    assert np.all(bounds.satisfies_position_bounds(model, once))
    assert np.array_equal(bounds.enforce_position_bounds(model, once), once)


def test_enforce_respects_variable_subset(model: RobotModel) -> None:
    """Only the selected joints change (group 'arm': rev, cont, slide)."""
    q = with_values(model, rev=5.0, cont=3.5, plane__theta=3.5)
    out = bounds.enforce_position_bounds(model, q, model.group('arm').variable_indices)
    assert out[var(model, 'rev')] == 1.9  # the soft upper limit (MoveIt)
    assert out[var(model, 'cont')] == pytest.approx(3.5 - TWO_PI, abs=EXACT)
    assert out[var(model, 'plane/theta')] == 3.5


def test_enforce_velocity_bounds_clips_to_limits(model: RobotModel) -> None:
    """Velocities are clipped to ±limit; unlimited variables (inf) are untouched."""
    qdot = np.full(model.nq, 10.0)
    out = bounds.enforce_velocity_bounds(model, qdot)
    limits = np.asarray(model.variable_velocity_limits)
    active = np.asarray(model.active_variable_mask)
    np.testing.assert_array_equal(out[active], np.minimum(10.0, limits[active]))
    np.testing.assert_array_equal(out[~active], 10.0)  # mimic velocities are not touched
    assert bounds.satisfies_velocity_bounds(model, out)
    np.testing.assert_array_equal(bounds.enforce_velocity_bounds(model, -qdot)[active],
                                  -np.minimum(10.0, limits[active]))


# ---------------------------------------------------------------------------- satisfies


def test_satisfies_position_bounds_and_margin(model: RobotModel) -> None:
    """Margin widens the bounds (negative tightens); unbounded joints always satisfy."""
    assert bounds.satisfies_position_bounds(model, model.default_positions)
    q = with_values(model, rev=1.95)  # inside <limit> 2.0, outside the soft limit 1.9 (MoveIt)
    assert not bounds.satisfies_position_bounds(model, q)
    assert bounds.satisfies_position_bounds(model, q, margin=0.1)
    inside = with_values(model, rev=1.85)
    assert bounds.satisfies_position_bounds(model, inside)
    assert not bounds.satisfies_position_bounds(model, inside, margin=-0.1)
    far = with_values(model, cont=100.0, plane__theta=-50.0, plane__x=1e6,
                      **{'rpy/qy': 20.0, 'float/trans_z': -1e6})
    assert bounds.satisfies_position_bounds(model, far)


def test_satisfies_checks_quaternion_norm(model: RobotModel) -> None:
    """A quaternion must be unit length within QUATERNION_NORM_TOLERANCE."""
    fq = joint_vars(model, 'float')[3:]
    q = np.array(model.default_positions)
    q[fq[-1]] = 1.0 + 0.25 * bounds.QUATERNION_NORM_TOLERANCE
    assert bounds.satisfies_position_bounds(model, q)
    q[fq[-1]] = 1.01
    assert not bounds.satisfies_position_bounds(model, q)
    assert not bounds.satisfies_position_bounds(model, q, margin=10.0)
    others = np.setdiff1d(np.arange(model.nq), joint_vars(model, 'float'))
    assert bounds.satisfies_position_bounds(model, q, variables=others)


def test_satisfies_ignores_mimic_variables(model: RobotModel) -> None:
    """Mimic variables are not checked (active joints only, §8.9)."""
    q = np.array(model.default_positions)
    q[var(model, 'finger_b_joint')] = 50.0
    assert bounds.satisfies_position_bounds(model, q)


def test_satisfies_is_batched(model: RobotModel) -> None:
    """Batch results equal per-configuration results."""
    q = samples(model, 4, 20).reshape(4, 5, model.nq)
    q[1, 2, var(model, 'rev')] = 3.0
    q[3, 0, var(model, 'slide')] = -0.2
    ok = bounds.satisfies_position_bounds(model, q)
    assert ok.shape == (4, 5)
    loop = np.array([[bool(bounds.satisfies_position_bounds(model, q[i, j]))
                      for j in range(5)] for i in range(4)])
    np.testing.assert_array_equal(ok, loop)
    assert ok.sum() == 18


def test_satisfies_velocity_bounds_and_margin(model: RobotModel) -> None:
    """|qdot| <= limit + margin per variable; unspecified limits are infinite."""
    qdot = np.zeros(model.nq)
    qdot[var(model, 'rev')] = 2.0
    qdot[var(model, 'float/trans_x')] = 1e9
    assert bounds.satisfies_velocity_bounds(model, qdot)
    qdot[var(model, 'rev')] = -2.05
    assert not bounds.satisfies_velocity_bounds(model, qdot)
    assert bounds.satisfies_velocity_bounds(model, qdot, margin=0.1)
    others = np.setdiff1d(np.arange(model.nq), [var(model, 'rev')])
    assert bounds.satisfies_velocity_bounds(model, qdot, variables=others)


def test_velocity_functions_accept_nv_velocities(model: RobotModel) -> None:
    """(..., nv) velocities use velocity_limits_v (floating [w; v] ↔ [quat; t] limits)."""
    limits_v = bounds.velocity_limits_v(model)
    assert limits_v.shape == (model.nv,)
    assert not limits_v.flags.writeable
    rev_v = int(model.joint_v_start[model.joint_index('rev')])
    assert limits_v[rev_v] == 2.0
    assert np.all(np.isinf(limits_v[:6]))  # the floating joint has no limits
    v = np.zeros(model.nv)
    v[rev_v] = 2.5
    assert not bounds.satisfies_velocity_bounds(model, v)
    assert bounds.enforce_velocity_bounds(model, v)[rev_v] == 2.0


def test_satisfies_bounds_combines_positions_and_velocities(model: RobotModel) -> None:
    """Velocities count only when given (MoveIt: only when the state has velocities)."""
    q = np.array(model.default_positions)
    fast = np.zeros(model.nq)
    fast[var(model, 'cont')] = 4.0
    assert bounds.satisfies_bounds(model, q)
    assert not bounds.satisfies_bounds(model, q, fast)
    assert bounds.satisfies_bounds(model, q, np.zeros(model.nq))
    assert not bounds.satisfies_bounds(model, with_values(model, rev=0.0), np.zeros(model.nq))


# ---------------------------------------------------------------------------- harmonize


@pytest.mark.parametrize(('joint', 'value', 'expected'), [
    ('narrow', -5.0, -5.0 + TWO_PI),  # lands inside [0.5, 2.0]
    ('narrow', 8.0, 8.0 - TWO_PI),
    ('narrow', -4.0, -4.0),  # -4 + 2π = 2.28 > 2.0: no multiple lands inside, unchanged
    ('narrow', -10.0, -10.0 + TWO_PI),  # moves toward the bounds without passing 2.0
    ('narrow', 1.0, 1.0),
    ('wide', 10.0, 10.0 - 2 * TWO_PI),  # as far as possible without passing the lower bound
    ('wide', -10.0, -10.0 + 2 * TWO_PI),
    ('wide', 5.0, 5.0 - TWO_PI),
    ('wide', 3.0, 3.0),
])
def test_harmonize_follows_moveit_rule(wide: RobotModel, joint: str, value: float,
                                       expected: float) -> None:
    """MoveIt harmonizePosition: shift by 2π while the value stays within the far bound."""
    q = np.array([0.0, 1.0])
    q[wide.variable_index(joint)] = value
    out = bounds.harmonize_positions(wide, q)
    assert out[wide.variable_index(joint)] == pytest.approx(expected, abs=EXACT)


def test_harmonize_wraps_unbounded_angles_and_preserves_pose(model: RobotModel) -> None:
    """Shifted angles come back; forward kinematics is unchanged; prismatic untouched."""
    q = samples(model, 5, 50)
    k = np.random.default_rng(6).integers(-3, 4, size=(50, 6))
    shifted = q.copy()
    angles = [var(model, n) for n in ('rev', 'cont', 'plane/theta', 'rpy/qx', 'rpy/qy',
                                      'rpy/qz')]
    shifted[:, angles] += TWO_PI * k
    shifted[:, var(model, 'slide')] = 5.0
    out = bounds.harmonize_positions(model, shifted)
    np.testing.assert_allclose(out[:, angles], q[:, angles], atol=ROUND_TRIP)
    assert np.all(out[:, var(model, 'slide')] == 5.0)
    np.testing.assert_allclose(forward_kinematics(model, out),
                               forward_kinematics(model, shifted), atol=FK_TOL)


# ---------------------------------------------------------------------------- min distance


def test_min_distance_to_position_bounds(model: RobotModel) -> None:
    """Nearest bound over revolute/prismatic variables; continuous/multi-DOF/mimic skipped."""
    q = with_values(model, rev=1.0, slide=0.25, finger_a_joint=0.02, cont=3.14)
    d, index = bounds.min_distance_to_position_bounds(model, q)
    assert float(d) == pytest.approx(0.02, abs=EXACT)
    assert int(index) == var(model, 'finger_a_joint')
    d, index = bounds.min_distance_to_position_bounds(model, q,
                                                      model.group('arm').variable_indices)
    assert float(d) == pytest.approx(0.05, abs=EXACT)
    assert int(index) == var(model, 'slide')
    outside = with_values(model, rev=1.93, slide=0.1)  # unsigned; 1.9 is the soft limit
    d, index = bounds.min_distance_to_position_bounds(model, outside, [var(model, 'rev'),
                                                                       var(model, 'slide')])
    assert float(d) == pytest.approx(0.03, abs=EXACT)
    assert int(index) == var(model, 'rev')


def test_min_distance_is_batched_and_rejects_unbounded_selection(model: RobotModel) -> None:
    """Batched results match per-sample results; no bounded variable selected raises."""
    q = samples(model, 7, 25)
    d, index = bounds.min_distance_to_position_bounds(model, q)
    assert d.shape == index.shape == (25,)
    for i in range(25):
        di, ii = bounds.min_distance_to_position_bounds(model, q[i])
        assert float(di) == d[i] and int(ii) == index[i]
    with pytest.raises(InvalidArgumentError, match='no bounded'):
        bounds.min_distance_to_position_bounds(model, q, [var(model, 'cont')])


# ---------------------------------------------------------------------------- distance


def test_distance_per_joint_type_by_hand(model: RobotModel) -> None:
    """Each joint type's term: |Δ|, shortest arc, planar, quaternion angle, rpy angle."""
    q0 = with_values(model, rev=0.6, cont=3.0, slide=0.0, plane__x=0.0, plane__y=0.0,
                     plane__theta=3.0)
    q1 = with_values(model, rev=1.6, cont=-3.0, slide=0.3, plane__x=3.0, plane__y=4.0,
                     plane__theta=-3.0, **{'float/trans_x': 1.0, 'float/rot_z': math.sin(0.3),
                                           'float/rot_w': math.cos(0.3), 'rpy/qz': 0.5,
                                           'rpy/z': 2.0})
    d = bounds.joint_distances(model, q0, q1)
    expected = {'rev': 1.0, 'cont': TWO_PI - 6.0, 'slide': 0.3, 'plane': 5.0 + TWO_PI - 6.0,
                'float': 1.0 + 0.6, 'rpy': 2.0 + 0.5}
    for joint, value in expected.items():
        assert d[model.joint_index(joint)] == pytest.approx(value, abs=ROUND_TRIP), joint
    assert d[model.joint_index('finger_b_joint')] == 0.0  # mimic: not counted
    assert d[model.joint_index('tool_joint')] == 0.0  # fixed
    # MoveIt's distance factors (state-space dimensions): planar 3, floating and rpy 6.
    factors = {'plane': 3.0, 'float': 6.0, 'rpy': 6.0}
    assert float(bounds.distance(model, q0, q1)) == pytest.approx(
        sum(factors.get(j, 1.0) * v for j, v in expected.items()), abs=ROUND_TRIP)
    assert float(bounds.distance(model, q0, q1, weights=1.0)) == pytest.approx(
        sum(expected.values()), abs=ROUND_TRIP)


def test_distance_weights(model: RobotModel) -> None:
    """Per-joint factors (array or mapping) and the angular weight of multi-DOF joints."""
    q0, q1 = samples(model, 8, 2)
    d = bounds.joint_distances(model, q0, q1)
    w = np.arange(model.joint_count, dtype=float)
    assert float(bounds.distance(model, q0, q1, weights=w)) == pytest.approx(d @ w, abs=EXACT)
    by_name = float(bounds.distance(model, q0, q1, weights={'rev': 3.0, 'float': 0.0}))
    expected = d.sum() + 2.0 * d[model.joint_index('rev')] - d[model.joint_index('float')]
    assert by_name == pytest.approx(expected, abs=EXACT)
    no_angle = bounds.joint_distances(model, q0, q1, angular_weight=0.0)
    fl = model.joint_index('float')
    assert no_angle[fl] == pytest.approx(
        np.linalg.norm(q1[joint_vars(model, 'float')[:3]] - q0[joint_vars(model, 'float')[:3]]),
        abs=EXACT)
    assert no_angle[model.joint_index('rev')] == d[model.joint_index('rev')]
    with pytest.raises(InvalidArgumentError, match='non-negative'):
        bounds.distance(model, q0, q1, weights=-1.0)


def test_distance_is_invariant_to_quaternion_sign(model: RobotModel) -> None:
    """A quaternion and its negative are the same rotation: distance 0."""
    q = samples(model, 9, 1)[0]
    flipped = q.copy()
    fq = joint_vars(model, 'float')[3:]
    flipped[fq] *= -1.0
    assert float(bounds.distance(model, q, flipped)) == pytest.approx(0.0, abs=ROUND_TRIP)


@pytest.mark.parametrize('joint_type', list(JOINT_OF_TYPE))
def test_distance_is_a_metric_for_each_joint_type(model: RobotModel, joint_type: str) -> None:
    """Zero on equal inputs, symmetric, triangle inequality, on random samples."""
    sel = joint_vars(model, JOINT_OF_TYPE[joint_type])
    a, b, c = samples(model, 10), samples(model, 11), samples(model, 12)
    # Mix in close pairs so the triangle inequality is exercised at small scales too.
    b[::3] = bounds.random_positions_near(model, 13, a[::3], 0.05)
    dab = bounds.distance(model, a, b, sel)
    dba = bounds.distance(model, b, a, sel)
    dac = bounds.distance(model, a, c, sel)
    dbc = bounds.distance(model, b, c, sel)
    np.testing.assert_allclose(bounds.distance(model, a, a, sel), 0.0, atol=ROUND_TRIP)
    np.testing.assert_allclose(dab, dba, atol=ROUND_TRIP)
    assert np.all(dab >= 0.0)
    assert np.all(dac <= dab + dbc + ROUND_TRIP)
    others = np.setdiff1d(np.arange(model.nq), sel)
    c_other = a.copy()
    c_other[:, others] = c[:, others]  # only unselected variables differ
    np.testing.assert_allclose(bounds.distance(model, a, c_other, sel), 0.0, atol=EXACT)


def test_distance_batch_broadcasts(model: RobotModel) -> None:
    """(N, nq) against (nq,) broadcasts and equals the loop."""
    q = samples(model, 14, 10)
    d = bounds.distance(model, q, q[0])
    assert d.shape == (10,)
    np.testing.assert_allclose(d, [float(bounds.distance(model, x, q[0])) for x in q],
                               atol=EXACT)


# ---------------------------------------------------------------------------- interpolation


def test_interpolate_endpoints_are_exact(model: RobotModel) -> None:
    """Endpoints: t = 0 gives q0, t = 1 gives q1 bit for bit for valid inputs (RS-131)."""
    q0, q1 = samples(model, 15, 2)
    assert np.array_equal(bounds.interpolate(model, q0, q1, 0.0), q0)
    assert np.array_equal(bounds.interpolate(model, q0, q1, 1.0), q1)
    flipped = q1.copy()
    flipped[joint_vars(model, 'float')[3:]] *= -1.0
    assert np.array_equal(bounds.interpolate(model, q0, flipped, 1.0), flipped)


def test_interpolate_linear_variables_and_extrapolation(model: RobotModel) -> None:
    """Bounded and translational variables are (1 - t) q0 + t q1, also for t outside [0, 1]."""
    q0, q1 = samples(model, 16, 2)
    lin = [var(model, n) for n in ('rev', 'slide', 'plane/x', 'float/trans_y', 'rpy/z')]
    for t in (0.25, 0.5, -0.5, 2.0):
        out = bounds.interpolate(model, q0, q1, t)
        np.testing.assert_allclose(out[lin], q0[lin] + t * (q1[lin] - q0[lin]), atol=EXACT)
    beyond = bounds.interpolate(model, q0, with_values(model, rev=2.0), 3.0)
    assert beyond[var(model, 'rev')] > 2.0  # extrapolation is not clipped


def test_interpolate_continuous_takes_shortest_arc(model: RobotModel) -> None:
    """3.0 → -3.0 goes through ±π (0.28 rad), not through 0 (6 rad); results wrapped."""
    q0 = with_values(model, cont=3.0, plane__theta=-3.0)
    q1 = with_values(model, cont=-3.0, plane__theta=3.0)
    arc = TWO_PI - 6.0
    for t in np.linspace(0.0, 1.0, 9):
        out = bounds.interpolate(model, q0, q1, t)
        c, th = out[var(model, 'cont')], out[var(model, 'plane/theta')]
        assert -math.pi <= c < math.pi and -math.pi <= th < math.pi
        assert abs(bounds.wrap_angle(c - 3.0)) == pytest.approx(t * arc, abs=EXACT)
        assert abs(bounds.wrap_angle(th + 3.0)) == pytest.approx(t * arc, abs=EXACT)
        assert abs(c) >= 3.0 - EXACT  # never passes through 0
    extrap = bounds.interpolate(model, q0, q1, 2.0)[var(model, 'cont')]
    assert extrap == pytest.approx(3.0 + 2.0 * arc - TWO_PI, abs=EXACT)


def test_slerp_has_constant_angular_rate(model: RobotModel) -> None:
    """The rotation angle from q0 grows linearly in t, also when extrapolating."""
    q0, q1 = samples(model, 17, 2)
    R0 = rotation_from_quat_xyzw(quat(model, q0))
    total = rotation_angle(rotation_from_quat_xyzw(quat(model, q1)) @ R0.T)
    t = np.linspace(-0.2, 1.2, 15)
    t = t[np.abs(t) * total < math.pi]  # stay below a half turn from q0
    out = bounds.interpolate(model, q0, q1, t)
    R = rotation_from_quat_xyzw(quat(model, out))
    np.testing.assert_allclose(rotation_angle(R @ R0.T), np.abs(t) * total, atol=ROUND_TRIP)
    np.testing.assert_allclose(np.linalg.norm(quat(model, out), axis=-1), 1.0, atol=EXACT)


def test_slerp_takes_shortest_path_for_either_sign(model: RobotModel) -> None:
    """Interpolating towards -q1 gives the same rotations as towards q1."""
    q0, q1 = samples(model, 18, 2)
    flipped = q1.copy()
    flipped[joint_vars(model, 'float')[3:]] *= -1.0
    t = np.linspace(0.05, 0.95, 7)
    a = rotation_from_quat_xyzw(quat(model, bounds.interpolate(model, q0, q1, t)))
    b = rotation_from_quat_xyzw(quat(model, bounds.interpolate(model, q0, flipped, t)))
    np.testing.assert_allclose(a, b, atol=ROUND_TRIP)
    R0 = rotation_from_quat_xyzw(quat(model, q0))
    total = rotation_angle(rotation_from_quat_xyzw(quat(model, q1)) @ R0.T)
    assert total <= math.pi + EXACT
    np.testing.assert_allclose(rotation_angle(a @ R0.T), t * total, atol=ROUND_TRIP)


def test_rpy_floating_interpolates_along_rotation_geodesic(model: RobotModel) -> None:
    """Orientations follow exp(t log(R1 R0ᵀ)) R0: constant rate from R0, and towards R1."""
    q0, q1 = samples(model, 19, 2)
    R0 = rotation_from_rpy(rpy_angles(model, q0))
    R1 = rotation_from_rpy(rpy_angles(model, q1))
    total = rotation_angle(R1 @ R0.T)
    t = np.linspace(0.0, 1.0, 11)
    R = rotation_from_rpy(rpy_angles(model, bounds.interpolate(model, q0, q1, t)))
    np.testing.assert_allclose(rotation_angle(R @ R0.T), t * total, atol=ROUND_TRIP)
    np.testing.assert_allclose(rotation_angle(R1 @ np.swapaxes(R, -1, -2)), (1 - t) * total,
                               atol=ROUND_TRIP)


def test_interpolate_batch_equals_loop(model: RobotModel) -> None:
    """Batched q0, q1 and t give the per-element results."""
    q0, q1 = samples(model, 20, 12), samples(model, 21, 12)
    t = np.random.default_rng(22).uniform(-0.5, 1.5, 12)
    batch = bounds.interpolate(model, q0, q1, t)
    loop = np.stack([bounds.interpolate(model, q0[i], q1[i], t[i]) for i in range(12)])
    np.testing.assert_allclose(batch, loop, atol=EXACT)
    many_t = bounds.interpolate(model, q0[0], q1[0], t)
    assert many_t.shape == (12, model.nq)
    np.testing.assert_allclose(many_t[3], bounds.interpolate(model, q0[0], q1[0], t[3]),
                               atol=EXACT)


def test_interpolate_updates_mimic_and_respects_subset(model: RobotModel) -> None:
    """Mimic variables follow their source; unselected variables come from q0."""
    q0, q1 = samples(model, 23, 2)
    out = bounds.interpolate(model, q0, q1, np.linspace(0.0, 1.0, 7))
    np.testing.assert_array_equal(out, model.apply_mimic(out.copy()))
    a = out[:, var(model, 'finger_a_joint')]
    np.testing.assert_allclose(out[:, var(model, 'finger_b_joint')], 2.0 * a + 0.01,
                               atol=EXACT)
    fingers = model.group('fingers').variable_indices
    sub = bounds.interpolate(model, q0, q1, 0.5, fingers)
    others = np.setdiff1d(np.arange(model.nq), fingers)
    np.testing.assert_array_equal(sub[others], q0[others])
    assert sub[var(model, 'finger_a_joint')] == pytest.approx(
        0.5 * (q0[var(model, 'finger_a_joint')] + q1[var(model, 'finger_a_joint')]), abs=EXACT)


@pytest.mark.parametrize('t', [math.nan, math.inf, -math.inf, [0.5, math.nan]])
def test_interpolate_rejects_non_finite_t(model: RobotModel, t: object) -> None:
    """NaN/inf t raises InvalidArgumentError (a ValueError)."""
    q = np.array(model.default_positions)
    with pytest.raises(InvalidArgumentError, match='finite'):
        bounds.interpolate(model, q, q, t)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- random sampling


def test_random_positions_within_bounds_and_box(model: RobotModel) -> None:
    """Bounded variables in bounds, angles in [-π, π), translations in the box, unit quats."""
    q = bounds.random_positions(model, rng(), size=2000, translation_range=0.5)
    assert np.all(bounds.satisfies_position_bounds(model, q))
    for name in ('rev', 'slide', 'finger_a_joint'):
        i = var(model, name)
        assert np.all((q[:, i] >= model.variable_lower[i]) & (q[:, i] <= model.variable_upper[i]))
    angles = [var(model, n) for n in ('cont', 'plane/theta', 'rpy/qx', 'rpy/qy', 'rpy/qz')]
    assert np.all((q[:, angles] >= -math.pi) & (q[:, angles] < math.pi))
    trans = [var(model, n) for n in ('plane/x', 'plane/y', 'float/trans_x', 'float/trans_z',
                                     'rpy/x', 'rpy/z')]
    assert np.all(np.abs(q[:, trans]) <= 0.5)
    assert np.all(np.abs(q[:, trans]).max(axis=0) > 0.4)  # the box is actually used
    np.testing.assert_allclose(np.linalg.norm(quat(model, q), axis=-1), 1.0, atol=EXACT)
    np.testing.assert_array_equal(q, model.apply_mimic(q.copy()))


def test_random_rotations_are_uniform(model: RobotModel) -> None:
    """Uniform on SO(3): E[q_i²] = 1/4 for quaternions; E[R] = 0 for rpy orientations."""
    q = bounds.random_positions(model, rng(), size=4000)
    np.testing.assert_allclose((quat(model, q) ** 2).mean(axis=0), 0.25, atol=STAT_TOL)
    R = rotation_from_rpy(rpy_angles(model, q))
    np.testing.assert_allclose(R.mean(axis=0), 0.0, atol=STAT_TOL)


def test_random_positions_are_deterministic(model: RobotModel) -> None:
    """The same seed gives the same samples; the subset sampled does not change the draws."""
    a = bounds.random_positions(model, np.random.default_rng(42), size=5)
    b = bounds.random_positions(model, 42, size=5)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, bounds.random_positions(model, 43, size=5))
    arm = model.group('arm').variable_indices
    sub = bounds.random_positions(model, 42, arm, size=5)
    np.testing.assert_array_equal(sub[:, arm], a[:, arm])
    others = np.setdiff1d(np.arange(model.nq), arm)
    np.testing.assert_array_equal(sub[:, others],
                                  np.broadcast_to(model.default_positions, (5, model.nq))[
                                      :, others])


def test_random_positions_keep_base_outside_selection(model: RobotModel) -> None:
    """Unselected variables come from base; mimic variables follow sampled sources."""
    base = samples(model, 24, 3)
    fingers = model.group('fingers').variable_indices
    out = bounds.random_positions(model, rng(), fingers, base)
    others = np.setdiff1d(np.arange(model.nq), fingers)
    np.testing.assert_array_equal(out[:, others], base[:, others])
    np.testing.assert_array_equal(out, model.apply_mimic(out.copy()))


def _per_joint_bound(model: RobotModel, joint: str) -> float:
    """Max joint distance per unit of per-variable distance d (docstring guarantee)."""
    jt = model.joint_types[model.joint_index(joint)].value
    return {'planar': math.sqrt(2.0) + 1.0, 'floating': math.sqrt(3.0) + 1.0,
            'rpy_floating': math.sqrt(3.0) + 1.0}.get(jt, 1.0)


def test_random_near_with_scalar_distance(model: RobotModel) -> None:
    """Each variable within d, each joint within its bound, total within the sum; in bounds."""
    near = samples(model, 25, 200)
    d = 0.3
    out = bounds.random_positions_near(model, rng(), near, d)
    assert np.all(bounds.satisfies_position_bounds(model, out))
    dj = bounds.joint_distances(model, near, out)
    limit = np.array([d * _per_joint_bound(model, n) for n in model.joint_names])
    assert np.all(dj <= limit + ROUND_TRIP)
    assert np.all(bounds.distance(model, near, out, weights=1.0) <= limit.sum() + ROUND_TRIP)
    scalar = [var(model, n) for n in ('rev', 'slide', 'plane/x', 'rpy/y', 'float/trans_z')]
    assert np.all(np.abs(out[:, scalar] - near[:, scalar]) <= d + EXACT)
    cont = var(model, 'cont')
    assert np.all(np.abs(bounds.wrap_angle(out[:, cont] - near[:, cont])) <= d + EXACT)
    fl = model.joint_index('float')
    no_trans = bounds.joint_distances(model, near, out, angular_weight=1.0)[:, fl] - \
        np.linalg.norm(out[:, joint_vars(model, 'float')[:3]]
                       - near[:, joint_vars(model, 'float')[:3]], axis=-1)
    assert np.all(no_trans <= d + ROUND_TRIP)  # rotation within angle d
    assert np.max(dj[:, model.joint_index('cont')]) > 0.5 * d  # samples spread out
    np.testing.assert_array_equal(out, model.apply_mimic(out.copy()))


def test_random_near_with_per_joint_distances(model: RobotModel) -> None:
    """Mapping, (J,) array and selected-joint array agree; each joint stays within its d."""
    arm = model.group('arm').variable_indices
    near = samples(model, 26, 100)
    by_name = {'rev': 0.05, 'cont': 0.5, 'slide': 0.01}
    out = bounds.random_positions_near(model, 7, near, by_name, arm)
    dj = bounds.joint_distances(model, near, out, arm)
    for joint, d in by_name.items():
        assert np.all(dj[:, model.joint_index(joint)] <= d + EXACT), joint
    others = np.setdiff1d(np.arange(model.nq), arm)
    np.testing.assert_array_equal(out[:, others], near[:, others])
    per_model_joint = np.zeros(model.joint_count)
    for joint, d in by_name.items():
        per_model_joint[model.joint_index(joint)] = d
    np.testing.assert_array_equal(
        bounds.random_positions_near(model, 7, near, per_model_joint, arm), out)
    np.testing.assert_array_equal(
        bounds.random_positions_near(model, 7, near, [0.05, 0.5, 0.01], arm), out)


def test_random_near_zero_distance_and_outside_bounds(model: RobotModel) -> None:
    """Zero distance returns near; a seed outside its bounds goes to the nearest bound."""
    near = samples(model, 27, 5)
    np.testing.assert_allclose(bounds.random_positions_near(model, rng(), near, 0.0), near,
                               atol=ROUND_TRIP)
    outside = with_values(model, rev=5.0)
    out = bounds.random_positions_near(model, rng(), outside, 0.1, size=20)
    assert np.all(out[:, var(model, 'rev')] == 1.9)  # the soft upper limit (MoveIt)


def test_random_near_rejects_bad_distances(model: RobotModel) -> None:
    """Wrong length (E11), negative, missing or unknown joints raise."""
    q = np.array(model.default_positions)
    arm = model.group('arm').variable_indices
    with pytest.raises(InvalidArgumentError, match='shape'):
        bounds.random_positions_near(model, rng(), q, [0.1, 0.2], arm)
    with pytest.raises(InvalidArgumentError, match='non-negative'):
        bounds.random_positions_near(model, rng(), q, -0.1)
    with pytest.raises(InvalidArgumentError, match='no entry'):
        bounds.random_positions_near(model, rng(), q, {'rev': 0.1}, arm)
    with pytest.raises(UnknownNameError):
        bounds.random_positions_near(model, rng(), q, {'elbw': 0.1, 'rev': 0.1, 'cont': 0.1,
                                                       'slide': 0.1}, arm)


# ---------------------------------------------------------------------------- velocity moves


def test_is_valid_velocity_move(model: RobotModel) -> None:
    """|Δ| <= dt·limit per variable; continuous uses the shortest arc; unlimited always ok."""
    q0 = with_values(model, rev=0.6, cont=3.0)
    q1 = with_values(model, rev=1.6, cont=-3.0, **{'float/trans_x': 100.0})
    assert bounds.is_valid_velocity_move(model, q0, q1, 0.5)  # rev: 1 rad at 2 rad/s
    assert not bounds.is_valid_velocity_move(model, q0, q1, 0.4)
    others = np.setdiff1d(np.arange(model.nq), [var(model, 'rev')])
    assert bounds.is_valid_velocity_move(model, q0, q1, 0.1, others)  # cont: 0.28 rad ≤ 0.3
    assert not bounds.is_valid_velocity_move(model, q0, q1, 0.09, others)
    ok = bounds.is_valid_velocity_move(model, q0, q1, np.array([0.1, 0.4, 0.5, 1.0]))
    np.testing.assert_array_equal(ok, [False, False, True, True])
    with pytest.raises(InvalidArgumentError, match='positive'):
        bounds.is_valid_velocity_move(model, q0, q1, 0.0)


# ---------------------------------------------------------------------------- validation


def test_inputs_are_validated(model: RobotModel) -> None:
    """Wrong shapes, NaN, partial multi-DOF selections and bad indices raise."""
    q = np.array(model.default_positions)
    with pytest.raises(InvalidArgumentError, match='shape'):
        bounds.satisfies_position_bounds(model, q[:-1])
    bad = q.copy()
    bad[0] = math.nan
    with pytest.raises(InvalidArgumentError, match='NaN'):
        bounds.enforce_position_bounds(model, bad)
    with pytest.raises(InvalidArgumentError, match='part of the multi-DOF'):
        bounds.distance(model, q, q, [var(model, 'plane/x')])
    with pytest.raises(InvalidArgumentError, match=r'\[0, 22\)'):
        bounds.harmonize_positions(model, q, [model.nq])
    with pytest.raises(InvalidArgumentError, match='boolean'):
        bounds.satisfies_position_bounds(model, q, variables=np.ones(3, dtype=bool))
    zero = q.copy()
    zero[joint_vars(model, 'float')[3:]] = 0.0
    with pytest.raises(InvalidArgumentError, match='zero quaternion'):
        bounds.distance(model, zero, q)
    mask = np.zeros(model.nq, dtype=bool)
    mask[joint_vars(model, 'rev')] = True
    far = with_values(model, rev=0.5, cont=3.0)
    assert float(bounds.distance(model, far, with_values(model, rev=1.5), mask)) == \
        pytest.approx(1.0, abs=EXACT)


def test_plan_is_cached_per_model(model: RobotModel) -> None:
    """Index arrays are built once per model and are read-only."""
    bounds.velocity_limits_v(model)
    plan = bounds._plan(model)  # owned by the model (RobotModel.derived), built once
    bounds.satisfies_position_bounds(model, model.default_positions)
    assert bounds._plan(model) is plan
    assert not plan.bounded.flags.writeable


# ---------------------------------------------------------------------------- default robot


def test_default_robot_round_trip() -> None:
    """Default robot: samples satisfy bounds, interpolation endpoints, group distance."""
    robot = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    q = bounds.random_positions(robot, rng(), size=50)
    assert np.all(bounds.satisfies_position_bounds(robot, q))
    np.testing.assert_array_equal(bounds.interpolate(robot, q[0], q[1], 1.0), q[1])
    arm = robot.group('arm').variable_indices
    d = bounds.distance(robot, q[:-1], q[1:], arm)
    np.testing.assert_allclose(d, bounds.distance(robot, q[1:], q[:-1], arm), atol=EXACT)
    near = bounds.random_positions_near(robot, rng(), q, 0.1, arm)
    assert np.all(bounds.joint_distances(robot, q, near, arm) <= 0.1 + EXACT)
    assert np.all(bounds.satisfies_position_bounds(robot, near))
