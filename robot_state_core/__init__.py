"""robot_state_core: ROS-free robot kinematics and collision core.

The core (everything outside :mod:`robot_state_core.ros`) imports no ROS package, so
``import robot_state_core`` works on any Python with numpy, lxml and urdf_parser_py. The ROS 2
nodes live in :mod:`robot_state_core.ros` and are imported only by the node entry points.

The public names below are imported on first use (PEP 562), so an entry point that imports
``robot_state_core.apps.entry`` runs its first lines (the signal handlers) within milliseconds.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:  # the names below, imported on first use (__getattr__)
    from robot_state_core.description.acm import AllowedCollisionMatrix, AllowedCollisionType
    from robot_state_core.description.joints import (
        Joint,
        JointCalibration,
        JointDynamics,
        JointLimits,
        JointMimic,
        JointSafety,
        JointType,
    )
    from robot_state_core.description.links import Collision, Inertial, Link, Material, Visual
    from robot_state_core.description.scene_graph import SceneGraph, ShortestPath
    from robot_state_core.errors import (
        ImmutableModelError,
        InvalidArgumentError,
        InvalidIndexError,
        InvalidTypeError,
        ModelError,
        ModelMismatchError,
        RobotDescriptionError,
        RobotStateCoreError,
        SingularityError,
        SrdfLoadError,
        UnknownNameError,
        UrdfLoadError,
        XmlSecurityError,
    )
    from robot_state_core.geometry.scene_graph import SceneGraph as GeometrySceneGraph
    from robot_state_core.ik.solver import solve_ik, solve_ik_batch
    from robot_state_core.ik.types import IKOptions, IKRequest, IKResult, IKStatus
    from robot_state_core.io.default_robot import (
        default_robot_srdf_path,
        default_robot_urdf_path,
        package_root,
    )
    from robot_state_core.io.srdf import parse_srdf, read_srdf_file, SrdfModel
    from robot_state_core.io.urdf import (
        load_urdf_file,
        load_urdf_string,
        parse_urdf,
        read_urdf_file,
        save_urdf,
        UrdfLoadResult,
    )
    from robot_state_core.kinematics import KinematicsData
    from robot_state_core.model.joint_model_group import JointModelGroup
    from robot_state_core.model.robot_model import RobotModel
    from robot_state_core.model.rpy_floating import RpyFloatingJoint
    from robot_state_core.publishing.frame_transforms import (
        fixed_joint_transforms,
        FrameTransforms,
    )
    from robot_state_core.state.attached_body import AttachedBody, DetachPosture
    from robot_state_core.state.robot_state import RobotState

_EXPORTS: dict[str, tuple[str, str]] = {
    'AllowedCollisionMatrix': ('robot_state_core.description.acm', 'AllowedCollisionMatrix'),
    'AllowedCollisionType': ('robot_state_core.description.acm', 'AllowedCollisionType'),
    'AttachedBody': ('robot_state_core.state.attached_body', 'AttachedBody'),
    'Collision': ('robot_state_core.description.links', 'Collision'),
    'default_robot_srdf_path': ('robot_state_core.io.default_robot', 'default_robot_srdf_path'),
    'default_robot_urdf_path': ('robot_state_core.io.default_robot', 'default_robot_urdf_path'),
    'DetachPosture': ('robot_state_core.state.attached_body', 'DetachPosture'),
    'fixed_joint_transforms': ('robot_state_core.publishing.frame_transforms',
                               'fixed_joint_transforms'),
    'FrameTransforms': ('robot_state_core.publishing.frame_transforms', 'FrameTransforms'),
    'GeometrySceneGraph': ('robot_state_core.geometry.scene_graph', 'SceneGraph'),
    'IKOptions': ('robot_state_core.ik.types', 'IKOptions'),
    'IKRequest': ('robot_state_core.ik.types', 'IKRequest'),
    'IKResult': ('robot_state_core.ik.types', 'IKResult'),
    'IKStatus': ('robot_state_core.ik.types', 'IKStatus'),
    'ImmutableModelError': ('robot_state_core.errors', 'ImmutableModelError'),
    'Inertial': ('robot_state_core.description.links', 'Inertial'),
    'InvalidArgumentError': ('robot_state_core.errors', 'InvalidArgumentError'),
    'InvalidIndexError': ('robot_state_core.errors', 'InvalidIndexError'),
    'InvalidTypeError': ('robot_state_core.errors', 'InvalidTypeError'),
    'Joint': ('robot_state_core.description.joints', 'Joint'),
    'JointCalibration': ('robot_state_core.description.joints', 'JointCalibration'),
    'JointDynamics': ('robot_state_core.description.joints', 'JointDynamics'),
    'JointLimits': ('robot_state_core.description.joints', 'JointLimits'),
    'JointMimic': ('robot_state_core.description.joints', 'JointMimic'),
    'JointModelGroup': ('robot_state_core.model.joint_model_group', 'JointModelGroup'),
    'JointSafety': ('robot_state_core.description.joints', 'JointSafety'),
    'JointType': ('robot_state_core.description.joints', 'JointType'),
    'KinematicsData': ('robot_state_core.kinematics', 'KinematicsData'),
    'Link': ('robot_state_core.description.links', 'Link'),
    'load_urdf_file': ('robot_state_core.io.urdf', 'load_urdf_file'),
    'load_urdf_string': ('robot_state_core.io.urdf', 'load_urdf_string'),
    'Material': ('robot_state_core.description.links', 'Material'),
    'ModelError': ('robot_state_core.errors', 'ModelError'),
    'ModelMismatchError': ('robot_state_core.errors', 'ModelMismatchError'),
    'package_root': ('robot_state_core.io.default_robot', 'package_root'),
    'parse_srdf': ('robot_state_core.io.srdf', 'parse_srdf'),
    'parse_urdf': ('robot_state_core.io.urdf', 'parse_urdf'),
    'read_srdf_file': ('robot_state_core.io.srdf', 'read_srdf_file'),
    'read_urdf_file': ('robot_state_core.io.urdf', 'read_urdf_file'),
    'RobotDescriptionError': ('robot_state_core.errors', 'RobotDescriptionError'),
    'RobotModel': ('robot_state_core.model.robot_model', 'RobotModel'),
    'RobotState': ('robot_state_core.state.robot_state', 'RobotState'),
    'RobotStateCoreError': ('robot_state_core.errors', 'RobotStateCoreError'),
    'RpyFloatingJoint': ('robot_state_core.model.rpy_floating', 'RpyFloatingJoint'),
    'save_urdf': ('robot_state_core.io.urdf', 'save_urdf'),
    'SceneGraph': ('robot_state_core.description.scene_graph', 'SceneGraph'),
    'ShortestPath': ('robot_state_core.description.scene_graph', 'ShortestPath'),
    'SingularityError': ('robot_state_core.errors', 'SingularityError'),
    'solve_ik': ('robot_state_core.ik.solver', 'solve_ik'),
    'solve_ik_batch': ('robot_state_core.ik.solver', 'solve_ik_batch'),
    'SrdfLoadError': ('robot_state_core.errors', 'SrdfLoadError'),
    'SrdfModel': ('robot_state_core.io.srdf', 'SrdfModel'),
    'UnknownNameError': ('robot_state_core.errors', 'UnknownNameError'),
    'UrdfLoadError': ('robot_state_core.errors', 'UrdfLoadError'),
    'UrdfLoadResult': ('robot_state_core.io.urdf', 'UrdfLoadResult'),
    'Visual': ('robot_state_core.description.links', 'Visual'),
    'XmlSecurityError': ('robot_state_core.errors', 'XmlSecurityError'),
}
'''Public name -> (module, attribute): imported on first access (PEP 562).'''

__version__ = '0.1.0'

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    'AllowedCollisionMatrix',
    'AllowedCollisionType',
    'AttachedBody',
    'Collision',
    'DetachPosture',
    'FrameTransforms',
    'GeometrySceneGraph',
    'IKOptions',
    'IKRequest',
    'IKResult',
    'IKStatus',
    'ImmutableModelError',
    'Inertial',
    'InvalidArgumentError',
    'InvalidIndexError',
    'InvalidTypeError',
    'Joint',
    'JointCalibration',
    'JointDynamics',
    'JointLimits',
    'JointMimic',
    'JointModelGroup',
    'JointSafety',
    'JointType',
    'KinematicsData',
    'Link',
    'Material',
    'ModelError',
    'ModelMismatchError',
    'RobotDescriptionError',
    'RobotModel',
    'RobotState',
    'RobotStateCoreError',
    'RpyFloatingJoint',
    'SceneGraph',
    'ShortestPath',
    'SingularityError',
    'SrdfLoadError',
    'SrdfModel',
    'UnknownNameError',
    'UrdfLoadError',
    'UrdfLoadResult',
    'Visual',
    'XmlSecurityError',
    '__version__',
    'default_robot_srdf_path',
    'default_robot_urdf_path',
    'fixed_joint_transforms',
    'load_urdf_file',
    'load_urdf_string',
    'package_root',
    'parse_srdf',
    'parse_urdf',
    'read_srdf_file',
    'read_urdf_file',
    'save_urdf',
    'solve_ik',
    'solve_ik_batch',
]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (``import robot_state_core`` stays light)."""
    entry = _EXPORTS.get(name)
    if entry is None:  # the module protocol (PEP 562): AttributeError
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    module, attribute = entry
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
