"""Static checks of the package's import structure (issue 11).

The module import graph is built with :mod:`ast` from every
``robot_state_core/**/*.py`` file, counting top-level imports and imports inside
functions (and inside ``try``/``if`` blocks). Imports under ``if TYPE_CHECKING:``
never execute and are left out; they serve annotations of names the module imports
lazily (the CLI's viewer types). Two rules are enforced:

* the graph has no cycles, and the packages form layers: a module imports only
  modules of its own folder or of the folders below it in :data:`LAYERS`;
* no function-level import of a ``robot_state_core`` module is used to dodge a
  cycle; the only ones allowed are lazy imports of optional dependencies (ROS) or
  of heavy ones a command may not need (the viewer's viser, numba), listed in
  :data:`LAZY_IMPORT_ALLOW_LIST`, each with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = 'robot_state_core'
PACKAGE_DIR = Path(__file__).resolve().parents[1] / PACKAGE

# The folders of the package from the bottom up: each may import only from those before it
# (and from its own folder). The package's ``__init__`` (the public API) and ``__main__`` sit on
# top. Function-level imports on the allow list below are exempt (optional dependencies).
LAYERS: tuple[str, ...] = (
    'errors',  # the exception hierarchy
    '_typing',  # array aliases and checks
    'jit',  # the numba decorator and the kernel cache directory
    'spatial',  # rotations, quaternions, rpy, SE(3)
    'geometry',  # shapes, meshes, the Drake-style registry, proximity queries (python-fcl)
    'description',  # links, joints + joint motions, tesseract scene graph, ACM
    'io',  # URDF / SRDF / xacro loaders and resources
    'model',  # the compiled RobotModel, groups, Drake RpyFloatingJoint
    'kinematics',  # plan, FK, Jacobians, configuration space, bounds
    'ik',  # numerical IK
    'state',  # RobotState, attached bodies, text formatting
    'scene',  # robot geometry, planning scene, constraints, ACM generation
    'publishing',  # ROS-free TF / marker cores, the demo joint sweep
    'reach',  # reach studies: targets, evaluators, the study, its executors (REACH)
    'viewer',  # the browser viewer
    'ros',  # rclpy nodes and message conversions
    'apps',  # the command line
)

# (importing module, imported module) -> why the import is function-level.
LAZY_IMPORT_ALLOW_LIST: dict[tuple[str, str], str] = {
    ('robot_state_core.spatial.composition', 'robot_state_core.spatial.compiled'): (
        'start-up time: numba costs 0.4-0.7 s to import; the composition kernels are imported '
        'on the first composition, not with the package'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.ros.main'): (
        'ROS (rclpy) is optional: `robot-state-core check/fk/ik/...` and '
        '`import robot_state_core` must work without a ROS installation'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.ros.viewer_node'): (
        'ROS (rclpy) is optional: only `view --follow-ros` needs it'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.viewer.app'): (
        'start-up time: viser costs ~0.4 s to import; only `view` and `snapshot` need it, '
        'not `run` (which starts the nodes) or `fk`/`ik`/`check`'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.viewer.browser'): (
        'start-up time: only `snapshot` drives the headless browser'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.viewer.snapshot'): (
        'start-up time: only `snapshot` drives the headless browser'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.scene.planning_scene'): (
        'start-up time: the planning scene (python-fcl, proximity queries, ~0.07-0.15 s) is '
        'needed by `collide` here and by the services, which `run` prepares only after its '
        'first /tf_static; importing it with the CLI delayed that message'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.scene.acm_generation'): (
        'start-up time: only `gen-acm` generates an ACM; importing it (and the planning scene '
        "it builds on) with the CLI delayed `run`'s first /tf_static"
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.ros.reach_node'): (
        'ROS (rclpy) is optional: only `reach --ros` needs it'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.reach.config'): (
        'start-up time: only `reach` reads a study (YAML, targets, evaluators, the planning '
        "scene); importing it with the CLI delayed `run`'s first /tf_static"
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.reach.executors'): (
        'start-up time: only `reach` runs a study (process pools, Ray)'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.reach.results'): (
        'start-up time: only `reach` and `reach-compare` read study results'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.reach.study'): (
        'start-up time: only `reach` runs a study (the planning scene, python-fcl)'
    ),
    ('robot_state_core.apps.entry', 'robot_state_core.apps.cli'): (
        'signals: the console scripts install their SIGINT/SIGTERM handler before importing '
        'anything heavy, so a Ctrl-C during the imports exits 0 (issue 25)'
    ),
    ('robot_state_core.apps.entry', 'robot_state_core.ros.main'): (
        'signals: as above, and ROS (rclpy) is optional for the package'
    ),
    ('robot_state_core.apps.cli', 'robot_state_core.apps.kernel_workload'): (
        'start-up time: only `warm-kernels` runs the kernel workload, which imports numba and '
        'every compiled kernel module'
    ),
    ('robot_state_core.kinematics.plan', 'robot_state_core.kinematics.compiled'): (
        'start-up time: the compiled kernels import numba (0.4-0.7 s); `import '
        "robot_state_core` and a node's first /tf_static (fixed joints, no FK) must not wait "
        'for it, so the first FK/Jacobian call imports it (plan.compiled_kernels)'
    ),
    ('robot_state_core.geometry.fcl_backend', 'robot_state_core.geometry.compiled'): (
        'start-up time: the compiled broad phase imports numba (0.4-0.7 s); `import '
        'robot_state_core` and a node that never checks collisions must not wait for it, so '
        'the first FclObjects imports it (fcl_backend.compiled_broadphase)'
    ),
    ('robot_state_core.ik.search', 'robot_state_core.ik.compiled'): (
        'start-up time: the compiled IK iteration imports numba (0.4-0.7 s); `import '
        'robot_state_core` must not wait for it, so the first IK request imports it '
        '(search.ik_kernels, before the request clock starts)'
    ),
}


@dataclass(frozen=True)
class ImportEdge:
    """One import of a package module by another.

    Attributes:
        importer: Dotted name of the importing module.
        imported: Dotted name of the imported package module.
        line: Line number of the import statement.
        function_level: True when the import sits inside a function body.
    """

    importer: str
    imported: str
    line: int
    function_level: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _all_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE_DIR.rglob('*.py'))}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """Map ``a.b.c`` (module, or attribute of a module) to the package module it names."""
    while name:
        if name in modules:
            return name
        name = name.rpartition('.')[0]
    return None


def _is_type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == 'TYPE_CHECKING') or (
        isinstance(test, ast.Attribute) and test.attr == 'TYPE_CHECKING'
    )


def _walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        if _is_type_checking_block(child):
            continue  # annotation-only imports never run, so they cannot form a runtime cycle
        is_function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        inside = in_function or is_function
        yield child, inside
        yield from _walk(child, inside)


def _edges() -> list[ImportEdge]:
    modules = _all_modules()
    edges: list[ImportEdge] = []
    for importer, path in modules.items():
        is_package = path.name == '__init__.py'
        tree = ast.parse(path.read_text(encoding='utf-8'), filename=str(path))
        for node, in_function in _walk(tree, False):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ''
                if node.level:
                    anchor = importer if is_package else importer.rpartition('.')[0]
                    for _ in range(node.level - 1):
                        anchor = anchor.rpartition('.')[0]
                    base = f'{anchor}.{base}' if base else anchor
                # `from pkg import sub` may name a submodule.
                targets = [f'{base}.{alias.name}' for alias in node.names] or [base]
            for target in targets:
                if not target.startswith(PACKAGE):
                    continue
                resolved = _resolve(target, modules)
                if resolved is None or resolved == importer:
                    continue
                edges.append(ImportEdge(importer, resolved, node.lineno, in_function))
    return list(dict.fromkeys(edges))


def _cycles(edges: list[ImportEdge]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.importer, set()).add(edge.imported)
        graph.setdefault(edge.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_graph_sees_the_package() -> None:
    """The scanner finds the modules and the imports it must judge."""
    edges = _edges()
    importers = {edge.importer for edge in edges}
    assert 'robot_state_core.model.robot_model' in importers
    assert 'robot_state_core.ros.state_server_node' in importers
    assert any(
        edge.importer == 'robot_state_core.apps.cli'
        and edge.imported == 'robot_state_core.ros.main'
        for edge in edges
    )


def test_scanner_detects_a_cycle() -> None:
    """The cycle finder reports a two-module cycle (guards the check itself)."""
    edges = [
        ImportEdge('a', 'b', 1, False),
        ImportEdge('b', 'c', 1, True),
        ImportEdge('c', 'a', 1, False),
        ImportEdge('c', 'd', 1, False),
    ]
    assert _cycles(edges) == [['a', 'b', 'c']]


def test_no_import_cycles() -> None:
    """No cycle among the package's modules; every cycle found is reported."""
    edges = _edges()
    cycles = _cycles(edges)
    report = []
    for component in cycles:
        members = set(component)
        links = sorted(
            f'  {e.importer}:{e.line} -> {e.imported}'
            + (' (function-level)' if e.function_level else '')
            for e in edges
            if e.importer in members and e.imported in members
        )
        report.append(' <-> '.join(component) + '\n' + '\n'.join(links))
    assert not cycles, 'import cycles:\n' + '\n'.join(report)


