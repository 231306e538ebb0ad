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
from typing import Any

import numpy as np
from numpy.typing import NDArray
import pytest

from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.spatial.transforms import quat_xyzw_from_wxyz, rotation_from_quat_xyzw
from robot_state_core.state.robot_state import RobotState
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
    # The region tests below look at the robot alone; the grid and axes have their own test.
    viewer.set_show_grid(False)
    viewer.set_show_world_axes(False)
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
    if browser.evaluate('location.href') != viewer.url:  # another test opened its own page
        page_screenshot(viewer, browser, timeout=90.0)
    before, old = browser.screenshot(), viewer.positions
    viewer.set_named_state('arm/home')
    if viewer.positions != old:
        return _settled_change(browser, before)
    return page_screenshot(viewer, browser, reload=False).png


def _camera(viewer: RobotViewer) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """``(R_WC, p_WC, vertical fov)`` of the (only) connected page."""
    cam = _client(viewer).camera
    R = rotation_from_quat_xyzw(quat_xyzw_from_wxyz(np.asarray(cam.wxyz)))
    return R, np.asarray(cam.position, dtype=float), float(cam.fov)


def _client(viewer: RobotViewer) -> Any:
    """The page connected last (an earlier connection may linger after a reload)."""
    clients = viewer.server.get_clients()
    return clients[max(clients)]


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
    """Pixels inside the projected cube of side 2 * scale around the IK (and box) gizmos."""
    mask = np.zeros((HEIGHT, WIDTH), dtype=bool)
    gizmos = [viewer._gizmo] if groups else []
    for gizmo in gizmos + [viewer._box_gizmos[b] for b in boxes]:
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


def _same(a: bytes, b: bytes) -> bool:
    """Equal pictures, up to edge pixels (viser's adaptive resolution re-renders edges)."""
    diff = np.abs(png_pixels(a).astype(np.int16) - png_pixels(b).astype(np.int16))
    return int((diff.max(axis=-1) > 60).sum()) <= 150


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
    outside = robot & ~region & ~corner & ~_gizmo_region(viewer, ['arm'])
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
        gizmos = _gizmo_region(viewer, ['arm'])
        assert (red(before) & region & ~gizmos).sum() < 20
        turned = red(after) & ~red(before)
        assert (turned & region).sum() > 400
        # and nothing else turned red (bar anti-aliased edges of the new box's gizmo ring)
        assert (turned & region).sum() >= 0.9 * turned.sum()
    finally:
        viewer.clear_world()


# ---------------------------------------------------------------------------- issue 28

def _dom_click_button(browser: HeadlessBrowser, text: str) -> None:
    assert browser.evaluate(f'''(() => {{
        const b = [...document.querySelectorAll('button')].find(
            b => b.textContent.trim() === {text!r});
        if (!b) return false; b.click(); return true; }})()'''), text


#: A page-script function: the input of the control labelled ``label`` (a slider's text box).
_FIND_INPUT = '''(label) => {
    const l = [...document.querySelectorAll('label')].find(l => l.textContent === label);
    if (!l) return null;
    const i = document.getElementById(l.getAttribute('for'));
    if (i && i.tagName === 'INPUT' && i.type !== 'hidden') return i;
    let row = l;
    for (let k = 0; k < 6 && !row.querySelector('input[type=text]'); k++) row = row.parentElement;
    return row.querySelector('input[type=text]');
}'''


def _dom_input(browser: HeadlessBrowser, label: str) -> dict[str, object]:
    """``{value, disabled}`` of the control labelled ``label`` (its text box for a slider)."""
    value = browser.evaluate(f'''(() => {{ const i = ({_FIND_INPUT})({label!r});
        return i && {{value: i.type === 'checkbox' ? i.checked : i.value,
                      disabled: i.disabled}}; }})()''')
    assert value is not None, f'no control labelled {label!r} on the page'
    return dict(value)


def _dom_click_checkbox(browser: HeadlessBrowser, label: str) -> None:
    assert browser.evaluate(f'(() => {{ const i = ({_FIND_INPUT})({label!r}); '
                            'if (!i) return false; i.click(); return true; })()'), label


