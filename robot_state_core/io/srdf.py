"""SRDF loading: groups, named states, virtual and passive joints, end effectors, ACM pairs.

An SRDF (MoveIt's Semantic Robot Description Format) adds meaning to a URDF's links and
joints. This module turns SRDF text into a frozen :class:`SrdfModel` and checks it against a
URDF's names; it never compiles anything (the robot model does that, design study B2).

Parsing goes through the hardened :func:`~robot_state_core.io.safe_xml.parse_xml` (no DTD, no
entities, no network), so the same document that is refused as a URDF is refused as an SRDF.

Loading is done in two steps:

1. :func:`parse_srdf` / :func:`read_srdf_file` check the document on its own. A document that is
   not XML, or whose root is not ``<robot>``, raises. Every other structural problem is
   tolerated the way srdfdom (MoveIt's parser) tolerates it: the offending element is dropped
   and a warning naming the source, the element and its line goes to
   :attr:`SrdfModel.warnings` (and the log). Dropped: elements missing a required attribute,
   duplicate groups, end effectors and virtual joints (the first is kept), groups with an
   unknown subgroup or in a subgroup cycle (and the groups that include them), group states
   and end effectors of unknown or dropped groups, group-state joint values that are not
   finite numbers and joints given twice in one state. A duplicate group state replaces the
   earlier one (MoveIt's ``addDefaultState``); an unknown virtual joint type is read as
   ``fixed`` (srdfdom). With ``strict=True`` the first such problem raises
   :class:`~robot_state_core.errors.SrdfLoadError` instead.
2. :func:`validate_srdf_against` (problem list) or :func:`check_srdf_against` (raises, and also
   for every parse warning) compare the SRDF with the URDF's link and joint names. Compiling a
   :class:`~robot_state_core.model.robot_model.RobotModel` applies MoveIt's rules instead: unknown
   names are dropped with a warning (``RobotModel.srdf_warnings``).

Elements MoveIt defines but this package does not use, and elements other tools add (Pinocchio's
``rotor_params``, HPP's ``gripper``), are skipped and recorded in :attr:`SrdfModel.notes`
(INFO when skipping them loses nothing we model, WARNING when it changes collision semantics or
the element is unknown). A parse logs one line per kind of warning or note, with a count and
the first examples (:mod:`robot_state_core.io.load_report`); every single message is logged at
DEBUG. Nothing is ever printed.

Extension: a ``<virtual_joint type="rpy_floating">`` is accepted besides MoveIt's ``fixed``,
``planar`` and ``floating``. It is this package's 6-DOF joint with roll-pitch-yaw orientation
(positions ``[roll, pitch, yaw, x, y, z]`` in rad and m, seed row J-T8); MoveIt itself would
reject it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
import difflib
import logging
import math
import os
from pathlib import Path
import re

from lxml import etree

from robot_state_core.errors import RobotDescriptionError, SrdfLoadError, UnknownNameError
from robot_state_core.io.load_report import LoadMessage, log_load_messages
from robot_state_core.io.safe_xml import parse_xml

_LOG = logging.getLogger(__name__)

#: Most valid groups a :class:`~robot_state_core.model.robot_model.RobotModel` compiles (parsing
#: has no limit). MoveIt's subgroup relation (every group whose joints are a subset of another's)
#: grows with the square of the group count: 2 000 nested groups make 4 million subgroup entries.
#: Real SRDFs define tens.
MAX_GROUPS = 2000

#: Virtual joint types accepted in ``<virtual_joint type=...>``; ``rpy_floating`` is ours.
VIRTUAL_JOINT_TYPES = frozenset({'fixed', 'planar', 'floating', 'rpy_floating'})

#: Elements skipped on purpose without losing anything we model (logged at INFO).
_SKIPPED_INFO: dict[str, str] = {
    'link_sphere_approximation': 'sphere approximations of links are not used; collision '
                                 'checking uses the URDF collision geometry',
    'rotor_params': 'rotor parameters (a Pinocchio extension) are not used',
    'specificities': 'robot specificities (a Pinocchio extension) are not used',
    'gripper': 'HPP grippers are not used; declare an <end_effector> instead',
    'handle': 'HPP handles are not used',
    'contact': 'HPP contact surfaces are not used',
}

#: Elements skipped although they change collision semantics (logged at WARNING).
_SKIPPED_WARNING: dict[str, str] = {
    'disable_default_collisions': 'default-disabled collisions are not supported; list the '
                                  'pairs with <disable_collisions> instead',
    'enable_collisions': 'explicitly enabled collision pairs are not supported; the pair '
                         'keeps the default (enabled unless disabled elsewhere)',
}

#: A decimal number as written in XML: no ``nan``/``inf``, no ``_`` digit separators. Each
#: text matches one way only, so a long run of digits cannot make the regex backtrack.
_NUMBER = re.compile(r'[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?')
#: "Did you mean" suggestions computed per parse or check at most (difflib compares a name
#: with every known name: unbounded, that is quadratic in a hostile document).
MAX_SUGGESTIONS = 20
#: Names longer than this are neither suggested nor given suggestions [characters].
_MAX_SUGGESTED_NAME = 200


@dataclass(frozen=True, slots=True)
class SrdfGroup:
    """A ``<group>``: a named set of joints, links, chains and other groups.

    Attributes:
        name: Group name, unique in the SRDF.
        joints: Joint names listed with ``<joint name=...>``, in document order.
        links: Link names listed with ``<link name=...>``, in document order.
        chains: ``(base_link, tip_link)`` per ``<chain>``, in document order.
        subgroups: Names of the groups included with ``<group name=...>``; each is defined in
            the same SRDF, and no group includes itself directly or indirectly.
    """

    name: str
    joints: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    chains: tuple[tuple[str, str], ...] = ()
    subgroups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SrdfGroupState:
    """A ``<group_state>``: a named joint configuration of one group.

    Attributes:
        name: State name, unique among the states of ``group``.
        group: Name of the group the state belongs to (defined in the same SRDF).
        values: Joint name -> joint positions in the joint's variable order, rad or m. One
            value for single-DOF joints; several for multi-DOF joints (``value="x y theta"``
            for a planar joint). Finite numbers only. Not part of the hash.
    """

    name: str
    group: str
    values: dict[str, tuple[float, ...]] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class SrdfVirtualJoint:
    """A ``<virtual_joint>`` connecting a robot link to a frame outside the robot.

    Attributes:
        name: Joint name; it counts as a joint when the SRDF is checked against a URDF.
        type: ``'fixed'``, ``'planar'``, ``'floating'`` or ``'rpy_floating'`` (this package's
            extension, see the module docstring). Stored lower-case.
        parent_frame: The external frame (e.g. ``'odom'``); not a URDF link.
        child_link: The robot link the joint moves (normally the URDF root link).
    """

    name: str
    type: str
    parent_frame: str
    child_link: str


@dataclass(frozen=True, slots=True)
class SrdfEndEffector:
    """An ``<end_effector>``.

    Attributes:
        name: End effector name.
        parent_link: Link the end effector is attached to.
        group: Group made of the end effector's own joints and links.
        parent_group: Group that moves ``parent_link`` (e.g. the arm), or ``None`` if not given.
    """

    name: str
    parent_link: str
    group: str
    parent_group: str | None = None


@dataclass(frozen=True, slots=True)
class SrdfDisabledCollision:
    """A ``<disable_collisions>`` pair: collisions between the two links are never checked.

    Attributes:
        link1: First link name.
        link2: Second link name.
        reason: Free text, e.g. ``'Adjacent'``, ``'Never'``, ``'Default'``; ``''`` if absent.
    """

    link1: str
    link2: str
    reason: str = ''


@dataclass(frozen=True, slots=True)
class SrdfJointProperty:
    """A ``<joint_property>``: a named setting of one joint (MoveIt reads three of them).

    MoveIt's ``RobotModel`` applies ``angular_distance_weight`` (planar and floating joints),
    ``motion_model`` (``holonomic`` or ``diff_drive``, planar joints) and
    ``min_translational_distance`` (planar joints); the robot model interprets the value.

    Attributes:
        joint_name: The joint (a URDF joint or a virtual joint).
        property_name: The property name, stripped of surrounding white space.
        value: The value exactly as written.
    """

    joint_name: str
    property_name: str
    value: str


@dataclass(frozen=True, slots=True)
class SrdfModel:
    """A parsed SRDF document. Every sequence keeps document order.

    Attributes:
        name: The ``<robot name=...>``; normally equal to the URDF robot name.
        groups: Every ``<group>``; names are unique.
        group_states: Every ``<group_state>``; ``(group, name)`` pairs are unique.
        virtual_joints: Every ``<virtual_joint>``; names are unique.
        passive_joints: Names of the ``<passive_joint>`` elements.
        end_effectors: Every ``<end_effector>``; names are unique.
        disabled_collisions: Every ``<disable_collisions>`` pair, as written (not deduplicated).
        joint_properties: Every complete ``<joint_property>``, in document order (srdfdom keeps
            the last value per joint and property; so does the robot model).
        notes: One message per element skipped on purpose (see the module docstring),
            ``'<source>: line <n>: <tag> ignored: <why>'``.
        source: Where the document came from (a path or ``'<string>'``), for messages.
        warnings: One message per invalid element that was dropped (see the module
            docstring), ``'<source>: <problem> (in <element>, line <n>); <what was done>'``.
        messages: The warnings and notes with their kinds, for one-line-per-kind summaries
            (:mod:`robot_state_core.io.load_report`).
    """

    name: str
    groups: tuple[SrdfGroup, ...] = ()
    group_states: tuple[SrdfGroupState, ...] = ()
    virtual_joints: tuple[SrdfVirtualJoint, ...] = ()
    passive_joints: tuple[str, ...] = ()
    end_effectors: tuple[SrdfEndEffector, ...] = ()
    disabled_collisions: tuple[SrdfDisabledCollision, ...] = ()
    joint_properties: tuple[SrdfJointProperty, ...] = ()
    notes: tuple[str, ...] = ()
    source: str = '<string>'
    warnings: tuple[str, ...] = ()
    messages: tuple[LoadMessage, ...] = ()

    def group(self, name: str) -> SrdfGroup:
        """The group called ``name``.

        Raises:
            UnknownNameError: No group has that name (the message suggests close names).
        """
        for group in self.groups:
            if group.name == name:
                return group
        raise UnknownNameError(name, 'group', (g.name for g in self.groups))


def parse_srdf(document: str | bytes, *, source: str = '<string>',
               strict: bool = False) -> SrdfModel:
    """Parse an SRDF document.

    Args:
        document: SRDF XML text or bytes.
        source: Name of the document for messages (a file path or ``'<string>'``).
        strict: Raise on the first invalid element instead of dropping it with a warning
            (srdfdom's and MoveIt's behaviour, the default).

    Returns:
        The parsed model; dropped elements are listed in its ``warnings``. Names are not
        checked against a URDF here; see :func:`check_srdf_against`.

    Raises:
        XmlSecurityError: The document declares a DTD or entities; nothing is expanded or read.
        RobotDescriptionError: The document is empty or not well-formed XML.
        SrdfLoadError: The root element is not ``<robot>``, or (``strict``) an element is
            invalid (see the module docstring); the message names the source, the element and
            its line.
    """
    root = parse_xml(document, source=source)
    return _SrdfParser(source, strict).parse(root)


def read_srdf_file(path: str | os.PathLike[str], *, strict: bool = False) -> SrdfModel:
    """Read and parse an SRDF file (see :func:`parse_srdf`).

    Args:
        path: Path of the ``.srdf`` file.
        strict: As for :func:`parse_srdf`.

    Returns:
        The parsed model; its ``source`` is ``str(path)``.

    Raises:
        RobotDescriptionError: The file cannot be read (the message names the path), is empty
            or is not XML.
        XmlSecurityError: The file declares a DTD or entities.
        SrdfLoadError: The root is not ``<robot>``, or (``strict``) the file is not a valid
            SRDF.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RobotDescriptionError(f'cannot read SRDF {str(p)!r}: {exc.strerror}') from exc
    return parse_srdf(data, source=str(p), strict=strict)


