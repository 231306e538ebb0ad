"""Per-joint-type oracle tests: each module of ``description.joint_types`` against math not ours.

Oracles (each test's docstring names its own):

* **Pinocchio** (4.x, ``import pinocchio as pin``) where it has the type: one-joint models built
  with ``pin.Model.addJoint``; the motion from ``pin.forwardKinematics`` (``data.oMi[1]``), the
  motion subspace from ``pin.computeJointJacobians`` / ``pin.getJointJacobian`` in
  ``LOCAL_WORLD_ALIGNED``, ``integrate`` / ``difference`` from ``pin.integrate`` /
  ``pin.difference`` and, where the joint's Lie group is not ours (planar: SE(2), free-flyer:
  SE(3)), from Pinocchio's product groups ``pin.liegroups.R2() * SO2()`` / ``R3() * SO3()``.
* **Drake** ``RpyFloatingJoint`` (Drake is not installed, nor scipy in this venv): Drake's
  documented convention written here in closed form (``R_FM = Rz(yaw) Ry(pitch) Rx(roll)``,
  ``v = [w_FM; v_FM]`` in F), Pinocchio's ``JointModelSphericalZYX`` (the same Euler angles) and
  central finite differences.
* **MoveIt** ``JointModel::getStateSpaceDimension`` and our ``JOINT_TYPE_INFO`` for the registry.

Tolerances: :data:`TOL` ``= 1e-12`` (absolute) for every comparison with a closed form or
Pinocchio; :data:`FD_TOL` ``= 1e-8`` for central differences with step :data:`FD_STEP`
``= 1e-5`` (truncation ~h² ≈ 1e-10, rounding ~eps/h ≈ 2e-11). Random inputs come from
``numpy.random.default_rng(SEED)``.

Velocity conventions (ours → Pinocchio's), used by the conversions below:

* revolute, prismatic: the same scalar.
* planar: ours ``(ẋ_F, ẏ_F, θ̇)`` with x, y along F's axes; Pinocchio's
  ``(R(θ)ᵀ (ẋ_F, ẏ_F), θ̇)`` (linear velocity in the LOCAL frame M).
* floating: ours ``[ω_F; v_F]`` (angular first, both in F); Pinocchio's free-flyer
  ``[R_FMᵀ v_F; R_FMᵀ ω_F]`` (linear first, both LOCAL).
* rpy_floating vs Pinocchio's ``Translation`` + ``SphericalZYX`` pair: Pinocchio's
  ``[v_F; (ẏaw, ṗitch, ṙoll)]`` with ``(ṙ, ṗ, ẏ) = E_F⁻¹ ω_F`` (``E_F`` from Drake's docs).
"""

from __future__ import annotations

from collections.abc import Callable
import math
from types import ModuleType
from typing import Any

import numpy as np
import pinocchio as pin
import pytest

from robot_state_core._typing import FloatArray
from robot_state_core.description.joint_types import (
    fixed,
    floating,
    JOINT_TYPES,
    mimic,
    module_of,
    planar,
    prismatic,
    revolute,
    rpy_floating,
)
from robot_state_core.description.joints import JOINT_TYPE_INFO, JointType
from robot_state_core.spatial.transforms import QUATERNION_MAX_NORM, QUATERNION_MIN_NORM

TOL = 1e-12
'''Absolute tolerance against closed forms and Pinocchio.'''
FD_TOL = 1e-8
'''Absolute tolerance against central finite differences.'''
FD_STEP = 1e-5
'''Central-difference step.'''
SEED = 30
'''Seed of every test's ``numpy.random.default_rng`` (issue 30).'''
SAMPLES = 8
'''Random configurations per test.'''

_X, _Y, _Z = np.eye(3)


# --- helpers -------------------------------------------------------------------------------


def _rng() -> np.random.Generator:
    """The seeded generator of one test."""
    return np.random.default_rng(SEED)


def _unit(rng: np.random.Generator) -> FloatArray:
    """A random unit 3-vector."""
    a = rng.normal(size=3)
    out: FloatArray = a / np.linalg.norm(a)
    return out


def _unit_quat(rng: np.random.Generator) -> FloatArray:
    """A random unit quaternion, xyzw."""
    a = rng.normal(size=4)
    out: FloatArray = a / np.linalg.norm(a)
    return out


def _placement(rng: np.random.Generator) -> Any:
    """A random joint placement (``pin.SE3``): a non-trivial frame F."""
    return pin.SE3(pin.exp3(rng.uniform(-2.0, 2.0) * _unit(rng)), rng.normal(size=3))


def _one_joint(joint: Any, placement: Any = None) -> tuple[Any, Any]:
    """A Pinocchio model of one joint on the world (at ``placement``) and its data."""
    model = pin.Model()
    model.addJoint(0, joint, pin.SE3.Identity() if placement is None else placement, 'joint')
    return model, model.createData()


def _pin_pose(model: Any, data: Any, q: FloatArray, joint: int = 1) -> FloatArray:
    """``data.oMi[joint]`` (4, 4) after ``pin.forwardKinematics``."""
    pin.forwardKinematics(model, data, np.asarray(q, dtype=np.float64))
    return np.array(data.oMi[joint].homogeneous)


