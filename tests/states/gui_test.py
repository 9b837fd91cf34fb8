"""Script for the ParaView GUI: paraview --dr --script=gui_test.py

Proves the plugin loads in the GUI through PV_PLUGIN_PATH: loads the state named by
TOPOGPU_GUI_STATE (which needs the plugin's filter), runs it, writes a screenshot to
TOPOGPU_GUI_SCREENSHOT and a marker to TOPOGPU_GUI_MARKER, then ends the process itself
(the GUI has no quit call for scripts; --exit works only for XML test recordings).
"""
import os
import traceback

status = 1
try:
    from paraview.simple import *  # noqa: F401,F403

    LoadState(os.environ["TOPOGPU_GUI_STATE"])
    critical = FindSource("CriticalPoints")
    assert critical is not None, "state not loaded"
    critical.UpdatePipeline()
    points = critical.GetDataInformation().GetNumberOfPoints()
    assert points > 0, "no critical points"
    view = GetActiveView() or GetRenderViews()[0]
    SaveScreenshot(os.environ["TOPOGPU_GUI_SCREENSHOT"], view, ImageResolution=[800, 600])
    with open(os.environ["TOPOGPU_GUI_MARKER"], "w") as marker:
        marker.write("GUI: plugin loaded, %d critical points\n" % points)
    status = 0
except BaseException:
    traceback.print_exc()
finally:
    os._exit(status)
