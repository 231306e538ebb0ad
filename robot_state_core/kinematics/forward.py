"""Forward kinematics: local joint transforms, link poses (single and batched), KinematicsData.

One kernel: every function here runs the compiled FK kernel
:func:`robot_state_core.kinematics.compiled.forward` (local transforms from the plan's motion
polynomials and the multi-DOF joint types' ``motion_rows``, composed in joint order by
:func:`~robot_state_core.spatial.compiled.compose_into`), or one of its two halves
(:func:`~robot_state_core.kinematics.compiled.local_transforms`,
:func:`~robot_state_core.spatial.composition.compose_tree`). A single configuration is the batch of
one. Conventions: :mod:`robot_state_core.kinematics`.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
import functools
import itertools
import math
import os
import sys
import threading

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    all_finite,
    as_finite_float,
    as_float_array,
    FloatArray,
    IntArray,
)
from robot_state_core.description.scene_graph import SceneGraph
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError, ModelMismatchError
from robot_state_core.kinematics.plan import (
    build_plan,
    check_configuration,
    check_link,
    check_values,
    compiled_kernels,
    configuration_error,
    entries,
    FLOAT64,
    kernel_entry,
    KinematicsPlan,
    plan,
)
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.composition import compose_tree

# ---------------------------------------------------------------------------- kernel arguments

_NO_LOCALS = np.empty((0, 0, 4, 4))
# The local-transforms argument when only link poses are wanted.


def kernel_rows(q: FloatArray) -> FloatArray:
    """``q`` ``(..., n)`` as the C-contiguous, writable ``(N, n)`` rows the kernels take.

    Fixed array kinds keep each kernel at one compiled signature (numba compiles read-only
    and non-contiguous arrays separately); copies only when ``q`` is not already such.
    """
    rows = q if q.ndim == 2 else q[None] if q.ndim == 1 else q.reshape(
        math.prod(q.shape[:-1]), q.shape[-1])
    if not (rows.flags.c_contiguous and rows.flags.writeable):
        rows = np.array(rows, dtype=np.float64, order='C')
    return rows


POOLED_OUTPUT_MIN_BYTES = 32 * 2**20
'''Batched FK outputs at least this large reuse the memory of a dropped earlier output of the
same size (:func:`pose_output`). Below it the C allocator already reuses freed blocks (glibc's
largest mmap threshold is 32 MB); above it every ``np.empty`` maps fresh pages, and faulting
them in cost Talos' 77 MB ``(10 000, 60, 4, 4)`` output more time than its FK.'''
POOLED_OUTPUT_MAX_BYTES = 512 * 2**20
'''Most memory the pool of :func:`pose_output` keeps (free or in use by callers).'''
_pool: list[FloatArray] = []  # flat float64 buffers, oldest first
_pool_lock = threading.Lock()


def pose_output(shape: tuple[int, ...]) -> FloatArray:
    """A new uninitialised float64 array of ``shape`` for the FK kernel to fill completely.

    Large ones (:data:`POOLED_OUTPUT_MIN_BYTES`) are views of a pooled buffer that no caller
    references any more (numpy's views keep their base buffer referenced, so a buffer whose
    only references are the pool's is free), or of a new pooled buffer (the oldest free ones
    are dropped beyond :data:`POOLED_OUTPUT_MAX_BYTES`; if the pool is full of buffers still in
    use, a plain ``np.empty``). Thread-safe: a buffer is referenced by its view before the lock
    is released.
    """
    count = math.prod(shape)
    if count * 8 < POOLED_OUTPUT_MIN_BYTES:
        return np.empty(shape)
    nbytes = count * 8
    with _pool_lock:  # free: referenced by the list and getrefcount's argument only
        free = [k for k in range(len(_pool)) if sys.getrefcount(_pool[k]) <= 2]
        for k in free:
            if _pool[k].size == count:
                return _pool[k].reshape(shape)
        retained = sum(b.nbytes for b in _pool)
        for dropped, k in enumerate(free):  # make room: drop the oldest free buffers
            if retained + nbytes <= POOLED_OUTPUT_MAX_BYTES:
                break
            retained -= _pool.pop(k - dropped).nbytes
        buffer = np.empty(count)
        if retained + nbytes <= POOLED_OUTPUT_MAX_BYTES:
            _pool.append(buffer)
        return buffer.reshape(shape)


PARALLEL_MIN_COMPOSITIONS = 2**16
'''Batches of at least this many joint compositions (configurations × joints, ~2.5 ms of kernel
time) run the FK kernel on row chunks in parallel threads (it releases the GIL); smaller ones
run on the calling thread. Measured on the shared 2-CPU machine, N = 10 000: Talos (59 joints,
590 k compositions) gained under any load (1.6-1.9× → 2.0× Pinocchio's loop); the Panda (12
joints, 120 k) gains 1.7× with the second CPU idle (serial 1.9-2.1 M → 3.4-3.5 M configs/s)
and loses 0-7 % when another process keeps it busy.'''


def _usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    affinity = getattr(os, 'sched_getaffinity', None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _workers() -> tuple[ThreadPoolExecutor | None, int]:
    """The FK worker pool (usable CPUs - 1 threads, created on first use) and the thread count.

    ``(None, 1)`` on a single usable CPU. The calling thread is one of the threads. One pool
    per process: a forked child (whose copy of the parent's pool has no threads) makes its own.
    """
    return _process_workers(os.getpid())


@functools.cache
def _process_workers(pid: int) -> tuple[ThreadPoolExecutor | None, int]:
    """:func:`_workers` of process ``pid``."""
    threads = min(_usable_cpus(), 8)
    return (ThreadPoolExecutor(threads - 1, thread_name_prefix='fk') if threads > 1 else None,
            threads)


def run_forward(p: KinematicsPlan, Q: FloatArray, X_PC: FloatArray | None = None) -> FloatArray:
    """The FK kernel on kernel rows ``Q`` ``(N, nq)`` (:func:`kernel_rows`): ``(N, L, 4, 4)``.

    A large batch (:data:`PARALLEL_MIN_COMPOSITIONS`) is cut into contiguous row chunks that
    the calling thread and the worker threads claim in turn, each run by the same kernel (so
    every row is bitwise the serial result). Claiming in turn keeps a loaded machine at the
    serial speed: a worker that gets no CPU claims nothing, and the caller waits only for the
    chunks workers did claim.

    Args:
        p: The model's plan.
        Q: ``(N, nq)`` validated configurations.
        X_PC: ``(N, J, 4, 4)`` to receive the local transforms (else they are not kept).
    """
    n = Q.shape[0]
    X_WL = pose_output((n, p.link_count, 4, 4))
    forward = compiled_kernels().forward
    locals_ = _NO_LOCALS if X_PC is None else X_PC
    pool, threads = _workers() if n * p.joint_count >= PARALLEL_MIN_COMPOSITIONS else (None, 1)
    chunks = min(_CHUNKS_PER_THREAD * threads, n)
    if pool is None or chunks < 2:
        forward(Q, p.fk_joints, p.fk_coefficients, locals_, X_WL)
        return X_WL
    edges = [n * b // chunks for b in range(chunks + 1)]
    claims = itertools.count()
    finished = [threading.Event() for _ in range(chunks)]
    failures: list[BaseException] = []

    def work() -> None:
        while (b := next(claims)) < chunks:
            lo, hi = edges[b], edges[b + 1]
            try:
                forward(Q[lo:hi], p.fk_joints, p.fk_coefficients,
                        locals_ if X_PC is None else locals_[lo:hi], X_WL[lo:hi])
            except BaseException as err:  # re-raised by the caller
                failures.append(err)
            finally:
                finished[b].set()

    for _ in range(threads - 1):
        pool.submit(work)
    work()
    for event in finished:
        event.wait()
    if failures:
        raise failures[0]
    return X_WL


_CHUNKS_PER_THREAD = 4
# Row chunks of a parallel FK batch per thread: a caller left with a descheduled worker's
# chunk waits for at most one chunk.


def run_forward_one(p: KinematicsPlan, q: FloatArray, function: str) -> FloatArray:
    """The single-configuration FK kernel on a checked ``q`` ``(nq,)``: ``(L, 4, 4)``.

    :func:`~robot_state_core.kinematics.compiled.forward_one`, the batch kernel's loop for
    one configuration (bitwise the same poses) with the fewest arrays crossing into numba.
    ``q`` may be unchecked (``check_configuration(..., finite=False)``): the kernel tests it.

    Raises:
        InvalidArgumentError: ``q`` contains NaN or inf, or a degenerate quaternion (naming
            ``function``).
    """
    flags = q.flags
    if not (flags.c_contiguous and flags.writeable):
        q = np.array(q, dtype=np.float64, order='C')
    X_WL = np.empty((p.link_count, 4, 4))
    status = (entries.forward_one or kernel_entry('forward_one'))(
        q, p.fk_joints, p.fk_coefficients, X_WL)
    if status:
        raise configuration_error(p, q, status, function)
    return X_WL


# ---------------------------------------------------------------------------- local transforms


def local_joint_transforms(model: RobotModel, q: ArrayLike) -> FloatArray:
    """``X_PC(q)`` of every joint: the child link's pose in its parent link.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions (rad, m; quaternions xyzw, normalized here).

    Returns:
        ``(..., J, 4, 4)`` poses, joint order.
    """
    qa, p = check_configuration(model, q, 'local_joint_transforms')
    Q = kernel_rows(qa)
    X_PC = np.empty((Q.shape[0], p.joint_count, 4, 4))
    compiled_kernels().local_transforms(Q, p.fk_joints, p.fk_coefficients, X_PC)
    return X_PC.reshape(qa.shape[:-1] + X_PC.shape[1:])


def local_joint_frames(model: RobotModel, q: ArrayLike,
                       joints: IntArray) -> tuple[FloatArray, FloatArray]:
    """Translation and rotation of the local transforms of some joints (what /tf publishes).

    Bitwise equal to ``X = local_joint_transforms(model, q)[joints]`` followed by
    ``X[:, :3, 3]`` and :func:`~robot_state_core.spatial.transforms.quat_xyzw_from_rotation` of
    ``X[:, :3, :3]``, in one compiled call.

    Args:
        model: The robot model.
        q: ``(nq,)`` joint positions (one configuration).
        joints: ``(K,)`` joint indices (intp).

    Returns:
        ``(translations (K, 3) [m], quats_xyzw (K, 4))``, child link in parent link, w >= 0.

    Raises:
        InvalidArgumentError: ``q`` is malformed or not finite, or is a batch.
    """
    qa, p = check_configuration(model, q, 'local_joint_frames')
    if qa.ndim != 1:
        raise InvalidArgumentError(f'local_joint_frames: q must have shape ({model.nq},), got '
                                   f'{qa.shape}')
    rows = kernel_rows(qa)
    selected = np.ascontiguousarray(joints, dtype=np.intp)
    translations = np.empty((selected.size, 3))
    quats = np.empty((selected.size, 4))
    compiled_kernels().local_frames(rows[0], p.fk_joints, p.fk_coefficients, selected,
                                    translations, quats)
    return translations, quats


# ---------------------------------------------------------------------------- forward kinematics


def forward_kinematics(model: RobotModel, q: ArrayLike) -> FloatArray:
    """Pose of every link in the model frame.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions.

    Returns:
        ``X_WL`` ``(..., L, 4, 4)``; ``X_WL[..., 0]`` (the root) is the identity. A new array
        (a batch's of 32 MB or more may be a view of the memory of an earlier result nothing
        references any more, :func:`pose_output`).
    """
    p = model.derived(build_plan)
    if (type(q) is np.ndarray and q.dtype is FLOAT64 and q.shape == p.q_shape
            and q.flags.carray):
        # The single-configuration fast path (a C-contiguous writable float64 (nq,) array):
        # the kernel argument as given, its values tested by the kernel. Everything else
        # takes the general checks below.
        X_WL = np.empty(p.pose_shape)
        status = (entries.forward_one or kernel_entry('forward_one'))(
            q, p.fk_joints, p.fk_coefficients, X_WL)
        if status:
            raise configuration_error(p, q, status, 'forward_kinematics')
        return X_WL
    qa, p = check_configuration(model, q, 'forward_kinematics', finite=False)
    if qa.ndim == 1:
        return run_forward_one(p, qa, 'forward_kinematics')
    check_values(p, qa, 'forward_kinematics')
    X_WL = run_forward(p, kernel_rows(qa))
    return X_WL.reshape(qa.shape[:-1] + X_WL.shape[1:])


class KinematicsData:
    """Per-evaluation results of one model (Pinocchio's ``Data``; design study's workspace).

    The model holds what never changes (its arrays and :class:`KinematicsPlan`); a data
    object holds what one evaluation produces. :func:`update_forward_kinematics` fills it; a
    :class:`~robot_state_core.state.robot_state.RobotState` owns one. Each update stores *new*
    arrays, so arrays handed out from an earlier update keep their values.

    Attributes:
        model: The model the data belongs to.
        X_PC: ``(J, 4, 4)`` local joint transforms of the last update (child link in parent
            link); zeros before the first.
        X_WL: ``(L, 4, 4)`` link poses in the model frame of the last update; zeros before
            the first.

    Raises:
        InvalidTypeError: ``model`` is not a :class:`RobotModel`.
    """

    __slots__ = ('X_PC', 'X_WL', 'model')

    def __init__(self, model: RobotModel) -> None:
        if not isinstance(model, RobotModel):
            raise InvalidTypeError(f'KinematicsData: model must be a RobotModel, got '
                                   f'{type(model).__name__}')
        self.model = model
        self.X_PC: FloatArray = np.zeros((model.joint_count, 4, 4))
        self.X_WL: FloatArray = np.zeros((model.link_count, 4, 4))

    def copy(self) -> KinematicsData:
        """An independent copy (same model, copied arrays)."""
        other = KinematicsData.__new__(KinematicsData)
        other.model, other.X_PC, other.X_WL = self.model, self.X_PC.copy(), self.X_WL.copy()
        return other


def update_forward_kinematics(model: RobotModel, data: KinematicsData,
                              q: ArrayLike) -> FloatArray:
    """FK of one configuration into ``data`` (Pinocchio ``forwardKinematics(model, data, q)``).

    The same kernel as :func:`forward_kinematics` for a single configuration.

    Args:
        model: The robot model.
        data: The model's :class:`KinematicsData`; ``data.X_PC`` and ``data.X_WL`` are
            replaced by new arrays.
        q: ``(nq,)`` joint positions.

    Returns:
        ``data.X_WL`` ``(L, 4, 4)``.

    Raises:
        InvalidArgumentError: ``q`` is malformed, or is a batch.
        ModelMismatchError: ``data`` belongs to another model.
    """
    if data.model is not model:
        raise ModelMismatchError('update_forward_kinematics: data belongs to another model')
    qa, p = check_configuration(model, q, 'update_forward_kinematics')
    if qa.ndim != 1:
        raise InvalidArgumentError(f'update_forward_kinematics: q must have shape '
                                   f'({model.nq},), got {qa.shape}')
    X_PC = np.empty((1, p.joint_count, 4, 4))
    X_WL = run_forward(p, kernel_rows(qa), X_PC)
    data.X_PC, data.X_WL = X_PC[0], X_WL[0]
    return data.X_WL


def compose_link_poses(model: RobotModel, X_PC: FloatArray) -> FloatArray:
    """Compose local joint transforms ``(..., J, 4, 4)`` into link poses ``(..., L, 4, 4)``.

    The composition half of the FK kernel: the package's one tree composition
    (:func:`robot_state_core.spatial.composition.compose_tree`, whose product the FK kernel
    compiles in).

    Raises:
        InvalidArgumentError: ``X_PC`` is not a finite ``(..., J, 4, 4)`` array.
    """
    try:
        X_PC = np.asarray(X_PC, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'compose_link_poses: X_PC is not numeric ({err})') from err
    if X_PC.shape[-3:] != (model.joint_count, 4, 4):
        raise InvalidArgumentError(f'compose_link_poses: X_PC must have shape (..., '
                                   f'{model.joint_count}, 4, 4), got {X_PC.shape}')
    if not all_finite(X_PC):
        raise InvalidArgumentError('compose_link_poses: X_PC contains NaN or inf')
    p = plan(model)
    return compose_tree(p.fk_joints[:, 2:4], X_PC, p.link_count)


def forward_kinematics_soa(model: RobotModel, q: ArrayLike) -> FloatArray:
    """Batched FK in structure-of-arrays layout: :func:`forward_kinematics`, batch last.

    Args:
        model: The robot model.
        q: ``(N, nq)`` joint positions.

    Returns:
        ``(L, 4, 4, N)``: ``[..., n]`` is the ``X_WL`` stack of configuration ``n`` (a
        transposed view of the kernel's ``(N, L, 4, 4)`` output).
    """
    qa, p = check_configuration(model, q, 'forward_kinematics_soa')
    out: FloatArray = np.moveaxis(run_forward(p, kernel_rows(qa)), 0, -1)
    return out


def link_pose(model: RobotModel, q: ArrayLike, link: str | int) -> FloatArray:
    """``X_WL`` ``(..., 4, 4)`` of one link (computes all links; cache the full FK instead).

    Raises:
        UnknownNameError: Unknown link name.
        InvalidIndexError: Link index out of range or negative.
        InvalidTypeError: ``link`` is neither a name nor an int.
    """
    index = check_link(model, link, 'link_pose')
    return forward_kinematics(model, q)[..., index, :, :]


# ---------------------------------------------------------------------------- scene state (SG-49)


@dataclass(frozen=True)
class SceneState:
    """tesseract's ``SceneState`` (SG-C8): joint values and the resulting world transforms.

    Attributes:
        joints: The variable values used, ``{variable name: value}`` (every model variable).
        link_transforms: ``{link name: X_WL (4, 4)}`` in the model frame.
        joint_transforms: ``{joint name: X_WC (4, 4)}``: the joint frame after its motion, which
            is the child link's frame (tesseract gives both for convenience).
    """

    joints: dict[str, float]
    link_transforms: dict[str, FloatArray]
    joint_transforms: dict[str, FloatArray]


def compute_scene_state(model: RobotModel | SceneGraph,
                        joint_values: Mapping[str, object] | None = None) -> SceneState:
    """Compute a :class:`SceneState` from joint values (SG-49; tesseract's state solver).

    Args:
        model: A :class:`~robot_state_core.model.robot_model.RobotModel`, or a
            :class:`~robot_state_core.description.scene_graph.SceneGraph` (compiled on the fly).
        joint_values: ``{variable or 1-DOF joint name: value}``, or multi-DOF ``{joint name:
            (nq_j,) values}``; unspecified variables take the model's defaults. Mimic joints
            follow their sources.

    Raises:
        UnknownNameError: A name is neither a variable nor a joint of the model.
    """
    if not isinstance(model, RobotModel):
        model = RobotModel.from_scene_graph(model)
    q = np.array(model.default_positions, dtype=np.float64)
    if joint_values is not None and not isinstance(joint_values, Mapping):
        raise InvalidTypeError(f'compute_scene_state: joint_values must be a mapping, got '
                               f'{type(joint_values).__name__}')
    for name, value in (joint_values or {}).items():
        if model.has_variable(name):
            q[model.variable_index(name)] = as_finite_float(value, 'compute_scene_state',
                                                            f'value of {name!r}')
        else:
            j = model.joint_index(name)
            start, n = int(model.joint_q_start[j]), int(model.joint_nq[j])
            values = as_float_array(value, 'compute_scene_state', f'values of {name!r}')
            if values.size != n:
                raise InvalidArgumentError(f'compute_scene_state: joint {name!r} needs {n} '
                                           f'value(s), got {values.size}')
            q[start:start + n] = values.reshape(n)
    model.apply_mimic(q)
    X_WL = forward_kinematics(model, q)
    links = {name: X_WL[i] for i, name in enumerate(model.link_names)}
    joints = {name: X_WL[int(model.joint_child_link[j])]
              for j, name in enumerate(model.joint_names)}
    return SceneState(dict(zip(model.variable_names, q.tolist(), strict=True)), links, joints)
