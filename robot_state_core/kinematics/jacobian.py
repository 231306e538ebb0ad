"""Jacobians: the point-Jacobian column kernel, per-link Jacobians, mimic folding, frames.

Rows ``[linear (3); angular (3)]`` (MoveIt's layout) in the model frame; see
:mod:`robot_state_core.kinematics` for the velocity-variable conventions.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    FloatArray,
    IntArray,
)
from robot_state_core._typing import read_only as _ro
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.kinematics.forward import forward_kinematics
from robot_state_core.kinematics.plan import (
    check_configuration,
    check_link,
    check_point,
    KinematicsPlan,
    LINK_COLUMNS_CACHE_SIZE,
    LinkColumns,
    plan,
)
from robot_state_core.model.robot_model import RobotModel

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
    qa, p = check_configuration(model, q, 'jacobian')
    li = check_link(model, link, 'jacobian')
    point = None if point_L is _LINK_ORIGIN else check_point(point_L, 'jacobian', 'point_L')
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


def _link_columns(model: RobotModel, p: KinematicsPlan, link: int) -> LinkColumns:
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
        cached = LinkColumns(
            _ro(cols, np.intp), _ro(p.child[joints], np.intp), _ro(p.v_axis[cols]),
            _ro(np.flatnonzero(~p.v_rotational[cols]), np.intp),
            _ro(jf, np.intp),
            _ro(p.parent[joints[jf]], np.intp),
            _ro(np.asarray(model.joint_origins)[joints[jf], :3, :3]))
        if len(cache) >= LINK_COLUMNS_CACHE_SIZE:  # O(depth) each: bounded, so a sweep
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


