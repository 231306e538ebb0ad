"""Browser-viewer benchmarks: page-open to settled picture, slider to picture, following rate.

Three robots: the default robot, Panda and Talos (example-robot-data; left out when it is not
installed). Each is named in the report with its links, visual meshes and triangles.

* ``startup``: ``robot-state-core view`` is started as a child process; a headless Chromium that
  is already running (as a person's browser would be) opens the printed URL at once. Measured
  from the child's start: the URL printed, the page opened (its ``DOMContentLoaded``:
  navigation done), and the picture settled (the first screenshot with robot pixels that stays
  unchanged for 0.3 s; screenshots every 0.1 s). The headline is **page-open to settled**.
  Where the time goes, from outside: the bytes the page's websocket received before the
  picture settled, page open to the last websocket message before it (server sending,
  network), and that message to the settled picture (the page decoding, building and
  rendering the scene).
* ``slider``: the page is opened and left to settle (not counted), then a joint value is typed
  into the number box beside the joint's slider in the control panel, as a person does
  (focus, select, ``Input.insertText``), alternating between two arm joints with a distinct
  value each time. Measured from the typed value: the first screenshot in which the robot
  moved, and the settled picture (as above, screenshots back to back). Also, without a
  browser, in this process: ``RobotViewer.set_positions`` for 30 distinct values of one joint
  (a drag, server side: FK, poses sent, collisions) in updates per second.
* ``follow``: ``robot-state-core view --ros`` follows ``joint_states`` published at 100 Hz by
  another child (every active joint sweeping). Measured over a window: joint_states received
  and page updates sent per second (the viewer's own status line), and in the page, websocket
  messages received and frames rendered per second (``requestAnimationFrame`` callbacks). The
  page shows a new pose at most at min(updates received, frames rendered) per second.

Scripts the browser installs before each page loads: :data:`COUNTER_JS` (viser's client
receives on a websocket inside a Web Worker, so the script loads the worker's code with a
prologue that reports every websocket message, size and arrival time, to the page; and it
counts the page's animation frames) and, for ``startup`` and ``slider``, :data:`OVERLAYS_JS`:
the control panel and notifications are transparent (still laid out, updated and typed into),
so the screenshots compare the 3D view only and "robot pixels" (> 1 % of the pixels differ
from the background) cannot be the panel's.

Chromium renders with SwiftShader (software WebGL) on the machine's 2 cores, shared with the
viewer, the publisher and anything else running; rendered frames per second are a floor for a
machine with a GPU. One browser serves all runs of a part, so its shader cache is warm after the
first page.

Run through ``benchmarks/run.py`` (``--module viewer``, ``--only startup|slider|follow``,
``--quick``). ``--publisher`` is this file's child role (the 100 Hz joint_states source).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
import json
import os
from pathlib import Path
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING

from common import dds_env, fmt_bytes, Progress, REPO_ROOT, Section, Settings, Table, Target
import numpy as np

if TYPE_CHECKING:
    from robot_state_core.model.robot_model import RobotModel
    from robot_state_core.viewer.browser import HeadlessBrowser

NAME = 'viewer'
TITLE = 'robot_state_core browser-viewer benchmarks'
PARTS = ('startup', 'slider', 'follow')

#: Issue 28, fixed before the run: page-open to settled picture, Talos [s].
TARGET_TALOS_SETTLED_S = 5.0
#: Issue 28, fixed before the run: server-side slider updates per second, Talos.
TARGET_TALOS_SERVER_RATE = 10.0

STABLE_S = 0.3  # a settled picture stays unchanged this long [s]
STARTUP_POLL_S = 0.1  # pause between two screenshots while the page loads [s]
PAGE_TIMEOUT_S = 240.0  # longest wait for the URL, a settled page or a moved robot [s]
SERVER_VALUES = 30  # set_positions calls timed per robot (server-side drag)
#: Where in each joint's range the typed values lie (the i-th value of a joint uses the i-th).
SLIDER_FRACTIONS = (0.2, 0.8, 0.35, 0.65, 0.1, 0.9)

VENV = REPO_ROOT / '.venv'
PYTHON = str(VENV / 'bin' / 'python') if (VENV / 'bin' / 'python').exists() else sys.executable
WORKER_PROLOGUE = '''(() => {
  const Native = self.WebSocket;
  function Counting(...args) {
    const socket = new Native(...args);
    socket.addEventListener('message', (event) => {
      const d = event.data;
      self.postMessage({type: 'rsc_frame', t: performance.timeOrigin + performance.now(),
                        bytes: d.byteLength ?? d.size ?? d.length ?? 0});
    });
    return socket;
  }
  Counting.prototype = Native.prototype;
  Object.setPrototypeOf(Counting, Native);
  self.WebSocket = Counting;
})();
'''
'''Runs first in viser's websocket worker: reports each message (size, epoch ms) to the page.'''
COUNTER_JS = '''
window.__rsc = {frames: 0, log: [], raf: 0};
(() => {
  const prologue = PROLOGUE;
  const Native = window.Worker;
  function Counting(url, options) {
    let source = url;
    try {  // the worker's own code (a blob: URL), with the prologue in front
      const request = new XMLHttpRequest();
      request.open('GET', url, false);
      request.send();
      source = URL.createObjectURL(new Blob([prologue + request.responseText],
                                            {type: 'text/javascript'}));
    } catch (error) {
      console.warn('benchmark: websocket messages not counted', error);
    }
    const worker = new Native(source, options);
    worker.addEventListener('message', (event) => {
      const d = event.data;
      if (d && d.type === 'rsc_frame') {
        window.__rsc.frames += 1;
        window.__rsc.log.push([d.t, d.bytes]);
      }
    });
    return worker;
  }
  Counting.prototype = Native.prototype;
  Object.setPrototypeOf(Counting, Native);
  window.Worker = Counting;
  const tick = () => { window.__rsc.raf += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})();
'''.replace('PROLOGUE', json.dumps(WORKER_PROLOGUE))
'''Installed before each page loads: websocket messages (count; size and time each) and frames.'''
OVERLAYS_JS = '''(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('.mantine-Paper-root, .mantine-Notifications-root { opacity: 0 !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
})();'''
'''Installed before each page loads: the control panel and notifications transparent.'''
FOCUS_JS = '''(name) => {
  const label = Array.from(document.querySelectorAll('label')).find((l) => l.textContent === name);
  const slider = label && document.getElementById(label.htmlFor);
  const input = slider && slider.parentElement.querySelector('input:not([type="hidden"])');
  if (!input) return false;
  input.focus();
  input.select();
  return document.activeElement === input;
}'''
'''Focus and select the number box beside the slider labelled ``name`` (a joint's variable).'''


class _Child:
    """A child process whose output lines are collected by a thread (a context manager)."""

    def __init__(self, args: Sequence[str], env: dict[str, str]) -> None:
        self.start = time.monotonic()
        self.proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, cwd=REPO_ROOT)
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.all: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.all.append(line.rstrip())
            self.lines.put((time.monotonic(), line.rstrip()))

    def wait_for(self, pattern: str, timeout: float) -> tuple[float, re.Match[str]]:
        """The time and match of the next output line matching ``pattern``.

        Raises:
            RuntimeError: No such line within ``timeout`` seconds, or the child ended.
        """
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or (self.proc.poll() is not None and self.lines.empty()):
                raise RuntimeError(f'no line matching {pattern!r}; output: {self.all[-10:]}')
            try:
                t, line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            m = re.search(pattern, line)
            if m:
                return t, m

    def stop(self) -> None:
        """SIGINT, then kill after 10 s (also when the wait itself is interrupted)."""
        if self.proc.poll() is not None:
            return
        try:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> _Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _env(domain: int | None = None) -> dict[str, str]:
    env = dict(os.environ) if domain is None else dds_env(domain, VENV)
    return {**env, 'PYTHONPATH': str(REPO_ROOT), 'PYTHONUNBUFFERED': '1'}


@dataclass(frozen=True)
class _Robot:
    """One measured robot.

    Attributes:
        name: ``default robot``, ``Panda`` or ``Talos``.
        urdf: URDF file (``None``: the default robot).
        srdf: SRDF file.
        package_root: The directory holding the description's ROS packages.
        joints: The two arm joints the ``slider`` part types values into.
    """

    name: str
    urdf: Path | None
    srdf: Path | None
    package_root: Path | None
    joints: tuple[str, str]

    def view_args(self) -> list[str]:
        """The robot's arguments of ``robot-state-core view``."""
        if self.urdf is None:
            return []
        out = ['--urdf', str(self.urdf)]
        if self.srdf is not None:
            out += ['--srdf', str(self.srdf)]
        return out + ([] if self.package_root is None
                      else ['--package-root', str(self.package_root)])

    @cached_property
    def model(self) -> RobotModel:
        """The robot model (loaded once)."""
        from robot_state_core.io.default_robot import (
            default_robot_srdf_path,
            default_robot_urdf_path,
        )
        from robot_state_core.model.robot_model import RobotModel

        if self.urdf is None:
            return RobotModel.from_urdf_file(default_robot_urdf_path(),
                                             default_robot_srdf_path())
        roots = [] if self.package_root is None else [self.package_root]
        return RobotModel.from_urdf_file(self.urdf, self.srdf, package_roots=roots)

    @cached_property
    def label(self) -> str:
        """``Panda (13 links, 11 DAE, 135k triangles)``: links, visual meshes, triangles drawn."""
        from robot_state_core.geometry.shapes import Mesh
        from robot_state_core.viewer.scene_meshes import element_meshes

        model = self.model
        formats = Counter(Path(v.geometry.uri).suffix.lstrip('.').upper()
                          for link in model.links for v in link.visuals
                          if isinstance(v.geometry, Mesh))
        meshes = ', '.join(f'{n} {ext}' for ext, n in formats.most_common()) or 'no meshes'
        triangles = sum(len(e.faces) for e in element_meshes(model, 'visual')[0])
        k = f'{triangles / 1e3:.1f}k' if triangles < 10_000 else f'{triangles / 1e3:.0f}k'
        return f'{self.name} ({model.link_count} links, {meshes}, {k} triangles)'


