"""Server-side tests of the browser viewer (no browser).

Scene contents, sliders, named states, IK gizmos, collisions, world boxes, bad input; what a
person sees is in test_viewer_browser.py.

Oracles: the URDF/SRDF text read here with lxml (colours, named-state values), trimesh reading the
STL directly (mesh sizes), forward kinematics of the resulting state for every IK answer, and
boxes placed on a link's collision geometry by construction (collision) or far away (none).
"""

from __future__ import annotations

from collections.abc import Iterator
import json
import math
from pathlib import Path
import time
from typing import Any

from lxml import etree
import numpy as np
import pytest
import trimesh

from robot_state_core.apps.cli import main as cli_main
from robot_state_core.errors import InvalidArgumentError, UnknownNameError
from robot_state_core.geometry.shapes import Box, Capsule, Cone, Cylinder, HalfSpace, Sphere
from robot_state_core.io.default_robot import (
    default_robot_srdf_path,
    default_robot_urdf_path,
    package_root,
)
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import PlanningScene
from robot_state_core.state.robot_state import RobotState
from robot_state_core.viewer.app import COLLIDING_RGB, RobotViewer
from robot_state_core.viewer.controls import slider_specs, UNBOUNDED_TRANSLATION
from robot_state_core.viewer.scene_meshes import element_meshes, shape_triangles

URDF = default_robot_urdf_path()
SRDF = default_robot_srdf_path()


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(URDF, SRDF)


@pytest.fixture(scope='module')
def viewer(model: RobotModel) -> Iterator[RobotViewer]:
    v = RobotViewer(model, port=0)
    try:
        yield v
    finally:
        v.stop()


@pytest.fixture(autouse=True)
def _home(request: pytest.FixtureRequest) -> None:
    if 'viewer' in request.fixturenames:
        v: RobotViewer = request.getfixturevalue('viewer')
        v.clear_world()
        v.set_named_state('arm/home')


def _urdf_material_colors() -> dict[str, tuple[float, ...]]:
    """``{link: rgba of its first visual}`` read from the URDF text (independent of the loader)."""
    root = etree.parse(str(URDF)).getroot()
    named = {m.get('name'): tuple(float(v) for v in m.find('color').get('rgba').split())
             for m in root.findall('material') if m.find('color') is not None}
    out = {}
    for link in root.findall('link'):
        visual = link.find('visual')
        if visual is not None and visual.find('material') is not None:
            out[link.get('name')] = named[visual.find('material').get('name')]
    return out


def test_visuals_have_urdf_colours_and_meshes_match_the_files(model: RobotModel) -> None:
    visuals, warnings = element_meshes(model, 'visual')
    assert warnings == []
    assert len(visuals) == sum(len(link.visuals) for link in model.links)
    first = {}
    for e in visuals:
        first.setdefault(e.link, e)
    colours = _urdf_material_colors()
    assert colours
    for link, rgba in colours.items():
        assert first[link].rgba == pytest.approx(rgba), link
    # The camera housing is an STL in mm (scale 0.001): same box as trimesh reading the file.
    housing = next(e for e in visuals if e.vertices.shape[0] > 8 and e.link == 'camera_link')
    raw = trimesh.load_mesh(package_root() / 'robots/rsc_mobile_manipulator/meshes/'
                            'camera_housing.stl')
    np.testing.assert_allclose(housing.vertices.max(axis=0) - housing.vertices.min(axis=0),
                               raw.extents * 0.001, rtol=1e-9)


