"""REACH's evaluators (issue 29): oracles independent of our code.

Where the cases come from:

* Manipulability: the closed form of a planar two-link arm, ``w = l1 l2 |sin q2|`` (Yoshikawa,
  "Manipulability of robotic mechanisms", IJRR 1985, the two-link example), numpy's
  ``det``/``eigvalsh`` on random and diagonal matrices, and Pinocchio's Jacobian of the Panda.
* Formulas and edge behaviour: REACH's sources, computed by hand here:
  ``reach_ros2/src/evaluation/manipulability_moveit.cpp`` (1803c13a),
  ``joint_penalty_moveit.cpp`` (acdf4c5a), ``distance_penalty_moveit.cpp`` (03503622),
  ``reach/src/plugins/multiplicative_evaluator.cpp`` (33835a13).
* Distances: boxes placed at known gaps from the arm's box links (closed-form box geometry).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    ModelError,
    ModelMismatchError,
    UnknownNameError,
)
from robot_state_core.geometry.shapes import Box
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.reach.evaluators import (
    characteristic_length,
    distance_penalty,
    DistancePenalty,
    EvalContext,
    group_position_bounds,
    jacobian_rows,
    joint_limit_penalty,
    JointLimitPenalty,
    Manipulability,
    manipulability,
    Multiplicative,
    product,
    TRANSLATION_ROWS,
)
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.state.robot_state import RobotState

L1, L2, H = 0.5, 0.3, 0.1  # link lengths and the height of the first joint [m]
BOX = 0.04  # side of the links' square cross-section [m]

PLANAR_URDF = f'''<?xml version="1.0"?>
<robot name="planar2">
  <link name="base"/>
  <link name="link1">
    <collision><origin xyz="{L1 / 2} 0 0"/><geometry><box size="{L1} {BOX} {BOX}"/></geometry>
    </collision>
  </link>
  <link name="link2">
    <collision><origin xyz="{L2 / 2} 0 0"/><geometry><box size="{L2} {BOX} {BOX}"/></geometry>
    </collision>
  </link>
  <link name="tip"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="link1"/><origin xyz="0 0 {H}"/><axis xyz="0 0 1"/>
    <limit lower="-2.0" upper="2.0" effort="1" velocity="1"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="link1"/><child link="link2"/><origin xyz="{L1} 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2.5" upper="2.5" effort="1" velocity="1"/>
  </joint>
  <joint name="tip_joint" type="fixed">
    <parent link="link2"/><child link="tip"/><origin xyz="{L2} 0 0"/>
  </joint>
</robot>
'''
ARM_SRDF = '''<?xml version="1.0"?>
<robot name="planar2"><group name="arm"><chain base_link="base" tip_link="tip"/></group></robot>
'''
SLIDER = 0.4  # upper bound of the prismatic first joint of the slider variant [m]


@pytest.fixture(scope='module')
def planar() -> RobotModel:
    return RobotModel.from_urdf_string(PLANAR_URDF, ARM_SRDF)


def _context(model: RobotModel) -> EvalContext:
    return EvalContext(model, PlanningScene(model), 'arm', 'tip')


def _planar_jacobian(q: np.ndarray) -> np.ndarray:
    """``(..., 6, 2)`` closed-form Jacobian of the planar arm's tip (base frame, [v; ω])."""
    q1, q2 = q[..., 0], q[..., 1]
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    J = np.zeros((*q.shape[:-1], 6, 2))
    J[..., 0, 0], J[..., 0, 1] = -L1 * s1 - L2 * s12, -L2 * s12
    J[..., 1, 0], J[..., 1, 1] = L1 * c1 + L2 * c12, L2 * c12
    J[..., 5, :] = 1.0
    return J


# ---------------------------------------------------------------------- manipulability


def test_planar_two_link_yoshikawa_is_l1_l2_sin_q2(planar: RobotModel) -> None:
    """Yoshikawa (1985) two-link arm: w = l1 l2 |sin q2| over the in-plane translation rows."""
    ctx = _context(planar)
    evaluator = Manipulability(rows=(0, 1))
    for q2 in (0.0, 0.3, -1.1, math.pi / 2, 2.4):
        for q1 in (0.0, 1.3):
            score = evaluator.score(ctx, np.array([q1, q2]))
            assert score == pytest.approx(L1 * L2 * abs(math.sin(q2)), abs=1e-12)
    # the free function over a batch of closed-form Jacobians
    q = np.random.default_rng(3).uniform(-2.0, 2.0, size=(4, 5, 2))
    np.testing.assert_allclose(manipulability(_planar_jacobian(q), rows=(0, 1)),
                               L1 * L2 * np.abs(np.sin(q[..., 1])), rtol=1e-12, atol=1e-15)


