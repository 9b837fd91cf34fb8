#!/usr/bin/env python3
"""Smoke test of bench_geodesic.py (ctest bench.geodesic_smoke, ~20 s on the CPU): the
benchmark on one small icosphere with its end-to-end section (the CLI's process wall time
and stages for fim-mt, gpu and auto; bench_geodesic_update's first and seed-change
updates), its reports written and the targets listed (not measured without a GPU run).

Usage: test_bench_geodesic.py TOPOGPU BENCH_GEODESIC_UPDATE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
topogpu, update = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="bench_geodesic_smoke_")
try:
    run = subprocess.run([sys.executable, os.path.join(here, "bench_geodesic.py"),
                          "--topogpu", topogpu, "--update", update, "--out", work,
                          "--square", "0", "--irregular", "0", "--icospheres", "40",
                          "--speeds", "constant", "--solvers", "fim-mt,gpu,auto,fmm",
                          "--runs", "2", "--e2e-vertices", "10000", "--timeout", "60"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    result = json.load(open(os.path.join(work, "bench_geodesic.json")))
    rows = {r["solver"]: r for r in result["rows"] if r.get("status") == "ok"}
    assert set(rows) == {"fim-mt", "gpu", "auto", "fmm"}, rows.keys()
    for solver in ("fim-mt", "gpu", "auto"):
        r = rows[solver]
        # The process's wall time holds the command's stages, reading and writing.
        assert len(r["process_seconds_runs"]) == 2, r
        assert r["process_seconds"] >= r["wall_seconds"] > 0, r
        assert {"read", "precondition", "mesh setup", "write"} <= set(r["timings"]), r
        assert r["wall_seconds"] >= sum(r["timings"].values()) * 0.99, r
    (updates,) = result["updates"]
    assert updates["vertices"] == 10 * 40 ** 2 + 2
    for solver in ("fim-mt", "gpu", "auto"):
        first, again = updates["update"][solver]["first"], updates["update"][solver][
            "seed_change"]
        assert "mesh setup" in first["timings"] and "triangulation" in first["timings"]
        assert "mesh setup (cached)" in again["timings"], again
        assert 0 < again["seconds"] and 0 < first["seconds"]
    names = [t["target"] for t in result["targets"]]
    assert any(n.startswith("CLI gpu >= 2x") for n in names), names
    assert any(n.startswith("filter update (seed change)") for n in names), names
    markdown = open(os.path.join(work, "bench_geodesic.md")).read()
    assert "### End to end" in markdown and "bench_geodesic_update" in markdown
    print("bench_geodesic.py smoke: end-to-end rows, updates and targets written")
finally:
    shutil.rmtree(work, ignore_errors=True)
