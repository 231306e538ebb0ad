"""Issue 10, core items: bad input gives one typed, quiet error; no NaN; bounded plan memory.

Items: 1 degenerate quaternions, 8 robots without variables, 9 plan memory and the size limit,
11 duplicate variable names, 13 unusable shape/origin/limit values and world objects, 14 bad API
arguments (one table-driven test over the public API), 15 ``package://`` confinement.

Oracles: Pinocchio for forward kinematics and Jacobians; MoveIt's ``normalizeRotation`` rule
as read in ``moveit/moveit2`` (``moveit_core/robot_model/src/floating_joint_model.cpp``) for
quaternion normalization; tesseract's URDF unit tests for shape sizes (ported below, origin
named on each table).
"""

from __future__ import annotations

from collections.abc import Callable
import contextlib
import io
import math
from pathlib import Path
from typing import Any
import warnings

import numpy as np
import pytest

from robot_state_core import (
    AllowedCollisionMatrix,
    AttachedBody,
    DetachPosture,
    fixed_joint_transforms,
    IKOptions,
    IKRequest,
    IKStatus,
    InvalidArgumentError,
    Joint,
    JointType,
    kinematics,
    Link,
    load_urdf_string,
    ModelError,
    parse_srdf,
    RobotModel,
    RobotState,
    RobotStateCoreError,
    solve_ik,
    solve_ik_batch,
    UnknownNameError,
    UrdfLoadError,
    Visual,
)
from robot_state_core.errors import InvalidIndexError, InvalidTypeError
from robot_state_core.geometry.shapes import Box, Capsule, Cylinder, Mesh, Sphere
from robot_state_core.io import urdf as urdf_module
from robot_state_core.io.resources import ResourceResolver
from robot_state_core.kinematics import bounds
from robot_state_core.model import robot_model as robot_model_module
from robot_state_core.model.robot_model import MAX_POSITION_LIMIT
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.spatial.transforms import pose_from_xyz_rpy

pin = pytest.importorskip('pinocchio')

RESOURCES = Path(__file__).resolve().parent / 'resources'
FK_TOL = 1e-12
'''Agreement with Pinocchio on O(1) poses (a few ulps).'''
EPS = float(np.finfo(float).eps)

# A floating base, a revolute and a prismatic joint, a fixed tip, and a one-box collision.
FLOATING_URDF = '''<robot name="fb">
<link name="world"/>
<link name="base"><collision><geometry><box size="0.2 0.1 0.1"/></geometry></collision></link>
<link name="l1"/><link name="l2"/><link name="tip"/>
<joint name="float" type="floating"><parent link="world"/><child link="base"/></joint>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1"/>
  <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
<joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/><origin xyz="0.3 0 0"/>
  <axis xyz="1 0 0"/><limit lower="0" upper="0.5" effort="1" velocity="1"/></joint>
<joint name="fix" type="fixed"><parent link="l2"/><child link="tip"/>
  <origin xyz="0.1 0 0" rpy="0 0.3 0"/></joint>
</robot>'''
FLOATING_SRDF = '''<robot name="fb">
<group name="arm"><chain base_link="base" tip_link="tip"/></group>
<group name="all"><joint name="float"/><joint name="j1"/><joint name="j2"/></group>
</robot>'''
# The two robots of the issue text without variables.
FIXED_ONLY_URDF = ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" '
                   'type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
SINGLE_LINK_URDF = '<robot name="r"><link name="a"/></robot>'

DEGENERATE_QUATERNIONS = {
    'zero': [0.0, 0.0, 0.0, 0.0],
    'tiny (1e-200)': [0.0, 0.0, 0.0, 1e-200],
    'below 1e-12': [0.0, 0.0, 0.0, 1e-13],
    'huge (1e200)': [0.0, 0.0, 0.0, 1e200],
    'above 1e12': [1e13, 0.0, 0.0, 0.0],
}


@pytest.fixture(scope='module')
def fb() -> RobotModel:
    return RobotModel.from_urdf_string(FLOATING_URDF, FLOATING_SRDF)


def _pin_model(urdf: str) -> tuple[Any, Any]:
    pm = pin.buildModelFromXML(urdf)
    return pm, pm.createData()


def _pin_link_poses(model: RobotModel, urdf: str, q_pin: np.ndarray) -> np.ndarray:
    """Every link pose from Pinocchio (frames of type BODY), in our link order."""
    pm, pd = _pin_model(urdf)
    pin.framesForwardKinematics(pm, pd, q_pin)
    out = []
    for name in model.link_names:
        fid = pm.getFrameId(name, pin.BODY)
        out.append(pd.oMf[fid].homogeneous)
    return np.stack(out)


@contextlib.contextmanager
def quiet() -> Any:
    """Fail when anything reaches stdout, stderr or the warnings machinery."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        yield
    assert out.getvalue() == '' and err.getvalue() == ''
    assert [str(w.message) for w in caught] == []


# ============================================================================ 1. quaternions


def _setters(state: RobotState, quat: list[float]) -> dict[str, Callable[[], object]]:
    """Every position setter that can carry a FLOATING joint's quaternion."""
    model = state.robot_model
    q = np.array(model.default_positions)
    q[3:7] = quat
    names = ['float/rot_x', 'float/rot_y', 'float/rot_z', 'float/rot_w']
    group = model.group('all')
    g = state.get_joint_group_positions(group)
    g[3:7] = quat
    return {
        'set_variable_positions(array)': lambda: state.set_variable_positions(q),
        'set_variable_positions(mapping)': lambda: state.set_variable_positions(
            dict(zip(names, quat, strict=True))),
        'set_variable_positions(names, values)': lambda: state.set_variable_positions(
            names, quat),
        'set_variable_values': lambda: state.set_variable_values(names, quat),
        'set_joint_positions': lambda: state.set_joint_positions(
            'float', [0.0, 0.0, 0.0, *quat]),
        'set_joint_group_positions': lambda: state.set_joint_group_positions('all', g),
        'set_joint_group_active_positions': lambda: state.set_joint_group_active_positions(
            'all', g),
    }


@pytest.mark.parametrize('label', list(DEGENERATE_QUATERNIONS))
def test_degenerate_quaternions_are_refused_by_every_setter(fb: RobotModel, label: str) -> None:
    """Zero, tiny and huge quaternions raise, name the joint, and change nothing."""
    state = RobotState(fb)
    state.set_variable_positions(np.r_[0.1, 0.2, 0.3, 0.0, 0.0, 0.6, 0.8, 0.5, 0.2])
    before = state.positions.copy()
    poses = state.get_link_poses().copy()
    for setter, call in _setters(state, DEGENERATE_QUATERNIONS[label]).items():
        with quiet(), pytest.raises(InvalidArgumentError, match="FLOATING joint 'float'"):
            call()
        assert np.array_equal(state.positions, before), setter
        assert np.array_equal(state.get_link_poses(), poses), setter


