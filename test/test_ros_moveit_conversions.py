"""The per-request conversions of the services: plain-float fast paths equal the array paths.

``pose_to_matrix`` (compute_ik targets), ``check_quat_xyzw`` and ``pose_from_xyz_quat_xyzw``
take one message's numbers in plain floats; ``robot_state_to_msg`` (compute_ik solutions) fills
a response in place and reuses a multi-DOF joint's numbers while its variables do not change.
Each is checked bit for bit against the general array code (or MoveIt's definition: the
joint's transform from ``get_joint_pose``), and on the inputs that must be refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.ros

pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
from geometry_msgs.msg import Pose  # noqa: E402
from moveit_msgs.msg import RobotState as RobotStateMsg  # noqa: E402

from robot_state_core.errors import InvalidArgumentError  # noqa: E402
from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.model.robot_model import RobotModel  # noqa: E402
from robot_state_core.ros.moveit_conversions import (  # noqa: E402
    pose_to_matrix,
    robot_state_to_msg,
)
from robot_state_core.spatial.transforms import (  # noqa: E402
    check_quat_xyzw,
    pose_from_xyz_quat_xyzw,
    quat_xyzw_from_rotation,
    rotation_from_quat_xyzw,
)
from robot_state_core.state.robot_state import RobotState  # noqa: E402


def _pose(xyz, quat) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in xyz)
    o = pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in quat)
    return pose


def test_one_pose_in_floats_is_bitwise_the_array_path() -> None:
    rng = np.random.default_rng(7)
    xyz = rng.uniform(-5, 5, (200, 3))
    quat = rng.normal(size=(200, 4)) * rng.uniform(1e-6, 1e6, (200, 1))  # not unit length
    batch = pose_from_xyz_quat_xyzw(xyz, quat)  # the array path (a batch)
    assert batch.shape == (200, 4, 4)
    for k in range(200):
        one = pose_from_xyz_quat_xyzw(xyz[k].tolist(), quat[k].tolist())
        assert np.array_equal(one, batch[k])
        assert np.array_equal(pose_to_matrix(_pose(xyz[k], quat[k])), batch[k])
        # the general definition: [R(q/|q|) p; 0 0 0 1]
        R = rotation_from_quat_xyzw(quat[k][None])[0]
        assert np.array_equal(one[:3, :3], R) and np.array_equal(one[:3, 3], xyz[k])
        assert np.array_equal(one[3], [0.0, 0.0, 0.0, 1.0])
    assert np.allclose(batch[:, :3, :3] @ np.swapaxes(batch[:, :3, :3], 1, 2), np.eye(3))


def test_quaternion_check_in_floats_refuses_what_the_array_check_refuses() -> None:
    refused = [[0.0, 0.0, 0.0, 0.0], [math.nan, 0.0, 0.0, 1.0], [0.0, math.inf, 0.0, 1.0],
               [1e-13, 0.0, 0.0, 0.0], [1e13, 0.0, 0.0, 0.0], [1e200, 1e200, 0.0, 0.0]]
    for quat in refused:
        for form in (list(quat), tuple(quat), np.array(quat)):
            with pytest.raises(InvalidArgumentError, match='target'):
                check_quat_xyzw(form, 'target')
        with pytest.raises(InvalidArgumentError, match='the orientation'):
            pose_to_matrix(_pose([0, 0, 0], quat), 'target')
    for quat in ([0.0, 0.0, 0.0, 1.0], [1e-11, 0.0, 0.0, 0.0], [0.0, 9e11, 0.0, 0.0],
                 [1, 0, 0, 0]):  # ints take the array path
        out = check_quat_xyzw(quat, 'target')
        assert out.dtype == np.float64 and np.array_equal(out, np.asarray(quat, float))
    with pytest.raises(InvalidArgumentError, match='not finite'):
        pose_to_matrix(_pose([0.0, math.nan, 0.0], [0, 0, 0, 1]), 'target')


def test_robot_state_message_matches_the_joint_transforms_as_the_base_moves() -> None:
    """A moved base gives a new transform; an unmoved one the same numbers as before."""
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    state = RobotState(model)
    multi = [name for name in model.joint_names
             if model.joint_types[model.joint_index(name)].name in ('PLANAR', 'FLOATING',
                                                                     'RPY_FLOATING')]
    assert multi, 'the default robot has a mobile base'
    rng = np.random.default_rng(3)
    for step in range(6):
        if step % 2 == 0:
            state.set_to_random_positions(rng=rng)
        msg = RobotStateMsg()
        assert robot_state_to_msg(state, msg) is msg  # filled in place
        names = list(msg.joint_state.name)
        assert names and len(names) == len(msg.joint_state.position)
        for name, value in zip(names, msg.joint_state.position, strict=True):
            assert value == state.get_variable_position(name)
        assert list(msg.multi_dof_joint_state.joint_names) == multi
        for name, t in zip(multi, msg.multi_dof_joint_state.transforms, strict=True):
            X = state.get_joint_pose(name)
            assert [t.translation.x, t.translation.y, t.translation.z] == X[:3, 3].tolist()
            assert [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w] == \
                quat_xyzw_from_rotation(X[:3, :3]).tolist()
        # a new message each call: mutating one leaves the next untouched
        if msg.multi_dof_joint_state.transforms:
            msg.multi_dof_joint_state.transforms[0].translation.x = 1e9
            again = robot_state_to_msg(state)
            assert again.multi_dof_joint_state.transforms[0].translation.x != 1e9
