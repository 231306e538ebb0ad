"""URDF loading into a SceneGraph: every element, our extensions, quirks, resources, export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import robot_corpus

from robot_state_core.description.joints import JointType
from robot_state_core.description.scene_graph import CONTINUOUS_DEFAULT_LIMIT
from robot_state_core.errors import RobotDescriptionError
from robot_state_core.geometry.shapes import Box, Capsule, Cylinder, Mesh, Sphere
from robot_state_core.io.default_robot import default_robot_urdf_path
from robot_state_core.io.resources import ResourceResolver
from robot_state_core.io.urdf import load_urdf_file, load_urdf_string, save_urdf
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import pose_from_xyz_rpy

RESOURCES = Path(__file__).resolve().parent / 'resources'
ALL_TYPES = RESOURCES / 'all_joint_types.urdf'
POSE_TOL = 1e-14


@pytest.fixture(scope='module')
def loaded():
    return load_urdf_file(ALL_TYPES)


def test_every_joint_type_and_its_data(loaded) -> None:
    """Types, origins, normalized axes, limits, dynamics, safety, calibration, mimic."""
    g = loaded.scene_graph
    types = {j.name: j.type for j in g.get_joints()}
    assert types == {'float': JointType.FLOATING, 'rpy': JointType.RPY_FLOATING,
                     'plane': JointType.PLANAR, 'rev': JointType.REVOLUTE,
                     'cont': JointType.CONTINUOUS, 'slide': JointType.PRISMATIC,
                     'finger_a_joint': JointType.PRISMATIC, 'finger_b_joint': JointType.PRISMATIC,
                     'finger_c_joint': JointType.PRISMATIC, 'tool_joint': JointType.FIXED}
    rev = g.get_joint('rev')
    np.testing.assert_allclose(rev.parent_to_joint_origin_transform,
                               pose_from_xyz_rpy([0, 0, 0.1], [0, 0, 1.0]), atol=POSE_TOL)
    np.testing.assert_allclose(rev.axis, [0, np.sqrt(0.5), np.sqrt(0.5)], atol=POSE_TOL)
    assert (rev.limits.lower, rev.limits.upper, rev.limits.effort, rev.limits.velocity) == (
        0.5, 2.0, 10.0, 2.0)
    assert (rev.dynamics.damping, rev.dynamics.friction) == (0.1, 0.2)
    assert (rev.safety.soft_lower_limit, rev.safety.soft_upper_limit, rev.safety.k_position,
            rev.safety.k_velocity) == (0.6, 1.9, 10.0, 5.0)
    assert rev.calibration.rising == 0.25
    assert rev.calibration.falling is None
    mimic = g.get_joint('finger_c_joint').mimic
    assert (mimic.joint_name, mimic.multiplier, mimic.offset) == ('finger_b_joint', -0.5, 0.2)
    assert g.get_joint('rpy').dynamics.damping == 0.5
    assert g.get_root() == 'world'
    assert g.is_tree()


def test_links_geometry_materials_and_inertial(loaded) -> None:
    """Visual/collision shapes with origins, capsule extension, materials, inertial."""
    g = loaded.scene_graph
    body = g.get_link('floating_body')
    assert body.visuals[0].geometry == Box(0.2, 0.3, 0.4)
    assert body.visuals[0].material.name == 'grey'
    assert body.visuals[0].material.color == (0.5, 0.5, 0.5, 1.0)
    assert body.collisions[0].geometry == Capsule(0.05, 0.3)
    np.testing.assert_allclose(body.collisions[0].origin,
                               pose_from_xyz_rpy([0, 0, 0.05], [0, 0.1, 0]), atol=POSE_TOL)
    assert body.inertial.mass == 2.0
    np.testing.assert_allclose(body.inertial.inertia_matrix(), np.eye(3) * 0.1)
    shapes = [c.geometry for c in g.get_link('revolute_link').collisions]
    assert shapes == [Cylinder(0.03, 0.2), Sphere(0.04)]
    assert 'grey' in loaded.materials


def test_relative_mesh_resolves_against_the_urdf_directory(loaded) -> None:
    """A relative mesh path resolves next to the URDF; scale kept; nothing unresolved."""
    mesh = loaded.scene_graph.get_link('rpy_body').visuals[0].geometry
    assert isinstance(mesh, Mesh)
    assert mesh.uri == 'meshes/tetra.stl'
    assert mesh.scale == (0.5, 0.5, 0.5)
    assert Path(mesh.path) == RESOURCES / 'meshes' / 'tetra.stl'
    assert loaded.unresolved_meshes == ()


def test_default_robot_meshes_resolve_without_ros() -> None:
    """package://robot_state_core/... resolves to the embedded robot without an ament index."""
    result = load_urdf_file(default_robot_urdf_path())
    meshes = [v.geometry for link in result.scene_graph.get_links() for v in link.visuals
              if isinstance(v.geometry, Mesh)]
    assert meshes
    assert all(m.path is not None and Path(m.path).is_file() for m in meshes)
    assert result.warnings == ()