def test_no_function_level_package_imports() -> None:
    """Function-level imports of package modules only for allow-listed optional dependencies."""
    offenders = sorted(
        f'{e.importer}:{e.line} -> {e.imported}'
        for e in _edges()
        if e.function_level and (e.importer, e.imported) not in LAZY_IMPORT_ALLOW_LIST
    )
    assert not offenders, 'function-level package imports:\n' + '\n'.join(offenders)


def test_allow_list_entries_are_used() -> None:
    """Every allow-list entry still matches a function-level import (no stale entries)."""
    used = {(e.importer, e.imported) for e in _edges() if e.function_level}
    stale = sorted(f'{a} -> {b}' for a, b in LAZY_IMPORT_ALLOW_LIST if (a, b) not in used)
    assert not stale, 'stale allow-list entries:\n' + '\n'.join(stale)


def _layer(module: str) -> str:
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else ''


def test_folders_import_only_downwards() -> None:
    """Every import points to the importer's own folder or a folder below it in LAYERS."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    folders = {_layer(m) for m in _all_modules()} - {'', '__main__'}
    assert folders <= set(rank), f'folders missing from LAYERS: {sorted(folders - set(rank))}'
    upward = []
    for edge in _edges():
        if (edge.importer, edge.imported) in LAZY_IMPORT_ALLOW_LIST:
            continue
        a, b = _layer(edge.importer), _layer(edge.imported)
        if a in ('', '__main__') or a == b:
            continue  # the public API on top, or within one folder
        if rank[b] > rank[a]:
            upward.append(f'  {edge.importer}:{edge.line} -> {edge.imported} ({a} -> {b})')
    assert not upward, 'imports pointing up the layers:\n' + '\n'.join(upward)
