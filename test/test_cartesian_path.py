"""Cartesian paths (``robot_state_core.ik.cartesian``) against closed forms and MoveIt's tests.

Every state of every path is checked with Pinocchio's FK (an oracle independent of ours): the
moved frame stays on the straight line between the waypoints (within the interpolator's
precision plus the IK tolerance), steps are at most ``max_step`` apart, and the last state is
the waypoint. Ported from MoveIt: ``moveit_core/robot_state/test/test_cartesian_interpolator.cpp``
(moveit/moveit2 @0ce7a222 for SimpleRobot's jump tests; the Panda tests from the MoveIt 1 copy
where they are active). MoveIt's Panda tests compare to 1e-8 with an analytic IK plugin; ours
is a numeric IK with a 1e-5 m / 1e-4 rad tolerance, so the checks use those tolerances.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.geometry.shapes import Box
from robot_state_core.ik.cartesian import (
    check_joint_space_jump,
    compute_cartesian_path,
    JumpThreshold,
)
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    PlanningScene,
)
from robot_state_core.spatial.transforms import rotation_angle, rotation_exp
from robot_state_core.state.robot_state import RobotState

IK_POSITION = 1e-5
IK_ROTATION = 1e-4
LINE = 1e-3 + IK_POSITION  # CartesianPrecision.translational + the IK tolerance


@pytest.fixture(scope='module')
def robot() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


def _pin_poses(model: RobotModel, urdf, path: np.ndarray, link: str) -> np.ndarray:
    """``(K, 4, 4)`` poses of ``link`` by Pinocchio (the oracle)."""
    import pinocchio as pin

    pm, _ = pinocchio_oracle.load(urdf)
    data = pm.createData()
    frame = pm.getFrameId(link)
    out = []
    for q in path:
        pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
        out.append(data.oMf[frame].homogeneous)
    return np.array(out)


def _distance_to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(((p - a) @ ab) / (ab @ ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def _translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def test_straight_lines_through_two_waypoints(robot: RobotModel) -> None:
    """The default robot's arm: tool0 10 cm forward, then 10 cm sideways and 5 cm down.

    Pinocchio's FK of every state lies on the two segments; steps ≤ max_step (one IK step is
    segment / steps, steps = floor(d / max_step) + 1); orientation constant; the end is the
    second waypoint; the path starts with the start state; fraction 1.
    """
    state = RobotState(robot)
    state.set_to_default_values('arm', 'ready')
    X0 = state.get_global_link_transform('tool0')
    X1 = X0 @ np.eye(4)
    X1[:3, 3] += (0.1, 0.0, 0.0)
    X2 = X1.copy()
    X2[:3, 3] += (0.0, 0.1, -0.05)
    result = compute_cartesian_path(robot, state.positions, 'arm', [X1, X2], link='tool0',
                                    max_step=0.01)
    assert result.fraction == 1.0 and result.message == ''
    np.testing.assert_array_equal(result.path[0], state.positions)
    assert len(result.path) >= 1 + (math.floor(0.1 / 0.01) + 1) + \
        (math.floor(math.hypot(0.1, 0.05) / 0.01) + 1)
    poses = _pin_poses(robot, default_robot_urdf_path(), result.path, 'tool0')
    p = poses[:, :3, 3]
    first = np.flatnonzero(np.isclose(p[:, 0], X1[0, 3], atol=IK_POSITION))[0]
    assert _distance_to_segment(p[:first + 1], X0[:3, 3], X1[:3, 3]).max() <= LINE
    assert _distance_to_segment(p[first:], X1[:3, 3], X2[:3, 3]).max() <= LINE
    assert np.linalg.norm(np.diff(p, axis=0), axis=1).max() <= 0.01 + 2 * IK_POSITION
    np.testing.assert_allclose(p[-1], X2[:3, 3], atol=IK_POSITION)
    for X in poses:
        assert rotation_angle(X0[:3, :3].T @ X[:3, :3]) <= 0.01 + IK_ROTATION


def test_an_unreachable_waypoint_gives_the_fraction_reached(robot: RobotModel) -> None:
    """A second waypoint 2 m away: the path stops at the arm's reach.

    The fraction is (1 + the failing segment's reached share) / 2, as MoveIt computes it.
    """
    state = RobotState(robot)
    state.set_to_default_values('arm', 'ready')
    X0 = state.get_global_link_transform('tool0')
    X1 = X0.copy()
    X1[:3, 3] += (0.05, 0.0, 0.0)
    far = X1 @ _translation(0.0, 0.0, 0.0)
    far[:3, 3] += (2.0, 0.0, 0.0)
    result = compute_cartesian_path(robot, state.positions, 'arm', [X1, far], link='tool0',
                                    max_step=0.01)
    assert 0.5 < result.fraction < 1.0
    assert result.message.startswith('waypoint 1: no IK solution')
    end = _pin_poses(robot, default_robot_urdf_path(), result.path[-1:], 'tool0')[0, :3, 3]
    reached = (result.fraction * 2 - 1.0) * 2.0  # metres along the 2 m segment
    np.testing.assert_allclose(end, X1[:3, 3] + (reached, 0.0, 0.0), atol=IK_POSITION)
    steps = math.floor(2.0 / 0.01) + 1  # the fraction is a whole number of steps
    assert abs((result.fraction * 2 - 1.0) * steps - round((result.fraction * 2 - 1.0) * steps)) \
        < 1e-9
    # a failing first waypoint: fraction < 1/1
    bad = compute_cartesian_path(robot, state.positions, 'arm', [far], max_step=0.01,
                                 link='tool0')
    assert bad.fraction < 1.0 and len(bad.path) >= 1


def test_a_collision_stops_the_path(robot: RobotModel) -> None:
    """A box on the line: the validity callback vetoes states; the path ends before it."""
    scene = PlanningScene(robot)
    state = scene.current_state
    state.set_to_default_values('arm', 'ready')
    X0 = state.get_global_link_transform('tool0')
    X1 = X0.copy()
    X1[:3, 3] += (0.15, 0.0, 0.0)
    scene.apply_world_object(CollisionObjectOperation.ADD, 'wall',
                             _translation(X0[0, 3] + 0.12, 0.0, X0[2, 3]),
                             [(Box(0.02, 0.5, 0.5), np.eye(4))])
    checker = state.copy()

    def valid(q: np.ndarray) -> bool:
        checker.set_variable_positions(q)
        return not scene.is_state_colliding(checker, 'arm')

    free = compute_cartesian_path(robot, state.positions, 'arm', [X1], link='tool0',
                                  max_step=0.01)
    assert free.fraction == 1.0
    blocked = compute_cartesian_path(robot, state.positions, 'arm', [X1], link='tool0',
                                     max_step=0.01, validity=valid)
    assert 0.0 < blocked.fraction < 0.8
    for q in blocked.path:
        checker.set_variable_positions(q)
        assert not scene.is_state_colliding(checker, 'arm')
    checker.set_variable_positions(free.path[-1])
    assert scene.is_state_colliding(checker, 'arm')  # without the callback: through the wall


def test_relative_waypoints_follow_the_link_frame(robot: RobotModel) -> None:
    """global_frame=False: each waypoint is relative to the pose reached at the previous one."""
    state = RobotState(robot)
    state.set_to_default_values('arm', 'ready')
    X0 = state.get_global_link_transform('tool0')
    step = _translation(0.0, 0.0, 0.05)  # 5 cm along tool0's z
    result = compute_cartesian_path(robot, state.positions, 'arm', [step, step], link='tool0',
                                    max_step=0.01, global_frame=False)
    assert result.fraction == 1.0
    end = _pin_poses(robot, default_robot_urdf_path(), result.path[-1:], 'tool0')[0]
    np.testing.assert_allclose(end[:3, 3], (X0 @ _translation(0.0, 0.0, 0.1))[:3, 3],
                               atol=2 * IK_POSITION)


def test_errors() -> None:
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    q = RobotState(model).positions
    with pytest.raises(InvalidArgumentError, match='max_step'):
        compute_cartesian_path(model, q, 'arm', [np.eye(4)], max_step=0.0)
    with pytest.raises(UnknownNameError):
        compute_cartesian_path(model, q, 'nope', [np.eye(4)], max_step=0.01)
    with pytest.raises(UnknownNameError):
        compute_cartesian_path(model, q, 'arm', [np.eye(4)], max_step=0.01, link='nope')
    empty = compute_cartesian_path(model, q, 'arm', [], max_step=0.01)
    assert empty.fraction == 0.0 and len(empty.path) == 1


# ---------------------------------------------------------------------------- MoveIt's tests

SIMPLE_URDF = '''<robot name="simple">
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="a-b-joint" type="continuous"><parent link="a"/><child link="b"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="b-c-joint" type="prismatic"><parent link="b"/><child link="c"/>
    <axis xyz="1 0 0"/><limit lower="-10" upper="10" effort="1" velocity="1"/></joint>
</robot>'''
SIMPLE_SRDF = '''<robot name="simple"><group name="group"><chain base_link="a" tip_link="c"/>
</group></robot>'''


def _simple_traj(model: RobotModel) -> np.ndarray:
    """MoveIt's ``generateTestTraj``: 7 states with a revolute jump then a prismatic one."""
    state = RobotState(model)
    state.set_to_default_values()
    ja, jc = state.get_variable_position('a-b-joint'), state.get_variable_position('b-c-joint')
    rows = [(ja, jc)] * 3 + [(ja - 0.01, jc - 0.01), (ja + 1.0, jc - 0.01),
                             (ja + 1.0, jc + 1.0), (ja + 1.0, jc + 1.0)]
    out = []
    for a, c in rows:
        state.set_variable_positions({'a-b-joint': a, 'b-c-joint': c})
        out.append(state.positions.copy())
    return np.array(out)


def test_moveit_check_absolute_joint_space_jump() -> None:
    """CheckAbsoluteJointSpaceJump (SimpleRobot): cuts 4/7, 4/7, 5/7 and none.

    Upstream sets JumpThreshold::absolute(r, p); 2.10+ requires both > 0, so the fields are
    set directly, as the research notes say the older test did.
    """
    model = RobotModel.from_urdf_string(SIMPLE_URDF, SIMPLE_SRDF)
    traj = _simple_traj(model)
    assert len(traj) == 7
    for (rev, pris), kept in (((1.0, 1.0), 4), ((1.0, 0.0), 4), ((0.0, 1.0), 5),
                              ((0.0, 0.0), 7)):
        out, share = check_joint_space_jump(model, 'group', traj,
                                            JumpThreshold(revolute=rev, prismatic=pris))
        assert len(out) == kept and share == pytest.approx(kept / 7, abs=0.01)


def test_moveit_check_relative_joint_space_jump() -> None:
    """CheckRelativeJointSpaceJump (SimpleRobot): factor 2.97 cuts at 4/7, 2.98 keeps all.

    The distances are [0, 0, 0.02, 1.01, 1.01, 0], mean 0.34: 1.01 > 2.97 * 0.34 = 1.0098
    but < 2.98 * 0.34.
    """
    model = RobotModel.from_urdf_string(SIMPLE_URDF, SIMPLE_SRDF)
    traj = _simple_traj(model)
    out, share = check_joint_space_jump(model, 'group', traj, JumpThreshold(2.97))
    assert len(out) == 4 and share == pytest.approx(4 / 7, abs=0.01)
    out, share = check_joint_space_jump(model, 'group', traj, JumpThreshold(2.98))
    assert len(out) == 7 and share == 1.0


@pytest.fixture(scope='module')
def panda() -> tuple[RobotModel, RobotState]:
    r = robot_corpus.test_robot('panda')
    model = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)
    state = RobotState(model)
    state.set_to_default_values('arm_and_hand', 'default')  # MoveIt's "ready"
    return model, state