def _robots() -> tuple[list[_Robot], str]:
    """The measured robots, and why Panda and Talos are missing ('' when they are not)."""
    sys.path.insert(0, str(REPO_ROOT / 'test'))
    try:
        import robot_corpus
    finally:
        sys.path.pop(0)
    out = [_Robot('default robot', None, None, None, ('shoulder_pan_joint', 'elbow_joint'))]
    for key, name, joints in (('panda', 'Panda', ('panda_joint2', 'panda_joint4')),
                              ('talos', 'Talos', ('arm_left_2_joint', 'arm_left_4_joint'))):
        try:
            r = robot_corpus.test_robot(key)
        except Exception as exc:  # example-robot-data missing: the default robot only
            return out, f'example-robot-data not available ({exc})'
        # Talos' URIs are package:///example-robot-data/...: the share directory's parent
        out.append(_Robot(name, r.urdf_path, r.srdf_path,
                          r.package_map['example-robot-data'].parent, joints))
    return out, ''


# ---------------------------------------------------------------------------- page helpers


def _settle(browser: HeadlessBrowser, since: float, poll: float,
            reference: bytes | None = None) -> tuple[float, float, bytes]:
    """Take screenshots until the picture settles (unchanged for :data:`STABLE_S`).

    Args:
        browser: The browser showing the page.
        since: When waiting started (``time.monotonic()``).
        poll: Pause between two screenshots [s].
        reference: The picture before a change: the settled picture must differ from it.
            Without one it must show a robot (> 1 % of the pixels differ from the background).

    Returns:
        ``(first, settled, png)``: when the first screenshot differing from ``reference``
        (without one: the first with a robot) and the first screenshot of the settled picture
        were taken (``time.monotonic()`` when each returned), and that picture.

    Raises:
        RuntimeError: Nothing settled within :data:`PAGE_TIMEOUT_S`.
    """
    from robot_state_core.viewer.snapshot import foreground_mask, png_pixels

    first: float | None = None
    run: bytes | None = None
    run_start, accepted = since, False
    while time.monotonic() - since < PAGE_TIMEOUT_S:
        png = browser.screenshot()
        now = time.monotonic()
        if png != run:
            run, run_start = png, now
            accepted = (png != reference if reference is not None
                        else float(foreground_mask(png_pixels(png)).mean()) > 0.01)
            if accepted and first is None:
                first = now
        elif accepted and now - run_start >= STABLE_S:
            assert first is not None
            return first, run_start, png
        time.sleep(poll)
    raise RuntimeError(f'the picture did not settle within {PAGE_TIMEOUT_S:.0f} s')