def test_component_writes_through_a_zero_quaternion_are_refused(fb: RobotModel) -> None:
    """Writing rot_w = 0 on the identity leaves (0, 0, 0, 0): refused, nothing written."""
    state = RobotState(fb)
    with pytest.raises(InvalidArgumentError, match='zero quaternion'):
        state.set_variable_position('float/rot_w', 0.0)
    assert state.get_variable_position('float/rot_w') == 1.0
    state.set_variable_position('float/rot_x', 1.0)  # (1, 0, 0, 1): valid
    state.set_variable_position('float/rot_w', 0.0)  # (1, 0, 0, 0): valid
    np.testing.assert_array_equal(state.get_joint_positions('float')[3:], [1.0, 0.0, 0.0, 0.0])


def test_valid_quaternions_are_stored_as_given_and_used_normalized(fb: RobotModel) -> None:
    """MoveIt stores the given values; FK uses the normalized quaternion (Pinocchio oracle)."""
    state = RobotState(fb)
    quat = np.array([0.3, -0.4, 1.2, 2.0])  # norm 2.4
    q = np.r_[0.5, -0.2, 0.1, quat, 0.7, 0.3]
    state.set_variable_positions(q)
    assert np.array_equal(state.positions, q)  # MoveIt setVariablePositions copies the values
    q_pin = q.copy()
    q_pin[3:7] = quat / np.linalg.norm(quat)
    np.testing.assert_allclose(state.get_link_poses(), _pin_link_poses(fb, FLOATING_URDF, q_pin),
                               atol=FK_TOL)
    np.testing.assert_allclose(kinematics.forward_kinematics(fb, q),
                               _pin_link_poses(fb, FLOATING_URDF, q_pin), atol=FK_TOL)


def test_enforce_bounds_normalizes_like_moveit_normalize_rotation(fb: RobotModel) -> None:
    """``FloatingJointModel::normalizeRotation``: |n² - 1| <= 100 eps is kept, else divided."""
    state = RobotState(fb)
    inside = np.array([0.0, 0.0, 0.0, 1.0 + 20 * EPS])  # n² - 1 = 40 eps: kept bit for bit
    state.set_joint_positions('float', np.r_[0.0, 0.0, 0.0, inside])
    state.enforce_bounds()
    assert np.array_equal(state.get_joint_positions('float')[3:], inside)
    outside = np.array([0.0, 0.0, 0.0, 1.0 + 1e-9])  # MoveIt divides by the norm
    state.set_joint_positions('float', np.r_[0.0, 0.0, 0.0, outside])
    state.enforce_bounds()
    assert np.array_equal(state.get_joint_positions('float')[3:],
                          outside / math.sqrt(outside @ outside))
    q = np.array(fb.default_positions)
    q[3:7] = [0.0, 0.0, 0.0, 2.0]
    np.testing.assert_array_equal(bounds.enforce_position_bounds(fb, q)[3:7], [0, 0, 0, 1.0])


@pytest.mark.parametrize('label', ['zero', 'huge (1e200)'])
def test_batched_inputs_with_a_degenerate_quaternion_are_refused(fb: RobotModel,
                                                                 label: str) -> None:
    """Batched FK, Jacobians, integrate and difference name the batch row."""
    Q = np.tile(np.array(fb.default_positions), (3, 1))
    Q[2, 3:7] = DEGENERATE_QUATERNIONS[label]
    v = np.zeros((3, fb.nv))
    calls = {
        'forward_kinematics': lambda: kinematics.forward_kinematics(fb, Q),
        'forward_kinematics_soa': lambda: kinematics.forward_kinematics_soa(fb, Q),
        'local_joint_transforms': lambda: kinematics.local_joint_transforms(fb, Q),
        'jacobian': lambda: kinematics.jacobian(fb, Q, 'tip'),
        'integrate': lambda: kinematics.integrate(fb, Q, v),
        'difference': lambda: kinematics.difference(fb, Q[0], Q),
    }
    for name, call in calls.items():
        with quiet(), pytest.raises(InvalidArgumentError, match=r'batch index \(2,\)'):
            call()
        assert name


# ============================================================================ 8. no variables


@pytest.mark.parametrize('urdf', [FIXED_ONLY_URDF, SINGLE_LINK_URDF],
                         ids=['fixed-only', 'single-link'])
def test_robots_without_variables(urdf: str) -> None:
    """FK (single and batched), Jacobians, bounds, sampling and IK on nq = 0 (Pinocchio)."""
    model = RobotModel.from_urdf_string(urdf)
    assert model.nq == 0 and model.nv == 0
    state = RobotState(model)
    expected = _pin_link_poses(model, urdf, np.zeros(0))
    np.testing.assert_allclose(state.get_link_poses(), expected, atol=FK_TOL)
    last = model.link_names[-1]
    np.testing.assert_allclose(state.get_global_link_transform(last), expected[-1], atol=FK_TOL)
    np.testing.assert_allclose(kinematics.forward_kinematics(model, np.zeros((4, 0))),
                               np.broadcast_to(expected, (4, *expected.shape)), atol=FK_TOL)
    np.testing.assert_allclose(np.moveaxis(kinematics.forward_kinematics_soa(
        model, np.zeros((2, 0))), -1, 0), np.broadcast_to(expected, (2, *expected.shape)),
        atol=FK_TOL)
    assert kinematics.jacobian(model, np.zeros(0), last).shape == (6, 0)
    assert kinematics.jacobian(model, np.zeros((3, 0)), last).shape == (3, 6, 0)
    assert kinematics.integrate(model, np.zeros(0), np.zeros(0)).shape == (0,)
    assert kinematics.difference(model, np.zeros(0), np.zeros(0)).shape == (0,)
    assert bounds.random_positions(model, 0, size=5).shape == (5, 0)
    assert bool(bounds.satisfies_position_bounds(model, np.zeros(0)))
    assert bounds.distance(model, np.zeros(0), np.zeros(0)) == 0.0
    state.set_to_random_positions()
    state.enforce_bounds()
    assert state.satisfies_bounds()
    assert kinematics.compute_scene_state(model).joints == {}