def validate_srdf_against(srdf: SrdfModel, link_names: Collection[str],
                          joint_names: Collection[str]) -> list[str]:
    """List every name the SRDF uses that the URDF does not define.

    Checked: group joints, links and chain ends; group state joints; virtual joint child links;
    passive joints; end effector parent links; both links of every disabled collision pair.
    Virtual joint names count as joints (a group or state may list them).

    Args:
        srdf: The parsed SRDF.
        link_names: Every link name of the URDF.
        joint_names: Every joint name of the URDF.

    Returns:
        One message per problem, in document order, each naming the SRDF element and the
        unknown name with close matches; empty if the SRDF matches.
    """
    links = frozenset(link_names)
    joints = frozenset(joint_names) | {vj.name for vj in srdf.virtual_joints}
    check = _NameChecker(links, joints)
    problems: list[str] = []
    for vj in srdf.virtual_joints:
        problems += check.link(vj.child_link, f'virtual_joint {vj.name!r} (child_link)')
    for group in srdf.groups:
        where = f'group {group.name!r}'
        for joint in group.joints:
            problems += check.joint(joint, where)
        for link in group.links:
            problems += check.link(link, where)
        for base, tip in group.chains:
            problems += check.link(base, f'{where} (chain base_link)')
            problems += check.link(tip, f'{where} (chain tip_link)')
    for state in srdf.group_states:
        for joint in state.values:
            problems += check.joint(joint, f'group_state {state.name!r} of group {state.group!r}')
    for joint in srdf.passive_joints:
        problems += check.joint(joint, 'passive_joint')
    for eef in srdf.end_effectors:
        problems += check.link(eef.parent_link, f'end_effector {eef.name!r} (parent_link)')
    for pair in srdf.disabled_collisions:
        where = f'disable_collisions {pair.link1!r}/{pair.link2!r}'
        problems += check.link(pair.link1, where)
        problems += check.link(pair.link2, where)
    return problems


