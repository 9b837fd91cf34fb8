"""Distributed runs (pvbatch --mpi) of the Rips persistence diagram: the filter gathers
the cloud's pieces to rank 0, whatever way the data was split, so rank 0's diagram must
be the serial diagram of the whole cloud (and Debian's ripser's on the same points), the
other ranks' outputs empty, every output saying where the result is (TopoGPUResultRank
0). The splits:

- torus_points / torus_table / torus_ids: each rank's source makes every other point of
  a noisy torus cloud (150 points and 10 of them twice: exact duplicates), as a point
  set, as table rows, as a point set with global ids (a duplicate has an id of its own);
- sphere: ParaView's Sphere source (2282 points), whose pieces share their border
  points: the poles and two meridians, one of them rounded differently on each side (a
  duplicate 1e-16 away, a spurious H0 bar if kept); sphere_redistribute (RedistributeDataSet),
  sphere_d3 (D3: copies within one piece), sphere_ghosts (GhostCellsGenerator: ghost cells
  and ghost points), sphere_ids (GenerateGlobalIds: copies merged by id;
  the whole cloud is then one point per id, which on 3 ranks is not the serial cloud:
  ParaView 5.11 gives the copies of one rounded-apart meridian distinct ids);
- pvtp_pieces: a partitioned .pvtp of the Sphere source in 5 pieces (more pieces than
  ranks: a rank reads several); pvtp_ghosts / pvtp_ghosts_ids: the serial sphere's cells
  cut into 5 pieces with one layer of ghost cells (ghost points marked), without and
  with point global ids.

Points at the same place are one point when the pieces have no global ids (a split
copies its border points): the nonzero bars are the serial run's, and the diagram's
RipsNumberOfPoints counts the distinct places (torus_points: 150 where the serial run
counts 160). With global ids and for tables, every point is kept, as in the serial run.

    pvpython distributed_rips_test.py PLUGIN OUT_DIR prepare
    mpiexec -n N pvbatch --mpi distributed_rips_test.py PLUGIN OUT_DIR write
    pvpython distributed_rips_test.py PLUGIN OUT_DIR compare
"""
import builtins
import glob
import os
import shutil
import subprocess
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import ripser_text  # noqa: E402

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
TORUS = ("torus_points", "torus_table", "torus_ids")
SPHERE = ("sphere", "sphere_redistribute", "sphere_d3", "sphere_ghosts", "sphere_ids",
          "pvtp_pieces", "pvtp_ghosts", "pvtp_ghosts_ids")
CASES = TORUS + SPHERE
# (MaxDimension, Threshold): the sphere's H1 below 0.15 (its many small quads) in a
# second; the torus' H2 over the whole filtration.
PARAMETERS = {"torus": (2, -1.0), "sphere": (1, 0.15)}
TORUS_POINTS, TORUS_TWICE = 150, 10
SPHERE_RESOLUTION = (60, 40)
FILE_PIECES = 5

# The whole torus cloud and a rank's piece of it, made inside the source (pvbatch runs it
# on each rank): every point once, its first 10 twice (the copies later, on other ranks).
SOURCE = """
import numpy as np
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
info = self.GetOutputInformation(0)
piece = info.Get(sddp.UPDATE_PIECE_NUMBER()) if info.Has(sddp.UPDATE_PIECE_NUMBER()) else 0
pieces = info.Get(sddp.UPDATE_NUMBER_OF_PIECES()) if info.Has(sddp.UPDATE_NUMBER_OF_PIECES()) else 1
rng = np.random.default_rng(5)
u, v = rng.uniform(0, 2 * np.pi, (2, %d))
xyz = np.c_[(1 + 0.4 * np.cos(v)) * np.cos(u), (1 + 0.4 * np.cos(v)) * np.sin(u),
            0.4 * np.sin(v)] + rng.normal(0, 0.02, (len(u), 3))
xyz = np.vstack([xyz, xyz[:%d]])
mine = xyz[piece::pieces]
ids = np.arange(len(xyz), dtype=np.int64)[piece::pieces]
%%s
""" % (TORUS_POINTS, TORUS_TWICE)
AS_POINTS = """
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.util import numpy_support
pts = vtkPoints()
pts.SetDataTypeToDouble()
pts.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(mine), deep=1))
self.GetOutput().SetPoints(pts)
if %r:
    gids = numpy_support.numpy_to_vtk(ids, deep=1)
    gids.SetName("ids")
    self.GetOutput().GetPointData().SetGlobalIds(gids)
"""
AS_TABLE = """
for k, name in enumerate("xyz"):
    output.RowData.append(np.ascontiguousarray(mine[:, k]), name)
"""


