"""Every URDF of example-robot-data loads, and agrees with Pinocchio on its kinematic content.

Compared per file (``corpus_compare.compare``): link names, joint names, joint types, dof (nv,
mimic-aware), position/velocity/effort limits of revolute and prismatic joints, and mimic source,
multiplier and offset (chains composed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip('pinocchio')

import corpus_compare
import robot_corpus

from robot_state_core.errors import RobotDescriptionError

try:
    FILES = corpus_compare.corpus_files()
except Exception:
    FILES = []


def test_corpus_present() -> None:
    """The corpus exists (so the parametrized tests below are not vacuous)."""
    assert len(FILES) >= 40


def test_every_corpus_urdf_but_the_broken_stub_loads() -> None:
    """All 69 example-robot-data URDFs load except ur3.urdf (issue 15: the alex mimic file)."""
    assert len(FILES) == 69
    assert set(corpus_compare.EXPECTED_FAILURES) == {'ur3.urdf'}
    assert 'alex_psyonic_hands.urdf' in {f.name for f in FILES}


@pytest.mark.parametrize('urdf', FILES, ids=lambda p: p.relative_to(p.parents[2]).as_posix())
def test_urdf_loads_and_agrees_with_pinocchio(urdf: Path) -> None:
    """Loads (or fails as expected, with a typed error) and matches Pinocchio's model."""
    if urdf.name in corpus_compare.EXPECTED_FAILURES:
        with pytest.raises(RobotDescriptionError):
            corpus_compare.compare(urdf)
        return
    row = corpus_compare.compare(urdf)
    if urdf.name in corpus_compare.EXPECTED_WARNINGS:
        assert any(corpus_compare.EXPECTED_WARNINGS[urdf.name] in w for w in row.warnings)
    if not row.pinocchio:
        pytest.skip(f'Pinocchio cannot load {urdf.name}; loaded by us: {row.links} links')
    assert row.mismatches == []
    assert row.links > 0


def test_package_map_resolves_every_mesh_of_the_talos_full_model() -> None:
    """Talos' ``package:///`` URIs resolve (with the documented warning), nothing unresolved."""
    from robot_state_core.io.urdf import load_urdf_file

    result = load_urdf_file(robot_corpus.test_robot('talos_full').urdf_path,
                            package_map=robot_corpus.package_map())
    assert result.unresolved_meshes == ()
    assert any('empty package name' in w for w in result.warnings)
