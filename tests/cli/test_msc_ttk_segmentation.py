"""TTK 1.2's segmentation rule in `topogpu msc` (simplicial complex), end to end:
  * the shared volumes: the vertices left unlabelled (-1) in AscendingManifold,
    DescendingManifold and MorseSmaleManifold equal TTK 1.2's
    (ttk-reference/volumes.json, msc_unassigned_vertices) on the 13 volumes that run in
    seconds (TOPOGPU_TTK_SEGMENTATION_ALL_VOLUMES=1 adds the 4 others: minutes);
  * small random and tie-heavy grids, 2D and 3D: every label equals a brute force
    written here from the gradient's pairs (msc --details: each vertex's edge, each top
    cell's facet): TTK's MorseSmaleComplex::setAscendingSegmentation (a cell follows its
    V-path up, -1 when the path leaves through a boundary facet; a vertex takes the
    label of getVertexStar(v, 0), here TTK's implicit triangulation's case table by
    vertex position, with TTK's cell numbering, and the lowest cell id on an explicit
    mesh), setDescendingSegmentation and setFinalSegmentation;
  * --ascending-through-boundary: every vertex labelled, and the critical cells, maxima
    and arcs identical to the default run's (only the labels change).
On a host with a GPU the grids run there (--backend auto), so this also checks the
device's labels; each volume's line names the backend that ran.

    python3 test_msc_ttk_segmentation.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_helpers  # noqa: E402
from cli_helpers import check, np  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()


def msc(args, *extra, timeout=300):
    result = cli_helpers.topogpu("msc", *args, "--complex", "simplicial", "--json", *extra,
                                 timeout=timeout, memory=None)
    if result.returncode != 0:
        check(False, f"{args} {extra}: rc {result.returncode}: {result.stderr[-300:]}")
        return None
    return json.loads(result.stdout)


# ---- TTK's implicit triangulation: cells and getVertexStar(v, 0) -----------------------
# Vertex ids x fastest; voxel (i, j, k) has corners a = (i, j, k), b = (i+1, j, k),
# c = (i, j+1, k), d = (i+1, j+1, k), e..h the same at k+1; TTK's tet 6 * voxel + t with
# t in ABCG, BCDG, ABEG, BEFG, BFGH, BDGH; a pixel's triangles 2 * pixel + t: ABC, BCD.
TETS = ("abcg", "bcdg", "abeg", "befg", "bfgh", "bdgh")
CORNER = {"a": (0, 0, 0), "b": (1, 0, 0), "c": (0, 1, 0), "d": (1, 1, 0),
          "e": (0, 0, 1), "f": (1, 0, 1), "g": (0, 1, 1), "h": (1, 1, 1)}


def ttk_cells(n):
    """TTK's cells as vertex frozensets, by TTK cell id."""
    nx, ny, nz = n
    vid = lambda x, y, z: x + nx * (y + ny * z)  # noqa: E731
    cells = []
    if nz > 1:
        for k in range(nz - 1):
            for j in range(ny - 1):
                for i in range(nx - 1):
                    for t in TETS:
                        cells.append(frozenset(vid(i + CORNER[q][0], j + CORNER[q][1],
                                                   k + CORNER[q][2]) for q in t))
    else:
        for j in range(ny - 1):
            for i in range(nx - 1):
                for t in ("abc", "bcd"):
                    cells.append(frozenset(vid(i + CORNER[q][0], j + CORNER[q][1], 0)
                                           for q in t))
    return cells