def _pin_jacobian(model: Any, data: Any, q: FloatArray, joint: int = 1) -> FloatArray:
    """The joint frame's Jacobian ``(6, nv)`` in ``LOCAL_WORLD_ALIGNED``: rows ``[v; ω]``."""
    pin.computeJointJacobians(model, data, np.asarray(q, dtype=np.float64))
    J = pin.getJointJacobian(model, data, joint, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
    return np.array(J).reshape(6, model.nv)  # eigenpy returns a (6, 1) matrix as (6,)


def _columns_jacobian(columns: tuple[FloatArray, list[bool], list[bool]], R_WF: FloatArray,
                      R_WM: FloatArray) -> FloatArray:
    """The Jacobian ``(6, nv)`` of M's origin, rows ``[v; ω]`` in W, from ``velocity_columns``.

    The columns' meaning (``kinematics.plan.KinematicsPlan.v_axis`` and
    ``kinematics.compiled.jacobian_into``): the axis is in F when in-joint-frame, else in M; a
    rotational column turns M about the axis through M's origin (``[0; a_W]``), a
    translational one moves M along it (``[a_W; 0]``).
    """
    axes, rotational, in_joint_frame = columns
    J = np.zeros((6, len(rotational)))
    for i, (axis, rotates, in_f) in enumerate(zip(axes, rotational, in_joint_frame,
                                                  strict=True)):
        a_W = (R_WF if in_f else R_WM) @ axis
        if rotates:
            J[3:, i] = a_W
        else:
            J[:3, i] = a_W
    return J


def _evaluate(C: FloatArray, theta: float) -> FloatArray:
    """The 1-DOF motion polynomial ``C0 + sin θ C1 + (1 - cos θ) C2 + θ C3``."""
    out: FloatArray = C[0] + math.sin(theta) * C[1] + (1 - math.cos(theta)) * C[2] + theta * C[3]
    return out


def _skew(a: FloatArray) -> FloatArray:
    """``[a]×``."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _vee(S: FloatArray) -> FloatArray:
    """The vector of the skew part of ``S``."""
    return 0.5 * np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]])


def _rodrigues(w: FloatArray) -> FloatArray:
    """``exp([w]×)`` by Rodrigues' formula (hand-written, not ours nor Pinocchio's)."""
    angle = float(np.linalg.norm(w))
    if angle == 0.0:
        return np.eye(3)
    K = _skew(w / angle)
    out: FloatArray = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K
    return out


def _rpy_matrix(roll: float, pitch: float, yaw: float) -> FloatArray:
    """Drake ``RollPitchYaw::ToRotationMatrix``: ``Rz(yaw) Ry(pitch) Rx(roll)`` (closed form)."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    Ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    Rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    out: FloatArray = Rz @ Ry @ Rx
    return out


def _rpy_rate_matrix(pitch: float, yaw: float) -> FloatArray:
    """Drake's ``E_F``: ``w_FM = E_F (ṙ, ṗ, ẏ)``, columns ``Rz Ry x̂``, ``Rz ŷ``, ``ẑ``."""
    Rz = _rpy_matrix(0.0, 0.0, yaw)
    return np.column_stack([Rz @ _rpy_matrix(0.0, pitch, 0.0) @ _X, Rz @ _Y, _Z])


def _rpy_sample(rng: np.random.Generator) -> FloatArray:
    """rpy_floating positions ``(roll, pitch, yaw, x, y, z)``, pitch off the gimbal lock."""
    return np.concatenate([[rng.uniform(-math.pi, math.pi), rng.uniform(-1.3, 1.3),
                            rng.uniform(-math.pi, math.pi)], rng.normal(size=3)])


def _floating_sample(rng: np.random.Generator) -> FloatArray:
    """Floating positions ``(x, y, z, qx, qy, qz, qw)`` with a unit quaternion."""
    return np.concatenate([rng.normal(size=3), _unit_quat(rng)])


def _planar_sample(rng: np.random.Generator) -> FloatArray:
    """Planar positions ``(x, y, θ)``, θ beyond one turn."""
    return np.array([rng.normal(), rng.normal(), rng.uniform(-7.0, 7.0)])


def _planar_to_pin(q: FloatArray) -> FloatArray:
    """Our planar ``(x, y, θ)`` → Pinocchio's ``(x, y, cos θ, sin θ)``."""
    return np.array([q[0], q[1], math.cos(q[2]), math.sin(q[2])])


def _wrap(angle: float) -> float:
    """``angle`` into ``(-π, π]`` (``math.remainder``; the tests avoid ±π)."""
    return math.remainder(angle, 2 * math.pi)


# --- registry ------------------------------------------------------------------------------

MOVEIT_STATE_SPACE_DIMENSION = {
    JointType.FIXED: 0,
    JointType.REVOLUTE: 1,
    JointType.CONTINUOUS: 1,
    JointType.PRISMATIC: 1,
    JointType.PLANAR: 3,
    JointType.FLOATING: 6,
    JointType.RPY_FLOATING: 6,
}
'''MoveIt ``getStateSpaceDimension()`` (``FixedJointModel`` 0, ``RevoluteJointModel`` and
``PrismaticJointModel`` 1, ``PlanarJointModel`` 3, ``FloatingJointModel`` 6); rpy_floating 6 by
decision S9 (``docs/decisions.md``).'''


@pytest.mark.parametrize('joint_type', [t for t in JointType if t is not JointType.UNKNOWN])
def test_registry_matches_joint_type_info_and_moveit(joint_type: JointType) -> None:
    """Every type has a module with ``JOINT_TYPE_INFO``'s nq/nv and MoveIt's dimension.

    Oracles: ``description.joints.JOINT_TYPE_INFO`` (nq, nv) and MoveIt
    ``JointModel::getStateSpaceDimension`` (decision S9 for rpy_floating).
    """
    module = module_of(joint_type)
    assert module is JOINT_TYPES[joint_type]
    info = JOINT_TYPE_INFO[joint_type]
    assert (info.nq, info.nv) == (module.NQ, module.NV)
    assert MOVEIT_STATE_SPACE_DIMENSION[joint_type] == module.STATE_SPACE_DIMENSION
    expected = {JointType.FIXED: fixed, JointType.REVOLUTE: revolute,
                JointType.CONTINUOUS: revolute, JointType.PRISMATIC: prismatic,
                JointType.PLANAR: planar, JointType.FLOATING: floating,
                JointType.RPY_FLOATING: rpy_floating}
    assert module is expected[joint_type]


def test_unknown_type_has_no_module() -> None:
    """UNKNOWN has no math: ``module_of`` raises KeyError (the registry's documented contract)."""
    assert JointType.UNKNOWN not in JOINT_TYPES
    with pytest.raises(KeyError):
        module_of(JointType.UNKNOWN)


# --- revolute and continuous ---------------------------------------------------------------

def _angle_q(theta: float) -> FloatArray:
    """Pinocchio's q of a bounded revolute joint: ``(θ,)``."""
    return np.array([theta])


def _circle_q(theta: float) -> FloatArray:
    """Pinocchio's q of an unbounded revolute joint: ``(cos θ, sin θ)``."""
    return np.array([math.cos(theta), math.sin(theta)])


def _revolute_oracles(axis: FloatArray) -> list[tuple[Any, Callable[[float], FloatArray]]]:
    """Pinocchio joint models of a rotation about ``axis``, each with our θ → its q.

    Pinocchio 4's Python ``JointModelRevoluteUnboundedUnaligned`` takes no axis, so the
    unbounded (continuous) models are the aligned ``RUBX`` / ``RUBY`` / ``RUBZ`` only.
    """
    out: list[tuple[Any, Callable[[float], FloatArray]]] = [
        (pin.JointModelRevoluteUnaligned(axis), _angle_q)]
    aligned = {0: ('RX', 'RUBX'), 1: ('RY', 'RUBY'), 2: ('RZ', 'RUBZ')}
    for k, (bounded, unbounded) in aligned.items():
        if np.array_equal(axis, np.eye(3)[k]):
            out += [(getattr(pin, f'JointModel{bounded}')(), _angle_q),
                    (getattr(pin, f'JointModel{unbounded}')(), _circle_q)]
    return out


