"""xacro robot descriptions (``robot.urdf.xacro``) expanded to URDF XML, in-process.

The expansion is done by the PyPI ``xacro`` package (the ROS xacro, ros/xacro 2.x, pinned in
``constraints.txt``) used as a library, so its output is the ``xacro`` command's output. Three
things are wrapped around it:

* ``$(find pkg)`` and ``${find('pkg')}`` resolve through our
  :class:`~robot_state_core.io.resources.ResourceResolver` (explicit package map, package roots,
  the ament index of ``AMENT_PREFIX_PATH`` read from the file system, ``robot_state_core``),
  instead of xacro's ``ament_index_python`` call: the same packages the mesh URIs see, and no ROS
  import;
* everything xacro prints on stderr (deprecations, redefinitions) becomes a warning of the
  result instead;
* every xacro failure becomes a :class:`~robot_state_core.errors.XacroError` naming the file the
  problem is in (the included file, or the file defining the macro) and, when it can be found,
  the line.

xacro keeps its state in module globals, so expansions are serialized by a lock.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
import contextlib
from dataclasses import dataclass
import io
from pathlib import Path
import re
import threading
from typing import Any

from robot_state_core.errors import InvalidArgumentError, RobotDescriptionError, XacroError
from robot_state_core.io.resources import ResourceResolver

#: File name suffix that marks a xacro document (``robot.urdf.xacro``, ``robot.xacro``).
XACRO_SUFFIX = '.xacro'

_LOCK = threading.Lock()
_EXPRESSION = re.compile(r"when evaluating expression '(.*)'", re.DOTALL)
_UNKNOWN_MACRO = re.compile(r'unknown macro name: (\S+)')


@dataclass(frozen=True)
class XacroResult:
    """An expanded xacro document.

    Attributes:
        xml: The URDF XML, as the ``xacro`` command prints it.
        source: The xacro file.
        warnings: What xacro reported while expanding (it prints these on stderr).
    """

    xml: str
    source: Path
    warnings: tuple[str, ...]


def is_xacro_path(path: str | Path) -> bool:
    """Whether ``path`` names a xacro document (its name ends in ``.xacro``)."""
    return str(path).endswith(XACRO_SUFFIX)


def parse_xacro_args(items: Sequence[str]) -> dict[str, str]:
    """``['name:=value', ...]`` (the ``xacro`` command's argument syntax) to a mapping.

    Raises:
        InvalidArgumentError: An item has no ``:=`` or an empty name.
    """
    mappings: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(':=')
        if not sep or not name.strip():
            raise InvalidArgumentError(
                f'xacro argument {item!r} is not of the form name:=value')
        mappings[name.strip()] = value
    return mappings


class _PackageNotFoundError(LookupError):
    """``$(find pkg)`` named a package no resolver source knows."""

    def __init__(self, package: str, message: str) -> None:
        super().__init__(message)
        self.package = package


@contextlib.contextmanager
def _find_through(resolver: ResourceResolver) -> Iterator[None]:
    """Route xacro's ``$(find pkg)`` / ``find('pkg')`` to ``resolver`` while the block runs."""
    from xacro import substitution_args

    def find(package: str) -> str:
        directory = resolver.package_directory(package)
        if directory is None:
            roots = ', '.join(str(r) for r in resolver.package_roots) or 'none'
            raise _PackageNotFoundError(package,
                f'package {package!r} not found (package roots: {roots}; nor in the ament '
                f'index of AMENT_PREFIX_PATH)')
        return str(directory.resolve())

    saved = substitution_args._eval_find, substitution_args._eval_dict.get('find')
    substitution_args._eval_find = find
    substitution_args._eval_dict['find'] = find
    try:
        yield
    finally:
        substitution_args._eval_find = saved[0]
        substitution_args._eval_dict['find'] = saved[1]


def _line_of(path: str | None, needle: str | None) -> int | None:
    """1-based line of the first occurrence of ``needle`` in the file ``path``."""
    if not path or not needle:
        return None
    try:
        text = Path(path).read_text(encoding='utf-8', errors='replace')
    except OSError:
        return None
    index = text.find(needle)
    return None if index < 0 else text.count('\n', 0, index) + 1


def _locate(exc: BaseException, xacro_module: Any, top: Path) -> tuple[str, int | None]:
    """The file (and line) an xacro failure comes from."""
    files = [f for f in (xacro_module.filestack or []) if f]
    macros = list(xacro_module.macrostack or [])
    file = str(files[-1]) if files else str(top)
    message = str(exc)
    lineno = getattr(exc, 'lineno', None)  # XML syntax errors (expat) carry the line
    if lineno is not None:
        return file, int(lineno)
    if macros and macros[-1].history and macros[-1].history[-1]:
        definition = macros[-1].history[-1][-1]  # the file that defines the macro
        if definition:
            file = str(definition)
    needle = None
    cause = getattr(exc, 'exc', None)
    if isinstance(cause, _PackageNotFoundError):
        needle = f'find {cause.package}'
    elif (m := _EXPRESSION.search(message)) is not None:
        needle = '${' + m.group(1) + '}'
    elif (m := _UNKNOWN_MACRO.search(message)) is not None:
        needle = '<' + m.group(1)
    elif isinstance(cause, OSError) and cause.filename:
        needle = Path(cause.filename).name
    elif 'Undefined substitution argument' in message:
        needle = '$(arg ' + message.rsplit(' ', 1)[-1]
    line = _line_of(file, needle)
    if line is None and macros:  # e.g. a missing macro parameter: the call site
        file = str(files[-1]) if files else str(top)
        name = macros[-1].body.getAttribute('name')
        line = _line_of(file, f':{name}')
    return file, line


def expand_xacro_file(path: str | Path, *, mappings: Mapping[str, str] | None = None,
                      resolver: ResourceResolver | None = None) -> XacroResult:
    """Expand a xacro file to URDF XML (what ``xacro path name:=value ...`` prints).

    Args:
        path: The ``.xacro`` file; relative includes resolve against each file's directory.
        mappings: xacro arguments (``<xacro:arg>`` values), as ``name:=value`` on the command
            line.
        resolver: Resolves ``$(find pkg)``; default: the ament index of ``AMENT_PREFIX_PATH``.

    Returns:
        The XML, the file and the warnings xacro printed.

    Raises:
        XacroError: The file cannot be read, is not well-formed XML, or xacro cannot expand it
            (undefined property, argument or macro, a failing expression, a missing include,
            an unknown package, macros nested beyond Python's recursion limit); ``file`` and
            ``line`` say where.
    """
    import xml.parsers.expat

    import xacro

    source = Path(path)
    if not source.is_file():
        raise XacroError(f'cannot read xacro file {str(source)!r}: no such file', file=str(source))
    resolver = resolver or ResourceResolver()
    stderr = io.StringIO()
    with _LOCK, contextlib.redirect_stderr(stderr), _find_through(resolver):
        try:
            document = xacro.process_file(str(source), mappings=dict(mappings or {}),
                                          verbosity=1)
            urdf_xml = document.toprettyxml(indent='  ')
        except (xacro.XacroException, xml.parsers.expat.ExpatError, _PackageNotFoundError,
                ValueError, TypeError, NameError, KeyError, OSError, RecursionError) as exc:
            file, line = _locate(exc, xacro, source)
            text = str(exc) or type(exc).__name__
            if isinstance(exc, RecursionError):  # xacro recurses per macro call and element
                text = f'expansion nested too deeply (a macro that calls itself?): {text}'
            cause = getattr(exc, 'exc', None)
            if isinstance(cause, OSError) and exc.args:
                text = str(exc.args[0])  # xacro's message already names the file
            elif isinstance(cause, _PackageNotFoundError):
                text = str(cause)
            if isinstance(exc, xml.parsers.expat.ExpatError):
                text = f'XML parsing error: {text}'
            raise XacroError(' '.join(text.split()), file=file, line=line) from exc
        finally:
            xacro.init_stacks(None)
    return XacroResult(urdf_xml, source, _warnings(stderr.getvalue()))


#: Lines xacro prints after a warning to say where it happened.
_LOCATION_LINES = ('when processing file:', 'included from:', 'in file:',
                   'when instantiating macro:', 'instantiated from:')


def _warnings(stderr: str) -> tuple[str, ...]:
    """One warning per message of xacro's stderr, its location lines appended in parentheses."""
    warnings: list[str] = []
    for line in (raw.strip() for raw in stderr.splitlines()):
        if not line:
            continue
        if warnings and line.startswith(_LOCATION_LINES):
            warnings[-1] += f' ({line})'
        else:
            warnings.append(line.removeprefix('warning: '))
    return tuple(warnings)


def read_robot_description(path: str | Path, *, mappings: Mapping[str, str] | None = None,
                           resolver: ResourceResolver | None = None) -> str:
    """The URDF XML of a description file: a URDF as it is, a ``.xacro`` file expanded.

    This is what a ``robot_description`` parameter gets from ``cat robot.urdf`` or
    ``xacro robot.urdf.xacro name:=value``.

    Raises:
        RobotDescriptionError: The file cannot be read.
        XacroError: The xacro file cannot be expanded.
    """
    if is_xacro_path(path):
        return expand_xacro_file(path, mappings=mappings, resolver=resolver).xml
    try:
        return Path(path).read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise RobotDescriptionError(f'cannot read URDF {str(path)!r}: {reason}') from exc
