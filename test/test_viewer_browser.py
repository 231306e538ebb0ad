"""The viewer page in a real browser (headless Chromium, software WebGL): what a person sees.

Every test looks at screenshots of the page. Where a test says "in the region of a link", the
region is the link's visual geometry projected with the page's own camera (pose and field of
view as the browser reports them to the server; OpenCV convention: +z forward, +y down), so a
change that shows up elsewhere on the screen fails the test.

Chromium comes from the set-up step (Debian's ``chromium``). Without it these tests fail when
``CI`` is set (CI must run them) and are skipped with the reason otherwise. Select them with
``-m browser``.
"""

from __future__ import annotations

from collections.abc import Iterator
import os
from pathlib import Path
import time

import numpy as np
from numpy.typing import NDArray
import pytest

from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import quat_xyzw_from_wxyz, rotation_from_quat_xyzw
from robot_state_core.viewer.app import RobotViewer
from robot_state_core.viewer.browser import find_chromium, HeadlessBrowser
from robot_state_core.viewer.scene_meshes import element_meshes
from robot_state_core.viewer.snapshot import foreground_mask, page_screenshot, png_pixels

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 800, 600
#: Band of the default robot's share of the 800x600 image at its default camera.
FOREGROUND_BAND = (0.02, 0.40)


def _require_chromium() -> None:
    if find_chromium() is None:
        reason = ("Chromium is not installed (tools/setup_env.py installs Debian's chromium "
                  'when run as root; or set RSC_CHROMIUM)')
        if os.environ.get('CI'):
            pytest.fail(f'browser tests must run in CI: {reason}')
        pytest.skip(reason)


@pytest.fixture(scope='module')
def model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


@pytest.fixture(scope='module')
def browser() -> Iterator[HeadlessBrowser]:
    _require_chromium()
    with HeadlessBrowser(WIDTH, HEIGHT) as b:
        yield b


@pytest.fixture(scope='module')
def page(model: RobotModel, browser: HeadlessBrowser) -> Iterator[tuple[RobotViewer, bytes]]:
    """The default robot at ``home`` in the browser; yields the viewer and the first picture."""
    viewer = RobotViewer(model, port=0)
    viewer.set_named_state('arm/home')
    try:
        shot = page_screenshot(viewer, browser, timeout=90.0)
        yield viewer, shot.png
    finally:
        viewer.stop()


def _settled_change(browser: HeadlessBrowser, before: bytes, timeout: float = 30.0) -> bytes:
    """The next stable screenshot that differs from ``before``."""
    deadline = time.monotonic() + timeout
    previous = before
    while time.monotonic() < deadline:
        time.sleep(0.3)
        png = browser.screenshot()
        if png == previous and png != before:
            return png
        previous = png
    raise AssertionError(f'the page did not change within {timeout:.0f} s')


def _home(viewer: RobotViewer, browser: HeadlessBrowser) -> bytes:
    """Put the arm at ``home`` and return the page's picture once it shows that."""
    before, old = browser.screenshot(), viewer.positions
    viewer.set_named_state('arm/home')
    if viewer.positions != old:
        return _settled_change(browser, before)
    return page_screenshot(viewer, browser, reload=False).png


def _camera(viewer: RobotViewer) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """``(R_WC, p_WC, vertical fov)`` of the (only) connected page."""
    client = next(iter(viewer.server.get_clients().values()))
    cam = client.camera
    R = rotation_from_quat_xyzw(quat_xyzw_from_wxyz(np.asarray(cam.wxyz)))
    return R, np.asarray(cam.position, dtype=float), float(cam.fov)


def _project(viewer: RobotViewer, p_W: NDArray[np.float64]) -> NDArray[np.float64]:
    """Pixel coordinates ``(N, 2)`` of world points (pinhole, OpenCV camera axes)."""
    R, p, fov = _camera(viewer)
    p_C = (p_W - p) @ R  # R^T (p_W - p) for each row
    f = 0.5 * HEIGHT / np.tan(0.5 * fov)
    return np.column_stack([WIDTH / 2 + f * p_C[:, 0] / p_C[:, 2],
                            HEIGHT / 2 + f * p_C[:, 1] / p_C[:, 2]])


def _link_region(viewer: RobotViewer, links: list[str], margin: int = 6) -> NDArray[np.bool_]:
    """Pixels inside the projected bounding box of each link's visual geometry (union)."""
    visuals, _ = element_meshes(viewer.model, 'visual')
    X_WL = viewer.state.get_link_poses()
    mask = np.zeros((HEIGHT, WIDTH), dtype=bool)
    for e in visuals:
        if e.link not in links:
            continue
        X = X_WL[viewer.model.link_index(e.link)] @ e.X_LE
        (u0, v0), (u1, v1) = _bbox(_project(viewer, e.vertices @ X[:3, :3].T + X[:3, 3]),
                                   margin)
        mask[max(v0, 0):max(v1, 0), max(u0, 0):max(u1, 0)] = True
    return mask


