"""pvpython checks of the TopoGPU Critical Points filter against the numpy oracle.

Usage: pvpython critical_points_test.py PLUGIN DATA_DIR CASE
Each CASE is one ctest; a failed check raises, so pvpython exits non-zero.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cp_oracle as oracle  # noqa: E402
from pv_helpers import Messages, documented_properties, fetch  # noqa: E402
import pv_helpers  # noqa: E402

from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402
from vtkmodules.util import numpy_support  # noqa: E402
from vtkmodules.vtkCommonCore import vtkDoubleArray, vtkFloatArray, vtkPoints  # noqa: E402
from vtkmodules.vtkCommonDataModel import (  # noqa: E402
    VTK_HEXAHEDRON, VTK_LINE, VTK_QUAD, VTK_TETRA, vtkImageData, vtkPolyData,
    vtkUnstructuredGrid, vtkCellArray)

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())


def run_filter(source, array, backend=None):
    cp = TopoGPUCriticalPoints(Input=source)
    messages = Messages(cp)
    cp.SelectInputScalars = ["POINTS", array]
    if backend is not None:
        cp.Backend = backend
    return cp, fetch(cp), messages


def rerun(cp, array):
    cp.SelectInputScalars = ["POINTS", array]
    return fetch(cp)


def field_strings(out, name):
    array = out.VTKObject.GetFieldData().GetAbstractArray(name)
    return [array.GetValue(i) for i in range(array.GetNumberOfValues())]


def mesh_cells(data):
    """Triangles or tets of an unstructured grid / polydata, read by the test itself."""
    if data.IsA("vtkUnstructuredGrid"):
        cells = data.GetCells()
        types = numpy_support.vtk_to_numpy(data.GetCellTypesArray())
    else:
        cells = data.GetPolys()
        size = np.diff(numpy_support.vtk_to_numpy(cells.GetOffsetsArray()))
        types = np.where(size == 3, oracle.VTK_TRIANGLE, 0)
        assert data.GetNumberOfStrips() == 0
    offsets = numpy_support.vtk_to_numpy(cells.GetOffsetsArray())
    connectivity = numpy_support.vtk_to_numpy(cells.GetConnectivityArray())
    return oracle.cells_of_highest_dimension(types, offsets[:-1], connectivity)


def check(out, messages, data, array, cells, expected_dimension, input_points=None):
    """Compares every output array with the oracle on (data[array], cells)."""
    assert not messages.errors, messages.errors
    values = numpy_support.vtk_to_numpy(data.GetPointData().GetArray(array))
    n = data.GetNumberOfPoints()
    ref = oracle.classify(values, cells, n)
    assert ref.dimension == expected_dimension, ref.dimension
    assert ref.euler_from_links == ref.euler_domain, (ref.euler_from_links, ref.euler_domain)

    ids = np.asarray(out.PointData["ttkVertexScalarField"])
    types = np.asarray(out.PointData["CriticalType"])
    boundary = np.asarray(out.PointData["IsOnBoundary"])
    copied = out.PointData[array]
    print("%s: %d points, chi %d, oracle counts %s, filter %d critical points"
          % (CASE, n, ref.euler_domain, ref.counts[:5].tolist(), len(ids)))
    # TTK's vertex id array is a vtkIdType array, and CriticalType is signed char
    assert out.VTKObject.GetPointData().GetArray("ttkVertexScalarField").IsA("vtkIdTypeArray")
    assert out.VTKObject.GetPointData().GetArray("CriticalType").IsA("vtkSignedCharArray")
    assert np.array_equal(ids, ref.critical), \
        "critical vertex sets differ: filter-only %s, oracle-only %s" % (
            np.setdiff1d(ids, ref.critical)[:10], np.setdiff1d(ref.critical, ids)[:10])
    wrong = np.flatnonzero(types != ref.types[ids])
    assert wrong.size == 0, "types differ at vertices %s: filter %s oracle %s (lower/upper %s)" % (
        ids[wrong][:10], types[wrong][:10], ref.types[ids][wrong][:10],
        list(zip(ref.lower_count[ids][wrong][:10], ref.upper_count[ids][wrong][:10])))
    assert np.array_equal(boundary.astype(bool), ref.on_boundary[ids]), "IsOnBoundary differs"
    # the copied scalar keeps its name, type and values
    in_array = data.GetPointData().GetArray(array)
    out_array = out.VTKObject.GetPointData().GetArray(array)
    assert out_array.GetDataType() == in_array.GetDataType()
    assert np.array_equal(np.asarray(copied), values[ids])
    # one vertex cell per critical point, at the input point
    assert out.VTKObject.GetNumberOfVerts() == len(ids)
    assert out.VTKObject.GetNumberOfCells() == len(ids)
    coords = np.asarray(out.Points) if len(ids) else np.zeros((0, 3))
    if input_points is None:
        input_points = numpy_support.vtk_to_numpy(data.GetPoints().GetData())
    assert np.allclose(coords, input_points[ids]), "critical point coordinates differ"
    # field data
    backend = field_strings(out, "TopoGPUBackend")
    assert backend in (["cpu"], ["gpu"]), backend
    total = out.FieldData["TopoGPUTime"]
    assert len(total) == 1 and total[0] >= 0
    stages = field_strings(out, "TopoGPUTimingStages")
    seconds = np.asarray(out.FieldData["TopoGPUTimings"])
    assert len(stages) == len(seconds) > 0 and np.all(seconds >= 0)
    return ref, stages


def image_points(image):
    """Coordinates of an image's points computed from origin, spacing and extent."""
    extent = image.GetExtent()
    origin, spacing = np.array(image.GetOrigin()), np.array(image.GetSpacing())
    k, j, i = np.meshgrid(*[np.arange(extent[2 * a], extent[2 * a + 1] + 1)
                            for a in (2, 1, 0)], indexing="ij")
    ijk = np.stack([i.ravel(), j.ravel(), k.ravel()], axis=1)
    return origin + ijk * spacing


