"""Process entry points of the ROS layer (console scripts and the CLI's ``run``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import importlib
import os
from pathlib import Path
import re
import signal
import sys
import threading
import time
from typing import Any, TextIO

import rclpy
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args
from sensor_msgs.msg import JointState
import yaml

from robot_state_core.errors import RobotStateCoreError
from robot_state_core.io.resources import ResourceResolver
from robot_state_core.io.xacro import read_robot_description
from robot_state_core.jit.background import kernel_preparation
from robot_state_core.model.robot_model import RobotModel
from robot_state_core.publishing.joint_sweep import JointSweep
from robot_state_core.ros import qos
from robot_state_core.ros.distro import ros_distro
from robot_state_core.ros.group_executor import CallbackGroupExecutor
from robot_state_core.ros.log_limits import clip, LOG_LINE_LIMIT
from robot_state_core.ros.state_publisher_node import StatePublisherNode

#: rcl's errors for a command line it cannot parse (a ``-p`` value that is not valid YAML...):
#: Kilted's rclpy raises RCLInvalidROSArgsError, Jazzy's the base class RCLError ("failed to
#: initialize rcl: Couldn't parse parameter override rule").
_ROS_ARGS_ERRORS: tuple[type[BaseException], ...] = tuple(
    getattr(_rclpy, name) for name in ('RCLError', 'UnknownROSArgsError')
    if hasattr(_rclpy, name))
#: Parameters whose values are XML documents, often given as ``-p name:="$(cat file)"``.
_XML_PARAMETERS = ('robot_description', 'robot_description_semantic')


def _param_rules(argv: Sequence[str]) -> list[str]:
    """The ``name:=value`` rules of every ``-p``/``--param`` inside ``--ros-args`` sections."""
    rules, in_ros, k = [], False, 0
    while k < len(argv):
        arg = argv[k]
        if arg == '--ros-args':
            in_ros = True
        elif arg == '--' and in_ros:
            in_ros = False
        elif in_ros and arg in ('-p', '--param') and k + 1 < len(argv):
            rules.append(argv[k + 1])
            k += 1
        k += 1
    return rules


def xml_parameter_yaml_problem(argv: Sequence[str]) -> str:
    """Why rcl would refuse or silently cut an XML ``-p`` value of ``argv`` ('' if it would not).

    rcl (``rcl_parse_yaml_value``, called for every ``-p name:=value`` rule) parses the value as
    a YAML document: a multi-line XML text is a plain scalar whose line breaks fold into spaces
    (harmless), but ``': '`` or a ``':'`` at a line end starts a mapping (rcl then refuses the
    whole command line with "Couldn't parse parameter override rule") and ``' #'`` starts a
    comment (rcl silently drops the rest of the description). The same happens to the C++
    robot_state_publisher, whose command line rcl parses too.

    Args:
        argv: The command line.

    Returns:
        One sentence naming the parameter, the line and the YAML rule, or ''.
    """
    for rule in _param_rules(argv):
        name, sep, value = rule.partition(':=')
        if not sep or name.rpartition(':')[2] not in _XML_PARAMETERS:
            continue
        if value.lstrip()[:1] in ('"', "'"):  # a quoted YAML scalar: rcl unquotes it
            continue
        try:
            parsed = yaml.safe_load(value)
            kept = isinstance(parsed, str) and parsed.split() == value.split()
        except yaml.YAMLError:
            kept = False
        if kept:
            continue
        for number, line in enumerate(value.splitlines(), start=1):
            if re.search(r'(^|\s)#', line):
                return (f'line {number} of -p {name}:=... has " #", which starts a YAML comment: '
                        'rcl, which reads -p values as YAML, would silently drop the rest of '
                        'the description')
            if re.search(r':(\s|$)', line):
                return (f'line {number} of -p {name}:=... has ": " or ends with ":", which '
                        'starts a YAML mapping: rcl, which reads -p values as YAML, refuses the '
                        'command line')
        return f'-p {name}:=... is not a YAML string (rcl reads -p values as YAML)'
    return ''


def _init_ros(name: str, args: list[str] | None, stop: StopRequest) -> bool:
    """``rclpy.init(args=args)``; on a command line rcl refuses, one line on stderr and False.

    With ``stop`` installed, rclpy installs no signal handler of its own (see
    :class:`StopRequest`). An XML ``-p`` value that rcl's YAML parser would refuse or cut is
    reported with the line and the fix (a URDF file argument or a ``--params-file``) before rcl
    sees it (decision R15).
    """
    problem = xml_parameter_yaml_problem(sys.argv if args is None else args)
    if problem:
        print(f'{name}: {problem}; pass the URDF file instead ({name} robot.urdf), or the '
              'description in a --params-file, or remove the YAML-hostile text',
              file=sys.stderr)
        return False
    try:
        rclpy.init(args=args, signal_handler_options=stop.rclpy_signal_handlers)
    except _ROS_ARGS_ERRORS as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f'{name}: invalid ROS arguments: {clip(first, LOG_LINE_LIMIT)}', file=sys.stderr)
        return False
    return True


class StopRequest:
    """Ctrl-C (SIGINT) and SIGTERM of an entry point become a request to stop, not an exception.

    Root cause of the start-up Ctrl-C race (exit -2 or a traceback in ~1 of 10 runs): two
    handlers acted on one SIGINT at an arbitrary moment. rclpy's own handler (installed by
    ``rclpy.init``) shut the context down at once, so whatever start-up step ran next failed:
    creating an executor raised "Context must be initialized" (and rclpy's ``Executor.__del__``
    printed an AttributeError traceback), a node constructor or publisher failed half-way. And
    Python's default handler raised KeyboardInterrupt at whatever bytecode ran next, e.g. between
    creating and starting the service thread (tear-down then failed with "cannot join thread
    before it is started"). Now, in the main thread, this handler is the only one:
    ``rclpy.init`` is called with :attr:`rclpy_signal_handlers` (``SignalHandlerOptions.NO``),
    the handler only sets :attr:`requested`, the entry points check it between start-up steps
    and spin with timeouts (at most 0.1 s until a stop is seen), and the context is shut down
    by the normal tear-down, so a Ctrl-C at any moment ends the process with exit code 0. The
    handlers stay installed until the process exits (a second Ctrl-C during tear-down is
    ignored too).
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.requested = False
        #: What ``rclpy.init`` installs: nothing once this handler is installed, else rclpy's.
        self.rclpy_signal_handlers = SignalHandlerOptions.ALL

    def _on_signal(self, signum: int, frame: object) -> None:
        self.requested = True

    @classmethod
    def install(cls) -> StopRequest:
        """A new request flag, installed as the SIGINT and SIGTERM handler.

        Only in the main thread (Python's rule); elsewhere Python's handlers stay and the entry
        points still handle a KeyboardInterrupt.
        """
        stop = cls()
        if threading.current_thread() is threading.main_thread():
            for signum in cls.SIGNALS:
                signal.signal(signum, stop._on_signal)
            stop.rclpy_signal_handlers = SignalHandlerOptions.NO
        return stop


def _spin_until_stopped(executor: Any, stop: StopRequest) -> None:
    """Spin until a stop is requested or the context is shut down (checked every 0.1 s)."""
    kernel_preparation().serving()  # the node is up: cached kernels may load now
    while rclpy.ok() and not stop.requested:
        executor.spin_once(timeout_sec=0.1)


def _spin_node(node_factory: Any, name: str, args: list[str] | None) -> int:
    stop = StopRequest.install()
    if not _init_ros(name, args, stop):
        return 1
    nodes: list[Node] = []
    executor: Executor | None = None
    try:
        try:
            nodes.append(node_factory())
        except RobotStateCoreError as exc:
            print(f'{name}: {clip(exc, LOG_LINE_LIMIT)}', file=sys.stderr)
            return 1
        # the service node's long callbacks (IK) on a worker thread: FK/validity never wait
        workers = tuple(getattr(nodes[0], 'worker_callback_groups', ()))
        executor = CallbackGroupExecutor(workers) if workers else SingleThreadedExecutor()
        executor.add_node(nodes[0])
        _spin_until_stopped(executor, stop)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:
        if rclpy.ok() and not stop.requested:
            raise  # a real failure; a Ctrl-C inside an rcl call is a normal stop
    finally:
        _tear_down(nodes, executor)
    return 0


def _tear_down(nodes: Sequence[Node], spinner: _ServiceThread | Executor | None = None) -> None:
    """Stop the spinning, destroy the nodes, shut rclpy down: every step, whatever lands.

    ``spinner`` is the executor or service thread to stop first (its worker threads with it).

    A step that fails does not skip the others (a participant left alive leaves shared memory
    behind); the first real error is raised once every step ran. A KeyboardInterrupt (only
    possible outside the main thread's :class:`StopRequest`) is ignored.
    """
    steps: list[Any] = [node.request_stop for node in nodes if hasattr(node, 'request_stop')]
    if isinstance(spinner, Executor):
        steps.append(lambda: spinner.shutdown(timeout_sec=2.0))
    elif spinner is not None:
        steps.append(spinner.stop)
    steps += [node.destroy_node for node in reversed(nodes)]
    steps.append(rclpy.try_shutdown)
    steps.append(kernel_preparation().stop)  # a kernel compiler child ends with us
    error: Exception | None = None
    for step in steps:
        try:
            step()
        except KeyboardInterrupt:
            continue
        except Exception as exc:
            error = error or exc
    if error is not None and rclpy.ok():
        raise error


def description_file_argument(args: list[str] | None = None) -> str | None:
    """The first non-ROS command-line argument (a URDF file), or ``None``.

    robot_state_publisher reads ``options.arguments()[1]``, the command line without its ROS
    arguments, as a URDF file when the ``robot_description`` parameter is empty.

    Args:
        args: The command line including the program name (``None``: ``sys.argv``).
    """
    positional = remove_ros_args(args=sys.argv if args is None else args)[1:]
    return positional[0] if positional else None


def state_publisher_main(args: list[str] | None = None) -> int:
    """``ros2 run robot_state_core robot_state_publisher [robot.urdf] [--ros-args ...]``."""
    # the file argument is read after rclpy.init, which reports a bad command line in one line
    # (Jazzy's remove_ros_args raises on it)
    return _spin_node(lambda: StatePublisherNode(description_file=description_file_argument(args)),
                      'robot_state_publisher', args)


def _server_class() -> Any:
    """The service node class (imported lazily: it needs moveit_msgs)."""
    return importlib.import_module('robot_state_core.ros.state_server_node').StateServerNode


def state_server_main(args: list[str] | None = None) -> int:
    """``ros2 run robot_state_core robot_state_server`` (IK/FK/validity services)."""
    return _spin_node(_server_class(), 'robot_state_server', args)


def all_in_one_main(args: list[str] | None = None) -> int:
    """``ros2 run robot_state_core robot_state_core_all [robot.urdf] [--ros-args ...]``.

    Both nodes in one process, sharing one model. In the topic mode
    (``use_robot_description_topic``) the services start with the first description received.
    """
    stop = StopRequest.install()
    if not _init_ros('robot_state_core_all', args, stop):
        return 1
    description_file = description_file_argument(args)  # after init: see state_publisher_main
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    nodes: list[Node] = []
    service_thread: _ServiceThread | None = None
    try:
        try:
            _make_nodes(nodes, parameter_overrides=None, with_server=True,
                        description_file=description_file)
        except RobotStateCoreError as exc:
            print(f'robot_state_core_all: {clip(exc, LOG_LINE_LIMIT)}', file=sys.stderr)
            return 1
        executor = SingleThreadedExecutor()
        executor.add_node(nodes[0])
        publisher = nodes[0]
        assert isinstance(publisher, StatePublisherNode)
        while not publisher.has_model and rclpy.ok() and not stop.requested:
            executor.spin_once(timeout_sec=0.1)  # topic mode: wait for a description
        if len(nodes) == 1 and publisher.has_model and not stop.requested:
            nodes += _server_nodes(publisher, {})
        service_thread = _ServiceThread(nodes[1:])
        if not stop.requested:
            service_thread.start()
        _spin_until_stopped(executor, stop)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:
        if rclpy.ok() and not stop.requested:
            raise  # a real failure; a Ctrl-C inside an rcl call is a normal stop
    finally:
        _tear_down(nodes, service_thread)
    return 0


#: GIL switch interval [s] in processes that run long service callbacks beside TF: a solving
#: thread then hands the interpreter to the joint_states/TF callbacks every 0.25 ms instead of
#: every 5 ms (CPython's default), which keeps /tf latency low during IK (see the ROS tests).
SWITCH_INTERVAL_S = 0.00025


def _make_nodes(nodes: list[Node], parameter_overrides: list[Parameter] | None,
                with_server: bool, description_file: str | None = None) -> list[Node]:
    """Append the state publisher, and the service node sharing its model when one is loaded.

    Each node is appended as soon as it exists, so the caller's tear-down destroys it even when
    a later step fails.
    """
    kwargs: dict[str, Any] = {}
    if parameter_overrides is not None:
        kwargs['parameter_overrides'] = parameter_overrides
    publisher = StatePublisherNode(description_file=description_file, **kwargs)
    nodes.append(publisher)
    if with_server and publisher.has_model:
        nodes += _server_nodes(publisher, kwargs)
    return nodes


def _server_nodes(publisher: StatePublisherNode, kwargs: dict[str, Any]) -> list[Node]:
    """The service node on the publisher's model ([] without moveit_msgs).

    The service node follows the publisher's model: every description the publisher accepts
    later is prepared by the services first (refused if they cannot use it) and both switch
    together (:meth:`StatePublisherNode.add_model_listener`).
    """
    try:
        server_class = _server_class()
    except ImportError:  # the services need moveit_msgs
        return []
    server = server_class(model=publisher.model, **kwargs)
    publisher.add_model_listener(server.model_listener)
    return [server]


class _ServiceThread:
    """Spins service nodes on their own executor in a background thread.

    The TF path (joint_states → /tf) keeps a SingleThreadedExecutor in the main thread, so a
    long IK solve never sits between a JointState and its TF (design study B10). The service
    node's long-running callback group (IK: ``worker_callback_groups``) runs on a thread of its
    own, so FK, validity and the topics never wait for a solve; those short callbacks run in the
    spinning thread itself (:class:`CallbackGroupExecutor`: no thread hop, no busy loop).
    """

    def __init__(self, nodes: Sequence[Node]) -> None:
        workers = [group for node in nodes
                   for group in getattr(node, 'worker_callback_groups', ())]
        self._executor = CallbackGroupExecutor(workers) if nodes else None
        for node in nodes:
            assert self._executor is not None
            self._executor.add_node(node)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._executor is not None:
            thread = threading.Thread(target=self._spin, name='services', daemon=True)
            thread.start()
            self._thread = thread  # only a started thread is joined in stop()

    def _spin(self) -> None:
        assert self._executor is not None
        try:
            self._executor.spin()
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
        except Exception:  # the context was shut down under us (Ctrl-C): nothing to report
            if rclpy.ok():
                raise

    def stop(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(timeout_sec=2.0)
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def __enter__(self) -> _ServiceThread:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class SimulatedJointStates(Node):
    """Publishes ``joint_states`` that sweep every active joint smoothly within its limits."""

    def __init__(self, model: RobotModel, rate_hz: float = 50.0, **kwargs: Any) -> None:
        super().__init__('simulated_joint_states', **kwargs)
        self._sweep = JointSweep(model)
        self._pub = self.create_publisher(JointState, 'joint_states', qos.JOINT_STATES)
        self._start = time.monotonic()
        self.published = 0
        self.create_timer(1.0 / rate_hz, self._tick)

    def _tick(self) -> None:
        try:
            names, positions = self._sweep.sample(time.monotonic() - self._start)
            msg = JointState(name=list(names))
            msg.header.stamp = self.get_clock().now().to_msg()
            msg.position = positions.tolist()
            self._pub.publish(msg)
            self.published += 1
        except Exception as exc:
            self.get_logger().error(f'simulated joint states failed: {exc}',
                                    throttle_duration_sec=5.0)


@dataclass
class _RateMeter:
    """Counts per status period."""

    last: dict[str, int] = field(default_factory=dict)

    def rate(self, key: str, count: int, period: float) -> float:
        previous = self.last.get(key, count)
        self.last[key] = count
        return (count - previous) / period if period > 0 else 0.0


def run(urdf_path: Path, *, srdf_path: Path | None = None,
        package_roots: Sequence[str] = (), duration: float | None = None,
        frame_prefix: str = '', simulate: bool = False, sim_rate: float = 50.0,
        publish_frequency: float = 20.0, ignore_timestamp: bool = False,
        with_services: bool = True, status_period: float = 1.0,
        out: TextIO = sys.stdout, xacro_args: Mapping[str, str] | None = None) -> int:
    """Run the all-in-one process on a URDF and print a live status line.

    Args:
        urdf_path: URDF file to publish, or a ``.xacro`` file (expanded as the xacro command
            does; ``$(find pkg)`` resolves through ``package_roots`` and the ament index).
        srdf_path: SRDF file (groups for the services), or ``None``.
        package_roots: Directories containing ROS packages (mesh URIs).
        duration: Stop after this many seconds (``None``: until Ctrl-C).
        frame_prefix: Prefix for every frame id.
        simulate: Also publish simulated joint states that sweep the joints.
        sim_rate: Rate of the simulated joint states [Hz].
        publish_frequency: robot_state_publisher's publish_frequency [Hz].
        ignore_timestamp: robot_state_publisher's ignore_timestamp.
        with_services: Also serve compute_ik / compute_fk / check_state_validity.
        status_period: Seconds between status updates.
        out: Stream for the status line (a TTY gets an in-place line).
        xacro_args: xacro arguments (``name:=value``) when ``urdf_path`` is a xacro file.

    Returns:
        The process exit code.

    Raises:
        RobotDescriptionError: The URDF cannot be read, or the xacro file cannot be expanded
            (:class:`~robot_state_core.errors.XacroError`, naming the file and line).
    """
    stop = StopRequest.install()
    description = read_robot_description(
        urdf_path, mappings=xacro_args,
        resolver=ResourceResolver(package_roots=tuple(Path(p) for p in package_roots)))
    overrides = [
        Parameter('robot_description', value=description),
        Parameter('robot_description_semantic',
                  value=srdf_path.read_text(encoding='utf-8') if srdf_path else ''),
        Parameter('frame_prefix', value=frame_prefix),
        Parameter('package_roots', value=list(package_roots) or ['']),
        Parameter('publish_frequency', value=float(publish_frequency)),
        Parameter('ignore_timestamp', value=bool(ignore_timestamp)),
    ]
    rclpy.init(signal_handler_options=stop.rclpy_signal_handlers)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    nodes: list[Node] = []
    service_thread: _ServiceThread | None = None
    try:
        try:
            _make_nodes(nodes, overrides, with_services)
        except RobotStateCoreError as exc:
            print(f'robot-state-core run: {clip(exc, LOG_LINE_LIMIT)}', file=sys.stderr)
            return 1
        publisher = nodes[0]
        assert isinstance(publisher, StatePublisherNode)
        server = nodes[1] if len(nodes) > 1 else None
        sim = None
        if simulate and not stop.requested:
            sim = SimulatedJointStates(publisher.model, sim_rate)
            nodes.append(sim)
        executor = SingleThreadedExecutor()  # the TF path: publisher (+ simulated source)
        executor.add_node(publisher)
        if sim is not None:
            executor.add_node(sim)
        service_thread = _ServiceThread([server] if server is not None else [])
        if stop.requested:  # Ctrl-C during start-up: straight to the tear-down
            return 0
        service_thread.start()
        model = publisher.model
        dds = (f"ROS 2 {ros_distro().capitalize() or '(unknown distribution)'}, "
               f"domain {os.environ.get('ROS_DOMAIN_ID', '0')}, discovery "
               f"{os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE', 'SUBNET (default)')}")
        services = (' and compute_ik/compute_fk/check_state_validity/get_planning_scene/'
                    'apply_planning_scene' if server else '')
        print(f"published robot '{model.name}' ({model.link_count} links, {model.joint_count} "
              f'joints): /robot_description and {publisher.static_transform_count} transforms '
              f'on /tf_static{services} [{dds}]', file=out, flush=True)
        kernel_preparation().serving()  # the nodes are up: cached kernels may load now
        start = time.monotonic()
        next_status = start + status_period
        meter = _RateMeter()
        tty = out.isatty()
        while rclpy.ok() and not stop.requested and (duration is None or
                                                     time.monotonic() - start < duration):
            executor.spin_once(timeout_sec=0.05)
            now = time.monotonic()
            if now >= next_status:
                line = _status_line(now - start, publisher, server, meter, status_period)
                print(('\r' + line) if tty else line, end='' if tty else '\n', file=out,
                      flush=True)
                next_status = now + status_period
        if tty:
            print(file=out)
        return 0
    except (KeyboardInterrupt, ExternalShutdownException):
        return 0
    except Exception:
        if rclpy.ok() and not stop.requested:
            raise
        return 0  # Ctrl-C shut the context down inside an rcl call: a normal stop
    finally:
        _tear_down(nodes, service_thread)


def _status_line(elapsed: float, publisher: StatePublisherNode, server: Any,
                 meter: _RateMeter, period: float) -> str:
    js = meter.rate('js', publisher.joint_states_received, period)
    tf = meter.rate('tf', publisher.tf_published, period)
    latency = publisher.tf_latency_ms()
    parts = [f'[{elapsed:6.1f} s] joint_states {js:5.1f} Hz',
             f'/tf {tf:5.1f} Hz',
             f'tf latency p50 {latency[0]:.2f} ms p99 {latency[1]:.2f} ms'
             if latency is not None else 'tf latency -',
             'subscribers ' + ','.join(f'{k}={v}' for k, v in
                                       publisher.subscriber_counts().items())]
    if server is not None:
        parts.append(server.status_text())
    return ' | '.join(parts)