def ttk_first_star_cell(n, v):
    """TTK 1.2's ImplicitTriangulation::getVertexStar(v, 0): its position case
    (getVertexStarABCDEFGH, ABDC, ..., A) and that case's local star 0, as TTK's id."""
    nx, ny, nz = n
    x, y, z = v % nx, (v // nx) % ny, v // (nx * ny)
    if nz > 1:
        N = (nx - 1, ny - 1, nz - 1)
        vox = lambda i, j, k: i + N[0] * (j + N[1] * k)  # noqa: E731
        # star 0 of each case: (voxel offset, local tet)
        first = {"abcdefgh": ((-1, 0, 0), 0), "abdc": ((-1, 0, 0), 0),
                 "efhg": ((0, -1, -1), 0), "aefb": ((-1, 0, 0), 0),
                 "ghdc": ((0, -1, -1), 0), "aegc": ((0, -1, -1), 0),
                 "bfhd": ((-1, 0, 0), 0), "ab": ((-1, 0, 0), 0), "cd": ((-1, -1, 0), 1),
                 "ac": ((0, -1, 0), 0), "bd": ((-1, 0, 0), 0), "ef": ((-1, 0, -1), 3),
                 "gh": ((0, -1, -1), 0), "eg": ((0, -1, -1), 0), "fh": ((-1, -1, -1), 4),
                 "ae": ((0, 0, -1), 2), "bf": ((-1, 0, 0), 0), "cg": ((0, -1, -1), 0),
                 "dh": ((-1, -1, -1), 4), "a": ((0, 0, 0), 0), "b": ((-1, 0, 0), 0),
                 "c": ((0, -1, 0), 0), "d": ((-1, -1, 0), 1), "e": ((0, 0, -1), 2),
                 "f": ((-1, 0, -1), 3), "g": ((0, -1, -1), 0), "h": ((-1, -1, -1), 4)}
        inner = lambda p, m: 0 < p < m  # noqa: E731
        # TTK's dispatch: x inside / 0 / N, then y, then z
        if inner(x, N[0]):
            if inner(y, N[1]):
                case = "abcdefgh" if inner(z, N[2]) else "abdc" if z == 0 else "efhg"
            elif y == 0:
                case = "aefb" if inner(z, N[2]) else "ab" if z == 0 else "ef"
            else:
                case = "ghdc" if inner(z, N[2]) else "cd" if z == 0 else "gh"
        elif x == 0:
            if inner(y, N[1]):
                case = "aegc" if inner(z, N[2]) else "ac" if z == 0 else "eg"
            elif y == 0:
                case = "ae" if inner(z, N[2]) else "a" if z == 0 else "e"
            else:
                case = "cg" if inner(z, N[2]) else "c" if z == 0 else "g"
        else:
            if inner(y, N[1]):
                case = "bfhd" if inner(z, N[2]) else "bd" if z == 0 else "fh"
            elif y == 0:
                case = "bf" if inner(z, N[2]) else "b" if z == 0 else "f"
            else:
                case = "dh" if inner(z, N[2]) else "d" if z == 0 else "h"
        (di, dj, dk), t = first[case]
        return 6 * vox(x + di, y + dj, z + dk) + t
    N = (nx - 1, ny - 1)
    pix = lambda i, j: i + N[0] * j  # noqa: E731
    first = {"abcd": ((-1, 0), 0), "ab": ((-1, 0), 0), "cd": ((0, -1), 0),
             "ac": ((0, -1), 0), "bd": ((-1, 0), 0), "a": ((0, 0), 0),
             "b": ((-1, 0), 0), "c": ((0, -1), 0), "d": ((-1, -1), 1)}
    inner = lambda p, m: 0 < p < m  # noqa: E731
    if inner(x, N[0]):
        case = "abcd" if inner(y, N[1]) else "ab" if y == 0 else "cd"
    elif x == 0:
        case = "ac" if inner(y, N[1]) else "a" if y == 0 else "c"
    else:
        case = "bd" if inner(y, N[1]) else "b" if y == 0 else "d"
    (di, dj), t = first[case]
    return 2 * pix(x + di, y + dj) + t


# ---- the brute force -----------------------------------------------------------------
def ttk_segmentation(details, first_star):
    """TTK's three segmentations from the gradient's pairs. first_star(v) is the
    vertex set of v's first star cell (None: no cell). Returns (ascending per vertex,
    ascending per output cell, descending per vertex, morse-smale per vertex), labels as
    the output numbers its extrema (minima: the critical vertices' order; maxima: the
    "maxima" list's)."""
    minima = [c[0] for c in details["critical_cells"][0]]
    maxima = {frozenset(m): i for i, m in enumerate(details["maxima"])}
    cells = [frozenset(c) for c, _ in details["cell_pairs"]]
    paired = {frozenset(c): (None if f is None else frozenset(f))
              for c, f in details["cell_pairs"]}
    cofaces = {}
    for c in cells:
        for u in c:
            cofaces.setdefault(c - {u}, []).append(c)
    cell_label = {}
    for start in cells:
        path, c = [], start
        while True:
            if c in cell_label:
                label = cell_label[c]
                break
            path.append(c)
            facet = paired[c]
            if facet is None:  # critical: a maximum
                label = maxima[c]
                break
            others = [d for d in cofaces[facet] if d != c]
            if not others:  # the path leaves through a boundary facet
                label = -1
                break
            c = others[0]
        for d in path:
            cell_label[d] = label
    nv = len(details["vertex_pairs"])
    ascending = []
    for v in range(nv):
        s = first_star(v)
        ascending.append(-1 if s is None else cell_label[s])
    minimum_index = {m: i for i, m in enumerate(minima)}
    descending = []
    for v in range(nv):
        u = v
        while details["vertex_pairs"][u] is not None:
            a, b = details["vertex_pairs"][u]
            u = b if a == u else a
        descending.append(minimum_index[u])
    n_max = len(details["critical_cells"][details["dimension"]])
    keys = [-1 if a < 0 or d < 0 else d * n_max + a for a, d in zip(ascending, descending)]
    dense = {k: i for i, k in enumerate(sorted(set(keys)))}
    morse_smale = [dense[k] for k in keys]
    return ascending, [cell_label[c] for c in cells], descending, morse_smale


def run_details(path, n, dtype, *extra):
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "details.json")
        out = msc(["--raw", path, "--dims", ",".join(map(str, n)), "--type", dtype],
                  "--details", out_path, *extra)
        if out is None:
            return None, None
        with open(out_path) as f:
            return out, json.load(f)