def test_unresolvable_mesh_is_reported_or_raises() -> None:
    """An unknown package is listed (and warned about); strict mode raises."""
    doc = ALL_TYPES.read_text().replace('meshes/tetra.stl', 'package://no_such_pkg/m.stl')
    result = load_urdf_string(doc)
    assert result.unresolved_meshes == ('package://no_such_pkg/m.stl',)
    assert any('could not be resolved' in w for w in result.warnings)
    mesh = result.scene_graph.get_link('rpy_body').visuals[0].geometry
    assert mesh.path is None
    assert mesh.uri == 'package://no_such_pkg/m.stl'
    with pytest.raises(RobotDescriptionError, match='no_such_pkg'):
        load_urdf_string(doc, strict_meshes=True)


def test_quirks_are_tolerated_with_notes() -> None:
    """Texture without filename and a transmission without type load, with notes (issue 17).

    urdfdom ignores both silently and nothing we load changes: they are notes (INFO), not
    warnings.
    """
    doc = '''<robot name="q"><material name="m"><texture/><color rgba="1 0 0 1"/></material>
      <link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="m"/>
      </visual></link><link name="b"/>
      <joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>
      <transmission name="t"><joint name="j"/><actuator name="m"/></transmission>
      <gazebo reference="a"><material>Gazebo/Grey</material></gazebo></robot>'''
    result = load_urdf_string(doc)
    assert result.warnings == ()
    assert len(result.notes) == 2
    assert any('texture' in w for w in result.notes)
    assert any('transmission' in w for w in result.notes)
    assert result.scene_graph.get_link('a').visuals[0].material.color == (1.0, 0.0, 0.0, 1.0)


def test_resolver_priority_and_ament_index(tmp_path: Path, monkeypatch) -> None:
    """Explicit map beats package roots beats the ament index; the index is read from disk."""
    prefix = tmp_path / 'prefix'
    (prefix / 'share/ament_index/resource_index/packages').mkdir(parents=True)
    (prefix / 'share/ament_index/resource_index/packages/pkg').write_text('')
    (prefix / 'share/pkg').mkdir()
    (prefix / 'share/pkg/a.stl').write_text('solid')
    roots = tmp_path / 'roots'
    (roots / 'pkg').mkdir(parents=True)
    (roots / 'pkg/a.stl').write_text('solid')
    explicit = tmp_path / 'explicit'
    explicit.mkdir()
    (explicit / 'a.stl').write_text('solid')
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(prefix))
    uri = 'package://pkg/a.stl'
    assert ResourceResolver().resolve(uri)[0] == prefix / 'share/pkg/a.stl'
    assert ResourceResolver(package_roots=(roots,)).resolve(uri)[0] == roots / 'pkg/a.stl'
    assert ResourceResolver({'pkg': explicit}, (roots,)).resolve(uri)[0] == explicit / 'a.stl'
    assert ResourceResolver(use_ament_index=False).resolve(uri)[0] is None
    assert ResourceResolver().resolve(f'file://{explicit}/a.stl')[0] == explicit / 'a.stl'
    path, warning = ResourceResolver({'pkg': explicit}).resolve('package:///pkg/a.stl')
    assert path == explicit / 'a.stl'
    assert 'empty package name' in warning


def _assert_graphs_equal(a, b) -> None:
    assert a.get_name() == b.get_name()
    assert a.get_root() == b.get_root()
    la = {link.name: link for link in a.get_links()}
    lb = {link.name: link for link in b.get_links()}
    assert la.keys() == lb.keys()
    for name, link in la.items():
        other = lb[name]
        assert [v.geometry for v in link.visuals] == [v.geometry for v in other.visuals]
        assert [c.geometry for c in link.collisions] == [c.geometry for c in other.collisions]
        for x, y in zip(link.visuals + link.collisions, other.visuals + other.collisions,
                        strict=True):
            np.testing.assert_allclose(x.origin, y.origin, atol=1e-14)
        assert (link.inertial is None) == (other.inertial is None)
    ja = {j.name: j for j in a.get_joints()}
    jb = {j.name: j for j in b.get_joints()}
    assert ja.keys() == jb.keys()
    for name, joint in ja.items():
        other = jb[name]
        assert (joint.type, joint.parent_link_name, joint.child_link_name) == (
            other.type, other.parent_link_name, other.child_link_name), name
        np.testing.assert_allclose(joint.parent_to_joint_origin_transform,
                                   other.parent_to_joint_origin_transform, atol=1e-14)
        np.testing.assert_allclose(joint.axis, other.axis, atol=1e-15)
        assert joint.mimic == other.mimic
        assert joint.dynamics == other.dynamics
        assert joint.safety == other.safety
        assert joint.calibration == other.calibration
        if joint.limits is not None and other.limits is not None:
            assert (joint.limits.lower, joint.limits.upper, joint.limits.velocity,
                    joint.limits.effort) == (other.limits.lower, other.limits.upper,
                                             other.limits.velocity, other.limits.effort)