def test_ik_on_a_group_without_variables_is_an_invalid_request() -> None:
    srdf = '<robot name="r"><group name="g"><joint name="j"/></group></robot>'
    model = RobotModel.from_urdf_string(FIXED_ONLY_URDF, srdf)
    result = solve_ik(model, IKRequest('g', (np.eye(4),), ('b',)))
    assert result.status is IKStatus.INVALID_REQUEST
    assert 'no active variables' in result.message
    assert not RobotState(model).set_from_ik('g', np.eye(4), 'b')


# ============================================================================ 9. plan memory


def _flat_urdf(n: int, mimic_every: int = 0) -> str:
    parts = ['<robot name="flat">', '<link name="l0"/>']
    for i in range(1, n + 1):
        mimic = (f'<mimic joint="j{i - 1}" multiplier="-0.5" offset="0.1"/>'
                 if mimic_every and i % mimic_every == 0 else '')
        parts.append(f'<link name="l{i}"/><joint name="j{i}" type="revolute"><parent link="l0"/>'
                     f'<child link="l{i}"/><origin xyz="0.01 {i * 1e-3} 0.02"/><axis xyz="0 0 1"/>'
                     f'<limit lower="-1" upper="1" effort="1" velocity="1"/>{mimic}</joint>')
    parts.append('</robot>')
    return ''.join(parts)


def _chain_urdf(n: int, mimic_every: int = 0) -> str:
    parts = ['<robot name="chain">', '<link name="l0"/>']
    for i in range(1, n + 1):
        mimic = (f'<mimic joint="j{i - 1}" multiplier="0.7" offset="-0.05"/>'
                 if mimic_every and i % mimic_every == 0 else '')
        axis = ('1 0 0', '0 1 0', '0 0 1')[i % 3]
        parts.append(f'<link name="l{i}"/><joint name="j{i}" type="revolute"><parent '
                     f'link="l{i - 1}"/><child link="l{i}"/><origin xyz="0.05 0.01 0.02" '
                     f'rpy="0.1 0 0.2"/><axis xyz="{axis}"/><limit lower="-1" upper="1" '
                     f'effort="1" velocity="1"/>{mimic}</joint>')
    parts.append('</robot>')
    return ''.join(parts)


def _plan_bytes(model: RobotModel) -> int:
    plan = kinematics.plan(model)
    total = 0
    for value in vars(plan).values():
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            for a in (item if isinstance(item, tuple) else (item,)):
                total += a.nbytes if isinstance(a, np.ndarray) else 0
    return total


def test_plan_memory_grows_linearly() -> None:
    """Doubling a flat robot doubles the kinematics plan (it was links x joints + nv²)."""
    small = RobotModel.from_urdf_string(_flat_urdf(500))
    large = RobotModel.from_urdf_string(_flat_urdf(1000))
    ratio = _plan_bytes(large) / _plan_bytes(small)
    assert 1.8 < ratio < 2.2
    assert _plan_bytes(large) < 1000 * 2000  # about 1.5 kB per joint


def test_sparse_mimic_fold_matches_pinocchio() -> None:
    """A 70-joint chain with 14 mimic joints: the folded Jacobians match Pinocchio's."""
    urdf = _chain_urdf(70, mimic_every=5)
    model = RobotModel.from_urdf_string(urdf)
    assert model.mimic_variable.size == 14
    pm = pin.buildModelFromXML(urdf, mimic=True)
    pd = pm.createData()
    q = np.random.default_rng(7).uniform(-1.0, 1.0, model.nq)
    model.apply_mimic(q)
    active = np.flatnonzero(model.active_variable_mask)
    qp = q[active]  # every joint is revolute: Pinocchio's q is the independent variables
    J_pin = pin.computeFrameJacobian(pm, pd, qp, pm.getFrameId('l70', pin.BODY),
                                     pin.LOCAL_WORLD_ALIGNED)
    J = kinematics.fold_mimic_columns(model, kinematics.jacobian(model, q, 'l70'))
    np.testing.assert_allclose(J[:, active], J_pin, atol=1e-10)
    assert not np.any(J[:, model.mimic_variable])


def test_models_beyond_the_size_limit_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(robot_model_module, 'MAX_LINKS', 20)
    RobotModel.from_urdf_string(_flat_urdf(19))  # 20 links
    graph = load_urdf_string(_flat_urdf(20)).scene_graph
    with pytest.raises(ModelError, match='at most 20 links'):
        RobotModel.from_scene_graph(graph)

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError('a description beyond the limit must be refused before parsing')

    monkeypatch.setattr(urdf_module, 'load_urdf_string', never)
    with pytest.raises(ModelError, match='21 <link> elements; at most 20 links'):
        RobotModel.from_urdf_string(_flat_urdf(20).encode())


# ============================================================================ 11. duplicate names


def test_duplicate_variable_names_name_both_joints() -> None:
    urdf = ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
            '<joint name="p" type="planar"><parent link="a"/><child link="b"/></joint>'
            '<joint name="p/x" type="continuous"><parent link="b"/><child link="c"/></joint>'
            '</robot>')
    with pytest.raises(ModelError, match=r"joints 'p' and 'p/x' both define a variable named "
                                         r"'p/x'"):
        RobotModel.from_urdf_string(urdf)


def test_duplicate_velocity_variable_names_name_both_joints() -> None:
    urdf = ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
            '<joint name="f" type="floating"><parent link="a"/><child link="b"/></joint>'
            '<joint name="f/wx" type="continuous"><parent link="b"/><child link="c"/></joint>'
            '</robot>')
    with pytest.raises(ModelError, match=r"joints 'f' and 'f/wx' both define a velocity "
                                         r"variable named 'f/wx'"):
        RobotModel.from_urdf_string(urdf)


# ============================================================================ 13. values


def _robot_with(collision: str = '<box size="0.1 0.1 0.1"/>', collision_origin: str = '',
                joint: str = '', limit: str = 'lower="-1" upper="1"') -> str:
    return (f'<robot name="r"><link name="a"><collision>{collision_origin}<geometry>{collision}'
            f'</geometry></collision></link><link name="b"/><joint name="j" type="prismatic">'
            f'<parent link="a"/><child link="b"/>{joint}<limit {limit} effort="1" '
            'velocity="1"/></joint></robot>')


