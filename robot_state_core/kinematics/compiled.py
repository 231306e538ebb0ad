"""The compiled kinematics kernels (numba): one FK composition, one Jacobian column.

This is the package's only numba importer. It is imported on first use by
:func:`robot_state_core.kinematics.plan.compiled_kernels` (not by ``import robot_state_core``:
numba costs 0.4-0.7 s to import, and a node's first ``/tf_static`` needs no FK), and every
kernel compiles lazily on its first call, once per process, then loads from numba's on-disk
cache.

Kernel cache: ``$NUMBA_CACHE_DIR`` if the user set it, else
``$XDG_CACHE_HOME/robot_state_core/numba`` (``~/.cache/robot_state_core/numba`` by default),
never the install tree (which may be read-only: colcon install, system packages).
:func:`cache_directory` gives it.

One source of the joint math: the kernels contain none of their own.
* 1-DOF joints (revolute, continuous, prismatic): the local transform is the motion
  polynomial ``X_PC = B0 + sin θ B1 + (1 - cos θ) B2 + θ B3`` whose coefficients the plan builds
  once from :func:`robot_state_core.description.joint_motion.one_dof_motion_coefficients`
  (premultiplied by the joint origin ``X_PJ``); the kernel only evaluates it.
* Multi-DOF joints (planar, floating, rpy_floating): their motions ``X_FM(q)`` come from
  :func:`robot_state_core.description.joint_motion.multi_dof_motion` (numpy, batched, the
  quaternion normalised there) and the kernel composes ``X_PJ @ X_FM`` with
  :func:`compose_joint`, the same product that composes link poses.

Every kernel writes into caller-provided arrays: ``(N, ...)`` batches of configurations, so the
single configuration is the batch ``N = 1`` and the two paths run the same code. Inputs must be
C-contiguous float64/intp arrays of fixed kinds (see :mod:`.forward`), so each kernel compiles
one signature only.
"""

from __future__ import annotations

from collections.abc import Callable
import math
import os
from pathlib import Path
from typing import Any, cast, TypeVar

import numba
import numpy as np


def cache_directory() -> Path:
    """Where the kernels are cached: ``$NUMBA_CACHE_DIR``, else the user cache directory.

    ``$XDG_CACHE_HOME/robot_state_core/numba`` when ``XDG_CACHE_HOME`` is an absolute path
    (the XDG rule), else ``~/.cache/robot_state_core/numba``.
    """
    user = os.environ.get('NUMBA_CACHE_DIR')
    if user:
        return Path(user)
    xdg = os.environ.get('XDG_CACHE_HOME', '')
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / '.cache'
    return base / 'robot_state_core' / 'numba'


# Before any kernel below is defined: numba binds a function's cache locator when it is
# decorated. A user's NUMBA_CACHE_DIR is already in numba.config (read at numba's import).
if not os.environ.get('NUMBA_CACHE_DIR'):
    numba.config.CACHE_DIR = str(cache_directory())

_F = TypeVar('_F', bound=Callable[..., Any])
_njit = numba.njit(cache=True, nogil=True, error_model='numpy')


def _jit(function: _F) -> _F:
    """Compile ``function`` lazily on its first call (cached on disk, see above)."""
    return cast(_F, _njit(function))


# ---------------------------------------------------------------------------- FK


@_jit
def compose_joint(X_WP: Any, X_PC: Any, X_WC: Any) -> None:  # pragma: no cover - compiled
    """``X_WC = X_WP @ X_PC`` for rigid ``(4, 4)`` transforms (bottom rows not read)."""
    for r in range(3):
        p0, p1, p2 = X_WP[r, 0], X_WP[r, 1], X_WP[r, 2]
        for c in range(4):
            X_WC[r, c] = p0 * X_PC[0, c] + p1 * X_PC[1, c] + p2 * X_PC[2, c]
        X_WC[r, 3] += X_WP[r, 3]
    X_WC[3, 0] = 0.0
    X_WC[3, 1] = 0.0
    X_WC[3, 2] = 0.0
    X_WC[3, 3] = 1.0


@_jit
def local_transforms_one(q: Any, joints: Any, coefficients: Any, motions: Any,
                         X_PC: Any) -> None:  # pragma: no cover - compiled
    """Local joint transforms ``X_PC`` ``(J, 4, 4)`` of one configuration ``q`` ``(nq,)``.

    ``joints[j]``: kind (0 fixed, 1 one variable, 2 multi-DOF), q index, motion slot, parent
    link, child link. ``coefficients`` ``(J, 4, 3, 4)``: the top rows of the motion
    polynomial ``X_PC = B0 + sin θ B1 + (1 - cos θ) B2 + θ B3`` (``B0 = X_PJ``); multi-DOF
    joints compose ``X_PJ @ motions[slot]``.
    """
    for j in range(joints.shape[0]):
        out = X_PC[j]
        kind = joints[j, 0]
        B = coefficients[j]
        if kind == 1:
            theta = q[joints[j, 1]]
            s = math.sin(theta)
            c1 = 1.0 - math.cos(theta)
            for r in range(3):
                for c in range(4):
                    out[r, c] = B[0, r, c] + s * B[1, r, c] + c1 * B[2, r, c] + theta * B[3, r, c]
            out[3, 0] = 0.0
            out[3, 1] = 0.0
            out[3, 2] = 0.0
            out[3, 3] = 1.0
        elif kind == 0:
            for r in range(3):
                for c in range(4):
                    out[r, c] = B[0, r, c]
            out[3, 0] = 0.0
            out[3, 1] = 0.0
            out[3, 2] = 0.0
            out[3, 3] = 1.0
        else:
            compose_joint(B[0], motions[joints[j, 2]], out)


