#!/usr/bin/env python3
"""Smoke test of bench_gale.py (ctest bench.gale_smoke, about 10 s): the benchmark on
fuel (13,731 vertices, 68,058 tets once the zero voxels are dropped) with every algorithm
and backend; Morse theory on the msc rows (the critical cells' alternating sum is the
mesh's Euler characteristic; one descending manifold per minimum), the gradient's critical
cells equal to the complex's; --merge-from keeping the rows a second run did not measure;
the agreement check, the targets (none for msc) and the figure-10 split on made-up rows;
the plots (when matplotlib imports) and the page's GALE section from a JSON without msc
rows, as the GPU host's first one.

Usage: test_bench_gale.py TOPOGPU SHARED_DATA_DIR (exit 77: no fuel volume)
"""
import copy
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from bench_gale import (disagreements, evaluate, table_lines, wait_parts,  # noqa: E402
                        write_plots)

topogpu, shared = sys.argv[1], sys.argv[2]
volumes = os.path.join(shared, "volumes")
if not os.path.exists(os.path.join(volumes, "fuel_64x64x64_uint8.raw")):
    print("skipped: no fuel_64x64x64_uint8.raw in", volumes)
    sys.exit(77)
have_matplotlib = importlib.util.find_spec("matplotlib") is not None
work = tempfile.mkdtemp(prefix="bench_gale_smoke_")
bench = [sys.executable, os.path.join(here, "bench_gale.py"), "--topogpu", topogpu,
         "--volumes", volumes, "--cases", "fuel", "--out", work, "--timeout", "120"]


def run(extra):
    r = subprocess.run(bench + extra, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.load(open(os.path.join(work, extra[extra.index("--name") + 1] + ".json")))


# 1. Every algorithm and backend on fuel: all agree (else exit 1 above), Morse theory holds.
first = run(["--name", "first"])
rows = {(r["algorithm"], r["backend"]): r for r in first["rows"]}
assert len(rows) == 9 == len(first["rows"]), sorted(rows)
for backend in ("explicit", "gale-cpu", "gale-gpu"):
    msc = rows["msc", backend]["result"]
    n, c = msc["simplices"], msc["critical_cells"]
    assert n[3] == 68058 and n[0] == 13731, n
    assert c[0] - c[1] + c[2] - c[3] == n[0] - n[1] + n[2] - n[3], (c, n)
    # TTK's meaning: the descending manifolds are the minima's
    assert msc["segmentation"]["descending"] == c[0], msc["segmentation"]
    assert msc["segmentation"]["morse_smale"] >= max(c[0], msc["segmentation"]["ascending"])
    # TTK 1.2's segmentation rule: a path leaving through the boundary leaves its cells
    # out of AscendingManifold (-1); every vertex has a minimum and a Morse-Smale id
    u = msc["unlabelled_vertices"]
    assert u["descending"] == 0 and u["morse_smale"] == 0 and 0 <= u["ascending"] < n[0], msc
    assert rows["discrete-gradient", backend]["result"] == c
    if backend != "explicit":
        g = rows["msc", backend]["gale"]
        assert g["segments"] >= 1 and g["segments_computed"] >= 1, g
assert not first["failures"], first["failures"]
assert all("msc" not in t["target"] for t in first["targets"]) and len(first["targets"]) == 6
md = open(os.path.join(work, "first.md")).read()
assert "| fuel | msc | gale-cpu (cpu) |" in md and "seg. " in md, md

# 2. --merge-from: explicit msc measured again, the other 8 rows kept and marked.
merged = run(["--name", "second", "--algorithms", "msc", "--backends", "explicit",
              "--merge-from", os.path.join(work, "first.json")])
assert len(merged["rows"]) == 9, len(merged["rows"])
fresh = [r for r in merged["rows"] if not r.get("merged_from")]
assert [(r["algorithm"], r["backend"]) for r in fresh] == [("msc", "explicit")], fresh
assert [(r["algorithm"], r["backend"]) for r in merged["rows"]][:3] == [
    ("critical-points", "explicit"), ("critical-points", "gale-cpu"),
    ("critical-points", "gale-gpu")]
assert not merged["failures"] and any("8 rows kept" in n for n in merged["notes"])

# 3. Made-up rows: a changed segmentation is a disagreement; the split; the targets.
fake = copy.deepcopy(first)
assert disagreements(fake["rows"]) == []
changed = next(r for r in fake["rows"] if r["algorithm"] == "msc" and r["backend"] == "gale-gpu")
changed["result"]["segmentation"]["morse_smale"] += 1
(message,) = disagreements(fake["rows"])
assert message.startswith("fuel msc: the backends disagree"), message
gale = {"producer": "gpu", "queue_seconds": 0.5, "producer_seconds": 4.0,
        "kernel_seconds": 2.0, "integrate_seconds": 1.0, "consumer_compute_seconds": 3.0}
assert wait_parts({"gale": gale}) == [0.5, 1.0, 2.0, 1.0, 3.0]
assert wait_parts({"gale": None}) == [0.0] * 5


def made_up(backend, seconds, peak, producer=None):
    return {"case": "x", "algorithm": "critical-points", "backend": backend,
            "algorithm_seconds": seconds, "initialization_seconds": 0.0,
            "producer": producer, "peak_host_memory_mib": peak, "result": {}}


verdicts = [t["met"] for t in evaluate({"algorithms": ["critical-points", "msc"], "cases": ["x"],
                                         "rows": [made_up("explicit", 3.0, 100),
                                                  made_up("gale-cpu", 2.0, 50, "cpu"),
                                                  made_up("gale-gpu", 1.0, 70, "gpu")]})]
assert verdicts == [True, False, True], verdicts  # 3x; 0.7x memory; 2x GALE-CPU

# 4. An older JSON without msc rows (the GPU host's first run): table, plots, the page.
old = copy.deepcopy(first)
old["rows"] = [r for r in old["rows"] if r["algorithm"] != "msc"]
old["algorithms"] = ["critical-points", "discrete-gradient"]
for r in old["rows"]:
    r.pop("merged_from", None)
assert not any("| msc |" in line for line in table_lines(old))
plots = write_plots(old, work, "old")
if have_matplotlib:
    assert plots == ["old_wait.svg", "old_time_memory.svg"], plots
    for name in plots:
        svg = ElementTree.parse(os.path.join(work, name)).getroot()
        text = " ".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
        assert "fuel" in text and "msc" not in text.replace("(wall)", ""), text
    assert "(first_wait.svg)" in md and os.path.exists(os.path.join(work, "first_wait.svg"))
else:
    assert plots == [] and any("no plots" in n for n in first["notes"])
page = os.path.join(work, "page", "benchmarks.md")
os.makedirs(os.path.dirname(page))
r = subprocess.run([sys.executable, os.path.join(here, "write_benchmarks_doc.py"),
                    os.path.join(here, "..", "..", "docs", "bench-results",
                                 "critical_points_h200.json"), page],
                   capture_output=True, text=True)
assert r.returncode == 0, r.stdout + r.stderr
text = open(page).read()
assert "## GALE vs the explicit backend" in text, text[-3000:]
shutil.rmtree(work)
print("bench_gale smoke test passed")
