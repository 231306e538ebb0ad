"""Launch the robot_state_core state publisher (a drop-in for robot_state_publisher).

Arguments:
    urdf: path to a URDF file (default: the embedded rsc_mobile_manipulator).
    namespace: namespace for the node and its topics.
    frame_prefix: prefix prepended to every published frame id.

Kept declarative: no computation here beyond reading the description file.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument
from launch.substitutions import Command, LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

from launch import LaunchDescription


def generate_launch_description():
    share = get_package_share_directory('robot_state_core')
    default_urdf = os.path.join(share, 'robots', 'rsc_mobile_manipulator',
                                'rsc_mobile_manipulator.urdf')
    config = os.path.join(share, 'config', 'robot_state_core.yaml')
    return LaunchDescription([
        DeclareLaunchArgument('urdf', default_value=default_urdf,
                              description='URDF file to publish'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Node namespace'),
        DeclareLaunchArgument('frame_prefix', default_value='',
                              description='Prefix for every frame id'),
        Node(
            package='robot_state_core',
            executable='robot_state_publisher',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            parameters=[
                config,
                {'robot_description': ParameterValue(
                    Command(['cat ', LaunchConfiguration('urdf')]), value_type=str),
                 'frame_prefix': LaunchConfiguration('frame_prefix')},
            ],
        ),
    ])
