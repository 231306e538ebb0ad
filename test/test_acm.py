"""AllowedCollisionMatrix (SG-C10): symmetry, reasons, defaults, deciders, compile()."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from robot_state_core.description.acm import (
    AcmEntry,
    AllowedCollisionMatrix,
    AllowedCollisionType,
)
from robot_state_core.errors import InvalidArgumentError

ALWAYS = AllowedCollisionType.ALWAYS
NEVER = AllowedCollisionType.NEVER
CONDITIONAL = AllowedCollisionType.CONDITIONAL


def _deep_enough(contact: float) -> bool:
    """A decider: contacts shallower than 1 cm are allowed."""
    return contact < 0.01


def test_add_allowed_collision_is_symmetric_and_keeps_the_reason() -> None:
    """An allowed pair is allowed in both orders, stored once, with its reason (SG-43, SG-46)."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('b', 'a', 'Adjacent')
    assert acm.is_collision_allowed('a', 'b')
    assert acm.is_collision_allowed('b', 'a')
    assert len(acm) == 1
    assert acm.get_entry('a', 'b') == AcmEntry(ALWAYS, 'Adjacent')
    assert acm.get_entry('b', 'a') is acm.get_entry('a', 'b')
    assert acm.get_all_allowed_collisions() == {('a', 'b'): 'Adjacent'}


def test_unknown_pair_is_not_allowed() -> None:
    """No entry at all means contacts are collisions."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'Adjacent')
    assert not acm.is_collision_allowed('a', 'c')
    assert acm.get_entry('a', 'c') is None
    assert acm.resolve('a', 'c') is None


def test_adding_again_replaces_the_reason() -> None:
    """A second add of the same pair (either order) replaces the entry, not duplicates it."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'Adjacent')
    acm.add_allowed_collision('b', 'a', 'Never')
    assert acm.get_all_allowed_collisions() == {('a', 'b'): 'Never'}


def test_get_all_allowed_collisions_has_canonical_pairs_and_only_always_entries() -> None:
    """Keys are sorted pairs; NEVER and CONDITIONAL entries are not listed."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('z', 'y', 'r1')
    acm.add_allowed_collision('m', 'n', 'r2')
    acm.set_entry('p', 'q', False, 'blocked')
    acm.set_entry('s', 'r', _deep_enough, 'touching')
    assert acm.get_all_allowed_collisions() == {('y', 'z'): 'r1', ('m', 'n'): 'r2'}
    assert len(acm) == 4
    assert set(acm) == {('y', 'z'), ('m', 'n'), ('p', 'q'), ('r', 's')}


def test_never_entry_is_not_allowed() -> None:
    """set_entry(a, b, False) is a NEVER entry (MoveIt)."""
    acm = AllowedCollisionMatrix()
    acm.set_entry('a', 'b', False, 'must check')
    assert acm.get_entry('b', 'a') == AcmEntry(NEVER, 'must check')
    assert not acm.is_collision_allowed('a', 'b')
    assert not acm.allowed_for('a', 'b', 0.0)


def test_conditional_entry_needs_the_contact() -> None:
    """CONDITIONAL: not allowed without a contact; allowed_for asks the decider."""
    acm = AllowedCollisionMatrix()
    acm.set_entry('gripper', 'object', _deep_enough, 'grasp')
    entry = acm.get_entry('object', 'gripper')
    assert entry is not None
    assert entry.type is CONDITIONAL
    assert entry.decider is _deep_enough
    assert not acm.is_collision_allowed('gripper', 'object')
    assert acm.allowed_for('object', 'gripper', 0.005)
    assert not acm.allowed_for('gripper', 'object', 0.02)


def test_allowed_for_always_and_missing() -> None:
    """allowed_for: ALWAYS gives True whatever the contact; no entry gives False."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'Adjacent')
    assert acm.allowed_for('a', 'b', object())
    assert not acm.allowed_for('a', 'c', object())


