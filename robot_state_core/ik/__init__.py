"""Numerical inverse kinematics over joint model groups (MoveIt ``setFromIK`` semantics).

:mod:`.types` holds the API types (request, options, result, status); :mod:`.solver` the entry
points :func:`~.solver.solve_ik`, :func:`~.solver.solve_ik_batch`, :func:`~.solver.prepare_ik`
and the algorithm's description. The solver's parts: :mod:`.requests` (request checks and
name resolution), :mod:`.problem` (the per-group problem tables), :mod:`.search` (batched
damped least squares with restarts), :mod:`.seeds` (restart pools and seed tables),
:mod:`.compiled` (the compiled iteration) and :mod:`.reference` (its numpy oracle, for the
tests); :mod:`.cache` keeps the problems and :mod:`.cartesian` computes Cartesian paths.
"""
