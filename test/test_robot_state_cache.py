"""Cache poisoning: no RobotState getter ever returns stale kinematics (design study B6, RS-114).

Each test brings every cache up to date, overwrites the cached transforms with a sentinel
(42), changes the configuration through one setter, and then checks that every getter returns
values recomputed from scratch (``kinematics.forward_kinematics`` and friends), never the
sentinel. A negative control shows the poisoning reaches the caches the getters read.
"""

from __future__ import annotations

from collections.abc import Callable
import math

import numpy as np
import pytest

from robot_state_core import kinematics
from robot_state_core.geometry.shapes import Box, Sphere
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import pose_from_xyz_rpy
from robot_state_core.state.attached_body import AttachedBodyPoses
from robot_state_core.state.robot_state import RobotState

SENTINEL = 42.0
SEED = 7
TOL = 1e-12
'''Recomputed values agree with the reference to a few ulps (same kernels).'''

X_LB = pose_from_xyz_rpy([0.0, 0.02, 0.1], [0.3, 0.0, -0.2])
X_BF = pose_from_xyz_rpy([0.05, 0.0, 0.0], [0.0, 0.5, 0.0])


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


def fresh_state(model: RobotModel) -> RobotState:
    state = RobotState(model, rng=SEED)
    state.set_to_random_positions()
    state.attach_body('obj', 'tool0', [Box(0.1, 0.05, 0.2), Sphere(0.03)],
                      shape_poses=np.stack([np.eye(4), pose_from_xyz_rpy([0, 0, 0.1],
                                                                         [0, 0, 0])]),
                      pose=X_LB, subframes={'grasp': X_BF})
    return state


def poison(state: RobotState, links: bool = True) -> None:
    """Bring the caches up to date, then fill every cached transform with the sentinel."""
    state.update()
    if links:
        state._data.X_PC[...] = SENTINEL  # the KinematicsData the state owns
        state._data.X_WL[...] = SENTINEL
    state._X_WG[...] = SENTINEL
    state._attached_poses = {name: AttachedBodyPoses(
        np.full((4, 4), SENTINEL), np.full(p.X_WS.shape, SENTINEL), p.subframe_names,
        np.full(p.X_WF.shape, SENTINEL)) for name, p in state._attached_poses.items()}


def check_every_getter(state: RobotState) -> None:
    """Every kinematic getter equals a from-scratch reference and holds no sentinel."""
    model = state.robot_model
    q = np.array(state.positions)
    X_WL = kinematics.forward_kinematics(model, q)
    X_PC = kinematics.local_joint_transforms(model, q)
    outputs: list[np.ndarray] = []

    def check(value: np.ndarray, expected: np.ndarray) -> None:
        np.testing.assert_allclose(value, expected, atol=TOL, rtol=0.0)
        outputs.append(np.asarray(value))

    check(state.get_link_poses(), X_WL)
    for i, name in enumerate(model.link_names):
        check(state.get_global_link_transform(name), X_WL[i])
        check(state.get_frame_transform(name), X_WL[i])
        check(state.get_frame_info(name).X_WF, X_WL[i])
        for k, c in enumerate(model.links[i].collisions):
            check(state.get_collision_body_transform(name, k), X_WL[i] @ c.origin)
    X_WG = np.stack([X_WL[i] @ c.origin for i, link in enumerate(model.links)
                     for c in link.collisions])
    check(state.get_collision_body_transforms(), X_WG)
    for j, name in enumerate(model.joint_names):
        check(state.get_joint_pose(name), np.linalg.solve(model.joint_origins[j], X_PC[j]))
    J_W = kinematics.fold_mimic_columns(model, kinematics.jacobian(
        model, q, 'tool0', (0.0, 0.0, 0.1)))[:, 4:10]
    check(state.get_jacobian_in_model_frame('arm', 'tool0', (0.0, 0.0, 0.1)), J_W)
    R_WR = X_WL[model.link_index(state.get_group_root_link('arm'))][:3, :3]
    check(state.get_jacobian('arm', 'tool0', (0.0, 0.0, 0.1)),
          np.concatenate([R_WR.T @ J_W[:3], R_WR.T @ J_W[3:]]))
    for body in state.get_attached_bodies():
        X_WB = X_WL[model.link_index(body.link)] @ body.pose
        check(state.get_frame_transform(body.name), X_WB)
        poses = state.get_attached_body_poses(body.name)
        assert poses is not None
        check(poses.X_WB, X_WB)
        check(poses.X_WS, X_WB @ body.shape_poses)
        for sub, X_BF_sub in body.subframes.items():
            check(state.get_frame_transform(f'{body.name}/{sub}'), X_WB @ X_BF_sub)
            check(poses.X_WF[poses.subframe_names.index(sub)], X_WB @ X_BF_sub)
    aabb = state.compute_aabb()
    assert np.all(np.abs(aabb) < 10.0)  # a sentinel pose would put a box at 42 m
    outputs.append(aabb)
    assert 'T.xyz = [42' not in state.transforms_info() + state.state_tree()
    for value in outputs:
        assert not np.any(value == SENTINEL)