@pytest.mark.parametrize(('shape', 'lo', 'hi'), [
    (Box(0.2, 0.4, 0.6), (-0.1, -0.2, -0.3), (0.1, 0.2, 0.3)),
    (Sphere(0.3), (-0.3, -0.3, -0.3), (0.3, 0.3, 0.3)),
    (Cylinder(0.1, 0.5), (-0.1, -0.1, -0.25), (0.1, 0.1, 0.25)),
    (Capsule(0.1, 0.5), (-0.1, -0.1, -0.35), (0.1, 0.1, 0.35)),
    (Cone(0.2, 0.4), (-0.2, -0.2, -0.2), (0.2, 0.2, 0.2)),
    (HalfSpace(), (-2.0, -2.0, 0.0), (2.0, 2.0, 0.0)),
])
def test_primitive_triangles_follow_the_shape_conventions(shape: object, lo: tuple[float, ...],
                                                          hi: tuple[float, ...]) -> None:
    # Conventions of geometry/shapes.py (URDF/fcl): centred, full lengths along z.
    v, f = shape_triangles(shape)  # type: ignore[arg-type]
    assert f.ndim == 2 and f.shape[1] == 3 and f.max() < len(v)
    np.testing.assert_allclose(v.min(axis=0), lo, atol=2e-3)
    np.testing.assert_allclose(v.max(axis=0), hi, atol=2e-3)


def test_a_slider_per_active_variable_with_the_model_ranges(viewer: RobotViewer,
                                                            model: RobotModel) -> None:
    active = [n for n, a in zip(model.variable_names, model.active_variable_mask, strict=True)
              if a]
    assert list(viewer._sliders) == active
    assert 'right_finger_joint' not in viewer._sliders  # a mimic joint follows its source
    elbow = viewer._sliders['elbow_joint']
    j = model.variable_index('elbow_joint')
    assert (elbow.min, elbow.max) == (model.variable_lower[j], model.variable_upper[j])
    theta = viewer._sliders['base_joint/theta']  # planar angle: unbounded -> one turn
    assert (theta.min, theta.max) == pytest.approx((-math.pi, math.pi))


def test_floating_and_planar_joints_get_sliders_and_quaternions_stay_unit() -> None:
    urdf = '''<robot name="f"><link name="world"/><link name="a"/><link name="b"/>
      <joint name="float" type="floating"><parent link="world"/><child link="a"/></joint>
      <joint name="plane" type="planar"><parent link="a"/><child link="b"/>
        <axis xyz="0 0 1"/></joint></robot>'''
    model = RobotModel.from_urdf_string(urdf)
    with RobotViewer(model, port=0) as v:
        assert len(v._sliders) == 7 + 3
        v.set_positions({'float/rot_w': 0.5, 'float/rot_x': 0.5})
        q = [v.positions[f'float/rot_{c}'] for c in 'xyzw']
        assert np.linalg.norm(q) == pytest.approx(1.0)
        with pytest.raises(InvalidArgumentError):
            v.set_positions({'float/rot_w': 0.0, 'float/rot_x': 0.0})


def test_named_states_match_the_srdf_and_unknown_names_suggest(viewer: RobotViewer) -> None:
    root = etree.parse(str(SRDF)).getroot()
    state = next(s for s in root.findall('group_state') if s.get('name') == 'home')
    expected = {j.get('name'): float(j.get('value')) for j in state.findall('joint')}
    viewer.set_positions(dict.fromkeys(expected, 0.3))
    viewer.set_named_state('home')
    for name, value in expected.items():
        assert viewer.positions[name] == pytest.approx(value)
    assert 'arm/home' in viewer._gui['states'].options
    with pytest.raises(UnknownNameError, match="did you mean 'home'"):
        viewer.set_named_state('hme')


def test_link_nodes_sit_at_the_forward_kinematics_poses(viewer: RobotViewer) -> None:
    # The page nests link frames like the tree; composing them must give the FK world poses.
    viewer.set_positions({'base_joint/x': 0.3, 'base_joint/theta': 0.7, 'lift_joint': 0.2,
                          'shoulder_pan_joint': -0.8, 'elbow_joint': 1.1})
    X_WL = viewer.state.get_link_poses()
    model = viewer.model
    for li, link in enumerate(model.link_names):
        X = np.eye(4)
        k = li
        while k >= 0:
            node = viewer._link_nodes[model.link_names[k]]
            X_local = np.eye(4)
            w, x, y, z = node.wxyz
            X_local[:3, :3] = trimesh.transformations.quaternion_matrix([w, x, y, z])[:3, :3]
            X_local[:3, 3] = node.position
            X = X_local @ X
            k = int(viewer._link_parent[k])
        np.testing.assert_allclose(X, X_WL[li], atol=1e-9, err_msg=link)


