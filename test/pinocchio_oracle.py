"""Pinocchio as the FK/Jacobian oracle: model loading and q conversion (test helper)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from robot_state_core.description.joints import JointType


def load(urdf: Path) -> tuple[Any, bool]:
    """Pinocchio model (mimic=True where Pinocchio supports the file, else mimic=False)."""
    import pinocchio as pin

    try:
        return pin.buildModelFromUrdf(str(urdf), mimic=True), True
    except Exception:
        return pin.buildModelFromUrdf(str(urdf), mimic=False), False


def to_pinocchio_q(model: Any, pm: Any, q: np.ndarray) -> np.ndarray:
    """Our q (nq) -> Pinocchio's q: continuous and planar angles become (cos, sin)."""
    qp = np.zeros(pm.nq)
    for i in range(1, pm.njoints):
        jm = pm.joints[i]
        short = jm.shortname()
        if 'Mimic' in short:
            continue
        j = model.joint_index(pm.names[i])
        start = int(model.joint_q_start[j])
        jtype = model.joint_types[j]
        if jtype is JointType.CONTINUOUS:
            qp[jm.idx_q:jm.idx_q + 2] = [np.cos(q[start]), np.sin(q[start])]
        elif jtype is JointType.PLANAR:
            x, y, th = q[start:start + 3]
            qp[jm.idx_q:jm.idx_q + 4] = [x, y, np.cos(th), np.sin(th)]
        elif jtype is JointType.FLOATING:
            qp[jm.idx_q:jm.idx_q + 7] = q[start:start + 7]
        else:
            qp[jm.idx_q] = q[start]
    return qp


def random_q(model: Any, rng: np.random.Generator) -> np.ndarray:
    """Uniform q within bounds (±pi for unbounded angles, ±1 m translations), mimic applied."""
    lo = np.where(np.isfinite(model.variable_lower), model.variable_lower, -np.pi)
    hi = np.where(np.isfinite(model.variable_upper), model.variable_upper, np.pi)
    q = rng.uniform(lo, hi)
    for j, t in enumerate(model.joint_types):
        if t is JointType.FLOATING:
            s = int(model.joint_q_start[j])
            quat = rng.normal(size=4)
            q[s + 3:s + 7] = quat / np.linalg.norm(quat)
    model.apply_mimic(q)
    return q
