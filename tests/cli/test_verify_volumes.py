"""The shared-volume verification (tests/bench/verify_persistence_volumes.py) on the
smallest shared volumes, and the simplification's second sweep round:

  1. bucky (32^3 uint8), m4_density (25x22x31 float32) and m4_TotalDensity.cube (the same
     values through VTK's cube reader and a .vti): `topogpu persistence` (simplicial and
     cubical) equals GUDHI's diagram and the union-find oracle agrees with GUDHI; `topogpu
     simplify` at 1% and 20% of the range and at an absolute threshold keeps the guarantee
     (volume_oracle.simplification_check);
  2. a 16x16 int16 field where one round of the two sweeps leaves an extra minimum: a
     removed maximum's region is a ring around a pit, and the maximum sweep orders the
     ring by hop distance from its saddle, so the two fronts meet at a vertex whose
     neighbours are all in the ring and all closer to the saddle, a new minimum that the
     second round's minimum sweep removes. With the default iterations the guarantee
     holds; with --iterations 1 the same check must fail (so the loop is what makes it
     hold, and the check sees it);
  3. the union-find oracle against GUDHI on small random 2D and 3D grids (both
     complexes); the checks can fail: a diagram row changed, a kept minimum raised.

    python3 test_verify_volumes.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "bench")
sys.path.insert(0, BENCH)
import cli_helpers  # noqa: E402
from cli_helpers import check, np  # noqa: E402

try:
    import gudhi  # noqa: F401
    import vtk  # noqa: F401
except ImportError:
    print("SKIP: gudhi or vtk is not available to this python")
    sys.exit(77)
import verify_persistence_volumes as verify  # noqa: E402
import volume_oracle as vo  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
VOLUMES = ["bucky_32x32x32_uint8.raw", "m4_density_25x22x31_float32.raw",
           "m4_TotalDensity.cube"]
RING = """
   0    0    0    0    0    0    0    0    0    0    0    0    0    0    0    0
   0    0    0 1037 1000 1003 1009    0    0    0    0 1036 1018 1011 1015    0
   0    0 1018 1024 1029 1023 1026 1001    0    0 1024 1018    0 1027 1023    0
   0    0 1036 1037 1002 1028 1012 1025 1012 1019 1024 1040    0    0    0    0
   0    0 1032 1034 1007 1028 1012 1005 1002 1029 1029 1021    0    0    0    0
   0 1004 1022 1019 1033    0    0 1001 1027 1006 1026 1036 1008 1002 1019    0
   0 1032 1005 1039 1017    0    0    0 1023 1037 1007 1024 1031 1023    0    0
   0 1004 1031 1029 1031    0    0    0 1038 1026 1007 1024 1020 1023    0    0
   0 1024 1023    0    0    0    0    0    0    0 1002 1033 1004    0    0    0
   0 1009 1012 1008    0    0    0    0    0    0    0 1014    0    0    0    0
   0 1032 1006    0    0    0    0    0    0    0 1013 1011    0    0    0    0
   0 1031 1038    0    0    0    0    0    0 1011 1024    0    0    0    0    0
   0 1014 1013 1017    0 1010 1005 1006 1019 1021 1006  980 2000 2000 2000 2000
   0 1032 1023 1035 1015 1025 1020 1016    0    0    0    0    0    0    0    0
   0 1003 1037 1013 1014 1029 1014    0    0    0    0    0    0    0    0    0
   0    0    0    0    0    0    0    0    0    0    0    0    0    0    0    0
