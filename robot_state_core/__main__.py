"""``python -m robot_state_core``: the ``robot-state-core`` command line (:mod:`.apps.cli`)."""

import sys

from robot_state_core.apps.entry import cli  # first: the signal handlers (apps/entry.py)

sys.exit(cli())
