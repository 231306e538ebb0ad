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
closed-form point signed distances for the primitive shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cone,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)

Vec3 = tuple[float, float, float]

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
        InvalidArgumentError: A mesh shape without ``vertices``.
    """
    if isinstance(shape, Box):
        h = 0.5 * np.array([shape.x, shape.y, shape.z])
        return -h, h
    if isinstance(shape, Sphere):
        h = np.full(3, float(shape.radius))
        return -h, h
    if isinstance(shape, Ellipsoid):
        h = np.array([shape.a, shape.b, shape.c], dtype=np.float64)
        return -h, h
    if isinstance(shape, Cylinder | Cone):
        h = np.array([shape.radius, shape.radius, 0.5 * shape.length])
        return -h, h
    if isinstance(shape, Capsule):
        h = np.array([shape.radius, shape.radius, 0.5 * shape.length + shape.radius])
        return -h, h
    if isinstance(shape, HalfSpace):
        return np.full(3, -math.inf), np.array([math.inf, math.inf, 0.0])
    if isinstance(shape, Mesh | Convex):
        if vertices is None or len(vertices) == 0:
            raise InvalidArgumentError(f'local_aabb: mesh {shape.uri!r} needs its vertices')
        v = np.asarray(vertices, dtype=np.float64)
        return v.min(axis=0), v.max(axis=0)
    raise InvalidArgumentError(f'local_aabb: unsupported shape {type(shape).__name__}')


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
    centre for ``d`` along its axis, and so on.

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
    X = np.asarray(X_WG, dtype=np.float64)
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = X[:3, :3].tolist()
    tx, ty, tz = X[:3, 3].tolist()

    def world(d: Vec3, local: Callable[[float, float, float], Vec3]) -> Vec3:
        dx, dy, dz = d
        x, y, z = local(r00 * dx + r10 * dy + r20 * dz, r01 * dx + r11 * dy + r21 * dz,
                        r02 * dx + r12 * dy + r22 * dz)
        return (r00 * x + r01 * y + r02 * z + tx, r10 * x + r11 * y + r12 * z + ty,
                r20 * x + r21 * y + r22 * z + tz)

    local: Callable[[float, float, float], Vec3]
    if isinstance(shape, Box):
        hx, hy, hz = 0.5 * shape.x, 0.5 * shape.y, 0.5 * shape.z

        def local(x: float, y: float, z: float) -> Vec3:
            return (hx if x >= 0.0 else -hx, hy if y >= 0.0 else -hy, hz if z >= 0.0 else -hz)
    elif isinstance(shape, Sphere):
        r = float(shape.radius)

        def local(x: float, y: float, z: float) -> Vec3:
            n = math.sqrt(x * x + y * y + z * z)
            return (r * x / n, r * y / n, r * z / n) if n > 0.0 else (0.0, 0.0, r)
    elif isinstance(shape, Ellipsoid):  # maximizes d.p on p = D u, |u| = 1: u = D d / |D d|
        a, b, c = float(shape.a), float(shape.b), float(shape.c)

        def local(x: float, y: float, z: float) -> Vec3:
            n = math.sqrt((a * x) ** 2 + (b * y) ** 2 + (c * z) ** 2)
            return (a * a * x / n, b * b * y / n, c * c * z / n) if n > 0.0 else (0.0, 0.0, c)
    elif isinstance(shape, Capsule):  # end-cap centre plus the sphere's support point
        r, half = float(shape.radius), 0.5 * float(shape.length)

        def local(x: float, y: float, z: float) -> Vec3:
            n = math.sqrt(x * x + y * y + z * z)
            zc = half if z >= 0.0 else -half
            return (r * x / n, r * y / n, zc + r * z / n) if n > 0.0 else (0.0, 0.0, zc)
    elif isinstance(shape, Cylinder):  # a point on the rim of the end disc
        r, half = float(shape.radius), 0.5 * float(shape.length)

        def local(x: float, y: float, z: float) -> Vec3:
            rho = math.hypot(x, y)
            zc = half if z >= 0.0 else -half
            return (r * x / rho, r * y / rho, zc) if rho > 0.0 else (0.0, 0.0, zc)
    elif isinstance(shape, Cone):  # the apex or a point on the base rim
        r, half = float(shape.radius), 0.5 * float(shape.length)

        def local(x: float, y: float, z: float) -> Vec3:
            rho = math.hypot(x, y)
            rim = (r * x / rho, r * y / rho, -half) if rho > 0.0 else (0.0, 0.0, -half)
            if z * half >= x * rim[0] + y * rim[1] - z * half:
                return (0.0, 0.0, half)
            return rim
    elif isinstance(shape, Mesh | Convex):
        if vertices is None or len(vertices) == 0:
            raise InvalidArgumentError(f'support_point: mesh {shape.uri!r} needs its vertices')
        V = np.asarray(vertices, dtype=np.float64)

        def local(x: float, y: float, z: float) -> Vec3:
            p = V[int(np.argmax(V[:, 0] * x + V[:, 1] * y + V[:, 2] * z))]
            return (float(p[0]), float(p[1]), float(p[2]))
    else:
        raise InvalidArgumentError(
            f'support_point: {type(shape).__name__} has no support point')
    return lambda d: world(d, local)


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


def _distance_tolerance(size: float) -> float:
    """Drake's ``DistanceToPointRelativeTolerance``: ``1e-14 * max(1, size)`` [m]."""
    return 1e-14 * max(1.0, size)


