"""pvpython checks of the TopoGPU Scalar Field Smoother filter against the numpy oracle
(smoother_oracle.py: neighbours from the cells, TTK's tets corner list on images).

Usage: pvpython scalar_field_smoother_test.py PLUGIN DATA_DIR CASE
Each CASE is one ctest; a failed check raises, so pvpython exits non-zero.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smoother_oracle as oracle  # noqa: E402
from pv_helpers import Messages, documented_properties, fetch  # noqa: E402
import pv_helpers  # noqa: E402

from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util import numpy_support  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkImageData, vtkPolyData, vtkUnstructuredGrid  # noqa: E402,E501

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())


def cells_of(data):
    """Point ids of every cell (all triangles or all tets), from the data set itself."""
    obj = data.VTKObject
    if isinstance(obj, vtkImageData):
        return oracle.grid_cells(obj.GetDimensions())
    cell_array = obj.GetPolys() if isinstance(obj, vtkPolyData) else obj.GetCells()
    offsets = numpy_support.vtk_to_numpy(cell_array.GetOffsetsArray())
    ids = numpy_support.vtk_to_numpy(cell_array.GetConnectivityArray()).astype(np.int64)
    sizes = np.diff(offsets)
    assert sizes.size and np.all(sizes == sizes[0]), "mixed cell sizes"
    return ids.reshape(-1, int(sizes[0]))


def check_smoother(source, array, iterations, mask=None):
    """Runs the filter and compares the smoothed array with the oracle; the rest of the
    input must pass through unchanged."""
    before = fetch(source)
    smoother = TopoGPUScalarFieldSmoother(Input=source)
    errors = Messages(smoother).errors
    smoother.SelectInputScalars = ["POINTS", array]
    smoother.NumberOfIterations = iterations
    if mask is not None:
        smoother.ForceInputMaskScalarField = 1
        smoother.InputMask = ["POINTS", mask]
    out = fetch(smoother)
    assert not errors, errors
    assert out.VTKObject.GetClassName() == before.VTKObject.GetClassName()
    assert out.VTKObject.GetNumberOfPoints() == before.VTKObject.GetNumberOfPoints()
    assert out.VTKObject.GetNumberOfCells() == before.VTKObject.GetNumberOfCells()
    values = np.asarray(before.PointData[array])
    got = np.asarray(out.PointData[array])
    assert got.dtype == values.dtype, (got.dtype, values.dtype)
    mask_values = None if mask is None else np.asarray(before.PointData[mask])
    expected = oracle.smooth(values, oracle.edges_of_cells(cells_of(before)), iterations,
                             mask_values)
    bad = oracle.mismatches(got, expected, values.dtype)
    assert bad.size == 0, "%d of %d values differ from the oracle, e.g. vertex %d: %r vs %r" % (
        bad.size, got.size, bad[0], got[bad[0]], expected[bad[0]])
    if iterations > 0 and mask is None:  # masked extremes may stay
        spread = lambda a: a.max() - a.min() if a.dtype.kind == "f" else int(a.max()) - int(a.min())  # noqa: E731,E501
        assert spread(got) < spread(values), "range did not shrink"
    for name in before.PointData.keys():
        if name != array:
            assert np.array_equal(np.asarray(out.PointData[name]),
                                  np.asarray(before.PointData[name])), name + " changed"
    backend = out.FieldData["TopoGPUBackend"].GetValue(0)
    assert backend in ("cpu", "gpu"), backend
    print("%s: %d values smoothed %d times on the %s, as the oracle" % (
        CASE, got.size, iterations, backend))
    return smoother, out


def image(dims, arrays):
    img = vtkImageData()
    img.SetDimensions(*dims)
    for name, values in arrays.items():
        a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
        a.SetName(name)
        img.GetPointData().AddArray(a)
    img.GetPointData().SetActiveScalars(list(arrays)[0])
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(img)
    return source


# ---- cases ---------------------------------------------------------------------------
def case_wavelet3d():
    _, out = check_smoother(Wavelet(), "RTData", 3)
    assert out.PointData.GetScalars().GetName() == "RTData", "no longer the active scalars"


def case_image2d_types():
    rng = np.random.default_rng(3)
    for dtype in (np.uint8, np.int16, np.int32, np.float64):
        info = np.iinfo(dtype) if np.dtype(dtype).kind != "f" else None
        values = (rng.integers(info.min, info.max, 23 * 17, endpoint=True) if info
                  else rng.normal(size=23 * 17)).astype(dtype)
        check_smoother(image((23, 17, 1), {"s": values, "other": np.arange(23 * 17.0)}),
                       "s", 2)


def case_wide_integers():
    """64-bit integers near their limits (where a double holds them only to 2^10 or
    2^11): exactly the oracle's Python-integer passes, and the range never grows."""
    rng = np.random.default_rng(8)
    n = 7 * 6 * 5
    for dtype in (np.int64, np.uint64):
        info = np.iinfo(dtype)
        offsets = rng.integers(0, 3000, n).astype(dtype)
        high = (np.array(info.max, dtype) - offsets).astype(dtype)
        low = (np.array(info.min, dtype) + offsets).astype(dtype)
        values = np.where(rng.random(n) < 0.5, low, high) if info.min < 0 else high
        source = image((7, 6, 5), {"s": values.astype(dtype)})
        check_smoother(source, "s", 3)
        out = np.asarray(fetch(TopoGPUScalarFieldSmoother(Input=source,
                                                          NumberOfIterations=3)).PointData["s"])
        assert out.min() >= values.min() and out.max() <= values.max(), "the range grew"


