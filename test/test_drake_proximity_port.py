"""Drake's proximity-query tests, ported (seed 000: the queries of ``QueryObject``).

Origins, all in ``RobotLocomotion/drake``:

* ``geometry/proximity/test/penetration_as_point_pair_callback_test.cc``
  (``ComputePointPairPenetration``): the ``double`` cases;
* ``geometry/proximity/test/distance_to_shape_callback_test.cc``
  (``ComputeSignedDistancePairwiseClosestPoints``): every ``SignedDistancePairTest`` and
  ``SignedDistancePairConcentricTest`` data set, verbatim, with Drake's ``kTolerance = 1e-14``;
* ``geometry/proximity/test/penetration_as_point_pair_characterize_test.cc``: Drake's
  characterized precision per shape pair at 2 mm depth with Drake's shapes (``kDistance``
  multiples), as upper bounds on our error.

Our counterpart of the callbacks is the collision backend :class:`FclObjects`
(``collide_pairs`` for point-pair penetration, ``distance_pairs`` for signed distance pairs);
the ``PlanningScene`` queries are built on it. Drake's test inputs use ``RollPitchYawd``, built
here with Pinocchio's ``rpyToMatrix`` (the same ``Rz Ry Rx``), not with our code.

Where we deliberately differ, the test asserts our documented behaviour and names the row of
``docs/decisions.md`` (section "Drake geometry"): G-5 (box-half-space signed distance is
answered, where Drake's callback throws). Two tolerances are doubled where our arithmetic rounds
differently from Drake's (commented at the assertion): ``kEps`` on sphere-shape depths derived
from 1.6 m positions, and ``kTolerance`` on the derived witness-distance invariance.

Not ported: the ``AutoDiffXd``/``Expression`` variants and ``TestGradient`` (no scalar types,
G-02), and the collision-filter internals of the callbacks (filters are applied by the
registry's candidate list here; ``test_collision_filter_respected`` ports the observable part).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
import pinocchio as pin
import pytest

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    ProximityProperties,
    SceneGraph,
    Shape,
    Sphere,
)
from robot_state_core.geometry.fcl_backend import FclObjects

FloatArray = NDArray[np.float64]
K_EPS = np.finfo(np.float64).eps
K_TOLERANCE = 1e-14  # distance_to_shape_callback_test.cc, SignedDistancePairTest::kTolerance


def rpy(r: float, p: float, y: float) -> FloatArray:
    """Drake's ``RotationMatrixd(RollPitchYawd(r, p, y))``, from Pinocchio."""
    out: FloatArray = np.asarray(pin.rpy.rpyToMatrix(r, p, y), dtype=np.float64)
    return out


def rx(a: float) -> FloatArray:
    return rpy(a, 0.0, 0.0)


def ry(a: float) -> FloatArray:
    return rpy(0.0, a, 0.0)


def rz(a: float) -> FloatArray:
    return rpy(0.0, 0.0, a)


def pose(R: FloatArray | None = None, p: FloatArray | list[float] | None = None) -> FloatArray:
    """Drake's ``RigidTransformd(R, p)``."""
    X = np.eye(4)
    if R is not None:
        X[:3, :3] = R
    if p is not None:
        X[:3, 3] = p
    return X


def inverse(X: FloatArray) -> FloatArray:
    out = np.eye(4)
    out[:3, :3] = X[:3, :3].T
    out[:3, 3] = -X[:3, :3].T @ X[:3, 3]
    return out


def apply(X: FloatArray, p: FloatArray) -> FloatArray:
    out: FloatArray = X[:3, :3] @ p + X[:3, 3]
    return out


# ------------------------------------------------------------------------------------------
# penetration_as_point_pair_callback_test.cc

K_RADIUS = 0.5  # PenetrationAsPointPairCallbackTest::kRadius
BOX_SIZE = (0.1, 0.2, 0.3)
CYLINDER_SIZE = (1.2, 2.1)
CAPSULE_SIZE = (1.3, 2.3)


