"""Jacobians against Pinocchio and finite differences.

Pinocchio covers revolute/prismatic/continuous/mimic chains; finite differences cover every joint
type (planar, floating, rpy_floating chains built by hand).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core import kinematics as kin
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import rotation_log

RESOURCES = Path(__file__).resolve().parent / 'resources'
PIN_TOL = 1e-10
FD_TOL = 1e-7
FD_STEP = 1e-6


@pytest.mark.parametrize(('robot', 'tips'), [
    ('panda', ['panda_hand_tcp', 'panda_leftfinger', 'panda_link4']),
    ('ur5', ['tool0', 'wrist_2_link']),
    ('talos', ['gripper_left_base_link', 'right_sole_link', 'head_2_link']),
    ('tiago', ['arm_tool_link', 'arm_4_link']),
    ('pr2', ['l_gripper_r_finger_tip_link', 'head_plate_frame']),
])
def test_jacobian_matches_pinocchio(robot: str, tips: list[str]) -> None:
    """World-aligned frame Jacobians equal Pinocchio's (mimic folded into sources) to 1e-10."""
    pin = pytest.importorskip('pinocchio')
    r = robot_corpus.test_robot(robot)
    model = RobotModel.from_urdf_file(r.urdf_path, package_map=r.package_map)
    pm, with_mimic = pinocchio_oracle.load(r.urdf_path)
    data = pm.createData()
    columns = []  # our velocity index for each Pinocchio velocity index
    for i in range(1, pm.njoints):
        jm = pm.joints[i]
        if 'Mimic' in jm.shortname():
            continue
        j = model.joint_index(pm.names[i])
        columns += list(range(int(model.joint_v_start[j]),
                              int(model.joint_v_start[j] + model.joint_nv[j])))
    assert len(columns) == pm.nv
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = pinocchio_oracle.random_q(model, rng)
        qp = pinocchio_oracle.to_pinocchio_q(model, pm, q)
        X = kin.forward_kinematics(model, q)
        for tip in tips:
            ours = kin.jacobian(model, q, tip, X_WL=X)
            if with_mimic:
                ours = kin.fold_mimic_columns(model, ours)
            theirs = pin.computeFrameJacobian(pm, data, qp, pm.getFrameId(tip),
                                              pin.LOCAL_WORLD_ALIGNED)
            np.testing.assert_allclose(ours[:, columns], theirs, rtol=0, atol=PIN_TOL)


@pytest.mark.parametrize(('robot', 'tips'), [
    ('panda', ['panda_hand_tcp', 'panda_leftfinger', 'panda_rightfinger']),
    ('ur5', ['tool0', 'wrist_2_link']),
    ('talos', ['gripper_left_base_link', 'right_sole_link']),
])
def test_forward_kinematics_and_jacobian_match_pinocchio(robot: str, tips: list[str]) -> None:
    """The one-call FK + Jacobian (issue 12) against Pinocchio to 1e-12, mimic folded.

    Poses of every link vs ``framesForwardKinematics``; the Jacobian vs
    ``computeFrameJacobian(..., LOCAL_WORLD_ALIGNED)`` on the independent velocities (Pinocchio
    with mimic joints has no column for them; ours folds them into their source and zeroes
    their own column).
    """
    pin = pytest.importorskip('pinocchio')
    r = robot_corpus.test_robot(robot)
    model = RobotModel.from_urdf_file(r.urdf_path, package_map=r.package_map)
    pm, with_mimic = pinocchio_oracle.load(r.urdf_path)
    data = pm.createData()
    bodies = [(f, model.link_index(fr.name)) for f, fr in enumerate(pm.frames)
              if fr.type == pin.FrameType.BODY]
    columns = []  # our velocity index for each Pinocchio velocity index
    for i in range(1, pm.njoints):
        if 'Mimic' in pm.joints[i].shortname():
            continue
        j = model.joint_index(pm.names[i])
        columns += list(range(int(model.joint_v_start[j]),
                              int(model.joint_v_start[j] + model.joint_nv[j])))
    assert len(columns) == pm.nv
    mimic_v = kin.plan(model).mimic_v
    assert (robot == 'panda') == (mimic_v.size > 0) and with_mimic
    rng = np.random.default_rng(12)
    worst_x = worst_j = 0.0
    for _ in range(10):
        q = pinocchio_oracle.random_q(model, rng)
        qp = pinocchio_oracle.to_pinocchio_q(model, pm, q)
        pin.framesForwardKinematics(pm, data, qp)
        for tip in tips:
            X, J = kin.forward_kinematics_and_jacobian(model, q, tip)
            for f, li in bodies:
                worst_x = max(worst_x, float(np.abs(X[li] - data.oMf[f].homogeneous).max()))
            theirs = pin.computeFrameJacobian(pm, data, qp, pm.getFrameId(tip),
                                              pin.LOCAL_WORLD_ALIGNED)
            worst_j = max(worst_j, float(np.abs(J[:, columns] - theirs).max()))
            assert not J[:, mimic_v].any()
    assert worst_x <= 1e-12
    assert worst_j <= 1e-12


