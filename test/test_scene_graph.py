"""The tesseract SceneGraph contract (S2, SG-01..SG-48).

Bool edits, root rules, topology queries, shortest paths, move/remove/insert, flags, ACM
delegation, DOT output, version counter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from robot_state_core.description.acm import AllowedCollisionMatrix
from robot_state_core.description.joints import Joint, JointLimits, JointType
from robot_state_core.description.links import Collision, Link
from robot_state_core.description.scene_graph import SceneGraph, ShortestPath
from robot_state_core.errors import UnknownNameError
from robot_state_core.geometry.shapes import Box

FOUR_PI = 4.0 * math.pi
R = JointType.REVOLUTE
F = JointType.FIXED


def _pose(x: float = 0.0, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def _joint(name: str, parent: str, child: str, type_: JointType = R,
           xyz: Sequence[float] = (1.0, 0.0, 0.0), limits: bool = True) -> Joint:
    return Joint(name, type_, parent, child, _pose(*xyz),
                 limits=JointLimits(-1.0, 1.0, 10.0, 2.0) if limits else None)


def graph_from(*chains: str, types: Mapping[str, JointType] | None = None,
               xyz: Mapping[str, Sequence[float]] | None = None, name: str = 'g') -> SceneGraph:
    """Build a graph from chain specs like ``'a->b->c'`` (MoveIt's chain DSL).

    Links are added in order of first appearance (the first is the root). The joint from P to C
    is named ``'P_C'``; it is REVOLUTE with limits ±1 and origin (1, 0, 0) unless ``types`` /
    ``xyz`` (keyed by joint name) say otherwise.
    """
    types = types or {}
    xyz = xyz or {}
    graph = SceneGraph(name)
    for chain in chains:
        names = chain.split('->')
        for n in names:
            if not graph.has_link(n):
                assert graph.add_link(Link(n))
        for p, c in itertools.pairwise(names):
            j = f'{p}_{c}'
            assert graph.add_joint(_joint(j, p, c, types.get(j, R), xyz.get(j, (1.0, 0.0, 0.0))))
    return graph


def _names(elements: Sequence[Link] | Sequence[Joint]) -> list[str]:
    return [e.name for e in elements]


def _snapshot(graph: SceneGraph) -> tuple[object, ...]:
    """Everything observable about a graph, to assert that a failed edit changed nothing."""
    return (graph.version, graph.get_root(), graph.to_dot(),
            sorted(graph.get_allowed_collision_matrix().get_all_allowed_collisions().items()),
            [(n, graph.get_link_visibility(n), graph.get_link_collision_enabled(n))
             for n in _names(graph.get_links())])


# -- name, root, links --------------------------------------------------------------------------


def test_name_accessors() -> None:
    """The name is set by the constructor, set_name and the property (SG-01, SG-02)."""
    graph = SceneGraph('robot')
    assert graph.name == graph.get_name() == 'robot'
    graph.set_name('other')
    assert graph.get_name() == 'other'
    graph.name = 'third'
    assert graph.name == 'third'
    assert SceneGraph().name == ''


def test_first_link_becomes_root_and_set_root() -> None:
    """The first link added is the root; set_root changes it, or returns False (SG-03..SG-05)."""
    graph = SceneGraph()
    assert graph.get_root() == ''
    assert graph.add_link(Link('base'))
    assert graph.add_link(Link('tool'))
    assert graph.get_root() == 'base'
    assert graph.set_root('tool')
    assert graph.get_root() == 'tool'
    assert not graph.set_root('nope')
    assert graph.get_root() == 'tool'


def test_add_link_stores_a_clone() -> None:
    """The graph keeps its own copy of the link (SG-05)."""
    link = Link('base', collisions=[Collision(Box(1.0, 1.0, 1.0))])
    graph = SceneGraph()
    assert graph.add_link(link)
    link.collisions.clear()
    stored = graph.get_link('base')
    assert stored is not None
    assert stored is not link
    assert len(stored.collisions) == 1


def test_new_links_are_visible_and_collision_enabled() -> None:
    """Default flags of a new link are True (SG-05 [D])."""
    graph = graph_from('a->b')
    for n in ('a', 'b'):
        assert graph.get_link_visibility(n)
        assert graph.get_link_collision_enabled(n)


def test_link_flags_round_trip_and_unknown_links_raise() -> None:
    """Visibility and collision flags are per link; unknown links raise (SG-12, SG-13)."""
    graph = graph_from('a->b')
    graph.set_link_visibility('b', False)
    graph.set_link_collision_enabled('a', False)
    assert not graph.get_link_visibility('b')
    assert graph.get_link_visibility('a')
    assert not graph.get_link_collision_enabled('a')
    assert graph.get_link_collision_enabled('b')
    for call in (lambda: graph.get_link_visibility('c'),
                 lambda: graph.set_link_visibility('c', True),
                 lambda: graph.get_link_collision_enabled('c'),
                 lambda: graph.set_link_collision_enabled('c', True)):
        with pytest.raises(UnknownNameError):
            call()


def test_duplicate_link_is_refused_without_replace() -> None:
    """Adding an existing link name returns False and keeps the old link (SG-05)."""
    graph = graph_from('a->b')
    before = _snapshot(graph)
    assert not graph.add_link(Link('b', collisions=[Collision(Box(1, 1, 1))]))
    assert _snapshot(graph) == before
    assert graph.get_link('b') == Link('b')


def test_replace_link_keeps_joints_and_flags() -> None:
    """replace_allowed swaps the link object in place (SG-05)."""
    graph = graph_from('a->b->c')
    graph.set_link_visibility('b', False)
    new_b = Link('b', collisions=[Collision(Box(1, 2, 3))])
    assert graph.add_link(new_b, replace_allowed=True)
    assert graph.get_link('b') == new_b
    assert graph.get_link('b') is not new_b
    assert _names(graph.get_inbound_joints('b')) == ['a_b']
    assert _names(graph.get_outbound_joints('b')) == ['b_c']
    assert not graph.get_link_visibility('b')
    assert len(graph.get_links()) == 3


def test_add_link_with_joint() -> None:
    """add_link(link, joint) adds both (SG-06)."""
    graph = graph_from('a')
    assert graph.add_link(Link('b'), _joint('j', 'a', 'b'))
    assert graph.get_adjacent_link_names('a') == ['b']
    assert graph.get_target_link('j').name == 'b'


@pytest.mark.parametrize(('link', 'joint'), [
    ('a', _joint('j', 'a', 'a')),             # link exists
    ('c', _joint('a_b', 'a', 'c')),           # joint name exists
    ('c', _joint('j', 'x', 'c')),             # parent missing
    ('c', _joint('j', 'a', 'c', limits=False)),  # revolute without limits
])
def test_add_link_with_joint_failures_add_nothing(link: str, joint: Joint) -> None:
    """A failing add_link(link, joint) adds neither the link nor the joint (SG-06)."""
    graph = graph_from('a->b')
    before = _snapshot(graph)
    assert not graph.add_link(Link(link), joint)
    assert _snapshot(graph) == before
    assert graph.has_link(link) == (link == 'a')


def test_add_link_programmer_errors_raise() -> None:
    """Wrong argument kinds raise instead of returning False (design B7.3)."""
    graph = graph_from('a')
    with pytest.raises(TypeError):
        graph.add_link('b')  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='non-empty name'):
        graph.add_link(Link(''))
    with pytest.raises(ValueError, match='replace_allowed'):
        graph.add_link(Link('b'), _joint('j', 'a', 'b'), replace_allowed=True)
    with pytest.raises(TypeError):
        graph.add_joint('j')  # type: ignore[arg-type]
    assert len(graph.get_links()) == 1


def test_get_link_links_and_leaf_links() -> None:
    """get_link returns None for unknown names; lists keep insertion order (SG-07..SG-09)."""
    graph = graph_from('a->b->c', 'b->d')
    assert graph.get_link('zzz') is None
    assert _names(graph.get_links()) == ['a', 'b', 'c', 'd']
    assert sorted(_names(graph.get_leaf_links())) == ['c', 'd']
    assert graph.has_link('a')
    assert not graph.has_link('zzz')


# -- joints -------------------------------------------------------------------------------------


@pytest.mark.parametrize('joint', [
    _joint('j', 'missing', 'b'),                               # parent missing
    _joint('j', 'a', 'missing'),                               # child missing
    _joint('a_b', 'a', 'b'),                                   # duplicate name
    _joint('j', 'a', 'b', JointType.REVOLUTE, limits=False),   # revolute needs limits
    _joint('j', 'a', 'b', JointType.PRISMATIC, limits=False),  # prismatic needs limits
    _joint('j', 'a', 'b', JointType.PLANAR, limits=False),     # planar needs limits
    _joint('j', 'a', 'b', JointType.UNKNOWN),                  # unknown type
])
def test_add_joint_failures_return_false_and_change_nothing(joint: Joint) -> None:
    """Every documented add_joint failure returns False and leaves the graph alone (SG-14)."""
    graph = graph_from('a->b')
    before = _snapshot(graph)
    assert not graph.add_joint(joint)
    assert _snapshot(graph) == before
    assert _names(graph.get_joints()) == ['a_b']


@pytest.mark.parametrize('type_', [JointType.FIXED, JointType.FLOATING, JointType.CONTINUOUS,
                                   JointType.RPY_FLOATING])
def test_joint_types_without_limit_requirement(type_: JointType) -> None:
    """FIXED, FLOATING, CONTINUOUS (and our RPY_FLOATING) need no limits (SG-14, tesseract)."""
    graph = graph_from('a', 'b')
    assert graph.add_joint(_joint('j', 'a', 'b', type_, limits=False))
    assert graph.get_joint('j') is not None


def test_continuous_joint_without_limits_gets_defaults() -> None:
    """Unlimited continuous joints get ±4π, effort 0, velocity 2, acceleration 1, jerk 1000.

    tesseract graph.cpp addJointHelper: JointLimits(-4π, 4π, 0, 2, 1, 1000) (SG-14).
    """
    graph = graph_from('a', 'b')
    assert graph.add_joint(_joint('j', 'a', 'b', JointType.CONTINUOUS, limits=False))
    assert graph.get_joint_limits('j') == JointLimits(-FOUR_PI, FOUR_PI, 0.0, 2.0, 1.0, 1000.0)


@pytest.mark.parametrize(('lower', 'upper', 'expected'), [
    (0.0, 0.0, (-FOUR_PI, FOUR_PI)),
    (1.0, 1.0 + 5e-6, (-FOUR_PI, FOUR_PI)),
    (-1.0, 1.0, (-1.0, 1.0)),
])
def test_continuous_joint_with_equal_limits_gets_four_pi(lower: float, upper: float,
                                                          expected: tuple[float, float]) -> None:
    """Continuous limits with lower ≈ upper (1e-5) become ±4π; other values are kept."""
    graph = graph_from('a', 'b')
    joint = Joint('j', JointType.CONTINUOUS, 'a', 'b',
                  limits=JointLimits(lower, upper, 5.0, 3.0, 4.0))
    assert graph.add_joint(joint)
    limits = graph.get_joint_limits('j')
    assert limits is not None
    assert (limits.lower, limits.upper) == expected
    assert (limits.effort, limits.velocity, limits.acceleration) == (5.0, 3.0, 4.0)
    assert joint.limits is not None
    assert (joint.limits.lower, joint.limits.upper) == (lower, upper)  # caller's copy untouched


def test_add_joint_stores_a_clone() -> None:
    """Mutating the joint after adding it does not change the graph (SG-14 [D])."""
    graph = graph_from('a', 'b')
    joint = _joint('j', 'a', 'b')
    assert graph.add_joint(joint)
    assert joint.limits is not None
    joint.limits.upper = 99.0
    joint.parent_to_joint_origin_transform[0, 3] = 5.0
    stored = graph.get_joint('j')
    assert stored is not None
    assert stored is not joint
    assert stored.limits is not None
    assert stored.limits.upper == 1.0
    assert stored.parent_to_joint_origin_transform[0, 3] == 1.0


def test_get_joint_joints_and_active_joints() -> None:
    """get_active_joints excludes FIXED and FLOATING (SG-15..SG-17)."""
    graph = graph_from('a->b->c->d->e',
                       types={'b_c': F, 'c_d': JointType.FLOATING, 'd_e': JointType.PLANAR})
    assert graph.get_joint('nope') is None
    assert _names(graph.get_joints()) == ['a_b', 'b_c', 'c_d', 'd_e']
    assert _names(graph.get_active_joints()) == ['a_b', 'd_e']
    assert graph.has_joint('b_c')


def test_remove_joint_keeps_the_child_link() -> None:
    """remove_joint without recursion removes only the edge (SG-18)."""
    graph = graph_from('a->b->c')
    assert graph.remove_joint('a_b')
    assert graph.get_joint('a_b') is None
    assert _names(graph.get_links()) == ['a', 'b', 'c']
    assert graph.get_inbound_joints('b') == []
    assert graph.get_adjacent_link_names('a') == []
    assert not graph.remove_joint('a_b')


def test_remove_joint_recursive_removes_the_subtree() -> None:
    """recursive: the child and everything hanging only from it goes (SG-18)."""
    graph = graph_from('a->b->c->d', 'b->e', 'a->f')
    graph.add_allowed_collision('c', 'f', 'r')
    assert graph.remove_joint('a_b', recursive=True)
    assert _names(graph.get_links()) == ['a', 'f']
    assert _names(graph.get_joints()) == ['a_f']
    assert not graph.is_collision_allowed('c', 'f')


def test_remove_joint_recursive_with_a_second_inbound_joint_removes_only_the_joint() -> None:
    """The child keeps its other parent; the joint itself is removed (SG-18, our decision)."""
    graph = graph_from('a->b->d', 'a->c->d')
    assert graph.remove_joint('b_d', recursive=True)
    assert _names(graph.get_links()) == ['a', 'b', 'd', 'c']
    assert graph.get_joint('b_d') is None
    assert _names(graph.get_inbound_joints('d')) == ['c_d']


def test_move_joint_reparents() -> None:
    """move_joint changes only the parent (SG-19)."""
    graph = graph_from('a->b->c')
    joint = graph.get_joint('b_c')
    assert joint is not None
    origin = joint.parent_to_joint_origin_transform.copy()
    assert graph.move_joint('b_c', 'a')
    assert graph.get_joint('b_c') is joint
    assert (joint.parent_link_name, joint.child_link_name) == ('a', 'c')
    np.testing.assert_array_equal(joint.parent_to_joint_origin_transform, origin)
    assert sorted(graph.get_adjacent_link_names('a')) == ['b', 'c']
    assert graph.get_adjacent_link_names('b') == []
    assert graph.get_inv_adjacent_link_names('c') == ['a']


def test_move_joint_failures() -> None:
    """move_joint returns False for an unknown joint or parent, changing nothing (SG-19)."""
    graph = graph_from('a->b->c')
    before = _snapshot(graph)
    assert not graph.move_joint('nope', 'a')
    assert not graph.move_joint('b_c', 'nope')
    assert _snapshot(graph) == before


def test_change_joint_origin_updates_transform_and_edge_weight() -> None:
    """change_joint_origin replaces X_PJ and recomputes the path weight (SG-20)."""
    graph = graph_from('a->b->d', 'a->c->d')  # two equal routes a..d
    X = _pose(0.0, 0.0, 10.0)
    assert graph.change_joint_origin('a_b', X)
    joint = graph.get_joint('a_b')
    assert joint is not None
    np.testing.assert_array_equal(joint.parent_to_joint_origin_transform, X)
    assert graph.get_shortest_path('a', 'd').links == ('a', 'c', 'd')
    assert graph.change_joint_origin('a_b', _pose())
    assert graph.change_joint_origin('a_c', _pose(3.0))
    assert graph.get_shortest_path('a', 'd').links == ('a', 'b', 'd')
    assert not graph.change_joint_origin('nope', X)
    with pytest.raises(ValueError, match=r'\(4, 4\)'):
        graph.change_joint_origin('a_b', np.eye(3))


def test_change_joint_limits_assigns_into_the_same_object() -> None:
    """The JointLimits object a caller holds sees the new values (SG-21)."""
    graph = graph_from('a->b')
    held = graph.get_joint_limits('a_b')
    assert held is not None
    new = JointLimits(-2.0, 3.0, 4.0, 5.0, 6.0, 7.0)
    assert graph.change_joint_limits('a_b', new)
    assert graph.get_joint_limits('a_b') is held
    assert held == new
    assert held is not new


def test_change_joint_limits_creates_limits_when_absent() -> None:
    """A joint type without limits (RPY_FLOATING here) gets a limits object (SG-21 [D])."""
    graph = graph_from('a', 'b')
    assert graph.add_joint(_joint('j', 'a', 'b', JointType.RPY_FLOATING, limits=False))
    assert graph.get_joint_limits('j') is None
    assert graph.change_joint_velocity_limits('j', 0.5)
    assert graph.get_joint_limits('j') == JointLimits(velocity=0.5)


@pytest.mark.parametrize(('method', 'args', 'expected'), [
    ('change_joint_position_limits', (-0.5, 0.25), JointLimits(-0.5, 0.25, 10.0, 2.0)),
    ('change_joint_velocity_limits', (0.75,), JointLimits(-1.0, 1.0, 10.0, 0.75)),
    ('change_joint_acceleration_limits', (8.0,), JointLimits(-1.0, 1.0, 10.0, 2.0, 8.0)),
    ('change_joint_jerk_limits', (9.0,), JointLimits(-1.0, 1.0, 10.0, 2.0, 0.0, 9.0)),
])
def test_change_single_limit_fields(method: str, args: tuple[float, ...],
                                    expected: JointLimits) -> None:
    """Each change_joint_*_limits sets only its own field (SG-22..SG-24)."""
    graph = graph_from('a->b')
    held = graph.get_joint_limits('a_b')
    assert getattr(graph, method)('a_b', *args)
    assert graph.get_joint_limits('a_b') is held
    assert held == expected


@pytest.mark.parametrize('method', [
    'change_joint_limits', 'change_joint_position_limits', 'change_joint_velocity_limits',
    'change_joint_acceleration_limits', 'change_joint_jerk_limits'])
@pytest.mark.parametrize('joint', ['a_b', 'b_c', 'missing'])
def test_change_limits_refused_for_fixed_floating_and_missing(method: str, joint: str) -> None:
    """FIXED and FLOATING joints have no limits to change; unknown joints fail (SG-21..SG-24)."""
    graph = graph_from('a->b->c', types={'a_b': F, 'b_c': JointType.FLOATING})
    before = _snapshot(graph)
    limits = graph.get_joint_limits(joint)
    original = None if limits is None else limits.copy()
    args = {'change_joint_limits': (JointLimits(-5, 5, 5, 5, 5, 5),),
            'change_joint_position_limits': (-5.0, 5.0)}.get(method, (5.0,))
    assert not getattr(graph, method)(joint, *args)
    assert _snapshot(graph) == before
    assert graph.get_joint_limits(joint) == original


# -- remove_link / move_link --------------------------------------------------------------------


def test_remove_link_removes_its_joints_and_acm_entries() -> None:
    """remove_link drops inbound and outbound joints and every ACM entry naming it (SG-10)."""
    graph = graph_from('a->b->c')
    graph.add_allowed_collision('a', 'b', 'Adjacent')
    graph.add_allowed_collision('b', 'c', 'Adjacent')
    graph.add_allowed_collision('a', 'c', 'Never')
    graph.get_allowed_collision_matrix().set_default_entry('b', True)
    assert graph.remove_link('b')
    assert _names(graph.get_links()) == ['a', 'c']
    assert graph.get_joints() == []
    assert graph.get_allowed_collision_matrix().get_all_allowed_collisions() == {
        ('a', 'c'): 'Never'}
    assert 'b' not in graph.get_allowed_collision_matrix()
    assert graph.get_inbound_joints('c') == []
    assert not graph.remove_link('b')


def test_remove_link_recursive_removes_orphaned_descendants_only() -> None:
    """recursive: children left without an inbound joint go, recursively (SG-10 [D])."""
    graph = graph_from('a->b->c->d', 'b->e', 'a->x->e')
    assert graph.remove_link('b', recursive=True)
    assert sorted(_names(graph.get_links())) == ['a', 'e', 'x']
    assert _names(graph.get_inbound_joints('e')) == ['x_e']


def test_remove_root_leaves_no_root() -> None:
    """Removing the root link clears the root; an emptied graph takes the next link as root."""
    graph = graph_from('a->b')
    assert graph.remove_link('a')
    assert graph.get_root() == ''
    assert graph.remove_link('b')
    assert graph.is_empty()
    assert graph.add_link(Link('z'))
    assert graph.get_root() == 'z'


def test_recursive_removal_of_a_long_chain() -> None:
    """Recursive removal is iterative: a 3000-link chain does not hit the recursion limit."""
    graph = graph_from('->'.join(f'l{i}' for i in range(3000)))
    assert graph.remove_link('l1', recursive=True)
    assert _names(graph.get_links()) == ['l0']


def test_move_link_replaces_all_inbound_joints_of_the_child() -> None:
    """move_link removes every inbound joint of the joint's child, then adds it (SG-11)."""
    graph = graph_from('a->b->d', 'a->c->d')
    assert graph.move_link(_joint('new', 'a', 'd', F, (0.0, 0.0, 0.0)))
    assert _names(graph.get_inbound_joints('d')) == ['new']
    assert graph.get_joint('b_d') is None
    assert graph.get_joint('c_d') is None
    assert graph.is_tree()


def test_move_link_may_reuse_the_name_of_the_removed_joint() -> None:
    """The usual call re-attaches a link under its existing joint name (SG-11)."""
    graph = graph_from('a->b->c')
    assert graph.move_link(_joint('b_c', 'a', 'c'))
    assert graph.get_source_link('b_c').name == 'a'
    assert _names(graph.get_joints()) == ['a_b', 'b_c']


@pytest.mark.parametrize('joint', [
    _joint('j', 'a', 'missing'),               # child missing
    _joint('j', 'missing', 'c'),               # parent missing
    _joint('a_b', 'a', 'c'),                   # name of a joint that is not removed
    _joint('j', 'a', 'c', limits=False),       # revolute without limits
])
def test_move_link_failures_change_nothing(joint: Joint) -> None:
    """A failing move_link keeps the old inbound joints (checked before removing) (SG-11)."""
    graph = graph_from('a->b->c')
    before = _snapshot(graph)
    assert not graph.move_link(joint)
    assert _snapshot(graph) == before


# -- topology queries ---------------------------------------------------------------------------


def test_source_and_target_links() -> None:
    """get_source_link/get_target_link; an unknown joint raises with a suggestion (SG-26/27)."""
    graph = graph_from('a->b')
    assert graph.get_source_link('a_b').name == 'a'
    assert graph.get_target_link('a_b').name == 'b'
    with pytest.raises(UnknownNameError, match="did you mean 'a_b'") as info:
        graph.get_source_link('a_c')
    assert info.value.kind == 'joint'
    with pytest.raises(KeyError):
        graph.get_target_link('zzz')


def test_inbound_and_outbound_joints() -> None:
    """Inbound = joints whose child is the link; outbound = whose parent it is (SG-28/29)."""
    graph = graph_from('a->b->d', 'a->c->d')
    assert graph.get_inbound_joints('a') == []
    assert _names(graph.get_outbound_joints('a')) == ['a_b', 'a_c']
    assert _names(graph.get_inbound_joints('d')) == ['b_d', 'c_d']
    assert graph.get_outbound_joints('d') == []
    with pytest.raises(UnknownNameError, match="unknown link name 'e'"):
        graph.get_inbound_joints('e')
    with pytest.raises(UnknownNameError):
        graph.get_outbound_joints('e')


def test_adjacent_and_inverse_adjacent_link_names() -> None:
    """Direct children and direct parents, each listed once (SG-30/31)."""
    graph = graph_from('a->b->d', 'a->c->d')
    assert graph.add_joint(_joint('second', 'a', 'b'))  # a parallel joint
    assert graph.get_adjacent_link_names('a') == ['b', 'c']
    assert graph.get_inv_adjacent_link_names('b') == ['a']
    assert graph.get_inv_adjacent_link_names('d') == ['b', 'c']
    assert graph.get_inv_adjacent_link_names('a') == []
    with pytest.raises(UnknownNameError):
        graph.get_adjacent_link_names('x')
    with pytest.raises(UnknownNameError):
        graph.get_inv_adjacent_link_names('x')


def test_link_children_names_exclude_the_link() -> None:
    """All descendants in breadth-first order, without the link itself (SG-32)."""
    graph = graph_from('a->b->c->d', 'b->e', 'a->f')
    assert graph.get_link_children_names('a') == ['b', 'f', 'c', 'e', 'd']
    assert graph.get_link_children_names('b') == ['c', 'e', 'd']
    assert graph.get_link_children_names('d') == []
    with pytest.raises(UnknownNameError):
        graph.get_link_children_names('x')


def test_joint_children_names_include_the_child_link() -> None:
    """The joint's child link plus its descendants; the list form is a sorted union (SG-33)."""
    graph = graph_from('a->b->c->d', 'b->e', 'a->f')
    assert graph.get_joint_children_names('a_b') == ['b', 'c', 'e', 'd']
    assert graph.get_joint_children_names('c_d') == ['d']
    assert graph.get_joint_children_names(['c_d', 'a_f', 'b_c']) == ['c', 'd', 'f']
    assert graph.get_joint_children_names([]) == []
    with pytest.raises(UnknownNameError):
        graph.get_joint_children_names('nope')
    with pytest.raises(UnknownNameError):
        graph.get_joint_children_names(['a_b', 'nope'])


def test_adjacency_map_stops_at_other_given_links() -> None:
    """Links moved by each given link map to it; the search stops at other given links (SG-34)."""
    graph = graph_from('a->b->c->d->e', 'b->x', 'a->y')
    mapping = graph.get_adjacency_map(['b', 'd'])
    assert mapping == {'b': 'b', 'c': 'b', 'x': 'b', 'd': 'd', 'e': 'd'}
    with pytest.raises(UnknownNameError):
        graph.get_adjacency_map(['b', 'nope'])


# -- shortest path ------------------------------------------------------------------------------


def test_shortest_path_down_the_tree() -> None:
    """A root → tip path lists links root first and the joints in order (SG-35)."""
    graph = graph_from('base->l1->l2->tool', types={'l2_tool': F})
    path = graph.get_shortest_path('base', 'tool')
    assert path == ShortestPath(('base', 'l1', 'l2', 'tool'), ('base_l1', 'l1_l2', 'l2_tool'),
                                ('base_l1', 'l1_l2'))


def test_shortest_path_goes_up_and_down() -> None:
    """Between two branches the path climbs to the common ancestor and descends (SG-35)."""
    graph = graph_from('base->s->l1->l2', 's->r1->r2',
                       types={'s_l1': F, 'r1_r2': JointType.FLOATING})
    path = graph.get_shortest_path('l2', 'r2')
    assert path.links == ('l2', 'l1', 's', 'r1', 'r2')
    assert path.joints == ('l1_l2', 's_l1', 's_r1', 'r1_r2')
    assert path.active_joints == ('l1_l2', 's_r1')
    reverse = graph.get_shortest_path('r2', 'l2')
    assert reverse.links == path.links[::-1]
    assert reverse.joints == path.joints[::-1]


def test_shortest_path_weights_are_origin_translation_lengths() -> None:
    """Of two routes the one with the shorter total origin translation wins (SG-35)."""
    graph = graph_from('a->b->c->d', 'a->e->d',
                       xyz={'a_b': (0, 0, 0), 'b_c': (0, 0.1, 0), 'c_d': (0.1, 0, 0),
                            'a_e': (0, 0, 1), 'e_d': (0, 0, 0)})
    assert graph.get_shortest_path('a', 'd').links == ('a', 'b', 'c', 'd')
    assert graph.change_joint_origin('b_c', _pose(2.0))
    assert graph.get_shortest_path('a', 'd').links == ('a', 'e', 'd')


def test_shortest_path_edge_cases() -> None:
    """Same link: one link, no joints. Unreachable: empty. Unknown: raises (SG-35)."""
    graph = graph_from('a->b', 'c')
    assert graph.get_shortest_path('b', 'b') == ShortestPath(('b',), (), ())
    assert graph.get_shortest_path('a', 'c') == ShortestPath()
    with pytest.raises(UnknownNameError):
        graph.get_shortest_path('a', 'nope')
    with pytest.raises(UnknownNameError):
        graph.get_shortest_path('nope', 'a')


# -- graph properties ---------------------------------------------------------------------------


def test_tree_properties() -> None:
    """Trees are acyclic; an empty graph is a tree, a single link is not (SG-36/37).

    tesseract's tree_detector (graph.cpp) counts a link without any joint as unused.
    """
    assert graph_from('a->b->c', 'a->d').is_tree()
    assert graph_from('a->b->c', 'a->d').is_acyclic()
    assert not graph_from('a').is_tree()
    assert graph_from('a').is_acyclic()
    assert SceneGraph().is_tree()
    assert SceneGraph().is_acyclic()


def test_second_inbound_joint_breaks_the_tree_but_not_acyclicity() -> None:
    """A diamond has a link with two inbound joints: acyclic, not a tree (SG-36/37)."""
    graph = graph_from('a->b->d', 'a->c->d')
    assert graph.is_acyclic()
    assert not graph.is_tree()


def test_cycle_is_detected() -> None:
    """A directed cycle makes the graph cyclic and not a tree (SG-36/37)."""
    graph = graph_from('a->b->c->d')
    assert graph.add_joint(_joint('back', 'd', 'b'))
    assert not graph.is_acyclic()
    assert not graph.is_tree()
    assert graph.remove_joint('back')
    assert graph.is_acyclic()
    assert graph.add_joint(_joint('self', 'c', 'c'))
    assert not graph.is_acyclic()


def test_cycle_below_a_root_with_consistent_in_degrees_is_not_a_tree() -> None:
    """One root plus a separate cycle (every in-degree ≤ 1) is not a tree (SG-37)."""
    graph = graph_from('a->b', 'c->d')
    assert graph.add_joint(_joint('d_c', 'd', 'c'))
    assert not graph.is_tree()
    assert not graph.is_acyclic()


def test_disconnected_graph_is_not_a_tree() -> None:
    """Two roots: not a tree, though acyclic (SG-37)."""
    graph = graph_from('a->b', 'c->d')
    assert graph.is_acyclic()
    assert not graph.is_tree()


def test_clear_and_is_empty() -> None:
    """clear() drops links, joints, ACM, root and flags; the name stays (SG-38/39)."""
    graph = graph_from('a->b', name='robot')
    graph.add_allowed_collision('a', 'b', 'Adjacent')
    graph.set_link_visibility('a', False)
    assert not graph.is_empty()
    version = graph.version
    graph.clear()
    assert graph.is_empty()
    assert graph.get_links() == []
    assert graph.get_joints() == []
    assert graph.get_root() == ''
    assert len(graph.get_allowed_collision_matrix()) == 0
    assert graph.name == 'robot'
    assert graph.version > version
    assert graph.add_link(Link('a'))
    assert graph.get_link_visibility('a')  # flags were dropped, not kept for the name
    assert graph.get_root() == 'a'


def test_clone_is_deep_and_keeps_everything() -> None:
    """clone() keeps name, root, flags and ACM, and shares nothing mutable (SG-40)."""
    graph = graph_from('a->b->c', name='robot')
    graph.set_root('b')
    graph.set_link_collision_enabled('c', False)
    graph.add_allowed_collision('a', 'c', 'Never')
    copy = graph.clone()
    assert copy.name == 'robot'
    assert copy.get_root() == 'b'
    assert not copy.get_link_collision_enabled('c')
    assert copy.is_collision_allowed('c', 'a')
    assert copy.to_dot() == graph.to_dot()
    assert copy.version == graph.version
    assert copy.get_link('a') is not graph.get_link('a')
    assert copy.get_joint('a_b') is not graph.get_joint('a_b')
    assert copy.get_allowed_collision_matrix() is not graph.get_allowed_collision_matrix()

    assert copy.change_joint_position_limits('a_b', -3.0, 3.0)
    assert copy.remove_link('c')
    copy.add_allowed_collision('a', 'b', 'Adjacent')
    copy.set_link_visibility('a', False)
    limits = graph.get_joint_limits('a_b')
    assert limits is not None
    assert (limits.lower, limits.upper) == (-1.0, 1.0)
    assert _names(graph.get_links()) == ['a', 'b', 'c']
    assert not graph.is_collision_allowed('a', 'b')
    assert graph.get_link_visibility('a')
    assert graph.get_shortest_path('a', 'c').links == ('a', 'b', 'c')


# -- insert_scene_graph -------------------------------------------------------------------------


def _gripper() -> SceneGraph:
    graph = graph_from('palm->finger', types={'palm_finger': JointType.PRISMATIC}, name='grip')
    graph.set_link_visibility('finger', False)
    graph.add_allowed_collision('palm', 'finger', 'Adjacent')
    return graph


def test_insert_without_joint_attaches_the_root_with_a_fixed_joint() -> None:
    """Our SG-41 decision: prefixed root attached to this root by a zero FIXED joint."""
    arm = graph_from('base->tool')
    gripper = _gripper()
    assert arm.insert_scene_graph(gripper, prefix='left_')
    connection = arm.get_joint('left_palm_joint')
    assert connection is not None
    assert connection.type is JointType.FIXED
    assert (connection.parent_link_name, connection.child_link_name) == ('base', 'left_palm')
    np.testing.assert_array_equal(connection.parent_to_joint_origin_transform, np.eye(4))
    assert _names(arm.get_links()) == ['base', 'tool', 'left_palm', 'left_finger']
    finger_joint = arm.get_joint('left_palm_finger')
    assert finger_joint is not None
    assert (finger_joint.parent_link_name, finger_joint.child_link_name) == (
        'left_palm', 'left_finger')
    assert not arm.get_link_visibility('left_finger')
    assert arm.get_link_visibility('left_palm')
    assert arm.is_collision_allowed('left_finger', 'left_palm')
    assert not arm.is_collision_allowed('finger', 'palm')
    assert arm.get_root() == 'base'
    assert arm.is_tree()
    assert _names(gripper.get_links()) == ['palm', 'finger']  # the inserted graph is untouched


def test_insert_into_empty_graph_adopts_the_root() -> None:
    """Into an empty graph nothing needs connecting: the inserted root is the root (SG-41)."""
    graph = SceneGraph('world')
    assert graph.insert_scene_graph(_gripper())
    assert graph.get_root() == 'palm'
    assert _names(graph.get_joints()) == ['palm_finger']
    assert graph.is_tree()


def test_insert_the_same_graph_twice_with_prefixes() -> None:
    """The prefix lets one sub-graph be inserted several times (SG-41)."""
    graph = graph_from('world')
    assert graph.insert_scene_graph(_gripper(), prefix='l_')
    assert graph.insert_scene_graph(_gripper(), prefix='r_')
    assert graph.is_tree()
    assert len(graph.get_links()) == 5
    assert graph.get_shortest_path('l_finger', 'r_finger').joints == (
        'l_palm_finger', 'l_palm_joint', 'r_palm_joint', 'r_palm_finger')


def test_insert_with_joint() -> None:
    """With a joint, that joint (names as given) connects the graphs (SG-42)."""
    arm = graph_from('base->tool')
    joint = _joint('mount', 'tool', 'g_palm', F, (0.0, 0.0, 0.1))
    assert arm.insert_scene_graph(_gripper(), prefix='g_', joint=joint)
    mount = arm.get_joint('mount')
    assert mount is not None
    assert mount is not joint
    assert arm.get_joint('g_palm_joint') is None  # no automatic joint
    assert arm.get_shortest_path('base', 'g_finger').links == ('base', 'tool', 'g_palm',
                                                              'g_finger')


def test_insert_with_joint_to_a_non_root_link() -> None:
    """The connecting joint may attach any link of the inserted graph."""
    arm = graph_from('base')
    assert arm.insert_scene_graph(_gripper(), joint=_joint('odd', 'base', 'finger'))
    assert _names(arm.get_inbound_joints('finger')) == ['palm_finger', 'odd']


@pytest.mark.parametrize(('prefix', 'joint'), [
    ('', None),                                       # link names collide (palm exists)
    ('x_', _joint('j', 'missing', 'x_palm')),         # parent not in this graph
    ('x_', _joint('j', 'base', 'palm')),              # child not prefixed
    ('x_', _joint('base_palm', 'base', 'x_palm')),    # joint name exists here
    ('x_', _joint('x_palm_finger', 'base', 'x_palm')),  # joint name of the inserted graph
    ('x_', _joint('j', 'base', 'x_palm', limits=False)),  # revolute without limits
])
def test_insert_failures_leave_the_graph_unchanged(prefix: str, joint: Joint | None) -> None:
    """Any collision or bad connecting joint returns False before anything changes (SG-41/42)."""
    graph = graph_from('base->palm')
    graph.add_allowed_collision('base', 'palm', 'Adjacent')
    before = _snapshot(graph)
    assert not graph.insert_scene_graph(_gripper(), prefix=prefix, joint=joint)
    assert _snapshot(graph) == before


def test_insert_fails_when_the_automatic_joint_name_exists() -> None:
    """The generated connecting joint name is checked too."""
    graph = graph_from('base->other')
    assert graph.add_link(Link('x'), _joint('g_palm_joint', 'base', 'x'))
    before = _snapshot(graph)
    assert not graph.insert_scene_graph(_gripper(), prefix='g_')
    assert _snapshot(graph) == before


def test_insert_a_graph_into_itself_with_a_prefix() -> None:
    """The source graph is read completely before this graph changes."""
    graph = graph_from('a->b')
    assert graph.insert_scene_graph(graph, prefix='copy_')
    assert _names(graph.get_links()) == ['a', 'b', 'copy_a', 'copy_b']
    assert graph.get_source_link('copy_a_joint').name == 'a'
    assert graph.is_tree()


def test_insert_type_errors() -> None:
    """Passing something that is not a SceneGraph or a Joint raises."""
    graph = graph_from('a')
    with pytest.raises(TypeError):
        graph.insert_scene_graph('nope')  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        graph.insert_scene_graph(_gripper(), joint='j')  # type: ignore[arg-type]


# -- ACM delegation -----------------------------------------------------------------------------


def test_acm_delegation() -> None:
    """The graph's ACM methods act on get_allowed_collision_matrix() (SG-43..SG-47)."""
    graph = graph_from('a->b->c')
    graph.add_allowed_collision('a', 'b', 'Adjacent')
    graph.add_allowed_collision('b', 'c', 'Adjacent')
    graph.add_allowed_collision('a', 'c', 'Never')
    acm = graph.get_allowed_collision_matrix()
    assert isinstance(acm, AllowedCollisionMatrix)
    assert graph.is_collision_allowed('b', 'a')
    graph.remove_allowed_collision('a', 'b')
    assert not graph.is_collision_allowed('a', 'b')
    graph.remove_allowed_collision('c')
    assert acm.get_all_allowed_collisions() == {}
    graph.add_allowed_collision('a', 'world_box', 'touching')  # any object name is fine
    acm.add_allowed_collision('b', 'c', 'direct edit')
    assert graph.is_collision_allowed('c', 'b')
    graph.clear_allowed_collisions()
    assert len(acm) == 0


# -- DOT ----------------------------------------------------------------------------------------


def test_to_dot_lists_every_link_and_joint() -> None:
    """The DOT text is `digraph D` with a node per link and a labelled edge per joint (SG-48)."""
    graph = graph_from('base->l1->tool', types={'l1_tool': F})
    dot = graph.to_dot()
    assert dot.startswith('digraph D {\n')
    assert dot.rstrip().endswith('}')
    assert '  "base" [shape="doublecircle"];\n' in dot
    assert '  "l1";\n' in dot
    assert '  "tool";\n' in dot
    assert '"base" -> "l1" [label="base_l1\\n(revolute)"' in dot
    assert '"l1" -> "tool" [label="l1_tool\\n(fixed)"' in dot
    assert dot.count('->') == 2


def test_to_dot_escapes_quotes() -> None:
    """Names with quotes or backslashes stay valid DOT strings."""
    graph = SceneGraph()
    graph.add_link(Link('a"b'))
    graph.add_link(Link('c\\d'), _joint('j"1', 'a"b', 'c\\d'))
    dot = graph.to_dot()
    assert '"a\\"b" -> "c\\\\d" [label="j\\"1\\n(revolute)"' in dot


def test_save_dot_writes_the_file(tmp_path: Path) -> None:
    """save_dot writes to_dot() (SG-48)."""
    graph = graph_from('a->b')
    path = tmp_path / 'graph.dot'
    graph.save_dot(path)
    assert path.read_text(encoding='utf-8') == graph.to_dot()


def test_save_dot_raises_when_the_file_cannot_be_written(tmp_path: Path) -> None:
    """An unwritable path raises an OSError (SG-48 [D])."""
    graph = graph_from('a->b')
    with pytest.raises(OSError):
        graph.save_dot(tmp_path / 'missing_dir' / 'graph.dot')
    with pytest.raises(OSError):
        graph.save_dot(tmp_path)  # a directory


# -- version ------------------------------------------------------------------------------------


def test_version_increases_on_every_successful_edit_only() -> None:
    """Each successful edit bumps the version; failed edits and queries do not."""
    graph = SceneGraph()
    edits: list[Callable[[], object]] = [
        lambda: graph.add_link(Link('a')),
        lambda: graph.add_link(Link('b'), _joint('a_b', 'a', 'b')),
        lambda: graph.add_link(Link('c')),
        lambda: graph.add_joint(_joint('b_c', 'b', 'c')),
        lambda: graph.set_root('a'),
        lambda: graph.set_name('n'),
        lambda: graph.set_link_visibility('a', False),
        lambda: graph.set_link_collision_enabled('a', False),
        lambda: graph.change_joint_origin('a_b', _pose(2.0)),
        lambda: graph.change_joint_limits('a_b', JointLimits(-2, 2)),
        lambda: graph.change_joint_position_limits('a_b', -1, 1),
        lambda: graph.change_joint_velocity_limits('a_b', 1),
        lambda: graph.change_joint_acceleration_limits('a_b', 1),
        lambda: graph.change_joint_jerk_limits('a_b', 1),
        lambda: graph.move_joint('b_c', 'a'),
        lambda: graph.move_link(_joint('b_c', 'b', 'c')),
        lambda: graph.add_allowed_collision('a', 'b', 'r'),
        lambda: graph.get_allowed_collision_matrix().add_allowed_collision('a', 'c', 'r'),
        lambda: graph.insert_scene_graph(graph_from('x'), prefix='p_'),
        lambda: graph.remove_joint('p_x_joint'),
        lambda: graph.remove_link('p_x'),
        lambda: graph.clear(),
    ]
    for edit in edits:
        before = graph.version
        assert edit() is not False
        assert graph.version > before
    failures: list[Callable[[], object]] = [
        lambda: graph.add_joint(_joint('j', 'a', 'b')),
        lambda: graph.set_root('a'),
        lambda: graph.remove_link('a'),
        lambda: graph.remove_joint('a_b'),
        lambda: graph.move_joint('a_b', 'a'),
        lambda: graph.change_joint_origin('a_b', np.eye(4)),
        lambda: graph.get_shortest_path('a', 'a') if graph.has_link('a') else None,
    ]
    for failure in failures:
        before = graph.version
        failure()
        assert graph.version == before


def test_failed_edits_log_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """A False return is explained in the log, not printed."""
    graph = graph_from('a')
    with caplog.at_level('WARNING', logger='robot_state_core.description.scene_graph'):
        assert not graph.add_joint(_joint('j', 'a', 'nope'))
    assert "child link 'nope' of joint 'j' does not exist" in caplog.text
