"""Builds states/geodesic-distance.pvsm (run once, commit the result).

Usage: pvpython make_geodesic_state.py PLUGIN OUTPUT.pvsm   (no X server needed)
The pipeline makes its own surface (ParaView's Superquadric torus, triangulated, its seam
points merged by Clean), so the state needs no data files: the geodesic distance from
three seed points (a PolyLineSource's points: on top, on the outer and on the inner
equator, snapped to the surface) coloured, with
its contour lines (geodesic circles) and the seeds as spheres.
"""
import sys

from paraview.simple import *  # noqa: F401,F403

plugin, output = sys.argv[1], sys.argv[2]
LoadPlugin(plugin, remote=False, ns=globals())

torus = Superquadric(registrationName="Torus", Toroidal=1, Size=1.0, Thickness=0.45,
                     ThetaResolution=160, PhiResolution=80)
triangles = Triangulate(registrationName="Triangles", Input=torus)
# The source repeats its seam points (texture coordinates): merge them, or the seam is
# a boundary the distance cannot cross.
surface = Clean(registrationName="Surface", Input=triangles)
seeds = PolyLineSource(registrationName="SeedPoints",
                       Points=[0.69, 0.31, 0.0, -0.866, 0.0, 0.5, -0.13, 0.0, -0.357])

geodesic = TopoGPUGeodesicDistance(registrationName="GeodesicDistance", Input=surface,
                                   Seeds=seeds)
geodesic.SeedMode = "Seed Points"
geodesic.Solver = "fim-mt"

contours = Contour(registrationName="DistanceContours", Input=geodesic)
contours.ContourBy = ["POINTS", "GeodesicDistance"]
contours.Isosurfaces = [0.06 * (k + 1) for k in range(21)]
contours.ComputeScalars = 1

seed_glyphs = Glyph(registrationName="SeedGlyphs", Input=seeds, GlyphType="Sphere")
seed_glyphs.ScaleArray = ["POINTS", "No scale array"]
seed_glyphs.ScaleFactor = 0.07
seed_glyphs.GlyphMode = "All Points"

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 800]
view.Background = [0.32, 0.34, 0.43]
view.OrientationAxesVisibility = 1

surface_display = Show(geodesic, view)
ColorBy(surface_display, ("POINTS", "GeodesicDistance"))
lut = GetColorTransferFunction("GeodesicDistance")
lut.ApplyPreset("Viridis (matplotlib)", True)
lut.RescaleTransferFunction(0.0, 1.3)
surface_display.SetScalarBarVisibility(view, True)
GetScalarBar(lut, view).Title = "GeodesicDistance"
GetScalarBar(lut, view).ComponentTitle = ""

contour_display = Show(contours, view)
contour_display.ColorArrayName = ["POINTS", ""]
contour_display.AmbientColor = [1.0, 1.0, 1.0]
contour_display.DiffuseColor = [1.0, 1.0, 1.0]
contour_display.LineWidth = 2.0

glyph_display = Show(seed_glyphs, view)
glyph_display.ColorArrayName = ["POINTS", ""]
glyph_display.AmbientColor = [0.9, 0.15, 0.1]
glyph_display.DiffuseColor = [0.9, 0.15, 0.1]

view.CameraPosition = [1.9, 2.3, 2.1]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.35, 0.8, -0.45]
view.CameraParallelScale = 1.2
# No Render: the state is written without an X server (the camera is set explicitly).
SaveState(output)
print("wrote", output)
