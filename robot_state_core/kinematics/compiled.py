"""The compiled kinematics kernels (numba): one FK composition, one Jacobian column, mimic fold.

Compiled with the package's one decorator (:mod:`robot_state_core.jit.decorators`: user cache
directory, nogil). Imported on first use by
:func:`robot_state_core.kinematics.plan.compiled_kernels` (not by ``import robot_state_core``:
numba costs 0.4-0.7 s to import, and a node's first ``/tf_static`` needs no FK); every kernel
compiles lazily on its first call, then loads from the on-disk cache.

One source of the joint math: the kernels contain none of their own; each joint type's
module (:mod:`robot_state_core.description.joint_types`) owns it.
* 1-DOF joints (revolute, continuous, prismatic): the local transform is the motion
  polynomial ``X_PC = B0 + sin θ B1 + (1 - cos θ) B2 + θ B3`` whose coefficients the plan builds
  once from the type's ``motion_coefficients`` (premultiplied by the joint origin ``X_PJ``);
  the kernel only evaluates it, skipping the terms that vanish for the joint's kind (no
  ``θ B3`` for rotations, no sin/cos for prismatic joints).
* Multi-DOF joints (planar, floating, rpy_floating): their motions ``X_FM(q)`` come from the
  type's ``motion_rows`` (plain Python on floats, compiled here; a floating joint's quaternion
  normalised there, and tested by its ``usable_quaternion``) and the kernel composes
  ``X_PJ @ X_FM`` with :func:`product_row`, the same product that composes link poses
  (:func:`compose_into`).

Every kernel writes into caller-provided arrays: ``(N, ...)`` batches of configurations. The
single configuration has its own entry points (:func:`forward_one`, :func:`point_jacobian_one`,
and :func:`forward_jacobian_one` for both plus the mimic fold: no batch axes, fewer arrays to
pass) that run the batch kernels' per-configuration code (:func:`local_rows`,
:func:`compose_into`, :func:`jacobian_into` on one configuration's arrays; the batch kernels
pass views ``X_WL[n]``), so both give bitwise the same results. The per-joint functions are
inlined into the kernels' loops (``_inline``: a call per joint returning 12 values through
memory cost half the batched FK). Inputs must be C-contiguous float64/intp arrays of fixed
kinds (see :mod:`.forward`), so each kernel compiles one signature only (and
:class:`~robot_state_core.kinematics.plan.KernelEntries` can call it without numba's per-call
typing).
"""

from __future__ import annotations

import math
from typing import Any

from robot_state_core.description.joint_types import floating, mimic, planar, rpy_floating
from robot_state_core.jit.decorators import depend_on_sources
from robot_state_core.jit.decorators import inline as _inline
from robot_state_core.jit.decorators import jit as _jit
from robot_state_core.spatial import compiled as spatial_compiled
from robot_state_core.spatial import transforms
from robot_state_core.spatial.compiled import compose_into, product_row, set_root

# The joint types' own scalar math (one source each), compiled into the kernels below.
_planar_rows = _inline(planar.motion_rows)
_floating_rows = _inline(floating.motion_rows)
_rpy_rows = _inline(rpy_floating.motion_rows)
_usable_quaternion = _inline(floating.usable_quaternion)

# ---------------------------------------------------------------------------- FK


