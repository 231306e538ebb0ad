"""The package's one numba decorator: njit, nogil, numpy error model, cached on disk.

This is the package's only numba importer. The modules that use it (the compiled kernels of
geometry, kinematics and IK) are imported on first use, not by ``import robot_state_core``:
numba costs 0.4-0.7 s to import, and a node's first ``/tf_static`` needs no kernel. Every
kernel compiles lazily on its first call, once per machine, then loads from the cache.

A kernel module imported while the process runs the interpreted twins
(:func:`robot_state_core.jit.kernels.use_interpreted`, a node's first start) is not handed to
numba at all: its kernels stay plain functions, remembered here, and numba is not even imported
(0.5 s of a first start's 2 s budget). :func:`materialize` makes them numba dispatchers, in
place in their modules, when the process switches to the compiled kernels; callbacks that need
the dispatchers (:func:`after_compiled`) run then.

Kernel cache: ``$NUMBA_CACHE_DIR`` if the user set it, else
``$XDG_CACHE_HOME/robot_state_core/numba`` (``~/.cache/robot_state_core/numba`` by default),
never the install tree (which may be read-only: colcon install, system packages); see
:func:`robot_state_core.jit.cache.cache_directory`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import hashlib
import os
from pathlib import Path
import sys
import threading
from types import FunctionType, ModuleType
from typing import Any, cast, TypeVar

from robot_state_core.jit import kernels
from robot_state_core.jit.cache import cache_directory

__all__ = ['after_compiled', 'depend_on_sources', 'inline', 'jit', 'materialize']

_F = TypeVar('_F', bound=Callable[..., Any])
_lock = threading.RLock()
_njit: tuple[Callable[[Any], Any], Callable[[Any], Any]] | None = None
_deferred: list[tuple[FunctionType, bool, str]] = []  # (function, inline, decorating module)
_after: list[Callable[[], None]] = []


def _decorators() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """The ``numba.njit`` of the package, plain and inlined (imports numba once)."""
    global _njit
    with _lock:
        if _njit is None:
            import numba

            # Before any kernel is made: numba binds a function's cache locator then. A
            # user's NUMBA_CACHE_DIR is already in numba.config (read at numba's import).
            if not os.environ.get('NUMBA_CACHE_DIR'):
                numba.config.CACHE_DIR = str(cache_directory())
            _njit = (numba.njit(cache=True, nogil=True, error_model='numpy'),
                     numba.njit(cache=True, nogil=True, error_model='numpy', inline='always'))
        return _njit


def _decorate(function: FunctionType, inlined: bool) -> Any:
    if kernels.interpreted():
        module = str(sys._getframe(2).f_globals.get('__name__', ''))
        with _lock:
            _deferred.append((function, inlined, module))
        kernels.mark_deferred(function)
        return function
    return _decorators()[inlined](function)


def jit(function: _F) -> _F:
    """Compile ``function`` lazily on its first call (cached on disk, see above)."""
    return cast(_F, _decorate(cast(FunctionType, function), False))


def inline(function: _F) -> _F:
    """:func:`jit`, inlined into its compiled callers (numba IR inlining).

    For the per-element functions of kernels' inner loops: LLVM leaves a large one (e.g. the
    local joint transform, 12 values returned through memory) as a call per element.
    """
    return cast(_F, _decorate(cast(FunctionType, function), True))


def after_compiled(callback: Callable[[], None]) -> None:
    """Run ``callback`` once the kernels defined so far are numba dispatchers (now, or later).

    For a kernel module's set-up that needs its dispatchers (e.g. their cache keys).
    """
    with _lock:
        if _deferred:
            _after.append(callback)
            return
    callback()


def depend_on_sources(kernels_of: Callable[[], Iterable[Any]],
                      modules: Iterable[ModuleType]) -> None:
    """Key the on-disk cache entries of some kernels on other modules' source too.

    numba keys a cached function on its own module's file and bytecode only, but a kernel
    that compiles another module's function into itself (a joint type's motion, the spatial
    library's scalar rotations, the FK kernels inside IK's) would load stale machine code
    after a change of that module alone. The hash of those modules' files is added to each
    kernel's cache index key (numba's ``FunctionCache._index_key``; numba is pinned in
    constraints.txt), so such a change recompiles them. Runs once the kernels are numba
    dispatchers (:func:`after_compiled`); ``kernels_of`` returns them then.
    """
    sources = [Path(str(m.__file__)) for m in modules]

    def key() -> None:
        stamp = hashlib.sha256(b''.join(p.read_bytes() for p in sources)).hexdigest()
        for kernel in kernels_of():
            cache = kernel._cache
            index_key = cache._index_key

            def keyed(sig: Any, codegen: Any, index_key: Any = index_key) -> Any:
                return (*index_key(sig, codegen), stamp)

            cache._index_key = keyed

    after_compiled(key)


def materialize() -> None:
    """Hand every kernel deferred in interpreted mode to numba, in place in its module.

    Each decorating module's globals that hold such a function (its own kernels and those it
    imported from other kernel modules) then hold the dispatcher; callbacks of
    :func:`after_compiled` run last. Idempotent; called on the switch to the compiled kernels.
    """
    with _lock:
        pending, callbacks = list(_deferred), list(_after)
        _deferred.clear()
        _after.clear()
        if not pending:
            return
        plain, inlined = _decorators()
        made = {id(f): (f, (inlined if inl else plain)(f)) for f, inl, _ in pending}
        for name in {m for _, _, m in pending}:
            module = sys.modules.get(name)
            if module is None:
                continue
            for key, value in list(vars(module).items()):
                hit = made.get(id(value))
                if hit is not None and hit[0] is value:
                    setattr(module, key, hit[1])
    for callback in callbacks:
        callback()


kernels.on_leaving_interpreted(materialize)
