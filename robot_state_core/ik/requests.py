"""An IK request's checks and name resolution, before any search.

Targets are checked and re-orthonormalized (:func:`check_target`), seeds checked
(:func:`check_seed`, :func:`check_seed_quaternions`), the timeout resolved against the group's
default (:func:`resolve_timeout`), and the group and tip link names resolved to the problem's
cache entry and the targets' order (:func:`resolve`; the tips are a set, kept in link order).
A malformed request is an ``INVALID_REQUEST`` result (:func:`invalid_result`) with a message,
never an exception (design study B7).
"""

from __future__ import annotations

from collections.abc import Sequence
import math
import time
from typing import Any

import numpy as np

from robot_state_core import kinematics
from robot_state_core._typing import as_finite_float, FloatArray
from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError, UnknownNameError
from robot_state_core.ik.cache import default_ik_cache, IKCache
from robot_state_core.ik.problem import problem_entry, ProblemEntry
from robot_state_core.ik.types import IKResult, IKStatus
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import check_quat_xyzw

__all__ = [
    'MAX_TIP_LINKS',
    'cache_or_default',
    'check_seed',
    'check_seed_quaternions',
    'check_target',
    'invalid_result',
    'resolve',
    'resolve_timeout',
]

MAX_TIP_LINKS = 16
'''Most tip links in one request (each distinct set of tips is a problem to set up).'''
_ORTHONORMAL_TOL = 1e-4
'''Largest ``|RᵀR - I|`` accepted in a target rotation; smaller deviations are projected away.'''
_BOTTOM_ROW = np.array([0.0, 0.0, 0.0, 1.0])


def invalid_result(model: RobotModel, seed: FloatArray | None, message: str,
                   start: float) -> IKResult:
    """An ``INVALID_REQUEST`` result: ``q`` is the seed (or the default positions)."""
    q = np.array(seed if seed is not None else model.default_positions, dtype=np.float64)
    return IKResult(IKStatus.INVALID_REQUEST, q, math.inf, math.inf, 0,
                    time.perf_counter() - start, 0, message)


