"""Collision benchmarks: self collision, robot vs world, distance, broad phase, batches, profile.

Ours is ``robot_state_core.scene.planning_scene.PlanningScene`` (python-fcl narrow phase behind a
numpy front end). The peers, timed in the same process and loop (method in ``common.py``):

* **coal through Pinocchio**: ``pin.buildGeomFromUrdf(model, urdf, pin.COLLISION, ...)``,
  ``addAllCollisionPairs``, ``pin.removeCollisionPairs(model, geom, srdf)``, then
  ``pin.computeCollisions(model, data, geom, gdata, q, True)`` (FK, placements and the pair loop
  in C++, stop at the first collision) and ``pin.computeDistances`` for distances;
* **coal with its broad-phase manager**: the same geometry model and pairs through
  ``pin.BroadPhaseManager_DynamicAABBTreeCollisionManager`` (self collision and world boxes);
* **coal with our pruning** (minimum distance): ``pin.computeDistance`` per pair, visited in the
  order and with the stop rule of our best-first search, on the same compiled box bounds;
* **a plain python-fcl loop**: one ``fcl.CollisionObject`` per Pinocchio geometry (the very
  triangles coal loaded), poses from Pinocchio's FK (``updateGeometryPlacements``), then
  ``fcl.collide`` over the same pair list in a Python loop, stopping at the first hit.

All three check the **same geometry pairs**: Pinocchio's list after the SRDF removal is compared
with ours (``PlanningScene.candidate_pairs()``) and completed/trimmed to match; the counts are
in the report. Every part also reports verdict agreement over the sampled states (expected
100 %). States are uniform within the joint limits (fixed seed, mimic joints consistent).

Run through ``benchmarks/run.py`` (``--only collision``, or one part:
``--only self|world|distance|batch|profile``; ``--quick``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
import math
import sys
from typing import Any

from bench_kinematics import load_robot, random_q, Robot
from common import (
    fmt_ms,
    fmt_pct,
    fmt_rate,
    fmt_ratio,
    fmt_us,
    interleaved,
    Progress,
    quiet_native_output,
    REPO_ROOT,
    Section,
    Settings,
    Table,
    Target,
    Timing,
)
import numpy as np

NAME = 'collision'
TITLE = 'robot_state_core collision benchmarks'
PARTS = ('self', 'world', 'distance', 'batch', 'profile')

sys.path.insert(0, str(REPO_ROOT / 'test'))
import robot_corpus  # noqa: E402  (test helper: example-robot-data paths)

from robot_state_core import kinematics as kin  # noqa: E402
from robot_state_core.geometry.shapes import Box  # noqa: E402
from robot_state_core.scene.planning_scene import (  # noqa: E402
    CollisionObjectOperation,
    CollisionRequest,
    PlanningScene,
)

#: (corpus name, label) of the robots: example-robot-data meshes and SRDF ACMs.
ROBOTS = (
    ('panda', 'Panda (`panda.urdf` + `panda.srdf`)'),
    ('talos', 'Talos reduced (`talos_reduced.urdf` + `talos.srdf`)'),
)
BROADPHASES = ('pairs', 'aabb', 'manager')
DEFAULT_BROADPHASE = 'aabb'  # PlanningScene's default (what users get)

# Workload sizes (full run, quick run).
N_STATES = (1000, 100)  # sampled states per robot: verdicts, fraction in collision
SELF_TIME_STATES = {'panda': (1000, 50), 'talos': (200, 20)}  # states per timing sample
WORLD_TIME_STATES = {'panda': (200, 20), 'talos': (50, 10)}
DISTANCE_STATES = {'panda': (50, 5), 'talos': (5, 2)}  # collision-free states
BATCH_STATES = {'panda': (1000, 50), 'talos': (200, 20)}
PROFILE_STATES = {'panda': (100, 10), 'talos': (20, 5)}  # collision-free states

# The world: random boxes around the robot (seeded).
WORLD_BOXES = 100
BOX_EDGE = (0.04, 0.12)  # m, each edge uniform in this range
#: m added around the box of the link origins over the sampled states, per robot: chosen so
#: that about half of the states collide with the world (Talos' limbs sweep most of its box).
BOX_MARGIN = {'panda': 0.1, 'talos': 0.5}

# Targets of the issue.
TARGET_SELF_RATIO = 1.5  # the faster coal (pair list / manager) time over ours (issue 27)
TARGET_WORLD_RATIO = 1.3  # coal + manager time over ours, 100 world boxes (issue 27)
TARGET_DISTANCE_RATIO = 1.0  # coal (same pruning) time over ours, minimum distance (issue 27)
DISTANCE_TOLERANCE = 1e-6  # m, max |ours - coal| of the minimum distance
TARGET_AGREEMENT = 1.0  # fraction of states where ours and coal agree


def _size(settings: Settings, value: tuple[int, int]) -> int:
    return value[1] if settings.quick else value[0]


# ---------------------------------------------------------------------------- robots and peers


@dataclass
class PairCounts:
    """How Pinocchio's pair list was matched to ours."""

    pin_all: int  # addAllCollisionPairs
    pin_srdf: int  # after removeCollisionPairs(srdf)
    ours: int  # len(candidate_pairs())
    added: list[tuple[str, str]]  # link pairs we check that Pinocchio's list lacked
    removed: list[tuple[str, str]]  # link pairs Pinocchio's list had and we do not check
    final: int  # Pinocchio's list after the edits (== ours)


@dataclass
class CollisionRobot:
    """A robot with our model, the Pinocchio/coal geometry model and the sampled states."""

    robot: Robot  # model, Pinocchio model/data, q map
    gm: Any  # pinocchio.GeometryModel, pair list matched to ours
    gd: Any  # pinocchio.GeometryData
    our_to_pin: list[int]  # our geometry index -> Pinocchio geometry index
    counts: PairCounts
    Q: np.ndarray  # (N, nq) sampled states, ours
    QP: np.ndarray  # (N, nq_pin) the same states, Pinocchio layout
    in_collision: np.ndarray | None = None  # (N,) coal's self-collision verdicts
    scenes: dict[str, PlanningScene] = field(default_factory=dict)  # per broad phase

    @property
    def key(self) -> str:
        """Corpus name."""
        return self.robot.key

    @property
    def label(self) -> str:
        """Report label."""
        return self.robot.label

    def scene(self, broadphase: str = DEFAULT_BROADPHASE) -> PlanningScene:
        """A scene of this robot (empty world) with the given broad phase (cached)."""
        if broadphase not in self.scenes:
            self.scenes[broadphase] = PlanningScene(self.robot.model, broadphase=broadphase)
        return self.scenes[broadphase]

    def free_states(self, n: int) -> np.ndarray:
        """Indices of the first ``n`` sampled states that are not in self collision."""
        assert self.in_collision is not None
        return np.flatnonzero(~self.in_collision)[:n]


def _link_pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _geometry_maps(scene: PlanningScene, gm: Any, pm: Any) -> tuple[list[int], list[str]]:
    """Our geometry index -> Pinocchio's (same link, same rank within the link), pin links."""
    pin_links = [pm.frames[g.parentFrame].name for g in gm.geometryObjects]
    by_link: dict[str, list[int]] = {}
    for i, link in enumerate(pin_links):
        by_link.setdefault(link, []).append(i)
    geo = scene.geometry
    ours_links = [geo.link_name(k) for k in range(len(geo))]
    if sorted(ours_links) != sorted(pin_links):
        raise RuntimeError("our collision geometries and Pinocchio's differ per link")
    rank: dict[str, int] = {}
    out = []
    for link in ours_links:
        out.append(by_link[link][rank.get(link, 0)])
        rank[link] = rank.get(link, 0) + 1
    return out, pin_links


