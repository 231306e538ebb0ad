"""move_group's planning-scene interface over real DDS: get/apply services and the topics.

``get_planning_scene`` (moveit_msgs/GetPlanningScene, components honoured),
``apply_planning_scene`` (ApplyPlanningScene), ``planning_scene`` (diffs in) and
``monitored_planning_scene`` (the full scene on every change, latched for late joiners). A message
applies whole or not at all: every bad message is answered ``success = false`` (or, on a topic,
logged) and the scene stays field for field the same. The last test is the issue's round trip
across processes: a scene saved from one server with ``get_planning_scene`` and restored into a
fresh one with ``apply_planning_scene`` answers 200 random ``check_state_validity`` requests
exactly as the original.
"""

from __future__ import annotations

import math
from pathlib import Path
import threading

import numpy as np
import pytest
import yaml

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
pytest.importorskip('fcl')
from geometry_msgs.msg import Point  # noqa: E402
from moveit_msgs.msg import (  # noqa: E402
    AllowedCollisionEntry,
    AttachedCollisionObject,
    CollisionObject,
    ObjectColor,
    PlanningScene,
    PlanningSceneComponents,
)
from moveit_msgs.srv import (  # noqa: E402
    ApplyPlanningScene,
    GetPlanningScene,
    GetStateValidity,
)
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
import ros_testing  # noqa: E402
from shape_msgs.msg import Mesh, MeshTriangle, Plane, SolidPrimitive  # noqa: E402
from std_msgs.msg import ColorRGBA  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.model.robot_model import RobotModel  # noqa: E402
from robot_state_core.ros.group_executor import CallbackGroupExecutor  # noqa: E402
from robot_state_core.ros.moveit_conversions import (  # noqa: E402
    matrix_to_pose,
    robot_state_to_msg,
)
from robot_state_core.state.robot_state import RobotState  # noqa: E402

CALL_TIMEOUT = 20.0
LATE_JOINER = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)


@pytest.fixture
def server(ros):
    from robot_state_core.ros.state_server_node import StateServerNode

    node = StateServerNode(context=ros.context, parameter_overrides=[
        Parameter('robot_description', value=default_robot_urdf_path().read_text()),
        Parameter('robot_description_semantic', value=default_robot_srdf_path().read_text())])
    executor = CallbackGroupExecutor(node.worker_callback_groups, context=ros.context)
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield node
    executor.shutdown(timeout_sec=2.0)
    node.destroy_node()


def _call(ros, client, request):
    ros.wait_for_service(client)
    future = client.call_async(request)
    ros.spin_until(future.done, timeout=CALL_TIMEOUT, what=client.srv_name)
    return future.result()


def _translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = (x, y, z)
    return X


def _object(object_id: str, *, pose=None, primitive_pose=None, size=(0.2, 0.2, 0.2),
            frame='world', op=CollisionObject.ADD, kind=SolidPrimitive.BOX) -> CollisionObject:
    obj = CollisionObject()
    obj.header.frame_id = frame
    obj.id = object_id
    if pose is not None:
        obj.pose = matrix_to_pose(pose)
    obj.primitives = [SolidPrimitive(type=kind, dimensions=list(size))]
    if primitive_pose is not None:
        obj.primitive_poses = [matrix_to_pose(primitive_pose)]
    obj.operation = op
    return obj


def _tetrahedron(object_id: str, X) -> CollisionObject:
    obj = CollisionObject()
    obj.header.frame_id = 'world'
    obj.id = object_id
    obj.pose = matrix_to_pose(X)
    mesh = Mesh()
    mesh.vertices = [Point(x=0.0, y=0.0, z=0.0), Point(x=0.1, y=0.0, z=0.0),
                     Point(x=0.0, y=0.1, z=0.0), Point(x=0.0, y=0.0, z=0.1)]
    mesh.triangles = [MeshTriangle(vertex_indices=t)
                      for t in ([0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3])]
    obj.meshes = [mesh]
    obj.mesh_poses = [matrix_to_pose(np.eye(4))]
    obj.operation = CollisionObject.ADD
    return obj


