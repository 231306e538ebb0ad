"""Kinematic constraints with MoveIt ``kinematic_constraints`` semantics (no ROS here).

Joint, position and orientation constraints are evaluated on link poses in the model frame
and return MoveIt's ``ConstraintEvalResult`` pair (``result``, ``distance``):

* **joint**: satisfied when ``position - tolerance_below <= q <= position + tolerance_above``
  (continuous joints and planar theta compared along the shortest arc); distance
  ``|q - position|``.
* **position**: the point ``target_point_offset`` (link frame) must lie inside one of the
  region primitives (box, sphere, cylinder, each with its pose in the model frame); distance
  from the point to the centre of the first region primitive (MoveIt).
* **orientation**: the rotation error ``R_target^T R_link`` as intrinsic XYZ Euler angles
  (MoveIt's XYZ_EULER_ANGLES, the default) or as a rotation vector (ROTATION_VECTOR), each
  component within its absolute tolerance; distance = sum of the absolute components.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import enum
import math

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.geometry.shapes import Box, Cylinder, Shape, Sphere
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    rotation_from_quat_xyzw,
    rotation_log,
    wrap_angle,
    xyz_euler_from_rotation,
)


class OrientationParameterization(enum.IntEnum):
    """moveit_msgs/OrientationConstraint parameterization values."""

    XYZ_EULER_ANGLES = 0
    ROTATION_VECTOR = 1


@dataclass(frozen=True)
class JointConstraint:
    """``joint_name`` within ``[position - tolerance_below, position + tolerance_above]``."""

    joint_name: str
    position: float
    tolerance_above: float
    tolerance_below: float
    weight: float = 1.0


@dataclass(frozen=True)
class PositionConstraint:
    """A link point inside a region (primitives posed in the model frame)."""

    link_name: str
    region: tuple[tuple[Shape, FloatArray], ...]
    target_point_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    weight: float = 1.0


@dataclass(frozen=True)
class OrientationConstraint:
    """A link orientation within per-axis absolute tolerances of ``orientation_xyzw``."""

    link_name: str
    orientation_xyzw: tuple[float, float, float, float]
    absolute_tolerances: tuple[float, float, float]
    parameterization: OrientationParameterization = OrientationParameterization.XYZ_EULER_ANGLES
    weight: float = 1.0


@dataclass(frozen=True)
class Constraints:
    """A named set of constraints (moveit_msgs/Constraints without visibility)."""

    name: str = ''
    joint_constraints: tuple[JointConstraint, ...] = ()
    position_constraints: tuple[PositionConstraint, ...] = ()
    orientation_constraints: tuple[OrientationConstraint, ...] = ()

    def is_empty(self) -> bool:
        """Whether there is nothing to check."""
        return not (self.joint_constraints or self.position_constraints
                    or self.orientation_constraints)


@dataclass(frozen=True)
class ConstraintEvalResult:
    """moveit_msgs/ConstraintEvalResult: satisfied or not, and a distance to satisfaction."""

    result: bool
    distance: float


@dataclass(frozen=True)
class ConstraintsEvaluation:
    """Results of every constraint, in message order (joint, position, orientation)."""

    results: tuple[ConstraintEvalResult, ...] = field(default_factory=tuple)

    @property
    def satisfied(self) -> bool:
        """All constraints hold."""
        return all(r.result for r in self.results)


def _point_in_shape(p_S: FloatArray, shape: Shape) -> bool:
    if isinstance(shape, Box):
        return bool(np.all(np.abs(p_S) <= 0.5 * np.array([shape.x, shape.y, shape.z])))
    if isinstance(shape, Sphere):
        return bool(np.linalg.norm(p_S) <= shape.radius)
    if isinstance(shape, Cylinder):
        return bool(np.hypot(p_S[0], p_S[1]) <= shape.radius and abs(p_S[2])
                    <= 0.5 * shape.length)
    return False


def evaluate_joint_constraint(model: RobotModel, q: FloatArray, c: JointConstraint
                              ) -> ConstraintEvalResult:
    """Evaluate one joint constraint on ``q`` (nq). Raises UnknownNameError for the joint."""
    if model.has_variable(c.joint_name):
        v = model.variable_index(c.joint_name)
    else:
        v = int(model.joint_q_start[model.joint_index(c.joint_name)])
    d = float(q[v] - c.position)
    wraps = (model.variable_angle[v] and not model.variable_orientation[v]
             and not model.variable_bounded[v])  # continuous joints, planar theta
    if wraps:
        d = float(wrap_angle(d))
    ok = -abs(c.tolerance_below) - 1e-12 <= d <= abs(c.tolerance_above) + 1e-12
    return ConstraintEvalResult(ok, abs(d))


def evaluate_position_constraint(model: RobotModel, X_WL: FloatArray, c: PositionConstraint
                                 ) -> ConstraintEvalResult:
    """Evaluate a position constraint on link poses ``X_WL`` (L, 4, 4)."""
    X = X_WL[model.link_index(c.link_name)]
    p_W = X[:3, :3] @ np.asarray(c.target_point_offset, dtype=float) + X[:3, 3]
    inside = False
    for shape, X_WS in c.region:
        p_S = np.linalg.solve(X_WS, np.append(p_W, 1.0))[:3]
        inside = inside or _point_in_shape(p_S, shape)
    distance = float(np.linalg.norm(p_W - c.region[0][1][:3, 3])) if c.region else math.inf
    return ConstraintEvalResult(inside, distance)


def evaluate_orientation_constraint(model: RobotModel, X_WL: FloatArray, c: OrientationConstraint
                                    ) -> ConstraintEvalResult:
    """Evaluate an orientation constraint on link poses ``X_WL`` (L, 4, 4)."""
    R_link = X_WL[model.link_index(c.link_name)][:3, :3]
    R_target = rotation_from_quat_xyzw(np.asarray(c.orientation_xyzw, dtype=float))
    R_err = R_target.T @ R_link
    if c.parameterization == OrientationParameterization.ROTATION_VECTOR:
        angles = np.abs(rotation_log(R_err))
    else:
        angles = np.abs(xyz_euler_from_rotation(R_err))
        # Euler angles are not unique: (a+π, π-b, c+π) is the same rotation; take the smaller.
        alt = np.abs(np.array([angles[0] - math.pi, math.pi - angles[1], angles[2] - math.pi]))
        angles = angles if angles.sum() <= alt.sum() else alt
    tol = np.abs(np.asarray(c.absolute_tolerances, dtype=float))
    return ConstraintEvalResult(bool(np.all(angles <= tol + 1e-12)), float(angles.sum()))


def evaluate_constraints(model: RobotModel, q: FloatArray, X_WL: FloatArray,
                         constraints: Constraints) -> ConstraintsEvaluation:
    """Evaluate every constraint of ``constraints`` at ``q`` with link poses ``X_WL``."""
    results: list[ConstraintEvalResult] = []
    results += [evaluate_joint_constraint(model, q, c) for c in constraints.joint_constraints]
    results += [evaluate_position_constraint(model, X_WL, c)
                for c in constraints.position_constraints]
    results += [evaluate_orientation_constraint(model, X_WL, c)
                for c in constraints.orientation_constraints]
    return ConstraintsEvaluation(tuple(results))
