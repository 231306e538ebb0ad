"""The compiled, immutable robot model (MoveIt ``RobotModel`` + Pinocchio ``Model`` bookkeeping).

A :class:`RobotModel` is compiled once from a
:class:`~robot_state_core.description.scene_graph.SceneGraph` (and optionally an SRDF) into
structure-of-arrays form; every array is read-only and editing the graph afterwards never changes
the model (design study B1, B6).

Conventions:
    * Joint order is depth-first from the root (children in the graph's insertion order); joint
      ``j`` moves link ``joint_child_link[j]``. Link order is the root followed by the child links
      in joint order.
    * ``q`` (size ``nq``) holds the position variables of every non-fixed joint in joint order,
      named the MoveIt way (``joint`` or ``joint/suffix``); ``v`` has size ``nv`` (``nq`` minus
      one per quaternion FLOATING joint). ``joint_q_start/joint_nq/joint_v_start/joint_nv`` are
      Pinocchio's ``idx_qs/nqs/idx_vs/nvs``.
    * Mimic joints keep their variable in ``q``; the affine map
      ``q[mimic_variable] = mimic_multiplier * q[mimic_source] + mimic_offset`` (chains composed
      down to a non-mimic source) keeps it consistent.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
import logging
import math
import os
from pathlib import Path
import re
from typing import Any, Literal, TypeVar

import numpy as np

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core._typing import read_only as _ro
from robot_state_core.description.joints import Joint, JOINT_TYPE_INFO, JointLimits, JointType
from robot_state_core.description.links import Link
from robot_state_core.errors import (
    ImmutableModelError,
    InvalidArgumentError,
    InvalidTypeError,
    ModelError,
    SrdfLoadError,
    UnknownNameError,
)
from robot_state_core.io.load_report import LoadMessage, log_load_messages
from robot_state_core.io.srdf import dependency_order, MAX_GROUPS, parse_srdf, read_srdf_file
from robot_state_core.io.urdf import load_urdf_file, load_urdf_string
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.rpy_floating import RpyFloatingJoint
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    MAX_COORDINATE,
    QUATERNION_MAX_NORM,
    QUATERNION_MIN_NORM,
)

#: Integer codes of joint types in ``RobotModel.joint_type_codes`` (index into this tuple).
JOINT_TYPE_ORDER: tuple[JointType, ...] = tuple(JointType)
#: IK timeout [s] of a group that kinematics.yaml does not configure.
DEFAULT_IK_TIMEOUT = 0.05
MAX_LINKS = 50_000
'''Most links a model may have (joints: one fewer). A description beyond it raises
:class:`ModelError` before anything is compiled.

The largest real robots have a few hundred links. Compilation and every per-model plan are
O(links + joints) in memory (a 20 000-joint robot compiles in well under a gigabyte), but
loading and compiling still take seconds per ten thousand joints, and a ``robot_description``
arriving over the network must not be able to exhaust the machine.'''
MAX_POSITION_LIMIT = 1e100
'''Largest accepted magnitude of a joint position limit, and of the values a mimic joint can
reach (``|multiplier| * max|source limit| + |offset|``) [rad or m].

Finite values beyond it (``±1e308``, a mimic multiplier of ``1e300``) are not usable: the
range ``upper - lower`` of a random sample, the squared errors of IK and the products in
Jacobians overflow to inf and then NaN. The "unlimited" idiom of Gazebo-generated URDFs
(``±1e16``) is far below it.'''
#: MoveIt ``JointModel::getStateSpaceDimension`` per type: the joint's default distance factor
#: (``RobotModel::constructJointModel``). RPY_FLOATING (not a MoveIt type) counts like FLOATING.
STATE_SPACE_DIMENSION: dict[JointType, int] = {
    JointType.FIXED: 0, JointType.REVOLUTE: 1, JointType.CONTINUOUS: 1, JointType.PRISMATIC: 1,
    JointType.PLANAR: 3, JointType.FLOATING: 6, JointType.RPY_FLOATING: 6}
#: Planar motion models of the SRDF ``motion_model`` joint property (MoveIt
#: ``PlanarJointModel::MotionModel``).
PLANAR_MOTION_MODELS: tuple[str, ...] = ('holonomic', 'diff_drive')
#: MoveIt's default ``min_translational_distance`` of a planar joint [m].
DEFAULT_MIN_TRANSLATIONAL_DISTANCE = 1e-5
#: A decimal number at the start of a property value, as ``std::stod`` reads it.
_LEADING_NUMBER = re.compile(r'\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)')

_LOG = logging.getLogger(__name__)
#: Which position variables of a joint are translations [m] (the others are angles or a
#: quaternion).
_TRANSLATION_VARIABLES: dict[JointType, tuple[int, ...]] = {
    JointType.PRISMATIC: (0,), JointType.PLANAR: (0, 1), JointType.FLOATING: (0, 1, 2),
    JointType.RPY_FLOATING: (3, 4, 5)}
_PlanT = TypeVar('_PlanT')




_LINK_ELEMENT = re.compile(r'<link[\s/>]')


def _check_link_elements(document: object) -> None:
    """Refuse a description with more than MAX_LINKS ``<link>`` elements before parsing it.

    A cheap count of ``<link`` runs first (comments can only over-count, and only documents
    near the limit are scanned exactly); the exact check is in :class:`RobotModel`.
    """
    text = (document.decode('utf-8', 'replace') if isinstance(document, bytes | bytearray)
            else document)
    if isinstance(text, str) and text.count('<link') > MAX_LINKS:
        count = len(_LINK_ELEMENT.findall(text))
        if count > MAX_LINKS:
            raise ModelError(f'RobotModel: the description has {count} <link> elements; at '
                             f'most {MAX_LINKS} links are supported (MAX_LINKS)')


def lookup_error(name: object, kind: str,
                 known: Iterable[str]) -> InvalidTypeError | UnknownNameError:
    """The error for a failed name lookup: UnknownNameError, or InvalidTypeError for a non-str."""
    if not isinstance(name, str):
        return InvalidTypeError(f'{kind} name must be a str, got {name!r} ({type(name).__name__})')
    return UnknownNameError(name, kind, known)


@dataclass(frozen=True)
class VariableSelection:
    """Names resolved once to variable indices (design study B1.5).

    Attributes:
        variable_indices: Indices into ``q`` of the known names.
        input_indices: Positions of those names in the input sequence.
        unknown_names: Input names the model does not know (empty in strict mode).
    """

    variable_indices: IntArray
    input_indices: IntArray
    unknown_names: tuple[str, ...]


@dataclass(frozen=True)
class EndEffector:
    """An SRDF end effector: ``group`` attached to ``parent_link`` (of ``parent_group``)."""

    name: str
    parent_link: str
    group: str
    parent_group: str = ''


class RobotModel:
    """Immutable compiled kinematic model. Build with :meth:`from_scene_graph` or the loaders.

    Attributes (all arrays read-only):
        name: Robot name.
        model_frame: Frame every pose is expressed in: the root link, or the parent frame of
            the SRDF virtual joint.
        link_names, joint_names, variable_names: Names in model order.
        joint_types: (J,) ``JointType`` per joint; ``joint_type_codes`` the same as ints.
        joint_parent_link, joint_child_link: (J,) link indices.
        link_parent_joint: (L,) joint index moving each link (-1 for the root).
        link_depth: (L,) depth of each link in the tree (root 0).
        levels: Joint index arrays grouped by the depth of their child link (FK sweeps).
        joint_origins: (J, 4, 4) ``X_PJ`` per joint. joint_axes: (J, 3) unit axes; ``z`` for
            every planar joint (MoveIt's ``PlanarJointModel`` ignores the URDF axis).
        joint_q_start, joint_nq, joint_v_start, joint_nv: (J,) variable layout.
        nq, nv: Totals.
        variable_lower, variable_upper: (nq,) position bounds (±inf when unbounded). For
            revolute and prismatic joints with a ``<safety_controller>``, MoveIt's bounds: the
            soft limits intersected with ``<limit>``; continuous joints keep ``[-π, π]``.
            ``joint(name).limits`` keeps the URDF ``<limit>`` values.
        variable_bounded: (nq,) whether the bounds are real position limits (False for
            continuous joints, planar theta, unbounded translations).
        variable_velocity_limits, variable_acceleration_limits, variable_effort_limits,
            variable_jerk_limits: (nq,) magnitudes (inf when unspecified).
        variable_joint: (nq,) joint index owning each variable.
        default_positions: (nq,) 0, or the middle of the bounds when 0 is outside them;
            quaternions (0, 0, 0, 1).
        mimic_variable, mimic_source, mimic_multiplier, mimic_offset: (m,) the mimic map.
        active_variable_mask: (nq,) variables that are not mimic-driven.
        joint_distance_factors: (J,) MoveIt's per-joint ``distance_factor``: the joint's state
            space dimension (:data:`STATE_SPACE_DIMENSION`: 1 for revolute, continuous and
            prismatic, 3 for planar, 6 for floating and rpy_floating, 0 for fixed). The
            whole-state and group distances weight each joint by it (``RobotModel::distance``).
        joint_angular_distance_weights: (J,) weight of the rotation term of planar, floating
            and rpy_floating joint distances: the SRDF ``angular_distance_weight`` joint
            property, default 1.
        joint_motion_models: (J,) ``'holonomic'`` or ``'diff_drive'`` for planar joints (SRDF
            ``motion_model``, default ``'holonomic'``), ``''`` for the other types.
        joint_min_translational_distances: (J,) planar ``min_translational_distance`` [m]
            (SRDF, default :data:`DEFAULT_MIN_TRANSLATIONAL_DISTANCE`; used by diff drive).

    Immutability: once constructed, attributes can be neither rebound nor deleted
    (:class:`~robot_state_core.errors.ImmutableModelError`), and every array is read-only. The
    tables derived from the model by higher layers (the kinematics plan, the bounds plan, the
    state plan) are built once on first use by :meth:`derived` and owned by the model in its
    declared ``_derived`` table; nothing else is ever stored on a model.
    """

    # ------------------------------------------------------------------ construction

    def __init__(self, graph: Any, srdf: Any | None = None,
                 kinematics: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """Compile ``graph`` (a SceneGraph, copied) with an optional ``SrdfModel``.

        Prefer :meth:`from_scene_graph`. ``kinematics`` maps group names to
        ``{'kinematics_solver_timeout': seconds, ...}`` (MoveIt's kinematics.yaml).

        Raises:
            ModelError: The graph is empty, not a tree, has an UNKNOWN joint, or a mimic cycle.
            SrdfLoadError: The SRDF has more than :data:`~robot_state_core.io.srdf.MAX_GROUPS`
                valid groups.

        SRDF problems that MoveIt tolerates (unknown names in groups, states, end effectors,
        passive joints and disabled pairs; groups left without joints; a virtual joint that
        does not attach to the root link) drop the element with a warning, as MoveIt's
        ``RobotModel`` builder does; the warnings are in :attr:`srdf_warnings` (which starts
        with the parser's ``SrdfModel.warnings``). A group-state value of a floating joint
        whose quaternion has no rotation (norm outside [1e-12, 1e12]) is dropped the same way
        (MoveIt would store it; ``docs/decisions.md`` L14).

        :attr:`load_messages` holds every warning and note of the load (URDF, SRDF parse and
        these) with its kind; the log gets one line per kind
        (:mod:`robot_state_core.io.load_report`).
        """
        if not callable(getattr(graph, 'get_links', None)) or not callable(
                getattr(graph, 'clone', None)):
            raise InvalidTypeError(f'RobotModel: expected a SceneGraph, got '
                                   f'{type(graph).__name__}')
        links, joints = len(graph.get_links()), len(graph.get_joints())
        if links > MAX_LINKS or joints >= MAX_LINKS:
            raise ModelError(f'RobotModel: {graph.get_name()!r} has {links} links and {joints} '
                             f'joints; at most {MAX_LINKS} links are supported (MAX_LINKS)')
        graph = graph.clone()
        self.name: str = graph.get_name()
        self._messages: list[LoadMessage] = []
        # Collected in lists (a tuple grown one warning at a time is quadratic), sealed below.
        self._warnings: dict[bool, list[str]] = {False: [],
                                                 True: list(getattr(srdf, 'warnings', ()))}
        virtual = self._add_virtual_joint(graph, srdf) if srdf is not None else None
        if graph.is_empty():
            raise ModelError('RobotModel: the scene graph is empty')
        single_link = len(graph.get_links()) == 1 and not graph.get_joints()
        if not (graph.is_tree() or single_link):  # tesseract: a lone link is not a tree
            raise ModelError(f'RobotModel: scene graph {graph.get_name()!r} is not a tree '
                             '(every link but the root needs exactly one parent joint)')
        self._graph = graph
        self.srdf = srdf
        self.version: int = int(getattr(graph, 'version', 0))
        self._compile_tree(graph)
        self._compile_variables()
        self._compile_mimic()
        self.model_frame: str = self.link_names[0]
        if virtual is not None:  # MoveIt: a fixed virtual joint keeps the root link as frame
            self.model_frame = virtual.child_link if virtual.type == 'fixed' \
                else virtual.parent_frame
        self._compile_semantics(srdf, kinematics or {}, virtual)
        self._compile_joint_properties(srdf)
        self.load_warnings: tuple[str, ...] = tuple(self._warnings[False])
        self.srdf_warnings: tuple[str, ...] = tuple(self._warnings[True])
        del self._warnings
        log_load_messages(_LOG, f'RobotModel {self.name!r}', self._messages)
        self.load_messages: tuple[LoadMessage, ...] = (*getattr(srdf, 'messages', ()),
                                                       *self._messages)
        del self._messages
        self._derived: dict[Callable[[RobotModel], Any], Any] = {}
        self._sealed = True  # the last attribute: from here on the model is immutable

    @classmethod
    def from_scene_graph(cls, graph: Any, srdf: Any | None = None,
                         kinematics: Mapping[str, Mapping[str, Any]] | None = None
                         ) -> RobotModel:
        """Compile a scene graph (and SRDF) into a model (SG → model; the graph is copied)."""
        return cls(graph, srdf, kinematics)

    @classmethod
    def from_urdf_file(cls, urdf: str | Path, srdf: str | Path | None = None,
                       kinematics: Mapping[str, Mapping[str, Any]] | None = None,
                       **load_kwargs: Any) -> RobotModel:
        """Load a URDF file (and an SRDF file) and compile them.

        Args:
            urdf: URDF path.
            srdf: SRDF path, or ``None``.
            kinematics: MoveIt kinematics.yaml content (per-group IK defaults).
            **load_kwargs: Passed to :func:`~robot_state_core.io.urdf.load_urdf_file`
                (``package_map``, ``package_roots``, ``strict_meshes``, ...).
        """
        for what, path in (('urdf', urdf), ('srdf', srdf)):
            if not isinstance(path, str | os.PathLike) and (what == 'urdf' or path is not None):
                raise InvalidTypeError(f'RobotModel.from_urdf_file: {what} must be a path, got '
                                       f'{path!r}')
        result = load_urdf_file(urdf, **load_kwargs)
        model = cls(result.scene_graph, read_srdf_file(srdf) if srdf is not None else None,
                    kinematics)
        model._record_load_result(result.warnings, result.messages, result.unresolved_meshes)
        return model

    @classmethod
    def from_urdf_string(cls, urdf: str | bytes, srdf: str | bytes | None = None,
                         kinematics: Mapping[str, Mapping[str, Any]] | None = None,
                         **load_kwargs: Any) -> RobotModel:
        """Load URDF (and SRDF) documents, e.g. ``robot_description`` parameters, and compile."""
        _check_link_elements(urdf)
        result = load_urdf_string(urdf, **load_kwargs)
        model = cls(result.scene_graph, parse_srdf(srdf, source='robot_description_semantic')
                    if srdf else None, kinematics)
        model._record_load_result(result.warnings, result.messages, result.unresolved_meshes)
        return model

    load_warnings: tuple[str, ...] = ()
    unresolved_meshes: tuple[str, ...] = ()
    srdf_warnings: tuple[str, ...] = ()
    load_messages: tuple[LoadMessage, ...] = ()
    _sealed: bool = False

    # ------------------------------------------------------------------ immutability

    def __setattr__(self, name: str, value: object) -> None:
        if self._sealed:
            raise ImmutableModelError(
                f'RobotModel {self.name!r}: attribute {name!r} cannot be set; a model is '
                'immutable once compiled (build a new one from to_scene_graph())')
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._sealed:
            raise ImmutableModelError(f'RobotModel {self.name!r}: attribute {name!r} cannot be '
                                      'deleted; a model is immutable once compiled')
        object.__delattr__(self, name)

    def _record_load_result(self, warnings: tuple[str, ...], messages: tuple[LoadMessage, ...],
                            unresolved_meshes: tuple[str, ...]) -> None:
        """Store the loader's report, once, right after compiling (``from_urdf_*``).

        Args:
            warnings: The loader's warnings (they go before the model's own).
            messages: The loader's messages (likewise).
            unresolved_meshes: Mesh URIs the loader could not resolve.
        """
        object.__setattr__(self, 'load_warnings', warnings + self.load_warnings)
        object.__setattr__(self, 'load_messages', messages + self.load_messages)
        object.__setattr__(self, 'unresolved_meshes', unresolved_meshes)

    def derived(self, build: Callable[[RobotModel], _PlanT]) -> _PlanT:
        """The table ``build(self)``, built on first use and kept by the model.

        Higher layers compile their per-model plans through this (``kinematics.plan``,
        the bounds and state plans): each ``build`` function runs at most once per model
        (concurrent first calls may both build; one result is kept for everyone), and its
        result must be immutable, or a cache of values that depend only on the model and are
        bounded by its size (the Jacobian's link columns). Nothing whose size depends on the
        requests lives here (the IK solver's problems live in an ``IKCache``). The model owns
        the table; nothing is stored on it from outside.

        Args:
            build: A module-level function of the model returning the plan.

        Returns:
            The plan ``build`` returned for this model.
        """
        try:  # the hot path of every kinematics call: one dict lookup
            plan: _PlanT = self._derived[build]
        except KeyError:
            plan = self._derived.setdefault(build, build(self))
        return plan

    def _warn(self, message: str, srdf: bool, kind: str, item: str = '',
              group: str = '') -> None:
        """Record a problem MoveIt tolerates with a log message (logged per kind at the end)."""
        self._messages.append(LoadMessage(kind, message, item, group))
        self._warnings[srdf].append(message)

    def _add_virtual_joint(self, graph: Any, srdf: Any) -> Any | None:
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

        Returns:
            The virtual joint used, or ``None``.
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
                self._warn(f'virtual joint {vj.name!r} is ignored: the model already has the '
                           f'virtual joint {chosen.name!r}', True, 'ignored_virtual_joint',
                           repr(vj.name))
                continue
            if graph.get_link(vj.child_link) is None:
                self._warn(f'virtual joint {vj.name!r} is ignored: its child link '
                           f'{vj.child_link!r} is not a link of the URDF', True,
                           'ignored_virtual_joint', repr(vj.name))
                continue
            if vj.child_link != root:
                link = graph.get_link(root)
                if not (root == 'world' and vj.type == 'fixed' and not link.visuals
                        and not link.collisions):  # MoveIt's quiet Gazebo 'world' case
                    self._warn(f'Skipping virtual joint {vj.name!r} because its child frame '
                               f'{vj.child_link!r} does not match the URDF frame {root!r} '
                               '(MoveIt); the model frame stays the URDF root',
                               True, 'ignored_virtual_joint', repr(vj.name))
                continue
            if existing is not None:
                self._warn(f'Skipping virtual joint {vj.name!r}: the URDF already has a joint '
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

    def _compile_tree(self, graph: Any) -> None:
        root = graph.get_root()
        joints: list[Joint] = []
        link_names = [root]
        stack = [(root, 0)]
        depth = {root: 0}
        # Depth-first, children in insertion order (reversed onto the stack).
        while stack:
            link, d = stack.pop()
            outbound = list(graph.get_outbound_joints(link))
            for joint in reversed(outbound):
                stack.append((joint.child_link_name, d + 1))
            for joint in outbound:
                depth[joint.child_link_name] = d + 1
            if link != root:
                joints.append(graph.get_inbound_joints(link)[0])
                link_names.append(link)
        for joint in joints:
            if joint.type is JointType.UNKNOWN:
                raise ModelError(f'RobotModel: joint {joint.name!r} has type UNKNOWN, which has '
                                 'no kinematics')
        compiled = [j.clone() for j in joints]
        for joint in compiled:
            if joint.type is JointType.PLANAR:
                # MoveIt's PlanarJointModel: x-y plane and yaw about z, whatever the URDF axis.
                joint.axis = np.array([0.0, 0.0, 1.0])
        self.joints: tuple[Joint, ...] = tuple(compiled)
        self.links: tuple[Link, ...] = tuple(graph.get_link(n).clone() for n in link_names)
        self.link_names: tuple[str, ...] = tuple(link_names)
        self.joint_names: tuple[str, ...] = tuple(j.name for j in joints)
        self._link_index = {n: i for i, n in enumerate(self.link_names)}
        self._joint_index = {n: i for i, n in enumerate(self.joint_names)}
        self.joint_types: tuple[JointType, ...] = tuple(j.type for j in joints)
        self.joint_type_codes = _ro([JOINT_TYPE_ORDER.index(t) for t in self.joint_types],
                                    np.intp)
        self.joint_parent_link = _ro([self._link_index[j.parent_link_name] for j in joints],
                                     np.intp)
        self.joint_child_link = _ro([self._link_index[j.child_link_name] for j in joints],
                                    np.intp)
        parent_joint = np.full(len(link_names), -1, dtype=np.intp)
        parent_joint[self.joint_child_link] = np.arange(len(joints))
        self.link_parent_joint = _ro(parent_joint, np.intp)
        self.link_depth = _ro([depth[n] for n in link_names], np.intp)
        child_depth = self.link_depth[self.joint_child_link] if joints else np.zeros(0, np.intp)
        by_depth = np.argsort(child_depth, kind='stable')  # joint order within a depth
        bounds = np.searchsorted(child_depth[by_depth],
                                 np.arange(1, int(child_depth.max(initial=0)) + 2))
        self.levels: tuple[IntArray, ...] = tuple(
            _ro(by_depth[bounds[d]:bounds[d + 1]], np.intp) for d in range(bounds.size - 1))
        self.joint_origins = _ro(np.stack([j.parent_to_joint_origin_transform for j in joints])
                                 if joints else np.zeros((0, 4, 4)))
        self.joint_axes = _ro(np.stack([j.axis for j in compiled]) if joints
                              else np.zeros((0, 3)))

    def _compile_variables(self) -> None:
        nqs = [JOINT_TYPE_INFO[t].nq for t in self.joint_types]
        nvs = [JOINT_TYPE_INFO[t].nv for t in self.joint_types]
        self.joint_nq = _ro(nqs, np.intp)
        self.joint_nv = _ro(nvs, np.intp)
        self.joint_q_start = _ro(np.concatenate([[0], np.cumsum(nqs)[:-1]]) if nqs else [],
                                 np.intp)
        self.joint_v_start = _ro(np.concatenate([[0], np.cumsum(nvs)[:-1]]) if nvs else [],
                                 np.intp)
        self.nq = int(sum(nqs))
        self.nv = int(sum(nvs))
        names: list[str] = []
        owner: list[int] = []
        lower: list[float] = []
        upper: list[float] = []
        bounded: list[bool] = []
        vel: list[float] = []
        acc: list[float] = []
        eff: list[float] = []
        jerk: list[float] = []
        inf = math.inf
        for j, joint in enumerate(self.joints):
            info = joint.info
            names.extend(joint.variable_names())
            owner.extend([j] * info.nq)
            lim = joint.limits

            def mag(value: float | None) -> float:
                return abs(value) if value else inf

            v, a, e, jk = ((mag(lim.velocity), mag(lim.acceleration), mag(lim.effort),
                            mag(lim.jerk)) if lim is not None else (inf, inf, inf, inf))
            if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
                assert lim is not None  # guaranteed by SceneGraph.add_joint (SG-14)
                lo, hi, b = [lim.lower], [lim.upper], [True]
                if joint.safety is not None:
                    # MoveIt (jointBoundsFromURDF): the <safety_controller> soft limits
                    # intersected with <limit>.
                    lo = [max(joint.safety.soft_lower_limit, lim.lower)]
                    hi = [min(joint.safety.soft_upper_limit, lim.upper)]
            elif joint.type is JointType.CONTINUOUS:
                lo, hi, b = [-math.pi], [math.pi], [False]
            elif joint.type is JointType.PLANAR:
                lo, hi, b = [-inf, -inf, -math.pi], [inf, inf, math.pi], [False] * 3
            elif joint.type is JointType.FLOATING:
                lo = [-inf] * 3 + [-1.0] * 4
                hi = [inf] * 3 + [1.0] * 4
                b = [False] * 3 + [True] * 4
            elif joint.type is JointType.RPY_FLOATING:
                lo, hi, b = [-inf] * 6, [inf] * 6, [False] * 6
            else:
                lo, hi, b = [], [], []
            lower += lo
            upper += hi
            bounded += b
            vel += [v] * info.nq
            acc += [a] * info.nq
            eff += [e] * info.nq
            jerk += [jk] * info.nq
        self.variable_names: tuple[str, ...] = tuple(names)
        self._variable_index = {n: i for i, n in enumerate(names)}
        if len(self._variable_index) != len(names):
            self._raise_duplicate_variable(names, owner, 'variable')
        velocity_names = [j.name if not suffix else f'{j.name}/{suffix}' for j in self.joints
                          for suffix in j.info.velocity_suffixes]
        if len(set(velocity_names)) != len(velocity_names):
            self._raise_duplicate_variable(velocity_names, [
                j for j, joint in enumerate(self.joints) for _ in joint.info.velocity_suffixes],
                'velocity variable')
        limits = np.array([lower, upper]) if names else np.zeros((2, 0))
        if np.isnan(limits).any():
            v = int(np.flatnonzero(np.isnan(limits).any(axis=0))[0])
            raise ModelError(f'RobotModel: joint {self.joint_names[owner[v]]!r} has position '
                             f'limits [{lower[v]:g}, {upper[v]:g}]; a NaN limit is not usable')
        huge = np.asarray(bounded, dtype=bool) & (np.abs(limits) > MAX_POSITION_LIMIT)
        for v in np.flatnonzero(huge.any(axis=0)).tolist():
            # urdfdom and robot_state_publisher keep any finite limit; MoveIt would sample inf
            # between them. The model clamps them (decision L20); the scene graph keeps them.
            name = self.joint_names[owner[v]]
            clamped = (max(lower[v], -MAX_POSITION_LIMIT), min(upper[v], MAX_POSITION_LIMIT))
            self._warn(f'joint {name!r} has position limits [{lower[v]:g}, {upper[v]:g}] beyond '
                       f'±{MAX_POSITION_LIMIT:g} (rad or m), where sampling, IK errors and '
                       f'Jacobians overflow; the model uses [{clamped[0]:g}, {clamped[1]:g}] '
                       '(MAX_POSITION_LIMIT)', False, 'clamped_limit', repr(name))
            lower[v], upper[v] = clamped
        self.variable_joint = _ro(owner, np.intp)
        self.variable_lower = _ro(lower)
        self.variable_upper = _ro(upper)
        self.variable_bounded = _ro(bounded, np.bool_)
        self.variable_velocity_limits = _ro(vel)
        self.variable_acceleration_limits = _ro(acc)
        self.variable_effort_limits = _ro(eff)
        self.variable_jerk_limits = _ro(jerk)
        default = np.zeros(self.nq)
        low, high = np.asarray(lower), np.asarray(upper)
        outside = (low > 0) | (high < 0)
        default[outside] = 0.5 * (low[outside] + high[outside])
        for j, joint in enumerate(self.joints):
            if joint.type is JointType.FLOATING:
                default[self.joint_q_start[j] + 6] = 1.0  # quaternion (0, 0, 0, 1) xyzw
        self._default_unmimicked = default  # made read-only once mimic is applied

    def _raise_duplicate_variable(self, names: Sequence[str], owner: Sequence[int],
                                  kind: str) -> None:
        """ModelError naming the two joints that produce the same (velocity) variable name."""
        first: dict[str, int] = {}
        for name, j in zip(names, owner, strict=True):
            if name in first:
                raise ModelError(
                    f'RobotModel: joints {self.joint_names[first[name]]!r} and '
                    f'{self.joint_names[j]!r} both define a {kind} named {name!r}; {kind} '
                    'names must be unique (rename one of the joints)')
            first[name] = j

    def _compile_mimic(self) -> None:
        by_name = {j.name: j for j in self.joints}
        for joint in self.joints:  # MoveIt's buildMimic: unusable mimics leave joints independent
            if joint.mimic is None:
                continue
            target = by_name.get(joint.mimic.joint_name)
            nq = JOINT_TYPE_INFO[joint.type].nq
            if nq == 0 or target is None or JOINT_TYPE_INFO[target.type].nq != nq:
                if nq > 0:  # a <mimic> on a fixed joint has nothing to drive: dropped quietly
                    self._warn(f'joint {joint.name!r} cannot mimic '
                               + (f'unknown joint {joint.mimic.joint_name!r}' if target is None
                                  else f'joint {target.name!r} (a different number of '
                                       'variables)') + '; it is an independent joint', False,
                               'mimic_ignored', repr(joint.name))
                joint.mimic = None
            elif nq != 1:
                raise ModelError(f'RobotModel: joint {joint.name!r} mimics {target.name!r}: '
                                 f'mimicking a {target.type.value} joint is not supported')
        variables, sources, mults, offsets = [], [], [], []
        for j, joint in enumerate(self.joints):
            if joint.mimic is None:
                continue
            mult, off = 1.0, 0.0
            current = joint
            seen = {joint.name}
            while current.mimic is not None:
                target = by_name[current.mimic.joint_name]
                if target.name in seen:
                    raise ModelError(f'RobotModel: mimic cycle through joints {sorted(seen)}')
                # q_cur = m * q_target + o  and  q = mult * q_cur + off
                off = mult * current.mimic.offset + off
                mult = mult * current.mimic.multiplier
                seen.add(target.name)
                current = target
            source = int(self.joint_q_start[self._joint_index[current.name]])
            reach = abs(mult) * float(max(abs(self.variable_lower[source]),
                                          abs(self.variable_upper[source]))) + abs(off)
            if not reach <= MAX_POSITION_LIMIT:
                raise ModelError(f'RobotModel: mimic joint {joint.name!r} follows '
                                 f'{current.name!r} with multiplier {mult:g} and offset '
                                 f'{off:g}, reaching values of {reach:g}; beyond '
                                 f'{MAX_POSITION_LIMIT:g} (rad or m) they are not usable '
                                 '(positions and Jacobians overflow); MAX_POSITION_LIMIT')
            variables.append(int(self.joint_q_start[j]))
            sources.append(int(self.joint_q_start[self._joint_index[current.name]]))
            mults.append(mult)
            offsets.append(off)
        self.mimic_variable = _ro(variables, np.intp)
        self.mimic_source = _ro(sources, np.intp)
        self.mimic_multiplier = _ro(mults)
        self.mimic_offset = _ro(offsets)
        self._mimic_rows = tuple((int(v), int(s), float(m), float(o)) for v, s, m, o in zip(
            variables, sources, mults, offsets, strict=True))
        mask = np.ones(self.nq, dtype=np.bool_)
        mask[self.mimic_variable] = False
        self.active_variable_mask = _ro(mask, np.bool_)
        self.default_positions = _ro(self.apply_mimic(self._default_unmimicked))
        del self._default_unmimicked
        self.mimic_joint_names: tuple[str, ...] = tuple(
            self.joint_names[int(self.variable_joint[v])] for v in self.mimic_variable)

    # ------------------------------------------------------------------ SRDF semantics

    def _compile_semantics(self, srdf: Any | None, kinematics: Mapping[str, Any],
                           virtual: Any | None) -> None:
        """Groups, states, end effectors, passive joints and ACM pairs, the MoveIt way.

        srdfdom drops names the URDF does not define; MoveIt's ``buildGroups`` then drops
        groups without any valid joint and groups whose subgroups were not built,
        ``buildGroupStates`` skips values of joints outside the group or with the wrong
        number of values, and ``buildGroupsInfoEndEffectors`` resolves each end effector's
        parent group. Every drop is a warning (:attr:`srdf_warnings`).
        """
        self.passive_joint_names: tuple[str, ...] = ()
        self.end_effectors: tuple[EndEffector, ...] = ()
        self.disabled_collision_pairs: tuple[tuple[str, str, str], ...] = ()
        self.virtual_joint_names: tuple[str, ...] = ()
        self._groups: dict[str, JointModelGroup] = {}
        if srdf is None:
            return
        if virtual is not None and virtual.name in self._joint_index:
            self.virtual_joint_names = (virtual.name,)
        passive: list[str] = []
        for name in srdf.passive_joints:
            if name in self._joint_index:
                passive.append(name)
            else:
                self._warn(f'passive joint {name!r} is not a joint of the model; ignored', True,
                           'dropped_passive_joint', repr(name))
        self.passive_joint_names = tuple(passive)
        pairs = []
        for dc in srdf.disabled_collisions:
            missing = [n for n in (dc.link1, dc.link2) if n not in self._link_index]
            if missing:
                self._warn(f'disable_collisions {dc.link1!r}/{dc.link2!r}: link {missing[0]!r} '
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
                  and all(link in self._link_index for link in g.chains[-1])}
        links = {name: {int(self.joint_child_link[j]) for j in indices}
                 for name, indices in joint_sets.items()}
        states = self._build_group_states(srdf.group_states, joint_sets)
        attached: dict[str, list[str]] = {name: [] for name in joint_sets}
        eefs: list[EndEffector] = []
        order = {g.name: i for i, g in enumerate(srdf.groups)}
        for e in sorted(srdf.end_effectors, key=lambda e: (e.group, order.get(e.group, 0))):
            if e.group not in joint_sets:
                self._warn(f'end effector {e.name!r}: its group {e.group!r} was not built; '
                           'the end effector is ignored', True, 'dropped_end_effector',
                           repr(e.name))
                continue
            if e.parent_link not in self._link_index:
                self._warn(f'end effector {e.name!r}: parent link {e.parent_link!r} is not a '
                           'link of the model; the end effector is ignored', True,
                           'dropped_end_effector', repr(e.name))
                continue
            link = self._link_index[e.parent_link]
            possible = [g for g in sorted(joint_sets) if g != e.group and link in links[g]]
            for g in possible:
                attached[g].append(e.name)
            parent = ''
            if e.parent_group:
                if e.parent_group not in joint_sets:
                    self._warn(f'end effector {e.name!r}: parent group {e.parent_group!r} '
                               'not found', True, 'end_effector_parent_group', repr(e.name))
                elif link not in links[e.parent_group]:
                    self._warn(f'end effector {e.name!r}: parent group {e.parent_group!r} does '
                               f'not include the parent link {e.parent_link!r}', True,
                               'end_effector_parent_group', repr(e.name))
                elif e.parent_group == e.group:
                    self._warn(f'end effector {e.name!r}: group {e.group!r} cannot be its own '
                               'parent', True, 'end_effector_parent_group', repr(e.name))
                else:
                    parent = e.parent_group
            if not parent and possible:  # MoveIt: the containing group with fewest joints
                parent = min(possible, key=lambda g: len(joint_sets[g]))
            if not parent:
                self._warn(f'could not identify a parent group for end effector {e.name!r}',
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
            self._groups[name] = self._make_group(
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
                    unknown = [n for n in (base, tip) if n not in self._link_index]
                    if unknown:
                        self._warn(f'group {g.name!r}: chain link {unknown[0]!r} is not a link '
                                   'of the model; the chain is ignored', True,
                                   'dropped_group_member', f'chain link {unknown[0]!r}',
                                   f'group {g.name!r}')
                    else:
                        found.update(self._chain_joints(base, tip))
                for jn in g.joints:
                    if jn in self._joint_index:
                        found.add(self._joint_index[jn])
                    else:
                        self._warn(f'group {g.name!r}: joint {jn!r} is not a joint of the '
                                   'model; ignored', True, 'dropped_group_member',
                                   f'joint {jn!r}', f'group {g.name!r}')
                for ln in g.links:
                    if ln not in self._link_index:
                        self._warn(f'group {g.name!r}: link {ln!r} is not a link of the model; '
                                   'ignored', True, 'dropped_group_member', f'link {ln!r}',
                                   f'group {g.name!r}')
                    elif (pj := int(self.link_parent_joint[self._link_index[ln]])) >= 0:
                        found.add(pj)
                for sub in g.subgroups:
                    found.update(built[sub])
                if found:
                    built[g.name] = sorted(found)
                else:
                    self._warn(f'group {g.name!r} has no valid joint; the group is not built',
                               True, 'dropped_group', f'{g.name!r} (no valid joint)')
        for g in groups:
            if g.name not in processed:
                self._warn(f'group {g.name!r} is not built: one of its subgroups '
                           f'({", ".join(repr(s) for s in g.subgroups if s not in built)}) '
                           'was not built', True, 'dropped_group',
                           f'{g.name!r} (subgroup not built)')
        return built

    def _build_group_states(self, group_states: Sequence[Any],
                            joint_sets: Mapping[str, Sequence[int]]
                            ) -> dict[str, dict[str, dict[str, float]]]:
        """``{group: {state: {variable: value}}}`` (MoveIt ``buildGroupStates``)."""
        states: dict[str, dict[str, dict[str, float]]] = {}
        for s in group_states:
            if s.group not in joint_sets:
                self._warn(f'group_state {s.name!r}: group {s.group!r} was not built; the '
                           'state is ignored', True, 'dropped_group_state',
                           f'{s.name!r} of {s.group!r}')
                continue
            members = {self.joint_names[j] for j in joint_sets[s.group]}
            remaining = [self.joint_names[j] for j in joint_sets[s.group]
                         if self.joints[j].info.nq > 0 and self.joints[j].mimic is None]
            values: dict[str, float] = {}
            for jn, vals in s.values.items():
                if jn not in members:
                    self._warn(f'group_state {s.name!r} gives a value for joint {jn!r}, which '
                               f'is not part of group {s.group!r}; ignored', True,
                               'dropped_state_value', f'{jn!r} (not in the group)',
                               f'state {s.name!r}')
                    continue
                if jn in remaining:
                    remaining.remove(jn)
                vnames = self.joints[self._joint_index[jn]].variable_names()
                if len(vals) != len(vnames):
                    self._warn(f'group_state {s.name!r} of group {s.group!r}: joint {jn!r} '
                               f'needs {len(vnames)} value(s), got {len(vals)}; ignored', True,
                               'dropped_state_value', f'{jn!r} ({len(vals)} values)',
                               f'state {s.name!r}')
                    continue
                joint = self.joints[self._joint_index[jn]]
                far = [vals[i] for i in _TRANSLATION_VARIABLES.get(joint.type, ())
                       if abs(vals[i]) > MAX_COORDINATE]
                if far:
                    self._warn(f'group_state {s.name!r} of group {s.group!r}: joint {jn!r} has '
                               f'the translation {far[0]:g} m, beyond {MAX_COORDINATE:g} m '
                               '(forward kinematics would overflow); ignored', True,
                               'dropped_state_value', f'{jn!r} (translation {far[0]:g} m)',
                               f'state {s.name!r}')
                    continue
                if joint.type is JointType.FLOATING:
                    try:  # the RobotState setters' rule, applied here so nothing is stored
                        check_quat_xyzw(vals[3:7], f'group_state {s.name!r}')
                    except InvalidArgumentError:
                        self._warn(f'group_state {s.name!r} of group {s.group!r}: joint {jn!r} '
                                   f'has the degenerate orientation (rot_x rot_y rot_z rot_w) '
                                   f'{" ".join(f"{v:g}" for v in vals[3:7])} (norm outside '
                                   f'[{QUATERNION_MIN_NORM:g}, {QUATERNION_MAX_NORM:g}]), which '
                                   'is no rotation; ignored', True, 'dropped_state_value',
                                   f'{jn!r} (no rotation)', f'state {s.name!r}')
                        continue
                values.update(zip(vnames, (float(v) for v in vals), strict=True))
            if remaining:
                self._warn(f'group_state {s.name!r} does not give every joint of group '
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
        base_index = self._link_index[base]
        path: list[int] = []
        link = self._link_index[tip]
        while link != base_index:
            j = int(self.link_parent_joint[link])
            if j < 0:
                break
            path.append(j)
            link = int(self.joint_parent_link[j])
        if link == base_index:
            return path
        other: list[int] = []
        link = base_index
        while True:
            j = int(self.link_parent_joint[link])
            if j < 0:  # met at the root link: the whole tip path (MoveIt's root joint)
                return path + other
            if j in path:
                return path[:path.index(j) + 1] + other
            other.append(j)
            link = int(self.joint_parent_link[j])

    def _make_group(self, name: str, joint_indices: Sequence[int],
                    chain: tuple[str, str] | None, subgroups: tuple[str, ...],
                    eefs: tuple[str, ...], states: Mapping[str, Mapping[str, float]],
                    timeout: float, updated_links: tuple[str, ...]) -> JointModelGroup:
        idx = sorted(joint_indices)
        joints = [self.joints[i] for i in idx]
        active = [i for i in idx if self.joint_types[i] is not JointType.FIXED
                  and self.joints[i].mimic is None]
        var_idx = [v for i in idx for v in range(int(self.joint_q_start[i]),
                                                 int(self.joint_q_start[i] + self.joint_nq[i]))]
        act_var = [v for i in active for v in range(int(self.joint_q_start[i]),
                                                    int(self.joint_q_start[i]
                                                        + self.joint_nq[i]))]
        base = tip = ''
        is_chain = chain is not None
        if chain is not None:
            base, tip = chain
        elif idx:
            parents = [int(self.joint_parent_link[i]) for i in idx]
            children = [int(self.joint_child_link[i]) for i in idx]
            if all(parents[k + 1] == children[k] for k in range(len(idx) - 1)):
                is_chain = True
                base, tip = self.link_names[parents[0]], self.link_names[children[-1]]
        # MoveIt: the child links of the group's joints (fixed ones included), model order.
        links = [self.link_names[int(self.joint_child_link[i])] for i in idx]

        return JointModelGroup(
            name=name, joint_names=tuple(j.name for j in joints), joint_indices=_ro(idx, np.intp),
            active_joint_names=tuple(self.joint_names[i] for i in active),
            active_joint_indices=_ro(active, np.intp),
            mimic_joint_names=tuple(j.name for j in joints if j.mimic is not None),
            variable_names=tuple(self.variable_names[v] for v in var_idx),
            variable_indices=_ro(var_idx, np.intp),
            active_variable_names=tuple(self.variable_names[v] for v in act_var),
            active_variable_indices=_ro(act_var, np.intp), link_names=tuple(links),
            updated_link_model_names=updated_links,
            is_chain=is_chain, base_link=base, tip_link=tip, subgroup_names=subgroups,
            end_effector_names=eefs, named_states={k: dict(v) for k, v in states.items()},
            default_ik_timeout=timeout)

    def _compile_joint_properties(self, srdf: Any | None) -> None:
        """Distance factors and the SRDF ``joint_property`` settings MoveIt applies.

        MoveIt's ``RobotModel::constructJointModel``: every joint's distance factor is its state
        space dimension; ``angular_distance_weight`` applies to planar and floating joints (here
        also rpy_floating), ``motion_model`` and ``min_translational_distance`` to planar
        joints. Like MoveIt, a property that names an unknown joint, does not apply to the
        joint's type, has an unknown name or an unreadable value is skipped with a warning (in
        :attr:`srdf_warnings`, and logged); the last value of a property wins. A number
        followed by other characters is read up to them, as ``std::stod`` does (with a
        warning). Non-finite or negative numbers are skipped (MoveIt would use them and produce
        NaN or negative distances).
        """
        J = self.joint_count
        self.joint_distance_factors = _ro([float(STATE_SPACE_DIMENSION[t])
                                           for t in self.joint_types])
        weights = np.ones(J)
        min_distance = np.full(J, DEFAULT_MIN_TRANSLATIONAL_DISTANCE)
        models = ['holonomic' if t is JointType.PLANAR else '' for t in self.joint_types]
        weighted = (JointType.PLANAR, JointType.FLOATING, JointType.RPY_FLOATING)
        for prop in getattr(srdf, 'joint_properties', ()):
            where = (f'joint_property {prop.property_name!r} of joint {prop.joint_name!r}')
            item = f'{prop.property_name} of {prop.joint_name!r}'
            j = self._joint_index.get(prop.joint_name)
            if j is None:
                self._warn(f'{where}: unknown joint, skipped', True, 'joint_property',
                           item)
                continue
            jtype = self.joint_types[j]
            if prop.property_name == 'motion_model':
                if jtype is not JointType.PLANAR:
                    self._warn(f'{where}: applies to planar joints only, not '
                               f'{jtype.value}; skipped', True, 'joint_property', item)
                elif prop.value not in PLANAR_MOTION_MODELS:
                    self._warn(f'{where}: unknown value {prop.value!r} (expected '
                               f'{" or ".join(PLANAR_MOTION_MODELS)}); skipped', True,
                               'joint_property', item)
                else:
                    models[j] = prop.value
                continue
            if prop.property_name not in ('angular_distance_weight',
                                          'min_translational_distance'):
                self._warn(f'{where}: unknown joint property, skipped', True, 'joint_property',
                           item)
                continue
            allowed = weighted if prop.property_name == 'angular_distance_weight' else (
                JointType.PLANAR,)
            if jtype not in allowed:
                self._warn(f'{where}: does not apply to {jtype.value} joints; skipped', True,
                           'joint_property', item)
                continue
            value = self._property_number(prop.value, where)
            if value is not None:
                (weights if prop.property_name == 'angular_distance_weight'
                 else min_distance)[j] = value
        self.joint_angular_distance_weights = _ro(weights)
        self.joint_min_translational_distances = _ro(min_distance)
        self.joint_motion_models: tuple[str, ...] = tuple(models)

    def _property_number(self, text: str, where: str) -> float | None:
        """A non-negative finite number read like ``std::stod``, or None (with a message)."""
        match = _LEADING_NUMBER.match(text)
        if match is None:
            self._warn(f'{where}: value {text!r} is not a number; skipped', True,
                       'joint_property', where)
            return None
        value = float(match.group(1))
        if not math.isfinite(value) or value < 0.0:
            self._warn(f'{where}: value {text!r} must be finite and non-negative; skipped',
                       True, 'joint_property', where)
            return None
        if text[match.end():].strip():
            self._warn(f'{where}: extra characters after the number in {text!r} ignored '
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
        J = self.joint_count
        children: list[list[int]] = [[] for _ in range(self.link_count)]
        for j in range(J):
            children[int(self.joint_parent_link[j])].append(j)
        requests: list[list[int]] = [[] for _ in range(J)]
        for v, src in zip(self.mimic_variable.tolist(), self.mimic_source.tolist(), strict=True):
            requests[int(self.variable_joint[src])].append(int(self.variable_joint[v]))
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
            child = int(self.joint_child_link[j])
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
        order, enter, leave = descendants
        members = set(joint_indices)
        mimic_source = {int(self.variable_joint[v]): int(self.variable_joint[s])
                        for v, s in zip(self.mimic_variable.tolist(),
                                        self.mimic_source.tolist(), strict=True)}

        def active(j: int) -> bool:
            return j in members and int(self.joint_nq[j]) > 0 and j not in mimic_source

        def has_active_ancestor(j: int, visited: frozenset[int] = frozenset()) -> bool:
            while True:
                j = int(self.link_parent_joint[int(self.joint_parent_link[j])])
                if j < 0:
                    return False
                if active(j):
                    return True
                src = mimic_source.get(j)
                if src is not None and src not in visited and (
                        active(src) or has_active_ancestor(src, visited | {src})):
                    return True

        links = {int(self.joint_child_link[order[k]])
                 for j in sorted(members) if active(j) and not has_active_ancestor(j)
                 for k in range(enter[j], leave[j])}
        return tuple(self.link_names[i] for i in sorted(links))

    # ------------------------------------------------------------------ lookups

    @property
    def link_count(self) -> int:
        """Number of links ``L``."""
        return len(self.link_names)

    @property
    def joint_count(self) -> int:
        """Number of joints ``J`` (fixed ones included)."""
        return len(self.joint_names)

    @property
    def variable_count(self) -> int:
        """Number of position variables (= ``nq``)."""
        return self.nq

    @property
    def root_link_name(self) -> str:
        """The root link of the tree."""
        return self.link_names[0]

    def has_link(self, name: str) -> bool:
        """Whether ``name`` is a link of the model (False for anything but a str)."""
        return isinstance(name, str) and name in self._link_index

    def has_joint(self, name: str) -> bool:
        """Whether ``name`` is a joint of the model (False for anything but a str)."""
        return isinstance(name, str) and name in self._joint_index

    def has_variable(self, name: str) -> bool:
        """Whether ``name`` is a position variable of the model (False for anything but a str)."""
        return isinstance(name, str) and name in self._variable_index

    def has_group(self, name: str) -> bool:
        """Whether ``name`` is a joint model group (False for anything but a str)."""
        return isinstance(name, str) and name in self._groups

    def link_index(self, name: str) -> int:
        """Index of link ``name``.

        Raises:
            UnknownNameError: No such link (did-you-mean).
            InvalidTypeError: ``name`` is not a str.
        """
        try:
            return self._link_index[name]
        except (KeyError, TypeError):
            raise lookup_error(name, 'link', self.link_names) from None

    def joint_index(self, name: str) -> int:
        """Index of joint ``name``.

        Raises:
            UnknownNameError: No such joint (did-you-mean).
            InvalidTypeError: ``name`` is not a str.
        """
        try:
            return self._joint_index[name]
        except (KeyError, TypeError):
            raise lookup_error(name, 'joint', self.joint_names) from None

    def variable_index(self, name: str) -> int:
        """Index into ``q`` of variable ``name``.

        Raises:
            UnknownNameError: No such variable (did-you-mean).
            InvalidTypeError: ``name`` is not a str.
        """
        try:
            return self._variable_index[name]
        except (KeyError, TypeError):
            raise lookup_error(name, 'variable', self.variable_names) from None

    def joint(self, name: str) -> Joint:
        """The (copied, frozen-by-convention) joint ``name``."""
        return self.joints[self.joint_index(name)]

    def link(self, name: str) -> Link:
        """The link ``name``."""
        return self.links[self.link_index(name)]

    def resolve_variables(self, names: Iterable[str],
                          unknown: Literal['raise', 'ignore'] = 'raise') -> VariableSelection:
        """Resolve variable names to indices once (cache the result on hot paths).

        Args:
            names: Variable names (e.g. ``JointState.name``).
            unknown: ``'raise'`` (default) raises on the first unknown name; ``'ignore'``
                skips unknown names and reports them in ``unknown_names``.

        Raises:
            UnknownNameError: An unknown name in ``'raise'`` mode.
            InvalidTypeError: ``names`` is a str or not iterable, or holds a non-str name.
            InvalidArgumentError: ``unknown`` is neither ``'raise'`` nor ``'ignore'``.
        """
        if unknown not in ('raise', 'ignore'):
            raise InvalidArgumentError(f"RobotModel.resolve_variables: unknown must be 'raise' "
                                       f"or 'ignore', got {unknown!r}")
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise InvalidTypeError(f'RobotModel.resolve_variables: names must be an iterable of '
                                   f'variable names, got {names!r}')
        var_idx, in_idx, missing = [], [], []
        for k, name in enumerate(names):
            if not isinstance(name, str):
                raise lookup_error(name, 'variable', self.variable_names)
            v = self._variable_index.get(name)
            if v is None:
                if unknown == 'raise':
                    raise UnknownNameError(name, 'variable', self.variable_names)
                missing.append(name)
            else:
                var_idx.append(v)
                in_idx.append(k)
        return VariableSelection(_ro(var_idx, np.intp), _ro(in_idx, np.intp), tuple(missing))

    def variable_indices(self, names: Iterable[str]) -> IntArray:
        """Indices into ``q`` of ``names`` (all must exist)."""
        return self.resolve_variables(names).variable_indices

    @property
    def group_names(self) -> tuple[str, ...]:
        """Names of the joint model groups (SRDF order)."""
        return tuple(self._groups)

    def group(self, name: str) -> JointModelGroup:
        """The joint model group ``name``.

        Raises:
            UnknownNameError: No such group.
            InvalidTypeError: ``name`` is not a str.
        """
        try:
            return self._groups[name]
        except (KeyError, TypeError):
            raise lookup_error(name, 'group', self._groups) from None

    @property
    def groups(self) -> Mapping[str, JointModelGroup]:
        """All joint model groups by name."""
        return dict(self._groups)

    def apply_mimic(self, q: FloatArray) -> FloatArray:
        """Write every mimic variable of ``q`` (..., nq) from its source, in place; returns q.

        Raises:
            InvalidTypeError: ``q`` is not a numpy array.
            InvalidArgumentError: ``q`` does not have shape ``(..., nq)``.
        """
        if not isinstance(q, np.ndarray):
            raise InvalidTypeError(f'RobotModel.apply_mimic: q must be a numpy array, got '
                                   f'{type(q).__name__}')
        if q.shape[-1:] != (self.nq,):
            raise InvalidArgumentError(f'RobotModel.apply_mimic: q must have shape (..., '
                                       f'{self.nq}), got {q.shape}')
        if self.mimic_variable.size:
            if q.ndim == 1:  # one configuration (every RobotState write): scalars, no fancy index
                rows = self._mimic_rows
                values = [m * float(q[s]) + o for _, s, m, o in rows]
                for (v, _, _, _), value in zip(rows, values, strict=True):
                    q[v] = value
            else:
                q[..., self.mimic_variable] = (self.mimic_multiplier * q[..., self.mimic_source]
                                               + self.mimic_offset)
        return q

    def rpy_floating_joint(self, name: str) -> Any:
        """The Drake-style RpyFloatingJoint view of joint ``name`` (seed 001, J-R1..J-R19).

        The view knows its slice of ``q``/``v`` (``position_start``/``velocity_start``). The
        URDF ``<dynamics damping>`` of an rpy_floating joint is used as both its angular and its
        translational damping.

        Raises:
            UnknownNameError: No such joint.
            ModelError: The joint is not an rpy_floating joint.
        """
        j = self.joint_index(name)
        joint = self.joints[j]
        if joint.type is not JointType.RPY_FLOATING:
            raise ModelError(f'RobotModel.rpy_floating_joint: joint {name!r} is '
                             f'{joint.type.value}, not rpy_floating')
        damping = joint.dynamics.damping if joint.dynamics is not None else 0.0
        return RpyFloatingJoint(name, joint.parent_link_name, joint.child_link_name, damping,
                                damping, position_start=int(self.joint_q_start[j]),
                                velocity_start=int(self.joint_v_start[j]))

    def to_scene_graph(self) -> Any:
        """An editable copy of the scene graph this model was compiled from."""
        return self._graph.clone()

    def __repr__(self) -> str:
        return (f'RobotModel({self.name!r}: {self.link_count} links, {self.joint_count} joints, '
                f'nq={self.nq}, nv={self.nv}, groups={list(self._groups)})')

