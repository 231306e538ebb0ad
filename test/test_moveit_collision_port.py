"""Ported from MoveIt 2: the collision-detection tests of ``moveit_core`` (FCL checker, World).

Origin (``moveit/moveit2``, commits as read): the typed suites
``collision_detection/include/moveit/collision_detection/test_collision_common_panda.hpp``
(252e5dae; instantiated for FCL by ``collision_detection_fcl/test/
test_fcl_collision_detection_panda.cpp``, 3342cb17) and ``test_collision_common_pr2.hpp``
(11b3f1b9; ``test_fcl_collision_detection_pr2.cpp``, 182da285),
``collision_detection_fcl/test/test_fcl_env.cpp`` (1cda96d5) and
``collision_detection/test/test_world.cpp`` (f77e8d5b), ``test_world_diff.cpp`` (37898f89),
``test_all_valid.cpp`` (a8ec0ac7). The tests are rewritten against our API; upstream's inputs and
expected values are kept, including its tolerances.

What differs everywhere:

* Robots are example-robot-data's Panda and PR2 (:mod:`robot_corpus`), not moveit_resources'.
  Panda: the same kinematics and link mesh files (by name; not compared byte for byte), but
  box fingers instead of the finger mesh, joint 4 limited to [-3.0718, -0.0698] (so
  ``set_to_default_values`` puts it at the midpoint, not 0) and another SRDF
  (:data:`MOVEIT_PANDA_DISABLED` is moveit_resources' list, commit 8c2f1edc). PR2:
  no ``base_bellow_link``, no geometry on ``r_gripper_motor_accelerometer_link``, no kinect
  mesh (:data:`KINECT_STAND_IN` replaces it).
* There is no ``updateStateWithLinkAt``: link poses come from joint values only. Where upstream
  teleports a link, the same relative placement is reached through the kinematics (our IK, or
  the PR2's planar base joint ``world_joint`` to move the whole robot), and the placement is
  checked in the test.
* ``checkRobotCollision`` is ``CollisionRequest(self_collision=False)`` (:data:`ROBOT_ONLY`);
  MoveIt's "no ACM" (a null pointer: every pair is checked) is an empty
  :class:`AllowedCollisionMatrix` here, while ``acm=None`` means the scene's ACM.
* Timings (``EXPECT_TIME_LT``, the 5 s map addition) are not asserted: tests never assert on
  time here (benchmarks do). Those cases are ported as functional tests.
* World observers (``World::addObserver``) and ``WorldDiff`` do not exist as such. World edits
  are scene methods; change tracking is the diff scene's record (``PlanningScene.diff`` /
  ``changes``: ids changed or removed, not MoveIt's CREATE/DESTROY/MOVE_SHAPE/ADD_SHAPE/
  REMOVE_SHAPE bits). Shapes are addressed by index, not by pointer.

Upstream test -> test here -> result (``Panda.`` stands for ``CollisionDetectorPandaTest.``,
``PR2.`` for ``CollisionDetectorTest.``, ``Env.`` for ``CollisionDetectionEnvTest.``;
"documented": the case asserts our documented behaviour where it differs, and its docstring
says why):

======================================  ============================================  ==========
upstream test                           here                                          result
======================================  ============================================  ==========
Panda.InitOK                            test_panda_init_ok                            pass
Panda.DefaultNotInCollision             test_panda_default_not_in_collision           pass
Panda.LinksInCollision                  test_panda_links_in_collision                 pass
Panda.RobotWorldCollision_1             test_panda_robot_world_collision_1            pass
Panda.RobotWorldCollision_2             test_panda_robot_world_collision_2            pass
Panda.PaddingTest                       test_panda_padding                            pass
Panda.DistanceSelf                      test_panda_distance_self                      pass
                                        (moveit_resources' pairs; coal oracle)
                                        test_panda_distance_self_example_robot_data   documented
Panda.DistanceWorld                     test_panda_distance_world                     pass
DistanceCheckPandaTest.DistanceSingle   test_panda_distance_single (property)         pass
DistanceFullPandaTest.DistancePoints    test_panda_distance_points                    pass
PR2.InitOK                              test_pr2_init_ok                              pass
PR2.DefaultNotInCollision               test_pr2_default_not_in_collision             pass
PR2.LinksInCollision                    test_pr2_links_in_collision                   pass
PR2.ContactReporting                    test_pr2_contact_reporting                    pass
PR2.ContactPositions                    test_pr2_contact_positions                    pass
PR2.AttachedBodyTester                  test_pr2_attached_body_tester                 documented
                                        test_pr2_attached_body_against_its_own_link   pass
PR2.DiffSceneTester                     test_pr2_diff_scene_tester                    pass
PR2.ConvertObjectToAttached             test_pr2_convert_object_to_attached           pass
PR2.TestCollisionMapAdditionSpeed       test_pr2_collision_map_addition               pass
PR2.MoveMesh                            test_pr2_move_mesh                            pass
PR2.TestChangingShapeSize               test_pr2_changing_shape_size                  pass
Env.InitOK                              test_fcl_env_init_ok                          pass
Env.DefaultNotInCollision               test_fcl_env_default_not_in_collision         pass
Env.LinksInCollision                    test_fcl_env_links_in_collision               pass
Env.RobotWorldCollision_1               test_fcl_env_robot_world_collision_1          pass
Env.RobotWorldCollision_2               test_fcl_env_robot_world_collision_2          pass
Env.PaddingTest                         test_fcl_env_padding                          pass
Env.DISABLED_ContinuousCollisionSelf    (not ported)                                  disabled
Env.DISABLED_ContinuousCollisionWorld   (not ported)                                  disabled
World.AddRemoveShape                    test_world_add_remove_shape                   documented
World.TrackChanges                      test_world_track_changes                      documented
World.ObjectPoseAndSubframes            test_world_object_pose_and_subframes          pass
WorldDiff.TrackChanges                  test_world_diff_track_changes                 documented
WorldDiff.SetWorld                      test_world_diff_set_world                     documented
AllValid.Instantiate                    test_all_valid_instantiate                    documented
======================================  ============================================  ==========

The two ``DISABLED_ContinuousCollision*`` tests of ``test_fcl_env.cpp`` are not ported because
upstream disables them: continuous collision checking is not implemented in MoveIt's FCL
checker either (``checkRobotCollision(req, res, state1, state2)`` only logs an error), and we
have no continuous check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import dataclasses
import math

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core.description.acm import AllowedCollisionMatrix, AllowedCollisionType
from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.geometry.shapes import Box, Cylinder, Mesh, Shape, Sphere
from robot_state_core.ik.solver import solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    BodyType,
    CollisionObjectOperation,
    CollisionRequest,
    Contact,
    DistanceRequest,
    DistanceRequestType,
    PlanningScene,
    SceneChanges,
    WorldObject,
)
from robot_state_core.state.robot_state import RobotState

ADD = CollisionObjectOperation.ADD
APPEND = CollisionObjectOperation.APPEND
REMOVE = CollisionObjectOperation.REMOVE

ROBOT_ONLY = CollisionRequest(self_collision=False, world_collision=True)
'''MoveIt's ``checkRobotCollision``: the robot (and its attached bodies) against the world.'''

PANDA_HOME = {'panda_joint2': -0.785, 'panda_joint4': -2.356, 'panda_joint6': 1.571,
              'panda_joint7': 0.785}
'''MoveIt's ``setToHome`` of the Panda tests, after ``setToDefaultValues``.'''

MOVEIT_PANDA_DISABLED = (
    ('panda_link0', 'panda_link1'), ('panda_link0', 'panda_link2'),
    ('panda_link0', 'panda_link3'), ('panda_link0', 'panda_link4'),
    ('panda_link1', 'panda_link2'), ('panda_link1', 'panda_link3'),
    ('panda_link1', 'panda_link4'), ('panda_link2', 'panda_link3'),
    ('panda_link2', 'panda_link4'), ('panda_link2', 'panda_link6'),
    ('panda_link3', 'panda_link4'), ('panda_link3', 'panda_link5'),
    ('panda_link3', 'panda_link6'), ('panda_link3', 'panda_link7'),
    ('panda_link4', 'panda_link5'), ('panda_link4', 'panda_link6'),
    ('panda_link4', 'panda_link7'), ('panda_link5', 'panda_link6'),
    ('panda_link6', 'panda_link7'), ('panda_hand', 'panda_leftfinger'),
    ('panda_hand', 'panda_rightfinger'), ('panda_leftfinger', 'panda_rightfinger'),
    ('panda_hand', 'panda_link3'), ('panda_hand', 'panda_link4'),
    ('panda_hand', 'panda_link6'), ('panda_hand', 'panda_link7'),
    ('panda_leftfinger', 'panda_link3'), ('panda_leftfinger', 'panda_link4'),
    ('panda_leftfinger', 'panda_link6'), ('panda_leftfinger', 'panda_link7'),
    ('panda_link3', 'panda_rightfinger'), ('panda_link4', 'panda_rightfinger'),
    ('panda_link6', 'panda_rightfinger'), ('panda_link7', 'panda_rightfinger'),
)
'''The ``disable_collisions`` pairs of moveit_resources' ``panda_moveit_config/config/panda.srdf``
(commit 8c2f1edc), the SRDF upstream's Panda tests load.'''

FCL_ENV_ALLOWED = (
    ('panda_link0', 'panda_link1'), ('panda_link1', 'panda_link2'),
    ('panda_link2', 'panda_link3'), ('panda_link3', 'panda_link4'),
    ('panda_link4', 'panda_link5'), ('panda_link5', 'panda_link6'),
    ('panda_link6', 'panda_link7'), ('panda_link7', 'panda_hand'),
    ('panda_hand', 'panda_rightfinger'), ('panda_hand', 'panda_leftfinger'),
    ('panda_rightfinger', 'panda_leftfinger'), ('panda_link5', 'panda_link7'),
    ('panda_link6', 'panda_hand'),
)
'''The pairs ``test_fcl_env.cpp`` allows in its hand-built ACM (every other pair is NEVER).'''

KINECT_STAND_IN = 'tilting_laser_v0/hok_tilt.stl'
'''Stands in for moveit_resources' ``kinect.dae``: a sensor mesh of about the Kinect's size among
example-robot-data's PR2 meshes (11 x 9 x 9 cm, 262 vertices).'''

PALM_AT = (0.6, 0.0, 1.0)
'''Where the PR2 palms are brought together (in front of the robot at base x = 0) [m].'''


# ---------------------------------------------------------------------------- helpers


def _translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def _quaternion(w: float, x: float, y: float, z: float) -> np.ndarray:
    """``(4, 4)`` rotation of the quaternion ``(w, x, y, z)``, normalised here.

    As Eigen's ``toRotationMatrix`` of a normalised ``Quaterniond(w, x, y, z)``.
    """
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    X = np.eye(4)
    X[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return X


def _robot(name: str) -> RobotModel:
    r = robot_corpus.test_robot(name)
    return RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)


def _acm_all(model: RobotModel, allowed: bool) -> AllowedCollisionMatrix:
    """MoveIt's ``AllowedCollisionMatrix(getLinkModelNames(), allowed)``: every pair i <= j."""
    acm = AllowedCollisionMatrix()
    names = model.link_names
    for i, a in enumerate(names):
        for b in names[i:]:
            acm.set_entry(a, b, allowed)
    return acm


