"""ACM generation (Setup Assistant semantics) on the Panda and the default robot."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('fcl')

import robot_corpus

from robot_state_core import bounds, kinematics
from robot_state_core.acm_generation import (
    adjacent_link_pairs,
    generate_acm,
    srdf_disable_collisions,
)
from robot_state_core.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.io.srdf import parse_srdf
from robot_state_core.robot_geometry import RobotGeometry
from robot_state_core.robot_model import RobotModel

SAMPLES = 400


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    r = robot_corpus.test_robot('panda')
    return RobotModel.from_urdf_file(r.urdf_path, package_map=r.package_map)


@pytest.fixture(scope='module')
def report(panda: RobotModel):
    return generate_acm(panda, num_samples=SAMPLES, seed=1)


def test_panda_adjacent_pairs_are_disabled(panda: RobotModel, report) -> None:
    """Every parent/child pair of geometry-carrying links is disabled as Adjacent."""
    adjacent = {(a, b) for a, b, r in report.pairs if r == 'Adjacent'}
    assert ('panda_link0', 'panda_link1') in adjacent
    assert ('panda_link6', 'panda_link7') in adjacent
    # link7 -> link8 (no geometry) -> hand: adjacent through the geometry-less frame
    assert ('panda_hand', 'panda_link7') in adjacent
    links = {panda.link_names[i] for i in RobotGeometry(panda).geometry_link}
    assert adjacent == adjacent_link_pairs(panda, links)


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
