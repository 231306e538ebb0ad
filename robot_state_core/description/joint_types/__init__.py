"""One module per joint type: all of a type's math in one place (Pinocchio's ``JointModel``).

=============================  ==================  ==========================================
joint type                     module              math
=============================  ==================  ==========================================
FIXED                          :mod:`.fixed`       no variables
REVOLUTE, CONTINUOUS           :mod:`.revolute`    motion polynomial, column, integrate, ...
PRISMATIC                      :mod:`.prismatic`   motion polynomial, column, integrate, ...
PLANAR                         :mod:`.planar`      motion (numpy, compiled rows), columns, ...
FLOATING                       :mod:`.floating`    motion, quaternion test, columns, ...
RPY_FLOATING                   :mod:`.rpy_floating`  motion, columns, v ↔ q̇ maps, ...
mimic (a relation)             :mod:`.mimic`       chains, apply, Jacobian fold
=============================  ==================  ==========================================

Every module states ``NQ``, ``NV``, ``KERNEL_KIND`` (its code in the compiled FK),
``STATE_SPACE_DIMENSION`` (MoveIt's default distance factor) and ``TRANSLATION_VARIABLES``;
the moving types add ``velocity_columns`` (the motion subspace), ``integrate``,
``difference`` and ``positions_from_motion``; 1-DOF types give ``motion_coefficients``
(the polynomial the compiled FK evaluates), multi-DOF types ``motion`` (numpy, batched) and
``motion_rows`` (plain Python on floats, compiled into the FK kernels). Adding a joint type is
a module here plus its line in :data:`JOINT_TYPES` (and its branch in the compiled FK's
``local_rows``).
"""

from __future__ import annotations

from types import ModuleType

from robot_state_core.description.joint_types import (
    fixed,
    floating,
    mimic,
    planar,
    prismatic,
    revolute,
    rpy_floating,
)
from robot_state_core.description.joints import JointType

__all__ = ['JOINT_TYPES', 'fixed', 'floating', 'mimic', 'module_of', 'planar', 'prismatic',
           'revolute', 'rpy_floating']

JOINT_TYPES: dict[JointType, ModuleType] = {
    JointType.FIXED: fixed,
    JointType.REVOLUTE: revolute,
    JointType.CONTINUOUS: revolute,
    JointType.PRISMATIC: prismatic,
    JointType.PLANAR: planar,
    JointType.FLOATING: floating,
    JointType.RPY_FLOATING: rpy_floating,
}
'''The module holding each joint type's math.'''

MULTI_DOF: tuple[JointType, ...] = (JointType.PLANAR, JointType.FLOATING, JointType.RPY_FLOATING)
'''Types whose motion the compiled FK computes from ``motion_rows``.'''


def module_of(joint_type: JointType) -> ModuleType:
    """The module of ``joint_type`` (KeyError for UNKNOWN, which has no math)."""
    return JOINT_TYPES[joint_type]
