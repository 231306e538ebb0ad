"""The seed API map (docs/seed_api_map.md) names only attributes that exist (decision C2).

Every table row maps one seed member to a dotted reference (module, class, function, method,
property, enum member, module constant, dataclass/slots field, or an instance attribute of a
class listed in ``_INSTANCE_FACTORIES``) or to ``—`` with a reason. Reverse checks keep the map
complete as the two ``SceneGraph`` classes (tesseract and Drake geometry) and
``RpyFloatingJoint`` grow.
"""

from __future__ import annotations

from collections.abc import Callable
import dataclasses
from dataclasses import dataclass
import functools
import importlib
import json
from pathlib import Path
import re
from types import ModuleType
from typing import Any

import pytest

from robot_state_core.description.scene_graph import SceneGraph
from robot_state_core.geometry.scene_graph import SceneGraph as GeometrySceneGraph
from robot_state_core.io.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.model.rpy_floating import RpyFloatingJoint

DOC = Path(__file__).resolve().parents[1] / 'docs' / 'seed_api_map.md'
HEADER = ('seed member', 'ours', 'row', 'note')
LEFT_OUT = '—'
_REF = re.compile(r'`(robot_state_core(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`')
# Inventory table-row IDs (SG-05, G-C1), the §3.3 query items (Q1..Q6), or a section (§1.5).
_ROW_TOKEN = re.compile(r'[A-Z]+(?:-[A-Z0-9]+)+|Q\d+|§\d+(?:\.\d+)?')

# Minimum row counts: the seed classes are large, a short table means rows went missing.
MIN_ROWS = {
    ('SceneGraph',): 45,
    ('RpyFloatingJoint', 'Joint<T> (inherited by RpyFloatingJoint)'): 40,
    ('SceneGraph<T> (Drake geometry)',): 50,
    ('Inherited System<T>, LeafSystem<T> and SystemBase members (SceneGraph<T>)',): 40,
}
# Classes whose every public member must appear in the map, and the table that maps them.
REVERSE_CHECKED: tuple[type, ...] = (SceneGraph, GeometrySceneGraph, RpyFloatingJoint)


@functools.cache
def _default_robot_model() -> RobotModel:
    return RobotModel.from_urdf_file(default_robot_urdf_path(), default_robot_srdf_path())


# Plain classes whose public data lives in instance attributes set in __init__: the reference
# ``Class.attr`` is checked on a representative instance.
_INSTANCE_FACTORIES: dict[type, Callable[[], object]] = {RobotModel: _default_robot_model}


@dataclass(frozen=True)
class Row:
    table: str
    index: int
    line: int
    seed_member: str
    ours: str
    row_ids: str
    note: str


def _cells(line: str) -> list[str]:
    r"""The cells of a markdown table line (``\|`` is an escaped pipe)."""
    body = line.strip()
    body = body[1:-1] if body.endswith('|') else body[1:]
    return [c.strip().replace('\\|', '|') for c in re.split(r'(?<!\\)\|', body)]


def _parse(text: str) -> tuple[list[Row], list[str]]:
    """All rows of the map's tables, and the problems with the tables' shape."""
    rows: list[Row] = []
    problems: list[str] = []
    heading = ''
    in_table = False
    counts: dict[str, int] = {}
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if line.startswith('#'):
            heading = line.lstrip('#').strip()
            in_table = False
            continue
        if not line.startswith('|'):
            in_table = False
            continue
        cells = _cells(line)
        if not in_table:
            if tuple(c.lower() for c in cells) != HEADER:
                problems.append(f'line {number}: table header {cells} is not {list(HEADER)}')
            elif not re.fullmatch(r'\|(\s*:?-+:?\s*\|){4}', lines[number].strip()
                                  if number < len(lines) else ''):
                problems.append(f'line {number + 1}: missing separator row')
            elif heading in counts:
                problems.append(f'line {number}: second table under heading {heading!r}')
            else:
                counts[heading] = 0
            in_table = True
            continue
        if set(line.replace('|', '').strip()) <= set('-: '):
            continue  # separator
        if len(cells) != len(HEADER):
            problems.append(f'line {number}: {len(cells)} cells, expected {len(HEADER)}')
            continue
        counts[heading] = counts.get(heading, 0) + 1
        rows.append(Row(heading, counts[heading], number, *cells))
    return rows, problems


