"""MoveIt-compatible kinematics and validity services (design study B4b, B10).

Services (relative names): ``compute_ik`` (moveit_msgs/GetPositionIK), ``compute_fk``
(GetPositionFK), ``check_state_validity`` (GetStateValidity). Topics: ``joint_states`` (the
current state), ``collision_object`` and ``attached_collision_object`` (the planning scene's world
and attached objects), ``contact_markers`` (MarkerArray of the last validity check with contacts),
and, when the node loaded its own model, ``robot_description`` (transient local): the services
follow every new description published there.

Threading: compute_ik has its own MutuallyExclusiveCallbackGroup, compute_fk and
check_state_validity share a second one and the subscriptions a third. The entry points spin the
node on a :class:`~robot_state_core.ros.group_executor.CallbackGroupExecutor` that runs the
IK group (:attr:`StateServerNode.worker_callback_groups`) on its own thread and the short
callbacks inline, so a long IK solve stalls neither FK/validity nor joint states (any
multi-threaded executor keeps that property; rclpy's MultiThreadedExecutor costs more per
request, see that module). The IK timeout
a client may ask for is capped by the ``max_ik_timeout`` parameter. Shared state (the served model
with its planning scene and current state) is snapshotted under one lock and never held during a
solve; a new description is prepared (model, scene, meshes read, IK compiled) off to the side and
swapped in atomically. The planning scene's queries are thread-safe and never change it, so
requests use the served scene as it is; a scene edit (``apply_planning_scene``,
``planning_scene``, ``collision_object``, ``attached_collision_object``) is applied to a copy in
its own callback group (a worker thread) and swapped in only when the whole message applied.
Every callback is convert → core → convert; user errors get specific MoveIt
error codes and throttled, clipped log lines; the catch-all (``FAILURE``, "internal error") is
left for real bugs (docs/decisions.md, Services).

MoveIt quirks we do not copy (decision C3): ``timeout.nanosec`` is honoured (MoveIt drops it);
a zero timeout means the group default from ``kinematics.yaml``.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable
import dataclasses
from dataclasses import dataclass
import math
from pathlib import Path
import statistics
import threading
import time
from typing import Any

from geometry_msgs.msg import PoseStamped
from moveit_msgs.action import ExecuteTrajectory, MoveGroup
from moveit_msgs.msg import (
    AttachedCollisionObject,
    CollisionObject,
    ConstraintEvalResult,
    ContactInformation,
    MoveItErrorCodes,
)
from moveit_msgs.msg import (
    PlanningScene as PlanningSceneMsg,
)
from moveit_msgs.srv import (
    ApplyPlanningScene,
    GetCartesianPath,
    GetMotionPlan,
    GetPlanningScene,
    GetPositionFK,
    GetPositionIK,
    GetStateValidity,
)
import numpy as np
from rclpy.action import ActionServer, GoalResponse
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from visualization_msgs.msg import MarkerArray
import yaml

from robot_state_core.errors import (
    InvalidArgumentError,
    RobotStateCoreError,
    UnknownNameError,
)
from robot_state_core.ik.cache import DEFAULT_MAX_PROBLEMS, IKCache
from robot_state_core.ik.cartesian import compute_cartesian_path, JumpThreshold
from robot_state_core.ik.solver import prepare_ik, solve_ik
from robot_state_core.ik.types import IKOptions, IKRequest
from robot_state_core.jit.background import kernel_preparation
from robot_state_core.jit.cache import cache_directory as kernel_cache_directory
from robot_state_core.kinematics.timing import velocity_limited_time_stamps
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.markers import contact_markers
from robot_state_core.ros import qos
from robot_state_core.ros.conversions import joint_state_arrays, marker_array
from robot_state_core.ros.log_limits import clip, LOG_LINE_LIMIT, quoted, ThrottledLogger
from robot_state_core.ros.model_loading import load_model, log_load_report
from robot_state_core.ros.moveit_conversions import (
    apply_robot_state_msg,
    constraints_from_msg,
    error_code,
    frame_pose,
    FrameError,
    matrix_to_pose,
    pose_stamped_in_model_frame,
    pose_to_matrix,
    positions_to_robot_state_msg,
    robot_trajectory_msg,
    strip_prefix,
)
from robot_state_core.ros.params import (
    declare_server_parameters,
    server_parameter_types,
    StatePublisherConfig,
)
from robot_state_core.ros.planning_scene_conversions import (
    AppliedScene,
    apply_attached_collision_object,
    apply_collision_object,
    apply_planning_scene_msg,
    planning_scene_to_msg,
)
from robot_state_core.scene.planning_scene import (
    BodyType,
    CollisionObjectOperation,
    PlanningScene,
)
from robot_state_core.spatial.transforms import rigid_inverse
from robot_state_core.state.robot_state import RobotState

SOURCE = 'robot_state_core'
#: X_WL passed when every frame of a request is the model frame (frame_pose never reads it).
_NO_LINK_POSES = np.empty((0, 4, 4))
#: Longer than this [s] to prepare IK means the kernels were compiled (first run): say so.
SLOW_IK_SETUP_S = 8.0


def _load_kinematics(path: str) -> dict[str, Any]:
    if not path:
        return {}
    data = yaml.safe_load(Path(path).read_text(encoding='utf-8')) or {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


#: Calls per service over which the status line's median is taken (the most recent ones).
RECENT_CALLS = 1000


class _ServiceStats:
    """Call counts and durations per service (for the live status line).

    ``compute_ik solver`` records the ``solve_ik`` call alone inside each compute_ik request.
    """

    def __init__(self) -> None:
        self.count: dict[str, int] = defaultdict(int)
        self.total_ms: dict[str, float] = defaultdict(float)
        self.last_ms: dict[str, float] = {}
        self.recent: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=RECENT_CALLS))

    def record(self, name: str, ms: float) -> None:
        self.count[name] += 1
        self.total_ms[name] += ms
        self.last_ms[name] = ms
        self.recent[name].append(ms)

    def median_ms(self, name: str) -> float | None:
        """The median duration [ms] of the last :data:`RECENT_CALLS` calls (None: no call)."""
        values = list(self.recent.get(name, ()))  # (a copy: the deque grows in other threads)
        return statistics.median(values) if values else None


@dataclass(frozen=True, eq=False)
class ServedModel:
    """What the services answer on: a model, its planning scene and its description.

    Built by :meth:`StateServerNode.prepare_model` off to the side and swapped in as a whole by
    :meth:`StateServerNode.use_model`, so a request sees one model and one scene.

    Attributes:
        model: The robot model (with kinematics.yaml applied).
        scene: Its planning scene (world objects, attached bodies, current state).
        description: The URDF it was built from ('' when it was given as a model).
        ik_cache: The IK problems set up for this model (bounded: requests naming new tip
            links evict the least recently used problems, never grow the process).
    """

    model: RobotModel
    scene: PlanningScene
    description: str = ''
    ik_cache: IKCache = dataclasses.field(default_factory=IKCache)


class StateServerNode(Node):
    """compute_ik / compute_fk / check_state_validity over a planning scene.

    Args:
        node_name: Node name.
        model: A model to share (the all-in-one process passes the publisher's and then
            follows it through :meth:`model_listener`); ``None`` loads ``robot_description``
            (+ semantic) from the parameters and follows the ``robot_description`` topic.
        **kwargs: Forwarded to ``rclpy.node.Node`` (``parameter_overrides``, ``context``...).

    Raises:
        RobotDescriptionError: No model given and the description parameter is empty/invalid.
    """

    def __init__(self, node_name: str = 'robot_state_server', model: RobotModel | None = None,
                 **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        kernel_preparation().start(log=self.get_logger().info)  # first: before any kernel runs
        declare_server_parameters(self)
        self._log = ThrottledLogger(self.get_logger())
        self._lock = threading.Lock()
        self._scratch = threading.local()  # per executor thread: see _snapshot
        self._stopping = threading.Event()  # set on shutdown: a running IK ends at once
        follow_topic = model is None
        try:
            self._kinematics = _load_kinematics(self.get_parameter('kinematics_config').value)
            description = ''
            if model is None:
                description = self.get_parameter('robot_description').value
                model = load_model(self._config(description))
                log_load_report(self.get_logger(), model)
            served = self.prepare_model(model, description)
        except (RobotStateCoreError, OSError, yaml.YAMLError):
            self.destroy_node()
            raise
        self._served = served
        self.descriptions_received = 0
        self.stats = _ServiceStats()
        ik = MutuallyExclusiveCallbackGroup()
        queries = MutuallyExclusiveCallbackGroup()  # FK and validity: never behind an IK solve
        topics = MutuallyExclusiveCallbackGroup()
        #: The callback groups whose callbacks can be long (IK solves): an executor should run
        #: them on their own thread (:class:`~robot_state_core.ros.group_executor.
        #: CallbackGroupExecutor`), the others are short.
        scene_edits = MutuallyExclusiveCallbackGroup()  # one scene edit at a time
        self.worker_callback_groups: tuple[MutuallyExclusiveCallbackGroup, ...] = (
            ik, scene_edits)
        self._monitored_pub = self.create_publisher(PlanningSceneMsg, 'monitored_planning_scene',
                                                    qos.MONITORED_PLANNING_SCENE)
        self.create_service(GetPositionIK, 'compute_ik', self._on_compute_ik, callback_group=ik)
        self.create_service(GetCartesianPath, 'compute_cartesian_path',
                            self._on_compute_cartesian_path, callback_group=ik)
        # move_group's planning and execution interfaces: not ours; answered with a refusal
        # (never left unanswered, so a client such as pymoveit2 does not wait)
        self.create_service(GetMotionPlan, 'plan_kinematic_path', self._on_plan_kinematic_path,
                            callback_group=queries)
        self._refusing_actions = [
            ActionServer(self, action, name, execute_callback=_aborted(action),
                         goal_callback=self._refuse_goal(name), callback_group=queries)
            for action, name in ((MoveGroup, 'move_action'),
                                 (ExecuteTrajectory, 'execute_trajectory'))]
        self.create_service(GetPositionFK, 'compute_fk', self._on_compute_fk,
                            callback_group=queries)
        self.create_service(GetStateValidity, 'check_state_validity', self._on_validity,
                            callback_group=queries)
        self.create_service(GetPlanningScene, 'get_planning_scene', self._on_get_planning_scene,
                            callback_group=queries)
        self.create_service(ApplyPlanningScene, 'apply_planning_scene',
                            self._on_apply_planning_scene, callback_group=scene_edits)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 qos.JOINT_STATES, callback_group=topics)
        self.create_subscription(CollisionObject, 'collision_object', self._on_collision_object,
                                 qos.COLLISION_OBJECTS, callback_group=scene_edits)
        self.create_subscription(AttachedCollisionObject, 'attached_collision_object',
                                 self._on_attached_object, qos.COLLISION_OBJECTS,
                                 callback_group=scene_edits)
        self.create_subscription(PlanningSceneMsg, 'planning_scene', self._on_planning_scene,
                                 qos.PLANNING_SCENE, callback_group=scene_edits)
        if follow_topic:
            self.create_subscription(String, 'robot_description', self._on_description,
                                     qos.LATCHED, callback_group=topics)
        self._contacts_pub = self.create_publisher(MarkerArray, 'contact_markers', qos.MARKERS)
        model = served.model
        self._publish_scene()
        self.get_logger().info(f"services ready for robot '{clip(model.name)}' (groups: "
                               f"{quoted(model.group_names, count=10) or 'none'})")

    # ------------------------------------------------------------------ the served model

    def _config(self, description: str) -> StatePublisherConfig:
        return StatePublisherConfig(
            robot_description=description,
            robot_description_semantic=self.get_parameter('robot_description_semantic').value,
            package_roots=tuple(p for p in self.get_parameter('package_roots').value if p))

    def prepare_model(self, model: RobotModel, description: str = '') -> ServedModel:
        """Everything the services need for ``model``, built without touching the served one.

        Applies kinematics.yaml, builds the planning scene (which reads every collision mesh: one
        that cannot be read is left out with one warning naming the link and URI, as MoveIt
        does; decision V8), compiles the IK kernels and the collision broad phase (not inside a
        request timeout).
        """
        if self._kinematics:
            model = RobotModel.from_scene_graph(model.to_scene_graph(), model.srdf,
                                                self._kinematics)
        scene = PlanningScene(model)
        for line in scene.geometry.unreadable:
            self.get_logger().warning(clip(line, LOG_LINE_LIMIT))
        start = time.monotonic()
        # Room for every group's own problem plus as many requested tip sets.
        ik_cache = IKCache(DEFAULT_MAX_PROBLEMS + len(model.group_names))
        for name in model.group_names:
            group = model.group(name)
            if group.tip_link and group.active_joint_names:
                try:
                    prepare_ik(model, name, cache=ik_cache)
                except RobotStateCoreError as exc:
                    self.get_logger().debug(f'IK not prepared for group {name!r}: {exc}')
        try:  # the fcl objects and the compiled broad phase, before the first validity request
            scene.check_collision(scene.current_state)
        except RobotStateCoreError as exc:
            self.get_logger().debug(f'collision checking not prepared: {exc}')
        elapsed = time.monotonic() - start
        if elapsed > SLOW_IK_SETUP_S:  # the first run on a machine compiles the kernels
            self.get_logger().info(
                f'IK and collision checking prepared in {elapsed:.1f} s (compiled kernels built '
                f'on the first run on this machine, then loaded from {kernel_cache_directory()})')
        return ServedModel(model, scene, description, ik_cache)

    def use_model(self, served: ServedModel) -> None:
        """Swap the services to a prepared model, atomically (one lock, one assignment).

        World objects are carried over to the new scene; attached bodies, which belong to links
        of the old robot, are dropped (logged).
        """
        with self._lock:
            old = self._served
            carried = 0
            scene = served.scene
            for obj in old.scene.world.values():
                try:
                    scene.apply_world_object(CollisionObjectOperation.ADD, obj.id, obj.X_WO,
                                             obj.shapes, obj.subframes)
                    carried += 1
                except RobotStateCoreError as exc:
                    self._log.warning('carry_world', f'world object {clip(obj.id)!r} not kept '
                                                     f'for the new robot: {exc}')
            for oid, color in old.scene.object_colors.items():
                scene.set_object_color(oid, color)
            for oid, kind in old.scene.object_types.items():
                scene.set_object_type(oid, kind)
            dropped = len(old.scene.current_state.get_attached_bodies())
            self._served = served
        self._publish_scene()
        model = served.model
        note = f'; {dropped} attached object(s) dropped' if dropped else ''
        self.get_logger().info(f"services now answer for robot '{clip(model.name)}' "
                               f'({model.link_count} links; {carried} world object(s) kept{note})')

    def model_listener(self, model: RobotModel) -> Callable[[], None]:
        """Prepare ``model`` now and return the function that swaps it in.

        The all-in-one process registers this with the state publisher
        (:meth:`StatePublisherNode.add_model_listener`): a description the services cannot use
        is refused before anything changes, and both nodes switch together.
        """
        served = self.prepare_model(model)
        return lambda: self.use_model(served)

    @property
    def model(self) -> RobotModel:
        """The model the services currently answer on."""
        return self._served.model

    @property
    def scene(self) -> PlanningScene:
        """The planning scene of the current model (lock-free read; see :meth:`_snapshot`)."""
        return self._served.scene

    def _on_description(self, msg: String) -> None:
        """Follow the robot_description topic: a new description replaces the served model."""
        try:
            self.descriptions_received += 1
            if msg.data == self._served.description:
                return
            model = load_model(self._config(msg.data), source='robot_description topic')
            self.use_model(self.prepare_model(model, msg.data))
        except Exception as exc:  # a bad description keeps the current model
            self._log.error('description', f'robot_description topic: description refused, the '
                                           f"services keep robot '{clip(self.model.name)}': "
                                           f'{exc}')

    # ------------------------------------------------------------------ helpers

    @property
    def _prefix(self) -> str:
        return str(self.get_parameter('frame_prefix').value or '')

    def _snapshot(self) -> tuple[ServedModel, RobotState]:
        """The served model and a copy of its current state, taken together under the lock.

        The copy is this thread's scratch state for the served model, overwritten with
        ``copy_from`` (a callback runs on one executor thread from start to end, so a thread's
        scratch state is never used by two requests at once; no new state per request).
        """
        scratch = getattr(self._scratch, 'state', None)
        with self._lock:
            served = self._served
            current = served.scene.current_state
            if scratch is None or scratch.robot_model is not current.robot_model:
                scratch = self._scratch.state = current.copy()
            else:
                scratch.copy_from(current)
            return served, scratch


    def request_stop(self) -> None:
        """The process is shutting down: end running IK solves and Cartesian paths now.

        Safe from any thread (the signal path calls it before the executor's shutdown, which
        then waits for the worker thread a solve would otherwise hold for its whole timeout).
        """
        self._stopping.set()

    def destroy_node(self) -> None:
        """Destroy the node; a solve still running ends at once (:meth:`request_stop`)."""
        self._stopping.set()
        super().destroy_node()

    def status_text(self) -> str:
        """One-line service statistics: calls and median time per service [ms].

        ``compute_ik 205x p50 0.68 ms (solver 0.44 ms)``: the solver's share is the median of
        the ``solve_ik`` calls alone (the rest is conversions and the request's checks).
        """
        parts = []
        for name in ('compute_ik', 'compute_fk', 'check_state_validity', 'get_planning_scene',
                     'apply_planning_scene'):
            n = self.stats.count.get(name, 0)
            median = self.stats.median_ms(name)
            if n and median is not None:
                text = f'{name} {n}x p50 {median:.2f} ms'
                solver = self.stats.median_ms(f'{name} solver')
                if solver is not None:
                    text += f' (solver {solver:.2f} ms)'
                parts.append(text)
        kernels = kernel_preparation()
        if kernels.status not in ('compiled', 'idle'):  # the first start on a machine
            parts.append(f'kernels {kernels.status.split(":")[0]} ({kernels.elapsed:.0f} s; '
                         'interpreted until then)')
        return 'services: ' + (', '.join(parts) if parts else 'no calls yet')

    # ------------------------------------------------------------------ topics

    def _on_joint_state(self, msg: JointState) -> None:
        try:
            names, positions = joint_state_arrays(msg)
            if len(names) != positions.size or not np.isfinite(positions).all():
                self._log.warning('joint_states', 'joint_states: message with a name/position '
                                                  'length mismatch or NaN/inf ignored')
                return
            with self._lock:
                self._served.scene.current_state.set_variable_positions(list(names), positions,
                                                                       unknown='ignore')
        except RobotStateCoreError as exc:  # e.g. a degenerate floating-joint quaternion
            self._log.warning('joint_states', f'joint_states: message ignored: {exc}')
        except Exception as exc:
            self._log.error('joint_states_internal', f'joint_states callback failed: '
                                                     f'{type(exc).__name__}: {exc}')

    # ------------------------------------------------------------------ the planning scene

    def _edit_scene(self, edit: Callable[[PlanningScene], AppliedScene | None],
                    what: str) -> tuple[bool, str]:
        """Apply ``edit`` to a copy of the scene and swap it in only when nothing raised.

        A message applies whole or not at all. Scene edits are serialised (one callback group);
        joint states that arrived meanwhile are carried over unless the edit set the state.

        Returns:
            ``(applied, problem)``: the problem is the first error, logged as a warning.
        """
        with self._lock:
            served = self._served
            work = served.scene.copy()
        try:
            applied = edit(work)
        except (RobotStateCoreError, ValueError) as exc:
            problem = f'{what}: not applied, the scene is unchanged: {exc}'
            self._log.warning('scene_edit', clip(problem, LOG_LINE_LIMIT))
            return False, problem
        for line in (applied.warnings if applied is not None else ()):
            self._log.warning('scene_edit_warning', clip(f'{what}: {line}', LOG_LINE_LIMIT))
        with self._lock:
            if self._served is not served:  # a new robot meanwhile: this edit was for the old
                problem = f'{what}: not applied, the robot description changed meanwhile'
                self._log.warning('scene_edit', problem)
                return False, problem
            if applied is None or not applied.state_set:
                work.current_state.set_variable_positions(
                    served.scene.current_state.positions)
            self._served = dataclasses.replace(served, scene=work)
        self._publish_scene()
        return True, ''

    def _publish_scene(self) -> None:
        """Publish the full scene on ``monitored_planning_scene`` (latched)."""
        try:
            msg = planning_scene_to_msg(self.scene, prefix=self._prefix)
            self._monitored_pub.publish(msg)
        except Exception as exc:  # a bug: the edit itself is done
            self._log.error('monitored_planning_scene', f'monitored_planning_scene: '
                                                        f'{type(exc).__name__}: {exc}')

    def _on_collision_object(self, msg: CollisionObject) -> None:
        prefix = self._prefix
        try:
            self._edit_scene(lambda scene: apply_collision_object(scene, msg, prefix),
                             f"collision_object '{clip(msg.id)}'")
        except Exception as exc:
            self._log.error('collision_object_internal', f"collision_object '{clip(msg.id)}': "
                                                         f'internal error: {type(exc).__name__}: '
                                                         f'{exc}')

    def _on_attached_object(self, msg: AttachedCollisionObject) -> None:
        prefix = self._prefix
        try:
            self._edit_scene(lambda scene: apply_attached_collision_object(scene, msg, prefix),
                             f"attached_collision_object '{clip(msg.object.id)}'")
        except Exception as exc:
            self._log.error('attached_collision_object_internal',
                            f"attached_collision_object '{clip(msg.object.id)}': internal error: "
                            f'{type(exc).__name__}: {exc}')

    def _on_planning_scene(self, msg: PlanningSceneMsg) -> None:
        prefix = self._prefix
        try:
            self._edit_scene(lambda scene: apply_planning_scene_msg(scene, msg, prefix),
                             'planning_scene')
        except Exception as exc:
            self._log.error('planning_scene_internal', f'planning_scene: internal error: '
                                                       f'{type(exc).__name__}: {exc}')

    def _on_apply_planning_scene(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        prefix = self._prefix
        try:
            response.success, _ = self._edit_scene(
                lambda scene: apply_planning_scene_msg(scene, request.scene, prefix),
                'apply_planning_scene')
        except Exception as exc:  # a bug
            self._log.error('apply_planning_scene_internal', f'apply_planning_scene: internal '
                                                             f'error: {type(exc).__name__}: '
                                                             f'{exc}')
            response.success = False
        self.stats.record('apply_planning_scene', (time.perf_counter() - start) * 1e3)
        return response

    def _on_get_planning_scene(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        try:
            response.scene = planning_scene_to_msg(self.scene, request.components.components,
                                                   self._prefix)
        except Exception as exc:  # a bug
            self._log.error('get_planning_scene_internal', f'get_planning_scene: internal '
                                                           f'error: {type(exc).__name__}: {exc}')
        self.stats.record('get_planning_scene', (time.perf_counter() - start) * 1e3)
        return response

    # ------------------------------------------------------------------ compute_ik

    def _on_compute_ik(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        try:
            self._compute_ik(request.ik_request, response)
        except Exception as exc:  # a bug: user errors have their own codes
            self._log.error('compute_ik_internal', f'compute_ik: internal error: '
                                                   f'{type(exc).__name__}: {exc}')
            response.error_code = error_code(MoveItErrorCodes.FAILURE, f'internal error: {exc}',
                                             SOURCE)
        self.stats.record('compute_ik', (time.perf_counter() - start) * 1e3)
        return response

    def _ik_timeout(self, req: Any, default: float) -> tuple[float, str]:
        """The solve's timeout [s] (request, else group default; capped) and a note on the cap."""
        requested = req.timeout.sec + req.timeout.nanosec * 1e-9
        timeout = requested if requested > 0 else default
        cap = float(self.get_parameter('max_ik_timeout').value)
        if not math.isfinite(timeout) or timeout > cap:
            what = 'requested timeout' if requested > 0 else 'group default timeout'
            return cap, f'{what} {timeout:g} s capped to max_ik_timeout = {cap:g} s'
        return timeout, ''

    def _ik_snapshot(self, req: Any, prefix: str
                     ) -> tuple[ServedModel, RobotState | None, np.ndarray | None]:
        """``(served, state, seed)`` for an IK request.

        A request that takes the current state as it is (an empty ``robot_state``, no
        constraints, no collision checking, every pose in the model frame) needs only the
        current positions, the seed: ``state`` is ``None``. Any other gets :meth:`_snapshot`'s
        scratch copy of the current state (to overlay the request's ``robot_state`` on), and
        ``seed`` is ``None``.
        """
        served = self._served
        if not req.avoid_collisions and _is_empty_state_msg(req.robot_state) \
                and not _has_constraints(req.constraints) \
                and _in_model_frame(served.model, req.pose_stamped_vector or (req.pose_stamped,),
                                    prefix):
            with self._lock:
                if self._served is served:  # (not swapped for a new model meanwhile)
                    return served, None, np.array(served.scene.current_state.positions)
        served, state = self._snapshot()
        return served, state, None

    def _compute_ik(self, req: Any, response: Any) -> None:
        codes = MoveItErrorCodes
        prefix = self._prefix
        served, state, seed = self._ik_snapshot(req, prefix)
        model = served.model
        if not model.has_group(req.group_name):
            response.error_code = error_code(codes.INVALID_GROUP_NAME,
                                             f"unknown group '{clip(req.group_name)}'", SOURCE)
            return
        group = model.group(req.group_name)
        if state is not None and not _applied(state, req.robot_state, response):
            return
        if req.pose_stamped_vector:
            if len(req.ik_link_names) != len(req.pose_stamped_vector):
                response.error_code = error_code(
                    codes.INVALID_LINK_NAME, f'{len(req.ik_link_names)} ik_link_names for '
                    f'{len(req.pose_stamped_vector)} poses', SOURCE)
                return
            tips = [strip_prefix(n, prefix) for n in req.ik_link_names]
            poses = [(p, f'pose_stamped_vector[{k}]')
                     for k, p in enumerate(req.pose_stamped_vector)]
        else:
            tip = strip_prefix(req.ik_link_name, prefix) or group.tip_link
            tips, poses = [tip], [(req.pose_stamped, 'pose_stamped')]
        unknown = [t for t in tips if not model.has_link(t)]
        if unknown or not all(tips):
            response.error_code = error_code(
                codes.INVALID_LINK_NAME, f'unknown or missing IK link(s) '
                f'{quoted(unknown or tips)} for group {group.name!r}', SOURCE)
            return
        c = req.constraints
        # (no state: _ik_snapshot found no constraints and every pose in the model frame)
        has_constraints = state is not None and _has_constraints(c)
        # FK of the request state only when a header names a link frame or constraints need it
        X_WL = _NO_LINK_POSES
        if state is not None and (has_constraints or not _in_model_frame(
                model, (p for p, _ in poses), prefix)):
            X_WL = state.get_link_poses()
        try:
            targets = tuple(pose_stamped_in_model_frame(model, X_WL, p, prefix, what)
                            for p, what in poses)
            constraints = None
            if has_constraints:
                constraints = constraints_from_msg(
                    model, X_WL, c, prefix,
                    warn=lambda text: self._log.warning('constraints', f'compute_ik: {text}'))
        except FrameError as exc:
            response.error_code = error_code(codes.FRAME_TRANSFORM_FAILURE, str(exc), SOURCE)
            return
        except UnknownNameError as exc:
            code = codes.INVALID_LINK_NAME if exc.kind == 'link' else \
                codes.INVALID_GOAL_CONSTRAINTS
            response.error_code = error_code(code, f'constraints: {exc}', SOURCE)
            return
        except InvalidArgumentError as exc:  # NaN goal, degenerate quaternion, bad constraint
            response.error_code = error_code(codes.INVALID_GOAL_CONSTRAINTS, str(exc), SOURCE)
            return
        timeout, capped = self._ik_timeout(req, float(group.default_ik_timeout))
        validity = None
        if req.avoid_collisions or constraints is not None:
            assert state is not None
            scene = served.scene  # queries are thread-safe; edits replace the scene
            checker = state.copy()

            def validity(q: np.ndarray) -> bool:
                checker.set_variable_positions(q)
                result = scene.is_state_valid(checker, group.name if req.avoid_collisions
                                              else None, constraints,
                                              check_collisions=bool(req.avoid_collisions))
                return bool(result.valid)

        random_seed = int(self.get_parameter('ik_random_seed').value)
        request = IKRequest(group=group.name, targets=targets, tip_links=tuple(tips),
                            seed=seed if state is None else np.array(state.positions),
                            timeout=timeout, options=IKOptions(
                                random_seed=None if random_seed < 0 else random_seed),
                            validity_callback=validity, stop=self._stopping)
        start = time.perf_counter()
        result = solve_ik(model, request, cache=served.ik_cache)
        self.stats.record('compute_ik solver', (time.perf_counter() - start) * 1e3)
        note = f' ({capped})' if capped else ''
        if result.success:
            positions_to_robot_state_msg(model, result.q, response.solution)
            response.error_code = error_code(codes.SUCCESS, capped, SOURCE)
        elif result.status.value == 'invalid_request':
            response.error_code = error_code(codes.INVALID_ROBOT_STATE, result.message, SOURCE)
        else:
            response.error_code = error_code(
                codes.NO_IK_SOLUTION, f'no solution within {result.elapsed * 1e3:.1f} ms '
                f'({result.status.value}; best error {result.position_error:.2e} m, '
                f'{result.rotation_error:.2e} rad){note}', SOURCE)

    # ------------------------------------------------------------------ compute_cartesian_path

    def _on_compute_cartesian_path(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        try:
            self._compute_cartesian_path(request, response)
        except Exception as exc:  # a bug: user errors have their own codes
            self._log.error('compute_cartesian_path_internal', f'compute_cartesian_path: internal '
                                                               f'error: {type(exc).__name__}: '
                                                               f'{exc}')
            response.error_code = error_code(MoveItErrorCodes.FAILURE, f'internal error: {exc}',
                                             SOURCE)
        self.stats.record('compute_cartesian_path', (time.perf_counter() - start) * 1e3)
        return response

    def _compute_cartesian_path(self, req: Any, response: Any) -> None:
        """move_group's ``compute_cartesian_path`` (MoveIt >= 2.11 semantics, decisions CP1-CP4).

        Waypoints in the model frame, in the IK link's frame (relative, MoveIt's rule when the
        header names the link) or in any frame the scene knows; ``max_step`` translation per
        step (rotation 3.5x); the jump thresholds (ours); collisions and path constraints veto
        states; the trajectory up to the first failure and its fraction.
        """
        codes = MoveItErrorCodes
        served, state = self._snapshot()
        model, scene, prefix = served.model, served.scene, self._prefix
        if not _applied(state, req.start_state, response):
            return
        if not model.has_group(req.group_name):
            response.error_code = error_code(codes.INVALID_GROUP_NAME,
                                             f"unknown group '{clip(req.group_name)}'", SOURCE)
            return
        group = model.group(req.group_name)
        link = strip_prefix(req.link_name, prefix) or (group.link_names[-1]
                                                       if group.link_names else '')
        if not model.has_link(link):
            response.error_code = error_code(codes.INVALID_LINK_NAME,
                                             f"unknown link '{clip(req.link_name)}'", SOURCE)
            return
        if not (math.isfinite(req.max_step) and req.max_step > 1e-16):
            response.error_code = error_code(
                codes.FAILURE, f'max_step must be > 0, got {req.max_step} (MoveIt: "Maximum '
                'step to take between consecutive configurations along Cartesian path was not '
                'specified")', SOURCE)
            return
        frame = strip_prefix(req.header.frame_id, prefix)
        global_frame = frame != link
        try:
            X_WH = np.eye(4) if frame in ('', model.model_frame, link) else \
                scene.get_frame_transform(frame, state)
            waypoints = [X_WH @ pose_to_matrix(p, f'waypoints[{k}]')
                         for k, p in enumerate(req.waypoints)]
            constraints = constraints_from_msg(
                model, state.get_link_poses(), req.path_constraints, prefix,
                warn=lambda text: self._log.warning('constraints',
                                                    f'compute_cartesian_path: {text}')) \
                if _has_constraints(req.path_constraints) else None
        except UnknownNameError as exc:
            code = codes.FRAME_TRANSFORM_FAILURE if exc.kind == 'frame' else \
                codes.INVALID_LINK_NAME if exc.kind == 'link' else codes.INVALID_GOAL_CONSTRAINTS
            response.error_code = error_code(code, str(exc), SOURCE)
            return
        except (FrameError, InvalidArgumentError) as exc:
            response.error_code = error_code(codes.FRAME_TRANSFORM_FAILURE
                                             if isinstance(exc, FrameError)
                                             else codes.INVALID_GOAL_CONSTRAINTS, str(exc), SOURCE)
            return
        validity = None
        if req.avoid_collisions or constraints is not None:
            checker = state.copy()

            def validity(q: np.ndarray) -> bool:
                checker.set_variable_positions(q)
                return bool(scene.is_state_valid(checker, group.name if req.avoid_collisions
                                                 else None, constraints,
                                                 check_collisions=bool(req.avoid_collisions)
                                                 ).valid)

        response.start_state = positions_to_robot_state_msg(model, state.positions,
                                                            response.start_state)
        start = time.perf_counter()
        result = compute_cartesian_path(
            model, state.positions, group.name, waypoints, link=link, max_step=req.max_step,
            global_frame=global_frame, validity=validity, stop=self._stopping,
            cache=served.ik_cache,
            jump_threshold=JumpThreshold(max(req.jump_threshold, 0.0),
                                         max(req.revolute_jump_threshold, 0.0),
                                         max(req.prismatic_jump_threshold, 0.0)))
        self.stats.record('compute_cartesian_path solver', (time.perf_counter() - start) * 1e3)
        if waypoints:
            times, velocities = velocity_limited_time_stamps(
                model, result.path, _velocity_indices(model, group.name),
                float(req.max_velocity_scaling_factor))
            robot_trajectory_msg(model, group.name, result.path, times, velocities,
                                 prefix + model.model_frame, response.solution)
        response.fraction = float(result.fraction)
        response.error_code = error_code(codes.SUCCESS, result.message, SOURCE)

    # ------------------------------------------------------------------ planning: not ours

    NOT_A_PLANNER = ("robot_state_core answers kinematics, collision and scene requests; it does "
                     "not plan or execute motions (run MoveIt's move_group for that)")

    def _on_plan_kinematic_path(self, request: Any, response: Any) -> Any:
        response.motion_plan_response.error_code = error_code(
            MoveItErrorCodes.PLANNING_FAILED, self.NOT_A_PLANNER, SOURCE)
        response.motion_plan_response.group_name = request.motion_plan_request.group_name
        self._log.warning('plan_kinematic_path', f'plan_kinematic_path: refused: '
                                                 f'{self.NOT_A_PLANNER}')
        return response

    def _refuse_goal(self, name: str) -> Callable[[Any], GoalResponse]:
        def refuse(_goal: Any) -> GoalResponse:
            self._log.warning(name, f'{name}: goal rejected: {self.NOT_A_PLANNER}')
            return GoalResponse.REJECT
        return refuse

    # ------------------------------------------------------------------ compute_fk

    def _on_compute_fk(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        codes = MoveItErrorCodes
        try:
            self._compute_fk(request, response)
        except Exception as exc:  # a bug: user errors have their own codes
            self._log.error('compute_fk_internal', f'compute_fk: internal error: '
                                                   f'{type(exc).__name__}: {exc}')
            response.error_code = error_code(codes.FAILURE, f'internal error: {exc}', SOURCE)
        self.stats.record('compute_fk', (time.perf_counter() - start) * 1e3)
        return response

    def _compute_fk(self, request: Any, response: Any) -> None:
        codes = MoveItErrorCodes
        served, state = self._snapshot()
        model = served.model
        prefix = self._prefix
        if not _applied(state, request.robot_state, response):
            return
        X_WL = state.get_link_poses()
        X_HW = None  # the header frame is the model frame: poses are X_WL as they are
        if strip_prefix(request.header.frame_id, prefix) not in ('', model.model_frame):
            try:
                X_HW = rigid_inverse(frame_pose(model, X_WL, request.header.frame_id, prefix))
            except FrameError as exc:
                response.error_code = error_code(codes.FRAME_TRANSFORM_FAILURE, str(exc),
                                                 SOURCE)
                return
        frame = request.header.frame_id or (prefix + model.model_frame)
        stamp = self.get_clock().now().to_msg()
        unknown = []
        for name in request.fk_link_names:
            link = strip_prefix(name, prefix)
            if not model.has_link(link):
                unknown.append(name)
                continue
            ps = PoseStamped()
            ps.header.frame_id = frame
            ps.header.stamp = stamp
            X_WB = X_WL[model.link_index(link)]  # B: the requested link
            ps.pose = matrix_to_pose(X_WB if X_HW is None else X_HW @ X_WB)
            response.pose_stamped.append(ps)
            response.fk_link_names.append(name)
        if not request.fk_link_names or unknown:
            response.error_code = error_code(
                codes.INVALID_LINK_NAME, f'unknown link(s) {quoted(unknown)}' if unknown
                else 'fk_link_names is empty', SOURCE)
        else:
            response.error_code = error_code(codes.SUCCESS, '', SOURCE)

    # ------------------------------------------------------------------ check_state_validity

    def _on_validity(self, request: Any, response: Any) -> Any:
        start = time.perf_counter()
        try:
            problem = self._validity(request, response)
            if problem:  # a user error: GetStateValidity has no error code, so say it in the log
                self._log.warning('check_state_validity', f'check_state_validity: {problem}; '
                                                          'answered valid = false')
                response.valid = False
        except Exception as exc:  # a bug
            self._log.error('check_state_validity_internal', f'check_state_validity: internal '
                                                             f'error: {type(exc).__name__}: '
                                                             f'{exc}')
            response.valid = False
        self.stats.record('check_state_validity', (time.perf_counter() - start) * 1e3)
        return response

    def _validity(self, request: Any, response: Any) -> str:
        """Fill ``response``; return the user error that makes the request unanswerable, or ''."""
        served, state = self._snapshot()
        model = served.model
        try:
            apply_robot_state_msg(state, request.robot_state)
        except RobotStateCoreError as exc:
            return f'invalid robot_state: {exc}'
        group = request.group_name or None
        if group is not None and not model.has_group(group):
            return f"unknown group '{clip(group)}'"
        try:
            constraints = constraints_from_msg(
                model, state.get_link_poses(), request.constraints, self._prefix,
                warn=lambda text: self._log.warning('constraints',
                                                    f'check_state_validity: {text}'))
        except RobotStateCoreError as exc:  # unknown frame/link/joint, bad numbers/primitives
            return f'invalid constraints: {exc}'
        scene = served.scene  # queries are thread-safe; edits replace the scene
        result = scene.is_state_valid(state, group, constraints, contacts=True)
        stamp = self.get_clock().now().to_msg()
        frame = self._prefix + model.model_frame
        for c in result.contacts:
            info = ContactInformation()
            info.header.frame_id = frame
            info.header.stamp = stamp
            info.position.x, info.position.y, info.position.z = (float(v) for v in c.position_W)
            info.normal.x, info.normal.y, info.normal.z = (float(v) for v in c.normal_W)
            info.depth = float(c.depth)
            info.contact_body_1, info.contact_body_2 = c.body_name_1, c.body_name_2
            info.body_type_1, info.body_type_2 = int(c.body_type_1), int(c.body_type_2)
            response.contacts.append(info)
        response.constraint_result = [ConstraintEvalResult(result=r.result,
                                                           distance=float(r.distance))
                                      for r in result.constraint_results]
        response.valid = bool(result.valid)
        if result.contacts:
            self._contacts_pub.publish(marker_array(
                contact_markers([(c.body_name_1, c.body_name_2, c.position_W)
                                 for c in result.contacts], model.model_frame),
                stamp, self._prefix, delete_all_first=True))
        return ''


__all__ = ['BodyType', 'ServedModel', 'StateServerNode', 'UnknownNameError',
           'server_parameter_types']


def _has_constraints(c: Any) -> bool:
    """Whether a ``moveit_msgs/Constraints`` holds a joint, position or orientation constraint."""
    return bool(len(c.joint_constraints) or len(c.position_constraints)
                or len(c.orientation_constraints))


def _in_model_frame(model: RobotModel, poses: Iterable[Any], prefix: str) -> bool:
    """Whether every PoseStamped's header names the model frame (or none)."""
    return all(strip_prefix(p.header.frame_id, prefix) in ('', model.model_frame) for p in poses)


def _is_empty_state_msg(msg: Any) -> bool:
    """Whether a ``moveit_msgs/RobotState`` sets nothing (the current state is used as is)."""
    js, mdof = msg.joint_state, msg.multi_dof_joint_state
    return not (len(js.name) or len(js.position) or len(mdof.joint_names)
                or len(mdof.transforms) or len(msg.attached_collision_objects))


def _applied(state: RobotState, robot_state_msg: Any, response: Any) -> bool:
    """Apply a request's ``robot_state`` to ``state``; a bad one answers INVALID_ROBOT_STATE.

    Returns:
        Whether the state was applied (when not, ``response.error_code`` is filled).
    """
    try:
        apply_robot_state_msg(state, robot_state_msg)
    except RobotStateCoreError as exc:
        response.error_code = error_code(MoveItErrorCodes.INVALID_ROBOT_STATE, str(exc), SOURCE)
        return False
    return True


def _velocity_indices(model: RobotModel, group: str) -> np.ndarray:
    """The velocity variables of a group's active joints (indices into ``v``)."""
    joints = model.group(group).active_joint_indices.tolist()
    return np.array([int(model.joint_v_start[j]) + k for j in joints
                     for k in range(int(model.joint_nv[j]))], dtype=np.intp)


def _aborted(action: Any) -> Callable[[Any], Any]:
    """An action server's execute callback that aborts (its goals are rejected before)."""
    def execute(goal_handle: Any) -> Any:
        goal_handle.abort()
        return action.Result()
    return execute