def _axes() -> list[FloatArray]:
    """x, y, z and three random unit axes."""
    rng = _rng()
    return [_X, _Y, _Z, *(_unit(rng) for _ in range(3))]


@pytest.mark.parametrize('axis', _axes(), ids=['x', 'y', 'z', 'u0', 'u1', 'u2'])
def test_revolute_motion_matches_pinocchio(axis: FloatArray) -> None:
    """``motion_coefficients`` evaluated at θ equals Pinocchio's joint placement.

    Oracle: Pinocchio ``JointModelRevoluteTpl::calc`` / ``JointModelRevoluteUnalignedTpl::calc``
    (q = θ) and ``JointModelRevoluteUnboundedTpl::calc`` (``RUBX/Y/Z``, q = (cos θ, sin θ)):
    ``data.oMi[1]`` of a one-joint model. Also ``positions_from_motion`` of
    Pinocchio's pose gives θ back (wrapped into (-π, π)).
    """
    rng = _rng()
    C = revolute.motion_coefficients(axis)
    for theta in rng.uniform(-4 * math.pi, 4 * math.pi, SAMPLES):
        ours = _evaluate(C, float(theta))
        for joint, to_pin in _revolute_oracles(axis):
            model, data = _one_joint(joint)
            X = _pin_pose(model, data, to_pin(float(theta)))
            np.testing.assert_allclose(ours, X, rtol=0, atol=TOL, err_msg=joint.shortname())
        back = revolute.positions_from_motion(ours, axis)
        assert back.shape == (1,)
        assert abs(back[0] - _wrap(float(theta))) <= TOL


@pytest.mark.parametrize('axis', _axes(), ids=['x', 'y', 'z', 'u0', 'u1', 'u2'])
def test_revolute_velocity_column_matches_pinocchio_jacobian(axis: FloatArray) -> None:
    """``velocity_columns`` builds Pinocchio's joint Jacobian (joint on a random placement).

    Oracle: Pinocchio ``computeJointJacobians`` + ``getJointJacobian(LOCAL_WORLD_ALIGNED)`` of
    ``JointModelRevoluteUnaligned`` and the aligned ``RX/RY/RZ``, ``RUBX/RUBY/RUBZ`` (same
    scalar velocity θ̇).
    """
    rng = _rng()
    for _ in range(SAMPLES):
        placement = _placement(rng)
        theta = rng.uniform(-4.0, 4.0)
        for joint, to_pin in _revolute_oracles(axis):
            model, data = _one_joint(joint, placement)
            J_pin = _pin_jacobian(model, data, to_pin(theta))
            J = _columns_jacobian(revolute.velocity_columns(axis), placement.rotation,
                                  data.oMi[1].rotation)
            np.testing.assert_allclose(J, J_pin, rtol=0, atol=TOL, err_msg=joint.shortname())


def test_revolute_integrate_and_difference_match_pinocchio() -> None:
    """Bounded: ``q + v`` / ``q1 - q0``; continuous: the same angle and the shortest arc.

    Oracle: Pinocchio ``pin.integrate`` / ``pin.difference`` of ``JointModelRevoluteUnaligned``
    (vector space) and ``JointModelRUBZ`` (the circle, q = (cos, sin):
    ``difference`` is ``atan2`` of the relative rotation, the shortest arc). The samples have
    ``|q1 - q0|`` up to 4π, so a wrap of the bounded joint or a missing wrap of the continuous
    one fails. At an exact half turn the conventions differ (ours -π, ``[-π, π)`` by decision
    S11; Pinocchio's ``atan2`` +π): the samples avoid that tie.
    """
    rng = _rng()
    axis = _unit(rng)
    bounded = _one_joint(pin.JointModelRevoluteUnaligned(axis))[0]
    circle = _one_joint(pin.JointModelRUBZ())[0]
    q0 = rng.uniform(-6.0, 6.0, (SAMPLES, 2, 1))
    q1 = rng.uniform(-6.0, 6.0, (SAMPLES, 2, 1))
    d = revolute.difference(q0, q1, np.array([False, True]))
    assert d.shape == (SAMPLES, 2, 1)
    assert np.any(np.abs(q1 - q0) > math.pi)
    for n in range(SAMPLES):
        a0, a1 = q0[n, 0, 0], q1[n, 0, 0]
        assert abs(d[n, 0, 0] - pin.difference(bounded, np.array([a0]), np.array([a1]))[0]) <= TOL
        c0, c1 = q0[n, 1, 0], q1[n, 1, 0]
        expected = pin.difference(circle, np.array([math.cos(c0), math.sin(c0)]),
                                  np.array([math.cos(c1), math.sin(c1)]))[0]
        assert abs(d[n, 1, 0] - expected) <= TOL
        v = rng.uniform(-4.0, 4.0)
        q = revolute.integrate(np.array([a0]), np.array([v]))
        assert abs(q[0] - pin.integrate(bounded, np.array([a0]), np.array([v]))[0]) <= TOL
        q = revolute.integrate(np.array([c0]), np.array([v]))
        on_circle = pin.integrate(circle, np.array([math.cos(c0), math.sin(c0)]), np.array([v]))
        np.testing.assert_allclose([math.cos(q[0]), math.sin(q[0])], on_circle, rtol=0,
                                   atol=TOL)


# --- prismatic -----------------------------------------------------------------------------

def _prismatic_oracles(axis: FloatArray) -> list[Any]:
    """Pinocchio joint models of a translation along ``axis``."""
    out = [pin.JointModelPrismaticUnaligned(axis)]
    for k, name in enumerate(('PX', 'PY', 'PZ')):
        if np.array_equal(axis, np.eye(3)[k]):
            out.append(getattr(pin, f'JointModel{name}')())
    return out


