"""Builds states/persistence-diagram.pvsm (run once, commit the result).

Usage: pvpython make_pd_state.py PLUGIN OUTPUT.pvsm   (no X server needed)
The pipeline needs no data files: ParaView's Wavelet (21^3, RTData), its persistence
diagram by the TopoGPU Persistence Diagram filter with the defaults (TTK's simplicial
complex), shown as Apply shows it (the diagram representation, lines coloured by
PairType, the axes titled Birth and Death; the curves not drawn).
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

plugin, state_path = sys.argv[1], sys.argv[2]
LoadPlugin(plugin, remote=False, ns=globals())

field = Wavelet(registrationName="Field", WholeExtent=[-10, 10, -10, 10, -10, 10])
diagram = TopoGPUPersistenceDiagram(registrationName="Diagram", Input=field)  # noqa: F405
diagram.ScalarField = ["POINTS", "RTData"]

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 800]  # the state tests' screenshot size
view.OrientationAxesVisibility = 0
view.InteractionMode = "2D"
shown = state_helpers.show_as_apply(diagram, view)
assert shown[0] is not None and shown[1] is None, shown
shown[0].LineWidth = 3.0
label = Text(registrationName="DiagramLabel")
label.Text = ("the persistence diagram of the Wavelet's RTData (21^3, TTK's complex)\n"
              "x: birth, y: death; red: minimum-saddle (H0), blue: saddle-saddle (H1), "
              "green: saddle-maximum (H2)")
label_display = Show(label, view)
label_display.WindowLocation = "Upper Center"
label_display.FontSize = 14
ResetCamera(view)
# No Render: the state is written without an X server.
SaveState(state_path)
print("wrote", state_path)
