"""Independent penetration-depth oracle: minimize the support-function overlap (test helper).

For convex A and B posed in the world, with support functions ``h_A(n) = max_{a in A} n.a``,
the penetration depth (minimum translation distance) is::

    depth = min over unit n of  g(n) = h_A(n) + h_B(-n)

and ``g`` at any unit ``n`` is an exact, separating translation along ``n`` (an upper bound of
the depth). This module writes the support functions from the shapes' formulas and minimizes
``g`` directly over the sphere of directions. It shares no code with the product's GJK/EPA
(``robot_state_core.geometry.convex_distance``) or its support points (``query.support_point``);
only the shape dataclasses and, for ``Convex``, the hull's vertices and faces (the shape's
definition) come from the package.

The minimizer is a global search that covers every place a minimum of ``g`` can sit:

* ``g`` is smooth where both supports are unique: a dense Fibonacci sample of the sphere and
  local refinements from the best separated samples;
* it has kinks along the Gauss-map edges of the shapes (box and hull edges, cylinder, capsule
  and cone rims): every such curve is sampled and its best local minima refined by a 1-D search
  that needs no smoothness (so kink-on-kink minima are found too);
* it has corners at face normals (box faces, hull faces, cylinder caps, cone base) and their
  combinations (cross products of edge directions, the separating-axis candidates that make
  the polytope-polytope case exact): these are evaluated directly.

Local refinements are nested grid searches (vectorized): a 1-D grid along kink curves and a
2-D 9 x 9 pattern that is recentred on its best point or shrunk, down to 1e-14 rad.

Every candidate is an upper bound; the oracle returns the smallest with its direction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
import math

import numpy as np
from numpy.typing import NDArray

from robot_state_core.geometry.meshes import mesh_hull
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cone,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Shape,
    Sphere,
)

FloatArray = NDArray[np.float64]
Curve = Callable[[FloatArray], FloatArray]  # parameter (K,) -> unit directions (K, 3)

def fibonacci_sphere(n: int) -> FloatArray:
    i = np.arange(n) + 0.5
    z = 1.0 - 2.0 * i / n
    phi = i * math.pi * (3.0 - math.sqrt(5.0))
    s = np.sqrt(1.0 - z * z)
    return np.stack([s * np.cos(phi), s * np.sin(phi), z], axis=1)


def _unit(v: FloatArray) -> FloatArray:
    out: FloatArray = v / np.linalg.norm(v, axis=-1, keepdims=True)
    return out


def _perp_basis(n: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Two unit vectors completing the unit ``n`` to a right-handed orthonormal basis."""
    x, y, z = (float(v) for v in n)
    if abs(x) <= abs(y) and abs(x) <= abs(z):  # cross with e_x
        e1 = np.array([0.0, z, -y])
    elif abs(y) <= abs(z):  # cross with e_y
        e1 = np.array([-z, 0.0, x])
    else:  # cross with e_z
        e1 = np.array([y, -x, 0.0])
    e1 /= math.sqrt(float(e1 @ e1))
    e2 = np.array([y * e1[2] - z * e1[1], z * e1[0] - x * e1[2], x * e1[1] - y * e1[0]])
    return e1, e2


