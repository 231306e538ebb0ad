"""The broken-input corpus (``test/resources/bad/``): every mistake gives one typed, quiet error.

Each file is a small, realistic mistake. URDF files are ``test/resources/good/arm.urdf`` (which
must load cleanly) with one thing wrong; SRDF files are written for the default robot and are
checked against its URDF. For every file the loader must raise the documented exception type
with a message that names the offending thing and the file, and must write nothing to stdout or
stderr: urdf_parser_py's stderr hook must never leak.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from lxml import etree
import pytest

from robot_state_core.errors import (
    RobotDescriptionError,
    SrdfLoadError,
    UrdfLoadError,
    XmlSecurityError,
)
from robot_state_core.io.default_robot import default_robot_urdf_path
from robot_state_core.io.srdf import check_srdf_against, read_srdf_file

RESOURCES = Path(__file__).resolve().parent / 'resources'
BAD = RESOURCES / 'bad'
GOOD_ARM = RESOURCES / 'good' / 'arm.urdf'

#: (file in bad/, expected exception, fragment the message must contain). A tuple fragment
#: means "any one of these" (for messages whose exact wording is the loader's choice).
BROKEN: list[Any] = [
    # Topology.
    ('urdf_missing_parent_link.urdf', UrdfLoadError, 'upperarm_link'),
    ('urdf_missing_child_link.urdf', UrdfLoadError, 'camera_link'),
    ('urdf_duplicate_link.urdf', UrdfLoadError, 'forearm'),
    ('urdf_duplicate_joint.urdf', UrdfLoadError, 'elbow_joint'),
    ('urdf_kinematic_loop.urdf', UrdfLoadError, ('cycle', 'loop')),
    ('urdf_two_roots.urdf', UrdfLoadError, 'camera_mount'),
    ('urdf_link_two_parents.urdf', UrdfLoadError, 'tool0'),
    ('urdf_mimic_cycle.urdf', UrdfLoadError, 'left_finger_joint'),
    # Numbers and element content.
    ('urdf_nan_origin.urdf', UrdfLoadError, 'elbow_joint'),
    ('urdf_inf_limit.urdf', UrdfLoadError, 'shoulder_joint'),
    ('urdf_non_numeric.urdf', UrdfLoadError, '1.0abc'),
    ('urdf_origin_two_numbers.urdf', UrdfLoadError, 'flange_joint'),
    ('urdf_unknown_joint_type.urdf', UrdfLoadError, 'ball'),
    ('urdf_revolute_without_limit.urdf', UrdfLoadError, 'elbow_joint'),
    ('urdf_zero_axis.urdf', UrdfLoadError, 'shoulder_joint'),
    # Hostile XML.
    ('urdf_xxe.urdf', XmlSecurityError, 'DOCTYPE'),
    ('urdf_billion_laughs.urdf', XmlSecurityError, 'DOCTYPE'),
    ('urdf_billion_laughs_utf16.urdf', XmlSecurityError, 'DOCTYPE'),
    # Not a URDF at all.
    ('urdf_empty.urdf', RobotDescriptionError, 'empty'),
    ('urdf_not_xml.urdf', RobotDescriptionError, 'XML'),
    ('urdf_truncated.urdf', RobotDescriptionError, 'XML'),
    ('urdf_root_not_robot.urdf', UrdfLoadError, 'sdf'),
    # SRDF (checked against the default robot's URDF).
    ('srdf_group_unknown_joint.srdf', SrdfLoadError, 'elbow_jont'),
    ('srdf_bad_group_state_value.srdf', SrdfLoadError, '0.5rad'),
    ('srdf_unknown_virtual_joint_type.srdf', SrdfLoadError, 'floting'),
    ('srdf_doctype.srdf', XmlSecurityError, 'DOCTYPE'),
    ('srdf_subgroup_cycle.srdf', SrdfLoadError, "'arm_with_gripper' -> 'manipulation'"),
    ('srdf_group_state_unknown_group.srdf', SrdfLoadError, 'manipulator'),
    ('srdf_chain_without_tip.srdf', SrdfLoadError, 'tip_link'),
    ('srdf_duplicate_group_state.srdf', SrdfLoadError, "'open'"),
    ('srdf_not_robot_root.srdf', SrdfLoadError, '<kinematics>'),
]

#: Mistakes that load, with the problem reported: (file, fragment of a warning).
TOLERATED = [
    ('urdf_unresolved_mesh.urdf', 'package://no_such_pkg/m.stl'),
    ('urdf_unknown_tag.urdf', 'colour'),
    # urdfdom parses it and MoveIt loads the joint as independent ("cannot mimic unknown
    # joint"); the warning names both joints.
    ('urdf_mimic_unknown_joint.urdf', "'right_finger_joint' (line 81) mimics joint "
                                      "'finger_left_joint'"),
]


def _file_name(case: Any) -> str:
    return str(case.values[0] if hasattr(case, 'values') else case[0])


def _default_robot_names() -> tuple[list[str], list[str]]:
    root = etree.parse(str(default_robot_urdf_path())).getroot()
    return ([e.get('name') for e in root.findall('link')],
            [e.get('name') for e in root.findall('joint')])


def _load(path: Path, **kwargs: Any) -> Any:
    """Load a corpus file the way an application would: URDF loader, or SRDF + URDF check."""
    if path.suffix == '.srdf':
        srdf = read_srdf_file(path)
        check_srdf_against(srdf, *_default_robot_names())
        return srdf
    from robot_state_core.io.urdf import load_urdf_file

    return load_urdf_file(path, **kwargs)


def _messages(exc: BaseException) -> str:
    """The exception's text and that of everything it was chained from."""
    parts = []
    seen: BaseException | None = exc
    while seen is not None:
        parts.append(f'{type(seen).__name__}: {seen}')
        seen = seen.__cause__ or seen.__context__
    return '\n'.join(parts)


