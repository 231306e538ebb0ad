"""Historical name of :mod:`robot_state_core.spatial` (re-exports it unchanged).

The spatial-math kernels (rotations, quaternions, rpy, angles, SE(3)) live in
:mod:`robot_state_core.spatial`; this module keeps the older import path working for callers
that have not moved yet. New code imports from :mod:`robot_state_core.spatial`.
"""

from __future__ import annotations

from robot_state_core._typing import FloatArray as FloatArray
from robot_state_core.spatial import (
    as_pose,
    check_quat_xyzw,
    MAX_COORDINATE,
    normalize_quat_xyzw,
    pose_error,
    pose_from_xyz_rpy,
    quat_wxyz_from_xyzw,
    quat_xyzw_from_rotation,
    quat_xyzw_from_wxyz,
    QUATERNION_MAX_NORM,
    QUATERNION_MIN_NORM,
    RIGID_TOLERANCE,
    rotation_exp,
    rotation_from_quat_xyzw,
    rotation_from_rpy,
    rotation_log,
    skew,
)

__all__ = [
    'MAX_COORDINATE',
    'QUATERNION_MAX_NORM',
    'QUATERNION_MIN_NORM',
    'RIGID_TOLERANCE',
    'FloatArray',
    'as_pose',
    'check_quat_xyzw',
    'normalize_quat_xyzw',
    'pose_error',
    'pose_from_xyz_rpy',
    'quat_wxyz_from_xyzw',
    'quat_xyzw_from_rotation',
    'quat_xyzw_from_wxyz',
    'rotation_exp',
    'rotation_from_quat_xyzw',
    'rotation_from_rpy',
    'rotation_log',
    'skew',
]
