"""End-to-end tests of `topogpu msc` (Morse-Smale complex, stage 2): the JSON contract,
the --details file against properties computed here from refined-grid coordinates (each
saddle's arcs are its V-paths: multiplicities sum to 2, or 1 for a boundary saddle of
the top dimension; arc ends are minima / listed maxima; every minimum labels its own
vertex; every critical top-cell maximum labels its own cell), the counts agreeing with
`topogpu discrete-gradient`, no unlabelled vertex or cell on real volumes (where TTK
leaves 26-80% unlabelled), a ramp's single boundary maximum, every --type giving the
complex of the vertex order only (64-bit values beyond 2^53 included), constant fields,
and bad input (NaN/Inf, malformed raw files, 1D grids, overflowing sizes).

    python3 test_msc.py TOPOGPU_BINARY SHARED_DATA_DIR
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


def msc(path, dims, type_name, *extra):
    result = topogpu("msc", "--raw", path, "--dims", ",".join(map(str, dims)), "--type",
                     type_name, "--complex", "cubical", "--json", *extra)
    if result.returncode != 0:
        check(False, f"{path}: rc {result.returncode}: {result.stderr[-300:]}")
        return None
    out = json.loads(result.stdout)
    for key in ("critical_cells", "arcs", "unlabelled_vertices", "unlabelled_voxels",
                "boundary_maxima", "backend", "timings", "peak_host_memory_mib",
                "peak_device_memory_mib"):
        check(key in out, f"{path}: no {key!r} in the JSON")
    return out


def gradient_counts(path, dims, type_name):
    result = topogpu("discrete-gradient", "--raw", path, "--dims",
                     ",".join(map(str, dims)), "--type", type_name, "--complex", "cubical",
                     "--json")
    return json.loads(result.stdout)["critical_cells"] if result.returncode == 0 else None


def check_details(tag, out, details):
    n = details["dims"]
    d = details["dimension"]
    R = [2 * k - 1 for k in n]

    def coords(cell):
        return cell % R[0], (cell // R[0]) % R[1], cell // (R[0] * R[1])

    def dim(cell):
        return sum(c & 1 for c in coords(cell))

    crit = details["critical_cells"]
    check([len(c) for c in crit] == out["critical_cells"], f"{tag}: critical cells")
    nv = n[0] * n[1] * n[2]
    ntop = (n[0] - 1) * (n[1] - 1) * ((n[2] - 1) if d == 3 else 1)
    asc, desc, cells = (details["DescendingManifold"], details["AscendingManifold"],
                        details["CellAscendingManifold"])
    maxima = details["maxima"]
    check(len(asc) == nv and len(desc) == nv and len(cells) == ntop, f"{tag}: sizes")
    check(all(0 <= l < len(crit[0]) for l in asc), f"{tag}: ascending labels in range")
    check(all(0 <= l < len(maxima) for l in desc + cells), f"{tag}: descending in range")
    check(maxima[:len(crit[d])] == crit[d], f"{tag}: maxima start with critical cells")
    check(len(maxima) - len(crit[d]) == details["boundary_maxima"] == out["boundary_maxima"],
          f"{tag}: boundary maxima")
    for k, m in enumerate(crit[0]):
        x, y, z = coords(m)
        check(asc[x // 2 + n[0] * (y // 2 + n[1] * (z // 2))] == k,
              f"{tag}: minimum {m} labels its vertex")
    for k, m in enumerate(crit[d]):
        x, y, z = coords(m)
        t = x // 2 + (n[0] - 1) * (y // 2 + (n[1] - 1) * (z // 2))
        check(cells[t] == k, f"{tag}: maximum {m} labels its cell")
    for key, saddles, ends, json_key in (
            ("saddle1_minimum", crit[1], set(crit[0]), "saddle1_minimum"),
            ("saddle_maximum", crit[d - 1], set(maxima), "saddle2_maximum")):
        arcs = details[key]
        check(len(arcs) == out["arcs"][json_key], f"{tag}: {key} count")
        total = {}
        for s, e, m in arcs:
            total[s] = total.get(s, 0) + m
            check(e in ends, f"{tag}: {key} arc ({s}, {e}) ends at no extremum")
        for s in saddles:
            c = coords(s)
            boundary = key == "saddle_maximum" and any(
                (c[a] & 1) == 0 and c[a] in (0, R[a] - 1) for a in range(d))
            check(total.get(s) == (1 if boundary else 2),
                  f"{tag}: {key} saddle {s} has multiplicity {total.get(s)}")
        check(set(total) == set(saddles), f"{tag}: {key} arcs start at saddles")
    check(out["unlabelled_vertices"] == {"ascending": 0, "descending": 0}
          and out["unlabelled_voxels"] == 0, f"{tag}: unlabelled {out['unlabelled_vertices']}")
    # Saddle-saddle arcs (3D): between a critical edge and a critical quad, at least one
    # V-path each, counts and multiplicity sum as in the JSON; none in 2D. (Their exact
    # multiplicities are checked against a brute-force V-path count in the unit tests.)
    links = details["saddle1_saddle2"]
    check(len(links) == out["arcs"]["saddle1_saddle2"], f"{tag}: saddle1_saddle2 count")
    check(sum(m for _, _, m in links) == out["arcs"]["saddle1_saddle2_multiplicity_sum"],
          f"{tag}: saddle1_saddle2 multiplicity sum")
    check(all(a in set(crit[1]) and b in set(crit[2]) and m >= 1 for a, b, m in links),
          f"{tag}: saddle1_saddle2 arcs join a 1-saddle and a 2-saddle")
    check(len(set((a, b) for a, b, _ in links)) == len(links), f"{tag}: pairs listed once")
    if d == 2:
        check(not links, f"{tag}: no saddle-saddle arcs in 2D")


with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(3)
    for dims in ((7, 6, 5), (9, 8, 1), (1, 6, 9), (4, 4, 4)):
        for dtype, name in ((np.float32, "float32"), (np.uint8, "uint8")):
            values = (rng.random(int(np.prod(dims))) * (4 if dtype == np.uint8 else 1))
            path = os.path.join(tmp, "f.raw")
            values.astype(dtype).tofile(path)
            det = os.path.join(tmp, "details.json")
            out = msc(path, dims, name, "--details", det)
            if out is None:
                continue
            tag = f"{name} {dims}"
            check(out["critical_cells"] == gradient_counts(path, dims, name),
                  f"{tag}: msc and discrete-gradient disagree")
            with open(det) as f:
                check_details(tag, out, json.load(f))
    # A ramp: one minimum, no critical top cell; every path leaves the box and ends at
    # one boundary maximum.
    z, y, x = np.meshgrid(np.arange(5), np.arange(6), np.arange(7), indexing="ij")
    path = os.path.join(tmp, "ramp.raw")
    (x + 2 * y + 3 * z).astype(np.int16).tofile(path)
    out = msc(path, (7, 6, 5), "int16")
    if out:
        check(out["critical_cells"] == [1, 0, 0, 0] and out["boundary_maxima"] == 1,
              f"ramp: {out['critical_cells']}, {out['boundary_maxima']} boundary maxima")
    # Bad input: an unwritable details file, NaN.
    bad = topogpu("msc", "--raw", path, "--dims", "7,6,5", "--type", "int16", "--complex",
                  "cubical", "--details", os.path.join(tmp, "no", "such", "dir.json"))
    check(bad.returncode == 1 and "details file" in bad.stderr,
          f"unwritable --details: rc {bad.returncode}, {bad.stderr[-200:]}")
    nan = np.zeros(210, np.float32)
    nan[11] = np.nan
    nan.tofile(os.path.join(tmp, "nan.raw"))
    bad = topogpu("msc", "--raw", os.path.join(tmp, "nan.raw"), "--dims", "7,6,5",
                  "--type", "float32", "--complex", "cubical")
    check(bad.returncode == 1 and "vertex 11" in bad.stderr, f"NaN: {bad.stderr[-200:]}")

    # Every --type: the complex depends on the vertex order only, so a strictly
    # increasing map of int32 ranks (with ties) to each type gives the identical
    # --details; the 64-bit ones sit where consecutive values are one apart beyond 2^53
    # (equal as doubles). uint64 and int64 also at their extremes.
    dims = (6, 5, 4)
    ranks = rng.permutation(np.arange(120) % 9).astype(np.int64)

    def details_of(values, type_name):
        raw = os.path.join(tmp, "typed.raw")
        values.tofile(raw)
        det = os.path.join(tmp, "typed.json")
        if msc(raw, dims, type_name, "--details", det, "--backend", "cpu") is None:
            return None
        with open(det) as f:
            return json.load(f)

    reference = details_of(ranks.astype(np.int32), "int32")
    typed_fields = [
        ("int8", (ranks - 100).astype(np.int8)), ("uint8", (ranks + 5).astype(np.uint8)),
        ("int16", (ranks * 300 - 20000).astype(np.int16)),
        ("uint16", (ranks * 1000 + 1).astype(np.uint16)),
        ("uint32", (ranks * 1000000 + 3000000000).astype(np.uint32)),
        ("int64", np.int64(-2 ** 62) + ranks),
        ("int64", np.int64(np.iinfo(np.int64).min) + ranks),
        ("uint64", np.uint64(2 ** 63) + ranks.astype(np.uint64)),
        ("uint64", np.uint64(np.iinfo(np.uint64).max) - np.uint64(8) + ranks.astype(np.uint64)),
        ("float32", (ranks * 0.5 - 3).astype(np.float32)),
        ("float64", ranks * 1e-3 + 1e10)]
    for type_name, values in typed_fields:
        assert values.dtype == np.dtype(type_name)
        got = details_of(values, type_name)
        check(reference is not None and got == reference,
              f"{type_name} from {values.min()}: --details differ from the int32 ranks'")
    # A constant field (the extremes of uint64 and int64): by the index tie-break the
    # ramp x + nx*y + nx*ny*z: one minimum, no other critical cell, one boundary maximum.
    for type_name, value in (("uint64", np.iinfo(np.uint64).max),
                             ("int64", np.iinfo(np.int64).min), ("float32", -0.0)):
        path = os.path.join(tmp, "constant.raw")
        np.full(7 * 6 * 5, value, dtype=type_name).tofile(path)
        out = msc(path, (7, 6, 5), type_name)
        if out:
            check(out["critical_cells"] == [1, 0, 0, 0] and out["boundary_maxima"] == 1
                  and out["arcs"]["saddle1_minimum"] == 0
                  and out["unlabelled_vertices"] == {"ascending": 0, "descending": 0},
                  f"constant {type_name}: {out['critical_cells']}")

    # Bad input: each a clear error naming the problem, exit code 1, nothing on stdout
    # but the JSON error object.
    inf = np.zeros(210, np.float32)
    inf[200] = np.inf
    inf.tofile(os.path.join(tmp, "inf.raw"))
    (-inf).tofile(os.path.join(tmp, "ninf.raw"))
    np.zeros(209, np.float32).tofile(os.path.join(tmp, "short.raw"))
    np.zeros(211, np.float32).tofile(os.path.join(tmp, "long.raw"))
    open(os.path.join(tmp, "empty.raw"), "wb").close()
    np.arange(10, dtype=np.float32).tofile(os.path.join(tmp, "line.raw"))
    bad_cases = [
        ("inf.raw", "7,6,5", "float32", "vertex 200"),
        ("ninf.raw", "7,6,5", "float32", "vertex 200"),
        ("short.raw", "7,6,5", "float32", "has 836 bytes but 7x6x5 float32 needs 840"),
        ("long.raw", "7,6,5", "float32", "has 844 bytes but 7x6x5 float32 needs 840"),
        ("empty.raw", "7,6,5", "uint8", "has 0 bytes"),
        ("line.raw", "10,1,1", "float32", "2D or 3D grid"),
        ("line.raw", "1,10,1", "float32", "2D or 3D grid"),
        ("line.raw", "1,1,10", "float32", "2D or 3D grid"),
        ("empty.raw", "2097152,2097152,2097152", "float32", "overflows"),
        ("empty.raw", "4294967296,4294967296,2", "uint8", "overflows"),
        ("empty.raw", "0,4,4", "uint8", "positive integers"),
        ("line.raw", "5,2", "float16", "unknown scalar type 'float16'"),
        ("no_such.raw", "5,2", "float32", "cannot open raw volume"),
    ]
    for name, dims_text, type_name, fragment in bad_cases:
        bad = topogpu("msc", "--raw", os.path.join(tmp, name), "--dims", dims_text, "--type",
                      type_name, "--complex", "cubical", "--json")
        ok = bad.returncode == 1 and fragment in bad.stderr
        if ok:
            reply = json.loads(bad.stdout)
            ok = fragment in reply.get("error", "") and "critical_cells" not in reply
        check(ok, f"{name} --dims {dims_text} --type {type_name}: rc {bad.returncode}, "
                  f"{bad.stderr[-200:]!r}, stdout {bad.stdout[-200:]!r}")
    # n x m x 1 (and 1 x n x m) is 2D and works.
    for dims_text in ("5,2,1", "1,5,2", "2,5"):
        out = topogpu("msc", "--raw", os.path.join(tmp, "line.raw"), "--dims", dims_text,
                      "--type", "float32", "--complex", "cubical", "--json")
        check(out.returncode == 0 and json.loads(out.stdout)["dimension"] == 2,
              f"--dims {dims_text}: rc {out.returncode} {out.stderr[-200:]}")

# Real volumes: every vertex and voxel labelled, Euler (skipped without the data).
volumes = os.path.join(DATA, "volumes")
for name, dims in (("fuel_64x64x64_uint8.raw", (64, 64, 64)),
                   ("silicium_98x34x34_uint8.raw", (98, 34, 34))):
    path = os.path.join(volumes, name)
    if not os.path.exists(path):
        print("skipped (no data):", path)
        continue
    out = msc(path, dims, "uint8", "--backend", "cpu")
    if out:
        c = out["critical_cells"]
        check(c[0] - c[1] + c[2] - c[3] == 1, f"{name}: Euler {c}")
        check(out["unlabelled_vertices"] == {"ascending": 0, "descending": 0}
              and out["unlabelled_voxels"] == 0, f"{name}: unlabelled")

cli_helpers.finish()