def load_collision_robot(key: str, label: str, settings: Settings,
                         rng: np.random.Generator) -> CollisionRobot:
    """Our model and scene, Pinocchio's geometry model with the same pairs, sampled states."""
    import pinocchio as pin

    robot = load_robot(key, label)
    r = robot_corpus.test_robot(key)
    assert r.srdf_path is not None
    share = robot_corpus.example_robot_data_share()
    with quiet_native_output():
        gm = pin.buildGeomFromUrdf(robot.pm, str(r.urdf_path), pin.COLLISION,
                                   package_dirs=[str(share.parent)])
    gm.addAllCollisionPairs()
    pin_all = len(gm.collisionPairs)
    pin.removeCollisionPairs(robot.pm, gm, str(r.srdf_path))
    pin_srdf = len(gm.collisionPairs)
    scene = PlanningScene(robot.model, broadphase=DEFAULT_BROADPHASE)
    our_to_pin, pin_links = _geometry_maps(scene, gm, robot.pm)
    index = {name: k for k, name in enumerate(scene.geometry.names)}
    ours = {tuple(sorted((our_to_pin[index[a]], our_to_pin[index[b]])))
            for a, b in scene.candidate_pairs()}
    theirs = {(int(p.first), int(p.second)) for p in gm.collisionPairs}
    added, removed = [], []
    for i, j in sorted(ours - theirs):
        gm.addCollisionPair(pin.CollisionPair(i, j))
        added.append(_link_pair(pin_links[i], pin_links[j]))
    for i, j in sorted(theirs - ours):
        gm.removeCollisionPair(pin.CollisionPair(i, j))
        removed.append(_link_pair(pin_links[i], pin_links[j]))
    final = {(int(p.first), int(p.second)) for p in gm.collisionPairs}
    if final != ours:
        raise RuntimeError(f"{key}: could not match Pinocchio's pair list to ours")
    counts = PairCounts(pin_all, pin_srdf, len(scene.candidate_pairs()), added, removed,
                        len(gm.collisionPairs))
    Q = random_q(robot.model, rng, _size(settings, N_STATES))
    cr = CollisionRobot(robot, gm, pin.GeometryData(gm), our_to_pin, counts, Q,
                        robot.pmap.q(Q))
    cr.scenes[DEFAULT_BROADPHASE] = scene
    return cr


def coal_verdicts(cr: CollisionRobot, gm: Any = None, gd: Any = None) -> np.ndarray:
    """The stop-at-first verdict of coal (through Pinocchio) for every sampled state."""
    import pinocchio as pin

    gm = cr.gm if gm is None else gm
    gd = cr.gd if gd is None else gd
    pm, pd = cr.robot.pm, cr.robot.pd
    return np.array([pin.computeCollisions(pm, pd, gm, gd, qp, True) for qp in cr.QP])


_FCL_MESHES: dict[tuple[str, tuple[float, ...]], Any] = {}


def _fcl_geometry(fcl: Any, obj: Any) -> Any:
    """The python-fcl twin of a Pinocchio geometry object (coal's triangles, same sizes).

    Mesh BVHs are built once per (file, scale) and shared.
    """
    import coal

    geometry = obj.geometry
    if isinstance(geometry, coal.BVHModelOBBRSS):
        key = (str(obj.meshPath), tuple(np.asarray(obj.meshScale, dtype=float).tolist()))
        if key in _FCL_MESHES:
            return _FCL_MESHES[key]
        vertices = np.asarray(geometry.vertices(), dtype=np.float64)
        tris = np.array([[t[0], t[1], t[2]] for t in
                         (geometry.tri_indices(k) for k in range(geometry.num_tris))],
                        dtype=np.int64)
        model = fcl.BVHModel()
        model.beginModel(len(tris), len(vertices))
        model.addSubModel(vertices, tris)
        model.endModel()
        _FCL_MESHES[key] = model
        return model
    if isinstance(geometry, coal.Box):
        return fcl.Box(*(2.0 * np.asarray(geometry.halfSide)))
    if isinstance(geometry, coal.Cylinder):
        return fcl.Cylinder(geometry.radius, 2.0 * geometry.halfLength)
    if isinstance(geometry, coal.Capsule):
        return fcl.Capsule(geometry.radius, 2.0 * geometry.halfLength)
    if isinstance(geometry, coal.Sphere):
        return fcl.Sphere(geometry.radius)
    raise TypeError(f'no python-fcl twin for {type(geometry).__name__}')


class FclLoop:
    """The plain python-fcl peer: Pinocchio FK + ``setTransform`` + ``fcl.collide`` loop.

    Geometries fixed to the universe (Pinocchio joint 0) are posed once; the others are pushed
    to fcl on every check. Pairs are Pinocchio's (same order).
    """

    def __init__(self, cr: CollisionRobot, gm: Any, gd: Any) -> None:
        import fcl
        import pinocchio as pin

        self.pm, self.pd, self.gm, self.gd = cr.robot.pm, cr.robot.pd, gm, gd
        self.objects = [fcl.CollisionObject(_fcl_geometry(fcl, g), fcl.Transform())
                        for g in gm.geometryObjects]
        self.pose_all(cr.QP[0])
        self.moving = [(i, self.objects[i]) for i, g in enumerate(gm.geometryObjects)
                       if g.parentJoint != 0]
        self.pairs = [(self.objects[p.first], self.objects[p.second])
                      for p in gm.collisionPairs]
        request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
        collide, result, update = fcl.collide, fcl.CollisionResult, pin.updateGeometryPlacements

        def check(qp: np.ndarray, pm: Any = self.pm, pd: Any = self.pd, gm: Any = gm,
                  gd: Any = gd, moving: list[tuple[int, Any]] = self.moving,
                  pairs: list[tuple[Any, Any]] = self.pairs) -> bool:
            update(pm, pd, gm, gd, qp)
            oMg = gd.oMg
            for i, obj in moving:
                M = oMg[i]
                obj.setRotation(M.rotation)
                obj.setTranslation(M.translation)
            for a, b in pairs:  # noqa: SIM110 (a plain loop: faster than any() over a generator)
                if collide(a, b, request, result()):
                    return True
            return False

        self.check = check

    def pose_all(self, qp: np.ndarray) -> None:
        """Pose every object (also the fixed ones) at Pinocchio configuration ``qp``."""
        import fcl
        import pinocchio as pin

        pin.updateGeometryPlacements(self.pm, self.pd, self.gm, self.gd, qp)
        for obj, M in zip(self.objects, self.gd.oMg, strict=True):
            obj.setTransform(fcl.Transform(M.rotation, M.translation))


# ---------------------------------------------------------------------------- helpers


def _ours_loop(scene: PlanningScene, Q: np.ndarray,
               request: CollisionRequest) -> Callable[[], list[bool]]:
    state = scene.current_state
    set_q, check = state.set_variable_positions, scene.check_collision

    def run() -> list[bool]:
        out = []
        for q in Q:
            set_q(q)
            out.append(check(state, request).collision)
        return out

    return run


def _coal_loop(cr: CollisionRobot, QP: np.ndarray, gm: Any, gd: Any,
               stop_at_first: bool = True) -> Callable[[], list[bool]]:
    import pinocchio as pin

    pm, pd, compute = cr.robot.pm, cr.robot.pd, pin.computeCollisions

    def run() -> list[bool]:
        return [compute(pm, pd, gm, gd, qp, stop_at_first) for qp in QP]

    return run


def _fcl_loop(peer: FclLoop, QP: np.ndarray) -> Callable[[], list[bool]]:
    check = peer.check

    def run() -> list[bool]:
        return [check(qp) for qp in QP]

    return run


def _per_state(t: Timing, n: int) -> str:
    """``median [min–max]`` µs per state from whole-batch samples."""
    return f'{fmt_us(t.median / n)} [{fmt_us(t.min / n)}–{fmt_us(t.max / n)}]'


def _agree(a: Sequence[bool] | np.ndarray, b: Sequence[bool] | np.ndarray) -> float:
    return float(np.mean(np.asarray(a, dtype=bool) == np.asarray(b, dtype=bool)))


@dataclass
class BroadphaseRow:
    """Broad-phase timings of one scenario (for the summary section)."""

    scenario: str
    pairs: int
    per_state: dict[str, float]  # broadphase -> median s/state


# ---------------------------------------------------------------------------- self collision


