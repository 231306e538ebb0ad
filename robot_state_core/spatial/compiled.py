"""The package's one pose composition (numba): ``X_WC = X_WP @ X_PC`` along a tree.

:func:`product_row` is the one product of rigid transforms; :func:`compose_into` composes one
child's pose from its parent's with it; :func:`compose_tree` composes a whole tree. The FK
kernels (:mod:`robot_state_core.kinematics.compiled`) compile the first two into themselves
(link poses, and a multi-DOF joint's motion with its origin); the geometry registry
(:meth:`robot_state_core.geometry.scene_graph.SceneGraph.compute_world_poses`) and
:func:`robot_state_core.kinematics.compose_link_poses` call :func:`compose_tree`. Compiled with
the package's one decorator, imported on first use (numba's import costs 0.4-0.7 s).
"""

from __future__ import annotations

from typing import Any

from robot_state_core.jit.decorators import inline as _inline
from robot_state_core.jit.decorators import jit as _jit


@_jit
def product_row(p0: float, p1: float, p2: float, p3: float, L0: Any, L1: Any,
                L2: Any) -> Any:  # pragma: no cover - compiled
    """Row ``[p0 p1 p2 p3]`` of a rigid transform times a rigid transform (top rows L0..L2).

    The one product of the package's compositions; ``L0, L1, L2`` are 4-tuples.
    """
    return (p0 * L0[0] + p1 * L1[0] + p2 * L2[0],
            p0 * L0[1] + p1 * L1[1] + p2 * L2[1],
            p0 * L0[2] + p1 * L1[2] + p2 * L2[2],
            p0 * L0[3] + p1 * L1[3] + p2 * L2[3] + p3)


@_inline
def compose_into(X_WL: Any, parent: int, child: int, L0: Any, L1: Any,
                 L2: Any) -> None:  # pragma: no cover - compiled
    """``X_WL[child] = X_WL[parent] @ X_PC`` (``X_PC``'s top rows ``L0, L1, L2``).

    ``X_WL`` ``(L, 4, 4)``: one configuration's poses (batch kernels pass ``X_WL[n]``, a
    view: no reshape).
    """
    for r in range(3):
        row = product_row(X_WL[parent, r, 0], X_WL[parent, r, 1], X_WL[parent, r, 2],
                          X_WL[parent, r, 3], L0, L1, L2)
        X_WL[child, r, 0] = row[0]
        X_WL[child, r, 1] = row[1]
        X_WL[child, r, 2] = row[2]
        X_WL[child, r, 3] = row[3]
    X_WL[child, 3, 0] = 0.0
    X_WL[child, 3, 1] = 0.0
    X_WL[child, 3, 2] = 0.0
    X_WL[child, 3, 3] = 1.0


@_jit
def set_root(X_WL: Any) -> None:  # pragma: no cover - compiled
    """The root (0) is the tree's frame: ``X_WL[0] = I`` (``X_WL`` ``(L, 4, 4)``)."""
    for r in range(4):
        for c in range(4):
            X_WL[0, r, c] = 1.0 if r == c else 0.0


@_jit
def compose_tree(tree: Any, X_PC: Any, X_WL: Any) -> None:  # pragma: no cover - compiled
    """Poses ``X_WL`` ``(N, L, 4, 4)`` of a tree's nodes from ``X_PC`` ``(N, J, 4, 4)``.

    ``tree`` ``(J, 2)``: each edge's parent and child node, parents first (topological
    order); node 0 is the root (the identity). ``X_WL[n, child] = X_WL[n, parent] @ X_PC[n, j]``.
    """
    for n in range(X_PC.shape[0]):
        X = X_WL[n]
        set_root(X)
        for j in range(tree.shape[0]):
            L = X_PC[n, j]
            compose_into(X, tree[j, 0], tree[j, 1],
                         (L[0, 0], L[0, 1], L[0, 2], L[0, 3]),
                         (L[1, 0], L[1, 1], L[1, 2], L[1, 3]),
                         (L[2, 0], L[2, 1], L[2, 2], L[2, 3]))