def check_grid(tag, values, n):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "field.raw")
        values.astype(np.float32).tofile(path)
        out, details = run_details(path, n, "float32")
        if details is None:
            return
        # implicit grid: TTK's implicit triangulation's first star cell; an axis of one
        # point is squeezed out (TTK's 2D grids in the yz or xz plane), which keeps the
        # vertex ids
        squeezed = tuple(k for k in n if k > 1) + (1,) * sum(k == 1 for k in n)
        cells = ttk_cells(squeezed)
        ascending, cell_labels, descending, morse_smale = ttk_segmentation(
            details, lambda v: cells[ttk_first_star_cell(squeezed, v)])
        check(details["AscendingManifold"] == ascending,
              f"{tag}: AscendingManifold differs from TTK's rule at "
              f"{[v for v, (a, b) in enumerate(zip(details['AscendingManifold'], ascending)) if a != b][:8]}")
        check(details["CellAscendingManifold"] == cell_labels,
              f"{tag}: the cells' AscendingManifold differs from TTK's rule")
        check(details["DescendingManifold"] == descending,
              f"{tag}: DescendingManifold differs from TTK's rule")
        check(details["MorseSmaleManifold"] == morse_smale,
              f"{tag}: MorseSmaleManifold differs from TTK's setFinalSegmentation")
        unlabelled = out["unlabelled_vertices"]
        check(unlabelled == {"ascending": ascending.count(-1), "descending": 0,
                             "morse_smale": 0},
              f"{tag}: unlabelled {unlabelled}, the brute force {ascending.count(-1)}")
        # the rule through the boundary: the same complex, every vertex labelled
        wide, wide_details = run_details(path, n, "float32", "--ascending-through-boundary")
        if wide_details is not None:
            for key in ("critical_cells", "maxima", "boundary_maxima", "saddle1_minimum",
                        "saddle_maximum", "saddle1_saddle2", "DescendingManifold"):
                check(wide_details[key] == details[key],
                      f"{tag}: {key} changes with --ascending-through-boundary")
            check(min(wide_details["AscendingManifold"]) >= 0
                  and wide["unlabelled_vertices"]["ascending"] == 0,
                  f"{tag}: --ascending-through-boundary leaves vertices unlabelled")
            check(wide["ascending_segmentation"] == "through-boundary"
                  and out["ascending_segmentation"] == "ttk",
                  f"{tag}: ascending_segmentation {out['ascending_segmentation']}, "
                  f"{wide['ascending_segmentation']}")
        # explicit mesh (the grid's tets copied): TTK's explicit triangulation lists a
        # vertex's star by cell id, so its first star cell is the lowest id holding it
        mesh, mesh_details = run_details(path, n, "float32", "--triangulation", "explicit")
        if mesh_details is not None:
            by_id = [frozenset(c) for c, _ in mesh_details["cell_pairs"]]
            lowest = {}
            for c in by_id:
                for u in c:
                    lowest.setdefault(u, c)
            ascending, cell_labels, descending, _ = ttk_segmentation(mesh_details,
                                                                      lowest.get)
            check(mesh_details["AscendingManifold"] == ascending
                  and mesh_details["CellAscendingManifold"] == cell_labels
                  and mesh_details["DescendingManifold"] == descending,
                  f"{tag} (explicit): labels differ from TTK's rule")


