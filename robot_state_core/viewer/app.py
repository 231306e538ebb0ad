"""The browser viewer: a viser page showing a robot, its joints, IK gizmos and collisions.

:class:`RobotViewer` serves a page (viser; its web client ships with the package, so it works
offline) that is to this library what RViz's RobotModel/TF/MarkerArray displays,
joint_state_publisher_gui's sliders and MoveIt's interactive marker are to ROS:

* the robot's visual geometry (URDF colours; meshes read by the core, ``package://`` and
  ``file://`` resolved by the loader), with toggles for the collision geometry and the link
  frames (TF axes);
* a slider per active variable and a drop-down of the SRDF named states (``group/state``);
* for every group with a tip link, a transform gizmo at the tip: dragging it solves IK
  (:meth:`RobotState.set_from_ik`, seeded with the current state) and the page shows whether
  it solved and the remaining tip error;
* live collision state from a :class:`PlanningScene`: links in collision turn red, contact
  points and normals are drawn, the minimum distance is shown; boxes can be added to the
  world and moved with their own gizmo;
* a *follow* mode (:meth:`RobotViewer.follow`), used by ``view --ros``: positions come from
  outside (``/joint_states``) and are drawn at up to ``max_fps``, the sliders are read-only.

Everything a person can do on the page is also a method here (``set_positions``,
``set_named_state``, ``drag_gizmo``, ``add_box``, ``move_world_object``, ...), which is how
the tests drive it. Poses are in the model frame, which is the page's world frame (+z up).
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
from robot_state_core.geometry.shapes import Box, Shape
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    CollisionRequest,
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
)
from robot_state_core.state.robot_state import RobotState
from robot_state_core.viewer.scene_meshes import (
    COLLISION_COLOR,
    element_meshes,
    ElementMesh,
    shape_triangles,
)

__all__ = ['COLLIDING_RGB', 'WORLD_RGB', 'CollisionStatus', 'IKFeedback', 'RobotViewer']

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
UNBOUNDED_TRANSLATION = 2.0
'''Half range [m] of the sliders of unbounded translations (planar, floating).'''


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
        position_error: ``|p_tip - p_target|`` after the step [m].
        rotation_error: Angle between the tip and target orientations after the step [rad].
        message: The text the page shows.
    """

    group: str
    tip: str
    success: bool
    position_error: float
    rotation_error: float
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


@dataclass(frozen=True)
class _SliderSpec:
    variable: str
    index: int
    lower: float
    upper: float
    step: float


