"""Triangle meshes of a robot's visual and collision elements, for drawing (no browser here).

Each URDF ``<visual>`` / ``<collision>`` element becomes :class:`ElementMesh` parts: triangles in
the element frame E, the element pose ``X_LE`` in its link frame and an RGBA colour. Mesh files
are read by the core (:func:`robot_state_core.geometry.meshes.load_mesh`: STL, OBJ, DAE, ...
with the description's scale, after the loader resolved ``package://`` and ``file://`` URIs);
primitives are triangulated by trimesh.

Colours: a visual whose URDF material has a colour is one part in that colour. A visual mesh
without one is drawn in the file's own colours (materials, per-face or per-vertex colours), one
part per colour, at most :data:`~robot_state_core.geometry.meshes.MAX_MESH_PARTS`
(:func:`~robot_state_core.geometry.meshes.load_mesh_parts`); faces the file gives no colour, and
primitives without a URDF colour, are Drake's grey. Collision elements are one part in
:data:`COLLISION_COLOR`.

A visual mesh that cannot be drawn (unresolved URI, missing, unreadable or corrupt file) never
stops the viewer: it is replaced by a box (:attr:`ElementMesh.placeholder`) and a warning that
starts with the file name and the link and says why (e.g. ``visual mesh a.stl of link 'l':
mesh 'package://p/a.stl' has no local file: file /ws/p/a.stl does not exist (package 'p' found
at /ws/p); drawn as a box``). The box is the bounding box of the link's collision geometry when
that can be read, else a 5 cm cube at the element origin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal, TypeAlias

import numpy as np
import trimesh

from robot_state_core._typing import FloatArray, Int64Array
from robot_state_core.description.links import Collision, Link, Visual
from robot_state_core.errors import RobotStateCoreError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import halfspace, Mesh, module_of, Shape
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.robot_geometry import DEFAULT_DIFFUSE

__all__ = ['COLLISION_COLOR', 'PLACEHOLDER_COLOR', 'ElementMesh', 'element_meshes',
           'shape_triangles']

Rgba: TypeAlias = tuple[float, float, float, float]

COLLISION_COLOR: Rgba = (0.35, 0.55, 0.95, 0.45)
'''Colour of collision geometry (translucent blue), drawn on request.'''
PLACEHOLDER_COLOR: Rgba = (1.0, 0.6, 0.0, 0.6)
'''Colour of the box drawn in place of a visual mesh that cannot be read (translucent orange).'''
PLACEHOLDER_SIZE = 0.05
'''Edge [m] of the placeholder cube when the link has no readable collision geometry.'''
HALF_SPACE_SIZE = halfspace.DRAWN_SIZE
'''Edge [m] of the square drawn for a half-space (its boundary plane z = 0).'''


@dataclass(frozen=True, eq=False)
class ElementMesh:
    """One visual or collision element of a link, or one colour of it, as triangles.

    Attributes:
        link: The link name.
        role: ``'visual'`` or ``'collision'``.
        index: The element's index among the link's elements of that role.
        part: The part's index among the element's parts (one per colour of a mesh drawn in
            its file's colours, else only 0); the parts share ``link``, ``role``, ``index``
            and ``X_LE``.
        vertices: ``(V, 3)`` vertices in the element frame E [m].
        faces: ``(F, 3)`` vertex indices, counter-clockwise seen from outside.
        X_LE: ``(4, 4)`` pose of E in the link frame L.
        rgba: Colour, components in [0, 1].
        placeholder: True when this is the box drawn for a mesh that could not be read.
    """

    link: str
    role: Literal['visual', 'collision']
    index: int
    part: int
    vertices: FloatArray
    faces: Int64Array
    X_LE: FloatArray
    rgba: Rgba
    placeholder: bool = False


def _trimesh_arrays(mesh: trimesh.Trimesh) -> tuple[FloatArray, Int64Array]:
    return (np.asarray(mesh.vertices, dtype=np.float64),
            np.asarray(mesh.faces, dtype=np.int64))


def shape_triangles(shape: Shape) -> tuple[FloatArray, Int64Array]:
    """Triangles of a shape in its own frame (shape conventions of :mod:`geometry.shapes`).

    Each kind's ``triangles`` in its shape module: trimesh's primitives, a mesh's file, a
    convex hull's hull.

    Args:
        shape: Any shape; meshes must be resolved to a file.

    Returns:
        ``(vertices (V, 3) [m], faces (F, 3))``. A half-space is drawn as a square of
        :data:`HALF_SPACE_SIZE` on its boundary plane.

    Raises:
        RobotDescriptionError: A mesh file is unresolved, missing, unreadable or empty.
        InvalidArgumentError: Invalid mesh scale, or a flat mesh asked for as a convex hull.
        InvalidTypeError: Not a shape (also a TypeError).
    """
    v, f = module_of(shape, 'shape_triangles').triangles(shape)
    return np.asarray(v), np.asarray(f)


def _collision_box(link: Link) -> tuple[FloatArray, FloatArray] | None:
    """Box ``(lo, hi)`` around the link's readable collision geometry, in the link frame."""
    corners: list[FloatArray] = []
    for element in link.collisions:
        try:
            v, _ = shape_triangles(element.geometry)
        except RobotStateCoreError:
            continue
        if not module_of(element.geometry).BOUNDED:  # a half-space's square is not its size
            continue
        corners.append(v @ element.origin[:3, :3].T + element.origin[:3, 3])
    if not corners:
        return None
    points = np.concatenate(corners)
    return points.min(axis=0), points.max(axis=0)


def _placeholder(link: Link, X_LE: FloatArray) -> tuple[FloatArray, Int64Array, FloatArray]:
    """Box vertices/faces and their pose in the link frame for an unreadable visual."""
    box = _collision_box(link)
    v, f = _trimesh_arrays(trimesh.creation.box(extents=(1.0, 1.0, 1.0)))
    if box is None:
        return v * PLACEHOLDER_SIZE, f, X_LE
    lo, hi = box
    X = np.eye(4)
    X[:3, 3] = 0.5 * (lo + hi)
    return v * np.maximum(hi - lo, 1e-3), f, X


def _rgba(color: Sequence[float] | None) -> Rgba:
    c = DEFAULT_DIFFUSE if color is None else color
    return float(c[0]), float(c[1]), float(c[2]), float(c[3])


def _element_parts(element: Visual | Collision) -> list[tuple[FloatArray, Int64Array, Rgba]]:
    """``(vertices, faces, rgba)`` per part of a visual or collision element."""
    shape = element.geometry
    if isinstance(element, Collision):
        return [(*shape_triangles(shape), COLLISION_COLOR)]
    color = element.material.color if element.material is not None else None
    if color is not None or not isinstance(shape, Mesh):
        return [(*shape_triangles(shape), _rgba(color))]
    return [(np.asarray(p.vertices), np.asarray(p.faces), _rgba(p.rgba))
            for p in meshes.load_mesh_parts(meshes.mesh_file(shape), shape.scale)]


def element_meshes(model: RobotModel, role: Literal['visual', 'collision']
                   ) -> tuple[list[ElementMesh], list[str]]:
    """Every visual (or collision) element of the model as triangles, one part per colour.

    Args:
        model: The robot model.
        role: ``'visual'`` (URDF material colours; without one, a mesh file's own colours,
            else Drake's grey) or ``'collision'`` (:data:`COLLISION_COLOR`).

    Returns:
        ``(elements, warnings)``: element parts in model link order; one warning per element
        drawn as a placeholder box (visuals) or left out (collision elements that cannot be
        read, which the collision checker skips as well), starting with the file name.
    """
    out: list[ElementMesh] = []
    warnings: list[str] = []
    for link in model.links:
        elements: Sequence[Visual | Collision] = (link.visuals if role == 'visual'
                                                  else link.collisions)
        for i, element in enumerate(elements):
            try:
                parts = _element_parts(element)
            except RobotStateCoreError as exc:
                uri = getattr(element.geometry, 'uri', None)
                name = PurePosixPath(uri).name if uri is not None else repr(element.geometry)
                if role == 'collision':
                    warnings.append(f'collision mesh {name} of link {link.name!r}: {exc}; '
                                    'not drawn')
                    continue
                warnings.append(f'visual mesh {name} of link {link.name!r}: {exc}; drawn as a '
                                'box')
                pv, pf, X = _placeholder(link, element.origin)
                out.append(ElementMesh(link.name, role, i, 0, pv, pf, X, PLACEHOLDER_COLOR,
                                       True))
                continue
            out.extend(ElementMesh(link.name, role, i, part, v, f, element.origin, rgba)
                       for part, (v, f, rgba) in enumerate(parts))
    return out, warnings
