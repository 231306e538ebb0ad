"""Inputs urdfdom loads and we used to refuse (issue 26 item 5), with urdfdom as the oracle.

Each fixture in ``test/resources/urdfdom_lenient/`` is our own small robot reproducing one
construct of pybullet_data's minitaur, quadruped, racecar and racecar_differential files
(pybullet itself is not a dependency). Every case names where urdfdom decides it:

* ``<?xml version="0.0"?>``: tinyxml2 does not read the declaration; libxml2 refuses the version
  (decision L17);
* a second element in ``<geometry>``: ``urdf_parser/src/link.cpp`` ``parseGeometry`` takes
  ``FirstChildElement()`` as the shape (L18);
* a visual or collision urdfdom cannot parse (mesh ``scale="1 1 1 1"``): ``link.cpp``
  ``parseLink`` returns at it and ``model.cpp`` ``parseURDF`` ignores the result and keeps the
  link as far as it was read (L19);
* ``rgba`` with five numbers: urdfdom_headers ``urdf_model/color.h`` ``Color::init`` returns
  false and ``link.cpp`` ``parseMaterial`` ignores it: the cleared color, opaque black (L19);
* limits of ±1e300: ``urdf_parser/src/joint.cpp`` ``parseJointLimits`` reads them as written;
  the model clamps them to ±1e100 (L20);
* a ``<robot>``-level ``<material>`` without a name: ``model.cpp`` ``parseURDF`` ignores
  ``parseMaterial``'s false and keeps an empty, unusable material (L22).

Pinocchio (``test/pinocchio_oracle.py``) parses URDF with the real urdfdom, so its loading a
fixture shows urdfdom accepts it, and its forward kinematics is the reference for ours.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio_oracle
import pytest

from robot_state_core import kinematics, load_urdf_file, load_urdf_string, RobotModel
from robot_state_core.errors import UrdfLoadError
from robot_state_core.geometry.shapes import Cylinder, Sphere
from robot_state_core.model.robot_model import MAX_POSITION_LIMIT

LENIENT = Path(__file__).resolve().parent / 'resources' / 'urdfdom_lenient'
FIXTURES = sorted(p.name for p in LENIENT.glob('*.urdf'))


def _fk_matches_pinocchio(path: Path, model: RobotModel, span: float = np.pi) -> None:
    """Every link pose equals Pinocchio's (urdfdom-parsed) at 20 random configurations."""
    pin = pytest.importorskip('pinocchio')
    pm, _ = pinocchio_oracle.load(path)  # urdfdom parses the file or this raises
    data = pm.createData()
    rng = np.random.default_rng(26)
    lower = np.maximum(model.variable_lower, -span)
    upper = np.minimum(model.variable_upper, span)
    for _ in range(20):
        q = model.apply_mimic(rng.uniform(lower, upper))
        pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
        X = kinematics.forward_kinematics(model, q)
        for i, link in enumerate(model.link_names):
            expected = data.oMf[pm.getFrameId(link, pin.FrameType.BODY)].homogeneous
            np.testing.assert_allclose(X[i], expected, atol=1e-12, err_msg=f'{path.name}: {link}')


@pytest.mark.parametrize('name', FIXTURES)
def test_fixture_loads_and_matches_pinocchio(name: str) -> None:
    """Both urdfdom (through Pinocchio) and we load every fixture; FK agrees to 1e-12."""
    path = LENIENT / name
    model = RobotModel.from_urdf_file(path)
    _fk_matches_pinocchio(path, model)


def test_xml_declaration_version_is_not_read() -> None:
    """tinyxml2 ignores the declaration (urdfdom ``model.cpp`` ``parseURDF`` never checks it).

    libxml2 (``xmlParseXMLDecl``) said "Unsupported version '0.0'"; ``safe_xml`` now reads a
    version other than 1.x as 1.0. Line numbers are unchanged.
    """
    result = load_urdf_file(LENIENT / 'xml_version_0.urdf')
    assert result.warnings == ()
    assert result.scene_graph.get_joint('front_knee') is not None
    for version in ('0.0', '2.0', 'abc', '1.1'):
        document = f'<?xml version="{version}"?>\n<robot name="r">\n<link name="a" x="1"/></robot>'
        assert load_urdf_string(document).scene_graph.get_link('a') is not None
        with pytest.raises(UrdfLoadError, match='line 3'):
            load_urdf_string(document.replace('<link name="a" x="1"/>', '<link/>'))


