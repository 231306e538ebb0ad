"""Ported from MoveIt: the loading, FK and model-structure cases of ``robot_state_test.cpp``.

Origin: ``moveit/moveit2``, ``moveit_core/robot_state/test/robot_state_test.cpp`` -- tests
``Loading.SimpleRobot``, ``LoadingAndFK.SimpleRobot`` and the ``OneRobot`` fixture with its
``FK`` test; ``Init.FixedJoints`` and the ``link/with/slash`` link of the fixture come from the
newer text of the same file as found in ``moveit/moveit`` (master), which the stored copy of
moveit2 predates. Expected numbers are MoveIt's, verbatim. The RobotState-behaviour parts of
the same file (bounds enforcement, interpolation, rigidly connected parents, Jacobians,
distance, AABB) are ported in another file.

MoveIt builds two of these robots with ``RobotModelBuilder``; here the same robot is written
as a URDF + SRDF (one link, one virtual joint), which is what the builder produces.

Where we deliberately differ (docs/decisions.md, section Loading) the test asserts our
documented behaviour and says so.
"""

from __future__ import annotations

import numpy as np
import pytest

from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import quat_xyzw_from_rotation
from robot_state_core.state.robot_state import RobotState

# MoveIt's EXPECT_NEAR_TRACED default tolerance is machine epsilon on each coordinate; the
# quaternion checks use 1e-5 (both verbatim from the test).
EPS = float(np.finfo(float).eps)
QUAT_TOL = 1e-5


def _builder_robot(vj_type: str) -> RobotModel:
    """``RobotModelBuilder("myrobot", "base_link")`` + ``addVirtualJoint("odom_combined")``."""
    urdf = '<robot name="myrobot"><link name="base_link"/></robot>'
    srdf = (f'<robot name="myrobot"><virtual_joint name="base_joint" type="{vj_type}" '
            'parent_frame="odom_combined" child_link="base_link"/>'
            + ('<group name="base"><joint name="base_joint"/></group>'
               if vj_type == 'planar' else '') + '</robot>')
    return RobotModel.from_urdf_string(urdf, srdf)


def test_loading_simple_robot() -> None:
    """TEST(Loading, SimpleRobot): one link, a floating virtual joint, no groups."""
    model = _builder_robot('floating')
    state = RobotState(model)
    state.set_to_default_values()
    new_state = state.copy()
    assert new_state.get_variable_position('base_joint/rot_w') == 1.0
    assert model.name == 'myrobot'
    assert new_state.variable_count == 7
    # MoveIt: getLinkModels().size() == 1. Ours also has the virtual joint's parent frame as
    # the root link (docs/decisions.md, Loading): the robot's own links are the same.
    assert model.link_names == ('odom_combined', 'base_link')
    assert model.joint_count == 1
    assert model.group_names == ()


def test_loading_and_fk_simple_robot() -> None:
    """TEST(LoadingAndFK, SimpleRobot): planar virtual joint, missing variables, FK."""
    model = _builder_robot('planar')
    state = RobotState(model)
    assert state.variable_count == 3
    state.set_to_default_values()
    assert model.joint_count == 1
    assert len(model.joints[0].variable_names()) == 3
    joint_values = {'base_joint/x': 10.0, 'base_joint/y': 8.0}
    assert state.get_missing_variables(joint_values) == ['base_joint/theta']
    joint_values['base_joint/theta'] = 0.1
    assert state.get_missing_variables(joint_values) == []
    state.set_variable_positions(joint_values)
    np.testing.assert_allclose(state.get_global_link_transform('base_link')[:3, 3],
                               [10, 8, 0], atol=EPS)
    state.set_variable_acceleration('base_joint/x', 0.0)
    new_state = state.copy()  # making sure that values get copied
    np.testing.assert_allclose(new_state.get_global_link_transform('base_link')[:3, 3],
                               [10, 8, 0], atol=EPS)
    jv = np.zeros(state.variable_count)
    jv[model.variable_index('base_joint/x')] = 5.0
    jv[model.variable_index('base_joint/y')] = 4.0
    jv[model.variable_index('base_joint/theta')] = 0.0
    state.set_variable_positions(jv)
    np.testing.assert_allclose(state.get_global_link_transform('base_link')[:3, 3],
                               [5, 4, 0], atol=EPS)


