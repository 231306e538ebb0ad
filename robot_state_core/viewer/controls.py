"""Which controls the viewer page gives a robot model: slider ranges and the groups with IK.

Pure functions of the model (no browser, no viser); :mod:`~robot_state_core.viewer.app` builds
the page from them.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.state.robot_state import RobotState

__all__ = ['IK_RANK_TOLERANCE', 'UNBOUNDED_TRANSLATION', 'SliderSpec', 'ik_capable_groups',
           'slider_specs']

UNBOUNDED_TRANSLATION = 2.0
'''Half range [m] of the sliders of unbounded translations (planar, floating).'''
IK_RANK_TOLERANCE = 1e-6
'''Singular-value threshold of the tip position Jacobian when deciding which groups get a gizmo.'''


@dataclass(frozen=True)
class SliderSpec:
    """One slider of the page.

    Attributes:
        variable: The variable (MoveIt name).
        index: Its index in the model's variable order.
        lower: Slider minimum [rad or m; -1 for a quaternion component].
        upper: Slider maximum.
        step: Slider step (a thousandth of the range).
    """

    variable: str
    index: int
    lower: float
    upper: float
    step: float


def slider_specs(model: RobotModel) -> list[SliderSpec]:
    """A slider per active variable, over its bounds.

    Unbounded angles (continuous, planar theta, rpy_floating angles) get one turn ``[-π, π]``,
    unbounded translations ``±UNBOUNDED_TRANSLATION``, quaternion components ``[-1, 1]``
    (the viewer normalises the quaternion after a change).
    """
    names = model.variable_names
    angle = set(np.flatnonzero(model.variable_angle).tolist())
    quaternion = set(np.flatnonzero(model.variable_orientation
                                    & ~model.variable_angle).tolist())
    specs = []
    for i in np.flatnonzero(np.asarray(model.active_variable_mask)):
        lo, hi = float(model.variable_lower[i]), float(model.variable_upper[i])
        if i in quaternion:
            lo, hi = -1.0, 1.0
        elif not (math.isfinite(lo) and math.isfinite(hi)):
            half = math.pi if i in angle else UNBOUNDED_TRANSLATION
            lo, hi = -half, half
        step = (hi - lo) / 1000.0 if hi > lo else 0.001
        specs.append(SliderSpec(names[i], int(i), lo, hi, step))
    return specs


def ik_capable_groups(model: RobotModel) -> tuple[str, ...]:
    """Groups whose tip can be placed in 3D: the ones offered an IK gizmo, model order.

    A group qualifies when it has a tip link and the position rows of its tip Jacobian (the
    group's variables) have rank 3 at a random configuration (seed 0): Panda's ``hand`` (one
    finger), a two-joint ``head``, a planar base or a lift do not.
    """
    probe = RobotState(model)
    probe.set_to_random_positions(rng=np.random.default_rng(0))
    out = []
    for name in model.group_names:
        if not model.group(name).tip_link:
            continue
        try:
            J = probe.get_jacobian_in_model_frame(name)
        except InvalidArgumentError:  # a group without joints
            continue
        if J.shape[1] >= 3 and int(np.sum(np.linalg.svd(J[:3], compute_uv=False)
                                          > IK_RANK_TOLERANCE)) == 3:
            out.append(name)
    return tuple(out)