def test_dragging_the_gizmo_solves_ik(viewer: RobotViewer) -> None:
    # A reachable target: the tip pose of another configuration (FK checks the answer).
    other = viewer.state
    other.set_variable_positions({'shoulder_pan_joint': 0.4, 'shoulder_lift_joint': 0.3,
                                  'elbow_joint': 1.2, 'wrist_pitch_joint': 0.5})
    target = other.get_global_link_transform('tool0').copy()
    feedback = viewer.drag_gizmo('arm', target)
    assert feedback.success and 'solved' in feedback.message
    tip = viewer.state.get_global_link_transform('tool0')
    np.testing.assert_allclose(tip[:3, 3], target[:3, 3], atol=1e-4)
    np.testing.assert_allclose(tip[:3, :3], target[:3, :3], atol=1e-3)
    assert feedback.position_error < 1e-4
    assert 'solved' in viewer._gui['ik'].content
    np.testing.assert_allclose(viewer._gizmo.position, target[:3, 3], atol=1e-9)

    before = viewer.positions
    far = target.copy()
    far[:3, 3] += [5.0, 0.0, 0.0]
    feedback = viewer.drag_gizmo('arm', far)
    assert not feedback.success and 'no solution' in feedback.message
    assert 'out of reach' in feedback.message and 'returns to the tip' in feedback.message
    assert feedback.position_error > 4.0
    assert viewer.positions == before  # MoveIt: a failed solve leaves the state unchanged
    # RViz's interactive marker: after a failed solve the gizmo is back at the tip
    np.testing.assert_allclose(viewer._gizmo.position, tip[:3, 3], atol=1e-9)
    assert feedback.message in viewer._gui['ik'].content
    with pytest.raises(UnknownNameError):
        viewer.drag_gizmo('gripper', target)  # no tip link
    with pytest.raises(UnknownNameError):
        viewer.drag_gizmo('lift', target)  # a tip that moves along one line: no gizmo


def _box_on_link(viewer: RobotViewer, link: str) -> np.ndarray:
    """Pose of a box centred on ``link``'s first collision geometry (in collision by design)."""
    index = viewer.planning_scene.geometry.geometry_indices(link)[0]
    X_WG = viewer.planning_scene.geometry.world_poses(viewer.state.get_link_poses())[index]
    X = np.eye(4)
    X[:3, 3] = X_WG[:3, 3]
    return X


def test_a_box_on_a_link_turns_it_red_and_shows_contacts(viewer: RobotViewer) -> None:
    status = viewer.refresh()
    assert not status.collision and status.min_distance > 0
    original = viewer.link_colors('lift_link')
    status = viewer.add_box('probe', (0.05, 0.05, 0.05), _box_on_link(viewer, 'lift_link'))
    assert status.collision and 'lift_link' in status.colliding_links
    assert all(c.body_name_2 == 'probe' for c in status.contacts)
    assert status.min_distance < 0
    assert viewer.link_colors('lift_link') == [COLLIDING_RGB] * len(original)
    assert viewer._contact_points is not None and viewer._contact_normals is not None
    assert 'YES' in viewer._gui['status'].content
    far = np.eye(4)
    far[:3, 3] = [5.0, 5.0, 5.0]
    status = viewer.move_world_object('probe', far)
    assert not status.collision
    assert viewer.link_colors('lift_link') == original
    assert viewer._contact_points is None