def _sign(x: float) -> float:
    """Drake's ``Sign``: -1 for negative values, +1 otherwise (also for 0)."""
    return -1.0 if x < 0.0 else 1.0


def _box_sdf(h: FloatArray, p: FloatArray) -> tuple[float, FloatArray, FloatArray]:
    """Signed distance to the box ``[-h, h]`` (2-D or 3-D), Drake's conventions.

    A coordinate within Drake's relative tolerance of ``±h`` is on the boundary: the nearest
    point snaps to it, and a point on an edge or corner gets the normalized sum of the faces'
    normals as its gradient. Inside, the nearest face wins (ties: x, then y, then z; a zero
    coordinate counts as positive), as in Drake's ``ComputeDistanceToBox``.
    """
    C = p.copy()
    outside = False
    boundary = []
    for i in range(len(h)):
        tol = _distance_tolerance(float(h[i]))
        a = abs(float(p[i]))
        if a > h[i] + tol:
            outside = True
            C[i] = _sign(float(p[i])) * h[i]
        elif a >= h[i] - tol:
            boundary.append(i)
            C[i] = _sign(float(p[i])) * h[i]
    grad = np.zeros(len(h))
    if outside:
        diff = p - C
        dist = float(np.linalg.norm(diff))
        return dist, C, diff / dist
    if boundary:
        for i in boundary:
            grad[i] = _sign(float(C[i]))
        grad /= float(np.linalg.norm(grad))
        return float(grad @ (p - C)), C, grad
    axis = int(np.argmax(np.abs(p) - h))
    sign = _sign(float(p[axis]))
    C[axis] = sign * h[axis]
    grad[axis] = sign
    return float(grad @ (p - C)), C, grad


def _radial(p: FloatArray) -> tuple[float, FloatArray]:
    """Distance from the z axis and the unit radial direction (x axis on the axis)."""
    rho = math.hypot(p[0], p[1])
    if rho > 0.0:
        return rho, np.array([p[0] / rho, p[1] / rho, 0.0])
    return 0.0, np.array([1.0, 0.0, 0.0])


def _segment_closest(a: FloatArray, b: FloatArray, p: FloatArray) -> FloatArray:
    ab = b - a
    length2 = float(ab @ ab)
    t = float(np.clip((p - a) @ ab / length2, 0.0, 1.0)) if length2 > 0.0 else 0.0  # a point
    out: FloatArray = a + t * ab
    return out


def _polygon2_sdf(edges: Sequence[tuple[FloatArray, FloatArray]], inside: bool,
                  q: FloatArray) -> tuple[float, FloatArray]:
    """Signed distance in the (rho, z) half-plane to a solid of revolution's profile edges."""
    best, N = math.inf, q
    for a, b in edges:
        c = _segment_closest(a, b, q)
        d = float(np.linalg.norm(q - c))
        if d < best:
            best, N = d, c
    return (-best if inside else best), N


def _eberly_root(ratios: tuple[float, ...], z: tuple[float, ...], g: float) -> float:
    """Root ``s`` of ``sum_i (r_i z_i / (s + r_i))^2 + (z_k / (s + 1))^2 = 1`` (Eberly 2013).

    ``ratios`` are the ``r_i`` of the first ``k`` axes (1 or 2: ellipse or ellipsoid), ``z`` the
    ``k + 1`` scaled coordinates. The left side decreases in ``s`` on the bracket
    ``[z_k - 1, |(r_i z_i, z_k)| - 1]`` (upper end 0 for a point inside, ``g < 0``), so halving it
    until the midpoint repeats ends in at most ~1100 steps.
    """
    n = tuple(r * zi for r, zi in zip(ratios, z, strict=False))
    zk = z[-1]
    s0, s1 = zk - 1.0, (0.0 if g < 0.0 else math.hypot(*n, zk) - 1.0)
    s = s0
    for _ in range(1200):
        s = 0.5 * (s0 + s1)
        if s in (s0, s1):
            break
        value = (n[0] / (s + ratios[0])) ** 2
        for ni, ri in zip(n[1:], ratios[1:], strict=True):
            value += (ni / (s + ri)) ** 2
        value = value + (zk / (s + 1.0)) ** 2 - 1.0
        if value > 0.0:
            s0 = s
        elif value < 0.0:
            s1 = s
        else:
            break
    return s