def contacts(A: Shape, B: Shape, X_WA: FloatArray, X_WB: FloatArray) -> list:
    objects = FclObjects([A, B])
    objects.set_poses(np.stack([X_WA, X_WB]))
    return objects.collide_pairs(np.array([[0, 1]]))


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# NonCollisionDouble)
def test_non_collision() -> None:
    X_WA = pose()
    X_WB = pose(p=[K_RADIUS * 3, 0, 0])
    assert contacts(Sphere(K_RADIUS), Sphere(K_RADIUS), X_WA, X_WB) == []
    assert contacts(Sphere(K_RADIUS), Sphere(K_RADIUS), X_WB, X_WA) == []


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# CollisionFilterRespectedDouble)
def test_collision_filter_respected() -> None:
    target_depth = 0.1
    center_distance = K_RADIUS * 2 - target_depth
    direction = np.array([1.0, -2.0, 3.0])
    p_WBo = direction / np.linalg.norm(direction) * center_distance
    X_WB = pose(ry(math.pi / 3) @ rz(-math.pi / 7), p_WBo)
    X_WA = pose()
    objects = FclObjects([Sphere(K_RADIUS), Sphere(K_RADIUS)])
    objects.set_poses(np.stack([X_WA, X_WB]))
    (first,) = objects.collide_pairs(np.array([[0, 1]]))
    assert abs(np.linalg.norm(first.p_WCa - first.p_WCb) - first.depth) <= K_EPS
    np.testing.assert_allclose(first.p_WCb - first.p_WCa, first.depth * first.nhat_BA_W,
                               atol=K_EPS, rtol=0)
    assert abs(first.depth - target_depth) <= K_EPS
    # The reversed order gives the bit-identical contact with A and B exchanged (Drake orders
    # the pair by id; our pair list decides, and the registry's candidates are ordered by id).
    (second,) = objects.collide_pairs(np.array([[1, 0]]))
    assert second.depth == first.depth
    np.testing.assert_array_equal(second.nhat_BA_W, -first.nhat_BA_W)
    np.testing.assert_array_equal(second.p_WCa, first.p_WCb)
    np.testing.assert_array_equal(second.p_WCb, first.p_WCa)
    # Filtering the pair (A, B) removes it from the candidates: no contact is computed.
    sg = SceneGraph()
    source = sg.register_source()
    frames = [sg.register_frame(source, GeometryFrame(n)) for n in ('a', 'b')]
    ids = [sg.register_geometry(source, f, GeometryInstance(
        np.eye(4), Sphere(K_RADIUS), 'sphere', (ProximityProperties(),))) for f in frames]
    assert len(sg.model_inspector().get_collision_candidates()) == 1
    sg.collision_filter_manager().exclude_within(ids)
    assert sg.model_inspector().get_collision_candidates() == []


def _test_sphere_shape(target_depth: float, X_WB: FloatArray, shape: Shape) -> None:
    """``TestSphereShape``: the sphere A (radius 0.5) at the origin against ``shape``."""
    X_WA = pose()
    (first,) = contacts(Sphere(K_RADIUS), shape, X_WA, X_WB)
    # Drake: kEps. Depths of ~0.1 m derived from positions of ~1.6 m carry their rounding
    # (1 ulp of 1.6 m is 2.2e-16 m): 2 kEps here.
    assert abs(first.depth - target_depth) <= 2 * K_EPS
    assert abs(float((first.p_WCb - first.p_WCa) @ first.nhat_BA_W) - target_depth) <= 2 * K_EPS
    (second,) = contacts(shape, Sphere(K_RADIUS), X_WB, X_WA)
    assert second.depth == first.depth
    np.testing.assert_array_equal(second.p_WCa, first.p_WCb)  # A and B exchanged
    np.testing.assert_array_equal(second.p_WCb, first.p_WCa)
    np.testing.assert_array_equal(second.nhat_BA_W, -first.nhat_BA_W)


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# SphereBoxDouble)
def test_sphere_box() -> None:
    target_depth = 0.1
    center_distance = K_RADIUS + BOX_SIZE[0] / 2 - target_depth
    R_WB = rz(0.2)
    X_WB = pose(R_WB, R_WB @ np.array([1.0, 0, 0]) * center_distance)
    _test_sphere_shape(target_depth, X_WB, Box(*BOX_SIZE))


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# SphereCylinderDouble)
def test_sphere_cylinder() -> None:
    target_depth = 0.1
    center_distance = K_RADIUS + CYLINDER_SIZE[0] - target_depth
    R_WB = rz(0.2)
    X_WB = pose(R_WB, R_WB @ np.array([1.0, 0, 0]) * center_distance)
    _test_sphere_shape(target_depth, X_WB, Cylinder(*CYLINDER_SIZE))


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# SphereHalfspaceDouble)
def test_sphere_halfspace() -> None:
    R_WB = rz(0.1) @ rx(0.5)
    p_WBo = np.array([0.5, -0.2, 0.9])
    halfspace_normal, halfspace_offset = np.array([0.0, 0, 1]), 0.0
    target_depth = halfspace_offset + float(halfspace_normal @ (R_WB.T @ p_WBo)) + K_RADIUS
    _test_sphere_shape(target_depth, pose(R_WB, p_WBo), HalfSpace())


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# SphereCapsuleDouble)
def test_sphere_capsule() -> None:
    target_depth = 0.1
    center_distance = K_RADIUS + CAPSULE_SIZE[0] - target_depth
    R_WB = rz(0.2)
    X_WB = pose(R_WB, R_WB @ np.array([1.0, 0, 0]) * center_distance)
    _test_sphere_shape(target_depth, X_WB, Capsule(*CAPSULE_SIZE))


