"""Conversions between core arrays/dataclasses and ROS messages (no math here)."""

from __future__ import annotations

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from tf2_msgs.msg import TFMessage

from robot_state_core.frames import FrameTransforms


def tf_message(frames: FrameTransforms, stamp: Time, frame_prefix: str = '') -> TFMessage:
    """One ``TFMessage`` carrying every transform of ``frames``.

    Args:
        frames: ``n`` parent→child transforms.
        stamp: Header stamp for every transform.
        frame_prefix: Prepended to every parent and child frame id (robot_state_publisher's
            ``frame_prefix``).

    Returns:
        The message; transform ``i`` is ``frames`` entry ``i``.
    """
    p = frames.translations.tolist()
    q = frames.quats_xyzw.tolist()
    out = []
    for parent, child, (px, py, pz), (qx, qy, qz, qw) in zip(
            frames.parent_frames, frames.child_frames, p, q, strict=False):
        t = TransformStamped()
        t.header.stamp = stamp
        t.header.frame_id = frame_prefix + parent
        t.child_frame_id = frame_prefix + child
        tr, rot = t.transform.translation, t.transform.rotation
        tr.x, tr.y, tr.z = px, py, pz
        rot.x, rot.y, rot.z, rot.w = qx, qy, qz, qw
        out.append(t)
    return TFMessage(transforms=out)
