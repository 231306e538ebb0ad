"""Signed distance between two convex shapes from their support functions: GJK and EPA.

For convex A and B, the signed distance is that of the origin to the Minkowski difference
``M = A - B``, whose support function is ``h_M(n) = h_A(n) + h_B(-n)``:

* separated: the distance is ``min |a - b|``, found by GJK (Gilbert, Johnson, Keerthi) on the
  exact support points of :func:`~robot_state_core.geometry.query.support_mapping`;
* penetrating: the depth is the *minimum translation distance*
  ``min over unit n of h_A(n) + h_B(-n)``, found by EPA (van den Bergen's expanding polytope):
  a polytope inscribed in ``M`` grows towards the boundary point of ``M`` nearest the
  origin. Its nearest face gives a lower bound (the face plane's distance) and an upper bound
  (``h_M`` of the face normal, an exact separating translation); the iteration stops when the
  two agree within :data:`TOLERANCE` times the size of the pair.

Spheres and capsules are swept points and segments, ``A = core_A + ball(r_A)``, and the
support function of a ball is its radius in every direction. The query runs on the cores and
adds the radii, so a sphere or capsule against a polytope (box, convex hull) is a polytope
problem, which GJK and EPA solve exactly in finitely many steps, and two sphere/capsule cores
(points, segments) are closed form. Curved pairs (cylinders, cones, ellipsoids) converge to the
tolerance instead (geometrically, near the optimum).

Result conventions are Drake's (see :mod:`robot_state_core.geometry.query`): ``nhat_BA_W``
points out of B into A and ``p_WCa = p_WCb + distance * nhat_BA_W``. When penetrating,
``-distance`` is the depth, translating A by ``-distance * nhat_BA_W`` separates the shapes
(exactly: it is ``h_M`` of the returned normal), ``p_WCa`` is A's point deepest inside B and
``p_WCb`` B's point deepest inside A, both on their surfaces. The depth and distance are
exact to the tolerance; a normal at a smooth minimum only to about its square root (~1e-5
rad), and where an edge, a rim or a ruled side meets a curved surface the witnesses follow the
normal, up to ~1e-7 of the pair's size off their surfaces (``docs/penetration_accuracy.md``).

Pure Python floats (3-tuples) inside the iterations, which are dominated by per-call overhead
for numpy arrays this small. Half-spaces are not bounded (the backend has a closed form) and
triangle meshes are surfaces: neither is handled here (a ``Mesh`` may be passed as its hull).
"""

from __future__ import annotations

from collections.abc import Callable
import heapq
import math

import numpy as np
from numpy.typing import NDArray

from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.meshes import hull_planes
from robot_state_core.geometry.query import (
    point_signed_distance_primitive,
    segment_closest_points,
    support_mapping,
)
from robot_state_core.geometry.shapes import module_of, Shape, SHAPE_MODULES
from robot_state_core.geometry.shapes._common import Vec3

FloatArray = NDArray[np.float64]
SignedDistance = tuple[FloatArray, FloatArray, float, FloatArray]
'''``(p_WCa, p_WCb, distance, nhat_BA_W)``.'''

__all__ = ['CONVEX_SHAPES', 'TOLERANCE', 'SignedDistance', 'convex_signed_distance']

CONVEX_SHAPES: tuple[type, ...] = tuple(t for t, m in SHAPE_MODULES.items()
                                       if m.BOUNDED and m.CONVEX)
'''Shapes this module handles (a ``Convex`` needs its hull vertices).'''

TOLERANCE = 1e-12
'''Relative stopping tolerance of GJK and EPA, times the size of the pair (its bounding radii).'''

_MAX_GJK = 256
_MAX_EPA = 512
_EPA_STALL = 64

# A support point of the Minkowski difference and the two shape points behind it.
_Vertex = tuple[Vec3, Vec3, Vec3]  # (w = a - b, a, b)


# ------------------------------------------------------------------------------ 3-vector math


def _sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _mul(s: float, a: Vec3) -> Vec3:
    return (s * a[0], s * a[1], s * a[2])


def _dot(a: Vec3, b: Vec3) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _norm(a: Vec3) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


def _combine(weights: list[float], points: list[Vec3]) -> Vec3:
    x = y = z = 0.0
    for w, p in zip(weights, points, strict=True):
        x += w * p[0]
        y += w * p[1]
        z += w * p[2]
    return (x, y, z)


def _vec(a: Vec3) -> FloatArray:
    return np.array(a, dtype=np.float64)


# ------------------------------------------------------------------------------ shapes as cores


