"""Bodies rigidly attached to a robot link (MoveIt ``AttachedBody``), and shape bounding boxes.

An :class:`AttachedBody` is immutable: attaching, re-attaching or detaching it changes the
:class:`~robot_state_core.state.robot_state.RobotState` that holds it, never the body, so states
can share one instance (this replaces MoveIt's "never attach one instance to several states; copy
it instead", RS-140).

Frames (monogram notation, design study B5):
    * ``L``: the link the body is attached to; ``B``: the body frame; ``S``: one of its shapes;
      ``F``: a named subframe; ``W``: the model frame.
    * ``pose`` is ``X_LB``; ``shape_poses`` are ``X_BS`` (MoveIt ``getShapePoses``);
      ``subframes`` are ``X_BF``. In the model frame: ``X_WB = X_WL @ X_LB``,
      ``X_WS = X_WB @ X_BS`` and ``X_WF = X_WB @ X_BF`` (:func:`attached_body_global_poses`).

The second half of the module computes exact axis-aligned bounding boxes of posed shapes
(:class:`ShapeExtents`, :func:`shape_aabbs`, :func:`aabb_of_shapes`), used by
``RobotState.compute_aabb`` (RS-152). Boxes, spheres, ellipsoids, cylinders, capsules and cones
are exact under any rotation (each kind's ``posed_aabbs`` in its shape module); meshes use
their transformed vertices (loaded with trimesh, cached per file; an unreadable one is skipped
with a warning); half-spaces are unbounded and skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
import functools
import logging
from types import MappingProxyType
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import as_finite_float, IntArray
from robot_state_core._typing import read_only as _ro
from robot_state_core.errors import InvalidArgumentError, RobotStateCoreError
from robot_state_core.geometry import meshes
from robot_state_core.geometry.shapes import (
    kind_of,
    module_of,
    Shape,
    SHAPE_MODULES,
    SHAPE_TYPES,
)
from robot_state_core.spatial.transforms import as_pose, FloatArray

__all__ = [
    'AttachedBody',
    'AttachedBodyPoses',
    'DetachPosture',
    'ShapeExtents',
    'aabb_of_shapes',
    'attached_body_global_poses',
    'interleaved_aabb',
    'mesh_vertices',
    'shape_aabbs',
]

_LOG = logging.getLogger(__name__)


def _check_poses(value: ArrayLike, count: int | None, where: str) -> FloatArray:
    """``(n, 4, 4)`` finite homogeneous transforms (a single ``(4, 4)`` is one pose)."""
    a = np.array(value, dtype=np.float64)
    if a.shape == (4, 4) and count != 0:
        a = a[None]
    if a.ndim != 3 or a.shape[1:] != (4, 4) or (count is not None and a.shape[0] != count):
        expected = f'({count}, 4, 4)' if count is not None else '(n, 4, 4)'
        raise InvalidArgumentError(f'{where}: expected {expected} transforms, got shape '
                                   f'{a.shape}')
    if not np.isfinite(a).all():
        raise InvalidArgumentError(f'{where}: transforms must be finite')
    for k, X in enumerate(a):  # rigid, translations within MAX_COORDINATE
        as_pose(X, where, f'transform {k}')
    return a


@dataclass(frozen=True)
class DetachPosture:
    """The posture to move the given joints to when the body is released (RS-141).

    MoveIt keeps a ``trajectory_msgs/JointTrajectory`` (usually one point: the open gripper);
    this is that point.

    Attributes:
        joint_names: Joint (variable) names, e.g. the gripper's finger joints.
        positions: One value per name [rad or m].
    """

    joint_names: tuple[str, ...]
    positions: tuple[float, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, 'joint_names', tuple(str(n) for n in self.joint_names))
        object.__setattr__(self, 'positions', tuple(
            as_finite_float(v, 'DetachPosture', 'position') for v in self.positions))
        if len(self.joint_names) != len(self.positions):
            raise InvalidArgumentError(
                f'DetachPosture: {len(self.joint_names)} joint names but '
                f'{len(self.positions)} positions')


@dataclass(frozen=True, eq=False)
class AttachedBody:
    """A body attached to a robot link (MoveIt ``AttachedBody``, RS-140/RS-141).

    Build it directly or through ``RobotState.attach_body``. All arrays are read-only copies.

    Attributes:
        name: Unique id of the body within a state.
        link: Name of the robot link the body is attached to.
        shapes: The body's collision shapes.
        shape_poses: ``X_BS`` ``(K, 4, 4)``: pose of each shape in the body frame.
        pose: ``X_LB`` ``(4, 4)``: pose of the body frame in the link frame.
        touch_links: Links the body may touch (collisions with them are allowed). The link it
            is attached to is *not* added implicitly, as in MoveIt (neither its ``AttachedBody``
            nor its planning scene adds it; its clients usually list it).
        detach_posture: Posture for releasing the body, or ``None``.
        subframes: ``{name: X_BF}``: named frames on the body (usable as IK tips), addressed
            from the state as ``'<body>/<subframe>'``.
    """

    name: str
    link: str
    shapes: tuple[Shape, ...] = ()
    shape_poses: FloatArray = field(default_factory=lambda: np.zeros((0, 4, 4)))
    pose: FloatArray = field(default_factory=lambda: np.eye(4))
    touch_links: frozenset[str] = frozenset()
    detach_posture: DetachPosture | None = None
    subframes: Mapping[str, FloatArray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = f'AttachedBody {self.name!r}'
        if not self.name:
            raise InvalidArgumentError('AttachedBody: the name must not be empty')
        shapes = tuple(self.shapes)
        bad = [type(s).__name__ for s in shapes if not isinstance(s, SHAPE_TYPES)]
        if bad:
            raise InvalidArgumentError(f'{where}: not shapes: {bad}')
        object.__setattr__(self, 'shapes', shapes)
        object.__setattr__(self, 'shape_poses', _ro(_check_poses(
            self.shape_poses, len(shapes), f'{where}: shape_poses')))
        object.__setattr__(self, 'pose', _ro(as_pose(self.pose, where, 'pose')))
        touch = self.touch_links
        object.__setattr__(self, 'touch_links', frozenset(
            (touch,) if isinstance(touch, str) else touch))
        subframes = {str(k): _ro(as_pose(v, where, f'subframe {k!r}'))
                     for k, v in dict(self.subframes).items()}
        object.__setattr__(self, 'subframes', MappingProxyType(subframes))

    @classmethod
    def create(cls, name: str, link: str, shapes: Iterable[Shape] = (),
               shape_poses: ArrayLike | None = None, pose: ArrayLike | None = None,
               touch_links: Iterable[str] = (), detach_posture: DetachPosture | None = None,
               subframes: Mapping[str, ArrayLike] | None = None) -> AttachedBody:
        """Build a body; ``shape_poses`` defaults to identities, ``pose`` to the identity."""
        shape_tuple = tuple(shapes)
        return cls(name, link, shape_tuple,
                   np.broadcast_to(np.eye(4), (len(shape_tuple), 4, 4))
                   if shape_poses is None else np.asarray(shape_poses, dtype=np.float64),
                   np.eye(4) if pose is None else np.asarray(pose, dtype=np.float64),
                   frozenset(touch_links), detach_posture,
                   {k: np.asarray(v, dtype=np.float64) for k, v in (subframes or {}).items()})

    @property
    def shape_poses_in_link_frame(self) -> FloatArray:
        """``X_LS = X_LB @ X_BS`` ``(K, 4, 4)`` (MoveIt ``getShapePosesInLinkFrame``)."""
        out: FloatArray = self.pose @ self.shape_poses
        return out

    @property
    def subframe_names(self) -> tuple[str, ...]:
        """Names of the subframes, in insertion order."""
        return tuple(self.subframes)

    @functools.cached_property
    def extents(self) -> ShapeExtents:
        """The bounding-box data of :attr:`shapes` (built once per body)."""
        return ShapeExtents.from_shapes(self.shapes)

    def __repr__(self) -> str:
        return (f'AttachedBody({self.name!r} on {self.link!r}: {len(self.shapes)} shape(s), '
                f'subframes={list(self.subframes)}, touch_links={sorted(self.touch_links)})')


@dataclass(frozen=True)
class AttachedBodyPoses:
    """The model-frame poses of an attached body for one robot configuration.

    Attributes:
        X_WB: ``(4, 4)`` pose of the body frame.
        X_WS: ``(K, 4, 4)`` pose of each shape (MoveIt ``getGlobalCollisionBodyTransforms``).
        subframe_names: Subframe names, in the order of ``X_WF``.
        X_WF: ``(F, 4, 4)`` pose of each subframe.
    """

    X_WB: FloatArray
    X_WS: FloatArray
    subframe_names: tuple[str, ...]
    X_WF: FloatArray

    def subframe(self, name: str) -> FloatArray | None:
        """``X_WF`` of subframe ``name``, or ``None``."""
        if name not in self.subframe_names:
            return None
        out: FloatArray = self.X_WF[self.subframe_names.index(name)]
        return out


def attached_body_global_poses(body: AttachedBody, X_WL: FloatArray) -> AttachedBodyPoses:
    """Pose the body, its shapes and subframes in the model frame.

    Args:
        body: The attached body.
        X_WL: ``(4, 4)`` pose of the body's link in the model frame.

    Returns:
        The poses (read-only arrays).
    """
    X_WB = X_WL @ body.pose
    names = body.subframe_names
    X_BF = np.stack([body.subframes[n] for n in names]) if names else np.zeros((0, 4, 4))
    return AttachedBodyPoses(_ro(X_WB), _ro(X_WB @ body.shape_poses), names, _ro(X_WB @ X_BF))


# ---------------------------------------------------------------------------- bounding boxes


def mesh_vertices(path: str) -> FloatArray:
    """The unscaled ``(V, 3)`` vertices of a mesh file (:func:`meshes.load_mesh`, cached).

    Raises:
        RobotDescriptionError: The file is missing, unreadable, empty or not a mesh trimesh
            can read (the message names the file and the reason).
    """
    vertices, _ = meshes.load_mesh(path)
    return vertices


def _mesh_path(shape: meshes.MeshFileShape) -> str | None:
    if shape.path:
        return shape.path
    uri = shape.uri
    if uri.startswith('file://'):
        return uri[len('file://'):]
    return uri if '://' not in uri else None


@dataclass(frozen=True)
class ShapeExtents:
    """Per-kind shape parameters for vectorized bounding boxes (built once per shape list).

    Attributes:
        count: Number of shapes ``N`` (poses passed to :func:`shape_aabbs` are ``(N, 4, 4)``).
        groups: One ``(kind, indices, table)`` per analytic shape kind present: the shape
            class, the ``(n,)`` indices of its shapes and their parameters (``aabb_table`` of
            the kind's module in :mod:`robot_state_core.geometry.shapes`, for its
            ``posed_aabbs``).
        mesh_index: Meshes and convex hulls whose file could be read; ``mesh_points``: their
            scaled vertices in the shape frame, one ``(V, 3)`` array each.
        unbounded_index: Shapes that have no bounding box (half-spaces, unreadable meshes).
    """

    count: int
    groups: tuple[tuple[type, IntArray, FloatArray], ...]
    mesh_index: IntArray
    mesh_points: tuple[FloatArray, ...]
    unbounded_index: IntArray

    @classmethod
    def from_shapes(cls, shapes: Sequence[Shape]) -> ShapeExtents:
        """Classify ``shapes`` once (a loop over shapes, not over configurations)."""
        kinds: dict[type, list[int]] = {}
        mesh_index: list[int] = []
        mesh_points: list[FloatArray] = []
        unbounded: list[int] = []
        for i, s in enumerate(shapes):
            module = module_of(s, 'ShapeExtents')
            if not module.BOUNDED:
                unbounded.append(i)
            elif module.MESH_FILE:
                points = _scaled_points(cast(meshes.MeshFileShape, s))
                if points is None:
                    unbounded.append(i)
                else:
                    mesh_index.append(i)
                    mesh_points.append(points)
            else:
                kinds.setdefault(kind_of(s), []).append(i)
        groups = []
        for kind, index in kinds.items():
            table: FloatArray = SHAPE_MODULES[kind].aabb_table([shapes[i] for i in index])
            table.setflags(write=False)
            groups.append((kind, _ro(index, np.intp), table))
        return cls(count=len(shapes), groups=tuple(groups),
                   mesh_index=_ro(mesh_index, np.intp), mesh_points=tuple(mesh_points),
                   unbounded_index=_ro(unbounded, np.intp))


def _scaled_points(shape: meshes.MeshFileShape) -> FloatArray | None:
    path = _mesh_path(shape)
    if path is None:
        _LOG.warning(f'bounding box: mesh {shape.uri!r} is not resolved to a file; skipped')
        return None
    try:
        vertices = mesh_vertices(path)
    except RobotStateCoreError as err:
        _LOG.warning(f'bounding box: cannot read mesh {path!r} ({err}); skipped')
        return None
    out: FloatArray = _ro(vertices * np.asarray(shape.scale, dtype=np.float64))
    return out


def shape_aabbs(extents: ShapeExtents, X_WS: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Exact axis-aligned bounding boxes of posed shapes.

    Args:
        extents: The shapes' :class:`ShapeExtents`.
        X_WS: ``(N, 4, 4)`` pose of each shape in the frame W the boxes are expressed in.

    Returns:
        ``(lower, upper)``, each ``(N, 3)`` [m]; rows of unbounded shapes are ``+inf``/``-inf``
        (empty boxes that vanish under min/max).
    """
    X = np.asarray(X_WS, dtype=np.float64).reshape(-1, 4, 4)
    if X.shape[0] != extents.count:
        raise InvalidArgumentError(f'shape_aabbs: {extents.count} shapes but {X.shape[0]} '
                                   'poses')
    lower = np.full((extents.count, 3), np.inf)
    upper = np.full((extents.count, 3), -np.inf)
    R, p = X[:, :3, :3], X[:, :3, 3]
    for kind, index, table in extents.groups:  # each kind's exact box (its module)
        lower[index], upper[index] = SHAPE_MODULES[kind].posed_aabbs(table, R[index], p[index])
    for i, points in zip(extents.mesh_index, extents.mesh_points, strict=True):
        world = points @ R[i].T + p[i]  # one product per mesh file, not per vertex
        if world.size:
            lower[i], upper[i] = world.min(axis=0), world.max(axis=0)
    return lower, upper


def interleaved_aabb(lower: ArrayLike, upper: ArrayLike) -> FloatArray:
    """Merge boxes into MoveIt's ``[minx, maxx, miny, maxy, minz, maxz]`` (zeros if none).

    Args:
        lower: ``(N, 3)`` lower corners (``+inf`` rows are ignored).
        upper: ``(N, 3)`` upper corners.
    """
    lo = np.asarray(lower, dtype=np.float64).reshape(-1, 3).min(axis=0, initial=np.inf)
    hi = np.asarray(upper, dtype=np.float64).reshape(-1, 3).max(axis=0, initial=-np.inf)
    if not np.isfinite(lo).all() or not np.isfinite(hi).all():
        return np.zeros(6)
    return np.stack([lo, hi], axis=1).reshape(6)


def aabb_of_shapes(extents: ShapeExtents, X_WS: ArrayLike) -> FloatArray:
    """The box ``[minx, maxx, miny, maxy, minz, maxz]`` containing every posed shape."""
    return interleaved_aabb(*shape_aabbs(extents, X_WS))