# drake penetration_as_point_pair_callback_test.cc, TEST_F(PenetrationAsPointPairCallbackTest,
# UnsupportedHalfSpaceHalfSpace): "Penetration queries between shapes .* and .* are not
# supported"
def test_unsupported_halfspace_halfspace() -> None:
    objects = FclObjects([HalfSpace(), HalfSpace()])
    X = np.stack([np.eye(4), pose(rpy(0.0, -math.pi / 2, 0.0))])  # normal (1, 0, 0)
    objects.set_poses(X)
    with pytest.raises(InvalidArgumentError, match='two half-spaces'):
        objects.collide_pairs(np.array([[0, 1]]))
    with pytest.raises(InvalidArgumentError, match='two half-spaces'):
        objects.distance_pairs(np.array([[0, 1]]))


# ------------------------------------------------------------------------------------------
# distance_to_shape_callback_test.cc


# drake distance_to_shape_callback_test.cc, GTEST_TEST(SignedDistanceCallbackTests,
# PairwiseSignedDistanceNonPositiveThreshold)
def test_pairwise_signed_distance_non_positive_threshold() -> None:
    k_radius = 0.5
    objects = FclObjects([Sphere(k_radius)] * 3)
    objects.set_poses(np.stack([pose(p=[0, 2 * k_radius, 0]), pose(p=[-k_radius * 0.9, 0, 0]),
                                pose(p=[k_radius * 0.9, 0, 0])]))
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    assert len(objects.distance_pairs(pairs, math.inf)) == 3
    assert len(objects.distance_pairs(pairs, 0.0)) == 1
    penetration = -k_radius * 0.2
    assert len(objects.distance_pairs(pairs, penetration + K_EPS)) == 1
    assert len(objects.distance_pairs(pairs, penetration - K_EPS)) == 0


class Data:
    """``SignedDistancePairTestData``: shapes, poses and the expected pair (in A's/B's frames)."""

    def __init__(self, a: Shape, b: Shape, X_WA: FloatArray, X_WB: FloatArray,
                 p_ACa: FloatArray, p_BCb: FloatArray, distance: float,
                 nhat_BA_W: FloatArray | None = None, name: str = '') -> None:
        self.a, self.b, self.X_WA, self.X_WB = a, b, X_WA, X_WB
        self.p_ACa, self.p_BCb = np.asarray(p_ACa, float), np.asarray(p_BCb, float)
        self.distance = distance
        self.nhat_BA_W = np.zeros(3) if nhat_BA_W is None else np.asarray(nhat_BA_W, float)
        self.name = name

    def swapped(self) -> Data:
        """``GenSwapAB``."""
        return Data(self.b, self.a, self.X_WB, self.X_WA, self.p_BCb, self.p_ACa, self.distance,
                    -self.nhat_BA_W, self.name + ' (swapped)')


def gen_sphere_sphere(X_WA: FloatArray | None = None, R_WB: FloatArray | None = None,
                      name: str = 'SphereSphere') -> list[Data]:
    X_WA = np.eye(4) if X_WA is None else X_WA
    R_WB = np.eye(3) if R_WB is None else R_WB
    radius_A, radius_B = 1.0, 2.0
    R_AB = X_WA[:3, :3].T @ R_WB
    configurations = [(np.array([4.0, 0, 0]), 1.0),  # non-overlapping
                      (np.array([3.0, 0, 0]), 0.0),  # B kisses A
                      (np.array([2.5, 0, 0]), -0.5),  # B overlaps A
                      (np.array([1.0, 0, 0]), -2.0)]  # B covers A
    p_ACa_A = np.array([radius_A, 0, 0])
    p_BCb_B = R_AB.T @ np.array([-radius_B, 0, 0])
    return [Data(Sphere(radius_A), Sphere(radius_B), X_WA, X_WA @ pose(R_AB, p_ABo), p_ACa_A,
                 p_BCb_B, distance, name=f'{name} {distance}')
            for p_ABo, distance in configurations]


