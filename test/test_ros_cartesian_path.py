"""``compute_cartesian_path`` over real DDS (moveit_msgs/GetCartesianPath, move_group's name).

The server node runs in process on its CallbackGroupExecutor thread (as in test_ros_services);
the client is plain rclpy. Every returned trajectory point is checked with Pinocchio's FK: the
tip follows the line, the fraction is MoveIt's, collisions stop the path, and each MoveIt
error code of the service is produced.
"""

from __future__ import annotations

import importlib
import itertools
from pathlib import Path
import re
import threading

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
pytest.importorskip('fcl')
from moveit_msgs.msg import CollisionObject, MoveItErrorCodes  # noqa: E402
from moveit_msgs.srv import GetCartesianPath  # noqa: E402
import pinocchio_oracle  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from shape_msgs.msg import SolidPrimitive  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.ros.group_executor import CallbackGroupExecutor  # noqa: E402
from robot_state_core.ros.moveit_conversions import matrix_to_pose  # noqa: E402

CALL_TIMEOUT = 30.0
LINE = 1e-3 + 1e-5  # CartesianPrecision.translational + the IK tolerance


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


def _request(server, offsets, frame='world', link='tool0', max_step=0.01):
    state = server.scene.current_state.copy()
    state.set_to_default_values('arm', 'ready')
    X0 = state.get_global_link_transform('tool0')
    req = GetCartesianPath.Request()
    req.header.frame_id = frame
    req.group_name = 'arm'
    req.link_name = link
    req.start_state.joint_state.name = list(server.model.group('arm').active_variable_names)
    req.start_state.joint_state.position = [
        float(state.get_variable_position(n)) for n in req.start_state.joint_state.name]
    req.start_state.is_diff = True
    waypoints = []
    for dx in offsets:
        X = X0.copy()
        X[:3, 3] += dx
        waypoints.append(X)
    req.waypoints = [matrix_to_pose(X) for X in waypoints]
    req.max_step = max_step
    return req, X0, waypoints


def _tip_positions(server, response) -> np.ndarray:
    """tool0 positions of every trajectory point, by Pinocchio (the oracle)."""
    import pinocchio as pin

    model = server.model
    pm, _ = pinocchio_oracle.load(default_robot_urdf_path())
    data = pm.createData()
    frame = pm.getFrameId('tool0')
    base = server.scene.current_state.positions.copy()
    names = list(response.solution.joint_trajectory.joint_names)
    columns = [model.variable_index(n) for n in names]
    start = response.start_state.joint_state
    for n, v in zip(start.name, start.position, strict=True):
        base[model.variable_index(n)] = v
    out = []
    for point in response.solution.joint_trajectory.points:
        q = base.copy()
        q[columns] = point.positions
        model.apply_mimic(q)
        pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(model, pm, q))
        out.append(data.oMf[frame].translation.copy())
    return np.array(out)


def test_a_line_and_its_trajectory(ros, server) -> None:
    """10 cm forward: fraction 1, every point on the line (Pinocchio FK).

    Times strictly increase; the last point is the waypoint.
    """
    client = ros.node('cartesian_client').create_client(GetCartesianPath,
                                                       'compute_cartesian_path')
    req, X0, (X1,) = _request(server, [(0.1, 0.0, 0.0)])
    res = _call(ros, client, req)
    assert res.error_code.val == MoveItErrorCodes.SUCCESS, res.error_code.message
    assert res.fraction == 1.0
    points = res.solution.joint_trajectory.points
    assert len(points) >= 12 and list(res.solution.joint_trajectory.joint_names) == list(
        server.model.group('arm').active_joint_names)
    times = [p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec for p in points]
    assert times[0] == 0.0 and all(b > a for a, b in itertools.pairwise(times))
    p = _tip_positions(server, res)
    ab = X1[:3, 3] - X0[:3, 3]
    t = np.clip((p - X0[:3, 3]) @ ab / (ab @ ab), 0, 1)
    assert np.linalg.norm(p - (X0[:3, 3] + t[:, None] * ab), axis=1).max() <= LINE
    np.testing.assert_allclose(p[-1], X1[:3, 3], atol=1e-5)


