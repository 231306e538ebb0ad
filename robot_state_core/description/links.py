"""Links and their elements: visuals, collisions, inertial, materials (SG-C1..SG-C5).

Origins are ``X_LE`` (4, 4): the element frame E measured in the link frame L.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import get_args

import numpy as np

from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.geometry.shapes import Shape
from robot_state_core.spatial.transforms import as_pose, FloatArray


@dataclass(eq=False, slots=True)
class Material:
    """A named material (SG-C4): RGBA colour in [0, 1] and/or a texture file."""

    name: str = ''
    color: tuple[float, float, float, float] | None = None
    texture_filename: str | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Material):
            return NotImplemented
        return (self.name, self.color, self.texture_filename) == (
            other.name, other.color, other.texture_filename)

    __hash__ = None  # type: ignore[assignment]




_SHAPE_TYPES: tuple[type, ...] = get_args(Shape)


def _check_geometry(element: Visual | Collision) -> None:
    if not isinstance(element.geometry, _SHAPE_TYPES):
        raise InvalidTypeError(f'{type(element).__name__}: geometry must be a shape, got '
                               f'{element.geometry!r}')


@dataclass(eq=False, slots=True)
class Visual:
    """A visual element (SG-C2): ``geometry`` at ``origin`` (``X_LV``) with a material."""

    geometry: Shape
    origin: FloatArray = field(default_factory=lambda: np.eye(4))
    material: Material | None = None
    name: str = ''

    def __post_init__(self) -> None:
        _check_geometry(self)
        self.origin = as_pose(self.origin, type(self).__name__, 'origin')

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Visual):
            return NotImplemented
        return (self.geometry == other.geometry and np.array_equal(self.origin, other.origin)
                and self.material == other.material and self.name == other.name)

    __hash__ = None  # type: ignore[assignment]


@dataclass(eq=False, slots=True)
class Collision:
    """A collision element (SG-C3): ``geometry`` at ``origin`` (``X_LG``)."""

    geometry: Shape
    origin: FloatArray = field(default_factory=lambda: np.eye(4))
    name: str = ''

    def __post_init__(self) -> None:
        _check_geometry(self)
        self.origin = as_pose(self.origin, type(self).__name__, 'origin')

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Collision):
            return NotImplemented
        return (self.geometry == other.geometry and np.array_equal(self.origin, other.origin)
                and self.name == other.name)

    __hash__ = None  # type: ignore[assignment]


@dataclass(eq=False, slots=True)
class Inertial:
    """Mass properties (SG-C5): ``origin`` is ``X_LI`` (centre of mass frame), inertia about it.

    Attributes:
        mass: Mass [kg].
        ixx: Inertia tensor entries [kg·m²] in the inertial frame (and ixy, ixz, iyy, iyz, izz).
    """

    origin: FloatArray = field(default_factory=lambda: np.eye(4))
    mass: float = 0.0
    ixx: float = 0.0
    ixy: float = 0.0
    ixz: float = 0.0
    iyy: float = 0.0
    iyz: float = 0.0
    izz: float = 0.0

    def __post_init__(self) -> None:
        self.origin = as_pose(self.origin, type(self).__name__, 'origin')
        if not math.isfinite(self.mass) or self.mass < 0:
            raise InvalidArgumentError(f'mass must be finite and non-negative, got {self.mass}')

    def inertia_matrix(self) -> FloatArray:
        """The (3, 3) symmetric inertia tensor [kg·m²] about the centre of mass."""
        return np.array([[self.ixx, self.ixy, self.ixz], [self.ixy, self.iyy, self.iyz],
                         [self.ixz, self.iyz, self.izz]])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Inertial):
            return NotImplemented
        return (np.array_equal(self.origin, other.origin) and np.array_equal(
            self.inertia_matrix(), other.inertia_matrix()) and self.mass == other.mass)

    __hash__ = None  # type: ignore[assignment]


@dataclass(eq=False, slots=True)
class Link:
    """A link of the scene graph (SG-C1).

    Attributes:
        name: Unique link name.
        visuals: Visual elements (tesseract ``visual``).
        collisions: Collision elements (tesseract ``collision``).
        inertial: Mass properties, or ``None``.
    """

    name: str
    visuals: list[Visual] = field(default_factory=list)
    collisions: list[Collision] = field(default_factory=list)
    inertial: Inertial | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InvalidTypeError(f'Link: name must be a str, got {self.name!r}')

    def clone(self) -> Link:
        """A deep copy (elements are copied; shapes are immutable and shared)."""
        return Link(
            self.name,
            [Visual(v.geometry, v.origin.copy(), None if v.material is None else Material(
                v.material.name, v.material.color, v.material.texture_filename), v.name)
             for v in self.visuals],
            [Collision(c.geometry, c.origin.copy(), c.name) for c in self.collisions],
            None if self.inertial is None else Inertial(
                self.inertial.origin.copy(), self.inertial.mass, self.inertial.ixx,
                self.inertial.ixy, self.inertial.ixz, self.inertial.iyy, self.inertial.iyz,
                self.inertial.izz))

    def renamed(self, name: str) -> Link:
        """A deep copy with another name."""
        copy = self.clone()
        copy.name = name
        return copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Link):
            return NotImplemented
        return (self.name == other.name and self.visuals == other.visuals
                and self.collisions == other.collisions and self.inertial == other.inertial)

    __hash__ = None  # type: ignore[assignment]
