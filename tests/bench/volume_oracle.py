"""Oracles for the persistence diagram of a 3D grid's lower-star filtration and for the
topological simplification's guarantee, written without the project's code, for
verify_persistence_volumes.py and tests/cli/test_verify_volumes.py.

  * gudhi_simplicial / gudhi_cubical: GUDHI in a child process (its time and peak memory
    measured, its address space capped): the SimplexTree of TTK's Freudenthal tets
    (tests/oracles/simplicial_persistence.py) or the cubical complex of the refined
    (2n-1)^3 grid (tests/oracles/lower_star_persistence.py); every pair, as values;
  * union_find: the pairs of dimension 0 and 2 by union-find (union_find_oracle.c, built
    with the system's C compiler), exact for any volume, and the Euler characteristic of
    every sublevel set, which with b3 = 0 gives b1(t) = b0(t) + b2(t) - chi(t) at every
    value t: the dimension-1 pairs are checked through that function only (it fixes
    births minus deaths at each value, not the pairing);
  * simplification_check: the guarantee of `topogpu simplify` on the input and output
    fields (see its docstring).
Values are float64; vertex ids are x fastest; the vertex order is TTK's (value, id).
"""
import collections
import ctypes
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLES = os.path.join(HERE, "..", "oracles")
sys.path.insert(0, ORACLES)
from freudenthal import freudenthal_tets  # noqa: E402
from simplicial_persistence import grid_simplices  # noqa: E402

_LIB = None


def library():
    """union_find_oracle.c compiled once per process into a temporary folder."""
    global _LIB
    if _LIB is None:
        folder = tempfile.mkdtemp(prefix="uf_oracle_")
        so = os.path.join(folder, "uf.so")
        cc = os.environ.get("CC", "cc")
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", so,
                        os.path.join(HERE, "union_find_oracle.c")], check=True)
        _LIB = ctypes.CDLL(so)
        for name in ("lower_pairs", "upper_pairs"):
            getattr(_LIB, name).restype = ctypes.c_int64
        _LIB.joins.restype = None
    return _LIB


def _ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def vertex_ranks(values):
    """TTK's order: values sorted, ties by vertex id. Returns (order, rank)."""
    order = np.argsort(values, kind="stable").astype(np.int64)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return order, rank


