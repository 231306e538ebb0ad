"""``python -m robot_state_core``: the ``robot-state-core`` command line (:mod:`.apps.cli`)."""

import sys

from robot_state_core.apps.cli import main

sys.exit(main())
