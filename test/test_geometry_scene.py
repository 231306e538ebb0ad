"""The Drake-style geometry registry (seed S0, G-C1..G-C12, G-01..G-33).

Registration and ownership rules (each documented exception), the frame tree and world-pose
composition, anchored / relative / deformable geometry, roles NEW/REPLACE/remove, the version
table G-32 row by row, renderers, collision filters (explicit and same-frame), the inspector.
"""

from __future__ import annotations

from collections.abc import Callable
import dataclasses
from pathlib import Path
import subprocess
import sys

import numpy as np
import pytest

from robot_state_core.errors import (
    GeometryRegistrationError,
    InvalidArgumentError,
    RobotStateCoreError,
    UnknownNameError,
)
from robot_state_core.geometry import (
    Box,
    Capsule,
    CollisionFilterDeclaration,
    Cylinder,
    exclude_between,
    exclude_within,
    FrameId,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometryProperties,
    GeometrySet,
    GeometryVersion,
    HalfSpace,
    IllustrationProperties,
    make_phong_illustration_properties,
    Mesh,
    PerceptionProperties,
    ProximityProperties,
    Role,
    RoleAssign,
    roles,
    SceneGraph,
    SceneGraphInspector,
    SourceId,
    Sphere,
)
from robot_state_core.spatial.transforms import pose_from_xyz_rpy

