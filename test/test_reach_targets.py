"""REACH's target pose generators (robot_state_core.reach.targets, issue 29 "Targets").

Oracles, named per test:

* REACH's ``createFrame(pt, norm)`` (``reach/src/plugin_utils.cpp``, ros-industrial/reach):
  its formula evaluated by hand for the cases below (REACH's tests, ``reach/test/
  reach_study_utest.cpp``, have no createFrame case to port);
* REACH's IK goal ``target * AngleAxisd(π, UnitX)`` (``reach/src/reach_study.cpp``) and its
  discretized solver's ``target * AngleAxisd(i * dt, UnitZ)``
  (``moveit_reach_plugins/src/ik/discretized_moveit_ik_solver.cpp``), as rotation matrices
  written out here;
* geometry in closed form: the faces and outward normals of a box made by
  ``trimesh.creation.box``, the radial normal of a sphere, the Fejes Tóth bound on the closest
  pair of points on a sphere;
* files written here byte by byte (PLY, PCD ascii and binary), read back to the written values.
"""

from __future__ import annotations

import math
from pathlib import Path
import struct

import numpy as np
import pytest
import trimesh

from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.reach.targets import (
    fibonacci_sphere,
    frame_from_normal,
    free_rotation,
    ReachTargets,
    targets_from_mesh,
    targets_from_point_cloud,
    workspace_grid,
)

TOL = 1e-12
FLIP_X = np.diag([1.0, -1.0, -1.0, 1.0])  # AngleAxisd(π, UnitX) as a pose


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _assert_proper_rotations(X: np.ndarray) -> None:
    R = X[:, :3, :3]
    np.testing.assert_allclose(np.swapaxes(R, 1, 2) @ R, np.broadcast_to(np.eye(3), R.shape),
                               atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-12)
    np.testing.assert_array_equal(X[:, 3], np.broadcast_to([0.0, 0.0, 0.0, 1.0], (len(X), 4)))