# tesseract-robotics/tesseract, tesseract_urdf/test/tesseract_urdf_{sphere,box,capsule,
# cylinder}_unit.cpp, tests parse_sphere, parse_box, parse_capsule, parse_cylinder: the geometry
# element and whether tesseract accepts it (and the sizes it reads). tesseract refuses every
# ``None`` and ``DROPPED`` case; for ``DROPPED`` (a size urdfdom cannot read) we follow urdfdom
# instead (urdf_parser/src/link.cpp, parseCollision fails, parseLink stops, model.cpp parseURDF
# keeps the link): the collision is dropped with a warning (decision L18).
DROPPED = 'dropped'
TESSERACT_SHAPE_CASES = [
    ('<sphere radius="1"/>', (1.0,)),
    ('<sphere radius="0.25"/>', (0.25,)),
    ('<sphere radius="-1"/>', None),
    ('<sphere radius="a"/>', DROPPED),
    ('<sphere />', DROPPED),
    ('<box size="1 2.0 3"/>', (1.0, 2.0, 3.0)),
    ('<box size="0.5 0.25 0.75"/>', (0.5, 0.25, 0.75)),
    ('<box size="-1 2.0 3"/>', None),
    ('<box size="1 -2.0 3"/>', None),
    ('<box size="1 2.0 -3"/>', None),
    ('<box size="1.0 2 a"/>', DROPPED),
    ('<box size="1 2"/>', DROPPED),
    ('<box />', DROPPED),
    ('<capsule radius="1" length="2"/>', (1.0, 2.0)),
    ('<capsule radius="0.25" length="0.5"/>', (0.25, 0.5)),
    ('<capsule radius="-1" length="2"/>', None),
    ('<capsule radius="1" length="-2"/>', None),
    ('<capsule radius="a" length="2"/>', DROPPED),
    ('<capsule radius="1" length="a"/>', DROPPED),
    ('<capsule radius="1"/>', DROPPED),
    ('<capsule length="2"/>', DROPPED),
    ('<capsule />', DROPPED),
    ('<cylinder radius="1" length="2"/>', (1.0, 2.0)),
    ('<cylinder radius="0.25" length="0.5"/>', (0.25, 0.5)),
    ('<cylinder radius="-1" length="2"/>', None),
    ('<cylinder radius="1" length="-2"/>', None),
    ('<cylinder radius="a" length="2"/>', DROPPED),
    ('<cylinder radius="1" length="a"/>', DROPPED),
    ('<cylinder radius="1"/>', DROPPED),
    ('<cylinder length="2"/>', DROPPED),
    ('<cylinder />', DROPPED),
]


@pytest.mark.parametrize(('element', 'sizes'), TESSERACT_SHAPE_CASES,
                         ids=[c[0] for c in TESSERACT_SHAPE_CASES])
def test_shape_sizes_as_tesseract(element: str, sizes: tuple[float, ...] | str | None) -> None:
    """Accepted with the same sizes, refused naming link or line, or dropped as urdfdom does."""
    if sizes == DROPPED:
        result = load_urdf_string(_robot_with(element))
        assert result.scene_graph.get_link('a').collisions == []
        assert any("link 'a': the <collision> on line 1 cannot be read" in w
                   for w in result.warnings), result.warnings
        return
    if sizes is None:
        with quiet(), pytest.raises(UrdfLoadError, match=r"link(\[@name=| )'a'|line 1"):
            load_urdf_string(_robot_with(element))
        return
    assert isinstance(sizes, tuple)
    shape = load_urdf_string(_robot_with(element)).scene_graph.get_link('a').collisions[0].geometry
    fields = ('x', 'y', 'z') if isinstance(shape, Box) else ('radius',) if isinstance(
        shape, Sphere) else ('radius', 'length')
    assert tuple(getattr(shape, f) for f in fields) == sizes


@pytest.mark.parametrize(('label', 'urdf', 'fragment'), [
    ('cylinder 1e300', _robot_with('<cylinder radius="1e300" length="1"/>'), 'Cylinder: radius'),
    ('joint origin 1e308', _robot_with(joint='<origin xyz="1e308 0 0"/>'), "joint 'j'"),
    ('collision origin 1e308', _robot_with(collision_origin='<origin xyz="0 -1e308 0"/>'),
     'collision origin'),
])
def test_unusable_description_values_are_load_errors(label: str, urdf: str,
                                                     fragment: str) -> None:
    with quiet(), pytest.raises(UrdfLoadError, match=fragment):
        RobotModel.from_urdf_string(urdf)
    assert label


@pytest.mark.parametrize(('label', 'urdf', 'fragment'), [
    ('capsule radius nan', _robot_with('<capsule radius="nan" length="1"/>'), '<capsule radius>'),
    ('sphere radius inf', _robot_with('<sphere radius="inf"/>'), '<sphere radius>'),
    ('mesh scale nan', _robot_with('<mesh filename="x.stl" scale="nan 1 1"/>'), '<mesh scale>'),
    ('collision origin nan', _robot_with(collision_origin='<origin xyz="0 nan 0"/>'),
     '<origin xyz>'),
])
def test_non_numeric_geometry_is_dropped_as_urdfdom_does(label: str, urdf: str,
                                                        fragment: str) -> None:
    """``nan``/``inf`` are not numbers to urdfdom's ``strToDouble``: the collision is dropped.

    urdfdom (``urdf_parser/src/link.cpp``): ``parseCollision`` fails, ``parseLink`` returns
    at it and ``model.cpp`` ``parseURDF`` keeps the link without it (decision L18); the model
    loads without non-finite geometry, with one warning naming the link, element and line.
    """
    model = RobotModel.from_urdf_string(urdf)
    assert model.links[model.link_index('a')].collisions == []
    assert any(fragment in w and "link 'a'" in w for w in model.load_warnings), label


@pytest.mark.parametrize(('label', 'urdf', 'fragment'), [
    ('mimic multiplier 1e300',
     '<robot name="r"><link name="a"/><link name="b"/><link name="c"/><joint name="j" '
     'type="prismatic"><parent link="a"/><child link="b"/><limit lower="-1" upper="1" '
     'effort="1" velocity="1"/></joint><joint name="k" type="prismatic"><parent link="b"/>'
     '<child link="c"/><mimic joint="j" multiplier="1e300"/><limit lower="-1" upper="1" '
     'effort="1" velocity="1"/></joint></robot>', "mimic joint 'k'"),
])
def test_unusable_limits_and_mimic_are_model_errors(label: str, urdf: str,
                                                    fragment: str) -> None:
    with quiet(), pytest.raises(ModelError, match=fragment):
        RobotModel.from_urdf_string(urdf)
    assert label