def _acm_allowing(pairs: Iterable[tuple[str, str]]) -> AllowedCollisionMatrix:
    acm = AllowedCollisionMatrix()
    for a, b in pairs:
        acm.set_entry(a, b, True)
    return acm


def _entry_type(acm: AllowedCollisionMatrix, a: str, b: str) -> AllowedCollisionType | None:
    entry = acm.get_entry(a, b)
    return None if entry is None else entry.type


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _contact_pairs(contacts: Iterable[Contact]) -> set[tuple[str, str]]:
    return {_pair(*c.pair) for c in contacts}


def _z(X: np.ndarray) -> float:
    return float(X[2, 3])


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    """``loadTestingRobotModel("panda")`` (example-robot-data's Panda here)."""
    return _robot('panda')


@pytest.fixture(scope='module')
def pr2() -> RobotModel:
    """``loadTestingRobotModel("pr2")`` (example-robot-data's PR2 here)."""
    return _robot('pr2')


@pytest.fixture(scope='module')
def empty_robot() -> RobotModel:
    """A one-link robot without geometry: the world tests need a scene, upstream has none."""
    return RobotModel.from_urdf_string('<robot name="empty_robot"><link name="base_link"/>'
                                       '</robot>')


def _home(model: RobotModel) -> RobotState:
    state = RobotState(model)
    state.set_to_default_values()
    state.set_variable_positions(PANDA_HOME)
    return state


def _pr2_default(model: RobotModel) -> RobotState:
    state = RobotState(model)
    state.set_to_default_values()
    return state


def _ik(model: RobotModel, group: str, tip: str, X_WT: np.ndarray, seed: np.ndarray
        ) -> np.ndarray:
    result = solve_ik(model, IKRequest(group=group, targets=(X_WT,), tip_links=(tip,),
                                       seed=seed, timeout=2.0,
                                       options=IKOptions(random_seed=7)))
    assert result.success, result.message
    return result.q


@pytest.fixture(scope='module')
def pr2_palms(pr2: RobotModel) -> Mapping[str, np.ndarray]:
    """PR2 configurations standing in for upstream's ``updateStateWithLinkAt`` of the palms.

    The right palm is at :data:`PALM_AT` with the identity rotation (upstream: ``T(x, 0, 0)``),
    the left palm relative to it as upstream places it: ``'offset'`` 1 cm along x,
    ``'tilted'`` rotated by ``Quaterniond(sqrt(1 - 0.258^2), 0, 0.258, 0)`` (about 30 deg about
    y), ``'crossed'`` by ``Quaterniond(pi/4, 0, pi/4, 0)`` normalised (90 deg about y);
    ``'right'``: only the right palm placed, the left arm at its default. The arms reach the
    palms (our IK); the wrists and forearms come along.
    """
    seed = _pr2_default(pr2).positions
    X_r = _translation(*PALM_AT)
    q_r = _ik(pr2, 'right_arm', 'r_gripper_palm_link', X_r, seed)
    relative = {'offset': _translation(0.01),
                'tilted': _quaternion(math.sqrt(1 - 0.258 ** 2), 0, 0.258, 0),
                'crossed': _quaternion(math.pi / 4, 0, math.pi / 4, 0)}
    out = {name: _ik(pr2, 'left_arm', 'l_gripper_palm_link', X_r @ X_rel, q_r)
           for name, X_rel in relative.items()}
    out['right'] = q_r
    return out


def _pr2_at(model: RobotModel, q: np.ndarray, palm_x: float) -> RobotState:
    """A state of ``q`` with the base moved along x so that the right palm is at ``palm_x``."""
    state = RobotState(model)
    state.set_variable_positions(q)
    state.set_variable_positions({'world_joint/x': palm_x - PALM_AT[0]})
    return state


def _assert_palms(state: RobotState, X_rel: np.ndarray, palm_x: float) -> None:
    """The placement upstream asks for: right palm at x = ``palm_x``, left at ``X_rel`` of it."""
    X_r = state.get_global_link_transform('r_gripper_palm_link')
    X_l = state.get_global_link_transform('l_gripper_palm_link')
    np.testing.assert_allclose(X_r[:3, :3], np.eye(3), atol=1e-4)
    assert X_r[0, 3] == pytest.approx(palm_x, abs=1e-5)
    np.testing.assert_allclose(np.linalg.inv(X_r) @ X_l, X_rel, atol=1e-4)


def _kinect() -> Mesh:
    path = robot_corpus.example_robot_data_share() / 'robots' / 'pr2_description' / 'meshes' \
        / KINECT_STAND_IN
    return Mesh(uri=str(path), path=str(path))


# ---------------------------------------------------------------------------- Panda suite


