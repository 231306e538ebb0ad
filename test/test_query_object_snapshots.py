"""A QueryObject never changes its answer (issue 26 item 2).

Drake's QueryObject is either live or baked. Ours are baked: a snapshot from
``PlanningScene.query_object(state)`` answers for ``state`` for as long as it is kept, whatever
the scene does next (the issue's case: a handle that answered "colliding" answered "free" after
``check_collision`` of another state). A snapshot over fcl objects that someone re-posed raises
StaleQueryObjectError instead of answering for poses it was not made for. The expected
verdicts are geometric facts of the set-up (a box around the tool; the robot 3 m away; two
spheres of radius 0.1 m 1 m apart: distance 0.8 m).
"""

from __future__ import annotations

import numpy as np
import pytest

from robot_state_core.errors import StaleQueryObjectError
from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.geometry.query_object import QueryObject
from robot_state_core.geometry.shapes import Box, Sphere
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.state.robot_state import RobotState

pytest.importorskip('fcl')


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


def _states(model: RobotModel) -> tuple[RobotState, RobotState]:
    a = RobotState(model)
    a.set_to_default_values()
    b = a.copy()
    b.set_variable_positions({'base_joint/x': 3.0})  # the robot drove away from the box
    return a, b


def _scene_with_box_at_tool(model: RobotModel, state: RobotState) -> PlanningScene:
    scene = PlanningScene(model)
    X = np.eye(4)
    X[:3, 3] = state.get_global_link_transform('tool0')[:3, 3]
    scene.apply_world_object(CollisionObjectOperation.ADD, 'box', X,
                             [(Box(0.1, 0.1, 0.1), np.eye(4))])
    return scene


def test_a_snapshot_keeps_its_answer_after_other_queries_and_edits(model: RobotModel) -> None:
    """The issue's case, then a second snapshot, a moved box and a removed box."""
    a, b = _states(model)
    scene = _scene_with_box_at_tool(model, a)
    assert scene.check_collision(a).collision and not scene.check_collision(b).collision
    snapshot = scene.query_object(a)
    distance_a = snapshot.compute_minimum_signed_distance()
    assert snapshot.has_collisions() and distance_a < 0.0
    scene.check_collision(b)  # this thread's fcl objects re-posed for b
    other = scene.query_object(b)
    assert not other.has_collisions()
    X = np.eye(4)
    X[:3, 3] = (5.0, 5.0, 5.0)
    scene.set_object_pose('box', X)
    scene.check_collision(a)
    assert snapshot.has_collisions()
    assert snapshot.compute_minimum_signed_distance() == distance_a
    scene.apply_world_object(CollisionObjectOperation.REMOVE, 'box', None, [])
    assert not scene.check_collision(a).collision
    assert snapshot.has_collisions() and not other.has_collisions()


def test_a_snapshot_from_another_thread_keeps_its_answer(model: RobotModel) -> None:
    import threading

    a, b = _states(model)
    scene = _scene_with_box_at_tool(model, a)
    snapshot = scene.query_object(a)
    answers: list[bool] = []

    def work() -> None:
        for _ in range(50):
            scene.check_collision(b)
            answers.append(snapshot.has_collisions())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert answers == [True] * 50


def test_a_snapshot_over_reposed_objects_raises() -> None:
    """Two spheres 1 m apart; the objects re-posed into contact: the old snapshot refuses."""
    objects = FclObjects([Sphere(0.1), Sphere(0.1)])
    X = np.tile(np.eye(4), (2, 1, 1))
    X[1, 0, 3] = 1.0
    objects.set_poses(X)
    snapshot = QueryObject(_NoInspector(), objects, np.array([0, 1]), np.array([[0, 1]]))
    assert snapshot.compute_minimum_signed_distance() == pytest.approx(0.8, abs=1e-9)
    X[1, 0, 3] = 0.1
    objects.set_poses(X)
    with pytest.raises(StaleQueryObjectError, match='posed for another state'):
        snapshot.has_collisions()
    with pytest.raises(StaleQueryObjectError):
        snapshot.compute_minimum_signed_distance()
    objects.set_poses(X)  # the same poses again: nothing moved, the new snapshot stays valid
    fresh = QueryObject(_NoInspector(), objects, np.array([0, 1]), np.array([[0, 1]]))
    objects.set_poses(X)
    assert fresh.has_collisions()


class _NoInspector:
    """The distance queries used here never read the registry."""
