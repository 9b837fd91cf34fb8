"""`topogpu msc --complex simplicial --persistence-threshold T` (the complex of the field
simplified at persistence T, answered from the cancellation hierarchy) against oracles
written here, without the project's code:

  * the kept minima, saddles and critical maxima are exactly the critical cells of the
    pairs of persistence >= T (and the essential classes) of GUDHI's lower-star diagram
    of the same simplices (tests/oracles/simplicial_persistence.py), compared as
    multisets of values;
  * each DescendingManifold region of the answer is the union of the input complex's
    regions of the minima whose representative it is: the representative from an
    elder-rule union-find written here over the input's 1-saddles (their two vertices'
    minima, saddles in the lexicographic order of their vertices' ranks), whose pairs are
    first checked against GUDHI's, a removed minimum going to the minimum its saddle's
    other arc reaches, and on until a minimum of persistence >= T;
  * T = 0 gives the unchanged complex (the --details files are equal);
  * every separatrix of the answer (--separatrices-out) is a connected polyline from a
    kept saddle to a kept extremum (or boundary maximum), masked 0 at its two ends only;
  * T above the largest persistence leaves the essential extrema only; auto leaves at most
    20 minima and 20 maxima; bad thresholds are errors.

Cases: random, tie-heavy (uint8) and smooth 2D and 3D grids, a torus surface (OFF, the z
coordinate as the field; essential classes of every dimension).

    python3 test_msc_persistence_threshold.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import collections
import importlib.util
import json
import os
import sys
import tempfile

if importlib.util.find_spec("gudhi") is None:
    print("SKIP: gudhi is not available to this python")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import cli_helpers  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402
from cli_helpers import check, np  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
TYPES = {np.float32: "float32", np.uint8: "uint8"}


def msc(tmp, name, domain, *extra):
    """The complex (JSON, --details, --separatrices-out) with the options given."""
    details = os.path.join(tmp, name + ".json")
    separatrices = os.path.join(tmp, name + "_sep.json")
    result = cli_helpers.topogpu("msc", "--complex", "simplicial", *domain, "--backend",
                                 "cpu", "--json", "--details", details, "--separatrices-out",
                                 separatrices, *extra, timeout=300)
    if result.returncode != 0:
        check(False, f"{name}: rc {result.returncode}: {result.stderr.strip()[-300:]}")
        return None
    with open(details) as f, open(separatrices) as g:
        return json.loads(result.stdout), json.load(f), json.load(g)


def elder_pairs(complex0, values):
    """(minimum, partner, persistence) per pair of the elder rule on the input's arcs."""
    rank = oracle.vertex_ranks(values)
    minima = [c[0] for c in complex0["critical_cells"][0]]
    label = complex0["DescendingManifold"]
    saddles = sorted({tuple(a[0]) for a in complex0["saddle1_minimum"]},
                     key=lambda e: sorted((rank[v] for v in e), reverse=True))
    parent = list(range(len(minima)))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    pairs = {}
    for edge in saddles:
        a, b = label[edge[0]], label[edge[1]]
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        m, partner = (ra, b) if rank[minima[ra]] > rank[minima[rb]] else (rb, a)
        parent[m] = find(partner)
        pairs[m] = (partner, float(max(values[v] for v in edge)) - float(values[minima[m]]))
    return minima, pairs