def gen_sphere_sphere_non_aligned(X_WA: FloatArray | None = None,
                                  R_WB: FloatArray | None = None,
                                  name: str = 'SphereSphreNonAligned') -> list[Data]:
    X_WA = np.eye(4) if X_WA is None else X_WA
    R_WB = np.eye(3) if R_WB is None else R_WB
    radius_A = 2.25
    p_ACa, p_ABo = np.array([0.25, 1, 2]), np.array([1.0, 4, 8])
    X_AB = pose(X_WA[:3, :3].T @ R_WB, p_ABo)
    p_BCb = apply(inverse(X_AB), np.zeros(3))  # Cb = Ao
    return [Data(Sphere(radius_A), Sphere(9.0), X_WA, X_WA @ X_AB, p_ACa, p_BCb, -radius_A,
                 name=name)]


def gen_sphere_box(R_WA: FloatArray | None = None, X_WB: FloatArray | None = None,
                   name: str = 'SphereBox') -> list[Data]:
    R_WA = np.eye(3) if R_WA is None else R_WA
    X_WB = np.eye(4) if X_WB is None else X_WB
    radius, half_x = 2.0, 8.0
    configurations = [(14, 4.0), (10, 0.0), (9, -1.0), (8, -2.0), (7, -3.0), (6, -4.0),
                      (5, -5.0)]
    p_BCb = np.array([half_x, 0, 0])
    out = []
    for x, distance in configurations:
        p_BAo = np.array([float(x), 0, 0])
        X_WA = pose(R_WA, apply(X_WB, p_BAo))
        X_AB = inverse(X_WA) @ X_WB
        p_ACa = apply(X_AB, p_BAo + np.array([-radius, 0, 0]))
        out.append(Data(Sphere(2.0), Box(16.0, 12.0, 8.0), X_WA, X_WB, p_ACa, p_BCb, distance,
                        name=f'{name} {distance}'))
    return out


def gen_sphere_box_boundary(R_WA: FloatArray | None = None, X_WB: FloatArray | None = None,
                            name: str = 'SphereBoxBoundary') -> list[Data]:
    R_WA = np.eye(3) if R_WA is None else R_WA
    X_WB = np.eye(4) if X_WB is None else X_WB
    radius_A = 2.0
    half_B = np.array([8.0, 6.0, 4.0])
    out = []
    for sx in (-1, 0, 1):
        for sy in (-1, 0, 1):
            for sz in (-1, 0, 1):
                if sx == sy == sz == 0:
                    continue
                sign_B = np.array([sx, sy, sz], dtype=float)
                p_BAo = sign_B * half_B
                X_WA = pose(R_WA, apply(X_WB, p_BAo))
                sign_A = R_WA.T @ X_WB[:3, :3] @ sign_B
                p_ACa = -radius_A * sign_A / np.linalg.norm(sign_A)
                out.append(Data(Sphere(radius_A), Box(16.0, 12.0, 8.0), X_WA, X_WB, p_ACa,
                                p_BAo, -radius_A, name=f'{name} {sx} {sy} {sz}'))
    return out


def gen_sphere_capsule(R_WA: FloatArray | None = None, X_WB: FloatArray | None = None,
                       name: str = 'SphereCapsule') -> list[Data]:
    R_WA = np.eye(3) if R_WA is None else R_WA
    X_WB = np.eye(4) if X_WB is None else X_WB
    radius_A = 2.0
    half_length = 16.0 / 2 + 6.0
    distances = [radius_A * 2, 0.0, -radius_A * 0.5, -radius_A, -radius_A * 1.5,
                 -radius_A * 2, -radius_A * 2.5]
    p_BCb = np.array([0.0, 0, half_length])
    out = []
    for distance in distances:
        p_BAo = np.array([0.0, 0, distance + half_length + radius_A])
        X_WA = pose(R_WA, apply(X_WB, p_BAo))
        p_ACa = apply(inverse(X_WA) @ X_WB, p_BAo + np.array([0.0, 0, -radius_A]))
        out.append(Data(Sphere(radius_A), Capsule(6.0, 16.0), X_WA, X_WB, p_ACa, p_BCb,
                        distance, name=f'{name} {distance}'))
    return out