@pytest.mark.parametrize('limit', ['1e101', '1e308'])
def test_huge_limits_load_and_are_clamped_in_the_model(limit: str) -> None:
    """Limits of ±1e308 load: urdfdom (``joint.cpp`` ``parseJointLimits``) and the graph keep them.

    The model clamps them to ±``MAX_POSITION_LIMIT`` with a warning (decision L20), so
    sampling, FK and Jacobians stay finite; robot_state_publisher, which publishes such a
    robot, does not use limits at all.
    """
    model = RobotModel.from_urdf_string(_robot_with(limit=f'lower="-{limit}" upper="{limit}"'))
    assert model.variable_lower.tolist() == [-MAX_POSITION_LIMIT]
    assert model.variable_upper.tolist() == [MAX_POSITION_LIMIT]
    joint = model.to_scene_graph().get_joint('j')
    assert (joint.limits.lower, joint.limits.upper) == (-float(limit), float(limit))
    assert any("joint 'j' has position limits" in w and 'MAX_POSITION_LIMIT' in w
               for w in model.load_warnings)
    q = bounds.random_positions(model, 0, size=100)
    assert np.all(np.isfinite(q))
    assert np.all(np.isfinite(kinematics.forward_kinematics(model, q)))
    assert np.all(np.isfinite(kinematics.jacobian(model, q[0], 'b')))


def test_large_but_usable_values_are_accepted() -> None:
    """±1e16 limits (Gazebo's "unlimited") and a zero-size box (legal URDF) load and work."""
    model = RobotModel.from_urdf_string(_robot_with('<box size="0 0 0"/>',
                                                    limit='lower="-1e16" upper="1e16"'))
    q = bounds.random_positions(model, 0, size=100)
    assert np.all(np.isfinite(kinematics.forward_kinematics(model, q)))
    scene = PlanningScene(model)
    scene.apply_world_object(CollisionObjectOperation.ADD, 'ball', np.eye(4),
                             [(Sphere(0.05), np.eye(4))])
    assert scene.check_collision(scene.current_state).collision  # the point box is inside


def _rigid(x: float = 0.0) -> np.ndarray:
    return pose_from_xyz_rpy([x, 0.0, 0.0], [0.1, 0.2, 0.3])


@pytest.mark.parametrize(('label', 'make'), [
    ('Box(nan, 1, 1)', lambda: [(Box(math.nan, 1.0, 1.0), np.eye(4))]),
    ('Box(-1, 1, 1)', lambda: [(Box(-1.0, 1.0, 1.0), np.eye(4))]),
    ('Sphere(inf)', lambda: [(Sphere(math.inf), np.eye(4))]),
    ('Cylinder(None, 1)', lambda: [(Cylinder(None, 1.0), np.eye(4))]),  # type: ignore[arg-type]
    ('scaled shape pose', lambda: [(Sphere(0.1), np.diag([2.0, 2.0, 2.0, 1.0]))]),
    ('mirrored shape pose', lambda: [(Sphere(0.1), np.diag([-1.0, 1.0, 1.0, 1.0]))]),
    ('unresolved mesh', lambda: [(Mesh('package://nowhere/x.stl'), np.eye(4))]),
    ('unreadable mesh', lambda: [(Mesh('x.stl', path=str(RESOURCES / 'bad')), np.eye(4))]),
    ('not a pair', lambda: [Sphere(0.1)]),
])
def test_world_objects_are_validated_before_anything_is_applied(label: str,
                                                                make: Callable[[], Any]) -> None:
    model = RobotModel.from_urdf_string(FLOATING_URDF, FLOATING_SRDF)
    scene = PlanningScene(model)
    scene.apply_world_object(CollisionObjectOperation.ADD, 'old', _rigid(2.0),
                             [(Box(0.1, 0.1, 0.1), np.eye(4))])
    version, old = scene.version, scene.world['old']
    for op, object_id in ((CollisionObjectOperation.ADD, 'new'),
                          (CollisionObjectOperation.APPEND, 'old')):
        with quiet(), pytest.raises(RobotStateCoreError):
            scene.apply_world_object(op, object_id, _rigid(), make())
    with pytest.raises(InvalidArgumentError, match='not a rigid transform'):
        scene.apply_world_object(CollisionObjectOperation.MOVE, 'old', np.diag([1, 1, 3, 1.0]))
    assert scene.version == version and list(scene.world) == ['old']
    assert scene.world['old'] is old
    assert not scene.check_collision(scene.current_state).collision  # queries still work
    assert label


# ============================================================================ 14. API table

_STATE_MODEL = RobotModel.from_urdf_string(FLOATING_URDF, FLOATING_SRDF)
_STATE = RobotState(_STATE_MODEL)
_Q0 = np.array(_STATE_MODEL.default_positions)
_NQ, _NV, _L = _STATE_MODEL.nq, _STATE_MODEL.nv, _STATE_MODEL.link_count
_NAN_Q = _Q0.copy()
_NAN_Q[7] = math.nan
_NAN3 = [math.nan, 0.0, 0.0]
_IDX, _TYPE, _ARG = InvalidIndexError, InvalidTypeError, InvalidArgumentError