@dataclass
class Posed:
    """A convex shape posed in the world, with its support function and Gauss-map features."""

    shape: Shape
    X: FloatArray
    hull_vertices: FloatArray | None = None
    hull_faces: NDArray[np.int64] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.shape, Convex):
            assert self.shape.path is not None
            v, f = mesh_hull(self.shape.path, self.shape.scale)
            self.hull_vertices, self.hull_faces = np.asarray(v), np.asarray(f)

    @property
    def R(self) -> FloatArray:
        return self.X[:3, :3]

    @property
    def t(self) -> FloatArray:
        return self.X[:3, 3]

    def h(self, N: FloatArray) -> FloatArray:
        """Support function at the (K, 3) unit world directions ``N``."""
        L = N @ self.R  # rows: R^T n
        s = self.shape
        if isinstance(s, Box):
            local = 0.5 * (s.x * np.abs(L[:, 0]) + s.y * np.abs(L[:, 1]) + s.z * np.abs(L[:, 2]))
        elif isinstance(s, Sphere):
            local = np.full(len(N), s.radius)
        elif isinstance(s, Ellipsoid):
            local = np.sqrt((s.a * L[:, 0]) ** 2 + (s.b * L[:, 1]) ** 2 + (s.c * L[:, 2]) ** 2)
        elif isinstance(s, Cylinder):
            local = s.radius * np.hypot(L[:, 0], L[:, 1]) + 0.5 * s.length * np.abs(L[:, 2])
        elif isinstance(s, Capsule):
            local = s.radius + 0.5 * s.length * np.abs(L[:, 2])
        elif isinstance(s, Cone):  # apex at +length/2, base disc at -length/2
            half = 0.5 * s.length
            local = np.maximum(half * L[:, 2], -half * L[:, 2] + s.radius * np.hypot(L[:, 0],
                                                                                     L[:, 1]))
        elif isinstance(s, Convex):
            assert self.hull_vertices is not None
            local = np.max(L @ self.hull_vertices.T, axis=1)
        elif isinstance(s, HalfSpace):  # z <= 0: bounded only along the outward normal +z
            local = np.where(L[:, 2] > 1.0 - 1e-12, 0.0, np.inf)
        else:
            raise AssertionError(f'no support function for {s!r}')
        out: FloatArray = local + N @ self.t
        return out

    # -- Gauss-map features in the world: corner directions, kink curves, edge directions.

    def corners(self) -> FloatArray:
        s, R = self.shape, self.R
        if isinstance(s, Box):
            return np.concatenate([R.T, -R.T])
        if isinstance(s, Cylinder):
            return np.stack([R[:, 2], -R[:, 2]])
        if isinstance(s, Cone):
            return -R[:, 2][None]
        if isinstance(s, Convex):
            return self._hull_normals()
        return np.zeros((0, 3))

    def edge_directions(self) -> FloatArray:
        s, R = self.shape, self.R
        if isinstance(s, Box):
            return R.T.copy()
        if isinstance(s, Cylinder | Capsule | Cone):
            return R[:, 2][None]
        if isinstance(s, Convex):
            v = self.hull_vertices
            assert v is not None
            return _unit(np.array([(v[j] - v[i]) @ R.T for i, j in self._hull_edges()]))
        return np.zeros((0, 3))

    def curves(self) -> list[tuple[Curve, float, float]]:
        """Kink curves ``(c(theta), theta_0, theta_1)`` of the support function."""
        s, R = self.shape, self.R
        out: list[tuple[Curve, float, float]] = []
        if isinstance(s, Cylinder | Capsule):
            out.append((_great_circle(R[:, 2]), 0.0, 2.0 * math.pi))
        elif isinstance(s, Cone):
            alpha = math.atan2(s.length, s.radius)
            out.append((_small_circle(R[:, 2], alpha), 0.0, 2.0 * math.pi))
        elif isinstance(s, Box):
            normals = np.concatenate([R.T, -R.T])
            for i in range(6):
                for j in range(i + 1, 6):
                    if abs(float(normals[i] @ normals[j])) < 0.5:
                        out.append((_arc(normals[i], normals[j]), 0.0, 1.0))
        elif isinstance(s, Convex):
            normals = self._hull_normals()
            for f, g in self._hull_edge_faces():
                if float(normals[f] @ normals[g]) < 1.0 - 1e-12:
                    out.append((_arc(normals[f], normals[g]), 0.0, 1.0))
        return out

    def _hull_normals(self) -> FloatArray:
        v, f = self.hull_vertices, self.hull_faces
        assert v is not None and f is not None
        n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
        return _unit(n) @ self.R.T

    def _hull_edges(self) -> list[tuple[int, int]]:
        f = self.hull_faces
        assert f is not None
        edges = {tuple(sorted((int(a), int(b)))) for tri in f
                 for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0]))}
        return [(a, b) for a, b in sorted(edges)]

    def _hull_edge_faces(self) -> list[tuple[int, int]]:
        f = self.hull_faces
        assert f is not None
        owner: dict[tuple[int, int], list[int]] = {}
        for k, tri in enumerate(f):
            for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])):
                owner.setdefault((min(int(a), int(b)), max(int(a), int(b))), []).append(k)
        return [(fs[0], fs[1]) for fs in owner.values() if len(fs) == 2]


