"""PlanningScene and RobotGeometry: filtering, world objects, attached bodies, contacts, validity.

Most cases use the embedded default robot (``rsc_mobile_manipulator``, primitives only). Its base
sits at the origin with the state's default base pose; the base box spans x in [-0.25, 0.25],
y in [-0.2, 0.2], z in [0.05, 0.25], which gives closed-form world-box cases at its front face
(x = 0.25). The oracle comparison against coal on meshes is in ``test_collision_oracle.py``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
import tempfile
import threading

import numpy as np
import pytest
import robot_corpus
import trimesh

from robot_state_core.description.acm import AllowedCollisionMatrix
from robot_state_core.errors import (
    InvalidArgumentError,
    ModelMismatchError,
    UnknownNameError,
)
from robot_state_core.geometry import meshes
from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.geometry.roles import DIFFUSE, Role
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cone,
    Convex,
    Cylinder,
    HalfSpace,
    Mesh,
    Sphere,
)
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.io.srdf import read_srdf_file
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.constraints import (
    Constraints,
    JointConstraint,
    PositionConstraint,
)
from robot_state_core.scene.planning_scene import (
    BodyType,
    CollisionObjectOperation,
    CollisionRequest,
    CollisionResult,
    Contact,
    PlanningScene,
    StateValidity,
    WorldObject,
)
from robot_state_core.scene.robot_geometry import padded_shape, RobotGeometry
from robot_state_core.spatial.transforms import pose_from_xyz_rpy
from robot_state_core.state.robot_state import RobotState

ADD = CollisionObjectOperation.ADD
REMOVE = CollisionObjectOperation.REMOVE
APPEND = CollisionObjectOperation.APPEND
MOVE = CollisionObjectOperation.MOVE

EXACT = 1e-9
'''Closed-form box/box cases: fcl's box-box result is exact to rounding.'''
BASE_FRONT_X = 0.25
'''x of the base box's front face in the model frame (default base pose).'''
FOLDED = {'shoulder_lift_joint': 2.0, 'elbow_joint': 2.0, 'wrist_pitch_joint': 0.0}
'''The arm folded down into the base and the lift column (gripper deep inside the base box).'''
SEED = 20260611


def translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


@pytest.fixture
def scene(model: RobotModel) -> PlanningScene:
    return PlanningScene(model)


def named(model: RobotModel, name: str) -> dict[str, float]:
    return dict(model.group('arm').named_states[name])


def pairs_of(result: CollisionResult | StateValidity) -> set[tuple[str, str]]:
    return {c.pair for c in result.contacts}


def all_contacts(**kwargs: object) -> CollisionRequest:
    return CollisionRequest(contacts=True, max_contacts=10_000, **kwargs)  # type: ignore[arg-type]


def front_box(gap: float, size: float = 0.1) -> tuple[np.ndarray, list[tuple[Box, np.ndarray]]]:
    """A cube in front of the base, its back face ``gap`` from the base's front face."""
    return (translation(BASE_FRONT_X + gap + size / 2, 0.0, 0.15),
            [(Box(size, size, size), np.eye(4))])


# ---------------------------------------------------------------------------- robot geometry


def test_robot_geometry_index_arrays_and_registry(model: RobotModel) -> None:
    geo = RobotGeometry(model)
    n = sum(len(link.collisions) for link in model.links)
    assert len(geo) == n == len(geo.names) == geo.X_LG.shape[0] == geo.geometry_link.size
    assert geo.names[:2] == ('base_link/0', 'base_link/1')
    for k, name in enumerate(geo.names):
        link, index = name.rsplit('/', 1)
        assert geo.link_name(k) == link
        element = model.link(link).collisions[int(index)]
        assert geo.shapes[k] == element.geometry
        np.testing.assert_array_equal(geo.X_LG[k], element.origin)
    assert not geo.X_LG.flags.writeable and not geo.geometry_link.flags.writeable

    # One frame per link on the world: compute_world_poses == world_poses (one matmul).
    state = RobotState(model, rng=SEED)
    state.set_to_random_positions()
    X_WL = state.get_link_poses()
    reg = geo.registration
    sg = geo.scene_graph
    X_WG = sg.compute_world_poses((reg.link_frame_ids, X_WL), Role.PROXIMITY)
    np.testing.assert_allclose(X_WG, geo.world_poses(X_WL), atol=1e-15)
    inspector = sg.model_inspector()
    assert inspector.get_all_geometry_ids(Role.PROXIMITY) == reg.proximity_ids
    assert [inspector.get_name(g) for g in reg.proximity_ids] == list(geo.names)
    assert inspector.get_name(reg.link_frame_ids[0]) == model.link_names[0]
    assert len(reg.link_frame_ids) == model.link_count

    # Visuals: illustration role with the material's diffuse colour.
    visuals = [(li, v) for li in model.links for v in li.visuals]
    assert len(reg.illustration_ids) == len(visuals)
    for gid, (owner, visual) in zip(reg.illustration_ids, visuals, strict=True):
        props = inspector.get_illustration_properties(gid)
        assert props is not None
        expected = visual.material.color if visual.material and visual.material.color \
            else (0.9, 0.9, 0.9, 1.0)
        assert props.get_property(*DIFFUSE) == pytest.approx(expected)
        assert inspector.get_name(gid).startswith(f'{owner.name}/visual/')
        assert inspector.get_proximity_properties(gid) is None

    with pytest.raises(InvalidArgumentError):
        geo.world_poses(X_WL[:-1])


@pytest.mark.parametrize(('shape', 'expected'), [
    (Sphere(0.1), Sphere(0.11)),
    (Capsule(0.1, 0.3), Capsule(0.11, 0.3)),
    (Box(0.1, 0.2, 0.3), Box(0.12, 0.22, 0.32)),
    (Cylinder(0.1, 0.3), Cylinder(0.11, 0.32)),
    (Cone(0.1, 0.3), Cone(0.11, 0.32)),
])
def test_padding_of_primitives(shape: object, expected: object) -> None:
    padded, X = padded_shape(shape, 0.01)  # type: ignore[arg-type]
    for field in type(expected).__slots__:  # type: ignore[attr-defined]
        assert getattr(padded, field) == pytest.approx(getattr(expected, field))
    np.testing.assert_array_equal(X, np.eye(4))
    scaled, _ = padded_shape(Box(0.1, 0.2, 0.3), 0.01, 2.0)
    assert (scaled.x, scaled.y, scaled.z) == pytest.approx((0.22, 0.42, 0.62))  # type: ignore[union-attr]


def test_padding_of_halfspace_moves_the_plane() -> None:
    shape, X = padded_shape(HalfSpace(), 0.02)
    assert shape == HalfSpace()
    np.testing.assert_allclose(X, translation(0.0, 0.0, 0.02))


def test_padding_of_meshes_grows_the_bounding_box_by_padding(model: RobotModel) -> None:
    link = next(li for li in model.links if any(isinstance(v.geometry, Mesh)
                                                 for v in li.visuals))
    mesh = next(v.geometry for v in link.visuals if isinstance(v.geometry, Mesh))
    v0, _ = meshes.load_mesh(meshes.mesh_file(mesh), mesh.scale)
    for shape in (mesh, Convex(mesh.uri, mesh.scale, mesh.path)):
        padded, X = padded_shape(shape, 0.005, 1.5)
        assert type(padded) is type(shape) and padded.path == mesh.path  # file shared
        assert isinstance(padded, Mesh | Convex)
        v1, _ = meshes.load_mesh(meshes.mesh_file(padded), padded.scale)
        v1 = v1 + X[:3, 3]
        lo0, hi0 = v0.min(axis=0), v0.max(axis=0)
        centre = 0.5 * (lo0 + hi0)
        np.testing.assert_allclose(v1.min(axis=0), centre - 1.5 * (centre - lo0) - 0.005,
                                   atol=1e-12)
        np.testing.assert_allclose(v1.max(axis=0), centre + 1.5 * (hi0 - centre) + 0.005,
                                   atol=1e-12)


