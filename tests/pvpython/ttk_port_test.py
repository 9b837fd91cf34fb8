"""docs/filters/ttk-porting.md is usable: its tables, read here, port a pvpython script
written as a TTK 1.2 user writes one (TTK's filter and property names) to TopoGPU, line by
line: filters renamed, properties renamed, the ones without a counterpart dropped; a
property the tables do not know fails the test. The ported script runs on a small grid and
its outputs carry the arrays the page's port table lists, on the ports it names (TTK's),
with counts that agree across the suite: the Morse-Smale complex and the discrete
gradient have the same critical cells (Euler's relation on a box), their minima are the
Critical Points filter's, and the gradient glyphs pair every other simplex.

Usage: pvpython ttk_port_test.py PLUGIN DATA_DIR CASE
"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                    "filters", "ttk-porting.md")

# As a TTK user writes it (names from TTK 1.2's pvpython proxies).
TTK_SCRIPT = """
field = Wavelet(WholeExtent=[-8, 8, -8, 8, -6, 6])
cp = TTKScalarFieldCriticalPoints(Input=field)
cp.ScalarField = ['POINTS', 'RTData']
cp.Withboundarymask = 1
cp.Withvertexidentifiers = 1
cp.Withvertexscalars = 1
gradient = TTKDiscreteGradient(registrationName='gradient', Input=field)
gradient.ScalarField = ['POINTS', 'RTData']
gradient.ForceInputOffsetField = 0
gradient.ComputeGradientGlyphs = 1
msc = TTKMorseSmaleComplex(Input=field)
msc.ScalarField = ['POINTS', 'RTData']
msc.CriticalPoints = 1
msc.Ascending1Separatrices = 1
msc.Descending1Separatrices = 1
msc.SaddleConnectors = 1
msc.Ascending2Separatrices = 0
msc.Descending2Separatrices = 0
msc.AscendingSegmentation = 1
msc.DescendingSegmentation = 1
msc.MorseSmaleComplexSegmentation = 1
msc.ReturnSaddleConnectors = 0
msc.UpdatePipeline()
diagram = TTKPersistenceDiagram(Input=field)
diagram.ScalarField = ['POINTS', 'RTData']
diagram.ForceInputOffsetField = 0
diagram.UpdatePipeline()
"""

CODE = re.compile(r"^`([^`]+)`$")


def table_rows(lines):
    """The cells of a markdown table's body rows, stripped."""
    rows = []
    for line in lines:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue  # the separator
        rows.append(cells)
    return rows[1:]  # without the header


def read_page():
    """(filters: TTK name -> ours, properties: TTK filter -> {TTK property: ours or None},
    ports: (our filter, port) -> TTK's array names)."""
    text = open(PAGE).read()
    sections = re.split(r"^(#+ .*)$", text, flags=re.M)
    filters, properties, ports = {}, {}, {}
    for title, body in zip(sections[1::2], sections[2::2]):
        lines = body.splitlines()
        if title == "## Filters":
            for row in table_rows(lines):
                filters[CODE.match(row[0]).group(1)] = CODE.match(row[1]).group(1)
        elif title.startswith("### TTK"):
            renames = properties.setdefault(title[4:].strip(), {})
            for row in table_rows(lines):
                ours = CODE.match(row[1])
                renames[CODE.match(row[0]).group(1)] = ours.group(1) if ours else None
                assert ours or row[1] == "—", "not a property nor a dash: %r" % row
        elif title == "## Output ports and arrays":
            for row in table_rows(lines):
                names = re.findall(r"`([^`]+)`", row[2])
                ports[(row[0], int(row[1].split()[0]))] = names
    assert filters and properties and ports, "tables not found in %s" % PAGE
    return filters, properties, ports


def port_script(script, filters, properties):
    """The script with TopoGPU's names; lines without a counterpart become comments."""
    kinds, out = {}, []
    for line in script.strip().splitlines():
        made = re.match(r"^(\w+) = (TTK\w+)\((.*)$", line)
        setting = re.match(r"^(\w+)\.(\w+) = (.*)$", line)
        if made:
            assert made.group(2) in filters, "filter %s not in the page" % made.group(2)
            kinds[made.group(1)] = made.group(2)
            line = "%s = %s(%s" % (made.group(1), filters[made.group(2)], made.group(3))
        elif setting and setting.group(1) in kinds:
            renames = properties[kinds[setting.group(1)]]
            name = setting.group(2)
            assert name in renames, "%s.%s not in the page" % (kinds[setting.group(1)], name)
            if renames[name] is None:
                line = "# %s: no counterpart" % line
            else:
                line = "%s.%s = %s" % (setting.group(1), renames[name], setting.group(3))
        out.append(line)
    ported = "\n".join(out)
    assert "TTK" not in re.sub(r"#.*", "", ported), ported
    return ported


