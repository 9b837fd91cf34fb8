"""`topogpu msc --persistence-pairs` (arc cancellation in order of persistence) against
the persistence diagram of the lower-star filtration computed without any gradient by
tests/oracles/lower_star_persistence.py: a Z/2 boundary-matrix reduction on the smallest
grids, GUDHI's cubical persistence of the refined grid otherwise (both cross-checked on
the smallest grids).

    python3 test_msc_persistence.py TOPOGPU_BINARY SHARED_DATA_DIR

Values are compared as vertex ranks (the shared vertex order), so fields with massive ties
have one well-defined diagram. The CLI's pairs must equal, as multisets of (dimension,
birth rank, death rank), the oracle's finite pairs of positive persistence in H0 and
H_{d-1}, and in 3D with the saddle connections (stage 3) those of H1 too; the minima left
must be the essential H0 classes (one), no maximum may be left (a box has no essential top
class), and no saddle either; without stage 3 (some of the small cases) the saddles left
over must be those of the H1 pairs: the 1-saddles their births, the 2-saddles their deaths. Cases: 2D and 3D random grids up to 12^3 (uint8
with 2-4 levels, int16, float32 distinct and continuous), medium fields (~40^3: Gaussians,
sines, quantised noise) and two small real volumes (skipped when the data is
missing; with TOPOGPU_MSC_PERSISTENCE_ALL_VOLUMES set, every volume of the oracle's list).
"""
import collections
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import cli_helpers  # noqa: E402
import lower_star_persistence as oracle  # noqa: E402
from cli_helpers import check, np  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
# Brute force only below this many refined cells (pure python reduction).
BRUTE_LIMIT = 1500


def run_cli(path, dims, type_name, *extra, saddles=False):
    args = ["msc", "--raw", path, "--dims", ",".join(map(str, dims)), "--type", type_name,
            "--complex", "cubical", "--backend", "cpu", *([] if saddles else ["--no-saddle-connections"]), *extra]
    result = cli_helpers.topogpu(*args, timeout=300, memory=None)
    if result.returncode != 0:
        return None, f"rc {result.returncode}: {result.stderr.strip()[-300:]}"
    if "--json" not in extra:
        return result.stdout, None
    try:
        return json.loads(result.stdout), None
    except ValueError:
        return None, f"not JSON: {result.stdout[-300:]!r}"


def expected_from(pairs, essentials, d, saddles=False):
    """What the CLI must report, from an oracle diagram: with the saddle connections
    (saddles), every pair; without, those of H0 and H_{d-1}, the H1 pairs' saddles left."""
    positive = [(k, b, e) for k, b, e in pairs if b != e]
    listed = collections.Counter(p for p in positive if saddles or p[0] in (0, d - 1))
    h1 = 0 if saddles else sum(1 for p in positive if p[0] == 1)
    essential = collections.Counter(essentials)
    left = [0, 0] if d == 2 else [h1 + essential[1], h1 + essential[2]]
    return {"pairs": listed, "essential_minima": essential[0],
            "maxima_left": essential[d], "saddles_left": left}


