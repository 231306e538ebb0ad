"""JointState → transforms core (no ROS): multi-DOF names, mimic, rate limit, bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robot_state_core import kinematics as kin
from robot_state_core.default_robot import default_robot_urdf_path
from robot_state_core.robot_model import RobotModel
from robot_state_core.tf_publishing import TfPublishingCore
from robot_state_core.transforms import rotation_from_quat_xyzw

RESOURCES = Path(__file__).resolve().parent / 'resources'
S = 1_000_000_000


def _model(path: Path = RESOURCES / 'all_joint_types.urdf') -> RobotModel:
    return RobotModel.from_urdf_file(path)


def _compose(model: RobotModel, frames, q: np.ndarray) -> None:
    """Every published transform equals X_PC from the model's FK."""
    X = kin.forward_kinematics(model, q)
    for parent, child, p, quat in zip(frames.parent_frames, frames.child_frames,
                                      frames.translations, frames.quats_xyzw, strict=True):
        X_PC = np.linalg.inv(X[model.link_index(parent)]) @ X[model.link_index(child)]
        np.testing.assert_allclose(p, X_PC[:3, 3], atol=1e-12)
        np.testing.assert_allclose(rotation_from_quat_xyzw(quat), X_PC[:3, :3], atol=1e-12)


def test_multi_dof_joints_from_moveit_variable_names() -> None:
    """Planar, floating and rpy_floating joints are driven by their variable names."""
    model = _model()
    core = TfPublishingCore(model, ignore_timestamp=True)
    names = ['plane/x', 'plane/y', 'plane/theta', 'float/trans_z', 'float/rot_z', 'float/rot_w',
             'rpy/qx', 'rpy/z', 'rev']
    values = [0.1, -0.2, 0.7, 0.5, np.sin(0.2), np.cos(0.2), 0.3, 1.2, 1.0]
    update = core.process(names, values, 5 * S)
    assert update.problem == ''
    assert set(update.transforms.child_frames) == {'planar_body', 'floating_body', 'rpy_body',
                                                   'revolute_link'}
    _compose(model, update.transforms, core.positions)


def test_mimic_followers_are_published_with_their_source() -> None:
    """A mimic chain follows its source; explicit values for mimic joints are overridden."""
    model = _model()
    core = TfPublishingCore(model, ignore_timestamp=True)
    update = core.process(['finger_a_joint', 'finger_c_joint'], [0.03, 99.0], S)
    assert set(update.transforms.child_frames) == {'finger_a', 'finger_b', 'finger_c'}
    q = core.positions
    assert q[model.variable_index('finger_b_joint')] == 2 * 0.03 + 0.01
    assert q[model.variable_index('finger_c_joint')] == -0.5 * (2 * 0.03 + 0.01) + 0.2
    _compose(model, update.transforms, q)


def test_bad_messages_are_dropped_with_a_reason() -> None:
    """NaN/inf, length mismatch and empty messages are dropped; the state is untouched."""
    core = TfPublishingCore(_model(), ignore_timestamp=True)
    before = core.positions.copy()
    for names, values, fragment in ((['rev'], [np.nan], 'non-finite'),
                                    (['rev', 'cont'], [np.inf, 0.0], 'non-finite'),
                                    (['rev', 'cont'], [0.0], '2 names but 1 positions'),
                                    ([], [], 'no positions')):
        update = core.process(names, values, S)
        assert update.transforms is None
        assert fragment in update.problem
    np.testing.assert_array_equal(core.positions, before)


def test_unknown_names_reported_once_and_skipped() -> None:
    """Unknown names are reported the first time only; known ones still publish."""
    core = TfPublishingCore(_model(), ignore_timestamp=True)
    first = core.process(['bogus', 'rev'], [1.0, 1.0], S)
    second = core.process(['bogus', 'rev'], [1.0, 1.2], 2 * S)
    assert first.new_unknown_names == ('bogus',)
    assert second.new_unknown_names == ()
    assert second.transforms.child_frames == ('revolute_link',)


def test_rate_limit_on_stamps_like_robot_state_publisher() -> None:
    """20 Hz: a message 10 ms after the last publish is limited, 50 ms after is published."""
    core = TfPublishingCore(_model(), publish_frequency=20.0)
    assert core.process(['rev'], [1.0], 100 * S // 1000).transforms is not None
    assert core.process(['rev'], [1.1], 110 * S // 1000).rate_limited
    assert core.process(['rev'], [1.2], 150 * S // 1000).transforms is not None
    # a stamp going backwards (bag replay) clears the limiter
    back = core.process(['rev'], [1.3], 50 * S // 1000)
    assert back.clock_reset
    assert back.transforms is not None


def test_default_robot_planar_base_and_gripper() -> None:
    """The embedded robot's planar base and mimic gripper reach the transforms."""
    model = _model(default_robot_urdf_path())
    core = TfPublishingCore(model, ignore_timestamp=True)
    update = core.process(['base_joint/x', 'base_joint/theta', 'left_finger_joint'],
                          [1.0, 0.5, 0.03], S)
    assert {'base_link', 'left_finger_link', 'right_finger_link'} <= set(
        update.transforms.child_frames)
    _compose(model, update.transforms, core.positions)


def test_duplicated_name_takes_its_first_value_like_robot_state_publisher() -> None:
    """A name given twice in one JointState uses the first value (RSP's map emplace).

    Origin: ros/robot_state_publisher (kilted) src/robot_state_publisher.cpp, callbackJointState:
    ``joint_positions.emplace(name[i], position[i])`` keeps the first entry of a repeated key.
    """
    model = _model()
    core = TfPublishingCore(model, ignore_timestamp=True)
    update = core.process(['rev', 'cont', 'rev'], [0.25, 0.0, 1.5], S)
    assert update.problem == ''
    assert core.positions[model.variable_index('rev')] == 0.25
    _compose(model, update.transforms, core.positions)
    # a mimic source named twice drives its followers with the first value as well
    update = core.process(['finger_a_joint', 'finger_a_joint'], [0.03, 0.5], 2 * S)
    assert core.positions[model.variable_index('finger_b_joint')] == 2 * 0.03 + 0.01
    # the same name tuple again (cached resolution) still keeps the first value
    core.process(['rev', 'cont', 'rev'], [0.5, 0.0, -1.0], 3 * S)
    assert core.positions[model.variable_index('rev')] == 0.5


def test_publish_interval_is_truncated_to_whole_milliseconds() -> None:
    """30 Hz: RSP's interval is 33 ms (``milliseconds(uint64_t(1000.0 / 30.0))``), not 33.33 ms.

    Origin: ros/robot_state_publisher (kilted) src/robot_state_publisher.cpp, callbackJointState.
    """
    core = TfPublishingCore(_model(), publish_frequency=30.0)
    assert core.process(['rev'], [1.0], S).transforms is not None
    assert core.process(['rev'], [1.1], S + 32_999_999).rate_limited
    assert core.process(['rev'], [1.2], S + 33_000_000).transforms is not None


def test_no_rate_limit_at_zero_frequency_and_nothing_for_unknown_names() -> None:
    """docs/decisions.md R8 and R11: publish_frequency 0 means no limit; no moving joint, no TF."""
    core = TfPublishingCore(_model(), publish_frequency=0.0)
    assert core.process(['rev'], [1.0], S).transforms is not None
    assert core.process(['rev'], [1.1], S + 1).transforms is not None
    only_unknown = core.process(['bogus'], [1.0], 2 * S)
    assert only_unknown.transforms is None
    assert not only_unknown.rate_limited
    assert only_unknown.problem == ''
