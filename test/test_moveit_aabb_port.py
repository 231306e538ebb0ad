"""MoveIt's robot bounding-box tests, ported (expected numbers verbatim).

Origin: ``moveit/moveit2``, ``moveit_core/robot_state/test/test_aabb.cpp`` (``TestAABB``).

MoveIt loads ``moveit_resources``' PR2 (``pr2_description/urdf/robot.xml``); we use
example-robot-data's PR2, whose files differ: its ``base_footprint`` has no collision box (so
``TestPR2``'s ``base_footprint`` extents/offset have no counterpart), and its default pose and
forearm mesh give other numbers for the whole-robot box and ``l_forearm_link``. From
``TestPR2`` we port what both files share (``base_link``'s ``base_L.stl``, identical numbers)
and check the whole-robot box of example-robot-data's PR2 against an independent oracle
(Pinocchio placements, Coal's mesh vertices, closed-form boxes). ``TestSimple`` uses the same
``base_L.stl`` from example-robot-data.

MoveIt's ``computeAABB`` bounds each link's shapes by one link-frame box and then boxes that
rotated box; ours bounds every shape exactly (decisions.md, RobotState section). The two agree
whenever links are rotated by multiples of 90° (all of ``TestSimple`` and ``TestComplex``);
otherwise ours lies inside MoveIt's, which the PR2 test checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pinocchio_oracle
import pytest
import robot_corpus

from robot_state_core.model.robot_model import RobotModel
from robot_state_core.state.attached_body import aabb_of_shapes, ShapeExtents
from robot_state_core.state.robot_state import RobotState

TOL = 1e-4
'''test_aabb.cpp tolerance.'''
ORACLE_TOL = 1e-9
'''Our box against the oracle's (same vertices, different arithmetic).'''
BASE_L = 'package://example-robot-data/robots/pr2_description/meshes/base_v0/base_L.stl'


def _state(model: RobotModel) -> RobotState:
    """test_aabb.cpp ``loadModel``: default values, ``update(true)``."""
    state = RobotState(model)
    state.set_to_default_values()
    state.update(force=True)
    return state


def _link_box(model: RobotModel, link: str) -> tuple[np.ndarray, np.ndarray]:
    """MoveIt ``getShapeExtentsAtOrigin`` and ``getCenteredBoundingBoxOffset`` of a link."""
    collisions = model.link(link).collisions
    box = aabb_of_shapes(ShapeExtents.from_shapes([c.geometry for c in collisions]),
                         np.stack([c.origin for c in collisions]))
    return box[1::2] - box[0::2], 0.5 * (box[1::2] + box[0::2])


@pytest.fixture(scope='module')
def pr2() -> tuple[RobotModel, Any]:
    r = robot_corpus.test_robot('pr2')
    return RobotModel.from_urdf_file(r.urdf_path, r.srdf_path, package_map=r.package_map), r


def test_pr2_base_link_box(pr2: tuple[RobotModel, Any]) -> None:
    """TestAABB.TestPR2: ``base_link``'s extents and offset.

    "The 3D mesh isn't centered, but is whole above z axis"; example-robot-data ships the same
    ``base_L.stl``.
    """
    model, _ = pr2
    extents, offset = _link_box(model, 'base_link')
    np.testing.assert_allclose(extents, [0.668242, 0.668242, 0.656175], atol=TOL)
    np.testing.assert_allclose(offset, [0.0, 0.0, 0.656175 / 2], atol=TOL)


def test_pr2_whole_robot_box_against_an_oracle(pr2: tuple[RobotModel, Any]) -> None:
    """TestAABB.TestPR2's ``computeAABB`` on example-robot-data's PR2.

    Other files than MoveIt's, so other numbers; at the default pose and at a random one.

    Equal to the exact box from Pinocchio's geometry placements and Coal's mesh vertices, and
    strictly inside the box of MoveIt's per-link method (the default pose bends the elbows:
    MoveIt's default is the middle of the soft limits when 0 is outside them).
    """
    pin = pytest.importorskip('pinocchio')
    model, robot = pr2
    state = _state(model)
    share = robot_corpus.example_robot_data_share()
    pm = pin.buildModelFromUrdf(str(robot.urdf_path))
    gm = pin.buildGeomFromUrdf(pm, str(robot.urdf_path), pin.GeometryType.COLLISION,
                               package_dirs=[str(share.parent), str(share)])
    data, gdata = pm.createData(), pin.GeometryData(gm)
    moveit_gap = []
    for _ in range(2):
        pin.updateGeometryPlacements(pm, data, gm, gdata, pinocchio_oracle.to_pinocchio_q(
            model, pm, state.positions))
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        for k, g in enumerate(gm.geometryObjects):
            X = gdata.oMg[k]
            R, p = np.asarray(X.rotation), np.asarray(X.translation)
            if hasattr(g.geometry, 'halfSide'):  # a box: |R| times the half extents
                half = np.abs(R) @ np.asarray(g.geometry.halfSide)
                lo, hi = np.minimum(lo, p - half), np.maximum(hi, p + half)
            else:  # a mesh: its vertices
                v = np.asarray(g.geometry.vertices()) @ R.T + p
                lo, hi = np.minimum(lo, v.min(axis=0)), np.maximum(hi, v.max(axis=0))
        ours = state.compute_aabb()
        np.testing.assert_allclose(ours, np.ravel(np.column_stack([lo, hi])), atol=ORACLE_TOL)
        # MoveIt's computeAABB: each link's origin box (extents, centred offset), transformed.
        m_lo, m_hi = np.full(3, np.inf), np.full(3, -np.inf)
        for i, link in enumerate(model.links):
            if link.collisions:
                extents, offset = _link_box(model, model.link_names[i])
                X_WL = state.get_global_link_transform(i)
                centre = X_WL[:3, :3] @ offset + X_WL[:3, 3]
                half = 0.5 * np.abs(X_WL[:3, :3]) @ extents
                m_lo, m_hi = np.minimum(m_lo, centre - half), np.maximum(m_hi, centre + half)
        assert np.all(ours[0::2] >= m_lo - ORACLE_TOL)
        assert np.all(ours[1::2] <= m_hi + ORACLE_TOL)
        moveit_gap.append(max(np.max(ours[0::2] - m_lo), np.max(m_hi - ours[1::2])))
        for group in ('arms', 'torso', 'head'):  # not the base: Pinocchio's model has no
            state.set_to_random_positions(group, rng=np.random.default_rng(7))  # world_joint
    assert min(moveit_gap) > 1e-3  # elbows and wrists are turned in both poses


SIMPLE_URDF = f'''<?xml version="1.0"?>
<robot name="simple">
  <link name="base_footprint">
    <collision><origin xyz="0 0 0.071"/><geometry><box size="0.001 0.001 0.001"/></geometry>
    </collision>
  </link>
  <link name="base_link">
    <collision><origin xyz="0 0 0"/><geometry><mesh filename="{BASE_L}"/></geometry>
    </collision>
  </link>
  <joint name="base_footprint-base_link" type="fixed">
    <parent link="base_footprint"/><child link="base_link"/><origin xyz="0 0 0.051"/>
  </joint>
</robot>'''

COMPLEX_URDF = '''<?xml version="1.0"?>
<robot name="complex">
  <link name="base_footprint">
    <collision><origin xyz="-5.0 0 -1.0" rpy="0 1.5708 0"/>
      <geometry><box size="0.1 1.0 0.1"/></geometry></collision>
  </link>
  <link name="base_link">
    <collision><origin xyz="5.0 0 1.0" rpy="0 0 1.5708"/>
      <geometry><box size="1.0 0.1 0.1"/></geometry></collision>
    <collision><origin xyz="4.0 0 1.0" rpy="0 0 1.5708"/>
      <geometry><box size="1.0 0.1 0.1"/></geometry></collision>
  </link>
  <joint name="base_footprint-base_link" type="fixed">
    <parent link="base_footprint"/><child link="base_link"/>
    <origin xyz="0 0 1.0" rpy="0 0 1.5708"/>
  </joint>
</robot>'''

# Both builders add a planar virtual joint and a group holding it.
BUILDER_SRDF = '''<?xml version="1.0"?>
<robot name="{name}">
  <virtual_joint name="world_joint" type="planar" parent_frame="odom_combined"
                 child_link="base_footprint"/>
  <group name="base"><joint name="world_joint"/></group>
</robot>'''


def test_simple() -> None:
    """TestAABB.TestSimple: a mesh above a small offset box.

    The RobotModelBuilder inputs written as URDF; ``base_L.stl`` from example-robot-data.
    """
    model = RobotModel.from_urdf_string(SIMPLE_URDF, BUILDER_SRDF.format(name='simple'),
                                        package_map=robot_corpus.package_map())
    aabb = _state(model).compute_aabb()
    assert aabb.shape == (6,)
    np.testing.assert_allclose(aabb, [-0.6682 / 2, 0.6682 / 2, -0.6682 / 2, 0.6682 / 2,
                                      0.0510, 0.7071], atol=TOL)


def test_complex() -> None:
    """TestAABB.TestComplex: offset, rotated boxes on a rotated link.

    The builder's pose keeps the yaw quaternion it was given for the joint, so both
    ``base_link`` boxes are turned too.
    """
    model = RobotModel.from_urdf_string(COMPLEX_URDF, BUILDER_SRDF.format(name='complex'))
    state = _state(model)
    extents, offset = _link_box(model, 'base_footprint')
    np.testing.assert_allclose(extents, [0.1, 1.0, 0.1], atol=TOL)
    np.testing.assert_allclose(offset, [-5.0, 0.0, -1.0], atol=TOL)
    extents, offset = _link_box(model, 'base_link')
    np.testing.assert_allclose(extents, [1.1, 1.0, 0.1], atol=TOL)
    np.testing.assert_allclose(offset, [4.5, 0.0, 1.0], atol=TOL)
    aabb = state.compute_aabb()
    assert aabb.shape == (6,)
    np.testing.assert_allclose(aabb, [-5.05, 0.5, -0.5, 5.05, -1.05, 2.05], atol=TOL)
