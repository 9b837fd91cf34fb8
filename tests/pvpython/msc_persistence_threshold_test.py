"""pvpython checks of the Morse-Smale Complex filter's PersistenceThreshold.

The oracle is the CLI (`topogpu msc --persistence-threshold T --details`, a separate front
end, itself checked against GUDHI and a union-find written in
tests/cli/test_msc_persistence_threshold.py): at each slider position the filter's
critical-cell counts and its DescendingManifold, AscendingManifold and MorseSmaleManifold
arrays must equal the CLI's at that threshold; moving the slider must not compute the
complex again (ComplexComputations stays 1) and must be fast; the automatic default
keeps at most 20 minima and 20 maxima and says the threshold used.

Usage: pvpython msc_persistence_threshold_test.py PLUGIN DATA_DIR CASE  (TOPOGPU_CLI)
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
CLI = os.environ.get("TOPOGPU_CLI", "")


def cli_answer(values, dims, threshold, tmp):
    """The CLI's details of the complex at threshold ("auto" for the default)."""
    raw = os.path.join(tmp, "field.raw")
    np.asarray(values, dtype=np.float32).tofile(raw)
    details = os.path.join(tmp, "details.json")
    out = subprocess.run([CLI, "msc", "--raw", raw, "--dims", ",".join(map(str, dims)),
                          "--type", "float32", "--backend", "cpu", "--json", "--details",
                          details, "--persistence-threshold", str(threshold)],
                         capture_output=True, text=True, check=True)
    with open(details) as f:
        return json.loads(out.stdout)["simplified"][0], json.load(f)


def state(msc):
    msc.UpdatePipeline()
    msc.UpdatePropertyInformation()
    seg = dsa.WrapDataObject(servermanager.Fetch(msc, idx=3))
    fd = servermanager.Fetch(msc, idx=0).GetFieldData()
    counts = [int(fd.GetArray("CriticalCellCounts").GetValue(k)) for k in range(4)]
    used = fd.GetArray("PersistenceThreshold").GetValue(0)
    return seg, counts, used


def compare(label, msc, values, dims, threshold, tmp):
    seg, counts, used = state(msc)
    summary, details = cli_answer(values, dims, "auto" if threshold < 0 else threshold, tmp)
    # the JSON writes 9 significant digits
    assert math.isclose(used, summary["persistence_threshold"], rel_tol=1e-8), \
        "%s: threshold used %r, CLI's %r" % (label, used, summary["persistence_threshold"])
    assert counts == summary["critical_cells"], \
        "%s: counts %s, CLI's %s" % (label, counts, summary["critical_cells"])
    for name in ("DescendingManifold", "AscendingManifold", "MorseSmaleManifold"):
        ours = np.asarray(seg.PointData[name])
        assert np.array_equal(ours, np.asarray(details[name])), "%s: %s differs" % (label, name)
    return counts, used


def case_slider():
    """The automatic default, then slider moves: the CLI's answers, no recomputation."""
    rng = np.random.default_rng(7)
    dims = (24, 22, 20)
    values = rng.random(dims[::-1]).astype(np.float32).ravel()
    source, _ = pv_helpers.image_source(dims, values)
    msc = TopoGPUMorseSmaleComplex(Input=source)
    with tempfile.TemporaryDirectory() as tmp:
        counts, used = compare("automatic", msc, values, dims, -1, tmp)
        assert counts[0] <= 20 and counts[3] <= 20 and used > 0, (counts, used)
        msc.UpdatePropertyInformation()
        assert msc.GetPropertyValue("ComplexComputations") == 1
        top = msc.GetPropertyValue("PersistenceRange")[1]
        assert top > used, (top, used)
        assert math.isclose(msc.GetPropertyValue("PersistenceThresholdUsed"), used)
        seconds = []
        for T in (0.05, 0.2, 0.0, 0.4, 1.5 * top, 0.1):
            msc.PersistenceThreshold = T
            start = time.perf_counter()
            msc.UpdatePipeline()
            seconds.append(time.perf_counter() - start)
            counts, _ = compare("T=%g" % T, msc, values, dims, T, tmp)
            msc.UpdatePropertyInformation()
            assert msc.GetPropertyValue("ComplexComputations") == 1, "recomputed at %g" % T
        print("slider moves on %d vertices: %s s" % (values.size,
                                                     ["%.3f" % s for s in seconds]))
        # the generous bound of a shared 2-core machine (an answer is a relabelling)
        assert max(seconds) < 5.0, seconds
        # a new field is a new complex
        source.GetClientSideObject().GetOutputDataObject(0).GetPointData().GetArray("s").Modified()
        source.MarkModified(source)
        msc.UpdatePipeline()
        msc.UpdatePropertyInformation()
        assert msc.GetPropertyValue("ComplexComputations") == 2


def case_bad_threshold():
    """A negative threshold other than -1, or NaN: an error naming it, empty outputs."""
    rng = np.random.default_rng(3)
    source, _ = pv_helpers.image_source((8, 7, 6), rng.random(336))
    for bad in (-0.5, float("nan")):
        msc = TopoGPUMorseSmaleComplex(Input=source, PersistenceThreshold=bad)
        messages = pv_helpers.Messages(msc)
        msc.UpdatePipeline()
        out = [servermanager.Fetch(msc, idx=p) for p in range(4)]
        assert all(o.GetNumberOfPoints() == 0 for o in out), "outputs not empty"
        text = " ".join(messages.errors)
        assert "PersistenceThreshold" in text, text
        Delete(msc)


def case_documentation():
    rng = np.random.default_rng(3)
    source, _ = pv_helpers.image_source((5, 5, 5), rng.random(125))
    msc = TopoGPUMorseSmaleComplex(Input=source)
    names = pv_helpers.documented_properties(msc)
    for name in ("PersistenceThreshold", "PersistenceRange", "PersistenceThresholdUsed",
                 "ComplexComputations"):
        assert name in names, name


pv_helpers.run_case(globals(), CASE)
