"""Distributed run (pvbatch --mpi): the pieces together must give exactly the serial
critical points (same positions, same types, each once).

    mpiexec -n N pvbatch --mpi distributed_test.py PLUGIN OUT_DIR write
    pvpython distributed_test.py PLUGIN OUT_DIR compare
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403
from paraview import servermanager
from vtkmodules.numpy_interface import dataset_adapter as dsa

PLUGIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())
# An odd extent and a field symmetric in z (RTData's cosine term): ties and critical
# points on the piece borders.
EXTENT = [-17, 18, -20, 19, -21, 21]
PIECES = os.path.join(OUT, "distributed.pvtp")


def critical_points():
    cp = TopoGPUCriticalPoints(Input=Wavelet(WholeExtent=EXTENT))  # noqa: F405
    cp.SelectInputScalars = ["POINTS", "RTData"]
    cp.Backend = "CPU"
    return cp


def keyed(data):
    d = dsa.WrapDataObject(data)
    points, types = d.Points, d.PointData["CriticalType"]
    return sorted((tuple(round(float(c), 6) for c in p), int(t)) for p, t in zip(points, types))


if MODE == "write":
    os.makedirs(OUT, exist_ok=True)
    SaveData(PIECES, proxy=critical_points())  # noqa: F405
else:
    serial = keyed(servermanager.Fetch(critical_points()))
    reader = OpenDataFile(PIECES)  # noqa: F405
    pieces = keyed(servermanager.Fetch(reader))
    assert len(serial) > 100, len(serial)
    assert len(pieces) == len(serial), "pieces give %d critical points, serial %d" % (len(pieces), len(serial))
    assert pieces == serial, "distributed critical points differ from the serial ones"
    print("distributed: %d critical points, identical to the serial run" % len(serial))