TETRA = Path(__file__).resolve().parent / 'resources' / 'meshes' / 'tetra.stl'
TETRA_VERTICES = np.array([[0.0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])
I4 = np.eye(4)
Err = GeometryRegistrationError


def _X(x: float = 0.0, y: float = 0.0, z: float = 0.0, roll: float = 0.0, pitch: float = 0.0,
       yaw: float = 0.0) -> np.ndarray:
    return pose_from_xyz_rpy([x, y, z], [roll, pitch, yaw])


def _inst(name: str = 'g', X: np.ndarray = I4, shape: object = None,
          props: tuple[object, ...] = ()) -> GeometryInstance:
    return GeometryInstance(X, Sphere(0.1) if shape is None else shape, name,  # type: ignore[arg-type]
                            props)  # type: ignore[arg-type]


def _random_pose(rng: np.random.Generator) -> np.ndarray:
    return _X(*rng.uniform(-1, 1, 3), *rng.uniform(-np.pi, np.pi, 3))


class Scene:
    """A small fixture: source 'robot' with frames base -> link1 -> link2, and 'other'."""

    def __init__(self) -> None:
        self.sg = SceneGraph()
        self.insp = self.sg.model_inspector()
        self.src = self.sg.register_source('robot')
        self.other = self.sg.register_source('other')
        self.base = self.sg.register_frame(self.src, GeometryFrame('base'))
        self.link1 = self.sg.register_frame(self.src, GeometryFrame('link1', 3), self.base)
        self.link2 = self.sg.register_frame(self.src, GeometryFrame('link2'), self.link1)
        self.oframe = self.sg.register_frame(self.other, GeometryFrame('o'))

    def version(self) -> GeometryVersion:
        return self.insp.geometry_version()


@pytest.fixture
def scene() -> Scene:
    return Scene()


def _changed(before: GeometryVersion, after: GeometryVersion) -> set[str]:
    names = {Role.PROXIMITY: 'proximity', Role.ILLUSTRATION: 'illustration',
             Role.PERCEPTION: 'perception'}
    return {name for role, name in names.items() if not before.is_same_as(after, role)}


# ------------------------------------------------------------------------------ errors, ids


def test_error_type_is_core_error_and_value_error() -> None:
    assert issubclass(Err, RobotStateCoreError)
    assert issubclass(Err, ValueError)


def test_role_flags_and_role_assign_values() -> None:
    assert (Role.UNASSIGNED, Role.PROXIMITY, Role.ILLUSTRATION, Role.PERCEPTION) == (0, 1, 2, 4)
    assert Role.PROXIMITY | Role.PERCEPTION == 5
    assert {RoleAssign.NEW, RoleAssign.REPLACE} == set(RoleAssign)


def test_world_frame_is_static_and_owned_by_the_internal_source() -> None:
    sg = SceneGraph()
    world = SceneGraph.world_frame_id()
    assert world == sg.world_frame_id() == SceneGraphInspector.world_frame_id() == FrameId(0)
    insp = sg.model_inspector()
    assert insp is sg.model_inspector()  # one live view
    assert insp.get_name(world) == 'world'
    assert insp.get_owning_source_name(world) == 'SceneGraphInternal'
    assert insp.get_parent_frame(world) == world
    assert insp.get_frame_group(world) == 0
    assert insp.num_frames() == 1 and insp.num_sources() == 1 and insp.num_geometries() == 0
    assert insp.get_all_frame_ids() == (world,)


def test_ids_are_unique_across_kinds_and_registries(scene: Scene) -> None:
    sg2 = SceneGraph()
    src2 = sg2.register_source('robot')  # same name, other registry: fine
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    ids = {scene.src, scene.other, scene.base, scene.link1, scene.link2, gid, src2}
    assert len(ids) == 7
    assert not scene.sg.source_is_registered(src2)
    with pytest.raises(Err, match='is a frame id'):
        scene.insp.get_shape(GeometryId(scene.base))


# ------------------------------------------------------------------------------ sources (G-05)


def test_register_source_names(scene: Scene) -> None:
    assert scene.sg.source_is_registered(scene.src)
    assert scene.insp.get_name(scene.src) == 'robot'
    generated = scene.sg.register_source()
    assert scene.insp.get_name(generated) == f'Source_{generated}'
    assert scene.insp.num_sources() == 4  # internal + robot + other + generated
    assert scene.insp.get_all_source_ids()[1:] == (scene.src, scene.other, generated)
    assert not scene.sg.source_is_registered(SourceId(10**9))


def test_register_source_duplicate_name_raises(scene: Scene) -> None:
    with pytest.raises(Err, match=r"'robot'.*already registered.*G-05"):
        scene.sg.register_source('robot')
    with pytest.raises(Err, match='G-05'):
        scene.sg.register_source('SceneGraphInternal')
    with pytest.raises(InvalidArgumentError):
        scene.sg.register_source(3)  # type: ignore[arg-type]


def test_internal_source_cannot_edit() -> None:
    sg = SceneGraph()
    internal = sg.model_inspector().get_all_source_ids()[0]
    assert sg.source_is_registered(internal)
    with pytest.raises(Err, match='internal source'):
        sg.register_frame(internal, GeometryFrame('f'))
    with pytest.raises(Err, match='internal source'):
        sg.register_anchored_geometry(internal, _inst())


# ------------------------------------------------------------------------------ frames (G-10..12)


def test_frame_tree_and_inspector(scene: Scene) -> None:
    insp, sg = scene.insp, scene.sg
    assert sg.frame_ids() == (scene.base, scene.link1, scene.link2, scene.oframe)
    assert sg.frame_ids(scene.src) == (scene.base, scene.link1, scene.link2)
    assert insp.frames_for_source(scene.other) == (scene.oframe,)
    assert insp.num_frames_for_source(scene.src) == 3
    assert insp.num_frames() == 5
    assert insp.get_parent_frame(scene.base) == sg.world_frame_id()
    assert insp.get_parent_frame(scene.link2) == scene.link1
    assert insp.get_frame_group(scene.link1) == 3
    assert insp.get_name(scene.link1) == 'link1'
    assert insp.get_owning_source_name(scene.link1) == 'robot'
    assert insp.belongs_to_source(scene.link1, scene.src)
    assert not insp.belongs_to_source(scene.link1, scene.other)
    assert not insp.belongs_to_source(sg.world_frame_id(), scene.src)
    with pytest.raises(Err):
        sg.frame_ids(SourceId(10**9))
    with pytest.raises(Err):
        insp.belongs_to_source(scene.link1, SourceId(10**9))
    with pytest.raises(Err):
        insp.get_parent_frame(FrameId(10**9))


def test_register_frame_unknown_source_raises_for_both_overloads(scene: Scene) -> None:
    bad = SourceId(10**9)
    with pytest.raises(Err, match=r'source id 1000000000 is not registered.*G-10 a'):
        scene.sg.register_frame(bad, GeometryFrame('x'))
    with pytest.raises(Err, match='G-11 a'):
        scene.sg.register_frame(bad, GeometryFrame('x'), scene.base)


def test_register_frame_parent_unknown_or_not_owned_raises(scene: Scene) -> None:
    with pytest.raises(Err, match=r'frame id 1000000000 is not registered.*G-11 b'):
        scene.sg.register_frame(scene.src, GeometryFrame('x'), FrameId(10**9))
    with pytest.raises(Err, match=r"frame 'o'.*belongs to source 'other'.*G-11 b"):
        scene.sg.register_frame(scene.src, GeometryFrame('x'), scene.oframe)


def test_register_frame_id_already_registered_raises(scene: Scene) -> None:
    frame = GeometryFrame('again')
    scene.sg.register_frame(scene.src, frame)
    with pytest.raises(Err, match=r'already registered.*G-10 b'):
        scene.sg.register_frame(scene.other, frame)
    with pytest.raises(Err, match=r'already registered.*G-11 c'):
        scene.sg.register_frame(scene.src, frame, scene.base)
    copy = dataclasses.replace(frame, name='again2')  # a copy is a new frame with a new id
    assert copy.id != frame.id
    assert scene.sg.register_frame(scene.src, copy) == copy.id


def test_register_frame_duplicate_name_within_source_raises(scene: Scene) -> None:
    with pytest.raises(Err, match=r"already has a frame named 'link1'.*G-10 c"):
        scene.sg.register_frame(scene.src, GeometryFrame('link1'))
    with pytest.raises(Err, match='G-11 d'):
        scene.sg.register_frame(scene.src, GeometryFrame('link1'), scene.base)
    scene.sg.register_frame(scene.other, GeometryFrame('link1'))  # other source: fine
    with pytest.raises(InvalidArgumentError):
        scene.sg.register_frame(scene.src, 'f')  # type: ignore[arg-type]


def test_geometry_frame_validation() -> None:
    with pytest.raises(InvalidArgumentError):
        GeometryFrame(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        GeometryFrame('f', frame_group=1.5)  # type: ignore[arg-type]
    a, b = GeometryFrame('f'), GeometryFrame('f')
    assert a == b and a.id != b.id  # ids do not take part in equality


def test_rename_frame(scene: Scene) -> None:
    before = scene.version()
    scene.sg.rename_frame(scene.link1, 'upper_arm')
    assert scene.insp.get_name(scene.link1) == 'upper_arm'
    scene.sg.rename_frame(scene.link1, 'upper_arm')  # its own name: fine
    scene.sg.rename_frame(scene.oframe, 'base')  # 'base' belongs to another source: fine
    assert scene.version() == before  # G-12: no version change
    with pytest.raises(Err, match=r"frame 'base'.*G-12"):
        scene.sg.rename_frame(scene.link2, 'base')
    with pytest.raises(Err, match='G-12'):
        scene.sg.rename_frame(FrameId(10**9), 'x')
    # Drake's GeometryState::RenameFrame takes any registered frame, the world included.
    scene.sg.rename_frame(scene.sg.world_frame_id(), 'x')
    assert scene.insp.get_name(scene.sg.world_frame_id()) == 'x'
    assert scene.version() == before


# ------------------------------------------------------------------------------ geometry (G-13..)


def test_register_geometry_and_getters(scene: Scene) -> None:
    X = _X(0.1, 0.2, 0.3, 0.1, 0.2, 0.3)
    gid = scene.sg.register_geometry(scene.src, scene.link1, _inst('  hand ', X, Box(1, 2, 3)))
    insp = scene.insp
    assert insp.get_name(gid) == 'hand'  # canonical: whitespace stripped
    assert insp.get_frame_id(gid) == scene.link1
    assert insp.get_shape(gid) == Box(1, 2, 3)
    np.testing.assert_array_equal(insp.get_pose_in_frame(gid), X)
    assert not insp.get_pose_in_frame(gid).flags.writeable
    assert insp.get_roles(gid) == Role.UNASSIGNED
    assert insp.get_proximity_properties(gid) is None
    assert insp.get_owning_source_name(gid) == 'robot'
    assert insp.belongs_to_source(gid, scene.src) and not insp.belongs_to_source(gid, scene.other)
    assert insp.get_geometry_ids(scene.link1) == (gid,)
    assert insp.num_geometries_for_frame(scene.link1) == 1
    assert insp.get_parent_geometry(gid) is None
    assert not insp.is_deformable(gid)
    assert (insp.num_dynamic_geometries(), insp.num_anchored_geometries()) == (1, 0)


def test_register_geometry_errors(scene: Scene) -> None:
    sg = scene.sg
    with pytest.raises(Err, match='G-13 a'):
        sg.register_geometry(SourceId(10**9), scene.base, _inst())
    with pytest.raises(Err, match=r"frame 'o'.*belongs to source 'other'.*G-13 b"):
        sg.register_geometry(scene.src, scene.oframe, _inst())
    with pytest.raises(Err, match='G-13 b'):
        sg.register_geometry(scene.src, FrameId(10**9), _inst())
    with pytest.raises(Err, match=r'is None.*G-13 c'):
        sg.register_geometry(scene.src, scene.base, None)  # type: ignore[arg-type]
    with pytest.raises(Err, match=r"name '   ' is empty.*G-13 d"):
        sg.register_geometry(scene.src, scene.base, _inst('   '))
    with pytest.raises(InvalidArgumentError):
        sg.register_geometry(scene.src, scene.base, 'g')  # type: ignore[arg-type]
    assert scene.insp.num_geometries() == 0  # nothing half-registered


def test_register_same_instance_twice_raises_but_a_copy_is_new(scene: Scene) -> None:
    inst = _inst('a')
    scene.sg.register_geometry(scene.src, scene.base, inst)
    with pytest.raises(Err, match='already registered'):
        scene.sg.register_geometry(scene.src, scene.link1, inst)
    copy = dataclasses.replace(inst, name='b')
    assert scene.sg.register_geometry(scene.src, scene.link1, copy) == copy.id


def test_geometry_names_unique_per_frame_and_role(scene: Scene) -> None:
    sg, base = scene.sg, scene.base
    a = sg.register_geometry(scene.src, base, _inst('n', props=(ProximityProperties(),)))
    unnamed = sg.register_geometry(scene.src, base, _inst('n'))  # no role: no clash
    sg.register_geometry(scene.src, base, _inst('n', props=(IllustrationProperties(),)))
    sg.register_geometry(scene.src, scene.link1, _inst('n', props=(ProximityProperties(),)))
    with pytest.raises(Err, match=r"geometry 'n'.*PROXIMITY role.*G-26"):
        sg.register_geometry(scene.src, base, _inst(' n', props=(ProximityProperties(),)))
    assert scene.insp.get_geometry_id_by_name(base, Role.PROXIMITY, 'n') == a
    with pytest.raises(Err, match='no geometry'):
        scene.insp.get_geometry_id_by_name(base, Role.PERCEPTION, 'n')
    assert scene.insp.get_geometry_id_by_name(base, Role.UNASSIGNED, 'n') == unnamed
    sg.register_geometry(scene.src, base, _inst('n'))
    with pytest.raises(Err, match="2 geometries named 'n'"):
        scene.insp.get_geometry_id_by_name(base, Role.UNASSIGNED, 'n')


def test_rename_geometry(scene: Scene) -> None:
    sg = scene.sg
    a = sg.register_geometry(scene.src, scene.base, _inst('a', props=(ProximityProperties(),)))
    b = sg.register_geometry(scene.src, scene.base, _inst('b', props=(ProximityProperties(),)))
    c = sg.register_geometry(scene.src, scene.base, _inst('c', props=(IllustrationProperties(),)))
    before = scene.version()
    sg.rename_geometry(c, 'a')  # c shares no role with a
    sg.rename_geometry(a, 'a2')
    assert scene.insp.get_name(a) == 'a2'
    assert scene.version() == before  # G-17: no version change
    with pytest.raises(Err, match=r"geometry 'b'.*PROXIMITY.*G-17"):
        sg.rename_geometry(a, 'b')
    # Drake's RenameGeometry stores the name as given: no canonicalization, '' accepted.
    sg.rename_geometry(b, ' b2 ')
    assert scene.insp.get_name(b) == ' b2 '
    sg.rename_geometry(b, '')
    assert scene.insp.get_name(b) == ''
    sg.rename_geometry(b, '')  # its own name: nothing to check
    with pytest.raises(Err, match='G-17'):
        sg.rename_geometry(GeometryId(10**9), 'x')


def test_anchored_geometry(scene: Scene) -> None:
    X_WG = _X(1, 2, 3, yaw=0.5)
    gid = scene.sg.register_anchored_geometry(scene.other, _inst('table', X_WG))
    world = scene.sg.world_frame_id()
    assert scene.insp.get_frame_id(gid) == world
    assert scene.insp.get_geometry_ids(world) == (gid,)
    assert scene.insp.num_anchored_geometries() == 1
    assert scene.insp.get_owning_source_name(gid) == 'other'
    poses = {f: _X(5, 5, 5) for f in scene.sg.frame_ids()}
    np.testing.assert_allclose(scene.sg.compute_world_poses(poses)[0], X_WG)
    # register_geometry on the world frame is anchored registration too
    gid2 = scene.sg.register_geometry(scene.src, world, _inst('floor'))
    assert scene.insp.num_anchored_geometries() == 2 and scene.insp.get_frame_id(gid2) == world
    with pytest.raises(Err, match='G-15 a'):
        scene.sg.register_anchored_geometry(SourceId(10**9), _inst())
    with pytest.raises(Err, match='G-15 d'):
        scene.sg.register_anchored_geometry(scene.src, _inst(''))
    with pytest.raises(Err, match='G-15'):
        scene.sg.register_anchored_geometry(scene.src, None)  # type: ignore[arg-type]


def test_register_geometry_relative_composes_pose(scene: Scene) -> None:
    X_FP, X_PG = _X(0.1, 0, 0.2, 0.3, 0, 0), _X(0, 0.5, 0, 0, 0.4, 0)
    parent = scene.sg.register_geometry(scene.src, scene.link1, _inst('p', X_FP))
    child = scene.sg.register_geometry_relative(scene.src, parent, _inst('c', X_PG))
    assert scene.insp.get_frame_id(child) == scene.link1
    assert scene.insp.get_parent_geometry(child) == parent
    np.testing.assert_allclose(scene.insp.get_pose_in_frame(child), X_FP @ X_PG)
    anchored = scene.sg.register_anchored_geometry(scene.src, _inst('t', _X(1)))
    on_anchor = scene.sg.register_geometry_relative(scene.src, anchored, _inst('u', _X(0, 1)))
    assert scene.insp.get_frame_id(on_anchor) == scene.sg.world_frame_id()
    np.testing.assert_allclose(scene.insp.get_pose_in_frame(on_anchor), _X(1, 1))
    with pytest.raises(Err, match=r"belongs to source 'robot'.*G-C7"):
        scene.sg.register_geometry_relative(scene.other, parent, _inst('x'))
    with pytest.raises(Err, match='G-C7'):
        scene.sg.register_geometry_relative(scene.src, GeometryId(10**9), _inst('x'))


def test_remove_geometry_cascades(scene: Scene) -> None:
    sg, insp = scene.sg, scene.insp
    root = sg.register_geometry(scene.src, scene.link1, _inst('root'))
    child = sg.register_geometry_relative(scene.src, root, _inst('child'))
    grandchild = sg.register_geometry_relative(scene.src, child, _inst('grandchild'))
    sibling = sg.register_geometry_relative(scene.src, root, _inst('sibling'))
    other = sg.register_geometry(scene.src, scene.link1, _inst('other'))
    sg.remove_geometry(scene.src, sibling)  # a leaf: only itself
    assert insp.get_geometry_ids(scene.link1) == (root, child, grandchild, other)
    sg.remove_geometry(scene.src, root)
    assert insp.get_all_geometry_ids() == (other,)
    assert insp.get_geometry_ids(scene.link1) == (other,)
    for gone in (root, child, grandchild):
        with pytest.raises(Err):
            insp.get_name(gone)
    again = sg.register_geometry(scene.src, scene.link1, _inst('root'))  # the name is free
    assert insp.get_name(again) == 'root'


def test_remove_geometry_errors(scene: Scene) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    with pytest.raises(Err, match='G-19'):
        scene.sg.remove_geometry(SourceId(10**9), gid)
    with pytest.raises(Err, match='G-19'):
        scene.sg.remove_geometry(scene.src, GeometryId(10**9))
    with pytest.raises(Err, match=r"belongs to source 'robot'.*not to source 'other'.*G-19"):
        scene.sg.remove_geometry(scene.other, gid)
    anchored = scene.sg.register_anchored_geometry(scene.other, _inst('a'))
    scene.sg.remove_geometry(scene.other, anchored)
    assert scene.insp.num_anchored_geometries() == 0


def test_change_shape(scene: Scene) -> None:
    X = _X(0.3)
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst('g', X))
    scene.sg.change_shape(scene.src, gid, Box(1, 1, 1))
    assert scene.insp.get_shape(gid) == Box(1, 1, 1)
    np.testing.assert_array_equal(scene.insp.get_pose_in_frame(gid), X)  # pose kept
    scene.sg.change_shape(scene.src, gid, Sphere(2.0), _X(0, 0, 1))
    np.testing.assert_array_equal(scene.insp.get_pose_in_frame(gid), _X(0, 0, 1))
    assert scene.insp.get_name(gid) == 'g'
    with pytest.raises(Err, match='G-18'):
        scene.sg.change_shape(SourceId(10**9), gid, Box(1, 1, 1))
    with pytest.raises(Err, match='G-18'):
        scene.sg.change_shape(scene.src, GeometryId(10**9), Box(1, 1, 1))
    with pytest.raises(Err, match='G-18'):
        scene.sg.change_shape(scene.other, gid, Box(1, 1, 1))
    with pytest.raises(InvalidArgumentError):
        scene.sg.change_shape(scene.src, gid, 'box')  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        scene.sg.change_shape(scene.src, gid, Box(1, 1, 1), np.eye(3))


def test_geometry_instance_validation() -> None:
    with pytest.raises(InvalidArgumentError):
        GeometryInstance(np.eye(3), Sphere(1), 'g')
    bad = np.eye(4)
    bad[0, 3] = np.nan
    with pytest.raises(InvalidArgumentError):
        GeometryInstance(bad, Sphere(1), 'g')
    with pytest.raises(InvalidArgumentError):
        GeometryInstance(I4, 'sphere', 'g')  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match='more than one'):
        GeometryInstance(I4, Sphere(1), 'g', (ProximityProperties(), ProximityProperties()))
    with pytest.raises(InvalidArgumentError):
        GeometryInstance(I4, Sphere(1), 'g', (GeometryProperties(),))  # type: ignore[arg-type]
    inst = GeometryInstance(I4.tolist(), Sphere(1), 'g', [ProximityProperties()])  # type: ignore[arg-type]
    assert isinstance(inst.properties, tuple) and not inst.X_FG.flags.writeable
    assert inst.proximity_properties is not None and inst.illustration_properties is None
    first = make_phong_illustration_properties((1, 0, 0, 1))
    inst.set_properties(first)
    inst.set_properties(make_phong_illustration_properties((0, 1, 0, 1)))
    assert len(inst.properties) == 2
    assert inst.illustration_properties is not None
    assert inst.illustration_properties.get_property('phong', 'diffuse') == (0, 1, 0, 1)
    assert inst.perception_properties is None


