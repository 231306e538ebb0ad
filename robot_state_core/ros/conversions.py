"""Conversions between core arrays/dataclasses and ROS messages (no math here)."""

from __future__ import annotations

from typing import Any

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
import numpy as np
from numpy.typing import NDArray
from tf2_msgs.msg import TFMessage

from robot_state_core.publishing.frame_transforms import FrameTransforms
from robot_state_core.publishing.markers import MarkerKind, MarkerSpec
from robot_state_core.spatial.transforms import quat_xyzw_from_rotation

_NS_PER_S = 1_000_000_000


def stamp_to_ns(stamp: Time) -> int:
    """A ``builtin_interfaces/Time`` as integer nanoseconds."""
    return int(stamp.sec) * _NS_PER_S + int(stamp.nanosec)


def joint_state_arrays(msg: Any) -> tuple[tuple[str, ...], NDArray[np.float64]]:
    """``(names, positions)`` of a sensor_msgs/JointState, positions without a copy.

    rosidl maps float64 sequences to ``array.array('d')``, which numpy reads through the buffer
    protocol (design study B4a step 2).
    """
    position = msg.position
    try:
        positions = np.frombuffer(position, dtype=np.float64)
    except TypeError:
        positions = np.asarray(position, dtype=np.float64)
    return tuple(msg.name), positions


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


def marker_array(specs: list[MarkerSpec], stamp: Time, frame_prefix: str = '',
                 delete_all_first: bool = False) -> Any:
    """A ``visualization_msgs/MarkerArray`` from marker specs (one Marker per spec).

    Args:
        specs: The markers (poses in their link frames, full sizes).
        stamp: Header stamp.
        frame_prefix: Prepended to every frame id.
        delete_all_first: Start with a DELETEALL marker (after a description change).
    """
    from visualization_msgs.msg import Marker, MarkerArray

    markers = []
    if delete_all_first:
        markers.append(Marker(action=Marker.DELETEALL))
    if specs:
        quats = quat_xyzw_from_rotation(np.stack([s.X_FK[:3, :3] for s in specs]))
    for spec, (qx, qy, qz, qw) in zip(specs, quats.tolist() if specs else [], strict=True):
        m = Marker()
        m.header.stamp = stamp
        m.header.frame_id = frame_prefix + spec.frame
        m.ns, m.id = spec.ns, spec.id
        m.type = spec.kind.value
        m.action = Marker.ADD
        px, py, pz = spec.X_FK[:3, 3].tolist()
        m.pose.position.x, m.pose.position.y, m.pose.position.z = px, py, pz
        m.pose.orientation.x, m.pose.orientation.y = qx, qy
        m.pose.orientation.z, m.pose.orientation.w = qz, qw
        m.scale.x, m.scale.y, m.scale.z = spec.scale
        m.color.r, m.color.g, m.color.b, m.color.a = spec.rgba
        m.frame_locked = True
        if spec.kind is MarkerKind.MESH_RESOURCE:
            m.mesh_resource = spec.mesh_uri
            m.mesh_use_embedded_materials = True
        markers.append(m)
    return MarkerArray(markers=markers)