@pytest.mark.parametrize('axis', _axes(), ids=['x', 'y', 'z', 'u0', 'u1', 'u2'])
def test_prismatic_motion_and_column_match_pinocchio(axis: FloatArray) -> None:
    """The motion polynomial, ``positions_from_motion`` and the column against Pinocchio.

    Oracle: Pinocchio ``JointModelPrismaticTpl::calc`` / ``JointModelPrismaticUnalignedTpl::calc``
    (``data.oMi[1]``) and ``getJointJacobian(LOCAL_WORLD_ALIGNED)`` on a random placement.
    """
    rng = _rng()
    C = prismatic.motion_coefficients(axis)
    for d in rng.uniform(-3.0, 3.0, SAMPLES):
        ours = _evaluate(C, float(d))
        for joint in _prismatic_oracles(axis):
            X = _pin_pose(*_one_joint(joint), np.array([d]))
            np.testing.assert_allclose(ours, X, rtol=0, atol=TOL, err_msg=joint.shortname())
            placement = _placement(rng)
            model, data = _one_joint(joint, placement)
            J_pin = _pin_jacobian(model, data, np.array([d]))
            J = _columns_jacobian(prismatic.velocity_columns(axis), placement.rotation,
                                  data.oMi[1].rotation)
            np.testing.assert_allclose(J, J_pin, rtol=0, atol=TOL, err_msg=joint.shortname())
        assert abs(prismatic.positions_from_motion(ours, axis)[0] - d) <= TOL


def test_prismatic_integrate_and_difference_match_pinocchio() -> None:
    """``q + v`` and ``q1 - q0`` (never wrapped, even when told to).

    Oracle: Pinocchio ``pin.integrate`` / ``pin.difference`` of ``JointModelPrismaticUnaligned``.
    """
    rng = _rng()
    model = _one_joint(pin.JointModelPrismaticUnaligned(_unit(rng)))[0]
    q0 = rng.uniform(-6.0, 6.0, (SAMPLES, 2, 1))
    q1 = rng.uniform(-6.0, 6.0, (SAMPLES, 2, 1))
    d = prismatic.difference(q0, q1, np.array([False, True]))
    v = rng.uniform(-6.0, 6.0, (SAMPLES, 2, 1))
    q = prismatic.integrate(q0, v)
    for n in range(SAMPLES):
        for k in range(2):
            assert abs(d[n, k, 0] - pin.difference(model, q0[n, k], q1[n, k])[0]) <= TOL
            assert abs(q[n, k, 0] - pin.integrate(model, q0[n, k], v[n, k])[0]) <= TOL


# --- planar --------------------------------------------------------------------------------

def test_planar_motion_matches_pinocchio() -> None:
    """``motion`` (batched) and ``positions_from_motion`` against Pinocchio's planar joint.

    Oracle: Pinocchio ``JointModelPlanarTpl::calc`` (q = (x, y, cos θ, sin θ)), ``data.oMi[1]``.
    """
    rng = _rng()
    qs = np.array([_planar_sample(rng) for _ in range(SAMPLES)])
    ours = planar.motion(qs)
    model, data = _one_joint(pin.JointModelPlanar())
    for q, X in zip(qs, ours, strict=True):
        np.testing.assert_allclose(X, _pin_pose(model, data, _planar_to_pin(q)), rtol=0, atol=TOL)
        back = planar.positions_from_motion(X)
        np.testing.assert_allclose(back, [q[0], q[1], _wrap(q[2])], rtol=0, atol=TOL)


def test_planar_velocity_columns_match_pinocchio_jacobian() -> None:
    """``velocity_columns`` (x, y along F) against Pinocchio's (x, y along M), converted.

    Oracle: Pinocchio ``getJointJacobian(LOCAL_WORLD_ALIGNED)`` of ``JointModelPlanar`` on a
    random placement. Conversion: ``v_pin = T v_ours`` with ``T = blockdiag(R(θ)ᵀ, 1)``, so
    ``J_ours = J_pin T``.
    """
    rng = _rng()
    for _ in range(SAMPLES):
        placement = _placement(rng)
        q = _planar_sample(rng)
        model, data = _one_joint(pin.JointModelPlanar(), placement)
        J_pin = _pin_jacobian(model, data, _planar_to_pin(q))
        T = np.eye(3)
        T[:2, :2] = planar.motion(q)[:2, :2].T
        J = _columns_jacobian(planar.velocity_columns(), placement.rotation,
                              data.oMi[1].rotation)
        np.testing.assert_allclose(J, J_pin @ T, rtol=0, atol=TOL)


def _planar_close(ours: FloatArray, pin_q: FloatArray) -> None:
    """Our ``(x, y, θ)`` is Pinocchio's ``(x, y, cos θ, sin θ)`` within TOL."""
    np.testing.assert_allclose(_planar_to_pin(ours), pin_q, rtol=0, atol=TOL)


def test_planar_integrate_matches_pinocchio() -> None:
    """``integrate`` on R² × SO(2): x, y along F, θ added.

    Oracles: Pinocchio ``pin.liegroups.R2() * pin.liegroups.SO2()`` ``integrate`` (the same
    group, same velocity); and ``pin.integrate`` of ``JointModelPlanar`` (SE(2)) for a pure
    translation ``(R(θ)ᵀ (ẋ, ẏ), 0)`` and a pure rotation ``(0, 0, θ̇)``, where SE(2) and
    R² × SO(2) agree; the general step is that translation followed by that rotation.
    """
    rng = _rng()
    group = pin.liegroups.R2() * pin.liegroups.SO2()
    model = _one_joint(pin.JointModelPlanar())[0]
    for _ in range(SAMPLES):
        q = _planar_sample(rng)
        v = rng.uniform(-3.0, 3.0, 3)
        ours = planar.integrate(q, v)
        _planar_close(ours, group.integrate(_planar_to_pin(q), v))
        R_T = planar.motion(q)[:2, :2].T
        translated = pin.integrate(model, _planar_to_pin(q), np.array([*R_T @ v[:2], 0.0]))
        _planar_close(planar.integrate(q, np.array([v[0], v[1], 0.0])), translated)
        _planar_close(ours, pin.integrate(model, translated, np.array([0.0, 0.0, v[2]])))
    q = np.array([_planar_sample(rng) for _ in range(SAMPLES)])
    v = rng.uniform(-3.0, 3.0, (SAMPLES, 3))
    batched = planar.integrate(q, v)
    for n in range(SAMPLES):
        _planar_close(batched[n], group.integrate(_planar_to_pin(q[n]), v[n]))