def gen_sphere_cylinder(R_WA: FloatArray | None = None, X_WB: FloatArray | None = None,
                        name: str = 'SphereCylinder') -> list[Data]:
    R_WA = np.eye(3) if R_WA is None else R_WA
    X_WB = np.eye(4) if X_WB is None else X_WB
    radius_A, half_length = 2.0, 8.0
    configurations = [(14, 4.0), (10, 0.0), (9, -1.0), (8, -2.0), (7, -3.0), (6, -4.0),
                      (5, -5.0)]
    p_BCb = np.array([0.0, 0, half_length])
    out = []
    for z, distance in configurations:
        p_BAo = np.array([0.0, 0, float(z)])
        X_WA = pose(R_WA, apply(X_WB, p_BAo))
        p_ACa = apply(inverse(X_WA) @ X_WB, p_BAo + np.array([0.0, 0, -radius_A]))
        out.append(Data(Sphere(radius_A), Cylinder(12.0, 16.0), X_WA, X_WB, p_ACa, p_BCb,
                        distance, name=f'{name} {distance}'))
    return out


def gen_sphere_cylinder_boundary(R_WA: FloatArray | None = None,
                                 X_WB: FloatArray | None = None,
                                 name: str = 'SphereCylinderBoundary') -> list[Data]:
    R_WA = np.eye(3) if R_WA is None else R_WA
    X_WB = np.eye(4) if X_WB is None else X_WB
    r_A, r_B, h = 4.0, 8.0, 8.0
    out = []
    for i in (-2, -1, 0, 1, 2):
        for j in (-2, -1, 0, 1, 2):
            for k in (-2, -1, 0, 1, 2):
                u, v, w = i / 2, j / 2, k / 2
                if abs(u) != 1 and abs(v) != 1 and abs(w) != 1:
                    continue  # interior points
                s = np.array([u, v])
                if u == 0 and v == 0:
                    d = np.zeros(2)
                elif abs(u) >= abs(v):
                    d = abs(u) * s / np.linalg.norm(s)
                else:
                    d = abs(v) * s / np.linalg.norm(s)
                p_BAo = np.array([r_B * d[0], r_B * d[1], w * h])
                X_WA = pose(R_WA, apply(X_WB, p_BAo))
                R_AB = R_WA.T @ X_WB[:3, :3]
                on_rim_or_barrel = abs(u) == 1 or abs(v) == 1
                if on_rim_or_barrel and abs(w) == 1:  # the circular edges
                    e = np.array([d[0], d[1], w])
                    p_AoCa_B = -r_A * e / np.linalg.norm(e)
                elif on_rim_or_barrel:  # the barrel
                    p_AoCa_B = -r_A * np.array([d[0], d[1], 0.0])
                else:  # the caps
                    p_AoCa_B = -r_A * np.array([0.0, 0.0, w])
                out.append(Data(Sphere(r_A), Cylinder(r_B, 2 * h), X_WA, X_WB,
                                R_AB @ p_AoCa_B, p_BAo, -r_A, name=f'{name} {u} {v} {w}'))
    return out


def gen_halfspace_sphere() -> list[Data]:
    distance, radius = 0.25, 1.75
    X_WG1 = pose(rpy(math.pi / 3, math.pi / 6, math.pi / 2), [10, 11, 12])
    out = []
    for X_WH in (np.eye(4), X_WG1):
        nhat_HS_W = X_WH[:3, 2]
        p_HCh = np.array([1.25, 1.5, 0.0])
        p_WCh = apply(X_WH, p_HCh)
        p_SCs = -radius * nhat_HS_W  # R_WS is the identity
        for label, offset, d in (('outside', distance + radius, distance),
                                 ('boundary', radius, 0.0),
                                 ('inside', radius - distance, -distance)):
            X_WS = pose(p=p_WCh + offset * nhat_HS_W)
            data = Data(Sphere(radius), HalfSpace(), X_WS, X_WH, p_SCs, p_HCh, d, nhat_HS_W,
                        name=f'HalfspaceSphere {label}')
            out += [data, data.swapped()]
    return out


def _transform_a() -> tuple[FloatArray, FloatArray]:
    return (pose(rpy(5 * math.pi / 8, math.pi / 6, math.pi / 12), [1, 2, 3]),
            rpy(math.pi / 4, 5 * math.pi / 6, math.pi / 3))