def _js_offset(browser: HeadlessBrowser) -> float:
    """``monotonic = page_ms / 1000 - offset`` for the page's ``timeOrigin + now()`` [s]."""
    before = time.monotonic()
    page_ms = float(browser.evaluate('performance.timeOrigin + performance.now()'))
    return page_ms / 1e3 - (before + time.monotonic()) / 2


def _med(values: Sequence[float], digits: int = 1, spread: bool = False) -> str:
    """Median, with ``[min–max]`` when ``spread`` and there is more than one value."""
    m = f'{np.median(values):.{digits}f}'
    if spread and len(values) > 1:
        m += f' [{min(values):.{digits}f}–{max(values):.{digits}f}]'
    return m


# ---------------------------------------------------------------------------- startup


@dataclass(frozen=True)
class _Startup:
    """One page start, times from the child's start [s]."""

    url: float
    opened: float
    drawn: float  # the first screenshot with a robot
    settled: float
    received: int  # websocket bytes before the picture settled
    messages: int  # websocket messages before the picture settled
    last: float  # the last of those messages (nan: none counted)


def _start_once(browser: HeadlessBrowser, robot: _Robot) -> _Startup:
    with _Child([PYTHON, '-m', 'robot_state_core', 'view', '--port', '0', *robot.view_args()],
                _env()) as child:
        t_url, m = child.wait_for(r'viewer: (http://\S+)', PAGE_TIMEOUT_S)
        browser.open(m.group(1))
        drawn, settled, _ = _settle(browser, time.monotonic(), STARTUP_POLL_S)
        offset = _js_offset(browser)
        page = browser.evaluate('({log: window.__rsc.log, opened: performance.timeOrigin + '
                                'performance.getEntriesByType("navigation")[0]'
                                '.domContentLoadedEventEnd})')
    browser.open('about:blank')
    before = [(t / 1e3 - offset, n) for t, n in page['log'] if t / 1e3 - offset <= settled]
    return _Startup(t_url - child.start, page['opened'] / 1e3 - offset - child.start,
                    drawn - child.start, settled - child.start, sum(n for _, n in before),
                    len(before),
                    max((t for t, _ in before), default=float('nan')) - child.start)


