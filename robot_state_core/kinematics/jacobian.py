"""Jacobians: point Jacobians of links (the compiled kernel), mimic folding, frames.

One kernel: :func:`jacobian` runs :func:`robot_state_core.kinematics.compiled.point_jacobian`
on the link's tables (:func:`link_columns`); its columns and :func:`point_jacobian_columns`'
come from the one column function
:func:`robot_state_core.kinematics.compiled.jacobian_column`.
:func:`forward_kinematics_and_jacobian` runs FK, that Jacobian code and the mimic fold of one
configuration in one compiled call
(:func:`robot_state_core.kinematics.compiled.forward_jacobian_one`).

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
from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError
from robot_state_core.kinematics.forward import (
    kernel_rows,
    run_forward,
    run_forward_one,
)
from robot_state_core.kinematics.plan import (
    broadcast_batch,
    build_plan,
    check_configuration,
    check_link,
    check_point,
    compiled_kernels,
    configuration_error,
    entries,
    FLOAT64,
    kernel_entry,
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
    p = model.derived(build_plan)
    if (type(q) is np.ndarray and q.dtype is FLOAT64 and q.shape == p.q_shape
            and q.flags.carray and point_L is _LINK_ORIGIN and type(link) is str):
        J = _fast_single_jacobian(model, p, q, link, X_WL)
        if J is not None:
            return J
    qa, p = check_configuration(model, q, 'jacobian')
    li = check_link(model, link, 'jacobian')
    point = None if point_L is _LINK_ORIGIN else check_point(point_L, 'jacobian', 'point_L')
    if qa.ndim == 1 and (point is None or point.ndim == 1) and (X_WL is None or X_WL.ndim == 3):
        return _single_jacobian(model, p, qa, li, point, X_WL)
    if X_WL is None:  # the FK kernel on the configuration validated above
        rows = run_forward(p, kernel_rows(qa))
        batch = qa.shape[:-1]
        X_WL = rows.reshape(batch + rows.shape[1:])
    elif X_WL.shape[-3:] != (p.link_count, 4, 4):
        raise InvalidArgumentError(f'jacobian: X_WL must have shape (..., {p.link_count}, 4, '
                                   f'4), got {X_WL.shape}')
    else:
        batch = X_WL.shape[:-3]
        rows = X_WL.reshape(-1, p.link_count, 4, 4)
        if not (rows.flags.c_contiguous and rows.flags.writeable):
            rows = np.array(rows, dtype=np.float64, order='C')
    c = link_columns(model, p, li)
    J = np.zeros((*batch, 6, model.nv))
    if not c.columns.shape[0]:
        return J
    if point is None:
        points = _ORIGIN_ROW
    elif point.shape[:-1] in ((), batch):
        points = kernel_rows(point)
    else:  # a batch of points: broadcast against the batch of poses
        shape = broadcast_batch(X_WL[..., 0, :3], point, 'jacobian', 'point_L')
        rows = np.array(np.broadcast_to(X_WL, (*shape, p.link_count, 4, 4))).reshape(
            -1, p.link_count, 4, 4)
        points = np.array(np.broadcast_to(point, (*shape, 3))).reshape(-1, 3)
        J = np.zeros((*shape, 6, model.nv))
    compiled_kernels().point_jacobian(rows, li, points, c.columns, c.frames,
                                      J.reshape(-1, 6, model.nv))
    return J


_ORIGIN_ROW = np.zeros((1, 3))
# The point argument for the link origin (writable: one kernel signature).
_NO_MIMIC = np.zeros((0, 3))
# The fold table that folds nothing (writable: one kernel signature).
_FK_AND_JACOBIAN = 'forward_kinematics_and_jacobian'


def forward_kinematics_and_jacobian(model: RobotModel, q: ArrayLike, link: str | int, *,
                                    fold_mimic: bool = True) -> tuple[FloatArray, FloatArray]:
    """Link poses and the Jacobian of a link's origin, from one forward pass.

    The analogue of Pinocchio's ``computeJointJacobians`` / ``computeFrameJacobian`` (which
    run their own forward pass). One configuration is one compiled call
    (:func:`~robot_state_core.kinematics.compiled.forward_jacobian_one`: the FK kernel's
    code, the Jacobian kernel's columns, the mimic fold), bitwise equal to
    ``X_WL = forward_kinematics(model, q)``, ``J = jacobian(model, q, link, X_WL=X_WL)``,
    ``fold_mimic_columns(model, J)``; a batch runs those functions.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions.
        link: Link name or index.
        fold_mimic: Fold each mimic joint's column into its source's
            (:func:`fold_mimic_columns`: the columns of the independent velocities); else
            mimic joints keep their own column (as :func:`jacobian` returns them).

    Returns:
        ``(X_WL, J)``: ``X_WL`` ``(..., L, 4, 4)`` every link's pose in the model frame;
        ``J`` ``(..., 6, nv)`` the Jacobian of the origin of ``link``, rows ``[linear;
        angular]`` in the model frame.

    Raises:
        InvalidArgumentError: ``q`` is malformed or not finite.
        UnknownNameError, InvalidIndexError, InvalidTypeError: Bad ``link``.
    """
    p = model.derived(build_plan)
    if (type(q) is np.ndarray and q.dtype is FLOAT64 and q.shape == p.q_shape
            and q.flags.carray and type(link) is str
            and (c := p.named_link_columns.get(link) or named_link_columns(model, p, link))):
        # A kernel-ready q (as forward_kinematics' fast path) and a known link name: the
        # arguments go to the kernel as given, q's values tested by it. An unknown name
        # takes the general checks below (q's error first, as jacobian).
        return _forward_and_jacobian_one(q, p, c, fold_mimic)
    qa, p = check_configuration(model, q, _FK_AND_JACOBIAN)
    li = check_link(model, link, _FK_AND_JACOBIAN)
    if qa.ndim == 1:
        q1 = qa if qa.flags.carray else np.array(qa, dtype=np.float64, order='C')
        return _forward_and_jacobian_one(q1, p, link_columns(model, p, li), fold_mimic)
    rows = run_forward(p, kernel_rows(qa))
    X_batch = rows.reshape(qa.shape[:-1] + rows.shape[1:])
    J_batch = jacobian(model, qa, li, X_WL=X_batch)
    if fold_mimic and p.mimic_v.size:  # jacobian's new array, folded in place
        (entries.fold_mimic or kernel_entry('fold_mimic'))(J_batch.reshape(-1, model.nv),
                                                             p.mimic_table)
    return X_batch, J_batch


def _forward_and_jacobian_one(q: FloatArray, p: KinematicsPlan, c: LinkColumns,
                              fold_mimic: bool) -> tuple[FloatArray, FloatArray]:
    """:func:`forward_kinematics_and_jacobian` of ``q`` ``(nq,)`` (C-contiguous, writable).

    The one kernel call of both single-configuration paths (``c`` the link's tables); the
    kernel tests ``q``.

    Raises:
        InvalidArgumentError: ``q`` contains NaN or inf, or a degenerate quaternion.
    """
    X_WL = np.empty(p.pose_shape)
    J = np.zeros(p.jacobian_shape)
    status = (entries.forward_jacobian_one or kernel_entry('forward_jacobian_one'))(
        q, p.fk_joints, p.fk_coefficients, X_WL, c.link, c.columns, c.frames,
        p.mimic_table if fold_mimic else _NO_MIMIC, J)
    if status:
        raise configuration_error(p, q, status, _FK_AND_JACOBIAN)
    return X_WL, J


def _fast_single_jacobian(model: RobotModel, p: KinematicsPlan, q: FloatArray, link: str,
                          X_WL: FloatArray | None) -> FloatArray | None:
    """:func:`jacobian`'s fast path: a kernel-ready ``q`` (see the caller) at a link origin.

    The arguments go to the kernels as given, ``q``'s values tested by them. ``None``
    (the caller's general path, which raises the right error in the right order) for an
    unknown link or an ``X_WL`` that is not a C-contiguous writable float64 ``(L, 4, 4)``.

    Raises:
        InvalidArgumentError: ``q`` contains NaN or inf, or a degenerate quaternion.
    """
    c = p.named_link_columns.get(link) or named_link_columns(model, p, link)
    if c is None:
        return None
    li = c.link
    if X_WL is None:
        X_WL = np.empty(p.pose_shape)
        (entries.forward_one or kernel_entry('forward_one'))(
            q, p.fk_joints, p.fk_coefficients, X_WL)
    elif not (type(X_WL) is np.ndarray and X_WL.dtype is FLOAT64
              and X_WL.shape == p.pose_shape and X_WL.flags.carray):
        return None
    J = np.zeros(p.jacobian_shape)
    status = (entries.point_jacobian_one or kernel_entry('point_jacobian_one'))(
        q, p.fk_joints, X_WL, li, 0.0, 0.0, 0.0, c.columns, c.frames, J)
    if status:
        raise configuration_error(p, q, status, 'jacobian')
    return J


def _single_jacobian(model: RobotModel, p: KinematicsPlan, q: FloatArray, link: int,
                     point: FloatArray | None, X_WL: FloatArray | None) -> FloatArray:
    """:func:`jacobian` of one configuration and one point (checked): ``(6, nv)``.

    The single-configuration kernels (:func:`~robot_state_core.kinematics.forward.run_forward_one`,
    :func:`~robot_state_core.kinematics.compiled.point_jacobian_one`): no batch axes to add
    and remove around the kernels.
    """
    if X_WL is None:
        X_WL = run_forward_one(p, q, 'jacobian')
    elif X_WL.shape != (p.link_count, 4, 4):
        raise InvalidArgumentError(f'jacobian: X_WL must have shape (..., {p.link_count}, 4, '
                                   f'4), got {X_WL.shape}')
    else:
        flags = X_WL.flags
        if not (flags.c_contiguous and flags.writeable and X_WL.dtype == np.float64):
            X_WL = np.array(X_WL, dtype=np.float64, order='C')
    c = link_columns(model, p, link)
    J = np.zeros((6, model.nv))
    if c.columns.shape[0]:
        x0, x1, x2 = _LINK_ORIGIN if point is None else point.tolist()
        (entries.point_jacobian_one or kernel_entry('point_jacobian_one'))(
            q if q.flags.carray else np.array(q), p.fk_joints, X_WL, link, float(x0),
            float(x1), float(x2), c.columns, c.frames, J)
    return J


def link_jacobians(X_WL: FloatArray, link: int, columns: LinkColumns, out: FloatArray) -> None:
    """The Jacobian kernel on trusted kernel rows (IK's iteration): the origin of ``link``.

    Args:
        X_WL: ``(R, L, 4, 4)`` C-contiguous link poses (the FK kernel's output).
        link: Link index.
        columns: ``link_columns(model, plan, link)``.
        out: ``(R, 6, nv)`` C-contiguous zeros; the link's columns are written.
    """
    compiled_kernels().point_jacobian(X_WL, link, _ORIGIN_ROW, columns.columns, columns.frames,
                                      out)


def point_jacobian_columns(axis_W: FloatArray, lever_W: FloatArray, *, angular: bool = True,
                           prismatic: IntArray | None = None,
                           column_axis: int = -2) -> FloatArray:
    """Jacobian columns: velocity of a point per unit rate of each joint axis.

    Revolute columns are ``[axis × lever; axis]``, prismatic ones ``[axis; 0]``, rows
    ``[linear; angular]`` (MoveIt's layout), all in the frame the inputs are expressed in.
    A thin wrapper of the compiled column kernel
    (:func:`~robot_state_core.kinematics.compiled.jacobian_column`) that :func:`jacobian`
    and IK's iteration Jacobian run.

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
    axis = np.asarray(axis_W, dtype=np.float64)
    lever = np.asarray(lever_W, dtype=np.float64)
    shape = lever.shape[:-1]
    mask = np.zeros(shape, dtype=np.bool_)
    if prismatic is not None and prismatic.size:
        np.moveaxis(mask, column_axis + 1, 0)[prismatic] = True
    axis_rows = np.array(np.broadcast_to(axis, (*shape, 3))).reshape(-1, 3)
    out = np.empty((6 if angular else 3, axis_rows.shape[0]))
    compiled_kernels().jacobian_columns(axis_rows, kernel_rows(lever), mask.reshape(-1), out)
    return out.T.reshape(*shape, out.shape[0])


def link_columns(model: RobotModel, p: KinematicsPlan, link: int) -> LinkColumns:
    """The Jacobian kernel's tables of ``link`` (cached in the plan, bounded)."""
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
        in_f = p.v_in_joint_frame[cols]
        frames = np.zeros((cols.size, 4, 3))
        frames[:, 0] = p.v_axis[cols]
        frames[:, 1:] = np.eye(3)
        frames[in_f, 1:] = np.asarray(model.joint_origins)[joints[in_f], :3, :3]
        columns = np.stack([cols, p.child[joints], np.where(in_f, p.parent[joints], -1),
                            ~p.v_rotational[cols]], axis=1).astype(np.intp)
        cached = LinkColumns(np.ascontiguousarray(columns), frames, link)
        if len(cache) >= LINK_COLUMNS_CACHE_SIZE:  # O(depth) each: bounded, so a sweep
            cache.clear()  # over every link of a long chain cannot grow O(L²) memory
        cache[link] = cached
    return cached


def named_link_columns(model: RobotModel, p: KinematicsPlan, link: str) -> LinkColumns | None:
    """:func:`link_columns` of a link name (cached by name in the plan); ``None`` if unknown.

    The fast paths' lookup: ``p.named_link_columns.get(name) or named_link_columns(...)``.
    """
    try:
        index = model.link_index(link)
    except RobotStateCoreError:
        return None
    cached = link_columns(model, p, index)
    cache = p.named_link_columns
    if len(cache) >= LINK_COLUMNS_CACHE_SIZE:  # bounded, as link_columns' cache
        cache.clear()
    cache[link] = cached
    return cached


def fold_mimic_columns(model: RobotModel, J: FloatArray) -> FloatArray:
    """Add each mimic joint's column, times its multiplier, to its source column (a copy).

    The mimic columns themselves are zeroed: the result maps the *independent* velocities.
    Mimic chains are already composed by the model (a source is never a mimic joint), so
    one compiled pass does it (:func:`~robot_state_core.kinematics.compiled.fold_mimic`).
    """
    p = model.derived(build_plan)
    if type(J) is np.ndarray and J.dtype is FLOAT64 and J.shape == p.jacobian_shape:
        out = J.copy()  # the single Jacobian's fast path (C order)
        if p.mimic_v.size:
            (entries.fold_mimic or kernel_entry('fold_mimic'))(out, p.mimic_table)
        return out
    if type(J) is np.ndarray and J.dtype == np.float64:
        shape = J.shape
        out = J.copy()  # C order
    else:
        shape = np.shape(J)
        out = np.array(J, dtype=np.float64, order='C', copy=True)
    if shape[-1:] != (model.nv,):
        raise InvalidArgumentError(f'fold_mimic_columns: J must have shape (..., {model.nv}), '
                                   f'got {shape}')
    if p.mimic_v.size:  # the compiled in-place fold, O(rows × mimic joints)
        (entries.fold_mimic or kernel_entry('fold_mimic'))(
            out if out.ndim == 2 else out.reshape(-1, model.nv), p.mimic_table)
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