def _type_into(browser: HeadlessBrowser, label: str, text: str) -> None:
    """Focus the text box of ``label``, replace its text with ``text`` and press Enter."""
    assert browser.evaluate(f'(() => {{ const i = ({_FIND_INPUT})({label!r}); '
                            'if (!i) return false; i.focus(); i.select(); return true; })()')
    browser.command('Input.insertText', text=text)
    for kind in ('keyDown', 'keyUp'):
        browser.command('Input.dispatchKeyEvent', type=kind, key='Enter', code='Enter',
                        windowsVirtualKeyCode=13)


def _wait(condition: object, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f'{what}: not within {timeout:.0f} s')
        time.sleep(0.05)


def _stable(browser: HeadlessBrowser, timeout: float = 30.0) -> bytes:
    """The next screenshot that a second one 0.3 s later confirms."""
    deadline = time.monotonic() + timeout
    previous = browser.screenshot()
    while time.monotonic() < deadline:
        time.sleep(0.3)
        png = browser.screenshot()
        if png == previous:
            return png
        previous = png
    raise AssertionError(f'the page did not settle within {timeout:.0f} s')


def _saturated(png: bytes) -> NDArray[np.bool_]:
    """Pixels of a pure red, green or blue hue (axes, gizmo handles)."""
    rgb = png_pixels(png).astype(int)
    hi, lo = rgb.max(axis=-1), rgb.min(axis=-1)
    mask: NDArray[np.bool_] = (hi > 150) & (lo < 90) & (hi - lo > 120)
    return mask


def test_one_ik_gizmo_at_the_chosen_group_tip_drawn_over_the_robot(
        page: tuple[RobotViewer, bytes], browser: HeadlessBrowser) -> None:
    viewer, _ = page
    _home(viewer, browser)
    # base (planar: the tip moves in a plane) and lift (one line) get no gizmo
    assert viewer.ik_groups == ('arm',) and viewer.ik_group == 'arm'
    assert _dom_input(browser, 'IK group')['value'] == 'arm'
    viewer._gizmo.visible = False
    hidden = _stable(browser)
    viewer._gizmo.visible = True
    shown = _settled_change(browser, hidden)
    gizmo = _changed(hidden, shown)
    region = _gizmo_region(viewer, ['arm'])
    assert gizmo.sum() > 300
    assert (gizmo & ~region).sum() == 0  # one gizmo, at tool0 (not at base_link or lift_link)
    # drawn over the robot: the handles cover pixels of the gripper in front of them
    assert (gizmo & _link_region(viewer, ['gripper_palm_link'], margin=0)).sum() > 20


def test_a_failed_drag_leaves_the_picture_as_it_was_and_says_why(
        page: tuple[RobotViewer, bytes], browser: HeadlessBrowser) -> None:
    viewer, _ = page
    before = _home(viewer, browser)
    far = viewer.state.get_global_link_transform('tool0').copy()
    far[:3, 3] += [3.0, 0.0, 0.0]
    feedback = viewer.drag_gizmo('arm', far)
    assert not feedback.success
    time.sleep(1.0)
    after = _stable(browser)
    assert _same(before, after)  # arm and gizmo where they were (not at the far target)
    text = browser.evaluate('document.body.textContent')
    assert 'no solution' in text and 'out of reach' in text and 'returns to the tip' in text


def test_ground_grid_and_world_axes_with_their_toggles(
        page: tuple[RobotViewer, bytes], browser: HeadlessBrowser) -> None:
    viewer, _ = page
    bare = _home(viewer, browser)
    robot = _link_region(viewer, list(viewer.model.link_names))
    try:
        assert _dom_input(browser, 'Ground grid')['value'] is False
        _dom_click_checkbox(browser, 'Ground grid')
        _wait(lambda: viewer._grid.visible, 'the grid checkbox to reach the server')
        grid = _settled_change(browser, bare)
        lines = foreground_mask(png_pixels(grid)) & ~foreground_mask(png_pixels(bare))
        assert (lines & ~robot).sum() > 2000  # grid lines around the robot, not only under it
        _dom_click_checkbox(browser, 'World axes')
        axes = _settled_change(browser, grid)
        origin = _project(viewer, np.array([[0.0, 0.0, 0.0], [0.25 * viewer._robot_size(),
                                                               0.0, 0.0]]))
        added = _saturated(axes) & ~_saturated(grid)
        (u0, v0), (u1, v1) = _bbox(origin, 12)
        assert added[max(v0, 0):v1, max(u0, 0):u1].sum() > 30  # the red x axis from the origin
        _dom_click_checkbox(browser, 'Ground grid')
        _dom_click_checkbox(browser, 'World axes')
        _wait(lambda: not viewer._grid.visible and not viewer._world_axes.visible,
              'the checkboxes to turn grid and axes off')
        # The page draws the change a little after the server has it: poll the picture.
        _wait(lambda: _same(bare, _stable(browser)), 'the page to drop grid and axes')
    finally:
        viewer.set_show_grid(False)
        viewer.set_show_world_axes(False)


