"""Geometry roles and their grouped property sets (Drake ``geometry_roles.h``; G-C8, G-23..G-26).

A registered geometry affects nothing until it has a *role* (G-C8):

* :attr:`Role.PROXIMITY`: collision and distance queries; properties in
  :class:`ProximityProperties`;
* :attr:`Role.ILLUSTRATION`: visualisation (markers); :class:`IllustrationProperties`;
* :attr:`Role.PERCEPTION`: rendering for simulated sensors; :class:`PerceptionProperties`.

The role assigned by :meth:`~robot_state_core.geometry.scene_graph.SceneGraph.assign_role` is
inferred from the type of the property set (G-26), and :class:`RoleAssign` says whether the
role is new or replaces an assigned one.

Properties are Drake's two-level map ``group name -> property name -> value``. Values are
arbitrary Python objects; as in Drake (where each value has a C++ type) a property keeps the
*kind* of its first value: :meth:`GeometryProperties.update_property` and
:meth:`GeometryProperties.get_property_or_default` raise when the kinds differ (any two real
numbers that are not ``bool`` are one kind). The common keys are module constants, each a
``(group, name)`` tuple to be splatted: ``props.add_property(*DIFFUSE, (1.0, 0.5, 0.0, 1.0))``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
import copy
import enum
import math
import numbers
from typing import Any, ClassVar, Self

from robot_state_core.errors import InvalidArgumentError, UnknownNameError


class Role(enum.IntFlag):
    """The roles a geometry can have (Drake ``Role``; values are Drake's bit values)."""

    UNASSIGNED = 0
    PROXIMITY = 1
    ILLUSTRATION = 2
    PERCEPTION = 4


SINGLE_ROLES: tuple[Role, Role, Role] = (Role.PROXIMITY, Role.ILLUSTRATION, Role.PERCEPTION)
'''The three assignable roles, in Drake's order.'''


class RoleAssign(enum.Enum):
    """How :meth:`SceneGraph.assign_role` treats an already assigned role (G-26)."""

    NEW = 0
    '''Assign a role the geometry does not have yet; raises if it already has it.'''
    REPLACE = 1
    '''Replace the properties of an assigned role; raises if the role is not assigned.'''


# ---------------------------------------------------------------------------- common keys

DEFAULT_GROUP = '__default__'
'''Drake's default property group name (``GeometryProperties::default_group_name()``).'''

DIFFUSE: tuple[str, str] = ('phong', 'diffuse')
'''Illustration/perception: diffuse colour, an ``(r, g, b, a)`` tuple of floats in [0, 1].'''
DIFFUSE_MAP: tuple[str, str] = ('phong', 'diffuse_map')
'''Illustration/perception: path of a diffuse texture image (str).'''
RENDERER_ACCEPTING: tuple[str, str] = ('renderer', 'accepting')
'''Perception: the ``set`` of renderer names that may reify the geometry; empty or missing
means every renderer (G-25).'''
LABEL_ID: tuple[str, str] = ('label', 'id')
'''Perception: the render label (int) written to label images.'''
HYDROELASTIC_COMPLIANCE_TYPE: tuple[str, str] = ('hydroelastic', 'compliance_type')
'''Proximity: hydroelastic compliance (stored only; no hydroelastic backend here).'''
HYDROELASTIC_MODULUS: tuple[str, str] = ('hydroelastic', 'hydroelastic_modulus')
'''Proximity: hydroelastic modulus [Pa] (stored only).'''
HYDROELASTIC_RESOLUTION_HINT: tuple[str, str] = ('hydroelastic', 'resolution_hint')
'''Proximity: hydroelastic mesh resolution hint [m] (stored only).'''
HYDROELASTIC_SLAB_THICKNESS: tuple[str, str] = ('hydroelastic', 'slab_thickness')
'''Proximity: half-space slab thickness [m] (stored only).'''
COULOMB_FRICTION: tuple[str, str] = ('material', 'coulomb_friction')
'''Proximity: Coulomb friction (stored only).'''
POINT_CONTACT_STIFFNESS: tuple[str, str] = ('material', 'point_contact_stiffness')
'''Proximity: point-contact stiffness [N/m] (stored only).'''
HUNT_CROSSLEY_DISSIPATION: tuple[str, str] = ('material', 'hunt_crossley_dissipation')
'''Proximity: Hunt-Crossley dissipation [s/m] (stored only).'''


def _same_kind(old: object, new: object) -> bool:
    """True if ``new`` may replace ``old`` (Drake's "same value type" rule, see module doc)."""
    if isinstance(old, bool) or isinstance(new, bool):
        return type(old) is type(new)
    if isinstance(old, numbers.Real) and isinstance(new, numbers.Real):
        return True
    return isinstance(new, type(old)) or isinstance(old, type(new))


class GeometryProperties:
    """Grouped properties ``group -> name -> value`` (Drake ``GeometryProperties``).

    The base of the three role property classes; it has no role itself, so it cannot be passed
    to ``assign_role``. Groups and properties iterate in insertion order.
    """

    role: ClassVar[Role] = Role.UNASSIGNED
    '''The role this property class assigns (G-26: the role is inferred from the type).'''

    __slots__ = ('_groups',)

    def __init__(self) -> None:
        self._groups: dict[str, dict[str, Any]] = {}

    # -- groups

    def has_group(self, group: str) -> bool:
        """True if the group exists (it may be empty only if created and emptied)."""
        return group in self._groups

    def num_groups(self) -> int:
        """The number of groups."""
        return len(self._groups)

    def get_group_names(self) -> tuple[str, ...]:
        """The group names, in insertion order."""
        return tuple(self._groups)

    def get_properties_in_group(self, group: str) -> dict[str, Any]:
        """A copy of one group's ``{name: value}`` map.

        Raises:
            UnknownNameError: The group does not exist.
        """
        try:
            return dict(self._groups[group])
        except KeyError:
            raise UnknownNameError(group, 'property group', self._groups) from None

    # -- properties

    def has_property(self, group: str, name: str) -> bool:
        """True if ``(group, name)`` exists."""
        return name in self._groups.get(group, {})

    def add_property(self, group: str, name: str, value: Any) -> None:
        """Adds a new property (Drake ``AddProperty``).

        Raises:
            InvalidArgumentError: ``(group, name)`` already exists, or a name is not a str.
        """
        if not isinstance(group, str) or not isinstance(name, str):
            raise InvalidArgumentError(f'{type(self).__name__}.add_property: group and name '
                                       f'must be str, got {group!r}, {name!r}')
        if self.has_property(group, name):
            raise InvalidArgumentError(
                f'{type(self).__name__}.add_property: property ({group!r}, {name!r}) already '
                'exists; use update_property to change its value')
        self._groups.setdefault(group, {})[name] = value

    def update_property(self, group: str, name: str, value: Any) -> None:
        """Sets a property, adding it if missing (Drake ``UpdateProperty``).

        Raises:
            InvalidArgumentError: The property exists with a value of another kind.
        """
        if self.has_property(group, name):
            old = self._groups[group][name]
            if not _same_kind(old, value):
                raise InvalidArgumentError(
                    f'{type(self).__name__}.update_property: property ({group!r}, {name!r}) '
                    f'holds a {type(old).__name__}, cannot update it with a '
                    f'{type(value).__name__}')
            self._groups[group][name] = value
        else:
            self.add_property(group, name, value)

    def remove_property(self, group: str, name: str) -> bool:
        """Removes a property; returns False if it did not exist (Drake ``RemoveProperty``).

        The group stays (possibly empty), as in Drake.
        """
        props = self._groups.get(group)
        if props is None or name not in props:
            return False
        del props[name]
        return True

    def get_property(self, group: str, name: str) -> Any:
        """The value of ``(group, name)``.

        Raises:
            UnknownNameError: The group or the property does not exist.
        """
        props = self._groups.get(group)
        if props is None:
            raise UnknownNameError(group, 'property group', self._groups)
        if name not in props:
            raise UnknownNameError(name, f'property in group {group!r}', props)
        return props[name]

    def get_property_or_default(self, group: str, name: str, default: Any) -> Any:
        """The value of ``(group, name)``, or ``default`` if it does not exist.

        Raises:
            InvalidArgumentError: The property exists with a value of another kind than
                ``default`` (a ``None`` default accepts any kind).
        """
        props = self._groups.get(group)
        if props is None or name not in props:
            return default
        value = props[name]
        if default is not None and not _same_kind(value, default):
            raise InvalidArgumentError(
                f'{type(self).__name__}.get_property_or_default: property ({group!r}, {name!r}) '
                f'holds a {type(value).__name__}, the default is a {type(default).__name__}')
        return value

    def items(self) -> Iterator[tuple[str, str, Any]]:
        """Every ``(group, name, value)`` in insertion order."""
        for group, props in self._groups.items():
            for name, value in props.items():
                yield group, name, value

    def copy(self) -> Self:
        """A deep copy of the same class (the Drake update pattern copies, edits, replaces)."""
        other = type(self)()
        other._groups = copy.deepcopy(self._groups)
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GeometryProperties) or type(other) is not type(self):
            return NotImplemented
        return self._groups == other._groups

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        body = ', '.join(f'({g!r}, {n!r}): {v!r}' for g, n, v in self.items())
        return f'{type(self).__name__}({{{body}}})'


