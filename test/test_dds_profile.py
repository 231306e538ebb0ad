"""The fast-discovery FastDDS profile reaches the Fast DDS library of this distribution.

Fast DDS 3 (Kilted) reads ``FASTDDS_DEFAULT_PROFILES_FILE``; Fast DDS 2.14 (Jazzy) reads only
``FASTRTPS_DEFAULT_PROFILES_FILE``. While only the first was set, Jazzy's tests ran without the
profile (default discovery announcements) while the README said otherwise; with both set,
Kilted's rmw printed a deprecation warning on every node's stderr.
"""

from __future__ import annotations

import os
from pathlib import Path
import re
import sys

from conftest import FASTDDS_PROFILE
import pytest

pytestmark = pytest.mark.ros


def test_the_profile_is_set_under_the_name_the_installed_fast_dds_reads() -> None:
    """The variable named inside the venv's Fast DDS library points at our profile; no other."""
    libraries = sorted(Path(sys.prefix, 'lib').glob('libfast[dr]*.so'))
    assert libraries, f'no Fast DDS library under {sys.prefix}/lib'
    names = {match.decode() for library in libraries
             for match in re.findall(rb'FAST(?:DDS|RTPS)_DEFAULT_PROFILES_FILE',
                                     library.read_bytes())}
    assert names, f'no profile variable named in {libraries}'
    every = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE')
    assert {name: os.environ.get(name) for name in every} == {
        name: str(FASTDDS_PROFILE) if name in names else None for name in every}
