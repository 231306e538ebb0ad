"""State publisher node (first stage): robot description and static transforms.

Publishes ``robot_description`` (std_msgs/String, transient local) and every fixed joint of the
robot on ``/tf_static`` (one ``TFMessage``, tf2's static QoS), like robot_state_publisher does
at start-up. Joint states → ``/tf`` come with the kinematics issue.
"""

from __future__ import annotations

from typing import Any

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from robot_state_core.errors import RobotDescriptionError
from robot_state_core.frames import fixed_joint_transforms
from robot_state_core.robot_model import RobotModel
from robot_state_core.ros import qos
from robot_state_core.ros.conversions import tf_message


class StatePublisherNode(Node):
    """Publishes the robot description and its static transforms.

    Parameters:
        robot_description (str, read-only): URDF XML. Required; an empty or invalid description
            raises :class:`RobotDescriptionError` at construction.
        frame_prefix (str, read-only): Prepended to every frame id.
    """

    def __init__(self, node_name: str = 'robot_state_publisher', **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        self.declare_parameter('robot_description', '', ParameterDescriptor(
            description='The robot description (URDF XML).', read_only=True))
        self.declare_parameter('frame_prefix', '', ParameterDescriptor(
            description='Prefix prepended to every published frame id.', read_only=True))
        description = self.get_parameter('robot_description').get_parameter_value().string_value
        prefix = self.get_parameter('frame_prefix').get_parameter_value().string_value
        try:
            if not description.strip():
                raise RobotDescriptionError(
                    'parameter robot_description is empty: pass the URDF XML '
                    '(e.g. -p robot_description:="$(cat robot.urdf)")')
            model = RobotModel.from_urdf_string(description, source='robot_description')
        except RobotDescriptionError:
            self.destroy_node()
            raise
        for warning in model.load_warnings:
            self.get_logger().warning(f'robot_description: {warning}')
        self.model = model
        self.robot_name: str = model.name
        self.link_count = model.link_count
        self.joint_count = model.joint_count
        self._static = fixed_joint_transforms(model)
        self._frame_prefix = prefix

        self._description_pub = self.create_publisher(String, 'robot_description', qos.LATCHED)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', qos.TF_STATIC)
        self._description_pub.publish(String(data=description))
        self._tf_static_pub.publish(
            tf_message(self._static, self.get_clock().now().to_msg(), prefix))
        self.get_logger().info(
            f"robot '{model.name}': published robot_description ({len(description)} bytes) "
            f'and {len(self._static)} static transforms on /tf_static')

    @property
    def static_transform_count(self) -> int:
        """Number of transforms in the ``/tf_static`` message."""
        return len(self._static)

    def subscriber_counts(self) -> dict[str, int]:
        """Matched subscriptions per published topic."""
        return {'/tf_static': self._tf_static_pub.get_subscription_count(),
                'robot_description': self._description_pub.get_subscription_count()}