def bench_startup(settings: Settings, progress: Progress, robots: Sequence[_Robot],
                  missing: str) -> Section:
    from robot_state_core.viewer.browser import HeadlessBrowser

    repeats = 1 if settings.quick else 3
    table = Table(['robot', 'URL printed [s]', 'page opened [s]', 'picture settled [s]',
                   '**page-open to settled** [s]', 'websocket received before settled',
                   'page open to last message [s]', 'last message to settled [s]',
                   'of which: last message to robot first drawn [s]', 'runs'],
                  title='From `robot-state-core view` start (first three columns) to a settled '
                  'picture; medians' + (' [min–max]' if repeats > 1 else ''))
    targets = []
    with HeadlessBrowser(1024, 768) as browser:
        for script in (COUNTER_JS, OVERLAYS_JS):
            browser.command('Page.addScriptToEvaluateOnNewDocument', source=script)
        for robot in robots:
            runs = [_start_once(browser, robot) for _ in range(repeats)]
            headline = [r.settled - r.opened for r in runs]
            to_last = [r.last - r.opened for r in runs]
            render = [r.settled - r.last for r in runs]
            counted = all(r.messages for r in runs)
            progress.step(f'viewer      startup {robot.label}: page-open to settled '
                          f'{np.median(headline):.1f} s')
            table.add(robot.label, _med([r.url for r in runs]),
                      _med([r.opened for r in runs]), _med([r.settled for r in runs]),
                      f'**{_med(headline, spread=True)}**',
                      (f'{fmt_bytes(float(np.median([r.received for r in runs])))} in '
                       f'{np.median([r.messages for r in runs]):.0f} messages')
                      if counted else 'not counted',
                      _med(to_last, 2, True) if counted else 'n/a',
                      _med(render, 2, True) if counted else 'n/a',
                      _med([r.drawn - r.last for r in runs], 2, True) if counted else 'n/a',
                      repeats)
            measured = f'{_med(headline, spread=True)} s'
            if robot.name == 'Talos':
                targets.append(Target(
                    'viewer', f'{robot.label}: page-open to settled '
                    f'≤ {TARGET_TALOS_SETTLED_S:.0f} s (issue 28)', measured,
                    bool(np.median(headline) <= TARGET_TALOS_SETTLED_S)))
            else:
                targets.append(Target('viewer', f'{robot.label}: page-open to settled',
                                      measured, None, 'measured, no target'))
    if missing:
        targets.append(Target('viewer', 'Talos: page-open to settled '
                              f'≤ {TARGET_TALOS_SETTLED_S:.0f} s (issue 28)', 'not run', None,
                              missing))
    return Section('Page-open to settled picture', tables=[table], targets=targets, notes=[
        "Page opened: the page's `DOMContentLoaded` (navigation done); the browser opens the "
        'URL as soon as it is printed. Settled: the first screenshot with > 1 % robot pixels '
        f'that stays unchanged for {STABLE_S} s (screenshots every {STARTUP_POLL_S} s plus '
        'their own time, so the times are upper bounds by up to ~0.2 s). The control panel '
        'and notifications are transparent: the screenshots compare the 3D view only.',
        "Websocket: the messages viser's page received (in its Web Worker) up to the settled "
        'picture; "last message to settled" is the page decoding, building and rendering the '
        'scene (software WebGL): up to the first screenshot with a robot, then until the '
        'picture stops changing (e.g. labels drawn later).'])


