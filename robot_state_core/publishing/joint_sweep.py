"""Smooth joint-space sweeps: the demo's simulated joint-state source (no ROS here).

Every active variable follows ``centre + amplitude * sin(2π f t + phase)``, with frequencies and
phases spread over the variables so the robot visibly moves everywhere, always within limits:
bounded variables sweep 80 % of their range around its middle, unbounded angles ±π/2, planar
and floating translations ±0.5 m. Quaternion variables are produced by a rotation about z.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from robot_state_core.model.robot_model import RobotModel


class JointSweep:
    """Samples a smooth, bounded trajectory through every active variable of a model.

    Args:
        model: The robot model.
        period_s: Period of the slowest variable [s].
    """

    def __init__(self, model: RobotModel, period_s: float = 8.0) -> None:
        self.model = model
        active = np.flatnonzero(np.asarray(model.active_variable_mask))
        lower = np.asarray(model.variable_lower)[active]
        upper = np.asarray(model.variable_upper)[active]
        bounded = np.isfinite(lower) & np.isfinite(upper) & np.asarray(
            model.variable_bounded)[active]
        lo, hi = np.where(bounded, lower, 0.0), np.where(bounded, upper, 0.0)
        self._centre = 0.5 * (lo + hi)
        self._amplitude = np.where(bounded, 0.4 * (hi - lo), 0.5)
        angle = np.asarray(model.variable_angle)
        quaternion = np.asarray(model.variable_orientation) & ~angle
        self._amplitude = np.where(angle[active] & ~bounded, np.pi / 2, self._amplitude)
        n = active.size
        self._frequency = (1.0 / period_s) * (1.0 + 0.37 * (np.arange(n) % 5))
        self._phase = np.linspace(0.0, np.pi, n, endpoint=False)
        self._active = active
        self._quaternion = quaternion[active]
        self.names: tuple[str, ...] = tuple(model.variable_names[i] for i in active)

    def sample(self, t: float) -> tuple[tuple[str, ...], NDArray[np.float64]]:
        """``(names, positions)`` of the active variables at time ``t`` [s]."""
        values = self._centre + self._amplitude * np.sin(2 * np.pi * self._frequency * t
                                                         + self._phase)
        if self._quaternion.any():  # a slow rotation about z, as unit quaternions (xyzw)
            idx = np.flatnonzero(self._quaternion).reshape(-1, 4)
            half = 0.25 * np.sin(2 * np.pi * t / 8.0)
            values[idx] = np.array([0.0, 0.0, np.sin(half), np.cos(half)])
        return self.names, values
