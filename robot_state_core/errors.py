"""Exception hierarchy of robot_state_core.

Programmer errors and malformed input raise these typed exceptions; expected outcomes (an IK
request without a solution, a state in collision) are result values, never exceptions
(design study B7). Every exception derives from :class:`RobotStateCoreError`, so callers that
must never crash (ROS callbacks) can catch one type.

Exception chaining (one rule for every ``raise`` inside an ``except`` handler; checked over the
package by ``test/test_exception_chaining.py``):

1. **Translate with** ``from err``. A caught exception (``OSError``, a trimesh, lxml or xacro
   error, numpy's ``ValueError``, one of ours from a lower layer) becomes one of the typed errors
   below, and ``raise TypedError(...) from err`` keeps it as ``__cause__`` for debugging. The
   message still names the element on its own; the cause is never the only place a reason is.
2. ``from None`` **only for a failed probe**: a lookup, comparison or conversion whose failure
   the new error says completely (a dict lookup's ``KeyError`` turned into
   :class:`UnknownNameError`, ``float(text)``'s ``ValueError`` into a ``UrdfLoadError`` naming
   the attribute and the text). Such a handler catches only ``KeyError``, ``IndexError``,
   ``LookupError``, ``TypeError`` or ``ValueError`` and binds no name: if the handler needs to
   read the exception, the exception carries information, and rule 1 applies.
3. **Never implicit.** Every new exception raised in a handler says its cause (rule 1 or 2); the
   implicit "during handling of the above exception, another exception occurred" reads as a bug
   in the handler.
4. **Re-raise unchanged with a bare** ``raise`` (clean-up-and-re-raise, or a filter that lets
   some exceptions through); ``raise err`` of the caught exception is written ``raise``.
5. Inside a handler we raise our typed errors (a :class:`RobotStateCoreError` subclass), never a
   builtin exception class.
"""

from __future__ import annotations

from collections.abc import Iterable
import difflib


class RobotStateCoreError(Exception):
    """Base class of every exception raised by robot_state_core."""


class InvalidArgumentError(RobotStateCoreError, ValueError):
    """An argument has the wrong shape, is not finite, or is out of its documented range."""


class InvalidIndexError(InvalidArgumentError, IndexError):
    """An integer index (of a link, variable, collision body, ...) is out of range or negative.

    Negative indices are refused rather than counted from the end: ``-1`` is far more often a
    "not found" sentinel than a wish for the last link.
    """


class InvalidTypeError(InvalidArgumentError, TypeError):
    """An argument has the wrong type (``None`` for a name, a float for an index, ...)."""


class ModelError(RobotStateCoreError, ValueError):
    """A model is structurally unusable for kinematics (not a tree, unknown joint type, ...)."""


class ImmutableModelError(RobotStateCoreError, AttributeError):
    """An attribute of a compiled ``RobotModel`` was rebound or deleted (models are immutable).

    Derived per-model tables (FK, Jacobian and bounds plans) are compiled from the model's
    arrays once; rebinding e.g. ``joint_origins`` afterwards would make them disagree.
    """


class RobotDescriptionError(RobotStateCoreError):
    """A robot description (URDF or SRDF) could not be loaded."""


class XmlSecurityError(RobotDescriptionError):
    """An XML document uses a feature we refuse to process (DTD, entities, external access)."""


class UrdfLoadError(RobotDescriptionError):
    """A URDF document is malformed or inconsistent.

    Attributes:
        element: The URDF element the problem was found in (e.g. ``joint 'elbow'``), or ``''``.
        line: 1-based source line of that element when known, else ``None``.
        problems: Every problem collected while loading, in document order.
    """

    def __init__(self, message: str, *, element: str = '', line: int | None = None,
                 problems: Iterable[str] = ()) -> None:
        self.element = element
        self.line = line
        self.problems = tuple(problems)
        where = ''
        if element:
            where = f' (in {element}' + (f', line {line}' if line is not None else '') + ')'
        elif line is not None:
            where = f' (line {line})'
        super().__init__(message + where)