@_inline
def local_rows(q: Any, joints: Any, coefficients: Any, j: int) -> Any:  # pragma: no cover
    """The top three rows of joint ``j``'s local transform ``X_PC(q)``: three 4-tuples.

    ``joints[j]``: kind (each joint type module's ``KERNEL_KIND``: 0 fixed, 1 revolute/
    continuous, 3 prismatic, 4 planar, 5 floating, 6 rpy_floating), index of its first
    variable in ``q``, parent link, child link. ``coefficients`` ``(J, 4, 3, 4)``: the top rows
    of the motion polynomial ``X_PC = B0 + sin θ B1 + (1 - cos θ) B2 + θ B3`` (``B0 = X_PJ``;
    the kinds say which terms vanish: ``B3 = 0`` and the translation columns of ``B1, B2``
    for rotations (about an axis through the joint origin), ``B1 = B2 = 0`` and only
    ``B3``'s translation column nonzero for prismatic joints); multi-DOF joints give
    ``X_PJ @ X_FM(q)`` with ``X_FM``'s rows from their module's ``motion_rows``.
    """
    B = coefficients
    kind = joints[j, 0]
    if kind == 1:  # revolute, continuous: B3 = 0, and B1, B2 rotate only (zero translations)
        t = q[joints[j, 1]]
        s = math.sin(t)
        c1 = 1.0 - math.cos(t)
        return ((B[j, 0, 0, 0] + s * B[j, 1, 0, 0] + c1 * B[j, 2, 0, 0],
                 B[j, 0, 0, 1] + s * B[j, 1, 0, 1] + c1 * B[j, 2, 0, 1],
                 B[j, 0, 0, 2] + s * B[j, 1, 0, 2] + c1 * B[j, 2, 0, 2],
                 B[j, 0, 0, 3]),
                (B[j, 0, 1, 0] + s * B[j, 1, 1, 0] + c1 * B[j, 2, 1, 0],
                 B[j, 0, 1, 1] + s * B[j, 1, 1, 1] + c1 * B[j, 2, 1, 1],
                 B[j, 0, 1, 2] + s * B[j, 1, 1, 2] + c1 * B[j, 2, 1, 2],
                 B[j, 0, 1, 3]),
                (B[j, 0, 2, 0] + s * B[j, 1, 2, 0] + c1 * B[j, 2, 2, 0],
                 B[j, 0, 2, 1] + s * B[j, 1, 2, 1] + c1 * B[j, 2, 2, 1],
                 B[j, 0, 2, 2] + s * B[j, 1, 2, 2] + c1 * B[j, 2, 2, 2],
                 B[j, 0, 2, 3]))
    if kind == 3:  # prismatic: B1 = B2 = 0, only the translation moves (no sin/cos)
        t = q[joints[j, 1]]
        return ((B[j, 0, 0, 0], B[j, 0, 0, 1], B[j, 0, 0, 2],
                 B[j, 0, 0, 3] + t * B[j, 3, 0, 3]),
                (B[j, 0, 1, 0], B[j, 0, 1, 1], B[j, 0, 1, 2],
                 B[j, 0, 1, 3] + t * B[j, 3, 1, 3]),
                (B[j, 0, 2, 0], B[j, 0, 2, 1], B[j, 0, 2, 2],
                 B[j, 0, 2, 3] + t * B[j, 3, 2, 3]))
    if kind == 0:
        return ((B[j, 0, 0, 0], B[j, 0, 0, 1], B[j, 0, 0, 2], B[j, 0, 0, 3]),
                (B[j, 0, 1, 0], B[j, 0, 1, 1], B[j, 0, 1, 2], B[j, 0, 1, 3]),
                (B[j, 0, 2, 0], B[j, 0, 2, 1], B[j, 0, 2, 2], B[j, 0, 2, 3]))
    if kind == 4:
        M0, M1, M2 = _planar_rows(q, joints[j, 1])
    elif kind == 5:
        M0, M1, M2 = _floating_rows(q, joints[j, 1])
    else:
        M0, M1, M2 = _rpy_rows(q, joints[j, 1])
    return (product_row(B[j, 0, 0, 0], B[j, 0, 0, 1], B[j, 0, 0, 2], B[j, 0, 0, 3],
                        M0, M1, M2),
            product_row(B[j, 0, 1, 0], B[j, 0, 1, 1], B[j, 0, 1, 2], B[j, 0, 1, 3],
                        M0, M1, M2),
            product_row(B[j, 0, 2, 0], B[j, 0, 2, 1], B[j, 0, 2, 2], B[j, 0, 2, 3],
                        M0, M1, M2))


@_jit
def store(X: Any, n: int, j: int, L0: Any, L1: Any, L2: Any) -> None:  # pragma: no cover
    """``X[n, j] = [L0; L1; L2; 0 0 0 1]``."""
    for c in range(4):
        X[n, j, 0, c] = L0[c]
        X[n, j, 1, c] = L1[c]
        X[n, j, 2, c] = L2[c]
        X[n, j, 3, c] = 1.0 if c == 3 else 0.0


@_jit
def forward(Q: Any, joints: Any, coefficients: Any, X_PC: Any,
            X_WL: Any) -> None:  # pragma: no cover - compiled
    """The FK kernel: link poses ``X_WL`` ``(N, L, 4, 4)`` of configurations ``Q`` ``(N, nq)``.

    Joints in topological order: ``X_WL[child] = X_WL[parent] @ X_PC`` (:func:`local_rows`,
    :func:`compose_into`); the root is the identity. ``X_PC`` ``(N, J, 4, 4)`` also receives
    the local transforms; pass an empty ``(0, ...)`` array when they are not wanted. The
    caller has checked ``Q`` (finite, usable quaternions).
    """
    keep = X_PC.shape[0] > 0
    for n in range(Q.shape[0]):
        q = Q[n]
        X = X_WL[n]
        set_root(X)
        for j in range(joints.shape[0]):
            L0, L1, L2 = local_rows(q, joints, coefficients, j)
            if keep:
                store(X_PC, n, j, L0, L1, L2)
            compose_into(X, joints[j, 2], joints[j, 3], L0, L1, L2)


