"""Issue 10, loader items: unusable group-state values, deep nesting, odd mesh files.

Every failure of a description is a typed error naming the element (or file) and the reason,
with nothing written to stdout or stderr. The seeded fuzz test of the same pipeline is
``test/test_fuzz_loaders.py``.
"""

from __future__ import annotations

import math
from pathlib import Path
import struct
import sys

import numpy as np
import pytest

from robot_state_core.errors import XacroError
from robot_state_core.io.srdf import parse_srdf
from robot_state_core.io.urdf import load_urdf_string, save_urdf
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.scene.planning_scene import PlanningScene
from robot_state_core.state.robot_state import RobotState

#: Two links, a revolute joint between them.
ARM = '''<robot name="arm">
  <link name="base"/>
  <link name="tool">{geometry}</link>
  <joint name="elbow" type="revolute"><parent link="base"/><child link="tool"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>'''


# ------------------------------------------------------------------ item 1: group-state values


FLOATING_SRDF = '''<robot name="arm">
  <virtual_joint name="base_joint" type="floating" parent_frame="world" child_link="base"/>
  <group name="body"><joint name="base_joint"/></group>
  <group_state name="zero" group="body"><joint name="base_joint" value="1 2 3 0 0 0 0"/>
  </group_state>
  <group_state name="tiny" group="body">
    <joint name="base_joint" value="0 0 0 1e-200 0 0 1e-200"/></group_state>
  <group_state name="huge" group="body"><joint name="base_joint" value="0 0 0 1e200 0 0 0"/>
  </group_state>
  <group_state name="far" group="body"><joint name="base_joint" value="1e308 0 0 0 0 0 1"/>
  </group_state>
  <group_state name="non_unit" group="body">
    <joint name="base_joint" value="1 2 3 0 0 0 2"/></group_state>
</robot>'''


