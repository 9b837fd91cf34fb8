"""Every TopoGPU filter against every input type it rejects: the filter (or ParaView's
pipeline, for a data type the input port does not take) reports an error naming the
problem, and every output port is a valid empty data set that servermanager.Fetch can
transfer. Each filter runs in a child pvpython, so that a crash (a Fetch of a grid left
without coordinate arrays kills pvpython) fails its case instead of the whole test.

    pvpython rejected_inputs_test.py PLUGIN DATA KIND    (one ctest per input kind)
    pvpython rejected_inputs_test.py PLUGIN DATA child:KIND:FILTER   (what a case runs)
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402

# The filters and their number of output ports.
FILTERS = {"TopoGPUCriticalPoints": 1, "TopoGPUDiscreteGradient": 1,
           "TopoGPUMorseSmaleComplex": 4, "TopoGPUScalarFieldSmoother": 1,
           "TopoGPUGeodesicDistance": 1, "TopoGPURipsPersistenceDiagram": 3}
# Input kinds: what the message must say, and the filters that take the kind (Rips
# persistence reads any point set's points or a table's columns).
KINDS = {
    "rectilinear": ("vtkRectilinearGrid", set()),
    "structured": ("vtkStructuredGrid", {"TopoGPURipsPersistenceDiagram"}),
    "lines": ("triangle", {"TopoGPURipsPersistenceDiagram"}),
    "hexahedra": ("triangle", {"TopoGPURipsPersistenceDiagram"}),
    "table": ("vtkTable", {"TopoGPURipsPersistenceDiagram"}),
    "empty": ("empty", set()),
}
# The geodesic distance names non-triangle cells its own way.
GEODESIC_MESSAGES = {"lines": "not triangles", "hexahedra": "not triangles"}


def make_input(kind):
    """A 4x4x4 data set of the kind (or a table) with a point scalar "s"."""
    from vtkmodules.vtkCommonCore import vtkDoubleArray, vtkPoints
    from vtkmodules.vtkCommonDataModel import (vtkCellArray, vtkPolyData,
                                               vtkRectilinearGrid, vtkStructuredGrid,
                                               vtkTable, vtkUnstructuredGrid)
    from vtkmodules.vtkCommonDataModel import VTK_HEXAHEDRON
    from paraview.simple import TrivialProducer

    values = np.random.default_rng(1).random(64)
    grid = np.stack(np.meshgrid(np.arange(4.0), np.arange(4.0), np.arange(4.0),
                                indexing="ij"), axis=-1)[:, :, :, ::-1].reshape(-1, 3)
    points = vtkPoints()
    for p in grid:
        points.InsertNextPoint(*p)
    if kind == "rectilinear":
        data = vtkRectilinearGrid()
        data.SetDimensions(4, 4, 4)
        for setter in (data.SetXCoordinates, data.SetYCoordinates, data.SetZCoordinates):
            coordinates = vtkDoubleArray()
            for x in range(4):
                coordinates.InsertNextValue(0.5 * x * x)
            setter(coordinates)
    elif kind == "structured":
        data = vtkStructuredGrid()
        data.SetDimensions(4, 4, 4)
        data.SetPoints(points)
    elif kind == "lines":
        data = vtkPolyData()
        data.SetPoints(points)
        lines = vtkCellArray()
        for v in range(63):
            lines.InsertNextCell(2, [v, v + 1])
        data.SetLines(lines)
    elif kind == "hexahedra":
        data = vtkUnstructuredGrid()
        data.SetPoints(points)
        for i, j, k in np.ndindex(3, 3, 3):
            base = i + 4 * j + 16 * k
            corners = [base, base + 1, base + 5, base + 4]
            data.InsertNextCell(VTK_HEXAHEDRON, 8, corners + [c + 16 for c in corners])
    elif kind == "table":
        data = vtkTable()
        column = vtkDoubleArray()
        column.SetName("s")
        for x in values:
            column.InsertNextValue(x)
        data.AddColumn(column)
        source = TrivialProducer()
        source.GetClientSideObject().SetOutput(data)
        return source
    elif kind == "empty":
        data = vtkPolyData()
        data.SetPoints(vtkPoints())
        values = values[:0]
    return pv_helpers.scalar_producer(data, values)


def child(kind, name):
    """Runs filter `name` on the kind of input and fetches every port; prints RESULT and
    a JSON summary (a crash never gets that far)."""
    from paraview import servermanager

    pv_helpers.load_plugin(globals())  # the plugin's filters join this module's names
    source = make_input(kind)
    proxy = globals()[name](Input=source)
    messages = pv_helpers.Messages(proxy)
    proxy.UpdatePipeline()
    ports = []
    for port in range(FILTERS[name]):
        data = servermanager.Fetch(proxy, idx=port)
        summary = {"type": data.GetClassName() if data else None,
                   "points": data.GetNumberOfPoints() if data and data.IsA("vtkDataSet") else 0,
                   "rows": data.GetNumberOfRows() if data and data.IsA("vtkTable") else 0}
        if data is not None and data.IsA("vtkRectilinearGrid"):
            summary["coordinates"] = all(
                a is not None for a in (data.GetXCoordinates(), data.GetYCoordinates(),
                                        data.GetZCoordinates()))
        if data is not None and data.IsA("vtkPointSet"):
            summary["has_points"] = data.GetPoints() is not None
        ports.append(summary)
    print("RESULT " + json.dumps({"errors": messages.errors, "ports": ports}), flush=True)


def pvpython():
    executable = os.environ.get("TOPOGPU_PVPYTHON") or shutil.which("pvpython")
    assert executable, "pvpython not found"
    return executable


def check_filter(kind, name, plugin, data):
    """Runs one filter on the kind of input in a child pvpython; returns what is wrong
    (None when nothing is)."""
    fragment, _ = KINDS[kind]
    run = subprocess.run([pvpython(), os.path.abspath(__file__), plugin, data,
                          "child:%s:%s" % (kind, name)], capture_output=True,
                         text=True, errors="replace", timeout=120)
    text = run.stdout + run.stderr
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    if run.returncode != 0 or not lines:
        return "pvpython exited %s:\n%s" % (run.returncode, text[-1500:])
    result = json.loads(lines[-1][len("RESULT "):])
    wanted = GEODESIC_MESSAGES.get(kind, fragment) if "Geodesic" in name else fragment
    # Errors of the filter itself, or of ParaView's pipeline (the executive's, printed
    # to the child's output) when the input port does not take the type.
    errors = " ".join(result["errors"]) or text
    if not result["errors"] and "ERR" not in text:
        return "no error reported:\n" + text[-1500:]
    if wanted.lower() not in errors.lower():
        return "error %r lacks %r" % (errors[-600:], wanted)
    for port, summary in enumerate(result["ports"]):
        if summary["type"] is None:
            return "port %d has no data object" % port
        if summary["points"] != 0 or summary["rows"] != 0:
            return "port %d not empty: %s" % (port, summary)
        # What the filter cleared itself is a valid empty set of its type (the
        # pipeline's own refusals never reach the filter).
        if result["errors"] and not (summary.get("coordinates", True)
                                     and summary.get("has_points", True)):
            return "port %d is not a valid empty %s" % (port, summary["type"])
    print("%s on %s input: error (%s), %d empty output port(s)" % (
        name, kind, (result["errors"] or [wanted])[0].strip().splitlines()[-1][:120],
        len(result["ports"])))
    return None


def case(kind):
    plugin, data = sys.argv[1:3]
    problems = []
    for name in FILTERS:
        if name not in KINDS[kind][1]:
            problem = check_filter(kind, name, plugin, data)
            if problem:
                print("FAILED: %s on %s input: %s" % (name, kind, problem))
                problems.append(name)
    assert not problems, "%s input: %s failed" % (kind, ", ".join(problems))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit("usage: pvpython %s PLUGIN DATA KIND" % sys.argv[0])
    what = sys.argv[3]
    if what.startswith("child:"):
        _, kind_name, filter_name = what.split(":")
        child(kind_name, filter_name)
    elif what in KINDS:
        case(what)
        print("%s: OK" % what)
    else:
        raise SystemExit("unknown kind %s; known: %s" % (what, sorted(KINDS)))
