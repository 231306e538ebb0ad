"""The Ellipsoid shape end to end (issue 9 §8), against the support-function oracle.

Drake's ``Ellipsoid(a, b, c)`` (semi-axes) and fcl's ``Ellipsoid`` exist; URDF, SRDF and MoveIt's
``shape_msgs/SolidPrimitive`` have no ellipsoid, so it is reachable from the Python API only:
the geometry registry, the collision backend, ``PlanningScene`` world objects and attached
bodies, padding and markers (``docs/seed_api_map.md``, row ``Ellipsoid``). Every number here is
checked against the independent oracle of ``test/support_function_oracle.py`` (support
functions written from the shape's formula), never against our own code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support_function_oracle import penetration, pose, Posed, random_rotation

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry import (
    Box,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    SceneGraph,
    Sphere,
)
from robot_state_core.geometry.fcl_backend import FclObjects, make_collision_geometry
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.markers import MarkerKind, shape_markers
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    CollisionRequest,
    PlanningScene,
)
from robot_state_core.scene.robot_geometry import padded_shape
from robot_state_core.state.attached_body import shape_aabbs, ShapeExtents
from robot_state_core.state.robot_state import RobotState

EGG = Ellipsoid(0.3, 0.2, 0.1)

# A one-link robot with a 0.4 m cube (our own test input).
_CUBE_ROBOT = '''<?xml version="1.0"?>
<robot name="cube">
  <link name="base">
    <collision><geometry><box size="0.4 0.4 0.4"/></geometry></collision>
  </link>
</robot>
'''


@pytest.mark.parametrize('bad', [(0.0, 1.0, 1.0), (1.0, -0.1, 1.0), (1.0, 1.0, math.nan),
                                 (1.0, math.inf, 1.0)])
def test_semi_axes_must_be_positive(bad: tuple[float, float, float]) -> None:
    # drake geometry/shape_specification.cc, Ellipsoid::Ellipsoid: "Ellipsoid lengths of
    # principal semi-axes a, b, and c should all be > 0" (no zero sizes from URDF to accept
    # here, unlike decisions.md G-1).
    with pytest.raises(InvalidArgumentError, match='Ellipsoid'):
        Ellipsoid(*bad)


def test_backend_builds_fcl_ellipsoid() -> None:
    geometry = make_collision_geometry(EGG)
    assert (geometry.radii == np.array([0.3, 0.2, 0.1])).all()


def test_point_signed_distance_matches_the_oracle() -> None:
    rng = np.random.default_rng(7)
    X = pose(random_rotation(rng), np.array([0.1, -0.2, 0.3]))
    objects = FclObjects([EGG])
    objects.set_poses(X[None])
    for _ in range(12):  # inside and outside, down to 1 mm from the surface
        p = X[:3, 3] + rng.normal(size=3) * rng.choice([0.05, 0.2, 0.4])
        (got,) = objects.signed_distance_to_point(p)
        # A point is a sphere of radius 0: g's minimum is minus its signed distance.
        ref = penetration(Posed(EGG, X), Posed(Sphere(0.0), pose(np.eye(3), p)))
        assert abs(got.distance + ref.depth) <= 1e-9, (p, got.distance, -ref.depth)
        # The gradient is the direction that moves Q out of (or away from) the ellipsoid.
        assert np.linalg.norm(got.grad_W - ref.n) <= 1e-6


def test_registry_keeps_an_ellipsoid() -> None:
    sg = SceneGraph()
    source = sg.register_source('eggs')
    frame = sg.register_frame(source, GeometryFrame('f'))
    gid = sg.register_geometry(source, frame, GeometryInstance(
        np.eye(4), EGG, 'egg', (ProximityProperties(),)))
    other = sg.register_geometry(source, sg.register_frame(source, GeometryFrame('g')),
                                 GeometryInstance(np.eye(4), Box(1, 1, 1), 'box',
                                                  (ProximityProperties(),)))
    inspector = sg.model_inspector()
    assert inspector.get_shape(gid) == EGG
    assert {tuple(sorted(p)) for p in inspector.get_collision_candidates()} == \
        {tuple(sorted((gid, other)))}
    sg.change_shape(source, gid, Ellipsoid(0.1, 0.1, 0.4))
    assert inspector.get_shape(gid) == Ellipsoid(0.1, 0.1, 0.4)


def test_world_object_distance_and_collision_match_the_oracle() -> None:
    model = RobotModel.from_urdf_string(_CUBE_ROBOT)
    scene = PlanningScene(model)
    state = RobotState(model)
    cube = Posed(Box(0.4, 0.4, 0.4), np.eye(4))
    rng = np.random.default_rng(3)
    for offset in (0.3, 0.45, 0.6):  # penetrating, near, apart
        X_WO = pose(random_rotation(rng), np.array([offset, 0.05, -0.02]))
        scene.apply_world_object(CollisionObjectOperation.ADD, 'egg', X_WO,
                                 shapes=[(EGG, np.eye(4))])
        ref = penetration(Posed(EGG, X_WO), cube)
        result = scene.check_collision(state, CollisionRequest(contacts=True, distance=True))
        assert result.collision == (ref.depth > 0.0)
        assert abs(result.distance + ref.depth) <= 1e-9, (offset, result.distance, ref.depth)
        if ref.depth > 0.0:
            (contact,) = result.contacts
            assert abs(contact.depth - ref.depth) <= 1e-9


def test_attached_ellipsoid_box_is_its_support_function() -> None:
    rng = np.random.default_rng(5)
    extents = ShapeExtents.from_shapes([EGG])
    for _ in range(5):
        X = pose(random_rotation(rng), rng.uniform(-1, 1, 3))
        lower, upper = shape_aabbs(extents, X[None])
        axes = np.eye(3)
        P = Posed(EGG, X)
        np.testing.assert_allclose(upper[0], P.h(axes), rtol=0, atol=1e-12)
        np.testing.assert_allclose(lower[0], -P.h(-axes), rtol=0, atol=1e-12)


def test_padding_and_markers() -> None:
    # Semi-axes scaled, then padded: exact on the axes (robot_geometry's table).
    padded, X = padded_shape(EGG, padding=0.01, scale=2.0)
    assert isinstance(padded, Ellipsoid)
    assert (padded.a, padded.b, padded.c) == pytest.approx((0.61, 0.41, 0.21), abs=1e-15)
    np.testing.assert_array_equal(X, np.eye(4))
    ((kind, scale, _, uri),) = shape_markers(EGG, np.eye(4))
    assert kind == MarkerKind.SPHERE  # RViz scales a SPHERE per axis into an ellipsoid
    assert scale == (0.6, 0.4, 0.2) and uri == ''
