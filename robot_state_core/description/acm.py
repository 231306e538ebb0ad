"""The allowed collision matrix (SG-C10, SG-43..SG-47), with MoveIt's entry types.

tesseract's ACM is a symmetric map ``{link pair: reason}`` of pairs that may be in contact.
MoveIt adds entry *types* and per-object *default entries*; this class has both:

* a **pair entry** ``(a, b)`` (symmetric; stored under the canonical sorted pair) is one of
  :attr:`AllowedCollisionType.NEVER` (contact is a collision), ``ALWAYS`` (contact is allowed;
  tesseract's only kind, with a reason) or ``CONDITIONAL`` (a ``decider(contact) -> bool`` says
  whether that particular contact is allowed);
* a **default entry** per name is consulted only when the pair has no pair entry. When both
  names have a default entry they combine: NEVER wins over CONDITIONAL, which wins over ALWAYS
  (two conditional deciders must both allow the contact). No entry at all means NEVER.

Pair entries take precedence over default entries. (MoveIt 1's ``getAllowedCollision`` checked
the defaults first; we follow the more useful "specific beats general" rule.)

:meth:`AllowedCollisionMatrix.compile` evaluates the matrix on index pairs of an ordered list
of names (geometries or bodies) for the collision layer: one bool per pair, never an ``(n, n)``
array.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
import enum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from robot_state_core.errors import InvalidArgumentError, InvalidTypeError

DecideContactFn = Callable[[Any], bool]
'''A conditional entry's decider: ``decider(contact) -> bool``, True if the contact is allowed.'''


class AllowedCollisionType(enum.Enum):
    """Kind of an ACM entry (MoveIt ``AllowedCollision::Type``)."""

    NEVER = 'never'
    '''Contacts between the two objects are always collisions.'''
    ALWAYS = 'always'
    '''Contacts between the two objects are always allowed.'''
    CONDITIONAL = 'conditional'
    '''A decider callable is asked about each contact.'''


# Ordered so that combining two default entries is ``min`` (NEVER < CONDITIONAL < ALWAYS);
# _NO_ENTRY is larger than all, so min(x, _NO_ENTRY) = x.
_NEVER, _CONDITIONAL, _ALWAYS, _NO_ENTRY = 0, 1, 2, 3
_CODE = {AllowedCollisionType.NEVER: _NEVER, AllowedCollisionType.CONDITIONAL: _CONDITIONAL,
         AllowedCollisionType.ALWAYS: _ALWAYS}


@dataclass(frozen=True, slots=True)
class AcmEntry:
    """One ACM entry.

    Attributes:
        type: NEVER, ALWAYS or CONDITIONAL.
        reason: Free text saying why (tesseract's "reason", e.g. ``'Adjacent'``).
        decider: ``decider(contact) -> bool`` for CONDITIONAL entries, ``None`` otherwise.

    Raises:
        ValueError: A CONDITIONAL entry without a decider, or another type with one.
    """

    type: AllowedCollisionType
    reason: str = ''
    decider: DecideContactFn | None = None

    def __post_init__(self) -> None:
        if (self.type is AllowedCollisionType.CONDITIONAL) != (self.decider is not None):
            raise InvalidArgumentError(f'AcmEntry: a {self.type.value} entry '
                             + ('needs a decider' if self.decider is None else 'takes no decider'))


@dataclass(frozen=True, slots=True, eq=False)
class CompiledAcm:
    """An ACM evaluated on chosen pairs of an ordered list of names, for the collision layer.

    Attributes:
        names: The ``n`` names the pairs index (duplicates allowed, e.g. one entry per
            geometry named after its body).
        pairs: ``(P, 2)`` index pairs into ``names`` (read-only).
        allowed: ``(P,)`` read-only bool; True when a contact between the pair's names is
            unconditionally allowed (ALWAYS), and whenever the two names are equal
            (geometries of one object never collide with each other). CONDITIONAL pairs are
            False here.
        conditional: ``(row, decider)`` for every CONDITIONAL pair (``row`` into ``pairs``):
            the contact is allowed iff ``decider(contact)``.
        version: :attr:`AllowedCollisionMatrix.version` at compile time.
    """

    names: tuple[str, ...]
    pairs: NDArray[np.intp]
    allowed: NDArray[np.bool_]
    conditional: tuple[tuple[int, DecideContactFn], ...]
    version: int


def _canonical(a: str, b: str) -> tuple[str, str]:
    try:
        return (a, b) if a <= b else (b, a)
    except TypeError:
        raise InvalidTypeError(f'AllowedCollisionMatrix: names are str, got {a!r} and '
                               f'{b!r}') from None


def _check_name(method: str, name: object) -> str:
    """``name`` if it is a str; an empty name is a name, as in tesseract (decision T-13)."""
    if not isinstance(name, str):
        raise InvalidTypeError(f'AllowedCollisionMatrix.{method}: names are str, got {name!r}')
    return name


def _make_entry(method: str, allowed: bool | np.bool_ | DecideContactFn, reason: str) -> AcmEntry:
    if isinstance(allowed, (bool, np.bool_)):
        kind = AllowedCollisionType.ALWAYS if allowed else AllowedCollisionType.NEVER
        return AcmEntry(kind, reason)
    if callable(allowed):
        return AcmEntry(AllowedCollisionType.CONDITIONAL, reason, allowed)
    raise InvalidTypeError(f'AllowedCollisionMatrix.{method}: allowed must be a bool or a '
                           f'callable decider(contact) -> bool, got {allowed!r}')


def _combine_defaults(e1: AcmEntry, e2: AcmEntry) -> AcmEntry:
    """The entry of a pair that has no pair entry but two default entries (module docstring)."""
    reason = '; '.join(dict.fromkeys(r for r in (e1.reason, e2.reason) if r))
    if AllowedCollisionType.NEVER in (e1.type, e2.type):
        return AcmEntry(AllowedCollisionType.NEVER, reason)
    deciders = [e.decider for e in (e1, e2) if e.decider is not None]
    if not deciders:
        return AcmEntry(AllowedCollisionType.ALWAYS, reason)
    if len(deciders) == 1:
        return AcmEntry(AllowedCollisionType.CONDITIONAL, reason, deciders[0])
    d1, d2 = deciders

    def both(contact: Any) -> bool:
        return bool(d1(contact)) and bool(d2(contact))

    return AcmEntry(AllowedCollisionType.CONDITIONAL, reason, both)


class AllowedCollisionMatrix:
    """Symmetric pair → entry map plus per-name default entries (SG-C10).

    Every successful mutation increments :attr:`version`; the owning
    :class:`~robot_state_core.description.scene_graph.SceneGraph` adds it to its own version, so
    edits made directly on the matrix are visible there too.
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], AcmEntry] = {}
        # name -> names it has a pair entry with (ordered set), so removing every pair of one
        # name is O(degree) instead of a scan over all entries.
        self._partners: dict[str, dict[str, None]] = {}
        self._defaults: dict[str, AcmEntry] = {}
        self._version = 0

    @property
    def version(self) -> int:
        """Counter incremented by every successful mutation."""
        return self._version

    # -- pair entries ---------------------------------------------------------------------------

    def set_entry(self, name1: str, name2: str, allowed: bool | np.bool_ | DecideContactFn,
                  reason: str = '') -> None:
        """Set the pair entry of ``(name1, name2)`` (symmetric), replacing any previous one.

        Args:
            name1: First object name.
            name2: Second object name (may equal ``name1``).
            allowed: True (ALWAYS), False (NEVER) or a ``decider(contact) -> bool``
                (CONDITIONAL).
            reason: Why the entry exists.

        Raises:
            TypeError: A name is not a str, or ``allowed`` is neither a bool nor callable.
        """
        a = _check_name('set_entry', name1)
        b = _check_name('set_entry', name2)
        self._put(_canonical(a, b), _make_entry('set_entry', allowed, reason))

    def add_allowed_collision(self, name1: str, name2: str, reason: str = '') -> None:
        """Allow contacts between two objects: an ALWAYS pair entry with a reason (SG-43).

        Args:
            name1: First object name.
            name2: Second object name.
            reason: Why the collision is allowed (e.g. ``'Adjacent'``, ``'Never'``).

        Raises:
            TypeError: A name is not a str.
        """
        self.set_entry(name1, name2, True, reason)

    def remove_entry(self, name1: str, name2: str) -> bool:
        """Remove the pair entry of ``(name1, name2)`` whatever its type (MoveIt ``removeEntry``).

        Returns:
            True if an entry was removed, False if the pair had none.
        """
        key = _canonical(name1, name2)
        if key not in self._entries:
            return False
        del self._entries[key]
        for x, y in {key, key[::-1]}:
            partners = self._partners[x]
            del partners[y]
            if not partners:
                del self._partners[x]
        self._version += 1
        return True

    def remove_allowed_collision(self, name1: str, name2: str | None = None) -> bool:
        """Remove one pair entry, or every pair entry that names ``name1`` (SG-44).

        Entries are removed whatever their type. Default entries are not touched (see
        :meth:`remove_default_entry`).

        Args:
            name1: Object name.
            name2: The other object of the pair, or ``None`` for all pairs of ``name1``.

        Returns:
            True if at least one entry was removed.
        """
        if name2 is not None:
            return self.remove_entry(name1, name2)
        partners = self._partners.pop(name1, None)
        if not partners:
            return False
        for other in partners:
            del self._entries[_canonical(name1, other)]
            if other != name1:
                others = self._partners[other]
                del others[name1]
                if not others:
                    del self._partners[other]
        self._version += 1
        return True

    def clear(self) -> None:
        """Remove every pair entry and every default entry (SG-45)."""
        if self._entries or self._defaults:
            self._entries.clear()
            self._partners.clear()
            self._defaults.clear()
            self._version += 1

    def get_entry(self, name1: str, name2: str) -> AcmEntry | None:
        """The pair entry of ``(name1, name2)``, ignoring default entries; ``None`` if absent."""
        return self._entries.get(_canonical(name1, name2))

    def get_all_allowed_collisions(self) -> dict[tuple[str, str], str]:
        """Every ALWAYS pair entry as ``{(a, b): reason}`` with ``a <= b`` (tesseract's view).

        NEVER and CONDITIONAL pair entries and default entries are not included.
        """
        return {k: e.reason for k, e in self._entries.items()
                if e.type is AllowedCollisionType.ALWAYS}

    def get_entries(self) -> dict[tuple[str, str], AcmEntry]:
        """Every pair entry as ``{(a, b): entry}`` with ``a <= b`` (a copy)."""
        return dict(self._entries)

    # -- default entries ------------------------------------------------------------------------

    def set_default_entry(self, name: str, allowed: bool | np.bool_ | DecideContactFn,
                          reason: str = '') -> None:
        """Set the default entry of ``name``, used for pairs of ``name`` without a pair entry.

        Args:
            name: Object name.
            allowed: True (ALWAYS), False (NEVER) or a ``decider(contact) -> bool``.
            reason: Why the entry exists.

        Raises:
            TypeError: ``name`` is not a str, or ``allowed`` is neither a bool nor callable.
        """
        key = _check_name('set_default_entry', name)
        self._defaults[key] = _make_entry('set_default_entry', allowed, reason)
        self._version += 1

    def get_default_entry(self, name: str) -> AcmEntry | None:
        """The default entry of ``name``, or ``None``."""
        return self._defaults.get(name)

    def get_default_entries(self) -> dict[str, AcmEntry]:
        """Every default entry as ``{name: entry}`` (a copy)."""
        return dict(self._defaults)

    def remove_default_entry(self, name: str) -> bool:
        """Remove the default entry of ``name``.

        Returns:
            True if it existed.
        """
        if self._defaults.pop(name, None) is None:
            return False
        self._version += 1
        return True

    # -- queries --------------------------------------------------------------------------------

    def resolve(self, name1: str, name2: str) -> AcmEntry | None:
        """The entry that governs contacts between two objects.

        The pair entry if there is one, else the combination of the default entries (module
        docstring), else ``None`` (contacts are collisions).
        """
        entry = self._entries.get(_canonical(name1, name2))
        if entry is not None:
            return entry
        d1, d2 = self._defaults.get(name1), self._defaults.get(name2)
        if d1 is None or d2 is None:
            return d1 if d2 is None else d2
        return _combine_defaults(d1, d2)

    def is_collision_allowed(self, name1: str, name2: str) -> bool:
        """True if contacts between the two objects are unconditionally allowed (SG-46).

        Symmetric. A CONDITIONAL entry cannot be decided without the contact, so it gives False
        here; ask :meth:`allowed_for` with the contact instead.
        """
        entry = self.resolve(name1, name2)
        return entry is not None and entry.type is AllowedCollisionType.ALWAYS

    def allowed_for(self, name1: str, name2: str, contact: Any) -> bool:
        """True if this particular ``contact`` between the two objects is allowed.

        ALWAYS gives True, NEVER or no entry False, CONDITIONAL ``decider(contact)``.
        """
        entry = self.resolve(name1, name2)
        if entry is None or entry.type is AllowedCollisionType.NEVER:
            return False
        if entry.decider is None:
            return True
        return bool(entry.decider(contact))

    # -- whole-matrix operations ----------------------------------------------------------------

    def insert(self, other: AllowedCollisionMatrix) -> None:
        """Merge ``other`` into this matrix (tesseract ``insertAllowedCollisionMatrix``).

        Entries of ``other`` replace entries of the same pair or name here (``dict.update``
        semantics; tesseract keeps the existing reason, which only differs in the reason text).
        """
        if not other._entries and not other._defaults:
            return
        for key, entry in other._entries.items():
            self._put(key, entry, bump=False)
        self._defaults.update(other._defaults)
        self._version += 1

    def with_prefix(self, prefix: str) -> AllowedCollisionMatrix:
        """A new matrix with ``prefix`` prepended to every name (pair and default entries).

        Used by ``SceneGraph.insert_scene_graph`` (SG-41).
        """
        acm = AllowedCollisionMatrix()
        for (a, b), entry in self._entries.items():
            acm._put(_canonical(prefix + a, prefix + b), entry, bump=False)
        acm._defaults = {prefix + name: e for name, e in self._defaults.items()}
        return acm

    def copy(self) -> AllowedCollisionMatrix:
        """An independent copy (entries are immutable and shared); its version starts at 0."""
        acm = AllowedCollisionMatrix()
        acm._entries = dict(self._entries)
        acm._partners = {name: dict(p) for name, p in self._partners.items()}
        acm._defaults = dict(self._defaults)
        return acm

    def compile(self, names: Sequence[str], pairs: ArrayLike | None = None) -> CompiledAcm:
        """Evaluate the matrix on index pairs of an ordered list of names (:class:`CompiledAcm`).

        The cost is O(P log E + n) for ``P`` pairs and ``E`` pair entries among the names: no
        Python loop runs over pairs except the CONDITIONAL ones, and no ``n × n`` array is
        made (a scene with 10 000 world objects compiles only the pairs it checks).

        Args:
            names: ``n`` object names, e.g. the body name of every collision geometry.
            pairs: ``(P, 2)`` index pairs into ``names``; default: every pair ``i < j`` in
                ``numpy.triu_indices(n, 1)`` order.

        Returns:
            The compiled matrix.

        Raises:
            InvalidArgumentError: ``pairs`` is not ``(P, 2)`` indices into ``names``.
        """
        names_t = tuple(names)
        index: dict[str, int] = {}
        ids = np.fromiter((index.setdefault(n, len(index)) for n in names_t), dtype=np.int64,
                          count=len(names_t))
        if pairs is None:
            rows, cols = np.triu_indices(len(names_t), 1)
            table = np.column_stack([rows, cols]).astype(np.intp)
        else:
            table = np.array(pairs, dtype=np.intp).reshape(-1, 2) if np.size(pairs) else \
                np.zeros((0, 2), dtype=np.intp)
            if len(table) and (table.min() < 0 or table.max() >= len(names_t)):
                raise InvalidArgumentError(f'AllowedCollisionMatrix.compile: pairs must index '
                                           f'the {len(names_t)} names')
        table.setflags(write=False)
        u = len(index)
        default_codes = np.full(u, _NO_ENTRY, dtype=np.int8)
        for name, k in index.items():
            d = self._defaults.get(name)
            if d is not None:
                default_codes[k] = _CODE[d.type]
        ka, kb = ids[table[:, 0]], ids[table[:, 1]]
        lo, hi = np.minimum(ka, kb), np.maximum(ka, kb)
        codes = np.minimum(default_codes[lo], default_codes[hi])  # defaults where no pair entry
        keys: list[int] = []
        values: list[int] = []
        explicit: dict[int, AcmEntry] = {}
        for name, k in index.items():
            for other in self._partners.get(name, ()):
                m = index.get(other)
                if m is None or m < k:
                    continue  # not compiled, or already seen from the other side
                entry = self._entries[_canonical(name, other)]
                keys.append(k * u + m)
                values.append(_CODE[entry.type])
                explicit[k * u + m] = entry
        pair_keys = lo * u + hi
        if keys:
            order = np.argsort(keys)
            sorted_keys = np.array(keys, dtype=np.int64)[order]
            pos = np.minimum(np.searchsorted(sorted_keys, pair_keys), len(keys) - 1)
            found = sorted_keys[pos] == pair_keys
            codes[found] = np.array(values, dtype=np.int8)[order][pos[found]]
        same = ka == kb
        allowed = (codes == _ALWAYS) | same
        allowed.setflags(write=False)
        uniq = list(index)
        deciders: dict[int, DecideContactFn] = {}
        conditional = []
        for row in np.flatnonzero((codes == _CONDITIONAL) & ~same).tolist():
            key = int(pair_keys[row])
            decider = deciders.get(key)
            if decider is None:
                governing = explicit.get(key) or self.resolve(uniq[key // u], uniq[key % u])
                assert governing is not None and governing.decider is not None
                decider = deciders[key] = governing.decider
            conditional.append((row, decider))
        return CompiledAcm(names_t, table, allowed, tuple(conditional), self._version)

    # -- dunder ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Number of pair entries (default entries not counted)."""
        return len(self._entries)

    def __contains__(self, item: object) -> bool:
        """``(a, b) in acm``: the pair has a pair entry; ``name in acm``: any entry names it."""
        if isinstance(item, str):
            return item in self._partners or item in self._defaults
        if isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
            return _canonical(item[0], item[1]) in self._entries
        return False

    def __iter__(self) -> Iterator[tuple[str, str]]:
        """The canonical pairs ``(a, b)``, ``a <= b``, that have a pair entry."""
        return iter(list(self._entries))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AllowedCollisionMatrix):
            return NotImplemented
        return self._entries == other._entries and self._defaults == other._defaults

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f'AllowedCollisionMatrix({len(self._entries)} pair entries, '
                f'{len(self._defaults)} default entries)')

    # -- internals ------------------------------------------------------------------------------

    def _put(self, key: tuple[str, str], entry: AcmEntry, *, bump: bool = True) -> None:
        a, b = key
        self._entries[key] = entry
        self._partners.setdefault(a, {})[b] = None
        self._partners.setdefault(b, {})[a] = None
        if bump:
            self._version += 1