def box_dims(shape: object) -> tuple[float, float, float]:
    assert isinstance(shape, Box)
    return shape.x, shape.y, shape.z


def test_mesh_mode_and_per_link_options(model: RobotModel) -> None:
    geo = RobotGeometry(model, padding={'base_link': 0.01}, scale={'lift_link': 2.0})
    assert geo.padding_of('base_link') == 0.01 and geo.padding_of('lift_link') == 0.0
    assert geo.scale_of('lift_link') == 2.0 and geo.scale_of('base_link') == 1.0
    assert geo.mesh_mode_of('base_link') == 'exact'
    assert box_dims(geo.shapes[0]) == pytest.approx((0.52, 0.42, 0.22))
    k = int(geo.geometry_indices('lift_link')[0])
    assert box_dims(geo.shapes[k]) == pytest.approx((0.24, 0.24, 1.2))
    sg = geo.scene_graph
    props = sg.model_inspector().get_proximity_properties(geo.registration.proximity_ids[0])
    assert props is not None and props.get_property('robot_state_core', 'padding') == 0.01

    robot = robot_corpus.test_robot('panda')
    panda = RobotModel.from_urdf_file(robot.urdf_path, robot.srdf_path,
                                      package_map=robot.package_map)
    exact = RobotGeometry(panda)
    assert sum(isinstance(s, Mesh) for s in exact.shapes) == 9  # default: exact meshes
    mixed = RobotGeometry(panda, mesh_mode={'panda_link1': 'convex'})
    assert mixed.mesh_mode_of('panda_link1') == 'convex'
    assert mixed.mesh_mode_of('panda_link2') == 'exact'
    kinds = {mixed.link_name(k): type(s) for k, s in enumerate(mixed.shapes)}
    assert kinds['panda_link1'] is Convex and kinds['panda_link2'] is Mesh
    hulls = RobotGeometry(panda, mesh_mode='convex')
    assert not any(isinstance(s, Mesh) for s in hulls.shapes)
    with pytest.raises(UnknownNameError):
        RobotGeometry(model, padding={'no_such_link': 0.1})
    with pytest.raises(InvalidArgumentError):
        RobotGeometry(model, padding=-0.1)
    with pytest.raises(InvalidArgumentError):
        RobotGeometry(model, scale=0.0)
    with pytest.raises(InvalidArgumentError):
        RobotGeometry(model, mesh_mode='hull')  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- self collision


def test_same_link_geometries_never_collide(model: RobotModel, scene: PlanningScene) -> None:
    # The base's caster spheres sink 1 cm into the base box: same link, so never a collision.
    geo = scene.geometry
    base = geo.geometry_indices('base_link')
    objects = FclObjects([geo.shapes[i] for i in base])
    objects.set_poses(geo.X_LG[base])
    all_pairs = np.array([(a, b) for a in range(len(base)) for b in range(a + 1, len(base))])
    assert len(objects.colliding_pairs(all_pairs)) > 0
    names = scene.candidate_pairs()
    assert not any(a.split('/')[0] == b.split('/')[0] for a, b in names)
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    result = scene.check_collision(state, all_contacts())
    assert not result.collision


def test_named_states_are_collision_free_and_folding_collides(model: RobotModel,
                                                             scene: PlanningScene) -> None:
    state = scene.current_state
    for name in ('home', 'ready'):
        state.set_variable_positions(named(model, name))
        assert not scene.check_collision(state).collision, name
        assert scene.distance_to_collision(state, self_collision=True) > 0.0
        assert scene.is_state_valid(state).valid
    state.set_variable_positions(FOLDED)
    result = scene.check_collision(state, all_contacts())
    assert result.collision and result.contact_count == len(result.contacts) > 1
    assert ('base_link', 'gripper_palm_link') in pairs_of(result)
    assert all(c.body_type_1 == c.body_type_2 == BodyType.ROBOT_LINK for c in result.contacts)
    assert scene.distance_to_collision(state, self_collision=True) < 0.0
    validity = scene.is_state_valid(state)
    assert not validity.valid and validity.contacts == ()
    assert validity.message.startswith('in collision')


def test_srdf_disabled_pairs_are_honoured(model: RobotModel, scene: PlanningScene) -> None:
    # The lift column always overlaps the base's column box: only the SRDF entry saves it.
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    assert scene.acm.is_collision_allowed('base_link', 'lift_link')
    assert not any({a.split('/')[0], b.split('/')[0]} == {'base_link', 'lift_link'}
                   for a, b in scene.candidate_pairs())
    assert not scene.check_collision(state).collision
    version = scene.version
    scene.acm.remove_entry('base_link', 'lift_link')  # edited in place: recompiled lazily
    assert scene.version > version
    result = scene.check_collision(state, all_contacts())
    assert pairs_of(result) == {('base_link', 'lift_link')}
    scene.acm.add_allowed_collision('base_link', 'lift_link', 'Adjacent')
    assert not scene.check_collision(state).collision


def test_without_srdf_adjacent_links_collide(model: RobotModel) -> None:
    # MoveIt semantics: adjacency disables nothing by itself.
    bare = RobotModel.from_urdf_file(default_robot_urdf_path())
    scene = PlanningScene(bare)
    assert len(scene.acm) == 0
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    assert ('base_link', 'lift_link') in pairs_of(scene.check_collision(state, all_contacts()))


def test_link_collision_flag_removes_the_link_from_every_pair(model: RobotModel) -> None:
    graph = model.to_scene_graph()
    graph.set_link_collision_enabled('gripper_palm_link', False)
    graph.set_link_collision_enabled('left_finger_link', False)
    graph.set_link_collision_enabled('right_finger_link', False)
    flagged = RobotModel.from_scene_graph(graph, read_srdf_file(default_robot_srdf_path()))
    scene = PlanningScene(flagged)
    state = scene.current_state
    state.set_variable_positions({'shoulder_lift_joint': -2.0, 'elbow_joint': -1.5,
                                  'wrist_pitch_joint': 0.0})
    assert not scene.check_collision(state).collision
    full = PlanningScene(model)
    full.current_state.set_variable_positions(state.positions)
    assert pairs_of(full.check_collision(full.current_state, all_contacts())) == {
        ('base_link', 'left_finger_link'), ('base_link', 'right_finger_link')}
    disabled = {'gripper_palm_link', 'left_finger_link', 'right_finger_link'}
    assert not any(a.split('/')[0] in disabled or b.split('/')[0] in disabled
                   for a, b in scene.candidate_pairs())


def test_conditional_acm_entries_decide_per_contact(model: RobotModel,
                                                   scene: PlanningScene) -> None:
    X_WO, shapes = front_box(-0.01)  # 1 cm deep in the base's front face
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    state = scene.current_state
    seen: list[Contact] = []

    def shallow(contact: Contact) -> bool:
        seen.append(contact)
        return contact.depth < 0.02

    scene.acm.set_entry('base_link', 'box', shallow)
    assert not scene.check_collision(state).collision
    assert seen and seen[0].pair == ('base_link', 'box')
    assert seen[0].depth == pytest.approx(0.01, abs=EXACT)
    assert not scene.check_collision(state, all_contacts()).collision
    scene.acm.set_entry('base_link', 'box', lambda c: c.depth < 0.005)
    result = scene.check_collision(state, all_contacts())
    assert result.collision and pairs_of(result) == {('base_link', 'box')}
    scene.acm.set_entry('base_link', 'box', True)
    assert not scene.check_collision(state).collision


# ---------------------------------------------------------------------------- padding


