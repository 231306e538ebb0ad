"""Ids, versions and reference meshes of the Drake-style geometry registry (G-04, G-C10, G-16).

The value types shared by :class:`~robot_state_core.geometry.scene_graph.SceneGraph` and its
read-only :class:`~robot_state_core.geometry.inspector.SceneGraphInspector`; both modules import
them from here, so the registry can build its inspector without an import cycle.
:mod:`robot_state_core.geometry.scene_graph` re-exports every name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NewType

from robot_state_core._typing import FloatArray, IntArray
from robot_state_core.errors import InvalidArgumentError
from robot_state_core.geometry.roles import Role

SourceId = NewType('SourceId', int)
'''Identifies a geometry source (the token for every edit; G-05).'''
FrameId = NewType('FrameId', int)
'''Identifies a registered frame (G-10/G-11); ``FrameId(0)`` is the world frame.'''
GeometryId = NewType('GeometryId', int)
'''Identifies a registered geometry (G-13, G-15, G-16).'''

WORLD_FRAME_ID = FrameId(0)
'''The world frame's id, the same in every registry (G-31).'''


@dataclass(frozen=True, slots=True)
class GeometryVersion:
    """One version per role (Drake ``GeometryVersion``; G-C10).

    Equal values for a role guarantee identical data for that role; different values do not
    imply different data.
    """

    proximity: int
    illustration: int
    perception: int

    def get(self, role: Role) -> int:
        """The version of one role (PROXIMITY, ILLUSTRATION or PERCEPTION)."""
        if role == Role.PROXIMITY:
            return self.proximity
        if role == Role.ILLUSTRATION:
            return self.illustration
        if role == Role.PERCEPTION:
            return self.perception
        raise InvalidArgumentError(f'GeometryVersion.get: {role!r} is not a single role')

    def is_same_as(self, other: GeometryVersion, role: Role) -> bool:
        """True if ``role`` has the same version in both (Drake ``IsSameAs``)."""
        return self.get(role) == other.get(role)


@dataclass(frozen=True, slots=True, eq=False)
class ReferenceMesh:
    """The reference (rest) mesh of a deformable geometry (G-16).

    Attributes:
        vertices: ``(V, 3)`` vertex positions [m] in the registered-in frame F (the world).
        faces: ``(T, 3)`` vertex indices of the triangles (``(0, 3)`` when not known).
    """

    vertices: FloatArray
    faces: IntArray


def has_role(flags: Role, role: Role | None) -> bool:
    """``role`` None: any; UNASSIGNED: no role at all; otherwise every bit of ``role``."""
    if role is None:
        return True
    if role == Role.UNASSIGNED:
        return flags == Role.UNASSIGNED
    return (flags & role) == role


__all__ = [
    'WORLD_FRAME_ID',
    'FrameId',
    'GeometryId',
    'GeometryVersion',
    'ReferenceMesh',
    'SourceId',
    'has_role',
]