def test_default_entry_is_used_only_without_a_pair_entry() -> None:
    """Defaults apply to every partner of the name; a pair entry takes precedence."""
    acm = AllowedCollisionMatrix()
    acm.set_default_entry('octomap', True, 'ignore the map')
    acm.set_entry('octomap', 'gripper', False)
    assert acm.is_collision_allowed('octomap', 'base')
    assert acm.is_collision_allowed('elbow', 'octomap')
    assert not acm.is_collision_allowed('gripper', 'octomap')
    assert acm.get_default_entry('octomap') == AcmEntry(ALWAYS, 'ignore the map')
    assert len(acm) == 1  # defaults are not pair entries


@pytest.mark.parametrize(('first', 'second', 'expected'), [
    (True, True, ALWAYS),
    (True, False, NEVER),
    (False, True, NEVER),
    (False, _deep_enough, NEVER),
    (True, _deep_enough, CONDITIONAL),
    (_deep_enough, _deep_enough, CONDITIONAL),
])
def test_two_default_entries_combine(first: object, second: object,
                                     expected: AllowedCollisionType) -> None:
    """NEVER wins over CONDITIONAL, which wins over ALWAYS."""
    acm = AllowedCollisionMatrix()
    acm.set_default_entry('a', first)  # type: ignore[arg-type]
    acm.set_default_entry('b', second)  # type: ignore[arg-type]
    entry = acm.resolve('a', 'b')
    assert entry is not None
    assert entry.type is expected
    assert acm.is_collision_allowed('a', 'b') == (expected is ALWAYS)


def test_two_conditional_defaults_must_both_allow() -> None:
    """Combined conditional defaults allow a contact only if both deciders do."""
    acm = AllowedCollisionMatrix()
    acm.set_default_entry('a', lambda c: c > 0.0)
    acm.set_default_entry('b', lambda c: c < 1.0)
    assert acm.allowed_for('a', 'b', 0.5)
    assert not acm.allowed_for('a', 'b', -0.5)
    assert not acm.allowed_for('b', 'a', 1.5)


def test_remove_default_entry() -> None:
    """remove_default_entry reports whether it existed and stops the default applying."""
    acm = AllowedCollisionMatrix()
    acm.set_default_entry('a', True)
    assert acm.remove_default_entry('a')
    assert not acm.remove_default_entry('a')
    assert not acm.is_collision_allowed('a', 'b')


def test_remove_one_pair_in_either_order() -> None:
    """remove_allowed_collision(a, b) removes exactly that pair (SG-44)."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'r')
    acm.add_allowed_collision('a', 'c', 'r')
    assert acm.remove_allowed_collision('b', 'a')
    assert not acm.is_collision_allowed('a', 'b')
    assert acm.is_collision_allowed('a', 'c')
    assert not acm.remove_allowed_collision('a', 'b')
    assert not acm.remove_entry('x', 'y')


def test_remove_all_pairs_of_one_name() -> None:
    """remove_allowed_collision(name) removes every pair naming it, and nothing else."""
    acm = AllowedCollisionMatrix()
    for other in ('b', 'c', 'd'):
        acm.add_allowed_collision('a', other, 'r')
    acm.add_allowed_collision('b', 'c', 'r')
    acm.add_allowed_collision('a', 'a', 'self')
    acm.set_default_entry('a', True)
    assert acm.remove_allowed_collision('a')
    assert acm.get_all_allowed_collisions() == {('b', 'c'): 'r'}
    assert acm.get_default_entry('a') is not None  # defaults are separate
    assert ('a', 'b') not in acm
    assert not acm.remove_allowed_collision('a')
    # the partner index stays consistent: b's remaining pair can still be removed by name
    assert acm.remove_allowed_collision('c')
    assert len(acm) == 0
    assert 'b' not in acm


def test_self_pair_entry_can_be_removed_as_a_pair() -> None:
    """An (a, a) entry is stored and removed like any other pair."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'a', 'self')
    assert acm.is_collision_allowed('a', 'a')
    assert acm.remove_entry('a', 'a')
    assert 'a' not in acm
    assert len(acm) == 0


