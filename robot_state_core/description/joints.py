"""Joint types and joint data (seed rows J-T*, J-P*, J-D6, J-7 safety, SG-C6/SG-C7).

A :class:`Joint` is an editable element of the tesseract-style
:class:`~robot_state_core.description.scene_graph.SceneGraph`: it connects a parent link P to a
child link C through ``X_PJ`` (the URDF ``<origin>``, parent link frame → joint frame) and a motion
that depends on the joint's variables. The child link frame is the joint frame moved by the motion:
``X_PC(q) = X_PJ @ X_JC(q)`` (J-P3..J-P5).

Variable layout per type (:data:`JOINT_TYPE_INFO`): MoveIt variable names ``<joint>/<suffix>``
for multi-DOF joints, plain ``<joint>`` for single-DOF joints. Velocities of FLOATING and
RPY_FLOATING joints follow Drake: ``[w_FM (3); v_FM (3)]``, angular first, expressed in the
parent frame F.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import enum
import math

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.spatial.transforms import as_pose

_IDENTITY = np.eye(4)


class JointType(enum.Enum):
    """Kinematic joint types (J-T1..J-T8). ``.value`` is the URDF spelling."""

    FIXED = 'fixed'
    REVOLUTE = 'revolute'
    CONTINUOUS = 'continuous'
    PRISMATIC = 'prismatic'
    PLANAR = 'planar'
    FLOATING = 'floating'
    RPY_FLOATING = 'rpy_floating'
    UNKNOWN = 'unknown'


@dataclass(frozen=True, slots=True)
class JointTypeInfo:
    """Variable layout and mobility of one joint type (J-G4..J-G6).

    Attributes:
        nq: Number of position variables.
        nv: Number of velocity variables (differs from ``nq`` for quaternion joints).
        position_suffixes: Suffix of each position variable (``''`` for single-DOF joints,
            whose variable is named after the joint).
        velocity_suffixes: Suffix of each velocity variable.
        can_rotate: The joint can change the child's orientation.
        can_translate: The joint can change the child's position.
        is_active: tesseract's "active joint" (SG-17): not FIXED, FLOATING or UNKNOWN.
        needs_limits: tesseract's ``SceneGraph::addJoint`` refuses the joint without limits
            (SG-14): every type but FIXED, FLOATING and CONTINUOUS (and our RPY_FLOATING).
    """

    nq: int
    nv: int
    position_suffixes: tuple[str, ...]
    velocity_suffixes: tuple[str, ...]
    can_rotate: bool
    can_translate: bool
    is_active: bool
    needs_limits: bool


JOINT_TYPE_INFO: dict[JointType, JointTypeInfo] = {
    JointType.FIXED: JointTypeInfo(0, 0, (), (), False, False, False, False),
    JointType.REVOLUTE: JointTypeInfo(1, 1, ('',), ('',), True, False, True, True),
    JointType.CONTINUOUS: JointTypeInfo(1, 1, ('',), ('',), True, False, True, False),
    JointType.PRISMATIC: JointTypeInfo(1, 1, ('',), ('',), False, True, True, True),
    JointType.PLANAR: JointTypeInfo(3, 3, ('x', 'y', 'theta'), ('x', 'y', 'theta'), True, True,
                                    True, True),
    JointType.FLOATING: JointTypeInfo(
        7, 6, ('trans_x', 'trans_y', 'trans_z', 'rot_x', 'rot_y', 'rot_z', 'rot_w'),
        ('wx', 'wy', 'wz', 'vx', 'vy', 'vz'), True, True, False, False),
    JointType.RPY_FLOATING: JointTypeInfo(
        6, 6, ('qx', 'qy', 'qz', 'x', 'y', 'z'), ('wx', 'wy', 'wz', 'vx', 'vy', 'vz'), True,
        True, True, False),
    JointType.UNKNOWN: JointTypeInfo(0, 0, (), (), False, False, False, False),
}


@dataclass(slots=True)
class JointLimits:
    """Joint limits (J-P6). Mutable: ``change_joint_limits`` assigns values in place (SG-21).

    Attributes:
        lower: Lower position limit [rad or m].
        upper: Upper position limit [rad or m].
        effort: Maximum effort [N·m or N].
        velocity: Maximum speed [rad/s or m/s].
        acceleration: Maximum acceleration [rad/s² or m/s²] (0: unspecified).
        jerk: Maximum jerk [rad/s³ or m/s³] (0: unspecified).
    """

    lower: float = 0.0
    upper: float = 0.0
    effort: float = 0.0
    velocity: float = 0.0
    acceleration: float = 0.0
    jerk: float = 0.0

    def copy(self) -> JointLimits:
        """An independent copy."""
        return JointLimits(self.lower, self.upper, self.effort, self.velocity,
                           self.acceleration, self.jerk)


@dataclass(slots=True)
class JointDynamics:
    """Joint dynamics (J-P7, J-D6): viscous ``damping`` and Coulomb ``friction`` (URDF: 0)."""

    damping: float = 0.0
    friction: float = 0.0


@dataclass(slots=True)
class JointMimic:
    """Mimic relation (J-P8): ``q = multiplier * q[joint_name] + offset``."""

    joint_name: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(slots=True)
class JointCalibration:
    """Calibration data (J-P10), stored only: reference position and rising/falling edges."""

    reference_position: float = 0.0
    rising: float | None = None
    falling: float | None = None


@dataclass(frozen=True, slots=True)
class SafetyBounds:
    """Velocity and effort bounds computed by :meth:`JointSafety.bounds` (seed §1.7)."""

    velocity_min: float
    velocity_max: float
    effort_min: float
    effort_max: float


@dataclass(slots=True)
class JointSafety:
    """The PR2 safety-controller parameters (J-P9) and the seed-002 formula.

    Attributes:
        soft_lower_limit: Soft lower position limit [rad or m].
        soft_upper_limit: Soft upper position limit [rad or m].
        k_position: Position gain [1/s].
        k_velocity: Velocity gain [N·m·s/rad or N·s/m].
    """

    soft_lower_limit: float = 0.0
    soft_upper_limit: float = 0.0
    k_position: float = 0.0
    k_velocity: float = 0.0

    def bounds(self, limits: JointLimits, position: float, velocity: float) -> SafetyBounds:
        """Velocity and effort bounds at ``(position, velocity)`` (seed §1.7, verbatim).

        Outside ``[soft_lower + v_max/k_p, soft_upper - v_max/k_p]`` the velocity bounds shrink
        linearly with the distance to the soft limit; outside the resulting velocity range the
        effort bounds shrink likewise. A zero gain disables the corresponding shrinking.

        Args:
            limits: The joint's hard limits (velocity and effort used).
            position: Joint position [rad or m].
            velocity: Joint velocity [rad/s or m/s].

        Returns:
            The velocity range and the effort range the command is saturated to.
        """
        v_lim, e_lim = limits.velocity, limits.effort
        vel_min, vel_max = -v_lim, v_lim
        if self.k_position > 0:
            lo = self.soft_lower_limit + v_lim / self.k_position
            hi = self.soft_upper_limit - v_lim / self.k_position
            if not lo <= position <= hi:
                vel_min = -v_lim + self.k_position * (position - self.soft_lower_limit)
                vel_max = v_lim + self.k_position * (position - self.soft_upper_limit)
        eff_min, eff_max = -e_lim, e_lim
        if self.k_velocity > 0:
            lo = vel_min + e_lim / self.k_velocity
            hi = vel_max - e_lim / self.k_velocity
            if not lo <= velocity <= hi:
                eff_min = -e_lim + self.k_velocity * (velocity - vel_min)
                eff_max = e_lim + self.k_velocity * (velocity - vel_max)
        return SafetyBounds(vel_min, vel_max, eff_min, eff_max)




@dataclass(eq=False, slots=True)
class Joint:
    """A joint of the scene graph (J-P1..J-P11, SG-C6).

    Attributes:
        name: Unique joint name.
        type: The joint type.
        parent_link_name: Parent link P.
        child_link_name: Child link C; its frame is the joint frame moved by the motion.
        parent_to_joint_origin_transform: ``X_PJ`` (4, 4), parent link frame → joint frame.
        axis: (3,) unit axis in the joint frame: rotation axis (revolute, continuous),
            translation axis (prismatic); unused otherwise. A planar joint ignores it: like
            MoveIt's ``PlanarJointModel`` it always moves in the joint frame's x-y plane and
            turns about z. Normalized on construction; a zero axis on a joint that uses it
            raises ``ValueError``.
        limits: Position/velocity/effort/acceleration/jerk limits, or ``None``.
        dynamics: Damping and friction, or ``None``.
        mimic: Mimic relation, or ``None``.
        safety: Safety-controller parameters, or ``None``.
        calibration: Calibration data, or ``None``.
    """

    name: str
    type: JointType
    parent_link_name: str = ''
    child_link_name: str = ''
    parent_to_joint_origin_transform: FloatArray = field(default_factory=lambda: np.eye(4))
    axis: FloatArray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    limits: JointLimits | None = None
    dynamics: JointDynamics | None = None
    mimic: JointMimic | None = None
    safety: JointSafety | None = None
    calibration: JointCalibration | None = None

    def __post_init__(self) -> None:
        for attribute in ('name', 'parent_link_name', 'child_link_name'):
            if not isinstance(getattr(self, attribute), str):
                raise InvalidTypeError(f'Joint: {attribute} must be a str, got '
                                       f'{getattr(self, attribute)!r}')
        if not isinstance(self.type, JointType):
            try:
                self.type = JointType(self.type)
            except ValueError:
                raise InvalidArgumentError(f'Joint {self.name!r}: unknown type {self.type!r}; '
                                           f'expected one of {[t.value for t in JointType]}'
                                           ) from None
        self.parent_to_joint_origin_transform = as_pose(
            self.parent_to_joint_origin_transform, f'Joint {self.name!r}', 'origin')
        try:
            axis = np.array(self.axis, dtype=np.float64).reshape(3)
        except (TypeError, ValueError) as err:
            raise InvalidArgumentError(f'Joint {self.name!r}: axis must be 3 numbers, got '
                                       f'{self.axis!r}') from err
        norm = float(np.linalg.norm(axis))
        uses_axis = self.type in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)
        if not math.isfinite(norm) or (uses_axis and norm < 1e-12):
            raise InvalidArgumentError(
                f'joint {self.name!r}: axis {axis.tolist()} cannot be normalized')
        self.axis = axis / norm if norm >= 1e-12 else np.array([1.0, 0.0, 0.0])

    @property
    def info(self) -> JointTypeInfo:
        """Variable layout and mobility of this joint's type."""
        return JOINT_TYPE_INFO[self.type]

    def variable_names(self) -> tuple[str, ...]:
        """MoveIt variable names: ``name`` for 1-DOF joints, ``name/suffix`` otherwise."""
        return tuple(self.name if not s else f'{self.name}/{s}'
                     for s in self.info.position_suffixes)

    def clone(self) -> Joint:
        """A deep copy (SG-40)."""
        return Joint(
            self.name, self.type, self.parent_link_name, self.child_link_name,
            self.parent_to_joint_origin_transform.copy(), self.axis.copy(),
            self.limits.copy() if self.limits else None,
            JointDynamics(self.dynamics.damping, self.dynamics.friction)
            if self.dynamics else None,
            JointMimic(self.mimic.joint_name, self.mimic.multiplier, self.mimic.offset)
            if self.mimic else None,
            JointSafety(self.safety.soft_lower_limit, self.safety.soft_upper_limit,
                        self.safety.k_position, self.safety.k_velocity)
            if self.safety else None,
            JointCalibration(self.calibration.reference_position, self.calibration.rising,
                             self.calibration.falling) if self.calibration else None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Joint):
            return NotImplemented
        return (self.name == other.name and self.type == other.type
                and self.parent_link_name == other.parent_link_name
                and self.child_link_name == other.child_link_name
                and np.array_equal(self.parent_to_joint_origin_transform,
                                   other.parent_to_joint_origin_transform)
                and np.array_equal(self.axis, other.axis) and self.limits == other.limits
                and self.dynamics == other.dynamics and self.mimic == other.mimic
                and self.safety == other.safety and self.calibration == other.calibration)

    __hash__ = None  # type: ignore[assignment]