def test_fit_robot_keeps_the_direction_and_reset_view_restores_it(
        page: tuple[RobotViewer, bytes], browser: HeadlessBrowser) -> None:
    viewer, _ = page
    _home(viewer, browser)
    client = _client(viewer)
    look_at = np.asarray(client.camera.look_at, dtype=float)
    direction = np.array([-1.0, 2.0, 1.5]) / np.linalg.norm([-1.0, 2.0, 1.5])
    client.camera.position = look_at + 12.0 * direction  # far away: the robot is small
    client.camera.look_at = look_at  # (viser moves the look-at point with the position)
    small = foreground_mask(png_pixels(_stable(browser)))
    _dom_click_button(browser, 'Fit robot')
    _wait(lambda: np.linalg.norm(np.asarray(client.camera.position) - look_at) < 8.0,
          'Fit robot to move the camera')
    fitted = foreground_mask(png_pixels(_stable(browser)))
    rows, cols = np.flatnonzero(fitted.any(axis=1)), np.flatnonzero(fitted.any(axis=0))
    span = max((rows[-1] - rows[0]) / HEIGHT, (cols[-1] - cols[0]) / WIDTH)
    assert fitted.sum() > 5 * small.sum() and span > 0.8, span
    d = np.asarray(client.camera.position) - np.asarray(client.camera.look_at)
    np.testing.assert_allclose(d / np.linalg.norm(d), direction, atol=2e-3)
    _dom_click_button(browser, 'Reset view')
    initial = viewer.server.initial_camera

    def restored() -> bool:
        return bool(np.allclose(client.camera.position, initial.position, atol=1e-3))
    _wait(restored, 'Reset view to bring the camera back')
    np.testing.assert_allclose(client.camera.look_at, initial.look_at, atol=1e-3)


def test_clicking_a_link_shows_its_name_and_pose(page: tuple[RobotViewer, bytes],
                                                 browser: HeadlessBrowser) -> None:
    viewer, _ = page
    _home(viewer, browser)
    # the middle of the mobile base's visual mesh, on screen (away from the gizmo)
    visual = next(e for e in element_meshes(viewer.model, 'visual')[0] if e.link == 'base_link')
    X = viewer.state.get_global_link_transform('base_link') @ visual.X_LE
    u, v = _project(viewer, (visual.vertices @ X[:3, :3].T + X[:3, 3]).mean(axis=0)[None])[0]
    assert not _gizmo_region(viewer, ['arm'])[int(v), int(u)]
    try:
        for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
            browser.command('Input.dispatchMouseEvent', type=kind, x=float(u), y=float(v),
                            button='left', clickCount=1)
        _wait(lambda: viewer.selected_link == 'base_link', 'the click to select base_link')
        X = viewer.state.get_global_link_transform('base_link')
        expected = ', '.join(f'{c:.3f}' for c in X[:3, 3])
        _wait(lambda: f'({expected})' in browser.evaluate('document.body.textContent'),
              'the panel to show the pose')
        text = ' '.join(browser.evaluate('document.body.textContent').split())
        assert 'Selected link: base_link' in text
    finally:
        viewer.select_link(None)