def test_init_fixed_joints() -> None:
    """TEST(Init, FixedJoints): a fixed virtual joint and a prismatic joint without <axis>."""
    urdf = '''
<robot name="minibot">
    <link name="root"/>
    <link name="link1"/>
    <link name="link2"/>

    <joint name="link1_joint" type="prismatic">
        <parent link="root"/>
        <child link="link1"/>
        <limit effort="1" velocity="1" lower="0" upper="1"/>
    </joint>

    <joint name="link2_joint" type="fixed">
        <parent link="link1"/>
        <child link="link2"/>
    </joint>
</robot>
'''
    srdf = '''
<robot name="minibot">
    <virtual_joint name="world_to_root" type="fixed" parent_frame="world" child_link="root"/>
</robot>
'''
    model = RobotModel.from_urdf_string(urdf, srdf)
    state = RobotState(model)
    state.set_joint_positions('link1_joint', [4.2])
    state.update()
    np.testing.assert_allclose(state.get_global_link_transform('link1')[:3, 3], [4.2, 0, 0],
                               atol=EPS)
    np.testing.assert_allclose(state.get_global_link_transform('link2')[:3, 3], [4.2, 0, 0],
                               atol=EPS)
    np.testing.assert_allclose(state.get_joint_pose('link1_joint')[:3, 3], [4.2, 0, 0],
                               atol=EPS)
    assert not state.dirty_joint_transform('link1_joint')
    assert not state.dirty_joint_transform('link2_joint')
    np.testing.assert_allclose(state.get_joint_pose('link2_joint')[:3, 3], [0, 0, 0], atol=EPS)
    assert model.model_frame == 'root'  # MoveIt: a fixed virtual joint keeps the root link


# The OneRobot fixture, verbatim (both documents start with a newline before <?xml, as the
# C++ raw strings do; the one line over this file's length limit is wrapped inside its tag).
MODEL2 = '''
<?xml version="1.0" ?>
<robot name="one_robot">
<link name="base_link">
  <inertial>
    <mass value="2.81"/>
    <origin rpy="0 0 0" xyz="0.0 0.0 .0"/>
    <inertia ixx="0.1" ixy="-0.2" ixz="0.5" iyy="-.09" iyz="1" izz="0.101"/>
  </inertial>
  <collision name="my_collision">
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
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
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
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
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
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
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </collision>
  <visual>
    <origin rpy="0 0 0" xyz="0.0 0 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
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
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </collision>
  <visual>
    <origin rpy="0 1 0" xyz="0 0.1 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </visual>
</link>
<link name="link_e">
  <collision>
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </collision>
  <visual>
    <origin rpy="0 1 0" xyz="0 0.1 0"/>
    <geometry>
      <box size="1 2 1" />
    </geometry>
  </visual>
</link>
<link name="link/with/slash" />
<joint name="joint_link_with_slash" type="fixed">
  <parent link="base_link"/>
  <child link="link/with/slash"/>
  <origin rpy="0 0 0" xyz="0 0 0"/>
</joint>
</robot>
'''

SMODEL2 = '''
<?xml version="1.0" ?>
<robot name="one_robot">
<virtual_joint name="base_joint" child_link="base_link"
               parent_frame="odom_combined" type="planar"/>
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
</robot>
'''


@pytest.fixture(scope='module')
def one_robot() -> RobotModel:
    """The OneRobot fixture: urdf::parseURDF(MODEL2) + srdf initString(SMODEL2)."""
    return RobotModel.from_urdf_string(MODEL2, SMODEL2)


def _quat(state: RobotState, link: str) -> np.ndarray:
    return quat_xyzw_from_rotation(state.get_global_link_transform(link)[:3, :3])


def test_one_robot_loads_despite_the_bad_subgroup(one_robot: RobotModel) -> None:
    """The fixture loads; srdfdom drops 'base_with_bad_subgroups' (unknown subgroup 'error')."""
    assert not one_robot.has_group('base_with_bad_subgroups')
    assert any("unknown subgroup 'error'" in w for w in one_robot.srdf_warnings)
    assert one_robot.has_link('link/with/slash')
    assert one_robot.model_frame == 'odom_combined'


def test_one_robot_fk_group_structure(one_robot: RobotModel) -> None:
    """TEST_F(OneRobot, FK): the groups' joints and links (ElementsAreArray, model order)."""
    model = one_robot
    g_one = model.group('base_from_joints')
    g_two = model.group('base_from_base_to_tip')
    g_three = model.group('base_with_subgroups')
    g_mim = model.group('mim_joints')
    assert g_one.joint_names == ('base_joint', 'joint_a', 'joint_c')
    assert g_two.joint_names == ('base_joint', 'joint_a', 'joint_b')
    assert g_three.joint_names == ('base_joint', 'joint_a', 'joint_b', 'joint_c')
    assert g_mim.joint_names == ('mim_f', 'joint_f')
    assert g_one.link_names == ('base_link', 'link_a', 'link_c')
    assert g_two.link_names == ('base_link', 'link_a', 'link_b')
    assert g_three.link_names == ('base_link', 'link_a', 'link_b', 'link_c')
    # MoveIt's updated-link list of these groups is every link of the robot in MoveIt's link
    # order (depth-first); ours has the same order after the virtual joint's parent frame.
    assert model.link_names[1:] == ('base_link', 'link_a', 'link_b', 'link_c', 'link_d',
                                    'link_e', 'link/with/slash')
    assert RobotState(model).variable_count == 7


