"""The SRDF semantics of a robot model, compiled the way MoveIt's ``RobotModel`` builder does.

Two steps of :class:`~robot_state_core.model.robot_model.RobotModel`'s construction live here:

* :func:`add_virtual_joint` connects the URDF root to the SRDF's virtual joint in the scene
  graph, before the kinematic tree is compiled;
* :func:`compile_semantics` reads the compiled tree (:class:`CompiledTree`: names, joint
  types, parent and child links, the variable layout and the mimic map) and returns the
  :class:`Semantics`: joint model groups with their named states, end effectors, passive
  joints, disabled collision pairs, and the per-joint distance settings (MoveIt's distance
  factors and the SRDF ``joint_property`` values).

SRDF problems MoveIt tolerates drop the element and are reported through the model's warning
callback (:class:`WarnCallback`), in the order MoveIt meets them.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import math
import re
from typing import Any, Protocol

import numpy as np

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joint_types import JOINT_TYPES
from robot_state_core.description.joints import Joint, JointLimits, JointType
from robot_state_core.description.links import Link
from robot_state_core.errors import InvalidArgumentError, ModelError, SrdfLoadError
from robot_state_core.io.srdf import dependency_order, MAX_GROUPS
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    MAX_COORDINATE,
    QUATERNION_MAX_NORM,
    QUATERNION_MIN_NORM,
)

#: IK timeout [s] of a group that kinematics.yaml does not configure.
DEFAULT_IK_TIMEOUT = 0.05
#: MoveIt ``JointModel::getStateSpaceDimension`` per type: the joint's default distance factor
#: (``RobotModel::constructJointModel``), each joint type module's ``STATE_SPACE_DIMENSION``.
STATE_SPACE_DIMENSION: dict[JointType, int] = {
    t: module.STATE_SPACE_DIMENSION for t, module in JOINT_TYPES.items()}
#: Planar motion models of the SRDF ``motion_model`` joint property (MoveIt
#: ``PlanarJointModel::MotionModel``).
PLANAR_MOTION_MODELS: tuple[str, ...] = ('holonomic', 'diff_drive')
#: MoveIt's default ``min_translational_distance`` of a planar joint [m].
DEFAULT_MIN_TRANSLATIONAL_DISTANCE = 1e-5
#: A decimal number at the start of a property value, as ``std::stod`` reads it.
_LEADING_NUMBER = re.compile(r'\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)')
#: Which position variables of a joint are translations [m] (each joint type module's
#: ``TRANSLATION_VARIABLES``; the others are angles or a quaternion).
_TRANSLATION_VARIABLES: dict[JointType, tuple[int, ...]] = {
    t: module.TRANSLATION_VARIABLES for t, module in JOINT_TYPES.items()}


@dataclass(frozen=True)
class EndEffector:
    """An SRDF end effector: ``group`` attached to ``parent_link`` (of ``parent_group``)."""

    name: str
    parent_link: str
    group: str
    parent_group: str = ''


@dataclass(frozen=True)
class Semantics:
    """What the SRDF adds to a compiled tree (the fields of the same names of ``RobotModel``).

    Attributes:
        passive_joint_names: SRDF passive joints that are joints of the model.
        end_effectors: The end effectors that were built, sorted by name.
        disabled_collision_pairs: ``(link1, link2, reason)`` of every SRDF
            ``disable_collisions`` whose links are links of the model.
        virtual_joint_names: The virtual joint used, when it is a joint of the model.
        groups: The joint model groups by name, in name order (MoveIt's).
        joint_distance_factors: (J,) each joint's :data:`STATE_SPACE_DIMENSION`.
        joint_angular_distance_weights: (J,) SRDF ``angular_distance_weight``, default 1.
        joint_min_translational_distances: (J,) SRDF ``min_translational_distance`` [m],
            default :data:`DEFAULT_MIN_TRANSLATIONAL_DISTANCE`.
        joint_motion_models: (J,) SRDF ``motion_model`` of planar joints (default
            ``'holonomic'``), ``''`` for the other types.
    """

    passive_joint_names: tuple[str, ...]
    end_effectors: tuple[EndEffector, ...]
    disabled_collision_pairs: tuple[tuple[str, str, str], ...]
    virtual_joint_names: tuple[str, ...]
    groups: dict[str, JointModelGroup]
    joint_distance_factors: FloatArray
    joint_angular_distance_weights: FloatArray
    joint_min_translational_distances: FloatArray
    joint_motion_models: tuple[str, ...]


class CompiledTree(Protocol):
    """The compiled kinematic tree the semantics read (a ``RobotModel`` under construction)."""

    @property
    def link_names(self) -> tuple[str, ...]:
        """Link names in model order."""

    @property
    def joint_names(self) -> tuple[str, ...]:
        """Joint names in model order."""

    @property
    def joints(self) -> tuple[Joint, ...]:
        """The compiled joints."""

    @property
    def joint_types(self) -> tuple[JointType, ...]:
        """The type of each joint."""

    @property
    def joint_parent_link(self) -> IntArray:
        """(J,) parent link index of each joint."""

    @property
    def joint_child_link(self) -> IntArray:
        """(J,) child link index of each joint."""

    @property
    def link_parent_joint(self) -> IntArray:
        """(L,) joint index moving each link (-1 for the root)."""

    @property
    def joint_q_start(self) -> IntArray:
        """(J,) index of each joint's first position variable."""

    @property
    def joint_nq(self) -> IntArray:
        """(J,) number of position variables of each joint."""

    @property
    def variable_names(self) -> tuple[str, ...]:
        """Position variable names in model order."""

    @property
    def variable_joint(self) -> IntArray:
        """(nq,) joint index owning each variable."""

    @property
    def mimic_variable(self) -> IntArray:
        """(m,) the mimic-driven variables."""

    @property
    def mimic_source(self) -> IntArray:
        """(m,) the (non-mimic) source variable of each mimic variable."""


class WarnCallback(Protocol):
    """``RobotModel._warn``: records a problem MoveIt tolerates (message, SRDF?, kind...)."""

    def __call__(self, message: str, srdf: bool, kind: str, item: str = '',
                 group: str = '') -> None:
        """Record ``message`` of ``kind`` about ``item`` (in ``group``)."""


def add_virtual_joint(graph: Any, srdf: Any, warn: WarnCallback) -> Any | None:
    """Connect the URDF root to the SRDF's virtual joint (MoveIt ``constructJointModel``).

    The first virtual joint whose child is the root link is used; the others are skipped
    with a warning. Its parent frame becomes the new root link; when that name is already
    a link (e.g. ``parent_frame == child_link``, which MoveIt accepts) the new root link is
    named ``<joint>_parent_frame``. A fixed virtual joint onto its own child adds nothing.

    MoveIt's rule (``RobotModel::constructJointModel``) is on the child frame alone: a
    virtual joint whose child is not the URDF root is skipped ("Skipping virtual joint
    '...' because its child frame '...' does not match the URDF frame '...'"), whatever
    its name, so one named like a URDF joint does not make its parent frame the model
    frame. Its graph already holding the virtual joint (a model's own ``to_scene_graph()``
    compiled again) is recognized by the joint's type and parent frame, not by its name.
    A virtual joint on the root named like a URDF joint is skipped too (decision L21).

    Args:
        graph: The scene graph being compiled (edited in place).
        srdf: The ``SrdfModel``.
        warn: Receives the warnings.

    Returns:
        The virtual joint used, or ``None``.

    Raises:
        ModelError: The graph refuses the virtual joint.
    """
    root = graph.get_root()
    chosen = None
    for vj in getattr(srdf, 'virtual_joints', ()):
        existing = graph.get_joint(vj.name)
        if chosen is None and existing is not None and \
                existing.child_link_name == vj.child_link and \
                existing.parent_link_name == root and \
                existing.type is JointType(vj.type) and \
                (root == vj.parent_frame or root.startswith(f'{vj.name}_parent_frame')):
            chosen = vj  # recompiling a model's own graph: its root is this frame
            continue
        if chosen is not None:
            warn(f'virtual joint {vj.name!r} is ignored: the model already has the '
                 f'virtual joint {chosen.name!r}', True, 'ignored_virtual_joint',
                 repr(vj.name))
            continue
        if graph.get_link(vj.child_link) is None:
            warn(f'virtual joint {vj.name!r} is ignored: its child link '
                 f'{vj.child_link!r} is not a link of the URDF', True,
                 'ignored_virtual_joint', repr(vj.name))
            continue
        if vj.child_link != root:
            link = graph.get_link(root)
            if not (root == 'world' and vj.type == 'fixed' and not link.visuals
                    and not link.collisions):  # MoveIt's quiet Gazebo 'world' case
                warn(f'Skipping virtual joint {vj.name!r} because its child frame '
                     f'{vj.child_link!r} does not match the URDF frame {root!r} '
                     '(MoveIt); the model frame stays the URDF root',
                     True, 'ignored_virtual_joint', repr(vj.name))
            continue
        if existing is not None:
            warn(f'Skipping virtual joint {vj.name!r}: the URDF already has a joint '
                 f'named {vj.name!r} (from {existing.parent_link_name!r} to '
                 f'{existing.child_link_name!r}); the model frame stays the URDF root',
                 True, 'ignored_virtual_joint', repr(vj.name))
            continue
        chosen = vj
        jtype = JointType(vj.type)
        parent = vj.parent_frame
        if graph.get_link(parent) is not None:
            if jtype is JointType.FIXED:
                break  # a fixed joint onto its own frame: nothing to add
            parent = f'{vj.name}_parent_frame'
            while graph.get_link(parent) is not None:
                parent += '_'
        graph.add_link(Link(parent))
        # A planar joint needs a limits object in the graph (tesseract, SG-14); all zero is
        # "unspecified" (MoveIt's planar virtual joint has no velocity limits).
        limits = JointLimits() if jtype is JointType.PLANAR else None
        if not graph.add_joint(Joint(vj.name, jtype, parent, vj.child_link, limits=limits)):
            raise ModelError(f'RobotModel: virtual joint {vj.name!r} could not connect '
                             f'{parent!r} to {vj.child_link!r}')
        graph.set_root(parent)
    return chosen


def compile_semantics(tree: CompiledTree, srdf: Any | None, kinematics: Mapping[str, Any],
                      virtual: Any | None, warn: WarnCallback) -> Semantics:
    """Groups, states, end effectors, passive joints, ACM pairs and joint properties.

    The groups and the other SRDF elements first, then the joint properties (the order of
    the warnings).

    Args:
        tree: The compiled kinematic tree (the model under construction).
        srdf: The ``SrdfModel``, or ``None`` (no groups; MoveIt's default joint properties).
        kinematics: kinematics.yaml content: ``{group: {'kinematics_solver_timeout': s}}``.
        virtual: The virtual joint :func:`add_virtual_joint` used, or ``None``.
        warn: Receives every SRDF problem MoveIt tolerates.

    Raises:
        SrdfLoadError: The SRDF has more than :data:`~robot_state_core.io.srdf.MAX_GROUPS`
            groups.
    """
    builder = _SemanticsBuilder(tree, warn)
    builder.compile_elements(srdf, kinematics, virtual)
    builder.compile_joint_properties(srdf)
    return Semantics(
        passive_joint_names=builder.passive_joint_names,
        end_effectors=builder.end_effectors,
        disabled_collision_pairs=builder.disabled_collision_pairs,
        virtual_joint_names=builder.virtual_joint_names,
        groups=builder.groups,
        joint_distance_factors=_ro(builder.distance_factors),
        joint_angular_distance_weights=_ro(builder.angular_weights),
        joint_min_translational_distances=_ro(builder.min_distances),
        joint_motion_models=tuple(builder.motion_models))


class _SemanticsBuilder:
    """Compiles the SRDF semantics of one tree; the results are its public attributes."""

    def __init__(self, tree: CompiledTree, warn: WarnCallback) -> None:
        self.tree = tree
        self.warn = warn
        self.link_index = {n: i for i, n in enumerate(tree.link_names)}
        self.joint_index = {n: i for i, n in enumerate(tree.joint_names)}
        self.passive_joint_names: tuple[str, ...] = ()
        self.end_effectors: tuple[EndEffector, ...] = ()
        self.disabled_collision_pairs: tuple[tuple[str, str, str], ...] = ()
        self.virtual_joint_names: tuple[str, ...] = ()
        self.groups: dict[str, JointModelGroup] = {}
        # MoveIt's defaults (RobotModel::constructJointModel); the SRDF may override the last 3.
        J = len(tree.joint_names)
        self.distance_factors = [float(STATE_SPACE_DIMENSION[t]) for t in tree.joint_types]
        self.angular_weights = np.ones(J)
        self.min_distances = np.full(J, DEFAULT_MIN_TRANSLATIONAL_DISTANCE)
        self.motion_models = ['holonomic' if t is JointType.PLANAR else ''
                              for t in tree.joint_types]

    def compile_elements(self, srdf: Any | None, kinematics: Mapping[str, Any],
                         virtual: Any | None) -> None:
        """Groups, states, end effectors, passive joints and ACM pairs, the MoveIt way.

        srdfdom drops names the URDF does not define; MoveIt's ``buildGroups`` then drops
        groups without any valid joint and groups whose subgroups were not built,
        ``buildGroupStates`` skips values of joints outside the group or with the wrong
        number of values, and ``buildGroupsInfoEndEffectors`` resolves each end effector's
        parent group. Every drop is a warning.
        """
        if srdf is None:
            return
        if virtual is not None and virtual.name in self.joint_index:
            self.virtual_joint_names = (virtual.name,)
        passive: list[str] = []
        for name in srdf.passive_joints:
            if name in self.joint_index:
                passive.append(name)
            else:
                self.warn(f'passive joint {name!r} is not a joint of the model; ignored', True,
                          'dropped_passive_joint', repr(name))
        self.passive_joint_names = tuple(passive)
        pairs = []
        for dc in srdf.disabled_collisions:
            missing = [n for n in (dc.link1, dc.link2) if n not in self.link_index]
            if missing:
                self.warn(f'disable_collisions {dc.link1!r}/{dc.link2!r}: link {missing[0]!r} '
                          'is not a link of the model; the pair is ignored', True,
                          'dropped_disabled_pair', f'{dc.link1}–{dc.link2}')
            else:
                pairs.append((dc.link1, dc.link2, dc.reason))
        self.disabled_collision_pairs = tuple(pairs)
        if len(srdf.groups) > MAX_GROUPS:
            raise SrdfLoadError(f'{getattr(srdf, "source", "SRDF")}: {len(srdf.groups)} groups; '
                                f'at most {MAX_GROUPS} are compiled (the subgroup relation '
                                'grows with the square of the group count)')
        joint_sets = self._build_group_joint_sets(srdf.groups)
        chains = {g.name: g.chains[-1] for g in srdf.groups
                  if g.name in joint_sets and g.chains
                  and all(link in self.link_index for link in g.chains[-1])}
        links = {name: {int(self.tree.joint_child_link[j]) for j in indices}
                 for name, indices in joint_sets.items()}
        states = self._build_group_states(srdf.group_states, joint_sets)
        attached: dict[str, list[str]] = {name: [] for name in joint_sets}
        eefs: list[EndEffector] = []
        order = {g.name: i for i, g in enumerate(srdf.groups)}
        for e in sorted(srdf.end_effectors, key=lambda e: (e.group, order.get(e.group, 0))):
            if e.group not in joint_sets:
                self.warn(f'end effector {e.name!r}: its group {e.group!r} was not built; '
                          'the end effector is ignored', True, 'dropped_end_effector',
                          repr(e.name))
                continue
            if e.parent_link not in self.link_index:
                self.warn(f'end effector {e.name!r}: parent link {e.parent_link!r} is not a '
                          'link of the model; the end effector is ignored', True,
                          'dropped_end_effector', repr(e.name))
                continue
            link = self.link_index[e.parent_link]
            possible = [g for g in sorted(joint_sets) if g != e.group and link in links[g]]
            for g in possible:
                attached[g].append(e.name)
            parent = ''
            if e.parent_group:
                if e.parent_group not in joint_sets:
                    self.warn(f'end effector {e.name!r}: parent group {e.parent_group!r} '
                              'not found', True, 'end_effector_parent_group', repr(e.name))
                elif link not in links[e.parent_group]:
                    self.warn(f'end effector {e.name!r}: parent group {e.parent_group!r} does '
                              f'not include the parent link {e.parent_link!r}', True,
                              'end_effector_parent_group', repr(e.name))
                elif e.parent_group == e.group:
                    self.warn(f'end effector {e.name!r}: group {e.group!r} cannot be its own '
                              'parent', True, 'end_effector_parent_group', repr(e.name))
                else:
                    parent = e.parent_group
            if not parent and possible:  # MoveIt: the containing group with fewest joints
                parent = min(possible, key=lambda g: len(joint_sets[g]))
            if not parent:
                self.warn(f'could not identify a parent group for end effector {e.name!r}',
                          True, 'end_effector_parent_group', repr(e.name))
            eefs.append(EndEffector(e.name, e.parent_link, e.group, parent))
        self.end_effectors = tuple(sorted(eefs, key=lambda e: e.name))
        descendants = self._joint_descendants()
        names = sorted(joint_sets)  # MoveIt orders groups by name
        # Subgroups are the groups whose joints are a subset (MoveIt); joint sets as bit masks,
        # one subset scan per distinct set (1 500 nested groups share one set).
        mask = {name: sum(1 << j for j in set(joint_sets[name])) for name in names}
        within: dict[int, tuple[str, ...]] = {}
        for m in set(mask.values()):
            within[m] = tuple(g for g in names if mask[g] & ~m == 0)
        for name in names:
            timeout = float(kinematics.get(name, {}).get('kinematics_solver_timeout',
                                                           DEFAULT_IK_TIMEOUT))
            among = within[mask[name]]  # sorted, and holds ``name`` itself
            at = bisect.bisect_left(among, name)
            subgroups = among[:at] + among[at + 1:]
            self.groups[name] = self._make_group(
                name, joint_sets[name], chains.get(name), subgroups, tuple(attached[name]),
                states.get(name, {}), timeout, self._updated_links(joint_sets[name], descendants))

    def _build_group_joint_sets(self, groups: Sequence[Any]) -> dict[str, list[int]]:
        """Joint indices of each group MoveIt builds (srdfdom's and ``buildGroups``' rules)."""
        by_name = {g.name: g for g in groups}
        built: dict[str, list[int]] = {}
        processed: set[str] = set()
        for name in dependency_order(by_name):
            g = by_name[name]
            if all(sub in built for sub in g.subgroups):
                processed.add(g.name)
                found: set[int] = set()
                for base, tip in g.chains:
                    unknown = [n for n in (base, tip) if n not in self.link_index]
                    if unknown:
                        self.warn(f'group {g.name!r}: chain link {unknown[0]!r} is not a link '
                                  'of the model; the chain is ignored', True,
                                  'dropped_group_member', f'chain link {unknown[0]!r}',
                                  f'group {g.name!r}')
                    else:
                        found.update(self._chain_joints(base, tip))
                for jn in g.joints:
                    if jn in self.joint_index:
                        found.add(self.joint_index[jn])
                    else:
                        self.warn(f'group {g.name!r}: joint {jn!r} is not a joint of the '
                                  'model; ignored', True, 'dropped_group_member',
                                  f'joint {jn!r}', f'group {g.name!r}')
                for ln in g.links:
                    if ln not in self.link_index:
                        self.warn(f'group {g.name!r}: link {ln!r} is not a link of the model; '
                                  'ignored', True, 'dropped_group_member', f'link {ln!r}',
                                  f'group {g.name!r}')
                    elif (pj := int(self.tree.link_parent_joint[self.link_index[ln]])) >= 0:
                        found.add(pj)
                for sub in g.subgroups:
                    found.update(built[sub])
                if found:
                    built[g.name] = sorted(found)
                else:
                    self.warn(f'group {g.name!r} has no valid joint; the group is not built',
                              True, 'dropped_group', f'{g.name!r} (no valid joint)')
        for g in groups:
            if g.name not in processed:
                self.warn(f'group {g.name!r} is not built: one of its subgroups '
                          f'({", ".join(repr(s) for s in g.subgroups if s not in built)}) '
                          'was not built', True, 'dropped_group',
                          f'{g.name!r} (subgroup not built)')
        return built

    def _build_group_states(self, group_states: Sequence[Any],
                            joint_sets: Mapping[str, Sequence[int]]
                            ) -> dict[str, dict[str, dict[str, float]]]:
        """``{group: {state: {variable: value}}}`` (MoveIt ``buildGroupStates``)."""
        joint_names, joints = self.tree.joint_names, self.tree.joints
        states: dict[str, dict[str, dict[str, float]]] = {}
        for s in group_states:
            if s.group not in joint_sets:
                self.warn(f'group_state {s.name!r}: group {s.group!r} was not built; the '
                          'state is ignored', True, 'dropped_group_state',
                          f'{s.name!r} of {s.group!r}')
                continue
            members = {joint_names[j] for j in joint_sets[s.group]}
            remaining = [joint_names[j] for j in joint_sets[s.group]
                         if joints[j].info.nq > 0 and joints[j].mimic is None]
            values: dict[str, float] = {}
            for jn, vals in s.values.items():
                if jn not in members:
                    self.warn(f'group_state {s.name!r} gives a value for joint {jn!r}, which '
                              f'is not part of group {s.group!r}; ignored', True,
                              'dropped_state_value', f'{jn!r} (not in the group)',
                              f'state {s.name!r}')
                    continue
                if jn in remaining:
                    remaining.remove(jn)
                vnames = joints[self.joint_index[jn]].variable_names()
                if len(vals) != len(vnames):
                    self.warn(f'group_state {s.name!r} of group {s.group!r}: joint {jn!r} '
                              f'needs {len(vnames)} value(s), got {len(vals)}; ignored', True,
                              'dropped_state_value', f'{jn!r} ({len(vals)} values)',
                              f'state {s.name!r}')
                    continue
                joint = joints[self.joint_index[jn]]
                far = [vals[i] for i in _TRANSLATION_VARIABLES.get(joint.type, ())
                       if abs(vals[i]) > MAX_COORDINATE]
                if far:
                    self.warn(f'group_state {s.name!r} of group {s.group!r}: joint {jn!r} has '
                              f'the translation {far[0]:g} m, beyond {MAX_COORDINATE:g} m '
                              '(forward kinematics would overflow); ignored', True,
                              'dropped_state_value', f'{jn!r} (translation {far[0]:g} m)',
                              f'state {s.name!r}')
                    continue
                if joint.type is JointType.FLOATING:
                    try:  # the RobotState setters' rule, applied here so nothing is stored
                        check_quat_xyzw(vals[3:7], f'group_state {s.name!r}')
                    except InvalidArgumentError:
                        self.warn(f'group_state {s.name!r} of group {s.group!r}: joint {jn!r} '
                                  f'has the degenerate orientation (rot_x rot_y rot_z rot_w) '
                                  f'{" ".join(f"{v:g}" for v in vals[3:7])} (norm outside '
                                  f'[{QUATERNION_MIN_NORM:g}, {QUATERNION_MAX_NORM:g}]), which '
                                  'is no rotation; ignored', True, 'dropped_state_value',
                                  f'{jn!r} (no rotation)', f'state {s.name!r}')
                        continue
                values.update(zip(vnames, (float(v) for v in vals), strict=True))
            if remaining:
                self.warn(f'group_state {s.name!r} does not give every joint of group '
                          f'{s.group!r}: {", ".join(remaining)} missing', True,
                          'incomplete_group_state', f'{s.name!r} of {s.group!r}')
            if values:
                states.setdefault(s.group, {})[s.name] = values
        return states

    def _chain_joints(self, base: str, tip: str) -> list[int]:
        """Joint indices of a ``<chain>`` (MoveIt ``addJointModelGroup``), unordered.

        From the tip up to the base; when the base is not an ancestor of the tip, up to the
        first common joint from both sides (MoveIt includes the joint above the meeting link).
        """
        link_parent_joint, joint_parent_link = (self.tree.link_parent_joint,
                                                self.tree.joint_parent_link)
        base_index = self.link_index[base]
        path: list[int] = []
        link = self.link_index[tip]
        while link != base_index:
            j = int(link_parent_joint[link])
            if j < 0:
                break
            path.append(j)
            link = int(joint_parent_link[j])
        if link == base_index:
            return path
        other: list[int] = []
        link = base_index
        while True:
            j = int(link_parent_joint[link])
            if j < 0:  # met at the root link: the whole tip path (MoveIt's root joint)
                return path + other
            if j in path:
                return path[:path.index(j) + 1] + other
            other.append(j)
            link = int(joint_parent_link[j])

    def _make_group(self, name: str, joint_indices: Sequence[int],
                    chain: tuple[str, str] | None, subgroups: tuple[str, ...],
                    eefs: tuple[str, ...], states: Mapping[str, Mapping[str, float]],
                    timeout: float, updated_links: tuple[str, ...]) -> JointModelGroup:
        """The :class:`JointModelGroup` of the joints ``joint_indices``."""
        t = self.tree
        idx = sorted(joint_indices)
        joints = [t.joints[i] for i in idx]
        active = [i for i in idx if t.joint_types[i] is not JointType.FIXED
                  and t.joints[i].mimic is None]
        var_idx = [v for i in idx for v in range(int(t.joint_q_start[i]),
                                                 int(t.joint_q_start[i] + t.joint_nq[i]))]
        act_var = [v for i in active for v in range(int(t.joint_q_start[i]),
                                                    int(t.joint_q_start[i] + t.joint_nq[i]))]
        base = tip = ''
        is_chain = chain is not None
        if chain is not None:
            base, tip = chain
        elif idx:
            parents = [int(t.joint_parent_link[i]) for i in idx]
            children = [int(t.joint_child_link[i]) for i in idx]
            if all(parents[k + 1] == children[k] for k in range(len(idx) - 1)):
                is_chain = True
                base, tip = t.link_names[parents[0]], t.link_names[children[-1]]
        # MoveIt: the child links of the group's joints (fixed ones included), model order.
        links = [t.link_names[int(t.joint_child_link[i])] for i in idx]

        return JointModelGroup(
            name=name, joint_names=tuple(j.name for j in joints), joint_indices=_ro(idx, np.intp),
            active_joint_names=tuple(t.joint_names[i] for i in active),
            active_joint_indices=_ro(active, np.intp),
            mimic_joint_names=tuple(j.name for j in joints if j.mimic is not None),
            variable_names=tuple(t.variable_names[v] for v in var_idx),
            variable_indices=_ro(var_idx, np.intp),
            active_variable_names=tuple(t.variable_names[v] for v in act_var),
            active_variable_indices=_ro(act_var, np.intp), link_names=tuple(links),
            updated_link_model_names=updated_links,
            is_chain=is_chain, base_link=base, tip_link=tip, subgroup_names=subgroups,
            end_effector_names=eefs, named_states={k: dict(v) for k, v in states.items()},
            default_ik_timeout=timeout)

    def compile_joint_properties(self, srdf: Any | None) -> None:
        """The SRDF ``joint_property`` settings MoveIt applies, over the default values.

        MoveIt's ``RobotModel::constructJointModel``: every joint's distance factor is its state
        space dimension; ``angular_distance_weight`` applies to planar and floating joints (here
        also rpy_floating), ``motion_model`` and ``min_translational_distance`` to planar
        joints. Like MoveIt, a property that names an unknown joint, does not apply to the
        joint's type, has an unknown name or an unreadable value is skipped with a warning;
        the last value of a property wins. A number followed by other characters is read up
        to them, as ``std::stod`` does (with a warning). Non-finite or negative numbers are
        skipped (MoveIt would use them and produce NaN or negative distances).
        """
        weights, min_distance, models = (self.angular_weights, self.min_distances,
                                         self.motion_models)
        weighted = (JointType.PLANAR, JointType.FLOATING, JointType.RPY_FLOATING)
        for prop in getattr(srdf, 'joint_properties', ()):
            where = (f'joint_property {prop.property_name!r} of joint {prop.joint_name!r}')
            item = f'{prop.property_name} of {prop.joint_name!r}'
            j = self.joint_index.get(prop.joint_name)
            if j is None:
                self.warn(f'{where}: unknown joint, skipped', True, 'joint_property', item)
                continue
            jtype = self.tree.joint_types[j]
            if prop.property_name == 'motion_model':
                if jtype is not JointType.PLANAR:
                    self.warn(f'{where}: applies to planar joints only, not '
                              f'{jtype.value}; skipped', True, 'joint_property', item)
                elif prop.value not in PLANAR_MOTION_MODELS:
                    self.warn(f'{where}: unknown value {prop.value!r} (expected '
                              f'{" or ".join(PLANAR_MOTION_MODELS)}); skipped', True,
                              'joint_property', item)
                else:
                    models[j] = prop.value
                continue
            if prop.property_name not in ('angular_distance_weight',
                                          'min_translational_distance'):
                self.warn(f'{where}: unknown joint property, skipped', True, 'joint_property',
                          item)
                continue
            allowed = weighted if prop.property_name == 'angular_distance_weight' else (
                JointType.PLANAR,)
            if jtype not in allowed:
                self.warn(f'{where}: does not apply to {jtype.value} joints; skipped', True,
                          'joint_property', item)
                continue
            value = self._property_number(prop.value, where)
            if value is not None:
                (weights if prop.property_name == 'angular_distance_weight'
                 else min_distance)[j] = value

    def _property_number(self, text: str, where: str) -> float | None:
        """A non-negative finite number read like ``std::stod``, or None (with a message)."""
        match = _LEADING_NUMBER.match(text)
        if match is None:
            self.warn(f'{where}: value {text!r} is not a number; skipped', True,
                      'joint_property', where)
            return None
        value = float(match.group(1))
        if not math.isfinite(value) or value < 0.0:
            self.warn(f'{where}: value {text!r} must be finite and non-negative; skipped',
                      True, 'joint_property', where)
            return None
        if text[match.end():].strip():
            self.warn(f'{where}: extra characters after the number in {text!r} ignored '
                      f'(read {value})', True, 'joint_property', where)
        return value

    def _joint_descendants(self) -> tuple[list[int], list[int], list[int]]:
        """MoveIt ``RobotModel::computeDescendants`` as intervals of one depth-first sweep.

        The sweep starts at the root and visits each joint once; at a joint it goes down the
        child joints, then to the joints that mimic it. A joint's descendants are the joints
        visited while it is on the path: ``order[enter[j]:leave[j]]`` (``j`` first). So a mimic
        joint reached through its source before the tree reaches it counts among the source's
        descendants, exactly as in MoveIt. O(J) time and memory.

        Returns:
            ``(order, enter, leave)``: the visit order and each joint's interval in it.
        """
        t = self.tree
        J = len(t.joint_names)
        children: list[list[int]] = [[] for _ in range(len(t.link_names))]
        for j in range(J):
            children[int(t.joint_parent_link[j])].append(j)
        requests: list[list[int]] = [[] for _ in range(J)]
        for v, src in zip(t.mimic_variable.tolist(), t.mimic_source.tolist(), strict=True):
            requests[int(t.variable_joint[src])].append(int(t.variable_joint[v]))
        order: list[int] = []
        enter, leave = [0] * J, [0] * J
        seen = [False] * J
        stack: list[tuple[int, bool]] = [(j, True) for j in reversed(children[0])]
        while stack:  # iterative: deep chains must not hit the recursion limit
            j, entering = stack.pop()
            if not entering:
                leave[j] = len(order)
                continue
            if seen[j]:
                continue
            seen[j] = True
            enter[j] = len(order)
            order.append(j)
            stack.append((j, False))
            child = int(t.joint_child_link[j])
            stack.extend((k, True) for k in reversed(children[child] + requests[j]))
        return order, enter, leave

    def _updated_links(self, joint_indices: Sequence[int],
                       descendants: tuple[list[int], list[int], list[int]]
                       ) -> tuple[str, ...]:
        """MoveIt ``JointModelGroup::getUpdatedLinkModelNames`` of a group, model link order.

        The links moved by the group's *root* joints: the active joints of the group none of
        whose ancestors is an active group joint (an ancestor mimic joint counts through its
        source, MoveIt's ``includesParent``).
        """
        t = self.tree
        order, enter, leave = descendants
        members = set(joint_indices)
        mimic_source = {int(t.variable_joint[v]): int(t.variable_joint[s])
                        for v, s in zip(t.mimic_variable.tolist(),
                                        t.mimic_source.tolist(), strict=True)}

        def active(j: int) -> bool:
            return j in members and int(t.joint_nq[j]) > 0 and j not in mimic_source

        def has_active_ancestor(j: int, visited: frozenset[int] = frozenset()) -> bool:
            while True:
                j = int(t.link_parent_joint[int(t.joint_parent_link[j])])
                if j < 0:
                    return False
                if active(j):
                    return True
                src = mimic_source.get(j)
                if src is not None and src not in visited and (
                        active(src) or has_active_ancestor(src, visited | {src})):
                    return True

        links = {int(t.joint_child_link[order[k]])
                 for j in sorted(members) if active(j) and not has_active_ancestor(j)
                 for k in range(enter[j], leave[j])}
        return tuple(t.link_names[i] for i in sorted(links))