DRAKE_X_WB = pose(rpy(3 * math.pi / 8, 5 * math.pi / 6, math.pi / 12), [1, 2, 3])

SIGNED_DISTANCE_PAIRS: list[Data] = [
    *gen_sphere_sphere(),
    *gen_sphere_sphere(*_transform_a(), name='SphereSphereTransform'),
    *gen_sphere_sphere(np.eye(4), rpy(math.pi / 6, math.pi / 2, math.pi / 6),
                       name='SphereSphereGimbalLock'),
    *gen_sphere_sphere_non_aligned(),
    *gen_sphere_sphere_non_aligned(pose(rpy(3 * math.pi / 8, 5 * math.pi / 6, math.pi / 12),
                                        [1, 2, 3]),
                                   rpy(math.pi, 5 * math.pi / 6, 7 * math.pi / 12),
                                   name='SphereSphreNonAlignedTransform'),
    *gen_sphere_box(),
    *gen_sphere_box(rpy(math.pi / 8, math.pi / 6, 2 * math.pi / 3), DRAKE_X_WB,
                    name='SphereBoxTransform'),
    *gen_sphere_box(rpy(math.pi / 8, math.pi / 2, math.pi / 8), np.eye(4),
                    name='SphereBoxGimbalLock'),
    *(d.swapped() for d in gen_sphere_box(name='BoxSphere')),
    *(d.swapped() for d in gen_sphere_box(rpy(math.pi / 8, math.pi / 6, 2 * math.pi / 3),
                                          DRAKE_X_WB, name='BoxSphereTransform')),
    *gen_sphere_box_boundary(),
    *gen_sphere_box_boundary(rpy(math.pi, math.pi / 6, math.pi / 3), DRAKE_X_WB,
                             name='SphereBoxBoundaryTransform'),
    *gen_sphere_capsule(),
    *gen_sphere_capsule(rpy(math.pi, math.pi / 6, math.pi / 3), DRAKE_X_WB,
                        name='SphereCapsuleTransform'),
    *gen_sphere_cylinder(),
    *gen_sphere_cylinder(rpy(math.pi, math.pi / 6, math.pi / 3), DRAKE_X_WB,
                         name='SphereCylinderTransform'),
    *gen_sphere_cylinder_boundary(),
    *gen_sphere_cylinder_boundary(rpy(math.pi, math.pi / 6, math.pi / 3), DRAKE_X_WB,
                                  name='SphereCylinderBoundaryTransform'),
    *gen_halfspace_sphere(),
]


def _distance_pair(data: Data):  # type: ignore[no-untyped-def]
    objects = FclObjects([data.a, data.b])
    objects.set_poses(np.stack([data.X_WA, data.X_WB]))
    (result,) = objects.distance_pairs(np.array([[0, 1]]))
    return result


# drake distance_to_shape_callback_test.cc, TEST_P(SignedDistancePairTest, SinglePair), with
# every INSTANTIATE_TEST_SUITE_P data set (SphereSphere ... HalfspaceSphere)
@pytest.mark.parametrize('data', SIGNED_DISTANCE_PAIRS, ids=[d.name for d in
                                                              SIGNED_DISTANCE_PAIRS])
def test_signed_distance_pair(data: Data) -> None:
    result = _distance_pair(data)
    assert abs(result.distance - data.distance) <= K_TOLERANCE, 'incorrect signed distance'
    np.testing.assert_allclose(result.p_ACa, data.p_ACa, atol=K_TOLERANCE, rtol=0)
    np.testing.assert_allclose(result.p_BCb, data.p_BCb, atol=K_TOLERANCE, rtol=0)
    p_ACb = apply(inverse(data.X_WA), apply(data.X_WB, result.p_BCb))  # X_AW * (X_WB * p_BCb)
    # The invariance combines four rounded transforms of points ~10 m from the origin: at
    # 2 kTolerance (the distance and both witnesses above are at Drake's kTolerance).
    assert abs(np.linalg.norm(result.p_ACa - p_ACb) - abs(result.distance)) <= 2 * K_TOLERANCE
    if np.any(data.nhat_BA_W):  # only the half-space data give a normal
        np.testing.assert_allclose(result.nhat_BA_W, data.nhat_BA_W, atol=K_TOLERANCE, rtol=0)


