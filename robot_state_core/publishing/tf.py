"""JointState → moving-joint transforms: the core of the state publisher node (no ROS here).

:class:`TfPublishingCore` does what robot_state_publisher's ``callbackJointState`` does, on
arrays, and more (design study B4a, decisions C3–C5):

* names are resolved to variable indices once per distinct name tuple (an LRU cache bounded in
  entries and in bytes: name tuples come from the network); unknown names are reported once
  each and skipped; a name given twice in one message takes its *first* value
  (robot_state_publisher fills a ``std::map`` with ``emplace``, which keeps the first entry).
  The names already reported are remembered up to :data:`MAX_REPORTED_UNKNOWN` names /
  :data:`MAX_REPORTED_UNKNOWN_BYTES`; beyond that, unknown names are returned as a count with a
  few examples, for a throttled summary (decision H11);
* a name/position length mismatch, an empty message, a NaN/inf position or a FLOATING joint
  quaternion that would be degenerate after the message (NaN/inf, norm outside
  ``[1e-12, 1e12]``, :func:`~robot_state_core.spatial.transforms.check_quat_xyzw`) drops the whole
  message; the stored positions are only replaced by a validated candidate, so a bad message
  leaves nothing behind (never a NaN transform, decision H11);
* multi-DOF joints (planar, floating, rpy_floating) are driven by MoveIt-style variable names
  (``base/x``, ``base/theta``, ``base/trans_x`` ... ``base/rot_w``, ``rpy/qx`` ...); values not
  in a message keep their last value;
* mimic joints always follow their source, through chains (robot_state_publisher lets an
  explicit value for the mimic joint win and does not resolve chains);
* the per-joint rate limit works on message stamps exactly as robot_state_publisher's: a
  message is published when ``ignore_timestamp`` is set or its stamp is at least one publish
  interval after the oldest last-publish stamp of its joints, the interval being
  ``1000 / publish_frequency`` truncated to whole milliseconds as robot_state_publisher computes it
  (``std::chrono::milliseconds(uint64_t(1000.0 / f))``: 30 Hz gives 33 ms, not 33.33 ms).
  ``publish_frequency = 0`` means no rate limit (robot_state_publisher divides by zero);
* a stamp older than the newest one seen (bag replay, clock reset) clears the rate limiter.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core._typing import IntArray
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.kinematics import local_joint_frames, plan
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.frame_transforms import FrameTransforms
from robot_state_core.spatial.transforms import check_quat_xyzw

#: Distinct name tuples whose resolution is cached, at most (LRU).
MAX_CACHED_NAME_TUPLES = 256
#: Estimated bytes of the cached name tuples, at most (a tuple larger than this is not cached).
MAX_CACHED_NAME_BYTES = 4 * 2 ** 20
#: Unknown names remembered as "already reported", at most.
MAX_REPORTED_UNKNOWN = 1000
#: Estimated bytes of the remembered unknown names, at most.
MAX_REPORTED_UNKNOWN_BYTES = 256 * 2 ** 10
#: How many unknown names a summary of unremembered ones carries as examples.
UNKNOWN_EXAMPLES = 3
#: Estimated bytes per name beyond its characters: the str object, its slot in a tuple or set,
#: and its two index entries.
_NAME_OVERHEAD_BYTES = 80


@dataclass(frozen=True)
class JointStateUpdate:
    """Outcome of one JointState message.

    Attributes:
        transforms: The moving-joint transforms to publish, or ``None`` (dropped/limited).
        problem: Why the message was dropped ('' when it was not).
        rate_limited: The message was valid but inside the rate limit.
        new_unknown_names: Names seen for the first time that the model does not know (each
            returned once).
        clock_reset: A stamp went backwards and the rate limiter was cleared.
        unremembered_unknown: Unknown names of this message that could not be remembered as
            reported (the memory of reported names is full): their number; they may be
            returned again by a later message.
        unremembered_examples: Up to :data:`UNKNOWN_EXAMPLES` of those names.
    """

    transforms: FrameTransforms | None
    problem: str = ''
    rate_limited: bool = False
    new_unknown_names: tuple[str, ...] = ()
    clock_reset: bool = False
    unremembered_unknown: int = 0
    unremembered_examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Resolved:
    variable_indices: IntArray
    input_indices: IntArray
    joints: IntArray  # moving joints to publish (incl. mimic followers)
    parent_frames: tuple[str, ...]  # of those joints
    child_frames: tuple[str, ...]


def _names_bytes(names: Sequence[str]) -> int:
    """Estimated memory [bytes] of keeping ``names`` (characters plus per-name overhead)."""
    return sum(map(len, names)) + _NAME_OVERHEAD_BYTES * len(names)


class _ResolutionCache:
    """LRU cache of name tuple -> resolution, bounded in entries and in estimated bytes."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self._entries: OrderedDict[tuple[str, ...], tuple[_Resolved, int]] = OrderedDict()
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, names: tuple[str, ...]) -> _Resolved | None:
        entry = self._entries.get(names)
        if entry is None:
            return None
        self._entries.move_to_end(names)
        return entry[0]

    def put(self, names: tuple[str, ...], resolved: _Resolved) -> None:
        cost = _names_bytes(names)
        if cost > self._max_bytes:
            return
        self._entries[names] = (resolved, cost)
        self.bytes += cost
        while len(self._entries) > self._max_entries or self.bytes > self._max_bytes:
            _, (_, old) = self._entries.popitem(last=False)
            self.bytes -= old


