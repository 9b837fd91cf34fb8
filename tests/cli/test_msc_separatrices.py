"""`topogpu msc --separatrices-out FILE` (docs/cli.md, "Separatrices file"), both complexes:
  * the file's separatrices are valid, checked here from the input field and the input's
    cells built independently (TTK's Freudenthal split, tests/oracles/freudenthal.py, for
    the simplicial complex; the grid's boxes for the cubical one), each point located by
    its position (a cell's barycentre): the file holds TTK's line cells (two points per
    V-path step, a separatrix's lines consecutive and chained, its cell data on each:
    tests/pvpython/separatrix_lines.py), each separatrix runs from a saddle to an
    extremum of the right dimension for its SeparatrixType, consecutive cells are face and coface (or,
    on the boundary part of an ascending path, boundary facets sharing a vertex), the
    values (a cell's: the largest of its vertices') are monotone along it, its ends are
    marked (ttkMaskScalarField 0) and SeparatrixFunctionMaximum/Minimum/Difference are
    its ends' values;
  * on shared volumes with --complex simplicial, the separatrix counts (distinct
    SeparatrixIds) equal TTK 1.2's reference counts (ttk-reference/volumes.json, msc_separatrices1: descending, ascending without
    the paths that leave through the boundary, saddle connectors);
  * a file that cannot be written is an error naming it.
"""
import itertools
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_helpers  # noqa: E402
from cli_helpers import check, expect_error, np, topogpu  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
from freudenthal import freudenthal_tets  # noqa: E402
import separatrix_lines  # noqa: E402  (tests/pvpython, on the path through cli_helpers)

TOPOGPU, DATA = cli_helpers.arguments()


def separatrices(tmp, raw, dims, dtype, complex_):
    path = os.path.join(tmp, "separatrices.json")
    r = topogpu("msc", "--raw", raw, "--dims", ",".join(map(str, dims)), "--type", dtype,
                "--complex", complex_, "--separatrices-out", path, "--json", timeout=240,
                memory=None)
    if r.returncode != 0:
        check(False, f"{raw} {complex_}: rc {r.returncode}: {r.stderr[-300:]}")
        return None
    with open(path) as f:
        sep = json.load(f)
    n = sep["count"]
    check(len(sep["connectivity"]) == 2 * n
          and len(sep["points"]) == 3 * len(sep["point_data"]["CellId"])
          and all(len(v) == n for v in sep["cell_data"].values()),
          f"{raw} {complex_}: inconsistent file")
    # TTK's line cells, one per step, chained per SeparatrixId: one path per separatrix
    cd = sep["cell_data"]
    sep["paths"] = separatrix_lines.paths(sep["connectivity"], cd["SeparatrixId"],
                                          list(cd.values()))
    check(len(sep["paths"]) == sep["separatrices"], f"{raw} {complex_}: separatrix count")
    return sep


