"""PlanningScene self-collision against coal (through pinocchio), on Panda and Talos meshes.

The oracle is independent of our code: pinocchio loads the URDF and its collision meshes (coal
BVHs), poses them with its own forward kinematics, and checks an explicit pair list built here
from pinocchio's own data: every pair of geometries on different links, minus the SRDF's
``disable_collisions`` (``pin.removeCollisionPairs``). baselines.md §3d found python-fcl and coal
identical on 99,000 mesh pair verdicts, so the expected disagreement count is zero.

Tolerances:

* Verdicts (per state and per colliding link pair) may only differ inside a band of
  :data:`VERDICT_BAND` around contact: a disagreeing pair must have a coal distance with
  ``|d| <= VERDICT_BAND``. Every disagreement is counted and reported.
* Minimum distances of collision-free states agree to :data:`DISTANCE_TOL` (both libraries
  compute exact triangle-triangle distances; the measured error is ~1e-15 m). Penetrating
  states are not compared: for overlapping meshes coal reports 0 and we report minus the
  deepest triangle contact (see ``PlanningScene.distance_to_collision``).

Random states are uniform within the joint bounds (mimic joints consistent), seeded.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
import math
import time
from typing import Any

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import CollisionRequest, PlanningScene

pin = pytest.importorskip('pinocchio')
pytest.importorskip('coal')

VERDICT_BAND = 1e-9
'''Disagreements allowed only where coal's distance is within this band around 0 [m].'''
DISTANCE_TOL = 1e-6
'''Minimum-distance agreement on collision-free states [m].'''
N_STATES = 1000
'''Random states per robot for the verdict comparison.'''
N_DISTANCE = {'panda': 40, 'talos': 8}
'''Collision-free states per robot for the distance comparison (mesh distances are slow).'''
SEED = {'panda': 11, 'talos': 12}


@dataclass
class Oracle:
    name: str
    model: RobotModel
    scene: PlanningScene
    pm: Any  # pinocchio Model
    data: Any
    gm: Any  # pinocchio GeometryModel with the pair list
    gdata: Any
    geometry_link: list[str]  # link of each pinocchio geometry
    pair_links: list[tuple[str, str]]  # sorted link pair of each collision pair
    rng: np.random.Generator

    def pin_q(self, q: np.ndarray) -> np.ndarray:
        return pinocchio_oracle.to_pinocchio_q(self.model, self.pm, q)

    def random_q(self) -> np.ndarray:
        return pinocchio_oracle.random_q(self.model, self.rng)


def link_pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


@pytest.fixture(scope='module', params=['panda', 'talos'])
def oracle(request: pytest.FixtureRequest) -> Oracle:
    name = request.param
    robot = robot_corpus.test_robot(name)
    assert robot.srdf_path is not None
    model = RobotModel.from_urdf_file(robot.urdf_path, robot.srdf_path,
                                      package_map=robot.package_map)
    pm, _ = pinocchio_oracle.load(robot.urdf_path)
    share = robot_corpus.example_robot_data_share()
    gm = pin.buildGeomFromUrdf(pm, str(robot.urdf_path), pin.GeometryType.COLLISION,
                               package_dirs=[str(share.parent), str(share)])
    links = [pm.frames[g.parentFrame].name for g in gm.geometryObjects]
    for i in range(gm.ngeoms):
        for j in range(i + 1, gm.ngeoms):
            if links[i] != links[j]:
                gm.addCollisionPair(pin.CollisionPair(i, j))
    pin.removeCollisionPairs(pm, gm, str(robot.srdf_path))
    pair_links = [link_pair(links[p.first], links[p.second]) for p in gm.collisionPairs]
    return Oracle(name, model, PlanningScene(model), pm, pm.createData(), gm,
                  pin.GeometryData(gm), links, pair_links, np.random.default_rng(SEED[name]))


def test_same_geometry_and_candidate_pairs(oracle: Oracle) -> None:
    scene = oracle.scene
    assert len(scene.geometry) == oracle.gm.ngeoms
    assert Counter(scene.geometry.link_name(k) for k in range(len(scene.geometry))) == \
        Counter(oracle.geometry_link)
    ours = Counter(link_pair(a.rsplit('/', 1)[0], b.rsplit('/', 1)[0])
                   for a, b in scene.candidate_pairs())
    assert ours == Counter(oracle.pair_links)
    assert sum(ours.values()) == {'panda': 44, 'talos': 893}[oracle.name]


def coal_pair_distance(oracle: Oracle, q_pin: np.ndarray, pair: tuple[str, str]) -> float:
    """Coal's minimum distance over the geometry pairs of one link pair."""
    pin.updateGeometryPlacements(oracle.pm, oracle.data, oracle.gm, oracle.gdata, q_pin)
    best = math.inf
    for k, links in enumerate(oracle.pair_links):
        if links == pair:
            result = pin.computeDistance(oracle.gm, oracle.gdata, k)
            best = min(best, float(result.min_distance))
    return best