def check_image(source, array, expected_dimension, backend=None):
    cp, out, messages = run_filter(source, array, backend)
    data = servermanager.Fetch(source)
    cells = oracle.grid_cells(data.GetDimensions())
    return check(out, messages, data, array, cells, expected_dimension, image_points(data))


def producer(data):
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    return source


def expect_error(source, array, fragment):
    cp, out, messages = run_filter(source, array)
    assert out.VTKObject.GetNumberOfPoints() == 0, "output not empty"
    assert out.VTKObject.GetNumberOfCells() == 0
    assert messages.errors, "no error reported"
    text = " ".join(messages.errors)
    assert fragment.lower() in text.lower(), "error %r lacks %r" % (text, fragment)
    print("%s: error as expected: %s" % (CASE, text.strip().splitlines()[-1]))
    return text


def image(dims, values, name="s", components=1):
    img = vtkImageData()
    img.SetDimensions(*dims)
    arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
    arr.SetName(name)
    img.GetPointData().AddArray(arr)
    return img


# ---- cases ---------------------------------------------------------------------------
def case_wavelet3d():
    ref, _ = check_image(Wavelet(), "RTData", 3)
    assert ref.counts[oracle.MINIMUM] > 0 and ref.counts[oracle.MAXIMUM] > 0
    check_image(Wavelet(), "RTData", 3, backend="CPU")


def case_wavelet2d():
    check_image(Wavelet(WholeExtent=[-10, 10, -10, 10, 0, 0]), "RTData", 2)


def case_thin_grid():
    # 20 x 1 x 20: the y axis is squeezed out, the grid is the (x, z) plane
    ref, _ = check_image(Wavelet(WholeExtent=[-10, 9, 0, 0, -10, 9]), "RTData", 2)
    assert ref.counts[oracle.SADDLE1] > 0


def case_random_grids():
    # random fields are the most sensitive to the triangulation's diagonals; small
    # integer ranges force many ties, broken by vertex id
    rng = np.random.default_rng(11)
    for dims, dimension in (((17, 13, 1), 2), ((9, 1, 12), 2), ((9, 8, 7), 3)):
        count = dims[0] * dims[1] * dims[2]
        for values in (rng.random(count), rng.integers(0, 4, count).astype(np.int16)):
            img = image(dims, values, "s")
            img.SetOrigin(-1.0, 2.0, 0.5)
            img.SetSpacing(0.5, 1.5, 2.0)
            check_image(producer(img), "s", dimension)