def _scene(ros, client) -> PlanningScene:
    """The whole scene as get_planning_scene reports it.

    Compared field by field: serialised bytes are not comparable (CDR alignment padding is not
    initialised).
    """
    return _call(ros, client, GetPlanningScene.Request()).scene


def _diff(*objects: CollisionObject) -> ApplyPlanningScene.Request:
    req = ApplyPlanningScene.Request()
    req.scene.is_diff = True
    req.scene.robot_state.is_diff = True
    req.scene.world.collision_objects = list(objects)
    return req


def test_apply_and_get_round_trip_with_components(ros, server) -> None:
    """A diff with three objects, a colour and an ACM entry; get_planning_scene reports them.

    The sphere has one primitive with only a primitive pose: MoveIt's fillInObjectPoseFromPrimitive
    makes that its object pose. Components select what is filled (0 means all, as move_group).
    """
    node = ros.node('scene_client')
    apply = node.create_client(ApplyPlanningScene, 'apply_planning_scene')
    get = node.create_client(GetPlanningScene, 'get_planning_scene')
    req = _diff(_object('box', pose=_translation(2.0), primitive_pose=np.eye(4)),
                _object('ball', primitive_pose=_translation(0.0, 2.0, 0.5), size=(0.1,),
                        kind=SolidPrimitive.SPHERE),
                _tetrahedron('tet', _translation(-2.0)))
    req.scene.name = 'bench'
    req.scene.object_colors = [ObjectColor(id='box', color=ColorRGBA(r=1.0, g=0.5, b=0.0,
                                                                     a=1.0))]
    assert _call(ros, apply, req).success
    full = _call(ros, get, GetPlanningScene.Request()).scene
    assert full.name == 'bench' and full.robot_model_name == server.model.name
    assert not full.is_diff
    objects = {o.id: o for o in full.world.collision_objects}
    assert set(objects) == {'box', 'ball', 'tet'}
    assert all(o.header.frame_id == 'world' and o.operation == CollisionObject.ADD
               for o in objects.values())
    assert (objects['ball'].pose.position.y, objects['ball'].pose.position.z) == (2.0, 0.5)
    p = objects['ball'].primitive_poses[0].position
    assert (p.x, p.y, p.z) == (0.0, 0.0, 0.0)
    assert len(objects['tet'].meshes) == 1 and len(objects['tet'].meshes[0].triangles) == 4
    assert [(c.id, c.color.g) for c in full.object_colors] == [('box', 0.5)]
    assert full.fixed_frame_transforms[0].header.frame_id == 'world'
    assert len(full.link_padding) == len(full.link_scale) > 0
    assert full.allowed_collision_matrix.entry_names  # the SRDF's disabled pairs

    names_only = GetPlanningScene.Request()
    names_only.components.components = PlanningSceneComponents.WORLD_OBJECT_NAMES
    scene = _call(ros, get, names_only).scene
    assert sorted(o.id for o in scene.world.collision_objects) == ['ball', 'box', 'tet']
    assert all(not o.primitives and not o.meshes and not o.header.frame_id
               for o in scene.world.collision_objects)
    assert scene.name == '' and not scene.allowed_collision_matrix.entry_names
    settings = GetPlanningScene.Request()
    settings.components.components = PlanningSceneComponents.SCENE_SETTINGS
    scene = _call(ros, get, settings).scene
    assert scene.name == 'bench' and not scene.world.collision_objects


