"""Distributed run (pvbatch --mpi) of the Rips persistence diagram: each rank's source
makes only its piece of a noisy torus cloud (every other point of the whole, by rank),
as a point set and as a table; the filter gathers the pieces to rank 0, so rank 0's
diagram is the serial diagram of the whole cloud (same bars), the other ranks' outputs
are empty, and every output says where the result is (TopoGPUResultRank 0). A diagram
of one piece would differ (fewer points: other bars).

    mpiexec -n N pvbatch --mpi distributed_rips_test.py PLUGIN OUT_DIR write
    pvpython distributed_rips_test.py PLUGIN OUT_DIR compare
"""
import glob
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
CASES = ("points", "table")

# The whole cloud and its pieces, made inside the source (pvbatch runs it on each rank).
SOURCE = """
import numpy as np
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
info = self.GetOutputInformation(0)
piece = info.Get(sddp.UPDATE_PIECE_NUMBER()) if info.Has(sddp.UPDATE_PIECE_NUMBER()) else 0
pieces = info.Get(sddp.UPDATE_NUMBER_OF_PIECES()) if info.Has(sddp.UPDATE_NUMBER_OF_PIECES()) else 1
rng = np.random.default_rng(5)
u, v = rng.uniform(0, 2 * np.pi, (2, 150))
xyz = np.c_[(1 + 0.4 * np.cos(v)) * np.cos(u), (1 + 0.4 * np.cos(v)) * np.sin(u),
            0.4 * np.sin(v)] + rng.normal(0, 0.02, (150, 3))
mine = xyz[piece::pieces]
%s
"""
AS_POINTS = """
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.util import numpy_support
pts = vtkPoints()
pts.SetDataTypeToDouble()
pts.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(mine), deep=1))
self.GetOutput().SetPoints(pts)
"""
AS_TABLE = """
for k, name in enumerate("xyz"):
    output.RowData.append(np.ascontiguousarray(mine[:, k]), name)
"""


def drt_source(case):
    if case == "points":
        return ProgrammableSource(OutputDataSetType="vtkPolyData",  # noqa: F405
                                  Script=SOURCE % AS_POINTS)
    return ProgrammableSource(OutputDataSetType="vtkTable", Script=SOURCE % AS_TABLE)  # noqa


def drt_diagram(source):
    return TopoGPURipsPersistenceDiagram(Input=source, MaxDimension=2)  # noqa: F405


RECORD = """
import os
import numpy as np
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.vtkParallelCore import vtkMultiProcessController
controller = vtkMultiProcessController.GetGlobalController()
rank = controller.GetLocalProcessId() if controller else 0
data = self.GetInput()
where = data.GetFieldData().GetArray("TopoGPUResultRank")
n = data.GetNumberOfRows() if data.IsA("vtkTable") else data.GetNumberOfPoints()
arrays = {"n": n, "where": -1 if where is None else where.GetValue(0)}
if data.IsA("vtkUnstructuredGrid") and data.GetNumberOfCells() > 0:
    d = dsa.WrapDataObject(data)
    for name in ("PairType", "Birth", "Death", "IsFinite"):
        arrays[name] = np.asarray(d.CellData[name])
np.savez(os.path.join(%r, "%s_%s_rank%%d.npz" %% rank), **arrays)
self.GetOutput().ShallowCopy(data)
"""


def drt_record(proxy, case, what, port=0):
    out_type = "vtkTable" if (case == "table" and what == "input") else None
    kwargs = {"OutputDataSetType": out_type} if out_type else {}
    ProgrammableFilter(Input=OutputPort(proxy, port), Script=RECORD % (OUT, case, what),  # noqa
                       **kwargs).UpdatePipeline()


def drt_bars(types, births, deaths, finite):
    keep = types >= 0  # the diagonal is -1
    return sorted(zip(types[keep].tolist(), births[keep].tolist(),
                      np.where(finite[keep] == 1, deaths[keep], np.inf).tolist()))


if MODE == "write":
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    os.makedirs(OUT, exist_ok=True)
    for case in CASES:
        # (drt_ names: pvbatch runs the ProgrammableFilter's script in __main__, where
        # it would otherwise rebind names such as source)
        drt_src = drt_source(case)
        drt_record(drt_src, case, "input")
        drt_filter = drt_diagram(drt_src)
        drt_record(drt_filter, case, "diagram")
        drt_record(drt_filter, case, "bars", port=1)
    print("wrote the outputs of %d ranks" % ranks)
else:
    from vtkmodules.numpy_interface import dataset_adapter as dsa

    for case in CASES:
        serial = dsa.WrapDataObject(servermanager.Fetch(drt_diagram(drt_source(case))))
        want = drt_bars(*(np.asarray(serial.CellData[n])
                          for n in ("PairType", "Birth", "Death", "IsFinite")))
        assert len(want) > 150, "the serial diagram is too small: %d bars" % len(want)
        inputs = sorted(glob.glob(os.path.join(OUT, "%s_input_rank*.npz" % case)))
        assert len(inputs) >= 2, inputs
        for path in inputs:
            got = int(np.load(path)["n"])
            assert 0 < got < 150, "%s: a rank's input has %d of 150 points" % (path, got)
        for what in ("diagram", "bars"):
            outputs = sorted(glob.glob(os.path.join(OUT, "%s_%s_rank*.npz" % (case, what))))
            assert len(outputs) == len(inputs), outputs
            for path in outputs:
                got = np.load(path)
                assert int(got["where"]) == 0, "%s: TopoGPUResultRank missing" % path
                if not path.endswith("rank0.npz"):
                    assert int(got["n"]) == 0, "%s: not empty" % path
                    continue
                if what == "bars":
                    assert int(got["n"]) == len(want), "rank 0's table: %d rows" % int(got["n"])
                    continue
                mine = drt_bars(got["PairType"], got["Birth"], got["Death"], got["IsFinite"])
                assert mine == want, "%s: rank 0's bars differ from the serial run" % case
        print("%s: %d ranks, rank 0 = the serial diagram (%d bars)" % (
            case, len(inputs), len(want)))
    print("distributed Rips persistence identical to the serial run")