def test_yoshikawa_with_more_rows_than_joints_is_sqrt_det_jt_j(planar: RobotModel) -> None:
    """REACH multiplies the min(m, n) singular values: 6 rows, 2 joints gives sqrt(det(JᵀJ))."""
    ctx = _context(planar)
    for q in (np.array([0.2, 0.7]), np.array([-1.0, 0.0])):
        J = _planar_jacobian(q)
        expected = math.sqrt(np.linalg.det(J.T @ J))
        assert Manipulability().score(ctx, q) == pytest.approx(expected, rel=1e-12)
        assert np.linalg.det(J @ J.T) == pytest.approx(0.0, abs=1e-12)  # not Yoshikawa's


def test_yoshikawa_and_ratio_match_numpy_on_random_matrices() -> None:
    """sqrt(det(J Jᵀ)) and sqrt(λmin/λmax) of J Jᵀ (numpy det, eigvalsh) on random 6x7 J."""
    J = np.random.default_rng(7).normal(size=(3, 4, 6, 7))
    JJt = J @ np.swapaxes(J, -1, -2)
    np.testing.assert_allclose(manipulability(J), np.sqrt(np.linalg.det(JJt)), rtol=1e-10)
    lam = np.linalg.eigvalsh(JJt)  # ascending
    np.testing.assert_allclose(manipulability(J, 'ratio'), np.sqrt(lam[..., 0] / lam[..., -1]),
                               rtol=1e-10)
    Jt = J[..., :3, :]  # translation rows
    np.testing.assert_allclose(manipulability(J, rows=TRANSLATION_ROWS),
                               np.sqrt(np.linalg.det(Jt @ np.swapaxes(Jt, -1, -2))), rtol=1e-10)


def test_diagonal_jacobian_known_values() -> None:
    """J = diag(1..6): product 720, ratio 1/6; rows (0, 1, 2): 6 and 1/3; rows (3, 4, 5): 120."""
    J = np.diag([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert manipulability(J) == pytest.approx(720.0)
    assert manipulability(J, 'ratio') == pytest.approx(1.0 / 6.0)
    assert manipulability(J, rows=(0, 1, 2)) == pytest.approx(6.0)
    assert manipulability(J, 'ratio', rows=(0, 1, 2)) == pytest.approx(1.0 / 3.0)
    assert manipulability(J, rows=(3, 4, 5)) == pytest.approx(120.0)
    # REACH's std::set: repeated and unsorted rows are the same subset
    assert manipulability(J, rows=(2, 0, 2)) == pytest.approx(3.0)
    assert jacobian_rows((5, 1, 5, 3)) == (1, 3, 5)
    assert manipulability(J, 'scaled', characteristic_length=2.0) == pytest.approx(360.0)
    assert manipulability(np.zeros((6, 3)), 'ratio') == 0.0  # REACH: 0/0


def test_rotating_the_frame_keeps_full_and_translation_rows_only() -> None:
    """diag(R, R) J keeps the singular values of all rows and of (0, 1, 2); not of (0, 1)."""
    rng = np.random.default_rng(11)
    J = rng.normal(size=(6, 7))
    a = 0.7
    R = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(a), -math.sin(a)],
                  [0.0, math.sin(a), math.cos(a)]])
    RJ = np.kron(np.eye(2), R) @ J
    for rows in ((0, 1, 2, 3, 4, 5), (0, 1, 2), (3, 4, 5)):
        assert manipulability(RJ, rows=rows) == pytest.approx(manipulability(J, rows=rows),
                                                              rel=1e-12)
    assert abs(manipulability(RJ, rows=(0, 1)) - manipulability(J, rows=(0, 1))) > 1e-3


