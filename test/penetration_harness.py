"""Penetration accuracy of the collision backend against the support-function oracle (helper).

Shared by ``test/test_penetration_exact.py`` (a few poses per pair, asserted) and
``tools/penetration_table.py`` (>= 200 poses per pair, the report table). The product is
queried the way callers query it, through :class:`FclObjects` (``distance_pairs`` and
``collide_pairs``); the reference is :mod:`support_function_oracle`, which shares no code with
the product's GJK/EPA. python-fcl's own contact (MPR, what the backend used before) and coal's
``collide`` are measured alongside as context.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from support_function_oracle import (
    angle,
    Oracle,
    pair_names,
    penetrating_poses,
    Posed,
    surface_residual,
)

from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.geometry.meshes import load_mesh, mesh_hull
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

FloatArray = NDArray[np.float64]


def panda_hull(name: str = 'finger') -> Convex:
    """The convex hull of a Panda collision mesh.

    ``finger`` (18 hull vertices) scaled 4x to 8 x 10.6 x 21.5 cm, or ``link3`` (152 hull
    vertices, as it is).
    """
    from robot_corpus import example_robot_data_share

    path = str(example_robot_data_share()
               / f'robots/panda_description/meshes/collision/{name}.stl')
    scale = (4.0, 4.0, 4.0) if name == 'finger' else (1.0, 1.0, 1.0)
    return Convex(path, scale, path=path)


def shapes(hull: str = 'finger') -> list[tuple[str, Shape]]:
    """The shapes of the table (about 0.1-0.3 m, as robot links and world objects are)."""
    return [('sphere', Sphere(0.1)), ('box', Box(0.3, 0.2, 0.12)),
            ('cylinder', Cylinder(0.08, 0.3)), ('capsule', Capsule(0.06, 0.25)),
            ('ellipsoid', Ellipsoid(0.15, 0.1, 0.06)), ('cone', Cone(0.1, 0.25)),
            ('convex', panda_hull(hull))]


def pairs(hull: str = 'finger') -> list[tuple[str, Shape, Shape]]:
    """Every pair of :func:`shapes` (with repetition), then each of them with a half-space."""
    out = pair_names(shapes(hull))
    out += [(f'{name}-halfspace', shape, HalfSpace()) for name, shape in shapes(hull)]
    return out


@dataclass
class PairErrors:
    """Worst errors of one pair over its poses (metres and radians)."""

    poses: int = 0
    unique: int = 0
    depth: float = 0.0  # |(-distance) - oracle|, distance_pairs
    contact_depth: float = 0.0  # |contact.depth - oracle|, collide_pairs
    normal: float = 0.0  # angle(-nhat_BA_W, oracle n), unique minima only
    normal_excess: float = 0.0  # g(-nhat_BA_W) - oracle depth: the normal's own overlap
    witness: float = 0.0  # witnesses off their surfaces / supporting planes
    identity: float = 0.0  # |p_WCa - p_WCb - distance nhat|, Drake's identity
    apart_poses: int = 0
    distance: float = 0.0  # |distance - oracle distance| when apart (distance_pairs)
    apart_witness: float = 0.0  # the closest points off their surfaces / supporting planes
    fcl_distance: float = 0.0  # python-fcl's distance (libccd GJK) vs the oracle, when apart
    fcl_poses: int = 0  # poses python-fcl answered (it cannot take half-spaces)
    fcl_depth: float = 0.0  # python-fcl's own contact depth (MPR) vs the oracle
    fcl_normal: float = 0.0
    coal_depth: float = 0.0  # coal's collide depth vs the oracle


def coal_geometry(shape: Shape) -> object:
    """The coal geometry of one of our shapes (meshes as BVH, Convex as its hull)."""
    import coal

    if isinstance(shape, Box):
        return coal.Box(shape.x, shape.y, shape.z)
    if isinstance(shape, Sphere):
        return coal.Sphere(shape.radius)
    if isinstance(shape, Ellipsoid):
        return coal.Ellipsoid(shape.a, shape.b, shape.c)
    if isinstance(shape, Cylinder):
        return coal.Cylinder(shape.radius, shape.length)
    if isinstance(shape, Capsule):
        return coal.Capsule(shape.radius, shape.length)
    if isinstance(shape, Cone):
        return coal.Cone(shape.radius, shape.length)
    if isinstance(shape, HalfSpace):
        return coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)
    assert isinstance(shape, Mesh | Convex) and shape.path is not None
    v, f = (load_mesh if isinstance(shape, Mesh) else mesh_hull)(shape.path, shape.scale)
    model = coal.BVHModelOBBRSS()
    model.beginModel(len(f), len(v))
    model.addVertices(np.asarray(v))
    model.addTriangles(np.asarray(f))
    model.endModel()
    if isinstance(shape, Convex):
        model.buildConvexRepresentation(False)
        return model.convex
    return model


def _coal_depth(A: Shape, B: Shape, X_WA: FloatArray, X_WB: FloatArray) -> float:
    import coal

    result = coal.CollisionResult()
    hit = coal.collide(coal_geometry(A), coal.Transform3s(X_WA[:3, :3], X_WA[:3, 3]),
                       coal_geometry(B), coal.Transform3s(X_WB[:3, :3], X_WB[:3, 3]),
                       coal.CollisionRequest(coal.CollisionRequestFlag.CONTACT, 1), result)
    if not hit:
        return 0.0
    return abs(float(result.getContacts()[0].penetration_depth))  # coal: negative when deep


def measure(A: Shape, B: Shape, count: int, rng: np.random.Generator,
            peers: bool = True, apart: int = 0,
            record: list[tuple[FloatArray, FloatArray, float]] | None = None) -> PairErrors:
    """The worst errors of the backend on ``count`` random penetrating poses of ``(A, B)``.

    ``apart``: also that many poses with the shapes 1e-6 m to 5 cm apart (distance queries).
    ``record``: if given, each penetrating pose ``(X_WA, X_WB, oracle depth)`` is appended.
    """
    objects = FclObjects([A, B])
    pair = np.array([[0, 1]])
    out = PairErrors()
    for X_WA, X_WB, ref in penetrating_poses(A, B, count, rng):
        if record is not None:
            record.append((X_WA, X_WB, ref.depth))
        objects.set_poses(np.stack([X_WA, X_WB]))
        result = objects.distance_pairs(pair)[0]
        (contact,) = objects.collide_pairs(pair)
        n = -result.nhat_BA_W  # translating B by depth * n separates: the oracle's n
        PA, PB = Posed(A, X_WA), Posed(B, X_WB)
        oracle = Oracle(PA, PB)
        out.poses += 1
        out.depth = max(out.depth, abs(-result.distance - ref.depth))
        out.contact_depth = max(out.contact_depth, abs(contact.depth - ref.depth))
        if ref.unique:
            out.unique += 1
            out.normal = max(out.normal, angle(n, ref.n))
        out.normal_excess = max(out.normal_excess, float(oracle.g(n[None])[0]) - ref.depth)
        out.witness = max(out.witness, surface_residual(PA, result.p_WCa, n),
                          surface_residual(PB, result.p_WCb, -n),
                          surface_residual(PA, contact.p_WCa, -contact.nhat_BA_W),
                          surface_residual(PB, contact.p_WCb, contact.nhat_BA_W))
        out.identity = max(out.identity, float(np.linalg.norm(
            result.p_WCa - result.p_WCb - result.distance * result.nhat_BA_W)), float(
            np.linalg.norm(contact.p_WCb - contact.p_WCa - contact.depth * contact.nhat_BA_W)))
        if peers:
            fcl_contact = _fcl_contact(objects)
            if fcl_contact is not None:
                depth, nhat = fcl_contact
                out.fcl_poses += 1
                out.fcl_depth = max(out.fcl_depth, abs(depth - ref.depth))
                if ref.unique:
                    out.fcl_normal = max(out.fcl_normal, angle(-nhat, ref.n))
            out.coal_depth = max(out.coal_depth, abs(_coal_depth(A, B, X_WA, X_WB)
                                                     - ref.depth))
    for X_WA, X_WB, ref in (penetrating_poses(A, B, apart, rng, apart=True) if apart else ()):
        objects.set_poses(np.stack([X_WA, X_WB]))
        result = objects.distance_pairs(pair)[0]
        n = -result.nhat_BA_W
        out.apart_poses += 1
        out.distance = max(out.distance, abs(result.distance + ref.depth))
        out.apart_witness = max(out.apart_witness,
                                surface_residual(Posed(A, X_WA), result.p_WCa, n),
                                surface_residual(Posed(B, X_WB), result.p_WCb, -n))
        if peers and not any(isinstance(s, HalfSpace) for s in (A, B)):
            out.fcl_distance = max(out.fcl_distance, abs(_fcl_distance(objects) + ref.depth))
    return out


def _fcl_distance(objects: FclObjects) -> float:
    """python-fcl's own separation distance (libccd GJK)."""
    import fcl

    result = fcl.DistanceResult()
    return float(fcl.distance(objects.collision_object(0), objects.collision_object(1),
                              fcl.DistanceRequest(enable_nearest_points=True), result))