FINE = 0
''':func:`configuration_status`: the configuration is usable.'''
NOT_FINITE = 1
''':func:`configuration_status`: a value is NaN or inf.'''
BAD_QUATERNION = 2
''':func:`configuration_status`: a floating joint's quaternion defines no rotation.'''


@_jit
def configuration_status(q: Any, joints: Any) -> int:  # pragma: no cover - compiled
    """:data:`FINE`, :data:`NOT_FINITE` or :data:`BAD_QUATERNION` for ``q`` ``(nq,)``.

    The single-configuration kernels' one test of their input (the sum of the values is
    finite: NaN and inf propagate; each floating joint's ``usable_quaternion``).
    """
    total = 0.0
    for i in range(q.shape[0]):
        total += q[i]
    if not math.isfinite(total):
        return NOT_FINITE
    for j in range(joints.shape[0]):
        if joints[j, 0] == 5 and not _usable_quaternion(q, joints[j, 1]):
            return BAD_QUATERNION
    return FINE


@_jit
def forward_one(q: Any, joints: Any, coefficients: Any,
                X_WL: Any) -> int:  # pragma: no cover - compiled
    """The FK kernel for one configuration: link poses ``X_WL`` ``(L, 4, 4)`` of ``q`` ``(nq,)``.

    :func:`forward`'s loop for ``N = 1`` (the same :func:`local_rows` and
    :func:`compose_into`, so the poses are bitwise the batch's) with two arrays fewer to
    type at the call (no batch axes, no local-transform output): the single-configuration
    call's overhead.

    Returns:
        :func:`configuration_status` of ``q``, the caller's one test; ``X_WL`` is
        meaningless unless :data:`FINE`.
    """
    set_root(X_WL)
    for j in range(joints.shape[0]):
        L0, L1, L2 = local_rows(q, joints, coefficients, j)
        compose_into(X_WL, joints[j, 2], joints[j, 3], L0, L1, L2)
    return configuration_status(q, joints)


@_jit
def local_transforms(Q: Any, joints: Any, coefficients: Any,
                     X_PC: Any) -> None:  # pragma: no cover - compiled
    """Local joint transforms ``X_PC`` ``(N, J, 4, 4)`` of ``Q`` ``(N, nq)`` (no composition)."""
    for n in range(Q.shape[0]):
        q = Q[n]
        for j in range(joints.shape[0]):
            L0, L1, L2 = local_rows(q, joints, coefficients, j)
            store(X_PC, n, j, L0, L1, L2)


_quat_xyzw = _inline(transforms.quat_xyzw_from_rotation_floats)


@_jit
def local_frames(q: Any, joints: Any, coefficients: Any, selected: Any, translations: Any,
                 quats_xyzw: Any) -> None:  # pragma: no cover - compiled
    """/tf's translations ``(K, 3)`` and quaternions ``(K, 4)`` of some joints, one config.

    The local transforms of the ``selected`` ``(K,)`` joints for ``q`` ``(nq,)``:
    :func:`local_rows` (as :func:`local_transforms`), then the spatial library's rotation to
    quaternion conversion (``transforms.quat_xyzw_from_rotation_floats``, compiled here; xyzw,
    w >= 0), so bitwise equal to those two steps in numpy.
    """
    for k in range(selected.shape[0]):
        L0, L1, L2 = local_rows(q, joints, coefficients, selected[k])
        translations[k, 0] = L0[3]
        translations[k, 1] = L1[3]
        translations[k, 2] = L2[3]
        x, y, z, w = _quat_xyzw(L0[0], L0[1], L0[2], L1[0], L1[1], L1[2], L2[0], L2[1], L2[2])
        quats_xyzw[k, 0] = x
        quats_xyzw[k, 1] = y
        quats_xyzw[k, 2] = z
        quats_xyzw[k, 3] = w


# ---------------------------------------------------------------------------- Jacobian


