"""Every stand-in definition in ``interfaces/`` has exactly upstream's fields, constants and order.

Origin of the cases: ``test/resources/upstream_interfaces.json``, the upstream field lists of every
``.msg``, ``.srv`` and ``.action`` file under ``interfaces/`` (no comments), written from upstream
definitions read with the public-source search tools. Most are the verbatim definitions that rosidl
embedded (``toplevel_type_raw_source``) in public ROS 2 builds of the real packages: moveit_msgs
from ``orka375/moveit2`` at ``5d41409f`` (its type hashes equal the golden ones), tf2_msgs and
object_recognition_msgs from other such builds; TF2Error and LookupTransform from
``ros2/geometry2``, OctomapWithPose from the ROS 2 port of octomap_msgs. Each entry names the
repository, commit and path it was read from.

The RIHS01 hash test (``test_interface_hashes.py``) already covers field names, types and order,
but it needs a ROS install and a golden value, and the hash leaves out constants and default
values. This test needs no ROS: it parses the ``.msg``/``.srv``/``.action`` text itself.
"""

import json
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
INTERFACES_DIR = REPO_ROOT / 'interfaces'
UPSTREAM_FILE = Path(__file__).resolve().parent / 'resources' / 'upstream_interfaces.json'

if not INTERFACES_DIR.is_dir():  # a colcon workspace holds the package without its stand-ins
    pytest.skip(f'{INTERFACES_DIR} is not in this checkout', allow_module_level=True)

PRIMITIVES = frozenset({
    'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16', 'uint16', 'int32',
    'uint32', 'int64', 'uint64', 'string', 'wstring', 'octet', 'float', 'double',
})
SECTIONS = {
    'msg': (None,), 'srv': ('request', 'response'), 'action': ('goal', 'result', 'feedback'),
}


def _base_type(type_string):
    """Split ``'geometry_msgs/Pose[<=3]'`` into ``('geometry_msgs/Pose', '[<=3]')``."""
    index = type_string.find('[')
    return (type_string, '') if index < 0 else (type_string[:index], type_string[index:])


def canonical_type(type_string, package):
    """The fully qualified form of a field or constant type, as rosidl resolves it.

    Args:
        type_string: The type as written, e.g. ``'RobotState[]'``, ``'Header'``, ``'string<=8'``.
        package: The package of the file it is written in (for same-package short names).

    Returns:
        str: ``'pkg/Type'`` for nested types (``'/msg/'`` dropped), the primitive name otherwise,
        with the array suffix kept.
    """
    base, suffix = _base_type(type_string)
    primitive = base.split('<=')[0]  # bounded strings: string<=N
    if primitive in PRIMITIVES:
        return base + suffix
    if base == 'Header':  # rosidl_adapter's one special case
        base = 'std_msgs/Header'
    parts = base.split('/')
    if len(parts) == 1:
        base = f'{package}/{base}'
    elif len(parts) == 3 and parts[1] == 'msg':
        base = f'{parts[0]}/{parts[2]}'
    return base + suffix


def _strip_comment(line, type_string):
    """Remove a ``#`` comment; string constants and defaults keep a ``#`` in their value."""
    if _base_type(type_string)[0].split('<=')[0] in ('string', 'wstring'):
        head = line.split('#', 1)[0]
        rest = head.split(None, 1)[1] if len(head.split(None, 1)) > 1 else ''
        if '=' in rest or len(rest.split()) > 1:  # constant or default: the value runs to the end
            return line.rstrip()
    return line.split('#', 1)[0].rstrip()


def _constant_value(type_string, value):
    """Normalize a constant's value for comparison (``'2'`` and ``'0x02'`` are the same int)."""
    value = value.strip()
    base = _base_type(type_string)[0]
    if base in ('bool',):
        return value.lower() in ('true', '1')
    if base in ('float32', 'float64', 'float', 'double'):
        return float(value)
    if base in PRIMITIVES - {'string', 'wstring'}:
        try:
            return int(value)
        except ValueError:
            return int(value, 0)  # 0x.., 0o.., 0b..
    return value


def parse_section(lines, package):
    """Fields and constants of one section of an interface file.

    Args:
        lines: The section's lines (no ``---``).
        package: The package the file belongs to.

    Returns:
        dict: ``{'fields': [(type, name, default)], 'constants': [(type, name, value)]}``, types
        canonical, in file order.
    """
    fields, constants = [], []
    for raw in lines:
        stripped = raw.strip()
        if not stripped or stripped.startswith('#'):
            continue
        type_string = stripped.split(None, 1)[0]
        line = _strip_comment(stripped, type_string)
        parts = line.split(None, 1)
        if len(parts) < 2:
            raise ValueError(f'not a field or constant: {raw!r}')
        rest = parts[1]
        canonical = canonical_type(type_string, package)
        if '=' in rest.split()[0] or (len(rest.split()) > 1 and rest.split()[1].startswith('=')):
            name, value = (s.strip() for s in rest.split('=', 1))
            constants.append((canonical, name, _constant_value(type_string, value)))
        else:
            name_default = rest.split(None, 1)
            default = name_default[1].strip() if len(name_default) > 1 else None
            fields.append((canonical, name_default[0], default))
    return {'fields': fields, 'constants': constants}


