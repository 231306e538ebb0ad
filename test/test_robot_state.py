"""RobotState (seed 004, §4): MoveIt semantics of the facade over kinematics/bounds/ik."""

from __future__ import annotations

from collections.abc import Callable
import copy
import math
from pathlib import Path
import warnings

import numpy as np
import pytest

from robot_state_core import kinematics
from robot_state_core.errors import (
    InvalidArgumentError,
    ModelMismatchError,
    RobotStateCoreError,
    UnknownNameError,
)
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cone,
    Cylinder,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)
from robot_state_core.ik.types import IKOptions
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import pose_from_xyz_rpy, rotation_log
from robot_state_core.state.attached_body import (
    aabb_of_shapes,
    AttachedBody,
    DetachPosture,
    ShapeExtents,
)
from robot_state_core.state.robot_state import RobotState

RESOURCES = Path(__file__).resolve().parent / 'resources'
SEED = 20240611
TOL = 1e-12
'''Exact-arithmetic agreement (same kernels, a few ulps of O(1) values).'''
FD_STEP = 1e-6
'''Central-difference step [rad, m].'''
FD_TOL = 1e-7
'''Central differences: O(h²) truncation plus O(eps/h) round-off on O(1) lever arms.'''
IK_TOL = 1e-4
'''Tip pose error accepted after a successful IK call (solver tolerances are 1e-5 m, 1e-4 rad).'''
AABB_SAMPLES = 4096
'''Boundary samples per shape when checking the bounding boxes are tight.'''
AABB_SAMPLE_TOL = 2e-3
'''Gap between the exact box and the box of the samples (sampling density).'''

# An extra group with every multi-DOF joint type (planar, floating, rpy_floating) and the mimic
# chain, for Jacobian and setter tests.
MOBILE_GROUP = '''
  <group name="mobile">
    <joint name="float"/><joint name="rpy"/><joint name="plane"/><joint name="rev"/>
    <joint name="cont"/><joint name="slide"/><joint name="finger_a_joint"/>
    <joint name="finger_b_joint"/><joint name="finger_c_joint"/>
  </group>
</robot>'''

TINY_URDF = '''<?xml version="1.0"?>
<robot name="tiny">
  <link name="base"/><link name="arm"/>
  <joint name="j" type="continuous"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/></joint>
</robot>'''


@pytest.fixture(scope='module')
def arm_model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


@pytest.fixture(scope='module')
def all_model(tmp_path_factory: pytest.TempPathFactory) -> RobotModel:
    text = (RESOURCES / 'all_joint_types.srdf').read_text(encoding='utf-8')
    srdf = tmp_path_factory.mktemp('srdf') / 'all_joint_types.srdf'
    srdf.write_text(text.replace('</robot>', MOBILE_GROUP), encoding='utf-8')
    return RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf', srdf)


@pytest.fixture(scope='module')
def tiny_model() -> RobotModel:
    return RobotModel.from_urdf_string(TINY_URDF)


def random_state(model: RobotModel, seed: int = SEED) -> RobotState:
    state = RobotState(model, rng=seed)
    state.set_to_random_positions()
    return state


def mimic_consistent(state: RobotState) -> bool:
    q = np.array(state.positions)
    return bool(np.allclose(state.robot_model.apply_mimic(q.copy()), q, rtol=0.0, atol=TOL))


def assert_pose_close(A: np.ndarray, B: np.ndarray, tol: float) -> None:
    np.testing.assert_allclose(A[:3, 3], B[:3, 3], atol=tol, rtol=0.0)
    assert np.linalg.norm(rotation_log(A[:3, :3] @ B[:3, :3].T)) < tol


# ------------------------------------------------------------------------------ construction


def test_new_state_holds_defaults_and_no_dynamics(all_model: RobotModel) -> None:
    state = RobotState(all_model)
    np.testing.assert_array_equal(state.positions, all_model.default_positions)
    assert not state.has_velocities() and not state.has_accelerations()
    assert not state.has_effort()
    assert state.robot_model is all_model
    assert state.variable_count == all_model.nq
    assert state.variable_names == all_model.variable_names
    assert state.velocity_names[:6] == ('float/wx', 'float/wy', 'float/wz', 'float/vx',
                                        'float/vy', 'float/vz')
    assert len(state.velocities) == all_model.nv
    assert state.dirty


def test_constructor_rejects_a_non_model() -> None:
    with pytest.raises(InvalidArgumentError):
        RobotState(object())  # type: ignore[arg-type]