def test_follow_mode_draws_the_newest_positions(viewer: RobotViewer) -> None:
    viewer.set_following(True)
    try:
        assert all(s.disabled for s in viewer._sliders.values())
        frames = viewer.frames_sent
        for k in range(20):
            viewer.follow(['elbow_joint', 'unknown_joint'], [0.05 * k, 1.0])
        deadline = 10.0
        start = time.monotonic()
        while viewer.positions['elbow_joint'] != pytest.approx(0.95) and \
                time.monotonic() - start < deadline:
            time.sleep(0.01)
        assert viewer.positions['elbow_joint'] == pytest.approx(0.95)
        assert viewer.frames_sent > frames
        viewer.follow(['elbow_joint'], [math.nan])  # ignored, never drawn
        time.sleep(0.1)
        assert viewer.positions['elbow_joint'] == pytest.approx(0.95)
    finally:
        viewer.set_following(False)


def test_an_unreadable_mesh_is_drawn_as_a_box_with_a_warning(tmp_path: Path) -> None:
    bad = tmp_path / 'broken.stl'
    bad.write_bytes(b'solid nothing\nthis is not an stl\n')
    urdf = f'''<robot name="r"><link name="base">
      <visual><geometry><mesh filename="file://{bad}"/></geometry></visual>
      <collision><geometry><box size="0.2 0.1 0.4"/></geometry></collision></link></robot>'''
    model = RobotModel.from_urdf_string(urdf)
    with RobotViewer(model, port=0) as v:
        assert len(v.warnings) == 1 and 'broken.stl' in v.warnings[0] and "'base'" in \
            v.warnings[0]
        visuals, _ = element_meshes(model, 'visual')
        assert visuals[0].placeholder
        # the placeholder is the bounding box of the link's collision box
        np.testing.assert_allclose(visuals[0].vertices.max(axis=0)
                                   - visuals[0].vertices.min(axis=0), (0.2, 0.1, 0.4))


