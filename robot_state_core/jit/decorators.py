"""The package's one numba decorator: njit, nogil, numpy error model, cached on disk.

This is the package's only numba importer. The modules that use it (the compiled kernels of
geometry, kinematics and IK) are imported on first use, not by ``import robot_state_core``:
numba costs 0.4-0.7 s to import, and a node's first ``/tf_static`` needs no kernel. Every
kernel compiles lazily on its first call, once per machine, then loads from the cache.

Kernel cache: ``$NUMBA_CACHE_DIR`` if the user set it, else
``$XDG_CACHE_HOME/robot_state_core/numba`` (``~/.cache/robot_state_core/numba`` by default),
never the install tree (which may be read-only: colcon install, system packages); see
:func:`robot_state_core.jit.cache.cache_directory`.
"""

from __future__ import annotations

from collections.abc import Callable
import os
from typing import Any, cast, TypeVar

import numba

from robot_state_core.jit.cache import cache_directory

__all__ = ['inline', 'jit']

# Before any kernel is defined: numba binds a function's cache locator when it is decorated. A
# user's NUMBA_CACHE_DIR is already in numba.config (read at numba's import).
if not os.environ.get('NUMBA_CACHE_DIR'):
    numba.config.CACHE_DIR = str(cache_directory())

_F = TypeVar('_F', bound=Callable[..., Any])
_njit = numba.njit(cache=True, nogil=True, error_model='numpy')
_njit_inline = numba.njit(cache=True, nogil=True, error_model='numpy', inline='always')


def jit(function: _F) -> _F:
    """Compile ``function`` lazily on its first call (cached on disk, see above)."""
    return cast(_F, _njit(function))


def inline(function: _F) -> _F:
    """:func:`jit`, inlined into its compiled callers (numba IR inlining).

    For the per-element functions of kernels' inner loops: LLVM leaves a large one (e.g. the
    local joint transform, 12 values returned through memory) as a call per element.
    """
    return cast(_F, _njit_inline(function))