def test_bad_messages_fail_whole_and_change_nothing(ros, server) -> None:
    """Each bad request: success false and the scene byte for byte the same.

    The bad part always comes after a good object in the same message: nothing of it applies.
    """
    node = ros.node('bad_client')
    apply = node.create_client(ApplyPlanningScene, 'apply_planning_scene')
    get = node.create_client(GetPlanningScene, 'get_planning_scene')
    assert _call(ros, apply, _diff(_object('keep', pose=_translation(2.0)))).success
    before = _scene(ros, get)
    good = _object('new_one', pose=_translation(3.0))
    nan = _object('nan', pose=_translation(1.0))
    nan.pose.position.x = math.nan
    unknown_op = _object('odd', pose=_translation(1.0))
    unknown_op.operation = bytes([7])
    plane = _object('floor', pose=_translation(1.0))
    plane.planes = [Plane(coef=[0.0, 0.0, 1.0, 0.0])]
    degenerate = _object('nan_quat', pose=_translation(1.0))
    degenerate.pose.orientation.x = math.nan
    too_many_poses = _object('poses', pose=_translation(1.0), primitive_pose=np.eye(4))
    too_many_poses.primitive_poses.append(too_many_poses.primitive_poses[0])
    bad_requests = {
        'NaN pose': _diff(good, nan),
        'unknown operation': _diff(good, unknown_op),
        'REMOVE of an unknown id': _diff(good, _object('ghost', op=CollisionObject.REMOVE)),
        'MOVE of an unknown id': _diff(good, _object('ghost', pose=np.eye(4),
                                                     op=CollisionObject.MOVE)),
        'unknown frame': _diff(good, _object('far', pose=np.eye(4), frame='no_such_frame')),
        'ADD without shapes': _diff(good, CollisionObject(id='empty')),
        'plane': _diff(good, plane),
        'NaN quaternion': _diff(good, degenerate),
        'more poses than shapes': _diff(good, too_many_poses),
    }
    acm = _diff(good)
    acm.scene.allowed_collision_matrix.entry_names = ['a', 'b']
    acm.scene.allowed_collision_matrix.entry_values = [AllowedCollisionEntry(enabled=[True])]
    bad_requests['ACM of the wrong size'] = acm
    detach = _diff(good)
    aco = AttachedCollisionObject()
    aco.object.id = 'not_attached'
    aco.object.operation = CollisionObject.REMOVE
    detach.scene.robot_state.attached_collision_objects = [aco]
    bad_requests['detach of a body that is not attached'] = detach
    wrong_link = _diff(good)
    held = AttachedCollisionObject()
    held.link_name = 'tool0'
    held.object = _object('held', pose=_translation(0.3, 0.0, 1.0), size=(0.02, 0.02, 0.02))
    assert _call(ros, apply, _diff()).success
    attach = _diff()
    attach.scene.robot_state.attached_collision_objects = [held]
    assert _call(ros, apply, attach).success
    before = _scene(ros, get)
    detach_wrong = AttachedCollisionObject()
    detach_wrong.link_name = 'base_link'
    detach_wrong.object.id = 'held'
    detach_wrong.object.operation = CollisionObject.REMOVE
    wrong_link.scene.robot_state.attached_collision_objects = [detach_wrong]
    bad_requests['detach naming the wrong link'] = wrong_link
    octomap = _diff(good)
    octomap.scene.world.octomap.octomap.id = 'OcTree'
    octomap.scene.world.octomap.octomap.data = [1, 2, 3]
    bad_requests['an octomap'] = octomap
    for what, request in bad_requests.items():
        assert not _call(ros, apply, request).success, what
        assert _scene(ros, get) == before, what
    assert set(server.scene.world) == {'keep'}
    assert server.scene.current_state.has_attached_body('held')


def test_an_empty_quaternion_is_the_identity(ros, server) -> None:
    """MoveIt's poseMsgToEigen reads an all-zero quaternion as the identity (with a warning)."""
    node = ros.node('quat_client')
    apply = node.create_client(ApplyPlanningScene, 'apply_planning_scene')
    box = _object('flat', pose=_translation(2.0, 1.0))
    box.pose.orientation.w = 0.0
    assert _call(ros, apply, _diff(box)).success
    np.testing.assert_array_equal(server.scene.world['flat'].X_WO, _translation(2.0, 1.0))


