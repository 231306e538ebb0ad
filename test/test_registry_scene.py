"""The registry is the scene's geometry: filter state, QueryObject snapshots, compiled filters.

* The candidate pairs of a :class:`PlanningScene` (and of its registry's inspector, which reads
  the same filter state) equal an independent brute-force enumeration of MoveIt's rules on
  Panda and Talos with attached bodies and world objects. The enumeration reads the SRDF with
  ``xml.etree`` and applies the rules pair by pair in plain Python; it shares no code with the
  scene's compilation.
* :class:`QueryObject` answers on one pose snapshot, honours the registry's filters, and its
  numbers match closed forms (sphere-sphere and sphere-box distances and depths).
* Compiled filters (our addition to ``CollisionFilterManager``): versions, purging, errors.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import robot_corpus

from robot_state_core.description.acm import AllowedCollisionMatrix
from robot_state_core.errors import GeometryRegistrationError, InvalidArgumentError
from robot_state_core.geometry import (
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    Role,
    SceneGraph,
)
from robot_state_core.geometry.query_object import QueryObject
from robot_state_core.geometry.shapes import Box, HalfSpace, Sphere
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    CollisionRequest,
    Contact,
    PlanningScene,
)
from robot_state_core.state.robot_state import RobotState

ADD = CollisionObjectOperation.ADD
REMOVE = CollisionObjectOperation.REMOVE
MOVE = CollisionObjectOperation.MOVE

# Per robot: (link, touch links) of two bodies attached to the same link, and a third body.
ATTACH = {
    'panda': (('panda_hand', ('panda_leftfinger', 'panda_rightfinger')),
              ('panda_link5', ())),
    'talos': (('gripper_left_base_link', ('gripper_left_inner_double_link',)),
              ('arm_right_4_link', ('arm_right_3_link',))),
}


def _translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def _srdf_disabled(path: Path) -> set[frozenset[str]]:
    """``disable_collisions`` pairs of an SRDF file, read with ``xml.etree`` (independent)."""
    root = ET.parse(path).getroot()
    return {frozenset((e.get('link1', ''), e.get('link2', '')))
            for e in root.iter('disable_collisions')}


@pytest.fixture(scope='module', params=['panda', 'talos'])
def loaded(request: pytest.FixtureRequest) -> tuple[str, RobotModel, set[frozenset[str]]]:
    robot = robot_corpus.test_robot(request.param)
    assert robot.srdf_path is not None
    model = RobotModel.from_urdf_file(robot.urdf_path, robot.srdf_path,
                                      package_map=robot.package_map)
    return request.param, model, _srdf_disabled(robot.srdf_path)


def _brute_force(scene: PlanningScene, state: RobotState, disabled: set[frozenset[str]],
                 allowed: set[frozenset[str]], conditional: set[frozenset[str]]
                 ) -> set[frozenset[str]]:
    """Every geometry pair MoveIt checks, by geometry name, from the rules one pair at a time.

    Rules (MoveIt's FCL checker with an SRDF ACM): bodies are links, attached bodies and world
    objects; two geometries of one body are never checked; two world objects are never
    checked; an attached body is not checked against its touch links (the link it hangs on
    only when listed: collision_common.cpp), nor against a body attached to the same link;
    ACM-allowed body pairs are skipped (CONDITIONAL ones are candidates); two half-spaces are
    never checked.
    """
    geometries: list[tuple[str, str, str, str | None, set[str], bool]] = []
    # (geometry name, body, kind, link, touch links, is half-space)
    geo = scene.geometry
    for k, name in enumerate(geo.names):
        link = geo.link_name(k)
        geometries.append((name, link, 'link', link, set(),
                           isinstance(geo.shapes[k], HalfSpace)))
    for body in state.get_attached_bodies():
        for k, shape in enumerate(body.shapes):
            geometries.append((f'{body.name}/{k}', body.name, 'attached', body.link,
                               set(body.touch_links),
                               isinstance(shape, HalfSpace)))
    for obj in scene.world.values():
        for k, (shape, _) in enumerate(obj.shapes):
            geometries.append((f'{obj.id}/{k}', obj.id, 'world', None, set(),
                               isinstance(shape, HalfSpace)))
    out: set[frozenset[str]] = set()
    for g1, g2 in combinations(geometries, 2):
        name1, body1, kind1, link1, touch1, half1 = g1
        name2, body2, kind2, link2, touch2, half2 = g2
        bodies = frozenset((body1, body2))
        if body1 == body2 or (kind1 == kind2 == 'world') or (half1 and half2):
            continue
        if kind1 == 'attached' and kind2 == 'attached' and link1 == link2:
            continue
        if kind1 == 'attached' and kind2 == 'link' and link2 in touch1:
            continue
        if kind2 == 'attached' and kind1 == 'link' and link1 in touch2:
            continue
        if (bodies in disabled or bodies in allowed) and bodies not in conditional:
            continue
        out.add(frozenset((name1, name2)))
    return out


def test_filter_state_equals_brute_force(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    name, model, disabled = loaded
    scene = PlanningScene(model)
    assert scene.geometry.link_collision_enabled.all()  # no disabled flags in these URDFs
    (hand, hand_touch), (other, other_touch) = ATTACH[name]
    scene.attach_object(hand, 'tool', None, [(Sphere(0.03), np.eye(4)),
                                             (Box(0.02, 0.02, 0.1), _translation(0, 0, 0.05))],
                        touch_links=hand_touch)
    scene.attach_object(hand, 'tag', None, [(Sphere(0.01), _translation(0.02))])
    scene.attach_object(other, 'plane', None, [(HalfSpace(), _translation(0, 0, -3.0))])
    scene.attach_object(other, 'cable', None, [(Box(0.05, 0.05, 0.05), np.eye(4))],
                        touch_links=other_touch)
    scene.apply_world_object(ADD, 'table', _translation(0.6), [
        (Box(0.5, 0.8, 0.02), np.eye(4)), (Box(0.05, 0.05, 0.7), _translation(0, 0, -0.35))])
    scene.apply_world_object(ADD, 'floor', _translation(0, 0, -1.0), [(HalfSpace(), np.eye(4))])
    scene.apply_world_object(ADD, 'wall', _translation(0, 0, -2.0), [(HalfSpace(), np.eye(4))])
    scene.apply_world_object(ADD, 'ball', _translation(0.3, 0.3, 0.3), [(Sphere(0.05),
                                                                           np.eye(4))])
    links = model.link_names
    allowed = {frozenset(('table', links[1])), frozenset(('tool', 'ball'))}
    for pair in allowed:
        scene.acm.add_allowed_collision(*sorted(pair))
    conditional = {frozenset(('cable', 'ball'))}
    scene.acm.set_entry('cable', 'ball', lambda contact: False)
    state = scene.current_state
    expected = _brute_force(scene, state, disabled, allowed, conditional)

    ours = {frozenset(p) for p in scene.candidate_pairs()}
    assert len(ours) == len(scene.candidate_pairs())
    assert ours == expected, (sorted(map(sorted, ours - expected))[:5],
                              sorted(map(sorted, expected - ours))[:5])
    # the registry's own candidate list (inspector) is the same filter state
    inspector = scene.scene_graph.model_inspector()
    registry = {frozenset((inspector.get_name(a), inspector.get_name(b)))
                for a, b in inspector.get_collision_candidates()}
    assert registry == expected
    # the filter follows ACM edits without a per-query rebuild
    scene.acm.remove_entry('tool', 'ball')
    allowed.discard(frozenset(('tool', 'ball')))
    expected = _brute_force(scene, state, disabled, allowed, conditional)
    assert {frozenset(p) for p in scene.candidate_pairs()} == expected
    registry = {frozenset((inspector.get_name(a), inspector.get_name(b)))
                for a, b in inspector.get_collision_candidates()}
    assert registry == expected
    # and world/attachment edits
    scene.detach_object('tag')
    scene.apply_world_object(REMOVE, 'wall')
    expected = _brute_force(scene, state, disabled, allowed, conditional)
    assert {frozenset(p) for p in scene.candidate_pairs()} == expected


def test_filters_declared_on_the_registry_apply_to_the_scene(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    _, model, _ = loaded
    scene = PlanningScene(model)
    state = scene.current_state
    scene.apply_world_object(ADD, 'box', _translation(0.0, 0.0, 0.3),
                             [(Box(2.0, 2.0, 0.05), np.eye(4))])
    hit = scene.check_collision(state, CollisionRequest(contacts=True, max_contacts=1000))
    assert hit.collision
    touched = {c.body_name_1 for c in hit.contacts if c.body_name_2 == 'box'}
    assert touched
    sg = scene.scene_graph
    inspector = sg.model_inspector()
    box = inspector.get_all_geometry_ids(Role.PROXIMITY)[-1]
    assert inspector.get_name(box) == 'box/0'
    robot = [g for g in inspector.get_all_geometry_ids(Role.PROXIMITY) if g != box]
    sg.collision_filter_manager().exclude_between([box], robot)  # a Drake declaration
    assert not any(c.body_name_2 == 'box' for c in scene.check_collision(
        state, CollisionRequest(contacts=True, max_contacts=1000)).contacts)
    assert all('box/0' not in p for p in scene.candidate_pairs())
    sg.collision_filter_manager().allow_between([box], robot)
    assert {c.body_name_1 for c in scene.check_collision(state, CollisionRequest(
        contacts=True, max_contacts=1000)).contacts if c.body_name_2 == 'box'} == touched


def test_scene_query_object_is_a_snapshot_of_the_state(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    _, model, _ = loaded
    scene = PlanningScene(model)
    state = RobotState(model)
    r = 0.05
    scene.apply_world_object(ADD, 'ball', _translation(5.0), [(Sphere(r), np.eye(4))])
    query = scene.query_object(state)
    assert isinstance(query, QueryObject)
    inspector = query.inspector()
    assert inspector is scene.scene_graph.model_inspector()
    ids = query.geometry_ids
    assert len(ids) == len(scene.geometry) + 1
    ball = ids[-1]
    assert inspector.get_name(ball) == 'ball/0'
    np.testing.assert_array_equal(query.get_pose_in_world(ball), _translation(5.0))
    # geometry poses are link poses times the geometry's pose in its link (registry data)
    X_WL = state.get_link_poses()
    for k, gid in enumerate(ids[:-1].tolist()):
        link = model.link_index(scene.geometry.link_name(k))
        np.testing.assert_allclose(query.get_pose_in_world(gid),
                                   X_WL[link] @ inspector.get_pose_in_frame(gid), atol=1e-12)
    # a point query against the ball: closed form |p - c| - r
    p = np.array([5.0, 0.3, 0.4])
    (d,) = [x for x in query.compute_signed_distance_to_point(p) if x.id_G == ball]
    assert d.distance == pytest.approx(0.5 - r, abs=1e-12)
    # the scene's answers are the snapshot's answers
    assert query.has_collisions() == scene.check_collision(state).collision
    contacts = query.compute_point_pair_penetration()
    result = scene.check_collision(state, CollisionRequest(contacts=True, max_contacts=10**6))
    assert len(contacts) == result.contact_count
    for c, mine in zip(contacts, result.contacts, strict=True):
        assert isinstance(mine, Contact)
        assert mine.depth == pytest.approx(c.depth, abs=1e-12)
        np.testing.assert_allclose(mine.normal_W, -c.nhat_BA_W, atol=1e-12)


def _two_frame_registry() -> tuple[SceneGraph, object, object, int, int, int]:
    sg = SceneGraph()
    source = sg.register_source('test')
    fa = sg.register_frame(source, GeometryFrame('a'))
    fb = sg.register_frame(source, GeometryFrame('b'))
    prox = (ProximityProperties(),)
    sphere = sg.register_geometry(source, fa, GeometryInstance(np.eye(4), Sphere(0.1), 's',
                                                               prox))
    box = sg.register_geometry(source, fb, GeometryInstance(_translation(0.0, 0.0, 0.5),
                                                            Box(0.2, 0.2, 0.2), 'b', prox))
    ball = sg.register_geometry(source, fb, GeometryInstance(np.eye(4), Sphere(0.05), 'c',
                                                             prox))
    return sg, fa, fb, sphere, box, ball


def test_query_object_from_scene_graph_closed_forms() -> None:
    sg, fa, fb, sphere, box, ball = _two_frame_registry()
    # b at x = 1: sphere (r 0.1, at 0) vs ball (r 0.05, at x=1): distance 1 - 0.15
    far = QueryObject.from_scene_graph(sg, {fa: np.eye(4), fb: _translation(1.0)})
    near = QueryObject.from_scene_graph(sg, {fa: np.eye(4), fb: _translation(0.12)})
    # two snapshots of one registry are independent
    assert not far.has_collisions() and near.has_collisions()
    pair = far.compute_signed_distance_pair_closest_points(sphere, ball)
    assert pair.distance == pytest.approx(0.85, abs=1e-12)
    np.testing.assert_allclose(pair.nhat_BA_W, [-1.0, 0.0, 0.0], atol=1e-12)
    # sphere vs box (centre (1, 0, 0.5), half size 0.1): nearest box point (0.9, 0, 0.4)
    gap = float(np.linalg.norm([0.9, 0.0, 0.4])) - 0.1
    assert far.compute_signed_distance_pair_closest_points(sphere, box).distance == \
        pytest.approx(gap, abs=1e-9)
    # same frame: box and ball are never candidates (G-30)
    assert {frozenset(p) for p in far.find_collision_candidates()} <= {
        frozenset((sphere, box)), frozenset((sphere, ball))}
    distances = {frozenset((d.id_A, d.id_B)): d.distance
                 for d in far.compute_signed_distance_pairwise_closest_points()}
    assert set(distances) == {frozenset((sphere, box)), frozenset((sphere, ball))}
    assert far.compute_minimum_signed_distance() == pytest.approx(min(0.85, gap), abs=1e-9)
    # penetration: centres 0.12 apart, radii 0.1 + 0.05: depth 0.03
    (contact,) = near.compute_point_pair_penetration()
    assert {contact.id_A, contact.id_B} == {sphere, ball}
    assert contact.depth == pytest.approx(0.03, abs=1e-12)
    # a filter declared later applies to later snapshots only
    sg.collision_filter_manager().exclude_between([sphere], [ball])
    assert near.has_collisions()
    assert not QueryObject.from_scene_graph(
        sg, {fa: np.eye(4), fb: _translation(0.12)}).has_collisions()
    with pytest.raises(GeometryRegistrationError, match='not a proximity geometry'):
        far.get_pose_in_world(fa)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match='same'):
        far.compute_signed_distance_pair_closest_points(sphere, sphere)
    with pytest.raises(InvalidArgumentError, match='filtered'):  # same frame (G-30)
        far.compute_signed_distance_pair_closest_points(box, ball)


def test_compiled_filter_layer() -> None:
    sg, _, _, sphere, box, ball = _two_frame_registry()
    inspector = sg.model_inspector()
    manager = sg.collision_filter_manager()
    v0 = inspector.geometry_version()
    manager.set_compiled_filter('layer', [[ball, sphere]])
    v1 = inspector.geometry_version()
    assert not v1.is_same_as(v0, Role.PROXIMITY) and v1.is_same_as(v0, Role.ILLUSTRATION)
    assert inspector.collision_filtered(sphere, ball)
    assert inspector.get_collision_candidates() == [(sphere, box)]
    manager.set_compiled_filter('layer', np.zeros((0, 2), dtype=np.int64))  # replaced whole
    assert not inspector.collision_filtered(sphere, ball)
    manager.set_compiled_filter('layer', [[sphere, ball], [sphere, box]])
    source = inspector.get_all_source_ids()[1]
    sg.remove_geometry(source, ball)  # purged from the layer
    assert inspector.get_collision_candidates() == []
    assert manager.remove_compiled_filter('layer') and not manager.remove_compiled_filter('layer')
    assert inspector.get_collision_candidates() == [(sphere, box)]
    with pytest.raises(GeometryRegistrationError, match='not registered'):
        manager.set_compiled_filter('x', [[sphere, ball]])
    with pytest.raises(InvalidArgumentError, match=r'\(K, 2\)'):
        manager.set_compiled_filter('x', [sphere, box, 1])
    with pytest.raises(InvalidArgumentError, match='name'):
        manager.set_compiled_filter('', [[sphere, box]])


def test_copy_has_its_own_registry(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    _, model, _ = loaded
    scene = PlanningScene(model)
    scene.apply_world_object(ADD, 'a', _translation(3.0), [(Sphere(0.1), np.eye(4))])
    before = scene.candidate_pairs()
    other = scene.copy()
    assert other.scene_graph is not scene.scene_graph
    assert other.candidate_pairs() == before
    other.apply_world_object(ADD, 'b', _translation(4.0), [(Sphere(0.1), np.eye(4))])
    other.acm = AllowedCollisionMatrix()
    assert scene.candidate_pairs() == before
    names = {scene.scene_graph.model_inspector().get_name(g) for g in
             scene.scene_graph.model_inspector().get_all_geometry_ids(Role.PROXIMITY)}
    assert 'b/0' not in names
    other.apply_world_object(MOVE, 'a', _translation(3.5))
    assert scene.query_object(scene.current_state).get_pose_in_world(
        scene.query_object(scene.current_state).geometry_ids[-1])[0, 3] == 3.0


def test_registry_follows_the_queried_states_bodies(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    name, model, _ = loaded
    scene = PlanningScene(model)
    (hand, hand_touch), _ = ATTACH[name]
    other = RobotState(model)  # no attached body
    held = scene.attach_object(hand, 'tool', None, [(Sphere(0.03), np.eye(4))],
                               touch_links=hand_touch)
    inspector = scene.scene_graph.model_inspector()

    def registered() -> set[str]:
        return {inspector.get_name(g) for g in inspector.get_all_geometry_ids(Role.PROXIMITY)}

    # the registry's filter state is compiled as soon as the registry is handed out
    with_tool = {frozenset((inspector.get_name(a), inspector.get_name(b)))
                 for a, b in inspector.get_collision_candidates()}
    assert with_tool == {frozenset(p) for p in scene.candidate_pairs()}
    assert 'tool/0' in registered()
    without_tool = {frozenset(p) for p in scene.candidate_pairs(other)}
    assert 'tool/0' not in registered()  # the registry now holds the queried state's bodies
    assert without_tool == {p for p in with_tool if 'tool/0' not in p}
    # alternating states: each query sees its own bodies
    scene.scene_graph  # noqa: B018 - re-syncs to the current state's bodies
    assert {frozenset(p) for p in scene.candidate_pairs()} == with_tool
    assert {frozenset(p) for p in scene.candidate_pairs(other)} == without_tool
    assert {frozenset(p) for p in scene.candidate_pairs()} == with_tool
    request = CollisionRequest(contacts=True, max_contacts=10**6)
    assert not any('tool' in c.pair for c in scene.check_collision(other, request).contacts)
    assert held in scene.current_state.get_attached_bodies()


def test_move_keeps_the_world_geometry(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    _, model, _ = loaded
    scene = PlanningScene(model)
    scene.apply_world_object(ADD, 'box', _translation(3.0), [(Box(0.1, 0.1, 0.1), np.eye(4))])
    sg = scene.scene_graph
    inspector = sg.model_inspector()
    (box,) = [g for g in inspector.get_all_geometry_ids(Role.PROXIMITY)
              if inspector.get_name(g) == 'box/0']
    robot = [g for g in inspector.get_all_geometry_ids(Role.PROXIMITY) if g != box]
    sg.collision_filter_manager().exclude_between([box], robot[:1])
    scene.apply_world_object(MOVE, 'box', _translation(0.0, 0.0, 0.1))
    assert inspector.get_name(box) == 'box/0'  # same id
    np.testing.assert_array_equal(inspector.get_pose_in_frame(box),
                                  _translation(0.0, 0.0, 0.1))
    assert inspector.collision_filtered(box, robot[0])  # its filters stay
    query = scene.query_object(scene.current_state)
    np.testing.assert_array_equal(query.get_pose_in_world(box), _translation(0.0, 0.0, 0.1))


def test_copies_share_the_registry_until_one_edits_it(
        loaded: tuple[str, RobotModel, set[frozenset[str]]]) -> None:
    _, model, _ = loaded
    scene = PlanningScene(model)
    scene.apply_world_object(ADD, 'a', _translation(0.0, 0.0, 0.2), [(Sphere(0.3), np.eye(4))])
    state = scene.current_state
    expected = scene.check_collision(state, CollisionRequest(contacts=True, max_contacts=10**6))
    copies = [scene.copy() for _ in range(3)]
    scene.apply_world_object(REMOVE, 'a')  # the original edits: the copies keep 'a'
    copies[0].apply_world_object(ADD, 'b', _translation(9.0), [(Sphere(0.1), np.eye(4))])
    for other in copies:
        result = other.check_collision(state, CollisionRequest(contacts=True,
                                                               max_contacts=10**6))
        assert [c.pair for c in result.contacts] == [c.pair for c in expected.contacts]
    assert not any('a' in c.pair for c in scene.check_collision(
        state, CollisionRequest(contacts=True, max_contacts=10**6)).contacts)
    # a registry handed out by scene_graph stays the scene's; a copy takes its own at once
    sg = scene.scene_graph
    other = scene.copy()
    inspector = sg.model_inspector()
    robot = list(inspector.get_all_geometry_ids(Role.PROXIMITY))
    sg.collision_filter_manager().exclude_within(robot)
    assert scene.candidate_pairs() == ()
    assert len(other.candidate_pairs()) > 0
    assert other.scene_graph is not sg
