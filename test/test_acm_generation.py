"""ACM generation (MoveIt Setup Assistant semantics) on the Panda and the default robot.

The Panda comparison uses example-robot-data's ``panda_description`` (franka_ros' URDF and
collision meshes) and, for the second case, that file edited to moveit_resources' joint bounds
and finger meshes (see :func:`moveit_resources_like_panda`); docs/decisions.md (section "ACM
generation") explains the expected differences from moveit_resources' SRDF.
"""

from __future__ import annotations

from pathlib import Path
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip('fcl')

import robot_corpus

from robot_state_core import kinematics
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.io.srdf import parse_srdf
from robot_state_core.kinematics import bounds
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.acm_generation import (
    adjacent_link_pairs,
    ALWAYS_BATCH,
    DEFAULT_NUM_SAMPLES,
    generate_acm,
    srdf_disable_collisions,
)
from robot_state_core.scene.robot_geometry import RobotGeometry

SAMPLES = DEFAULT_NUM_SAMPLES  # the Setup Assistant's default sampling density (10 000)
SEED = 1

# The 34 <disable_collisions> of moveit/moveit_resources, panda_moveit_config/config/panda.srdf
# (the Setup Assistant's output for panda_description/urdf/panda.urdf, edited by hand: A1).
MOVEIT_RESOURCES_PANDA_SRDF = {
    ('panda_link0', 'panda_link1', 'Adjacent'),
    ('panda_link0', 'panda_link2', 'Never'),
    ('panda_link0', 'panda_link3', 'Never'),
    ('panda_link0', 'panda_link4', 'Never'),
    ('panda_link1', 'panda_link2', 'Adjacent'),
    ('panda_link1', 'panda_link3', 'Never'),
    ('panda_link1', 'panda_link4', 'Never'),
    ('panda_link2', 'panda_link3', 'Adjacent'),
    ('panda_link2', 'panda_link4', 'Never'),
    ('panda_link2', 'panda_link6', 'Never'),
    ('panda_link3', 'panda_link4', 'Adjacent'),
    ('panda_link3', 'panda_link5', 'Never'),
    ('panda_link3', 'panda_link6', 'Never'),
    ('panda_link3', 'panda_link7', 'Never'),
    ('panda_link4', 'panda_link5', 'Adjacent'),
    ('panda_link4', 'panda_link6', 'Never'),
    ('panda_link4', 'panda_link7', 'Never'),
    ('panda_link5', 'panda_link6', 'Adjacent'),
    ('panda_link6', 'panda_link7', 'Adjacent'),
    ('panda_hand', 'panda_leftfinger', 'Adjacent'),
    ('panda_hand', 'panda_rightfinger', 'Adjacent'),
    ('panda_leftfinger', 'panda_rightfinger', 'Default'),
    ('panda_hand', 'panda_link3', 'Never'),
    ('panda_hand', 'panda_link4', 'Never'),
    ('panda_hand', 'panda_link6', 'Never'),
    ('panda_hand', 'panda_link7', 'Adjacent'),
    ('panda_leftfinger', 'panda_link3', 'Never'),
    ('panda_leftfinger', 'panda_link4', 'Never'),
    ('panda_leftfinger', 'panda_link6', 'Never'),
    ('panda_leftfinger', 'panda_link7', 'Never'),
    ('panda_link3', 'panda_rightfinger', 'Never'),
    ('panda_link4', 'panda_rightfinger', 'Never'),
    ('panda_link6', 'panda_rightfinger', 'Never'),
    ('panda_link7', 'panda_rightfinger', 'Never'),
}

# In the unedited Setup Assistant output (frankaemika/franka_ros,
# panda_moveit_config/config/panda_arm_hand.srdf, 36 pairs) but removed by hand from
# moveit_resources' copy (moveit/panda_moveit_config PR #9): decisions.md A1.
SETUP_ASSISTANT_DEFAULT_PAIRS_DROPPED_UPSTREAM = {
    ('panda_hand', 'panda_link5', 'Default'),
    ('panda_link5', 'panda_link7', 'Default'),
}

# "Never" in the 2017 Setup Assistant run, but in collision in ~0.08 % of uniform samples
# with the collision meshes available here: decisions.md A2.
NEVER_UPSTREAM_SOMETIMES_HERE = ('panda_link2', 'panda_link6', 'Never')

EXPECTED_PANDA = ((MOVEIT_RESOURCES_PANDA_SRDF | SETUP_ASSISTANT_DEFAULT_PAIRS_DROPPED_UPSTREAM)
                  - {NEVER_UPSTREAM_SOMETIMES_HERE})

