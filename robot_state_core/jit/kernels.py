"""Which kernels run: the compiled ones (numba), or their interpreted twins until those are ready.

Every kernel is plain Python under the package's decorator, so its source also runs in the
interpreter. The *interpreted twin* of a kernel module is that module's functions re-bound to a
copy of its globals in which every kernel, and every other kernel module, is replaced by its
twin: nothing a twin calls compiles. Twins compute the same numbers from the same source,
slowly (a single FK ~0.5 ms instead of ~2 µs, an IK solve ~30-100 ms instead of ~0.3 ms), but
they need no compiler: a node serves with them from its first second while the kernels compile
in a child process (:mod:`.background`), then switches.

The switch is process-wide. By default every kernel module is the compiled one (a kernel
compiles, or loads from the on-disk cache, on its first call, as in any numba program);
:func:`use_interpreted` selects the twins and :func:`use_compiled` switches back. The accessors
of the three layers (:func:`robot_state_core.kinematics.plan.compiled_kernels`, the IK solver's
and the broad phase's) pass their module through :func:`select` and register, with
:func:`on_switch`, a reset of what they cache (modules, bound entry points, "warmed" flags). A
call that has already fetched a kernel finishes with it; both variants are safe to run at the
same time in different threads.

numba-free: a kernel is recognised by its dispatcher's attributes, so this module can be
imported (and the switch thrown) before numba is.
"""

from __future__ import annotations

from collections.abc import Callable
import sys
import threading
from types import FunctionType, ModuleType
from typing import Any, cast

__all__ = ['compiled_in_use', 'entry_point', 'interpreted', 'mark_deferred',
           'on_leaving_interpreted', 'on_switch', 'select', 'use_compiled', 'use_interpreted']

_lock = threading.RLock()
_interpreted = False
_compiled_selected = False
_resets: list[Callable[[], None]] = []
_twins: dict[str, ModuleType] = {}
_namespaces: dict[str, dict[str, Any]] = {}
_converted: dict[int, Any] = {}
_kernel_modules: dict[str, bool] = {}
_deferred_ids: set[int] = set()
_leaving: list[Callable[[], None]] = []


def interpreted() -> bool:
    """True while the process runs the interpreted twins."""
    return _interpreted


def compiled_in_use() -> bool:
    """True once a compiled kernel module has been handed out in this process."""
    return _compiled_selected


def select(module: ModuleType) -> ModuleType:
    """``module`` (a kernel module), or its interpreted twin while the process runs twins."""
    global _compiled_selected
    if not _interpreted:
        _compiled_selected = True
        return module
    with _lock:
        return _twin(module)


def on_switch(reset: Callable[[], None]) -> None:
    """Call ``reset`` after every switch (drop cached modules, entry points, warm flags)."""
    with _lock:
        _resets.append(reset)


def mark_deferred(function: FunctionType) -> None:
    """Count ``function`` as a kernel: decorated while interpreted, not yet given to numba."""
    with _lock:
        _deferred_ids.add(id(function))


def on_leaving_interpreted(hook: Callable[[], None]) -> None:
    """Call ``hook`` when the process switches from the twins to the compiled kernels."""
    with _lock:
        _leaving.append(hook)


def use_interpreted() -> None:
    """Run the interpreted twins from now on (each built on its first use, ~0.1 s)."""
    _switch(True)


def use_compiled() -> None:
    """Run the compiled kernels from now on (the default)."""
    _switch(False)


def entry_point(kernel: Any) -> Callable[..., Any] | None:
    """The compiled entry point of ``kernel`` if it has exactly one signature, else ``None``.

    A numba dispatcher types every argument on every call to pick its compiled signature
    (~0.1-0.2 µs per array argument). A kernel that compiles one signature only can be called
    through its entry point instead, skipping that; the caller must then pass exactly that
    signature's argument kinds (dtype, rank, C-contiguity; Python int/float scalars): a
    mismatch is not detected. ``None`` also for an interpreted twin (a plain function).
    """
    overloads = getattr(kernel, 'overloads', None)
    if overloads is None or len(overloads) != 1:
        return None
    return cast(Callable[..., Any], next(iter(overloads.values())).entry_point)


def _switch(value: bool) -> None:
    global _interpreted
    with _lock:
        if _interpreted == value:
            return
        hooks = list(_leaving) if not value else []
    for hook in hooks:  # (decorators.materialize: deferred kernels become dispatchers)
        hook()
    with _lock:
        _interpreted = value
        resets = list(_resets)
    for reset in resets:
        reset()


def _python_function(value: Any) -> FunctionType | None:
    """The function of a kernel (under a numba dispatcher, or deferred), else None.

    Duck-typed: numba may not be imported.
    """
    if isinstance(value, FunctionType):
        return value if id(value) in _deferred_ids else None
    if type(value).__module__.startswith('numba.'):
        function = getattr(value, 'py_func', None)
        if isinstance(function, FunctionType):
            return function
    return None


def _is_kernel_module(module: ModuleType) -> bool:
    """True for a module that defines kernels (remembered per module name)."""
    name = module.__name__
    known = _kernel_modules.get(name)
    if known is None:
        known = _kernel_modules[name] = any(
            f is not None and f.__module__ == name
            for f in map(_python_function, list(vars(module).values())))
    return known


def _twin(module: ModuleType) -> ModuleType:
    """The twin of kernel module ``module`` (built on first use, with the twins it needs)."""
    name = module.__name__
    twin = _twins.get(name)
    if twin is not None:
        return twin
    twin = ModuleType(name, f'Interpreted twin of {name} (robot_state_core.jit.kernels).')
    namespace = dict(vars(module))
    _twins[name] = twin  # before converting: kernel modules may refer to each other
    _namespaces[name] = namespace
    for key, value in namespace.items():
        namespace[key] = _convert(value)
    vars(twin).update(namespace)
    return twin


def _convert(value: Any) -> Any:
    """``value`` as the twins see it: kernels and kernel modules by their twins."""
    if isinstance(value, ModuleType):
        return _twin(value) if _is_kernel_module(value) else value
    key = id(value)
    if key in _converted:
        return _converted[key]
    kernel_function = _python_function(value)
    source = value if kernel_function is None else kernel_function
    home = sys.modules.get(getattr(source, '__module__', None) or '')
    if isinstance(source, FunctionType) and home is not None and _is_kernel_module(home):
        _twin(home)
        out: Any = FunctionType(source.__code__, _namespaces[home.__name__], source.__name__,
                                source.__defaults__, source.__closure__)
        out.__kwdefaults__ = source.__kwdefaults__
        out.__doc__ = source.__doc__
        out.__qualname__ = source.__qualname__
    elif kernel_function is not None:  # a kernel made from a plain function elsewhere
        out = kernel_function
    else:
        return value
    _converted[key] = out
    return out
