"""SRDF loading: the default robot, example-robot-data SRDFs, every error case, hardening."""

from __future__ import annotations

from collections import Counter
import dataclasses
import logging
from pathlib import Path
import re
import textwrap

from lxml import etree
import pytest
import robot_corpus

from robot_state_core.errors import (
    RobotDescriptionError,
    SrdfLoadError,
    UnknownNameError,
    XmlSecurityError,
)
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.io.srdf import (
    check_srdf_against,
    parse_srdf,
    read_srdf_file,
    SrdfDisabledCollision,
    SrdfEndEffector,
    SrdfGroup,
    SrdfGroupState,
    SrdfJointProperty,
    SrdfModel,
    SrdfVirtualJoint,
    validate_srdf_against,
    VIRTUAL_JOINT_TYPES,
)

# Independent reading of XML for cross-checks: plain lxml, no entity expansion.
_PLAIN_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True)


def _xml(path: Path) -> etree._Element:
    return etree.parse(str(path), _PLAIN_PARSER).getroot()


def _urdf_names(path: Path) -> tuple[list[str], list[str]]:
    """(link names, joint names) of a URDF, read with lxml only."""
    root = _xml(path)
    return ([e.get('name') for e in root.findall('link')],
            [e.get('name') for e in root.findall('joint')])


def _srdf(body: str, name: str = 'r') -> str:
    """An SRDF whose ``<robot>`` is on line 1, so ``body`` starts on line 2."""
    return f'<robot name="{name}">\n{textwrap.dedent(body).strip()}\n</robot>\n'


def _require_corpus() -> None:
    try:
        robot_corpus.example_robot_data_share()
    except Exception as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f'example-robot-data unavailable: {exc}')


# --------------------------------------------------------------------------- default robot


@pytest.fixture(scope='module')
def default_srdf() -> SrdfModel:
    return read_srdf_file(default_robot_srdf_path())


def test_default_robot_groups(default_srdf: SrdfModel) -> None:
    """Groups keep document order; the arm is a chain; whole_body is made of subgroups."""
    assert default_srdf.name == 'rsc_mobile_manipulator'
    assert default_srdf.source == str(default_robot_srdf_path())
    assert [g.name for g in default_srdf.groups] == ['base', 'lift', 'arm', 'gripper',
                                                     'whole_body']
    assert default_srdf.group('arm') == SrdfGroup('arm', chains=(('arm_base_link', 'tool0'),))
    assert default_srdf.group('base').joints == ('base_joint',)
    gripper = default_srdf.group('gripper')
    assert gripper.links == ('gripper_palm_link', 'left_finger_link', 'right_finger_link',
                             'tcp')
    assert gripper.joints == ('left_finger_joint', 'right_finger_joint')
    assert gripper.chains == () and gripper.subgroups == ()
    whole_body = default_srdf.group('whole_body')
    assert whole_body.subgroups == ('base', 'lift', 'arm')
    assert whole_body.joints == () and whole_body.links == () and whole_body.chains == ()


def test_default_robot_named_states(default_srdf: SrdfModel) -> None:
    """home/ready (arm), open/closed (gripper), lowered/raised (lift), values in rad or m."""
    states = {(s.group, s.name): s for s in default_srdf.group_states}
    assert list(states) == [('arm', 'home'), ('arm', 'ready'), ('gripper', 'open'),
                            ('gripper', 'closed'), ('lift', 'lowered'), ('lift', 'raised')]
    home = states['arm', 'home'].values
    assert list(home) == ['shoulder_pan_joint', 'shoulder_lift_joint', 'elbow_joint',
                          'forearm_roll_joint', 'wrist_pitch_joint', 'wrist_roll_joint']
    assert home['shoulder_lift_joint'] == (-0.2,)
    assert home['elbow_joint'] == (2.5,)
    assert states['arm', 'ready'].values['wrist_pitch_joint'] == (1.14,)
    assert states['gripper', 'open'].values == {'left_finger_joint': (0.04,)}
    assert states['gripper', 'closed'].values == {'left_finger_joint': (0.0,)}
    assert states['lift', 'raised'].values == {'lift_joint': (0.35,)}


def test_default_robot_end_effector_and_collision_matrix(default_srdf: SrdfModel) -> None:
    """One end effector; 27 disabled pairs, 12 Adjacent and 15 Never; nothing ignored."""
    assert default_srdf.end_effectors == (
        SrdfEndEffector('gripper_eef', parent_link='tool0', group='gripper',
                        parent_group='arm'),)
    pairs = default_srdf.disabled_collisions
    assert len(pairs) == 27
    assert Counter(p.reason for p in pairs) == {'Adjacent': 12, 'Never': 15}
    assert pairs[0] == SrdfDisabledCollision('base_link', 'lift_link', 'Adjacent')
    assert SrdfDisabledCollision('left_finger_link', 'right_finger_link', 'Never') in pairs
    assert default_srdf.virtual_joints == ()
    assert default_srdf.passive_joints == ()
    assert default_srdf.notes == ()


