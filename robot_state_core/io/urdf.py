"""URDF loading (→ :class:`~robot_state_core.description.scene_graph.SceneGraph`) and export.

Parsing goes through urdf_parser_py (PyPI ``urdfdom-py``), wrapped so that nothing leaks:

* the document is parsed by our hardened parser first (:mod:`robot_state_core.io.safe_xml`: no
  DTD, no entities, no network), and urdf_parser_py works on that tree;
* urdf_parser_py's module-global ``on_error`` hook (stderr) is swapped for a collector while it
  runs, and its ``assert``/``ParseError`` failures become :class:`UrdfLoadError` with the
  element and line;
* the model is validated after parsing (finite numbers, unique names, one root, no cycles,
  known parents/children, mimic cycles, usable axes) with typed errors.

Extensions and tolerated quirks (each reported in ``UrdfLoadResult.warnings``, or in
``UrdfLoadResult.notes`` when nothing we load changes):

* ``<joint type="rpy_floating">`` — Drake's roll-pitch-yaw floating joint (seed 001); plain
  urdf_parser_py rejects the type, this loader accepts it. Its ``<dynamics damping>`` is used
  as both the angular and the translational damping.
* ``<capsule radius length>`` geometry (urdf_parser_py does not know it).
* ``<texture>`` without ``filename`` is dropped; ``<transmission>``, ``<gazebo>`` and
  ``<ros2_control>`` elements are not kinematics and are skipped (a transmission without
  ``<type>`` is reported).
* ``package:///pkg/...`` (empty package name) is read as ``package://pkg/...``.
* A ``<mimic>`` that MoveIt cannot apply -- on a fixed joint, of a joint the file does not
  define, or of a joint with another number of variables -- is removed with one warning
  naming both joints; the joint is independent (MoveIt ``RobotModel::buildMimic``). Mimic
  cycles and multi-DOF mimics still raise.
* A planar joint's ``<axis>`` is not used (MoveIt and Pinocchio move it in the x-y plane);
  an explicit axis other than z is reported.
* Unresolvable meshes are reported in ``unresolved_meshes`` (or raise with
  ``strict_meshes=True``), never silently dropped: their shapes keep the URI with ``path=None``
  and, in ``problem``, why (the file is not in its package, the package was not found, ...).
* Unknown attributes, which urdfdom ignores silently, are notes (DEBUG); unknown elements are
  warnings (a misspelled ``<colour>`` loses data). Both are removed before urdf_parser_py runs,
  each reported with its element and line (names clipped to 80 characters).
* What urdfdom does not read is not refused (``docs/decisions.md`` L18, L19): a ``<geometry>``'s
  children after the first, repeated single children (the first is used), and a link's
  ``<inertial>``, ``<visual>`` or ``<collision>`` that urdfdom cannot parse (``parseLink``
  stops there, ``parseURDF`` keeps the link): it is dropped with what follows it in the link,
  exactly as urdfdom drops it, with one warning naming the link, element and line. A
  ``<color rgba>`` of other than four numbers is opaque black, urdfdom's cleared color.

Loading is linear in the document: urdf_parser_py parses one link, joint, material, visual or
collision at a time (its reader removes consumed children from a list one by one), and no
message is matched or built over an unbounded text (``test/test_loader_scaling.py``).

Each load logs one line per kind of message (:mod:`robot_state_core.io.load_report`), e.g.
``ignored 28 unknown attributes ...: dynamics: D, K, mu_coulomb, mu_viscous``; every single
message is logged at DEBUG.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
import contextlib
from dataclasses import dataclass, replace
import logging
import math
from pathlib import Path
import re
import threading
from typing import Any, TypeVar

from lxml import etree
import numpy as np

from robot_state_core.description.joints import (
    Joint,
    JointCalibration,
    JointDynamics,
    JointLimits,
    JointMimic,
    JointSafety,
    JointType,
)
from robot_state_core.description.links import Collision, Inertial, Link, Material, Visual
from robot_state_core.description.scene_graph import SceneGraph
from robot_state_core.errors import InvalidArgumentError, RobotDescriptionError, UrdfLoadError
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cylinder,
    Mesh,
    module_of,
    Shape,
    Sphere,
)
from robot_state_core.io.load_report import LoadMessage, log_load_messages, texts
from robot_state_core.io.resources import ResourceResolver
from robot_state_core.io.safe_xml import parse_xml
from robot_state_core.io.xacro import expand_xacro_file, is_xacro_path
from robot_state_core.spatial.transforms import (
    FloatArray,
    MAX_COORDINATE,
    pose_from_xyz_rpy,
    rpy_from_rotation,
)

_LOG = logging.getLogger(__name__)
_S = TypeVar('_S')
_HOOK_LOCK = threading.Lock()
#: urdf_parser_py's 'Unknown attribute "D" in /robot[@name='r']/joint[@name='j']/dynamics'.
_UNKNOWN = re.compile(r'Unknown (attribute|tag) "([^"]*)" in (\S*)')
#: Longest urdf_parser_py message kept (and matched) [characters].
_MAX_MESSAGE_CHARS = 2000
#: Longest name quoted in a load message [characters]; longer names are cut.
_MAX_NAME_CHARS = 80
#: Unknown attributes (and unknown child elements) reported one by one per element; the rest
#: of an element's are counted in one more message (a hostile element may have 10^5).
_MAX_ITEMS_PER_ELEMENT = 100
#: A decimal number as urdfdom's ``strToDouble`` reads it (no nan, inf, hex or ``_``). One way
#: to match each text, so a long run of digits cannot make the regex backtrack.
_NUMBER = re.compile(r'[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?')
_URDF_JOINT_TYPES = ('fixed', 'revolute', 'continuous', 'prismatic', 'planar', 'floating')
_EXTENSION_JOINT_TYPES = ('rpy_floating',)
_NON_KINEMATIC_ELEMENTS = ('transmission', 'gazebo', 'ros2_control')


@dataclass(frozen=True)
class UrdfLoadResult:
    """What :func:`load_urdf_string` / :func:`load_urdf_file` produce.

    Attributes:
        scene_graph: The robot as an editable scene graph (name = the URDF robot name).
        materials: The document's named materials (``<robot>``-level and inline ones).
        warnings: Tolerated problems that change what is loaded (or how a peer would load
            it), in document order.
        unresolved_meshes: Mesh URIs that no resolver source could map to a file.
        source: The file path or ``'<string>'``.
        notes: Ignored content that changes nothing we load (unknown attributes, transmissions
            without a type, textures without a file), in document order.
        messages: Every warning and note with its kind
            (:class:`~robot_state_core.io.load_report.LoadMessage`), for one-line-per-kind
            summaries (:func:`~robot_state_core.io.load_report.summarize`).
    """

    scene_graph: Any  # SceneGraph (imported lazily to keep import order simple)
    materials: Mapping[str, Material]
    warnings: tuple[str, ...]
    unresolved_meshes: tuple[str, ...]
    source: str
    notes: tuple[str, ...] = ()
    messages: tuple[LoadMessage, ...] = ()


# --------------------------------------------------------------------------- urdf_parser_py seam


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


def _clip(text: object, size: int = _MAX_NAME_CHARS) -> str:
    """``text`` cut to ``size`` characters (``'…'`` marks a cut): names in messages stay short."""
    value = str(text)
    return value if len(value) <= size else value[:size] + '…'


def _locate(top: Any, path: Any) -> tuple[Any, str]:
    """The element (and attribute) a urdf_parser_py ``Path`` names, starting at ``top``.

    urdf_parser_py's path of an error is a chain of steps from the element it was asked to
    parse (``top``) down to the failing one: ``visual[1]``, then ``geometry``, with a final
    ``[@scale]`` for an attribute. Indexed steps count children of that tag (1-based); every
    other step is the first child of its tag (the only one: duplicates are removed before
    urdf_parser_py runs). Walks the chain, never a string, so long names cost nothing.

    Returns:
        ``(element, attribute)``: the deepest element found and the attribute name or ``''``.
    """
    steps = []
    node = path
    while node is not None:
        steps.append(node)
        node = node.parent
    steps.reverse()
    element = top
    for step in steps[1:]:
        suffix = str(step.suffix)
        index = 1
        if suffix.startswith('[') and suffix[1:2].isdigit():
            digits = suffix[1:suffix.find(']')] if ']' in suffix else ''
            index = int(digits) if digits.isdigit() else 1
        found = [child for child in element if child.tag == step.tag][index - 1:index]
        if not found:
            break
        element = found[0]
    last = str(steps[-1].suffix) if steps else ''
    attribute = ''
    if last.endswith(']'):
        start = last.rfind('[@')
        candidate = last[start + 2:-1] if start >= 0 else ''
        if candidate and not candidate.startswith("name='"):
            attribute = candidate
    if attribute and element.tag == 'geometry' and len(element):
        element = element[0]  # the shape's attribute: urdf_parser_py names the <geometry>
    return element, attribute


def _failing_node(exc: BaseException) -> Any | None:
    """The lxml element urdf_parser_py was reading when it raised (innermost ``node``)."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get('node')
        if isinstance(node, etree._Element):
            found = node
        tb = tb.tb_next
    return found


