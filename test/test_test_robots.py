"""The test-robot helper finds example-robot-data's files and resolves their mesh URIs."""

from __future__ import annotations

import re

import pytest
import robot_corpus

URI = re.compile(r'filename="((?:package|file)://[^"]+)"')


def _require_corpus() -> None:
    try:
        robot_corpus.example_robot_data_share()
    except Exception as exc:
        pytest.skip(f'example-robot-data unavailable: {exc}')


@pytest.mark.parametrize('name', sorted(robot_corpus.ROBOTS))
def test_robot_files_exist_and_every_mesh_uri_resolves(name: str) -> None:
    """URDF (and SRDF) exist; every mesh URI resolves to an existing file."""
    _require_corpus()
    robot = robot_corpus.test_robot(name)
    assert robot.urdf_path.is_file()
    if robot.srdf_path is not None:
        assert robot.srdf_path.is_file()
    uris = URI.findall(robot.urdf_path.read_text(encoding='utf-8'))
    missing = [u for u in uris if not robot_corpus.resolve_uri(u, robot.package_map).is_file()]
    assert not missing, f'{len(missing)} unresolved of {len(uris)}: {missing[:3]}'


def test_corpus_is_large() -> None:
    """example-robot-data provides a real corpus (dozens of URDFs) for the loader tests."""
    _require_corpus()
    assert len(robot_corpus.all_urdf_files()) >= 40


def test_pinocchio_oracle_loads_panda() -> None:
    """Pinocchio (the FK oracle, a test dependency) loads the Panda: 9 joints incl. fingers."""
    _require_corpus()
    pin = pytest.importorskip('pinocchio')
    model = pin.buildModelFromUrdf(str(robot_corpus.test_robot('panda').urdf_path))
    assert model.nq == 9
    assert 'panda_joint1' in list(model.names)
