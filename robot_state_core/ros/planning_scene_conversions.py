"""``moveit_msgs`` planning-scene messages ⇄ the core :class:`PlanningScene` (MoveIt semantics).

* ``CollisionObject`` → world objects (:func:`apply_collision_object`), as MoveIt's
  ``processCollisionObjectMsg``: the header frame is any frame the scene knows (model frame,
  links, attached bodies, world objects, ``'<object>/<subframe>'``, fixed frames); an object with
  one shape and the identity pose takes the shape's pose as its object pose
  (``fillInObjectPoseFromPrimitive``); a shape without a pose has the identity
  (``fillInPrimitivePose``); more poses than shapes is an error; a non-empty ``type`` is kept.
* ``AttachedCollisionObject`` → attached bodies (:func:`apply_attached_collision_object`),
  MoveIt's ``processAttachedCollisionObjectMsg``.
* ``PlanningScene`` → the scene (:func:`apply_planning_scene_msg`, full or diff) and back
  (:func:`planning_scene_to_msg` with ``PlanningSceneComponents``,
  :func:`planning_scene_diff_to_msg`).

Applying is all or nothing: every function here raises on the first problem, and callers
apply to a :meth:`~robot_state_core.scene.planning_scene.PlanningScene.copy` that they keep
only when nothing was raised. Where we differ from MoveIt, docs/decisions.md says so (rows
PS1-PS9): a message with any bad part fails as a whole (MoveIt applies what it can and reports
false), planes and octomaps are refused, unknown frames in MOVE are errors (MoveIt uses the
identity).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
import math
from typing import Any

from geometry_msgs.msg import Point, Pose, TransformStamped
from moveit_msgs.msg import (
    AllowedCollisionEntry,
    AttachedCollisionObject,
    CollisionObject,
    LinkPadding,
    LinkScale,
    ObjectColor,
    PlanningSceneComponents,
)
from moveit_msgs.msg import (
    AllowedCollisionMatrix as AcmMsg,
)
from moveit_msgs.msg import (
    PlanningScene as PlanningSceneMsg,
)
import numpy as np
from object_recognition_msgs.msg import ObjectType as ObjectTypeMsg
from shape_msgs.msg import Mesh as MeshMsg
from shape_msgs.msg import MeshTriangle, SolidPrimitive
from std_msgs.msg import ColorRGBA, Header

from robot_state_core.description.acm import AllowedCollisionMatrix, AllowedCollisionType
from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.geometry.shapes import Mesh, module_of, Shape
from robot_state_core.geometry.shapes.mesh import from_arrays as mesh_from_arrays
from robot_state_core.ros.moveit_conversions import (
    apply_robot_state_msg,
    FrameError,
    matrix_to_pose,
    matrix_to_transform,
    pose_to_matrix,
    robot_state_to_msg,
    shape_from_primitive,
    strip_prefix,
    transform_to_matrix,
)
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    ObjectType,
    PlanningScene,
)
from robot_state_core.state.robot_state import RobotState

__all__ = [
    'ALL_COMPONENTS',
    'AppliedScene',
    'acm_from_msg',
    'acm_to_msg',
    'apply_attached_collision_object',
    'apply_collision_object',
    'apply_planning_scene_msg',
    'collision_object_geometry',
    'collision_object_to_msg',
    'planning_scene_diff_to_msg',
    'planning_scene_to_msg',
]

ALL_COMPONENTS = 1023
'''Every ``PlanningSceneComponents`` bit (move_group answers ``components == 0`` with these).'''

_C = PlanningSceneComponents


@dataclass
class AppliedScene:
    """What applying a message did, besides changing the scene.

    Attributes:
        warnings: Things ignored with a warning (as MoveIt warns): an unknown link in
            link_padding, a robot_model_name of another robot, a repeated ADD of one id.
        state_set: The message set the robot state's joints.
    """

    warnings: list[str] = field(default_factory=list)
    state_set: bool = False


# ------------------------------------------------------------------------------ frames


def _frame(scene: PlanningScene, state: RobotState, frame_id: str, prefix: str,
           where: str) -> np.ndarray:
    """``X_WF`` of a header frame (MoveIt ``getFrameTransform`` after ``knowsFrameTransform``).

    Raises:
        FrameError: An empty or unknown frame (MoveIt: "Unknown frame").
    """
    frame = strip_prefix(frame_id, prefix)
    if not frame:
        raise FrameError(f"{where}: the header frame_id is empty (use '"
                         f"{scene.model.model_frame}' or a link)")
    if not scene.knows_frame_transform(frame, state):
        raise FrameError(f"{where}: unknown frame '{frame_id}' (not the model frame, a link, "
                         'an attached body, a world object, a subframe or a fixed frame)')
    return scene.get_frame_transform(frame, state)


def _is_identity(pose: Pose) -> bool:
    """MoveIt ``isEmpty(Pose)``: position 0 and quaternion exactly (0, 0, 0, 1)."""
    p, o = pose.position, pose.orientation
    return (p.x, p.y, p.z, o.x, o.y, o.z, o.w) == (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


# ------------------------------------------------------------------------------ shapes


def _mesh_shape(msg: MeshMsg, where: str) -> Mesh:
    vertices = np.array([[v.x, v.y, v.z] for v in msg.vertices], dtype=np.float64).reshape(-1, 3)
    faces = np.array([list(t.vertex_indices) for t in msg.triangles],
                     dtype=np.int64).reshape(-1, 3)
    return mesh_from_arrays(vertices, faces, where)


def _object_shapes(msg: CollisionObject, where: str) -> tuple[list[Shape], list[Pose | None]]:
    """Shapes in MoveIt's order (primitives, meshes), each with its pose or ``None``.

    Raises:
        InvalidArgumentError: More poses than shapes of a kind, a plane, a bad shape.
    """
    for shapes, poses, kind in ((msg.primitives, msg.primitive_poses, 'primitive'),
                                (msg.meshes, msg.mesh_poses, 'mesh'),
                                (msg.planes, msg.plane_poses, 'plane')):
        if len(poses) > len(shapes):
            raise InvalidArgumentError(f'{where}: {len(poses)} {kind}_poses for {len(shapes)} '
                                       f'{kind}s')
    if len(msg.planes):
        raise InvalidArgumentError(f'{where}: plane shapes are not supported (docs/decisions.md '
                                   'PS4)')
    out_shapes: list[Shape] = []
    out_poses: list[Pose | None] = []
    for k, prim in enumerate(msg.primitives):
        try:
            out_shapes.append(shape_from_primitive(prim))
        except InvalidArgumentError as err:
            raise InvalidArgumentError(f'{where}: primitives[{k}]: {err}') from err
        out_poses.append(msg.primitive_poses[k] if k < len(msg.primitive_poses) else None)
    for k, mesh in enumerate(msg.meshes):
        out_shapes.append(_mesh_shape(mesh, f'{where}: meshes[{k}]'))
        out_poses.append(msg.mesh_poses[k] if k < len(msg.mesh_poses) else None)
    return out_shapes, out_poses


def _object_pose(pose: Pose, what: str, warnings: list[str] | None) -> np.ndarray:
    """A message pose of the scene (MoveIt ``poseMsgToEigen``).

    An all-zero quaternion is the identity rotation with a warning, as MoveIt reads it; a NaN
    number or another degenerate quaternion is refused (docs/decisions.md PS6).
    """
    o = pose.orientation
    if (o.x, o.y, o.z, o.w) == (0.0, 0.0, 0.0, 0.0):
        if warnings is not None:
            warnings.append(f'{what}: empty quaternion, read as the identity rotation (MoveIt)')
        pose = Pose(position=pose.position)
    return pose_to_matrix(pose, what)


def _pose_or_identity(pose: Pose | None, what: str, warnings: list[str] | None) -> np.ndarray:
    return np.eye(4) if pose is None else _object_pose(pose, what, warnings)


def collision_object_geometry(
        scene: PlanningScene, state: RobotState, msg: CollisionObject, prefix: str = '',
        where: str = 'collision object', warnings: list[str] | None = None
) -> tuple[np.ndarray, list[tuple[Shape, np.ndarray]], dict[str, np.ndarray]]:
    """``(X_WO, [(shape, X_OS)], {subframe: X_OF})`` of an ADD/APPEND message.

    MoveIt's ``shapesAndPosesFromCollisionObjectMessage`` and header frame resolution (frames of
    ``scene`` at ``state``).

    Raises:
        FrameError: An empty or unknown header frame.
        InvalidArgumentError: No shapes, a bad shape or pose, a plane.
    """
    shapes, poses = _object_shapes(msg, where)
    if not shapes:
        raise InvalidArgumentError(f'{where}: no shapes given (primitives or meshes)')
    X_WH = _frame(scene, state, msg.header.frame_id, prefix, where)
    if len(shapes) == 1 and _is_identity(msg.pose):  # the object takes its one shape's pose
        X_HO = _pose_or_identity(poses[0], f'{where}: the pose of its one shape', warnings)
        shape_pairs = [(shapes[0], np.eye(4))]
    else:
        X_HO = _object_pose(msg.pose, f'{where}: pose', warnings)
        shape_pairs = [(s, _pose_or_identity(p, f'{where}: shape {k} pose', warnings))
                       for k, (s, p) in enumerate(zip(shapes, poses, strict=True))]
    if len(msg.subframe_names) != len(msg.subframe_poses):
        raise InvalidArgumentError(f'{where}: {len(msg.subframe_names)} subframe_names but '
                                   f'{len(msg.subframe_poses)} subframe_poses')
    subframes = {str(n): _object_pose(p, f'{where}: subframe {n!r}', warnings)
                 for n, p in zip(msg.subframe_names, msg.subframe_poses, strict=True)}
    return X_WH @ X_HO, shape_pairs, subframes


def _operation(msg: CollisionObject, where: str) -> CollisionObjectOperation:
    op = msg.operation[0] if isinstance(msg.operation, bytes) else msg.operation
    try:
        return CollisionObjectOperation(int(op))
    except ValueError:
        raise InvalidArgumentError(f'{where}: unknown operation {op!r} (ADD 0, REMOVE 1, '
                                   'APPEND 2, MOVE 3)') from None


def _object_type(msg: ObjectTypeMsg) -> ObjectType | None:
    return ObjectType(msg.key, msg.db) if msg.key or msg.db else None


def apply_collision_object(scene: PlanningScene, msg: CollisionObject, prefix: str = '',
                           state: RobotState | None = None,
                           applied: AppliedScene | None = None) -> AppliedScene:
    """Apply one ``moveit_msgs/CollisionObject`` to the scene's world (MoveIt semantics).

    Args:
        scene: The scene (edited in place: callers pass a copy, module docstring).
        msg: The message.
        prefix: The node's frame prefix, accepted in frame ids.
        state: The state header frames are resolved in (default: the current state).
        applied: Collects warnings (a new one when not given).

    Returns:
        ``applied``.

    Raises:
        FrameError: Unknown header frame (ADD, APPEND, MOVE).
        UnknownNameError: MOVE or REMOVE of an id the world does not hold.
        InvalidArgumentError: Unknown operation, no shapes for ADD/APPEND, a NaN or degenerate
            pose, a bad primitive or mesh, a plane, pose counts that do not match.
    """
    state = scene.current_state if state is None else state
    applied = AppliedScene() if applied is None else applied
    warnings = applied.warnings
    where = f"collision object '{msg.id}'"
    op = _operation(msg, where)
    if op is CollisionObjectOperation.REMOVE:
        scene.apply_world_object(op, msg.id)
        return applied
    if op is CollisionObjectOperation.MOVE:
        X_WH = _frame(scene, state, msg.header.frame_id, prefix, where)
        poses = [*msg.primitive_poses, *msg.mesh_poses, *msg.plane_poses]
        shape_poses = [_object_pose(p, f'{where}: shape pose {k}', warnings)
                       for k, p in enumerate(poses)]
        scene.apply_world_object(op, msg.id,
                                 X_WH @ _object_pose(msg.pose, f'{where}: pose', warnings),
                                 shape_poses=shape_poses)
        return applied
    X_WO, shapes, subframes = collision_object_geometry(scene, state, msg, prefix, where,
                                                        warnings)
    scene.apply_world_object(op, msg.id, X_WO, shapes, subframes)
    kind = _object_type(msg.type)
    if kind is not None:
        scene.set_object_type(msg.id, kind)
    return applied


def apply_attached_collision_object(scene: PlanningScene, msg: AttachedCollisionObject,
                                    prefix: str = '', state: RobotState | None = None,
                                    applied: AppliedScene | None = None) -> AppliedScene:
    """Attach or detach one body (MoveIt ``processAttachedCollisionObjectMsg``).

    ADD/APPEND with geometry attaches a new body (its pose from the header frame); without
    geometry the world object (or already attached body) of that id is attached to
    ``link_name`` keeping its pose. REMOVE detaches ``object.id`` back into the world; an empty
    id detaches every body (of ``link_name`` when given). MOVE is not an operation of attached
    objects (MoveIt: error).

    Raises:
        UnknownNameError: Unknown link or touch link; no such body or world object.
        FrameError: Unknown header frame.
        InvalidArgumentError: MOVE, a bad pose or shape.
    """
    applied = AppliedScene() if applied is None else applied
    obj = msg.object
    where = f"attached collision object '{obj.id}'"
    op = _operation(obj, where)
    link = strip_prefix(msg.link_name, prefix)
    current = scene.current_state if state is None else state
    if op is CollisionObjectOperation.REMOVE:
        if obj.id:
            held = scene.current_state.get_attached_body(obj.id)
            if held is not None and link and held.link != link:
                raise InvalidArgumentError(f"{where}: attached to '{held.link}', not to "
                                           f"'{msg.link_name}' (leave link_name empty or name "
                                           'the right link; MoveIt refuses it too)')
            scene.detach_object(obj.id)
            return applied
        if link and not scene.model.has_link(link):
            raise UnknownNameError(msg.link_name, 'link', scene.model.link_names)
        for body in list(scene.current_state.get_attached_bodies()):
            if not link or body.link == link:
                scene.detach_object(body.name)
        return applied
    if op is CollisionObjectOperation.MOVE:
        raise InvalidArgumentError(f'{where}: MOVE is not an operation of attached objects '
                                   '(MoveIt refuses it too)')
    touch = [strip_prefix(t, prefix) for t in msg.touch_links]
    if len(obj.primitives) or len(obj.meshes) or len(obj.planes):
        X_WO, shapes, subframes = collision_object_geometry(scene, current, obj, prefix, where,
                                                            applied.warnings)
        if op is CollisionObjectOperation.APPEND:
            held = scene.current_state.get_attached_body(obj.id)
            if held is not None:  # MoveIt: APPEND merges shapes and touch links
                X_WB = current.get_global_link_transform(held.link) @ held.pose
                X_BW = np.linalg.inv(X_WB)
                shapes = [*zip(held.shapes, held.shape_poses, strict=True),
                          *((s, X_BW @ X_WO @ X) for s, X in shapes)]
                X_WO, touch = X_WB, [*touch, *held.touch_links]
                subframes = {**held.subframes, **subframes}
        scene.attach_object(link, obj.id, X_WO, shapes, subframes, touch_links=touch)
    else:
        scene.attach_object(link, obj.id, touch_links=touch)
    kind = _object_type(obj.type)
    if kind is not None:
        scene.set_object_type(obj.id, kind)
    return applied


# ------------------------------------------------------------------------------ ACM


def acm_to_msg(acm: AllowedCollisionMatrix, names: Iterable[str] = ()) -> AcmMsg:
    """``moveit_msgs/AllowedCollisionMatrix`` (MoveIt ``getMessage``).

    ``entry_names`` are ``names`` (a scene passes its links with collision geometry: MoveIt's
    planning scene starts its ACM with every one of them) and every name with a pair or
    default entry, sorted; ``enabled[i][j]`` is True when the pair's contacts are always
    allowed (CONDITIONAL counts as False, as in MoveIt); default entries are listed for the
    names that have one.
    """
    entries = acm.get_entries()
    defaults = acm.get_default_entries()
    names = sorted({n for pair in entries for n in pair} | set(defaults) | set(names))
    msg = AcmMsg()
    msg.entry_names = names
    for a in names:
        row = AllowedCollisionEntry()
        row.enabled = [acm.is_collision_allowed(a, b) for b in names]
        msg.entry_values.append(row)
    for name in names:
        entry = defaults.get(name)
        if entry is not None:
            msg.default_entry_names.append(name)
            msg.default_entry_values.append(entry.type is AllowedCollisionType.ALWAYS)
    return msg


def acm_from_msg(msg: AcmMsg) -> AllowedCollisionMatrix:
    """An ACM from its message (MoveIt ``AllowedCollisionMatrix(const msg&)``).

    Default entries first; then for every pair a pair entry where the message's value differs
    from what the defaults give (no default: not allowed).

    Raises:
        InvalidArgumentError: Sizes that do not match (MoveIt: error and an empty matrix), or
            an empty name.
    """
    names = list(msg.entry_names)
    if len(msg.entry_values) != len(names) or any(len(r.enabled) != len(names)
                                                  for r in msg.entry_values):
        raise InvalidArgumentError(f'allowed_collision_matrix: {len(names)} entry_names need '
                                   f'{len(names)} entry_values of {len(names)} values each')
    if len(msg.default_entry_names) != len(msg.default_entry_values):
        raise InvalidArgumentError(f'allowed_collision_matrix: {len(msg.default_entry_names)} '
                                   f'default_entry_names but {len(msg.default_entry_values)} '
                                   'default_entry_values')
    if not all(names) or not all(msg.default_entry_names):
        raise InvalidArgumentError('allowed_collision_matrix: an empty name')
    acm = AllowedCollisionMatrix()
    for name, value in zip(msg.default_entry_names, msg.default_entry_values, strict=True):
        acm.set_default_entry(name, bool(value))
    for i, a in enumerate(names):
        row = msg.entry_values[i].enabled
        for j in range(i, len(names)):
            value = bool(row[j])
            if value != acm.is_collision_allowed(a, names[j]):
                acm.set_entry(a, names[j], value)
    return acm


# ------------------------------------------------------------------------------ export


def _shape_msg(shape: Shape) -> SolidPrimitive | MeshMsg | None:
    """The message of a shape: a ``SolidPrimitive`` or a ``Mesh`` (MoveIt's two kinds).

    The primitive's type number and dimension order come from the shape's module
    (``SOLID_PRIMITIVE``, ``solid_primitive_dimensions``); a MoveIt mesh is its triangles.
    """
    module = module_of(shape, 'collision_object_to_msg')
    if module.SOLID_PRIMITIVE is not None:
        return SolidPrimitive(type=module.SOLID_PRIMITIVE,
                              dimensions=module.solid_primitive_dimensions(shape))
    if module.MOVEIT_SHAPE is not None and module.MESH_FILE:
        vertices, faces = module.read_triangles(shape)
        msg = MeshMsg()
        msg.vertices = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in vertices]
        msg.triangles = [MeshTriangle(vertex_indices=[int(i) for i in f]) for f in faces]
        return msg
    return None  # ellipsoid, capsule, half-space, convex hull: no message form


def collision_object_to_msg(object_id: str, X_WO: np.ndarray,
                            shapes: Iterable[tuple[Shape, np.ndarray]],
                            subframes: dict[str, np.ndarray] | Any, frame_id: str,
                            kind: ObjectType | None = None,
                            skipped: list[str] | None = None) -> CollisionObject:
    """A ``CollisionObject`` (operation ADD) of an object (MoveIt ``getCollisionObjectMsg``).

    Shapes with no message form are left out and named in ``skipped``.
    """
    msg = CollisionObject()
    msg.header.frame_id = frame_id
    msg.id = object_id
    msg.pose = matrix_to_pose(X_WO)
    msg.operation = CollisionObject.ADD
    for k, (shape, X_OS) in enumerate(shapes):
        out = _shape_msg(shape)
        if isinstance(out, SolidPrimitive):
            msg.primitives.append(out)
            msg.primitive_poses.append(matrix_to_pose(X_OS))
        elif isinstance(out, MeshMsg):
            msg.meshes.append(out)
            msg.mesh_poses.append(matrix_to_pose(X_OS))
        elif skipped is not None:
            skipped.append(f"object '{object_id}' shape {k} ({type(shape).__name__})")
    for name, X_OF in dict(subframes).items():
        msg.subframe_names.append(name)
        msg.subframe_poses.append(matrix_to_pose(X_OF))
    if kind is not None:
        msg.type = ObjectTypeMsg(key=kind.key, db=kind.db)
    return msg


def _attached_msgs(scene: PlanningScene, prefix: str,
                   skipped: list[str] | None) -> list[AttachedCollisionObject]:
    out = []
    for body in scene.current_state.get_attached_bodies():
        aco = AttachedCollisionObject()
        aco.link_name = prefix + body.link
        aco.object = collision_object_to_msg(
            body.name, body.pose, zip(body.shapes, body.shape_poses, strict=True),
            dict(body.subframes), prefix + body.link, scene.get_object_type(body.name), skipped)
        aco.touch_links = sorted(prefix + t for t in body.touch_links)
        out.append(aco)
    return out


def _robot_state_msg(scene: PlanningScene, attached: bool, prefix: str,
                     skipped: list[str] | None, msg: Any) -> None:
    robot_state_to_msg(scene.current_state, msg.robot_state)
    msg.robot_state.joint_state.header.frame_id = prefix + scene.model.model_frame
    msg.robot_state.is_diff = False
    if attached:
        msg.robot_state.attached_collision_objects = _attached_msgs(scene, prefix, skipped)


def _world_msgs(scene: PlanningScene, frame: str, ids: Iterable[str],
                skipped: list[str] | None) -> list[CollisionObject]:
    world = scene.world
    return [collision_object_to_msg(oid, world[oid].X_WO, world[oid].shapes,
                                    dict(world[oid].subframes), frame,
                                    scene.get_object_type(oid), skipped) for oid in ids]


def _collision_links(scene: PlanningScene) -> list[str]:
    """The links with collision geometry (MoveIt's initial ACM names)."""
    return [n for n, has in zip(scene.model.link_names, scene.geometry.link_has_geometry,
                                strict=True) if has]


def _color_msgs(scene: PlanningScene, ids: Iterable[str]) -> list[ObjectColor]:
    out = []
    for oid in ids:
        c = scene.get_object_color(oid)
        if c is not None:
            out.append(ObjectColor(id=oid, color=ColorRGBA(r=c[0], g=c[1], b=c[2], a=c[3])))
    return out


def _fixed_frame_msgs(scene: PlanningScene, prefix: str) -> list[TransformStamped]:
    """MoveIt ``copyTransforms``: the model frame (identity) and every fixed frame.

    Each as ``header.frame_id = <frame>``, ``child_frame_id = <model frame>``, transform
    ``X_WF``.
    """
    model_frame = prefix + scene.model.model_frame
    frames = {scene.model.model_frame: np.eye(4), **scene.fixed_frames}
    out = []
    for name, X in sorted(frames.items()):
        t = TransformStamped()
        t.header.frame_id = prefix + name
        t.child_frame_id = model_frame
        t.transform = matrix_to_transform(np.asarray(X))
        out.append(t)
    return out


def planning_scene_to_msg(scene: PlanningScene, components: int = ALL_COMPONENTS,
                          prefix: str = '', skipped: list[str] | None = None) -> PlanningSceneMsg:
    """A full ``moveit_msgs/PlanningScene`` with the requested components.

    MoveIt ``getPlanningSceneMsg(msg, comp)``; ``0`` means all, as move_group's service.

    World objects are in the model frame (header ``frame_id`` = the model frame, pose = the
    object pose, operation ADD). Shapes without a message form are left out and named in
    ``skipped``.
    """
    comp = ALL_COMPONENTS if components == 0 else int(components)
    msg = PlanningSceneMsg()
    msg.is_diff = False
    frame = prefix + scene.model.model_frame
    with scene.locked():
        if comp & _C.SCENE_SETTINGS:
            msg.name = scene.name
            msg.robot_model_name = scene.model.name
        if comp & _C.TRANSFORMS:
            msg.fixed_frame_transforms = _fixed_frame_msgs(scene, prefix)
        if comp & (_C.ROBOT_STATE | _C.ROBOT_STATE_ATTACHED_OBJECTS):
            _robot_state_msg(scene, bool(comp & _C.ROBOT_STATE_ATTACHED_OBJECTS), prefix,
                             skipped, msg)
        if comp & _C.ALLOWED_COLLISION_MATRIX:
            msg.allowed_collision_matrix = acm_to_msg(scene.acm, _collision_links(scene))
        if comp & _C.LINK_PADDING_AND_SCALING:
            msg.link_padding = [LinkPadding(link_name=prefix + k, padding=v)
                                for k, v in scene.get_link_padding().items()]
            msg.link_scale = [LinkScale(link_name=prefix + k, scale=v)
                              for k, v in scene.get_link_scale().items()]
        if comp & _C.OBJECT_COLORS:
            msg.object_colors = _color_msgs(scene, sorted(scene.object_colors))
        if comp & _C.WORLD_OBJECT_GEOMETRY:
            msg.world.collision_objects = _world_msgs(scene, frame, sorted(scene.world),
                                                      skipped)
        elif comp & _C.WORLD_OBJECT_NAMES:
            for oid in sorted(scene.world):
                co = CollisionObject(id=oid)
                kind = scene.get_object_type(oid)
                if kind is not None:
                    co.type = ObjectTypeMsg(key=kind.key, db=kind.db)
                msg.world.collision_objects.append(co)
        if comp & _C.OCTOMAP:
            msg.world.octomap.header.frame_id = frame
    return msg


def planning_scene_diff_to_msg(scene: PlanningScene, prefix: str = '',
                               skipped: list[str] | None = None) -> PlanningSceneMsg:
    """A diff ``moveit_msgs/PlanningScene`` of a diff scene's changes.

    MoveIt ``getPlanningSceneDiffMsg``.

    Changed world objects come as full objects (ADD), removed ones as REMOVE, unless the
    object was attached in this diff (then the attach says it); a changed state comes whole
    (``is_diff`` true); a changed ACM, padding/scale or fixed frames come whole.
    """
    msg = PlanningSceneMsg()
    msg.is_diff = True
    msg.robot_state.is_diff = True
    frame = prefix + scene.model.model_frame
    with scene.locked():
        changes = scene.changes()
        msg.name = scene.name
        msg.robot_model_name = scene.model.name
        if changes.fixed_frames:
            msg.fixed_frame_transforms = _fixed_frame_msgs(scene, prefix)
        if changes.robot_state:
            _robot_state_msg(scene, True, prefix, skipped, msg)
            msg.robot_state.is_diff = True
        if changes.acm:
            msg.allowed_collision_matrix = acm_to_msg(scene.acm, _collision_links(scene))
        if changes.link_padding_and_scale:
            msg.link_padding = [LinkPadding(link_name=prefix + k, padding=v)
                                for k, v in scene.get_link_padding().items()]
            msg.link_scale = [LinkScale(link_name=prefix + k, scale=v)
                              for k, v in scene.get_link_scale().items()]
        msg.object_colors = _color_msgs(scene, changes.object_colors)
        msg.world.collision_objects = _world_msgs(scene, frame, changes.world_changed, skipped)
        attached = {b.name for b in scene.current_state.get_attached_bodies()}
        for oid in changes.world_removed:
            if oid not in attached:
                msg.world.collision_objects.append(
                    CollisionObject(id=oid, operation=CollisionObject.REMOVE,
                                    header=Header(frame_id=frame)))
        parent = scene.parent
        if parent is not None:  # world objects of the message that the parent holds attached
            held = {b.name for b in parent.current_state.get_attached_bodies()}
            for oid in dict.fromkeys(co.id for co in msg.world.collision_objects):
                if oid in held and oid not in attached:
                    aco = AttachedCollisionObject()
                    aco.object.id = oid
                    aco.object.operation = CollisionObject.REMOVE
                    msg.robot_state.attached_collision_objects.append(aco)
    return msg


# ------------------------------------------------------------------------------ import


def _finite(values: Iterable[float], what: str) -> None:
    if not all(math.isfinite(v) for v in values):
        raise InvalidArgumentError(f'{what} is not finite')


def _apply_robot_state(scene: PlanningScene, msg: Any, prefix: str, full: bool,
                       applied: AppliedScene) -> None:
    rs = msg.robot_state
    js, mdof = rs.joint_state, rs.multi_dof_joint_state
    has_joints = bool(len(js.name) or len(mdof.joint_names))
    if not (has_joints or len(rs.attached_collision_objects)):
        return  # MoveIt: an empty robot_state leaves the state as it is

    def attach(state: RobotState, aco: AttachedCollisionObject) -> None:
        if full and _operation(aco.object, 'robot_state attached object') is not \
                CollisionObjectOperation.ADD:
            raise InvalidArgumentError(f"robot_state: attached object '{aco.object.id}' of a "
                                       'full scene must be an ADD')
        apply_attached_collision_object(scene, aco, prefix, state, applied)

    state = scene.current_state
    if has_joints:
        apply_robot_state_msg(state, rs)  # joints only; attached bodies below
        applied.state_set = True
    if not rs.is_diff:
        for body in list(state.get_attached_bodies()):
            state.clear_attached_body(body.name)
    for aco in rs.attached_collision_objects:
        attach(state, aco)


def apply_planning_scene_msg(scene: PlanningScene, msg: PlanningSceneMsg,
                             prefix: str = '') -> AppliedScene:
    """Apply a ``moveit_msgs/PlanningScene``, full or diff (MoveIt ``usePlanningSceneMsg``).

    Diff (``is_diff`` true): a non-empty name replaces the name; the robot state is applied
    when it sets joints or attached objects; a non-empty ACM replaces the ACM; padding and
    scale of the listed links are set; colours are set; fixed frames are added; each
    collision object is applied in order. Full: the same, after the world, colours, attached
    bodies and ACM were cleared (the ACM is the message's, even when empty: MoveIt).

    The scene is edited in place and is left half-changed when this raises: apply to a copy
    (module docstring).

    Returns:
        Warnings and whether the message set the state.

    Raises:
        FrameError, UnknownNameError, InvalidArgumentError: The first bad part of the message
            (the error names it).
    """
    applied = AppliedScene()
    full = not msg.is_diff
    model = scene.model
    if msg.robot_model_name and msg.robot_model_name != model.name:
        applied.warnings.append(f"robot_model_name '{msg.robot_model_name}' is not this "
                                f"robot ('{model.name}')")
    if msg.world.octomap.octomap.id and len(msg.world.octomap.octomap.data):
        raise InvalidArgumentError('world.octomap: octomaps are not supported (docs/decisions.md '
                                   'PS5)')
    if full:
        scene.name = msg.name
        scene.remove_all_world_objects()
        for oid in list(scene.object_colors):
            scene.remove_object_color(oid)
        for oid in list(scene.object_types):
            scene.remove_object_type(oid)
        scene.acm = acm_from_msg(msg.allowed_collision_matrix)
    else:
        if msg.name:
            scene.name = msg.name
        if len(msg.allowed_collision_matrix.entry_names) or \
                len(msg.allowed_collision_matrix.default_entry_names):
            scene.acm = acm_from_msg(msg.allowed_collision_matrix)
    frames = {}
    for t in msg.fixed_frame_transforms:
        if strip_prefix(t.child_frame_id, prefix) != model.model_frame:
            raise InvalidArgumentError(f"fixed_frame_transforms: child_frame_id "
                                       f"'{t.child_frame_id}' is not the model frame "
                                       f"'{model.model_frame}' (MoveIt's convention)")
        frames[strip_prefix(t.header.frame_id, prefix)] = transform_to_matrix(t.transform)
    if frames:
        scene.set_fixed_frames(frames)
    _apply_robot_state(scene, msg, prefix, full, applied)
    for kind, items, setter in (
            ('link_padding', msg.link_padding, scene.set_link_padding),
            ('link_scale', msg.link_scale, scene.set_link_scale)):
        values = {}
        for item in items:
            link = strip_prefix(item.link_name, prefix)
            value = float(item.padding if kind == 'link_padding' else item.scale)
            _finite([value], f"{kind} of '{item.link_name}'")
            if model.has_link(link):
                values[link] = value
            else:
                applied.warnings.append(f"{kind}: unknown link '{item.link_name}' ignored")
        if values:
            setter(values)
    for c in msg.object_colors:
        rgba = (c.color.r, c.color.g, c.color.b, c.color.a)
        _finite(rgba, f"object_colors '{c.id}'")
        scene.set_object_color(c.id, rgba)
    added: set[str] = set()
    for k, co in enumerate(msg.world.collision_objects):
        op = _operation(co, f"world.collision_objects[{k}] '{co.id}'")
        if op is CollisionObjectOperation.ADD:
            if co.id in added:
                applied.warnings.append(f"world.collision_objects: '{co.id}' is added twice; "
                                        'the later one replaces the earlier (MoveIt)')
            added.add(co.id)
        apply_collision_object(scene, co, prefix, applied=applied)
    return applied
