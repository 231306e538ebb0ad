"""The robot's geometry, registered in a Drake-style geometry registry and kept in index form.

:class:`RobotGeometry` turns the links of a :class:`~robot_state_core.model.robot_model.RobotModel`
into geometry (seed §3, G-C1..G-C8):

* a ``'robot'`` source in a :class:`~robot_state_core.geometry.scene_graph.SceneGraph`, one frame
  per link (named after the link; every frame hangs on the world and takes ``X_WL`` as its
  pose, so ``compute_world_poses((link_frame_ids, X_WL), Role.PROXIMITY)`` equals
  :meth:`RobotGeometry.world_poses`);
* each URDF ``<collision>`` as a PROXIMITY geometry named ``'<link>/<i>'`` (``i`` counts the
  link's collision elements), with the padded/scaled shape that is actually collided;
* each URDF ``<visual>`` as an ILLUSTRATION geometry named ``'<link>/visual/<i>'`` with
  ``('phong', 'diffuse')`` from the material colour (grey ``(0.9, 0.9, 0.9, 1)``, Drake's
  default, without one).

A :class:`~robot_state_core.scene.planning_scene.PlanningScene` registers the robot this way into
its own registry, its geometry store (with attached bodies and world objects). The hot path
reads no registry records: the proximity geometries are also kept as index arrays,
``geometry_link (G,)``, ``X_LG (G, 4, 4)``, ``shapes`` and ``names`` (in the order of
:attr:`RobotGeometryRegistration.proximity_ids`), and :meth:`RobotGeometry.world_poses` is one
batched product ``X_WL[geometry_link] @ X_LG``.

Padding and scale (MoveIt's link padding/scale; ``scale`` first, then ``padding`` [m]). The
padded shape contains the original one and its surface lies about ``padding`` outside it (each
kind's ``padded`` in its module of :mod:`robot_state_core.geometry.shapes`):

=============  ===================================================================================
shape          padded (``s`` = scale, ``p`` = padding)
=============  ===================================================================================
Sphere         ``radius·s + p`` (exact offset surface)
Ellipsoid      every semi-axis ``·s + p`` (approximate: exact on the axes, a little less than ``p``
               between them; the offset surface of an ellipsoid is not an ellipsoid)
Capsule        ``radius·s + p``, ``length·s`` (exact offset surface)
Box            every full edge ``·s + 2p``: each face moves out by exactly ``p`` (sharp corners,
               a superset of the rounded offset body)
Cylinder       ``radius·s + p``, ``length·s + 2p`` (caps and mantle move out by exactly ``p``)
Cone           ``radius·s + p``, ``length·s + 2p`` (approximate: the slanted side moves out by
               less than ``p`` near the apex)
HalfSpace      the boundary plane moves out by ``p`` along its normal (scale does not apply)
Mesh, Convex   scaled about the centre ``c`` of the mesh's axis-aligned bounding box, per axis
               ``f_k = (s·e_k + 2p) / e_k`` (``e`` the box extents): the box faces move out by
               exactly ``p``, other surface points by ``≈ p`` (less in concave regions and on
               slanted faces of elongated meshes). The backend only collides mesh *files*, so the
               scaling is expressed as ``Mesh(scale=f·scale)`` plus a shift ``(1 - f)·c`` folded
               into ``X_LG``; the file is loaded once and shared. A flat axis (``e_k = 0``) is
               not padded.
=============  ===================================================================================

Mesh mode. ``mesh_mode='exact'`` (the default, like MoveIt's FCL plugin) collides the triangle
mesh itself (an OBBRSS BVH in fcl): verdicts are exact for the surfaces, but a mesh is a
*surface*, so a small body entirely inside a mesh does not collide with it, and mesh distances
are slow (tens of µs to ms per pair). ``'convex'`` collides the convex hull (GJK/EPA): faster
distances, closed volumes and signed penetration, but conservative (hulls fill concavities,
e.g. a gripper's opening). ``mesh_mode`` may be a mapping ``{link name: mode}``; unlisted links
are ``'exact'``.

Collision meshes are read when the geometry is built. One that cannot be used (its URI never
resolved to a file; the file missing, unreadable, not a mesh or without triangles; no 3D hull in
``'convex'`` mode) is skipped with one warning naming the link, the element and the URI (listed
in :attr:`RobotGeometry.skipped`, the warnings of read failures in
:attr:`RobotGeometry.unreadable`); the link keeps its other collision geometry. This is MoveIt's
behaviour: ``RobotModel::constructShape`` gets a null shape from geometric_shapes'
``createMeshFromResource`` (which logs why) and ``constructLinkModel`` leaves it out (decision
V8).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import logging
import math
from types import ModuleType
from typing import cast, Literal

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import BoolArray, FloatArray, IntArray
from robot_state_core.errors import (
    InvalidArgumentError,
    RobotStateCoreError,
)
from robot_state_core.geometry import meshes
from robot_state_core.geometry.roles import (
    make_phong_illustration_properties,
    ProximityProperties,
)
from robot_state_core.geometry.scene_graph import (
    FrameId,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    SceneGraph,
    SourceId,
)
from robot_state_core.geometry.shapes import Convex, Mesh, module_of, Shape
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.composition import poses_on_frames

__all__ = [
    'DEFAULT_DIFFUSE',
    'MESH_MODES',
    'PADDING_GROUP',
    'MeshMode',
    'RobotGeometry',
    'RobotGeometryRegistration',
    'padded_shape',
]

_LOG = logging.getLogger(__name__)

MeshMode = Literal['exact', 'convex']
MESH_MODES: tuple[MeshMode, ...] = ('exact', 'convex')

DEFAULT_DIFFUSE: tuple[float, float, float, float] = (0.9, 0.9, 0.9, 1.0)
'''Diffuse colour of visuals without a material colour (Drake's default).'''
PADDING_GROUP = 'robot_state_core'
'''Proximity-property group holding ``'padding'`` and ``'scale'`` of each robot geometry.'''


def _ro_float(a: ArrayLike) -> FloatArray:
    arr = np.array(a, dtype=np.float64)
    arr.setflags(write=False)
    return arr


def _ro_int(a: ArrayLike) -> IntArray:
    arr = np.array(a, dtype=np.intp)
    arr.setflags(write=False)
    return arr


def _ro_bool(a: ArrayLike) -> BoolArray:
    arr = np.array(a, dtype=np.bool_)
    arr.setflags(write=False)
    return arr


def _check_factor(value: float, what: str, *, positive: bool) -> float:
    v = float(value)
    if not math.isfinite(v) or (v <= 0.0 if positive else v < 0.0):
        raise InvalidArgumentError(
            f'RobotGeometry: {what} must be a finite {"positive" if positive else "non-negative"}'
            f' number, got {value!r}')
    return v


def padded_shape(shape: Shape, padding: float = 0.0,
                 scale: float = 1.0) -> tuple[Shape, FloatArray]:
    """A shape scaled and padded as MoveIt pads link shapes (module docstring table).

    Args:
        shape: The original shape, in its geometry frame G.
        padding: Outward offset of the surface [m], ``>= 0``.
        scale: Size factor applied first, ``> 0`` (about the shape's centre).

    Returns:
        ``(shape', X_GG')``: the new shape and the pose of its frame in the original frame G
        (identity except for meshes, which are scaled about their bounding-box centre, and
        half-spaces, whose plane moves along +z).

    Raises:
        InvalidArgumentError: Negative/non-finite padding, non-positive scale, unknown shape.
        RobotDescriptionError: A mesh must be read (padding or scale) but cannot be.
    """
    p = _check_factor(padding, 'padding', positive=False)
    s = _check_factor(scale, 'scale', positive=True)
    module = module_of(shape, 'padded_shape')
    if p == 0.0 and s == 1.0:
        return shape, np.eye(4)
    out: tuple[Shape, FloatArray] = module.padded(shape, p, s)  # the kind's own padding
    return out


@dataclass(frozen=True, eq=False)
class RobotGeometryRegistration:
    """What :meth:`RobotGeometry.register` put into a registry.

    Attributes:
        scene_graph: The registry.
        source_id: The robot source.
        link_frame_ids: ``(L,)`` the frame of each link, model link order.
        proximity_ids: ``(G,)`` the proximity geometries, in :attr:`RobotGeometry.names` order.
        illustration_ids: The illustration geometries (visuals), in model link order.
    """

    scene_graph: SceneGraph
    source_id: SourceId
    link_frame_ids: tuple[FrameId, ...]
    proximity_ids: tuple[GeometryId, ...]
    illustration_ids: tuple[GeometryId, ...]


class RobotGeometry:
    """A robot model's collision and visual geometry (module docstring).

    Immutable after construction and safe to share between planning scenes and threads.

    Attributes:
        model: The robot model.
        geometry_link: ``(G,)`` link index of each proximity geometry (read-only).
        X_LG: ``(G, 4, 4)`` pose of each (padded) proximity geometry in its link frame.
        shapes: The ``G`` (padded, scaled, mesh-mode converted) shapes that are collided.
        names: ``'<link>/<i>'`` for each proximity geometry.
        link_collision_enabled: ``(L,)`` the scene graph's per-link collision flag (SG-13):
            geometries of a disabled link take part in no query.
        link_has_geometry: ``(L,)`` whether the link has at least one proximity geometry.
        unpadded: No link is padded or scaled.
        skipped: Names of collision elements left out (unresolved or unreadable mesh URIs).
        unreadable: One warning line per collision mesh that resolved to a file but could not
            be read (link, element, URI and reason); they are also in :attr:`skipped`.
        registration: The registry built at construction (``'robot'`` source).
    """

    def __init__(self, model: RobotModel, *, padding: float | Mapping[str, float] = 0.0,
                 scale: float | Mapping[str, float] = 1.0,
                 mesh_mode: MeshMode | Mapping[str, MeshMode] = 'exact') -> None:
        """Build the geometry of ``model``.

        Args:
            model: The robot model.
            padding: Padding [m] of every link, or ``{link: padding}`` (unlisted links: 0).
            scale: Scale of every link, or ``{link: scale}`` (unlisted links: 1).
            mesh_mode: ``'exact'`` (triangle meshes) or ``'convex'`` (convex hulls) for every
                link, or ``{link: mode}`` (unlisted links: ``'exact'``).

        Raises:
            InvalidArgumentError: Invalid padding, scale or mesh mode.
            UnknownNameError: A mapping names a link the model does not have.
        """
        if not isinstance(model, RobotModel):
            raise InvalidArgumentError(f'RobotGeometry: model must be a RobotModel, got '
                                       f'{type(model).__name__}')
        self.model = model
        n_links = model.link_count
        self._padding = self._per_link(padding, 0.0, 'padding', positive=False)
        self._scale = self._per_link(scale, 1.0, 'scale', positive=True)
        self._mesh_mode = self._per_link_mode(mesh_mode)
        graph = model.to_scene_graph()
        self.link_collision_enabled: BoolArray = _ro_bool(
            [graph.get_link_collision_enabled(n) for n in model.link_names])

        links: list[int] = []
        poses: list[FloatArray] = []
        shapes: list[Shape] = []
        names: list[str] = []
        skipped: list[str] = []
        unreadable: list[str] = []
        for li, link in enumerate(model.links):
            pad, sc, mode = self._padding[li], self._scale[li], self._mesh_mode[li]
            for i, element in enumerate(link.collisions):
                name = f'{link.name}/{i}'
                shape = element.geometry
                if mode == 'convex' and isinstance(shape, Mesh):  # the mesh mode's hull
                    shape = Convex(shape.uri, shape.scale, shape.path)
                module = module_of(shape, 'RobotGeometry')
                if module.MESH_FILE:
                    problem = self._mesh_problem(cast(meshes.MeshFileShape, shape), module,
                                                 link.name, name)
                    if problem is not None:
                        skipped.append(name)
                        if problem:
                            unreadable.append(problem)
                        continue
                new_shape, X_GGp = padded_shape(shape, pad, sc)
                links.append(li)
                poses.append(element.origin @ X_GGp)
                shapes.append(new_shape)
                names.append(name)
        self.geometry_link: IntArray = _ro_int(links)
        self.X_LG: FloatArray = _ro_float(np.stack(poses) if poses else np.zeros((0, 4, 4)))
        self.shapes: tuple[Shape, ...] = tuple(shapes)
        self.names: tuple[str, ...] = tuple(names)
        self.skipped: tuple[str, ...] = tuple(skipped)
        self.unreadable: tuple[str, ...] = tuple(unreadable)
        has = np.zeros(n_links, dtype=bool)
        has[self.geometry_link] = True
        self.link_has_geometry: BoolArray = _ro_bool(has)
        #: No link is padded or scaled (the geometry is the description's own).
        self.unpadded: bool = all(p == 0.0 for p in self._padding) and \
            all(s == 1.0 for s in self._scale)
        self.registration = self.register(SceneGraph())

    # ------------------------------------------------------------------ per-link options

    @staticmethod
    def _mesh_problem(shape: meshes.MeshFileShape, module: ModuleType, link: str,
                      name: str) -> str | None:
        """Why a collision mesh is skipped (logged): ``''`` unresolved, else the warning line.

        ``None`` when its triangles are read (cached: the backend reuses them).
        """
        if shape.path is None:
            _LOG.warning(f'RobotGeometry: collision mesh {shape.uri!r} of link {link!r} '
                         f'(element {name!r}) is not resolved to a file, the element is skipped')
            return ''
        try:
            module.read_triangles(shape)
        except RobotStateCoreError as err:
            reason = ' '.join(str(err).split())
            line = (f'RobotGeometry: collision mesh {shape.uri!r} of link {link!r} (element '
                    f'{name!r}) cannot be loaded, the element is skipped: {reason}')
            _LOG.warning(line)
            return line
        return None

    def _per_link(self, value: float | Mapping[str, float], default: float, what: str, *,
                  positive: bool) -> tuple[float, ...]:
        names = self.model.link_names
        if isinstance(value, Mapping):
            out = [default] * len(names)
            for link, v in value.items():
                out[self.model.link_index(link)] = _check_factor(v, f'{what} of {link!r}',
                                                                 positive=positive)
            return tuple(out)
        return (_check_factor(value, what, positive=positive),) * len(names)

    def _per_link_mode(self, value: MeshMode | Mapping[str, MeshMode]) -> tuple[MeshMode, ...]:
        def check(mode: object, what: str) -> MeshMode:
            for m in MESH_MODES:
                if mode == m:
                    return m
            raise InvalidArgumentError(f'RobotGeometry: {what} must be one of {MESH_MODES}, '
                                       f'got {mode!r}')

        names = self.model.link_names
        if isinstance(value, Mapping):
            out: list[MeshMode] = ['exact'] * len(names)
            for link, mode in value.items():
                out[self.model.link_index(link)] = check(mode, f'mesh_mode of {link!r}')
            return tuple(out)
        return (check(value, 'mesh_mode'),) * len(names)

    def padding_of(self, link: str) -> float:
        """The padding [m] of ``link``. Raises :class:`UnknownNameError`."""
        return self._padding[self.model.link_index(link)]

    def scale_of(self, link: str) -> float:
        """The scale of ``link``. Raises :class:`UnknownNameError`."""
        return self._scale[self.model.link_index(link)]

    def mesh_mode_of(self, link: str) -> MeshMode:
        """The mesh mode of ``link``. Raises :class:`UnknownNameError`."""
        return self._mesh_mode[self.model.link_index(link)]

    # ------------------------------------------------------------------ registry

    def register(self, scene_graph: SceneGraph,
                 source_name: str = 'robot') -> RobotGeometryRegistration:
        """Register the robot in a registry: one source, one frame per link, its geometries.

        Args:
            scene_graph: The registry (it must not have a source named ``source_name``).
            source_name: Name of the robot source.

        Returns:
            The ids that were registered.

        Raises:
            GeometryRegistrationError: ``source_name`` is taken.
        """
        source = scene_graph.register_source(source_name)
        frame_ids = tuple(scene_graph.register_frame(source, GeometryFrame(name))
                          for name in self.model.link_names)
        proximity = []
        for li, X_LG, shape, name in zip(self.geometry_link.tolist(), self.X_LG, self.shapes,
                                         self.names, strict=True):
            props = ProximityProperties()
            props.add_property(PADDING_GROUP, 'padding', self._padding[li])
            props.add_property(PADDING_GROUP, 'scale', self._scale[li])
            proximity.append(scene_graph.register_geometry(
                source, frame_ids[li], GeometryInstance(X_LG, shape, name, (props,))))
        illustration = []
        for li, link in enumerate(self.model.links):
            for i, visual in enumerate(link.visuals):
                color = visual.material.color if visual.material is not None else None
                rgba = DEFAULT_DIFFUSE if color is None else tuple(
                    min(1.0, max(0.0, float(c))) if math.isfinite(c) else 1.0 for c in color)
                illustration.append(scene_graph.register_geometry(
                    source, frame_ids[li], GeometryInstance(
                        visual.origin, visual.geometry, f'{link.name}/visual/{i}',
                        (make_phong_illustration_properties(rgba),))))
        return RobotGeometryRegistration(scene_graph, source, frame_ids, tuple(proximity),
                                         tuple(illustration))

    @property
    def scene_graph(self) -> SceneGraph:
        """The registry built at construction (holds only the ``'robot'`` source).

        Each :class:`~robot_state_core.scene.planning_scene.PlanningScene` starts its own registry
        as a copy of this one (same ids); do not edit it.
        """
        return self.registration.scene_graph

    # ------------------------------------------------------------------ queries

    def __len__(self) -> int:
        """Number of proximity geometries ``G``."""
        return len(self.shapes)

    def geometry_indices(self, link: str) -> IntArray:
        """Indices of ``link``'s proximity geometries. Raises :class:`UnknownNameError`."""
        out: IntArray = np.flatnonzero(self.geometry_link == self.model.link_index(link))
        return out

    def link_name(self, index: int) -> str:
        """The link name of proximity geometry ``index``."""
        return self.model.link_names[int(self.geometry_link[index])]

    def world_poses(self, X_WL: ArrayLike, out: FloatArray | None = None) -> FloatArray:
        """``X_WG = X_WL[geometry_link] @ X_LG``: every proximity geometry, one batched product.

        Args:
            X_WL: ``(L, 4, 4)`` link poses in the model frame (``state.get_link_poses()``).
            out: Optional ``(G, 4, 4)`` output buffer.

        Returns:
            ``(G, 4, 4)`` geometry poses, in :attr:`names` order.

        Raises:
            InvalidArgumentError: ``X_WL`` is not ``(L, 4, 4)``.
        """
        X = np.asarray(X_WL, dtype=np.float64)
        if X.shape != (self.model.link_count, 4, 4):
            raise InvalidArgumentError(f'RobotGeometry.world_poses: X_WL must have shape '
                                       f'({self.model.link_count}, 4, 4), got {X.shape}')
        return poses_on_frames(X, self.geometry_link, self.X_LG, out)

    def __repr__(self) -> str:
        return (f'RobotGeometry({self.model.name!r}: {len(self.shapes)} proximity geometries '
                f'on {int(self.link_has_geometry.sum())} links)')

