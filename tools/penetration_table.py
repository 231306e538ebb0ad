"""Regenerate the penetration-accuracy table (issue 9 item 8): every convex pair vs the oracle.

For every pair of sphere, box, cylinder, capsule, ellipsoid, cone and a convex hull (the Panda
finger's, 18 vertices, scaled 4x; ``--hull link3`` for a 152-vertex one), and each of them
against a half-space, draws ``--poses`` random penetrating poses
(200 by default) and reports the worst errors of the collision backend (``FclObjects``:
``distance_pairs`` and ``collide_pairs``) against the independent support-function oracle of
``test/support_function_oracle.py``, with python-fcl's own MPR contact and coal's ``collide``
alongside. Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python tools/penetration_table.py [--poses 200] [--output FILE]

Columns: depth err = ``|-distance - depth_oracle|`` (``distance_pairs``), contact depth err the
same for ``collide_pairs``; normal err = angle between ``-nhat_BA_W`` and the oracle's direction
(poses with a unique minimum only); normal excess = the oracle's overlap along our normal minus
its minimum (how far our normal is from being a minimum translation direction); witness =
the larger distance of the two witness points from their surface / supporting plane. The
"apart" columns do the same for ``--apart`` poses 1e-6 m to 5 cm apart (the signed distance;
the oracle's minimum is then minus the distance, by convex duality).
Takes about 15 minutes on a 2-core machine with the default 200 poses.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import sys
import time
import zlib

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / 'test')]

from penetration_harness import measure, pairs, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--poses', type=int, default=200)
    parser.add_argument('--apart', type=int, default=50,
                        help='also this many poses 1e-6 m to 5 cm apart (distance queries)')
    parser.add_argument('--only', default='', help='comma-separated pair names')
    parser.add_argument('--hull', default='finger', choices=('finger', 'link3'),
                        help="the 'convex' shape: the Panda finger's hull (18 vertices, scaled "
                             "4x) or link3's (152 vertices)")
    parser.add_argument('--output', type=Path, default=None, help='also write the table here')
    args = parser.parse_args()
    only = set(filter(None, args.only.split(',')))
    results = {}
    start = time.perf_counter()
    for name, A, B in pairs(args.hull):
        if only and name not in only:
            continue
        t = time.perf_counter()
        results[name] = measure(A, B, args.poses, np.random.default_rng(zlib.crc32(
            name.encode())), apart=args.apart)
        print(f'{name:22s} {time.perf_counter() - t:6.1f} s', file=sys.stderr, flush=True)
    text = (f'Penetration accuracy, {args.poses} random penetrating poses per pair, convex = '
            f'Panda {args.hull} hull ({time.perf_counter() - start:.0f} s)\n\n'
            + table(results) + '\n')
    print(text)
    if args.output is not None:
        args.output.write_text(text)


if __name__ == '__main__':
    main()
