"""Builds states/morse-smale-complex.pvsm, or with --tets states/msc-tet-mesh.pvsm (run
once, commit the result).

Usage: pvpython make_msc_state.py PLUGIN OUTPUT.pvsm [--tets]   (no X server needed)
The pipeline makes its own field (a low-frequency Wavelet: about 120 critical cells), so
the state needs no data files. It is the default workflow: the Morse-Smale Complex filter
with its defaults (the simplicial complex, TTK's; Backend Auto) on the field's RTData,
every port shown as Apply shows it (critical points as sprites coloured by CellDimension,
1-separatrices as lines coloured by SeparatrixType, both with their categorical legends;
the 2-separatrices and the segmentation computed, not drawn), over a translucent slice of
the field through z = 0 and the field's outline. --tets splits the Wavelet into
tetrahedra first (ParaView's Tetrahedralize, a vtkUnstructuredGrid), so the filter takes
its mesh path: the same simplicial complex on an explicit mesh.
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

view = state_helpers.slice_and_view(field, opacity=0.6)
state_helpers.show_msc_defaults(msc, view, sprite_radius=0.4)  # sprites of 0.4 cells

scale = 0.75 if tets else 1.0  # the mesh's Wavelet is smaller
view.CameraPosition = [34.0 * scale, -62.0 * scale, 51.0 * scale]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.5, 0.83]
view.CameraParallelScale = 25.0 * scale
# No Render: the state is written without an X server (the camera is set explicitly).
SaveState(output)
print("wrote", output)
