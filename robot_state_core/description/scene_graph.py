"""The tesseract-style editable scene graph: links are vertices, joints are directed edges (S2).

:class:`SceneGraph` is the *editable* robot/environment model (design study B1.2): the URDF
loader builds one, edits go through it, and it is compiled into an immutable ``RobotModel``.
It follows the contract of tesseract's ``tesseract_scene_graph::SceneGraph`` (seed S2,
``seed_features.md`` §2), method names in snake_case:

* edits (``add_*``, ``remove_*``, ``move_*``, ``change_*``, ``set_root``,
  ``insert_scene_graph``) return ``bool`` and log the reason of a ``False`` at WARNING level;
  a failed edit leaves the graph unchanged (validated before mutating);
* element getters (``get_link``, ``get_joint``, ``get_joint_limits``) return ``None`` for an
  unknown name;
* topology queries and link flags raise :class:`~robot_state_core.errors.UnknownNameError` for
  an unknown name (tesseract's ``getVertex``/``getEdge`` throw);
* arguments of the wrong kind (not a ``Link``/``Joint``, empty names) raise ``TypeError`` or
  ``ValueError`` (design study B7.3).

Links and joints are cloned on the way in. Getters return the stored objects so that, like
tesseract's ``JointLimits::Ptr``, :meth:`SceneGraph.change_joint_limits` can update the very
limits object a caller holds; treat them as read-only and edit through the graph, which keeps
the edge weights and :attr:`SceneGraph.version` consistent.

Storage is dicts keyed by name plus per-link ordered in/out joint sets, so every edit is
O(degree) and iteration order is insertion order (deterministic).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import heapq
import logging
import math
import os

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.description.acm import AllowedCollisionMatrix
from robot_state_core.description.joints import Joint, JOINT_TYPE_INFO, JointLimits, JointType
from robot_state_core.description.links import Link
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError, UnknownNameError

_LOG = logging.getLogger(__name__)

CONTINUOUS_DEFAULT_LIMIT = 4.0 * math.pi
'''|position limit| [rad] tesseract gives continuous joints without usable limits (SG-14).'''

CONTINUOUS_DEFAULT_JERK = 1000.0
'''Jerk limit [rad/s³] tesseract gives a continuous joint added without limits (SG-14).'''

_CONTINUOUS_TOLERANCE = 1e-5  # tesseract almostEqualRelativeAndAbs(lower, upper, 1e-5)


@dataclass(frozen=True, slots=True)
class ShortestPath:
    """A path between two links (SG-C9, SG-35).

    Attributes:
        links: Link names from the start link to the end link, both included; empty if the
            two links are not connected.
        joints: The joint traversed between each pair of consecutive links (one fewer than
            ``links``), in path order; the path may traverse a joint against its direction.
        active_joints: The active joints of ``joints`` (SG-17), in path order.
    """

    links: tuple[str, ...] = ()
    joints: tuple[str, ...] = ()
    active_joints: tuple[str, ...] = ()


def _translation_norm(X: FloatArray) -> float:
    """Edge weight of a joint: the length of its origin translation (SG-14) [m]."""
    return float(np.linalg.norm(X[:3, 3]))


def _dot_quote(name: str) -> str:
    return '"' + name.replace('\\', '\\\\').replace('"', '\\"') + '"'


class SceneGraph:
    """Editable link/joint graph with link flags and an allowed collision matrix (S2, SG-01).

    Args:
        name: Graph name (tesseract: the robot name).
    """

    def __init__(self, name: str = '') -> None:
        self._name = name
        self._root = ''
        self._links: dict[str, Link] = {}
        self._joints: dict[str, Joint] = {}
        self._weights: dict[str, float] = {}  # joint name -> edge weight
        self._in: dict[str, dict[str, None]] = {}  # link -> joints whose child it is
        self._out: dict[str, dict[str, None]] = {}  # link -> joints whose parent it is
        self._visible: dict[str, bool] = {}
        self._collision_enabled: dict[str, bool] = {}
        self._acm = AllowedCollisionMatrix()
        self._edits = 0

    # -- name, root, version --------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The graph name (SG-02)."""
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        self.set_name(name)

    def set_name(self, name: str) -> None:
        """Set the graph name (SG-02)."""
        self._name = name
        self._edits += 1

    def get_name(self) -> str:
        """The graph name (SG-02; the seed's docstring wrongly says "Sets")."""
        return self._name

    @property
    def version(self) -> int:
        """Strictly increases with every successful edit.

        ACM edits count too, including those made directly on
        :meth:`get_allowed_collision_matrix`. A clone starts at its original's version.
        """
        return self._edits + self._acm.version

    def set_root(self, name: str) -> bool:
        """Set the root link ("world coordinate frame") (SG-03).

        Returns:
            False if the link does not exist.
        """
        if name not in self._links:
            _LOG.warning(f'SceneGraph.set_root: link {name!r} does not exist')
            return False
        self._root = name
        self._edits += 1
        return True

    def get_root(self) -> str:
        """The root link name (SG-04); ``''`` while the graph has none (empty, root removed)."""
        return self._root

    # -- links ----------------------------------------------------------------------------------

    def add_link(self, link: Link, joint: Joint | None = None,
                 replace_allowed: bool = False) -> bool:
        """Add a copy of ``link``, optionally with the joint attaching it (SG-05, SG-06).

        The first link added becomes the root. A new link is visible and collision-enabled.
        With ``replace_allowed`` an existing link of that name is swapped in place (its joints,
        flags and ACM entries stay).

        Args:
            link: The link; it is cloned.
            joint: A joint to add together with the link (SG-06); it is cloned. The link and
                the joint are added both or neither.
            replace_allowed: Replace an existing link of the same name (not with ``joint``).

        Returns:
            False if the link name exists (and replacing is not allowed, or ``joint`` is
            given), or if ``joint`` cannot be added (see :meth:`add_joint`).

        Raises:
            TypeError: ``link`` is not a :class:`Link` or ``joint`` not a :class:`Joint`.
            ValueError: The link or joint name is empty, or ``replace_allowed`` is combined
                with ``joint``.
        """
        _check_link(link)
        exists = link.name in self._links
        if joint is not None:
            _check_joint(joint)
            if replace_allowed:
                raise InvalidArgumentError(
                    'SceneGraph.add_link: replace_allowed cannot be combined with '
                    'a joint')
            if exists:
                _LOG.warning(f'SceneGraph.add_link: link {link.name!r} already exists')
                return False
            problem = self._joint_problem(joint, extra_links=(link.name,))
            if problem:
                _LOG.warning(f'SceneGraph.add_link: {problem}')
                return False
            self._insert_link(link.clone())
            self._attach_joint(joint.clone())
        elif exists and not replace_allowed:
            _LOG.warning(f'SceneGraph.add_link: link {link.name!r} already exists and '
                         'replace_allowed is False')
            return False
        elif exists:
            self._links[link.name] = link.clone()
        else:
            self._insert_link(link.clone())
        self._edits += 1
        return True

    def has_link(self, name: str) -> bool:
        """True if a link of that name exists."""
        return name in self._links

    def get_link(self, name: str) -> Link | None:
        """The link, or ``None`` if it does not exist (SG-07)."""
        return self._links.get(name)

    def get_links(self) -> list[Link]:
        """All links, in insertion order (SG-08)."""
        return list(self._links.values())

    def get_leaf_links(self) -> list[Link]:
        """The links without outbound joints (SG-09)."""
        return [link for name, link in self._links.items() if not self._out[name]]

    def remove_link(self, name: str, recursive: bool = False) -> bool:
        """Remove a link, all its inbound and outbound joints and its ACM entries (SG-10).

        Every ACM entry naming the link goes: pair entries and its default entry. Removing the
        root leaves the graph without a root (``get_root() == ''``).

        Args:
            name: The link.
            recursive: Then also remove, recursively, each child link (target of an outbound
                joint) that is left without any inbound joint. A child still attached through
                another joint stays.

        Returns:
            False if the link does not exist.
        """
        if name not in self._links:
            _LOG.warning(f'SceneGraph.remove_link: link {name!r} does not exist')
            return False
        self._remove_link_cascade(name, recursive)
        self._edits += 1
        return True

    def move_link(self, joint: Joint) -> bool:
        """Re-attach the joint's child link: drop all its inbound joints, add ``joint`` (SG-11).

        The seed's docstring says the inbound joints of the *parent* link are deleted; the
        implementation (and the meaning of "move the link") deletes those of the **child**.
        ``joint`` may reuse the name of one of the dropped joints.

        Args:
            joint: The new joint; it is cloned.

        Returns:
            False if the child or parent link does not exist, or if ``joint`` could not be
            added (duplicate name of another joint, missing limits, UNKNOWN type); the graph
            is then unchanged.

        Raises:
            TypeError: ``joint`` is not a :class:`Joint`.
            ValueError: The joint name is empty.
        """
        _check_joint(joint)
        child = joint.child_link_name
        if child not in self._links:
            _LOG.warning(f'SceneGraph.move_link: link {child!r} does not exist')
            return False
        problem = self._joint_problem(joint, freed_joints=self._in[child])
        if problem:
            _LOG.warning(f'SceneGraph.move_link: {problem}')
            return False
        for name in list(self._in[child]):
            self._detach_joint(name)
        self._attach_joint(joint.clone())
        self._edits += 1
        return True

    def set_link_visibility(self, name: str, visibility: bool) -> None:
        """Set whether the link is shown (markers are published for visible links) (SG-12).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        self._visible[name] = bool(visibility)
        self._edits += 1

    def get_link_visibility(self, name: str) -> bool:
        """Whether the link is shown (SG-12).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        return self._visible[name]

    def set_link_collision_enabled(self, name: str, enabled: bool) -> None:
        """Set whether the link is considered during collision checking (SG-13).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        self._collision_enabled[name] = bool(enabled)
        self._edits += 1

    def get_link_collision_enabled(self, name: str) -> bool:
        """Whether the link is considered during collision checking (SG-13).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        return self._collision_enabled[name]

    # -- joints ---------------------------------------------------------------------------------

    def add_joint(self, joint: Joint) -> bool:
        """Add a copy of ``joint`` as an edge parent link → child link (SG-14).

        A CONTINUOUS joint without limits gets tesseract's defaults ``lower = -4π``,
        ``upper = 4π``, effort 0, velocity 2, acceleration 1, jerk 1000; one whose lower and
        upper limits are equal (within 1e-5) gets ``±4π`` position limits. The edge weight used
        by :meth:`get_shortest_path` is the length of the origin translation.

        Args:
            joint: The joint; it is cloned.

        Returns:
            False if the parent or child link does not exist, the joint name exists, the type
            is UNKNOWN, or the type requires limits (REVOLUTE, PRISMATIC, PLANAR: every type
            but FIXED, FLOATING, CONTINUOUS and RPY_FLOATING, as tesseract) and ``limits`` is
            ``None``.

        Raises:
            TypeError: ``joint`` is not a :class:`Joint`.
            ValueError: The joint name is empty.
        """
        _check_joint(joint)
        problem = self._joint_problem(joint)
        if problem:
            _LOG.warning(f'SceneGraph.add_joint: {problem}')
            return False
        self._attach_joint(joint.clone())
        self._edits += 1
        return True

    def has_joint(self, name: str) -> bool:
        """True if a joint of that name exists."""
        return name in self._joints

    def get_joint(self, name: str) -> Joint | None:
        """The joint, or ``None`` if it does not exist (SG-15)."""
        return self._joints.get(name)

    def get_joints(self) -> list[Joint]:
        """All joints, in insertion order (SG-16)."""
        return list(self._joints.values())

    def get_active_joints(self) -> list[Joint]:
        """The joints that are not FIXED or FLOATING (SG-17), in insertion order."""
        return [j for j in self._joints.values() if JOINT_TYPE_INFO[j.type].is_active]

    def remove_joint(self, name: str, recursive: bool = False) -> bool:
        """Remove a joint (SG-18).

        With ``recursive``, if the joint was the only inbound joint of its child link, the
        child link is removed recursively as by ``remove_link(child, recursive=True)``.
        tesseract's implementation removes nothing at all (yet returns True) when the child has
        other inbound joints; we remove the joint, as the seed's docstring implies (decision
        T-5).

        Args:
            name: The joint.
            recursive: Also remove the subtree hanging only from this joint.

        Returns:
            False if the joint does not exist.
        """
        joint = self._joints.get(name)
        if joint is None:
            _LOG.warning(f'SceneGraph.remove_joint: joint {name!r} does not exist')
            return False
        child = joint.child_link_name
        if recursive and len(self._in[child]) == 1:
            self._remove_link_cascade(child, True)
        else:
            self._detach_joint(name)
        self._edits += 1
        return True

    def move_joint(self, name: str, parent_link: str) -> bool:
        """Re-parent a joint: it keeps its child, origin and everything else (SG-19).

        Returns:
            False if the joint or the new parent link does not exist.
        """
        joint = self._joints.get(name)
        if joint is None:
            _LOG.warning(f'SceneGraph.move_joint: joint {name!r} does not exist')
            return False
        if parent_link not in self._links:
            _LOG.warning(f'SceneGraph.move_joint: parent link {parent_link!r} does not exist')
            return False
        self._detach_joint(name)
        joint.parent_link_name = parent_link
        self._attach_joint(joint)
        self._edits += 1
        return True

    def change_joint_origin(self, name: str, X_PJ: FloatArray) -> bool:
        """Replace the joint origin and recompute its edge weight (SG-20).

        Args:
            name: The joint.
            X_PJ: (4, 4) new pose of the joint frame J in the parent link frame P.

        Returns:
            False if the joint does not exist.

        Raises:
            ValueError: ``X_PJ`` is not a finite (4, 4) array.
        """
        X = np.array(X_PJ, dtype=np.float64)
        if X.shape != (4, 4) or not np.isfinite(X).all():
            raise InvalidArgumentError(
                f'SceneGraph.change_joint_origin: X_PJ must be a finite (4, 4) '
                f'transform, got shape {X.shape}')
        joint = self._joints.get(name)
        if joint is None:
            _LOG.warning(f'SceneGraph.change_joint_origin: joint {name!r} does not exist')
            return False
        joint.parent_to_joint_origin_transform = X
        self._weights[name] = _translation_norm(X)
        self._edits += 1
        return True

    def change_joint_limits(self, name: str, limits: JointLimits) -> bool:
        """Assign new limit values to the joint's existing limits object (SG-21).

        The joint's :class:`JointLimits` object stays the same (created if the joint had
        none); ``lower``, ``upper``, ``effort``, ``velocity``, ``acceleration`` and ``jerk`` are
        copied from ``limits``.

        Returns:
            False if the joint does not exist or is FIXED or FLOATING.
        """
        target = self._limits_to_change('change_joint_limits', name)
        if target is None:
            return False
        target.lower, target.upper = limits.lower, limits.upper
        target.effort, target.velocity = limits.effort, limits.velocity
        target.acceleration, target.jerk = limits.acceleration, limits.jerk
        self._edits += 1
        return True

    def change_joint_position_limits(self, name: str, lower: float, upper: float) -> bool:
        """Set the joint's position limits [rad or m] (SG-22).

        Returns:
            False if the joint does not exist or is FIXED or FLOATING.
        """
        target = self._limits_to_change('change_joint_position_limits', name)
        if target is None:
            return False
        target.lower, target.upper = float(lower), float(upper)
        self._edits += 1
        return True

    def change_joint_velocity_limits(self, name: str, limit: float) -> bool:
        """Set the joint's velocity limit [rad/s or m/s] (SG-23).

        Returns:
            False if the joint does not exist or is FIXED or FLOATING.
        """
        return self._set_limit('change_joint_velocity_limits', name, 'velocity', limit)

    def change_joint_acceleration_limits(self, name: str, limit: float) -> bool:
        """Set the joint's acceleration limit [rad/s² or m/s²] (SG-24).

        Returns:
            False if the joint does not exist or is FIXED or FLOATING.
        """
        return self._set_limit('change_joint_acceleration_limits', name, 'acceleration', limit)

    def change_joint_jerk_limits(self, name: str, limit: float) -> bool:
        """Set the joint's jerk limit [rad/s³ or m/s³] (our addition to SG-21..SG-24).

        Returns:
            False if the joint does not exist or is FIXED or FLOATING.
        """
        return self._set_limit('change_joint_jerk_limits', name, 'jerk', limit)

    def _set_limit(self, method: str, name: str, field: str, value: float) -> bool:
        target = self._limits_to_change(method, name)
        if target is None:
            return False
        setattr(target, field, float(value))
        self._edits += 1
        return True

    def get_joint_limits(self, name: str) -> JointLimits | None:
        """The joint's limits object; ``None`` if the joint does not exist or has none (SG-25)."""
        joint = self._joints.get(name)
        return None if joint is None else joint.limits

    # -- topology queries -----------------------------------------------------------------------

    def get_source_link(self, joint_name: str) -> Link:
        """The parent link of a joint (SG-26).

        Raises:
            UnknownNameError: The joint does not exist.
        """
        return self._links[self._require_joint(joint_name).parent_link_name]

    def get_target_link(self, joint_name: str) -> Link:
        """The child link of a joint (SG-27).

        Raises:
            UnknownNameError: The joint does not exist.
        """
        return self._links[self._require_joint(joint_name).child_link_name]

    def get_inbound_joints(self, link_name: str) -> list[Joint]:
        """The joints whose child is the link; empty for the root (SG-28).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(link_name)
        return [self._joints[j] for j in self._in[link_name]]

    def get_outbound_joints(self, link_name: str) -> list[Joint]:
        """The joints whose parent is the link (SG-29).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(link_name)
        return [self._joints[j] for j in self._out[link_name]]

    def get_adjacent_link_names(self, name: str) -> list[str]:
        """The direct children of a link: targets of its outbound joints, no duplicates (SG-30).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        return self._children(name)

    def get_inv_adjacent_link_names(self, name: str) -> list[str]:
        """The direct parents of a link: sources of its inbound joints, no duplicates (SG-31).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        return list(dict.fromkeys(self._joints[j].parent_link_name for j in self._in[name]))

    def get_link_children_names(self, name: str) -> list[str]:
        """All descendants of a link in breadth-first order, **excluding** the link (SG-32).

        Raises:
            UnknownNameError: The link does not exist.
        """
        self._require_link(name)
        return [n for n in self._descendants(name) if n != name]

    def get_joint_children_names(self, name: str | Sequence[str]) -> list[str]:
        """The child link of a joint **plus** all its descendants (SG-33).

        Args:
            name: A joint name, or a sequence of joint names.

        Returns:
            For one joint, the child link then its descendants in breadth-first order; for a
            sequence, the sorted de-duplicated union over the joints.

        Raises:
            UnknownNameError: A joint does not exist.
        """
        if isinstance(name, str):
            return self._descendants(self._require_joint(name).child_link_name)
        union: set[str] = set()
        for n in name:
            union.update(self._descendants(self._require_joint(n).child_link_name))
        return sorted(union)

    def get_adjacency_map(self, link_names: Sequence[str]) -> dict[str, str]:
        """Map every link moved by one of ``link_names`` to that link (SG-34).

        Breadth-first down the joints from each given link; the search does not enter another
        given link. Each given link maps to itself (as in tesseract). When a link hangs below
        two given links (not a tree), the later one in ``link_names`` wins.

        Args:
            link_names: The links to map other links to.

        Returns:
            ``{affected link: given link}``.

        Raises:
            UnknownNameError: A link does not exist.
        """
        for n in link_names:
            self._require_link(n)
        stop = set(link_names)
        mapping: dict[str, str] = {}
        for start in link_names:
            mapping[start] = start
            seen = {start}
            queue = deque([start])
            while queue:
                for child in self._children(queue.popleft()):
                    if child not in seen and child not in stop:
                        seen.add(child)
                        mapping[child] = start
                        queue.append(child)
        return mapping

    def get_shortest_path(self, root: str, tip: str) -> ShortestPath:
        """The shortest path between two links, up and down the joints (SG-35).

        Dijkstra on the undirected graph; a joint's weight is the length of its origin
        translation, so fixed zero-offset joints are free.

        Args:
            root: Start link.
            tip: End link.

        Returns:
            Links from ``root`` to ``tip`` (both included), the joints between them and the
            active ones among those; all empty if ``tip`` cannot be reached. ``root == tip``
            gives the single link and no joints.

        Raises:
            UnknownNameError: ``root`` or ``tip`` does not exist.
        """
        self._require_link(root)
        self._require_link(tip)
        dist = {root: 0.0}
        via: dict[str, tuple[str, str]] = {}  # link -> (previous link, joint)
        done: set[str] = set()
        heap = [(0.0, 0, root)]
        pushes = 0
        while heap:
            d, _, u = heapq.heappop(heap)
            if u in done:
                continue
            if u == tip:
                break
            done.add(u)
            for j in (*self._out[u], *self._in[u]):
                joint = self._joints[j]
                v = joint.child_link_name if joint.parent_link_name == u else \
                    joint.parent_link_name
                nd = d + self._weights[j]
                if v not in done and nd < dist.get(v, math.inf):
                    dist[v] = nd
                    via[v] = (u, j)
                    pushes += 1
                    heapq.heappush(heap, (nd, pushes, v))
        if tip != root and tip not in via:
            return ShortestPath()
        links = [tip]
        joints: list[str] = []
        while links[-1] != root:
            prev, j = via[links[-1]]
            links.append(prev)
            joints.append(j)
        links.reverse()
        joints.reverse()
        active = tuple(j for j in joints if JOINT_TYPE_INFO[self._joints[j].type].is_active)
        return ShortestPath(tuple(links), tuple(joints), active)

    def is_acyclic(self) -> bool:
        """True if no directed cycle exists (following joints parent → child) (SG-36)."""
        white, grey, black = 0, 1, 2
        colour = dict.fromkeys(self._links, white)
        for start in self._links:
            if colour[start] != white:
                continue
            colour[start] = grey
            stack = [(start, iter(self._children(start)))]
            while stack:
                node, children = stack[-1]
                child = next(children, None)
                if child is None:
                    colour[node] = black
                    stack.pop()
                elif colour[child] == grey:
                    return False
                elif colour[child] == white:
                    colour[child] = grey
                    stack.append((child, iter(self._children(child))))
        return True

    def is_tree(self) -> bool:
        """True if the graph is a tree (SG-37), by tesseract's rule.

        tesseract's ``tree_detector`` (``graph.cpp``): no link with more than one inbound
        joint, at most one link without inbound joints, no link without any joint, no directed
        cycle. Hence an **empty graph is a tree** (nothing violates the rule) and a **single
        link is not** (a link without joints counts as unused). The tree's root need not be
        :meth:`get_root`. :class:`~robot_state_core.model.robot_model.RobotModel` also compiles a
        single link.
        """
        if not self._links:
            return True
        roots = [n for n in self._links if not self._in[n]]
        if len(roots) != 1 or any(len(self._in[n]) > 1 for n in self._links):
            return False
        if not self._out[roots[0]]:
            return False  # the only root is an unused link (no joint at all)
        return len(self._descendants(roots[0])) == len(self._links)

    def is_empty(self) -> bool:
        """True if the graph has no links (SG-38)."""
        return not self._links

    def clear(self) -> None:
        """Remove all links, joints, flags and ACM entries, and the root (SG-39).

        The name is kept.
        """
        self._root = ''
        for d in (self._links, self._joints, self._weights, self._in, self._out, self._visible,
                  self._collision_enabled):
            d.clear()
        self._acm.clear()
        self._edits += 1

    def clone(self) -> SceneGraph:
        """A deep copy: links, joints, flags, ACM, name and root (SG-40).

        The copy starts with this graph's :attr:`version`.
        """
        other = SceneGraph(self._name)
        other._root = self._root
        other._links = {n: link.clone() for n, link in self._links.items()}
        other._joints = {n: joint.clone() for n, joint in self._joints.items()}
        other._weights = dict(self._weights)
        other._in = {n: dict(js) for n, js in self._in.items()}
        other._out = {n: dict(js) for n, js in self._out.items()}
        other._visible = dict(self._visible)
        other._collision_enabled = dict(self._collision_enabled)
        other._acm = self._acm.copy()
        other._edits = self.version
        return other

    def insert_scene_graph(self, graph: SceneGraph, prefix: str = '',
                           joint: Joint | None = None) -> bool:
        """Merge a copy of ``graph``, every link and joint name prefixed with ``prefix``.

        SG-41/SG-42. Link flags and ACM entries come along, prefixed. How the inserted graph is
        connected:

        * ``joint`` given (SG-42): ``joint`` (cloned, used as is: its names are not prefixed)
          connects the two. Its parent must be a link of this graph, its child a (prefixed)
          link of ``graph``, its name new.
        * ``joint`` is ``None`` and this graph is not empty (SG-41): **decision** — we follow
          the seed's documentation, not tesseract's implementation (which adds no joint and
          leaves the merged graph disconnected, useless for kinematics; decision T-1). The
          prefixed root of ``graph`` is attached to this graph's root by a FIXED joint with
          zero displacement named ``f'{prefix}{graph.get_root()}_joint'``.
        * ``joint`` is ``None`` and this graph is empty: the prefixed root of ``graph`` becomes
          the root; no joint is added.

        Everything is checked before anything changes, so on ``False`` this graph is untouched.

        Args:
            graph: The graph to merge (not modified; may be this graph when ``prefix`` is
                non-empty).
            prefix: Prepended to every link and joint name of ``graph`` (and its ACM names).
            joint: The connecting joint, or ``None``.

        Returns:
            False on any link or joint name collision (including the connecting joint), if
            ``joint``'s parent or child is not where it must be or it cannot be added (see
            :meth:`add_joint`), or if a connecting joint is needed and either graph has no root.

        Raises:
            TypeError: ``graph`` is not a :class:`SceneGraph` or ``joint`` not a :class:`Joint`.
            ValueError: ``joint`` has an empty name.
        """
        if not isinstance(graph, SceneGraph):
            raise TypeError(f'SceneGraph.insert_scene_graph: expected a SceneGraph, got '
                            f'{type(graph).__name__}')
        if joint is not None:
            _check_joint(joint)
        was_empty = self.is_empty()
        old_names = list(graph._links)
        flags = [(graph._visible[n], graph._collision_enabled[n]) for n in old_names]
        acm = graph._acm.with_prefix(prefix)
        links = [link.renamed(prefix + link.name) for link in graph._links.values()]
        joints = []
        for j in graph._joints.values():
            new = j.clone()
            new.name = prefix + j.name
            new.parent_link_name = prefix + j.parent_link_name
            new.child_link_name = prefix + j.child_link_name
            joints.append(new)
        new_links = {link.name for link in links}
        new_joints = {j.name for j in joints}
        inserted_root = prefix + graph._root if graph._root else ''

        clash = next((n for n in new_links if n in self._links), None) or next(
            (n for n in new_joints if n in self._joints), None)
        if clash is not None:
            _LOG.warning(f'SceneGraph.insert_scene_graph: name {clash!r} already exists')
            return False
        connection = joint
        if joint is not None:
            if joint.parent_link_name not in self._links:
                _LOG.warning(f'SceneGraph.insert_scene_graph: parent link '
                             f'{joint.parent_link_name!r} of joint {joint.name!r} is not a link '
                             'of this graph')
                return False
            if joint.child_link_name not in new_links:
                _LOG.warning(f'SceneGraph.insert_scene_graph: child link '
                             f'{joint.child_link_name!r} of joint {joint.name!r} is not a link '
                             f'of the inserted graph (prefix {prefix!r})')
                return False
        elif not was_empty and new_links:
            if not self._root or not inserted_root:
                _LOG.warning('SceneGraph.insert_scene_graph: cannot connect the graphs: '
                             f'root {self._root!r}, inserted root {inserted_root!r}')
                return False
            connection = Joint(f'{prefix}{graph._root}_joint', JointType.FIXED, self._root,
                               inserted_root)
        if connection is not None:
            problem = self._joint_problem(connection, extra_links=new_links,
                                          extra_joints=new_joints)
            if problem:
                _LOG.warning(f'SceneGraph.insert_scene_graph: {problem}')
                return False

        for link, (visible, collision_enabled) in zip(links, flags, strict=True):
            self._insert_link(link)
            self._visible[link.name] = visible
            self._collision_enabled[link.name] = collision_enabled
        for j in joints:
            self._attach_joint(j)
        if connection is not None:
            self._attach_joint(connection.clone())
        self._acm.insert(acm)
        if was_empty:
            self._root = inserted_root
        self._edits += 1
        return True

    # -- allowed collision matrix ---------------------------------------------------------------

    def add_allowed_collision(self, link_name1: str, link_name2: str, reason: str) -> None:
        """Allow contacts between two objects, with a reason (SG-43).

        The names need not be links of this graph (world objects, attached bodies).
        """
        self._acm.add_allowed_collision(link_name1, link_name2, reason)

    def remove_allowed_collision(self, link_name1: str, link_name2: str | None = None) -> None:
        """Remove one pair's entry, or every pair entry of ``link_name1`` (SG-44)."""
        self._acm.remove_allowed_collision(link_name1, link_name2)

    def clear_allowed_collisions(self) -> None:
        """Remove every ACM entry (SG-45)."""
        self._acm.clear()

    def is_collision_allowed(self, link_name1: str, link_name2: str) -> bool:
        """True if contacts between the two objects are allowed (symmetric) (SG-46).

        See :meth:`AllowedCollisionMatrix.is_collision_allowed` for conditional entries.
        """
        return self._acm.is_collision_allowed(link_name1, link_name2)

    def get_allowed_collision_matrix(self) -> AllowedCollisionMatrix:
        """The graph's own (mutable) allowed collision matrix (SG-47)."""
        return self._acm

    # -- Graphviz -------------------------------------------------------------------------------

    def to_dot(self) -> str:
        r"""The graph in Graphviz DOT (SG-48).

        ``digraph D {...}`` with one node per link (the root drawn as a double circle) and one
        edge per joint, ``"parent" -> "child" [label="joint\n(type)"]`` (``\n`` is DOT's line
        break escape; the type is the URDF spelling).
        """
        lines = ['digraph D {', '  rankdir=LR', '  size="4,3"', '  ratio="fill"',
                 '  edge[style="bold"]', '  node[shape="circle"]']
        for name in self._links:
            extra = ' [shape="doublecircle"]' if name == self._root else ''
            lines.append(f'  {_dot_quote(name)}{extra};')
        for j in self._joints.values():
            label = _dot_quote(f'{j.name}\n({j.type.value})').replace('\n', '\\n')
            lines.append(f'  {_dot_quote(j.parent_link_name)} -> {_dot_quote(j.child_link_name)}'
                         f' [label={label}, color="black"];')
        lines.append('}')
        return '\n'.join(lines) + '\n'

    def save_dot(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dot` to a file (SG-48).

        Raises:
            OSError: The file cannot be written.
        """
        with open(path, 'w', encoding='utf-8') as f:
            f.write(self.to_dot())

    def __repr__(self) -> str:
        return (f'SceneGraph(name={self._name!r}, root={self._root!r}, '
                f'{len(self._links)} links, {len(self._joints)} joints)')

    # -- internals ------------------------------------------------------------------------------

    def _require_link(self, name: str) -> None:
        if name not in self._links:
            raise UnknownNameError(name, 'link', self._links)

    def _require_joint(self, name: str) -> Joint:
        joint = self._joints.get(name)
        if joint is None:
            raise UnknownNameError(name, 'joint', self._joints)
        return joint

    def _children(self, name: str) -> list[str]:
        return list(dict.fromkeys(self._joints[j].child_link_name for j in self._out[name]))

    def _descendants(self, name: str) -> list[str]:
        """``name`` and every link below it, breadth-first."""
        order = [name]
        seen = {name}
        queue = deque([name])
        while queue:
            for child in self._children(queue.popleft()):
                if child not in seen:
                    seen.add(child)
                    order.append(child)
                    queue.append(child)
        return order

    def _joint_problem(self, joint: Joint, *, extra_links: Iterable[str] = (),
                       extra_joints: Iterable[str] = (),
                       freed_joints: Iterable[str] = ()) -> str | None:
        """Why ``joint`` cannot be added (SG-14), or ``None`` if it can.

        ``extra_links``/``extra_joints`` are about to be added, ``freed_joints`` removed.
        """
        links = set(extra_links)
        for role, link in (('parent', joint.parent_link_name), ('child', joint.child_link_name)):
            if link not in self._links and link not in links:
                return f'{role} link {link!r} of joint {joint.name!r} does not exist'
        if (joint.name in self._joints and joint.name not in set(freed_joints)) \
                or joint.name in set(extra_joints):
            return f'joint {joint.name!r} already exists'
        if joint.type is JointType.UNKNOWN:
            return f'joint {joint.name!r} has type UNKNOWN'
        if joint.limits is None and JOINT_TYPE_INFO[joint.type].needs_limits:
            return f'{joint.type.value} joint {joint.name!r} requires limits'
        return None

    def _limits_to_change(self, method: str, name: str) -> JointLimits | None:
        """The limits object ``change_joint_*_limits`` assigns to, or None.

        Created if absent, for every setter (tesseract's position and velocity setters
        dereference a missing one; decision T-9).
        """
        joint = self._joints.get(name)
        if joint is None:
            _LOG.warning(f'SceneGraph.{method}: joint {name!r} does not exist')
            return None
        if joint.type in (JointType.FIXED, JointType.FLOATING):
            _LOG.warning(f'SceneGraph.{method}: joint {name!r} is {joint.type.value} and has no '
                         'limits to change')
            return None
        if joint.limits is None:
            joint.limits = JointLimits()
        return joint.limits

    def _insert_link(self, link: Link) -> None:
        """Store a new link (already cloned) with default flags; the first becomes the root."""
        name = link.name
        self._links[name] = link
        self._in[name] = {}
        self._out[name] = {}
        self._visible[name] = True
        self._collision_enabled[name] = True
        if len(self._links) == 1:
            self._root = name

    def _attach_joint(self, joint: Joint) -> None:
        """Store a validated joint (owned by the graph) as an edge."""
        if joint.type is JointType.CONTINUOUS:
            if joint.limits is None:
                joint.limits = JointLimits(-CONTINUOUS_DEFAULT_LIMIT, CONTINUOUS_DEFAULT_LIMIT,
                                           effort=0.0, velocity=2.0, acceleration=1.0,
                                           jerk=CONTINUOUS_DEFAULT_JERK)
            elif math.isclose(joint.limits.lower, joint.limits.upper,
                              rel_tol=float(np.finfo(np.float64).eps),
                              abs_tol=_CONTINUOUS_TOLERANCE):
                joint.limits.lower = -CONTINUOUS_DEFAULT_LIMIT
                joint.limits.upper = CONTINUOUS_DEFAULT_LIMIT
        name = joint.name
        self._joints[name] = joint
        self._weights[name] = _translation_norm(joint.parent_to_joint_origin_transform)
        self._out[joint.parent_link_name][name] = None
        self._in[joint.child_link_name][name] = None

    def _detach_joint(self, name: str) -> Joint:
        joint = self._joints.pop(name)
        del self._weights[name]
        del self._out[joint.parent_link_name][name]
        del self._in[joint.child_link_name][name]
        return joint

    def _remove_link_cascade(self, name: str, recursive: bool) -> None:
        """Remove a link (SG-10); iterative, so long chains cannot exhaust the stack."""
        stack = [name]
        while stack:
            current = stack.pop()
            if current not in self._links:
                continue
            children = self._children(current)
            for j in (*self._in[current], *self._out[current]):
                if j in self._joints:  # a self-loop is in both sets
                    self._detach_joint(j)
            for d in (self._links, self._in, self._out, self._visible, self._collision_enabled):
                del d[current]
            self._acm.remove_allowed_collision(current)
            self._acm.remove_default_entry(current)
            if self._root == current:
                self._root = ''
            if recursive:
                stack.extend(c for c in reversed(children)
                             if c in self._links and not self._in[c])


def _check_link(link: object) -> None:
    if not isinstance(link, Link):
        raise InvalidTypeError(f'SceneGraph: expected a Link, got {type(link).__name__}')
    if not link.name:
        raise InvalidArgumentError('SceneGraph: a link needs a non-empty name')


def _check_joint(joint: object) -> None:
    if not isinstance(joint, Joint):
        raise InvalidTypeError(f'SceneGraph: expected a Joint, got {type(joint).__name__}')
    if not joint.name:
        raise InvalidArgumentError('SceneGraph: a joint needs a non-empty name')
