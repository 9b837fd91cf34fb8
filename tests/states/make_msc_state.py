"""Builds states/morse-smale-complex.pvsm, or with --tets states/msc-tet-mesh.pvsm (run
once, commit the result).

Usage: pvpython make_msc_state.py PLUGIN OUTPUT.pvsm [--tets]   (no X server needed)
The pipeline makes its own field (a low-frequency Wavelet: about 120 critical cells), so
the state needs no data files: the Morse-Smale complex's critical points as spheres
coloured by CellDimension, its 1-separatrices as tubes coloured by SeparatrixType, over
a translucent slice of the field through z = 0 and the field's outline. --tets splits
the Wavelet into tetrahedra first (ParaView's Tetrahedralize, a vtkUnstructuredGrid), so
the filter takes its mesh path: the simplicial complex, separatrices through the
simplices' barycentres.
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

plugin, output = sys.argv[1], sys.argv[2]
tets = "--tets" in sys.argv[3:]
LoadPlugin(plugin, remote=False, ns=globals())

field = Wavelet(registrationName="Field")
field.WholeExtent = [-16, 16, -16, 16, -8, 8]
field.XFreq, field.YFreq, field.ZFreq = 20.0, 15.0, 10.0
if tets:
    field.WholeExtent = [-12, 12, -12, 12, -6, 6]
    field = Tetrahedralize(registrationName="TetMesh", Input=field)

msc = TopoGPUMorseSmaleComplex(registrationName="MorseSmaleComplex", Input=field)
msc.SelectInputScalars = ["POINTS", "RTData"]
msc.Complex = "Cubical"  # the committed state's complex (meshes are simplicial anyway)
msc.Backend = "Auto"

glyphs = Glyph(registrationName="CriticalPointGlyphs", Input=OutputPort(msc, 0),
               GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 1.1
glyphs.GlyphMode = "All Points"

# Port 1 is an unstructured grid of poly lines (TTK's type); Tube wants poly data.
lines = ExtractSurface(registrationName="SeparatrixLines", Input=OutputPort(msc, 1))
tubes = Tube(registrationName="SeparatrixTubes", Input=lines)
tubes.Radius = 0.12

view = state_helpers.slice_and_view(field, opacity=0.6)

tube_display = Show(tubes, view)
ColorBy(tube_display, ("CELLS", "SeparatrixType"))
sep_lut = GetColorTransferFunction("SeparatrixType")
sep_lut.InterpretValuesAsCategories = 1
sep_lut.Annotations = ["0", "1-saddle to minimum", "1", "saddle-saddle",
                       "2", "2-saddle to maximum"]
sep_lut.IndexedColors = [0.30, 0.45, 0.95, 0.95, 0.95, 0.95, 0.95, 0.35, 0.30]
tube_display.SetScalarBarVisibility(view, True)

glyph_display = Show(glyphs, view)
dim_lut = state_helpers.colour_critical_points(glyph_display, view)
GetScalarBar(dim_lut, view).Title = "CellDimension"
GetScalarBar(dim_lut, view).ComponentTitle = ""
GetScalarBar(sep_lut, view).Title = "SeparatrixType"
GetScalarBar(sep_lut, view).ComponentTitle = ""
GetScalarBar(sep_lut, view).WindowLocation = "Upper Left Corner"

view.CameraPosition = [30.0, -55.0, 45.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.5, 0.83]
view.CameraParallelScale = 25.0
# No Render: the state is written without an X server (the camera is set explicitly).
SaveState(output)
print("wrote", output)