# Joint bounds of moveit/moveit_resources, panda_description/urdf/panda.urdf, as MoveIt reads
# them (<safety_controller> soft limits within <limit>): only panda_joint4's upper bound
# (0.0175) differs from example-robot-data's (-0.0698).
MOVEIT_RESOURCES_PANDA_BOUNDS = {
    'panda_joint1': (-2.8973, 2.8973),
    'panda_joint2': (-1.7628, 1.7628),
    'panda_joint3': (-2.8973, 2.8973),
    'panda_joint4': (-3.0718, 0.0175),
    'panda_joint5': (-2.8973, 2.8973),
    'panda_joint6': (-0.0175, 3.7525),
    'panda_joint7': (-2.8973, 2.8973),
}


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    r = robot_corpus.test_robot('panda')
    return RobotModel.from_urdf_file(r.urdf_path, package_map=r.package_map)


@pytest.fixture(scope='module')
def report(panda: RobotModel):
    return generate_acm(panda, num_samples=SAMPLES, seed=SEED)


def moveit_resources_like_panda(directory: Path) -> RobotModel:
    """example-robot-data's Panda edited to moveit_resources' bounds, finger meshes and links.

    moveit_resources' URDF differs from example-robot-data's in: joint bounds (the table
    above), the finger collision geometry (``meshes/collision/finger.stl``, the right finger
    turned by π about z, instead of four boxes each) and the extra geometry-less
    ``panda_hand_tcp`` link. Joint origins agree to 1e-11 (π/2 written as 1.57079632679).
    """
    r = robot_corpus.test_robot('panda')
    tree = ET.parse(r.urdf_path)
    root = tree.getroot()
    for joint in root.findall('joint'):
        name = joint.get('name')
        if name in MOVEIT_RESOURCES_PANDA_BOUNDS:
            lower, upper = MOVEIT_RESOURCES_PANDA_BOUNDS[name]
            for element, lo, hi in ((joint.find('limit'), 'lower', 'upper'),
                                    (joint.find('safety_controller'), 'soft_lower_limit',
                                     'soft_upper_limit')):
                assert element is not None
                element.set(lo, repr(lower))
                element.set(hi, repr(upper))
    finger = 'package://example-robot-data/robots/panda_description/meshes/collision/finger.stl'
    for name, yaw in (('panda_leftfinger', 0.0), ('panda_rightfinger', np.pi)):
        link = root.find(f"link[@name='{name}']")
        assert link is not None
        for collision in link.findall('collision'):
            link.remove(collision)
        collision = ET.SubElement(link, 'collision')
        ET.SubElement(collision, 'origin', rpy=f'0 0 {yaw!r}', xyz='0 0 0')
        ET.SubElement(ET.SubElement(collision, 'geometry'), 'mesh', filename=finger)
    for tag, name in (('link', 'panda_hand_tcp'), ('joint', 'panda_hand_tcp_joint')):
        element = root.find(f"{tag}[@name='{name}']")
        assert element is not None
        root.remove(element)
    path = directory / 'panda_moveit_resources_like.urdf'
    tree.write(path)
    return RobotModel.from_urdf_file(path, package_map=r.package_map)


def test_panda_acm_matches_the_setup_assistant(report) -> None:
    """The Setup Assistant's verdicts for the Panda, at its default 10 000 samples.

    Expected: moveit_resources' 34 pairs (reasons included), plus the two Default pairs the
    Setup Assistant wrote and moveit_resources dropped by hand (A1), minus link2-link6, which
    the collision meshes available here put in collision (A2). 40 seeds (0-39) all give this.
    """
    assert set(report.pairs) == EXPECTED_PANDA
    assert len(report.pairs) == 35
    assert report.reason_counts() == {'Adjacent': 10, 'Default': 3, 'Always': 0, 'Never': 22}
    # the Setup Assistant's phases: one 200-sample "always" batch found nothing
    assert report.always_samples == ALWAYS_BATCH
    assert report.num_samples == SAMPLES
    # link2-link6 is a rare collider here, not a never-colliding pair
    assert ('panda_link2', 'panda_link6') in report.enabled
    assert report.first_collision[('panda_link2', 'panda_link6')] < ALWAYS_BATCH + SAMPLES


def test_panda_link2_link6_collide_in_the_folded_elbow(panda: RobotModel) -> None:
    """The configuration behind A2: elbow folded to its limit, joint 3 turned (FK, fcl)."""
    geometry = RobotGeometry(panda)
    objects = FclObjects(geometry.shapes)
    pair = np.array([[geometry.geometry_indices('panda_link2')[0],
                      geometry.geometry_indices('panda_link6')[0]]])
    q = np.zeros(panda.nq)
    q[panda.variable_names.index('panda_joint3')] = 1.0
    q[panda.variable_names.index('panda_joint4')] = -3.0
    q[panda.variable_names.index('panda_joint5')] = 0.2
    objects.set_poses(geometry.world_poses(kinematics.forward_kinematics(panda, q)))
    hit = len(objects.colliding_pairs(pair))
    q[panda.variable_names.index('panda_joint4')] = -2.0  # elbow opened: far apart
    objects.set_poses(geometry.world_poses(kinematics.forward_kinematics(panda, q)))
    assert (hit, len(objects.colliding_pairs(pair))) == (1, 0)


