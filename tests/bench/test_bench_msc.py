#!/usr/bin/env python3
"""Smoke test of bench_msc.py (ctest bench.msc_smoke, a few seconds): the smooth synthetic
field against its formula evaluated point by point, the CPU-only benchmark on a 32^3
field (Euler on its critical cells, everything labelled, both reports written), the
agreement check and the targets' verdicts on made-up rows, and a GPU request: on a machine
without a usable GPU the fallback must be reported as a failure (exit 1).

Usage: test_bench_msc.py TOPOGPU
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from bench_helpers import smooth_input, smooth_terms  # noqa: E402
from bench_msc import evaluate_targets, mismatches  # noqa: E402

topogpu = sys.argv[1]
work = tempfile.mkdtemp(prefix="bench_msc_smoke_")


def formula(terms, p):
    """The field at p in [0,1]^3, written from the definition (no separation)."""
    value = 0.0
    for kind, amplitude, a, b in terms:
        if kind == "gauss":
            value += amplitude * math.exp(-sum((p[i] - a[i]) ** 2 for i in range(3)) / (2 * b * b))
        else:
            value += amplitude * math.prod(math.sin(2 * math.pi * a[i] * p[i] + b[i])
                                           for i in range(3))
    return value


# 1. The written field, by small slabs and two workers, is the formula at the grid points.
n = 24
_, path, dims, dtype = smooth_input(work, n, seed=3, slab_bytes=8 * n * n * 5, workers=2)
field = np.fromfile(path, dtype=np.float32).reshape(n, n, n)  # z, y, x
terms = smooth_terms(3)
rng = np.random.default_rng(0)
for i, j, k in rng.integers(0, n, (300, 3)):
    expected = formula(terms, (i / (n - 1), j / (n - 1), k / (n - 1)))
    assert abs(field[k, j, i] - expected) <= 1e-6 * max(1.0, abs(expected)), (i, j, k)
assert np.ptp(field) > 0.5, "the field is nearly constant"
os.remove(path)

# 2. CPU only on a 32^3 field: both reports, Euler on a box, every vertex labelled.
out = os.path.join(work, "cpu")
bench = [sys.executable, os.path.join(here, "bench_msc.py"), "--topogpu", topogpu,
         "--synthetic", "32", "--repeat", "1"]
r = subprocess.run(bench + ["--backends", "cpu", "--out", out], capture_output=True, text=True)
assert r.returncode == 0, r.stdout + r.stderr
result = json.load(open(os.path.join(out, "bench_msc.json")))
(row,) = result["rows"]
run = row["runs"]["cpu"]
n0, n1, n2, n3 = run["critical_cells"]
assert n0 - n1 + n2 - n3 == 1, run["critical_cells"]
assert n0 + n1 + n2 + n3 > 20, "a smooth field of a few dozen bumps has more critical cells"
assert run["unlabelled_vertices"] == {"ascending": 0, "descending": 0}
assert run["arcs"]["saddle1_minimum_multiplicity_sum"] == 2 * n1
assert abs(sum(run["stages"].values()) - sum(run["timings_last_run"].values())) < 1e-9
assert row["agree"] is None and not result["failures"]
md = open(os.path.join(out, "bench_msc.md")).read()
assert md.count("reference (quoted, not rerun)") == 2 and "smooth 32^3" in md, md
assert "| engine: GPU end to end <= 0.5 s | not measured | not measured |" in md, md

# 3. The agreement check sees a changed multiplicity sum or unlabelled count.
a = {"critical_cells": [1, 2, 3, 1], "arcs": {"saddle1_saddle2": 5,
                                              "saddle1_saddle2_multiplicity_sum": 7},
     "boundary_maxima": 0, "unlabelled_vertices": {"ascending": 0, "descending": 0},
     "unlabelled_voxels": 0}
b = json.loads(json.dumps(a))
assert mismatches(a, b) == []
b["arcs"]["saddle1_saddle2_multiplicity_sum"] = 8
b["unlabelled_vertices"]["descending"] = 1
assert len(mismatches(a, b)) == 2, mismatches(a, b)


# The verdicts follow the numbers.
def fake(name, dims, cpu_s, gpu_s, host):
    runs = {side: {"backend": side, "best_seconds": s, "peak_host_memory_mib": host,
                   "peak_device_memory_mib": 1000} for side, s in (("cpu", cpu_s), ("gpu", gpu_s))}
    return {"name": name, "dims": dims, "vertices": math.prod(dims), "synthetic": False,
            "runs": runs}


def verdicts(rows):
    return {t["target"].split(" (")[0]: t["met"] for t in evaluate_targets(rows)}


fast = verdicts([fake("engine", [256, 256, 128], 5.0, 0.2, 1000)])
slow = verdicts([fake("engine", [256, 256, 128], 13.0, 0.9, 3000)])
assert fast["engine: GPU end to end <= 0.5 s"] is True
assert slow["engine: GPU end to end <= 0.5 s"] is False
assert fast["GPU >= 20x our CPU"] is True and slow["GPU >= 20x our CPU"] is False
assert fast["engine: our CPU faster than TTK 1.2's 12.2 s"] is True
assert slow["engine: our CPU faster than TTK 1.2's 12.2 s"] is False
assert fast["aneurism: GPU end to end <= 0.25 s"] is None

# 4. A GPU request: a fallback to the CPU is a failure; a real GPU run must agree.
out = os.path.join(work, "gpu")
r = subprocess.run(bench + ["--out", out], capture_output=True, text=True)
result = json.load(open(os.path.join(out, "bench_msc.json")))
gpu = result["rows"][0]["runs"]["gpu"]
if gpu.get("backend") == "gpu":
    assert r.returncode == 0 and result["rows"][0]["agree"] is True, r.stdout + r.stderr
else:
    assert r.returncode == 1 and any("fell back" in f for f in result["failures"]), r.stdout
shutil.rmtree(work)
print("bench_msc smoke test passed")