def test_link_frames_are_seen_inside_the_robot(page: tuple[RobotViewer, bytes],
                                               browser: HeadlessBrowser) -> None:
    viewer, _ = page
    before = _home(viewer, browser)
    try:
        _dom_click_checkbox(browser, 'Link frames (TF)')
        after = _settled_change(browser, before)
        # imu_link's origin is inside the base's box: its axes are seen through it
        p = viewer.state.get_global_link_transform('imu_link')[:3, 3]
        (u, v), = _project(viewer, p[None])
        window = (slice(int(v) - 15, int(v) + 15), slice(int(u) - 15, int(u) + 15))
        assert _saturated(after)[window].sum() > 30
        assert _saturated(before)[window].sum() == 0
        assert all(viewer._frame_labels[n].visible for n in viewer.model.link_names)
    finally:
        viewer.set_show_frames(False)


def test_named_state_menu_shows_current_after_a_change(page: tuple[RobotViewer, bytes],
                                                       browser: HeadlessBrowser) -> None:
    viewer, _ = page
    _home(viewer, browser)
    _wait(lambda: _dom_input(browser, 'Named state')['value'] == 'arm/home', 'arm/home shown')
    viewer.set_positions({'elbow_joint': 1.1})
    _wait(lambda: _dom_input(browser, 'Named state')['value'] == '(current)',
          'the menu to say (current)')


# ---------------------------------------------------------------------------- own pages
# These open other pages in the shared browser: they come last (pytest runs in file order).

def test_follow_mode_disables_every_editing_control(model: RobotModel,
                                                    browser: HeadlessBrowser) -> None:
    with RobotViewer(model, port=0, follow=True) as viewer:
        page_screenshot(viewer, browser, timeout=90.0, hide_overlays=False)
        for label in ('Named state', 'IK group', 'elbow_joint'):
            control = _dom_input(browser, label)
            if label != 'elbow_joint':
                assert control['disabled'], label
        disabled = browser.evaluate('''JSON.stringify(Object.fromEntries(
            [...document.querySelectorAll('button')].filter(b => b.textContent.trim())
            .map(b => [b.textContent.trim(), b.disabled])))''')
        assert '"Add box":true' in disabled and '"Remove all objects":true' in disabled
        assert 'IK is off' in browser.evaluate('document.body.textContent')
        # viser leaves the number box beside a disabled slider editable: what is typed there
        # is taken back, and the drawn state stays the followed one
        before = viewer.positions['elbow_joint']
        _type_into(browser, 'elbow_joint', '0.3')
        _wait(lambda: float(_dom_input(browser, 'elbow_joint')['value']) == before,
              'the typed value to be taken back')
        assert viewer.positions['elbow_joint'] == before


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


def test_snapshot_fits_the_robot_and_takes_camera_and_colour_options(tmp_path: Path) -> None:
    # The README's pictures come from `snapshot`: by default the robot spans most of the frame.
    from robot_state_core.apps.cli import main as cli_main

    _require_chromium()

    def robot_box(name: str, *args: str) -> tuple[NDArray[np.uint8], float, float]:
        out = tmp_path / f'{name}.png'
        assert cli_main(['snapshot', '--state', 'home', '--no-grid', '--size', '640x480',
                         '--output', str(out), *args]) == 0
        rgb = png_pixels(out.read_bytes())
        assert rgb.shape == (480, 640, 3)
        mask = foreground_mask(rgb)
        mask[480 - 80:, :80] = False  # the orientation widget (drawn in the 3D canvas)
        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        return rgb, (rows[-1] - rows[0]) / 480, (cols[-1] - cols[0]) / 640

    # a box on the upper arm: red links, unless --no-collision-colors
    box = ['--box', '0.0', '0.0', '0.95', '0.5', '0.5', '0.3']

    def red(rgb: NDArray[np.uint8]) -> int:
        c = rgb.astype(int)
        c[480 - 80:, :80] = 255  # the orientation widget's red x axis
        return int(((c[..., 0] > 180) & (c[..., 1] < 60) & (c[..., 2] < 60)).sum())
    coloured, h, w = robot_box('fit', *box)
    assert max(h, w) >= 0.85  # --fit (default): 90 % of the binding dimension
    plain, h_loose, w_loose = robot_box('plain', *box, '--no-collision-colors', '--no-fit')
    assert max(h_loose, w_loose) < max(h, w) - 0.03  # its bounding sphere fits the height
    assert red(coloured) > 1000 and red(plain) < 50
    # from 3 m in front, level: a pinhole with a 45° vertical view gives the robot's height
    # in the picture from its visual vertices (camera looking along -x, image v along -z)
    _, h_3m, _ = robot_box('explicit', '--camera', '3', '0', '0.65', '0', '0', '0.65')
    model = RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())
    state = RobotState(model)
    state.set_to_default_values('arm', 'home')
    points = np.concatenate([
        e.vertices @ X[:3, :3].T + X[:3, 3] for e in element_meshes(model, 'visual')[0]
        for X in [state.get_global_link_transform(e.link) @ e.X_LE]])
    v = (points[:, 2] - 0.65) / (3.0 - points[:, 0]) / (2 * np.tan(np.radians(22.5)))
    assert h_3m == pytest.approx(v.max() - v.min(), abs=0.02)