# ------------------------------------------------------------------------------ roles (G-23..28)


def test_assign_role_new_replace_rules(scene: Scene) -> None:
    sg, insp = scene.sg, scene.insp
    gid = sg.register_geometry(scene.src, scene.base, _inst())
    props = ProximityProperties()
    props.add_property('material', 'coulomb_friction', 0.5)
    with pytest.raises(Err, match=r'not assigned; use RoleAssign.NEW.*G-26'):
        sg.assign_role(scene.src, gid, props, RoleAssign.REPLACE)
    sg.assign_role(scene.src, gid, props)
    props.update_property('material', 'coulomb_friction', 0.9)  # the stored copy is unaffected
    stored = insp.get_proximity_properties(gid)
    assert stored is not None and stored.get_property('material', 'coulomb_friction') == 0.5
    with pytest.raises(Err, match=r'already has the PROXIMITY role.*REPLACE.*G-26'):
        sg.assign_role(scene.src, gid, ProximityProperties())
    stored.update_property('material', 'coulomb_friction', 0.7)  # Drake's update pattern
    sg.assign_role(scene.src, gid, stored, RoleAssign.REPLACE)
    again = insp.get_proximity_properties(gid)
    assert again is not None and again.get_property('material', 'coulomb_friction') == 0.7
    sg.assign_role(scene.src, gid, ProximityProperties(), RoleAssign.REPLACE)  # empty: kept
    assert insp.get_roles(gid) == Role.PROXIMITY
    sg.assign_role(scene.src, gid, IllustrationProperties())
    assert insp.get_roles(gid) == Role.PROXIMITY | Role.ILLUSTRATION