def _fd_jacobian(model: RobotModel, q: np.ndarray, link: str, point: np.ndarray) -> np.ndarray:
    """Central differences along each velocity direction (through integrate)."""
    li = model.link_index(link)
    J = np.zeros((6, model.nv))
    for k in range(model.nv):
        dv = np.zeros(model.nv)
        dv[k] = FD_STEP
        Xp = kin.forward_kinematics(model, kin.integrate(model, q, dv))[li]
        Xm = kin.forward_kinematics(model, kin.integrate(model, q, -dv))[li]
        J[:3, k] = (Xp[:3, :3] @ point + Xp[:3, 3] - Xm[:3, :3] @ point - Xm[:3, 3]) / (
            2 * FD_STEP)
        J[3:, k] = rotation_log(Xp[:3, :3] @ Xm[:3, :3].T) / (2 * FD_STEP)
    return J


@pytest.mark.parametrize('link', ['floating_body', 'rpy_body', 'planar_body', 'prismatic_link',
                                  'finger_c', 'tool'])
def test_jacobian_matches_finite_differences_for_every_joint_type(link: str) -> None:
    """Floating, rpy_floating, planar, revolute, continuous, prismatic columns vs FD."""
    model = RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf')
    rng = np.random.default_rng(2)
    point = np.array([0.03, -0.02, 0.05])
    for _ in range(5):
        q = pinocchio_oracle.random_q(model, rng)
        np.testing.assert_allclose(kin.jacobian(model, q, link, point), _fd_jacobian(
            model, q, link, point), rtol=0, atol=FD_TOL)


def test_batched_jacobian_equals_single() -> None:
    """(..., nq) -> (..., 6, nv) equals per-configuration calls."""
    model = RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf')
    rng = np.random.default_rng(4)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(6)]).reshape(2, 3, -1)
    J = kin.jacobian(model, Q, 'tool', [0.1, 0, 0])
    assert J.shape == (2, 3, 6, model.nv)
    for idx in np.ndindex(2, 3):
        np.testing.assert_allclose(J[idx], kin.jacobian(model, Q[idx], 'tool', [0.1, 0, 0]),
                                   atol=1e-14)


def test_mimic_folding_matches_differentiating_through_the_mimic_map() -> None:
    """Folded columns = d(point)/d(source) when mimic joints follow their source."""
    model = RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf')
    q = model.default_positions.copy()
    a = model.variable_index('finger_a_joint')
    J = kin.fold_mimic_columns(model, kin.jacobian(model, q, 'finger_c'))
    va = int(kin.plan(model).q_of_v.tolist().index(a))

    def tip(x: float) -> np.ndarray:
        qq = q.copy()
        qq[a] = x
        model.apply_mimic(qq)
        return kin.forward_kinematics(model, qq)[model.link_index('finger_c'), :3, 3]

    fd = (tip(q[a] + FD_STEP) - tip(q[a] - FD_STEP)) / (2 * FD_STEP)
    np.testing.assert_allclose(J[:3, va], fd, atol=FD_TOL)
