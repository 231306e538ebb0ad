"""Headless Chromium through the DevTools protocol: load a page, run script, take screenshots.

Used by ``robot-state-core snapshot`` (and the browser tests) to look at the viewer page the way
a person does. Chromium runs headless with software WebGL (SwiftShader), so no GPU or display
is needed; the Debian package ``chromium`` is what the project's set-up installs.

The browser is found as ``$RSC_CHROMIUM``, else ``chromium``, ``chromium-browser``,
``google-chrome`` on the ``PATH``. Without one, :class:`HeadlessBrowser` raises
:class:`~robot_state_core.errors.BackendUnavailableError` saying how to install it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from pathlib import Path
import shutil
import subprocess
import tempfile
import time
from typing import Any

from websockets.sync.client import ClientConnection, connect

from robot_state_core.errors import BackendUnavailableError, InvalidArgumentError

__all__ = ['CHROMIUM_FLAGS', 'HeadlessBrowser', 'find_chromium']

CHROMIUM_CANDIDATES = ('chromium', 'chromium-browser', 'google-chrome')
CHROMIUM_FLAGS = ('--headless=new', '--no-sandbox', '--disable-gpu', '--use-gl=swiftshader',
                  '--enable-unsafe-swiftshader', '--hide-scrollbars', '--mute-audio',
                  '--no-first-run', '--no-default-browser-check',
                  '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
                  '--disable-backgrounding-occluded-windows')
'''Flags of the headless browser: software WebGL, no sandbox (root in CI), no throttling.'''
INSTALL_HINT = ('install Chromium (Debian/Ubuntu: `apt-get install -y chromium`, which the '
                'set-up step tools/setup_env.py does when run as root) or point RSC_CHROMIUM at '
                'a Chromium/Chrome executable')


def find_chromium() -> str | None:
    """Path of a Chromium executable (``$RSC_CHROMIUM`` first), or ``None``."""
    explicit = os.environ.get('RSC_CHROMIUM')
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class HeadlessBrowser:
    """One headless Chromium with one page, driven over the DevTools protocol.

    Args:
        width: Viewport width [px].
        height: Viewport height [px].
        executable: Browser executable (default: :func:`find_chromium`).
        timeout: Seconds to wait for the browser to start and for each command.

    Raises:
        BackendUnavailableError: No Chromium found, or it did not start.
        InvalidArgumentError: Non-positive size.
    """

    def __init__(self, width: int = 1024, height: int = 768, *, executable: str | None = None,
                 timeout: float = 30.0) -> None:
        if width <= 0 or height <= 0:
            raise InvalidArgumentError(f'HeadlessBrowser: size must be positive, got '
                                       f'{width}x{height}')
        exe = executable or find_chromium()
        if exe is None:
            raise BackendUnavailableError(f'no Chromium browser found: {INSTALL_HINT}')
        self.width, self.height, self.timeout = int(width), int(height), float(timeout)
        self._profile = tempfile.mkdtemp(prefix='rsc-chromium-')
        self._next_id = 0
        self._ws: ClientConnection | None = None
        try:
            self._process = subprocess.Popen(
                [exe, *CHROMIUM_FLAGS, '--remote-debugging-port=0',
                 f'--user-data-dir={self._profile}', f'--window-size={width},{height}',
                 'about:blank'],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError as exc:
            shutil.rmtree(self._profile, ignore_errors=True)
            raise BackendUnavailableError(f'could not start {exe}: {exc}; {INSTALL_HINT}') \
                from exc
        try:
            self._connect()
            self._session = self._attach_page()
            self.command('Page.enable')
            self.command('Runtime.enable')
            self.command('Emulation.setDeviceMetricsOverride', width=self.width,
                         height=self.height, deviceScaleFactor=1, mobile=False)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ protocol

    def _connect(self) -> None:
        port_file = Path(self._profile) / 'DevToolsActivePort'
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise BackendUnavailableError(
                    f'Chromium exited at start (exit code {self._process.returncode})')
            if port_file.is_file():
                lines = port_file.read_text().split()
                if len(lines) >= 2:
                    self._ws = connect(f'ws://127.0.0.1:{lines[0]}{lines[1]}', max_size=None,
                                       open_timeout=self.timeout)
                    return
            time.sleep(0.05)
        raise BackendUnavailableError(f'Chromium did not open its DevTools port within '
                                      f'{self.timeout:.0f} s')

    def _send(self, method: str, params: dict[str, Any], session: str | None) -> Any:
        assert self._ws is not None
        self._next_id += 1
        ident = self._next_id
        message: dict[str, Any] = {'id': ident, 'method': method, 'params': params}
        if session is not None:
            message['sessionId'] = session
        self._ws.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f'Chromium did not answer {method} within '
                                   f'{self.timeout:.0f} s')
            reply = json.loads(self._ws.recv(timeout=left))
            if reply.get('id') == ident:
                if 'error' in reply:
                    raise RuntimeError(f"Chromium {method}: {reply['error'].get('message')}")
                return reply.get('result', {})

    def _attach_page(self) -> str:
        targets = self._send('Target.getTargets', {}, None)['targetInfos']
        pages = [t for t in targets if t.get('type') == 'page']
        target = pages[0]['targetId'] if pages else self._send(
            'Target.createTarget', {'url': 'about:blank'}, None)['targetId']
        return str(self._send('Target.attachToTarget', {'targetId': target, 'flatten': True},
                              None)['sessionId'])

    def command(self, method: str, **params: Any) -> Any:
        """Send a DevTools command to the page and return its result (a dict)."""
        return self._send(method, params, self._session)

    # ------------------------------------------------------------------ page

    def open(self, url: str) -> None:
        """Navigate to ``url``; returns when the new document is parsed (``readyState``).

        Raises:
            RuntimeError: The navigation failed (e.g. nothing listens at ``url``).
            TimeoutError: The document did not load within the timeout.
        """
        result = self.command('Page.navigate', url=url)
        if result.get('errorText'):
            raise RuntimeError(f"could not open {url}: {result['errorText']}")
        # A cross-site navigation swaps the renderer process: until the new document exists,
        # commands to the page may fail ("not attached"), so wait for it.
        self.wait_for('document.readyState !== "loading" && location.href !== "about:blank"'
                      if url != 'about:blank' else 'document.readyState !== "loading"',
                      timeout=self.timeout)

    def evaluate(self, expression: str) -> Any:
        """Evaluate a JavaScript expression in the page; returns its (JSON) value."""
        result = self.command('Runtime.evaluate', expression=expression, returnByValue=True,
                              awaitPromise=True)
        if 'exceptionDetails' in result:
            details = result['exceptionDetails']
            what = details.get('exception', {}).get('description') or details.get('text')
            raise RuntimeError(f'page script failed: {what}')
        return result.get('result', {}).get('value')

    def wait_for(self, expression: str, timeout: float = 20.0, poll: float = 0.1) -> Any:
        """Evaluate ``expression`` until it is truthy; returns its value.

        Raises:
            TimeoutError: Still falsy after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except (RuntimeError, TimeoutError):  # the page is between documents
                value = None
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(f'page condition not met within {timeout:.0f} s: '
                                   f'{expression}')
            time.sleep(poll)

    def screenshot(self) -> bytes:
        """A PNG of the viewport."""
        data = self.command('Page.captureScreenshot', format='png', fromSurface=True)['data']
        return base64.b64decode(data)

    def add_style(self, css: str) -> None:
        """Add a ``<style>`` element with ``css`` to the page."""
        self.evaluate('(() => { const s = document.createElement("style"); '
                      f's.textContent = {json.dumps(css)}; document.head.appendChild(s); '
                      'return true; })()')

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Close the browser and remove its temporary profile (idempotent)."""
        if self._ws is not None:
            with contextlib.suppress(Exception):  # the browser may already be gone
                self._send('Browser.close', {}, None)
            with contextlib.suppress(Exception):
                self._ws.close()
            self._ws = None
        process = getattr(self, '_process', None)
        if process is not None and process.poll() is None:
            try:
                process.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5.0)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> HeadlessBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
