"""Distributed run (pvbatch --mpi) of the discrete gradient: the filter gathers the field
to rank 0, so the pieces together give exactly the serial run's critical cells (same
counts per dimension, same CellDimension/CellId pairs, each once), all on rank 0.
Per-piece gradients would pair cells differently at the piece borders.

    pvpython distributed_gradient_test.py PLUGIN OUT_DIR prepare   (random field file)
    mpiexec -n N pvbatch --mpi distributed_gradient_test.py PLUGIN OUT_DIR write
    pvpython distributed_gradient_test.py PLUGIN OUT_DIR compare
"""
import glob
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util.misc import calldata_type
from vtkmodules.util.vtkConstants import VTK_STRING
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
# An odd extent and RTData's symmetric cosine term: ties and critical cells on the
# piece borders.
EXTENT = [-17, 18, -20, 19, -21, 21]
RANDOM = os.path.join(OUT, "random_ties.vti")
CASES = ("wavelet", "random")
BUDGET_ERROR = os.path.join(OUT, "budget_error.txt")


def dgt_source(case):
    if case == "wavelet":
        return Wavelet(WholeExtent=EXTENT)  # noqa: F405
    return XMLImageDataReader(FileName=[RANDOM])  # noqa: F405


def dgt_gradient(case, wrap=lambda c: dgt_source(c)):
    dg = TopoGPUDiscreteGradient(Input=wrap(case))  # noqa: F405
    dg.SelectInputScalars = ["POINTS", "RTData" if case == "wavelet" else "s"]
    dg.Backend = "CPU"
    return dg


# ProgrammableFilter scripts run in this module's globals on rank 0 (and import numpy
# helpers such as gradient there): hence the dgt_ prefix of the functions below.
RECORD = """
import os
from vtkmodules.vtkParallelCore import vtkMultiProcessController
controller = vtkMultiProcessController.GetGlobalController()
rank = controller.GetLocalProcessId() if controller else 0
data = self.GetInput()
where = data.GetFieldData().GetArray("TopoGPUResultRank")
with open(os.path.join(%r, "%s_%s_rank%%d.txt" %% rank), "w") as f:
    f.write("%%s %%d %%d" %% (data.GetClassName(), data.GetNumberOfPoints(),
                           -1 if where is None else where.GetValue(0)))
self.GetOutput().ShallowCopy(data)
"""


def dgt_record_ranks(proxy, case, tag):
    """A pass-through filter writing, on every rank, what reaches it."""
    return ProgrammableFilter(Input=proxy, Script=RECORD % (OUT, case, tag))  # noqa: F405


def dgt_recorded(case, tag):
    found = {}
    for path in glob.glob(os.path.join(OUT, "%s_%s_rank*.txt" % (case, tag))):
        rank = int(path.rsplit("rank", 1)[1].split(".")[0])
        with open(path) as f:
            kind, points, where = f.read().split()
        found[rank] = (kind, int(points), int(where))
    return found


def dgt_cells(data):
    d = dsa.WrapDataObject(data)
    if d.GetNumberOfPoints() == 0:
        return []
    return sorted(zip((int(k) for k in d.PointData["CellDimension"]),
                      (int(c) for c in d.PointData["CellId"])))


def dgt_per_dimension(pairs):
    return [len([k for k, _ in pairs if k == dim]) for dim in range(4)]


if MODE == "prepare":
    # 8 levels on 2717 points: massive ties, broken by the vertex order on both runs.
    os.makedirs(OUT, exist_ok=True)
    pv_helpers.write_random_ties(RANDOM, (19, 13, 11), seed=6, levels=8)
elif MODE == "write":
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    for case in CASES:
        # Each rank records its input piece and its output (the writer skips empty pieces).
        dg = dgt_gradient(case, lambda c: dgt_record_ranks(dgt_source(c), case, "in"))
        SaveData(os.path.join(OUT, case + ".pvtp"), proxy=dg)  # noqa: F405
        out = dgt_record_ranks(dg, case, "out")
        out.UpdatePipeline()
    # A forced small memory budget: a clear error on rank 0, empty outputs, no hang.
    os.environ["TOPOGPU_WHOLE_DOMAIN_MEMORY_BYTES"] = "4096"
    dg = dgt_gradient("wavelet")
    errors = []

    @calldata_type(VTK_STRING)
    def on_error(_obj, _event, text):
        errors.append(text)

    dg.GetClientSideObject().AddObserver("ErrorEvent", on_error)
    dg.UpdatePipeline()
    total = dg.GetDataInformation().GetNumberOfPoints()
    with open(BUDGET_ERROR, "w") as f:
        f.write("points %d\n%s\n" % (total, "\n".join(errors)))
    del os.environ["TOPOGPU_WHOLE_DOMAIN_MEMORY_BYTES"]
    print("wrote the pieces of %d ranks" % ranks)
else:
    for case in CASES:
        serial_proxy = dgt_gradient(case)
        serial = dgt_cells(servermanager.Fetch(serial_proxy))
        counts = [int(c) for c in dsa.WrapDataObject(
            servermanager.Fetch(serial_proxy)).FieldData["CriticalCellCounts"]]
        assert dgt_per_dimension(serial) == counts, (dgt_per_dimension(serial), counts)
        # Euler characteristic of a box: an independent check that the serial run is a
        # gradient of the whole domain.
        assert counts[0] - counts[1] + counts[2] - counts[3] == 1, counts
        assert len(serial) > (100 if case == "wavelet" else 20), len(serial)
        assert len(set(serial)) == len(serial), "a critical cell twice in the serial run"

        # The run was distributed: every rank had a piece smaller than the whole.
        inputs = dgt_recorded(case, "in")
        whole = servermanager.Fetch(dgt_source(case)).GetNumberOfPoints()
        assert len(inputs) >= 2, "pieces recorded: %s" % inputs
        for rank, (kind, points, _) in inputs.items():
            assert kind == "vtkImageData" and 0 < points < whole, (case, rank, kind, points)
        # The result on rank 0 only; every rank says where it is.
        outputs = dgt_recorded(case, "out")
        assert sorted(outputs) == sorted(inputs), (outputs, inputs)
        for rank, (kind, points, where) in outputs.items():
            assert kind == "vtkPolyData" and where == 0, (case, rank, kind, where)
            assert (points == len(serial)) if rank == 0 else (points == 0), \
                "%s: rank %d outputs %d points (serial: %d on rank 0)" % (
                    case, rank, points, len(serial))

        pieces = sorted(glob.glob(os.path.join(OUT, case, case + "_*.vtp")))
        merged = []
        for path in pieces:
            reader = vtkXMLPolyDataReader()
            reader.SetFileName(path)
            reader.Update()
            merged += dgt_cells(reader.GetOutput())
        merged.sort()
        assert dgt_per_dimension(merged) == counts, \
            "%s: distributed counts %s, serial %s" % (case, dgt_per_dimension(merged), counts)
        assert merged == serial, "%s: distributed critical cells differ from the serial ones" % case
        print("%s: %d critical cells %s on rank 0 of %d ranks" % (case, len(serial), counts,
                                                                  len(inputs)))
    with open(BUDGET_ERROR) as f:
        text = f.read()
    assert text.startswith("points 0\n"), "a run over the memory budget gave output: " + text
    assert "does not fit" in text or "more than the" in text, \
        "no memory error on rank 0: " + text
    print("memory budget: clear error, empty output")
    print("distributed discrete gradient identical to the serial run")
