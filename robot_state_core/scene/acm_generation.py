"""Allowed-collision-matrix generation, like the MoveIt Setup Assistant's self-collision page.

:func:`generate_acm` follows the phases of the Setup Assistant's ``computeDefaultCollisions``
(``moveit_setup_srdf_plugins/src/compute_default_collisions.cpp``) over every pair of links that
carry collision geometry, each phase seeing only the pairs the earlier ones left enabled:

1. **Adjacent** — the two links are joined by one joint, or through links without collision
   geometry: every geometry-carrying link around a connected group of geometry-less links is
   adjacent to every other one (so a link and the hand behind a geometry-less flange, or two
   siblings under a geometry-less parent, are adjacent), as in the Setup Assistant's
   connection graph.
2. **Default** — in collision at the model's default positions (``setToDefaultValues``: 0, or
   the middle of the bounds when 0 is outside them).
3. **Always** — batches of :data:`ALWAYS_BATCH` (200) uniformly random configurations; a pair
   in collision in more than ``int(200 * min_collision_fraction)`` (190 at the default 0.95)
   of a batch's samples is disabled; batches repeat until one disables nothing.
4. **Never** — ``num_samples`` more random configurations (10 000 by default, the Setup
   Assistant's default sampling density); a pair seen in collision in none of the samples of
   phases 3 and 4 is disabled. Once a pair has been seen in collision it is not checked again.

Everything else stays enabled. Checks use the links' collision geometry (not visual), exact
meshes and no padding (``checkSelfCollision`` collides the unpadded robot). The samples come
from one seeded generator, so a run is reproducible; the Setup Assistant seeds from the clock.
:func:`srdf_disable_collisions` writes the disabled pairs as SRDF
``<disable_collisions link1=... link2=... reason=.../>`` lines, sorted like the Setup
Assistant's output.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
import itertools
import time
from typing import TextIO

import numpy as np

from robot_state_core import kinematics
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.fcl_backend import FclObjects
from robot_state_core.kinematics import bounds
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.robot_geometry import RobotGeometry

REASONS = ('Adjacent', 'Default', 'Always', 'Never')

#: Samples per batch of the "always in collision" phase (the Setup Assistant's
#: ``SMALL_TRIAL_COUNT``).
ALWAYS_BATCH = 200

#: Random configurations of the "never in collision" phase by default (the Setup Assistant's
#: default sampling density).
DEFAULT_NUM_SAMPLES = 10000

# Configurations drawn (and their FK computed) at once.
_CHUNK = 500

#: Default minimum fraction of a batch in collision for "always" (the Setup Assistant's 95 %).
DEFAULT_MIN_COLLISION_FRACTION = 0.95


@dataclass(frozen=True)
class AcmReport:
    """Result of :func:`generate_acm`.

    Attributes:
        pairs: ``(link1, link2, reason)`` of every disabled pair, sorted (``link1 < link2``).
        collision_counts: ``{(link1, link2): samples in collision}`` over the samples of the
            "always" phase, for every pair that phase checked (neither adjacent nor in
            collision by default).
        always_samples: Samples drawn by the "always" phase (a multiple of
            :data:`ALWAYS_BATCH`).
        num_samples: Samples drawn by the "never" phase.
        first_collision: ``{(link1, link2): index}`` of the first sample (counting the
            "always" phase's samples first) in which each sampled pair was seen in collision.
            A pair absent here and not disabled by an earlier phase is "Never".
        enabled: Link pairs left enabled (seen in collision, but not "always").
        elapsed: Seconds spent.
    """

    pairs: tuple[tuple[str, str, str], ...]
    collision_counts: dict[tuple[str, str], int]
    always_samples: int
    num_samples: int
    first_collision: dict[tuple[str, str], int]
    enabled: tuple[tuple[str, str], ...]
    elapsed: float

    def reason_counts(self) -> dict[str, int]:
        """How many pairs each reason disabled."""
        return {r: sum(1 for *_, reason in self.pairs if reason == r) for r in REASONS}


def adjacent_link_pairs(model: RobotModel, links_with_geometry: set[str]) -> set[tuple[str, str]]:
    """Pairs of geometry-carrying links that the Setup Assistant calls adjacent.

    Two links are adjacent when a joint joins them, or when a path of joints joins them whose
    intermediate links all lack collision geometry (the fixed point of the Setup Assistant's
    ``computeConnectionGraph``: the neighbours of a geometry-less link are made neighbours of
    each other until nothing changes).

    Args:
        model: The robot model.
        links_with_geometry: Names of the links that carry collision geometry.

    Returns:
        ``(link1, link2)`` pairs with ``link1 < link2``.
    """
    neighbours: list[set[int]] = [set() for _ in range(len(model.link_names))]
    for j in range(model.joint_count):
        parent, child = int(model.joint_parent_link[j]), int(model.joint_child_link[j])
        neighbours[parent].add(child)
        neighbours[child].add(parent)
    solid = [name in links_with_geometry for name in model.link_names]
    pairs: set[tuple[str, str]] = set()

    def add(a: int, b: int) -> None:
        if a != b:
            first, second = sorted((model.link_names[a], model.link_names[b]))
            pairs.add((first, second))

    seen: set[int] = set()
    for start in range(len(model.link_names)):
        if solid[start]:
            for other in neighbours[start]:
                if solid[other]:
                    add(start, other)
            continue
        if start in seen:
            continue
        # a connected group of geometry-less links: its solid neighbours are all adjacent
        boundary: set[int] = set()
        stack = [start]
        seen.add(start)
        while stack:
            link = stack.pop()
            for other in neighbours[link]:
                if solid[other]:
                    boundary.add(other)
                elif other not in seen:
                    seen.add(other)
                    stack.append(other)
        for a, b in itertools.combinations(sorted(boundary), 2):
            add(a, b)
    return pairs


def generate_acm(model: RobotModel, num_samples: int = DEFAULT_NUM_SAMPLES, seed: int = 0,
                 always_fraction: float = DEFAULT_MIN_COLLISION_FRACTION,
                 progress: TextIO | None = None,
                 geometry: RobotGeometry | None = None) -> AcmReport:
    """Classify link pairs like the Setup Assistant's "Generate Collision Matrix".

    Args:
        model: The robot model.
        num_samples: Random configurations of the "never in collision" phase (>= 0; uniform
            within the bounds, seeded).
        seed: Seed of the sampler.
        always_fraction: The "always in collision" threshold, in (0, 1]: a pair colliding in
            more than ``int(200 * always_fraction)`` of a 200-sample batch is "Always".
        progress: Stream for progress lines (every 10 % of the "never" phase), or ``None``.
        geometry: Prebuilt robot geometry (default: built from the model, exact meshes, no
            padding).

    Returns:
        The disabled pairs with reasons, the "always" phase's collision counts, the first
        sample each pair collided in, and timings.

    Raises:
        InvalidArgumentError: ``num_samples`` is negative or ``always_fraction`` is outside
            (0, 1].
    """
    if int(num_samples) != num_samples or num_samples < 0:
        raise InvalidArgumentError(f'generate_acm: num_samples must be an integer >= 0, got '
                                   f'{num_samples!r}')
    if not 0.0 < float(always_fraction) <= 1.0:
        raise InvalidArgumentError(f'generate_acm: always_fraction must be in (0, 1], got '
                                   f'{always_fraction!r}')
    num_samples = int(num_samples)
    start = time.monotonic()
    geom = geometry or RobotGeometry(model)
    link_of = np.asarray(geom.geometry_link)
    links = sorted({model.link_names[i] for i in link_of.tolist()})
    index = {name: model.link_index(name) for name in links}
    adjacent = adjacent_link_pairs(model, set(links))
    link_pairs = [p for p in itertools.combinations(links, 2) if p not in adjacent]
    # the geometry pairs of each remaining link pair
    gpairs, owner = [], []
    for k, (a, b) in enumerate(link_pairs):
        ga = np.flatnonzero(link_of == index[a])
        gb = np.flatnonzero(link_of == index[b])
        for i, j in itertools.product(ga.tolist(), gb.tolist()):
            gpairs.append((i, j))
            owner.append(k)
    pair_array = np.array(gpairs, dtype=np.intp).reshape(-1, 2)
    owner_array = np.array(owner, dtype=np.intp)
    owner_of = {(int(a), int(b)): int(k) for (a, b), k in zip(gpairs, owner, strict=True)}
    objects = FclObjects(geom.shapes)

    def colliding_link_pairs(X_WL: np.ndarray, checked: np.ndarray) -> set[int]:
        """Link pairs (indices into ``link_pairs``) in collision among the ``checked`` ones."""
        rows = np.flatnonzero(checked[owner_array])
        if not len(rows):
            return set()
        objects.set_poses(geom.world_poses(X_WL))
        hits = objects.colliding_pairs(pair_array[rows], broadphase='aabb')
        return {owner_of[(int(a), int(b))] for a, b in hits.tolist()}

    def link_poses(count: int) -> Iterator[np.ndarray]:
        """``X_WL`` of ``count`` random configurations (batched FK, drawn in chunks)."""
        for begin in range(0, count, _CHUNK):
            q = bounds.random_positions(model, rng, size=min(_CHUNK, count - begin))
            yield from kinematics.forward_kinematics(model, q)

    reason: list[str | None] = [None] * len(link_pairs)
    enabled = np.ones(len(link_pairs), dtype=bool)
    # 2. Default
    X_default = kinematics.forward_kinematics(model, np.asarray(model.default_positions))
    for k in colliding_link_pairs(X_default, enabled):
        reason[k] = 'Default'
        enabled[k] = False
    rng = np.random.default_rng(seed)
    first: dict[int, int] = {}
    drawn = 0

    def note(k: int) -> None:
        first.setdefault(k, drawn)

    # 3. Always: batches until one disables nothing
    limit = int(ALWAYS_BATCH * float(always_fraction))
    counts = np.zeros(len(link_pairs), dtype=np.int64)
    checked_in_always = enabled.copy()
    while True:  # at least one batch, as in the Setup Assistant
        batch = np.zeros(len(link_pairs), dtype=np.int64)
        for X_WL in link_poses(ALWAYS_BATCH):
            for k in colliding_link_pairs(X_WL, enabled):
                batch[k] += 1
                note(k)
            drawn += 1
        counts += batch
        found = np.flatnonzero(enabled & (batch > limit))
        for k in found.tolist():
            reason[k] = 'Always'
        enabled[found] = False
        if not len(found):
            break
    always_samples = drawn
    # 4. Never: only pairs that were never seen yet are checked
    unseen = enabled.copy()
    unseen[list(first)] = False
    step = max(1, num_samples // 10)
    for n, X_WL in enumerate(link_poses(num_samples)):
        if unseen.any():
            for k in colliding_link_pairs(X_WL, unseen):
                note(k)
                unseen[k] = False
        drawn += 1
        if progress is not None and (n + 1) % step == 0:
            print(f'gen-acm: {n + 1}/{num_samples} samples ({time.monotonic() - start:.1f} s)',
                  file=progress, flush=True)
    disabled: list[tuple[str, str, str]] = [(a, b, 'Adjacent') for a, b in sorted(adjacent)]
    still_enabled = []
    for k, (a, b) in enumerate(link_pairs):
        r = reason[k]
        if r is None and k not in first:
            r = 'Never'
        if r is None:
            still_enabled.append((a, b))
        else:
            disabled.append((a, b, r))
    return AcmReport(tuple(sorted(disabled)),
                     {link_pairs[k]: int(counts[k]) for k in np.flatnonzero(checked_in_always)},
                     always_samples, num_samples,
                     {link_pairs[k]: n for k, n in sorted(first.items())},
                     tuple(still_enabled), time.monotonic() - start)


def srdf_disable_collisions(report: AcmReport) -> str:
    """The disabled pairs as SRDF ``<disable_collisions>`` lines (one per pair)."""
    lines = [f'  <disable_collisions link1="{a}" link2="{b}" reason="{reason}"/>'
             for a, b, reason in report.pairs]
    header = (f'  <!-- generated by robot-state-core gen-acm: {report.num_samples} samples, '
              + ', '.join(f'{n} {r}' for r, n in report.reason_counts().items()) + ' -->')
    return '\n'.join([header, *lines]) + '\n'
