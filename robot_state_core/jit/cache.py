"""Where the compiled kernels are cached (numba-free: nodes can name it without importing numba).

``$NUMBA_CACHE_DIR`` if the user set it, else ``$XDG_CACHE_HOME/robot_state_core/numba``
(``~/.cache/robot_state_core/numba`` by default), never the install tree (which may be read-only:
colcon install, system packages). :mod:`robot_state_core.jit.decorators` configures numba
with it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ['cache_directory']


def cache_directory() -> Path:
    """Where the kernels are cached: ``$NUMBA_CACHE_DIR``, else the user cache directory.

    ``$XDG_CACHE_HOME/robot_state_core/numba`` when ``XDG_CACHE_HOME`` is an absolute path
    (the XDG rule), else ``~/.cache/robot_state_core/numba``.
    """
    user = os.environ.get('NUMBA_CACHE_DIR')
    if user:
        return Path(user)
    xdg = os.environ.get('XDG_CACHE_HOME', '')
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / '.cache'
    return base / 'robot_state_core' / 'numba'
