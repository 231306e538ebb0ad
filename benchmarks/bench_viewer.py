"""Browser-viewer benchmarks: time until the page shows the robot, update rate while following.

* ``startup``: ``robot-state-core view`` is started as a child process (the default robot, and
  Panda from example-robot-data); a headless Chromium that is already running (as a person's
  browser would be) opens the printed URL. Measured from the child's start: the URL printed, and
  the robot shown (the first screenshot with robot pixels that a second screenshot 0.3 s later
  confirms unchanged; the screenshots poll continuously).
* ``follow``: ``robot-state-core view --ros`` follows ``joint_states`` published at 100 Hz by
  another child (every active joint sweeping). Measured over a window: joint_states received
  and page updates sent per second (the viewer's own status line), and in the page,
  websocket messages received and frames rendered per second (``requestAnimationFrame``
  callbacks), counted by a script the browser installs before the page loads. The page shows a
  new pose at most at min(updates received, frames rendered) per second.

Chromium renders with SwiftShader (software WebGL) on the machine's 2 cores, shared with the
viewer, the publisher and anything else running; rendered frames per second are a floor for a
machine with a GPU.

Run through ``benchmarks/run.py`` (``--module viewer``, ``--only startup|follow``, ``--quick``).
``--publisher`` is this file's child role (the 100 Hz joint_states source).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import os
from pathlib import Path
import queue
import re
import signal
import subprocess
import sys
import threading
import time

from common import dds_env, Progress, REPO_ROOT, Section, Settings, Table, Target
import numpy as np

NAME = 'viewer'
TITLE = 'robot_state_core browser-viewer benchmarks'
PARTS = ('startup', 'follow')

VENV = REPO_ROOT / '.venv'
PYTHON = str(VENV / 'bin' / 'python') if (VENV / 'bin' / 'python').exists() else sys.executable
COUNTER_JS = '''
window.__rsc = {ws: 0, worker: 0, raf: 0};
(() => {
  const wrap = (Native, key) => {
    function Counting(...args) {
      const target = new Native(...args);
      target.addEventListener('message', () => { window.__rsc[key] += 1; });
      return target;
    }
    Counting.prototype = Native.prototype;
    Object.setPrototypeOf(Counting, Native);
    return Counting;
  };
  window.WebSocket = wrap(window.WebSocket, 'ws');
  window.Worker = wrap(window.Worker, 'worker');
  const tick = () => { window.__rsc.raf += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})();
'''


class _Child:
    """A child process whose output lines are collected by a thread."""

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
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _env(domain: int | None = None) -> dict[str, str]:
    env = dict(os.environ) if domain is None else dds_env(domain, VENV)
    return {**env, 'PYTHONPATH': str(REPO_ROOT), 'PYTHONUNBUFFERED': '1'}


def _robots() -> list[tuple[str, list[str]]]:
    """``(name, view arguments)`` of the measured robots."""
    out = [('default robot (18 links, 2 STL)', [])]
    try:
        sys.path.insert(0, str(REPO_ROOT / 'test'))
        import robot_corpus

        r = robot_corpus.test_robot('panda')
        share = r.package_map['example-robot-data'].parent
        out.append(('Panda (13 links, 11 DAE, 135k triangles)',
                    ['--urdf', str(r.urdf_path), '--srdf', str(r.srdf_path),
                     '--package-root', str(share)]))
    except Exception:  # example-robot-data missing: the default robot only
        pass
    return out


def _shown(browser: object, url: str, start: float, timeout: float = 120.0) -> float:
    """Seconds from ``start`` until the page at ``url`` shows a stable picture with a robot."""
    from robot_state_core.viewer.snapshot import foreground_mask, png_pixels

    browser.open(url)  # type: ignore[attr-defined]
    previous: bytes | None = None
    seen_at = start
    while time.monotonic() - start < timeout:
        png = browser.screenshot()  # type: ignore[attr-defined]
        if png == previous and float(foreground_mask(png_pixels(png)).mean()) > 0.01:
            return seen_at - start  # when this (now confirmed) picture first appeared
        seen_at, previous = time.monotonic(), png
        time.sleep(0.3)
    raise RuntimeError(f'the robot was not shown within {timeout:.0f} s')


def bench_startup(settings: Settings, progress: Progress) -> Section:
    from robot_state_core.viewer.browser import HeadlessBrowser

    repeats = 1 if settings.quick else 3
    table = Table(['robot', 'URL printed [s]', 'robot shown in the page [s]', 'runs'],
                  title='From `robot-state-core view` start to the robot on screen')
    targets = []
    with HeadlessBrowser(1024, 768) as browser:
        for name, args in _robots():
            printed, shown = [], []
            for _ in range(repeats):
                child = _Child([PYTHON, '-m', 'robot_state_core', 'view', '--port', '0',
                                *args], _env())
                try:
                    t_url, m = child.wait_for(r'viewer: (http://\S+)', 120.0)
                    printed.append(t_url - child.start)
                    shown.append(_shown(browser, m.group(1), child.start))
                finally:
                    child.stop()
                browser.open('about:blank')
            progress.step(f'viewer      startup {name}: shown after {np.median(shown):.1f} s')
            table.add(name, f'{np.median(printed):.1f}', f'{np.median(shown):.1f} '
                      f'(min {min(shown):.1f}, max {max(shown):.1f})', repeats)
            targets.append(Target('viewer', f'time to robot shown, {name}',
                                  f'{np.median(shown):.1f} s', None, 'measured, no target'))
    return Section('Time until the robot is shown', tables=[table], targets=targets,
                   notes=['A stable picture: the first of two identical screenshots 0.3 s '
                          'apart, each with > 1 % robot pixels.'])


def bench_follow(settings: Settings, progress: Progress) -> Section:
    import domain_coordinator

    from robot_state_core.viewer.browser import HeadlessBrowser

    window = 5.0 if settings.quick else 15.0
    with domain_coordinator.domain_id() as domain, HeadlessBrowser(1024, 768) as browser:
        env = _env(int(domain))
        view = _Child([PYTHON, '-m', 'robot_state_core', 'view', '--ros', '--port', '0'],
                      env)
        source = None
        try:
            _, m = view.wait_for(r'viewer: (http://\S+)', 120.0)
            browser.command('Page.addScriptToEvaluateOnNewDocument', source=COUNTER_JS)
            _shown(browser, m.group(1), time.monotonic())
            source = _Child([PYTHON, str(Path(__file__).resolve()), '--publisher', '--rate',
                             '100', '--duration', str(window + 40)], env)
            source.wait_for('publishing', 60.0)
            view.wait_for(r'joint_states +[1-9]', 60.0)  # the viewer is following
            c0, t0 = browser.evaluate('window.__rsc'), time.monotonic()
            rates: list[tuple[float, float]] = []
            while time.monotonic() - t0 < window:
                _, s = view.wait_for(r'joint_states +([\d.]+) Hz \| page updates +([\d.]+)',
                                     window + 10)
                rates.append((float(s.group(1)), float(s.group(2))))
            c1, t1 = browser.evaluate('window.__rsc'), time.monotonic()
        finally:
            if source is not None:
                source.stop()
            view.stop()
    dt = t1 - t0
    # viser's client may receive in a Web Worker, which posts each batch to the page
    ws = (c1['ws'] + c1['worker'] - c0['ws'] - c0['worker']) / dt
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
    table.add('update batches received by the page (websocket or its worker)', f'{ws:.1f}')
    table.add('frames rendered by the page (requestAnimationFrame)', f'{raf:.1f}')
    table.add('**page updates shown** = min(received, rendered)', f'**{shown:.1f}**')
    return Section('Update rate while following joint_states', tables=[table],
                   targets=[Target('viewer', 'page update rate at 100 Hz joint_states',
                                   f'{shown:.1f} fps', None, 'measured, no target')])


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Run the selected parts (``startup``, ``follow``) and return their report sections."""
    from robot_state_core.viewer.browser import find_chromium

    if find_chromium() is None:
        return [Section('Viewer benchmarks skipped', 'Chromium is not installed.',
                        targets=[Target('viewer', 'all', 'not run', None, 'no Chromium')])]
    sections = []
    if 'startup' in parts:
        sections.append(bench_startup(settings, progress))
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
