"""Static checks of the launch files and config (launch/launch_ros are not installable here).

Both launch files (Python and its XML twin) must parse and stay declarative; they declare the same
arguments (names, defaults, descriptions); every executable they name must be a console entry
point; every parameter they set, and every parameter in config/*.yaml, must be declared by the
nodes (with the right type for the YAML).
"""

from __future__ import annotations

import ast
import configparser
from pathlib import Path
import re

from lxml import etree
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
LAUNCH = REPO / 'launch' / 'robot_state_core.launch.py'
LAUNCH_XML = REPO / 'launch' / 'robot_state_core.launch.xml'
#: Substitutions of ros2/launch's XML front end that the XML launch file may use.
XML_SUBSTITUTIONS = {'var', 'find-pkg-share', 'eval', 'command'}


def _call_name(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, 'attr', '')


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _python_arguments() -> dict[str, tuple[str | None, str | None]]:
    """``{name: (default literal or None, description)}`` of DeclareLaunchArgument calls."""
    arguments = {}
    for node in ast.walk(ast.parse(LAUNCH.read_text())):
        if isinstance(node, ast.Call) and _call_name(node) == 'DeclareLaunchArgument':
            keywords = {k.arg: k.value for k in node.keywords}
            arguments[_literal(node.args[0])] = (
                _literal(keywords['default_value']) if 'default_value' in keywords else None,
                _literal(keywords['description']) if 'description' in keywords else None)
    return arguments


def _python_parameter_names() -> set[str]:
    """Keys of the dict literals in every Node(parameters=[...]) and the ``common`` dict."""
    tree = ast.parse(LAUNCH.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            names.update(k.value for k in node.keys
                         if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return names


def _xml() -> etree._Element:
    return etree.parse(str(LAUNCH_XML)).getroot()


def _xml_arguments() -> dict[str, tuple[str | None, str | None]]:
    return {a.get('name'): (a.get('default'), a.get('description')) for a in _xml().iter('arg')}


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
    """executable='...' (Python) and exec="..." (XML) name console_scripts (ros2 run works)."""
    executables = set(re.findall(r"executable='([^']+)'", LAUNCH.read_text()))
    xml_executables = {n.get('exec') for n in _xml().iter('node')}
    assert executables
    assert xml_executables == executables
    assert executables <= _entry_points()
    assert {n.get('pkg') for n in _xml().iter('node')} == {'robot_state_core'}


def test_launch_arguments_cover_the_issue() -> None:
    """URDF/xacro (+ xacro args), SRDF, default robot, namespace, frame_prefix are arguments."""
    assert {'urdf', 'xacro_args', 'srdf', 'use_default_robot', 'namespace',
            'frame_prefix'} <= set(_python_arguments())


def test_xml_launch_declares_the_same_arguments_as_the_python_one() -> None:
    """Same names and descriptions; the same literal defaults (urdf: the same default robot)."""
    python, xml = _python_arguments(), _xml_arguments()
    assert set(xml) == set(python)
    for name, (default, description) in python.items():
        assert xml[name][1] == description, name
        if default is not None:
            assert xml[name][0] == default, name
    assert python['urdf'][0] is None  # built from the package share in Python
    assert xml['urdf'][0].endswith(
        '/robots/rsc_mobile_manipulator/rsc_mobile_manipulator.urdf')
    assert xml['urdf'][0].startswith('$(find-pkg-share robot_state_core)')


def test_xml_launch_is_well_formed_and_uses_known_substitutions_only() -> None:
    """Parses; only launch's var/find-pkg-share/eval/command; every $(var x) is declared."""
    root = _xml()
    assert root.tag == 'launch'
    allowed = {'arg', 'let', 'node'}
    assert {c.tag for c in root if isinstance(c.tag, str)} <= allowed
    declared: set[str] = set()
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        for value in element.attrib.values():
            assert value.count('$(') <= value.count(')'), value
            for name in re.findall(r'\$\(([\w-]+)', value):
                assert name in XML_SUBSTITUTIONS, (name, value)
            for var in re.findall(r'\$\(var (\w+)\)', value):
                assert var in declared, f'$(var {var}) used before it is declared'
        if element.tag in ('arg', 'let'):
            declared.add(element.get('name'))
    for node in root.iter('node'):
        assert node.get('if', node.get('unless')) == '$(var use_default_robot)'


def test_both_launch_files_expand_xacro_with_the_xacro_command() -> None:
    """A .xacro urdf goes through `xacro <xacro_args> <file>`, a plain URDF through `cat`."""
    python = LAUNCH.read_text()
    assert "'xacro \", LaunchConfiguration('xacro_args')" in python
    assert ".endswith('.xacro')" in python
    lets = {e.get('name'): e.get('value') for e in _xml().iter('let')}
    assert "'xacro $(var xacro_args)' if '$(var urdf)'.endswith('.xacro') else 'cat'" in \
        lets['description_command']
    default_node = next(n for n in _xml().iter('node') if n.get('if'))
    described = {p.get('name'): p.get('value') for p in default_node.iter('param')}
    assert described['robot_description'] == "$(command 'cat $(var default_robot).urdf')"
    xacro_node = next(n for n in _xml().iter('node') if n.get('unless'))
    described = {p.get('name'): p.get('value') for p in xacro_node.iter('param')}
    assert described['robot_description'] == \
        "$(command '$(var description_command) $(var urdf)')"


def test_python_launch_passes_substitutions_as_strings() -> None:
    """No substitution goes into a parameter dict bare (launch_ros would read it as YAML)."""
    for node in ast.walk(ast.parse(LAUNCH.read_text())):
        if isinstance(node, ast.Dict):
            for value in node.values:
                if isinstance(value, ast.Call):
                    assert _call_name(value) == 'ParameterValue', ast.unparse(value)
                    keywords = {k.arg: ast.unparse(k.value) for k in value.keywords}
                    assert keywords.get('value_type') == 'str', ast.unparse(value)


@pytest.mark.ros
def test_launch_parameters_and_files_are_declared_and_installed() -> None:
    """Every parameter either launch file sets is declared; its YAML files exist and install."""
    pytest.importorskip('rclpy')
    from robot_state_core.ros.params import declared_parameter_types

    declared = declared_parameter_types()
    xml_names = {p.get('name') for p in _xml().iter('param') if p.get('name')}
    python_names = _python_parameter_names()
    assert xml_names == python_names
    assert xml_names <= set(declared), sorted(xml_names - set(declared))
    from rcl_interfaces.msg import ParameterType

    for param in _xml().iter('param'):
        if param.get('name') and declared[param.get('name')] == ParameterType.PARAMETER_STRING:
            # launch_ros reads an untyped value as YAML ("key: value" in a URDF comment fails)
            assert param.get('type') == 'str', param.get('name')
    for node in _xml().iter('node'):
        files = [p.get('from') for p in node.iter('param') if p.get('from')]
        assert files == ['$(var share)/config/robot_state_core.yaml']
        assert (REPO / 'config' / 'robot_state_core.yaml').is_file()
    assert "_files('launch/*')" in (REPO / 'setup.py').read_text()  # both files installed


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


@pytest.mark.ros
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
    from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
    from robot_state_core.model.robot_model import RobotModel

    data = yaml.safe_load((REPO / 'config' / 'kinematics.yaml').read_text())
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path(),
                                      kinematics=data)
    for group, entry in data.items():
        assert model.has_group(group), group
        assert isinstance(entry['kinematics_solver_timeout'], float)
        assert entry['kinematics_solver_timeout'] > 0
        assert model.group(group).default_ik_timeout == entry['kinematics_solver_timeout']
