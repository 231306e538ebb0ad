"""MoveIt's ``.scene`` text format: world objects with shapes, poses, colours and subframes.

MoveIt saves and loads a planning scene's world objects as text (``PlanningScene::
saveGeometryToStream`` / ``loadGeometryFromStream``; the MoveIt Setup Assistant and RViz's
"Export/Import" buttons write and read these files). Two formats exist; a reader tells them
apart by the line after the first ``* <id>`` line: the new format's object pose line holds
three numbers, the old format's shape count one.

New format (MoveIt >= 1.1)::

    <scene name>
    * <object id>
    <x> <y> <z>                   object pose: translation
    <qx> <qy> <qz> <qw>           and rotation
    <N>                           number of shapes, then N times:
    <shape>                       type word and its numbers (below)
    <x> <y> <z>                   shape pose in the object frame
    <qx> <qy> <qz> <qw>
    <r> <g> <b> <a>               the object's colour ("0 0 0 0": none)
    <M>                           number of subframes, then M times:
    <name>
    <x> <y> <z>                   subframe pose in the object frame
    <qx> <qy> <qz> <qw>
    * <next object id> ...
    .

The old format has no object pose lines (the object pose is the identity) and no subframe
section. Shapes (geometric_shapes' ``saveAsText``): ``sphere`` radius; ``box`` x y z;
``cylinder`` radius length; ``cone`` radius length; ``mesh`` V T, then V vertex lines and T
triangle lines; ``plane`` a b c d.

Ours differs from MoveIt's where docs/decisions.md says (S-rows): numbers are written with 17
significant digits (MoveIt: 6), so a save/load round trip is exact; quaternions are normalised
on reading (MoveIt uses them as written); ``plane`` shapes are refused (we have no two-sided
infinite plane; a half-space is solid); a malformed text raises :class:`SceneFileError` naming
its line, and nothing is applied (MoveIt returns false, possibly after adding some objects).

This module parses and writes text only; :meth:`robot_state_core.scene.planning_scene.
PlanningScene.load_geometry_text` and ``save_geometry_text`` apply it to a scene.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
import math

import numpy as np

from robot_state_core._typing import FloatArray
from robot_state_core.errors import RobotStateCoreError, SceneFileError
from robot_state_core.geometry.shapes import module_of, Shape, SHAPE_MODULES
from robot_state_core.spatial.transforms import (
    check_quat_xyzw,
    pose_from_xyz_quat_xyzw,
    quat_xyzw_from_rotation,
)

__all__ = ['SceneText', 'SceneTextObject', 'format_scene_text', 'parse_scene_text']

_SHAPES = {m.MOVEIT_SHAPE: m for m in SHAPE_MODULES.values() if m.MOVEIT_SHAPE is not None}
'''The shape kinds of the format, by keyword (each module's ``MOVEIT_SHAPE``).'''


@dataclass(frozen=True)
class SceneTextObject:
    """One object of a ``.scene`` text.

    Attributes:
        id: The object id.
        X_WO: ``(4, 4)`` object pose (identity in the old format).
        shapes: ``((shape, X_OS), ...)``.
        color: ``(r, g, b, a)``, or ``None`` when every component is 0 (MoveIt: no colour).
        subframes: ``{name: X_OF}`` (the new format's).
    """

    id: str
    X_WO: FloatArray
    shapes: tuple[tuple[Shape, FloatArray], ...] = ()
    color: tuple[float, float, float, float] | None = None
    subframes: dict[str, FloatArray] = field(default_factory=dict)


@dataclass(frozen=True)
class SceneText:
    """A parsed ``.scene`` text.

    Attributes:
        name: The scene name (first line).
        objects: The objects, in file order.
        old_format: The text was in the old format (no object poses, no subframes).
    """

    name: str
    objects: tuple[SceneTextObject, ...]
    old_format: bool


class _Reader:
    """Whitespace-separated tokens with their line numbers, and MoveIt's rest-of-line reads."""

    def __init__(self, lines: list[str], start: int) -> None:
        self._lines = lines
        self._row = start  # index into lines
        self._col = 0

    @property
    def line(self) -> int:
        """The 1-based line of the next token (or of the end)."""
        self._skip_blank()
        return min(self._row, len(self._lines) - 1) + 1

    def _skip_blank(self) -> None:
        while self._row < len(self._lines):
            text = self._lines[self._row]
            while self._col < len(text) and text[self._col].isspace():
                self._col += 1
            if self._col < len(text):
                return
            self._row, self._col = self._row + 1, 0

    def token(self, what: str) -> str:
        self._skip_blank()
        if self._row >= len(self._lines):
            raise SceneFileError(f'the text ends where {what} was expected (no "." line?)',
                                 line=len(self._lines))
        text = self._lines[self._row]
        end = self._col
        while end < len(text) and not text[end].isspace():
            end += 1
        out, self._col = text[self._col:end], end
        return out

    def rest_of_line(self) -> str:
        text = self._lines[self._row] if self._row < len(self._lines) else ''
        out = text[self._col:].strip()
        self._row, self._col = self._row + 1, 0
        return out

    def number(self, what: str) -> float:
        line = self.line
        text = self.token(what)
        try:
            value = float(text)
        except ValueError:
            raise SceneFileError(f'{what}: expected a number, got {text!r}', line=line) from None
        if not math.isfinite(value):
            raise SceneFileError(f'{what}: {text!r} is not finite', line=line)
        return value

    def count(self, what: str) -> int:
        line = self.line
        text = self.token(what)
        if not text.isdigit():
            raise SceneFileError(f'{what}: expected a count, got {text!r}', line=line)
        return int(text)

    def pose(self, what: str) -> FloatArray:
        line = self.line
        xyz = [self.number(f'{what} (x y z)') for _ in range(3)]
        quat = [self.number(f'{what} (qx qy qz qw)') for _ in range(4)]
        try:
            check_quat_xyzw(quat, what, 'the rotation')
        except RobotStateCoreError as err:
            raise SceneFileError(str(err), line=line) from err
        return pose_from_xyz_quat_xyzw(xyz, quat)


def _is_new_format(lines: list[str]) -> bool:
    """MoveIt's test: the line after the first ``*`` line holds a space (an x y z line)."""
    for k, line in enumerate(lines[1:], start=1):
        if line.lstrip().startswith('*'):
            following = lines[k + 1].strip() if k + 1 < len(lines) else ''
            return ' ' in following or '\t' in following
    return True


def _positive(reader: _Reader, what: str) -> float:
    line = reader.line
    value = reader.number(what)
    if value <= 0.0:
        raise SceneFileError(f'{what} must be > 0, got {value!r}', line=line)
    return value


def _shape(reader: _Reader, object_id: str) -> Shape:
    line = reader.line
    kind = reader.token('a shape type')
    where = f'object {object_id!r}: {kind}'
    module = _SHAPES.get(kind)
    if module is not None and module.MESH_FILE:  # a mesh: its triangles
        n_vertices = reader.count(f'{where} vertex count')
        n_triangles = reader.count(f'{where} triangle count')
        vertices = [reader.number(f'{where} vertex') for _ in range(3 * n_vertices)]
        faces = [reader.count(f'{where} triangle index') for _ in range(3 * n_triangles)]
        try:
            mesh: Shape = module.from_arrays(np.reshape(vertices, (-1, 3)),
                                             np.reshape(faces, (-1, 3)), where)
        except RobotStateCoreError as err:
            raise SceneFileError(str(err), line=line) from err
        return mesh
    if module is not None:  # a primitive: its numbers, each > 0
        primitive: Shape = module.from_scene_file(
            [_positive(reader, f'{where} {name}') for name in module.SCENE_FILE_FIELDS])
        return primitive
    if kind == 'plane':
        raise SceneFileError(f'{where}: plane shapes are not supported (docs/decisions.md)',
                             line=line)
    raise SceneFileError(f'object {object_id!r}: unknown shape type {kind!r}', line=line)


def parse_scene_text(text: str) -> SceneText:
    """Parse a ``.scene`` text (either format; module docstring).

    Raises:
        SceneFileError: The text is empty, truncated or malformed; the message names the line.
    """
    if not isinstance(text, str):
        raise SceneFileError(f'a scene text is a str, got {type(text).__name__}')
    lines = text.splitlines()
    if not lines:
        raise SceneFileError('the text is empty (a scene name line and a "." line are needed)',
                             line=1)
    new_format = _is_new_format(lines)
    reader = _Reader(lines, 1)
    objects: list[SceneTextObject] = []
    while True:
        line = reader.line
        marker = reader.token('"*" (an object) or "." (the end)')
        if marker == '.':
            return SceneText(lines[0].strip(), tuple(objects), not new_format)
        if marker.startswith('*'):
            object_id = (marker[1:] + ' ' + reader.rest_of_line()).strip()
            if not object_id:
                raise SceneFileError('an object without an id', line=line)
            objects.append(_object(reader, object_id, new_format))
            continue
        raise SceneFileError(f'unknown marker {marker!r} (expected "*" or ".")', line=line)


def _object(reader: _Reader, object_id: str, new_format: bool) -> SceneTextObject:
    X_WO = reader.pose(f'object {object_id!r} pose') if new_format else np.eye(4)
    shapes = []
    color: tuple[float, float, float, float] | None = None
    for k in range(reader.count(f'object {object_id!r} shape count')):
        shape = _shape(reader, object_id)
        X_OS = reader.pose(f'object {object_id!r} shape {k} pose')
        r, g, b, a = (reader.number(f'object {object_id!r} shape {k} colour (r g b a)')
                      for _ in range(4))
        if r > 0 or g > 0 or b > 0 or a > 0:
            color = (r, g, b, a)
        shapes.append((shape, X_OS))
    subframes: dict[str, FloatArray] = {}
    if new_format:
        for _ in range(reader.count(f'object {object_id!r} subframe count')):
            name = reader.token(f'object {object_id!r} subframe name')
            subframes[name] = reader.pose(f'object {object_id!r} subframe {name!r} pose')
    return SceneTextObject(object_id, X_WO, tuple(shapes), color, subframes)


def _numbers(values: Iterable[float]) -> str:
    return ' '.join(repr(float(v)) for v in values)


def _pose_lines(X: FloatArray) -> Iterator[str]:
    yield _numbers(X[:3, 3])
    yield _numbers(quat_xyzw_from_rotation(X[:3, :3]))


def _shape_lines(shape: Shape, object_id: str) -> Iterator[str]:
    module = module_of(shape, 'format_scene_text')
    if module.MOVEIT_SHAPE is not None and module.MESH_FILE:  # a mesh: its triangles
        vertices, faces = module.read_triangles(shape)
        yield module.MOVEIT_SHAPE
        yield f'{len(vertices)} {len(faces)}'
        yield from (_numbers(v) for v in vertices)
        yield from (' '.join(str(int(i)) for i in f) for f in faces)
    elif module.MOVEIT_SHAPE is not None:
        yield module.MOVEIT_SHAPE
        yield _numbers(module.scene_file_numbers(shape))
    else:
        raise SceneFileError(f'object {object_id!r}: a {type(shape).__name__} has no form in the '
                             'MoveIt scene format (sphere, box, cylinder, cone and mesh have)')


def format_scene_text(name: str, objects: Iterable[SceneTextObject]) -> str:
    """The ``.scene`` text (new format) of ``objects``, in the order given.

    Raises:
        SceneFileError: A shape the format cannot hold (ellipsoid, capsule, half-space, convex
            hull).
    """
    out = [name]
    for obj in objects:
        out.append(f'* {obj.id}')
        out.extend(_pose_lines(obj.X_WO))
        out.append(str(len(obj.shapes)))
        color = _numbers(obj.color) if obj.color is not None else '0 0 0 0'
        for shape, X_OS in obj.shapes:
            out.extend(_shape_lines(shape, obj.id))
            out.extend(_pose_lines(X_OS))
            out.append(color)
        out.append(str(len(obj.subframes)))
        for sub, X_OF in obj.subframes.items():
            out.append(sub)
            out.extend(_pose_lines(X_OF))
    out.append('.')
    return '\n'.join(out) + '\n'
