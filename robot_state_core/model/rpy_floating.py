"""Drake's ``RpyFloatingJoint`` (seed 001): a free 6-DOF joint with roll-pitch-yaw orientation.

The joint lets frame M on the child body move freely relative to frame F on the parent body
(J-T8). It is a thin class (design study B1) over the kernels in
:mod:`robot_state_core.description.joint_types.rpy_floating`, which state the conventions:

* positions ``q = [roll, pitch, yaw, x, y, z]`` (angles FIRST, rad; then ``p_FM``, m);
* velocities ``v = [w_FM; v_FM]`` (angular FIRST, both expressed in F; not the angle rates);
* ``R_FM = Rz(yaw) @ Ry(pitch) @ Rx(roll)``; gimbal lock at ``pitch = π/2 + kπ``.

The joint *model* holds names, limits, damping, defaults and random distributions. Values live
in a *context*: any object with writable 1-D float arrays ``positions`` (full q) and
``velocities`` (full v), see :class:`JointContextLike` and the concrete :class:`JointContext`.
The joint reads and writes only its slices ``[position_start() : position_start() + 6]`` and
``[velocity_start() : velocity_start() + 6]``, in place. Getters return copies.

Seed-name mapping (Drake → here): ``kTypeName`` → ``TYPE_NAME``; ``SetOrientation`` →
``set_orientation``; ``SetTranslation`` → ``set_translation``; ``GetPose``/``SetPose`` →
``get_pose``/``set_pose``; ``SetDefaultPose``/``GetDefaultPose`` →
``set_default_pose``/``get_default_pose``; ``GetPositions``/``SetPositions`` (and velocities)
→ ``get_positions``/``set_positions``; ``GetSpatialVelocity``/``SetSpatialVelocity`` →
``get_spatial_velocity``/``set_spatial_velocity``; ``AddInDamping`` → ``add_in_damping``;
``AddInOneForce`` → ``add_in_one_force``; ``GetOnePosition``/``GetOneVelocity`` →
``get_one_position``/``get_one_velocity``; ``MapVelocityToQDot``/``MapQDotToVelocity`` →
``map_velocity_to_qdot``/``map_qdot_to_velocity``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import math
from typing import ClassVar, Protocol, TypeAlias
import warnings

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.description.joint_types.rpy_floating import (
    rpy_floating_map_qdot_to_velocity,
    rpy_floating_map_velocity_to_qdot,
    rpy_floating_pose,
    rpy_from_rotation,
    RPY_SINGULARITY_COS_TOL,
    RPY_WARNING_COS_TOL,
)
from robot_state_core.description.joints import JOINT_TYPE_INFO, JointType
from robot_state_core.errors import InvalidArgumentError, SingularityError

__all__ = [
    'JointContext',
    'JointContextLike',
    'RpyFloatingJoint',
    'VectorDistribution',
    'VectorSampler',
]

VectorSampler: TypeAlias = Callable[[np.random.Generator], ArrayLike]
'''A callable drawing one ``(3,)`` sample from the generator it is given (and nothing else).'''

VectorDistribution: TypeAlias = VectorSampler | tuple[ArrayLike, ArrayLike]
'''A :data:`VectorSampler`, or a ``(lower, upper)`` pair of 3-vectors meaning uniform.'''

_INFO = JOINT_TYPE_INFO[JointType.RPY_FLOATING]
_NQ = _INFO.nq
_NV = _INFO.nv

_ROTATION_TOL = 1e-6
'''Max deviation of ``RᵀR`` from I (and of the pose's last row) accepted for ``R_FM``/``X_FM``.'''

_PROBE_SAMPLES = 64
'''Samples drawn from a new angles sampler to validate it and to estimate its pitch range.'''

_PROBE_SEED = 0

_SINGULARITY_HINT = (
    'the rpy angles are ill-conditioned there and mapping v → q̇ raises SingularityError '
    f'below |cos(pitch)| = {RPY_SINGULARITY_COS_TOL:g}; consider a quaternion FLOATING joint '
    '(JointType.FLOATING) instead')


class JointContextLike(Protocol):
    """What a joint needs from a state container (Drake's Context; J-G16).

    ``positions`` is the full q vector and ``velocities`` the full v vector: 1-D float arrays
    that the joint reads by slicing and writes in place. ``RobotState`` will satisfy this.
    """

    @property
    def positions(self) -> FloatArray:
        """Full generalized positions q, shape (nq,), writable in place."""
        ...

    @property
    def velocities(self) -> FloatArray:
        """Full generalized velocities v, shape (nv,), writable in place."""
        ...


@dataclass(slots=True)
class JointContext:
    """A minimal concrete context: the full q and v vectors (copied to 1-D float64 arrays).

    Attributes:
        positions: ``(nq,)`` generalized positions of the whole system.
        velocities: ``(nv,)`` generalized velocities of the whole system.
    """

    positions: FloatArray
    velocities: FloatArray

    def __post_init__(self) -> None:
        self.positions = _as_1d(self.positions, 'positions')
        self.velocities = _as_1d(self.velocities, 'velocities')

    @classmethod
    def zeros(cls, num_positions: int, num_velocities: int) -> JointContext:
        """A context of ``num_positions`` zero positions and ``num_velocities`` zero velocities."""
        return cls(np.zeros(num_positions), np.zeros(num_velocities))


def _as_1d(value: ArrayLike, argument: str) -> FloatArray:
    arr = np.array(value, dtype=np.float64)
    if arr.ndim != 1:
        raise InvalidArgumentError(f'JointContext: {argument} must be 1-D, got shape {arr.shape}')
    return arr


def _pitch_range_near_singular(lower: float, upper: float) -> bool:
    """True if ``[lower, upper]`` meets ``{pitch : |cos(pitch)| < RPY_WARNING_COS_TOL}``."""
    delta = math.asin(RPY_WARNING_COS_TOL)
    k = math.floor((lower - delta - math.pi / 2) / math.pi) + 1  # first π/2 + kπ > lower - δ
    return math.pi / 2 + k * math.pi - delta < upper


class RpyFloatingJoint:
    """A free joint whose orientation is parameterized by roll-pitch-yaw angles (J-T8, J-R*).

    Frame M (on the child body) translates and rotates freely relative to frame F (on the parent
    body): ``q = [roll, pitch, yaw, x, y, z]``, ``v = [w_FM; v_FM]`` expressed in F, and
    ``X_FM(q) = (Rz(yaw) Ry(pitch) Rx(roll), p_FM)``.

    Warning:
        Any three-parameter orientation has a singularity; here it is ``pitch = π/2 + kπ``.
        Setting angles within ``|cos(pitch)| <`` :data:`RPY_WARNING_COS_TOL` issues a
        ``RuntimeWarning``; the v → q̇ maps raise :class:`SingularityError` below
        ``|cos(pitch)| <`` :data:`RPY_SINGULARITY_COS_TOL`. Use a quaternion FLOATING joint
        when the motion may approach it.

    Attributes:
        TYPE_NAME: ``'rpy_floating'`` (Drake ``kTypeName``, J-R2).
        JOINT_TYPE: :attr:`JointType.RPY_FLOATING`.
    """

    TYPE_NAME: ClassVar[str] = 'rpy_floating'
    JOINT_TYPE: ClassVar[JointType] = JointType.RPY_FLOATING

    def __init__(self, name: str, frame_on_parent: str, frame_on_child: str,
                 angular_damping: float = 0.0, translational_damping: float = 0.0, *,
                 position_start: int = 0, velocity_start: int = 0) -> None:
        """Create a joint with no limits and zero default state (J-R1, J-G1).

        Position, velocity and acceleration limits are all ``(-inf, inf)``; default positions
        are zero; default velocities are always zero (J-R18).

        Args:
            name: Joint name (non-empty).
            frame_on_parent: Name of frame F, attached to the parent body P.
            frame_on_child: Name of frame M, attached to the child body B.
            angular_damping: Viscous damping ``d ≥ 0`` [N·m·s] of ``w_FM`` (J-R3, J-D1).
            translational_damping: Viscous damping ``d ≥ 0`` [N·s/m] of ``v_FM`` (J-R4, J-D2).
            position_start: Index of this joint's first position in the full q (J-G4).
            velocity_start: Index of this joint's first velocity in the full v (J-G4).

        Raises:
            ValueError: A damping is negative or not finite (J-D4), a name is empty, or a
                start index is negative.
        """
        where = f'RpyFloatingJoint({name!r})'
        for argument, value in (('name', name), ('frame_on_parent', frame_on_parent),
                                ('frame_on_child', frame_on_child)):
            if not isinstance(value, str) or not value:
                raise InvalidArgumentError(
                    f'{where}: {argument} must be a non-empty string, got {value!r}')
        for argument, start in (('position_start', position_start),
                                ('velocity_start', velocity_start)):
            if isinstance(start, bool) or not isinstance(start, int | np.integer) or start < 0:
                raise InvalidArgumentError(
                    f'{where}: {argument} must be a non-negative int, got {start!r}')
        self._name = name
        self._frame_on_parent = frame_on_parent
        self._frame_on_child = frame_on_child
        self._position_start = int(position_start)
        self._velocity_start = int(velocity_start)
        d_ang = _check_damping(angular_damping, where, 'angular_damping', 'N·m·s')
        d_trans = _check_damping(translational_damping, where, 'translational_damping', 'N·s/m')
        self._damping: FloatArray = np.array([d_ang] * 3 + [d_trans] * 3)
        self._position_lower = np.full(_NQ, -np.inf)
        self._position_upper = np.full(_NQ, np.inf)
        self._velocity_lower = np.full(_NV, -np.inf)
        self._velocity_upper = np.full(_NV, np.inf)
        self._acceleration_lower = np.full(_NV, -np.inf)
        self._acceleration_upper = np.full(_NV, np.inf)
        self._default_positions = np.zeros(_NQ)
        self._angles_sampler: VectorSampler | None = None
        self._translation_sampler: VectorSampler | None = None

    # ----------------------------------------------------------------------------------------
    # Identity, topology and layout (J-R2, J-G2..J-G6)

    def type_name(self) -> str:
        """Return ``'rpy_floating'``, the name of this joint type (J-R2)."""
        return self.TYPE_NAME

    @property
    def name(self) -> str:
        """The joint name (J-G2)."""
        return self._name

    @property
    def frame_on_parent(self) -> str:
        """Name of frame F, attached to the parent body (J-G3)."""
        return self._frame_on_parent

    @property
    def frame_on_child(self) -> str:
        """Name of frame M, attached to the child body (J-G3)."""
        return self._frame_on_child

    def num_positions(self) -> int:
        """Return 6, the number of generalized positions (J-G4)."""
        return _NQ

    def num_velocities(self) -> int:
        """Return 6, the number of generalized velocities (J-G4)."""
        return _NV

    def position_start(self) -> int:
        """Index of this joint's first position within the full q vector (J-G4)."""
        return self._position_start

    def velocity_start(self) -> int:
        """Index of this joint's first velocity within the full v vector (J-G4)."""
        return self._velocity_start

    def can_rotate(self) -> bool:
        """Return True: the joint allows relative rotation of F and M (J-G5)."""
        return _INFO.can_rotate

    def can_translate(self) -> bool:
        """Return True: the joint allows relative translation of F and M (J-G5)."""
        return _INFO.can_translate

    def position_suffix(self, position_index_in_joint: int) -> str:
        """Suffix of one position variable: ``qx, qy, qz, x, y, z`` (J-G6).

        Args:
            position_index_in_joint: 0..5 (negative indices are not accepted).

        Raises:
            IndexError: The index is outside ``[0, 6)``.
        """
        return self._suffix(_INFO.position_suffixes, position_index_in_joint, 'position_suffix')

    def velocity_suffix(self, velocity_index_in_joint: int) -> str:
        """Suffix of one velocity variable: ``wx, wy, wz, vx, vy, vz`` (J-G6).

        Args:
            velocity_index_in_joint: 0..5 (negative indices are not accepted).

        Raises:
            IndexError: The index is outside ``[0, 6)``.
        """
        return self._suffix(_INFO.velocity_suffixes, velocity_index_in_joint, 'velocity_suffix')

    def _suffix(self, suffixes: tuple[str, ...], index: int, method: str) -> str:
        if isinstance(index, bool) or not isinstance(index, int | np.integer) or not (
                0 <= index < len(suffixes)):
            raise IndexError(f'{self._where(method)}: index {index!r} is out of range '
                             f'[0, {len(suffixes)})')
        return suffixes[int(index)]

    # ----------------------------------------------------------------------------------------
    # Limits (J-R1, J-G13, J-G14)

    def position_lower_limits(self) -> FloatArray:
        """``(6,)`` position lower limits; ``-inf`` unless set (J-R1, J-G13)."""
        return self._position_lower.copy()

    def position_upper_limits(self) -> FloatArray:
        """``(6,)`` position upper limits; ``+inf`` unless set (J-R1, J-G13)."""
        return self._position_upper.copy()

    def velocity_lower_limits(self) -> FloatArray:
        """``(6,)`` velocity lower limits; ``-inf`` unless set (J-R1, J-G13)."""
        return self._velocity_lower.copy()

    def velocity_upper_limits(self) -> FloatArray:
        """``(6,)`` velocity upper limits; ``+inf`` unless set (J-R1, J-G13)."""
        return self._velocity_upper.copy()

    def acceleration_lower_limits(self) -> FloatArray:
        """``(6,)`` acceleration lower limits; ``-inf`` unless set (J-R1, J-G13)."""
        return self._acceleration_lower.copy()

    def acceleration_upper_limits(self) -> FloatArray:
        """``(6,)`` acceleration upper limits; ``+inf`` unless set (J-R1, J-G13)."""
        return self._acceleration_upper.copy()

    def set_position_limits(self, lower_limits: ArrayLike, upper_limits: ArrayLike) -> None:
        """Set the ``(6,)`` position limits, in q order (J-G14). ``±inf`` means unbounded.

        Raises:
            ValueError: A shape is not ``(6,)``, a value is NaN, or ``lower > upper``.
        """
        self._position_lower, self._position_upper = self._limits(
            lower_limits, upper_limits, _NQ, 'set_position_limits')

    def set_velocity_limits(self, lower_limits: ArrayLike, upper_limits: ArrayLike) -> None:
        """Set the ``(6,)`` velocity limits, in v order ``[w_FM; v_FM]`` (J-G14).

        Raises:
            ValueError: A shape is not ``(6,)``, a value is NaN, or ``lower > upper``.
        """
        self._velocity_lower, self._velocity_upper = self._limits(
            lower_limits, upper_limits, _NV, 'set_velocity_limits')

    def set_acceleration_limits(self, lower_limits: ArrayLike, upper_limits: ArrayLike) -> None:
        """Set the ``(6,)`` acceleration limits, in v order (J-G14).

        Raises:
            ValueError: A shape is not ``(6,)``, a value is NaN, or ``lower > upper``.
        """
        self._acceleration_lower, self._acceleration_upper = self._limits(
            lower_limits, upper_limits, _NV, 'set_acceleration_limits')

    def _limits(self, lower: ArrayLike, upper: ArrayLike, n: int,
                method: str) -> tuple[FloatArray, FloatArray]:
        lo = self._vector(lower, n, method, 'lower_limits', allow_inf=True)
        up = self._vector(upper, n, method, 'upper_limits', allow_inf=True)
        bad = np.flatnonzero(lo > up)
        if bad.size:
            raise InvalidArgumentError(
                f'{self._where(method)}: lower_limits > upper_limits at indices '
                f'{bad.tolist()} (lower {lo[bad].tolist()}, upper '
                f'{up[bad].tolist()})')
        return lo, up

    # ----------------------------------------------------------------------------------------
    # Damping (J-R3, J-R4, J-D1..J-D5, J-G8, J-G9, J-G11)

    def default_angular_damping(self) -> float:
        """Angular damping ``d`` [N·m·s]: ``τ = -d·w_FM``, torque on the child body (J-R3, J-D1).

        Element 0 of :meth:`default_damping_vector` (as in Drake): the one coefficient used for
        all three components of ``w_FM``.
        """
        return float(self._damping[0])

    def default_translational_damping(self) -> float:
        """Translational damping ``d`` [N·s/m]: ``f = -d·v_FM``, force on the child at Mo (J-R4).

        Element 3 of :meth:`default_damping_vector` (as in Drake): the one coefficient used for
        all three components of ``v_FM`` (J-D2).
        """
        return float(self._damping[3])

    def default_damping_vector(self) -> FloatArray:
        """``(6,)`` damping per velocity as stored: ``[d_ang]*3 + [d_trans]*3`` (J-D3, J-G11).

        A vector set by :meth:`set_default_damping_vector` is returned as given, but only its
        elements 0 and 3 act (see :meth:`damping_forces`).
        """
        return self._damping.copy()

    def set_default_damping_vector(self, damping: ArrayLike) -> None:
        """Set the ``(6,)`` damping per velocity, in v order (J-G11).

        As in Drake, the joint is isotropic: only ``damping[0]`` (angular, all of ``w_FM``) and
        ``damping[3]`` (translational, all of ``v_FM``) act; the other four are stored and
        returned but unused (Drake's ``RpyFloatingJoint::DoAddInDamping`` reads elements 0
        and 3 only).

        Raises:
            ValueError: The shape is not ``(6,)`` or a value is negative or not finite (J-D4).
        """
        d = self._vector(damping, _NV, 'set_default_damping_vector', 'damping')
        if np.any(d < 0.0):
            raise InvalidArgumentError(
                f'{self._where("set_default_damping_vector")}: damping must be '
                f'non-negative, got {d.tolist()}')
        self._damping = d

    def damping_forces(self, context: JointContextLike) -> FloatArray:
        """Generalized damping forces of this joint (J-D1, J-D2; seed: ``τ = -d·ω``).

        Drake's rule, for any damping vector ``d``: ``τ = -d[0]·w_FM`` and ``f = -d[3]·v_FM``
        (:meth:`default_angular_damping`, :meth:`default_translational_damping`).

        Returns:
            ``(6,)`` ``[τ; f]``: the torque on the child body [N·m] and the force on the child
            body at Mo [N], both expressed in F.
        """
        v = self._v(context, 'damping_forces')
        out: FloatArray = np.concatenate([-self._damping[0] * v[0:3], -self._damping[3] * v[3:6]])
        return out

    def add_in_damping(self, context: JointContextLike, forces: FloatArray) -> None:
        """Add :meth:`damping_forces` into the full generalized-force vector (J-D5, J-G9).

        Unlike Drake's ``DoAddInDamping``, which assigns the damping forces to the joint's slice
        (overwriting what ``forces`` held there), this adds them, as the method's name and
        Drake's documentation say (decision F-1).

        Args:
            context: Supplies v.
            forces: ``(nv,)`` generalized forces of the whole system, modified in place at
                ``[velocity_start() : velocity_start() + 6]``.

        Raises:
            ValueError: ``forces`` is not a writable 1-D float array long enough.
        """
        view = self._slice(forces, self._velocity_start, _NV, 'add_in_damping', 'forces')
        view += self.damping_forces(context)

    def add_in_one_force(self, context: JointContextLike, joint_dof: int, joint_tau: float,
                         forces: FloatArray) -> None:
        """Per-DOF forces are not supported by rpy_floating joints (J-G8).

        Raises:
            TypeError: Always, as Drake's ``DoAddInOneForce`` throws; apply a spatial force to
                the child body (or add into ``forces`` at the velocity slice) instead.
        """
        raise TypeError(f'{self._where("add_in_one_force")}: adding a force on one degree of '
                        f'freedom (joint_dof={joint_dof!r}) is not supported by rpy_floating '
                        f'joints; add a spatial force on the child body instead')

    # ----------------------------------------------------------------------------------------
    # Context access (J-R5..J-R13, J-G7, J-G16, J-G18, J-G19)

    def get_positions(self, context: JointContextLike) -> FloatArray:
        """``(6,)`` copy of this joint's ``q = [roll, pitch, yaw, x, y, z]`` (J-G16)."""
        return self._q(context, 'get_positions').copy()

    def set_positions(self, context: JointContextLike, positions: ArrayLike) -> RpyFloatingJoint:
        """Write this joint's ``(6,)`` q into ``context`` (J-G16). No singularity warning.

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(6,)`` or a value is not finite; bad context.
        """
        self._q(context, 'set_positions')[:] = self._vector(positions, _NQ, 'set_positions',
                                                            'positions')
        return self

    def get_velocities(self, context: JointContextLike) -> FloatArray:
        """``(6,)`` copy of this joint's ``v = [w_FM; v_FM]`` (expressed in F) (J-G16)."""
        return self._v(context, 'get_velocities').copy()

    def set_velocities(self, context: JointContextLike,
                       velocities: ArrayLike) -> RpyFloatingJoint:
        """Write this joint's ``(6,)`` ``v = [w_FM; v_FM]`` into ``context`` (J-G16).

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(6,)`` or a value is not finite; bad context.
        """
        self._v(context, 'set_velocities')[:] = self._vector(velocities, _NV, 'set_velocities',
                                                             'velocities')
        return self

    def get_one_position(self, context: JointContextLike) -> float:
        """Only single-DOF joints have one position (J-G7).

        Raises:
            TypeError: Always; this joint has 6 positions, use :meth:`get_positions`.
        """
        raise TypeError(f'{self._where("get_one_position")}: only joints with a single degree '
                        f'of freedom have one position; this joint has {_NQ}, use get_positions')

    def get_one_velocity(self, context: JointContextLike) -> float:
        """Only single-DOF joints have one velocity (J-G7).

        Raises:
            TypeError: Always; this joint has 6 velocities, use :meth:`get_velocities`.
        """
        raise TypeError(f'{self._where("get_one_velocity")}: only joints with a single degree '
                        f'of freedom have one velocity; this joint has {_NV}, use get_velocities')

    def get_angles(self, context: JointContextLike) -> FloatArray:
        """``(3,)`` roll-pitch-yaw angles ``[θr, θp, θy]`` [rad], i.e. ``q[0:3]`` (J-R5)."""
        return self._q(context, 'get_angles')[0:3].copy()

    def set_angles(self, context: JointContextLike, angles: ArrayLike) -> RpyFloatingJoint:
        """Set ``q[0:3]`` to ``angles = [θr, θp, θy]`` [rad] (J-R6).

        Warns (``RuntimeWarning``) when ``|cos(θp)| <`` :data:`RPY_WARNING_COS_TOL`.

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(3,)`` or a value is not finite; bad context.
        """
        a = self._vector(angles, 3, 'set_angles', 'angles')
        q = self._q(context, 'set_angles')
        self._warn_if_near_singular(float(a[1]), 'set_angles')
        q[0:3] = a
        return self

    def set_orientation(self, context: JointContextLike, R_FM: ArrayLike) -> RpyFloatingJoint:
        """Set the angles so that the orientation equals ``R_FM`` (J-R7).

        The angles come from
        :func:`~robot_state_core.description.joint_types.rpy_floating.rpy_from_rotation`,
        Drake's ``RollPitchYaw(R_FM)``: pitch in ``[-π/2, π/2]``, roll and yaw in ``[-π, π]``;
        at the singularity the determined angle is split evenly between roll and yaw. Warns
        near the singularity.

        Args:
            context: The context to modify.
            R_FM: ``(3, 3)`` rotation matrix (orientation of M in F).

        Returns:
            self, for chaining.

        Raises:
            ValueError: ``R_FM`` is not a ``(3, 3)`` proper rotation (tolerance 1e-6); bad
                context.
        """
        R = self._rotation(R_FM, 'set_orientation', 'R_FM')
        q = self._q(context, 'set_orientation')
        angles = rpy_from_rotation(R)
        self._warn_if_near_singular(float(angles[1]), 'set_orientation')
        q[0:3] = angles
        return self

    def get_translation(self, context: JointContextLike) -> FloatArray:
        """``(3,)`` ``p_FM``: Mo measured and expressed in F [m], i.e. ``q[3:6]`` (J-R8)."""
        return self._q(context, 'get_translation')[3:6].copy()

    def set_translation(self, context: JointContextLike, p_FM: ArrayLike) -> RpyFloatingJoint:
        """Set ``q[3:6]`` to ``p_FM`` [m], Mo measured and expressed in F (J-R9).

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(3,)`` or a value is not finite; bad context.
        """
        p = self._vector(p_FM, 3, 'set_translation', 'p_FM')
        self._q(context, 'set_translation')[3:6] = p
        return self

    def get_pose(self, context: JointContextLike) -> FloatArray:
        """``(4, 4)`` pose ``X_FM(q)`` of M in F (J-R10, J-G18)."""
        return rpy_floating_pose(self._q(context, 'get_pose'))

    def set_pose(self, context: JointContextLike, X_FM: ArrayLike) -> RpyFloatingJoint:
        """Set angles and translation so that ``X_FM(q)`` equals ``X_FM`` (J-R11, J-G18).

        Warns near the singularity; see :meth:`set_orientation` for the angle convention.

        Returns:
            self, for chaining.

        Raises:
            ValueError: ``X_FM`` is not a ``(4, 4)`` rigid transform (tolerance 1e-6); bad
                context.
        """
        R, p = self._pose(X_FM, 'set_pose')
        q = self._q(context, 'set_pose')
        angles = rpy_from_rotation(R)
        self._warn_if_near_singular(float(angles[1]), 'set_pose')
        q[0:3] = angles
        q[3:6] = p
        return self

    def get_angular_velocity(self, context: JointContextLike) -> FloatArray:
        """``(3,)`` ``w_FM``: angular velocity of M in F, expressed in F [rad/s] (J-R12)."""
        return self._v(context, 'get_angular_velocity')[0:3].copy()

    def set_angular_velocity(self, context: JointContextLike,
                             w_FM: ArrayLike) -> RpyFloatingJoint:
        """Set ``v[0:3] = w_FM`` (angular velocity of M in F, expressed in F) (J-R12).

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(3,)`` or a value is not finite; bad context.
        """
        w = self._vector(w_FM, 3, 'set_angular_velocity', 'w_FM')
        self._v(context, 'set_angular_velocity')[0:3] = w
        return self

    def get_translational_velocity(self, context: JointContextLike) -> FloatArray:
        """``(3,)`` ``v_FM``: velocity of Mo in F, expressed in F [m/s] (J-R13)."""
        return self._v(context, 'get_translational_velocity')[3:6].copy()

    def set_translational_velocity(self, context: JointContextLike,
                                   v_FM: ArrayLike) -> RpyFloatingJoint:
        """Set ``v[3:6] = v_FM`` (velocity of Mo in F, expressed in F) (J-R13).

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(3,)`` or a value is not finite; bad context.
        """
        v = self._vector(v_FM, 3, 'set_translational_velocity', 'v_FM')
        self._v(context, 'set_translational_velocity')[3:6] = v
        return self

    def get_spatial_velocity(self, context: JointContextLike) -> FloatArray:
        """``(6,)`` cross-joint spatial velocity ``V_FM = [w_FM; v_FM]`` (in F) (J-G19).

        For this joint v *is* ``V_FM``, so this equals :meth:`get_velocities`.
        """
        return self._v(context, 'get_spatial_velocity').copy()

    def set_spatial_velocity(self, context: JointContextLike,
                             V_FM: ArrayLike) -> RpyFloatingJoint:
        """Set v so that the spatial velocity of M in F is ``V_FM = [w_FM; v_FM]`` (J-G19).

        Every spatial velocity is reachable, so the match is exact.

        Returns:
            self, for chaining.

        Raises:
            ValueError: Shape is not ``(6,)`` or a value is not finite; bad context.
        """
        V = self._vector(V_FM, _NV, 'set_spatial_velocity', 'V_FM')
        self._v(context, 'set_spatial_velocity')[:] = V
        return self

    def map_velocity_to_qdot(self, context: JointContextLike, v: ArrayLike) -> FloatArray:
        """``q̇ = N(q) v`` at the context's q (seed §1.5, MapVelocityToQDot).

        Args:
            context: Supplies q.
            v: ``(6,)`` velocities ``[w_FM; v_FM]``.

        Returns:
            ``(6,)`` ``[ṙ, ṗ, ẏ, ẋ, ẏ, ż]``.

        Raises:
            SingularityError: ``|cos(pitch)| <`` :data:`RPY_SINGULARITY_COS_TOL`.
            ValueError: ``v`` is not ``(6,)`` and finite; bad context.
        """
        vv = self._vector(v, _NV, 'map_velocity_to_qdot', 'v')
        q = self._q(context, 'map_velocity_to_qdot')
        try:
            return rpy_floating_map_velocity_to_qdot(q, vv)
        except SingularityError as err:
            raise SingularityError(f'{self._where("map_velocity_to_qdot")}: {err}',
                                   values=err.values) from err

    def map_qdot_to_velocity(self, context: JointContextLike, qdot: ArrayLike) -> FloatArray:
        """``v = N⁺(q) q̇`` at the context's q; always defined (seed §1.5, MapQDotToVelocity).

        Args:
            context: Supplies q.
            qdot: ``(6,)`` ``[ṙ, ṗ, ẏ, ẋ, ẏ, ż]``.

        Returns:
            ``(6,)`` velocities ``[w_FM; v_FM]`` expressed in F.

        Raises:
            ValueError: ``qdot`` is not ``(6,)`` and finite; bad context.
        """
        qd = self._vector(qdot, _NQ, 'map_qdot_to_velocity', 'qdot')
        return rpy_floating_map_qdot_to_velocity(self._q(context, 'map_qdot_to_velocity'), qd)

    # ----------------------------------------------------------------------------------------
    # Defaults (J-R16..J-R18, J-G15, J-G17)

    def get_default_angles(self) -> FloatArray:
        """``(3,)`` default roll-pitch-yaw angles [rad], stored in the joint (J-R16)."""
        return self._default_positions[0:3].copy()

    def set_default_angles(self, angles: ArrayLike) -> None:
        """Set the default angles ``[θr, θp, θy]`` [rad] (J-R16). Warns near the singularity.

        Raises:
            ValueError: Shape is not ``(3,)`` or a value is not finite.
        """
        a = self._vector(angles, 3, 'set_default_angles', 'angles')
        self._warn_if_near_singular(float(a[1]), 'set_default_angles')
        self._default_positions[0:3] = a

    def get_default_translation(self) -> FloatArray:
        """``(3,)`` default ``p_FM`` [m], stored in the joint (J-R17)."""
        return self._default_positions[3:6].copy()

    def set_default_translation(self, p_FM: ArrayLike) -> None:
        """Set the default translation ``p_FM`` [m] (J-R17).

        Raises:
            ValueError: Shape is not ``(3,)`` or a value is not finite.
        """
        self._default_positions[3:6] = self._vector(p_FM, 3, 'set_default_translation', 'p_FM')

    def default_positions(self) -> FloatArray:
        """``(6,)`` default ``q₀ = [default angles, default translation]`` (J-G15)."""
        return self._default_positions.copy()

    def set_default_positions(self, default_positions: ArrayLike) -> None:
        """Set the ``(6,)`` default ``q₀`` (J-G15). Generic API: no singularity warning.

        Raises:
            ValueError: Shape is not ``(6,)`` or a value is not finite.
        """
        self._default_positions = self._vector(default_positions, _NQ, 'set_default_positions',
                                               'default_positions')

    def default_velocities(self) -> FloatArray:
        """``(6,)`` zeros: the default velocities are always zero (J-R18)."""
        return np.zeros(_NV)

    def get_default_pose(self) -> FloatArray:
        """``(4, 4)`` default pose ``X_FM(q₀)`` (J-G17)."""
        return rpy_floating_pose(self._default_positions)

    def set_default_pose(self, X_FM: ArrayLike) -> None:
        """Set ``q₀`` so that ``X_FM(q₀)`` equals ``X_FM`` (J-G17). Warns near the singularity.

        Raises:
            ValueError: ``X_FM`` is not a ``(4, 4)`` rigid transform (tolerance 1e-6).
        """
        R, p = self._pose(X_FM, 'set_default_pose')
        angles = rpy_from_rotation(R)
        self._warn_if_near_singular(float(angles[1]), 'set_default_pose')
        self._default_positions = np.concatenate([angles, p])

    def set_default_state(self, context: JointContextLike) -> RpyFloatingJoint:
        """Write the default positions and zero velocities into ``context`` (J-R16..J-R18).

        Returns:
            self, for chaining.
        """
        q = self._q(context, 'set_default_state')
        v = self._v(context, 'set_default_state')
        q[:] = self._default_positions
        v[:] = 0.0
        return self

    # ----------------------------------------------------------------------------------------
    # Random distributions (J-R14, J-R15)

    def set_random_angles_distribution(self, angles: VectorDistribution) -> None:
        """Set the distribution the angles ``[θr, θp, θy]`` are sampled from (J-R14).

        An existing translation distribution is kept; without one, sampled translations are
        the zero configuration ``[0, 0, 0]`` (not the default translation), as in Drake.

        A callable is probed at once with its own generator (64 samples) to validate its output
        and to estimate its pitch range; it must draw only from the generator it is given.
        Warns (``RuntimeWarning``) when the pitch bounds, or the probed pitch range, come within
        ``|cos(pitch)| <`` :data:`RPY_WARNING_COS_TOL` of the singularity.

        Args:
            angles: A callable ``rng -> (3,)`` or a ``(lower, upper)`` pair of 3-vectors
                (uniform per angle) [rad].

        Raises:
            ValueError: Invalid bounds, or the callable does not return finite ``(3,)`` values.
        """
        method = 'set_random_angles_distribution'
        sampler, samples = self._sampler(angles, method, 'angles', _PROBE_SAMPLES)
        lowest, highest = float(samples[:, 1].min()), float(samples[:, 1].max())
        if _pitch_range_near_singular(lowest, highest):
            warnings.warn(
                f'{self._where(method)}: the random pitch (range [{lowest:.6g}, {highest:.6g}] '
                f'rad) can come near the gimbal-lock singularity pitch = π/2 + kπ '
                f'(|cos(pitch)| < {RPY_WARNING_COS_TOL:g}); {_SINGULARITY_HINT}',
                RuntimeWarning, stacklevel=2)
        self._angles_sampler = sampler

    def set_random_translation_distribution(self, p_FM: VectorDistribution) -> None:
        """Set the distribution the translation ``p_FM`` is sampled from (J-R15).

        An existing angles distribution is kept; without one, sampled angles are the zero
        configuration ``[0, 0, 0]`` (not the default angles), as in Drake. A callable is probed
        once with its own generator to validate its output.

        Args:
            p_FM: A callable ``rng -> (3,)`` or a ``(lower, upper)`` pair of 3-vectors
                (uniform per coordinate) [m].

        Raises:
            ValueError: Invalid bounds, or the callable does not return a finite ``(3,)``.
        """
        sampler, _ = self._sampler(p_FM, 'set_random_translation_distribution', 'p_FM', 1)
        self._translation_sampler = sampler

    def sample_positions(self, rng: np.random.Generator) -> FloatArray:
        """Draw ``(6,)`` positions from the random distributions (J-R14, J-R15).

        Without any distribution the default positions are returned. Otherwise the angles
        come from the angles distribution (or are zero) and the translation from the
        translation distribution (or is zero). The angles are drawn first.

        Args:
            rng: The generator every sample is drawn from (deterministic for a seeded one).

        Raises:
            TypeError: ``rng`` is not a ``numpy.random.Generator``.
            ValueError: A sampler returned something other than a finite ``(3,)``.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f'{self._where("sample_positions")}: rng must be a '
                            f'numpy.random.Generator, got {type(rng).__name__}')
        if self._angles_sampler is None and self._translation_sampler is None:
            return self.default_positions()
        q = np.zeros(_NQ)
        if self._angles_sampler is not None:
            q[0:3] = self._vector(self._angles_sampler(rng), 3, 'sample_positions', 'angles')
        if self._translation_sampler is not None:
            q[3:6] = self._vector(self._translation_sampler(rng), 3, 'sample_positions', 'p_FM')
        return q

    def set_random_state(self, context: JointContextLike,
                         rng: np.random.Generator) -> RpyFloatingJoint:
        """Write :meth:`sample_positions` and zero velocities into ``context``.

        Returns:
            self, for chaining.
        """
        q = self._q(context, 'set_random_state')
        v = self._v(context, 'set_random_state')
        q[:] = self.sample_positions(rng)
        v[:] = 0.0
        return self

    def __repr__(self) -> str:
        return (f'RpyFloatingJoint(name={self._name!r}, '
                f'frame_on_parent={self._frame_on_parent!r}, '
                f'frame_on_child={self._frame_on_child!r}, '
                f'angular_damping={self.default_angular_damping()!r}, '
                f'translational_damping={self.default_translational_damping()!r}, '
                f'position_start={self._position_start}, velocity_start={self._velocity_start})')

    # ----------------------------------------------------------------------------------------
    # Private helpers (validation at the boundary; design study B7)

    def _where(self, method: str) -> str:
        return f'RpyFloatingJoint.{method} (joint {self._name!r})'

    def _warn_if_near_singular(self, pitch: float, method: str) -> None:
        """Warn about the gimbal lock; call only directly from the public ``method``."""
        cos_pitch = abs(math.cos(pitch))
        if cos_pitch < RPY_WARNING_COS_TOL:
            warnings.warn(
                f'{self._where(method)}: pitch = {pitch:.9g} rad is near the gimbal-lock '
                f'singularity pitch = π/2 + kπ (|cos(pitch)| = {cos_pitch:.3g} < '
                f'{RPY_WARNING_COS_TOL:g}); {_SINGULARITY_HINT}',
                RuntimeWarning, stacklevel=3)  # 3: past this helper, to the caller's line

    def _vector(self, value: ArrayLike, n: int, method: str, argument: str, *,
                allow_inf: bool = False) -> FloatArray:
        """A float64 copy of ``value`` with shape ``(n,)``, finite (or ±inf if allowed)."""
        try:
            arr = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} must be a ({n},) array of '
                f'numbers, got {value!r}') from err
        if arr.shape != (n,):
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} must have shape ({n},), got '
                f'{arr.shape}')
        if np.any(np.isnan(arr) if allow_inf else ~np.isfinite(arr)):
            rule = 'must not contain NaN' if allow_inf else 'must be finite'
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} {rule}, got {arr.tolist()}')
        return arr

    def _rotation(self, value: ArrayLike, method: str, argument: str) -> FloatArray:
        R = np.array(value, dtype=np.float64)
        if R.shape != (3, 3):
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} must have shape (3, 3), got '
                f'{R.shape}')
        if not np.all(np.isfinite(R)):
            raise InvalidArgumentError(f'{self._where(method)}: {argument} must be finite')
        error = float(np.max(np.abs(R.T @ R - np.eye(3))))
        if error > _ROTATION_TOL or np.linalg.det(R) <= 0.0:
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} is not a proper rotation '
                f'matrix (max |RᵀR - I| = {error:.3g}, det = '
                f'{np.linalg.det(R):.6g}; tolerance {_ROTATION_TOL:g})')
        return R

    def _pose(self, value: ArrayLike, method: str) -> tuple[FloatArray, FloatArray]:
        X = np.array(value, dtype=np.float64)
        if X.shape != (4, 4):
            raise InvalidArgumentError(f'{self._where(method)}: X_FM must have shape (4, 4), got '
                             f'{X.shape}')
        if not np.all(np.isfinite(X)):
            raise InvalidArgumentError(f'{self._where(method)}: X_FM must be finite')
        if float(np.max(np.abs(X[3] - (0.0, 0.0, 0.0, 1.0)))) > _ROTATION_TOL:
            raise InvalidArgumentError(
                f'{self._where(method)}: X_FM last row must be [0, 0, 0, 1], got '
                f'{X[3].tolist()}')
        return self._rotation(X[:3, :3], method, 'X_FM rotation'), X[:3, 3].copy()

    def _slice(self, array: object, start: int, n: int, method: str,
               argument: str) -> FloatArray:
        """The writable view ``array[start : start + n]`` after checking the container."""
        if not (isinstance(array, np.ndarray) and array.ndim == 1
                and array.dtype == np.float64):
            shape = getattr(array, 'shape', None)
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} must be a 1-D float64 numpy '
                f'array, got {type(array).__name__} with shape {shape}')
        if array.size < start + n:
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} has {array.size} entries; this '
                f'joint needs [{start}:{start + n}]')
        view: FloatArray = array[start:start + n]
        return view

    def _q(self, context: JointContextLike, method: str) -> FloatArray:
        return self._slice(context.positions, self._position_start, _NQ, method,
                           'context.positions')

    def _v(self, context: JointContextLike, method: str) -> FloatArray:
        return self._slice(context.velocities, self._velocity_start, _NV, method,
                           'context.velocities')

    def _sampler(self, distribution: VectorDistribution, method: str, argument: str,
                 probes: int) -> tuple[VectorSampler, FloatArray]:
        """A validated sampler and ``(probes, 3)`` probe samples (or the bounds, for a pair)."""
        if callable(distribution):
            rng = np.random.default_rng(_PROBE_SEED)
            samples = np.stack([self._vector(distribution(rng), 3, method, f'{argument} sample')
                                for _ in range(probes)])
            return distribution, samples
        if not isinstance(distribution, tuple | list) or len(distribution) != 2:
            raise InvalidArgumentError(
                f'{self._where(method)}: {argument} must be a callable rng -> (3,) '
                f'or a (lower, upper) pair of 3-vectors, got {distribution!r}')
        lower, upper = self._limits(distribution[0], distribution[1], 3, method)
        if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
            raise InvalidArgumentError(
                f'{self._where(method)}: uniform {argument} bounds must be finite, '
                f'got lower {lower.tolist()}, upper {upper.tolist()}')

        def uniform(rng: np.random.Generator) -> FloatArray:
            sample: FloatArray = rng.uniform(lower, upper)
            return sample

        return uniform, np.stack([lower, upper])


def _check_damping(value: float, where: str, argument: str, unit: str) -> float:
    try:
        d = float(value)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(
            f'{where}: {argument} must be a number [{unit}], got {value!r}') from err
    if not math.isfinite(d) or d < 0.0:
        raise InvalidArgumentError(
            f'{where}: {argument} must be finite and non-negative [{unit}], got '
            f'{value!r} (J-D4)')
    return d
