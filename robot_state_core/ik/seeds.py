"""Where a search's rows start: uniform samples, restart pools and the per-problem seed table.

Step 5 of the solver's algorithm (:mod:`.solver`). The first row of a problem is the
request's seed; the others, and every restart, come from a pool of uniform samples within the
bounds (:func:`sample_rows`, :func:`pool_size`) ranked by their initial tip error
(:func:`pool_score`: the samples whose tips are closest to the targets first), then from fresh
samples. Single requests draw the pool from the problem's seed table (:func:`seed_table`):
samples drawn once from a fixed-seed generator whose tip poses, in the frame of the problem's
anchor link (:func:`in_anchor`, :func:`anchor_targets`), are filled as requests use them; a
pool is a window of consecutive table rows at a random offset (:func:`table_window`), so
ranking costs no FK. The search (:mod:`.search`) fills, ranks and consumes the pools.
"""

from __future__ import annotations

import numpy as np

from robot_state_core._typing import BoolArray, FloatArray, IntArray
from robot_state_core.ik.problem import Problem, ProblemEntry
from robot_state_core.jit import kernels
from robot_state_core.kinematics.forward import run_forward
from robot_state_core.kinematics.plan import KinematicsPlan
from robot_state_core.spatial.transforms import random_quat_xyzw

__all__ = [
    'TABLE_SIZE',
    'SeedTable',
    'anchor_targets',
    'in_anchor',
    'pool_score',
    'pool_size',
    'sample_rows',
    'seed_table',
    'table_window',
]

_POOL_FACTOR = 32
'''Restart pool size per problem, in multiples of ``num_seeds``.'''
_POOL_ROWS = 4096
'''Pool samples of all problems together, at most (bounds the set-up cost of batches).'''
TABLE_SIZE = 2048
'''Cached pool samples per problem (single problems draw their pools from them).'''
_TABLE_SEED = 0x1C0FFEE
_CYCLE = np.arange(2 * TABLE_SIZE, dtype=np.intp) % TABLE_SIZE
'''Table rows ``0 .. N - 1`` twice: ``_CYCLE[off:off + size]`` is a wrapping window.'''

SeedTable = tuple[FloatArray, FloatArray, FloatArray, BoolArray]
'''``(z (N, na), p_AL (T, N, 3), R_AL (T, N, 9), known (N,))``: see :func:`seed_table`.'''