def test_assign_role_perception_replace_raises(scene: Scene) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    with pytest.raises(Err, match='G-25'):  # even without the role
        scene.sg.assign_role(scene.src, gid, PerceptionProperties(), RoleAssign.REPLACE)
    scene.sg.assign_role(scene.src, gid, PerceptionProperties())
    with pytest.raises(Err, match=r'replacing perception.*not supported.*G-25'):
        scene.sg.assign_role(scene.src, gid, PerceptionProperties(), RoleAssign.REPLACE)


def test_assign_role_ownership_and_argument_errors(scene: Scene) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    with pytest.raises(Err, match=r'source id .* is not registered'):
        scene.sg.assign_role(SourceId(10**9), gid, ProximityProperties())
    with pytest.raises(Err, match=r'geometry id .* is not registered'):
        scene.sg.assign_role(scene.src, GeometryId(10**9), ProximityProperties())
    with pytest.raises(Err, match="belongs to source 'robot'"):
        scene.sg.assign_role(scene.other, gid, ProximityProperties())
    with pytest.raises(InvalidArgumentError, match='inferred from the properties type'):
        scene.sg.assign_role(scene.src, gid, GeometryProperties())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        scene.sg.assign_role(scene.src, gid, ProximityProperties(), 'new')  # type: ignore[arg-type]
    bad = PerceptionProperties()
    bad.add_property('renderer', 'accepting', ['a'])  # a list, not a set
    with pytest.raises(InvalidArgumentError, match='set of renderer names'):
        scene.sg.assign_role(scene.src, gid, bad)
    assert scene.insp.get_roles(gid) == Role.UNASSIGNED


def test_assign_role_same_name_same_frame_same_role_raises(scene: Scene) -> None:
    sg = scene.sg
    a = sg.register_geometry(scene.src, scene.base, _inst('dup'))
    b = sg.register_geometry(scene.src, scene.base, _inst('dup'))
    c = sg.register_geometry(scene.src, scene.link1, _inst('dup'))
    sg.assign_role(scene.src, a, ProximityProperties())
    with pytest.raises(Err, match=r'same name and that role.*G-26'):
        sg.assign_role(scene.src, b, ProximityProperties())
    sg.assign_role(scene.src, b, IllustrationProperties())  # other role: fine
    sg.assign_role(scene.src, c, ProximityProperties())  # other frame: fine


def test_registration_assigns_roles_from_properties(scene: Scene) -> None:
    illus = make_phong_illustration_properties((0.1, 0.2, 0.3, 1.0))
    gid = scene.sg.register_geometry(
        scene.src, scene.base, _inst(props=(ProximityProperties(), illus)))
    assert scene.insp.get_roles(gid) == Role.PROXIMITY | Role.ILLUSTRATION
    got = scene.insp.get_illustration_properties(gid)
    assert got == illus and got is not illus
    assert scene.insp.get_properties(gid, Role.PERCEPTION) is None
    with pytest.raises(InvalidArgumentError):
        scene.insp.get_properties(gid, Role.UNASSIGNED)


def test_remove_role_from_geometry(scene: Scene) -> None:
    both = (ProximityProperties(), IllustrationProperties())
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst(props=both))
    assert scene.sg.remove_role(scene.src, gid, Role.ILLUSTRATION) == 1
    assert scene.sg.remove_role(scene.src, gid, Role.ILLUSTRATION) == 0
    assert scene.insp.get_roles(gid) == Role.PROXIMITY
    with pytest.raises(Err, match='G-28'):
        scene.sg.remove_role(scene.other, gid, Role.PROXIMITY)
    with pytest.raises(Err, match='G-28'):
        scene.sg.remove_role(SourceId(10**9), gid, Role.PROXIMITY)
    with pytest.raises(Err, match='neither a registered frame nor a registered geometry'):
        scene.sg.remove_role(scene.src, GeometryId(10**9), Role.PROXIMITY)
    # Drake: "One can't 'remove' the unassigned role": 0, after the ownership checks.
    before = scene.version()
    assert scene.sg.remove_role(scene.src, gid, Role.UNASSIGNED) == 0
    assert scene.sg.remove_role(scene.src, scene.base, Role.UNASSIGNED) == 0
    assert scene.version() == before and scene.insp.get_roles(gid) == Role.PROXIMITY
    with pytest.raises(Err, match='G-28'):
        scene.sg.remove_role(scene.other, gid, Role.UNASSIGNED)
    with pytest.raises(InvalidArgumentError):
        scene.sg.remove_role(scene.src, gid, Role.PROXIMITY | Role.ILLUSTRATION)


def test_remove_role_from_frame_affects_direct_geometries_only(scene: Scene) -> None:
    sg, prox = scene.sg, (ProximityProperties(),)
    a = sg.register_geometry(scene.src, scene.link1, _inst('a', props=prox))
    b = sg.register_geometry(scene.src, scene.link1, _inst('b', props=prox))
    c = sg.register_geometry(scene.src, scene.link1, _inst('c'))
    deeper = sg.register_geometry(scene.src, scene.link2, _inst('d', props=prox))
    assert sg.remove_role(scene.src, scene.link1, Role.PROXIMITY) == 2
    assert [scene.insp.get_roles(g) for g in (a, b, c)] == [Role.UNASSIGNED] * 3
    assert scene.insp.get_roles(deeper) == Role.PROXIMITY
    assert sg.remove_role(scene.src, scene.link1, Role.PROXIMITY) == 0
    with pytest.raises(Err, match=r"frame 'o'.*belongs to source 'other'.*G-27"):
        sg.remove_role(scene.src, scene.oframe, Role.PROXIMITY)
    with pytest.raises(Err, match='G-27'):
        sg.remove_role(SourceId(10**9), scene.link1, Role.PROXIMITY)


def test_remove_role_on_world_frame_touches_own_anchored_only(scene: Scene) -> None:
    prox = (ProximityProperties(),)
    mine = scene.sg.register_anchored_geometry(scene.src, _inst('m', props=prox))
    theirs = scene.sg.register_anchored_geometry(scene.other, _inst('t', props=prox))
    assert scene.sg.remove_role(scene.src, scene.sg.world_frame_id(), Role.PROXIMITY) == 1
    assert scene.insp.get_roles(mine) == Role.UNASSIGNED
    assert scene.insp.get_roles(theirs) == Role.PROXIMITY


# ------------------------------------------------------------------------------ versions (G-32)


def test_versions_g32_register_without_roles_changes_nothing(scene: Scene) -> None:
    before = scene.version()
    frame = scene.sg.register_frame(scene.src, GeometryFrame('new'))
    scene.sg.register_geometry(scene.src, frame, _inst())
    scene.sg.register_anchored_geometry(scene.src, _inst('a'))
    scene.sg.register_source('third')
    assert _changed(before, scene.version()) == set()


def test_versions_g32_assign_proximity_changes_proximity_only(scene: Scene) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    before = scene.version()
    scene.sg.assign_role(scene.src, gid, ProximityProperties())
    assert _changed(before, scene.version()) == {'proximity'}
    before = scene.version()
    scene.sg.assign_role(scene.src, gid, ProximityProperties(), RoleAssign.REPLACE)
    assert _changed(before, scene.version()) == {'proximity'}


def test_versions_g32_assign_illustration_changes_illustration_only(scene: Scene) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    before = scene.version()
    scene.sg.assign_role(scene.src, gid, IllustrationProperties())
    assert _changed(before, scene.version()) == {'illustration'}
    before = scene.version()
    scene.sg.assign_role(scene.src, gid, IllustrationProperties(), RoleAssign.REPLACE)
    assert _changed(before, scene.version()) == {'illustration'}


def test_versions_g32_assign_perception_only_if_a_renderer_accepts(scene: Scene) -> None:
    sg = scene.sg
    g1, g2, g3 = (sg.register_geometry(scene.src, scene.base, _inst(n)) for n in 'abc')
    before = scene.version()
    sg.assign_role(scene.src, g1, PerceptionProperties())  # no renderer at all
    assert _changed(before, scene.version()) == set()
    sg.add_renderer('vtk', object())  # accepts g1, which already has perception
    assert scene.insp.get_renderers(g1) == ('vtk',)
    before = scene.version()
    sg.assign_role(scene.src, g2, PerceptionProperties())
    assert _changed(before, scene.version()) == {'perception'}
    picky = PerceptionProperties()
    picky.add_property('renderer', 'accepting', {'gl'})
    before = scene.version()
    sg.assign_role(scene.src, g3, picky)  # only renderer 'gl' may take it: none does
    assert _changed(before, scene.version()) == set()
    assert scene.insp.get_renderers(g3) == ()