def check_srdf_against(srdf: SrdfModel, link_names: Collection[str],
                       joint_names: Collection[str]) -> None:
    """Strict form of :func:`validate_srdf_against`: raise if any name is unknown.

    Elements the parser dropped (:attr:`SrdfModel.warnings`) count as problems too.

    Args:
        srdf: The parsed SRDF.
        link_names: Every link name of the URDF.
        joint_names: Every joint name of the URDF.

    Raises:
        SrdfLoadError: At least one problem; the message names the SRDF source and lists every
            problem, one per line.
    """
    problems = [*srdf.warnings, *validate_srdf_against(srdf, link_names, joint_names)]
    if problems:
        listing = ''.join(f'\n  - {p}' for p in problems)
        raise SrdfLoadError(f'{srdf.source}: SRDF of robot {srdf.name!r} does not match the '
                            f'URDF ({len(problems)} problem(s)):{listing}')


class _NameChecker:
    """Membership tests with "did you mean" suggestions, memoized per unknown name."""

    def __init__(self, links: frozenset[str], joints: frozenset[str]) -> None:
        self._known = {'link': links, 'joint': joints}
        self._hints: dict[tuple[str, str], str] = {}

    def link(self, name: str, where: str) -> list[str]:
        return self._check('link', name, where)

    def joint(self, name: str, where: str) -> list[str]:
        return self._check('joint', name, where)

    def _check(self, kind: str, name: str, where: str) -> list[str]:
        known = self._known[kind]
        if name in known:
            return []
        key = (kind, name)
        if key not in self._hints:
            budget = len(self._hints) < MAX_SUGGESTIONS
            self._hints[key] = _suggest(name, sorted(known)) if budget else ''
        return [f'{where}: unknown {kind} {name!r}{self._hints[key]}']


