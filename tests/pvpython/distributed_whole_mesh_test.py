"""Distributed runs (pvbatch --mpi) of the whole-domain filters on meshes: the discrete
gradient and the Morse-Smale complex gather the pieces of a mesh to rank 0, whatever
the split (RedistributeDataSet: no ghost cells, border points on both sides; D3: the
same with ghost cells), weld their border points and compute there once. Rank 0's
outputs must be the serial run's (the critical cells at the same places with the same
dimensions, the segmentation the same partition of the points), the other ranks' empty.
With point global ids equal to the serial point indices (and a field with ties) the
gathered mesh numbers its points as the serial one, so ties are broken alike and the
critical cells' highest vertices are the serial ids too.

    pvpython distributed_whole_mesh_test.py PLUGIN OUT prepare
    mpiexec -n N pvbatch --mpi distributed_whole_mesh_test.py PLUGIN OUT write
    pvpython distributed_whole_mesh_test.py PLUGIN OUT compare
"""
import glob
import inspect
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util import numpy_support

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402

PLUGIN, OUT, MODE = sys.argv[1:4]
LoadPlugin(PLUGIN, remote=False, ns=globals())
# (name, scalar, with point global ids)
MESHES = (("tets", "f", False), ("surface", "f", False), ("tets_ids", "t", True))
SPLITS = ("redistribute", "d3")
# (filter, port)
OUTPUTS = (("gradient", 0), ("msc", 0), ("msc", 3))


def wmt_path(name):
    return os.path.join(OUT, name + (".vtp" if name == "surface" else ".vtu"))


def wmt_filter(kind, source, scalar):
    if kind == "gradient":
        return TopoGPUDiscreteGradient(  # noqa: F405
            Input=source, SelectInputScalars=["POINTS", scalar], Backend="CPU")
    # The regions compared below do not depend on the cells' order with the rule through
    # the boundary; TTK's rule (the default) labels a vertex by its lowest cell id, and
    # the gathered mesh numbers its cells in another order.
    return TopoGPUMorseSmaleComplex(  # noqa: F405
        Input=source, SelectInputScalars=["POINTS", scalar], Backend="CPU",
        AscendingThroughBoundary=1)


def wmt_arrays(data):
    d = dsa.WrapDataObject(data)
    out = {"npoints": data.GetNumberOfPoints()}
    if data.GetNumberOfPoints() > 0:
        out["points"] = np.asarray(d.Points, dtype=np.float64)
        for i in range(data.GetPointData().GetNumberOfArrays()):
            name = data.GetPointData().GetArrayName(i)
            out["p_" + name] = np.asarray(d.PointData[name])
    return out


# Runs in a ProgrammableFilter on every rank (wmt_arrays' own source, then the call):
# what reaches it, as an .npz per rank.
RECORD = """
import os
import numpy as np
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.vtkParallelCore import vtkMultiProcessController
%s
rank = vtkMultiProcessController.GetGlobalController().GetLocalProcessId()
np.savez(os.path.join(%%r, "%%s_rank%%%%d.npz" %%%% rank), **wmt_arrays(self.GetInput()))
self.GetOutput().ShallowCopy(self.GetInput())
""" % inspect.getsource(wmt_arrays)