class _Core:
    """A convex shape as ``core + ball(radius)``: a point, a segment, or the solid itself."""

    __slots__ = ('X', 'centre', 'ends', 'mesh_file', 'planes', 'radius', 'shape', 'size',
                 'support')

    def __init__(self, shape: Shape, X_WG: FloatArray, vertices: FloatArray | None,
                 faces: NDArray[np.integer] | None) -> None:
        X = np.asarray(X_WG, dtype=np.float64)
        t = X[:3, 3]
        module = module_of(shape, 'convex_signed_distance')
        self.shape, self.X = shape, X
        self.centre: Vec3 = (float(t[0]), float(t[1]), float(t[2]))
        self.ends: tuple[Vec3, Vec3] | None = None
        self.planes: tuple[FloatArray, FloatArray] | None = None
        self.radius = 0.0
        self.mesh_file: bool = module.MESH_FILE
        self.support: Callable[[Vec3], Vec3]
        if module.SWEPT:
            half, self.radius = module.swept_core(shape)
            z = X[:3, 2] * half
            self.ends = (_sub(self.centre, tuple(z.tolist())), _add(self.centre,
                                                                    tuple(z.tolist())))
            self.size = self.radius + half
            self.support = self._segment
        else:
            if self.mesh_file:
                if vertices is None or len(vertices) == 0:
                    raise InvalidArgumentError(
                        f'convex_signed_distance: {type(shape).__name__} '
                        f'{getattr(shape, "uri", "")!r} needs its hull vertices')
                if faces is not None and len(faces):
                    self.planes = hull_planes(np.asarray(vertices, dtype=np.float64),
                                              np.asarray(faces))
            self.size = module.bounding_radius(shape, vertices)
            self.support = support_mapping(shape, X, vertices)

    def _segment(self, d: Vec3) -> Vec3:
        assert self.ends is not None
        p0, p1 = self.ends
        return p1 if _dot(d, _sub(p1, p0)) >= 0.0 else p0

    def off_surface(self, p: Vec3) -> float:
        """How far ``p`` is from the core's surface (0 on it; a hull without faces: 0)."""
        if self.ends is not None:
            p0, p1 = self.ends
            axis = _sub(p1, p0)
            length2 = _dot(axis, axis)
            t = 0.0 if length2 == 0.0 else min(max(_dot(_sub(p, p0), axis) / length2, 0.0),
                                                1.0)
            return _norm(_sub(p, _add(p0, _mul(t, axis))))
        p_G = self.X[:3, :3].T @ (np.array(p) - self.X[:3, 3])
        if self.mesh_file:
            if self.planes is None:
                return 0.0
            normals, offsets = self.planes
            return abs(float(np.max(normals @ p_G - offsets)))
        return abs(point_signed_distance_primitive(self.shape, p_G)[0])


def convex_signed_distance(shape_a: Shape, X_WA: FloatArray, shape_b: Shape, X_WB: FloatArray,
                           vertices_a: FloatArray | None = None,
                           vertices_b: FloatArray | None = None, *,
                           faces_a: NDArray[np.integer] | None = None,
                           faces_b: NDArray[np.integer] | None = None) -> SignedDistance:
    """Signed distance, witness points and normal of two posed convex shapes.

    Args:
        shape_a: Shape A: one of :data:`CONVEX_SHAPES`.
        X_WA: (4, 4) pose of A in the world.
        shape_b: Shape B.
        X_WB: (4, 4) pose of B.
        vertices_a: (V, 3) hull vertices of A in its frame, for a ``Convex`` (or a ``Mesh``,
            which is then treated as its hull).
        vertices_b: The same for B.
        faces_a: (F, 3) the hull's outward triangles, for a ``Convex`` A: lets the witness
            points be checked against the hull (recommended; without them a hull's witness is
            taken from the polytope alone).
        faces_b: The same for B.

    Returns:
        ``(p_WCa, p_WCb, distance, nhat_BA_W)`` (module docstring). When separated, the
        witnesses are the closest points; when penetrating, ``-distance`` is the minimum
        translation distance and the witnesses are the deepest points along ``nhat_BA_W``.

    Raises:
        InvalidArgumentError: An unsupported shape (half-space), or a hull without vertices.
    """
    for shape in (shape_a, shape_b):
        if not module_of(shape, 'convex_signed_distance').BOUNDED:
            raise InvalidArgumentError(
                f'convex_signed_distance: {type(shape).__name__} is not a bounded convex shape')
    a = _Core(shape_a, X_WA, vertices_a, faces_a)
    b = _Core(shape_b, X_WB, vertices_b, faces_b)
    radii = a.radius + b.radius
    tol = TOLERANCE * (a.size + b.size)
    if a.ends is not None and b.ends is not None:
        c_a, c_b, nhat = _swept_cores(a, b, tol)
        core = _dot(nhat, _sub(c_a, c_b))
    else:
        found = _gjk(a, b, tol)
        if isinstance(found, list):
            depth, c_a, c_b, nhat = _epa(a, b, found, tol)
            core = -depth
        else:
            c_a, c_b, nhat = found
            core = _dot(nhat, _sub(c_a, c_b))
        c_a, c_b = _witnesses(a, b, core, nhat, c_a, c_b, tol)
    p_a = _sub(c_a, _mul(a.radius, nhat))
    distance = core - radii + 0.0  # + 0.0: touching is 0.0, not -0.0
    # Drake's identity p_WCa = p_WCb + distance * nhat, exactly, in both cases.
    p_b = _sub(p_a, _mul(distance, nhat))
    return _vec(p_a), _vec(p_b), distance, _vec(nhat)