def test_panda_in_its_mesh_colours_and_a_missing_file_named_in_full(
        browser: HeadlessBrowser, tmp_path: Path) -> None:
    import robot_corpus

    r = robot_corpus.test_robot('panda')
    panda = RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map)
    with RobotViewer(panda, port=0) as viewer:
        viewer.set_show_grid(False)
        viewer.set_show_world_axes(False)
        rgb = png_pixels(page_screenshot(viewer, browser, timeout=90.0).png).astype(int)
        # its DAE files: white shells and dark-grey (64, 64, 64) joints; no light-grey-only robot
        dark = (rgb.max(axis=-1) < 90) & (rgb.max(axis=-1) - rgb.min(axis=-1) < 12)
        region = _link_region(viewer, ['panda_link3', 'panda_link4', 'panda_link5'])
        assert (dark & region).sum() > 500
    pkg = tmp_path / 'my_robot_description'
    (pkg / 'meshes').mkdir(parents=True)
    (pkg / 'package.xml').write_text('<package><name>my_robot_description</name></package>')
    name = 'a_rather_long_mesh_file_name_that_a_notification_would_cut_short.stl'
    urdf = f'''<robot name="r"><link name="base">
      <visual><geometry><mesh filename="package://my_robot_description/meshes/{name}"/>
      </geometry></visual>
      <collision><geometry><box size="0.2 0.1 0.4"/></geometry></collision></link></robot>'''
    model = RobotModel.from_urdf_string(urdf, package_roots=[tmp_path])
    with RobotViewer(model, port=0) as viewer:
        page_screenshot(viewer, browser, timeout=90.0, hide_overlays=False)
        notes = browser.wait_for('''(() => { const n = [...document.querySelectorAll(
            '.mantine-Notification-root')].map(e => e.innerText).join(' | ');
            return n.includes('drawn as a box') && n; })()''')
        flat = ' '.join(str(notes).split())
        assert name in flat and 'does not exist' in flat and 'my_robot_description' in flat
        assert flat.index(name) < flat.index('does not exist')  # the file first


# ---------------------------------------------------------------------------- issue 29: reach

#: REACH's heat-map hue of the lowest score [deg] (``computeHeatMapColors``: 0.75 * 360).
REACH_LOW_HUE_DEG = 270.0
#: How far a drawn target's hue may be from REACH's (three.js lighting shifts it a little).
HUE_TOLERANCE_DEG = 20.0


@pytest.fixture(scope='module')
def panda_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[RobotModel, Path, str]:
    """Panda, a small study's results file (30 targets in reach, 8 beyond) and its packages."""
    import robot_corpus
    from test_reach_study import _problem, _sphere_targets, MAX_REACH

    from robot_state_core.reach.executors import InProcess
    from robot_state_core.reach.study import run_study

    panda = robot_corpus.test_robot('panda')
    model = RobotModel.from_urdf_file(panda.urdf_path, panda.srdf_path,
                                      package_map=panda.package_map)
    targets = np.concatenate([_sphere_targets(0.45, 30), _sphere_targets(MAX_REACH + 0.1, 8)])
    db = run_study(_problem(panda, max_steps=1, radius=0.2), targets, InProcess())
    results = tmp_path_factory.mktemp('reach') / 'sphere.reach.npz'
    db.save(results)
    return model, results, str(panda.package_map[''])