def _fcl_contact(objects: FclObjects) -> tuple[float, FloatArray] | None:
    """python-fcl's own contact ``(depth, nhat_BA_W)``.

    None when fcl finds no contact, or for a half-space pair (python-fcl cannot take those).
    """
    import fcl

    if any(isinstance(s, HalfSpace) for s in objects.shapes):
        return None
    result = fcl.CollisionResult()
    fcl.collide(objects.collision_object(0), objects.collision_object(1),
                fcl.CollisionRequest(num_max_contacts=1, enable_contact=True), result)
    if not result.contacts:
        return None
    c = result.contacts[0]
    normal = np.asarray(c.normal, dtype=np.float64)
    return abs(float(c.penetration_depth)), -normal / np.linalg.norm(normal)


def table(results: dict[str, PairErrors]) -> str:
    """The markdown table of :func:`measure` results."""
    lines = ['| pair | poses (unique normal) | depth err [m] | contact depth err [m] | '
             'normal err [rad] | normal excess [m] | witness off surface [m] | '
             'python-fcl depth err [m] | python-fcl normal err [rad] | coal depth err [m] | '
             'apart: poses | distance err [m] | witness off surface [m] | '
             'python-fcl distance err [m] |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for name, e in results.items():
        lines.append(f'| {name} | {e.poses} ({e.unique}) | {e.depth:.1e} | '
                     f'{e.contact_depth:.1e} | {e.normal:.1e} | {e.normal_excess:.1e} | '
                     f'{e.witness:.1e} | {_fmt(e.fcl_depth, e.fcl_poses)} | '
                     f'{_fmt(e.fcl_normal, e.fcl_poses)} | {e.coal_depth:.1e} | '
                     f'{e.apart_poses} | {_fmt(e.distance, e.apart_poses)} | '
                     f'{_fmt(e.apart_witness, e.apart_poses)} | '
                     f'{_fmt(e.fcl_distance, e.apart_poses * e.fcl_poses)} |')
    return '\n'.join(lines)


def _fmt(value: float, count: int) -> str:
    return '—' if count == 0 else f'{value:.1e}'
