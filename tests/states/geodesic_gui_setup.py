"""Script for the ParaView GUI (paraview --dr --script=geodesic_gui_setup.py
--test-script=geodesic_gui_events.xml --exit; run_geodesic_gui_test.sh runs it): the
Geodesic Distance filter driven through its Properties panel and the Change Input
dialog, as a user does.

This script builds a sphere and a two-point line (the seed points) and watches every
run of a TopoGPU Geodesic Distance filter created later (the events create it from the
Filters menu). The events then: type the seed ids 17 and 40 into the panel's Seed Ids
field and Apply; connect the line to the Seeds input through Edit > Change Input; set
Seed Mode to Seed Points and Apply. Each run is checked here against a brute force (the
nearest seed of every vertex is one of the seeds; with seed points, the seeds are the
surface vertices nearest to the line's points) and the screen is saved
(TOPOGPU_GUI_SCREENSHOT with the run number); the verdicts go to TOPOGPU_GUI_MARKER.
"""
import math
import os
import sys

# (the GUI runs the script without __file__: the runner names the folder)
sys.path.insert(0, os.environ["TOPOGPU_GUI_TESTS"])
import x_screenshot  # noqa: E402

from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403

MARKER = os.environ["TOPOGPU_GUI_MARKER"]
SHOT = os.environ["TOPOGPU_GUI_SCREENSHOT"]
TYPED_IDS = [17, 40]  # what geodesic_gui_events.xml types into the Seed Ids field

sphere = Sphere(ThetaResolution=16, PhiResolution=12)  # noqa: F405
Show(sphere)  # noqa: F405
line = Line(Point1=[0.5, 0.0, 0.0], Point2=[0.0, 0.0, -0.5], Resolution=1)  # noqa: F405
Show(line)  # noqa: F405
Render()  # noqa: F405
SetActiveSource(sphere)  # noqa: F405  (the filter's Input when created from the menu)


def note(text):
    with open(MARKER, "a") as out:
        out.write(text + "\n")


def nearest_vertex(data, x):
    """Brute force: the vertex of data nearest to x."""
    best, best_id = math.inf, -1
    for v in range(data.GetNumberOfPoints()):
        p = data.GetPoint(v)
        d = sum((p[k] - x[k]) ** 2 for k in range(3))
        if d < best:
            best, best_id = d, v
    return best_id


runs = []


def check(proxy, algorithm):
    out = algorithm.GetOutputDataObject(0)
    mode = proxy.GetProperty("SeedMode").GetData()  # the entry's text
    runs.append(mode)
    x_screenshot.grab(SHOT.replace(".png", "_run%d.png" % len(runs)))
    labels = out.GetPointData().GetArray("SeedIdentifier")
    distance = out.GetPointData().GetArray("GeodesicDistance")
    if labels is None or distance is None:
        note("run %d: FAIL, no output arrays" % len(runs))
        return
    seen = sorted({int(labels.GetValue(v)) for v in range(labels.GetNumberOfTuples())})
    if mode == "Point Ids":
        expected = sorted(TYPED_IDS)
        what = "ids typed in the panel %s" % list(proxy.SeedIds)
        ok = list(proxy.SeedIds) == TYPED_IDS
    else:
        seeds = proxy.Seeds.GetClientSideObject().GetOutputDataObject(0)
        expected = sorted({nearest_vertex(out, seeds.GetPoint(p))
                           for p in range(seeds.GetNumberOfPoints())})
        what = "seed points of the Seeds input (nearest vertices %s)" % expected
        ok = True
    ok = ok and seen == expected and all(distance.GetValue(s) == 0 for s in expected)
    note("run %d (%s): %s, %s; nearest-seed labels %s" % (
        len(runs), mode, "ok" if ok else "FAIL", what, seen))


attached = set()


def registered(caller, event):
    """Watches each geodesic filter as soon as the GUI registers it."""
    for (name, key), proxy in GetSources().items():  # noqa: F405
        if proxy.GetXMLName() == "TopoGPUGeodesicDistance" and key not in attached:
            attached.add(key)
            algorithm = proxy.GetClientSideObject()
            algorithm.AddObserver("EndEvent",
                                  lambda caller, event, p=proxy, a=algorithm: check(p, a))


manager = servermanager.vtkSMProxyManager.GetProxyManager().GetActiveSessionProxyManager()
manager.AddObserver("RegisterEvent", registered)
note("setup: sphere, seed line; waiting for the events")
