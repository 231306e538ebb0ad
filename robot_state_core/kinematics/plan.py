"""The compiled kinematics plan of a model and the argument checks the kinematics share.

:class:`KinematicsPlan` holds every per-model table of FK, Jacobians and configuration-space
maps, compiled once by :func:`plan` and owned by the immutable model (``RobotModel.derived``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    all_finite,
    as_index,
    BoolArray,
    FloatArray,
    IntArray,
)
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_motion import one_dof_motion_coefficients
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    plane_basis,
    rotation_onto_axis,
)

_ONE_DOF = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)

LINK_COLUMNS_CACHE_SIZE = 1024
'''Links whose Jacobian structure is cached per model (every link of any real robot).'''
_DENSE_FOLD_MAX_NV = 64
'''Largest ``nv`` for which the mimic fold is one dense ``(nv, nv)`` product (32 kB); larger
models fold with index arithmetic, so the plan stays O(links + joints) in memory.'''


@dataclass(frozen=True)
class LinkColumns:
    """Per-link Jacobian structure: the velocity columns that move the link."""

    columns: IntArray
    child_links: IntArray  # link whose origin is each column's centre (and 1-DOF frame)
    axes: FloatArray  # (k, 3) axes in the column's frame
    prismatic: IntArray  # positions (within columns) of translational variables
    joint_frame: IntArray  # positions (within columns) expressed in the joint frame F
    parent_links: IntArray  # parent link of those
    R_PJ: FloatArray  # (f, 3, 3) their joint-origin rotations


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
    structured: StructuredPlan  # per-level joint groups of the batched FK
    link_columns: dict[int, LinkColumns] = field(default_factory=dict, compare=False,
                                                  repr=False)
    '''Jacobian structure per link, filled on first use (bounded, see
    ``LINK_COLUMNS_CACHE_SIZE``): the only mutable part, a cache of pure functions of the
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
        angle_variables=angle_variables(model), structured=_build_structured_plan(model))


def _fold_matrix(nv: int, mimic_v: IntArray, source_v: IntArray, mult: FloatArray) -> FloatArray:
    M = np.eye(nv)
    for m, s, k in zip(mimic_v, source_v, mult, strict=True):  # once per model
        M[m, s] += k
        M[m, m] = 0.0
    return M


def check_configuration(model: RobotModel, q: ArrayLike, function: str, name: str = 'q'
             ) -> tuple[FloatArray, KinematicsPlan]:
    """``q`` as float64 ``(..., nq)``, finite, with usable quaternions; and the model's plan.

    Raises:
        InvalidArgumentError: Not numeric, wrong shape, NaN or inf, or a FLOATING joint's
            quaternion that is degenerate
            (:func:`~robot_state_core.spatial.transforms.check_quat_xyzw`).
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


def check_point(point: ArrayLike, function: str, name: str) -> FloatArray:
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


def broadcast_batch(a: FloatArray, b: FloatArray, function: str, name: str) -> tuple[int, ...]:
    """The broadcast batch shape of two ``(..., n)`` arrays; InvalidArgumentError if none."""
    try:
        return np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError as err:
        raise InvalidArgumentError(f'{function}: batch shape of {name} {b.shape[:-1]} does not '
                                   f'broadcast against {a.shape[:-1]}') from err


def check_link(model: RobotModel, link: object, function: str) -> int:
    """A link name or index as a validated index (negative and float indices are refused)."""
    if isinstance(link, str):
        return int(model.link_index(link))
    return as_index(link, model.link_count, function, 'link index')


def angle_variables(model: RobotModel) -> IntArray:
    """Q indices of angles that wrap: continuous joints and planar theta (once per model)."""
    idx = [int(model.joint_q_start[j]) for j, t in enumerate(model.joint_types)
           if t is JointType.CONTINUOUS]
    idx += [int(model.joint_q_start[j]) + 2 for j, t in enumerate(model.joint_types)
            if t is JointType.PLANAR]
    out: IntArray = _ro(sorted(idx), np.intp)
    return out


# ---------------------------------------------------------------------------- structured batches


@dataclass(frozen=True)
class LevelGroup:
    """The joints of one tree level that share a kind (fixed, revolute, prismatic, other)."""

    joints: IntArray
    parents: IntArray | slice  # a slice when contiguous (a chain): views, not gathered copies
    children: IntArray
    pre: FloatArray  # (m, 4, 4): X_PJ @ U (revolute: U turns z onto the axis), else X_PJ
    post: FloatArray | None  # (m, 3, 3): U^T for revolute joints whose axis is not z
    q: IntArray  # (m,) q index of 1-DOF joints
    axis: FloatArray  # (m, 3) joint axes in the joint frame


@dataclass(frozen=True)
class StructuredPlan:
    """The batched FK's joints grouped per tree level and kind."""

    levels: tuple[tuple[LevelGroup | None, ...], ...]  # (fixed, revolute, prismatic, other)


def _as_slice(index: IntArray) -> IntArray | slice:
    """``slice(a, a + m)`` when ``index`` is ``a, a + 1, ..., a + m - 1``, else a copy."""
    if index.size and np.array_equal(index, np.arange(index[0], index[0] + index.size)):
        return slice(int(index[0]), int(index[0]) + index.size)
    out: IntArray = _ro(index, np.intp)
    return out


def _build_structured_plan(model: RobotModel) -> StructuredPlan:
    X_PJ = np.asarray(model.joint_origins)
    axes = np.asarray(model.joint_axes)
    parent = np.asarray(model.joint_parent_link)
    child = np.asarray(model.joint_child_link)
    kinds = np.array([0 if t is JointType.FIXED else 1 if t in (
        JointType.REVOLUTE, JointType.CONTINUOUS) else 2 if t is JointType.PRISMATIC else 3
        for t in model.joint_types], dtype=np.intp)
    levels = []
    for lv in model.levels:
        groups: list[LevelGroup | None] = []
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
            groups.append(LevelGroup(_ro(js, np.intp), _as_slice(parent[js]),
                                      _ro(child[js], np.intp), _ro(pre), post,
                                      _ro(q_index, np.intp), _ro(axes[js])))
        levels.append(tuple(groups))
    return StructuredPlan(tuple(levels))


