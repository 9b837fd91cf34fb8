"""Numpy oracle of the geodesic distance's exact start (shared by the pvpython and CLI
tests): its automatic radius, sqrt(mean edge length x sqrt(surface area)), the mean
over every triangle's three edges, computed here from the triangles. Nothing is taken
from the C++ code."""
import numpy as np


def automatic_exact_radius(coords, triangles):
    corners = np.asarray(coords, dtype=float)[np.asarray(triangles)]
    edges = np.linalg.norm(corners - np.roll(corners, 1, axis=1), axis=2)
    area = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                         corners[:, 2] - corners[:, 0]), axis=1).sum()
    return float(np.sqrt(edges.mean() * np.sqrt(area)))