def _api_rows() -> list[tuple[str, Callable[[], object], type[Exception], str]]:
    """(call, thunk, expected error type, fragment naming the argument) per bad call."""
    s, m = _STATE, _STATE_MODEL
    rows: list[tuple[str, Callable[[], object], type[Exception], str]] = []

    def add(label: str, thunk: Callable[[], object], error: type[Exception],
            fragment: str) -> None:
        rows.append((label, thunk, error, fragment))

    # Indices: out of range, negative (never from the end), float (never truncated), bool.
    for key, error in ((None, _TYPE), (1.5, _TYPE), (True, _TYPE), (-1, _IDX), (_NQ, _IDX),
                       ([0], _TYPE), (np.int64(-1), _IDX)):
        add(f'get_variable_position({key!r})', lambda k=key: s.get_variable_position(k),
            error, 'variable index')
        add(f'set_variable_position({key!r}, 0)',
            lambda k=key: s.set_variable_position(k, 0.0), error, 'variable index')
        add(f'get_variable_velocity({key!r})', lambda k=key: s.get_variable_velocity(k),
            error, 'velocity variable index')
        add(f'set_variable_effort({key!r}, 0)', lambda k=key: s.set_variable_effort(k, 0.0),
            error, 'variable index')
    for key, error in ((None, _TYPE), (1.5, _TYPE), (True, _TYPE), (-1, _IDX), (_L, _IDX)):
        add(f'get_global_link_transform({key!r})',
            lambda k=key: s.get_global_link_transform(k), error, 'link index')
        add(f'kinematics.jacobian(link={key!r})', lambda k=key: kinematics.jacobian(m, _Q0, k),
            error, 'link index')
        add(f'kinematics.link_pose(link={key!r})',
            lambda k=key: kinematics.link_pose(m, _Q0, k), error, 'link index')
        add(f'get_collision_body_transform(base, {key!r})',
            lambda k=key: s.get_collision_body_transform('base', k if k != _L else 1), error,
            'collision body index')
    # Names: None, non-str, unknown (did-you-mean).
    for name, error, fragment in ((None, _TYPE, 'name must be a str'),
                                  (5, _TYPE, 'name must be a str'),
                                  (['j1'], _TYPE, 'name must be a str'),
                                  ('jx1', UnknownNameError, "'jx1'")):
        for method in ('link_index', 'joint_index', 'variable_index', 'group', 'joint',
                       'link', 'rpy_floating_joint'):
            add(f'RobotModel.{method}({name!r})',
                lambda n=name, mt=method: getattr(m, mt)(n), error, fragment)
        add(f'get_joint_positions({name!r})', lambda n=name: s.get_joint_positions(n), error,
            fragment)
        add(f'set_joint_positions({name!r})', lambda n=name: s.set_joint_positions(n, [0.0]),
            error, fragment)
        add(f'get_frame_transform({name!r})', lambda n=name: s.get_frame_transform(n), error,
            'frame name' if error is _TYPE else fragment)
    add("get_jacobian(arm, link='jx1')", lambda: s.get_jacobian('arm', 'jx1'), UnknownNameError,
        "'jx1'")
    add('get_jacobian(arm, link=-1)', lambda: s.get_jacobian('arm', -1), _IDX, 'link index')
    for group in (None, 3, ['arm']):
        add(f'set_joint_group_positions({group!r})',
            lambda g=group: s.set_joint_group_positions(g, [0.0, 0.0]), _TYPE, 'group')
        add(f'get_jacobian({group!r})', lambda g=group: s.get_jacobian(g), _TYPE, 'group')
        if group is not None:  # None: the whole state
            add(f'set_to_random_positions({group!r})',
                lambda g=group: s.set_to_random_positions(g), _TYPE, 'group')
    add("set_joint_group_positions('nope')", lambda: s.set_joint_group_positions('nope', [0.0]),
        UnknownNameError, "'nope'")
    add('resolve_variables(None)', lambda: m.resolve_variables(None), _TYPE, 'names')
    add("resolve_variables('j1')", lambda: m.resolve_variables('j1'), _TYPE, 'names')
    add("resolve_variables(unknown='x')", lambda: m.resolve_variables(['j1'], 'x'), _ARG,
        'unknown')
    add('set_variable_positions(None, [1])', lambda: s.set_variable_positions(None, [1.0]),
        _TYPE, 'names')
    add('set_variable_positions({None: 1})', lambda: s.set_variable_positions({None: 1.0}),
        _TYPE, 'variable name')
    add('set_variable_values(None, [1])', lambda: s.set_variable_values(None, [1.0]), _TYPE,
        'names')
    # Values: None, NaN, inf, wrong shape, wrong dtype.
    for label, value, error, fragment in (
            ('None', None, _TYPE, 'numeric'), ('NaN', _NAN_Q, _ARG, 'finite'),
            ('inf', np.full(_NQ, math.inf), _ARG, 'finite'),
            ('shape', _Q0[:3], _ARG, 'shape'), ('str dtype', np.array(['a'] * _NQ), _TYPE,
                                                'numeric'),
            ('complex', _Q0.astype(complex), _TYPE, 'numeric'),
            ('bool dtype', np.ones(_NQ, dtype=bool), _TYPE, 'numeric')):
        add(f'set_variable_positions({label})', lambda v=value: s.set_variable_positions(v),
            error, fragment)
        add(f'set_variable_velocities({label})',
            lambda v=value: s.set_variable_velocities(v if v is None or np.ndim(v) != 1
                                                      or len(v) != _NQ else v[:_NV]),
            error, fragment)
    for value, error, fragment in ((None, _TYPE, 'value'), (math.nan, _ARG, 'finite'),
                                   ('1.5', _TYPE, 'value'), ([1.0], _TYPE, 'value')):
        add(f'set_variable_position(j1, {value!r})',
            lambda v=value: s.set_variable_position('j1', v), error, fragment)
    q_label = ('NaN', _NAN_Q, _ARG, 'q contains NaN or inf')
    for label, value, error, fragment in (
            q_label, ('inf', np.full(_NQ, math.inf), _ARG, 'q contains NaN or inf'),
            ('shape', _Q0[:3], _ARG, 'q must have shape'),
            ('str', ['a'] * _NQ, _ARG, 'q is not numeric'), ('None', None, _ARG, 'q must')):
        add(f'forward_kinematics({label})',
            lambda v=value: kinematics.forward_kinematics(m, v), error, fragment)
        add(f'forward_kinematics_soa({label})',
            lambda v=value: kinematics.forward_kinematics_soa(m, np.atleast_2d(
                np.asarray(v, dtype=object))), _ARG, 'q')
        add(f'jacobian({label})', lambda v=value: kinematics.jacobian(m, v, 'tip'), error,
            fragment)
        add(f'integrate({label})',
            lambda v=value: kinematics.integrate(m, v, np.zeros(_NV)), error, fragment)
        add(f'difference(q1={label})', lambda v=value: kinematics.difference(m, _Q0, v), error,
            fragment.replace('q ', 'q1 '))
    add('jacobian(point_L NaN)', lambda: kinematics.jacobian(m, _Q0, 'tip', _NAN3), _ARG,
        'point_L')
    add('jacobian(point_L shape)', lambda: kinematics.jacobian(m, _Q0, 'tip', [1.0, 2.0]), _ARG,
        'point_L')
    add('integrate(v NaN)', lambda: kinematics.integrate(m, _Q0, np.full(_NV, math.nan)), _ARG,
        'v contains')
    add('integrate(dt NaN)', lambda: kinematics.integrate(m, _Q0, np.zeros(_NV), math.nan),
        _ARG, 'dt')
    add('integrate(dt None)', lambda: kinematics.integrate(m, _Q0, np.zeros(_NV), None),
        _TYPE, 'dt')
    add('compose_link_poses(NaN)', lambda: kinematics.compose_link_poses(
        m, np.full((m.joint_count, 4, 4), math.nan)), _ARG, 'X_PC')
    add('fold_mimic_columns(shape)', lambda: kinematics.fold_mimic_columns(m, np.zeros((6, 2))),
        _ARG, 'J must have shape')
    add('compute_scene_state(None value)',
        lambda: kinematics.compute_scene_state(m, {'j1': None}), _TYPE, "'j1'")
    add('get_jacobian(reference_point NaN)', lambda: s.get_jacobian('arm', None, _NAN3), _ARG,
        'reference_point')
    add('get_jacobian(reference_point None)', lambda: s.get_jacobian('arm', None, None), _TYPE,
        'reference_point')
    add('compute_variable_velocity(twist NaN)',
        lambda: s.compute_variable_velocity('arm', [math.nan] + [0.0] * 5), _ARG, 'twist')
    for damping, error in ((math.nan, _ARG), (-1.0, _ARG), (None, _TYPE)):
        add(f'compute_variable_velocity(damping={damping!r})',
            lambda d=damping: s.compute_variable_velocity('arm', [0.0] * 6, damping=d), error,
            'damping')
    for dt, error in ((math.nan, _ARG), (None, _TYPE)):
        add(f'integrate_variable_velocity(dt={dt!r})',
            lambda d=dt: s.integrate_variable_velocity('arm', [0.0, 0.0], d), error, 'dt')
        add(f'set_from_diff_ik(dt={dt!r})',
            lambda d=dt: s.set_from_diff_ik('arm', [0.0] * 6, None, d), error, 'dt')
        add(f'interpolate(t={dt!r})', lambda d=dt: s.interpolate(s.copy(), d), error, 't ')
    add('interpolate(None)', lambda: s.interpolate(None, 0.5), _TYPE, 'RobotState')
    add('distance(None)', lambda: s.distance(None), _TYPE, 'RobotState')
    add('copy_from(5)', lambda: s.copy_from(5), _TYPE, 'RobotState')
    add('satisfies_bounds(margin=NaN)', lambda: s.satisfies_bounds(margin=math.nan), _ARG,
        'margin')
    add('set_to_random_positions_near_by(distance=-1)',
        lambda: s.set_to_random_positions_near_by('arm', s.copy(), -1.0), _ARG, 'distance')
    add('set_to_random_positions_near_by(distance=NaN)',
        lambda: s.set_to_random_positions_near_by('arm', s.copy(), math.nan), _ARG, 'distance')
    add('is_valid_velocity_move(dt=NaN)',
        lambda: s.is_valid_velocity_move(s.copy(), 'arm', math.nan), _ARG, 'dt')
    add('set_joint_pose(non-rigid)',
        lambda: s.set_joint_pose('float', np.diag([2.0, 1.0, 1.0, 1.0])), _ARG, 'X_FM')
    add('attach_body(pose non-rigid)', lambda: s.attach_body(
        'x', 'base', [Sphere(0.1)], pose=np.diag([2.0, 1.0, 1.0, 1.0])), _ARG, 'pose')
    add('attach_body(x, base, [5])', lambda: s.attach_body('x', 'base', [5]), _ARG, 'shapes')
    add("RobotState(model, rng='x')", lambda: RobotState(m, 'x'), _TYPE, 'rng')
    add('RobotState(None)', lambda: RobotState(None), _ARG, 'model')  # type: ignore[arg-type]
    add('RobotModel(None)', lambda: RobotModel(None), _TYPE, 'SceneGraph')
    add('RobotModel.from_urdf_string(None)', lambda: RobotModel.from_urdf_string(None), _TYPE,
        'str or bytes')
    add('RobotModel.from_urdf_string(5)', lambda: RobotModel.from_urdf_string(5), _TYPE,
        'str or bytes')
    add('RobotModel.from_urdf_file(None)', lambda: RobotModel.from_urdf_file(None), _TYPE,
        'urdf')
    add('parse_srdf(None)', lambda: parse_srdf(None), _TYPE, 'str or bytes')
    add('apply_mimic(None)', lambda: m.apply_mimic(None), _TYPE, 'q')
    add('apply_mimic(shape)', lambda: m.apply_mimic(np.zeros(2)), _ARG, 'q')
    # bounds
    add('random_positions(translation_range=1e308)',
        lambda: bounds.random_positions(m, 0, translation_range=1e308), _ARG,
        'translation_range')
    add('random_positions(translation_range=NaN)',
        lambda: bounds.random_positions(m, 0, translation_range=math.nan), _ARG,
        'translation_range')
    add('random_positions(size=1.5)', lambda: bounds.random_positions(m, 0, size=1.5), _ARG,
        'size')
    add('random_positions(size=-1)', lambda: bounds.random_positions(m, 0, size=-1), _ARG,
        'size')
    add('random_positions(variables=[-1])', lambda: bounds.random_positions(m, 0, [-1]), _ARG,
        'variable indices')
    add('random_positions(variables=[1.5])', lambda: bounds.random_positions(m, 0, [1.5]),
        _ARG, 'variables')
    # IK settings (results for malformed requests are INVALID_REQUEST, checked below).
    for kw, error in (({'position_tolerance': None}, _TYPE),
                      ({'position_tolerance': math.nan}, _ARG), ({'num_seeds': 1.5}, _TYPE),
                      ({'num_seeds': 0}, _ARG), ({'damping': -1.0}, _ARG),
                      ({'random_seed': 'x'}, _TYPE), ({'position_only': 'yes'}, _TYPE)):
        add(f'IKOptions({kw})', lambda k=kw: IKOptions(**k), error, next(iter(kw)))
    add('solve_ik(request=None)', lambda: solve_ik(m, None), _TYPE, 'request')
    add("solve_ik_batch(options='x')", lambda: solve_ik_batch(m, 'arm', np.eye(4), options='x'),
        _TYPE, 'options')
    # Shapes, joints, links, world objects, ACM, frames.
    add('Box(nan, 1, 1)', lambda: Box(math.nan, 1.0, 1.0), _ARG, 'x')
    add('Capsule(1, -1)', lambda: Capsule(1.0, -1.0), _ARG, 'length')
    add('Box(None, 1, 1)', lambda: Box(None, 1.0, 1.0), _TYPE, 'x')  # type: ignore[arg-type]
    add('Mesh(None)', lambda: Mesh(None), _TYPE, 'uri')  # type: ignore[arg-type]
    add('Mesh(x, scale=(nan, 1, 1))', lambda: Mesh('x', (math.nan, 1.0, 1.0)), _ARG, 'scale')
    add('Joint(None, ...)', lambda: Joint(None, JointType.FIXED, 'a', 'b'), _TYPE, 'name')
    add("Joint(j, 'spiral')", lambda: Joint('j', 'spiral', 'a', 'b'), _ARG, 'type')
    add('Joint(origin non-rigid)', lambda: Joint('j', JointType.FIXED, 'a', 'b',
                                                 np.diag([2.0, 1.0, 1.0, 1.0])), _ARG, 'origin')
    add('Joint(axis shape)', lambda: Joint('j', JointType.REVOLUTE, 'a', 'b', np.eye(4),
                                           [1.0, 0.0]), _ARG, 'axis')
    add('Link(None)', lambda: Link(None), _TYPE, 'name')  # type: ignore[arg-type]
    add('Visual(5)', lambda: Visual(5), _TYPE, 'geometry')  # type: ignore[arg-type]
    add('AttachedBody.create(None, base)', lambda: AttachedBody.create(None, 'base'), _ARG,
        'name')
    add('AttachedBody.create(shape_poses non-rigid)', lambda: AttachedBody.create(
        'b', 'base', [Sphere(0.1)], shape_poses=np.diag([2.0, 1.0, 1.0, 1.0])), _ARG,
        'shape_poses')
    add('DetachPosture([a], [None])', lambda: DetachPosture(('a',), (None,)), _TYPE,
        'position')
    acm = AllowedCollisionMatrix()
    add('ACM.set_entry(None, a, True)', lambda: acm.set_entry(None, 'a', True), _TYPE, 'names')
    add('ACM.set_entry(a, b, 5)', lambda: acm.set_entry('a', 'b', 5), _TYPE, 'allowed')
    add('ACM.get_entry(None, a)', lambda: acm.get_entry(None, 'a'), _TYPE, 'names')
    add('fixed_joint_transforms(None)', lambda: fixed_joint_transforms(None), _TYPE, 'model')
    scene = PlanningScene(m)
    add('apply_world_object(shapes=None)', lambda: scene.apply_world_object(
        CollisionObjectOperation.ADD, 'o', np.eye(4), None), _TYPE, 'shapes')
    add('apply_world_object(op=99)', lambda: scene.apply_world_object(99, 'o'), _ARG,
        'operation')
    add('attach_object(link=None)', lambda: scene.attach_object(None, 'o'), _TYPE, 'link')
    add('SceneGraph.add_link(None)', lambda: m.to_scene_graph().add_link(None), _TYPE, 'Link')
    return rows


