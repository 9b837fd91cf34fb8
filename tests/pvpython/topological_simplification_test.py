"""The TopoGPU Topological Simplification filter (TTK's TopologicalSimplification)
against oracles:

  * the CLI, `topogpu simplify --out x.vti|x.vtu` on the same file (a separate front end
    reading it itself): the simplified values and the `<field>_Order` array equal the
    filter's bit for bit (3D and 2D images, a tet mesh, threshold and constraints);
  * GUDHI (tests/oracles/simplicial_persistence.py, no project code): the output's
    persistence diagram, computed by the TopoGPU Persistence Diagram filter reading the
    output's `<field>_Order`, has GUDHI's pairs of the output's order (vertex for vertex),
    and its pairs of positive persistence are the input's (GUDHI on the input) minus the
    removed extremum pairs (those of persistence below the threshold), value for value,
    on a small 2D case;
  * constraints from a Threshold of the diagram (Persistence >= T, IsFinite) give the
    output of the threshold T and the CLI's --constraints; on Persistence alone the
    essential row keeps the global maximum too;
  * bad input (NaN, a negative threshold, empty constraints, constraints without
    ttkVertexScalarField): an error naming the problem and an empty output; progress
    and abort; the documentation.

Usage: pvpython topological_simplification_test.py PLUGIN DATA_DIR CASE
(TOPOGPU_CLI: the CLI)
"""
import collections
import os
import subprocess
import sys
import tempfile

import numpy as np

from paraview import servermanager
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonDataModel import vtkImageData, vtkUnstructuredGrid
from vtkmodules.vtkIOXML import vtkXMLDataSetWriter, vtkXMLGenericDataObjectReader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import pv_helpers  # noqa: E402
from pv_helpers import Messages, documented_properties  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
from paraview.simple import Threshold, TrivialProducer  # noqa: E402

CLI = os.environ.get("TOPOGPU_CLI", "")


def image(values):
    """A vtkImageData of values ([z, y, x]) as the point scalar "f"."""
    img = vtkImageData()
    img.SetDimensions(values.shape[2], values.shape[1], values.shape[0])
    img.SetSpacing(1.0, 0.5, 2.0)
    a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values.ravel()), deep=1)
    a.SetName("f")
    img.GetPointData().AddArray(a)
    img.GetPointData().SetActiveScalars("f")
    return img


def tet_mesh(values):
    """An unstructured grid of tets (VTK's split of the image of values) with "f"."""
    from vtkmodules.vtkFiltersGeneral import vtkDataSetTriangleFilter
    split = vtkDataSetTriangleFilter()
    split.SetInputData(image(values))
    split.Update()
    return split.GetOutput()


def producer(data):
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    return source


def simplify(data, constraints=None, **properties):
    properties.setdefault("Backend", "CPU")
    f = TopoGPUTopologicalSimplification(Input=producer(data),  # noqa: F405
                                         ScalarField=["POINTS", "f"], **properties)
    if constraints is not None:
        f.Constraints = constraints
    messages = Messages(f)
    f.UpdatePipeline()
    return f, servermanager.Fetch(f), messages


def field(out):
    pd = out.GetPointData()
    return (numpy_support.vtk_to_numpy(pd.GetArray("f")),
            numpy_support.vtk_to_numpy(pd.GetArray("f_Order")))


def write(data, path):
    writer = vtkXMLDataSetWriter()
    writer.SetFileName(path)
    writer.SetInputData(data)
    assert writer.Write() == 1, path


