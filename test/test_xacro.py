"""xacro descriptions wherever a URDF is accepted (issue 14): loader, CLI, typed errors.

The robot is a multi-file xacro written for these tests (``test/resources/xacro``): an include of
another package through ``$(find pkg)``, a relative include, recursive macros, ``<xacro:arg>``
defaults overridden by ``name:=value``, conditionals, math and a ``package://`` mesh. Oracles:

* the ``xacro`` command itself (ros/xacro, the pinned PyPI package), run as its own process with
  ``$(find pkg)`` resolved the ROS way (an ament index on ``AMENT_PREFIX_PATH``): our in-process
  expansion must print the same document;
* Pinocchio, built from the command's output: FK of every link must agree (1e-12).
"""

from __future__ import annotations

import os
from pathlib import Path
import shutil
import subprocess
import sys

import numpy as np
import pytest

from robot_state_core.apps.cli import main as cli_main
from robot_state_core.errors import InvalidArgumentError, XacroError
from robot_state_core.io.resources import ResourceResolver
from robot_state_core.io.xacro import expand_xacro_file, parse_xacro_args
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.state.robot_state import RobotState

pytest.importorskip('xacro')

XACRO_DIR = Path(__file__).resolve().parent / 'resources' / 'xacro'
ARM = XACRO_DIR / 'rsc_xacro_arm' / 'urdf' / 'rsc_arm.urdf.xacro'
BROKEN = XACRO_DIR / 'broken'
ROOTS = (XACRO_DIR,)
ARG_SETS = [{}, {'prefix': 'r1_', 'links': '5', 'link_length': '0.25'},
            {'links': '2', 'with_tool': 'false'}]


def _xacro_command() -> str:
    exe = Path(sys.executable).with_name('xacro')
    if not exe.exists():
        pytest.skip('the xacro command is not installed beside this Python')
    return str(exe)


@pytest.fixture(scope='module')
def ament_prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ament prefix holding the two test packages, as a colcon install would."""
    prefix = tmp_path_factory.mktemp('ament_prefix')
    index = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True)
    for package in ('rsc_xacro_arm', 'rsc_xacro_common'):
        (index / package).write_text('')
        (prefix / 'share' / package).symlink_to(XACRO_DIR / package)
    return prefix


def _command_output(path: Path, args: dict[str, str], ament_prefix: Path) -> str:
    env = {**os.environ, 'AMENT_PREFIX_PATH': str(ament_prefix)}
    proc = subprocess.run([_xacro_command(), str(path), *(f'{k}:={v}' for k, v in args.items())],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize('args', ARG_SETS, ids=['defaults', 'prefix_5_links', 'no_tool'])
def test_expansion_equals_the_xacro_command(args: dict[str, str], ament_prefix: Path) -> None:
    """In-process expansion through our package roots == the xacro command through ament."""
    ours = expand_xacro_file(ARM, mappings=args, resolver=ResourceResolver(package_roots=ROOTS))
    assert ours.xml.rstrip() == _command_output(ARM, args, ament_prefix).rstrip()
    assert ours.warnings == ()


@pytest.mark.parametrize('args', ARG_SETS, ids=['defaults', 'prefix_5_links', 'no_tool'])
def test_fk_of_the_xacro_robot_equals_pinocchio(args: dict[str, str], ament_prefix: Path,
                                                tmp_path: Path) -> None:
    """The model loaded from the .xacro agrees with Pinocchio on the xacro command's URDF."""
    pin = pytest.importorskip('pinocchio')
    import pinocchio_oracle

    urdf = tmp_path / 'expanded.urdf'
    urdf.write_text(_command_output(ARM, args, ament_prefix))
    model = RobotModel.from_urdf_file(ARM, package_roots=ROOTS, xacro_args=args)
    assert model.unresolved_meshes == ()  # package://rsc_xacro_arm/meshes/tool.stl
    links = int(args.get('links', '3'))
    prefix = args.get('prefix', '')
    expected = [f'{prefix}base_link', *(f'{prefix}link_{i}' for i in range(1, links + 1))]
    if args.get('with_tool', 'true') == 'true':
        expected.append(f'{prefix}tool0')
    assert sorted(model.link_names) == sorted(expected)
    pm, _ = pinocchio_oracle.load(urdf)
    data = pm.createData()
    rng = np.random.default_rng(14)
    state = RobotState(model)
    for _ in range(5):
        q = pinocchio_oracle.random_q(model, rng)
        state.set_variable_positions(q)
        pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
        for link in model.link_names:
            X_ref = data.oMf[pm.getFrameId(link)].homogeneous
            np.testing.assert_allclose(state.get_global_link_transform(link), X_ref,
                                       atol=1e-12, err_msg=link)