rng = np.random.default_rng(2126)
for n in ((7, 5, 1), (6, 6, 1), (2, 5, 1), (1, 5, 4), (4, 1, 5), (5, 4, 3), (4, 5, 6),
          (3, 3, 3), (6, 2, 4), (2, 2, 2)):
    count = n[0] * n[1] * n[2]
    check_grid(f"{n} random", rng.random(count), n)
    check_grid(f"{n} ties", rng.integers(0, 3, count).astype(float), n)
    # a ramp: no critical top cell, every path leaves
    x = np.arange(count)
    check_grid(f"{n} ramp", (x % n[0]) + 10.0 * ((x // n[0]) % n[1]) + 100.0 * x, n)

# ---- TTK 1.2's unassigned counts on the shared volumes --------------------------------
VOLUMES = os.path.join(DATA, "volumes")
if os.path.isdir(VOLUMES):
    with open(os.path.join(DATA, "ttk-reference", "volumes.json")) as f:
        reference = json.load(f)
    # the volumes up to 400k vertices (about 2 s each); the others take minutes
    slow = ("tooth_103x94x161_uint8.raw", "engine_256x256x128_uint8.raw",
            "lidc2_256x256x133_uint8.raw", "aneurism_256x256x256_uint8.raw")
    names = [name for name in sorted(reference)
             if name not in slow or os.environ.get(
                 "TOPOGPU_TTK_SEGMENTATION_ALL_VOLUMES") == "1"]
    for name in names:
        stem = name[:-len(".raw")]
        dims, dtype = stem.split("_")[-2:]
        dtype = dtype.replace("int16le", "int16")
        out = msc(["--raw", os.path.join(VOLUMES, name), "--dims", dims.replace("x", ","),
                   "--type", dtype], "--no-saddle-connections", timeout=1800)
        if out is None:
            continue
        want = reference[name]["msc_unassigned_vertices"]
        got = out["unlabelled_vertices"]
        print(f"{name} ({out['backend']}): unlabelled {got}, TTK {want}")
        check(got == want, f"{name}: unlabelled vertices {got} != TTK 1.2's {want}")
else:
    print("no shared volumes at", VOLUMES, "(the grids above still ran)")

cli_helpers.finish()
