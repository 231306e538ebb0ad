"""Forward kinematics, Jacobians and configuration-space integration, as batched free functions.

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

Model / plan / data (Pinocchio's split): the :class:`~robot_state_core.robot_model.RobotModel`
is immutable; every table derived from it is compiled once into its :class:`KinematicsPlan`
(:func:`plan`, owned by the model); what one evaluation produces goes into a
:class:`KinematicsData` (:func:`update_forward_kinematics`), which a ``RobotState`` owns.

One kernel per quantity: local joint transforms come from :func:`_local_transforms` (joint
motions from :mod:`robot_state_core.joint_kernels`); a single configuration composes them by
pointer jumping (:func:`_compose_single`, ``ceil(log2(depth))`` batched products); batches go
through the one level sweep :func:`_sweep_levels` in structure-of-arrays layout, which fuses
each 1-DOF joint's motion into the sweep (a product with a constant matrix, then a two-column
rotation mix or a translation); the two schedules agree to ~1e-15. Jacobian columns come from
:func:`point_jacobian_columns` (IK's iteration Jacobian uses it too). Rotation math is
:mod:`robot_state_core.spatial`. Nothing here loops over joints in Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    all_finite,
    as_finite_float,
    as_float_array,
    as_index,
    BoolArray,
    FloatArray,
    IntArray,
)
from robot_state_core._typing import read_only as _ro
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError, ModelMismatchError
from robot_state_core.joint_kernels import multi_dof_motion, one_dof_motion_coefficients
from robot_state_core.joints import JointType
from robot_state_core.robot_model import RobotModel
from robot_state_core.scene_graph import SceneGraph
from robot_state_core.spatial import (
    check_quat_xyzw,
    plane_basis,
    quat_xyzw_from_rotation,
    rotation_exp,
    rotation_from_quat_xyzw,
    rotation_from_rpy,
    rotation_log,
    rotation_onto_axis,
    rpy_from_rotation,
    wrap_angle,
)

_ONE_DOF = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)

_LINK_COLUMNS_CACHE_SIZE = 1024
'''Links whose Jacobian structure is cached per model (every link of any real robot).'''
_DENSE_FOLD_MAX_NV = 64
'''Largest ``nv`` for which the mimic fold is one dense ``(nv, nv)`` product (32 kB); larger
models fold with index arithmetic, so the plan stays O(links + joints) in memory.'''


@dataclass(frozen=True)
class KinematicsPlan:
    """Every per-model table of FK, Jacobians and configuration-space maps, compiled once.

    Built by :func:`plan` on first use and owned by the model (``RobotModel.derived``); the
    single and the batched FK, the Jacobian, ``integrate``/``difference`` and IK's kernel
    compiler read it. Arrays are read-only.
    """

    link_count: int  # L
    joint_count: int  # J
    theta_index: IntArray  # (J,) q index of each 1-DOF joint's variable, nq for others
    coefficients: FloatArray  # (4, J, 4, 4): X_PC = B0 + sin B1 + (1 - cos) B2 + q B3
    coefficients_jk: FloatArray  # (J, 4, 16): the same, for (J, 1, 4) @ (J, 4, 16)
    coef_template: FloatArray  # (J, 1, 4): [1, 0, 0, 0], the factors' constant column
    one_dof: IntArray  # joints with one variable
    one_dof_q: IntArray  # their q indices
    planar: IntArray
    planar_q: IntArray  # (P, 3)
    planar_basis: FloatArray  # (P, 3, 3)
    floating: IntArray
    floating_q: IntArray  # (F, 7)
    floating_labels: tuple[str, ...]  # "FLOATING joint 'name'" per floating joint (messages)
    rpy: IntArray
    rpy_q: IntArray  # (R, 6)
    child: IntArray
    child_in_order: bool  # child == 1 .. J (the model's link order): composing needs no scatter
    parent: IntArray
    jump_ancestors: tuple[IntArray, ...]  # pointer-jumping steps over L + 1 slots
    levels: tuple[tuple[IntArray, IntArray, IntArray], ...]  # (joints, parents, children)
    single_levels: tuple[tuple[int, int, int] | None, ...]
    # Jacobian columns, one per velocity variable:
    v_joint: IntArray  # (nv,) owning joint
    v_rotational: BoolArray  # (nv,)
    v_axis: FloatArray  # (nv, 3) axis in the column's frame
    v_in_joint_frame: BoolArray  # (nv,) frame is F (joint frame) rather than the child link
    q_of_v: IntArray  # (nv,) q index of 1-DOF/planar velocity variables (-1 otherwise)
    mimic_v: IntArray  # (m,) velocity index of each mimic joint
    mimic_source_v: IntArray  # (m,)
    mimic_multiplier: FloatArray
    mimic_fold: FloatArray | None  # (nv, nv): J_folded = J @ mimic_fold; None for large nv
    angle_variables: IntArray  # q indices of angles that wrap (continuous, planar theta)
    structured: _StructuredPlan  # per-level joint groups of the batched FK
    link_columns: dict[int, _LinkColumns] = field(default_factory=dict, compare=False,
                                                  repr=False)
    '''Jacobian structure per link, filled on first use (bounded, see
    ``_LINK_COLUMNS_CACHE_SIZE``): the only mutable part, a cache of pure functions of the
    model.'''


def plan(model: RobotModel) -> KinematicsPlan:
    """The :class:`KinematicsPlan` of ``model`` (compiled on first use, owned by the model)."""
    return model.derived(_build_plan)


def _build_plan(model: RobotModel) -> KinematicsPlan:
    J, L, nq, nv = model.joint_count, model.link_count, model.nq, model.nv
    types = model.joint_types
    X_PJ = np.asarray(model.joint_origins)
    axes = np.asarray(model.joint_axes)
    theta_index = np.full(J, nq, dtype=np.intp)
    B = np.zeros((4, J, 4, 4))
    B[0] = X_PJ
    for j, t in enumerate(types):  # plan construction (once per model), not a hot path
        if t in _ONE_DOF:
            theta_index[j] = model.joint_q_start[j]
            B[1:, j] = X_PJ[j] @ one_dof_motion_coefficients(t, axes[j])[1:]
    idx = {t: np.array([j for j, tt in enumerate(types) if tt is t], dtype=np.intp)
           for t in (JointType.PLANAR, JointType.FLOATING, JointType.RPY_FLOATING)}

    def q_slices(joints: IntArray, n: int) -> IntArray:
        return (np.asarray(model.joint_q_start)[joints][:, None] + np.arange(n)).reshape(-1, n)

    child = np.asarray(model.joint_child_link)
    parent = np.asarray(model.joint_parent_link)
    # Pointer jumping over L + 1 slots (slot L is the identity).
    anc = np.full(L + 1, L, dtype=np.intp)
    anc[child] = parent
    anc[0] = L
    steps = []
    while not np.all(anc == L):  # ceil(log2(depth)) + 1 steps
        steps.append(_ro(anc, np.intp))
        anc = anc[anc]
    levels = tuple((lv, parent[lv], child[lv]) for lv in model.levels)
    single = tuple((int(lv[0]), int(parent[lv[0]]), int(child[lv[0]])) if lv.size == 1 else None
                   for lv in model.levels)
    # Velocity columns.
    v_joint = np.repeat(np.arange(J, dtype=np.intp), np.asarray(model.joint_nv))
    v_rot = np.zeros(nv, dtype=bool)
    v_axis = np.zeros((nv, 3))
    v_in_f = np.zeros(nv, dtype=bool)
    q_of_v = np.full(nv, -1, dtype=np.intp)
    for j, t in enumerate(types):
        v0, q0 = int(model.joint_v_start[j]), int(model.joint_q_start[j])
        if t in _ONE_DOF:
            v_rot[v0] = t is not JointType.PRISMATIC
            v_axis[v0] = axes[j]
            q_of_v[v0] = q0
        elif t is JointType.PLANAR:
            P = plane_basis(axes[j])
            v_axis[v0:v0 + 3] = P.T
            v_rot[v0 + 2] = True
            v_in_f[v0:v0 + 3] = True
            q_of_v[v0:v0 + 3] = np.arange(q0, q0 + 3)
        elif t in (JointType.FLOATING, JointType.RPY_FLOATING):
            v_axis[v0:v0 + 3] = np.eye(3)
            v_axis[v0 + 3:v0 + 6] = np.eye(3)
            v_rot[v0:v0 + 3] = True
            v_in_f[v0:v0 + 6] = True
    q_to_v = np.full(nq, -1, dtype=np.intp)
    q_to_v[q_of_v[q_of_v >= 0]] = np.flatnonzero(q_of_v >= 0)
    mimic_v = q_to_v[np.asarray(model.mimic_variable)]
    mimic_src_v = q_to_v[np.asarray(model.mimic_source)]
    planar = idx[JointType.PLANAR]
    one_dof = np.flatnonzero(theta_index < nq).astype(np.intp)
    return KinematicsPlan(
        link_count=L, joint_count=J,
        theta_index=_ro(np.where(theta_index < nq, theta_index, 0), np.intp),
        coefficients=_ro(B),
        coefficients_jk=_ro(B.reshape(4, J, 16).transpose(1, 0, 2)),
        coef_template=_ro(np.broadcast_to([1.0, 0.0, 0.0, 0.0], (J, 1, 4))),
        one_dof=_ro(one_dof, np.intp), one_dof_q=_ro(theta_index[one_dof], np.intp),
        planar=_ro(planar, np.intp), planar_q=_ro(q_slices(planar, 3), np.intp),
        planar_basis=_ro(np.stack([plane_basis(axes[j]) for j in planar]) if planar.size
                         else np.zeros((0, 3, 3))),
        floating=_ro(idx[JointType.FLOATING], np.intp),
        floating_q=_ro(q_slices(idx[JointType.FLOATING], 7), np.intp),
        floating_labels=tuple(f'FLOATING joint {model.joint_names[j]!r}'
                              for j in idx[JointType.FLOATING]),
        rpy=_ro(idx[JointType.RPY_FLOATING], np.intp),
        rpy_q=_ro(q_slices(idx[JointType.RPY_FLOATING], 6), np.intp),
        child=_ro(child, np.intp), parent=_ro(parent, np.intp),
        child_in_order=bool(np.array_equal(child, np.arange(1, J + 1))),
        jump_ancestors=tuple(steps), levels=levels, single_levels=single,
        v_joint=_ro(v_joint, np.intp), v_rotational=_ro(v_rot, np.bool_), v_axis=_ro(v_axis),
        v_in_joint_frame=_ro(v_in_f, np.bool_),
        q_of_v=_ro(q_of_v, np.intp), mimic_v=_ro(mimic_v, np.intp),
        mimic_source_v=_ro(mimic_src_v, np.intp),
        mimic_multiplier=_ro(np.asarray(model.mimic_multiplier)),
        mimic_fold=_ro(_fold_matrix(nv, mimic_v, mimic_src_v, np.asarray(model.mimic_multiplier)))
        if nv <= _DENSE_FOLD_MAX_NV else None,
        angle_variables=_angle_variables(model), structured=_build_structured_plan(model))


def _fold_matrix(nv: int, mimic_v: IntArray, source_v: IntArray, mult: FloatArray) -> FloatArray:
    M = np.eye(nv)
    for m, s, k in zip(mimic_v, source_v, mult, strict=True):  # once per model
        M[m, s] += k
        M[m, m] = 0.0
    return M


def _check_q(model: RobotModel, q: ArrayLike, function: str, name: str = 'q'
             ) -> tuple[FloatArray, KinematicsPlan]:
    """``q`` as float64 ``(..., nq)``, finite, with usable quaternions; and the model's plan.

    Raises:
        InvalidArgumentError: Not numeric, wrong shape, NaN or inf, or a FLOATING joint's
            quaternion that is degenerate (:func:`~robot_state_core.transforms.check_quat_xyzw`).
    """
    try:
        a = np.asarray(q, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: {name} is not numeric ({err})') from err
    shape = a.shape
    if not shape or shape[-1] != model.nq:
        raise InvalidArgumentError(f'{function}: {name} must have shape (..., {model.nq}), got '
                                   f'{shape}')
    # A Python sum is the cheapest finiteness test of one small configuration (NaN and inf
    # propagate; only values near 1e308, unusable anyway, can overflow it).
    if not (math.isfinite(sum(a.tolist())) if len(shape) == 1 and shape[0] <= 64
            else all_finite(a)):
        raise InvalidArgumentError(f'{function}: {name} contains NaN or inf')
    p = model.derived(_build_plan)
    if p.floating.size:
        check_quat_xyzw(a[..., p.floating_q[:, 3:]], function,
                        f'{name}: the quaternion (rot_x, rot_y, rot_z, rot_w)',
                        p.floating_labels)
    return a, p


def _check_point(point: ArrayLike, function: str, name: str) -> FloatArray:
    """A finite ``(..., 3)`` point [m]."""
    try:
        a = np.asarray(point, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{function}: {name} is not numeric ({err})') from err
    if a.ndim == 0 or a.shape[-1] != 3:
        raise InvalidArgumentError(f'{function}: {name} must have shape (3,) or (..., 3), got '
                                   f'{a.shape}')
    if not all_finite(a):
        raise InvalidArgumentError(f'{function}: {name} contains NaN or inf: {a.tolist()}')
    return a


def _broadcast(a: FloatArray, b: FloatArray, function: str, name: str) -> tuple[int, ...]:
    """The broadcast batch shape of two ``(..., n)`` arrays; InvalidArgumentError if none."""
    try:
        return np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError as err:
        raise InvalidArgumentError(f'{function}: batch shape of {name} {b.shape[:-1]} does not '
                                   f'broadcast against {a.shape[:-1]}') from err


def _check_link(model: RobotModel, link: object, function: str) -> int:
    """A link name or index as a validated index (negative and float indices are refused)."""
    if isinstance(link, str):
        return int(model.link_index(link))
    return as_index(link, model.link_count, function, 'link index')


# ---------------------------------------------------------------------------- local transforms


def local_joint_transforms(model: RobotModel, q: ArrayLike) -> FloatArray:
    """``X_PC(q)`` of every joint: the child link's pose in its parent link.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions (rad, m; quaternions xyzw, normalized here).

    Returns:
        ``(..., J, 4, 4)`` poses, joint order.
    """
    qa, p = _check_q(model, q, 'local_joint_transforms')
    return _local_transforms(model, p, qa)


def _local_transforms(model: RobotModel, p: KinematicsPlan, q: FloatArray) -> FloatArray:
    """The local-transform kernel: ``X_PC = X_PJ M(q)`` ``(..., J, 4, 4)`` for ``(..., nq)``.

    1-DOF joints: ``B0 + sin θ B1 + (1 - cos θ) B2 + θ B3`` (the plan's coefficients, built
    from :func:`~robot_state_core.joint_kernels.one_dof_motion_coefficients`) as one
    ``(..., J, 1, 4) @ (J, 4, 16)`` product; multi-DOF joints through
    :func:`~robot_state_core.joint_kernels.multi_dof_motion`.
    """
    J = p.joint_count
    # No mask needed: the coefficients of joints without one variable are zero (and q is
    # finite), so whatever variable their theta_index reads contributes nothing.
    if q.ndim == 1:  # the hot single-configuration path: no batch bookkeeping
        theta = q[p.theta_index] if q.size else np.zeros(J)
        coef = p.coef_template.copy()  # (J, 1, 4); rows of its transpose are cheap views
        factors = coef.reshape(J, 4).T
        shape: tuple[int, ...] = (J, 4, 4)
    else:
        theta = q[..., p.theta_index] if q.shape[-1] else np.zeros((*q.shape[:-1], J))
        coef = np.array(np.broadcast_to(p.coef_template, (*q.shape[:-1], J, 1, 4)))
        factors = np.moveaxis(coef.reshape(*q.shape[:-1], J, 4), -1, 0)
        shape = (*q.shape[:-1], J, 4, 4)
    np.sin(theta, out=factors[1])
    one_minus_cos = factors[2]
    np.cos(theta, out=one_minus_cos)
    np.subtract(1.0, one_minus_cos, out=one_minus_cos)
    factors[3] = theta
    X: FloatArray = np.matmul(coef, p.coefficients_jk).reshape(shape)
    if p.planar.size or p.floating.size or p.rpy.size:
        X = _multi_dof_transforms(model, p, q, X)
    return X


def _multi_dof_transforms(model: RobotModel, p: KinematicsPlan, q: FloatArray,
                          X: FloatArray) -> FloatArray:
    X_PJ = np.asarray(model.joint_origins)
    motions = []
    if p.planar.size:
        motions.append((p.planar, multi_dof_motion(JointType.PLANAR, q[..., p.planar_q],
                                                   p.planar_basis)))
    if p.floating.size:
        motions.append((p.floating, multi_dof_motion(JointType.FLOATING, q[..., p.floating_q])))
    if p.rpy.size:
        motions.append((p.rpy, multi_dof_motion(JointType.RPY_FLOATING, q[..., p.rpy_q])))
    for joints, M in motions:
        X[..., joints, :, :] = X_PJ[joints] @ M
    return X


# ---------------------------------------------------------------------------- forward kinematics


def forward_kinematics(model: RobotModel, q: ArrayLike) -> FloatArray:
    """Pose of every link in the model frame.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions.

    Returns:
        ``X_WL`` ``(..., L, 4, 4)``; ``X_WL[..., 0]`` (the root) is the identity.
    """
    qa, p = _check_q(model, q, 'forward_kinematics')
    if qa.ndim == 1:
        return _compose_single(p, p.link_count, _local_transforms(model, p, qa))
    flat = qa.reshape(math.prod(qa.shape[:-1]), model.nq)
    X = np.moveaxis(_sweep_levels(model, p, flat.shape[0], Q=flat), -1, 0)  # validated
    return X.reshape(qa.shape[:-1] + X.shape[1:])


class KinematicsData:
    """Per-evaluation results of one model (Pinocchio's ``Data``; design study's workspace).

    The model holds what never changes (its arrays and :class:`KinematicsPlan`); a data
    object holds what one evaluation produces. :func:`update_forward_kinematics` fills it; a
    :class:`~robot_state_core.robot_state.RobotState` owns one. Each update stores *new*
    arrays, so arrays handed out from an earlier update keep their values.

    Attributes:
        model: The model the data belongs to.
        X_PC: ``(J, 4, 4)`` local joint transforms of the last update (child link in parent
            link); zeros before the first.
        X_WL: ``(L, 4, 4)`` link poses in the model frame of the last update; zeros before
            the first.

    Raises:
        InvalidTypeError: ``model`` is not a :class:`RobotModel`.
    """

    __slots__ = ('X_PC', 'X_WL', 'model')

    def __init__(self, model: RobotModel) -> None:
        if not isinstance(model, RobotModel):
            raise InvalidTypeError(f'KinematicsData: model must be a RobotModel, got '
                                   f'{type(model).__name__}')
        self.model = model
        self.X_PC: FloatArray = np.zeros((model.joint_count, 4, 4))
        self.X_WL: FloatArray = np.zeros((model.link_count, 4, 4))

    def copy(self) -> KinematicsData:
        """An independent copy (same model, copied arrays)."""
        other = KinematicsData.__new__(KinematicsData)
        other.model, other.X_PC, other.X_WL = self.model, self.X_PC.copy(), self.X_WL.copy()
        return other


def update_forward_kinematics(model: RobotModel, data: KinematicsData,
                              q: ArrayLike) -> FloatArray:
    """FK of one configuration into ``data`` (Pinocchio ``forwardKinematics(model, data, q)``).

    The same kernel as :func:`forward_kinematics` for a single configuration.

    Args:
        model: The robot model.
        data: The model's :class:`KinematicsData`; ``data.X_PC`` and ``data.X_WL`` are
            replaced by new arrays.
        q: ``(nq,)`` joint positions.

    Returns:
        ``data.X_WL`` ``(L, 4, 4)``.

    Raises:
        InvalidArgumentError: ``q`` is malformed, or is a batch.
        ModelMismatchError: ``data`` belongs to another model.
    """
    if data.model is not model:
        raise ModelMismatchError('update_forward_kinematics: data belongs to another model')
    qa, p = _check_q(model, q, 'update_forward_kinematics')
    if qa.ndim != 1:
        raise InvalidArgumentError(f'update_forward_kinematics: q must have shape '
                                   f'({model.nq},), got {qa.shape}')
    data.X_PC = _local_transforms(model, p, qa)
    data.X_WL = _compose_single(p, p.link_count, data.X_PC)
    return data.X_WL


def compose_link_poses(model: RobotModel, X_PC: FloatArray) -> FloatArray:
    """Compose local joint transforms ``(..., J, 4, 4)`` into link poses ``(..., L, 4, 4)``.

    Raises:
        InvalidArgumentError: ``X_PC`` is not a finite ``(..., J, 4, 4)`` array.
    """
    try:
        X_PC = np.asarray(X_PC, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'compose_link_poses: X_PC is not numeric ({err})') from err
    if X_PC.shape[-3:] != (model.joint_count, 4, 4):
        raise InvalidArgumentError(f'compose_link_poses: X_PC must have shape (..., '
                                   f'{model.joint_count}, 4, 4), got {X_PC.shape}')
    if not np.isfinite(X_PC).all():
        raise InvalidArgumentError('compose_link_poses: X_PC contains NaN or inf')
    p = plan(model)
    L = model.link_count
    batch = X_PC.shape[:-3]
    if not batch:
        return _compose_single(p, L, X_PC)
    soa = np.moveaxis(X_PC.reshape((-1, *X_PC.shape[-3:])), 0, -1)
    X = np.moveaxis(_sweep_levels(model, p, soa.shape[-1], X_PC=soa), -1, 0)
    return X.reshape(batch + X.shape[1:])


def _compose_single(p: KinematicsPlan, L: int, X_PC: FloatArray) -> FloatArray:
    """Pointer jumping: ``Y[l] <- Y[anc[l]] @ Y[l]``; slot ``L`` (and the root) is the identity."""
    if p.child_in_order:  # one allocation instead of four writes
        Y = np.concatenate((_EYE4_STACK, X_PC, _EYE4_STACK))
    else:
        Y = np.empty((L + 1, 4, 4))
        Y[0] = _EYE4
        Y[L] = _EYE4
        Y[p.child] = X_PC
    for anc in p.jump_ancestors:
        Y = Y[anc] @ Y
    return Y[:L]


_EYE4 = np.eye(4)
_EYE4_STACK = _EYE4[None]


def forward_kinematics_soa(model: RobotModel, q: ArrayLike) -> FloatArray:
    """Batched FK in structure-of-arrays layout (the fastest form for large batches).

    Args:
        model: The robot model.
        q: ``(N, nq)`` joint positions.

    Returns:
        ``(L, 4, 4, N)``: ``[..., n]`` is the ``X_WL`` stack of configuration ``n``.
    """
    qa, p = _check_q(model, q, 'forward_kinematics_soa')
    flat = qa.reshape(math.prod(qa.shape[:-1]), model.nq)
    return _sweep_levels(model, p, flat.shape[0], Q=flat)


def link_pose(model: RobotModel, q: ArrayLike, link: str | int) -> FloatArray:
    """``X_WL`` ``(..., 4, 4)`` of one link (computes all links; cache the full FK instead).

    Raises:
        UnknownNameError: Unknown link name.
        InvalidIndexError: Link index out of range or negative.
        InvalidTypeError: ``link`` is neither a name nor an int.
    """
    index = _check_link(model, link, 'link_pose')
    return forward_kinematics(model, q)[..., index, :, :]


# ---------------------------------------------------------------------------- Jacobians


_LINK_ORIGIN = (0.0, 0.0, 0.0)


def jacobian(model: RobotModel, q: ArrayLike, link: str | int, point_L: ArrayLike = _LINK_ORIGIN,
             X_WL: FloatArray | None = None) -> FloatArray:
    """Jacobian of a point fixed on a link, with respect to every velocity variable.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions.
        link: Link name or index.
        point_L: ``(3,)`` (or ``(..., 3)``) point in the link frame [m].
        X_WL: Precomputed link poses for ``q`` (``(..., L, 4, 4)``), to skip FK.

    Returns:
        ``(..., 6, nv)``; rows ``[linear; angular]`` in the model frame, columns the velocity
        variables (mimic joints keep their own column; see :func:`fold_mimic_columns`).

    Raises:
        InvalidArgumentError: ``q`` or ``point_L`` is malformed or not finite, or ``X_WL`` has
            the wrong shape.
        UnknownNameError, InvalidIndexError, InvalidTypeError: Bad ``link``.
    """
    qa, p = _check_q(model, q, 'jacobian')
    li = _check_link(model, link, 'jacobian')
    point = None if point_L is _LINK_ORIGIN else _check_point(point_L, 'jacobian', 'point_L')
    if X_WL is None:
        X_WL = forward_kinematics(model, qa)
    elif X_WL.shape[-3:] != (p.link_count, 4, 4):
        raise InvalidArgumentError(f'jacobian: X_WL must have shape (..., {p.link_count}, 4, '
                                   f'4), got {X_WL.shape}')
    c = _link_columns(model, p, li)
    batch = X_WL.shape[:-3]
    J = np.zeros((*batch, 6, model.nv))
    if not c.columns.size:
        return J
    R = X_WL[..., c.child_links, :3, :3]  # (..., k, 3, 3)
    if c.joint_frame.size:
        R = R.copy()
        R[..., c.joint_frame, :, :] = (X_WL[..., c.parent_links, :3, :3]
                                       @ c.R_PJ)
    axis = (R @ c.axes[..., None])[..., 0]  # (..., k, 3) in W
    X_T = X_WL[..., li, :, :]
    point_W = X_T[..., :3, 3] if point is None else (
        (X_T[..., :3, :3] @ point[..., None])[..., 0] + X_T[..., :3, 3])
    d = point_W[..., None, :] - X_WL[..., :3, 3][..., c.child_links, :]
    columns = point_jacobian_columns(axis, d, prismatic=c.prismatic)  # (..., k, 6)
    J[..., c.columns] = np.swapaxes(columns, -1, -2)
    return J


_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0
_SMALL_JACOBIAN = 64
'''Columns up to which one Jacobian's cross products are one einsum call (fewer numpy calls);
stacks (batches, IK's tips x columns x rows) use component arithmetic (faster per element).'''


def point_jacobian_columns(axis_W: FloatArray, lever_W: FloatArray, *, angular: bool = True,
                           prismatic: IntArray | None = None,
                           column_axis: int = -2) -> FloatArray:
    """The Jacobian-column kernel: velocity of a point per unit rate of each joint axis.

    Revolute columns are ``[axis × lever; axis]``, prismatic ones ``[axis; 0]``, rows
    ``[linear; angular]`` (MoveIt's layout), all in the frame the inputs are expressed in.
    :func:`jacobian` and IK's iteration Jacobian both build their columns here.

    Args:
        axis_W: ``(..., 3)`` unit joint axes.
        lever_W: ``(..., 3)`` from a point on each axis to the point whose velocity is wanted
            (``axis_W`` broadcasts against it).
        angular: Also return the angular rows (width 6), else only the linear ones (3).
        prismatic: Indices of the prismatic columns along ``column_axis`` of the result.
        column_axis: Axis of the result that runs over the columns (negative, before the
            last).

    Returns:
        ``(..., 6)`` (or ``(..., 3)``) columns, the leading shape of ``lever_W``.
    """
    shape = lever_W.shape[:-1]
    if lever_W.ndim == 2 and shape[0] <= _SMALL_JACOBIAN \
            and axis_W.shape == lever_W.shape:  # one Jacobian: one call is cheapest
        linear = np.einsum('ijk,...j,...k->...i', _LEVI_CIVITA, axis_W, lever_W)
        out = np.concatenate((linear, axis_W), axis=-1) if angular else linear
    else:  # component arithmetic: cheapest for IK's (tips, columns, rows) stacks
        out = np.empty((*shape, 6 if angular else 3))
        a0, a1, a2 = axis_W[..., 0], axis_W[..., 1], axis_W[..., 2]
        l0, l1, l2 = lever_W[..., 0], lever_W[..., 1], lever_W[..., 2]
        out[..., 0] = a1 * l2 - a2 * l1
        out[..., 1] = a2 * l0 - a0 * l2
        out[..., 2] = a0 * l1 - a1 * l0
        if angular:
            out[..., 3:] = axis_W
    if prismatic is not None and prismatic.size:
        o = np.moveaxis(out, column_axis, 0)  # a view
        a = np.moveaxis(np.broadcast_to(axis_W, (*shape, 3)), column_axis, 0)
        o[prismatic, ..., :3] = a[prismatic]
        if angular:
            o[prismatic, ..., 3:] = 0.0
    return out


@dataclass(frozen=True)
class _LinkColumns:
    """Per-link Jacobian structure: the velocity columns that move the link."""

    columns: IntArray
    child_links: IntArray  # link whose origin is each column's centre (and 1-DOF frame)
    axes: FloatArray  # (k, 3) axes in the column's frame
    prismatic: IntArray  # positions (within columns) of translational variables
    joint_frame: IntArray  # positions (within columns) expressed in the joint frame F
    parent_links: IntArray  # parent link of those
    R_PJ: FloatArray  # (f, 3, 3) their joint-origin rotations


def _link_columns(model: RobotModel, p: KinematicsPlan, link: int) -> _LinkColumns:
    cache = p.link_columns
    cached = cache.get(link)
    if cached is None:
        path = []  # joints on the path root -> link (O(depth), once per link)
        parent_joint = model.link_parent_joint.tolist()
        parent_link = model.joint_parent_link.tolist()
        j = parent_joint[link]
        while j >= 0:
            path.append(j)
            j = parent_joint[parent_link[j]]
        cols = velocity_indices_of_joints(model, np.sort(np.asarray(path, dtype=np.intp)))
        joints = p.v_joint[cols]
        jf = np.flatnonzero(p.v_in_joint_frame[cols]).astype(np.intp)
        cached = _LinkColumns(
            _ro(cols, np.intp), _ro(p.child[joints], np.intp), _ro(p.v_axis[cols]),
            _ro(np.flatnonzero(~p.v_rotational[cols]), np.intp),
            _ro(jf, np.intp),
            _ro(p.parent[joints[jf]], np.intp),
            _ro(np.asarray(model.joint_origins)[joints[jf], :3, :3]))
        if len(cache) >= _LINK_COLUMNS_CACHE_SIZE:  # O(depth) each: bounded, so a sweep
            cache.clear()  # over every link of a long chain cannot grow O(L²) memory
        cache[link] = cached
    return cached


def fold_mimic_columns(model: RobotModel, J: FloatArray) -> FloatArray:
    """Add each mimic joint's column, times its multiplier, to its source column (a copy).

    The mimic columns themselves are zeroed: the result maps the *independent* velocities.
    Mimic chains are already composed by the model, so one matrix product does it.
    """
    p = plan(model)
    shape = J.shape if isinstance(J, np.ndarray) else np.shape(J)
    if shape[-1:] != (model.nv,):
        raise InvalidArgumentError(f'fold_mimic_columns: J must have shape (..., {model.nv}), '
                                   f'got {shape}')
    if not p.mimic_v.size:
        return np.array(J, dtype=np.float64, copy=True)
    if p.mimic_fold is not None:
        return np.asarray(J, dtype=np.float64) @ p.mimic_fold
    out = np.array(J, dtype=np.float64, copy=True)
    moved = np.moveaxis(out, -1, 0)  # a view: columns first
    np.add.at(moved, p.mimic_source_v, moved[p.mimic_v] * p.mimic_multiplier.reshape(
        (-1,) + (1,) * (moved.ndim - 1)))
    moved[p.mimic_v] = 0.0
    return out


def velocity_indices_of_joints(model: RobotModel, joint_indices: ArrayLike) -> IntArray:
    """Velocity-variable indices of the given joints, in order."""
    index = np.asarray(joint_indices, dtype=np.intp)
    starts = np.asarray(model.joint_v_start)[index]
    counts = np.asarray(model.joint_nv)[index]
    # Each joint's run start..start+count, without a Python loop: a run-wise offset plus 0..n-1.
    offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    out: IntArray = (offsets + np.arange(offsets.size)).astype(np.intp)
    return out


def jacobian_in_frame(J: FloatArray, R_WT: FloatArray) -> FloatArray:
    """Re-express a ``[linear; angular]`` Jacobian ``(6, n)`` from W in frame T.

    Args:
        J: ``(6, n)`` Jacobian in the model frame W.
        R_WT: ``(3, 3)`` orientation of frame T in W.

    Returns:
        ``(6, n)``: both row blocks rotated by ``R_TW = R_WTᵀ``.
    """
    out = np.empty_like(J)
    out[:3] = R_WT.T @ J[:3]
    out[3:] = R_WT.T @ J[3:]
    return out


# ---------------------------------------------------------------------------- joint values


def apply_mimic_rates(model: RobotModel, values: FloatArray) -> None:
    """Mimic velocities/accelerations ``(nv,)`` follow their source by the multiplier (in place).

    Rates have no offset: ``v[mimic] = multiplier * v[source]``.
    """
    p = plan(model)
    if p.mimic_v.size:
        values[p.mimic_v] = p.mimic_multiplier * values[p.mimic_source_v]


def joint_motion(model: RobotModel, joint: int, X_PC: FloatArray) -> FloatArray:
    """``X_FM = X_PJ⁻¹ @ X_PC`` ``(4, 4)``: a joint's motion without its origin.

    Args:
        model: The robot model.
        joint: Joint index.
        X_PC: ``(4, 4)`` the joint's local transform (child link in parent link).
    """
    out: FloatArray = np.asarray(np.linalg.solve(model.joint_origins[joint], X_PC),
                                 dtype=np.float64)
    return out


def joint_positions_from_motion(model: RobotModel, joint: int, X_FM: FloatArray) -> FloatArray:
    """The joint's variables ``(nq_j,)`` whose motion is closest to ``X_FM`` ``(4, 4)``.

    MoveIt ``computeVariablePositions``; components the joint cannot represent are dropped.

    Raises:
        InvalidArgumentError: The joint is FIXED (it has no variables).
    """
    t = model.joint_types[joint]
    R, p = X_FM[:3, :3], X_FM[:3, 3]
    axis = np.asarray(model.joint_axes[joint])
    if t in (JointType.REVOLUTE, JointType.CONTINUOUS):
        return np.array([float(rotation_log(R) @ axis)])
    if t is JointType.PRISMATIC:
        return np.array([float(p @ axis)])
    if t is JointType.PLANAR:
        kp = plan(model)
        P = kp.planar_basis[int(np.flatnonzero(kp.planar == joint)[0])]
        M = P.T @ R @ P
        return np.array([p @ P[:, 0], p @ P[:, 1], math.atan2(M[1, 0], M[0, 0])])
    if t is JointType.FLOATING:
        return np.concatenate([p, quat_xyzw_from_rotation(R)])
    if t is JointType.RPY_FLOATING:
        return np.concatenate([rpy_from_rotation(R), p])
    raise InvalidArgumentError(f'joint {model.joint_names[joint]!r} ({t.value}) has no '
                               'variables')


def fixed_frame_poses(X_WL: FloatArray, links: IntArray, X_LF: FloatArray) -> FloatArray:
    """``X_WF = X_WL[link(F)] @ X_LF`` ``(F, 4, 4)`` of frames fixed on links (collision bodies).

    Args:
        X_WL: ``(L, 4, 4)`` link poses.
        links: ``(F,)`` link of each frame.
        X_LF: ``(F, 4, 4)`` frame poses in their link.
    """
    out: FloatArray = X_WL[links] @ X_LF
    return out


# ---------------------------------------------------------------------------- configuration space


def integrate(model: RobotModel, q: ArrayLike, v: ArrayLike, dt: float = 1.0) -> FloatArray:
    """``q ⊕ v dt``: move along velocity ``v`` for ``dt`` seconds (exact on SO(3) parts).

    Args:
        model: The robot model.
        q: ``(..., nq)`` positions.
        v: ``(..., nv)`` velocities (``[w_FM; v_FM]`` for floating/rpy joints).
        dt: Duration [s].

    Returns:
        ``(..., nq)`` new positions (quaternions unit, mimic variables not re-applied).
    """
    qa, p = _check_q(model, q, 'integrate')
    try:
        va = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'integrate: v is not numeric ({err})') from err
    if va.shape[-1:] != (model.nv,):
        raise InvalidArgumentError(f'integrate: v must have shape (..., {model.nv}), got '
                                   f'{va.shape}')
    if not all_finite(va):
        raise InvalidArgumentError('integrate: v contains NaN or inf')
    dt = as_finite_float(dt, 'integrate', 'dt')
    batch = _broadcast(qa, va, 'integrate', 'v')
    out = np.array(np.broadcast_to(qa, (*batch, model.nq)))
    simple = p.q_of_v >= 0
    out[..., p.q_of_v[simple]] += va[..., simple] * dt
    for joints, kind in ((p.floating, 'floating'), (p.rpy, 'rpy')):
        if not joints.size:
            continue
        v0 = np.asarray(model.joint_v_start)[joints][:, None] + np.arange(6)
        w, lin = va[..., v0[:, :3]] * dt, va[..., v0[:, 3:]] * dt
        if kind == 'floating':
            qs = p.floating_q
            out[..., qs[:, :3]] += lin
            R = rotation_exp(w) @ rotation_from_quat_xyzw(out[..., qs[:, 3:]])
            out[..., qs[:, 3:]] = quat_xyzw_from_rotation(R)
        else:
            qs = p.rpy_q
            out[..., qs[:, 3:]] += lin
            R = rotation_exp(w) @ rotation_from_rpy(out[..., qs[:, :3]])
            out[..., qs[:, :3]] = rpy_from_rotation(R)
    return out


def difference(model: RobotModel, q0: ArrayLike, q1: ArrayLike) -> FloatArray:
    """The velocity ``v`` with ``integrate(q0, v) == q1`` (shortest arc for angles).

    Args:
        model: The robot model.
        q0: ``(..., nq)`` start positions.
        q1: ``(..., nq)`` end positions.

    Returns:
        ``(..., nv)``; continuous joints and planar theta take the shortest arc, quaternion
        and rpy joints the rotation vector of ``R1 R0^T`` (in the joint frame F).
    """
    a, p = _check_q(model, q0, 'difference', 'q0')
    b, _ = _check_q(model, q1, 'difference', 'q1')
    shape = _broadcast(a, b, 'difference', 'q1')
    out = np.zeros((*shape, model.nv))
    simple = p.q_of_v >= 0
    d = b[..., p.q_of_v[simple]] - a[..., p.q_of_v[simple]]
    wrap = np.asarray(model.variable_bounded)[p.q_of_v[simple]] == False  # noqa: E712
    wrap &= np.isin(np.arange(model.nq)[p.q_of_v[simple]], p.angle_variables)
    d = np.where(wrap, wrap_angle(d), d)
    out[..., simple] = d
    for joints, qs, kind in ((p.floating, p.floating_q, 'floating'), (p.rpy, p.rpy_q, 'rpy')):
        if not joints.size:
            continue
        v0 = np.asarray(model.joint_v_start)[joints][:, None] + np.arange(6)
        if kind == 'floating':
            R0 = rotation_from_quat_xyzw(a[..., qs[:, 3:]])
            R1 = rotation_from_quat_xyzw(b[..., qs[:, 3:]])
            t0, t1 = a[..., qs[:, :3]], b[..., qs[:, :3]]
        else:
            R0 = rotation_from_rpy(a[..., qs[:, :3]])
            R1 = rotation_from_rpy(b[..., qs[:, :3]])
            t0, t1 = a[..., qs[:, 3:]], b[..., qs[:, 3:]]
        out[..., v0[:, :3]] = rotation_log(R1 @ np.swapaxes(R0, -1, -2))
        out[..., v0[:, 3:]] = t1 - t0
    return out


def _angle_variables(model: RobotModel) -> IntArray:
    """Q indices of angles that wrap: continuous joints and planar theta (once per model)."""
    idx = [int(model.joint_q_start[j]) for j, t in enumerate(model.joint_types)
           if t is JointType.CONTINUOUS]
    idx += [int(model.joint_q_start[j]) + 2 for j, t in enumerate(model.joint_types)
            if t is JointType.PLANAR]
    out: IntArray = _ro(sorted(idx), np.intp)
    return out


# ---------------------------------------------------------------------------- scene state (SG-49)


@dataclass(frozen=True)
class SceneState:
    """tesseract's ``SceneState`` (SG-C8): joint values and the resulting world transforms.

    Attributes:
        joints: The variable values used, ``{variable name: value}`` (every model variable).
        link_transforms: ``{link name: X_WL (4, 4)}`` in the model frame.
        joint_transforms: ``{joint name: X_WC (4, 4)}``: the joint frame after its motion, which
            is the child link's frame (tesseract gives both for convenience).
    """

    joints: dict[str, float]
    link_transforms: dict[str, FloatArray]
    joint_transforms: dict[str, FloatArray]


def compute_scene_state(model: RobotModel | SceneGraph,
                        joint_values: Mapping[str, object] | None = None) -> SceneState:
    """Compute a :class:`SceneState` from joint values (SG-49; tesseract's state solver).

    Args:
        model: A :class:`~robot_state_core.robot_model.RobotModel`, or a
            :class:`~robot_state_core.scene_graph.SceneGraph` (compiled on the fly).
        joint_values: ``{variable or 1-DOF joint name: value}``, or multi-DOF ``{joint name:
            (nq_j,) values}``; unspecified variables take the model's defaults. Mimic joints
            follow their sources.

    Raises:
        UnknownNameError: A name is neither a variable nor a joint of the model.
    """
    if not isinstance(model, RobotModel):
        model = RobotModel.from_scene_graph(model)
    q = np.array(model.default_positions, dtype=np.float64)
    if joint_values is not None and not isinstance(joint_values, Mapping):
        raise InvalidTypeError(f'compute_scene_state: joint_values must be a mapping, got '
                               f'{type(joint_values).__name__}')
    for name, value in (joint_values or {}).items():
        if model.has_variable(name):
            q[model.variable_index(name)] = as_finite_float(value, 'compute_scene_state',
                                                            f'value of {name!r}')
        else:
            j = model.joint_index(name)
            start, n = int(model.joint_q_start[j]), int(model.joint_nq[j])
            values = as_float_array(value, 'compute_scene_state', f'values of {name!r}')
            if values.size != n:
                raise InvalidArgumentError(f'compute_scene_state: joint {name!r} needs {n} '
                                           f'value(s), got {values.size}')
            q[start:start + n] = values.reshape(n)
    model.apply_mimic(q)
    X_WL = forward_kinematics(model, q)
    links = {name: X_WL[i] for i, name in enumerate(model.link_names)}
    joints = {name: X_WL[int(model.joint_child_link[j])]
              for j, name in enumerate(model.joint_names)}
    return SceneState(dict(zip(model.variable_names, q.tolist(), strict=True)), links, joints)


# ---------------------------------------------------------------------------- structured batches


@dataclass(frozen=True)
class _LevelGroup:
    """The joints of one tree level that share a kind (fixed, revolute, prismatic, other)."""

    joints: IntArray
    parents: IntArray | slice  # a slice when contiguous (a chain): views, not gathered copies
    children: IntArray
    pre: FloatArray  # (m, 4, 4): X_PJ @ U (revolute: U turns z onto the axis), else X_PJ
    post: FloatArray | None  # (m, 3, 3): U^T for revolute joints whose axis is not z
    q: IntArray  # (m,) q index of 1-DOF joints
    axis: FloatArray  # (m, 3) joint axes in the joint frame


@dataclass(frozen=True)
class _StructuredPlan:
    levels: tuple[tuple[_LevelGroup | None, ...], ...]  # (fixed, revolute, prismatic, other)


def _as_slice(index: IntArray) -> IntArray | slice:
    """``slice(a, a + m)`` when ``index`` is ``a, a + 1, ..., a + m - 1``, else a copy."""
    if index.size and np.array_equal(index, np.arange(index[0], index[0] + index.size)):
        return slice(int(index[0]), int(index[0]) + index.size)
    out: IntArray = _ro(index, np.intp)
    return out


def _build_structured_plan(model: RobotModel) -> _StructuredPlan:
    X_PJ = np.asarray(model.joint_origins)
    axes = np.asarray(model.joint_axes)
    parent = np.asarray(model.joint_parent_link)
    child = np.asarray(model.joint_child_link)
    kinds = np.array([0 if t is JointType.FIXED else 1 if t in (
        JointType.REVOLUTE, JointType.CONTINUOUS) else 2 if t is JointType.PRISMATIC else 3
        for t in model.joint_types], dtype=np.intp)
    levels = []
    for lv in model.levels:
        groups: list[_LevelGroup | None] = []
        for kind in range(4):
            js = lv[kinds[lv] == kind]
            if not js.size:
                groups.append(None)
                continue
            pre = X_PJ[js].copy()
            post = None
            if kind == 1:
                U = np.stack([rotation_onto_axis(axes[j]) for j in js])  # plan time only
                pre[:, :3, :3] = pre[:, :3, :3] @ U
                if not np.allclose(U, np.eye(3)):
                    post = _ro(np.swapaxes(U, -1, -2))
            q_index = np.asarray(model.joint_q_start)[js]
            groups.append(_LevelGroup(_ro(js, np.intp), _as_slice(parent[js]),
                                      _ro(child[js], np.intp), _ro(pre), post,
                                      _ro(q_index, np.intp), _ro(axes[js])))
        levels.append(tuple(groups))
    return _StructuredPlan(tuple(levels))


def _sweep_levels(model: RobotModel, p: KinematicsPlan, N: int, *, Q: FloatArray | None = None,
                  X_PC: FloatArray | None = None) -> FloatArray:
    """The batched FK kernel: link poses ``(L, 4, 4, N)``, swept over the tree level by level.

    From positions ``Q`` ``(N, nq)``, per tree level: ``A = X_WP @ X_PJ U`` (a product with a
    constant matrix), then the joint's motion as a cheap column mix (revolute: the rotation
    about z between two columns of ``A``, the axis turned onto z by the plan's ``U``;
    prismatic: a translation along a known column), then ``@ U^T`` for off-z axes;
    multi-DOF joints compose their :func:`_multi_dof_transforms`. From given local transforms
    ``X_PC`` ``(J, 4, 4, N)`` (:func:`compose_link_poses`), every joint composes generically.
    Loops run over tree levels and joint kinds only.
    """
    L = model.link_count
    X = np.empty((L, 4, 4, N))
    X[:, 3, :3] = 0.0
    X[:, 3, 3] = 1.0
    X[0, :3] = np.eye(4)[:3, :, None]
    if X_PC is not None:
        for (joints, parents, children), single in zip(p.levels, p.single_levels, strict=True):
            if single is not None:
                j, par, ch = single
                P, C = X[par], X_PC[j]
                np.einsum('ikn,kjn->ijn', P[:3, :3], C[:3, :], out=X[ch, :3, :])
                X[ch, :3, 3] += P[:3, 3]
            else:
                P, C = X[parents], X_PC[joints]
                out = np.einsum('likn,lkjn->lijn', P[:, :3, :3], C[:, :3, :])
                out[:, :, 3] += P[:, :3, 3]
                X[children, :3, :] = out
        return X
    if Q is None:
        raise InvalidArgumentError('_sweep_levels: give Q or X_PC')
    QT = np.ascontiguousarray(Q.T)
    for groups in p.structured.levels:
        fixed, revolute, prismatic, other = groups
        for kind, g in enumerate((fixed, revolute, prismatic)):
            if g is None:
                continue
            P = X[g.parents, :3]  # (m, 3, 4, N)
            A = np.einsum('mikn,mkj->mijn', P[:, :, :3], g.pre[:, :3, :])
            A[:, :, 3] += P[:, :, 3]
            if kind == 1:
                theta = QT[g.q]  # (m, N)
                c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
                A0 = A[:, :, 0].copy()
                A[:, :, 0] = c * A0 + s * A[:, :, 1]
                A[:, :, 1] = c * A[:, :, 1] - s * A0
                if g.post is not None:
                    A[:, :, :3] = np.einsum('mikn,mkj->mijn', A[:, :, :3], g.post)
            elif kind == 2:
                # translation along the joint axis: R_WJ @ axis_J * q
                A[:, :, 3] += np.einsum('mikn,mk->min', A[:, :, :3], g.axis) * QT[g.q][:, None]
            X[g.children, :3] = A
        if other is not None:  # planar / floating / rpy_floating: generic product
            dense = np.broadcast_to(np.eye(4), (N, model.joint_count, 4, 4)).copy()
            dense = _multi_dof_transforms(model, p, Q, dense)
            C = np.moveaxis(dense[:, other.joints], 0, -1)  # (m, 4, 4, N)
            P = X[other.parents]
            out = np.einsum('mikn,mkjn->mijn', P[:, :3, :3], C[:, :3, :])
            out[:, :, 3] += P[:, :3, 3]
            X[other.children, :3] = out
    return X
