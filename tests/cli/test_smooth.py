"""End-to-end tests of `topogpu smooth`: raw volumes and a mesh against the numpy oracle
(tests/pvpython/smoother_oracle.py), the JSON fields, the --output volume, and bad
input (exit 1 with a message naming the problem).

    python3 test_smooth.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not available to this python")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pvpython"))
import smoother_oracle as oracle  # noqa: E402

TOPOGPU, DATA = sys.argv[1], sys.argv[2]
failures = []
passed = 0


def check(condition, message):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(message)
        print("FAIL:", message)


def topogpu(*args):
    return subprocess.run([TOPOGPU, *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def expect_error(label, args, needle):
    result = topogpu(*args)
    ok = result.returncode == 1 and needle in result.stderr
    if ok and "--json" in args:
        ok = needle in json.loads(result.stdout).get("error", "")
    check(ok, f"{label}: rc {result.returncode}, stderr {result.stderr[-300:]!r} "
              f"(wanted {needle!r})")


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
        source = os.path.join(tmp, "in.raw")
        target = os.path.join(tmp, "out.raw")
        values.tofile(source)
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

    # --- a mesh: TTK's terrain, z as the field ------------------------------------------
    terrain = os.path.join(DATA, "surfaces", "ttk_inputData_terrain.off")
    if os.path.exists(terrain):
        with open(terrain) as f:
            tokens = [t for line in f for t in line.split("#")[0].split()]
        nv, nf = int(tokens[1]), int(tokens[2])
        coords = np.array(tokens[4:4 + 3 * nv], dtype=float).reshape(nv, 3)
        faces = np.array(tokens[4 + 3 * nv:4 + 3 * nv + 4 * nf],
                         dtype=np.int64).reshape(nf, 4)[:, 1:]
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
    good = os.path.join(tmp, "good.raw")
    np.arange(24, dtype=np.float32).tofile(good)
    raw = ["smooth", "--raw", good, "--dims", "4,3,2", "--type", "float32"]
    expect_error("negative iterations", raw + ["--iterations", "-2"], "--iterations")
    expect_error("too many iterations", raw + ["--iterations", "1000001", "--json"],
                 "out of range")
    expect_error("iterations not a number", raw + ["--iterations", "3abc"], "--iterations")
    expect_error("--output to a folder", raw + ["--output", tmp], "cannot write")
    expect_error("--output of a mesh", ["smooth", "--mesh", terrain, "--array", "z",
                                        "--output", os.path.join(tmp, "x.raw")],
                 "--raw inputs only")
    nan = os.path.join(tmp, "nan.raw")
    values = np.zeros(24, dtype=np.float32)
    values[13] = np.nan
    values.tofile(nan)
    expect_error("NaN value", ["smooth", "--raw", nan, "--dims", "4,3,2", "--type",
                               "float32", "--json"], "NaN or infinite value at vertex 13")
    huge = os.path.join(tmp, "huge.raw")
    np.full(24, 1.5e308).tofile(huge)
    expect_error("float64 near its maximum", ["smooth", "--raw", huge, "--dims", "4,3,2",
                                              "--type", "float64"], "would overflow")
    expect_error("unknown option", raw + ["--mask", "m.raw"], "--mask")

print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
