"""What the state scripts share: the demo view's slice and outline (make_*state.py) and
saving the loaded state's screenshot (and, with TOPOGPU_UPDATE_DOCS=1, copying it to
the documentation image; *state_test.py)."""
import os
import shutil

from paraview import simple
from paraview.simple import GetActiveView, GetRenderViews, SaveScreenshot


def slice_and_view(field, opacity):
    """A translucent grey slice of field's RTData through z = 0 and field's outline in
    a 1000x800 render view, which is returned."""
    slice_ = simple.Slice(registrationName="Slice", Input=field)
    slice_.SliceType = "Plane"
    slice_.SliceType.Origin = [0.0, 0.0, 0.0]
    slice_.SliceType.Normal = [0.0, 0.0, 1.0]

    view = simple.GetActiveViewOrCreate("RenderView")
    view.ViewSize = [1000, 800]
    view.Background = [0.32, 0.34, 0.43]
    view.OrientationAxesVisibility = 1

    slice_display = simple.Show(slice_, view)
    simple.ColorBy(slice_display, ("POINTS", "RTData"))
    simple.GetColorTransferFunction("RTData").ApplyPreset("Grayscale", True)
    slice_display.Opacity = opacity

    outline = simple.Show(field, view)
    outline.SetRepresentationType("Outline")
    return view


def save_screenshot(screenshot, docs_image):
    view = GetActiveView() or GetRenderViews()[0]
    os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
    SaveScreenshot(screenshot, view, ImageResolution=[1000, 800])
    assert os.path.getsize(screenshot) > 10000, "screenshot looks empty"
    if docs_image and os.environ.get("TOPOGPU_UPDATE_DOCS") == "1":
        os.makedirs(os.path.dirname(os.path.abspath(docs_image)), exist_ok=True)
        shutil.copyfile(screenshot, docs_image)
        print("updated", docs_image)
    print("state: OK, screenshot", screenshot)