def bench_self(robots: Sequence[CollisionRobot], settings: Settings, progress: Progress,
               bp_rows: list[BroadphaseRow]) -> Section:
    import pinocchio as pin

    pairs_table = Table(['robot', 'geometries', 'pin `addAllCollisionPairs`',
                         'after `removeCollisionPairs(srdf)`', 'edits to match ours',
                         'ours `candidate_pairs()`', 'checked by all three'],
                        title='Pair sets')
    verdict_table = Table(['robot', 'states', 'in self collision (coal) %',
                           'ours vs coal %', 'coal + manager vs coal %',
                           'python-fcl loop vs coal %', "ours 'aabb' / 'manager' vs 'pairs' %"],
                          title='Verdict agreement over the sampled states')
    time_table = Table(['robot', 'tool', 'broad phase / pruning', 'µs/state', 'checks/s',
                        'speed vs coal (pair list)', 'speed vs the faster coal'],
                       title='Self-collision check, one state at a time (the boolean verdict)')
    section = Section(
        'Self collision, one state at a time',
        'Per state, FK included on every side: ours = `state.set_variable_positions(q)` + '
        '`scene.check_collision(state, CollisionRequest())` (verdict only, stops at the first '
        'hit) for each `broadphase`: `aabb` (as shipped: the compiled cull drops pairs whose '
        'oriented bounding boxes are apart, separating-axis test, and orders the survivors '
        "deepest box overlap first), `pairs` (**ours without the cull and the ordering**: "
        "python-fcl's narrow phase on every pair, in pair order) and `manager` (fcl's "
        'DynamicAABBTree through a Python callback); **coal on the pair list** = '
        '`pin.computeCollisions(model, data, geom, gdata, q, True)` (FK + placements + the '
        'narrow phase on every pair in order, each starting with a bounding-volume test of the '
        'two BVH roots, stop at first; no broad phase); **coal + manager** = the same geometry '
        'model and pairs through `pin.BroadPhaseManager_DynamicAABBTreeCollisionManager` '
        '(`pin.computeCollisions(model, data, manager, q, True)`: FK, placements, the AABB '
        "tree's update, its candidate pairs filtered in C++ by the same active pair list, so "
        'the same pairs are eligible and the verdict is the same, stop at first); coal all '
        'pairs = the pair list with `False` (reference); python-fcl loop = '
        '`updateGeometryPlacements` + `setRotation`/`setTranslation` of the moving objects + '
        '`fcl.collide` per pair, stop at first. Raw triangle meshes (OBBRSS BVHs) everywhere; '
        "ours uses `mesh_mode='exact'` (default). One timing sample = one pass over the first N "
        'sampled states (N in the robot column); cells are µs per state, median [min–max] over '
        f'the repeats. Target (issue 27): ours as shipped ≥ {TARGET_SELF_RATIO:.1f}× the faster '
        'of coal on the pair list and coal + manager (time ratio).',
        [pairs_table, verdict_table, time_table])
    request = CollisionRequest()
    for cr in robots:
        c = cr.counts
        edits = []
        if c.added:
            edits.append(f'+{len(c.added)}')
        if c.removed:
            edits.append(f'−{len(c.removed)}')
        pairs_table.add(cr.label, cr.gm.ngeoms, c.pin_all, c.pin_srdf, ' '.join(edits) or 'none',
                        c.ours, c.final)
        if c.added:
            section.notes.append(
                f"{cr.label}: Pinocchio's `addAllCollisionPairs` skips geometries on the same "
                f'Pinocchio joint; {len(c.added)} such pairs are checked by ours (the SRDF does '
                "not disable them) and were added to Pinocchio's list: "
                + ', '.join(f'{a}–{b}' for a, b in c.added) + '.')
        if c.removed:
            section.notes.append(f'{cr.label}: {len(c.removed)} Pinocchio pairs that ours does '
                                 'not check were removed: '
                                 + ', '.join(f'{a}–{b}' for a, b in c.removed) + '.')
        # Verdicts over every sampled state (untimed).
        coal = coal_verdicts(cr)
        cr.in_collision = coal
        manager = pin.BroadPhaseManager_DynamicAABBTreeCollisionManager(
            cr.robot.pm, cr.gm, pin.GeometryData(cr.gm))
        coal_mgr = np.array(_coal_manager_loop(cr, cr.QP, manager)())
        peer = FclLoop(cr, cr.gm, cr.gd)
        theirs_fcl = _fcl_loop(peer, cr.QP)()
        verdicts = {bp: _ours_loop(cr.scene(bp), cr.Q, request)() for bp in BROADPHASES}
        ours = verdicts[DEFAULT_BROADPHASE]
        agree_ours, agree_fcl = _agree(ours, coal), _agree(theirs_fcl, coal)
        agree_mgr = _agree(coal_mgr, coal)
        agree_bp = min(_agree(verdicts[bp], ours) for bp in BROADPHASES)
        verdict_table.add(cr.label, len(cr.Q), fmt_pct(coal.mean()), fmt_pct(agree_ours),
                          fmt_pct(agree_mgr), fmt_pct(agree_fcl), fmt_pct(agree_bp))
        section.targets.append(Target(
            'Self collision', f'{cr.label}: verdicts agree with coal on every state',
            f'{fmt_pct(agree_ours)}% of {len(cr.Q)}, without the cull (`pairs`) '
            f"{fmt_pct(_agree(verdicts['pairs'], coal))}% (coal + manager "
            f'{fmt_pct(agree_mgr)}%, python-fcl loop {fmt_pct(agree_fcl)}%)',
            agree_ours >= TARGET_AGREEMENT and _agree(verdicts['pairs'], coal)
            >= TARGET_AGREEMENT))
        # Timing.
        n = _size(settings, SELF_TIME_STATES[cr.key])
        Q, QP = cr.Q[:n], cr.QP[:n]
        cases: dict[str, Callable[[], object]] = {
            f'ours {bp}': _ours_loop(cr.scene(bp), Q, request) for bp in BROADPHASES}
        cases['coal'] = _coal_loop(cr, QP, cr.gm, cr.gd, True)
        cases['coal manager'] = _coal_manager_loop(cr, QP, manager)
        cases['coal all'] = _coal_loop(cr, QP, cr.gm, cr.gd, False)
        cases['fcl'] = _fcl_loop(peer, QP)
        t = interleaved(cases, settings.repeats, settings.sample_time, number=1)
        s = {name: t[name].median / n for name in cases}
        coal_s, mgr_s = s['coal'], s['coal manager']
        peer_best = min(coal_s, mgr_s)
        labels = {
            'ours aabb': ("ours `broadphase='aabb'` (as shipped)",
                          'compiled OBB cull + deepest-first order'),
            'ours pairs': ("ours `broadphase='pairs'` (no cull)", 'off: every pair, in order'),
            'ours manager': ("ours `broadphase='manager'`", 'fcl DynamicAABBTree (Python '
                             'callback)'),
            'coal': ('coal via Pinocchio, pair list, stop at first', 'off: every pair, in order'),
            'coal manager': ('coal via Pinocchio + `DynamicAABBTreeCollisionManager`, stop at '
                             'first', 'coal DynamicAABBTree, same pairs (C++ filter)'),
            'coal all': ('coal via Pinocchio, all pairs (reference)', 'off, no early exit'),
            'fcl': ('python-fcl loop, stop at first', 'off: every pair, in order'),
        }
        for name, (label, how) in labels.items():
            time_table.add(f'{cr.label}, {c.final} pairs, N={n} states '
                           f'({fmt_pct(coal[:n].mean())}% in collision)', label, how,
                           _per_state(t[name], n), fmt_rate(1 / s[name]),
                           fmt_ratio(coal_s / s[name]), fmt_ratio(peer_best / s[name]))
        bp_rows.append(BroadphaseRow(f'{cr.label}: self collision, verdict', c.final,
                                     {bp: s[f'ours {bp}'] for bp in BROADPHASES}))
        ours_s, nocull_s = s[f'ours {DEFAULT_BROADPHASE}'], s['ours pairs']
        ratio = peer_best / ours_s
        met = ratio >= TARGET_SELF_RATIO
        faster = 'coal + manager' if mgr_s < coal_s else 'coal on the pair list'
        section.targets.append(Target(
            'Self collision', f'{cr.label}: ours ≥ {TARGET_SELF_RATIO:.1f}× the faster of coal '
            'on the pair list and coal with its broad-phase manager (FK included on all sides)',
            f'ours as shipped (`aabb`: compiled OBB cull + deepest-first order) '
            f'{fmt_us(ours_s)} µs; ours without cull/order (`pairs`) {fmt_us(nocull_s)} µs; '
            f'coal on the pair list (no broad phase) {fmt_us(coal_s)} µs; coal + '
            f'DynamicAABBTree manager (same pairs) {fmt_us(mgr_s)} µs → {fmt_ratio(ratio)} the '
            f'faster ({faster}); without our cull {fmt_ratio(peer_best / nocull_s)}', met,
            '' if met else f'needs {fmt_ratio(TARGET_SELF_RATIO / ratio)} faster',
            key='self_collision', figures={'ours_s': ours_s, 'ours_nocull_s': nocull_s,
                                           'peer_pairs_s': coal_s, 'peer_manager_s': mgr_s}))
        progress.step(f'self        {cr.key:<6} {c.final} pairs, {fmt_pct(coal.mean())}% in '
                      f'collision; ours ' + ', '.join(
                          f'{bp} {fmt_us(s[f"ours {bp}"])}' for bp in BROADPHASES)
                      + f' µs; coal {fmt_us(coal_s)} µs, + manager {fmt_us(mgr_s)} µs; fcl loop '
                      f'{fmt_us(s["fcl"])} µs; agreement {fmt_pct(agree_ours)}% / '
                      f'{fmt_pct(agree_mgr)}% / {fmt_pct(agree_fcl)}%')
        if min(agree_ours, agree_fcl, agree_bp, agree_mgr) < 1.0:
            section.notes.append(f'**{cr.label}: verdicts disagree on some states** (see the '
                                 'agreement table).')
    section.notes.append('Stop-at-first cost depends on the pair order: coal on the pair list '
                         "and the python-fcl loop scan Pinocchio's pair order, ours `pairs` its "
                         "own (geometry order of the model), ours `aabb` the deepest box "
                         "overlap first, the managers their tree's order. States in collision "
                         'end early, so the fraction in collision matters when comparing with '
                         'other runs.')
    section.notes.append('Reference (baselines §3c, other run, adjacency-filtered 99 pairs, '
                         'not SRDF): coal `computeCollisions` on Panda meshes 96 µs all pairs '
                         '(10.4k/s), 89 µs stop at first; python-fcl pairwise loop 186 µs '
                         '(5.4k/s), of which ~60 µs FK + `setTransform`; pybullet (hulls) 46 µs. '
                         'pybullet is not in the dev venv and is not measured here.')
    return section


