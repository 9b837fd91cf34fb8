#!/usr/bin/env python3
"""Smoke test of bench_rips.py (ctest bench.rips_smoke, a few seconds): the benchmark on
two small sets capped at dimension 1 (Debian's ripser when installed, our CPU on 1 and all
threads; the GPU probed and skipped with a note when it does not run), its reports
written with every run of ours equal to ripser's and Ripser++'s expected barcodes; the
barcode comparison catching a changed, a missing and an extra bar; the targets' verdicts
on made-up rows.

Usage: test_bench_rips.py TOPOGPU SHARED_DATA_DIR
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from bench_rips import barcode_difference, evaluate_targets  # noqa: E402

topogpu, data = sys.argv[1], sys.argv[2]
rips = os.path.join(data, "rips")
if not os.path.isdir(rips):
    print("SKIP: no", rips)
    sys.exit(77)
work = tempfile.mkdtemp(prefix="bench_rips_smoke_")
try:
    run = subprocess.run([sys.executable, os.path.join(here, "bench_rips.py"), "--topogpu",
                          topogpu, "--rips", rips, "--out", work, "--only",
                          "sphere_3_192,celegans", "--dim-cap", "1", "--timeout", "60"],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.load(open(os.path.join(work, "bench_rips.json")))
    assert os.path.getsize(os.path.join(work, "bench_rips.md")) > 500
    assert [r["name"] for r in result["rows"]] == ["celegans", "sphere_3_192"]
    for row in result["rows"]:
        assert row["dim_capped"] and row["dim"] == 1
        for key in ("cpu1", "cpu"):
            r = row["runs"][key]
            assert r["backend"] == "cpu" and r["equal_ripserpp"] is True, (key, r)
            if "ripser" in row["runs"]:
                assert r["equal_ripser"] is True
            assert r["apparent_percent"][1] > 90, r["apparent_percent"]
    assert "gpu" in row["runs"] or any("GPU skipped" in n for n in result["notes"])
    assert all(t["met"] is None for t in result["targets"]), "capped sets evaluated"
finally:
    shutil.rmtree(work, ignore_errors=True)

bars = {0: [(0.0, 1.0), (0.0, math.inf)], 1: [(0.5, 0.7), (0.5, 0.8)]}
assert barcode_difference(bars, bars) == ""
assert barcode_difference(bars, {0: bars[0], 1: [(0.5, 0.7), (0.5, 0.81)]})
assert barcode_difference(bars, {0: bars[0], 1: [(0.5, 0.7)]})
assert barcode_difference(bars, {0: bars[0] + [(0.0, 2.0)], 1: bars[1]})
assert barcode_difference(bars, {0: bars[0], 1: [(0.5, 0.8), (0.5, 0.7 + 1e-7)]}) == ""

rows = [{"name": "celegans", "dim_capped": False, "runs": {
    "gpu": {"backend": "gpu", "wall_seconds": 2.0, "peak_host_memory_mib": 1200,
            "peak_device_memory_mib": 10},
    "cpu1": {"backend": "cpu", "wall_seconds": 100.0, "peak_host_memory_mib": 80},
    "cpu": {"backend": "cpu", "wall_seconds": 9.0, "peak_host_memory_mib": 80}}}]
verdicts = {t["target"].split(" (")[0]: t["met"] for t in evaluate_targets(rows, 16)}
assert verdicts["celegans: GPU <= 2.2 s"] is True
assert verdicts["celegans: GPU-run host memory < 1 GB"] is False
assert verdicts["celegans: CPU, 1 thread, <= 1.2x upstream Ripser's 75.7 s"] is False
assert verdicts["celegans: CPU, 16 threads, <= 1.5x giotto-ph's 6.5 s"] is True
assert verdicts["Vicsek300: GPU <= 2.2 s"] is None
few = {t["target"].split(" (")[0]: t["met"] for t in evaluate_targets(rows, 2)}
assert few["celegans: CPU, 16 threads, <= 1.5x giotto-ph's 6.5 s"] is None, "2 cores != 16"
assert few["celegans: CPU, 1 thread, <= 1.2x upstream Ripser's 75.7 s"] is None, "not the host"
assert few["celegans: GPU <= 2.2 s"] is True
print("bench_rips smoke: OK")
