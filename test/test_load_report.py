"""Issue 17: one log line per kind of load message, with counts and examples.

Counted on example-robot-data's Panda, Talos (full), PR2 and alex_psyonic_hands, in the
library log, in ``robot-state-core check`` and in the state publisher node: at most 3 warning
lines each, and every kind that changes what is loaded is still there, naming what was dropped.
"""

from __future__ import annotations

import logging

import pytest
import robot_corpus

from robot_state_core.apps.cli import main
from robot_state_core.io.load_report import LoadMessage, summarize
from robot_state_core.model.robot_model import RobotModel

#: robot -> (URDF relative to robots/, SRDF) for the robots the issue names.
ROBOTS = {
    'panda': ('panda_description/urdf/panda.urdf', 'panda_description/srdf/panda.srdf'),
    'talos_full': ('talos_data/robots/talos_full_v2.urdf', 'talos_data/srdf/talos.srdf'),
    'pr2': ('pr2_description/urdf/pr2.urdf', 'pr2_description/srdf/pr2.srdf'),
    'alex': ('alex_description/urdf/alex_psyonic_hands.urdf',
             'alex_description/srdf/alex_psyonic_hands.srdf'),
}

#: What each robot's warning lines must still say (the behaviour-changing kinds).
MUST_WARN = {
    'panda': ["could not use the parent group of 1 end effector: 'end_effector'"],
    'talos_full': ["read 93 'package:///' URIs as 'package://' (empty package name)",
                   "state 'half_sitting': 'root_joint' (not in the group)"],
    'pr2': ['ignored 10 unknown elements: collision: verbose'],
    'alex': ["loaded 8 joints with an unusable <mimic> as independent joints (as MoveIt): "
             "'Left_index_q2' (of 'index_q1')",
             "dropped 2 end effectors: 'left_arm_end_effector', 'right_arm_end_effector'"],
}


def _paths(robot: str) -> tuple[str, str]:
    robots = robot_corpus.example_robot_data_share() / 'robots'
    urdf, srdf = ROBOTS[robot]
    return str(robots / urdf), str(robots / srdf)


def test_summary_groups_counts_and_truncates() -> None:
    """One line per kind, first-occurrence order, examples grouped and counted."""
    messages = [LoadMessage('unknown_attribute', f'Unknown attribute {a}', a, 'dynamics')
                for a in ('D', 'K', 'mu_coulomb', 'mu_viscous') * 7]
    messages += [LoadMessage('dropped_disabled_pair', f'pair {p}', p) for p in ('a–b', 'c–d')]
    messages += [LoadMessage('unknown_attribute', 'Unknown attribute type', 'type', 'link')]
    assert summarize(messages) == [
        (logging.DEBUG, 'ignored 29 unknown attributes (urdfdom ignores them too): dynamics: D, '
                        'K, mu_coulomb, mu_viscous, ... (1 more)'),
        (logging.WARNING, 'dropped 2 disabled collision pairs naming unknown links: a–b, c–d')]
    one = summarize([LoadMessage('dropped_group', 'text', "'arm'")])
    assert one == [(logging.WARNING, "did not build 1 group: 'arm'")]


def test_panda_unknown_attributes_are_one_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    """Panda's 28 unknown <dynamics> attributes: one DEBUG summary, each in full at DEBUG."""
    urdf, srdf = _paths('panda')
    with caplog.at_level(logging.DEBUG, logger='robot_state_core'):
        model = RobotModel.from_urdf_file(urdf, srdf, package_map=robot_corpus.package_map())
    records = [r for r in caplog.records if r.name.startswith('robot_state_core')]
    unknown = [m for m in model.load_messages if m.kind == 'unknown_attribute']
    assert len(unknown) == 28
    assert {m.item for m in unknown} == {'D', 'K', 'mu_coulomb', 'mu_viscous'}
    assert sum('Unknown attribute' in r.getMessage() and r.levelno == logging.DEBUG
               for r in records) == 28
    summary = [r.getMessage() for r in records
               if 'ignored 28 unknown attributes' in r.getMessage()]
    assert summary == [f'{urdf}: ignored 28 unknown attributes (urdfdom ignores them too): '
                       'dynamics: D, K, mu_coulomb, mu_viscous']
    assert all(r.levelno == logging.DEBUG for r in records if 'unknown attribute' in
               r.getMessage().lower())
    assert [r.getMessage() for r in records if r.levelno >= logging.WARNING] == [
        "RobotModel 'panda': could not use the parent group of 1 end effector: "
        "'end_effector'"]