def _great_circle(axis: FloatArray) -> Curve:
    e1, e2 = _perp_basis(_unit(axis))
    return lambda th: np.cos(th)[:, None] * e1 + np.sin(th)[:, None] * e2


def _small_circle(axis: FloatArray, angle: float) -> Curve:
    a = _unit(axis)
    e1, e2 = _perp_basis(a)
    return lambda th: (math.cos(angle) * a + math.sin(angle)
                       * (np.cos(th)[:, None] * e1 + np.sin(th)[:, None] * e2))


def _arc(n0: FloatArray, n1: FloatArray) -> Curve:
    """The shorter great-circle arc from ``n0`` (t = 0) to ``n1`` (t = 1)."""
    omega = math.acos(max(-1.0, min(1.0, float(n0 @ n1))))
    s = math.sin(omega)
    return lambda t: (np.sin((1.0 - t) * omega)[:, None] * n0
                      + np.sin(t * omega)[:, None] * n1) / s


@dataclass(frozen=True)
class OracleResult:
    """The oracle's answer.

    Attributes:
        depth: The smallest overlap ``g(n)`` found [m] (an upper bound of the true depth; the
            search makes it exact to ~1e-12 m). Negative when the shapes are apart: then it is
            minus their distance (convex duality), and ``n`` is the separating direction.
        n: Its direction (unit, world): translating B by ``depth * n`` separates the shapes, so
            Drake's ``nhat_BA_W`` is ``-n``.
        unique: False when another direction at least ``0.05`` rad away is within ``1e-6`` m
            of ``depth`` (the normal is then not well defined; compare depths only).
    """

    depth: float
    n: FloatArray
    unique: bool


