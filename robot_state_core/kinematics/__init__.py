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

One kernel per quantity (compiled with numba in :mod:`.compiled`, with the package's one
decorator from :mod:`robot_state_core.jit`; imported and compiled on first use, cached in the
user cache directory):

* joint motions: each joint type's module in :mod:`robot_state_core.description.joint_types`:
  ``motion_coefficients`` (1-DOF joints, at plan time: the FK plan's motion polynomials) and
  ``motion_rows`` (planar, floating, rpy_floating: plain Python on floats, compiled into the
  FK kernels, which evaluate them per call);
* local joint transforms: ``compiled.local_rows``, called by the FK kernel
  ``compiled.forward`` and by ``compiled.local_transforms`` (:func:`local_joint_transforms`);
* link poses: ``compiled.compose_into`` (the one composition; its product
  ``compiled.product_row`` also composes multi-DOF motions with their joint origins), called
  by ``compiled.forward``
  (:func:`forward_kinematics` single and batched, :func:`update_forward_kinematics`,
  :func:`forward_kinematics_soa`, :func:`link_pose`, :func:`compute_scene_state`, IK's
  iterations and restart pools through :func:`~.forward.run_forward`) and by
  ``compiled.compose`` (:func:`compose_link_poses`);
* Jacobian columns: ``compiled.jacobian_column``, called by the Jacobian kernel
  ``compiled.point_jacobian`` (:func:`jacobian`, ``RobotState.get_jacobian``, IK's iteration
  Jacobian through :func:`~.jacobian.link_jacobians`) and by ``compiled.jacobian_columns``
  (:func:`point_jacobian_columns`);
* FK + Jacobian of one configuration (:func:`forward_kinematics_and_jacobian`):
  ``compiled.forward_jacobian_one``, one compiled call running ``forward_one``'s FK, the
  Jacobian kernel's per-configuration code and the mimic fold ``compiled.fold_mimic``
  (:func:`fold_mimic_columns`), so bitwise those three calls' result.

A single configuration is the batch of one: the single and the batched FK run the same
compiled per-configuration code (``forward`` over configurations, ``forward_one`` for one), so
their poses agree bitwise; a large batch runs ``forward`` on row chunks in worker threads
(:func:`~.forward.run_forward`) and reuses the memory of dropped outputs of 32 MB or more
(:func:`~.forward.pose_output`). The Python side of each call validates once (one finiteness
test, quaternion norms; a kernel-ready single ``q`` of a model without multi-DOF joints goes
to the kernel as given, which tests its finiteness) and passes the plan's flat tables
(:attr:`KinematicsPlan.fk_joints`, :attr:`KinematicsPlan.fk_coefficients`, the
per-link :class:`~.plan.LinkColumns`). Rotation math is :mod:`robot_state_core.spatial`.
Modules (each imports only those above it): :mod:`.plan` (the compiled per-model tables,
shared argument checks, the lazy kernel import), :mod:`.compiled` (the kernels), :mod:`.forward`
(FK, ``KinematicsData``), :mod:`.jacobian`, :mod:`.configuration_space` (integrate,
difference), :mod:`.bounds` (joint bounds, sampling, interpolation). This package re-exports
the public functions, so ``kinematics.forward_kinematics(model, q)`` reads as before.
"""

from robot_state_core.kinematics.configuration_space import (
    difference,
    integrate,
    joint_motion,
    joint_positions_from_motion,
    multi_dof_joint_motion,
)
from robot_state_core.kinematics.forward import (
    compose_link_poses,
    compute_scene_state,
    forward_kinematics,
    forward_kinematics_soa,
    KinematicsData,
    link_pose,
    local_joint_frames,
    local_joint_transforms,
    SceneState,
    update_forward_kinematics,
)
from robot_state_core.kinematics.jacobian import (
    apply_mimic_rates,
    fold_mimic_columns,
    forward_kinematics_and_jacobian,
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
    'fold_mimic_columns',
    'forward_kinematics',
    'forward_kinematics_and_jacobian',
    'forward_kinematics_soa',
    'integrate',
    'jacobian',
    'jacobian_in_frame',
    'joint_motion',
    'joint_positions_from_motion',
    'link_pose',
    'local_joint_frames',
    'local_joint_transforms',
    'multi_dof_joint_motion',
    'plan',
    'point_jacobian_columns',
    'update_forward_kinematics',
    'velocity_indices_of_joints',
]