API_ROWS = _api_rows()


@pytest.mark.parametrize(('label', 'thunk', 'error', 'fragment'), API_ROWS,
                         ids=[r[0] for r in API_ROWS])
def test_bad_api_arguments_raise_typed_errors(label: str, thunk: Callable[[], object],
                                              error: type[Exception], fragment: str) -> None:
    """Each bad call raises one RobotStateCoreError subclass naming the argument, quietly."""
    before = _STATE.positions.copy()
    with quiet(), pytest.raises(error) as info:
        thunk()
    assert isinstance(info.value, RobotStateCoreError), label
    assert fragment in str(info.value), str(info.value)
    assert np.array_equal(_STATE.positions, before)  # nothing half-applied


def test_python_exception_families_are_kept() -> None:
    """Index errors are IndexErrors, type errors TypeErrors, lookups KeyErrors."""
    assert issubclass(InvalidIndexError, IndexError) and issubclass(InvalidIndexError,
                                                                    InvalidArgumentError)
    assert issubclass(InvalidTypeError, TypeError)
    with pytest.raises(IndexError):
        _STATE.get_global_link_transform(-1)
    with pytest.raises(TypeError):
        _STATE.get_global_link_transform(1.5)
    with pytest.raises(KeyError):
        _STATE_MODEL.link_index('nope')