def test_planar_difference_matches_pinocchio() -> None:
    """``difference``: ``p1 - p0`` in F and θ's shortest arc where unbounded.

    Oracles: Pinocchio ``(R2 * SO2).difference`` (unbounded θ) and ``R3().difference`` (a
    bounded θ is a plain coordinate); ``pin.difference`` of ``JointModelPlanar`` (SE(2) log)
    for pure translations (``R(θ0) v_pin[:2]``) and pure rotations.
    """
    rng = _rng()
    circle = pin.liegroups.R2() * pin.liegroups.SO2()
    line = pin.liegroups.R3()
    model = _one_joint(pin.JointModelPlanar())[0]
    q0 = np.array([[_planar_sample(rng), _planar_sample(rng)] for _ in range(SAMPLES)])
    q1 = np.array([[_planar_sample(rng), _planar_sample(rng)] for _ in range(SAMPLES)])
    assert np.any(np.abs(q1[..., 2] - q0[..., 2]) > math.pi)
    d = planar.difference(q0, q1, np.array([True, False]))
    for n in range(SAMPLES):
        expected = circle.difference(_planar_to_pin(q0[n, 0]), _planar_to_pin(q1[n, 0]))
        np.testing.assert_allclose(d[n, 0], expected, rtol=0, atol=TOL)
        np.testing.assert_allclose(d[n, 1], line.difference(q0[n, 1], q1[n, 1]), rtol=0,
                                   atol=TOL)
        a, b = q0[n, 0], q1[n, 0]
        moved = np.array([b[0], b[1], a[2]])
        v_pin = pin.difference(model, _planar_to_pin(a), _planar_to_pin(moved))
        ours = planar.difference(a[None], moved[None], np.array([True]))[0]
        np.testing.assert_allclose(ours, [*planar.motion(a)[:2, :2] @ v_pin[:2], v_pin[2]],
                                   rtol=0, atol=TOL)
        turned = np.array([a[0], a[1], b[2]])
        v_pin = pin.difference(model, _planar_to_pin(a), _planar_to_pin(turned))
        ours = planar.difference(a[None], turned[None], np.array([True]))[0]
        np.testing.assert_allclose(ours, v_pin, rtol=0, atol=TOL)


# --- floating ------------------------------------------------------------------------------

def test_floating_motion_matches_pinocchio() -> None:
    """``motion`` (batched; quaternion normalised) and ``positions_from_motion``.

    Oracle: Pinocchio ``JointModelFreeFlyerTpl::calc`` (q = (x, y, z, qx, qy, qz, qw), a unit
    quaternion: Pinocchio does not normalise, so a scaled quaternion is compared with
    Pinocchio's pose of the unit one).
    """
    rng = _rng()
    qs = np.array([_floating_sample(rng) for _ in range(SAMPLES)])
    scale = rng.uniform(0.01, 100.0, SAMPLES)
    scaled = qs.copy()
    scaled[:, 3:] *= scale[:, None]
    model, data = _one_joint(pin.JointModelFreeFlyer())
    for q, X, X_scaled in zip(qs, floating.motion(qs), floating.motion(scaled), strict=True):
        X_pin = _pin_pose(model, data, q)
        np.testing.assert_allclose(X, X_pin, rtol=0, atol=TOL)
        np.testing.assert_allclose(X_scaled, X_pin, rtol=0, atol=TOL)
        back = floating.positions_from_motion(X_pin)
        assert back[6] >= 0.0
        np.testing.assert_allclose(back, [*q[:3], *(q[3:] if q[6] >= 0 else -q[3:])], rtol=0,
                                   atol=TOL)


def _free_flyer_velocity_map(R: FloatArray) -> FloatArray:
    """``T`` with ``v_pin = T v_ours``: ``[ω_F; v_F]`` → ``[Rᵀ v_F; Rᵀ ω_F]`` (free-flyer)."""
    T = np.zeros((6, 6))
    T[:3, 3:] = R.T
    T[3:, :3] = R.T
    return T


def test_floating_velocity_columns_match_pinocchio_jacobian() -> None:
    """``velocity_columns`` (``[ω_F; v_F]``) against Pinocchio's free-flyer Jacobian, converted.

    Oracle: Pinocchio ``getJointJacobian(LOCAL_WORLD_ALIGNED)`` of ``JointModelFreeFlyer`` on a
    random placement; ``v_pin = T v_ours`` with ``T = [[0, Rᵀ], [Rᵀ, 0]]`` (``R = R_FM``), so
    ``J_ours = J_pin T`` (swapped halves or a LOCAL frame would fail).
    """
    rng = _rng()
    for _ in range(SAMPLES):
        placement = _placement(rng)
        q = _floating_sample(rng)
        model, data = _one_joint(pin.JointModelFreeFlyer(), placement)
        J_pin = _pin_jacobian(model, data, q)
        R = floating.motion(q)[:3, :3]
        J = _columns_jacobian(floating.velocity_columns(), placement.rotation,
                              data.oMi[1].rotation)
        np.testing.assert_allclose(J, J_pin @ _free_flyer_velocity_map(R), rtol=0, atol=TOL)


def _floating_close(ours: FloatArray, pin_q: FloatArray) -> None:
    """Same position and rotation (the quaternion up to sign), within TOL; ours is unit."""
    np.testing.assert_allclose(ours[:3], pin_q[:3], rtol=0, atol=TOL)
    sign = 1.0 if float(ours[3:] @ pin_q[3:]) >= 0.0 else -1.0
    np.testing.assert_allclose(ours[3:], sign * pin_q[3:], rtol=0, atol=TOL)
    assert abs(np.linalg.norm(ours[3:]) - 1.0) <= TOL


def test_floating_integrate_matches_pinocchio() -> None:
    """``integrate``: ``p + v_F``, ``R ← exp(ω_F) R`` (R³ × SO(3), rotation on the left in F).

    Oracles: Pinocchio ``(R3 * SO3).integrate`` with ``[v_F; Rᵀ ω_F]`` (its SO(3) multiplies
    on the right, in M); ``pin.integrate`` of ``JointModelFreeFlyer`` (SE(3)) with
    ``T v`` (``T`` as in the Jacobian test) for a pure translation and for a pure rotation,
    where SE(3) and R³ × SO(3) agree; the general step is that translation, then that rotation.
    """
    rng = _rng()
    group = pin.liegroups.R3() * pin.liegroups.SO3()
    model = _one_joint(pin.JointModelFreeFlyer())[0]
    qs = np.array([_floating_sample(rng) for _ in range(SAMPLES)])
    vs = rng.uniform(-2.0, 2.0, (SAMPLES, 6))
    batched = floating.integrate(qs, vs)
    for q, v, ours in zip(qs, vs, batched, strict=True):
        R = floating.motion(q)[:3, :3]
        _floating_close(floating.integrate(q, v), ours)
        _floating_close(ours, group.integrate(q, np.concatenate([v[3:], R.T @ v[:3]])))
        T = _free_flyer_velocity_map(R)
        translation = np.concatenate([np.zeros(3), v[3:]])
        translated = pin.integrate(model, q, T @ translation)
        _floating_close(floating.integrate(q, translation), translated)
        rotation = np.concatenate([v[:3], np.zeros(3)])
        _floating_close(floating.integrate(q, rotation), pin.integrate(model, q, T @ rotation))
        _floating_close(ours, pin.integrate(model, translated, T @ rotation))


