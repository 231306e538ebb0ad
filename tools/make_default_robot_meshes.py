#!/usr/bin/env python3
"""Generate the team-made STL meshes of the embedded default robot.

The default robot ``rsc_mobile_manipulator`` (see
``robot_state_core/robots/rsc_mobile_manipulator/``) uses primitives for almost
all of its geometry, plus two small visual meshes that this script writes:

* ``camera_housing.stl`` -- a rounded box (all edges and corners filleted),
  30 mm deep (x) x 100 mm wide (y) x 25 mm high (z) in the camera frame,
  centred on the origin, fillet radius 5 mm, 300 triangles.
* ``gripper_palm.stl``  -- a chamfered box, 60 (x) x 120 (y) x 50 (z) mm, 6 mm
  chamfers, bottom face on z = 0 (the gripper mounting plane), 44 triangles.

Both are written in **millimetres** (as most CAD exports are), so the URDF
references them with ``scale="0.001 0.001 0.001"``.

Properties guaranteed by construction (and checked when the script runs):

* closed 2-manifold (every edge shared by exactly two triangles),
* counter-clockwise winding seen from outside, facet normals pointing out,
* binary STL, a few hundred triangles at most, well under 50 kB,
* byte-identical output on every run and platform: only additions,
  multiplications, divisions and square roots of exactly representable
  inputs are used (no trigonometry, no randomness, no time stamp in the
  header), and vertices are cast to float32 before normals are computed.

Usage::

    python3 tools/make_default_robot_meshes.py [--out-dir DIR] [--check]

``--check`` writes nothing and exits 1 if the committed files differ from what
the script would generate.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import struct
import sys

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT_DIR = REPO_ROOT / 'robot_state_core' / 'robots' / 'rsc_mobile_manipulator' / 'meshes'

# --------------------------------------------------------------------------- geometry


def _face_grid(axis: int, sign: int, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and CCW-outward triangles of one face of the cube [-h, h]^3.

    ``coords`` are the 1-D sample positions (ascending, from -h to h) used on
    both in-plane axes; the face lies in the plane ``x[axis] = sign * h`` with
    h = coords[-1]. Returns (vertices (n*n, 3), triangles (m, 3)).
    """
    u_axis, v_axis = [a for a in range(3) if a != axis]
    n = len(coords)
    verts = np.zeros((n * n, 3))
    for i in range(n):
        for j in range(n):
            p = verts[i * n + j]
            p[axis] = sign * coords[-1]
            p[u_axis] = coords[i]
            p[v_axis] = coords[j]
    # Quads are wound (u, v) -> CCW about +axis when (e_u x e_v) . e_axis > 0,
    # i.e. for axis 0 (y, z) and axis 2 (x, y) but not for axis 1 (x, z).
    # Choose the winding so that it is CCW seen from outside (normal along sign*e_axis).
    e = np.zeros(3)
    e[axis] = 1.0
    eu = np.zeros(3)
    eu[u_axis] = 1.0
    ev = np.zeros(3)
    ev[v_axis] = 1.0
    right_handed = np.dot(np.cross(eu, ev), e) > 0
    ccw = right_handed == (sign > 0)
    tris = []
    for i in range(n - 1):
        for j in range(n - 1):
            a = i * n + j
            b = (i + 1) * n + j
            c = (i + 1) * n + j + 1
            d = i * n + j + 1
            if ccw:
                tris += [(a, b, c), (a, c, d)]
            else:
                tris += [(a, c, b), (a, d, c)]
    return verts, np.array(tris, dtype=np.int64)