def case_mask():
    rng = np.random.default_rng(4)
    n = 9 * 8 * 7
    check_smoother(image((9, 8, 7), {"s": rng.normal(size=n),
                                      "keep": (rng.random(n) < 0.7).astype(np.int8)}),
                   "s", 3, mask="keep")


def case_sphere():
    sphere = Sphere(ThetaResolution=32, PhiResolution=24)
    check_smoother(Elevation(Input=sphere, LowPoint=[0, 0, -0.5], HighPoint=[0, 0, 0.5]),
                   "Elevation", 4)


def case_tets():
    path = os.path.join(DATA, "tets", "vtk_post_lox.vtk")
    if not os.path.exists(path):
        print("SKIP: no %s" % path)
        return
    check_smoother(LegacyVTKReader(FileNames=[path]), "Pressure", 2)


def case_default_array():
    # pvpython without SelectInputScalars: the active point scalars (RTData)
    smoother = TopoGPUScalarFieldSmoother(Input=Wavelet())
    errors = Messages(smoother).errors
    out = fetch(smoother)
    assert not errors, errors
    before = np.asarray(fetch(Wavelet()).PointData["RTData"])
    assert not np.array_equal(np.asarray(out.PointData["RTData"]), before), "not smoothed"


def case_bad_inputs():
    values = np.arange(5 * 4 * 3, dtype=np.float32)
    values[7] = np.nan
    for source, settings, fragment in [
            (image((5, 4, 3), {"s": values}), {}, "NaN or infinite value at vertex 7"),
            (Wavelet(), {"SelectInputScalars": ["POINTS", "nope"]}, "no point scalar array"),
            (Wavelet(), {"ForceInputMaskScalarField": 1,
                         "InputMask": ["POINTS", "missing"]}, "mask")]:
        smoother = TopoGPUScalarFieldSmoother(Input=source)
        errors = Messages(smoother).errors
        for key, value in settings.items():
            setattr(smoother, key, value)
        out = fetch(smoother)
        assert out.VTKObject.GetNumberOfPoints() == 0, "output not empty"
        text = " ".join(errors)
        assert fragment.lower() in text.lower(), "error %r lacks %r" % (text, fragment)
        print("bad input: error as expected: %s" % text.strip().splitlines()[-1])


def case_ranges():
    """NumberOfIterations takes the CLI's range, 0 to 1000000, and the XML domain says the
    same; a count outside it is refused with an error naming it and the range, and the
    filter does not run (2000000 passes over a Wavelet would take many minutes). The CLI
    states and enforces the same range. Enumerations out of range are clamped by their
    setters (Backend 7 becomes GPU, -1 Auto)."""
    import subprocess
    import time
    smoother = TopoGPUScalarFieldSmoother(Input=Wavelet())
    domain = smoother.GetProperty("NumberOfIterations").SMProperty.FindDomain(
        "vtkSMIntRangeDomain")
    limits = (domain.GetMinimum(0), domain.GetMaximum(0))
    assert limits == (0, 1000000), "XML domain %r" % (limits,)
    errors = Messages(smoother).errors
    for count in (2000000, -3, limits[1] + 1):
        del errors[:]
        smoother.NumberOfIterations = count
        start = time.time()
        out = fetch(smoother)
        elapsed = time.time() - start
        text = " ".join(errors)
        assert "between 0 and 1000000, got %d" % count in text, text
        assert out.VTKObject.GetNumberOfPoints() == 0, "output not empty"
        assert elapsed < 20, "%d iterations ran for %.1f s before being refused" % (
            count, elapsed)
        print("ranges: %d refused in %.2f s: %s" % (count, elapsed, text.strip()))
    smoother.NumberOfIterations = 3
    errors_before = len(errors)
    assert fetch(smoother).VTKObject.GetNumberOfPoints() > 0 and len(errors) == errors_before
    cli = os.environ.get("TOPOGPU_CLI")
    if cli:
        usage = subprocess.run([cli, "smooth", "--help"], capture_output=True, text=True)
        assert "0 to %d" % limits[1] in usage.stdout, usage.stdout
        raw = os.path.join(os.environ.get("TMPDIR", "/tmp"), "topogpu_ranges_%d.raw" % os.getpid())
        np.arange(8, dtype=np.float32).tofile(raw)
        try:
            for count, code in ((limits[1] + 1, 1), (-1, 1)):
                run = subprocess.run([cli, "smooth", "--raw", raw, "--dims", "2,2,2", "--type",
                                      "float32", "--iterations", str(count)],
                                     capture_output=True, text=True)
                assert run.returncode == code and "--iterations" in run.stderr, run.stderr
        finally:
            os.unlink(raw)
    # Backend 7 is clamped to GPU: without a device (or on the CPU fallback) it says so;
    # -1 is clamped to Auto, which never warns
    messages = Messages(smoother)
    for value, gpu in ((7, True), (-1, False)):
        del messages.warnings[:]
        smoother.Backend = value
        smoother.NumberOfIterations = 1 + value % 5  # a change, so that it runs again
        out = fetch(smoother)
        ran = out.FieldData["TopoGPUBackend"].GetValue(0)
        warned = any("GPU" in w for w in messages.warnings)
        assert (ran == "gpu" or warned) if gpu else not warned, (value, ran, messages.warnings)
    print("ranges: the XML domain, the filter and the CLI agree on 0..%d" % limits[1])


def case_documentation():
    names = documented_properties(TopoGPUScalarFieldSmoother(Input=Wavelet()))
    assert {"Input", "SelectInputScalars", "NumberOfIterations", "ForceInputMaskScalarField",
            "InputMask", "Backend"} <= set(names), names
    print("documentation: filter and %d properties documented" % len(names))


pv_helpers.run_case(globals(), CASE)
