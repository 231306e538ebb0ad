"""Pose composition, the package's one way: along a tree, and onto fixed frames.

:func:`compose_tree` runs the compiled composition (:mod:`robot_state_core.spatial.compiled`,
the product the FK kernels compile in as well) on a tree of parent-relative poses: the robot's
links (:func:`robot_state_core.kinematics.compose_link_poses`) and the geometry registry's
frames (:meth:`robot_state_core.geometry.scene_graph.SceneGraph.compute_world_poses`).
:func:`poses_on_frames` places things fixed on frames (collision geometries on links, a
registry's geometries on its frames). Numba-free: the kernels are imported on first use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.jit import kernels

__all__ = ['compose_tree', 'composition_kernels', 'poses_on_frames']

_compiled: Any = None


def composition_kernels() -> Any:
    """The composition kernels (:mod:`robot_state_core.spatial.compiled`), on first use.

    Lazy on purpose (allow-listed in ``test_import_structure``): numba costs 0.4-0.7 s to
    import. The variant the process runs (:func:`robot_state_core.jit.kernels.select`).
    """
    global _compiled
    if _compiled is None:
        from robot_state_core.spatial import compiled
        _compiled = kernels.select(compiled)
    return _compiled


def _forget() -> None:
    global _compiled
    _compiled = None


kernels.on_switch(_forget)


def compose_tree(tree: IntArray, X_PC: FloatArray, nodes: int) -> FloatArray:
    """World poses ``(..., nodes, 4, 4)`` of a tree's nodes (node 0, the root, is ``I``).

    Args:
        tree: ``(J, 2)`` each edge's parent and child node, parents first.
        X_PC: ``(..., J, 4, 4)`` each edge's child pose in its parent (finite, checked by the
            caller).
        nodes: The node count.
    """
    table = np.ascontiguousarray(tree, dtype=np.intp)
    if not table.flags.writeable:
        table = table.copy()
    batch = X_PC.shape[:-3]
    rows = np.ascontiguousarray(X_PC.reshape((math.prod(batch), *X_PC.shape[-3:])),
                                dtype=np.float64)
    if not rows.flags.writeable:  # (the kernel's one signature takes writable arrays)
        rows = rows.copy()
    X_WL = np.empty((rows.shape[0], nodes, 4, 4))
    composition_kernels().compose_tree(table, rows, X_WL)
    return X_WL.reshape(batch + X_WL.shape[1:])


def poses_on_frames(X_WF: FloatArray, frame: IntArray, X_FG: FloatArray,
                    out: FloatArray | None = None) -> FloatArray:
    """``X_WG = X_WF[frame] @ X_FG`` ``(..., G, 4, 4)``: poses of things fixed on frames.

    Args:
        X_WF: ``(..., F, 4, 4)`` frame poses.
        frame: ``(G,)`` the frame each thing is fixed on.
        X_FG: ``(G, 4, 4)`` each thing's pose in its frame.
        out: Optional output buffer of the result's shape.
    """
    X_WG: FloatArray = np.matmul(X_WF[..., frame, :, :], X_FG, out=out)
    return X_WG