def drt_path(name):
    return os.path.join(OUT, name)


def drt_sphere():
    return Sphere(ThetaResolution=SPHERE_RESOLUTION[0],  # noqa: F405
                  PhiResolution=SPHERE_RESOLUTION[1])


def drt_source(case):
    """The case's input as its pieces come to the filter."""
    if case in TORUS:
        if case == "torus_table":
            return ProgrammableSource(OutputDataSetType="vtkTable",  # noqa: F405
                                      Script=SOURCE % AS_TABLE)
        return ProgrammableSource(OutputDataSetType="vtkPolyData",  # noqa: F405
                                  Script=SOURCE % (AS_POINTS % (case == "torus_ids")))
    if case.startswith("pvtp_"):
        return XMLPartitionedPolydataReader(FileName=[drt_path(case + ".pvtp")])  # noqa
    sphere = drt_sphere()
    if case == "sphere":
        return sphere
    if case == "sphere_redistribute":
        return RedistributeDataSet(Input=sphere)  # noqa: F405
    if case == "sphere_d3":
        return D3(Input=sphere)  # noqa: F405
    if case == "sphere_ghosts":
        return GhostCellsGenerator(Input=RedistributeDataSet(Input=sphere),  # noqa: F405
                                   BuildIfRequired=0)
    assert case == "sphere_ids", case
    # Its tolerance gives the copies of the meridian the pieces round apart one id (on
    # 2 ranks; see drt_compare for 3).
    return GenerateGlobalIds(Input=sphere, Tolerance=1e-9)  # noqa: F405


def drt_parameters(case):
    return PARAMETERS["torus" if case in TORUS else "sphere"]


def drt_diagram(source, case):
    dimension, threshold = drt_parameters(case)
    return TopoGPURipsPersistenceDiagram(Input=source, MaxDimension=dimension,  # noqa
                                         Threshold=threshold)


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
if data.IsA("vtkPointSet"):
    ghosts = data.GetPointData().GetArray("vtkGhostType")
    arrays["ghosts"] = 0 if ghosts is None else int(np.count_nonzero(
        dsa.vtkDataArrayToVTKArray(ghosts) & 1))
    gids = data.GetPointData().GetGlobalIds()
    arrays["ids"] = gids is not None
    if n and gids is not None:
        keep = np.ones(n, bool) if ghosts is None else (
            dsa.vtkDataArrayToVTKArray(ghosts) & 1) == 0
        arrays["xyz"] = np.asarray(dsa.WrapDataObject(data).Points, dtype=np.float64)[keep]
        arrays["gids"] = np.asarray(dsa.vtkDataArrayToVTKArray(gids))[keep]
if data.GetFieldData().GetArray("RipsNumberOfPoints") is not None:
    d = dsa.WrapDataObject(data)
    for name in ("PairType", "Birth", "Death", "IsFinite"):
        arrays[name] = np.asarray(d.CellData[name])
    arrays["points"] = data.GetFieldData().GetArray("RipsNumberOfPoints").GetValue(0)
