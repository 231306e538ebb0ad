"""ament_python build of robot_state_core (colcon on a ROS 2 install, or pip in a plain venv)."""

from glob import glob
import os

from setuptools import find_packages, setup

PACKAGE = 'robot_state_core'
ROBOT = 'rsc_mobile_manipulator'
ROBOT_DIR = os.path.join(PACKAGE, 'robots', ROBOT)


def _files(pattern: str) -> list[str]:
    return sorted(p for p in glob(pattern) if os.path.isfile(p))


setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(include=[PACKAGE, PACKAGE + '.*']),
    package_data={PACKAGE: ['py.typed', 'robots/*/*.urdf', 'robots/*/*.srdf', 'robots/*/*.md',
                            'robots/*/meshes/*']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE]),
        ('share/' + PACKAGE, ['package.xml']),
        ('share/' + PACKAGE + '/launch', _files('launch/*')),
        ('share/' + PACKAGE + '/config', _files('config/*')),
        # The embedded default robot, reachable as package://robot_state_core/robots/<robot>/...
        ('share/' + PACKAGE + '/robots/' + ROBOT, _files(ROBOT_DIR + '/*')),
        ('share/' + PACKAGE + '/robots/' + ROBOT + '/meshes', _files(ROBOT_DIR + '/meshes/*')),
    ],
    install_requires=['setuptools'],
    zip_safe=False,
    maintainer='robot_state_core maintainers',
    maintainer_email='robot-state-core@example.com',
    description='ROS-free robot kinematics/collision core with thin rclpy nodes',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [
            'robot_state_publisher = robot_state_core.apps.entry:robot_state_publisher',
            'robot_state_server = robot_state_core.apps.entry:robot_state_server',
            'robot_state_core_all = robot_state_core.apps.entry:robot_state_core_all',
            'robot-state-core = robot_state_core.apps.entry:cli',
        ],
    },
)
