"""Kernels compiled in a child process while this one serves with their interpreted twins.

A node must answer from its first second, but with an empty kernel cache (a fresh machine, a new
venv, a colcon install) numba needs ~30 s of one core to compile the FK, Jacobian, IK and
broad-phase kernels, and while it compiles it holds the interpreter. :class:`KernelPreparation`
therefore:

1. switches the process to the interpreted twins
   (:func:`robot_state_core.jit.kernels.use_interpreted`): correct from the first request,
   ~100x slower per kernel call;
2. runs the kernel workload (``python -m robot_state_core.apps.kernel_workload``) in a child
   process at low priority: it runs FK, Jacobians, IK, collision and distance queries on the
   embedded robot, so every kernel compiles into the shared on-disk cache, and records every
   compiled signature in a *signature file* beside the cache;
3. loads those signatures from the cache in a background thread (``Dispatcher.compile`` finds
   each on disk, ~1 s for all) and switches the process to the compiled kernels.

With a warm cache the signature file is already there: step 2 is skipped and the switch comes
~1 s after the node is up. The file's name carries a hash of the package's sources and
directory, numba's version and the Python version, so an upgrade or a copy starts over. The
child dies with its parent (Linux ``PR_SET_PDEATHSIG``), and :meth:`KernelPreparation.stop`
ends it at once.

Threads: one :class:`KernelPreparation` per process (:func:`kernel_preparation`); its methods
are safe to call from any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import contextlib
import ctypes
import hashlib
import importlib
import importlib.metadata
import os
from pathlib import Path
import pickle
import signal
import subprocess
import sys
import threading
import time
from types import ModuleType
from typing import Any

from robot_state_core.jit import decorators, kernels
from robot_state_core.jit.cache import cache_directory

__all__ = ['KernelPreparation', 'kernel_preparation', 'load_signatures', 'read_signatures',
           'signature_file', 'write_signatures']

WORKLOAD_MODULE = 'robot_state_core.apps.kernel_workload'
'''What the child runs (``python -m``): the kernel workload, which writes the signature file.'''
CHILD_NICENESS = 10
'''The child's niceness: the compile takes an idle core, never the serving process's.'''
LOAD_DELAY_MAX_S = 3.0
'''Longest wait for :meth:`KernelPreparation.serving` before loading cached kernels [s].'''
_OUTPUT_LINES = 20
'''Lines of a failed child's output quoted in the log.'''
_PR_SET_PDEATHSIG = 1

Signatures = dict[str, dict[str, list[Any]]]
'''``{kernel module: {kernel name: [numba signature, ...]}}``.'''


def signature_file() -> Path:
    """The signature file of this package's sources, numba and Python (see the module doc).

    The package's directory is part of the key: numba keys its cached kernels on their source
    files' paths, so a copy of the same sources elsewhere (a clone, a colcon install) finds none
    of them, and must compile in the child rather than in the serving process.
    """
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    digest.update(f'{sys.version}|numba {importlib.metadata.version("numba")}|{package}'.encode())
    for path in sorted(package.rglob('*.py')):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return cache_directory() / f'robot_state_core-signatures-{digest.hexdigest()[:20]}.pkl'


def read_signatures(path: Path) -> Signatures | None:
    """The signatures recorded in ``path``; None when it is missing or unreadable."""
    try:
        with path.open('rb') as f:
            data = pickle.load(f)  # our own file, in the user's cache directory
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return None
    return data if isinstance(data, dict) else None


def write_signatures(modules: Iterable[ModuleType], path: Path) -> Signatures:
    """Record every compiled signature of ``modules``' kernels in ``path`` (merged, atomic)."""
    merged: Signatures = read_signatures(path) or {}
    for module in modules:
        entry = merged.setdefault(module.__name__, {})
        for name, value in vars(module).items():
            signatures = getattr(value, 'signatures', None)
            if not signatures or not type(value).__module__.startswith('numba.'):
                continue
            known = entry.setdefault(name, [])
            known.extend(s for s in signatures if s not in known)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f'{path.name}.{os.getpid()}.partial')
    partial.write_bytes(pickle.dumps(merged))
    os.replace(partial, path)
    return merged


def load_signatures(signatures: Signatures) -> int:
    """Load every recorded signature from the kernel cache; returns how many were compiled.

    A signature missing from the cache (deleted files) compiles here: slow, but still correct.
    """
    modules = {name: importlib.import_module(name) for name in signatures}
    decorators.materialize()  # kernels of modules imported while interpreted: to numba now
    compiled = 0
    for module_name, entries in signatures.items():
        module = modules[module_name]
        for name, sigs in entries.items():
            kernel = getattr(module, name, None)
            if kernel is None:
                continue
            for sig in sigs:
                misses = sum(kernel._cache_misses.values())
                kernel.compile(sig)
                compiled += sum(kernel._cache_misses.values()) - misses
    return compiled