def compare(label, grid, tmp, method, saddles=True):
    """grid is indexed [z, y, x] (raw files are x fastest). saddles: run stage 3, so
    that the 3D H1 pairs are computed too."""
    grid = np.asarray(grid)
    path = os.path.join(tmp, "case.raw")
    grid.astype(grid.dtype.newbyteorder("<")).tofile(path)
    dims = list(grid.shape[::-1])
    d = sum(1 for n in dims if n > 1)
    if method == "brute":
        expected = expected_from(*oracle.brute_force_pairs(grid), d, saddles)
    else:
        expected = expected_from(*oracle.gudhi_pairs(grid), d, saddles)
    out, error = run_cli(path, dims, grid.dtype.name, "--json", "--persistence-pairs",
                         saddles=saddles)
    if error:
        check(False, f"{label}: {error}")
        return
    got = out.get("persistence_pairs", {})
    pairs = collections.Counter(tuple(p[:3]) for p in got.get("pairs", []))
    missing, extra = expected["pairs"] - pairs, pairs - expected["pairs"]
    check(not missing and not extra,
          f"{label} ({method}{'' if saddles else ', no stage 3'}): pairs missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]} "
          f"({sum(expected['pairs'].values())} expected)")
    for key in ("essential_minima", "maxima_left", "saddles_left"):
        check(got.get(key) == expected[key],
              f"{label} ({method}): {key} {got.get(key)} != oracle {expected[key]}")
    # Each pair is a minimum/1-saddle or a (d-1)-saddle/maximum, its ranks are those
    # cells' highest vertex ranks and its values those vertices' values, read here.
    ranks = oracle.vertex_ranks(grid).ravel()
    flat = grid.ravel()
    refined = [2 * n - 1 for n in dims]
    ok = True
    for k, br, dr, bc, dc, bv, dv in got.get("pairs", []):
        for rank_, cell, value, want_dim in ((br, bc, bv, k), (dr, dc, dv, k + 1)):
            c = [cell % refined[0], cell // refined[0] % refined[1],
                 cell // (refined[0] * refined[1])]
            corners = [[]]
            for a in range(3):
                options = [c[a] // 2, c[a] // 2 + 1] if c[a] % 2 else [c[a] // 2]
                corners = [v + [o] for v in corners for o in options]
            ids = [x + dims[0] * (y + dims[1] * z) for x, y, z in corners]
            top = max(ids, key=lambda i: ranks[i])
            ok = ok and sum(x % 2 for x in c) == want_dim and ranks[top] == rank_
            # Values go through "%.9g": exact for float32, 9 digits for float64.
            ok = ok and bool(np.isclose(value, float(flat[top]), rtol=1e-8, atol=0))
    check(ok, f"{label}: a pair's cells, ranks or values do not match its cells")
    return sum(expected["pairs"].values())


def random_grid(rng, shape, regime):
    size = int(np.prod(shape))
    if regime == "distinct":
        return rng.permutation(size).reshape(shape).astype(np.float32)
    if regime == "float32":
        return rng.standard_normal(shape).astype(np.float32)
    if regime == "int16":
        return rng.integers(-300, 300, size=shape).astype(np.int16)
    return rng.integers(0, int(regime[-1]), size=shape).astype(np.uint8)


def small_cases(tmp):
    rng = np.random.default_rng(20261122)
    regimes = ["ties2", "distinct", "ties3", "float32", "ties4", "int16"]
    pairs = cases = 0
    for case in range(96):
        if case % 2:
            shape = tuple(int(s) for s in rng.integers(2, 13 if case % 8 == 1 else 7, size=3))
        else:
            shape = (1,) + tuple(int(s) for s in rng.integers(2, 13, size=2))
        regime = regimes[case % len(regimes)]
        grid = random_grid(rng, shape, regime)
        cells = int(np.prod([2 * s - 1 for s in shape]))
        label = f"small case {case} {shape} {regime}"
        if cells <= BRUTE_LIMIT:
            brute, gud = oracle.brute_force_pairs(grid), oracle.gudhi_pairs(grid)
            d = 3 if shape[0] > 1 else 2
            check(expected_from(*brute, d) == expected_from(*gud, d),
                  f"{label}: the oracle's brute force and GUDHI disagree")
        method = "brute" if cells <= BRUTE_LIMIT else "gudhi"
        pairs += compare(label, grid, tmp, method) or 0
        if case % 4 == 1:  # also without stage 3: H0 and H2 alone, the H1 saddles left
            compare(label, grid, tmp, method, saddles=False)
        cases += 1
    return cases, pairs


def medium_fields():
    rng = np.random.default_rng(40)
    z, y, x = np.meshgrid(*(np.linspace(0, 1, n) for n in (32, 36, 40)), indexing="ij")
    gauss = np.zeros_like(x)
    for _ in range(15):
        c = rng.random(3)
        gauss += rng.uniform(0.5, 2) * np.exp(-((x - c[0])**2 + (y - c[1])**2 + (z - c[2])**2)
                                               / (2 * rng.uniform(0.04, 0.15)**2))
    yield "sum of Gaussians 40x36x32 float32", gauss.astype(np.float32)
    yield "sum of Gaussians quantised to uint8", np.round(255 * gauss / gauss.max()).astype(
        np.uint8)
    sines = np.sin(5 * np.pi * x) * np.sin(4 * np.pi * y) * np.sin(3 * np.pi * z)
    yield "product of sines 40x36x32 float64", sines
    noise = rng.standard_normal((34, 36, 38))
    smooth = sum(np.roll(noise, s, axis=a) for a in range(3) for s in (-1, 0, 1))
    yield "smoothed noise 38x36x34 quantised to 6 levels (ties)", np.digitize(
        smooth, np.quantile(smooth, [0.2, 0.4, 0.6, 0.8, 0.9])).astype(np.uint8)
    yy, xx = np.meshgrid(np.linspace(0, 1, 150), np.linspace(0, 1, 200), indexing="ij")
    yield "2D sines plus noise 200x150", (np.sin(6 * np.pi * xx) * np.sin(5 * np.pi * yy)
                                         + 0.3 * rng.standard_normal(xx.shape))[None]
    yield "2D uint8 3 levels 120x90", rng.integers(0, 3, size=(1, 90, 120)).astype(np.uint8)


VOLUMES = ["bucky_32x32x32_uint8", "headmr_48x62x42_uint8"]
if os.environ.get("TOPOGPU_MSC_PERSISTENCE_ALL_VOLUMES"):  # ~5 min more: by hand, not CI
    VOLUMES += [n for n in oracle.VOLUMES if n not in VOLUMES]


def main():
    try:
        import gudhi  # noqa: F401
    except ImportError:
        print("FAIL: the oracle needs python3-gudhi (scripts/setup.sh installs it)")
        return 1
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        # The flag is opt-in: the default JSON has no "persistence_pairs"; the text
        # output names the pairs.
        path = os.path.join(tmp, "probe.raw")
        np.arange(27, dtype=np.float32)[::-1].tofile(path)
        out, error = run_cli(path, [3, 3, 3], "float32", "--json")
        check(error is None and "persistence_pairs" not in out,
              f"default JSON: {error or sorted(out)}")
        text, error = run_cli(path, [3, 3, 3], "float32", "--persistence-pairs")
        check(error is None and "persistence pairs: 0 (minimum, 1-saddle)" in text,
              f"text output: {error or text}")
        cases, pairs = small_cases(tmp)
        for label, field in medium_fields():
            pairs += compare(label, field, tmp, "gudhi") or 0
        volumes_dir = os.path.join(DATA, "volumes")
        if not os.path.isdir(volumes_dir):
            print(f"note: {volumes_dir} is missing: the real volumes are not checked")
        for name in VOLUMES if os.path.isdir(volumes_dir) else []:
            pairs += compare(name, oracle.load_volume(DATA, name), tmp, "gudhi") or 0
    print(f"{cli_helpers.passed} passed, {len(cli_helpers.failures)} failed ({cases} small "
          f"grids, {pairs} pairs, {time.time() - start:.0f} s)")
    return 1 if cli_helpers.failures else 0


if __name__ == "__main__":
    sys.exit(main())
