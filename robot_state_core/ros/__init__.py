"""ROS 2 layer: the only subpackage that imports rclpy and message packages.

Nodes here are thin: convert messages to arrays, call the core, convert back (design study
B10). Nothing in :mod:`robot_state_core` outside this subpackage imports it.
"""
