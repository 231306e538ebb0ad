"""``robot-state-core`` command line.

Sub-commands:
    run     the ROS node on a URDF (default: the embedded robot), with a live status line.
    check   load a URDF (and SRDF) and report what it contains.

ROS is imported only by ``run``, so ``check`` works without a ROS installation.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
import sys

from robot_state_core.default_robot import default_robot_srdf_path, default_robot_urdf_path
from robot_state_core.errors import RobotStateCoreError
from robot_state_core.robot_model import RobotModel


def _cmd_run(ns: argparse.Namespace) -> int:
    from robot_state_core.ros.main import run  # ROS only here

    if ns.urdf:
        urdf, srdf = Path(ns.urdf), Path(ns.srdf) if ns.srdf else None
    else:
        urdf = default_robot_urdf_path()
        srdf = Path(ns.srdf) if ns.srdf else default_robot_srdf_path()
    return run(urdf, srdf_path=srdf, package_roots=ns.package_root, duration=ns.duration,
               frame_prefix=ns.frame_prefix, simulate=ns.simulate, sim_rate=ns.sim_rate,
               publish_frequency=ns.publish_frequency, ignore_timestamp=ns.ignore_timestamp,
               with_services=not ns.no_services)


def _cmd_check(ns: argparse.Namespace) -> int:
    model = RobotModel.from_urdf_file(ns.urdf, ns.srdf)
    types = Counter(t.value for t in model.joint_types)
    print(f"robot '{model.name}': {model.link_count} links, {model.joint_count} joints "
          f"({', '.join(f'{n} {t}' for t, n in sorted(types.items()))}), nq={model.nq}, "
          f'nv={model.nv}, model frame {model.model_frame!r}')
    if model.mimic_joint_names:
        print(f"mimic joints: {', '.join(model.mimic_joint_names)}")
    for name in model.group_names:
        group = model.group(name)
        chain = f' chain {group.base_link} -> {group.tip_link}' if group.is_chain else ''
        print(f'group {name!r}: {len(group.active_joint_names)} active joints{chain}; '
              f"states: {', '.join(group.named_states) or '-'}")
    for w in (*model.load_warnings, *model.srdf_warnings):
        print(f'warning: {w}')
    for uri in model.unresolved_meshes:
        print(f'unresolved mesh: {uri}')
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``robot-state-core``."""
    parser = argparse.ArgumentParser(prog='robot-state-core', description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    p_run = sub.add_parser('run', help='publish a robot on ROS 2 with a live status line')
    p_run.add_argument('--urdf', help='URDF file (default: the embedded default robot)')
    p_run.add_argument('--duration', type=float, default=None,
                       help='stop after this many seconds (default: run until Ctrl-C)')
    p_run.add_argument('--srdf', help="SRDF file (default: the embedded robot's, if no --urdf)")
    p_run.add_argument('--package-root', action='append', default=[],
                       help='directory containing ROS packages (mesh URIs); repeatable')
    p_run.add_argument('--frame-prefix', default='', help='prefix for every frame id')
    p_run.add_argument('--simulate', action='store_true',
                       help='also publish joint_states that sweep every joint smoothly')
    p_run.add_argument('--sim-rate', type=float, default=50.0,
                       help='rate of the simulated joint states [Hz] (default 50)')
    p_run.add_argument('--publish-frequency', type=float, default=20.0,
                       help='robot_state_publisher publish_frequency [Hz] (default 20)')
    p_run.add_argument('--ignore-timestamp', action='store_true',
                       help='publish /tf for every joint_states message')
    p_run.add_argument('--no-services', action='store_true',
                       help='do not serve compute_ik / compute_fk / check_state_validity')
    p_run.set_defaults(func=_cmd_run)
    p_check = sub.add_parser('check', help='load a URDF and report its contents')
    p_check.add_argument('urdf', help='URDF file')
    p_check.add_argument('srdf', nargs='?', default=None, help='SRDF file (optional)')
    p_check.set_defaults(func=_cmd_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``robot-state-core`` console script."""
    ns = build_parser().parse_args(argv)
    try:
        return int(ns.func(ns))
    except RobotStateCoreError as exc:
        print(f'robot-state-core {ns.command}: {exc}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
