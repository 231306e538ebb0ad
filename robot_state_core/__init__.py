"""robot_state_core: ROS-free robot kinematics and collision core.

The core (everything outside :mod:`robot_state_core.ros`) imports no ROS package, so
``import robot_state_core`` works on any Python with numpy, lxml and urdf_parser_py. The ROS 2
nodes live in :mod:`robot_state_core.ros` and are imported only by the node entry points.
"""

from __future__ import annotations

import logging

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
from robot_state_core.publishing.frame_transforms import fixed_joint_transforms, FrameTransforms
from robot_state_core.state.attached_body import AttachedBody, DetachPosture
from robot_state_core.state.robot_state import RobotState

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
