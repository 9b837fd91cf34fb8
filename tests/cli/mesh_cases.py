"""Inputs shared by the CLI tests of the simplicial complex (test_persistence.py,
test_simplify.py): the raw volumes' --type names, a legacy .vtk writer for triangle and
tet meshes with one point array "f", and a closed torus surface."""
import math

import numpy as np

TYPES = {np.float32: "float32", np.uint8: "uint8", np.int16: "int16", np.float64: "float64"}


def write_vtk(path, points, cells, values):
    kind = {3: 5, 4: 10}[len(cells[0])]
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 3.0\nmesh\nASCII\nDATASET UNSTRUCTURED_GRID\n")
        f.write(f"POINTS {len(points)} double\n")
        f.writelines(f"{x} {y} {z}\n" for x, y, z in points)
        f.write(f"CELLS {len(cells)} {(len(cells[0]) + 1) * len(cells)}\n")
        f.writelines(f"{len(c)} " + " ".join(map(str, c)) + "\n" for c in cells)
        f.write(f"CELL_TYPES {len(cells)}\n" + f"{kind}\n" * len(cells))
        f.write(f"POINT_DATA {len(points)}\nSCALARS f double 1\nLOOKUP_TABLE default\n")
        f.writelines(f"{float(v)!r}\n" for v in values)


def torus(n, m):
    """A closed torus surface of n x m vertices (points, triangles)."""
    points, triangles = [], []
    vid = lambda i, j: (i % n) * m + (j % m)  # noqa: E731
    for i in range(n):
        for j in range(m):
            u, v = 2 * math.pi * i / n, 2 * math.pi * j / m
            points.append(((2 + math.cos(v)) * math.cos(u), (2 + math.cos(v)) * math.sin(u),
                           math.sin(v)))
            triangles += [(vid(i, j), vid(i + 1, j), vid(i, j + 1)),
                          (vid(i + 1, j), vid(i + 1, j + 1), vid(i, j + 1))]
    return points, triangles
