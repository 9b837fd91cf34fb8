"""`topogpu persistence` (the Discrete Morse Sandwich on the simplicial complex, TTK's
PersistenceDiagram) against oracles written without the project's code
(tests/oracles/simplicial_persistence.py):

  * GUDHI's lower-star persistence of the same simplices (TTK's Freudenthal split of the
    grid, or the mesh's cells): the multisets of finite pairs (dimension, birth, death)
    with death > birth, and of essential classes (dimension, birth), must be equal;
  * in 3D the pairs from the boundary expansion (the default) and from the saddle
    connections (--saddle-connections) must be the same rows;
  * on the smallest cases a brute-force Z/2 reduction of the whole complex in the
    lexicographic order: the pairs (dimension, birth vertex, death vertex) whose two
    vertices differ, and the essential classes by vertex, must be equal.

Cases: 2D and 3D grids (random float32, tie-heavy uint8 with 2-4 levels, smooth), tet
meshes with a tunnel and with a cavity (essential 1- and 2-cycles), an annulus, a closed torus surface (essential classes of
dimensions 0, 1, 1, 2), two shared volumes (m4_density, bucky); the cubical complex's
diagram file against the CLI's own cubical pairs (msc --persistence-pairs, checked
against GUDHI's cubical persistence by test_msc_persistence.py); the files' format; bad
input.

    python3 test_persistence.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import collections
import csv
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import cli_helpers  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402
from cli_helpers import check, np  # noqa: E402
from mesh_cases import TYPES, torus, write_vtk  # noqa: E402

try:
    import gudhi  # noqa: F401
except ImportError:
    print("SKIP: gudhi is not available to this python")
    sys.exit(77)

TOPOGPU, DATA = cli_helpers.arguments()


def read_diagram(path):
    with open(path) as f:
        return [{k: float(v) if k in ("Birth", "Death", "Persistence") else int(v)
                 for k, v in row.items()} for row in csv.DictReader(f)]


def run(tmp, name, domain, *extra):
    out = os.path.join(tmp, name + ".csv")
    backend = () if "--backend" in extra else ("--backend", "cpu")
    result = cli_helpers.topogpu("persistence", *domain, *backend, "--out", out, *extra,
                                 timeout=300, memory=None)
    if result.returncode != 0:
        check(False, f"{name}: rc {result.returncode}: {result.stderr.strip()[-300:]}")
        return None
    return read_diagram(out)


def compare_gudhi(name, rows, tops, values):
    finite, essential = oracle.gudhi_diagram(tops, values)
    ours = collections.Counter((r["PairType"], r["Birth"], r["Death"]) for r in rows
                               if r["IsFinite"] and r["Death"] > r["Birth"])
    theirs = collections.Counter(finite)
    check(ours == theirs, f"{name}: finite pairs differ from GUDHI: ours-theirs "
          f"{list((ours - theirs).items())[:5]} theirs-ours {list((theirs - ours).items())[:5]}")
    ours_e = collections.Counter((r["PairType"], r["Birth"]) for r in rows if not r["IsFinite"])
    check(ours_e == collections.Counter(essential),
          f"{name}: essential classes {sorted(ours_e)} != GUDHI's {sorted(essential)}")


def ttk_conventions(name, rows, values, dimension):
    """TTK 1.2's PersistenceDiagram (DMS backend) labels: CriticalType of both ends per
    PairType and finiteness, values read at ttkVertexScalarField, essential pairs dying at
    the global maximum."""
    values = np.asarray(values, dtype=np.float64)
    top = int(oracle.vertex_ranks(values).argmax())
    for r in rows:
        t, finite = r["PairType"], r["IsFinite"] == 1
        if t == 0:
            expect = (0, 1 if finite else 3)
        elif t == 1:
            expect = (1, 2) if dimension == 3 and finite else (1, 3) if dimension == 3 else (2, 3)
        else:
            expect = (2 if finite or dimension == 3 else 3, 3)
        ok = ((r["BirthCriticalType"], r["DeathCriticalType"]) == expect
              and r["Birth"] == values[r["BirthVertex"]] and r["Death"] == values[r["DeathVertex"]]
              and (finite or r["DeathVertex"] == top))
        if not ok:
            check(False, f"{name}: row {r} breaks TTK's conventions (types {expect})")
            return
    check(True, "")


def compare_brute(name, rows, tops, values):
    pairs, essential = oracle.brute_force_pairs(tops, values)
    theirs = collections.Counter(p for p in pairs if p[1] != p[2])
    ours = collections.Counter((r["PairType"], r["BirthVertex"], r["DeathVertex"])
                               for r in rows if r["IsFinite"]
                               and r["BirthVertex"] != r["DeathVertex"])
    check(ours == theirs, f"{name}: vertex pairs differ from the reduction: ours-theirs "
          f"{list((ours - theirs).items())[:5]} theirs-ours {list((theirs - ours).items())[:5]}")
    ours_e = collections.Counter((r["PairType"], r["BirthVertex"]) for r in rows
                                 if not r["IsFinite"])
    check(ours_e == collections.Counter(essential),
          f"{name}: essential {sorted(ours_e)} != the reduction's {sorted(essential)}")


def grid_case(tmp, name, values, brute):
    nz, ny, nx = values.shape
    path = cli_helpers.raw_case(tmp, name, values, values.dtype)
    rows = run(tmp, name, ("--raw", path, "--dims", f"{nx},{ny},{nz}", "--type",
                           TYPES[values.dtype.type]))
    if rows is None:
        return
    tops = oracle.grid_simplices(nx, ny, nz)
    flat = values.ravel()
    ttk_conventions(name, rows, flat, 3 if nz > 1 else 2)
    compare_gudhi(name, rows, tops, flat)
    if brute:
        compare_brute(name, rows, tops, flat)
    # the diagram's own invariants: TTK's order (birth vertex rank), persistence
    if nz > 1:
        # the (1-saddle, 2-saddle) pairs from the saddle connections: the same rows
        other = run(tmp, name + "_connections", ("--raw", path, "--dims", f"{nx},{ny},{nz}",
                                                 "--type", TYPES[values.dtype.type]),
                    "--saddle-connections")
        check(other == rows, f"{name}: --saddle-connections gives other rows")
    rank = oracle.vertex_ranks(flat)
    births = [rank[r["BirthVertex"]] for r in rows]
    check(births == sorted(births), f"{name}: rows not sorted by the birth vertex's order")
    check(all(math.isclose(r["Persistence"], r["Death"] - r["Birth"]) for r in rows),
          f"{name}: Persistence != Death - Birth")


def mesh_case(tmp, name, points, cells, values, brute=True):
    path = os.path.join(tmp, name + ".vtk")
    write_vtk(path, points, cells, values)
    rows = run(tmp, name, ("--mesh", path, "--array", "f"))
    if rows is None:
        return
    compare_gudhi(name, rows, cells, values)
    ttk_conventions(name, rows, values, len(cells[0]) - 1)
    if brute:
        compare_brute(name, rows, cells, values)


rng = np.random.default_rng(22)
with tempfile.TemporaryDirectory() as tmp:
    # ---- grids: GUDHI everywhere, the brute-force reduction on the smallest ----------
    grid_case(tmp, "random2d", rng.random((7, 9)).astype(np.float32)[None], True)
    grid_case(tmp, "ties2d", rng.integers(0, 3, (8, 7)).astype(np.uint8)[None], True)
    y, x = np.mgrid[0:12, 0:13]
    grid_case(tmp, "smooth2d", (np.sin(x / 2.0) * np.cos(y / 3.0)).astype(np.float32)[None],
              False)
    grid_case(tmp, "random3d", rng.random((5, 4, 6)).astype(np.float32), True)
    grid_case(tmp, "ties3d", rng.integers(0, 2, (4, 5, 4)).astype(np.uint8), True)
    grid_case(tmp, "int16_3d", rng.integers(-50, 50, (5, 5, 4)).astype(np.int16), True)
    grid_case(tmp, "random3d_large", rng.random((10, 12, 11)).astype(np.float32), False)
    grid_case(tmp, "ties3d_large", rng.integers(0, 4, (14, 13, 12)).astype(np.uint8), False)
    z, y, x = np.mgrid[0:12, 0:11, 0:10]
    grid_case(tmp, "smooth3d",
              (np.sin(x / 2.0) * np.cos(y / 2.5) + np.sin(z / 3.0)).astype(np.float32), False)

    # ---- one diagram whatever the triangulation backend or the complex's device ---------
    values = rng.integers(0, 5, (6, 7, 5)).astype(np.uint8)
    path = cli_helpers.raw_case(tmp, "backends", values, np.uint8)
    grid = ("--raw", path, "--dims", "5,7,6", "--type", "uint8")
    keys = ("PairType", "IsFinite", "Birth", "Death", "BirthVertex", "DeathVertex",
            "BirthCriticalType", "DeathCriticalType")
    reference = run(tmp, "implicit", grid)
    for name, extra in (("explicit", ("--triangulation", "explicit")),
                        ("gale-cpu", ("--triangulation", "gale-cpu", "--segment-size", "16")),
                        ("gpu", ("--backend", "gpu"))):
        rows = run(tmp, name, grid, *extra)
        if rows is not None and reference is not None:
            check([tuple(r[k] for k in keys) for r in rows] ==
                  [tuple(r[k] for k in keys) for r in reference],
                  f"{name}: diagram differs from the implicit grid's")

    # ---- meshes ------------------------------------------------------------------------
    nx, ny, nz = 5, 5, 4
    pts = [(x, y, z) for z in range(nz) for y in range(ny) for x in range(nx)]
    tets = oracle.grid_simplices(nx, ny, nz)
    # a tunnel along z through the middle voxel column: one essential 1-cycle
    tunnel = [t for t in tets if not all(
        1 <= pts[v][0] <= 2 and 1 <= pts[v][1] <= 2 for v in t)]
    used = sorted({v for t in tunnel for v in t})
    remap = {v: i for i, v in enumerate(used)}
    tunnel = [tuple(remap[v] for v in t) for t in tunnel]
    mesh_case(tmp, "tets_tunnel", [pts[v] for v in used], tunnel, rng.random(len(used)))
    # a cavity: the tets of one inner voxel removed (one essential 2-cycle, an unpaired
    # 2-saddle: both its sides reach the boundary)
    n4 = 5
    pts4 = [(x, y, z) for z in range(n4) for y in range(n4) for x in range(n4)]
    cavity = [t for t in oracle.grid_simplices(n4, n4, n4)
              if not all(2 <= c <= 3 for v in t for c in pts4[v])]
    mesh_case(tmp, "tets_cavity", pts4, cavity, rng.random(len(pts4)), brute=False)
    # an annulus of triangles (an essential 1-cycle around the hole)
    pts2 = [(x, y, 0) for y in range(6) for x in range(6)]
    ring = [t for t in oracle.grid_simplices(6, 6, 1)
            if not all(2 <= pts2[v][0] <= 3 and 2 <= pts2[v][1] <= 3 for v in t)]
    mesh_case(tmp, "annulus", pts2, ring, rng.random(len(pts2)))
    points, triangles = torus(9, 7)
    mesh_case(tmp, "torus", points, triangles, rng.random(len(points)))
    mesh_case(tmp, "torus_ties", points, triangles, rng.integers(0, 3, len(points)))

    # ---- shared volumes ---------------------------------------------------------------
    for name, dims, dtype in (("m4_density_25x22x31_float32.raw", (25, 22, 31), np.float32),
                              ("bucky_32x32x32_uint8.raw", (32, 32, 32), np.uint8)):
        path = os.path.join(DATA, "volumes", name)
        if not os.path.exists(path):
            print(f"skip {name}: missing")
            continue
        values = np.fromfile(path, dtype=dtype)
        rows = run(tmp, name, ("--raw", path, "--dims", ",".join(map(str, dims)), "--type",
                               TYPES[dtype]))
        if rows is not None:
            compare_gudhi(name, rows, oracle.grid_simplices(*dims), values)

    # ---- the cubical complex: the same pairs as msc --persistence-pairs ------------------
    values = rng.random((6, 5, 7)).astype(np.float32)
    path = cli_helpers.raw_case(tmp, "cubical", values, np.float32)
    domain = ("--raw", path, "--dims", "7,5,6", "--type", "float32", "--complex", "cubical")
    rows = run(tmp, "cubical", domain)
    msc = cli_helpers.topogpu("msc", *domain, "--backend", "cpu", "--persistence-pairs",
                              "--json")
    if rows is not None and msc.returncode == 0:
        pairs = json.loads(msc.stdout)["persistence_pairs"]["pairs"]
        # the msc JSON's values have float32's 9 digits: compare as float32
        f32 = lambda x: float(np.float32(x))  # noqa: E731
        theirs = collections.Counter((p[0], f32(p[5]), f32(p[6])) for p in pairs
                                     if p[6] > p[5])
        ours = collections.Counter((r["PairType"], f32(r["Birth"]), f32(r["Death"]))
                                   for r in rows if r["IsFinite"] and r["Death"] > r["Birth"])
        check(ours == theirs, f"cubical: diagram {sorted(ours)} != msc's pairs {sorted(theirs)}")
        check(sum(1 for r in rows if not r["IsFinite"]) == 1, "cubical: one essential class")

    # ---- the curve and the JSON ------------------------------------------------------------
    values = rng.random((6, 6, 5)).astype(np.float32)
    path = cli_helpers.raw_case(tmp, "curve", values, np.float32)
    curve = os.path.join(tmp, "curve.csv")
    result = cli_helpers.topogpu("persistence", "--raw", path, "--dims", "5,6,6", "--type",
                                 "float32", "--curve", curve, "--json", "--out",
                                 os.path.join(tmp, "curve_diagram.csv"))
    if result.returncode == 0:
        out = json.loads(result.stdout)
        rows = read_diagram(os.path.join(tmp, "curve_diagram.csv"))
        check(len(out["pairs"]) == len(rows), "JSON pairs != diagram rows")
        check(any(t.startswith("pairing") for t in out["timings"]), f"no pairing stage: {out['timings']}")
        # Every saddle-saddle pair (counted from the diagram's rows) was settled by the
        # expansion's rounds or its serial part.
        x = out.get("boundary_expansion", {})
        saddle_saddle = sum(1 for r in rows if r["IsFinite"] and r["PairType"] == 1)
        check(x and x["settled_in_rounds"] <= saddle_saddle
              <= x["settled_in_rounds"] + x["serial_saddles"] and x["rounds"] >= 1,
              f"boundary expansion {x} against {saddle_saddle} saddle-saddle pairs")
        with open(curve) as f:
            points = [(int(r["PairType"]), float(r["Persistence"]), int(r["NumberOfPairs"]))
                      for r in csv.DictReader(f)]
        for t in (0, 1, 2, -1):
            mine = sorted(r["Persistence"] for r in rows if r["IsFinite"]
                          and (t == -1 or r["PairType"] == t))
            expect = [(t, p, len(mine) - i) for i, p in enumerate(mine)]
            check([p for p in points if p[0] == t] == expect, f"curve of type {t}")
    else:
        check(False, f"curve run: {result.stderr[-300:]}")

    # ---- the .vtu diagram (VTK builds): TTK's layout, 2 points per pair + the diagonal ----
    info = cli_helpers.topogpu("info", "--json")
    if info.returncode == 0 and json.loads(info.stdout).get("vtk_build"):
        vtu = os.path.join(tmp, "diagram.vtu")
        result = cli_helpers.topogpu("persistence", "--raw", path, "--dims", "5,6,6", "--type",
                                     "float32", "--backend", "cpu", "--out", vtu)
        rows = read_diagram(os.path.join(tmp, "curve_diagram.csv"))
        text = open(vtu, errors="replace").read() if result.returncode == 0 else ""
        names = re.findall(r'Name="([A-Za-z]+)"', text)
        check(f'NumberOfPoints="{2 * len(rows) + 2}"' in text
              and f'NumberOfCells="{len(rows) + 1}"' in text
              and all(n in names for n in ("ttkVertexScalarField", "CriticalType", "Coordinates",
                                           "PairIdentifier", "PairType", "Persistence",
                                           "Birth", "Death", "IsFinite")),
              f".vtu diagram: rc {result.returncode}, arrays {names}")

    # ---- bad input ---------------------------------------------------------------------
    nan = cli_helpers.raw_case(tmp, "nan", [0, 1, float("nan"), 3, 4, 5, 6, 7], np.float32)
    cli_helpers.expect_error("NaN", ["persistence", "--raw", nan, "--dims", "2,2,2", "--type",
                                     "float32"], "NaN")
    flat = cli_helpers.raw_case(tmp, "flat", np.zeros(27), np.float32)
    flat_rows = run(tmp, "flat", ("--raw", flat, "--dims", "3,3,3", "--type", "float32"))
    check(flat_rows is not None and len(flat_rows) == 1 and flat_rows[0]["IsFinite"] == 0
          and flat_rows[0]["Persistence"] == 0, f"constant field: {flat_rows}")
    book = os.path.join(tmp, "book.vtk")  # three triangles on one edge: not a manifold
    write_vtk(book, [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1)],
              [(0, 1, 2), (0, 1, 3), (0, 1, 4)], [0.0, 1.0, 2.0, 3.0, 4.0])
    cli_helpers.expect_error("non-manifold", ["persistence", "--mesh", book, "--array", "f"],
                             "manifold")
    one = cli_helpers.raw_case(tmp, "one", [1.0], np.float32)
    cli_helpers.expect_error("1 vertex", ["persistence", "--raw", one, "--dims", "1,1,1",
                                          "--type", "float32"], "2D or 3D")
cli_helpers.finish()
