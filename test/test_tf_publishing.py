"""JointState → transforms core (no ROS): multi-DOF names, mimic, rate limit, bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robot_state_core import kinematics as kin
from robot_state_core.io.default_robot import default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.tf import TfPublishingCore
from robot_state_core.spatial.transforms import rotation_from_quat_xyzw

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


# ---------------------------------------------------------------------------- issue 10, node 1-2

ROT = ['float/rot_x', 'float/rot_y', 'float/rot_z', 'float/rot_w']


def _floating_pose(core: TfPublishingCore, update) -> np.ndarray:
    """X_PC of the floating joint's child as published, from the translation and quaternion."""
    k = update.transforms.child_frames.index('floating_body')
    X = np.eye(4)
    X[:3, :3] = rotation_from_quat_xyzw(update.transforms.quats_xyzw[k])
    X[:3, 3] = update.transforms.translations[k]
    return X


def test_degenerate_quaternions_are_rejected_and_never_stick() -> None:
    """Issue 10 node item 1: a zero, tiny or huge quaternion drops the message, stores nothing.

    Before: the zero quaternion was stored, so every later message (a translation-only update
    too) failed or published NaN. Now the message is refused with the joint named, the last
    good rotation is kept, and the next update publishes exactly what FK gives for it.
    """
    model = _model()
    core = TfPublishingCore(model, ignore_timestamp=True)
    yaw = 0.4
    good = core.process(ROT, [0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)], S)
    assert good.problem == ''
    stored = core.positions.copy()
    bad_values = ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1e-200], [0.0, 0.0, 0.0, 1e200],
                  [1e-13, 0.0, 0.0, 0.0])
    for k, values in enumerate(bad_values):
        update = core.process(ROT, values, (2 + k) * S)
        assert update.transforms is None
        assert "FLOATING joint 'float'" in update.problem and 'ignored' in update.problem
        np.testing.assert_array_equal(core.positions, stored)
    # a partial message making the stored quaternion degenerate is refused as well
    partial = core.process(['float/rot_z', 'float/rot_w'], [0.0, 0.0], 10 * S)
    assert partial.transforms is None and 'zero quaternion' in partial.problem
    # translation-only update afterwards: finite, with the last good rotation
    update = core.process(['float/trans_x'], [0.25], 11 * S)
    assert update.problem == ''
    X = _floating_pose(core, update)
    assert np.isfinite(X).all()
    q = stored.copy()
    q[model.variable_index('float/trans_x')] = 0.25
    X_WL = kin.forward_kinematics(model, q)
    X_PC = np.linalg.inv(X_WL[model.link_index('world')]) @ X_WL[model.link_index('floating_body')]
    np.testing.assert_allclose(X, X_PC, atol=1e-12)
    np.testing.assert_allclose(X[:3, :3], _floating_pose(core, good)[:3, :3], atol=1e-15)


def test_rate_limited_messages_are_validated_too() -> None:
    """A degenerate quaternion inside the rate limit is refused as well (it would be stored)."""
    core = TfPublishingCore(_model(), publish_frequency=20.0)
    assert core.process(['float/trans_x'], [0.1], S).transforms is not None
    limited = core.process(ROT, [0.0, 0.0, 0.0, 0.0], S + 1_000_000)  # 1 ms later
    assert not limited.rate_limited and 'zero quaternion' in limited.problem
    later = core.process(['float/trans_y'], [0.2], 2 * S)
    assert later.transforms is not None and np.isfinite(later.transforms.quats_xyzw).all()


def test_mimic_overflow_is_rejected() -> None:
    """A finite source whose mimic follower overflows (2 x 1e308) drops the whole message."""
    core = TfPublishingCore(_model(), ignore_timestamp=True)
    update = core.process(['finger_a_joint'], [1e308], S)
    assert update.transforms is None and 'finger_b_joint' in update.problem
    assert np.isfinite(core.positions).all()


def test_name_memories_are_bounded() -> None:
    """Issue 10 node item 2: fresh names in every message cannot grow the core without bound.

    Before: 100 messages of 10 000 fresh names added ~117 MiB (the name-tuple cache kept 256
    tuples of any size; the reported-name set grew forever). The cache is an LRU bounded in
    bytes, the reported-name memory stops at MAX_REPORTED_UNKNOWN names and the rest is
    returned as a count with examples for a throttled summary.
    """
    import tracemalloc

    from robot_state_core.publishing import tf as tfp

    core = TfPublishingCore(_model(), ignore_timestamp=True)
    counter = iter(range(10 ** 9))
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        remembered = unremembered = 0
        for k in range(30):
            names = [f'unknown_joint_{next(counter):09d}' for _ in range(5000)] + ['rev']
            update = core.process(names, np.zeros(len(names)), (k + 1) * S)
            assert update.transforms is not None  # the known name still publishes
            remembered += len(update.new_unknown_names)
            unremembered += update.unremembered_unknown
            assert len(update.unremembered_examples) <= tfp.UNKNOWN_EXAMPLES
            del names, update
        grown = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()
    use = core.memory_use
    assert use['cached_name_bytes'] <= tfp.MAX_CACHED_NAME_BYTES
    assert use['cached_name_tuples'] <= tfp.MAX_CACHED_NAME_TUPLES
    assert use['reported_unknown_names'] == remembered <= tfp.MAX_REPORTED_UNKNOWN
    assert use['reported_unknown_bytes'] <= tfp.MAX_REPORTED_UNKNOWN_BYTES
    assert remembered + unremembered == 30 * 5000  # every unknown name is accounted for
    # 150 000 names of 22 characters (~10 MiB as str objects) went through; what stays is
    # the two bounded memories
    assert grown < tfp.MAX_CACHED_NAME_BYTES + tfp.MAX_REPORTED_UNKNOWN_BYTES + 2 * 2 ** 20, grown


def test_repeated_name_tuples_stay_cached() -> None:
    """The LRU keeps a driver's recurring name tuple while hostile tuples pass through."""
    core = TfPublishingCore(_model(), ignore_timestamp=True)
    driver = ('rev', 'cont')
    core.process(driver, [0.1, 0.2], S)
    for k in range(300):  # more distinct tuples than the cache holds
        core.process(driver, [0.1, 0.2], (2 * k + 2) * S)
        core.process(('rev', f'noise_{k}'), [0.3, 0.0], (2 * k + 3) * S)
    assert core._cache.get(driver) is not None