def _ellipse_nearest(e0: float, e1: float, y0: float, y1: float) -> tuple[float, float]:
    """Nearest point of the ellipse ``(x0/e0)^2 + (x1/e1)^2 = 1`` to ``(y0, y1)``.

    Requires ``e0 >= e1 > 0`` and ``y0, y1 >= 0`` (first quadrant); Eberly (2013), for points
    inside or outside.
    """
    if y1 > 0.0:
        if y0 > 0.0:
            z0, z1 = y0 / e0, y1 / e1
            g = z0 * z0 + z1 * z1 - 1.0
            if g == 0.0:
                return y0, y1
            r0 = (e0 / e1) ** 2
            s = _eberly_root((r0,), (z0, z1), g)
            return r0 * y0 / (s + r0), y1 / (s + 1.0)
        return 0.0, e1
    numer, denom = e0 * y0, e0 * e0 - e1 * e1
    if numer < denom:  # on the major axis, inside the evolute: off-axis nearest point
        t = numer / denom
        return e0 * t, e1 * math.sqrt(max(0.0, 1.0 - t * t))
    return e0, 0.0


def _ellipsoid_nearest(e: FloatArray, y: FloatArray) -> FloatArray:
    """Nearest point of the ellipsoid with semi-axes ``e`` (sorted descending) to ``y >= 0``."""
    e0, e1, e2 = (float(v) for v in e)
    y0, y1, y2 = (float(v) for v in y)
    if y2 > 0.0:
        if y1 > 0.0:
            if y0 > 0.0:
                z = (y0 / e0, y1 / e1, y2 / e2)
                g = z[0] ** 2 + z[1] ** 2 + z[2] ** 2 - 1.0
                if g == 0.0:
                    return np.array([y0, y1, y2])
                r0, r1 = (e0 / e2) ** 2, (e1 / e2) ** 2
                s = _eberly_root((r0, r1), z, g)
                return np.array([r0 * y0 / (s + r0), r1 * y1 / (s + r1), y2 / (s + 1.0)])
            x1, x2 = _ellipse_nearest(e1, e2, y1, y2)
            return np.array([0.0, x1, x2])
        if y0 > 0.0:
            x0, x2 = _ellipse_nearest(e0, e2, y0, y2)
            return np.array([x0, 0.0, x2])
        return np.array([0.0, 0.0, e2])
    d0, d1 = e0 * e0 - e2 * e2, e1 * e1 - e2 * e2
    n0, n1 = e0 * y0, e1 * y1
    if n0 < d0 and n1 < d1:  # in the plane of the two larger axes, inside the evolute
        t0, t1 = n0 / d0, n1 / d1
        discr = 1.0 - t0 * t0 - t1 * t1
        if discr > 0.0:
            return np.array([e0 * t0, e1 * t1, e2 * math.sqrt(discr)])
    x0, x1 = _ellipse_nearest(e0, e1, y0, y1)
    return np.array([x0, x1, 0.0])


