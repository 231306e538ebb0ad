"""The embedded default robot: ``rsc_mobile_manipulator``, written by this project.

It ships inside the Python package (``robot_state_core/robots/``) and, on a colcon install,
under ``share/robot_state_core/robots/``. Its mesh URIs are
``package://robot_state_core/robots/rsc_mobile_manipulator/meshes/...``; the Python package
directory mirrors the share layout, so :func:`package_root` resolves them without ROS.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_ROBOT_NAME = 'rsc_mobile_manipulator'
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # robot_state_core/ (this file is in io/)


def package_root() -> Path:
    """Directory that ``package://robot_state_core/`` resolves to (the Python package dir)."""
    return _PACKAGE_DIR


def default_robot_dir() -> Path:
    """Directory holding the default robot's URDF, SRDF and meshes."""
    return _PACKAGE_DIR / 'robots' / DEFAULT_ROBOT_NAME


def default_robot_urdf_path() -> Path:
    """Path of the default robot's URDF file."""
    return default_robot_dir() / f'{DEFAULT_ROBOT_NAME}.urdf'


def default_robot_srdf_path() -> Path:
    """Path of the default robot's SRDF file."""
    return default_robot_dir() / f'{DEFAULT_ROBOT_NAME}.srdf'