def case_volume():
    path = os.path.join(DATA, "volumes", "fuel_64x64x64_uint8.raw")
    reader = ImageReader(FileNames=[path])
    reader.DataScalarType = "unsigned char"
    reader.DataExtent = [0, 63, 0, 63, 0, 63]
    reader.DataByteOrder = "LittleEndian"
    reader.UpdatePipeline()
    # the oracle reads the file itself, so a reader mistake cannot hide a filter one
    raw = np.fromfile(path, dtype=np.uint8)
    data = servermanager.Fetch(reader)
    name = data.GetPointData().GetArray(0).GetName()
    assert np.array_equal(numpy_support.vtk_to_numpy(data.GetPointData().GetArray(0)), raw)
    ref, _ = check_image(reader, name, 3)
    assert ref.counts[oracle.SADDLE1] > 0 and ref.counts[oracle.SADDLE2] > 0


def case_float_volume():
    path = os.path.join(DATA, "volumes", "carotid_76x49x45_float32.raw")
    raw = np.fromfile(path, dtype="<f4")
    img = image((76, 49, 45), raw, "carotid")
    check_image(producer(img), "carotid", 3)


def mesh_case(reader, array, dimension, cache_check=True):
    reader.UpdatePipeline()
    data = servermanager.Fetch(reader)
    cells = mesh_cells(data)
    cp, out, messages = run_filter(reader, array)
    ref, stages = check(out, messages, data, array, cells, dimension)
    assert "triangulation" in stages, stages
    if cache_check:
        # a second field on the same mesh reuses the triangulation and is still right
        calc = Calculator(Input=reader, ResultArrayName="negated", Function="-%s" % array)
        cp2, out2, messages2 = run_filter(calc, array)
        out3 = rerun(cp2, "negated")
        data2 = servermanager.Fetch(calc)
        ref2, stages2 = check(out3, messages2, data2, "negated", cells, dimension)
        assert "triangulation (cached)" in stages2, stages2
        print("%s: negated field %s" % (CASE, ref2.counts[:5].tolist()))
    return ref


def assert_negation_swaps(ids, types, neg_ids, neg_types, label, dimension=3):
    """On a tie-free field, negating the values reverses the vertex order, which swaps
    each vertex's lower and upper links: minima <-> maxima, 1- <-> 2-saddles, while
    degenerate and regular vertices keep their class (vertex for vertex). In 2D a saddle
    stays a saddle (its lower and upper links both have two or more components)."""
    swap = np.array([3, 2, 1, 0, 4] if dimension == 3 else [3, 1, 2, 0, 4], dtype=np.int64)
    assert np.array_equal(np.sort(ids), np.sort(neg_ids)), \
        "%s: negation changed the critical vertex set" % label
    order, neg_order = np.argsort(ids), np.argsort(neg_ids)
    t, nt = np.asarray(types)[order].astype(np.int64), np.asarray(neg_types)[neg_order]
    wrong = np.flatnonzero(swap[t] != nt)
    assert wrong.size == 0, "%s: negation did not swap types at vertices %s (%s -> %s)" % (
        label, np.asarray(ids)[order][wrong][:10], t[wrong][:10], nt[wrong][:10])
    print("%s: negation swaps %d critical points' types as expected" % (label, len(ids)))


def case_negated_random():
    """A tie-free random field on a grid and on a tet mesh, and its negation."""
    rng = np.random.default_rng(21)
    for dims in ((9, 8, 7), (15, 13, 1)):
        n = dims[0] * dims[1] * dims[2]
        values = rng.permutation(n).astype(np.float64)  # distinct: no ties
        img = image(dims, values, "s")
        img.GetPointData().AddArray(numpy_support.numpy_to_vtk(-values, deep=1))
        img.GetPointData().GetArray(1).SetName("neg")
        source = producer(img)
        _, out, messages = run_filter(source, "s")
        _, neg, messages2 = run_filter(source, "neg")
        assert not messages.errors and not messages2.errors
        ids, types = np.asarray(out.PointData["ttkVertexScalarField"]), np.asarray(out.PointData["CriticalType"])
        assert len(ids) > 0
        assert_negation_swaps(ids, types, np.asarray(neg.PointData["ttkVertexScalarField"]),
                              np.asarray(neg.PointData["CriticalType"]), "grid %s" % (dims,),
                              3 if dims[2] > 1 else 2)
    # a tetrahedral mesh of the same kind (the explicit backend)
    tets = Tetrahedralize(Input=producer(image((7, 6, 5), rng.permutation(210).astype(np.float64), "s")))
    calc = Calculator(Input=tets, ResultArrayName="neg", Function="-s")
    _, out, _ = run_filter(calc, "s")
    _, neg, _ = run_filter(calc, "neg")
    assert_negation_swaps(np.asarray(out.PointData["ttkVertexScalarField"]), np.asarray(out.PointData["CriticalType"]),
                          np.asarray(neg.PointData["ttkVertexScalarField"]), np.asarray(neg.PointData["CriticalType"]),
                          "tet mesh")


