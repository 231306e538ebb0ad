"""MoveIt ``RobotState`` behaviour, ported from MoveIt's own tests (expected numbers verbatim).

Origin, unless a test names another: ``moveit/moveit2``,
``moveit_core/robot_state/test/robot_state_test.cpp`` (fixture ``OneRobot``: ``MODEL2`` and
``SMODEL2`` below are its inputs; the ``getJacobian`` tests bring their own URDFs). The
``link/with/slash`` link of the fixture and the ``rigidlyConnectedParent`` transform and slash
checks come from the newer text of the same file in ``moveit/moveit`` (master), which the
stored moveit2 copy predates. Where MoveIt's tests have no case, the expectation is derived
from MoveIt's source (the function is named in the test) or from an independent oracle
(Pinocchio, closed forms).

This file holds the behaviour half of the port (bounds, interpolation, distance, Jacobians,
frames, groups); loading and FK live in ``test_moveit_robot_state_port.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import robot_corpus

from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import pose_from_xyz_rpy
from robot_state_core.state.attached_body import AttachedBody
from robot_state_core.state.robot_state import RobotState

EPSILON = 1e-9
'''robot_state_test.cpp ``EPSILON``.'''
PIN_TOL = 1e-10
'''Our Jacobians against Pinocchio's (same arithmetic, a few ulps of O(1) values).'''

# robot_state_test.cpp, fixture OneRobot, MODEL2 (verbatim, one element per line).
MODEL2 = '''<?xml version="1.0" ?>
<robot name="one_robot">
<link name="base_link">
  <inertial>
    <mass value="2.81"/>
    <origin rpy="0 0 0" xyz="0.0 0.0 .0"/>
    <inertia ixx="0.1" ixy="-0.2" ixz="0.5" iyy="-.09" iyz="1" izz="0.101"/>
  </inertial>
  <collision name="my_collision">
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </visual>
</link>
<joint name="joint_a" type="continuous">
   <axis xyz="0 0 1"/>
   <parent link="base_link"/>
   <child link="link_a"/>
   <origin rpy=" 0.0 0 0 " xyz="0.0 0 0 "/>
</joint>
<link name="link_a">
  <inertial>
    <mass value="1.0"/>
    <origin rpy="0 0 0" xyz="0.0 0.0 .0"/>
    <inertia ixx="0.1" ixy="-0.2" ixz="0.5" iyy="-.09" iyz="1" izz="0.101"/>
  </inertial>
  <collision>
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </visual>
</link>
<joint name="joint_b" type="fixed">
  <parent link="link_a"/>
  <child link="link_b"/>
  <origin rpy=" 0.0 -0.42 0 " xyz="0.0 0.5 0 "/>
</joint>
<link name="link_b">
  <inertial>
    <mass value="1.0"/>
    <origin rpy="0 0 0" xyz="0.0 0.0 .0"/>
    <inertia ixx="0.1" ixy="-0.2" ixz="0.5" iyy="-.09" iyz="1" izz="0.101"/>
  </inertial>
  <collision>
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </visual>
</link>
  <joint name="joint_c" type="prismatic">
    <axis xyz="1 0 0"/>
    <limit effort="100.0" lower="0.0" upper="0.09" velocity="0.2"/>
    <safety_controller k_position="20.0" k_velocity="500.0" soft_lower_limit="0.0"
soft_upper_limit="0.089"/>
    <parent link="link_b"/>
    <child link="link_c"/>
    <origin rpy=" 0.0 0.42 0.0 " xyz="0.0 -0.1 0 "/>
  </joint>
<link name="link_c">
  <inertial>
    <mass value="1.0"/>
    <origin rpy="0 0 0" xyz="0.0 0 .0"/>
    <inertia ixx="0.1" ixy="-0.2" ixz="0.5" iyy="-.09" iyz="1" izz="0.101"/>
  </inertial>
  <collision>
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </visual>
</link>
  <joint name="mim_f" type="prismatic">
    <axis xyz="1 0 0"/>
    <limit effort="100.0" lower="0.0" upper="0.19" velocity="0.2"/>
    <parent link="link_c"/>
    <child link="link_d"/>
    <origin rpy=" 0.0 0.0 0.0 " xyz="0.1 0.1 0 "/>
    <mimic joint="joint_f" multiplier="1.5" offset="0.1"/>
  </joint>
  <joint name="joint_f" type="prismatic">
    <axis xyz="1 0 0"/>
    <limit effort="100.0" lower="0.0" upper="0.19" velocity="0.2"/>
    <parent link="link_d"/>
    <child link="link_e"/>
    <origin rpy=" 0.0 0.0 0.0 " xyz="0.1 0.1 0 "/>
  </joint>
<link name="link_d">
  <collision>
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </collision>
  <visual>
    <origin rpy="0 1 0" xyz="0 0.1 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </visual>
</link>
<link name="link_e">
  <collision>
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </collision>
  <visual>
    <origin rpy="0 1 0" xyz="0 0.1 0"/>
    <geometry><box size="1 2 1" /></geometry>
  </visual>
</link>
<link name="link/with/slash" />
<joint name="joint_link_with_slash" type="fixed">
  <parent link="base_link"/>
  <child link="link/with/slash"/>
  <origin rpy="0 0 0" xyz="0 0 0"/>
</joint>
</robot>'''

# robot_state_test.cpp, fixture OneRobot, SMODEL2 (verbatim).
SMODEL2 = '''<?xml version="1.0" ?>
<robot name="one_robot">
<virtual_joint name="base_joint" child_link="base_link" parent_frame="odom_combined" \
type="planar"/>
<group name="base_from_joints">
<joint name="base_joint"/>
<joint name="joint_a"/>
<joint name="joint_c"/>
</group>
<group name="mim_joints">
<joint name="joint_f"/>
<joint name="mim_f"/>
</group>
<group name="base_with_subgroups">
<group name="base_from_base_to_tip"/>
<joint name="joint_c"/>
</group>
<group name="base_from_base_to_tip">
<chain base_link="base_link" tip_link="link_b"/>
<joint name="base_joint"/>
</group>
<group name="base_from_base_to_e">
<chain base_link="base_link" tip_link="link_e"/>
<joint name="base_joint"/>
</group>
<group name="base_with_bad_subgroups">
<group name="error"/>
</group>
</robot>'''


@pytest.fixture(scope='module')
def one_robot() -> RobotModel:
    """The OneRobot model (SRDF verbatim: the loader drops ``base_with_bad_subgroups``)."""
    return RobotModel.from_urdf_string(MODEL2, SMODEL2)


# ------------------------------------------------------------------------------ groups


def test_onerobot_updated_links(one_robot: RobotModel) -> None:
    """OneRobot.FK (moveit master text): ``getUpdatedLinkModelNames()``.

    The joint and link lists are checked in ``test_moveit_robot_state_port.py``.
    """
    # "but they should have the same links to be updated"
    updated_link_model_names = ('base_link', 'link_a', 'link_b', 'link_c', 'link_d', 'link_e',
                                'link/with/slash')
    for name in ('base_from_joints', 'base_from_base_to_tip', 'base_with_subgroups'):
        assert one_robot.group(name).updated_link_model_names == updated_link_model_names


def test_group_link_list_excludes_the_chain_base(one_robot: RobotModel) -> None:
    """A chain group's link list leaves out the chain's base link.

    MoveIt ``JointModelGroup`` constructor: the link list is the child links of the group's
    joints, so a chain's base link is not in it (the PR2 ``left_arm`` chain starts at
    ``torso_lift_link`` and does not list it).
    """
    assert one_robot.group('mim_joints').link_names == ('link_d', 'link_e')
    assert one_robot.group('base_with_subgroups').link_names == (
        'base_link', 'link_a', 'link_b', 'link_c')
    r = robot_corpus.test_robot('pr2')
    pr2 = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)
    left_arm = pr2.group('left_arm')
    assert left_arm.base_link == 'torso_lift_link'
    assert 'torso_lift_link' not in left_arm.link_names
    assert left_arm.link_names == tuple(
        pr2.link_names[i] for i in sorted(int(pr2.joint_child_link[j])
                                          for j in left_arm.joint_indices))
    assert left_arm.link_names[0] == 'l_shoulder_pan_link'
    # Updated links: everything below the arm's root joint, gripper included.
    assert set(left_arm.link_names) <= set(left_arm.updated_link_model_names)
    assert 'l_gripper_r_finger_tip_link' in left_arm.updated_link_model_names
    assert 'torso_lift_link' not in left_arm.updated_link_model_names


def test_subgroups_are_inferred_from_joint_sets(one_robot: RobotModel) -> None:
    """Subgroups are inferred from the joint sets.

    MoveIt ``RobotModel::buildGroupsInfoSubgroups``: every other group whose joints are all
    in the group is a subgroup, sorted by name (not only the SRDF-declared ones).
    """
    assert one_robot.group('base_with_subgroups').subgroup_names == (
        'base_from_base_to_tip', 'base_from_joints')
    assert one_robot.group('base_from_base_to_e').subgroup_names == (
        'base_from_base_to_tip', 'base_from_joints', 'base_with_subgroups', 'mim_joints')
    assert one_robot.group('mim_joints').subgroup_names == ()


def test_mimic_group_updated_links_follow_moveit_roots(one_robot: RobotModel) -> None:
    """A group of a joint and its mimic has no root joint, so no updated links.

    MoveIt ``includesParent``: ``joint_f``'s parent ``mim_f`` mimics ``joint_f`` itself, so
    ``joint_f`` is not a root of ``mim_joints`` and the group updates no link (MoveIt's
    ``getUpdatedLinkModels()`` is empty for this group too).
    """
    assert one_robot.group('mim_joints').updated_link_model_names == ()


def test_chain_detection_is_ours(one_robot: RobotModel) -> None:
    """Our ``is_chain`` (decisions.md S-row): a declared ``<chain>`` or an unbroken joint path.

    MoveIt's ``isChain`` also accepts fixed joints outside the group between two group joints,
    so ``base_from_joints`` (``joint_b`` missing) is a chain there, not here.
    """
    assert not one_robot.group('base_from_joints').is_chain
    assert one_robot.group('base_from_base_to_tip').is_chain


# ------------------------------------------------------------------------------ bounds


def test_onerobot_bounds(one_robot: RobotModel) -> None:
    """OneRobot.FK, bounds part: satisfiesBounds / enforceBounds of a continuous joint."""
    state = RobotState(one_robot)
    state.set_to_default_values()
    state.set_variable_positions({'base_joint/x': 1.0, 'base_joint/y': 1.0,
                                  'base_joint/theta': 0.5, 'joint_a': -0.5, 'joint_c': 0.08})
    assert state.satisfies_bounds()
    state.set_variable_positions({'joint_a': 0.2})
    assert state.satisfies_bounds(joint='joint_a')
    assert state.get_variable_position('joint_a') == pytest.approx(0.2, abs=1e-3)
    state.enforce_bounds()
    assert state.get_variable_position('joint_a') == pytest.approx(0.2, abs=1e-3)
    state.set_variable_positions({'joint_a': 3.2})
    assert state.satisfies_bounds(joint='joint_a')
    assert state.get_variable_position('joint_a') == pytest.approx(3.2, abs=1e-3)
    state.enforce_bounds()
    assert state.get_variable_position('joint_a') == pytest.approx(-3.083185, abs=1e-3)
    assert state.satisfies_bounds(joint='joint_a')


def test_print_current_position_with_joint_limits(one_robot: RobotModel) -> None:
    """OneRobot.testPrintCurrentPositionWithJointLimits.

    OneRobot.testPrintCurrentPositionWithJointLimits: MoveIt asks for visual inspection of
    0, 1, 2, 1 joints out of bounds; we count the marked lines (continuous ``joint_a`` has a
    bar over [-π, π], the planar and the mimic joint have none).
    """
    state = RobotState(one_robot)
    state.set_to_default_values()

    def out_of_bounds() -> int:
        text = state.positions_with_limits('base_from_base_to_e')
        bars = text.splitlines()[1:]
        assert [line.split('\t')[3].split()[0] for line in bars] == ['joint_a', 'joint_c',
                                                                     'joint_f']
        return text.count('OUT OF BOUNDS')

    assert out_of_bounds() == 0
    state.set_joint_positions('joint_c', [-1.0])
    assert out_of_bounds() == 1
    state.set_joint_positions('joint_f', [1.0])
    assert out_of_bounds() == 2
    state.set_joint_positions('joint_f', [0.19])
    assert out_of_bounds() == 1


# ------------------------------------------------------------------------------ interpolation


def test_interpolation(one_robot: RobotModel) -> None:
    """OneRobot.testInterpolation, every assertion (EPSILON 1e-9)."""
    group = 'base_from_base_to_e'
    state_a = RobotState(one_robot)
    # Interpolate with itself
    state_a.set_to_default_values()
    state_b = state_a.copy()
    interpolated = state_a.copy()
    # MoveIt iterates over its links, which all have one box; our model also has the planar
    # virtual joint's parent frame 'odom_combined' as a (geometry-less) link.
    links = [n for n, link in zip(one_robot.link_names, one_robot.links, strict=True)
             if link.collisions]
    assert len(links) == 6
    for i in range(11):
        state_a.interpolate(state_b, i / 10.0, interpolated, group)
        assert state_a.distance(state_b) == pytest.approx(0.0, abs=EPSILON)
        for name in links:
            assert not np.isnan(interpolated.get_collision_body_transform(name, 0)).any()

    # Some simple interpolation
    joint_values = {'base_joint/x': 1.0, 'base_joint/y': 1.0}
    state_a.set_variable_positions(joint_values)
    joint_values.update({'base_joint/x': 0.0, 'base_joint/y': 2.0})
    state_b.set_variable_positions(joint_values)
    # RobotModel::distance: the planar joint's distance factor is 3 (state-space dimension).
    assert state_a.distance(state_b) == pytest.approx(3 * math.sqrt(2), abs=EPSILON)
    state_a.interpolate(state_b, 0.5, interpolated, group)
    assert state_a.distance(interpolated) - state_b.distance(interpolated) == pytest.approx(
        0.0, abs=EPSILON)
    assert interpolated.get_variable_position('base_joint/x') == pytest.approx(0.5, abs=EPSILON)
    assert interpolated.get_variable_position('base_joint/y') == pytest.approx(1.5, abs=EPSILON)
    state_a.interpolate(state_b, 0.1, interpolated, group)
    assert interpolated.get_variable_position('base_joint/x') == pytest.approx(0.9, abs=EPSILON)
    assert interpolated.get_variable_position('base_joint/y') == pytest.approx(1.1, abs=EPSILON)

    # Interpolate all the joints
    pi = math.pi
    state_a.set_variable_positions({'base_joint/x': 0.0, 'base_joint/y': 20.0,
                                    'base_joint/theta': 3 * pi / 4, 'joint_a': -4 * pi / 5,
                                    'joint_c': 0.0, 'joint_f': 1.0})
    state_b.set_variable_positions({'base_joint/x': 10.0, 'base_joint/y': 0.0,
                                    'base_joint/theta': -3 * pi / 4, 'joint_a': 4 * pi / 5,
                                    'joint_c': 0.07, 'joint_f': 0.0})
    for i in range(6):
        t = i / 5.0
        state_a.interpolate(state_b, t, interpolated, group)
        value = interpolated.get_variable_position
        assert value('base_joint/x') == pytest.approx(10.0 * t, abs=EPSILON)
        assert value('base_joint/y') == pytest.approx(20.0 * (1 - t), abs=EPSILON)
        if t < 0.5:
            assert value('base_joint/theta') == pytest.approx(3 * pi / 4 + (pi / 2) * t,
                                                              abs=EPSILON)
            assert value('joint_a') == pytest.approx(-4 * pi / 5 - (2 * pi / 5) * t,
                                                     abs=EPSILON)
        else:
            assert value('base_joint/theta') == pytest.approx(-3 * pi / 4 - (pi / 2) * (1 - t),
                                                              abs=EPSILON)
            assert value('joint_a') == pytest.approx(4 * pi / 5 + (2 * pi / 5) * (1 - t),
                                                     abs=EPSILON)
        assert value('joint_c') == pytest.approx(0.07 * t, abs=EPSILON)
        assert value('joint_f') == pytest.approx(1 - t, abs=EPSILON)
        assert value('mim_f') == pytest.approx(1.5 * (1 - t) + 0.1, abs=EPSILON)

    # MoveIt throws for a non-finite fraction; ours raises its typed error.
    with pytest.raises(InvalidArgumentError, match='finite'):
        state_a.interpolate(state_b, math.inf, interpolated, group)


# ------------------------------------------------------------------------------ distance

PLANAR_BASE = '''<?xml version="1.0"?>
<robot name="base"><link name="base_link"/><link name="arm"/>
  <joint name="j" type="revolute"><parent link="base_link"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>'''


def _base(joint_type: str, properties: str = '') -> RobotModel:
    srdf = f'''<?xml version="1.0"?>
<robot name="base">
  <virtual_joint name="base_joint" type="{joint_type}" parent_frame="odom" child_link="base_link"/>
  <group name="all"><joint name="base_joint"/><joint name="j"/></group>
  {properties}
</robot>'''
    return RobotModel.from_urdf_string(PLANAR_BASE, srdf)


def _pair(model: RobotModel, a: dict[str, float], b: dict[str, float]
          ) -> tuple[RobotState, RobotState]:
    sa, sb = RobotState(model), RobotState(model)
    sa.set_variable_positions(a)
    sb.set_variable_positions(b)
    return sa, sb


def test_distance_factors_are_state_space_dimensions() -> None:
    """Distance factors are the joint state-space dimensions.

    MoveIt ``RobotModel::constructJointModel`` sets every distance factor to the joint's
    state-space dimension; ``RobotState::distance(other[, group])`` weights by it,
    ``distance(other, joint)`` does not (testInterpolation's 3√2 is the planar case).
    """
    planar = _base('planar')
    np.testing.assert_array_equal(planar.joint_distance_factors, [3.0, 1.0])
    sa, sb = _pair(planar, {'base_joint/x': 1.0, 'base_joint/y': 1.0, 'j': 0.0},
                   {'base_joint/x': 0.0, 'base_joint/y': 2.0, 'j': 0.5})
    assert sa.distance(sb) == pytest.approx(3 * math.sqrt(2) + 0.5, abs=EPSILON)
    assert sa.distance(sb, 'all') == pytest.approx(3 * math.sqrt(2) + 0.5, abs=EPSILON)
    assert sa.distance(sb, joint='base_joint') == pytest.approx(math.sqrt(2), abs=EPSILON)
    assert sa.distance(sb, joint='j') == pytest.approx(0.5, abs=EPSILON)
    # rpy_floating is not a MoveIt type; it counts like floating (6 state-space dimensions).
    np.testing.assert_array_equal(_base('rpy_floating').joint_distance_factors, [6.0, 1.0])
    floating = _base('floating')
    np.testing.assert_array_equal(floating.joint_distance_factors, [6.0, 1.0])
    half_turn = {'base_joint/rot_z': math.sin(0.25), 'base_joint/rot_w': math.cos(0.25)}
    sa, sb = _pair(floating, {'base_joint/trans_x': 1.0}, {'base_joint/trans_z': 1.0,
                                                           **half_turn})
    # FloatingJointModel::distance: translation + angular_distance_weight * rotation angle
    # (Eigen angularDistance: the full angle, here 0.5 rad).
    assert sa.distance(sb, joint='base_joint') == pytest.approx(math.sqrt(2) + 0.5, abs=1e-12)
    assert sa.distance(sb) == pytest.approx(6 * (math.sqrt(2) + 0.5), abs=1e-12)


def test_angular_distance_weight_joint_property() -> None:
    """The SRDF angular_distance_weight joint property.

    SRDF ``angular_distance_weight`` scales the rotation term of planar and floating joints
    (MoveIt ``PlanarJointModel::distance``, ``FloatingJointModel::distance``).
    """
    prop = '<joint_property joint_name="base_joint" property_name="angular_distance_weight" '
    planar = _base('planar', prop + 'value="0.5"/>')
    np.testing.assert_array_equal(planar.joint_angular_distance_weights, [0.5, 1.0])
    sa, sb = _pair(planar, {'base_joint/theta': 0.0}, {'base_joint/theta': 1.0,
                                                       'base_joint/x': 2.0})
    assert sa.distance(sb, joint='base_joint') == pytest.approx(2.0 + 0.5, abs=EPSILON)
    assert sa.distance(sb) == pytest.approx(3 * 2.5, abs=EPSILON)
    floating = _base('floating', prop + 'value="2"/>')
    sa, sb = _pair(floating, {}, {'base_joint/rot_x': math.sin(0.1),
                                  'base_joint/rot_w': math.cos(0.1)})
    assert sa.distance(sb, joint='base_joint') == pytest.approx(2 * 0.2, abs=1e-12)


def test_diff_drive_distance_and_interpolation() -> None:
    """The SRDF motion_model diff_drive joint property.

    ``motion_model diff_drive``: MoveIt's turn-drive-turn distance and interpolation
    (``PlanarJointModel::distance/interpolate``, ``computeTurnDriveTurnGeometry``), by hand.

    From (0, 0, 0) to (0, 1, 0): facing the goal needs a +π/2 turn, backing up a -π/2 turn;
    both cost π in turns, and ties drive forwards. Distance 1 + π (holonomic: 1).
    """
    drive = _base('planar', '<joint_property joint_name="base_joint" '
                            'property_name="motion_model" value="diff_drive"/>')
    assert drive.joint_motion_models[0] == 'diff_drive'
    sa, sb = _pair(drive, {}, {'base_joint/y': 1.0})
    assert sa.distance(sb, joint='base_joint') == pytest.approx(1.0 + math.pi, abs=EPSILON)
    assert sa.distance(sb) == pytest.approx(3 * (1.0 + math.pi), abs=EPSILON)
    holonomic = _base('planar')
    ha, hb = _pair(holonomic, {}, {'base_joint/y': 1.0})
    assert ha.distance(hb, joint='base_joint') == pytest.approx(1.0, abs=EPSILON)
    # The path: turn π/2 (share (π/2)/(1 + π)), drive 1, turn back -π/2.
    first = (math.pi / 2) / (1.0 + math.pi)
    for t, xyz in [(0.25, (0.0, 0.0, math.pi / 2 * 0.25 / first)),
                   (first + 0.5 / (1 + math.pi), (0.0, 0.5, math.pi / 2)),
                   (1.0 - 0.25 * first, (0.0, 1.0, math.pi / 2 * 0.25))]:
        out = sa.interpolate(sb, t, group='all')
        np.testing.assert_allclose(out.get_joint_positions('base_joint'), xyz, atol=1e-12)
    assert np.array_equal(sa.interpolate(sb, 1.0).get_joint_positions('base_joint'),
                          [0.0, 1.0, 0.0])
    # min_translational_distance: below it there is no first turn (MoveIt default 1e-5 m).
    sa, sb = _pair(drive, {}, {'base_joint/y': 1e-6})
    assert sa.distance(sb, joint='base_joint') == pytest.approx(1e-6, abs=1e-15)
    finer = _base('planar', '<joint_property joint_name="base_joint" '
                            'property_name="motion_model" value="diff_drive"/>'
                            '<joint_property joint_name="base_joint" '
                            'property_name="min_translational_distance" value="0"/>')
    sa, sb = _pair(finer, {}, {'base_joint/y': 1e-6})
    assert sa.distance(sb, joint='base_joint') == pytest.approx(1e-6 + math.pi, abs=1e-12)


def test_joint_properties_are_as_lenient_as_moveit() -> None:
    """MoveIt logs and skips a property it cannot apply; so do we (``srdf_warnings``)."""
    props = ''.join(
        f'<joint_property joint_name="{j}" property_name="{p}" value="{v}"/>'
        for j, p, v in [('nope', 'angular_distance_weight', '2'),
                        ('j', 'angular_distance_weight', '2'),
                        ('j', 'motion_model', 'diff_drive'),
                        ('base_joint', 'motion_model', 'tank'),
                        ('base_joint', 'frobnicate', '1'),
                        ('base_joint', 'angular_distance_weight', 'abc'),
                        ('base_joint', 'angular_distance_weight', 'nan'),
                        ('base_joint', 'angular_distance_weight', '-1'),
                        ('base_joint', 'angular_distance_weight', '0.25 rad')])
    model = _base('planar', props)
    assert len(model.srdf_warnings) == 9
    np.testing.assert_array_equal(model.joint_angular_distance_weights, [0.25, 1.0])
    assert model.joint_motion_models == ('holonomic', '')


# ------------------------------------------------------------------------------ frames


def test_rigidly_connected_parent(one_robot: RobotModel) -> None:
    """OneRobot.rigidlyConnectedParent, moveit master text.

    MoveIt returns the transforms through an out-parameter; here they come from the frame
    poses. MoveIt returns nullptr for unknown frames; ours raises UnknownNameError.
    """
    state = RobotState(one_robot)
    state.set_to_default_values()
    # link_e is its own rigidly-connected parent; link_b is rigidly connected to link_a
    assert state.get_rigidly_connected_parent_link('link_e') == 'link_e'
    assert state.get_rigidly_connected_parent_link('link_b') == 'link_a'
    X_WA = state.get_global_link_transform('link_a')
    a_to_b = np.linalg.solve(X_WA, state.get_global_link_transform('link_b'))
    np.testing.assert_allclose(a_to_b[:3, 3], [0.0, 0.5, 0.0], atol=1e-15)
    # attach "object" with "subframe" to link_b (ROS 1 version: object at (1, 0, 0), subframe
    # at (0, 0, 1) in the object)
    state.attach_body(AttachedBody.create(
        'object', 'link_b', pose=pose_from_xyz_rpy([1, 0, 0], [0, 0, 0]),
        subframes={'subframe': pose_from_xyz_rpy([0, 0, 1], [0, 0, 0])}))
    assert state.get_rigidly_connected_parent_link('object') == 'link_a'
    # A body without shapes is a known frame here; MoveIt's knowsFrameTransform says false.
    assert state.knows_frame_transform('object')
    assert state.get_rigidly_connected_parent_link('object/subframe') == 'link_a'
    transform = np.linalg.solve(X_WA, state.get_frame_transform('object/subframe'))
    # transform from link_b to object/subframe is (1 0 1)
    np.testing.assert_allclose(np.linalg.solve(a_to_b, transform),
                               pose_from_xyz_rpy([1, 0, 1], [0, 0, 0]), atol=1e-15)
    for bad in ('no_object', 'object/no_subframe', '', 'object/', '/'):
        with pytest.raises(UnknownNameError):
            state.get_rigidly_connected_parent_link(bad)
    # link names with '/' should still work as before
    assert one_robot.has_link('link/with/slash')
    assert state.get_rigidly_connected_parent_link('link/with/slash') == 'base_link'
    # the last /-separated component of an object might be a subframe
    state.attach_body(AttachedBody.create(
        'object/with/slash', 'link/with/slash', pose=pose_from_xyz_rpy([1, 0, 0], [0, 0, 0]),
        subframes={'sub/frame': pose_from_xyz_rpy([0, 0, 1], [0, 0, 0])}))
    assert state.get_rigidly_connected_parent_link('object/with/slash/sub/frame') == 'base_link'


def test_subframes_of_a_body_whose_name_contains_slashes(one_robot: RobotModel) -> None:
    """Subframes of a body whose name contains '/'.

    MoveIt ``RobotState::getFrameInfo`` + ``AttachedBody::getGlobalSubframeTransform``: a
    frame is a body's subframe when it starts with the body name and ``/`` and the rest names
    one of its subframes, so ``obj/with/slash/sub/frame`` is subframe ``sub/frame``.
    """
    state = RobotState(one_robot)
    X_LB = pose_from_xyz_rpy([0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    X_BF = pose_from_xyz_rpy([0.0, 0.0, 0.5], [0.0, 0.5, 0.0])
    state.attach_body('obj/with/slash', 'link_b', pose=X_LB, subframes={'sub/frame': X_BF})
    X_WL = state.get_global_link_transform('link_b')
    name = 'obj/with/slash/sub/frame'
    assert state.knows_frame_transform(name)
    np.testing.assert_allclose(state.get_frame_transform(name), X_WL @ X_LB @ X_BF, atol=1e-15)
    np.testing.assert_allclose(state.get_frame_transform('/' + name), X_WL @ X_LB @ X_BF,
                               atol=1e-15)
    np.testing.assert_allclose(state.get_frame_transform('obj/with/slash'), X_WL @ X_LB,
                               atol=1e-15)
    info = state.get_frame_info(name)
    assert info.found and info.link == 'link_b'  # getFrameInfo: the body's attach link
    assert state.get_rigidly_connected_parent_link(name) == 'link_a'
    # An unknown name is rejected with a suggestion that does resolve.
    with pytest.raises(UnknownNameError, match=f"did you mean '{name}'") as err:
        state.get_frame_transform('obj/with/slash/sub/frme')
    suggested = str(err.value).split("did you mean '")[1].split("'")[0]
    assert state.knows_frame_transform(suggested)


def test_ambiguous_subframe_resolves_like_moveit(one_robot: RobotModel) -> None:
    """An ambiguous subframe name resolves as in MoveIt.

    Body ``a`` with subframe ``b/c`` and body ``a/b`` with subframe ``c`` both match
    ``a/b/c``. MoveIt scans its ``std::map`` of bodies in name order and takes the first match:
    body ``a``. An exact body name wins over any subframe.
    """
    state = RobotState(one_robot)
    state.attach_body('a', 'link_c', subframes={'b/c': pose_from_xyz_rpy([1, 0, 0], [0, 0, 0])})
    state.attach_body('a/b', 'link_e', subframes={'c': pose_from_xyz_rpy([0, 2, 0], [0, 0, 0])})
    info = state.get_frame_info('a/b/c')
    assert info.link == 'link_c'
    np.testing.assert_allclose(info.X_WF, state.get_global_link_transform('link_c')
                               @ pose_from_xyz_rpy([1, 0, 0], [0, 0, 0]), atol=1e-15)
    assert state.get_frame_info('a/b').link == 'link_e'


# ------------------------------------------------------------------------------ Jacobians

# robot_state_test.cpp getJacobian.* fixtures, as MoveIt's raw strings write them (a newline
# and indentation before the XML declaration). Joint elements verbatim, one per line.


def _revolute(name: str, axis: str, parent: str, child: str, xyz: str, kind: str = 'revolute',
              limit: str = '-3.14" upper="3.14') -> str:
    return (f'<joint name="{name}" type="{kind}"><axis xyz="{axis}"/><parent link="{parent}"/>'
            f'<child link="{child}"/><origin rpy="0 0 0" xyz="{xyz}"/>'
            f'<limit effort="100.0" lower="{limit}" velocity="0.2"/></joint>\n')


def _robot(*parts: str) -> str:
    return ('\n      <?xml version="1.0" ?>\n<robot name="one_robot">\n' + ''.join(parts)
            + '</robot>\n    ')


def _links(*names: str) -> str:
    return ''.join(f'<link name="{n}"/>\n' for n in names)


_ABCD = _links('base_link', 'link_a', 'link_b', 'link_c', 'link_d')
JACOBIAN_URDF = {
    'RevoluteJoints': _robot(
        _ABCD, _revolute('joint_a_revolute', '0 0 1', 'base_link', 'link_a', '0 0 0'),
        _revolute('joint_b_revolute', '0 0 1', 'link_a', 'link_b', '0.0 0.5 0'),
        _revolute('joint_c_revolute', '0 1 0', 'link_b', 'link_c', '0.2 0.2 0'),
        _revolute('joint_d_revolute', '1 0 0', 'link_c', 'link_d', '0.0 0.2 0.4')),
    'RevoluteAndPrismaticJoints': _robot(
        _ABCD, _revolute('joint_a_revolute', '0 0 1', 'base_link', 'link_a', '0 0 0'),
        _revolute('joint_b_revolute', '0 0 1', 'link_a', 'link_b', '0.0 0.5 0'),
        _revolute('joint_c_prismatic', '0 1 0', 'link_b', 'link_c', '0.2 0.2 0', 'prismatic',
                  '-1.0" upper="1.0'),
        _revolute('joint_d_revolute', '1 0 0', 'link_c', 'link_d', '0.0 0.2 0.4')),
    'RevoluteAndFixedJoints': _robot(
        _ABCD, _revolute('joint_a_revolute', '0 0 1', 'base_link', 'link_a', '0 0 0'),
        '<joint name="joint_b_fixed" type="fixed"><parent link="link_a"/>'
        '<child link="link_b"/></joint>\n',
        '<joint name="joint_c_fixed" type="fixed"><parent link="link_b"/>'
        '<child link="link_c"/></joint>\n',
        _revolute('joint_d_revolute', '1 0 0', 'link_c', 'link_d', '0.0 0.2 0.4')),
    'RevolutePlanarAndPrismaticJoints': _robot(
        _ABCD, _revolute('joint_a_planar', '0 0 1', 'base_link', 'link_a', '0 0 0', 'planar',
                         '-1.0" upper="1.0'),
        _revolute('joint_b_revolute', '0 0 1', 'link_a', 'link_b', '0.0 0.5 0'),
        _revolute('joint_c_prismatic', '0 1 0', 'link_b', 'link_c', '0.2 0.2 0', 'prismatic',
                  '-1.0" upper="1.0'),
        _revolute('joint_d_revolute', '1 0 0', 'link_c', 'link_d', '0.0 0.2 0.4')),
    'GroupNotAtOrigin': _robot(
        '<link name="origin"/>\n<joint name="fixed_offset" type="fixed"><parent link="origin"/>'
        '<child link="link_a"/><origin rpy="0 0 1.5707" xyz="0.0 0.0 0.0"/></joint>\n',
        _links('link_a', 'link_b', 'link_c', 'link_d'),
        _revolute('joint_a_revolute', '1 0 0', 'link_a', 'link_b', '0.0 0.2 0.4'),
        _revolute('joint_b_revolute', '1 0 0', 'link_b', 'link_c', '0.0 0.2 0.4'),
        _revolute('joint_c_revolute', '1 0 0', 'link_c', 'link_d', '0.0 0.2 0.4')),
}
JACOBIAN_GROUP = {
    'RevoluteJoints': ['joint_a_revolute', 'joint_b_revolute', 'joint_c_revolute',
                       'joint_d_revolute'],
    'RevoluteAndPrismaticJoints': ['joint_a_revolute', 'joint_b_revolute',
                                   'joint_c_prismatic', 'joint_d_revolute'],
    'RevoluteAndFixedJoints': ['joint_a_revolute', 'joint_b_fixed', 'joint_c_fixed',
                               'joint_d_revolute'],
    'RevolutePlanarAndPrismaticJoints': ['joint_a_planar', 'joint_b_revolute',
                                         'joint_c_prismatic', 'joint_d_revolute'],
    'GroupNotAtOrigin': ['joint_a_revolute', 'joint_b_revolute', 'joint_c_revolute'],
}
# "Some made-up numbers, at zero and non-zero robot configurations." (values, velocities)
JACOBIAN_CHECKS: dict[str, list[tuple[list[float], list[float]]]] = {
    'RevoluteJoints': [([0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]),
                       ([0.1, 0.2, 0.3, 0.4], [0.5, 0.3, 0.2, 0.1])],
    'RevoluteAndPrismaticJoints': [([0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]),
                                   ([0.1, 0.2, 0.3, 0.4], [0.5, 0.3, 0.2, 0.1])],
    'RevoluteAndFixedJoints': [([0.0, 0.0], [0.1, 0.4]), ([0.1, 0.4], [0.5, 0.1])],
    'RevolutePlanarAndPrismaticJoints': [([0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                                          [0.2, 0.05, 0.1, 0.2, 0.3, 0.4])],
    'GroupNotAtOrigin': [([0.0, 0.0, 0.0], [0.1, 0.4, 0.2]),
                         ([0.1, 0.4, 0.3], [0.5, 0.1, 0.2])],
}


def _jacobian_model(case: str) -> RobotModel:
    srdf = ('\n      <?xml version="1.0" ?>\n<robot name="one_robot">\n'
            '<group name="base_to_tip">\n'
            + ''.join(f'<joint name="{j}"/>\n' for j in JACOBIAN_GROUP[case])
            + '</group>\n</robot>\n      ')
    return RobotModel.from_urdf_string(JACOBIAN_URDF[case], srdf)


def _check_jacobian(state: RobotState, values: list[float], velocities: list[float]) -> None:
    """Port of robot_state_test.cpp ``checkJacobian``.

    robot_state_test.cpp ``checkJacobian``: the Jacobian's linear velocity points along the
    tip's displacement over 1e-5 s, both in the group's root frame (angle < 1e-5).
    """
    group = 'base_to_tip'
    model = state.robot_model
    state.set_to_default_values()
    state.set_joint_group_positions(group, values)
    root = state.get_group_root_link(group)
    tip = model.group(group).link_names[-1]  # joint_model_group.getLinkModels().back()
    X_RW = np.linalg.inv(state.get_global_link_transform(root))
    tip_initial = X_RW @ state.get_global_link_transform(tip)
    velocity = np.asarray(velocities)
    cartesian_velocity = state.get_jacobian(group) @ velocity
    time_step = 1e-5
    state.set_joint_group_positions(group, np.asarray(values) + time_step * velocity)
    tip_after = X_RW @ state.get_global_link_transform(tip)
    displacement = tip_after[:3, 3] - tip_initial[:3, 3]
    v = cartesian_velocity[:3]
    cosine = float(displacement @ v / (np.linalg.norm(displacement) * np.linalg.norm(v)))
    assert math.acos(min(1.0, cosine)) == pytest.approx(0.0, abs=1e-5)


def _pinocchio_jacobian_in_root(model: RobotModel, urdf: str, state: RobotState,
                                tip: str, root: str) -> np.ndarray:
    """Pinocchio's tip Jacobian in the group's root frame, on our columns.

    Independent oracle: Pinocchio's LOCAL_WORLD_ALIGNED frame Jacobian of ``tip``, rotated
    into ``root`` and mapped onto our columns (a planar joint's Pinocchio velocity is expressed
    in the moving frame, ours is ``(ẋ, ẏ, θ̇)`` in the joint frame).
    """
    pin = pytest.importorskip('pinocchio')
    pm = pin.buildModelFromXML(urdf)
    data = pm.createData()
    q = state.positions
    qp = np.zeros(pm.nq)
    columns = np.zeros((pm.nv, model.nv))  # v_pin = columns @ v_ours
    for i in range(1, pm.njoints):
        jm = pm.joints[i]
        j = model.joint_index(pm.names[i])
        s, v = int(model.joint_q_start[j]), int(model.joint_v_start[j])
        if 'Planar' in jm.shortname():
            x, y, th = q[s:s + 3]
            qp[jm.idx_q:jm.idx_q + 4] = [x, y, math.cos(th), math.sin(th)]
            c, sn = math.cos(th), math.sin(th)
            columns[jm.idx_v:jm.idx_v + 2, v:v + 2] = [[c, sn], [-sn, c]]
            columns[jm.idx_v + 2, v + 2] = 1.0
        else:
            qp[jm.idx_q] = q[s]
            columns[jm.idx_v, v] = 1.0
    J = np.asarray(pin.computeFrameJacobian(pm, data, qp, pm.getFrameId(tip),
                                            pin.LOCAL_WORLD_ALIGNED)) @ columns
    pin.framesForwardKinematics(pm, data, qp)
    R_WR = data.oMf[pm.getFrameId(root)].rotation
    J_R = np.vstack([R_WR.T @ J[:3], R_WR.T @ J[3:]])
    g = model.group('base_to_tip')
    cols = np.concatenate([np.arange(int(model.joint_v_start[j]),
                                     int(model.joint_v_start[j] + model.joint_nv[j]))
                           for j in g.active_joint_indices])
    out: np.ndarray = J_R[:, cols]
    return out


@pytest.mark.parametrize('case', list(JACOBIAN_URDF))
def test_get_jacobian(case: str) -> None:
    """getJacobian.<case> against MoveIt's check and Pinocchio.

    getJacobian.<case>: MoveIt's check (the Jacobian in the group's root frame predicts the
    tip motion), plus Pinocchio's Jacobian rotated into the root frame as an exact oracle.
    """
    model = _jacobian_model(case)
    state = RobotState(model)
    group = model.group('base_to_tip')
    tip = group.link_names[-1]
    root = state.get_group_root_link(group)
    assert root == ('link_a' if case == 'GroupNotAtOrigin' else 'base_link')
    for values, velocities in JACOBIAN_CHECKS[case]:
        _check_jacobian(state, values, velocities)
        state.set_joint_group_positions(group, values)
        np.testing.assert_allclose(state.get_jacobian(group), _pinocchio_jacobian_in_root(
            model, JACOBIAN_URDF[case], state, tip, root), rtol=0.0, atol=PIN_TOL)


def test_group_not_at_origin_frames() -> None:
    """getJacobian.GroupNotAtOrigin: root frame and model frame.

    getJacobian.GroupNotAtOrigin: the root frame (link_a, turned 1.5707 rad about z) differs
    from the model frame; ``get_jacobian_in_model_frame`` keeps the model-frame rows, and
    ``compute_variable_velocity`` (tip-frame twist) does not depend on the choice.
    """
    model = _jacobian_model('GroupNotAtOrigin')
    state = RobotState(model)
    state.set_joint_group_positions('base_to_tip', [0.1, 0.4, 0.3])
    J_R = state.get_jacobian('base_to_tip')
    J_W = state.get_jacobian_in_model_frame('base_to_tip')
    R_WR = state.get_global_link_transform('link_a')[:3, :3]
    np.testing.assert_allclose(R_WR, pose_from_xyz_rpy([0, 0, 0], [0, 0, 1.5707])[:3, :3],
                               atol=1e-15)
    np.testing.assert_allclose(J_W, np.vstack([R_WR @ J_R[:3], R_WR @ J_R[3:]]), atol=1e-15)
    assert not np.allclose(J_W, J_R, atol=1e-3)
    twist = np.array([0.0, 0.01, -0.02, 0.1, 0.0, 0.0])  # reachable: rotations about x
    qdot = state.compute_variable_velocity('base_to_tip', twist, damping=0.0)
    R_WT = state.get_global_link_transform('link_d')[:3, :3]
    realized = np.concatenate([R_WT.T @ (J_W @ qdot)[:3], R_WT.T @ (J_W @ qdot)[3:]])
    np.testing.assert_allclose(realized, twist, atol=1e-12)
