"""Allowed-collision-matrix generation, like the MoveIt Setup Assistant's self-collision page.

:func:`generate_acm` classifies every pair of links that carry collision geometry:

* **Adjacent** — connected by one joint (links without collision geometry are skipped over, so
  a link and the geometry-carrying link behind a chain of fixed, geometry-less frames count as
  adjacent, as in the Setup Assistant);
* **Default** — in collision at the default configuration;
* **Always** — in collision in at least ``always_fraction`` of the sampled configurations;
* **Never** — in collision in none of the ``num_samples`` seeded random configurations.

Everything else is left enabled. :func:`srdf_disable_collisions` writes the disabled pairs as
SRDF ``<disable_collisions link1=... link2=... reason=.../>`` lines.
"""

from __future__ import annotations

from dataclasses import dataclass
import itertools
import time
from typing import Any, TextIO

import numpy as np

from robot_state_core import bounds, kinematics
from robot_state_core.robot_geometry import RobotGeometry

REASONS = ('Adjacent', 'Default', 'Always', 'Never')


@dataclass(frozen=True)
class AcmReport:
    """Result of :func:`generate_acm`.

    Attributes:
        pairs: ``(link1, link2, reason)`` of every disabled pair, sorted.
        collision_counts: ``{(link1, link2): samples in collision}`` for the sampled pairs.
        num_samples: Configurations sampled.
        enabled: Link pairs left enabled (they collided sometimes, but not always).
        elapsed: Seconds spent.
    """

    pairs: tuple[tuple[str, str, str], ...]
    collision_counts: dict[tuple[str, str], int]
    num_samples: int
    enabled: tuple[tuple[str, str], ...]
    elapsed: float

    def reason_counts(self) -> dict[str, int]:
        """How many pairs each reason disabled."""
        return {r: sum(1 for *_, reason in self.pairs if reason == r) for r in REASONS}


def adjacent_link_pairs(model: Any, links_with_geometry: set[str]) -> set[tuple[str, str]]:
    """Pairs of geometry-carrying links connected by a joint, skipping geometry-less links."""
    pairs: set[tuple[str, str]] = set()
    for j in range(model.joint_count):
        child = model.link_names[int(model.joint_child_link[j])]
        if child not in links_with_geometry:
            continue
        parent = int(model.joint_parent_link[j])
        while model.link_names[parent] not in links_with_geometry:
            pj = int(model.link_parent_joint[parent])
            if pj < 0:
                break
            parent = int(model.joint_parent_link[pj])
        name = model.link_names[parent]
        if name in links_with_geometry:
            a, b = sorted((child, name))
            pairs.add((a, b))
    return pairs


def generate_acm(model: Any, num_samples: int = 10000, seed: int = 0,
                 always_fraction: float = 0.95, progress: TextIO | None = None,
                 geometry: RobotGeometry | None = None) -> AcmReport:
    """Classify link pairs by sampling configurations (Setup Assistant semantics).

    Args:
        model: The robot model.
        num_samples: Random configurations (uniform within bounds; seeded).
        seed: Seed of the sampler.
        always_fraction: Fraction of samples in collision above which a pair is "Always".
        progress: Stream for progress lines (every 10 %), or ``None``.
        geometry: Prebuilt robot geometry (default: built from the model, exact meshes).

    Returns:
        The disabled pairs with reasons, the per-pair collision counts, and timings.
    """
    from robot_state_core.geometry.fcl_backend import FclObjects

    start = time.monotonic()
    geom = geometry or RobotGeometry(model)
    link_of = np.asarray(geom.geometry_link)
    links = sorted({model.link_names[i] for i in link_of.tolist()})
    index = {name: model.link_index(name) for name in links}
    adjacent = adjacent_link_pairs(model, set(links))
    link_pairs = [p for p in itertools.combinations(links, 2) if p not in adjacent]
    # geometry pairs of each link pair
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

    def colliding_link_pairs(q: np.ndarray, candidates: np.ndarray) -> set[int]:
        objects.set_poses(geom.world_poses(kinematics.forward_kinematics(model, q)))
        hits = objects.colliding_pairs(pair_array[candidates])
        return {owner_of[(int(a), int(b))] for a, b in hits.tolist()}

    everything = np.arange(len(pair_array))
    default_hits = colliding_link_pairs(np.asarray(model.default_positions), everything) \
        if len(pair_array) else set()
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(link_pairs), dtype=np.int64)
    active = np.array([owner_array[g] not in default_hits for g in range(len(pair_array))],
                      dtype=bool) if len(pair_array) else np.zeros(0, dtype=bool)
    samples = bounds.random_positions(model, rng, size=num_samples) if num_samples else None
    step = max(1, num_samples // 10)
    for n in range(num_samples):
        assert samples is not None
        if active.any():
            for k in colliding_link_pairs(samples[n], np.flatnonzero(active)):
                counts[k] += 1
        if progress is not None and (n + 1) % step == 0:
            print(f'gen-acm: {n + 1}/{num_samples} samples ({time.monotonic() - start:.1f} s)',
                  file=progress, flush=True)
    disabled: list[tuple[str, str, str]] = [(a, b, 'Adjacent') for a, b in sorted(adjacent)]
    enabled = []
    for k, (a, b) in enumerate(link_pairs):
        if k in default_hits:
            disabled.append((a, b, 'Default'))
        elif num_samples and counts[k] >= always_fraction * num_samples:
            disabled.append((a, b, 'Always'))
        elif counts[k] == 0 and num_samples:
            disabled.append((a, b, 'Never'))
        else:
            enabled.append((a, b))
    return AcmReport(tuple(sorted(disabled)),
                     {p: int(counts[k]) for k, p in enumerate(link_pairs)}, num_samples,
                     tuple(enabled), time.monotonic() - start)


def srdf_disable_collisions(report: AcmReport) -> str:
    """The disabled pairs as SRDF ``<disable_collisions>`` lines (one per pair)."""
    lines = [f'  <disable_collisions link1="{a}" link2="{b}" reason="{reason}"/>'
             for a, b, reason in report.pairs]
    header = (f'  <!-- generated by robot-state-core gen-acm: {report.num_samples} samples, '
              + ', '.join(f'{n} {r}' for r, n in report.reason_counts().items()) + ' -->')
    return '\n'.join([header, *lines]) + '\n'