def _describe(element: Any, owner: str, attribute: str = '', top: Any = None) -> str:
    """``"<mesh scale> in link 'chassis'"``: an element (and attribute) and its owner."""
    what = f'<{element.tag}' + (f' {attribute}' if attribute else '') + '>'
    if element is top and owner:
        return owner + (f' ({what})' if attribute else '')
    return what if not owner else f'{what} in {owner}'


def _from_xml(cls: Any, element: Any, source: str, owner: str) -> Any:
    """``cls.from_xml(element)`` (a urdf_parser_py type), failures as located UrdfLoadErrors."""
    from urdf_parser_py.xml_reflection.core import ParseError
    from urdf_parser_py.xml_reflection.core import Path as ReflPath

    try:
        return cls.from_xml(element, ReflPath(element.tag))
    except ParseError as exc:
        bad, attribute = _locate(element, exc.path)
        raise UrdfLoadError(f'{source}: {_clip(exc.e, 200)}',
                            element=_describe(bad, owner, attribute, element),
                            line=bad.sourceline) from exc
    except Exception as exc:  # urdf_parser_py raises bare Exception/AssertionError too
        bad = _failing_node(exc)
        bad = element if bad is None else bad
        raise UrdfLoadError(f'{source}: invalid URDF: {_clip(exc or type(exc).__name__, 200)}',
                            element=_describe(bad, owner, '', element),
                            line=bad.sourceline) from exc


@dataclass
class _ParsedLink:
    """A link as urdf_parser_py reads it, one element at a time (see :func:`_parse_robot`)."""

    name: str
    visuals: list[Any]
    collisions: list[Any]
    inertial: Any | None


@dataclass
class _ParsedRobot:
    name: str
    materials: list[Any]
    links: list[_ParsedLink]
    joints: list[Any]


def _parse_robot(root: Any, source: str, messages: list[str]) -> _ParsedRobot:
    """Run urdf_parser_py on each element of the prepared tree, not on the whole document.

    urdf_parser_py's reader removes each consumed child from a Python list (quadratic in the
    number of children) and formats a message with the full path of every unknown item; one
    call per link, joint, material, visual and collision keeps every list short. The
    elements are the ones :func:`_urdfdom_pass` left: known attributes and children only.
    """
    from urdf_parser_py import urdf as up

    materials: list[Any] = []
    links: list[_ParsedLink] = []
    joints: list[Any] = []
    with _collect_urdf_parser_messages(messages):
        for element in root:
            tag = element.tag
            if tag in ('material', 'joint'):
                owner = f'{tag} {_clip(element.get("name"))!r}'
                parsed = _from_xml(up.Material if tag == 'material' else up.Joint, element,
                                   source, owner)
                (materials if tag == 'material' else joints).append(parsed)
            elif tag == 'link':
                name = str(element.get('name'))
                owner = f'link {_clip(name)!r}'
                parts: dict[str, list[Any]] = {'visual': [], 'collision': [], 'inertial': []}
                for child in element:
                    cls = {'visual': up.Visual, 'collision': up.Collision,
                           'inertial': up.Inertial}.get(child.tag)
                    if cls is not None:
                        parts[child.tag].append(_from_xml(cls, child, source, owner))
                inertial = parts['inertial'][0] if parts['inertial'] else None
                links.append(_ParsedLink(name, parts['visual'], parts['collision'], inertial))
    return _ParsedRobot(str(root.get('name')), materials, links, joints)


def _run_urdf_parser(root: Any, source: str, messages: list[str]) -> Any:
    """urdf_parser_py's ``URDF.from_xml`` on the whole tree (:func:`parse_urdf`, no extensions)."""
    from urdf_parser_py.urdf import URDF
    from urdf_parser_py.xml_reflection.core import ParseError
    from urdf_parser_py.xml_reflection.core import Path as ReflPath

    with _collect_urdf_parser_messages(messages):
        try:
            return URDF.from_xml(root, ReflPath(URDF.XML_REFL.tag, tree=root.getroottree()))
        except ParseError as exc:
            bad, attribute = _locate(root, exc.path)
            raise UrdfLoadError(f'{source}: {_clip(exc.e, 200)}',
                                element=_describe(bad, '', attribute), line=bad.sourceline,
                                problems=messages) from exc
        except Exception as exc:  # urdf_parser_py raises bare Exception/AssertionError too
            bad = _failing_node(exc)
            raise UrdfLoadError(f'{source}: invalid URDF: {exc or type(exc).__name__}',
                                element='' if bad is None else _describe(bad, ''),
                                line=None if bad is None else bad.sourceline,
                                problems=messages) from exc


def _parser_message(text: str) -> LoadMessage:
    """A urdf_parser_py message with its kind (unknown attribute or element, or other).

    Linear in the message: the text is clipped before it is matched, and the element is the
    last path step found with string operations (names may be megabytes long).
    """
    clipped = text[:_MAX_MESSAGE_CHARS]
    match = _UNKNOWN.match(clipped)
    if match is None:
        return LoadMessage('urdf_parser', clipped, clipped[:60])
    what, name, path = match.groups()
    step = path.rsplit('/', 1)[-1].split('[', 1)[0] or path[:60]
    return LoadMessage('unknown_attribute' if what == 'attribute' else 'unknown_element', clipped,
                       name, step)


def parse_urdf(document: str | bytes, *, source: str = '<string>') -> tuple[Any, list[str]]:
    """Parse a plain URDF into urdf_parser_py's object model (no extensions, no validation).

    Prefer :func:`load_urdf_string`, which validates and builds a scene graph.

    Returns:
        ``(robot, warnings)``: the ``urdf_parser_py.urdf.Robot`` and the parser's messages.

    Raises:
        XmlSecurityError: The document declares a DTD or entities.
        UrdfLoadError: The document is not a valid URDF.
    """
    root = parse_xml(document, source=source)
    if root.tag != 'robot':
        raise UrdfLoadError(f'{source}: root element is <{root.tag}>, expected <robot>',
                            line=root.sourceline)
    messages: list[str] = []
    robot = _run_urdf_parser(root, source, messages)
    return robot, messages


# --------------------------------------------------------------------------- pre-processing


@dataclass
class _Prepared:
    rpy_floating_joints: set[str]
    capsules: dict[tuple[str, str, int], Capsule]
    joint_lines: dict[str, int]
    link_lines: dict[str, int]
    calibrations: dict[str, JointCalibration]


