"""Joint model groups: named subsets of a model's joints (MoveIt ``JointModelGroup``).

Groups come from the SRDF (``<group>`` with joints, links, chains and subgroups) and are views
into a compiled :class:`~robot_state_core.model.robot_model.RobotModel`: they hold index arrays,
never copies of model data. Joint order inside a group is the model's (depth-first) order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from robot_state_core._typing import IntArray
from robot_state_core.errors import UnknownNameError


@dataclass(frozen=True)
class JointModelGroup:
    """A group of joints of a robot model.

    Attributes:
        name: Group name.
        joint_names: Every joint of the group (fixed and mimic ones included), model order.
        joint_indices: Model joint indices of ``joint_names``.
        active_joint_names: Joints the group moves directly: not fixed, not mimic.
        active_joint_indices: Model joint indices of ``active_joint_names``.
        mimic_joint_names: Mimic joints of the group (they follow their source).
        variable_names: Position variables of every non-fixed group joint, model order.
        variable_indices: Indices of ``variable_names`` into the model's ``q``.
        active_variable_names: Variables of the active joints (what IK and group setters take).
        active_variable_indices: Indices of ``active_variable_names`` into ``q``.
        link_names: Child links of the group's joints (fixed ones included), model order, as
            MoveIt's ``getLinkModelNames`` (a chain's base link is not one of them).
        updated_link_model_names: Every link whose pose the group's joints change: the links
            below the group's root joints, model order (MoveIt ``getUpdatedLinkModelNames``).
        is_chain: The group is a serial chain (declared with ``<chain>`` in the SRDF, or its
            joints form one unbranched path).
        base_link: Chain base link (the parent of the first joint), or ``''``.
        tip_link: Chain tip link (the child of the last joint), or ``''``.
        subgroup_names: Every other group whose joints are all in this group, by name (MoveIt
            ``getSubgroupNames``; SRDF-declared subgroups are among them).
        end_effector_names: End effectors whose parent link is one of this group's links
            (MoveIt ``getAttachedEndEffectorNames``).
        named_states: ``{state name: {variable name: value}}`` from SRDF ``group_state``.
        default_ik_timeout: Default IK timeout [s] (kinematics.yaml; 0.05 s by default).
    """

    name: str
    joint_names: tuple[str, ...]
    joint_indices: IntArray
    active_joint_names: tuple[str, ...]
    active_joint_indices: IntArray
    mimic_joint_names: tuple[str, ...]
    variable_names: tuple[str, ...]
    variable_indices: IntArray
    active_variable_names: tuple[str, ...]
    active_variable_indices: IntArray
    link_names: tuple[str, ...]
    updated_link_model_names: tuple[str, ...] = ()
    is_chain: bool = False
    base_link: str = ''
    tip_link: str = ''
    subgroup_names: tuple[str, ...] = ()
    end_effector_names: tuple[str, ...] = ()
    named_states: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    default_ik_timeout: float = 0.05

    @property
    def variable_count(self) -> int:
        """Number of position variables of the group."""
        return len(self.variable_names)

    @property
    def active_variable_count(self) -> int:
        """Number of active position variables (IK/group-setter size)."""
        return len(self.active_variable_names)

    def has_joint(self, name: str) -> bool:
        """Whether ``name`` is a joint of this group."""
        return name in self.joint_names

    def get_named_state(self, name: str) -> Mapping[str, float]:
        """The variable values of a named state (``home``, ``ready``, ...).

        Raises:
            UnknownNameError: No such named state in this group.
        """
        if name not in self.named_states:
            raise UnknownNameError(name, f'named state of group {self.name!r}',
                                   self.named_states)
        return self.named_states[name]
