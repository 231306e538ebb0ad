"""State publisher node: a drop-in for robot_state_publisher (design study B4a, B10).

Topics (relative names, so namespaces work; TF topics absolute):

* subscribes ``joint_states`` (sensor_msgs/JointState; sensor-data QoS with QoS overrides);
* publishes ``/tf`` (moving joints, one TFMessage per JointState, stamped with its header stamp —
  a zero stamp is replaced by the node clock, decision C3), ``/tf_static`` (every fixed joint in
  one message, transient local, the complete set republished when the description changes) and
  ``robot_description`` (std_msgs/String, transient local).

Where the description comes from, as robot_state_publisher:

* the ``robot_description`` parameter;
* when that parameter is empty, the URDF file named by the first non-ROS command-line argument
  (``robot_state_publisher robot.urdf``; Jazzy's and Kilted <= 3.4.3's deprecated fallback, kept
  here for every distribution, see docs/decisions.md);
* with ``use_robot_description_topic`` (Kilted 3.4.4; not declared on Jazzy, whose 3.3.4 has no
  topic mode), the ``robot_description`` *topic*: the node subscribes (transient local) instead of
  publishing, does not declare the ``robot_description`` parameter, and rebuilds the model from
  every description received; an invalid one is logged and the current model kept.

Model listeners (:meth:`StatePublisherNode.add_model_listener`, the all-in-one process's service
node) prepare every new model before it is accepted and switch with the publisher: a description
a listener cannot use is refused, and once /tf_static carries the new links the services answer
on them too.

Beyond robot_state_publisher: planar, floating and rpy_floating joints reach /tf from MoveIt-style
variable names; mimic chains are resolved; NaN/inf, a degenerate floating-joint quaternion or a
name/position mismatch drops the message with a throttled warning; unknown names are reported
once each, in one throttled line per period (bounded memory, decision H11). Log lines clip user
text (:mod:`robot_state_core.ros.log_limits`). Callbacks are convert → core
(:class:`~robot_state_core.publishing.tf.TfPublishingCore`) → convert, and never let an exception
escape.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
import contextlib
from dataclasses import replace
from pathlib import Path
import threading
from typing import Any

import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.exceptions import InvalidHandle
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

from robot_state_core.errors import RobotDescriptionError, RobotStateCoreError
from robot_state_core.jit.background import kernel_preparation
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.frame_transforms import fixed_joint_transforms, FrameTransforms
from robot_state_core.publishing.markers import robot_markers
from robot_state_core.publishing.tf import JointStateUpdate, TfPublishingCore
from robot_state_core.ros import qos
from robot_state_core.ros.conversions import (
    joint_state_arrays,
    marker_array,
    stamp_to_ns,
    tf_message,
)
from robot_state_core.ros.log_limits import (
    clip,
    RESPONSE_MESSAGE_LIMIT,
    ThrottledLogger,
    WARN_THROTTLE_S,
)
from robot_state_core.ros.model_loading import load_model, log_load_report
from robot_state_core.ros.params import (
    declare_state_publisher_parameters,
    read_state_publisher_config,
    StatePublisherConfig,
)
from robot_state_core.ros.tf_wire import TfWireEncoder

#: A model listener: prepares a new model (raising a RobotStateCoreError when it cannot use it)
#: and returns the function that switches to it.
ModelListener = Callable[[RobotModel], Callable[[], None]]
#: Unknown names a summary line lists by name.
UNKNOWN_NAMES_LISTED = 5


def read_description_file(path: str) -> str:
    """The text of the URDF file named on the command line.

    Raises:
        RobotDescriptionError: The file cannot be opened or is not UTF-8 text (the message names
            the file, like robot_state_publisher's "Failed to open URDF file").
    """
    try:
        return Path(path).read_text(encoding='utf-8')
    except OSError as exc:
        raise RobotDescriptionError(
            f'failed to open URDF file {path!r}: {exc.strerror or exc}') from exc
    except UnicodeDecodeError as exc:
        raise RobotDescriptionError(f'URDF file {path!r} is not UTF-8 text: {exc}') from exc


#: JointStates taken from the subscription's queue per executor wake-up, beyond the first.
MAX_QUEUED_TAKEN = 16


class StatePublisherNode(Node):
    """Publishes the robot description, static transforms and joint-state driven /tf.

    Args:
        node_name: Node name.
        description_file: The first non-ROS command-line argument, if any: a URDF file read when
            the ``robot_description`` parameter is empty (robot_state_publisher's fallback).
            Ignored in the topic mode.
        **kwargs: Forwarded to ``rclpy.node.Node`` (``parameter_overrides``, ``context``...).

    Raises:
        RobotDescriptionError: No description (empty parameter, no file), an unreadable file or
            an invalid description at start-up. In the topic mode nothing is needed at start-up.
    """

    def __init__(self, node_name: str = 'robot_state_publisher',
                 description_file: str | None = None, **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        kernel_preparation().start(log=self.get_logger().info)  # first: before any kernel runs
        declare_state_publisher_parameters(self)
        self.config = read_state_publisher_config(self)
        self._model: RobotModel | None = None
        self._description = ''
        self.core: TfPublishingCore | None = None
        self._static = FrameTransforms((), (), np.zeros((0, 3)), np.zeros((0, 4)))
        self._markers: list[Any] = []
        self._log = ThrottledLogger(self.get_logger())
        self._model_listeners: list[ModelListener] = []
        self._validated: tuple[tuple[Any, ...], RobotModel, list[Callable[[], None]]] | None = \
            None
        self._unknown_count = 0
        self._unknown_examples: list[str] = []
        self._unknown_memory_full = False
        model: RobotModel | None = None
        if not self.config.use_robot_description_topic:
            try:
                if not self.config.robot_description and description_file is not None:
                    self.config = replace(self.config, robot_description=read_description_file(
                        description_file))
                    model = load_model(self.config, source=description_file)
                    self.get_logger().warning(
                        f'parameter robot_description is empty: read the URDF from the file '
                        f"{description_file!r} given as argument (robot_state_publisher's "
                        'deprecated fallback, gone from Kilted 3.4.4 and Rolling)')
                else:
                    model = load_model(self.config)
            except RobotStateCoreError:
                self.destroy_node()
                raise
        self._description_pub = None if self.config.use_robot_description_topic else \
            self.create_publisher(String, 'robot_description', qos.LATCHED)
        self._tf_pub = self.create_publisher(TFMessage, '/tf', qos.TF)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', qos.TF_STATIC)
        self._markers_pub = self.create_publisher(MarkerArray, 'robot_markers', qos.MARKERS)
        self._markers_timer: Any = None
        self._markers_reset = False
        self._tf_wire = TfWireEncoder()  # /tf serialized without message objects
        self.joint_states_received = 0
        self.tf_published = 0
        self.descriptions_received = 0
        self._latencies_ms: deque[float] = deque(maxlen=2000)
        if model is not None:
            self._set_model(model, self.config.robot_description)
        else:  # topic mode: like robot_state_publisher, an empty /tf_static until a description
            self._publish_static()
            self.create_subscription(String, 'robot_description', self._on_description,
                                     qos.LATCHED)
        self._joint_states_sub = self.create_subscription(
            JointState, 'joint_states', self._on_joint_state, qos.JOINT_STATES,
            qos_overriding_options=QoSOverridingOptions.with_default_policies())
        self.create_timer(WARN_THROTTLE_S, self._report_unknown_names)  # the last burst too
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

    # ------------------------------------------------------------------ model and statics

    @property
    def model(self) -> RobotModel:
        """The current robot model.

        Raises:
            RobotDescriptionError: Topic mode, and no valid description has arrived yet.
        """
        if self._model is None:
            raise RobotDescriptionError('no robot description received yet on the '
                                        'robot_description topic')
        return self._model

    @property
    def has_model(self) -> bool:
        """Whether a model is loaded (always after start-up, except in the topic mode)."""
        return self._model is not None

    def _read_config(self) -> StatePublisherConfig:
        """The parameters, with the description in use when the parameter does not carry it."""
        config = read_state_publisher_config(self)
        if not config.robot_description and self._description:
            config = replace(config, robot_description=self._description)
        return config

    def add_model_listener(self, listener: ModelListener) -> None:
        """Have ``listener`` prepare, and switch to, every model this node accepts from now on.

        ``listener(model)`` is called while a new description is validated (parameter change,
        topic); it raises a :class:`~robot_state_core.errors.RobotStateCoreError` to refuse
        the description, or returns a function that the node calls when it switches, just
        before it publishes the new /tf_static.
        """
        self._model_listeners.append(listener)

    def _prepare_listeners(self, model: RobotModel) -> list[Callable[[], None]]:
        """Every listener's switch function for ``model`` (raises when one refuses it)."""
        return [listener(model) for listener in self._model_listeners]

    def _on_description(self, msg: String) -> None:
        """Topic mode: build the model from a received description (keep the old one if bad)."""
        try:
            self.descriptions_received += 1
            if not msg.data.strip():
                raise RobotDescriptionError('empty description')
            config = replace(self._read_config(), robot_description=msg.data)
            model = load_model(config, source='robot_description topic')
            switches = self._prepare_listeners(model)
            self.config = config
            self._set_model(model, msg.data, switches)
        except Exception as exc:
            self._log.error('description', f'Failed to parse robot description from topic: '
                                           f'{exc}')

    def _set_model(self, model: RobotModel, description: str,
                   switches: list[Callable[[], None]] | None = None) -> None:
        for switch in switches or ():  # the listeners first: /tf_static below announces it
            switch()
        log_load_report(self.get_logger(), model)
        self._model = model
        self._description = description
        self.core = TfPublishingCore(model, self.config.publish_frequency,
                                     self.config.ignore_timestamp)
        self._static = fixed_joint_transforms(model)
        if self._description_pub is not None:
            self._description_pub.publish(String(data=description))
        self._publish_static()
        self._prepare_kernels(self.core)
        self._markers = robot_markers(model, self.config.marker_geometry) \
            if self.config.marker_geometry in ('visual', 'collision') else []
        self._markers_reset = True
        self._restart_marker_timer()
        published = 'published robot_description and' if self._description_pub else 'published'
        self.get_logger().info(
            f"robot '{model.name}': {model.link_count} links, {model.joint_count} joints; "
            f'{published} {len(self._static)} static transforms')

    def _prepare_kernels(self, core: TfPublishingCore) -> None:
        """Compile or load the /tf kernel in a background thread, started after /tf_static.

        robot_state_publisher has no such step; ours compiles its FK kernel on first use, which
        on a machine with an empty kernel cache made the first /tf wait seconds. Started here,
        the kernel is usually ready before the first JointState arrives; a JointState that
        comes earlier waits for it (numba's compiler lock) as it did before. A daemon thread:
        it never delays the process's exit; a failure is left to the /tf path, which reports
        its own errors.
        """
        def prepare() -> None:
            with contextlib.suppress(Exception):  # the /tf path reports its own errors
                core.prepare_kernels()

        self.kernel_thread = threading.Thread(target=prepare, name='tf-kernels', daemon=True)
        self.kernel_thread.start()

    def _publish_static(self) -> None:
        self._tf_static_pub.publish(tf_message(self._static, self.get_clock().now().to_msg(),
                                               self.config.frame_prefix))

    def _restart_marker_timer(self) -> None:
        if self._markers_timer is not None:
            self.destroy_timer(self._markers_timer)
            self._markers_timer = None
        if self.config.publish_markers and self.config.marker_rate > 0.0:
            self._markers_timer = self.create_timer(1.0 / self.config.marker_rate,
                                                    self.publish_markers)

    def publish_markers(self) -> None:
        """Publish the robot MarkerArray (DELETEALL first after a description change)."""
        try:
            self._markers_pub.publish(marker_array(
                self._markers, self.get_clock().now().to_msg(), self.config.frame_prefix,
                delete_all_first=self._markers_reset))
            self._markers_reset = False
        except Exception as exc:
            self.get_logger().error(f'marker publishing failed: {exc}',
                                    throttle_duration_sec=WARN_THROTTLE_S)

    @property
    def robot_name(self) -> str:
        """Name of the current robot."""
        return self.model.name

    @property
    def static_transform_count(self) -> int:
        """Number of transforms in the ``/tf_static`` message."""
        return len(self._static)

    def tf_latency_ms(self) -> tuple[float, float] | None:
        """p50 and p99 of (publish time - JointState stamp) over the last 2000 messages [ms]."""
        if not self._latencies_ms:
            return None
        ordered = sorted(self._latencies_ms)
        return (ordered[len(ordered) // 2], ordered[min(len(ordered) - 1,
                                                         int(0.99 * len(ordered)))])

    def subscriber_counts(self) -> dict[str, int]:
        """Matched subscriptions per published topic."""
        counts = {'/tf': self._tf_pub.get_subscription_count(),
                  '/tf_static': self._tf_static_pub.get_subscription_count()}
        if self._description_pub is not None:
            counts['robot_description'] = self._description_pub.get_subscription_count()
        return counts

    # ------------------------------------------------------------------ parameters

    @staticmethod
    def _description_key(config: StatePublisherConfig) -> tuple[Any, ...]:
        return (config.robot_description, config.robot_description_semantic,
                config.package_roots)

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in parameters}
        describing = 'robot_description' in changes or 'robot_description_semantic' in changes
        self._validated = None
        if describing and (self._model is not None or 'robot_description' in changes):
            candidate = self._config_with(changes)
            try:
                model = load_model(candidate)
                # the listeners (services) prepare it too: a description they cannot use is
                # refused before anything changes
                switches = self._prepare_listeners(model) if self._model is not None else []
                self._validated = (self._description_key(candidate), model, switches)
            except RobotStateCoreError as exc:
                return SetParametersResult(successful=False,
                                           reason=clip(exc, RESPONSE_MESSAGE_LIMIT))
            except Exception as exc:
                return SetParametersResult(successful=False, reason=clip(
                    f'invalid description: {exc}', RESPONSE_MESSAGE_LIMIT))
        return SetParametersResult(successful=True)

    def _config_with(self, changes: dict[str, Any]) -> StatePublisherConfig:
        current = self._read_config()
        fields = {**current.__dict__, **{k: v for k, v in changes.items()
                                         if k in current.__dict__}}
        fields['package_roots'] = tuple(p for p in fields['package_roots'] if p)
        return StatePublisherConfig(**fields)

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        try:
            names = {p.name for p in parameters}
            topic_mode = self.config.use_robot_description_topic
            self.config = replace(self._read_config(), use_robot_description_topic=topic_mode)
            if 'use_robot_description_topic' in names:
                self.get_logger().warning('use_robot_description_topic is read at start-up '
                                          'only; the change has no effect until a restart')
            if self.core is None:  # topic mode before the first description: nothing to update
                return
            if names & {'robot_description', 'robot_description_semantic', 'package_roots'}:
                # validated (and prepared by the listeners) before: swap atomically
                validated, self._validated = self._validated, None
                if validated is not None and validated[0] == self._description_key(self.config):
                    _, model, switches = validated
                else:
                    model = load_model(self.config)
                    switches = self._prepare_listeners(model)
                self._set_model(model, self.config.robot_description, switches)
            else:
                self.core.publish_frequency = self.config.publish_frequency
                self.core.ignore_timestamp = self.config.ignore_timestamp
                if 'frame_prefix' in names:
                    self._publish_static()
                if names & {'marker_geometry', 'publish_markers', 'marker_rate',
                            'frame_prefix'}:
                    self._markers = robot_markers(self.model, self.config.marker_geometry) \
                        if self.config.marker_geometry in ('visual', 'collision') else []
                    self._markers_reset = True
                    self._restart_marker_timer()
        except Exception as exc:
            self._log.error('parameters', f'failed to apply parameters: {exc}')

    # ------------------------------------------------------------------ joint states

    def _on_joint_state(self, msg: JointState) -> None:
        """One JointState from the executor, then the ones already queued behind it.

        At a high rate (a 1 kHz driver) messages queue while one is processed; taking them
        here, in order, up to :data:`MAX_QUEUED_TAKEN` per wake-up, saves the executor's
        wait-set round per message (~0.3 ms of Python here), so the node keeps up instead of
        falling behind. Each message is still handled and published on its own.
        """
        self._handle_joint_state(msg)
        sub = self._joint_states_sub
        for _ in range(MAX_QUEUED_TAKEN):
            try:
                with sub.handle:
                    taken = sub.handle.take_message(sub.msg_type, sub.raw)
            except InvalidHandle:  # destroyed meanwhile (shutdown)
                return
            except Exception as exc:  # a take that fails: the executor's next round retries
                self._log.error('joint_states_internal', f'joint_states take failed: '
                                                         f'{type(exc).__name__}: {exc}')
                return
            if taken is None:
                return
            self._handle_joint_state(taken[0])

    def _handle_joint_state(self, msg: JointState) -> None:
        try:
            self.joint_states_received += 1
            if self.core is None:  # topic mode, no description yet: nothing to publish
                return
            names, positions = joint_state_arrays(msg)
            stamp_ns = stamp_to_ns(msg.header.stamp)
            stamp = msg.header.stamp
            if stamp_ns == 0:
                now = self.get_clock().now()
                stamp_ns, stamp = now.nanoseconds, now.to_msg()
            update = self.core.process(names, positions, stamp_ns)
            if update.new_unknown_names or update.unremembered_unknown:
                self._note_unknown_names(update)
            if update.problem:
                self._log.warning('dropped', f'joint_states: {update.problem}')
            if update.clock_reset:
                self._log.warning('clock', 'Moved backwards in time, re-publishing joint '
                                           'transforms!')
            if update.transforms is not None:
                self._tf_pub.publish(self._tf_wire.encode(update.transforms, stamp,
                                                          self.config.frame_prefix))
                self.tf_published += 1
                self._latencies_ms.append(
                    (self.get_clock().now().nanoseconds - stamp_ns) * 1e-6)
        except Exception as exc:
            self._log.error('joint_states_internal', f'joint_states callback failed: '
                                                     f'{type(exc).__name__}: {exc}')

    def _note_unknown_names(self, update: JointStateUpdate) -> None:
        """Collect unknown names for the next report line (bounded: a count and examples)."""
        self._unknown_count += len(update.new_unknown_names) + update.unremembered_unknown
        room = UNKNOWN_NAMES_LISTED - len(self._unknown_examples)
        if room > 0:
            self._unknown_examples += [*update.new_unknown_names,
                                       *update.unremembered_examples][:room]
        self._unknown_memory_full |= update.unremembered_unknown > 0
        self._report_unknown_names()

    def _report_unknown_names(self) -> None:
        """One throttled line for the unknown names collected since the last one."""
        try:
            if not self._unknown_count or not self._log.would_log('unknown'):
                return
            listed = ', '.join(f"'{clip(n)}'" for n in self._unknown_examples)
            more = self._unknown_count - len(self._unknown_examples)
            if more > 0:
                listed += f' and {more} more'
            how = ('the memory of reported names is full, so further unknown names are counted '
                   'here and may be reported again' if self._unknown_memory_full
                   else 'each name is reported once')
            self._log.warning('unknown', f'joint_states: unknown joint variable {listed} '
                                         f'(ignored; {how})')
            self._unknown_count, self._unknown_examples = 0, []
            self._unknown_memory_full = False
        except Exception as exc:
            self._log.error('joint_states_internal', f'unknown-name report failed: {exc}')
