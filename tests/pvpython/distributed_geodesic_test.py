"""Distributed run (pvbatch --mpi) of the geodesic distance: the filter gathers the
surface's pieces to rank 0, so rank 0's output is the serial run's surface and distances
and the other ranks' outputs are empty. Each rank's input is a real piece (fewer points
than the whole), so per-piece distances would differ from the serial ones (a seed on one
piece only).

Pieces without global ids (a sphere source in pieces) are merged by position, in rank
order: rank 0's points are matched to the serial run's by coordinates (pieces may round
a shared point differently, which the filter merges within 1e-9 of the diagonal), and
Seed Ids are refused there (they would not mean the serial ids). Seed Ids must mean what
they mean in the serial run: on a file read whole by rank 0 (its own ids), and on pieces
with global point ids (Generate Global Ids on the whole file, then Redistribute DataSet),
rank 0's output equals the serial run's point for point, SeedIdentifier included.

    pvpython distributed_geodesic_test.py PLUGIN OUT_DIR prepare   (writes the file)
    mpiexec -n N pvbatch --mpi distributed_geodesic_test.py PLUGIN OUT_DIR write
    pvpython distributed_geodesic_test.py PLUGIN OUT_DIR compare
"""
import glob
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
CASES = ("poly_mask", "grid_points", "reader_ids", "global_ids")
# Cases whose ids mean the serial run's: compared point for point.
SAME_IDS = ("reader_ids", "global_ids")
SEED_IDS = [5, 700]
SPHERE_FILE = os.path.join(OUT, "sphere.vtp")


def gdt_surface(case, serial=False):
    sphere = Sphere(ThetaResolution=48, PhiResolution=40)  # noqa: F405
    if case in SAME_IDS:
        whole = XMLPolyDataReader(FileName=[SPHERE_FILE])  # noqa: F405 (rank 0 reads it)
        if case == "reader_ids" or serial:
            return whole
        # The serial point ids as global ids, then the surface split over the ranks.
        return RedistributeDataSet(Input=GenerateGlobalIds(Input=whole))  # noqa: F405
    if case == "poly_mask":
        # seeds: the north pole (every piece holds it) through a mask array
        return Calculator(Input=sphere, ResultArrayName="pole",  # noqa: F405
                          Function="coordsZ > 0.4999")
    return AppendDatasets(Input=sphere)  # noqa: F405  (an unstructured grid)


def gdt_geodesic(case, source):
    if case in SAME_IDS:
        return TopoGPUGeodesicDistance(  # noqa: F405
            Input=source, SeedIds=SEED_IDS, Solver="fmm", DoublePrecision=1)
    if case == "poly_mask":
        return TopoGPUGeodesicDistance(  # noqa: F405
            Input=source, SeedMode="Mask Array", SeedMaskArray=["POINTS", "pole"],
            Solver="fim-mt")
    seeds = Line(Point1=[0.5, 0.0, 0.0], Point2=[-0.1, 0.0, -0.5],  # noqa: F405
                 Resolution=1)
    return TopoGPUGeodesicDistance(  # noqa: F405
        Input=source, SeedMode="Seed Points", Seeds=seeds, Solver="fmm",
        DoublePrecision=1)


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
          "ncells": data.GetNumberOfCells(),
          "where": -1 if where is None else where.GetValue(0)}
if data.GetNumberOfPoints() > 0:
    arrays["points"] = np.asarray(d.Points)
    for name in ("GeodesicDistance", "SeedIdentifier"):
        if data.GetPointData().GetArray(name) is not None:
            arrays[name] = np.asarray(d.PointData[name])
