"""Distributed run (pvbatch --mpi) of the Morse-Smale complex: the filter gathers the
field to rank 0 (whole-domain mode), so rank 0's four outputs equal the serial run's
(critical points, separatrices with their arrays and geometry, labels) and the other
ranks' are empty. Per-piece complexes would differ at the piece borders.

    pvpython distributed_msc_test.py PLUGIN OUT_DIR prepare   (random field file)
    mpiexec -n N pvbatch --mpi distributed_msc_test.py PLUGIN OUT_DIR write
    pvpython distributed_msc_test.py PLUGIN OUT_DIR compare
"""
import glob
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
EXTENT = [-13, 14, -11, 12, -9, 10]
RANDOM = os.path.join(OUT, "random_ties.vti")
CASES = ("wavelet", "random")
# Port 3 (the segmentation image) is left out: see docs, "Distributed runs".
PORTS = (0, 1)


def msct_source(case):
    if case == "wavelet":
        return Wavelet(WholeExtent=EXTENT)  # noqa: F405
    return XMLImageDataReader(FileName=[RANDOM])  # noqa: F405


def msct_filter(case, source):
    return TopoGPUMorseSmaleComplex(  # noqa: F405
        Input=source, SelectInputScalars=["POINTS", "RTData" if case == "wavelet" else "s"],
        Backend="CPU")


# Runs in the ProgrammableFilter on every rank: what reaches it, as an .npz per rank.
RECORD = """
import os
import numpy as np
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.vtkParallelCore import vtkMultiProcessController
controller = vtkMultiProcessController.GetGlobalController()
rank = controller.GetLocalProcessId() if controller else 0
data = self.GetInput()
d = dsa.WrapDataObject(data)
where = data.GetFieldData().GetArray("TopoGPUResultRank")
arrays = {"kind": np.array(data.GetClassName()), "npoints": data.GetNumberOfPoints(),
          "where": -1 if where is None else where.GetValue(0)}
if data.GetNumberOfPoints() > 0:
    arrays["points"] = (np.asarray(d.Points) if data.IsA("vtkPointSet")
                        else np.array(data.GetBounds()))
    for prefix, attributes in (("p_", data.GetPointData()), ("c_", data.GetCellData())):
        for i in range(attributes.GetNumberOfArrays()):
            name = attributes.GetArrayName(i)
            arrays[prefix + name] = np.asarray(d.PointData[name] if prefix == "p_"
                                               else d.CellData[name])
    if data.IsA("vtkUnstructuredGrid"):
        arrays["connectivity"] = np.asarray(d.Cells)
np.savez(os.path.join(%r, "%s_port%d_rank%%d.npz" %% rank), **arrays)
self.GetOutput().ShallowCopy(data)
"""


def msct_arrays(data):
    d = dsa.WrapDataObject(data)
    out = {"points": (np.asarray(d.Points) if data.IsA("vtkPointSet")
                      else np.array(data.GetBounds()))}
    for prefix, attributes in (("p_", data.GetPointData()), ("c_", data.GetCellData())):
        for i in range(attributes.GetNumberOfArrays()):
            name = attributes.GetArrayName(i)
            out[prefix + name] = np.asarray(d.PointData[name] if prefix == "p_"
                                            else d.CellData[name])
    if data.IsA("vtkUnstructuredGrid"):
        out["connectivity"] = np.asarray(d.Cells)
    return out


if MODE == "prepare":
    os.makedirs(OUT, exist_ok=True)
    pv_helpers.write_random_ties(RANDOM, (17, 14, 9), seed=13, levels=6)
elif MODE == "write":
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    for case in CASES:
        msc = msct_filter(case, msct_source(case))
        for port in PORTS:
            ProgrammableFilter(  # noqa: F405
                Input=OutputPort(msc, port),  # noqa: F405
                Script=RECORD % (OUT, case, port)).UpdatePipeline()
        # the pieces: each rank's input extent is smaller than the whole
        ProgrammableFilter(  # noqa: F405
            Input=msct_source(case), Script=RECORD % (OUT, case, 9)).UpdatePipeline()
    print("wrote the outputs of %d ranks" % ranks)
else:
    for case in CASES:
        source = msct_source(case)
        whole = servermanager.Fetch(source).GetNumberOfPoints()
        pieces = glob.glob(os.path.join(OUT, "%s_port9_rank*.npz" % case))
        assert len(pieces) >= 2, "pieces recorded: %s" % pieces
        for path in pieces:
            n = int(np.load(path)["npoints"])
            assert 0 < n < whole, "%s: a rank's input has %d of %d points" % (path, n, whole)
        msc = msct_filter(case, source)
        msc.UpdatePipeline()
        for port in PORTS:
            serial = msct_arrays(servermanager.Fetch(msc, idx=port))
            assert servermanager.Fetch(msc, idx=port).GetNumberOfPoints() > 20, (case, port)
            found = sorted(glob.glob(os.path.join(OUT, "%s_port%d_rank*.npz" % (case, port))))
            assert len(found) == len(pieces), found
            for path in found:
                rank = int(path.rsplit("rank", 1)[1].split(".")[0])
                got = np.load(path)
                assert int(got["where"]) == 0, (path, int(got["where"]))
                if rank != 0:
                    assert int(got["npoints"]) == 0, "%s: rank %d has output" % (case, rank)
                    continue
                keys = set(got.files) - {"kind", "npoints", "where"}
                assert keys == set(serial), (case, port, sorted(keys ^ set(serial)))
                for key in sorted(keys):
                    assert np.array_equal(got[key], serial[key]), \
                        "%s port %d: %s differs from the serial run" % (case, port, key)
        counts = list(dsa.WrapDataObject(servermanager.Fetch(msc, idx=0))
                      .FieldData["CriticalCellCounts"])
        assert counts[0] - counts[1] + counts[2] - counts[3] == 1, counts
        print("%s: rank 0 of %d ranks = serial (%s critical cells)" % (case, len(pieces), counts))
    print("distributed Morse-Smale complex identical to the serial run")