class XacroError(UrdfLoadError):
    """A xacro document could not be expanded to URDF (see :mod:`robot_state_core.io.xacro`).

    Attributes:
        file: The file the problem is in: the top-level file, an included file, or the file
            that defines the failing macro.
        line: 1-based line in ``file`` when known (always for XML syntax errors), else ``None``.
    """

    def __init__(self, message: str, *, file: str, line: int | None = None) -> None:
        self.file = file
        location = file + (f':{line}' if line is not None else '')
        super().__init__(f'xacro {location}: {message}')
        self.line = line


class SrdfLoadError(RobotDescriptionError):
    """An SRDF document is malformed or does not match its URDF."""


class SceneFileError(RobotStateCoreError, ValueError):
    """A ``.scene`` text (MoveIt's scene geometry format) is malformed.

    Attributes:
        line: The 1-based line the problem was found on (``None``: at the end of the text).
    """

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message if line is None else f'line {line}: {message}')
        self.line = line


class UnknownNameError(RobotStateCoreError, KeyError):
    """A link, joint, variable, group or frame name is not known to the model.

    The message lists the closest known names ("did you mean ...").

    Attributes:
        name: The name that was looked up.
        kind: What kind of name it is (``'link'``, ``'joint'``, ``'variable'``, ``'group'``, ...).
        suggestions: Up to three close matches among the known names.
    """

    def __init__(self, name: str, kind: str, known: Iterable[str] = ()) -> None:
        self.name = name
        self.kind = kind
        self.suggestions = tuple(difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
                                 if isinstance(name, str) else ())
        message = f'unknown {kind} name {name!r}'
        if self.suggestions:
            message += '; did you mean ' + ' or '.join(repr(s) for s in self.suggestions) + '?'
        super().__init__(message)

    def __str__(self) -> str:  # KeyError would otherwise wrap the message in quotes
        return str(self.args[0])


class SingularityError(RobotStateCoreError, ArithmeticError):
    """A map is undefined at, or too ill-conditioned near, a parameterization singularity.

    Raised by the rpy_floating velocity → q̇ maps when ``|cos(pitch)| < 1e-3``, i.e. near the
    gimbal lock at ``pitch = π/2 + kπ`` (seed §1.5). The message names the singularity, the
    offending values and the singularity-free alternative.

    Attributes:
        values: The offending coordinate values (for rpy_floating: the pitch angles, rad).
    """

    def __init__(self, message: str, *, values: Iterable[float] = ()) -> None:
        self.values = tuple(float(v) for v in values)
        super().__init__(message)


class GeometryRegistrationError(RobotStateCoreError, ValueError):
    """A rule of the Drake-style geometry registry was broken (seed S0, G-05..G-29, E20..E30).

    Raised for unknown source/frame/geometry ids, frames or geometries not owned by the calling
    source, duplicate names (within a source, or within a frame and role), role-assignment
    misuse (``NEW`` on an assigned role, ``REPLACE`` on a missing one or on perception),
    deformable geometry on a frame other than the world frame or with ``resolution_hint <= 0``,
    and duplicate or unknown renderer names. The message names the offending id or name and the
    rule.
    """


class ModelMismatchError(RobotStateCoreError, ValueError):
    """A state (or group) is combined with a state or model of another ``RobotModel``.

    States only combine with states of the same model *instance* (Drake's "a Context only with
    the System that created it"; design study B6): ``copy_from``, ``interpolate``,
    ``distance`` and the other two-state operations raise this otherwise.
    """


class StaleQueryObjectError(RobotStateCoreError, RuntimeError):
    """A ``QueryObject`` was used after the fcl objects it reads were posed for another state.

    The snapshots :meth:`PlanningScene.query_object` and :meth:`QueryObject.from_scene_graph`
    return own their objects and never go stale; a snapshot built over shared objects raises
    this instead of answering for poses it was not made for.
    """


class BackendUnavailableError(RobotStateCoreError, ImportError):
    """An optional backend (python-fcl for collision queries) is not installed.

    Raised when a collision or distance query is *asked*, never at import or model-load time,
    so loading descriptions and kinematics work without the backend (design study B7).
    """
