"""tesseract's scene-graph tests, ported (seed 002).

Origin: ``tesseract-robotics/tesseract``, ``tesseract_scene_graph/test/``:

* ``tesseract_scene_graph_unit.cpp``: the graph API on ``createTestSceneGraph()`` (five links;
  FIXED ``joint_1``, PLANAR ``joint_2``, FLOATING ``joint_3``, REVOLUTE ``joint_4``; four ACM
  entries) and ``buildTestSceneGraph()`` (``base_link`` plus a REVOLUTE chain), the ACM, joint
  origins and ``insertSceneGraph``;
* ``tesseract_scene_graph_joint_unit.cpp``: joint data classes and ``Joint::clone``;
* ``tesseract_scene_graph_link_unit.cpp``: link data classes and ``Link::clone``.

Each test names the ``TEST`` it ports and uses tesseract's inputs and expected values verbatim
(``JointLimits(l, u, e, v, a)`` keeps tesseract's argument order). Where we deliberately differ,
the test asserts our behaviour and names the row of ``docs/decisions.md`` (section "tesseract
scene graph"). Not ported, because they exercise no seed-002 API: the KDL conversions and the
KDL sub-tree parser (``TesseractSceneGraphKDLConversions``, ``LoadSubKDLUnit``),
``SceneState::getJointValues`` (``TesseractSceneState``), the ``clear()`` methods of the data
classes and ``operator<<`` of ``JointType``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robot_state_core.description.acm import AllowedCollisionMatrix
from robot_state_core.description.joints import (
    Joint,
    JOINT_TYPE_INFO,
    JointCalibration,
    JointDynamics,
    JointLimits,
    JointMimic,
    JointSafety,
    JointType,
)
from robot_state_core.description.links import Collision, Inertial, Link, Material, Visual
from robot_state_core.description.scene_graph import SceneGraph
from robot_state_core.geometry.shapes import Box
from robot_state_core.kinematics import compute_scene_state
from robot_state_core.model.robot_model import RobotModel

KDL_TOL = 1e-8  # tesseract: e_frame.isApprox(c_frame, 1e-8)
NEAR = 1e-6  # tesseract: EXPECT_NEAR(..., 1e-6)


def _origin(x: float = 0.0, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def _acm_size(graph: SceneGraph) -> int:
    """``getAllowedCollisionMatrix()->getAllAllowedCollisions().size()``."""
    return len(graph.get_allowed_collision_matrix().get_all_allowed_collisions())


def _counts(graph: SceneGraph) -> tuple[int, int]:
    return len(graph.get_links()), len(graph.get_joints())


def check_scene_graph(graph: SceneGraph) -> None:
    """The link map agrees with the graph structure (tesseract's ``checkSceneGraph``).

    Every link returned by ``get_links`` is the stored one, and every joint is an outbound edge
    of its parent and an inbound edge of its child (tesseract compares ``getLinks()`` with the
    boost graph's vertices).
    """
    links = graph.get_links()
    assert len({link.name for link in links}) == len(links)
    for link in links:
        assert graph.get_link(link.name) is link
    for joint in graph.get_joints():
        assert any(j is joint for j in graph.get_outbound_joints(joint.parent_link_name))
        assert any(j is joint for j in graph.get_inbound_joints(joint.child_link_name))


def create_test_scene_graph() -> SceneGraph:
    """tesseract_scene_graph_unit.cpp, ``createTestSceneGraph()``."""
    g = SceneGraph()
    for name in ('link_1', 'link_2', 'link_3', 'link_4', 'link_5'):
        assert g.add_link(Link(name))
    assert g.add_joint(Joint('joint_1', JointType.FIXED, 'link_1', 'link_2', _origin(x=1.25)))
    assert g.add_joint(Joint('joint_2', JointType.PLANAR, 'link_2', 'link_3', _origin(x=1.25),
                             limits=JointLimits(-1, 1, 0, 2, 3)))
    assert g.add_joint(Joint('joint_3', JointType.FLOATING, 'link_3', 'link_4', _origin(x=1.25)))
    assert g.add_joint(Joint('joint_4', JointType.REVOLUTE, 'link_2', 'link_5', _origin(y=1.25),
                             limits=JointLimits(-1, 1, 0, 2, 3)))
    g.add_allowed_collision('link_1', 'link_2', 'Adjacent')
    g.add_allowed_collision('link_2', 'link_3', 'Adjacent')
    g.add_allowed_collision('link_3', 'link_5', 'Adjacent')
    g.add_allowed_collision('link_2', 'link_5', 'Adjacent')
    return g


def build_test_scene_graph() -> SceneGraph:
    """tesseract_scene_graph_unit.cpp, ``buildTestSceneGraph()``."""
    g = SceneGraph()
    for name in ('base_link', 'link_1', 'link_2', 'link_3', 'link_4', 'link_5'):
        assert g.add_link(Link(name))
    assert g.add_joint(Joint('base_joint', JointType.FIXED, 'base_link', 'link_1'))
    for name, parent, child, origin in (('joint_1', 'link_1', 'link_2', _origin()),
                                        ('joint_2', 'link_2', 'link_3', _origin(x=1.25)),
                                        ('joint_3', 'link_3', 'link_4', _origin(x=1.25)),
                                        ('joint_4', 'link_2', 'link_5', _origin(y=1.25))):
        assert g.add_joint(Joint(name, JointType.REVOLUTE, parent, child, origin,
                                 limits=JointLimits(-1, 1, 0, 2, 3)))
    return g


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphUnit)
def test_tesseract_scene_graph_unit(tmp_path: Path) -> None:
    g = create_test_scene_graph()

    assert g.get_adjacent_link_names('link_3') == ['link_4']
    assert g.get_inv_adjacent_link_names('link_3') == ['link_2']

    assert g.get_link_children_names('link_5') == []
    assert g.get_link_children_names('link_3') == ['link_4']
    children = g.get_link_children_names('link_2')
    assert len(children) == 3 and set(children) == {'link_3', 'link_4', 'link_5'}

    assert g.get_adjacency_map(['link_2', 'link_3']) == {
        'link_3': 'link_3', 'link_4': 'link_3', 'link_5': 'link_2', 'link_2': 'link_2'}

    leaf_links = g.get_leaf_links()
    assert len(leaf_links) == 2
    assert any(link is g.get_link('link_5') for link in leaf_links)
    assert any(link is g.get_link('link_4') for link in leaf_links)

    assert g.get_joint_children_names(['joint_4']) == ['link_5']
    assert g.get_joint_children_names(['joint_3']) == ['link_4']
    children = g.get_joint_children_names(['joint_1'])
    assert len(children) == 4 and set(children) == {'link_2', 'link_3', 'link_4', 'link_5'}

    active_joints = g.get_active_joints()
    assert len(active_joints) == 2
    assert any(j is g.get_joint('joint_2') for j in active_joints)
    assert any(j is g.get_joint('joint_4') for j in active_joints)

    check_scene_graph(g)
    g.save_dot(tmp_path / 'graph_acyclic_tree_example.dot')
    assert (tmp_path / 'graph_acyclic_tree_example.dot').read_text().startswith('digraph D {')

    assert g.is_acyclic()
    assert g.is_tree()

    # Test for unused links.
    assert g.add_link(Link('link_6'))
    assert not g.is_tree()
    check_scene_graph(g)
    assert g.remove_link('link_6')
    assert g.is_tree()
    check_scene_graph(g)

    assert g.add_joint(Joint('joint_5', JointType.CONTINUOUS, 'link_5', 'link_4',
                             _origin(y=1.5)))
    check_scene_graph(g)
    g.save_dot(tmp_path / 'graph_acyclic_not_tree_example.dot')
    assert g.is_acyclic()
    assert not g.is_tree()

    assert g.add_joint(Joint('joint_6', JointType.CONTINUOUS, 'link_5', 'link_1',
                             _origin(y=1.25)))
    check_scene_graph(g)
    g.save_dot(tmp_path / 'graph_cyclic_not_tree_example.dot')
    assert not g.is_acyclic()
    assert not g.is_tree()

    for root, tip in (('link_1', 'link_4'), ('link_4', 'link_1')):  # and with links reversed
        path = g.get_shortest_path(root, tip)
        assert len(path.links) == 3 and set(path.links) == {'link_1', 'link_5', 'link_4'}
        assert len(path.joints) == 2 and set(path.joints) == {'joint_5', 'joint_6'}
        assert len(path.active_joints) == 2 and set(path.active_joints) == {'joint_5',
                                                                            'joint_6'}

    # Should throw since this is a directory and not a file.
    with pytest.raises(OSError):
        g.save_dot(tmp_path)


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphClearUnit)
def test_clear() -> None:
    g = create_test_scene_graph()
    assert _counts(g) == (5, 4)
    assert _acm_size(g) == 4
    g.clear()
    assert _counts(g) == (0, 0)
    assert _acm_size(g) == 0


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphRootLinkUnit)
def test_root_link() -> None:
    g = create_test_scene_graph()
    assert g.get_root() == 'link_1'
    assert g.set_root('link_5')
    assert not g.set_root('link_10')


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphGetLinkJointUnit)
def test_get_link_joint() -> None:
    g = create_test_scene_graph()
    assert g.get_link('link_1') is not None
    assert g.get_joint('joint_1') is not None
    assert g.get_link('does_not_exist') is None
    assert g.get_joint('does_not_exist') is None


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphAddLinkJointPairUnit)
def test_add_link_joint_pair() -> None:
    g = create_test_scene_graph()
    joint_6 = Joint('joint_5', JointType.FIXED, 'link_5', 'link_6', _origin(x=1.25))
    assert g.add_link(Link('link_6'), joint_6)
    assert g.get_link('link_6') is not None
    assert g.get_joint('joint_5') is not None
    assert _counts(g) == (6, 5)

    # Add link which already exists but joint does not.
    joint_6d = Joint('joint_5d', JointType.FIXED, 'link_5', 'link_6', _origin(x=1.25))
    assert not g.add_link(Link('link_6'), joint_6d)
    assert _counts(g) == (6, 5)
    check_scene_graph(g)

    # Add joint which already exists but link does not (tesseract's joint_6e: a default
    # Joint("joint_5"), type UNKNOWN, no links).
    assert not g.add_link(Link('link_6e'), Joint('joint_5', JointType.UNKNOWN))
    assert _counts(g) == (6, 5)
    check_scene_graph(g)


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphRemoveLinkUnit)
def test_remove_link() -> None:
    # Remove link.
    g = create_test_scene_graph()
    assert _counts(g) == (5, 4)
    assert g.remove_link('link_5')
    assert g.get_joint('joint_4') is None
    assert g.get_link('link_5') is None
    assert _counts(g) == (4, 3)
    check_scene_graph(g)

    # Make sure all inbound and outbound edges are removed.
    g = create_test_scene_graph()
    assert g.remove_link('link_2')
    assert _counts(g) == (4, 1)
    check_scene_graph(g)

    # Try to remove link which does not exist.
    g = create_test_scene_graph()
    assert not g.remove_link('link_does_not_exist')
    assert _counts(g) == (5, 4)
    check_scene_graph(g)

    # Make sure all children are removed if enabled.
    g = create_test_scene_graph()
    assert g.remove_link('link_2', True)
    assert _counts(g) == (1, 0)
    check_scene_graph(g)


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphMoveLinkUnit)
def test_move_link() -> None:
    g = create_test_scene_graph()
    j = g.get_joint('joint_4')
    assert j is not None
    assert _counts(g) == (5, 4)
    assert j.parent_link_name != 'link_4'

    move_joint = j.clone()  # tesseract: j->clone("move_joint_4")
    move_joint.name = 'move_joint_4'
    move_joint.parent_link_name = 'link_4'
    assert g.move_link(move_joint)
    assert g.get_joint('joint_4') is None
    assert g.get_joint('move_joint_4') is not None
    assert _counts(g) == (5, 4)
    check_scene_graph(g)

    # Parent link does not exist.
    ng = create_test_scene_graph()
    move_joint.parent_link_name = 'link_does_not_exist'
    assert not ng.move_link(move_joint)
    check_scene_graph(ng)

    # Child link does not exist.
    ng = create_test_scene_graph()
    move_joint.child_link_name = 'link_does_not_exist'
    assert not ng.move_link(move_joint)
    check_scene_graph(ng)


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphRemoveAllowedCollisionUnit)
def test_remove_allowed_collision() -> None:
    g = create_test_scene_graph()
    assert _acm_size(g) == 4
    assert g.is_collision_allowed('link_1', 'link_2')
    g.remove_allowed_collision('link_1', 'link_2')
    assert not g.is_collision_allowed('link_1', 'link_2')
    assert _acm_size(g) == 3
    g.clear_allowed_collisions()
    assert _acm_size(g) == 0


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphChangeJointOriginUnit)
def test_change_joint_origin_unit() -> None:
    g = create_test_scene_graph()
    j = g.get_joint('joint_4')
    assert j is not None
    origin = j.parent_to_joint_origin_transform.copy()
    check = origin[0, 3]
    origin[0, 3] = check + 5
    assert _counts(g) == (5, 4)
    assert g.change_joint_origin('joint_4', origin)
    joint_4 = g.get_joint('joint_4')
    assert joint_4 is not None
    assert joint_4.parent_to_joint_origin_transform[0, 3] == pytest.approx(check + 5)
    assert _counts(g) == (5, 4)
    # Joint does not exist.
    assert not g.change_joint_origin('joint_does_not_exist', origin)


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphChangeJointLimitsUnit)
def test_change_joint_limits() -> None:
    g = create_test_scene_graph()
    assert g.get_joint_limits('joint_4') is not None
    assert g.get_joint_limits('joint_does_not_exist') is None

    nlimits = JointLimits()
    nlimits.lower = -5
    nlimits.upper = 5

    j = g.get_joint('joint_4')
    assert j is not None and j.limits is not None
    assert _counts(g) == (5, 4)
    assert g.change_joint_limits('joint_4', nlimits)
    assert j.limits.lower == pytest.approx(-5)
    assert j.limits.upper == pytest.approx(5)
    assert _counts(g) == (5, 4)

    # Joint does not exist.
    assert not g.change_joint_limits('joint_does_not_exist', nlimits)
    # Cannot change limits of fixed or floating joint.
    assert not g.change_joint_limits('joint_1', nlimits)
    assert not g.change_joint_limits('joint_3', nlimits)


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphChangeJointPositionLimitsUnit),
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphChangeJointVelocityLimitsUnit),
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphChangeJointAccelerationLimitsUnit)
@pytest.mark.parametrize(('method', 'args', 'field', 'expected'), [
    ('change_joint_position_limits', (-5, 5), ('lower', 'upper'), (-5, 5)),
    ('change_joint_velocity_limits', (10,), ('velocity',), (10,)),
    ('change_joint_acceleration_limits', (20,), ('acceleration',), (20,)),
])
def test_change_joint_position_velocity_acceleration_limits(
        method: str, args: tuple[float, ...], field: tuple[str, ...],
        expected: tuple[float, ...]) -> None:
    g = create_test_scene_graph()
    j = g.get_joint('joint_4')
    assert j is not None and j.limits is not None
    assert _counts(g) == (5, 4)
    assert getattr(g, method)('joint_4', *args)
    assert tuple(getattr(j.limits, f) for f in field) == pytest.approx(expected)
    assert _counts(g) == (5, 4)
    # Joint does not exist.
    assert not getattr(g, method)('joint_does_not_exist', *args)
    # Cannot change limits of fixed or floating joint.
    assert not getattr(g, method)('joint_1', *args)
    assert not getattr(g, method)('joint_3', *args)


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphMoveJointUnit)
def test_move_joint() -> None:
    g = create_test_scene_graph()
    j = g.get_joint('joint_4')
    assert j is not None
    assert _counts(g) == (5, 4)
    assert j.parent_link_name != 'link_4'
    assert g.move_joint('joint_4', 'link_4')
    assert j.parent_link_name == 'link_4'
    assert _counts(g) == (5, 4)
    check_scene_graph(g)
    # Joint does not exist.
    assert not g.move_joint('joint_does_not_exist', 'link_4')
    check_scene_graph(g)
    # Link does not exist.
    assert not g.move_joint('joint_4', 'link_does_not_exist')
    check_scene_graph(g)


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphAddJointUnit)
def test_add_joint() -> None:
    g = create_test_scene_graph()
    # Child does not exist.
    assert not g.add_joint(Joint('joint_5', JointType.FIXED, 'link_5', 'link_6',
                                 _origin(x=1.25)))
    assert _counts(g) == (5, 4)
    # Parent does not exist.
    assert not g.add_joint(Joint('joint_7', JointType.FIXED, 'link_6', 'link_5',
                                 _origin(x=1.25)))
    assert _counts(g) == (5, 4)
    # Joint already exists.
    assert not g.add_joint(Joint('joint_4', JointType.FIXED, 'link_4', 'link_5',
                                 _origin(x=1.25)))
    assert _counts(g) == (5, 4)


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphRemoveJointUnit)
def test_remove_joint() -> None:
    g = create_test_scene_graph()
    assert _counts(g) == (5, 4)
    assert g.remove_joint('joint_4')
    assert g.get_joint('joint_4') is None
    assert g.get_link('link_5') is not None  # The child link should remain.
    assert _counts(g) == (5, 3)

    # Try to remove joint which does not exist.
    g = create_test_scene_graph()
    assert not g.remove_joint('joint_does_not_exist')
    assert _counts(g) == (5, 4)
    check_scene_graph(g)

    # Make sure all children are removed if enabled.
    g = create_test_scene_graph()
    assert g.remove_joint('joint_2', True)
    assert _counts(g) == (3, 2)
    check_scene_graph(g)


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, GetSourceLinkUnit),
# TEST(TesseractSceneGraphUnit, GetTargetLinkUnit)
def test_get_source_and_target_link() -> None:
    g = build_test_scene_graph()
    for i in (1, 2, 3):
        joint = g.get_joint(f'joint_{i}')
        assert joint is not None
        source = g.get_source_link(f'joint_{i}')
        assert source.name == f'link_{i}' == joint.parent_link_name
        assert g.get_link(f'link_{i}') is source
        target = g.get_target_link(f'joint_{i}')
        assert target.name == f'link_{i + 1}' == joint.child_link_name
        assert g.get_link(f'link_{i + 1}') is target


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, GetInboundJointsUnit)
def test_get_inbound_joints() -> None:
    g = build_test_scene_graph()
    for i in (2, 3, 4):
        j = g.get_inbound_joints(f'link_{i}')
        assert len(j) == 1
        assert j[0].name == f'joint_{i - 1}'
        assert j[0].child_link_name == f'link_{i}'
        assert g.get_joint(f'joint_{i - 1}') is j[0]


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, GetOutboundJointsUnit)
def test_get_outbound_joints() -> None:
    g = build_test_scene_graph()
    for i in (1, 2, 3):
        j = g.get_outbound_joints(f'link_{i}')
        expected = [f'joint_{i}', 'joint_4'] if i == 2 else [f'joint_{i}']
        assert [joint.name for joint in j] == expected
        for joint, name in zip(j, expected, strict=True):
            assert joint.parent_link_name == f'link_{i}'
            assert g.get_joint(name) is joint


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, LoadKDLUnit): the graph is
# compiled into a kinematic model (tesseract: parseSceneGraph into a KDL tree) and its link
# poses at zero joint values are computed (SG-49, compute_scene_state; tesseract:
# KDL::TreeFkSolverPos_recursive).
@pytest.mark.parametrize('clone', [False, True])
def test_load_kdl_unit(clone: bool) -> None:
    g = build_test_scene_graph()
    if clone:
        g = g.clone()
    for link in g.get_links():  # all links are enabled
        assert g.get_link_collision_enabled(link.name)
        assert g.get_link_visibility(link.name)

    joint_names = {'joint_1', 'joint_2', 'joint_3', 'joint_4'}
    link_names = {'base_link', 'link_1', 'link_2', 'link_3', 'link_4', 'link_5'}
    static_link_names = {'base_link', 'link_1'}
    active_link_names = {'link_2', 'link_3', 'link_4', 'link_5'}
    active = [j.name for j in g.get_active_joints()]
    assert set(active) == joint_names
    assert {link.name for link in g.get_links()} == link_names
    assert set(g.get_joint_children_names(active)) == active_link_names
    assert link_names - active_link_names == static_link_names

    model = RobotModel.from_scene_graph(g)
    assert model.nq == 4  # data.tree.getNrOfJoints() == 4
    state = compute_scene_state(model, dict.fromkeys(joint_names, 0.0))
    expected = {'base_link': _origin(), 'link_1': _origin(), 'link_2': _origin(),
                'link_3': _origin(x=1.25), 'link_4': _origin(x=2 * 1.25),
                'link_5': _origin(y=1.25)}
    for name, X in expected.items():
        np.testing.assert_allclose(state.link_transforms[name], X, rtol=0, atol=KDL_TOL)


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TestAllowedCollisionMatrix)
def test_allowed_collision_matrix() -> None:
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('link1', 'link2', 'test')
    # collision between link1 and link2 should be allowed, but not between link2 and link3
    assert acm.is_collision_allowed('link1', 'link2')
    assert not acm.is_collision_allowed('link2', 'link3')

    acm.remove_allowed_collision('link1', 'link2')
    assert not acm.is_collision_allowed('link1', 'link2')

    acm.add_allowed_collision('link3', 'link3', 'test')
    assert len(acm.get_all_allowed_collisions()) == 1
    acm.clear()  # clearAllowedCollisions()
    assert len(acm.get_all_allowed_collisions()) == 0

    acm2 = AllowedCollisionMatrix()
    acm.add_allowed_collision('link1', 'link2', 'test')
    acm2.add_allowed_collision('link1', 'link2', 'test')
    acm2.add_allowed_collision('link1', 'link3', 'test')
    acm.insert(acm2)  # insertAllowedCollisionMatrix(acm2)

    assert len(acm.get_all_allowed_collisions()) == 2
    assert acm.is_collision_allowed('link1', 'link2')
    assert acm.is_collision_allowed('link1', 'link3')
    assert not acm.is_collision_allowed('link2', 'link3')
    assert len(acm.get_all_allowed_collisions()) == 2


# tesseract_scene_graph_unit.cpp, TEST(TesseractSceneGraphUnit, TestChangeJointOrigin)
def test_change_joint_origin_recomputes_the_edge() -> None:
    g = SceneGraph()
    g.add_link(Link('link_n1'))
    g.add_link(Link('link_n2'))
    g.add_joint(Joint('joint_n1', JointType.FIXED, 'link_n1', 'link_n2'))

    new_origin = np.eye(4)
    new_origin[0, 3] += 1.234
    g.change_joint_origin('joint_n1', new_origin)

    # Check that the transform got updated and the edge was recalculated.
    joint = g.get_joint('joint_n1')
    assert joint is not None
    np.testing.assert_allclose(joint.parent_to_joint_origin_transform, new_origin)
    # tesseract reads boost::edge_weight of getEdge("joint_n1"); ours is the same number
    # (the edge weight used by get_shortest_path), kept per joint name.
    assert g._weights['joint_n1'] == np.linalg.norm(joint.parent_to_joint_origin_transform[:3, 3])


def _graph_with_acm() -> tuple[SceneGraph, AllowedCollisionMatrix]:
    g = build_test_scene_graph()
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('link1', 'link2', 'test')
    acm.add_allowed_collision('link1', 'link3', 'test')
    g.get_allowed_collision_matrix().insert(acm)
    assert _acm_size(g) == 2
    return g, acm


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphInsertEmptyUnit)
def test_insert_empty(tmp_path: Path) -> None:
    g, _ = _graph_with_acm()
    ng = SceneGraph()
    assert ng.insert_scene_graph(g)
    check_scene_graph(ng)
    assert _counts(g) == _counts(ng)
    assert g.get_root() == ng.get_root()
    assert _acm_size(ng) == 2
    for link in g.get_links():
        assert ng.get_link(link.name) is not None
    for joint in g.get_joints():
        assert ng.get_joint(joint.name) is not None
    for a, b in g.get_allowed_collision_matrix().get_all_allowed_collisions():
        assert ng.get_allowed_collision_matrix().is_collision_allowed(a, b)
    ng.save_dot(tmp_path / 'graph_insert_empty_example.dot')


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphInsertWithoutJointNoPrefixUnit)
def test_insert_without_joint_no_prefix() -> None:
    g, acm = _graph_with_acm()
    ng = build_test_scene_graph()
    ng.get_allowed_collision_matrix().insert(acm)
    assert _acm_size(ng) == 2

    # Insert without prefix which should fail leaving the original graph.
    assert not ng.insert_scene_graph(g)
    assert _counts(g) == _counts(ng)
    assert g.get_root() == ng.get_root()
    assert _acm_size(ng) == 2
    for link in g.get_links():
        assert ng.get_link(link.name) is not None
    for joint in g.get_joints():
        assert ng.get_joint(joint.name) is not None
    for a, b in g.get_allowed_collision_matrix().get_all_allowed_collisions():
        assert ng.get_allowed_collision_matrix().is_collision_allowed(a, b)


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphInsertWithoutJointWithPrefixUnit)
def test_insert_without_joint_with_prefix(tmp_path: Path) -> None:
    """Decision T-1: the inserted root is attached to this root by a FIXED joint.

    tesseract adds no joint: it expects ``isTree() == false`` and ``2 * joints``; we follow the
    seed's documentation of ``insertSceneGraph`` and get a tree with ``2 * joints + 1``.
    """
    g, acm = _graph_with_acm()
    ng = build_test_scene_graph()
    ng.get_allowed_collision_matrix().insert(acm)
    assert _acm_size(ng) == 2

    prefix = 'r1::'
    assert ng.insert_scene_graph(g, prefix)
    assert ng.is_tree()  # tesseract: EXPECT_FALSE(ng.isTree()) (T-1)
    check_scene_graph(ng)

    n_links, n_joints = _counts(g)
    assert len(ng.get_links()) == 2 * n_links
    assert len(ng.get_joints()) == 2 * n_joints + 1  # tesseract: 2 * joints (T-1)
    connecting = ng.get_joint(f'{prefix}{g.get_root()}_joint')
    assert connecting is not None and connecting.type is JointType.FIXED
    assert (connecting.parent_link_name, connecting.child_link_name) == (
        'base_link', 'r1::base_link')
    np.testing.assert_array_equal(connecting.parent_to_joint_origin_transform, np.eye(4))
    assert g.get_root() == ng.get_root()
    assert _acm_size(ng) == 4
    for link in g.get_links():
        assert ng.get_link(link.name) is not None
        assert ng.get_link(prefix + link.name) is not None
    for joint in g.get_joints():
        assert ng.get_joint(joint.name) is not None
        assert ng.get_joint(prefix + joint.name) is not None
    for a, b in g.get_allowed_collision_matrix().get_all_allowed_collisions():
        assert ng.get_allowed_collision_matrix().is_collision_allowed(a, b)
        assert ng.get_allowed_collision_matrix().is_collision_allowed(prefix + a, prefix + b)
    ng.save_dot(tmp_path / 'graph_insert_example.dot')


# tesseract_scene_graph_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphInsertWithJointWithPrefixUnit)
def test_insert_with_joint_with_prefix(tmp_path: Path) -> None:
    g, acm = _graph_with_acm()
    assert g.is_collision_allowed('link1', 'link2')
    assert g.is_collision_allowed('link1', 'link3')
    ng = build_test_scene_graph()
    ng.get_allowed_collision_matrix().insert(acm)
    assert _acm_size(ng) == 2
    assert ng.is_collision_allowed('link1', 'link2')
    assert ng.is_collision_allowed('link1', 'link3')

    prefix = 'r1::'
    new_joint = Joint('insert_graph_joint', JointType.FIXED, 'base_link', prefix + 'base_link',
                      _origin(x=1))
    assert ng.insert_scene_graph(g, prefix, joint=new_joint)
    assert ng.is_tree()
    check_scene_graph(ng)

    n_links, n_joints = _counts(g)
    assert len(ng.get_links()) == 2 * n_links
    assert len(ng.get_joints()) == 2 * n_joints + 1
    assert g.get_root() == ng.get_root()
    assert _acm_size(ng) == 4
    for link in g.get_links():
        assert ng.get_link(link.name) is not None
        assert ng.get_link(prefix + link.name) is not None
    for joint in g.get_joints():
        assert ng.get_joint(joint.name) is not None
        assert ng.get_joint(prefix + joint.name) is not None
    for a, b in g.get_allowed_collision_matrix().get_all_allowed_collisions():
        assert ng.get_allowed_collision_matrix().is_collision_allowed(a, b)
        assert ng.get_allowed_collision_matrix().is_collision_allowed(prefix + a, prefix + b)
    ng.save_dot(tmp_path / 'graph_insert_with_joint_example.dot')


# tesseract graph.cpp SceneGraph::isTree (tree_detector) and addJointHelper, on the edge cases
# the unit tests do not cover: empty graph, a single link, limits of joint types.
def test_is_tree_edge_cases_and_limit_requirements() -> None:
    assert SceneGraph().is_tree()  # no vertex violates the rule
    single = SceneGraph()
    single.add_link(Link('only'))
    assert not single.is_tree()  # in-degree 0 and out-degree 0: an unused link
    needs = {t for t, info in JOINT_TYPE_INFO.items() if info.needs_limits}
    assert needs == {JointType.REVOLUTE, JointType.PRISMATIC, JointType.PLANAR}
    g = create_test_scene_graph()
    assert g.add_link(Link('link_6'))
    assert not g.add_joint(Joint('j', JointType.PLANAR, 'link_5', 'link_6'))
    assert g.add_joint(Joint('j', JointType.CONTINUOUS, 'link_5', 'link_6'))
    limits = g.get_joint_limits('j')
    assert limits is not None
    assert (limits.lower, limits.upper, limits.effort, limits.velocity, limits.acceleration,
            limits.jerk) == (-4 * np.pi, 4 * np.pi, 0, 2, 1, 1000)


# -- tesseract_scene_graph_joint_unit.cpp ------------------------------------------------------


# tesseract_scene_graph_joint_unit.cpp, TEST(TesseractSceneGraphUnit,
# TesseractSceneGraphJointDynamicsUnit), ...JointLimitsUnit, ...JointSafetyUnit,
# ...JointCalibrationUnit, ...JointMimicUnit: the defaults (clear() is not ported).
def test_joint_data_defaults() -> None:
    d = JointDynamics()
    assert (d.damping, d.friction) == pytest.approx((0, 0), abs=NEAR)
    limits = JointLimits()
    assert (limits.lower, limits.upper, limits.effort, limits.velocity,
            limits.acceleration) == pytest.approx((0, 0, 0, 0, 0), abs=NEAR)
    assert limits.jerk == 0  # our jerk (newer tesseract JointLimits has jerk{0} too)
    s = JointSafety()
    assert (s.soft_upper_limit, s.soft_lower_limit, s.k_position,
            s.k_velocity) == pytest.approx((0, 0, 0, 0), abs=NEAR)
    c = JointCalibration()
    assert c.reference_position == pytest.approx(0, abs=NEAR)
    # tesseract: rising 0, falling 0; ours: None, "not given" (decision T-6).
    assert (c.rising, c.falling) == (None, None)
    m = JointMimic('')  # tesseract's default JointMimic has an empty joint_name
    assert (m.offset, m.multiplier) == pytest.approx((0, 1), abs=NEAR)
    assert m.joint_name == ''


# tesseract_scene_graph_joint_unit.cpp,
# TEST(TesseractSceneGraphUnit, TesseractSceneGraphJointUnit)
def test_joint_defaults_and_clone() -> None:
    joint_1 = Joint('joint_n1', JointType.UNKNOWN)  # tesseract Joint("joint_n1"): UNKNOWN
    np.testing.assert_array_equal(joint_1.parent_to_joint_origin_transform, np.eye(4))
    assert joint_1.child_link_name == '' and joint_1.parent_link_name == ''
    assert joint_1.dynamics is None and joint_1.limits is None and joint_1.safety is None
    assert joint_1.calibration is None and joint_1.mimic is None
    assert joint_1.type is JointType.UNKNOWN

    joint_1.parent_to_joint_origin_transform[:3, 3] = (1, 2, 3)
    joint_1.parent_link_name = 'link_n1'
    joint_1.child_link_name = 'link_n2'
    joint_1.axis = np.array([0.0, 0.0, 1.0])
    joint_1.type = JointType.PRISMATIC
    joint_1.dynamics = JointDynamics(damping=0.1, friction=0.25)
    joint_1.limits = JointLimits(lower=-5, upper=5, effort=0.5, velocity=2)
    joint_1.calibration = JointCalibration(rising=0.1, falling=0.1)
    joint_1.mimic = JointMimic('joint_0', multiplier=1.5, offset=0.5)
    assert joint_1.name == 'joint_n1'

    clone = joint_1.clone()
    assert clone.name == 'joint_n1'
    assert (clone.parent_link_name, clone.child_link_name) == ('link_n1', 'link_n2')
    np.testing.assert_allclose(clone.parent_to_joint_origin_transform,
                               joint_1.parent_to_joint_origin_transform)
    np.testing.assert_allclose(clone.axis, [0, 0, 1])
    assert clone.type is JointType.PRISMATIC
    assert clone.dynamics is not joint_1.dynamics and clone.dynamics is not None
    assert (clone.dynamics.damping, clone.dynamics.friction) == pytest.approx((0.1, 0.25),
                                                                              abs=NEAR)
    assert clone.limits is not joint_1.limits and clone.limits is not None
    assert (clone.limits.lower, clone.limits.upper, clone.limits.effort,
            clone.limits.velocity) == pytest.approx((-5, 5, 0.5, 2), abs=NEAR)
    assert clone.calibration is not joint_1.calibration and clone.calibration is not None
    assert (clone.calibration.rising, clone.calibration.falling) == pytest.approx((0.1, 0.1),
                                                                                  abs=NEAR)
    assert clone.mimic is not joint_1.mimic and clone.mimic is not None
    assert (clone.mimic.offset, clone.mimic.multiplier) == pytest.approx((0.5, 1.5), abs=NEAR)
    assert clone.mimic.joint_name == 'joint_0'


# -- tesseract_scene_graph_link_unit.cpp -------------------------------------------------------


# tesseract_scene_graph_link_unit.cpp, TEST(TesseractSceneGraphUnit,
# TesseractSceneGraphLinkMaterialUnit), ...LinkInertiaUnit, ...LinkVisualUnit,
# ...LinkCollisionUnit: the defaults (clear() is not ported).
def test_link_data_defaults() -> None:
    m = Material('test_material')
    assert m.name == 'test_material'
    # tesseract: texture_filename "" and color (0.5, 0.5, 0.5, 1.0); ours: None, None (T-7).
    assert (m.texture_filename, m.color) == (None, None)

    i = Inertial()
    np.testing.assert_array_equal(i.origin, np.eye(4))
    assert (i.mass, i.ixx, i.ixy, i.ixz, i.iyy, i.iyz, i.izz) == pytest.approx((0,) * 7,
                                                                               abs=NEAR)

    # tesseract: Visual() and Collision() have no geometry (nullptr) and the Visual's material
    # is DEFAULT_TESSERACT_MATERIAL; ours require a geometry and default to no material (T-7).
    v = Visual(Box(1, 1, 1))
    np.testing.assert_array_equal(v.origin, np.eye(4))
    assert v.material is None and v.name == ''
    c = Collision(Box(1, 1, 1))
    np.testing.assert_array_equal(c.origin, np.eye(4))
    assert c.name == ''


# tesseract_scene_graph_link_unit.cpp, TEST(TesseractSceneGraphUnit, TesseractSceneGraphLinkUnit)
def test_link_clone() -> None:
    inertial_origin = _origin(1, 2, 3)
    link = Link('test_link')
    assert link.name == 'test_link'
    link.inertial = Inertial(inertial_origin, 1, 5, 5, 5, 5, 5, 5)
    v = Visual(Box(1, 1, 1), _origin(1, 2, 3), Material('test_material', (1, 1, 1, 1)),
               'test_visual')
    link.visuals.append(v)
    c = Collision(Box(1, 1, 1), _origin(1, 2, 3), 'test_collision')
    link.collisions.append(c)

    clone = link.clone()
    assert clone.name == 'test_link'
    assert clone.inertial is not link.inertial and clone.inertial is not None
    np.testing.assert_allclose(clone.inertial.origin, link.inertial.origin)
    assert (clone.inertial.mass, clone.inertial.ixx, clone.inertial.ixy, clone.inertial.ixz,
            clone.inertial.iyy, clone.inertial.iyz,
            clone.inertial.izz) == pytest.approx((1, 5, 5, 5, 5, 5, 5), abs=NEAR)
    assert len(clone.visuals) == 1
    assert clone.visuals[0] is not v
    np.testing.assert_allclose(clone.visuals[0].origin, v.origin)
    # tesseract: the clone shares material and geometry pointers. Ours shares the (immutable)
    # geometry and copies the material: equal, but not the same object (T-8).
    assert clone.visuals[0].geometry is v.geometry
    assert clone.visuals[0].material == v.material
    assert clone.visuals[0].material is not v.material
    assert clone.visuals[0].name == v.name
    assert len(clone.collisions) == 1
    assert clone.collisions[0] is not c
    np.testing.assert_allclose(clone.collisions[0].origin, c.origin)
    assert clone.collisions[0].geometry is c.geometry
    assert clone.collisions[0].name == c.name