@_inline
def column_rows(a0: float, a1: float, a2: float, l0: float, l1: float, l2: float,
                prismatic: bool) -> Any:  # pragma: no cover - compiled
    """One point-Jacobian column as a 6-tuple ``[linear; angular]``: the one column formula.

    Revolute: ``[a × l; a]``; prismatic: ``[a; 0]`` (axis ``a``, lever ``l`` from a point on
    the axis to the point).
    """
    if prismatic:
        return (a0, a1, a2, 0.0, 0.0, 0.0)
    return (a1 * l2 - a2 * l1, a2 * l0 - a0 * l2, a0 * l1 - a1 * l0, a0, a1, a2)


@_jit
def jacobian_column(a0: float, a1: float, a2: float, l0: float, l1: float, l2: float,
                    prismatic: bool, out: Any, column: int) -> None:  # pragma: no cover
    """One point-Jacobian column (:func:`column_rows`) into ``out[:, column]``.

    Rows linear, then angular if ``out`` has 6 rows.
    """
    c = column_rows(a0, a1, a2, l0, l1, l2, prismatic)
    out[0, column] = c[0]
    out[1, column] = c[1]
    out[2, column] = c[2]
    if out.shape[0] == 6:
        out[3, column] = c[3]
        out[4, column] = c[4]
        out[5, column] = c[5]


@_jit
def jacobian_columns(axis: Any, lever: Any, prismatic: Any, out: Any) -> None:  # pragma: no cover
    """Columns of ``M`` axes ``(M, 3)`` and levers ``(M, 3)`` into ``out`` ``(width, M)``."""
    for m in range(axis.shape[0]):
        jacobian_column(axis[m, 0], axis[m, 1], axis[m, 2], lever[m, 0], lever[m, 1],
                        lever[m, 2], prismatic[m], out, m)


@_inline
def jacobian_into(X_WL: Any, link: int, x0: float, x1: float, x2: float, columns: Any,
                  frames: Any, out: Any) -> None:  # pragma: no cover - compiled
    """The columns of :func:`point_jacobian` for one configuration into ``out``.

    ``X_WL`` ``(L, 4, 4)``, ``out`` ``(width, nv)`` (the batch kernel passes ``X_WL[n]``,
    ``out[n]``: views, no reshape). Row style (scalar reads of the poses and tables, no
    per-column array views), every column from :func:`column_rows`; the point ``(x0, x1,
    x2)`` in the link frame.
    """
    p0 = (X_WL[link, 0, 3] + X_WL[link, 0, 0] * x0 + X_WL[link, 0, 1] * x1
          + X_WL[link, 0, 2] * x2)
    p1 = (X_WL[link, 1, 3] + X_WL[link, 1, 0] * x0 + X_WL[link, 1, 1] * x1
          + X_WL[link, 1, 2] * x2)
    p2 = (X_WL[link, 2, 3] + X_WL[link, 2, 0] * x0 + X_WL[link, 2, 1] * x1
          + X_WL[link, 2, 2] * x2)
    angular = out.shape[0] == 6
    for i in range(columns.shape[0]):
        c = columns[i, 1]
        f = columns[i, 2]
        x, y, z = frames[i, 0, 0], frames[i, 0, 1], frames[i, 0, 2]
        if f >= 0:  # axis in the joint frame F: R_WF = R_WP @ R_PJ
            x, y, z = (frames[i, 1, 0] * x + frames[i, 1, 1] * y + frames[i, 1, 2] * z,
                       frames[i, 2, 0] * x + frames[i, 2, 1] * y + frames[i, 2, 2] * z,
                       frames[i, 3, 0] * x + frames[i, 3, 1] * y + frames[i, 3, 2] * z)
        else:
            f = c
        col = column_rows(
            X_WL[f, 0, 0] * x + X_WL[f, 0, 1] * y + X_WL[f, 0, 2] * z,
            X_WL[f, 1, 0] * x + X_WL[f, 1, 1] * y + X_WL[f, 1, 2] * z,
            X_WL[f, 2, 0] * x + X_WL[f, 2, 1] * y + X_WL[f, 2, 2] * z,
            p0 - X_WL[c, 0, 3], p1 - X_WL[c, 1, 3], p2 - X_WL[c, 2, 3],
            columns[i, 3] != 0)
        v = columns[i, 0]
        out[0, v] = col[0]
        out[1, v] = col[1]
        out[2, v] = col[2]
        if angular:
            out[3, v] = col[3]
            out[4, v] = col[4]
            out[5, v] = col[5]