def test_one_robot_fk_transforms(one_robot: RobotModel) -> None:
    """TEST_F(OneRobot, FK): global link transforms after setVariablePositions."""
    state = RobotState(one_robot)
    state.set_to_default_values()
    state.set_variable_positions({'base_joint/x': 1.0, 'base_joint/y': 1.0,
                                  'base_joint/theta': 0.5, 'joint_a': -0.5, 'joint_c': 0.08})
    expected = {  # link: (translation, quaternion x, y, z, w)
        'base_link': ([1, 1, 0], [0.0, 0.0, 0.247404, 0.968912]),
        'link_a': ([1, 1, 0], [0.0, 0.0, 0.0, 1.0]),
        'link_b': ([1, 1.5, 0], [0.0, -0.2084598, 0.0, 0.97803091]),
        'link_c': ([1.08, 1.4, 0], [0.0, 0.0, 0.0, 1.0]),
    }
    for link, (translation, quat) in expected.items():
        np.testing.assert_allclose(state.get_global_link_transform(link)[:3, 3], translation,
                                   atol=EPS, err_msg=link)
        np.testing.assert_allclose(_quat(state, link), quat, atol=QUAT_TOL, err_msg=link)
    assert state.satisfies_bounds()
    # joint_b is fixed with no rotation about z: link/with/slash rides on base_link.
    np.testing.assert_allclose(state.get_global_link_transform('link/with/slash'),
                               state.get_global_link_transform('base_link'), atol=EPS)


def test_one_robot_fk_mimic_joints(one_robot: RobotModel) -> None:
    """TEST_F(OneRobot, FK), "mimic joints": mim_f = 1.5 * joint_f + 0.1 in every setter."""
    state = RobotState(one_robot)
    state.set_to_default_values()
    for link, translation in (('link_c', [0.0, 0.4, 0]), ('link_d', [0.2, 0.5, 0]),
                              ('link_e', [0.3, 0.6, 0])):
        np.testing.assert_allclose(state.get_global_link_transform(link)[:3, 3], translation,
                                   atol=EPS, err_msg=link)
    state.set_variable_position('joint_f', 1.0)
    assert state.get_variable_position('joint_f') == 1.0
    assert state.get_variable_position('mim_f') == 1.6
    assert state.dirty_link_transforms
    for link, translation in (('link_c', [0.0, 0.4, 0]), ('link_d', [1.7, 0.5, 0]),
                              ('link_e', [2.8, 0.6, 0])):
        np.testing.assert_allclose(state.get_global_link_transform(link)[:3, 3], translation,
                                   atol=EPS, err_msg=link)
    g_mim = one_robot.group('mim_joints')
    assert g_mim.variable_count == 2
    gstate = state.get_joint_group_positions(g_mim)
    state.set_to_random_positions(g_mim, np.random.default_rng(0))
    joint_f = state.get_variable_position('joint_f')
    mim_f = state.get_variable_position('mim_f')
    assert mim_f == pytest.approx(1.5 * joint_f + 0.1, abs=1e-8)
    assert state.dirty_link_transforms
    for link, translation in (('link_c', [0.0, 0.4, 0]), ('link_d', [0.1 + mim_f, 0.5, 0]),
                              ('link_e', [0.1 + mim_f + joint_f + 0.1, 0.6, 0])):
        np.testing.assert_allclose(state.get_global_link_transform(link)[:3, 3], translation,
                                   atol=EPS, err_msg=link)
    state.set_joint_group_positions(g_mim, gstate)
    assert state.get_variable_position('joint_f') == 1.0
    assert state.get_variable_position('mim_f') == 1.6
    for link, translation in (('link_c', [0.0, 0.4, 0]), ('link_d', [1.7, 0.5, 0]),
                              ('link_e', [2.8, 0.6, 0])):
        np.testing.assert_allclose(state.get_global_link_transform(link)[:3, 3], translation,
                                   atol=EPS, err_msg=link)


def test_one_robot_soft_limit_of_joint_c(one_robot: RobotModel) -> None:
    """joint_c's bounds are MoveIt's: soft_upper_limit 0.089 inside <limit upper="0.09">.

    Not an upstream assertion: MoveIt's ``jointBoundsFromURDF`` applied to the fixture.
    """
    c = one_robot.variable_index('joint_c')
    assert (one_robot.variable_lower[c], one_robot.variable_upper[c]) == (0.0, 0.089)
    state = RobotState(one_robot)
    state.set_to_default_values()
    state.set_variable_position('joint_c', 0.0895)
    assert not state.satisfies_bounds()
