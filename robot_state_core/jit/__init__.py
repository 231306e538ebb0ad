"""The package's compiler set-up (numba): one decorator, one on-disk kernel cache.

:mod:`.cache` names the cache directory without importing numba (nodes log it);
:mod:`.decorators` is the package's only numba importer and configurer (:func:`~.decorators.jit`,
:func:`~.decorators.inline`). Every layer's compiled kernels (geometry's broad phase,
kinematics' FK and Jacobian, IK's iteration) are decorated with it; none of them is imported by
``import robot_state_core``.

:mod:`.kernels` decides which variant runs: the compiled kernels, or their interpreted twins
(the same source run by Python) while :mod:`.background` compiles them in a child process, so
a node's first start on a machine answers from its first second.
"""