# ------------------------------------------------------------------------ point/segment cores


def _swept_cores(a: _Core, b: _Core, tol: float) -> tuple[Vec3, Vec3, Vec3]:
    """Closest core points and ``nhat_BA_W`` of two point/segment cores (spheres, capsules).

    When the cores touch, the normal is the common normal of the two axes (crossing capsules),
    or, for parallel axes or a point on an axis, the direction between the shape centres made
    perpendicular to the axis (a fixed perpendicular if even that vanishes).
    """
    assert a.ends is not None and b.ends is not None
    ca_, cb_ = segment_closest_points(*(np.array(p) for p in (*a.ends, *b.ends)))
    c_a: Vec3 = (float(ca_[0]), float(ca_[1]), float(ca_[2]))
    c_b: Vec3 = (float(cb_[0]), float(cb_[1]), float(cb_[2]))
    diff = _sub(c_a, c_b)
    core = _norm(diff)
    if core > tol:
        return c_a, c_b, _mul(1.0 / core, diff)
    hint = _sub(a.centre, b.centre)
    axis_a, axis_b = _sub(a.ends[1], a.ends[0]), _sub(b.ends[1], b.ends[0])
    la, lb = _norm(axis_a), _norm(axis_b)
    if la > tol and lb > tol:
        cross = _cross(axis_a, axis_b)
        n = _norm(cross)
        if n > 1e-9 * la * lb:
            nhat = _mul(1.0 / n, cross)
            return c_a, c_b, (_mul(-1.0, nhat) if _dot(nhat, hint) < 0.0 else nhat)
    if la > tol or lb > tol:
        return c_a, c_b, _perpendicular(axis_a if la >= lb else axis_b, hint)
    n = _norm(hint)
    return c_a, c_b, (_mul(1.0 / n, hint) if n > 0.0 else (1.0, 0.0, 0.0))


def _perpendicular(axis: Vec3, hint: Vec3) -> Vec3:
    """A unit vector perpendicular to ``axis``: ``hint``'s perpendicular part if it has one."""
    u = _mul(1.0 / _norm(axis), axis)
    v = _sub(hint, _mul(_dot(hint, u), u))
    n = _norm(v)
    if n > 1e-12 * _norm(hint):
        return _mul(1.0 / n, v)
    k = min(range(3), key=lambda i: abs(u[i]))
    e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
    w = _cross(u, e)
    return _mul(1.0 / _norm(w), w)


# ------------------------------------------------------------------------------ GJK


def _support(a: _Core, b: _Core, d: Vec3) -> _Vertex:
    pa = a.support(d)
    pb = b.support((-d[0], -d[1], -d[2]))
    return _sub(pa, pb), pa, pb


def _closest_on_simplex(W: list[Vec3]) -> tuple[Vec3, list[int], list[float]]:
    """The point of ``hull(W)`` nearest the origin, the face it lies on and its weights.

    Voronoi-region tests (Ericson, Real-Time Collision Detection, 5.1): a segment directly,
    a triangle with :func:`_closest_on_triangle`, a tetrahedron as the nearest of its faces
    that have the origin outside (every face if it is flat; none: the origin is inside).
    Corners with weight zero leave the face.
    """
    n = len(W)
    if n == 1:
        return W[0], [0], [1.0]
    if n == 2:
        return _keep(*_closest_on_segment(W[0], W[1]), [0, 1])
    if n == 3:
        return _keep(*_closest_on_triangle(*W), [0, 1, 2])
    a, b, c, d = W
    inside = True
    flat = _flat(a, b, c, d)
    best: tuple[float, Vec3, list[int], list[float]] | None = None
    for idx in ((0, 1, 3), (0, 2, 3), (1, 2, 3), (0, 1, 2)):
        p, q, r = W[idx[0]], W[idx[1]], W[idx[2]]
        s = W[6 - idx[0] - idx[1] - idx[2]]
        if not flat:
            nrm = _cross(_sub(q, p), _sub(r, p))
            if _dot(p, nrm) * _dot(_sub(s, p), nrm) <= 0.0:  # same side as s (or on the plane)
                continue
        inside = False
        point, weights = _closest_on_triangle(p, q, r)
        d2 = _dot(point, point)
        if best is None or d2 < best[0]:
            best = (d2, point, list(idx), weights)
    if inside:
        return (0.0, 0.0, 0.0), [0, 1, 2, 3], [0.25, 0.25, 0.25, 0.25]
    assert best is not None
    return _keep(best[1], best[3], best[2])


