"""In CI a skipped test is a failure (conftest.py; issue 25): a missing oracle must not pass.

The rule runs in a child pytest on a copy of this suite's conftest, so the child's outcome is
the rule's, not this suite's.
"""

from __future__ import annotations

import os
from pathlib import Path
import shutil
import subprocess
import sys

import pytest

SKIPPING = '''
import pytest

def test_oracle_missing():
    pytest.skip('the oracle is not installed')

def test_other_distribution():
    pytest.skip('no use_robot_description_topic on this distribution (R4)')
'''


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    shutil.copy(Path(__file__).with_name('conftest.py'), tmp_path / 'conftest.py')
    (tmp_path / 'test_skipping.py').write_text(SKIPPING)
    (tmp_path / 'test_module_skip.py').write_text(
        "import pytest\npytest.importorskip('no_such_oracle_module')\n")
    env = {k: v for k, v in os.environ.items() if k not in ('CI', 'PYTEST_ADDOPTS')}
    if ci is not None:
        env['CI'] = ci
    return subprocess.run([sys.executable, '-m', 'pytest', '-q', '-o', 'addopts=', '-p',
                           'no:cacheprovider',
                           '--rootdir', str(tmp_path), str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize('ci', ['true', '1'])
def test_a_skip_fails_in_ci(tmp_path: Path, ci: str) -> None:
    proc = _run(tmp_path, ci)
    assert proc.returncode == 1, proc.stdout
    assert '1 failed, 1 skipped, 1 error' in proc.stdout, proc.stdout
    assert 'counts as a failure' in proc.stdout


def test_a_skip_stays_a_skip_outside_ci(tmp_path: Path) -> None:
    proc = _run(tmp_path, None)
    assert proc.returncode == 0, proc.stdout
    assert '3 skipped' in proc.stdout, proc.stdout
