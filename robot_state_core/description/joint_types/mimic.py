"""Mimic joints: a 1-DOF joint whose value follows another's, ``q = m · q_source + o``.

A relation between joints rather than a motion (Pinocchio's ``JointModelMimic``, MoveIt's
``JointModel::getMimic``): the follower moves with its own type's math. This module holds the
relation's math: composing a chain of mimics down to its independent source, writing the
followers' values, and folding a follower's Jacobian column into its source's (the chain rule).
"""

from __future__ import annotations

from typing import Any

from robot_state_core._typing import FloatArray, IntArray


def chain(multiplier: float, offset: float, outer_multiplier: float,
          outer_offset: float) -> tuple[float, float]:
    """The relation of a follower of a follower: ``q = M (m q_s + o) + O``.

    Args:
        multiplier: ``m`` of the inner relation (``q_cur = m q_s + o``).
        offset: ``o`` of the inner relation.
        outer_multiplier: ``M`` of the outer relation (``q = M q_cur + O``).
        outer_offset: ``O`` of the outer relation.

    Returns:
        ``(M m, M o + O)``.
    """
    return outer_multiplier * multiplier, outer_multiplier * offset + outer_offset


def apply(q: FloatArray, variable: IntArray, source: IntArray, multiplier: FloatArray,
          offset: FloatArray) -> None:
    """``q[..., variable] = multiplier * q[..., source] + offset``, in place (``(..., nq)``)."""
    q[..., variable] = multiplier * q[..., source] + offset


def fold_columns(J: Any, mimic: Any) -> None:
    """Fold follower columns into their sources in place: ``J`` ``(R, nv)`` rows.

    ``mimic`` ``(m, 3)``: per follower its velocity index, its source's, the multiplier
    (sources are never followers: the model composes chains). Column ``source += k * column
    follower``, then the follower columns are zeroed. Plain Python on arrays, compiled as the
    kinematics kernel ``fold_mimic``.
    """
    for r in range(J.shape[0]):
        for i in range(mimic.shape[0]):
            J[r, int(mimic[i, 1])] += mimic[i, 2] * J[r, int(mimic[i, 0])]
        for i in range(mimic.shape[0]):
            J[r, int(mimic[i, 0])] = 0.0