def test_panda_yoshikawa_matches_pinocchio() -> None:
    """Group 'arm' of the Panda: prod σ = sqrt(det(J Jᵀ)), J from Pinocchio at panda_link7.

    REACH takes MoveIt's getJacobian(group): the group's last link (panda_link7 in this SRDF's
    chain), rows in the root-link frame; Pinocchio's world-aligned J differs by a rotation,
    which leaves the full and the translation rows' values unchanged.
    """
    pin = pytest.importorskip('pinocchio')
    r = robot_corpus.test_robot('panda')
    model = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)
    ctx = EvalContext(model, PlanningScene(model), 'arm', 'panda_link7')
    pm, _ = pinocchio_oracle.load(r.urdf_path)
    data = pm.createData()
    columns = [pm.joints[pm.getJointId(f'panda_joint{k}')].idx_v for k in range(1, 8)]
    rng = np.random.default_rng(29)
    for _ in range(5):
        q = pinocchio_oracle.random_q(model, rng)
        qp = pinocchio_oracle.to_pinocchio_q(model, pm, q)
        J = pin.computeFrameJacobian(pm, data, qp, pm.getFrameId('panda_link7'),
                                     pin.LOCAL_WORLD_ALIGNED)[:, columns]
        expected = math.sqrt(np.linalg.det(J @ J.T))
        assert Manipulability().score(ctx, q) == pytest.approx(expected, rel=1e-9)
        Jv = J[:3]
        assert Manipulability(rows=TRANSLATION_ROWS).score(ctx, q) == pytest.approx(
            math.sqrt(np.linalg.det(Jv @ Jv.T)), rel=1e-9)
        lam = np.linalg.eigvalsh(J @ J.T)
        assert Manipulability('ratio').score(ctx, q) == pytest.approx(
            math.sqrt(lam[0] / lam[-1]), rel=1e-8)


def test_characteristic_length_by_reach_formula(planar: RobotModel) -> None:
    """Hand sums of REACH's calculateCharacteristicLength.

    Revolute arm: |origin j1| + 0 (revolute motion) + |origin j2| + |origin tip_joint|
    = H + L1 + L2. Slider variant (j1 prismatic, upper SLIDER): H + SLIDER + L1 + L2; with
    link1 excluded: L1 + L2 (the last active joint is never excluded or extended).
    """
    assert characteristic_length(planar, 'arm', 'tip') == pytest.approx(H + L1 + L2)
    assert characteristic_length(planar, 'arm', 'link2') == pytest.approx(H + L1)
    slider = RobotModel.from_urdf_string(PLANAR_URDF.replace(
        '<joint name="j1" type="revolute">', '<joint name="j1" type="prismatic">').replace(
        '<limit lower="-2.0" upper="2.0"', f'<limit lower="0.0" upper="{SLIDER}"'), ARM_SRDF)
    assert characteristic_length(slider, 'arm', 'tip') == pytest.approx(H + SLIDER + L1 + L2)
    assert characteristic_length(slider, 'arm', 'tip', ['link1']) == pytest.approx(L1 + L2)
    ctx = _context(slider)
    q = np.array([0.1, 0.9])
    J = _planar_jacobian(np.array([0.0, 0.9]))  # j1 now slides along z: column 0 is v = z
    J[:, 0] = (0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    expected = math.sqrt(np.linalg.det(J.T @ J)) / (H + SLIDER + L1 + L2)
    assert Manipulability('scaled').score(ctx, q) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ModelError):  # the tip is not below the last active joint
        characteristic_length(planar, 'arm', 'base')


# ---------------------------------------------------------------------- joint penalty


