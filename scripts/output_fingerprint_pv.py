"""Fingerprints of the ParaView filters' outputs, to show a restructuring changed none.

Runs every TopoGPU filter through paraview.simple on data it makes itself (a wavelet image,
its tetrahedralization, a sphere surface, a point cloud) and prints one SHA-256 per filter
and output port over the port's points, cells and arrays (names, types, values); diff the
output of the commit before and after a change:

  pvpython scripts/output_fingerprint_pv.py build/lib/paraview-plugins/TopoGPU/TopoGPU.so
"""
import hashlib
import sys

from paraview import servermanager
from paraview.simple import LoadPlugin, Sphere, Tetrahedralize, Triangulate, Wavelet
from vtkmodules.numpy_interface import dataset_adapter as dsa

LoadPlugin(sys.argv[1], remote=False, ns=globals())


# The run's timings (field data), which change from run to run, and the names of its timed
# stages, which say when a triangulation or vertex order was reused from an earlier filter.
VOLATILE = ("TopoGPUTime", "TopoGPUTimings", "TopoGPUPeakMemory", "TopoGPUTimingStages")


def digest_arrays(digest, attributes):
    for i in range(attributes.GetNumberOfArrays()):
        array = attributes.GetAbstractArray(i)
        if array.GetName() in VOLATILE:
            continue
        digest.update(("%s %s %d\n" % (array.GetName(), array.GetClassName(),
                                       array.GetNumberOfComponents())).encode())
        if hasattr(array, "GetValue") and array.IsA("vtkStringArray"):
            for k in range(array.GetNumberOfValues()):
                digest.update(array.GetValue(k).encode() + b"\0")
        else:
            digest.update(dsa.vtkDataArrayToVTKArray(array).tobytes())


def fingerprint(proxy, port):
    proxy.UpdatePipeline()
    data = servermanager.Fetch(proxy, idx=port) if port else servermanager.Fetch(proxy)
    digest = hashlib.sha256(data.GetClassName().encode())
    wrapped = dsa.WrapDataObject(data)
    if hasattr(wrapped, "Points") and wrapped.Points is not None:
        digest.update(wrapped.Points.tobytes())
    for name in ("GetPolys", "GetLines", "GetVerts", "GetCells"):
        if hasattr(data, name) and getattr(data, name)() is not None:
            cells = getattr(data, name)()
            if hasattr(cells, "GetData"):
                digest.update(dsa.vtkDataArrayToVTKArray(cells.GetData()).tobytes())
    kinds = ("GetPointData", "GetCellData", "GetRowData", "GetFieldData")
    for attributes in (getattr(data, kind)() for kind in kinds if hasattr(data, kind)):
        digest_arrays(digest, attributes)
    return digest.hexdigest()


def report(name, proxy, ports):
    for port in range(ports):
        print("%s.port%d %s" % (name, port, fingerprint(proxy, port)), flush=True)


image = Wavelet(WholeExtent=[-10, 10, -8, 8, -6, 6])
tets = Tetrahedralize(Input=image)
for source_name, source in (("image", image), ("tets", tets)):
    scalars = ["POINTS", "RTData"]
    report(source_name + ".critical_points",
           TopoGPUCriticalPoints(Input=source, SelectInputScalars=scalars), 1)  # noqa: F821
    report(source_name + ".smoother",
           TopoGPUScalarFieldSmoother(Input=source, SelectInputScalars=scalars,  # noqa: F821
                                      NumberOfIterations=3), 1)
    for complex_ in (0, 1) if source_name == "image" else (1,):
        report("%s.gradient.complex%d" % (source_name, complex_),
               TopoGPUDiscreteGradient(Input=source, SelectInputScalars=scalars,  # noqa: F821
                                       Complex=complex_), 1)
        report("%s.msc.complex%d" % (source_name, complex_),
               TopoGPUMorseSmaleComplex(Input=source, SelectInputScalars=scalars,  # noqa: F821
                                        Complex=complex_), 4)

surface = Triangulate(Input=Sphere(ThetaResolution=40, PhiResolution=30))
# The deterministic solvers: meshFIM on all threads (the default here) converges to the
# same distances up to rounding, by a schedule-dependent number of sweeps.
for solver, name in ((0, "fmm"), (1, "fim")):
    geodesic = TopoGPUGeodesicDistance(Input=surface, Solver=solver)  # noqa: F821
    geodesic.SeedIds = [0, 200]
    report("sphere.geodesic." + name, geodesic, 1)
cloud = Sphere(ThetaResolution=9, PhiResolution=7)  # points placed the same every run
report("cloud.rips", TopoGPURipsPersistenceDiagram(Input=cloud, MaxDimension=2), 3)  # noqa: F821
