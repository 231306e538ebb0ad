"""Per-joint parameters a joint type's configuration-space math reads (besides positions)."""

from __future__ import annotations

from dataclasses import dataclass

from robot_state_core._typing import BoolArray, FloatArray, IntArray


@dataclass(frozen=True)
class JointParameters:
    """The model's values for ``k`` joints of one type (arrays ``(k,)``, joint order).

    Attributes:
        wrap: The joint's angle is unbounded (continuous joints, planar θ): differences take
            the shortest arc and results are wrapped into ``[-π, π)``.
        angular_weight: SRDF ``angular_distance_weight`` (MoveIt; default 1).
        diff_drive: SRDF ``motion_model = diff_drive`` (planar joints: turn-drive-turn).
        min_translation: SRDF ``min_translational_distance`` [m] (planar diff drive).
    """

    wrap: BoolArray
    angular_weight: FloatArray
    diff_drive: BoolArray
    min_translation: FloatArray

    def __getitem__(self, keep: BoolArray | IntArray) -> JointParameters:
        """The parameters of the joints selected by ``keep`` (a mask or indices)."""
        return JointParameters(self.wrap[keep], self.angular_weight[keep],
                               self.diff_drive[keep], self.min_translation[keep])