class ProximityProperties(GeometryProperties):
    """Properties of the proximity role (collision and distance; G-23)."""

    role: ClassVar[Role] = Role.PROXIMITY
    __slots__ = ()


class IllustrationProperties(GeometryProperties):
    """Properties of the illustration role (visualisation; G-24), e.g. :data:`DIFFUSE`."""

    role: ClassVar[Role] = Role.ILLUSTRATION
    __slots__ = ()


class PerceptionProperties(GeometryProperties):
    """Properties of the perception role (rendering; G-25), e.g. :data:`RENDERER_ACCEPTING`."""

    role: ClassVar[Role] = Role.PERCEPTION
    __slots__ = ()


RoleProperties = ProximityProperties | IllustrationProperties | PerceptionProperties
'''Any of the three role property classes.'''

PROPERTIES_CLASS: Mapping[Role, type[RoleProperties]] = {
    Role.PROXIMITY: ProximityProperties,
    Role.ILLUSTRATION: IllustrationProperties,
    Role.PERCEPTION: PerceptionProperties,
}
'''The property class of each assignable role.'''


def make_phong_illustration_properties(rgba: Sequence[float]) -> IllustrationProperties:
    """Illustration properties with the diffuse colour set (Drake ``MakePhongIllustration...``).

    Args:
        rgba: ``(r, g, b, a)``, each in [0, 1].

    Raises:
        InvalidArgumentError: Not four finite values in [0, 1].
    """
    values = tuple(float(v) for v in rgba)
    if len(values) != 4 or not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values):
        raise InvalidArgumentError('make_phong_illustration_properties: rgba must be four '
                                   f'values in [0, 1], got {tuple(rgba)!r}')
    props = IllustrationProperties()
    props.add_property(*DIFFUSE, values)
    return props