# ---------------------------------------------------------------------------- slider


def _slider_values(model: RobotModel, joints: Sequence[str], count: int) -> list[tuple[str, str]]:
    """``count`` (joint, typed text) pairs alternating between ``joints``, distinct values."""
    out = []
    for k in range(count):
        joint = joints[k % len(joints)]
        i = model.variable_names.index(joint)
        lo, hi = float(model.variable_lower[i]), float(model.variable_upper[i])
        out.append((joint, f'{lo + SLIDER_FRACTIONS[k // len(joints)] * (hi - lo):.2f}'))
    return out


def _type_values(browser: HeadlessBrowser, robot: _Robot, values: Sequence[tuple[str, str]]
                 ) -> tuple[list[float], list[float], list[float]]:
    """Open the page, then type each value; seconds to the first change, to settled, per shot."""
    first, settled, shots = [], [], []
    with _Child([PYTHON, '-m', 'robot_state_core', 'view', '--port', '0', *robot.view_args()],
                _env()) as child:
        _, m = child.wait_for(r'viewer: (http://\S+)', PAGE_TIMEOUT_S)
        browser.open(m.group(1))
        _, _, picture = _settle(browser, time.monotonic(), STARTUP_POLL_S)
        for joint, text in values:
            if not browser.evaluate(f'({FOCUS_JS})({json.dumps(joint)})'):
                raise RuntimeError(f'no number box beside the slider {joint!r}')
            t0 = time.monotonic()
            browser.command('Input.insertText', text=text)
            t1, t2, picture = _settle(browser, t0, 0.0, reference=picture)
            typed = browser.evaluate('document.activeElement.value')
            if float(typed or 'nan') != float(text):
                raise RuntimeError(f'typed {text!r} into {joint!r}, the box shows {typed!r}')
            first.append(t1 - t0)
            settled.append(t2 - t0)
        for _ in range(5):
            t0 = time.monotonic()
            browser.screenshot()
            shots.append(time.monotonic() - t0)
    browser.open('about:blank')
    return first, settled, shots


def _server_rate(robot: _Robot, count: int) -> list[float]:
    """Seconds per ``RobotViewer.set_positions`` call over ``count`` values of one joint."""
    from robot_state_core.viewer.app import RobotViewer

    model = robot.model
    joint = robot.joints[0]
    i = model.variable_names.index(joint)
    lo, hi = float(model.variable_lower[i]), float(model.variable_upper[i])
    values = lo + (hi - lo) * (np.arange(count) + 0.5) / count
    times = []
    with RobotViewer(model, port=0, controls=True) as viewer:
        viewer.set_positions({joint: hi})  # warm-up: kernels, first collision check
        for v in values:
            t0 = time.perf_counter()
            viewer.set_positions({joint: float(v)})
            times.append(time.perf_counter() - t0)
    return times


