"""The IK API types: request, options, result and status (MoveIt ``setFromIK`` semantics).

:func:`~robot_state_core.ik.solver.solve_ik` takes an :class:`IKRequest` (tips, targets in the
model frame, seed, options, validity callback) and returns an :class:`IKResult`; expected
failures are statuses, never exceptions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import enum
import threading

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import as_finite_float, FloatArray
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError

__all__ = ['IKOptions', 'IKRequest', 'IKResult', 'IKStatus', 'ValidityCallback']


ValidityCallback = Callable[[FloatArray], bool]
'''``fn(q) -> bool`` on a full ``(nq,)`` candidate configuration; False vetoes it (RS-77).'''


class IKStatus(enum.Enum):
    """Outcome of an IK query.

    Attributes:
        SUCCESS: ``q`` reaches every target within the tolerances, respects the position
            bounds and was accepted by the validity callback.
        NO_SOLUTION: The search ended without a valid solution after finding candidates that
            the validity callback vetoed, or after ``max_iterations`` iterations.
        TIMED_OUT: The timeout expired before any candidate reached the tolerances.
        INVALID_REQUEST: The request is malformed (see ``IKResult.message``); nothing was
            solved.
    """

    SUCCESS = 'success'
    NO_SOLUTION = 'no_solution'
    TIMED_OUT = 'timed_out'
    INVALID_REQUEST = 'invalid_request'


@dataclass(frozen=True)
class IKOptions:
    """Solver settings (MoveIt's ``KinematicsQueryOptions`` plus the numerical knobs).

    Attributes:
        position_tolerance: Largest accepted tip position error [m] (every tip).
        orientation_tolerance: Largest accepted tip rotation error [rad] (every tip; ignored
            when ``position_only``).
        position_only: Solve for the tip positions only (3 rows per tip).
        num_seeds: Configurations iterated together as one array (the seed plus random
            restarts). More seeds cost more per iteration but find a basin sooner.
        damping: Levenberg-Marquardt damping gain: ``λ = damping · |e|² + 1e-9`` with ``e`` in
            m and rad (Sugihara's error-proportional damping).
        max_step: Largest change of one velocity variable per iteration [rad or m]; each
            component of a step is clipped to it.
        random_seed: Seed of the restart sampler: equal requests with equal seeds give equal
            results (unless the timeout cuts a search short). ``None``: a free-running
            generator, so results vary between calls.
        return_approximate: On failure return the configuration with the smallest error found
            instead of the seed (MoveIt's ``return_approximate_solution``).
        max_iterations: Optional cap on the number of iterations (each advances every row);
            reaching it ends the search with NO_SOLUTION. ``None``: only the timeout counts.
        restart_iterations: Iterations after which a row that has not converged restarts from
            a new sample.
        stall_iterations: Consecutive iterations without a 1 % error decrease after which a
            row restarts.
        ranked_restarts: The rows after the seed and every restart start from a pool of
            uniform samples ranked by their tip error (closest to the targets first), drawn
            for single requests from the problem's cached table of 2 048 samples with known
            tip poses. ``False``: they start from fresh uniform samples in the order drawn,
            and no table is built or read (random restarts as in KDL / TRAC-IK; with
            ``num_seeds=1`` the search iterates the seed alone until it stalls).
    """

    position_tolerance: float = 1e-5
    orientation_tolerance: float = 1e-4
    position_only: bool = False
    num_seeds: int = 8
    damping: float = 0.05
    max_step: float = 1.0
    random_seed: int | None = None
    return_approximate: bool = False
    max_iterations: int | None = None
    restart_iterations: int = 40
    stall_iterations: int = 3
    ranked_restarts: bool = True

    def __post_init__(self) -> None:
        """Validate the settings.

        Raises:
            InvalidArgumentError: A tolerance, gain or count is out of range.
            InvalidTypeError: A setting has the wrong type (e.g. ``None`` for a tolerance, a
                float for a count).
        """
        for name in ('position_tolerance', 'orientation_tolerance', 'max_step'):
            value = as_finite_float(getattr(self, name), 'IKOptions', name)
            if not value > 0.0:
                raise InvalidArgumentError(f'IKOptions: {name} must be finite and > 0, got '
                                           f'{getattr(self, name)!r}')
        if not as_finite_float(self.damping, 'IKOptions', 'damping') >= 0.0:
            raise InvalidArgumentError(f'IKOptions: damping must be finite and >= 0, got '
                                       f'{self.damping!r}')
        for name in ('position_only', 'return_approximate', 'ranked_restarts'):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise InvalidTypeError(f'IKOptions: {name} must be a bool, got '
                                       f'{getattr(self, name)!r}')
        counts = ['num_seeds', 'restart_iterations', 'stall_iterations']
        counts += ['max_iterations'] if self.max_iterations is not None else []
        for name in counts:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise InvalidTypeError(f'IKOptions: {name} must be an int, got {value!r}')
            if value < 1:
                raise InvalidArgumentError(f'IKOptions: {name} must be >= 1'
                                           + (' or None' if name == 'max_iterations' else '')
                                           + f', got {value!r}')
        if self.random_seed is not None and (isinstance(self.random_seed, bool) or
                                             not isinstance(self.random_seed, int | np.integer)):
            raise InvalidTypeError(f'IKOptions: random_seed must be an int or None, got '
                                   f'{self.random_seed!r}')


DEFAULT_OPTIONS = IKOptions()
'''The default settings, one shared (frozen) instance: validating them costs ~10 µs per request.'''


@dataclass(frozen=True, eq=False)
class IKRequest:
    """One IK query (RS-70..RS-73, RS-76, RS-77).

    Requests hold arrays, so they compare (and hash) by identity.

    Attributes:
        group: Joint model group whose active variables are solved for.
        targets: ``X_WT`` per tip, each ``(4, 4)``: the desired pose of the tip link in the
            model frame W [m].
        tip_links: Tip link names, one per target; ``()`` means the group's ``tip_link`` (then
            ``targets`` must hold exactly one pose). A tip may be any link that the group's
            active variables move (links rigidly attached to the chain tip included).
        seed: ``(nq,)`` starting configuration (model variable order). Variables outside the
            group keep these values. ``None``: the model's default positions.
        timeout: Wall-clock budget [s]; ``None`` or ``<= 0`` means the group's
            ``default_ik_timeout``.
        options: Solver settings.
        validity_callback: ``fn(q) -> bool`` on a full ``(nq,)`` candidate; False vetoes it
            and the search continues.
        stop: Set from another thread to end the search early: it returns at its next clock
            reading (after at most one burst of iterations, ~1 ms) with ``TIMED_OUT`` and a
            message saying so. Nodes use it to end a long solve when they shut down.
    """

    group: str
    targets: tuple[ArrayLike, ...]
    tip_links: tuple[str, ...] = ()
    seed: ArrayLike | None = None
    timeout: float | None = None
    options: IKOptions = DEFAULT_OPTIONS
    validity_callback: ValidityCallback | None = None
    stop: threading.Event | None = None


@dataclass(frozen=True, eq=False)
class IKResult:
    """Outcome of one IK query (compared and hashed by identity: it holds an array).

    Attributes:
        status: See :class:`IKStatus`.
        q: ``(nq,)`` configuration: the solution on SUCCESS; otherwise the best configuration
            found when ``return_approximate`` is set, else the (bounds-clipped) seed.
        position_error: Largest tip position error [m] of the best configuration found (the
            solution on SUCCESS); ``inf`` when nothing was evaluated.
        rotation_error: Largest tip rotation error [rad] of that configuration (0 when
            position-only); ``inf`` when nothing was evaluated.
        iterations: Iterations run (each advances every seed of the search by one step).
        elapsed: Wall-clock time spent in the call [s].
        seeds_tried: Starting configurations used (the seed plus the random restarts).
        message: Why the request is invalid, or a short note on a failure; ``''`` on success.
    """

    status: IKStatus
    q: FloatArray
    position_error: float
    rotation_error: float
    iterations: int
    elapsed: float
    seeds_tried: int
    message: str = ''

    @property
    def success(self) -> bool:
        """Whether ``status`` is SUCCESS."""
        return self.status is IKStatus.SUCCESS


# ------------------------------------------------------------------------------ compiled kernel
