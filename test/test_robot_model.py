"""Compiling a SceneGraph (+ SRDF) into the immutable RobotModel."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robot_state_core.description.joints import Joint, JointType
from robot_state_core.description.links import Link
from robot_state_core.errors import UnknownNameError
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.io.srdf import parse_srdf
from robot_state_core.io.urdf import load_urdf_file
from robot_state_core.model.robot_model import RobotModel

RESOURCES = Path(__file__).resolve().parent / 'resources'
URDF = RESOURCES / 'all_joint_types.urdf'
SRDF = RESOURCES / 'all_joint_types.srdf'


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(URDF, SRDF)


def test_arrays_are_read_only(model: RobotModel) -> None:
    """Every public array of the model refuses writes."""
    arrays = {k: v for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    assert len(arrays) >= 20
    for name, array in arrays.items():
        assert not array.flags.writeable, name
    with pytest.raises(ValueError, match='read-only'):
        model.variable_lower[0] = 1.0


def test_topological_order_parents_and_levels(model: RobotModel) -> None:
    """Joints are depth-first: a joint's parent link is always moved by an earlier joint."""
    assert model.link_names[0] == 'world'
    assert model.link_parent_joint[0] == -1
    for j in range(model.joint_count):
        parent = model.joint_parent_link[j]
        assert parent == 0 or model.link_parent_joint[parent] < j
        assert model.link_parent_joint[model.joint_child_link[j]] == j
        assert (model.link_depth[model.joint_child_link[j]]
                == model.link_depth[parent] + 1)
    flat = np.sort(np.concatenate(model.levels))
    np.testing.assert_array_equal(flat, np.arange(model.joint_count))
    for depth, level in enumerate(model.levels, start=1):
        assert np.all(model.link_depth[model.joint_child_link[level]] == depth)


def test_variable_layout(model: RobotModel) -> None:
    """MoveIt names, nq/nv per joint type, q/v starts contiguous."""
    assert model.variable_names[:7] == ('float/trans_x', 'float/trans_y', 'float/trans_z',
                                        'float/rot_x', 'float/rot_y', 'float/rot_z',
                                        'float/rot_w')
    assert model.variable_names[7:13] == tuple(f'rpy/{s}' for s in
                                               ('qx', 'qy', 'qz', 'x', 'y', 'z'))
    assert model.variable_names[13:16] == ('plane/x', 'plane/y', 'plane/theta')
    assert model.nq == 7 + 6 + 3 + 1 + 1 + 1 + 3
    assert model.nv == model.nq - 1  # one quaternion joint
    np.testing.assert_array_equal(model.joint_q_start[1:],
                                  np.cumsum(model.joint_nq)[:-1])
    np.testing.assert_array_equal(model.joint_v_start[1:],
                                  np.cumsum(model.joint_nv)[:-1])
    assert model.variable_index('rev') == 16
    assert model.joint_index('rev') == 3


def test_bounds_and_defaults(model: RobotModel) -> None:
    """Revolute bounds from the URDF; default = 0 or mid-range; quaternion identity."""
    rev = model.variable_index('rev')
    # MoveIt (jointBoundsFromURDF): <safety_controller> soft limits [0.6, 1.9] intersected
    # with <limit> [0.5, 2.0]; the joint keeps the URDF <limit>.
    assert (model.variable_lower[rev], model.variable_upper[rev]) == (0.6, 1.9)
    assert (model.joint('rev').limits.lower, model.joint('rev').limits.upper) == (0.5, 2.0)
    assert model.default_positions[rev] == pytest.approx(1.25)  # 0 is outside [0.6, 1.9]
    assert model.variable_bounded[rev]
    cont = model.variable_index('cont')
    assert not model.variable_bounded[cont]
    assert model.default_positions[cont] == 0.0
    assert model.default_positions[model.variable_index('float/rot_w')] == 1.0
    assert model.default_positions[model.variable_index('slide')] == 0.0
    assert math.isinf(model.variable_upper[model.variable_index('rpy/x')])
    assert model.variable_velocity_limits[rev] == 2.0
    assert model.variable_effort_limits[rev] == 10.0