@_jit
def point_jacobian(X_WL: Any, link: int, point_L: Any, columns: Any, frames: Any,
                   out: Any) -> None:  # pragma: no cover - compiled
    """The Jacobian kernel: point Jacobians ``out`` ``(N, width, nv)`` of a point on ``link``.

    Args:
        X_WL: ``(N, L, 4, 4)`` link poses.
        link: The link the point is fixed on.
        point_L: ``(N or 1, 3)`` the point in the link frame.
        columns: ``(k, 4)`` per velocity variable moving the link: its index, the child link
            of its joint (the centre of rotation), the parent link when the column is
            expressed in the joint frame F (``R_WF = R_WP R_PJ``; else -1), 1 if prismatic.
        frames: ``(k, 4, 3)``: the axis in the column's frame, then ``R_PJ`` (rows).
        out: ``(N, width, nv)``, zero in the columns not listed (written here otherwise).
    """
    last_point = point_L.shape[0] - 1
    for n in range(X_WL.shape[0]):
        m = min(n, last_point)
        jacobian_into(X_WL[n], link, point_L[m, 0], point_L[m, 1], point_L[m, 2], columns,
                      frames, out[n])


@_jit
def point_jacobian_one(q: Any, joints: Any, X_WL: Any, link: int, x0: float, x1: float,
                       x2: float, columns: Any, frames: Any,
                       out: Any) -> int:  # pragma: no cover - compiled
    """:func:`point_jacobian` of one configuration (the same :func:`jacobian_into`).

    No batch axes and the point as three scalars: the fewest arrays to type at the call.

    Args:
        q: ``(nq,)`` the configuration of ``X_WL``: only tested here
            (:func:`configuration_status`, the caller's one test when it passes precomputed
            poses).
        joints: The FK plan's joint table (:func:`forward_one`'s).
        X_WL: ``(L, 4, 4)`` link poses.
        link: The link the point is fixed on.
        x0: The point's x in the link frame [m].
        x1: Its y [m].
        x2: Its z [m].
        columns: ``(k, 4)`` as :func:`point_jacobian`'s.
        frames: ``(k, 4, 3)`` as :func:`point_jacobian`'s.
        out: ``(6, nv)``, zero in the columns not listed (written here otherwise).

    Returns:
        :func:`configuration_status` of ``q`` (as :func:`forward_one`'s).
    """
    jacobian_into(X_WL, link, x0, x1, x2, columns, frames, out)
    return configuration_status(q, joints)


# ---------------------------------------------------------------------------- mimic fold


fold_mimic = _jit(mimic.fold_columns)
'''The mimic fold of Jacobian rows (``joint_types.mimic.fold_columns``, compiled).'''


# ---------------------------------------------------------------------------- FK + Jacobian


@_jit
def forward_jacobian_one(q: Any, joints: Any, coefficients: Any, X_WL: Any, link: int,
                         columns: Any, frames: Any, mimic: Any,
                         J: Any) -> int:  # pragma: no cover - compiled
    """FK, the Jacobian of a link's origin and the mimic fold of one configuration, one call.

    :func:`forward_one`, then :func:`jacobian_into` at the origin of ``link`` (as
    :func:`point_jacobian_one`), then :func:`fold_mimic`: the same code as those three calls,
    so the same bits, without two crossings into numba.

    Args:
        q: ``(nq,)`` joint positions.
        joints: The FK plan's joint table (:func:`forward_one`'s).
        coefficients: The FK plan's motion polynomials (:func:`forward_one`'s).
        X_WL: ``(L, 4, 4)`` receives the link poses.
        link: The link whose origin's Jacobian is wanted.
        columns: ``(k, 4)`` the link's columns (:func:`point_jacobian`'s).
        frames: ``(k, 4, 3)`` the link's column frames (:func:`point_jacobian`'s).
        mimic: ``(m, 3)`` the fold table (:func:`fold_mimic`'s); ``(0, 3)`` not to fold.
        J: ``(6, nv)`` zeros; receives the Jacobian.

    Returns:
        :func:`configuration_status` of ``q`` (:func:`forward_one`'s test); the outputs are
        meaningless unless :data:`FINE`.
    """
    status = forward_one(q, joints, coefficients, X_WL)
    jacobian_into(X_WL, link, 0.0, 0.0, 0.0, columns, frames, J)
    fold_mimic(J, mimic)
    return status


SOURCES = (transforms, spatial_compiled, planar, floating, rpy_floating, mimic)
'''Modules whose functions the kernels here compile into themselves (their cache key).'''
depend_on_sources(
    lambda: (forward, forward_one, local_transforms, local_frames, point_jacobian,
             point_jacobian_one, forward_jacobian_one, fold_mimic, configuration_status),
    SOURCES)