ROWS, TABLE_PROBLEMS = _parse(DOC.read_text(encoding='utf-8')) if DOC.is_file() else ([], [])


def _import_longest_module(parts: list[str]) -> tuple[ModuleType, list[str]]:
    """Import the longest module prefix of ``parts``; return it and the remaining names."""
    for i in range(len(parts), 0, -1):
        name = '.'.join(parts[:i])
        try:
            return importlib.import_module(name), parts[i:]
        except ModuleNotFoundError as err:
            missing = err.name or ''
            if name != missing and not name.startswith(missing + '.'):
                raise  # a real import error inside an existing module
    raise ModuleNotFoundError(f'no module in {".".join(parts)!r}')


def _instance_attributes(cls: type) -> set[str]:
    """Declared instance attributes of ``cls``: dataclass fields, slots, annotations."""
    names: set[str] = set()
    if dataclasses.is_dataclass(cls):
        names.update(f.name for f in dataclasses.fields(cls))
    for klass in cls.__mro__:
        slots = vars(klass).get('__slots__', ())
        names.update((slots,) if isinstance(slots, str) else slots)
        names.update(vars(klass).get('__annotations__', {}))
    return names


def resolve(reference: str) -> object:
    """Resolve a dotted reference from the package; raise AttributeError if it does not exist.

    Returns the object, or the owning class for a field that exists only on instances.
    """
    parts = reference.split('.')
    private = [p for p in parts if p.startswith('_')]
    if private:
        raise AttributeError(f'{reference}: private name(s) {private}')
    obj: Any
    obj, rest = _import_longest_module(parts)
    for k, name in enumerate(rest):
        if hasattr(obj, name):
            obj = getattr(obj, name)
            continue
        last = k == len(rest) - 1
        if isinstance(obj, type) and last:
            if name in _instance_attributes(obj):
                return obj
            factory = _INSTANCE_FACTORIES.get(obj)
            if factory is not None and hasattr(factory(), name):
                return obj
        raise AttributeError(f'{reference}: {obj!r} has no attribute {name!r}')
    return obj


def _ours_reference(row: Row) -> str | None:
    """The dotted reference of the ``ours`` cell, ``None`` for ``—``; raises if malformed."""
    if row.ours == LEFT_OUT:
        return None
    match = _REF.fullmatch(row.ours)
    if match is None:
        raise ValueError(f'line {row.line}: ours cell {row.ours!r} is neither {LEFT_OUT!r} nor '
                         'one `robot_state_core.dotted.name` in backticks')
    return match.group(1)


def _all_references() -> set[str]:
    return {ref for row in ROWS if (ref := _ours_reference(row)) is not None}


# --------------------------------------------------------------------------------------- tests


def test_map_exists_and_tables_are_well_formed() -> None:
    assert DOC.is_file(), f'{DOC} is missing'
    assert not TABLE_PROBLEMS, '\n'.join(TABLE_PROBLEMS)
    assert ROWS, 'no table rows found'


def _row_problem(row: Row) -> str | None:
    """What is wrong with one row, or ``None`` if it is fine.

    A row needs a seed member, and a resolvable reference or a reason for leaving the member out.
    """
    if not row.seed_member:
        return f'line {row.line}: empty seed member'
    try:
        reference = _ours_reference(row)
    except ValueError as err:
        return str(err)
    if reference is None:
        return None if row.note else \
            f'line {row.line}: {row.seed_member} is left out without a reason'
    try:
        resolve(reference)
    except (AttributeError, ImportError) as err:
        return f'line {row.line}: {row.seed_member} -> {reference} does not resolve: {err}'
    return None