def test_moveit_resources_like_panda_gives_the_same_verdicts(tmp_path: Path) -> None:
    """moveit_resources' bounds and finger meshes change no verdict.

    Its default joint4 is 0 (0 lies inside its bounds) instead of example-robot-data's
    mid-range -1.5708; the Default pairs do not depend on joint4.
    """
    model = moveit_resources_like_panda(tmp_path)
    j4 = model.variable_names.index('panda_joint4')
    assert model.default_positions[j4] == 0.0
    assert 'panda_hand_tcp' not in model.link_names
    result = generate_acm(model, num_samples=SAMPLES, seed=SEED)
    assert set(result.pairs) == EXPECTED_PANDA


def test_panda_adjacent_pairs_are_disabled(panda: RobotModel, report) -> None:
    """Every parent/child pair of geometry-carrying links is disabled as Adjacent."""
    adjacent = {(a, b) for a, b, r in report.pairs if r == 'Adjacent'}
    assert ('panda_link0', 'panda_link1') in adjacent
    assert ('panda_link6', 'panda_link7') in adjacent
    # link7 -> link8 (no geometry) -> hand: adjacent through the geometry-less frame
    assert ('panda_hand', 'panda_link7') in adjacent
    links = {panda.link_names[i] for i in RobotGeometry(panda).geometry_link}
    assert adjacent == adjacent_link_pairs(panda, links)


# Link tree for the connection-graph cases below (Setup Assistant computeConnectionGraph):
# world (no geometry) -> base, -> table; base -> x (no geometry) -> y (no geometry) -> tool;
# base -> arm -> finger_a, -> finger_b.
_TREE_URDF = '''<robot name="tree">
  <link name="world"/>
  {solid}
  <link name="x"/><link name="y"/>
  {joints}
</robot>'''


def _tree_model() -> RobotModel:
    box = ('<collision><geometry><box size="0.01 0.01 0.01"/></geometry></collision>')
    solid = ''.join(f'<link name="{n}">{box}</link>'
                    for n in ('base', 'table', 'tool', 'arm', 'finger_a', 'finger_b'))
    edges = [('world', 'base'), ('world', 'table'), ('base', 'x'), ('x', 'y'), ('y', 'tool'),
             ('base', 'arm'), ('arm', 'finger_a'), ('arm', 'finger_b')]
    joints = ''.join(f'<joint name="{p}_{c}" type="fixed"><parent link="{p}"/>'
                     f'<child link="{c}"/><origin xyz="{i} 0 0"/></joint>'
                     for i, (p, c) in enumerate(edges))
    return RobotModel.from_urdf_string(_TREE_URDF.format(solid=solid, joints=joints))


def test_adjacency_follows_the_setup_assistant_connection_graph() -> None:
    """Links around a group of geometry-less links are all adjacent.

    Siblings under a geometry-carrying parent are not.
    """
    model = _tree_model()
    links = {'base', 'table', 'tool', 'arm', 'finger_a', 'finger_b'}
    assert adjacent_link_pairs(model, links) == {
        ('base', 'table'),  # siblings under the geometry-less world
        ('base', 'tool'),  # through the geometry-less x and y
        ('arm', 'base'), ('arm', 'finger_a'), ('arm', 'finger_b'),
    }


# A prismatic joint slides a 2 mm cube along x next to a box spanning x in [0.005, 1.005]
# (closed form: they overlap when q > 0.004). A fixed link in between (far away) keeps the
# two from being adjacent.
_SLIDER_URDF = '''<robot name="slider">
  <link name="block"><collision><origin xyz="0.505 0 0"/>
    <geometry><box size="1 1 1"/></geometry></collision></link>
  <link name="spacer"><collision><origin xyz="0 5 0"/>
    <geometry><sphere radius="0.01"/></geometry></collision></link>
  <link name="cube"><collision><geometry><box size="0.002 0.002 0.002"/></geometry>
    </collision></link>
  <joint name="fix" type="fixed"><parent link="block"/><child link="spacer"/></joint>
  <joint name="slide" type="prismatic"><parent link="spacer"/><child link="cube"/>
    <axis xyz="1 0 0"/><limit lower="{lower}" upper="{upper}" effort="1" velocity="1"/>
  </joint>
</robot>'''


