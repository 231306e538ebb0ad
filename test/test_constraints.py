"""MoveIt-style kinematic constraints: joint (incl. wrap), position region, orientation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robot_state_core import kinematics as kin
from robot_state_core.errors import UnknownNameError
from robot_state_core.geometry.shapes import Box, Sphere
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.constraints import (
    Constraints,
    evaluate_constraints,
    JointConstraint,
    OrientationConstraint,
    OrientationParameterization,
    PositionConstraint,
    xyz_euler_from_rotation,
)
from robot_state_core.spatial.transforms import quat_xyzw_from_rotation, rotation_exp

RESOURCES = Path(__file__).resolve().parent / 'resources'


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf')


def test_joint_constraint_tolerances_and_continuous_wrap(model: RobotModel) -> None:
    """Inside/outside the tolerance band; continuous joints compare on the shortest arc."""
    q = model.default_positions.copy()
    q[model.variable_index('rev')] = 1.0
    q[model.variable_index('cont')] = 3.1
    X = kin.forward_kinematics(model, q)
    res = evaluate_constraints(model, q, X, Constraints(joint_constraints=(
        JointConstraint('rev', 0.9, 0.2, 0.05),
        JointConstraint('rev', 1.2, 0.1, 0.1),
        JointConstraint('cont', -3.1, 0.1, 0.1))))
    assert [r.result for r in res.results] == [True, False, True]
    assert res.results[1].distance == pytest.approx(0.2)
    assert res.results[2].distance == pytest.approx(2 * np.pi - 6.2)
    assert not res.satisfied
    with pytest.raises(UnknownNameError):
        evaluate_constraints(model, q, X, Constraints(joint_constraints=(
            JointConstraint('nope', 0, 0, 0),)))


def test_position_constraint_regions(model: RobotModel) -> None:
    """A link point inside a posed box or sphere satisfies the constraint."""
    q = model.default_positions.copy()
    X = kin.forward_kinematics(model, q)
    p = X[model.link_index('tool'), :3, 3]
    inside = np.eye(4)
    inside[:3, 3] = p + np.array([0.01, 0.0, 0.0])
    away = np.eye(4)
    away[:3, 3] = p + np.array([1.0, 0.0, 0.0])
    res = evaluate_constraints(model, q, X, Constraints(position_constraints=(
        PositionConstraint('tool', ((Box(0.1, 0.1, 0.1), inside),)),
        PositionConstraint('tool', ((Sphere(0.05), away),)),
        PositionConstraint('tool', ((Sphere(0.05), away), (Box(0.1, 0.1, 0.1), inside))),
        PositionConstraint('tool', ((Sphere(0.05), inside),), (0.2, 0.0, 0.0)))))
    assert [r.result for r in res.results] == [True, False, True, False]
    assert res.results[1].distance == pytest.approx(1.0)


@pytest.mark.parametrize('param', list(OrientationParameterization))
def test_orientation_constraint_tolerances(model: RobotModel,
                                           param: OrientationParameterization) -> None:
    """A small rotation about x passes a loose x tolerance and fails a tight one."""
    q = model.default_positions.copy()
    X = kin.forward_kinematics(model, q)
    R = X[model.link_index('tool'), :3, :3]
    target = quat_xyzw_from_rotation(R @ rotation_exp([0.05, 0, 0]))
    loose = OrientationConstraint('tool', tuple(target), (0.1, 0.01, 0.01), param)
    tight = OrientationConstraint('tool', tuple(target), (0.01, 0.1, 0.1), param)
    res = evaluate_constraints(model, q, X, Constraints(orientation_constraints=(loose, tight)))
    assert [r.result for r in res.results] == [True, False]
    assert res.results[0].distance == pytest.approx(0.05, abs=1e-9)


def test_xyz_euler_round_trip() -> None:
    """Intrinsic XYZ Euler angles reproduce the rotation."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b, c = rng.uniform(-1.4, 1.4, 3)
        Rx = rotation_exp([a, 0, 0])
        Ry = rotation_exp([0, b, 0])
        Rz = rotation_exp([0, 0, c])
        np.testing.assert_allclose(xyz_euler_from_rotation(Rx @ Ry @ Rz), [a, b, c],
                                   atol=1e-12)