def _child_setup() -> None:  # pragma: no cover - runs in the child between fork and exec
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.nice(CHILD_NICENESS)


class KernelPreparation:
    """Interpreted kernels now, compiled ones as soon as they exist (see the module doc).

    Attributes:
        status: ``'idle'``, ``'compiled'``, ``'loading'`` (from the cache),
            ``'compiling'`` (in the child), or ``'failed: <reason>'`` (the twins stay).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._serving = threading.Event()
        self._child: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None
        self._log: Callable[[str], None] = lambda line: None
        self._started = 0.0
        self._stopping = False
        self.status = 'idle'

    @property
    def elapsed(self) -> float:
        """Seconds since :meth:`start`."""
        return time.monotonic() - self._started if self._started else 0.0

    def start(self, log: Callable[[str], None] | None = None) -> None:
        """Serve with the twins until the compiled kernels are loaded (no-op after the first call).

        Args:
            log: Receives one line when the compiled kernels are in use (or why not).
        """
        with self._lock:
            if self._started:
                return
            self._started = time.monotonic()
            if log is not None:
                self._log = log
            if kernels.compiled_in_use():  # a library process: its kernels compile on use
                self.status = 'compiled'
                self._done.set()
                return
            path = signature_file()
            kernels.use_interpreted()
            # (only whether the file exists: reading it unpickles numba types, i.e. imports
            # numba, which waits for serving() like the rest of the loading)
            warm = path.is_file()
            if warm:
                self.status = 'loading'
            else:
                self._spawn(path)
            self._thread = threading.Thread(target=self._run, args=(path, warm),
                                            name='kernel-preparation', daemon=True)
            self._thread.start()

    def _spawn(self, path: Path) -> None:
        """Start the compiler child (caller holds the lock)."""
        self.status = 'compiling'
        self._child = subprocess.Popen(
            [sys.executable, '-m', WORKLOAD_MODULE, str(path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, preexec_fn=_child_setup)

    def serving(self) -> None:
        """Say that the process serves now (its node is up): loading from the cache may begin.

        Loading the compiled kernels costs the process ~1 s of the interpreter (numba's import
        and the cached kernels); done during a node's start-up it delayed the first
        ``/tf_static`` and answers by that much, so it waits for this, at most
        :data:`LOAD_DELAY_MAX_S`.
        """
        self._serving.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the compiled kernels are in use (or preparation failed); True if done."""
        return self._done.wait(timeout)

    def stop(self) -> None:
        """End the child now (the process is shutting down); the twins stay in use."""
        with self._lock:
            self._stopping = True
            child = self._child
        self._serving.set()
        if child is not None and child.poll() is None:
            child.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=1.0)

    def _run(self, path: Path, warm: bool) -> None:
        try:
            signatures = None
            if warm:
                self._serving.wait(LOAD_DELAY_MAX_S)
                signatures = read_signatures(path)
                if signatures is None:  # unreadable: compile them after all
                    with self._lock:
                        if self._stopping:
                            return
                        self._spawn(path)
            if signatures is None:
                signatures = self._compile_in_child(path)
            if signatures is None or self._stopping:
                return
            with self._lock:
                self.status = 'loading'
            compiled_here = load_signatures(signatures)
            kernels.use_compiled()
            with self._lock:
                self.status = 'compiled'
            extra = f'; {compiled_here} compiled here (missing from the cache)' if \
                compiled_here else ''
            self._log(f'compiled kernels in use after {self.elapsed:.1f} s (interpreted until '
                      f'then){extra}')
        except Exception as exc:  # keep serving with the twins, and say why
            self._fail(f'{type(exc).__name__}: {exc}')
        finally:
            self._done.set()

    def _compile_in_child(self, path: Path) -> Signatures | None:
        child = self._child
        assert child is not None
        output, _ = child.communicate()
        if child.returncode != 0:
            tail = ' | '.join(output.strip().splitlines()[-_OUTPUT_LINES:])
            self._fail(f'the kernel compiler process ended with {child.returncode}: {tail}')
            return None
        signatures = read_signatures(path)
        if signatures is None:
            self._fail(f'the kernel compiler process wrote no signature file {path}')
        return signatures

    def _fail(self, reason: str) -> None:
        with self._lock:
            self.status = f'failed: {reason}'
            if self._stopping:
                return
        self._log(f'kernels stay interpreted (slower, still correct): {reason}')


_preparation = KernelPreparation()


def kernel_preparation() -> KernelPreparation:
    """The process's :class:`KernelPreparation` (nodes in one process share it)."""
    return _preparation
