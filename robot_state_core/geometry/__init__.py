"""Geometry: shape specifications (and, later, the Drake-style geometry registry)."""