# REACH createFrame by hand (reach/src/plugin_utils.cpp): columns x, y, z of the rotation.
# |n·x| < 0.9: x = normalize(X - (X·n) n), y = n × x.  Else: y = normalize(Y - (Y·n) n), x = y × n.
CREATE_FRAME_CASES = [
    # n = +z: x = X, y = z × X = Y (identity).
    ((0.0, 0.0, 1.0), [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
    # n = -y: x = X, y = (-Y) × X = +Z.
    ((0.0, -1.0, 0.0), [[1, 0, 0], [0, 0, 1], [0, -1, 0]]),
    # n = (0.6, 0, 0.8): X - 0.6 n = (0.64, 0, -0.48) -> x = (0.8, 0, -0.6); y = n × x = Y.
    ((0.6, 0.0, 0.8), [[0.8, 0, -0.6], [0, 1, 0], [0.6, 0, 0.8]]),
    # n = +x (|n·X| = 1 >= 0.9): y = Y, x = Y × X = -Z.
    ((1.0, 0.0, 0.0), [[0, 0, -1], [0, 1, 0], [1, 0, 0]]),
    # n = (0.96, 0.28, 0) (|n·X| = 0.96): Y - 0.28 n = (-0.2688, 0.9216, 0), length 0.96 ->
    # y = (-0.28, 0.96, 0); x = y × n = (0, 0, -0.28² - 0.96²) = -Z.
    ((0.96, 0.28, 0.0), [[0, 0, -1], [-0.28, 0.96, 0], [0.96, 0.28, 0]]),
    # n = -x: y = Y, x = Y × (-X) = +Z.
    ((-1.0, 0.0, 0.0), [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]),
]


@pytest.mark.parametrize(('normal', 'columns'), CREATE_FRAME_CASES)
def test_default_frame_is_reach_create_frame(normal: tuple[float, ...],
                                             columns: list[list[float]]) -> None:
    """Defaults = REACH createFrame (plugin_utils.cpp), formula evaluated by hand: z = +n."""
    point = np.array([[0.25, -1.5, 3.0]])
    X = frame_from_normal(point, np.array([normal]))
    np.testing.assert_allclose(X[0, :3, :3], np.array(columns, dtype=float).T, atol=TOL)
    np.testing.assert_array_equal(X[0, :3, 3], point[0])
    _assert_proper_rotations(X)


def test_into_is_reach_ik_goal() -> None:
    """approach='into' = createFrame * AngleAxisd(π, UnitX) (reach_study.cpp), z = -n."""
    normals = np.array([n for n, _ in CREATE_FRAME_CASES])
    points = np.arange(len(normals) * 3, dtype=float).reshape(-1, 3)
    out = frame_from_normal(points, normals)
    into = frame_from_normal(points, normals, approach='into')
    np.testing.assert_allclose(into, out @ FLIP_X, atol=TOL)
    np.testing.assert_allclose(into[:, :3, 2], -normals, atol=TOL)


def test_frames_are_proper_rotations_for_any_normal() -> None:
    """R^T R = I and det R = 1 for random normals, unnormalised, and ones near ±x (fallback)."""
    rng = np.random.default_rng(0)
    normals = rng.normal(size=(2000, 3)) * rng.uniform(0.01, 100.0, size=(2000, 1))
    normals[:200] = rng.normal(scale=0.3, size=(200, 3))
    normals[:200, 0] += 1.0  # around +x, on both sides of REACH's 0.9 cut
    for tool_axis in ('x', '-x', 'y', '-y', 'z', '-z'):
        for approach in ('out', 'into'):
            X = frame_from_normal(np.zeros((2000, 3)), normals, tool_axis=tool_axis,
                                  approach=approach)
            _assert_proper_rotations(X)
            k, sign = 'xyz'.index(tool_axis[-1]), (-1.0 if tool_axis[0] == '-' else 1.0)
            expected = normals / np.linalg.norm(normals, axis=1)[:, None]
            expected *= sign * (-1.0 if approach == 'into' else 1.0)
            np.testing.assert_allclose(X[:, :3, k], expected, atol=1e-12)


def test_tool_axis_cycles_reach_frame() -> None:
    """Tool axis k along n, axis k+1 the projected reference: REACH's frame with axes renamed.

    By hand for n = +z, reference X: tool x -> (x, y, z) = (n, X, n × X) = (Z, X, Y); tool y ->
    (y, z, x) = (n, X, n × X), i.e. x = Z × X = Y.
    """
    n = np.array([[0.0, 0.0, 1.0]])
    Xx = frame_from_normal(np.zeros((1, 3)), n, tool_axis='x')[0, :3, :3]
    Xy = frame_from_normal(np.zeros((1, 3)), n, tool_axis='y')[0, :3, :3]
    np.testing.assert_allclose(Xx, np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]]).T, atol=TOL)
    np.testing.assert_allclose(Xy, np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]]).T, atol=TOL)
    # A negative tool axis is the other approach: '-z'/'out' == 'z'/'into'.
    rng = np.random.default_rng(1)
    normals = rng.normal(size=(50, 3))
    np.testing.assert_allclose(
        frame_from_normal(np.zeros((50, 3)), normals, tool_axis='-z'),
        frame_from_normal(np.zeros((50, 3)), normals, approach='into'), atol=TOL)


def test_reference_direction() -> None:
    """reference=Y, n = +z: x = Y, y = Z × Y = -X (by hand); near ±Y the fallback is Z."""
    X = frame_from_normal(np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]]), reference=(0, 2, 0))
    np.testing.assert_allclose(X[0, :3, :3], np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]]).T,
                               atol=TOL)
    # n = +Y with reference Y: fallback Z becomes the y axis, x = Z × Y = -X.
    X = frame_from_normal(np.zeros((1, 3)), np.array([[0.0, 1.0, 0.0]]), reference=(0, 1, 0))
    np.testing.assert_allclose(X[0, :3, :3], np.array([[-1, 0, 0], [0, 0, 1], [0, 1, 0]]).T,
                               atol=TOL)


