"""Proximity-query result types and the pure-numpy helpers behind them (no fcl import).

Result types use Drake's field names and conventions (design study B3):

* :class:`PenetrationAsPointPair` (contacts): ``p_WCa`` is the point of A deepest inside B,
  ``p_WCb`` the point of B deepest inside A, ``nhat_BA_W`` the unit normal pointing **out of B
  into A**, ``depth >= 0``; hence ``p_WCb = p_WCa + depth * nhat_BA_W``. Translating A by
  ``depth * nhat_BA_W`` separates the two geometries.
* :class:`SignedDistancePair` (closest points): ``distance`` is negative when the geometries
  overlap; ``nhat_BA_W`` again points from B towards A, and
  ``p_WCa = p_WCb + distance * nhat_BA_W`` in both the separated and the penetrating case.
  ``p_ACa``/``p_BCb`` are the witness points in the geometry frames A and B (Drake); the world
  versions are kept as well (``p_WCa``/``p_WCb``) because MoveIt reports world points.
* :class:`SignedDistanceToPoint`: ``p_GN`` the nearest point on G's surface in G's frame,
  ``grad_W`` the unit gradient of G's signed distance field at the query point.

Ids (``id_A``, ``id_B``, ``id_G``) are plain ints: the registry's ``GeometryId`` (a ``NewType`` of
``int``) or any index a caller chooses. Names are resolved only when reporting, by callers.

The helpers here are shared by the fcl backend and anything else that wants them without fcl:
axis-aligned bounding boxes of shapes (local and world), AABB overlap/gap tests over pair
lists, support points (used for half-space queries, which python-fcl cannot answer), and
closed-form point signed distances for the primitive shapes. Each shape's own formulas are in
its module (:mod:`robot_state_core.geometry.shapes`); the functions here pick the module and
pose the result. The triangle-soup helpers live in :mod:`robot_state_core.geometry.triangles`
and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.shapes import module_of, Shape
from robot_state_core.geometry.shapes._common import LocalSupport, Vec3
from robot_state_core.geometry.triangles import (
    closest_point_on_triangles,
    TriangleSoup,
    winding_number,
)

__all__ = [
    'ContactSummary',
    'PenetrationAsPointPair',
    'SignedDistancePair',
    'SignedDistanceToPoint',
    'TriangleSoup',
    'aabb_overlaps',
    'as_vec3',
    'check_pairs',
    'closest_point_on_triangles',
    'local_aabb',
    'point_signed_distance_primitive',
    'segment_closest_points',
    'support_mapping',
    'support_point',
    'winding_number',
]


def as_vec3(value: ArrayLike, name: str) -> FloatArray:
    """A read-only float64 copy of a 3-vector; ``InvalidArgumentError`` naming ``name`` if not."""
    out = np.array(value, dtype=np.float64).reshape(-1)
    if out.shape != (3,):
        raise InvalidArgumentError(f'{name}: expected a 3-vector, got shape {np.shape(value)}')
    out.setflags(write=False)
    return out


def _same(a: FloatArray, b: FloatArray) -> bool:
    return bool(np.array_equal(a, b))


@dataclass(frozen=True, slots=True, eq=False)
class PenetrationAsPointPair:
    """One contact between two penetrating geometries A and B (Drake semantics).

    Attributes:
        id_A: Id of geometry A.
        id_B: Id of geometry B.
        p_WCa: (3,) point of A deepest inside B, world frame [m].
        p_WCb: (3,) point of B deepest inside A, world frame [m].
        nhat_BA_W: (3,) unit normal pointing out of B into A, world frame.
        depth: Penetration depth ``>= 0`` [m]; ``p_WCb = p_WCa + depth * nhat_BA_W``.
    """

    id_A: int  # noqa: N815 (Drake monogram names, design B5)
    id_B: int  # noqa: N815 (Drake monogram names, design B5)
    p_WCa: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    p_WCb: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    nhat_BA_W: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    depth: float

    def __post_init__(self) -> None:
        object.__setattr__(self, 'p_WCa', as_vec3(self.p_WCa, 'p_WCa'))
        object.__setattr__(self, 'p_WCb', as_vec3(self.p_WCb, 'p_WCb'))
        object.__setattr__(self, 'nhat_BA_W', as_vec3(self.nhat_BA_W, 'nhat_BA_W'))
        object.__setattr__(self, 'depth', float(self.depth))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PenetrationAsPointPair):
            return NotImplemented
        return (self.id_A == other.id_A and self.id_B == other.id_B
                and self.depth == other.depth and _same(self.p_WCa, other.p_WCa)
                and _same(self.p_WCb, other.p_WCb) and _same(self.nhat_BA_W, other.nhat_BA_W))

    __hash__ = None  # type: ignore[assignment]

    def swapped(self) -> PenetrationAsPointPair:
        """The same contact with A and B exchanged (Drake ``SwapAAndB``)."""
        return PenetrationAsPointPair(self.id_B, self.id_A, self.p_WCb, self.p_WCa,
                                      -self.nhat_BA_W, self.depth)


@dataclass(frozen=True, slots=True, eq=False)
class SignedDistancePair:
    """Signed distance and witness points between geometries A and B (Drake semantics).

    Attributes:
        id_A: Id of geometry A.
        id_B: Id of geometry B.
        p_ACa: (3,) witness point on A, in A's geometry frame [m].
        p_BCb: (3,) witness point on B, in B's geometry frame [m].
        distance: Signed distance [m]; negative when A and B overlap.
        nhat_BA_W: (3,) unit vector pointing from B towards A, world frame;
            ``p_WCa = p_WCb + distance * nhat_BA_W``.
        p_WCa: (3,) witness point on A, world frame [m].
        p_WCb: (3,) witness point on B, world frame [m].
    """

    id_A: int  # noqa: N815 (Drake monogram names, design B5)
    id_B: int  # noqa: N815 (Drake monogram names, design B5)
    p_ACa: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    p_BCb: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    distance: float
    nhat_BA_W: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    p_WCa: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    p_WCb: FloatArray  # noqa: N815 (Drake monogram names, design B5)

    def __post_init__(self) -> None:
        for name in ('p_ACa', 'p_BCb', 'nhat_BA_W', 'p_WCa', 'p_WCb'):
            object.__setattr__(self, name, as_vec3(getattr(self, name), name))
        object.__setattr__(self, 'distance', float(self.distance))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SignedDistancePair):
            return NotImplemented
        return (self.id_A == other.id_A and self.id_B == other.id_B
                and self.distance == other.distance
                and all(_same(getattr(self, n), getattr(other, n))
                        for n in ('p_ACa', 'p_BCb', 'nhat_BA_W', 'p_WCa', 'p_WCb')))

    __hash__ = None  # type: ignore[assignment]

    def swapped(self) -> SignedDistancePair:
        """The same result with A and B exchanged (Drake ``SwapAAndB``)."""
        return SignedDistancePair(self.id_B, self.id_A, self.p_BCb, self.p_ACa, self.distance,
                                  -self.nhat_BA_W, self.p_WCb, self.p_WCa)


@dataclass(frozen=True, slots=True, eq=False)
class SignedDistanceToPoint:
    """Signed distance from a query point Q to geometry G (Drake semantics).

    Attributes:
        id_G: Id of the geometry.
        p_GN: (3,) nearest point N on G's surface, in G's frame [m].
        distance: Signed distance from Q to G [m]; negative inside G.
        grad_W: (3,) unit gradient of G's signed distance at Q, world frame (points from N
            towards Q outside G, away from Q inside).
        p_WN: (3,) the nearest point N in the world frame [m].
    """

    id_G: int  # noqa: N815 (Drake monogram names, design B5)
    p_GN: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    distance: float
    grad_W: FloatArray  # noqa: N815 (Drake monogram names, design B5)
    p_WN: FloatArray  # noqa: N815 (Drake monogram names, design B5)

    def __post_init__(self) -> None:
        for name in ('p_GN', 'grad_W', 'p_WN'):
            object.__setattr__(self, name, as_vec3(getattr(self, name), name))
        object.__setattr__(self, 'distance', float(self.distance))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SignedDistanceToPoint):
            return NotImplemented
        return (self.id_G == other.id_G and self.distance == other.distance
                and all(_same(getattr(self, n), getattr(other, n))
                        for n in ('p_GN', 'grad_W', 'p_WN')))

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class ContactSummary:
    """A collision verdict with its contacts (the core of MoveIt's ``CollisionResult``).

    Attributes:
        collision: True when at least one checked pair is in contact.
        contacts: The reported contacts, at most ``max_contacts_per_pair`` per pair and
            ``total_max`` overall (MoveIt truncation).
        colliding_pairs: ``(id_A, id_B)`` of every pair with a reported contact, in report order.
        max_depth: The largest penetration depth among ``contacts`` [m] (0 when none).
        truncated: True when the total limit cut the search short; more pairs may collide.
    """

    collision: bool
    contacts: tuple[PenetrationAsPointPair, ...] = ()
    colliding_pairs: tuple[tuple[int, int], ...] = ()
    max_depth: float = 0.0
    truncated: bool = False

    @classmethod
    def from_contacts(cls, contacts: Sequence[PenetrationAsPointPair], *,
                      truncated: bool = False) -> ContactSummary:
        """Summarize a contact list (pairs kept in first-seen order)."""
        pairs = tuple(dict.fromkeys((c.id_A, c.id_B) for c in contacts))
        depth = max((c.depth for c in contacts), default=0.0)
        return cls(bool(contacts), tuple(contacts), pairs, depth, truncated)

    def contacts_by_pair(self) -> dict[tuple[int, int], list[PenetrationAsPointPair]]:
        """``{(id_A, id_B): [contacts]}`` (MoveIt's ``CollisionResult::contacts`` layout)."""
        out: dict[tuple[int, int], list[PenetrationAsPointPair]] = {}
        for c in self.contacts:
            out.setdefault((c.id_A, c.id_B), []).append(c)
        return out


def check_pairs(pairs: ArrayLike, n: int, where: str = 'pairs') -> IntArray:
    """Validate a candidate-pair list over ``n`` geometries.

    Args:
        pairs: (P, 2) geometry indices; each row ``(a, b)`` with ``a != b``.
        n: Number of geometries.
        where: Caller name used in error messages.

    Returns:
        The pairs as a read-only (P, 2) ``intp`` array.

    Raises:
        InvalidArgumentError: Wrong shape, non-integer, out of range or ``a == b``.
    """
    arr = np.asarray(pairs)
    if arr.size == 0:
        out = np.zeros((0, 2), dtype=np.intp)
        out.setflags(write=False)
        return out
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidArgumentError(f'{where}: pairs must have shape (P, 2), got {arr.shape}')
    if not np.issubdtype(arr.dtype, np.integer):
        raise InvalidArgumentError(f'{where}: pairs must be integer indices, got {arr.dtype}')
    if arr.min() < 0 or arr.max() >= n:
        raise InvalidArgumentError(f'{where}: pair index out of range [0, {n}): '
                                   f'min {arr.min()}, max {arr.max()}')
    if np.any(arr[:, 0] == arr[:, 1]):
        bad = arr[arr[:, 0] == arr[:, 1]][0]
        raise InvalidArgumentError(f'{where}: a geometry cannot be paired with itself: {bad}')
    out = arr.astype(np.intp, copy=True)
    out.setflags(write=False)
    return out


def local_aabb(shape: Shape, vertices: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """Axis-aligned bounding box of ``shape`` in its own frame G.

    Args:
        shape: The shape specification.
        vertices: (V, 3) vertices in G (scaled) for :class:`Mesh`/:class:`Convex`.

    Returns:
        ``(lo_G, hi_G)``, each (3,) [m]. A half-space gives ``(-inf, -inf, -inf)``,
        ``(inf, inf, 0)``.

    Raises:
        InvalidArgumentError: A mesh shape without ``vertices``, or not a shape.
    """
    out: tuple[FloatArray, FloatArray] = module_of(shape, 'local_aabb').local_aabb(shape,
                                                                                  vertices)
    return out


def aabb_overlaps(lo: FloatArray, hi: FloatArray, pairs: IntArray,
                  margin: float = 0.0) -> NDArray[np.bool_]:
    """Which pairs' AABBs overlap (touching counts), after inflating both by ``margin``.

    Args:
        lo: (G, 3) lower corners.
        hi: (G, 3) upper corners.
        pairs: (P, 2) geometry indices.
        margin: Inflation of each box [m].

    Returns:
        (P,) bool.
    """
    a, b = pairs[:, 0], pairs[:, 1]
    out: NDArray[np.bool_] = np.all((lo[a] - margin <= hi[b] + margin)
                                    & (lo[b] - margin <= hi[a] + margin), axis=1)
    return out


def support_mapping(shape: Shape, X_WG: FloatArray,
                    vertices: FloatArray | None = None) -> Callable[[Vec3], Vec3]:
    """The support mapping ``d_W -> argmax_{p in shape} d_W . p`` of a posed shape.

    Plain-float closures (no numpy per call) for the iterative convex queries, which call it
    hundreds of times per pair. Flat or round extremes give one of the extreme points,
    deterministically: a box corner with ``+h`` on axes where ``d`` is 0, a cylinder's cap
    centre for ``d`` along its axis, and so on (each shape module's ``support``).

    Args:
        shape: A bounded shape.
        X_WG: (4, 4) pose of the shape.
        vertices: (V, 3) vertices in G for :class:`Mesh`/:class:`Convex`.

    Returns:
        A function of the direction ``d_W`` (3 floats, need not be unit) returning the support
        point in the world [m] (3 floats).

    Raises:
        InvalidArgumentError: For a half-space (no support point) or a mesh without vertices.
    """
    module = module_of(shape, 'support_point')
    if not module.BOUNDED:
        raise InvalidArgumentError(
            f'support_point: {type(shape).__name__} has no support point')
    X = np.asarray(X_WG, dtype=np.float64)
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = X[:3, :3].tolist()
    tx, ty, tz = X[:3, 3].tolist()
    local: LocalSupport = module.support(shape, vertices)

    def world(d: Vec3) -> Vec3:
        dx, dy, dz = d
        x, y, z = local(r00 * dx + r10 * dy + r20 * dz, r01 * dx + r11 * dy + r21 * dz,
                        r02 * dx + r12 * dy + r22 * dz)
        return (r00 * x + r01 * y + r02 * z + tx, r10 * x + r11 * y + r12 * z + ty,
                r20 * x + r21 * y + r22 * z + tz)
    return world


def support_point(shape: Shape, X_WG: FloatArray, d_W: ArrayLike,
                  vertices: FloatArray | None = None) -> FloatArray:
    """A point of ``shape`` (posed at ``X_WG``) maximizing ``d_W · p_W``.

    Args:
        shape: A bounded shape.
        X_WG: (4, 4) pose of the shape.
        d_W: (3,) direction (need not be unit).
        vertices: (V, 3) vertices in G for :class:`Mesh`/:class:`Convex`.

    Returns:
        (3,) the support point in the world [m] (see :func:`support_mapping` for ties).

    Raises:
        InvalidArgumentError: For a half-space (no support point) or a mesh without vertices.
    """
    dx, dy, dz = (float(v) for v in np.asarray(d_W, dtype=np.float64).reshape(3))
    return np.array(support_mapping(shape, X_WG, vertices)((dx, dy, dz)))


def point_signed_distance_primitive(shape: Shape,
                                    p_GQ: FloatArray) -> tuple[float, FloatArray, FloatArray]:
    """Closed-form signed distance from a point to a primitive shape, in the shape's frame.

    Args:
        shape: :class:`Box`, :class:`Sphere`, :class:`Ellipsoid`, :class:`Cylinder`,
            :class:`Capsule`, :class:`Cone` or :class:`HalfSpace`.
        p_GQ: (3,) query point Q in G [m].

    Returns:
        ``(distance, p_GN, grad_G)``: signed distance (negative inside), nearest surface point
        N and the unit gradient, both in G. On a medial point (e.g. a sphere's centre) the
        gradient is one of the valid directions, chosen deterministically (each shape module's
        ``point_signed_distance``).

    Raises:
        InvalidArgumentError: For mesh shapes (use the backend).
    """
    module = module_of(shape, 'point_signed_distance_primitive')
    if module.MESH_FILE:
        raise InvalidArgumentError(
            f'point_signed_distance_primitive: {type(shape).__name__} is not a primitive')
    out: tuple[float, FloatArray, FloatArray] = module.point_signed_distance(
        shape, np.asarray(p_GQ, dtype=np.float64))
    return out


def segment_closest_points(p0: FloatArray, p1: FloatArray, q0: FloatArray,
                           q1: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Closest points between segments ``p0p1`` and ``q0q1``.

    Ericson, Real-Time Collision Detection, 5.1.9; zero-length segments are handled.

    Returns:
        ``(c_p, c_q)``: the closest point on each segment (one of them when not unique).
    """
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = float(d1 @ d1), float(d2 @ d2), float(d2 @ r)
    if a <= 1e-300 and e <= 1e-300:
        return p0.copy(), q0.copy()
    if a <= 1e-300:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = float(d1 @ r)
        if e <= 1e-300:
            s, t = min(max(-c / a, 0.0), 1.0), 0.0
        else:
            b = float(d1 @ d2)
            denom = a * e - b * b
            s = min(max((b * f - c * e) / denom, 0.0), 1.0) if denom > 0.0 else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t, s = 0.0, min(max(-c / a, 0.0), 1.0)
            elif t > 1.0:
                t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    return p0 + s * d1, q0 + t * d2