def test_mimic_chain_is_composed(model: RobotModel) -> None:
    """finger_c = -0.5 * (2 * a + 0.01) + 0.2 = -a + 0.195, composed onto the source a."""
    assert model.mimic_joint_names == ('finger_b_joint', 'finger_c_joint')
    a = model.variable_index('finger_a_joint')
    np.testing.assert_array_equal(model.mimic_source, [a, a])
    np.testing.assert_allclose(model.mimic_multiplier, [2.0, -1.0])
    np.testing.assert_allclose(model.mimic_offset, [0.01, 0.195])
    q = model.default_positions.copy()
    q[a] = 0.03
    model.apply_mimic(q)
    assert q[model.variable_index('finger_b_joint')] == pytest.approx(0.07)
    assert q[model.variable_index('finger_c_joint')] == pytest.approx(-0.03 + 0.195)
    assert not model.active_variable_mask[model.variable_index('finger_c_joint')]
    batch = np.tile(q, (4, 1))
    batch[:, a] = [0.0, 0.01, 0.02, 0.03]
    model.apply_mimic(batch)
    np.testing.assert_allclose(batch[:, model.variable_index('finger_b_joint')],
                               2 * batch[:, a] + 0.01)


def test_unknown_names_raise_with_suggestions(model: RobotModel) -> None:
    """Lookups never return sentinels; the error proposes close names."""
    with pytest.raises(UnknownNameError, match="did you mean 'rev'"):
        model.joint_index('revv')
    with pytest.raises(UnknownNameError, match='unknown link'):
        model.link_index('nope')
    with pytest.raises(KeyError):
        model.variable_index('plane/z')
    sel = model.resolve_variables(['rev', 'bogus', 'slide'], unknown='ignore')
    np.testing.assert_array_equal(sel.input_indices, [0, 2])
    assert sel.unknown_names == ('bogus',)
    with pytest.raises(UnknownNameError):
        model.resolve_variables(['rev', 'bogus'])


def test_groups_from_srdf(model: RobotModel) -> None:
    """Chains, joint lists, link lists and subgroups; active vs mimic vs fixed."""
    arm = model.group('arm')
    assert arm.joint_names == ('rev', 'cont', 'slide')
    assert arm.is_chain
    assert (arm.base_link, arm.tip_link) == ('planar_body', 'prismatic_link')
    fingers = model.group('fingers')
    assert fingers.active_joint_names == ('finger_a_joint',)
    assert fingers.mimic_joint_names == ('finger_b_joint', 'finger_c_joint')
    assert fingers.active_variable_names == ('finger_a_joint',)
    links = model.group('tool_links')
    assert set(links.joint_names) == {'tool_joint', 'finger_a_joint'}
    assert links.active_joint_names == ('finger_a_joint',)
    everything = model.group('everything')
    assert set(everything.joint_names) == {'float', 'rpy', 'rev', 'cont', 'slide',
                                           'finger_a_joint', 'finger_b_joint',
                                           'finger_c_joint'}
    assert everything.subgroup_names == ('arm', 'fingers')
    assert arm.end_effector_names == ('hand',)
    assert model.end_effectors[0].parent_link == 'prismatic_link'
    assert model.passive_joint_names == ('plane',)
    assert ('revolute_link', 'continuous_link', 'Adjacent') in model.disabled_collision_pairs
    with pytest.raises(UnknownNameError, match='group'):
        model.group('armm')


