"""A mesh file rewritten on disk is read again (issue 26 item 3).

The mesh store keys a file's data by (real path, scale, size, mtime, inode): the next model,
scene or query object built after the rewrite sees the new geometry, and what was built before
keeps the old one. The expected geometry is the file's own (trimesh writes a box of known
extents; the collision verdicts follow from the box sizes and a ball on the big box's face).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import Sphere
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.state.robot_state import RobotState

trimesh = pytest.importorskip('trimesh')
pytest.importorskip('fcl')

URDF = '''<robot name="one_mesh">
  <link name="base"><collision><geometry><mesh filename="{path}"/></geometry></collision></link>
</robot>'''


def _write_box(path: Path, edge: float) -> None:
    before = path.stat() if path.exists() else None
    trimesh.creation.box(extents=(edge, edge, edge)).export(path)
    if before is not None and path.stat().st_size == before.st_size:
        # Same size (an STL of 12 triangles): make sure the time differs even on coarse clocks.
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def test_load_mesh_reads_a_rewritten_file_again(tmp_path: Path) -> None:
    path = tmp_path / 'box.stl'
    _write_box(path, 0.2)
    v, _ = meshes.load_mesh(path)
    np.testing.assert_allclose(np.ptp(v, axis=0), [0.2] * 3, atol=1e-6)
    _write_box(path, 1.0)
    v, _ = meshes.load_mesh(path)
    np.testing.assert_allclose(np.ptp(v, axis=0), [1.0] * 3, atol=1e-6)
    hv, _ = meshes.mesh_hull(path)
    np.testing.assert_allclose(np.ptp(hv, axis=0), [1.0] * 3, atol=1e-6)


def _scene(path: Path) -> tuple[PlanningScene, RobotState]:
    model = RobotModel.from_urdf_string(URDF.format(path=path))
    scene = PlanningScene(model)
    X = np.eye(4)
    X[0, 3] = 0.5  # a 0.05 m ball on the face of a 1 m box (x = 0.5), clear of a 0.2 m box
    scene.apply_world_object(CollisionObjectOperation.ADD, 'ball', X, [(Sphere(0.05), np.eye(4))])
    state = RobotState(model)
    state.set_to_default_values()
    return scene, state


def test_a_reloaded_description_sees_the_new_mesh_and_the_old_scene_keeps_its_own(
        tmp_path: Path) -> None:
    path = tmp_path / 'link.stl'
    _write_box(path, 0.2)
    old_scene, old_state = _scene(path)
    assert not old_scene.check_collision(old_state).collision
    _write_box(path, 1.0)
    new_scene, new_state = _scene(path)
    assert new_scene.check_collision(new_state).collision
    assert new_scene.query_object(new_state).has_collisions()
    assert not old_scene.check_collision(old_state).collision  # built from the old file
