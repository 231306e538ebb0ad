"""Cartesian paths: a link moved along straight lines through waypoints (MoveIt's interpolator).

:func:`compute_cartesian_path` follows MoveIt 2's ``CartesianInterpolator::computeCartesianPath``
as move_group's ``compute_cartesian_path`` service runs it (moveit_core >= 2.11, the Jazzy and
Kilted releases):

* per waypoint segment, ``steps = max(floor(d / max_step), floor(θ / max_rotation_step)) + 1``
  for the translation ``d`` [m] and rotation ``θ`` [rad] of the segment (a step of 0 leaves
  its term out); MoveIt's ``MaxEEFStep(max_step)`` sets ``max_rotation_step = 3.5·max_step``;
* the pose at ``i / steps`` is the linear interpolation of the positions and the shortest
  slerp of the orientations; each is solved by IK seeded with the previous solution (the
  group's default timeout, the validity callback vetoing candidates); the first failure ends
  the path;
* every step is checked at its joint-space midpoint (``validateAndImproveInterval``): when the
  link's pose there is farther than :class:`CartesianPrecision` from the Cartesian midpoint,
  the midpoint is solved by IK and both halves are checked again, down to a segment fraction
  of ``max_resolution``; a step that cannot be made straight enough ends the path (this is how
  a joint-space jump shows);
* the fraction is ``(waypoints reached + the failing segment's reached fraction) / N``; the
  next segment starts where the previous one ended; a waypoint given in the link frame
  (``global_frame=False``) is relative to the pose reached at the previous waypoint.

Our addition (docs/decisions.md CP1): the jump thresholds of the request, which MoveIt >= 2.11
no longer applies (2.10 did: ``hasJointSpaceJump``): with ``JumpThreshold.relative_factor``
the path is cut before the first step longer than that factor times the mean step (joint
distance over the group), else with an absolute ``revolute`` / ``prismatic`` threshold before
the first step that moves one such joint farther; the fraction is scaled by the kept share of
the states, as MoveIt 2.10 did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
import math
import threading

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.ik.cache import IKCache
from robot_state_core.ik.solver import solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.kinematics import bounds
from robot_state_core.kinematics.forward import forward_kinematics
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import (
    as_pose,
    quat_angle,
    quat_slerp,
    quat_xyzw_from_rotation,
    rotation_from_quat_xyzw,
)

__all__ = ['CartesianPathResult', 'CartesianPrecision', 'JumpThreshold',
           'check_joint_space_jump', 'compute_cartesian_path']

ValidityFn = Callable[[FloatArray], bool]
'''``fn(q) -> bool`` on a full ``(nq,)`` configuration; False vetoes it (collision...).'''


@dataclass(frozen=True)
class CartesianPrecision:
    """How straight a step must be (MoveIt ``CartesianPrecision``; its defaults).

    Attributes:
        translational: Largest distance [m] of the link's midpoint pose from the line.
        rotational: Largest angle [rad] of its midpoint orientation from the slerp.
        max_resolution: Smallest segment fraction a step is split into before giving up.
    """

    translational: float = 0.001
    rotational: float = 0.01
    max_resolution: float = 1e-5


@dataclass(frozen=True)
class JumpThreshold:
    """Joint-space jump limits (MoveIt 2.10 ``JumpThreshold``; 0 disables a term).

    Attributes:
        relative_factor: Cut before a step longer than this factor times the mean step (> 1).
        revolute: Cut before a step that moves a revolute joint farther [rad].
        prismatic: Cut before a step that moves a prismatic joint farther [m].
    """

    relative_factor: float = 0.0
    revolute: float = 0.0
    prismatic: float = 0.0


@dataclass(frozen=True)
class CartesianPathResult:
    """A Cartesian path.

    Attributes:
        path: ``(K, nq)`` configurations from the start (row 0) to the last state reached.
        fraction: Share of the requested path achieved, in ``[0, 1]`` (MoveIt's).
        message: Why the path ends early (``''`` when complete).
    """

    path: FloatArray
    fraction: float
    message: str = ''


def _pose_at(X0: FloatArray, X1: FloatArray, t: float) -> FloatArray:
    """Position lerp and orientation slerp between two poses at ``t``."""
    q = quat_slerp(quat_xyzw_from_rotation(X0[:3, :3]), quat_xyzw_from_rotation(X1[:3, :3]),
                   np.asarray(t))
    X = np.eye(4)
    X[:3, :3] = rotation_from_quat_xyzw(q)
    X[:3, 3] = (1.0 - t) * X0[:3, 3] + t * X1[:3, 3]
    return X


def _rotation_distance(X0: FloatArray, X1: FloatArray) -> float:
    return float(quat_angle(quat_xyzw_from_rotation(X0[:3, :3]),
                            quat_xyzw_from_rotation(X1[:3, :3])))


class _Segmenter:
    """One Cartesian path's IK calls and straightness checks (module docstring)."""

    def __init__(self, model: RobotModel, group: str, link: str, link_index: int,
                 X_LF: FloatArray, precision: CartesianPrecision, validity: ValidityFn | None,
                 options: IKOptions | None, timeout: float | None,
                 stop: threading.Event | None, cache: IKCache | None) -> None:
        self.model, self.group, self.link, self.li = model, group, link, link_index
        self.stop, self.cache = stop, cache
        self.X_LF = X_LF  # the moved frame F on the link (MoveIt's link_offset)
        self.X_FL = np.linalg.inv(X_LF)
        self.precision = precision
        self.validity = validity
        self.options = options
        self.timeout = timeout
        self.variables = model.group(group).variable_indices

    def fk(self, q: FloatArray) -> FloatArray:
        """``X_WF`` at ``q``."""
        out: FloatArray = forward_kinematics(self.model, q)[self.li] @ self.X_LF
        return out

    def ik(self, X_WF: FloatArray, seed: FloatArray) -> FloatArray | None:
        """A configuration putting F at ``X_WF``, seeded by ``seed``, or None."""
        request = IKRequest(group=self.group, targets=(X_WF @ self.X_FL,),
                            tip_links=(self.link,), seed=seed,
                            timeout=self.timeout, validity_callback=self.validity,
                            stop=self.stop,
                            **({'options': self.options} if self.options is not None else {}))
        result = solve_ik(self.model, request, cache=self.cache)
        return np.array(result.q) if result.success else None

    def straight(self, q0: FloatArray, q1: FloatArray, X0: FloatArray, X1: FloatArray,
                 width: float, out: list[FloatArray]) -> bool:
        """MoveIt ``validateAndImproveInterval``: check one step's midpoint, split if needed.

        Appends ``q1`` (and any midpoints solved to make the step straight); False when the
        step cannot be made straight enough.
        """
        qm = bounds.interpolate(self.model, q0, q1, 0.5, self.variables)
        Xm = _pose_at(X0, X1, 0.5)
        Xfk = self.fk(qm)
        p = self.precision
        if float(np.linalg.norm(Xm[:3, 3] - Xfk[:3, 3])) <= p.translational and \
                _rotation_distance(Xm, Xfk) <= p.rotational:
            out.append(q1)
            return True
        if width < p.max_resolution:
            return False
        solved = self.ik(Xm, qm)
        if solved is None:
            return False
        return self.straight(q0, solved, X0, Xm, width / 2, out) and \
            self.straight(solved, q1, Xm, X1, width / 2, out)

    def segment(self, q_start: FloatArray, X_target: FloatArray, max_step: float,
                max_rotation_step: float) -> tuple[list[FloatArray], float, str]:
        """One straight segment to ``X_target``.

        Returns:
            The states (start first), the fraction reached and why it stopped ('' if not).
        """
        X_start = self.fk(q_start)
        translation = float(np.linalg.norm(X_target[:3, 3] - X_start[:3, 3]))
        rotation = _rotation_distance(X_start, X_target)
        steps = max(math.floor(translation / max_step) if max_step > 0 else 0,
                    math.floor(rotation / max_rotation_step) if max_rotation_step > 0
                    else 0) + 1
        states = [q_start]
        reached = 0.0
        q_prev, X_prev = q_start, X_start
        for i in range(1, steps + 1):
            t = i / steps
            X = _pose_at(X_start, X_target, t)
            q = self.ik(X, q_prev)
            if q is None:
                return states, reached, f'no IK solution at {t:.0%} of the segment'
            if not self.straight(q_prev, q, X_prev, X, 1.0 / steps, states):
                return states, reached, (f'the step to {t:.0%} of the segment cannot be made '
                                         'straight (a joint-space jump)')
            reached, q_prev, X_prev = t, q, X
        return states, reached, ''


def _jump_index(model: RobotModel, group: str, path: FloatArray,
                threshold: JumpThreshold) -> int | None:
    """MoveIt 2.10 ``hasJointSpaceJump``: the index of the first state after a jump, or None.

    The relative test, when set, replaces the absolute one (as in MoveIt 2.10).
    """
    if len(path) <= 1:
        return None
    g = model.group(group)
    if threshold.relative_factor > 0:
        steps = bounds.distance(model, path[:-1], path[1:], g.variable_indices)
        limit = threshold.relative_factor * float(np.mean(steps))
        over = np.flatnonzero(steps > limit)
        return int(over[0]) + 1 if len(over) else None
    if threshold.revolute <= 0 and threshold.prismatic <= 0:
        return None
    per_joint = bounds.joint_distances(model, path[:-1], path[1:], g.variable_indices)
    joints = g.active_joint_indices.tolist()
    for k in range(len(path) - 1):
        for j in joints:  # per_joint's columns are model joints
            kind = model.joint_types[j]
            limit = threshold.revolute if kind in (JointType.REVOLUTE, JointType.CONTINUOUS) \
                else threshold.prismatic if kind is JointType.PRISMATIC else 0.0
            if limit > 0 and per_joint[k, j] > limit:
                return k + 1
    return None


def compute_cartesian_path(model: RobotModel, start: ArrayLike, group: str,
                           waypoints: Sequence[ArrayLike], *, link: str | None = None,
                           max_step: float, max_rotation_step: float | None = None,
                           global_frame: bool = True, link_offset: ArrayLike | None = None,
                           precision: CartesianPrecision = CartesianPrecision(),
                           jump_threshold: JumpThreshold = JumpThreshold(),
                           validity: ValidityFn | None = None,
                           ik_options: IKOptions | None = None,
                           timeout: float | None = None,
                           stop: threading.Event | None = None,
                           cache: IKCache | None = None) -> CartesianPathResult:
    """Move ``link`` in straight lines through ``waypoints`` (module docstring; MoveIt's).

    Args:
        model: The robot model.
        start: ``(nq,)`` start configuration.
        group: The joint model group that moves.
        waypoints: ``X`` per waypoint, ``(4, 4)``: the moved frame's pose in the model frame
            (``global_frame``) or relative to its pose at the previous waypoint.
        link: The link that moves along the lines (default: the group's tip link; MoveIt's
            service takes the group's last link).
        max_step: Largest translation [m] between two IK steps (> 0).
        max_rotation_step: Largest rotation [rad] between two IK steps (default
            ``3.5 · max_step``, MoveIt's ``MaxEEFStep``; 0 disables it).
        global_frame: Whether waypoints are in the model frame.
        link_offset: ``X_LF``: the frame F on the link that moves along the lines (MoveIt's
            ``link_offset``; default: the link frame).
        precision: How straight each step must be.
        jump_threshold: Joint-space jump limits (ours, CP1).
        validity: Vetoes configurations (collision, path constraints).
        ik_options: IK settings (default: the solver's).
        timeout: IK timeout per pose [s] (default: the group's).
        stop: Set from another thread to end the path at the next IK call (``IKRequest.stop``).
        cache: The IK problems' cache (``solve_ik``); ``None``: the process's default one.

    Returns:
        The path (start first), the fraction reached and why it ended early.

    Raises:
        UnknownNameError: Unknown group or link.
        InvalidArgumentError: ``max_step <= 0`` (MoveIt's service: FAILURE), malformed poses
            or start.
    """
    g = model.group(group)
    tip = link or g.tip_link
    if not tip:
        raise InvalidArgumentError(f"compute_cartesian_path: group '{group}' has no tip link; "
                                   'name the link')
    li = model.link_index(tip)
    if not (isinstance(max_step, int | float) and math.isfinite(max_step) and max_step > 0):
        raise InvalidArgumentError(f'compute_cartesian_path: max_step must be > 0, got '
                                   f'{max_step!r} (MoveIt answers FAILURE)')
    rot_step = 3.5 * max_step if max_rotation_step is None else float(max_rotation_step)
    q0 = np.array(start, dtype=np.float64)
    if q0.shape != (model.nq,) or not np.isfinite(q0).all():
        raise InvalidArgumentError(f'compute_cartesian_path: start must be ({model.nq},) finite '
                                   f'positions, got shape {q0.shape}')
    targets = [as_pose(X, 'compute_cartesian_path', f'waypoint {k}')
               for k, X in enumerate(waypoints)]
    if not targets:
        return CartesianPathResult(q0[None].copy(), 0.0, 'no waypoints')
    X_LF = np.eye(4) if link_offset is None else as_pose(link_offset, 'compute_cartesian_path',
                                                          'link_offset')
    seg = _Segmenter(model, group, tip, li, X_LF, precision, validity, ik_options, timeout,
                     stop, cache)
    path: list[FloatArray] = [q0]
    fraction = 0.0
    message = ''
    for k, X in enumerate(targets):
        q_start = path[-1]
        target = X if global_frame else seg.fk(q_start) @ X
        states, reached, why = seg.segment(q_start, target, max_step, rot_step)
        path.extend(states[1:])
        if reached >= 1.0 - 1e-15 and not why:
            fraction = (k + 1) / len(targets)
            continue
        fraction += reached / len(targets)
        message = f'waypoint {k}: {why}'
        break
    out, kept = check_joint_space_jump(model, group, np.array(path), jump_threshold)
    if kept < 1.0:
        fraction *= kept
        message = f'joint-space jump after state {len(out) - 1} (jump threshold)'
    return CartesianPathResult(out, float(fraction), message)


def check_joint_space_jump(model: RobotModel, group: str, path: ArrayLike,
                           threshold: JumpThreshold) -> tuple[FloatArray, float]:
    """Cut a path before its first joint-space jump (MoveIt 2.10 ``checkJointSpaceJump``).

    With ``relative_factor`` a step (the group's joint distance, MoveIt's
    ``RobotState::distance``) longer than that factor times the mean step is a jump; else with
    ``revolute`` / ``prismatic`` a step moving one such joint of the group farther is one.

    Args:
        model: The robot model.
        group: The group whose joints are compared.
        path: ``(K, nq)`` configurations.
        threshold: The limits (all 0: no check).

    Returns:
        ``(kept, share)``: the states before the first jump and ``len(kept) / K`` (1 when
        there is no jump), the factor MoveIt multiplies the path's fraction by.

    Raises:
        UnknownNameError: Unknown group.
        InvalidArgumentError: ``path`` is not ``(K, nq)``.
    """
    q = np.asarray(path, dtype=np.float64)
    if q.ndim != 2 or q.shape[1] != model.nq:
        raise InvalidArgumentError(f'check_joint_space_jump: path must be (K, {model.nq}), got '
                                   f'{q.shape}')
    cut = _jump_index(model, group, q, threshold)
    if cut is None:
        return q, 1.0
    return q[:cut], cut / len(q)
