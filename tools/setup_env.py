#!/usr/bin/env python3
"""Create or update ``.venv``: pinned ROS 2 wheels, interface stand-ins, this package.

Usage: ``python3 tools/setup_env.py [--distro kilted|jazzy] [--force]`` (the Makefile's ``demo``
and ``test`` call it).

Two ROS 2 distributions, one venv each (they share module names, so they cannot share a venv):

* ``kilted`` (default): ``.venv``, pins in ``constraints.txt``;
* ``jazzy`` (the LTS): ``.venv-jazzy``, the ROS pins of ``constraints-jazzy.txt`` merged over the
  other pins of ``constraints.txt``, Jazzy's interface build tools
  (``tools/requirements-interfaces-jazzy.txt``). The stand-ins are built against Jazzy's rosidl.

Standard library only, so it runs on a fresh machine with nothing but Python 3.11. It is
idempotent: the inputs (constraints, requirement lists, interface sources, packaging files and
this script) are fingerprinted, and a second run with an unchanged fingerprint does no work and
says so. Each step is named and timed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
import fcntl
import hashlib
import json
import os
from pathlib import Path
import shutil
import subprocess
import sys
import time

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / 'tools'
# dependency order: moveit_msgs needs object_recognition_msgs and octomap_msgs; control_msgs
# (pymoveit2's gripper and servo types) needs none of them and comes last, so a change to it does
# not invalidate the cached moveit_msgs wheel (each fingerprint includes the ones before it)
INTERFACES = ('tf2_msgs', 'object_recognition_msgs', 'octomap_msgs', 'moveit_msgs',
              'control_msgs')
CHROMIUM_NAMES = ('chromium', 'chromium-browser', 'google-chrome')


@dataclass(frozen=True)
class Distro:
    """One ROS 2 distribution's environment.

    Attributes:
        name: The distribution (``kilted``, ``jazzy``).
        venv: The venv directory (``$RSC_VENV`` / ``$RSC_VENV_JAZZY`` override the default).
        constraints: Constraint files, later ones overriding earlier ones per package name.
        requirement_files: Requirement lists under ``tools/``.
    """

    name: str
    venv: Path
    constraints: tuple[Path, ...]
    requirement_files: tuple[str, ...]


DISTROS = {
    'kilted': Distro('kilted', Path(os.environ.get('RSC_VENV', ROOT / '.venv')),
                     (ROOT / 'constraints.txt',),
                     ('requirements-runtime.txt', 'requirements-interfaces.txt',
                      'requirements-test.txt')),
    'jazzy': Distro('jazzy', Path(os.environ.get('RSC_VENV_JAZZY', ROOT / '.venv-jazzy')),
                    (ROOT / 'constraints.txt', ROOT / 'constraints-jazzy.txt'),
                    ('requirements-runtime.txt', 'requirements-interfaces-jazzy.txt',
                     'requirements-test.txt')),
}
DISTRO = DISTROS['kilted']  # set by main()
WHEEL_CACHE = Path(os.environ.get('RSC_WHEEL_CACHE') or
                   Path(os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache')
                   / 'robot_state_core' / 'interface-wheels')
PIP_NOISE = ('is ignored: it is neither a file nor a directory',)
PIP_SHOWN = ('Building wheel', 'Successfully built', 'ERROR', 'error:')


def _say(message: str) -> None:
    print(message, flush=True)


def _fingerprint() -> str:
    """Hash of everything whose change requires a new set-up."""
    h = hashlib.sha256()
    h.update(sys.version.encode())
    h.update(DISTRO.name.encode())
    files = [*DISTRO.constraints, Path(__file__).resolve(), ROOT / 'setup.py',
             ROOT / 'setup.cfg', ROOT / 'package.xml',
             *(TOOLS / f for f in DISTRO.requirement_files)]
    for pkg in INTERFACES:
        base = ROOT / 'interfaces' / pkg
        files += sorted(p for p in base.rglob('*') if p.is_file() and 'build' not in p.parts)
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


#: Non-ROS pins a stand-in's build reads (besides every ``ros-*`` wheel): the generators' Python
#: dependencies, NumPy's headers, the build backend. Other pins (viser, pytest, ...) do not
#: invalidate the built stand-ins.
BUILD_PINS = ('numpy', 'scikit-build-core', 'catkin-pkg', 'empy', 'lark-parser', 'pybind11',
              'setuptools', 'pyyaml')


def _build_pins() -> list[str]:
    """The distribution's pins that a stand-in's build depends on, sorted."""
    return [line for name, line in sorted(_pins().items())
            if name.startswith('ros-') or name in BUILD_PINS]


def _interface_fingerprint(pkg: str, before: str) -> str:
    """Hash of what a stand-in's build depends on.

    That is its sources, the ROS and build pins, the Python, and the stand-ins built before it
    (``before``: their fingerprint).
    """
    h = hashlib.sha256()
    h.update(sys.version.encode())
    h.update(before.encode())
    h.update('\n'.join(_build_pins()).encode())
    base = ROOT / 'interfaces' / pkg
    for f in sorted(p for p in base.rglob('*') if p.is_file() and 'build' not in p.parts):
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _interface_wheel(pkg: str, fingerprint: str, force: bool) -> tuple[Path, str]:
    """The stand-in's wheel: from the cache when built before from the same inputs, else built.

    The cache (``$RSC_WHEEL_CACHE``, default ``~/.cache/robot_state_core/interface-wheels``) is
    keyed by the distribution and the fingerprint, like pip's own wheel cache; a fresh machine
    builds (``--force`` always builds).
    """
    cached = WHEEL_CACHE / f'{DISTRO.name}-{pkg}-{fingerprint[:24]}'
    wheels = sorted(cached.glob('*.whl')) if cached.is_dir() else []
    if wheels and not force:
        return wheels[0], 'wheel from the cache (same sources and pins)'
    t0 = time.monotonic()
    scratch = cached.with_name(f'{cached.name}.tmp{os.getpid()}')
    shutil.rmtree(scratch, ignore_errors=True)
    _run([str(_venv_python()), '-m', 'pip', 'wheel', '--disable-pip-version-check',
          '--no-build-isolation', '--no-deps', '-w', str(scratch), str(ROOT / 'interfaces' / pkg)],
         label=f'build of {pkg}')
    shutil.rmtree(cached, ignore_errors=True)
    scratch.rename(cached)
    return next(cached.glob('*.whl')), f'built in {time.monotonic() - t0:.1f} s'


def _importable(module: str) -> bool:
    return subprocess.run([str(_venv_python()), '-c', f'import {module}'], env=_env(),
                          capture_output=True, check=False).returncode == 0


def _venv_python() -> Path:
    return DISTRO.venv / 'bin' / 'python'


def _pins() -> dict[str, str]:
    """``{normalized name: 'name==version'}`` of the distribution's files, later ones winning."""
    pins: dict[str, str] = {}
    for path in DISTRO.constraints:
        for line in path.read_text().splitlines():
            line = line.split('#', 1)[0].strip()
            if line:
                pins[line.split('==')[0].strip().lower().replace('_', '-')] = line
    return pins