def check_case(tmp, name, domain, tops, values, thresholds):
    values = np.asarray(values, dtype=np.float64)
    dim = len(tops[0]) - 1
    base = msc(tmp, name + "_input", domain)
    zero = msc(tmp, name + "_t0", domain, "--persistence-threshold", "0")
    if base is None or zero is None:
        return
    complex0 = base[1]
    keys = ("critical_cells", "maxima", "saddle1_minimum", "saddle_maximum",
            "saddle1_saddle2", "DescendingManifold", "AscendingManifold",
            "CellAscendingManifold", "MorseSmaleManifold")
    check(all(zero[1][k] == complex0[k] for k in keys),
          f"{name}: T = 0 changes the complex: "
          f"{[k for k in keys if zero[1][k] != complex0[k]]}")
    finite, essential = oracle.gudhi_diagram(tops, values)
    minima, pairs = elder_pairs(complex0, values)
    ours = collections.Counter((float(values[minima[m]]), float(values[minima[m]]) + p)
                               for m, (_, p) in pairs.items() if p > 0)
    theirs = collections.Counter((b, d) for k, b, d in finite if k == 0)
    check(ours == theirs, f"{name}: the oracle's elder rule on the arcs is not GUDHI's "
          f"type 0: {list((ours - theirs).items())[:3]} {list((theirs - ours).items())[:3]}")
    for T in thresholds:
        got = msc(tmp, f"{name}_{T}", domain, "--persistence-threshold", str(T))
        if got is None:
            continue
        summary, answer, separatrices = got
        label = f"{name} T={T}"
        # kept extrema against GUDHI
        kept_min = sorted(float(values[c[0]]) for c in answer["critical_cells"][0])
        want_min = sorted([b for k, b, d in finite if k == 0 and d - b >= T]
                          + [b for k, b in essential if k == 0])
        check(kept_min == want_min, f"{label}: kept minima {kept_min[:8]} != GUDHI's "
              f"{want_min[:8]} ({len(kept_min)} vs {len(want_min)})")
        kept_max = sorted(float(values[c].max()) for c in answer["critical_cells"][dim])
        want_max = sorted([d for k, b, d in finite if k == dim - 1 and d - b >= T]
                          + [b for k, b in essential if k == dim])
        check(kept_max == want_max, f"{label}: kept maxima {kept_max[:8]} != GUDHI's "
              f"{want_max[:8]} ({len(kept_max)} vs {len(want_max)})")
        # saddles: those of the pairs of persistence >= T (saddle-saddle pairs below T
        # are cancelled too), and the essential ones
        for k in range(1, dim):
            kept = sorted(float(values[c].max()) for c in answer["critical_cells"][k])
            want = sorted([d for j, b, d in finite if j == k - 1 and d - b >= T]
                          + [b for j, b, d in finite if j == k and d - b >= T]
                          + [b for j, b in essential if j == k])
            check(kept == want, f"{label}: kept {k}-saddles {kept[:6]} != GUDHI's "
                  f"{want[:6]} ({len(kept)} vs {len(want)})")
        check(summary["simplified"][0]["critical_cells"][0] == len(want_min),
              f"{label}: JSON's minima count")
        # DescendingManifold: the input's regions merged by the oracle's representatives
        def representative(m):
            while m in pairs and pairs[m][1] < T:
                m = pairs[m][0]
            return m
        kept_vertex = [c[0] for c in answer["critical_cells"][0]]
        expected = np.array([minima[representative(m)] for m in complex0["DescendingManifold"]])
        actual = np.array([kept_vertex[m] for m in answer["DescendingManifold"]])
        bad = np.flatnonzero(expected != actual)
        check(len(bad) == 0, f"{label}: {len(bad)} vertices in another descending region "
              f"than the oracle's (first {bad[:5]})")
        check(sorted(set(kept_vertex)) == sorted({minima[representative(m)]
                                                  for m in range(len(minima))}),
              f"{label}: kept minima are not the oracle's representatives")
        check_separatrices(label, answer, separatrices, domain)


def barycentre(points, cell):
    return tuple(np.round(np.mean([points[v] for v in cell], axis=0), 6))


def check_separatrices(label, answer, sep, domain):
    """Each separatrix: a connected polyline, kept saddle first, kept extremum last."""
    points = np.asarray(sep["points"]).reshape(-1, 3)
    vertices = domain_points(domain)
    dim = answer["dimension"]
    saddles = {barycentre(vertices, c) for k in range(1, dim) for c in answer["critical_cells"][k]}
    extrema = {barycentre(vertices, c) for c in answer["critical_cells"][0]}
    extrema |= {barycentre(vertices, c) for c in answer["maxima"]}
    ids = np.asarray(sep["cell_data"]["SeparatrixId"])
    lines = np.asarray(sep["connectivity"]).reshape(-1, 2)
    mask = np.asarray(sep["point_data"]["ttkMaskScalarField"])
    kinds = np.asarray(sep["cell_data"]["SeparatrixType"])
    problems = []
    for s in range(sep["separatrices"]):
        rows = np.flatnonzero(ids == s)
        if len(rows) == 0 or np.any(np.diff(rows) != 1):
            problems.append(f"{s}: lines not consecutive")
            continue
        path = lines[rows]
        if np.any(path[1:, 0] != path[:-1, 1]):
            problems.append(f"{s}: not connected")
            continue
        chain = list(path[:, 0]) + [path[-1, 1]]
        first, last = (tuple(np.round(points[chain[0]], 6)), tuple(np.round(points[chain[-1]], 6)))
        if first not in saddles:
            problems.append(f"{s}: starts at {first}, not a kept saddle")
        if kinds[rows[0]] != 1 and last not in extrema:
            problems.append(f"{s}: ends at {last}, not a kept extremum")
        if mask[chain[0]] != 0 or mask[chain[-1]] != 0 or any(mask[chain[1:-1]] != 1):
            problems.append(f"{s}: mask")
    check(not problems and sep["separatrices"] >= 0,
          f"{label}: separatrices: {problems[:4]} ({len(problems)} bad)")


POINTS = {}


def domain_points(domain):
    return POINTS[domain]


def grid_case(tmp, name, values, thresholds):
    nz, ny, nx = values.shape
    path = cli_helpers.raw_case(tmp, name, values, values.dtype)
    domain = ("--raw", path, "--dims", f"{nx},{ny},{nz}", "--type", TYPES[values.dtype.type])
    z, y, x = np.mgrid[0:nz, 0:ny, 0:nx]
    POINTS[domain] = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(float)
    check_case(tmp, name, domain, oracle.grid_simplices(nx, ny, nz), values.ravel(),
               thresholds)
    return domain