def bisect_contact(scene: PlanningScene, state: RobotState, joint: str, free: float,
                   hit: float) -> float:
    """A joint value within about 1e-7 rad of first contact, on the free side."""
    for _ in range(40):
        mid = 0.5 * (free + hit)
        state.set_variable_positions({joint: mid})
        if scene.check_collision(state).collision:
            hit = mid
        else:
            free = mid
    state.set_variable_positions({joint: free})
    return free


def test_padding_applies_to_world_pairs_not_self_pairs(model: RobotModel) -> None:
    """Padding applies to world pairs only: a self near miss stays a miss under padding.

    MoveIt's planning scene checks the padded robot against the world and the unpadded robot
    against itself.
    """
    scene = PlanningScene(model)
    state = scene.current_state
    state.set_variable_positions({'shoulder_lift_joint': -2.0, 'elbow_joint': -1.0,
                                  'wrist_pitch_joint': 0.0})
    assert not scene.check_collision(state).collision
    bisect_contact(scene, state, 'elbow_joint', -1.0, -1.5)
    # step back until the gap is a couple of millimetres
    elbow = state.get_variable_position('elbow_joint')
    while scene.distance_to_collision(state, self_collision=True) < 0.002:
        elbow += 1e-3
        state.set_variable_positions({'elbow_joint': elbow})
    gap = scene.distance_to_collision(state, self_collision=True)
    assert 0.002 <= gap < 0.01
    assert not scene.check_collision(state).collision
    padded = PlanningScene(model, padding=0.01)
    assert set(padded.get_link_padding().values()) == {0.01}
    assert not padded.check_collision(state).collision
    assert padded.distance_to_collision(state, self_collision=True) == gap
    assert padded.geometry.padding_of('base_link') == 0.01  # the world sees the padded robot
    scene.set_link_padding({'forearm_link': 0.02})  # per link: the same for self pairs
    assert scene.get_link_padding()['forearm_link'] == 0.02
    assert scene.get_link_padding()['base_link'] == 0.0
    assert not scene.check_self_collision(state).collision


def test_padding_against_a_world_box_is_exact(model: RobotModel) -> None:
    X_WO, shapes = front_box(0.005)
    for padding, colliding in ((0.0, False), (0.004, False), (0.006, True), (0.01, True)):
        scene = PlanningScene(model, padding=padding)
        scene.apply_world_object(ADD, 'box', X_WO, shapes)
        state = scene.current_state
        assert scene.check_collision(state).collision is colliding, padding
        assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(
            0.005 - padding, abs=EXACT)


# ---------------------------------------------------------------------------- contacts


def test_contact_fields_and_normal_direction(model: RobotModel, scene: PlanningScene) -> None:
    X_WO, shapes = front_box(-0.01)
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    state = scene.current_state
    result = scene.check_collision(state, all_contacts(max_contacts_per_pair=1))
    assert result.collision and result.contact_count == 1
    (c,) = result.contacts
    assert (c.body_name_1, c.body_type_1) == ('base_link', BodyType.ROBOT_LINK)
    assert (c.body_name_2, c.body_type_2) == ('box', BodyType.WORLD_OBJECT)
    assert c.depth == pytest.approx(0.01, abs=EXACT)
    # From body 1 (the base) into body 2 (the box): +x. Moving the box by depth * normal
    # separates them.
    np.testing.assert_allclose(c.normal_W, (1.0, 0.0, 0.0), atol=EXACT)
    assert c.position_W[0] == pytest.approx(BASE_FRONT_X - 0.005, abs=EXACT)
    assert -0.05 - EXACT <= c.position_W[1] <= 0.05 + EXACT
    assert 0.1 - EXACT <= c.position_W[2] <= 0.2 + EXACT
    assert not c.position_W.flags.writeable
    assert result.contacts_by_pair() == {('base_link', 'box'): [c]}
    moved = X_WO.copy()
    moved[:3, 3] += c.depth * c.normal_W + (1e-6, 0, 0)
    scene.apply_world_object(MOVE, 'box', moved)
    assert not scene.check_collision(state).collision

    # max_contacts / max_contacts_per_pair truncation, no contacts without the request
    state.set_variable_positions(FOLDED)
    assert scene.check_collision(state).contacts == ()
    assert scene.check_collision(state, CollisionRequest(contacts=True)).contact_count == 1
    many = scene.check_collision(state, all_contacts(max_contacts_per_pair=4))
    per_pair = [len(v) for v in many.contacts_by_pair().values()]
    assert max(per_pair) <= 4 and many.contact_count == sum(per_pair)
    with pytest.raises(InvalidArgumentError):
        CollisionRequest(max_contacts=0)


def test_distance_in_the_result_and_self_world_switches(model: RobotModel,
                                                        scene: PlanningScene) -> None:
    X_WO, shapes = front_box(0.003)
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    world_only = scene.distance_to_collision(state, self_collision=False)
    self_only = scene.distance_to_collision(state, world_collision=False)
    assert world_only == pytest.approx(0.003, abs=EXACT)
    assert scene.distance_to_collision(state) == min(world_only, self_only)
    result = scene.check_collision(state, CollisionRequest(distance=True))
    assert result.distance == min(world_only, self_only) and not result.collision
    assert scene.check_collision(state).distance == math.inf
    assert scene.distance_to_collision(state, self_collision=False, world_collision=False) \
        == math.inf
    X_WO, shapes = front_box(-0.02)
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    assert scene.check_collision(state, CollisionRequest(world_collision=False)).collision \
        is False
    assert scene.check_collision(state, CollisionRequest(self_collision=False)).collision
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(
        -0.02, abs=EXACT)


# ---------------------------------------------------------------------------- world objects


def test_world_object_operations(model: RobotModel, scene: PlanningScene) -> None:
    v0 = scene.version
    X1 = translation(1.0, 0.0, 0.5)
    scene.apply_world_object(ADD, 'crate', X1, [(Box(0.1, 0.1, 0.1), np.eye(4))],
                             {'handle': translation(0, 0, 0.05)})
    crate = scene.world['crate']
    assert isinstance(crate, WorldObject) and len(crate.shapes) == 1
    np.testing.assert_array_equal(crate.X_WO, X1)
    handle = crate.subframe_world_pose('handle')
    assert handle is not None and crate.subframe_world_pose('nope') is None
    np.testing.assert_allclose(handle, translation(1.0, 0, 0.55))
    assert scene.version > v0
    with pytest.raises(TypeError):
        scene.world['x'] = crate  # type: ignore[index]

    # ADD twice replaces
    scene.apply_world_object(ADD, 'crate', X1, [(Sphere(0.05), np.eye(4)),
                                                (Sphere(0.02), translation(0.1))])
    crate = scene.world['crate']
    assert [s for s, _ in crate.shapes] == [Sphere(0.05), Sphere(0.02)]
    assert dict(crate.subframes) == {}

    # APPEND adds shapes (poses in the object frame), and creates absent objects
    scene.apply_world_object(APPEND, 'crate', None, [(Box(0.2, 0.2, 0.01), translation(0, 0, -1))],
                             {'top': translation(0, 0, 0.1)})
    crate = scene.world['crate']
    assert [s for s, _ in crate.shapes] == [Sphere(0.05), Sphere(0.02), Box(0.2, 0.2, 0.01)]
    np.testing.assert_allclose(crate.shape_world_poses()[2], translation(1.0, 0, -0.5))
    assert set(crate.subframes) == {'top'}
    scene.apply_world_object(APPEND, 'new', X1, [(Sphere(0.1), np.eye(4))])
    assert set(scene.world) == {'crate', 'new'}

    # MOVE keeps shapes and subframes; the shapes given are ignored (MoveIt)
    X2 = pose_from_xyz_rpy((2.0, 1.0, 0.0), (0.0, 0.0, 0.5))
    scene.apply_world_object(MOVE, 'crate', X2, [(Box(1, 1, 1), np.eye(4))])
    moved = scene.world['crate']
    assert [s for s, _ in moved.shapes] == [s for s, _ in crate.shapes]
    np.testing.assert_array_equal(moved.shape_poses, crate.shape_poses)
    np.testing.assert_allclose(moved.shape_world_poses(), X2 @ crate.shape_poses)
    assert set(moved.subframes) == {'top'}
    with pytest.raises(UnknownNameError):
        scene.apply_world_object(MOVE, 'ghost', X2)
    with pytest.raises(InvalidArgumentError):
        scene.apply_world_object(MOVE, 'crate')

    # REMOVE
    with pytest.raises(UnknownNameError):
        scene.apply_world_object(REMOVE, 'ghost')
    scene.apply_world_object(REMOVE, 'new')
    assert set(scene.world) == {'crate'}
    scene.apply_world_object(ADD, 'other', X1, [(Sphere(0.1), np.eye(4))])
    scene.apply_world_object(REMOVE, '')
    assert dict(scene.world) == {}

    with pytest.raises(InvalidArgumentError):
        scene.apply_world_object(ADD, 'empty', X1, [])
    with pytest.raises(InvalidArgumentError):
        scene.apply_world_object(ADD, '', X1, [(Sphere(0.1), np.eye(4))])
    with pytest.raises(InvalidArgumentError):
        scene.apply_world_object(7, 'x')
    with pytest.raises(InvalidArgumentError):
        scene.apply_world_object(ADD, 'x', np.eye(3), [(Sphere(0.1), np.eye(4))])
    scene.apply_world_object(int(ADD), 'int_op', None, [(Sphere(0.1), np.eye(4))])
    np.testing.assert_array_equal(scene.world['int_op'].X_WO, np.eye(4))


