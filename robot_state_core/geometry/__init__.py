"""Geometry: shape specifications and the Drake-style geometry registry (seed S0).

* :mod:`~robot_state_core.geometry.shapes`: frozen shape specs (Box, Sphere, Ellipsoid, ...
  Mesh), one module per shape kind holding all of its math (bounds, support, point distance,
  padding, fcl geometry, the numbers of its URDF, MoveIt and RViz forms) and the registry
  the other layers dispatch through.
* :mod:`~robot_state_core.geometry.meshes`: mesh files (loading, the mesh store, hulls);
  :mod:`~robot_state_core.geometry.triangles`: nearest points and winding numbers of triangles.
* :mod:`~robot_state_core.geometry.roles`: :class:`Role`, :class:`RoleAssign` and the role
  property sets.
* :mod:`~robot_state_core.geometry.scene_graph`: :class:`SceneGraph`, the registry of sources,
  frames and geometries, with ids, versions, collision filters and pose composition.
* :mod:`~robot_state_core.geometry.geometry_state`: the registry's data (Drake's
  ``GeometryState``): records, versions and the collision-filter state.
* :mod:`~robot_state_core.geometry.inspector`: :class:`SceneGraphInspector`, its read-only view.
* :mod:`~robot_state_core.geometry.query_object`: ``QueryObject``, queries on one pose snapshot
  (imported on demand: it is the layer that uses the fcl backend).

Nothing here imports a collision backend (fcl); importing this package needs numpy only.
"""

from __future__ import annotations

from robot_state_core.geometry.inspector import SceneGraphInspector
from robot_state_core.geometry.roles import (
    GeometryProperties,
    IllustrationProperties,
    make_phong_illustration_properties,
    PerceptionProperties,
    ProximityProperties,
    Role,
    RoleAssign,
    RoleProperties,
)
from robot_state_core.geometry.scene_graph import (
    CollisionFilterDeclaration,
    CollisionFilterManager,
    exclude_between,
    exclude_within,
    FrameId,
    FramePoses,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    GeometryVersion,
    ReferenceMesh,
    SceneGraph,
    SourceId,
)
from robot_state_core.geometry.shapes import (
    Box,
    Capsule,
    Cone,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)

__all__ = [
    'Box',
    'Capsule',
    'CollisionFilterDeclaration',
    'CollisionFilterManager',
    'Cone',
    'Convex',
    'Cylinder',
    'Ellipsoid',
    'FrameId',
    'FramePoses',
    'GeometryFrame',
    'GeometryId',
    'GeometryInstance',
    'GeometryProperties',
    'GeometrySet',
    'GeometryVersion',
    'HalfSpace',
    'IllustrationProperties',
    'Mesh',
    'PerceptionProperties',
    'ProximityProperties',
    'ReferenceMesh',
    'Role',
    'RoleAssign',
    'RoleProperties',
    'SceneGraph',
    'SceneGraphInspector',
    'Shape',
    'SourceId',
    'Sphere',
    'exclude_between',
    'exclude_within',
    'make_phong_illustration_properties',
]
