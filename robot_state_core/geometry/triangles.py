"""Triangle soups: nearest points and winding numbers of triangle meshes (numpy only).

The point queries on mesh shapes (:mod:`~robot_state_core.geometry.shapes.mesh` and
:mod:`~robot_state_core.geometry.shapes.convex`) and the fcl backend's sphere–mesh witnesses
use them: :class:`TriangleSoup` (per-triangle data for :func:`closest_point_on_triangles`),
:func:`winding_number` (inside or outside a closed mesh) and :class:`TriangleMesh` (a mesh's
arrays with its soup, built on first use).
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
import math

import numpy as np
from numpy.typing import NDArray

from robot_state_core._typing import FloatArray, Int64Array

__all__ = ['TriangleMesh', 'TriangleSoup', 'closest_point_on_triangles', 'winding_number']


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


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """A triangle mesh's arrays and its :class:`TriangleSoup` (built on first use, kept).

    Attributes:
        vertices: (V, 3) vertices [m].
        faces: (F, 3) counter-clockwise (seen from outside) vertex indices.
    """

    vertices: FloatArray
    faces: Int64Array

    @functools.cached_property
    def soup(self) -> TriangleSoup:
        """The triangles' :class:`TriangleSoup`."""
        return TriangleSoup.build(self.vertices, self.faces)
