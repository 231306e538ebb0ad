"""Spatial math: rotations, quaternions, rpy, angles and SE(3) poses (the bottom layer)."""