def _error(source: str, message: str, element: str = '', line: int | None = None) -> UrdfLoadError:
    return UrdfLoadError(f'{source}: {message}', element=element, line=line)


def _prepare(root: Any, source: str, warnings: list[LoadMessage]) -> _Prepared:
    """Validate names and types on the raw tree and rewrite our extensions for urdf_parser_py."""
    for tag in _NON_KINEMATIC_ELEMENTS:
        for element in root.findall(tag):
            if tag == 'transmission' and element.find('type') is None:
                warnings.append(LoadMessage(
                    'transmission_without_type', f"transmission {element.get('name')!r} (line "
                    f'{element.sourceline}) has no <type>; transmissions are not used for '
                    'kinematics and were skipped', str(element.get('name'))))
            root.remove(element)
    _urdfdom_pass(root, warnings)
    link_lines: dict[str, int] = {}
    for link in root.findall('link'):
        name = link.get('name')
        if not name:
            raise _error(source, '<link> without a name', line=link.sourceline)
        if name in link_lines:
            raise _error(source, f'duplicate link name {name!r} (first defined on line '
                         f'{link_lines[name]})', f'link {name!r}', link.sourceline)
        link_lines[name] = int(link.sourceline)
    joint_lines: dict[str, int] = {}
    rpy_floating: set[str] = set()
    for joint in root.findall('joint'):
        name = joint.get('name')
        if not name:
            raise _error(source, '<joint> without a name', line=joint.sourceline)
        if name in joint_lines:
            raise _error(source, f'duplicate joint name {name!r} (first defined on line '
                         f'{joint_lines[name]})', f'joint {name!r}', joint.sourceline)
        joint_lines[name] = int(joint.sourceline)
        jtype = joint.get('type')
        if jtype in _EXTENSION_JOINT_TYPES:
            rpy_floating.add(name)
            joint.set('type', 'floating')
        elif jtype not in _URDF_JOINT_TYPES:
            raise _error(source, f'joint {name!r} has unknown type {jtype!r}; expected one of '
                         f'{", ".join(_URDF_JOINT_TYPES + _EXTENSION_JOINT_TYPES)}',
                         f'joint {name!r}', joint.sourceline)
    calibrations: dict[str, JointCalibration] = {}
    for joint in root.findall('joint'):
        element = joint.find('calibration')
        if element is not None:
            # Read here (urdf_parser_py drops reference_position and defaults absent edges to 0).
            values = {k: (_float_attr(element, k, source) if element.get(k) is not None
                          else None) for k in ('reference_position', 'rising', 'falling')}
            calibrations[joint.get('name')] = JointCalibration(
                values['reference_position'] or 0.0, values['rising'], values['falling'])
            joint.remove(element)
    capsules: dict[tuple[str, str, int], Capsule] = {}
    for link in root.findall('link'):
        for kind in ('visual', 'collision'):
            for index, element in enumerate(link.findall(kind)):
                capsule = element.find('geometry/capsule')
                if capsule is not None:
                    radius = _float_attr(capsule, 'radius', source)
                    length = _float_attr(capsule, 'length', source)
                    capsules[(link.get('name'), kind, index)] = _checked_shape(
                        Capsule, (radius, length), source, f"link {link.get('name')!r}",
                        capsule.sourceline)
                    capsule.tag = 'cylinder'
    for texture in root.iter('texture'):
        if not texture.get('filename'):
            warnings.append(LoadMessage(
                'texture_without_filename', f'<texture> without filename on line '
                f'{texture.sourceline} was ignored', f'line {texture.sourceline}'))
            texture.getparent().remove(texture)
    return _Prepared(rpy_floating, capsules, joint_lines, link_lines, calibrations)


def _float_attr(element: Any, name: str, source: str) -> float:
    text = element.get(name)
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise _error(source, f'<{element.tag}> attribute {name}={text!r} is not a number',
                     element.tag, element.sourceline) from None
    return value


# --------------------------------------------------------------------------- urdfdom's tolerance

#: What urdf_parser_py reads, per kind of element: (attributes, {child tag: child kind}).
#: Anything else is removed before urdf_parser_py runs and reported (urdfdom ignores it).
_SCHEMA: dict[str, tuple[frozenset[str], dict[str, str]]] = {
    'robot': (frozenset({'name', 'version'}),
              {'link': 'link', 'joint': 'joint', 'material': 'material'}),
    'link': (frozenset({'name'}), {'visual': 'visual', 'collision': 'collision',
                                   'inertial': 'inertial', 'origin': 'origin'}),
    'origin': (frozenset({'xyz', 'rpy'}), {}),
    'visual': (frozenset(), {'origin': 'origin', 'geometry': 'geometry',
                             'material': 'material'}),
    'collision': (frozenset(), {'origin': 'origin', 'geometry': 'geometry'}),
    'geometry': (frozenset(), {}),  # its first element child is the shape (urdfdom)
    'box': (frozenset({'size'}), {}),
    'cylinder': (frozenset({'radius', 'length'}), {}),
    'capsule': (frozenset({'radius', 'length'}), {}),
    'sphere': (frozenset({'radius'}), {}),
    'mesh': (frozenset({'filename', 'scale'}), {}),
    'material': (frozenset({'name'}), {'color': 'color', 'texture': 'texture'}),
    'color': (frozenset({'rgba'}), {}),
    'texture': (frozenset({'filename'}), {}),
    'inertial': (frozenset(), {'origin': 'origin', 'mass': 'mass', 'inertia': 'inertia'}),
    'mass': (frozenset({'value'}), {}),
    'inertia': (frozenset({'ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'}), {}),
    'joint': (frozenset({'name', 'type'}),
              {'origin': 'origin', 'axis': 'axis', 'parent': 'parent', 'child': 'child',
               'limit': 'limit', 'dynamics': 'dynamics', 'safety_controller': 'safety_controller',
               'calibration': 'calibration', 'mimic': 'mimic'}),
    'axis': (frozenset({'xyz'}), {}),
    'parent': (frozenset({'link'}), {}),
    'child': (frozenset({'link'}), {}),
    'limit': (frozenset({'effort', 'lower', 'upper', 'velocity'}), {}),
    'dynamics': (frozenset({'damping', 'friction'}), {}),
    'safety_controller': (frozenset({'k_velocity', 'k_position', 'soft_lower_limit',
                                     'soft_upper_limit'}), {}),
    'calibration': (frozenset({'rising', 'falling', 'reference_position'}), {}),
    'mimic': (frozenset({'joint', 'multiplier', 'offset'}), {}),
}
#: Children that may appear many times; every other child is read once (the first).
_AGGREGATES = frozenset({('robot', 'link'), ('robot', 'joint'), ('robot', 'material'),
                         ('link', 'visual'), ('link', 'collision')})
_SHAPES = ('box', 'cylinder', 'sphere', 'mesh', 'capsule')


def _owner(element: Any) -> str:
    """``"link 'a'"`` for the link, joint or material an element belongs to (names clipped)."""
    node = element
    while node is not None and node.getparent() is not None and \
            node.getparent().getparent() is not None:
        node = node.getparent()
    if node is None or node.getparent() is None:
        return '<robot>'
    return f'{node.tag} {_clip(node.get("name"))!r}'


def _where(element: Any) -> str:
    """``"<dynamics> of joint 'j' (line 12)"``."""
    owner = _owner(element)
    inside = '' if element.getparent() is None or owner.startswith(f'{element.tag} ') \
        else f'<{element.tag}> of '
    return f'{inside}{owner} (line {element.sourceline})'