def _constraints_file() -> Path:
    """The one constraints file pip gets: the distribution's files merged, later ones winning."""
    if len(DISTRO.constraints) == 1:
        return DISTRO.constraints[0]
    pins = _pins()
    merged = DISTRO.venv / 'constraints-merged.txt'
    merged.write_text(f'# generated by tools/setup_env.py from '
                      f"{', '.join(p.name for p in DISTRO.constraints)}; do not edit\n"
                      + '\n'.join(pins[k] for k in sorted(pins)) + '\n')
    return merged


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env['VIRTUAL_ENV'] = str(DISTRO.venv)
    env['PATH'] = f"{DISTRO.venv / 'bin'}:{env.get('PATH', '')}"
    env['AMENT_PREFIX_PATH'] = str(DISTRO.venv)  # fix A of ros_wheels.md §1
    env['CMAKE_PREFIX_PATH'] = str(DISTRO.venv)
    env.pop('PYTHONHOME', None)
    env.pop('PYTHONPATH', None)  # the venv's own packages, not a caller's checkout
    return env


def _run(cmd: list[str], *, label: str) -> None:
    """Run a command, showing its key lines; on failure show the tail and exit."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    lines: list[str] = []
    collected = 0
    for line in proc.stdout:
        line = line.rstrip()
        if any(n in line for n in PIP_NOISE):
            continue
        lines.append(line)
        stripped = line.strip()
        if stripped.startswith('Collecting'):
            collected += 1
            if collected % 25 == 0:
                _say(f'      ... {collected} packages resolved')
        elif stripped.startswith('Successfully installed'):
            names = stripped.split()[2:]
            shown = ', '.join(names[:6]) + (f' and {len(names) - 6} more' if len(names) > 6
                                             else '')
            _say(f'      installed {len(names)} distributions: {shown}')
        elif stripped.startswith(PIP_SHOWN):
            _say(f'      {stripped[:150]}')
    if proc.wait() != 0:
        _say(f'!! {label} failed (exit {proc.returncode}); last output:')
        for line in lines[-40:]:
            _say(f'   | {line}')
        sys.exit(1)


def _real_interfaces_present() -> bool:
    """True when tf2_msgs/moveit_msgs/... import from a real ROS install (not our stand-ins)."""
    code = ('import importlib, importlib.metadata as m, sys\n'
            f'for pkg in {INTERFACES!r}:\n'
            '    importlib.import_module(pkg + ".msg")\n'
            '    try:\n'
            '        m.distribution("local-" + pkg.replace("_", "-"))\n'
            '        sys.exit(1)\n'
            '    except m.PackageNotFoundError:\n'
            '        pass\n')
    return subprocess.run([str(_venv_python()), '-c', code], env=_env(), capture_output=True,
                          check=False).returncode == 0


def _ensure_chromium() -> None:
    """Headless Chromium for the viewer's snapshots and browser tests (Debian's ``chromium``).

    Runs on every set-up (a cheap PATH lookup when present), outside the fingerprint: the
    browser is a system package, not part of ``.venv``. Installs it with apt when missing and
    this process is root; otherwise says what to do (the browser tests fail in CI without it).
    """
    t0 = time.monotonic()
    found = os.environ.get('RSC_CHROMIUM') or next(
        (p for p in (shutil.which(n) for n in CHROMIUM_NAMES) if p), None)
    if found:
        _say(f'chromium: {found} (browser tests and snapshots) [{time.monotonic() - t0:.1f} s]')
        return
    if os.geteuid() != 0 or shutil.which('apt-get') is None:
        _say('!! chromium: not found, and it cannot be installed from here (needs root and '
             'apt-get). Install it with `sudo apt-get install -y chromium` (or point '
             'RSC_CHROMIUM at a Chromium/Chrome binary); without it the browser tests fail in '
             'CI and skip elsewhere, and `robot-state-core snapshot` cannot run.')
        return
    _say("chromium: not found; installing Debian's chromium with apt-get (1-2 min)")
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    for cmd in (['apt-get', 'update', '-q'],
                ['apt-get', 'install', '-y', '-q', 'chromium']):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            _say(f'!! chromium: `{" ".join(cmd)}` failed (exit {proc.returncode}):')
            for line in (proc.stdout + proc.stderr).splitlines()[-15:]:
                _say(f'   | {line}')
            return
    _say(f'      chromium installed in {time.monotonic() - t0:.1f} s')


def main() -> int:
    global DISTRO
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--distro', choices=sorted(DISTROS), default='kilted',
                        help='ROS 2 distribution (default kilted: .venv; jazzy: .venv-jazzy)')
    parser.add_argument('--force', action='store_true', help='redo every step')
    args = parser.parse_args()
    DISTRO = DISTROS[args.distro]
    VENV = DISTRO.venv
    STAMP = VENV / '.robot_state_core_setup.json'
    if sys.version_info[:2] != (3, 11):
        _say(f'!! Python 3.11 is required (the ROS 2 {DISTRO.name} wheels are cp311); this is '
             f'{sys.version.split()[0]}')
        return 1
    t_start = time.monotonic()
    _ensure_chromium()
    VENV.parent.mkdir(parents=True, exist_ok=True)
    fingerprint = _fingerprint()
    if (not args.force and STAMP.is_file() and _venv_python().exists()
            and json.loads(STAMP.read_text()).get('fingerprint') == fingerprint):
        _say(f'set-up: {VENV.name} is up to date (pins and sources unchanged), nothing to do '
             f'[{time.monotonic() - t_start:.1f} s]')
        return 0

    steps = 5
    _say(f'set-up: preparing {VENV} (ROS 2 {DISTRO.name.capitalize()} from PyPI wheels, '
         f"pinned in {' + '.join(p.name for p in DISTRO.constraints)})")

    def step(n: int, title: str) -> float:
        _say(f'[{n}/{steps}] {title}')
        return time.monotonic()

    def done(t0: float, note: str = '') -> None:
        _say(f'      done in {time.monotonic() - t0:.1f} s{(" - " + note) if note else ""}')

    t0 = step(1, 'Python virtual environment')
    if STAMP.exists():
        STAMP.unlink()
    if not _venv_python().exists():
        if VENV.exists():
            shutil.rmtree(VENV)
        _run([sys.executable, '-m', 'venv', str(VENV)], label='venv')
        done(t0, 'created')
    else:
        done(t0, 'already present')

    with open(VENV / '.setup.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        pip = [str(_venv_python()), '-m', 'pip', 'install', '--disable-pip-version-check',
               '--progress-bar', 'off', '-c', str(_constraints_file())]

        t0 = step(2, 'pinned pip, setuptools and wheel')
        _run([*pip, 'pip', 'setuptools', 'wheel'], label='pip upgrade')
        done(t0)

        t0 = step(3, 'dependencies: ROS 2 wheels, numpy/lxml/urdfdom-py/python-fcl/trimesh, '
                     'viser, interface build tools, test tools and oracles')
        reqs = [a for f in DISTRO.requirement_files for a in ('-r', str(TOOLS / f))]
        _run(pip + reqs, label='dependency install')
        done(t0)

        t0 = step(4, 'interface stand-ins: ' + ', '.join(INTERFACES))
        if _real_interfaces_present():
            done(t0, 'skipped: the real packages are importable (a ROS installation)')
        else:
            chain = ''  # each fingerprint includes the ones before it (dependency order)
            for pkg in INTERFACES:
                t1 = time.monotonic()
                stamp = VENV / '.interfaces' / f'{pkg}.sha256'
                source = chain = _interface_fingerprint(pkg, chain)
                if (not args.force and stamp.is_file() and stamp.read_text() == source
                        and _importable(f'{pkg}.msg')):
                    _say(f'      {pkg}: sources and pins unchanged, kept')
                    continue
                wheel, how = _interface_wheel(pkg, source, force=args.force)
                _run([*pip, '--no-deps', '--force-reinstall', str(wheel)],
                     label=f'install of {pkg}')
                stamp.parent.mkdir(exist_ok=True)
                stamp.write_text(source)
                _say(f'      {pkg}: {how}, installed in {time.monotonic() - t1:.1f} s')
            done(t0)

        t0 = step(5, f'robot_state_core (editable install into {VENV.name})')
        _run([*pip, '--no-deps', '--no-build-isolation', '-e', str(ROOT)],
             label='package install')
        done(t0)

        STAMP.write_text(json.dumps({'fingerprint': fingerprint,
                                     'finished': time.strftime('%Y-%m-%dT%H:%M:%S')}))
    _say(f'set-up: finished in {time.monotonic() - t_start:.1f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
