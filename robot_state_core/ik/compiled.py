"""The compiled IK iteration (numba): errors, damped least-squares step, bounds, wrapping.

Imported on first use by :func:`robot_state_core.ik.search.ik_kernels` (like
:func:`robot_state_core.kinematics.plan.compiled_kernels`: ``import robot_state_core`` stays
numba-free), and compiled with the package's one decorator
(:func:`robot_state_core.jit.decorators.jit`: user cache directory, nogil).

:func:`iterate` is one IK iteration for every row of a search (every joint type): it
completes each row's configuration (mimic followers applied), runs the package's FK kernel
(:func:`~robot_state_core.kinematics.compiled.forward`) and Jacobian kernel
(:func:`~robot_state_core.kinematics.compiled.point_jacobian`) and then, per row, the
model-frame tip errors ``[p_T - p_tip; log(R_T R_tipᵀ)]``, the Levenberg-Marquardt step
``dv = Jᵀ (J Jᵀ + λ I)⁻¹ e`` (or its ``n x n`` normal form, a Cholesky solve), the step
clipping, bounds clipping and angle wrapping. It replaces about forty numpy calls of ~1 µs
each per iteration with one call; the numpy iteration (:mod:`robot_state_core.ik.reference`)
stays the reference the tests compare it with.
:func:`search` runs up to a budget of such iterations for one problem together with the
solver's bookkeeping (best row, stall, restarts from the ranked pool), returning to Python
only to read the clock, for candidates (the validity callback) and for fresh samples.

Every argument is a C-contiguous float64 / intp array or a Python scalar of fixed kind, so
each kernel compiles one signature; :func:`warm_up` compiles (or loads) them on empty inputs.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from robot_state_core.description.joint_types import floating, rpy_floating
from robot_state_core.jit.decorators import depend_on_sources, inline, jit
from robot_state_core.kinematics import compiled as fk_kernels
from robot_state_core.kinematics.compiled import forward, point_jacobian
from robot_state_core.spatial import transforms

# The scalar rotation log and angle wrap are the spatial library's own (one source), compiled
# here for the kernels below.
rotation_log_and_angle = jit(transforms.rotation_log_into)
wrap_angle = jit(transforms.wrap_angle_scalar)
# The floating joints' orientation steps, their joint type modules' (one source), compiled here.
step_quaternion = inline(floating.step_quaternion)
quaternion_of_angles = inline(rpy_floating.quaternion_of_angles)
angles_of_quaternion = inline(rpy_floating.angles_of_quaternion)
FLOATING = floating.KERNEL_KIND


@jit
def cholesky_solve(A: Any, b: Any, n: int) -> None:  # pragma: no cover - compiled
    """Solve ``A x = b`` in place (``x`` into ``b``) for the SPD leading ``n x n`` block of A.

    ``A`` is overwritten by its Cholesky factor. The damped normal matrices of the IK step
    (``J Jᵀ + λ I``, ``λ > 0``) are symmetric positive definite.
    """
    for j in range(n):
        d = A[j, j]
        for k in range(j):
            d -= A[j, k] * A[j, k]
        d = math.sqrt(d)
        A[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / d
    for i in range(n):  # L y = b
        s = b[i]
        for k in range(i):
            s -= A[i, k] * b[k]
        b[i] = s / A[i, i]
    for i in range(n - 1, -1, -1):  # Lᵀ x = y
        s = b[i]
        for k in range(i + 1, n):
            s -= A[k, i] * b[k]
        b[i] = s / A[i, i]


@jit
def iterate(Z: Any, base: Any, q_active: Any, mimic: Any, mimic_coefficients: Any,
            fk_joints: Any, fk_coefficients: Any, X_PC: Any, Q: Any, X_WL: Any,
            tips: Any, tip_offsets: Any, tip_columns: Any, tip_frames: Any, origin: Any,
            J_all: Any, targets: Any, col_v: Any, fold: Any, width: int, damping: float,
            lambda_min: float, max_step: float, z_lower: Any, z_upper: Any, wrap_z: Any,
            steps: Any, multi_steps: Any, E: Any, J: Any, A: Any, b: Any, dv: Any, perr: Any,
            rerr: Any, norm: Any, Z_next: Any) -> None:  # pragma: no cover - compiled
    """One IK iteration of the rows ``Z`` ``(R, na)`` (active variables).

    Args:
        Z: ``(R, na)`` current active variables.
        base: ``(R or 1, nq)`` the rows' other variables.
        q_active: ``(na,)`` q indices of ``Z``'s columns.
        mimic: ``(M, 2)`` mimic variable and source q indices (model order).
        mimic_coefficients: ``(M, 2)`` multiplier and offset.
        fk_joints: The plan's FK joint table.
        fk_coefficients: The plan's FK motion coefficients.
        X_PC: ``(0, 0, 4, 4)`` (local transforms not kept).
        Q: ``(R, nq)`` scratch: the full configurations.
        X_WL: ``(R, L, 4, 4)`` scratch: link poses.
        tips: ``(T,)`` tip links.
        tip_offsets: ``(T + 1,)`` the tips' slices of the two tables below.
        tip_columns: ``(C, 4)`` the Jacobian kernel's column table of each tip, stacked.
        tip_frames: ``(C, 4, 3)`` the Jacobian kernel's frame table of each tip, stacked.
        origin: ``(1, 3)`` zeros (the tip origin).
        J_all: ``(T, R, 6, nv)`` Jacobian scratch, zero outside the tips' columns.
        targets: ``(T, R or 1, 4, 4)`` target poses ``X_WT`` in the model frame.
        col_v: ``(nc,)`` velocity variables of the moving joints.
        fold: ``(nc, n)`` maps them onto the free variables (mimic multipliers).
        width: 3 (position only) or 6 error rows per tip.
        damping: ``λ = damping · |e|² + lambda_min``.
        lambda_min: See ``damping``.
        max_step: Largest ``|dv_i|`` [rad or m].
        z_lower: ``(na,)`` lower clip bounds (-inf when unbounded).
        z_upper: ``(na,)`` upper clip bounds (inf when unbounded).
        wrap_z: ``(W,)`` z indices of continuous angles, wrapped to ``[-π, π)``.
        steps: ``(A, 2)`` per additive variable (1-DOF and planar joints) its z index and
            its column: ``z += dv[column]``.
        multi_steps: ``(F, 3)`` per floating and rpy_floating joint its type's
            ``KERNEL_KIND``, the z index of its first variable and the column of its first
            velocity: the translation adds ``v_FM``, the orientation turns by ``exp(w_FM)``
            (the floating joint's ``step_quaternion``; rpy angles go through quaternions).
        E: ``(R, T * width)`` out: errors ``[p_T - p_tip; log(R_T R_tipᵀ)]`` per tip [m, rad].
        J: ``(T * width, n)`` scratch: the stacked Jacobian of one row.
        A: ``(max(m, n), max(m, n))`` scratch: the damped normal matrix.
        b: ``(max(m, n),)`` scratch: its right-hand side.
        dv: ``(n,)`` scratch: one row's step.
        perr: ``(R,)`` out: worst tip position error [m].
        rerr: ``(R,)`` out: worst tip rotation error [rad].
        norm: ``(R,)`` out: ``|e|²``.
        Z_next: ``(R, na)`` out: the rows after the step.
    """
    R = Z.shape[0]
    na = Z.shape[1]
    n = fold.shape[1]
    m = E.shape[1]
    last_base = base.shape[0] - 1
    last_target = targets.shape[1] - 1
    for r in range(R):
        q = Q[r]
        q[:] = base[min(r, last_base)]
        for i in range(na):
            q[q_active[i]] = Z[r, i]
        for i in range(mimic.shape[0]):
            q[mimic[i, 0]] = mimic_coefficients[i, 0] * q[mimic[i, 1]] + mimic_coefficients[i, 1]
    forward(Q, fk_joints, fk_coefficients, X_PC, X_WL)
    for t in range(tips.shape[0]):
        lo = tip_offsets[t]
        hi = tip_offsets[t + 1]
        point_jacobian(X_WL, tips[t], origin, tip_columns[lo:hi], tip_frames[lo:hi], J_all[t])
    M = np.empty((3, 3))
    for r in range(R):
        # Errors.
        worst_p = 0.0
        worst_r = 0.0
        for t in range(tips.shape[0]):
            X = X_WL[r, tips[t]]
            T = targets[t, min(r, last_target)]
            o = t * width
            d0 = T[0, 3] - X[0, 3]
            d1 = T[1, 3] - X[1, 3]
            d2 = T[2, 3] - X[2, 3]
            E[r, o] = d0
            E[r, o + 1] = d1
            E[r, o + 2] = d2
            worst_p = max(worst_p, d0 * d0 + d1 * d1 + d2 * d2)
            if width == 6:
                for i in range(3):  # M = R_T R_tipᵀ
                    for j in range(3):
                        M[i, j] = T[i, 0] * X[j, 0] + T[i, 1] * X[j, 1] + T[i, 2] * X[j, 2]
                worst_r = max(worst_r, rotation_log_and_angle(M, E[r], o + 3))
        perr[r] = math.sqrt(worst_p)
        rerr[r] = worst_r
        e = E[r]
        s = 0.0
        for i in range(m):
            s += e[i] * e[i]
        norm[r] = s
        lam = damping * s + lambda_min
        # Stacked Jacobian of the free variables: J_all columns col_v, folded.
        for t in range(tips.shape[0]):
            Jt = J_all[t, r]
            for i in range(width):
                row = t * width + i
                for c in range(n):
                    J[row, c] = 0.0
                for kc in range(col_v.shape[0]):
                    x = Jt[i, col_v[kc]]
                    if x != 0.0:
                        for c in range(n):
                            J[row, c] += x * fold[kc, c]
        # Damped least squares.
        if m <= n:  # dv = Jᵀ (J Jᵀ + λ I)⁻¹ e
            for i in range(m):
                for j in range(i + 1):
                    x = 0.0
                    for c in range(n):
                        x += J[i, c] * J[j, c]
                    A[i, j] = x
                    A[j, i] = x
                A[i, i] += lam
                b[i] = e[i]
            cholesky_solve(A, b, m)
            for c in range(n):
                x = 0.0
                for i in range(m):
                    x += J[i, c] * b[i]
                dv[c] = min(max(x, -max_step), max_step)
        else:  # dv = (Jᵀ J + λ I)⁻¹ Jᵀ e
            for c in range(n):
                for d in range(c + 1):
                    x = 0.0
                    for i in range(m):
                        x += J[i, c] * J[i, d]
                    A[c, d] = x
                    A[d, c] = x
                A[c, c] += lam
                x = 0.0
                for i in range(m):
                    x += J[i, c] * e[i]
                b[c] = x
            cholesky_solve(A, b, n)
            for c in range(n):
                dv[c] = min(max(b[c], -max_step), max_step)
        # Integration (additive variables; floating joints on SE(3)), bounds, wrapping.
        for i in range(steps.shape[0]):
            c = steps[i, 0]
            Z_next[r, c] = min(max(Z[r, c] + dv[steps[i, 1]], z_lower[c]), z_upper[c])
        for i in range(multi_steps.shape[0]):
            z0 = multi_steps[i, 1]
            c0 = multi_steps[i, 2]
            if multi_steps[i, 0] == FLOATING:  # (x, y, z, qx, qy, qz, qw)
                t0 = z0
                x, y, z, w = step_quaternion(Z[r, z0 + 3], Z[r, z0 + 4], Z[r, z0 + 5],
                                             Z[r, z0 + 6], dv[c0], dv[c0 + 1], dv[c0 + 2])
                Z_next[r, z0 + 3] = x
                Z_next[r, z0 + 4] = y
                Z_next[r, z0 + 5] = z
                Z_next[r, z0 + 6] = w
            else:  # rpy_floating: (roll, pitch, yaw, x, y, z)
                t0 = z0 + 3
                x, y, z, w = quaternion_of_angles(Z[r, z0], Z[r, z0 + 1], Z[r, z0 + 2])
                x, y, z, w = step_quaternion(x, y, z, w, dv[c0], dv[c0 + 1], dv[c0 + 2])
                roll, pitch, yaw = angles_of_quaternion(x, y, z, w)
                Z_next[r, z0] = roll
                Z_next[r, z0 + 1] = pitch
                Z_next[r, z0 + 2] = yaw
            for k in range(3):
                Z_next[r, t0 + k] = min(max(Z[r, t0 + k] + dv[c0 + 3 + k], z_lower[t0 + k]),
                                        z_upper[t0 + k])
        for i in range(wrap_z.shape[0]):
            c = wrap_z[i]
            Z_next[r, c] = wrap_angle(Z_next[r, c])


_CONTINUE = 0
_PENDING = 1


@jit
def search(Z: Any, base: Any, q_active: Any, mimic: Any, mimic_coefficients: Any,
           fk_joints: Any, fk_coefficients: Any, X_PC: Any, Q: Any, X_WL: Any,
           tips: Any, tip_offsets: Any, tip_columns: Any, tip_frames: Any, origin: Any,
           J_all: Any, targets: Any, col_v: Any, fold: Any, width: int, damping: float,
           lambda_min: float, max_step: float, z_lower: Any, z_upper: Any, wrap_z: Any,
           steps: Any, multi_steps: Any, E: Any, J: Any, A: Any, b: Any, dv: Any, perr: Any,
           rerr: Any, norm: Any, Z_next: Any, budget: int, iteration: int,
           position_tolerance: float, orientation_tolerance: float, stall_iterations: int,
           restart_iterations: int, stall_ratio: float, row_best: Any, row_end: Any,
           row_due: Any, pool: Any, state: Any, best_norm: Any, best_z: Any,
           best_error: Any) -> int:  # pragma: no cover - compiled
    """Up to ``budget`` iterations of one problem's rows (the solver's loop, compiled).

    Each iteration is :func:`iterate`, then what ``Search.run`` does for one problem: the
    best row so far (``best_z``, ``best_error`` = position, rotation, ``best_norm[0]`` its
    ``|e|²``); the stall bookkeeping (``row_best``, ``row_end``, ``row_due``: a row restarts
    when its ``|e|²`` has not dropped below ``stall_ratio`` times its best for
    ``stall_iterations`` iterations, or ``restart_iterations`` after its start); the step; the
    restarts from the ranked ``pool`` ``(S, na)`` (``state[0]`` the next entry,
    ``state[1]`` the seeds tried).

    Returns:
        The iterations run. When the last one has a row within both tolerances (a candidate
        for the validity callback) or needs more restarts than the pool has left, it stops
        after the errors and the best row (``E``, ``perr``, ``rerr``, ``norm``, ``Z_next`` hold
        that iteration, ``Z`` its rows before the step) and returns ``-(iterations run)``:
        the caller finishes that iteration.
    """
    R = Z.shape[0]
    na = Z.shape[1]
    done = 0
    while done < budget and R > 0:
        iterate(Z, base, q_active, mimic, mimic_coefficients, fk_joints, fk_coefficients,
                X_PC, Q, X_WL, tips, tip_offsets, tip_columns, tip_frames, origin,
                J_all, targets, col_v, fold, width, damping, lambda_min, max_step, z_lower,
                z_upper, wrap_z, steps, multi_steps, E, J, A, b, dv, perr, rerr, norm, Z_next)
        done += 1
        iteration += 1
        best = 0
        for r in range(1, R):
            if norm[r] < norm[best]:
                best = r
        if norm[best] < best_norm[0]:
            best_norm[0] = norm[best]
            for c in range(na):
                best_z[c] = Z[best, c]
            best_error[0] = perr[best]
            best_error[1] = rerr[best]
        restarts = 0
        for r in range(R):
            if perr[r] < position_tolerance and (
                    width == 3 or rerr[r] < orientation_tolerance):
                return -done
            due = row_due[r]
            if norm[r] < row_best[r] * stall_ratio:
                due = min(row_end[r], iteration + stall_iterations)
            if due <= iteration:
                restarts += 1
        if state[0] + restarts > pool.shape[0]:
            return -done
        for r in range(R):
            if norm[r] < row_best[r] * stall_ratio:
                row_best[r] = norm[r]
                row_due[r] = min(row_end[r], iteration + stall_iterations)
            if row_due[r] <= iteration:
                for c in range(na):
                    Z[r, c] = pool[state[0], c]
                state[0] += 1
                state[1] += 1
                row_best[r] = np.inf
                row_end[r] = iteration + restart_iterations
                row_due[r] = iteration + stall_iterations
            else:
                for c in range(na):
                    Z[r, c] = Z_next[r, c]
    return done


@jit
def rank_pool(pick: Any, z_table: Any, p_table: Any, r_table: Any, X_WT: Any, width: int,
              pool: Any) -> None:  # pragma: no cover - compiled
    """The sample-table rows ``pick`` ranked by tip error, best first, into ``pool``.

    The score of a row is ``Σ_t |p_T - p_tip|² - tr(R_T R_tipᵀ)`` (the rotation term unless
    ``width`` is 3), as ``Search._fill_pool`` ranks them: ``3 - tr = 2 (1 - cos θ) ≈ θ²``
    with the constant dropped.

    Args:
        pick: ``(S,)`` table rows.
        z_table: ``(N, na)`` the table's samples.
        p_table: ``(T, N, 3)`` their tip positions.
        r_table: ``(T, N, 9)`` their tip rotations, flattened (row-major).
        X_WT: ``(T, 4, 4)`` targets.
        width: 3 (position only) or 6.
        pool: ``(S, na)`` out: ``z_table[pick]`` sorted by score.
    """
    S = pick.shape[0]
    score = np.zeros(S)
    for i in range(S):
        n = pick[i]
        x = 0.0
        for t in range(X_WT.shape[0]):
            for j in range(3):
                d = p_table[t, n, j] - X_WT[t, j, 3]
                x += d * d
            if width == 6:
                for a in range(3):
                    for b in range(3):
                        x -= r_table[t, n, 3 * a + b] * X_WT[t, a, b]
        score[i] = x
    order = np.argsort(score)
    for i in range(S):
        row = pick[order[i]]
        for c in range(pool.shape[1]):
            pool[i, c] = z_table[row, c]


@jit
def start_single(seed: Any, base: Any, q_active: Any, mimic: Any, mimic_coefficients: Any,
                 z_lower: Any, z_upper: Any, wrap_z: Any, base_z: Any, pick: Any,
                 z_table: Any, p_table: Any, r_table: Any, known: Any, targets: Any,
                 width: int, Z: Any, pool: Any, row_best: Any, row_end: Any, row_due: Any,
                 restart_iterations: int, stall_iterations: int, best_norm: Any, best_z: Any,
                 best_error: Any, solution: Any) -> int:  # pragma: no cover - compiled
    """The set-up of a single search (``Search._init_single``) in one call.

    Projects the seed (active variables clipped to their bounds, continuous angles wrapped,
    mimic followers applied) into ``base`` ``(1, nq)`` and ``base_z`` ``(na,)``, ranks the
    sample-table rows ``pick`` by tip error into ``pool`` (:func:`rank_pool`), starts the
    rows ``Z`` ``(K, na)`` at the seed and the first ``K - 1`` pool entries, and resets the
    bookkeeping (``row_best`` inf, ``row_end``/``row_due`` the restart and stall
    iterations, the best row = the seed with infinite errors, ``solution`` the seed).

    Args:
        seed: ``(nq,)`` the request's seed.
        base: ``(1, nq)`` out: the projected seed.
        q_active: ``(na,)`` q indices of the active variables.
        mimic: ``(M, 2)`` mimic variable and source q indices.
        mimic_coefficients: ``(M, 2)`` multiplier and offset.
        z_lower: ``(na,)`` lower clip bounds (-inf when unbounded).
        z_upper: ``(na,)`` upper clip bounds (inf when unbounded).
        wrap_z: ``(W,)`` z indices of continuous angles, wrapped to ``[-π, π)``.
        base_z: ``(na,)`` out: the projected seed's active variables.
        pick: ``(S,)`` sample-table rows of the pool.
        z_table: ``(N, na)`` the table's samples.
        p_table: ``(T, N, 3)`` their tip positions.
        r_table: ``(T, N, 9)`` their tip rotations, flattened (row-major).
        known: ``(N,)`` the table rows whose tip poses are filled in.
        targets: ``(T, 1, 4, 4)`` targets ``X_WT``.
        width: 3 (position only) or 6.
        Z: ``(K, na)`` out: the rows.
        pool: ``(S, na)`` out: the ranked pool.
        row_best: ``(K,)`` out: inf.
        row_end: ``(K,)`` out: ``restart_iterations``.
        row_due: ``(K,)`` out: ``stall_iterations``.
        restart_iterations: See :class:`~robot_state_core.ik.types.IKOptions`.
        stall_iterations: See :class:`~robot_state_core.ik.types.IKOptions`.
        best_norm: ``(1,)`` out: inf.
        best_z: ``(na,)`` out: the projected seed.
        best_error: ``(2,)`` out: inf, inf.
        solution: ``(nq,)`` out: the projected seed.

    Returns:
        0, or the number of ``pick`` rows whose tip poses the table does not know yet (then
        only the projection is done: the caller fills those rows and calls again).
    """
    na = q_active.shape[0]
    base[0, :] = seed
    for i in range(na):
        base[0, q_active[i]] = min(max(seed[q_active[i]], z_lower[i]), z_upper[i])
    for i in range(wrap_z.shape[0]):
        c = q_active[wrap_z[i]]
        base[0, c] = wrap_angle(base[0, c])
    for i in range(mimic.shape[0]):
        base[0, mimic[i, 0]] = (mimic_coefficients[i, 0] * base[0, mimic[i, 1]]
                                + mimic_coefficients[i, 1])
    for i in range(na):
        base_z[i] = base[0, q_active[i]]
    unknown = 0
    for i in range(pick.shape[0]):
        if not known[pick[i]]:
            unknown += 1
    if unknown:
        return unknown
    rank_pool(pick, z_table, p_table, r_table, np.ascontiguousarray(targets[:, 0]), width,
              pool)
    K = Z.shape[0]
    for c in range(na):
        Z[0, c] = base_z[c]
        best_z[c] = base_z[c]
    for r in range(1, K):
        for c in range(na):
            Z[r, c] = pool[r - 1, c]
    for r in range(K):
        row_best[r] = np.inf
        row_end[r] = restart_iterations
        row_due[r] = stall_iterations
    best_norm[0] = np.inf
    best_error[0] = np.inf
    best_error[1] = np.inf
    solution[:] = base[0]
    return 0


# iterate, search and start_single compile the FK and Jacobian kernels (and what those compile
# in) into themselves: their cache entries are keyed on those sources too.
depend_on_sources(lambda: (iterate, search, start_single), (fk_kernels, *fk_kernels.SOURCES))

_READ_ONLY = (2, 3, 4, 10, 11, 17, 18, 23, 24, 25, 26, 27)
'''Arguments of :func:`iterate` that the solver passes read-only (its kernel tables).'''


def warm_up() -> None:
    """Compile (or load) :func:`iterate`, :func:`search`, :func:`rank_pool`, :func:`start_single`.

    One signature each, on empty rows, with the argument kinds the solver passes.
    """
    i = np.intp
    args: list[Any] = [
        np.zeros((0, 1)), np.zeros((1, 1)), np.zeros(1, i), np.zeros((0, 2), i),
        np.zeros((0, 2)), np.zeros((0, 4), i), np.zeros((0, 4, 3, 4)),
        np.zeros((0, 0, 4, 4)), np.zeros((0, 1)), np.zeros((0, 1, 4, 4)), np.zeros(1, i),
        np.zeros(2, i), np.zeros((0, 4), i), np.zeros((0, 4, 3)), np.zeros((1, 3)),
        np.zeros((1, 0, 6, 1)), np.zeros((1, 1, 4, 4)), np.zeros(0, i), np.zeros((0, 1)), 6,
        0.05, 1e-9, 1.0, np.zeros(1), np.zeros(1), np.zeros(0, i), np.zeros((1, 2), i),
        np.zeros((0, 3), i), np.zeros((0, 6)), np.zeros((6, 1)), np.zeros((6, 6)), np.zeros(6),
        np.zeros(1), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 1))]
    for a in _READ_ONLY:
        args[a].setflags(write=False)
    iterate(*args)
    cast(Any, search)(*args, 1, 0, 1e-5, 1e-4, 3, 40, 0.99, np.zeros(0), np.zeros(0, i),
                      np.zeros(0, i), np.zeros((1, 1)), np.zeros(2, i), np.zeros(1),
                      np.zeros(1), np.zeros(2))
    rank_pool(np.zeros(0, i), np.zeros((1, 1)), np.zeros((1, 1, 3)), np.zeros((1, 1, 9)),
              np.zeros((1, 4, 4)), 6, np.zeros((0, 1)))
    fixed = [np.zeros(1, i), np.zeros((0, 2), i), np.zeros((0, 2)), np.zeros(1), np.zeros(1),
             np.zeros(0, i)]  # q_active, mimic, mimic_coefficients, z_lower, z_upper, wrap_z
    for f in fixed:
        f.setflags(write=False)
    cast(Any, start_single)(
        np.zeros(1), np.zeros((1, 1)), *fixed, np.zeros(1), np.zeros(0, i), np.zeros((1, 1)),
        np.zeros((1, 1, 3)), np.zeros((1, 1, 9)), np.zeros(1, np.bool_), np.zeros((1, 1, 4, 4)),
        6, np.zeros((0, 1)), np.zeros((0, 1)), np.zeros(0), np.zeros(0, i), np.zeros(0, i), 40,
        3, np.zeros(1), np.zeros(1), np.zeros(2), np.zeros(1))