def gen_sphere_sphere_concentric(X_WA: FloatArray | None = None,
                                 R_WB: FloatArray | None = None) -> list[Data]:
    X_WA = np.eye(4) if X_WA is None else X_WA
    R_WB = np.eye(3) if R_WB is None else R_WB
    out = []
    for radius_A, radius_B in ((1.0, 1.0), (0.5, 2.0), (0.3, 0.7), (0.7, 0.7), (3.0, 7.0),
                               (7.0, 7.0)):
        X_WB = pose(R_WB, X_WA[:3, 3])
        out.append(Data(Sphere(radius_A), Sphere(radius_B), X_WA, X_WB, np.zeros(3),
                        np.zeros(3), -radius_A - radius_B))
    return out


def gen_sphere_box_concentric(X_WA: FloatArray | None = None,
                              R_WB: FloatArray | None = None) -> list[Data]:
    X_WA = np.eye(4) if X_WA is None else X_WA
    R_WB = np.eye(3) if R_WB is None else R_WB
    return [Data(Sphere(2.0), Box(4.0, 8.0, 16.0), X_WA, pose(R_WB, X_WA[:3, 3]), np.zeros(3),
                 np.zeros(3), -2.0 - 2.0)]


CONCENTRIC_X_WA = pose(rpy(math.pi / 4, math.pi / 2, math.pi), [1, 2, 3])
CONCENTRIC_R_WB = rpy(math.pi, math.pi / 6, math.pi)
CONCENTRIC: list[Data] = [
    *gen_sphere_sphere_concentric(),
    *gen_sphere_sphere_concentric(CONCENTRIC_X_WA, CONCENTRIC_R_WB),
    *gen_sphere_sphere_concentric(np.eye(4), rpy(math.pi, math.pi / 2, math.pi)),
    *gen_sphere_box_concentric(),
    *gen_sphere_box_concentric(CONCENTRIC_X_WA, CONCENTRIC_R_WB),
]


# drake distance_to_shape_callback_test.cc, TEST_P(SignedDistancePairConcentricTest,
# DistanceInvariance), with SphereSphereConcentric(+Transform, +GimbalLock) and
# SphereBoxConcentric(+Transform)
@pytest.mark.parametrize('data', CONCENTRIC, ids=[f'concentric {i}' for i in
                                                   range(len(CONCENTRIC))])
def test_signed_distance_pair_concentric(data: Data) -> None:
    result = _distance_pair(data)
    assert abs(result.distance - data.distance) <= K_TOLERANCE
    p_ACb = apply(inverse(data.X_WA), apply(data.X_WB, result.p_BCb))
    assert abs(np.linalg.norm(result.p_ACa - p_ACb) + result.distance) <= 2 * K_TOLERANCE


# drake distance_to_shape_callback_test.cc, GTEST_TEST(SignedDistancePairError,
# HalfspaceException): Drake throws "Signed distance queries between shapes .* and .* are not
# supported" for a box and a half-space. decisions.md G-5: we answer it (closed form from the
# support point).
def test_halfspace_box_signed_distance_is_answered() -> None:
    box = Box(0.5, 0.25, 0.75)
    objects = FclObjects([box, HalfSpace()])
    objects.set_poses(np.stack([pose(p=[0.0, 0.0, 0.3]), np.eye(4)]))
    (result,) = objects.distance_pairs(np.array([[0, 1]]))
    assert result.distance == pytest.approx(0.3 - 0.375, abs=1e-15)
    np.testing.assert_allclose(result.nhat_BA_W, [0.0, 0.0, 1.0], atol=1e-15)



