"""Frozen shape specifications, independent of any collision backend.

Sizes are full lengths, never half-extents: ``Box(x, y, z)`` edge lengths [m];
``Cylinder``/``Capsule``/``Cone`` have ``radius`` and ``length`` along their local z axis, centred
at the origin (URDF and fcl convention). ``Mesh`` keeps the URI as written in the description
and, when resolved, the local file path.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Box:
    """Axis-aligned box centred at the origin; ``x, y, z`` are full edge lengths [m]."""

    x: float
    y: float
    z: float


@dataclass(frozen=True, slots=True)
class Sphere:
    """Sphere centred at the origin."""

    radius: float


@dataclass(frozen=True, slots=True)
class Cylinder:
    """Cylinder along z, centred at the origin; ``length`` is the full height [m]."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Capsule:
    """Capsule along z (cylinder of ``length`` plus hemispherical caps), centred at origin."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Cone:
    """Cone along z, centred at the origin (fcl convention), base radius ``radius``."""

    radius: float
    length: float


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
    """

    uri: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Convex:
    """The convex hull of a mesh file (same fields as :class:`Mesh`)."""

    uri: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    path: str | None = None


Shape = Box | Sphere | Cylinder | Capsule | Cone | HalfSpace | Mesh | Convex