def test_versions_g32_remove_role(scene: Scene) -> None:
    sg = scene.sg
    sg.add_renderer('vtk', object())
    gid = sg.register_geometry(scene.src, scene.base, _inst(
        props=(ProximityProperties(), IllustrationProperties(), PerceptionProperties())))
    for role, name in ((Role.ILLUSTRATION, 'illustration'), (Role.PROXIMITY, 'proximity'),
                       (Role.PERCEPTION, 'perception')):
        before = scene.version()
        assert sg.remove_role(scene.src, gid, role) == 1
        assert _changed(before, scene.version()) == {name}
        before = scene.version()
        assert sg.remove_role(scene.src, gid, role) == 0  # not assigned: no change
        assert _changed(before, scene.version()) == set()
    unrendered = sg.register_geometry(scene.src, scene.base, _inst('u'))
    picky = PerceptionProperties()
    picky.add_property('renderer', 'accepting', frozenset({'gl'}))
    sg.assign_role(scene.src, unrendered, picky)
    before = scene.version()
    assert sg.remove_role(scene.src, unrendered, Role.PERCEPTION) == 1
    assert _changed(before, scene.version()) == set()  # it was not rendered


def test_versions_g32_remove_geometry(scene: Scene) -> None:
    sg = scene.sg
    sg.add_renderer('vtk', object())
    rendered = sg.register_geometry(scene.src, scene.base, _inst(
        'r', props=(ProximityProperties(), PerceptionProperties())))
    before = scene.version()
    sg.remove_geometry(scene.src, rendered)
    assert _changed(before, scene.version()) == {'proximity', 'perception'}
    plain = sg.register_geometry(scene.src, scene.base, _inst('p'))
    before = scene.version()
    sg.remove_geometry(scene.src, plain)
    assert _changed(before, scene.version()) == set()  # Drake: only the roles it had
    illustrated = sg.register_geometry(scene.src, scene.base,
                                       _inst('i', props=(IllustrationProperties(),)))
    before = scene.version()
    sg.remove_geometry(scene.src, illustrated)
    assert _changed(before, scene.version()) == {'illustration'}


def test_versions_g32_remove_geometry_counts_cascaded_children(scene: Scene) -> None:
    sg = scene.sg
    sg.add_renderer('vtk', object())
    root = sg.register_geometry(scene.src, scene.base, _inst('root'))
    sg.register_geometry_relative(scene.src, root, _inst('c', props=(PerceptionProperties(),)))
    before = scene.version()
    sg.remove_geometry(scene.src, root)
    assert _changed(before, scene.version()) == {'perception'}  # the child's rendered role


def test_versions_g32_change_shape_changes_assigned_roles(scene: Scene) -> None:
    sg = scene.sg
    gid = sg.register_geometry(scene.src, scene.base,
                               _inst(props=(ProximityProperties(), IllustrationProperties())))
    before = scene.version()
    sg.change_shape(scene.src, gid, Box(1, 1, 1))
    assert _changed(before, scene.version()) == {'proximity', 'illustration'}
    bare = sg.register_geometry(scene.src, scene.base, _inst('bare'))
    before = scene.version()
    sg.change_shape(scene.src, bare, Box(1, 1, 1))
    assert _changed(before, scene.version()) == set()
    sg.add_renderer('vtk', object())
    seen = sg.register_geometry(scene.src, scene.base, _inst('seen', props=(
        PerceptionProperties(),)))
    before = scene.version()
    sg.change_shape(scene.src, seen, Box(1, 1, 1), _X(1))
    assert _changed(before, scene.version()) == {'perception'}


def test_versions_g32_register_with_properties_changes_those_roles(scene: Scene) -> None:
    before = scene.version()
    scene.sg.register_geometry(scene.src, scene.base,
                               _inst(props=(IllustrationProperties(), PerceptionProperties())))
    assert _changed(before, scene.version()) == {'illustration'}  # no renderer for perception
    before = scene.version()
    scene.sg.register_anchored_geometry(scene.src, _inst('a', props=(ProximityProperties(),)))
    assert _changed(before, scene.version()) == {'proximity'}


def test_versions_g32_renames_change_nothing(scene: Scene) -> None:
    gid = scene.sg.register_geometry(
        scene.src, scene.base,
        _inst(props=(ProximityProperties(), IllustrationProperties(), PerceptionProperties())))
    scene.sg.add_renderer('vtk', object())
    before = scene.version()
    scene.sg.rename_geometry(gid, 'renamed')
    scene.sg.rename_frame(scene.base, 'renamed_base')
    assert _changed(before, scene.version()) == set()


def test_versions_g32_collision_filter_manager_changes_proximity(scene: Scene) -> None:
    before = scene.version()
    manager = scene.sg.collision_filter_manager()
    after_acquire = scene.version()
    assert _changed(before, after_acquire) == {'proximity'}
    manager.apply(CollisionFilterDeclaration())
    assert _changed(after_acquire, scene.version()) == {'proximity'}  # [D] apply bumps too


def test_versions_g32_renderers(scene: Scene) -> None:
    sg = scene.sg
    before = scene.version()
    sg.add_renderer('empty', object())  # nothing to accept
    assert _changed(before, scene.version()) == set()
    gid = sg.register_geometry(scene.src, scene.base, _inst(props=(PerceptionProperties(),)))
    before = scene.version()
    sg.add_renderer('vtk', object())
    assert _changed(before, scene.version()) == {'perception'}
    assert scene.insp.get_renderers(gid) == ('empty', 'vtk')
    before = scene.version()
    sg.remove_renderer('vtk')
    assert _changed(before, scene.version()) == {'perception'}
    assert scene.insp.get_renderers(gid) == ('empty',)
    sg.remove_role(scene.src, gid, Role.PERCEPTION)
    before = scene.version()
    sg.remove_renderer('empty')  # held nothing: Drake bumps perception all the same
    assert _changed(before, scene.version()) == {'perception'}


def test_versions_are_values_not_counters_per_instance() -> None:
    a, b = SceneGraph(), SceneGraph()
    va, vb = a.model_inspector().geometry_version(), b.model_inspector().geometry_version()
    for role in (Role.PROXIMITY, Role.ILLUSTRATION, Role.PERCEPTION):
        assert not va.is_same_as(vb, role)  # two registries never share a version
        assert va.is_same_as(va, role)
    assert va.get(Role.PROXIMITY) == va.proximity
    with pytest.raises(InvalidArgumentError):
        va.get(Role.UNASSIGNED)


# ------------------------------------------------------------------------------ renderers


def test_renderer_bookkeeping(scene: Scene) -> None:
    sg = scene.sg

    class FakeEngine:
        pass

    assert sg.renderer_count() == 0 and not sg.has_renderer('a')
    sg.add_renderer('a', FakeEngine())
    sg.add_renderer('b', object())
    assert sg.renderer_count() == 2 and sg.has_renderer('a')
    assert sg.registered_renderer_names() == ['a', 'b']
    assert sg.get_renderer_type_name('a').endswith('FakeEngine')
    assert sg.get_renderer_type_name('b') == 'builtins.object'
    assert sg.get_renderer_type_name('missing') == ''
    with pytest.raises(Err, match=r"name 'a' already exists.*G-20"):
        sg.add_renderer('a', object())
    with pytest.raises(InvalidArgumentError):
        sg.add_renderer('c', None)
    sg.remove_renderer('a')
    assert sg.registered_renderer_names() == ['b']
    with pytest.raises(Err, match=r"name 'a' does not exist.*G-21"):
        sg.remove_renderer('a')


def test_renderer_accepting_whitelist_and_order_independence(scene: Scene) -> None:
    sg = scene.sg
    only_gl = PerceptionProperties()
    only_gl.add_property(*roles.RENDERER_ACCEPTING, {'gl'})
    empty = PerceptionProperties()
    empty.add_property(*roles.RENDERER_ACCEPTING, set())  # empty: every renderer
    g_gl = sg.register_geometry(scene.src, scene.base, _inst('gl', props=(only_gl,)))
    sg.add_renderer('vtk', object())
    g_all = sg.register_geometry(scene.src, scene.base, _inst('all', props=(empty,)))
    sg.add_renderer('gl', object())
    assert scene.insp.get_renderers(g_gl) == ('gl',)
    assert scene.insp.get_renderers(g_all) == ('gl', 'vtk')


# ------------------------------------------------------------------------------ collision filters