class _SrdfParser:
    """One parse of one document: the source name, the mode and the messages so far."""

    def __init__(self, source: str, strict: bool = False) -> None:
        self.source = source
        self.strict = strict
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.messages: list[LoadMessage] = []
        self.suggestions_left = MAX_SUGGESTIONS

    def _suggest(self, name: str, known: Collection[str]) -> str:
        """``_suggest(name, known)`` for the first :data:`MAX_SUGGESTIONS` calls, then ``''``."""
        if self.suggestions_left <= 0:
            return ''
        self.suggestions_left -= 1
        return _suggest(name, known)

    def parse(self, root: etree._Element) -> SrdfModel:
        if root.tag != 'robot':
            raise self._error(f'root element is <{root.tag}>, expected <robot>', root)
        name = self._required(root, 'name', 'the robot name is empty') or ''
        groups = self._groups(root)
        group_states = self._group_states(root, groups)
        virtual_joints = self._virtual_joints(root)
        passive_joints = tuple(joint for el in _children(root, 'passive_joint')
                               if (joint := self._required(el, 'name')) is not None)
        end_effectors = self._end_effectors(root, groups)
        disabled = []
        for el in _children(root, 'disable_collisions'):
            link1, link2 = self._required(el, 'link1'), self._required(el, 'link2')
            if link1 is not None and link2 is not None:
                disabled.append(SrdfDisabledCollision(link1, link2, el.get('reason', '')))
        joint_properties = self._joint_properties(root)
        for el in root:
            if isinstance(el.tag, str) and el.tag not in _HANDLED:
                self._skip(el)
        log_load_messages(_LOG, self.source, self.messages)
        return SrdfModel(name=name, groups=tuple(groups.values()), group_states=group_states,
                         virtual_joints=virtual_joints, passive_joints=passive_joints,
                         end_effectors=end_effectors, disabled_collisions=tuple(disabled),
                         joint_properties=joint_properties, notes=tuple(self.notes),
                         source=self.source, warnings=tuple(self.warnings),
                         messages=tuple(self.messages))

    def _groups(self, root: etree._Element) -> dict[str, SrdfGroup]:
        """Every valid group, keyed by name, in document order; subgroups are checked."""
        groups: dict[str, SrdfGroup] = {}
        elements: dict[str, etree._Element] = {}
        for el in _children(root, 'group'):
            name = self._required(el, 'name')
            if name is None:
                continue
            if name in groups:
                self._problem(f'duplicate group name {name!r} (first defined on line '
                              f'{elements[name].sourceline})', el, 'the first one is kept',
                              'srdf_duplicate', f'group {name!r}')
                continue
            joints: list[str] = []
            links: list[str] = []
            chains: list[tuple[str, str]] = []
            subgroups: list[str] = []
            for child in el:
                if not isinstance(child.tag, str):
                    continue
                if child.tag in ('joint', 'link', 'group'):
                    item = self._required(child, 'name')
                    if item is not None:
                        {'joint': joints, 'link': links, 'group': subgroups}[child.tag].append(
                            item)
                elif child.tag == 'chain':
                    base, tip = self._required(child, 'base_link'), self._required(child,
                                                                                   'tip_link')
                    if base is not None and tip is not None:
                        chains.append((base, tip))
                else:
                    self._skip(child)
            groups[name] = SrdfGroup(name, tuple(joints), tuple(links), tuple(chains),
                                     tuple(subgroups))
            elements[name] = el
        unknown: dict[str, str] = {}
        for name, el in elements.items():
            for child in _children(el, 'group'):
                sub = child.get('name', '')
                if sub and sub not in groups and name not in unknown:
                    unknown[name] = sub
                    self._problem(f'group {name!r} includes unknown subgroup {sub!r}'
                                  f'{self._suggest(sub, groups)}', child,
                                  f'group {name!r} is dropped', 'srdf_dropped_group',
                                  repr(name))
        cycles = self._subgroup_cycles(groups, elements)
        valid = set(dependency_order(groups, exclude=set(unknown)))
        for name, group in groups.items():
            if name in valid or name in unknown:
                continue
            if name in cycles:
                self._problem(f'subgroup cycle: {cycles[name]}', elements[name],
                              f'group {name!r} is dropped', 'srdf_dropped_group', repr(name))
            else:
                sub = next(g for g in group.subgroups if g not in valid)
                self._problem(f'group {name!r} includes subgroup {sub!r}, which is dropped',
                              elements[name], f'group {name!r} is dropped',
                              'srdf_dropped_group', repr(name))
        return {name: group for name, group in groups.items() if name in valid}

    def _subgroup_cycles(self, groups: dict[str, SrdfGroup],
                         elements: dict[str, etree._Element]) -> dict[str, str]:
        """``{group on a cycle: the cycle}``; in strict mode the first cycle raises.

        Iterative depth-first search (a hostile document may nest thousands of groups).
        """
        on_path, done = 1, 2
        state: dict[str, int] = {}
        cycles: dict[str, str] = {}
        for start in groups:
            if start in state:
                continue
            path = [start]
            state[start] = on_path
            pending = [iter(groups[start].subgroups)]
            while pending:
                sub = next(pending[-1], None)
                if sub is None:
                    state[path.pop()] = done
                    pending.pop()
                elif state.get(sub) == on_path:
                    members = path[path.index(sub):]
                    shown = [*members, sub] if len(members) <= 8 else \
                        [*members[:3], f'... ({len(members) - 4} more)', members[-1], sub]
                    text = ' -> '.join(g if g.startswith('... (') else repr(g) for g in shown)
                    if self.strict:
                        raise self._error('subgroup cycle: ' + text, elements[sub])
                    for member in members:
                        cycles.setdefault(member, text)
                elif sub in groups and sub not in state:
                    state[sub] = on_path
                    path.append(sub)
                    pending.append(iter(groups[sub].subgroups))
        return cycles

    def _group_states(self, root: etree._Element,
                      groups: dict[str, SrdfGroup]) -> tuple[SrdfGroupState, ...]:
        states: dict[tuple[str, str], SrdfGroupState] = {}
        lines: dict[tuple[str, str], int | None] = {}
        for el in _children(root, 'group_state'):
            name = self._required(el, 'name')
            group = self._required(el, 'group')
            if name is None or group is None:
                continue
            if group not in groups:
                self._problem(f'group_state {name!r} refers to unknown group {group!r}'
                              f'{self._suggest(group, groups)}', el, '',
                              'srdf_dropped_group_state', f'{name!r} (group {group!r})')
                continue
            key = (group, name)
            if key in states:
                self._problem(f'duplicate group_state {name!r} for group {group!r} (first '
                              f'defined on line {lines[key]})', el,
                              'it replaces the first one (MoveIt keeps the last)',
                              'srdf_duplicate', f'group_state {name!r}')
                del states[key]
            values: dict[str, tuple[float, ...]] = {}
            twice: set[str] = set()
            for child in el:
                if not isinstance(child.tag, str):
                    continue
                if child.tag != 'joint':
                    self._skip(child)
                    continue
                joint = self._required(child, 'name')
                if joint is None:
                    continue
                if joint in values or joint in twice:
                    self._problem(f'joint {joint!r} is given twice in group_state {name!r}',
                                  child, f'no value of {joint!r} is used', 'srdf_duplicate',
                                  f'joint {joint!r} of group_state {name!r}')
                    values.pop(joint, None)
                    twice.add(joint)
                    continue
                joint_values = self._joint_values(child)
                if joint_values is not None:
                    values[joint] = joint_values
            states[key] = SrdfGroupState(name, group, values)
            lines[key] = el.sourceline
        return tuple(states.values())

    def _joint_values(self, el: etree._Element) -> tuple[float, ...] | None:
        """The finite numbers of a group_state ``<joint value="v1 [v2 ...]">``, or ``None``."""
        text = self._required(el, 'value')
        if text is None:
            return None
        values: list[float] = []
        for token in text.split():
            if not _NUMBER.fullmatch(token) or not math.isfinite(float(token)):
                # float() of a matched token cannot fail; 1e999 overflows to inf
                what = 'not finite' if _is_non_finite(token) or _NUMBER.fullmatch(token) \
                    else 'not a number'
                self._problem(f'joint value {token!r} is {what}', el,
                              f"joint {el.get('name')!r} is left out of the state",
                              'srdf_bad_value', f"{el.get('name')!r}: {token!r}")
                return None
            values.append(float(token))
        return tuple(values)

    def _virtual_joints(self, root: etree._Element) -> tuple[SrdfVirtualJoint, ...]:
        joints: dict[str, SrdfVirtualJoint] = {}
        for el in _children(root, 'virtual_joint'):
            name = self._required(el, 'name')
            raw_type = self._required(el, 'type')
            if name is None or raw_type is None:
                continue
            joint_type = raw_type.strip().lower()
            if joint_type not in VIRTUAL_JOINT_TYPES:
                self._problem(f'unknown virtual joint type {el.get("type")!r}; expected one '
                              f'of {", ".join(sorted(VIRTUAL_JOINT_TYPES))}', el,
                              "it is read as 'fixed' (srdfdom)", 'srdf_virtual_joint_type',
                              repr(el.get('type')))
                joint_type = 'fixed'
            parent_frame = self._required(el, 'parent_frame')
            child_link = self._required(el, 'child_link')
            if parent_frame is None or child_link is None:
                continue
            if name in joints:
                self._problem(f'duplicate virtual_joint name {name!r}', el,
                              'the first one is kept', 'srdf_duplicate',
                              f'virtual_joint {name!r}')
                continue
            joints[name] = SrdfVirtualJoint(name, joint_type, parent_frame, child_link)
        return tuple(joints.values())

    def _end_effectors(self, root: etree._Element,
                       groups: dict[str, SrdfGroup]) -> tuple[SrdfEndEffector, ...]:
        effectors: dict[str, SrdfEndEffector] = {}
        for el in _children(root, 'end_effector'):
            name = self._required(el, 'name')
            group = self._required(el, 'group')
            if name is None or group is None:
                continue
            if group not in groups:
                self._problem(f'end_effector {name!r} refers to unknown group {group!r}'
                              f'{self._suggest(group, groups)}', el, '',
                              'srdf_dropped_end_effector', f'{name!r} (group {group!r})')
                continue
            parent_link = self._required(el, 'parent_link')
            if parent_link is None:
                continue
            parent_group = el.get('parent_group') or None
            if self.strict and parent_group is not None and parent_group not in groups:
                raise self._error(f'end_effector {name!r} refers to unknown parent_group '
                                  f'{parent_group!r}{self._suggest(parent_group, groups)}', el)
            if name in effectors:
                self._problem(f'duplicate end_effector name {name!r}', el,
                              'the first one is kept', 'srdf_duplicate',
                              f'end_effector {name!r}')
                continue
            effectors[name] = SrdfEndEffector(name, parent_link, group, parent_group)
        return tuple(effectors.values())

    def _joint_properties(self, root: etree._Element) -> tuple[SrdfJointProperty, ...]:
        """Complete ``<joint_property>`` elements in document order.

        An element without a joint name, property name or value is a problem (srdfdom logs an
        error and skips it).
        """
        found: list[SrdfJointProperty] = []
        for el in _children(root, 'joint_property'):
            joint = (el.get('joint_name') or '').strip()
            name = (el.get('property_name') or '').strip()
            value = el.get('value')
            if not joint or not name or value is None:
                self._problem('<joint_property> needs joint_name, property_name and value', el)
                continue
            found.append(SrdfJointProperty(joint, name, value))
        return tuple(found)

    def _required(self, el: etree._Element, attribute: str, outcome: str = '') -> str | None:
        """The attribute's value, or ``None`` (reported) when it is missing or blank."""
        value = el.get(attribute)
        if value is None or not value.strip():
            self._problem(f'<{el.tag}> is missing the required attribute {attribute!r}', el,
                          outcome, 'srdf_missing_attribute', f'<{el.tag}> {attribute}')
            return None
        return str(value)

    def _problem(self, message: str, el: etree._Element, outcome: str = '',
                 kind: str = 'srdf_missing_attribute', item: str = '') -> None:
        """Raise (strict) or record a warning of ``kind``; the caller drops the element."""
        if self.strict:
            raise self._error(message, el)
        line = f', line {el.sourceline}' if el.sourceline is not None else ''
        warning = (f'{self.source}: {message} (in {_describe(el)}{line}); '
                   f'{outcome or "the element is ignored"}')
        self.warnings.append(warning)
        self.messages.append(LoadMessage(kind, warning, item))

    def _skip(self, el: etree._Element) -> None:
        """Record an element that is ignored on purpose (a note)."""
        tag = str(el.tag)
        if tag in _SKIPPED_INFO:
            why, kind = _SKIPPED_INFO[tag], 'srdf_skipped_element'
        elif tag in _SKIPPED_WARNING:
            why, kind = _SKIPPED_WARNING[tag], 'srdf_ignored_element'
        else:
            where = 'the document' if el.getparent() is None else _describe(el.getparent())
            why, kind = f'unknown SRDF element in {where}', 'srdf_ignored_element'
        note = f'{self.source}: line {el.sourceline}: <{tag}> ignored: {why}'
        self.notes.append(note)
        self.messages.append(LoadMessage(kind, note, f'<{tag}>'))

    def _error(self, message: str, el: etree._Element) -> SrdfLoadError:
        line = f', line {el.sourceline}' if el.sourceline is not None else ''
        return SrdfLoadError(f'{self.source}: {message} (in {_describe(el)}{line})')