def test_only_the_first_geometry_element_is_the_shape() -> None:
    """The shape is ``g->FirstChildElement()`` (urdfdom ``link.cpp`` ``parseGeometry``).

    The other children are never read; we drop them with one warning naming the element and
    its line (urdf_parser_py said "One element only for geometric", with no element or line).
    """
    result = load_urdf_file(LENIENT / 'material_in_geometry.urdf')
    wheel = result.scene_graph.get_link('wheel')
    assert [type(v.geometry) for v in wheel.visuals] == [Cylinder]
    assert [w for w in result.warnings if '<material> on line 16' in w and
            "link 'wheel'" in w and '<cylinder>' in w], result.warnings
    two = load_urdf_string('<robot name="r"><link name="a"><collision><geometry>\n'
                           '<sphere radius="1"/>\n<box size="1 1 1"/></geometry></collision>'
                           '</link></robot>')
    assert [type(c.geometry) for c in two.scene_graph.get_link('a').collisions] == [Sphere]
    assert any('<box> on line 3' in w for w in two.warnings), two.warnings


def test_unreadable_visual_drops_what_urdfdom_drops() -> None:
    """In urdfdom, ``link.cpp`` ``parseLink`` returns at the first visual it cannot parse.

    ``parseMesh`` fails on ``scale="1 1 1 1"`` ("Parser found 4 elements but 3 expected"),
    ``parseLink`` returns false before reading any collision, and ``model.cpp`` ``parseURDF``
    ignores that and keeps the link: ``chassis`` has no visual and no collision. On
    ``steering`` the second collision fails, so only the first is kept. One warning per link
    names it, the failing element, its line and what was dropped.
    """
    result = load_urdf_file(LENIENT / 'mesh_scale_four.urdf')
    graph = result.scene_graph
    chassis, steering = graph.get_link('chassis'), graph.get_link('steering')
    assert (chassis.visuals, chassis.collisions) == ([], [])
    assert [type(v.geometry) for v in steering.visuals] == [Sphere]
    assert [type(c.geometry) for c in steering.collisions] == [Sphere]
    dropped = [m for m in result.messages if m.kind == 'dropped_link_element']
    assert [m.text for m in dropped] == [
        "link 'chassis': the <visual> on line 8 cannot be read (<mesh scale> '1 1 1 1' has 4 "
        'numbers, 3 expected, line 9); like urdfdom (parseLink stops there, parseURDF keeps '
        'the link), the link is loaded without it and what follows it: dropped 1 <visual>, '
        '1 <collision>',
        "link 'steering': the <collision> on line 18 cannot be read (<mesh scale> '0.5 0.5 "
        "0.5 1' has 4 numbers, 3 expected, line 19); like urdfdom (parseLink stops there, "
        'parseURDF keeps the link), the link is loaded without it and what follows it: '
        'dropped 2 <collision>']


def test_unreadable_inertial_drops_the_link_geometry() -> None:
    """An ``<inertial>`` without ``<inertia>`` fails urdfdom's ``parseInertial`` (``link.cpp``).

    The link keeps no inertial, visual or collision (Pinocchio, i.e. urdfdom, loads it too).
    """
    urdf = ('<robot name="r"><link name="a">\n<inertial><mass value="2"/></inertial>\n'
            '<visual><geometry><box size="1 1 1"/></geometry></visual>\n'
            '<collision><geometry><box size="1 1 1"/></geometry></collision></link></robot>')
    link = load_urdf_string(urdf).scene_graph.get_link('a')
    assert (link.inertial, link.visuals, link.collisions) == (None, [], [])


def test_colors_are_read_as_urdfdom_reads_them() -> None:
    """urdfdom_headers ``Color::init``: not four numbers leaves the cleared color (0, 0, 0, 1).

    ``link.cpp`` ``parseMaterial`` ignores ``init``'s false and keeps that color, for a named
    material and for a visual's own material alike; each is one warning with its line.
    """
    result = load_urdf_file(LENIENT / 'rgba_five.urdf')
    assert result.materials['grey'].color == (0.0, 0.0, 0.0, 1.0)
    bob = result.scene_graph.get_link('bob').visuals[0]
    assert bob.material is not None and bob.material.color == (0.0, 0.0, 0.0, 1.0)
    colors = [m.text for m in result.messages if m.kind == 'material_color']
    assert len(colors) == 2
    assert 'on line 6 has 5 numbers' in colors[0] and 'on line 14 has 5 numbers' in colors[1]