def test_same_frame_rigid_geometries_are_filtered(scene: Scene) -> None:
    sg, insp, prox = scene.sg, scene.insp, (ProximityProperties(),)
    a = sg.register_geometry(scene.src, scene.link1, _inst('a', props=prox))
    b = sg.register_geometry(scene.src, scene.link1, _inst('b', props=prox))
    c = sg.register_geometry(scene.src, scene.link2, _inst('c', props=prox))
    w1 = sg.register_anchored_geometry(scene.other, _inst('w1', props=prox))
    w2 = sg.register_anchored_geometry(scene.src, _inst('w2', props=prox))
    assert insp.collision_filtered(a, b)  # G-30 same frame
    assert insp.collision_filtered(a, a)
    assert not insp.collision_filtered(a, c)  # parent/child frames: SceneGraph adds nothing
    assert insp.collision_filtered(w1, w2)  # anchored share the world frame
    assert not insp.collision_filtered(a, w1)
    cands = insp.get_collision_candidates()
    expected = {tuple(sorted(p)) for p in [(a, c), (b, c), (a, w1), (a, w2), (b, w1), (b, w2),
                                           (c, w1), (c, w2)]}
    assert set(cands) == expected and len(cands) == len(expected)
    assert all(x < y for x, y in cands)
    array = insp.get_collision_candidate_array()
    assert array.shape == (8, 2) and array.dtype == np.int64
    assert [tuple(row) for row in array.tolist()] == cands


def test_collision_filtered_needs_proximity(scene: Scene) -> None:
    a = scene.sg.register_geometry(scene.src, scene.link1, _inst('a'))
    b = scene.sg.register_geometry(scene.src, scene.link2, _inst('b',
                                                                  props=(ProximityProperties(),)))
    with pytest.raises(Err, match=r"geometry 'a'.*no proximity role"):
        scene.insp.collision_filtered(a, b)
    with pytest.raises(Err):
        scene.insp.collision_filtered(b, GeometryId(10**9))


def test_filter_manager_exclude_and_allow(scene: Scene) -> None:
    sg, insp, prox = scene.sg, scene.insp, (ProximityProperties(),)
    a = sg.register_geometry(scene.src, scene.link1, _inst('a', props=prox))
    b = sg.register_geometry(scene.src, scene.link2, _inst('b', props=prox))
    c = sg.register_geometry(scene.src, scene.base, _inst('c', props=prox))
    d = sg.register_geometry(scene.other, scene.oframe, _inst('d', props=prox))
    manager = sg.collision_filter_manager()
    manager.apply(exclude_between(GeometrySet([a]), GeometrySet(frame_ids=[scene.link2])))
    assert insp.collision_filtered(a, b) and insp.collision_filtered(b, a)
    assert not insp.collision_filtered(a, c)
    manager.exclude_within([c, scene.oframe, b])  # plain ids: frames and geometries mixed
    assert insp.collision_filtered(c, d) and insp.collision_filtered(b, d)
    assert insp.collision_filtered(b, c)
    assert not insp.collision_filtered(a, d)
    assert set(insp.get_collision_candidates()) == {tuple(sorted((a, c))), tuple(sorted((a, d)))}
    manager.allow_between([a], [b])
    assert not insp.collision_filtered(a, b)
    manager.allow_within(GeometrySet([b, c, d]))
    assert not any(insp.collision_filtered(x, y) for x, y in [(b, c), (c, d), (b, d)])
    manager.apply(CollisionFilterDeclaration().exclude_within([a, b]).allow_between([a], [b]))
    assert not insp.collision_filtered(a, b)  # statements apply in order


def test_filter_allow_cannot_undo_same_frame_filter(scene: Scene) -> None:
    prox = (ProximityProperties(),)
    a = scene.sg.register_geometry(scene.src, scene.link1, _inst('a', props=prox))
    b = scene.sg.register_geometry(scene.src, scene.link1, _inst('b', props=prox))
    scene.sg.collision_filter_manager().allow_within([a, b])
    assert scene.insp.collision_filtered(a, b)


def test_filter_declaration_is_atomic_and_validates_ids(scene: Scene) -> None:
    prox = (ProximityProperties(),)
    a = scene.sg.register_geometry(scene.src, scene.link1, _inst('a', props=prox))
    b = scene.sg.register_geometry(scene.src, scene.link2, _inst('b', props=prox))
    manager = scene.sg.collision_filter_manager()
    declaration = exclude_within([a, b]).exclude_within(GeometrySet([GeometryId(10**9)]))
    with pytest.raises(Err, match='geometry id 1000000000 is not registered'):
        manager.apply(declaration)
    assert not scene.insp.collision_filtered(a, b)  # the first statement was not applied
    with pytest.raises(Err, match='frame id'):
        manager.apply(exclude_within(GeometrySet(frame_ids=[FrameId(10**9)])))
    with pytest.raises(Err, match='neither a registered frame'):
        manager.exclude_within([a, 10**9])
    with pytest.raises(InvalidArgumentError):
        manager.apply(exclude_within([a]).statements())  # type: ignore[arg-type]


def test_filters_apply_to_proximity_geometries_at_apply_time(scene: Scene) -> None:
    sg, insp = scene.sg, scene.insp
    a = sg.register_geometry(scene.src, scene.link1, _inst('a', props=(ProximityProperties(),)))
    late = sg.register_geometry(scene.src, scene.link2, _inst('late'))  # no proximity yet
    sg.collision_filter_manager().exclude_between([scene.link1], [scene.link2])
    sg.assign_role(scene.src, late, ProximityProperties())
    assert not insp.collision_filtered(a, late)  # it had no proximity role when applied
    newcomer = sg.register_geometry(scene.src, scene.link2,
                                    _inst('new', props=(ProximityProperties(),)))
    sg.collision_filter_manager().exclude_between([scene.link1], [scene.link2])
    assert insp.collision_filtered(a, late) and insp.collision_filtered(a, newcomer)
    sg.remove_role(scene.src, late, Role.PROXIMITY)  # losing proximity drops its filters
    sg.assign_role(scene.src, late, ProximityProperties())
    assert not insp.collision_filtered(a, late)
    assert insp.collision_filtered(a, newcomer)


def test_remove_geometry_purges_its_filters(scene: Scene) -> None:
    prox = (ProximityProperties(),)
    a = scene.sg.register_geometry(scene.src, scene.link1, _inst('a', props=prox))
    b = scene.sg.register_geometry(scene.src, scene.link2, _inst('b', props=prox))
    scene.sg.collision_filter_manager().exclude_within([a, b])
    scene.sg.remove_geometry(scene.src, b)
    assert scene.sg._gs.excluded == set()
    b2 = scene.sg.register_geometry(scene.src, scene.link2, _inst('b', props=prox))
    assert not scene.insp.collision_filtered(a, b2)


# ------------------------------------------------------------------------------ poses (G-C5, C11)


def test_compute_world_poses_matches_manual_products() -> None:
    rng = np.random.default_rng(7)
    s = Scene()
    sg, insp, prox = s.sg, s.insp, (ProximityProperties(),)
    branch = sg.register_frame(s.src, GeometryFrame('branch'), s.base)
    deep = sg.register_frame(s.other, GeometryFrame('deep'), s.oframe)

    def add(source: SourceId, frame: FrameId, name: str,
            props: tuple[object, ...] = ()) -> GeometryId:
        return sg.register_geometry(source, frame, _inst(name, _random_pose(rng), props=props))

    ids = {
        'g_base': add(s.src, s.base, 'g0'),
        'g_link2': add(s.src, s.link2, 'g2', prox),
        'anchored': sg.register_anchored_geometry(s.other, _inst('w', _random_pose(rng))),
        'g_branch': add(s.src, branch, 'gb', prox),
        'g_deep': add(s.other, deep, 'gd'),
        'g_link1': add(s.src, s.link1, 'g1'),
    }
    X_PF = {f: _random_pose(rng) for f in sg.frame_ids()}
    X_WF = {sg.world_frame_id(): np.eye(4), s.base: X_PF[s.base], s.oframe: X_PF[s.oframe]}
    X_WF[s.link1] = X_WF[s.base] @ X_PF[s.link1]
    X_WF[s.link2] = X_WF[s.link1] @ X_PF[s.link2]
    X_WF[branch] = X_WF[s.base] @ X_PF[branch]
    X_WF[deep] = X_WF[s.oframe] @ X_PF[deep]
    order = insp.get_all_geometry_ids()
    assert order == tuple(ids.values())  # registration order
    expected = np.stack([X_WF[insp.get_frame_id(g)] @ insp.get_pose_in_frame(g) for g in order])
    X_WG = sg.compute_world_poses(X_PF)
    assert X_WG.shape == (6, 4, 4)
    np.testing.assert_allclose(X_WG, expected, atol=1e-12)
    frame_order = sg.frame_ids()
    np.testing.assert_allclose(sg.compute_frame_world_poses(X_PF),
                               np.stack([X_WF[f] for f in frame_order]), atol=1e-12)
    # the (ids, array) form, in frame_ids() order and permuted
    stack = np.stack([X_PF[f] for f in frame_order])
    np.testing.assert_allclose(sg.compute_world_poses((frame_order, stack)), expected, atol=1e-12)
    perm = rng.permutation(len(frame_order))
    permuted = ([frame_order[i] for i in perm], stack[perm])
    np.testing.assert_allclose(sg.compute_world_poses(permuted), expected, atol=1e-12)
    # role filter keeps the order of get_all_geometry_ids(role)
    prox_ids = insp.get_all_geometry_ids(Role.PROXIMITY)
    assert prox_ids == (ids['g_link2'], ids['g_branch'])
    np.testing.assert_allclose(sg.compute_world_poses(X_PF, Role.PROXIMITY),
                               expected[[order.index(g) for g in prox_ids]], atol=1e-12)
    unassigned = insp.get_all_geometry_ids(Role.UNASSIGNED)
    assert len(sg.compute_world_poses(X_PF, Role.UNASSIGNED)) == len(unassigned) == 4