def bench_slider(settings: Settings, progress: Progress, robots: Sequence[_Robot],
                 missing: str) -> Section:
    from robot_state_core.viewer.browser import HeadlessBrowser

    count = 3 if settings.quick else 6
    page = Table(['robot', 'values typed', 'typed → robot moved [s]', 'typed → settled [s]',
                  'screenshot takes [s]'],
                 title=f'Typing a joint value in the page ({count} distinct values, '
                 'median [min–max])')
    server = Table(['robot', 'joint', 'per update [ms]', '**updates/s**'],
                   title=f'Server side, no browser: `RobotViewer.set_positions` for '
                   f'{SERVER_VALUES} values of one joint, median [min–max]')
    targets = []
    with HeadlessBrowser(1024, 768) as browser:
        browser.command('Page.addScriptToEvaluateOnNewDocument', source=OVERLAYS_JS)
        for robot in robots:
            values = _slider_values(robot.model, robot.joints, count)
            first, settled, shots = _type_values(browser, robot, values)
            progress.step(f'viewer      slider {robot.label}: typed → moved '
                          f'{np.median(first):.2f} s, settled {np.median(settled):.2f} s')
            page.add(robot.label, ', '.join(f'{j} {t}' for j, t in values),
                     _med(first, 2, True), _med(settled, 2, True), _med(shots, 2))
            targets.append(Target('viewer', f'{robot.label}: slider value typed to settled '
                                  'picture', f'{_med(settled, 2, True)} s', None,
                                  'measured, no target'))
    for robot in robots:
        times = _server_rate(robot, SERVER_VALUES)
        rate = len(times) / sum(times)
        progress.step(f'viewer      slider {robot.label}: server {rate:.1f} updates/s')
        server.add(robot.label, robot.joints[0], _med([1e3 * t for t in times], 1, True),
                   f'**{rate:.1f}**')
        measured = f'{rate:.1f} updates/s'
        if robot.name == 'Talos':
            targets.append(Target(
                'viewer', f'{robot.label}: server-side slider updates '
                f'≥ {TARGET_TALOS_SERVER_RATE:.0f}/s (issue 28)', measured,
                rate >= TARGET_TALOS_SERVER_RATE))
        else:
            targets.append(Target('viewer', f'{robot.label}: server-side slider updates',
                                  measured, None, 'measured, no target'))
    if missing:
        targets.append(Target('viewer', 'Talos: server-side slider updates '
                              f'≥ {TARGET_TALOS_SERVER_RATE:.0f}/s (issue 28)', 'not run',
                              None, missing))
    return Section('Slider to picture', tables=[page, server], targets=targets, notes=[
        "In the page: the number box beside the joint's slider (found by its label, the "
        'variable name) is focused and selected and the value typed with `Input.insertText`; '
        'the page sends it to the viewer, which moves the robot and sends the new poses (the '
        'box is checked to show the value afterwards). The control panel is transparent '
        '(opacity 0) so that only the 3D view is compared. Screenshots are taken back to '
        'back, so the times are upper bounds by about one screenshot. Settled: unchanged for '
        f'{STABLE_S} s after the first screenshot of the final picture.',
        'Server side: one warm-up call first (not timed); each call runs FK, sends the link '
        'poses and evaluates collisions; no page is connected.'])


# ---------------------------------------------------------------------------- follow


