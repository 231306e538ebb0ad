"""State publisher node: a drop-in for robot_state_publisher (design study B4a, B10).

Topics (relative names, so namespaces work; TF topics absolute):

* subscribes ``joint_states`` (sensor_msgs/JointState; sensor-data QoS with QoS overrides);
* publishes ``/tf`` (moving joints, one TFMessage per JointState, stamped with its header stamp —
  a zero stamp is replaced by the node clock, decision C3), ``/tf_static`` (every fixed joint in
  one message, transient local, the complete set republished when the description changes) and
  ``robot_description`` (std_msgs/String, transient local).

Beyond robot_state_publisher: planar, floating and rpy_floating joints reach /tf from MoveIt-style
variable names; mimic chains are resolved; NaN/inf or a name/position mismatch drops the message
with a throttled warning; unknown names are warned about once each. Callbacks are
convert → core (:class:`~robot_state_core.tf_publishing.TfPublishingCore`) → convert, and never
let an exception escape.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

from robot_state_core.errors import RobotDescriptionError, RobotStateCoreError
from robot_state_core.frames import fixed_joint_transforms
from robot_state_core.markers import robot_markers
from robot_state_core.robot_model import RobotModel
from robot_state_core.ros import qos
from robot_state_core.ros.conversions import (
    joint_state_arrays,
    marker_array,
    stamp_to_ns,
    tf_message,
    TfMessageBuilder,
)
from robot_state_core.ros.params import (
    declare_state_publisher_parameters,
    read_state_publisher_config,
    StatePublisherConfig,
)
from robot_state_core.tf_publishing import TfPublishingCore

#: Seconds between repeats of the same per-message warning.
WARN_THROTTLE_S = 5.0


def load_model(config: StatePublisherConfig) -> RobotModel:
    """Compile the model described by a config (raises typed errors on bad descriptions)."""
    if not config.robot_description.strip():
        raise RobotDescriptionError(
            'parameter robot_description is empty: pass the URDF XML (e.g. '
            '-p robot_description:="$(cat robot.urdf)")')
    return RobotModel.from_urdf_string(config.robot_description,
                                       config.robot_description_semantic or None,
                                       source='robot_description',
                                       package_roots=config.package_roots)


class StatePublisherNode(Node):
    """Publishes the robot description, static transforms and joint-state driven /tf.

    Raises:
        RobotDescriptionError: ``robot_description`` is empty or invalid at start-up.
    """

    def __init__(self, node_name: str = 'robot_state_publisher', **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        declare_state_publisher_parameters(self)
        self.config = read_state_publisher_config(self)
        try:
            model = load_model(self.config)
        except RobotStateCoreError:
            self.destroy_node()
            raise
        self._description_pub = self.create_publisher(String, 'robot_description', qos.LATCHED)
        self._tf_pub = self.create_publisher(TFMessage, '/tf', qos.TF)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', qos.TF_STATIC)
        self._markers_pub = self.create_publisher(MarkerArray, 'robot_markers', qos.MARKERS)
        self._markers_timer: Any = None
        self._markers_reset = False
        self._tf_builder = TfMessageBuilder()
        self.joint_states_received = 0
        self.tf_published = 0
        self._latencies_ms: deque[float] = deque(maxlen=2000)
        self._set_model(model)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 qos.JOINT_STATES,
                                 qos_overriding_options=QoSOverridingOptions
                                 .with_default_policies())
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

    # ------------------------------------------------------------------ model and statics

    def _set_model(self, model: RobotModel) -> None:
        for warning in model.load_warnings:
            self.get_logger().warning(f'robot_description: {warning}')
        self.model = model
        self.core = TfPublishingCore(model, self.config.publish_frequency,
                                     self.config.ignore_timestamp)
        self._static = fixed_joint_transforms(model)
        self._description_pub.publish(String(data=self.config.robot_description))
        self._publish_static()
        self._markers = robot_markers(model, self.config.marker_geometry) \
            if self.config.marker_geometry in ('visual', 'collision') else []
        self._markers_reset = True
        self._restart_marker_timer()
        self.get_logger().info(
            f"robot '{model.name}': {model.link_count} links, {model.joint_count} joints; "
            f'published robot_description and {len(self._static)} static transforms')

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
        return {'/tf': self._tf_pub.get_subscription_count(),
                '/tf_static': self._tf_static_pub.get_subscription_count(),
                'robot_description': self._description_pub.get_subscription_count()}

    # ------------------------------------------------------------------ parameters

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in parameters}
        if 'robot_description' in changes or 'robot_description_semantic' in changes:
            candidate = self._config_with(changes)
            try:
                load_model(candidate)
            except RobotStateCoreError as exc:
                return SetParametersResult(successful=False, reason=str(exc))
            except Exception as exc:
                return SetParametersResult(successful=False, reason=f'invalid description: '
                                                                    f'{exc}')
        return SetParametersResult(successful=True)

    def _config_with(self, changes: dict[str, Any]) -> StatePublisherConfig:
        current = read_state_publisher_config(self)
        fields = {**current.__dict__, **{k: v for k, v in changes.items()
                                         if k in current.__dict__}}
        fields['package_roots'] = tuple(p for p in fields['package_roots'] if p)
        return StatePublisherConfig(**fields)

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        try:
            names = {p.name for p in parameters}
            self.config = read_state_publisher_config(self)
            if names & {'robot_description', 'robot_description_semantic', 'package_roots'}:
                self._set_model(load_model(self.config))  # validated before; swap atomically
            else:
                self.core.publish_frequency = self.config.publish_frequency
                self.core.ignore_timestamp = self.config.ignore_timestamp
                if 'frame_prefix' in names:
                    self._publish_static()
                if names & {'marker_geometry', 'publish_markers', 'marker_rate',
                            'frame_prefix'}:
                    self._markers = robot_markers(self.model, self.config.marker_geometry)
                    self._markers_reset = True
                    self._restart_marker_timer()
        except Exception as exc:
            self.get_logger().error(f'failed to apply parameters: {exc}')

    # ------------------------------------------------------------------ joint states

    def _on_joint_state(self, msg: JointState) -> None:
        try:
            self.joint_states_received += 1
            names, positions = joint_state_arrays(msg)
            stamp_ns = stamp_to_ns(msg.header.stamp)
            stamp = msg.header.stamp
            if stamp_ns == 0:
                now = self.get_clock().now()
                stamp_ns, stamp = now.nanoseconds, now.to_msg()
            update = self.core.process(names, positions, stamp_ns)
            if update.new_unknown_names:
                names_ = update.new_unknown_names
                listed = ', '.join(f"'{n}'" for n in names_[:5])
                more = f' and {len(names_) - 5} more' if len(names_) > 5 else ''
                self.get_logger().warning(f'joint_states: unknown joint variable {listed}{more} '
                                          '(ignored; each reported once)')
            if update.problem:
                self.get_logger().warning(update.problem,
                                          throttle_duration_sec=WARN_THROTTLE_S)
            if update.clock_reset:
                self.get_logger().warning('Moved backwards in time, re-publishing joint '
                                          'transforms!', throttle_duration_sec=WARN_THROTTLE_S)
            if update.transforms is not None:
                self._tf_pub.publish(self._tf_builder.build(update.transforms, stamp,
                                                            self.config.frame_prefix))
                self.tf_published += 1
                self._latencies_ms.append(
                    (self.get_clock().now().nanoseconds - stamp_ns) * 1e-6)
        except Exception as exc:
            self.get_logger().error(f'joint_states callback failed: {exc}',
                                    throttle_duration_sec=WARN_THROTTLE_S)