@_jit
def compose_one(joints: Any, X_PC: Any, X_WL: Any) -> None:  # pragma: no cover - compiled
    """Link poses ``X_WL`` ``(L, 4, 4)`` from local transforms, joints in topological order.

    The one composition of the package: ``X_WL[child] = X_WL[parent] @ X_PC``; the root
    (link 0) is the identity.
    """
    root = X_WL[0]
    for r in range(4):
        for c in range(4):
            root[r, c] = 1.0 if r == c else 0.0
    for j in range(joints.shape[0]):
        compose_joint(X_WL[joints[j, 3]], X_PC[j], X_WL[joints[j, 4]])


@_jit
def forward(Q: Any, joints: Any, coefficients: Any, motions: Any, X_PC: Any,
            X_WL: Any) -> None:  # pragma: no cover - compiled
    """The FK kernel: link poses ``X_WL`` ``(N, L, 4, 4)`` of configurations ``Q`` ``(N, nq)``.

    ``motions`` ``(N or 1, K, 4, 4)``: multi-DOF joint motions per configuration (``K = 0``
    without such joints). ``X_PC`` ``(N, J, 4, 4)``: receives the local transforms; an empty
    ``(0, ...)`` array when they are not wanted (the kernel then uses one scratch row).
    """
    last_motion = motions.shape[0] - 1
    if X_PC.shape[0] == 0:  # local transforms not wanted: one scratch row
        X_PC = np.empty((1, joints.shape[0], 4, 4))
    last_local = X_PC.shape[0] - 1
    for n in range(Q.shape[0]):
        local = X_PC[min(n, last_local)]
        local_transforms_one(Q[n], joints, coefficients, motions[min(n, last_motion)], local)
        compose_one(joints, local, X_WL[n])


@_jit
def local_transforms(Q: Any, joints: Any, coefficients: Any, motions: Any,
                     X_PC: Any) -> None:  # pragma: no cover - compiled
    """Local joint transforms ``X_PC`` ``(N, J, 4, 4)`` of ``Q`` ``(N, nq)`` (no composition)."""
    last_motion = motions.shape[0] - 1
    for n in range(Q.shape[0]):
        local_transforms_one(Q[n], joints, coefficients, motions[min(n, last_motion)], X_PC[n])


@_jit
def compose(joints: Any, X_PC: Any, X_WL: Any) -> None:  # pragma: no cover - compiled
    """Link poses ``X_WL`` ``(N, L, 4, 4)`` from given local transforms ``(N, J, 4, 4)``."""
    for n in range(X_PC.shape[0]):
        compose_one(joints, X_PC[n], X_WL[n])


# ---------------------------------------------------------------------------- Jacobian


@_jit
def jacobian_column(a0: float, a1: float, a2: float, l0: float, l1: float, l2: float,
                    prismatic: bool, out: Any, column: int) -> None:  # pragma: no cover
    """One point-Jacobian column into ``out[:, column]`` (rows linear, then angular if 6).

    Revolute: ``[a × l; a]``; prismatic: ``[a; 0]`` (axis ``a``, lever ``l`` from a point on
    the axis to the point).
    """
    if prismatic:
        out[0, column] = a0
        out[1, column] = a1
        out[2, column] = a2
        if out.shape[0] == 6:
            out[3, column] = 0.0
            out[4, column] = 0.0
            out[5, column] = 0.0
    else:
        out[0, column] = a1 * l2 - a2 * l1
        out[1, column] = a2 * l0 - a0 * l2
        out[2, column] = a0 * l1 - a1 * l0
        if out.shape[0] == 6:
            out[3, column] = a0
            out[4, column] = a1
            out[5, column] = a2


@_jit
def jacobian_columns(axis: Any, lever: Any, prismatic: Any, out: Any) -> None:  # pragma: no cover
    """Columns of ``M`` axes ``(M, 3)`` and levers ``(M, 3)`` into ``out`` ``(width, M)``."""
    for m in range(axis.shape[0]):
        jacobian_column(axis[m, 0], axis[m, 1], axis[m, 2], lever[m, 0], lever[m, 1],
                        lever[m, 2], prismatic[m], out, m)


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
        X = X_WL[n]
        T = X[link]
        pt = point_L[min(n, last_point)]
        p0 = T[0, 3] + T[0, 0] * pt[0] + T[0, 1] * pt[1] + T[0, 2] * pt[2]
        p1 = T[1, 3] + T[1, 0] * pt[0] + T[1, 1] * pt[1] + T[1, 2] * pt[2]
        p2 = T[2, 3] + T[2, 0] * pt[0] + T[2, 1] * pt[1] + T[2, 2] * pt[2]
        Jn = out[n]
        for i in range(columns.shape[0]):
            C = X[columns[i, 1]]
            F = frames[i]
            x, y, z = F[0, 0], F[0, 1], F[0, 2]
            f = columns[i, 2]
            if f >= 0:  # axis in the joint frame F: R_WF = R_WP @ R_PJ
                P = X[f]
                x, y, z = (F[1, 0] * x + F[1, 1] * y + F[1, 2] * z,
                           F[2, 0] * x + F[2, 1] * y + F[2, 2] * z,
                           F[3, 0] * x + F[3, 1] * y + F[3, 2] * z)
            else:
                P = C
            a0 = P[0, 0] * x + P[0, 1] * y + P[0, 2] * z
            a1 = P[1, 0] * x + P[1, 1] * y + P[1, 2] * z
            a2 = P[2, 0] * x + P[2, 1] * y + P[2, 2] * z
            jacobian_column(a0, a1, a2, p0 - C[0, 3], p1 - C[1, 3], p2 - C[2, 3],
                            columns[i, 3] != 0, Jn, columns[i, 0])
