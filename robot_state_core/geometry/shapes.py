"""Frozen shape specifications, independent of any collision backend.

Sizes are full lengths, never half-extents: ``Box(x, y, z)`` edge lengths [m];
``Cylinder``/``Capsule``/``Cone`` have ``radius`` and ``length`` along their local z axis, centred
at the origin (URDF and fcl convention). ``Sphere.radius`` and the ``Ellipsoid`` semi-axes ``a, b,
c`` are radii (Drake and fcl convention). ``Mesh`` keeps the URI as written in the description
and, when resolved, the local file path.

Every shape validates its numbers when constructed, so no unusable shape exists anywhere
(loaders, planning scenes, attached bodies, the geometry registry): a size must be a finite
number in ``[0, MAX_COORDINATE]`` m (zero is legal URDF and gives a degenerate shape;
negative, NaN, infinite and absurdly large sizes raise
:class:`~robot_state_core.errors.InvalidArgumentError`), and a mesh scale must be three finite
factors of magnitude at most ``MAX_COORDINATE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
import os

import numpy as np

from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.spatial.transforms import MAX_COORDINATE


def _check_lengths(shape: object, *names: str) -> None:
    """Each named field of ``shape`` is a finite length in ``[0, MAX_COORDINATE]`` [m]."""
    for name in names:
        value = getattr(shape, name)
        if isinstance(value, bool | np.bool_) or not isinstance(
                value, int | float | np.integer | np.floating):
            raise InvalidTypeError(f'{type(shape).__name__}: {name} must be a number, got '
                                   f'{value!r}')
        if not 0.0 <= float(value) <= MAX_COORDINATE:
            raise InvalidArgumentError(
                f'{type(shape).__name__}: {name} must be a finite length in [0, '
                f'{MAX_COORDINATE:g}] m, got {value!r}'
                + (' (sizes are full lengths and cannot be negative)' if value < 0 else ''))


def _check_mesh(shape: Mesh | Convex) -> None:
    """A str (or path) URI and problem, and three finite scale factors (<= MAX_COORDINATE)."""
    kind = type(shape).__name__
    if not isinstance(shape.uri, str | os.PathLike):
        raise InvalidTypeError(f'{kind}: uri must be a str, got {shape.uri!r}')
    if shape.path is not None and not isinstance(shape.path, str | os.PathLike):
        raise InvalidTypeError(f'{kind}: path must be a str or None, got {shape.path!r}')
    if shape.problem is not None and not isinstance(shape.problem, str):
        raise InvalidTypeError(f'{kind}: problem must be a str or None, got {shape.problem!r}')
    try:
        scale = [float(s) for s in shape.scale]
    except (TypeError, ValueError) as err:
        raise InvalidTypeError(f'{kind}: scale must be three numbers, got '
                               f'{shape.scale!r}') from err
    if len(scale) != 3 or not all(math.isfinite(s) and abs(s) <= MAX_COORDINATE
                                  for s in scale):
        raise InvalidArgumentError(f'{kind}: scale must be three finite factors of magnitude '
                                   f'<= {MAX_COORDINATE:g}, got {shape.scale!r}')


@dataclass(frozen=True, slots=True)
class Box:
    """Axis-aligned box centred at the origin; ``x, y, z`` are full edge lengths [m]."""

    x: float
    y: float
    z: float

    def __post_init__(self) -> None:
        _check_lengths(self, 'x', 'y', 'z')


@dataclass(frozen=True, slots=True)
class Sphere:
    """Sphere centred at the origin."""

    radius: float

    def __post_init__(self) -> None:
        _check_lengths(self, 'radius')


@dataclass(frozen=True, slots=True)
class Ellipsoid:
    """Solid ellipsoid ``(x/a)^2 + (y/b)^2 + (z/c)^2 <= 1`` centred at the origin (Drake's).

    Attributes:
        a: Semi-axis along x [m].
        b: Semi-axis along y [m].
        c: Semi-axis along z [m].
    """

    a: float
    b: float
    c: float

    def __post_init__(self) -> None:
        _check_lengths(self, 'a', 'b', 'c')
        if min(self.a, self.b, self.c) <= 0.0:  # Drake's rule (an ellipsoid is not URDF)
            raise InvalidArgumentError(
                f'Ellipsoid: the semi-axes a, b and c must all be > 0, got ({self.a!r}, '
                f'{self.b!r}, {self.c!r})')


@dataclass(frozen=True, slots=True)
class Cylinder:
    """Cylinder along z, centred at the origin; ``length`` is the full height [m]."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        _check_lengths(self, 'radius', 'length')


@dataclass(frozen=True, slots=True)
class Capsule:
    """Capsule along z (cylinder of ``length`` plus hemispherical caps), centred at origin."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        _check_lengths(self, 'radius', 'length')


@dataclass(frozen=True, slots=True)
class Cone:
    """Cone along z, centred at the origin (fcl convention), base radius ``radius``."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        _check_lengths(self, 'radius', 'length')


@dataclass(frozen=True, slots=True)
class HalfSpace:
    """The half-space ``z <= 0`` of the geometry frame (its boundary plane is z = 0)."""


@dataclass(frozen=True, slots=True)
class Mesh:
    """A triangle mesh file.

    Attributes:
        uri: The filename as written in the description (``package://``, ``file://`` or a path).
        scale: Per-axis scale factors applied to the vertices.
        path: The resolved local file, or ``None`` when not (yet) resolved.
        problem: Why ``path`` is ``None`` as the loader found it (e.g. ``file /ws/pkg/a.stl
            does not exist (package 'pkg' found at /ws/pkg)``), or ``None``. Not compared:
            it tells how the shape was loaded, not what it is.
    """

    uri: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    path: str | None = None
    problem: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        _check_mesh(self)


@dataclass(frozen=True, slots=True)
class Convex:
    """The convex hull of a mesh file (same fields as :class:`Mesh`)."""

    uri: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    path: str | None = None
    problem: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        _check_mesh(self)


Shape = Box | Sphere | Ellipsoid | Cylinder | Capsule | Cone | HalfSpace | Mesh | Convex
