"""/tf serialized without message objects (robot_state_core.ros.tf_wire) vs rclpy.

The oracle is rclpy's own serializer and deserializer (the middleware's CDR type support, not
our code).
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')

from builtin_interfaces.msg import Time  # noqa: E402
from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from robot_state_core.publishing.frame_transforms import FrameTransforms  # noqa: E402
from robot_state_core.ros import tf_wire  # noqa: E402
from robot_state_core.ros.conversions import tf_message  # noqa: E402
from robot_state_core.ros.tf_wire import TfWireEncoder  # noqa: E402


def _frames(rng: np.random.Generator, n: int, tag: str = '') -> FrameTransforms:
    """``n`` transforms with frame ids of every length mod 4 (so every padding case occurs)."""
    def name(i: int, side: str) -> str:
        return f'{side}{tag}_{i}' + 'x' * int(rng.integers(0, 9))

    translations = rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-300, 300, size=(n, 3))
    translations[0, 0] = -0.0
    quats = rng.normal(size=(n, 4))
    return FrameTransforms(tuple(name(i, 'parent') for i in range(n)),
                           tuple(name(i, 'child') for i in range(n)),
                           translations, quats / np.linalg.norm(quats, axis=1, keepdims=True))


def _read(data: bytes) -> tuple[list[tuple[int, int, str, str]], np.ndarray]:
    """A serialized TFMessage decoded by rclpy: (stamp, frame ids) per transform, numbers."""
    msg = deserialize_message(data, TFMessage)
    ids = [(t.header.stamp.sec, t.header.stamp.nanosec, t.header.frame_id, t.child_frame_id)
           for t in msg.transforms]
    numbers = np.array([[t.transform.translation.x, t.transform.translation.y,
                         t.transform.translation.z, t.transform.rotation.x,
                         t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w]
                        for t in msg.transforms])
    return ids, numbers


def _same_bytes_but_padding(ours: bytes, theirs: bytes) -> None:
    """Byte equality where rclpy's bytes are defined.

    Its padding bytes are left as they were in memory, so they may differ between two
    serializations of one message; ours are 0.
    """
    assert len(ours) == len(theirs)
    a = np.frombuffer(ours, dtype=np.uint8)
    b = np.frombuffer(theirs, dtype=np.uint8)
    differ = np.flatnonzero(a != b)
    assert np.all(a[differ] == 0), f'non-padding bytes differ at {differ[:10]}'


def test_serialized_tf_equals_rclpy_for_random_frames_values_and_stamps() -> None:
    rng = np.random.default_rng(7)
    encoder = TfWireEncoder()
    for n in (1, 2, 3, 5, 44):
        frames = _frames(rng, n)
        first = encoder.encode(frames, Time(sec=1, nanosec=2), 'robot1/')
        assert isinstance(first, TFMessage)  # the layout is learnt from rclpy's serializer
        for _ in range(5):
            values = _frames(rng, n)
            frames = FrameTransforms(frames.parent_frames, frames.child_frames,
                                     values.translations, values.quats_xyzw)
            stamp = Time(sec=int(rng.integers(-2 ** 31, 2 ** 31)),
                         nanosec=int(rng.integers(0, 10 ** 9)))
            ours = encoder.encode(frames, stamp, 'robot1/')
            assert isinstance(ours, bytes)
            theirs = serialize_message(tf_message(frames, stamp, 'robot1/'))
            _same_bytes_but_padding(ours, theirs)
            ids, numbers = _read(ours)
            assert ids == [(stamp.sec, stamp.nanosec, 'robot1/' + p, 'robot1/' + c)
                           for p, c in zip(frames.parent_frames, frames.child_frames,
                                           strict=True)]
            expected = np.concatenate([frames.translations, frames.quats_xyzw], axis=1)
            assert np.array_equal(numbers.view(np.uint64), expected.view(np.uint64))  # bitwise


def test_frame_lists_alternate_and_the_layout_memory_is_bounded() -> None:
    rng = np.random.default_rng(8)
    encoder = TfWireEncoder(max_layouts=3)
    lists = [_frames(rng, k + 1, tag=str(k)) for k in range(5)]
    for round_ in range(3):
        for frames in lists:  # 5 lists through a memory of 3: relearnt, always right
            stamp = Time(sec=round_, nanosec=7)
            out = encoder.encode(frames, stamp)
            data = out if isinstance(out, bytes) else serialize_message(out)
            ids, numbers = _read(data)
            assert [i[3] for i in ids] == list(frames.child_frames)
            assert np.array_equal(numbers, np.concatenate(
                [frames.translations, frames.quats_xyzw], axis=1))
            assert len(encoder._layouts) <= 3


def test_non_ascii_frame_ids_use_their_utf8_byte_length() -> None:
    frames = FrameTransforms(('wörld',), ('link_ü',), np.array([[1.0, 2.0, 3.0]]),
                             np.array([[0.0, 0.0, 0.0, 1.0]]))
    encoder = TfWireEncoder()
    encoder.encode(frames, Time(sec=1))
    out = encoder.encode(frames, Time(sec=2, nanosec=3))
    assert isinstance(out, bytes)
    ids, numbers = _read(out)
    assert ids == [(2, 3, 'wörld', 'link_ü')]
    assert numbers.tolist() == [[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]]


def test_bytes_that_are_not_plain_little_endian_cdr_keep_the_message_path() -> None:
    """Negative control of the layout check: another encoding or a wrong count is refused."""
    frames = FrameTransforms(('a',), ('b',), np.zeros((1, 3)), np.array([[0.0, 0, 0, 1]]))
    data = serialize_message(tf_message(frames, Time(sec=1)))
    assert tf_wire._walk(data, 1) is not None
    assert tf_wire._walk(b'\x00\x00' + data[2:], 1) is None  # big-endian CDR
    assert tf_wire._walk(data, 2) is None  # not that many transforms
    assert tf_wire._walk(data + b'\x00' * 8, 1) is None  # trailing bytes
    layout = tf_wire._walk(data, 1)
    assert layout is not None and not layout.holds(
        FrameTransforms(('a',), ('b',), np.ones((1, 3)), np.array([[0.0, 0, 0, 1]])), Time(sec=1))