def _ellipsoid_sdf(axes: FloatArray, p: FloatArray) -> tuple[float, FloatArray, FloatArray]:
    """Exact signed distance to an ellipsoid (nearest point by Eberly's bisection)."""
    sign = np.where(p < 0.0, -1.0, 1.0)
    order = np.argsort(-axes, kind='stable')
    x = np.empty(3)
    x[order] = _ellipsoid_nearest(axes[order], np.abs(p)[order])
    N = sign * x
    diff = p - N
    dist = float(np.linalg.norm(diff))
    inside = float(np.sum((p / axes) ** 2)) < 1.0
    if dist > 0.0:
        grad = -diff / dist if inside else diff / dist
    else:  # on the surface: the outward normal there
        n = N / (axes * axes)
        grad = n / float(np.linalg.norm(n))
    return (-dist if inside else dist), N, grad


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
        gradient is one of the valid directions, chosen deterministically.

    Raises:
        InvalidArgumentError: For mesh shapes (use the backend).
    """
    p = np.asarray(p_GQ, dtype=np.float64)
    if isinstance(shape, Sphere):
        return _sphere_sdf(float(shape.radius), p)
    if isinstance(shape, Box):
        return _box_sdf(0.5 * np.array([shape.x, shape.y, shape.z]), p)
    if isinstance(shape, Ellipsoid):
        return _ellipsoid_sdf(np.array([shape.a, shape.b, shape.c], dtype=np.float64), p)
    if isinstance(shape, HalfSpace):
        return float(p[2]), np.array([p[0], p[1], 0.0]), np.array([0.0, 0.0, 1.0])
    if isinstance(shape, Capsule):  # Drake: an end cap's sphere, or the spine's cross section
        half = 0.5 * shape.length
        if abs(p[2]) >= half:
            c = np.array([0.0, 0.0, half if p[2] >= half else -half])
            dist, N, u = _sphere_sdf(float(shape.radius), p - c)
            return dist, c + N, u
        dist, N, u = _sphere_sdf(float(shape.radius), np.array([p[0], p[1], 0.0]))
        return dist, np.array([N[0], N[1], p[2]]), u
    if isinstance(shape, Cylinder):  # Drake: the 2-D box of the cross section through Q
        rho = math.hypot(p[0], p[1])
        e_r = np.array([1.0, 0.0, 0.0]) if rho < _distance_tolerance(shape.radius) else \
            np.array([p[0] / rho, p[1] / rho, 0.0])
        _, N2, g2 = _box_sdf(np.array([shape.radius, 0.5 * shape.length]),
                             np.array([rho, p[2]]))
        p_GN = N2[0] * e_r + np.array([0.0, 0.0, N2[1]])
        grad = g2[0] * e_r + np.array([0.0, 0.0, g2[1]])
        return float(grad @ (p - p_GN)), p_GN, grad
    if isinstance(shape, Cone):
        rho, e_r = _radial(p)
        q = np.array([rho, p[2]])
        half, r = 0.5 * shape.length, shape.radius
        edges = [(np.array([0.0, -half]), np.array([r, -half])),
                 (np.array([r, -half]), np.array([0.0, half]))]
        inside = p[2] >= -half and rho * shape.length <= r * (half - p[2])
        dist, N2 = _polygon2_sdf(edges, inside, q)
        p_GN = N2[0] * e_r + np.array([0.0, 0.0, N2[1]])
        diff = p - p_GN
        n = float(np.linalg.norm(diff))
        if n > 0.0:
            grad = diff / n if not inside else -diff / n
        else:  # on the surface: the outward normal(s) of the profile edge(s) there
            grad = _profile_normal(edges, N2, e_r)
        return dist, p_GN, grad
    raise InvalidArgumentError(
        f'point_signed_distance_primitive: {type(shape).__name__} is not a primitive')


def _profile_normal(edges: Sequence[tuple[FloatArray, FloatArray]], N2: FloatArray,
                    e_r: FloatArray) -> FloatArray:
    """Outward normal at a profile point: the normalized sum over the edges through it."""
    n2 = np.zeros(2)
    for a, b in edges:
        t = b - a
        length = float(np.linalg.norm(t))
        if length > 0.0 and np.linalg.norm(_segment_closest(a, b, N2) - N2) <= 1e-15:
            n2 += np.array([t[1], -t[0]]) / length  # outward for CCW order (a point: none)
    norm = float(np.linalg.norm(n2))
    if norm == 0.0:
        return e_r
    n2 /= norm
    out: FloatArray = n2[0] * e_r + np.array([0.0, 0.0, n2[1]])
    return out


def _sphere_sdf(radius: float, p: FloatArray) -> tuple[float, FloatArray, FloatArray]:
    """Drake's sphere distance: gradient ``p/|p|``, or +x within the tolerance of the centre."""
    n = float(np.linalg.norm(p))
    u = p / n if n > _distance_tolerance(radius) else np.array([1.0, 0.0, 0.0])
    N = radius * u
    return float((p - N) @ u), N, u


