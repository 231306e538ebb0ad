"""Drake's ``RpyFloatingJoint`` tests, ported (seed 001).

Origin: ``RobotLocomotion/drake``, ``multibody/tree/test/rpy_floating_joint_test.cc``, fixture
``RpyFloatingJointTest``: one body on an ``RpyFloatingJoint`` named ``"Joint"`` from the world,
angular damping 3, translational damping 4, position limits [-1, 1.5], velocity limits
[-1.1, 1.6], acceleration limits [-1.2, 1.7] on all six coordinates. Each test below names the
``TEST_F`` it ports and uses Drake's inputs and expected values verbatim, with Drake's tolerance
``kTolerance = 4 * std::numeric_limits<double>::epsilon()`` where Drake uses one.

Where we deliberately differ, the test asserts our documented behaviour and names the row of
``docs/decisions.md`` (section "Drake RpyFloatingJoint"):

* F-3: ``Lock``/``Unlock`` are not provided (the ``ContextDependentAccess`` lines on locking are
  not ported);
* F-4: damping is a joint parameter, not a context parameter: ``GetDampingVector(context)`` /
  ``SetDampingVector(context, d)`` map to ``default_damping_vector()`` /
  ``set_default_damping_vector(d)``.

Rotation oracle: Drake builds ``RotationMatrix(RollPitchYawd(angles))``; we build the same
``Rz(yaw) Ry(pitch) Rx(roll)`` with Pinocchio's ``pin.rpy.rpyToMatrix``, not with our code.
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pinocchio as pin
import pytest

from robot_state_core.description.joints import Joint, JointType
from robot_state_core.description.links import Link
from robot_state_core.description.scene_graph import SceneGraph
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.model.rpy_floating import JointContext, RpyFloatingJoint

K_TOLERANCE = 4 * np.finfo(np.float64).eps
K_POSITION_LOWER_LIMIT = -1.0
K_POSITION_UPPER_LIMIT = 1.5
K_VELOCITY_LOWER_LIMIT = -1.1
K_VELOCITY_UPPER_LIMIT = 1.6
K_ACCELERATION_LOWER_LIMIT = -1.2
K_ACCELERATION_UPPER_LIMIT = 1.7
K_ANGULAR_DAMPING = 3.0
K_TRANSLATIONAL_DAMPING = 4.0
K_POSITION_NON_ZERO_DEFAULT = (K_POSITION_LOWER_LIMIT + K_POSITION_UPPER_LIMIT) / 2


def _fixture() -> tuple[RpyFloatingJoint, JointContext]:
    """Drake's ``RpyFloatingJointTest::SetUp``: the joint and a default context."""
    joint = RpyFloatingJoint('Joint', 'world', 'Body', K_ANGULAR_DAMPING,
                             K_TRANSLATIONAL_DAMPING)
    joint.set_position_limits(np.full(6, K_POSITION_LOWER_LIMIT),
                              np.full(6, K_POSITION_UPPER_LIMIT))
    joint.set_velocity_limits(np.full(6, K_VELOCITY_LOWER_LIMIT),
                              np.full(6, K_VELOCITY_UPPER_LIMIT))
    joint.set_acceleration_limits(np.full(6, K_ACCELERATION_LOWER_LIMIT),
                                  np.full(6, K_ACCELERATION_UPPER_LIMIT))
    context = JointContext.zeros(6, 6)
    joint.set_default_state(context)
    return joint, context