# ---------------------------------------------------------------------------- robot vs world


def _random_boxes(cr: CollisionRobot, rng: np.random.Generator,
                  robot_objects: list[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """``WORLD_BOXES`` random ``(edges, X_WB)`` around the robot, clear of its default state.

    The region is the box of the link origins over the sampled states plus ``BOX_MARGIN``;
    boxes touching ``robot_objects`` (the robot posed in its default state, so also every
    link fixed to the world, which would collide in every state) are redrawn.
    """
    import fcl

    origins = kin.forward_kinematics(cr.robot.model, cr.Q[:200])[:, :, :3, 3].reshape(-1, 3)
    margin = BOX_MARGIN[cr.key]
    lo, hi = origins.min(axis=0) - margin, origins.max(axis=0) + margin
    out: list[tuple[np.ndarray, np.ndarray]] = []
    while len(out) < WORLD_BOXES:
        edges = rng.uniform(*BOX_EDGE, size=3)
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        w, x, y, z = quat
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        X = np.eye(4)
        X[:3, :3], X[:3, 3] = R, rng.uniform(lo, hi)
        box = fcl.CollisionObject(fcl.Box(*edges), fcl.Transform(R, X[:3, 3]))
        request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
        if any(fcl.collide(box, s, request, fcl.CollisionResult()) for s in robot_objects):
            continue
        out.append((edges, X))
    return out


def bench_world(robots: Sequence[CollisionRobot], settings: Settings, progress: Progress,
                bp_rows: list[BroadphaseRow]) -> Section:
    import coal
    import pinocchio as pin

    verdict_table = Table(['robot', 'world pairs: ours / coal / python-fcl', 'states',
                           'in collision with the world (coal) %', 'ours vs coal %',
                           'python-fcl loop vs coal %', "ours 'aabb' / 'manager' vs 'pairs' %"],
                          title='Pairs and verdict agreement')
    time_table = Table(['robot', 'tool', 'µs/state', 'checks/s', 'speed vs coal (stop at first)'],
                       title=f'Robot vs world ({WORLD_BOXES} boxes), one state at a time')
    section = Section(
        f'Robot vs world: {WORLD_BOXES} random boxes',
        f'{WORLD_BOXES} boxes (edges uniform in {BOX_EDGE[0]:g}–{BOX_EDGE[1]:g} m, random '
        'orientation, seeded) uniform in the box spanned by the link origins over the sampled '
        'states plus a margin (' + ', '.join(f'{k} {v:g} m' for k, v in BOX_MARGIN.items())
        + ', chosen so that about half of the states collide); boxes touching the robot in '
        'its default state are redrawn (so no box touches a link fixed to the world). '
        'World collision only: ours = `check_collision(state, '
        'CollisionRequest(self_collision=False))` with the boxes added by '
        '`apply_world_object(ADD, ...)`, every robot geometry against every box; coal = the '
        'same boxes as `GeometryObject`s on joint 0 with the same pairs in '
        '`pin.computeCollisions(..., True)`; **coal with its broad phase** = the same geometry '
        'model and pairs through `pin.BroadPhaseManager_DynamicAABBTreeCollisionManager` '
        '(`pin.computeCollisions(model, data, manager, q, True)`: FK, placements, the '
        "manager's AABB-tree update and its candidate pairs filtered by the active pair "
        "list, stop at first) — the peer's fair counterpart of our `broadphase='aabb'`; "
        'python-fcl loop as in the self-collision part. Cells: µs per state, median '
        "[min–max]. Target (issue 27): ours (the scene's default broad phase, "
        f"`'{DEFAULT_BROADPHASE}'`: compiled OBB cull, deepest box overlap first) ≥ "
        f'{TARGET_WORLD_RATIO:.1f}× coal with its broad-phase manager.',
        [verdict_table, time_table])
    request = CollisionRequest(self_collision=False)
    for k, cr in enumerate(robots):
        rng = np.random.default_rng(settings.seed + 100 + k)
        with quiet_native_output():
            gm = pin.buildGeomFromUrdf(cr.robot.pm, str(robot_corpus.test_robot(cr.key).urdf_path),
                                       pin.COLLISION,
                                       package_dirs=[str(robot_corpus.example_robot_data_share()
                                                         .parent)])
        n_robot = gm.ngeoms
        probe = FclLoop(cr, cr.gm, cr.gd)
        probe.pose_all(cr.robot.pmap.q(cr.robot.model.default_positions))
        boxes = _random_boxes(cr, rng, probe.objects)
        scenes = {bp: PlanningScene(cr.robot.model, broadphase=bp) for bp in BROADPHASES}
        for b, (edges, X) in enumerate(boxes):
            for scene in scenes.values():
                scene.apply_world_object(CollisionObjectOperation.ADD, f'box{b}', X,
                                         [(Box(*edges), np.eye(4))])
            gm.addGeometryObject(pin.GeometryObject(
                f'box{b}', 0, 0, pin.SE3(X[:3, :3], X[:3, 3]), coal.Box(*edges)))
        # Pairs: ours first, mapped to Pinocchio's geometry indices.
        ours_names = scenes[DEFAULT_BROADPHASE].candidate_pairs(request=request)
        geo_index = {name: i for i, name in
                     enumerate(scenes[DEFAULT_BROADPHASE].geometry.names)}

        def pin_index(name: str, geo_index: dict[str, int] = geo_index,
                      cr: CollisionRobot = cr, n_robot: int = n_robot) -> int:
            if name in geo_index:
                return cr.our_to_pin[geo_index[name]]
            return n_robot + int(name.split('/')[0].removeprefix('box'))

        for a, b in ours_names:
            i, j = sorted((pin_index(a), pin_index(b)))
            gm.addCollisionPair(pin.CollisionPair(i, j))
        gd = pin.GeometryData(gm)
        peer = FclLoop(cr, gm, gd)
        coal_v = coal_verdicts(cr, gm, gd)
        gd_bp = pin.GeometryData(gm)
        manager = pin.BroadPhaseManager_DynamicAABBTreeCollisionManager(cr.robot.pm, gm, gd_bp)
        coal_bp_v = np.array(_coal_manager_loop(cr, cr.QP, manager)())
        agree_bp_coal = _agree(coal_bp_v, coal_v)
        fcl_v = _fcl_loop(peer, cr.QP)()
        verdicts = {bp: _ours_loop(scenes[bp], cr.Q, request)() for bp in BROADPHASES}
        ours_v = verdicts[DEFAULT_BROADPHASE]
        agree_ours, agree_fcl = _agree(ours_v, coal_v), _agree(fcl_v, coal_v)
        agree_bp = min(_agree(verdicts[bp], ours_v) for bp in BROADPHASES)
        verdict_table.add(cr.label, f'{len(ours_names)} / {len(gm.collisionPairs)} / '
                          f'{len(peer.pairs)}', len(cr.Q), fmt_pct(coal_v.mean()),
                          fmt_pct(agree_ours), fmt_pct(agree_fcl), fmt_pct(agree_bp))
        section.targets.append(Target(
            'Robot vs world', f'{cr.label}: verdicts agree with coal on every state',
            f'{fmt_pct(agree_ours)}% of {len(cr.Q)} (python-fcl loop {fmt_pct(agree_fcl)}%)',
            agree_ours >= TARGET_AGREEMENT))
        n = _size(settings, WORLD_TIME_STATES[cr.key])
        Q, QP = cr.Q[:n], cr.QP[:n]
        cases: dict[str, Callable[[], object]] = {
            f'ours {bp}': _ours_loop(scenes[bp], Q, request) for bp in BROADPHASES}
        cases['coal'] = _coal_loop(cr, QP, gm, gd, True)
        cases['coal bp'] = _coal_manager_loop(cr, QP, manager)
        cases['fcl'] = _fcl_loop(peer, QP)
        t = interleaved(cases, settings.repeats, settings.sample_time, number=1)
        coal_s = t['coal'].median / n
        labels = {f'ours {bp}': f"ours `broadphase='{bp}'`" for bp in BROADPHASES}
        labels |= {'coal': 'coal via Pinocchio, stop at first',
                   'coal bp': 'coal via Pinocchio + DynamicAABBTree broad phase, stop at first',
                   'fcl': 'python-fcl loop, stop at first'}
        for name, label in labels.items():
            s = t[name].median / n
            time_table.add(f'{cr.label}, {len(ours_names)} pairs, N={n} states '
                           f'({fmt_pct(coal_v[:n].mean())}% in collision)', label,
                           _per_state(t[name], n), fmt_rate(1 / s), fmt_ratio(coal_s / s))
        best = DEFAULT_BROADPHASE  # what users get
        coal_bp_s = t['coal bp'].median / n
        best_s = t[f'ours {best}'].median / n
        ratio = coal_bp_s / best_s
        met = ratio >= TARGET_WORLD_RATIO
        section.targets.append(Target(
            'Robot vs world', f'{cr.label}: ours ≥ {TARGET_WORLD_RATIO:.1f}× coal with its '
            'broad-phase manager',
            f'ours as shipped (`{best}`: compiled OBB cull + deepest-first order) '
            f'{fmt_us(best_s)} µs vs coal + DynamicAABBTree manager (same pairs, filtered in '
            f'C++) {fmt_us(coal_bp_s)} µs = {fmt_ratio(ratio)}; coal on the pair list (no '
            f'broad phase) {fmt_us(coal_s)} µs = {fmt_ratio(coal_s / best_s)} (manager verdicts '
            f'vs coal: {fmt_pct(agree_bp_coal)}%)', met,
            '' if met else f'needs {fmt_ratio(TARGET_WORLD_RATIO / ratio)} faster',
            key='world_boxes',
            figures={'ours_s': best_s, 'peer_s': coal_bp_s, 'peer_pairs_s': coal_s}))
        bp_rows.append(BroadphaseRow(f'{cr.label}: vs {WORLD_BOXES} boxes, verdict',
                                     len(ours_names),
                                     {bp: t[f'ours {bp}'].median / n for bp in BROADPHASES}))
        progress.step(f'world       {cr.key:<6} {len(ours_names)} pairs, '
                      f'{fmt_pct(coal_v.mean())}% in collision; ours ' + ', '.join(
                          f'{bp} {fmt_us(t[f"ours {bp}"].median / n)}' for bp in BROADPHASES)
                      + f' µs; coal {fmt_us(coal_s)} µs, with its broad phase '
                      f'{fmt_us(t["coal bp"].median / n)} µs; fcl loop '
                      f'{fmt_us(t["fcl"].median / n)} µs; agreement {fmt_pct(agree_ours)}% / '
                      f'{fmt_pct(agree_fcl)}%')
        if agree_ours < 1.0 or agree_fcl < 1.0 or agree_bp < 1.0:
            section.notes.append(f'**{cr.label}: world verdicts disagree on some states.**')
    return section


def _coal_manager_loop(cr: CollisionRobot, QP: np.ndarray,
                       manager: Any) -> Callable[[], list[bool]]:
    import pinocchio as pin

    pm, pd, compute = cr.robot.pm, cr.robot.pd, pin.computeCollisions

    def run() -> list[bool]:
        return [compute(pm, pd, manager, qp, True) for qp in QP]

    return run


# ---------------------------------------------------------------------------- distance


def bench_distance(robots: Sequence[CollisionRobot], settings: Settings,
                   progress: Progress) -> Section:
    import pinocchio as pin

    table = Table(['robot', 'states (collision-free)', 'ours ms/state',
                   'coal, same pruning ms/state', 'speed vs coal, same pruning',
                   'coal, all pairs ms/state', 'speed vs coal, all pairs',
                   'exact distance calls per state: ours / coal same pruning / all pairs',
                   'max \\|ours − coal\\| m', 'median distance m'])
    section = Section(
        'Minimum distance to collision, one state at a time',
        'Self collision only (empty world), same pairs as the self-collision part, FK included '
        'on every side. Ours = `set_variable_positions(q)` + `scene.distance_to_collision(state, '
        'self_collision=True, world_collision=False)`: **best-first pruning** — a lower bound '
        'per pair from the posed bounding boxes (compiled: the larger of the world AABB gap '
        "and the oriented boxes' largest separating-axis gap, `FclObjects.distance_bounds`), "
        'the pairs visited in increasing bound order, each exact distance (python-fcl, BVH '
        'vs BVH) computed once, stopping at the first pair whose bound exceeds the smallest '
        'distance so far. **coal, same pruning** = the same algorithm on coal, step for step: '
        '`pin.updateGeometryPlacements` (FK + placements), the same compiled bound kernel '
        "(`compiled.world_boxes` + `compiled.pair_bounds`, coal's local AABBs posed by "
        "`gdata.oMg`), the same visiting order and stop rule, `pin.computeDistance` per "
        'visited pair; the exact-call counts of both sides are in the table (equal work = '
        'equal counts). **coal, all pairs** = `pin.computeDistances(model, data, geom, gdata, '
        'q)` + `min(r.min_distance for r in gdata.distanceResults)` (no pruning). '
        'Collision-free states only (the first ones of the sample): for penetrating meshes '
        'coal reports 0 and ours minus the deepest triangle contact. Raw meshes, no broad-phase '
        'manager on any side. One sample = one pass over the states; cells: ms per state, '
        'median [min–max]. Target (issue 27): ours ≥ 1.0× coal with the same pruning.',
        [table])
    for cr in robots:
        if cr.in_collision is None:
            cr.in_collision = coal_verdicts(cr)
        idx = cr.free_states(_size(settings, DISTANCE_STATES[cr.key]))
        Q, QP = cr.Q[idx], cr.QP[idx]
        scene = cr.scene(DEFAULT_BROADPHASE)
        state = scene.current_state
        pm, pd, gm, gd = cr.robot.pm, cr.robot.pd, cr.gm, cr.gd

        def ours(Q: np.ndarray = Q, scene: PlanningScene = scene,
                 state: Any = state) -> list[float]:
            out = []
            for q in Q:
                state.set_variable_positions(q)
                out.append(scene.distance_to_collision(state, self_collision=True,
                                                       world_collision=False))
            return out

        def coal(QP: np.ndarray = QP, pm: Any = pm, pd: Any = pd, gm: Any = gm,
                 gd: Any = gd, compute: Any = pin.computeDistances) -> list[float]:
            out = []
            for qp in QP:
                compute(pm, pd, gm, gd, qp)
                out.append(min(r.min_distance for r in gd.distanceResults))
            return out

        coal_pruned = _coal_pruned_distance(cr, QP)
        d_ours, d_coal = np.array(ours()), np.array(coal())
        d_pruned = np.array(coal_pruned())
        calls_ours = _count_exact_calls(ours)
        calls_pruned = coal_pruned.calls  # type: ignore[attr-defined]
        diff = float(np.max(np.abs(d_ours - d_coal)))
        diff_pruned = float(np.max(np.abs(d_pruned - d_coal)))
        if diff_pruned > 1e-9:
            section.notes.append(f'**{cr.label}: coal with pruning differs from coal on all '
                                 f'pairs by {diff_pruned:.1e} m.**')
        n = len(idx)
        if calls_ours != calls_pruned:
            section.notes.append(f'**{cr.label}: exact distance calls differ: ours '
                                 f'{calls_ours}, coal with the same pruning {calls_pruned} over '
                                 f'{n} states.**')
        closest: Counter[tuple[str, str]] = Counter()
        links = [pm.frames[g.parentFrame].name for g in gm.geometryObjects]
        for qp in QP:
            pin.computeDistances(pm, pd, gm, gd, qp)
            k = int(np.argmin([r.min_distance for r in gd.distanceResults]))
            pair = gm.collisionPairs[k]
            closest[_link_pair(links[pair.first], links[pair.second])] += 1
        section.notes.append(f'{cr.label}: closest pair (coal) per state: ' + ', '.join(
            f'{a}–{b} ({c} of {n})' for (a, b), c in closest.most_common(3)) + '.')
        t = interleaved({'ours': ours, 'coal': coal, 'coal pruned': coal_pruned},
                        settings.repeats, settings.sample_time, number=1)

        def cell(tm: Timing, n: int = n) -> str:
            return f'{fmt_ms(tm.median / n)} [{fmt_ms(tm.min / n)}–{fmt_ms(tm.max / n)}]'

        ours_s, pruned_s, all_s = (t[k].median / n for k in ('ours', 'coal pruned', 'coal'))
        P = cr.counts.final
        table.add(f'{cr.label}, {P} pairs', n, cell(t['ours']), cell(t['coal pruned']),
                  fmt_ratio(pruned_s / ours_s), cell(t['coal']), fmt_ratio(all_s / ours_s),
                  f'{calls_ours / n:.2f} / {calls_pruned / n:.2f} / {P}', f'{diff:.1e}',
                  f'{np.median(d_coal):.4f}')
        ratio = pruned_s / ours_s
        met = ratio >= TARGET_DISTANCE_RATIO and diff <= DISTANCE_TOLERANCE
        section.targets.append(Target(
            'Minimum distance', f'{cr.label}: ours ≥ {TARGET_DISTANCE_RATIO:.1f}× coal with the '
            'same pruning (collision-free states)',
            f'ours (best-first pruning on compiled box bounds, no broad-phase manager) '
            f'{fmt_ms(ours_s)} ms vs coal with the same pruning {fmt_ms(pruned_s)} ms = '
            f'{fmt_ratio(ratio)} ({calls_ours / n:.2f} / {calls_pruned / n:.2f} exact calls per '
            f'state); coal on all {P} pairs (no pruning) {fmt_ms(all_s)} ms = '
            f'{fmt_ratio(all_s / ours_s)}; largest deviation from coal {diff:.1e} m', met,
            '' if met else (f'distances differ by {diff:.1e} m' if diff > DISTANCE_TOLERANCE
                            else f'needs {fmt_ratio(TARGET_DISTANCE_RATIO / ratio)} faster'),
            key='distance',
            figures={'ours_s': ours_s, 'peer_s': pruned_s, 'peer_all_s': all_s}))
        progress.step(f'distance    {cr.key:<6} {n} states: ours {fmt_ms(ours_s)} ms, coal same '
                      f'pruning {fmt_ms(pruned_s)} ms, all pairs {fmt_ms(all_s)} ms; exact calls '
                      f'{calls_ours / n:.2f} / {calls_pruned / n:.2f} per state; max diff '
                      f'{diff:.1e} m')
        if diff > DISTANCE_TOLERANCE:
            section.notes.append(f'**{cr.label}: distances disagree with coal by {diff:.1e} m.**')
    section.notes.append('Exact calls: ours counted in an untimed pass (a counter around the '
                         'pair measure of `FclObjects._best_first`), coal with the same pruning '
                         'counted by '
                         'its own loop. The minimum is the same in all three (max \\|Δ\\| '
                         'column; tolerance 1e-6 m).')
    section.notes.append('Reference (baselines §3c, other run, 99 pairs): coal '
                         '`computeDistances` on Panda meshes 7.8 ms, python-fcl loop 7.3 ms.')
    return section


def _count_exact_calls(run: Callable[[], object]) -> int:
    """Exact pair distances ours computes in one untimed ``run()``.

    Counts the pairs the best-first search measures (a counter around the ``measure``
    callable ``FclObjects._best_first`` receives; one exact distance per pair).
    """
    from robot_state_core.geometry.fcl_backend import FclObjects

    original = FclObjects._best_first
    calls = [0]

    def counted(self: Any, table: Any, measure: Callable[[int, int], Any]) -> Any:
        def counting(a: int, b: int) -> Any:
            calls[0] += 1
            return measure(a, b)

        return original(self, table, counting)

    FclObjects._best_first = counted  # type: ignore[method-assign]
    try:
        run()
    finally:
        FclObjects._best_first = original  # type: ignore[method-assign]
    return calls[0]


class _CoalPruned:
    """Minimum distance on coal with our pruning, step for step (see the distance section).

    ``calls`` counts the ``pin.computeDistance`` calls of the last ``__call__``.
    """

    def __init__(self, cr: CollisionRobot, QP: np.ndarray) -> None:
        import pinocchio as pin

        from robot_state_core.geometry.fcl_backend import compiled_broadphase

        self.pm, self.pd, self.gm, self.QP = cr.robot.pm, cr.robot.pd, cr.gm, QP
        self.gd = pin.GeometryData(cr.gm)
        lo, hi = [], []
        for g in cr.gm.geometryObjects:
            g.geometry.computeLocalAABB()
            lo.append(np.asarray(g.geometry.aabb_local.min_, dtype=float))
            hi.append(np.asarray(g.geometry.aabb_local.max_, dtype=float))
        self.lo_G, self.hi_G = np.array(lo), np.array(hi)
        self.box_c = np.ascontiguousarray(0.5 * (self.lo_G + self.hi_G))
        self.box_h = np.ascontiguousarray(0.5 * (self.hi_G - self.lo_G))
        n = len(lo)
        self.finite = np.ones(n, dtype=bool)
        self.box_lo, self.box_hi = np.zeros((n, 3)), np.zeros((n, 3))
        self.pairs = np.ascontiguousarray(
            [(int(p.first), int(p.second)) for p in cr.gm.collisionPairs], dtype=np.intp)
        kernels = compiled_broadphase()
        self.world_boxes = kernels.bound('world_boxes')
        self.pair_bounds = kernels.bound('pair_bounds')
        self.calls = 0

    def __call__(self) -> list[float]:
        import pinocchio as pin

        pm, pd, gm, gd = self.pm, self.pd, self.gm, self.gd
        update, distance = pin.updateGeometryPlacements, pin.computeDistance
        lo_G, hi_G, finite, box_lo, box_hi = (self.lo_G, self.hi_G, self.finite, self.box_lo,
                                              self.box_hi)
        box_c, box_h, pairs = self.box_c, self.box_h, self.pairs
        world_boxes, pair_bounds = self.world_boxes, self.pair_bounds
        bounds = np.empty(len(pairs))
        calls = 0
        out = []
        for qp in self.QP:
            update(pm, pd, gm, gd, qp)
            X_WG = np.array([M.homogeneous for M in gd.oMg])
            world_boxes(lo_G, hi_G, X_WG, finite, box_lo, box_hi)
            pair_bounds(pairs, X_WG, finite, box_lo, box_hi, box_c, box_h, bounds)
            order = np.argsort(bounds, kind='stable')
            best, limit = math.inf, math.inf
            for r, bound in zip(order.tolist(), bounds[order].tolist(), strict=True):
                if bound > limit:
                    break
                calls += 1
                d = distance(gm, gd, r).min_distance
                if d < best:
                    best, limit = d, max(d, 0.0)
            out.append(best)
        self.calls = calls
        return out


def _coal_pruned_distance(cr: CollisionRobot, QP: np.ndarray) -> _CoalPruned:
    """Minimum distance on coal with our pruning (best first on the same compiled bounds)."""
    return _CoalPruned(cr, QP)


# ---------------------------------------------------------------------------- batched states


def bench_batch(robots: Sequence[CollisionRobot], settings: Settings,
                progress: Progress) -> Section:
    table = Table(['robot', 'way', 'µs/state', 'states/s', 'vs the plain loop'])
    section = Section(
        'Many states: loop vs batched',
        '`PlanningScene` has no batched collision API (every query takes one `RobotState`), so '
        'the baseline is the plain loop `set_variable_positions(q)` + `check_collision(state)`. '
        'The "batched FK" rows are a **prototype built on private scene internals** (not an '
        'API): one `kinematics.forward_kinematics(model, Q)` call for all N states, then per '
        'state `FclObjects.set_frame_poses` (compiled: geometry poses and their boxes) and '
        '`FclObjects.any_collision` on the same compiled pair array. It shows what a batched '
        "entry point could save; verdicts are checked equal to the loop's. Each sample is "
        'the whole batch.',
        [table])
    request = CollisionRequest()
    for cr in robots:
        n = _size(settings, BATCH_STATES[cr.key])
        Q = cr.Q[:n]
        cases: dict[str, Callable[[], object]] = {}
        labels: dict[str, str] = {}
        for bp in ('pairs', 'aabb'):
            scene = cr.scene(bp)
            cases[f'loop {bp}'] = _ours_loop(scene, Q, request)
            labels[f'loop {bp}'] = f"loop, `broadphase='{bp}'`"
            try:
                cases[f'batch {bp}'] = _batched_prototype(scene, Q, bp)
                labels[f'batch {bp}'] = f"batched FK prototype, `'{bp}'`"
            except AttributeError as exc:  # scene internals changed
                section.notes.append(f'{cr.label}: batched prototype skipped ({exc}).')
        ref = cases['loop pairs']()
        for name, case in cases.items():
            if name.startswith('batch') and case() != ref:
                section.notes.append(f'**{cr.label}: {name} verdicts differ from the loop.**')
        cases['coal'] = _coal_loop(cr, cr.QP[:n], cr.gm, cr.gd, True)
        labels['coal'] = 'coal via Pinocchio loop, stop at first (reference)'
        t = interleaved(cases, settings.repeats, settings.sample_time, number=1)
        base = t['loop pairs'].median
        for name, label in labels.items():
            s = t[name].median / n
            table.add(f'{cr.label}, N={n}', label, _per_state(t[name], n), fmt_rate(1 / s),
                      fmt_ratio(base / t[name].median))
        progress.step(f'batch       {cr.key:<6} N={n}: ' + ', '.join(
            f'{name} {fmt_us(t[name].median / n)}' for name in cases) + ' µs/state')
    return section


def _internals(scene: PlanningScene) -> tuple[Any, Any, np.ndarray]:
    """``(layout, fcl objects, unconditional self pairs)`` of a scene (private internals).

    Raises:
        AttributeError: The scene's internals changed, or CONDITIONAL ACM entries are present.
    """
    layout, _query, sel = scene._query(scene.current_state, True, True, None)
    if len(sel.conditional):
        raise AttributeError('CONDITIONAL ACM entries are not handled by the prototype')
    return layout, scene._objects(layout), sel.unconditional


def _batched_prototype(scene: PlanningScene, Q: np.ndarray,
                       broadphase: str) -> Callable[[], list[bool]]:
    """Batched FK + per-state pose push + ``any_collision`` (private internals, see section)."""
    layout, objects, pairs = _internals(scene)
    model = scene.model
    moving, X_LS = layout.moving_link, layout.X_LS

    def run() -> list[bool]:
        X_WL = kin.forward_kinematics(model, Q)
        out = []
        for X in X_WL:
            objects.set_frame_poses(X, moving, X_LS)
            out.append(objects.any_collision(pairs, broadphase=broadphase))
        return out

    return run


# ---------------------------------------------------------------------------- profile


PROFILE_ROWS = (
    'full `check_collision` (pairs)', 'full `check_collision` (aabb)',
    'FK: `set_variable_positions` + `get_link_poses`',
    'FK alone: `kinematics.forward_kinematics(model, q)`',
    'pose push: `FclObjects.set_frame_poses`',
    'Δ narrow phase, ours `any_collision(pairs)`',
    'rest of `check_collision` (pairs): full − FK − push − narrow phase',
    'Δ narrow phase, ours `any_collision(aabb)`',
    'Δ compiled OBB cull alone: `FclObjects.cull(pairs, deepest_first=True)`',
    'Δ raw python-fcl loop over the same pairs',
    'coal `computeCollisions`, all pairs (FK + narrow phase in C++)',
    'pairs (narrow-phase calls per state with `pairs`)',
    'pairs surviving the AABB prefilter (mean)',
    'ours per pair: Δ `any_collision(pairs)` / pairs',
    'raw python-fcl per pair', 'our Python overhead per pair',
    'coal per pair (all pairs, incl. its FK)',
)


def bench_profile(robots: Sequence[CollisionRobot], settings: Settings,
                  progress: Progress) -> Section:
    table = Table(['component, µs per state', *[f'{cr.label}' for cr in robots]])
    section = Section(
        'Where our time goes (self collision, collision-free states)',
        'All rows of one robot are timed interleaved on the same collision-free states (so '
        'every pair reaches the narrow phase: no early exit), µs per state. Rows marked Δ '
        'are differences of two timed loops (pose push + the step, minus the pose-push loop); '
        'the pose-push loop starts from precomputed link poses `X_WL`. The raw python-fcl loop '
        'is the least Python around the same narrow phase: a prebuilt list of object pairs and '
        '`fcl.collide(a, b, request, fcl.CollisionResult())`. Uses private scene internals '
        '(`_query`, `_objects`) to isolate the steps.',
        [table])
    columns: list[list[str]] = []
    for cr in robots:
        try:
            cells, line, summary = _profile_robot(cr, settings)
        except AttributeError as exc:  # scene internals changed
            section.notes.append(f'{cr.label}: skipped, scene internals changed ({exc}).')
            cells, line = ['n/a'] * len(PROFILE_ROWS), 'skipped'
        else:
            section.notes.append(summary)
        columns.append(cells)
        progress.step(f'profile     {cr.key:<6} {line}')
    for k, label in enumerate(PROFILE_ROWS):
        table.add(label, *[c[k] for c in columns])
    section.notes.append('Per-pair rows are µs per pair. "Our Python overhead per pair" = ours '
                         'minus the raw loop (both allocate one `CollisionResult` per pair): '
                         'the extra `FclObjects._hit` call with its two list lookups, the '
                         '`any(...)` generator and the `tolist()` of the pair array.')
    return section


def _profile_robot(cr: CollisionRobot, settings: Settings) -> tuple[list[str], str, str]:
    """The profile column of one robot, a progress line and a summary note."""
    import fcl
    import pinocchio as pin

    if cr.in_collision is None:
        cr.in_collision = coal_verdicts(cr)
    idx = cr.free_states(_size(settings, PROFILE_STATES[cr.key]))
    Q, QP = cr.Q[idx], cr.QP[idx]
    n = len(idx)
    model = cr.robot.model
    scene = cr.scene('pairs')
    state = scene.current_state
    layout, objects, pairs = _internals(scene)
    moving, X_LS = layout.moving_link, layout.X_LS
    raw_pairs = [(objects.collision_object(a), objects.collision_object(b))
                 for a, b in pairs.tolist()]
    X_all = kin.forward_kinematics(model, Q)
    fcl_request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
    collide, result = fcl.collide, fcl.CollisionResult
    pm, pd, gm, gd = cr.robot.pm, cr.robot.pd, cr.gm, cr.gd

    def push() -> None:
        for X in X_all:
            objects.set_frame_poses(X, moving, X_LS)

    def push_ours(bp: str) -> Callable[[], None]:
        def run() -> None:
            for X in X_all:
                objects.set_frame_poses(X, moving, X_LS)
                objects.any_collision(pairs, broadphase=bp)
        return run

    def push_aabb() -> None:
        for X in X_all:
            objects.set_frame_poses(X, moving, X_LS)
            objects.cull(pairs, deepest_first=True)

    def push_raw() -> None:
        for X in X_all:
            objects.set_frame_poses(X, moving, X_LS)
            objects._push_all()  # the raw pairs hold the fcl objects: pose them all
            for a, b in raw_pairs:
                if collide(a, b, fcl_request, result()):
                    break

    def fk_state() -> None:
        for q in Q:
            state.set_variable_positions(q)
            state.get_link_poses()

    def fk_alone() -> None:
        for q in Q:
            kin.forward_kinematics(model, q)

    def coal_all() -> None:
        for qp in QP:
            pin.computeCollisions(pm, pd, gm, gd, qp, False)

    request = CollisionRequest()
    cases: dict[str, Callable[[], object]] = {
        'full pairs': _ours_loop(scene, Q, request),
        'full aabb': _ours_loop(cr.scene('aabb'), Q, request),
        'fk state': fk_state, 'fk alone': fk_alone, 'push': push,
        'push ours pairs': push_ours('pairs'), 'push ours aabb': push_ours('aabb'),
        'push aabb': push_aabb, 'push raw': push_raw, 'coal all': coal_all,
    }
    t = interleaved(cases, settings.repeats, settings.sample_time, number=1)
    us = {k: v.median / n * 1e6 for k, v in t.items()}
    survivors = []
    for X in X_all:
        objects.set_frame_poses(X, moving, X_LS)
        survivors.append(len(objects.cull(pairs)))
    P = len(pairs)
    narrow = us['push ours pairs'] - us['push']
    raw = us['push raw'] - us['push']
    rest = us['full pairs'] - us['fk state'] - us['push'] - narrow
    values = [us['full pairs'], us['full aabb'], us['fk state'], us['fk alone'], us['push'],
              narrow, rest, us['push ours aabb'] - us['push'], us['push aabb'] - us['push'], raw,
              us['coal all']]
    cells = [f'{v:,.1f}' for v in values]
    cells += [f'{P}', f'{np.mean(survivors):.1f}', f'{narrow / P:.2f}', f'{raw / P:.2f}',
              f'{(narrow - raw) / P:.2f}', f'{us["coal all"] / P:.2f}']
    line = (f'{n} free states: full {us["full pairs"]:.0f} µs = FK {us["fk state"]:.0f} + push '
            f'{us["push"]:.0f} + narrow phase {narrow:.0f} ({P} pairs; raw fcl loop {raw:.0f}); '
            f'aabb full {us["full aabb"]:.0f} µs; coal all pairs {us["coal all"]:.0f} µs')
    full = us['full pairs']

    def share(x: float) -> str:
        return f'{x:.0f} µs ({100 * x / full:.0f}%)'

    summary = (f'{cr.label}: a collision-free check with `pairs` takes {full:.0f} µs = FK '
               f'{share(us["fk state"])} + pose push {share(us["push"])} + narrow phase '
               f'{share(narrow)} ({P} pairs at {raw / P:.2f} µs in python-fcl + '
               f'{(narrow - raw) / P:.2f} µs of our Python each) + the rest {share(rest)}. With '
               f'`aabb`: {us["full aabb"]:.0f} µs, of which the compiled OBB cull costs '
               f'{us["push aabb"] - us["push"]:.0f} µs and leaves {np.mean(survivors):.1f} pairs. '
               f'coal does FK, placements and all {P} pairs in {us["coal all"]:.0f} µs.')
    return cells, line, summary


# ---------------------------------------------------------------------------- broad phase


def broadphase_section(rows: Sequence[BroadphaseRow]) -> Section:
    table = Table(['scenario', 'pairs', *[f"`'{bp}'` µs/state" for bp in BROADPHASES],
                   'fastest', f"fastest vs `'{DEFAULT_BROADPHASE}'` (default)"])
    section = Section(
        'Broad phase: `pairs` vs `aabb` vs `manager`',
        'Medians from the self-collision and robot-vs-world tables above (same runs). '
        "`'pairs'` runs the narrow phase on every candidate pair, `'aabb'` first drops pairs "
        "whose oriented bounding boxes are apart (compiled: world AABBs, then the separating-"
        "axis test) and, for a verdict, tries the deepest overlap first, `'manager'` lets fcl's "
        '`DynamicAABBTreeCollisionManager` propose pairs through a Python callback. The '
        f"default is `'{DEFAULT_BROADPHASE}'`, the PlanningScene's.",
        [table])
    section.notes.append("`'manager'` pays a Python callback per proposed pair, and python-fcl "
                         'hands the callback fresh wrapper objects (baselines §4.5), so ours '
                         'finds the geometries by a pose lookup before the narrow phase.')
    section.notes.append("`'aabb'` costs one compiled prefilter call per state (see the "
                         'profile part), then runs the narrow phase only on pairs whose boxes '
                         "overlap, and pushes only those geometries' poses into python-fcl.")
    for r in rows:
        best = min(BROADPHASES, key=lambda bp: r.per_state[bp])
        table.add(r.scenario, r.pairs, *[fmt_us(r.per_state[bp]) for bp in BROADPHASES],
                  f'`{best}`', fmt_ratio(r.per_state[DEFAULT_BROADPHASE] / r.per_state[best])
                  + ' faster' if best != DEFAULT_BROADPHASE else '—')
    return section


# ---------------------------------------------------------------------------- entry


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Run the selected parts (``self``, ``world``, ``distance``, ``batch``, ``profile``)."""
    robots = []
    for k, (key, label) in enumerate(ROBOTS):
        cr = load_collision_robot(key, label, settings, np.random.default_rng(settings.seed + k))
        robots.append(cr)
        c = cr.counts
        progress.step(f'robot       {key:<6} {cr.gm.ngeoms} geometries; pairs: pin all '
                      f'{c.pin_all}, after SRDF {c.pin_srdf}, ours {c.ours}, matched '
                      f'{c.final} (+{len(c.added)} −{len(c.removed)}); {len(cr.Q)} states')
    sections: list[Section] = []
    bp_rows: list[BroadphaseRow] = []
    if 'self' in parts:
        sections.append(bench_self(robots, settings, progress, bp_rows))
    if 'world' in parts:
        sections.append(bench_world(robots, settings, progress, bp_rows))
    if bp_rows:
        sections.append(broadphase_section(bp_rows))
    if 'distance' in parts:
        sections.append(bench_distance(robots, settings, progress))
    if 'batch' in parts:
        sections.append(bench_batch(robots, settings, progress))
    if 'profile' in parts:
        sections.append(bench_profile(robots, settings, progress))
    return sections


if __name__ == '__main__':
    import run as _run

    raise SystemExit(_run.main(['--module', NAME, *sys.argv[1:]]))