def test_unusable_floating_joint_group_state_values_are_dropped(
        capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 10 item 1 (decisions.md L14): no rotation, or an overflowing translation: dropped.

    The parser keeps the values (they are finite numbers); the model, which knows the joint is
    floating, leaves them out of the state with one warning each. The non-unit quaternion is a
    rotation: stored as written and normalized when applied, as MoveIt does.
    """
    model = RobotModel.from_urdf_string(ARM.format(geometry=''), FLOATING_SRDF)
    states = model.group('body').named_states
    assert set(states) == {'non_unit'}
    assert states['non_unit']['base_joint/rot_w'] == 2.0
    dropped = [w for w in model.srdf_warnings if 'ignored' in w]
    assert len(dropped) == 4
    for name in ('zero', 'tiny', 'huge'):
        assert any(f'group_state {name!r}' in w and 'no rotation' in w for w in dropped)
    assert any("group_state 'far'" in w and 'beyond 1e+09 m' in w for w in dropped)
    state = RobotState(model)
    state.set_to_default_values('body', 'non_unit')
    X = state.get_global_link_transform('tool')
    # Closed form: the identity rotation (0 0 0 2 normalized) at (1, 2, 3), tool 0.5 m above.
    np.testing.assert_allclose(X, [[1, 0, 0, 1], [0, 1, 0, 2], [0, 0, 1, 3.5], [0, 0, 0, 1]],
                               atol=1e-15)
    assert capfd.readouterr() == ('', '')


# ------------------------------------------------------------------ item 10: deep nesting


def test_deep_subgroup_chain_parents_first() -> None:
    """Issue 10 item 10: 1 500 nested groups, parents first in the file, load and apply."""
    depth = 1500
    groups = ''.join(f'<group name="g{i}"><group name="g{i + 1}"/></group>'
                     for i in range(depth))
    srdf = (f'<robot name="arm">{groups}<group name="g{depth}"><joint name="elbow"/></group>'
            '<group_state name="up" group="g0"><joint name="elbow" value="0.25"/></group_state>'
            '</robot>')
    assert depth > sys.getrecursionlimit()
    model = RobotModel.from_urdf_string(ARM.format(geometry=''), srdf)
    assert len(model.group_names) == depth + 1
    assert model.group('g0').joint_names == ('elbow',)
    state = RobotState(model)
    assert state.set_to_default_values('g0', 'up')
    assert state.get_variable_position('elbow') == 0.25


def test_more_groups_than_the_limit_is_a_typed_error() -> None:
    """The subgroup relation is quadratic: beyond MAX_GROUPS the model refuses (L16)."""
    from robot_state_core.errors import SrdfLoadError
    from robot_state_core.io.srdf import MAX_GROUPS

    groups = ''.join(f'<group name="g{i}"><joint name="elbow"/></group>'
                     for i in range(MAX_GROUPS + 1))
    srdf = f'<robot name="arm">{groups}</robot>'
    assert len(parse_srdf(srdf).groups) == MAX_GROUPS + 1  # parsing has no limit
    with pytest.raises(SrdfLoadError, match=f'{MAX_GROUPS + 1} groups; at most {MAX_GROUPS}'):
        RobotModel.from_urdf_string(ARM.format(geometry=''), srdf)


def test_deep_link_chain_loads_without_recursion() -> None:
    """A chain deeper than Python's recursion limit: loader, scene graph, model, FK, export."""
    depth = sys.getrecursionlimit() + 500
    links = ''.join(f'<link name="l{i}"/>' for i in range(depth + 1))
    joints = ''.join(f'<joint name="j{i}" type="revolute"><parent link="l{i}"/>'
                     f'<child link="l{i + 1}"/><origin xyz="0 0 0.001"/><axis xyz="0 0 1"/>'
                     '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
                     for i in range(depth))
    result = load_urdf_string(f'<robot name="deep">{links}{joints}</robot>')
    graph = result.scene_graph
    assert graph.is_tree() and graph.is_acyclic()
    assert len(graph.get_shortest_path('l0', f'l{depth}').joints) == depth
    assert len(graph.clone().get_links()) == depth + 1
    assert save_urdf(graph).count('<joint ') == depth
    model = RobotModel.from_scene_graph(graph)
    X = RobotState(model).get_global_link_transform(f'l{depth}')
    assert X[2, 3] == pytest.approx(depth * 0.001, rel=1e-12)  # closed form: a straight chain


def test_self_calling_xacro_macro_is_a_typed_error(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A macro that calls itself: xacro recurses until Python's limit; a typed error, quiet.

    (The ``xacro`` command fails on it too: it prints the RecursionError and exits 2.)
    """
    path = tmp_path / 'loop.urdf.xacro'
    path.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
                    '  <xacro:macro name="m" params="n"><link name="l${n}"/>'
                    '<xacro:m n="${n+1}"/></xacro:macro>\n'
                    '  <xacro:m n="0"/>\n</robot>\n', encoding='utf-8')
    with pytest.raises(XacroError) as info:
        RobotModel.from_urdf_file(path)
    assert 'nested too deeply' in str(info.value)
    assert info.value.file == str(path)
    assert capfd.readouterr() == ('', '')


# ------------------------------------------------------------------ item 12: odd mesh files


def _tetra_binary_stl(header: bytes = b'\0' * 80, trailing: bytes = b'') -> bytes:
    tris = [((0, 0, 0), (0.1, 0, 0), (0, 0.1, 0)), ((0, 0, 0), (0, 0, 0.1), (0.1, 0, 0)),
            ((0, 0, 0), (0, 0.1, 0), (0, 0, 0.1)), ((0.1, 0, 0), (0, 0, 0.1), (0, 0.1, 0))]
    body = b''.join(struct.pack('<12fH', 0, 0, 0, *a, *b, *c, 0) for a, b, c in tris)
    return header[:80].ljust(80, b' ') + struct.pack('<I', len(tris)) + body + trailing


#: (file name, content or None for a directory, expected error fragment or None if it loads).
ODD_MESHES = [
    ('mesh.txt', b'this is not a mesh\n', 'mesh.txt'),
    ('broken.dae', b'<?xml version="1.0"?><COLLADA><library_geometries><geometry', 'broken.dae'),
    ('empty.stl', b'', 'empty.stl'),
    ('binary.stl', _tetra_binary_stl(), None),
    # A binary STL whose header starts with "solid" (SolidWorks writes them): binary by size.
    ('solid_header.stl', _tetra_binary_stl(b'solid \xe9\xff exported'), None),
    # Size mismatch: read as ASCII, whose non-UTF-8 header needs charset-normalizer (issue 10).
    ('trailing.stl', _tetra_binary_stl(b'\xe9\xff' * 40, b'\0\0'), 'trailing.stl'),
]


@pytest.mark.parametrize(('name', 'content', 'fragment'), ODD_MESHES,
                         ids=[m[0] for m in ODD_MESHES])
def test_odd_mesh_files_load_or_fail_typed_and_quietly(
        tmp_path: Path, name: str, content: bytes, fragment: str | None,
        capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 10 item 12: no NotImplementedError/DaeMalformedError, no missing module.

    A file that cannot be read is left out of the collision geometry with a warning naming it
    (MoveIt's behaviour, decision V8); the link keeps its other geometry.
    """
    path = tmp_path / name
    path.write_bytes(content)
    geometry = f'<collision><geometry><mesh filename="{path.as_uri()}"/></geometry></collision>'
    model = RobotModel.from_urdf_string(ARM.format(geometry=geometry))
    state = RobotState(model)  # bounding boxes read the mesh too: a broken one is skipped
    scene = PlanningScene(model)
    assert scene.check_collision(state).collision is False
    if fragment is None:
        assert scene.geometry.skipped == ()
    else:
        assert len(scene.geometry.skipped) == 1
        (line,) = scene.geometry.unreadable
        assert fragment in line and 'No module named' not in line
    assert capfd.readouterr() == ('', '')


def test_a_directory_named_like_a_mesh_is_unresolved(tmp_path: Path) -> None:
    """A directory is no mesh file: reported as unresolved, the model loads."""
    (tmp_path / 'part.stl').mkdir()
    uri = (tmp_path / 'part.stl').as_uri()
    geometry = f'<collision><geometry><mesh filename="{uri}"/></geometry></collision>'
    model = RobotModel.from_urdf_string(ARM.format(geometry=geometry))
    assert model.unresolved_meshes == (uri,)
    assert math.isfinite(RobotState(model).get_global_link_transform('tool')[2, 3])


def test_degenerate_quaternion_warning_is_a_parse_free_model_rule() -> None:
    """The SRDF parser alone keeps the values (it does not know joint types)."""
    srdf = parse_srdf(FLOATING_SRDF)
    assert {s.name for s in srdf.group_states} == {'zero', 'tiny', 'huge', 'far', 'non_unit'}
    assert srdf.warnings == ()
