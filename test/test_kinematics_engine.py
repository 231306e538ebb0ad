"""One engine: the model is immutable, plans are owned by it, data is separate, math is shared.

Issue 11 items 1, 2 and 6: rebinding a model attribute used to be accepted and made single
and batched FK disagree by 1.0 (the batched path read a plan compiled from the old
``joint_origins``); it is refused now. Pinocchio is the oracle for the FK numbers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core import kinematics as kin
from robot_state_core.errors import ImmutableModelError, InvalidTypeError, ModelMismatchError
from robot_state_core.ik.solver import solve_ik
from robot_state_core.ik.types import IKRequest
from robot_state_core.kinematics import bounds
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.state.robot_state import RobotState

PACKAGE = Path(__file__).resolve().parent.parent / 'robot_state_core'
TOL = 1e-12


@pytest.fixture(scope='module')
def panda() -> tuple[RobotModel, object, object]:
    pin = pytest.importorskip('pinocchio')
    r = robot_corpus.test_robot('panda')
    model = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)
    pm, _ = pinocchio_oracle.load(r.urdf_path)
    return model, pm, pin


def _pinocchio_link_poses(model: RobotModel, pm: object, pin: object,
                          q: np.ndarray) -> dict[int, np.ndarray]:
    data = pm.createData()  # type: ignore[attr-defined]
    pin.framesForwardKinematics(pm, data,  # type: ignore[attr-defined]
                                pinocchio_oracle.to_pinocchio_q(model, pm, q))
    out = {}
    for f, frame in enumerate(pm.frames):  # type: ignore[attr-defined]
        if frame.type == pin.FrameType.BODY:  # type: ignore[attr-defined]
            X = np.eye(4)
            X[:3, :3], X[:3, 3] = data.oMf[f].rotation, data.oMf[f].translation
            out[model.link_index(frame.name)] = X
    return out


def test_rebinding_a_model_array_after_batched_fk_is_refused(panda: tuple) -> None:
    """The issue-11 regression: ``model.joint_origins = ...`` after one batched call.

    It used to be accepted; the batched FK then kept the plan of the old origins while the
    single-configuration path read the new ones (a 1.0 m disagreement). Now the model refuses
    the rebinding, and both paths still give Pinocchio's poses.
    """
    model, pm, pin = panda
    rng = np.random.default_rng(11)
    Q = np.stack([pinocchio_oracle.random_q(model, rng) for _ in range(4)])
    kin.forward_kinematics(model, Q)  # compiles the plan
    shifted = np.array(model.joint_origins)
    shifted[:, 0, 3] += 1.0
    with pytest.raises(ImmutableModelError, match='joint_origins'):
        model.joint_origins = shifted
    with pytest.raises(ImmutableModelError):
        model.some_cache = {}  # nothing may be stored on a model from outside
    with pytest.raises(ImmutableModelError):
        del model.nq
    with pytest.raises(ValueError):  # arrays are read-only too
        model.joint_origins[0, 0, 3] = 1.0
    batched = kin.forward_kinematics(model, Q)
    for n in range(Q.shape[0]):
        single = kin.forward_kinematics(model, Q[n])
        for link, X in _pinocchio_link_poses(model, pm, pin, Q[n]).items():
            np.testing.assert_allclose(single[link], X, atol=TOL, rtol=0)
            np.testing.assert_allclose(batched[n, link], X, atol=TOL, rtol=0)


def test_no_layer_stores_anything_on_the_model(panda: tuple) -> None:
    """FK, Jacobians, bounds, RobotState and IK keep their plans in the model's own table."""
    model, _, _ = panda
    before = dict(vars(model))
    q = np.array(model.default_positions)
    kin.forward_kinematics(model, np.stack([q, q]))
    kin.jacobian(model, q, 'panda_hand')
    kin.difference(model, q, q)
    bounds.satisfies_bounds(model, q)
    state = RobotState(model)
    state.get_global_link_transform('panda_hand')
    X_WT = kin.forward_kinematics(model, q)[model.link_index('panda_hand')]
    assert solve_ik(model, IKRequest('arm', (X_WT,), ('panda_hand',), q, 0.05)).success
    assert set(vars(model)) == set(before)
    assert all(vars(model)[k] is v for k, v in before.items())


def test_kinematics_data_holds_fk_results(panda: tuple) -> None:
    """``KinematicsData`` (Pinocchio's Data) receives the FK of one configuration."""
    model, pm, pin = panda
    data = kin.KinematicsData(model)
    assert data.X_WL.shape == (model.link_count, 4, 4)
    q = pinocchio_oracle.random_q(model, np.random.default_rng(5))
    X_WL = kin.update_forward_kinematics(model, data, q)
    assert X_WL is data.X_WL
    for link, X in _pinocchio_link_poses(model, pm, pin, q).items():
        np.testing.assert_allclose(data.X_WL[link], X, atol=TOL, rtol=0)
    earlier = data.X_WL
    kin.update_forward_kinematics(model, data, np.array(model.default_positions))
    np.testing.assert_array_equal(earlier, X_WL)  # arrays handed out keep their values
    with pytest.raises(InvalidTypeError):
        kin.KinematicsData(object())  # type: ignore[arg-type]
    other = RobotModel.from_urdf_file(robot_corpus.test_robot('panda').urdf_path)
    with pytest.raises(ModelMismatchError):
        kin.update_forward_kinematics(other, data, q)


_MATH_NAMES = ('skew', 'wrap', 'quat', 'slerp', 'rpy_from', 'rotation_angle', 'rotation_log',
               'rotation_exp', 'rotation_from', 'rigid_inverse', 'euler')
_ENGINE_FOLDERS = ('model', 'kinematics', 'ik', 'state', 'scene')


def test_rotation_math_is_defined_only_in_spatial() -> None:
    """No engine module keeps a private copy of a rotation/quaternion/angle kernel."""
    copies = []
    for path in sorted(p for folder in _ENGINE_FOLDERS for p in (PACKAGE / folder).rglob('*.py')):
        name = str(path.relative_to(PACKAGE))
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                    m in node.name.lower() for m in _MATH_NAMES):
                copies.append(f'{name}:{node.lineno} {node.name}')
    # The rpy_floating joint view's public accessors are not kernels.
    allowed = {'get_angles', 'set_angles', 'get_default_angles', 'set_default_angles',
               'set_random_angles_distribution', '_rotation',
               # validation at the API boundary, delegating the math to spatial:
               'check_seed_quaternions', '_unit_quaternions', '_write_with_quaternions'}
    copies = [c for c in copies if c.split()[-1] not in allowed]
    assert copies == []