def test_panda_init_ok(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.InitOK (test_collision_common_panda.hpp, 252e5dae).

    Upstream asserts that ``loadTestingRobotModel("panda")`` succeeded. Here: the model loads
    with its SRDF, and the scene's ACM is the SRDF's (upstream builds ``acm_`` from the SRDF).
    Ours differs only in the robot files: example-robot-data's SRDF disables two pairs that
    moveit_resources' does not, and misses one (checked here; it matters for DistanceSelf).
    """
    assert panda.name == 'panda'
    assert {'panda_hand', 'panda_leftfinger', 'panda_rightfinger'} <= set(panda.link_names)
    scene = PlanningScene(panda)
    ours = {_pair(a, b) for a, b, _ in panda.disabled_collision_pairs}
    assert all(_entry_type(scene.acm, a, b) is AllowedCollisionType.ALWAYS for a, b in ours)
    moveit = {_pair(a, b) for a, b in MOVEIT_PANDA_DISABLED}
    assert ours - moveit == {('panda_hand', 'panda_link5'), ('panda_link5', 'panda_link7')}
    assert moveit - ours == {('panda_link2', 'panda_link6')}


@pytest.mark.parametrize('srdf', ['example-robot-data', 'moveit_resources'])
def test_panda_default_not_in_collision(panda: RobotModel, srdf: str) -> None:
    """CollisionDetectorPandaTest.DefaultNotInCollision (Panda suite, 252e5dae).

    Origin: test_collision_common_panda.hpp.

    Home pose, ``checkSelfCollision`` with the SRDF ACM: no collision. Run with our SRDF (the
    scene's ACM) and with moveit_resources' disabled pairs (:data:`MOVEIT_PANDA_DISABLED`).
    """
    scene = PlanningScene(panda)
    acm = None if srdf == 'example-robot-data' else _acm_allowing(MOVEIT_PANDA_DISABLED)
    assert not scene.check_self_collision(_home(panda), acm=acm).collision


@pytest.mark.parametrize('srdf', ['example-robot-data', 'moveit_resources'])
def test_panda_links_in_collision(panda: RobotModel, srdf: str) -> None:
    """CollisionDetectorPandaTest.LinksInCollision (test_collision_common_panda.hpp, 252e5dae).

    Home pose with ``panda_joint2 = 0.15`` and ``panda_joint4 = -3.0``: ``checkSelfCollision``
    reports a collision (the hand folds onto link 1, a pair neither SRDF disables).
    """
    scene = PlanningScene(panda)
    state = _home(panda)
    state.set_variable_positions({'panda_joint2': 0.15, 'panda_joint4': -3.0})
    acm = None if srdf == 'example-robot-data' else _acm_allowing(MOVEIT_PANDA_DISABLED)
    result = scene.check_self_collision(state, CollisionRequest(contacts=True, max_contacts=10),
                                        acm=acm)
    assert result.collision
    assert ('panda_hand', 'panda_link1') in _contact_pairs(result.contacts)


def test_panda_robot_world_collision_1(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.RobotWorldCollision_1 (Panda suite, 252e5dae).

    Origin: test_collision_common_panda.hpp.

    A 10 cm box at ``T(0, 0, 0.3)`` (object pose), then ``moveObject`` by ``T(0, 0, 0.25)``,
    ``T(0, 0, 0.05)``, ``T(0, 0, 0.25)``: relative moves, so the box is at z = 0.30, 0.55, 0.60,
    0.85 and the robot (home) hits it, misses, hits, misses. Upstream's last step (one more move,
    then ``ASSERT_FALSE`` on a cleared result) checks nothing; here the last move is checked:
    the box at z = 1.10 is clear of the robot.
    """
    scene = PlanningScene(panda)
    home = _home(panda)
    scene.apply_world_object(ADD, 'box', _translation(0, 0, 0.3), [(Box(0.1, 0.1, 0.1),
                                                                     np.eye(4))])
    assert not scene.check_self_collision(home).collision
    assert scene.check_collision(home, ROBOT_ONLY).collision
    for dz, z, hit in ((0.25, 0.55, False), (0.05, 0.60, True), (0.25, 0.85, False),
                       (0.25, 1.10, False)):
        scene.move_object('box', _translation(0, 0, dz))
        assert _z(scene.world['box'].X_WO) == pytest.approx(z)
        assert scene.check_collision(home, ROBOT_ONLY).collision is hit, z


def test_panda_robot_world_collision_2(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.RobotWorldCollision_2 (Panda suite, 252e5dae).

    Origin: test_collision_common_panda.hpp.

    A 40 cm box at ``T(0, 0, 0.3)``, ``contacts = true``, ``max_contacts = 10``: the robot
    collides and at least 3 contacts are reported (one per link pair: links 0 to 3 here).
    ``req.verbose`` has no counterpart (it only logs).
    """
    scene = PlanningScene(panda)
    scene.apply_world_object(ADD, 'box', _translation(0, 0, 0.3), [(Box(0.4, 0.4, 0.4),
                                                                     np.eye(4))])
    request = CollisionRequest(self_collision=False, contacts=True, max_contacts=10)
    result = scene.check_collision(_home(panda), request)
    assert result.collision
    assert result.contact_count >= 3
    assert result.contact_count == len(result.contacts)
    assert all(c.body_name_2 == 'box' and c.body_type_2 is BodyType.WORLD_OBJECT
               for c in result.contacts)


def _padding_case(panda: RobotModel, X_WO: np.ndarray, X_OS: np.ndarray) -> None:
    scene = PlanningScene(panda)
    home = _home(panda)
    request = CollisionRequest(self_collision=False, contacts=True, max_contacts=10)
    assert not scene.check_collision(home, request).collision
    scene.apply_world_object(ADD, 'box', X_WO, [(Box(0.1, 0.1, 0.1), X_OS)])
    scene.set_link_padding({'panda_hand': 0.08})
    result = scene.check_collision(home, request)
    assert result.collision
    assert ('box', 'panda_hand') in _contact_pairs(result.contacts)
    scene.set_link_padding({'panda_hand': 0.0})
    assert not scene.check_collision(home, request).collision


def test_panda_padding(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.PaddingTest (test_collision_common_panda.hpp, 252e5dae).

    Empty world: no robot collision. A 10 cm box "right in front of the hand" (object pose
    ``T(0.43, 0, 0.55)``): with 8 cm padding on ``panda_hand`` the robot collides, with 0 it
    does not. Same semantics (padding applies to the robot checked against the world).
    """
    _padding_case(panda, _translation(0.43, 0, 0.55), np.eye(4))


def _coal_min_distance(model: RobotModel, state: RobotState,
                       disabled: Iterable[tuple[str, str]]) -> tuple[float, tuple[str, str]]:
    """Coal's minimum distance over the link pairs not ``disabled`` (independent oracle).

    Pinocchio loads the URDF and its collision meshes, poses them with its own kinematics and
    coal computes the distances; every geometry pair on two different links is checked unless
    the link pair is disabled.
    """
    pin = pytest.importorskip('pinocchio')
    pytest.importorskip('coal')
    robot = robot_corpus.test_robot(model.name)
    pm, _ = pinocchio_oracle.load(robot.urdf_path)
    share = robot_corpus.example_robot_data_share()
    gm = pin.buildGeomFromUrdf(pm, str(robot.urdf_path), pin.GeometryType.COLLISION,
                               package_dirs=[str(share.parent), str(share)])
    links = [pm.frames[g.parentFrame].name for g in gm.geometryObjects]
    off = {_pair(a, b) for a, b in disabled}
    pairs = []
    for i in range(gm.ngeoms):
        for j in range(i + 1, gm.ngeoms):
            pair = _pair(links[i], links[j])
            if links[i] != links[j] and pair not in off:
                gm.addCollisionPair(pin.CollisionPair(i, j))
                pairs.append(pair)
    data, gdata = pm.createData(), pin.GeometryData(gm)
    pin.computeDistances(pm, data, gm, gdata,
                         pinocchio_oracle.to_pinocchio_q(model, pm, state.positions))
    k = int(np.argmin([r.min_distance for r in gdata.distanceResults]))
    return float(gdata.distanceResults[k].min_distance), pairs[k]


def test_panda_distance_self(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.DistanceSelf (test_collision_common_panda.hpp, 252e5dae).

    ``req.distance = true``, home pose, ``checkSelfCollision`` with the SRDF ACM: no collision
    and ``res.distance`` 0.022 +- 0.001. With moveit_resources' disabled pairs (the SRDF
    upstream loads) ours is 0.02213 m, between links 5 and 7; coal (through pinocchio, an oracle
    independent of our code) computes the same minimum and pair.
    """
    scene = PlanningScene(panda)
    home = _home(panda)
    acm = _acm_allowing(MOVEIT_PANDA_DISABLED)
    result = scene.check_self_collision(home, CollisionRequest(distance=True), acm=acm)
    assert not result.collision
    assert result.distance == pytest.approx(0.022, abs=0.001)
    closest = scene.distance_self(home, DistanceRequest(acm=acm)).minimum_distance
    assert _pair(*closest.link_names) == ('panda_link5', 'panda_link7')
    assert closest.distance == result.distance
    coal_distance, coal_pair = _coal_min_distance(panda, home, MOVEIT_PANDA_DISABLED)
    assert coal_pair == ('panda_link5', 'panda_link7')
    assert result.distance == pytest.approx(coal_distance, abs=1e-6)


def test_panda_distance_self_example_robot_data(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.DistanceSelf with example-robot-data's SRDF: documented.

    Origin: test_collision_common_panda.hpp (252e5dae). Same query with the scene's own ACM.
    example-robot-data's SRDF disables ``(panda_link5, panda_link7)`` and
    ``(panda_hand, panda_link5)`` (reason "Default"), the two closest pairs upstream checks
    (0.0221 m and 0.0668 m here, checked), so the minimum is the next pair,
    link 5 against the right finger's boxes: 0.1350 m (coal agrees to 1e-6). Not a checker
    difference: the 0.022 of upstream belongs to a pair this SRDF switches off.
    """
    scene = PlanningScene(panda)
    home = _home(panda)
    result = scene.check_self_collision(home, CollisionRequest(distance=True))
    assert not result.collision
    assert result.distance == pytest.approx(0.1350, abs=0.001)
    closest = scene.distance_self(home).minimum_distance
    assert _pair(*closest.link_names) == ('panda_link5', 'panda_rightfinger')
    disabled = [(a, b) for a, b, _ in panda.disabled_collision_pairs]
    coal_distance, coal_pair = _coal_min_distance(panda, home, disabled)
    assert coal_pair == ('panda_link5', 'panda_rightfinger')
    assert result.distance == pytest.approx(coal_distance, abs=1e-6)
    every = scene.distance_self(home, DistanceRequest(type=DistanceRequestType.SINGLE,
                                                      acm=_acm_allowing(MOVEIT_PANDA_DISABLED)))
    for pair, distance in ((('panda_link5', 'panda_link7'), 0.0221),
                           (('panda_hand', 'panda_link5'), 0.0668)):
        assert every.distances[pair][0].distance == pytest.approx(distance, abs=1e-4)
        assert _entry_type(scene.acm, *pair) is AllowedCollisionType.ALWAYS


def test_panda_distance_world(panda: RobotModel) -> None:
    """CollisionDetectorPandaTest.DistanceWorld (test_collision_common_panda.hpp, 252e5dae).

    ``req.distance = true``, a 10 cm box at ``T(0.43, 0, 0.55)``, hand padding 0,
    ``checkRobotCollision``: no collision, ``res.distance`` 0.029 +- 0.01 (ours: 0.0291 m, to
    link 7).
    """
    scene = PlanningScene(panda)
    scene.apply_world_object(ADD, 'box', _translation(0.43, 0, 0.55), [(Box(0.1, 0.1, 0.1),
                                                                         np.eye(4))])
    scene.set_link_padding({'panda_hand': 0.0})
    result = scene.check_collision(_home(panda), CollisionRequest(
        self_collision=False, distance=True))
    assert not result.collision
    assert result.distance == pytest.approx(0.029, abs=0.01)


def test_panda_distance_single(panda: RobotModel) -> None:
    """DistanceCheckPandaTest.DistanceSingle (test_collision_common_panda.hpp, 252e5dae).

    A seeded property test (upstream's ``random_numbers`` generator has no Python twin): ten
    random cylinders (radius and length uniform in [0, 1), position uniform in [0.1, 2] x
    [0.1, 2] x [1.2, 1.7], uniformly random rotation) are added one by one as shapes of the
    object ``'collection'`` (object pose identity, shape pose X) and, each alone, as the object
    ``'object'`` (object pose X). ``distanceRobot`` with ``type = SINGLE`` gives one result per
    pair, and the hand's distance to the collection is the minimum of its distances to the
    cylinders so far (1e-5).

    Ours differs: there is no ``active_components_only`` and no group whose updated links are
    just ``panda_hand`` (the SRDF's ``hand`` group moves only the fingers), so the hand's pairs
    are read from ``distances`` (keys sorted, as upstream's) and the other links' pairs are
    computed too. Our distances are always signed (upstream sets ``enable_signed_distance``).
    With this seed the running minimum changes five times (checked), so the property is
    exercised.
    """
    scene = PlanningScene(panda)
    home = _home(panda)
    rng = np.random.default_rng(0x47110815)
    request = DistanceRequest(type=DistanceRequestType.SINGLE)
    minimum = math.inf
    minima = []
    for _ in range(10):
        shape = Cylinder(float(rng.uniform()), float(rng.uniform()))
        X = _quaternion(*rng.normal(size=4))
        X[:3, 3] = (rng.uniform(0.1, 2.0), rng.uniform(0.1, 2.0), rng.uniform(1.2, 1.7))
        scene.apply_world_object(APPEND, 'collection', np.eye(4), [(shape, X)])
        if 'object' in scene.world:
            scene.apply_world_object(REMOVE, 'object')
        scene.apply_world_object(ADD, 'object', X, [(shape, np.eye(4))])
        result = scene.distance_robot(home, request)
        d1 = result.distances[('collection', 'panda_hand')]
        d2 = result.distances[('object', 'panda_hand')]
        assert len(d1) == 1
        assert len(d2) == 1
        minimum = min(minimum, d2[0].distance)
        assert d1[0].distance == pytest.approx(minimum, abs=1e-5)
        minima.append(minimum)
    assert len(set(minima)) == 5
    assert scene.model.group('hand').updated_link_model_names == ('panda_leftfinger',
                                                                  'panda_rightfinger')
    assert len(scene.world['collection'].shapes) == 10


def test_panda_distance_points(panda: RobotModel) -> None:
    """DistanceFullPandaTest.DistancePoints (test_collision_common_panda.hpp, 252e5dae).

    A 10 cm box with shape pose ``T(0.43, 0, 0.55)`` (object pose identity); ``distanceRobot``
    with the SRDF ACM, ``type = SINGLE``, nearest points: every result names the box, and the
    box's nearest point lies in the box. Upstream compares ``|p_local|`` with the full edge
    length (a loose check); ours checks the half edge, i.e. the point is really on the box
    (1e-5), and also that every robot link with geometry has its one entry.
    """
    scene = PlanningScene(panda)
    X_OS = _translation(0.43, 0, 0.55)
    size = np.array([0.1, 0.1, 0.1])
    scene.apply_world_object(ADD, 'box', np.eye(4), [(Box(*size), X_OS)])
    result = scene.distance_robot(_home(panda), DistanceRequest(
        type=DistanceRequestType.SINGLE, max_contacts_per_body=1))
    links = set(scene.get_link_padding())
    assert {a if b == 'box' else b for a, b in result.distances} == links
    for entries in result.distances.values():
        assert len(entries) == 1
        for data in entries:
            assert 'box' in data.link_names
            k = data.link_names.index('box')
            assert data.body_types[k] is BodyType.WORLD_OBJECT
            p_local = np.linalg.inv(X_OS) @ np.append(data.nearest_points[k], 1.0)
            assert np.all(np.abs(p_local[:3]) <= size / 2 + 1e-5), (data.link_names, p_local)


# ---------------------------------------------------------------------------- test_fcl_env


def _fcl_env_acm(model: RobotModel) -> AllowedCollisionMatrix:
    acm = _acm_all(model, False)
    for a, b in FCL_ENV_ALLOWED:
        acm.set_entry(a, b, True)
    return acm


def test_fcl_env_init_ok(panda: RobotModel) -> None:
    """CollisionDetectionEnvTest.InitOK (collision_detection_fcl/test/test_fcl_env.cpp, 1cda96d5).

    Upstream asserts the model loaded. Here: the model loads and a scene is made from it with
    padding 0 and scale 1 on every link with geometry (``CollisionEnvFCL(robot_model_)``).
    """
    scene = PlanningScene(panda)
    assert set(scene.get_link_padding().values()) == {0.0}
    assert set(scene.get_link_scale().values()) == {1.0}
    assert 'panda_link8' not in scene.get_link_padding()  # no geometry, as upstream


def test_fcl_env_default_not_in_collision(panda: RobotModel) -> None:
    """CollisionDetectionEnvTest.DefaultNotInCollision (test_fcl_env.cpp, 1cda96d5).

    Home pose, ``checkSelfCollision`` with the test's ACM (everything NEVER except 13 pairs,
    :data:`FCL_ENV_ALLOWED`): no collision.
    """
    scene = PlanningScene(panda)
    assert not scene.check_self_collision(_home(panda), acm=_fcl_env_acm(panda)).collision


def test_fcl_env_links_in_collision(panda: RobotModel) -> None:
    """CollisionDetectionEnvTest.LinksInCollision (test_fcl_env.cpp, 1cda96d5).

    Upstream's ``setToDefaultValues()`` is all zeros for moveit_resources' Panda; with the test's
    ACM the state is in self collision (here: the hand folds onto link 5, a pair that ACM does
    not allow). Ours: every variable is set to 0 explicitly, because example-robot-data's joint 4
    range [-3.0718, -0.0698] excludes 0 and our default puts it at the midpoint (-1.5708); that
    default state collides too, through the same pair (joint 4 does not move link 5 relative
    to the hand).
    """
    scene = PlanningScene(panda)
    acm = _fcl_env_acm(panda)
    zeros = RobotState(panda)
    zeros.set_variable_positions(np.zeros(len(panda.variable_names)))
    request = CollisionRequest(contacts=True, max_contacts=10)
    result = scene.check_self_collision(zeros, request, acm=acm)
    assert result.collision
    assert _contact_pairs(result.contacts) == {('panda_hand', 'panda_link5')}
    default = RobotState(panda)
    default.set_to_default_values()
    assert default.get_variable_position('panda_joint4') == pytest.approx(-1.5708)
    assert _contact_pairs(scene.check_self_collision(default, request, acm=acm).contacts) == {
        ('panda_hand', 'panda_link5')}


def test_fcl_env_robot_world_collision_1(panda: RobotModel) -> None:
    """CollisionDetectionEnvTest.RobotWorldCollision_1 (test_fcl_env.cpp, 1cda96d5).

    A 10 cm box with shape pose ``T(0, 0, 0.3)`` (object pose identity): no self collision, the
    robot hits it; ``moveObject`` by the same ``T(0, 0, 0.3)`` (relative: the shape is then at
    z = 0.6) and the robot still hits it. Upstream's last step (another move, then
    ``ASSERT_FALSE`` on a cleared result) checks nothing; here the last move (z = 0.9) is
    checked and is clear.
    """
    scene = PlanningScene(panda)
    home = _home(panda)
    acm = _fcl_env_acm(panda)
    X = _translation(0, 0, 0.3)
    scene.apply_world_object(ADD, 'box', np.eye(4), [(Box(0.1, 0.1, 0.1), X)])
    assert not scene.check_self_collision(home, acm=acm).collision
    assert scene.check_collision(home, ROBOT_ONLY, acm=acm).collision
    scene.move_object('box', X)
    assert _z(scene.world['box'].shape_world_poses()[0]) == pytest.approx(0.6)
    assert scene.check_collision(home, ROBOT_ONLY, acm=acm).collision
    scene.move_object('box', X)
    assert _z(scene.world['box'].shape_world_poses()[0]) == pytest.approx(0.9)
    assert not scene.check_collision(home, ROBOT_ONLY, acm=acm).collision


def test_fcl_env_robot_world_collision_2(panda: RobotModel) -> None:
    """CollisionDetectionEnvTest.RobotWorldCollision_2 (test_fcl_env.cpp, 1cda96d5).

    A 40 cm box with shape pose ``T(0, 0, 0.3)``, ``max_contacts = 10``: collision, at least 3
    contacts.
    """
    scene = PlanningScene(panda)
    scene.apply_world_object(ADD, 'box', np.eye(4), [(Box(0.4, 0.4, 0.4),
                                                      _translation(0, 0, 0.3))])
    result = scene.check_collision(_home(panda), CollisionRequest(
        self_collision=False, contacts=True, max_contacts=10), acm=_fcl_env_acm(panda))
    assert result.collision
    assert result.contact_count >= 3


def test_fcl_env_padding(panda: RobotModel) -> None:
    """CollisionDetectionEnvTest.PaddingTest (test_fcl_env.cpp, 1cda96d5).

    As the Panda suite's PaddingTest, with the box given as a shape pose ``T(0.43, 0, 0.55)``
    (object pose identity).
    """
    _padding_case(panda, np.eye(4), _translation(0.43, 0, 0.55))


# ---------------------------------------------------------------------------- PR2 suite


def test_pr2_init_ok(pr2: RobotModel) -> None:
    """CollisionDetectorTest.InitOK (test_collision_common_pr2.hpp, 11b3f1b9).

    Upstream asserts the model loaded. Here: it loads, with the links these tests use; the
    links upstream uses that example-robot-data's PR2 lacks (``base_bellow_link``) or has
    without geometry (``r_gripper_motor_accelerometer_link``) are checked too, since the other
    tests substitute them.
    """
    scene = PlanningScene(pr2)
    with_geometry = set(scene.get_link_padding())
    assert {'base_link', 'torso_lift_link', 'r_gripper_palm_link', 'l_gripper_palm_link',
            'r_wrist_flex_link', 'r_forearm_link'} <= with_geometry
    assert 'base_bellow_link' not in pr2.link_names
    assert 'r_gripper_motor_accelerometer_link' in pr2.link_names
    assert 'r_gripper_motor_accelerometer_link' not in with_geometry


def test_pr2_default_not_in_collision(pr2: RobotModel) -> None:
    """CollisionDetectorTest.DefaultNotInCollision (test_collision_common_pr2.hpp, 11b3f1b9).

    Default state, ``checkSelfCollision`` with the suite's ACM (every link pair allowed): no
    collision (trivially, as upstream). Also true with the scene's SRDF ACM here.
    """
    scene = PlanningScene(pr2)
    state = _pr2_default(pr2)
    assert not scene.check_self_collision(state, acm=_acm_all(pr2, True)).collision
    assert not scene.check_self_collision(state).collision


def test_pr2_links_in_collision(pr2: RobotModel, pr2_palms: Mapping[str, np.ndarray]) -> None:
    """CollisionDetectorTest.LinksInCollision (test_collision_common_pr2.hpp, 11b3f1b9).

    Suite ACM (everything allowed). Upstream puts ``base_bellow_link`` 1 cm from
    ``base_link``; disallowing that pair gives a collision, allowing it none. Then the left
    palm 1 cm from the right one; disallowing that pair gives a collision.

    Ours: example-robot-data's PR2 has no ``base_bellow_link``; ``torso_lift_link``, the other
    link below ``base_link`` that overlaps it, takes its place (at the default torso height the
    torso sits 0.26 m deep in the base, checked). The palms are placed 1 cm apart by our IK
    (:func:`pr2_palms`; upstream teleports them), and the placement is checked.
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    state = _pr2_at(pr2, pr2_palms['offset'], PALM_AT[0])
    _assert_palms(state, _translation(0.01), PALM_AT[0])
    overlap = scene.distance_self(state, DistanceRequest(
        type=DistanceRequestType.SINGLE, acm=AllowedCollisionMatrix())).distances
    assert overlap[('base_link', 'torso_lift_link')][0].distance == pytest.approx(-0.26,
                                                                                  abs=0.01)
    scene.acm.set_entry('base_link', 'torso_lift_link', False)
    assert scene.check_self_collision(state).collision
    scene.acm.set_entry('base_link', 'torso_lift_link', True)
    assert not scene.check_self_collision(state).collision
    scene.acm.set_entry('r_gripper_palm_link', 'l_gripper_palm_link', False)
    result = scene.check_self_collision(state, CollisionRequest(contacts=True))
    assert result.collision
    assert _contact_pairs(result.contacts) == {('l_gripper_palm_link', 'r_gripper_palm_link')}


def test_pr2_contact_reporting(pr2: RobotModel, pr2_palms: Mapping[str, np.ndarray]) -> None:
    """CollisionDetectorTest.ContactReporting (test_collision_common_pr2.hpp, 11b3f1b9).

    Both colliding pairs of LinksInCollision disallowed (same substitutions), contacts on:
    ``max_contacts = 1`` reports one pair with one contact; ``max_contacts = 2``,
    ``max_contacts_per_pair = 1`` two pairs with one contact each; with an ACM that allows
    nothing, ``max_contacts = 10`` and 2 per pair, a collision with at most 10 pairs and 10
    contacts (ours: exactly 10, at most 2 per pair).
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    scene.acm.set_entry('base_link', 'torso_lift_link', False)
    scene.acm.set_entry('r_gripper_palm_link', 'l_gripper_palm_link', False)
    state = _pr2_at(pr2, pr2_palms['offset'], PALM_AT[0])
    result = scene.check_self_collision(state, CollisionRequest(contacts=True, max_contacts=1))
    assert result.collision
    by_pair = result.contacts_by_pair()
    assert len(by_pair) == 1
    assert len(next(iter(by_pair.values()))) == 1
    result = scene.check_self_collision(state, CollisionRequest(
        contacts=True, max_contacts=2, max_contacts_per_pair=1))
    assert result.collision
    by_pair = result.contacts_by_pair()
    assert len(by_pair) == 2
    assert all(len(v) == 1 for v in by_pair.values())
    assert _contact_pairs(result.contacts) == {('base_link', 'torso_lift_link'),
                                               ('l_gripper_palm_link', 'r_gripper_palm_link')}
    result = scene.check_self_collision(state, CollisionRequest(
        contacts=True, max_contacts=10, max_contacts_per_pair=2), acm=_acm_all(pr2, False))
    assert result.collision
    assert len(result.contacts_by_pair()) <= 10
    assert result.contact_count <= 10
    assert result.contact_count == 10
    assert all(len(v) <= 2 for v in result.contacts_by_pair().values())


def test_pr2_contact_positions(pr2: RobotModel, pr2_palms: Mapping[str, np.ndarray]) -> None:
    """CollisionDetectorTest.ContactPositions (test_collision_common_pr2.hpp, 11b3f1b9).

    Only the palm pair is disallowed, one contact. (a) right palm at x = 5, left palm 1 cm
    further: one contact, at x = 5.0 +- 0.33. (b) both palms at x = 3, the left one rotated
    about 30 deg about y: one contact at x = 3.0 +- 0.33. (c) the left palm rotated 90 deg
    about y: upstream checks into one result and asserts ``ASSERT_FALSE`` on a fresh one (a
    vacuous check); here the check's own result is asserted: no collision, as upstream
    intended (the palm mesh starts 2.9 cm in front of its frame, so the two palms, at right
    angles, do not meet).

    Ours: the palms are brought together by the arms (:func:`pr2_palms`) and the whole robot
    is moved along x (planar base joint) to put the right palm at x = 5 or 3.
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    scene.acm.set_entry('r_gripper_palm_link', 'l_gripper_palm_link', False)
    request = CollisionRequest(contacts=True, max_contacts=1)
    cases = (('offset', 5.0, _translation(0.01)),
             ('tilted', 3.0, _quaternion(math.sqrt(1 - 0.258 ** 2), 0, 0.258, 0)))
    for name, x, X_rel in cases:
        state = _pr2_at(pr2, pr2_palms[name], x)
        _assert_palms(state, X_rel, x)
        result = scene.check_self_collision(state, request)
        assert result.collision, name
        by_pair = result.contacts_by_pair()
        assert len(by_pair) == 1
        (contacts,) = by_pair.values()
        assert len(contacts) == 1
        assert contacts[0].position_W[0] == pytest.approx(x, abs=0.33)
    state = _pr2_at(pr2, pr2_palms['crossed'], 3.0)
    _assert_palms(state, _quaternion(math.pi / 4, 0, math.pi / 4, 0), 3.0)
    assert not scene.check_self_collision(state, request).collision


def test_pr2_attached_body_tester(pr2: RobotModel, pr2_palms: Mapping[str, np.ndarray]) -> None:
    """CollisionDetectorTest.AttachedBodyTester (test_collision_common_pr2.hpp, 11b3f1b9).

    Everything allowed, right palm at ``pos1 = T(5, 0, 0)``: no self collision. A 10 cm world
    box at ``pos1``: robot collision; removed. The same box attached to the palm (no touch
    links): self collision. Re-attached with touch links {palm, accelerometer}: none. A world
    box ``'coll'`` 1 cm further: robot collision, and still one after ``('coll', palm)`` is
    allowed, because the attached box hits it.

    Documented difference: the palm is moved with its arm (base joint and IK; ``pos1`` is the
    palm's pose there, at z = 1), so the wrist flex link and the forearm, which upstream's
    ``updateStateWithLinkAt`` leaves behind, reach into the box. The attached box therefore
    collides with them as well as with the palm, and the touch links that make the attached
    box collision-free are upstream's plus those two links (the accelerometer link has no
    geometry in example-robot-data's PR2).
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    state = _pr2_at(pr2, pr2_palms['right'], 5.0)
    pos1 = state.get_global_link_transform('r_gripper_palm_link')
    assert pos1[0, 3] == pytest.approx(5.0, abs=1e-5)
    assert not scene.check_self_collision(state).collision
    box = Box(0.1, 0.1, 0.1)
    scene.apply_world_object(ADD, 'box', pos1, [(box, np.eye(4))])
    assert scene.check_collision(state, ROBOT_ONLY).collision
    scene.apply_world_object(REMOVE, 'box')
    assert not scene.check_collision(state, ROBOT_ONLY).collision

    contacts = CollisionRequest(contacts=True, max_contacts=20)
    state.attach_body('box', 'r_gripper_palm_link', [box])
    result = scene.check_self_collision(state, contacts)
    assert result.collision
    assert _contact_pairs(result.contacts) == {('box', 'r_forearm_link'),
                                               ('box', 'r_gripper_palm_link'),
                                               ('box', 'r_wrist_flex_link')}
    state.clear_attached_body('box')
    state.attach_body('box', 'r_gripper_palm_link', [box], touch_links=(
        'r_gripper_palm_link', 'r_gripper_motor_accelerometer_link'))
    assert _contact_pairs(scene.check_self_collision(state, contacts).contacts) == {
        ('box', 'r_forearm_link'), ('box', 'r_wrist_flex_link')}  # moved with the palm
    state.clear_attached_body('box')
    state.attach_body('box', 'r_gripper_palm_link', [box], touch_links=(
        'r_gripper_palm_link', 'r_gripper_motor_accelerometer_link', 'r_wrist_flex_link',
        'r_forearm_link'))
    assert not scene.check_self_collision(state).collision

    scene.apply_world_object(ADD, 'coll', pos1 @ _translation(0.01), [(box, np.eye(4))])
    assert scene.check_collision(state, ROBOT_ONLY).collision
    scene.acm.set_entry('coll', 'r_gripper_palm_link', True)
    result = scene.check_collision(state, dataclasses.replace(ROBOT_ONLY, contacts=True,
                                                              max_contacts=20))
    assert result.collision
    assert ('box', 'coll') in _contact_pairs(result.contacts)
    assert ('coll', 'r_gripper_palm_link') not in _contact_pairs(result.contacts)


def test_pr2_attached_body_against_its_own_link(pr2: RobotModel) -> None:
    """CollisionDetectorTest.AttachedBodyTester, step 3's reason (PR2 suite, 11b3f1b9).

    Origin: test_collision_common_pr2.hpp.

    Upstream attaches a box to the teleported palm with no touch links and expects a self
    collision: the box overlaps the palm only, and MoveIt's checker tests an attached body
    against every link not in its touch links, its own link included (``AttachedBody`` stores
    ``touch_links`` as given; ``RobotState::attachBody`` adds nothing). Here a 2 cm box at
    ``T(0.05, 0, 0.024)`` in the palm frame straddles the palm's top face and touches no other
    link: checked first by attaching it to ``r_wrist_roll_link``, a link without geometry whose
    frame is the palm's (then the palm is not the body's link and the pair is checked). Then
    the same box is attached to the palm with ``touch_links=()``: MoveIt reports the pair
    ``(box, r_gripper_palm_link)`` in collision, and so do we; with the palm as a touch link
    the pair is not checked.
    """
    scene = PlanningScene(pr2)
    X_BS = _translation(0.05, 0, 0.024)[None]
    box = Box(0.02, 0.02, 0.02)
    request = CollisionRequest(contacts=True, max_contacts=50)
    control = _pr2_default(pr2)
    np.testing.assert_allclose(control.get_global_link_transform('r_wrist_roll_link'),
                               control.get_global_link_transform('r_gripper_palm_link'),
                               atol=1e-12)
    control.attach_body('box', 'r_wrist_roll_link', [box], shape_poses=X_BS)
    found = scene.check_self_collision(control, request, acm=AllowedCollisionMatrix())
    assert {p for p in _contact_pairs(found.contacts) if 'box' in p} == {
        ('box', 'r_gripper_palm_link')}

    state = _pr2_default(pr2)
    state.attach_body('box', 'r_gripper_palm_link', [box], shape_poses=X_BS)
    result = scene.check_self_collision(state, request)
    assert _contact_pairs(result.contacts) == {('box', 'r_gripper_palm_link')}


def test_pr2_diff_scene_tester(pr2: RobotModel) -> None:
    """CollisionDetectorTest.DiffSceneTester (test_collision_common_pr2.hpp, 11b3f1b9).

    Upstream copies the environment (``allocateEnv(cenv_, world)``) twice, runs
    ``checkSelfCollision`` without an ACM before and after attaching the kinect to the right
    palm, and asserts only timings. Ours (timings are not asserted): a diff scene and a copy
    give the same verdict and the same contact pairs as the original, with MoveIt's "no ACM"
    (an empty ACM: every pair is checked, so adjacent links collide), before and after
    attaching the kinect stand-in (:data:`KINECT_STAND_IN`) with no touch links.
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    state = _pr2_default(pr2)
    no_acm = AllowedCollisionMatrix()
    request = CollisionRequest(contacts=True, max_contacts=10_000)

    def verdicts(*scenes: PlanningScene) -> list[tuple[bool, set[tuple[str, str]]]]:
        out = []
        for s in scenes:
            result = s.check_self_collision(state, request, acm=no_acm)
            out.append((result.collision, _contact_pairs(result.contacts)))
        return out

    new = scene.diff()
    before = verdicts(scene, new)
    assert before[0][0]
    assert before[0] == before[1]
    state.attach_body('kinect', 'r_gripper_palm_link', [_kinect()])
    other = scene.copy()
    after = verdicts(scene, new, other)
    assert after[0][0]
    assert after[0] == after[1] == after[2]
    assert after[0][1] >= before[0][1]


def test_pr2_convert_object_to_attached(pr2: RobotModel) -> None:
    """CollisionDetectorTest.ConvertObjectToAttached (test_collision_common_pr2.hpp, 11b3f1b9).

    The kinect as a world object at the identity; ``checkRobotCollision`` twice (timings
    only upstream: here both give the same verdict); the object is taken from the world and
    removed, then attached to the right palm of two states with the object's shapes and shape
    poses; ``checkSelfCollision`` without an ACM reports a collision. The further checks with
    the ACM only time upstream; here they must agree between the two states. Ours: the
    kinect stand-in mesh (:data:`KINECT_STAND_IN`); "no ACM" is an empty ACM.
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    state = _pr2_default(pr2)
    scene.apply_world_object(ADD, 'kinect', np.eye(4), [(_kinect(), np.eye(4))])
    first = scene.check_collision(state, ROBOT_ONLY, acm=AllowedCollisionMatrix()).collision
    assert scene.check_collision(state, ROBOT_ONLY, acm=AllowedCollisionMatrix()).collision \
        is first
    obj = scene.world['kinect']
    scene.apply_world_object(REMOVE, 'kinect')
    assert 'kinect' not in scene.world
    state1, state2 = _pr2_default(pr2), _pr2_default(pr2)
    for s in (state1, state2):
        s.attach_body('kinect', 'r_gripper_palm_link', [sh for sh, _ in obj.shapes],
                      shape_poses=obj.shape_poses)
    assert scene.check_self_collision(state1, acm=AllowedCollisionMatrix()).collision
    request = CollisionRequest(contacts=True, max_contacts=100)
    one = scene.check_self_collision(state1, request)
    two = scene.check_self_collision(state2, request)
    assert one.collision == two.collision
    assert _contact_pairs(one.contacts) == _contact_pairs(two.contacts)


def test_pr2_collision_map_addition(pr2: RobotModel) -> None:
    """CollisionDetectorTest.TestCollisionMapAdditionSpeed (PR2 suite, 11b3f1b9).

    Origin: test_collision_common_pr2.hpp.

    Upstream adds one object ``'map'`` of 10 000 1 cm boxes at the identity and asserts it
    takes under 5 s (Release builds only). Ours is functional (no timing): the object holds the
    10 000 shapes, and one collision check gives the right verdict: the boxes end at z = 5 mm
    and the base's collision mesh starts at z = 51 mm (its frame height; the mesh's lowest
    vertex is at 0), so no collision and a distance of exactly 0.046 m; moved 51 mm up, across
    the base's bottom face, they collide with it. (Meshes are surfaces, as in FCL: boxes
    entirely inside the base would not collide.)
    """
    scene = PlanningScene(pr2)
    scene.acm = _acm_all(pr2, True)
    state = _pr2_default(pr2)
    cube = Box(0.01, 0.01, 0.01)
    scene.apply_world_object(ADD, 'map', np.eye(4), [(cube, np.eye(4))] * 10_000)
    assert len(scene.world['map'].shapes) == 10_000
    result = scene.check_collision(state, CollisionRequest(distance=True))
    assert not result.collision
    assert result.distance == pytest.approx(0.051 - 0.005, abs=1e-9)
    scene.move_object('map', _translation(0, 0, 0.051))
    result = scene.check_collision(state, CollisionRequest(contacts=True))
    assert result.collision
    assert _contact_pairs(result.contacts) == {('base_link', 'map')}


def test_pr2_move_mesh(pr2: RobotModel) -> None:
    """CollisionDetectorTest.MoveMesh (test_collision_common_pr2.hpp, 11b3f1b9).

    The kinect as world object ``'kinect'`` (shape pose identity), moved five times by
    ``moveShapeInObject`` to ``T(i mm, i mm, i mm)``, each followed by a collision check;
    upstream asserts nothing (it must not crash). Ours also checks that each move reached the
    checker: verdict and distance equal those of a fresh scene with the mesh added at that
    pose. Shapes are moved by index (upstream: by pointer); kinect stand-in mesh.
    """
    scene = PlanningScene(pr2)
    acm = _acm_all(pr2, True)
    scene.acm = acm
    state = _pr2_default(pr2)
    kinect = _kinect()
    scene.apply_world_object(ADD, 'kinect', np.eye(4), [(kinect, np.eye(4))])
    request = CollisionRequest(distance=True)
    for i in range(5):
        X = _translation(i * 0.001, i * 0.001, i * 0.001)
        scene.move_shape_in_object('kinect', 0, X)
        np.testing.assert_array_equal(scene.world['kinect'].shape_world_poses()[0], X)
        moved = scene.check_collision(state, request)
        fresh = PlanningScene(pr2)
        fresh.acm = acm
        fresh.apply_world_object(ADD, 'kinect', np.eye(4), [(kinect, X)])
        expected = fresh.check_collision(state, request)
        assert (moved.collision, moved.distance) == (expected.collision, expected.distance)


def test_pr2_changing_shape_size(pr2: RobotModel) -> None:
    """CollisionDetectorTest.TestChangingShapeSize (test_collision_common_pr2.hpp, 11b3f1b9).

    Five times: remove ``'shape'``, add a cube of edge ``1 + i * 1e-4`` m at the identity,
    ``checkCollision`` with the everything-allowed ACM: collision (world objects are not in
    that ACM, so the robot is checked against them). Then the kinect at the identity, still a
    collision, and the five iterations again. Upstream's first ``ASSERT_FALSE`` reads a fresh
    result (vacuous; not ported).

    Ours differs: removing an absent object raises :class:`UnknownNameError` (upstream's
    ``removeObject`` returns false); the first removal is asserted to raise. Kinect stand-in.
    """
    scene = PlanningScene(pr2)
    acm = _acm_all(pr2, True)
    state = _pr2_default(pr2)
    with pytest.raises(UnknownNameError):
        scene.apply_world_object(REMOVE, 'shape')

    def resize_loop() -> None:
        for i in range(5):
            if 'shape' in scene.world:
                scene.apply_world_object(REMOVE, 'shape')
            edge = 1 + i * 1e-4
            scene.apply_world_object(APPEND, 'shape', None, [(Box(edge, edge, edge),
                                                               np.eye(4))])
            assert scene.world['shape'].shapes[0][0] == Box(edge, edge, edge)
            assert scene.check_collision(state, acm=acm).collision, i

    resize_loop()
    scene.apply_world_object(APPEND, 'kinect', None, [(_kinect(), np.eye(4))])
    assert scene.check_collision(state, acm=acm).collision
    resize_loop()


# ---------------------------------------------------------------------------- World


def _append(scene: PlanningScene, object_id: str, shapes: list[tuple[Shape, np.ndarray]],
            X_WO: np.ndarray | None = None) -> None:
    """MoveIt's ``World::addToObject``: create the object (pose ``X_WO``) or append to it."""
    scene.apply_world_object(APPEND, object_id, X_WO, shapes)


def _shape_z(obj: WorldObject) -> list[float]:
    return [_z(X) for _, X in obj.shapes]


def test_world_add_remove_shape(empty_robot: RobotModel) -> None:
    """World.AddRemoveShape (collision_detection/test/test_world.cpp, f77e8d5b).

    Add, move and remove shapes; removing an object's last shape removes the object; an object
    taken from the world is a snapshot (copy-on-write); remove and clear objects. Upstream
    uses a World without a robot; ours is the world of a scene of a robot without geometry.

    Documented differences: shapes are addressed by index, not by pointer, so upstream's
    "remove a shape the object does not have" (``removeShapeFromObject("ball", box)``) is an
    index out of range and raises :class:`InvalidArgumentError`; an unknown object raises
    :class:`UnknownNameError` (upstream returns false), and the second removal of the same
    pointer (false upstream) has no index form: the shape's absence is asserted instead.
    ``use_count`` checks become identity checks: world objects share the shape instances
    they were given, and a snapshot keeps its shapes after the object is removed.
    """
    scene = PlanningScene(empty_robot)
    ball, box, cyl = Sphere(1.0), Box(1, 2, 3), Cylinder(4, 5)
    assert 'ball' not in scene.world
    _append(scene, 'ball', [(ball, np.eye(4))])
    assert 'ball' in scene.world
    assert scene.world['ball'].shapes[0][0] is ball
    scene.move_shape_in_object('ball', 0, _translation(0, 0, 9))
    assert _shape_z(scene.world['ball']) == [9.0]
    with pytest.raises(UnknownNameError):
        scene.remove_shape_from_object('xyz', 0)
    with pytest.raises(InvalidArgumentError):
        scene.remove_shape_from_object('ball', 1)
    assert len(scene.world['ball'].shapes) == 1
    scene.remove_shape_from_object('ball', 0)
    assert 'ball' not in scene.world

    _append(scene, 'ball', [(ball, np.eye(4))])
    assert 'mix1' not in scene.world
    _append(scene, 'mix1', [(box, _translation(0, 0, 1)), (cyl, _translation(0, 0, 2)),
                            (ball, _translation(0, 0, 3))])
    assert 'mix1' in scene.world
    _append(scene, 'ball2', [(ball, _translation(0, 0, 4))])
    scene.remove_shape_from_object('mix1', 1)  # the cylinder
    assert all(shape is not cyl for shape, _ in scene.world['mix1'].shapes)
    assert 'mix1' in scene.world
    assert len(scene.world) == 3

    obj = scene.world['mix1']
    assert [shape for shape, _ in obj.shapes] == [box, ball]
    assert obj.shapes[0][0] is box
    assert obj.shapes[1][0] is ball
    assert _shape_z(obj) == [1.0, 3.0]  # the remaining shapes keep their order
    scene.move_shape_in_object('mix1', 1, _translation(0, 0, 5))
    obj2 = scene.world['mix1']
    assert obj2 is not obj
    assert _shape_z(obj2) == [1.0, 5.0]
    assert _shape_z(obj) == [1.0, 3.0]  # the snapshot did not change
    assert obj2.shapes[0][0] is box
    assert obj2.shapes[1][0] is ball

    scene.apply_world_object(REMOVE, 'mix1')
    assert len(scene.world) == 2
    assert 'mix1' not in scene.world
    assert 'ball2' in scene.world
    assert scene.world.get('abc') is None
    assert obj.shapes[0][0] is box  # snapshots outlive the object
    assert _shape_z(obj2) == [1.0, 5.0]

    scene.remove_all_world_objects()
    assert len(scene.world) == 0
    assert not {'mix1', 'ball', 'ball2'} & set(scene.world)


def test_world_track_changes(empty_robot: RobotModel) -> None:
    """World.TrackChanges (collision_detection/test/test_world.cpp, f77e8d5b): documented.

    Upstream registers observers and counts their notifications (object id and action bits)
    through a sequence of edits. We have no world observers: a diff scene records which ids it
    changed or removed. Ported: the same edits on a diff scene, the world content after each
    (shapes kept or removed), and the record (ids changed/removed); failed edits (unknown
    object, shape not in the object) raise and record nothing, as upstream's failed calls
    notify nothing; ``removeObserver`` maps to ``decouple_parent`` (edits after it are not
    recorded). Not ported: notification counts, several observers and the action bits
    (CREATE, ADD_SHAPE, MOVE_SHAPE, REMOVE_SHAPE all read "changed"; DESTROY reads "removed").
    """
    ball, box, cyl = Sphere(1.0), Box(1, 2, 3), Cylinder(4, 5)
    scene = PlanningScene(empty_robot).diff()

    def record() -> tuple[set[str], set[str]]:
        changes = scene.changes()
        return set(changes.world_changed), set(changes.world_removed)

    _append(scene, 'obj1', [(ball, np.eye(4))])
    assert record() == ({'obj1'}, set())
    scene.move_shape_in_object('obj1', 0, _translation(0, 0, 1))
    assert _shape_z(scene.world['obj1']) == [1.0]
    assert record() == ({'obj1'}, set())
    _append(scene, 'obj1', [(box, np.eye(4))])
    assert len(scene.world['obj1'].shapes) == 2
    _append(scene, 'obj2', [(cyl, np.eye(4))])
    assert record() == ({'obj1', 'obj2'}, set())
    _append(scene, 'obj3', [(box, np.eye(4))])
    assert record() == ({'obj1', 'obj2', 'obj3'}, set())
    with pytest.raises(UnknownNameError):
        scene.remove_shape_from_object('xyz', 0)
    with pytest.raises(InvalidArgumentError):
        scene.remove_shape_from_object('obj2', 1)  # obj2 has no second shape (no ball)
    assert record() == ({'obj1', 'obj2', 'obj3'}, set())
    scene.remove_shape_from_object('obj2', 0)  # its last shape: the object goes
    assert 'obj2' not in scene.world
    assert record() == ({'obj1', 'obj3'}, {'obj2'})
    scene.remove_shape_from_object('obj1', 0)  # the ball; the box remains
    assert [shape for shape, _ in scene.world['obj1'].shapes] == [box]
    assert record() == ({'obj1', 'obj3'}, {'obj2'})
    scene.remove_all_world_objects()
    assert len(scene.world) == 0
    assert record() == (set(), {'obj1', 'obj2', 'obj3'})
    scene.decouple_parent()
    _append(scene, 'obj4', [(box, np.eye(4))])
    assert scene.changes() == SceneChanges()


def test_world_object_pose_and_subframes(empty_robot: RobotModel) -> None:
    """World.ObjectPoseAndSubframes (collision_detection/test/test_world.cpp, f77e8d5b).

    ``setObjectPose`` of an absent object creates it without shapes (upstream: one CREATE
    notification; here: the diff scene records the id as changed); shapes added afterwards
    keep the object pose; subframes move with the object pose; ``moveObject`` is relative and
    ``setObjectPose`` absolute; local shape poses never change. ``getTransform`` is
    ``get_frame_transform`` (an unknown subframe: ``knows_frame_transform`` is false).
    """
    ball, box, cyl = Sphere(1.0), Box(1, 1, 1), Cylinder(0.5, 3)
    scene = PlanningScene(empty_robot).diff()
    scene.set_object_pose('mix1', np.eye(4))
    assert scene.world['mix1'].shapes == ()
    assert scene.changes().world_changed == ('mix1',)
    _append(scene, 'mix1', [(box, np.eye(4))])
    _append(scene, 'mix1', [(cyl, _translation(0, 0, 2))])
    np.testing.assert_array_equal(scene.world['mix1'].X_WO, np.eye(4))
    scene.set_subframes_of_object('mix1', {'frame1': _translation(0, 0, 2),
                                           'frame2': _translation(0, 1, 0)})
    assert _z(scene.get_frame_transform('mix1/frame1')) == 2.0
    X = scene.get_frame_transform('mix1/frame2')
    assert (X[1, 3], X[2, 3]) == (1.0, 0.0)
    assert not scene.knows_frame_transform('mix1/frame3')
    with pytest.raises(UnknownNameError):
        scene.get_frame_transform('mix1/frame3')

    scene.set_object_pose('mix1', _translation(0, 0, 1))
    assert _z(scene.get_frame_transform('mix1/frame1')) == 3.0
    X = scene.get_frame_transform('mix1/frame2')
    assert (X[1, 3], X[2, 3]) == (1.0, 1.0)
    obj = scene.world['mix1']
    assert _z(obj.shape_world_poses()[0]) == 1.0
    assert _shape_z(obj) == [0.0, 2.0]

    scene.move_object('mix1', _translation(0, 0, 1))
    assert _z(scene.get_frame_transform('mix1')) == 2.0
    assert _z(scene.get_frame_transform('mix1/frame1')) == 4.0
    assert _shape_z(scene.world['mix1']) == [0.0, 2.0]
    scene.set_object_pose('mix1', _translation(0, 0, 1))
    assert _z(scene.get_frame_transform('mix1')) == 1.0
    assert ball is not None  # declared upstream, unused there too


# ---------------------------------------------------------------------------- WorldDiff


def test_world_diff_track_changes(empty_robot: RobotModel) -> None:
    """WorldDiff.TrackChanges (collision_detection/test/test_world_diff.cpp, 37898f89).

    Documented. Upstream: ``diff1`` observes the world from the start, ``diff2`` from a later
    point (``reset(world)``); each accumulates OR-ed action bits per id; ``reset()`` detaches
    and clears; DESTROY replaces earlier bits. Ours maps diff1's column onto a diff scene
    (edits go through it): an id is "changed" or "removed"; ``reset(world)`` (clear, keep
    observing) is ``push_diffs`` + ``clear_diffs`` (the changes go to the parent, the record
    is empty, the content stays); ``reset()`` (detach) is ``decouple_parent``, and the next
    ``reset(world)`` a new diff of the parent. Not ported: diff2's column (a second record of
    the same edits has no counterpart; each diff scene records its own edits) and the bits.
    """
    ball, box, cyl = Sphere(1), Box(1, 2, 3), Cylinder(4, 5)
    world = PlanningScene(empty_robot)
    assert world.changes() == SceneChanges()  # a plain scene records nothing (diff2)
    diff1 = world.diff()
    assert diff1.changes() == SceneChanges()

    def record(d: PlanningScene) -> tuple[set[str], set[str]]:
        changes = d.changes()
        return set(changes.world_changed), set(changes.world_removed)

    _append(diff1, 'obj1', [(ball, np.eye(4))])
    assert record(diff1) == ({'obj1'}, set())
    assert 'xyz' not in diff1.changes().world_changed
    _append(diff1, 'obj2', [(box, np.eye(4))])
    assert record(diff1) == ({'obj1', 'obj2'}, set())
    _append(diff1, 'obj2', [(cyl, np.eye(4))])
    assert record(diff1) == ({'obj1', 'obj2'}, set())
    diff1.move_shape_in_object('obj2', 1, _translation(0, 0, 1))
    assert record(diff1) == ({'obj1', 'obj2'}, set())

    diff1.push_diffs()  # reset(world)
    diff1.clear_diffs()
    assert diff1.changes() == SceneChanges()
    assert set(diff1.world) == set(world.world) == {'obj1', 'obj2'}
    _append(diff1, 'obj3', [(box, np.eye(4))])
    assert record(diff1) == ({'obj3'}, set())
    _append(diff1, 'obj3', [(cyl, np.eye(4))])
    _append(diff1, 'obj3', [(ball, np.eye(4))])
    assert record(diff1) == ({'obj3'}, set())

    diff1.push_diffs()  # reset(): detach; the world then moves a shape diff1 does not see
    diff1.decouple_parent()
    world.move_shape_in_object('obj3', 1, _translation(0, 0, 2))
    assert diff1.changes() == SceneChanges()
    assert _shape_z(diff1.world['obj3']) == [0.0, 0.0, 0.0]

    diff1 = world.diff()  # reset(world)
    diff1.apply_world_object(REMOVE, 'obj2')
    assert record(diff1) == (set(), {'obj2'})
    diff1.remove_shape_from_object('obj3', 1)  # the cylinder
    assert record(diff1) == ({'obj3'}, {'obj2'})
    diff1.remove_shape_from_object('obj3', 0)  # the box
    assert record(diff1) == ({'obj3'}, {'obj2'})
    diff1.move_shape_in_object('obj3', 0, _translation(0, 0, 3))  # the ball
    assert record(diff1) == ({'obj3'}, {'obj2'})
    diff1.remove_shape_from_object('obj3', 0)  # the last shape
    assert record(diff1) == (set(), {'obj2', 'obj3'})


def test_world_diff_set_world(empty_robot: RobotModel) -> None:
    """WorldDiff.SetWorld (collision_detection/test/test_world_diff.cpp, 37898f89).

    Documented. Upstream: ``setWorld(world2)`` reports every object of the old world as
    destroyed and every object of the new one as created, keeps earlier changes, and from then
    on the diff follows only world2; ``clearChanges`` empties the record. A diff scene's
    parent is fixed here (no ``setWorld``). Ported as what maps: (1) a diff scene follows only
    its own edits, never its parent's later ones (upstream's diff of world2 ignores world1);
    (2) replacing its content by world2's objects records world1's ids as removed and
    world2's as changed (upstream's 6 entries); (3) an id removed and added again reads
    "changed" (upstream: CREATE | ADD_SHAPE | DESTROY, both); (4) ``clearChanges`` (content
    kept, record empty) is ``push_diffs`` + ``clear_diffs``, which also takes in what the
    parent gained meanwhile (``clear_diffs`` restarts from a snapshot of the parent).
    """
    ball, box = Sphere(1), Box(1, 2, 3)
    world1, world2 = PlanningScene(empty_robot), PlanningScene(empty_robot)
    for k in (1, 2, 3):
        _append(world1, f'objA{k}', [(ball, np.eye(4))])
        _append(world2, f'objB{k}', [(box, np.eye(4))])
    diff1 = world1.diff()
    world1.apply_world_object(APPEND, 'objC', None, [(box, np.eye(4))])
    assert diff1.changes() == SceneChanges()
    assert 'objC' not in diff1.world

    diff1.remove_all_world_objects()
    for oid, obj in world2.world.items():
        _append(diff1, oid, list(obj.shapes), obj.X_WO)
    changes = diff1.changes()
    assert set(changes.world_removed) == {'objA1', 'objA2', 'objA3'}
    assert set(changes.world_changed) == {'objB1', 'objB2', 'objB3'}
    assert len(changes.world_removed) + len(changes.world_changed) == 6

    diff1.apply_world_object(REMOVE, 'objB1')
    _append(diff1, 'objB1', [(box, np.eye(4))])
    assert 'objB1' in diff1.changes().world_changed
    assert 'objB1' not in diff1.changes().world_removed

    diff1.push_diffs()  # clearChanges
    diff1.clear_diffs()
    assert diff1.changes() == SceneChanges()
    assert set(world1.world) == {'objB1', 'objB2', 'objB3', 'objC'}
    assert set(diff1.world) == set(world1.world)  # a fresh snapshot: the parent's objC too


# ---------------------------------------------------------------------------- AllValid


def test_all_valid_instantiate(empty_robot: RobotModel) -> None:
    """AllValid.Instantiate (collision_detection/test/test_all_valid.cpp, a8ec0ac7).

    Documented. Upstream constructs a ``CollisionEnvAllValid`` (a checker that reports no
    collision, ever) from an empty robot model and asserts nothing. We have one checker; the
    counterpart is a scene of a robot without geometry: it constructs and reports no
    collision and no distance (no pair to check).
    """
    scene = PlanningScene(empty_robot)
    state = RobotState(empty_robot)
    result = scene.check_collision(state, CollisionRequest(contacts=True, distance=True))
    assert not result.collision
    assert result.contacts == ()
    assert result.distance == math.inf
    assert scene.distance_self(state).minimum_distance.distance == math.inf