def case_post_lox():
    mesh_case(LegacyVTKReader(FileNames=[os.path.join(DATA, "tets", "vtk_post_lox.vtk")]),
              "Pressure", 3)


def case_cylinder():
    mesh_case(LegacyVTKReader(
        FileNames=[os.path.join(DATA, "tets", "vtk_cylinder_linear_tets.vtk")]),
        "vel_norm", 3)


def case_combustor():
    mesh_case(XMLUnstructuredGridReader(
        FileName=[os.path.join(DATA, "tets", "combustor_density_tets.vtu")]), "Density", 3,
        cache_check=False)


def case_surface():
    reader = XMLUnstructuredGridReader(
        FileName=[os.path.join(DATA, "surfaces", "ttk_fertility.vtu")])
    reader.UpdatePipeline()
    b = reader.GetDataInformation().GetBounds()
    elevation = Elevation(Input=reader, LowPoint=[b[0], b[2], b[4]],
                          HighPoint=[b[1], 0.5 * (b[2] + b[3]), b[5]])
    ref = mesh_case(elevation, "Elevation", 2, cache_check=False)
    assert ref.euler_domain == -6, ref.euler_domain  # genus 4 (SOURCES.md)


def case_sphere():
    # vtkPolyData of triangles; rings of equal z make many ties
    sphere = Sphere(ThetaResolution=32, PhiResolution=24)
    elevation = Elevation(Input=sphere, LowPoint=[0, 0, -0.5], HighPoint=[0, 0, 0.5])
    ref = mesh_case(elevation, "Elevation", 2, cache_check=False)
    assert ref.euler_domain == 2


def case_mixed_cells():
    # the tets of a 5x5x5 Freudenthal grid plus one hexahedron: the hex is skipped
    dims = (5, 5, 5)
    tets = oracle.grid_cells(dims)
    grid = vtkUnstructuredGrid()
    points = vtkPoints()
    points.SetData(numpy_support.numpy_to_vtk(
        np.ascontiguousarray(image_points(image(dims, np.zeros(125)))), deep=1))
    grid.SetPoints(points)
    grid.Allocate(len(tets) + 1)
    for t in tets:
        grid.InsertNextCell(VTK_TETRA, 4, [int(x) for x in t])
    hexahedron = [0, 1, 6, 5, 25, 26, 31, 30]
    grid.InsertNextCell(VTK_HEXAHEDRON, 8, hexahedron)
    values = np.random.default_rng(7).random(125)
    arr = numpy_support.numpy_to_vtk(values, deep=1)
    arr.SetName("random")
    grid.GetPointData().AddArray(arr)
    source = producer(grid)
    cp, out, messages = run_filter(source, "random")
    assert any("1 of %d cells" % (len(tets) + 1) in w for w in messages.warnings), \
        messages.warnings
    check(out, messages, grid, "random", tets, 3)


