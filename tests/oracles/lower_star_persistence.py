"""Independent oracle for the discrete gradient: critical cells per index of a grid's
lower-star filtration, from persistent homology (numpy and GUDHI only, no project code).

Robins, Wood and Sheppard (2011) prove that the critical cells of ProcessLowerStars on a 2D
or 3D cubical complex are exactly the homology changes of the lower-star filtration. So the
number of critical d-cells equals, per dimension d,
    births of d-classes with positive persistence (birth value != death value)
  + essential d-classes
  + deaths, by d-cells, of (d-1)-classes with positive persistence.
This module computes those numbers without any gradient: the filtration is the grid's
cubical complex (vertices, edges, squares, cubes) where each cell's value is the largest
rank of its vertices, ranks being positions in the order (value, vertex index), x fastest
(the shared vertex order, which makes the vertex values distinct).

Two independent computations of the pairs:
  * brute_force_counts: explicit enumeration of the cells and a Z/2 boundary-matrix column
    reduction (the standard algorithm), for small grids;
  * gudhi_counts: GUDHI's cubical persistence. GUDHI only takes top-cell values, so it runs
    on the refined (2n-1)^d grid whose top cell at (i,j,k) is the original cell with those
    doubled coordinates (even coordinate: the cell spans no extent on that axis); the union
    of the refined top cells of a subcomplex deformation-retracts onto it, so the two
    filtrations have the same persistence diagram.
Grid axes of extent 1 are dropped (a 64x64x1 grid is the 2D complex).

Arrays are numpy arrays indexed [z, y, x] (or [y, x]), i.e. C order of a raw file whose x
varies fastest. `python3 lower_star_persistence.py` runs the self-test (brute force ==
GUDHI on random grids, Euler characteristic, a ramp).
"""
import sys

import numpy as np

DIMENSIONS = 4  # counts are reported as [n0, n1, n2, n3]


def vertex_ranks(values):
    """Rank of each vertex: its position when sorting by (value, linear index)."""
    flat = np.asarray(values).ravel()
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise ValueError("the oracle needs finite values (NaN/Inf have no vertex order)")
    order = np.argsort(flat, kind="stable")  # stable: ties keep index order
    ranks = np.empty(flat.size, dtype=np.int64)
    ranks[order] = np.arange(flat.size, dtype=np.int64)
    return ranks.reshape(np.shape(values))


def _squeeze(values):
    values = np.asarray(values)
    shape = tuple(s for s in values.shape if s > 1) or (1,)
    return values.reshape(shape)


def _counts_from_pairs(pairs, essentials):
    """pairs: (dimension of the class, birth value, death value); essentials: dimensions."""
    counts = [0] * DIMENSIONS
    for dim, birth, death in pairs:
        if birth != death:
            counts[dim] += 1
            counts[dim + 1] += 1
    for dim in essentials:
        counts[dim] += 1
    return counts


def brute_force_counts(values):
    """Critical cells per index by explicit cells and a boundary-matrix reduction."""
    return _counts_from_pairs(*brute_force_pairs(values))