def _joint_context(state: RobotState) -> None:
    with state.joint_context() as ctx:
        ctx.positions[state.robot_model.variable_index('elbow_joint')] += 0.2


def _interpolate_into(state: RobotState) -> None:
    a, b = state.copy(), state.copy()
    b.set_to_default_values('arm', 'home')
    a.interpolate(b, 0.5, state)


def _out_of_bounds(state: RobotState, variable: str, value: float) -> None:
    """Put a value out of bounds without a setter, then re-poison the caches."""
    state._q[state.robot_model.variable_index(variable)] = value  # raw write, as in C++
    state.update(force=True)  # ... followed by the documented forced update (RS-10)
    poison(state)


def _enforce_bounds(state: RobotState) -> None:
    _out_of_bounds(state, 'elbow_joint', 5.0)
    state.enforce_bounds()


def _harmonize(state: RobotState) -> None:
    _out_of_bounds(state, 'forearm_roll_joint', 7.0)
    state.harmonize_positions()


SETTERS: dict[str, Callable[[RobotState], object]] = {
    'set_variable_positions(array)': lambda s: s.set_variable_positions(
        np.array(s.positions) + 0.01),
    'set_variable_positions(mapping)': lambda s: s.set_variable_positions(
        {'shoulder_pan_joint': 0.4, 'base_joint/x': 1.0}),
    'set_variable_positions(names, values)': lambda s: s.set_variable_positions(
        ['elbow_joint', 'lift_joint'], [0.3, 0.2]),
    'set_variable_positions(ignore)': lambda s: s.set_variable_positions(
        ['nope', 'elbow_joint'], [1.0, 0.7], unknown='ignore'),
    'set_variable_position(name)': lambda s: s.set_variable_position('wrist_pitch_joint', 1.0),
    'set_variable_position(index)': lambda s: s.set_variable_position(2, 1.2),
    'set_variable_values': lambda s: s.set_variable_values(['shoulder_lift_joint'], [0.5]),
    'set_joint_positions': lambda s: s.set_joint_positions('base_joint', [0.3, -0.2, 1.0]),
    'set_joint_pose': lambda s: s.set_joint_pose('base_joint', pose_from_xyz_rpy(
        [0.5, 0.1, 0.0], [0.0, 0.0, -0.7])),
    'set_joint_group_positions': lambda s: s.set_joint_group_positions(
        'arm', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]),
    'set_joint_group_active_positions': lambda s: s.set_joint_group_active_positions(
        'whole_body', np.full(10, 0.1)),
    'set_to_default_values': lambda s: s.set_to_default_values(),
    'set_to_default_values(named)': lambda s: s.set_to_default_values('arm', 'ready'),
    'set_to_random_positions': lambda s: s.set_to_random_positions(),
    'set_to_random_positions(group)': lambda s: s.set_to_random_positions('arm'),
    'set_to_random_positions_near_by': lambda s: s.set_to_random_positions_near_by(
        'arm', s.copy(), 0.3),
    'copy_from': lambda s: s.copy_from(_other(s)),
    'interpolate(out_state)': _interpolate_into,
    'enforce_bounds': _enforce_bounds,
    'harmonize_positions': _harmonize,
    'integrate_variable_velocity': lambda s: s.integrate_variable_velocity(
        'arm', np.full(6, 0.2), 0.5),
    'set_from_diff_ik': lambda s: s.set_from_diff_ik('arm', [0.1, 0, 0, 0, 0, 0.2], 'tool0',
                                                     0.1),
    'set_from_ik': lambda s: _set_from_ik(s),
    'joint_context': _joint_context,
}


