"""What loading a description tolerated, one line per kind (issue 17: quiet, useful logs).

Loaders record every tolerated problem or ignored element as a :class:`LoadMessage` with a
*kind*. Logs and the command line show one summary line per kind, with the count and the first
few examples (``ignored 28 unknown attributes (dynamics: D, K, mu_coulomb, mu_viscous)``); the
full text of every message goes to DEBUG. The kind fixes the level:

* WARNING: the loaded model differs from what the file says or what a peer would load (a
  dropped group, state value or collision pair, an ignored mimic or planar axis, an unresolved
  or re-read mesh URI, an ignored element).
* INFO: skipped content this package does not model, nothing lost (transmissions without a
  type, textures without a file, SRDF sphere approximations, Pinocchio/HPP extensions).
* DEBUG: what urdfdom ignores silently: unknown URDF attributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import logging

#: How many examples a summary line names at most.
MAX_EXAMPLES = 4
#: Examples stop once they take this many characters (long URIs: fewer examples).
MAX_EXAMPLE_CHARS = 120


@dataclass(frozen=True, slots=True)
class LoadMessage:
    """One tolerated problem or ignored element of a description.

    Attributes:
        kind: Key into :data:`KINDS` (e.g. ``'unknown_attribute'``).
        text: The full message, one line, naming the element (and its line when known).
        item: Short example shown in the summary line (e.g. ``'D'``, ``"'arm'"``).
        group: Optional heading the summary groups items under (e.g. the element
            ``'dynamics'``); ``''`` for none.
    """

    kind: str
    text: str
    item: str = ''
    group: str = ''

    @property
    def level(self) -> int:
        """The logging level of this kind of message."""
        return KINDS[self.kind].level if self.kind in KINDS else logging.WARNING


@dataclass(frozen=True, slots=True)
class MessageKind:
    """Level and summary wording of one kind of message.

    Attributes:
        level: ``logging.WARNING``, ``INFO`` or ``DEBUG``.
        summary: Summary line; ``{count}`` is the number of messages, ``{s}`` is ``'s'``
            unless the count is 1.
    """

    level: int
    summary: str


_W, _I, _D = logging.WARNING, logging.INFO, logging.DEBUG

#: Every kind of message the loaders record.
KINDS: dict[str, MessageKind] = {
    # URDF (urdf_parser_py, our loader, the resource resolver)
    'unknown_attribute': MessageKind(_D, 'ignored {count} unknown attribute{s} (urdfdom ignores '
                                         'them too)'),
    'unknown_element': MessageKind(_W, 'ignored {count} unknown element{s}'),
    'urdf_parser': MessageKind(_W, '{count} URDF parser message{s}'),
    'duplicate_element': MessageKind(_W, 'ignored {count} repeated element{s} (urdfdom reads '
                                         'the first)'),
    'ignored_geometry_element': MessageKind(_W, 'ignored {count} extra element{s} in <geometry> '
                                                '(urdfdom reads the first as the shape)'),
    'dropped_link_element': MessageKind(_W, 'dropped {count} link element{s} urdfdom cannot '
                                            'read, with what follows them in their link (as '
                                            'urdfdom)'),
    'material_color': MessageKind(_W, 'read {count} malformed <color rgba> value{s} as urdfdom '
                                      'does'),
    'xacro_warning': MessageKind(_W, '{count} xacro warning{s} (expansion went on)'),
    'transmission_without_type': MessageKind(_I, 'skipped {count} <transmission> element{s} '
                                                 'without <type> (not used for kinematics)'),
    'texture_without_filename': MessageKind(_I, 'ignored {count} <texture> element{s} without '
                                                'filename'),
    'planar_axis_ignored': MessageKind(_W, 'ignored the <axis> of {count} planar joint{s} (they '
                                           'move in the x-y plane, as in MoveIt)'),
    'mimic_ignored': MessageKind(_W, 'loaded {count} joint{s} with an unusable <mimic> as '
                                     'independent joints (as MoveIt)'),
    'empty_package_name': MessageKind(_W, "read {count} 'package:///' URI{s} as 'package://' "
                                          '(empty package name)'),
    'mesh_uri': MessageKind(_W, '{count} mesh URI problem{s}'),
    'unresolved_mesh': MessageKind(_W, 'could not resolve {count} mesh URI{s} (no collision '
                                       'or visual geometry for them)'),
    # SRDF parser (srdfdom's rules)
    'srdf_missing_attribute': MessageKind(_W, 'dropped {count} SRDF element{s} missing a '
                                              'required attribute'),
    'srdf_duplicate': MessageKind(_W, 'found {count} duplicate SRDF element{s}'),
    'srdf_dropped_group': MessageKind(_W, 'dropped {count} SRDF group{s} (unknown or dropped '
                                          'subgroups, or subgroup cycles)'),
    'srdf_dropped_group_state': MessageKind(_W, 'dropped {count} group state{s} of unknown '
                                                'groups'),
    'srdf_dropped_end_effector': MessageKind(_W, 'dropped {count} end effector{s} of unknown '
                                                 'groups'),
    'srdf_bad_value': MessageKind(_W, 'left {count} group-state joint value{s} that are not '
                                      'finite numbers out of their states'),
    'srdf_virtual_joint_type': MessageKind(_W, "read {count} unknown virtual joint type{s} as "
                                               "'fixed' (as srdfdom)"),
    'srdf_skipped_element': MessageKind(_I, 'skipped {count} SRDF element{s} this package does '
                                            'not use'),
    'srdf_ignored_element': MessageKind(_W, 'ignored {count} SRDF element{s} (unknown, or '
                                            'changing collision semantics)'),
    # RobotModel (MoveIt's RobotModel builder rules)
    'ignored_virtual_joint': MessageKind(_W, 'ignored {count} virtual joint{s}'),
    'clamped_limit': MessageKind(_W, 'clamped the position limits of {count} joint{s} to '
                                     '±1e100 in the model (MAX_POSITION_LIMIT)'),
    'dropped_passive_joint': MessageKind(_W, 'dropped {count} passive joint{s} naming unknown '
                                             'joints'),
    'dropped_disabled_pair': MessageKind(_W, 'dropped {count} disabled collision pair{s} naming '
                                             'unknown links'),
    'dropped_group_member': MessageKind(_W, 'dropped {count} group member{s} naming unknown '
                                            'joints or links'),
    'dropped_group': MessageKind(_W, 'did not build {count} group{s}'),
    'dropped_group_state': MessageKind(_W, 'dropped {count} group state{s} of groups that were '
                                           'not built'),
    'dropped_state_value': MessageKind(_W, 'dropped {count} group-state value{s} (joint not in '
                                           'the group, wrong count, no rotation or too far)'),
    'joint_property': MessageKind(_W, 'skipped or partly read {count} SRDF joint_property '
                                      'value{s}'),
    'incomplete_group_state': MessageKind(_W, '{count} group state{s} do not give every joint '
                                              'of their group'),
    'dropped_end_effector': MessageKind(_W, 'dropped {count} end effector{s}'),
    'end_effector_parent_group': MessageKind(_W, 'could not use the parent group of {count} end '
                                                 'effector{s}'),
}


def summarize(messages: Iterable[LoadMessage],
              max_examples: int = MAX_EXAMPLES) -> list[tuple[int, str]]:
    """One ``(level, line)`` per kind, in the order each kind first occurs.

    The line is the kind's summary followed by up to ``max_examples`` distinct examples, grouped
    under their headings: ``ignored 28 unknown attributes (urdfdom ignores them too):
    dynamics: D, K, mu_coulomb, mu_viscous``; ``, ... (n more)`` counts the examples not shown.
    """
    by_kind: dict[str, list[LoadMessage]] = {}
    for m in messages:
        by_kind.setdefault(m.kind, []).append(m)
    lines = []
    for kind, group in by_kind.items():
        spec = KINDS.get(kind, MessageKind(logging.WARNING, '{count} message{s} of kind '
                                                             + kind))
        count = len(group)
        line = spec.summary.format(count=count, s='' if count == 1 else 's')
        examples = _examples(group, max_examples)
        lines.append((spec.level, f'{line}: {examples}' if examples else line))
    return lines


def _examples(group: Sequence[LoadMessage], max_examples: int) -> str:
    items: dict[str, dict[str, None]] = {}  # ordered sets: linear in the message count
    for m in group:
        if m.item:
            items.setdefault(m.group, {})[m.item] = None
    total = sum(len(v) for v in items.values())
    shown: list[str] = []
    count = length = 0
    for heading, values in items.items():
        taken = []
        for value in values:
            if count >= max_examples or (count and length + len(value) > MAX_EXAMPLE_CHARS):
                break
            taken.append(value)
            count += 1
            length += len(value) + 2
        if taken:
            shown.append(f'{heading}: {", ".join(taken)}' if heading else ', '.join(taken))
        if len(taken) < len(values):
            break
    text = '; '.join(shown)
    if total > count:
        text += f', ... ({total - count} more)'
    return text


def log_load_messages(logger: logging.Logger, source: str,
                      messages: Sequence[LoadMessage]) -> None:
    """Log every message at DEBUG, then one summary line per kind at the kind's level."""
    if logger.isEnabledFor(logging.DEBUG):
        for m in messages:
            logger.debug('%s', m.text if m.text.startswith(f'{source}: ')
                         else f'{source}: {m.text}')
    for level, line in summarize(messages):
        logger.log(level, '%s: %s', source, line)


def texts(messages: Iterable[LoadMessage], min_level: int = logging.WARNING) -> tuple[str, ...]:
    """The full texts of the messages at ``min_level`` or above, in order."""
    return tuple(m.text for m in messages if m.level >= min_level)