def star_stencil(kind, dimension=3):
    """The star of an interior vertex, from a 5^3 (5^2) grid's top cells: edge offsets;
    top cells (other vertices' offsets, voxel offset, type); facets (other vertices'
    offsets, both sides' voxel offset and type)."""
    n = 5
    coords = lambda v: (v % n, (v // n) % n, v // (n * n))  # noqa: E731
    axes = range(dimension)
    centre = 2 + n * 2 + (n * n * 2 if dimension == 3 else 0)
    if kind == "simplicial":
        tops = (freudenthal_tets(n, n, n) if dimension == 3 else grid_simplices(n, n, 1))
        tops = [(t, i % (6 if dimension == 3 else 2)) for i, t in enumerate(tops)]
        facets_of = lambda t: itertools.combinations(t, dimension)  # noqa: E731
        edges_of = lambda t: itertools.combinations(t, 2)  # noqa: E731
    else:
        tops = []
        for z, y, x in itertools.product(range(n - 1) if dimension == 3 else [0],
                                         range(n - 1), range(n - 1)):
            tops.append((tuple((x + a) + n * ((y + b) + n * (z + c)) for c, b, a in
                               itertools.product((0, 1) if dimension == 3 else [0],
                                                 (0, 1), (0, 1))), 0))

        def facets_of(t):
            lo = [min(coords(v)[a] for v in t) for a in axes]
            return [tuple(v for v in t if coords(v)[a] == lo[a] + s)
                    for a in axes for s in (0, 1)]

        def edges_of(t):
            return [(u, v) for u, v in itertools.combinations(t, 2)
                    if sum(p != q for p, q in zip(coords(u), coords(v))) == 1]
    c = np.array(coords(centre))
    off = lambda v: list(np.array(coords(v)) - c)  # noqa: E731
    voxel = lambda t: list(np.min([coords(v) for v in t], axis=0) - c)  # noqa: E731
    edges, star, facets = set(), [], collections.defaultdict(list)
    for t, kind_id in tops:
        for e in edges_of(t):
            if centre in e:
                edges.add(tuple(off(e[0] if e[1] == centre else e[1])))
        for f in facets_of(t):
            facets[tuple(sorted(f))].append((voxel(t), kind_id))
        if centre in t:
            star.append(([off(v) for v in t if v != centre], voxel(t), kind_id))
    facet_rows = [([off(v) for v in f if v != centre], sides)
                  for f, sides in sorted(facets.items()) if centre in f]
    assert all(len(s) == 2 for _, s in facet_rows)
    tk, fk = len(star[0][0]), len(facet_rows[0][0])
    pad = lambda rows, k: [r + [[0, 0, 0]] * (k - len(r)) for r in rows]  # noqa: E731
    return {
        "edges": np.ascontiguousarray(sorted(edges), dtype=np.int32),
        "top_other": np.ascontiguousarray(pad([s[0] for s in star], 7), dtype=np.int32),
        "top_voxel": np.ascontiguousarray([s[1] for s in star], dtype=np.int32),
        "top_type": np.ascontiguousarray([s[2] for s in star], dtype=np.int32),
        "ntypes": len({s[2] for s in star}), "tk": tk, "fk": fk,
        "facet_other": np.ascontiguousarray(pad([f[0] for f in facet_rows], 3), dtype=np.int32),
        "facet_voxel": np.ascontiguousarray([[s[0] for s in f[1]] for f in facet_rows],
                                            dtype=np.int32),
        "facet_type": np.ascontiguousarray([[s[1] for s in f[1]] for f in facet_rows],
                                           dtype=np.int32),
    }


def _pairs(call, cap, limit):
    while True:
        pb, pd = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
        count = call(pb, pd, cap)
        if count >= 0:
            return pb[:count], pd[:count]
        if cap >= limit:
            raise RuntimeError("union-find oracle: more pairs than cells")
        cap = min(limit, cap * 4)


def union_find(dims, values, kind="simplicial", order=None, rank=None):
    """Vertex pairs of dimension 0 and d-1 (positive persistence in values) and each
    vertex's lower-star Euler characteristic. order/rank: a given vertex order (a
    simplified field's _Order), else TTK's. dims (nx, ny, 1) is a 2D grid."""
    lib = library()
    values = np.ascontiguousarray(values, dtype=np.float64)
    if order is None:
        order, rank = vertex_ranks(values)
    order, rank = np.ascontiguousarray(order, np.int64), np.ascontiguousarray(rank, np.int64)
    dimension = 3 if dims[2] > 1 else 2
    s = star_stencil(kind, dimension)
    d = np.array(dims, dtype=np.int32)
    n = len(values)
    chi = np.empty(n, dtype=np.int32)
    parent, birth = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    b0, d0 = _pairs(lambda pb, pd, cap: lib.lower_pairs(
        _ptr(d), _ptr(order), _ptr(rank), _ptr(values), len(s["edges"]), _ptr(s["edges"]),
        _ptr(parent), _ptr(birth), _ptr(pb), _ptr(pd), ctypes.c_int64(cap), _ptr(chi)),
        n // 8 + 16, n)
    nodes = (dims[0] - 1) * (dims[1] - 1) * max(dims[2] - 1, 1) * s["ntypes"] + 1
    del parent, birth
    parent, birth = np.empty(nodes, dtype=np.int64), np.empty(nodes, dtype=np.int64)
    b2, d2 = _pairs(lambda pb, pd, cap: lib.upper_pairs(
        _ptr(d), _ptr(order), _ptr(rank), _ptr(values), len(s["top_type"]), s["tk"],
        _ptr(s["top_other"]), _ptr(s["top_voxel"]), _ptr(s["top_type"]), s["ntypes"],
        len(s["facet_type"]), s["fk"], _ptr(s["facet_other"]), _ptr(s["facet_voxel"]),
        _ptr(s["facet_type"]), *((1, -1) if dimension == 3 else (0, 1)), _ptr(parent),
        _ptr(birth), _ptr(pb), _ptr(pd), ctypes.c_int64(cap), _ptr(chi)), n // 8 + 16, nodes)
    return {"pairs0": (b0, d0), f"pairs{dimension - 1}": (b2, d2), "chi": chi,
            "order": order, "rank": rank, "values": values, "dimension": dimension}


def value_pairs(uf, k):
    b, d = uf[f"pairs{k}"]
    v = uf["values"]
    return collections.Counter(zip([k] * len(b), v[b].tolist(), v[d].tolist()))


def betti1_by_euler(uf):
    """(levels, b1 at each level) from b1 = b0 + b2 - chi on every sublevel set."""
    v, order = uf["values"], uf["order"]
    sorted_values = v[order]
    last = np.flatnonzero(np.r_[sorted_values[1:] != sorted_values[:-1], True])
    levels = sorted_values[last]
    chi = np.cumsum(uf["chi"][order].astype(np.int64))[last]
    betti = lambda k: alive(v[uf[f"pairs{k}"][0]], v[uf[f"pairs{k}"][1]], levels)  # noqa: E731
    return levels, betti(0) + 1 + betti(2) - chi


def alive(births, deaths, levels):
    """Number of bars [birth, death) containing each level."""
    return (np.searchsorted(np.sort(births), levels, side="right")
            - np.searchsorted(np.sort(deaths), levels, side="right"))


def compare_counters(ours, theirs):
    """None when equal, else a short text of both differences."""
    if ours == theirs:
        return None
    return (f"ours-oracle {sorted((ours - theirs).items())[:4]} ({sum((ours - theirs).values())}), "
            f"oracle-ours {sorted((theirs - ours).items())[:4]} ({sum((theirs - ours).values())})")


def check_against_union_find(rows, uf):
    """Ours (diagram CSV rows) against the union-find oracle: dimension 0 and d-1 pairs as
    multisets, the one essential class (0, global minimum) and in 3D b1(t) at every
    value. Returns a list of failure texts."""
    problems = []
    top = uf["dimension"] - 1
    for k in (0, top):
        ours = collections.Counter((k, r["Birth"], r["Death"]) for r in rows
                                   if r["IsFinite"] and r["PairType"] == k
                                   and r["Death"] > r["Birth"])
        diff = compare_counters(ours, value_pairs(uf, k))
        if diff:
            problems.append(f"dimension {k}: {diff}")
    essential = sorted((r["PairType"], r["Birth"]) for r in rows if not r["IsFinite"])
    if essential != [(0, float(uf["values"].min()))]:
        problems.append(f"essential classes {essential[:4]} != [(0, minimum)]")
    if top == 1:
        return problems
    levels, expected = betti1_by_euler(uf)
    ones = [r for r in rows if r["PairType"] == 1]
    b = np.array([r["Birth"] for r in ones])
    d = np.array([r["Death"] if r["IsFinite"] else np.inf for r in ones])
    ours = alive(b, d, levels)
    if not np.array_equal(ours, expected):
        i = int(np.flatnonzero(ours != expected)[0])
        problems.append(f"b1 differs from b0 + b2 - chi at {int(np.sum(ours != expected))} "
                        f"levels (first: value {levels[i]}: ours {ours[i]}, Euler {expected[i]})")
    return problems


GUDHI_CHILD = r"""
import sys, time, json, resource
import numpy as np
sys.path.insert(0, sys.argv[1])
kind, path, nx, ny, nz = sys.argv[2], sys.argv[3], *map(int, sys.argv[4:7])
start = time.time()
values = np.load(path)
if kind == "simplicial":
    import simplicial_persistence as oracle
    finite, essential = oracle.gudhi_diagram(oracle.grid_simplices(nx, ny, nz), values)
else:
    import gudhi
    import lower_star_persistence as cubical
    top = cubical.refined_top_cells(values.reshape(nz, ny, nx))  # ranks as values
    by_rank = np.sort(values, kind="stable")
    cc = gudhi.CubicalComplex(top_dimensional_cells=top)
    finite, essential = [], []
    for dim, (b, d) in cc.persistence(homology_coeff_field=2, min_persistence=-1):
        if d == float("inf"):
            essential.append((dim, float(by_rank[int(b)])))
        elif by_rank[int(d)] > by_rank[int(b)]:
            finite.append((dim, float(by_rank[int(b)]), float(by_rank[int(d)])))
print(json.dumps({"seconds": time.time() - start,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "finite": finite, "essential": essential}))
"""


def gudhi_diagram(kind, dims, values, memory_limit_bytes, timeout=3600):
    """GUDHI's diagram in a child process: (finite Counter, essential Counter, info), or
    (None, None, info) when it failed (info["error"]: out of memory, time, ...)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "values.npy")
        np.save(path, np.asarray(values, dtype=np.float64))
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS,  # noqa: E731
                                           (memory_limit_bytes, memory_limit_bytes))
        start = time.time()
        try:
            child = subprocess.run([sys.executable, "-c", GUDHI_CHILD, ORACLES, kind, path,
                                    *map(str, dims)], capture_output=True, text=True,
                                   preexec_fn=limit, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None, {"error": f"over {timeout} s"}
        wall = time.time() - start
    if child.returncode != 0:
        tail = child.stderr.strip().splitlines()[-1:] or [f"rc {child.returncode}"]
        return None, None, {"error": tail[0][-200:], "process_seconds": wall}
    g = json.loads(child.stdout)
    info = {"seconds": g["seconds"], "peak_mib": g["peak_mib"], "process_seconds": wall}
    return (collections.Counter(tuple(p) for p in g["finite"]),
            collections.Counter(tuple(p) for p in g["essential"]), info)


def joins(dims, order, rank, source):
    """Per vertex: the position (in order) at which its sublevel component first holds a
    source, and the earliest vertex of the source-free component that joined there."""
    lib = library()
    s = star_stencil("simplicial")
    n = len(order)
    scratch = [np.empty(n, dtype=np.int64) for _ in range(7)]
    flags = [np.empty(n, dtype=np.int8) for _ in range(2)]
    join, first = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    d = np.array(dims, dtype=np.int32)
    source = np.ascontiguousarray(source, dtype=np.int8)
    order, rank = np.ascontiguousarray(order, np.int64), np.ascontiguousarray(rank, np.int64)
    lib.joins(_ptr(d), _ptr(order), _ptr(rank), len(s["edges"]), _ptr(s["edges"]),
              _ptr(source), *map(_ptr, scratch), *map(_ptr, flags), _ptr(join), _ptr(first))
    return join, first


def boundary_mask(dims):
    """The box's boundary vertices (an axis of extent 1 has no sides)."""
    z, y, x = np.meshgrid(*(np.arange(n) for n in dims[::-1]), indexing="ij")
    mask = np.zeros(x.shape, dtype=bool)
    for c, n in zip((x, y, z), dims):
        if n > 1:
            mask |= (c == 0) | (c == n - 1)
    return mask.ravel()


def local_extrema(dims, rank):
    """Vertices with an empty lower link (minima) and interior vertices with an empty
    upper link (maxima) in the vertex order rank, on TTK's simplicial complex."""
    edges = star_stencil("simplicial", 3 if dims[2] > 1 else 2)["edges"]
    r = np.asarray(rank).reshape(dims[::-1])
    lower = np.zeros(r.shape, dtype=bool)
    upper = np.zeros(r.shape, dtype=bool)
    for dx, dy, dz in edges:
        src = tuple(slice(max(0, -o), n - max(0, o)) for o, n in zip((dz, dy, dx), r.shape))
        dst = tuple(slice(max(0, o), n - max(0, -o)) for o, n in zip((dz, dy, dx), r.shape))
        lower[src] |= r[dst] < r[src]
        upper[src] |= r[dst] > r[src]
    interior = ~boundary_mask(dims)
    return (set(np.flatnonzero(~lower.ravel()).tolist()),
            set(np.flatnonzero(~upper.ravel() & interior).tolist()))


def bottleneck_rest(ours, theirs):
    """(pairs equal in both, bottleneck distance of what is left) of two Counters of
    (type, birth, death)."""
    common = sum((ours & theirs).values())
    a = [p[1:] for p, c in (ours - theirs).items() for _ in range(c)]
    b = [p[1:] for p, c in (theirs - ours).items() for _ in range(c)]
    if not a and not b:
        return common, 0.0
    import gudhi
    return common, float(gudhi.bottleneck_distance(np.array(a).reshape(-1, 2),
                                                   np.array(b).reshape(-1, 2)))


def kept_extrema(uf, dims, threshold):
    """Kept minima and maxima (vertex ids) of a threshold, from the oracle's pairs: the
    births of dimension-0 pairs and the deaths of dimension-(d-1) pairs of persistence >=
    threshold, the global minimum, and the global maximum when it is interior."""
    f, order = uf["values"], uf["order"]
    b0, d0 = uf["pairs0"]
    b2, d2 = uf[f"pairs{uf['dimension'] - 1}"]
    kmin = set(b0[f[d0] - f[b0] >= threshold].tolist()) | {int(order[0])}
    kmax = set(d2[f[d2] - f[b2] >= threshold].tolist())
    top = int(order[-1])
    if not boundary_mask(dims)[top]:
        kmax.add(top)
    return kmin, kmax


def expected_after(uf, expected, kmin, kmax, threshold):
    """The input diagram (Counter of finite (type, birth, death)) minus the removed
    extremum pairs: those of dimension 0 whose minimum and of dimension d-1 whose
    maximum is not kept."""
    f, top = uf["values"], uf["dimension"] - 1
    out = collections.Counter({p: c for p, c in expected.items() if 0 < p[0] < top})
    for k, keep, side in ((0, kmin, 0), (top, kmax, 1)):
        pairs = uf[f"pairs{k}"]
        for b, d in zip(*pairs):
            if int((b, d)[side]) in keep:
                out[(k, float(f[b]), float(f[d]))] += 1
    return out


def simplification_check(dims, before, after, after_order, threshold, uf, expected,
                         out_rows):
    """The guarantee of `topogpu simplify` at an absolute threshold. before/after: the
    input and output arrays (input type); after_order: the output's _Order; uf: the
    oracle on the input (union_find); expected: the input's finite pairs (Counter of
    (type, birth, death), from GUDHI where it ran); out_rows: `topogpu persistence` of the
    output. Checks: the output type; the order sorts the values; a raised vertex lies in
    a removed minimum's region (its sublevel component at its own level holds no kept
    minimum) and its new value is at most the value where that region joins a kept
    minimum (the removed pair's death); the output's extrema (by its order) are exactly
    the kept ones; a lowered vertex, mirrored (kept maxima and the
    boundary); the other vertices keep their values and relative order; the output's
    diagram by the oracle equals `topogpu persistence` of the output (dimensions 0 and
    d-1, b1 by Euler in 3D); per dimension, the output's pairs against the input's minus the removed
    ones: as many extremum pairs, and the bottleneck distance of the pairs not equal in
    both below the threshold. Returns (summary dict, problems)."""
    problems = []
    if after.dtype != before.dtype:
        problems.append(f"output type {after.dtype} != input {before.dtype}")
    f, g = before.astype(np.float64), after.astype(np.float64)
    order, rank = uf["order"], uf["rank"]
    n = len(f)
    out_order = np.asarray(after_order, dtype=np.int64)
    out_sorted = np.argsort(out_order)
    if not np.array_equal(out_order[out_sorted], np.arange(n)):
        problems.append("the output order is not a permutation")
    elif np.any(np.diff(g[out_sorted]) < 0):
        problems.append("the output order does not sort the output values")
    kmin, kmax = kept_extrema(uf, dims, threshold)
    minima, maxima = local_extrema(dims, out_order)
    for kind, got, kept in (("minima", minima, kmin), ("maxima", maxima, kmax)):
        if got != kept:
            problems.append(f"output {kind} are not the kept ones: {len(got - kept)} extra "
                            f"{sorted(got - kept)[:4]}, {len(kept - got)} lost "
                            f"{sorted(kept - got)[:4]}")
    src = np.zeros(n, dtype=np.int8)
    src[list(kmin)] = 1
    low, low_first = joins(dims, order, rank, src)
    src = boundary_mask(dims).astype(np.int8)
    src[list(kmax)] = 1
    high, high_first = joins(dims, order[::-1].copy(), n - 1 - rank, src)
    raised, lowered = np.flatnonzero(g > f), np.flatnonzero(g < f)
    bad = raised[(low[raised] <= rank[raised]) | (g[raised] > f[order[low[raised]]])]
    if len(bad):
        v = int(bad[0])
        problems.append(f"{len(bad)} raised vertices outside a removed minimum's region or "
                        f"above its saddle (vertex {v}: {f[v]} -> {g[v]})")
    saddle = order[::-1][high[lowered]]
    bad = lowered[(high[lowered] <= n - 1 - rank[lowered]) | (g[lowered] < f[saddle])]
    if len(bad):
        v = int(bad[0])
        problems.append(f"{len(bad)} lowered vertices outside a removed maximum's region or "
                        f"below its saddle (vertex {v}: {f[v]} -> {g[v]})")
    # the oracle's own consistency: each region's oldest extremum pairs below the threshold
    w = low[raised][low[raised] > rank[raised]]
    first = low_first[raised][low[raised] > rank[raised]]
    if np.any(f[order[w]] - f[first] >= threshold):
        problems.append("oracle: a raised region's pair is not below the threshold")
    fixed = np.flatnonzero((low == rank) & (high == n - 1 - rank))
    fixed = fixed[np.argsort(rank[fixed])]
    if np.any(np.diff(out_order[fixed]) <= 0):
        problems.append("vertices outside the removed regions changed their relative order")
    out_uf = union_find(dims, g, order=out_sorted, rank=out_order)
    problems += [f"output: topogpu persistence vs oracle: {p}"
                 for p in check_against_union_find(out_rows, out_uf)]
    want = expected_after(uf, expected, kmin, kmax, threshold)
    top = uf["dimension"] - 1
    got = value_pairs(out_uf, 0) + value_pairs(out_uf, top) + collections.Counter(
        (1, r["Birth"], r["Death"]) for r in out_rows
        if r["IsFinite"] and 0 < r["PairType"] < top and r["Death"] > r["Birth"])
    summary = {"kept_minima": len(kmin), "kept_maxima": len(kmax),
               "raised": int(len(raised)), "lowered": int(len(lowered)),
               "unchanged_region_vertices": int(len(fixed))}
    for k in range(top + 1):
        a = collections.Counter({p: c for p, c in got.items() if p[0] == k})
        b = collections.Counter({p: c for p, c in want.items() if p[0] == k})
        common, distance = bottleneck_rest(a, b)
        summary[f"dim{k}"] = {"output": sum(a.values()), "expected": sum(b.values()),
                              "equal": common, "bottleneck_rest": distance}
        if k in (0, top) and sum(a.values()) != sum(b.values()):
            problems.append(f"dimension {k}: {sum(a.values())} output pairs, "
                            f"{sum(b.values())} expected")
        if distance >= threshold:
            problems.append(f"dimension {k}: bottleneck distance {distance} >= {threshold}")
    return summary, problems
