"""Named QoS profiles, matching the peers the nodes replace (never written inline)."""

from __future__ import annotations

from rclpy.qos import (
    DurabilityPolicy,
    HistoryPolicy,
    qos_profile_sensor_data,
    QoSProfile,
    ReliabilityPolicy,
)

#: ``/tf``: reliable, volatile, depth 100 (tf2_ros ``DynamicBroadcasterQoS``).
TF = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)

#: ``/tf_static``: reliable, transient local, depth 1 (tf2_ros ``StaticBroadcasterQoS``); the
#: single message always carries the complete set of static transforms.
TF_STATIC = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                       reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)

#: ``robot_description`` and other latched topics: late joiners get the last message.
LATCHED = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)

#: ``joint_states`` subscription: sensor-data QoS, as robot_state_publisher uses.
JOINT_STATES = qos_profile_sensor_data

#: ``robot_markers`` (MarkerArray): reliable, volatile, depth 10; republished on a timer.
MARKERS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=10,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)

#: ``collision_object`` / ``attached_collision_object`` subscriptions: reliable, depth 100.
COLLISION_OBJECTS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                               reliability=ReliabilityPolicy.RELIABLE,
                               durability=DurabilityPolicy.VOLATILE)

#: ``planning_scene`` subscription (diffs and full scenes in): reliable, volatile, depth 100, as
#: MoveIt's PlanningSceneMonitor.
PLANNING_SCENE = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                            reliability=ReliabilityPolicy.RELIABLE,
                            durability=DurabilityPolicy.VOLATILE)

#: ``monitored_planning_scene`` publisher: reliable, transient local, depth 1. Each message is
#: the full scene, so a late joiner gets the current one; RViz's PlanningScene display (reliable,
#: volatile, depth 100) matches it.
MONITORED_PLANNING_SCENE = LATCHED
