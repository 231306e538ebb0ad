"""Marker specifications for RViz, as plain data (the ROS layer turns them into MarkerArrays).

Conventions (RViz ``visualization_msgs/Marker``): every marker is expressed in its **link
frame** (``frame``), so RViz moves it with TF; ``X_FK`` is the marker pose in that frame;
``scale`` holds **full sizes** (box edge lengths; sphere and cylinder diameters, cylinder
height along z; an ellipsoid is a SPHERE with its three diameters); meshes keep their original
URI (``package://`` / ``file://``) and carry the mesh scale; colours are RGBA in [0, 1] with a
non-zero alpha. One namespace per link.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import enum

import numpy as np

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.shapes import module_of, Shape
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import FloatArray

#: Colour of elements without a material (RViz's default robot grey).
DEFAULT_RGBA = (0.7, 0.7, 0.7, 1.0)
#: Colour and diameter [m] of contact markers.
CONTACT_RGBA = (1.0, 0.0, 1.0, 1.0)
CONTACT_DIAMETER = 0.02


class MarkerKind(enum.Enum):
    """The RViz marker types used (values are ``visualization_msgs/Marker`` constants)."""

    CUBE = 1
    SPHERE = 2
    CYLINDER = 3
    MESH_RESOURCE = 10


@dataclass(frozen=True)
class MarkerSpec:
    """One marker, ROS-free.

    Attributes:
        ns: Namespace (the link name, or ``'body1=body2'`` for contacts).
        id: Id unique within the namespace.
        frame: Frame the pose is expressed in (link name, without any frame prefix).
        X_FK: (4, 4) pose of the marker in ``frame``.
        kind: Marker type.
        scale: (3,) full sizes [m] (mesh: the mesh scale factors).
        rgba: Colour, components in [0, 1].
        mesh_uri: The mesh URI as written in the description ('' for primitives).
    """

    ns: str
    id: int
    frame: str
    X_FK: FloatArray
    kind: MarkerKind
    scale: tuple[float, float, float]
    rgba: tuple[float, float, float, float]
    mesh_uri: str = ''


def _translate_z(X: FloatArray, dz: float) -> FloatArray:
    out = X.copy()
    out[:3, 3] += X[:3, 2] * dz
    return out


def shape_markers(shape: Shape, X_FK: FloatArray) -> list[tuple[MarkerKind, tuple[float, float,
                                                                                  float],
                                                            FloatArray, str]]:
    """``(kind, scale, pose, uri)`` of the marker(s) drawing one shape (capsule = 3 markers).

    The kind's module gives the RViz marker types, full sizes and offsets along z (its
    ``rviz_markers``); a half-space or a cone has none (RViz has no such primitive).
    """
    return [(MarkerKind(kind), scale, X_FK if dz is None else _translate_z(X_FK, dz), uri)
            for kind, scale, dz, uri in module_of(shape, 'shape_markers').rviz_markers(shape)]


def robot_markers(model: RobotModel, geometry: str = 'visual',
                  visible_links: Iterable[str] | None = None) -> list[MarkerSpec]:
    """Markers for every link's visual (default) or collision elements.

    Args:
        model: A :class:`~robot_state_core.model.robot_model.RobotModel`.
        geometry: ``'visual'`` or ``'collision'``.
        visible_links: Only these links (default: all).

    Returns:
        Marker specs, one namespace per link, ids numbered per link from 0.

    Raises:
        InvalidArgumentError: ``geometry`` is neither ``'visual'`` nor ``'collision'``.
    """
    if geometry not in ('visual', 'collision'):
        raise InvalidArgumentError(f"robot_markers: geometry must be 'visual' or 'collision', "
                                   f'got {geometry!r}')
    allowed = set(visible_links) if visible_links is not None else None
    specs: list[MarkerSpec] = []
    for link in model.links:
        if allowed is not None and link.name not in allowed:
            continue
        elements = link.visuals if geometry == 'visual' else link.collisions
        next_id = 0
        for element in elements:
            rgba = DEFAULT_RGBA
            material = getattr(element, 'material', None)
            if material is not None and material.color is not None:
                r, g, b, a = material.color
                rgba = (r, g, b, a if a > 0.0 else 1.0)
            for kind, scale, X, uri in shape_markers(element.geometry, element.origin):
                specs.append(MarkerSpec(link.name, next_id, link.name, X, kind, scale, rgba, uri))
                next_id += 1
    return specs


def contact_markers(contacts: Iterable[tuple[str, str, FloatArray]], frame: str) -> list[
        MarkerSpec]:
    """Sphere markers at contact points, namespace ``'body1=body2'`` (MoveIt's convention).

    Args:
        contacts: ``(body1, body2, p_WC (3,))`` per contact, positions in ``frame``.
        frame: The frame the positions are expressed in (the model frame).
    """
    specs = []
    counts: dict[str, int] = {}
    for body1, body2, p in contacts:
        ns = f'{body1}={body2}'
        X = np.eye(4)
        X[:3, 3] = p
        specs.append(MarkerSpec(ns, counts.get(ns, 0), frame, X, MarkerKind.SPHERE,
                                (CONTACT_DIAMETER,) * 3, CONTACT_RGBA))
        counts[ns] = counts.get(ns, 0) + 1
    return specs
