"""Mesh colours and missing-mesh messages of the browser viewer's scene (no browser).

Origins of the cases:

* Panda: example-robot-data's ``panda_description/meshes/visual/*.dae`` (Franka Emika's meshes,
  exported from Blender) and its URDF, whose visuals name no material. The oracle reads the
  COLLADA XML with ``xml.etree`` (effect ``<diffuse><color>``, reached through
  ``<instance_material>`` and ``<instance_effect>``; faces counted from ``<triangles count>``),
  independently of trimesh; the geometry oracle is :func:`load_mesh`, what the viewer drew
  before colours were read, itself checked against ``trimesh.load_mesh``.
* OBJ + MTL, GLB, PLY with face colours, PLY with vertex colours: generated here in
  ``tmp_path``, each colour given to a known number of triangles.
* Missing file / missing package: a package directory (with ``package.xml``) made here without
  the mesh file, and a URI naming a package that exists nowhere.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
import xml.etree.ElementTree as ET

import numpy as np
from numpy.typing import NDArray
import pytest
import robot_corpus
import trimesh

from robot_state_core.errors import RobotDescriptionError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import Mesh
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.robot_geometry import DEFAULT_DIFFUSE
from robot_state_core.viewer.scene_meshes import COLLISION_COLOR, element_meshes, ElementMesh

COLLADA = '{http://www.collada.org/2005/11/COLLADASchema}'


def _corners(vertices: NDArray[np.float64], faces: NDArray[np.int64]) -> NDArray[np.float64]:
    """Each triangle as its 9 corner coordinates, rows sorted: geometry independent of indexing."""
    tris = vertices[faces].reshape(-1, 9)
    return tris[np.lexsort(tris.T[::-1])]


def _union_matches_load_mesh(parts: list[ElementMesh], path: str,
                             scale: tuple[float, float, float]) -> None:
    v, f = meshes.load_mesh(path, scale)
    np.testing.assert_array_equal(
        _corners(np.concatenate([p.vertices for p in parts]),
                 np.concatenate([p.faces + sum(len(q.vertices) for q in parts[:i])
                                 for i, p in enumerate(parts)])),
        _corners(np.asarray(v), np.asarray(f)))


def _dae_diffuse_faces(path: Path) -> Counter[tuple[int, ...]]:
    """``{8-bit diffuse RGBA: triangle count}`` of a COLLADA file, read with xml.etree."""
    root = ET.parse(path).getroot()
    diffuse = {e.get('id'): [float(x) for x in e.find(f'.//{COLLADA}diffuse/{COLLADA}color')
                             .text.split()]
               for e in root.iter(f'{COLLADA}effect')}
    effect_of = {m.get('id'): m.find(f'{COLLADA}instance_effect').get('url')[1:]
                 for m in root.iter(f'{COLLADA}material')}
    geometries = {g.get('id'): g for g in root.iter(f'{COLLADA}geometry')}
    out: Counter[tuple[int, ...]] = Counter()
    for instance in root.iter(f'{COLLADA}instance_geometry'):
        bound = {b.get('symbol'): b.get('target')[1:]
                 for b in instance.iter(f'{COLLADA}instance_material')}
        for triangles in geometries[instance.get('url')[1:]].iter(f'{COLLADA}triangles'):
            rgba = diffuse[effect_of[bound[triangles.get('material')]]]
            out[tuple(round(255 * c) for c in rgba)] += int(triangles.get('count'))
    return out


def _by_element(parts: list[ElementMesh]) -> dict[tuple[str, int], list[ElementMesh]]:
    out: dict[tuple[str, int], list[ElementMesh]] = {}
    for e in parts:
        out.setdefault((e.link, e.index), []).append(e)
    return out


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    r = robot_corpus.test_robot('panda')
    return RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)


def test_panda_is_drawn_in_the_diffuse_colours_of_its_dae_files(panda: RobotModel) -> None:
    visuals, warnings = element_meshes(panda, 'visual')
    assert warnings == []
    elements = _by_element(visuals)
    assert len(elements) == sum(len(link.visuals) for link in panda.links) == 11
    for (link, index), parts in elements.items():
        shape = panda.link(link).visuals[index].geometry
        assert isinstance(shape, Mesh) and shape.path is not None and shape.path.endswith('.dae')
        assert panda.link(link).visuals[index].material is None  # the URDF gives no colour
        assert [p.part for p in parts] == list(range(len(parts)))
        assert all(p.X_LE is parts[0].X_LE for p in parts)
        drawn = Counter({tuple(round(255 * c) for c in p.rgba): len(p.faces) for p in parts})
        assert len(drawn) == len(parts), link  # one part per colour
        assert drawn == _dae_diffuse_faces(Path(shape.path)), link
        _union_matches_load_mesh(parts, shape.path, shape.scale)
        # load_mesh is what trimesh.load_mesh gives (what it returned before colours were read)
        raw = trimesh.load_mesh(shape.path)
        v, f = meshes.load_mesh(shape.path, shape.scale)
        assert shape.scale == (1.0, 1.0, 1.0)
        np.testing.assert_array_equal(v, raw.vertices)
        np.testing.assert_array_equal(f, raw.faces)
    # dark grey and white both appear (before: every link in one light grey)
    assert {(64, 64, 64, 255), (255, 255, 255, 255)} <= {
        tuple(round(255 * c) for c in e.rgba) for e in visuals}


def _two_material_obj(tmp_path: Path) -> Path:
    (tmp_path / 'two.mtl').write_text('newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n')
    obj = tmp_path / 'two.obj'
    obj.write_text('mtllib two.mtl\n'
                   'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\n'
                   'usemtl red\nf 1 2 3\nf 1 3 4\nf 2 3 5\n'
                   'usemtl blue\nf 1 2 4\n')
    return obj


def _one_visual(path: Path, material: str = '') -> RobotModel:
    return RobotModel.from_urdf_string(
        f'<robot name="r"><link name="base"><visual><geometry><mesh filename="file://{path}" '
        f'scale="2 2 2"/></geometry>{material}</visual></link></robot>')


@pytest.mark.parametrize('material', ['', '<material name="unnamed"/>'])
def test_obj_with_two_mtl_materials_gives_two_parts(tmp_path: Path, material: str) -> None:
    # generated: three red triangles, one blue; the URDF gives no colour (no <color>)
    obj = _two_material_obj(tmp_path)
    parts, warnings = element_meshes(_one_visual(obj, material), 'visual')
    assert warnings == []
    assert [(p.part, p.rgba, len(p.faces)) for p in parts] == [
        (0, (1.0, 0.0, 0.0, 1.0), 3), (1, (0.0, 0.0, 1.0, 1.0), 1)]
    _union_matches_load_mesh(parts, str(obj), (2.0, 2.0, 2.0))


def test_a_urdf_colour_wins_over_the_mesh_materials(tmp_path: Path) -> None:
    obj = _two_material_obj(tmp_path)
    model = _one_visual(obj, '<material name="green"><color rgba="0 1 0 0.5"/></material>')
    parts, _ = element_meshes(model, 'visual')
    assert [(p.part, p.rgba, len(p.faces)) for p in parts] == [(0, (0.0, 1.0, 0.0, 0.5), 4)]
    collision, _ = element_meshes(RobotModel.from_urdf_string(
        f'<robot name="r"><link name="base"><collision><geometry><mesh filename="file://{obj}"/>'
        '</geometry></collision></link></robot>'), 'collision')
    assert [(p.part, p.rgba, len(p.faces)) for p in collision] == [(0, COLLISION_COLOR, 4)]


def test_a_mesh_without_colours_is_one_part_in_drakes_grey(tmp_path: Path) -> None:
    stl = tmp_path / 'box.stl'
    trimesh.creation.box().export(stl)
    parts, _ = element_meshes(_one_visual(stl), 'visual')
    assert [(p.part, p.rgba, len(p.faces)) for p in parts] == [(0, DEFAULT_DIFFUSE, 12)]


def test_glb_material_and_uncoloured_geometry_keep_their_node_transforms(tmp_path: Path) -> None:
    # generated: an uncoloured box at the origin and a translucent red sphere node at x = 2
    scene = trimesh.Scene()
    scene.add_geometry(trimesh.creation.box(), geom_name='plain')
    sphere = trimesh.creation.icosphere(subdivisions=1)
    sphere.visual = trimesh.visual.TextureVisuals(
        material=trimesh.visual.material.PBRMaterial(baseColorFactor=[255, 0, 0, 128]))
    moved = np.eye(4)
    moved[0, 3] = 2.0
    scene.add_geometry(sphere, geom_name='red', transform=moved)
    glb = tmp_path / 'two.glb'
    scene.export(glb)
    parts, _ = element_meshes(_one_visual(glb), 'visual')
    assert [(p.rgba, len(p.faces)) for p in parts] == [((1.0, 0.0, 0.0, 128 / 255), 80),
                                                        (DEFAULT_DIFFUSE, 12)]
    np.testing.assert_allclose(parts[0].vertices.mean(axis=0), (4.0, 0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(parts[1].vertices.mean(axis=0), (0.0, 0.0, 0.0), atol=1e-12)
    _union_matches_load_mesh(parts, str(glb), (2.0, 2.0, 2.0))


def test_ply_face_colours_give_one_part_per_colour(tmp_path: Path) -> None:
    # generated: an icosphere (80 faces), 40 red, 30 green, 10 blue
    sphere = trimesh.creation.icosphere(subdivisions=1)
    colors = np.repeat([[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]], [40, 30, 10],
                       axis=0).astype(np.uint8)
    sphere.visual.face_colors = colors
    ply = tmp_path / 'faces.ply'
    sphere.export(ply)
    parts, _ = element_meshes(_one_visual(ply), 'visual')
    assert [(p.rgba, len(p.faces)) for p in parts] == [
        ((1.0, 0.0, 0.0, 1.0), 40), ((0.0, 1.0, 0.0, 1.0), 30), ((0.0, 0.0, 1.0, 1.0), 10)]
    _union_matches_load_mesh(parts, str(ply), (2.0, 2.0, 2.0))


def test_rare_colours_join_the_nearest_kept_colour(tmp_path: Path) -> None:
    # generated: 16 well-separated colours on 19 faces each, and 4 single faces in a shade
    # one step off four of them: more colours than MAX_MESH_PARTS
    sphere = trimesh.creation.icosphere(subdivisions=2)  # 320 faces
    assert meshes.MAX_MESH_PARTS == 16
    palette = np.array([[r, g, b, 255] for r in (0, 255) for g in (0, 255)
                        for b in (0, 85, 170, 255)], dtype=np.int64)
    colors = np.repeat(palette, 19, axis=0)
    shades = palette[[0, 5, 9, 15]] + [[1, 0, 0, 0], [0, -1, 0, 0], [0, 0, 1, 0], [-1, 0, 0, 0]]
    colors = np.concatenate([colors, shades, np.repeat(palette[:1], 320 - 308, axis=0)])
    sphere.visual.face_colors = colors.astype(np.uint8)
    ply = tmp_path / 'many.ply'
    sphere.export(ply)
    parts, _ = element_meshes(_one_visual(ply), 'visual')
    assert len(parts) == 16
    sizes = {tuple(round(255 * c) for c in p.rgba): len(p.faces) for p in parts}
    expected = {tuple(int(c) for c in row): 19 for row in palette}
    expected[tuple(int(c) for c in palette[0])] += 12 + 1
    for i in (5, 9, 15):
        expected[tuple(int(c) for c in palette[i])] += 1
    assert sizes == expected
    _union_matches_load_mesh(parts, str(ply), (2.0, 2.0, 2.0))


def test_a_vertex_coloured_scan_stays_a_few_parts(tmp_path: Path) -> None:
    # generated: 642 vertices in random colours (averaged per face: ~1280 face colours)
    sphere = trimesh.creation.icosphere(subdivisions=3)
    rng = np.random.default_rng(7)
    sphere.visual.vertex_colors = np.column_stack(
        [rng.integers(0, 256, (len(sphere.vertices), 3)), np.full(len(sphere.vertices), 255)]
    ).astype(np.uint8)
    ply = tmp_path / 'scan.ply'
    sphere.export(ply)
    parts, _ = element_meshes(_one_visual(ply), 'visual')
    assert len(parts) == meshes.MAX_MESH_PARTS
    assert len({p.rgba for p in parts}) == len(parts)
    assert sum(len(p.faces) for p in parts) == len(sphere.faces)
    _union_matches_load_mesh(parts, str(ply), (2.0, 2.0, 2.0))


def _urdf_with(uri: str) -> str:
    return (f'<robot name="r"><link name="base"><visual><geometry><mesh filename="{uri}"/>'
            '</geometry></visual><collision><geometry><mesh filename="{uri}"/></geometry>'
            '</collision></link><link name="tip"/><joint name="j" type="fixed"><parent '
            'link="base"/><child link="tip"/></joint></robot>').replace('{uri}', uri)


def _check_messages(model: RobotModel, uri: str, problem: str) -> None:
    """The loader, ``mesh_file`` and the viewer all say ``problem``; the robot still loads."""
    assert model.link_names == ('base', 'tip')
    assert model.unresolved_meshes == (uri, uri)
    assert f'mesh URI {uri!r} could not be resolved to a file: {problem}' in model.load_warnings
    shape = model.link('base').visuals[0].geometry
    assert isinstance(shape, Mesh) and shape.problem == problem
    with pytest.raises(RobotDescriptionError) as raised:
        meshes.mesh_file(shape)
    assert str(raised.value) == f'mesh {uri!r} has no local file: {problem}'
    visuals, warnings = element_meshes(model, 'visual')
    assert visuals[0].placeholder
    assert warnings == [f"visual mesh nope.stl of link 'base': mesh {uri!r} has no local file: "
                        f'{problem}; drawn as a box']
    collisions, warnings = element_meshes(model, 'collision')
    assert collisions == []
    assert warnings == [f"collision mesh nope.stl of link 'base': mesh {uri!r} has no local "
                        f'file: {problem}; not drawn']


def test_a_missing_file_in_a_found_package_is_named_with_the_package(tmp_path: Path) -> None:
    package = tmp_path / 'ws' / 'pkg'
    (package / 'meshes').mkdir(parents=True)
    (package / 'package.xml').write_text('<package format="3"><name>pkg</name></package>')
    uri = 'package://pkg/meshes/nope.stl'
    model = RobotModel.from_urdf_string(_urdf_with(uri), package_roots=[tmp_path / 'ws'])
    _check_messages(model, uri, f"file {package / 'meshes' / 'nope.stl'} does not exist "
                                f"(package 'pkg' found at {package})")


def test_a_missing_package_says_where_it_was_searched(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / 'ws' / 'pkg').mkdir(parents=True)
    monkeypatch.delenv('AMENT_PREFIX_PATH', raising=False)
    uri = 'package://ghost/meshes/nope.stl'
    model = RobotModel.from_urdf_string(_urdf_with(uri), package_roots=[tmp_path / 'ws'],
                                        package_map={'other': tmp_path / 'ws' / 'pkg'})
    _check_messages(model, uri, f"package 'ghost' not found (searched: package map 'other'; "
                                f"package roots {tmp_path / 'ws'}; the ament index "
                                '(AMENT_PREFIX_PATH is not set))')


def test_a_missing_plain_file_is_named(tmp_path: Path) -> None:
    uri = f'file://{tmp_path}/nope.stl'
    model = RobotModel.from_urdf_string(_urdf_with(uri))
    _check_messages(model, uri, f'file {tmp_path}/nope.stl does not exist')
