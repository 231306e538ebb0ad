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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import os
from pathlib import Path, PurePosixPath
import posixpath
from urllib.parse import unquote, urlparse

from robot_state_core.io.default_robot import package_root


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
            quirk (e.g. an empty package name) or ``None``.
        """
        warning = None
        parsed = urlparse(uri)
        if parsed.scheme == 'package':
            package, rel = parsed.netloc, unquote(parsed.path).lstrip('/')
            if not package:
                package, _, rel = rel.partition('/')
                warning = (f'{uri!r} has an empty package name; reading it as '
                           f"'package://{package}/{rel}'")
            inside = _inside_package(package, rel)
            if inside is None:
                return None, (f'{uri!r} leaves the directory of package {package!r}; '
                              'package:// paths must stay inside their package')
            directory = self.package_directory(package)
            path = directory / inside if directory is not None else None
        elif parsed.scheme == 'file':
            path = Path(unquote(parsed.path))
        elif parsed.scheme in ('', 'model'):
            raw = Path(unquote(parsed.path) if parsed.scheme else uri)
            path = raw if raw.is_absolute() or self.base_dir is None else self.base_dir / raw
        else:
            return None, f'unsupported URI scheme {parsed.scheme!r} in {uri!r}'
        if path is not None and path.is_file():
            return path, warning
        return None, warning


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
