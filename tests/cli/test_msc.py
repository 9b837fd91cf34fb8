"""End-to-end tests of `topogpu msc` (Morse-Smale complex, stage 2): the JSON contract,
the --details file against properties computed here from refined-grid coordinates (each
saddle's arcs are its V-paths: multiplicities sum to 2, or 1 for a boundary saddle of
the top dimension; arc ends are minima / listed maxima; every minimum labels its own
vertex; every critical top-cell maximum labels its own cell), the counts agreeing with
`topogpu discrete-gradient`, no unlabelled vertex or cell on real volumes (where TTK
leaves 26-80% unlabelled), a ramp's single boundary maximum, and bad input.

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
                     type_name, "--json", *extra)
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
                     ",".join(map(str, dims)), "--type", type_name, "--json")
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
    asc, desc, cells = (details["AscendingManifold"], details["DescendingManifold"],
                        details["CellDescendingManifold"])
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
    bad = topogpu("msc", "--raw", path, "--dims", "7,6,5", "--type", "int16", "--details",
                  os.path.join(tmp, "no", "such", "dir.json"))
    check(bad.returncode == 1 and "details file" in bad.stderr,
          f"unwritable --details: rc {bad.returncode}, {bad.stderr[-200:]}")
    nan = np.zeros(210, np.float32)
    nan[11] = np.nan
    nan.tofile(os.path.join(tmp, "nan.raw"))
    bad = topogpu("msc", "--raw", os.path.join(tmp, "nan.raw"), "--dims", "7,6,5",
                  "--type", "float32")
    check(bad.returncode == 1 and "vertex 11" in bad.stderr, f"NaN: {bad.stderr[-200:]}")

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
