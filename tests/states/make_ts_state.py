"""Builds states/topological-simplification.pvsm (run once, commit the result).

Usage: pvpython make_ts_state.py PLUGIN OUTPUT.pvsm   (no X server needed)
The whole chain of the everyday workflow, on a field made in the pipeline (the
low-frequency Wavelet of the Morse-Smale state), so the state needs no data files:
Field -> TopoGPU Persistence Diagram -> Threshold on Persistence (the pairs kept, at
least THRESHOLD) -> TopoGPU Topological Simplification with the thresholded diagram as
its Constraints -> TopoGPU Morse-Smale Complex (simplicial, the defaults) of the
simplified field, which reads the simplified field's RTData_Order. Shown: the complex as
Apply shows it over a translucent slice of the simplified field and the outline.
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

THRESHOLD = 12.0  # in RTData's units: the pairs of persistence >= this are kept

plugin, output = sys.argv[1], sys.argv[2]
LoadPlugin(plugin, remote=False, ns=globals())

field = Wavelet(registrationName="Field")
field.WholeExtent = [-16, 16, -16, 16, -8, 8]
field.XFreq, field.YFreq, field.ZFreq = 20.0, 15.0, 10.0

diagram = TopoGPUPersistenceDiagram(registrationName="Diagram", Input=field)  # noqa: F405
diagram.ScalarField = ["POINTS", "RTData"]
kept = Threshold(registrationName="KeptPairs", Input=diagram)
kept.Scalars = ["CELLS", "Persistence"]
kept.LowerThreshold, kept.UpperThreshold = THRESHOLD, 1.0e30
simplified = TopoGPUTopologicalSimplification(registrationName="Simplified",  # noqa: F405
                                              Input=field, Constraints=kept)
simplified.ScalarField = ["POINTS", "RTData"]
msc = TopoGPUMorseSmaleComplex(registrationName="MorseSmaleComplex",  # noqa: F405
                               Input=simplified)
msc.SelectInputScalars = ["POINTS", "RTData"]

view = state_helpers.slice_and_view(simplified, opacity=0.6)
state_helpers.show_msc_defaults(msc, view, sprite_radius=0.5)
label = Text(registrationName="ChainLabel")
label.Text = ("Wavelet -> Persistence Diagram -> Threshold (persistence >= %g) ->\n"
              "Topological Simplification -> Morse-Smale Complex" % THRESHOLD)
label_display = Show(label, view)
label_display.WindowLocation = "Lower Center"
label_display.FontSize = 14

view.CameraPosition = [34.0, -62.0, 51.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.5, 0.83]
view.CameraParallelScale = 25.0
# No Render: the state is written without an X server (the camera is set explicitly).
SaveState(output)
print("wrote", output)