def arrays(data):
    names = set()
    for attributes in (data.GetPointData(), data.GetCellData()):
        names |= {attributes.GetArrayName(i) for i in range(attributes.GetNumberOfArrays())}
    return names


def case_msc():
    filters, properties, ports = read_page()
    ported = port_script(TTK_SCRIPT, filters, properties)
    # the one line the page says to add for TTK's whole complex
    assert "adds `msc.PersistenceThreshold = 0`" in open(PAGE).read().replace("\n", " ")
    ported = ported.replace("msc.UpdatePipeline()",
                            "msc.PersistenceThreshold = 0\nmsc.UpdatePipeline()", 1)
    print(ported)
    scope = dict(globals())
    exec(ported, scope)
    msc, gradient, cp, diagram = scope["msc"], scope["gradient"], scope["cp"], scope["diagram"]

    # the outputs carry the page's TTK arrays, on the ports it names
    fetched = {}
    for (label, port), names in ports.items():
        proxy = {"Critical points": cp, "Discrete gradient": gradient,
                 "Morse-Smale complex": msc, "Persistence diagram": diagram}[label]
        proxy.UpdatePipeline()
        data = servermanager.Fetch(proxy, idx=port)
        fetched[(label, port)] = data
        if data.GetNumberOfPoints() == 0:
            assert port == 2, "%s port %d is empty" % (label, port)
            continue  # the 2-separatrices: off, as in the script
        missing = [n for n in names if n not in arrays(data)]
        assert not missing, "%s port %d lacks %s" % (label, port, missing)
    # counts across the suite
    msc_counts = list(dsa.WrapDataObject(fetched[("Morse-Smale complex", 0)]).FieldData[
        "CriticalCellCounts"])
    gradient_out = dsa.WrapDataObject(fetched[("Discrete gradient", 0)])
    gradient_counts = list(gradient_out.FieldData["CriticalCellCounts"])
    assert msc_counts == gradient_counts, (msc_counts, gradient_counts)
    assert msc_counts[0] - msc_counts[1] + msc_counts[2] - msc_counts[3] == 1, msc_counts
    # the diagram pairs the complex's critical cells: each in one pair, an essential
    # class's alone
    pd_out = dsa.WrapDataObject(fetched[("Persistence diagram", 0)])
    assert list(pd_out.FieldData["CriticalCellCounts"]) == msc_counts, msc_counts
    finite = np.asarray(pd_out.CellData["IsFinite"])[:-1]
    assert 2 * finite.sum() + (finite == 0).sum() == sum(msc_counts), (finite, msc_counts)
    types = np.asarray(dsa.WrapDataObject(fetched[("Critical points", 0)]).PointData[
        "CriticalType"])
    pl_minima = sorted(np.asarray(dsa.WrapDataObject(fetched[("Critical points", 0)]).PointData[
        "ttkVertexScalarField"])[types == 0].tolist())
    dims = np.asarray(gradient_out.PointData["CellDimension"])
    dmt_minima = sorted(np.asarray(gradient_out.PointData["ttkVertexScalarField"])[
        dims == 0].tolist())
    assert pl_minima == dmt_minima and len(pl_minima) == msc_counts[0], (pl_minima,
                                                                         dmt_minima)
    # the glyphs pair every simplex that is not critical: (cells - critical) / 2 lines,
    # the cells of the 17x17x13 grid's 6 tets per voxel counted here
    n = (17, 17, 13)
    voxels = (n[0] - 1) * (n[1] - 1) * (n[2] - 1)
    squares = sum((n[a] - 1) * (n[b] - 1) * n[c] for a, b, c in ((0, 1, 2), (0, 2, 1),
                                                                  (1, 2, 0)))
    axis = sum((n[a] - 1) * n[b] * n[c] for a, b, c in ((0, 1, 2), (1, 0, 2), (2, 0, 1)))
    cells = n[0] * n[1] * n[2] + axis + squares + voxels + 2 * squares + 6 * voxels + \
        6 * voxels
    lines = fetched[("Discrete gradient", 1)].GetNumberOfCells()
    assert lines == (cells - sum(gradient_counts)) // 2, (lines, cells, gradient_counts)
    print("ported and run: critical cells %s (minima as the Critical Points filter's), "
          "%d gradient glyphs, every TTK array of the page's port table present"
          % (msc_counts, lines))


pv_helpers.run_case(globals(), CASE)