def brute_force_pairs(values):
    """(pairs, essentials) by explicit cells and a boundary-matrix reduction: pairs as
    (dimension of the class, birth rank, death rank), zero-persistence ones included;
    essentials as the dimensions of the classes that never die."""
    ranks = vertex_ranks(_squeeze(values))
    shape = ranks.shape
    refined = [2 * s - 1 for s in shape]
    cells = list(np.ndindex(*refined))  # doubled coordinates; odd = spans that axis
    index = {c: i for i, c in enumerate(cells)}
    dims, vals, faces = [], [], []
    for c in cells:
        odd = [a for a, x in enumerate(c) if x % 2]
        dims.append(len(odd))
        corners = []
        for mask in range(1 << len(odd)):
            v = list(c)
            for bit, a in enumerate(odd):
                v[a] = (c[a] - 1 if (mask >> bit) & 1 == 0 else c[a] + 1)
            corners.append(tuple(x // 2 for x in v))
        vals.append(max(int(ranks[v]) for v in corners))
        bnd = []
        for a in odd:
            for step in (-1, 1):
                f = list(c)
                f[a] += step
                bnd.append(index[tuple(f)])
        faces.append(bnd)
    # Filtration order: by value, then dimension (a face never has a larger value).
    order = sorted(range(len(cells)), key=lambda i: (vals[i], dims[i], i))
    position = {cell: p for p, cell in enumerate(order)}
    columns = []
    pivot_owner = {}  # lowest row -> column position
    pairs, paired = [], set()
    for p, cell in enumerate(order):
        col = 0
        for f in faces[cell]:
            col ^= 1 << position[f]
        while col:
            low = col.bit_length() - 1
            if low not in pivot_owner:
                break
            col ^= columns[pivot_owner[low]]
        columns.append(col)
        if col:
            low = col.bit_length() - 1
            pivot_owner[low] = p
            birth = order[low]
            pairs.append((dims[birth], vals[birth], vals[cell]))
            paired.update((low, p))
    essentials = [dims[order[p]] for p in range(len(order)) if p not in paired]
    return pairs, essentials


def refined_top_cells(values):
    """The (2n-1)^d array: each entry is the max vertex rank of the original cell with
    those doubled coordinates."""
    top = vertex_ranks(_squeeze(values)).astype(np.float64)  # ranks < 2^53: exact
    for axis in range(top.ndim):
        a = np.moveaxis(top, axis, 0)
        out = np.empty((2 * a.shape[0] - 1,) + a.shape[1:], dtype=np.float64)
        out[0::2] = a
        out[1::2] = np.maximum(a[:-1], a[1:])
        top = np.moveaxis(out, 0, axis)
    return np.ascontiguousarray(top)


def gudhi_counts(values):
    """Critical cells per index from GUDHI's cubical persistence of the refined grid."""
    return _counts_from_pairs(*gudhi_pairs(values))


def gudhi_pairs(values):
    """(pairs, essentials) as brute_force_pairs gives them, from GUDHI's cubical
    persistence of the refined grid (ranks as integers)."""
    import gudhi

    top = refined_top_cells(values)
    if top.size == 1:  # a single vertex: one essential 0-class
        return [], [0]
    # A numpy array is taken with its own shape (the axis order does not matter anyway:
    # permuting axes is an isometry of the complex); the flat list plus `dimensions`
    # form would need the first axis fastest.
    complex_ = gudhi.CubicalComplex(top_dimensional_cells=top)
    diagram = complex_.persistence(homology_coeff_field=2, min_persistence=-1)
    pairs, essentials = [], []
    for dim, (birth, death) in diagram:
        if death == float("inf"):
            essentials.append(dim)
        else:
            pairs.append((dim, int(birth), int(death)))
    return pairs, essentials


def counts(values, method="auto"):
    if method == "auto":
        method = "brute" if np.prod([2 * s - 1 for s in np.shape(values)]) <= 4000 else "gudhi"
    return brute_force_counts(values) if method == "brute" else gudhi_counts(values)


# ---------------------------------------------------------------------------- self-test


def random_grid(rng, shape, regime):
    if regime == "distinct":
        return rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float32)
    if regime == "float":
        return rng.standard_normal(shape).astype(np.float64)
    levels = {"ties2": 2, "ties3": 3, "ties4": 4}[regime]
    return rng.integers(0, levels, size=shape).astype(np.uint8)


def euler(c):
    return c[0] - c[1] + c[2] - c[3]


def self_test(cases=120, seed=6):
    rng = np.random.default_rng(seed)
    failures = 0

    def check(ok, message):
        nonlocal failures
        if not ok:
            failures += 1
            print("FAIL:", message)

    shapes_2d = [(1, 2, 2), (1, 3, 3), (1, 4, 5), (1, 6, 4), (1, 7, 7), (1, 1, 9)]
    shapes_3d = [(2, 2, 2), (2, 3, 4), (3, 3, 3), (4, 3, 2), (4, 4, 4), (3, 5, 4), (5, 4, 3)]
    regimes = ["distinct", "float", "ties2", "ties3", "ties4"]
    checked = 0
    for case in range(cases):
        shapes = shapes_2d if case % 2 == 0 else shapes_3d
        shape = shapes[int(rng.integers(len(shapes)))]
        regime = regimes[case % len(regimes)]
        grid = random_grid(rng, shape, regime)
        brute = brute_force_counts(grid)
        gud = gudhi_counts(grid)
        label = f"case {case} shape {shape} {regime}"
        check(brute == gud, f"{label}: brute force {brute} != GUDHI {gud}")
        check(euler(brute) == 1, f"{label}: Euler characteristic {euler(brute)} != 1 ({brute})")
        if shape[0] == 1:
            check(brute[3] == 0, f"{label}: a 2D grid has critical cubes {brute}")
        checked += 1
    # Transposing the axes must not change the answer (GUDHI's axis order is not an issue).
    grid = random_grid(rng, (3, 4, 5), "float")
    check(gudhi_counts(grid) == gudhi_counts(np.ascontiguousarray(grid.transpose(2, 1, 0))),
          "GUDHI counts change under an axis permutation")
    # A ramp has one minimum and nothing else; a constant field too (the vertex order).
    for shape in [(1, 5, 6), (4, 5, 6), (12, 9, 7)]:
        z, y, x = np.indices(shape)
        for name, field in [("ramp", (x + 2 * y + 3 * z).astype(np.float32)),
                            ("constant", np.zeros(shape, dtype=np.uint8))]:
            for method in ("brute", "gudhi") if np.prod(shape) <= 150 else ("gudhi",):
                got = counts(field, method)
                check(got == [1, 0, 0, 0], f"{name} {shape} {method}: {got}")
    # A single interior peak on zeros: the zeros (a raster ramp by the vertex order) build
    # an annulus around the peak, whose cycle the peak fills: minimum, 1-saddle, maximum.
    peak = np.zeros((1, 5, 5))
    peak[0, 2, 2] = 1.0
    for method in ("brute", "gudhi"):
        got = counts(peak, method)
        check(got == [1, 1, 1, 0], f"peak {method}: {got}")
    # A crater (-1) inside a high ring (20..27) inside a low rim (0..15): two minima.
    volcano = np.array([[0, 1, 2, 3, 4],
                        [5, 20, 21, 22, 6],
                        [7, 23, -1, 24, 8],
                        [9, 25, 26, 27, 10],
                        [11, 12, 13, 14, 15]], dtype=np.float32)[None]
    for method in ("brute", "gudhi"):
        got = counts(volcano, method)
        check(got[0] == 2 and got[2] >= 1 and euler(got) == 1, f"volcano {method}: {got}")
    print(f"self-test: {checked} random grids + invariants, {failures} failure(s)")
    return failures


# ------------------------------------------------------------- real volumes (slow: GUDHI)

# The volumes of ../shared/data/volumes whose counts tests/cli compares with the CLI; GUDHI
# takes 3-50 s each on the refined grid, so their counts are kept in VOLUME_COUNTS_FILE
# (written by --write-volumes) and recomputed by the slow ctest (--check-volumes).
VOLUMES = ["fuel_64x64x64_uint8", "neghip_64x64x64_uint8", "silicium_98x34x34_uint8",
           "bucky_32x32x32_uint8", "headmr_48x62x42_uint8",
           "hydrogen_orbital_64x64x64_float32", "carotid_76x49x45_float32"]
VOLUME_COUNTS_FILE = "volume_critical_cells.json"


def volume_spec(name):
    """(dims X,Y,Z, numpy dtype) from a name like fuel_64x64x64_uint8."""
    *_, dims, type_name = name.split("_")
    return [int(d) for d in dims.split("x")], np.dtype(type_name).newbyteorder("<")


def load_volume(data_dir, name):
    import os

    dims, dtype = volume_spec(name)
    path = os.path.join(data_dir, "volumes", name + ".raw")
    return np.fromfile(path, dtype=dtype).reshape(dims[::-1])  # [z, y, x]


def volume_counts(data_dir, names=VOLUMES):
    import time

    result = {}
    for name in names:
        start = time.time()
        result[name] = gudhi_counts(load_volume(data_dir, name))
        print(f"{name}: {result[name]} ({time.time() - start:.1f} s)", flush=True)
    return result


def main(argv):
    import json
    import os

    stored = os.path.join(os.path.dirname(os.path.abspath(__file__)), VOLUME_COUNTS_FILE)
    if len(argv) == 3 and argv[1] in ("--write-volumes", "--check-volumes"):
        if not os.path.isdir(os.path.join(argv[2], "volumes")):
            print(f"SKIP: no volumes under {argv[2]}")
            return 77
        computed = volume_counts(argv[2])
        if argv[1] == "--write-volumes":
            with open(stored, "w") as f:
                json.dump(computed, f, indent=1)
                f.write("\n")
            return 0
        with open(stored) as f:
            expected = json.load(f)
        bad = [n for n in VOLUMES if expected.get(n) != computed[n]]
        bad += [n for n in VOLUMES if euler(computed[n]) != 1]
        for n in bad:
            print(f"FAIL: {n}: GUDHI gives {computed[n]}, {VOLUME_COUNTS_FILE} {expected.get(n)}")
        return 1 if bad else 0
    if len(argv) > 1:
        print(f"usage: {argv[0]} [--write-volumes|--check-volumes SHARED_DATA_DIR]")
        return 2
    try:
        import gudhi  # noqa: F401
    except ImportError:
        print("FAIL: the oracle needs python3-gudhi (scripts/setup.sh installs it)")
        return 1
    return 1 if self_test() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