def test_joint_limit_penalty_by_reach_formula() -> None:
    """mean(4 (q - l)(u - q) / (u - l)²), by hand: 1 mid-range, ~0 at the bounds, symmetric."""
    lower, upper = np.array([-1.0, 0.0]), np.array([1.0, 4.0])
    assert joint_limit_penalty([0.0, 2.0], lower, upper) == pytest.approx(1.0)
    # 4 (1.5)(0.5)/4 = 0.75 and 4 (1)(3)/16 = 0.75
    assert joint_limit_penalty([0.5, 1.0], lower, upper) == pytest.approx(0.75)
    # 1e-6 inside both lower bounds: 4 (1e-6)(2 - 1e-6)/4 and 4 (1e-6)(4 - 1e-6)/16
    near = joint_limit_penalty([-1.0 + 1e-6, 1e-6], lower, upper)
    assert near == pytest.approx(0.5 * (1e-6 * (2 - 1e-6) + 1e-6 * (4 - 1e-6) / 4), rel=1e-9)
    assert joint_limit_penalty([1.0, 4.0], lower, upper) == 0.0
    q = np.array([[0.3, 0.5], [-0.3, 3.5]])  # mirror images about the middle
    penalties = joint_limit_penalty(q, lower, upper)
    assert penalties[0] == pytest.approx(penalties[1])
    # beyond a bound REACH does not clamp: 4 (3)(-1)/4 = -3, mean with 1
    assert joint_limit_penalty([2.0, 2.0], lower, upper) == pytest.approx(-1.0)
    # an infinite bound: that joint scores 1 (REACH would compute inf/inf)
    assert joint_limit_penalty([5.0, 1.0], [-np.inf, 0.0], [np.inf, 4.0]) == pytest.approx(
        (1.0 + 0.75) / 2)
    with pytest.raises(InvalidArgumentError):
        joint_limit_penalty([0.0], [1.0], [1.0])


def test_joint_limit_penalty_evaluator(planar: RobotModel) -> None:
    """Planar arm j1 in [-2, 2], j2 in [-2.5, 2.5] at (1, -1): (4·3·1/16 + 4·1.5·3.5/25) / 2."""
    ctx = _context(planar)
    expected = (4 * 3 * 1 / 16 + 4 * 1.5 * 3.5 / 25) / 2
    assert JointLimitPenalty().score(ctx, np.array([1.0, -1.0])) == pytest.approx(expected)
    continuous = RobotModel.from_urdf_string(PLANAR_URDF.replace(
        '<joint name="j1" type="revolute">', '<joint name="j1" type="continuous">'), ARM_SRDF)
    lower, upper = group_position_bounds(continuous, 'arm')
    np.testing.assert_array_equal(lower, [-np.inf, -2.5])
    np.testing.assert_array_equal(upper, [np.inf, 2.5])
    # j1 continuous scores 1 at any angle (MoveIt's [-π, π] would give 1 - 3²/π²)
    score = JointLimitPenalty().score(_context(continuous), np.array([3.0, -1.0]))
    assert score == pytest.approx((1.0 + 4 * 1.5 * 3.5 / 25) / 2)


# ---------------------------------------------------------------------- distance penalty


def test_distance_penalty_by_reach_formula() -> None:
    """min(|d / threshold|, 1) ** exponent, by hand (threshold 0.1 m, exponent 2)."""
    d = np.array([0.0, 0.1, 0.03, 0.5, -0.03, np.inf])
    np.testing.assert_allclose(distance_penalty(d, 0.1, 2),
                               [0.0, 1.0, 0.09, 1.0, 0.09, 1.0], rtol=1e-12)
    assert distance_penalty(-0.03, 0.1, 1) == pytest.approx(0.3)  # |d|, not d
    assert distance_penalty(0.0, 0.1, 0) == 1.0  # std::pow(0, 0) = 1
    with pytest.raises(InvalidArgumentError):
        distance_penalty(0.05, 0.0, 2)
    with pytest.raises(InvalidTypeError):
        distance_penalty(0.05, 0.1, 1.5)  # type: ignore[arg-type]


def _box_scene(model: RobotModel, gap: float) -> PlanningScene:
    """A 0.1 m cube 'part' ``gap`` beyond the tip of the stretched arm (q = 0), same height."""
    scene = PlanningScene(model)
    X = np.eye(4)
    X[:3, 3] = (L1 + L2 + gap + 0.05, 0.0, H)
    scene.apply_world_object(CollisionObjectOperation.ADD, 'part', X,
                             [(Box(0.1, 0.1, 0.1), np.eye(4))])
    return scene