def _gizmo_region(viewer: RobotViewer, groups: list[str],
                  boxes: tuple[str, ...] = ()) -> NDArray[np.bool_]:
    """Pixels inside the projected cube of side 2 * scale around IK (and box) gizmos."""
    mask = np.zeros((HEIGHT, WIDTH), dtype=bool)
    for gizmo in [viewer._gizmos[g] for g in groups] + [viewer._box_gizmos[b] for b in boxes]:
        cube = np.array(np.meshgrid(*[[-1.0, 1.0]] * 3)).reshape(3, -1).T * gizmo.scale
        (u0, v0), (u1, v1) = _bbox(_project(viewer, cube + gizmo.position), 4)
        mask[max(v0, 0):max(v1, 0), max(u0, 0):max(u1, 0)] = True
    return mask


def _bbox(uv: NDArray[np.float64], margin: int) -> tuple[tuple[int, int], tuple[int, int]]:
    lo, hi = uv.min(axis=0) - margin, uv.max(axis=0) + margin
    return (int(lo[0]), int(lo[1])), (int(hi[0]) + 1, int(hi[1]) + 1)


def _changed(a: bytes, b: bytes) -> NDArray[np.bool_]:
    diff = np.abs(png_pixels(a).astype(np.int16) - png_pixels(b).astype(np.int16))
    mask: NDArray[np.bool_] = diff.max(axis=-1) > 24
    return mask


def _descendants(model: RobotModel, joint: str) -> list[str]:
    child = model.joint(joint).child_link_name
    out, frontier = [child], [child]
    while frontier:
        link = frontier.pop()
        for j in model.joint_names:
            if model.joint(j).parent_link_name == link:
                out.append(model.joint(j).child_link_name)
                frontier.append(out[-1])
    return out


def test_the_page_shows_the_default_robot(page: tuple[RobotViewer, bytes],
                                          browser: HeadlessBrowser) -> None:
    viewer, png = page
    pixels = png_pixels(png)
    assert pixels.shape == (HEIGHT, WIDTH, 3)
    robot = foreground_mask(pixels)
    fraction = float(robot.mean())
    assert FOREGROUND_BAND[0] <= fraction <= FOREGROUND_BAND[1], fraction
    # What is drawn is the robot: nearly all foreground lies where its links project to
    # (the IK gizmos and the orientation widget in the bottom-left corner aside).
    region = _link_region(viewer, list(viewer.model.link_names))
    corner = np.zeros_like(robot)
    corner[HEIGHT - 80:, :80] = True
    outside = robot & ~region & ~corner & ~_gizmo_region(viewer, list(viewer._gizmos))
    assert outside.sum() <= 0.02 * robot.sum(), (outside.sum(), robot.sum())
    # the control panel is on the page (hidden for the picture by the snapshot CSS)
    text = browser.evaluate('document.body.textContent')
    assert 'Named state' in text and 'Minimum distance' in text


def test_setting_a_joint_changes_the_picture_where_that_link_is(
        page: tuple[RobotViewer, bytes], browser: HeadlessBrowser) -> None:
    viewer, _ = page
    before = _home(viewer, browser)
    moved = _descendants(viewer.model, 'wrist_pitch_joint')
    region_before = _link_region(viewer, moved) | _gizmo_region(viewer, ['arm'])
    viewer.set_positions({'wrist_pitch_joint': -0.6})
    after = _settled_change(browser, before)
    region_after = _link_region(viewer, moved) | _gizmo_region(viewer, ['arm'])
    changed = _changed(before, after)
    assert changed.sum() > 150
    inside = changed & (region_before | region_after)
    assert inside.sum() >= 0.97 * changed.sum(), (inside.sum(), changed.sum())
    still = _link_region(viewer, ['base_link', 'lift_link'], margin=0) & ~(region_before
                                                                         | region_after)
    assert (changed & still).sum() == 0


def test_dragging_the_gizmo_moves_the_tip_and_reports_success(
        page: tuple[RobotViewer, bytes], browser: HeadlessBrowser) -> None:
    viewer, _ = page
    before = _home(viewer, browser)
    tip_before = viewer.state.get_global_link_transform('tool0').copy()
    target = tip_before.copy()
    target[:3, 3] += [0.12, 0.0, 0.10]
    feedback = viewer.drag_gizmo('arm', target)
    assert feedback.success
    after = _settled_change(browser, before)
    tip_after = viewer.state.get_global_link_transform('tool0')
    np.testing.assert_allclose(tip_after[:3, 3], target[:3, 3], atol=1e-4)
    # the picture changed around the tool, and the page says the drag solved
    changed = _changed(before, after)
    assert (changed & _link_region(viewer, ['tool0', 'gripper_palm_link'])).sum() > 50
    uv_before, uv_after = _project(viewer, np.stack([tip_before[:3, 3], tip_after[:3, 3]]))
    assert np.linalg.norm(uv_after - uv_before) > 10  # the tip moved on screen
    text = browser.evaluate('document.body.textContent')
    assert 'arm: solved' in text


