"""Distributed run (pvbatch --mpi) of the Morse-Smale complex: the filter gathers the
field to rank 0 (whole-domain mode), so rank 0's ports 0 and 1 equal the serial run's
(critical points, separatrices with their arrays and geometry) and the other ranks' are
empty; port 3 (the segmentation image) is handed out in pieces, one per rank, which
together are the serial run's image. Per-piece complexes would differ at the piece
borders.

Fetch(msc, idx=3) brings only rank 0's piece; RedistributeDataSet with one partition
brings the whole segmentation to rank 0 (the docs' way), checked against the serial image.

Consumers that ask port 3 for per-rank pieces or sub-extents (msc.UpdatePipeline(), a
Contour, ExtractSubset, PassArrays) once made the ranks other than 0 run the filter
again alone and wait in the gather forever: the write step now runs them, so a
regression shows as a timeout (ctest TIMEOUT and a `timeout` around mpiexec). The
compare step checks their totals over all ranks against the same consumers of the
input image, split by VTK itself, and the pieces of a sub-extent asked for first
against the serial extract.

    pvpython distributed_msc_test.py PLUGIN OUT_DIR prepare   (random field file)
    mpiexec -n N pvbatch --mpi distributed_msc_test.py PLUGIN OUT_DIR write
    pvpython distributed_msc_test.py PLUGIN OUT_DIR compare
"""
import glob
import json
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
# Ports 0 and 1 are on rank 0 only; port 3 (an image) is in pieces on every rank.
PORTS = (0, 1)
IMAGE_PORT = 3
VOI = [1, 6, 1, 6, 1, 6]  # inside both cases' extents


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
if data.IsA("vtkImageData"):
    arrays["extent"] = np.array(data.GetExtent())
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
    if data.IsA("vtkPolyData"):  # the complex's ports 0-2: offsets and connectivity
        from vtkmodules.util.numpy_support import vtk_to_numpy
        arrays["connectivity"] = np.concatenate([
            vtk_to_numpy(a) for c in (data.GetVerts(), data.GetLines(), data.GetPolys())
            for a in (c.GetOffsetsArray(), c.GetConnectivityArray())])
np.savez(os.path.join(%r, "%s_port%d_rank%%d.npz" %% rank), **arrays)
self.GetOutput().ShallowCopy(data)
"""


def msct_consumers(case, image):
    """Consumers of an image that ask for per-rank pieces and sub-extents."""
    scalar = "RTData" if case == "wavelet" else "s"
    return {
        "contour": Contour(Input=image, ContourBy=["POINTS", scalar],  # noqa: F405
                           Isosurfaces=[150.0 if case == "wavelet" else 2.5]),
        "subset": ExtractSubset(Input=image, VOI=VOI),  # noqa: F405
        "labels": PassArrays(Input=image, PointDataArrays=[scalar],  # noqa: F405
                             CellDataArrays=[]),
    }


def msct_consumer_totals(case, image):
    """Cells and points of each consumer over all ranks (ghost layers included, as
    VTK's piece protocol makes them)."""
    totals = {}
    for name, consumer in sorted(msct_consumers(case, image).items()):
        consumer.UpdatePipeline()
        info = consumer.GetDataInformation()
        totals[name] = [int(info.GetNumberOfCells()), int(info.GetNumberOfPoints())]
    return totals


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
    if data.IsA("vtkPolyData"):  # the complex's ports 0-2: offsets and connectivity
        from vtkmodules.util.numpy_support import vtk_to_numpy
        out["connectivity"] = np.concatenate([
            vtk_to_numpy(a) for c in (data.GetVerts(), data.GetLines(), data.GetPolys())
            for a in (c.GetOffsetsArray(), c.GetConnectivityArray())])
    return out


def msct_compare_image(label, whole, found, ranks):
    """The pieces recorded in the files found, one per rank, are the serial image's
    values over their extents and together cover it."""
    serial = msct_arrays(whole)
    wx = whole.GetExtent()
    dims = [wx[1] - wx[0] + 1, wx[3] - wx[2] + 1, wx[5] - wx[4] + 1]
    covered = np.zeros(dims[::-1], dtype=bool)
    assert len(found) == ranks, found
    for path in found:
        got = np.load(path)
        e = [int(v) for v in got["extent"]]
        assert int(got["npoints"]) > 0 and int(got["npoints"]) < whole.GetNumberOfPoints(), \
            "%s: a piece of %d of %d points" % (path, int(got["npoints"]),
                                                 whole.GetNumberOfPoints())
        names = {k for k in got.files if k.startswith(("p_", "c_"))} - {"p_vtkGhostType",
                                                                        "c_vtkGhostType"}
        assert names == {k for k in serial if k != "points"}, (path, sorted(names))
        for key in sorted(names):
            cell = key.startswith("c_")
            lo = [e[0] - wx[0], e[2] - wx[2], e[4] - wx[4]]
            hi = [e[1] - wx[0] + (0 if cell else 1), e[3] - wx[2] + (0 if cell else 1),
                  e[5] - wx[4] + (0 if cell else 1)]
            shape = [d - (1 if cell else 0) for d in dims][::-1]
            values = serial[key].reshape(shape + list(serial[key].shape[1:]))
            expected = values[lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]].reshape(
                (-1,) + serial[key].shape[1:])
            assert np.array_equal(got[key], expected), \
                "%s: piece %s: %s differs from the serial image" % (label, e, key)
        covered[e[4] - wx[4]:e[5] - wx[4] + 1, e[2] - wx[2]:e[3] - wx[2] + 1,
                e[0] - wx[0]:e[1] - wx[0] + 1] = True
    assert covered.all(), "%s: the pieces leave %d points out" % (
        label, int((~covered).sum()))