def bench_follow(settings: Settings, progress: Progress) -> Section:
    import domain_coordinator

    from robot_state_core.viewer.browser import HeadlessBrowser

    window = 5.0 if settings.quick else 15.0
    counters = '({frames: window.__rsc.frames, raf: window.__rsc.raf})'
    with domain_coordinator.domain_id() as domain, HeadlessBrowser(1024, 768) as browser:
        env = _env(int(domain))
        with _Child([PYTHON, '-m', 'robot_state_core', 'view', '--ros', '--port', '0'],
                    env) as view:
            _, m = view.wait_for(r'viewer: (http://\S+)', PAGE_TIMEOUT_S)
            browser.command('Page.addScriptToEvaluateOnNewDocument', source=COUNTER_JS)
            browser.open(m.group(1))
            _settle(browser, time.monotonic(), STARTUP_POLL_S)
            with _Child([PYTHON, str(Path(__file__).resolve()), '--publisher', '--rate', '100',
                         '--duration', str(window + 40)], env) as source:
                source.wait_for('publishing', 60.0)
                view.wait_for(r'joint_states +[1-9]', 60.0)  # the viewer is following
                c0, t0 = browser.evaluate(counters), time.monotonic()
                rates: list[tuple[float, float]] = []
                while time.monotonic() - t0 < window:
                    _, s = view.wait_for(r'joint_states +([\d.]+) Hz \| page updates +([\d.]+)',
                                         window + 10)
                    rates.append((float(s.group(1)), float(s.group(2))))
                c1, t1 = browser.evaluate(counters), time.monotonic()
    dt = t1 - t0
    ws = (c1['frames'] - c0['frames']) / dt
    raf = (c1['raf'] - c0['raf']) / dt
    js = float(np.mean([r[0] for r in rates])) if rates else float('nan')
    sent = float(np.mean([r[1] for r in rates])) if rates else float('nan')
    shown = min(ws, raf)
    progress.step(f'viewer      follow: joint_states {js:.0f} Hz, sent {sent:.0f}/s, page ws '
                  f'{ws:.0f}/s, rendered {raf:.0f} fps')
    table = Table(['quantity', 'per second'],
                  title=f'Following 100 Hz joint_states (default robot, {dt:.0f} s window)')
    table.add('joint_states received by the viewer', f'{js:.1f}')
    table.add('page updates sent (link poses; collisions every 0.1 s)', f'{sent:.1f}')
    table.add("websocket messages received by the page (in viser's worker)", f'{ws:.1f}')
    table.add('frames rendered by the page (requestAnimationFrame)', f'{raf:.1f}')
    table.add('**page updates shown** = min(received, rendered)', f'**{shown:.1f}**')
    return Section('Update rate while following joint_states', tables=[table],
                   targets=[Target('viewer', 'page update rate at 100 Hz joint_states',
                                   f'{shown:.1f} fps', None, 'measured, no target')])


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Run the selected parts (``startup``, ``slider``, ``follow``); their report sections."""
    from robot_state_core.viewer.browser import find_chromium

    if find_chromium() is None:
        return [Section('Viewer benchmarks skipped', 'Chromium is not installed.',
                        targets=[Target('viewer', 'all', 'not run', None, 'no Chromium')])]
    robots, missing = _robots() if {'startup', 'slider'} & set(parts) else ([], '')
    sections = []
    if 'startup' in parts:
        sections.append(bench_startup(settings, progress, robots, missing))
    if 'slider' in parts:
        sections.append(bench_slider(settings, progress, robots, missing))
    if 'follow' in parts:
        sections.append(bench_follow(settings, progress))
    return sections


def _publisher(rate: float, duration: float) -> int:
    import rclpy
    from sensor_msgs.msg import JointState

    from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
    from robot_state_core.model.robot_model import RobotModel
    from robot_state_core.publishing.joint_sweep import JointSweep

    sweep = JointSweep(RobotModel.from_urdf_file(default_robot_urdf_path(),
                                                 default_robot_srdf_path()))
    rclpy.init()
    node = rclpy.create_node('bench_joint_states')
    pub = node.create_publisher(JointState, 'joint_states', 10)
    start = time.monotonic()

    def tick() -> None:
        names, positions = sweep.sample(time.monotonic() - start)
        msg = JointState(name=list(names), position=positions.tolist())
        msg.header.stamp = node.get_clock().now().to_msg()
        pub.publish(msg)
    node.create_timer(1.0 / rate, tick)
    print('publishing', flush=True)
    try:
        while rclpy.ok() and time.monotonic() - start < duration:
            rclpy.spin_once(node, timeout_sec=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='child role of bench_viewer.py')
    parser.add_argument('--publisher', action='store_true', required=True)
    parser.add_argument('--rate', type=float, default=100.0)
    parser.add_argument('--duration', type=float, default=60.0)
    a = parser.parse_args()
    sys.exit(_publisher(a.rate, a.duration))
