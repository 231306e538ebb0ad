"""The mesh store is bounded (hostile input: endless distinct CollisionObject meshes).

``geometry/meshes.py`` keeps in-memory meshes (``mem://<sha1>``), scaled meshes, hulls and the
fcl backend's BVHs in one least-recently-used store with a byte budget
(``meshes.MESH_CACHE_BYTES``); shapes still used by world objects or attached bodies keep their
meshes loadable. Expected distances are closed forms (axis-aligned cubes and boxes).
"""

from __future__ import annotations

import copy
import gc
import pickle

import numpy as np
import pytest

from robot_state_core.errors import RobotDescriptionError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import Box
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene

pytest.importorskip('fcl')

ADD = CollisionObjectOperation.ADD
REMOVE = CollisionObjectOperation.REMOVE
MOVE = CollisionObjectOperation.MOVE

#: A fixed 0.2 m box ``base`` at the origin; ``hand`` (no geometry) 1 m along x on a slide.
ROBOT = '''<robot name="slide">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="hand"/>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="hand"/>
    <origin xyz="1 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>'''

#: Outward triangles of a cube with corners ``(±1, ±1, ±1)`` (index = 4x + 2y + z).
CUBE_FACES = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                       [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])


def cube(half: float) -> np.ndarray:
    """The 8 corners of a cube of half edge ``half`` [m] centred at the origin."""
    return np.array([[x, y, z] for x in (-half, half) for y in (-half, half)
                     for z in (-half, half)])


def at(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def test_store_stays_under_its_budget_and_live_meshes_still_collide(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """300 distinct mesh objects added, checked and removed; two live ones keep colliding.

    Without the bound the store would hold ~300 x 7 kB (arrays, scaled copies and BVHs); with
    a 32 kB budget it stays under 32 kB after every step, the removed meshes are freed, and the
    live world object and attached body (evicted from the store long ago) still give their
    closed-form gaps.
    """
    budget = 32 * 1024
    monkeypatch.setattr(meshes, 'MESH_CACHE_BYTES', budget)
    scene = PlanningScene(RobotModel.from_urdf_string(ROBOT))
    state = scene.current_state

    # live: a world cube (half 0.05) 0.4 m beside the base: gap 0.4 - 0.05 - 0.1 = 0.25
    world_shape = scene.mesh_shape(cube(0.05), CUBE_FACES)
    scene.apply_world_object(ADD, 'kept', at(0.0, 0.4), [(world_shape, np.eye(4))])
    # live: a cube (half 0.05) attached on the hand at (1, 0, 0); a world box (0.1) at
    # (1, -0.4, 0) is 0.4 - 0.05 - 0.05 = 0.3 from it
    attached_shape = scene.mesh_shape(cube(0.05) * [1.0, 1.0, 1.0 + 1e-9], CUBE_FACES)
    scene.attach_object('hand', 'held', at(1.0), [(attached_shape, np.eye(4))])
    scene.apply_world_object(ADD, 'table', at(1.0, -0.4), [(Box(0.1, 0.1, 0.1), np.eye(4))])
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(0.25,
                                                                                     abs=1e-9)

    dropped = ''
    for k in range(300):  # a hostile publisher: a new mesh every message
        shape = scene.mesh_shape(cube(0.02 + 1e-6 * k), CUBE_FACES)
        scene.apply_world_object(ADD, 'junk', at(0.0, -3.0), [(shape, np.eye(4))])
        assert not scene.check_collision(state).collision  # builds its BVH
        scene.apply_world_object(REMOVE, 'junk')
        assert meshes.mesh_cache_info().nbytes <= budget
        if k == 0:
            dropped = str(shape.path)  # the text only: no reference to the mesh
        del shape
    gc.collect()
    info = meshes.mesh_cache_info()
    assert info.nbytes <= budget and info.budget == budget
    assert info.in_memory_meshes < 20, info  # the removed meshes are freed (300 were made)
    with pytest.raises(RobotDescriptionError, match='not held'):
        meshes.load_mesh(dropped)

    # the live meshes left the store long ago; their shapes hold them
    for shape in (world_shape, attached_shape):
        assert meshes.cached(('mem', str(shape.path))) is None
        assert copy.deepcopy(shape) == shape
        assert meshes.load_mesh(pickle.loads(pickle.dumps(shape)).path or '')[0].shape == (8, 3)
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(0.25,
                                                                                     abs=1e-9)
    scene.apply_world_object(MOVE, 'kept', at(0.0, 5.0))  # out of the way: the attached pair
    assert scene.distance_to_collision(state, self_collision=False) == pytest.approx(0.3,
                                                                                     abs=1e-9)
    scene.apply_world_object(MOVE, 'table', at(1.0, -0.08))  # overlaps the held cube by 0.02
    assert scene.check_collision(state).collision
    assert meshes.mesh_cache_info().nbytes <= budget


def test_an_entry_larger_than_the_budget_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget below one mesh: nothing is stored, the caller still gets its arrays."""
    monkeypatch.setattr(meshes, 'MESH_CACHE_BYTES', 16)
    path = meshes.register_mesh_arrays(cube(0.3), CUBE_FACES)
    vertices, faces = meshes.load_mesh(path, (2.0, 2.0, 2.0))
    np.testing.assert_allclose(np.abs(vertices), 0.6)  # scaled by 2
    assert faces.shape == (12, 3)
    assert meshes.mesh_cache_info().nbytes == 0