def parse_interface(text, kind, package):
    """Parse the text of a ``.msg``, ``.srv`` or ``.action`` file.

    Args:
        text: The file's contents.
        kind: ``'msg'``, ``'srv'`` or ``'action'``.
        package: The package the file belongs to.

    Returns:
        dict: For a message, ``{'fields': ..., 'constants': ...}``; for a service or action, one
        such dict per section name (``request``/``response``, ``goal``/``result``/``feedback``).
    """
    sections = [[]]
    for line in text.splitlines():
        if line.strip() == '---':
            sections.append([])
        else:
            sections[-1].append(line)
    names = SECTIONS[kind]
    if len(sections) != len(names):
        raise ValueError(f'a .{kind} file has {len(names)} sections, this one {len(sections)}')
    parsed = [parse_section(section, package) for section in sections]
    return parsed[0] if kind == 'msg' else dict(zip(names, parsed, strict=True))


def _upstream_section(entry, package):
    """An upstream JSON section in the form ``parse_section`` returns."""
    return {
        'fields': [(canonical_type(f['type'], package), f['name'], f['default'])
                   for f in entry['fields']],
        'constants': [(canonical_type(c['type'], package), c['name'],
                       _constant_value(c['type'], c['value'])) for c in entry['constants']],
    }


with UPSTREAM_FILE.open(encoding='utf-8') as _stream:
    UPSTREAM = json.load(_stream)['interfaces']

LOCAL = {
    f'{path.parents[1].name}/{path.parent.name}/{path.stem}': path
    for pattern in ('*/msg/*.msg', '*/srv/*.srv', '*/action/*.action')
    for path in sorted(INTERFACES_DIR.glob(pattern))
}


def test_every_interface_file_has_an_upstream_entry():
    """Each stand-in file has upstream's field list in the JSON; the JSON has no stale entry."""
    assert LOCAL, f'no interface files under {INTERFACES_DIR}'
    assert sorted(set(LOCAL) - set(UPSTREAM)) == []
    assert sorted(set(UPSTREAM) - set(LOCAL)) == []


@pytest.mark.parametrize('type_name', sorted(LOCAL))
def test_definition_matches_upstream(type_name):
    """Fields (type, name, default), constants (type, name, value) and their order are upstream's.

    Args:
        type_name: ``pkg/kind/Type`` of a stand-in file.
    """
    package, kind, _ = type_name.split('/')
    ours = parse_interface(LOCAL[type_name].read_text(encoding='utf-8'), kind, package)
    entry = UPSTREAM[type_name]
    if kind == 'msg':
        assert ours == _upstream_section(entry, package)
    else:
        for section in SECTIONS[kind]:
            assert ours[section] == _upstream_section(entry[section], package), section


@pytest.mark.parametrize('type_name', sorted(UPSTREAM))
def test_upstream_entry_names_its_sources(type_name):
    """Every upstream entry names the upstream file and at least one file it was read from.

    Args:
        type_name: ``pkg/kind/Type`` of an upstream entry.
    """
    entry = UPSTREAM[type_name]
    assert {'repository', 'branch', 'path'} <= set(entry['upstream'])
    used = [s for s in entry['read_from'] if not s['what'].startswith('NOT used')]
    assert used
    for source in used:
        assert source['path']
        assert (source.get('repository') and source.get('commit')) or source.get('index_file_id')


def test_parser_handles_the_msg_syntax():
    """The parser reads comments, constants (with or without spaces), defaults and arrays."""
    text = '\n'.join([
        '# a comment',
        'uint8 A=1  # trailing comment',
        'uint8 B = 0x02',
        'string S="a # not a comment"',
        'Header header',
        'RobotState[] states',
        'geometry_msgs/msg/Pose pose',
        'float64[<=3] dims',
        'int32 count 7  # default',
        'string<=8 short',
    ])
    parsed = parse_interface(text, 'msg', 'moveit_msgs')
    assert parsed['constants'] == [('uint8', 'A', 1), ('uint8', 'B', 2),
                                   ('string', 'S', '"a # not a comment"')]
    assert parsed['fields'] == [
        ('std_msgs/Header', 'header', None), ('moveit_msgs/RobotState[]', 'states', None),
        ('geometry_msgs/Pose', 'pose', None), ('float64[<=3]', 'dims', None),
        ('int32', 'count', '7'), ('string<=8', 'short', None),
    ]
    service = parse_interface('int32 a\n---\n', 'srv', 'p')
    assert service == {'request': {'fields': [('int32', 'a', None)], 'constants': []},
                       'response': {'fields': [], 'constants': []}}
    with pytest.raises(ValueError):
        parse_interface('int32 a\n---\nint32 b\n---\n', 'srv', 'p')


def test_a_changed_definition_is_caught():
    """Reordering two fields, renaming one or changing a constant's value makes a mismatch."""
    entry = UPSTREAM['moveit_msgs/msg/CollisionObject']
    text = LOCAL['moveit_msgs/msg/CollisionObject'].read_text(encoding='utf-8')
    expected = _upstream_section(entry, 'moveit_msgs')
    assert parse_interface(text, 'msg', 'moveit_msgs') == expected
    reordered = text.replace('string id\n', '').replace(
        'geometry_msgs/Pose pose\n', 'string id\ngeometry_msgs/Pose pose\n')
    renamed = text.replace('string id', 'string name')
    revalued = text.replace('byte MOVE=3', 'byte MOVE=4')
    for changed in (reordered, renamed, revalued):
        assert changed != text
        assert parse_interface(changed, 'msg', 'moveit_msgs') != expected
