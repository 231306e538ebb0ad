"""Static checks of the launch file and config (launch/launch_ros are not installable here).

The launch file must compile and stay declarative; every executable it names must be a console
entry point; every parameter in config/*.yaml must be declared by the nodes with the right type.
"""

from __future__ import annotations

import ast
import configparser
from pathlib import Path
import re

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
LAUNCH = REPO / 'launch' / 'robot_state_core.launch.py'


def _entry_points() -> set[str]:
    tree = ast.parse((REPO / 'setup.py').read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ' = ' in node.value:
            names.add(node.value.split(' = ')[0].strip())
    return names


def test_launch_file_compiles_and_defines_generate_launch_description() -> None:
    """The file is valid Python with a generate_launch_description() function."""
    tree = ast.parse(LAUNCH.read_text(), filename=str(LAUNCH))
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert 'generate_launch_description' in functions
    compile(LAUNCH.read_text(), str(LAUNCH), 'exec')


def test_launch_is_declarative() -> None:
    """No loops, no file I/O, no subprocesses in the launch file."""
    tree = ast.parse(LAUNCH.read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.For | ast.While)]
    text = LAUNCH.read_text()
    assert 'open(' not in text
    assert 'subprocess' not in text


def test_every_launched_executable_is_an_entry_point() -> None:
    """executable='...' names exist in setup.py's console_scripts (ros2 run works)."""
    executables = set(re.findall(r"executable='([^']+)'", LAUNCH.read_text()))
    assert executables
    assert executables <= _entry_points()


def test_launch_arguments_cover_the_issue() -> None:
    """URDF/xacro, SRDF, default robot, namespace and frame_prefix are launch arguments."""
    arguments = set(re.findall(r"DeclareLaunchArgument\('([^']+)'", LAUNCH.read_text()))
    assert {'urdf', 'srdf', 'use_default_robot', 'namespace', 'frame_prefix'} <= arguments


def test_setup_cfg_installs_scripts_for_ros2_run() -> None:
    """setup.cfg puts console scripts in lib/robot_state_core (ros2 run's search path)."""
    cfg = configparser.ConfigParser()
    cfg.read(REPO / 'setup.cfg')
    assert cfg['install']['install_scripts'] == '$base/lib/robot_state_core'
    assert cfg['develop']['script_dir'] == '$base/lib/robot_state_core'


def _yaml_type_matches(value: object, ptype: int) -> bool:
    from rcl_interfaces.msg import ParameterType as T

    checks = {T.PARAMETER_BOOL: lambda v: isinstance(v, bool),
              T.PARAMETER_DOUBLE: lambda v: isinstance(v, float),
              T.PARAMETER_INTEGER: lambda v: isinstance(v, int) and not isinstance(v, bool),
              T.PARAMETER_STRING: lambda v: isinstance(v, str),
              T.PARAMETER_STRING_ARRAY: lambda v: isinstance(v, list) and all(
                  isinstance(x, str) for x in v)}
    return checks[ptype](value)


def test_node_parameter_yaml_is_declared_with_the_right_types() -> None:
    """Every key under /**: ros__parameters: is a declared parameter of the right type."""
    pytest.importorskip('rclpy')
    from robot_state_core.ros.params import declared_parameter_types

    data = yaml.safe_load((REPO / 'config' / 'robot_state_core.yaml').read_text())
    params = data['/**']['ros__parameters']
    declared = declared_parameter_types()
    assert params
    for name, value in params.items():
        assert name in declared, f'{name} is not declared by any node'
        assert _yaml_type_matches(value, declared[name]), (name, value)


def test_kinematics_yaml_groups_and_types() -> None:
    """kinematics.yaml names groups of the default robot with a positive float timeout."""
    from robot_state_core.default_robot import default_robot_srdf_path, default_robot_urdf_path
    from robot_state_core.robot_model import RobotModel

    data = yaml.safe_load((REPO / 'config' / 'kinematics.yaml').read_text())
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path(),
                                      kinematics=data)
    for group, entry in data.items():
        assert model.has_group(group), group
        assert isinstance(entry['kinematics_solver_timeout'], float)
        assert entry['kinematics_solver_timeout'] > 0
        assert model.group(group).default_ik_timeout == entry['kinematics_solver_timeout']