def test_model_lookups(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    assert state.get_joint_model('elbow_joint').name == 'elbow_joint'
    assert state.get_link_model('tool0').name == 'tool0'
    assert state.get_joint_model_group('arm').tip_link == 'tool0'
    with pytest.raises(UnknownNameError, match='elbow_joint'):
        state.get_joint_model('elbow_jiont')


def test_defaults_are_zero_or_mid_range(all_model: RobotModel) -> None:
    state = random_state(all_model)
    state.zero_velocities()
    state.set_variable_velocity('rev', 0.5)
    state.set_to_default_values()
    assert state.get_variable_position('rev') == pytest.approx(1.25)  # 0 outside [0.5, 2]
    assert state.get_variable_position('slide') == 0.0  # 0 inside [-0.1, 0.3]
    np.testing.assert_array_equal(state.get_joint_positions('float')[3:], [0, 0, 0, 1])
    assert mimic_consistent(state)
    assert state.has_velocities()  # flags are kept, values zeroed (MoveIt)
    assert not state.velocities.any()


def test_named_states(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    before = state.positions.copy()
    assert state.set_to_default_values('arm', 'home')
    assert state.get_variable_position('elbow_joint') == 2.5
    assert state.get_variable_position('shoulder_lift_joint') == -0.2
    np.testing.assert_array_equal(state.get_joint_positions('base_joint'),
                                  before[:3])  # other groups untouched
    assert state.set_to_default_values('gripper', 'open')
    assert state.get_variable_position('right_finger_joint') == pytest.approx(-0.04)
    q = state.positions.copy()
    assert not state.set_to_default_values('arm', 'no_such_state')
    np.testing.assert_array_equal(state.positions, q)
    with pytest.raises(UnknownNameError):
        state.set_to_default_values('no_such_group', 'home')
    with pytest.raises(InvalidArgumentError):
        state.set_to_default_values('arm')


# ------------------------------------------------------------------------------ mimic


SETTERS: dict[str, Callable[[RobotState], object]] = {
    'full array': lambda s: s.set_variable_positions(np.full(s.variable_count, 0.02)),
    'mapping': lambda s: s.set_variable_positions({'finger_a_joint': 0.03}),
    'names and values': lambda s: s.set_variable_positions(['finger_a_joint', 'rev'],
                                                           [0.01, 1.0]),
    'by name': lambda s: s.set_variable_position('finger_a_joint', 0.035),
    'by index': lambda s: s.set_variable_position(
        s.robot_model.variable_index('finger_a_joint'), 0.025),
    'joint': lambda s: s.set_joint_positions('finger_a_joint', [0.015]),
    'group (with mimic values)': lambda s: s.set_joint_group_positions('fingers',
                                                                       [0.02, 9.0, 9.0]),
    'group active': lambda s: s.set_joint_group_active_positions('fingers', [0.005]),
    'random': lambda s: s.set_to_random_positions(),
    'random group': lambda s: s.set_to_random_positions('fingers'),
    'random near by': lambda s: s.set_to_random_positions_near_by('fingers', s.copy(), 0.01),
    'default': lambda s: s.set_to_default_values(),
    'interpolate into': lambda s: random_state(s.robot_model, 3).interpolate(
        random_state(s.robot_model, 4), 0.3, s),
    'enforce bounds': lambda s: _enforce_bounds(s),
    'harmonize': lambda s: s.harmonize_positions(),
    'copy_from': lambda s: s.copy_from(random_state(s.robot_model, 5)),
    'integrate velocity': lambda s: s.integrate_variable_velocity('fingers', [0.1], 0.1),
    'variable values': lambda s: s.set_variable_values(['finger_a_joint'], [0.012]),
    'joint pose': lambda s: s.set_joint_pose('finger_a_joint', pose_from_xyz_rpy(
        [0, 0.02, 0], [0, 0, 0])),
}


def _enforce_bounds(s: RobotState) -> None:
    s.set_variable_position('finger_a_joint', 1.0)
    s.enforce_bounds()


def _joint_context_setter(s: RobotState) -> None:
    with s.joint_context() as ctx:
        ctx.positions[s.robot_model.variable_index('finger_a_joint')] = 0.033


SETTERS['joint context'] = _joint_context_setter


@pytest.mark.parametrize('setter', list(SETTERS.values()), ids=list(SETTERS))
def test_mimic_joints_follow_their_source_after_every_setter(
        all_model: RobotModel, setter: Callable[[RobotState], object]) -> None:
    state = random_state(all_model)
    setter(state)
    assert mimic_consistent(state)
    a = state.get_variable_position('finger_a_joint')
    b = state.get_variable_position('finger_b_joint')
    assert b == pytest.approx(2.0 * a + 0.01, abs=TOL)
    assert state.get_variable_position('finger_c_joint') == pytest.approx(-0.5 * b + 0.2,
                                                                          abs=TOL)


def test_values_given_for_mimic_variables_are_overwritten(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_positions({'left_finger_joint': 0.03, 'right_finger_joint': 0.5})
    assert state.get_variable_position('right_finger_joint') == pytest.approx(-0.03)
    state.set_joint_group_positions('gripper', [0.01, 0.9])
    assert state.get_variable_position('right_finger_joint') == pytest.approx(-0.01)


def test_mimic_velocities_follow_by_the_multiplier(all_model: RobotModel) -> None:
    state = RobotState(all_model)
    state.set_variable_velocities({'finger_a_joint': 0.1})
    assert state.get_variable_velocity('finger_b_joint') == pytest.approx(0.2)
    assert state.get_variable_velocity('finger_c_joint') == pytest.approx(-0.1)


# ------------------------------------------------------------------------------ names, shapes


def test_unknown_names_raise_with_a_suggestion(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    for call in (lambda: state.set_variable_positions({'elbow_jiont': 1.0}),
                 lambda: state.set_variable_positions(['elbow_jiont'], [1.0]),
                 lambda: state.set_variable_position('elbow_jiont', 1.0),
                 lambda: state.get_variable_position('elbow_jiont'),
                 lambda: state.set_variable_velocities({'elbow_jiont': 1.0}),
                 lambda: state.get_variable_effort('elbow_jiont'),
                 lambda: state.set_joint_positions('elbow_jiont', [1.0])):
        with pytest.raises(UnknownNameError, match="did you mean 'elbow_joint'"):
            call()
    with pytest.raises(UnknownNameError, match='group'):
        state.get_joint_group_positions('amr')
    assert not state.has_velocities()  # the failed velocity set marked nothing


def test_unknown_names_are_skipped_in_ignore_mode(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_positions(['bogus', 'elbow_joint'], [5.0, 1.0], unknown='ignore')
    state.set_variable_velocities({'bogus': 5.0, 'elbow_joint': 0.5}, unknown='ignore')
    assert state.get_variable_position('elbow_joint') == 1.0
    assert state.get_variable_velocity('elbow_joint') == 0.5
    assert state.velocities.sum() == 0.5


def test_index_accessors_check_the_range(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_position(3, 0.2)
    assert state.get_variable_position(3) == 0.2
    for bad in (arm_model.nq, -1):
        with pytest.raises(IndexError):
            state.get_variable_position(bad)


def test_bad_values_raise(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    with pytest.raises(InvalidArgumentError, match='shape'):
        state.set_variable_positions(np.zeros(arm_model.nq + 1))
    with pytest.raises(InvalidArgumentError, match='finite'):
        state.set_variable_positions({'elbow_joint': math.nan})
    with pytest.raises(InvalidArgumentError):
        state.set_variable_position('elbow_joint', math.inf)
    with pytest.raises(InvalidArgumentError):
        state.set_joint_group_positions('arm', np.zeros(5))
    with pytest.raises(InvalidArgumentError):
        state.set_joint_group_active_positions('gripper', [0.0, 0.0])
    with pytest.raises(InvalidArgumentError):
        state.set_variable_positions(['elbow_joint'], [1.0, 2.0])
    with pytest.raises(RobotStateCoreError):  # the catch-all of ROS callbacks
        state.set_variable_positions({'nope': 1.0})


def test_array_views_are_read_only(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    for view in (state.positions, state.velocities, state.accelerations, state.efforts,
                 state.get_link_poses(), state.get_global_link_transform('tool0'),
                 state.get_collision_body_transforms()):
        with pytest.raises(ValueError, match='read-only'):
            view[...] = 0.0


def test_missing_variables_exclude_mimic_ones(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    missing = state.get_missing_variables(['elbow_joint', 'base_joint/x'])
    assert 'elbow_joint' not in missing and 'right_finger_joint' not in missing
    assert 'left_finger_joint' in missing and 'base_joint/theta' in missing


# ------------------------------------------------------------------------------ dynamics


def test_velocity_bookkeeping(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_velocity('elbow_joint', 0.3)
    assert state.has_velocities()
    assert state.velocities.sum() == pytest.approx(0.3)  # first set zero-fills
    state.invert_velocity()
    assert state.get_variable_velocity('elbow_joint') == pytest.approx(-0.3)
    state.drop_velocities()
    assert not state.has_velocities()
    state.invert_velocity()  # absent: nothing happens
    state.set_variable_velocity('shoulder_pan_joint', 1.0)  # zero-fills again
    assert state.get_variable_velocity('elbow_joint') == 0.0
    state.zero_velocities()
    assert state.has_velocities() and not state.velocities.any()


def test_accelerations_and_efforts_share_memory(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_accelerations({'elbow_joint': 2.0})
    assert state.has_accelerations() and not state.has_effort()
    assert not state.set_joint_efforts('elbow_joint', [1.0])  # refused (E13)
    assert state.get_variable_acceleration('elbow_joint') == 2.0
    state.set_variable_effort('elbow_joint', 4.0)  # switches the buffer, zero-filled
    assert state.has_effort() and not state.has_accelerations()
    assert state.get_variable_effort('elbow_joint') == 4.0
    assert state.efforts.sum() == 4.0
    assert state.set_joint_efforts('shoulder_pan_joint', [1.5])
    np.testing.assert_array_equal(state.get_joint_efforts('shoulder_pan_joint'), [1.5])
    state.zero_accelerations()
    assert state.has_accelerations() and not state.has_effort()
    state.zero_effort()
    assert state.has_effort() and not state.has_accelerations()
    state.set_joint_group_accelerations('arm', np.arange(6.0))
    np.testing.assert_array_equal(state.get_joint_group_accelerations('arm'), np.arange(6.0))
    state.drop_dynamics()
    assert not (state.has_velocities() or state.has_accelerations() or state.has_effort())


def test_velocities_by_velocity_variable_name(all_model: RobotModel) -> None:
    state = RobotState(all_model)
    state.set_variable_velocities(['float/wz', 'rpy/vx', 'plane/theta'], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(state.get_joint_velocities('float'), [0, 0, 1, 0, 0, 0])
    assert state.get_variable_velocity('rpy/vx') == 2.0
    with pytest.raises(UnknownNameError):  # a position name, not a velocity name
        state.set_variable_velocity('float/rot_w', 1.0)
    state.set_joint_velocities('plane', [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(state.get_joint_velocities('plane'), [0.1, 0.2, 0.3])
    state.set_joint_group_velocities('fingers', [0.1, 5.0, 5.0])
    np.testing.assert_allclose(state.get_joint_group_velocities('fingers'), [0.1, 0.2, -0.1])


def test_set_variable_values_is_a_joint_state(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_values(['elbow_joint', 'lift_joint'], [1.0, 0.1], [0.5, 0.0])
    assert state.get_variable_position('lift_joint') == 0.1
    assert state.get_variable_velocity('elbow_joint') == 0.5
    other = RobotState(arm_model)
    other.set_variable_values(['elbow_joint'], [1.0])
    assert not other.has_velocities()


# ------------------------------------------------------------------------------ joints, groups


@pytest.mark.parametrize('joint', ['float', 'rpy', 'plane', 'rev', 'cont', 'slide'])
def test_joint_pose_round_trip(all_model: RobotModel, joint: str) -> None:
    state = random_state(all_model)
    X = state.get_joint_pose(joint)
    j = all_model.joint_index(joint)
    X_WP = state.get_global_link_transform(all_model.joint_parent_link[j])
    X_WC = state.get_global_link_transform(all_model.joint_child_link[j])
    np.testing.assert_allclose(X_WP @ all_model.joint_origins[j] @ X, X_WC, atol=1e-12)
    other = RobotState(all_model)
    other.set_joint_pose(joint, X)
    np.testing.assert_allclose(other.get_joint_pose(joint), X, atol=1e-12)


def test_joint_pose_projects_onto_the_joint_motion(all_model: RobotModel) -> None:
    state = RobotState(all_model)
    X = pose_from_xyz_rpy([0.1, 0.2, 0.3], [0.0, 0.0, 0.4])
    state.set_joint_pose('plane', X)  # planar about z: x, y and theta survive
    np.testing.assert_allclose(state.get_joint_positions('plane'), [0.1, 0.2, 0.4])
    state.set_joint_pose('slide', X)  # prismatic along z
    assert state.get_variable_position('slide') == pytest.approx(0.3)
    with pytest.raises(InvalidArgumentError):
        state.set_joint_pose('tool_joint', np.eye(4))
    with pytest.raises(InvalidArgumentError):
        state.set_joint_pose('plane', np.eye(3))


def test_joint_context_drives_drake_style_joints(all_model: RobotModel) -> None:
    state = RobotState(all_model)
    rpy = all_model.rpy_floating_joint('rpy')
    X_FM = pose_from_xyz_rpy([0.3, -0.2, 0.1], [0.2, -0.3, 0.4])
    before = state.get_global_link_transform('rpy_body').copy()
    with state.joint_context() as ctx:
        rpy.set_pose(ctx, X_FM)
        rpy.set_angular_velocity(ctx, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(state.get_joint_pose('rpy'), X_FM, atol=1e-12)
    np.testing.assert_allclose(rpy.get_pose(state), X_FM, atol=1e-12)  # state as a context
    assert state.has_velocities()
    assert state.get_variable_velocity('rpy/wz') == 1.0
    after = state.get_global_link_transform('rpy_body')
    assert not np.allclose(before, after)  # FK was invalidated
    np.testing.assert_allclose(after, kinematics.forward_kinematics(
        all_model, state.positions)[all_model.link_index('rpy_body')], atol=TOL)
    q = state.positions.copy()

    def abort() -> None:
        with state.joint_context() as ctx:
            rpy.set_translation(ctx, [9.0, 9.0, 9.0])
            raise RuntimeError('abort')

    with pytest.raises(RuntimeError):
        abort()
    np.testing.assert_array_equal(state.positions, q)  # discarded


def test_group_access_in_group_order(all_model: RobotModel) -> None:
    state = random_state(all_model)
    g = all_model.group('everything')
    np.testing.assert_array_equal(state.get_joint_group_positions(g),
                                  state.positions[g.variable_indices])
    values = np.linspace(0.0, 0.3, g.active_variable_count)
    state.set_joint_group_active_positions('everything', values)
    np.testing.assert_array_equal(state.get_joint_group_active_positions('everything'),
                                  values)
    out = state.get_joint_group_positions('everything')
    out[:] = 7.0  # a copy
    assert not np.any(state.positions == 7.0)
    with pytest.raises(ModelMismatchError):
        state.get_joint_group_positions(RobotModel.from_urdf_file(
            default_robot_urdf_path(), default_robot_srdf_path()).group('arm'))


# ------------------------------------------------------------------------------ copies


def test_copy_is_independent(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    state.zero_velocities()
    state.attach_body('box', 'tool0', [Box(0.1, 0.1, 0.1)])
    for dup in (state.copy(), copy.copy(state), copy.deepcopy(state)):
        np.testing.assert_array_equal(dup.positions, state.positions)
        np.testing.assert_array_equal(dup.get_link_poses(), state.get_link_poses())
        assert dup.has_velocities() and dup.has_attached_body('box')
        dup.set_variable_position('elbow_joint', 0.1)
        dup.set_variable_velocity('elbow_joint', 1.0)
        dup.clear_attached_body('box')
        assert state.get_variable_position('elbow_joint') != 0.1
        assert state.get_variable_velocity('elbow_joint') == 0.0
        assert state.has_attached_body('box')
        assert not np.allclose(dup.get_global_link_transform('tool0'),
                               state.get_global_link_transform('tool0'))


def test_copy_from_copies_everything(arm_model: RobotModel) -> None:
    source = random_state(arm_model, 1)
    source.set_variable_accelerations(np.ones(arm_model.nv))
    source.attach_body('ball', 'tool0', [Sphere(0.05)])
    target = random_state(arm_model, 2)
    poses = target.get_link_poses()
    snapshot = poses.copy()
    target.copy_from(source)
    np.testing.assert_array_equal(target.positions, source.positions)
    np.testing.assert_array_equal(target.get_link_poses(), source.get_link_poses())
    assert target.has_accelerations() and target.has_attached_body('ball')
    np.testing.assert_array_equal(poses, snapshot)  # views handed out earlier do not change


def test_states_of_different_models_do_not_mix(arm_model: RobotModel) -> None:
    twin = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    a, b = RobotState(arm_model), RobotState(twin)
    with pytest.raises(ModelMismatchError):
        a.copy_from(b)
    with pytest.raises(ModelMismatchError):
        a.interpolate(b, 0.5)
    with pytest.raises(ModelMismatchError):
        a.interpolate(a, 0.5, b)
    with pytest.raises(ModelMismatchError):
        a.distance(b)
    with pytest.raises(ModelMismatchError):
        a.set_to_random_positions_near_by('arm', b, 0.1)


# ------------------------------------------------------------------------------ random


def test_random_positions_are_seedable_and_within_bounds(all_model: RobotModel) -> None:
    a, b = random_state(all_model, 11), random_state(all_model, 11)
    np.testing.assert_array_equal(a.positions, b.positions)
    assert a.satisfies_bounds()
    c = random_state(all_model, 12)
    assert not np.array_equal(a.positions, c.positions)
    rng = np.random.default_rng(3)
    d = RobotState(all_model)
    d.set_to_random_positions('arm', rng)
    g = all_model.group('arm')
    outside = np.setdiff1d(np.arange(all_model.nq), g.variable_indices)
    np.testing.assert_array_equal(d.positions[outside], all_model.default_positions[outside])


def test_random_near_by_stays_within_distance(arm_model: RobotModel) -> None:
    near = random_state(arm_model, 21)
    near.set_to_default_values('arm', 'ready')
    state = random_state(arm_model, 22)
    base_before = state.get_joint_positions('base_joint')
    g = arm_model.group('arm')
    distances = np.array([0.05, 0.1, 0.2, 0.3, 0.4, 0.5])
    for distance in (0.1, distances):
        for _ in range(20):
            state.set_to_random_positions_near_by('arm', near, distance)
            d = np.abs(kinematics.difference(arm_model, near.positions, state.positions))
            assert np.all(d[g.active_variable_indices] <= np.broadcast_to(distance, 6) + TOL)
            assert state.satisfies_bounds('arm')
    np.testing.assert_array_equal(state.get_joint_positions('base_joint'), base_before)
    with pytest.raises(InvalidArgumentError):
        state.set_to_random_positions_near_by('arm', near, [0.1, 0.2])
    with pytest.raises(InvalidArgumentError):
        state.set_to_random_positions_near_by('arm', near, -0.1)


# ------------------------------------------------------------------------------ bounds


def test_enforce_bounds_clamps_and_wraps_continuous_joints(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_positions({'wrist_roll_joint': 4.0, 'elbow_joint': 3.0})
    state.set_variable_velocity('elbow_joint', 100.0)
    assert state.satisfies_position_bounds('arm', margin=0.5)  # margin widens; roll unbounded
    assert not state.satisfies_position_bounds('arm')
    assert not state.satisfies_velocity_bounds()
    assert not state.satisfies_bounds()
    state.enforce_bounds()
    assert state.get_variable_position('wrist_roll_joint') == pytest.approx(4.0 - 2 * math.pi)
    assert state.get_variable_position('elbow_joint') == 2.6
    assert state.get_variable_velocity('elbow_joint') == 2.5
    assert state.satisfies_bounds()


def test_velocity_bounds_only_count_when_present(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_velocity('elbow_joint', 100.0)
    state.drop_velocities()
    assert state.satisfies_bounds()
    state.enforce_bounds()  # does not touch absent velocities


def test_harmonize_positions(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_positions({'forearm_roll_joint': 2 * math.pi + 0.5})  # bounds ±3
    state.harmonize_positions('arm')
    assert state.get_variable_position('forearm_roll_joint') == pytest.approx(0.5)


def test_min_distance_to_position_bounds(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_to_default_values('arm', 'home')  # elbow 2.5 of 2.6
    distance, joint = state.get_min_distance_to_position_bounds('arm')
    assert joint == 'elbow_joint'
    assert distance == pytest.approx(0.1)


def test_distance_takes_the_shortest_arc(arm_model: RobotModel) -> None:
    a, b = RobotState(arm_model), RobotState(arm_model)
    a.set_variable_positions({'wrist_roll_joint': 3.0, 'elbow_joint': 0.5})
    b.set_variable_positions({'wrist_roll_joint': -3.0, 'elbow_joint': -0.5})
    assert a.distance(b, 'arm') == pytest.approx(2 * math.pi - 6.0 + 1.0)
    assert a.distance(b) == pytest.approx(a.distance(b, 'arm'))
    assert a.distance(a) == 0.0


def test_interpolation_wraps_and_reaches_the_end_exactly(arm_model: RobotModel) -> None:
    a, b = random_state(arm_model, 31), random_state(arm_model, 32)
    a.set_variable_position('wrist_roll_joint', 3.0)
    b.set_variable_position('wrist_roll_joint', -3.0)
    mid = a.interpolate(b, 0.5)
    assert abs(mid.get_variable_position('wrist_roll_joint')) == pytest.approx(math.pi)
    end = a.interpolate(b, 1.0)
    np.testing.assert_array_equal(end.positions, b.positions)
    np.testing.assert_array_equal(a.interpolate(b, 0.0).positions, a.positions)
    out = RobotState(arm_model)
    assert a.interpolate(b, 0.25, out) is out
    assert mimic_consistent(out)
    with pytest.raises(InvalidArgumentError):
        a.interpolate(b, math.nan)
    with pytest.warns(RuntimeWarning, match='outside'):
        a.interpolate(b, 1.5)


def test_is_valid_velocity_move(arm_model: RobotModel) -> None:
    a, b = RobotState(arm_model), RobotState(arm_model)
    b.set_variable_position('elbow_joint', 0.5)  # limit 2.5 rad/s
    assert a.is_valid_velocity_move(b, 'arm', 0.2 + 1e-9)
    assert not a.is_valid_velocity_move(b, 'arm', 0.19)


# ------------------------------------------------------------------------------ kinematics


@pytest.mark.parametrize('which', ['arm_model', 'all_model'])
def test_link_poses_agree_with_forward_kinematics(which: str,
                                                  request: pytest.FixtureRequest) -> None:
    model: RobotModel = request.getfixturevalue(which)
    state = RobotState(model, rng=SEED)
    for _ in range(5):
        state.set_to_random_positions()
        X_WL = kinematics.forward_kinematics(model, state.positions)
        np.testing.assert_allclose(state.get_link_poses(), X_WL, atol=TOL)
        for i, name in enumerate(model.link_names):
            np.testing.assert_allclose(state.get_global_link_transform(name), X_WL[i],
                                       atol=TOL)
            np.testing.assert_allclose(state.get_frame_transform(name), X_WL[i], atol=TOL)
            for k, c in enumerate(model.links[i].collisions):
                np.testing.assert_allclose(state.get_collision_body_transform(name, k),
                                           X_WL[i] @ c.origin, atol=TOL)


def test_collision_body_index_is_checked(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    with pytest.raises(IndexError):
        state.get_collision_body_transform('tool0', 0)
    assert state.get_collision_body_transforms().shape == (
        sum(len(link.collisions) for link in arm_model.links), 4, 4)


def test_dirty_flags_and_update(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    assert state.dirty and state.dirty_link_transforms
    assert state.dirty_joint_transform('elbow_joint')
    state.get_global_link_transform('tool0')
    assert not state.dirty_link_transforms and state.dirty_collision_body_transforms
    state.update()
    assert not state.dirty
    state.set_variable_velocity('elbow_joint', 1.0)  # velocities do not move links
    assert not state.dirty
    state.set_variable_position('elbow_joint', 1.0)
    assert state.dirty and state.dirty_link_transforms
    assert 'True' in state.dirty_info()
    state.update_link_transforms()
    assert not state.dirty_link_transforms and state.dirty
    state.update_collision_body_transforms()
    assert not state.dirty
    state.update(force=True)
    assert not state.dirty


def test_every_getter_is_fresh_after_a_setter(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    state.attach_body('obj', 'tool0', [Box(0.1, 0.1, 0.1)], subframes={'tip': np.eye(4)})
    before = {'tool0': state.get_global_link_transform('tool0').copy(),
              'obj': state.get_frame_transform('obj').copy(),
              'obj/tip': state.get_frame_transform('obj/tip').copy(),
              'aabb': state.compute_aabb(), 'J': state.get_jacobian('arm')}
    state.set_variable_position('shoulder_pan_joint', state.get_variable_position(
        'shoulder_pan_joint') + 0.3)
    X_WL = kinematics.forward_kinematics(arm_model, state.positions)
    tool0 = X_WL[arm_model.link_index('tool0')]
    np.testing.assert_allclose(state.get_global_link_transform('tool0'), tool0, atol=TOL)
    np.testing.assert_allclose(state.get_frame_transform('obj'), tool0, atol=TOL)
    np.testing.assert_allclose(state.get_frame_transform('obj/tip'), tool0, atol=TOL)
    for key in ('tool0', 'obj', 'obj/tip'):
        assert not np.allclose(state.get_frame_transform(key), before[key])
    assert not np.allclose(state.compute_aabb(), before['aabb'])
    assert not np.allclose(state.get_jacobian('arm'), before['J'])


def _fd_jacobian(state: RobotState, group: str, link: str, point: np.ndarray) -> np.ndarray:
    """Central differences of the point's position and the link's rotation, per column."""
    model = state.robot_model
    g = model.group(group)
    cols = kinematics.velocity_indices_of_joints(model, g.active_joint_indices)
    q = np.array(state.positions)
    li = model.link_index(link)
    out = np.zeros((6, cols.size))
    for k, col in enumerate(cols):
        dv = np.zeros(model.nv)
        dv[col] = FD_STEP
        poses = []
        for sign in (1.0, -1.0):
            qs = model.apply_mimic(kinematics.integrate(model, q, sign * dv))
            poses.append(kinematics.forward_kinematics(model, qs)[li])
        Xp, Xm = poses
        out[:3, k] = ((Xp[:3, :3] @ point + Xp[:3, 3]) - (Xm[:3, :3] @ point + Xm[:3, 3])) / (
            2 * FD_STEP)
        out[3:, k] = rotation_log(Xp[:3, :3] @ Xm[:3, :3].T) / (2 * FD_STEP)
    return out


@pytest.mark.parametrize(('which', 'group', 'link', 'point'), [
    ('arm_model', 'arm', None, (0.0, 0.0, 0.0)),
    ('arm_model', 'arm', 'tool0', (0.05, -0.02, 0.1)),
    ('arm_model', 'whole_body', 'tool0', (0.0, 0.0, 0.1)),
    ('all_model', 'mobile', 'tool', (0.02, 0.03, -0.01)),
    ('all_model', 'mobile', 'finger_c', (0.01, 0.0, 0.02)),
    ('all_model', 'everything', 'finger_b', (0.0, 0.0, 0.0)),
])
def test_jacobian_matches_finite_differences(which: str, group: str, link: str | None,
                                             point: tuple[float, float, float],
                                             request: pytest.FixtureRequest) -> None:
    model: RobotModel = request.getfixturevalue(which)
    state = RobotState(model, rng=SEED)
    for _ in range(3):
        state.set_to_random_positions()
        J = state.get_jacobian_in_model_frame(group, link, point)
        tip = link if link is not None else model.group(group).tip_link
        assert J.shape == (6, kinematics.velocity_indices_of_joints(
            model, model.group(group).active_joint_indices).size)
        np.testing.assert_allclose(J, _fd_jacobian(state, group, tip, np.asarray(point)),
                                   atol=FD_TOL, rtol=0.0)


def test_jacobian_of_a_group_without_tip_needs_a_link(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    with pytest.raises(InvalidArgumentError, match='tip'):
        state.get_jacobian('whole_body')


def test_compute_variable_velocity_realizes_the_twist(arm_model: RobotModel) -> None:
    state = random_state(arm_model, 41)
    state.set_to_default_values('arm', 'ready')
    twist = np.array([0.05, -0.02, 0.03, 0.1, -0.2, 0.05])
    qdot = state.compute_variable_velocity('arm', twist, damping=0.0)
    R_WT = state.get_global_link_transform('tool0')[:3, :3]
    J = state.get_jacobian_in_model_frame('arm')
    np.testing.assert_allclose(np.concatenate([R_WT.T @ (J @ qdot)[:3], R_WT.T @ (J @ qdot)[3:]]),
                               twist, atol=1e-10)
    damped = state.compute_variable_velocity('arm', twist)
    np.testing.assert_allclose(damped, qdot, atol=1e-3 * np.abs(qdot).max())


def test_set_from_diff_ik_moves_the_tip_along_the_twist(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_to_default_values('arm', 'ready')
    X0 = state.get_global_link_transform('tool0').copy()
    twist = np.array([0.1, 0.0, -0.05, 0.0, 0.0, 0.2])  # in the tip frame
    dt = 1e-3
    assert state.set_from_diff_ik('arm', twist, 'tool0', dt)
    X1 = state.get_global_link_transform('tool0')
    np.testing.assert_allclose(X1[:3, 3] - X0[:3, 3], X0[:3, :3] @ twist[:3] * dt, atol=1e-7)
    np.testing.assert_allclose(rotation_log(X0[:3, :3].T @ X1[:3, :3]), twist[3:] * dt,
                               atol=1e-7)
    assert not state.set_from_diff_ik('arm', twist, None, dt,
                                      validity_callback=lambda s, g, v: False)


def test_integrate_variable_velocity_enforces_bounds(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    seen: list[tuple[str, int]] = []

    def reject(candidate: RobotState, group: JointModelGroup, values: np.ndarray) -> bool:
        seen.append((group.name, values.size))
        return False

    assert not state.integrate_variable_velocity('arm', np.full(6, 10.0), 1.0, reject)
    assert seen == [('arm', 6)]
    assert state.get_variable_position('elbow_joint') == 2.6  # changed anyway (MoveIt)
    assert state.satisfies_bounds()


# ------------------------------------------------------------------------------ IK


def test_set_from_ik_reaches_a_reachable_pose(arm_model: RobotModel) -> None:
    goal = random_state(arm_model, 51)
    target = goal.get_global_link_transform('tool0').copy()
    state = RobotState(arm_model)
    state.set_to_default_values('arm', 'ready')
    for joint in ('base_joint', 'lift_joint'):  # IK solves the arm only
        state.set_joint_positions(joint, goal.get_joint_positions(joint))
    outside = state.get_joint_positions('left_finger_joint')
    assert state.set_from_ik('arm', target, timeout=1.0, options=IKOptions(random_seed=1))
    assert_pose_close(state.get_global_link_transform('tool0'), target, IK_TOL)
    np.testing.assert_array_equal(state.get_joint_positions('left_finger_joint'), outside)
    assert state.satisfies_bounds('arm')


def test_set_from_ik_failure_leaves_the_state_unchanged(arm_model: RobotModel) -> None:
    state = random_state(arm_model, 52)
    q = state.positions.copy()
    poses = state.get_link_poses().copy()
    far = pose_from_xyz_rpy([10.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert not state.set_from_ik('arm', far, timeout=0.05)
    np.testing.assert_array_equal(state.positions, q)
    np.testing.assert_array_equal(state.get_link_poses(), poses)
    assert not state.set_from_ik('arm', far, tip='no_such_frame')
    assert not state.set_from_ik('arm', [far, far], tip='tool0')  # one target per tip
    np.testing.assert_array_equal(state.positions, q)


def test_ik_validity_callback_vetoes(arm_model: RobotModel) -> None:
    goal = random_state(arm_model, 53)
    state = RobotState(arm_model)
    state.set_joint_positions('base_joint', goal.get_joint_positions('base_joint'))
    state.set_joint_positions('lift_joint', goal.get_joint_positions('lift_joint'))
    q = state.positions.copy()
    calls: list[int] = []

    def veto(candidate: RobotState, group: object, values: np.ndarray) -> bool:
        assert candidate is not state
        assert values.shape == (6,)
        calls.append(1)
        return False

    target = goal.get_global_link_transform('tool0').copy()
    assert not state.set_from_ik('arm', target, timeout=0.2, validity_callback=veto,
                                 options=IKOptions(random_seed=2))
    assert calls
    np.testing.assert_array_equal(state.positions, q)
    assert state.set_from_ik('arm', target, timeout=1.0, options=IKOptions(random_seed=2),
                             validity_callback=lambda s, g, v: bool(np.all(np.isfinite(v))))


def test_set_from_ik_with_several_tips(arm_model: RobotModel) -> None:
    goal = random_state(arm_model, 54)
    tips = ['tool0', 'lift_link']
    targets = [goal.get_global_link_transform(t).copy() for t in tips]
    state = RobotState(arm_model)
    assert state.set_from_ik('whole_body', targets, tips, timeout=2.0,
                             options=IKOptions(random_seed=3))
    for tip, target in zip(tips, targets, strict=True):
        assert_pose_close(state.get_global_link_transform(tip), target, IK_TOL)


def test_set_from_ik_with_a_subframe_tip(arm_model: RobotModel) -> None:
    X_LB = pose_from_xyz_rpy([0.0, 0.0, 0.08], [0.0, 0.0, 0.3])
    X_BF = pose_from_xyz_rpy([0.02, 0.0, 0.05], [0.0, 0.4, 0.0])
    goal = random_state(arm_model, 55)
    goal.attach_body('tool', 'tool0', [Cylinder(0.01, 0.1)], pose=X_LB,
                     subframes={'grasp': X_BF})
    target = goal.get_frame_transform('tool/grasp').copy()
    state = RobotState(arm_model)
    state.set_joint_positions('base_joint', goal.get_joint_positions('base_joint'))
    state.set_joint_positions('lift_joint', goal.get_joint_positions('lift_joint'))
    state.attach_body(goal.get_attached_body('tool'))  # type: ignore[arg-type]
    assert state.set_from_ik('arm', target, 'tool/grasp', timeout=1.0,
                             options=IKOptions(random_seed=4))
    assert_pose_close(state.get_frame_transform('tool/grasp'), target, IK_TOL)


# ------------------------------------------------------------------------------ attached bodies


def test_attach_query_and_clear(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    events: list[tuple[str, bool]] = []
    state.set_attached_body_update_callback(lambda b, attached: events.append((b.name,
                                                                               attached)))
    posture = DetachPosture(('left_finger_joint',), (0.04,))
    box = state.attach_body('box', 'tool0', [Box(0.1, 0.2, 0.3)], touch_links=['tcp'],
                            detach_posture=posture)
    state.attach_body('ball', 'base_link', [Sphere(0.1)])
    assert box.touch_links == frozenset({'tcp'}) and box.detach_posture is posture
    assert state.has_attached_body('box') and state.get_attached_body('box') is box
    assert state.get_attached_body('nope') is None
    assert [b.name for b in state.get_attached_bodies()] == ['box', 'ball']
    assert [b.name for b in state.get_attached_bodies('tool0')] == ['box']
    assert [b.name for b in state.get_attached_bodies(group='arm')] == ['box']
    assert not state.clear_attached_body('nope')
    assert state.clear_attached_body('box')
    assert not state.has_attached_body('box')
    state.clear_attached_bodies()
    assert state.get_attached_bodies() == []
    assert events == [('box', True), ('ball', True), ('box', False), ('ball', False)]
    with pytest.raises(UnknownNameError):
        state.attach_body('x', 'no_link', [Sphere(0.1)])


def test_attach_replaces_a_body_with_the_same_name(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.attach_body('obj', 'tool0', [Sphere(0.1)])
    state.attach_body('obj', 'base_link', [Sphere(0.2)])
    assert [b.link for b in state.get_attached_bodies()] == ['base_link']


def test_clear_attached_bodies_by_link(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.attach_body('a', 'tool0', [Sphere(0.1)])
    state.attach_body('b', 'base_link', [Sphere(0.1)])
    state.clear_attached_bodies('tool0')
    assert [b.name for b in state.get_attached_bodies()] == ['b']
    state.attach_body('a', 'tool0', [Sphere(0.1)])
    state.clear_attached_bodies(group='arm')
    assert [b.name for b in state.get_attached_bodies()] == ['b']


def test_attached_body_poses_and_subframes(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    X_LB = pose_from_xyz_rpy([0.0, 0.01, 0.1], [0.1, 0.0, 0.2])
    X_BS = np.stack([pose_from_xyz_rpy([0.0, 0.0, 0.05], [0.0, 0.0, 0.0]),
                     pose_from_xyz_rpy([0.03, 0.0, 0.0], [0.0, 1.0, 0.0])])
    X_BF = pose_from_xyz_rpy([0.0, 0.0, 0.2], [math.pi, 0.0, 0.0])
    body = state.attach_body('obj', 'tool0', [Box(0.1, 0.1, 0.1), Cylinder(0.02, 0.1)],
                             shape_poses=X_BS, pose=X_LB, subframes={'tip': X_BF})
    np.testing.assert_allclose(body.shape_poses_in_link_frame, X_LB @ X_BS)
    assert body.subframe_names == ('tip',)
    for _ in range(3):
        state.set_to_random_positions()
        X_WL = kinematics.forward_kinematics(arm_model, state.positions)[
            arm_model.link_index('tool0')]
        poses = state.get_attached_body_poses('obj')
        assert poses is not None
        np.testing.assert_allclose(poses.X_WB, X_WL @ X_LB, atol=TOL)
        np.testing.assert_allclose(poses.X_WS, X_WL @ X_LB @ X_BS, atol=TOL)
        np.testing.assert_allclose(state.get_frame_transform('obj'), X_WL @ X_LB, atol=TOL)
        np.testing.assert_allclose(state.get_frame_transform('obj/tip'), X_WL @ X_LB @ X_BF,
                                   atol=TOL)
        np.testing.assert_allclose(state.get_frame_transform('/obj/tip'),
                                   X_WL @ X_LB @ X_BF, atol=TOL)
    assert state.get_attached_body_poses('nope') is None


def test_frame_lookup(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    state.attach_body('obj', 'tool0', [Sphere(0.01)], subframes={'tip': np.eye(4)})
    assert state.knows_frame_transform('obj/tip') and state.knows_frame_transform('obj')
    assert state.knows_frame_transform('tool0') and state.knows_frame_transform('/world')
    assert not state.knows_frame_transform('obj/nope')
    info = state.get_frame_info('nope')
    assert not info.found and info.link == ''
    np.testing.assert_array_equal(info.X_WF, np.eye(4))
    # MoveIt getFrameInfo reports the link the body is attached to (tool0), not its rigidly
    # connected parent (wrist_roll_link, see get_rigidly_connected_parent_link).
    info = state.get_frame_info('obj/tip')
    assert info.found and info.link == 'tool0'
    assert state.get_frame_info('tool0').link == 'tool0'
    with pytest.raises(UnknownNameError, match="did you mean 'obj/tip'"):
        state.get_frame_transform('obj/tpi')
    np.testing.assert_array_equal(state.get_frame_transform(arm_model.model_frame), np.eye(4))


def test_rigidly_connected_parent_link(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.attach_body('obj', 'tcp', [Sphere(0.01)], subframes={'tip': np.eye(4)})
    assert state.get_rigidly_connected_parent_link('tool0') == 'wrist_roll_link'
    assert state.get_rigidly_connected_parent_link('camera_optical_frame') == 'base_link'
    assert state.get_rigidly_connected_parent_link('elbow_link' if arm_model.has_link(
        'elbow_link') else 'forearm_link') == 'forearm_link'
    assert state.get_rigidly_connected_parent_link('world') == 'world'
    assert state.get_rigidly_connected_parent_link('obj') == 'wrist_roll_link'
    assert state.get_rigidly_connected_parent_link('obj/tip') == 'wrist_roll_link'
    for bad in ('nope', 'obj/nope'):
        with pytest.raises(UnknownNameError):
            state.get_rigidly_connected_parent_link(bad)


def test_attached_body_validation() -> None:
    with pytest.raises(InvalidArgumentError):
        AttachedBody.create('b', 'l', [Sphere(0.1)], shape_poses=np.zeros((2, 4, 4)))
    with pytest.raises(InvalidArgumentError):
        AttachedBody.create('', 'l')
    with pytest.raises(InvalidArgumentError):
        AttachedBody.create('b', 'l', [Sphere(0.1)], pose=np.eye(3))
    with pytest.raises(InvalidArgumentError):
        AttachedBody.create('b', 'l', ['not a shape'])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError):
        DetachPosture(('a', 'b'), (1.0,))
    body = AttachedBody.create('b', 'l', [Sphere(0.1)], subframes={'s': np.eye(4)})
    with pytest.raises(ValueError, match='read-only'):
        body.pose[0, 0] = 2.0
    with pytest.raises(TypeError):
        body.subframes['t'] = np.eye(4)  # type: ignore[index]


# ------------------------------------------------------------------------------ bounding boxes


def _rotation(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return pose_from_xyz_rpy(rng.uniform(-1, 1, 3), rng.uniform(-math.pi, math.pi, 3))


def _circle(radius: float, z: float) -> np.ndarray:
    a = np.linspace(0.0, 2 * math.pi, AABB_SAMPLES)
    return np.stack([radius * np.cos(a), radius * np.sin(a), np.full_like(a, z)], axis=1)


def _sphere_points(radius: float) -> np.ndarray:
    rng = np.random.default_rng(0)
    g = rng.normal(size=(AABB_SAMPLES * 8, 3))
    points: np.ndarray = radius * g / np.linalg.norm(g, axis=1, keepdims=True)
    return points


SAMPLED_SHAPES: dict[str, tuple[Shape, np.ndarray]] = {
    'box': (Box(0.3, 0.2, 0.1), np.array([[x, y, z] for x in (-0.15, 0.15)
                                            for y in (-0.1, 0.1) for z in (-0.05, 0.05)])),
    'cylinder': (Cylinder(0.1, 0.4), np.concatenate([_circle(0.1, -0.2), _circle(0.1, 0.2)])),
    'cone': (Cone(0.1, 0.4), np.concatenate([_circle(0.1, -0.2), [[0.0, 0.0, 0.2]]])),
    'capsule': (Capsule(0.05, 0.3), np.concatenate([
        _sphere_points(0.05) + np.array([0.0, 0.0, 0.15]),
        _sphere_points(0.05) - np.array([0.0, 0.0, 0.15])])),
}


@pytest.mark.parametrize('kind', list(SAMPLED_SHAPES))
def test_shape_boxes_are_exact_under_rotation(kind: str) -> None:
    shape, points = SAMPLED_SHAPES[kind]
    extents = ShapeExtents.from_shapes([shape])
    for seed in range(5):
        X = _rotation(seed)
        world = points @ X[:3, :3].T + X[:3, 3]
        box = aabb_of_shapes(extents, X[None])
        expected = np.stack([world.min(axis=0), world.max(axis=0)], axis=1).reshape(6)
        tol = TOL if kind == 'box' else AABB_SAMPLE_TOL
        assert np.all(box[0::2] <= expected[0::2] + TOL)  # contains every sample
        assert np.all(box[1::2] >= expected[1::2] - TOL)
        np.testing.assert_allclose(box, expected, atol=tol)  # and is tight


def test_compute_aabb_exact_simple_cases(tiny_model: RobotModel) -> None:
    state = RobotState(tiny_model)
    np.testing.assert_array_equal(state.compute_aabb(), np.zeros(6))  # no geometry
    R45 = pose_from_xyz_rpy([0.0, 0.0, 0.0], [0.0, 0.0, math.pi / 4])
    state.attach_body('box', 'arm', [Box(2.0, 1.0, 1.0)], pose=R45)
    c = math.sqrt(0.5)
    np.testing.assert_allclose(state.compute_aabb(),
                               [-1.5 * c, 1.5 * c, -1.5 * c, 1.5 * c, -0.5, 0.5], atol=TOL)
    state.set_variable_position('j', math.pi / 4)  # the link turns the box to 90 degrees
    np.testing.assert_allclose(state.compute_aabb(), [-0.5, 0.5, -1, 1, -0.5, 0.5], atol=TOL)
    state.clear_attached_bodies()
    state.attach_body('ball', 'base', [Sphere(0.5)], pose=pose_from_xyz_rpy([1, 2, 3],
                                                                            [0, 0, 0]))
    state.attach_body('can', 'base', [Cylinder(0.1, 2.0)],
                      pose=pose_from_xyz_rpy([0, 0, 0], [math.pi / 2, 0, 0]))
    np.testing.assert_allclose(state.compute_aabb(), [-0.1, 1.5, -1.0, 2.5, -0.1, 3.5],
                               atol=TOL)
    np.testing.assert_allclose(state.compute_attached_body_aabb('can'),
                               [-0.1, 0.1, -1.0, 1.0, -0.1, 0.1], atol=TOL)
    with pytest.raises(UnknownNameError):
        state.compute_attached_body_aabb('nope')
    state.attach_body('floor', 'base', [HalfSpace()])  # unbounded: skipped
    np.testing.assert_allclose(state.compute_aabb(), [-0.1, 1.5, -1.0, 2.5, -0.1, 3.5],
                               atol=TOL)


def test_compute_aabb_of_meshes_uses_the_vertices(tiny_model: RobotModel) -> None:
    trimesh = pytest.importorskip('trimesh')
    path = RESOURCES / 'meshes' / 'tetra.stl'
    state = RobotState(tiny_model)
    X = _rotation(7)
    state.attach_body('tetra', 'base', [Mesh(path.as_uri(), (0.5, 2.0, 1.0), str(path))],
                      pose=X)
    mesh = trimesh.load(path, force='mesh')
    vertices = np.asarray(mesh.vertices) * [0.5, 2.0, 1.0]
    world = vertices @ X[:3, :3].T + X[:3, 3]
    np.testing.assert_allclose(state.compute_aabb(), np.stack(
        [world.min(axis=0), world.max(axis=0)], axis=1).reshape(6), atol=TOL)
    unresolved = RobotState(tiny_model)
    unresolved.attach_body('ghost', 'base', [Mesh('package://nowhere/x.stl')])
    np.testing.assert_array_equal(unresolved.compute_aabb(), np.zeros(6))


def test_compute_aabb_covers_links_and_attached_bodies(arm_model: RobotModel) -> None:
    state = random_state(arm_model)
    box = state.compute_aabb()
    assert np.all(box[0::2] < box[1::2])
    lo, hi = box[0::2], box[1::2]
    for X in state.get_collision_body_transforms():
        assert np.all(X[:3, 3] >= lo) and np.all(X[:3, 3] <= hi)
    far = pose_from_xyz_rpy([5.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    state.attach_body('far', 'world', [Sphere(0.5)], pose=far)
    assert state.compute_aabb()[1] == pytest.approx(5.5)


# ------------------------------------------------------------------------------ printing


def test_printing(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_positions({'elbow_joint': 2.6, 'shoulder_pan_joint': -2.9})
    info = state.state_info()
    assert 'elbow_joint=2.6' in info and str(state) == info
    bars = state.positions_with_limits('arm')
    lines = bars.splitlines()
    assert lines[0] == 'Joint limits for group arm'
    # MoveIt printStatePositionsWithJointLimits draws continuous joints too (over [-π, π]).
    assert len(lines) == 1 + 6
    assert any('wrist_roll_joint' in line and '-3.14159' in line for line in lines)
    pan = next(line for line in lines if 'shoulder_pan_joint' in line)
    assert '\t|---' in pan  # at the lower bound
    state.set_variable_position('lift_joint', 0.5)  # out of [0, 0.35]
    assert 'OUT OF BOUNDS' in state.positions_with_limits()
    assert 'right_finger_joint' not in state.positions_with_limits()  # mimic
    transforms = state.transforms_info().splitlines()
    assert len(transforms) == arm_model.link_count
    assert transforms[0].startswith('world: T.xyz = [0, 0, 0], Q.xyzw = [0, 0, 0, 1]')
    tree = state.state_tree()
    assert all(name in tree for name in arm_model.joint_names)
    assert 'dirty link transforms' in state.dirty_info()
    assert repr(state).startswith('RobotState(')
    assert 'elbow_joint' in state.positions_info()


def test_no_warnings_in_normal_use(arm_model: RobotModel) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        state = random_state(arm_model)
        state.interpolate(random_state(arm_model, 2), 0.5)
        state.compute_aabb()


def test_per_joint_bounds_variants(arm_model: RobotModel) -> None:
    state = RobotState(arm_model)
    state.set_variable_positions({'elbow_joint': 3.0, 'shoulder_pan_joint': 5.0})
    assert not state.satisfies_bounds(joint='elbow_joint')
    assert state.satisfies_position_bounds(joint='lift_joint')
    state.enforce_bounds(joint='elbow_joint')
    assert state.get_variable_position('elbow_joint') == 2.6
    assert state.get_variable_position('shoulder_pan_joint') == 5.0  # other joints untouched
    state.harmonize_positions(joint='shoulder_pan_joint')
    assert state.get_variable_position('shoulder_pan_joint') == pytest.approx(5.0 - 2 * math.pi)
    other = RobotState(arm_model)
    assert state.distance(other, joint='elbow_joint') == pytest.approx(2.6)
    with pytest.raises(InvalidArgumentError):
        state.distance(other, 'arm', joint='elbow_joint')


def test_interpolate_a_group_only(arm_model: RobotModel) -> None:
    a, b = random_state(arm_model, 61), random_state(arm_model, 62)
    out = random_state(arm_model, 63)
    base = out.get_joint_positions('base_joint')
    a.interpolate(b, 1.0, out, 'arm')
    np.testing.assert_array_equal(out.get_joint_group_positions('arm'),
                                  b.get_joint_group_positions('arm'))
    np.testing.assert_array_equal(out.get_joint_positions('base_joint'), base)
