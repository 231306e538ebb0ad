"""Test robots from the PyPI package ``example-robot-data`` (never committed to this repo).

Mesh URIs in those files look like ``package://example-robot-data/robots/...``; Talos' full
models use ``package:///example-robot-data/...`` (empty package name, path relative to the share
root) and B1 uses ``package://b1_description/...``. :func:`test_robot` returns each robot's URDF,
its SRDF when one ships, and the ``{package: directory}`` map that resolves all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import urlparse

#: name -> (URDF, SRDF or None), relative to ``share/example-robot-data/robots``.
ROBOTS: dict[str, tuple[str, str | None]] = {
    'panda': ('panda_description/urdf/panda.urdf', 'panda_description/srdf/panda.srdf'),
    'ur3': ('ur_description/urdf/ur3_robot.urdf', None),
    'ur5': ('ur_description/urdf/ur5_robot.urdf', None),
    'ur10': ('ur_description/urdf/ur10_robot.urdf', None),
    'talos': ('talos_data/robots/talos_reduced.urdf', 'talos_data/srdf/talos.srdf'),
    'talos_full': ('talos_data/robots/talos_full_v2.urdf', 'talos_data/srdf/talos.srdf'),
    'tiago': ('tiago_description/robots/tiago.urdf', None),
    'pr2': ('pr2_description/urdf/pr2.urdf', 'pr2_description/srdf/pr2.srdf'),
}


@dataclass(frozen=True)
class TestRobot:
    """One robot of example-robot-data, ready to load."""

    name: str
    urdf_path: Path
    srdf_path: Path | None
    package_map: dict[str, Path]

    __test__ = False  # not a pytest test class


def example_robot_data_share() -> Path:
    """The ``share/example-robot-data`` directory installed by the PyPI package."""
    dist = metadata.distribution('example-robot-data')
    for f in dist.files or ():
        if str(f).endswith('share/example-robot-data/package.xml'):
            return Path(str(dist.locate_file(f))).parent
    raise FileNotFoundError('example-robot-data is installed but its share directory was not '
                            'found')


def package_map() -> dict[str, Path]:
    """``{package name: directory}`` resolving every URI used by example-robot-data files."""
    share = example_robot_data_share()
    return {'example-robot-data': share, '': share.parent,
            'b1_description': share / 'robots' / 'b1_description'}


def test_robot(name: str) -> TestRobot:
    """The named robot (see :data:`ROBOTS`)."""
    urdf, srdf = ROBOTS[name]
    robots = example_robot_data_share() / 'robots'
    return TestRobot(name, robots / urdf, robots / srdf if srdf else None, package_map())


test_robot.__test__ = False  # type: ignore[attr-defined]


def all_urdf_files() -> list[Path]:
    """Every URDF file shipped by example-robot-data, sorted."""
    return sorted((example_robot_data_share() / 'robots').rglob('*.urdf'))


def resolve_uri(uri: str, packages: dict[str, Path]) -> Path:
    """Independent (test-side) resolution of a ``package://`` or ``file://`` URI."""
    parsed = urlparse(uri)
    if parsed.scheme == 'package':
        return packages[parsed.netloc] / parsed.path.lstrip('/')
    if parsed.scheme == 'file':
        return Path(parsed.path)
    raise ValueError(f'unsupported URI {uri!r}')


#: robot_state_publisher (Kilted) test/mimic_joint.urdf, a fixture of its change_mimic_joint test:
#: a fixed joint mimics a fixed joint (used by the rsp port and the loading-fidelity tests).
RSP_MIMIC_JOINT_URDF = '''<?xml version="1.0"?>
<robot name="test">
  <link name="base_link">
  </link>

  <link name="second_link">
  </link>

  <link name="third_link">
  </link>

  <joint name="base_to_second_joint" type="fixed">
    <origin rpy="1 0 0" xyz="0 1 0"/>
    <parent link="base_link"/>
    <child link="second_link"/>
  </joint>

  <joint name="base_to_third_joint" type="fixed">
    <origin rpy="1 0 0" xyz="0 1 0"/>
    <parent link="base_link"/>
    <child link="third_link"/>
    <mimic joint="base_to_second_joint" multiplier="1" offset="0"/>
  </joint>

</robot>
'''
