"""Forward kinematics: Pinocchio oracle on the whole corpus, batch == single, every joint type."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core import kinematics as kin
from robot_state_core.description.joints import JointType
from robot_state_core.io.default_robot import default_robot_urdf_path
from robot_state_core.io.urdf import load_urdf_file
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import rotation_from_quat_xyzw, rotation_from_rpy

RESOURCES = Path(__file__).resolve().parent / 'resources'
POS_TOL = 1e-12  # m
ROT_TOL = 1e-12  # rad (matrix entries)
BATCH_TOL = 1e-14
CONFIGS = 100

try:
    CORPUS = [p for p in robot_corpus.all_urdf_files() if p.name != 'ur3.urdf']
except Exception:
    CORPUS = []


@pytest.mark.parametrize('urdf', CORPUS, ids=lambda p: p.stem)
def test_fk_of_every_link_matches_pinocchio(urdf: Path) -> None:
    """All links, 100 random configurations, agree with Pinocchio to 1e-12 (mimic included)."""
    pin = pytest.importorskip('pinocchio')
    model = RobotModel.from_urdf_file(urdf, package_map=robot_corpus.package_map())
    pm, _ = pinocchio_oracle.load(urdf)
    data = pm.createData()
    bodies = [(f, model.link_index(fr.name)) for f, fr in enumerate(pm.frames)
              if fr.type == pin.FrameType.BODY]
    rng = np.random.default_rng(7)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(CONFIGS)])
    X = kin.forward_kinematics(model, Q)  # batched path
    worst_p = worst_r = 0.0
    for n in range(CONFIGS):
        pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, Q[n]))
        for f, li in bodies:
            worst_p = max(worst_p, np.abs(X[n, li, :3, 3] - data.oMf[f].translation).max())
            worst_r = max(worst_r, np.abs(X[n, li, :3, :3] - data.oMf[f].rotation).max())
    assert worst_p <= POS_TOL
    assert worst_r <= ROT_TOL


@pytest.mark.parametrize('name', ['panda', 'talos_full', 'pr2'])
def test_batched_fk_equals_single_config_path(name: str) -> None:
    """(..., nq) -> (..., L, 4, 4) equals the single-configuration path within 1e-14."""
    r = robot_corpus.test_robot(name)
    model = RobotModel.from_urdf_file(r.urdf_path, package_map=r.package_map)
    rng = np.random.default_rng(3)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(24)]).reshape(2, 3, 4, -1)
    X = kin.forward_kinematics(model, Q)
    assert X.shape == (2, 3, 4, model.link_count, 4, 4)
    for idx in np.ndindex(2, 3, 4):
        np.testing.assert_allclose(X[idx], kin.forward_kinematics(model, Q[idx]), rtol=0,
                                   atol=BATCH_TOL)
    np.testing.assert_allclose(np.moveaxis(kin.forward_kinematics_soa(
        model, Q.reshape(-1, model.nq)), -1, 0), X.reshape(-1, model.link_count, 4, 4),
        rtol=0, atol=BATCH_TOL)


def _naive_fk(graph, q: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Independent per-joint FK straight from the scene graph (test oracle, loops allowed)."""
    def motion(joint, values: np.ndarray) -> np.ndarray:
        M = np.eye(4)
        a = joint.axis
        if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS):
            th = values[0]
            K_ = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            M[:3, :3] = np.eye(3) + np.sin(th) * K_ + (1 - np.cos(th)) * K_ @ K_
        elif joint.type is JointType.PRISMATIC:
            M[:3, 3] = a * values[0]
        elif joint.type is JointType.PLANAR:  # axis z in the test robot
            x, y, th = values
            M[:3, :3] = rotation_from_rpy([0, 0, th])
            M[:3, 3] = [x, y, 0]
        elif joint.type is JointType.FLOATING:
            M[:3, :3] = rotation_from_quat_xyzw(values[3:])
            M[:3, 3] = values[:3]
        elif joint.type is JointType.RPY_FLOATING:
            M[:3, :3] = rotation_from_rpy(values[:3])
            M[:3, 3] = values[3:]
        return M

    poses = {graph.get_root(): np.eye(4)}
    pending = list(graph.get_outbound_joints(graph.get_root()))
    while pending:
        joint = pending.pop()
        poses[joint.child_link_name] = (poses[joint.parent_link_name]
                                        @ joint.parent_to_joint_origin_transform
                                        @ motion(joint, q.get(joint.name, np.zeros(0))))
        pending.extend(graph.get_outbound_joints(joint.child_link_name))
    return poses


@pytest.mark.parametrize('urdf', [RESOURCES / 'all_joint_types.urdf', default_robot_urdf_path()],
                         ids=['all_joint_types', 'default_robot'])
def test_every_joint_type_against_an_independent_implementation(urdf: Path) -> None:
    """Planar, floating, rpy_floating, prismatic, continuous, revolute and mimic vs naive FK."""
    graph = load_urdf_file(urdf).scene_graph
    model = RobotModel.from_scene_graph(graph)
    rng = np.random.default_rng(11)
    for _ in range(20):
        q = pinocchio_oracle.random_q(model, rng)
        per_joint = {name: q[model.joint_q_start[j]:model.joint_q_start[j] + model.joint_nq[j]]
                     for j, name in enumerate(model.joint_names)}
        expected = _naive_fk(graph, per_joint)
        X = kin.forward_kinematics(model, q)
        for name, pose in expected.items():
            np.testing.assert_allclose(X[model.link_index(name)], pose, rtol=0, atol=1e-13)


def test_integrate_and_difference_are_inverse() -> None:
    """difference(q0, integrate(q0, v)) == v for every joint type (small v), and back."""
    model = RobotModel.from_urdf_file(RESOURCES / 'all_joint_types.urdf')
    rng = np.random.default_rng(5)
    for _ in range(20):
        q0 = pinocchio_oracle.random_q(model, rng)
        v = rng.normal(scale=0.3, size=model.nv)
        q1 = kin.integrate(model, q0, v)
        np.testing.assert_allclose(kin.difference(model, q0, q1), v, atol=1e-12)
        # integrate(q0, difference(q0, q1)) reproduces q1's poses
        q2 = kin.integrate(model, q0, kin.difference(model, q0, q1))
        np.testing.assert_allclose(kin.forward_kinematics(model, q2),
                                   kin.forward_kinematics(model, q1), atol=1e-12)


def test_compute_scene_state_from_a_scene_graph() -> None:
    """SG-49: joint values by variable or joint name; joint transform == child link transform."""
    graph = load_urdf_file(RESOURCES / 'all_joint_types.urdf').scene_graph
    state = kin.compute_scene_state(graph, {'rev': 1.5, 'plane': [0.1, 0.2, 0.3],
                                          'finger_a_joint': 0.02})
    assert state.joints['rev'] == 1.5
    assert state.joints['plane/theta'] == 0.3
    assert state.joints['finger_b_joint'] == pytest.approx(0.05)  # mimic: 2 * 0.02 + 0.01
    np.testing.assert_array_equal(state.joint_transforms['rev'],
                                  state.link_transforms['revolute_link'])
    model = RobotModel.from_scene_graph(graph)
    q = model.default_positions.copy()
    q[model.variable_index('rev')] = 1.5
    q[model.variable_indices(['plane/x', 'plane/y', 'plane/theta'])] = [0.1, 0.2, 0.3]
    q[model.variable_index('finger_a_joint')] = 0.02
    model.apply_mimic(q)
    np.testing.assert_allclose(state.link_transforms['tool'],
                               kin.forward_kinematics(model, q)[model.link_index('tool')])