_HANDLED = frozenset({'group', 'group_state', 'virtual_joint', 'passive_joint', 'end_effector',
                      'disable_collisions', 'joint_property'})


def dependency_order(groups: Mapping[str, SrdfGroup], exclude: Collection[str] = ()
                     ) -> list[str]:
    """Group names, each after all its subgroups (srdfdom's "known groups" fixed point).

    Groups in ``exclude``, groups with a subgroup that is not in ``groups`` or not ordered,
    and groups on a subgroup cycle are left out. Linear in the number of subgroup references.
    """
    pending = {name: len(set(g.subgroups)) for name, g in groups.items()}
    includers: dict[str, list[str]] = {}
    for name, g in groups.items():
        for sub in set(g.subgroups):
            includers.setdefault(sub, []).append(name)
    ready = deque(name for name in groups if pending[name] == 0 and name not in exclude)
    order: list[str] = []
    while ready:
        name = ready.popleft()
        order.append(name)
        for includer in includers.get(name, ()):
            pending[includer] -= 1
            if pending[includer] == 0 and includer not in exclude:
                ready.append(includer)
    return order


def _children(el: etree._Element, tag: str) -> Iterator[etree._Element]:
    """Direct children of ``el`` with this tag, in document order."""
    return (child for child in el if child.tag == tag)


def _describe(el: etree._Element) -> str:
    """``"<joint name='elbow'> of <group_state name='home'>"``: the element and its parents."""
    parts: list[str] = []
    node: etree._Element | None = el
    while node is not None and node.getparent() is not None:
        name = node.get('name')
        parts.append(f'<{node.tag} name={name!r}>' if name else f'<{node.tag}>')
        node = node.getparent()
    if not parts:  # the root element itself
        return f'<{el.tag}>'
    return ' of '.join(parts)


def _suggest(name: str, known: Collection[str]) -> str:
    """``'; did you mean 'a' or 'b'?'`` (up to three close names of ``known``), or ``''``."""
    if len(name) > _MAX_SUGGESTED_NAME:
        return ''
    close = difflib.get_close_matches(
        name, [k for k in known if len(k) <= _MAX_SUGGESTED_NAME], n=3, cutoff=0.6)
    return '; did you mean ' + ' or '.join(repr(c) for c in close) + '?' if close else ''


def _is_non_finite(token: str) -> bool:
    try:
        return not math.isfinite(float(token))
    except ValueError:
        return False