def test_named_states_including_multi_dof(model: RobotModel) -> None:
    """group_state values map to variables; multi-DOF joints take several values."""
    assert model.group('arm').get_named_state('bent') == {'rev': 1.0, 'cont': -3.0,
                                                          'slide': 0.2}
    lifted = model.group('everything').get_named_state('lifted')
    assert lifted['float/trans_z'] == 1.0
    assert lifted['float/rot_w'] == 1.0
    assert lifted['rpy/z'] == 3.0
    with pytest.raises(UnknownNameError):
        model.group('arm').get_named_state('nope')


def test_default_robot_model() -> None:
    """The embedded robot: planar base, mimic gripper, arm chain to tool0, states."""
    m = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    assert m.model_frame == 'world'
    assert m.joint('base_joint').type is JointType.PLANAR
    arm = m.group('arm')
    assert (arm.base_link, arm.tip_link, arm.is_chain) == ('arm_base_link', 'tool0', True)
    assert len(arm.active_joint_names) == 6
    assert m.mimic_joint_names == ('right_finger_joint',)
    assert set(m.group('arm').named_states) == {'home', 'ready'}
    assert len(m.disabled_collision_pairs) == 27


@pytest.mark.parametrize('vtype', ['fixed', 'planar', 'floating', 'rpy_floating'])
def test_srdf_virtual_joint_sets_the_model_frame(vtype: str) -> None:
    """A virtual joint adds a root joint of its type from the model frame to the URDF root."""
    graph = load_urdf_file(default_robot_urdf_path()).scene_graph
    srdf = parse_srdf(f'''<robot name="r"><virtual_joint name="vj" type="{vtype}"
        parent_frame="odom" child_link="world"/></robot>''')
    m = RobotModel.from_scene_graph(graph, srdf)
    # MoveIt: "for fixed frames we still use the robot root link" as the model frame.
    assert m.model_frame == ('world' if vtype == 'fixed' else 'odom')
    assert m.link_names[0] == 'odom'
    assert m.joint('vj').type is JointType(vtype)
    assert m.joint_names[0] == 'vj'
    assert m.virtual_joint_names == ('vj',)


def test_editing_the_graph_never_changes_a_model() -> None:
    """The model copies the graph: later edits are invisible to it (and the graph is editable)."""
    graph = load_urdf_file(URDF).scene_graph
    m = RobotModel.from_scene_graph(graph)
    before = m.joint_origins.copy()
    assert graph.change_joint_origin('rev', np.eye(4))
    assert graph.add_link(Link('extra'), Joint('extra_joint', JointType.FIXED, 'tool', 'extra'))
    np.testing.assert_array_equal(m.joint_origins, before)
    assert not m.has_link('extra')
    assert RobotModel.from_scene_graph(graph).has_link('extra')


def test_srdf_mismatch_drops_with_warnings() -> None:
    """Unknown names are dropped with a warning; a group left without joints is not built.

    srdfdom drops the unknown joint, MoveIt's buildGroups the group with no valid joint
    ("must have at least one valid joint"); the rest of the model loads.
    """
    graph = load_urdf_file(URDF).scene_graph
    srdf = parse_srdf('''<robot name="r"><group name="g"><joint name="nope"/></group>
        <group name="h"><joint name="nope"/><chain base_link="tool" tip_link="world"/></group>
        </robot>''')
    m = RobotModel.from_scene_graph(graph, srdf)
    assert m.group_names == ('h',)
    assert any("joint 'nope'" in w for w in m.srdf_warnings)
    assert any("group 'g' has no valid joint" in w for w in m.srdf_warnings)
    # MoveIt's reversed chain (base below tip): every joint from tool up to the root world.
    assert set(m.group('h').joint_names) == {'float', 'rpy', 'plane', 'rev', 'cont', 'slide',
                                             'tool_joint'}


def test_unknown_joint_type_is_rejected_for_kinematics() -> None:
    """UNKNOWN joints cannot be added to a graph, so no model can contain them."""
    graph = load_urdf_file(URDF).scene_graph
    assert not graph.add_link(Link('u'), Joint('u_joint', JointType.UNKNOWN, 'tool', 'u'))