@pytest.mark.parametrize(('kwargs', 'match'), [
    ({'normals': [[0.0, 0.0, 0.0]]}, 'normals has a zero vector'),
    ({'normals': [[0.0, math.nan, 1.0]]}, 'normals has non-finite'),
    ({'normals': [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]}, 'same shape'),
    ({'tool_axis': 'w'}, 'tool_axis'),
    ({'approach': 'up'}, 'approach'),
    ({'reference': (0.0, 0.0, 0.0)}, 'reference has a zero vector'),
    ({'reference': (1.0, 0.0)}, r'reference must have shape \(3,\)'),
])
def test_frame_from_normal_refuses_bad_input(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {'points': [[0.0, 0.0, 0.0]], 'normals': [[0.0, 0.0, 1.0]]}
    args.update(kwargs)
    with pytest.raises(InvalidArgumentError, match=match):
        frame_from_normal(**args)  # type: ignore[arg-type]


# --- meshes -------------------------------------------------------------------------------------

HALF = np.array([0.2, 0.3, 0.4])  # trimesh.creation.box(extents=2 * HALF), centred at the origin


def _box_face_normals(points: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Analytic outward normal of the box face each point lies on (closed form)."""
    excess = np.abs(points) - half
    axis = np.argmax(excess, axis=1)
    normals = np.zeros_like(points)
    normals[np.arange(len(points)), axis] = np.sign(points[np.arange(len(points)), axis])
    return normals


def _assert_on_box(targets: ReachTargets, half: np.ndarray, X_WP: np.ndarray,
                   atol: float = 1e-12) -> None:
    """Every target on the box surface with the face's outward normal as its z axis.

    ``atol``: 1e-7 for files that store float32 coordinates (STL: 0.2 is 0.2 + 3e-9).
    """
    p = (targets.points - X_WP[:3, 3]) @ X_WP[:3, :3]  # back in the box frame
    n = targets.normals @ X_WP[:3, :3]
    distance = np.max(np.abs(p) - half, axis=1)  # 0 on the surface of a box centred at 0
    np.testing.assert_allclose(distance, 0.0, atol=atol)
    np.testing.assert_allclose(n, _box_face_normals(p, half), atol=atol)
    np.testing.assert_allclose(targets.X_WT[:, :3, 2], targets.normals, atol=1e-12)
    np.testing.assert_array_equal(targets.X_WT[:, :3, 3], targets.points)
    _assert_proper_rotations(targets.X_WT)


@pytest.mark.parametrize('even', [True, False])
def test_box_targets_lie_on_faces_with_outward_normals(even: bool) -> None:
    """A trimesh box: distance to the surface 0, normals the analytic outward face normals."""
    box = trimesh.creation.box(extents=2 * HALF)
    targets = targets_from_mesh(box, 300, seed=4, even=even)
    _assert_on_box(targets, HALF, np.eye(4))
    assert len(targets) == 300
    # Every face of the box gets samples (area-weighted: the smallest face has 1/6.5 of area).
    faces = {tuple(n) for n in np.round(targets.normals).astype(int).tolist()}
    assert len(faces) == 6


def test_part_pose_places_the_targets() -> None:
    """X_WT = X_WP @ X_PT (REACH ROS's transformed cloud: transform * pose)."""
    box = trimesh.creation.box(extents=2 * HALF)
    X_WP = np.eye(4)
    X_WP[:3, :3] = _rz(0.7) @ np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    X_WP[:3, 3] = [1.0, -2.0, 0.5]
    placed = targets_from_mesh(box, 100, seed=9, X_WP=X_WP)
    local = targets_from_mesh(box, 100, seed=9)
    np.testing.assert_allclose(placed.X_WT, X_WP @ local.X_WT, atol=1e-12)
    _assert_on_box(placed, HALF, X_WP)


@pytest.mark.parametrize('suffix', ['stl', 'obj', 'ply'])
def test_mesh_files_and_scale(tmp_path: Path, suffix: str) -> None:
    """STL/OBJ/PLY files read through trimesh; scale (2, 1, 1) and a mirror keep the checks."""
    path = tmp_path / f'box.{suffix}'
    trimesh.creation.box(extents=2 * HALF).export(path)
    _assert_on_box(targets_from_mesh(path, 200, seed=1), HALF, np.eye(4), 1e-7)
    _assert_on_box(targets_from_mesh(str(path), 200, seed=1, scale=(2.0, 1.0, 1.0)),
                   HALF * [2.0, 1.0, 1.0], np.eye(4), 1e-7)
    # A mirror (negative scale) flips the winding, so normals stay outward.
    _assert_on_box(targets_from_mesh(path, 200, seed=1, scale=(-1.0, 1.0, 1.0)), HALF,
                   np.eye(4), 1e-7)
    mirrored = trimesh.creation.box(extents=2 * HALF)
    _assert_on_box(targets_from_mesh(mirrored, 200, seed=1, scale=-0.5), HALF * 0.5, np.eye(4))


def test_sphere_normals_are_radial() -> None:
    """Icosphere (subdivision 5, faces ~2.2° across): face normal ≈ point / radius."""
    radius = 0.3
    sphere = trimesh.creation.icosphere(subdivisions=5, radius=radius)
    targets = targets_from_mesh(sphere, 500, seed=2)
    r = np.linalg.norm(targets.points, axis=1)
    assert np.all(r <= radius + 1e-12) and np.all(r >= radius * math.cos(math.radians(1.5)))
    cosine = np.einsum('ij,ij->i', targets.normals, targets.points / r[:, None])
    assert cosine.min() >= math.cos(math.radians(1.5))


def test_seeds_reproduce() -> None:
    """The same seed gives the same targets; another seed other targets."""
    box = trimesh.creation.box(extents=2 * HALF)
    for even in (True, False):
        a = targets_from_mesh(box, 50, seed=11, even=even)
        b = targets_from_mesh(box, 50, seed=11, even=even)
        c = targets_from_mesh(box, 50, seed=12, even=even)
        np.testing.assert_array_equal(a.X_WT, b.X_WT)
        assert not np.allclose(a.points, c.points)


def test_even_sampling_spacing_and_shortfall() -> None:
    """even: no two targets closer than the radius (trimesh's sample_surface_even guarantee).

    With a radius larger than the part every candidate pair is close: trimesh's rule (drop the
    member of higher degree, the first on a tie) leaves exactly one sample, and the result says
    so rather than padding.
    """
    box = trimesh.creation.box(extents=2 * HALF)
    count = 400
    targets = targets_from_mesh(box, count, seed=3)
    radius = math.sqrt(box.area / (3 * count))  # trimesh's default
    d = np.linalg.norm(targets.points[:, None] - targets.points[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert d.min() > radius
    assert len(targets) == count
    sparse = targets_from_mesh(box, 20, seed=3, radius=10.0)
    assert len(sparse) == 1
    assert '1 of 20 even samples' in sparse.source
    dense = targets_from_mesh(box, 20, seed=3, radius=0.05)
    d = np.linalg.norm(dense.points[:, None] - dense.points[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert len(dense) == 20 and d.min() > 0.05


@pytest.mark.parametrize(('kwargs', 'error', 'match'), [
    ({'count': 0}, InvalidArgumentError, 'count must be in'),
    ({'count': 2.0}, InvalidTypeError, 'count must be an int'),
    ({'seed': -1}, InvalidArgumentError, 'seed must be >= 0'),
    ({'seed': None}, InvalidTypeError, 'seed must be an int'),
    ({'scale': 0.0}, InvalidArgumentError, 'scale'),
    ({'radius': 0.1, 'even': False}, InvalidArgumentError, 'radius'),
    ({'radius': -1.0}, InvalidArgumentError, 'radius'),
    ({'X_WP': np.diag([2.0, 1.0, 1.0, 1.0])}, InvalidArgumentError, 'X_WP'),
    ({'mesh': 3}, InvalidTypeError, 'mesh must be'),
])
def test_targets_from_mesh_refuses_bad_input(kwargs: dict[str, object], error: type,
                                             match: str) -> None:
    args: dict[str, object] = {'mesh': trimesh.creation.box(), 'count': 10, 'seed': 0}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        targets_from_mesh(**args)  # type: ignore[arg-type]


# --- point clouds -------------------------------------------------------------------------------

# Values exact in float32, so the files hold them exactly.
CLOUD_POINTS = np.array([[0.5, -1.25, 2.0], [-3.0, 0.125, 1024.0], [0.0, 0.0, 0.0]])
CLOUD_NORMALS = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -2.0]])  # last: length 2
UNIT_NORMALS = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])


def _rows(points: np.ndarray, normals: np.ndarray, extra: bool) -> list[str]:
    return [' '.join(f'{v:g}' for v in [*p, *n, *([0.5] if extra else [])])
            for p, n in zip(points, normals, strict=True)]


def _assert_cloud(targets: ReachTargets, name: str) -> None:
    np.testing.assert_array_equal(targets.points, CLOUD_POINTS)
    np.testing.assert_array_equal(targets.normals, UNIT_NORMALS)
    np.testing.assert_allclose(targets.X_WT,
                               frame_from_normal(CLOUD_POINTS, UNIT_NORMALS), atol=0.0)
    assert name in targets.source


def test_ply_ascii_with_normals(tmp_path: Path) -> None:
    """An ASCII PLY written by hand (x y z nx ny nz + another property) reads back exactly."""
    path = tmp_path / 'cloud.ply'
    path.write_text('\n'.join([
        'ply', 'format ascii 1.0', 'comment written by test_reach_targets',
        f'element vertex {len(CLOUD_POINTS)}', 'property float x', 'property float y',
        'property float z', 'property float nx', 'property float ny', 'property float nz',
        'property float quality', 'end_header', *_rows(CLOUD_POINTS, CLOUD_NORMALS, True), '']))
    _assert_cloud(targets_from_point_cloud(path), 'cloud.ply')


def test_ply_binary_with_normals(tmp_path: Path) -> None:
    """A binary little-endian PLY packed here with struct reads back exactly."""
    path = tmp_path / 'cloud_binary.PLY'
    header = '\n'.join(['ply', 'format binary_little_endian 1.0',
                        f'element vertex {len(CLOUD_POINTS)}',
                        *[f'property double {c}' for c in ('x', 'y', 'z', 'nx', 'ny', 'nz')],
                        'end_header', ''])
    body = b''.join(struct.pack('<6d', *p, *n)
                    for p, n in zip(CLOUD_POINTS, CLOUD_NORMALS, strict=True))
    path.write_bytes(header.encode() + body)
    _assert_cloud(targets_from_point_cloud(path), 'cloud_binary.PLY')


PCD_HEADER = '''# .PCD v0.7 - Point Cloud Data file format
VERSION 0.7
FIELDS {fields}
SIZE {size}
TYPE {type}
COUNT {count}
WIDTH {n}
HEIGHT 1
VIEWPOINT 0 0 0 1 0 0 0
POINTS {n}
DATA {data}
'''


def test_pcd_ascii_with_normals(tmp_path: Path) -> None:
    """PCL's PointNormal ascii PCD (x y z normal_x normal_y normal_z curvature) by hand."""
    path = tmp_path / 'cloud.pcd'
    header = PCD_HEADER.format(fields='x y z normal_x normal_y normal_z curvature',
                               size='4 4 4 4 4 4 4', type='F F F F F F F',
                               count='1 1 1 1 1 1 1', n=len(CLOUD_POINTS), data='ascii')
    path.write_text(header + '\n'.join(_rows(CLOUD_POINTS, CLOUD_NORMALS, True)) + '\n')
    _assert_cloud(targets_from_point_cloud(path), 'cloud.pcd')


def _binary_pcd(n: int) -> tuple[str, bytes]:
    """PCL's binary PointNormal layout: padding fields ``_`` (4 bytes) after xyz and normals."""
    header = PCD_HEADER.format(fields='x y z _ normal_x normal_y normal_z _ curvature',
                               size='4 4 4 1 4 4 4 1 4', type='F F F U F F F U F',
                               count='1 1 1 4 1 1 1 4 1', n=n, data='binary')
    body = b''.join(struct.pack('<3f4x3f4xf', *p, *m, 0.25)
                    for p, m in zip(CLOUD_POINTS, CLOUD_NORMALS, strict=True))
    return header, body


def test_pcd_binary_with_padding_fields(tmp_path: Path) -> None:
    """A binary PCD packed with struct, with PCL's ``_`` padding fields, reads back exactly."""
    path = tmp_path / 'cloud_binary.pcd'
    header, body = _binary_pcd(len(CLOUD_POINTS))
    path.write_bytes(header.encode() + body)
    _assert_cloud(targets_from_point_cloud(path), 'cloud_binary.pcd')


def test_point_cloud_part_pose(tmp_path: Path) -> None:
    """X_WP = Rz(90°), t = (1, 2, 3): (0.5, -1.25, 2) -> (1.25 + 1, 0.5 + 2, 2 + 3) by hand."""
    path = tmp_path / 'cloud.pcd'
    header, body = _binary_pcd(len(CLOUD_POINTS))
    path.write_bytes(header.encode() + body)
    X_WP = np.eye(4)
    X_WP[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    X_WP[:3, 3] = [1.0, 2.0, 3.0]
    targets = targets_from_point_cloud(path, X_WP=X_WP)
    np.testing.assert_allclose(targets.points[0], [2.25, 2.5, 5.0], atol=TOL)
    np.testing.assert_allclose(targets.normals[1], [0.0, -1.0, 0.0], atol=TOL)  # Rz(90°)(-x)


@pytest.mark.parametrize('suffix', ['pcd', 'ply'])
def test_cloud_without_normals_is_refused(tmp_path: Path, suffix: str) -> None:
    """REACH's hasNormals: a cloud without normals is an error naming the file."""
    path = tmp_path / f'no_normals.{suffix}'
    rows = '\n'.join(' '.join(f'{v:g}' for v in p) for p in CLOUD_POINTS) + '\n'
    if suffix == 'pcd':
        path.write_text(PCD_HEADER.format(fields='x y z', size='4 4 4', type='F F F',
                                          count='1 1 1', n=len(CLOUD_POINTS), data='ascii')
                        + rows)
    else:
        path.write_text('\n'.join(['ply', 'format ascii 1.0',
                                   f'element vertex {len(CLOUD_POINTS)}', 'property float x',
                                   'property float y', 'property float z', 'end_header', ''])
                        + rows)
    with pytest.raises(InvalidArgumentError, match=rf'no_normals\.{suffix}.*has no normals'):
        targets_from_point_cloud(path)


def test_broken_clouds_are_refused(tmp_path: Path) -> None:
    """Missing, truncated, non-finite, unknown-format and garbage files name the file."""
    header, body = _binary_pcd(len(CLOUD_POINTS))
    truncated = tmp_path / 'truncated.pcd'
    truncated.write_bytes(header.encode() + body[:-len(body) // 3])  # the last record missing
    with pytest.raises(InvalidArgumentError, match=r'truncated\.pcd.*declares 3 points'):
        targets_from_point_cloud(truncated)
    nan = tmp_path / 'nan.pcd'
    nan.write_text(PCD_HEADER.format(fields='x y z normal_x normal_y normal_z', size='4 ' * 6,
                                     type='F ' * 6, count='1 ' * 6, n=1, data='ascii')
                   + '0 0 nan 0 0 1\n')
    with pytest.raises(InvalidArgumentError, match=r'nan\.pcd.*non-finite'):
        targets_from_point_cloud(nan)
    garbage = tmp_path / 'garbage.ply'
    garbage.write_text('not a ply file\n')
    with pytest.raises(InvalidArgumentError, match=r'garbage\.ply.*not a valid PLY'):
        targets_from_point_cloud(garbage)
    with pytest.raises(InvalidArgumentError, match=r'missing\.pcd.*does not exist'):
        targets_from_point_cloud(tmp_path / 'missing.pcd')
    with pytest.raises(InvalidArgumentError, match=r'cloud\.xyz.*unsupported'):
        targets_from_point_cloud(tmp_path / 'cloud.xyz')


# --- workspace grid, Fibonacci directions, free rotation ----------------------------------------


def test_workspace_grid_size_order_and_spacing() -> None:
    """5 × 3 × 2 points (upper 0.22 is off the 0.05 grid in x) × 4 orientations = 120 targets."""
    R = np.stack([np.eye(3), _rz(math.pi / 2), _rz(math.pi), np.diag([1.0, -1.0, -1.0])])
    targets = workspace_grid((0.0, 0.0, 0.0), (0.22, 0.1, 0.05), 0.05, R)
    assert len(targets) == 5 * 3 * 2 * 4
    X = targets.X_WT.reshape(5 * 3 * 2, 4, 4, 4)
    np.testing.assert_allclose(X[:, :, :3, :3], np.broadcast_to(R, (30, 4, 3, 3)), atol=0.0)
    points = X[:, 0, :3, 3]
    np.testing.assert_allclose(np.unique(points[:, 0]), [0.0, 0.05, 0.1, 0.15, 0.2], atol=1e-15)
    np.testing.assert_allclose(np.unique(points[:, 1]), [0.0, 0.05, 0.1], atol=1e-15)
    np.testing.assert_allclose(np.unique(points[:, 2]), [0.0, 0.05], atol=1e-15)
    np.testing.assert_allclose(points[1] - points[0], [0.0, 0.0, 0.05], atol=1e-15)  # z fastest
    np.testing.assert_array_equal(X[:, :, :3, 3], np.broadcast_to(points[:, None], (30, 4, 3)))
    np.testing.assert_allclose(targets.normals, targets.X_WT[:, :3, 2], atol=0.0)


def test_workspace_grid_with_fibonacci_directions() -> None:
    """An int K: K sphere directions as REACH frames (z = direction) at every grid point."""
    targets = workspace_grid((-0.1, -0.1, 0.0), (0.1, 0.1, 0.0), (0.1, 0.1, 1.0), 10)
    assert len(targets) == 9 * 10
    directions = fibonacci_sphere(10)
    np.testing.assert_allclose(targets.normals.reshape(9, 10, 3),
                               np.broadcast_to(directions, (9, 10, 3)), atol=TOL)
    _assert_proper_rotations(targets.X_WT)


SHIFTED = np.eye(4)[None].copy()
SHIFTED[0, 0, 3] = 0.1  # a pose with a translation, not a rotation


@pytest.mark.parametrize(('args', 'match'), [
    (((0, 0, 0), (1, 1, 1), 0.0, 1), 'spacing'),
    (((0, 0, 0), (-1, 1, 1), 0.1, 1), 'upper'),
    (((0, 0, 0), (1, 1, 1), 1e-4, 1), 'MAX_TARGETS'),
    (((0, 0, 0), (1, 1, 1), 0.5, SHIFTED), 'translation'),
    (((0, 0, 0), (1, 1, 1), 0.5, np.diag([1.0, 1.0, -1.0])[None]), 'rigid'),
    (((0, 0, 0), (1, 1, 1), 0.5, np.zeros((0, 3, 3))), 'orientations must'),
])
def test_workspace_grid_refuses_bad_input(args: tuple[object, ...], match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        workspace_grid(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize('count', [10, 100, 1000])
def test_fibonacci_directions_unit_and_spread(count: int) -> None:
    """Unit; z in equal-area bands (mean 0); closest pair ≥ 0.8 × the Fejes Tóth bound.

    Fejes Tóth: no K points on the unit sphere have all pairwise angles above
    arccos((cot²ω - 1) / 2), ω = K π / (6 (K - 2)); the lattice reaches 81 % of it.
    """
    d = fibonacci_sphere(count)
    np.testing.assert_allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-15)
    np.testing.assert_allclose(np.sort(d[:, 2]), (2 * np.arange(count) + 1) / count - 1,
                               atol=1e-15)
    assert abs(d.mean(axis=0)).max() < 0.03
    cosine = d @ d.T
    np.fill_diagonal(cosine, -1.0)
    closest = math.acos(min(1.0, cosine.max()))
    omega = count * math.pi / (6 * (count - 2))
    bound = math.acos((1 / math.tan(omega) ** 2 - 1) / 2)
    assert 0.8 * bound <= closest <= bound


def test_free_rotation_is_reach_discretization() -> None:
    """out[i, j] = X_WT[i] * AngleAxisd(j * dt, UnitZ) with dt = 2π / steps (REACH's solver).

    REACH: n = int(2π / dt) goals at angles i * dt; dt = π / 3 gives the 6 angles of steps=6.
    """
    rng = np.random.default_rng(5)
    X = frame_from_normal(rng.normal(size=(4, 3)), rng.normal(size=(4, 3)))
    dt = math.pi / 3
    n = int((2.0 * math.pi) / dt)
    out = free_rotation(X, n)
    assert out.shape == (4, 6, 4, 4)
    for i in range(4):
        for j in range(n):
            expected = X[i].copy()
            expected[:3, :3] = X[i, :3, :3] @ _rz(j * dt)
            np.testing.assert_allclose(out[i, j], expected, atol=1e-12)
    # Identity target, 4 steps: the quarter turns written out.
    quarter = free_rotation(np.eye(4)[None], 4)[0, :, :3, :3]
    written = [np.eye(3), [[0, -1, 0], [1, 0, 0], [0, 0, 1]], np.diag([-1.0, -1.0, 1.0]),
               [[0, 1, 0], [-1, 0, 0], [0, 0, 1]]]
    np.testing.assert_allclose(quarter, np.array(written, dtype=float), atol=1e-15)
    np.testing.assert_array_equal(free_rotation(X, 1)[:, 0], X)


def test_free_rotation_commutes_with_the_study_flip() -> None:
    """Rx(π) Rz(θ) = Rz(-θ) Rx(π): rotating before or after REACH's flip gives the same goals."""
    rng = np.random.default_rng(6)
    targets = targets_from_mesh(trimesh.creation.box(), 5, seed=0)
    steps = 8
    before = free_rotation(targets, steps) @ FLIP_X
    after = free_rotation(targets.X_WT @ FLIP_X, steps)
    np.testing.assert_allclose(before, after[:, (-np.arange(steps)) % steps], atol=1e-12)
    with pytest.raises(InvalidArgumentError, match='steps'):
        free_rotation(targets, 0)
    with pytest.raises(InvalidArgumentError, match='rigid'):
        free_rotation(rng.normal(size=(2, 4, 4)), 3)


# --- the result type ----------------------------------------------------------------------------


def test_reach_targets_validation() -> None:
    """Frozen, read-only, N >= 1, finite, rigid, unit normals, consistent shapes."""
    X = frame_from_normal(CLOUD_POINTS, UNIT_NORMALS)
    scaled = X.copy()
    scaled[0, :3, :3] *= 2.0
    targets = ReachTargets(X_WT=X, points=CLOUD_POINTS, normals=UNIT_NORMALS, source='test')
    assert len(targets) == 3 and not targets.X_WT.flags.writeable
    with pytest.raises(AttributeError):
        targets.source = 'other'  # type: ignore[misc]
    cases: list[tuple[dict[str, object], str]] = [
        ({'X_WT': X[:0], 'points': CLOUD_POINTS[:0], 'normals': UNIT_NORMALS[:0]}, 'N >= 1'),
        ({'normals': CLOUD_NORMALS}, 'unit vectors; normal 2'),
        ({'points': CLOUD_POINTS[:2]}, r'points must have shape \(3, 3\)'),
        ({'X_WT': scaled}, r'X_WT\[0\] is not'),
        ({'points': np.where(np.eye(3, dtype=bool), math.inf, CLOUD_POINTS)}, 'non-finite'),
    ]
    for change, match in cases:
        args: dict[str, object] = {'X_WT': X, 'points': CLOUD_POINTS, 'normals': UNIT_NORMALS,
                                   'source': 'test'}
        args.update(change)
        with pytest.raises(InvalidArgumentError, match=match):
            ReachTargets(**args)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match='source'):
        ReachTargets(X_WT=X, points=CLOUD_POINTS, normals=UNIT_NORMALS,
                     source=None)  # type: ignore[arg-type]
