"""The embedded default robot exercises every joint type and is a complete MoveIt-style robot."""

from __future__ import annotations

from collections import Counter
import math

from lxml import etree
import pytest

from robot_state_core.io.default_robot import (
    default_robot_srdf_path,
    default_robot_urdf_path,
    package_root,
)
from robot_state_core.io.urdf import read_urdf_file

PACKAGE_PREFIX = 'package://robot_state_core/'


@pytest.fixture(scope='module')
def robot():  # urdf_parser_py Robot
    parsed, warnings = read_urdf_file(default_robot_urdf_path())
    assert warnings == []
    return parsed


@pytest.fixture(scope='module')
def srdf() -> etree._Element:
    return etree.parse(str(default_robot_srdf_path())).getroot()


def test_every_urdf_joint_type_is_present(robot) -> None:
    """Planar base, prismatic lift, revolute arm with a continuous joint, fixed frames, mimic."""
    types = Counter(j.type for j in robot.joints)
    assert types['planar'] == 1
    assert types['prismatic'] >= 3  # lift and both fingers
    assert types['revolute'] >= 5
    assert types['continuous'] >= 1
    assert types['fixed'] >= 3
    mimics = [j for j in robot.joints if j.mimic is not None]
    assert len(mimics) == 1
    (m,) = mimics
    assert m.mimic.joint == 'left_finger_joint'
    assert m.mimic.multiplier == -1.0


def test_every_moving_joint_has_limits_and_every_moving_link_inertia(robot) -> None:
    """Velocity/effort limits on every non-fixed joint; positive mass on every moving link."""
    moving = [j for j in robot.joints if j.type != 'fixed']
    for j in moving:
        assert j.limit is not None and j.limit.velocity > 0 and j.limit.effort > 0, j.name
        if j.type in ('revolute', 'prismatic'):
            assert j.limit.lower < j.limit.upper, j.name
    links = {link.name: link for link in robot.links}
    for j in moving:
        inertial = links[j.child].inertial
        assert inertial is not None and inertial.mass > 0, j.child


def test_materials_collisions_and_team_mesh(robot) -> None:
    """Named RGBA materials; primitive collisions (some links several); an STL visual mesh."""
    assert len({m.name for m in robot.materials}) >= 4
    assert all(m.color is not None and len(m.color.rgba) == 4 for m in robot.materials)
    collision_kinds = {type(c.geometry).__name__ for link in robot.links
                       for c in link.collisions}
    assert collision_kinds <= {'Box', 'Cylinder', 'Sphere'}
    assert max(len(link.collisions) for link in robot.links) >= 2
    meshes = [v.geometry for link in robot.links for v in link.visuals
              if type(v.geometry).__name__ == 'Mesh']
    assert meshes
    for mesh in meshes:
        assert mesh.filename.startswith(PACKAGE_PREFIX) and mesh.filename.endswith('.stl')
        path = package_root() / mesh.filename[len(PACKAGE_PREFIX):]
        assert path.is_file(), mesh.filename
        trimesh = pytest.importorskip('trimesh')
        loaded = trimesh.load(str(path), force='mesh')
        assert loaded.is_watertight and loaded.volume > 0


def test_srdf_groups_states_end_effector_and_disabled_pairs(srdf, robot) -> None:
    """Arm chain and gripper groups, home/ready states, an end effector, disabled pairs."""
    groups = {g.get('name'): g for g in srdf.findall('group')}
    assert {'arm', 'gripper'} <= set(groups)
    chain = groups['arm'].find('chain')
    assert chain is not None
    link_names = {link.name for link in robot.links}
    assert {chain.get('base_link'), chain.get('tip_link')} <= link_names
    states = {(s.get('group'), s.get('name')) for s in srdf.findall('group_state')}
    assert {('arm', 'home'), ('arm', 'ready')} <= states
    ee = srdf.find('end_effector')
    assert ee is not None and ee.get('group') == 'gripper' and ee.get('parent_link') in link_names
    pairs = srdf.findall('disable_collisions')
    assert pairs and all(p.get('reason') for p in pairs)
    assert {p.get('link1') for p in pairs} | {p.get('link2') for p in pairs} <= link_names


def test_named_states_are_within_limits(srdf, robot) -> None:
    """Every group_state value lies inside its joint's limits."""
    joints = {j.name: j for j in robot.joints}
    for state in srdf.findall('group_state'):
        for entry in state.findall('joint'):
            joint = joints[entry.get('name')]
            value = float(entry.get('value'))
            if joint.type in ('revolute', 'prismatic'):
                assert joint.limit.lower <= value <= joint.limit.upper, entry.get('name')


def test_pinocchio_oracle_agrees_on_dimensions() -> None:
    """Pinocchio loads the robot: planar (nq 4 as cos/sin), continuous (2), mimic folded in."""
    pin = pytest.importorskip('pinocchio')
    model = pin.buildModelFromUrdf(str(default_robot_urdf_path()), mimic=True)
    # planar 4 + lift 1 + five revolute + continuous 2 + left finger 1 (mimic has none)
    assert (model.nq, model.nv) == (13, 11)
    data = model.createData()
    q = pin.neutral(model)
    pin.framesForwardKinematics(model, data, q)
    tool = data.oMf[model.getFrameId('tool0')].translation
    assert math.isfinite(float(tool[2])) and tool[2] > 1.0
