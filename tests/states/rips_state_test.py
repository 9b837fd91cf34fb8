"""Loads states/rips-persistence.pvsm in pvbatch, checks the diagram it computes and saves
a screenshot: the bars equal Debian's ripser on the state's own cloud (written to a file
here, same threshold), the torus's two loops are the only dimension-1 bars with
persistence > 0.4, the cocycle layer shows edges of exactly those two bars, and the
diagram's points are TTK's (b, b) / (b, d).

Usage: pvbatch rips_state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import builtins  # max: the state's scripts run in __main__ and shadow it
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

screenshot, docs_image = state_helpers.load_state_from_argv(sys.argv, globals())

cloud, rips = FindSource("TorusCloud"), FindSource("RipsDiagram")
loops = FindSource("LongLoopCocycles")
assert cloud and rips and loops, "state lacks its pipeline"
points = np.asarray(dsa.WrapDataObject(servermanager.Fetch(cloud)).Points)
diagram = dsa.WrapDataObject(servermanager.Fetch(rips, idx=0))
ptype = np.asarray(diagram.CellData["PairType"])[:-1]
birth = np.asarray(diagram.CellData["Birth"])[:-1]
finite = np.asarray(diagram.CellData["IsFinite"])[:-1]
death = np.where(finite == 1, np.asarray(diagram.CellData["Death"])[:-1], np.inf)
pts = np.asarray(diagram.Points)
assert np.allclose(pts[0:-2:2, 0], birth) and np.allclose(pts[0:-2:2, 1], birth)
assert np.allclose(pts[1:-2:2][finite == 1, 1], death[finite == 1])

ripser = shutil.which("ripser") or "/usr/bin/ripser"
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "cloud.txt")
    np.savetxt(path, points, fmt="%.17g")
    text = subprocess.run([ripser, "--format", "point-cloud", "--dim", "1", "--threshold",
                           repr(rips.Threshold), path], capture_output=True, text=True,
                          check=True).stdout
want, dim = [], None
for line in text.splitlines():
    if line.startswith("persistence intervals in dim "):
        dim = int(line.split()[-1][:-1])
    elif line.startswith(" ["):
        b, d = line.strip()[1:-1].split(",")
        want.append((dim, float(b), math.inf if d.strip() == "" else float(d)))
mine = sorted(zip(ptype.tolist(), birth.tolist(), death.tolist()))
want.sort()
assert len(mine) == len(want), "%d bars vs ripser's %d" % (len(mine), len(want))


def near(x, y):
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= 2e-5 * builtins.max(1, abs(y))


# a multiset match within the text's rounding (two births equal to 6 digits may sort
# either way)
left = list(mine)
for b in want:
    hit = next((i for i, a in enumerate(left)
                if a[0] == b[0] and near(a[1], b[1]) and near(a[2], b[2])), None)
    assert hit is not None, "ripser's bar %s is not in the diagram" % (b,)
    left.pop(hit)
long_bars = np.nonzero((ptype == 1) & (death - birth > 0.4))[0]
assert len(long_bars) == 2, "a torus has two loops: %s" % (death - birth)[ptype == 1].max()
shown = dsa.WrapDataObject(servermanager.Fetch(loops))
assert set(np.unique(np.asarray(shown.CellData["BarId"])).tolist()) == set(long_bars.tolist())
print("state: %d points, %d bars = ripser's, loops %s, %d cocycle edges shown" % (
    len(points), len(mine), [(round(float(birth[i]), 3), round(float(death[i]), 3))
                             for i in long_bars], shown.VTKObject.GetNumberOfCells()))

state_helpers.save_screenshot(screenshot, docs_image)