def wmt_prepare():
    from vtkmodules.vtkCommonDataModel import vtkPolyData, vtkUnstructuredGrid
    from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter, vtkXMLUnstructuredGridWriter

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(7)
    tets = Tetrahedralize(Input=Wavelet(WholeExtent=[0, 13, 0, 12, 0, 11]))  # noqa: F405
    sphere = Sphere(ThetaResolution=70, PhiResolution=50)  # noqa: F405
    for name, scalar, with_ids in MESHES:
        base = sphere if name == "surface" else tets
        base.UpdatePipeline()
        data = (vtkPolyData if name == "surface" else vtkUnstructuredGrid)()
        data.CopyStructure(base.GetClientSideObject().GetOutputDataObject(0))
        n = data.GetNumberOfPoints()
        values = rng.integers(0, 5, n).astype(np.float64) if with_ids else rng.random(n)
        array = numpy_support.numpy_to_vtk(values, deep=1)
        array.SetName(scalar)
        data.GetPointData().AddArray(array)
        if with_ids:
            ids = numpy_support.numpy_to_vtk(np.arange(n, dtype=np.int64), deep=1)
            ids.SetName("ids")
            data.GetPointData().SetGlobalIds(ids)
        writer = (vtkXMLPolyDataWriter if name == "surface" else vtkXMLUnstructuredGridWriter)()
        writer.SetFileName(wmt_path(name))
        writer.SetInputData(data)
        writer.Write()


def wmt_write():
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    assert vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses() > 1
    for name, scalar, _ in MESHES:
        for split in SPLITS:
            reader = OpenDataFile(wmt_path(name))  # noqa: F405
            source = (RedistributeDataSet if split == "redistribute" else D3)(  # noqa
                Input=reader)
            for kind, port in OUTPUTS:
                proxy = wmt_filter(kind, source, scalar)
                messages = pv_helpers.Messages(proxy)
                tag = "%s_%s_%s%d" % (name, split, kind, port)
                ProgrammableFilter(Input=OutputPort(proxy, port),  # noqa: F405
                                   Script=RECORD % (OUT, tag)).UpdatePipeline()
                assert not messages.errors, (tag, messages.errors)


def wmt_key(arrays, with_ids):
    """Sortable (place, dimension[, highest vertex]) rows of the critical cells: their
    places may be summed in another vertex order (compared to 1e-9); with global ids the
    gathered mesh numbers its points as the serial one (its cells in another order)."""
    rows = [map(tuple, np.round(arrays["points"], 9).tolist()),
            arrays["p_CellDimension"].tolist()]
    if with_ids and "p_ttkVertexScalarField" in arrays:
        rows.append(arrays["p_ttkVertexScalarField"].tolist())
    return sorted(zip(*rows))


def wmt_compare():
    for name, scalar, with_ids in MESHES:
        reader = OpenDataFile(wmt_path(name))  # noqa: F405
        for kind, port in OUTPUTS:
            proxy = wmt_filter(kind, reader, scalar)
            proxy.UpdatePipeline()
            serial = wmt_arrays(servermanager.Fetch(proxy, idx=port))
            for split in SPLITS:
                tag = "%s_%s_%s%d" % (name, split, kind, port)
                found = sorted(glob.glob(os.path.join(OUT, tag + "_rank*.npz")))
                assert len(found) >= 2, found
                for path in found[1:]:
                    assert int(np.load(path)["npoints"]) == 0, "%s has output" % path
                got = np.load(found[0])
                assert int(got["npoints"]) == serial["npoints"], (
                    tag, int(got["npoints"]), serial["npoints"])
                if port == 0:
                    assert wmt_key(got, with_ids) == wmt_key(serial, with_ids), tag
                else:
                    # the same points, cut into the same regions (labels are ids of the
                    # gathered numbering)
                    where = {p: i for i, p in enumerate(map(tuple, serial["points"].tolist()))}
                    order = np.array([where[p] for p in map(tuple, got["points"].tolist())])
                    for label in ("p_DescendingManifold", "p_AscendingManifold",
                                  "p_MorseSmaleManifold"):
                        pairs = set(zip(got[label].tolist(), serial[label][order].tolist()))
                        assert len(pairs) == len(set(got[label].tolist())) == \
                            len(set(serial[label].tolist())), (tag, label)
                print("%s: rank 0 = serial (%d points)" % (tag, serial["npoints"]))
    print("distributed whole-domain meshes identical to the serial run")


{"prepare": wmt_prepare, "write": wmt_write, "compare": wmt_compare}[MODE]()
