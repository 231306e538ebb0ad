"""Fixed joints: no variables, the child link fixed at the joint origin (``X_FM = I``)."""

from __future__ import annotations

from robot_state_core.description.joints import Joint

NQ = 0
NV = 0
KERNEL_KIND = 0
'''The compiled FK's code of the type (:mod:`robot_state_core.kinematics.compiled`).'''
STATE_SPACE_DIMENSION = 0
'''MoveIt ``getStateSpaceDimension()``: the default distance factor.'''
ANGLE_VARIABLES: tuple[int, ...] = ()
'''Position variables that are angles [rad] (wrapped when unbounded: continuous joints).'''
TRANSLATION_VARIABLES: tuple[int, ...] = ()
'''Position variables that are translations [m].'''
ORIENTATION_VARIABLES: tuple[int, ...] = ()
'''Position variables that parameterise an orientation (sampled on SO(3)).'''
NEUTRAL: tuple[float, ...] = ()
'''The neutral configuration (Pinocchio ``neutral``): the default positions.'''


def position_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """No variables: no bounds."""
    return [], [], []