def _end(model: RobotModel, result, link: str = 'panda_link8') -> np.ndarray:
    r = robot_corpus.test_robot('panda')
    return _pin_poses(model, r.urdf_path, result.path[-1:], link)[0]


def test_moveit_panda_translations(panda) -> None:
    """TestTranslationGlobal / testTranslationLocal: 20 cm along x.

    In the model frame and in the link frame; MaxEEFStep 0.1.
    """
    model, state = panda
    X0 = state.get_global_link_transform('panda_link8')
    goal = X0.copy()
    goal[0, 3] += 0.2
    result = compute_cartesian_path(model, state.positions, 'arm', [goal], link='panda_link8',
                                    max_step=0.1)
    assert result.fraction == 1.0
    np.testing.assert_allclose(_end(model, result)[:3, 3], goal[:3, 3], atol=IK_POSITION)
    assert rotation_angle(_end(model, result)[:3, :3].T @ X0[:3, :3]) <= IK_ROTATION
    local = compute_cartesian_path(model, state.positions, 'arm', [_translation(0.2)],
                                   link='panda_link8', max_step=0.1, global_frame=False)
    assert local.fraction == 1.0
    np.testing.assert_allclose(_end(model, local)[:3, 3], (X0 @ _translation(0.2))[:3, 3],
                               atol=IK_POSITION)


