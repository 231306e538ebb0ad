"""Loading fidelity with MoveIt / urdfdom / robot_state_publisher (issue 9 §2, issue 15).

Each case is an input a peer accepts, checked against the peer's documented result or an
independent oracle (Pinocchio for FK, closed forms, the peers' source for semantics):

* planar joints move in the x-y plane and turn about z (MoveIt ``PlanarJointModel``), for an
  SRDF virtual joint, a URDF planar joint without ``<axis>`` and one with another axis;
* ``<safety_controller>`` soft limits narrow the model bounds (MoveIt ``jointBoundsFromURDF``);
* a ``<mimic>`` on a fixed joint (robot_state_publisher's ``test/mimic_joint.urdf``) and a
  ``<mimic>`` of an undefined joint load with one warning; mimic cycles are still refused;
* whitespace before ``<?xml`` is accepted (tinyxml2, as urdfdom and srdfdom);
* SRDF problems MoveIt tolerates drop the element and keep the rest;
* a collision mesh that cannot be read is left out with a warning, the link keeps its other
  geometry (MoveIt ``constructLinkModel``; decision V8).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pytest
import robot_corpus

from robot_state_core.errors import UnknownNameError, UrdfLoadError
from robot_state_core.io.urdf import load_urdf_string
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.tf import TfPublishingCore
from robot_state_core.scene.planning_scene import PlanningScene
from robot_state_core.state.robot_state import RobotState

ONE_LINK = '<robot name="r"><link name="base_link"/></robot>'
PLANAR_VJ = ('<robot name="r"><virtual_joint name="vj" type="planar" parent_frame="odom" '
             'child_link="base_link"/></robot>')


def _yaw(x: float, y: float, theta: float) -> np.ndarray:
    """Closed form of a planar motion: translation (x, y, 0), rotation theta about z."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0, x], [s, c, 0, y], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def _planar_urdf(axis: str = '') -> str:
    return f'''<robot name="r"><link name="world"/><link name="base"/><link name="arm"/>
      <joint name="base_joint" type="planar"><parent link="world"/><child link="base"/>
        <origin xyz="0.1 -0.2 0.3" rpy="0.2 0.1 -0.4"/>{axis}</joint>
      <joint name="arm_joint" type="revolute"><parent link="base"/><child link="arm"/>
        <origin xyz="0.5 0 0.2" rpy="0 0.3 0"/><axis xyz="0 1 0"/>
        <limit lower="-2" upper="2" effort="1" velocity="1"/></joint></robot>'''


# --------------------------------------------------------------------------- planar


def test_planar_virtual_joint_moves_in_the_xy_plane() -> None:
    """The issue's repro: vj/x=1, vj/y=2, vj/theta=0.5 gives (1, 2, 0) with a yaw."""
    model = RobotModel.from_urdf_string(ONE_LINK, PLANAR_VJ)
    state = RobotState(model)
    state.set_variable_positions({'vj/x': 1.0, 'vj/y': 2.0, 'vj/theta': 0.5})
    np.testing.assert_allclose(state.get_global_link_transform('base_link'),
                               _yaw(1.0, 2.0, 0.5), atol=1e-15)


