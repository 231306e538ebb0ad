"""Named batches of parent→child transforms, the form TF consumes.

A :class:`FrameTransforms` holds ``n`` transforms ``X_PC`` (child frame C measured and expressed
in parent frame P) as arrays, so the ROS layer can build one ``TFMessage`` from it without a
per-joint Python loop over the math.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidTypeError
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import FloatArray, quat_xyzw_from_rotation


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


def fixed_joint_transforms(model: RobotModel) -> FrameTransforms:
    """The transforms of every fixed joint of a model (what ``/tf_static`` carries).

    Args:
        model: A :class:`~robot_state_core.model.robot_model.RobotModel`.

    Returns:
        One transform per fixed joint, ``X_PC`` = the joint origin ``X_PJ``, in model order.

    Raises:
        InvalidTypeError: ``model`` is not a RobotModel.
    """
    if not isinstance(model, RobotModel):
        raise InvalidTypeError(f'fixed_joint_transforms: model must be a RobotModel, got '
                               f'{type(model).__name__}')
    fixed = np.array([t is JointType.FIXED for t in model.joint_types], dtype=bool)
    X = model.joint_origins[fixed]
    return FrameTransforms(
        parent_frames=tuple(model.link_names[i] for i in model.joint_parent_link[fixed]),
        child_frames=tuple(model.link_names[i] for i in model.joint_child_link[fixed]),
        translations=X[:, :3, 3].copy(),
        quats_xyzw=quat_xyzw_from_rotation(X[:, :3, :3]).reshape(-1, 4),
    )
