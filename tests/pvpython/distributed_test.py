"""Distributed run (pvbatch --mpi): the pieces together must give exactly the serial
critical points (same positions, same types, each once). An image source that ignores
ghost-level requests (pieces cut without ghost layers) gets a clear error on rank 0 and
empty outputs, not critical points made from half links. The smoother on a random image:
its pieces (cropped to the extent asked for) make up the serial smoothed image exactly,
and the critical points of the smoothed field (which read the smoother's ghost layer)
are the serial ones.

    mpiexec -n N pvbatch --mpi distributed_test.py PLUGIN OUT_DIR write
    pvpython distributed_test.py PLUGIN OUT_DIR compare
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403
from paraview import servermanager
from vtkmodules.numpy_interface import dataset_adapter as dsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
# An odd extent and a field symmetric in z (RTData's cosine term): ties and critical
# points on the piece borders.
EXTENT = [-17, 18, -20, 19, -21, 21]
PIECES = os.path.join(OUT, "distributed.pvtp")
NO_GHOSTS = os.path.join(OUT, "no_ghosts.txt")
RANDOM = os.path.join(OUT, "random.vti")
SMOOTHED = os.path.join(OUT, "smoothed.pvti")
SMOOTHED_CP = os.path.join(OUT, "smoothed_cp.pvtp")
# A source of image pieces cut along z with no ghost layers, whatever is asked.
NO_GHOSTS_INFO = """
from paraview import util
util.SetOutputWholeExtent(self, [0, 15, 0, 14, 0, 20])
"""
NO_GHOSTS_SCRIPT = """
import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
info = self.GetOutputInformation(0)
piece = info.Get(sddp.UPDATE_PIECE_NUMBER())
count = info.Get(sddp.UPDATE_NUMBER_OF_PIECES())
z0, z1 = piece * 20 // count, (piece + 1) * 20 // count
out = self.GetOutput()
out.SetExtent(0, 15, 0, 14, z0, z1)
k, j, i = np.meshgrid(np.arange(z0, z1 + 1), np.arange(15), np.arange(16), indexing="ij")
values = numpy_to_vtk((np.sin(0.7 * i) * np.cos(0.5 * j) + np.sin(0.9 * k)).ravel(), deep=1)
values.SetName("s")
out.GetPointData().SetScalars(values)
"""


def critical_points():
    cp = TopoGPUCriticalPoints(Input=Wavelet(WholeExtent=EXTENT))  # noqa: F405
    cp.SelectInputScalars = ["POINTS", "RTData"]
    cp.Backend = "CPU"
    return cp


def smoothed(iterations):
    sm = TopoGPUScalarFieldSmoother(Input=XMLImageDataReader(FileName=[RANDOM]))  # noqa
    sm.SelectInputScalars = ["POINTS", "s"]
    sm.NumberOfIterations = iterations
    return sm


def smoothed_cp():
    cp = TopoGPUCriticalPoints(Input=smoothed(1))  # noqa: F405
    cp.SelectInputScalars = ["POINTS", "s"]
    return cp


def keyed(data):
    d = dsa.WrapDataObject(data)
    points, types = d.Points, d.PointData["CriticalType"]
    return sorted((tuple(round(float(c), 6) for c in p), int(t)) for p, t in zip(points, types))


if MODE == "write":
    os.makedirs(OUT, exist_ok=True)
    SaveData(PIECES, proxy=critical_points())  # noqa: F405
    source = ProgrammableSource(OutputDataSetType="vtkImageData",  # noqa: F405
                                ScriptRequestInformation=NO_GHOSTS_INFO,
                                Script=NO_GHOSTS_SCRIPT)
    cp = TopoGPUCriticalPoints(Input=source)  # noqa: F405
    cp.SelectInputScalars = ["POINTS", "s"]
    messages = pv_helpers.Messages(cp)
    cp.UpdatePipeline()
    with open(NO_GHOSTS, "w") as f:
        f.write("%d\n%s" % (cp.GetDataInformation().GetNumberOfPoints(),
                             "\n".join(messages.errors)))
    # A random field (no ties): one smoothing pass moves critical points everywhere.
    import numpy as np
    from vtkmodules.util.numpy_support import numpy_to_vtk
    from vtkmodules.vtkCommonDataModel import vtkImageData
    from vtkmodules.vtkIOXML import vtkXMLImageDataWriter

    image = vtkImageData()
    image.SetExtent(0, 29, 0, 27, 0, 31)
    values = numpy_to_vtk(np.random.default_rng(5).random(30 * 28 * 32), deep=1)
    values.SetName("s")
    image.GetPointData().SetScalars(values)
    writer = vtkXMLImageDataWriter()
    writer.SetFileName(RANDOM)
    writer.SetInputData(image)
    writer.Write()
    SaveData(SMOOTHED, proxy=smoothed(4))  # noqa: F405
    SaveData(SMOOTHED_CP, proxy=smoothed_cp())  # noqa: F405
else:
    with open(NO_GHOSTS) as f:
        total, errors = f.read().split("\n", 1)
    assert int(total) == 0 and "ghost layers below it" in errors, (total, errors)
    print("pieces without ghost layers: a clear error on rank 0, no output")
    import numpy as np

    serial = dsa.WrapDataObject(servermanager.Fetch(smoothed(4))).PointData["s"]
    pieces = dsa.WrapDataObject(servermanager.Fetch(OpenDataFile(SMOOTHED))).PointData["s"]  # noqa
    assert np.array_equal(np.asarray(serial), np.asarray(pieces)), \
        "the smoothed pieces differ from the serial image by up to %g" % float(
            np.max(np.abs(np.asarray(serial) - np.asarray(pieces))))
    serial_cp = keyed(servermanager.Fetch(smoothed_cp()))
    pieces_cp = keyed(servermanager.Fetch(OpenDataFile(SMOOTHED_CP)))  # noqa: F405
    assert len(serial_cp) > 1000 and pieces_cp == serial_cp, (
        "critical points of the smoothed field: %d serial, %d distributed, %d apart" % (
            len(serial_cp), len(pieces_cp), len(set(serial_cp) ^ set(pieces_cp))))
    print("smoother pieces and the critical points of the smoothed field as serial")
    serial = keyed(servermanager.Fetch(critical_points()))
    reader = OpenDataFile(PIECES)  # noqa: F405
    pieces = keyed(servermanager.Fetch(reader))
    assert len(serial) > 100, len(serial)
    assert len(pieces) == len(serial), "pieces give %d critical points, serial %d" % (len(pieces), len(serial))
    assert pieces == serial, "distributed critical points differ from the serial ones"
    print("distributed: %d critical points, identical to the serial run" % len(serial))
