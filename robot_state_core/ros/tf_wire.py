"""/tf messages written straight into their serialized form (no message objects per message).

rclpy turns a ``TFMessage`` into bytes by converting every ``TransformStamped`` from Python in
``publish()``: ~6 µs per transform here (Talos: 44 transforms, 0.27 ms per message), on top of
setting its fields from Python. ``Publisher.publish`` also takes the serialized bytes
(``publish_raw``, both Jazzy and Kilted). For a recurring frame list only the stamps and the
seven numbers of each transform change, at fixed byte offsets, so :class:`TfWireEncoder` keeps
one serialized message per frame list — produced once by the middleware's own serializer
(``rclpy.serialization.serialize_message``), so the frame ids and lengths are exactly
its — and writes the new stamps and numbers into it with four numpy assignments.

The offsets come from walking the serialized message (plain CDR, little endian: a 4-byte
encapsulation header, then ``uint32`` counts/lengths aligned to 4, ``float64`` aligned to 8,
alignment counted from the end of the header; the padding is zeroed — the serializer leaves
whatever was in memory there, which no reader looks at). The walk is checked against the bytes
it walks: it must end exactly at the end, and the stamps and numbers found at the offsets must
be the ones serialized. Anything else (another encoding, another middleware) leaves that frame
list on the message-object path, which is always correct.
"""

from __future__ import annotations

from builtin_interfaces.msg import Time
import numpy as np
from rclpy.serialization import serialize_message
from tf2_msgs.msg import TFMessage

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.publishing.frame_transforms import FrameTransforms
from robot_state_core.ros.conversions import tf_message

#: Frame lists whose serialized form is kept, at most (a new one beyond clears them all).
MAX_LAYOUTS = 64
_HEADER = 4  # CDR encapsulation header: 00 01 (plain CDR, little endian) 00 00 (options)
_LITTLE_ENDIAN_CDR = b'\x00\x01'
_NUMBERS = 7  # translation x y z, rotation x y z w


def _align(offset: int, size: int) -> int:
    """``offset`` rounded up to a multiple of ``size`` counted from the end of the header."""
    return _HEADER + -(-(offset - _HEADER) // size) * size


class _Layout:
    """One frame list's serialized TFMessage, filled in place, and where its fields are.

    Attributes:
        buffer: The serialized message (its frame ids never change; stamps and numbers are
            overwritten per message).
        seconds, words, numbers: ``int32``, ``uint32`` and ``float64`` little-endian views of
            ``buffer`` from the end of the header on.
        stamps: ``(n,)`` index into ``words`` of each transform's ``stamp.sec`` (``seconds``
            through the same index; ``nanosec`` is the next word).
        translation, rotation: ``(n, 3)`` / ``(n, 4)`` indices into ``numbers`` of each
            transform's translation and rotation (xyzw).
    """

    def __init__(self, data: bytes, stamps: IntArray, numbers: IntArray) -> None:
        self.buffer = np.frombuffer(bytearray(data), dtype=np.uint8)
        body = self.buffer[_HEADER:]
        words = body[:body.size // 4 * 4]
        self.seconds, self.words = words.view('<i4'), words.view('<u4')
        self.numbers = body[:body.size // 8 * 8].view('<f8')
        self.stamps, self.nanoseconds = stamps, stamps + 1
        self.translation = numbers[:, None] + np.arange(3)
        self.rotation = numbers[:, None] + np.arange(3, _NUMBERS)

    def fill(self, translations: FloatArray, quats_xyzw: FloatArray, sec: int,
             nanosec: int) -> bytes:
        """The message with these stamps and numbers."""
        self.seconds[self.stamps] = sec
        self.words[self.nanoseconds] = nanosec
        self.numbers[self.translation] = translations
        self.numbers[self.rotation] = quats_xyzw
        return self.buffer.tobytes()

    def holds(self, frames: FrameTransforms, stamp: Time) -> bool:
        """The buffer has ``frames``' stamps and numbers (bit for bit) at the walked offsets."""
        found = np.concatenate([self.numbers[self.translation], self.numbers[self.rotation]],
                               axis=1)
        expected = np.concatenate([np.asarray(frames.translations, dtype=np.float64),
                                   np.asarray(frames.quats_xyzw, dtype=np.float64)], axis=1)
        return bool(np.all(self.seconds[self.stamps] == stamp.sec)
                    and np.all(self.words[self.nanoseconds] == stamp.nanosec)
                    and found.shape == expected.shape
                    and np.array_equal(found.view(np.uint64), expected.view(np.uint64)))


def _walk(data: bytes, count: int) -> _Layout | None:
    """Where the stamps and numbers of a serialized TFMessage of ``count`` transforms are.

    ``None`` if the bytes are not plain little-endian CDR of that many transforms.
    """
    if len(data) < _HEADER + 4 or data[:2] != _LITTLE_ENDIAN_CDR:
        return None
    if int.from_bytes(data[4:8], 'little') != count:
        return None
    clean = bytearray(data)  # the serializer leaves padding bytes as they were in memory
    offset = 8
    stamps, numbers = [], []

    def pad(to: int) -> int:
        aligned = _align(offset, to)
        clean[offset:aligned] = bytes(aligned - offset)  # zeros: deterministic bytes
        return aligned

    for _ in range(count):
        offset = pad(4)
        stamps.append((offset - _HEADER) // 4)
        offset += 8
        for _string in range(2):  # header.frame_id, child_frame_id: uint32 size (with NUL)
            offset = pad(4)
            if offset + 4 > len(data):
                return None
            offset += 4 + int.from_bytes(data[offset:offset + 4], 'little')
        offset = pad(8)
        numbers.append((offset - _HEADER) // 8)
        offset += 8 * _NUMBERS
    if offset != len(data):
        return None
    return _Layout(bytes(clean), np.asarray(stamps, dtype=np.intp),
                   np.asarray(numbers, dtype=np.intp))


class TfWireEncoder:
    """Serialized TFMessages for recurring frame lists (see the module docstring).

    Not thread-safe: one encoder per publishing callback (the buffers are reused).

    Args:
        max_layouts: Frame lists kept at most.
    """

    def __init__(self, max_layouts: int = MAX_LAYOUTS) -> None:
        self._layouts: dict[tuple[tuple[str, ...], tuple[str, ...], str], _Layout | None] = {}
        self._max_layouts = max_layouts

    def encode(self, frames: FrameTransforms, stamp: Time,
               frame_prefix: str = '') -> bytes | TFMessage:
        """``frames`` as one /tf message stamped ``stamp``, ready for ``Publisher.publish``.

        Args:
            frames: ``n`` parent→child transforms (finite; the TF core guarantees it).
            stamp: Header stamp of every transform.
            frame_prefix: Prepended to every frame id (robot_state_publisher's
                ``frame_prefix``).

        Returns:
            The serialized message, or the message object for a frame list whose serialized
            form could not be checked (the first message of a frame list is also the object:
            it is serialized here once, to learn the layout).
        """
        key = (frames.parent_frames, frames.child_frames, frame_prefix)
        try:
            layout = self._layouts[key]
        except KeyError:
            msg = tf_message(frames, stamp, frame_prefix)
            found = _walk(serialize_message(msg), len(frames))
            if found is not None and not found.holds(frames, stamp):
                found = None
            if len(self._layouts) >= self._max_layouts:
                self._layouts.clear()
            self._layouts[key] = found
            return msg
        if layout is None:
            return tf_message(frames, stamp, frame_prefix)
        return layout.fill(frames.translations, frames.quats_xyzw, stamp.sec, stamp.nanosec)
