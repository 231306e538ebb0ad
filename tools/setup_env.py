#!/usr/bin/env python3
"""Create or update ``.venv``: pinned ROS 2 Kilted wheels, interface stand-ins, this package.

Usage: ``python3 tools/setup_env.py [--force]`` (the Makefile's ``demo`` and ``test`` call it).

Standard library only, so it runs on a fresh machine with nothing but Python 3.11. It is
idempotent: the inputs (constraints, requirement lists, interface sources, packaging files and
this script) are fingerprinted, and a second run with an unchanged fingerprint does no work and
says so. Each step is named and timed.
"""

from __future__ import annotations

import argparse
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
VENV = Path(os.environ.get('RSC_VENV', ROOT / '.venv'))
STAMP = VENV / '.robot_state_core_setup.json'
CONSTRAINTS = ROOT / 'constraints.txt'
TOOLS = ROOT / 'tools'
INTERFACES = ('tf2_msgs', 'object_recognition_msgs', 'moveit_msgs')  # dependency order
REQUIREMENT_FILES = ('requirements-runtime.txt', 'requirements-interfaces.txt',
                     'requirements-test.txt')
CHROMIUM_NAMES = ('chromium', 'chromium-browser', 'google-chrome')
PIP_NOISE = ('is ignored: it is neither a file nor a directory',)
PIP_SHOWN = ('Building wheel', 'Successfully built', 'ERROR', 'error:')


def _say(message: str) -> None:
    print(message, flush=True)


def _fingerprint() -> str:
    """Hash of everything whose change requires a new set-up."""
    h = hashlib.sha256()
    h.update(sys.version.encode())
    files = [CONSTRAINTS, Path(__file__).resolve(), ROOT / 'setup.py', ROOT / 'setup.cfg',
             ROOT / 'package.xml', *(TOOLS / f for f in REQUIREMENT_FILES)]
    for pkg in INTERFACES:
        base = ROOT / 'interfaces' / pkg
        files += sorted(p for p in base.rglob('*') if p.is_file() and 'build' not in p.parts)
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _venv_python() -> Path:
    return VENV / 'bin' / 'python'


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env['VIRTUAL_ENV'] = str(VENV)
    env['PATH'] = f"{VENV / 'bin'}:{env.get('PATH', '')}"
    env['AMENT_PREFIX_PATH'] = str(VENV)  # fix A of ros_wheels.md §1
    env['CMAKE_PREFIX_PATH'] = str(VENV)
    env.pop('PYTHONHOME', None)
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
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--force', action='store_true', help='redo every step')
    args = parser.parse_args()
    if sys.version_info[:2] != (3, 11):
        _say(f'!! Python 3.11 is required (the ROS 2 Kilted wheels are cp311); this is '
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
    _say(f'set-up: preparing {VENV} (ROS 2 Kilted from PyPI wheels, pinned in '
         f'{CONSTRAINTS.name})')

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
               '--progress-bar', 'off', '-c', str(CONSTRAINTS)]

        t0 = step(2, 'pinned pip, setuptools and wheel')
        _run([*pip, 'pip', 'setuptools', 'wheel'], label='pip upgrade')
        done(t0)

        t0 = step(3, 'dependencies: ROS 2 wheels, numpy/lxml/urdfdom-py/python-fcl/trimesh, '
                     'viser, interface build tools, test tools and oracles')
        reqs = [a for f in REQUIREMENT_FILES for a in ('-r', str(TOOLS / f))]
        _run(pip + reqs, label='dependency install')
        done(t0)

        t0 = step(4, 'interface stand-ins: ' + ', '.join(INTERFACES))
        if _real_interfaces_present():
            done(t0, 'skipped: the real packages are importable (a ROS installation)')
        else:
            for pkg in INTERFACES:
                t1 = time.monotonic()
                _run([*pip, '--no-build-isolation', '--no-deps', '--force-reinstall',
                      str(ROOT / 'interfaces' / pkg)], label=f'build of {pkg}')
                _say(f'      built {pkg} in {time.monotonic() - t1:.1f} s')
            done(t0)

        t0 = step(5, 'robot_state_core (editable install)')
        _run([*pip, '--no-deps', '--no-build-isolation', '-e', str(ROOT)],
             label='package install')
        done(t0)

        STAMP.write_text(json.dumps({'fingerprint': fingerprint,
                                     'finished': time.strftime('%Y-%m-%dT%H:%M:%S')}))
    _say(f'set-up: finished in {time.monotonic() - t_start:.1f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