def test_corpus_is_complete() -> None:
    """At least 22 broken files; every file in bad/ is covered by exactly one table."""
    listed = [_file_name(c) for c in BROKEN] + [f for f, _ in TOLERATED]
    assert len(BROKEN) >= 21
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(p.name for p in BAD.iterdir())


def test_control_arm_loads_cleanly(capfd: pytest.CaptureFixture[str]) -> None:
    """The URDF every bad/urdf_* file is derived from loads without warnings or output."""
    from robot_state_core.io.urdf import load_urdf_file

    result = load_urdf_file(GOOD_ARM)
    assert result.warnings == ()
    assert result.unresolved_meshes == ()
    assert capfd.readouterr() == ('', '')


@pytest.mark.parametrize(('file', 'error', 'fragment'), BROKEN,
                         ids=[_file_name(c) for c in BROKEN])
def test_broken_input_raises_a_typed_quiet_error(file: str, error: type[Exception],
                                                 fragment: str | tuple[str, ...],
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    """The documented exception; the message names the problem and the file; no output."""
    path = BAD / file
    with pytest.raises(error) as info:
        _load(path)
    message = str(info.value)
    assert message.strip(), 'empty error message'
    assert file in message
    fragments = (fragment,) if isinstance(fragment, str) else fragment
    assert any(f in message for f in fragments), f'none of {fragments} in: {message}'
    out, err = capfd.readouterr()
    assert err == '', f'written to stderr: {err!r}'
    assert out == '', f'written to stdout: {out!r}'


def test_xxe_never_reads_the_file(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The external entity's target is never read: its content appears nowhere."""
    from robot_state_core.io.urdf import load_urdf_string

    secret = tmp_path / 'secret.txt'
    secret.write_text('TOP-SECRET-2718', encoding='utf-8')
    document = (BAD / 'urdf_xxe.urdf').read_text(encoding='utf-8').replace(
        'file:///etc/passwd', secret.as_uri())
    assert secret.as_uri() in document
    with pytest.raises(XmlSecurityError) as info:
        load_urdf_string(document, source='xxe.urdf')
    assert 'TOP-SECRET' not in _messages(info.value)
    with pytest.raises(XmlSecurityError) as info:
        _load(BAD / 'urdf_xxe.urdf')
    assert 'root:' not in _messages(info.value)
    assert 'TOP-SECRET' not in ''.join(capfd.readouterr())


@pytest.mark.parametrize(('file', 'fragment'), TOLERATED, ids=[f for f, _ in TOLERATED])
def test_tolerated_mistake_loads_with_a_warning(file: str, fragment: str,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    """Non-fatal mistakes load; the problem is in result.warnings, never on stderr."""
    result = _load(BAD / file)
    assert any(fragment in w for w in result.warnings), result.warnings
    assert capfd.readouterr() == ('', '')


def test_unresolved_mesh_is_reported_not_raised(capfd: pytest.CaptureFixture[str]) -> None:
    """By default an unresolvable package:// mesh is listed in unresolved_meshes."""
    result = _load(BAD / 'urdf_unresolved_mesh.urdf')
    assert result.unresolved_meshes == ('package://no_such_pkg/m.stl',)
    assert result.scene_graph is not None
    assert capfd.readouterr() == ('', '')


def test_unresolved_mesh_raises_with_strict_meshes(capfd: pytest.CaptureFixture[str]) -> None:
    """strict_meshes=True turns the unresolved mesh into a RobotDescriptionError."""
    file = 'urdf_unresolved_mesh.urdf'
    with pytest.raises(RobotDescriptionError) as info:
        _load(BAD / file, strict_meshes=True)
    message = str(info.value)
    assert 'package://no_such_pkg/m.stl' in message
    assert file in message
    assert capfd.readouterr() == ('', '')


def test_unreadable_urdf_file(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A missing file is a RobotDescriptionError naming the path, not an OSError."""
    with pytest.raises(RobotDescriptionError) as info:
        _load(tmp_path / 'missing_robot.urdf')
    assert 'missing_robot.urdf' in str(info.value)
    assert not isinstance(info.value, OSError)
    assert capfd.readouterr() == ('', '')


def test_urdf_parser_hook_is_restored_after_every_load() -> None:
    """After failing and tolerated loads, urdf_parser_py's on_error hook is its own again."""
    from urdf_parser_py import xml_reflection
    from urdf_parser_py.xml_reflection import core

    before = (xml_reflection.on_error, core.on_error)
    for case in BROKEN:
        file = _file_name(case)
        if file.endswith('.urdf'):
            with contextlib.suppress(RobotDescriptionError):
                _load(BAD / file)
    for file, _ in TOLERATED:
        _load(BAD / file)
    assert (xml_reflection.on_error, core.on_error) == before
