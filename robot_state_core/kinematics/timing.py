"""Time stamps for a joint-space path: each step as fast as the joint velocity limits allow.

:func:`velocity_limited_time_stamps` gives every step of a path the shortest duration at which
no selected velocity variable exceeds its limit (``velocity_limits_v``, scaled), and the
waypoint velocities as the mean of the neighbouring steps' rates, zero at both ends.
move_group times its Cartesian paths with TOTG (time-optimal, velocity *and* acceleration
limits); ours respects velocity limits only (docs/decisions.md CP2): the timing is a
feasible-speed estimate for a controller that smooths accelerations itself.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.kinematics import bounds
from robot_state_core.kinematics.configuration_space import difference
from robot_state_core.model.robot_model import RobotModel

__all__ = ['MIN_STEP_DURATION', 'velocity_limited_time_stamps']

MIN_STEP_DURATION = 1e-3
'''Shortest step [s]: repeated states still get increasing times (controllers require it).'''


def velocity_limited_time_stamps(model: RobotModel, path: ArrayLike, velocity_indices: IntArray,
                                 velocity_scaling: float = 1.0
                                 ) -> tuple[FloatArray, FloatArray]:
    """Times and velocities of a path's states (module docstring).

    Args:
        model: The robot model.
        path: ``(K, nq)`` configurations.
        velocity_indices: The velocity variables that are timed (e.g. a group's), indices into
            ``v``; the others do not limit the speed.
        velocity_scaling: Share of the velocity limits used, in ``(0, 1]``; any other value
            means 1 (MoveIt's rule for ``max_velocity_scaling_factor``).

    Returns:
        ``(t, v)``: ``(K,)`` times from 0 [s] and ``(K, nv)`` velocities.

    Raises:
        InvalidArgumentError: ``path`` is not ``(K, nq)``.
    """
    q = np.asarray(path, dtype=np.float64)
    if q.ndim != 2 or q.shape[1] != model.nq:
        raise InvalidArgumentError(f'velocity_limited_time_stamps: path must be (K, {model.nq}), '
                                   f'got {q.shape}')
    scale = velocity_scaling if 0.0 < velocity_scaling <= 1.0 else 1.0
    K = len(q)
    v = np.zeros((K, model.nv))
    if K < 2:
        return np.zeros(K), v
    steps = difference(model, q[:-1], q[1:])  # (K-1, nv) per unit time
    limits = bounds.velocity_limits_v(model)[velocity_indices] * scale
    ratios = np.abs(steps[:, velocity_indices]) / limits  # inf limits give 0
    dt = np.maximum(ratios.max(axis=1, initial=0.0), MIN_STEP_DURATION)
    t = np.concatenate([[0.0], np.cumsum(dt)])
    rates = steps / dt[:, None]
    v[1:-1] = 0.5 * (rates[:-1] + rates[1:])
    return t, v
