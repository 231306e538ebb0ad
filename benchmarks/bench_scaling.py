"""Scaling benchmark: peak memory and time of large generated robots (issue 10, item 9).

Every case runs in a fresh child process (``python benchmarks/bench_scaling.py --child SHAPE
N``) so that its peak resident set size (``ru_maxrss``) is its own. A child generates a URDF with
``N`` revolute joints, either **flat** (every link a child of the root) or a **chain** (each link
the child of the previous one), then times and measures:

* ``load``: ``RobotModel.from_urdf_string`` (parse + compile);
* ``first FK``: ``RobotState(model).get_link_poses()`` (builds the kinematics plan);
* ``Jacobian``: ``kinematics.jacobian`` of the last link;
* ``batched FK``: ``forward_kinematics`` of 8 configurations.

Peak RSS includes the interpreter, numpy and the package (the ``import`` row gives that floor).
A child that fails (e.g. a description beyond ``RobotModel``'s size limit) reports its error
type. ``--max-rss-gb`` caps a child's address space so that a quadratic build cannot take the
machine down (the child then reports ``MemoryError``).

Run through ``benchmarks/run.py --only scaling`` (``--quick``: 1 000 joints only).
"""

from __future__ import annotations

from collections.abc import Sequence
import json
import os
import resource
import subprocess
import sys
import time

from common import Progress, REPO_ROOT, Section, Settings, Table

NAME = 'scaling'
TITLE = 'robot_state_core scaling benchmarks (large generated robots)'
PARTS = ('scaling',)
SIZES = (1_000, 8_000, 20_000)
SHAPES = ('flat', 'chain')
#: Address-space cap of a child [GiB] (a guard for the shared machine, not a target).
MAX_CHILD_GB = 8.0


def generated_urdf(shape: str, n: int) -> str:
    """A URDF with ``n`` revolute joints, ``flat`` (all on the root) or a ``chain``."""
    parts = ['<robot name="generated">', '<link name="l0"/>']
    for i in range(1, n + 1):
        parent = 'l0' if shape == 'flat' else f'l{i - 1}'
        parts.append(f'<link name="l{i}"/><joint name="j{i}" type="revolute"><parent '
                     f'link="{parent}"/><child link="l{i}"/><origin xyz="0.01 0 0.02"/>'
                     '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                     '</joint>')
    parts.append('</robot>')
    return '\n'.join(parts)


def _peak_rss() -> int:
    """Peak resident set size of this process [bytes] (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(shape: str, n: int) -> dict[str, object]:
    """Measure one case in this (fresh) process."""
    import numpy as np

    from robot_state_core import kinematics, RobotModel, RobotState

    out: dict[str, object] = {'import_rss': _peak_rss()}
    text = generated_urdf(shape, n)
    out['urdf_bytes'] = len(text.encode())
    try:
        t0 = time.perf_counter()
        model = RobotModel.from_urdf_string(text)
        t1 = time.perf_counter()
        RobotState(model).get_link_poses()
        t2 = time.perf_counter()
        q = np.zeros(model.nq)
        kinematics.jacobian(model, q, model.link_names[-1])
        t3 = time.perf_counter()
        kinematics.forward_kinematics(model, np.zeros((8, model.nq)))
        t4 = time.perf_counter()
    except BaseException as err:  # reported, not raised: the parent prints the table
        out['error'] = f'{type(err).__name__}: {str(err)[:120]}'
    else:
        out.update(load_s=t1 - t0, fk_s=t2 - t1, jacobian_s=t3 - t2, batch_s=t4 - t3)
    out['peak_rss'] = _peak_rss()
    return out


def _run_child(shape: str, n: int, max_gb: float) -> dict[str, object]:
    env = {**os.environ, 'PYTHONPATH': os.environ.get('PYTHONPATH', str(REPO_ROOT))}
    limit = int(max_gb * 2**30)

    def cap() -> None:  # runs in the child before exec
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run([sys.executable, __file__, '--child', shape, str(n)], env=env,
                          capture_output=True, text=True, preexec_fn=cap, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith('{')]
    if not lines:
        tail = (proc.stderr.strip().splitlines() or ['no output'])[-1]
        return {'error': f'child exited {proc.returncode}: {tail[:120]}'}
    result: dict[str, object] = json.loads(lines[-1])
    return result


def _mib(value: object) -> str:
    return f'{float(value) / 2**20:,.0f} MiB' if isinstance(value, int | float) else '—'


def _secs(value: object) -> str:
    return f'{float(value):.3f}' if isinstance(value, int | float) else '—'


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Measure every (shape, size) case in its own child process."""
    sizes = SIZES[:1] if settings.quick else SIZES
    table = Table(['shape', 'joints', 'URDF', 'peak RSS', 'import only', 'load s',
                   'first FK s', 'Jacobian s', 'batched FK (8) s', 'error'])
    for shape in SHAPES:
        for n in sizes:
            r = _run_child(shape, n, MAX_CHILD_GB)
            table.add(shape, f'{n:,}', f'{int(r.get("urdf_bytes", 0)) / 1e3:,.0f} kB',
                      _mib(r.get('peak_rss')), _mib(r.get('import_rss')),
                      _secs(r.get('load_s')), _secs(r.get('fk_s')), _secs(r.get('jacobian_s')),
                      _secs(r.get('batch_s')), r.get('error', ''))
            progress.step(f'scaling     {shape:<5} {n:>6,} peak {_mib(r.get("peak_rss"))}'
                          f'{" " + str(r["error"]) if "error" in r else ""}')
    section = Section('Large generated robots', __doc__.split('\n\n')[1].replace('\n', ' '),
                      [table])
    section.notes.append(f'Each child runs with an address-space cap of {MAX_CHILD_GB:g} GiB.')
    return [section]


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--child':
        print(json.dumps(child(sys.argv[2], int(sys.argv[3]))))
    else:
        print(__doc__)
