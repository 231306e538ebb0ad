"""Seeded, bounded fuzzing of the description loaders (issue 10).

Every case is a mutated URDF or SRDF, run through the whole pipeline an application uses::

    URDF (+ SRDF) text -> RobotModel.from_urdf_string -> RobotState -> FK (default, random and
    every named state) -> PlanningScene (robot geometry, fcl) -> collision check with contacts

and classified:

* ``accepted``: the pipeline ran to the end (warnings allowed);
* ``typed``: a :class:`~robot_state_core.errors.RobotStateCoreError` subclass was raised;
* ``untyped``: any other exception (a defect: its type, message and the last frames are kept);
* ``hang``: the case did not finish within the per-case time limit (its worker is killed);
* ``nonfinite``: an accepted description gave a non-finite link pose;
* ``stderr`` / ``stdout``: bytes written to file descriptor 2 / 1 during the case, captured at
  the descriptor (C libraries write there directly, past ``sys.stderr``).

Cases run in worker processes (``spawn``) that redirect fds 1 and 2 to files and report per
case; the parent enforces the time limit and restarts a killed worker. Case ``i`` of a run is a
pure function of ``(seed, kind, i)``: ``--case urdf:17 --save DIR`` writes it out to reproduce.

Seed corpora: the embedded default robot, MoveIt's OneRobot fixture (``test/
test_moveit_robot_state_port.py``) and example-robot-data's Panda, UR5, Talos and PR2 (the PyPI
package; nothing is copied into this repository). Odd mesh files (a ``.txt``, a broken ``.dae``,
binary STLs with and without a valid size, an empty file, a directory, ...) are generated into a
temporary directory.

Run ``make fuzz`` (or ``python test/fuzz_loaders.py --urdf 5000 --srdf 1000``) for the long
run; ``test/test_fuzz_loaders.py`` runs a few hundred cases in CI.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
import contextlib
import copy
from dataclasses import dataclass, field
import multiprocessing
from multiprocessing.connection import Connection, wait
import os
from pathlib import Path
import random
import struct
import sys
import tempfile
import time
import traceback
from typing import Any

from lxml import etree

HERE = Path(__file__).resolve().parent
#: Per-case time limit [s]: the issue's hang threshold (issue 26: with the other CPU busy).
DEFAULT_TIMEOUT = 5.0
#: Time limit of a case with an added deep chain [s]: the same 5 s. The whole pipeline costs
#: ~0.3 ms per joint, so the longest chain ``make fuzz`` adds (``--max-chain``, 4 000) takes
#: about 1.5 s; longer chains are covered by ``test/test_loader_scaling.py`` (20 000 joints).
DEEP_TIMEOUT = DEFAULT_TIMEOUT
#: Longest added link chain / subgroup chain of ``make fuzz``.
DEFAULT_MAX_CHAIN = 4000
#: Time a worker may take to import and warm its caches (every seed robot, both mesh modes).
STARTUP_TIMEOUT = 600.0

# ----------------------------------------------------------------------------------- seeds


@dataclass(frozen=True)
class Seed:
    """One seed robot: URDF text, SRDF text or ``None``, and how to resolve its meshes."""

    name: str
    urdf: bytes
    srdf: bytes | None
    package_map: dict[str, str]


def load_seeds(names: Sequence[str]) -> list[Seed]:
    """The named seed robots (``default``, ``one_robot``, ``panda``, ``ur5``, ``talos``, ...)."""
    sys.path.insert(0, str(HERE)) if str(HERE) not in sys.path else None
    seeds = []
    for name in names:
        if name == 'default':
            from robot_state_core.io.default_robot import (
                default_robot_srdf_path,
                default_robot_urdf_path,
            )

            seeds.append(Seed(name, default_robot_urdf_path().read_bytes(),
                              default_robot_srdf_path().read_bytes(), {}))
        elif name == 'one_robot':
            from test_moveit_robot_state_port import MODEL2, SMODEL2

            seeds.append(Seed(name, MODEL2.encode(), SMODEL2.encode(), {}))
        else:
            from robot_corpus import test_robot

            robot = test_robot(name)
            seeds.append(Seed(name, robot.urdf_path.read_bytes(),
                              robot.srdf_path.read_bytes() if robot.srdf_path else None,
                              {k: str(v) for k, v in robot.package_map.items()}))
    return seeds


#: Seeds of the CI run (small, fast) and of ``make fuzz``.
CI_SEEDS = ('default', 'one_robot', 'panda', 'ur5')
FULL_SEEDS = ('default', 'one_robot', 'panda', 'ur5', 'talos', 'pr2')


def make_odd_meshes(directory: Path) -> dict[str, str]:
    """Write the odd mesh files into ``directory``; ``{label: path}``."""
    directory.mkdir(parents=True, exist_ok=True)
    triangle = struct.pack('<12fH', 0, 0, 1, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0)
    tetra = [((0, 0, 0), (0.1, 0, 0), (0, 0.1, 0)), ((0, 0, 0), (0, 0, 0.1), (0.1, 0, 0)),
             ((0, 0, 0), (0, 0.1, 0), (0, 0, 0.1)), ((0.1, 0, 0), (0, 0, 0.1), (0, 0.1, 0))]
    tetra_bin = b''.join(struct.pack('<12fH', 0, 0, 0, *a, *b, *c, 0) for a, b, c in tetra)
    files: dict[str, bytes] = {
        'text.txt': b'this is not a mesh\n',
        'broken.dae': b'<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/'
                      b'COLLADASchema" version="1.4.1"><library_geometries><geometry id="g"><mesh',
        'not_collada.dae': b'<?xml version="1.0"?><robot name="x"/>',
        'binary.stl': b'\0' * 80 + struct.pack('<I', 4) + tetra_bin,
        'one_triangle.stl': b'\0' * 80 + struct.pack('<I', 1) + triangle,
        'trailing_bytes.stl': b'\0' * 80 + struct.pack('<I', 4) + tetra_bin + b'\0\0',
        'solid_header.stl': b'solid \xe9\xff binary' + b'\xe9' * 64 + struct.pack('<I', 4)
                            + tetra_bin,
        'truncated.stl': b'\0' * 80 + struct.pack('<I', 4) + tetra_bin[:77],
        'huge_count.stl': b'\0' * 80 + struct.pack('<I', 0xFFFFFFFF) + tetra_bin,
        'empty.stl': b'',
        'nan.stl': b'solid x\nfacet normal 0 0 1\nouter loop\nvertex nan 0 0\nvertex 1 0 0\n'
                   b'vertex 0 1 0\nendloop\nendfacet\nendsolid x\n',
        'flat.obj': b'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n',
        'cube.obj': b''.join(f'v {x} {y} {z}\n'.encode() for x in (0, .1) for y in (0, .1)
                             for z in (0, .1)) + b'f 1 2 4\nf 1 4 3\nf 5 7 8\nf 5 8 6\n'
                                                 b'f 1 5 6\nf 1 6 2\nf 3 4 8\nf 3 8 7\n'
                                                 b'f 1 3 7\nf 1 7 5\nf 2 6 8\nf 2 8 4\n',
        'garbage.obj': bytes(range(256)) * 4,
        'garbage.ply': b'ply\nformat binary_little_endian 1.0\nelement vertex 99999999\n'
                       b'property float x\nend_header\n\x00\x01',
        'garbage.glb': b'glTF\x02\x00\x00\x00\xff\xff\xff\x7f',
        'no_suffix': b'\0' * 80 + struct.pack('<I', 4) + tetra_bin,
    }
    out = {}
    for label, data in files.items():
        (directory / label).write_bytes(data)
        out[label] = str(directory / label)
    (directory / 'directory.stl').mkdir(exist_ok=True)
    out['directory.stl'] = str(directory / 'directory.stl')
    out['missing.stl'] = str(directory / 'missing.stl')
    return out


# ----------------------------------------------------------------------------------- mutations

NUMBERS = ('nan', '-nan', 'NaN', 'inf', '-inf', 'Infinity', '1e308', '-1e308', '1e309',
           '-0', '0', '-0.0', '5e-324', '1e-300', '-1', '-1e6', '1e6', '1e16', '4294967296',
           '1_000', '+1', '.5', '1.', '0x10', '1e', '--1', '', ' ', '1 2', '1 2 3 4',
           '\t1\n', 'true', 'abc', '1.0abc', '3.14159265358979323846264338327950288')
NAMES = ('', ' ', 'ü', '名前', 'a\u200bb', '🤖', '\u202eevil', 'e\u0301', '\ufeffx', 'a b',
         'a/b', '..', 'x' * 3000, '\u00a0', '0', 'world', 'base_link')
JOINT_TYPES = ('fixed', 'revolute', 'continuous', 'prismatic', 'planar', 'floating',
               'rpy_floating', 'ball', '', 'REVOLUTE', 'unknown', ' revolute')
VIRTUAL_TYPES = ('fixed', 'planar', 'floating', 'rpy_floating', 'Floating', 'floting', '')
QUATERNION_VALUES = ('0 0 0 0 0 0 0', '1 2 3 0 0 0 0', '0 0 0 0 0 0 1e-200',
                     '0 0 0 1e-300 1e-300 1e-300 1e-300', '0 0 0 1e200 0 0 0',
                     '0 0 0 0 0 0 1e308', '0 0 0 nan 0 0 1', '0 0 0 0 0 0 inf',
                     '0 0 0 0 0 0 2', '0 0 0 0 0 0 -1', '0 0 0 0.5 0.5 0.5 0.5',
                     '0 0 0 0 0 0', '0 0 0 0 0 0 1 1', '1e308 1e308 1e308 0 0 0 1')

_URDF_SNIPPETS = (
    '<mimic joint="{joint}" multiplier="{num}" offset="{num}"/>',
    '<safety_controller soft_lower_limit="{num}" soft_upper_limit="{num}" k_position="{num}" '
    'k_velocity="{num}"/>',
    '<calibration rising="{num}" falling="{num}" reference_position="{num}"/>',
    '<limit lower="{num}" upper="{num}" effort="{num}" velocity="{num}"/>',
    '<axis xyz="{num} {num} {num}"/>',
    '<origin xyz="{num} 0 0" rpy="0 {num} 0"/>',
    '<dynamics damping="{num}" friction="{num}" D="1" mu_coulomb="2"/>',
    '<visual><geometry><capsule radius="{num}" length="{num}"/></geometry></visual>',
    '<collision><geometry><box size="{num} {num} {num}"/></geometry></collision>',
    '<collision><geometry><sphere radius="{num}"/></geometry></collision>',
    '<collision><geometry><cylinder radius="{num}" length="{num}"/></geometry></collision>',
    '<collision><geometry><mesh filename="{mesh}" scale="{num} {num} {num}"/></geometry>'
    '</collision>',
    '<visual><geometry><mesh filename="{mesh}"/></geometry><material name="{name}">'
    '<color rgba="{num} 0 0 1"/><texture/></material></visual>',
    '<inertial><mass value="{num}"/><inertia ixx="{num}" ixy="0" ixz="0" iyy="1" iyz="0" '
    'izz="1"/></inertial>',
    '<link name="{name}"/>',
    '<joint name="{name}" type="{jtype}"><parent link="{link}"/><child link="{link}"/>'
    '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>',
    '<transmission name="t"><joint name="{joint}"/></transmission>',
    '<gazebo reference="{link}"><mu1>0.2</mu1></gazebo>',
    '<ros2_control name="x" type="system"/>',
    '<foo bar="1"><baz/></foo>',
    '<material name="{name}"><color rgba="{num} {num} {num} {num}"/></material>',
)

_SRDF_SNIPPETS = (
    '<group name="{name}"><joint name="{joint}"/><link name="{link}"/>'
    '<chain base_link="{link}" tip_link="{link}"/><group name="{group}"/></group>',
    '<group_state name="{name}" group="{group}"><joint name="{joint}" value="{num}"/>'
    '</group_state>',
    '<virtual_joint name="{name}" type="{vtype}" parent_frame="world" child_link="{link}"/>',
    '<end_effector name="{name}" parent_link="{link}" group="{group}" parent_group="{group}"/>',
    '<passive_joint name="{joint}"/>',
    '<disable_collisions link1="{link}" link2="{link}" reason="{name}"/>',
    '<disable_default_collisions link="{link}"/>',
    '<enable_collisions link1="{link}" link2="{link}"/>',
    '<link_sphere_approximation link="{link}"><sphere center="0 0 0" radius="{num}"/>'
    '</link_sphere_approximation>',
    '<joint_property joint_name="{joint}" property_name="motion_model" value="holonomic"/>',
    '<unknown_element/>',
)


def _elements(root: Any) -> list[Any]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _names(root: Any, tag: str) -> list[str]:
    return [str(e.get('name')) for e in root.iter(tag) if e.get('name') is not None]


class Mutator:
    """Structure-aware mutations of one URDF or SRDF tree (``rng`` drives every choice)."""

    def __init__(self, rng: random.Random, meshes: dict[str, str], urdf_root: Any) -> None:
        self.rng = rng
        self.meshes = meshes
        self.links = _names(urdf_root, 'link') or ['base_link']
        self.joints = [str(e.get('name')) for e in urdf_root.findall('joint')
                       if e.get('name')] or ['joint']

    # -- value pools
    def number(self) -> str:
        rng = self.rng
        return rng.choice(NUMBERS) if rng.random() < 0.7 else repr(rng.uniform(-10, 10))

    def name(self, pool: Sequence[str]) -> str:
        return self.rng.choice(pool) if self.rng.random() < 0.7 else self.rng.choice(NAMES)

    def mesh_uri(self) -> str:
        rng = self.rng
        path = rng.choice(sorted(self.meshes.values()))
        return rng.choice((
            path, 'file://' + path, 'file://' + path, 'package://no_such_package/m.stl',
            'package:///m.stl', 'package://', 'package://robot_state_core/../../../etc/passwd',
            'http://127.0.0.1:9/m.stl', '', 'm.stl', '/dev/zero', 'file:///proc/self/environ',
            'file://' + path.replace('/', '//'), 'file://' + path + '%00.stl'))

    def fill(self, template: str, groups: Sequence[str] = ()) -> str:
        def esc(text: str) -> str:
            return text.replace('&', '&amp;').replace('"', '&quot;').replace('<', '&lt;')

        text = template
        for key, make in (('{num}', self.number), ('{joint}', lambda: self.name(self.joints)),
                          ('{link}', lambda: self.name(self.links)),
                          ('{name}', lambda: self.name(self.links + self.joints)),
                          ('{group}', lambda: self.name(list(groups) or ['g'])),
                          ('{jtype}', lambda: self.rng.choice(JOINT_TYPES)),
                          ('{vtype}', lambda: self.rng.choice(VIRTUAL_TYPES)),
                          ('{mesh}', self.mesh_uri)):
            while key in text:
                text = text.replace(key, esc(make()), 1)
        return text

    # -- tree operators (each returns a short description)
    def delete_attribute(self, root: Any) -> str:
        candidates = [e for e in _elements(root) if e.attrib]
        if not candidates:
            return 'noop'
        el = self.rng.choice(candidates)
        key = self.rng.choice(sorted(el.attrib))
        del el.attrib[key]
        return f'delete @{key} of <{el.tag}>'

    def delete_element(self, root: Any) -> str:
        candidates = _elements(root)[1:]
        if not candidates:
            return 'noop'
        el = self.rng.choice(candidates)
        el.getparent().remove(el)
        return f'delete <{el.tag}>'

    def duplicate_element(self, root: Any) -> str:
        candidates = _elements(root)[1:]
        if not candidates:
            return 'noop'
        el = self.rng.choice(candidates)
        el.addnext(copy.deepcopy(el))
        return f'duplicate <{el.tag}>'

    def set_value(self, root: Any) -> str:
        candidates = [e for e in _elements(root) if e.attrib]
        if not candidates:
            return 'noop'
        el = self.rng.choice(candidates)
        key = self.rng.choice(sorted(el.attrib))
        value = el.get(key)
        if key in ('name', 'link', 'joint', 'parent', 'child', 'group', 'link1', 'link2',
                   'parent_link', 'child_link', 'base_link', 'tip_link', 'parent_group'):
            new = self.name(self.links + self.joints)
        elif key == 'type':
            new = self.rng.choice(JOINT_TYPES + VIRTUAL_TYPES)
        elif key == 'filename':
            new = self.mesh_uri()
        else:
            tokens = (value or '0').split() or ['0']
            tokens[self.rng.randrange(len(tokens))] = self.number()
            new = ' '.join(tokens) if self.rng.random() < 0.8 else self.number()
        try:
            el.set(key, new)
        except ValueError:  # a character XML cannot hold
            return 'noop'
        return f'<{el.tag} {key}={new[:40]!r}>'

    def insert_snippet(self, root: Any, snippets: Sequence[str], groups: Sequence[str]) -> str:
        parent = self.rng.choice([root] * 3 + _elements(root))
        text = self.fill(self.rng.choice(snippets), groups)
        try:
            el = etree.fromstring(text)
        except etree.XMLSyntaxError:
            return 'noop'
        parent.insert(self.rng.randrange(len(parent) + 1), el)
        return f'insert <{el.tag}> into <{parent.tag}>'

    def swap_mesh(self, root: Any) -> str:
        meshes = list(root.iter('mesh'))
        if not meshes:
            return self.insert_snippet(root.find('link') if root.find('link') is not None
                                       else root, _URDF_SNIPPETS[11:12], ())
        el = self.rng.choice(meshes)
        el.set('filename', self.mesh_uri())
        if self.rng.random() < 0.3:
            el.set('scale', ' '.join(self.number() for _ in range(self.rng.choice((1, 2, 3)))))
        return f'mesh {el.get("filename")[-30:]!r} scale {el.get("scale")!r}'

    def deep_urdf_chain(self, root: Any, depth: int) -> str:
        anchor = self.rng.choice(self.links)
        previous = anchor
        for i in range(depth):
            link = f'deep_{i}'
            etree.SubElement(root, 'link', name=link)
            joint = etree.SubElement(root, 'joint', name=f'deep_joint_{i}',
                                     type=self.rng.choice(('revolute', 'fixed', 'prismatic')))
            etree.SubElement(joint, 'parent', link=previous)
            etree.SubElement(joint, 'child', link=link)
            etree.SubElement(joint, 'origin', xyz='0 0 0.001')
            etree.SubElement(joint, 'limit', lower='-1', upper='1', effort='1', velocity='1')
            previous = link
        return f'chain of {depth} joints under {anchor!r}'

    def deep_xml_nesting(self, root: Any, depth: int) -> str:
        parent = self.rng.choice(_elements(root))
        for _ in range(depth):
            parent = etree.SubElement(parent, self.rng.choice(('foo', 'link', 'group')))
        return f'{depth} nested elements'

    def deep_subgroups(self, root: Any, depth: int) -> str:
        order = self.rng.choice(('parents first', 'children first', 'cycle'))
        groups = []
        for i in range(depth):
            g = etree.Element('group', name=f'deep_{i}')
            if i + 1 < depth or order == 'cycle':
                etree.SubElement(g, 'group', name=f'deep_{(i + 1) % depth}')
            else:
                etree.SubElement(g, 'joint', name=self.rng.choice(self.joints))
            groups.append(g)
        if order == 'children first':
            groups.reverse()
        for g in groups:
            root.append(g)
        state = etree.SubElement(root, 'group_state', name='deep_state', group='deep_0')
        etree.SubElement(state, 'joint', name=self.rng.choice(self.joints), value='0.1')
        return f'{depth} nested subgroups, {order}'

    def floating_state(self, root: Any) -> str:
        """A floating virtual joint and a group state with an odd quaternion (issue 10 item 1)."""
        child = self.rng.choice(self.links[:1] * 3 + self.links)
        for vj in root.findall('virtual_joint'):
            root.remove(vj)
        etree.SubElement(root, 'virtual_joint', name='fuzz_vj', type='floating',
                         parent_frame='world', child_link=child)
        group = etree.SubElement(root, 'group', name='fuzz_base')
        etree.SubElement(group, 'joint', name='fuzz_vj')
        state = etree.SubElement(root, 'group_state', name='fuzz_pose', group='fuzz_base')
        value = self.rng.choice(QUATERNION_VALUES)
        etree.SubElement(state, 'joint', name='fuzz_vj', value=value)
        return f'floating group state {value!r}'


def _byte_mutation(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    choice = rng.randrange(6)
    if choice == 0 and data:
        cut = rng.randrange(len(data))
        return data[:cut], f'truncate at {cut}'
    if choice == 1 and data:
        buf = bytearray(data)
        flips = rng.randint(1, 8)
        for _ in range(flips):
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
        return bytes(buf), f'{flips} bit flips'
    if choice == 2:
        text = data.decode('utf-8', 'replace')
        return text.encode(rng.choice(('utf-16', 'utf-16-be', 'utf-32', 'utf-8-sig'))), 'encoding'
    if choice == 3:
        return rng.choice((b'\n\n  ', b'\xef\xbb\xbf', b'<!-- c -->', b'<?pi x?>', b'\x00')) \
            + data, 'prefix'
    if choice == 4 and data:
        i = rng.randrange(len(data))
        junk = rng.choice((b'\xff\xfe', b'\xc3', b'&amp;', b'&#0;', b'&#x1F916;', b'<', b']]>',
                           '\u202e'.encode(), b'\r\n', b'&unknown;', b'<![CDATA[x]]>'))
        return data[:i] + junk + data[i:], 'inject bytes'
    return data.replace(b'\n', b'\r\n'), 'CRLF'


@dataclass(frozen=True)
class Case:
    """One generated case: the documents to load and what was done to them."""

    kind: str  # 'urdf' or 'srdf'
    index: int
    seed_name: str
    urdf: bytes
    srdf: bytes | None
    package_map: dict[str, str]
    mutations: tuple[str, ...]
    deep: bool = False
    mesh_mode: str = 'exact'


def generate_case(kind: str, index: int, run_seed: int, seeds: Sequence[Seed],
                  meshes: dict[str, str], max_chain: int = 1500) -> Case:
    """Case ``index`` of kind ``'urdf'`` or ``'srdf'``: a pure function of its arguments."""
    rng = random.Random(f'{run_seed}:{kind}:{index}')
    seed = rng.choice([s for s in seeds if kind == 'urdf' or s.srdf is not None])
    urdf_root = etree.fromstring(seed.urdf.lstrip())
    mutator = Mutator(rng, meshes, urdf_root)
    target = urdf_root if kind == 'urdf' else etree.fromstring((seed.srdf or b'').lstrip())
    groups = _names(target, 'group') if kind == 'srdf' else []
    snippets = _URDF_SNIPPETS if kind == 'urdf' else _SRDF_SNIPPETS
    done: list[str] = []
    deep = False
    byte_level = rng.random() < 0.15
    for _ in range(rng.choice((1, 1, 2, 3, 5))):
        roll = rng.random()
        if roll < 0.03:
            depth = rng.choice((300, 2000, rng.randint(2, 300)))
            done.append(mutator.deep_xml_nesting(target, depth))
        elif roll < 0.06:
            depth = rng.randint(2, max_chain)
            deep = deep or depth > 200
            done.append(mutator.deep_urdf_chain(target, depth) if kind == 'urdf'
                        else mutator.deep_subgroups(target, depth))
        elif roll < 0.14 and kind == 'srdf':
            done.append(mutator.floating_state(target))
        elif roll < 0.22 and kind == 'urdf':
            done.append(mutator.swap_mesh(target))
        elif roll < 0.34:
            done.append(mutator.delete_attribute(target))
        elif roll < 0.44:
            done.append(mutator.delete_element(target))
        elif roll < 0.52:
            done.append(mutator.duplicate_element(target))
        elif roll < 0.80:
            done.append(mutator.set_value(target))
        else:
            done.append(mutator.insert_snippet(target, snippets, groups))
    data = etree.tostring(target, encoding='utf-8', xml_declaration=rng.random() < 0.5)
    if byte_level:
        data, what = _byte_mutation(rng, data)
        done.append(what)
    urdf, srdf = (data, seed.srdf) if kind == 'urdf' else (seed.urdf, data)
    mesh_mode = 'convex' if rng.random() < 0.2 else 'exact'
    return Case(kind, index, seed.name, urdf, srdf, seed.package_map, tuple(done), deep,
                mesh_mode)


# ----------------------------------------------------------------------------------- pipeline


class NonFinitePoseError(Exception):
    """An accepted description produced a non-finite link pose (a defect)."""


def run_pipeline(case: Case) -> str:
    """Run one case end to end; returns the stage reached (raises what the code raises)."""
    import numpy as np

    from robot_state_core.model.robot_model import RobotModel
    from robot_state_core.scene.planning_scene import CollisionRequest, PlanningScene
    from robot_state_core.state.robot_state import RobotState

    model = RobotModel.from_urdf_string(case.urdf, case.srdf, source=f'{case.kind}-{case.index}',
                                        package_map=case.package_map)
    state = RobotState(model, rng=max(case.index, 0))

    def check(what: str) -> None:
        poses = np.stack([state.get_global_link_transform(i) for i in range(model.link_count)])
        if not np.all(np.isfinite(poses)):
            raise NonFinitePoseError(f'non-finite link pose at {what}')

    check('default positions')
    for _ in range(2):
        state.set_to_random_positions()
        check('random positions')
    for name in model.group_names:
        for named in model.group(name).named_states:
            state.set_to_default_values(name, named)
            check(f'named state {named!r} of group {name!r}')
    scene = PlanningScene(model, mesh_mode=case.mesh_mode)  # type: ignore[arg-type]
    scene.check_collision(state, CollisionRequest(contacts=True, max_contacts=10))
    return 'collision'


@dataclass
class Outcome:
    """What one case did."""

    kind: str
    index: int
    seed_name: str
    status: str  # accepted | typed | untyped | nonfinite | hang
    error_type: str = ''
    message: str = ''
    where: str = ''
    stderr: bytes = b''
    stdout: bytes = b''
    seconds: float = 0.0
    mutations: tuple[str, ...] = ()
    cpu_seconds: float = 0.0


@contextlib.contextmanager
def _captured_fds(sink: dict[str, bytes]) -> Iterator[None]:
    """Redirect fds 1 and 2 to temporary files for the block; their bytes go to ``sink``."""
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    files = {fd: tempfile.TemporaryFile() for fd in (1, 2)}  # noqa: SIM115 - closed below
    try:
        for fd, f in files.items():
            os.dup2(f.fileno(), fd)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None).fflush(None)
        for fd in (1, 2):
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
            files[fd].seek(0)
            sink['stdout' if fd == 1 else 'stderr'] = files[fd].read()
            files[fd].close()


def run_case(case: Case) -> Outcome:
    """Run one case in this process with fds 1 and 2 captured."""
    from robot_state_core.errors import RobotStateCoreError

    out = Outcome(case.kind, case.index, case.seed_name, 'accepted', mutations=case.mutations)
    sink: dict[str, bytes] = {}
    start, cpu = time.perf_counter(), time.process_time()
    with _captured_fds(sink):
        try:
            run_pipeline(case)
        except NonFinitePoseError as exc:
            out.status, out.message = 'nonfinite', str(exc)
        except RobotStateCoreError as exc:
            out.status, out.error_type, out.message = 'typed', type(exc).__name__, str(exc)[:300]
        except Exception as exc:
            out.status, out.error_type, out.message = 'untyped', type(exc).__name__, \
                str(exc)[:300]
            frames = traceback.extract_tb(exc.__traceback__)[-3:]
            out.where = ' <- '.join(f'{Path(f.filename).name}:{f.lineno} {f.name}'
                                    for f in reversed(frames))
    out.seconds = time.perf_counter() - start
    out.cpu_seconds = time.process_time() - cpu
    out.stderr, out.stdout = sink.get('stderr', b''), sink.get('stdout', b'')
    return out


# ----------------------------------------------------------------------------------- workers


def _worker(conn: Connection, seed_names: Sequence[str], meshes: dict[str, str],
            run_seed: int, max_chain: int) -> None:
    """Worker process: generate and run the cases the parent names, one at a time."""
    startup: dict[str, bytes] = {}
    cpu = time.process_time()
    with _captured_fds(startup):
        seeds = load_seeds(seed_names)
        for seed in seeds:  # warm the mesh caches: a case's time is then its own work
            for mode in ('exact', 'convex'):
                with contextlib.suppress(Exception):
                    run_pipeline(Case('urdf', -1, seed.name, seed.urdf, seed.srdf,
                                      seed.package_map, (), mesh_mode=mode))
    conn.send(('ready', (startup.get('stderr', b'') + startup.get('stdout', b''),
                         time.process_time() - cpu)))
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        kind, index = job
        case = generate_case(kind, index, run_seed, seeds, meshes, max_chain)
        conn.send(('start', case.deep))
        conn.send(('done', run_case(case)))


@dataclass
class _Slot:
    process: Any = None
    conn: Any = None
    ready: bool = False
    job: tuple[str, int] | None = None
    started: float = 0.0
    limit: float = 0.0


@dataclass
class Report:
    """Figures of one fuzz run."""

    outcomes: list[Outcome] = field(default_factory=list)
    startup_output: bytes = b''
    seconds: float = 0.0
    startup_cpu_seconds: float = 0.0

    def cpu_summary(self) -> str:
        """CPU time of the workers: start-up (imports, warm caches) and the cases."""
        cases = sum(o.cpu_seconds for o in self.outcomes)
        return (f'worker CPU: {self.startup_cpu_seconds:.1f} s start-up, {cases:.1f} s cases '
                f'({1e3 * cases / max(1, len(self.outcomes)):.0f} ms per case)')

    def table(self) -> str:
        """The figures per kind, as a Markdown table."""
        rows = ['| kind | cases | accepted | typed errors | untyped | hangs | non-finite FK '
                '| stderr bytes | stdout bytes |', '|---|---|---|---|---|---|---|---|---|']
        for kind in ('urdf', 'srdf'):
            mine = [o for o in self.outcomes if o.kind == kind]
            if not mine:
                continue
            count = Counter(o.status for o in mine)
            rows.append(f"| {kind} | {len(mine)} | {count['accepted']} | {count['typed']} | "
                        f"{count['untyped']} | {count['hang']} | {count['nonfinite']} | "
                        f'{sum(len(o.stderr) for o in mine)} | '
                        f'{sum(len(o.stdout) for o in mine)} |')
        return '\n'.join(rows)

    def failures(self) -> list[Outcome]:
        """Every case that broke a rule."""
        return [o for o in self.outcomes
                if o.status in ('untyped', 'hang', 'nonfinite') or o.stderr or o.stdout]


def run_fuzz(urdf_cases: int, srdf_cases: int, *, run_seed: int = 0,
             seed_names: Sequence[str] = CI_SEEDS, jobs: int = 2,
             timeout: float = DEFAULT_TIMEOUT, max_chain: int = 1500,
             mesh_dir: Path | None = None,
             progress: Callable[[int, int], None] | None = None) -> Report:
    """Run the cases in ``jobs`` worker processes; see the module docstring."""
    context = multiprocessing.get_context('spawn')
    with contextlib.ExitStack() as stack:
        if mesh_dir is None:
            mesh_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix='fuzz_')))
        meshes = make_odd_meshes(mesh_dir)
        todo: list[tuple[str, int]] = [('urdf', i) for i in range(urdf_cases)] + \
            [('srdf', i) for i in range(srdf_cases)]
        todo.reverse()
        total = len(todo)
        report = Report()
        start = time.monotonic()
        slots = [_Slot() for _ in range(max(1, jobs))]

        def spawn(slot: _Slot) -> None:  # non-blocking: the worker says 'ready' when warm
            parent, child = context.Pipe()
            slot.process = context.Process(target=_worker, args=(
                child, tuple(seed_names), meshes, run_seed, max_chain), daemon=True)
            slot.process.start()
            child.close()
            slot.conn, slot.job, slot.ready = parent, None, False
            slot.started, slot.limit = time.monotonic(), STARTUP_TIMEOUT

        def kill(slot: _Slot) -> None:
            slot.process.kill()
            slot.process.join()
            slot.conn.close()

        def finish(slot: _Slot, outcome: Outcome) -> None:
            if outcome.seconds > slot.limit and outcome.status != 'hang':
                outcome.status, outcome.message = 'hang', (
                    f'finished only after {outcome.seconds:.1f} s (limit {slot.limit:g} s): '
                    f'{outcome.message}')
            report.outcomes.append(outcome)
            slot.job = None

        for slot in slots:
            spawn(slot)
        try:
            while todo or any(s.job is not None for s in slots):
                for slot in slots:
                    if slot.ready and slot.job is None and todo:
                        slot.job = todo.pop()
                        slot.started, slot.limit = time.monotonic(), timeout
                        slot.conn.send(slot.job)
                for conn in wait([s.conn for s in slots], timeout=0.2):
                    slot = next(s for s in slots if s.conn is conn)
                    try:
                        tag, payload = conn.recv()
                    except EOFError:  # the worker died (a crash in C code, or at start-up)
                        code = slot.process.exitcode
                        if slot.job is not None:
                            kind, index = slot.job
                            finish(slot, Outcome(kind, index, '?', 'untyped', 'WorkerDied',
                                                 f'exit code {code}'))
                        elif not slot.ready:
                            raise RuntimeError(f'fuzz worker failed to start (exit code '
                                               f'{code})') from None
                        kill(slot)
                        spawn(slot)
                        continue
                    if tag == 'ready':
                        output, cpu = payload
                        report.startup_output += output
                        report.startup_cpu_seconds += cpu
                        slot.ready = True
                    elif tag == 'start':  # an added deep chain: linear, but slow
                        slot.limit = max(timeout, DEEP_TIMEOUT) if payload else timeout
                    else:
                        finish(slot, payload)
                now = time.monotonic()
                for slot in slots:
                    if now <= slot.started + slot.limit or slot.conn.poll():
                        continue
                    if not slot.ready:
                        raise RuntimeError(f'fuzz worker not ready after {slot.limit:g} s')
                    if slot.job is not None:
                        kind, index = slot.job
                        report.outcomes.append(Outcome(
                            kind, index, '?', 'hang',
                            message=f'killed after {now - slot.started:.1f} s'))
                        kill(slot)
                        spawn(slot)
                if progress is not None:
                    progress(len(report.outcomes), total)
        finally:
            for slot in slots:
                with contextlib.suppress(Exception):
                    slot.conn.send(None)
                slot.process.join(timeout=5)
                if slot.process.is_alive():
                    kill(slot)
        report.seconds = time.monotonic() - start
        report.outcomes.sort(key=lambda o: (o.kind, o.index))
        hangs = [o for o in report.outcomes if o.seed_name == '?']
        if hangs:  # describe them: cases are pure functions of (seed, kind, index)
            seeds = load_seeds(seed_names)
            for o in hangs:
                case = generate_case(o.kind, o.index, run_seed, seeds, meshes, max_chain)
                o.seed_name, o.mutations = case.seed_name, case.mutations
        return report


def describe_failure(o: Outcome) -> str:
    """One line per failing case (what to reproduce with ``--case``)."""
    out = f'{o.kind}:{o.index} [{o.seed_name}] {o.status}'
    if o.error_type:
        out += f' {o.error_type}: {o.message[:200]}'
    elif o.message:
        out += f' {o.message[:200]}'
    if o.where:
        out += f' at {o.where}'
    if o.stderr:
        out += f' stderr={o.stderr[:200]!r}'
    if o.stdout:
        out += f' stdout={o.stdout[:200]!r}'
    return out + f' | {"; ".join(o.mutations)[:200]}'


def main(argv: list[str] | None = None) -> int:
    """``python test/fuzz_loaders.py`` (see ``--help``)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--urdf', type=int, default=5000, help='URDF cases (default 5000)')
    parser.add_argument('--srdf', type=int, default=1000, help='SRDF cases (default 1000)')
    parser.add_argument('--seed', type=int, default=1, help='run seed (default 1)')
    parser.add_argument('--jobs', type=int, default=2, help='worker processes (default 2)')
    parser.add_argument('--timeout', type=float, default=DEFAULT_TIMEOUT,
                        help='per-case limit [s] (default %(default)s)')
    parser.add_argument('--max-chain', type=int, default=DEFAULT_MAX_CHAIN,
                        help='longest added link chain / subgroup chain (default %(default)s)')
    parser.add_argument('--robots', default=','.join(FULL_SEEDS), help='seed robots')
    parser.add_argument('--case', help="run one case, e.g. 'urdf:17', in this process")
    parser.add_argument('--save', type=Path, help='with --case: write the documents here')
    ns = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    robots = ns.robots.split(',')
    if ns.case:
        kind, _, index = ns.case.partition(':')
        mesh_dir = Path(tempfile.gettempdir()) / 'robot_state_core_fuzz_meshes'
        case = generate_case(kind, int(index), ns.seed, load_seeds(robots),
                             make_odd_meshes(mesh_dir), ns.max_chain)
        print(f'{ns.case}: seed robot {case.seed_name}; ' + '; '.join(case.mutations))
        if ns.save:
            ns.save.mkdir(parents=True, exist_ok=True)
            (ns.save / f'{kind}_{index}.urdf').write_bytes(case.urdf)
            if case.srdf is not None:
                (ns.save / f'{kind}_{index}.srdf').write_bytes(case.srdf)
        print(describe_failure(run_case(case)))
        return 0

    shown = set()

    def progress(done: int, total: int) -> None:
        if done and (done % 250 == 0 or done == total) and done not in shown:
            shown.add(done)
            print(f'  {done}/{total} cases', file=sys.stderr, flush=True)

    report = run_fuzz(ns.urdf, ns.srdf, run_seed=ns.seed, seed_names=robots, jobs=ns.jobs,
                      timeout=ns.timeout, max_chain=ns.max_chain, progress=progress)
    print(f'fuzz run: seed {ns.seed}, robots {ns.robots}, {ns.jobs} workers, per-case limit '
          f'{ns.timeout:g} s, {report.seconds:.0f} s in all')
    print(report.table())
    print(report.cpu_summary())
    print('typed errors by type:', dict(Counter(o.error_type for o in report.outcomes
                                                if o.status == 'typed').most_common()))
    failures = report.failures()
    kinds = Counter((o.kind, o.status, o.error_type) for o in failures)
    print('failures:', dict(kinds) or 'none')
    for key in kinds:
        for o in [f for f in failures if (f.kind, f.status, f.error_type) == key][:8]:
            print(describe_failure(o))
    slow = sorted(report.outcomes, key=lambda o: -o.seconds)[:5]
    print('slowest cases:', ', '.join(f'{o.kind}:{o.index} {o.seconds:.1f} s' for o in slow))
    if report.startup_output:
        print(f'worker start-up output: {report.startup_output[:300]!r}')
    return 1 if failures or report.startup_output else 0


if __name__ == '__main__':
    sys.exit(main())