def test_moveit_panda_rotations(panda) -> None:
    """TestRotationLocal / testRotationGlobal / testRotationOffset: π/4 about x, in place."""
    model, state = panda
    X0 = state.get_global_link_transform('panda_link8')
    rot = np.eye(4)
    rot[:3, :3] = rotation_exp([math.pi / 4, 0.0, 0.0])
    for waypoint, global_frame in ((rot, False), (X0 @ rot, True)):
        result = compute_cartesian_path(model, state.positions, 'arm', [waypoint],
                                        link='panda_link8', max_step=0.1,
                                        global_frame=global_frame)
        assert result.fraction == 1.0
        end = _end(model, result)
        np.testing.assert_allclose(end[:3, 3], X0[:3, 3], atol=IK_POSITION)
        assert rotation_angle(end[:3, :3].T @ (X0 @ rot)[:3, :3]) <= IK_ROTATION
    offset = _translation(0.0, 0.0, 0.2)
    offset[:3, :3] = rotation_exp([0.0, 0.0, -math.pi / 4])
    goal = X0 @ offset @ rot
    result = compute_cartesian_path(model, state.positions, 'arm', [goal], link='panda_link8',
                                    max_step=0.1, link_offset=offset)
    assert result.fraction == 1.0
    r = robot_corpus.test_robot('panda')
    for X in _pin_poses(model, r.urdf_path, result.path, 'panda_link8'):
        np.testing.assert_allclose((X @ offset)[:3, 3], (X0 @ offset)[:3, 3], atol=LINE)
    end = _end(model, result) @ offset
    assert rotation_angle(end[:3, :3].T @ goal[:3, :3]) <= IK_ROTATION


