"""Launch robot_state_core: state publisher and MoveIt-compatible services in one process.

The state publisher is a robot_state_publisher drop-in; the IK/FK/validity services share its
model. robot_state_core.launch.xml is its XML twin (same arguments, node and parameters).

Arguments:
    use_default_robot: 'true' (default) runs the embedded rsc_mobile_manipulator.
    urdf: URDF file, or a .xacro file (expanded with the xacro command), when
        use_default_robot is 'false'.
    xacro_args: xacro arguments for a .xacro urdf, e.g. "ur_type:=ur5e name:=ur".
    srdf: SRDF file (groups, named states, disabled collision pairs); optional.
    namespace: Namespace of the node and its relative topics/services.
    frame_prefix: Prefix prepended to every published frame id.

Parameters come from config/robot_state_core.yaml (/**: ros__parameters: form) and
config/kinematics.yaml (per-group IK defaults). Kept declarative: substitutions only.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import Command, LaunchConfiguration, PythonExpression
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

from launch import LaunchDescription


def generate_launch_description():
    share = get_package_share_directory('robot_state_core')
    robot_dir = os.path.join(share, 'robots', 'rsc_mobile_manipulator')
    default_urdf = os.path.join(robot_dir, 'rsc_mobile_manipulator.urdf')
    default_srdf = os.path.join(robot_dir, 'rsc_mobile_manipulator.srdf')
    config = os.path.join(share, 'config', 'robot_state_core.yaml')
    kinematics = os.path.join(share, 'config', 'kinematics.yaml')

    urdf = LaunchConfiguration('urdf')
    srdf = LaunchConfiguration('srdf')
    # xacro files are expanded, plain URDFs are read as they are.
    description_command = PythonExpression([
        "'xacro ", LaunchConfiguration('xacro_args'), " ' if '", urdf,
        "'.endswith('.xacro') else 'cat '"])
    description = ParameterValue(Command([description_command, urdf]), value_type=str)
    semantic = ParameterValue(Command([
        PythonExpression(["'cat ' if '", srdf, "' else 'true'"]), ' ', srdf]), value_type=str)
    common = {
        'frame_prefix': ParameterValue(LaunchConfiguration('frame_prefix'), value_type=str),
        'kinematics_config': kinematics,
    }
    return LaunchDescription([
        DeclareLaunchArgument('use_default_robot', default_value='true',
                              description='Run the embedded rsc_mobile_manipulator'),
        DeclareLaunchArgument('urdf', default_value=default_urdf,
                              description='URDF or xacro file (use_default_robot:=false)'),
        DeclareLaunchArgument('xacro_args', default_value='',
                              description='xacro arguments name:=value ... for a .xacro urdf'),
        DeclareLaunchArgument('srdf', default_value='', description='SRDF file (optional)'),
        DeclareLaunchArgument('namespace', default_value='', description='Node namespace'),
        DeclareLaunchArgument('frame_prefix', default_value='',
                              description='Prefix for every frame id'),
        Node(
            package='robot_state_core',
            executable='robot_state_core_all',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            condition=IfCondition(LaunchConfiguration('use_default_robot')),
            parameters=[config, common, {
                'robot_description': ParameterValue(Command(['cat ', default_urdf]),
                                                    value_type=str),
                'robot_description_semantic': ParameterValue(Command(['cat ', default_srdf]),
                                                             value_type=str),
            }],
        ),
        Node(
            package='robot_state_core',
            executable='robot_state_core_all',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            condition=UnlessCondition(LaunchConfiguration('use_default_robot')),
            parameters=[config, common, {'robot_description': description,
                                         'robot_description_semantic': semantic}],
        ),
    ])
