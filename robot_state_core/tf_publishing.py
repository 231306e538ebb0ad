"""JointState → moving-joint transforms: the core of the state publisher node (no ROS here).

:class:`TfPublishingCore` does what robot_state_publisher's ``callbackJointState`` does, on
arrays, and more (design study B4a, decisions C3–C5):

* names are resolved to variable indices once per distinct name tuple; unknown names are
  reported once each and skipped; a name given twice in one message takes its *first* value
  (robot_state_publisher fills a ``std::map`` with ``emplace``, which keeps the first entry);
* a name/position length mismatch, an empty message or a NaN/inf position drops the whole
  message (never a NaN transform);
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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core.frames import FrameTransforms
from robot_state_core.joints import JointType
from robot_state_core.kinematics import local_joint_transforms
from robot_state_core.transforms import quat_xyzw_from_rotation

IntArray = NDArray[np.intp]


@dataclass(frozen=True)
class JointStateUpdate:
    """Outcome of one JointState message.

    Attributes:
        transforms: The moving-joint transforms to publish, or ``None`` (dropped/limited).
        problem: Why the message was dropped ('' when it was not).
        rate_limited: The message was valid but inside the rate limit.
        new_unknown_names: Names seen for the first time that the model does not know.
        clock_reset: A stamp went backwards and the rate limiter was cleared.
    """

    transforms: FrameTransforms | None
    problem: str = ''
    rate_limited: bool = False
    new_unknown_names: tuple[str, ...] = ()
    clock_reset: bool = False


@dataclass(frozen=True)
class _Resolved:
    variable_indices: IntArray
    input_indices: IntArray
    joints: IntArray  # moving joints to publish (incl. mimic followers)


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

    def __init__(self, model: Any, publish_frequency: float = 20.0,
                 ignore_timestamp: bool = False) -> None:
        self.model = model
        self.publish_frequency = float(publish_frequency)
        self.ignore_timestamp = bool(ignore_timestamp)
        self._q = np.array(model.default_positions, dtype=np.float64)
        self._last_publish_ns = np.zeros(model.joint_count, dtype=np.int64)
        self._newest_ns = 0
        self._cache: dict[tuple[str, ...], _Resolved] = {}
        self._reported_unknown: set[str] = set()
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

    def _resolve(self, names: tuple[str, ...]) -> tuple[_Resolved, tuple[str, ...]]:
        cached = self._cache.get(names)
        if cached is not None:
            return cached, ()
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
        resolved = _Resolved(variable_indices, input_indices, joints)
        if len(self._cache) < 256:  # bounded: name tuples come from the network
            self._cache[names] = resolved
        new_unknown = tuple(n for n in sel.unknown_names if n not in self._reported_unknown)
        self._reported_unknown.update(new_unknown)
        return resolved, new_unknown

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
        resolved, new_unknown = self._resolve(tuple(names))
        clock_reset = stamp_ns < self._newest_ns
        if clock_reset:
            self._last_publish_ns[:] = 0
        self._newest_ns = max(self._newest_ns, stamp_ns) if not clock_reset else stamp_ns
        self._q[resolved.variable_indices] = pos[resolved.input_indices]
        self.model.apply_mimic(self._q)
        joints = resolved.joints
        if joints.size == 0:
            return JointStateUpdate(None, '', new_unknown_names=new_unknown,
                                    clock_reset=clock_reset)
        if not self.ignore_timestamp and self.publish_frequency > 0.0:
            period_ns = publish_interval_ns(self.publish_frequency)
            if stamp_ns < int(self._last_publish_ns[joints].min()) + period_ns:
                return JointStateUpdate(None, '', True, new_unknown, clock_reset)
        self._last_publish_ns[joints] = stamp_ns
        X = local_joint_transforms(self.model, self._q)[joints]
        frames = FrameTransforms(
            parent_frames=tuple(self._parents[j] for j in joints),
            child_frames=tuple(self._children[j] for j in joints),
            translations=X[:, :3, 3].copy(),
            quats_xyzw=quat_xyzw_from_rotation(X[:, :3, :3]),
        )
        return JointStateUpdate(frames, '', False, new_unknown, clock_reset)