def _strip_unknown(element: Any, kind: str, warnings: list[LoadMessage]) -> None:
    """Remove what urdf_parser_py does not read from ``element`` (a ``kind``) and below.

    Unknown attributes (notes: urdfdom ignores them silently), unknown child elements
    (warnings) and repeated single children (warnings; urdfdom and urdf_parser_py read the
    first) are removed, each reported once with its line, in line order; beyond
    :data:`_MAX_ITEMS_PER_ELEMENT` of a kind in one element, one message counts the rest. Every
    step is linear: attributes are rebuilt in one pass, never deleted one at a time.
    """
    found: list[tuple[int, LoadMessage]] = []
    stack = [(element, kind)]
    while stack:
        node, node_kind = stack.pop()
        attributes, children = _SCHEMA[node_kind]
        keys = list(node.attrib)  # lxml's attrib.items() is quadratic in the attribute count
        unknown = [key for key in keys if key not in attributes]
        if unknown:
            kept = [(key, node.get(key)) for key in keys if key in attributes]
            node.attrib.clear()
            for key, value in kept:
                node.set(key, value)
            where, line = _where(node), int(node.sourceline or 0)
            found.extend((line, LoadMessage(
                'unknown_attribute', f'Unknown attribute {_clip(key)!r} in {where} was '
                'ignored', _clip(key, 40), str(node.tag)))
                for key in unknown[:_MAX_ITEMS_PER_ELEMENT])
            if len(unknown) > _MAX_ITEMS_PER_ELEMENT:
                more = len(unknown) - _MAX_ITEMS_PER_ELEMENT
                found.append((line, LoadMessage(
                    'unknown_attribute', f'{more} more unknown attributes in {where} were '
                    'ignored', f'({more} more)', str(node.tag))))
        if node_kind == 'geometry':
            _first_shape_only(node, found)
            shape = next((c for c in node if isinstance(c.tag, str)), None)
            if shape is not None and shape.tag in _SHAPES:
                stack.append((shape, str(shape.tag)))
            continue
        seen: set[str] = set()
        strangers = 0
        # A sibling walk, not list(node): 10^5 children held at once as lxml proxies made the
        # cyclic GC's passes grow with them (a 10x document took 44x the time).
        child = node[0] if len(node) else None
        while child is not None:
            following = child.getnext()
            tag = child.tag
            if not isinstance(tag, str):
                child = following
                continue
            child_kind = children.get(tag)
            line = int(child.sourceline or 0)
            if child_kind is None:
                strangers += 1
                if strangers <= _MAX_ITEMS_PER_ELEMENT:
                    found.append((line, LoadMessage(
                        'unknown_element', f'Unknown element <{_clip(tag, 40)}> on line {line} '
                        f'in {_where(node)} was ignored', _clip(tag, 40), str(node.tag))))
                node.remove(child)
            elif tag in seen and (node_kind, tag) not in _AGGREGATES:
                found.append((line, LoadMessage(
                    'duplicate_element', f'<{tag}> on line {line} repeats the <{tag}> of '
                    f'{_where(node)}; like urdfdom, the first is used and this one is ignored',
                    f'<{tag}>')))
                node.remove(child)
            else:
                seen.add(tag)
                stack.append((child, child_kind))
            child = following
        if strangers > _MAX_ITEMS_PER_ELEMENT:
            more = strangers - _MAX_ITEMS_PER_ELEMENT
            found.append((int(node.sourceline or 0), LoadMessage(
                'unknown_element', f'{more} more unknown elements in {_where(node)} were '
                'ignored', f'({more} more)', str(node.tag))))
    found.sort(key=lambda item: item[0])  # stable: document order within a line
    warnings.extend(message for _, message in found)


def _first_shape_only(geometry: Any, found: list[tuple[int, LoadMessage]]) -> None:
    """Keep a ``<geometry>``'s first child element (urdfdom ``parseGeometry``); drop the rest."""
    elements = [c for c in geometry if isinstance(c.tag, str)]
    for extra in elements[1:]:
        line = int(extra.sourceline or 0)
        found.append((line, LoadMessage(
            'ignored_geometry_element', f'<{_clip(extra.tag, 40)}> on line {line} in '
            f'{_where(geometry)} was ignored: like urdfdom (parseGeometry), the first element, '
            f'<{_clip(elements[0].tag, 40)}>, is the shape', f'<{_clip(extra.tag, 40)}>')))
        geometry.remove(extra)


def _number_problem(text: str | None, what: str) -> str:
    """Why urdfdom's ``strToDouble`` refuses ``text`` (``''``: it reads a number)."""
    if text is None:
        return f'{what} is missing'
    token = text.strip()
    if not _NUMBER.fullmatch(token) or not math.isfinite(float(token)):
        return f'{what} {_clip(text, 40)!r} is not a number'
    return ''


def _vector_problem(text: str | None, what: str, count: int = 3) -> str:
    """Why urdfdom's ``Vector3::init`` refuses ``text`` (``''``: it reads ``count`` numbers)."""
    if text is None:
        return f'{what} is missing'
    tokens = text.split()
    for token in tokens:
        if _number_problem(token, what):
            return f'{what} {_clip(text, 40)!r} has a component that is not a number'
    if len(tokens) != count:
        return f'{what} {_clip(text, 40)!r} has {len(tokens)} numbers, {count} expected'
    return ''


def _pose_problem(element: Any) -> tuple[str, Any]:
    origin = element.find('origin')
    if origin is None:
        return '', None
    for attribute in ('xyz', 'rpy'):
        if origin.get(attribute) is not None:
            problem = _vector_problem(origin.get(attribute), f'<origin {attribute}>')
            if problem:
                return problem, origin
    return '', None


def _geometry_problem(element: Any) -> tuple[str, Any]:
    """Why urdfdom's ``parseGeometry`` returns no shape for this visual or collision."""
    geometry = element.find('geometry')
    if geometry is None:
        return 'it has no <geometry>', element
    shape = next((c for c in geometry if isinstance(c.tag, str)), None)
    if shape is None:
        return '<geometry> contains no shape element', geometry
    checks: dict[str, tuple[tuple[str, bool], ...]] = {
        'sphere': (('radius', False),), 'box': (('size', True),),
        'cylinder': (('length', False), ('radius', False)),
        'capsule': (('length', False), ('radius', False)),
        'mesh': (('scale', True),),
    }
    if shape.tag not in checks:
        return f'unknown geometry type <{_clip(shape.tag, 40)}>', shape
    if shape.tag == 'mesh' and shape.get('filename') is None:
        return '<mesh> has no filename', shape
    for attribute, vector in checks[str(shape.tag)]:
        text = shape.get(attribute)
        if shape.tag == 'mesh' and text is None:
            continue  # scale is optional
        what = f'<{shape.tag} {attribute}>'
        problem = _vector_problem(text, what) if vector else _number_problem(text, what)
        if problem:
            return problem, shape
    return '', None


def _visual_problem(visual: Any) -> tuple[str, Any]:
    """Why urdfdom's ``parseVisual`` fails (``''`` when it reads the visual)."""
    for check in (_pose_problem, _geometry_problem):
        problem, element = check(visual)
        if problem:
            return problem, element
    material = visual.find('material')
    if material is not None and material.get('name') is None:
        return '<material> has no name', material
    return '', None


def _collision_problem(collision: Any) -> tuple[str, Any]:
    """Why urdfdom's ``parseCollision`` fails (``''`` when it reads the collision)."""
    for check in (_pose_problem, _geometry_problem):
        problem, element = check(collision)
        if problem:
            return problem, element
    return '', None


def _inertial_problem(inertial: Any) -> tuple[str, Any]:
    """Why urdfdom's ``parseInertial`` fails (``''`` when it reads the inertial)."""
    problem, element = _pose_problem(inertial)
    if problem:
        return problem, element
    mass = inertial.find('mass')
    if mass is None:
        return 'it has no <mass>', inertial
    problem = _number_problem(mass.get('value'), '<mass value>')
    if problem:
        return problem, mass
    inertia = inertial.find('inertia')
    if inertia is None:
        return 'it has no <inertia>', inertial
    for key in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'):
        problem = _number_problem(inertia.get(key), f'<inertia {key}>')
        if problem:
            return problem, inertia
    return '', None