def test_floating_difference_matches_pinocchio() -> None:
    """``difference``: ``[log(R1 R0ᵀ); p1 - p0]`` (ω in F, angular first).

    Oracles: Pinocchio ``(R3 * SO3).difference`` = ``[p1 - p0; log(R0ᵀ R1)]``, converted
    ``ours = [R0 d[3:]; d[:3]]``; ``pin.difference`` of ``JointModelFreeFlyer`` (SE(3) log)
    for pure translations (``ours = [0; R0 d[:3]]``) and pure rotations
    (``ours = [R0 d[3:]; 0]``). Relative rotations are kept below 2.5 rad (away from the π cut).
    """
    rng = _rng()
    group = pin.liegroups.R3() * pin.liegroups.SO3()
    model = _one_joint(pin.JointModelFreeFlyer())[0]
    for _ in range(SAMPLES):
        q0 = _floating_sample(rng)
        R0 = floating.motion(q0)[:3, :3]
        R1 = pin.exp3(rng.uniform(-2.5, 2.5) * _unit(rng)) @ R0
        q1 = np.concatenate([rng.normal(size=3), pin.Quaternion(R1).coeffs()])
        ours = floating.difference(q0, q1)
        d = group.difference(q0, q1)
        np.testing.assert_allclose(ours, [*R0 @ d[3:], *d[:3]], rtol=0, atol=TOL)
        moved = np.concatenate([q1[:3], q0[3:]])
        d = pin.difference(model, q0, moved)
        np.testing.assert_allclose(d[3:], 0.0, rtol=0, atol=TOL)
        np.testing.assert_allclose(floating.difference(q0, moved), [0.0, 0.0, 0.0, *R0 @ d[:3]],
                                   rtol=0, atol=TOL)
        turned = np.concatenate([q0[:3], q1[3:]])
        d = pin.difference(model, q0, turned)
        np.testing.assert_allclose(d[:3], 0.0, rtol=0, atol=TOL)
        np.testing.assert_allclose(floating.difference(q0, turned), [*R0 @ d[3:], 0.0, 0.0, 0.0],
                                   rtol=0, atol=TOL)


@pytest.mark.parametrize(('scale', 'usable'), [
    (0.0, False), (1e-13, False), (1e13, False), (math.nan, False), (math.inf, False),
    (1.0, True), (1e-6, True), (1e-11, True), (1e11, True), (3.0, True)])
def test_floating_usable_quaternion_follows_documented_bounds(scale: float,
                                                             usable: bool) -> None:
    """``usable_quaternion``: finite with a norm in [QUATERNION_MIN_NORM, QUATERNION_MAX_NORM].

    Oracle: the documented bounds ``spatial.transforms.QUATERNION_MIN_NORM`` (1e-12) and
    ``QUATERNION_MAX_NORM`` (1e12), applied here to the norm by hand. A NaN or inf in one
    component is unusable too (on a plain Python list and on a numpy array, at an offset).
    """
    quat = _unit_quat(_rng())
    scaled = quat * scale if math.isfinite(scale) else np.array([0.1, 0.2, scale, 0.3])
    with np.errstate(invalid='ignore'):
        norm = float(np.linalg.norm(scaled))
    assert (QUATERNION_MIN_NORM <= norm <= QUATERNION_MAX_NORM) is usable
    q = np.concatenate([[9.0, 9.0], [1.0, 2.0, 3.0], scaled])
    assert floating.usable_quaternion(q, 2) == usable
    assert floating.usable_quaternion([float(x) for x in q], 2) is usable


# --- rpy_floating (Drake RpyFloatingJoint) -------------------------------------------------

def test_rpy_floating_motion_matches_drake_convention() -> None:
    """``motion`` is ``[Rz(yaw) Ry(pitch) Rx(roll), p]`` and ``positions_from_motion`` inverts it.

    Oracles: Drake ``RpyFloatingJoint`` / ``RollPitchYaw::ToRotationMatrix`` written in closed
    form here; Pinocchio ``JointModelTranslation`` then ``JointModelSphericalZYX`` (q = (x, y, z,
    yaw, pitch, roll)), ``data.oMi[2]``.
    """
    rng = _rng()
    model = pin.Model()
    first = model.addJoint(0, pin.JointModelTranslation(), pin.SE3.Identity(), 'translation')
    model.addJoint(first, pin.JointModelSphericalZYX(), pin.SE3.Identity(), 'rotation')
    data = model.createData()
    qs = np.array([_rpy_sample(rng) for _ in range(SAMPLES)])
    for q, X in zip(qs, rpy_floating.motion(qs), strict=True):
        expected = np.eye(4)
        expected[:3, :3] = _rpy_matrix(*q[:3])
        expected[:3, 3] = q[3:]
        np.testing.assert_allclose(X, expected, rtol=0, atol=TOL)
        np.testing.assert_allclose(
            X, _pin_pose(model, data, np.concatenate([q[3:], q[2::-1]]), 2), rtol=0, atol=TOL)
        np.testing.assert_allclose(rpy_floating.positions_from_motion(X), q, rtol=0, atol=TOL)