class Oracle:
    """``g(n) = h_A(n) + h_B(-n)`` for one posed pair, and its global minimum."""

    def __init__(self, A: Posed, B: Posed, n_sphere: int = 3000) -> None:
        self.A, self.B = A, B
        self.sphere = fibonacci_sphere(n_sphere)
        self.evaluations = 0

    def g(self, N: FloatArray) -> FloatArray:
        N = np.atleast_2d(N)
        self.evaluations += len(N)
        out: FloatArray = self.A.h(N) + self.B.h(-N)
        return out

    def minimize(self) -> OracleResult:
        if isinstance(self.A.shape, HalfSpace) or isinstance(self.B.shape, HalfSpace):
            # h of a half-space is finite only along its outward normal: one direction.
            n = self.A.R[:, 2] if isinstance(self.A.shape, HalfSpace) else -self.B.R[:, 2]
            return OracleResult(float(self.g(n[None])[0]), n, True)
        cand_n: list[FloatArray] = []
        cand_g: list[float] = []

        def keep(N: FloatArray, G: FloatArray | None = None) -> None:
            N = _unit(np.atleast_2d(N))
            G = self.g(N) if G is None else G
            k = int(np.argmin(G))
            cand_n.append(N[k])
            cand_g.append(float(G[k]))

        # Corners: face normals of A (as n), of B (as -n), separating-axis cross products.
        corners = [self.A.corners(), -self.B.corners()]
        ea, eb = self.A.edge_directions(), self.B.edge_directions()
        if len(ea) and len(eb):
            cross = np.cross(ea[:, None, :], eb[None, :, :]).reshape(-1, 3)
            cross = cross[np.linalg.norm(cross, axis=1) > 1e-9]
            corners += [cross, -cross]
        corners_all = np.concatenate(corners)
        if len(corners_all):
            keep(corners_all)
        # Kink curves: sampled together; the best local minima refined by 1-D grid search.
        curves = self.A.curves() + [(_negated(c), t0, t1) for c, t0, t1 in self.B.curves()]
        if curves:
            T_all, N_all, id_all = [], [], []
            for c, (curve, t0, t1) in enumerate(curves):
                span = abs(float(curve(np.array([t0]))[0] @ curve(np.array([t1]))[0]))
                count = 360 if t1 - t0 > 3.0 else max(12, int(60 * math.acos(min(1.0, span))))
                T = np.linspace(t0, t1, count)
                T_all.append(T)
                N_all.append(curve(T))
                id_all.append(np.full(count, c))
            G = self.g(np.concatenate(N_all))
            offset = 0
            minima: list[tuple[float, int, float, float]] = []
            for c, T in enumerate(T_all):
                Gc = G[offset:offset + len(T)]
                offset += len(T)
                for k in range(len(T)):
                    left = Gc[k - 1] if k > 0 else math.inf
                    right = Gc[k + 1] if k + 1 < len(T) else math.inf
                    if Gc[k] <= left and Gc[k] <= right:
                        lo, hi = T[max(k - 1, 0)], T[min(k + 1, len(T) - 1)]
                        minima.append((float(Gc[k]), c, float(lo), float(hi)))
            minima.sort()
            for _, c, lo, hi in minima[:8]:
                curve = curves[c][0]
                t, v = self._grid_1d(curve, lo, hi)
                keep(curve(np.array([t])), np.array([v]))
        # Smooth minima: dense sample, local grid refinement from the best separated seeds.
        G = self.g(self.sphere)
        order = np.argsort(G)
        seeds: list[FloatArray] = []
        for k in order:
            n = self.sphere[k]
            if all(float(n @ s) < math.cos(0.2) for s in seeds):
                seeds.append(n)
            if len(seeds) == 4:
                break
        for seed in seeds:
            n_loc, value = self._grid_2d(seed, 0.05)
            keep(n_loc, np.array([value]))
        k = int(np.argmin(cand_g))
        depth, n = cand_g[k], _unit(cand_n[k])
        far = self.sphere @ n < math.cos(0.05)
        unique = bool(np.all(G[far] - depth > 1e-6)) and all(
            value - depth > 1e-6 or float(m @ n) > math.cos(0.05)
            for m, value in zip(cand_n, cand_g, strict=True))
        return OracleResult(depth, n, unique)

    def _grid_1d(self, curve: Curve, lo: float, hi: float) -> tuple[float, float]:
        """Minimum of ``g`` along a curve on ``[lo, hi]`` by nested grids (no smoothness)."""
        best_t, best = lo, math.inf
        for _ in range(30):
            T = np.linspace(lo, hi, 21)
            G = self.g(curve(T))
            k = int(np.argmin(G))
            if G[k] < best:
                best_t, best = float(T[k]), float(G[k])
            step = (hi - lo) / 20.0
            lo, hi = best_t - 2.0 * step, best_t + 2.0 * step
            if step < 1e-14:
                break
        return best_t, best

    def _grid_2d(self, n0: FloatArray, step: float) -> tuple[FloatArray, float]:
        """Local minimum of ``g`` near ``n0`` by pattern search.

        A 9 x 9 grid is recentred on its best point, or shrunk when the centre is best; smooth
        minima converge fully.
        """
        offsets = np.linspace(-1.0, 1.0, 9)
        U = np.array([(x, y) for x in offsets for y in offsets])
        e1, e2 = _perp_basis(n0)
        basis = np.stack([e1, e2])
        centre, best = np.zeros(2), float(self.g(n0[None])[0])
        for _ in range(200):
            N = _unit(n0 + (centre + step * U) @ basis)
            G = self.g(N)
            k = int(np.argmin(G))
            if G[k] < best:
                centre, best = centre + step * U[k], float(G[k])
            else:
                step *= 0.25
            if step < 1e-13:
                break
        return _unit(n0 + centre @ basis), best


def _negated(curve: Curve) -> Curve:
    return lambda t: -curve(t)


def penetration(A: Posed, B: Posed) -> OracleResult:
    """The minimum of ``g`` for the pair (see :class:`Oracle`)."""
    return Oracle(A, B).minimize()


def surface_residual(P: Posed, p: FloatArray, n: FloatArray) -> float:
    """How far ``p`` is from ``P``'s surface on the side of the supporting plane with normal n.

    ``max(|n.p - h(n)|, max over directions m of m.p - h(m))``: zero iff ``p`` lies in the
    supporting plane of direction ``n`` and inside the shape (the max over ``m`` is the
    signed distance of an outside point; it is sampled densely and refined).
    """
    off_plane = abs(float(n @ p) - float(P.h(n[None])[0]))
    M = fibonacci_sphere(2000)
    values = M @ p - P.h(M)
    k = int(np.argmax(values))
    outside = float(values[k])
    e1, e2 = _perp_basis(M[k])
    step = 0.05
    m = M[k]
    for _ in range(60):  # coordinate pattern search towards the maximum
        trial = _unit(np.array([m + step * s * e for s in (-1.0, 1.0) for e in (e1, e2)]))
        tv = trial @ p - P.h(trial)
        j = int(np.argmax(tv))
        if tv[j] > outside:
            outside, m = float(tv[j]), trial[j]
            e1, e2 = _perp_basis(m)
        else:
            step *= 0.5
    return max(off_plane, outside)