def test_clear_removes_pairs_and_defaults() -> None:
    """clear() empties the matrix (SG-45)."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'r')
    acm.set_default_entry('c', True)
    acm.clear()
    assert len(acm) == 0
    assert acm.get_default_entry('c') is None
    assert not acm.is_collision_allowed('c', 'd')
    assert acm == AllowedCollisionMatrix()


def test_contains_pairs_and_names() -> None:
    """`(a, b) in acm` tests a pair entry; `name in acm` any entry naming it."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'r')
    acm.set_default_entry('d', False)
    assert ('b', 'a') in acm
    assert ('a', 'c') not in acm
    assert 'a' in acm
    assert 'd' in acm
    assert 'c' not in acm
    assert 42 not in acm
    assert ('a', 'b', 'c') not in acm


def test_insert_merges_and_the_inserted_entries_win() -> None:
    """insert(other) adds other's pairs and defaults; on the same pair other's entry wins."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'old')
    acm.add_allowed_collision('a', 'c', 'keep')
    other = AllowedCollisionMatrix()
    other.add_allowed_collision('b', 'a', 'new')
    other.set_entry('x', 'y', False)
    other.set_default_entry('z', True)
    acm.insert(other)
    assert acm.get_all_allowed_collisions() == {('a', 'b'): 'new', ('a', 'c'): 'keep'}
    assert acm.get_entry('x', 'y') == AcmEntry(NEVER)
    assert acm.is_collision_allowed('z', 'anything')
    assert len(other) == 2  # other is not modified
    assert acm.remove_allowed_collision('y')  # the partner index covers inserted pairs


def test_with_prefix_renames_every_name_in_a_new_matrix() -> None:
    """with_prefix prefixes pair and default entries and leaves the original alone."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'Adjacent')
    acm.set_entry('a', 'c', _deep_enough, 'grasp')
    acm.set_default_entry('b', False)
    prefixed = acm.with_prefix('left_')
    assert prefixed.get_all_allowed_collisions() == {('left_a', 'left_b'): 'Adjacent'}
    assert prefixed.get_entry('left_c', 'left_a') == AcmEntry(CONDITIONAL, 'grasp',
                                                              _deep_enough)
    assert prefixed.get_default_entry('left_b') == AcmEntry(NEVER)
    assert acm.get_all_allowed_collisions() == {('a', 'b'): 'Adjacent'}
    assert 'left_a' not in acm


def test_with_prefix_recanonicalizes_pairs() -> None:
    """A prefix can change the sort order of a pair; the entry is still found."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('B', 'a', 'r')  # 'B' < 'a'
    prefixed = acm.with_prefix('x')
    assert prefixed.is_collision_allowed('xa', 'xB')
    assert list(prefixed) == [('xB', 'xa')]


def test_copy_is_independent_and_equal() -> None:
    """copy() compares equal and later edits of either side do not leak."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'r')
    acm.set_default_entry('c', True)
    dup = acm.copy()
    assert dup == acm
    dup.add_allowed_collision('a', 'c', 'r')
    dup.remove_allowed_collision('a', 'b')
    assert acm.get_all_allowed_collisions() == {('a', 'b'): 'r'}
    assert dup != acm


def test_equality_ignores_insertion_order_and_version() -> None:
    """Two matrices with the same entries are equal, however they were built."""
    one = AllowedCollisionMatrix()
    one.add_allowed_collision('a', 'b', 'r')
    one.add_allowed_collision('c', 'd', 's')
    two = AllowedCollisionMatrix()
    two.add_allowed_collision('d', 'c', 's')
    two.add_allowed_collision('x', 'y', 'r')
    two.remove_allowed_collision('x')
    two.add_allowed_collision('b', 'a', 'r')
    assert one == two
    assert one.version != two.version
    two.add_allowed_collision('a', 'b', 'other reason')
    assert one != two


