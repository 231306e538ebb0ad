"""The console scripts' entry points: signal handlers first, then the imports.

A SIGINT (Ctrl-C) or SIGTERM must end a process at any moment, with exit code 0, also while it
is still importing numpy, rclpy and the package (~0.5 s). This module's import installs, before
anything heavy is imported, a handler that turns such a signal into ``SystemExit(0)`` (no
traceback, ``finally`` blocks run); each entry point then imports its real ``main``, which
installs its own handler (:class:`robot_state_core.ros.main.StopRequest`) before it starts ROS.
Only the console scripts and ``python -m robot_state_core`` import this module; importing the
library changes no signal handler.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


def _exit_now(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


if threading.current_thread() is threading.main_thread():
    for _signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_signum, _exit_now)


def cli() -> int:
    """``robot-state-core`` (and ``python -m robot_state_core``)."""
    from robot_state_core.apps.cli import main
    return main()


def robot_state_publisher() -> int:
    """``robot_state_publisher`` (``ros2 run robot_state_core robot_state_publisher``)."""
    from robot_state_core.ros.main import state_publisher_main
    return state_publisher_main()


def robot_state_server() -> int:
    """``robot_state_server``."""
    from robot_state_core.ros.main import state_server_main
    return state_server_main()


def robot_state_core_all() -> int:
    """``robot_state_core_all``."""
    from robot_state_core.ros.main import all_in_one_main
    return all_in_one_main()
