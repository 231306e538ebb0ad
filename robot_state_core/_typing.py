"""Array type aliases and the read-only array constructor shared by the core modules.

Shapes are documented where arrays are used (design study B8); these aliases only say the dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]


def read_only(values: ArrayLike, dtype: Any = np.float64) -> Any:
    """A read-only **copy** of ``values`` as an array of ``dtype`` (model and plan arrays).

    Copying keeps a caller's array writable and unaffected (design study B6: arrays handed out
    by models are read-only views that setters cannot bypass).
    """
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array
