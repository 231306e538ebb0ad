"""compute_ik requests cannot grow the node (issue 26 item 1), over real DDS.

``robot_state_server`` runs the default robot in a child process. After a warm-up, 10 000
compute_ik requests name distinct ``ik_link_names`` permutations (3 and 4 tips) of the
``whole_body`` group, whose planar base, lift and arm move every link; before this work each
new tip tuple left IK tables on the model for good (3 000 requests: +32 MB). The child's
resident memory (``/proc/<pid>/status`` VmRSS) may grow by at most :data:`RSS_BUDGET_MB`.
Every target is the tip's pose at the default state (from Pinocchio's FK, not ours), so each
answer is SUCCESS and is checked.

With the ``ik_random_seed`` parameter set, the same request repeated gets the same answer
bitwise, also after the cache churn above.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')
pytest.importorskip('moveit_msgs')
from moveit_msgs.srv import GetPositionIK  # noqa: E402
import pinocchio_oracle  # noqa: E402
import ros_testing  # noqa: E402
from rsp_testing import params_file  # noqa: E402

from robot_state_core.io.default_robot import (  # noqa: E402
    default_robot_srdf_path,
    default_robot_urdf_path,
)
from robot_state_core.model.robot_model import RobotModel  # noqa: E402
from robot_state_core.ros.moveit_conversions import matrix_to_pose  # noqa: E402

REQUESTS = 10_000
RSS_BUDGET_MB = 20.0
IN_FLIGHT = 8
'''Requests sent before waiting for their answers (within the service queues' depth of 10).'''
SERVER = 'import sys; from robot_state_core.ros.main import state_server_main as m; sys.exit(m())'


def _rss_mb(pid: int) -> float:
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024.0
    raise AssertionError('no VmRSS')


def _pinocchio_poses(model: RobotModel, links: list[str]) -> dict[str, np.ndarray]:
    import pinocchio

    pm, _ = pinocchio_oracle.load(default_robot_urdf_path())
    data = pm.createData()
    pinocchio.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(
        model, pm, np.asarray(model.default_positions)))
    return {n: data.oMf[pm.getFrameId(n)].homogeneous for n in links}


def _request(tips: tuple[str, ...], poses: dict[str, np.ndarray], frame: str,
             timeout_s: float = 0.05) -> GetPositionIK.Request:
    request = GetPositionIK.Request()
    ik = request.ik_request
    ik.group_name = 'whole_body'
    ik.ik_link_names = list(tips)
    for tip in tips:
        from geometry_msgs.msg import PoseStamped

        pose = PoseStamped()
        pose.header.frame_id = frame
        pose.pose = matrix_to_pose(poses[tip])
        ik.pose_stamped_vector.append(pose)
    ik.timeout.nanosec = int(timeout_s * 1e9)
    return request


def test_ten_thousand_tip_permutations_do_not_grow_the_node(ros, tmp_path) -> None:
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    group = model.group('whole_body')
    links = [n for n in model.link_names if n != 'base_link'
             and model.link_index(n) in set(_moved(model, group))]
    poses = _pinocchio_poses(model, links)
    tuples = itertools.chain(itertools.permutations(links, 3), itertools.permutations(links, 4))
    requests = [t for _, t in zip(range(REQUESTS), tuples, strict=False)]
    assert len(requests) == REQUESTS and len(set(requests)) == REQUESTS
    params = params_file(tmp_path, robot_description=default_robot_urdf_path().read_text(),
                         robot_description_semantic=default_robot_srdf_path().read_text(),
                         ik_random_seed=7)
    child = ros_testing.ChildProcess(['-c', SERVER, '--ros-args', '--params-file', str(params)])
    try:
        node = ros.node('ik_memory_client')
        client = node.create_client(GetPositionIK, 'compute_ik')
        ros.wait_for_service(client, timeout=60.0)
        # The compiled kernels load in the background once the node is up (numba: ~80 MiB);
        # the bound is about the requests, so they are measured after that.
        child.wait_for_line('compiled kernels in use', timeout=240.0)
        frame = model.model_frame

        def send(batch: list) -> list:
            futures = [client.call_async(r if isinstance(r, GetPositionIK.Request)
                                         else _request(r, poses, frame)) for r in batch]
            ros.spin_until(lambda: all(f.done() for f in futures), timeout=120.0,
                           what=f'{len(batch)} compute_ik answers')
            return [f.result() for f in futures]

        for start in range(0, 500, IN_FLIGHT):  # warm-up: kernels, allocator, DDS buffers
            for response in send(requests[start:start + IN_FLIGHT]):
                assert response.error_code.val == 1, response.error_code.message
        before = _rss_mb(child.proc.pid)
        for start in range(0, REQUESTS, IN_FLIGHT):
            for response in send(requests[start:start + IN_FLIGHT]):
                assert response.error_code.val == 1, response.error_code.message
        after = _rss_mb(child.proc.pid)
        # The same request again (a target that needs solving): bitwise the same answer.
        moved = dict(poses)
        moved['tool0'] = poses['tool0'].copy()
        moved['tool0'][:3, 3] += (0.05, -0.05, -0.1)
        repeat = _request(('lift_link', 'tool0'), moved, frame, timeout_s=1.0)
        answers = [send([repeat])[0] for _ in range(3)]
    finally:
        code = child.stop()
    assert code == 0, child.lines[-20:]
    print(f'RSS {before:.1f} MB -> {after:.1f} MB after {REQUESTS} requests')
    assert after - before <= RSS_BUDGET_MB, f'grew {after - before:.1f} MB'
    assert answers[0].error_code.val == 1, answers[0].error_code.message
    for other in answers[1:]:
        assert list(other.solution.joint_state.position) == \
            list(answers[0].solution.joint_state.position)


def _moved(model: RobotModel, group) -> list[int]:
    """Links moved by the group's active joints (any link below one of them)."""
    active = set(group.active_joint_indices)
    out = []
    for link in range(len(model.link_names)):
        child = link
        while (j := int(model.link_parent_joint[child])) >= 0:
            if j in active:
                out.append(link)
                break
            child = int(model.joint_parent_link[j])
    return out
