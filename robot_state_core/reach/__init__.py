"""Reach studies (ROS-Industrial REACH's workflow on this library's core; no ROS).

Can this robot, on this base, reach every point of this part? A study is a robot group with
its tip, a planning scene, target poses and evaluators; it solves IK for every target (with
collision checking), scores the solutions and improves them by seeding from reached
neighbours, as REACH does.

* :mod:`~robot_state_core.reach.targets`: target poses from a mesh, a point cloud or a
  workspace grid (REACH's target pose generators).
* :mod:`~robot_state_core.reach.evaluators`: scores of a solution (REACH's evaluators).
* :mod:`~robot_state_core.reach.results`: per-target results, REACH's summary, the results
  file, comparison and heat-map colours.
* :mod:`~robot_state_core.reach.study`: the study (initial pass, neighbour seeding, resume).
* :mod:`~robot_state_core.reach.executors`: where batches run (this process, local worker
  processes, a Ray cluster).
* :mod:`~robot_state_core.reach.config`: a study described in YAML (``robot-state-core reach``).

The ROS side (the live scene, ``reach/markers``) is :mod:`robot_state_core.ros.reach_node`; the
browser heat map is :meth:`robot_state_core.viewer.app.RobotViewer.show_reach`.
"""
