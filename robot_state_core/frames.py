"""Named batches of parent→child transforms, the form TF consumes.

A :class:`FrameTransforms` holds ``n`` transforms ``X_PC`` (child frame C measured and expressed
in parent frame P) as arrays, so the ROS layer can build one ``TFMessage`` from it without a
per-joint Python loop over the math.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from robot_state_core.transforms import FloatArray, quat_xyzw_from_rotation, rotation_from_rpy


@dataclass(frozen=True, slots=True)
class FrameTransforms:
    """``n`` parent→child transforms.

    Attributes:
        parent_frames: ``n`` parent frame names.
        child_frames: ``n`` child frame names.
        translations: ``(n, 3)`` positions of C in P [m].
        quats_xyzw: ``(n, 4)`` unit quaternions (xyzw) of the rotation ``R_PC``.
    """

    parent_frames: tuple[str, ...]
    child_frames: tuple[str, ...]
    translations: FloatArray
    quats_xyzw: FloatArray

    def __len__(self) -> int:
        return len(self.child_frames)


def fixed_joint_transforms(urdf_robot: Any) -> FrameTransforms:
    """The transforms of every fixed joint of a parsed URDF (what ``/tf_static`` carries).

    Args:
        urdf_robot: A ``urdf_parser_py.urdf.Robot``.

    Returns:
        One transform per fixed joint, ``X_PC`` = the joint origin, in document order.
    """
    fixed = [j for j in urdf_robot.joints if j.type == 'fixed']
    xyz = np.array([(j.origin.xyz if j.origin is not None and j.origin.xyz is not None
                     else (0.0, 0.0, 0.0)) for j in fixed], dtype=np.float64).reshape(-1, 3)
    rpy = np.array([(j.origin.rpy if j.origin is not None and j.origin.rpy is not None
                     else (0.0, 0.0, 0.0)) for j in fixed], dtype=np.float64).reshape(-1, 3)
    return FrameTransforms(
        parent_frames=tuple(j.parent for j in fixed),
        child_frames=tuple(j.child for j in fixed),
        translations=xyz,
        quats_xyzw=quat_xyzw_from_rotation(rotation_from_rpy(rpy)).reshape(-1, 4),
    )