def test_planar_virtual_joint_on_tf() -> None:
    """The same motion reaches /tf (the state publisher's core): odom -> base_link."""
    model = RobotModel.from_urdf_string(ONE_LINK, PLANAR_VJ)
    update = TfPublishingCore(model, ignore_timestamp=True).process(
        ['vj/x', 'vj/y', 'vj/theta'], [1.0, 2.0, 0.5], 1)
    frames = update.transforms
    assert frames is not None
    assert frames.parent_frames == ('odom',)
    assert frames.child_frames == ('base_link',)
    np.testing.assert_allclose(frames.translations[0], [1.0, 2.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(frames.quats_xyzw[0],
                               [0, 0, math.sin(0.25), math.cos(0.25)], atol=1e-15)


@pytest.mark.parametrize('axis', ['', '<axis xyz="1 0 0"/>', '<axis xyz="0 0 1"/>'],
                         ids=['no-axis', 'axis-x', 'axis-z'])
def test_urdf_planar_joint_matches_pinocchio(axis: str) -> None:
    """FK of a URDF planar joint (any <axis>) equals Pinocchio's JointModelPlanar."""
    pin = pytest.importorskip('pinocchio')
    urdf = _planar_urdf(axis)
    result = load_urdf_string(urdf)
    explicit_x = 'xyz="1 0 0"' in axis
    assert any('ignored' in w and 'base_joint' in w for w in result.warnings) == explicit_x
    model = RobotModel.from_scene_graph(result.scene_graph)
    pm = pin.buildModelFromXML(urdf)
    assert pm.joints[pm.getJointId('base_joint')].shortname() == 'JointModelPlanar'
    data = pm.createData()
    state = RobotState(model)
    for x, y, theta, arm in np.random.default_rng(4).uniform(-2, 2, (5, 4)):
        state.set_variable_positions({'base_joint/x': x, 'base_joint/y': y,
                                      'base_joint/theta': theta, 'arm_joint': arm})
        q = np.array([x, y, math.cos(theta), math.sin(theta), arm])
        pin.forwardKinematics(pm, data, q)
        pin.updateFramePlacements(pm, data)
        for link in ('base', 'arm'):
            expected = data.oMf[pm.getFrameId(link)].homogeneous
            np.testing.assert_allclose(state.get_global_link_transform(link), expected,
                                       atol=1e-12, err_msg=link)


# --------------------------------------------------------------------------- soft limits


def _joint_urdf(jtype: str, limit: str, safety: str) -> str:
    return f'''<robot name="r"><link name="a"/><link name="b"/>
      <joint name="j" type="{jtype}"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
        {limit}{safety}</joint></robot>'''


@pytest.mark.parametrize(('jtype', 'limit', 'safety', 'bounds'), [
    # MoveIt jointBoundsFromURDF: [max(lower, soft_lower), min(upper, soft_upper)]
    ('prismatic', '<limit lower="0" upper="0.09" effort="1" velocity="1"/>',
     '<safety_controller k_velocity="500" soft_lower_limit="0" soft_upper_limit="0.089"/>',
     (0.0, 0.089)),
    ('revolute', '<limit lower="-1" upper="1" effort="1" velocity="1"/>',
     '<safety_controller k_velocity="1" soft_lower_limit="-2" soft_upper_limit="0.5"/>',
     (-1.0, 0.5)),
    # absent soft limits are 0 in urdfdom, so MoveIt's range is [0, 0] here
    ('revolute', '<limit lower="-1" upper="1" effort="1" velocity="1"/>',
     '<safety_controller k_velocity="1"/>', (0.0, 0.0)),
    # a continuous joint stays [-pi, pi] (RevoluteJointModel::setContinuous)
    ('continuous', '<limit effort="1" velocity="1"/>',
     '<safety_controller k_velocity="1" soft_lower_limit="-1" soft_upper_limit="1"/>',
     (-math.pi, math.pi)),
])
def test_safety_controller_soft_limits(jtype: str, limit: str, safety: str,
                                       bounds: tuple[float, float]) -> None:
    """Model bounds are MoveIt's; the joint keeps its URDF <limit> (tesseract, Pinocchio)."""
    model = RobotModel.from_urdf_string(_joint_urdf(jtype, limit, safety))
    assert (model.variable_lower[0], model.variable_upper[0]) == bounds
    assert model.joint('j').safety is not None


# --------------------------------------------------------------------------- mimic




def test_mimic_on_a_fixed_joint_loads_with_one_warning(
        capfd: pytest.CaptureFixture[str]) -> None:
    """Accepted by urdfdom and robot_state_publisher: the mimic is ignored, warned once."""
    result = load_urdf_string(robot_corpus.RSP_MIMIC_JOINT_URDF, source='mimic_joint.urdf')
    mimic_warnings = [w for w in result.warnings if 'mimic' in w]
    assert len(mimic_warnings) == 1
    assert "'base_to_third_joint'" in mimic_warnings[0]
    assert "'base_to_second_joint'" in mimic_warnings[0]
    model = RobotModel.from_scene_graph(result.scene_graph)
    assert model.mimic_joint_names == ()
    assert model.joint('base_to_third_joint').mimic is None
    assert capfd.readouterr() == ('', '')


def test_state_publisher_loads_the_rsp_mimic_fixture() -> None:
    """The state publisher node's loader (load_model) no longer refuses the file."""
    pytest.importorskip('rclpy')
    from robot_state_core.ros.params import StatePublisherConfig
    from robot_state_core.ros.state_publisher_node import load_model

    model = load_model(StatePublisherConfig(robot_description=robot_corpus.RSP_MIMIC_JOINT_URDF))
    assert model.link_names == ('base_link', 'second_link', 'third_link')
    assert sum('mimic' in w for w in model.load_warnings) == 1


MIMIC_UNKNOWN = '''<robot name="hand"><link name="palm"/><link name="f1"/><link name="f2"/>
  <joint name="q1" type="revolute"><parent link="palm"/><child link="f1"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <joint name="Left_index_q2" type="revolute"><parent link="f1"/><child link="f2"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/>
    <mimic joint="index_q1" multiplier="1.05"/></joint></robot>'''


def test_mimic_of_an_undefined_joint_is_independent() -> None:
    """MoveIt: "cannot mimic unknown joint"; the joint is independent; one warning."""
    model = RobotModel.from_urdf_string(MIMIC_UNKNOWN)
    warnings = [w for w in model.load_warnings if 'index_q1' in w]
    assert len(warnings) == 1 and "'Left_index_q2'" in warnings[0]
    assert model.mimic_joint_names == ()
    assert model.joint('Left_index_q2').mimic is None  # dropped from the graph (decisions.md)
    state = RobotState(model)
    state.set_variable_positions({'q1': 0.2, 'Left_index_q2': 0.7})
    assert state.get_variable_position('Left_index_q2') == 0.7


def test_mimic_of_a_joint_with_other_dof_is_independent() -> None:
    """MoveIt: "different number of DOF"; a revolute joint mimicking a fixed one is free."""
    urdf = MIMIC_UNKNOWN.replace('joint="index_q1"', 'joint="fixed_j"').replace(
        '</robot>', '<link name="f3"/><joint name="fixed_j" type="fixed"><parent link="palm"/>'
                    '<child link="f3"/></joint></robot>')
    model = RobotModel.from_urdf_string(urdf)
    assert model.mimic_joint_names == ()
    assert any("'fixed_j'" in w and 'independent' in w for w in model.load_warnings)


def test_mimic_cycles_are_still_refused() -> None:
    """A cycle has no source value; MoveIt drops every mimic, we refuse (decisions.md)."""
    cyclic = MIMIC_UNKNOWN.replace('joint="index_q1"', 'joint="q1"').replace(
        '<limit lower="0" upper="1" effort="1" velocity="1"/></joint>\n  <joint name="Left',
        '<limit lower="0" upper="1" effort="1" velocity="1"/>'
        '<mimic joint="Left_index_q2"/></joint>\n  <joint name="Left')
    with pytest.raises(UrdfLoadError, match='mimic cycle'):
        load_urdf_string(cyclic)


def test_multi_dof_mimic_is_refused() -> None:
    """MoveIt applies a planar-of-planar mimic per variable; we refuse it (decisions.md)."""
    urdf = '''<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
      <joint name="p1" type="planar"><parent link="a"/><child link="b"/></joint>
      <joint name="p2" type="planar"><parent link="b"/><child link="c"/>
        <mimic joint="p1"/></joint></robot>'''
    with pytest.raises(UrdfLoadError, match="joint 'p2' mimics 'p1'"):
        load_urdf_string(urdf)


# --------------------------------------------------------------------------- XML and SRDF


def test_whitespace_before_the_xml_declaration() -> None:
    """tinyxml2 skips it; line numbers still point at the right line."""
    urdf = '\n\n  <?xml version="1.0"?>\n<robot name="r">\n<link name="a"/>\n<link name="a"/>' \
           '\n</robot>'
    with pytest.raises(UrdfLoadError) as info:
        load_urdf_string(urdf)
    assert info.value.line == 6


def test_virtual_joint_not_on_the_root_is_skipped() -> None:
    """MoveIt: "Skipping virtual joint ... does not match the URDF frame"; the rest loads."""
    urdf = _planar_urdf()
    srdf = '''<robot name="r">
      <virtual_joint name="wrong" type="floating" parent_frame="odom" child_link="arm"/>
      <virtual_joint name="vj" type="planar" parent_frame="map" child_link="world"/>
      <virtual_joint name="second" type="floating" parent_frame="odom" child_link="world"/>
      <group name="g"><joint name="arm_joint"/></group></robot>'''
    model = RobotModel.from_urdf_string(urdf, srdf)
    assert model.virtual_joint_names == ('vj',)
    assert model.model_frame == 'map'
    assert not model.has_joint('wrong') and not model.has_joint('second')
    assert any("'wrong'" in w for w in model.srdf_warnings)
    assert model.group_names == ('g',)


def test_group_state_values_outside_the_group_are_ignored() -> None:
    """MoveIt buildGroupStates: a value for a joint not in the group, or of the wrong size."""
    srdf = '''<robot name="r"><group name="arm"><joint name="arm_joint"/></group>
      <group_state name="s" group="arm"><joint name="arm_joint" value="0.5"/>
        <joint name="base_joint" value="1 2 3"/></group_state>
      <group_state name="bad" group="arm"><joint name="arm_joint" value="0.5 1"/></group_state>
      </robot>'''
    model = RobotModel.from_urdf_string(_planar_urdf(), srdf)
    assert dict(model.group('arm').named_states) == {'s': {'arm_joint': 0.5}}
    assert any("'base_joint', which is not part of group 'arm'" in w
               for w in model.srdf_warnings)
    assert any('needs 1 value(s), got 2' in w for w in model.srdf_warnings)


def test_end_effector_parent_group_resolution() -> None:
    """MoveIt buildGroupsInfoEndEffectors: explicit parent group, else the smallest group."""
    srdf = '''<robot name="r">
      <group name="all"><joint name="base_joint"/><joint name="arm_joint"/></group>
      <group name="base"><joint name="base_joint"/></group>
      <group name="tool"><link name="arm"/></group>
      <end_effector name="e1" parent_link="base" group="tool"/>
      <end_effector name="e2" parent_link="base" group="tool" parent_group="all"/>
      <end_effector name="e3" parent_link="base" group="tool" parent_group="nope"/>
      </robot>'''
    model = RobotModel.from_urdf_string(_planar_urdf(), srdf)
    parents = {e.name: e.parent_group for e in model.end_effectors}
    assert parents == {'e1': 'base', 'e2': 'all', 'e3': 'base'}
    assert any("parent group 'nope' not found" in w for w in model.srdf_warnings)
    assert model.group('base').end_effector_names == ('e1', 'e2', 'e3')


@pytest.mark.parametrize('parent', ['map', 'world'], ids=['new-frame', 'frame-is-the-child'])
def test_recompiling_a_models_own_graph_keeps_the_virtual_joint(parent: str) -> None:
    """The services node recompiles ``to_scene_graph()`` with the same SRDF: same model."""
    srdf = (f'<robot name="r"><virtual_joint name="vj" type="planar" parent_frame="{parent}" '
            'child_link="world"/><group name="g"><joint name="vj"/></group></robot>')
    model = RobotModel.from_urdf_string(_planar_urdf(), srdf)
    again = RobotModel.from_scene_graph(model.to_scene_graph(), model.srdf)
    assert again.link_names == model.link_names
    assert again.joint_names == model.joint_names
    assert again.model_frame == model.model_frame == parent
    assert again.virtual_joint_names == ('vj',)
    assert again.srdf_warnings == model.srdf_warnings == ()


@pytest.mark.parametrize('child', ['arm', 'world'], ids=['child-not-root', 'child-is-root'])
def test_virtual_joint_named_like_a_urdf_joint_is_skipped(child: str) -> None:
    """MoveIt ``RobotModel::constructJointModel`` (moveit2 ``robot_model.cpp``): child frame rule.

    A virtual joint whose child frame is not the URDF root is skipped with "Skipping virtual
    joint '...' because its child frame '...' does not match the URDF frame '...'", whatever
    its name, and the model frame stays the URDF root. Named ``arm_joint`` (a URDF joint from
    ``base`` to ``arm``) it used to be taken for the graph's own virtual joint: model frame
    ``odom``, a frame ``get_frame_transform`` did not know. On the root, a virtual joint named
    like a URDF joint is skipped too (MoveIt would build two joints of one name; decision L21).
    """
    srdf = ('<robot name="r"><virtual_joint name="arm_joint" type="floating" '
            f'parent_frame="odom" child_link="{child}"/></robot>')
    model = RobotModel.from_urdf_string(_planar_urdf(), srdf)
    assert model.model_frame == 'world' == model.link_names[0]
    assert model.virtual_joint_names == ()
    assert model.joint_names == ('base_joint', 'arm_joint')
    expected = ("Skipping virtual joint 'arm_joint' because its child frame 'arm' does not "
                "match the URDF frame 'world'" if child == 'arm' else
                "Skipping virtual joint 'arm_joint': the URDF already has a joint named "
                "'arm_joint'")
    assert [w for w in model.srdf_warnings if expected in w], model.srdf_warnings
    state = RobotState(model)
    np.testing.assert_array_equal(state.get_frame_transform(model.model_frame), np.eye(4))
    with pytest.raises(UnknownNameError, match='odom'):
        state.get_frame_transform('odom')


# --------------------------------------------------------------------------- unreadable meshes


def _binary_stl(path: Path, triangles: np.ndarray) -> None:
    """A binary STL of ``(T, 3, 3)`` triangles (normals left zero, as readers recompute them)."""
    data = bytearray(80) + len(triangles).to_bytes(4, 'little')
    for tri in np.asarray(triangles, dtype='<f4'):
        data += bytes(12) + tri.tobytes() + bytes(2)
    path.write_bytes(bytes(data))


def test_unreadable_collision_meshes_leave_the_link_its_other_geometry(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Decision V8 (followed): a collision mesh that cannot be read is left out with a warning.

    MoveIt (moveit2 ``moveit_core/robot_model/src/robot_model.cpp``): ``constructShape`` returns
    the null shape geometric_shapes' ``createMeshFromResource`` gives for a resource it cannot
    retrieve or import (``src/mesh_operations.cpp``, which logs why), and
    ``constructLinkModel`` pushes only non-null shapes: the link keeps its other collision
    geometry and the model loads. Expected distance: sphere (r 0.05, 0.5 m out) to the base box
    (half edge 0.1), 0.5 - 0.05 - 0.1 = 0.35 m.
    """
    pytest.importorskip('fcl')
    missing = tmp_path / 'missing.stl'
    garbage = tmp_path / 'garbage.stl'
    garbage.write_text('this is not a mesh\n', encoding='utf-8')
    flat = tmp_path / 'flat.stl'  # one triangle: a mesh, but no 3D convex hull
    _binary_stl(flat, np.array([[[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]]]))
    urdf = f'''<robot name="r">
      <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
      </link>
      <link name="arm">
        <collision><geometry><mesh filename="file://{missing}"/></geometry></collision>
        <collision><geometry><sphere radius="0.05"/></geometry></collision>
        <collision><geometry><mesh filename="file://{garbage}"/></geometry></collision>
        <collision><origin xyz="0.3 0 0"/><geometry><mesh filename="file://{flat}"/></geometry>
        </collision>
      </link>
      <joint name="mount" type="fixed"><parent link="base"/><child link="arm"/>
        <origin xyz="0.5 0 0"/></joint>
    </robot>'''
    model = RobotModel.from_urdf_string(urdf)  # the missing file is reported unresolved
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger='robot_state_core'):
        scene = PlanningScene(model)
    geometry = scene.geometry
    assert geometry.names == ('base/0', 'arm/1', 'arm/3')
    assert geometry.skipped == ('arm/0', 'arm/2')
    warnings = [r.getMessage() for r in caplog.records
                if r.name == type(geometry).__module__]  # RobotGeometry's logger
    assert len(warnings) == 2  # one line per skipped mesh
    for line, path in zip(warnings, (missing, garbage), strict=True):
        assert "link 'arm'" in line and f'file://{path}' in line and '\n' not in line
    assert geometry.unreadable == (warnings[1],)  # resolved but unreadable: the services log it
    assert 'holds no triangles' in warnings[1]
    assert scene.distance_to_collision(scene.current_state, self_collision=True) == \
        pytest.approx(0.35, abs=1e-9)

    hulls = PlanningScene(model, mesh_mode='convex')  # the flat mesh has no 3D hull
    assert hulls.geometry.names == ('base/0', 'arm/1')
    assert hulls.geometry.skipped == ('arm/0', 'arm/2', 'arm/3')
    assert len(hulls.geometry.unreadable) == 2
    assert 'flat.stl' in hulls.geometry.unreadable[1]
    assert 'convex_hull' in hulls.geometry.unreadable[1]
    assert hulls.distance_to_collision(hulls.current_state, self_collision=True) == \
        pytest.approx(0.35, abs=1e-9)
