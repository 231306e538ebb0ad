"""Snapshots: the viewer page as a person sees it, rendered by a headless browser to a PNG.

:func:`page_screenshot` opens a :class:`~robot_state_core.viewer.app.RobotViewer` page in a
:class:`~robot_state_core.viewer.browser.HeadlessBrowser`, hides the page's overlays (control
panel, notifications, orientation widget) when asked, and waits until the drawing is stable:
two consecutive screenshots :data:`STABLE_INTERVAL_S` apart are identical and the robot is
drawn (some pixels differ from the background).
"""

from __future__ import annotations

from dataclasses import dataclass
import io
import time

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from robot_state_core.viewer.app import RobotViewer
from robot_state_core.viewer.browser import HeadlessBrowser

__all__ = ['HIDE_OVERLAYS_CSS', 'PageShot', 'foreground_mask', 'page_screenshot', 'png_pixels']

HIDE_OVERLAYS_CSS = ('.mantine-Notifications-root, .mantine-Paper-root '
                     '{ display: none !important; }')
'''CSS that leaves only the 3D view: hides the control panel and the notifications.'''
BACKGROUND_RGB = (255, 255, 255)
'''The page's background colour (viser's light theme).'''
STABLE_INTERVAL_S = 0.3


@dataclass(frozen=True)
class PageShot:
    """A screenshot of the viewer page.

    Attributes:
        png: The PNG file contents.
        width: Image width [px].
        height: Image height [px].
        foreground_fraction: Fraction of pixels that differ from the background (robot, world).
        connect_s: Seconds from the start of the call until the page connected.
        shown_s: Seconds from the start of the call until the stable picture was taken.
    """

    png: bytes
    width: int
    height: int
    foreground_fraction: float
    connect_s: float
    shown_s: float


def png_pixels(png: bytes) -> NDArray[np.uint8]:
    """``(H, W, 3)`` RGB pixels of a PNG."""
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert('RGB'), dtype=np.uint8)


def foreground_mask(rgb: NDArray[np.uint8], tolerance: int = 12) -> NDArray[np.bool_]:
    """``(H, W)`` pixels that differ from :data:`BACKGROUND_RGB` by more than ``tolerance``."""
    diff = np.abs(rgb.astype(np.int16) - np.array(BACKGROUND_RGB, dtype=np.int16))
    mask: NDArray[np.bool_] = diff.max(axis=-1) > tolerance
    return mask


def page_screenshot(viewer: RobotViewer, browser: HeadlessBrowser, *,
                    hide_overlays: bool = True, timeout: float = 60.0,
                    reload: bool = True) -> PageShot:
    """Open (or reuse) the viewer page in ``browser`` and return a stable screenshot.

    Args:
        viewer: The viewer whose page to take.
        browser: The browser (its viewport size is the image size).
        hide_overlays: Hide the control panel and notifications (snapshots for READMEs).
        timeout: Seconds to wait for the page to connect and settle.
        reload: Navigate to the page (False: the browser already shows it).

    Returns:
        The screenshot and how long the page took.

    Raises:
        TimeoutError: The page did not connect, or the picture did not settle, in time.
    """
    start = time.monotonic()
    if reload:
        browser.open(viewer.url)
    if not viewer.wait_for_client(timeout):
        raise TimeoutError(f'the viewer page {viewer.url} did not connect within {timeout:.0f} s')
    connect_s = time.monotonic() - start
    if hide_overlays:
        browser.add_style(HIDE_OVERLAYS_CSS)
    viewer.server.flush()
    previous: bytes | None = None
    while True:
        png = browser.screenshot()
        pixels = png_pixels(png)
        fraction = float(foreground_mask(pixels).mean())
        if png == previous and fraction > 0.0:
            h, w = pixels.shape[:2]
            return PageShot(png, w, h, fraction, connect_s, time.monotonic() - start)
        if time.monotonic() - start > timeout:
            raise TimeoutError(f'the viewer page did not settle within {timeout:.0f} s')
        previous = png
        time.sleep(STABLE_INTERVAL_S)