def _flat(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> bool:
    """Whether tetrahedron ``abcd`` is (numerically) flat."""
    u, v, w = _sub(b, a), _sub(c, a), _sub(d, a)
    return not abs(_dot(u, _cross(v, w))) > 1e-10 * _norm(u) * _norm(v) * _norm(w)


def _keep(point: Vec3, weights: list[float], idx: list[int]
          ) -> tuple[Vec3, list[int], list[float]]:
    """``point`` with the corners of positive weight only."""
    kept = [k for k, w in enumerate(weights) if w > 0.0]
    return point, [idx[k] for k in kept], [weights[k] for k in kept]


def _gjk(a: _Core, b: _Core, tol: float) -> tuple[Vec3, Vec3, Vec3] | list[_Vertex]:
    """GJK on the cores: closest points and ``nhat_BA_W``, or the simplex if they overlap.

    Stops when ``|v| - v.w/|v|`` (the gap between the upper and lower bound of the distance)
    is below ``tol``; an origin within ``tol`` of the simplex counts as overlap.
    """
    d = _sub(a.centre, b.centre)
    if _norm(d) == 0.0:
        d = (1.0, 0.0, 0.0)
    simplex = [_support(a, b, (-d[0], -d[1], -d[2]))]
    v, weights = simplex[0][0], [1.0]
    for _ in range(_MAX_GJK):
        vn = _norm(v)
        if vn <= tol:
            return simplex
        vertex = _support(a, b, (-v[0], -v[1], -v[2]))
        if vn - _dot(v, vertex[0]) / vn <= tol:
            break
        step = _improve(simplex, vertex, vn)
        if step is None:  # a flat face tie returned a known vertex: try its other corners
            step = _flat_face_step(a, b, simplex, v, vn)
            if step is None:  # no progress left in floating point
                break
        simplex, v, weights = step
        if len(simplex) == 4:  # the origin is inside the tetrahedron
            return simplex
    vn = _norm(v)
    if vn <= tol:
        return simplex
    c_a = _combine(weights, [s[1] for s in simplex])
    c_b = _combine(weights, [s[2] for s in simplex])
    return c_a, c_b, _mul(1.0 / vn, v)


def _improve(simplex: list[_Vertex], vertex: _Vertex, vn: float
             ) -> tuple[list[_Vertex], Vec3, list[float]] | None:
    """GJK's step with a new support vertex, or None if it brings the simplex no closer."""
    if any(vertex[0] == s[0] for s in simplex):
        return None
    candidate, idx, w = _closest_on_simplex([s[0] for s in simplex] + [vertex[0]])
    if _norm(candidate) >= vn:
        return None
    return [[*simplex, vertex][i] for i in idx], candidate, w


def _flat_face_step(a: _Core, b: _Core, simplex: list[_Vertex], v: Vec3, vn: float
                    ) -> tuple[list[_Vertex], Vec3, list[float]] | None:
    """The best GJK step from support points in directions tilted slightly off ``-v``.

    Where the Minkowski difference has a flat face facing the origin (a box face against a
    cylinder's side), every point of the face is a support point along ``-v`` and the support
    function returns one corner, possibly one already in the simplex; the true nearest point
    can be elsewhere on the face. Tilting the direction by 1e-6 rad towards each side picks
    the face's other corners.
    """
    u = _mul(-1.0 / vn, v)
    k = min(range(3), key=lambda i: abs(u[i]))
    e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
    e1 = _cross(u, e)
    e1 = _mul(1.0 / _norm(e1), e1)
    e2 = _cross(u, e1)
    best: tuple[list[_Vertex], Vec3, list[float]] | None = None
    for t in (e1, _mul(-1.0, e1), e2, _mul(-1.0, e2)):
        step = _improve(simplex, _support(a, b, _add(u, _mul(1e-6, t))), vn)
        if step is not None and (best is None or _norm(step[1]) < _norm(best[1])):
            best = step
    return best


# ------------------------------------------------------------------------------ EPA


_Face = tuple[int, int, int, Vec3, float]  # vertex indices (CCW from outside), normal, offset


class _Polytope:
    """A convex polytope inscribed in the Minkowski difference, triangles facing outward."""

    def __init__(self, min_edge: float) -> None:
        self.min_edge = min_edge  # a new vertex this close to the horizon is a repeat
        self.V: list[_Vertex] = []
        self.faces: dict[int, _Face] = {}
        self.edges: dict[tuple[int, int], int] = {}  # directed edge -> the face on its left
        self.heap: list[tuple[float, int]] = []
        self.count = 0

    def plane(self, i: int, j: int, k: int, p: Vec3 | None = None) -> tuple[Vec3, float] | None:
        """Unit normal and offset of triangle ``ijk``; None if it is degenerate.

        ``p`` stands in for the vertex of index ``len(V)``, not yet added.
        """
        V = self.V
        (ix, iy, iz), (jx, jy, jz) = V[i][0], V[j][0]
        kx, ky, kz = p if p is not None and k == len(V) else V[k][0]
        ux, uy, uz = jx - ix, jy - iy, jz - iz
        vx, vy, vz = kx - ix, ky - iy, kz - iz
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        norm = math.sqrt(nx * nx + ny * ny + nz * nz)
        if not norm > 0.0:
            return None
        nx, ny, nz = nx / norm, ny / norm, nz / norm
        d = (nx * (ix + jx + kx) + ny * (iy + jy + ky) + nz * (iz + jz + kz)) / 3.0
        return (nx, ny, nz), d

    def add_face(self, i: int, j: int, k: int) -> bool:
        found = self.plane(i, j, k)
        if found is None:
            return False
        self._insert(i, j, k, *found)
        return True

    def _insert(self, i: int, j: int, k: int, n: Vec3, d: float) -> None:
        f = self.count
        self.count += 1
        self.faces[f] = (i, j, k, n, d)
        edges = self.edges
        edges[(i, j)] = edges[(j, k)] = edges[(k, i)] = f
        heapq.heappush(self.heap, (d, f))

    def height(self, g: int, p: Vec3) -> float:
        """Signed distance of ``p`` above face ``g``'s plane.

        Measured from the face's corner nearest ``p``: a thin face's normal is only good to
        ~1e-16 over its shortest altitude, and that error grows with the distance it is
        carried over (from the centroid it can exceed the visibility threshold).
        """
        i, j, k, n, _ = self.faces[g]
        V = self.V
        q = min((V[i][0], V[j][0], V[k][0]), key=lambda c: (c[0] - p[0]) ** 2
                + (c[1] - p[1]) ** 2 + (c[2] - p[2]) ** 2)
        return n[0] * (p[0] - q[0]) + n[1] * (p[1] - q[1]) + n[2] * (p[2] - q[2])

    def nearest(self) -> int:
        while True:
            f = self.heap[0][1]
            if f in self.faces:
                return f
            heapq.heappop(self.heap)

    def expand(self, f: int, vertex: _Vertex, eps: float) -> bool:
        """Adds ``vertex`` (beyond face ``f``): removes what it sees, cones the horizon to it.

        The faces it sees (more than ``eps`` above their plane, connected to ``f``; ``eps`` can
        be negative, to include nearly coplanar faces) must be bounded by one simple loop of
        edges, and every new face must have a normal and edges longer than ``min_edge``;
        otherwise (rounding near coplanar faces, a repeated support point) nothing changes and
        the answer is False.
        """
        p = vertex[0]
        faces, edges = self.faces, self.edges
        visible = {f}
        stack = [f]
        while stack:
            i, j, k, _, _ = faces[stack.pop()]
            for e0, e1 in ((i, j), (j, k), (k, i)):
                h = edges.get((e1, e0))
                if h is not None and h not in visible and self.height(h, p) > eps:
                    visible.add(h)
                    stack.append(h)
        horizon: dict[int, int] = {}
        for g in visible:
            i, j, k, _, _ = faces[g]
            for e0, e1 in ((i, j), (j, k), (k, i)):
                if edges.get((e1, e0)) not in visible:
                    if e0 in horizon:  # the loop touches itself
                        return False
                    horizon[e0] = e1
        start = next(iter(horizon))  # one loop through every horizon edge
        e: int | None = start
        steps = 0
        while True:
            e = horizon.get(e) if e is not None else None
            steps += 1
            if e is None or e == start or steps >= len(horizon):
                break
        if e != start or steps != len(horizon):
            return False
        v = len(self.V)
        planes = []
        for e0, e1 in horizon.items():
            found = self.plane(e0, e1, v, vertex[0])
            if found is None or _norm(_sub(vertex[0], self.V[e0][0])) <= self.min_edge:
                return False
            planes.append((e0, e1, found))
        self.V.append(vertex)
        for g in visible:
            i, j, k, _, _ = faces.pop(g)
            for edge in ((i, j), (j, k), (k, i)):
                if edges.get(edge) == g:
                    del edges[edge]
        for e0, e1, (n, d) in planes:
            self._insert(e0, e1, v, n, d)
        return True


_DIRECTIONS: list[Vec3] = [(1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0),
                           (0.0, -1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0),
                           *((sx / math.sqrt(3.0), sy / math.sqrt(3.0), sz / math.sqrt(3.0))
                             for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0))]