np.savez(os.path.join(%r, "%s_%s_rank%%d.npz" %% rank), **arrays)
self.GetOutput().ShallowCopy(data)
"""


def drt_record(proxy, case, what, port=0):
    out_type = "vtkTable" if (case == "torus_table" and what == "input") else None
    kwargs = {"OutputDataSetType": out_type} if out_type else {}
    ProgrammableFilter(Input=OutputPort(proxy, port), Script=RECORD % (OUT, case, what),  # noqa
                       **kwargs).UpdatePipeline()


def drt_bars(types, births, deaths, finite):
    """{dim: sorted (birth, death)} with +inf for the essential bars."""
    keep = types >= 0  # the diagonal is -1
    bars = {}
    for k, b, d in zip(types[keep].tolist(), births[keep].tolist(),
                       np.where(finite[keep] == 1, deaths[keep], np.inf).tolist()):
        bars.setdefault(k, []).append((b, d))
    return {k: sorted(v) for k, v in bars.items()}


def drt_write_pvtp(name, pieces, ids):
    """A .pvtp of the given vtkPolyData pieces (one .vtp each, ghost arrays as they are),
    its summary written here: the XML writers make pieces of a pipeline, not of data."""
    from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter

    entries = []
    for k, piece in enumerate(pieces):
        writer = vtkXMLPolyDataWriter()
        writer.SetFileName(drt_path("%s_%d.vtp" % (name, k)))
        writer.SetInputData(piece)
        writer.SetDataModeToAscii()
        writer.Write()
        entries.append('    <Piece Source="%s_%d.vtp"/>' % (name, k))
    precision = {10: "Float32", 11: "Float64"}[pieces[0].GetPoints().GetDataType()]
    ghost_level = 1 if pieces[0].GetCellData().GetArray("vtkGhostType") else 0
    point_arrays = '      <PDataArray type="UInt8" Name="vtkGhostType"/>\n' if ghost_level else ""
    if ids:
        point_arrays += '      <PDataArray type="Int64" Name="ids"/>\n'
    cell_arrays = '      <PDataArray type="UInt8" Name="vtkGhostType"/>\n' if ghost_level else ""
    with open(drt_path(name + ".pvtp"), "w") as f:
        f.write('<?xml version="1.0"?>\n'
                '<VTKFile type="PPolyData" version="1.0" byte_order="LittleEndian" '
                'header_type="UInt64">\n'
                '  <PPolyData GhostLevel="%d">\n'
                '    <PPointData%s>\n%s    </PPointData>\n'
                '    <PCellData>\n%s    </PCellData>\n'
                '    <PPoints>\n'
                '      <PDataArray type="%s" Name="Points" NumberOfComponents="3"/>\n'
                '    </PPoints>\n%s\n  </PPolyData>\n</VTKFile>\n' % (
                    ghost_level, ' GlobalIds="ids"' if ids else "", point_arrays,
                    cell_arrays, precision, "\n".join(entries)))


def drt_ghost_pieces(whole, ids):
    """whole's cells cut into FILE_PIECES runs, each with the cells sharing a point with
    it as ghost cells, its points those of its cells: the points of its own cells are not
    ghosts (a border point is one on both sides), the others are."""
    from vtkmodules.util import numpy_support
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData

    points = numpy_support.vtk_to_numpy(whole.GetPoints().GetData()).astype(np.float64)
    cells = [[whole.GetCell(c).GetPointId(j) for j in range(whole.GetCell(c).GetNumberOfPoints())]
             for c in range(whole.GetNumberOfCells())]
    pieces = []
    for k, run in enumerate(np.array_split(np.arange(len(cells)), FILE_PIECES)):
        own = set(run.tolist())
        own_points = {p for c in own for p in cells[c]}
        ghost = [c for c in range(len(cells)) if c not in own and own_points & set(cells[c])]
        kept = sorted(own) + ghost
        used = sorted({p for c in kept for p in cells[c]})
        local = {p: i for i, p in enumerate(used)}
        poly = vtkPolyData()
        vtk_points = vtkPoints()
        vtk_points.SetDataTypeToDouble()
        vtk_points.SetData(numpy_support.numpy_to_vtk(points[used], deep=1))
        poly.SetPoints(vtk_points)
        polys = vtkCellArray()
        for c in kept:
            polys.InsertNextCell(len(cells[c]), [local[p] for p in cells[c]])
        poly.SetPolys(polys)
        point_ghosts = numpy_support.numpy_to_vtk(
            np.array([0 if p in own_points else 1 for p in used], dtype=np.uint8), deep=1)
        point_ghosts.SetName("vtkGhostType")
        poly.GetPointData().AddArray(point_ghosts)
        cell_ghosts = numpy_support.numpy_to_vtk(
            np.array([0] * len(own) + [1] * len(ghost), dtype=np.uint8), deep=1)
        cell_ghosts.SetName("vtkGhostType")
        poly.GetCellData().AddArray(cell_ghosts)
        if ids:
            gids = numpy_support.numpy_to_vtk(np.array(used, dtype=np.int64), deep=1)
            gids.SetName("ids")
            poly.GetPointData().SetGlobalIds(gids)
        pieces.append(poly)
    return pieces


def drt_prepare():
    from vtkmodules.vtkFiltersSources import vtkSphereSource

    os.makedirs(OUT, exist_ok=True)
    pieces = []
    for k in range(FILE_PIECES):
        source = vtkSphereSource()
        source.SetThetaResolution(SPHERE_RESOLUTION[0])
        source.SetPhiResolution(SPHERE_RESOLUTION[1])
        source.UpdatePiece(k, FILE_PIECES, 0)
        pieces.append(source.GetOutput())
    drt_write_pvtp("pvtp_pieces", pieces, False)
    whole = vtkSphereSource()
    whole.SetThetaResolution(SPHERE_RESOLUTION[0])
    whole.SetPhiResolution(SPHERE_RESOLUTION[1])
    whole.Update()
    for ids in (False, True):
        drt_write_pvtp("pvtp_ghosts_ids" if ids else "pvtp_ghosts",
                       drt_ghost_pieces(whole.GetOutput(), ids), ids)
    print("wrote the partitioned files")


def drt_write():
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    for case in CASES:
        # (drt_ names: pvbatch runs the ProgrammableFilter's script in __main__, where
        # it would otherwise rebind names such as source)
        drt_src = drt_source(case)
        drt_record(drt_src, case, "input")
        drt_filter = drt_diagram(drt_src, case)
        drt_record(drt_filter, case, "diagram")
        drt_record(drt_filter, case, "bars", port=1)
    print("wrote the outputs of %d ranks" % ranks)


def drt_ripser(points, case, name="points"):
    """Debian's ripser on the points (17 digits: the filter's numbers)."""
    dimension, threshold = drt_parameters(case)
    path = drt_path("%s_%s.txt" % (case, name))
    np.savetxt(path, points, fmt="%.17g")
    args = [shutil.which("ripser") or "/usr/bin/ripser", "--format", "point-cloud",
            "--dim", str(dimension)]
    if threshold > 0:
        args += ["--threshold", repr(threshold)]
    run = subprocess.run(args + [path], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return ripser_text.parse(run.stdout)


def drt_serial(case):
    """The serial filter's bars and RipsNumberOfPoints, and ripser's bars, on the whole
    cloud: the torus source unsplit, the serial Sphere source."""
    from vtkmodules.numpy_interface import dataset_adapter as dsa

    source = drt_source(case if case in TORUS else "sphere")
    source.UpdatePipeline()
    data = servermanager.Fetch(source)
    if case == "torus_table":
        points = np.c_[tuple(np.asarray(dsa.WrapDataObject(data).RowData[c]) for c in "xyz")]
    else:
        points = np.asarray(dsa.WrapDataObject(data).Points, dtype=np.float64)
    diagram = servermanager.Fetch(drt_diagram(source, case))
    d = dsa.WrapDataObject(diagram)
    bars = drt_bars(*(np.asarray(d.CellData[n])
                      for n in ("PairType", "Birth", "Death", "IsFinite")))
    count = int(diagram.GetFieldData().GetArray("RipsNumberOfPoints").GetValue(0))
    return bars, count, drt_ripser(points, case)


def drt_compare():
    # builtins: the programmable sources' scripts run in __main__ and bind sum, max and
    # all there to VTK's array reductions.
    failures = []
    for case in CASES:
        serial, count, ripser = drt_serial(case)
        assert builtins.sum(map(len, serial.values())) > 150, "the serial diagram is too small"
        diff = ripser_text.barcode_difference(serial, ripser)
        assert diff == "", "%s: the serial run differs from ripser: %s" % (case, diff)
        inputs = sorted(glob.glob(os.path.join(OUT, "%s_input_rank*.npz" % case)))
        assert len(inputs) >= 2, inputs
        sizes = [int(np.load(path)["n"]) for path in inputs]
        # Every split is real: no rank holds the whole cloud (the copies aside).
        assert builtins.max(sizes) < count, "%s: a rank's input has %s points" % (case, sizes)
        if case.endswith("ghosts"):
            assert builtins.sum(int(np.load(path)["ghosts"]) for path in inputs) > 0, case
        if case.endswith("ids"):
            assert builtins.all(bool(np.load(path)["ids"]) for path, n in zip(inputs, sizes) if n)
        # The distinct places without global ids (the torus' copies are one point).
        want_count = count - TORUS_TWICE if case == "torus_points" else count
        if case.endswith("ids"):
            # One point per global id: the whole cloud as the ids name it (numpy).
            loaded = [np.load(path) for path in inputs]
            gids = np.concatenate([z["gids"] for z in loaded if "gids" in z])
            xyz = np.vstack([z["xyz"] for z in loaded if "xyz" in z])
            by_id = xyz[np.sort(np.unique(gids, return_index=True)[1])]
            if len(by_id) != count:
                # ParaView 5.11's GenerateGlobalIds gives the copies the Sphere source's
                # 3 pieces round apart distinct ids, whatever its tolerance: the ids
                # name more points than the serial cloud has, each kept.
                print("%s: the ids name %d points, the serial cloud has %d: checked "
                      "against ripser on one point per id" % (case, len(by_id), count))
                serial = None
                ripser = drt_ripser(by_id, case, "by_id")
                want_count = len(by_id)
        bars = builtins.sum(map(len, (ripser if serial is None else serial).values()))
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
                    if int(got["n"]) != bars:
                        failures.append("%s: rank 0's table has %d rows, the whole "
                                        "cloud's diagram %d bars" % (case, int(got["n"]),
                                                                    bars))
                    continue
                if "PairType" not in got:
                    failures.append("%s: rank 0 has no diagram" % case)
                    continue
                mine = drt_bars(got["PairType"], got["Birth"], got["Death"], got["IsFinite"])
                # Copies of one point may differ in their last bits (the one kept
                # changes the distances by as much).
                for name, want, tol in (("the serial run", serial, 1e-12),
                                        ("ripser", ripser, 2e-5)):
                    if want is None:
                        continue
                    diff = ripser_text.barcode_difference(mine, want, tol=tol)
                    if diff:
                        failures.append("%s: rank 0's bars differ from %s: %s" % (
                            case, name, diff))
                if int(got["points"]) != want_count:
                    failures.append("%s: rank 0 counts %d points, the whole cloud %d" % (
                        case, int(got["points"]), want_count))
        print("%s: %d ranks (inputs of %s points), rank 0: %d bars" % (
            case, len(inputs), sizes, bars))
    assert not failures, "\n".join(failures)
    print("distributed Rips persistence identical to the serial run")


{"prepare": drt_prepare, "write": drt_write, "compare": drt_compare}[MODE]()