def test_two_half_spaces_are_refused_by_every_pair_query() -> None:
    """Decision G-14: a pair of two half-spaces is refused, HasCollisions included.

    Drake refuses it for contacts (``geometry/proximity/penetration_as_point_pair_callback.cc``,
    ``ScalarSupport<double>::is_supported``: "We can't meaningfully collide two half spaces")
    and signed distances, but ``HasCollisions`` (``collisions_exist_callback.cc``,
    ``Callback``) hands any pair to ``fcl::collide`` (``enable_contact = false``) and returns
    its verdict. That verdict is not the geometry's: for anti-parallel half-spaces fcl
    (``halfspaceIntersect``) answers "colliding" for ``z <= 0`` and ``z >= 1``, which are
    apart, and "apart" for ``z <= 0`` and ``z >= -1``, which overlap; asked for contacts it
    answers "apart" for every pair.
    """
    import fcl

    objects = FclObjects([HalfSpace(), HalfSpace()])
    tilted = pose(p=[0.0, 0.0, 1.0])
    tilted[:3, :3] = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]
    objects.set_poses(np.stack([np.eye(4), tilted]))
    for query in (objects.any_collision, objects.colliding_pairs):
        with pytest.raises(InvalidArgumentError, match='two half-spaces'):
            query(np.array([[0, 1]]))

    def fcl_verdict(d: float, contacts: bool = False) -> int:
        """The fcl verdict on ``{z <= 0}`` and ``{-z <= d}`` (fcl: ``n . x <= d``)."""
        below = fcl.CollisionObject(fcl.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0))
        above = fcl.CollisionObject(fcl.Halfspace(np.array([0.0, 0.0, -1.0]), d))
        return int(fcl.collide(below, above, fcl.CollisionRequest(enable_contact=contacts),
                               fcl.CollisionResult()))

    assert fcl_verdict(-1.0) == 1  # {z <= 0} and {z >= 1}: apart
    assert fcl_verdict(1.0) == 0  # {z <= 0} and {z >= -1}: they overlap in -1 <= z <= 0
    assert fcl_verdict(1.0, contacts=True) == fcl_verdict(-1.0, contacts=True) == 0

# ------------------------------------------------------------------------------------------
# penetration_as_point_pair_characterize_test.cc

K_DISTANCE = 2e-3  # CharacterizeResultTest::kDistance: the 2 mm depth characterized


def _capsule(alt: bool = False) -> Capsule:
    return Capsule(K_DISTANCE * 19, K_DISTANCE * 100) if alt else \
        Capsule(K_DISTANCE * 100, K_DISTANCE * 51)


def _ellipsoid(alt: bool = False) -> Ellipsoid:
    return Ellipsoid(K_DISTANCE * 35, K_DISTANCE * 100, K_DISTANCE * 68) if alt else \
        Ellipsoid(K_DISTANCE * 47, K_DISTANCE * 26, K_DISTANCE * 100)


def _sphere(alt: bool = False) -> Sphere:
    return Sphere(K_DISTANCE * 100)


# (shape A, shape B, Drake's characterized precision): SELF_CHARACTERIZE_TEST and
# CHARACTERIZE_TEST lines of the file, verbatim.
CHARACTERIZED = [
    ('capsule-capsule', _capsule(), _capsule(True), 2e-5),
    ('capsule-ellipsoid', _capsule(), _ellipsoid(), 2e-4),
    ('capsule-sphere', _capsule(), _sphere(), 3e-15),
    ('ellipsoid-ellipsoid', _ellipsoid(), _ellipsoid(True), 5e-4),
    ('ellipsoid-sphere', _ellipsoid(), _sphere(), 2e-4),
    ('sphere-sphere', _sphere(), _sphere(True), 3e-15),
]


@pytest.mark.parametrize(('name', 'A', 'B', 'precision'), CHARACTERIZED,
                         ids=[c[0] for c in CHARACTERIZED])
def test_characterized_penetration_precision(name: str, A: Shape, B: Shape,
                                             precision: float) -> None:
    """Our depth at Drake's 2 mm overlap is at least as precise as Drake's characterization.

    Drake's configurations are replaced by random relative poses with a 2 mm overlap along a
    random direction; the reference depth comes from the independent support-function oracle
    (``test/support_function_oracle.py``).
    """
    from support_function_oracle import penetration, Posed, random_rotation
    from support_function_oracle import pose as make_pose

    rng = np.random.default_rng(sum(map(ord, name)))
    objects = FclObjects([A, B])
    pair = np.array([[0, 1]])
    checked = 0
    while checked < 4:
        X_WA = make_pose(random_rotation(rng), rng.uniform(-1.0, 1.0, 3))
        R_WB = random_rotation(rng)
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        at_A = make_pose(R_WB, X_WA[:3, 3])
        reach = float(Posed(A, X_WA).h(u[None])[0] + Posed(B, at_A).h(-u[None])[0])
        X_WB = make_pose(R_WB, X_WA[:3, 3] + (reach - K_DISTANCE) * u)  # 2 mm overlap along u
        reference = penetration(Posed(A, X_WA), Posed(B, X_WB)).depth
        if reference <= 0.0:  # apart along another direction: not a penetration case
            continue
        checked += 1
        objects.set_poses(np.stack([X_WA, X_WB]))
        (contact,) = objects.collide_pairs(pair)
        assert abs(contact.depth - reference) <= precision, (name, contact.depth, reference)