def test_rpy_floating_velocity_columns_match_pinocchio_and_finite_differences() -> None:
    """``velocity_columns`` ``[w_FM; v_FM]`` in F: Pinocchio's Jacobian and d/dt motion.

    Oracles: Pinocchio ``getJointJacobian(LOCAL_WORLD_ALIGNED)`` of the Translation +
    SphericalZYX pair on a random placement, ``v_pin = T v_ours`` with
    ``T = [[0, I], [P E_F⁻¹, 0]]`` (``E_F`` Drake's, closed form here; ``P`` reverses to
    (yaw, pitch, roll)); and central differences of ``motion(integrate(q, ±h v))``, whose
    ``[ṗ; vee(Ṙ Rᵀ)]`` must be the columns' ``J v`` (FD_TOL).
    """
    rng = _rng()
    for _ in range(SAMPLES):
        placement = _placement(rng)
        q = _rpy_sample(rng)
        model = pin.Model()
        first = model.addJoint(0, pin.JointModelTranslation(), placement, 'translation')
        model.addJoint(first, pin.JointModelSphericalZYX(), pin.SE3.Identity(), 'rotation')
        data = model.createData()
        J_pin = _pin_jacobian(model, data, np.concatenate([q[3:], q[2::-1]]), 2)
        T = np.zeros((6, 6))
        T[:3, 3:] = np.eye(3)
        T[3:, :3] = np.linalg.inv(_rpy_rate_matrix(q[1], q[2]))[::-1]
        columns = rpy_floating.velocity_columns()
        J = _columns_jacobian(columns, placement.rotation, data.oMi[2].rotation)
        np.testing.assert_allclose(J, J_pin @ T, rtol=0, atol=TOL)
        v = rng.uniform(-1.0, 1.0, 6)
        plus = rpy_floating.motion(rpy_floating.integrate(q, FD_STEP * v))
        minus = rpy_floating.motion(rpy_floating.integrate(q, -FD_STEP * v))
        rate = (plus - minus) / (2 * FD_STEP)
        R = rpy_floating.motion(q)[:3, :3]
        finite = np.concatenate([rate[:3, 3], _vee(rate[:3, :3] @ R.T)])
        J_F = _columns_jacobian(columns, np.eye(3), R)
        np.testing.assert_allclose(J_F @ v, finite, rtol=0, atol=FD_TOL)


def test_rpy_floating_integrate_and_difference_match_closed_form() -> None:
    """``integrate``: ``R(q1) = exp([w_FM]×) R(q0)``, ``p1 = p0 + v_FM``; ``difference`` inverts.

    Oracle: Drake's convention (``v = [w_FM; v_FM]``, both in F) with Rodrigues' formula and
    ``Rz Ry Rx`` written here; the angles out are Drake's canonical ones (``|pitch| <= π/2``).
    """
    rng = _rng()
    qs = np.array([_rpy_sample(rng) for _ in range(SAMPLES)])
    vs = rng.uniform(-1.5, 1.5, (SAMPLES, 6))
    batched = rpy_floating.integrate(qs, vs)
    for q, v, ours in zip(qs, vs, batched, strict=True):
        np.testing.assert_allclose(_rpy_matrix(*ours[:3]), _rodrigues(v[:3]) @ _rpy_matrix(*q[:3]),
                                   rtol=0, atol=TOL)
        np.testing.assert_allclose(ours[3:], q[3:] + v[3:], rtol=0, atol=TOL)
        assert abs(ours[1]) <= math.pi / 2
        q1 = _rpy_sample(rng)
        d = rpy_floating.difference(q, q1)
        assert np.linalg.norm(d[:3]) <= math.pi
        np.testing.assert_allclose(_rodrigues(d[:3]) @ _rpy_matrix(*q[:3]), _rpy_matrix(*q1[:3]),
                                   rtol=0, atol=TOL)
        np.testing.assert_allclose(d[3:], q1[3:] - q[3:], rtol=0, atol=TOL)


def test_rpy_floating_rate_maps_match_drake_convention() -> None:
    """``v = N⁺(q) q̇`` (``w_FM = E_F (ṙ, ṗ, ẏ)``) and its inverse ``N(q)``.

    Oracles: Drake's ``E_F`` in closed form here (TOL) and central differences of the closed
    form ``Rz Ry Rx`` along ``q + t q̇``: ``vee(Ṙ Rᵀ) = w_FM`` (FD_TOL).
    """
    rng = _rng()
    for _ in range(SAMPLES):
        q = _rpy_sample(rng)
        qdot = rng.uniform(-1.0, 1.0, 6)
        v = rpy_floating.rpy_floating_map_qdot_to_velocity(q, qdot)
        E = _rpy_rate_matrix(q[1], q[2])
        np.testing.assert_allclose(v, [*E @ qdot[:3], *qdot[3:]], rtol=0, atol=TOL)
        N_plus = rpy_floating.rpy_floating_qdot_to_velocity_matrix(q)
        np.testing.assert_allclose(N_plus[:3, :3], E, rtol=0, atol=TOL)
        N = rpy_floating.rpy_floating_velocity_to_qdot_matrix(q)
        np.testing.assert_allclose(N[:3, :3], np.linalg.inv(E), rtol=0, atol=TOL)
        np.testing.assert_allclose(rpy_floating.rpy_floating_map_velocity_to_qdot(q, v), qdot,
                                   rtol=0, atol=TOL)
        R = _rpy_matrix(*q[:3])
        rate = (_rpy_matrix(*(q[:3] + FD_STEP * qdot[:3]))
                - _rpy_matrix(*(q[:3] - FD_STEP * qdot[:3]))) / (2 * FD_STEP)
        np.testing.assert_allclose(v[:3], _vee(rate @ R.T), rtol=0, atol=FD_TOL)


# --- motion_rows: the compiled FK's form ---------------------------------------------------

def _rows_samples(module: ModuleType, rng: np.random.Generator) -> list[FloatArray]:
    """Positions of ``module``'s type, including large angles and unnormalised quaternions."""
    if module is planar:
        return [_planar_sample(rng) * 3 for _ in range(SAMPLES)]
    if module is floating:
        return [np.concatenate([rng.normal(size=3), rng.normal(size=4) * 10.0 ** rng.uniform(
            -5, 5)]) for _ in range(SAMPLES)]
    return [np.concatenate([rng.uniform(-7.0, 7.0, 3), rng.normal(size=3)])
            for _ in range(SAMPLES)]


@pytest.mark.parametrize('module', [planar, floating, rpy_floating],
                         ids=['planar', 'floating', 'rpy_floating'])
def test_motion_rows_equal_motion_bitwise(module: ModuleType) -> None:
    """``motion_rows`` (plain Python, compiled into the FK) equals ``motion`` bit for bit.

    Oracle: the module's numpy ``motion`` (the documented contract: "bitwise :func:`motion`'s
    values"), on a plain float list and on a numpy array, at an offset in a longer vector.
    """
    rng = _rng()
    for q in _rows_samples(module, rng):
        expected = module.motion(q[None])[0, :3]
        padded = np.concatenate([[5.0, -5.0], q, [7.0]])
        for positions in ([float(x) for x in padded], padded):
            rows = module.motion_rows(positions, 2)
            assert len(rows) == 3
            assert all(len(row) == 4 for row in rows)
            got = np.array(rows, dtype=np.float64)
            assert np.array_equal(got, expected), (got - expected, q)