# (file, the file the error must name, the line it must name, text in the message)
BROKEN_CASES = [
    ('undefined_property.urdf.xacro', 'broken_macros.xacro', 10, "'box_edge' is not defined"),
    ('bad_xml_include.urdf.xacro', 'not_well_formed.xacro', 5, 'XML parsing error'),
    ('missing_include.urdf.xacro', 'missing_include.urdf.xacro', 5, 'no_such_file.xacro'),
    ('unknown_package.urdf.xacro', 'unknown_package.urdf.xacro', 4, 'rsc_no_such_package'),
    ('undefined_arg.urdf.xacro', 'undefined_arg.urdf.xacro', 5, 'radius'),
    ('missing_macro_parameter.urdf.xacro', 'missing_macro_parameter.urdf.xacro', 6,
     'Undefined parameters [parent]'),
    ('unknown_macro.urdf.xacro', 'unknown_macro.urdf.xacro', 4, 'no_such_macro'),
]


@pytest.mark.parametrize(('name', 'file', 'line', 'text'), BROKEN_CASES,
                         ids=[c[0].split('.')[0] for c in BROKEN_CASES])
def test_xacro_errors_name_file_and_line(name: str, file: str, line: int, text: str,
                                         capfd: pytest.CaptureFixture[str]) -> None:
    """Each broken xacro raises XacroError with the file and line; nothing reaches stderr."""
    with pytest.raises(XacroError) as info:
        RobotModel.from_urdf_file(BROKEN / name)
    error = info.value
    assert Path(error.file).name == file
    assert error.line == line
    assert text in str(error)
    assert f'{file}:{line}' in str(error)
    assert capfd.readouterr().err == ''


def test_the_xacro_command_fails_on_the_same_files() -> None:
    """Every broken file is rejected by the xacro command too (we are not stricter)."""
    for name, *_ in BROKEN_CASES:
        proc = subprocess.run([_xacro_command(), str(BROKEN / name)], capture_output=True,
                              text=True, timeout=60, check=False,
                              env={**os.environ, 'AMENT_PREFIX_PATH': str(XACRO_DIR)})
        assert proc.returncode != 0, name


def test_xacro_warnings_become_load_warnings(capfd: pytest.CaptureFixture[str]) -> None:
    """What xacro prints on stderr (here: ignored include children) is a load warning instead."""
    path = XACRO_DIR / 'warning_include_children.urdf.xacro'
    proc = subprocess.run([_xacro_command(), str(path)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0
    assert 'Child elements of a <xacro:include> tag are ignored' in proc.stderr
    capfd.readouterr()
    model = RobotModel.from_urdf_file(path)
    assert model.link_names == ('base_link',)
    assert model.load_warnings == (
        'Child elements of a <xacro:include> tag are ignored '
        f'(when processing file: {path})',)
    assert capfd.readouterr().err == ''


def test_xacro_args_parse_like_the_command_line() -> None:
    """name:=value pairs; a value may contain ':=' and '='; a malformed item is a typed error."""
    assert parse_xacro_args(['a:=1', 'b:=x:=y', 'c:=']) == {'a': '1', 'b': 'x:=y', 'c': ''}
    with pytest.raises(InvalidArgumentError, match='name:=value'):
        parse_xacro_args(['links=3'])


def test_missing_xacro_file_is_a_typed_error() -> None:
    """A .xacro path that does not exist raises XacroError naming it."""
    with pytest.raises(XacroError, match=r'no_such\.urdf\.xacro'):
        RobotModel.from_urdf_file(XACRO_DIR / 'no_such.urdf.xacro')


def test_cli_check_and_fk_accept_xacro(capsys: pytest.CaptureFixture[str]) -> None:
    """`check` and `fk` load a .xacro with --xacro-arg and --package-root."""
    roots = ['--package-root', str(XACRO_DIR)]
    assert cli_main(['check', str(ARM), *roots, '--xacro-arg', 'links:=4',
                     '--xacro-arg', 'prefix:=a_']) == 0
    out = capsys.readouterr().out
    assert "robot 'rsc_xacro_arm': 6 links, 5 joints" in out
    assert 'unresolved mesh' not in out
    assert cli_main(['fk', '--urdf', str(ARM), *roots, '--xacro-arg', 'links:=2',
                     '--positions', '{"joint_1": 0.0, "joint_2": 0.0}', '--links', 'tool0']) == 0
    import json

    pose = json.loads(capsys.readouterr().out)['poses']['tool0']
    # closed form at q = 0 (every joint turns about z there): joint_1 at the base height 0.1,
    # joint_2 one link_length (0.3) above it, tool0 another link_length above that
    np.testing.assert_allclose(pose['position'], [0.0, 0.0, 0.1 + 0.3 + 0.3], atol=1e-12)


def test_cli_reports_xacro_errors_with_file_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A broken xacro: exit 2 and one line naming the file and line."""
    assert cli_main(['check', str(BROKEN / 'undefined_property.urdf.xacro')]) == 2
    err = capsys.readouterr().err
    assert 'broken_macros.xacro:10' in err
    assert err.count('\n') == 1
    assert cli_main(['check', str(ARM), '--xacro-arg', 'links']) == 2
    assert 'name:=value' in capsys.readouterr().err


def test_xacro_command_is_on_path_in_the_venv() -> None:
    """The launch files run `xacro`: the pinned package puts it beside the venv's Python."""
    assert Path(_xacro_command()).is_file()
    assert shutil.which('xacro', path=str(Path(sys.executable).parent))