def test_version_increments_only_on_change() -> None:
    """Successful mutations bump the version; no-op removals do not."""
    acm = AllowedCollisionMatrix()
    v0 = acm.version
    acm.add_allowed_collision('a', 'b', 'r')
    v1 = acm.version
    assert v1 > v0
    assert not acm.remove_allowed_collision('x')
    assert not acm.remove_entry('a', 'x')
    assert not acm.remove_default_entry('a')
    acm.insert(AllowedCollisionMatrix())
    assert acm.version == v1
    acm.clear()
    assert acm.version > v1
    v2 = acm.version
    acm.clear()
    assert acm.version == v2


def test_acm_entry_validates_decider() -> None:
    """CONDITIONAL needs a decider; the other types refuse one."""
    with pytest.raises(ValueError, match='needs a decider'):
        AcmEntry(CONDITIONAL)
    with pytest.raises(ValueError, match='takes no decider'):
        AcmEntry(ALWAYS, '', _deep_enough)


def test_bad_arguments_raise() -> None:
    """Non-str names and a non-bool, non-callable `allowed` are programmer errors."""
    acm = AllowedCollisionMatrix()
    with pytest.raises(TypeError):
        acm.add_allowed_collision('a', 3, 'r')  # type: ignore[arg-type]
    with pytest.raises(TypeError, match='bool or a callable'):
        acm.set_entry('a', 'b', 'yes')  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        acm.set_default_entry('a', 1.0)  # type: ignore[arg-type]
    assert len(acm) == 0
    assert acm.version == 0


def test_empty_names_are_names_as_in_tesseract() -> None:
    """No name is refused in tesseract (``tesseract_common/src/allowed_collision_matrix.cpp``).

    ``addAllowedCollision`` stores ``makeOrderedLinkPair(link_name1, link_name2)`` for any
    strings, ``isCollisionAllowed`` looks the ordered pair up and ``removeAllowedCollision``
    erases it; MoveIt's ``AllowedCollisionMatrix::setEntry`` does not check names either. An
    entry naming ``''`` matches no link of a URDF (link names are not empty) and changes
    nothing else (decision T-13).
    """
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('', 'b', 'r')
    acm.set_default_entry('', True)
    assert acm.is_collision_allowed('b', '') and acm.is_collision_allowed('', '')
    assert acm.get_all_allowed_collisions() == {('', 'b'): 'r'}
    assert not acm.is_collision_allowed('a', 'b')
    assert acm.remove_entry('b', '') and len(acm) == 0


def test_numpy_bool_is_accepted() -> None:
    """A numpy bool counts as a bool (handy when entries come from arrays)."""
    acm = AllowedCollisionMatrix()
    acm.set_entry('a', 'b', np.bool_(True))
    assert acm.is_collision_allowed('a', 'b')


# -- compile ------------------------------------------------------------------------------------


def _dense(c) -> np.ndarray:
    """The compiled pairs as a symmetric (n, n) matrix, True on the diagonal."""
    n = len(c.names)
    out = np.eye(n, dtype=bool)
    out[c.pairs[:, 0], c.pairs[:, 1]] = c.allowed
    out[c.pairs[:, 1], c.pairs[:, 0]] = c.allowed
    return out