@pytest.mark.parametrize(('lower', 'upper', 'reason', 'always_samples'), [
    (-0.01, 1.0, 'Always', 2 * ALWAYS_BATCH),  # free only for q <= 0.004: 1.4 % of the range
    (-1.0, 1.0, None, ALWAYS_BATCH),  # in collision for 49.8 % of the range: stays enabled
    (0.01, 1.0, 'Default', ALWAYS_BATCH),  # default = middle 0.505: in collision
    (-1.0, 0.003, 'Never', ALWAYS_BATCH),  # never reaches 0.004
])
def test_always_phase_uses_200_sample_batches(lower: float, upper: float, reason: str | None,
                                              always_samples: int) -> None:
    """Setup Assistant phases: Default, then Always, then Never.

    Always: 200-sample batches, more than 190 of them in collision, repeated until a batch
    disables nothing (so an Always pair costs a second batch).
    """
    model = RobotModel.from_urdf_string(_SLIDER_URDF.format(lower=lower, upper=upper))
    result = generate_acm(model, num_samples=300, seed=3)
    reasons = {(a, b): r for a, b, r in result.pairs}
    assert reasons.get(('block', 'cube')) == reason
    assert reasons[('block', 'spacer')] == reasons[('cube', 'spacer')] == 'Adjacent'
    assert result.always_samples == always_samples
    assert (('block', 'cube') in result.enabled) == (reason is None)


def test_bad_arguments_are_typed_errors(panda: RobotModel) -> None:
    with pytest.raises(InvalidArgumentError, match='num_samples'):
        generate_acm(panda, num_samples=-1)
    with pytest.raises(InvalidArgumentError, match='always_fraction'):
        generate_acm(panda, num_samples=0, always_fraction=0.0)


def test_generated_never_pairs_do_not_collide_in_fresh_samples(panda: RobotModel,
                                                                report) -> None:
    """Pairs disabled as Never collide in none of an independent set of sampled states."""
    never = [(a, b) for a, b, r in report.pairs if r == 'Never']
    assert never
    geom = RobotGeometry(panda)
    objects = FclObjects(geom.shapes)
    link_of = np.asarray(geom.geometry_link)
    pairs = np.array([(i, j) for a, b in never
                      for i in np.flatnonzero(link_of == panda.link_index(a))
                      for j in np.flatnonzero(link_of == panda.link_index(b))])
    rng = np.random.default_rng(99)
    for q in bounds.random_positions(panda, rng, size=100):
        objects.set_poses(geom.world_poses(kinematics.forward_kinematics(panda, q)))
        assert len(objects.colliding_pairs(pairs)) == 0


def test_srdf_output_parses_and_matches_the_report(report) -> None:
    """The emitted <disable_collisions> lines are valid SRDF with the same pairs."""
    text = srdf_disable_collisions(report)
    srdf = parse_srdf(f'<robot name="panda">{text}</robot>')
    assert {(d.link1, d.link2, d.reason) for d in srdf.disabled_collisions} == set(report.pairs)
    counts = report.reason_counts()
    assert counts['Adjacent'] >= 7
    assert sum(counts.values()) == len(report.pairs)


def test_default_robot_generated_pairs_agree_with_its_srdf_adjacency() -> None:
    """The team-written SRDF's Adjacent pairs are all found by the generator."""
    model = RobotModel.from_urdf_file(default_robot_urdf_path())
    report = generate_acm(model, num_samples=50, seed=0)
    srdf = parse_srdf(default_robot_srdf_path().read_text())
    written = {tuple(sorted((d.link1, d.link2))) for d in srdf.disabled_collisions
               if d.reason == 'Adjacent'}
    generated = {(a, b) for a, b, r in report.pairs}
    assert written <= generated


def test_every_colliding_pair_of_a_sample_is_recorded() -> None:
    """Six overlapping spheres on a box: all 15 sphere pairs are Default (decisions.md A4).

    The Setup Assistant's default check asks for at most as many contacts as the robot has
    links (7 here) and so would list only some of the 15; we record every pair.
    """
    spheres = ''.join(
        f'<link name="s{i}"><collision><geometry><sphere radius="0.5"/></geometry></collision>'
        f'</link><joint name="j{i}" type="prismatic"><parent link="base"/>'
        f'<child link="s{i}"/><origin xyz="0 0 {2 + 0.01 * i}"/><axis xyz="0 0 1"/>'
        f'<limit lower="0" upper="0.01" effort="1" velocity="1"/></joint>' for i in range(6))
    urdf = ('<robot name="spheres"><link name="base"><collision><geometry>'
            f'<box size="0.1 0.1 0.1"/></geometry></collision></link>{spheres}</robot>')
    result = generate_acm(RobotModel.from_urdf_string(urdf), num_samples=10, seed=0)
    default = {(a, b) for a, b, r in result.pairs if r == 'Default'}
    assert default == {(f's{i}', f's{j}') for i in range(6) for j in range(i + 1, 6)}
    assert result.reason_counts() == {'Adjacent': 6, 'Default': 15, 'Always': 0, 'Never': 0}