def torus_case(tmp, rng):
    """A torus surface whose z coordinates carry noise (the field: --array z)."""
    n, m = 14, 9
    u, v = np.meshgrid(2 * np.pi * np.arange(n) / n, 2 * np.pi * np.arange(m) / m,
                       indexing="ij")
    ring = 2 + np.cos(v)
    points = np.stack([ring * np.cos(u), ring * np.sin(u),
                       np.sin(v) + 0.3 * rng.random(v.shape)], axis=-1).reshape(-1, 3)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(n), np.arange(m), indexing="ij"))
    at = lambda a, b: (a % n) * m + (b % m)  # noqa: E731
    triangles = np.concatenate([np.stack([at(i, j), at(i + 1, j), at(i, j + 1)], axis=1),
                                np.stack([at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)],
                                         axis=1)]).tolist()
    text = f"OFF\n{len(points)} {len(triangles)} 0\n"
    text += "".join(f"{float(x)!r} {float(y)!r} {float(z)!r}\n" for x, y, z in points)
    text += "".join(f"3 {a} {b} {c}\n" for a, b, c in triangles)
    path = cli_helpers.write(tmp, "torus.off", text)
    coords, _ = cli_helpers.read_off(path)
    domain = ("--mesh", path, "--array", "z")
    POINTS[domain] = coords
    check_case(tmp, "torus", domain, triangles, coords[:, 2], (0.05, 0.2, 0.5, 5))


rng = np.random.default_rng(24)
with tempfile.TemporaryDirectory() as tmp:
    grid_case(tmp, "random2d", rng.random((16, 19)).astype(np.float32)[None],
              (0.01, 0.1, 0.3, 0.6, 2))
    grid_case(tmp, "ties2d", rng.integers(0, 4, (14, 15)).astype(np.uint8)[None], (1, 2, 3, 9))
    y, x = np.mgrid[0:20, 0:23]
    grid_case(tmp, "smooth2d", (np.sin(x / 2.0) * np.cos(y / 3.0)
                                + 0.05 * rng.random((20, 23))).astype(np.float32)[None],
              (0.02, 0.2, 1.0))
    random3d = grid_case(tmp, "random3d", rng.random((7, 8, 9)).astype(np.float32),
                         (0.05, 0.2, 0.4, 2))
    grid_case(tmp, "ties3d", rng.integers(0, 3, (6, 7, 8)).astype(np.uint8), (1, 2, 5))
    # a smooth field quantized to a few levels, as 8-bit volumes are: long runs of equal
    # persistence, whose cancellations must follow the elder rule's order
    z, y, x = np.mgrid[0:12, 0:13, 0:14]
    grid_case(tmp, "quantized3d", np.round(3 * (np.sin(x / 1.7) * np.cos(y / 2.1)
                                                + np.sin(z / 1.9) + 2)).astype(np.uint8),
              (1, 2, 4))
    z, y, x = np.mgrid[0:10, 0:11, 0:12]
    grid_case(tmp, "smooth3d", (np.sin(x / 2.0) * np.cos(y / 2.5) + np.sin(z / 3.0)
                                + 0.05 * rng.random((10, 11, 12))).astype(np.float32),
              (0.03, 0.3, 1.5))
    torus_case(tmp, rng)

    # ---- above the largest persistence: the essential extrema only; auto; lists ---------
    got = msc(tmp, "random3d_high", random3d, "--persistence-thresholds", "0.1,auto,100")
    if got is not None:
        answers = got[0]["simplified"]
        check([a["persistence_threshold"] for a in answers][0::2] == [0.1, 100]
              and answers[1]["automatic"] and not answers[0]["automatic"],
              f"--persistence-thresholds: {[a['persistence_threshold'] for a in answers]}")
        # every finite pair cancelled: a 3D box keeps its essential minimum only
        check(answers[2]["critical_cells"] == [1, 0, 0, 0]
              and answers[2]["arcs"]["saddle1_minimum"] == 0,
              f"T above the largest persistence: {answers[2]['critical_cells']}")
        auto = answers[1]
        check(auto["critical_cells"][0] <= 20 and auto["critical_cells"][3] <= 20
              and auto["persistence_threshold"] <= got[0]["largest_persistence"]
              and answers[0]["critical_cells"][0] > 20,
              f"auto: {auto['critical_cells']} at {auto['persistence_threshold']}")
        check(all(a["seconds"] >= 0 for a in answers) and got[0]["inconsistent_pairs"] == 0,
              "timings per answer; every pair of the diagram in the hierarchy")

    # ---- bad thresholds ------------------------------------------------------------------
    for bad in ("-1", "nan", "abc", "0.1,", "-0.5,1"):
        cli_helpers.expect_error(f"threshold {bad}", ["msc", *random3d,
                                                      "--persistence-thresholds", bad,
                                                      "--json"], "persistence threshold")
    cli_helpers.expect_error("two values", ["msc", *random3d, "--persistence-threshold",
                                            "1,2"], "one value")
cli_helpers.finish()
