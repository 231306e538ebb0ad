"""Generated parts for reach studies (tests and benchmarks/bench_reach.py share them)."""

from __future__ import annotations

import numpy as np
import trimesh

#: The plate: half edge, half edge of its square hole, half thickness [m].
PLATE_HALF, HOLE_HALF, PLATE_HALF_THICKNESS = 0.15, 0.05, 0.02


def plate_with_hole() -> trimesh.Trimesh:
    """A 30 x 30 x 4 cm plate with a 10 x 10 cm square hole, wound with outward normals.

    Raises:
        RuntimeError: The generated mesh is not closed and outward-wound (a bug here).
    """
    a, b, h = PLATE_HALF, HOLE_HALF, PLATE_HALF_THICKNESS
    ring = [(-a, -a), (a, -a), (a, a), (-a, a)]
    hole = [(-b, -b), (b, -b), (b, b), (-b, b)]
    v = np.array([(x, y, z) for z in (h, -h) for x, y in ring + hole])  # 0-7 top, 8-15 bottom
    faces = []
    for k in range(4):
        o, o2, i, i2 = k, (k + 1) % 4, 4 + k, 4 + (k + 1) % 4
        faces += [(o, o2, i2), (o, i2, i)]  # top, facing +z
        faces += [(8 + o, 8 + i2, 8 + o2), (8 + o, 8 + i, 8 + i2)]  # bottom, facing -z
        faces += [(o, 8 + o, 8 + o2), (o, 8 + o2, o2)]  # outer wall, facing out
        faces += [(i, i2, 8 + i2), (i, 8 + i2, 8 + i)]  # hole wall, facing the hole's axis
    mesh = trimesh.Trimesh(v, np.array(faces), process=False)
    if not (mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0):
        raise RuntimeError('the generated plate is not a closed, outward-wound mesh')
    return mesh