@pytest.fixture(scope='module')
def reach_page(panda_study: tuple[RobotModel, Path, str], browser: HeadlessBrowser
               ) -> Iterator[tuple[RobotViewer, Any, bytes]]:
    """Panda with the study's heat map in the browser: the viewer, the study, the picture."""
    from robot_state_core.reach.results import ReachDatabase

    model, results, _ = panda_study
    db = ReachDatabase.load(results)
    with RobotViewer(model, port=0) as viewer:
        viewer.set_show_grid(False)
        viewer.set_show_world_axes(False)
        viewer.show_reach(db)
        viewer.frame_camera()
        yield viewer, db, page_screenshot(viewer, browser, timeout=90.0).png


def _hsv(rgb: NDArray[np.uint8]) -> NDArray[np.float64]:
    """``(..., 3)`` hue [deg], saturation, value of RGB pixels (the HSV cone's definition)."""
    c = rgb.astype(np.float64) / 255.0
    hi, lo = c.max(axis=-1), c.min(axis=-1)
    span = np.where(hi > lo, hi - lo, 1.0)
    r, g, b = c[..., 0], c[..., 1], c[..., 2]
    h = np.where(hi == r, (g - b) / span % 6.0, np.where(hi == g, (b - r) / span + 2.0,
                                                          (r - g) / span + 4.0)) * 60.0
    s = np.where(hi > 0, (hi - lo) / np.where(hi > 0, hi, 1.0), 0.0)
    return np.stack([np.where(hi > lo, h, 0.0), s, hi], axis=-1)


def _target_pixels(viewer: RobotViewer, db: Any) -> tuple[NDArray[np.float64],
                                                          NDArray[np.float64]]:
    """Projected centre ``(N, 2)`` and radius ``(N,)`` [px] of every target's sphere."""
    p = db.X_WT[:, :3, 3]
    R, position, fov = _camera(viewer)
    depth = (p - position) @ R[:, 2]
    return _project(viewer, p), viewer._reach_radius * 0.5 * HEIGHT / np.tan(0.5 * fov) / depth


def _expected_hue(db: Any) -> NDArray[np.float64]:
    """REACH's hue of every target [deg]: blue at score 0, red at the best score."""
    final = db.final
    return REACH_LOW_HUE_DEG * (1.0 - final.score / final.score.max())


def _shown_as_expected(png: bytes, viewer: RobotViewer, db: Any, *,
                       centre_only: bool = False) -> NDArray[np.bool_]:
    """``(N,)`` targets seen in their colour: REACH's hue (reached) or black, at their pixel.

    A target is seen when some pixel within 0.6 of its projected radius of its centre
    (``centre_only``: its centre pixel) has that colour.
    """
    hsv = _hsv(png_pixels(png))
    uv, radius = _target_pixels(viewer, db)
    expected = _expected_hue(db)
    out = np.zeros(len(uv), dtype=bool)
    for i, ((u, v), r) in enumerate(zip(uv, radius, strict=True)):
        k = 0 if centre_only else max(1, int(0.6 * r))
        c, w = round(v), round(u)
        window = hsv[max(c - k, 0):c + k + 1, max(w - k, 0):w + k + 1].reshape(-1, 3)
        if len(window) == 0:
            continue
        if db.final.reached[i]:
            best = window[np.argmax(window[:, 1])]
            gap = abs((best[0] - expected[i] + 180.0) % 360.0 - 180.0)
            out[i] = best[1] > 0.5 and best[2] > 0.25 and gap <= HUE_TOLERANCE_DEG
        else:
            out[i] = bool(window[:, 2].min() < 40 / 255)
    return out