def _initial_polytope(a: _Core, b: _Core, simplex: list[_Vertex], eps: float,
                      size: float) -> _Polytope | Vec3:
    """The hull of support points in 14 fixed directions, the centre line and the GJK simplex.

    Any polytope inscribed in the Minkowski difference works as a start: faces whose plane
    passes beyond the origin simply have a negative offset and are expanded first. If the
    points are flat (two zero-thickness shapes in one plane), the plane's unit normal instead.
    """
    samples = list(simplex)
    directions = list(_DIRECTIONS)
    centre = _sub(a.centre, b.centre)
    n = _norm(centre)
    if n > 0.0:
        directions += [_mul(1.0 / n, centre), _mul(-1.0 / n, centre)]
    samples += [_support(a, b, d) for d in directions]
    P = [s[0] for s in samples]
    i0 = 0
    i1 = max(range(len(P)), key=lambda i: _norm(_sub(P[i], P[i0])))
    e1 = _sub(P[i1], P[i0])
    i2 = max(range(len(P)), key=lambda i: _norm(_cross(_sub(P[i], P[i0]), e1)))
    normal = _cross(e1, _sub(P[i2], P[i0]))
    i3 = max(range(len(P)), key=lambda i: abs(_dot(_sub(P[i], P[i0]), normal)))
    volume = _dot(_sub(P[i3], P[i0]), normal)
    if not abs(volume) > 1e-12 * size ** 3:
        hint = _sub(a.centre, b.centre)
        if _norm(normal) > 0.0:
            unit = _mul(1.0 / _norm(normal), normal)
        elif _norm(e1) > 0.0:  # collinear: any normal of the line
            unit = _perpendicular(e1, hint if _norm(hint) > 0.0 else (0.0, 0.0, 1.0))
        else:  # a single point
            unit = (0.0, 0.0, 1.0)
        return _mul(-1.0, unit) if _dot(unit, hint) < 0.0 else unit
    if volume > 0.0:
        i1, i2 = i2, i1  # (i0, i1, i2) counter-clockwise seen from outside, i3 behind it
    poly = _Polytope(eps)
    poly.V = [samples[i] for i in (i0, i1, i2, i3)]
    for face in ((0, 1, 2), (0, 3, 1), (1, 3, 2), (2, 3, 0)):
        poly.add_face(*face)
    for s, sample in enumerate(samples):
        if s in (i0, i1, i2, i3):
            continue
        w = sample[0]
        beyond = [(d, f) for f, (_, _, _, _, d) in poly.faces.items()
                  if poly.height(f, w) > eps]
        if beyond:
            poly.expand(min(beyond)[1], sample, -eps)
    return poly