def test_world_changes_reach_the_collision_check(model: RobotModel,
                                                 scene: PlanningScene) -> None:
    state = scene.current_state
    assert not scene.check_collision(state).collision
    X_WO, shapes = front_box(0.02)
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    assert not scene.check_collision(state).collision
    scene.apply_world_object(MOVE, 'box', translation(BASE_FRONT_X + 0.04, 0.0, 0.15))
    assert scene.check_collision(state).collision
    scene.apply_world_object(REMOVE, 'box')
    assert not scene.check_collision(state).collision
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    scene.apply_world_object(APPEND, 'box', None, [(Sphere(0.03), translation(-0.06))])
    result = scene.check_collision(state, all_contacts())
    assert pairs_of(result) == {('base_link', 'box')}


# ---------------------------------------------------------------------------- attached bodies


def test_attach_detach_round_trip(model: RobotModel, scene: PlanningScene) -> None:
    state = scene.current_state
    state.set_variable_positions(named(model, 'ready'))
    X_W_palm = state.get_global_link_transform('gripper_palm_link')
    X_WO = X_W_palm @ translation(0.0, 0.0, 0.3)
    scene.apply_world_object(ADD, 'crate', X_WO, [(Box(0.05, 0.05, 0.05), translation(0.01))],
                             {'grip': translation(0, 0, 0.02)})
    v = scene.version
    body = scene.attach_object('gripper_palm_link', 'crate', None, [], {})  # as the node calls
    assert scene.version > v
    assert 'crate' not in scene.world
    assert state.get_attached_body('crate') is body
    assert body.link == 'gripper_palm_link' and not body.touch_links  # MoveIt: none implied
    np.testing.assert_allclose(body.pose, translation(0.0, 0.0, 0.3), atol=1e-12)
    np.testing.assert_allclose(body.shape_poses[0], translation(0.01))
    np.testing.assert_allclose(state.get_frame_transform('crate/grip'),
                               X_WO @ translation(0, 0, 0.02), atol=1e-12)

    # round trip at the same state
    obj = scene.detach_object('crate')
    assert state.get_attached_body('crate') is None
    assert scene.world['crate'] is obj
    np.testing.assert_allclose(obj.X_WO, X_WO, atol=1e-12)
    np.testing.assert_allclose(obj.shape_poses[0], translation(0.01))
    assert set(obj.subframes) == {'grip'}

    # attached bodies follow the link; detaching leaves them where they are
    scene.attach_object('gripper_palm_link', 'crate')
    state.set_variable_positions({'shoulder_pan_joint': 0.7})
    X_new = state.get_global_link_transform('gripper_palm_link') @ translation(0, 0, 0.3)
    obj = scene.detach_object('crate')
    np.testing.assert_allclose(obj.X_WO, X_new, atol=1e-12)

    with pytest.raises(UnknownNameError):
        scene.detach_object('crate')
    with pytest.raises(UnknownNameError):
        scene.attach_object('gripper_palm_link', 'ghost')
    with pytest.raises(UnknownNameError):
        scene.attach_object('no_such_link', 'crate')
    with pytest.raises(UnknownNameError):
        scene.attach_object('gripper_palm_link', 'crate', touch_links=['no_such_link'])


def test_attach_with_shapes_and_reattach(model: RobotModel, scene: PlanningScene) -> None:
    state = scene.current_state
    state.set_variable_positions(named(model, 'ready'))
    X_WL = state.get_global_link_transform('tcp')
    X_WO = X_WL @ translation(0, 0, 0.05)
    scene.apply_world_object(ADD, 'tool', translation(3.0), [(Sphere(0.1), np.eye(4))])
    body = scene.attach_object('tcp', 'tool', X_WO, [(Cylinder(0.01, 0.1), np.eye(4))],
                               {'tip': translation(0, 0, 0.05)}, touch_links=['left_finger_link'])
    assert 'tool' not in scene.world  # a world object of that id is replaced (MoveIt)
    assert body.touch_links == {'left_finger_link'}  # the link is not implied (MoveIt)
    np.testing.assert_allclose(body.pose, translation(0, 0, 0.05), atol=1e-12)
    default_pose = scene.attach_object('tcp', 'plain', None, [(Sphere(0.01), np.eye(4))])
    np.testing.assert_allclose(default_pose.pose, np.eye(4), atol=1e-12)
    # already attached, no shapes: re-attached to another link, keeping its world pose
    moved = scene.attach_object('wrist_roll_link', 'tool')
    assert moved.link == 'wrist_roll_link' and moved.shapes == body.shapes
    np.testing.assert_allclose(state.get_global_link_transform('wrist_roll_link') @ moved.pose,
                               X_WO, atol=1e-12)


def gripper_sphere(state: RobotState) -> np.ndarray:
    """Model-frame pose of a sphere centred on the left finger's frame."""
    return state.get_global_link_transform('left_finger_link').copy()


def test_touch_links_and_attached_against_world(model: RobotModel,
                                                scene: PlanningScene) -> None:
    state = scene.current_state
    state.set_variable_positions(named(model, 'ready'))
    X_WO = gripper_sphere(state)
    shapes = [(Sphere(0.02), np.eye(4))]
    scene.attach_object('gripper_palm_link', 'ball', X_WO, shapes)
    result = scene.check_collision(state, all_contacts())
    assert result.collision
    assert ('left_finger_link', 'ball') in pairs_of(result)
    contact = next(c for c in result.contacts if c.pair == ('left_finger_link', 'ball'))
    assert (contact.body_type_1, contact.body_type_2) == (BodyType.ROBOT_LINK,
                                                           BodyType.ROBOT_ATTACHED)
    touching = {'gripper_palm_link', 'left_finger_link', 'right_finger_link', 'wrist_roll_link'}
    scene.attach_object('gripper_palm_link', 'ball', X_WO, shapes, touch_links=touching)
    assert not scene.check_collision(state).collision
    names = {tuple(p.split('/')[0] for p in pair) for pair in scene.candidate_pairs()}
    assert not any(pair[1] == 'ball' and pair[0] in touching for pair in names)
    assert ('upper_arm_link', 'ball') in names

    # the attached body collides with the world, but the fingers do not reach the box
    box_pose = translation(*X_WO[:3, 3])  # a table top 1.5 cm into the ball from below
    box_pose[2, 3] -= 0.04
    scene.apply_world_object(ADD, 'table', box_pose, [(Box(0.3, 0.3, 0.05), np.eye(4))])
    result = scene.check_collision(state, all_contacts())
    body_pairs = {(c.pair, c.body_type_1, c.body_type_2) for c in result.contacts}
    assert (('ball', 'table'), BodyType.ROBOT_ATTACHED, BodyType.WORLD_OBJECT) in body_pairs
    scene.acm.add_allowed_collision('ball', 'table')
    assert ('ball', 'table') not in pairs_of(scene.check_collision(state, all_contacts()))
    scene.acm.remove_entry('ball', 'table')

    # world collision off: only self pairs; the ball touches only touch links
    assert not scene.check_collision(state, CollisionRequest(world_collision=False)).collision
    # a second body on the same link overlapping the first is allowed (MoveIt)
    scene.apply_world_object(REMOVE, 'table')
    scene.attach_object('gripper_palm_link', 'ball2', X_WO, shapes, touch_links=touching)
    assert not scene.check_collision(state).collision
    scene.attach_object('wrist_roll_link', 'ball2', X_WO, shapes,
                        touch_links=touching | {'gripper_palm_link'})
    assert pairs_of(scene.check_collision(state, all_contacts())) == {('ball', 'ball2')}


