"""Applications on top of everything: the ``robot-state-core`` command line."""
