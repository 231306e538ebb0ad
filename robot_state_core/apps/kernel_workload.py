"""Compile every kernel into the on-disk cache and record its signatures.

``python -m robot_state_core.apps.kernel_workload SIGNATURE_FILE`` is the child process of
:class:`robot_state_core.jit.background.KernelPreparation`; ``robot-state-core warm-kernels``
runs :func:`run` in the foreground (after an install, to make the first start of every node
compiled from its first request). The workload runs, on the embedded robot (planar base,
prismatic lift, revolute arm, mimic fingers, meshes), what the nodes and the library run: FK
(single, batched, structure-of-arrays, /tf's local frames), Jacobians, IK (the compiled 1-DOF
path, the numpy path of a planar base, batches, a Cartesian path), and collision and distance
queries with world objects and an attached body. Kernel signatures depend on argument types
only, not on the robot, so one robot compiles them for every robot.
"""

from __future__ import annotations

from pathlib import Path
import sys
import time

import numpy as np

from robot_state_core.geometry import compiled as broad_phase
from robot_state_core.geometry.shapes import Box, Sphere
from robot_state_core.ik import compiled as ik_kernels
from robot_state_core.ik.cartesian import compute_cartesian_path
from robot_state_core.ik.solver import prepare_ik, solve_ik_batch
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.jit.background import signature_file, write_signatures
from robot_state_core.kinematics import compiled as fk_kernels
from robot_state_core.kinematics import (
    compose_link_poses,
    forward_kinematics,
    forward_kinematics_and_jacobian,
    forward_kinematics_soa,
    jacobian,
    local_joint_frames,
    local_joint_transforms,
    point_jacobian_columns,
)
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import (
    CollisionObjectOperation,
    CollisionRequest,
    DistanceRequest,
    DistanceRequestType,
    PlanningScene,
)
from robot_state_core.spatial import compiled as spatial_kernels
from robot_state_core.state.robot_state import RobotState

__all__ = ['exercise', 'main', 'run']

ARM = 'arm'
TIP = 'tool0'


def exercise(model: RobotModel) -> None:
    """Run every kernel the nodes and the library use, on ``model`` (compiles them)."""
    rng = np.random.default_rng(0)
    state = RobotState(model)
    state.set_to_default_values(ARM, 'ready')
    q = state.positions.copy()
    batch = np.stack([q, q])
    forward_kinematics(model, q)
    forward_kinematics(model, batch)
    forward_kinematics_soa(model, batch)
    compose_link_poses(model, local_joint_transforms(model, q))
    point_jacobian_columns(np.eye(3), rng.normal(size=(3, 3)), prismatic=np.array([0]))
    local_joint_frames(model, q.copy(), np.arange(model.joint_count))
    jacobian(model, q, TIP)
    jacobian(model, batch, TIP)
    forward_kinematics_and_jacobian(model, q, TIP)
    state.get_global_link_transform(TIP)
    state.get_jacobian(ARM)
    for name in model.group_names:
        group = model.group(name)
        if group.tip_link and group.active_joint_names:
            prepare_ik(model, name)
            target = state.get_global_link_transform(group.tip_link)
            RobotState(model).set_from_ik(name, target, timeout=0.05)
    X_WT = state.get_global_link_transform(TIP)
    solve_ik_batch(model, ARM, np.stack([X_WT, X_WT]), timeout_per_target=0.05)
    X_next = X_WT.copy()
    X_next[:3, 3] += (0.0, 0.02, 0.0)
    compute_cartesian_path(model, q, ARM, [X_next], link=TIP, max_step=0.01)
    scene = PlanningScene(model)
    X_box = np.eye(4)
    X_box[:3, 3] = X_WT[:3, 3] + rng.uniform(-0.05, 0.05, 3)
    scene.apply_world_object(CollisionObjectOperation.ADD, 'box', X_box,
                             [(Box(0.1, 0.1, 0.1), np.eye(4))])
    scene.attach_object(TIP, 'grasped', shapes=[(Sphere(0.02), np.eye(4))])
    current = scene.current_state  # holds the attached body
    current.set_variable_positions(q)
    for request in (CollisionRequest(), CollisionRequest(contacts=True, max_contacts=10,
                                                         distance=True),
                    CollisionRequest(group_name=ARM)):
        scene.check_collision(current, request)
    scene.check_self_collision(current)
    scene.distance_robot(current)
    scene.distance_self(current)
    scene.distance_robot(current, DistanceRequest(DistanceRequestType.SINGLE))

def run(path: str | None = None) -> tuple[float, int]:
    """Run :func:`exercise` on the embedded robot and record the signatures.

    Returns:
        Seconds taken and the number of kernel signatures recorded.
    """
    start = time.monotonic()
    exercise(RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path()))
    recorded = write_signatures((spatial_kernels, fk_kernels, ik_kernels, broad_phase),
                                signature_file() if path is None else Path(path))
    return time.monotonic() - start, sum(len(s) for m in recorded.values() for s in m.values())


def main(argv: list[str] | None = None) -> int:
    """Entry of ``python -m robot_state_core.apps.kernel_workload [SIGNATURE_FILE]``."""
    args = sys.argv[1:] if argv is None else argv
    seconds, count = run(args[0] if args else None)
    print(f'{count} kernel signatures compiled or loaded in {seconds:.1f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