def msct_compare_fetched(case, serial):
    """Fetch(msc, idx=3) under MPI brought a piece only; RedistributeDataSet with one
    partition then Fetch brought every point, with the serial image's values once back
    in the image's point order (found from the coordinates, as the docs do)."""
    fetched = np.load(os.path.join(OUT, "%s_fetched.npz" % case))
    n = serial.GetNumberOfPoints()
    assert 0 < len(fetched["points"]) < n, \
        "%s: Fetch(msc, idx=3) gave %d of %d points" % (case, len(fetched["points"]), n)
    whole = np.load(os.path.join(OUT, "%s_whole.npz" % case))
    p = whole["points"]
    assert len(p) == n, "%s: the redistributed segmentation has %d of %d points" % (
        case, len(p), n)
    axes = [np.unique(p[:, a]) for a in range(3)]
    ijk = [np.searchsorted(axes[a], p[:, a]) for a in range(3)]
    flat = ijk[0] + len(axes[0]) * (ijk[1] + len(axes[1]) * ijk[2])
    assert len(np.unique(flat)) == n, "%s: points repeat" % case
    expected = msct_arrays(serial)
    for key in ("p_DescendingManifold", "p_AscendingManifold", "p_MorseSmaleManifold"):
        ordered = np.empty_like(whole[key])
        ordered[flat] = whole[key]
        assert np.array_equal(ordered, expected[key]), "%s: %s differs" % (case, key)


if MODE == "prepare":
    os.makedirs(OUT, exist_ok=True)
    pv_helpers.write_random_ties(RANDOM, (17, 14, 9), seed=13, levels=6)
elif MODE == "write":
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    totals = {}
    for case in CASES:
        msc = msct_filter(case, msct_source(case))
        # every port, as the docs' example does (this call alone used to hang)
        msc.UpdatePipeline()
        for port in PORTS + (IMAGE_PORT,):
            ProgrammableFilter(  # noqa: F405
                Input=OutputPort(msc, port),  # noqa: F405
                Script=RECORD % (OUT, case, port)).UpdatePipeline()
        image = OutputPort(msc, IMAGE_PORT)  # noqa: F405
        totals[case] = {"msc": msct_consumer_totals(case, image),
                        # the reference: the same consumers on the input image, split
                        # by VTK itself (port 3 carries the input scalar)
                        "input": msct_consumer_totals(case, msct_source(case))}
        # a fresh filter whose first consumer asks port 3 for a sub-extent
        fresh = msct_filter(case, msct_source(case))
        subset = ExtractSubset(Input=OutputPort(fresh, IMAGE_PORT),  # noqa: F405
                               VOI=VOI)
        ProgrammableFilter(Input=subset,  # noqa: F405
                           Script=RECORD % (OUT, case, 8)).UpdatePipeline()
        # the pieces: each rank's input extent is smaller than the whole
        ProgrammableFilter(  # noqa: F405
            Input=msct_source(case), Script=RECORD % (OUT, case, 9)).UpdatePipeline()
        # What Fetch brings of port 3 (the docs: the first rank's piece only), and the
        # documented way to have the whole segmentation on rank 0.
        np.savez(os.path.join(OUT, "%s_fetched.npz" % case),
                 **msct_arrays(servermanager.Fetch(msc, idx=IMAGE_PORT)))
        whole = RedistributeDataSet(Input=OutputPort(msc, IMAGE_PORT),  # noqa: F405
                                    NumberOfPartitions=1)
        np.savez(os.path.join(OUT, "%s_whole.npz" % case),
                 **msct_arrays(servermanager.Fetch(whole)))
    with open(os.path.join(OUT, "consumer_totals.json"), "w") as f:
        json.dump(totals, f)
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
        msct_compare_image("%s port 3" % case, servermanager.Fetch(msc, idx=IMAGE_PORT),
                           sorted(glob.glob(os.path.join(
                               OUT, "%s_port%d_rank*.npz" % (case, IMAGE_PORT)))), len(pieces))
        for path in glob.glob(os.path.join(OUT, "%s_port%d_rank*.npz" % (case, IMAGE_PORT))):
            assert int(np.load(path)["where"]) == 0, path
        msct_compare_fetched(case, servermanager.Fetch(msc, idx=IMAGE_PORT))
        # the fresh filter's first consumer asked for a sub-extent: its pieces make up
        # the serial extract of the serial image
        serial_subset = ExtractSubset(Input=OutputPort(msc, IMAGE_PORT), VOI=VOI)  # noqa: F405
        msct_compare_image("%s sub-extent first" % case, servermanager.Fetch(serial_subset),
                           sorted(glob.glob(os.path.join(OUT, "%s_port8_rank*.npz" % case))),
                           len(pieces))
        with open(os.path.join(OUT, "consumer_totals.json")) as f:
            distributed = json.load(f)[case]
        reference = distributed["input"]
        assert all(cells > 0 for cells, _ in reference.values()), reference
        assert distributed["msc"] == reference, \
            "%s: consumers of port 3 over %d ranks %s, of the input image %s" % (
                case, len(pieces), distributed["msc"], reference)
        # and in one serial process the same consumers agree too
        serial = msct_consumer_totals(case, OutputPort(msc, IMAGE_PORT))  # noqa: F405
        assert serial == msct_consumer_totals(case, source), serial
        counts = list(dsa.WrapDataObject(servermanager.Fetch(msc, idx=0))
                      .FieldData["CriticalCellCounts"])
        assert counts[0] - counts[1] + counts[2] - counts[3] == 1, counts
        print("%s: rank 0 of %d ranks = serial (%s critical cells)" % (case, len(pieces), counts))
    print("distributed Morse-Smale complex identical to the serial run")