def test_default_robot_srdf_matches_its_urdf(default_srdf: SrdfModel) -> None:
    """Every name the default SRDF uses is defined in the default URDF."""
    links, joints = _urdf_names(default_robot_urdf_path())
    assert validate_srdf_against(default_srdf, links, joints) == []
    check_srdf_against(default_srdf, links, joints)  # does not raise


def test_model_is_frozen_and_hashable(default_srdf: SrdfModel) -> None:
    """Results are frozen dataclasses; group states hash without their value dict."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        default_srdf.name = 'other'  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        default_srdf.groups[0].name = 'other'  # type: ignore[misc]
    assert len({default_srdf, default_srdf}) == 1
    assert hash(default_srdf.group_states[0]) == hash(
        SrdfGroupState('home', 'arm', {'anything': (1.0,)}))


def test_unknown_group_lookup_suggests_names(default_srdf: SrdfModel) -> None:
    """SrdfModel.group raises UnknownNameError (a KeyError) with close matches."""
    with pytest.raises(UnknownNameError, match=r"unknown group name 'gripers'.*'gripper'"):
        default_srdf.group('gripers')
    with pytest.raises(KeyError):
        default_srdf.group('nope')


# --------------------------------------------------------------------------- example-robot-data


def _count(root: etree._Element, tag: str) -> int:
    return len(root.findall(tag))


@pytest.mark.parametrize('robot', ['panda', 'talos', 'pr2'])
def test_example_robot_srdf_counts_match_lxml(robot: str) -> None:
    """Every element is loaded: counts and per-group contents equal a plain lxml count."""
    _require_corpus()
    path = robot_corpus.test_robot(robot).srdf_path
    assert path is not None
    srdf = read_srdf_file(path)
    root = _xml(path)
    assert srdf.name == root.get('name')
    assert len(srdf.groups) == _count(root, 'group')
    assert len(srdf.group_states) == _count(root, 'group_state')
    assert len(srdf.virtual_joints) == _count(root, 'virtual_joint')
    assert len(srdf.passive_joints) == _count(root, 'passive_joint')
    assert len(srdf.end_effectors) == _count(root, 'end_effector')
    assert len(srdf.disabled_collisions) == _count(root, 'disable_collisions')
    for element, group in zip(root.findall('group'), srdf.groups, strict=True):
        assert group.name == element.get('name')
        assert len(group.joints) == _count(element, 'joint')
        assert len(group.links) == _count(element, 'link')
        assert len(group.chains) == _count(element, 'chain')
        assert len(group.subgroups) == _count(element, 'group')
    for element, state in zip(root.findall('group_state'), srdf.group_states, strict=True):
        assert len(state.values) == _count(element, 'joint')
        for joint in element.findall('joint'):
            expected = tuple(float(v) for v in joint.get('value').split())
            assert state.values[joint.get('name')] == expected
    reasons = Counter(e.get('reason', '') for e in root.findall('disable_collisions'))
    assert Counter(p.reason for p in srdf.disabled_collisions) == reasons


def test_panda_srdf_contents() -> None:
    """Panda: arm/hand/arm_and_hand, the 'default' state over 8 joints, one end effector."""
    _require_corpus()
    path = robot_corpus.test_robot('panda').srdf_path
    assert path is not None
    srdf = read_srdf_file(path)
    assert srdf.group('arm').joints == tuple(f'panda_joint{i}' for i in range(1, 8))
    assert srdf.group('arm_and_hand').subgroups == ('arm', 'hand')
    (state,) = srdf.group_states
    assert (state.name, state.group, len(state.values)) == ('default', 'arm_and_hand', 8)
    assert state.values['panda_joint4'] == (-2.35619,)
    assert srdf.end_effectors == (SrdfEndEffector('end_effector', 'panda_hand_tcp', 'arm'),)
    links, joints = _urdf_names(robot_corpus.test_robot('panda').urdf_path)
    assert validate_srdf_against(srdf, links, joints) == []


def test_talos_srdf_multi_dof_state_and_ignored_extensions(
        caplog: pytest.LogCaptureFixture) -> None:
    """Talos: the free-flyer root_joint has 7 values; Pinocchio/HPP extensions become notes."""
    _require_corpus()
    path = robot_corpus.test_robot('talos').srdf_path
    assert path is not None
    with caplog.at_level(logging.DEBUG, logger='robot_state_core.io.srdf'):
        srdf = read_srdf_file(path)
    (state,) = srdf.group_states
    assert state.values['root_joint'] == (0.0, 0.0, 1.01927, 0.0, 0.0, 0.0, 1.0)
    assert len(srdf.passive_joints) == 12
    assert srdf.group('all').subgroups == ('l_arm', 'r_arm', 'l_leg', 'r_leg', 'head', 'torso')
    ignored = Counter(note.split('<')[1].split('>')[0] for note in srdf.notes)
    assert ignored == {'rotor_params': 1, 'specificities': 1, 'gripper': 2}
    assert all(str(path) in note and 'line ' in note for note in srdf.notes)
    records = [r for r in caplog.records if r.name == 'robot_state_core.io.srdf']
    # Every note at DEBUG; one INFO line for the kind (issue 17).
    assert [r.getMessage() for r in records if r.levelno == logging.DEBUG] == list(srdf.notes)
    assert [r.getMessage() for r in records if r.levelno > logging.DEBUG] == [
        f'{path}: skipped 4 SRDF elements this package does not use: <rotor_params>, '
        '<specificities>, <gripper>']
    # root_joint is the free flyer Pinocchio adds; the URDF does not define it.
    links, joints = _urdf_names(robot_corpus.test_robot('talos').urdf_path)
    problems = validate_srdf_against(srdf, links, joints)
    assert len(problems) == 1 and "'root_joint'" in problems[0]
    assert validate_srdf_against(srdf, links, [*joints, 'root_joint']) == []


def test_pr2_srdf_planar_virtual_joint() -> None:
    """PR2: a planar virtual joint that is also passive; names match the PR2 URDF."""
    _require_corpus()
    robot = robot_corpus.test_robot('pr2')
    assert robot.srdf_path is not None
    srdf = read_srdf_file(robot.srdf_path)
    assert srdf.virtual_joints == (
        SrdfVirtualJoint('world_joint', 'planar', 'odom_combined', 'base_footprint'),)
    assert srdf.passive_joints == ('world_joint',)
    assert srdf.group('base').joints == ('world_joint',)  # a virtual joint counts as a joint
    assert srdf.group('left_arm').chains == (('torso_lift_link', 'l_wrist_roll_link'),)
    links, joints = _urdf_names(robot.urdf_path)
    assert 'world_joint' not in joints
    assert validate_srdf_against(srdf, links, joints) == []


#: example-robot-data SRDFs (relative to robots/) that our strict rules reject, and why.
#: Pinocchio reads only group_state joint values from these, so they never noticed.
_REJECTED_CORPUS_SRDFS = {
    'borinot_description/srdf/borinot_flying_arm_2.srdf': "missing the required attribute 'group'",
    'hextilt_description/srdf/hextilt_flying_arm_5.srdf': "missing the required attribute 'group'",
    'kinova_description/srdf/kinova.srdf': "missing the required attribute 'group'",
    'z1_description/srdf/z1.srdf': "missing the required attribute 'group'",
    'hyq_description/srdf/hyq.srdf': "includes unknown subgroup 'lf'",
    'solo_description/srdf/solo.srdf': "includes unknown subgroup 'lf'",
    'simple_humanoid_description/srdf/simple_humanoid.srdf': "unknown group 'all'",
    'simple_humanoid_description/srdf/simple_humanoid_classical.srdf': "unknown group 'all'",
}


def test_every_example_robot_data_srdf_loads_or_fails_typed() -> None:
    """The whole corpus loads (srdfdom's leniency); strict mode rejects the known-invalid files.

    By default the invalid elements of those files are dropped with a warning naming the file
    and the problem, as srdfdom does; the other files load without any warning.
    """
    _require_corpus()
    robots = robot_corpus.example_robot_data_share() / 'robots'
    paths = sorted(robots.glob('*/srdf/*.srdf'))
    assert len(paths) >= 30
    rejected: dict[str, str] = {}
    warned: dict[str, tuple[str, ...]] = {}
    for path in paths:
        name = path.relative_to(robots).as_posix()
        srdf = read_srdf_file(path)
        if srdf.warnings:
            warned[name] = srdf.warnings
        try:
            read_srdf_file(path, strict=True)
        except SrdfLoadError as exc:
            rejected[name] = str(exc)
    assert set(rejected) == set(_REJECTED_CORPUS_SRDFS) == set(warned)
    for name, fragment in _REJECTED_CORPUS_SRDFS.items():
        assert fragment in rejected[name] and name in rejected[name]
        assert any(fragment in w and name in w for w in warned[name])


# --------------------------------------------------------------------------- features


def test_multi_value_group_state() -> None:
    """A multi-DOF joint carries several whitespace-separated values, in variable order."""
    srdf = parse_srdf(_srdf('''
        <group name="base"><joint name="odom"/></group>
        <virtual_joint name="odom" type="planar" parent_frame="map" child_link="base_link"/>
        <group_state name="parked" group="base">
          <joint name="odom" value=" 1.5  -2e-1
                                    3.14159 "/>
        </group_state>
        <group_state name="origin" group="base"><joint name="odom" value="0 0 0"/></group_state>
    '''))
    assert srdf.group_states[0].values == {'odom': (1.5, -0.2, 3.14159)}
    assert srdf.group_states[1].values == {'odom': (0.0, 0.0, 0.0)}


def test_group_state_names_are_unique_per_group_only() -> None:
    """Two groups may both have a state called 'home'."""
    srdf = parse_srdf(_srdf('''
        <group name="a"><joint name="j1"/></group>
        <group name="b"><joint name="j2"/></group>
        <group_state name="home" group="a"><joint name="j1" value="0"/></group_state>
        <group_state name="home" group="b"><joint name="j2" value="1"/></group_state>
    '''))
    assert [(s.group, s.name) for s in srdf.group_states] == [('a', 'home'), ('b', 'home')]


@pytest.mark.parametrize('spelling', ['fixed', 'planar', 'floating', 'rpy_floating', 'Floating',
                                      ' RPY_FLOATING '])
def test_virtual_joint_types(spelling: str) -> None:
    """Every virtual joint type loads (rpy_floating is our extension); stored lower-case."""
    srdf = parse_srdf(_srdf(f'''
        <virtual_joint name="world_joint" type="{spelling}" parent_frame="world"
                       child_link="base_link"/>
    '''))
    (vj,) = srdf.virtual_joints
    assert vj == SrdfVirtualJoint('world_joint', spelling.strip().lower(), 'world', 'base_link')
    assert vj.type in VIRTUAL_JOINT_TYPES


def test_rpy_floating_state_has_six_values() -> None:
    """An rpy_floating virtual joint's named state lists [roll, pitch, yaw, x, y, z]."""
    srdf = parse_srdf(_srdf('''
        <virtual_joint name="free" type="rpy_floating" parent_frame="world" child_link="body"/>
        <group name="g"><joint name="free"/></group>
        <group_state name="s" group="g"><joint name="free" value="0.1 0.2 0.3 1 2 3"/>
        </group_state>
    '''))
    assert srdf.group_states[0].values['free'] == (0.1, 0.2, 0.3, 1.0, 2.0, 3.0)


def test_optional_attributes_and_order_independent_subgroups() -> None:
    """The reason and parent_group are optional; a subgroup may be defined after its user."""
    srdf = parse_srdf(_srdf('''
        <group name="all"><group name="arm"/></group>
        <group name="arm"><chain base_link="b" tip_link="t"/></group>
        <end_effector name="eef" parent_link="t" group="arm"/>
        <disable_collisions link1="b" link2="t"/>
    '''))
    assert srdf.group('all').subgroups == ('arm',)
    assert srdf.end_effectors[0].parent_group is None
    assert srdf.disabled_collisions == (SrdfDisabledCollision('b', 't', ''),)


def test_ignored_elements_become_notes_and_logs(caplog: pytest.LogCaptureFixture,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    """Known-but-unused elements log INFO, semantic losses and unknown ones WARNING; no output."""
    with caplog.at_level(logging.DEBUG, logger='robot_state_core.io.srdf'):
        srdf = parse_srdf(_srdf('''
            <group name="arm"><joint name="j"/><frobnicate/></group>
            <link_sphere_approximation link="l"><sphere center="0 0 0" radius="1"/>
            </link_sphere_approximation>
            <joint_property joint_name="j" property_name="motion_model" value="holonomic"/>
            <enable_collisions link1="a" link2="b"/>
            <disable_default_collisions link="a"/>
            <foo_bar/>
        '''), source='notes.srdf')
    assert len(srdf.notes) == 5  # joint_property is parsed (MoveIt uses it), not a note
    assert srdf.joint_properties == (SrdfJointProperty('j', 'motion_model', 'holonomic'),)
    assert srdf.group('arm').joints == ('j',)
    # One line per kind (issue 17): the losses at WARNING, the harmless skips at INFO; every
    # note at DEBUG.
    summary = {r.levelno: r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG}
    assert summary == {
        logging.WARNING: 'notes.srdf: ignored 4 SRDF elements (unknown, or changing collision '
                         'semantics): <frobnicate>, <enable_collisions>, '
                         '<disable_default_collisions>, <foo_bar>',
        logging.INFO: 'notes.srdf: skipped 1 SRDF element this package does not use: '
                      '<link_sphere_approximation>'}
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG] \
        == list(srdf.notes)
    assert srdf.notes[0].startswith('notes.srdf: line 2: <frobnicate> ignored: unknown SRDF '
                                    "element in <group name='arm'>")
    out, err = capfd.readouterr()
    assert (out, err) == ('', '')


# --------------------------------------------------------------------------- errors


_ERROR_CASES: list[tuple[str, str, str, int]] = [
    # (id, SRDF body (line 2 on) or whole document, message fragment, line)
    ('root-not-robot', '<sdf version="1.7">\n  <model name="m"/>\n</sdf>',
     'root element is <sdf>, expected <robot>', 1),
    ('robot-without-name', '<robot>\n</robot>', "<robot> is missing the required attribute 'name'",
     1),
    ('group-without-name', '<group>\n  <joint name="j"/>\n</group>',
     "<group> is missing the required attribute 'name'", 2),
    ('group-joint-without-name', '<group name="arm">\n  <joint/>\n</group>',
     "<joint> is missing the required attribute 'name' (in <joint> of <group name='arm'>", 3),
    ('group-link-without-name', '<group name="arm">\n  <link name=""/>\n</group>',
     "<link> is missing the required attribute 'name'", 3),
    ('chain-without-base', '<group name="arm">\n  <chain tip_link="tool0"/>\n</group>',
     "<chain> is missing the required attribute 'base_link' (in <chain> of <group name='arm'>",
     3),
    ('chain-without-tip', '<group name="arm">\n  <chain base_link="base"/>\n</group>',
     "<chain> is missing the required attribute 'tip_link'", 3),
    ('subgroup-without-name', '<group name="all">\n  <group/>\n</group>',
     "<group> is missing the required attribute 'name' (in <group> of <group name='all'>", 3),
    ('duplicate-group', '<group name="arm"/>\n<group name="hand"/>\n<group name="arm"/>',
     "duplicate group name 'arm' (first defined on line 2)", 4),
    ('unknown-subgroup',
     '<group name="arm"/>\n<group name="all">\n  <group name="amr"/>\n</group>',
     "group 'all' includes unknown subgroup 'amr'; did you mean 'arm'?", 4),
    ('subgroup-cycle', '<group name="a">\n  <group name="b"/>\n</group>\n'
                       '<group name="b">\n  <group name="a"/>\n</group>',
     "subgroup cycle: 'a' -> 'b' -> 'a' (in <group name='a'>", 2),
    ('subgroup-cycle-of-three', '<group name="top"><group name="a"/></group>\n'
                                '<group name="a"><group name="b"/></group>\n'
                                '<group name="b"><group name="c"/></group>\n'
                                '<group name="c"><group name="a"/></group>',
     "subgroup cycle: 'a' -> 'b' -> 'c' -> 'a'", 3),
    ('group-includes-itself', '<group name="arm">\n  <group name="arm"/>\n</group>',
     "subgroup cycle: 'arm' -> 'arm'", 2),
    ('state-without-name', '<group name="arm"/>\n<group_state group="arm"/>',
     "<group_state> is missing the required attribute 'name'", 3),
    ('state-without-group', '<group name="arm"/>\n<group_state name="home"/>',
     "<group_state> is missing the required attribute 'group' (in <group_state name='home'>",
     3),
    ('state-of-unknown-group', '<group name="arm"/>\n<group_state name="home" group="amr"/>',
     "group_state 'home' refers to unknown group 'amr'; did you mean 'arm'?", 3),
    ('duplicate-state', '<group name="arm"/>\n<group_state name="home" group="arm"/>\n'
                        '<group_state name="home" group="arm"/>',
     "duplicate group_state 'home' for group 'arm' (first defined on line 3)", 4),
    ('state-joint-without-name',
     '<group name="arm"/>\n<group_state name="home" group="arm">\n  <joint value="1"/>\n'
     '</group_state>', "<joint> is missing the required attribute 'name'", 4),
    ('state-joint-without-value',
     '<group name="arm"/>\n<group_state name="home" group="arm">\n  <joint name="elbow"/>\n'
     '</group_state>',
     "<joint> is missing the required attribute 'value' (in <joint name='elbow'> of "
     "<group_state name='home'>", 4),
    ('state-joint-given-twice',
     '<group name="arm"/>\n<group_state name="home" group="arm">\n'
     '  <joint name="elbow" value="1"/>\n  <joint name="elbow" value="2"/>\n</group_state>',
     "joint 'elbow' is given twice in group_state 'home'", 5),
    *[(f'value-{label}',
       f'<group name="arm"/>\n<group_state name="home" group="arm">\n'
       f'  <joint name="elbow" value="{value}"/>\n</group_state>',
       f'joint value {token!r} is {what}', 4)
      for label, value, token, what in [
          ('text', 'straight', 'straight', 'not a number'),
          ('with-unit', '0.5rad', '0.5rad', 'not a number'),
          ('trailing-garbage', '1.0abc', '1.0abc', 'not a number'),
          ('comma-separated', '0.1,0.2', '0.1,0.2', 'not a number'),
          ('digit-separator', '1_000', '1_000', 'not a number'),
          ('second-of-three', '0 x 0', 'x', 'not a number'),
          ('nan', 'nan', 'nan', 'not finite'),
          ('minus-inf', '0 -inf 0', '-inf', 'not finite'),
          ('infinity', 'Infinity', 'Infinity', 'not finite'),
          ('overflow', '1e999', '1e999', 'not finite'),
      ]],
    ('value-blank', '<group name="arm"/>\n<group_state name="home" group="arm">\n'
                    '  <joint name="elbow" value="  "/>\n</group_state>',
     "<joint> is missing the required attribute 'value'", 4),
    *[(f'virtual-joint-without-{attribute}',
       '<virtual_joint ' + ' '.join(f'{a}="{v}"' for a, v in
                                    [('name', 'w'), ('type', 'fixed'), ('parent_frame', 'world'),
                                     ('child_link', 'base')] if a != attribute) + '/>',
       f'<virtual_joint> is missing the required attribute {attribute!r}', 2)
      for attribute in ('name', 'type', 'parent_frame', 'child_link')],
    ('virtual-joint-unknown-type',
     '<virtual_joint name="w" type="ball" parent_frame="world" child_link="base"/>',
     "unknown virtual joint type 'ball'; expected one of fixed, floating, planar, rpy_floating "
     "(in <virtual_joint name='w'>", 2),
    ('virtual-joint-prismatic',
     '<virtual_joint name="rail" type="prismatic" parent_frame="world" child_link="base"/>',
     "unknown virtual joint type 'prismatic'", 2),
    ('duplicate-virtual-joint',
     '<virtual_joint name="w" type="fixed" parent_frame="world" child_link="a"/>\n'
     '<virtual_joint name="w" type="floating" parent_frame="world" child_link="b"/>',
     "duplicate virtual_joint name 'w'", 3),
    ('disable-collisions-without-link1', '<disable_collisions link2="b" reason="Never"/>',
     "<disable_collisions> is missing the required attribute 'link1'", 2),
    ('disable-collisions-without-link2', '<disable_collisions link1="a" reason="Never"/>',
     "<disable_collisions> is missing the required attribute 'link2'", 2),
    ('passive-joint-without-name', '<passive_joint/>',
     "<passive_joint> is missing the required attribute 'name'", 2),
    ('end-effector-without-parent-link', '<group name="hand"/>\n'
                                         '<end_effector name="eef" group="hand"/>',
     "<end_effector> is missing the required attribute 'parent_link'", 3),
    ('end-effector-unknown-group', '<group name="hand"/>\n'
                                   '<end_effector name="eef" parent_link="tool0" group="hnd"/>',
     "end_effector 'eef' refers to unknown group 'hnd'; did you mean 'hand'?", 3),
    ('end-effector-unknown-parent-group',
     '<group name="hand"/>\n'
     '<end_effector name="eef" parent_link="tool0" group="hand" parent_group="arm"/>',
     "end_effector 'eef' refers to unknown parent_group 'arm'", 3),
    ('duplicate-end-effector',
     '<group name="hand"/>\n<end_effector name="eef" parent_link="t" group="hand"/>\n'
     '<end_effector name="eef" parent_link="t" group="hand"/>',
     "duplicate end_effector name 'eef'", 4),
]


@pytest.mark.parametrize(('body', 'fragment', 'line'), [c[1:] for c in _ERROR_CASES],
                         ids=[c[0] for c in _ERROR_CASES])
def test_invalid_srdf_raises_srdf_load_error(body: str, fragment: str, line: int,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    """Each malformed SRDF raises SrdfLoadError naming the source, the element and its line."""
    document = body if body.startswith(('<robot', '<sdf')) else _srdf(body)
    with pytest.raises(SrdfLoadError) as info:
        parse_srdf(document, source='bad.srdf', strict=True)
    message = str(info.value)
    assert message.startswith('bad.srdf: ')
    assert fragment in message
    assert f'line {line})' in message
    assert capfd.readouterr() == ('', '')


#: Strict-only errors: srdfdom refuses the document, or keeps the element silently (an unknown
#: parent_group is resolved, with MoveIt's warning, when a RobotModel is compiled).
_NOT_LENIENT = ('root-not-robot', 'end-effector-unknown-parent-group')


@pytest.mark.parametrize(('body', 'fragment', 'line'),
                         [c[1:] for c in _ERROR_CASES if c[0] not in _NOT_LENIENT],
                         ids=[c[0] for c in _ERROR_CASES if c[0] not in _NOT_LENIENT])
def test_invalid_srdf_elements_are_dropped_with_a_warning(
        body: str, fragment: str, line: int, caplog: pytest.LogCaptureFixture,
        capfd: pytest.CaptureFixture[str]) -> None:
    """By default (srdfdom) the same problems are warnings naming source, element and line."""
    document = body if body.startswith('<robot') else _srdf(body)
    with caplog.at_level(logging.DEBUG, logger='robot_state_core.io.srdf'):
        srdf = parse_srdf(document, source='bad.srdf')
    assert [w for w in srdf.warnings if fragment in w and f'line {line})' in w]
    assert all(w.startswith('bad.srdf: ') for w in srdf.warnings)
    # Each warning at DEBUG, one summary line per kind at WARNING (issue 17).
    assert [r.getMessage() for r in caplog.records
            if r.levelno == logging.DEBUG and r.getMessage() in srdf.warnings] \
        == list(srdf.warnings)
    summaries = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(summaries) == len({m.kind for m in srdf.messages}) >= 1
    assert all(s.startswith('bad.srdf: ') and s not in srdf.warnings for s in summaries)
    assert capfd.readouterr() == ('', '')


def test_root_not_robot_still_raises_by_default() -> None:
    """A document without a <robot> root is refused (srdfdom too): no model at all."""
    with pytest.raises(SrdfLoadError, match='root element is <sdf>'):
        parse_srdf('<sdf version="1.7"/>', source='bad.srdf')


def test_lenient_parse_keeps_what_srdfdom_keeps() -> None:
    """Which element survives each problem (srdfdom model.cpp, MoveIt addDefaultState)."""
    srdf = parse_srdf(_srdf('''
        <group name="arm"><joint name="j1"/><joint/><chain base_link="b"/></group>
        <group name="arm"><joint name="other"/></group>
        <group name="bad"><group name="nope"/></group>
        <group name="uses_bad"><group name="bad"/></group>
        <group name="c1"><group name="c2"/></group>
        <group name="c2"><group name="c1"/></group>
        <group name="ok"><group name="arm"/></group>
        <group_state name="home" group="arm"><joint name="j1" value="1"/></group_state>
        <group_state name="home" group="arm"><joint name="j1" value="2"/>
          <joint name="j2" value="x"/><joint name="j3" value="3"/><joint name="j3" value="4"/>
        </group_state>
        <group_state name="s" group="bad"><joint name="j1" value="1"/></group_state>
        <virtual_joint name="vj" type="ball" parent_frame="odom" child_link="base"/>
        <virtual_joint name="vj" type="planar" parent_frame="odom" child_link="base"/>
        <end_effector name="e" parent_link="t" group="uses_bad"/>
        <end_effector name="e2" parent_link="t" group="arm" parent_group="nope"/>
        <passive_joint/>
        <disable_collisions link1="a"/>
    '''))
    assert [g.name for g in srdf.groups] == ['arm', 'ok']
    assert srdf.group('arm').joints == ('j1',) and srdf.group('arm').chains == ()
    assert [(s.name, s.values) for s in srdf.group_states] == [('home', {'j1': (2.0,)})]
    assert srdf.virtual_joints == (SrdfVirtualJoint('vj', 'fixed', 'odom', 'base'),)
    assert [e.name for e in srdf.end_effectors] == ['e2']
    assert srdf.end_effectors[0].parent_group == 'nope'  # MoveIt resolves it when compiling
    assert srdf.passive_joints == () and srdf.disabled_collisions == ()
    assert len(srdf.warnings) == 16


@pytest.mark.parametrize('closed', [False, True], ids=['chain', 'cycle'])
def test_deeply_nested_subgroups(closed: bool) -> None:
    """5000 nested subgroups load (no recursion limit); closing the chain is a cycle."""
    depth = 5000
    body = '\n'.join(f'<group name="g{i}"><group name="g{i + 1}"/></group>'
                     for i in range(depth))
    body += f'\n<group name="g{depth}">' + ('<group name="g0"/>' if closed else '') + '</group>'
    if not closed:
        assert len(parse_srdf(_srdf(body)).groups) == depth + 1
        return
    with pytest.raises(SrdfLoadError, match=r"subgroup cycle: 'g0' -> 'g1' -> .* -> 'g0' "
                                            r"\(in <group name='g0'>, line 2\)"):
        parse_srdf(_srdf(body), strict=True)
    srdf = parse_srdf(_srdf(body))  # srdfdom: every group of the cycle is dropped
    assert srdf.groups == () and len(srdf.warnings) == depth + 1


def test_error_location_is_the_offending_element_in_a_real_file(tmp_path: Path) -> None:
    """read_srdf_file reports the file path and the line of a bad value in a long file."""
    text = default_robot_srdf_path().read_text(encoding='utf-8')
    bad = text.replace('name="elbow_joint" value="1.6"', 'name="elbow_joint" value="1.6.2"')
    assert bad != text
    path = tmp_path / 'robot.srdf'
    path.write_text(bad, encoding='utf-8')
    line = next(i for i, row in enumerate(bad.splitlines(), 1) if '1.6.2' in row)
    with pytest.raises(SrdfLoadError) as info:
        read_srdf_file(path, strict=True)
    assert str(path) in str(info.value)
    assert (f"joint value '1.6.2' is not a number (in <joint name='elbow_joint'> of "
            f"<group_state name='ready'>, line {line})") in str(info.value)


def test_unreadable_file_raises_robot_description_error(tmp_path: Path) -> None:
    """A missing file is a RobotDescriptionError naming the path, not an OSError."""
    missing = tmp_path / 'no_such.srdf'
    with pytest.raises(RobotDescriptionError, match=r'no_such\.srdf') as info:
        read_srdf_file(missing)
    assert not isinstance(info.value, SrdfLoadError)
    with pytest.raises(RobotDescriptionError, match='cannot read SRDF'):
        read_srdf_file(tmp_path)  # a directory


@pytest.mark.parametrize(('document', 'fragment'), [
    ('', 'empty'),
    ('   \n', 'empty'),
    ('<robot name="r"><group name="a"></robot>', 'not well-formed'),
    ('group name=arm', 'not well-formed'),
])
def test_empty_or_malformed_xml(document: str, fragment: str) -> None:
    """Empty and ill-formed documents raise RobotDescriptionError, never lxml's exceptions."""
    with pytest.raises(RobotDescriptionError, match=fragment):
        parse_srdf(document, source='x.srdf')


# --------------------------------------------------------------------------- hardening


_BILLION_LAUGHS = '''<?xml version="1.0"?>
<!DOCTYPE robot [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<robot name="&lol4;"/>
'''


@pytest.mark.parametrize('document', [
    '<!DOCTYPE robot>\n<robot name="r"/>',
    '<!DOCTYPE robot [<!ELEMENT robot ANY>]>\n<robot name="r"/>',
    _BILLION_LAUGHS,
    _BILLION_LAUGHS.encode('utf-8'),
    _BILLION_LAUGHS.encode('utf-16'),  # a byte scan alone would miss the declarations
    _BILLION_LAUGHS.split('?>', 1)[1].lstrip().encode('utf-16-be'),  # no BOM
], ids=['doctype', 'element-declaration', 'billion-laughs', 'billion-laughs-bytes',
        'billion-laughs-utf16', 'billion-laughs-utf16be-no-bom'])
def test_dtd_and_entities_are_refused(document: str | bytes) -> None:
    """Any DTD is refused with XmlSecurityError, whatever the encoding."""
    with pytest.raises(XmlSecurityError, match='DOCTYPE') as info:
        parse_srdf(document, source='evil.srdf')
    assert 'evil.srdf' in str(info.value)


def test_external_entity_is_never_read(tmp_path: Path) -> None:
    """XXE: the referenced file's content never appears anywhere; XmlSecurityError is raised."""
    secret = tmp_path / 'secret.txt'
    secret.write_text('TOP-SECRET-3141', encoding='utf-8')
    document = (f'<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY x SYSTEM "{secret.as_uri()}">]>'
                '\n<robot name="r"><group name="&x;"/></robot>\n')
    with pytest.raises(XmlSecurityError) as info:
        parse_srdf(document)
    assert 'TOP-SECRET' not in str(info.value)
    assert 'TOP-SECRET' not in repr(info.value.__cause__)


# --------------------------------------------------------------------------- URDF cross-check


_MISMATCHED = _srdf('''
    <virtual_joint name="odom" type="planar" parent_frame="map" child_link="base_lnk"/>
    <group name="arm">
      <joint name="odom"/>
      <joint name="shoulder"/>
      <joint name="elbw"/>
      <link name="hand"/>
      <chain base_link="base_link" tip_link="tool1"/>
    </group>
    <group_state name="home" group="arm">
      <joint name="shoulder" value="0"/>
      <joint name="wrist" value="0"/>
    </group_state>
    <passive_joint name="caster"/>
    <end_effector name="eef" parent_link="gripper" group="arm"/>
    <disable_collisions link1="base_link" link2="hnd" reason="Adjacent"/>
''', name='mini')
_LINKS = ['base_link', 'upper_arm', 'hand', 'tool0']
_JOINTS = ['shoulder', 'elbow']


def test_validate_srdf_against_lists_every_unknown_name() -> None:
    """Unknown links/joints everywhere are listed in document order, with close matches."""
    srdf = parse_srdf(_MISMATCHED, source='mini.srdf')
    problems = validate_srdf_against(srdf, _LINKS, _JOINTS)
    assert problems == [
        "virtual_joint 'odom' (child_link): unknown link 'base_lnk'; did you mean 'base_link'?",
        "group 'arm': unknown joint 'elbw'; did you mean 'elbow'?",
        "group 'arm' (chain tip_link): unknown link 'tool1'; did you mean 'tool0'?",
        "group_state 'home' of group 'arm': unknown joint 'wrist'",
        "passive_joint: unknown joint 'caster'",
        "end_effector 'eef' (parent_link): unknown link 'gripper'",
        "disable_collisions 'base_link'/'hnd': unknown link 'hnd'; did you mean 'hand'?",
    ]


def test_virtual_joint_names_count_as_joints() -> None:
    """'odom' is not a URDF joint but the SRDF defines it as a virtual joint: no problem."""
    srdf = parse_srdf(_MISMATCHED)
    problems = validate_srdf_against(srdf, _LINKS, _JOINTS)
    assert not any("'odom'" in p and 'unknown joint' in p for p in problems)


def test_validate_accepts_any_collection() -> None:
    """Names may come as sets, tuples, dict keys or generators' lists."""
    srdf = parse_srdf(_MISMATCHED)
    expected = validate_srdf_against(srdf, _LINKS, _JOINTS)
    assert validate_srdf_against(srdf, set(_LINKS), tuple(_JOINTS)) == expected
    assert validate_srdf_against(srdf, dict.fromkeys(_LINKS), frozenset(_JOINTS)) == expected


def test_check_srdf_against_raises_with_every_problem() -> None:
    """The strict wrapper raises one SrdfLoadError naming the source and listing all problems."""
    srdf = parse_srdf(_MISMATCHED, source='mini.srdf')
    problems = validate_srdf_against(srdf, _LINKS, _JOINTS)
    with pytest.raises(SrdfLoadError) as info:
        check_srdf_against(srdf, _LINKS, _JOINTS)
    message = str(info.value)
    assert message.startswith("mini.srdf: SRDF of robot 'mini' does not match the URDF "
                              '(7 problem(s)):')
    assert all(f'\n  - {p}' in message for p in problems)


def test_default_srdf_against_another_robot_fails(default_srdf: SrdfModel) -> None:
    """Checking the default SRDF against Panda's URDF names reports its arm joints."""
    _require_corpus()
    links, joints = _urdf_names(robot_corpus.test_robot('panda').urdf_path)
    problems = validate_srdf_against(default_srdf, links, joints)
    assert any("unknown joint 'elbow_joint'" in p for p in problems)
    assert any("unknown link 'tool0'" in p for p in problems)
    with pytest.raises(SrdfLoadError, match=re.escape(str(default_robot_srdf_path()))):
        check_srdf_against(default_srdf, links, joints)
