"""The position bounds of a joint with a URDF ``<limit>`` (revolute and prismatic joints)."""

from __future__ import annotations

from robot_state_core.description.joints import Joint


def limited_bounds(joint: Joint) -> tuple[list[float], list[float], list[bool]]:
    """``([lower], [upper], [True])`` from ``<limit>``, narrowed by ``<safety_controller>``.

    MoveIt ``jointBoundsFromURDF``: the soft limits intersected with ``<limit>``. The scene
    graph guarantees the limits (tesseract ``SceneGraph::addJoint``, SG-14).
    """
    lim = joint.limits
    assert lim is not None  # guaranteed by SceneGraph.add_joint (SG-14)
    lo, hi = lim.lower, lim.upper
    if joint.safety is not None:
        lo = max(joint.safety.soft_lower_limit, lim.lower)
        hi = min(joint.safety.soft_upper_limit, lim.upper)
    return [lo], [hi], [True]