def test_reach_targets_are_drawn_where_they_project_in_reach_heat_map_colours(
        reach_page: tuple[RobotViewer, Any, bytes]) -> None:
    viewer, db, png = reach_page
    reached = db.final.reached
    seen = _shown_as_expected(png, viewer, db)
    # most targets show REACH's colour at their own pixel (a few hide behind the arm or each
    # other), over the whole range of hues: not one colour for all
    assert seen[reached].mean() >= 0.7, seen[reached].mean()
    assert seen[~reached].mean() >= 0.7, seen[~reached].mean()
    hues = _expected_hue(db)[seen & reached]
    assert hues.max() - hues.min() >= 60.0, hues
    # and every coloured pixel belongs to a target (its sphere or its tool line), the gizmo or
    # the orientation widget
    uv, radius = _target_pixels(viewer, db)
    ends = _project(viewer, db.X_WT[:, :3, 3] - 3.0 * viewer._reach_radius * db.X_WT[:, :3, 2])
    region = _gizmo_region(viewer, ['arm'])
    region[HEIGHT - 80:, :80] = True
    for (u, v), (ue, ve), r in zip(uv, ends, radius, strict=True):
        (u0, v0), (u1, v1) = _bbox(np.array([[u - r, v - r], [u + r, v + r], [ue, ve]]), 4)
        region[max(v0, 0):max(v1, 0), max(u0, 0):max(u1, 0)] = True
    hsv = _hsv(png_pixels(png))
    coloured = (hsv[..., 1] > 0.5) & (hsv[..., 2] > 0.25)
    assert coloured.sum() > 300
    assert (coloured & ~region).sum() <= 0.03 * coloured.sum(), (coloured & ~region).sum()


def test_clicking_a_target_puts_the_robot_at_its_solution_and_shows_its_score(
        reach_page: tuple[RobotViewer, Any, bytes], browser: HeadlessBrowser) -> None:
    viewer, db, _ = reach_page
    final = db.final
    before = _stable(browser)
    # a reached target seen at its own centre pixel, away from the gizmo, the biggest on screen
    uv, radius = _target_pixels(viewer, db)
    gizmo = _gizmo_region(viewer, ['arm'])
    seen = _shown_as_expected(before, viewer, db, centre_only=True) & final.reached
    candidates = [int(i) for i in np.flatnonzero(seen)
                  if not gizmo[min(round(uv[i, 1]), HEIGHT - 1), min(round(uv[i, 0]), WIDTH - 1)]]
    assert candidates
    i = max(candidates, key=lambda k: radius[k])
    q_before = viewer.positions
    for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
        browser.command('Input.dispatchMouseEvent', type=kind, x=float(uv[i, 0]),
                        y=float(uv[i, 1]), button='left', clickCount=1)
    _wait(lambda: viewer.reach_target is not None and viewer.reach_target.index == i,
          f'the click to show target {i}')
    assert viewer.positions != q_before
    X = viewer.state.get_global_link_transform(db.tip)  # forward kinematics of the new state
    np.testing.assert_allclose(X[:3, 3], db.X_WT[i, :3, 3], atol=1e-4)
    after = _settled_change(browser, before)
    assert (_changed(before, after) & _link_region(viewer, list(viewer.model.link_names))
            ).sum() > 500  # the arm moved on the page
    text = f'Target {i} of {len(db.X_WT)}: reached, score {final.score[i]:.4g}'
    _wait(lambda: text in ' '.join(browser.evaluate('document.body.textContent').split()),
          'the panel to show the target and its score')
    page = ' '.join(browser.evaluate('document.body.textContent').split())
    assert 'Reach study' in page and f'Reach: {100 * final.reached.mean():.1f} %' in page
    assert 'black: not reached' in page


def test_snapshot_reach_writes_the_heat_map(panda_study: tuple[RobotModel, Path, str],
                                            tmp_path: Path) -> None:
    from robot_state_core.apps.cli import main as cli_main

    _require_chromium()
    _, results, share = panda_study
    out = tmp_path / 'heat.png'
    assert cli_main(['snapshot', '--reach', str(results), '--package-root', share, '--no-grid',
                     '--output', str(out)]) == 0
    hsv = _hsv(png_pixels(out.read_bytes()))
    hsv[HEIGHT - 80:, :80] = 0.0  # the orientation widget
    coloured = (hsv[..., 1] > 0.5) & (hsv[..., 2] > 0.25)
    hue = hsv[..., 0]
    red, yellow = coloured & ((hue < 15) | (hue > 345)), coloured & (hue > 40) & (hue < 75)
    black = hsv[..., 2] < 25 / 255
    assert red.sum() > 20 and yellow.sum() > 100 and black.sum() > 100, (
        red.sum(), yellow.sum(), black.sum())