def case_bad_inputs():
    wavelet = Wavelet(WholeExtent=[0, 5, 0, 5, 0, 5])
    expect_error(wavelet, "NoSuchArray", "NoSuchArray")

    img = image((6, 6, 6), np.random.default_rng(1).random((216, 3)), "vectors")
    expect_error(producer(img), "vectors", "3 components")

    values = np.random.default_rng(2).random(216)
    values[17] = np.nan
    expect_error(producer(image((6, 6, 6), values)), "s", "NaN")

    values[17] = np.inf
    expect_error(producer(image((6, 6, 6), values)), "s", "infinite")

    empty = vtkUnstructuredGrid()
    empty.SetPoints(vtkPoints())
    e = vtkDoubleArray()
    e.SetName("s")
    empty.GetPointData().AddArray(e)
    expect_error(producer(empty), "s", "empty")

    expect_error(producer(image((10, 1, 1), np.arange(10.0))), "s", "fewer than two axes")

    for cell_type, label in ((VTK_QUAD, "quads"), (VTK_LINE, "lines")):
        poly = vtkPolyData()
        pts = vtkPoints()
        for p in ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)):
            pts.InsertNextPoint(p)
        poly.SetPoints(pts)
        cells = vtkCellArray()
        if cell_type == VTK_QUAD:
            cells.InsertNextCell(4, [0, 1, 2, 3])
            poly.SetPolys(cells)
        else:
            cells.InsertNextCell(2, [0, 1])
            cells.InsertNextCell(2, [2, 3])
            poly.SetLines(cells)
        f = vtkFloatArray()
        f.SetName("s")
        for v in (0, 1, 2, 3):
            f.InsertNextValue(v)
        poly.GetPointData().AddArray(f)
        expect_error(producer(poly), "s", "no triangle or tetrahedron")
        print("%s: %s rejected" % (CASE, label))

    # after errors the same filter object recovers on good input
    cp, out, messages = run_filter(producer(image((6, 6, 6), np.random.default_rng(3).random(216))), "s")
    assert out.VTKObject.GetNumberOfPoints() > 0 and not messages.errors


def case_progress_abort():
    """Progress is reported during the run; aborting from a progress callback (what
    ParaView's abort button does) ends with an empty output and no error; the next run
    is complete again."""
    rng = np.random.default_rng(11)
    source = producer(image((80, 70, 60), rng.random(80 * 70 * 60), "noise"))
    cp = TopoGPUCriticalPoints(Input=source)
    cp.SelectInputScalars = ["POINTS", "noise"]
    cp.Backend = "CPU"
    inner, full = pv_helpers.check_progress_and_abort(
        cp, Messages(cp), [0.2], lambda p: servermanager.Fetch(p).GetNumberOfPoints(),
        late=0.9)
    assert full > 0, "no critical points on a random field"
    # every stage reports: the triangulation ends at 10%, the core call fills 10%..95%
    assert any(abs(p - 0.1) < 1e-9 for p in inner), "no triangulation progress: %r" % inner
    assert max(inner) >= 0.9, "the core's progress does not reach its end: %r" % inner
    print("progress_abort: %d progress steps, abort honoured, rerun complete" % len(set(inner)))


def bit_array(name, n):
    from vtkmodules.vtkCommonCore import vtkBitArray
    bits = vtkBitArray()
    bits.SetName(name)
    bits.SetNumberOfValues(n)
    for i in range(n):
        bits.SetValue(i, i % 2)
    return bits


def case_array_choices():
    """The GUI offers numeric one-component point arrays only: no string, bit or
    multi-component arrays; every numeric type the core reads is offered. Choosing a bit
    array anyway (pvpython) is an error naming it."""
    from vtkmodules.vtkCommonCore import vtkStringArray
    img = image((3, 3, 3), np.arange(27, dtype=np.float32), "f")
    labels = vtkStringArray()
    labels.SetName("labels")
    labels.SetNumberOfValues(27)
    img.GetPointData().AddArray(labels)
    img.GetPointData().AddArray(bit_array("bits", 27))
    for name, dtype in (("u8", np.uint8), ("i64", np.int64), ("d", np.float64)):
        array = numpy_support.numpy_to_vtk(np.arange(27).astype(dtype), deep=1)
        array.SetName(name)
        img.GetPointData().AddArray(array)
    vectors = numpy_support.numpy_to_vtk(np.zeros((27, 3)), deep=1)
    vectors.SetName("vec")
    img.GetPointData().AddArray(vectors)
    source = producer(img)
    source.UpdatePipeline()
    cp = TopoGPUCriticalPoints(Input=source)
    domain = cp.GetProperty("SelectInputScalars").SMProperty.GetDomain("array_list")
    offered = sorted(domain.GetString(i) for i in range(domain.GetNumberOfStrings()))
    assert offered == ["d", "f", "i64", "u8"], "arrays offered: %r" % offered
    print("array_choices: offered %r" % offered)
    text = expect_error(source, "bits", "bit array")
    assert "bits" in text, text