np.savez(os.path.join(%r, "%s_%s_rank%%d.npz" %% rank), **arrays)
self.GetOutput().ShallowCopy(data)
"""


def gdt_record(proxy, case, what):
    ProgrammableFilter(Input=proxy, Script=RECORD % (OUT, case, what)).UpdatePipeline()  # noqa


def gdt_match(mine, theirs):
    """For each of mine, the index of the nearest of theirs (brute force); checks that
    it is a one-to-one match within the filter's merge tolerance (1e-9 of the
    diagonal: pieces may round a shared border point differently)."""
    diagonal = np.linalg.norm(theirs.max(axis=0) - theirs.min(axis=0))
    match = np.empty(len(mine), dtype=np.int64)
    for start in range(0, len(mine), 256):
        block = mine[start:start + 256]
        gaps = ((block[:, None, :] - theirs[None, :, :]) ** 2).sum(axis=2)
        match[start:start + 256] = gaps.argmin(axis=1)
    assert np.abs(mine - theirs[match]).max() <= 1e-9 * diagonal, "points moved"
    assert len(np.unique(match)) == len(theirs), "not one-to-one"
    return match


if MODE == "prepare":
    os.makedirs(OUT, exist_ok=True)
    SaveData(SPHERE_FILE, proxy=Sphere(ThetaResolution=48, PhiResolution=40))  # noqa: F405
    print("wrote", SPHERE_FILE)
elif MODE == "write":
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    os.makedirs(OUT, exist_ok=True)
    for case in CASES:
        # (gdt_ names: pvbatch runs the ProgrammableFilter's script in __main__, which
        # then defines functions such as source and record there)
        mesh = gdt_surface(case)
        gdt_record(mesh, case, "input")
        gdt_record(gdt_geodesic(case, mesh), case, "output")
    # Quads in pieces: rank 0 reports them, every rank returns with an empty output.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import pv_helpers
    quads = TopoGPUGeodesicDistance(Input=Plane(XResolution=9, YResolution=7))  # noqa
    messages = pv_helpers.Messages(quads)
    gdt_record(quads, "quads", "output")
    text = " ".join(messages.errors)
    assert "not triangles" in text or "is a vtkQuad" in text, text
    print("quads: %s" % text.strip().splitlines()[-1])
    # Seed Ids on pieces merged by position (no global ids): refused on rank 0, every
    # rank returns with an empty output.
    refused = TopoGPUGeodesicDistance(Input=gdt_surface("poly_mask"), SeedIds=SEED_IDS)  # noqa
    messages = pv_helpers.Messages(refused)
    gdt_record(refused, "refused", "output")
    if vtkMultiProcessController.GetGlobalController().GetLocalProcessId() == 0:
        text = " ".join(messages.errors)
        assert "without global point ids" in text and "Seed Mode is Point Ids" in text, text
        print("refused: %s" % text.strip().splitlines()[-1])
    print("wrote the outputs of %d ranks" % ranks)
else:
    # The premise of global_ids: Generate Global Ids numbers the whole file's points as
    # its point ids.
    with_ids = servermanager.Fetch(GenerateGlobalIds(  # noqa: F405
        Input=XMLPolyDataReader(FileName=[SPHERE_FILE])))  # noqa: F405
    globals_ = np.asarray(dsa.WrapDataObject(with_ids).PointData["GlobalPointIds"])
    assert np.array_equal(globals_, np.arange(with_ids.GetNumberOfPoints())), "premise"
    for case in CASES:
        source = gdt_surface(case, serial=True)
        whole = dsa.WrapDataObject(servermanager.Fetch(source))
        serial = dsa.WrapDataObject(servermanager.Fetch(gdt_geodesic(case, source)))
        n = whole.VTKObject.GetNumberOfPoints()
        inputs = sorted(glob.glob(os.path.join(OUT, "%s_input_rank*.npz" % case)))
        outputs = sorted(glob.glob(os.path.join(OUT, "%s_output_rank*.npz" % case)))
        assert len(inputs) >= 2 and len(outputs) == len(inputs), (inputs, outputs)
        for path in inputs:
            got = int(np.load(path)["npoints"])
            if case == "reader_ids":  # the file is read whole by rank 0
                want = n if path.endswith("rank0.npz") else 0
                assert got == want, "%s: %d points, not %d" % (path, got, want)
            else:
                assert 0 < got < n, "%s: a rank's input has %d of %d points" % (
                    path, got, n)
        for path in outputs:
            got = np.load(path)
            assert int(got["where"]) == 0, "%s: TopoGPUResultRank missing" % path
            if not path.endswith("rank0.npz"):
                assert int(got["npoints"]) == 0, "%s: not empty" % path
                continue
            # (Redistribute DataSet outputs unstructured grids)
            kind = "vtkUnstructuredGrid" if case == "global_ids" else \
                whole.VTKObject.GetClassName()
            assert str(got["kind"]) == kind, str(got["kind"])
            assert int(got["npoints"]) == n, "rank 0 has %d of %d points" % (
                int(got["npoints"]), n)
            assert int(got["ncells"]) == whole.VTKObject.GetNumberOfCells()
            mine, theirs = got["points"], np.asarray(serial.Points)
            if case in SAME_IDS:
                # Point for point: the gathered surface numbers its points as the serial
                # run does, and the seeds and their labels are the same ids.
                assert np.array_equal(mine, theirs), "%s: points renumbered" % case
                d_mpi, d_serial = got["GeodesicDistance"], serial.PointData["GeodesicDistance"]
                gap = np.abs(d_mpi - d_serial).max()
                assert np.all(d_mpi[SEED_IDS] == 0) and gap < 1e-9, "%s: gap %g" % (case, gap)
                assert np.array_equal(got["SeedIdentifier"],
                                      serial.PointData["SeedIdentifier"]), case
                assert set(np.unique(got["SeedIdentifier"])) == set(SEED_IDS), case
                print("%s: %d ranks, rank 0 = the serial run point for point, seeds %s "
                      "(max gap %.3g)" % (case, len(outputs), SEED_IDS, gap))
                continue
            b = gdt_match(mine, theirs)
            d_mpi = got["GeodesicDistance"]
            d_serial = np.asarray(serial.PointData["GeodesicDistance"])[b]
            assert np.all(np.isfinite(d_mpi)) and d_mpi.min() == 0
            # The same surface numbered differently: the solvers meet ties in another
            # order, so compare to FIM's convergence tolerance, not bit for bit.
            gap = np.abs(d_mpi - d_serial).max()
            assert gap < 1e-5, "%s: distances differ from the serial run by %g" % (case, gap)
            # The nearest seed, compared by its position.
            s_mpi = b[got["SeedIdentifier"]]
            s_serial = np.asarray(serial.PointData["SeedIdentifier"])[b]
            assert np.array_equal(s_mpi, s_serial), "%s: nearest seeds differ" % case
            print("%s: %d ranks, rank 0 = the serial run (max gap %.3g)" % (
                case, len(outputs), gap))
    for name in ("quads", "refused"):
        empty = sorted(glob.glob(os.path.join(OUT, "%s_output_rank*.npz" % name)))
        assert len(empty) >= 2 and all(int(np.load(q)["npoints"]) == 0 for q in empty), empty
    print("distributed geodesic distance identical to the serial run")