def pair_names(shapes: Sequence[tuple[str, Shape]]) -> list[tuple[str, Shape, Shape]]:
    """Every unordered pair (with repetition) of the named shapes: ``('a-b', A, B)``."""
    out = []
    for i, (na, a) in enumerate(shapes):
        for nb, b in shapes[i:]:
            out.append((f'{na}-{nb}', a, b))
    return out


# ------------------------------------------------------------------------------------------
# The accuracy harness shared by test/test_penetration_exact.py and tools/penetration_table.py


def random_rotation(rng: np.random.Generator) -> FloatArray:
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def pose(R: FloatArray, t: FloatArray) -> FloatArray:
    X = np.eye(4)
    X[:3, :3], X[:3, 3] = R, t
    return X


def bounding_radius(P: Posed) -> float:
    """Half the extent of ``P`` along its widest direction (from the support function)."""
    M = fibonacci_sphere(200)
    return float(np.max(P.h(M) - M @ P.t))


def penetrating_poses(A: Shape, B: Shape, count: int, rng: np.random.Generator,
                      apart: bool = False) -> list[tuple[FloatArray, FloatArray, OracleResult]]:
    """``count`` random poses ``(X_WA, X_WB)`` where A and B overlap by more than 1e-6 m.

    A is posed anywhere in a 1 m cube, B near A (centre offsets up to 0.9 of the sum of the
    bounding radii, all rotations); a half-space is the world's ``z <= 0`` with the other
    shape's centre between ``-0.9`` and ``+0.9`` of its radius from the plane. With ``apart``,
    the poses are instead between 1e-6 m and 5 cm apart: a penetrating pose whose movable
    shape is then translated out along the oracle's direction by its depth plus a gap drawn
    log-uniformly from [1e-6, 5e-2] m (the distance is then at most the gap; the oracle's
    minimum of ``g`` at the new pose is minus the distance, by convex duality).
    """
    out = []
    while len(out) < count:
        if isinstance(A, HalfSpace) or isinstance(B, HalfSpace):
            other = B if isinstance(A, HalfSpace) else A
            r = bounding_radius(Posed(other, np.eye(4)))
            X_other = pose(random_rotation(rng), np.array(
                [*rng.uniform(-0.5, 0.5, 2), rng.uniform(-0.9, 0.9) * r]))
            X_WA, X_WB = (np.eye(4), X_other) if isinstance(A, HalfSpace) else (X_other,
                                                                                np.eye(4))
        else:
            X_WA = pose(random_rotation(rng), rng.uniform(-0.5, 0.5, 3))
            reach = bounding_radius(Posed(A, np.eye(4))) + bounding_radius(Posed(B, np.eye(4)))
            offset = rng.normal(size=3)
            offset *= rng.uniform(0.0, 0.9) * reach / np.linalg.norm(offset)
            X_WB = pose(random_rotation(rng), X_WA[:3, 3] + offset)
        ref = penetration(Posed(A, X_WA), Posed(B, X_WB))
        if ref.depth <= 1e-6:
            continue
        if apart:
            shift = (ref.depth + math.exp(rng.uniform(math.log(1e-6), math.log(5e-2)))) * ref.n
            if isinstance(A, HalfSpace):  # B moves along n
                X_WB = pose(X_WB[:3, :3], X_WB[:3, 3] + shift)
            else:  # A moves along -n
                X_WA = pose(X_WA[:3, :3], X_WA[:3, 3] - shift)
            ref = penetration(Posed(A, X_WA), Posed(B, X_WB))
            if not -0.05 < ref.depth < -1e-6:
                continue
        out.append((X_WA, X_WB, ref))
    return out


def angle(u: FloatArray, v: FloatArray) -> float:
    return math.atan2(float(np.linalg.norm(np.cross(u, v))), float(u @ v))