class RobotViewer:
    """A viser server showing one robot model (module docstring).

    Args:
        model: The robot model.
        host: Address to listen on (``127.0.0.1``: this machine only).
        port: HTTP/websocket port; when it is taken the next free one is used (viser), and
            ``0`` picks any free port. :attr:`port` / :attr:`url` tell which.
        controls: Build the control panel (sliders, states, gizmos, boxes). ``False`` for
            snapshots: only the robot (and world objects) are drawn.
        follow: Start in follow mode (positions come from :meth:`follow`; sliders read-only).
        collision_period: Minimum time between two collision evaluations while following
            [s]; interactive changes are always evaluated at once.
        max_fps: Upper bound on pose updates sent per second while following.
        padding: Link padding for the collision checks [m].

    Raises:
        InvalidArgumentError: Invalid ``collision_period``, ``max_fps`` or ``padding``.
    """

    def __init__(self, model: RobotModel, *, host: str = '127.0.0.1', port: int = 8080,
                 controls: bool = True, follow: bool = False, collision_period: float = 0.1,
                 max_fps: float = 60.0, padding: float = 0.0) -> None:
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
        self._syncing = False
        self._stopped = False
        self.frames_sent = 0
        self._last_collision_time = -math.inf
        self._status = CollisionStatus(False, (), (), math.inf, 0)
        self._ik_feedback: dict[str, IKFeedback] = {}
        self._world_nodes: dict[str, list[Any]] = {}
        self._box_gizmos: dict[str, Any] = {}
        self._box_count = 0
        self._pending: tuple[tuple[str, ...], FloatArray] | None = None
        self._pending_event = threading.Event()

        visuals, visual_warnings = element_meshes(model, 'visual')
        collisions, collision_warnings = element_meshes(model, 'collision')
        self.warnings: tuple[str, ...] = tuple(
            visual_warnings + collision_warnings
            + [f'mesh URI not resolved: {u}' for u in getattr(model, 'unresolved_meshes', ())
               if not any(u in w for w in visual_warnings + collision_warnings)])
        for w in self.warnings:
            _LOG.warning('viewer: %s', w)

        with contextlib.redirect_stdout(io.StringIO()):  # viser prints a banner
            self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self._link_nodes: dict[str, Any] = {}
        self._link_paths: dict[str, str] = {}
        self._sliders: dict[str, Any] = {}
        self._gizmos: dict[str, Any] = {}
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
            self._place_camera()

            self._slider_specs = self._make_slider_specs()
            if controls:
                self._build_gui()
            self._render(force_collision=True)
        except BaseException:
            with contextlib.redirect_stdout(io.StringIO()):
                self.server.stop()
            raise
        self._thread = threading.Thread(target=self._follow_loop, name='viewer-follow',
                                        daemon=True)
        self._thread.start()

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
        """Whether positions come from :meth:`follow` (sliders read-only)."""
        return self._following

    @property
    def ik_groups(self) -> tuple[str, ...]:
        """Groups with a tip link, each with a gizmo."""
        return tuple(g for g in self.model.group_names if self.model.group(g).tip_link)

    def ik_feedback(self, group: str) -> IKFeedback | None:
        """The last drag result of ``group``'s gizmo, or ``None``."""
        with self._lock:
            return self._ik_feedback.get(group)

    def link_colors(self, link: str) -> list[tuple[int, int, int]]:
        """RGB colours the link's visual meshes are currently drawn in."""
        self.model.link_index(link)
        return [tuple(int(c) for c in node.color)  # type: ignore[misc]
                for node, _ in self._visual_nodes.get(link, [])]

    # ------------------------------------------------------------------ scene construction

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
            self._visual_nodes.setdefault(e.link, []).append(
                (self._add_element(e, 'visual'), _rgb(e.rgba)))
        for e in collisions:
            self._collision_nodes.setdefault(e.link, []).append(
                self._add_element(e, 'collision'))

    def _add_element(self, e: ElementMesh, kind: str) -> Any:
        name = f'{self._link_paths[e.link]}/{kind}_{e.index}'
        opacity = e.rgba[3] if e.rgba[3] < 1.0 else None
        return self.server.scene.add_mesh_simple(
            name, e.vertices, e.faces, color=_rgb(e.rgba), opacity=opacity,
            side='double' if opacity is not None else 'front',
            position=e.X_LE[:3, 3], wxyz=_wxyz(e.X_LE), visible=(kind == 'visual'),
            cast_shadow=False, receive_shadow=False)

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

    def frame_camera(self) -> None:
        """Aim the initial camera (and the page's "Reset View") at the robot and world as drawn.

        Pages that connect later start from this view; connected pages keep theirs.
        """
        with self._lock:
            self._place_camera()

    def _place_camera(self) -> None:
        lo, hi = self._robot_box()
        for obj in self.planning_scene.world.values():
            for shape, X_OS in obj.shapes:
                try:
                    v, _ = shape_triangles(shape)
                except Exception:  # an undrawable shape does not move the camera
                    continue
                X = obj.X_WO @ X_OS
                p = v @ X[:3, :3].T + X[:3, 3]
                lo, hi = np.minimum(lo, p.min(axis=0)), np.maximum(hi, p.max(axis=0))
        centre = 0.5 * (lo + hi)
        diagonal = max(float(np.linalg.norm(hi - lo)), 0.3)
        direction = np.array([1.0, 0.75, 0.5])
        # Far enough for the bounding sphere to fill ~85 % of the view height.
        distance = 0.5 * diagonal / math.tan(0.5 * CAMERA_FOV) / 0.85
        camera = self.server.initial_camera
        camera.fov = CAMERA_FOV
        camera.look_at = centre
        camera.position = centre + distance * direction / np.linalg.norm(direction)
        camera.up = (0.0, 0.0, 1.0)

    def _make_slider_specs(self) -> list[_SliderSpec]:
        model = self.model
        names = model.variable_names
        angle: set[int] = set()
        quaternion: set[int] = set()
        for j, t in enumerate(model.joint_types):
            s = int(model.joint_q_start[j])
            if t in (JointType.REVOLUTE, JointType.CONTINUOUS):
                angle.add(s)
            elif t is JointType.PLANAR:
                angle.add(s + 2)
            elif t is JointType.RPY_FLOATING:
                angle.update((s + 3, s + 4, s + 5))
            elif t is JointType.FLOATING:
                quaternion.update(range(s + 3, s + 7))
        specs = []
        for i in np.flatnonzero(np.asarray(model.active_variable_mask)):
            lo, hi = float(model.variable_lower[i]), float(model.variable_upper[i])
            if i in quaternion:
                lo, hi = -1.0, 1.0
            elif not (math.isfinite(lo) and math.isfinite(hi)):
                half = math.pi if i in angle else UNBOUNDED_TRANSLATION
                lo, hi = -half, half
            step = (hi - lo) / 1000.0 if hi > lo else 0.001
            specs.append(_SliderSpec(names[i], int(i), lo, hi, step))
        return specs

    def _build_gui(self) -> None:
        gui = self.server.gui
        gui.configure_theme(show_share_button=False, show_logo=False)
        status = gui.add_markdown('**Collision:** -')
        self._gui['status'] = status
        with gui.add_folder('Display'):
            collision = gui.add_checkbox('Collision geometry', initial_value=False)
            frames = gui.add_checkbox('Link frames (TF)', initial_value=False)
            collision.on_update(lambda _: self.set_show_collision(bool(collision.value)))
            frames.on_update(lambda _: self.set_show_frames(bool(frames.value)))
            self._gui['show_collision'], self._gui['show_frames'] = collision, frames
        with gui.add_folder('Joints'):
            states = ['(current)'] + [f'{g}/{s}' for g in self.model.group_names
                                      for s in self.model.group(g).named_states]
            dropdown = gui.add_dropdown('Named state', states, initial_value='(current)')
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
        groups = self.ik_groups
        if groups:
            with gui.add_folder('IK (drag the gizmos)'):
                for g in groups:
                    self._gui[f'ik/{g}'] = gui.add_markdown(f'**{g}**: drag the gizmo at '
                                                            f'`{self.model.group(g).tip_link}`')
            for g in groups:
                self._add_gizmo(g)
        with gui.add_folder('World'):
            size = gui.add_vector3('Box size [m]', initial_value=(0.1, 0.1, 0.1),
                                   min=(0.001, 0.001, 0.001), step=0.01)
            add = gui.add_button('Add box')
            clear = gui.add_button('Remove all objects')
            add.on_click(lambda _: self._on_add_box(tuple(float(v) for v in size.value)))

            def on_clear(_: Any) -> None:
                self.clear_world()
            clear.on_click(on_clear)
            self._gui['box_size'] = size
        if self.warnings:
            with gui.add_folder('Warnings'):
                gui.add_markdown('\n'.join(f'- {w}' for w in self.warnings))
            warnings = self.warnings[:3]

            def notify(client: Any) -> None:
                for w in warnings:
                    client.add_notification('Robot description warning', w, color='yellow')
            self.server.on_client_connect(notify)

    def _slider_callback(self, spec: _SliderSpec) -> Any:
        def callback(_: Any) -> None:
            if self._syncing or self._following:
                return
            value = float(self._sliders[spec.variable].value)
            self.set_positions({spec.variable: value}, _from_slider=spec)
        return callback

    def _add_gizmo(self, group: str) -> None:
        tip = self.model.group(group).tip_link
        X = self._state.get_global_link_transform(tip)
        gizmo = self.server.scene.add_transform_controls(
            f'/ik/{_node_name(group)}', scale=0.25 * max(self._robot_size(), 0.5) ** 0.5,
            position=X[:3, 3], wxyz=_wxyz(X), depth_test=False, opacity=0.9,
            visible=not self._following)

        def on_update(event: Any) -> None:
            if self._syncing or self._following:
                return
            handle = event.target
            self.drag_gizmo(group, _pose_from(handle.position, handle.wxyz),
                            _sync_gizmo=False)
        gizmo.on_update(on_update)
        self._gizmos[group] = gizmo

    # ------------------------------------------------------------------ display toggles

    def set_show_collision(self, show: bool) -> None:
        """Show or hide the collision geometry (translucent blue)."""
        with self._lock:
            self._show_collision = bool(show)
            for nodes in self._collision_nodes.values():
                for node in nodes:
                    node.visible = self._show_collision

    def set_show_frames(self, show: bool) -> None:
        """Show or hide every link frame as RGB axes (x red, y green, z blue)."""
        with self._lock:
            for node in self._link_nodes.values():
                node.axes_length = self._frame_node_scale
                node.axes_radius = self._frame_node_scale * 0.05
                node.show_axes = bool(show)

    # ------------------------------------------------------------------ state changes

    def set_positions(self, values: Mapping[str, float], *,
                      _from_slider: _SliderSpec | None = None) -> CollisionStatus:
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
        with self._lock:
            previous = self._state.positions.copy()
            self._state.set_variable_positions({str(k): float(v) for k, v in values.items()})
            if not self._normalize_quaternions():
                self._state.set_variable_positions(previous)
                raise InvalidArgumentError('RobotViewer.set_positions: a floating joint '
                                           'quaternion would be zero')
            return self._changed(skip_slider=_from_slider)

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
        if group is None and '/' in name:
            group, name = name.split('/', 1)
        with self._lock:
            groups = [group] if group is not None else list(self.model.group_names)
            for g in groups:
                if name in self.model.group(g).named_states:
                    self._state.set_to_default_values(g, name)
                    return self._changed()
            raise UnknownNameError(name, 'named state', [
                s for g in self.model.group_names for s in self.model.group(g).named_states])

    def _on_named_state(self, value: str) -> None:
        if self._syncing or self._following or value == '(current)':
            return
        self.set_named_state(value)

    def drag_gizmo(self, group: str, X_WT: ArrayLike, *,
                   _sync_gizmo: bool = True) -> IKFeedback:
        """Move ``group``'s gizmo to ``X_WT`` and solve IK, as dragging it on the page does.

        The group's variables are solved with :meth:`RobotState.set_from_ik` (group tip,
        the group's default timeout, seeded with the drawn state); on failure the state is
        unchanged and the page says so.

        Args:
            group: A group with a tip link (:attr:`ik_groups`).
            X_WT: ``(4, 4)`` target pose of the tip in the model frame.

        Returns:
            The result (also shown on the page).

        Raises:
            UnknownNameError: Unknown group, or a group without a tip.
            InvalidArgumentError: Malformed pose.
        """
        X = as_pose(X_WT, 'RobotViewer.drag_gizmo', 'X_WT')
        g = self.model.group(group)
        if not g.tip_link:
            raise UnknownNameError(group, 'group with a tip link', self.ik_groups)
        with self._lock:
            if _sync_gizmo and group in self._gizmos:
                self._syncing = True
                try:
                    self._gizmos[group].position = X[:3, 3]
                    self._gizmos[group].wxyz = _wxyz(X)
                finally:
                    self._syncing = False
            success = self._state.set_from_ik(g.name, X)
            dp, dw = pose_error(X, self._state.get_global_link_transform(g.tip_link))
            pos_err, rot_err = float(np.linalg.norm(dp)), float(np.linalg.norm(dw))
            verdict = 'solved' if success else 'no solution'
            message = (f'**{g.name}**: {verdict}; tip error {pos_err * 1e3:.1f} mm, '
                       f'{math.degrees(rot_err):.2f}°')
            feedback = IKFeedback(g.name, g.tip_link, bool(success), pos_err, rot_err,
                                  message)
            self._ik_feedback[g.name] = feedback
            if f'ik/{g.name}' in self._gui:
                self._gui[f'ik/{g.name}'].content = message
            if success:
                self._changed(skip_gizmo=g.name)
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
        """Switch follow mode on (sliders read-only, gizmos hidden) or off."""
        with self._lock:
            self._following = bool(follow)
            for slider in self._sliders.values():
                slider.disabled = self._following
            for gizmo in self._gizmos.values():
                gizmo.visible = not self._following
            if 'states' in self._gui:
                self._gui['states'].disabled = self._following

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
                        due = time.monotonic() - self._last_collision_time \
                            >= self._collision_period
                        self._render(force_collision=due, sync_gui=due)
                    except Exception as exc:  # a bad message must not stop the page
                        _LOG.warning('viewer: could not draw followed positions: %s', exc)
            rest = self._min_frame_period - (time.monotonic() - started)
            if rest > 0:
                time.sleep(rest)

    def _changed(self, skip_slider: _SliderSpec | None = None,
                 skip_gizmo: str | None = None) -> CollisionStatus:
        self._render(force_collision=True, skip_slider=skip_slider, skip_gizmo=skip_gizmo)
        return self._status

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
            return self._changed()

    def load_scene_text(self, text: str) -> CollisionStatus:
        """Add the objects of a MoveIt ``.scene`` text and redraw.

        :meth:`PlanningScene.load_geometry_text` (a malformed text raises ``SceneFileError``
        naming the line, and nothing changes).
        """
        with self._lock:
            self.planning_scene.load_geometry_text(text)
            self._sync_world()
            return self._changed()

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
        with self._lock:
            self._box_count += 1
            name = f'box_{self._box_count}'
            while name in self.planning_scene.world:
                self._box_count += 1
                name = f'box_{self._box_count}'
            groups = self.ik_groups
            X = np.eye(4)
            if groups:  # in front of the first tip, where it is easy to grab
                X[:3, 3] = self._state.get_global_link_transform(
                    self.model.group(groups[0]).tip_link)[:3, 3] + np.array([0.25, 0.0, 0.0])
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

    # ------------------------------------------------------------------ drawing

    def refresh(self) -> CollisionStatus:
        """Redraw now, with a fresh collision evaluation; returns the collision state."""
        with self._lock:
            self._render(force_collision=True)
            return self._status

    def _render(self, *, force_collision: bool, sync_gui: bool = True,
                skip_slider: _SliderSpec | None = None, skip_gizmo: str | None = None) -> None:
        """Push link poses (and, when due, collisions and GUI values) to the page."""
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
            if force_collision:
                self._update_collision()
            if sync_gui:
                self._sync_gui(skip_slider, skip_gizmo)
        self.frames_sent += 1

    def _sync_gui(self, skip_slider: _SliderSpec | None, skip_gizmo: str | None) -> None:
        self._syncing = True
        try:
            q = self._state.positions
            for spec in self._slider_specs:
                if spec is skip_slider or spec.variable not in self._sliders:
                    continue
                self._sliders[spec.variable].value = float(np.clip(q[spec.index], spec.lower,
                                                                   spec.upper))
            for g, gizmo in self._gizmos.items():
                if g == skip_gizmo:
                    continue
                X = self._state.get_global_link_transform(self.model.group(g).tip_link)
                gizmo.position = X[:3, 3]
                gizmo.wxyz = _wxyz(X)
        finally:
            self._syncing = False

    def _update_collision(self) -> None:
        scene = self.planning_scene
        result = scene.check_collision(self._state, CollisionRequest(
            contacts=True, max_contacts=1000, max_contacts_per_pair=1, distance=True))
        link_set = set(self.model.link_names)
        colliding = {n for c in result.contacts for n in (c.body_name_1, c.body_name_2)
                     if n in link_set}
        links = tuple(n for n in self.model.link_names if n in colliding)
        self._status = CollisionStatus(result.collision, links, result.contacts,
                                       float(result.distance), self._status.version + 1)
        self._last_collision_time = time.monotonic()
        for link, nodes in self._visual_nodes.items():
            for node, rgb in nodes:
                target = COLLIDING_RGB if link in colliding else rgb
                if tuple(node.color) != target:
                    node.color = target
        for link, cnodes in self._collision_nodes.items():
            target = COLLIDING_RGB if link in colliding else _rgb(COLLISION_COLOR)
            for node in cnodes:
                if tuple(node.color) != target:
                    node.color = target
        self._draw_contacts(result.contacts)
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
        self._thread.join(timeout=2.0)
        with contextlib.redirect_stdout(io.StringIO()):  # viser prints 'Server stopped'
            self.server.stop()

    def __enter__(self) -> RobotViewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
