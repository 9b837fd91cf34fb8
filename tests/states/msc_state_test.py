"""Loads states/morse-smale-complex.pvsm (or msc-tet-mesh.pvsm) in pvbatch, checks that it
is the default workflow on the simplicial complex (Complex = Simplicial, the ports drawn
with the plugin's display defaults: sprites by CellDimension, lines by SeparatrixType,
2-separatrices and segmentation hidden) and the complex it computes (Euler on the
critical cells, every vertex labelled, each separatrix running from a saddle to an
extremum listed among the critical points, as SourceId/DestinationId say), and saves a
screenshot.

Usage: pvbatch msc_state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

screenshot, docs_image = state_helpers.load_state_from_argv(sys.argv, globals())

msc = FindSource("MorseSmaleComplex")
assert msc, "state lacks its pipeline"
assert msc.Complex == "Simplicial", "the state's complex is %s, not TTK's" % msc.Complex
msc.UpdatePipeline()
counts, separatrices = state_helpers.check_complex(msc)
assert sum(counts) > 50 and separatrices > 50, (counts, separatrices)
view = GetActiveView() or GetRenderViews()[0]
state_helpers.check_default_display(msc, view)
print("state: simplicial complex, critical cells %s, %d separatrices, endpoints checked, "
      "display defaults" % (counts, separatrices))

state_helpers.save_screenshot(screenshot, docs_image)