@dataclass(frozen=True, slots=True, eq=False)
class TriangleSoup:
    """Per-triangle data precomputed for point queries (see :func:`closest_point_on_triangles`).

    Attributes:
        corners: (3, F, 3) the triangles' corners a, b, c.
        edges: (3, F, 3) edge vectors b - a, c - b, a - c.
        edge_sq: (3, F) their squared lengths.
        inward: (3, F, 3) ``n x edge``: a point q is on the inner side of edge k when
            ``(q - corner_k) . inward_k >= 0``.
        normal: (F, 3) unnormalized normals ``(b - a) x (c - a)``.
        normal_sq: (F,) their squared lengths (0 for degenerate triangles).
        centroid: (F, 3) centroids, and ``radius`` (F,) bounding-sphere radii, for culling.
    """

    corners: FloatArray
    edges: FloatArray
    edge_sq: FloatArray
    inward: FloatArray
    normal: FloatArray
    normal_sq: FloatArray
    centroid: FloatArray
    radius: FloatArray

    @classmethod
    def build(cls, vertices: FloatArray, faces: NDArray[np.integer]) -> TriangleSoup:
        """Precompute from (V, 3) vertices and (F, 3) faces."""
        corners = np.stack([vertices[faces[:, k]] for k in range(3)])
        edges = np.roll(corners, -1, axis=0) - corners
        normal = np.cross(edges[0], corners[2] - corners[0])
        inward = np.cross(normal[None, :, :], edges)
        centroid = corners.mean(axis=0)
        radius = np.linalg.norm(corners - centroid[None], axis=2).max(axis=0)
        return cls(corners, edges, np.einsum('kfi,kfi->kf', edges, edges), inward, normal,
                   np.einsum('fi,fi->f', normal, normal), centroid, radius)


def closest_point_on_triangles(p: FloatArray, soup: TriangleSoup,
                               upper_bound: float = math.inf) -> tuple[float, FloatArray, int]:
    """The point of a triangle soup nearest to ``p`` (vectorized over triangles).

    Triangles whose bounding sphere is farther than the nearest bounding sphere's far side (or
    than ``upper_bound``) are skipped first.

    Args:
        p: (3,) query point.
        soup: The mesh's :class:`TriangleSoup`.
        upper_bound: A known upper bound of the distance (e.g. from fcl), for culling.

    Returns:
        ``(distance, point, face)``: the unsigned distance, the nearest point (3,) and the index
        of the triangle it lies on.
    """
    to_centre = np.sqrt(np.einsum('fi,fi->f', soup.centroid - p, soup.centroid - p))
    upper = min(float(np.min(to_centre + soup.radius)), upper_bound)
    index = np.flatnonzero(to_centre - soup.radius <= upper)
    corners, edges, edge_sq = soup.corners[:, index], soup.edges[:, index], soup.edge_sq[:, index]
    n, nn = soup.normal[index], soup.normal_sq[index]
    rel = p - corners  # (3, K, 3): p relative to each corner
    ok = nn > 0.0
    s = np.where(ok, np.einsum('ki,ki->k', rel[0], n) / np.where(ok, nn, 1.0), 0.0)
    proj = p - s[:, None] * n
    inside = ok & np.all(np.einsum('jki,jki->jk', proj[None] - corners,
                                   soup.inward[:, index]) >= 0.0, axis=0)
    t = np.clip(np.einsum('jki,jki->jk', rel, edges) / np.where(edge_sq > 0.0, edge_sq, 1.0),
                0.0, 1.0)
    q = corners + t[..., None] * edges  # (3, K, 3): nearest point on each edge
    d2 = np.einsum('jki,jki->jk', p - q, p - q)
    e = np.argmin(d2, axis=0)
    k = np.arange(len(index))
    best = np.where(inside[:, None], proj, q[e, k])
    best_d2 = np.where(inside, np.einsum('ki,ki->k', p - proj, p - proj), d2[e, k])
    j = int(np.argmin(best_d2))
    return math.sqrt(float(best_d2[j])), best[j].copy(), int(index[j])


def winding_number(p: FloatArray, vertices: FloatArray, faces: NDArray[np.integer]) -> float:
    """Generalized winding number of a triangle mesh around ``p``.

    About 1 inside a closed, outward-oriented mesh and 0 outside (fractional for open meshes);
    computed from the solid angles of all triangles (Van Oosterom and Strackee).

    Args:
        p: (3,) query point.
        vertices: (V, 3) vertices.
        faces: (F, 3) counter-clockwise (seen from outside) vertex indices.
    """
    A = vertices[faces[:, 0]] - p
    B = vertices[faces[:, 1]] - p
    C = vertices[faces[:, 2]] - p
    la, lb, lc = (np.linalg.norm(X, axis=1) for X in (A, B, C))
    num = np.einsum('ij,ij->i', A, np.cross(B, C))
    den = (la * lb * lc + np.einsum('ij,ij->i', A, B) * lc + np.einsum('ij,ij->i', A, C) * lb
           + np.einsum('ij,ij->i', B, C) * la)
    return float(np.sum(2.0 * np.arctan2(num, den)) / (4.0 * math.pi))


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