def pool_size(K: int, P: int) -> int:
    """Restart pool samples per problem of ``P`` problems with ``K`` rows each.

    While the kernels compile (interpreted twins, jit/background.py) the pool is only the
    ``K - 1`` first restarts: ranking a full pool evaluates FK of 32 K samples, 90 % of an
    interpreted solve (so a 50 ms timeout ran out before the third iteration). The answers
    then differ from the compiled kernels' (another pool), and are checked the same way.
    """
    if kernels.interpreted():
        return max(K - 1, 1)
    return max(K - 1, min(_POOL_FACTOR * K, _POOL_ROWS // P))


def sample_rows(k: Problem, rng: np.random.Generator, base_z: FloatArray,
                prob: IntArray) -> FloatArray:
    """Uniform random rows of z for problems ``prob`` (unsampled variables: the seed).

    Args:
        k: The problem.
        rng: The generator the samples are drawn from.
        base_z: ``(P, na)`` every problem's projected seed (its unsampled variables).
        prob: ``(R,)`` the problem of each row to draw.
    """
    u = rng.random((prob.size, k.sample_z.size))
    if k.sample_all:
        sample: FloatArray = k.sample_lower + u * k.sample_range
        return sample
    z = base_z[prob]
    z[:, k.sample_z] = k.sample_lower + u * k.sample_range
    if k.quat_z.size:
        quat = random_quat_xyzw(rng, (prob.size, k.quat_z.shape[0]))
        for f in range(k.quat_z.shape[0]):
            if k.quat_sampled[f]:
                z[:, k.quat_z[f]] = quat[:, f]
    return z


def table_window(rng: np.random.Generator, size: int) -> IntArray:
    """``size`` seed-table rows: a window of consecutive rows at a random offset.

    The window wraps around the table's end. The rows are independent uniform samples, so
    a window is as random as scattered picks, and reading it is sequential (scattered
    reads of the ~300 kB table cost ~30 us of cache misses on a busy machine).
    """
    off = int(rng.random() * TABLE_SIZE)
    if size <= TABLE_SIZE:
        return _CYCLE[off:off + size]
    return np.arange(off, off + size) % TABLE_SIZE


def seed_table(entry: ProblemEntry, base: FloatArray, base_z: FloatArray) -> SeedTable | None:
    """The seed table of a single problem, or ``None`` if it cannot have one.

    ``(z (N, na), p_AL (T, N, 3), R_AL (T, N, 9), known (N,))``: samples drawn once from a
    fixed-seed generator, and the tip positions and flattened rotations, in the frame of
    the problem's anchor link (``Problem.anchor``), of the rows already used (``known``).
    Filling the poses on first use keeps the first call cheap and every result independent
    of the calls before it. A mobile or floating base moves the anchor and the tips alike,
    so the table survives base motion; only non-moving variables between the anchor and
    the tips key it. There is no table when some variable that moves a tip is not sampled
    (its seed value would enter the poses).

    Args:
        entry: The problem's cache entry (which keeps the table).
        base: ``(1, nq)`` the request's projected seed (its variables key the table).
        base_z: ``(1, na)`` its active variables (the samples' unsampled variables).
    """
    k = entry.problem
    if not k.table_ok:
        return None
    key = base[0, k.table_key_q].tobytes()
    cached = entry.table
    if cached is not None and cached[0] == key:
        return cached[1]
    z = sample_rows(k, np.random.default_rng(_TABLE_SEED), base_z,
                    np.zeros(TABLE_SIZE, dtype=np.intp))
    T = k.tips.size
    table = (z, np.zeros((T, TABLE_SIZE, 3)), np.zeros((T, TABLE_SIZE, 9)),
             np.zeros(TABLE_SIZE, dtype=bool))
    entry.table = (key, table)  # one reference swap: safe with concurrent readers
    return table


def in_anchor(k: Problem, X_WL: FloatArray, X_tip: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Tip positions ``(T, R, 3)`` and flattened rotations ``(T, R, 9)`` in the anchor frame.

    Args:
        k: The problem.
        X_WL: ``(R, L, 4, 4)`` every link pose of the rows.
        X_tip: ``(T, R, 4, 4)`` the rows' tip poses in the model frame.
    """
    X_WA = X_WL[:, k.anchor]
    R_AW = np.swapaxes(X_WA[:, :3, :3], -1, -2)
    p: FloatArray = np.einsum('rij,trj->tri', R_AW, X_tip[..., :3, 3] - X_WA[None, :, :3, 3])
    r = np.einsum('rij,trjk->trik', R_AW, X_tip[..., :3, :3])
    return p, r.reshape(*r.shape[:2], 9)


def anchor_targets(entry: ProblemEntry, plan: KinematicsPlan, base: FloatArray,
                   X_WT: FloatArray) -> FloatArray:
    """A single problem's targets ``(T, 4, 4)`` in the seed table's anchor frame.

    A new C-contiguous writable array (the compiled ranking's argument type).

    Args:
        entry: The problem's cache entry (which keeps the pose of a fixed anchor).
        plan: The model's kinematics plan.
        base: ``(1, nq)`` the request's projected seed (it places a moving anchor).
        X_WT: ``(T, 4, 4)`` the targets in the model frame.
    """
    k = entry.problem
    X_WT = np.asarray(X_WT)
    if k.anchor == 0:  # the model frame
        return np.array(X_WT, dtype=np.float64)
    X_WA = entry.anchor_pose if k.anchor_fixed else None
    if X_WA is None:
        X_WA = run_forward(plan, base[:1])[0, k.anchor]
        if k.anchor_fixed:
            entry.anchor_pose = X_WA
    R_AW = X_WA[:3, :3].T
    out = np.array(X_WT)
    out[:, :3, :3] = R_AW @ X_WT[:, :3, :3]
    out[:, :3, 3] = (X_WT[:, :3, 3] - X_WA[:3, 3]) @ R_AW.T
    return out


def pool_score(k: Problem, X_tip: FloatArray, X_WT: FloatArray) -> FloatArray:
    """``|dp|² + 3 - tr(R_T R_tipᵀ)`` summed over tips (``3 - tr = 2 (1 - cos θ) ~ θ²``).

    Args:
        k: The problem.
        X_tip: ``(T, R, 4, 4)`` the rows' tip poses.
        X_WT: ``(T, R or 1, 4, 4)`` their targets.
    """
    dp = X_WT[..., :3, 3] - X_tip[..., :3, 3]
    score: FloatArray = np.einsum('tri,tri->r', dp, dp)
    if not k.position_only:
        trace = np.einsum('trij,trij->r', np.broadcast_to(
            X_WT[..., :3, :3], X_tip[..., :3, :3].shape), X_tip[..., :3, :3])
        score += 3.0 * X_tip.shape[0] - trace
    return score