def test_verdicts_match_coal(oracle: Oracle) -> None:
    scene, state = oracle.scene, oracle.scene.current_state
    request = CollisionRequest(contacts=True, max_contacts=1_000_000)
    state_disagreements = pair_disagreements = colliding = 0
    t_ours = t_coal = 0.0
    for _ in range(N_STATES):
        q = oracle.random_q()
        state.set_variable_positions(q)
        t0 = time.perf_counter()
        verdict = scene.check_collision(state).collision
        t_ours += time.perf_counter() - t0
        ours = {link_pair(*c.pair) for c in scene.check_collision(state, request).contacts}
        q_pin = oracle.pin_q(q)
        t0 = time.perf_counter()
        pin.computeCollisions(oracle.pm, oracle.data, oracle.gm, oracle.gdata, q_pin, False)
        t_coal += time.perf_counter() - t0
        theirs = {oracle.pair_links[k] for k, r in enumerate(oracle.gdata.collisionResults)
                  if r.isCollision()}
        colliding += bool(theirs)
        assert verdict == bool(ours)
        if ours == theirs:
            continue
        state_disagreements += verdict != bool(theirs)
        for pair in ours ^ theirs:
            pair_disagreements += 1
            d = coal_pair_distance(oracle, q_pin, pair)
            assert abs(d) <= VERDICT_BAND, (oracle.name, pair, d, q.tolist())
    print(f'\n{oracle.name}: {N_STATES} states, {colliding} colliding (coal); disagreements: '
          f'{state_disagreements} states, {pair_disagreements} link pairs (all within '
          f'{VERDICT_BAND} m); boolean check {t_ours / N_STATES * 1e6:.0f} us/state, '
          f'coal computeCollisions {t_coal / N_STATES * 1e6:.0f} us/state')
    assert 0 < colliding < N_STATES  # both verdicts are exercised


def test_uncull_verdicts_match_coal(oracle: Oracle) -> None:
    """``broadphase='pairs'`` (no compiled OBB cull, no deepest-first order): coal's verdicts.

    The benchmark's "ours without the cull" figure (issue 27) runs this path; it must answer
    as the shipped default does.
    """
    uncull = PlanningScene(oracle.model, broadphase='pairs')
    state = uncull.current_state
    colliding = 0
    for _ in range(200):
        q = oracle.random_q()
        state.set_variable_positions(q)
        verdict = uncull.check_collision(state).collision
        assert verdict == oracle.scene.check_collision(state).collision
        theirs = pin.computeCollisions(oracle.pm, oracle.data, oracle.gm, oracle.gdata,
                                       oracle.pin_q(q), True)
        assert verdict == bool(theirs)
        colliding += verdict
    assert 0 < colliding < 200  # both verdicts are exercised


def test_distances_match_coal(oracle: Oracle) -> None:
    scene, state = oracle.scene, oracle.scene.current_state
    worst = 0.0
    checked = 0
    while checked < N_DISTANCE[oracle.name]:
        q = oracle.random_q()
        state.set_variable_positions(q)
        if scene.check_collision(state).collision:
            continue
        q_pin = oracle.pin_q(q)
        pin.computeDistances(oracle.pm, oracle.data, oracle.gm, oracle.gdata, q_pin)
        theirs = min(float(r.min_distance) for r in oracle.gdata.distanceResults)
        ours = scene.distance_to_collision(state, self_collision=True)
        assert ours > 0.0
        assert ours == pytest.approx(theirs, abs=DISTANCE_TOL)
        assert scene.check_collision(state, CollisionRequest(distance=True)).distance == ours
        worst = max(worst, abs(ours - theirs))
        checked += 1
    print(f'\n{oracle.name}: {checked} collision-free states, worst |distance - coal| = '
          f'{worst:.2e} m')