def test_cli_unknown_state_exits_2_with_did_you_mean(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    out = tmp_path / 'x.png'
    code = cli_main(['snapshot', '--state', 'hoem', '--output', str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "did you mean 'home'" in err and not out.exists()
    code = cli_main(['view', '--positions', json.dumps({'elbw_joint': 1.0}), '--duration', '0'])
    assert code == 2 and "did you mean 'elbow_joint'" in capsys.readouterr().err


@pytest.mark.ros
def test_ros_mode_draws_collision_objects(viewer: RobotViewer, ros: object) -> None:
    # MoveIt's collision_object topic: ADD a box on a link (frame = that link), then REMOVE it.
    from moveit_msgs.msg import CollisionObject
    from shape_msgs.msg import SolidPrimitive

    from robot_state_core.ros.moveit_conversions import matrix_to_pose
    from robot_state_core.ros.viewer_node import ViewerNode

    node = ros.add(ViewerNode(viewer, context=ros.context))  # type: ignore[attr-defined]
    try:
        source = ros.node('collision_objects')  # type: ignore[attr-defined]
        pub = source.create_publisher(CollisionObject, 'collision_object', 100)
        ros.wait_for_subscribers(pub)  # type: ignore[attr-defined]
        msg = CollisionObject(id='crate', operation=CollisionObject.ADD)
        msg.header.frame_id = 'upper_arm_link'
        index = viewer.planning_scene.geometry.geometry_indices('upper_arm_link')[0]
        msg.pose = matrix_to_pose(viewer.planning_scene.geometry.X_LG[index])
        msg.primitives = [SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[0.04] * 3)]
        msg.primitive_poses = [matrix_to_pose(np.eye(4))]
        pub.publish(msg)
        ros.spin_until(lambda: 'crate' in viewer.planning_scene.world,  # type: ignore[attr-defined]
                       what='the collision object in the viewer')
        assert viewer.collision_status.colliding_links == ('upper_arm_link',)
        assert viewer.link_colors('upper_arm_link')[0] == COLLIDING_RGB
        pub.publish(CollisionObject(id='crate', operation=CollisionObject.REMOVE))
        ros.spin_until(lambda: 'crate' not in viewer.planning_scene.world,  # type: ignore[attr-defined]
                       what='the removal')
        assert not viewer.collision_status.collision
        assert node.collision_objects_received == 2
    finally:
        viewer.set_following(False)


def test_the_page_opens_at_the_first_named_state_and_offers_only_real_ik_chains() -> None:
    # Talos (example-robot-data): all-zero positions clipped to the limits put the legs into
    # each other; its SRDF's first state, all/half_sitting, is collision-free.
    import robot_corpus

    r = robot_corpus.test_robot('talos')
    talos = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)
    zero = RobotViewer(talos, port=0, controls=False, initial_state='all/half_sitting')
    try:
        values = talos.group('all').named_states['half_sitting']
        assert all(zero.positions[k] == pytest.approx(v) for k, v in values.items())
    finally:
        zero.stop()
    with RobotViewer(talos, port=0) as viewer:
        assert viewer.named_state == 'all/half_sitting'
        assert not viewer.collision_status.collision
        # two-joint head and torso: their tips cannot be placed in 3D, so no gizmo
        assert viewer.ik_groups == ('l_arm', 'l_arm_torso', 'l_leg', 'r_arm', 'r_arm_torso',
                                    'r_leg')
        before = viewer._gizmo.position.copy()
        viewer.set_ik_group('r_arm')
        tip = viewer.state.get_global_link_transform('wrist_right_ft_tool_link')
        np.testing.assert_allclose(viewer._gizmo.position, tip[:3, 3], atol=1e-9)
        assert not np.allclose(before, tip[:3, 3])
        assert viewer._gui['ik_group'].value == 'r_arm'
        with pytest.raises(UnknownNameError):
            viewer.set_ik_group('head')
    state = RobotState(talos)
    assert PlanningScene(talos).check_collision(state).collision  # what the page used to show


def test_page_changes_draw_at_once_and_their_collisions_follow(viewer: RobotViewer) -> None:
    # A slider on the page: poses are sent before the collision evaluation, which a worker
    # thread does; settle() returns once it is drawn. The API methods evaluate before returning.
    version = viewer.collision_status.version
    spec = next(s for s in viewer._slider_specs if s.variable == 'elbow_joint')
    viewer._apply_positions({'elbow_joint': 0.4}, spec, wait=False)
    assert viewer.positions['elbow_joint'] == 0.4
    status = viewer.settle()
    assert status.version > version
    fresh = viewer.refresh()  # the worker drew what a synchronous evaluation gives
    assert (fresh.collision, fresh.colliding_links) == (status.collision, status.colliding_links)
    assert fresh.min_distance == pytest.approx(status.min_distance, abs=1e-12)
    assert viewer.named_state == '(current)'
    viewer.set_named_state('arm/ready')
    assert viewer.named_state == 'arm/ready' and viewer._gui['states'].value == 'arm/ready'


@pytest.mark.parametrize(('azimuth', 'elevation', 'aspect'), [(36.87, 21.8, 4 / 3),
                                                             (90.0, 0.0, 1.0),
                                                             (-120.0, 60.0, 16 / 9)])
def test_fit_view_puts_the_points_at_the_frame_edge_centred(azimuth: float, elevation: float,
                                                           aspect: float) -> None:
    # Oracle: a pinhole written here (look-at camera, level: right = forward x z).
    from robot_state_core.viewer.camera import direction_from_angles, fit_view

    rng = np.random.default_rng(3)
    points = rng.normal(size=(400, 3)) * [0.3, 0.5, 0.9] + [1.0, -2.0, 0.5]
    fov = math.radians(45.0)
    pose = fit_view(points, direction_from_angles(azimuth, elevation), fov_y=fov,
                    aspect=aspect, fill=0.9)
    forward = pose.look_at - pose.position
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    rel = points - pose.position
    depth = rel @ forward
    assert np.all(depth > 0)
    u = (rel @ right) / depth / (math.tan(fov / 2) * aspect)  # -1 .. 1 across the picture
    v = (rel @ up) / depth / math.tan(fov / 2)
    assert max(u.max() - u.min(), v.max() - v.min()) == pytest.approx(1.8, abs=1e-3)
    assert u.max() <= 0.9 + 1e-6 and v.max() <= 0.9 + 1e-6
    assert abs(u.max() + u.min()) < 2e-3 and abs(v.max() + v.min()) < 2e-3  # centred
    expected = direction_from_angles(azimuth, elevation)
    np.testing.assert_allclose(-forward, expected, atol=1e-9)


# ---------------------------------------------------------------------------- issue 29: reach

#: REACH's heat-map hue of the lowest score (``computeHeatMapColors``: 0.75 * 360 degrees)
REACH_LOW_HUE = 0.75


@pytest.fixture(scope='module')
def panda_reach(tmp_path_factory: pytest.TempPathFactory) -> tuple[RobotModel, Path, Path]:
    """Panda, a small study's results file (30 targets in reach, 8 beyond) and a part file."""
    from reach_parts import plate_with_hole
    import robot_corpus
    from test_reach_study import _problem, _sphere_targets, MAX_REACH

    from robot_state_core.reach.executors import InProcess
    from robot_state_core.reach.study import run_study

    panda = robot_corpus.test_robot('panda')
    model = RobotModel.from_urdf_file(panda.urdf_path, panda.srdf_path,
                                      package_map=panda.package_map)
    targets = np.concatenate([_sphere_targets(0.45, 30), _sphere_targets(MAX_REACH + 0.1, 8)])
    db = run_study(_problem(panda, max_steps=1, radius=0.2), targets, InProcess())
    folder = tmp_path_factory.mktemp('reach')
    results, part = folder / 'sphere.reach.npz', folder / 'plate.stl'
    db.save(results)
    plate_with_hole().export(part)
    return model, results, part


def _reach_hue_rgb(score: float, best: float, reached: bool) -> tuple[int, int, int]:
    """REACH's heat-map colour, from its definition (hue from blue at 0 to red at the best)."""
    import colorsys

    r, g, b = colorsys.hsv_to_rgb(REACH_LOW_HUE * (1.0 - score / best), 1.0, float(reached))
    return round(255 * r), round(255 * g), round(255 * b)


def _reach_node(viewer: RobotViewer, name: str) -> Any:
    return next(n for n in viewer._reach_nodes if n.name == f'/reach/{name}')


def test_show_reach_draws_every_target_in_the_heat_map_colours(
        panda_reach: tuple[RobotModel, Path, Path]) -> None:
    from dataclasses import replace

    from robot_state_core.reach.results import heat_map_colors, ReachDatabase
    from robot_state_core.viewer.camera import DEFAULT_AZIMUTH_DEG, DEFAULT_ELEVATION_DEG

    model, results, part = panda_reach
    X_WP = np.eye(4)
    X_WP[:3, 3] = (0.45, 0.1, 0.25)
    X_WP[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    db = ReachDatabase.load(results)
    db = replace(db, study={**db.study, 'part_pose': X_WP.ravel().tolist()})
    final = db.final
    assert 0 < final.reached.sum() < len(final.reached)  # some of each colour kind
    with RobotViewer(model, port=0) as v:
        summary = v.show_reach(db, part_mesh=str(part))
        assert summary.reach_percentage == pytest.approx(100.0 * final.reached.mean())
        markers = _reach_node(v, 'targets')
        np.testing.assert_allclose(markers.batched_positions, db.X_WT[:, :3, 3], atol=1e-6)
        colors = np.asarray(markers.batched_colors, dtype=int)
        np.testing.assert_array_equal(colors, np.round(255 * heat_map_colors(final)))
        best = float(final.score.max())
        expected = [_reach_hue_rgb(s, best, r) for s, r in zip(final.score, final.reached,
                                                                strict=True)]
        np.testing.assert_allclose(colors, expected, atol=1)
        assert tuple(colors[np.argmax(final.score)]) == (255, 0, 0)
        assert not colors[~final.reached].any()  # not reached: black
        # the part: the file's triangles (trimesh reads them) at the study's part pose
        mesh = trimesh.load(part, force='mesh')
        node = _reach_node(v, 'part')
        np.testing.assert_allclose(node.vertices, mesh.vertices, atol=1e-6)
        np.testing.assert_allclose(node.position, X_WP[:3, 3])
        R = np.asarray(trimesh.transformations.quaternion_matrix(node.wxyz))[:3, :3]
        np.testing.assert_allclose(R, X_WP[:3, :3], atol=1e-9)
        # the camera framing takes in every target (a pinhole written here, 45°, 4:3)
        pose = v.frame_camera()
        forward = pose.look_at - pose.position
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        rel = db.X_WT[:, :3, 3] - pose.position
        depth = rel @ forward
        u = (rel @ right) / depth / (math.tan(math.radians(22.5)) * 4 / 3)
        w = (rel @ np.cross(right, forward)) / depth / math.tan(math.radians(22.5))
        assert np.all(depth > 0) and np.abs(u).max() <= 0.9 + 1e-6 and \
            np.abs(w).max() <= 0.9 + 1e-6
        d = pose.position - pose.look_at  # from the default direction
        assert math.degrees(math.atan2(d[1], d[0])) == pytest.approx(DEFAULT_AZIMUTH_DEG)
        assert math.degrees(math.atan2(d[2], math.hypot(d[0], d[1]))) == pytest.approx(
            DEFAULT_ELEVATION_DEG)
        # a second study replaces the first
        v.show_reach(db)
        assert [n.name for n in v._reach_nodes] == ['/reach/targets', '/reach/tool_lines']


def test_show_reach_target_puts_the_tip_on_the_target(
        panda_reach: tuple[RobotModel, Path, Path], viewer: RobotViewer) -> None:
    # Oracle: Pinocchio's forward kinematics of the drawn configuration.
    import pinocchio as pin
    import pinocchio_oracle
    import robot_corpus

    from robot_state_core.reach.results import ReachDatabase

    model, results, _ = panda_reach
    db = ReachDatabase.load(results)
    final = db.final
    pm, _ = pinocchio_oracle.load(robot_corpus.test_robot('panda').urdf_path)
    data = pm.createData()
    tip = pm.getFrameId(db.tip)
    with RobotViewer(model, port=0) as v:
        with pytest.raises(InvalidArgumentError, match='no reach study'):
            v.show_reach_target(0)
        v.show_reach(db)
        fingers = v.positions['panda_finger_joint1']
        reached = np.flatnonzero(final.reached)
        for i in [*reached[:4].tolist(), int(np.argmax(final.score))]:
            info = v.show_reach_target(i)
            assert info.index == i and info.reached and info.score == final.score[i]
            pin.framesForwardKinematics(pm, data, pinocchio_oracle.to_pinocchio_q(
                model, pm, v.state.positions))
            X = data.oMf[tip].homogeneous
            np.testing.assert_allclose(X[:3, 3], db.X_WT[i, :3, 3], atol=1e-4)
            np.testing.assert_allclose(X[:3, :3], db.X_WT[i, :3, :3], atol=1e-3)
            assert v.positions['panda_finger_joint1'] == fingers  # not a group variable
            assert f'Target {i}' in info.message and f'score {final.score[i]:.4g}' in \
                info.message
            assert v.reach_target == info and v.named_state == '(current)'
        before = v.positions
        j = int(np.flatnonzero(~final.reached)[0])
        info = v.show_reach_target(j)
        assert not info.reached and 'not reached' in info.message
        assert v.positions == before  # the robot stays
        np.testing.assert_allclose(info.X_WT, db.X_WT[j])
        for bad in (-1, len(db.X_WT), 1.5):
            with pytest.raises(InvalidArgumentError, match='index'):
                v.show_reach_target(bad)  # type: ignore[arg-type]
    # a study of another robot: its variables are named
    with pytest.raises(UnknownNameError, match='panda_joint1'):
        viewer.show_reach(db)


def test_cli_view_reach_takes_the_robot_from_the_study(
        panda_reach: tuple[RobotModel, Path, Path], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    from dataclasses import replace

    import robot_corpus

    from robot_state_core.reach.results import ReachDatabase

    _, results, _ = panda_reach
    share = str(robot_corpus.test_robot('panda').package_map[''])
    assert cli_main(['view', '--reach', str(results), '--package-root', share, '--port', '0',
                     '--duration', '0']) == 0
    out = capsys.readouterr()
    assert out.out.startswith('viewer: http://') and "robot 'panda'" in out.err
    assert 'warning' not in out.err  # every mesh found under --package-root
    db = ReachDatabase.load(results)
    bare = tmp_path / 'bare.reach.npz'
    replace(db, study={}).save(bare)
    assert cli_main(['view', '--reach', str(bare), '--duration', '0']) == 2
    assert 'the study names no URDF; give --urdf' in capsys.readouterr().err


def test_a_large_study_is_drawn_coarser(panda_reach: tuple[RobotModel, Path, Path]) -> None:
    from dataclasses import replace

    from robot_state_core.reach.results import ReachDatabase, ReachResult
    from robot_state_core.viewer.reach_layer import DETAILED_TARGETS

    model, results, _ = panda_reach
    db = ReachDatabase.load(results)
    n = DETAILED_TARGETS + 1
    X = np.tile(np.eye(4), (n, 1, 1))
    X[:, 0, 3] = np.linspace(0.2, 0.8, n)
    reached = np.arange(n) % 3 > 0
    big = replace(db, X_WT=X, results=(ReachResult(
        reached, np.where(reached, np.linspace(0.0, 1.0, n), 0.0),
        np.zeros((n, len(db.variable_names))), np.zeros((n, len(db.variable_names))),
        np.ones(n, dtype=bool)),))
    with RobotViewer(model, port=0, controls=False) as v:
        v.show_reach(big)
        markers = _reach_node(v, 'targets')
        assert [node.name for node in v._reach_nodes] == ['/reach/targets']  # no tool lines
        assert len(markers.faces) == 20 and len(markers.batched_positions) == n
        assert not np.asarray(markers.batched_colors)[~reached].any()


def test_slider_ranges_follow_each_variables_kind() -> None:
    """Unbounded angles get one turn, translations ±2 m, quaternion components [-1, 1].

    The hand-written robot with every joint type (test/resources/all_joint_types.urdf): the
    rpy_floating joint's positions are (roll, pitch, yaw, x, y, z), so its first three
    sliders span [-π, π] and its last three ±UNBOUNDED_TRANSLATION (they were swapped before
    issue 30); the floating joint's quaternion spans [-1, 1], its translation ±2 m; planar θ
    [-π, π].
    """
    model = RobotModel.from_urdf_file(Path(__file__).resolve().parent / 'resources'
                                      / 'all_joint_types.urdf')
    spans = {s.variable: (s.lower, s.upper) for s in slider_specs(model)}
    turn, metres = (-math.pi, math.pi), (-UNBOUNDED_TRANSLATION, UNBOUNDED_TRANSLATION)
    for i, name in enumerate(('rpy/qx', 'rpy/qy', 'rpy/qz', 'rpy/x', 'rpy/y', 'rpy/z')):
        assert spans[name] == (turn if i < 3 else metres), name
    for name in ('float/rot_x', 'float/rot_y', 'float/rot_z', 'float/rot_w'):
        assert spans[name] == (-1.0, 1.0)
    assert spans['float/trans_x'] == metres and spans['plane/x'] == metres
    assert spans['plane/theta'] == turn
