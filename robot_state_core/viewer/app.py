"""The browser viewer: a viser page showing a robot, its joints, an IK gizmo and collisions.

:class:`RobotViewer` serves a page (viser; its web client ships with the package, so it works
offline) that is to this library what RViz's RobotModel/TF/Grid/MarkerArray displays,
joint_state_publisher_gui's sliders and MoveIt's interactive marker are to ROS:

* the robot's visual geometry (URDF colours; without one, the mesh file's own materials;
  meshes read by the core, ``package://`` and ``file://`` resolved by the loader), a ground
  grid and the world axes (toggles), the collision geometry and the link frames (TF axes,
  labelled, seen through the translucent robot) on request, and a link's name and pose when
  it is clicked;
* a slider per active variable and a drop-down of the SRDF named states (``group/state``;
  ``(current)`` once the state moved away from it); the page opens at the SRDF's first named
  state when there is one;
* one transform gizmo, at the tip of the group chosen in the IK drop-down (groups whose tip
  can move in all three directions): dragging it solves IK (seeded with the current state)
  and the page shows whether it solved; after a failed solve the gizmo returns to the tip,
  as RViz's interactive marker does, and the page says why;
* live collision state from a :class:`PlanningScene`: links in collision turn red, contact
  points and normals are drawn, the minimum distance is shown; boxes can be added to the
  world and moved with their own gizmo. Changes made on the page are drawn at once and their
  collision state follows from a worker thread, so dragging stays fluid on large robots;
* "Fit robot" and "Reset view" buttons;
* a *follow* mode (:meth:`RobotViewer.follow`), used by ``view --ros``: positions come from
  outside (``/joint_states``) and are drawn at up to ``max_fps``; every editing control is
  disabled;
* a reach study (:meth:`RobotViewer.show_reach`, ``view --reach``): every target a small sphere
  in REACH's heat-map colours (blue low score, red high, black not reached) with a line towards
  where the tool comes from, the part translucent grey, and a "Reach study" panel folder
  (reach %, normalised score, passes, legend). A click on a target puts the robot at its
  solution and shows the target's score and the tip pose (:meth:`RobotViewer.show_reach_target`).

Everything a person can do on the page is also a method here (``set_positions``,
``set_named_state``, ``set_ik_group``, ``drag_gizmo``, ``select_link``, ``add_box``,
``fit_view``, ...), which is how the tests drive it; these methods evaluate collisions before
they return. Poses are in the model frame, which is the page's world frame (+z up).

Thread safety: every public method may be called from any thread (one re-entrant lock).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
import contextlib
from dataclasses import dataclass
import io
import logging
import math
import re
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
import viser

from robot_state_core._typing import FloatArray
from robot_state_core.description.joints import JointType
from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.geometry.shapes import Box, Mesh, Shape
from robot_state_core.ik.solver import solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.reach.results import ReachDatabase, ReachSummary
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    CollisionRequest,
    CollisionResult,
    Contact,
    PlanningScene,
)
from robot_state_core.spatial.transforms import (
    as_pose,
    pose_error,
    quat_wxyz_from_xyzw,
    quat_xyzw_from_rotation,
    quat_xyzw_from_wxyz,
    rigid_inverse,
    rotation_from_quat_xyzw,
    rpy_from_rotation,
)
from robot_state_core.state.robot_state import RobotState
from robot_state_core.viewer.camera import (
    bounding_sphere_view,
    CameraPose,
    DEFAULT_AZIMUTH_DEG,
    DEFAULT_ELEVATION_DEG,
    direction_from_angles,
    fit_view,
)
from robot_state_core.viewer.controls import ik_capable_groups, slider_specs, SliderSpec
from robot_state_core.viewer.reach_layer import (
    DETAILED_TARGETS,
    legend_html,
    marker_colors,
    marker_radius,
    marker_sphere,
    summary_text,
    TOOL_LINE_RADII,
    tool_lines,
)
from robot_state_core.viewer.scene_meshes import (
    COLLISION_COLOR,
    element_meshes,
    ElementMesh,
    shape_triangles,
)

__all__ = ['COLLIDING_RGB', 'PART_RGB', 'WORLD_RGB', 'CollisionStatus', 'IKFeedback',
           'ReachTargetInfo', 'RobotViewer']

_LOG = logging.getLogger(__name__)


COLLIDING_RGB: tuple[int, int, int] = (230, 30, 30)
'''Colour of links in collision (and of contact points).'''
WORLD_RGB: tuple[int, int, int] = (120, 200, 120)
'''Colour of world objects.'''
NORMAL_RGB: tuple[int, int, int] = (250, 200, 0)
'''Colour of contact normals.'''
AMBIENT_LIGHT = 0.6
'''Intensity of the ambient light added to viser's default lights.'''
CAMERA_FOV = math.radians(45.0)
'''Vertical field of view of the initial camera [rad].'''
DEFAULT_ASPECT = 4.0 / 3.0
'''Picture width / height assumed for the initial camera (pages report theirs once open).'''
FIT_FILL = 0.9
'''Fraction of the picture's binding dimension the robot spans after "Fit robot".'''
FRAMES_OPACITY = 0.35
'''Opacity of the robot's visual geometry while the link frames are shown (axes seen inside).'''
GRID_CELL = 0.1
'''Edge [m] of a ground-grid cell (sections every 1 m).'''
FIT_POINTS_PER_ELEMENT = 512
'''Vertices per visual element kept for framing the camera (a subsample of large meshes).'''
PART_RGB: tuple[int, int, int] = (150, 150, 150)
'''Colour of a reach study's part (drawn translucent, :data:`PART_OPACITY`).'''
PART_OPACITY = 0.45
'''Opacity of a reach study's part.'''


@dataclass(frozen=True)
class CollisionStatus:
    """What the page shows about collisions for the drawn state.

    Attributes:
        collision: True when some checked pair collides (MoveIt ``checkCollision`` verdict).
        colliding_links: Robot links in a reported contact (drawn red), model order.
        contacts: The reported contacts (at most one per pair).
        min_distance: Minimum signed distance over the checked pairs [m] (``inf``: none).
        version: Counter of collision evaluations (increases with every evaluation).
    """

    collision: bool
    colliding_links: tuple[str, ...]
    contacts: tuple[Contact, ...]
    min_distance: float
    version: int


@dataclass(frozen=True)
class IKFeedback:
    """Result of one gizmo drag step.

    Attributes:
        group: The group solved for.
        tip: Its tip link.
        success: IK found a solution (the state now holds it).
        position_error: ``|p_tip - p_target|`` after the step [m] (the unchanged tip on
            failure).
        rotation_error: Angle between the tip and target orientations after the step [rad].
        message: The text the page shows.
    """

    group: str
    tip: str
    success: bool
    position_error: float
    rotation_error: float
    message: str


@dataclass(frozen=True)
class ReachTargetInfo:
    """A reach study's target as the panel shows it after a click.

    Attributes:
        index: The target's index in the study.
        reached: IK reached it (the robot now holds its solution, unless following).
        score: Its score in the final pass (0 where not reached).
        X_WT: ``(4, 4)`` the IK goal of the study's tip in the model frame.
        message: The text the panel shows.
    """

    index: int
    reached: bool
    score: float
    X_WT: FloatArray
    message: str


def _node_name(name: str) -> str:
    """A viser scene-node name component (no slashes or spaces)."""
    return re.sub(r'[^A-Za-z0-9_.-]', '_', name) or '_'


def _rgb(rgba: Sequence[float]) -> tuple[int, int, int]:
    return round(255 * rgba[0]), round(255 * rgba[1]), round(255 * rgba[2])


def _wxyz(X: FloatArray) -> FloatArray:
    """``(..., 4)`` wxyz quaternions of ``(..., 4, 4)`` poses."""
    return quat_wxyz_from_xyzw(quat_xyzw_from_rotation(X[..., :3, :3]))


def _pose_from(position: ArrayLike, wxyz: ArrayLike) -> FloatArray:
    X = np.eye(4)
    X[:3, :3] = rotation_from_quat_xyzw(quat_xyzw_from_wxyz(np.asarray(wxyz, dtype=float)))
    X[:3, 3] = np.asarray(position, dtype=float)
    return X


def _pose_text(X: FloatArray) -> str:
    """``xyz [m], rpy [deg]`` of a pose, for the page."""
    xyz = ', '.join(f'{v:.3f}' for v in X[:3, 3])
    rpy = ', '.join(f'{math.degrees(v):.1f}' for v in rpy_from_rotation(X[:3, :3]))
    return f'xyz ({xyz}) m, rpy ({rpy})°'


class RobotViewer:
    """A viser server showing one robot model (module docstring).

    Args:
        model: The robot model.
        host: Address to listen on (``127.0.0.1``: this machine only).
        port: HTTP/websocket port; when it is taken the next free one is used (viser), and
            ``0`` picks any free port. :attr:`port` / :attr:`url` tell which.
        controls: Build the control panel (sliders, states, gizmo, boxes). ``False`` for
            snapshots: only the robot (and world objects) are drawn.
        follow: Start in follow mode (positions come from :meth:`follow`; controls disabled).
        collision_period: Minimum time between two collision evaluations while following
            [s].
        max_fps: Upper bound on pose updates sent per second while following.
        padding: Link padding for the collision checks [m].
        initial_state: The named state the page opens at (``group/state`` or ``state``);
            ``None``: the first named state of the first group (model order) that has one,
            else the model's default values.
        collision_colors: Draw links in collision red and the contacts (``False``: the
            links keep their colours; the collision state is still computed and shown).

    Raises:
        InvalidArgumentError: Invalid ``collision_period``, ``max_fps`` or ``padding``.
        UnknownNameError: ``initial_state`` names no named state.
    """

    def __init__(self, model: RobotModel, *, host: str = '127.0.0.1', port: int = 8080,
                 controls: bool = True, follow: bool = False, collision_period: float = 0.1,
                 max_fps: float = 60.0, padding: float = 0.0,
                 initial_state: str | None = None, collision_colors: bool = True) -> None:
        if not (collision_period >= 0.0 and math.isfinite(collision_period)):
            raise InvalidArgumentError(f'RobotViewer: collision_period must be >= 0, got '
                                       f'{collision_period!r}')
        if not (max_fps > 0.0):
            raise InvalidArgumentError(f'RobotViewer: max_fps must be > 0, got {max_fps!r}')
        self.model = model
        self.planning_scene = PlanningScene(model, padding=padding)
        self._state = RobotState(model)
        self._lock = threading.RLock()
        self._collision_period = float(collision_period)
        self._min_frame_period = 1.0 / float(max_fps)
        self._following = bool(follow)
        self._controls = bool(controls)
        self._collision_colors = bool(collision_colors)
        self._syncing = False
        self._stopped = False
        self.frames_sent = 0
        self._last_collision_time = -math.inf
        self._status = CollisionStatus(False, (), (), math.inf, 0)
        self._world_nodes: dict[str, list[Any]] = {}
        self._box_gizmos: dict[str, Any] = {}
        self._box_count = 0
        self._pending: tuple[tuple[str, ...], FloatArray] | None = None
        self._pending_event = threading.Event()
        # Collisions of page-driven changes: the newest state, evaluated by a worker thread.
        self._collision_job: RobotState | None = None
        self._collision_generation = 0
        self._collision_busy = False
        self._collision_event = threading.Event()
        self._named_state = '(current)'
        self._selected_link: str | None = None
        self._selected_label: Any = None
        self._frame_labels: dict[str, Any] = {}
        self._show_frames = False
        self._dragging = False
        self._ik_capable = ik_capable_groups(model)
        self._ik_group: str | None = self._ik_capable[0] if self._ik_capable else None
        self._reach: ReachDatabase | None = None
        self._reach_nodes: list[Any] = []
        self._reach_points: FloatArray | None = None  # targets and part, for framing
        self._reach_radius = 0.0
        self._reach_target: ReachTargetInfo | None = None
        self._reach_marker: Any = None
        self._set_initial_state(initial_state)

        visuals, visual_warnings = element_meshes(model, 'visual')
        collisions, collision_warnings = element_meshes(model, 'collision')
        self.warnings: tuple[str, ...] = tuple(
            visual_warnings + collision_warnings
            + [f'mesh URI not resolved: {u}' for u in getattr(model, 'unresolved_meshes', ())
               if not any(u in w for w in visual_warnings + collision_warnings)])
        for w in self.warnings:
            _LOG.warning('viewer: %s', w)
        self._fit_points = self._element_points(visuals)

        with contextlib.redirect_stdout(io.StringIO()):  # viser prints a banner
            self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self._link_nodes: dict[str, Any] = {}
        self._link_paths: dict[str, str] = {}
        self._sliders: dict[str, Any] = {}
        self._gizmo: Any = None
        self._gui: dict[str, Any] = {}
        try:
            scene = self.server.scene
            scene.set_up_direction('+z')
            # No environment map: its prefiltering takes tens of seconds in software WebGL
            # (headless Chromium, no GPU); default lights plus an ambient light instead.
            scene.configure_environment_map(hdri=None)
            scene.configure_default_lights(True, cast_shadow=False)
            scene.add_light_ambient('/lights/ambient', intensity=AMBIENT_LIGHT)
            self._sent_poses = np.full((model.link_count, 7), np.nan)
            self._visual_nodes: dict[str, list[tuple[Any, tuple[int, int, int]]]] = {}
            self._collision_nodes: dict[str, list[Any]] = {}
            self._show_collision = False
            self._add_robot(visuals, collisions)
            self._contact_points: Any = None
            self._contact_normals: Any = None
            self._frame_node_scale = self._robot_size() * 0.08
            self._add_ground_and_axes()
            self._place_camera(CameraPose(*self._camera_for(DEFAULT_AZIMUTH_DEG,
                                                            DEFAULT_ELEVATION_DEG)))

            self._slider_specs = slider_specs(model)
            if controls:
                self._build_gui()
            self._render(collisions='now')
        except BaseException:
            with contextlib.redirect_stdout(io.StringIO()):
                self.server.stop()
            raise
        self._thread = threading.Thread(target=self._follow_loop, name='viewer-follow',
                                        daemon=True)
        self._thread.start()
        self._collision_thread = threading.Thread(target=self._collision_loop,
                                                  name='viewer-collisions', daemon=True)
        self._collision_thread.start()

    # ------------------------------------------------------------------ properties

    @property
    def port(self) -> int:
        """The port the page is served on."""
        return int(self.server.get_port())

    @property
    def url(self) -> str:
        """The page's address, ``http://<host>:<port>/``."""
        host = self.server.get_host()
        host = '127.0.0.1' if host in ('0.0.0.0', '') else host
        return f'http://{host}:{self.port}/'

    @property
    def state(self) -> RobotState:
        """A copy of the drawn state."""
        with self._lock:
            return self._state.copy()

    @property
    def positions(self) -> dict[str, float]:
        """``{variable: value}`` of the drawn state."""
        with self._lock:
            return {n: float(v) for n, v in zip(self.model.variable_names,
                                                 self._state.positions, strict=True)}

    @property
    def collision_status(self) -> CollisionStatus:
        """The collision state last drawn."""
        with self._lock:
            return self._status

    @property
    def following(self) -> bool:
        """Whether positions come from :meth:`follow` (editing controls disabled)."""
        return self._following

    @property
    def ik_groups(self) -> tuple[str, ...]:
        """Groups offered in the IK drop-down: their tip can move in all three directions.

        :func:`~robot_state_core.viewer.controls.ik_capable_groups`: e.g. Panda's ``hand``
        (one finger) and a robot's two-joint ``head`` get no gizmo.
        """
        return self._ik_capable

    @property
    def ik_group(self) -> str | None:
        """The group whose tip carries the gizmo (``None``: no group qualifies)."""
        return self._ik_group

    @property
    def named_state(self) -> str:
        """What the named-state menu shows: ``group/state``, or ``(current)`` after a change."""
        with self._lock:
            return self._named_state

    @property
    def selected_link(self) -> str | None:
        """The link last clicked (its name and pose are shown), or ``None``."""
        return self._selected_link

    def link_colors(self, link: str) -> list[tuple[int, int, int]]:
        """RGB colours the link's visual meshes are currently drawn in."""
        self.model.link_index(link)
        return [tuple(int(c) for c in node.color)  # type: ignore[misc]
                for node, _ in self._visual_nodes.get(link, [])]

    # ------------------------------------------------------------------ construction

    def _set_initial_state(self, initial_state: str | None) -> None:
        if initial_state is not None:
            self._apply_named_state(initial_state)
            return
        for g in self.model.group_names:
            states = self.model.group(g).named_states
            if states:
                self._apply_named_state(f'{g}/{next(iter(states))}')
                return

    def _add_robot(self, visuals: list[ElementMesh], collisions: list[ElementMesh]) -> None:
        scene = self.server.scene
        model = self.model
        # Link frames nest like the kinematic tree, so a joint motion updates one node.
        parent = np.full(model.link_count, -1, dtype=np.intp)
        for li in range(model.link_count):
            j = int(model.link_parent_joint[li])
            if j >= 0:
                parent[li] = int(model.joint_parent_link[j])
        self._link_parent = parent
        for li in np.argsort(np.asarray(model.link_depth), kind='stable'):
            link = model.link_names[li]
            p = int(parent[li])
            base = self._link_paths[model.link_names[p]] if p >= 0 else '/robot'
            self._link_paths[link] = f'{base}/{_node_name(link)}'
            self._link_nodes[link] = scene.add_frame(self._link_paths[link], show_axes=False,
                                                     axes_length=0.1, axes_radius=0.005)
        for e in visuals:
            node = self._add_element(e, 'visual')
            self._visual_nodes.setdefault(e.link, []).append((node, _rgb(e.rgba)))
            if self._controls:
                node.on_click(self._click_callback(e.link))
        for e in collisions:
            self._collision_nodes.setdefault(e.link, []).append(
                self._add_element(e, 'collision'))

    def _add_element(self, e: ElementMesh, kind: str) -> Any:
        name = f'{self._link_paths[e.link]}/{kind}_{e.index}_{e.part}'
        opacity = e.rgba[3] if e.rgba[3] < 1.0 else None
        return self.server.scene.add_mesh_simple(
            name, e.vertices, e.faces, color=_rgb(e.rgba), opacity=opacity,
            side='double' if opacity is not None else 'front',
            position=e.X_LE[:3, 3], wxyz=_wxyz(e.X_LE), visible=(kind == 'visual'),
            cast_shadow=False, receive_shadow=False)

    def _element_points(self, visuals: list[ElementMesh]) -> dict[int, FloatArray]:
        """``{link index: (N, 3) points in the link frame}``: visual vertices for framing."""
        points: dict[int, list[FloatArray]] = {}
        for e in visuals:
            v = e.vertices[::max(1, len(e.vertices) // FIT_POINTS_PER_ELEMENT)]
            points.setdefault(self.model.link_index(e.link), []).append(
                v @ e.X_LE[:3, :3].T + e.X_LE[:3, 3])
        return {li: np.concatenate(p) for li, p in points.items()}

    def _add_ground_and_axes(self) -> None:
        """A ground grid (z = 0, or under the robot when it reaches below) and world axes."""
        scene = self.server.scene
        points = self._scene_points()
        floor = min(0.0, float(points[:, 2].min())) if len(points) else 0.0
        size = self._robot_size()
        self._grid = scene.add_grid('/ground_grid', plane='xy', cell_size=GRID_CELL,
                                    section_size=1.0, infinite_grid=True,
                                    fade_distance=max(10.0, 8.0 * size), shadow_opacity=0.0,
                                    position=(0.0, 0.0, floor))
        length = 0.25 * size
        self._world_axes = scene.add_frame('/world_axes', axes_length=length,
                                           axes_radius=0.03 * length)
        scene.add_label('/world_axes/label', self.model.model_frame or 'world',
                        position=(0.0, 0.0, -0.05 * length), font_screen_scale=0.8)

    def _robot_size(self) -> float:
        lo, hi = self._robot_box()
        return float(max(np.max(hi - lo), 0.2))

    def _robot_box(self) -> tuple[FloatArray, FloatArray]:
        box = self._state.compute_aabb()
        lo, hi = box[0::2], box[1::2]
        if not np.any(hi - lo > 0):
            X = self._state.get_link_poses()[:, :3, 3]
            lo, hi = X.min(axis=0) - 0.1, X.max(axis=0) + 0.1
        return lo, hi

    def _scene_points(self) -> FloatArray:
        """``(N, 3)`` world points of the drawn robot (visual subsample), world and reach study."""
        X_WL = self._state.get_link_poses()
        parts = [p @ X_WL[li, :3, :3].T + X_WL[li, :3, 3] for li, p in self._fit_points.items()]
        for obj in self.planning_scene.world.values():
            for shape, X_OS in obj.shapes:
                try:
                    v, _ = shape_triangles(shape)
                except Exception:  # an undrawable shape does not move the camera
                    continue
                X = obj.X_WO @ X_OS
                parts.append(v @ X[:3, :3].T + X[:3, 3])
        if not parts:  # no visual geometry: the link origins
            lo, hi = self._robot_box()
            parts.append(np.stack([lo, hi]))
        if self._reach_points is not None:
            parts.append(self._reach_points)
        return np.concatenate(parts)

    def _camera_for(self, azimuth_deg: float, elevation_deg: float, *,
                    distance: float | None = None, aspect: float = DEFAULT_ASPECT,
                    fit: bool = True, direction: FloatArray | None = None
                    ) -> tuple[FloatArray, FloatArray]:
        """``(position, look_at)`` of a camera framing the drawn robot and world."""
        d = direction_from_angles(azimuth_deg, elevation_deg) if direction is None \
            else direction / np.linalg.norm(direction)
        points = self._scene_points()
        pose = fit_view(points, d, fov_y=CAMERA_FOV, aspect=aspect, fill=FIT_FILL) if fit \
            else bounding_sphere_view(points, d, fov_y=CAMERA_FOV)
        if distance is not None:
            return pose.look_at + float(distance) * d, pose.look_at
        return pose.position, pose.look_at

    def _place_camera(self, pose: CameraPose) -> None:
        camera = self.server.initial_camera
        camera.fov = CAMERA_FOV
        camera.look_at = pose.look_at
        camera.position = pose.position
        camera.up = (0.0, 0.0, 1.0)

    def frame_camera(self, *, azimuth_deg: float = DEFAULT_AZIMUTH_DEG,
                     elevation_deg: float = DEFAULT_ELEVATION_DEG,
                     distance: float | None = None, aspect: float = DEFAULT_ASPECT,
                     fit: bool = True) -> CameraPose:
        """Aim the initial camera (and the page's "Reset View") at the robot and world as drawn.

        Pages that connect later start from this view; connected pages keep theirs.

        Args:
            azimuth_deg: View direction's azimuth (about +z, from +x) [deg].
            elevation_deg: View direction's elevation above the xy plane [deg].
            distance: Camera distance from the framed centre [m]; ``None``: as close as the
                framing allows.
            aspect: Picture width / height the framing is computed for.
            fit: Frame tightly (the robot spans :data:`FIT_FILL` of the binding picture
                dimension); ``False``: the bounding sphere of everything drawn fills 85 % of
                the view height (a looser view that does not change as the robot turns).

        Returns:
            The camera placement.
        """
        with self._lock:
            pose = CameraPose(*self._camera_for(azimuth_deg, elevation_deg, distance=distance,
                                                aspect=aspect, fit=fit))
            self._place_camera(pose)
            return pose

    def look_from(self, position: ArrayLike, look_at: ArrayLike) -> None:
        """Set the initial camera (and every connected page's camera) explicitly [m]."""
        p = np.asarray(position, dtype=np.float64).reshape(3)
        t = np.asarray(look_at, dtype=np.float64).reshape(3)
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(t))) or np.allclose(p, t):
            raise InvalidArgumentError(f'RobotViewer.look_from: position {position!r} and '
                                       f'look_at {look_at!r} must be finite and distinct')
        with self._lock:
            self._place_camera(CameraPose(p, t))
            for client in self.server.get_clients().values():
                with client.atomic():  # viser: position first, then the look-at point
                    client.camera.position = p
                    client.camera.look_at = t

    def fit_view(self) -> None:
        """Frame the robot in every connected page, keeping each page's view direction.

        As the page's "Fit robot" button: the robot and world objects span
        :data:`FIT_FILL` of the page's binding dimension.
        """
        with self._lock:
            for client in self.server.get_clients().values():
                cam = client.camera
                d = np.asarray(cam.position, dtype=float) - np.asarray(cam.look_at, dtype=float)
                if not np.linalg.norm(d) > 0:
                    d = direction_from_angles(DEFAULT_AZIMUTH_DEG, DEFAULT_ELEVATION_DEG)
                position, look_at = self._camera_for(0.0, 0.0, direction=d,
                                                     aspect=float(cam.aspect or DEFAULT_ASPECT))
                with client.atomic():  # viser: position first, then the look-at point
                    cam.position = position
                    cam.look_at = look_at

    def reset_view(self) -> None:
        """Every connected page (and the initial camera) back to the default view, fitted."""
        with self._lock:
            for client in self.server.get_clients().values():
                position, look_at = self._camera_for(
                    DEFAULT_AZIMUTH_DEG, DEFAULT_ELEVATION_DEG,
                    aspect=float(client.camera.aspect or DEFAULT_ASPECT))
                with client.atomic():
                    client.camera.up_direction = (0.0, 0.0, 1.0)
                    client.camera.position = position
                    client.camera.look_at = look_at
            self.frame_camera()

    def _build_gui(self) -> None:
        gui = self.server.gui
        gui.configure_theme(show_share_button=False, show_logo=False)
        status = gui.add_markdown('**Collision:** -')
        self._gui['status'] = status
        with gui.add_folder('Display'):
            toggles = (('show_grid', 'Ground grid', True, self.set_show_grid),
                       ('show_axes', 'World axes', True, self.set_show_world_axes),
                       ('show_collision', 'Collision geometry', False, self.set_show_collision),
                       ('show_frames', 'Link frames (TF)', False, self.set_show_frames))
            for key, label, initial, setter in toggles:
                box = gui.add_checkbox(label, initial_value=initial)
                box.on_update(self._toggle_callback(box, setter))
                self._gui[key] = box
            fit = gui.add_button('Fit robot', hint='frame the robot, keeping the view direction')
            reset = gui.add_button('Reset view', hint='the default view direction, fitted')
            fit.on_click(lambda _: self.fit_view())
            reset.on_click(lambda _: self.reset_view())
            self._gui['selected'] = gui.add_markdown('Click a link to see its name and pose.')
        with gui.add_folder('Joints'):
            states = ['(current)'] + [f'{g}/{s}' for g in self.model.group_names
                                      for s in self.model.group(g).named_states]
            dropdown = gui.add_dropdown('Named state', states, initial_value=self._named_state,
                                        disabled=self._following)
            dropdown.on_update(lambda _: self._on_named_state(str(dropdown.value)))
            self._gui['states'] = dropdown
            for spec in self._slider_specs:
                value = float(np.clip(self._state.positions[spec.index], spec.lower,
                                      spec.upper))
                slider = gui.add_slider(spec.variable, min=spec.lower, max=spec.upper,
                                        step=spec.step, initial_value=value,
                                        disabled=self._following)
                slider.on_update(self._slider_callback(spec))
                self._sliders[spec.variable] = slider
        if self._ik_group is not None:
            with gui.add_folder('IK'):
                choice = gui.add_dropdown('IK group', self._ik_capable,
                                          initial_value=self._ik_group,
                                          disabled=self._following)
                choice.on_update(lambda _: self._on_ik_group(str(choice.value)))
                self._gui['ik_group'] = choice
                self._gui['ik'] = gui.add_markdown(self._ik_prompt())
            self._add_gizmo()
        with gui.add_folder('World'):
            size = gui.add_vector3('Box size [m]', initial_value=(0.1, 0.1, 0.1),
                                   min=(0.001, 0.001, 0.001), step=0.01,
                                   disabled=self._following)
            add = gui.add_button('Add box', disabled=self._following)
            clear = gui.add_button('Remove all objects', disabled=self._following)
            add.on_click(lambda _: self._on_add_box(tuple(float(v) for v in size.value)))

            def on_clear(_: Any) -> None:
                if not self._following:
                    self.clear_world()
            clear.on_click(on_clear)
            self._gui['box_size'], self._gui['add_box'], self._gui['clear'] = size, add, clear
        if self.warnings:
            with gui.add_folder('Warnings'):
                gui.add_markdown('\n'.join(f'- {w}' for w in self.warnings))
            warnings = self.warnings[:3]

            def notify(client: Any) -> None:
                for w in warnings:
                    client.add_notification('Robot description warning', w, color='yellow')
            self.server.on_client_connect(notify)

    def _ik_prompt(self) -> str:
        if self._following:
            return 'Following `/joint_states`: IK is off.'
        assert self._ik_group is not None
        return (f'**{self._ik_group}**: drag the gizmo at '
                f'`{self.model.group(self._ik_group).tip_link}`')

    def _slider_callback(self, spec: SliderSpec) -> Any:
        def callback(_: Any) -> None:
            if self._syncing:
                return
            if self._following:  # the number box beside a disabled slider stays editable
                with self._lock:
                    self._sync_gui(None, None)
                return
            value = float(self._sliders[spec.variable].value)
            self._apply_positions({spec.variable: value}, spec, wait=False)
        return callback

    def _toggle_callback(self, box: Any, setter: Any) -> Any:
        def callback(_: Any) -> None:
            if not self._syncing:
                setter(bool(box.value))
        return callback

    def _click_callback(self, link: str) -> Any:
        def callback(_: Any) -> None:
            self.select_link(link)
        return callback

    def _add_gizmo(self) -> None:
        assert self._ik_group is not None
        X = self._state.get_global_link_transform(self.model.group(self._ik_group).tip_link)
        gizmo = self.server.scene.add_transform_controls(
            '/ik/gizmo', scale=0.25 * max(self._robot_size(), 0.5) ** 0.5,
            position=X[:3, 3], wxyz=_wxyz(X), depth_test=False, opacity=0.9,
            visible=not self._following)

        def on_update(event: Any) -> None:
            # phases: 'start' (grabbed), 'update' (moved), 'end' (released)
            phase = getattr(event, 'phase', 'update')
            if phase == 'start':
                self._dragging = True
            if self._syncing or self._following or self._ik_group is None:
                return
            handle = event.target
            if phase != 'end':
                self._drag(self._ik_group, _pose_from(handle.position, handle.wxyz),
                           from_page=True)
                return
            with self._lock:
                self._dragging = False
                self._sync_gui(None, None)  # after a failed last step: back to the tip
        gizmo.on_update(on_update)
        self._gizmo = gizmo

    # ------------------------------------------------------------------ display toggles

    def set_show_grid(self, show: bool) -> None:
        """Show or hide the ground grid."""
        with self._lock:
            self._grid.visible = bool(show)
            self._set_checkbox('show_grid', show)

    def set_show_world_axes(self, show: bool) -> None:
        """Show or hide the world (model frame) axes."""
        with self._lock:
            self._world_axes.visible = bool(show)
            self._set_checkbox('show_axes', show)

    def set_show_collision(self, show: bool) -> None:
        """Show or hide the collision geometry (translucent blue)."""
        with self._lock:
            self._show_collision = bool(show)
            for nodes in self._collision_nodes.values():
                for node in nodes:
                    node.visible = self._show_collision
            self._set_checkbox('show_collision', show)

    def set_show_frames(self, show: bool) -> None:
        """Show or hide every link frame as labelled RGB axes (x red, y green, z blue).

        While shown, the robot's visual geometry is drawn translucent
        (:data:`FRAMES_OPACITY`) so that frames inside it are seen; the labels are drawn over
        everything.
        """
        with self._lock:
            self._show_frames = bool(show)
            for link, node in self._link_nodes.items():
                node.axes_length = self._frame_node_scale
                node.axes_radius = self._frame_node_scale * 0.05
                node.show_axes = self._show_frames
                label = self._frame_labels.get(link)
                if label is None and self._show_frames:
                    self._frame_labels[link] = self.server.scene.add_label(
                        f'{self._link_paths[link]}/frame_label', link,
                        font_screen_scale=0.7, anchor='bottom-left')
                elif label is not None:
                    label.visible = self._show_frames
            for nodes in self._visual_nodes.values():
                for node, _ in nodes:
                    node.opacity = FRAMES_OPACITY if self._show_frames else None
            self._set_checkbox('show_frames', show)

    def _set_checkbox(self, key: str, value: bool) -> None:
        box = self._gui.get(key)
        if box is not None and bool(box.value) != bool(value):
            self._syncing = True
            try:
                box.value = bool(value)
            finally:
                self._syncing = False

    def select_link(self, link: str | None) -> None:
        """Show a link's name over it and its pose in the panel, as clicking it does.

        Args:
            link: The link; ``None`` clears the selection.

        Raises:
            UnknownNameError: Unknown link.
        """
        if link is not None:
            self.model.link_index(link)
        with self._lock:
            if self._selected_label is not None:
                self._selected_label.remove()
                self._selected_label = None
            self._selected_link = link
            if link is not None:
                self._selected_label = self.server.scene.add_label(
                    f'{self._link_paths[link]}/selected_label', link, anchor='bottom-center')
            self._show_selection()

    def _show_selection(self) -> None:
        if 'selected' not in self._gui:
            return
        link = self._selected_link
        if link is None:
            text = 'Click a link to see its name and pose.'
        else:
            text = (f'**Selected link:** `{link}`  \n'
                    f'{_pose_text(self._state.get_global_link_transform(link))} '
                    f'in `{self.model.model_frame or "world"}`')
        if self._gui['selected'].content != text:
            self._gui['selected'].content = text

    # ------------------------------------------------------------------ state changes

    def set_positions(self, values: Mapping[str, float]) -> CollisionStatus:
        """Set variables (MoveIt names) and redraw; the sliders follow.

        Floating-joint quaternions are normalised after the change (a zero one is refused).

        Args:
            values: ``{variable: value}`` [rad, m].

        Returns:
            The collision state of the new configuration.

        Raises:
            UnknownNameError: Unknown variable.
            InvalidArgumentError: Non-finite value.
        """
        return self._apply_positions(values, None, wait=True)

    def _apply_positions(self, values: Mapping[str, float], from_slider: SliderSpec | None,
                         *, wait: bool) -> CollisionStatus:
        with self._lock:
            previous = self._state.positions.copy()
            self._state.set_variable_positions({str(k): float(v) for k, v in values.items()})
            if not self._normalize_quaternions():
                self._state.set_variable_positions(previous)
                raise InvalidArgumentError('RobotViewer.set_positions: a floating joint '
                                           'quaternion would be zero')
            self._named_state = '(current)'
            return self._changed(wait=wait, skip_slider=from_slider)

    def _normalize_quaternions(self) -> bool:
        q = self._state.positions.copy()
        changed = False
        for j, t in enumerate(self.model.joint_types):
            if t is JointType.FLOATING:
                s = int(self.model.joint_q_start[j]) + 3
                n = float(np.linalg.norm(q[s:s + 4]))
                if n < 1e-9:
                    return False
                if abs(n - 1.0) > 1e-12:
                    q[s:s + 4] /= n
                    changed = True
        if changed:
            self._state.set_variable_positions(q)
        return True

    def set_named_state(self, name: str, group: str | None = None) -> CollisionStatus:
        """Set an SRDF named state (``group_state``), like the page's drop-down.

        Args:
            name: State name (``home``), or ``group/state``.
            group: The group; ``None``: the first group that has a state of that name.

        Raises:
            UnknownNameError: No such state (the message suggests close names).
        """
        with self._lock:
            self._apply_named_state(name if group is None else f'{group}/{name}')
            return self._changed(wait=True)

    def _apply_named_state(self, name: str) -> None:
        group, _, state = name.rpartition('/')
        groups = [group] if group else list(self.model.group_names)
        for g in groups:
            if g in self.model.group_names and state in self.model.group(g).named_states:
                self._state.set_to_default_values(g, state)
                self._named_state = f'{g}/{state}'
                return
        raise UnknownNameError(state, 'named state', [
            s for g in self.model.group_names for s in self.model.group(g).named_states])

    def _on_named_state(self, value: str) -> None:
        if self._syncing or value == '(current)':
            return
        with self._lock:
            if self._following:  # disabled on the page; a stale client may still send
                self._sync_gui(None, None)
                return
            self._apply_named_state(value)
            self._changed(wait=False)

    def set_ik_group(self, group: str) -> None:
        """Put the gizmo at ``group``'s tip, as choosing it in the IK drop-down does.

        Raises:
            UnknownNameError: ``group`` is not one of :attr:`ik_groups`.
        """
        if group not in self._ik_capable:
            raise UnknownNameError(group, 'IK group (a group whose tip can move in 3D)',
                                   self._ik_capable)
        with self._lock:
            self._ik_group = group
            if 'ik' in self._gui:
                self._gui['ik'].content = self._ik_prompt()
            choice = self._gui.get('ik_group')
            if choice is not None and choice.value != group:
                self._syncing = True
                try:
                    choice.value = group
                finally:
                    self._syncing = False
            self._sync_gui(None, None)

    def _on_ik_group(self, value: str) -> None:
        if not self._syncing and value in self._ik_capable:
            self.set_ik_group(value)

    def drag_gizmo(self, group: str, X_WT: ArrayLike) -> IKFeedback:
        """Move the gizmo to ``X_WT`` at ``group``'s tip and solve IK, as a drag on the page.

        ``group`` becomes the IK group. The group's variables are solved (group tip, the
        group's default timeout, seeded with the drawn state); on failure the state is
        unchanged, the gizmo goes back to the tip and the page says why.

        Args:
            group: One of :attr:`ik_groups`.
            X_WT: ``(4, 4)`` target pose of the tip in the model frame.

        Returns:
            The result (also shown on the page).

        Raises:
            UnknownNameError: Unknown group, or one that gets no gizmo.
            InvalidArgumentError: Malformed pose.
        """
        X = as_pose(X_WT, 'RobotViewer.drag_gizmo', 'X_WT')
        self.model.group(group)
        with self._lock:
            if group != self._ik_group:
                self.set_ik_group(group)
            if self._gizmo is not None:
                self._syncing = True
                try:
                    self._gizmo.position = X[:3, 3]
                    self._gizmo.wxyz = _wxyz(X)
                finally:
                    self._syncing = False
            return self._drag(group, X, from_page=False)

    def _drag(self, group: str, X: FloatArray, *, from_page: bool) -> IKFeedback:
        with self._lock:
            g = self.model.group(group)
            result = solve_ik(self.model, IKRequest(
                g.name, (X,), (), self._state.positions.copy(), 0.0,
                IKOptions(return_approximate=True)))
            if result.success:
                self._state.set_joint_group_positions(g, result.q[g.variable_indices])
                self._named_state = '(current)'
            dp, dw = pose_error(X, self._state.get_global_link_transform(g.tip_link))
            pos_err, rot_err = float(np.linalg.norm(dp)), float(np.linalg.norm(dw))
            if result.success:
                message = (f'**{g.name}**: solved; tip error {pos_err * 1e3:.1f} mm, '
                           f'{math.degrees(rot_err):.2f}°')
            else:
                timeout = g.default_ik_timeout * 1e3
                far = '; the target may be out of reach' if result.position_error > 0.01 \
                    else ''
                message = (f'**{g.name}**: no solution within {timeout:.0f} ms (closest: '
                           f'{result.position_error * 1e3:.1f} mm, '
                           f'{math.degrees(result.rotation_error):.1f}° from the target{far}); '
                           'the arm stays and the gizmo returns to the tip')
            feedback = IKFeedback(g.name, g.tip_link, bool(result.success), pos_err, rot_err,
                                  message)
            if 'ik' in self._gui:
                self._gui['ik'].content = message
            # While the page drags, the gizmo stays under the mouse; it returns to the tip
            # when the drag ends (RViz's interactive marker).
            keep = g.name if (from_page and self._dragging) or result.success else None
            if result.success:
                self._changed(wait=not from_page, skip_gizmo=keep)
            elif keep is None:
                self._sync_gui(None, None)
            return feedback

    def follow(self, names: Sequence[str], positions: ArrayLike) -> None:
        """Queue positions from outside (``/joint_states``); drawn at up to ``max_fps``.

        Unknown names are ignored (robot_state_publisher does the same). Only the newest
        queued positions are drawn when they arrive faster than the page is updated.
        """
        values = np.asarray(positions, dtype=np.float64).reshape(-1)
        if len(names) != values.size or not np.all(np.isfinite(values)):
            return
        with self._lock:
            self._pending = (tuple(names), values.copy())
        self._pending_event.set()

    def set_following(self, follow: bool) -> None:
        """Switch follow mode on (every editing control disabled, gizmo hidden) or off."""
        with self._lock:
            self._following = bool(follow)
            for slider in self._sliders.values():
                slider.disabled = self._following
            for key in ('states', 'ik_group', 'box_size', 'add_box', 'clear'):
                if key in self._gui:
                    self._gui[key].disabled = self._following
            for gizmo in self._box_gizmos.values():
                gizmo.visible = not self._following
            if self._gizmo is not None:
                self._gizmo.visible = not self._following
            if 'ik' in self._gui:
                self._gui['ik'].content = self._ik_prompt()

    def _follow_loop(self) -> None:
        while not self._stopped:
            if not self._pending_event.wait(0.2):
                continue
            started = time.monotonic()
            with self._lock:
                self._pending_event.clear()
                pending, self._pending = self._pending, None
                if pending is not None and not self._stopped:
                    try:
                        self._state.set_variable_positions(list(pending[0]), pending[1],
                                                           unknown='ignore')
                        self._normalize_quaternions()
                        self._named_state = '(current)'
                        due = time.monotonic() - self._last_collision_time \
                            >= self._collision_period
                        self._render(collisions='later' if due else 'none', sync_gui=due)
                    except Exception as exc:  # a bad message must not stop the page
                        _LOG.warning('viewer: could not draw followed positions: %s', exc)
            rest = self._min_frame_period - (time.monotonic() - started)
            if rest > 0:
                time.sleep(rest)

    def _changed(self, *, wait: bool, skip_slider: SliderSpec | None = None,
                 skip_gizmo: str | None = None) -> CollisionStatus:
        self._render(collisions='now' if wait else 'later', skip_slider=skip_slider,
                     skip_gizmo=skip_gizmo)
        return self._status

    def settle(self, timeout: float = 10.0) -> CollisionStatus:
        """Wait until the collision state of the drawn configuration is shown; return it.

        Changes made on the page are drawn at once and their collision state follows from a
        worker thread; the methods of this class evaluate it before they return.

        Raises:
            TimeoutError: Not settled within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if self._collision_job is None and not self._collision_busy:
                    return self._status
            if time.monotonic() > deadline:
                raise TimeoutError(f'the viewer did not settle within {timeout:.1f} s')
            time.sleep(0.005)

    # ------------------------------------------------------------------ world objects

    def apply_world_object(self, op: CollisionObjectOperation | int, object_id: str,
                           X_WO: ArrayLike | None = None,
                           shapes: Iterable[tuple[Shape, ArrayLike]] = (),
                           subframes: Mapping[str, ArrayLike] | None = None
                           ) -> CollisionStatus:
        """Apply a ``CollisionObject`` operation to the world and redraw (MoveIt semantics).

        Same arguments and errors as :meth:`PlanningScene.apply_world_object`.
        """
        with self._lock:
            self.planning_scene.apply_world_object(op, object_id, X_WO, shapes, subframes)
            self._sync_world()
            return self._changed(wait=True)

    def load_scene_text(self, text: str) -> CollisionStatus:
        """Add the objects of a MoveIt ``.scene`` text and redraw.

        :meth:`PlanningScene.load_geometry_text` (a malformed text raises ``SceneFileError``
        naming the line, and nothing changes).
        """
        with self._lock:
            self.planning_scene.load_geometry_text(text)
            self._sync_world()
            return self._changed(wait=True)

    def add_box(self, object_id: str, size: ArrayLike, X_WB: ArrayLike) -> CollisionStatus:
        """Add (or replace) a box world object, as the page does.

        With controls, the box gets a gizmo to move it.

        Args:
            object_id: Object id.
            size: ``(3,)`` edge lengths [m].
            X_WB: ``(4, 4)`` box pose in the model frame.
        """
        s = np.asarray(size, dtype=np.float64).reshape(-1)
        if s.shape != (3,) or not np.all(np.isfinite(s)) or np.any(s <= 0):
            raise InvalidArgumentError(f'RobotViewer.add_box: size must be 3 positive lengths, '
                                       f'got {size!r}')
        status = self.apply_world_object(CollisionObjectOperation.ADD, object_id, X_WB,
                                         [(Box(float(s[0]), float(s[1]), float(s[2])),
                                           np.eye(4))])
        with self._lock:
            if self._controls and object_id not in self._box_gizmos:
                self._add_box_gizmo(object_id)
        return status

    def move_world_object(self, object_id: str, X_WO: ArrayLike) -> CollisionStatus:
        """Move a world object (as dragging its gizmo does)."""
        return self.apply_world_object(CollisionObjectOperation.MOVE, object_id, X_WO)

    def clear_world(self) -> CollisionStatus:
        """Remove every world object."""
        return self.apply_world_object(CollisionObjectOperation.REMOVE, '')

    def _on_add_box(self, size: tuple[float, ...]) -> None:
        if self._following:  # disabled on the page; a stale client may still send
            return
        with self._lock:
            self._box_count += 1
            name = f'box_{self._box_count}'
            while name in self.planning_scene.world:
                self._box_count += 1
                name = f'box_{self._box_count}'
            X = np.eye(4)
            if self._ik_group is not None:  # in front of the IK tip, where it is easy to grab
                X[:3, 3] = self._state.get_global_link_transform(
                    self.model.group(self._ik_group).tip_link)[:3, 3] + np.array([0.25, 0.0,
                                                                                  0.0])
            else:
                lo, hi = self._robot_box()
                X[:3, 3] = [hi[0] + 0.2, 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])]
        self.add_box(name, size, X)

    def _add_box_gizmo(self, object_id: str) -> None:
        obj = self.planning_scene.world[object_id]
        gizmo = self.server.scene.add_transform_controls(
            f'/world_gizmo/{_node_name(object_id)}', scale=0.2, position=obj.X_WO[:3, 3],
            wxyz=_wxyz(obj.X_WO), depth_test=False, opacity=0.8)

        def on_update(event: Any) -> None:
            if self._syncing or object_id not in self.planning_scene.world:
                return
            self.move_world_object(object_id, _pose_from(event.target.position,
                                                         event.target.wxyz))
        gizmo.on_update(on_update)
        self._box_gizmos[object_id] = gizmo

    def _sync_world(self) -> None:
        """Make the drawn world objects match the planning scene's world."""
        world = self.planning_scene.world
        for object_id in list(self._world_nodes):
            if object_id not in world:
                self._world_nodes.pop(object_id)[0].remove()  # the frame, with its shapes
                gizmo = self._box_gizmos.pop(object_id, None)
                if gizmo is not None:
                    gizmo.remove()
        for object_id, obj in world.items():
            nodes = self._world_nodes.get(object_id)
            key = tuple(id(s) for s, _ in obj.shapes)
            if nodes is None or getattr(nodes[0], '_rsc_key', None) != key:
                if nodes:
                    nodes[0].remove()
                frame = self.server.scene.add_frame(f'/world/{_node_name(object_id)}',
                                                    show_axes=False)
                frame._rsc_key = key  # type: ignore[attr-defined]
                nodes = [frame]
                for k, (shape, X_OS) in enumerate(obj.shapes):
                    try:
                        v, f = shape_triangles(shape)
                    except Exception as exc:
                        _LOG.warning('viewer: world object %r shape %d not drawn: %s',
                                     object_id, k, exc)
                        continue
                    nodes.append(self.server.scene.add_mesh_simple(
                        f'/world/{_node_name(object_id)}/shape_{k}', v, f, color=WORLD_RGB,
                        opacity=0.85, position=X_OS[:3, 3], wxyz=_wxyz(X_OS),
                        cast_shadow=False, receive_shadow=False))
                self._world_nodes[object_id] = nodes
            nodes[0].position = obj.X_WO[:3, 3]
            nodes[0].wxyz = _wxyz(obj.X_WO)
            gizmo = self._box_gizmos.get(object_id)
            if gizmo is not None:
                self._syncing = True
                try:
                    gizmo.position = obj.X_WO[:3, 3]
                    gizmo.wxyz = _wxyz(obj.X_WO)
                finally:
                    self._syncing = False

    # ------------------------------------------------------------------ reach study

    @property
    def reach_target(self) -> ReachTargetInfo | None:
        """The reach-study target last shown (clicked, or :meth:`show_reach_target`)."""
        with self._lock:
            return self._reach_target

    def show_reach(self, db: ReachDatabase, *, part_mesh: str | None = None) -> ReachSummary:
        """Draw a reach study's targets in REACH's heat-map colours (replacing any shown).

        Every target is a small sphere at its position, coloured by
        :func:`~robot_state_core.reach.results.heat_map_colors` of the final pass (blue: lowest
        score, red: highest, black: not reached), with a short line towards where the tool
        comes from (against the goal's z axis; studies of up to
        :data:`~robot_state_core.viewer.reach_layer.DETAILED_TARGETS` targets). With
        controls, a click on a sphere calls :meth:`show_reach_target`, and a "Reach study"
        panel folder shows the summary and a legend. The camera framing
        (:meth:`frame_camera`, "Fit robot") includes the targets and the part.

        Args:
            db: The study's results (:meth:`ReachDatabase.load`); its group variables and tip
                must be this model's.
            part_mesh: The part's mesh file, drawn translucent grey at ``db.study['part_pose']``
                (16 numbers, row-major; identity when absent); ``None``: no part.

        Returns:
            The final pass's summary.

        Raises:
            InvalidArgumentError: The database has no pass.
            UnknownNameError: The study's tip or a group variable is not in this model (a
                study of another robot).
            RobotDescriptionError: ``part_mesh`` cannot be read.
        """
        final = db.final
        for name in db.variable_names:
            self.model.variable_index(name)
        self.model.link_index(db.tip)
        part: tuple[FloatArray, Any, FloatArray] | None = None
        if part_mesh is not None:
            v, f = shape_triangles(Mesh(part_mesh, path=part_mesh))
            pose = db.study.get('part_pose')
            X_WP = np.eye(4) if pose is None else as_pose(
                np.asarray(pose, dtype=np.float64).reshape(4, 4), 'RobotViewer.show_reach',
                "db.study['part_pose']")
            part = (v, f, X_WP)
        points = db.X_WT[:, :3, 3]
        radius = marker_radius(points)
        colors = marker_colors(final)
        with self._lock:
            self._clear_reach()
            scene = self.server.scene
            detailed = len(points) <= DETAILED_TARGETS
            v, f = marker_sphere(radius, detailed=detailed)
            markers = scene.add_batched_meshes_simple(
                '/reach/targets', v, f, batched_wxyzs=np.tile([1.0, 0.0, 0.0, 0.0],
                                                             (len(points), 1)),
                batched_positions=points, batched_colors=colors, lod='off',
                cast_shadow=False, receive_shadow=False)
            self._reach_nodes = [markers]
            fit = [points]
            if detailed:
                lines = tool_lines(db.X_WT, TOOL_LINE_RADII * radius)
                self._reach_nodes.append(scene.add_line_segments(
                    '/reach/tool_lines', lines, np.repeat(colors[:, None, :], 2, axis=1),
                    thickness=0.25 * radius))
                fit.append(lines[:, 1])
            if part is not None:
                v, f, X_WP = part
                self._reach_nodes.append(scene.add_mesh_simple(
                    '/reach/part', v, f, color=PART_RGB, opacity=PART_OPACITY, side='double',
                    position=X_WP[:3, 3], wxyz=_wxyz(X_WP), cast_shadow=False,
                    receive_shadow=False))
                fit.append(v @ X_WP[:3, :3].T + X_WP[:3, 3])
            self._reach, self._reach_radius = db, radius
            self._reach_points = np.concatenate(fit)
            if self._controls:
                markers.on_click(self._target_click)
                self._add_reach_gui(db)
            return final.summary()

    def show_reach_target(self, index: int) -> ReachTargetInfo:
        """Put the robot at a target's solution and show the target, as clicking it does.

        The study's group variables take the target's solution from the final pass (a
        reached target; the other variables keep their values); an unreached target leaves
        the robot where it is, and so does follow mode. The target's frame is drawn (axes;
        z: the tool's direction) and the panel shows its index, whether it was reached, its
        score and the tip pose.

        Args:
            index: The target's index in the study shown by :meth:`show_reach`.

        Returns:
            What the panel shows.

        Raises:
            InvalidArgumentError: No study shown, or ``index`` out of range.
        """
        with self._lock:
            db = self._reach
            if db is None:
                raise InvalidArgumentError('RobotViewer.show_reach_target: no reach study is '
                                           'shown (show_reach first)')
            if not (isinstance(index, int | np.integer) and 0 <= index < len(db.X_WT)):
                raise InvalidArgumentError(f'RobotViewer.show_reach_target: index must be in '
                                           f'0..{len(db.X_WT) - 1}, got {index!r}')
            i = int(index)
            final = db.final
            reached, score = bool(final.reached[i]), float(final.score[i])
            X = db.X_WT[i]
            head = (f'**Target {i}** of {len(db.X_WT)}: '
                    + (f'reached, score {score:.4g} (best {float(final.score.max()):.4g})'
                       if reached else '**not reached**'))
            frame = f'in `{self.model.model_frame or "world"}`'
            if reached and not self._following:
                self._state.set_variable_positions(
                    dict(zip(db.variable_names, final.q[i].tolist(), strict=True)))
                self._named_state = '(current)'
                self._changed(wait=True)
                message = (f'{head}  \nTip `{db.tip}`: '
                           f'{_pose_text(self._state.get_global_link_transform(db.tip))} {frame}')
            else:
                why = ('following `/joint_states`: the robot stays' if reached
                       else 'no solution: the robot stays where it was')
                message = f'{head}; {why}  \nTarget: {_pose_text(X)} {frame}'
            self._show_target_marker(X)
            info = ReachTargetInfo(i, reached, score, X.copy(), message)
            self._reach_target = info
            if 'reach_target' in self._gui:
                self._gui['reach_target'].content = message
            return info

    def _target_click(self, event: Any) -> None:
        index = getattr(event, 'instance_index', None)
        if index is not None:
            self.show_reach_target(int(index))

    def _show_target_marker(self, X: FloatArray) -> None:
        length = max(4.0 * self._reach_radius, 0.04)
        if self._reach_marker is None:
            self._reach_marker = self.server.scene.add_frame(
                '/reach/selected', axes_length=length, axes_radius=0.08 * length)
        self._reach_marker.position = X[:3, 3]
        self._reach_marker.wxyz = _wxyz(X)

    def _add_reach_gui(self, db: ReachDatabase) -> None:
        gui = self.server.gui
        folder = gui.add_folder('Reach study')
        with folder:
            gui.add_markdown(summary_text(db))
            gui.add_html(legend_html())
            self._gui['reach_target'] = gui.add_markdown(
                'Click a target to put the robot at its solution.')
        self._gui['reach'] = folder

    def _clear_reach(self) -> None:
        for node in self._reach_nodes:
            node.remove()
        self._reach_nodes = []
        if self._reach_marker is not None:
            self._reach_marker.remove()
            self._reach_marker = None
        folder = self._gui.pop('reach', None)
        if folder is not None:
            folder.remove()
            self._gui.pop('reach_target', None)
        self._reach = self._reach_target = self._reach_points = None

    # ------------------------------------------------------------------ drawing

    def refresh(self) -> CollisionStatus:
        """Redraw now, with a fresh collision evaluation; returns the collision state."""
        with self._lock:
            self._render(collisions='now')
            return self._status

    def _render(self, *, collisions: str, sync_gui: bool = True,
                skip_slider: SliderSpec | None = None, skip_gizmo: str | None = None) -> None:
        """Push link poses (and GUI values) to the page; evaluate collisions now or later.

        Args:
            collisions: ``'now'`` (before returning), ``'later'`` (the worker thread draws
                them when done) or ``'none'``.
            sync_gui: Also move the sliders, gizmo and menus to the state.
            skip_slider: A slider being dragged (left as the person holds it).
            skip_gizmo: The group whose gizmo is being dragged (left under the mouse).
        """
        X_WL = self._state.get_link_poses()
        X_WP = np.where((self._link_parent >= 0)[:, None, None], X_WL[self._link_parent],
                        np.eye(4))
        X_PL = rigid_inverse(X_WP) @ X_WL  # each link frame in its parent link frame
        poses = np.concatenate([X_PL[:, :3, 3], _wxyz(X_PL)], axis=1)  # (L, 7)
        changed = np.flatnonzero(~np.all(np.abs(poses - self._sent_poses) <= 1e-9, axis=1))
        self._sent_poses = poses
        with self.server.atomic():
            for i in changed:
                node = self._link_nodes[self.model.link_names[i]]
                node.position = poses[i, :3]
                node.wxyz = poses[i, 3:]
            if collisions == 'now':
                self._collision_generation += 1  # results in flight are stale
                self._collision_job = None
                self._apply_collision(self._check(self._state))
            elif collisions == 'later':
                self._collision_job = self._state.copy()
                self._collision_event.set()
            if sync_gui:
                self._sync_gui(skip_slider, skip_gizmo)
        self.frames_sent += 1

    def _sync_gui(self, skip_slider: SliderSpec | None, skip_gizmo: str | None) -> None:
        self._syncing = True
        try:
            q = self._state.positions
            for spec in self._slider_specs:
                if spec is skip_slider or spec.variable not in self._sliders:
                    continue
                value = float(np.clip(q[spec.index], spec.lower, spec.upper))
                if self._sliders[spec.variable].value != value:
                    self._sliders[spec.variable].value = value
            if self._gizmo is not None and self._ik_group is not None \
                    and self._ik_group != skip_gizmo and not self._dragging:
                X = self._state.get_global_link_transform(
                    self.model.group(self._ik_group).tip_link)
                self._gizmo.position = X[:3, 3]
                self._gizmo.wxyz = _wxyz(X)
            if 'states' in self._gui and self._gui['states'].value != self._named_state:
                self._gui['states'].value = self._named_state
            if self._selected_link is not None:
                self._show_selection()
        finally:
            self._syncing = False

    def _check(self, state: RobotState) -> CollisionResult:
        return self.planning_scene.check_collision(state, CollisionRequest(
            contacts=True, max_contacts=1000, max_contacts_per_pair=1, distance=True))

    def _collision_loop(self) -> None:
        """Evaluate the newest posted state's collisions; draw them unless superseded."""
        while not self._stopped:
            if not self._collision_event.wait(0.2):
                continue
            with self._lock:
                self._collision_event.clear()
                job, self._collision_job = self._collision_job, None
                generation = self._collision_generation
                self._collision_busy = job is not None
            if job is None:
                continue
            try:
                result = self._check(job)
                with self._lock:
                    if generation == self._collision_generation and not self._stopped:
                        with self.server.atomic():
                            self._apply_collision(result)
            except Exception as exc:  # a failed evaluation must not stop the page
                _LOG.warning('viewer: collision evaluation failed: %s', exc)
            finally:
                with self._lock:
                    self._collision_busy = False

    def _apply_collision(self, result: CollisionResult) -> None:
        link_set = set(self.model.link_names)
        colliding = {n for c in result.contacts for n in (c.body_name_1, c.body_name_2)
                     if n in link_set}
        links = tuple(n for n in self.model.link_names if n in colliding)
        self._status = CollisionStatus(result.collision, links, result.contacts,
                                       float(result.distance), self._status.version + 1)
        self._last_collision_time = time.monotonic()
        red = colliding if self._collision_colors else set()
        for link, nodes in self._visual_nodes.items():
            for node, rgb in nodes:
                target = COLLIDING_RGB if link in red else rgb
                if tuple(node.color) != target:
                    node.color = target
        for link, cnodes in self._collision_nodes.items():
            target = COLLIDING_RGB if link in red else _rgb(COLLISION_COLOR)
            for node in cnodes:
                if tuple(node.color) != target:
                    node.color = target
        self._draw_contacts(result.contacts if self._collision_colors else ())
        if 'status' in self._gui:
            self._gui['status'].content = self._status_text()

    def _draw_contacts(self, contacts: Sequence[Contact]) -> None:
        scene = self.server.scene
        if self._contact_points is not None:
            self._contact_points.remove()
            self._contact_points = None
        if self._contact_normals is not None:
            self._contact_normals.remove()
            self._contact_normals = None
        if not contacts:
            return
        p = np.array([c.position_W for c in contacts], dtype=np.float32)
        n = np.array([c.normal_W for c in contacts], dtype=np.float32)
        length = max(0.05, 0.1 * self._robot_size() ** 0.5)
        self._contact_points = scene.add_point_cloud(
            '/contacts/points', p, colors=COLLIDING_RGB, point_size=0.02,
            point_shape='circle', precision='float32')
        segments = np.stack([p, p + length * n], axis=1)
        self._contact_normals = scene.add_line_segments(
            '/contacts/normals', segments, colors=NORMAL_RGB, thickness=0.006)

    def _status_text(self) -> str:
        s = self._status
        distance = 'none checked' if math.isinf(s.min_distance) else \
            f'{s.min_distance * 1e3:.1f} mm'
        if s.collision:
            links = ', '.join(s.colliding_links) or '-'
            verdict = (f'**Collision: YES** ({len(s.contacts)} contact'
                       f"{'s' if len(s.contacts) != 1 else ''}; links: {links})")
        else:
            verdict = '**Collision:** none'
        return f'{verdict}  \n**Minimum distance:** {distance}'

    # ------------------------------------------------------------------ lifetime

    def wait_for_client(self, timeout: float = 10.0) -> bool:
        """Wait until a page is connected; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.get_clients():
                return True
            time.sleep(0.02)
        return bool(self.server.get_clients())

    def stop(self) -> None:
        """Stop serving the page (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        self._pending_event.set()
        self._collision_event.set()
        self._thread.join(timeout=2.0)
        self._collision_thread.join(timeout=2.0)
        with contextlib.redirect_stdout(io.StringIO()):  # viser prints 'Server stopped'
            self.server.stop()

    def __enter__(self) -> RobotViewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