def test_huge_limits_load_clamped_in_the_model() -> None:
    """Limits of ±1e300 load (urdfdom ``joint.cpp`` ``parseJointLimits``); the model uses ±1e100.

    The scene graph keeps the limits as written (``save_urdf`` and robot_state_publisher see
    them); the model's bounds are clamped with one warning per joint, so sampling stays
    finite and FK matches Pinocchio.
    """
    model = RobotModel.from_urdf_file(LENIENT / 'huge_limits.urdf')
    assert model.variable_lower.tolist() == [-MAX_POSITION_LIMIT] * 2
    assert model.variable_upper.tolist() == [MAX_POSITION_LIMIT] * 2
    assert model.to_scene_graph().get_joint('travel').limits.upper == 1e300
    assert sum('MAX_POSITION_LIMIT' in w for w in model.load_warnings) == 2
    _fk_matches_pinocchio(LENIENT / 'huge_limits.urdf', model, span=10.0)


# ------------------------------------------------------------------ messages name the element


def test_joint_errors_name_the_element_and_its_line() -> None:
    """The failing element's own line, not its joint's (urdf_parser_py's path, walked).

    Before: ``<origin rpy="0 0 0 1">`` was reported on the ``<joint>`` line, and a bad value
    under a ``<material>`` on the line of the first ``<material>`` of that name.
    """
    urdf = ('<robot name="r">\n<link name="a"/>\n<link name="b"/>\n'
            '<joint name="j" type="fixed">\n<parent link="a"/>\n<child link="b"/>\n'
            '<origin xyz="0 0 0" rpy="0 0 0 1"/>\n</joint>\n</robot>')
    with pytest.raises(UrdfLoadError) as info:
        load_urdf_string(urdf)
    assert (info.value.element, info.value.line) == ("<origin rpy> in joint 'j'", 7)
    urdf = urdf.replace('<origin xyz="0 0 0" rpy="0 0 0 1"/>', '<origin/>').replace(
        'type="fixed">', 'type="prismatic">\n<limit lower="0" upper="1" effort="1" '
        'velocity="x"/>')
    with pytest.raises(UrdfLoadError) as info:
        load_urdf_string(urdf)
    assert (info.value.element, info.value.line) == ("<limit velocity> in joint 'j'", 5)


def test_material_messages_name_the_inline_material_line() -> None:
    """A visual's material named like a robot-level one: its own line, not the first one's."""
    urdf = ('<robot name="r">\n<material name="m"><color rgba="1 0 0 1"/></material>\n'
            '<link name="a"><visual><geometry><box size="1 1 1"/></geometry>\n'
            '<material name="m">\n<color rgba="0 1 0"/></material></visual></link>\n</robot>')
    result = load_urdf_string(urdf)
    (color,) = [m.text for m in result.messages if m.kind == 'material_color']
    assert 'on line 5 has 3 numbers' in color


def test_long_names_are_clipped_in_messages() -> None:
    """A 100 kB name is quoted with its first 80 characters, never whole (linear messages)."""
    name = 'n' * 100_000
    result = load_urdf_string(f'<robot name="r"><link name="{name}" colour="red"/></robot>')
    (message,) = result.messages
    assert message.kind == 'unknown_attribute' and len(message.text) < 300


PYBULLET = Path(__file__).resolve().parent / 'resources' / 'pybullet_data'


@pytest.mark.parametrize('name', ['minitaur.urdf', 'quadruped.urdf', 'racecar.urdf',
                                  'racecar_differential.urdf'])
def test_pybullet_data_robots_load_and_match_pinocchio(name: str) -> None:
    """pybullet_data's four files that we refused (issue 26), unchanged: loaded, FK as urdfdom's.

    Their meshes are not in the fixture, so they are reported unresolved; kinematics is what is
    compared (every link at 20 random configurations, Pinocchio parsing with urdfdom).
    """
    path = PYBULLET / name
    model = RobotModel.from_urdf_file(path)
    assert model.link_count > 1
    _fk_matches_pinocchio(path, model)


def test_a_robot_level_material_without_a_name_is_dropped(tmp_path: Path) -> None:
    """Pinocchio (urdfdom) loads the robot; we drop the nameless material with a warning."""
    path = tmp_path / 'nameless_material.urdf'
    path.write_text(
        '<robot name="r">\n'
        '  <material><color rgba="1 0 0 1"/></material>\n'
        '  <material name="red"><color rgba="1 0 0 1"/></material>\n'
        '  <link name="a"><visual><geometry><box size="1 1 1"/></geometry>'
        '<material name="red"/></visual></link>\n'
        '  <link name="b"/>\n'
        '  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
        '<origin xyz="0 0 1"/><axis xyz="0 1 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
        '</robot>\n', encoding='utf-8')
    result = load_urdf_file(path)
    assert set(result.materials) == {'red'}
    dropped = [m.text for m in result.messages if m.kind == 'dropped_material']
    assert len(dropped) == 1 and 'line 2 has no name' in dropped[0]
    model = RobotModel.from_urdf_file(path)
    _fk_matches_pinocchio(path, model)