def _drop_unparsable(link: Any, warnings: list[LoadMessage]) -> None:
    """What urdfdom keeps of a link whose inertial, visual or collision it cannot parse.

    urdfdom's ``parseLink`` (``urdf_parser/src/link.cpp``) returns at the first element it
    cannot parse, and ``parseURDF`` (``model.cpp``) ignores that result and keeps the link as
    far as it was read: a bad ``<inertial>`` leaves the link without inertial, visuals and
    collisions; a bad ``<visual>`` keeps the visuals before it and no collision; a bad
    ``<collision>`` keeps the collisions before it. The same elements are removed here, with
    one warning naming the link, the element, its line and the reason.
    """
    name = _clip(link.get('name'))
    visuals = link.findall('visual')
    collisions = link.findall('collision')
    inertial = link.find('inertial')
    dropped: list[Any] = []
    culprit = bad = None
    problem = ''
    if inertial is not None:
        problem, bad = _inertial_problem(inertial)
        if problem:
            culprit, dropped = inertial, [inertial, *visuals, *collisions]
    if not problem:
        for i, visual in enumerate(visuals):
            problem, bad = _visual_problem(visual)
            if problem:
                culprit, dropped = visual, [*visuals[i:], *collisions]
                break
    if not problem:
        for i, collision in enumerate(collisions):
            problem, bad = _collision_problem(collision)
            if problem:
                culprit, dropped = collision, collisions[i:]
                break
    if culprit is None or bad is None:
        return
    counts = {tag: sum(1 for e in dropped if e.tag == tag)
              for tag in ('inertial', 'visual', 'collision')}
    lost = ', '.join(f'{n} <{tag}>' for tag, n in counts.items() if n)
    warnings.append(LoadMessage(
        'dropped_link_element', f'link {name!r}: the <{culprit.tag}> on line '
        f'{culprit.sourceline} cannot be read ({problem}, line {bad.sourceline}); like urdfdom '
        f'(parseLink stops there, parseURDF keeps the link), the link is loaded without it and '
        f'what follows it: dropped {lost}', f'{name!r} <{culprit.tag}> line {culprit.sourceline}'))
    for element in dropped:
        link.remove(element)


def _fix_colors(root: Any, warnings: list[LoadMessage]) -> None:
    """Read ``<color rgba>`` as urdfdom does (urdfdom_headers ``Color::init``).

    Not four numbers: ``init`` returns false, the caller ignores it, and the color stays
    the cleared one, opaque black ``0 0 0 1``. A component that is not a number: the color is
    refused (a visual's material keeps only its name, which refers to a named material; a
    named material gets the cleared color). Components outside [0, 1], which urdfdom also
    refuses, are kept as written.
    """
    for color in root.iter('color'):
        material = color.getparent()
        if material is None or material.tag != 'material':
            continue
        text = color.get('rgba')
        if text is None:
            continue
        tokens = text.split()
        where = f'<color rgba={_clip(text, 40)!r}> on line {color.sourceline}'
        if any(not _NUMBER.fullmatch(t) or not math.isfinite(float(t)) for t in tokens):
            in_visual = material.getparent() is not None and material.getparent().tag == 'visual'
            outcome = ('the material keeps only its name' if in_visual else
                       'the material gets the cleared color 0 0 0 1')
            warnings.append(LoadMessage(
                'material_color', f'{where} has a component that is not a number; like '
                f'urdfdom (parseMaterial), {outcome}', f'line {color.sourceline}'))
            if in_visual:
                material.remove(color)
            else:
                color.set('rgba', '0 0 0 1')
        elif len(tokens) != 4:
            warnings.append(LoadMessage(
                'material_color', f'{where} has {len(tokens)} numbers, 4 expected; like '
                'urdfdom (Color::init leaves the cleared color), it is read as opaque black '
                '0 0 0 1', f'line {color.sourceline}'))
            color.set('rgba', '0 0 0 1')


def _urdfdom_pass(root: Any, warnings: list[LoadMessage]) -> None:
    """Bring the tree to what urdfdom reads, so urdf_parser_py sees only that.

    Unknown attributes and elements are removed and reported (:func:`_strip_unknown`), a
    ``<geometry>`` keeps its first element (:func:`_first_shape_only`), links lose what
    urdfdom cannot parse (:func:`_drop_unparsable`), nameless robot-level materials are
    dropped (:func:`_drop_nameless_materials`) and colors are read as urdfdom reads them
    (:func:`_fix_colors`). Linear in the document.
    """
    _strip_unknown(root, 'robot', warnings)
    for link in root.findall('link'):
        _drop_unparsable(link, warnings)
    _drop_nameless_materials(root, warnings)
    _fix_colors(root, warnings)


def _drop_nameless_materials(root: Any, warnings: list[LoadMessage]) -> None:
    """Drop ``<robot>``-level materials without a name, each with a warning.

    urdfdom ``model.cpp`` ``parseURDF`` ignores ``parseMaterial``'s false ("Material must
    contain a name attribute") and keeps an empty material no visual can refer to (a second
    one is then "not unique" and refuses the robot; we drop every one).
    """
    for material in root.findall('material'):
        if material.get('name') is None:
            warnings.append(LoadMessage(
                'dropped_material', f'<material> on line {material.sourceline} has no name: '
                'like urdfdom, which keeps an empty material no visual can refer to, it is '
                'not used', '<material>'))
            root.remove(material)


# --------------------------------------------------------------------------- conversion


def _finite(values: Sequence[float] | None, what: str, source: str, element: str,
            line: int | None) -> list[float]:
    vals = [0.0, 0.0, 0.0] if values is None else [float(v) for v in values]
    if not all(math.isfinite(v) for v in vals):
        raise _error(source, f'{what} must be finite, got {vals}', element, line)
    return vals


def _origin(origin: Any, what: str, source: str, element: str, line: int | None) -> FloatArray:
    if origin is None:
        return np.eye(4)
    xyz = _finite(origin.xyz, f'{what} xyz', source, element, line)
    rpy = _finite(origin.rpy, f'{what} rpy', source, element, line)
    if max(abs(v) for v in xyz) > MAX_COORDINATE:
        raise _error(source, f'{what} xyz {xyz} exceeds {MAX_COORDINATE:g} m (forward '
                     'kinematics would lose all precision and overflow)', element, line)
    return pose_from_xyz_rpy(xyz, rpy)


def _checked_shape(factory: Callable[..., _S], args: Sequence[Any], source: str, element: str,
                   line: int | None) -> _S:
    """``factory(*args)``, its size validation (negative, NaN, huge) as an UrdfLoadError."""
    try:
        return factory(*args)
    except InvalidArgumentError as err:
        raise _error(source, str(err), element, line) from err


def _shape(geometry: Any, capsule: Capsule | None, where: str, source: str,
           line: int | None, resolver: ResourceResolver, warnings: list[LoadMessage],
           unresolved: list[tuple[str, str]]) -> Shape:
    kind = type(geometry).__name__
    if capsule is not None:
        return capsule
    if kind == 'Box':
        x, y, z = _finite(geometry.size, 'box size', source, where, line)
        return _checked_shape(Box, (x, y, z), source, where, line)
    if kind == 'Sphere':
        (r,) = _finite([geometry.radius], 'sphere radius', source, where, line)
        return _checked_shape(Sphere, (r,), source, where, line)
    if kind == 'Cylinder':
        r, length = _finite([geometry.radius, geometry.length], 'cylinder size', source, where,
                            line)
        return _checked_shape(Cylinder, (r, length), source, where, line)
    if kind == 'Mesh':
        scale_raw = geometry.scale
        if scale_raw is None:
            scale = (1.0, 1.0, 1.0)
        elif isinstance(scale_raw, (int, float)):
            scale = (float(scale_raw),) * 3
        else:
            s = _finite(scale_raw, 'mesh scale', source, where, line)
            scale = (s[0], s[1], s[2])
        uri = str(geometry.filename)
        found = resolver.locate(uri)
        quirk = found.warning
        if quirk:
            warnings.append(LoadMessage('empty_package_name' if 'empty package name' in quirk
                                        else 'mesh_uri', quirk, uri))
        if found.path is None:
            assert found.problem is not None  # locate says why whenever there is no path
            unresolved.append((uri, found.problem))
            return _checked_shape(Mesh, (uri, scale, None, found.problem), source, where, line)
        return _checked_shape(Mesh, (uri, scale, str(found.path)), source, where, line)
    raise _error(source, f'unsupported geometry <{kind.lower()}>', where, line)