def test_compute_world_poses_follows_model_edits(scene: Scene) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.link1, _inst('g', _X(1)))
    poses = {f: _X(0, 0, 1) for f in scene.sg.frame_ids()}
    np.testing.assert_allclose(scene.sg.compute_world_poses(poses)[0], _X(1, 0, 2))
    scene.sg.change_shape(scene.src, gid, Box(1, 1, 1), _X(2))
    np.testing.assert_allclose(scene.sg.compute_world_poses(poses)[0], _X(2, 0, 2))
    late = scene.sg.register_frame(scene.src, GeometryFrame('late'), scene.link2)
    with pytest.raises(InvalidArgumentError, match="missing frame 'late'"):
        scene.sg.compute_world_poses(poses)
    poses[late] = _X(0, 0, 1)
    scene.sg.register_geometry(scene.src, late, _inst('on_late'))
    np.testing.assert_allclose(scene.sg.compute_world_poses(poses)[1], _X(0, 0, 4))


def test_compute_world_poses_empty_registry() -> None:
    sg = SceneGraph()
    assert sg.compute_world_poses({}).shape == (0, 4, 4)
    src = sg.register_source('s')
    sg.register_anchored_geometry(src, _inst('a', _X(1)))
    np.testing.assert_allclose(sg.compute_world_poses(((), np.zeros((0, 4, 4)))), [_X(1)])


def test_compute_world_poses_contract_errors(scene: Scene) -> None:
    sg = scene.sg
    good = {f: np.eye(4) for f in sg.frame_ids()}
    missing = dict(good)
    del missing[scene.link2]
    del missing[scene.oframe]
    with pytest.raises(InvalidArgumentError,
                       match=r"source 'robot'.*missing frame 'link2'.*source 'other'.*G-C11"):
        sg.compute_world_poses(missing)
    with pytest.raises(InvalidArgumentError, match=r'unregistered id 1000000000.*G-C11'):
        sg.compute_world_poses({**good, FrameId(10**9): np.eye(4)})
    with pytest.raises(InvalidArgumentError, match='world frame'):
        sg.compute_world_poses({**good, sg.world_frame_id(): np.eye(4)})
    bad = dict(good)
    bad[scene.link1] = np.full((4, 4), np.inf)
    with pytest.raises(InvalidArgumentError, match=r"frame 'link1'.*source 'robot'.*not finite"):
        sg.compute_world_poses(bad)
    bad[scene.link1] = np.eye(3)
    with pytest.raises(InvalidArgumentError, match=r"frame 'link1'.*\(4, 4\)"):
        sg.compute_world_poses(bad)
    ids = sg.frame_ids()
    with pytest.raises(InvalidArgumentError, match='more than one pose'):
        sg.compute_world_poses(((*ids[:-1], ids[0]), np.stack([np.eye(4)] * len(ids))))
    with pytest.raises(InvalidArgumentError, match=r'\(4, 4, 4\) pose array'):
        sg.compute_world_poses((ids, np.zeros((3, 4, 4))))
    with pytest.raises(InvalidArgumentError):
        sg.compute_frame_world_poses(42)  # type: ignore[arg-type]


def test_compute_world_poses_deep_chain() -> None:
    """A 30-frame chain composes to the 30th power of the step (closed form)."""
    sg = SceneGraph()
    src = sg.register_source('chain')
    parent = None
    frames = []
    for k in range(30):
        parent = sg.register_frame(src, GeometryFrame(f'f{k}'), parent)
        frames.append(parent)
        sg.register_geometry(src, parent, _inst(f'g{k}'))
    step = _X(0.1, 0, 0, yaw=0.1)
    X_WG = sg.compute_world_poses(dict.fromkeys(frames, step))
    np.testing.assert_allclose(X_WG[-1], np.linalg.matrix_power(step, 30), atol=1e-12)
    np.testing.assert_allclose(X_WG[9], np.linalg.matrix_power(step, 10), atol=1e-12)


# ------------------------------------------------------------------------------ deformable (G-16)


def test_register_deformable_from_mesh_file(scene: Scene) -> None:
    X_WG = _X(1, 2, 3, yaw=np.pi / 2)
    shape = Mesh(uri=f'file://{TETRA}', scale=(2.0, 2.0, 2.0))
    world = scene.sg.world_frame_id()
    gid = scene.sg.register_deformable_geometry(scene.src, world, _inst('cloth', X_WG, shape),
                                                0.05)
    insp = scene.insp
    assert insp.is_deformable(gid) and insp.get_frame_id(gid) == world
    assert insp.num_deformable_geometries() == 1 and insp.num_anchored_geometries() == 0
    assert insp.get_all_deformable_geometry_ids() == (gid,)
    mesh = insp.get_reference_mesh(gid)
    assert mesh is not None
    expected = (2.0 * TETRA_VERTICES) @ X_WG[:3, :3].T + X_WG[:3, 3]
    np.testing.assert_allclose(mesh.vertices, expected, atol=1e-12)
    assert mesh.faces.shape == (4, 3) and not mesh.vertices.flags.writeable
    np.testing.assert_allclose(insp.get_deformable_configuration(gid), expected, atol=1e-12)


def test_deformable_configuration_update(scene: Scene) -> None:
    world = scene.sg.world_frame_id()
    gid = scene.sg.register_deformable_geometry(
        scene.src, world, _inst('d', shape=Mesh('package://x/y.obj')), 0.1,
        vertices_G=TETRA_VERTICES, faces=[[0, 1, 2], [0, 2, 3]])
    before = scene.version()
    q = TETRA_VERTICES + 0.25
    scene.sg.set_deformable_configuration(gid, q)
    np.testing.assert_array_equal(scene.sg.get_deformable_configuration(gid), q)
    np.testing.assert_array_equal(scene.insp.get_deformable_configuration(gid), q)
    reference = scene.insp.get_reference_mesh(gid)
    assert reference is not None
    np.testing.assert_array_equal(reference.vertices, TETRA_VERTICES)
    assert _changed(before, scene.version()) == set()  # kinematics, not model data
    with pytest.raises(InvalidArgumentError, match=r'shape \(4, 3\)'):
        scene.sg.set_deformable_configuration(gid, q[:3])
    q[0, 0] = np.nan
    with pytest.raises(InvalidArgumentError, match='non-finite'):
        scene.sg.set_deformable_configuration(gid, q)
    rigid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    with pytest.raises(Err, match='not deformable'):
        scene.sg.set_deformable_configuration(rigid, q)
    assert scene.insp.get_reference_mesh(rigid) is None  # Drake: nullptr for rigid geometry
    with pytest.raises(Err, match='G-16'):
        scene.insp.get_reference_mesh(GeometryId(10**9))
    with pytest.raises(Err, match='not deformable'):
        scene.sg.get_deformable_configuration(rigid)