@pytest.mark.parametrize(('label', 'request_'), [
    ('group None', IKRequest(None, (np.eye(4),))),  # type: ignore[arg-type]
    ('targets None', IKRequest('arm', None)),  # type: ignore[arg-type]
    ('target NaN', IKRequest('arm', (np.full((4, 4), math.nan),))),
    ('tip_links None', IKRequest('arm', (np.eye(4),), tip_links=None)),  # type: ignore[arg-type]
    ('timeout [1]', IKRequest('arm', (np.eye(4),), timeout=[1])),  # type: ignore[arg-type]
    ('seed zero quaternion', IKRequest('arm', (np.eye(4),), seed=np.r_[0, 0, 0, 0, 0, 0, 0,
                                                                          0, 0.0])),
])
def test_malformed_ik_requests_are_invalid_requests(label: str, request_: IKRequest) -> None:
    """MoveIt's contract (E10): a malformed request is a result, never an exception."""
    with quiet():
        result = solve_ik(_STATE_MODEL, request_)
    assert result.status is IKStatus.INVALID_REQUEST and result.message, label
    assert np.all(np.isfinite(result.q))


# ============================================================================ 15. package://


@pytest.mark.parametrize('uri', [
    'package://robot_state_core/../../../../../../etc/passwd',
    'package://robot_state_core/robots/../../../etc/passwd',
    'package://robot_state_core/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    'package:///robot_state_core/../../etc/passwd',
    'package://../etc/passwd',
])
def test_package_uris_cannot_leave_their_package(uri: str) -> None:
    path, warning = ResourceResolver().resolve(uri)
    assert path is None
    assert warning is not None and 'leaves the directory of package' in warning


def test_package_uris_inside_the_package_and_file_uris_still_resolve() -> None:
    resolver = ResourceResolver()
    inside = 'package://robot_state_core/robots/rsc_mobile_manipulator/meshes/gripper_palm.stl'
    detour = ('package://robot_state_core/robots/../robots/rsc_mobile_manipulator/meshes/'
              'gripper_palm.stl')
    path, warning = resolver.resolve(inside)
    assert path is not None and path.is_file() and warning is None
    assert resolver.resolve(detour)[0] == path
    assert resolver.resolve(path.as_uri())[0] == path  # file:// stays allowed (documented)


def test_escaping_mesh_is_reported_unresolved_not_opened() -> None:
    urdf = _robot_with('<mesh filename="package://robot_state_core/../../../../etc/hostname"/>')
    result = load_urdf_string(urdf)
    assert result.unresolved_meshes == ('package://robot_state_core/../../../../etc/hostname',)
    assert any('leaves the directory of package' in w for w in result.warnings)
