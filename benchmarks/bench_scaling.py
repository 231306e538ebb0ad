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

Part ``loader`` (``benchmarks/run.py --only loader``), report-only: **loader seconds per MB**
of ``RobotModel.from_urdf_string`` (URDF and SRDF text to a model, or to a typed error) for the
hostile families of ``test/test_loader_scaling.py`` at their large size, and for
example-robot-data's Talos (full URDF and its SRDF, meshes resolved), best of 3 (1 with
``--quick``). Linear loading keeps seconds per MB roughly constant within a family.
"""

from __future__ import annotations

from collections.abc import Sequence
import contextlib
import gc
import json
import os
import resource
import subprocess
import sys
import time

from common import Progress, REPO_ROOT, Section, Settings, Table

NAME = 'scaling'
TITLE = 'robot_state_core scaling benchmarks (large generated robots)'
PARTS = ('scaling', 'loader')
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


def _load_seconds(urdf: str, srdf: str | None, repeats: int, **kwargs: object) -> float:
    """Best wall-clock time of ``RobotModel.from_urdf_string`` (a typed error counts as done).

    GC is disabled inside a sample, as in every timing of the harness.
    """
    from robot_state_core import RobotModel
    from robot_state_core.errors import RobotStateCoreError

    best = float('inf')
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            with contextlib.suppress(RobotStateCoreError):
                RobotModel.from_urdf_string(urdf, srdf, **kwargs)
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def loader_section(settings: Settings, progress: Progress) -> Section:
    """Loader seconds per MB: hostile families (large size) and Talos (report-only)."""
    sys.path.insert(0, str(REPO_ROOT / 'test'))
    import robot_corpus
    import test_loader_scaling as families

    repeats = 1 if settings.quick else 3
    table = Table(['input', 'size n', 'MB', 'load s', 's per MB'])
    talos = robot_corpus.test_robot('talos_full')
    assert talos.srdf_path is not None
    rows: list[tuple[str, str, str, str | None, dict[str, object]]] = [
        ('Talos (example-robot-data, full URDF + SRDF)', '', talos.urdf_path.read_text('utf-8'),
         talos.srdf_path.read_text('utf-8'), {'package_map': talos.package_map})]
    _load_seconds(*rows[0][2:4], 1, **rows[0][4])  # imports and the mesh cache are not loading
    for name, make, n in families.FAMILIES:
        urdf, srdf = make(n * families.GROWTH)
        rows.append((name, f'{n * families.GROWTH:,}', urdf, srdf, {}))
    for name, size, urdf, srdf, kwargs in rows:
        mb = (len(urdf.encode()) + len((srdf or '').encode())) / 1e6
        seconds = _load_seconds(urdf, srdf, repeats, **kwargs)
        table.add(name, size, f'{mb:.2f}', f'{seconds:.3f}', f'{seconds / mb:.3f}')
        progress.step(f'loader      {name:<40} {mb:7.2f} MB {seconds / mb:7.3f} s/MB')
    section = Section('Loader seconds per MB', __doc__.split('\n\n')[-1].replace('\n', ' '),
                      [table])
    section.notes.append('Report-only (no target). Sizes: the large input of each family of '
                         '`test/test_loader_scaling.py`, which asserts the 10x growth.')
    return section


def run(settings: Settings, progress: Progress, parts: Sequence[str] = PARTS) -> list[Section]:
    """Measure every (shape, size) case in its own child process, and the loader part."""
    sections = [loader_section(settings, progress)] if 'loader' in parts else []
    if 'scaling' not in parts:
        return sections
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
    return [section, *sections]


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--child':
        print(json.dumps(child(sys.argv[2], int(sys.argv[3]))))
    else:
        print(__doc__)
