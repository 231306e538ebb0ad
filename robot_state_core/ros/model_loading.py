"""Compiling the robot model from a node's description parameters; logging its load report.

Shared by the state publisher node and the state server node (which import it; it imports
neither).
"""

from __future__ import annotations

import logging
from typing import Any

from robot_state_core.errors import RobotDescriptionError
from robot_state_core.io.load_report import summarize
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.ros.params import StatePublisherConfig


def log_load_report(logger: Any, model: RobotModel, prefix: str = 'robot_description') -> None:
    """Log a model's load messages: one line per kind at its level, each in full at DEBUG.

    Args:
        logger: An rclpy logger (``node.get_logger()``).
        model: The loaded model (:attr:`RobotModel.load_messages`).
        prefix: Text in front of every line.
    """
    for message in model.load_messages:
        logger.debug(f'{prefix}: {message.text}')
    for level, line in summarize(model.load_messages):
        if level >= logging.WARNING:
            logger.warning(f'{prefix}: {line}')
        elif level >= logging.INFO:
            logger.info(f'{prefix}: {line}')
        else:
            logger.debug(f'{prefix}: {line}')


def load_model(config: StatePublisherConfig, source: str = 'robot_description') -> RobotModel:
    """Compile the model described by a config (raises typed errors on bad descriptions).

    Args:
        config: The configuration; ``robot_description`` is the URDF XML to compile.
        source: What the description came from (a file path, the parameter or the topic), named
            in error messages.
    """
    if not config.robot_description.strip():
        raise RobotDescriptionError(
            'parameter robot_description is empty: pass the URDF XML (e.g. '
            '-p robot_description:="$(cat robot.urdf)") or a URDF file as the first argument')
    return RobotModel.from_urdf_string(config.robot_description,
                                       config.robot_description_semantic or None,
                                       source=source,
                                       package_roots=config.package_roots)


__all__ = ['load_model', 'log_load_report']
