"""Loads states/geodesic-distance.pvsm in pvbatch, checks the distance it computes and
saves a screenshot: every vertex reached, 0 exactly at the seeds, which are the surface
points nearest to the seed source's points (brute force here), the distance never below
the straight-line distance to the nearest seed (a geodesic is at least the chord) by more
than the solvers' stated undershoot (a quarter of the mean edge), each
vertex's SeedIdentifier the nearest seed where one seed is clearly nearer, contour lines
drawn.

Usage: pvbatch geodesic_state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

screenshot, docs_image = state_helpers.load_state_from_argv(sys.argv, globals())

geodesic, seeds = FindSource("GeodesicDistance"), FindSource("SeedPoints")
contours = FindSource("DistanceContours")
assert geodesic and seeds and contours, "state lacks its pipeline"
out = dsa.WrapDataObject(servermanager.Fetch(geodesic))
targets = np.asarray(dsa.WrapDataObject(servermanager.Fetch(seeds)).Points)
points = np.asarray(out.Points)
d = np.asarray(out.PointData["GeodesicDistance"]).astype(float)
ids = np.asarray(out.PointData["SeedIdentifier"])
assert out.VTKObject.GetNumberOfCells() > 20000, "surface too small"
snapped = [int(np.linalg.norm(points - t, axis=1).argmin()) for t in targets]
assert np.all(np.isfinite(d)), "unreached vertices on a closed torus"
assert np.all(d[snapped] == 0) and np.count_nonzero(d == 0) == len(snapped), "seeds"
assert set(np.unique(ids)) == set(snapped), (np.unique(ids), snapped)
chords = np.stack([np.linalg.norm(points - points[s], axis=1) for s in snapped])
# The first-order solvers may undershoot the exact polyhedral distance by a fraction of
# an edge where the surface curves (measured against CGAL: below 0.2 h, stated 0.25 h).
tris = np.asarray(out.Polygons).reshape(-1, 4)[:, 1:]
h = np.mean([np.linalg.norm(points[tris[:, i]] - points[tris[:, (i + 1) % 3]], axis=1)
             for i in range(3)])
assert np.all(d >= chords.min(axis=0) - 0.25 * h), "distance below the straight line"
# Nearest seed: where the chords already separate the seeds by more than the largest
# geodesic detour seen (d - chord), the nearest by chord is the nearest geodesically.
detour = (d - chords.min(axis=0)).max()
order = np.sort(chords, axis=0)
clear = order[1] - order[0] > 2 * detour
assert clear.sum() > 100, "too few clear vertices"
nearest = np.array(snapped)[chords.argmin(axis=0)]
assert np.array_equal(ids[clear], nearest[clear]), "SeedIdentifier not the nearest seed"
contours.UpdatePipeline()
assert contours.GetDataInformation().GetNumberOfCells() > 1000, "no contour lines"
print("state: %d vertices, distances in [0, %.3f], seeds %s, %d clear Voronoi checks" % (
    len(points), d.max(), snapped, int(clear.sum())))

state_helpers.save_screenshot(screenshot, docs_image)