def cli_simplify(data, *options):
    """`topogpu simplify` on data written to a file: the output's values and order."""
    assert CLI and os.path.exists(CLI), "TOPOGPU_CLI is not set"
    with tempfile.TemporaryDirectory() as tmp:
        ext = ".vti" if isinstance(data, vtkImageData) else ".vtu"
        path, out = os.path.join(tmp, "in" + ext), os.path.join(tmp, "out" + ext)
        write(data, path)
        run = subprocess.run([CLI, "simplify", "--mesh", path, "--array", "f", "--backend",
                              "cpu", "--out", out, *options],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        reader = vtkXMLGenericDataObjectReader()
        reader.SetFileName(out)
        reader.Update()
        return field(reader.GetOutput())


def same_as_cli(name, data, out, *options):
    values, order = field(out)
    cli_values, cli_order = cli_simplify(data, *options)
    assert values.dtype == cli_values.dtype, (name, values.dtype, cli_values.dtype)
    assert np.array_equal(values.view(np.uint8), cli_values.view(np.uint8)), \
        "%s: values differ from the CLI's" % name
    assert np.array_equal(order, cli_order), "%s: order differs from the CLI's" % name


def counts(out, name):
    return numpy_support.vtk_to_numpy(out.GetFieldData().GetArray(name))


def case_cli():
    rng = np.random.default_rng(21)
    for name, values in (("3d float32", rng.random((6, 7, 8)).astype(np.float32)),
                         ("2d uint8", rng.integers(0, 40, (1, 15, 17)).astype(np.uint8))):
        data = image(values)
        span = float(values.max()) - float(values.min())
        _, out, messages = simplify(data, PersistenceThreshold=0.2 * span,
                                    ThresholdIsAbsolute=1)
        assert not messages.errors, messages.errors
        assert counts(out, "RemovedPairCounts").sum() > 0, name
        same_as_cli(name, data, out, "--threshold", repr(0.2 * span))
        # relative (TTK's default): the same as the absolute threshold
        _, relative, _ = simplify(data, PersistenceThreshold=0.2)
        assert np.array_equal(field(relative)[1], field(out)[1]), name
        print("%s: %s removed, as the CLI's bit for bit" % (
            name, counts(out, "RemovedPairCounts").tolist()))
    mesh = tet_mesh(rng.random((4, 5, 5)))
    _, out, messages = simplify(mesh, PersistenceThreshold=0.3, ThresholdIsAbsolute=1)
    assert not messages.errors, messages.errors
    assert out.IsA("vtkUnstructuredGrid")
    same_as_cli("mesh", mesh, out, "--threshold", "0.3")
    print("mesh: as the CLI's bit for bit")


def value_pairs(grid):
    """A diagram's finite pairs of positive persistence as (PairType, Birth, Death)."""
    get = lambda n: numpy_support.vtk_to_numpy(grid.GetCellData().GetArray(n))  # noqa: E731
    pair, kind, birth, death, finite = (get(n) for n in (
        "PairIdentifier", "PairType", "Birth", "Death", "IsFinite"))
    keep = (pair >= 0) & (finite == 1) & (death > birth)
    return collections.Counter(zip(kind[keep].astype(int).tolist(),
                                   birth[keep].astype(float).tolist(),
                                   death[keep].astype(float).tolist()))


def case_diagram():
    """The output's diagram (our filter reading f_Order) against GUDHI: vertex pairs of
    the output's order, and the input's value pairs minus the removed ones."""
    values = np.random.default_rng(22).random((1, 9, 10))
    ny, nx = values.shape[1:]
    tops = oracle.grid_simplices(nx, ny, 1)
    threshold = 0.25
    _, out, messages = simplify(image(values), PersistenceThreshold=threshold,
                                ThresholdIsAbsolute=1)
    assert not messages.errors, messages.errors
    new_values, new_order = field(out)
    diagram = TopoGPUPersistenceDiagram(Input=producer(out), ScalarField=["POINTS", "f"],  # noqa: F405
                                        Backend="CPU")
    diagram.UpdatePipeline()
    grid = servermanager.Fetch(diagram)
    assert grid.GetFieldData().GetAbstractArray("TopoGPUOrderArray").GetValue(0) == "f_Order"
    ours, _ = pv_helpers.diagram_vertex_pairs(grid, new_values)
    finite, _ = oracle.gudhi_vertex_pairs(tops, new_order)
    assert ours == collections.Counter(finite), "the output's pairs are not GUDHI's"
    ours_values = value_pairs(grid)

    before, _ = oracle.gudhi_diagram(tops, values.ravel())
    # in 2D every pair is an extremum pair: those of persistence >= threshold stay
    kept = collections.Counter((d, b, e) for d, b, e in before if e - b >= threshold)
    assert ours_values == kept, "ours-kept %s, kept-ours %s" % (
        list((ours_values - kept).items())[:4], list((kept - ours_values).items())[:4])
    removed = collections.Counter(d for d, b, e in before if e - b < threshold)
    assert list(counts(out, "RemovedPairCounts")[:2]) == [removed[0], removed[1]], \
        (counts(out, "RemovedPairCounts"), removed)
    print("diagram: %d pairs kept as GUDHI's, %s removed" % (sum(kept.values()),
                                                             dict(removed)))


def case_constraints():
    """A Threshold of the diagram as the constraints. Its finite pairs of persistence
    >= T (a Threshold on Persistence, then on IsFinite) give the output of the threshold
    T, and the CLI's --constraints with the same points; a Threshold on Persistence alone
    also keeps the essential row (the global minimum to the global maximum): the global
    maximum stays in every mode, so nothing changes."""
    values = np.random.default_rng(23).random((6, 7, 8)).astype(np.float32)
    data = image(values)
    threshold = 0.3
    _, by_threshold, _ = simplify(data, PersistenceThreshold=threshold,
                                  ThresholdIsAbsolute=1)
    diagram = TopoGPUPersistenceDiagram(Input=producer(data), ScalarField=["POINTS", "f"],  # noqa: F405
                                        Backend="CPU")
    kept = Threshold(Input=diagram, Scalars=["CELLS", "Persistence"],
                     LowerThreshold=threshold, UpperThreshold=1e30)
    finite = Threshold(Input=kept, Scalars=["CELLS", "IsFinite"], LowerThreshold=1,
                       UpperThreshold=1)
    _, by_constraints, messages = simplify(data, constraints=finite)
    assert not messages.errors, messages.errors
    for a, b, what in zip(field(by_threshold), field(by_constraints), ("values", "order")):
        assert np.array_equal(a, b), "constraints: %s differ from the threshold's" % what
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kept.vtu")
        write(servermanager.Fetch(finite), path)
        cli_values, cli_order = cli_simplify(data, "--constraints", path)
    assert np.array_equal(cli_order, field(by_constraints)[1])
    assert np.array_equal(cli_values, field(by_constraints)[0])
    # Persistence alone: the essential row's global maximum, kept by every mode
    _, with_essential, messages = simplify(data, constraints=kept)
    assert not messages.errors, messages.errors
    for a, b, what in zip(field(by_threshold), field(with_essential), ("values", "order")):
        assert np.array_equal(a, b), "essential row: %s differ from the threshold's" % what
    top = int(np.argmax(values.ravel()))
    assert field(by_threshold)[0][top] == values.ravel()[top], "global maximum changed"
    print("constraints: %d points, the threshold's output and the CLI's, with or without "
          "the essential row" % servermanager.Fetch(finite).GetNumberOfPoints())


def case_bad_inputs():
    values = np.random.default_rng(24).random((3, 4, 5))
    nan = values.copy()
    nan[1, 2, 3] = np.nan
    cases = [(image(nan), {}, None, "NaN"),
             (image(values), {"PersistenceThreshold": -0.1}, None, "threshold"),
             (image(values), {"MaximumIterations": 0}, None, "iterations"),
             (image(values), {"MemoryBudget": -1.0}, None, "Memory Budget")]
    diagram = TopoGPUPersistenceDiagram(Input=producer(image(values)))  # noqa: F405
    nothing = Threshold(Input=diagram, Scalars=["CELLS", "Persistence"],
                        LowerThreshold=1e9, UpperThreshold=1e30)
    cases.append((image(values), {}, nothing, "the Constraints input has no points"))
    no_ids = TrivialProducer()
    cloud = vtkUnstructuredGrid()
    from vtkmodules.vtkCommonCore import vtkPoints
    points = vtkPoints()
    points.InsertNextPoint(0, 0, 0)
    cloud.SetPoints(points)
    no_ids.GetClientSideObject().SetOutput(cloud)
    cases.append((image(values), {}, no_ids, "ttkVertexScalarField"))
    for data, properties, constraints, needle in cases:
        _, out, messages = simplify(data, constraints, **properties)
        assert any(needle in e for e in messages.errors), (needle, messages.errors)
        assert out.GetNumberOfPoints() == 0, needle
        print("bad input %r: %s" % (needle, messages.errors[0].strip().splitlines()[-1][:150]))


def case_progress_abort():
    data = image(np.random.default_rng(25).random((24, 24, 24)).astype(np.float32))
    f = TopoGPUTopologicalSimplification(Input=producer(data), Backend="CPU",  # noqa: F405
                                         PersistenceThreshold=0.1)
    inner, full = pv_helpers.check_progress_and_abort(
        f, Messages(f), [0.3, 0.55], lambda p: servermanager.Fetch(p).GetNumberOfPoints())
    assert full > 0, "the simplified field has no points"
    print("progress_abort: %d steps, aborts honoured" % len(set(inner)))


def case_documentation():
    f = TopoGPUTopologicalSimplification(Input=producer(image(np.zeros((2, 2, 2)))))  # noqa: F405
    names = documented_properties(f)
    assert {"Input", "Constraints", "SelectInputScalars", "PersistenceThreshold",
            "ThresholdIsAbsolute", "MaximumIterations", "MemoryBudget",
            "Backend"} <= set(names), names
    text = " ".join(f.SMProxy.GetDocumentation().GetDescription().split())
    for word in ("TTK's TopologicalSimplification", "topogpu simplify", "_Order",
                 "KeptPairCounts", "RemovedPairCounts", "ttkVertexScalarField"):
        assert word in text, word
    assert f.ListProperties().count("ScalarField") == 1, f.ListProperties()
    print("documentation: %d properties" % len(names))


pv_helpers.run_case(globals(), CASE)
