"""Array type aliases and the read-only array constructor shared by the core modules.

The one home of the package's array aliases (``FloatArray``, ``IntArray``, ``BoolArray``,
``Int64Array``): modules import them from here rather than redefining them. Shapes are
documented where arrays are used (design study B8); these aliases only say the dtype.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core.errors import InvalidArgumentError, InvalidIndexError, InvalidTypeError

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]
Int64Array = NDArray[np.int64]
'''Fixed-width indices (mesh faces as trimesh and the viewer store them).'''


def read_only(values: ArrayLike, dtype: Any = np.float64) -> Any:
    """A read-only **copy** of ``values`` as an array of ``dtype`` (model and plan arrays).

    Copying keeps a caller's array writable and unaffected (design study B6: arrays handed out
    by models are read-only views that setters cannot bypass).
    """
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


def as_index(value: object, count: int, where: str, what: str) -> int:
    """``value`` as an index into ``count`` items, validated (the boundary check for indices).

    Args:
        value: The index the caller gave.
        count: Number of items (valid indices are ``0 .. count - 1``).
        where: Caller named in the message (``'RobotState.get_global_link_transform'``).
        what: What is indexed (``'link index'``).

    Raises:
        InvalidTypeError: ``value`` is not an integer (a float such as ``1.5``, a bool,
            ``None``, ...): it is never truncated.
        InvalidIndexError: ``value`` is negative or ``>= count``: negative indices are not
            counted from the end.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InvalidTypeError(f'{where}: {what} must be an int, got {value!r} '
                               f'({type(value).__name__})')
    index = int(value)
    if not 0 <= index < count:
        raise InvalidIndexError(f'{where}: {what} {index} is out of range [0, {count})'
                                + (' (negative indices are not accepted)' if index < 0 else ''))
    return index


def as_finite_float(value: object, where: str, what: str) -> float:
    """``value`` as a finite Python float; InvalidTypeError / InvalidArgumentError otherwise."""
    if isinstance(value, bool | np.bool_) or not isinstance(
            value, int | float | np.integer | np.floating):
        raise InvalidTypeError(f'{where}: {what} must be a number, got {value!r} '
                               f'({type(value).__name__})')
    x = float(value)
    if not math.isfinite(x):
        raise InvalidArgumentError(f'{where}: {what} must be finite, got {value!r}')
    return x


def as_float_array(values: object, where: str, what: str) -> FloatArray:
    """``values`` as a float64 array (no copy when it already is one); numeric input only.

    Raises:
        InvalidTypeError: Not numbers: ``None``, strings, booleans, objects, complex values.
        InvalidArgumentError: Not an array at all (ragged nested sequences).
    """
    if isinstance(values, np.ndarray) and values.dtype == np.float64:
        return values
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'{where}: {what} is not a numeric array ({err})') from err
    if a.dtype.kind not in 'iuf':
        shown = repr(values)
        raise InvalidTypeError(f'{where}: {what} must be numeric, got '
                               f'{shown if len(shown) <= 60 else shown[:57] + "..."} '
                               f'(dtype {a.dtype})')
    return a.astype(np.float64, copy=False)


def all_finite(a: FloatArray) -> bool:
    """Whether every element of a float64 array is finite (and their sum does not overflow).

    Small arrays are summed in Python (a fraction of ``np.isfinite(a).all()``'s cost on hot
    paths such as single-configuration FK); a sum that overflows counts as not finite, which
    only happens for values near 1e308, unusable anyway.
    """
    if a.size <= 64:
        return math.isfinite(sum(a.ravel().tolist()))
    return math.isfinite(float(a.sum()))  # no temporary array: NaN and inf propagate
