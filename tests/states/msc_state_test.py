"""Loads states/morse-smale-complex.pvsm in pvbatch, checks the complex it computes (Euler
on the critical cells, every vertex labelled, each separatrix running from a saddle to an
extremum listed among the critical points, as SourceId/DestinationId say) and saves a
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
glyphs, tubes = FindSource("CriticalPointGlyphs"), FindSource("SeparatrixTubes")
assert msc and glyphs and tubes, "state lacks its pipeline"
msc.UpdatePipeline()
counts, separatrices = state_helpers.check_complex(msc)
assert sum(counts) > 50 and separatrices > 50, (counts, separatrices)
glyphs.UpdatePipeline()
tubes.UpdatePipeline()
assert glyphs.GetDataInformation().GetNumberOfPoints() > 0, "no glyphs drawn"
assert tubes.GetDataInformation().GetNumberOfPoints() > 0, "no tubes drawn"
print("state: critical cells %s, %d separatrices, endpoints checked" %
      (counts, separatrices))

state_helpers.save_screenshot(screenshot, docs_image)
