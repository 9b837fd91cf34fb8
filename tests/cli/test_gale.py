"""`topogpu critical-points --triangulation explicit|gale-cpu|gale-gpu`: the same counts
and warnings with each on every shared tet mesh, a shared surface and a raw grid (stored
as tets), GALE's statistics in the JSON, small and default segments, and bad input.

Usage: python3 test_gale.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import tempfile
import time

import cli_helpers
import cp_oracle
from cli_helpers import check, expect_error, np, topogpu

TOPOGPU, DATA = cli_helpers.arguments()

GPU_FALLBACK = "gale_no_gpu_producer"  # its warning code


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
            codes = got.get("warning_codes", [])
            check(len(codes) == len(got.get("warnings", [])),
                  f"{what}: warning_codes {codes} beside warnings {got.get('warnings')}")
            warnings = [w for w, c in zip(got.get("warnings", []), codes) if c != GPU_FALLBACK]
            check(warnings == reference.get("warnings", []),
                  f"{what}: warnings {warnings} != {reference.get('warnings', [])}")
            gale = got.get("gale", {})
            check(got["triangulation"] == kind and gale.get("segments", 0) >= 1
                  and gale.get("initialization_seconds", -1) >= 0
                  and gale.get("consumer_wait_seconds", -1) >= 0
                  and gale.get("segments_computed", 0) >= 1, f"{what}: gale {gale}")
            fallback = GPU_FALLBACK in codes
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


def drop_zero_oracle(values, dims):
    """Counts of the critical points of the grid's tets without the zero-valued vertices
    and the cells holding one (kept vertices renumbered in ascending id order), by the
    numpy brute force on cells split here from TTK's corner list."""
    keep = values != 0
    new_id = np.cumsum(keep) - 1
    cells = cp_oracle.grid_cells(dims)
    cells = new_id[cells[keep[cells].all(axis=1)]]
    types = cp_oracle.classify(values[keep].astype(np.float64), cells, int(keep.sum())).types
    names = ("minimum", "saddle1", "saddle2", "maximum", "degenerate", "regular")
    return {n: int((types == k).sum()) for k, n in enumerate(names)}, len(cells)


def check_timings(label, report, wall):
    """Every stage the user waits for is timed: the input stages and the algorithm's total
    fit inside the process's own wall time, which fits inside the wall measured here."""
    stages = report.get("input_timings") or {}
    timed = sum(stages.values()) + report["total_seconds"]
    process = report.get("process_seconds", -1)
    check(all(v >= 0 for v in stages.values()) and "read" in stages
          and timed <= process + 0.02 and process <= wall + 0.05,
          f"{label}: stages {stages} + total {report['total_seconds']} <= process "
          f"{process} <= wall {wall:.3f}")
    return stages


with tempfile.TemporaryDirectory() as tmp:
    # --drop-zero (GALE's paper drops the background voxels): a field with zero regions
    rng = np.random.default_rng(5)
    dims = (13, 11, 9)
    field = rng.integers(1, 40, size=dims[::-1]).astype(np.float32)
    field[:, :, :4] = 0                   # a zero slab
    field[rng.random(field.shape) < 0.15] = 0  # and scattered zero voxels
    values = field.ravel()
    raw = cli_helpers.raw_case(tmp, "zeros", values, np.float32)
    grid = ["--raw", raw, "--dims", ",".join(map(str, dims)), "--type", "float32",
            "--drop-zero"]
    expected, cells = drop_zero_oracle(values, dims)
    for kind, stages in (("explicit", ["read", "drop zero", "explicit triangulation"]),
                         ("gale-cpu", ["read", "drop zero", "GALE initialization"])):
        start = time.perf_counter()
        got, error = run(grid + ["--triangulation", kind])
        wall = time.perf_counter() - start
        if got is None:
            check(False, f"drop zero {kind}: {error}")
            continue
        check(got["counts"] == expected,
              f"drop zero {kind}: counts {got['counts']} != oracle {expected}")
        check(any(f"{cells} cells left" in w for w in got.get("warnings", [])),
              f"drop zero {kind}: {cells} cells expected in {got.get('warnings')}")
        check("zero_vertices_dropped" in got.get("warning_codes", []),
              f"drop zero {kind}: codes {got.get('warning_codes')}")
        got_stages = check_timings(f"drop zero {kind}", got, wall)
        check(list(got_stages) == stages, f"drop zero {kind}: stages {list(got_stages)}")
    expect_error("drop zero all zero",
                 ["critical-points", "--raw", cli_helpers.raw_case(
                     tmp, "allzero", np.zeros(27), np.float32), "--dims", "3,3,3",
                  "--type", "float32", "--drop-zero", "--triangulation", "explicit"],
                 "every value")

cli_helpers.finish()
