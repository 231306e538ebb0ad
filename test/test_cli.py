"""The robot-state-core command line (every command but `run`, which the ROS tests cover)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robot_state_core.apps.cli import main
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.io.srdf import parse_srdf
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.state.robot_state import RobotState


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_check_reports_joints_groups_and_states(capsys) -> None:
    """`check URDF SRDF` lists joint types, groups with chains and named states."""
    code, out = _run(capsys, 'check', str(default_robot_urdf_path()),
                     str(default_robot_srdf_path()))
    assert code == 0
    assert '1 planar' in out
    assert 'mimic joints: right_finger_joint' in out
    assert "group 'arm': 6 active joints chain arm_base_link -> tool0; states: home, ready" in out


def test_fk_matches_the_core(capsys) -> None:
    """`fk --state ready --links tool0` prints the same pose as RobotState."""
    code, out = _run(capsys, 'fk', '--state', 'ready', '--links', 'tool0')
    assert code == 0
    pose = json.loads(out)['poses']['tool0']
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    state = RobotState(model)
    state.set_to_default_values('arm', 'ready')
    np.testing.assert_allclose(pose['position'],
                               state.get_global_link_transform('tool0')[:3, 3], atol=1e-12)


def test_ik_round_trip(capsys) -> None:
    """`ik` solves a reachable position target; the solution's FK reaches it."""
    code, out = _run(capsys, 'ik', '--group', 'arm', '--target', '0.4', '0.1', '0.9', '--state',
                     'home', '--timeout', '0.5')
    result = json.loads(out)
    assert code == 0
    assert result['success']
    code, out = _run(capsys, 'fk', '--positions', json.dumps(result['positions']), '--links',
                     'tool0')
    np.testing.assert_allclose(json.loads(out)['poses']['tool0']['position'], [0.4, 0.1, 0.9],
                               atol=1e-4)


def test_collide_free_and_in_collision(capsys) -> None:
    """`collide`: home is free (exit 0); the arm folded into the base collides (exit 1)."""
    pytest.importorskip('fcl')
    code, out = _run(capsys, 'collide', '--state', 'home')
    assert code == 0
    assert json.loads(out)['collision'] is False
    folded = json.dumps({'shoulder_lift_joint': 2.0, 'elbow_joint': 2.6})
    code, out = _run(capsys, 'collide', '--positions', folded)
    result = json.loads(out)
    assert code == 1
    assert result['collision'] is True
    assert result['contacts']


SHELF_SCENE = '''bench
* shelf
0.25 0 0.15
0 0 0 1
1
box
0.2 0.2 0.2
0 0 0
0 0 0 1
0 0 1 1
0
.
'''


def test_collide_with_a_scene_file(capsys, tmp_path) -> None:
    """`collide --scene FILE`: a MoveIt .scene file's objects are checked.

    The box is half inside the base's front face (x = 0.25): colliding, 10 cm deep (closed
    form); a malformed file is one error line naming its line.
    """
    pytest.importorskip('fcl')
    good = tmp_path / 'shelf.scene'
    good.write_text(SHELF_SCENE)
    code, out = _run(capsys, 'collide', '--state', 'home', '--scene', str(good))
    result = json.loads(out)
    assert code == 1 and result['collision']
    assert result['distance_m'] == pytest.approx(-0.1, abs=1e-9)
    assert {'base_link', 'shelf'} in [{c['body_1'], c['body_2']} for c in result['contacts']]
    bad = tmp_path / 'bad.scene'
    bad.write_text('x\n* a\n1\nbox\n1 1\n.\n')
    code = main(['collide', '--scene', str(bad)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == "robot-state-core collide: line 6: object 'a': box size: expected a " \
                          "number, got '.'"


def test_gen_acm_writes_srdf(capsys, tmp_path) -> None:
    """`gen-acm` writes parseable SRDF disable_collisions with Adjacent pairs."""
    pytest.importorskip('fcl')
    target = tmp_path / 'acm.srdf'
    code, _ = _run(capsys, 'gen-acm', '--samples', '100', '--output', str(target))
    assert code == 0
    srdf = parse_srdf(f'<robot name="r">{target.read_text()}</robot>')
    reasons = {d.reason for d in srdf.disabled_collisions}
    assert 'Adjacent' in reasons
    assert len(srdf.disabled_collisions) >= 10


def test_unknown_named_state_is_a_clear_error(capsys) -> None:
    """An unknown --state exits 2 with a did-you-mean message on stderr."""
    code = main(['fk', '--state', 'redy'])
    assert code == 2
    assert "did you mean 'ready'" in capsys.readouterr().err
