"""Kinematics: FK, Jacobians and configuration-space maps as batched free functions.

Conventions (design study B5):
    * ``q`` is ``(..., nq)`` in model variable order; ``v`` is ``(..., nv)``. Leading dimensions
      are batch dimensions and every function broadcasts over them.
    * ``X_WL`` ``(..., L, 4, 4)``: pose of every link in the model frame W, link order.
      ``X_PC`` ``(..., J, 4, 4)``: pose of each joint's child link in its parent link.
    * Jacobians map ``v`` to the spatial velocity of a point, rows ``[linear (3); angular (3)]``
      (MoveIt's layout), expressed in the model frame.
    * Velocity variables: 1-DOF joints and PLANAR ``(x, y, theta)`` use the position rates;
      FLOATING and RPY_FLOATING use ``[w_FM; v_FM]`` (angular first), both expressed in the
      joint frame F (= parent link frame moved by the joint origin).

Model / plan / data (Pinocchio's split): the
:class:`~robot_state_core.model.robot_model.RobotModel` is immutable; every table derived from it
is compiled once into its :class:`KinematicsPlan` (:func:`plan`, owned by the model); what one
evaluation produces goes into a :class:`KinematicsData` (:func:`update_forward_kinematics`), which
a ``RobotState`` owns.

One kernel per quantity: local joint transforms come from :func:`~.forward.local_transforms` (joint
motions from :mod:`.joint_motion`); a single configuration composes them by pointer jumping
(:func:`~.forward.compose_single`, ``ceil(log2(depth))`` batched products); batches go through the
one level sweep :func:`~.forward.sweep_levels` in structure-of-arrays layout, which fuses each
1-DOF joint's motion into the sweep (a product with a constant matrix, then a two-column rotation
mix or a translation); the two schedules agree to ~1e-15. Jacobian columns come from
:func:`point_jacobian_columns` (IK's iteration Jacobian uses it too). Rotation math is
:mod:`robot_state_core.spatial`. Nothing here loops over joints in Python.
Modules (each imports only those above it): :mod:`.joint_motion` (the joint-motion kernel),
:mod:`.plan` (the compiled per-model tables, shared argument checks), :mod:`.forward` (FK,
``KinematicsData``), :mod:`.jacobian`, :mod:`.configuration_space` (integrate, difference),
:mod:`.bounds` (joint bounds, sampling, interpolation). This package re-exports the public
functions of the first five, so ``kinematics.forward_kinematics(model, q)`` reads as before.
"""

from robot_state_core.kinematics.configuration_space import (
    difference,
    integrate,
    joint_motion,
    joint_positions_from_motion,
)
from robot_state_core.kinematics.forward import (
    compose_link_poses,
    compute_scene_state,
    fixed_frame_poses,
    forward_kinematics,
    forward_kinematics_soa,
    KinematicsData,
    link_pose,
    local_joint_transforms,
    SceneState,
    update_forward_kinematics,
)
from robot_state_core.kinematics.jacobian import (
    apply_mimic_rates,
    fold_mimic_columns,
    jacobian,
    jacobian_in_frame,
    point_jacobian_columns,
    velocity_indices_of_joints,
)
from robot_state_core.kinematics.plan import KinematicsPlan, plan

__all__ = [
    'KinematicsData',
    'KinematicsPlan',
    'SceneState',
    'apply_mimic_rates',
    'compose_link_poses',
    'compute_scene_state',
    'difference',
    'fixed_frame_poses',
    'fold_mimic_columns',
    'forward_kinematics',
    'forward_kinematics_soa',
    'integrate',
    'jacobian',
    'jacobian_in_frame',
    'joint_motion',
    'joint_positions_from_motion',
    'link_pose',
    'local_joint_transforms',
    'plan',
    'point_jacobian_columns',
    'update_forward_kinematics',
    'velocity_indices_of_joints',
]