def test_remove_drops_acm_entries_and_validity_follows(ros, server) -> None:
    """UpdateACMAfterObjectRemoval (moveit2 #3183), over the services.

    A box at the gripper, allowed against the gripper links: valid. REMOVE it and ADD a box of
    the same id again: its old allowed collisions are gone, the state is invalid.
    """
    node = ros.node('acm_client')
    apply = node.create_client(ApplyPlanningScene, 'apply_planning_scene')
    get = node.create_client(GetPlanningScene, 'get_planning_scene')
    valid = node.create_client(GetStateValidity, 'check_state_validity')
    X = server.scene.current_state.get_global_link_transform('gripper_palm_link')
    box = _object('box', pose=X, size=(0.05, 0.05, 0.05))
    assert _call(ros, apply, _diff(box)).success
    request = GetStateValidity.Request()
    assert not _call(ros, valid, request).valid
    scene = _call(ros, get, GetPlanningScene.Request()).scene
    acm_diff = ApplyPlanningScene.Request()
    acm_diff.scene.is_diff = True
    acm_diff.scene.allowed_collision_matrix = scene.allowed_collision_matrix
    matrix = acm_diff.scene.allowed_collision_matrix
    names = list(matrix.entry_names)
    matrix.default_entry_names = [*matrix.default_entry_names, 'box']
    matrix.default_entry_values = [*matrix.default_entry_values, True]
    assert 'box' not in names
    assert _call(ros, apply, acm_diff).success
    assert _call(ros, valid, request).valid
    assert server.scene.acm.get_default_entry('box') is not None
    assert _call(ros, apply, _diff(_object('box', op=CollisionObject.REMOVE))).success
    # default entries stay (MoveIt's removeEntry keeps them): re-added, the box is allowed
    assert _call(ros, apply, _diff(box)).success
    assert _call(ros, valid, request).valid
    # pair entries go: allow box against the gripper by pair entries, remove, re-add
    server_acm = server.scene.acm.copy()
    server_acm.remove_default_entry('box')
    for link in server.model.link_names:
        server_acm.set_entry('box', link, True)
    from robot_state_core.ros.planning_scene_conversions import acm_to_msg

    pairs = ApplyPlanningScene.Request()
    pairs.scene.is_diff = True
    pairs.scene.allowed_collision_matrix = acm_to_msg(server_acm)
    assert _call(ros, apply, pairs).success
    assert _call(ros, valid, request).valid
    assert _call(ros, apply, _diff(_object('box', op=CollisionObject.REMOVE))).success
    assert 'box' not in server.scene.acm
    assert _call(ros, apply, _diff(box)).success
    assert not _call(ros, valid, request).valid


def test_planning_scene_topic_and_late_monitored_scene(ros, server) -> None:
    """A diff on ``planning_scene`` applies; a late subscriber gets the full scene.

    The subscriber joins ``monitored_planning_scene`` after the change and still gets the full
    scene, with that object and its colour.
    """
    node = ros.node('topic_client')
    pub = node.create_publisher(PlanningScene, 'planning_scene', 10)
    ros.wait_for_subscribers(pub)
    msg = _diff(_object('crate', pose=_translation(1.5, 1.0))).scene
    msg.object_colors = [ObjectColor(id='crate', color=ColorRGBA(r=0.0, g=0.0, b=1.0, a=1.0))]
    pub.publish(msg)
    ros.spin_until(lambda: 'crate' in server.scene.world, what='crate in the scene')
    got: list[PlanningScene] = []
    late = ros.node('late_monitor')
    late.create_subscription(PlanningScene, 'monitored_planning_scene', got.append, LATE_JOINER)
    ros.spin_until(lambda: bool(got), what='monitored_planning_scene')
    scene = got[-1]
    assert not scene.is_diff
    assert [o.id for o in scene.world.collision_objects] == ['crate']
    assert [c.id for c in scene.object_colors] == ['crate']
    assert scene.robot_model_name == server.model.name


def _pose_values(pose) -> list[float]:
    p, o = pose.position, pose.orientation
    return [p.x, p.y, p.z, o.x, o.y, o.z, o.w]


def _assert_same_world(a: PlanningScene, b: PlanningScene) -> None:
    """Same objects, shapes and subframes; poses equal to 1e-12.

    A pose goes through a rotation matrix and back on each side, which can change the last bits
    of a quaternion.
    """
    assert [o.id for o in a.world.collision_objects] == [o.id for o in b.world.collision_objects]
    for x, y in zip(a.world.collision_objects, b.world.collision_objects, strict=True):
        assert x.header.frame_id == y.header.frame_id and x.primitives == y.primitives
        assert x.meshes == y.meshes and list(x.subframe_names) == list(y.subframe_names)
        for px, py in zip([x.pose, *x.primitive_poses, *x.mesh_poses, *x.subframe_poses],
                          [y.pose, *y.primitive_poses, *y.mesh_poses, *y.subframe_poses],
                          strict=True):
            np.testing.assert_allclose(_pose_values(px), _pose_values(py), atol=1e-12)
    assert a.object_colors == b.object_colors


