"""Joint data: type layout table, axis normalization, copies, equality, the safety formula."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robot_state_core.description.joints import (
    Joint,
    JOINT_TYPE_INFO,
    JointLimits,
    JointMimic,
    JointSafety,
    JointType,
)
from robot_state_core.errors import InvalidArgumentError, ModelError
from robot_state_core.io.urdf import load_urdf_file
from robot_state_core.model.robot_model import RobotModel

URDF = Path(__file__).resolve().parent / 'resources' / 'all_joint_types.urdf'


@pytest.mark.parametrize('jtype', list(JointType))
def test_type_table_is_consistent(jtype: JointType) -> None:
    """Suffix counts match nq/nv; nq == nv except the quaternion joint."""
    info = JOINT_TYPE_INFO[jtype]
    assert len(info.position_suffixes) == info.nq
    assert len(info.velocity_suffixes) == info.nv
    assert (info.nq != info.nv) == (jtype is JointType.FLOATING)
    assert info.is_active == (jtype not in (JointType.FIXED, JointType.FLOATING,
                                            JointType.UNKNOWN))


def test_variable_names_follow_moveit() -> None:
    """1-DOF joints are named after the joint; multi-DOF ones get '/suffix'."""
    assert Joint('j', JointType.REVOLUTE).variable_names() == ('j',)
    assert Joint('b', JointType.PLANAR).variable_names() == ('b/x', 'b/y', 'b/theta')
    assert Joint('f', JointType.FLOATING).variable_names()[-1] == 'f/rot_w'
    assert Joint('r', JointType.RPY_FLOATING).variable_names()[:3] == ('r/qx', 'r/qy', 'r/qz')
    assert Joint('x', JointType.FIXED).variable_names() == ()


def test_axis_is_normalized_and_zero_axis_rejected() -> None:
    """The axis is stored as a unit vector; a zero axis on a moving joint raises."""
    j = Joint('j', JointType.PRISMATIC, axis=[0, 3, 4])
    np.testing.assert_allclose(j.axis, [0, 0.6, 0.8])
    with pytest.raises(InvalidArgumentError, match='axis'):
        Joint('j', JointType.REVOLUTE, axis=[0, 0, 0])
    assert Joint('f', JointType.FIXED, axis=[0, 0, 0]).axis.tolist() == [1.0, 0.0, 0.0]
    with pytest.raises(InvalidArgumentError):
        Joint('j', JointType.REVOLUTE, parent_to_joint_origin_transform=np.eye(3))


def test_clone_is_deep_and_equal() -> None:
    """clone() copies arrays and nested data; equality compares values."""
    j = Joint('j', JointType.REVOLUTE, 'a', 'b', limits=JointLimits(-1, 1, 2, 3),
              mimic=JointMimic('k', 2.0, 0.5))
    c = j.clone()
    assert c == j
    c.limits.upper = 5.0
    c.parent_to_joint_origin_transform[0, 3] = 1.0
    assert j.limits.upper == 1.0
    assert j.parent_to_joint_origin_transform[0, 3] == 0.0
    assert c != j


@pytest.mark.parametrize(('q', 'qd', 'expected'), [
    # inside the soft range: hard velocity/effort limits
    (0.0, 0.0, (-2.0, 2.0, -10.0, 10.0)),
    # beyond soft_upper - v/k_p = 0.7: vel_min = -2 + 10 (0.8 + 0.9) = 15,
    # vel_max = 2 + 10 (0.8 - 0.9) = 1; then qd = 0 lies outside [15.5, 0.5]:
    # eff_min = -10 + 20 (0 - 15) = -310, eff_max = 10 + 20 (0 - 1) = -10 (seed formula verbatim)
    (0.8, 0.0, (15.0, 1.0, -310.0, -10.0)),
    # velocity 1.5 > vel_max - e/k_v = 2 - 10/20 = 1.5? equal -> inside; 1.8 is outside
    (0.0, 1.8, (-2.0, 2.0, -10.0 + 20 * (1.8 + 2.0), 10.0 + 20 * (1.8 - 2.0))),
])
def test_safety_formula(q: float, qd: float, expected: tuple[float, ...]) -> None:
    """Seed-002 safety-controller bounds, computed by hand for three regimes."""
    safety = JointSafety(soft_lower_limit=-0.9, soft_upper_limit=0.9, k_position=10.0,
                         k_velocity=20.0)
    b = safety.bounds(JointLimits(-1, 1, effort=10.0, velocity=2.0), q, qd)
    assert (b.velocity_min, b.velocity_max, b.effort_min, b.effort_max) == pytest.approx(
        expected)


def test_rpy_floating_view_of_a_model_joint() -> None:
    """RobotModel hands out a Drake-style RpyFloatingJoint bound to the joint's q/v slice."""
    model = RobotModel.from_scene_graph(load_urdf_file(URDF).scene_graph)
    joint = model.rpy_floating_joint('rpy')
    assert joint.position_start() == model.variable_index('rpy/qx')
    assert joint.default_angular_damping() == 0.5
    assert joint.default_translational_damping() == 0.5
    with pytest.raises(ModelError, match='not rpy_floating'):
        model.rpy_floating_joint('rev')
