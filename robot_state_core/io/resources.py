"""Resolving resource URIs of robot descriptions (``package://``, ``file://``, relative paths).

Resolution order for ``package://<pkg>/<path>``:

1. an explicit ``{package: directory}`` map;
2. ``<root>/<pkg>`` for each configured package root (a directory holding packages);
3. the ament resource index found through ``AMENT_PREFIX_PATH``
   (``<prefix>/share/ament_index/resource_index/packages/<pkg>`` marks ``<prefix>/share/<pkg>``),
   read straight from the file system so the core needs no ROS import;
4. ``robot_state_core`` itself (its embedded robots).

``package:///<pkg>/<path>`` (an empty package name, as Talos' files spell it) is read as
``package://<pkg>/<path>`` with a warning.

``package://`` URIs are confined to their package directory: the path is normalized lexically
(``a/../b`` is ``b``) and a path that climbs out of the package (``package://pkg/../../etc``),
an absolute path, or a package name that is not a plain directory name (``..``, ``a/b``) is
refused with a warning, so a description received over the network cannot make the loader
open arbitrary files through a package. Symbolic links inside the package are followed
(``colcon build --symlink-install`` trees consist of them).

``file://`` URIs and plain paths are used as they are, deliberately: users need meshes outside
any package. They can name any local file the process may read, so only load descriptions
whose ``file://`` and relative mesh paths you trust (see ``docs/decisions.md``, Hardening).
Relative paths are taken relative to the description's directory.

:meth:`ResourceResolver.locate` also says why a URI did not resolve (the package was found but
the file is not in it, the package was not found and where it was searched, ...); the URDF
loader keeps that text with the mesh shape, so the error raised when the mesh is used says it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import os
from pathlib import Path, PurePosixPath
import posixpath
from urllib.parse import unquote, urlparse

from robot_state_core.io.default_robot import package_root

_LISTED = 5
'''Package names or roots listed in a "package not found" message (the rest are counted).'''


@dataclass(frozen=True)
class Resolution:
    """What :meth:`ResourceResolver.locate` found for a URI.

    Attributes:
        path: The existing local file, or ``None``.
        warning: A tolerated quirk (e.g. an empty package name) or a refusal, or ``None``.
        problem: Why ``path`` is ``None``, e.g. ``file /ws/pkg/meshes/a.stl does not exist
            (package 'pkg' found at /ws/pkg)`` or ``package 'pkg' not found (searched: ...)``;
            ``None`` when the file was found.
    """

    path: Path | None
    warning: str | None
    problem: str | None


@dataclass(frozen=True)
class ResourceResolver:
    """Maps resource URIs to local files.

    Attributes:
        package_map: Explicit ``{package name: package directory}`` entries (highest priority).
        package_roots: Directories that contain package directories (``<root>/<pkg>``).
        use_ament_index: Consult ``AMENT_PREFIX_PATH``'s resource index.
        base_dir: Directory for relative paths (the description file's directory), or ``None``.
    """

    package_map: Mapping[str, Path] = field(default_factory=dict)
    package_roots: Sequence[Path] = ()
    use_ament_index: bool = True
    base_dir: Path | None = None

    def with_base_dir(self, base_dir: Path | None) -> ResourceResolver:
        """A copy resolving relative paths against ``base_dir``."""
        return ResourceResolver(self.package_map, self.package_roots, self.use_ament_index,
                                base_dir)

    def package_directory(self, package: str) -> Path | None:
        """The directory of ``package``, or ``None`` when no source knows it."""
        if package in self.package_map:
            return Path(self.package_map[package])
        for root in self.package_roots:
            candidate = Path(root) / package
            if candidate.is_dir():
                return candidate
        if self.use_ament_index:
            for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
                marker = Path(prefix) / 'share/ament_index/resource_index/packages' / package
                if marker.is_file():
                    return Path(prefix) / 'share' / package
        if package == 'robot_state_core':
            return package_root()
        return None

    def resolve(self, uri: str) -> tuple[Path | None, str | None]:
        """Resolve ``uri`` to an existing local file.

        Args:
            uri: A ``package://``, ``file://`` URI or a (relative) path.

        Returns:
            ``(path, warning)``: the existing file or ``None``, and a warning about a tolerated
            quirk (e.g. an empty package name) or ``None``; :meth:`locate` also says why a
            path is ``None``.
        """
        found = self.locate(uri)
        return found.path, found.warning

    def locate(self, uri: str) -> Resolution:
        """Resolve ``uri`` to an existing local file, or say why it does not resolve.

        Args:
            uri: A ``package://``, ``file://`` URI or a (relative) path.

        Returns:
            The file, a warning about a tolerated quirk, and the problem when there is no file.
        """
        warning = None
        parsed = urlparse(uri)
        where = ''
        if parsed.scheme == 'package':
            package, rel = parsed.netloc, unquote(parsed.path).lstrip('/')
            if not package:
                package, _, rel = rel.partition('/')
                warning = (f'{uri!r} has an empty package name; reading it as '
                           f"'package://{package}/{rel}'")
            inside = _inside_package(package, rel)
            if inside is None:
                return Resolution(None, (f'{uri!r} leaves the directory of package {package!r}; '
                                         'package:// paths must stay inside their package'),
                                  f'refused: the path leaves the directory of package {package!r}')
            directory = self.package_directory(package)
            if directory is None:
                return Resolution(None, warning, f'package {package!r} not found (searched: '
                                                 f'{self._searched()})')
            path = directory / inside
            where = f' (package {package!r} found at {directory})'
        elif parsed.scheme == 'file':
            path = Path(unquote(parsed.path))
        elif parsed.scheme in ('', 'model'):
            raw = Path(unquote(parsed.path) if parsed.scheme else uri)
            path = raw if raw.is_absolute() or self.base_dir is None else self.base_dir / raw
            if not path.is_absolute():
                where = f' (relative to the working directory {Path.cwd()})'
        else:
            unsupported = f'unsupported URI scheme {parsed.scheme!r} in {uri!r}'
            return Resolution(None, unsupported, unsupported)
        if path.is_file():
            return Resolution(path, warning, None)
        state = 'is not a file' if path.exists() else 'does not exist'
        return Resolution(None, warning, f'file {path} {state}{where}')

    def _searched(self) -> str:
        """Where :meth:`package_directory` looks for a package, for a "not found" message."""
        places = []
        if self.package_map:
            names = sorted(self.package_map)
            more = f', ... ({len(names)} packages)' if len(names) > _LISTED else ''
            places.append(f'package map {", ".join(map(repr, names[:_LISTED]))}{more}')
        if self.package_roots:
            roots = [str(r) for r in self.package_roots]
            more = f', ... ({len(roots)} roots)' if len(roots) > _LISTED else ''
            places.append(f'package roots {", ".join(roots[:_LISTED])}{more}')
        if self.use_ament_index:
            prefixes = [p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
            places.append(f'the ament index of AMENT_PREFIX_PATH ({len(prefixes)} prefixes)'
                          if prefixes else 'the ament index (AMENT_PREFIX_PATH is not set)')
        return '; '.join(places) or 'nowhere: no package map, package roots or ament index'


def _inside_package(package: str, rel: str) -> str | None:
    """``rel`` normalized lexically when it stays inside ``package``'s directory, else None.

    Refused: a package name that is empty, ``.``, ``..`` or contains a separator, and a path
    that is absolute or climbs above the package directory after normalization.
    """
    if not package or package in ('.', '..') or '/' in package or '\\' in package:
        return None
    if '\\' in rel or '\x00' in rel or PurePosixPath(rel).is_absolute():
        return None
    normalized = posixpath.normpath(rel) if rel else '.'
    if normalized == '..' or normalized.startswith('../'):
        return None
    return normalized
