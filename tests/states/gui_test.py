"""Script for the ParaView GUI: paraview --dr --script=gui_test.py

Proves the plugin loads in the GUI through PV_PLUGIN_PATH and that a new filter looks
right without a state: Critical Points and Discrete Gradient keep their input shown
(their Visibility hint; ParaView's Apply hides the input of a filter without it), draw
sprites coloured by CriticalType / CellDimension with a categorical legend (the type
names, no numeric ticks) in the colours the state files use. Then loads the state named
by TOPOGPU_GUI_STATE (which needs the plugin's filter), runs it, writes screenshots next
to TOPOGPU_GUI_SCREENSHOT and a marker to TOPOGPU_GUI_MARKER, and ends the process itself
(the GUI has no quit call for scripts; --exit works only for XML test recordings).
"""
import os
import traceback

status = 1
try:
    from paraview.simple import *  # noqa: F401,F403

    screenshot = os.environ["TOPOGPU_GUI_SCREENSHOT"]
    view = GetActiveView()  # the GUI's own view (a new one is not laid out)

    def apply(proxy, source):
        """What the GUI's Apply does to a new filter: show it and, unless its
        Visibility hint says replace_input="0", hide its input (pqApplyBehavior)."""
        display = Show(proxy, view)
        hints = proxy.SMProxy.GetHints()
        visibility = hints.FindNestedElementByName("Visibility") if hints else None
        replace = visibility.GetAttribute("replace_input") if visibility else None
        if replace != "0":
            Hide(source, view)
        return display

    field = Wavelet()
    field_display = Show(field, view)
    checked = []
    for label, make, array, names in (
            ("Critical Points", TopoGPUCriticalPoints, "CriticalType",  # noqa: F405
             ["minimum", "1-saddle", "2-saddle", "maximum", "degenerate"]),
            ("Discrete Gradient", TopoGPUDiscreteGradient, "CellDimension",  # noqa: F405
             ["minimum", "1-saddle", "2-saddle", "maximum"])):
        fresh = make(Input=field)
        display = apply(fresh, field)
        assert field_display.Visibility == 1, "%s hid its input" % label
        assert display.Representation == "Point Gaussian", display.Representation
        assert display.ColorArrayName[1] == array, display.ColorArrayName
        lut = GetColorTransferFunction(array)
        assert lut.InterpretValuesAsCategories == 1, "%s legend is not categorical" % array
        labels = list(lut.Annotations)[1::2]
        assert labels == names, labels
        display.SetScalarBarVisibility(view, True)
        ResetCamera(view)
        Render(view)
        name = screenshot.replace(".png", "_%s.png" % array)
        SaveScreenshot(name, view, ImageResolution=[800, 600])
        checked.append("%s (%s: %s, input shown)" % (label, array, ", ".join(labels)))
        if array == "CriticalType":
            default_colours = list(lut.IndexedColors)
        Hide(fresh, view)
        HideScalarBarIfNotNeeded(lut, view)
        Delete(fresh)
    # the separatrices' legend too (the GUI colours a new port by its first array: the
    # user picks SeparatrixType)
    msc = TopoGPUMorseSmaleComplex(Input=field)  # noqa: F405
    lines = Show(OutputPort(msc, 1), view)
    ColorBy(lines, ("CELLS", "SeparatrixType"))
    lut = GetColorTransferFunction("SeparatrixType")
    assert lut.InterpretValuesAsCategories == 1, "SeparatrixType legend is not categorical"
    labels = list(lut.Annotations)[1::2]
    assert labels == ["saddle to minimum", "saddle-saddle (3D), saddle to maximum (2D)",
                      "2-saddle to maximum"], labels
    checked.append("Morse-Smale Complex (SeparatrixType: %s)" % ", ".join(labels))
    Hide(OutputPort(msc, 1), view)
    HideScalarBarIfNotNeeded(lut, view)
    Delete(msc)
    Delete(field)

    LoadState(os.environ["TOPOGPU_GUI_STATE"])
    critical = FindSource("CriticalPoints")
    assert critical is not None, "state not loaded"
    critical.UpdatePipeline()
    points = critical.GetDataInformation().GetNumberOfPoints()
    assert points > 0, "no critical points"
    # one legend: the state's colours are the defaults a new filter gets
    view = GetActiveView() or GetRenderViews()[0]
    state_lut = GetDisplayProperties(FindSource("Glyphs"), view).LookupTable
    assert state_lut.InterpretValuesAsCategories == 1
    assert list(state_lut.IndexedColors) == default_colours, (
        list(state_lut.IndexedColors), default_colours)
    SaveScreenshot(screenshot, view, ImageResolution=[800, 600])
    with open(os.environ["TOPOGPU_GUI_MARKER"], "w") as marker:
        marker.write("GUI: plugin loaded, %d critical points, state colours = defaults; "
                     "new filters (no state): %s\n" % (points, "; ".join(checked)))
    status = 0
except BaseException:
    traceback.print_exc()
    # the GUI may keep stderr to itself: the marker's folder gets the traceback too
    with open(os.environ["TOPOGPU_GUI_MARKER"] + ".error", "w") as error:
        error.write(traceback.format_exc())
finally:
    os._exit(status)
