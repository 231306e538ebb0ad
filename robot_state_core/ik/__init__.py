"""Numerical inverse kinematics over joint model groups (MoveIt ``setFromIK`` semantics).

:mod:`.types` holds the API types (request, options, result, status); :mod:`.solver` the
solver (per-group kernel compiler, batched damped least squares with restarts) and its entry
points :func:`~.solver.solve_ik`, :func:`~.solver.solve_ik_batch`, :func:`~.solver.prepare_ik`.
"""