def test_attached_bodies_of_the_queried_state_count(model: RobotModel,
                                                    scene: PlanningScene) -> None:
    # Queries use the attached bodies of the state passed in, not those of the current state.
    other = RobotState(model)
    other.set_variable_positions(named(model, 'ready'))
    X_WO = gripper_sphere(other)
    other.attach_body('ball', 'gripper_palm_link', [Sphere(0.02)],
                      pose=np.linalg.inv(other.get_global_link_transform('gripper_palm_link'))
                      @ X_WO)
    assert scene.check_collision(other).collision
    scene.current_state.set_variable_positions(named(model, 'ready'))
    assert not scene.check_collision(scene.current_state).collision
    assert scene.check_collision(other).collision
    with pytest.raises(ModelMismatchError):
        scene.check_collision(RobotState(RobotModel.from_urdf_file(default_robot_urdf_path())))


# ---------------------------------------------------------------------------- groups


def test_group_restricted_checks(model: RobotModel, scene: PlanningScene) -> None:
    X_WO, shapes = front_box(-0.01)
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    assert scene.check_collision(state).collision
    for group in ('arm', 'gripper', 'lift'):  # none of them moves the base
        assert not scene.check_collision(state, CollisionRequest(group_name=group)).collision
        assert scene.is_state_valid(state, group).valid
    assert scene.check_collision(state, CollisionRequest(group_name='base')).collision
    assert scene.check_collision(state, CollisionRequest(group_name='whole_body')).collision

    state.set_variable_positions(FOLDED)
    scene.apply_world_object(REMOVE, 'box')
    folded = pairs_of(scene.check_collision(state, all_contacts()))
    gripper = pairs_of(scene.check_collision(state, all_contacts(group_name='gripper')))
    # MoveIt's group check covers the links below the group's active joints (the fingers; the
    # palm hangs on a fixed joint of the group and moves with the arm, not with the gripper)
    gripper_links = {'left_finger_link', 'right_finger_link'}
    assert set(model.group('gripper').updated_link_model_names) == gripper_links
    assert gripper and gripper == {p for p in folded if gripper_links & set(p)}
    assert any('gripper_palm_link' in p and not gripper_links & set(p) for p in folded)
    # the arm group moves everything from the shoulder on, the base group everything
    assert pairs_of(scene.check_collision(state, all_contacts(group_name='base'))) == folded
    assert set(scene.candidate_pairs(request=CollisionRequest(group_name='arm'))) <= \
        set(scene.candidate_pairs())
    with pytest.raises(UnknownNameError):
        scene.check_collision(state, CollisionRequest(group_name='no_such_group'))
    with pytest.raises(UnknownNameError):
        scene.is_state_valid(state, 'no_such_group')

    # bodies attached to a link of the group count as the group's
    state.set_variable_positions(named(model, 'ready'))
    X_WO = gripper_sphere(state)
    scene.attach_object('gripper_palm_link', 'ball', X_WO, [(Sphere(0.02), np.eye(4))])
    assert scene.check_collision(state, CollisionRequest(group_name='gripper')).collision
    # the lift moves the arm, hence the gripper and the ball too
    assert scene.check_collision(state, CollisionRequest(group_name='lift')).collision


# ---------------------------------------------------------------------------- validity


def test_is_state_valid_with_constraints(model: RobotModel, scene: PlanningScene) -> None:
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    ok = JointConstraint('elbow_joint', 2.5, 0.1, 0.1)
    bad = JointConstraint('elbow_joint', 1.0, 0.1, 0.1)
    X_W_tcp = state.get_global_link_transform('tcp')
    region = ((Sphere(0.05), X_W_tcp.copy()),)
    inside = PositionConstraint('tcp', region)
    validity = scene.is_state_valid(state, 'arm', Constraints('c', (ok, bad), (inside,)))
    assert isinstance(validity, StateValidity)
    assert [r.result for r in validity.constraint_results] == [True, False, True]
    assert validity.constraint_results[1].distance == pytest.approx(1.5)
    assert not validity.valid and 'constraint(s) [1] violated' in validity.message
    validity = scene.is_state_valid(state, None, Constraints('c', (ok,), (inside,)))
    assert validity.valid and validity.message == ''
    assert scene.is_state_valid(state, constraints=Constraints()).constraint_results == ()

    # collision and constraints together; contacts only on request
    state.set_variable_positions(FOLDED)
    validity = scene.is_state_valid(state, None, Constraints('c', (ok,)), contacts=True)
    assert not validity.valid and len(validity.contacts) > 1
    assert 'in collision' in validity.message and 'constraint(s) [0] violated' in \
        validity.message
    only_constraints = scene.is_state_valid(state, None, Constraints('c', (ok,)),
                                            check_collisions=False)
    assert only_constraints.contacts == () and 'collision' not in only_constraints.message

    # joint bounds are not checked (MoveIt check_state_validity)
    state.set_variable_positions(named(model, 'home'))
    state.set_variable_positions({'lift_joint': 0.5})
    assert not state.satisfies_bounds()
    assert scene.is_state_valid(state).valid


# ---------------------------------------------------------------------------- copy, meshes


def test_copy_is_an_independent_snapshot(model: RobotModel, scene: PlanningScene) -> None:
    state = scene.current_state
    state.set_variable_positions(named(model, 'home'))
    X_WO, shapes = front_box(-0.01)
    scene.apply_world_object(ADD, 'box', X_WO, shapes)
    scene.check_collision(state)  # compile before copying
    snapshot = scene.copy()
    assert snapshot.version == scene.version
    assert snapshot.geometry is scene.geometry and snapshot.model is model
    assert snapshot.current_state is not state and snapshot.acm is not scene.acm
    assert snapshot.check_collision(snapshot.current_state).collision

    scene.apply_world_object(REMOVE, 'box')
    scene.acm.remove_entry('base_link', 'lift_link')
    state.set_variable_positions(FOLDED)
    assert set(snapshot.world) == {'box'}
    assert snapshot.acm.is_collision_allowed('base_link', 'lift_link')
    np.testing.assert_allclose(snapshot.current_state.get_variable_position('elbow_joint'), 2.5)
    assert pairs_of(snapshot.check_collision(snapshot.current_state, all_contacts())) == {
        ('base_link', 'box')}
    assert ('base_link', 'lift_link') in pairs_of(scene.check_collision(state, all_contacts()))

    # a copy can be used from another thread while the original keeps working
    errors: list[BaseException] = []
    verdicts: list[bool] = []

    def worker() -> None:
        try:
            checker = snapshot.current_state.copy()
            for k in range(200):
                checker.set_variable_positions({'shoulder_pan_joint': 0.01 * k})
                verdicts.append(snapshot.check_collision(checker).collision)
        except BaseException as err:
            errors.append(err)

    thread = threading.Thread(target=worker)
    thread.start()
    for k in range(200):
        state.set_variable_positions({'shoulder_pan_joint': -0.01 * k})
        assert scene.check_collision(state).collision
    thread.join()
    assert not errors and all(verdicts) and len(verdicts) == 200