def test_every_row_resolves_or_gives_a_reason() -> None:
    """One test over all rows; its failure lists every broken row (not one test per row)."""
    problems = [p for row in ROWS if (p := _row_problem(row)) is not None]
    assert not problems, f'{len(problems)} of {len(ROWS)} rows are broken:\n' + '\n'.join(problems)


def test_row_ids_are_well_formed() -> None:
    bad = [f'line {r.line}: {r.row_ids!r}' for r in ROWS if r.row_ids != LEFT_OUT and (
        not r.row_ids or any(not _ROW_TOKEN.fullmatch(t.strip()) for t in r.row_ids.split(',')))]
    assert not bad, 'row cells must be inventory IDs (comma-separated), §x.y, or —:\n' + \
        '\n'.join(bad)


def test_row_ids_exist_in_the_feature_inventory() -> None:
    """Every row's IDs are in the feature inventory (its IDs copied to test/resources)."""
    inventory = json.loads((Path(__file__).parent / 'resources' / 'seed_feature_ids.json')
                           .read_text(encoding='utf-8'))
    known = set(inventory['row_ids'])
    sections = set(inventory['sections'])
    unknown = []
    for row in ROWS:
        if row.row_ids == LEFT_OUT:
            continue
        for token in (t.strip() for t in row.row_ids.split(',')):
            found = token[1:] in sections if token.startswith('§') else token in known
            if not found:
                unknown.append(f'line {row.line}: {token}')
    assert not unknown, 'row IDs not in seed_features.md:\n' + '\n'.join(unknown)


def test_rows_are_not_duplicated() -> None:
    seen: dict[tuple[str, str, str], int] = {}
    duplicates = []
    for row in ROWS:
        key = (row.table, row.seed_member, row.ours)
        if key in seen:
            duplicates.append(f'line {row.line} repeats line {seen[key]}: {key}')
        seen.setdefault(key, row.line)
    assert not duplicates, '\n'.join(duplicates)


@pytest.mark.parametrize(('tables', 'minimum'), list(MIN_ROWS.items()),
                         ids=['+'.join(t) for t in MIN_ROWS])
def test_tables_are_non_trivial(tables: tuple[str, ...], minimum: int) -> None:
    present = {r.table for r in ROWS}
    missing = [t for t in tables if t not in present]
    assert not missing, f'tables {missing} not found (headings: {sorted(present)})'
    count = sum(r.table in tables for r in ROWS)
    assert count >= minimum, f'{tables}: {count} rows, expected at least {minimum}'


@pytest.mark.parametrize('cls', REVERSE_CHECKED,
                         ids=[f'{c.__module__}.{c.__qualname__}' for c in REVERSE_CHECKED])
def test_every_public_member_is_mapped(cls: type) -> None:
    """Reverse check: a public member added to the class must get a row in the map."""
    prefix = f'{cls.__module__}.{cls.__qualname__}.'
    mapped = {ref[len(prefix):] for ref in _all_references() if ref.startswith(prefix)}
    public = {n for klass in cls.__mro__[:-1] for n in vars(klass) if not n.startswith('_')}
    missing = sorted(public - mapped)
    assert not missing, f'public members of {cls.__name__} missing from {DOC.name}: {missing}'


def test_resolver_rejects_unknown_names() -> None:
    """The resolver is strict: typos, private names and unknown modules fail."""
    for reference in ('robot_state_core.description.scene_graph.SceneGraph.addLink',
                      'robot_state_core.description.scene_graph.SceneGraph._links',
                      'robot_state_core.description.joints.JointLimits.lower.real',
                      'robot_state_core.model.robot_model.RobotModel.no_such_array',
                      'robot_state_core.geometry.scene_graph.SceneGraph.RegisterSource',
                      'robot_state_core.geometry.roles.Role.kProximity',
                      'robot_state_core.no_such_module.Thing'):
        with pytest.raises((AttributeError, ImportError)):
            resolve(reference)
    assert resolve('robot_state_core.description.joints.JointType.FIXED') is not None
    assert resolve('robot_state_core.model.robot_model.RobotModel.joint_q_start') is RobotModel
