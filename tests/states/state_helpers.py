"""What the state tests share: saving the loaded state's screenshot (and, with
TOPOGPU_UPDATE_DOCS=1, copying it to the documentation image)."""
import os
import shutil

from paraview.simple import GetActiveView, GetRenderViews, SaveScreenshot


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