def test_mesh_shape_round_trip(model: RobotModel, scene: PlanningScene) -> None:
    # A 10 cm cube as shape_msgs/Mesh: 8 vertices, 12 outward triangles.
    corners = np.array([[x, y, z] for x in (-0.05, 0.05) for y in (-0.05, 0.05)
                        for z in (-0.05, 0.05)])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    shape = scene.mesh_shape(corners, faces)
    assert isinstance(shape, Mesh) and shape.path is not None
    assert shape.path.startswith(meshes.MEMORY_SCHEME) and shape.uri == shape.path
    assert scene.mesh_shape(corners, faces) == shape  # same arrays: same in-memory entry
    v, f = meshes.load_mesh(shape.path)
    def triangles(vertices: np.ndarray, tris: np.ndarray) -> set[tuple[object, ...]]:
        out: set[tuple[object, ...]] = set()
        for t in tris:  # rotate each triangle to a canonical start: keeps the winding
            corners_t = [tuple(np.round(vertices[i], 6).tolist()) for i in t]
            k = corners_t.index(min(corners_t))
            out.add(tuple(corners_t[k:] + corners_t[:k]))
        return out

    assert triangles(corners, faces) == triangles(v, f)
    np.testing.assert_allclose(np.sort(v, axis=0), np.sort(corners, axis=0), atol=1e-8)

    # it collides like the box it is
    X_WO, _ = front_box(-0.01)
    scene.apply_world_object(ADD, 'mesh_box', X_WO, [(shape, np.eye(4))])
    state = scene.current_state
    assert pairs_of(scene.check_collision(state, all_contacts())) == {('base_link', 'mesh_box')}
    scene.apply_world_object(MOVE, 'mesh_box', front_box(0.004)[0])
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(
        0.004, abs=1e-9)  # float64 coordinates (no float32 STL in between)

    with pytest.raises(InvalidArgumentError):
        scene.mesh_shape(corners, faces + 8)
    with pytest.raises(InvalidArgumentError):
        scene.mesh_shape(corners[:, :2], faces)
    with pytest.raises(InvalidArgumentError):
        scene.mesh_shape(corners, faces.astype(float) + 0.5)

    # copies and other scenes share the entry (content-keyed, like a mesh file's cache)
    local = PlanningScene(model)
    assert local.mesh_shape(corners, faces) == shape
    assert local.copy().mesh_shape(corners * 2, faces) == local.mesh_shape(corners * 2, faces)


def _cube_arrays(half: float) -> tuple[np.ndarray, np.ndarray]:
    corners = np.array([[x, y, z] for x in (-half, half) for y in (-half, half)
                        for z in (-half, half)])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return corners, faces


