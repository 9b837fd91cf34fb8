"""End-to-end tests of `topogpu discrete-gradient`: the JSON contract ("critical_cells":
[n0, n1, n2, n3]), hand-counted complexes (a 2D bump over a ring: the ring's loop is a
1-saddle killed by the maximum; a 3D bump inside a sphere: a 2-saddle and a maximum),
ramps and constants with one minimum, Euler's relation on real volumes, and bad input
(exit 1 with a message naming the problem).

    python3 test_discrete_gradient.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import sys
import tempfile

import cli_helpers
from cli_helpers import check, np

TOPOGPU, DATA = cli_helpers.arguments()


def topogpu(*args):
    return cli_helpers.topogpu(*args, timeout=300, memory=None)


def counts(path, dims, type_name, *extra):
    result = topogpu("discrete-gradient", "--raw", path, "--dims",
                     ",".join(map(str, dims)), "--type", type_name, "--complex", "cubical",
                     "--json", *extra)
    if result.returncode != 0:
        check(False, f"{path}: rc {result.returncode}: {result.stderr[-300:]}")
        return None
    out = json.loads(result.stdout)
    for key in ("backend", "timings", "peak_host_memory_mib", "peak_device_memory_mib"):
        check(key in out, f"{path}: no {key!r} in the JSON")
    return out["critical_cells"]


def write(tmp, name, values):
    path = os.path.join(tmp, name)
    values.tofile(path)
    return path


with tempfile.TemporaryDirectory() as tmp:
    # A bump over a ring of lower values (x fastest): min, the ring's loop, the maximum.
    bump2 = np.arange(9, dtype=np.float32)
    bump2[4] = 100
    got = counts(write(tmp, "bump2.raw", bump2), (3, 3, 1), "float32")
    check(got == [1, 1, 1, 0], f"2D bump: {got}, expected [1, 1, 1, 0]")
    # The same bump in the x-z plane (a 1-thick y axis is squeezed out).
    got = counts(write(tmp, "bump2xz.raw", bump2), (3, 1, 3), "float32")
    check(got == [1, 1, 1, 0], f"2D bump in x-z: {got}, expected [1, 1, 1, 0]")
    # A bump inside a sphere: the shell's void is a 2-saddle the maximum fills.
    bump3 = np.arange(27, dtype=np.float64)
    bump3[13] = 1000
    got = counts(write(tmp, "bump3.raw", bump3), (3, 3, 3), "float64")
    check(got == [1, 0, 1, 1], f"3D bump: {got}, expected [1, 0, 1, 1]")
    # Ramps and constants, every integer width: one minimum, nothing else.
    z, y, x = np.meshgrid(np.arange(6), np.arange(5), np.arange(7), indexing="ij")
    for dtype, name in ((np.uint8, "uint8"), (np.int16, "int16"), (np.int32, "int32"),
                        (np.uint64, "uint64"), (np.float32, "float32")):
        ramp = (x + 2 * y + 3 * z).astype(dtype)
        got = counts(write(tmp, "ramp.raw", ramp), (7, 5, 6), name)
        check(got == [1, 0, 0, 0], f"{name} ramp: {got}")
        got = counts(write(tmp, "const.raw", np.full(210, 3, dtype)), (7, 5, 6), name)
        check(got == [1, 0, 0, 0], f"{name} constant: {got}")
    # Random fields with ties: Euler's relation on a box.
    rng = np.random.default_rng(3)
    for dims in ((17, 13, 11), (30, 20, 1)):
        n = int(np.prod(dims))
        got = counts(write(tmp, "ties.raw", rng.integers(0, 4, n).astype(np.uint8)),
                     dims, "uint8", "--backend", "cpu")
        if got:
            check(got[0] - got[1] + got[2] - got[3] == 1, f"ties {dims}: Euler {got}")
            check(dims[2] > 1 or got[3] == 0, f"ties {dims}: 2D with n3 = {got[3]}")

    # Bad input.
    def expect_error(label, args, needle):
        result = topogpu("discrete-gradient", *args, "--json")
        ok = result.returncode == 1 and needle in result.stderr
        ok = ok and needle in json.loads(result.stdout).get("error", "")
        check(ok, f"{label}: rc {result.returncode}, stderr {result.stderr[-300:]!r} "
                  f"(wanted {needle!r})")

    ramp_path = write(tmp, "r.raw", np.arange(27, dtype=np.float32))
    expect_error("cubical complex on the explicit triangulation",
                 ["--raw", ramp_path, "--dims", "3,3,3", "--type", "float32",
                  "--triangulation", "explicit", "--complex", "cubical"],
                 "runs on the implicit grid only")
    # A grid stored as its tets runs the simplicial complex (what it holds).
    stored = topogpu("discrete-gradient", "--raw", ramp_path, "--dims", "3,3,3", "--type",
                     "float32", "--triangulation", "explicit", "--json")
    check(stored.returncode == 0 and json.loads(stored.stdout)["complex"] == "simplicial",
          f"explicit triangulation of a grid: simplicial by default: {stored.stderr}")
    nan = np.arange(27, dtype=np.float32)
    nan[5] = np.nan
    expect_error("NaN", ["--raw", write(tmp, "nan.raw", nan), "--dims", "3,3,3", "--type",
                         "float32", "--complex", "cubical"], "vertex 5")
    expect_error("1D grid", ["--raw", ramp_path, "--dims", "27,1,1", "--type", "float32",
                             "--complex", "cubical"], "fewer than two axes")

# Real volumes: Euler's relation (skipped without the data).
volumes = os.path.join(DATA, "volumes")
for name, dims in (("fuel_64x64x64_uint8.raw", (64, 64, 64)),
                   ("silicium_98x34x34_uint8.raw", (98, 34, 34))):
    path = os.path.join(volumes, name)
    if not os.path.exists(path):
        print("skipped (no data):", path)
        continue
    got = counts(path, dims, "uint8", "--backend", "cpu")
    if got:
        check(got[0] - got[1] + got[2] - got[3] == 1, f"{name}: Euler {got}")

cli_helpers.finish()