def _det3(r0: list[float], r1: list[float], r2: list[float]) -> float:
    """Determinant of the 3 x 3 matrix with rows ``r0 r1 r2`` (their first 3 entries)."""
    (a, b, c), (d, e, f), (g, h, i) = r0[:3], r1[:3], r2[:3]
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def check_target(X: Any, what: str) -> tuple[FloatArray | None, str]:
    """``(X, '')`` with the rotation re-orthonormalized, or ``(None, reason)``."""
    try:
        a = np.array(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        return None, f'{what} is not a numeric array ({err})'
    if a.shape != (4, 4):
        return None, f'{what} must have shape (4, 4), got {a.shape}'
    # Scalar checks (Python floats): a dozen numpy calls on 16 numbers cost ~20 µs.
    r0, r1, r2, r3 = a.tolist()
    if not all(map(math.isfinite, r0 + r1 + r2 + r3)):
        return None, f'{what} is not finite'
    if max(abs(r3[0]), abs(r3[1]), abs(r3[2]), abs(r3[3] - 1.0)) > 1e-9:
        return None, f'{what} has bottom row {r3}, expected [0, 0, 0, 1]'
    deviation = 0.0  # max |RᵀR - I|
    for i in range(3):
        for j in range(i, 3):
            x = r0[i] * r0[j] + r1[i] * r1[j] + r2[i] * r2[j] - (1.0 if i == j else 0.0)
            deviation = max(deviation, abs(x))
    if deviation > _ORTHONORMAL_TOL or _det3(r0, r1, r2) <= 0.0:
        return None, f'{what} rotation is not orthonormal with det +1'
    if deviation > 1e-12:
        U, _, Vt = np.linalg.svd(a[:3, :3])
        a[:3, :3] = U @ Vt
    a[3] = _BOTTOM_ROW
    return a, ''


def check_seed(model: RobotModel, seed: Any) -> tuple[FloatArray | None, str]:
    """``(seed, '')`` as floats (``None``: the default positions), or ``(None, reason)``."""
    if seed is None:
        return np.array(model.default_positions, dtype=np.float64), ''
    try:
        a = np.array(seed, dtype=np.float64)
    except (TypeError, ValueError) as err:
        return None, f'seed is not a numeric array ({err})'
    if a.shape != (model.nq,):
        return None, f'seed must have shape ({model.nq},), got {a.shape}'
    if not np.isfinite(a).all():
        return None, 'seed is not finite'
    if not kinematics.plan(model).floating_labels:
        return a, ''
    return check_seed_quaternions(model, a)


def check_seed_quaternions(model: RobotModel, seeds: FloatArray) -> tuple[FloatArray | None, str]:
    """``(seeds, '')``, or ``(None, reason)`` when a FLOATING quaternion is degenerate."""
    p = kinematics.plan(model)
    if p.floating_labels:
        try:
            check_quat_xyzw(seeds[..., p.floating_q[:, 3:]], 'seed',
                            'the quaternion (rot_x, rot_y, rot_z, rot_w)', p.floating_labels)
        except InvalidArgumentError as err:
            return None, str(err)
    return seeds, ''


def resolve_timeout(timeout: float | None, group: JointModelGroup) -> tuple[float | None, str]:
    """``(timeout [s], '')`` (``None``, ``<= 0``: the group's default), or ``(None, reason)``."""
    if timeout is None:
        return float(group.default_ik_timeout), ''
    try:
        t = as_finite_float(timeout, 'IK', 'timeout')
    except RobotStateCoreError as err:
        return None, str(err)
    if not math.isfinite(t):
        return None, f'timeout must be finite, got {timeout!r}'
    return (t if t > 0.0 else float(group.default_ik_timeout)), ''


def cache_or_default(cache: IKCache | None) -> IKCache:
    """``cache``, or the process's default one for ``None`` (an empty cache is falsy)."""
    return default_ik_cache() if cache is None else cache


def resolve(cache: IKCache, model: RobotModel, group_name: str, tip_names: Sequence[str],
            n_targets: int, position_only: bool
            ) -> tuple[Any, ProblemEntry | None, tuple[int, ...], str]:
    """Group, problem set-up and target order for the request, or an error message.

    The tips are a set: the problem's tips are in link order, and ``order`` lists the
    request's targets in that order. A request whose group name is a ``str`` and tips a
    ``tuple`` of ``str`` finds its resolution in the cache's memo once it has resolved.
    """
    key = None
    if type(group_name) is str and isinstance(tip_names, tuple) and all(
            type(t) is str for t in tip_names):
        key = (group_name, tip_names, n_targets, bool(position_only))
        hit = cache.named(model, key)
        if hit is not None:
            group, tips, order = hit
            return group, problem_entry(cache, model, group, tips, position_only), order, ''
    group, tips, order, msg = _resolve_checked(model, group_name, tip_names, n_targets)
    if msg:
        return group, None, (), msg
    try:
        entry = problem_entry(cache, model, group, tips, position_only)
    except ValueError as err:
        return group, None, (), str(err)
    if key is not None:
        cache.remember_name(model, key, (group, tips, order))
    return group, entry, order, ''


def _resolve_checked(model: RobotModel, group_name: str, tip_names: Sequence[str],
                     n_targets: int) -> tuple[Any, tuple[int, ...], tuple[int, ...], str]:
    """:func:`resolve`'s checks: group, tips in link order and the targets' order."""
    try:
        group = model.group(group_name)
    except RobotStateCoreError as err:
        return None, (), (), str(err)
    if isinstance(tip_names, str) or not isinstance(tip_names, Sequence) or not all(
            isinstance(t, str) for t in tip_names):
        return group, (), (), f'tip links must be a sequence of link names, got {tip_names!r}'
    if len(tip_names) > MAX_TIP_LINKS:
        return group, (), (), (f'{len(tip_names)} tip links; at most {MAX_TIP_LINKS} per '
                               'request')
    tips = tuple(tip_names) or ((group.tip_link,) if group.tip_link else ())
    if not tips:
        return group, (), (), (f'group {group_name!r} is not a chain and has no tip link; pass '
                               'tip_links')
    if len(tips) != n_targets:
        return group, (), (), (f'{n_targets} target(s) for {len(tips)} tip link(s) '
                               f'{list(tips)}; give one target per tip')
    if len(set(tips)) != len(tips):
        return group, (), (), f'tip links {list(tips)} repeat a link'
    indices = []
    for name in tips:
        if not model.has_link(name):
            return group, (), (), str(UnknownNameError(name, 'link', model.link_names))
        indices.append(model.link_index(name))
    if group.active_variable_count == 0:
        return group, (), (), f'group {group_name!r} has no active variables'
    order = tuple(sorted(range(len(indices)), key=indices.__getitem__))
    return group, tuple(indices[i] for i in order), order, ''
