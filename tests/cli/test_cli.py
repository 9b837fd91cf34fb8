"""End-to-end tests of `topogpu critical-points`: the JSON contract, counts against the
brute-force oracle (tests/pvpython/cp_oracle.py), mesh input, and bad input.

    python3 test_cli.py TOPOGPU_BINARY SHARED_DATA_DIR

Needs numpy; exits 77 (skipped) without it.
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
import cp_oracle  # noqa: E402

TOPOGPU, DATA = sys.argv[1], sys.argv[2]
KEYS = ["minimum", "saddle1", "saddle2", "maximum", "degenerate", "regular"]
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
    return subprocess.run([TOPOGPU, *map(str, args)], capture_output=True, text=True)


def counts_of(result):
    data = json.loads(result.stdout)
    return [data["counts"][k] for k in KEYS], data


def raw_case(tmp, name, values, dims, dtype):
    path = os.path.join(tmp, name + ".raw")
    np.asarray(values, dtype=dtype).tofile(path)
    return path


with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(3)
    cases = [
        ("ties3d", rng.integers(0, 4, 9 * 7 * 5), (9, 7, 5), np.uint8, "uint8"),
        ("float3d", rng.random(6 * 8 * 7), (6, 8, 7), np.float32, "float32"),
        ("image2d", rng.integers(-50, 50, 20 * 15), (20, 15, 1), np.int16, "int16"),
        ("thin", rng.random(12 * 10), (12, 1, 10), np.float64, "float64"),
    ]
    for name, values, dims, dtype, type_name in cases:
        path = raw_case(tmp, name, values, dims, dtype)
        expected = cp_oracle.classify(values.astype(dtype), cp_oracle.grid_cells(dims),
                                      int(np.prod(dims)))
        result = topogpu("critical-points", "--raw", path, "--dims", ",".join(map(str, dims)),
                         "--type", type_name, "--backend", "cpu", "--json")
        check(result.returncode == 0, f"{name}: exit {result.returncode}: {result.stderr}")
        if result.returncode != 0:
            continue
        counts, data = counts_of(result)
        check(counts == list(expected.counts), f"{name}: counts {counts} != oracle {list(expected.counts)}")
        check(data["backend"] == "cpu", f"{name}: backend {data['backend']}")
        check(data["vertices"] == int(np.prod(dims)), f"{name}: vertex count")
        check(isinstance(data["timings"], dict) and data["total_seconds"] >= 0, f"{name}: timings")

    # GPU requested: runs on the GPU when there is one, else falls back with a warning.
    path = os.path.join(tmp, "ties3d.raw")
    result = topogpu("critical-points", "--raw", path, "--dims", "9,7,5", "--type", "uint8",
                     "--backend", "gpu", "--json")
    data = json.loads(result.stdout)
    check(data["backend"] == "gpu" or any("GPU" in w for w in data["warnings"]),
          "gpu request without GPU must warn")

    # Bad input: a clear error, exit code 1, no crash.
    nan_path = raw_case(tmp, "nan", [0.0, 1.0, float("nan"), 2.0] * 6, (4, 3, 2), np.float32)
    bad = [
        (("--raw", nan_path, "--dims", "4,3,2", "--type", "float32"), "NaN"),
        (("--raw", nan_path, "--dims", "4,4,2", "--type", "float32"), "bytes"),
        (("--raw", nan_path, "--dims", "4,3,2", "--type", "complex"), "unknown scalar type"),
        (("--raw", os.path.join(tmp, "none.raw"), "--dims", "2,2,2", "--type", "uint8"), "cannot open"),
        (("--raw", raw_case(tmp, "line", np.arange(10), (10,), np.uint8), "--dims", "10,1,1",
          "--type", "uint8"), "fewer than two axes"),
        (("--mesh", os.path.join(DATA, "surfaces", "cgal_double-torus-example.off"), "--array", "z"),
         "only triangle meshes"),
        (("--raw", nan_path), "missing required option"),
    ]
    for args, needle in bad:
        result = topogpu("critical-points", *args)
        check(result.returncode == 1 and needle in result.stderr,
              f"bad input {args[-1]}: rc {result.returncode}, stderr {result.stderr!r} lacks {needle!r}")

# Meshes from the shared data: OFF terrain (z as the scalar) against the oracle.
terrain = os.path.join(DATA, "surfaces", "ttk_inputData_terrain.off")
if os.path.exists(terrain):
    with open(terrain) as f:
        tokens = [t for line in f for t in line.split("#")[0].split()]
    nv, nf = int(tokens[1]), int(tokens[2])
    coords = np.array(tokens[4:4 + 3 * nv], dtype=float).reshape(nv, 3)
    faces = np.array(tokens[4 + 3 * nv:4 + 3 * nv + 4 * nf], dtype=np.int64).reshape(nf, 4)[:, 1:]
    expected = cp_oracle.classify(coords[:, 2], faces, nv)
    result = topogpu("critical-points", "--mesh", terrain, "--array", "z", "--json")
    counts, _ = counts_of(result)
    check(counts == list(expected.counts), f"terrain: counts {counts} != oracle {list(expected.counts)}")
    check(expected.euler_from_links == expected.euler_domain == 1, "terrain: Euler relation")
else:
    print("shared data missing: mesh cases skipped")

# VTK formats (builds with VTK): the legacy post mesh has 2288 points (SOURCES.md).
post = os.path.join(DATA, "tets", "vtk_post_lox.vtk")
probe = topogpu("critical-points", "--mesh", post, "--array", "Pressure", "--json")
if "no VTK" not in probe.stderr and os.path.exists(post):
    counts, data = counts_of(probe)
    check(data["vertices"] == 2288 and sum(counts) == 2288 and data["dimension"] == 3,
          f"post: {data['vertices']} vertices, dimension {data['dimension']}")

print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
