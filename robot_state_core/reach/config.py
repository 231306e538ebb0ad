"""A reach study described in a YAML file (what ``robot-state-core reach study.yaml`` reads).

The layout follows REACH's study configuration (``optimization``, ``ik_solver``,
``target_pose_generator``, ``evaluator`` blocks) with this library's names::

    robot:
      urdf: panda.urdf              # paths are relative to this file
      srdf: panda.srdf
      package_roots: [..]           # directories holding ROS packages (optional)
    group: arm
    tip: panda_link8                # optional: the group's tip
    scene: cell.scene               # optional: world objects (MoveIt .scene)
    part: part.stl                  # optional: the part as a collision object, at part_pose
    touch_links: [tool0]            # links allowed to touch the part (REACH's touch_links)
    targets:                        # exactly one of mesh / point_cloud / grid
      mesh: part.stl                # STL / OBJ / PLY, sampled with its normals
      count: 1000
      seed: 0
      part_pose: [0.5, 0, 0.2, 0, 0, 0]   # x y z roll pitch yaw of the part [m, rad]
      # point_cloud: part.pcd       # PCD / PLY with normals
      # grid: {lower: [..], upper: [..], spacing: 0.1, orientations: 8}
    evaluator:                      # a list is their product (REACH's MultiplicativeEvaluator)
      - manipulability: {kind: yoshikawa}
      - joint_limit_penalty: {}
      - distance_penalty: {threshold: 0.05, exponent: 2}
    ik: {timeout: 0.05, iterations: 400, collision: true, free_rotation_steps: 1}
    optimization: {radius: 0.05, max_steps: 10, step_improvement_threshold: 0.01}
    seed: 0
    padding: 0.0

Errors name the key (``targets.count: must be an int``) and the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.reach.evaluators import (
    DistancePenalty,
    Evaluator,
    JointLimitPenalty,
    Manipulability,
    Multiplicative,
)
from robot_state_core.reach.study import ReachParameters, ReachProblem
from robot_state_core.reach.targets import (
    ReachTargets,
    targets_from_mesh,
    targets_from_point_cloud,
    workspace_grid,
)
from robot_state_core.spatial.transforms import pose_from_xyz_rpy

__all__ = ['StudyFile', 'load_study']


@dataclass(frozen=True)
class StudyFile:
    """A study read from YAML.

    Attributes:
        problem: What the workers solve.
        targets: The targets in the model frame.
        path: The YAML file.
    """

    problem: ReachProblem
    targets: ReachTargets
    path: Path


def _get(node: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...],
         default: Any = None, required: bool = False) -> Any:
    if key not in node or node[key] is None:
        if required:
            raise InvalidArgumentError(f'{where}.{key}: missing')
        return default
    value = node[key]
    if kind in (float, (int, float)) and isinstance(value, int | float) \
            and not isinstance(value, bool):
        return value
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        name = kind.__name__ if isinstance(kind, type) else ' or '.join(k.__name__ for k in kind)
        raise InvalidArgumentError(f'{where}.{key}: must be {name}, got {value!r}')
    return value


def _file(base: Path, value: str) -> str:
    return str((base / value).resolve()) if not Path(value).is_absolute() else value


def _evaluator(node: Any, where: str) -> Evaluator:
    items = node if isinstance(node, list) else [node]
    out: list[Evaluator] = []
    for k, item in enumerate(items):
        at = f'{where}[{k}]' if isinstance(node, list) else where
        if not isinstance(item, dict) or len(item) != 1:
            raise InvalidArgumentError(f'{at}: must be one of {{manipulability: {{...}}}}, '
                                       '{joint_limit_penalty: {}}, {distance_penalty: {...}}')
        (name, args), = item.items()
        args = args or {}
        if not isinstance(args, dict):
            raise InvalidArgumentError(f'{at}.{name}: its settings must be a mapping')
        try:
            if name == 'manipulability':
                out.append(Manipulability(**args))
            elif name == 'joint_limit_penalty':
                out.append(JointLimitPenalty(**args))
            elif name == 'distance_penalty':
                out.append(DistancePenalty(**args))
            else:
                raise InvalidArgumentError(f'{at}: unknown evaluator {name!r} (manipulability, '
                                           'joint_limit_penalty, distance_penalty)')
        except TypeError as err:
            raise InvalidArgumentError(f'{at}.{name}: {err}') from err
    if not out:
        raise InvalidArgumentError(f'{where}: no evaluator')
    return out[0] if len(out) == 1 else Multiplicative(tuple(out))


def _part_pose(node: Mapping[str, Any], where: str) -> FloatArray:
    pose = _get(node, 'part_pose', where, list, [0, 0, 0, 0, 0, 0])
    if len(pose) != 6 or not all(isinstance(v, int | float) and math.isfinite(v)
                                 for v in pose):
        raise InvalidArgumentError(f'{where}.part_pose: must be 6 numbers x y z roll pitch yaw, '
                                   f'got {pose!r}')
    return pose_from_xyz_rpy(pose[:3], pose[3:])


def _targets(node: Any, base: Path, seed: int) -> ReachTargets:
    where = 'targets'
    if not isinstance(node, dict):
        raise InvalidArgumentError(f'{where}: must be a mapping with mesh, point_cloud or grid')
    kinds = [k for k in ('mesh', 'point_cloud', 'grid') if k in node]
    if len(kinds) != 1:
        raise InvalidArgumentError(f'{where}: give exactly one of mesh, point_cloud, grid '
                                   f'(got {kinds or "none"})')
    X_WP = _part_pose(node, where)
    if kinds[0] == 'mesh':
        return targets_from_mesh(_file(base, _get(node, 'mesh', where, str)),
                                 _get(node, 'count', where, int, required=True),
                                 seed=_get(node, 'seed', where, int, seed), X_WP=X_WP)
    if kinds[0] == 'point_cloud':
        return targets_from_point_cloud(_file(base, _get(node, 'point_cloud', where, str)),
                                        X_WP=X_WP)
    grid = _get(node, 'grid', where, dict)
    at = f'{where}.grid'
    return workspace_grid(_get(grid, 'lower', at, list, required=True),
                          _get(grid, 'upper', at, list, required=True),
                          _get(grid, 'spacing', at, (int, float, list), required=True),
                          _get(grid, 'orientations', at, int, 8))


def load_study(path: str | Path) -> StudyFile:
    """Read a study file (module docstring).

    Raises:
        InvalidArgumentError: Unreadable YAML, or a missing or malformed key (named, with the
            file).
    """
    file = Path(path)
    try:
        doc = yaml.safe_load(file.read_text(encoding='utf-8'))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise InvalidArgumentError(f'{file}: cannot read the study: {err}') from err
    try:
        return _study(doc, file)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f'{file}: {err}') from err


def _study(doc: Any, file: Path) -> StudyFile:
    if not isinstance(doc, dict):
        raise InvalidArgumentError('the study must be a YAML mapping')
    base = file.resolve().parent
    robot = _get(doc, 'robot', 'study', dict, required=True)
    seed = _get(doc, 'seed', 'study', int, 0)
    ik = _get(doc, 'ik', 'study', dict, {})
    opt = _get(doc, 'optimization', 'study', dict, {})
    defaults = ReachParameters()
    parameters = ReachParameters(
        radius=float(_get(opt, 'radius', 'optimization', (int, float), defaults.radius)),
        max_steps=_get(opt, 'max_steps', 'optimization', int, defaults.max_steps),
        step_improvement_threshold=float(_get(opt, 'step_improvement_threshold',
                                              'optimization', (int, float),
                                              defaults.step_improvement_threshold)),
        ik_timeout=float(_get(ik, 'timeout', 'ik', (int, float), defaults.ik_timeout)),
        ik_iterations=_get(ik, 'iterations', 'ik', int, defaults.ik_iterations),
        collision=_get(ik, 'collision', 'ik', bool, defaults.collision),
        free_rotation_steps=_get(ik, 'free_rotation_steps', 'ik', int,
                                 defaults.free_rotation_steps),
        seed=seed)
    scene = _get(doc, 'scene', 'study', str)
    scene_text = None
    if scene is not None:
        try:
            scene_text = Path(_file(base, scene)).read_text(encoding='utf-8')
        except OSError as err:
            raise InvalidArgumentError(f'study.scene: {err}') from err
    srdf = _get(robot, 'srdf', 'robot', str)
    problem = ReachProblem(
        urdf=_file(base, _get(robot, 'urdf', 'robot', str, required=True)),
        srdf=_file(base, srdf) if srdf else None,
        group=_get(doc, 'group', 'study', str, required=True),
        evaluator=_evaluator(_get(doc, 'evaluator', 'study', (list, dict),
                                  [{'manipulability': {}}]), 'evaluator'),
        tip=_get(doc, 'tip', 'study', str),
        scene_text=scene_text,
        package_roots=tuple(_file(base, r) for r in _get(robot, 'package_roots', 'robot',
                                                           list, [])),
        parameters=parameters,
        padding=float(_get(doc, 'padding', 'study', (int, float), 0.0)))
    targets_node = _get(doc, 'targets', 'study', dict, required=True)
    part = _get(doc, 'part', 'study', str)
    if part is not None:
        problem = replace(problem, part=_file(base, part),
                          part_pose=tuple(_part_pose(targets_node, 'targets').ravel().tolist()),
                          touch_links=tuple(str(v) for v in _get(doc, 'touch_links', 'study',
                                                                  list, [])))
    targets = _targets(targets_node, base, seed)
    if len(targets) == 0 or not np.all(np.isfinite(targets.X_WT)):
        raise InvalidArgumentError('targets: none')
    return StudyFile(problem, targets, file)
