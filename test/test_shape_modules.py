"""The shape registry: one module per shape kind, each stating the whole contract.

Every kind's module (:mod:`robot_state_core.geometry.shapes`) declares its flags and the numbers
of its other forms, and gives the functions the layers above dispatch to; the forms round-trip
through the module (``SolidPrimitive``, ``.scene``, URDF attributes), and the numbers that other
message packages define (RViz marker types, ``SolidPrimitive`` types and dimension order) are
theirs.
"""

from __future__ import annotations

from typing import get_args

import numpy as np
import pytest

from robot_state_core.geometry import shapes
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cone,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    module_of,
    Shape,
    SHAPE_MODULES,
    Sphere,
)
from robot_state_core.publishing.markers import MarkerKind
from robot_state_core.scene.scene_file import format_scene_text, parse_scene_text, SceneTextObject

FLAGS = ('BOUNDED', 'CONVEX', 'MESH_FILE', 'SWEPT', 'BALL')
FORMS = ('URDF_ELEMENT', 'SOLID_PRIMITIVE', 'MOVEIT_SHAPE')
EVERY_KIND = ('local_aabb', 'point_signed_distance', 'fcl_geometry', 'padded', 'triangles',
              'rviz_markers')
EXAMPLES: dict[type, Shape] = {
    Box: Box(0.1, 0.2, 0.3), Sphere: Sphere(0.1), Ellipsoid: Ellipsoid(0.1, 0.2, 0.3),
    Cylinder: Cylinder(0.1, 0.3), Capsule: Capsule(0.1, 0.3), Cone: Cone(0.1, 0.3),
}
ALL_EXAMPLES: dict[type, Shape] = {**EXAMPLES, HalfSpace: HalfSpace(),
                                   Mesh: Mesh('a.stl', path='a.stl'),
                                   Convex: Convex('a.stl', path='a.stl')}


@pytest.mark.parametrize('kind', list(SHAPE_MODULES), ids=lambda k: k.__name__)
def test_every_module_states_the_contract(kind: type) -> None:
    module = SHAPE_MODULES[kind]
    assert kind.__module__ == module.__name__  # the class lives in its kind's module
    for name in FLAGS:
        assert isinstance(getattr(module, name), bool), name
    for name in FORMS:
        assert hasattr(module, name), name
    needed = list(EVERY_KIND)
    if module.BOUNDED:
        needed += ['support', 'bounding_radius']
    if module.SWEPT:
        needed += ['swept_core']
    if module.BOUNDED and not module.MESH_FILE:
        needed += ['aabb_table', 'posed_aabbs']
    if module.MESH_FILE:
        needed += ['read_triangles', 'fcl_with_vertices']
    if module.URDF_ELEMENT is not None:
        needed += ['urdf_attributes']
    if module.SOLID_PRIMITIVE is not None:
        needed += ['SOLID_PRIMITIVE_SIZE', 'solid_primitive_dimensions', 'from_solid_primitive']
    if module.MOVEIT_SHAPE is not None:
        needed += ['from_arrays'] if module.MESH_FILE else [
            'SCENE_FILE_FIELDS', 'scene_file_numbers', 'from_scene_file']
    missing = [name for name in needed if not hasattr(module, name)]
    assert not missing


def test_the_union_is_the_registry() -> None:
    assert get_args(Shape) == shapes.SHAPE_TYPES == tuple(SHAPE_MODULES)
    assert module_of(Box(1, 1, 1)) is shapes.box


def test_module_of_refuses_what_is_not_a_shape() -> None:
    with pytest.raises(TypeError, match='not a shape'):
        module_of('box', 'here')


@pytest.mark.parametrize('kind', list(SHAPE_MODULES), ids=lambda k: k.__name__)
def test_rviz_marker_types_are_rvizs(kind: type) -> None:
    module = SHAPE_MODULES[kind]
    shape = ALL_EXAMPLES[kind]
    for marker_type, scale, _, _ in module.rviz_markers(shape):
        assert MarkerKind(marker_type).value == marker_type
        assert len(scale) == 3


@pytest.mark.parametrize('shape', list(EXAMPLES.values()), ids=lambda s: type(s).__name__)
def test_forms_round_trip_through_the_module(shape: Shape) -> None:
    module = module_of(shape)
    if module.SOLID_PRIMITIVE is not None:
        dims = module.solid_primitive_dimensions(shape)
        assert len(dims) == module.SOLID_PRIMITIVE_SIZE
        assert module.from_solid_primitive(dims) == shape
    if module.MOVEIT_SHAPE is not None:
        numbers = module.scene_file_numbers(shape)
        assert len(numbers) == len(module.SCENE_FILE_FIELDS)
        assert module.from_scene_file(numbers) == shape
        text = format_scene_text('s', [SceneTextObject('o', np.eye(4), ((shape, np.eye(4)),))])
        assert parse_scene_text(text).objects[0].shapes[0][0] == shape
    if module.URDF_ELEMENT is not None:
        attributes = module.urdf_attributes(shape)
        assert all(isinstance(v, str | tuple) for v in attributes.values())


@pytest.mark.ros
def test_solid_primitive_numbers_are_shape_msgs() -> None:
    solid = pytest.importorskip('shape_msgs.msg').SolidPrimitive
    from robot_state_core.ros.moveit_conversions import shape_from_primitive

    types = {Box: solid.BOX, Sphere: solid.SPHERE, Cylinder: solid.CYLINDER, Cone: solid.CONE}
    assert {k: m.SOLID_PRIMITIVE for k, m in SHAPE_MODULES.items()
            if m.SOLID_PRIMITIVE is not None} == types
    assert (solid.CYLINDER_HEIGHT, solid.CYLINDER_RADIUS) == (0, 1)
    assert (solid.CONE_HEIGHT, solid.CONE_RADIUS) == (0, 1)
    for kind in types:
        shape = EXAMPLES[kind]
        module = module_of(shape)
        prim = solid(type=module.SOLID_PRIMITIVE,
                     dimensions=module.solid_primitive_dimensions(shape))
        assert shape_from_primitive(prim) == shape
