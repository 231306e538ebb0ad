"""Target poses of a reach study (REACH's target pose generators), from a mesh, a cloud or a grid.

A target is a pose ``X_WT`` whose origin is a point of the part's surface and whose z axis is
the surface normal there: REACH's ``createFrame(pt, norm)`` (``reach/src/plugin_utils.cpp`` in
ros-industrial/reach), applied to every point of the cloud by its
``PointCloudTargetPoseGenerator`` (``reach/src/plugins/point_cloud_target_pose_generator.cpp``):

* ``z`` is the normal as given: for a mesh sampled here (and for a cloud made with
  ``pcl_mesh_sampling -write_normals``, as REACH's README recommends) the **outward** normal,
  so a target's z axis points **out of** the part;
* ``x`` is the part frame's x axis projected onto the surface's tangent plane; where the normal
  is within ``acos(0.9)`` (25.8°) of the x axis, the y axis is projected instead and becomes the
  target's y axis (``x = y × z``);
* ``y = z × x``.

The study, not this module, turns each target by π about its own x axis before solving IK
(REACH's ``ReachStudy::run``, ``target * AngleAxisd(π, UnitX)``; README: "the z-axis of the
target poses is expected to oppose the z-axis of the robot kinematic tip frame"), so the tool's
z axis points into the surface. :func:`frame_from_normal` gives other conventions (another tool
axis, the tool pointing into the surface already, another reference direction).

Frames: targets are computed in the part frame ``P`` (the mesh's or the cloud's coordinates,
where REACH's reference axis lives) and placed with the part pose ``X_WP`` (REACH ROS's
``TransformedPointCloudTargetPoseGenerator``: ``transform * pose``). A study keeps them in its
model frame ``W`` and passes the part pose here.

Readers (the project prefers maintained libraries to hand-written parsers):

* meshes (STL, OBJ, PLY, OFF, glTF, DAE with pycollada): the project's trimesh loader
  :func:`~robot_state_core.geometry.meshes.load_mesh`, sampled with
  ``trimesh.sample.sample_surface``;
* PLY point clouds: trimesh's own PLY parser (``trimesh.exchange.ply.load_ply``), whose
  result carries the ``nx ny nz`` vertex properties as ``vertex_normals``
  (``trimesh.load`` makes a ``PointCloud`` that drops them);
* PCD point clouds (REACH's format: ascii, binary and binary_compressed, fields
  ``normal_x normal_y normal_z``): `pypcd4 <https://pypi.org/project/pypcd4/>`_, a maintained
  pure-Python reader (numpy 2 wheels for Python 3.11; its dependencies are pydantic and
  python-neo-lzf for ``binary_compressed``), imported when a PCD file is read (pydantic costs
  about 0.2 s to import). It installs cleanly beside numpy 2 on Python 3.11 (pinned in
  ``constraints.txt``); a hand-written parser would have to repeat its field-type, count,
  padding-field (``_``) and compression handling.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import as_finite_float, as_float_array, FloatArray, read_only
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError
from robot_state_core.geometry.meshes import load_mesh
from robot_state_core.spatial.transforms import as_pose, MAX_COORDINATE, RIGID_TOLERANCE

__all__ = [
    'MAX_TARGETS',
    'REACH_ALIGNMENT_LIMIT',
    'ReachTargets',
    'fibonacci_sphere',
    'frame_from_normal',
    'free_rotation',
    'targets_from_mesh',
    'targets_from_point_cloud',
    'workspace_grid',
]

MAX_TARGETS = 5_000_000
'''Most targets one generator makes (640 MB of poses): a larger request is refused.'''

REACH_ALIGNMENT_LIMIT = 0.9
'''``|normal · reference|`` from which the fallback reference is projected (REACH: 0.90).'''

_AXES = {'x': (0, 1.0), '+x': (0, 1.0), '-x': (0, -1.0), 'y': (1, 1.0), '+y': (1, 1.0),
         '-y': (1, -1.0), 'z': (2, 1.0), '+z': (2, 1.0), '-z': (2, -1.0)}
_APPROACHES = ('out', 'into')
_MIN_NORM = 1e-12


@dataclass(frozen=True, eq=False)
class ReachTargets:
    """Target poses of a reach study, with the surface points and normals they come from.

    Everything is expressed in one frame ``W``: the frame the generator was given (the part
    frame, or the world frame when a part pose ``X_WP`` was passed). A study keeps targets in
    its model frame, so it passes the part's pose in the model frame as ``X_WP``.

    Attributes:
        X_WT: ``(N, 4, 4)`` target poses in ``W`` [m]; rigid (rotation within
            :data:`~robot_state_core.spatial.transforms.RIGID_TOLERANCE`). The generators here
            put each origin at its point, ``X_WT[:, :3, 3] == points``.
        points: ``(N, 3)`` the surface points (grid points) in ``W`` [m].
        normals: ``(N, 3)`` unit surface normals in ``W`` (for a grid: the z axis of the
            orientation, the normal REACH's ``createFrame`` would take).
        source: What the targets were made from (file, counts, seed), for reports.
    """

    X_WT: FloatArray
    points: FloatArray
    normals: FloatArray
    source: str

    def __post_init__(self) -> None:
        """Validate the arrays and store read-only float64 copies.

        Raises:
            InvalidArgumentError: Shapes disagree or ``N == 0``; a value is not finite; a pose
                is not rigid or a coordinate exceeds ``MAX_COORDINATE``; a normal is not unit
                length (within ``RIGID_TOLERANCE``).
            InvalidTypeError: ``source`` is not a string, or an array is not numeric.
        """
        where = 'ReachTargets'
        if not isinstance(self.source, str):
            raise InvalidTypeError(f'{where}: source must be a str, got {self.source!r}')
        X = as_float_array(self.X_WT, where, 'X_WT')
        points = as_float_array(self.points, where, 'points')
        normals = as_float_array(self.normals, where, 'normals')
        if X.ndim != 3 or X.shape[1:] != (4, 4) or len(X) == 0:
            raise InvalidArgumentError(f'{where}: X_WT must have shape (N >= 1, 4, 4), got '
                                       f'{X.shape}')
        for name, a in (('points', points), ('normals', normals)):
            if a.shape != (len(X), 3):
                raise InvalidArgumentError(f'{where}: {name} must have shape ({len(X)}, 3) like '
                                           f'X_WT, got {a.shape}')
        for name, a in (('X_WT', X), ('points', points), ('normals', normals)):
            bad = ~np.isfinite(a.reshape(len(X), -1)).all(axis=1)
            if bad.any():
                raise InvalidArgumentError(f'{where}: {name} has non-finite values (first at '
                                           f'index {int(np.argmax(bad))})')
        _check_rigid(X, where, 'X_WT')
        if np.abs(points).max() > MAX_COORDINATE:
            raise InvalidArgumentError(f'{where}: points exceed {MAX_COORDINATE:g} m')
        length_error = np.abs(np.linalg.norm(normals, axis=1) - 1.0)
        if length_error.max() > RIGID_TOLERANCE:
            raise InvalidArgumentError(
                f'{where}: normals must be unit vectors; normal {int(np.argmax(length_error))} '
                f'has length {np.linalg.norm(normals[np.argmax(length_error)]):.9g}')
        object.__setattr__(self, 'X_WT', read_only(X))
        object.__setattr__(self, 'points', read_only(points))
        object.__setattr__(self, 'normals', read_only(normals))

    def __len__(self) -> int:
        return len(self.X_WT)


def frame_from_normal(points: ArrayLike, normals: ArrayLike, *, tool_axis: str = 'z',
                      approach: str = 'out',
                      reference: ArrayLike = (1.0, 0.0, 0.0)) -> FloatArray:
    """Poses at surface points with a tool axis along the normal (REACH's ``createFrame``).

    The defaults are REACH's ``createFrame(pt, norm)`` (``reach/src/plugin_utils.cpp``,
    ros-industrial/reach) in float64: ``z = n``; ``x`` = ``reference`` (the x axis) projected
    onto the plane normal to ``n`` when ``|n · reference| < 0.9``, else ``y`` = the fallback
    reference (the y axis) projected and ``x = y × z``; ``y = z × x``.

    In general, with ``k`` the tool axis and ``(k, k+1, k+2)`` cyclic: axis ``k`` is ``±n``,
    axis ``k+1`` takes the projected ``reference`` (fallback: axis ``k+2`` takes the projected
    fallback reference, the coordinate axis after ``reference``'s largest component, made
    orthogonal to it). A negative tool axis or ``approach='into'`` turns that frame by π about
    axis ``k+1`` (both: no turn). For ``'z'``/``'into'`` this is exactly the IK goal REACH's
    study solves for, ``createFrame(pt, norm) * AngleAxisd(π, UnitX)``.

    Args:
        points: ``(N, 3)`` frame origins [m], in any frame ``P``.
        normals: ``(N, 3)`` surface normals in ``P`` (any non-zero length; normalised here).
        tool_axis: The frame axis along the normal: ``'x'``, ``'y'``, ``'z'``, optionally
            signed (``'-z'``: the frame's z axis is ``-n`` for ``approach='out'``).
        approach: ``'out'``: the tool axis is ``+n`` (out of the surface for outward normals;
            REACH's target poses). ``'into'``: ``-n`` (the tool points into the surface).
        reference: ``(3,)`` direction in ``P`` that axis ``k+1`` follows (any non-zero length).

    Returns:
        ``(N, 4, 4)`` poses ``X_PT`` [m], proper rotations (``RᵀR = I``, ``det R = 1``).

    Raises:
        InvalidArgumentError: Shapes are not ``(N, 3)`` alike; a value is not finite; a normal
            or ``reference`` is zero; ``tool_axis`` or ``approach`` is not one of the above.
    """
    where = 'frame_from_normal'
    p = _vectors(points, where, 'points')
    n = _unit_rows(_vectors(normals, where, 'normals'), where, 'normals')
    if p.shape != n.shape:
        raise InvalidArgumentError(f'{where}: points {p.shape} and normals {n.shape} must have '
                                   'the same shape')
    if tool_axis not in _AXES:
        raise InvalidArgumentError(f'{where}: tool_axis must be one of {sorted(_AXES)}, got '
                                   f'{tool_axis!r}')
    if approach not in _APPROACHES:
        raise InvalidArgumentError(f'{where}: approach must be one of {_APPROACHES}, got '
                                   f'{approach!r}')
    ref = _unit_rows(_vector3(reference, where, 'reference')[None], where, 'reference')[0]
    k, sign = _AXES[tool_axis]
    k1, k2 = (k + 1) % 3, (k + 2) % 3
    fallback = np.zeros(3)
    fallback[(int(np.argmax(np.abs(ref))) + 1) % 3] = 1.0
    fallback = _unit_rows((fallback - (fallback @ ref) * ref)[None], where, 'reference')[0]

    R = np.empty((len(n), 3, 3))
    R[:, :, k] = n
    aligned = np.abs(n @ ref) >= REACH_ALIGNMENT_LIMIT
    main = ~aligned
    a = _project(ref, n[main])
    R[main, :, k1] = a
    R[main, :, k2] = np.cross(n[main], a)
    b = _project(fallback, n[aligned])
    R[aligned, :, k2] = b
    R[aligned, :, k1] = np.cross(b, n[aligned])
    if (sign < 0) != (approach == 'into'):
        R[:, :, k] *= -1.0
        R[:, :, k2] *= -1.0
    X = np.zeros((len(n), 4, 4))
    X[:, :3, :3] = R
    X[:, :3, 3] = p
    X[:, 3, 3] = 1.0
    return X


def targets_from_mesh(mesh: str | os.PathLike[str] | Any, count: int, *, seed: int,
                      X_WP: ArrayLike | None = None, scale: ArrayLike = 1.0, even: bool = True,
                      radius: float | None = None, tool_axis: str = 'z', approach: str = 'out',
                      reference: ArrayLike = (1.0, 0.0, 0.0)) -> ReachTargets:
    """Targets at points sampled on a mesh's surface, with its face normals.

    Sampling is trimesh's: ``trimesh.sample.sample_surface`` picks faces with probability
    proportional to their area and a uniform point in each; the normal of a sample is its
    face's normal (``Trimesh.face_normals``: right-hand rule over the face's winding), so a
    closed, consistently wound mesh (positive volume) gives **outward** normals, as
    ``pcl_mesh_sampling`` does for REACH. A mesh wound inside out gives inward normals; fix the
    file (``trimesh.Trimesh.fix_normals``) rather than flipping here.

    ``even=True`` is ``trimesh.sample.sample_surface_even``'s algorithm: ``3 * count`` samples,
    then, for every pair at most ``radius`` apart, the sample in more such pairs is dropped
    (ties: the earlier one), and the first ``count`` survivors are kept; every two targets are
    then more than ``radius`` apart. trimesh's function finds the pairs with scipy's
    ``cKDTree``, which this project does not install, so the pairs are found here on a grid of
    ``radius`` cells (the same pairs, hence the same samples). Like trimesh's, it may return
    **fewer** than ``count`` targets when the surface holds no more samples that far apart; it
    never pads (padding would break the spacing): ``len(result)`` says how many, and
    ``source`` records ``'k of count'``. Lower ``radius`` to get more.

    Args:
        mesh: A mesh file (STL, OBJ, PLY, OFF, glTF/GLB; DAE with pycollada; see
            :func:`~robot_state_core.geometry.meshes.load_mesh`) or a ``trimesh.Trimesh``.
        count: Targets wanted, ``1 .. MAX_TARGETS``.
        seed: Random seed: the same seed, mesh and arguments give the same targets.
        X_WP: ``(4, 4)`` pose of the part (mesh) frame in the output frame ``W`` [m];
            identity when ``None``.
        scale: Scale of the mesh: one factor or ``(3,)`` per-axis factors, non-zero; a mirror
            (negative product) keeps normals outward (the winding is flipped).
        even: Reject samples closer than ``radius`` (see above); ``False``: exactly ``count``
            independent samples.
        radius: Smallest distance between targets [m], only with ``even``; default
            trimesh's ``sqrt(area / (3 * count))`` (of the scaled area).
        tool_axis: As :func:`frame_from_normal`.
        approach: As :func:`frame_from_normal`.
        reference: As :func:`frame_from_normal`, in the part frame.

    Returns:
        The targets in ``W``; ``normals`` are the (rotated) outward face normals.

    Raises:
        InvalidArgumentError: Invalid ``count``, ``seed``, ``scale``, ``radius``, ``X_WP`` or
            frame option; the mesh has no faces or no area.
        InvalidTypeError: ``mesh`` is neither a path nor a ``trimesh.Trimesh``; ``count`` or
            ``seed`` is not an int.
        RobotDescriptionError: The mesh file is missing, unreadable or unsupported (as
            :func:`~robot_state_core.geometry.meshes.load_mesh`).
    """
    import trimesh

    where = 'targets_from_mesh'
    count = _count(count, where, 'count')
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InvalidTypeError(f'{where}: seed must be an int, got {seed!r}')
    if seed < 0:
        raise InvalidArgumentError(f'{where}: seed must be >= 0, got {seed}')
    s = _scale(scale, where)
    X_WP_ = _part_pose(X_WP, where)
    if isinstance(mesh, trimesh.Trimesh):
        name = f'trimesh.Trimesh ({len(mesh.faces)} faces)'
        part = trimesh.Trimesh(vertices=np.array(mesh.vertices, dtype=np.float64),
                               faces=np.array(mesh.faces, dtype=np.int64), process=False)
        part.apply_transform(np.diag([*s, 1.0]))  # trimesh flips the winding of a mirror
    elif isinstance(mesh, str | os.PathLike):
        name = repr(os.fspath(mesh))
        vertices, faces = load_mesh(mesh, s)
        part = trimesh.Trimesh(vertices=vertices, faces=faces, process=False)
    else:
        raise InvalidTypeError(f'{where}: mesh must be a file path or a trimesh.Trimesh, got '
                               f'{type(mesh).__name__}')
    area = float(part.area) if len(part.faces) else 0.0
    if not area > 0.0:
        raise InvalidArgumentError(f'{where}: mesh {name} has no surface to sample (area '
                                   f'{area:g} m²)')
    if radius is not None and not (even and as_finite_float(radius, where, 'radius') > 0.0):
        raise InvalidArgumentError(f'{where}: radius must be > 0 [m] and only goes with '
                                   f'even=True, got radius={radius!r}, even={even!r}')
    if even:
        spacing = math.sqrt(area / (3 * count)) if radius is None else float(radius)
        samples, face_index = trimesh.sample.sample_surface(part, 3 * count, seed=int(seed))
        keep = ~_crowded(samples, spacing)
        samples, face_index = samples[keep][:count], face_index[keep][:count]
        how = (f'{len(samples)} of {count} even samples, radius {spacing:.6g} m'
               if len(samples) < count else f'{count} even samples, radius {spacing:.6g} m')
    else:
        samples, face_index = trimesh.sample.sample_surface(part, count, seed=int(seed))
        how = f'{count} samples'
    normals = np.asarray(part.face_normals, dtype=np.float64)[face_index]
    X_PT = frame_from_normal(samples, normals, tool_axis=tool_axis, approach=approach,
                             reference=reference)
    X_WT = X_WP_ @ X_PT
    return ReachTargets(X_WT=X_WT, points=X_WT[:, :3, 3], normals=normals @ X_WP_[:3, :3].T,
                        source=f'mesh {name} (scale {s}, {how}, seed {seed})')


def targets_from_point_cloud(path: str | os.PathLike[str], *, X_WP: ArrayLike | None = None,
                             tool_axis: str = 'z', approach: str = 'out',
                             reference: ArrayLike = (1.0, 0.0, 0.0)) -> ReachTargets:
    """Targets at every point of a point cloud file with normals (REACH's cloud generator).

    Every point becomes one target, in file order (REACH's ``PointCloudTargetPoseGenerator``).
    Normals are normalised (files store float32). Like REACH (``hasNormals``), a cloud without
    normals is refused; unlike REACH, so are non-finite points or normals (REACH would make
    NaN poses).

    Formats, by suffix (case-insensitive):

    * ``.pcd``: REACH's format, read with pypcd4 (``DATA ascii``, ``binary`` and
      ``binary_compressed``); fields ``x y z normal_x normal_y normal_z`` (others, e.g.
      ``curvature`` and PCL's ``_`` padding, are ignored).
    * ``.ply``: ASCII or binary, read with trimesh's PLY parser; vertex properties
      ``x y z nx ny nz`` (faces, if any, are ignored).

    Args:
        path: The cloud file; its coordinates are the part frame ``P`` [m].
        X_WP: ``(4, 4)`` pose of the cloud's frame in the output frame ``W`` [m]; identity when
            ``None``.
        tool_axis: As :func:`frame_from_normal`.
        approach: As :func:`frame_from_normal`.
        reference: As :func:`frame_from_normal`, in the cloud's frame.

    Returns:
        One target per point, in ``W``.

    Raises:
        InvalidArgumentError: The file is missing, unreadable, malformed, of another format,
            has no points, or has no normals; a point or normal is not finite or a normal is
            zero; invalid ``X_WP`` or frame option. The message names the file.
    """
    where = 'targets_from_point_cloud'
    X_WP_ = _part_pose(X_WP, where)
    file = os.fspath(path)
    suffix = Path(file).suffix.lower()
    if suffix not in ('.pcd', '.ply'):
        raise InvalidArgumentError(f'{where}: {file!r}: unsupported point cloud format '
                                   f'{suffix or "(no suffix)"!r}; expected .pcd or .ply')
    if not os.path.isfile(file):
        raise InvalidArgumentError(f'{where}: point cloud file {file!r} does not exist')
    points, normals = _read_pcd(file) if suffix == '.pcd' else _read_ply(file)
    if len(points) == 0:
        raise InvalidArgumentError(f'{where}: point cloud {file!r} has no points')
    if len(points) > MAX_TARGETS:
        raise InvalidArgumentError(f'{where}: point cloud {file!r} has {len(points)} points, '
                                   f'more than MAX_TARGETS = {MAX_TARGETS}')
    bad = ~np.isfinite(np.hstack([points, normals])).all(axis=1)
    if bad.any():
        raise InvalidArgumentError(f'{where}: point cloud {file!r} has {int(bad.sum())} points '
                                   f'with non-finite coordinates or normals (first: point '
                                   f'{int(np.argmax(bad))})')
    n = _unit_rows(normals, where, f'normals of {file!r}')
    X_PT = frame_from_normal(points, n, tool_axis=tool_axis, approach=approach,
                             reference=reference)
    X_WT = X_WP_ @ X_PT
    return ReachTargets(X_WT=X_WT, points=X_WT[:, :3, 3], normals=n @ X_WP_[:3, :3].T,
                        source=f'point cloud {file!r} ({suffix[1:].upper()}, {len(points)} '
                               'points)')


def fibonacci_sphere(count: int) -> FloatArray:
    """``count`` unit directions spread evenly over the sphere (the Fibonacci lattice).

    Direction ``i`` has ``z = 1 - (2i + 1) / count`` (equal-area bands, so the z values are
    equally spaced by ``2 / count``) and azimuth ``i`` times the golden angle
    ``π (3 - √5)``.

    Args:
        count: Directions, ``1 .. MAX_TARGETS``.

    Returns:
        ``(count, 3)`` unit vectors.

    Raises:
        InvalidArgumentError: ``count`` is not an int in range.
    """
    k = _count(count, 'fibonacci_sphere', 'count')
    i = np.arange(k, dtype=np.float64)
    z = 1.0 - (2.0 * i + 1.0) / k
    r = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    phi = i * (math.pi * (3.0 - math.sqrt(5.0)))
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def workspace_grid(lower: ArrayLike, upper: ArrayLike, spacing: ArrayLike,
                   orientations: int | ArrayLike) -> ReachTargets:
    """Targets at every point of a box grid in every orientation (a capability map).

    Grid coordinates per axis are ``lower + i * spacing`` for ``i = 0 .. floor((upper - lower)
    / spacing)`` (``upper`` included when it lies on the grid, to 1e-9 of a step). There are
    ``N = P × K`` targets for ``P`` grid points and ``K`` orientations, ordered point-major:
    target ``p * K + k`` is grid point ``p`` (x index slowest, z fastest) in orientation
    ``k``.

    Args:
        lower: ``(3,)`` lowest corner of the box [m], in the output frame ``W``.
        upper: ``(3,)`` highest corner [m], ``>= lower``.
        spacing: Grid step [m], ``> 0``: one for all axes or ``(3,)``.
        orientations: ``(K, 3, 3)`` rotations ``R_WT``, or ``(K, 4, 4)`` poses with zero
            translation; or an int ``K``: :func:`fibonacci_sphere` directions, each made a frame
            by :func:`frame_from_normal` with its defaults (z along the direction).

    Returns:
        The targets; ``normals`` are the orientations' z axes.

    Raises:
        InvalidArgumentError: Non-finite or misordered bounds; a non-positive step; more than
            :data:`MAX_TARGETS` targets; orientations that are not rotations (within
            ``RIGID_TOLERANCE``) or have a translation.
    """
    where = 'workspace_grid'
    lo, hi = _vector3(lower, where, 'lower'), _vector3(upper, where, 'upper')
    if not np.all(hi >= lo):
        raise InvalidArgumentError(f'{where}: upper {hi.tolist()} must be >= lower '
                                   f'{lo.tolist()} on every axis')
    given = as_float_array(spacing, where, 'spacing').reshape(-1)
    if given.shape not in ((1,), (3,)) or not np.all(np.isfinite(given)) or \
            not np.all(given > 0.0):
        raise InvalidArgumentError(f'{where}: spacing must be one or three finite steps > 0 '
                                   f'[m], got {spacing!r}')
    step = np.broadcast_to(given, (3,))
    steps = (hi - lo) / step
    if not np.all(steps < MAX_TARGETS):
        raise InvalidArgumentError(f'{where}: more than MAX_TARGETS = {MAX_TARGETS} grid '
                                   f'points ({steps.tolist()} steps per axis)')
    counts = np.floor(steps + 1e-9).astype(np.int64) + 1
    R = _orientations(orientations, where)
    total = int(np.prod(counts)) * len(R)
    if total > MAX_TARGETS:
        raise InvalidArgumentError(f'{where}: {counts.tolist()} grid points x {len(R)} '
                                   f'orientations = {total} targets, more than MAX_TARGETS = '
                                   f'{MAX_TARGETS}')
    axes = [lo[i] + np.arange(counts[i]) * step[i] for i in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing='ij'), axis=-1).reshape(-1, 3)
    X = np.zeros((len(grid), len(R), 4, 4))
    X[:, :, :3, :3] = R
    X[:, :, :3, 3] = grid[:, None, :]
    X[:, :, 3, 3] = 1.0
    X_WT = X.reshape(-1, 4, 4)
    described = (f'{len(R)} Fibonacci directions' if isinstance(orientations, int | np.integer)
                 else f'{len(R)} orientations')
    return ReachTargets(X_WT=X_WT, points=X_WT[:, :3, 3], normals=X_WT[:, :3, 2],
                        source=f'workspace grid {lo.tolist()} .. {hi.tolist()} m, step '
                               f'{step.tolist()} m ({counts.tolist()} points) x {described}')


def free_rotation(targets: ReachTargets | ArrayLike, steps: int) -> FloatArray:
    """Each target turned about its own z axis in ``steps`` equal angles (REACH's free axis).

    REACH's ``DiscretizedMoveItIKSolver`` (``moveit_reach_plugins/src/ik/
    discretized_moveit_ik_solver.cpp``, ros-industrial/reach; ``reach_ros2``'s
    ``moveit_ik_solver.cpp`` is the same) solves IK for ``target * AngleAxisd(i * dt,
    UnitZ)``, ``i = 0 .. int(2π / dt) - 1``, and keeps the best-scoring solution. Here the
    angle step is ``dt = 2π / steps``: the same goals as REACH for ``steps = 2π / dt`` when
    ``dt`` divides a turn (REACH's ``int()`` leaves a gap otherwise). Slice ``j = 0`` is the
    target itself. The rotation right-multiplies, i.e. turns about the target's own z axis.

    The study applies this to its IK goals (the targets turned by π about x); since
    ``Rx(π) Rz(θ) = Rz(-θ) Rx(π)``, turning before or after that flip gives the same set of
    goals (slice ``j`` becomes slice ``-j mod steps``).

    Args:
        targets: ``(N, 4, 4)`` poses ``X_WT`` (or :class:`ReachTargets`) [m].
        steps: Angles per target, ``>= 1`` (``1``: the targets unchanged).

    Returns:
        ``(N, steps, 4, 4)``: ``out[i, j] = X_WT[i] @ Rz(2π j / steps)`` (translation kept).
        ``out.reshape(-1, 4, 4)`` lists them target-major.

    Raises:
        InvalidArgumentError: ``targets`` is not ``(N, 4, 4)`` finite rigid poses; ``steps`` is
            not an int ``>= 1``; more than :data:`MAX_TARGETS` poses would result.
    """
    where = 'free_rotation'
    X = targets.X_WT if isinstance(targets, ReachTargets) else as_float_array(targets, where,
                                                                              'targets')
    if X.ndim != 3 or X.shape[1:] != (4, 4) or not np.all(np.isfinite(X)):
        raise InvalidArgumentError(f'{where}: targets must be finite (N, 4, 4) poses, got '
                                   f'shape {X.shape}')
    _check_rigid(X, where, 'targets')
    k = _count(steps, where, 'steps')
    if len(X) * k > MAX_TARGETS:
        raise InvalidArgumentError(f'{where}: {len(X)} targets x {k} steps is more than '
                                   f'MAX_TARGETS = {MAX_TARGETS}')
    angle = 2.0 * math.pi * np.arange(k) / k
    Rz = np.zeros((k, 4, 4))
    Rz[:, 0, 0] = Rz[:, 1, 1] = np.cos(angle)
    Rz[:, 1, 0] = np.sin(angle)
    Rz[:, 0, 1] = -Rz[:, 1, 0]
    Rz[:, 2, 2] = Rz[:, 3, 3] = 1.0
    out: FloatArray = X[:, None] @ Rz[None]
    return out


def _count(value: object, where: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InvalidTypeError(f'{where}: {what} must be an int, got {value!r}')
    if not 1 <= value <= MAX_TARGETS:
        raise InvalidArgumentError(f'{where}: {what} must be in [1, {MAX_TARGETS}], got {value}')
    return int(value)


def _vectors(values: object, where: str, what: str) -> FloatArray:
    """``values`` as a finite ``(N, 3)`` float64 array."""
    a = as_float_array(values, where, what)
    if a.ndim != 2 or a.shape[1] != 3:
        raise InvalidArgumentError(f'{where}: {what} must have shape (N, 3), got {a.shape}')
    bad = ~np.isfinite(a).all(axis=1)
    if bad.any():
        raise InvalidArgumentError(f'{where}: {what} has non-finite values (first at row '
                                   f'{int(np.argmax(bad))})')
    if a.size and np.abs(a).max() > MAX_COORDINATE:
        raise InvalidArgumentError(f'{where}: {what} exceed {MAX_COORDINATE:g}')
    return a


def _vector3(value: object, where: str, what: str) -> FloatArray:
    """``value`` as a finite ``(3,)`` float64 vector."""
    a = as_float_array(value, where, what)
    if a.shape != (3,):
        raise InvalidArgumentError(f'{where}: {what} must have shape (3,), got {a.shape}')
    out: FloatArray = _vectors(a[None], where, what)[0]
    return out


def _unit_rows(a: FloatArray, where: str, what: str) -> FloatArray:
    """The rows of ``a`` normalised; a zero row is refused."""
    norm = np.linalg.norm(a, axis=1)
    if np.any(norm < _MIN_NORM):
        raise InvalidArgumentError(f'{where}: {what} has a zero vector (row '
                                   f'{int(np.argmax(norm < _MIN_NORM))})')
    out: FloatArray = a / norm[:, None]
    return out


def _project(direction: FloatArray, n: FloatArray) -> FloatArray:
    """Unit projections of ``direction`` onto the planes normal to the rows of ``n``.

    Only called where ``|n · direction| <= 0.9`` (or ``< 0.45`` for the fallback), so the
    projection is at least 0.43 long.
    """
    a = direction[None, :] - (n @ direction)[:, None] * n
    out: FloatArray = a / np.linalg.norm(a, axis=1)[:, None]
    return out


def _check_rigid(X: FloatArray, where: str, what: str) -> None:
    """Refuse ``(N, 4, 4)`` poses that are not rigid within ``RIGID_TOLERANCE``."""
    R = X[:, :3, :3]
    error = np.abs(np.swapaxes(R, 1, 2) @ R - np.eye(3)).max(axis=(1, 2))
    error = np.maximum(error, np.abs(np.linalg.det(R) - 1.0))
    error = np.maximum(error, np.abs(X[:, 3] - (0.0, 0.0, 0.0, 1.0)).max(axis=1))
    bad = error > RIGID_TOLERANCE
    if bad.any():
        raise InvalidArgumentError(f'{where}: {what}[{int(np.argmax(bad))}] is not a rigid '
                                   '(proper rotation, last row [0, 0, 0, 1]) transform')
    if np.abs(X[:, :3, 3]).max() > MAX_COORDINATE:
        raise InvalidArgumentError(f'{where}: {what} translations exceed {MAX_COORDINATE:g} m')


def _part_pose(X_WP: ArrayLike | None, where: str) -> FloatArray:
    return np.eye(4) if X_WP is None else as_pose(X_WP, where, 'X_WP')


def _scale(scale: ArrayLike, where: str) -> tuple[float, float, float]:
    s = np.asarray(as_float_array(scale, where, 'scale')).reshape(-1)
    if s.shape == (1,):
        s = np.repeat(s, 3)
    if s.shape != (3,) or not np.all(np.isfinite(s)) or np.any(s == 0.0):
        raise InvalidArgumentError(f'{where}: scale must be one or three finite non-zero '
                                   f'factors, got {scale!r}')
    return float(s[0]), float(s[1]), float(s[2])


def _orientations(orientations: int | ArrayLike, where: str) -> FloatArray:
    """``(K, 3, 3)`` rotations from a count (Fibonacci directions) or from matrices."""
    if isinstance(orientations, int | np.integer) and not isinstance(orientations, bool):
        directions = fibonacci_sphere(int(orientations))
        out: FloatArray = frame_from_normal(np.zeros_like(directions), directions)[:, :3, :3]
        return out
    M = as_float_array(orientations, where, 'orientations')
    if M.ndim != 3 or M.shape[1:] not in ((3, 3), (4, 4)) or len(M) == 0:
        raise InvalidArgumentError(f'{where}: orientations must be an int or have shape '
                                   f'(K >= 1, 3, 3) or (K >= 1, 4, 4), got {M.shape}')
    if not np.all(np.isfinite(M)):
        raise InvalidArgumentError(f'{where}: orientations have non-finite values')
    X = M
    if M.shape[1:] == (3, 3):
        X = np.zeros((len(M), 4, 4))
        X[:, :3, :3] = M
        X[:, 3, 3] = 1.0
    elif np.any(M[:, :3, 3] != 0.0):
        raise InvalidArgumentError(f'{where}: orientation '
                                   f'{int(np.argmax(np.any(M[:, :3, 3] != 0.0, axis=1)))} has '
                                   'a translation; give rotations only')
    _check_rigid(X, where, 'orientations')
    rotations: FloatArray = X[:, :3, :3]
    return rotations


def _crowded(points: FloatArray, radius: float) -> Any:
    """Which samples trimesh's ``remove_close`` drops: ``(M,)`` bool.

    ``trimesh.points.remove_close`` (trimesh 5.2): over every pair at most ``radius`` apart
    (scipy ``cKDTree.query_pairs``), drop the member in more such pairs (the first on a tie).
    The pairs are found here by bucketing the points in cubes of side ``radius``: a pair's
    members lie in the same or adjacent cubes.
    """
    if len(points) < 2:
        return np.zeros(len(points), dtype=bool)
    cell = np.floor((points - points.min(axis=0)) / radius).astype(np.int64) + 1
    dims = cell.max(axis=0) + 2
    if float(dims[0]) * float(dims[1]) * float(dims[2]) >= 2.0**62:
        raise InvalidArgumentError(f'radius {radius:g} m is too small for a part '
                                   f'{np.ptp(points, axis=0).tolist()} m across')
    key = (cell[:, 0] * dims[1] + cell[:, 1]) * dims[2] + cell[:, 2]
    order = np.argsort(key, kind='stable')
    sorted_key = key[order]
    index = np.arange(len(points))
    pairs = []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                target = key + (dx * dims[1] + dy) * dims[2] + dz
                lo = np.searchsorted(sorted_key, target, side='left')
                hits = np.searchsorted(sorted_key, target, side='right') - lo
                i = np.repeat(index, hits)
                first = np.repeat(lo - (np.cumsum(hits) - hits), hits)
                j = order[first + np.arange(len(i))]
                mine = i < j
                i, j = i[mine], j[mine]
                near = np.einsum('ij,ij->i', points[i] - points[j],
                                 points[i] - points[j]) <= radius * radius
                pairs.append(np.column_stack([i[near], j[near]]))
    pair = np.concatenate(pairs)
    crowded = np.zeros(len(points), dtype=bool)
    if len(pair):
        degree = np.bincount(pair.ravel(), minlength=len(points))
        column = degree[pair].argmax(axis=1)
        crowded[pair[np.arange(len(pair)), column]] = True
    return crowded


def _read_ply(file: str) -> tuple[FloatArray, FloatArray]:
    """Vertices and ``nx ny nz`` normals of a PLY file (trimesh's parser)."""
    from trimesh.exchange.ply import load_ply

    where = 'targets_from_point_cloud'
    try:
        with open(file, 'rb') as f:
            data = load_ply(f, fix_texture=False, skip_materials=True)
    except OSError as err:
        raise InvalidArgumentError(f'{where}: cannot read point cloud {file!r}: {err}') from err
    except Exception as err:  # trimesh raises ValueError, KeyError, IndexError on bad files
        raise InvalidArgumentError(f'{where}: point cloud {file!r} is not a valid PLY file: '
                                   f'{type(err).__name__}: {err}') from err
    if 'vertices' not in data:
        return np.zeros((0, 3)), np.zeros((0, 3))
    if 'vertex_normals' not in data:
        raw = data.get('metadata', {}).get('_ply_raw', {})
        fields = list(raw.get('vertex', {}).get('properties', {}))
        raise InvalidArgumentError(f'{where}: point cloud {file!r} has no normals (PLY vertex '
                                   f'properties nx ny nz; it has {fields}); REACH needs a '
                                   'normal at every point')
    return (np.asarray(data['vertices'], dtype=np.float64),
            np.asarray(data['vertex_normals'], dtype=np.float64))


def _read_pcd(file: str) -> tuple[FloatArray, FloatArray]:
    """Points and ``normal_x normal_y normal_z`` of a PCD file (pypcd4)."""
    from pypcd4.pypcd4 import PointCloud

    where = 'targets_from_point_cloud'
    try:
        cloud = PointCloud.from_path(file)
    except OSError as err:
        raise InvalidArgumentError(f'{where}: cannot read point cloud {file!r}: {err}') from err
    except Exception as err:  # pydantic's ValidationError, ValueError, RuntimeError (lzf), ...
        raise InvalidArgumentError(f'{where}: point cloud {file!r} is not a valid PCD file: '
                                   f'{type(err).__name__}: {err}') from err
    fields = list(cloud.fields)
    missing = [f for f in ('x', 'y', 'z') if f not in fields]
    if missing:
        raise InvalidArgumentError(f'{where}: point cloud {file!r} has no {" ".join(missing)} '
                                   f'field (fields: {fields})')
    if not all(f in fields for f in ('normal_x', 'normal_y', 'normal_z')):
        raise InvalidArgumentError(f'{where}: point cloud {file!r} has no normals (PCD fields '
                                   f'normal_x normal_y normal_z; it has {fields}); REACH needs '
                                   'a normal at every point')
    data = np.asarray(cloud.numpy(('x', 'y', 'z', 'normal_x', 'normal_y', 'normal_z')),
                      dtype=np.float64).reshape(-1, 6)
    if len(data) != cloud.points:
        raise InvalidArgumentError(f'{where}: point cloud {file!r} declares {cloud.points} '
                                   f'points but holds {len(data)} (truncated?)')
    return data[:, :3], data[:, 3:]
