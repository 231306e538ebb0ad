"""Which ROS 2 distribution this process runs on (Jazzy and Kilted differ; docs/decisions.md R).

On a ROS installation ``setup.bash`` exports ``ROS_DISTRO``. With the PyPI wheels nothing does, so
the distribution is read from the installed ``ros-rclpy`` wheel's major version instead (each
distribution has its own rclpy major: Jazzy 7.x, Kilted 9.x).
"""

from __future__ import annotations

import functools
import importlib.metadata
import os

#: rclpy major version -> ROS 2 distribution (the PyPI wheels: ros-rclpy 7.1.6, 9.1.2).
RCLPY_MAJOR_TO_DISTRO = {7: 'jazzy', 9: 'kilted'}


@functools.cache
def ros_distro() -> str:
    """The ROS 2 distribution's name in lower case (``'jazzy'``, ``'kilted'``), or ``''``.

    ``ROS_DISTRO`` wins when set; otherwise the ``ros-rclpy`` wheel's major version decides;
    ``''`` when neither says.
    """
    name = os.environ.get('ROS_DISTRO', '').strip().lower()
    if name:
        return name
    try:
        major = int(importlib.metadata.version('ros-rclpy').split('.')[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return ''
    return RCLPY_MAJOR_TO_DISTRO.get(major, '')