def _other(state: RobotState) -> RobotState:
    other = RobotState(state.robot_model, rng=SEED + 1)
    other.set_to_random_positions()
    other.attach_body('other_obj', 'base_link', [Sphere(0.1)], subframes={'s': X_BF})
    other.update()
    return other


def _set_from_ik(state: RobotState) -> None:
    goal = state.copy()
    goal.set_to_random_positions_near_by('arm', state, 0.3)
    assert state.set_from_ik('arm', goal.get_global_link_transform('tool0').copy(),
                             timeout=1.0)


@pytest.mark.parametrize('setter', list(SETTERS.values()), ids=list(SETTERS))
def test_every_getter_recomputes_after_a_setter(model: RobotModel,
                                                setter: Callable[[RobotState], object]) -> None:
    state = fresh_state(model)
    before = np.array(state.positions)
    poison(state)
    setter(state)
    assert not np.array_equal(state.positions, before), 'the setter did not change q'
    check_every_getter(state)


def test_setting_the_same_values_is_still_safe(model: RobotModel) -> None:
    state = fresh_state(model)
    poison(state)
    state.set_variable_positions(np.array(state.positions))
    check_every_getter(state)


@pytest.mark.parametrize('change', ['attach', 'replace', 'clear'])
def test_attached_body_changes_recompute_their_poses(model: RobotModel, change: str) -> None:
    state = fresh_state(model)
    poison(state, links=False)
    if change == 'attach':
        state.attach_body('new', 'forearm_link', [Sphere(0.05)], subframes={'p': X_BF})
    elif change == 'replace':
        state.attach_body('obj', 'upper_arm_link', [Box(0.1, 0.1, 0.1)],
                          subframes={'grasp': np.eye(4)})
    else:
        state.clear_attached_body('obj')
        state.attach_body('after', 'tool0', [Sphere(0.05)])
    check_every_getter(state)


def test_copies_are_not_poisoned_by_their_source(model: RobotModel) -> None:
    state = fresh_state(model)
    state.update()
    dup = state.copy()
    poison(state)
    check_every_getter(dup)


def test_negative_control_the_poison_reaches_the_caches(model: RobotModel) -> None:
    """Without a setter the caches are (rightly) trusted: the getters return the sentinel.

    This proves the poisoning above writes to the arrays the getters read, so the passing
    tests mean "recomputed", not "never cached".
    """
    state = fresh_state(model)
    poison(state)
    assert np.all(state.get_link_poses() == SENTINEL)
    assert np.all(state.get_collision_body_transforms() == SENTINEL)
    assert np.all(state.get_frame_transform('obj/grasp') == SENTINEL)
    j = model.joint_index('elbow_joint')
    X_PC = kinematics.local_joint_transforms(model, state.positions)[j]
    assert not np.allclose(state.get_joint_pose('elbow_joint'),
                           np.linalg.solve(model.joint_origins[j], X_PC))
    state.set_variable_velocity('elbow_joint', 1.0)  # velocities do not move links
    assert np.all(state.get_link_poses() == SENTINEL)
    state.update(force=True)
    check_every_getter(state)


def test_raw_edits_need_a_forced_update(model: RobotModel) -> None:
    """RS-10: after writing the raw array (private here), ``update(force=True)`` recomputes."""
    state = fresh_state(model)
    poison(state)
    state._q[model.variable_index('elbow_joint')] = 0.5 * math.pi
    state.update(force=True)
    check_every_getter(state)
