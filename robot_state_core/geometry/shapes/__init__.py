"""Frozen shape specifications, one module per shape kind holding all of its math.

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

=========  ===============  ===================================================================
shape      module           its math
=========  ===============  ===================================================================
Box        :mod:`.box`        bounds, support, Drake's box distance, posed box, fcl, forms
Sphere     :mod:`.sphere`     a point core plus a ball, Drake's deformable sphere mesh, ...
Ellipsoid  :mod:`.ellipsoid`  support ``D²d/|Dd|``, Eberly's exact distance, posed box, ...
Cylinder   :mod:`.cylinder`   rim support, Drake's cross-section distance, posed disc, ...
Capsule    :mod:`.capsule`    a segment core plus a ball, cap/spine distance, ...
Cone       :mod:`.cone`       apex/rim support, profile distance, posed disc and apex, ...
HalfSpace  :mod:`.halfspace`  unbounded: ``z`` distance, fcl's ``Halfspace``, a drawn square
Mesh       :mod:`.mesh`       the file's triangles: winding-number distance, fcl BVH, ...
Convex     :mod:`.convex`     the file's hull: face-plane distance, fcl ``Convex``, ...
=========  ===============  ===================================================================

Every module states the kind's flags: ``BOUNDED`` (False: a half-space, no support point or
bounding radius), ``CONVEX`` (False: a triangle surface), ``MESH_FILE`` (its geometry is a mesh
file's triangles, which ``read_triangles`` reads and the queries receive as ``vertices`` or a
:class:`~robot_state_core.geometry.triangles.TriangleMesh`), ``SWEPT`` (a point or segment
swept by a ball: ``swept_core`` gives its half length and radius), ``BALL`` (a sphere: fcl
reports its contacts radius-weighted); and the numbers of its other forms: ``URDF_ELEMENT``
(with ``urdf_attributes``), ``SOLID_PRIMITIVE`` (MoveIt's ``shape_msgs/SolidPrimitive`` type,
with ``SOLID_PRIMITIVE_SIZE``, ``solid_primitive_dimensions`` and ``from_solid_primitive``) and
``MOVEIT_SHAPE`` (geometric_shapes' name, the ``.scene`` keyword: ``SCENE_FILE_FIELDS``,
``scene_file_numbers``, ``from_scene_file``; ``'mesh'`` is written as triangles), each ``None``
where the form has no such shape. Every module gives ``local_aabb``, ``point_signed_distance``,
``fcl_geometry``, ``padded``, ``triangles`` (for drawing) and ``rviz_markers``; the bounded
ones ``support`` and ``bounding_radius``; the analytic bounded ones the exact posed bounding
box (``aabb_table``, ``posed_aabbs``); the mesh files ``read_triangles`` and
``fcl_with_vertices``; Sphere and Mesh add ``deformable_mesh`` (the kinds Drake meshes for
deformable geometry). Adding a shape is a module here plus its lines in :data:`SHAPE_MODULES`,
:data:`Shape` and the imports below.
"""

from __future__ import annotations

from types import ModuleType

from robot_state_core.errors import InvalidTypeError
from robot_state_core.geometry.shapes import (
    box,
    capsule,
    cone,
    convex,
    cylinder,
    ellipsoid,
    halfspace,
    mesh,
    sphere,
)
from robot_state_core.geometry.shapes.box import Box
from robot_state_core.geometry.shapes.capsule import Capsule
from robot_state_core.geometry.shapes.cone import Cone
from robot_state_core.geometry.shapes.convex import Convex
from robot_state_core.geometry.shapes.cylinder import Cylinder
from robot_state_core.geometry.shapes.ellipsoid import Ellipsoid
from robot_state_core.geometry.shapes.halfspace import HalfSpace
from robot_state_core.geometry.shapes.mesh import Mesh
from robot_state_core.geometry.shapes.sphere import Sphere

__all__ = [
    'SHAPE_MODULES',
    'SHAPE_TYPES',
    'Box',
    'Capsule',
    'Cone',
    'Convex',
    'Cylinder',
    'Ellipsoid',
    'HalfSpace',
    'Mesh',
    'Shape',
    'Sphere',
    'box',
    'capsule',
    'cone',
    'convex',
    'cylinder',
    'ellipsoid',
    'halfspace',
    'kind_of',
    'mesh',
    'module_of',
    'sphere',
]

Shape = Box | Sphere | Ellipsoid | Cylinder | Capsule | Cone | HalfSpace | Mesh | Convex

SHAPE_MODULES: dict[type, ModuleType] = {
    Box: box,
    Sphere: sphere,
    Ellipsoid: ellipsoid,
    Cylinder: cylinder,
    Capsule: capsule,
    Cone: cone,
    HalfSpace: halfspace,
    Mesh: mesh,
    Convex: convex,
}
'''The module holding each shape kind's math, keyed by its class.'''

SHAPE_TYPES: tuple[type, ...] = tuple(SHAPE_MODULES)
'''The shape classes, in :data:`Shape` order.'''


def kind_of(shape: object, where: str = 'shape') -> type:
    """The registered class of ``shape``'s kind (its own class, or the shape class it extends).

    Raises:
        InvalidTypeError: ``shape`` is not a shape (the message names ``where``).
    """
    for kind in type(shape).__mro__:
        if kind in SHAPE_MODULES:
            return kind
    raise InvalidTypeError(f'{where}: unsupported shape {shape!r} (not a shape)')


def module_of(shape: object, where: str = 'shape') -> ModuleType:
    """The module of ``shape``'s kind.

    Raises:
        InvalidTypeError: ``shape`` is not a shape (the message names ``where``).
    """
    found = SHAPE_MODULES.get(type(shape))
    return found if found is not None else SHAPE_MODULES[kind_of(shape, where)]