@pytest.mark.parametrize('robot', ['all_joint_types', 'default', 'panda', 'talos', 'pr2'])
def test_export_round_trip(robot: str) -> None:
    """Load → save_urdf → load gives the same scene graph (origins to 1e-14)."""
    if robot == 'all_joint_types':
        first = load_urdf_file(ALL_TYPES)
    elif robot == 'default':
        first = load_urdf_file(default_robot_urdf_path())
    else:
        first = load_urdf_file(robot_corpus.test_robot(robot).urdf_path,
                               package_map=robot_corpus.package_map())
    text = save_urdf(first.scene_graph, first.materials)
    second = load_urdf_string(text, package_map=robot_corpus.package_map(),
                              base_dir=RESOURCES)
    _assert_graphs_equal(first.scene_graph, second.scene_graph)


# -- joints without <limit>, acceleration and jerk (docs/decisions.md T-3, T-4) ------------------

_NO_LIMITS_URDF = '''<robot name="r">
  <link name="base"/><link name="wheel"/><link name="cart"/><link name="arm"/>
  <joint name="spin" type="continuous"><parent link="base"/><child link="wheel"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="plane" type="planar"><parent link="base"/><child link="cart"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="elbow" type="revolute"><parent link="cart"/><child link="arm"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>'''


def test_joints_without_limit_load_with_unspecified_limits() -> None:
    """continuous/planar without <limit> load (urdfdom, MoveIt); the graph holds limits.

    A continuous joint gets tesseract_urdf's all-zero limits, which the graph turns into ±4π
    (not the 2 rad/s default of SceneGraph.add_joint); a planar joint gets the same all-zero
    limits (tesseract refuses it, T-3). Velocity 0 is "unbounded" in the compiled model, as
    MoveIt's jointBoundsFromURDF leaves a joint without <limit>.
    """
    graph = load_urdf_string(_NO_LIMITS_URDF).scene_graph
    spin = graph.get_joint_limits('spin')
    assert spin is not None
    assert (spin.lower, spin.upper) == (-CONTINUOUS_DEFAULT_LIMIT, CONTINUOUS_DEFAULT_LIMIT)
    assert (spin.effort, spin.velocity, spin.acceleration, spin.jerk) == (0.0, 0.0, 0.0, 0.0)
    plane = graph.get_joint_limits('plane')
    assert plane is not None
    assert (plane.lower, plane.upper, plane.velocity) == (0.0, 0.0, 0.0)
    model = RobotModel.from_scene_graph(graph)
    for name in ('spin', 'plane/x', 'plane/y', 'plane/theta'):
        i = model.variable_index(name)
        assert model.variable_velocity_limits[i] == np.inf
        assert model.variable_acceleration_limits[i] == np.inf
        assert model.variable_jerk_limits[i] == np.inf


def test_urdf_limit_has_no_default_acceleration_or_jerk() -> None:
    """<limit> without acceleration: 0 (unspecified), not tesseract_urdf's 0.5·velocity (T-4)."""
    elbow = load_urdf_string(_NO_LIMITS_URDF).scene_graph.get_joint_limits('elbow')
    assert elbow is not None
    assert (elbow.lower, elbow.upper, elbow.effort, elbow.velocity) == (-1.0, 1.0, 5.0, 2.0)
    assert (elbow.acceleration, elbow.jerk) == (0.0, 0.0)


def test_single_link_robot_compiles_although_not_a_tree() -> None:
    """A one-link URDF is not a tree for tesseract (T-2) but is a valid MoveIt robot model."""
    graph = load_urdf_string('<robot name="r"><link name="only"/></robot>').scene_graph
    assert not graph.is_tree()
    model = RobotModel.from_scene_graph(graph)
    assert list(model.link_names) == ['only']
    assert model.nq == 0
