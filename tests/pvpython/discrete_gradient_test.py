"""pvpython checks of the TopoGPU Discrete Gradient filter: hand-counted complexes (a
bump over a ring, a bump inside a sphere), the global minimum's vertex among the critical
0-cells at its point, Euler's relation, ramps with one minimum, the default array, bad
input (NaN, with either complex) and the documentation;
the simplicial complex: TTK 1.2's critical cells on fuel, Euler on a closed surface and
a tet mesh; TTK's outputs: the critical points' arrays (names, types, values against the
input) and the gradient glyphs (port 1: one line per pair, the pairs and critical cells
partitioning the cells counted here in numpy, on a grid with both complexes and on a tet
mesh); the simplicial complex is the default on images.

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
    _, counts = run(image((3, 3, 1), bump2), Complex="Cubical")
    assert counts == [1, 1, 1, 0], counts
    bump3 = np.arange(27, dtype=np.float64)
    bump3[13] = 1000
    out, counts = run(image((3, 3, 3), bump3, spacing=(2, 1, 0.5), origin=(1, 2, 3)),
                      Complex="Cubical")
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
    gradient = TopoGPUDiscreteGradient(Input=Wavelet())
    names = pv_helpers.documented_properties(gradient)
    assert {"Input", "SelectInputScalars", "Backend", "Complex",
            "ComputeGradientGlyphs"} <= set(names), names
    # the panel's help names every array both ports output, with either complex
    doc = gradient.SMProxy.GetDocumentation()
    text = " ".join((doc.GetDescription() + " " + doc.GetLongHelp()).split())
    for complex in ("Simplicial", "Cubical"):
        gradient.Complex = complex
        for port in (0, 1):
            gradient.UpdatePipeline()
            data = pv_helpers.servermanager.Fetch(gradient, idx=port)
            for attributes in (data.GetPointData(), data.GetCellData()):
                for i in range(attributes.GetNumberOfArrays()):
                    name = attributes.GetArrayName(i)
                    assert name == "RTData" or name in text, "help lacks %s" % name
    assert "Simplicial (the default" in text, "help does not name the default complex"


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
    highest = np.asarray(out.PointData["ttkVertexScalarField"])
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
                              np.asarray(out.PointData["ttkVertexScalarField"]).tolist(),
                              [tuple(np.round(p, 6)) for p in np.asarray(out.Points)]))
            results.append((c, rows))
        assert results[0] == results[1] == results[2], "triangulations differ"
    print("simplicial critical cells: fuel [50, 192, 205, 62] as TTK; tets", counts,
          "; identical with Auto, Explicit, GALE")



# ---- TTK's outputs: the critical points' arrays, the gradient glyphs --------------------
def freudenthal_counts(n):
    """V, E, F, T of an nx x ny x nz grid split into 6 tets per voxel, counted here: every
    vertex; the axis edges, one diagonal per square and one per voxel; two triangles per
    square and six inside each voxel; six tets per voxel."""
    nx, ny, nz = n
    voxels = (nx - 1) * (ny - 1) * (nz - 1)
    squares = (nx - 1) * (ny - 1) * nz + (nx - 1) * ny * (nz - 1) + nx * (ny - 1) * (nz - 1)
    axis = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)
    return [nx * ny * nz, axis + squares + voxels, 2 * squares + 6 * voxels, 6 * voxels]


def cubical_counts(n):
    """Vertices, edges, squares and voxels of the grid's cubical complex, counted here."""
    refined = np.indices([2 * k - 1 for k in n]).reshape(3, -1)
    odd = (refined % 2).sum(axis=0)
    return [int(np.sum(odd == k)) for k in range(4)]


def mesh_counts(tets):
    """V, E, F, T of a tet mesh from its cells, by brute force over their faces."""
    faces = [np.unique(np.sort(tets[:, list(c)], axis=1), axis=0)
             for c in ([0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3])]
    edges = np.unique(np.concatenate(faces), axis=0)
    triangles = np.unique(np.concatenate([np.sort(tets[:, list(c)], axis=1) for c in (
        [0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3])]), axis=0)
    return [len(np.unique(tets)), len(edges), len(triangles), len(tets)]


def check_glyphs(gradient, cells):
    """Port 1 against the cells counted here: a line per pair, the pairs and the critical
    cells partition the cells of each dimension, TTK's arrays and order."""
    critical = fetch(gradient)
    gradient.UpdatePipeline()
    glyphs = pv_helpers.dsa.WrapDataObject(pv_helpers.servermanager.Fetch(gradient, idx=1))
    cdim = np.asarray(critical.PointData["CellDimension"])
    cid = np.asarray(critical.PointData["CellId"])
    lines = glyphs.VTKObject.GetNumberOfCells()
    assert lines == (sum(cells) - len(cdim)) // 2, (lines, cells, len(cdim))
    assert glyphs.VTKObject.GetNumberOfPoints() == 2 * lines
    pd, cd = glyphs.VTKObject.GetPointData(), glyphs.VTKObject.GetCellData()
    for data, name, wanted in ((pd, "PairOrigin", "signed char"), (pd, "CellId", "idtype"),
                               (pd, "CellDimension", "signed char"),
                               (cd, "PairType", "signed char")):
        array = data.GetArray(name)
        assert array is not None and array.GetDataTypeAsString() == wanted, (name, array)
    assert cd.GetScalars().GetName() == "PairType"
    origin = np.asarray(glyphs.PointData["PairOrigin"])
    dim = np.asarray(glyphs.PointData["CellDimension"]).astype(int)
    ids = np.asarray(glyphs.PointData["CellId"])
    kind = np.asarray(glyphs.CellData["PairType"]).astype(int)
    assert (origin[0::2] == 0).all() and (origin[1::2] == 1).all()
    assert (dim[1::2] == dim[0::2] + 1).all() and (kind == dim[0::2]).all()
    # TTK's order: by pair type, then by the lower cell's id
    assert (np.diff(kind) >= 0).all()
    for k in range(3):
        lower = ids[0::2][kind == k]
        assert (np.diff(lower) > 0).all(), "pairs of type %d not by lower id" % k
    for k in range(4):
        paired = ids[dim == k]
        crit = cid[cdim == k]
        assert len(np.unique(paired)) == len(paired), "a %d-cell in two pairs" % k
        assert not set(paired.tolist()) & set(crit.tolist()), "critical %d-cell paired" % k
        assert len(paired) + len(crit) == cells[k], (k, len(paired), len(crit), cells[k])
    return glyphs, lines


