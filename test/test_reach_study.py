"""Reach studies end to end: the closed-form split, a part with a hole, executors, resuming.

Oracles: the triangle inequality (no configuration of Panda puts its flange farther from the
shoulder than the sum of its link offsets, so every target beyond that is unreached), forward
kinematics of every reported solution (each reached goal is where FK puts the tip), the
collision checker on every solution, REACH's rule that a neighbour-seeding pass only replaces a
record by a better one (reach % never drops; ``reach/src/utils.cpp`` reachNeighborsDirect),
and the in-process run for the other executors (same seed, same answer).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
import itertools
import json
import os
from pathlib import Path
import sys
import threading

import numpy as np
import pytest
from reach_parts import plate_with_hole
import robot_corpus

from robot_state_core.geometry.shapes import Mesh
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.reach.evaluators import (
    EvalContext,
    JointLimitPenalty,
    Manipulability,
    Multiplicative,
)
from robot_state_core.reach.executors import InProcess, LocalProcesses, RayCluster
from robot_state_core.reach.results import heat_map_colors, ReachDatabase
from robot_state_core.reach.study import (
    ReachParameters,
    ReachProblem,
    run_study,
)
from robot_state_core.reach.targets import frame_from_normal, targets_from_mesh
from robot_state_core.scene.planning_scene import CollisionObjectOperation, PlanningScene
from robot_state_core.state.robot_state import RobotState

#: Panda's shoulder (joint 2 axis, on the base z axis) and an upper bound of its reach to
#: panda_link8: the sum of the link offsets of its URDF (0.316 + 0.0825 + 0.384 + 0.0825 + 0.088
#: + 0.107 m), by the triangle inequality.
SHOULDER = np.array([0.0, 0.0, 0.333])
MAX_REACH = 0.316 + 0.0825 + 0.384 + 0.0825 + 0.088 + 0.107


@pytest.fixture(scope='module')
def panda() -> robot_corpus.TestRobot:
    return robot_corpus.test_robot('panda')


#: The tool: Panda's TCP between the fingers; the hand and fingers may touch the part.
TIP = 'panda_hand_tcp'
TOUCH = ('panda_hand', 'panda_leftfinger', 'panda_rightfinger')


def _problem(panda: robot_corpus.TestRobot, part: Path | None = None,
             X_WP: np.ndarray | None = None, **parameters: object) -> ReachProblem:
    return ReachProblem(str(panda.urdf_path), str(panda.srdf_path), 'arm',
                        Multiplicative((Manipulability(), JointLimitPenalty())), tip=TIP,
                        part=str(part) if part is not None else None,
                        part_pose=tuple((np.eye(4) if X_WP is None else X_WP).ravel().tolist()),
                        touch_links=TOUCH if part is not None else (),
                        package_map=tuple((k, str(v)) for k, v in panda.package_map.items()),
                        parameters=ReachParameters(**parameters))  # type: ignore[arg-type]


def _sphere_targets(radius: float, count: int) -> np.ndarray:
    """Targets on the upper half of a sphere around the shoulder, normals pointing out."""
    k = np.arange(count) + 0.5
    z = k / count  # upper hemisphere, equal-area bands
    phi = np.pi * (3.0 - np.sqrt(5.0)) * k
    n = np.column_stack([np.sqrt(1 - z ** 2) * np.cos(phi), np.sqrt(1 - z ** 2) * np.sin(phi), z])
    # REACH flips each target about x: the tool points into the sphere, at the shoulder
    return frame_from_normal(SHOULDER + radius * n, n)


def _check_solutions(panda: robot_corpus.TestRobot, db: ReachDatabase,
                     part: Path | None = None, X_WP: np.ndarray | None = None) -> None:
    """Every reached record: FK of its solution is its goal, and it is collision-free."""
    model = RobotModel.from_urdf_file(panda.urdf_path, panda.srdf_path,
                                      package_map=panda.package_map)
    scene = PlanningScene(model)
    if part is not None:
        scene.apply_world_object(CollisionObjectOperation.ADD, 'part', X_WP,
                                 [(Mesh(str(part), path=str(part)), np.eye(4))])
        for link in TOUCH:
            scene.acm.set_entry('part', link, True)
    state = RobotState(model)
    cols = [model.variable_index(n) for n in db.variable_names]
    final = db.final
    for i in np.flatnonzero(final.reached):
        q = np.asarray(state.positions).copy()
        q[cols] = final.q[i]
        state.set_variable_positions(q)
        X = state.get_global_link_transform(db.tip)
        np.testing.assert_allclose(X[:3, 3], db.X_WT[i, :3, 3], atol=1e-4)
        np.testing.assert_allclose(X[:3, :3], db.X_WT[i, :3, :3], atol=1e-3)
        assert not scene.is_state_colliding(state, 'arm'), i
        ctx = EvalContext(model, scene, 'arm', db.tip)  # the study's score of the solution
        assert final.score[i] == pytest.approx(
            Multiplicative((Manipulability(), JointLimitPenalty())).score(ctx, q), rel=1e-9)


def test_targets_beyond_the_arms_reach_are_never_reached_and_inside_mostly(
        panda: robot_corpus.TestRobot) -> None:
    inner, outer = _sphere_targets(0.45, 40), _sphere_targets(MAX_REACH + 0.1, 40)
    db = run_study(_problem(panda, max_steps=2, radius=0.15), np.concatenate([inner, outer]),
                   InProcess())
    reached = db.final.reached
    assert not reached[40:].any()  # closed form: out of reach
    assert reached[:40].mean() >= 0.9, reached[:40].mean()
    assert db.final.summary().reach_percentage == pytest.approx(100 * reached[:40].sum() / 80)
    _check_solutions(panda, db)


def test_a_part_with_a_hole_end_to_end(panda: robot_corpus.TestRobot, tmp_path: Path) -> None:
    X_WP = np.eye(4)
    X_WP[:3, 3] = (0.45, 0.0, 0.25)
    part = tmp_path / 'plate.stl'
    plate_with_hole().export(part)
    targets = targets_from_mesh(str(part), 150, seed=1, X_WP=X_WP)
    saved: list[int] = []
    db = run_study(_problem(panda, part, X_WP, radius=0.06, max_steps=4), targets.X_WT,
                   InProcess(), save=lambda d: saved.append(len(d.results)))
    summaries = [r.summary() for r in db.results]
    assert 20.0 < summaries[-1].reach_percentage < 100.0, summaries[-1]
    # neighbour seeding: reach % never lower, the normalised score never lower
    for before, after in itertools.pairwise(summaries):
        assert after.reach_percentage >= before.reach_percentage
        assert after.norm_total_pose_score >= before.norm_total_pose_score - 1e-12
    assert db.optimized and saved
    # the heat map: a colour per target, black where not reached
    colors = heat_map_colors(db.final)
    assert colors.shape == (150, 3) and not colors[~db.final.reached].any()
    _check_solutions(panda, db, part, X_WP)


def test_local_workers_give_the_in_process_answer(panda: robot_corpus.TestRobot,
                                                   tmp_path: Path) -> None:
    targets = _sphere_targets(0.5, 48)
    problem = _problem(panda, max_steps=1, radius=0.2, batch_size=8)
    here = run_study(problem, targets, InProcess())
    with LocalProcesses(2) as workers:
        there = run_study(problem, targets, workers)
        again = run_study(problem, targets, workers)  # the same worker processes, kept
    _same(there, again)
    for a, b in zip(here.results, there.results, strict=True):
        np.testing.assert_array_equal(a.reached, b.reached)
        np.testing.assert_array_equal(a.q, b.q)
        np.testing.assert_array_equal(a.score, b.score)


def test_a_stopped_study_resumes_from_its_file(panda: robot_corpus.TestRobot,
                                               tmp_path: Path) -> None:
    targets = _sphere_targets(0.5, 40)
    problem = _problem(panda, max_steps=1, radius=0.2, batch_size=8)
    path = tmp_path / 'study.reach.npz'
    whole = run_study(problem, targets, InProcess())

    def stop_after_two_batches(phase: str, done: int, total: int) -> None:
        if done >= 16:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_study(problem, targets, InProcess(), progress=stop_after_two_batches,
                  save=lambda d: d.save(path))
    partial = ReachDatabase.load(path)
    assert not partial.complete and partial.results[0].done.sum() == 16
    resumed = run_study(problem, targets, InProcess(), database=partial,
                        save=lambda d: d.save(path))
    assert resumed.optimized and ReachDatabase.load(path).optimized
    for a, b in zip(whole.results, resumed.results, strict=True):
        np.testing.assert_array_equal(a.reached, b.reached)
        np.testing.assert_array_equal(a.q, b.q)


@dataclass(frozen=True)
class _DiesOnce:
    """Scores like ``inner``, but the first worker process to score ends itself (os._exit).

    ``marker`` is a file created by the dying worker, so exactly one worker dies.
    """

    marker: str
    inner: Multiplicative

    def score(self, ctx: EvalContext, q: object) -> float:
        if not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)
        return self.inner.score(ctx, q)  # type: ignore[arg-type]


def _dying(problem: ReachProblem, marker: Path) -> ReachProblem:
    return replace(problem, evaluator=_DiesOnce(str(marker), problem.evaluator))  # type: ignore[arg-type]


def _same(a: ReachDatabase, b: ReachDatabase) -> None:
    assert len(a.results) == len(b.results)
    for x, y in zip(a.results, b.results, strict=True):
        np.testing.assert_array_equal(x.reached, y.reached)
        np.testing.assert_array_equal(x.q, y.q)
        np.testing.assert_array_equal(x.score, y.score)


def test_a_dying_local_worker_loses_nothing(panda: robot_corpus.TestRobot,
                                            tmp_path: Path) -> None:
    targets = _sphere_targets(0.5, 32)
    problem = _problem(panda, max_steps=1, radius=0.2, batch_size=8)
    here = run_study(problem, targets, InProcess())
    with LocalProcesses(2) as workers:
        there = run_study(_dying(problem, tmp_path / 'died'), targets, workers)
    assert (tmp_path / 'died').exists() and workers.restarts >= 1
    _same(here, there)


@pytest.fixture(scope='module')
def ray_cluster() -> Iterator[RayCluster]:
    import ray
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers lack test/ on sys.path
    cluster = RayCluster(num_cpus=2)
    try:
        yield cluster
    finally:
        cluster.shutdown()
        assert not ray.is_initialized()


def test_a_local_ray_cluster_gives_the_in_process_answer_and_survives_a_dead_worker(
        panda: robot_corpus.TestRobot, ray_cluster: RayCluster, tmp_path: Path) -> None:
    targets = _sphere_targets(0.5, 32)
    problem = _problem(panda, max_steps=1, radius=0.2, batch_size=8)
    here = run_study(problem, targets, InProcess())
    _same(here, run_study(problem, targets, ray_cluster))
    _same(here, run_study(_dying(problem, tmp_path / 'died'), targets, ray_cluster))
    assert (tmp_path / 'died').exists()  # a Ray worker did die; its task was retried


def test_the_command_line_runs_resumes_and_compares(panda: robot_corpus.TestRobot,
                                                    tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from robot_state_core.apps.cli import main as cli_main

    plate_with_hole().export(tmp_path / 'plate.stl')
    share = Path(panda.package_map['example-robot-data']).parent
    study = tmp_path / 'study.yaml'
    study.write_text(f'''
robot:
  urdf: {panda.urdf_path}
  srdf: {panda.srdf_path}
  package_roots: [{share}]
group: arm
tip: {TIP}
part: plate.stl
touch_links: [{', '.join(TOUCH)}]
targets: {{mesh: plate.stl, count: 40, seed: 2, part_pose: [0.45, 0, 0.25, 0, 0, 0]}}
evaluator:
  - manipulability: {{kind: yoshikawa}}
  - joint_limit_penalty: {{}}
optimization: {{radius: 0.06, max_steps: 2}}
''')
    assert cli_main(['reach', str(study)]) == 0
    out, err = capsys.readouterr()
    assert 'initial' in out and 'reach' in out and '40 targets' in err and 'ETA' not in out
    db = ReachDatabase.load(tmp_path / 'study.reach.npz')
    assert db.optimized and db.study['part'].endswith('plate.stl')
    assert cli_main(['reach', str(study)]) == 0  # finished: read back, nothing solved again
    assert 'resuming' in capsys.readouterr().err
    other = tmp_path / 'other.reach.npz'
    assert cli_main(['reach', str(study), '--output', str(other), '--workers', '2']) == 0
    capsys.readouterr()
    assert cli_main(['reach-compare', str(tmp_path / 'study.reach.npz'), str(other)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report['reached_only_in_a'] == report['reached_only_in_b'] == 0  # same answer
    study.write_text(study.read_text().replace('count: 40', 'count: forty'))
    assert cli_main(['reach', str(study), '--restart']) == 2
    assert 'targets.count' in capsys.readouterr().err


@pytest.mark.ros
def test_the_reach_node_uses_the_live_scene_and_publishes_the_heat_map(
        panda: robot_corpus.TestRobot, ros: object, tmp_path: Path) -> None:
    # The live scene is robot_state_server's (MoveIt's get_planning_scene); a box put there
    # over the +x side of the target sphere blocks those targets: black in the heat map.
    from rclpy.executors import MultiThreadedExecutor
    import ros_testing
    from visualization_msgs.msg import Marker, MarkerArray

    from robot_state_core.geometry.shapes import Box
    from robot_state_core.reach.config import StudyFile
    from robot_state_core.reach.targets import ReachTargets
    from robot_state_core.ros import qos
    from robot_state_core.ros.reach_node import ReachNode
    from robot_state_core.ros.state_server_node import StateServerNode

    assert isinstance(ros, ros_testing.RosTestContext)
    model = RobotModel.from_urdf_file(panda.urdf_path, panda.srdf_path,
                                      package_map=panda.package_map)
    server = StateServerNode(model=model, context=ros.context)
    X_box = np.eye(4)
    X_box[:3, 3] = (0.55, 0.0, 0.6)
    server.scene.apply_world_object(CollisionObjectOperation.ADD, 'wall', X_box,
                                    [(Box(0.2, 1.5, 1.0), np.eye(4))])
    X = _sphere_targets(0.5, 40)
    study = StudyFile(_problem(panda, max_steps=0),
                      ReachTargets(X, X[:, :3, 3], X[:, :3, 2], 'sphere'), tmp_path / 's.yaml')
    node = ReachNode(study, InProcess(), context=ros.context)
    spinner = MultiThreadedExecutor(num_threads=2, context=ros.context)
    spinner.add_node(server)
    spinner.add_node(node)
    thread = threading.Thread(target=spinner.spin, daemon=True)
    thread.start()
    received: list[MarkerArray] = []
    listener = ros.node('rviz')
    listener.create_subscription(MarkerArray, 'reach/markers', received.append, qos.LATCHED)
    try:
        db = node.run()
        ros.spin_until(lambda: bool(received), what='the heat map on reach/markers')
        blocked = X[:, 0, 3] > 0.4  # targets inside the wall's x range (0.45 .. 0.65)
        assert blocked.any() and not db.final.reached[blocked].any()
        assert db.final.reached[~blocked].mean() > 0.8
        spheres = next(m for m in received[-1].markers if m.type == Marker.SPHERE_LIST)
        assert len(spheres.points) == 40 and spheres.header.frame_id == 'panda_link0'
        black = [c.r == c.g == c.b == 0.0 for c in spheres.colors]
        assert black == (~db.final.reached).tolist()
    finally:
        spinner.shutdown(timeout_sec=2.0)
        node.destroy_node()
        server.destroy_node()


def test_neighbours_are_the_points_strictly_within_the_radius() -> None:
    # REACH getNeighbors: squared distance below radius², the point itself left out.
    from robot_state_core.reach.study import neighbours

    rng = np.random.default_rng(4)
    p = rng.uniform(-0.3, 0.3, (1500, 3)) + np.array([2.0, -1.0, 0.5])
    near = neighbours(p, 0.05, chunk=97)
    for i in range(0, 1500, 37):
        d = np.sqrt(((p - p[i]) ** 2).sum(axis=1))
        expected = np.flatnonzero((d < 0.05) & (np.arange(1500) != i))
        np.testing.assert_array_equal(near[i], expected)
