"""Parameter declarations (with descriptors) of both nodes, and the configs they read them into."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    ParameterType,
)

from robot_state_core.ros.distro import ros_distro

#: robot_state_publisher's publish_frequency range [Hz].
PUBLISH_FREQUENCY_RANGE = (0.0, 1000.0)


@dataclass(frozen=True)
class StatePublisherConfig:
    """Parameters of the state publisher node (names as robot_state_publisher's).

    Attributes:
        robot_description: URDF XML (required unless ``use_robot_description_topic``; the node
            substitutes the description in use when it came from a file or the topic).
        robot_description_semantic: SRDF XML ('' for none).
        publish_frequency: Per-joint rate limit on message stamps [Hz], 0..1000.
        ignore_timestamp: Publish every JointState regardless of its stamp.
        frame_prefix: Prepended to every frame id.
        package_roots: Directories containing ROS packages, for ``package://`` mesh URIs.
        publish_markers: Publish the robot's MarkerArray on ``robot_markers``.
        marker_rate: Marker publishing rate [Hz].
        marker_geometry: ``'visual'`` or ``'collision'``.
        use_robot_description_topic: Read the description from the ``robot_description`` topic
            instead of the parameter (robot_state_publisher 3.4.4, Kilted; start-up only;
            always false on Jazzy, where the parameter is not declared).
    """

    robot_description: str
    robot_description_semantic: str = ''
    publish_frequency: float = 20.0
    ignore_timestamp: bool = False
    frame_prefix: str = ''
    package_roots: tuple[str, ...] = ()
    publish_markers: bool = True
    marker_rate: float = 2.0
    marker_geometry: str = 'visual'
    use_robot_description_topic: bool = False


#: robot_state_publisher's name for the topic mode (the name its code declares; its README says
#: ``description_from_topic``, a name the node never declares).
DESCRIPTION_TOPIC_PARAMETER = 'use_robot_description_topic'
#: Distributions whose robot_state_publisher has no topic mode (Jazzy ships 3.3.4): there the
#: parameter is not declared, as upstream (decision R4).
DISTROS_WITHOUT_TOPIC_MODE = frozenset({'jazzy'})


def has_topic_mode(distro: str | None = None) -> bool:
    """Whether this distribution's robot_state_publisher has ``use_robot_description_topic``.

    Args:
        distro: A distribution name; ``None`` asks :func:`~robot_state_core.ros.distro.ros_distro`
            (an unknown distribution counts as having it: the newer behaviour).
    """
    return (ros_distro() if distro is None else distro.lower()) not in DISTROS_WITHOUT_TOPIC_MODE

_STATE_PUBLISHER_PARAMETERS: tuple[tuple[str, Any, ParameterDescriptor], ...] = (
    (DESCRIPTION_TOPIC_PARAMETER, False, ParameterDescriptor(
        type=ParameterType.PARAMETER_BOOL,
        description='Subscribe to the robot_description topic (transient local) and build the '
                    'model from every description received there, instead of reading and '
                    'publishing the robot_description parameter. Read at start-up only.')),
    ('robot_description', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING,
        description='The robot description (URDF XML). Required unless a URDF file is given as '
                    'the first argument or use_robot_description_topic is set (then this '
                    'parameter is not declared); a runtime change is validated and republishes '
                    'robot_description and /tf_static.')),
    ('robot_description_semantic', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING,
        description='The semantic description (SRDF XML), optional.')),
    ('publish_frequency', 20.0, ParameterDescriptor(
        type=ParameterType.PARAMETER_DOUBLE,
        description='Per-joint rate limit on JointState stamps [Hz] (robot_state_publisher).',
        floating_point_range=[FloatingPointRange(from_value=PUBLISH_FREQUENCY_RANGE[0],
                                                 to_value=PUBLISH_FREQUENCY_RANGE[1])])),
    ('ignore_timestamp', False, ParameterDescriptor(
        type=ParameterType.PARAMETER_BOOL,
        description='Publish every JointState, whatever its stamp.')),
    ('frame_prefix', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING,
        description='Prefix prepended to every published frame id.')),
    ('package_roots', [''], ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING_ARRAY,
        description='Directories that contain ROS packages, to resolve package:// mesh URIs '
                    'when no ament index knows the package.')),
    ('publish_markers', True, ParameterDescriptor(
        type=ParameterType.PARAMETER_BOOL,
        description='Publish the robot as a visualization_msgs/MarkerArray on robot_markers.')),
    ('marker_rate', 2.0, ParameterDescriptor(
        type=ParameterType.PARAMETER_DOUBLE,
        description='Rate of the robot_markers MarkerArray [Hz].',
        floating_point_range=[FloatingPointRange(from_value=0.0, to_value=100.0)])),
    ('marker_geometry', 'visual', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING,
        description="Which geometry the markers show: 'visual' or 'collision'.")),
)


def declare_state_publisher_parameters(node: Any) -> None:
    """Declare every state publisher parameter on ``node`` (idempotent per node).

    As each distribution's robot_state_publisher: on Jazzy ``use_robot_description_topic`` is
    not declared (3.3.4 has no topic mode; a value given for it is ignored); in the topic mode
    (``use_robot_description_topic`` true) ``robot_description`` is not declared.
    """
    topic_mode = has_topic_mode()
    for name, default, descriptor in _STATE_PUBLISHER_PARAMETERS:
        if name == DESCRIPTION_TOPIC_PARAMETER and not topic_mode:
            continue
        if name == 'robot_description' and topic_mode and node.get_parameter(
                DESCRIPTION_TOPIC_PARAMETER).value:
            continue
        if not node.has_parameter(name):
            node.declare_parameter(name, default, descriptor)


def state_publisher_parameter_types() -> dict[str, int]:
    """``{name: rcl_interfaces ParameterType}`` of the declared parameters."""
    return {name: d.type for name, _, d in _STATE_PUBLISHER_PARAMETERS}


def read_state_publisher_config(node: Any) -> StatePublisherConfig:
    """Read the declared parameters into a frozen config."""
    def get(name: str) -> Any:
        return node.get_parameter(name).value if node.has_parameter(name) else None

    return StatePublisherConfig(
        robot_description=str(get('robot_description') or ''),
        robot_description_semantic=str(get('robot_description_semantic') or ''),
        publish_frequency=float(get('publish_frequency')),
        ignore_timestamp=bool(get('ignore_timestamp')),
        frame_prefix=str(get('frame_prefix') or ''),
        package_roots=tuple(p for p in (get('package_roots') or ()) if p),
        publish_markers=bool(get('publish_markers')),
        marker_rate=float(get('marker_rate')),
        marker_geometry=str(get('marker_geometry')),
        use_robot_description_topic=bool(get(DESCRIPTION_TOPIC_PARAMETER)),
    )


#: Default of ``max_ik_timeout`` [s]: the longest IK solve a client can ask for.
MAX_IK_TIMEOUT_S = 1.0

_SERVER_PARAMETERS: tuple[tuple[str, Any, ParameterDescriptor], ...] = (
    ('robot_description', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING, read_only=True,
        description='URDF XML (used when the node does not share a model).')),
    ('robot_description_semantic', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING, read_only=True,
        description='SRDF XML: groups, named states, disabled collision pairs.')),
    ('kinematics_config', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING, read_only=True,
        description='Path of a MoveIt-style kinematics.yaml (per-group IK timeout).')),
    ('max_ik_timeout', MAX_IK_TIMEOUT_S, ParameterDescriptor(
        type=ParameterType.PARAMETER_DOUBLE,
        description='Longest IK solve a compute_ik request gets [s]: a longer request timeout '
                    "(or group default from kinematics.yaml) is cut to it, and the response's "
                    'message says so.',
        floating_point_range=[FloatingPointRange(from_value=0.001, to_value=60.0)])),
    ('frame_prefix', '', ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING,
        description='Frame prefix of the TF tree; accepted (and stripped) in request frames.')),
    ('package_roots', [''], ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING_ARRAY, read_only=True,
        description='Directories containing ROS packages (mesh URIs).')),
    ('ik_random_seed', -1, ParameterDescriptor(
        type=ParameterType.PARAMETER_INTEGER,
        description='Seed of the IK restart sampler of every compute_ik request: equal '
                    'requests get equal answers; -1: a fresh random draw per request.',
        integer_range=[IntegerRange(from_value=-1, to_value=2**31 - 1, step=1)])),
)


def declare_server_parameters(node: Any) -> None:
    """Declare every parameter of the state server node (MoveIt services) on ``node``."""
    for name, default, descriptor in _SERVER_PARAMETERS:
        node.declare_parameter(name, default, descriptor)


def server_parameter_types() -> dict[str, int]:
    """``{name: ParameterType}`` of the service node's parameters."""
    return {name: d.type for name, _, d in _SERVER_PARAMETERS}


def declared_parameter_types() -> dict[str, int]:
    """``{name: ParameterType}`` of every parameter any of the package's nodes declares."""
    types = dict(state_publisher_parameter_types())
    types.update(server_parameter_types())
    return types
