"""End-to-end tests of `topogpu smooth`: raw volumes and a mesh against the numpy oracle
(tests/pvpython/smoother_oracle.py), the JSON fields, the --output volume, and bad
input (exit 1 with a message naming the problem).

    python3 test_smooth.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_helpers import check, expect_error, finish, np, raw_case, read_off  # noqa: E402
import cli_helpers  # noqa: E402
import smoother_oracle as oracle  # noqa: E402

_, DATA = cli_helpers.arguments()


def topogpu(*args):
    return cli_helpers.topogpu(*args, timeout=120)


rng = np.random.default_rng(5)
with tempfile.TemporaryDirectory() as tmp:
    # --- raw volumes of several types and shapes against the oracle -------------------
    cases = [((9, 7, 5), np.float32, 3, "implicit"), ((9, 7, 5), np.float32, 3, "explicit"),
             ((12, 10), np.uint8, 1, "implicit"), ((6, 1, 8), np.int16, 4, "implicit"),
             ((5, 6, 7), np.float64, 0, "implicit"), ((8, 8, 8), np.int32, 2, "implicit")]
    for dims, dtype, iterations, kind in cases:
        n = int(np.prod(dims))
        if np.dtype(dtype).kind == "f":
            values = rng.uniform(-50, 50, n).astype(dtype)
        else:
            info = np.iinfo(dtype)
            values = rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
        name = f"{np.dtype(dtype).name} {dims} x{iterations} {kind}"
        source = raw_case(tmp, "in", values, dtype)
        target = os.path.join(tmp, "out.raw")
        result = topogpu("smooth", "--raw", source, "--dims", ",".join(map(str, dims)),
                         "--type", np.dtype(dtype).name, "--iterations", iterations,
                         "--triangulation", kind, "--output", target, "--json")
        check(result.returncode == 0, f"{name}: rc {result.returncode} {result.stderr}")
        if result.returncode != 0:
            continue
        data = json.loads(result.stdout)
        got = np.fromfile(target, dtype=dtype)
        check(got.size == n, f"{name}: output has {got.size} values, expected {n}")
        expected = oracle.smooth(values, oracle.edges_of_cells(oracle.grid_cells(dims)),
                                 iterations)
        bad = oracle.mismatches(got, expected, dtype)
        check(bad.size == 0, f"{name}: {bad.size} values differ from the oracle, first "
                             f"{bad[:5].tolist()}")
        check(data["iterations"] == iterations and data["type"] == np.dtype(dtype).name
              and data["output"] == target and data["triangulation"] == kind,
              f"{name}: JSON fields {data}")
        # JSON numbers carry 9 significant digits
        close = lambda a, b: abs(a - b) <= 1e-8 * (1 + abs(b))  # noqa: E731
        check(close(data["range_before"]["min"], float(values.min()))
              and close(data["range_before"]["max"], float(values.max()))
              and close(data["range_after"]["min"], float(got.min()))
              and close(data["range_after"]["max"], float(got.max())),
              f"{name}: ranges {data}")
        if iterations > 0:
            check(float(got.max()) - float(got.min()) < float(values.max()) - float(values.min()),
                  f"{name}: the range did not shrink")

    # --- 64-bit integers near their limits: exact (the average once ran in double,
    # which holds them only to 2^10 or 2^11, and moved values below the input's minimum)
    for dtype, low in [(np.int64, False), (np.int64, True), (np.uint64, False)]:
        info = np.iinfo(dtype)
        offsets = rng.integers(0, 3000, 9 * 7 * 5)
        if low:  # both ends of the range side by side
            values = np.where(rng.random(offsets.size) < 0.5,
                              np.array(info.min, dtype) + offsets.astype(dtype),
                              np.array(info.max, dtype) - offsets.astype(dtype))
        else:
            values = np.array(info.max, dtype) - offsets.astype(dtype)
        values = values.astype(dtype)
        for kind in ("implicit", "explicit"):
            name = f"{np.dtype(dtype).name} near {'both limits' if low else 'its maximum'} {kind}"
            source = raw_case(tmp, "wide", values, dtype)
            target = os.path.join(tmp, "wide_out.raw")
            result = topogpu("smooth", "--raw", source, "--dims", "9,7,5", "--type",
                             np.dtype(dtype).name, "--iterations", 3, "--triangulation",
                             kind, "--output", target)
            check(result.returncode == 0, f"{name}: rc {result.returncode} {result.stderr}")
            if result.returncode != 0:
                continue
            got = np.fromfile(target, dtype=dtype)
            expected = oracle.smooth(values, oracle.edges_of_cells(oracle.grid_cells((9, 7, 5))), 3)
            bad = oracle.mismatches(got, expected, dtype)
            check(bad.size == 0, f"{name}: {bad.size} values differ from the exact oracle, "
                                 f"e.g. {[(int(got[i]), int(expected[i])) for i in bad[:3]]}")
            check(got.min() >= values.min() and got.max() <= values.max(),
                  f"{name}: the range grew: [{got.min()}, {got.max()}] from "
                  f"[{values.min()}, {values.max()}]")

    # --- a mesh: TTK's terrain, z as the field ------------------------------------------
    terrain = os.path.join(DATA, "surfaces", "ttk_inputData_terrain.off")
    if os.path.exists(terrain):
        coords, faces = read_off(terrain)
        expected = oracle.smooth(coords[:, 2], oracle.edges_of_cells(faces), 5)
        result = topogpu("smooth", "--mesh", terrain, "--array", "z", "--iterations", 5,
                         "--json")
        check(result.returncode == 0, f"terrain: {result.stderr}")
        if result.returncode == 0:
            after = json.loads(result.stdout)["range_after"]
            check(abs(after["min"] - expected.min()) < 1e-9 * (1 + abs(expected.min()))
                  and abs(after["max"] - expected.max()) < 1e-9 * (1 + abs(expected.max())),
                  f"terrain: range {after} != oracle [{expected.min()}, {expected.max()}]")
    else:
        print("shared data missing: mesh case skipped")

    # --- bad input ------------------------------------------------------------------------
    good = raw_case(tmp, "good", np.arange(24), np.float32)
    raw = ["smooth", "--raw", good, "--dims", "4,3,2", "--type", "float32"]
    expect_error("negative iterations", raw + ["--iterations", "-2"], "--iterations")
    expect_error("too many iterations", raw + ["--iterations", "1000001", "--json"],
                 "out of range")
    expect_error("iterations not a number", raw + ["--iterations", "3abc"], "--iterations")
    expect_error("--output to a folder", raw + ["--output", tmp], "cannot write")
    expect_error("--output of a mesh", ["smooth", "--mesh", terrain, "--array", "z",
                                        "--output", os.path.join(tmp, "x.raw")],
                 "--raw inputs only")
    values = np.zeros(24, dtype=np.float32)
    values[13] = np.nan
    nan = raw_case(tmp, "nan", values, np.float32)
    expect_error("NaN value", ["smooth", "--raw", nan, "--dims", "4,3,2", "--type",
                               "float32", "--json"], "NaN or infinite value at vertex 13")
    huge = raw_case(tmp, "huge", np.full(24, 1.5e308), np.float64)
    expect_error("float64 near its maximum", ["smooth", "--raw", huge, "--dims", "4,3,2",
                                              "--type", "float64"], "would overflow")
    expect_error("unknown option", raw + ["--mask", "m.raw"], "--mask")

finish()
