"""Text output of a robot state: MoveIt's ``printTransform``, limit bars and state tree.

Pure functions of a model, positions and link poses; :class:`~robot_state_core.state.robot_state.
RobotState` calls them from its printing methods (the facade itself holds no formatting).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import quat_xyzw_from_rotation

__all__ = ['format_limit_bars', 'format_transform', 'format_tree']


def format_transform(X: FloatArray) -> str:
    """MoveIt ``printTransform``: ``T.xyz = [..], Q.xyzw = [..]`` or ``[NON-ISOMETRY]``."""
    R = X[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-6) or not np.allclose(X[3], [0, 0, 0, 1]):
        return '[NON-ISOMETRY] ' + np.array2string(X, precision=5).replace('\n', ' ')
    t = ', '.join(f'{x:.5g}' for x in X[:3, 3])
    quat = ', '.join(f'{x:.5g}' for x in quat_xyzw_from_rotation(R))
    return f'T.xyz = [{t}], Q.xyzw = [{quat}]'


def format_limit_bars(model: RobotModel, q: FloatArray, joints: Iterable[int],
                       inside: Callable[[str], bool], width: int = 20) -> str:
    """MoveIt ``printStatePositionsWithJointLimits``: one bar per single-variable joint.

    Continuous joints are drawn over their ``[-π, π]`` bounds, as MoveIt does; ``inside``
    says whether a joint satisfies its bounds (MoveIt ``satisfiesBounds(joint)``).
    """
    lines = []
    for j in joints:  # text output, one line per joint
        if model.joint_nq[j] != 1 or model.joints[j].mimic is not None:
            continue
        v = int(model.joint_q_start[j])
        lo, hi, x = float(model.variable_lower[v]), float(model.variable_upper[v]), float(q[v])
        slot = min(max(int((x - lo) / (hi - lo) * width) if hi > lo else 0, 0), width)
        bar = '-' * slot + '|' + '-' * (width - slot)
        flag = '' if inside(model.joint_names[j]) else '  OUT OF BOUNDS'
        lines.append(f'   {lo:.5f}\t{bar} \t{hi:.5f}  \t{model.joint_names[j]} current: '
                     f'{x:.5f}{flag}')
    return '\n'.join(lines)


def format_tree(model: RobotModel, q: FloatArray, X_WL: FloatArray) -> str:
    """MoveIt ``getStateTreeString``: the link/joint tree with variables and global poses."""
    lines = [f'ROBOT: {model.name}', f'  link: {model.link_names[0]}',
             f'    global: {format_transform(X_WL[0])}']
    for j, joint in enumerate(model.joints):  # text output, one entry per joint
        pad = '  ' * int(model.link_depth[model.joint_child_link[j]])
        start, n = int(model.joint_q_start[j]), int(model.joint_nq[j])
        values = ', '.join(f'{x:.5g}' for x in q[start:start + n])
        lines += [f'{pad}joint: {joint.name} [{joint.type.value}] ({values})',
                  f'{pad}  origin: {format_transform(model.joint_origins[j])}',
                  f'{pad}  link: {joint.child_link_name}',
                  f'{pad}    global: {format_transform(X_WL[model.joint_child_link[j]])}']
    return '\n'.join(lines)
