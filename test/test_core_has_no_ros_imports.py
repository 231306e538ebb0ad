"""The core never imports ROS (design study B1): only robot_state_core/ros/ may."""

from __future__ import annotations

import ast
from pathlib import Path
import subprocess
import sys

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / 'robot_state_core'
ROS_ROOTS = ('rclpy', 'ament_index_python', 'launch', 'launch_ros', 'rosidl_runtime_py',
             'rcl_interfaces', 'builtin_interfaces', 'rosgraph_msgs', 'message_filters')


def _is_ros_module(name: str) -> bool:
    root = name.split('.', 1)[0]
    return (root in ROS_ROOTS or root.endswith(('_msgs', '_srvs', '_interfaces'))
            or root.startswith('tf2'))


def _core_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob('*.py') if 'ros' not in p.relative_to(PACKAGE).parts)


def test_scan_finds_core_modules() -> None:
    """The scan covers the core (guards against an empty, vacuous scan)."""
    names = {p.name for p in _core_files()}
    assert {'__init__.py', 'transforms.py', 'errors.py'} <= names


@pytest.mark.parametrize('path', _core_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_module_imports_no_ros(path: Path) -> None:
    """No import of rclpy, *_msgs, ament_index_python, tf2_* or launch outside ros/."""
    tree = ast.parse(path.read_text(encoding='utf-8'), filename=str(path))
    offending = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            offending += [a.name for a in node.names if _is_ros_module(a.name)]
        elif (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
              and _is_ros_module(node.module)):
            offending.append(node.module)
    assert not offending, f'{path.name} imports ROS modules: {offending}'


def test_import_without_ros() -> None:
    """`import robot_state_core` (and the CLI module) works with every ROS module unimportable."""
    code = f'''
import importlib.abc, sys
ROOTS = {ROS_ROOTS!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        root = name.split('.')[0]
        if root in ROOTS or root.endswith(('_msgs', '_srvs')) or root.startswith('tf2'):
            raise ImportError('blocked for this test: ' + name)
        return None
sys.meta_path.insert(0, Block())
try:
    import rclpy
except ImportError:
    pass
else:
    raise SystemExit('rclpy was importable despite the block')
import robot_state_core, robot_state_core.apps.cli
bad = sorted(m for m in sys.modules if m.split('.')[0] in ROOTS)
assert not bad, bad
print('ok', robot_state_core.__version__)
'''
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith('ok ')


def test_every_public_name_resolves() -> None:
    """Every name in robot_state_core.__all__ is importable from the package top level."""
    import robot_state_core

    missing = [name for name in robot_state_core.__all__ if not hasattr(robot_state_core, name)]
    assert missing == []
    assert len(robot_state_core.__all__) >= 40