class _ReportedNames:
    """The unknown names already reported, bounded in count and in estimated bytes.

    When full, nothing is forgotten (forgetting would report a cycling set of names again and
    again): further names are not remembered and the caller summarises them instead.
    """

    def __init__(self, max_names: int, max_bytes: int) -> None:
        self._names: set[str] = set()
        self._max_names = max_names
        self._max_bytes = max_bytes
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._names)

    def add(self, unknown: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``(newly remembered names, names not remembered because the memory is full)``."""
        new: list[str] = []
        unremembered: list[str] = []
        for name in unknown:
            if name in self._names:
                continue
            cost = len(name) + _NAME_OVERHEAD_BYTES
            if len(self._names) >= self._max_names or self.bytes + cost > self._max_bytes:
                unremembered.append(name)
                continue
            self._names.add(name)
            self.bytes += cost
            new.append(name)
        return tuple(new), tuple(unremembered)


def publish_interval_ns(publish_frequency: float) -> int:
    """robot_state_publisher's publish interval [ns] for a ``publish_frequency`` [Hz] > 0.

    ``1000 / publish_frequency`` milliseconds truncated to an integer number of milliseconds,
    as robot_state_publisher's ``callbackJointState`` computes it (30 Hz -> 33 ms, 333 Hz -> 3 ms).
    """
    return int(1000.0 / publish_frequency) * 1_000_000


def _first_occurrences(variable_indices: IntArray,
                       input_indices: IntArray) -> tuple[IntArray, IntArray]:
    """Keep only the first message entry of each variable named more than once."""
    if np.unique(variable_indices).size == variable_indices.size:
        return variable_indices, input_indices
    _, first = np.unique(variable_indices, return_index=True)
    keep = np.sort(first)
    return variable_indices[keep], input_indices[keep]


class TfPublishingCore:
    """Stateful JointState → transforms converter for one model.

    Args:
        model: The robot model.
        publish_frequency: Per-joint rate limit [Hz] (0: none).
        ignore_timestamp: Publish every message regardless of stamps.
    """

    def __init__(self, model: RobotModel, publish_frequency: float = 20.0,
                 ignore_timestamp: bool = False) -> None:
        self.model = model
        self.publish_frequency = float(publish_frequency)
        self.ignore_timestamp = bool(ignore_timestamp)
        self._q = np.array(model.default_positions, dtype=np.float64)
        self._last_publish_ns = np.zeros(model.joint_count, dtype=np.int64)
        self._newest_ns = 0
        self._cache = _ResolutionCache(MAX_CACHED_NAME_TUPLES, MAX_CACHED_NAME_BYTES)
        self._reported_unknown = _ReportedNames(MAX_REPORTED_UNKNOWN,
                                                MAX_REPORTED_UNKNOWN_BYTES)
        kinematics_plan = plan(model)
        self._quat_q: IntArray = kinematics_plan.floating_q[:, 3:]
        self._quat_labels = kinematics_plan.floating_labels
        moving = np.array([t is not JointType.FIXED for t in model.joint_types], dtype=bool)
        self._moving = moving
        # variable -> joint, and for mimic: source variable -> follower joints
        self._variable_joint = np.asarray(model.variable_joint)
        self._parents = tuple(model.link_names[i] for i in model.joint_parent_link)
        self._children = tuple(model.link_names[i] for i in model.joint_child_link)

    @property
    def positions(self) -> NDArray[np.float64]:
        """The last known joint positions (nq), read-only view."""
        view = self._q.view()
        view.setflags(write=False)
        return view

    def prepare_kernels(self) -> None:
        """Compile, or load from the kernel cache, the compiled kernel the /tf path runs.

        The first call in a process imports numba and compiles the kernel (seconds with an
        empty kernel cache, a fraction of a second from it); the node calls this after its
        first /tf_static so that the first JointState does not wait for it. Later calls cost
        one small FK of the last known positions (nothing is stored).
        """
        local_joint_frames(self.model, self._q.copy(), np.arange(self.model.joint_count))

    @property
    def memory_use(self) -> dict[str, int]:
        """Sizes of the bounded name memories (byte figures are estimates).

        Keys: ``cached_name_tuples``, ``cached_name_bytes``, ``reported_unknown_names``,
        ``reported_unknown_bytes``.
        """
        return {'cached_name_tuples': len(self._cache), 'cached_name_bytes': self._cache.bytes,
                'reported_unknown_names': len(self._reported_unknown),
                'reported_unknown_bytes': self._reported_unknown.bytes}

    def _resolve(self, names: tuple[str, ...]
                 ) -> tuple[_Resolved, tuple[str, ...], tuple[str, ...]]:
        """The resolution of ``names``, the newly reported and the unremembered unknown names."""
        cached = self._cache.get(names)
        if cached is not None:
            return cached, (), ()
        sel = self.model.resolve_variables(names, unknown='ignore')
        variable_indices, input_indices = _first_occurrences(sel.variable_indices,
                                                             sel.input_indices)
        touched = np.zeros(self.model.nq, dtype=bool)
        touched[variable_indices] = True
        mv, ms = np.asarray(self.model.mimic_variable), np.asarray(self.model.mimic_source)
        if mv.size:
            touched[mv[touched[ms]]] = True
        joints = np.unique(self._variable_joint[touched])
        joints = joints[self._moving[joints]].astype(np.intp)
        resolved = _Resolved(variable_indices, input_indices, joints,
                             tuple(self._parents[j] for j in joints.tolist()),
                             tuple(self._children[j] for j in joints.tolist()))
        self._cache.put(names, resolved)
        new_unknown, unremembered = self._reported_unknown.add(sel.unknown_names)
        return resolved, new_unknown, unremembered

    def _candidate_problem(self, q: NDArray[np.float64]) -> str:
        """Why the candidate positions ``q`` (after mimic) must not be stored ('' if fine)."""
        if not np.isfinite(q).all():  # a mimic follower can overflow a huge finite source
            bad = [self.model.variable_names[i] for i in np.flatnonzero(~np.isfinite(q))[:3]]
            return f'JointState gives non-finite values to {bad} (mimic); message ignored'
        if self._quat_q.size:
            try:
                check_quat_xyzw(q[self._quat_q], 'JointState',
                                'the quaternion (rot_x, rot_y, rot_z, rot_w)', self._quat_labels)
            except InvalidArgumentError as exc:
                return f'{exc}; message ignored'
        return ''

    def process(self, names: Sequence[str], positions: ArrayLike,
                stamp_ns: int) -> JointStateUpdate:
        """Handle one JointState (``name``, ``position``, header stamp in nanoseconds)."""
        pos = np.asarray(positions, dtype=np.float64).reshape(-1)
        if len(names) != pos.size:
            return JointStateUpdate(None, f'JointState has {len(names)} names but {pos.size} '
                                          'positions; message ignored')
        if pos.size == 0:
            return JointStateUpdate(None, 'JointState has no positions; message ignored')
        if not np.isfinite(pos).all():
            bad = [names[i] for i in np.flatnonzero(~np.isfinite(pos))[:3]]
            return JointStateUpdate(None, f'JointState has non-finite positions for {bad}; '
                                          'message ignored')
        resolved, new_unknown, unremembered = self._resolve(tuple(names))
        unknown_info: dict[str, Any] = {
            'new_unknown_names': new_unknown, 'unremembered_unknown': len(unremembered),
            'unremembered_examples': unremembered[:UNKNOWN_EXAMPLES]}
        # Never store what was not validated: build the candidate positions, check them, and
        # only then replace the stored ones (a degenerate quaternion must not stick).
        q = self._q.copy()
        q[resolved.variable_indices] = pos[resolved.input_indices]
        with np.errstate(over='ignore', invalid='ignore'):  # an overflow is reported below
            self.model.apply_mimic(q)
        problem = self._candidate_problem(q)
        if problem:
            return JointStateUpdate(None, problem, **unknown_info)
        clock_reset = stamp_ns < self._newest_ns
        if clock_reset:
            self._last_publish_ns[:] = 0
        self._newest_ns = max(self._newest_ns, stamp_ns) if not clock_reset else stamp_ns
        joints = resolved.joints
        if joints.size == 0:
            self._q = q
            return JointStateUpdate(None, '', clock_reset=clock_reset, **unknown_info)
        if not self.ignore_timestamp and self.publish_frequency > 0.0:
            period_ns = publish_interval_ns(self.publish_frequency)
            if stamp_ns < int(self._last_publish_ns[joints].min()) + period_ns:
                self._q = q
                return JointStateUpdate(None, '', True, clock_reset=clock_reset, **unknown_info)
        # one compiled call; validates q again: raises, no NaN
        translations, quats = local_joint_frames(self.model, q, joints)
        self._q = q
        self._last_publish_ns[joints] = stamp_ns
        frames = FrameTransforms(
            parent_frames=resolved.parent_frames,
            child_frames=resolved.child_frames,
            translations=translations,
            quats_xyzw=quats,
        )
        return JointStateUpdate(frames, '', False, clock_reset=clock_reset, **unknown_info)