def test_a_box_placed_on_a_link_turns_that_link_red(page: tuple[RobotViewer, bytes],
                                                    browser: HeadlessBrowser) -> None:
    viewer, _ = page
    before = _home(viewer, browser)
    link = 'upper_arm_link'
    region = _link_region(viewer, [link])
    geometry = viewer.planning_scene.geometry
    X_WG = geometry.world_poses(viewer.state.get_link_poses())[
        geometry.geometry_indices(link)[0]]
    X = np.eye(4)
    X[:3, 3] = X_WG[:3, 3]  # the centre of the link's collision geometry
    try:
        status = viewer.add_box('probe', (0.04, 0.04, 0.04), X)
        assert status.colliding_links == (link,)
        after = _settled_change(browser, before)

        def red(png: bytes) -> NDArray[np.bool_]:
            rgb = png_pixels(png).astype(int)
            mask: NDArray[np.bool_] = (rgb[..., 0] > 150) & (rgb[..., 1] < 70) & (
                rgb[..., 2] < 70)
            return mask
        # the link itself is not red before (the gizmos' red rings are, and do not move)
        gizmos = _gizmo_region(viewer, list(viewer._gizmos))
        assert (red(before) & region & ~gizmos).sum() < 20
        turned = red(after) & ~red(before)
        assert (turned & region).sum() > 400
        # and nothing else turned red (bar anti-aliased edges of the new box's gizmo ring)
        assert (turned & region).sum() >= 0.9 * turned.sum()
    finally:
        viewer.clear_world()


@pytest.mark.ros
def test_ros_mode_follows_joint_states_from_another_process(
        model: RobotModel, browser: HeadlessBrowser, ros: object) -> None:
    import ros_testing  # the ros fixture made rclpy importable

    from robot_state_core.ros.viewer_node import ViewerNode

    assert isinstance(ros, ros_testing.RosTestContext)
    viewer = RobotViewer(model, port=0, follow=True)
    publisher = None
    try:
        viewer.set_named_state('arm/home')
        node = ros.add(ViewerNode(viewer, context=ros.context))
        before = page_screenshot(viewer, browser, timeout=90.0).png
        assert all(s.disabled for s in viewer._sliders.values())  # read-only while following
        moved = _descendants(model, 'shoulder_pan_joint')
        region_before = _link_region(viewer, moved)
        script = ('import time, rclpy\n'
                  'from sensor_msgs.msg import JointState\n'
                  'rclpy.init()\n'
                  'node = rclpy.create_node("js_source")\n'
                  'pub = node.create_publisher(JointState, "joint_states", 10)\n'
                  'print("publishing", flush=True)\n'
                  'for _ in range(400):\n'
                  '    msg = JointState(name=["shoulder_pan_joint"], position=[1.2])\n'
                  '    msg.header.stamp = node.get_clock().now().to_msg()\n'
                  '    pub.publish(msg)\n'
                  '    time.sleep(0.02)\n')
        publisher = ros_testing.ChildProcess(['-c', script])
        publisher.wait_for_line('publishing')
        ros.spin_until(lambda: abs(viewer.positions['shoulder_pan_joint'] - 1.2) < 1e-9,
                       timeout=20.0, what='the viewer to follow joint_states')
        assert node.joint_states_received > 0
        after = _settled_change(browser, before)
        changed = _changed(before, after)
        region = region_before | _link_region(viewer, moved)
        assert changed.sum() > 150
        assert (changed & region).sum() >= 0.97 * changed.sum()
    finally:
        if publisher is not None:
            publisher.stop()
        viewer.stop()



def test_an_unreadable_mesh_is_a_box_and_a_warning_on_the_page(
        browser: HeadlessBrowser, tmp_path: Path) -> None:
    bad = tmp_path / 'broken.stl'
    bad.write_bytes(b'solid nothing\nthis is not an stl\n')
    urdf = f'''<robot name="r"><link name="base">
      <visual><geometry><mesh filename="file://{bad}"/></geometry></visual>
      <collision><geometry><box size="0.2 0.1 0.4"/></geometry></collision></link></robot>'''
    with RobotViewer(RobotModel.from_urdf_string(urdf), port=0) as viewer:
        shot = page_screenshot(viewer, browser, timeout=90.0)
        # the box is drawn (translucent orange, where the link's collision box is) ...
        rgb = png_pixels(shot.png).astype(int)
        orange = (rgb[..., 0] > 200) & (rgb[..., 1] > 120) & (rgb[..., 1] < 230) & (
            rgb[..., 2] < 150)
        region = _link_region(viewer, ['base'])
        assert (orange & region).sum() > 500
        assert (orange & ~region).sum() <= 0.02 * orange.sum()
        # ... and the page says why, naming the file and the link
        text = browser.evaluate('document.body.textContent')
        assert 'broken.stl' in text and "link 'base'" in text and 'drawn as a box' in text