def _material(m: Any, named: Mapping[str, Material]) -> Material | None:
    if m is None:
        return None
    color = tuple(float(c) for c in m.color.rgba) if m.color is not None else None
    texture = m.texture.filename if m.texture is not None else None
    if color is None and texture is None and m.name in named:
        return named[m.name]
    rgba = (color[0], color[1], color[2], color[3]) if color is not None and len(color) == 4 \
        else None
    return Material(m.name or '', rgba, texture)


def _convert_link(link: _ParsedLink, prepared: _Prepared, named_materials: Mapping[str, Material],
                  source: str, resolver: ResourceResolver, warnings: list[LoadMessage],
                  unresolved: list[tuple[str, str]]) -> Link:
    where, line = f'link {link.name!r}', prepared.link_lines.get(link.name)
    visuals = []
    for i, v in enumerate(link.visuals):
        shape = _shape(v.geometry, prepared.capsules.get((link.name, 'visual', i)), where,
                       source, line, resolver, warnings, unresolved)
        visuals.append(Visual(shape, _origin(v.origin, 'visual origin', source, where, line),
                              _material(v.material, named_materials), ''))
    collisions = []
    for i, c in enumerate(link.collisions):
        shape = _shape(c.geometry, prepared.capsules.get((link.name, 'collision', i)), where,
                       source, line, resolver, warnings, unresolved)
        collisions.append(Collision(shape, _origin(c.origin, 'collision origin', source, where,
                                                   line), ''))
    inertial = None
    if link.inertial is not None:
        i = link.inertial
        inertia = i.inertia
        values = _finite([i.mass] + ([inertia.ixx, inertia.ixy, inertia.ixz, inertia.iyy,
                                      inertia.iyz, inertia.izz] if inertia else [0.0] * 6),
                         'inertial', source, where, line)
        if values[0] < 0:
            raise _error(source, f'negative mass {values[0]}', where, line)
        inertial = Inertial(_origin(i.origin, 'inertial origin', source, where, line),
                            *values)
    return Link(link.name, visuals, collisions, inertial)


def _convert_joint(j: Any, prepared: _Prepared, source: str,
                   warnings: list[LoadMessage]) -> Joint:
    where, line = f'joint {j.name!r}', prepared.joint_lines.get(j.name)
    jtype = JointType.RPY_FLOATING if j.name in prepared.rpy_floating_joints else JointType(
        j.type)
    axis = _finite(j.axis if j.axis is not None else [1.0, 0.0, 0.0], 'axis', source, where,
                   line)
    if jtype in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC) and \
            math.hypot(*axis) < 1e-12:
        raise _error(source, f'joint {j.name!r} has a zero axis {axis}', where, line)
    if not math.isfinite(sum(v * v for v in axis)):  # numpy would warn on stderr, then fail
        raise _error(source, f'joint {j.name!r}: axis {axis} cannot be normalized (its squared '
                     'length overflows)', where, line)
    if jtype is JointType.PLANAR and j.axis is not None and \
            math.hypot(axis[0], axis[1]) > 1e-9 * max(1.0, abs(axis[2])):
        warnings.append(LoadMessage(
            'planar_axis_ignored', f'planar joint {j.name!r} (line {line}) has <axis xyz="'
            f'{" ".join(f"{v:g}" for v in axis)}">, which is ignored: like MoveIt '
            '(PlanarJointModel) and Pinocchio, a planar joint moves in the x-y plane of its '
            'joint frame and turns about z', repr(j.name)))
    limits = None
    if j.limit is not None:
        lim = j.limit
        lower, upper, effort, velocity = _finite(
            [lim.lower or 0.0, lim.upper or 0.0, lim.effort or 0.0, lim.velocity or 0.0],
            'limit', source, where, line)
        if jtype in (JointType.REVOLUTE, JointType.PRISMATIC) and lower > upper:
            raise _error(source, f'joint {j.name!r}: lower limit {lower} > upper limit {upper}',
                         where, line)
        # acceleration and jerk stay 0 ("unspecified"): URDF has neither and MoveIt reads
        # none from it (tesseract_urdf would set acceleration = 0.5·velocity; decision T-4).
        limits = JointLimits(lower, upper, effort, velocity)
    elif jtype in (JointType.REVOLUTE, JointType.PRISMATIC):
        raise _error(source, f'{jtype.value} joint {j.name!r} has no <limit> (URDF requires '
                     'one for revolute and prismatic joints)', where, line)
    elif jtype in (JointType.CONTINUOUS, JointType.PLANAR):
        # An all-zero limits object, as tesseract_urdf gives a continuous joint without <limit>
        # (the graph then sets ±4π; 0 velocity means "unbounded", as in MoveIt). The scene
        # graph refuses a planar joint without limits (tesseract); urdfdom and MoveIt accept
        # one, and so do we (decision T-3).
        limits = JointLimits()
    dynamics = None
    if j.dynamics is not None:
        damping, friction = _finite([j.dynamics.damping or 0.0, j.dynamics.friction or 0.0],
                                    'dynamics', source, where, line)
        dynamics = JointDynamics(damping, friction)
    mimic = None
    if j.mimic is not None:
        mult = 1.0 if j.mimic.multiplier is None else j.mimic.multiplier
        off = 0.0 if j.mimic.offset is None else j.mimic.offset
        mult, off = _finite([mult, off], 'mimic', source, where, line)
        mimic = JointMimic(j.mimic.joint, mult, off)
    safety = None
    if j.safety_controller is not None:
        s = j.safety_controller
        safety = JointSafety(*_finite([s.soft_lower_limit or 0.0, s.soft_upper_limit or 0.0,
                                       s.k_position or 0.0, s.k_velocity or 0.0],
                                      'safety_controller', source, where, line))
    calibration = None
    calibration = prepared.calibrations.get(j.name)
    return Joint(j.name, jtype, j.parent, j.child,
                 _origin(j.origin, 'origin', source, where, line), np.array(axis), limits,
                 dynamics, mimic, safety, calibration)


