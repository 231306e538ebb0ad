"""The compiled, immutable robot model (MoveIt ``RobotModel`` + Pinocchio ``Model`` bookkeeping).

A :class:`RobotModel` is compiled once from a
:class:`~robot_state_core.description.scene_graph.SceneGraph` (and optionally an SRDF) into
structure-of-arrays form; every array is read-only and editing the graph afterwards never changes
the model (design study B1, B6). What the SRDF adds (the virtual joint, groups, named states,
end effectors, passive joints, disabled collision pairs, joint properties) is compiled by
:mod:`robot_state_core.model.semantics`.

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
from robot_state_core.description.joint_types import JOINT_TYPES, mimic
from robot_state_core.description.joints import Joint, JOINT_TYPE_INFO, JointType
from robot_state_core.description.links import Link
from robot_state_core.errors import (
    ImmutableModelError,
    InvalidArgumentError,
    InvalidTypeError,
    ModelError,
    UnknownNameError,
)
from robot_state_core.io.load_report import LoadMessage, log_load_messages
from robot_state_core.io.srdf import parse_srdf, read_srdf_file
from robot_state_core.io.urdf import load_urdf_file, load_urdf_string
from robot_state_core.model.joint_model_group import JointModelGroup
from robot_state_core.model.rpy_floating import RpyFloatingJoint
from robot_state_core.model.semantics import add_virtual_joint, compile_semantics, EndEffector

#: Integer codes of joint types in ``RobotModel.joint_type_codes`` (index into this tuple).
JOINT_TYPE_ORDER: tuple[JointType, ...] = tuple(JointType)
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

_LOG = logging.getLogger(__name__)
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
        variable_angle: (nq,) the variable is an angle [rad] (its joint type module's
            ``ANGLE_VARIABLES``: revolute and continuous joints, planar theta, rpy angles).
        variable_orientation: (nq,) the variable parameterises an orientation (a floating
            joint's quaternion, an rpy_floating joint's angles).
        variable_velocity_limits, variable_acceleration_limits, variable_effort_limits,
            variable_jerk_limits: (nq,) magnitudes (inf when unspecified).
        variable_joint: (nq,) joint index owning each variable.
        default_positions: (nq,) 0, or the middle of the bounds when 0 is outside them;
            quaternions (0, 0, 0, 1).
        mimic_variable, mimic_source, mimic_multiplier, mimic_offset: (m,) the mimic map.
        active_variable_mask: (nq,) variables that are not mimic-driven.
        joint_distance_factors: (J,) MoveIt's per-joint ``distance_factor``: the joint's state
            space dimension (:data:`~robot_state_core.model.semantics.STATE_SPACE_DIMENSION`:
            1 for revolute, continuous and prismatic, 3 for planar, 6 for floating and
            rpy_floating, 0 for fixed). The whole-state and group distances weight each joint
            by it (``RobotModel::distance``).
        joint_angular_distance_weights: (J,) weight of the rotation term of planar, floating
            and rpy_floating joint distances: the SRDF ``angular_distance_weight`` joint
            property, default 1.
        joint_motion_models: (J,) ``'holonomic'`` or ``'diff_drive'`` for planar joints (SRDF
            ``motion_model``, default ``'holonomic'``), ``''`` for the other types.
        joint_min_translational_distances: (J,) planar ``min_translational_distance`` [m]
            (SRDF, default
            :data:`~robot_state_core.model.semantics.DEFAULT_MIN_TRANSLATIONAL_DISTANCE`; used
            by diff drive).

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
        virtual = add_virtual_joint(graph, srdf, self._warn) if srdf is not None else None
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
        semantics = compile_semantics(self, srdf, kinematics or {}, virtual, self._warn)
        self.passive_joint_names: tuple[str, ...] = semantics.passive_joint_names
        self.end_effectors: tuple[EndEffector, ...] = semantics.end_effectors
        self.disabled_collision_pairs: tuple[tuple[str, str, str], ...] = (
            semantics.disabled_collision_pairs)
        self.virtual_joint_names: tuple[str, ...] = semantics.virtual_joint_names
        self._groups: dict[str, JointModelGroup] = semantics.groups
        self.joint_distance_factors = semantics.joint_distance_factors
        self.joint_angular_distance_weights = semantics.joint_angular_distance_weights
        self.joint_min_translational_distances = semantics.joint_min_translational_distances
        self.joint_motion_models: tuple[str, ...] = semantics.joint_motion_models
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
            lo, hi, b = JOINT_TYPES[joint.type].position_bounds(joint)  # its type's bounds
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
        modules = [JOINT_TYPES[t] for t in self.joint_types]
        default = np.array([x for m in modules for x in m.NEUTRAL], dtype=np.float64)
        low, high = np.asarray(lower), np.asarray(upper)
        outside = (low > default) | (high < default)  # MoveIt: the middle of such bounds
        default[outside] = 0.5 * (low[outside] + high[outside])
        self.variable_angle = _ro([i in m.ANGLE_VARIABLES for m in modules
                                   for i in range(m.NQ)], np.bool_)
        self.variable_orientation = _ro([i in m.ORIENTATION_VARIABLES for m in modules
                                         for i in range(m.NQ)], np.bool_)
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
                mult, off = mimic.chain(current.mimic.multiplier, current.mimic.offset, mult,
                                        off)
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
        self._q_shape = (self.nq,)
        self._mimic_rows = tuple((int(v), int(s), float(m), float(o)) for v, s, m, o in zip(
            variables, sources, mults, offsets, strict=True))
        mask = np.ones(self.nq, dtype=np.bool_)
        mask[self.mimic_variable] = False
        self.active_variable_mask = _ro(mask, np.bool_)
        self.default_positions = _ro(self.apply_mimic(self._default_unmimicked))
        del self._default_unmimicked
        self.mimic_joint_names: tuple[str, ...] = tuple(
            self.joint_names[int(self.variable_joint[v])] for v in self.mimic_variable)

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
        if type(q) is np.ndarray and q.shape == self._q_shape:  # one configuration (every
            for v, src, m, o in self._mimic_rows:  # RobotState write): scalars, no fancy index
                q[v] = m * q.item(src) + o
            return q
        if not isinstance(q, np.ndarray):
            raise InvalidTypeError(f'RobotModel.apply_mimic: q must be a numpy array, got '
                                   f'{type(q).__name__}')
        if q.shape[-1:] != (self.nq,):
            raise InvalidArgumentError(f'RobotModel.apply_mimic: q must have shape (..., '
                                       f'{self.nq}), got {q.shape}')
        if self.mimic_variable.size:
            mimic.apply(q, self.mimic_variable, self.mimic_source, self.mimic_multiplier,
                        self.mimic_offset)
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