def _epa(a: _Core, b: _Core, simplex: list[_Vertex],
         tol: float) -> tuple[float, Vec3, Vec3, Vec3]:
    """Penetration depth of the cores: ``(depth, c_a, c_b, nhat_BA_W)``.

    ``c_a - c_b = -depth * nhat_BA_W``; ``depth = h_M(-nhat_BA_W)`` is the exact overlap along
    the normal, within ``tol`` of the minimum over all directions.
    """
    size = a.size + b.size
    # Visibility threshold and shortest new edge: 1000x above the rounding of a face offset
    # (~1e-16 size), and 10x below the step that expands (tol).
    eps = 0.1 * tol
    poly = _initial_polytope(a, b, simplex, eps, size)
    if not isinstance(poly, _Polytope):
        # Flat: no volume overlaps, so the depth is 0 along the plane's normal, at a point the
        # shapes share (GJK's simplex holds the origin).
        _, idx, weights = _closest_on_simplex([simplex[i][0] for i in range(len(simplex))])
        c_a = _combine(weights, [simplex[i][1] for i in idx])
        c_b = _combine(weights, [simplex[i][2] for i in idx])
        return 0.0, c_a, c_b, poly
    # Every face normal n probed gives an upper bound h_M(n) of the depth (an exact separating
    # translation); the nearest face's offset is the lower bound. Near curved parts the
    # polytope's thin faces can undercut the lower bound through rounding, which delays the
    # stop; if that reaches the iteration limit, the best upper bound is the answer. Where the
    # minimum is attained along a curve of directions (a segment through a disc, coaxial
    # cylinders) the inscribed polytope closes in only like 1 - cos(pi / vertices), while the
    # upper bound is exact at once: a bound that has not moved by tol for _EPA_STALL steps, with
    # the lower bound within 1e-3 of the pair's size (no gross gap left), is the answer too.
    best_h, best_n = math.inf, (0.0, 0.0, 1.0)
    stalled = 0
    for _ in range(_MAX_EPA):
        f = poly.nearest()
        _, _, _, n, d = poly.faces[f]
        vertex = _support(a, b, n)
        h = _dot(n, vertex[0])
        stalled = 0 if h < best_h - tol else stalled + 1
        if h < best_h:
            best_h, best_n = h, n
        if best_h - d <= tol or (stalled >= _EPA_STALL and best_h - d <= 1e-3 * size):
            break
        # Faces within ``eps`` of coplanar with the new vertex count as visible: they bridge
        # the visible region where rounding would split it. If it still pinches, faces
        # within ``tol`` do.
        if not poly.expand(f, vertex, -eps) and not poly.expand(f, vertex, -tol):
            break
    f = poly.nearest()
    n, d = poly.faces[f][3], poly.faces[f][4]
    depth = _dot(n, _support(a, b, n)[0])
    if depth > best_h + tol:  # stopped early (iteration limit): the best probe is better
        depth, n = best_h, best_n
    if depth - d > tol:  # not closed in: polish the normal directly on h_M
        depth, n = _descend(a, b, depth, n)
    i, j, k, weights = _witness_face(poly, f, depth + tol)
    c_a = _combine(weights, [poly.V[i][1], poly.V[j][1], poly.V[k][1]])
    c_b = _combine(weights, [poly.V[i][2], poly.V[j][2], poly.V[k][2]])
    # n points from B's deepest point towards A's: nhat_BA_W = -n.
    return depth, c_a, c_b, _mul(-1.0, n)