def _check_topology(links: Sequence[Link], joints: Sequence[Joint], prepared: _Prepared,
                    source: str, warnings: list[LoadMessage]) -> str:
    """Validate parents/children, single root, no cycles, mimic targets; return the root."""
    names = {link.name for link in links}
    parent_of: dict[str, str] = {}
    for j in joints:
        where, line = f'joint {j.name!r}', prepared.joint_lines.get(j.name)
        for role, link in (('parent', j.parent_link_name), ('child', j.child_link_name)):
            if link not in names:
                raise _error(source, f'joint {j.name!r} names {role} link {link!r}, which is '
                             'not defined', where, line)
        if j.parent_link_name == j.child_link_name:
            raise _error(source, f'joint {j.name!r} connects link {j.child_link_name!r} to '
                         'itself', where, line)
        if j.child_link_name in parent_of:
            raise _error(source, f'link {j.child_link_name!r} has two parent joints: '
                         f'{parent_of[j.child_link_name]!r} and {j.name!r}', where, line)
        parent_of[j.child_link_name] = j.name
    roots = [link.name for link in links if link.name not in parent_of]
    if not roots:
        raise _error(source, 'the joints form a closed kinematic loop with no root link: '
                     + _loop_description(links[0].name, parent_of, joints))
    if len(roots) > 1:
        raise _error(source, f'{len(roots)} links have no parent joint ({", ".join(roots[:5])}'
                     f'{", ..." if len(roots) > 5 else ""}); a URDF must be one tree with a '
                     'single root link')
    reached = {roots[0]}
    children: dict[str, list[str]] = {}
    for j in joints:
        children.setdefault(j.parent_link_name, []).append(j.child_link_name)
    stack = [roots[0]]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in reached:
                reached.add(child)
                stack.append(child)
    if len(reached) != len(names):
        start = sorted(names - reached)[0]
        raise _error(source, 'the joints form a closed kinematic loop: '
                     + _loop_description(start, parent_of, joints))
    _check_mimic(joints, prepared, source, warnings)
    return roots[0]


def _loop_description(start: str, parent_of: Mapping[str, str], joints: Sequence[Joint]) -> str:
    """Walk parent joints from ``start`` until a link repeats; describe that cycle."""
    by_name = {j.name: j for j in joints}
    order: list[str] = []
    link = start
    while link not in order:
        order.append(link)
        link = by_name[parent_of[link]].parent_link_name
    cycle = order[order.index(link):]
    return ' <- '.join(f'{n} (joint {parent_of[n]})' for n in cycle) + f' <- {link}'


def _check_mimic(joints: Sequence[Joint], prepared: _Prepared, source: str,
                 warnings: list[LoadMessage]) -> None:
    """Drop the mimics urdfdom accepts but MoveIt cannot apply (warned); refuse cycles.

    Like MoveIt's model builder (``RobotModel::buildMimic``), a ``<mimic>`` naming an unknown
    joint, or a joint with another number of variables, leaves the joint independent; a
    ``<mimic>`` on a fixed joint has nothing to drive. Each is reported once, naming both
    joints, and the mimic is removed from the loaded joint.
    """
    by_name = {j.name: j for j in joints}
    for j in joints:
        if j.mimic is None:
            continue
        line = prepared.joint_lines.get(j.name)
        target = by_name.get(j.mimic.joint_name)
        if j.info.nq == 0:
            why = (f'{j.type.value} joint {j.name!r} (line {line}) has a <mimic> of joint '
                   f'{j.mimic.joint_name!r}; a {j.type.value} joint has no variable to drive, '
                   'so the mimic is ignored')
        elif target is None:
            why = (f'joint {j.name!r} (line {line}) mimics joint {j.mimic.joint_name!r}, which '
                   'the file does not define; like MoveIt ("cannot mimic unknown joint"), '
                   f'{j.name!r} is loaded as an independent joint')
        elif target.info.nq != j.info.nq:
            why = (f'joint {j.name!r} (line {line}) mimics joint {target.name!r}, a '
                   f'{target.type.value} joint with {target.info.nq} variable(s) where '
                   f'{j.name!r} has {j.info.nq}; like MoveIt ("different number of DOF"), '
                   f'{j.name!r} is loaded as an independent joint')
        elif j.info.nq != 1:
            raise _error(source, f'joint {j.name!r} mimics {target.name!r}: mimicking a '
                         f'{target.type.value} joint is not supported (only 1-DOF joints can '
                         'be mimicked)', f'joint {j.name!r}', line)
        else:
            continue
        warnings.append(LoadMessage('mimic_ignored', why,
                                    f'{j.name!r} (of {j.mimic.joint_name!r})'))
        j.mimic = None
    for j in joints:
        if j.mimic is None:
            continue
        where, line = f'joint {j.name!r}', prepared.joint_lines.get(j.name)
        chain = [j.name]
        current = by_name[j.mimic.joint_name]
        while True:
            if current.name in chain:
                cycle = ' -> '.join([*chain[chain.index(current.name):], current.name])
                raise _error(source, f'mimic cycle: {cycle}', where, line)
            chain.append(current.name)
            if current.mimic is None:
                break
            current = by_name[current.mimic.joint_name]


# --------------------------------------------------------------------------- public loaders


def load_urdf_string(document: str | bytes, *, source: str = '<string>',
                     package_map: Mapping[str, str | Path] | None = None,
                     package_roots: Sequence[str | Path] = (),
                     resolver: ResourceResolver | None = None,
                     base_dir: str | Path | None = None,
                     strict_meshes: bool = False) -> UrdfLoadResult:
    """Load a URDF document into a :class:`~robot_state_core.description.scene_graph.SceneGraph`.

    Args:
        document: URDF XML (``str`` or ``bytes``), e.g. the ``robot_description`` parameter.
        source: Name used in messages (a file path or ``'<string>'``).
        package_map: Explicit ``{package: directory}`` for ``package://`` URIs.
        package_roots: Directories containing package directories.
        resolver: A complete resolver (overrides ``package_map``/``package_roots``).
        base_dir: Directory for relative mesh paths.
        strict_meshes: Raise instead of reporting unresolvable meshes.

    Returns:
        The scene graph, named materials, warnings and unresolved mesh URIs.

    Raises:
        XmlSecurityError: The document declares a DTD or entities (nothing is expanded or read).
        RobotDescriptionError: Empty or malformed XML, or an unresolved mesh with
            ``strict_meshes``.
        UrdfLoadError: Invalid URDF content; ``element`` and ``line`` locate the problem.
    """
    resolver = _resolver(package_map, package_roots, resolver)
    if base_dir is not None:
        resolver = resolver.with_base_dir(Path(base_dir))
    root = parse_xml(document, source=source)
    if root.tag != 'robot':
        raise UrdfLoadError(f'{source}: root element is <{root.tag}>, expected <robot>',
                            line=root.sourceline)
    if not root.get('name'):
        raise UrdfLoadError(f'{source}: <robot> has no name attribute', line=root.sourceline)
    warnings: list[LoadMessage] = []
    prepared = _prepare(root, source, warnings)
    messages: list[str] = []
    robot = _parse_robot(root, source, messages)
    warnings.extend(_parser_message(m) for m in messages)
    named = {m.name: mat for m in robot.materials
             if (mat := _material(m, {})) is not None and m.name}
    unresolved: list[tuple[str, str]] = []  # (URI, why it did not resolve) per mesh element
    links = [_convert_link(link, prepared, named, source, resolver, warnings, unresolved)
             for link in robot.links]
    for link in links:
        for visual in link.visuals:
            if visual.material is not None and visual.material.name and \
                    visual.material.name not in named:
                named[visual.material.name] = visual.material
    joints = [_convert_joint(j, prepared, source, warnings) for j in robot.joints]
    if not links:
        raise _error(source, 'the robot has no links')
    root_link = _check_topology(links, joints, prepared, source, warnings)
    if unresolved:
        problems = dict(unresolved)
        if strict_meshes:
            first = sorted(problems)[:5]
            message = (f'{len(unresolved)} mesh URI(s) could not be resolved: '
                       f'{", ".join(f"{uri} ({problems[uri]})" for uri in first)}')
            raise RobotDescriptionError(f'{source}: {message}')
        warnings.extend(LoadMessage('unresolved_mesh', f'mesh URI {uri!r} could not be '
                                    f'resolved to a file: {problem}', uri)
                        for uri, problem in problems.items())

    graph = SceneGraph(robot.name)
    by_name = {link.name: link for link in links}
    graph.add_link(by_name[root_link])
    for link in links:
        if link.name != root_link:
            graph.add_link(link)
    for joint in joints:
        if not graph.add_joint(joint):
            raise _error(source, f'joint {joint.name!r} could not be added to the scene graph',
                         f'joint {joint.name!r}', prepared.joint_lines.get(joint.name))
    graph.set_root(root_link)
    log_load_messages(_LOG, source, warnings)
    return UrdfLoadResult(graph, named, texts(warnings), tuple(u for u, _ in unresolved), source,
                          tuple(m.text for m in warnings if m.level < logging.WARNING),
                          tuple(warnings))


