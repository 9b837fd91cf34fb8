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

    # Without a state: a new filter shows as sprites coloured by CriticalType with the
    # type names in the legend (the plugin's representation hint and colour defaults).
    fresh = TopoGPUCriticalPoints(Input=Wavelet())  # noqa: F405 (from the plugin)
    fresh_view = GetActiveView()  # the GUI's own view (a new one is not laid out)
    display = Show(fresh, fresh_view)
    assert display.Representation == "Point Gaussian", display.Representation
    assert display.ColorArrayName[1] == "CriticalType", display.ColorArrayName
    lut = GetColorTransferFunction("CriticalType")
    labels = list(lut.Annotations)[1::2]
    assert labels == ["minimum", "1-saddle", "2-saddle", "maximum", "degenerate"], labels
    display.SetScalarBarVisibility(fresh_view, True)
    ResetCamera(fresh_view)
    Render(fresh_view)
    SaveScreenshot(os.environ["TOPOGPU_GUI_SCREENSHOT"].replace(".png", "_default.png"),
                   fresh_view, ImageResolution=[800, 600])
    representation = display.Representation
    Delete(fresh)

    LoadState(os.environ["TOPOGPU_GUI_STATE"])
    critical = FindSource("CriticalPoints")
    assert critical is not None, "state not loaded"
    critical.UpdatePipeline()
    points = critical.GetDataInformation().GetNumberOfPoints()
    assert points > 0, "no critical points"
    view = GetActiveView() or GetRenderViews()[0]
    SaveScreenshot(os.environ["TOPOGPU_GUI_SCREENSHOT"], view, ImageResolution=[800, 600])
    with open(os.environ["TOPOGPU_GUI_MARKER"], "w") as marker:
        marker.write("GUI: plugin loaded, %d critical points; new filter (no state): %s coloured by %s\n"
                     % (points, representation, ", ".join(labels)))
    status = 0
except BaseException:
    traceback.print_exc()
finally:
    os._exit(status)