def _params_file(tmp_path: Path) -> Path:
    path = tmp_path / 'params.yaml'
    path.write_text(yaml.safe_dump({'/**': {'ros__parameters': {
        'robot_description_semantic': default_robot_srdf_path().read_text()}}}))
    return path


def test_save_and_restore_across_processes_answers_identically(ros, tmp_path) -> None:
    """A scene saved from one server process and restored into another answers identically.

    Server A (a child process) gets a scene; this process saves it with get_planning_scene and
    restores it into a fresh server B (another child) with apply_planning_scene; both answer 200
    random check_state_validity requests identically (and not all alike).
    """
    params = _params_file(tmp_path)
    urdf = str(default_robot_urdf_path())
    children = {ns: ros_testing.ChildProcess(
        ['-c', 'from robot_state_core.ros.main import all_in_one_main; all_in_one_main()',
         urdf, '--ros-args', '-r', f'__ns:=/{ns}', '--params-file', str(params)])
        for ns in ('a', 'b')}
    try:
        node = ros.node('migrator')
        clients = {ns: (node.create_client(ApplyPlanningScene, f'/{ns}/apply_planning_scene'),
                        node.create_client(GetPlanningScene, f'/{ns}/get_planning_scene'),
                        node.create_client(GetStateValidity, f'/{ns}/check_state_validity'))
                   for ns in children}
        model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
        state = RobotState(model)
        state.set_to_default_values('arm', 'ready')
        X = state.get_global_link_transform('tool0')
        setup = _diff(_object('shelf', pose=_translation(0.6, 0.0, 0.8), size=(0.3, 1.0, 0.05)),
                      _object('post', pose=_translation(0.4, 0.4, 0.5), size=(0.05, 0.05, 1.0)),
                      _object('ball', primitive_pose=X, size=(0.04,),
                              kind=SolidPrimitive.SPHERE),
                      _tetrahedron('tet', _translation(0.3, -0.4, 0.6)))
        setup.scene.object_colors = [ObjectColor(id='post', color=ColorRGBA(r=1.0, a=1.0))]
        aco = AttachedCollisionObject()
        aco.link_name = 'tool0'
        aco.object = _object('tool', pose=X @ _translation(0.0, 0.0, 0.1), size=(0.03, 0.03,
                                                                                  0.2))
        aco.touch_links = ['tool0', 'gripper_palm_link']
        setup.scene.robot_state.attached_collision_objects = [aco]
        setup.scene.link_padding = []
        assert _call(ros, clients['a'][0], setup).success
        saved = _call(ros, clients['a'][1], GetPlanningScene.Request()).scene
        assert len(saved.world.collision_objects) == 4
        assert len(saved.robot_state.attached_collision_objects) == 1
        restore = ApplyPlanningScene.Request()
        restore.scene = saved
        assert _call(ros, clients['b'][0], restore).success
        again = _call(ros, clients['b'][1], GetPlanningScene.Request()).scene
        _assert_same_world(again, saved)
        rng = np.random.default_rng(20261203)
        answers = {'a': [], 'b': []}
        for _ in range(200):
            state.set_to_random_positions(rng=rng)
            request = GetStateValidity.Request()
            request.robot_state = robot_state_to_msg(state)
            request.robot_state.is_diff = True
            request.group_name = 'whole_body'
            for ns in children:
                res = _call(ros, clients[ns][2], request)
                answers[ns].append((res.valid, sorted((c.contact_body_1, c.contact_body_2)
                                                      for c in res.contacts)))
        assert answers['a'] == answers['b']
        verdicts = [v for v, _ in answers['a']]
        assert any(verdicts) and not all(verdicts)
    finally:
        for child in children.values():
            child.stop()
