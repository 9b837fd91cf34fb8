"""End-to-end tests of `topogpu rips` against Debian's `ripser` (the oracle, run here on
the same files): random clouds (2D/3D, 20-200 points, dims 1-2, with and without a
threshold, integer coordinates for ties), every distance-matrix format, the sparse
format, the shared sets in ../shared/data/rips (dims up to 2, the small ones), Ripser++'s
expected barcodes, the JSON fields, and bad input.

    python3 test_rips.py TOPOGPU_BINARY SHARED_DATA_DIR

Exits 77 (skipped) without /usr/bin/ripser.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_helpers import check, expect_error, finish, np, write  # noqa: E402
import cli_helpers  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import ripser_text  # noqa: E402
from ripser_text import parse  # noqa: E402

_, DATA = cli_helpers.arguments()
RIPSER = shutil.which("ripser") or "/usr/bin/ripser"
if not os.path.exists(RIPSER):
    print("SKIP: Debian's ripser is not installed (scripts/setup.sh installs it)")
    sys.exit(77)



def same_barcodes(ours, theirs, tol=2e-5):
    """'' or what differs (multisets per dimension, within tol: ripser_text)."""
    return ripser_text.barcode_difference(ours, theirs, tol=tol)


def ripser(args, timeout=300):
    out = subprocess.run([RIPSER, *map(str, args)], capture_output=True, text=True,
                         timeout=timeout)
    return out.returncode, parse(out.stdout)


def ours(args, timeout=300):
    result = cli_helpers.topogpu("rips", *args, timeout=timeout, memory=None)
    return result.returncode, parse(result.stdout), result


def compare(label, args, tol=2e-5, ripser_args=None):
    """ripser_args: what ripser runs when it differs (options it lacks, or its sparse
    format, which ignores --threshold: then the same filtration as a full matrix)."""
    rc_ours, bars_ours, raw = ours(args)
    rc_theirs, bars_theirs = ripser(ripser_args or args)
    ok = rc_ours == 0 and rc_theirs == 0
    why = same_barcodes(bars_ours, bars_theirs, tol) if ok else \
        f"rc {rc_ours} / ripser {rc_theirs}: {raw.stderr[-300:]}"
    check(ok and why == "", f"{label}: {why}")
    return bars_ours


def write_matrix(tmp, name, d, fmt):
    n = len(d)
    lines = []
    if fmt == "distance":
        lines = [" ".join(repr(float(x)) for x in row) for row in d]
    elif fmt == "lower-distance":
        lines = [",".join(repr(float(d[i][j])) for j in range(i)) for i in range(n)]
    elif fmt == "upper-distance":
        lines = [" ".join(repr(float(d[i][j])) for j in range(i + 1, n)) for i in range(n)]
    elif fmt == "sparse":
        lines = [f"{i} {j} {float(d[i][j])!r}" for i in range(n) for j in range(i)]
    return write(tmp, name, "\n".join(lines) + "\n")


def distances(points):
    diff = points[:, None, :] - points[None, :, :]
    return np.sqrt((diff ** 2).sum(axis=2)).astype(np.float32).astype(np.float64)


rng = np.random.default_rng(2024)
with tempfile.TemporaryDirectory() as tmp:
    # --- random clouds ------------------------------------------------------------------
    cases = [(20, 2, 1, False, False), (60, 2, 2, False, False), (200, 2, 1, False, False),
             (40, 3, 2, True, False), (120, 3, 1, True, False), (80, 3, 2, False, True),
             (150, 2, 1, False, True), (30, 2, 2, True, True), (100, 3, 2, True, False),
             (50, 3, 1, True, True)]
    for n, dim, maxdim, ties, threshold in cases:
        points = (rng.integers(0, 6, (n, dim)).astype(float) if ties
                  else rng.uniform(-1, 1, (n, dim)))
        path = write(tmp, "cloud.txt", "\n".join(" ".join(repr(x) for x in p) for p in points) + "\n")
        args = ["--format", "point-cloud", "--dim", maxdim]
        if threshold:
            d = distances(points)
            args += ["--threshold", repr(float(np.quantile(d[d > 0], 0.3)))]
        label = f"cloud n={n} {dim}D dim {maxdim}{' ties' if ties else ''}" \
                f"{' threshold' if threshold else ''}"
        compare(label, args + [path])
        if n == 200:  # the same with one thread and with the sparse path forced
            compare(label + " 1 thread", args + ["--threads", 1, path],
                    ripser_args=args + [path])
            compare(label + " --sparse", args + ["--sparse", path], ripser_args=args + [path])

    # --- every matrix format and the sparse format, against ripser and each other -----
    points = rng.integers(0, 5, (35, 3)).astype(float)
    d = distances(points)
    reference = None
    full = write_matrix(tmp, "full.txt", d, "distance")
    for fmt in ["distance", "lower-distance", "upper-distance", "sparse"]:
        path = write_matrix(tmp, fmt + ".txt", d, fmt)
        for threshold in [None, 2.5]:
            args = ["--format", fmt, "--dim", 2] + (["--threshold", threshold] if threshold else [])
            other = None
            if fmt == "sparse" and threshold:
                other = ["--format", "distance", "--dim", 2, "--threshold", threshold, full]
            bars = compare(f"{fmt} threshold {threshold}", args + [path], ripser_args=other)
            if threshold is None and fmt != "sparse":
                if reference is None:
                    reference = bars
                check(same_barcodes(bars, reference) == "", f"{fmt}: differs from distance")
    # a sparse graph that is not complete (no enclosing radius: all its edges count)
    lines = [f"{i} {j} {float(d[i][j])!r}" for i in range(35) for j in range(i) if d[i][j] <= 2.3]
    path = write(tmp, "sparse_partial.txt", "\n".join(lines) + "\n")
    compare("sparse incomplete graph", ["--format", "sparse", "--dim", 2, path])

    # --- far beyond or below single precision: the bars scale with the input -------------
    # Ripser overflows (1e39: infinite distances, or an abort) or underflows (1e-50: every
    # distance 0) there; the right bars are its bars on the unscaled input, times the
    # factor (Rips persistence commutes with scaling).
    unit_cloud = rng.uniform(0, 1, (40, 3))
    plain = write(tmp, "plain.txt", "\n".join(" ".join(repr(x) for x in p) for p in unit_cloud) + "\n")
    _, unscaled = ripser(["--format", "point-cloud", "--dim", 2, plain])
    for factor in (1e39, 1e300, 1e-50, 1e-300):
        cloud = write(tmp, "scaled.txt", "\n".join(
            " ".join(repr(x * factor) for x in p) for p in unit_cloud) + "\n")
        matrix = write_matrix(tmp, "scaled_lower.txt", distances(unit_cloud) * factor,
                              "lower-distance")
        want = {k: [(b * factor, d * factor) for b, d in bars] for k, bars in unscaled.items()}
        for fmt, path in (("point-cloud", cloud), ("lower-distance", matrix)):
            rc, bars, raw = ours(["--format", fmt, "--dim", 2, path])
            why = same_barcodes(bars, want, 2e-5) if rc == 0 else raw.stderr[-200:]
            check(rc == 0 and why == "", f"{fmt} scaled by {factor:g}: {why}")
            if rc == 0:
                check(sum(1 for _, d in bars[0] if math.isinf(d)) == 1,
                      f"{fmt} scaled by {factor:g}: one essential class in dimension 0")
    # Values double precision reads are numbers; what single precision cannot hold at
    # once is refused by name.
    for name, content, fmt, needle in [
            ("subnormal.txt", "0 0\n1e-320 0\n0 5\n", "point-cloud", "points 0 and 1 are 9.99989e-321 apart"),
            ("below.txt", "0 0\n1e-400 1\n", "point-cloud", "'1e-400' is below double precision"),
            ("above.txt", "0 0\n1e400 1\n", "point-cloud", "'1e400' is beyond double precision"),
            ("span.txt", "1e-300\n1e300 1\n", "lower-distance", "the distances span 1e-300")]:
        expect_error(f"precision: {name}", ["rips", "--format", fmt, write(tmp, name, content)],
                     needle)
    tiny = write(tmp, "tiny.txt", "0 0\n1e-320 0\n0 2e-320\n")
    result = cli_helpers.topogpu("rips", "--format", "point-cloud", tiny)
    check(result.returncode == 0 and "[0,9.99989e-321)" in result.stdout,
          f"1e-320 is a number: {result.stdout[-200:]!r} {result.stderr[-200:]!r}")

    # --- the shared sets ----------------------------------------------------------------
    rips = os.path.join(DATA, "rips")
    if not os.path.isdir(rips):
        print("SKIP: shared data missing:", rips)
        sys.exit(77)
    shared = [
        (["--format", "lower-distance", "--dim", 2], "sphere_3_192.lower_distance_matrix"),
        (["--format", "lower-distance", "--dim", 2], "random16.lower_distance_matrix"),
        (["--format", "lower-distance", "--dim", 2], "projective_plane.lower_distance_matrix"),
        (["--format", "distance", "--dim", 2], "celegans.distance_matrix"),
        (["--format", "distance", "--dim", 1], "Vicsek300_300_of_300.distance_matrix"),
        (["--format", "point-cloud", "--threshold", 1.4, "--dim", 2], "o3_1024.txt"),
        (["--format", "point-cloud", "--dim", 1], "roadmap/dragon_vrip.ply.txt_1000_.txt"),
        (["--format", "distance", "--dim", 2], "roadmap/senate104_edge_list.txt_0.68902_distmat.txt"),
        (["--format", "point-cloud", "--dim", 2], "roadmap/random_point_cloud_50_16_.txt"),
        (["--format", "distance", "--dim", 1], "gudhi/full_square_distance_matrix.csv"),
    ]
    for args, name in shared:
        path = os.path.join(rips, name)
        if not os.path.exists(path):
            print("SKIP: missing", path)
            continue
        compare(name, args + [path], tol=1e-5 if "point-cloud" not in args else 2e-5)

    # Every column of a dense input bounded after its first addition (otherwise only long
    # columns are: RipsLockFreeReduction.h, maybeTruncate), with the enclosing radius and with
    # a lower threshold (columns that reduce to zero through every extension).
    os.environ["TOPOGPU_RIPS_BOUND_EVERY_COLUMN"] = "1"
    for args, name in [
            (["--format", "distance", "--dim", 2], "celegans.distance_matrix"),
            (["--format", "lower-distance", "--dim", 2], "projective_plane.lower_distance_matrix"),
            (["--format", "lower-distance", "--dim", 2, "--threshold", 1.5],
             "sphere_3_192.lower_distance_matrix")]:
        path = os.path.join(rips, name)
        if os.path.exists(path):
            compare(name + " (every column bounded)", args + [path], tol=1e-5)
    del os.environ["TOPOGPU_RIPS_BOUND_EVERY_COLUMN"]

    # Ripser++'s expected barcodes (dims 0 and 1, its defaults)
    for name, fmt, extra in [("sphere_3_192", "lower-distance", []),
                             ("celegans", "distance", []),
                             ("Vicsek300_300_of_300", "distance", [])]:
        src = os.path.join(rips, name + (".lower_distance_matrix" if fmt == "lower-distance"
                                         else ".distance_matrix"))
        expected = os.path.join(rips, "expected_barcodes_ripserpp", name + ".gpu.barcodes")
        if not (os.path.exists(src) and os.path.exists(expected)):
            continue
        rc, bars, raw = ours(["--format", fmt, "--dim", 1, *extra, src])
        with open(expected) as f:
            want = parse(f.read())
        check(rc == 0 and same_barcodes(bars, want, 1e-5) == "",
              f"{name} vs Ripser++'s expected barcodes: {same_barcodes(bars, want, 1e-5)}")

    # --- JSON: stages, apparent pairs, memory --------------------------------------------
    # --backend cpu: the CPU's stage names also where a GPU is present.
    result = cli_helpers.topogpu("rips", "--format", "lower-distance", "--dim", 2, "--json",
                                 "--backend", "cpu",
                                 os.path.join(rips, "sphere_3_192.lower_distance_matrix"),
                                 timeout=300)
    try:
        out = json.loads(result.stdout)
    except ValueError:
        out = {}
    check(result.returncode == 0 and out.get("backend") == "cpu", f"json: {result.stderr[-200:]}")
    dims = out.get("dimensions", [])
    check(len(dims) == 3, "json: three dimensions")
    text_bars = ours(["--format", "lower-distance", "--dim", 2,
                      os.path.join(rips, "sphere_3_192.lower_distance_matrix")])[1]
    for entry in dims:
        k = entry["dimension"]
        json_bars = [(b, math.inf if e is None else e) for b, e in entry["intervals"]]
        check(same_barcodes({k: json_bars}, {k: text_bars.get(k, [])}, 1e-6) == "",
              f"json intervals of dim {k} equal the text ones")
        if k >= 1:
            # The paper reports ~99% apparent pairs in dims 1-2 on such data.
            check(80 <= entry["apparent_percent"] <= 100,
                  f"dim {k}: apparent pairs {entry['apparent_percent']}% (expected 80-100)")
            check(entry["pairs"] + entry["essential"] == entry["columns"],
                  f"dim {k}: every column pairs or is essential")
    check(all(k in out.get("timings", {}) for k in ["dim 0 (cpu)", "reduction dim 1 (cpu)",
                                                   "columns dim 2 (cpu)"]),
          f"json timings: {out.get('timings')}")
    check(out.get("peak_host_memory_mib", 0) > 0, "json: peak host memory")
    check(abs(out.get("enclosing_radius", 0) - out.get("threshold", -1)) < 1e-9,
          "json: the default threshold is the enclosing radius")

    # --- bad input ------------------------------------------------------------------------
    bad = {
        "asymmetric.txt": ("0 1 2\n1 0 3\n2 4 0\n", "distance", "not symmetric"),
        "negative.txt": ("0 -1\n-1 0\n", "distance", "negative"),
        "nan.txt": ("0 nan\nnan 0\n", "distance", "NaN"),
        "nonsquare.txt": ("0 1 2\n1 0 3\n", "distance", "square"),
        "ragged.txt": ("1 2 3\n4 5\n6 7 8\n", "point-cloud", "ragged"),
        "empty.txt": ("", "point-cloud", "empty"),
        "blank.txt": ("\n \n", "lower-distance", "empty"),
        "one.txt": ("1 2 3\n", "point-cloud", "single point"),
        "triangular.txt": ("1\n2 3\n4\n", "lower-distance", "n(n-1)/2"),
        "word.txt": ("1 2\n3 x\n", "point-cloud", "not a number"),
        "sparse2.txt": ("0 1\n", "sparse", "'i j distance'"),
        "sparseneg.txt": ("0 -1 2\n", "sparse", "point index"),
    }
    for name, (content, fmt, needle) in bad.items():
        path = write(tmp, name, content)
        for json_flag in [[], ["--json"]]:
            expect_error(f"bad input {name} {json_flag}", ["rips", "--format", fmt, *json_flag, path],
                         needle)
    small = write(tmp, "small.txt", "0 0\n1 0\n0 1\n")
    expect_error("dimension too large", ["rips", "--format", "point-cloud", "--dim", 3, small],
                 "needs at least 5 points")
    expect_error("threshold zero", ["rips", "--format", "point-cloud", "--threshold", 0, small],
                 "--threshold must be > 0")
    expect_error("threshold text", ["rips", "--format", "point-cloud", "--threshold", "x", small],
                 "--threshold")
    expect_error("negative dimension", ["rips", "--format", "point-cloud", "--dim", -1, small],
                 "--dim")
    # Without a usable GPU (CI), --backend gpu runs the CPU backend and says why.
    gpu_run = cli_helpers.topogpu("rips", "--format", "point-cloud", "--backend", "gpu",
                                  "--json", small)
    try:
        gpu_out = json.loads(gpu_run.stdout)
    except ValueError:
        gpu_out = {}
    check(gpu_run.returncode == 0 and (gpu_out.get("backend") == "gpu" or
                                       gpu_out.get("warning_codes") == ["gpu_unavailable"]),
          f"--backend gpu without a device: {gpu_run.stdout[-300:]}")
    # What the help texts say about --backend is what the command does: auto (default) and
    # cpu run the CPU backend; gpu is accepted (the CPU with a warning without a device).
    auto_run = cli_helpers.topogpu("rips", "--format", "point-cloud", "--json", small)
    try:
        auto_backend = json.loads(auto_run.stdout).get("backend")
    except ValueError:
        auto_backend = None
    check(auto_backend == "cpu", f"--backend auto runs the CPU backend: {auto_backend}")
    usage = cli_helpers.topogpu("rips", "--help").stdout
    check("auto (default) and cpu: the CPU backend" in " ".join(usage.split()),
          f"rips --help on --backend: {usage[-600:]!r}")
    cli_doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                                "cli.md")).read()
    rips_doc = " ".join(cli_doc[cli_doc.index("`rips` (Vietoris-Rips"):cli_doc.index("## Errors")].split())
    check("refused until" not in rips_doc and "`auto`, the default, and `cpu` run the CPU backend"
          in rips_doc and "without a usable device runs on the CPU with a warning" in rips_doc,
          "docs/cli.md says what --backend does for rips")
    expect_error("unknown format", ["rips", "--format", "dipha", small], "unknown input format")
    expect_error("missing file", ["rips", os.path.join(tmp, "nope.txt")], "nope.txt")
    expect_error("no file", ["rips", "--dim", 1], "no input FILE")
    expect_error("two files", ["rips", small, small], "unexpected argument")
    # C(2000, 42) is far beyond 2^63: a clear error before any allocation
    many = write(tmp, "many.txt", "\n".join(f"{i} {i % 7}" for i in range(2000)) + "\n")
    expect_error("index overflow", ["rips", "--format", "point-cloud", "--dim", 40, many], "2^63")

    # --- memory: a run that does not fit is refused before it starts ----------------------
    # 2000 points up to dimension 3 or 4 (C(2000, 3) = 1.33e9 triangles to keep): the
    # estimate, the budget and what fits, under a 3 GiB cap (the test harness's) and fast.
    cloud = rng.uniform(0, 1, (2000, 3))
    cloud2000 = write(tmp, "cloud2000.txt",
                      "\n".join(" ".join(repr(x) for x in p) for p in cloud) + "\n")
    for dim in (3, 4):
        for budget in (["--memory-budget", "4G"], []):  # [] : the machine's available memory
            label = f"--dim {dim} on 2000 points {budget}"
            result = expect_error(label, ["rips", "--format", "point-cloud", "--dim", dim,
                                          *budget, cloud2000],
                                  f"up to dimension {dim} would need about")
            err = result.stderr
            check(re.search(r"2000 points; under the threshold [0-9.]+: \d+ edges, "
                            r"(at most )?[0-9.e+]+ triangles", err)
                  and "fits with a threshold of at most" in err
                  and (not budget or "more than the memory budget of 4.0 GiB" in err),
                  f"{label}: the estimate and what fits: {err[-400:]!r}")
    # A smaller run refused by a small budget: the threshold it names runs within that
    # budget and equals ripser there; the dimension it names too.
    small_cloud = write(tmp, "cloud150.txt", "\n".join(
        " ".join(repr(x) for x in p) for p in rng.uniform(0, 1, (150, 3))) + "\n")
    result = expect_error("150 points --dim 3 in 5M", ["rips", "--format", "point-cloud", "--dim", 3,
                                                      "--memory-budget", "5M", small_cloud],
                          "more than the memory budget of 5.0 MiB")
    found = re.search(r"dimension (\d) fits \(.*fits with a threshold of at most ([0-9.e+-]+)",
                      result.stderr)
    check(found is not None, f"the suggestions: {result.stderr[-300:]!r}")
    if found:
        fits, t = int(found.group(1)), float(found.group(2))
        compare(f"150 points --dim 3 at the suggested threshold {t}",
                ["--format", "point-cloud", "--dim", 3, "--threshold", repr(t),
                 "--memory-budget", "5M", small_cloud],
                ripser_args=["--format", "point-cloud", "--dim", 3, "--threshold", repr(t),
                             small_cloud])
        compare(f"150 points at the suggested dimension {fits}",
                ["--format", "point-cloud", "--dim", fits, "--memory-budget", "5M", small_cloud],
                ripser_args=["--format", "point-cloud", "--dim", fits, small_cloud])
    # A 30-byte sparse file naming point 100000000: its points are bounded by its content.
    huge = write(tmp, "huge_index.txt", "0 100000000 1\n1 2 0.5\n")
    for dim in (0, 1):
        expect_error(f"sparse file naming point 100000000, --dim {dim}",
                     ["rips", "--format", "sparse", "--dim", dim, huge],
                     "the point index 100000000 makes 100000001 points, but the file names only 4")
    expect_error("memory budget text", ["rips", "--memory-budget", "lots", small], "--memory-budget")
    expect_error("memory budget zero", ["rips", "--memory-budget", "0", small], "--memory-budget")

finish()
