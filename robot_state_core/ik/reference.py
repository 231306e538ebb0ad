"""The numpy IK iteration: the tests' oracle for the compiled one (:mod:`.compiled`).

Steps 2-3 of the solver's algorithm (:mod:`.solver`) written with numpy: the model-frame tip
errors ``e = [p_T - p_tip; log(R_T R_tipᵀ)]`` per tip (:func:`errors`), the tips' point
Jacobians of the free variables (:func:`jacobian`) and the Levenberg-Marquardt step
``dv = Jᵀ (J Jᵀ + λ I)⁻¹ e`` with its clipping, bounds and wrapping (:func:`step`).

Every joint type runs the compiled iteration; nothing in production calls this module except
the branch of :meth:`.search.Search.run` taken for a problem whose ``compiled`` flag is
``False``, which only the tests set (``dataclasses.replace(entry.problem, compiled=False)``)
to check that both iterations take the same steps (``test/test_ik_compiled.py``).
"""

from __future__ import annotations

import numpy as np

from robot_state_core import kinematics
from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.ik.problem import full_configurations, LAMBDA_MIN, Problem, project
from robot_state_core.ik.types import IKOptions
from robot_state_core.kinematics.jacobian import link_jacobians
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import rotation_log_and_angle

__all__ = ['errors', 'jacobian', 'step']


def errors(k: Problem, X_tip: FloatArray, X_WT: FloatArray
           ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Tip errors ``(e, position_error, rotation_error)``.

    ``e`` ``(R, T * width)`` stacks ``[p_T - p_tip; log(R_T R_tipᵀ)]`` per tip in the model
    frame (``width`` 3 when position-only); the worst tip errors are ``(R,)`` [m] and [rad].
    """
    T, R = X_tip.shape[:2]
    e = np.empty((T, R, 3 if k.position_only else 6))
    dp = np.subtract(X_WT[..., :3, 3], X_tip[..., :3, 3], out=e[..., :3])
    perr = np.vecdot(dp, dp)
    perr = np.sqrt(perr[0] if T == 1 else perr.max(axis=0))
    if k.position_only:
        rerr = np.zeros(R)
    else:
        dw, angle = rotation_log_and_angle(
            X_WT[..., :3, :3] @ np.swapaxes(X_tip[..., :3, :3], -1, -2))
        e[..., 3:] = dw
        rerr = angle[0] if T == 1 else angle.max(axis=0)
    stacked: FloatArray = e[0] if T == 1 else np.swapaxes(e, 0, 1).reshape(R, -1)
    return stacked, perr, rerr


def jacobian(k: Problem, X_WL: FloatArray) -> FloatArray:
    """Tip point Jacobians ``(R, T * width, n)`` of the free variables (the Jacobian kernel).

    Rows ``[linear; angular]`` per tip in the model frame; mimic followers are folded into
    their sources' columns.
    """
    R, T = X_WL.shape[0], k.tips.size
    width = 3 if k.position_only else 6
    J_all = np.zeros((T, R, 6, k.nv))
    for t in range(T):
        link_jacobians(X_WL, int(k.tips[t]), k.tip_columns[t], J_all[t])
    J = J_all[:, :, :width][..., k.col_v]  # (T, R, width, nc)
    if k.fold_needed:
        J = J @ k.fold
    return np.swapaxes(J, 0, 1).reshape(R, T * width, k.n)


def step(model: RobotModel, k: Problem, options: IKOptions, z: FloatArray, base: FloatArray,
         prob: IntArray, e: FloatArray, J: FloatArray, norm: FloatArray) -> FloatArray:
    """One damped least-squares step for every row: the rows ``z`` after it.

    ``z`` itself is stepped in place when every active joint is additive; otherwise the
    floating joints' steps are integrated into new rows. Either way the rows are projected
    (bounds, wrapping, unit quaternions).

    Args:
        model: The robot model.
        k: The problem.
        options: The request's options (``damping``, ``max_step``).
        z: ``(R, na)`` the rows' active variables.
        base: ``(P, nq)`` every problem's configuration outside ``z``.
        prob: ``(R,)`` each row's problem.
        e: ``(R, m)`` the rows' tip errors (:func:`errors`).
        J: ``(R, m, n)`` their Jacobians (:func:`jacobian`).
        norm: ``(R,)`` ``|e|²``.
    """
    o = options
    m, n = J.shape[-2], J.shape[-1]
    lam = o.damping * norm + LAMBDA_MIN
    Jt = np.swapaxes(J, -1, -2)
    if m <= n:
        A = J @ Jt
        A.reshape(-1, m * m)[:, ::m + 1] += lam[:, None]
        dv = (Jt @ np.linalg.solve(A, e[..., None]))[..., 0]
    else:
        A = Jt @ J
        A.reshape(-1, n * n)[:, ::n + 1] += lam[:, None]
        dv = np.linalg.solve(A, Jt @ e[..., None])[..., 0]
    np.minimum(np.maximum(dv, -o.max_step, out=dv), o.max_step, out=dv)
    if k.additive:
        z += dv
    else:
        q = full_configurations(model, k, base, z, prob)
        v = np.zeros((q.shape[0], model.nv))
        v[:, k.v_active] = dv
        z = kinematics.integrate(model, q, v)[:, k.q_active]
    return project(k, z)