"""


def shared_volumes(tmp):
    folder = os.path.join(DATA, "volumes")
    present = [v for v in VOLUMES if os.path.exists(os.path.join(folder, v))]
    for v in sorted(set(VOLUMES) - set(present)):
        print(f"skip {v}: not in {folder}")
    if not present:
        return
    out = os.path.join(tmp, "verify.json")
    result = subprocess.run([sys.executable, os.path.join(BENCH,
                                                          "verify_persistence_volumes.py"),
                             TOPOGPU, "--volumes-dir", folder, "--only", ",".join(present),
                             "--thresholds", "0.01,0.2", "--out", out],
                            capture_output=True, text=True, timeout=600)
    check(result.returncode == 0, f"verify_persistence_volumes.py: rc {result.returncode}: "
          f"{result.stdout[-600:]} {result.stderr[-600:]}")
    if not os.path.exists(out):
        return
    data = json.load(open(out))
    check(sorted(v["volume"] for v in data["volumes"]) == sorted(present),
          f"volumes run: {[v['volume'] for v in data['volumes']]}")
    for v in data["volumes"]:
        for complex_ in ("simplicial", "cubical"):
            r = v[complex_]
            check(r["equal"] and r.get("oracle") == "gudhi",
                  f"{v['volume']} {complex_}: oracle {r.get('oracle')}: {r['problems'][:3]}")
        if v["volume"].endswith(".raw"):
            runs = v.get("simplify", [])
            check(len(runs) == 3 and all(s["ok"] for s in runs),
                  f"{v['volume']} simplify: "
                  f"{[(s['mode'], s['threshold'], s['problems'][:2]) for s in runs]}")


def ring_case(tmp):
    values = np.array(RING.split(), dtype=np.int16)
    path = os.path.join(tmp, "ring.raw")
    values.tofile(path)
    volume = {"volume": "ring", "dims": (16, 16, 1), "values": values, "array": "Scalars",
              "domain": ["--raw", path, "--dims", "16,16,1", "--type", "int16"]}
    args = argparse.Namespace(gudhi_max_vertices=10 ** 6, gudhi_memory_gib=4,
                              thresholds=[0.05])
    cache = {}
    result, rows = verify.check_diagram(TOPOGPU, volume, "simplicial", args, cache, tmp)
    check(result["equal"] and result["oracle"] == "gudhi", f"ring diagram: {result['problems']}")
    (run,) = verify.check_simplify(TOPOGPU, volume, args, cache, rows, tmp, absolute=False)
    check(run["ok"], f"ring, default iterations: {run['problems']}")
    (once,) = verify.check_simplify(TOPOGPU, volume, args, cache, rows, tmp,
                                    extra=("--iterations", "1"), absolute=False)
    check(not once["ok"] and any("output minima" in p for p in once["problems"]),
          f"ring, one round: the check must see the extra minimum: {once['problems']}")
    return volume, rows


def oracle_against_gudhi():
    """The union-find oracle against GUDHI on small random grids (2D and 3D, tie-heavy
    and distinct values, both complexes): GUDHI's diagram must pass its checks."""
    rng = np.random.default_rng(25)
    for trial in range(8):
        dims = tuple(int(x) for x in rng.integers(2, 7, 3))
        dims = dims[:2] + (1,) if trial % 4 == 0 else dims
        n = int(np.prod(dims))
        values = rng.integers(0, 3, n).astype(np.float64) if trial % 2 else rng.random(n)
        for kind in ("simplicial", "cubical"):
            finite, essential, info = vo.gudhi_diagram(kind, dims, values, 4 << 30)
            rows = [{"PairType": k, "Birth": b, "Death": d, "IsFinite": 1}
                    for (k, b, d), c in finite.items() for _ in range(c)]
            rows += [{"PairType": k, "Birth": b, "Death": 0.0, "IsFinite": 0}
                     for (k, b), c in essential.items() for _ in range(c)]
            problems = vo.check_against_union_find(rows, vo.union_find(dims, values, kind))
            check(not problems, f"union-find vs GUDHI, {kind} {dims}: {problems}")


def checks_can_fail(tmp, volume, rows):
    uf = vo.union_find(volume["dims"], volume["values"].astype(np.float64))
    wrong = [dict(r) for r in rows]
    r = next(r for r in wrong if r["IsFinite"] and r["PairType"] == 0)
    r["Death"] += 1
    check(vo.check_against_union_find(wrong, uf), "a changed death was not seen")
    # the input itself as the 'simplified' output at a threshold that removes pairs,
    # with one vertex of the unchanged region raised
    before = volume["values"]
    after = before.copy()
    f = before.astype(np.float64)
    threshold = float(np.ptp(f)) * 0.05
    kmin, _ = vo.kept_extrema(uf, volume["dims"], threshold)
    after[min(kmin)] += 1  # a kept minimum raised
    order = np.argsort(np.lexsort((np.arange(len(after)), after)))
    expected, _, _ = vo.gudhi_diagram("simplicial", volume["dims"], f, 4 << 30)
    _, problems = vo.simplification_check(volume["dims"], before, after, order, threshold,
                                          uf, expected, rows)
    check(any("raised vertices outside" in p for p in problems),
          f"a raised kept minimum was not seen: {problems}")


with tempfile.TemporaryDirectory() as tmp:
    oracle_against_gudhi()
    shared_volumes(tmp)
    volume, rows = ring_case(tmp)
    checks_can_fail(tmp, volume, rows)
cli_helpers.finish()