def case_second_filter():
    """A TopoGPU filter after another one: the label arrays the first outputs
    (CriticalType, IsOnBoundary, ttkVertexScalarField; CellDimension, CellId, ...) are
    neither the default input array nor offered in the GUI's list; the field is. When only
    labels are left, the error says so; a named array that exists elsewhere than the
    point data is reported where it is."""
    wavelet = Wavelet()
    wavelet.WholeExtent = [-6, 6, -6, 6, -6, 6]
    for first in (TopoGPUCriticalPoints(Input=wavelet),
                  OutputPort(TopoGPUMorseSmaleComplex(Input=wavelet), 0)):
        mesh = Delaunay3D(Input=first)  # a tet mesh over the first filter's points
        mesh.UpdatePipeline()
        before = fetch(mesh)
        labels = [name for name in before.PointData.keys() if name != "RTData"]
        assert labels and "RTData" in before.PointData.keys(), before.PointData.keys()
        smoother = TopoGPUScalarFieldSmoother(Input=mesh)
        domain = smoother.GetProperty("SelectInputScalars").SMProperty.GetDomain("array_list")
        offered = [domain.GetString(i) for i in range(domain.GetNumberOfStrings())]
        assert offered == ["RTData"], "arrays offered after %s: %r" % (labels, offered)
        errors = Messages(smoother).errors
        out = fetch(smoother)
        assert not errors, errors
        for name in labels:  # the labels pass through, the field is smoothed
            assert np.array_equal(np.asarray(out.PointData[name]),
                                  np.asarray(before.PointData[name])), name
        assert not np.array_equal(np.asarray(out.PointData["RTData"]),
                                  np.asarray(before.PointData["RTData"])), "RTData not smoothed"
        print("second_filter: the smoother offers and takes RTData, not %s" % labels)
    # only labels left (the discrete gradient's labels without the scalar it carries as
    # TTK's): an error naming them, not a run on CellDimension
    for first, label in ((PassArrays(Input=TopoGPUDiscreteGradient(Input=wavelet),
                                     PointDataArrays=["CellDimension", "CellId",
                                                      "IsOnBoundary", "ttkVertexScalarField"]),
                          "CellDimension"),
                         (PassArrays(Input=TopoGPUCriticalPoints(Input=wavelet),
                                     PointDataArrays=["CriticalType", "IsOnBoundary"]),
                          "CriticalType")):
        cp = TopoGPUCriticalPoints(Input=Delaunay3D(Input=first))
        messages = Messages(cp)
        out = fetch(cp)
        text = " ".join(messages.errors)
        assert out.VTKObject.GetNumberOfPoints() == 0 and "labels" in text and \
            label in text, text
        print("second_filter: only labels: %s" % text.strip().splitlines()[-1])
    # the named array where it is: point data asked as field data, field and cell data
    # asked as point data
    cp = TopoGPUCriticalPoints(Input=wavelet)
    messages = Messages(cp)
    cp.SelectInputScalars = ["FIELD", "RTData"]
    fetch(cp)
    text = " ".join(messages.errors)
    assert "as point data" in text and "'POINTS', 'RTData'" in text, text
    # (a cell array asked as point data is interpolated to the points by ParaView's
    # automatic conversion before the filter sees it)
    img = image((4, 4, 4), np.arange(64, dtype=np.float32), "f")
    array = numpy_support.numpy_to_vtk(np.arange(1, dtype=np.float64), deep=1)
    array.SetName("T")
    img.GetFieldData().AddArray(array)
    text = expect_error(producer(img), "T", "'T' is field data")
    assert "point arrays: f" in text, text


