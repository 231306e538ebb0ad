"""One PlanningScene shared by many threads: every const query answers as it does serially.

MoveIt's const ``PlanningScene::checkCollision`` may be called from many threads at once
(``moveit_core/planning_scene/test/test_multi_threaded.cpp``, ported below with its numbers:
2 threads x 1000 checks of one random state each). Ours keeps the compiled pair tables under
the scene's lock and gives each thread its own posed fcl objects. The mixed test runs 4 threads
x 1000 queries of five kinds (verdict, contacts, group check, distance, validity) on states
with attached bodies, with a short GIL switch interval so the threads interleave inside
queries; every answer must equal the serial one exactly (same verdict, same contact pairs and
depths, bitwise the same distance).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import robot_corpus
import thread_testing

from robot_state_core.geometry.shapes import Box, Sphere
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    CollisionRequest,
    PlanningScene,
)
from robot_state_core.state.robot_state import RobotState

SEED = 20261203


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    robot = robot_corpus.test_robot('panda')
    return RobotModel.from_urdf_file(robot.urdf_path, robot.srdf_path,
                                     package_map=robot.package_map)


def test_moveit_multi_threaded_check_collision(panda: RobotModel,
                                               switch_interval: None) -> None:
    """TEST_P(CollisionDetectorTests, Threaded): THREADS = 2, TRIALS = 1000, Panda + SRDF.

    Each thread checks its own random state 1000 times on the shared scene; every answer equals
    the one computed before the threads started.
    """
    scene = PlanningScene(panda)
    rng = np.random.default_rng(SEED)
    states, expected = [], []
    while len(states) < 2 or len(set(expected)) < 2:  # one colliding, one free state
        state = RobotState(panda)
        state.set_to_random_positions(rng=rng)
        verdict = scene.check_collision(state).collision
        if len(states) < 2 and (not states or verdict != expected[0]):
            states.append(state)
            expected.append(verdict)
    answers: list[list[bool]] = [[], []]

    def work(k: int) -> None:
        for _ in range(1000):
            answers[k].append(scene.check_collision(states[k]).collision)

    thread_testing.run_threads(work, 2)
    for k in range(2):
        assert answers[k] == [expected[k]] * 1000


def _answer(scene: PlanningScene, kind: int, state: RobotState) -> Any:
    if kind == 0:
        return scene.check_collision(state).collision
    if kind == 1:
        result = scene.check_collision(state, CollisionRequest(contacts=True, max_contacts=50))
        return tuple(sorted((c.body_name_1, c.body_name_2, round(c.depth, 12))
                            for c in result.contacts))
    if kind == 2:
        return scene.check_collision(state, CollisionRequest(group_name='hand')).collision
    if kind == 3:
        return scene.distance_to_collision(state)
    validity = scene.is_state_valid(state, 'arm')
    return validity.valid, validity.message


def test_four_threads_mixed_queries_equal_serial(panda: RobotModel,
                                                 switch_interval: None) -> None:
    """4 threads x 1000 mixed queries on one scene: answers identical to the serial ones.

    The scene has world boxes; of the 40 states two carry attached bodies. Every answer equals
    the serial answer of the same (state, query) exactly.
    """
    scene = PlanningScene(panda)
    for k, (x, y, z) in enumerate([(0.5, 0.0, 0.4), (0.0, 0.5, 0.6), (-0.4, -0.3, 0.3),
                                   (0.3, -0.4, 0.8)]):
        X = np.eye(4)
        X[:3, 3] = (x, y, z)
        scene.apply_world_object(CollisionObjectOperation.ADD, f'box{k}', X,
                                 [(Box(0.3, 0.3, 0.3), np.eye(4))])
    rng = np.random.default_rng(SEED + 1)
    states = []
    for k in range(40):
        state = RobotState(panda)
        state.set_to_random_positions(rng=rng)
        if k % 20 == 0:  # two states carry a ball in the hand: other layouts of the scene
            X = np.eye(4)
            X[2, 3] = 0.1
            state.attach_body(f'ball{k}', 'panda_hand', [Sphere(0.06)], pose=X,
                              touch_links=['panda_leftfinger', 'panda_rightfinger'])
        states.append(state)
    serial = {(k, s): _answer(scene, k, states[s]) for k in range(5) for s in range(40)}
    verdicts = [v for (k, _), v in serial.items() if k == 0]
    assert any(verdicts) and not all(verdicts)  # both answers occur
    got: list[list[tuple[int, int, Any]]] = [[] for _ in range(4)]

    def work(t: int) -> None:
        local = np.random.default_rng(t)
        for _ in range(1000):
            k, s = int(local.integers(5)), int(local.integers(40))
            got[t].append((k, s, _answer(scene, k, states[s])))

    thread_testing.run_threads(work, 4)
    wrong = [(k, s, v, serial[(k, s)]) for answers in got for k, s, v in answers
             if v != serial[(k, s)]]
    assert sum(len(a) for a in got) == 4000
    assert not wrong, f'{len(wrong)} of 4000 answers differ from the serial ones: {wrong[:3]}'