def _merge(
    vert_blocks: list[np.ndarray], tri_blocks: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate blocks and weld vertices that coincide exactly."""
    shifted: list[np.ndarray] = []
    offset = 0
    for v, t in zip(vert_blocks, tri_blocks, strict=True):
        shifted.append(t + offset)
        offset += len(v)
    verts = np.concatenate(vert_blocks)
    tris = np.concatenate(shifted)
    # Exact weld: the grid coordinates are exactly representable, so equal
    # points are bit-identical. np.unique sorts lexicographically -> deterministic.
    uniq, inverse = np.unique(verts, axis=0, return_inverse=True)
    return uniq, inverse.reshape(-1)[tris]


def rounded_box(
    size: tuple[float, float, float], radius: float, arc_segments: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Box of full extents ``size`` centred at the origin with filleted edges.

    A subdivided unit cube is built (each face sampled so that the flat part and
    the fillet band are separated), then every vertex v is mapped to
    clamp(v, inner) + radius * normalize(v - clamp(v, inner)).
    """
    half = np.asarray(size, dtype=float) / 2.0
    inner = half - radius
    if np.any(inner <= 0):
        raise ValueError('radius too large for box')
    # Work in "band units" on the cube [-2, 2]^3: |c| <= 1 is the flat part of a face
    # (one quad), 1 <= |c| <= 2 the fillet band, split into ``arc_segments`` strips.
    band = [k / arc_segments for k in range(arc_segments + 1)]  # 0 .. 1, exact binary fractions
    coords = np.unique(np.array([-(1.0 + b) for b in band] + [1.0 + b for b in band]))
    blocks_v: list[np.ndarray] = []
    blocks_t: list[np.ndarray] = []
    for axis in range(3):
        for sign in (-1, 1):
            v, t = _face_grid(axis, sign, coords)
            blocks_v.append(v)
            blocks_t.append(t)
    verts, tris = _merge(blocks_v, blocks_t)
    # band units -> metric: |c| <= 1 maps linearly onto [-inner, inner];
    # |c| in [1, 2] is the fillet band, mapped onto the rounded surface.
    clamped = np.clip(verts, -1.0, 1.0)
    out_dir = verts - clamped  # in band units, each component in [-1, 1]
    norm = np.sqrt(np.sum(out_dir * out_dir, axis=1, keepdims=True))
    unit = out_dir / norm  # every vertex lies on the cube surface |c|=2 -> norm >= 1
    points = clamped * inner + radius * unit
    return points, tris


def chamfered_box(
    size: tuple[float, float, float], chamfer: float
) -> tuple[np.ndarray, np.ndarray]:
    """Convex box of full extents ``size`` with all 12 edges chamfered by ``chamfer``.

    Centred at the origin. 24 vertices, 44 triangles (6 faces, 12 bevels, 8 corners).
    """
    half = np.asarray(size, dtype=float) / 2.0
    # For each corner (sx, sy, sz) three vertices, each pulled in along two axes.
    corner_pts: list[np.ndarray] = []
    index: dict[tuple[int, int, int, int], int] = {}
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                s = np.array([sx, sy, sz], dtype=float)
                for keep in range(3):  # the axis on which the vertex stays on the face plane
                    p = s * (half - chamfer)
                    p[keep] = s[keep] * half[keep]
                    index[(sx, sy, sz, keep)] = len(corner_pts)
                    corner_pts.append(p)
    verts = np.array(corner_pts)
    quads: list[list[int]] = []
    # Main faces: on face (axis, sign) the 4 corner vertices with keep == axis.
    for axis in range(3):
        for sign in (-1, 1):
            q = []
            others = [a for a in range(3) if a != axis]
            for s1, s2 in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                key = [0, 0, 0]
                key[axis] = sign
                key[others[0]] = s1
                key[others[1]] = s2
                q.append(index[(key[0], key[1], key[2], axis)])
            quads.append(q)
    # Bevels: edge parallel to axis e, at signs (s1, s2) on the other two axes.
    for e in range(3):
        a1, a2 = [a for a in range(3) if a != e]
        for s1 in (-1, 1):
            for s2 in (-1, 1):
                q = []
                for se, keep in ((-1, a1), (1, a1), (1, a2), (-1, a2)):
                    key = [0, 0, 0]
                    key[e] = se
                    key[a1] = s1
                    key[a2] = s2
                    q.append(index[(key[0], key[1], key[2], keep)])
                quads.append(q)
    tri_list: list[list[int]] = []
    for q in quads:
        tri_list += [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
    # Corners.
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                tri_list.append([index[(sx, sy, sz, k)] for k in range(3)])
    tris = np.array(tri_list, dtype=np.int64)
    return verts, _orient_outward_convex(verts, tris)


def _orient_outward_convex(verts: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """For a convex solid containing the origin, flip triangles whose normal points inward."""
    tris = tris.copy()
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    n = np.cross(b - a, c - a)
    centroid = (a + b + c) / 3.0
    inward = np.sum(n * centroid, axis=1) < 0
    tris[inward] = tris[inward][:, [0, 2, 1]]
    return tris


# --------------------------------------------------------------------------- checks


def check_mesh(verts: np.ndarray, tris: np.ndarray) -> float:
    """Assert closed, consistently oriented, outward; return the enclosed volume."""
    edges = {}
    for t in tris:
        for k in range(3):
            e = (int(t[k]), int(t[(k + 1) % 3]))
            if e in edges:
                raise AssertionError(f'directed edge {e} used twice: inconsistent winding')
            edges[e] = True
    for a, b in edges:
        if (b, a) not in edges:
            raise AssertionError(f'edge {(a, b)} has no opposite: not watertight')
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    area2 = np.linalg.norm(np.cross(b - a, c - a), axis=1)
    if np.any(area2 <= 0):
        raise AssertionError('degenerate triangle')
    volume = float(np.sum(np.einsum('ij,ij->i', a, np.cross(b, c))) / 6.0)
    if volume <= 0:
        raise AssertionError('non-positive volume: normals point inward')
    return volume


# --------------------------------------------------------------------------- STL I/O


def binary_stl(verts: np.ndarray, tris: np.ndarray, name: str) -> bytes:
    """Serialise to binary STL (little-endian float32, attribute byte count 0)."""
    v32 = verts.astype('<f4')
    tri_v = v32[tris]  # (m, 3, 3) float32
    t64 = tri_v.astype(np.float64)
    n = np.cross(t64[:, 1] - t64[:, 0], t64[:, 2] - t64[:, 0])
    n /= np.sqrt(np.sum(n * n, axis=1, keepdims=True))
    header = f'robot_state_core {name} (mm) tools/make_default_robot_meshes.py'.encode('ascii')
    header = header[:80].ljust(80, b' ')
    record = np.zeros(
        len(tris),
        dtype=[('normal', '<f4', 3), ('v', '<f4', (3, 3)), ('attr', '<u2')],
    )
    record['normal'] = n.astype('<f4')
    record['v'] = tri_v
    return header + struct.pack('<I', len(tris)) + record.tobytes()


# --------------------------------------------------------------------------- main


def build_meshes() -> dict[str, bytes]:
    meshes = {
        # camera frame: x forward (depth 30 mm), y left (width 100 mm), z up (height 25 mm)
        'camera_housing': rounded_box((30.0, 100.0, 25.0), radius=5.0, arc_segments=2),
        'gripper_palm': chamfered_box((60.0, 120.0, 50.0), chamfer=6.0),
    }
    out = {}
    for name, (verts, tris) in meshes.items():
        if name == 'gripper_palm':
            verts = verts + np.array([0.0, 0.0, 25.0])  # bottom face on z = 0
        check_mesh(verts.astype('<f4').astype(np.float64), tris)
        out[name + '.stl'] = binary_stl(verts, tris, name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out-dir', type=Path, default=DEFAULT_OUT_DIR)
    parser.add_argument(
        '--check', action='store_true', help='compare with existing files, write nothing'
    )
    args = parser.parse_args(argv)
    status = 0
    for fname, data in build_meshes().items():
        path = args.out_dir / fname
        if args.check:
            same = path.is_file() and path.read_bytes() == data
            print(f'{path}: {"up to date" if same else "DIFFERS"}')
            status |= 0 if same else 1
        else:
            args.out_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f'wrote {path} ({len(data)} bytes, {(len(data) - 84) // 50} triangles)')
    return status


if __name__ == '__main__':
    sys.exit(main())