@pytest.mark.parametrize('kind', [Mesh, Convex])
def test_array_mesh_answers_as_the_same_stl_file(model: RobotModel, kind: type,
                                                 tmp_path: object,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A world object given as arrays collides and measures as the same mesh read from an STL.

    The STL is written here with trimesh; the cube's coordinates (1/16 m) are exact in float32,
    so the file holds the same numbers and the answers must agree exactly. Oracle for the
    distances: the closed-form gap between the base box's front face and the cube.
    """
    half = 0.0625
    corners, faces = _cube_arrays(half)
    stl = os.path.join(str(tmp_path), 'cube.stl')
    trimesh.Trimesh(corners, faces, process=False).export(stl)

    temp_root = tempfile.gettempdir()
    before = {n for n in os.listdir(temp_root) if n.startswith('robot_state_core_meshes_')}

    def no_temp(*args: object, **kwargs: object) -> str:
        raise AssertionError('the product wrote a temporary file')

    monkeypatch.setattr(tempfile, 'mkdtemp', no_temp)
    monkeypatch.setattr(tempfile, 'mkstemp', no_temp)

    from_arrays = PlanningScene(model)
    from_file = PlanningScene(model)
    arrays_shape = from_arrays.mesh_shape(corners, faces)
    shape_a = kind(arrays_shape.uri, path=arrays_shape.path)
    shape_f = kind(stl, path=stl)
    # the welded vertices and triangles are those read from the file
    va, fa = meshes.load_mesh(arrays_shape.path or '')
    vf, ff = meshes.load_mesh(stl)
    np.testing.assert_array_equal(va, vf)
    np.testing.assert_array_equal(fa, ff)

    for k, gap in enumerate((0.03, 0.004, -0.01)):
        X_WO = translation(BASE_FRONT_X + gap + half, 0.0, 0.15)
        for sc, sh in ((from_arrays, shape_a), (from_file, shape_f)):
            if k == 0:
                sc.apply_world_object(ADD, 'cube', X_WO, [(sh, np.eye(4))])
            else:
                sc.apply_world_object(MOVE, 'cube', X_WO)
        state_a, state_f = from_arrays.current_state, from_file.current_state
        ra = from_arrays.check_collision(state_a, all_contacts())
        rf = from_file.check_collision(state_f, all_contacts())
        assert ra.collision == rf.collision == (gap < 0.0)
        assert pairs_of(ra) == pairs_of(rf)
        assert sorted(c.depth for c in ra.contacts) == sorted(c.depth for c in rf.contacts)
        da = from_arrays.distance_to_collision(state_a, self_collision=False)
        df = from_file.distance_to_collision(state_f, self_collision=False)
        assert da == df
        if gap > 0.0:
            assert da == pytest.approx(gap, abs=1e-9)  # closed form: face-to-face gap

    # the same as an attached body (the bounding box and the fcl geometry read the arrays)
    for sc, sh in ((from_arrays, shape_a), (from_file, shape_f)):
        sc.attach_object('tcp', 'held', None, [(sh, np.eye(4))])
    ra = from_arrays.check_collision(from_arrays.current_state, all_contacts())
    rf = from_file.check_collision(from_file.current_state, all_contacts())
    assert pairs_of(ra) == pairs_of(rf) and ra.collision == rf.collision

    after = {n for n in os.listdir(temp_root) if n.startswith('robot_state_core_meshes_')}
    assert after == before


def test_scene_graph_is_the_geometry_store(model: RobotModel, scene: PlanningScene) -> None:
    scene.apply_world_object(ADD, 'crate', translation(1.0), [(Box(0.1, 0.1, 0.1), np.eye(4)),
                                                             (Sphere(0.1), translation(0.2))])
    scene.attach_object('tcp', 'tool', None, [(Sphere(0.01), np.eye(4))])
    sg = scene.scene_graph
    inspector = sg.model_inspector()

    def proximity_names() -> set[str]:
        return {inspector.get_name(g) for g in inspector.get_all_geometry_ids(Role.PROXIMITY)}

    assert {'crate/0', 'crate/1', 'tool/0', 'base_link/0'} <= proximity_names()
    assert inspector.num_anchored_geometries() == 2
    source_names = {inspector.get_name(s) for s in inspector.get_all_source_ids()}
    assert {'robot', 'world'} <= source_names
    # one registry, edited in place by the scene's world and attachment operations
    scene.apply_world_object(REMOVE, 'crate')
    assert scene.scene_graph is sg
    assert inspector.num_anchored_geometries() == 0
    assert not {'crate/0', 'crate/1'} & proximity_names()
    scene.detach_object('tool')
    assert 'tool/0' in proximity_names() and inspector.num_anchored_geometries() == 1
    tool = inspector.get_all_geometry_ids(Role.PROXIMITY)[-1]
    assert inspector.get_frame_id(tool) == inspector.world_frame_id()


def test_invalid_arguments(model: RobotModel) -> None:
    with pytest.raises(InvalidArgumentError):
        PlanningScene(model, broadphase='bvh')  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        PlanningScene('model')  # type: ignore[arg-type]
    scene = PlanningScene(model)
    with pytest.raises(InvalidArgumentError):
        scene.acm = {}  # type: ignore[assignment]
    replacement = AllowedCollisionMatrix()
    v = scene.version
    scene.acm = replacement
    assert scene.acm is replacement and scene.version > v
    scene.current_state.set_variable_positions(named(model, 'home'))
    assert scene.check_collision(scene.current_state).collision  # no SRDF entries now
    assert 'PlanningScene' in repr(scene) and 'RobotGeometry' in repr(scene.geometry)


@pytest.mark.parametrize('broadphase', ['pairs', 'aabb', 'manager'])
def test_broad_phases_agree(model: RobotModel, broadphase: str) -> None:
    reference = PlanningScene(model)
    scene = PlanningScene(model, broadphase=broadphase)  # type: ignore[arg-type]
    assert scene.broadphase == broadphase
    for s in (reference, scene):
        s.apply_world_object(ADD, 'box', *front_box(-0.01))
    state = RobotState(model, rng=SEED)
    for _ in range(200):
        state.set_to_random_positions()
        state.set_variable_positions({'base_joint/x': 0.0, 'base_joint/y': 0.0})
        expected = reference.check_collision(state, all_contacts())
        result = scene.check_collision(state, all_contacts())
        assert result.collision == expected.collision
        assert pairs_of(result) == pairs_of(expected)
        assert scene.check_collision(state).collision == expected.collision


def test_half_space_floor(model: RobotModel, scene: PlanningScene) -> None:
    # Wheels (radius 0.075 at z = 0.075) and casters (radius 0.03 at z = 0.03) rest on z = 0.
    scene.apply_world_object(ADD, 'floor', translation(0.0, 0.0, -0.001),
                             [(HalfSpace(), np.eye(4))])
    state = scene.current_state
    assert not scene.check_collision(state).collision
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(
        0.001, abs=EXACT)
    scene.apply_world_object(MOVE, 'floor', translation(0.0, 0.0, 0.01))
    result = scene.check_collision(state, all_contacts())
    assert {a for a, _ in pairs_of(result)} == {'base_link'}
    for c in result.contacts:
        assert c.body_type_2 == BodyType.WORLD_OBJECT
        np.testing.assert_allclose(c.normal_W, (0.0, 0.0, -1.0), atol=1e-9)
        assert c.depth == pytest.approx(0.01, abs=1e-9)
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(
        -0.01, abs=1e-9)


# ---------------------------------------------------------------------------- MoveIt's world API


def test_move_with_shape_poses_and_world_edits(model: RobotModel, scene: PlanningScene) -> None:
    """MoveIt's world edits: MOVE with shape poses, set_object_pose, move_object, one shape.

    MOVE's shape-pose count is checked first (PS3); set_object_pose creates an object without
    shapes; move_object is relative; one shape is moved or removed by index.
    """
    X_WO, shapes = front_box(0.2)
    scene.apply_world_object(ADD, 'box', X_WO, [*shapes, (Sphere(0.02), translation(0, 0, 0.1))])
    before = scene.world['box']
    with pytest.raises(InvalidArgumentError):
        scene.apply_world_object(MOVE, 'box', translation(1.0), shape_poses=[np.eye(4)])
    assert scene.world['box'] is before  # nothing moved (MoveIt moves the object first)
    scene.apply_world_object(MOVE, 'box', translation(1.0),
                             shape_poses=[translation(0, 0, 0.5), np.eye(4)])
    np.testing.assert_array_equal(scene.world['box'].shape_world_poses()[0],
                                  translation(1.0, 0, 0.5))
    scene.move_object('box', translation(0.0, 1.0))
    np.testing.assert_array_equal(scene.world['box'].X_WO, translation(1.0, 1.0))
    scene.move_shape_in_object('box', 1, translation(0, 0, -0.2))
    np.testing.assert_array_equal(scene.world['box'].shapes[1][1], translation(0, 0, -0.2))
    with pytest.raises(InvalidArgumentError):
        scene.move_shape_in_object('box', 2, np.eye(4))
    scene.set_object_pose('marker', translation(3.0))  # a pose and subframes, no shapes
    scene.set_subframes_of_object('marker', {'tip': translation(0, 0, 1)})
    assert scene.world['marker'].shapes == ()
    np.testing.assert_array_equal(scene.get_frame_transform('marker/tip'), translation(3, 0, 1))
    assert not scene.check_collision(scene.current_state).collision
    scene.acm.set_entry('box', 'base_link', True)
    scene.set_object_color('box', (1.0, 0.0, 0.0, 1.0))
    scene.remove_shape_from_object('box', 0)
    assert len(scene.world['box'].shapes) == 1 and 'box' in scene.acm
    scene.remove_shape_from_object('box', 0)  # the last one: the object goes, with its entries
    assert 'box' not in scene.world and 'box' not in scene.acm
    assert scene.get_object_color('box') is None
    with pytest.raises(UnknownNameError):
        scene.move_object('box', np.eye(4))


def test_colours_and_types_survive_attach_and_detach(scene: PlanningScene) -> None:
    """Colours and types are kept by id (MoveIt's rememberMetadataWhenAttached, core API)."""
    from robot_state_core.scene.planning_scene import ObjectType

    scene.apply_world_object(ADD, 'cup', translation(0.5, 0, 1.0), [(Sphere(0.03), np.eye(4))])
    scene.set_object_color('cup', (0.0, 0.0, 1.0, 1.0))
    scene.set_object_type('cup', ObjectType('mug', 'db'))
    scene.attach_object('gripper_palm_link', 'cup')
    assert 'cup' not in scene.world and scene.get_object_color('cup') == (0.0, 0.0, 1.0, 1.0)
    scene.detach_object('cup')
    assert scene.get_object_type('cup') == ObjectType('mug', 'db')
    with pytest.raises(InvalidArgumentError):
        scene.set_object_color('cup', (1.0, math.nan, 0.0, 1.0))
    scene.apply_world_object(REMOVE, 'cup')
    assert not scene.has_object_color('cup') and not scene.has_object_type('cup')


def test_diff_scene_records_and_pushes(model: RobotModel, scene: PlanningScene) -> None:
    """diff(): a snapshot that records its changes; push_diffs applies them to the parent."""
    X_WO, shapes = front_box(0.3)
    scene.apply_world_object(ADD, 'a', X_WO, shapes)
    scene.apply_world_object(ADD, 'b', translation(2.0), shapes)
    child = scene.diff()
    assert child.parent is scene and not child.changes()
    child.apply_world_object(REMOVE, 'a')
    child.apply_world_object(ADD, 'c', translation(3.0), shapes)
    child.set_object_color('b', (0.0, 1.0, 0.0, 1.0))
    child.acm.set_entry('b', 'base_link', True)
    child.current_state.set_variable_positions(named(model, 'ready'))
    changes = child.changes()
    assert changes.world_changed == ('c',) and changes.world_removed == ('a',)
    assert changes.robot_state and changes.acm and changes.object_colors == ('b',)
    assert set(scene.world) == {'a', 'b'}  # the parent is untouched until pushed
    child.push_diffs()
    assert set(scene.world) == {'b', 'c'}
    assert scene.get_object_color('b') == (0.0, 1.0, 0.0, 1.0)
    assert scene.acm.is_collision_allowed('b', 'base_link')
    np.testing.assert_array_equal(scene.current_state.positions, child.current_state.positions)
    child.apply_world_object(ADD, 'd', translation(4.0), shapes)
    child.clear_diffs()
    assert set(child.world) == {'b', 'c'} and not child.changes()
    child.decouple_parent()
    assert child.parent is None
    with pytest.raises(InvalidArgumentError):
        child.push_diffs()


def test_frames_the_scene_knows(model: RobotModel, scene: PlanningScene) -> None:
    """MoveIt getFrameTransform: every frame the scene knows; unknown frames raise.

    Model frame, links, attached bodies, world objects, their subframes, fixed frames (MoveIt
    returns the identity for an unknown frame).
    """
    scene.apply_world_object(ADD, 'crate', translation(1.0), [(Box(0.1, 0.1, 0.1), np.eye(4))],
                             {'handle': translation(0, 0, 0.2)})
    scene.set_fixed_frames({'/table': translation(0, 2.0)})
    assert set(scene.fixed_frames) == {'table'}
    np.testing.assert_array_equal(scene.get_frame_transform(model.model_frame), np.eye(4))
    np.testing.assert_array_equal(scene.get_frame_transform('/crate/handle'),
                                  translation(1.0, 0, 0.2))
    np.testing.assert_array_equal(scene.get_frame_transform('table'), translation(0, 2.0))
    np.testing.assert_allclose(scene.get_frame_transform('tool0'),
                               scene.current_state.get_global_link_transform('tool0'))
    assert not scene.knows_frame_transform('crate/nope')
    with pytest.raises(UnknownNameError):
        scene.get_frame_transform('nowhere')


def test_distance_requests_against_a_closed_form(model: RobotModel,
                                                 scene: PlanningScene) -> None:
    """distance_robot/distance_self with MoveIt's request types against closed forms.

    Boxes 3 cm and 8 cm in front of the base (the gaps are the distances): per pair,
    thresholds, groups and another ACM.
    """
    from robot_state_core.description.acm import AllowedCollisionMatrix
    from robot_state_core.scene.planning_scene import DistanceRequest, DistanceRequestType

    X1, shapes = front_box(0.03)
    X2, _ = front_box(0.08)
    scene.apply_world_object(ADD, 'near', X1, shapes)
    scene.apply_world_object(ADD, 'far', X2 @ translation(0, -0.15, 0), shapes)
    state = scene.current_state
    glob = scene.distance_robot(state)
    assert glob.minimum_distance.distance == pytest.approx(0.03, abs=EXACT)
    assert set(glob.minimum_distance.link_names) == {'base_link', 'near'}
    assert dict(glob.distances) == {} and not glob.collision
    p0, p1 = glob.minimum_distance.nearest_points
    assert p1[0] - p0[0] == pytest.approx(0.03, abs=EXACT)
    np.testing.assert_allclose(glob.minimum_distance.normal, (1.0, 0.0, 0.0), atol=1e-9)
    single = scene.distance_robot(state, DistanceRequest(DistanceRequestType.SINGLE))
    near = single.distances[('base_link', 'near')]
    assert len(near) == 1 and near[0].distance == pytest.approx(0.03, abs=EXACT)
    assert single.distances[('base_link', 'far')][0].distance == pytest.approx(0.08, abs=EXACT)
    limited = scene.distance_robot(state, DistanceRequest(
        DistanceRequestType.SINGLE, distance_threshold=0.05))
    assert set(limited.distances) == {('base_link', 'near')}
    assert scene.distance_robot(state, DistanceRequest(group_name='arm')).minimum_distance \
        .distance > 0.1  # the arm's links only
    no_acm = scene.distance_self(state, DistanceRequest(acm=AllowedCollisionMatrix()))
    assert no_acm.collision  # adjacent links touch once nothing is allowed
    assert scene.distance_self(state).minimum_distance.distance > 0.0
    assert scene.check_collision(state, acm=AllowedCollisionMatrix()).collision
    assert not scene.check_collision(state).collision


def test_readme_planning_scene_example_runs_verbatim(capsys: pytest.CaptureFixture[str]) -> None:
    """README "The planning scene": the Python example runs as written.

    It prints what its comments say.
    """
    readme = (Path(__file__).resolve().parents[1] / 'README.md').read_text(encoding='utf-8')
    start = readme.index('```python', readme.index('### The planning scene')) + len('```python')
    code = readme[start:readme.index('```', start)]
    exec(compile(code, 'README.md', 'exec'), {})
    printed = capsys.readouterr().out.splitlines()
    comments = [line.split('# ', 1)[1] for line in code.splitlines()
                if line.startswith('print(')]
    assert printed[0] == comments[0] == 'False'
    assert printed[1] == comments[1] == "('left_finger_link', 'shelf') 0.356"
    assert printed[2] == '13' and comments[2].startswith('13 ')
    assert printed[3] == comments[3] == "['bench', '* shelf', '0.8 0.0 0.7']"


def test_panda_hand_group_checks_the_fingers_only() -> None:
    """MoveIt's group link set: Panda's 'hand' group checks pairs with a finger only.

    collision_env_fcl checks active components only: the 'hand' group moves the fingers, not
    panda_hand (a fixed joint of the group), so no checked pair lacks a finger; before the fix
    panda_hand's pairs were checked too (issue 23).
    """
    robot = robot_corpus.test_robot('panda')
    panda = RobotModel.from_urdf_file(robot.urdf_path, robot.srdf_path,
                                      package_map=robot.package_map)
    assert set(panda.group('hand').updated_link_model_names) == {'panda_leftfinger',
                                                                  'panda_rightfinger'}
    scene = PlanningScene(panda)
    pairs = scene.candidate_pairs(request=CollisionRequest(group_name='hand'))
    links = [{a.split('/')[0], b.split('/')[0]} for a, b in pairs]
    assert links and all(ls & {'panda_leftfinger', 'panda_rightfinger'} for ls in links)
    everything = [{a.split('/')[0] for a in p} for p in scene.candidate_pairs()]
    assert any('panda_hand' in ls and not ls & {'panda_leftfinger', 'panda_rightfinger'}
               for ls in everything)  # panda_hand's own pairs: checked without a group


def test_an_attached_body_collides_with_its_own_link_unless_it_may_touch_it(
        model: RobotModel, scene: PlanningScene) -> None:
    """MoveIt checks an attached body against the link it hangs on; only touch links are exempt.

    (collision_detection_fcl ``collision_common.cpp``; the PR2 AttachedBodyTester's step 3). A
    box across the palm's face: in collision with no touch links, free with the palm as one,
    free again when the ACM allows the pair instead.
    """
    state = scene.current_state
    state.set_variable_positions(named(model, 'ready'))
    X_WP = state.get_global_link_transform('gripper_palm_link')
    scene.attach_object('gripper_palm_link', 'box', X_WP, [(Box(0.3, 0.3, 0.3), np.eye(4))],
                        touch_links=['left_finger_link', 'right_finger_link', 'wrist_roll_link',
                                     'tcp', 'tool0', 'wrist_pitch_link'])
    result = scene.check_collision(state, all_contacts())
    assert ('gripper_palm_link', 'box') in pairs_of(result)
    scene.attach_object('gripper_palm_link', 'box', X_WP, [(Box(0.3, 0.3, 0.3), np.eye(4))],
                        touch_links=['gripper_palm_link', 'left_finger_link', 'right_finger_link',
                                     'wrist_roll_link', 'tcp', 'tool0', 'wrist_pitch_link'])
    assert ('gripper_palm_link', 'box') not in pairs_of(scene.check_collision(state,
                                                                              all_contacts()))
    scene.attach_object('gripper_palm_link', 'box', X_WP, [(Box(0.3, 0.3, 0.3), np.eye(4))])
    scene.acm.set_entry('box', 'gripper_palm_link', True)
    assert ('gripper_palm_link', 'box') not in pairs_of(scene.check_collision(state,
                                                                              all_contacts()))