def _descend(a: _Core, b: _Core, h: float, n: Vec3) -> tuple[float, Vec3]:
    """A local minimum of ``h_M`` over unit directions, by pattern search from ``n``.

    For EPA runs that do not close in (the minimum attained along a curve of directions, as
    for coaxial solids of revolution): eight neighbours on the tangent plane at 1e-2 rad,
    moving to the best, halving the step when none is lower, down to 1e-12 rad. Every value
    is an exact separating translation, so the answer only improves on ``h``.
    """
    step = 1e-2
    while step > 1e-12:
        e1 = _perpendicular(n, (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0))
        e2 = _cross(n, e1)
        best: tuple[float, Vec3] | None = None
        for s1, s2 in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (1.0, 1.0),
                       (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)):
            m = _add(n, _add(_mul(step * s1, e1), _mul(step * s2, e2)))
            m = _mul(1.0 / _norm(m), m)
            value = _dot(m, _support(a, b, m)[0])
            if value < h and (best is None or value < best[0]):
                best = (value, m)
        if best is None:
            step *= 0.5
        else:
            h, n = best
    return h, n


def _witnesses(a: _Core, b: _Core, core: float, nhat: Vec3, c_a: Vec3, c_b: Vec3,
               tol: float) -> tuple[Vec3, Vec3]:
    """Witness points on the two core surfaces with ``p_a - p_b = core * nhat`` exactly.

    ``core`` is the signed distance of the cores (``-depth`` when they overlap). GJK's simplex
    and EPA's face give points ``c_a``, ``c_b`` that combine support points: on the shapes,
    but on a curved surface slightly inside it, and with a difference that can sit beside
    ``core * nhat`` where the distance varies only to second order (along a cylinder's side,
    around a curved tip). The difference is corrected half on each side; when that leaves a
    point off its surface, the exact support points along the normal are tried (A's along
    ``-nhat`` with its partner ``s_A - core nhat``, and B's along ``nhat`` with
    ``s_B + core nhat``): one of them is unique wherever a shape is curved at the contact.
    The pair farthest off its surfaces loses.
    """
    offset = _mul(0.5, _sub(_mul(core, nhat), _sub(c_a, c_b)))
    pairs = [(_add(c_a, offset), _sub(c_b, offset))]
    off = max(a.off_surface(pairs[0][0]), b.off_surface(pairs[0][1]))
    if off <= tol:
        return pairs[0]
    s_a, s_b = a.support(_mul(-1.0, nhat)), b.support(nhat)
    for p_a, p_b in ((s_a, _sub(s_a, _mul(core, nhat))), (_add(s_b, _mul(core, nhat)), s_b)):
        candidate = max(a.off_surface(p_a), b.off_surface(p_b))
        if candidate < off:
            pairs[0], off = (p_a, p_b), candidate
    return pairs[0]


