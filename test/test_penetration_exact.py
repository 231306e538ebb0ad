"""Penetration depth is the minimum translation distance for every convex pair (issue 9, item 8).

The reference is the independent support-function oracle of ``support_function_oracle.py``:
``depth = min over unit n of h_A(n) + h_B(-n)``, minimized directly over the sphere of
directions. It shares no code with the backend's GJK/EPA. This is the bounded version of
``tools/penetration_table.py`` (3 random penetrating poses per pair instead of 200); the full
table is in ``docs/penetration_accuracy.md``.

Asserted for every pair of sphere, box, cylinder, capsule, ellipsoid, cone and a convex hull,
and each of them against a half-space, through ``FclObjects.distance_pairs`` and
``collide_pairs``: the depth matches the oracle, the reported normal is a minimizing direction
(its overlap equals the minimum), both witness points lie on their surfaces, and Drake's
identities ``p_WCa = p_WCb + distance * nhat_BA_W`` / ``p_WCb = p_WCa + depth * nhat_BA_W`` hold.
Two poses per pair with the shapes apart check the separation distance the same way (the
oracle's minimum is then minus the distance).
"""

from __future__ import annotations

import math
import zlib

import numpy as np
from penetration_harness import measure, pairs
import pytest
from support_function_oracle import Posed, surface_residual

from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.geometry.shapes import Box, Capsule, Cylinder, Shape

DEPTH_TOL = 1e-9  # achieved: <= 5e-12 m (docs/penetration_accuracy.md)
NORMAL_TOL = 1e-4  # rad; the normal of a smooth minimum is only sqrt(depth precision) sharp
POSES = 3
APART = 2
# Apart, a ruled side (cylinder, cone) against a curved surface leaves GJK's closest points
# free along the ruling to ~sqrt(2 d 1e-12): up to 3.4e-6 m measured
# (docs/penetration_accuracy.md).
APART_WITNESS_TOL = 1e-5


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def _query(A: Shape, B: Shape, X_WA: np.ndarray, X_WB: np.ndarray):  # type: ignore[no-untyped-def]
    objects = FclObjects([A, B])
    objects.set_poses(np.stack([X_WA, X_WB]))
    (distance,) = objects.distance_pairs(np.array([[0, 1]]))
    (contact,) = objects.collide_pairs(np.array([[0, 1]]))
    return distance, contact


def test_issue_box_cylinder() -> None:
    """Issue 9: box 0.6x0.4x0.3 at the origin, cylinder r 0.25 l 0.7 turned by Rx(pi/2) Ry(0.5).

    The cylinder's axis lies in the x-y plane, so along z the box (half height 0.15) and the
    cylinder (radius 0.25 across its axis) overlap by exactly 0.4, the minimum over all
    directions. The backend used to report -0.803 with a normal 80 degrees off.
    """
    X_WB = np.eye(4)
    X_WB[:3, :3] = _rx(math.pi / 2) @ _ry(0.5)
    box, cylinder = Box(0.6, 0.4, 0.3), Cylinder(0.25, 0.7)
    distance, contact = _query(box, cylinder, np.eye(4), X_WB)
    assert distance.distance == pytest.approx(-0.4, abs=1e-12)
    assert contact.depth == pytest.approx(0.4, abs=1e-12)
    assert abs(distance.nhat_BA_W[2]) == pytest.approx(1.0, abs=1e-12)
    n = -distance.nhat_BA_W
    assert surface_residual(Posed(box, np.eye(4)), distance.p_WCa, n) <= 1e-12
    assert surface_residual(Posed(cylinder, X_WB), distance.p_WCb, -n) <= 1e-12


def test_issue_crossing_capsules() -> None:
    """Issue 9: two capsules r 0.2 crossing at their centres at right angles: depth 2 r = 0.4.

    The axes intersect, so the minimum translation is along their common normal (x here);
    the backend used to report -0.696.
    """
    X_WB = np.eye(4)
    X_WB[:3, :3] = _rx(math.pi / 2)
    capsule = Capsule(0.2, 0.8)
    distance, contact = _query(capsule, capsule, np.eye(4), X_WB)
    assert distance.distance == pytest.approx(-0.4, abs=1e-15)
    assert contact.depth == pytest.approx(0.4, abs=1e-15)
    assert abs(distance.nhat_BA_W[0]) == pytest.approx(1.0, abs=1e-15)


PAIRS = pairs()


@pytest.mark.parametrize(('name', 'A', 'B'), PAIRS, ids=[p[0] for p in PAIRS])
def test_depth_normal_and_witnesses_match_the_oracle(name: str, A: Shape, B: Shape) -> None:
    errors = measure(A, B, POSES, np.random.default_rng(zlib.crc32(name.encode())), peers=False,
                     apart=APART)
    assert errors.poses == POSES and errors.apart_poses == APART
    assert errors.depth <= DEPTH_TOL, errors
    assert errors.contact_depth <= DEPTH_TOL, errors
    assert errors.normal_excess <= DEPTH_TOL, errors
    assert errors.normal <= NORMAL_TOL, errors
    assert errors.witness <= DEPTH_TOL, errors
    assert errors.identity <= 1e-12, errors
    assert errors.distance <= DEPTH_TOL, errors  # apart: the separation distance
    assert errors.apart_witness <= APART_WITNESS_TOL, errors