def test_compile_small_matrix() -> None:
    """compile(): one bool per pair (every i < j by default), True for ALWAYS pairs only."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'b', 'Adjacent')
    acm.set_entry('b', 'c', False)
    acm.set_entry('a', 'c', _deep_enough)
    compiled = acm.compile(['a', 'b', 'c', 'd'])
    expected = np.array([[1, 1, 0, 0],
                         [1, 1, 0, 0],
                         [0, 0, 1, 0],
                         [0, 0, 0, 1]], dtype=bool)
    np.testing.assert_array_equal(_dense(compiled), expected)
    np.testing.assert_array_equal(compiled.pairs, np.column_stack(np.triu_indices(4, 1)))
    assert compiled.names == ('a', 'b', 'c', 'd')
    row = [tuple(p) for p in compiled.pairs.tolist()].index((0, 2))
    assert compiled.conditional == ((row, _deep_enough),)
    assert compiled.version == acm.version
    assert not compiled.allowed.flags.writeable


def test_compile_with_repeated_names_and_defaults() -> None:
    """Repeated names (geometries of one link) are allowed among themselves.

    Defaults fill pairs without a pair entry; entries naming uncompiled objects are harmless.
    """
    acm = AllowedCollisionMatrix()
    acm.set_default_entry('map', True)
    acm.set_entry('map', 'hand', False)
    acm.add_allowed_collision('hand', 'not_compiled', 'r')
    names = ['arm', 'arm', 'hand', 'map']
    c = acm.compile(names)
    expected = np.array([[1, 1, 0, 1],
                         [1, 1, 0, 1],
                         [0, 0, 1, 0],
                         [1, 1, 0, 1]], dtype=bool)
    np.testing.assert_array_equal(_dense(c), expected)
    assert c.conditional == ()


def test_compile_conditional_defaults_give_one_pair_per_geometry_pair() -> None:
    """A conditional default yields (row, decider) for every affected index pair."""
    acm = AllowedCollisionMatrix()
    acm.set_default_entry('obj', _deep_enough)
    c = acm.compile(['obj', 'l1', 'obj', 'l2'])
    pairs = {tuple(c.pairs[r].tolist()) for r, _ in c.conditional}
    assert pairs == {(0, 1), (0, 3), (1, 2), (2, 3)}
    assert all(d is _deep_enough for _, d in c.conditional)
    assert _dense(c)[0, 2]  # same name
    assert not _dense(c)[0, 1]


def test_compile_empty() -> None:
    """No names give no pairs."""
    c = AllowedCollisionMatrix().compile([])
    assert c.pairs.shape == (0, 2)
    assert c.allowed.shape == (0,)
    assert c.allowed.dtype == np.bool_
    assert c.conditional == ()


def test_compile_given_pairs_only() -> None:
    """With ``pairs``, only those pairs are evaluated, in the given order and orientation."""
    acm = AllowedCollisionMatrix()
    acm.add_allowed_collision('a', 'c', 'r')
    acm.set_default_entry('d', True)
    c = acm.compile(['a', 'b', 'c', 'd'], [[2, 0], [1, 2], [3, 1], [0, 0]])
    assert c.allowed.tolist() == [True, False, True, True]
    with pytest.raises(InvalidArgumentError):
        acm.compile(['a', 'b'], [[0, 2]])


def test_compile_agrees_with_pairwise_queries_on_a_random_matrix() -> None:
    """Property: compile() agrees with the pairwise queries on a seeded random ACM.

    compiled[i, j] == is_collision_allowed(names[i], names[j]) off the diagonal, and the
    conditional list is exactly the CONDITIONAL pairs with the same decisions.
    """
    rng = np.random.default_rng(0)
    names = [f'l{i}' for i in range(12)]
    acm = AllowedCollisionMatrix()
    for a, b in itertools.combinations(names, 2):
        r = rng.uniform()
        if r < 0.3:
            acm.add_allowed_collision(a, b, 'r')
        elif r < 0.4:
            acm.set_entry(a, b, False)
        elif r < 0.5:
            acm.set_entry(a, b, _deep_enough)
    for n in names[::3]:
        acm.set_default_entry(n, bool(rng.uniform() < 0.5))
    acm.set_default_entry('l4', _deep_enough)
    order = list(rng.permutation(names))
    c = acm.compile(order)
    dense = _dense(c)
    np.testing.assert_array_equal(dense, dense.T)
    conditional = set()
    for i, j in itertools.combinations(range(len(order)), 2):
        assert dense[i, j] == acm.is_collision_allowed(order[i], order[j])
        entry = acm.resolve(order[i], order[j])
        if entry is not None and entry.type is CONDITIONAL:
            conditional.add((i, j))
    assert {tuple(c.pairs[r].tolist()) for r, _ in c.conditional} == conditional
    assert conditional  # the property covers conditional pairs
    for r, decider in c.conditional:
        i, j = c.pairs[r].tolist()
        assert decider(0.0) == acm.allowed_for(order[i], order[j], 0.0)
        assert decider(1.0) == acm.allowed_for(order[i], order[j], 1.0)