def _resolver(package_map: Mapping[str, str | Path] | None, package_roots: Sequence[str | Path],
              resolver: ResourceResolver | None) -> ResourceResolver:
    if resolver is not None:
        return resolver
    return ResourceResolver({k: Path(v) for k, v in (package_map or {}).items()},
                            tuple(Path(p) for p in package_roots))


def load_urdf_file(path: str | Path, *, xacro_args: Mapping[str, str] | None = None,
                   **kwargs: Any) -> UrdfLoadResult:
    """Load a URDF file, or a xacro file (``*.xacro``), expanded first as the xacro command does.

    Relative mesh paths resolve against the file's directory; in a xacro file ``$(find pkg)``
    resolves like ``package://pkg`` (package map, package roots, ament index).

    Args:
        path: The URDF or xacro file.
        xacro_args: xacro arguments (``name:=value`` on the xacro command line).
        **kwargs: As for :func:`load_urdf_string` (``package_map``, ``package_roots``,
            ``resolver``, ``strict_meshes``).

    Raises:
        RobotDescriptionError: The file cannot be read (and as :func:`load_urdf_string`).
        XacroError: The xacro file cannot be expanded (names the file and line).
    """
    p = Path(path)
    kwargs.setdefault('base_dir', p.resolve().parent)
    if is_xacro_path(p):
        resolver = _resolver(kwargs.pop('package_map', None), kwargs.pop('package_roots', ()),
                             kwargs.pop('resolver', None))
        expanded = expand_xacro_file(p, mappings=xacro_args, resolver=resolver)
        result = load_urdf_string(expanded.xml, source=str(p), resolver=resolver, **kwargs)
        xacro = tuple(LoadMessage('xacro_warning', w, w.split(' (when ')[0])  # no location
                      for w in expanded.warnings)
        log_load_messages(_LOG, str(p), xacro)
        return replace(result, warnings=expanded.warnings + result.warnings,
                       messages=xacro + result.messages)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RobotDescriptionError(f'cannot read URDF {str(p)!r}: {exc.strerror}') from exc
    return load_urdf_string(data, source=str(p), **kwargs)


def read_urdf_file(path: str | Path) -> tuple[Any, list[str]]:
    """Read and parse a URDF file with urdf_parser_py (see :func:`parse_urdf`).

    Raises:
        RobotDescriptionError: The file cannot be read.
        UrdfLoadError: The file is not a valid URDF.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RobotDescriptionError(f'cannot read URDF {str(p)!r}: {exc.strerror}') from exc
    return parse_urdf(data, source=str(p))


# --------------------------------------------------------------------------- export


def _fmt(values: Sequence[float] | FloatArray) -> str:
    return ' '.join(repr(float(v)) for v in values)


def _origin_element(parent: Any, X: FloatArray) -> None:
    if np.array_equal(X, np.eye(4)):
        return
    etree.SubElement(parent, 'origin', xyz=_fmt(X[:3, 3]), rpy=_fmt(rpy_from_rotation(X[:3, :3])))


def _geometry_element(parent: Any, shape: Shape) -> None:
    g = etree.SubElement(parent, 'geometry')
    module = module_of(shape, 'save_urdf')
    if module.URDF_ELEMENT is None:
        raise ValueError(f'{type(shape).__name__} geometry has no URDF spelling')
    attributes = module.urdf_attributes(shape)  # the kind's element, as the loader reads it
    etree.SubElement(g, module.URDF_ELEMENT, {
        name: value if isinstance(value, str) else _fmt(value)
        for name, value in attributes.items()})


def _material_element(parent: Any, material: Material, inline: bool) -> None:
    m = etree.SubElement(parent, 'material', name=material.name)
    if inline or not material.name:
        if material.color is not None:
            etree.SubElement(m, 'color', rgba=_fmt(material.color))
        if material.texture_filename:
            etree.SubElement(m, 'texture', filename=material.texture_filename)


def save_urdf(graph: Any, materials: Mapping[str, Material] | None = None) -> str:
    """Serialize a scene graph to URDF XML (our extensions spelled as the loader reads them).

    Loading the result gives an equal scene graph (origins equal to ~1e-15 after the
    rotation → rpy → rotation round trip).

    Args:
        graph: The :class:`~robot_state_core.description.scene_graph.SceneGraph` (must be a tree).
        materials: Named materials to declare at robot level (visuals then refer to them by
            name); materials not in it are written inline.

    Returns:
        The URDF document.
    """
    materials = dict(materials or {})
    root = etree.Element('robot', name=graph.get_name() or 'robot')
    for material in materials.values():
        _material_element(root, material, inline=True)
    for link in sorted(graph.get_links(), key=lambda lk: lk.name):
        le = etree.SubElement(root, 'link', name=link.name)
        if link.inertial is not None:
            ie = etree.SubElement(le, 'inertial')
            _origin_element(ie, link.inertial.origin)
            etree.SubElement(ie, 'mass', value=repr(float(link.inertial.mass)))
            i = link.inertial
            etree.SubElement(ie, 'inertia', ixx=repr(i.ixx), ixy=repr(i.ixy), ixz=repr(i.ixz),
                             iyy=repr(i.iyy), iyz=repr(i.iyz), izz=repr(i.izz))
        for v in link.visuals:
            ve = etree.SubElement(le, 'visual')
            _origin_element(ve, v.origin)
            _geometry_element(ve, v.geometry)
            if v.material is not None:
                declared = materials.get(v.material.name)
                _material_element(ve, v.material, inline=declared != v.material)
        for c in link.collisions:
            ce = etree.SubElement(le, 'collision')
            _origin_element(ce, c.origin)
            _geometry_element(ce, c.geometry)
    for j in sorted(graph.get_joints(), key=lambda jt: jt.name):
        je = etree.SubElement(root, 'joint', name=j.name, type=j.type.value)
        _origin_element(je, j.parent_to_joint_origin_transform)
        etree.SubElement(je, 'parent', link=j.parent_link_name)
        etree.SubElement(je, 'child', link=j.child_link_name)
        if not np.array_equal(j.axis, [1.0, 0.0, 0.0]):
            etree.SubElement(je, 'axis', xyz=_fmt(j.axis))
        if j.limits is not None:
            etree.SubElement(je, 'limit', lower=repr(j.limits.lower), upper=repr(j.limits.upper),
                             effort=repr(j.limits.effort), velocity=repr(j.limits.velocity))
        if j.dynamics is not None:
            etree.SubElement(je, 'dynamics', damping=repr(j.dynamics.damping),
                             friction=repr(j.dynamics.friction))
        if j.mimic is not None:
            etree.SubElement(je, 'mimic', joint=j.mimic.joint_name,
                             multiplier=repr(j.mimic.multiplier), offset=repr(j.mimic.offset))
        if j.safety is not None:
            etree.SubElement(je, 'safety_controller',
                             soft_lower_limit=repr(j.safety.soft_lower_limit),
                             soft_upper_limit=repr(j.safety.soft_upper_limit),
                             k_position=repr(j.safety.k_position),
                             k_velocity=repr(j.safety.k_velocity))
        if j.calibration is not None:
            attrs = {k: repr(v) for k, v in (
                ('reference_position', j.calibration.reference_position or None),
                ('rising', j.calibration.rising), ('falling', j.calibration.falling))
                if v is not None}
            etree.SubElement(je, 'calibration', **attrs)
    return str(etree.tostring(root, pretty_print=True, encoding='unicode'))
