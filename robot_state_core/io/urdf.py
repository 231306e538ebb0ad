"""URDF parsing through urdf_parser_py, wrapped so that nothing leaks to the user.

urdf_parser_py reports problems through a module-global ``on_error`` hook that writes to
stderr, and validates with ``assert``. :func:`parse_urdf` parses with our hardened XML parser
(:mod:`robot_state_core.io.safe_xml`), swaps the hook for a collector while it runs (under a
lock, restored afterwards), and turns every failure into a typed :class:`UrdfLoadError` naming
the element and line.
"""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
import logging
from pathlib import Path
import re
import threading
from typing import Any

from robot_state_core.errors import RobotDescriptionError, UrdfLoadError
from robot_state_core.io.safe_xml import parse_xml

_LOG = logging.getLogger(__name__)
_HOOK_LOCK = threading.Lock()
_NAMED_STEP = re.compile(r"(\w+)\[@name='([^']*)'\]")


@contextlib.contextmanager
def _collect_urdf_parser_messages(messages: list[str]) -> Iterator[None]:
    """Redirect urdf_parser_py's global error hook into ``messages`` while the block runs."""
    from urdf_parser_py import xml_reflection
    from urdf_parser_py.xml_reflection import core

    with _HOOK_LOCK:
        saved = (xml_reflection.on_error, core.on_error)
        xml_reflection.on_error = core.on_error = messages.append
        try:
            yield
        finally:
            xml_reflection.on_error, core.on_error = saved


def parse_urdf(document: str | bytes, *, source: str = '<string>') -> tuple[Any, list[str]]:
    """Parse a URDF document into urdf_parser_py's object model.

    Args:
        document: URDF XML text or bytes.
        source: Name of the document for messages (a file path or ``'<string>'``).

    Returns:
        ``(robot, warnings)``: the ``urdf_parser_py.urdf.Robot`` and the non-fatal messages the
        parser raised (unknown tags or attributes), which are also logged at WARNING level.

    Raises:
        XmlSecurityError: The document declares a DTD or entities.
        UrdfLoadError: The document is not a valid URDF; ``element``/``line`` locate it.
    """
    from urdf_parser_py.urdf import URDF
    from urdf_parser_py.xml_reflection.core import ParseError
    from urdf_parser_py.xml_reflection.core import Path as ReflPath

    root = parse_xml(document, source=source)
    if root.tag != 'robot':
        raise UrdfLoadError(f'{source}: root element is <{root.tag}>, expected <robot>',
                            line=root.sourceline)
    messages: list[str] = []
    with _collect_urdf_parser_messages(messages):
        try:
            path = ReflPath(URDF.XML_REFL.tag, tree=root.getroottree())
            robot = URDF.from_xml(root, path)
        except ParseError as exc:
            element = str(exc.path)
            raise UrdfLoadError(f'{source}: {exc.e}', element=element,
                                line=_line_of(root, element), problems=messages) from None
        except (AssertionError, ValueError, TypeError, KeyError, AttributeError,
                IndexError) as exc:
            raise UrdfLoadError(f'{source}: invalid URDF: {exc or type(exc).__name__}',
                                problems=messages) from None
    for message in messages:
        _LOG.warning('%s: %s', source, message)
    return robot, messages


def _line_of(root: Any, element_path: str) -> int | None:
    """Source line of the last named step of a urdf_parser_py path, e.g. ``joint[@name='j']``."""
    steps = _NAMED_STEP.findall(element_path)
    if not steps:
        return None
    tag, name = steps[-1]
    for element in root.iter(tag):
        if element.get('name') == name:
            return int(element.sourceline)
    return None


def read_urdf_file(path: str | Path) -> tuple[Any, list[str]]:
    """Read and parse a URDF file (see :func:`parse_urdf`).

    Raises:
        RobotDescriptionError: The file cannot be read.
        UrdfLoadError: The file is not a valid URDF.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RobotDescriptionError(f'cannot read URDF {str(p)!r}: {exc.strerror}') from None
    return parse_urdf(data, source=str(p))
