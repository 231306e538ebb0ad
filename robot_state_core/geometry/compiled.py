"""The compiled broad phase (numba): posed bounding boxes, pair culling, pose bookkeeping.

Compiled with the package's one decorator (:mod:`robot_state_core.jit.decorators`) and imported
on first use by :mod:`~robot_state_core.geometry.fcl_backend` (``import robot_state_core`` stays
numba-free).

Each geometry G carries its local axis-aligned box ``[lo_G, hi_G]`` (the mesh's vertex bounds,
the primitive's extents; :func:`~robot_state_core.geometry.query.local_aabb`), which posed by
``X_WG`` is an oriented box in the world. :func:`cull_pairs` keeps a candidate pair unless its
two boxes are provably apart by more than a distance ``d``: first the world axis-aligned boxes
around them (6 comparisons), then the separating-axis test of the two oriented boxes (15 axes,
Gottschalk et al., "OBBTree", SIGGRAPH 1996) on boxes grown by ``d / 2`` each, plus
:data:`MARGIN`. Growing a box by ``r`` along its own axes contains every point within ``r`` of
it, so disjoint grown boxes are more than ``d`` apart: the test is conservative, and a culled
pair can neither collide (``d = 0``) nor be closer than ``d``. Geometries with an infinite
extent (half-spaces) are never culled.

For a verdict (stop at the first contact) :func:`cull_pairs` can also order the kept pairs by how
deeply their boxes overlap (:func:`_overlap`), deepest first: a state in collision then usually
reaches its colliding pair first. (Measured: leaf boxes of triangle groups per mesh, a second
culling level, cost about what they saved; they are not used.)

Every argument is a C-contiguous float64 / intp / bool array or a float, so each kernel compiles
one signature.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robot_state_core.jit.decorators import inline, jit
from robot_state_core.jit.kernels import entry_point

__all__ = ['MARGIN', 'bound', 'cull_pairs', 'pair_bounds', 'pose_on_frames', 'update_poses',
           'world_boxes']

MARGIN = 1e-5
'''Extra growth of every box [m] in :func:`cull_pairs`: more than fcl's contact tolerance
(libccd/GJK stop at ~1e-6 m), so no pair that fcl would call touching is culled.'''


@jit
def _box(lo_G: Any, hi_G: Any, X_WG: Any, finite: Any, box_lo: Any, box_hi: Any,
         g: int) -> None:  # pragma: no cover - compiled
    """The world axis-aligned box of geometry ``g`` (see :func:`world_boxes`)."""
    if not finite[g]:
        for i in range(3):
            box_lo[g, i] = -math.inf
            box_hi[g, i] = math.inf
        return
    c0 = 0.5 * (lo_G[g, 0] + hi_G[g, 0])
    c1 = 0.5 * (lo_G[g, 1] + hi_G[g, 1])
    c2 = 0.5 * (lo_G[g, 2] + hi_G[g, 2])
    h0 = 0.5 * (hi_G[g, 0] - lo_G[g, 0])
    h1 = 0.5 * (hi_G[g, 1] - lo_G[g, 1])
    h2 = 0.5 * (hi_G[g, 2] - lo_G[g, 2])
    for i in range(3):
        r0, r1, r2 = X_WG[g, i, 0], X_WG[g, i, 1], X_WG[g, i, 2]
        c = r0 * c0 + r1 * c1 + r2 * c2 + X_WG[g, i, 3]
        e = abs(r0) * h0 + abs(r1) * h1 + abs(r2) * h2
        box_lo[g, i] = c - e
        box_hi[g, i] = c + e


@jit
def world_boxes(lo_G: Any, hi_G: Any, X_WG: Any, finite: Any, box_lo: Any,
                box_hi: Any) -> None:  # pragma: no cover - compiled
    """The world axis-aligned boxes around every geometry's posed local box.

    Args:
        lo_G: ``(G, 3)`` local lower box corners [m] (ignored where not ``finite``).
        hi_G: ``(G, 3)`` local upper box corners [m].
        X_WG: ``(G, 4, 4)`` geometry poses.
        finite: ``(G,)`` bool, whether the geometry's box is finite.
        box_lo: ``(G, 3)`` out: world axis-aligned lower bounds (``-inf`` where not finite).
        box_hi: ``(G, 3)`` out: world axis-aligned upper bounds (``inf`` where not finite).
    """
    for g in range(X_WG.shape[0]):
        _box(lo_G, hi_G, X_WG, finite, box_lo, box_hi, g)


@jit
def update_poses(X_new: Any, X_WG: Any, stale: Any, lo_G: Any, hi_G: Any, finite: Any,
                 box_lo: Any, box_hi: Any) -> int:  # pragma: no cover - compiled
    """Copy the poses ``X_new`` into ``X_WG`` (both ``(G, 4, 4)``), flagging the changed ones.

    ``stale[g]`` is set True where pose ``g`` changed (left as is elsewhere), and the boxes of
    the changed geometries are recomputed (the other arguments: see :func:`world_boxes`).

    Returns:
        The number of changed poses, or ``-1 - g`` if pose ``g`` is not finite (nothing is
        copied then).
    """
    n = X_new.shape[0]
    for g in range(n):
        for i in range(4):
            for j in range(4):
                if not math.isfinite(X_new[g, i, j]):
                    return -1 - g
    changed = 0
    for g in range(n):
        same = True
        for i in range(4):
            for j in range(4):
                if X_new[g, i, j] != X_WG[g, i, j]:
                    same = False
        if not same:
            changed += 1
            stale[g] = True
            for i in range(4):
                for j in range(4):
                    X_WG[g, i, j] = X_new[g, i, j]
            _box(lo_G, hi_G, X_WG, finite, box_lo, box_hi, g)
    return changed


@jit
def pose_on_frames(X_WF: Any, frame: Any, X_FG: Any, X_WG: Any, stale: Any, lo_G: Any,
                   hi_G: Any, finite: Any, box_lo: Any,
                   box_hi: Any) -> int:  # pragma: no cover - compiled
    """Pose the first ``K`` geometries on frames: ``X_WG[g] = X_WF[frame[g]] @ X_FG[g]``.

    Like :func:`update_poses` (changed ones flagged ``stale`` and their boxes recomputed) for
    ``g < K = len(frame)``; the other geometries keep their poses. ``X_WF`` ``(F, 4, 4)``
    must be rigid transforms (the caller's FK output, finite by construction).

    Returns:
        The number of changed poses.
    """
    changed = 0
    for g in range(frame.shape[0]):
        f = frame[g]
        same = True
        for i in range(3):
            a0, a1, a2, a3 = X_WF[f, i, 0], X_WF[f, i, 1], X_WF[f, i, 2], X_WF[f, i, 3]
            for j in range(4):
                v = a0 * X_FG[g, 0, j] + a1 * X_FG[g, 1, j] + a2 * X_FG[g, 2, j]
                if j == 3:
                    v += a3
                if v != X_WG[g, i, j]:
                    same = False
                    X_WG[g, i, j] = v
        if not same:
            changed += 1
            stale[g] = True
            _box(lo_G, hi_G, X_WG, finite, box_lo, box_hi, g)
    return changed


@jit
def _relative(X_WG: Any, a: int, b: int, R: Any, Q: Any, T: Any) -> None:  # pragma: no cover
    """B's frame in A's: ``R = R_Aᵀ R_B``, ``Q = |R| + ε``, ``T = R_Aᵀ (p_B - p_A)``."""
    d0 = X_WG[b, 0, 3] - X_WG[a, 0, 3]
    d1 = X_WG[b, 1, 3] - X_WG[a, 1, 3]
    d2 = X_WG[b, 2, 3] - X_WG[a, 2, 3]
    for i in range(3):
        T[i] = X_WG[a, 0, i] * d0 + X_WG[a, 1, i] * d1 + X_WG[a, 2, i] * d2
        for j in range(3):
            r = (X_WG[a, 0, i] * X_WG[b, 0, j] + X_WG[a, 1, i] * X_WG[b, 1, j]
                 + X_WG[a, 2, i] * X_WG[b, 2, j])
            R[i, j] = r
            Q[i, j] = abs(r) + 1e-12  # parallel edges: keep the cross-axis tests conservative


@jit
def _apart(R: Any, Q: Any, T: Any, C: Any, H: Any, i: int, j: int, grow: float,
           t: Any) -> bool:  # pragma: no cover - compiled
    """Separating-axis test of box ``i`` (in A's frame) and box ``j`` (in B's), grown by ``grow``.

    Boxes are rows of ``C`` (centres) and ``H`` (half extents), each in its geometry's frame;
    B's frame in A's is ``(R, T)``. ``t`` (3,) is scratch.
    """
    for k in range(3):
        t[k] = R[k, 0] * C[j, 0] + R[k, 1] * C[j, 1] + R[k, 2] * C[j, 2] + T[k] - C[i, k]
    a0, a1, a2 = H[i, 0] + grow, H[i, 1] + grow, H[i, 2] + grow
    b0, b1, b2 = H[j, 0] + grow, H[j, 1] + grow, H[j, 2] + grow
    # A's face axes
    if abs(t[0]) > a0 + b0 * Q[0, 0] + b1 * Q[0, 1] + b2 * Q[0, 2]:
        return True
    if abs(t[1]) > a1 + b0 * Q[1, 0] + b1 * Q[1, 1] + b2 * Q[1, 2]:
        return True
    if abs(t[2]) > a2 + b0 * Q[2, 0] + b1 * Q[2, 1] + b2 * Q[2, 2]:
        return True
    # B's face axes
    for m in range(3):
        s = t[0] * R[0, m] + t[1] * R[1, m] + t[2] * R[2, m]
        bm = b0 if m == 0 else (b1 if m == 1 else b2)
        if abs(s) > a0 * Q[0, m] + a1 * Q[1, m] + a2 * Q[2, m] + bm:
            return True
    # edge-edge axes A_0 x B_m, A_1 x B_m, A_2 x B_m
    for m in range(3):
        m1 = (m + 1) % 3
        m2 = (m + 2) % 3
        b_m1 = b0 if m1 == 0 else (b1 if m1 == 1 else b2)
        b_m2 = b0 if m2 == 0 else (b1 if m2 == 1 else b2)
        if abs(t[2] * R[1, m] - t[1] * R[2, m]) > (a1 * Q[2, m] + a2 * Q[1, m]
                                                   + b_m1 * Q[0, m2] + b_m2 * Q[0, m1]):
            return True
        if abs(t[0] * R[2, m] - t[2] * R[0, m]) > (a2 * Q[0, m] + a0 * Q[2, m]
                                                   + b_m1 * Q[1, m2] + b_m2 * Q[1, m1]):
            return True
        if abs(t[1] * R[0, m] - t[0] * R[1, m]) > (a0 * Q[1, m] + a1 * Q[0, m]
                                                   + b_m1 * Q[2, m2] + b_m2 * Q[2, m1]):
            return True
    return False


@jit
def _overlap(R: Any, Q: Any, t: Any, C: Any, H: Any, i: int, j: int) -> float:  # pragma: no cover
    """How deeply boxes ``i`` and ``j`` overlap: the least relative overlap over the 15 axes.

    ``(ra + rb - |s|) / (ra + rb)`` per separating-axis candidate (see :func:`_apart`; ``t``
    must hold B's centre in A's frame as :func:`_apart` left it): 1 for coincident centres,
    0 for touching, negative for apart boxes.
    """
    a0, a1, a2 = H[i, 0], H[i, 1], H[i, 2]
    b0, b1, b2 = H[j, 0], H[j, 1], H[j, 2]
    least = 1.0
    for k in range(3):
        ak = a0 if k == 0 else (a1 if k == 1 else a2)
        r = ak + b0 * Q[k, 0] + b1 * Q[k, 1] + b2 * Q[k, 2]
        least = min(least, (r - abs(t[k])) / r)
    for m in range(3):
        bm = b0 if m == 0 else (b1 if m == 1 else b2)
        r = a0 * Q[0, m] + a1 * Q[1, m] + a2 * Q[2, m] + bm
        least = min(least, (r - abs(t[0] * R[0, m] + t[1] * R[1, m] + t[2] * R[2, m])) / r)
    for m in range(3):
        m1 = (m + 1) % 3
        m2 = (m + 2) % 3
        b_m1 = b0 if m1 == 0 else (b1 if m1 == 1 else b2)
        b_m2 = b0 if m2 == 0 else (b1 if m2 == 1 else b2)
        r = a1 * Q[2, m] + a2 * Q[1, m] + b_m1 * Q[0, m2] + b_m2 * Q[0, m1]
        least = min(least, (r - abs(t[2] * R[1, m] - t[1] * R[2, m])) / r)
        r = a2 * Q[0, m] + a0 * Q[2, m] + b_m1 * Q[1, m2] + b_m2 * Q[1, m1]
        least = min(least, (r - abs(t[0] * R[2, m] - t[2] * R[0, m])) / r)
        r = a0 * Q[1, m] + a1 * Q[0, m] + b_m1 * Q[2, m2] + b_m2 * Q[2, m1]
        least = min(least, (r - abs(t[1] * R[0, m] - t[0] * R[1, m])) / r)
    return least


@inline
def _boxes_apart(box_lo: Any, box_hi: Any, a: int, b: int,
                 gap: float) -> bool:  # pragma: no cover - compiled
    """Whether the world axis-aligned boxes of ``a`` and ``b`` are apart by more than ``gap``."""
    return bool(box_lo[a, 0] - box_hi[b, 0] > gap or box_lo[b, 0] - box_hi[a, 0] > gap
                or box_lo[a, 1] - box_hi[b, 1] > gap or box_lo[b, 1] - box_hi[a, 1] > gap
                or box_lo[a, 2] - box_hi[b, 2] > gap or box_lo[b, 2] - box_hi[a, 2] > gap)


@jit
def _test_pair(X_WG: Any, finite: Any, box_c: Any, box_h: Any, a: int, b: int, grow: float,
               deepest_first: bool, R: Any, Q: Any, T: Any,
               t: Any) -> float:  # pragma: no cover - compiled
    """Pair ``(a, b)`` with overlapping world boxes: NaN if culled, else its overlap depth.

    The oriented boxes' separating-axis test, then :func:`_overlap` if ``deepest_first`` (2 for
    an infinite box: never culled, tried first; 0 when not asked).
    """
    if not (finite[a] and finite[b]):
        return 2.0
    _relative(X_WG, a, b, R, Q, T)
    if _apart(R, Q, T, box_c, box_h, a, b, grow, t):
        return math.nan
    return _overlap(R, Q, t, box_c, box_h, a, b) if deepest_first else 0.0


@jit
def cull_pairs(pairs: Any, X_WG: Any, finite: Any, box_lo: Any, box_hi: Any, box_c: Any,
               box_h: Any, distance: float, deepest_first: bool,
               rows: Any) -> int:  # pragma: no cover - compiled
    """The rows of ``pairs`` whose geometries may be within ``distance`` (see the module doc).

    Args:
        pairs: ``(P, 2)`` geometry indices.
        X_WG: ``(G, 4, 4)`` geometry poses.
        finite: ``(G,)`` bool, whether the geometry's box is finite (else never culled).
        box_lo: ``(G, 3)`` world axis-aligned lower bounds, from :func:`world_boxes`.
        box_hi: ``(G, 3)`` world axis-aligned upper bounds, from :func:`world_boxes`.
        box_c: ``(G, 3)`` box centres in their geometry's frame [m] (local box centres).
        box_h: ``(G, 3)`` the boxes' half extents [m].
        distance: The distance ``d`` [m] (0 for collision).
        deepest_first: Order the kept rows by :func:`_overlap`, deepest first (pairs with an
            infinite box first of all; ties by row), instead of by row.
        rows: ``(P,)`` out: the kept rows in their first ``count`` entries.

    Returns:
        ``count``, the number of kept rows.
    """
    grow = 0.5 * distance + MARGIN
    gap = 2.0 * grow  # world boxes apart by more than this on one axis: culled
    R = np.empty((3, 3))
    Q = np.empty((3, 3))
    T = np.empty(3)
    t = np.empty(3)
    score = np.empty(pairs.shape[0])
    count = 0
    for r in range(pairs.shape[0]):
        a = pairs[r, 0]
        b = pairs[r, 1]
        if _boxes_apart(box_lo, box_hi, a, b, gap):
            continue
        depth = _test_pair(X_WG, finite, box_c, box_h, a, b, grow, deepest_first, R, Q, T, t)
        if depth == depth:  # not NaN: kept
            rows[count] = r
            score[count] = -depth
            count += 1
    if deepest_first and count > 1:
        by_depth = np.argsort(score[:count], kind='mergesort')
        kept = rows[:count].copy()
        for k in range(count):
            rows[k] = kept[by_depth[k]]
    return count


@jit
def _gap(X_WG: Any, C: Any, H: Any, a: int, b: int, R: Any, Q: Any, T: Any,
         t: Any) -> float:  # pragma: no cover - compiled
    """A lower bound on the distance between the oriented boxes of ``a`` and ``b`` [m].

    The largest gap between the two boxes' projections on the 15 separating-axis candidates
    (see :func:`_apart`), each axis normalised (edge-edge axes of near-parallel edges,
    shorter than 1e-6, are skipped: a weaker bound, never a wrong one); ``<= 0`` when no axis
    separates them. The ``1e-12`` added to ``|R|`` in ``Q`` only lowers the bound.
    """
    _relative(X_WG, a, b, R, Q, T)
    for k in range(3):
        t[k] = R[k, 0] * C[b, 0] + R[k, 1] * C[b, 1] + R[k, 2] * C[b, 2] + T[k] - C[a, k]
    a0, a1, a2 = H[a, 0], H[a, 1], H[a, 2]
    b0, b1, b2 = H[b, 0], H[b, 1], H[b, 2]
    best = -math.inf
    for k in range(3):
        ak = a0 if k == 0 else (a1 if k == 1 else a2)
        best = max(best, abs(t[k]) - (ak + b0 * Q[k, 0] + b1 * Q[k, 1] + b2 * Q[k, 2]))
    for m in range(3):
        bm = b0 if m == 0 else (b1 if m == 1 else b2)
        s = t[0] * R[0, m] + t[1] * R[1, m] + t[2] * R[2, m]
        best = max(best, abs(s) - (a0 * Q[0, m] + a1 * Q[1, m] + a2 * Q[2, m] + bm))
    for m in range(3):
        m1 = (m + 1) % 3
        m2 = (m + 2) % 3
        b_m1 = b0 if m1 == 0 else (b1 if m1 == 1 else b2)
        b_m2 = b0 if m2 == 0 else (b1 if m2 == 1 else b2)
        for k in range(3):  # axis A_k x B_m, of length sqrt(1 - R[k, m]^2)
            length = math.sqrt(max(0.0, 1.0 - R[k, m] * R[k, m]))
            if length < 1e-6:
                continue
            k1 = (k + 1) % 3
            k2 = (k + 2) % 3
            a_k1 = a0 if k1 == 0 else (a1 if k1 == 1 else a2)
            a_k2 = a0 if k2 == 0 else (a1 if k2 == 1 else a2)
            s = t[k2] * R[k1, m] - t[k1] * R[k2, m]
            r = a_k1 * Q[k2, m] + a_k2 * Q[k1, m] + b_m1 * Q[k, m2] + b_m2 * Q[k, m1]
            best = max(best, (abs(s) - r) / length)
    return best


@jit
def pair_bounds(pairs: Any, X_WG: Any, finite: Any, box_lo: Any, box_hi: Any, box_c: Any,
                box_h: Any, out: Any) -> None:  # pragma: no cover - compiled
    """Lower bounds on the distance of each pair's geometries [m], for a minimum-distance search.

    The larger of the world axis-aligned boxes' gap (Euclidean over the three axes) and the
    oriented boxes' largest separating-axis gap (:func:`_gap`), minus ``2 * MARGIN``, clamped
    at 0: a pair's signed distance is never below its bound, and a pair whose boxes may
    touch (or that has an infinite box) gets 0. The arguments are :func:`cull_pairs`'.

    Args:
        pairs: ``(P, 2)`` geometry indices.
        X_WG: ``(G, 4, 4)`` geometry poses.
        finite: ``(G,)`` bool, whether the geometry's box is finite.
        box_lo: ``(G, 3)`` world axis-aligned lower bounds, from :func:`world_boxes`.
        box_hi: ``(G, 3)`` world axis-aligned upper bounds.
        box_c: ``(G, 3)`` box centres in their geometry's frame [m].
        box_h: ``(G, 3)`` the boxes' half extents [m].
        out: ``(P,)`` float64 out: the bounds.
    """
    R = np.empty((3, 3))
    Q = np.empty((3, 3))
    T = np.empty(3)
    t = np.empty(3)
    for r in range(pairs.shape[0]):
        a = pairs[r, 0]
        b = pairs[r, 1]
        if not (finite[a] and finite[b]):
            out[r] = 0.0
            continue
        squared = 0.0
        for i in range(3):
            g = max(box_lo[a, i] - box_hi[b, i], box_lo[b, i] - box_hi[a, i], 0.0)
            squared += g * g
        bound = max(math.sqrt(squared), _gap(X_WG, box_c, box_h, a, b, R, Q, T, t))
        out[r] = max(bound - 2.0 * MARGIN, 0.0)


def bound(name: str) -> Any:
    """Kernel ``name`` of this module, called through its entry point once it is compiled.

    Returns a callable: the dispatcher until the kernel has been compiled (or loaded), its
    entry point after that (:func:`~robot_state_core.jit.kernels.entry_point`; no per-call
    argument typing). Callers pass the argument kinds the kernel's docstring gives (C-contiguous
    arrays of the documented dtypes and ranks).
    """
    kernel = globals()[name]
    entry = entry_point(kernel)
    return kernel if entry is None else entry