def _pose_oracle(angles: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """``RigidTransformd(RollPitchYawd(angles), translation)`` via Pinocchio."""
    X = np.eye(4)
    X[:3, :3] = pin.rpy.rpyToMatrix(*np.asarray(angles, dtype=np.float64))
    X[:3, 3] = translation
    return X


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, Type)
def test_type() -> None:
    joint, _ = _fixture()
    assert joint.type_name() == RpyFloatingJoint.TYPE_NAME == 'rpy_floating'


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, NumDOFs)
def test_num_dofs() -> None:
    joint, _ = _fixture()
    assert (joint.num_positions(), joint.num_velocities()) == (6, 6)
    assert (joint.position_start(), joint.velocity_start()) == (0, 0)
    # tree().num_positions(): the same one-joint tree compiled into a model.
    graph = SceneGraph('tree')
    graph.add_link(Link('world'))
    graph.add_link(Link('Body'))
    assert graph.add_joint(Joint('Joint', JointType.RPY_FLOATING, 'world', 'Body'))
    model = RobotModel.from_scene_graph(graph)
    assert (model.nq, model.nv) == (6, 6)
    view = model.rpy_floating_joint('Joint')
    assert (view.num_positions(), view.num_velocities()) == (6, 6)
    assert (view.position_start(), view.velocity_start()) == (0, 0)


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, GetJointLimits)
def test_get_joint_limits() -> None:
    joint, _ = _fixture()
    for limits in (joint.position_lower_limits(), joint.position_upper_limits(),
                   joint.velocity_lower_limits(), joint.velocity_upper_limits(),
                   joint.acceleration_lower_limits(), joint.acceleration_upper_limits()):
        assert limits.shape == (6,)
    np.testing.assert_array_equal(joint.position_lower_limits(), [K_POSITION_LOWER_LIMIT] * 6)
    np.testing.assert_array_equal(joint.position_upper_limits(), [K_POSITION_UPPER_LIMIT] * 6)
    np.testing.assert_array_equal(joint.velocity_lower_limits(), [K_VELOCITY_LOWER_LIMIT] * 6)
    np.testing.assert_array_equal(joint.velocity_upper_limits(), [K_VELOCITY_UPPER_LIMIT] * 6)
    np.testing.assert_array_equal(joint.acceleration_lower_limits(),
                                  [K_ACCELERATION_LOWER_LIMIT] * 6)
    np.testing.assert_array_equal(joint.acceleration_upper_limits(),
                                  [K_ACCELERATION_UPPER_LIMIT] * 6)


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, Damping)
def test_damping() -> None:
    joint, _ = _fixture()
    assert joint.default_angular_damping() == K_ANGULAR_DAMPING
    assert joint.default_translational_damping() == K_TRANSLATIONAL_DAMPING
    np.testing.assert_array_equal(joint.default_damping_vector(),
                                  [K_ANGULAR_DAMPING] * 3 + [K_TRANSLATIONAL_DAMPING] * 3)


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, ContextDependentAccess)
def test_context_dependent_access() -> None:
    joint, context = _fixture()
    angles_A = np.array([math.pi / 2, 0.0, 1.0])
    angles_B = np.array([0.25, 0.5, math.pi / 2])
    translation = np.array([1.0, 2.0, 3.0])
    angular_velocity = np.array([0.5, 0.5, 0.5])
    translational_velocity = np.array([0.1, 0.2, 0.3])
    rotation_matrix_B = pin.rpy.rpyToMatrix(*angles_B)
    transform_A = _pose_oracle(angles_A, translation)

    # Pose access.
    joint.set_angles(context, angles_A)
    np.testing.assert_array_equal(joint.get_angles(context), angles_A)

    joint.set_orientation(context, rotation_matrix_B)
    np.testing.assert_allclose(joint.get_angles(context), angles_B, rtol=0, atol=K_TOLERANCE)

    joint.set_translation(context, translation)
    np.testing.assert_array_equal(joint.get_translation(context), translation)

    joint.set_angles(context, np.zeros(3))  # Zero out pose.
    joint.set_translation(context, np.zeros(3))
    joint.set_pose(context, transform_A)
    # Drake: "a bit of roundoff error due to transforming between rpy and rotation matrix".
    np.testing.assert_allclose(joint.get_pose(context), transform_A, rtol=0, atol=K_TOLERANCE)

    # Angular velocity access.
    joint.set_angular_velocity(context, angular_velocity)
    np.testing.assert_array_equal(joint.get_angular_velocity(context), angular_velocity)
    joint.set_translational_velocity(context, translational_velocity)
    np.testing.assert_array_equal(joint.get_translational_velocity(context),
                                  translational_velocity)

    # Joint locking (Lock(context); velocities read back as zero): not provided (F-3).
    assert not hasattr(joint, 'lock')

    # Damping: GetDampingVector/SetDampingVector(context, ...) act on the joint (F-4).
    damping = np.array([K_ANGULAR_DAMPING] * 3 + [K_TRANSLATIONAL_DAMPING] * 3)
    different_damping = np.array([2.3, 2.3, 2.3, 4.5, 4.5, 4.5])
    np.testing.assert_array_equal(joint.default_damping_vector(), damping)
    joint.set_default_damping_vector(different_damping)
    np.testing.assert_array_equal(joint.default_damping_vector(), different_damping)

    # Expect to throw on invalid damping values.
    with pytest.raises(ValueError):
        joint.set_default_damping_vector(np.full(6, -1.0))


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, AddInOneForce)
def test_add_in_one_force() -> None:
    joint, context = _fixture()
    some_value = math.pi / 2
    forces = np.zeros(6)
    # Adding forces to individual degrees of freedom of this joint is not supported.
    with pytest.raises(TypeError):
        joint.add_in_one_force(context, 0, some_value, forces)
    np.testing.assert_array_equal(forces, np.zeros(6))


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, AddInDampingForces)
def test_add_in_damping_forces() -> None:
    joint, context = _fixture()
    angular_velocity = np.array([0.1, 0.2, 0.3])
    translational_velocity = np.array([0.4, 0.5, 0.6])
    angular_damping = 3 * K_ANGULAR_DAMPING
    translational_damping = 4 * K_TRANSLATIONAL_DAMPING
    damping_forces_expected = np.concatenate([-angular_damping * angular_velocity,
                                              -translational_damping * translational_velocity])

    joint.set_angular_velocity(context, angular_velocity)
    joint.set_translational_velocity(context, translational_velocity)
    joint.set_default_damping_vector(  # SetDampingVector(context, ...) in Drake (F-4)
        np.concatenate([np.full(3, angular_damping), np.full(3, translational_damping)]))

    forces = np.zeros(6)  # MultibodyForces<double> forces(tree()): zero generalized forces
    joint.add_in_damping(context, forces)
    np.testing.assert_array_equal(forces, damping_forces_expected)


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, Clone)
def test_clone() -> None:
    joint, _ = _fixture()
    # CloneToScalar<AutoDiffXd>() and ShallowClone(): Python has one scalar type; a copy.
    for clone in (copy.deepcopy(joint), copy.copy(joint)):
        assert clone.name == joint.name
        assert clone.frame_on_parent == joint.frame_on_parent
        assert clone.frame_on_child == joint.frame_on_child
        for getter in ('position_lower_limits', 'position_upper_limits',
                       'velocity_lower_limits', 'velocity_upper_limits',
                       'acceleration_lower_limits', 'acceleration_upper_limits',
                       'get_default_angles', 'get_default_translation'):
            np.testing.assert_array_equal(getattr(clone, getter)(), getattr(joint, getter)())
        assert clone.default_angular_damping() == joint.default_angular_damping()
        assert clone.default_translational_damping() == joint.default_translational_damping()


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest,
# SetVelocityAndAccelerationLimits)
def test_set_velocity_and_acceleration_limits() -> None:
    joint, _ = _fixture()
    new_lower, new_upper = -0.2, 0.2
    # Check for velocity limits.
    joint.set_velocity_limits(np.full(6, new_lower), np.full(6, new_upper))
    np.testing.assert_array_equal(joint.velocity_lower_limits(), [new_lower] * 6)
    np.testing.assert_array_equal(joint.velocity_upper_limits(), [new_upper] * 6)
    # Does not match num_velocities().
    with pytest.raises(ValueError):
        joint.set_velocity_limits(np.zeros(6), np.zeros(0))
    with pytest.raises(ValueError):
        joint.set_velocity_limits(np.zeros(0), np.zeros(6))
    # Lower limit is larger than upper limit.
    with pytest.raises(ValueError):
        joint.set_velocity_limits(np.full(6, 2.0), np.full(6, 0.0))

    # Check for acceleration limits.
    joint.set_acceleration_limits(np.full(6, new_lower), np.full(6, new_upper))
    np.testing.assert_array_equal(joint.acceleration_lower_limits(), [new_lower] * 6)
    np.testing.assert_array_equal(joint.acceleration_upper_limits(), [new_upper] * 6)
    with pytest.raises(ValueError):
        joint.set_acceleration_limits(np.zeros(6), np.zeros(0))
    with pytest.raises(ValueError):
        joint.set_acceleration_limits(np.zeros(0), np.zeros(6))
    with pytest.raises(ValueError):
        joint.set_acceleration_limits(np.full(6, 2.0), np.full(6, 0.0))


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, CanRotateOrTranslate)
def test_can_rotate_or_translate() -> None:
    joint, _ = _fixture()
    assert joint.can_rotate()
    assert joint.can_translate()


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, NameSuffix)
def test_name_suffix() -> None:
    joint, _ = _fixture()
    assert [joint.position_suffix(i) for i in range(6)] == ['qx', 'qy', 'qz', 'x', 'y', 'z']
    assert [joint.velocity_suffix(i) for i in range(6)] == ['wx', 'wy', 'wz', 'vx', 'vy', 'vz']


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, DefaultAnglesAndTranslation)
def test_default_angles_and_translation() -> None:
    joint, _ = _fixture()
    lower_limit_angles = np.full(3, K_POSITION_LOWER_LIMIT)
    upper_limit_angles = np.full(3, K_POSITION_UPPER_LIMIT)
    default_angles = np.zeros(3)
    new_default_angles = np.full(3, K_POSITION_NON_ZERO_DEFAULT)
    out_of_bounds_low_angles = lower_limit_angles - 1
    out_of_bounds_high_angles = upper_limit_angles + 1

    # Constructor should set the default angle to zero.
    np.testing.assert_array_equal(joint.get_default_angles(), default_angles)

    joint.set_default_angles(new_default_angles)
    np.testing.assert_array_equal(joint.get_default_angles(), new_default_angles)

    # Setting the default angle out of the bounds of the position limits should NOT throw
    # (nor warn: these pitches are far from the gimbal lock).
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        joint.set_default_angles(out_of_bounds_low_angles)
        joint.set_default_angles(out_of_bounds_high_angles)

    np.testing.assert_array_equal(joint.get_default_translation(), np.zeros(3))
    joint.set_default_translation([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(joint.get_default_translation(), [1.0, 2.0, 3.0])

    np.testing.assert_allclose(
        joint.get_default_pose(),
        _pose_oracle(joint.get_default_angles(), joint.get_default_translation()),
        rtol=0, atol=K_TOLERANCE)


# drake rpy_floating_joint_test.cc, TEST_F(RpyFloatingJointTest, RandomState)
def test_random_state() -> None:
    joint, context = _fixture()
    generator = np.random.default_rng(0)  # Drake: RandomGenerator; uniform in [0, 1)

    # Default behavior is to set to zero.
    joint.set_random_state(context, generator)
    np.testing.assert_array_equal(joint.get_pose(context), np.eye(4))  # IsExactlyIdentity

    # Set the angles & translation distribution to arbitrary values:
    # angles[i] = 0.0125 * (uniform + i + 1), translation[i] = uniform + i + 1.
    offsets = np.arange(3) + 1.0
    joint.set_random_angles_distribution(lambda rng: 0.0125 * (rng.uniform(size=3) + offsets))
    joint.set_random_translation_distribution(lambda rng: rng.uniform(size=3) + offsets)
    joint.set_random_state(context, generator)
    # We expect arbitrary non-zero values for the random state.
    assert not np.array_equal(joint.get_pose(context), np.eye(4))

    # Set the distributions back to 0.
    zero_3 = (np.zeros(3), np.zeros(3))
    joint.set_random_angles_distribution(zero_3)
    joint.set_random_translation_distribution(zero_3)
    joint.set_random_state(context, generator)
    np.testing.assert_array_equal(joint.get_pose(context), np.eye(4))
