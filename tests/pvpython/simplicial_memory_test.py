"""pvpython checks of the MemoryBudget property of the Morse-Smale Complex and Discrete
Gradient filters (the simplicial complex's host-memory estimate, checked before the run):
a budget far below any run of the input (0.01 MiB: the field alone takes more) is refused
with an error naming the estimate and the budget, every output port empty and no crash,
and the same filter runs again once the budget is lifted, with the output of a filter
that never had one (0: the available memory); a negative budget is an error naming the
property; the property is documented in the panel and on the filters' pages.

Usage: pvpython simplicial_memory_test.py PLUGIN DATA_DIR CASE
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "filters")


def outputs(proxy, ports):
    proxy.UpdatePipeline()
    return [dsa.WrapDataObject(servermanager.Fetch(proxy, idx=p)) for p in range(ports)]


def summary(outs):
    """What the ports hold: point and cell counts and every point array."""
    return [(o.VTKObject.GetNumberOfPoints(), o.VTKObject.GetNumberOfCells(),
             {n: np.asarray(o.PointData[n]).tolist() for n in o.PointData.keys()})
            for o in outs]


def sources():
    """A random image (the implicit grid) and the same field on its tets (a mesh)."""
    rng = np.random.default_rng(5)
    dims = (12, 10, 8)
    source, _ = pv_helpers.image_source(dims, rng.uniform(0, 1, int(np.prod(dims))))
    return {"image": source, "tets": Tetrahedralize(Input=source)}  # noqa: F405


def budget_checks(make, ports, what):
    for name, source in sources().items():
        reference = summary(outputs(make(source), ports))
        assert reference[0][0] > 0, f"{name}: no critical points without a budget"
        proxy = make(source)
        proxy.MemoryBudget = 0.01
        messages = pv_helpers.Messages(proxy)
        outs = outputs(proxy, ports)
        text = " ".join(messages.errors)
        assert what in text and "more than the memory budget of 10.2 KiB" in text \
            and "would need about" in text, f"{name}: the error: {text!r}"
        assert all(o.VTKObject.GetNumberOfPoints() == 0 and o.VTKObject.GetNumberOfCells() == 0
                   for o in outs), f"{name}: outputs not empty after the refusal"
        print(f"{name}: {text.strip().splitlines()[-1]}")
        # the same filter, the budget lifted: the run of a filter that never had one
        proxy.MemoryBudget = 64.0
        messages = pv_helpers.Messages(proxy)
        assert summary(outputs(proxy, ports)) == reference, f"{name}: 64 MiB differs"
        assert not messages.errors, messages.errors
        proxy.MemoryBudget = -5.0
        messages = pv_helpers.Messages(proxy)
        outputs(proxy, ports)
        text = " ".join(messages.errors)
        assert "Memory Budget must be >= 0 MiB" in text, f"{name}: negative budget: {text!r}"


def case_msc_budget():
    budget_checks(lambda s: TopoGPUMorseSmaleComplex(Input=s, Complex="Simplicial"),  # noqa: F405
                  4, "simplicial Morse-Smale complex")


def case_gradient_budget():
    budget_checks(lambda s: TopoGPUDiscreteGradient(Input=s, Complex="Simplicial"),  # noqa: F405
                  2, "simplicial discrete gradient")


def case_documentation():
    for make, page in ((TopoGPUMorseSmaleComplex, "morse-smale-complex.md"),  # noqa: F405
                       (TopoGPUDiscreteGradient, "discrete-gradient.md")):  # noqa: F405
        names = pv_helpers.documented_properties(make(Input=Wavelet()))  # noqa: F405
        assert "MemoryBudget" in names, names
        assert "MemoryBudget" in open(os.path.join(DOCS, page)).read(), page


pv_helpers.run_case(globals(), CASE)