def test_a_joint_space_jump_ends_the_path() -> None:
    """A straight line the tip can follow only by flipping a joint half a turn: detected.

    SimpleRobot (a continuous joint about z, then a prismatic one along x): the tip goes from
    (1, 0) to (0, 1) on a line, so the joint angle sweeps 0 → π/2. A validity callback forbids
    angles in [0.6, 1.2]; there the IK finds the other branch (angle + π, negative extension),
    a half-turn jump in joint space while the tip moves a few millimetres. The midpoint check
    cannot make that step straight: the path ends before the band. Without the veto the path
    is complete (fraction 1).
    """
    from robot_state_core.ik.cartesian import CartesianPrecision
    from robot_state_core.ik.types import IKOptions

    model = RobotModel.from_urdf_string(SIMPLE_URDF, SIMPLE_SRDF)
    start = RobotState(model)
    start.set_variable_positions({'a-b-joint': 0.0, 'b-c-joint': 1.0})
    goal = _translation(0.0, 1.0)
    options = IKOptions(position_only=True, random_seed=1)
    precision = CartesianPrecision(rotational=10.0)  # only the tip position matters here
    angle = model.variable_index('a-b-joint')

    def outside_band(q: np.ndarray) -> bool:
        a = math.remainder(float(q[angle]), 2 * math.pi)
        return not 0.6 <= a <= 1.2

    kwargs = {'link': 'c', 'max_step': 0.02, 'ik_options': options, 'precision': precision}
    free = compute_cartesian_path(model, start.positions, 'group', [goal], **kwargs)
    assert free.fraction == 1.0
    vetoed = compute_cartesian_path(model, start.positions, 'group', [goal],
                                    validity=outside_band, **kwargs)
    assert vetoed.fraction < 0.5
    assert 'straight' in vetoed.message or 'no IK solution' in vetoed.message
    angles = np.array([math.remainder(q[angle], 2 * math.pi) for q in vetoed.path])
    assert angles.max() < 0.6 and np.abs(np.diff(angles)).max() < 0.1  # no flip kept
