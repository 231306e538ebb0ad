"""What the viewer draws and writes for a reach study (pure functions of the results).

:meth:`RobotViewer.show_reach <robot_state_core.viewer.app.RobotViewer.show_reach>` draws every
target of a :class:`~robot_state_core.reach.results.ReachDatabase` as a small sphere in REACH's
heat-map colours (:func:`~robot_state_core.reach.results.heat_map_colors` of the final pass:
blue for the lowest score, red for the highest, black where IK found no solution), with a
short line from each target towards where the tool comes from, and the texts of its panel
folder. This module computes those: marker size and geometry, colours, lines, texts, legend.

Studies of more than :data:`DETAILED_TARGETS` targets get coarser spheres and no lines: in
software WebGL (headless Chromium, no GPU) 10 000 detailed targets take about 20 s to draw, the
coarse ones about as long as the robot alone.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
import trimesh

from robot_state_core._typing import FloatArray
from robot_state_core.reach.results import heat_map_colors, ReachDatabase, ReachResult

__all__ = ['DETAILED_TARGETS', 'MARKER_RADIUS_RANGE', 'legend_html', 'marker_colors',
           'marker_radius', 'marker_sphere', 'summary_text', 'tool_lines']

DETAILED_TARGETS = 2000
'''Most targets drawn as 80-face spheres with tool lines (more: 20-face spheres, no lines).'''
MARKER_RADIUS_RANGE = (0.003, 0.02)
'''Smallest and largest target sphere radius [m].'''
MARKER_SPACING_FRACTION = 0.3
'''Sphere radius as a fraction of the typical distance between neighbouring targets.'''
TOOL_LINE_RADII = 3.0
'''Length of a target's tool-direction line, in sphere radii.'''
SPACING_SAMPLE = 256
'''Targets whose nearest neighbour is measured to estimate the spacing.'''
LEGEND_STEPS = 9
'''Colour stops of the legend's gradient bar.'''


def marker_radius(points: FloatArray) -> float:
    """Radius of a target's sphere [m]: a fraction of the typical target spacing, clipped.

    The spacing is the median distance from a target to its nearest distinct neighbour (over
    up to :data:`SPACING_SAMPLE` evenly strided targets; targets at the same point, as a
    workspace grid's orientations are, do not count).

    Args:
        points: ``(N, 3)`` target positions [m].
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    lo, hi = MARKER_RADIUS_RANGE
    if len(p) < 2:
        return hi
    sample = p[::max(1, len(p) // SPACING_SAMPLE)]
    d = np.sqrt(((sample[:, None, :] - p[None, :, :]) ** 2).sum(axis=2))
    d[d <= 1e-9] = np.inf
    nearest = d.min(axis=1)
    nearest = nearest[np.isfinite(nearest)]
    if len(nearest) == 0:  # every target at one point
        return hi
    return float(np.clip(MARKER_SPACING_FRACTION * np.median(nearest), lo, hi))


def marker_sphere(radius: float, *, detailed: bool) -> tuple[FloatArray, NDArray[np.int64]]:
    """``(vertices, faces)`` of one target's sphere of ``radius`` [m].

    An icosphere of 80 faces when ``detailed``, else 20.
    """
    sphere = trimesh.creation.icosphere(subdivisions=1 if detailed else 0, radius=radius)
    return (np.asarray(sphere.vertices, dtype=np.float64),
            np.asarray(sphere.faces, dtype=np.int64))


def marker_colors(result: ReachResult) -> NDArray[np.uint8]:
    """``(N, 3)`` RGB 0..255 of the targets: REACH's heat map of ``result``, rounded."""
    rgb: NDArray[np.uint8] = np.round(255.0 * heat_map_colors(result)).astype(np.uint8)
    return rgb


def tool_lines(X_WT: FloatArray, length: float) -> FloatArray:
    """``(N, 2, 3)`` segments from each target along minus its z axis, ``length`` long [m].

    A study's goals have the tool's z axis pointing into the surface (REACH turns each
    target about x by π), so the segment points to where the tool comes from.
    """
    p = X_WT[:, :3, 3]
    out: FloatArray = np.stack([p, p - length * X_WT[:, :3, 2]], axis=1)
    return out


def summary_text(db: ReachDatabase) -> str:
    """The panel's summary of a study (markdown): targets, reach %, normalised score, passes."""
    s = db.final.summary()
    passes = len(db.results)
    optimisation = f'initial + {passes - 1} optimisation' if passes > 1 else 'initial only'
    return (f'**{s.targets} targets**, group `{db.group}`, tip `{db.tip}`  \n'
            f'**Reach:** {s.reach_percentage:.1f} % ({s.reached}/{s.targets})  \n'
            f'**Normalised score:** {s.norm_total_pose_score:.4g} '
            f'(total {s.total_pose_score:.4g})  \n'
            f'**Passes:** {passes} ({optimisation})')


def legend_html() -> str:
    """The heat-map legend: a gradient bar from the lowest to the highest score, and black."""
    top = LEGEND_STEPS - 1
    ramp = ReachResult(np.ones(LEGEND_STEPS, dtype=bool),
                       np.linspace(0.0, 1.0, LEGEND_STEPS), np.zeros((LEGEND_STEPS, 0)),
                       np.zeros((LEGEND_STEPS, 0)), np.ones(LEGEND_STEPS, dtype=bool))
    stops = ', '.join(f'rgb({r}, {g}, {b}) {math.floor(100 * k / top)}%'
                      for k, (r, g, b) in enumerate(marker_colors(ramp).tolist()))
    bar = (f'<div style="height: 0.8em; border-radius: 3px; '
           f'background: linear-gradient(to right, {stops})"></div>')
    black = ('<span style="display: inline-block; width: 0.8em; height: 0.8em; '
             'background: rgb(0, 0, 0); border-radius: 2px; vertical-align: middle"></span>')
    return (f'<div style="font-size: 0.85em; padding: 0 0.5em">{bar}'
            '<div style="display: flex; justify-content: space-between">'
            '<span>blue: low score</span><span>red: high score</span></div>'
            f'<div>{black} black: not reached</div></div>')
