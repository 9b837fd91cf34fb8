"""`topogpu critical-points --triangulation explicit|gale-cpu|gale-gpu`: the same counts
and warnings with each on every shared tet mesh, a shared surface and a raw grid (stored
as tets), GALE's statistics in the JSON, small and default segments, and bad input.

Usage: python3 test_gale.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import tempfile

import cli_helpers
from cli_helpers import check, expect_error, np, topogpu

TOPOGPU, DATA = cli_helpers.arguments()

GPU_FALLBACK = "GALE: no GPU producer"


def run(args):
    result = topogpu("critical-points", *args, "--json", timeout=120)
    if result.returncode != 0:
        return None, result.stderr.strip()
    return json.loads(result.stdout), None


def compare(label, args):
    reference, error = run(args + ["--triangulation", "explicit"])
    for kind in ("gale-cpu", "gale-gpu"):
        for extra in ([], ["--segment-size", "8", "--cache-segments", "2",
                           "--segments-per-request", "1"]):
            got, got_error = run(args + ["--triangulation", kind] + extra)
            what = f"{label} {kind} {' '.join(extra)}"
            if reference is None:
                check(got is None and got_error == error,
                      f"{what}: explicit fails with {error!r}, GALE gives {got_error!r}")
                continue
            if got is None:
                check(False, f"{what}: {got_error}")
                continue
            check(got["counts"] == reference["counts"],
                  f"{what}: counts {got['counts']} != explicit {reference['counts']}")
            warnings = [w for w in got.get("warnings", []) if not w.startswith(GPU_FALLBACK)]
            check(warnings == reference.get("warnings", []),
                  f"{what}: warnings {warnings} != {reference.get('warnings', [])}")
            gale = got.get("gale", {})
            check(got["triangulation"] == kind and gale.get("segments", 0) >= 1
                  and gale.get("initialization_seconds", -1) >= 0
                  and gale.get("consumer_wait_seconds", -1) >= 0
                  and gale.get("segments_computed", 0) >= 1, f"{what}: gale {gale}")
            fallback = any(w.startswith(GPU_FALLBACK) for w in got.get("warnings", []))
            # gale-gpu: the GPU producer, or the CPU ones with the warning (no device)
            expected = (kind == "gale-gpu" and gale.get("producer") != "gpu")
            check(fallback == expected, f"{what}: GPU fallback warning {fallback}")
    return reference


tets = os.path.join(DATA, "tets")
if os.path.isdir(tets):
    arrays = {"bluntfin_density_tets.vtu": "Density", "combustor_density_tets.vtu": "Density",
              "vtk_post_lox.vtk": "Pressure", "vtk_cylinder_linear_tets.vtk": "vel_norm"}
    for name in sorted(os.listdir(tets)):
        path = os.path.join(tets, name)
        compare(name, ["--mesh", path, "--array", arrays.get(name, "x")])
else:
    print("SKIP: no shared tet meshes at", tets)
knot = os.path.join(DATA, "surfaces", "cgal_knot1.off")
if os.path.exists(knot):
    compare("knot", ["--mesh", knot, "--array", "z"])

with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(3)
    raw = cli_helpers.raw_case(tmp, "grid", rng.integers(0, 30, size=11 * 9 * 7), np.float32)
    grid = ["--raw", raw, "--dims", "11,9,7", "--type", "float32"]
    implicit, _ = run(grid)
    ref = compare("raw grid", grid)
    check(implicit is not None and ref is not None and implicit["counts"] == ref["counts"],
          "raw grid: implicit and explicit/GALE counts differ")
    expect_error("segment size 0", ["critical-points", *grid, "--triangulation", "gale-cpu",
                                    "--segment-size", "0"], "--segment-size")
    expect_error("unknown triangulation", ["critical-points", *grid, "--triangulation",
                                           "gale"], "gale-cpu or gale-gpu")
    expect_error("GALE on smooth", ["smooth", *grid, "--triangulation", "gale-cpu"],
                 "not available for smooth")
    # discrete-gradient runs on GALE, on the simplicial complex only: the default there
    expect_error("GALE on the cubical complex", ["discrete-gradient", *grid,
                                                 "--triangulation", "gale-cpu",
                                                 "--complex", "cubical"],
                 "stores the grid as its simplices")

cli_helpers.finish()