def _witness_face(poly: _Polytope, nearest: int,
                  limit: float) -> tuple[int, int, int, list[float]]:
    """The face holding the polytope's boundary point nearest the origin, and its weights.

    For an exactly convex polytope that point is the projection of the origin onto the
    nearest face's plane. Near curved parts of the Minkowski difference EPA leaves long,
    needle-thin, almost coplanar faces (and flat parts are split into coplanar triangles), so
    the nearest point is searched over every face whose plane is within ``limit`` of the
    origin, as the nearest point of each triangle (robust to rounding and to coplanar ties).
    Its weights combine the shape points behind the corners into the witnesses.
    """
    best: tuple[float, int, list[float]] | None = None
    for g, (i, j, k, _, e) in poly.faces.items():
        if e > limit and g != nearest:
            continue
        point, weights = _closest_on_triangle(poly.V[i][0], poly.V[j][0], poly.V[k][0])
        d2 = _dot(point, point)
        if best is None or d2 < best[0]:
            best = (d2, g, weights)
    assert best is not None
    i, j, k, _, _ = poly.faces[best[1]]
    return i, j, k, best[2]


def _closest_on_triangle(a: Vec3, b: Vec3, c: Vec3) -> tuple[Vec3, list[float]]:
    """The point of triangle ``abc`` nearest the origin and its barycentric weights.

    Ericson, Real-Time Collision Detection, 5.1.5 (Voronoi regions of the corners and edges).
    """
    ab, ac, ap = _sub(b, a), _sub(c, a), _mul(-1.0, a)
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return a, [1.0, 0.0, 0.0]
    bp = _mul(-1.0, b)
    d3, d4 = _dot(ab, bp), _dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return b, [0.0, 1.0, 0.0]
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        return _add(a, _mul(t, ab)), [1.0 - t, t, 0.0]
    cp = _mul(-1.0, c)
    d5, d6 = _dot(ab, cp), _dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return c, [0.0, 0.0, 1.0]
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        return _add(a, _mul(t, ac)), [1.0 - t, 0.0, t]
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return _add(b, _mul(t, _sub(c, b))), [0.0, 1.0 - t, t]
    # Inside the face: the weights from signed areas (accurate for thin triangles too). A
    # (numerically) degenerate triangle can get here with weights outside [0, 1]: it is then
    # no more than its edges.
    weights = _barycentric(a, b, c, (0.0, 0.0, 0.0), clamp=False)
    if min(weights) >= 0.0:
        return _combine(weights, [a, b, c]), weights
    best: tuple[float, Vec3, list[float]] | None = None
    for i, j in ((0, 1), (1, 2), (0, 2)):
        point, (wi, wj) = _closest_on_segment((a, b, c)[i], (a, b, c)[j])
        d2 = _dot(point, point)
        if best is None or d2 < best[0]:
            edge = [0.0, 0.0, 0.0]
            edge[i], edge[j] = wi, wj
            best = (d2, point, edge)
    assert best is not None
    return best[1], best[2]


def _closest_on_segment(a: Vec3, b: Vec3) -> tuple[Vec3, list[float]]:
    """The point of segment ``ab`` nearest the origin and its two weights."""
    ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    g = ux * ux + uy * uy + uz * uz
    t = -(ux * a[0] + uy * a[1] + uz * a[2]) / g if g > 0.0 else 0.0
    if t <= 0.0:
        return a, [1.0, 0.0]
    if t >= 1.0:
        return b, [0.0, 1.0]
    return (a[0] + t * ux, a[1] + t * uy, a[2] + t * uz), [1.0 - t, t]


def _barycentric(p0: Vec3, p1: Vec3, p2: Vec3, q: Vec3,
                 clamp: bool = True) -> list[float]:
    """Barycentric weights of ``q`` (projected onto the triangle's plane) in the triangle.

    Ratios of signed sub-triangle areas along the normal: unlike the Gram-matrix formula they
    stay accurate for the long, thin triangles EPA makes on curved surfaces. Clamped to the
    triangle by default.
    """
    n = _cross(_sub(p1, p0), _sub(p2, p0))
    area = _dot(n, n)
    if not area > 0.0:
        return [1.0, 0.0, 0.0]
    u = _dot(n, _cross(_sub(p1, q), _sub(p2, q))) / area
    v = _dot(n, _cross(_sub(p2, q), _sub(p0, q))) / area
    w = 1.0 - u - v
    if clamp and min(u, v, w) < 0.0:
        u, v, w = max(u, 0.0), max(v, 0.0), max(w, 0.0)
        total = u + v + w
        u, v, w = u / total, v / total, w / total
    return [u, v, w]
