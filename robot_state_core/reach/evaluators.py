"""REACH's evaluators: the score of an IK solution of a reach study (no ROS).

ROS-Industrial REACH scores each solution with an evaluator plugin. The formulas are ported
from the newest public sources (ROS 2 plugins ``ros-industrial/reach_ros2``, core
``ros-industrial/reach``):

* :func:`manipulability`: ``src/evaluation/manipulability_moveit.cpp`` (reach_ros2 commit
  ``1803c13a``): ``ManipulabilityMoveIt`` (product of the Jacobian's singular values,
  Yoshikawa), ``ManipulabilityRatioMoveIt`` (smallest over largest singular value) and
  ``ManipulabilityScaledMoveIt`` (the product over :func:`characteristic_length`), each over
  the rows ``jacobian_row_subset``.
* :func:`joint_limit_penalty`: ``src/evaluation/joint_penalty_moveit.cpp`` (reach_ros2
  ``acdf4c5a``).
* :func:`distance_penalty`: ``src/evaluation/distance_penalty_moveit.cpp`` (reach_ros2
  ``03503622``, "Updated distance penalty to cap at 1.0", reach_ros2 1.1.0).
* :func:`product`: ``src/plugins/multiplicative_evaluator.cpp`` (reach ``33835a13``).

The free functions work on arrays (a batch of Jacobians, configurations or distances); the
frozen evaluators (:class:`Manipulability`, :class:`JointLimitPenalty`,
:class:`DistancePenalty`, :class:`Multiplicative`) score one configuration of a study through
an :class:`EvalContext` and follow the :class:`Evaluator` protocol::

    ctx = EvalContext(model, scene, 'arm', 'tool0')
    evaluator = Multiplicative((Manipulability(), JointLimitPenalty()))
    evaluator.score(ctx, q)  # q: (nq,) positions of the model, or a RobotState

Like REACH's plugins, every evaluator reads the configuration into a new state of the model (a
:class:`Multiplicative` makes one state and hands it to its evaluators).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from numbers import Integral, Real
from typing import get_args, Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.description.joints import JointType
from robot_state_core.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    ModelError,
    ModelMismatchError,
    UnknownNameError,
)
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    BodyType,
    DistanceRequest,
    DistanceRequestType,
    PlanningScene,
)
from robot_state_core.state.robot_state import RobotState

__all__ = ['ALL_ROWS', 'TRANSLATION_ROWS', 'DistancePenalty', 'EvalContext', 'Evaluator',
           'JointLimitPenalty', 'Manipulability', 'ManipulabilityKind', 'Multiplicative',
           'characteristic_length', 'distance_penalty', 'group_position_bounds',
           'jacobian_rows', 'joint_limit_penalty', 'manipulability', 'product',
           'world_distance']

ManipulabilityKind = Literal['yoshikawa', 'ratio', 'scaled']
'''``'yoshikawa'`` (REACH ``ManipulabilityMoveIt``), ``'ratio'`` (``ManipulabilityRatioMoveIt``)
or ``'scaled'`` (``ManipulabilityScaledMoveIt``).'''

ALL_ROWS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
'''Every Jacobian row, ``[v; ω]`` (REACH's default ``jacobian_row_subset``).'''

TRANSLATION_ROWS: tuple[int, ...] = (0, 1, 2)
'''The linear-velocity rows of a ``(6, n)`` Jacobian.'''

_CHARACTERISTIC_LENGTH_EPS = float(np.finfo(np.float64).eps)
'''REACH refuses a characteristic length below ``std::numeric_limits<double>::epsilon()``.'''


# ---------------------------------------------------------------------- free functions


def jacobian_rows(rows: Sequence[int]) -> tuple[int, ...]:
    """REACH's ``jacobian_row_subset``: the distinct rows, sorted (REACH keeps a ``std::set``).

    Args:
        rows: Row indices of a ``(6, n)`` Jacobian ``[v; ω]``: 0-2 linear, 3-5 angular.

    Returns:
        The sorted distinct rows.

    Raises:
        InvalidArgumentError: ``rows`` is empty or a row is outside ``[0, 6)`` (REACH's two
            errors of ``getJacobianRowSubset``).
        InvalidTypeError: A row is not an integer.
    """
    if isinstance(rows, str | bytes) or not isinstance(rows, Sequence):
        raise InvalidTypeError(f'jacobian rows must be a sequence of ints, got {rows!r}')
    for row in rows:
        if not isinstance(row, Integral) or isinstance(row, bool):
            raise InvalidTypeError(f'jacobian rows must be ints, got {row!r}')
        if not 0 <= row < 6:
            raise InvalidArgumentError(f'jacobian row {row} is outside [0, 6)')
    if not rows:
        raise InvalidArgumentError('jacobian rows: the row subset is empty')
    return tuple(sorted({int(r) for r in rows}))


def manipulability(J: ArrayLike, kind: ManipulabilityKind = 'yoshikawa',
                   rows: Sequence[int] = ALL_ROWS,
                   characteristic_length: float | None = None) -> FloatArray:
    """REACH's manipulability scores of Jacobians, from their singular values.

    ``manipulability_moveit.cpp`` (reach_ros2 ``1803c13a``) takes the rows
    ``jacobian_row_subset`` of MoveIt's ``getJacobian`` and its singular values σ (Eigen
    ``JacobiSVD``: ``min(m, n)`` of them for ``m`` rows and ``n`` columns):

    * ``'yoshikawa'``: ``∏ σ``, which is ``sqrt(det(J Jᵀ))`` when ``m <= n`` (Yoshikawa's
      measure) but ``sqrt(det(Jᵀ J))`` when the arm has fewer joints than rows;
    * ``'ratio'``: ``σ_min / σ_max`` (0 for an all-zero Jacobian, where REACH divides 0 by 0);
    * ``'scaled'``: ``∏ σ / characteristic_length`` (:func:`characteristic_length`).

    Rotating the frame the rows are expressed in multiplies ``J`` on the left by
    ``diag(R, R)``, which keeps the singular values of the full rows and of the subsets
    ``(0, 1, 2)`` and ``(3, 4, 5)``; other subsets (e.g. ``(0, 1)``) depend on the frame,
    which in REACH is MoveIt's, the group's root link (as :meth:`RobotState.get_jacobian`).

    Args:
        J: ``(..., 6, n)`` Jacobians ``[v; ω]`` [m/rad or m/m, rad/rad or rad/m], ``n >= 1``.
        kind: The score.
        rows: The rows used (REACH ``jacobian_row_subset``; :func:`jacobian_rows`).
        characteristic_length: The length [m] dividing ``'scaled'``; only for that kind.

    Returns:
        ``(...)`` scores.

    Raises:
        InvalidArgumentError: Wrong shape, non-finite entries, unknown kind, bad rows, or a
            characteristic length missing for ``'scaled'``, given for another kind, or below
            machine epsilon (REACH: "The model must have a non-zero characteristic length").
    """
    if kind not in get_args(ManipulabilityKind):
        raise InvalidArgumentError(f'manipulability: unknown kind {kind!r} (one of '
                                   f'{get_args(ManipulabilityKind)})')
    if (characteristic_length is None) != (kind != 'scaled'):
        raise InvalidArgumentError('manipulability: characteristic_length is given with, and '
                                   "only with, kind='scaled'")
    jac = np.asarray(J, dtype=np.float64)
    if jac.ndim < 2 or jac.shape[-2] != 6 or jac.shape[-1] < 1:
        raise InvalidArgumentError(f'manipulability: J must be (..., 6, n) with n >= 1, got '
                                   f'shape {jac.shape}')
    if not np.all(np.isfinite(jac)):
        raise InvalidArgumentError('manipulability: J has non-finite entries')
    sigma = np.linalg.svd(jac[..., list(jacobian_rows(rows)), :], compute_uv=False)
    if kind == 'ratio':  # numpy's singular values are sorted, largest first
        largest, smallest = sigma[..., 0], sigma[..., -1]
        ratio: FloatArray = np.divide(smallest, largest, out=np.zeros_like(largest),
                                      where=largest > 0.0)
        return ratio
    score: FloatArray = np.prod(sigma, axis=-1)
    if characteristic_length is None:
        return score
    if not math.isfinite(characteristic_length) \
            or abs(characteristic_length) < _CHARACTERISTIC_LENGTH_EPS:
        raise InvalidArgumentError(f'manipulability: the characteristic length must be finite '
                                   f'and non-zero, got {characteristic_length!r}')
    scaled: FloatArray = score / characteristic_length
    return scaled


def characteristic_length(model: RobotModel, group: str, tip: str,
                          excluded_links: Sequence[str] = ()) -> float:
    """REACH's characteristic length of a group (``calculateCharacteristicLength``) [m].

    ``manipulability_moveit.cpp`` (reach_ros2 ``1803c13a``), at the model's default positions:
    for every active joint of the group but the last whose child link is not in
    ``excluded_links``, the length of the translation of its motion transform (prismatic
    joints set to their upper bound; 0 for revolute joints) plus the length of its origin's
    translation; then, from the last active joint down to ``tip``, the lengths of the origins'
    translations of that joint and of the fixed joints after it. As in REACH, the last active
    joint is neither excluded nor extended.

    Args:
        model: The model.
        group: The group.
        tip: The tool frame (REACH: the IK solver's tip frame), a link at or below the child
            of the group's last active joint.
        excluded_links: Child links whose joints are skipped (REACH ``excluded_links``).

    Returns:
        The length [m].

    Raises:
        UnknownNameError: Unknown group or link.
        InvalidArgumentError: The group has no active joint.
        ModelError: Between the last active joint and ``tip`` a link has several child joints
            or a non-fixed one, or ``tip`` is not below it (REACH's two errors).
    """
    g = model.group(group)
    tip_index = model.link_index(tip)
    active = [int(j) for j in g.active_joint_indices]
    if not active:
        raise InvalidArgumentError(f'characteristic_length: group {group!r} has no active joint')
    excluded = set(excluded_links)
    state = RobotState(model)
    origins = np.asarray(model.joint_origins)
    length = 0.0
    for j in active[:-1]:
        if model.link_names[int(model.joint_child_link[j])] in excluded:
            continue
        name = model.joint_names[j]
        if model.joint_types[j] is JointType.PRISMATIC:
            state.set_variable_position(name, float(model.variable_upper[model.joint_q_start[j]]))
        length += float(np.linalg.norm(state.get_joint_pose(name)[:3, 3]))
        length += float(np.linalg.norm(origins[j, :3, 3]))
    parents = np.asarray(model.joint_parent_link)
    j = active[-1]
    while True:
        length += float(np.linalg.norm(origins[j, :3, 3]))
        child = int(model.joint_child_link[j])
        if child == tip_index:
            return length
        after = np.flatnonzero(parents == child)
        if after.size != 1:
            raise ModelError(f'characteristic_length: link {model.link_names[child]!r} has '
                             f'{after.size} child joints between the last active joint of '
                             f'{group!r} and {tip!r} (REACH supports one fixed joint per link)')
        j = int(after[0])
        if model.joint_types[j] is not JointType.FIXED:
            raise ModelError(f'characteristic_length: joint {model.joint_names[j]!r} after the '
                             f'last active joint of {group!r} is not fixed (unsupported by '
                             'REACH)')


def joint_limit_penalty(q: ArrayLike, lower: ArrayLike, upper: ArrayLike) -> FloatArray:
    """REACH's joint penalty: the mean over the joints of ``4 (q - l)(u - q) / (u - l)²``.

    ``joint_penalty_moveit.cpp`` (reach_ros2 ``acdf4c5a``). Each term is 1 in the middle of
    the range, 0 at a bound and negative beyond it (REACH does not clamp). A joint with an
    infinite bound (continuous, or one-sided) scores 1 here; REACH reads MoveIt's bounds, which
    for a continuous joint are ``[-π, π]`` (so it would score ``1 - q²/π²``), and would divide
    infinities for a truly unbounded one (NaN).

    Args:
        q: ``(..., n)`` positions [rad or m], ``n >= 1``.
        lower: ``(n,)`` (or broadcastable) lower bounds, ``-inf`` when unbounded.
        upper: ``(n,)`` (or broadcastable) upper bounds, ``inf`` when unbounded.

    Returns:
        ``(...)`` penalties (1 best).

    Raises:
        InvalidArgumentError: Shapes that do not broadcast, no joint, NaN, or a finite range
            with ``upper <= lower``.
    """
    try:
        x, lo, hi = np.broadcast_arrays(np.asarray(q, dtype=np.float64),
                                        np.asarray(lower, dtype=np.float64),
                                        np.asarray(upper, dtype=np.float64))
    except ValueError:
        raise InvalidArgumentError(f'joint_limit_penalty: shapes {np.shape(q)}, '
                                   f'{np.shape(lower)} and {np.shape(upper)} do not '
                                   'broadcast') from None
    if x.ndim == 0 or x.shape[-1] == 0:
        raise InvalidArgumentError(f'joint_limit_penalty: q must be (..., n) with n >= 1, got '
                                   f'shape {x.shape}')
    if np.any(np.isnan(x)) or np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
        raise InvalidArgumentError('joint_limit_penalty: NaN position or bound')
    bounded = np.isfinite(lo) & np.isfinite(hi)
    if np.any(bounded & ~(hi > lo)):
        raise InvalidArgumentError('joint_limit_penalty: a finite range has upper <= lower')
    lo, hi = np.where(bounded, lo, 0.0), np.where(bounded, hi, 1.0)
    terms = np.where(bounded, 4.0 * (x - lo) * (hi - x) / (hi - lo) ** 2, 1.0)
    penalty: FloatArray = np.mean(terms, axis=-1)
    return penalty


def distance_penalty(distance: ArrayLike, threshold: float, exponent: int) -> FloatArray:
    """REACH's distance penalty: ``min(|d / threshold|, 1) ** exponent``.

    ``distance_penalty_moveit.cpp`` (reach_ros2 ``03503622``). ``d`` is MoveIt's
    ``distanceToCollision`` of the robot. REACH's absolute value makes a penetration score
    like a clearance of the same size (-1 cm scores as +1 cm); that is kept. ``d = 0`` scores
    0 (1 with ``exponent = 0``), ``d >= threshold`` and ``d = inf`` (nothing to collide with)
    score 1.

    Args:
        distance: ``(...)`` signed distances [m] (negative: penetration depth).
        threshold: Distance [m] from which the score is 1 (REACH ``distance_threshold``);
            finite and > 0.
        exponent: Power of the score (REACH ``exponent``, an int); >= 0.

    Returns:
        ``(...)`` penalties in ``[0, 1]`` (NaN for a NaN distance).

    Raises:
        InvalidArgumentError: ``threshold`` not finite and > 0, or ``exponent`` < 0.
        InvalidTypeError: ``exponent`` is not an int.
    """
    _check_distance_parameters(threshold, exponent)
    d = np.asarray(distance, dtype=np.float64)
    penalty: FloatArray = np.minimum(np.abs(d / threshold), 1.0) ** int(exponent)
    return penalty


def product(scores: ArrayLike) -> FloatArray:
    """REACH's multiplicative evaluator: the product of the scores (1 for none).

    ``multiplicative_evaluator.cpp`` (reach ``33835a13``): ``score = 1; score *= each``.

    Args:
        scores: ``(k, ...)`` scores of ``k`` evaluators.

    Returns:
        ``(...)`` products.
    """
    out: FloatArray = np.prod(np.asarray(scores, dtype=np.float64), axis=0)
    return out


def group_position_bounds(model: RobotModel, group: str) -> tuple[FloatArray, FloatArray]:
    """The bounds of a group's active variables as REACH's joint penalty reads them.

    MoveIt's ``getActiveJointModelsBounds`` in group order, except that a variable without
    real position limits (``model.variable_bounded`` False: continuous joints) gets
    ``(-inf, inf)``, so :func:`joint_limit_penalty` scores it 1.

    Args:
        model: The model.
        group: The group.

    Returns:
        ``(lower, upper)``, each ``(n,)`` [rad or m] for the ``n`` active variables.

    Raises:
        UnknownNameError: Unknown group.
        InvalidArgumentError: An active joint has several variables (REACH: "Joint has more
            than one DOF; can't pull joint limits correctly").
    """
    g = model.group(group)
    for j in g.active_joint_indices:
        if int(model.joint_nq[j]) != 1:
            raise InvalidArgumentError(f'joint limit penalty: joint {model.joint_names[j]!r} '
                                       f'of group {group!r} has more than one variable')
    idx = g.active_variable_indices
    bounded = np.asarray(model.variable_bounded)[idx]
    lower = np.where(bounded, np.asarray(model.variable_lower)[idx], -np.inf)
    upper = np.where(bounded, np.asarray(model.variable_upper)[idx], np.inf)
    return lower, upper


def world_distance(scene: PlanningScene, state: RobotState, objects: Sequence[str] = (),
                   touch_links: Sequence[str] = ()) -> float:
    """Signed distance [m] of the robot to the world, as REACH's distance penalty measures it.

    MoveIt's ``PlanningScene::distanceToCollision(state, acm)``: the whole (padded) robot and
    its attached bodies against world objects, self-collision ignored; REACH's own scene holds
    only the part, with ``touch_links`` allowed to touch it. Here: against ``objects`` (every
    world object when empty), pairs of a ``touch_links`` body left out.

    Args:
        scene: The scene.
        state: The robot's state.
        objects: World object ids (the part); empty for all.
        touch_links: Robot links (or attached bodies) whose distance does not count.

    Returns:
        The distance [m], negative when penetrating; ``inf`` when no pair is checked.

    Raises:
        UnknownNameError: An id of ``objects`` is not a world object of the scene.
        ModelMismatchError: The state belongs to another model.
    """
    if not objects and not touch_links:
        return scene.distance_to_collision(state)
    world = scene.world
    for name in objects:
        if name not in world:
            raise UnknownNameError(name, 'world object', world)
    result = scene.distance_robot(state, DistanceRequest(type=DistanceRequestType.SINGLE))
    best = math.inf
    for entries in result.distances.values():
        for r in entries:
            k = 0 if r.body_types[0] is BodyType.WORLD_OBJECT else 1
            if (objects and r.link_names[k] not in objects) \
                    or r.link_names[1 - k] in touch_links:
                continue
            best = min(best, r.distance)
    return best


def _check_distance_parameters(threshold: float, exponent: int) -> None:
    if not isinstance(exponent, Integral) or isinstance(exponent, bool):
        raise InvalidTypeError(f'distance penalty: exponent must be an int, got {exponent!r}')
    if exponent < 0:
        raise InvalidArgumentError(f'distance penalty: exponent must be >= 0, got {exponent}')
    if isinstance(threshold, bool) or not (isinstance(threshold, Real)
                                           and math.isfinite(threshold) and threshold > 0.0):
        raise InvalidArgumentError(f'distance penalty: threshold must be finite and > 0 [m], '
                                   f'got {threshold!r}')


# ---------------------------------------------------------------------- evaluators


@dataclass(frozen=True)
class EvalContext:
    """What an evaluator scores a configuration in: a model, a scene, a group and its tip.

    Attributes:
        model: The robot model (the scene's).
        scene: The planning scene (world objects for :class:`DistancePenalty`).
        group: The group the study solves for.
        tip: The tool link of the study (REACH: the IK solver's tip frame).

    Raises:
        ModelMismatchError: The scene belongs to another model.
        UnknownNameError: Unknown group or tip link.
    """

    model: RobotModel
    scene: PlanningScene
    group: str
    tip: str

    def __post_init__(self) -> None:
        if self.scene.model is not self.model:
            raise ModelMismatchError('EvalContext: the scene belongs to another model')
        self.model.group(self.group)
        self.model.link_index(self.tip)


class Evaluator(Protocol):
    """Scores a solved configuration (REACH's ``reach::Evaluator::calculateScore``)."""

    def score(self, ctx: EvalContext, q: ArrayLike | RobotState) -> float:
        """The score of one configuration.

        Args:
            ctx: The model, scene, group and tip.
            q: ``(nq,)`` positions of the model [rad, m], or a state of ``ctx.model`` (read,
                never changed).

        Returns:
            The score (higher is better).
        """
        ...


def _state(ctx: EvalContext, q: ArrayLike | RobotState) -> RobotState:
    """``q`` itself when it is a state of the context's model, else a new state at ``q``."""
    if isinstance(q, RobotState):
        if q.robot_model is not ctx.model:
            raise ModelMismatchError('evaluator: the state belongs to another model')
        return q
    state = RobotState(ctx.model)
    state.set_variable_positions(q)
    return state


@dataclass(frozen=True)
class Manipulability:
    """REACH's manipulability evaluators: :func:`manipulability` of the group's Jacobian.

    REACH's ``ManipulabilityMoveIt``, ``ManipulabilityRatioMoveIt`` and
    ``ManipulabilityScaledMoveIt``.

    The Jacobian is MoveIt's ``getJacobian(group)``, as REACH takes it: the origin of the
    group's last link, rows in the group's root-link frame (:meth:`RobotState.get_jacobian`);
    the scaled kind divides by :func:`characteristic_length` down to ``ctx.tip``.

    Attributes:
        kind: Which score.
        rows: Jacobian rows used (REACH ``jacobian_row_subset``); stored sorted and distinct.
        excluded_links: For ``'scaled'`` only (REACH ``excluded_links``).

    Raises:
        InvalidArgumentError: Unknown kind, bad rows, or ``excluded_links`` for another kind.
    """

    kind: ManipulabilityKind = 'yoshikawa'
    rows: tuple[int, ...] = ALL_ROWS
    excluded_links: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in get_args(ManipulabilityKind):
            raise InvalidArgumentError(f'Manipulability: unknown kind {self.kind!r}')
        object.__setattr__(self, 'rows', jacobian_rows(self.rows))
        object.__setattr__(self, 'excluded_links', tuple(self.excluded_links))
        if self.excluded_links and self.kind != 'scaled':
            raise InvalidArgumentError("Manipulability: excluded_links is for kind='scaled'")

    def score(self, ctx: EvalContext, q: ArrayLike | RobotState) -> float:
        """The manipulability of ``q`` (see :class:`Evaluator`)."""
        J = _state(ctx, q).get_jacobian(ctx.group)
        length = (characteristic_length(ctx.model, ctx.group, ctx.tip, self.excluded_links)
                  if self.kind == 'scaled' else None)
        return float(manipulability(J, self.kind, self.rows, length))


@dataclass(frozen=True)
class JointLimitPenalty:
    """REACH's ``JointPenaltyMoveIt``: :func:`joint_limit_penalty` of the group's variables.

    Bounds from :func:`group_position_bounds` (continuous joints score 1).
    """

    def score(self, ctx: EvalContext, q: ArrayLike | RobotState) -> float:
        """The joint penalty of ``q`` (see :class:`Evaluator`)."""
        idx = ctx.model.group(ctx.group).active_variable_indices
        positions = _state(ctx, q).positions[idx]
        lower, upper = group_position_bounds(ctx.model, ctx.group)
        return float(joint_limit_penalty(positions, lower, upper))


@dataclass(frozen=True)
class DistancePenalty:
    """REACH's ``DistancePenaltyMoveIt``: :func:`distance_penalty` of :func:`world_distance`.

    Attributes:
        threshold: Distance [m] from which the score is 1 (REACH ``distance_threshold``).
        exponent: Power of the score (REACH ``exponent``).
        objects: World object ids measured against (REACH: its one collision mesh, the
            part); empty for every world object of the scene.
        touch_links: Links allowed to touch the objects (REACH ``touch_links``).

    Raises:
        InvalidArgumentError: ``threshold`` not finite and > 0, or ``exponent`` < 0.
        InvalidTypeError: ``exponent`` is not an int.
    """

    threshold: float
    exponent: int
    objects: tuple[str, ...] = ()
    touch_links: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_distance_parameters(self.threshold, self.exponent)
        object.__setattr__(self, 'threshold', float(self.threshold))
        object.__setattr__(self, 'exponent', int(self.exponent))
        object.__setattr__(self, 'objects', tuple(self.objects))
        object.__setattr__(self, 'touch_links', tuple(self.touch_links))

    def score(self, ctx: EvalContext, q: ArrayLike | RobotState) -> float:
        """The distance penalty of ``q`` (see :class:`Evaluator`)."""
        d = world_distance(ctx.scene, _state(ctx, q), self.objects, self.touch_links)
        return float(distance_penalty(d, self.threshold, self.exponent))


@dataclass(frozen=True)
class Multiplicative:
    """REACH's ``MultiplicativeEvaluator``: the :func:`product` of its evaluators' scores.

    Attributes:
        evaluators: The evaluators (at least one; REACH: "No valid plugins remain").

    Raises:
        InvalidArgumentError: No evaluator.
        InvalidTypeError: An element has no ``score`` method.
    """

    evaluators: tuple[Evaluator, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, 'evaluators', tuple(self.evaluators))
        if not self.evaluators:
            raise InvalidArgumentError('Multiplicative: no evaluator')
        for e in self.evaluators:
            if not callable(getattr(e, 'score', None)):
                raise InvalidTypeError(f'Multiplicative: {e!r} is not an evaluator')

    def score(self, ctx: EvalContext, q: ArrayLike | RobotState) -> float:
        """The product of the scores of ``q`` (see :class:`Evaluator`)."""
        state = _state(ctx, q)
        return float(product([e.score(ctx, state) for e in self.evaluators]))
