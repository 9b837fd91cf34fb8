"""What the pvpython filter tests share: loading the plugin, collecting a filter's error
and warning messages, fetching its output, checking its documentation, and running the
case named on the command line.

A test script: `PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())`, one
`case_<name>()` function a ctest, then `pv_helpers.run_case(globals(), CASE)`.
"""
import sys

from paraview import servermanager
from paraview.simple import LoadPlugin
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util.misc import calldata_type
from vtkmodules.util.vtkConstants import VTK_STRING

_alive = []  # the observers' callbacks must outlive the proxies that call them


def load_plugin(namespace):
    """PLUGIN DATA_DIR CASE from the command line; the plugin's filters are added to
    namespace (the test's globals), as paraview.simple's own are."""
    if len(sys.argv) != 4:
        raise SystemExit("usage: pvpython %s PLUGIN DATA_DIR CASE" % sys.argv[0])
    plugin, data, case = sys.argv[1:4]
    LoadPlugin(plugin, remote=False, ns=namespace)
    return plugin, data, case


class Messages:
    """Collects the filter's vtkErrorMacro / vtkWarningMacro texts."""

    def __init__(self, proxy):
        self.errors, self.warnings = [], []
        algorithm = proxy.GetClientSideObject()

        @calldata_type(VTK_STRING)
        def on_error(_obj, _event, text):
            self.errors.append(text)

        @calldata_type(VTK_STRING)
        def on_warning(_obj, _event, text):
            self.warnings.append(text)

        algorithm.AddObserver("ErrorEvent", on_error)
        algorithm.AddObserver("WarningEvent", on_warning)
        _alive.append((on_error, on_warning))


def watch_progress(proxy):
    """Observes the filter's ProgressEvent; returns (algorithm, seen, abort_at): each
    progress value is appended to seen and, once abort_at[0] is set, the run aborts at
    that progress (what ParaView's abort button does)."""
    algorithm = proxy.GetClientSideObject()
    seen, abort_at = [], [None]

    def on_progress(obj, _event):
        seen.append(obj.GetProgress())
        if abort_at[0] is not None and obj.GetProgress() >= abort_at[0]:
            obj.SetAbortExecute(1)

    algorithm.AddObserver("ProgressEvent", on_progress)
    _alive.append(on_progress)
    return algorithm, seen, abort_at


def check_progress_and_abort(proxy, messages, abort_points, size, min_steps=5, late=None):
    """The progress and abort contract of a filter (what ParaView's progress bar and abort
    button rely on): a whole run reports at least min_steps distinct values in (0, 1),
    never going back; a run aborted at each progress value in abort_points outputs
    nothing (size(proxy), a count or a tuple of counts, all 0) and reports no error, and
    with `late` its progress stayed below `late`; the run after the aborts is whole again
    (the first run's size). Returns (the whole run's progress values in (0, 1), its
    size); the proxy then holds the run after the aborts."""
    algorithm, seen, abort_at = watch_progress(proxy)
    proxy.UpdatePipeline()
    full = size(proxy)
    empty = tuple(0 for _ in full) if isinstance(full, tuple) else 0
    inner = [p for p in seen if 0.0 < p < 1.0]
    assert len(set(inner)) >= min_steps, "too few progress steps: %r" % seen
    assert inner == sorted(inner), "progress went backwards: %r" % inner
    for at in abort_points:
        seen.clear()
        abort_at[0] = at
        algorithm.Modified()
        proxy.UpdatePipeline()
        assert size(proxy) == empty, "the run aborted at %g left an output" % at
        assert not messages.errors, "abort at %g reported errors: %r" % (at, messages.errors)
        if late is not None:
            assert max(p for p in seen if p < 1.0) < late, \
                "abort at %g came too late: %r" % (at, seen)
        abort_at[0] = None
        algorithm.SetAbortExecute(0)
    algorithm.Modified()
    proxy.UpdatePipeline()
    assert size(proxy) == full, "the run after the abort is not whole"
    return inner, full


def fetch(proxy):
    """Updates the proxy and returns its output, wrapped for numpy access."""
    proxy.UpdatePipeline()
    return dsa.WrapDataObject(servermanager.Fetch(proxy))


def documented_properties(proxy):
    """Asserts that the filter and each of its properties carry a short help and a
    description (the panel's tooltips; Debian's ParaView has no Qt help); returns the
    property names, for the caller to check the ones it must have."""
    sm_proxy = proxy.SMProxy
    doc = sm_proxy.GetDocumentation()
    assert doc.GetShortHelp() and doc.GetLongHelp() and doc.GetDescription(), \
        "filter help missing"
    names = []
    it = sm_proxy.NewPropertyIterator()
    it.Begin()
    while not it.IsAtEnd():
        prop_doc = it.GetProperty().GetDocumentation()
        assert prop_doc is not None and prop_doc.GetShortHelp() and prop_doc.GetDescription(), \
            "property %s has no short help / description" % it.GetKey()
        names.append(it.GetKey())
        it.Next()
    return names