@pytest.mark.parametrize('robot', sorted(ROBOTS))
def test_cli_check_prints_at_most_three_warning_lines(
        robot: str, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    """``robot-state-core check`` and the library log: <= 3 warning lines each, key ones kept.

    Package roots are given, so the meshes resolve; the library's Python log is captured from
    the same load.
    """
    urdf, srdf = _paths(robot)
    root = str(robot_corpus.example_robot_data_share().parent)
    with caplog.at_level(logging.DEBUG, logger='robot_state_core'):
        assert main(['check', urdf, srdf, '--package-root', root]) == 0
    out, err = capsys.readouterr()
    assert err == ''
    for lines in ([line for line in out.splitlines() if line.startswith('warning:')],
                  [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]):
        assert 1 <= len(lines) <= 3, lines
        for needle in MUST_WARN[robot]:
            assert any(needle in line for line in lines), (needle, lines)
    # Every single message is in the log at DEBUG.
    model = RobotModel.from_urdf_file(urdf, srdf, package_roots=[root])
    details = {r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG}
    assert all(any(m.text in d for d in details) for m in model.load_messages)


def test_cli_check_verbose_prints_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    """``--verbose``: each kind's line, then every message of it (here Panda's 28 attributes)."""
    urdf, srdf = _paths('panda')
    root = str(robot_corpus.example_robot_data_share().parent)
    assert main(['check', urdf, srdf, '--package-root', root, '--verbose']) == 0
    out = capsys.readouterr().out
    assert 'debug: ignored 28 unknown attributes' in out
    assert out.count('\n  - Unknown attribute') == 28


def test_cli_check_without_package_roots_names_the_unresolved_meshes(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's command (no package root): Talos' unresolved meshes are one more line."""
    urdf, srdf = _paths('talos_full')
    assert main(['check', urdf, srdf]) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines()
                if line.startswith('warning:')]
    assert len(warnings) == 3
    assert any(w.startswith('warning: could not resolve 48 mesh URIs') for w in warnings)


@pytest.mark.ros
@pytest.mark.parametrize('robot', ['panda', 'talos_full'])
def test_node_logs_at_most_three_warning_lines(robot: str, ros_domain: int) -> None:
    """A real ROS process (``robot-state-core run``): <= 3 WARN lines, the key ones there.

    The node's rcutils log goes to the child's stderr (merged into its stdout here); every
    line up to run()'s own start-up line is counted. Without ``--package-root`` the issue's
    command also leaves the meshes unresolved: that must be one more WARN line, not 48.
    """
    import ros_testing

    urdf, srdf = _paths(robot)
    child = ros_testing.ChildProcess(['-m', 'robot_state_core', 'run', '--urdf', urdf,
                                      '--srdf', srdf, '--no-services', '--duration', '60'])
    try:
        child.wait_for_line("published robot '", timeout=60)
    finally:
        code = child.stop()
    assert code == 0, child.lines
    warnings = [line for line in child.lines if '[WARN]' in line]
    assert 1 <= len(warnings) <= 3, child.lines
    for needle in [*MUST_WARN[robot], 'could not resolve']:
        assert any(needle in w for w in warnings), (needle, child.lines)
    assert not any('Unknown attribute' in line for line in child.lines)


def test_viewer_summary_prints_a_few_mesh_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    """``view``/``snapshot``: at most three warning lines however many meshes fail."""
    from types import SimpleNamespace

    from robot_state_core.apps.cli import _print_viewer_summary

    status = SimpleNamespace(collision=False, colliding_links=(), min_distance=0.5)
    warnings = tuple(f'mesh URI not resolved: package://p/m{i}.stl' for i in range(48))
    viewer = SimpleNamespace(model=SimpleNamespace(name='talos', link_count=60),
                             collision_status=status, warnings=warnings)
    _print_viewer_summary(viewer)  # type: ignore[arg-type]
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith('warning:')]
    assert lines == ['warning: mesh URI not resolved: package://p/m0.stl',
                     'warning: mesh URI not resolved: package://p/m1.stl',
                     "warning: ... and 46 more mesh warnings (each in the log at WARNING, "
                     "logger 'robot_state_core.viewer.app')"]


def test_xacro_warnings_are_one_warning_line(capsys: pytest.CaptureFixture[str]) -> None:
    """What xacro prints while expanding is a kind too: one ``warning:`` line in ``check``."""
    from pathlib import Path

    path = Path(__file__).resolve().parent / 'resources/xacro/warning_include_children.urdf.xacro'
    assert main(['check', str(path)]) == 0
    out, err = capsys.readouterr()
    assert [line for line in out.splitlines() if line.startswith('warning:')] == [
        'warning: 1 xacro warning (expansion went on): Child elements of a <xacro:include> tag '
        'are ignored']
    assert err == ''