# --- mimic ---------------------------------------------------------------------------------

def test_mimic_chain_and_apply_match_hand_arithmetic() -> None:
    """``chain``: ``q = M (m q_s + o) + O``; ``apply`` writes ``m q_s + o`` into the followers.

    Oracle: the relations evaluated step by step here (MoveIt ``JointModel::getMimic`` chains,
    Pinocchio ``JointModelMimic``'s ``scaling`` / ``offset``).
    """
    rng = _rng()
    for _ in range(SAMPLES):
        inner_m, inner_o, outer_m, outer_o = rng.uniform(-3.0, 3.0, 4)
        q_s = rng.uniform(-5.0, 5.0)
        multiplier, offset = mimic.chain(inner_m, inner_o, outer_m, outer_o)
        assert abs(multiplier * q_s + offset - (outer_m * (inner_m * q_s + inner_o) + outer_o)) \
            <= TOL
        assert abs(multiplier - outer_m * inner_m) <= TOL
    q = rng.uniform(-3.0, 3.0, (SAMPLES, 5))
    expected = q.copy()
    variable, source = np.array([2, 4]), np.array([0, 1])
    factor, shift = np.array([-0.7, 1.9]), np.array([0.3, -0.2])
    mimic.apply(q, variable, source, factor, shift)
    expected[:, 2] = -0.7 * expected[:, 0] + 0.3
    expected[:, 4] = 1.9 * expected[:, 1] - 0.2
    np.testing.assert_allclose(q, expected, rtol=0, atol=TOL)


def test_mimic_fold_columns_is_the_chain_rule() -> None:
    """``fold_columns`` is ``J F`` and the derivative of the FK along the mimic relations.

    Oracles: ``J F`` with the velocity map ``F`` built by hand (``v_follower = k v_source``;
    TOL); and central differences of Pinocchio's FK of a 4-joint revolute chain (joints 2 and
    3 follow joint 0, joint 3 through a chain of two relations) along the independent
    variables (FD_TOL), against the folded ``LOCAL_WORLD_ALIGNED`` tip Jacobian.
    """
    rng = _rng()
    model = pin.Model()
    parent = 0
    for k in range(4):
        parent = model.addJoint(parent, pin.JointModelRevoluteUnaligned(_unit(rng)),
                                _placement(rng), f'j{k}')
    data = model.createData()
    k2, o2 = -0.7, 0.3
    k3, o3 = mimic.chain(k2, o2, 1.6, -0.4)  # joint 3 follows joint 2, which follows joint 0

    def full(s: FloatArray) -> FloatArray:
        """All four joint values from the independent ``(q0, q1)``."""
        return np.array([s[0], s[1], k2 * s[0] + o2, k3 * s[0] + o3])

    table = np.array([[2.0, 0.0, k2], [3.0, 0.0, k3]])
    for _ in range(SAMPLES):
        s = rng.uniform(-3.0, 3.0, 2)
        J = _pin_jacobian(model, data, full(s), 4)
        F = np.eye(4)
        F[2, 2] = F[3, 3] = 0.0
        F[2, 0], F[3, 0] = k2, k3
        expected = J @ F
        mimic.fold_columns(J, table)
        np.testing.assert_allclose(J, expected, rtol=0, atol=TOL)
        assert not J[:, 2:].any()
        for i in range(2):
            step = np.zeros(2)
            step[i] = FD_STEP
            plus = _pin_pose(model, data, full(s + step), 4)
            minus = _pin_pose(model, data, full(s - step), 4)
            rate = (plus - minus) / (2 * FD_STEP)
            R = _pin_pose(model, data, full(s), 4)[:3, :3]
            finite = np.concatenate([rate[:3, 3], _vee(rate[:3, :3] @ R.T)])
            np.testing.assert_allclose(J[:, i], finite, rtol=0, atol=FD_TOL)


def test_floating_step_quaternion_is_integrate() -> None:
    """``step_quaternion`` (IK's compiled step) turns a quaternion by ``exp(w)`` in F.

    Oracle: Rodrigues' ``exp(w)`` written here times the quaternion's rotation (Pinocchio's
    ``Quaternion``), for steps from 1e-9 to 2 rad (the small-angle series and the closed
    form); the result is a unit quaternion with w >= 0.
    """
    rng = np.random.default_rng(SEED)
    for scale in (1e-9, 1e-5, 1e-3, 0.3, 2.0):
        for _ in range(8):
            quat = _unit_quat(rng)
            w = rng.normal(size=3) * scale
            out = np.array(floating.step_quaternion(*quat.tolist(), *w.tolist()))
            R0 = pin.Quaternion(quat[3], *quat[:3]).toRotationMatrix()
            R = pin.Quaternion(out[3], *out[:3]).toRotationMatrix()
            np.testing.assert_allclose(R, _rodrigues(w) @ R0, rtol=0, atol=TOL)
            assert out[3] >= 0.0 and abs(float(np.linalg.norm(out)) - 1.0) < TOL


def test_rpy_floating_step_angles_is_integrate() -> None:
    """IK's compiled rpy step (angles → quaternion, ``step_quaternion``, angles) is ``exp(w)``.

    Oracle: Rodrigues' ``exp(w)`` times Drake's ``Rz(yaw) Ry(pitch) Rx(roll)``, both written
    here; pitch in [-π/2, π/2], roll and yaw in [-π, π].
    """
    rng = np.random.default_rng(SEED)
    for scale in (1e-9, 1e-3, 0.3, 2.0):
        for _ in range(8):
            rpy = _rpy_sample(rng)[:3]
            w = rng.normal(size=3) * scale
            turned = floating.step_quaternion(*rpy_floating.quaternion_of_angles(*rpy.tolist()),
                                              *w.tolist())
            out = rpy_floating.angles_of_quaternion(*turned)
            np.testing.assert_allclose(_rpy_matrix(*out), _rodrigues(w) @ _rpy_matrix(*rpy),
                                       rtol=0, atol=1e-11)
            assert abs(out[1]) <= math.pi / 2
            assert abs(out[0]) <= math.pi and abs(out[2]) <= math.pi