def test_fraction_collision_and_error_codes(ros, server) -> None:
    """Fractions, collisions and MoveIt's codes for bad requests.

    An unreachable second waypoint: 0.5 < fraction < 1. A box on the line with
    avoid_collisions: the path stops before it.
    """
    node = ros.node('cartesian_client2')
    client = node.create_client(GetCartesianPath, 'compute_cartesian_path')
    req, X0, _ = _request(server, [(0.05, 0.0, 0.0), (2.0, 0.0, 0.0)])
    res = _call(ros, client, req)
    assert res.error_code.val == MoveItErrorCodes.SUCCESS
    assert 0.5 < res.fraction < 1.0

    pub = node.create_publisher(CollisionObject, 'collision_object', 10)
    ros.wait_for_subscribers(pub)
    wall = CollisionObject()
    wall.header.frame_id = 'world'
    wall.id = 'wall'
    wall.operation = CollisionObject.ADD
    wall.primitives = [SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[0.02, 0.5, 0.5])]
    X = np.eye(4)
    X[:3, 3] = X0[:3, 3] + (0.12, 0.0, 0.0)
    wall.primitive_poses = [matrix_to_pose(X)]
    pub.publish(wall)
    ros.spin_until(lambda: 'wall' in server.scene.world, what='the wall')
    req, _, _ = _request(server, [(0.15, 0.0, 0.0)])
    assert _call(ros, client, req).fraction == 1.0  # collisions are not checked unless asked
    req.avoid_collisions = True
    blocked = _call(ros, client, req)
    assert blocked.error_code.val == MoveItErrorCodes.SUCCESS and 0.0 < blocked.fraction < 0.8
    assert _tip_positions(server, blocked)[:, 0].max() < X[0, 3]

    for change, code in (({'group_name': 'nope'}, MoveItErrorCodes.INVALID_GROUP_NAME),
                         ({'link_name': 'nope'}, MoveItErrorCodes.INVALID_LINK_NAME),
                         ({'max_step': 0.0}, MoveItErrorCodes.FAILURE)):
        bad, _, _ = _request(server, [(0.05, 0.0, 0.0)])
        for key, value in change.items():
            setattr(bad, key, value)
        assert _call(ros, client, bad).error_code.val == code, change
    bad, _, _ = _request(server, [(0.05, 0.0, 0.0)], frame='no_such_frame')
    assert _call(ros, client, bad).error_code.val == MoveItErrorCodes.FRAME_TRANSFORM_FAILURE
    bad.header.frame_id = 'world'
    bad.start_state.joint_state.name = ['nope']
    bad.start_state.joint_state.position = [0.0]
    assert _call(ros, client, bad).error_code.val == MoveItErrorCodes.INVALID_ROBOT_STATE
    empty, _, _ = _request(server, [])
    res = _call(ros, client, empty)
    assert res.error_code.val == MoveItErrorCodes.SUCCESS and res.fraction == 0.0
    assert len(res.solution.joint_trajectory.points) == 0


def test_waypoints_in_the_link_frame_are_relative(ros, server) -> None:
    """A header naming the IK link: waypoints relative to the link (MoveIt's rule)."""
    client = ros.node('cartesian_client3').create_client(GetCartesianPath,
                                                        'compute_cartesian_path')
    req, X0, _ = _request(server, [], frame='tool0')
    step = np.eye(4)
    step[2, 3] = 0.05
    req.waypoints = [matrix_to_pose(step), matrix_to_pose(step)]
    res = _call(ros, client, req)
    assert res.fraction == 1.0
    np.testing.assert_allclose(_tip_positions(server, res)[-1], (X0 @ _z(0.1))[:3, 3],
                               atol=2e-5)


def _z(d: float) -> np.ndarray:
    X = np.eye(4)
    X[2, 3] = d
    return X


def _set_fields(msg, values: dict) -> None:
    """Fill a message from the YAML of a ``ros2 service call`` (nested dicts and lists)."""
    for name, value in values.items():
        current = getattr(msg, name)
        if isinstance(value, dict):
            _set_fields(current, value)
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            kind = type(msg).get_fields_and_field_types()[name]  # sequence<pkg/Type>
            package, type_name = re.search(r'(\w+)/(\w+)', kind).groups()
            item_type = getattr(importlib.import_module(f'{package}.msg'), type_name)
            items = []
            for item in value:
                m = item_type()
                _set_fields(m, item)
                items.append(m)
            setattr(msg, name, items)
        else:
            setattr(msg, name, type(current)(value) if isinstance(current, float) else value)


def test_the_readme_request(ros, server) -> None:
    """README "Cartesian paths": the ``ros2 service call`` request as written, fraction 1.0.

    Both lines are straight (Pinocchio FK), and the path ends at the last waypoint.
    """
    import yaml

    readme = (Path(__file__).resolve().parents[1] / 'README.md').read_text(encoding='utf-8')
    match = re.search(r'ros2 service call /compute_cartesian_path moveit_msgs/srv/GetCartesianPath'
                      r' "(.*?)"', readme, re.S)
    assert match, 'the README example is gone'
    req = GetCartesianPath.Request()
    _set_fields(req, yaml.safe_load(match.group(1)))
    client = ros.node('readme_client').create_client(GetCartesianPath, 'compute_cartesian_path')
    res = _call(ros, client, req)
    assert res.error_code.val == MoveItErrorCodes.SUCCESS, res.error_code.message
    assert res.fraction == 1.0
    p = _tip_positions(server, res)
    X_WF = server.scene.current_state.get_global_link_transform(req.header.frame_id)
    corners = np.array([(X_WF @ [w.position.x, w.position.y, w.position.z, 1.0])[:3]
                        for w in req.waypoints])
    np.testing.assert_allclose(p[-1], corners[-1], atol=1e-5)
    start = p[0]
    # the second line (between the two waypoints) holds every point after the first corner
    k = int(np.argmin(np.linalg.norm(p - corners[0], axis=1)))
    assert np.linalg.norm(p[k] - corners[0]) <= 1e-5
    for a, b, seg in ((start, corners[0], p[:k + 1]), (corners[0], corners[1], p[k:])):
        ab = b - a
        t = np.clip((seg - a) @ ab / (ab @ ab), 0, 1)
        assert np.linalg.norm(seg - (a + t[:, None] * ab), axis=1).max() <= LINE
