"""pvpython checks of the TopoGPU Discrete Gradient filter: hand-counted complexes (a
bump over a ring, a bump inside a sphere), the global minimum's vertex among the critical
0-cells at its point, Euler's relation, ramps with one minimum, the default array, bad
input (NaN, with either complex) and the documentation;
the simplicial complex: TTK 1.2's critical cells on fuel, Euler on a closed surface and
a tet mesh.

Usage: pvpython discrete_gradient_test.py PLUGIN DATA_DIR CASE
Each CASE is one ctest; a failed check raises, so pvpython exits non-zero.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from pv_helpers import fetch  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())


def errors_of(proxy):
    return pv_helpers.Messages(proxy).errors


def image(dims, values, spacing=(1, 1, 1), origin=(0, 0, 0)):
    return pv_helpers.image_source(dims, values, spacing, origin)[0]


def run(source, euler=1, **properties):
    gradient = TopoGPUDiscreteGradient(Input=source, **properties)
    errors = errors_of(gradient)
    out = fetch(gradient)
    assert not errors, errors
    dims = np.asarray(out.PointData["CellDimension"])
    counts = [int(np.sum(dims == k)) for k in range(4)]
    field = [int(x) for x in np.asarray(out.FieldData["CriticalCellCounts"])]
    assert counts == field, (counts, field)
    assert counts[0] - counts[1] + counts[2] - counts[3] == euler, "Euler: %s" % counts
    return out, counts


# ---- cases ---------------------------------------------------------------------------
def case_bumps():
    bump2 = np.arange(9, dtype=np.float32)
    bump2[4] = 100
    _, counts = run(image((3, 3, 1), bump2))
    assert counts == [1, 1, 1, 0], counts
    bump3 = np.arange(27, dtype=np.float64)
    bump3[13] = 1000
    out, counts = run(image((3, 3, 3), bump3, spacing=(2, 1, 0.5), origin=(1, 2, 3)))
    assert counts == [1, 0, 1, 1], counts
    # the minimum is vertex 0, at the origin; the maximum a voxel's centre
    dims = np.asarray(out.PointData["CellDimension"])
    pts = np.asarray(out.Points)
    assert np.allclose(pts[dims == 0][0], (1, 2, 3)), pts[dims == 0]
    centre = pts[dims == 3][0]
    assert np.allclose((centre - (1, 2, 3)) / (2, 1, 0.5) % 1, 0.5), centre


def case_wavelet():
    source = Wavelet()
    out, counts = run(source)
    values = np.asarray(fetch(source).PointData["RTData"])
    img = fetch(source).VTKObject
    # the global minimum's vertex has an empty lower star: a critical 0-cell there
    v = int(np.argmin(values))
    dims = np.asarray(out.PointData["CellDimension"])
    pts = np.asarray(out.Points)[dims == 0]
    assert np.any(np.all(np.isclose(pts, img.GetPoint(v)), axis=1)), "no minimum at %d" % v
    print("wavelet critical cells:", counts)


def case_ramp():
    z, y, x = np.meshgrid(np.arange(5), np.arange(6), np.arange(7), indexing="ij")
    for dims, values in (((7, 6, 5), (x + 2 * y + 3 * z).ravel()),
                         ((7, 1, 5), (x[:, 0, :] - z[:, 0, :]).ravel())):
        for complex in ("Cubical", "Simplicial"):
            _, counts = run(image(dims, values.astype(np.int16)), Complex=complex)
            assert counts == [1, 0, 0, 0], (dims, complex, counts)


def case_bad_inputs():
    values = np.arange(5 * 4 * 3, dtype=np.float32)
    values[7] = np.nan
    for complex in ("Cubical", "Simplicial"):
        fragment = "NaN or infinite value at vertex 7"
        gradient = TopoGPUDiscreteGradient(Input=image((5, 4, 3), values), Complex=complex)
        errors = errors_of(gradient)
        out = fetch(gradient)
        assert out.VTKObject.GetNumberOfPoints() == 0, "output not empty"
        text = " ".join(errors)
        assert fragment.lower() in text.lower(), "error %r lacks %r" % (text, fragment)
        print("bad input: error as expected: %s" % text.strip().splitlines()[-1])


def case_documentation():
    names = pv_helpers.documented_properties(TopoGPUDiscreteGradient(Input=Wavelet()))
    assert {"Input", "SelectInputScalars", "Backend", "Complex"} <= set(names), names


def case_simplicial():
    # TTK 1.2's MorseSmaleComplex critical cells on fuel (ttk-reference/volumes.json)
    path = os.path.join(DATA, "volumes", "fuel_64x64x64_uint8.raw")
    fuel = np.fromfile(path, dtype=np.uint8)
    out, counts = run(image((64, 64, 64), fuel), Complex="Simplicial")
    assert counts == [50, 192, 205, 62], counts
    # CellId is a simplex id of its dimension: below 6 tets per voxel, 7 edges per vertex
    ids = np.asarray(out.PointData["CellId"])
    dims = np.asarray(out.PointData["CellDimension"])
    assert ids[dims == 3].max() < 6 * 63 ** 3 and ids[dims == 1].max() < 7 * 64 ** 3
    # the global minimum (lowest value, lowest index among ties) is a critical vertex there
    v = int(np.argmin(fuel))
    highest = np.asarray(out.PointData["HighestVertexId"])
    assert v in set(highest[dims == 0].tolist()), "no critical vertex at %d" % v
    # a closed triangulated surface (chi = 2) and a tet mesh (the sphere's Delaunay 3D)
    _, counts = run(Elevation(Input=Sphere()), euler=2)
    assert counts[0] >= 1 and counts[2] >= 1 and counts[3] == 0, counts
    tets = Elevation(Input=Delaunay3D(Input=Sphere()))
    _, counts = run(tets, euler=1)
    # the Triangulation property: the same critical simplices (as their highest vertices
    # and barycentres) whichever backend stores the tets; an image stored as tets runs
    # the simplicial complex, as the implicit grid's
    rng = np.random.default_rng(4)
    small = image((12, 10, 9), rng.integers(0, 20, 1080).astype(np.float64))
    for source, array, base in ((tets, "Elevation", {}),
                                (small, "s", {"Complex": "Simplicial"})):
        results = []
        for choice in ("Auto", "Explicit", "GALE (CPU producers)"):
            out, c = run(source, Triangulation=choice, SelectInputScalars=["POINTS", array],
                         **(base if choice == "Auto" else {}))
            rows = sorted(zip(np.asarray(out.PointData["CellDimension"]).tolist(),
                              np.asarray(out.PointData["HighestVertexId"]).tolist(),
                              [tuple(np.round(p, 6)) for p in np.asarray(out.Points)]))
            results.append((c, rows))
        assert results[0] == results[1] == results[2], "triangulations differ"
    print("simplicial critical cells: fuel [50, 192, 205, 62] as TTK; tets", counts,
          "; identical with Auto, Explicit, GALE")


pv_helpers.run_case(globals(), CASE)