def test_distance_penalty_with_a_box_at_a_known_gap(planar: RobotModel) -> None:
    """Gap 0.04 m to link2's end face: (0.04 / 0.1)² = 0.16; touch link2: link1 at 0.34 m."""
    q = np.zeros(2)
    ctx = EvalContext(planar, _box_scene(planar, 0.04), 'arm', 'tip')
    assert DistancePenalty(0.1, 2).score(ctx, q) == pytest.approx(0.16, abs=1e-6)
    assert DistancePenalty(0.1, 1, objects=('part',)).score(ctx, q) == pytest.approx(
        0.4, abs=1e-6)
    touching = DistancePenalty(1.0, 1, touch_links=('link2',))
    assert touching.score(ctx, q) == pytest.approx(L2 + 0.04, abs=1e-6)
    # a second, nearer box 0.02 m beside link1 counts unless the part is named
    X = np.eye(4)
    X[:3, 3] = (L1 / 2, BOX / 2 + 0.02 + 0.05, H)
    ctx.scene.apply_world_object(CollisionObjectOperation.ADD, 'fence', X,
                                 [(Box(0.1, 0.1, 0.1), np.eye(4))])
    assert DistancePenalty(0.1, 1).score(ctx, q) == pytest.approx(0.2, abs=1e-6)
    assert DistancePenalty(0.1, 1, objects=('part',)).score(ctx, q) == pytest.approx(
        0.4, abs=1e-6)
    with pytest.raises(UnknownNameError):
        DistancePenalty(0.1, 1, objects=('prat',)).score(ctx, q)


def test_distance_penalty_penetration_and_empty_world(planar: RobotModel) -> None:
    """REACH's |d|: 0.01 m into the part scores (0.01 / 0.1)² = 0.01; no object scores 1."""
    q = np.zeros(2)
    ctx = EvalContext(planar, _box_scene(planar, -0.01), 'arm', 'tip')
    assert ctx.scene.distance_to_collision(RobotState(planar)) == pytest.approx(-0.01, abs=1e-6)
    assert DistancePenalty(0.1, 2).score(ctx, q) == pytest.approx(0.01, abs=1e-6)
    assert DistancePenalty(0.1, 2).score(_context(planar), q) == 1.0


# ---------------------------------------------------------------------- multiplicative


def test_multiplicative_is_the_product(planar: RobotModel) -> None:
    """REACH's MultiplicativeEvaluator: 1 · s1 · s2 · ...; the same from q or from a state."""
    ctx = EvalContext(planar, _box_scene(planar, 0.04), 'arm', 'tip')
    q = np.array([0.0, 0.0])
    parts = (DistancePenalty(0.1, 2), JointLimitPenalty(), Manipulability(rows=(0, 1)))
    q2 = np.array([0.5, 1.0])
    expected = ((4 * 2.5 * 1.5 / 16 + 4 * 3.5 * 1.5 / 25) / 2) * L1 * L2 * math.sin(1.0)
    both = Multiplicative(parts[1:])
    assert both.score(ctx, q2) == pytest.approx(expected, rel=1e-12)
    state = RobotState(planar)
    state.set_variable_positions(q2)
    assert both.score(ctx, state) == pytest.approx(expected, rel=1e-12)
    assert Multiplicative(parts).score(ctx, q) == pytest.approx(0.16 * 1.0 * 0.0, abs=1e-12)
    np.testing.assert_allclose(product([[0.5, 1.0], [0.2, 0.0], [2.0, 3.0]]), [0.2, 0.0])
    assert product([]) == 1.0
    with pytest.raises(InvalidArgumentError):
        Multiplicative(())


# ---------------------------------------------------------------------- arguments


def test_invalid_arguments_raise_typed_errors(planar: RobotModel) -> None:
    """REACH's configuration errors (row subset, unknown group) and ours, as typed errors."""
    with pytest.raises(InvalidArgumentError):
        jacobian_rows(())  # REACH: "Jacobian row subset is empty"
    with pytest.raises(InvalidArgumentError):
        Manipulability(rows=(0, 6))  # REACH: "Must be on interval [0, 6)"
    with pytest.raises(InvalidArgumentError):
        Manipulability('condition')  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        Manipulability(excluded_links=('link1',))
    with pytest.raises(InvalidArgumentError):
        manipulability(np.eye(6), 'scaled')
    with pytest.raises(InvalidArgumentError):
        manipulability(np.eye(5))
    with pytest.raises(InvalidArgumentError):
        DistancePenalty(0.1, -1)
    with pytest.raises(UnknownNameError):
        EvalContext(planar, PlanningScene(planar), 'legs', 'tip')
    other = RobotModel.from_urdf_string(PLANAR_URDF, ARM_SRDF)
    with pytest.raises(ModelMismatchError):
        EvalContext(planar, PlanningScene(other), 'arm', 'tip')
    with pytest.raises(ModelMismatchError):
        JointLimitPenalty().score(_context(planar), RobotState(other))