def test_register_deformable_errors(scene: Scene) -> None:
    sg, world = scene.sg, scene.sg.world_frame_id()
    mesh = Mesh(str(TETRA))
    with pytest.raises(Err, match='G-16 a'):
        sg.register_deformable_geometry(SourceId(10**9), world, _inst(shape=mesh), 0.1)
    with pytest.raises(Err, match=r"world frame.*frame 'base'.*G-16 b"):
        sg.register_deformable_geometry(scene.src, scene.base, _inst(shape=mesh), 0.1)
    with pytest.raises(Err, match='G-16 c'):
        sg.register_deformable_geometry(scene.src, world, None, 0.1)  # type: ignore[arg-type]
    for hint in (0.0, -1.0, float('nan'), float('inf')):
        with pytest.raises(Err, match='resolution_hint'):
            sg.register_deformable_geometry(scene.src, world, _inst(shape=mesh), hint)
    with pytest.raises(Err, match='resolution_hint'):
        sg.register_deformable_geometry(scene.src, world, _inst(shape=mesh), 'a')  # type: ignore[arg-type]
    for shape in (Box(1, 1, 1), Cylinder(1.0, 2.0), Capsule(1.0, 2.0), HalfSpace()):
        with pytest.raises(Err, match=r"don't yet generate deformable meshes for "
                                      f'{type(shape).__name__}'):
            sg.register_deformable_geometry(scene.src, world, _inst(shape=shape), 0.1)
    with pytest.raises(Err, match='G-16 d'):
        sg.register_deformable_geometry(scene.src, world, _inst(' ', shape=mesh), 0.1)
    with pytest.raises(InvalidArgumentError, match='not resolved'):
        sg.register_deformable_geometry(scene.src, world, _inst(shape=Mesh('package://a/b.stl')),
                                        0.1)
    with pytest.raises(InvalidArgumentError, match='cannot read'):
        sg.register_deformable_geometry(scene.src, world, _inst(shape=Mesh('/no/such.stl')), 0.1)
    with pytest.raises(InvalidArgumentError, match='vertices_G'):
        sg.register_deformable_geometry(scene.src, world, _inst(shape=mesh), 0.1,
                                        vertices_G=np.zeros((3, 2)))
    with pytest.raises(InvalidArgumentError, match='faces'):
        sg.register_deformable_geometry(scene.src, world, _inst(shape=mesh), 0.1,
                                        vertices_G=TETRA_VERTICES, faces=[[0, 1, 4]])
    assert scene.insp.num_geometries() == 0


def test_deformable_is_not_reshaped_posed_on_or_implicitly_filtered(scene: Scene) -> None:
    sg, world, prox = scene.sg, scene.sg.world_frame_id(), (ProximityProperties(),)
    d = sg.register_deformable_geometry(scene.src, world, _inst('d', shape=Mesh(str(TETRA)),
                                                                props=prox), 0.1)
    anchored = sg.register_anchored_geometry(scene.src, _inst('floor', props=prox))
    with pytest.raises(Err, match='G-18 d'):
        sg.change_shape(scene.src, d, Box(1, 1, 1))
    with pytest.raises(Err, match='relative to deformable'):
        sg.register_geometry_relative(scene.src, d, _inst('x'))
    assert not scene.insp.collision_filtered(d, anchored)  # G-30: none for deformables
    assert scene.insp.get_collision_candidates() == [tuple(sorted((d, anchored)))]
    X_WG = sg.compute_world_poses({f: np.eye(4) for f in sg.frame_ids()})
    np.testing.assert_allclose(X_WG, np.eye(4)[None].repeat(2, axis=0))
    sg.remove_geometry(scene.src, d)
    assert scene.insp.num_deformable_geometries() == 0


# ------------------------------------------------------------------------------ inspector misc


def test_inspector_role_queries(scene: Scene) -> None:
    sg, insp = scene.sg, scene.insp
    a = sg.register_geometry(scene.src, scene.base, _inst('a', props=(ProximityProperties(),)))
    b = sg.register_geometry(scene.src, scene.base, _inst('b', props=(
        ProximityProperties(), IllustrationProperties())))
    c = sg.register_geometry(scene.src, scene.link1, _inst('c'))
    assert insp.get_all_geometry_ids() == (a, b, c)
    assert insp.get_all_geometry_ids(Role.PROXIMITY) == (a, b)
    assert insp.get_all_geometry_ids(Role.ILLUSTRATION) == (b,)
    assert insp.get_all_geometry_ids(Role.PROXIMITY | Role.ILLUSTRATION) == (b,)
    assert insp.get_all_geometry_ids(Role.UNASSIGNED) == (c,)
    assert insp.get_geometry_ids(scene.base, Role.ILLUSTRATION) == (b,)
    assert insp.num_geometries_with_role(Role.PROXIMITY) == 2
    with pytest.raises(Err):
        insp.get_geometry_ids(FrameId(10**9))
    with pytest.raises(Err, match='not a registered source, frame or geometry'):
        insp.get_name(GeometryId(10**9))
    with pytest.raises(Err, match='not a registered frame or geometry'):
        insp.get_owning_source_name(FrameId(10**9))
    props = insp.get_proximity_properties(a)
    assert props is not None
    props.add_property('x', 'y', 1)  # a copy: the registry is untouched
    assert insp.get_proximity_properties(a) == ProximityProperties()


def test_geometry_package_imports_no_fcl() -> None:
    code = ('import sys, robot_state_core.geometry as g; g.SceneGraph(); '
            'assert "fcl" not in sys.modules, "fcl imported"')
    subprocess.run([sys.executable, '-c', code], check=True, timeout=60)


# ------------------------------------------------------------------------------ properties


def test_properties_add_get_update_remove() -> None:
    p = ProximityProperties()
    assert p.role == Role.PROXIMITY and p.num_groups() == 0
    p.add_property(*roles.HYDROELASTIC_MODULUS, 5e7)
    p.add_property('hydroelastic', 'compliance_type', 'soft')
    assert p.has_group('hydroelastic') and p.has_property('hydroelastic', 'hydroelastic_modulus')
    assert p.get_group_names() == ('hydroelastic',)
    assert p.get_properties_in_group('hydroelastic') == {'hydroelastic_modulus': 5e7,
                                                         'compliance_type': 'soft'}
    with pytest.raises(InvalidArgumentError, match='already exists'):
        p.add_property(*roles.HYDROELASTIC_MODULUS, 1.0)
    p.update_property(*roles.HYDROELASTIC_MODULUS, 1)  # int for float: same kind
    p.update_property('new', 'value', True)  # update adds
    with pytest.raises(InvalidArgumentError, match='holds a bool'):
        p.update_property('new', 'value', 1)
    with pytest.raises(InvalidArgumentError, match='holds a str'):
        p.update_property('hydroelastic', 'compliance_type', 3.0)
    assert p.get_property(*roles.HYDROELASTIC_MODULUS) == 1
    assert p.get_property_or_default('nope', 'x', 2.5) == 2.5
    assert p.get_property_or_default('hydroelastic', 'compliance_type', 'rigid') == 'soft'
    with pytest.raises(InvalidArgumentError):
        p.get_property_or_default('hydroelastic', 'compliance_type', 1.0)
    with pytest.raises(UnknownNameError, match='property group'):
        p.get_property('nope', 'x')
    with pytest.raises(KeyError):
        p.get_property('hydroelastic', 'nope')
    with pytest.raises(UnknownNameError):
        p.get_properties_in_group('nope')
    assert p.remove_property('new', 'value') and not p.remove_property('new', 'value')
    assert p.has_group('new') and not p.remove_property('absent', 'x')
    with pytest.raises(InvalidArgumentError):
        p.add_property('g', 3, 1)  # type: ignore[arg-type]
    assert ('hydroelastic', 'compliance_type', 'soft') in list(p.items())
    assert 'hydroelastic_modulus' in repr(p)


def test_properties_copy_and_equality() -> None:
    p = PerceptionProperties()
    p.add_property(*roles.RENDERER_ACCEPTING, {'a'})
    q = p.copy()
    assert isinstance(q, PerceptionProperties) and q == p and q is not p
    q.get_property(*roles.RENDERER_ACCEPTING).add('b')  # deep copy
    assert p.get_property(*roles.RENDERER_ACCEPTING) == {'a'}
    assert p != q
    assert ProximityProperties() != IllustrationProperties()
    assert GeometryProperties().role == Role.UNASSIGNED


def test_make_phong_illustration_properties() -> None:
    p = make_phong_illustration_properties([1, 0.5, 0, 1])
    assert p.get_property(*roles.DIFFUSE) == (1.0, 0.5, 0.0, 1.0)
    for bad in ((1, 0, 0), (1, 0, 0, 2), (0, 0, 0, float('nan'))):
        with pytest.raises(InvalidArgumentError):
            make_phong_illustration_properties(bad)


@pytest.mark.parametrize('make_props', [ProximityProperties, IllustrationProperties])
def test_role_inferred_from_properties_type(scene: Scene,
                                            make_props: Callable[[], object]) -> None:
    gid = scene.sg.register_geometry(scene.src, scene.base, _inst())
    props = make_props()
    scene.sg.assign_role(scene.src, gid, props)  # type: ignore[arg-type]
    assert scene.insp.get_roles(gid) == props.role  # type: ignore[attr-defined]