def case_glyphs():
    rng = np.random.default_rng(7)
    n = (7, 6, 5)
    values = rng.integers(0, 6, int(np.prod(n))).astype(np.float32)  # ties
    source = image(n, values)
    for complex, cells in (("Simplicial", freudenthal_counts(n)),
                           ("Cubical", cubical_counts(n))):
        glyphs, lines = check_glyphs(TopoGPUDiscreteGradient(Input=source, Complex=complex),
                                     cells)
        pts = np.asarray(glyphs.Points).reshape(-1, 2, 3)
        kind = np.asarray(glyphs.CellData["PairType"]).astype(int)
        if complex == "Cubical":
            # a face and its coface: half a spacing apart along one axis
            step = np.abs(pts[:, 1] - pts[:, 0])
            assert np.allclose(np.sort(step, axis=1), [0, 0, 0.5]), "cubical glyph geometry"
        else:
            # the coface's barycentre adds one grid vertex to the face's
            extra = (kind + 2)[:, None] * pts[:, 1] - (kind + 1)[:, None] * pts[:, 0]
            assert np.allclose(extra, np.round(extra), atol=1e-4), "not a grid vertex"
            assert (np.abs(extra - pts[:, 0]).max(axis=1) <= 1 + 1e-4).all()
        print("%s glyphs on %s: %d lines, cells %s" % (complex, n, lines, cells))
    # a tet mesh: the cells counted from its tets
    tets = Tetrahedralize(Input=Wavelet(WholeExtent=[0, 6, 0, 5, 0, 4]))  # noqa: F405
    mesh = fetch(tets).VTKObject
    from vtkmodules.util.numpy_support import vtk_to_numpy
    cells = mesh_counts(vtk_to_numpy(mesh.GetCells().GetConnectivityArray()).reshape(-1, 4))
    _, lines = check_glyphs(TopoGPUDiscreteGradient(Input=tets), cells)
    # off: port 1 empty
    off = TopoGPUDiscreteGradient(Input=tets, ComputeGradientGlyphs=0)
    off.UpdatePipeline()
    assert pv_helpers.servermanager.Fetch(off, idx=1).GetNumberOfCells() == 0
    print("tet mesh glyphs: %d lines, cells %s" % (lines, cells))


def case_ttk_arrays():
    rng = np.random.default_rng(11)
    n = (6, 5, 4)
    values = rng.integers(-3, 3, int(np.prod(n))).astype(np.int16)
    for complex in ("Simplicial", "Cubical"):
        gradient = TopoGPUDiscreteGradient(Input=image(n, values), Complex=complex)
        out = fetch(gradient)
        pd = out.VTKObject.GetPointData()
        wanted = [("CellDimension", "signed char"), ("CellId", "idtype"), ("s", "short"),
                  ("IsOnBoundary", "signed char"), ("ttkVertexScalarField", "idtype")]
        got = [(pd.GetArrayName(i), pd.GetArray(i).GetDataTypeAsString())
               for i in range(len(wanted))]
        assert got == wanted, got
        assert pd.GetScalars().GetName() == "CellDimension"
        vertex = np.asarray(out.PointData["ttkVertexScalarField"])
        # the scalar is the input's at that vertex; IsOnBoundary that vertex's place
        assert (np.asarray(out.PointData["s"]) == values[vertex]).all()
        x, y, z = vertex % n[0], vertex // n[0] % n[1], vertex // (n[0] * n[1])
        boundary = ((x == 0) | (x == n[0] - 1) | (y == 0) | (y == n[1] - 1) | (z == 0)
                    | (z == n[2] - 1))
        assert (np.asarray(out.PointData["IsOnBoundary"]) == boundary).all()
        # the vertex is the cell's highest in the vertex order: a minimum is its own
        dims = np.asarray(out.PointData["CellDimension"])
        pts = np.asarray(out.Points)
        place = np.c_[x, y, z].astype(float)
        assert np.allclose(pts[dims == 0], place[dims == 0])
        # and the vertex is one of the cell's: the cell lies within one step of it
        assert (np.abs(pts - place).max(axis=1) <= 1 + 1e-9).all()
    # the simplicial complex is the default on images: TTK's counts
    assert TopoGPUDiscreteGradient(Input=Wavelet()).Complex == "Simplicial"
    print("TTK's critical point arrays on both complexes; simplicial by default")


pv_helpers.run_case(globals(), CASE)