def case_default_array():
    """Without SelectInputScalars (pvpython), the filter runs on the active point
    scalars, else on the first numeric one-component point array, as the GUI would."""
    wavelet = Wavelet()
    cp = TopoGPUCriticalPoints(Input=wavelet)
    messages = Messages(cp)
    cp.UpdatePipeline()
    assert not messages.errors, messages.errors
    default = dsa.WrapDataObject(servermanager.Fetch(cp))
    _, explicit, _ = run_filter(wavelet, "RTData")
    assert "RTData" in default.PointData.keys(), default.PointData.keys()
    assert len(default.Points) > 0
    assert np.array_equal(default.PointData["ttkVertexScalarField"],
                          explicit.PointData["ttkVertexScalarField"])
    assert np.array_equal(default.PointData["CriticalType"], explicit.PointData["CriticalType"])
    # no active scalars: a bit array and a vector come first, then the numeric scalar
    rng = np.random.default_rng(5)
    img = vtkImageData()
    img.SetDimensions(6, 5, 4)
    img.GetPointData().AddArray(bit_array("bits", 120))
    vectors = numpy_support.numpy_to_vtk(np.zeros((120, 3)), deep=1)
    vectors.SetName("vec")
    img.GetPointData().AddArray(vectors)
    values = numpy_support.numpy_to_vtk(rng.random(120), deep=1)
    values.SetName("height")
    img.GetPointData().AddArray(values)
    assert img.GetPointData().GetScalars() is None
    cp2 = TopoGPUCriticalPoints(Input=producer(img))
    messages2 = Messages(cp2)
    cp2.UpdatePipeline()
    assert not messages2.errors, messages2.errors
    out = dsa.WrapDataObject(servermanager.Fetch(cp2))
    assert "height" in out.PointData.keys() and len(out.Points) > 0, out.PointData.keys()
    # nothing usable: an error that names the arrays present
    only_bits = vtkImageData()
    only_bits.SetDimensions(3, 3, 3)
    only_bits.GetPointData().AddArray(bit_array("bits", 27))
    cp3 = TopoGPUCriticalPoints(Input=producer(only_bits))
    messages3 = Messages(cp3)
    cp3.UpdatePipeline()
    assert messages3.errors and "numeric" in messages3.errors[-1] and "bits" in messages3.errors[-1], \
        messages3.errors
    assert servermanager.Fetch(cp3).GetNumberOfPoints() == 0
    print("default_array: RTData by default, 'height' when no active scalars, error when none")


def case_triangulations():
    """The Triangulation property (Auto / Explicit / GALE GPU / GALE CPU): the output is
    identical with each, on a tet mesh, a triangle surface and an image (stored as tets
    for Explicit and GALE); GALE with GPU producers warns when it runs on the CPU."""
    sources = [
        (LegacyVTKReader(FileNames=[os.path.join(DATA, "tets", "vtk_post_lox.vtk")]),
         "Pressure"),
        (Elevation(Input=Sphere(ThetaResolution=32, PhiResolution=24),
                   LowPoint=[0, 0, -0.5], HighPoint=[0, 0, 0.5]), "Elevation"),
        (Wavelet(WholeExtent=[0, 14, 0, 12, 0, 10]), "RTData"),
    ]
    for source, array in sources:
        outputs = []
        for choice in ["Auto", "Explicit", "GALE (GPU producers)", "GALE (CPU producers)"]:
            cp = TopoGPUCriticalPoints(Input=source)
            messages = Messages(cp)
            cp.SelectInputScalars = ["POINTS", array]
            cp.Triangulation = choice
            out = fetch(cp)
            assert not messages.errors, messages.errors
            gpu_warned = any("GALE" in w and "CPU producers" in w for w in messages.warnings)
            # the GPU choice warns when it runs on CPU producers (no device); no other does
            assert not gpu_warned or choice == "GALE (GPU producers)", messages.warnings
            outputs.append({name: np.array(out.PointData[name]) for name in
                            ("CriticalType", "IsOnBoundary", "ttkVertexScalarField")})
            outputs[-1]["points"] = np.array(out.Points)
            Delete(cp)
        assert len(outputs[0]["CriticalType"]) > 0, array
        for other in outputs[1:]:
            for key, values in outputs[0].items():
                assert np.array_equal(values, other[key]), (array, key)
        print("triangulations: %s, %d critical points, identical with the 4 choices"
              % (array, len(outputs[0]["CriticalType"])))


def case_documentation():
    """The help ships in the plugin (Debian's ParaView has no Qt help): the filter and
    each of its properties carry a short and a long help, shown as the panel's tooltips;
    the representation hint asks for point sprites."""
    cp = TopoGPUCriticalPoints(Input=Wavelet())
    names = documented_properties(cp)
    assert {"Input", "SelectInputScalars", "Backend", "Triangulation"} <= set(names), names
    hints = cp.SMProxy.GetHints()
    hint = hints.FindNestedElementByName("RepresentationType") if hints else None
    assert hint is not None and hint.GetAttribute("type") == "Point Gaussian", "no sprite hint"
    assert hints.FindNestedElementByName("ShowProxyDocumentationInPanel") is not None
    print("documentation: filter and %d properties documented" % len(names))


pv_helpers.run_case(globals(), CASE)
