"""Camera framing for the viewer: where to put a pinhole camera so that given points fill the view.

Pure math over arrays (no browser, no viser). Conventions: the world is +z up; a view
direction ``d`` is the unit vector from the looked-at point towards the camera, given by an
azimuth (about +z, from +x) and an elevation (above the xy plane). The camera's right axis is
``forward x z`` and its up axis ``right x forward`` (a level camera, as viser's orbit controls).
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import FloatArray
from robot_state_core.errors import InvalidArgumentError

__all__ = ['DEFAULT_AZIMUTH_DEG', 'DEFAULT_ELEVATION_DEG', 'CameraPose', 'bounding_sphere_view',
           'direction_from_angles', 'fit_view']

DEFAULT_AZIMUTH_DEG = 36.87
'''Azimuth [deg] of the viewer's initial view direction (from +x about +z).'''
DEFAULT_ELEVATION_DEG = 21.8
'''Elevation [deg] of the viewer's initial view direction.'''

MAX_ELEVATION_DEG = 89.0
'''Steepest elevation [deg] a level camera is given (straight down has no defined right axis).'''


@dataclass(frozen=True)
class CameraPose:
    """A camera placement.

    Attributes:
        position: ``(3,)`` camera position in the world [m].
        look_at: ``(3,)`` the point the camera looks at [m].
    """

    position: FloatArray
    look_at: FloatArray


def direction_from_angles(azimuth_deg: float, elevation_deg: float) -> FloatArray:
    """Unit view direction (look-at point -> camera) for an azimuth and elevation [deg].

    The elevation is clamped to ``±MAX_ELEVATION_DEG``.
    """
    el = math.radians(float(np.clip(elevation_deg, -MAX_ELEVATION_DEG, MAX_ELEVATION_DEG)))
    az = math.radians(float(azimuth_deg))
    return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def _axes(direction: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Unit ``(d, right, up)`` of a level camera looking along ``-d``."""
    d = direction / np.linalg.norm(direction)
    right = np.cross(-d, (0.0, 0.0, 1.0))
    if np.linalg.norm(right) < 1e-9:  # looking straight up or down
        right = np.array([0.0, -1.0, 0.0]) if d[2] > 0 else np.array([0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    return d, right, np.cross(right, -d)


def _check(points: ArrayLike, direction: ArrayLike, fov_y: float, aspect: float
           ) -> tuple[FloatArray, FloatArray]:
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    d = np.asarray(direction, dtype=np.float64).reshape(3)
    if len(p) == 0 or not np.all(np.isfinite(p)):
        raise InvalidArgumentError('fit_view: points must be a non-empty finite (N, 3) array')
    if not (np.linalg.norm(d) > 0 and np.all(np.isfinite(d))):
        raise InvalidArgumentError(f'fit_view: invalid view direction {direction!r}')
    if not (0.0 < fov_y < math.pi and aspect > 0.0):
        raise InvalidArgumentError(f'fit_view: invalid fov {fov_y!r} or aspect {aspect!r}')
    return p, d


def fit_view(points: ArrayLike, direction: ArrayLike, *, fov_y: float, aspect: float,
             fill: float = 0.9) -> CameraPose:
    """The closest camera along ``direction`` whose picture holds every point, centred.

    The projected points span ``fill`` of the picture's width or height (whichever binds) and
    their projected extent is centred in the picture.

    Args:
        points: ``(N, 3)`` world points to frame [m].
        direction: ``(3,)`` view direction (look-at point -> camera).
        fov_y: Vertical field of view [rad].
        aspect: Picture width / height.
        fill: Fraction of the binding picture dimension the points span, in (0, 1].

    Returns:
        The camera placement.

    Raises:
        InvalidArgumentError: Empty or non-finite points, a zero direction, a bad fov, aspect
            or fill.
    """
    p, d = _check(points, direction, fov_y, aspect)
    if not (0.0 < fill <= 1.0):
        raise InvalidArgumentError(f'fit_view: fill must be in (0, 1], got {fill!r}')
    d, right, up = _axes(d)
    ty = fill * math.tan(0.5 * fov_y)
    tx = ty * aspect
    centre = 0.5 * (p.min(axis=0) + p.max(axis=0))
    size = float(np.linalg.norm(p.max(axis=0) - p.min(axis=0))) or 0.1
    distance = 0.0
    for _ in range(4):  # distance for the extent, then re-centre on the projected extent
        rel = p - centre
        x, y, z = rel @ right, rel @ up, rel @ d
        distance = float(max(np.max(z + np.abs(x) / tx), np.max(z + np.abs(y) / ty),
                             np.max(z) + 0.05 * size))
        depth = distance - z
        u, v = x / depth, y / depth
        shift_u, shift_v = 0.5 * (u.min() + u.max()), 0.5 * (v.min() + v.max())
        if abs(shift_u) < 1e-4 * tx and abs(shift_v) < 1e-4 * ty:
            break
        centre = centre + distance * (shift_u * right + shift_v * up)
    return CameraPose(centre + distance * d, centre)


def bounding_sphere_view(points: ArrayLike, direction: ArrayLike, *, fov_y: float,
                         fill: float = 0.85) -> CameraPose:
    """A camera along ``direction`` whose view height holds the points' bounding-box sphere.

    Looser than :func:`fit_view` (the framing does not change as the robot turns).

    Args:
        points: ``(N, 3)`` world points [m].
        direction: ``(3,)`` view direction (look-at point -> camera).
        fov_y: Vertical field of view [rad].
        fill: Fraction of the view height the sphere spans.
    """
    p, d = _check(points, direction, fov_y, 1.0)
    lo, hi = p.min(axis=0), p.max(axis=0)
    centre = 0.5 * (lo + hi)
    diagonal = max(float(np.linalg.norm(hi - lo)), 0.3)
    distance = 0.5 * diagonal / math.tan(0.5 * fov_y) / fill
    return CameraPose(centre + distance * d / np.linalg.norm(d), centre)