def simplex_table(dims):
    """Every simplex of TTK's split of the grid, keyed by its barycentre (times 12, exact
    integers): key -> sorted vertex ids."""
    nx, ny, nz = dims
    tets = np.asarray(freudenthal_tets(nx, ny, nz), dtype=np.int64)
    v = np.arange(nx * ny * nz)
    xyz = np.stack([v % nx, (v // nx) % ny, v // (nx * ny)], axis=1)
    table = {}
    for k in range(1, 5):
        faces = np.unique(np.sort(np.concatenate(
            [tets[:, list(c)] for c in itertools.combinations(range(4), k)]), axis=1), axis=0)
        keys = xyz[faces].sum(axis=1) * (12 // k)
        table.update(zip(map(tuple, keys.tolist()), map(tuple, faces.tolist())))
    return table


def simplicial_cell(table):
    return lambda p: table[tuple(int(round(12 * x)) for x in p)]


def cubical_cell(dims):
    """A cubical cell: the grid vertices of the box around its centre."""
    nx, ny, _ = dims

    def cell(p):
        lo, hi = np.floor(p).astype(int), np.ceil(p).astype(int)
        return tuple(sorted(x + nx * (y + ny * z)
                            for z in range(lo[2], hi[2] + 1)
                            for y in range(lo[1], hi[1] + 1)
                            for x in range(lo[0], hi[0] + 1)))
    return cell


def dimension_of(cell, complex_):
    n = len(cell)
    return n - 1 if complex_ == "simplicial" else {1: 0, 2: 1, 4: 2, 8: 3}[n]


def validate(label, sep, values, cell_of, complex_):
    d = sep["dimension"]
    pts = np.asarray(sep["points"]).reshape(-1, 3)
    pdim = sep["point_data"]["CellDimension"]
    mask = sep["point_data"]["ttkMaskScalarField"]
    cd = sep["cell_data"]
    bad = []
    for i, ids in sep["paths"]:
        cells = [cell_of(pts[j]) for j in ids]
        dims = [dimension_of(c, complex_) for c in cells]
        vals = [max(values[list(c)]) for c in cells]
        t = cd["SeparatrixType"][i]
        ok = dims == [pdim[j] for j in ids] and len(ids) >= 2
        ok = ok and mask[ids[0]] == 0 and mask[ids[-1]] == 0 and all(mask[j] == 1
                                                                      for j in ids[1:-1])
        if t == 0:
            ok = ok and dims[0] == 1 and dims[-1] == 0
        elif t == d - 1:
            ok = ok and dims[0] == d - 1 and dims[-1] in (d, d - 1)
        else:
            ok = ok and t == 1 and d == 3 and dims[0] == 2 and dims[-1] == 1
        for a, b, da, db in zip(cells, cells[1:], dims, dims[1:]):
            if abs(da - db) == 1:
                small, large = (a, b) if da < db else (b, a)
                ok = ok and set(small) <= set(large)
            else:  # the boundary part of an ascending path: facets sharing a vertex
                ok = ok and t == d - 1 and da == db == d - 1 and bool(set(a) & set(b))
        steps = np.diff(vals)
        ok = ok and bool(np.all(steps >= 0) if t == d - 1 else np.all(steps <= 0))
        hi, lo = max(vals[0], vals[-1]), min(vals[0], vals[-1])
        ok = ok and cd["SeparatrixFunctionMaximum"][i] == hi and \
            cd["SeparatrixFunctionMinimum"][i] == lo and \
            cd["SeparatrixFunctionDifference"][i] == hi - lo
        if not ok:
            bad.append((i, t, dims, vals))
    check(sep["paths"] and not bad, f"{label}: {len(bad)} invalid of {len(sep['paths'])}: "
                                    f"{bad[:3]}")


def ttk_counts(sep):
    """TTK 1.2's count: its ascending separatrices end at a critical maximum without
    leaving through the boundary (no boundary facets in a row, not ending at one)."""
    d = sep["dimension"]
    line_types = np.asarray(sep["cell_data"]["SeparatrixType"])
    pdim = np.asarray(sep["point_data"]["CellDimension"])
    types = np.asarray([line_types[i] for i, _ in sep["paths"]])
    ascending = 0
    for i, ids in sep["paths"]:
        dd = pdim[ids]
        ascending += line_types[i] == d - 1 and dd[-1] == d and not np.any(
            (dd[1:] == d - 1) & (dd[:-1] == d - 1))
    return {"descending": int(np.sum(types == 0)), "ascending": int(ascending),
            "saddle_connectors": int(np.sum(types == 1))}


with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(21)
    # ---- validity on fields made here, both complexes --------------------------------------
    for name, dims, dtype, values in (
            ("random", (9, 8, 7), "float32",
             rng.standard_normal(9 * 8 * 7).astype(np.float32)),
            ("ties", (8, 7, 6), "uint8", rng.integers(0, 4, 8 * 7 * 6).astype(np.uint8))):
        raw = cli_helpers.raw_case(tmp, name, values, dtype)
        table = simplex_table(dims)
        for complex_, cell_of in (("simplicial", simplicial_cell(table)),
                                  ("cubical", cubical_cell(dims))):
            sep = separatrices(tmp, raw, dims, dtype, complex_)
            if sep is not None:
                validate(f"{name} {complex_}", sep, values.astype(np.float64), cell_of,
                         complex_)

    # ---- TTK 1.2's counts on shared volumes ------------------------------------------------
    volumes = os.path.join(DATA, "volumes")
    if os.path.isdir(volumes):
        with open(os.path.join(DATA, "ttk-reference", "volumes.json")) as f:
            reference = json.load(f)
        for name in ("bucky_32x32x32_uint8.raw", "m4_density_25x22x31_float32.raw",
                     "silicium_98x34x34_uint8.raw", "fuel_64x64x64_uint8.raw"):
            stem = name[:-len(".raw")]
            size, dtype = stem.split("_")[-2:]
            dims = tuple(int(x) for x in size.split("x"))
            sep = separatrices(tmp, os.path.join(volumes, name), dims, dtype, "simplicial")
            if sep is None:
                continue
            want = reference[name]["msc_separatrices1"]
            got = ttk_counts(sep)
            check(got == want, f"{name}: {got} != TTK 1.2's {want}")
            if name.startswith("m4_density"):
                values = np.fromfile(os.path.join(volumes, name), dtype=np.float32)
                validate(name, sep, values.astype(np.float64),
                         simplicial_cell(simplex_table(dims)), "simplicial")
    else:
        print("no shared volumes: TTK's counts not checked")

    # ---- bad output path -------------------------------------------------------------------
    raw = cli_helpers.raw_case(tmp, "small", rng.standard_normal(27), "float64")
    expect_error("unwritable separatrices file",
                 ["msc", "--raw", raw, "--dims", "3,3,3", "--type", "float64",
                  "--separatrices-out", os.path.join(tmp, "missing", "s.json"), "--json"],
                 "cannot write the separatrices file")

cli_helpers.finish()