def run_case(namespace, case):
    """Runs namespace's case_<case>(); a failed check raises, so pvpython exits non-zero."""
    cases = {name[5:]: f for name, f in namespace.items() if name.startswith("case_")}
    if case not in cases:
        raise SystemExit("unknown case %s; known: %s" % (case, sorted(cases)))
    cases[case]()
    print("%s: OK" % case)


def image_source(dims, values, spacing=(1, 1, 1), origin=(0, 0, 0)):
    """A TrivialProducer of a vtkImageData with values as its active point scalars "s";
    returns the producer and the image."""
    from vtkmodules.vtkCommonDataModel import vtkImageData

    img = vtkImageData()
    img.SetDimensions(*dims)
    img.SetSpacing(*spacing)
    img.SetOrigin(*origin)
    return scalar_producer(img, values), img


def scalar_producer(data, values):
    """A TrivialProducer of data, with values added as its active point scalars "s"."""
    import numpy as np
    from paraview.simple import TrivialProducer
    from vtkmodules.util import numpy_support

    a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
    a.SetName("s")
    data.GetPointData().AddArray(a)
    data.GetPointData().SetActiveScalars("s")
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    return source


def write_random_ties(path, dims, seed, levels):
    """Writes a vtkImageData of dims with a uint8 point array "s" of `levels` random
    values (massive ties, broken by the vertex order) and a non-trivial origin and
    spacing, for the distributed tests to compare against the serial run."""
    import numpy as np
    from vtkmodules.util import numpy_support
    from vtkmodules.vtkCommonDataModel import vtkImageData
    from vtkmodules.vtkIOXML import vtkXMLImageDataWriter

    values = np.random.default_rng(seed).integers(0, levels, size=dims[::-1]).astype(np.uint8)
    img = vtkImageData()
    img.SetDimensions(*dims)
    img.SetOrigin(-1.0, 2.0, 0.5)
    img.SetSpacing(0.5, 1.0, 2.0)
    array = numpy_support.numpy_to_vtk(values.ravel(), deep=1)
    array.SetName("s")
    img.GetPointData().SetScalars(array)
    writer = vtkXMLImageDataWriter()
    writer.SetFileName(path)
    writer.SetInputData(img)
    assert writer.Write() == 1
    print("wrote", path)


def separatrix_paths(poly):
    """The Morse-Smale complex's port 1 (a vtkPolyData of TTK's line cells) as
    separatrix_lines.paths: [(first line's cell index, point ids)] per SeparatrixId, every
    cell a line of two points and every cell array constant along a separatrix."""
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy

    import separatrix_lines
    lines = poly.GetLines()
    offsets = vtk_to_numpy(lines.GetOffsetsArray())
    assert poly.GetNumberOfCells() == poly.GetNumberOfLines() and np.all(
        np.diff(offsets) == 2), "port 1 holds cells other than lines of two points"
    cd = poly.GetCellData()
    arrays = [vtk_to_numpy(cd.GetArray(k)) for k in range(cd.GetNumberOfArrays())]
    return separatrix_lines.paths(vtk_to_numpy(lines.GetConnectivityArray()),
                                  vtk_to_numpy(cd.GetArray("SeparatrixId")), arrays)


def diagram_vertex_pairs(grid, values=None):
    """A persistence diagram in TTK's layout (our Persistence Diagram filter's port 0)
    as vertices: Counters of the finite pairs (PairType, birth vertex, death vertex) and
    of the essential classes (PairType, birth vertex), the diagonal left out. With values
    (the field per vertex), each pair's Birth and Death are checked against them."""
    import collections
    from vtkmodules.util import numpy_support

    def get(data, name):
        return numpy_support.vtk_to_numpy(data.GetArray(name))
    cd, pd = grid.GetCellData(), grid.GetPointData()
    pair, kind, birth, death, finite = (get(cd, n) for n in (
        "PairIdentifier", "PairType", "Birth", "Death", "IsFinite"))
    vertex = get(pd, "ttkVertexScalarField")
    pairs, classes = collections.Counter(), collections.Counter()
    for c in range(grid.GetNumberOfCells()):
        if pair[c] < 0:
            continue  # the diagonal
        a, b = (int(vertex[grid.GetCell(c).GetPointId(k)]) for k in range(2))
        assert values is None or birth[c] == values[a], (c, birth[c], values[a])
        if finite[c]:
            assert values is None or death[c] == values[b], (c, death[c], values[b])
            pairs[(int(kind[c]), a, b)] += 1
        else:
            classes[(int(kind[c]), a)] += 1
    return pairs, classes
