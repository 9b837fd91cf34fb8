"""The persistence diagram and the topological simplification's guarantee on every shared
volume, against oracles written without the project's code (volume_oracle.py):

  * diagram: `topogpu persistence` (simplicial, TTK's, and --complex cubical) against
    GUDHI (lower-star SimplexTree of TTK's Freudenthal tets; cubical complex of the
    refined grid) where it fits (--gudhi-max-vertices, its address space capped by
    --gudhi-memory-gib): the multisets of finite pairs (type, birth, death) of positive
    persistence and of essential classes (type, birth) must be equal. Always also the
    union-find oracle (exact pairs of dimension 0 and 2; b1 at every value from the Euler
    characteristic): where GUDHI ran it must agree with GUDHI, where GUDHI did not it is
    the oracle (the dimension-1 pairs then checked through b1(t) only);
  * simplification (simplicial): `topogpu simplify` at relative thresholds (--thresholds,
    fractions of the range) and one absolute threshold (between two persistence values
    near the median extremum pair), then `topogpu persistence` of the output, checked by
    volume_oracle.simplification_check (the input diagram from GUDHI where it ran).

The .vti/.vtk volumes are read by `topogpu --mesh` and by VTK for the oracle; the .cube
file (no reader in topogpu) goes through VTK's Gaussian cube reader into a .vti. A volume
whose values equal an earlier one's reuses that one's oracle results.

    /usr/bin/python3 verify_persistence_volumes.py TOPOGPU [--volumes-dir DIR]
        [--only NAME,...] [--gudhi-max-vertices N] [--gudhi-memory-gib G]
        [--thresholds 0.01,0.05,0.2] [--no-simplify] [--simplify-max-vertices N]
        [--backend cpu|gpu|auto] [--out JSON] [--machine TEXT] [--note TEXT]...

Prints one JSON line per volume; exits 1 when any comparison fails (the failures are
listed in the JSON's "failures").
"""
import argparse
import collections
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import volume_oracle as vo  # noqa: E402

BACKEND = ["cpu"]  # --backend: topogpu's, for every run
RAW_TYPES = {"uint8": ("uint8", "<u1"), "int16le": ("int16", "<i2"),
             "float32": ("float32", "<f4"), "float64": ("float64", "<f8")}


def read_vtk_image(path):
    """(dims, values, array name) of a .vti, legacy .vtk or Gaussian .cube file."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    if path.endswith(".vti"):
        reader = vtk.vtkXMLImageDataReader()
    elif path.endswith(".cube"):
        reader = vtk.vtkGaussianCubeReader2()
    else:
        reader = vtk.vtkStructuredPointsReader()
    reader.SetFileName(path)
    reader.Update()
    image = reader.GetGridOutput() if path.endswith(".cube") else reader.GetOutput()
    array = image.GetPointData().GetScalars() or image.GetPointData().GetArray(0)
    return image.GetDimensions(), vtk_to_numpy(array).copy(), array.GetName()


def write_vti(path, dims, values, name):
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk
    image = vtk.vtkImageData()
    image.SetDimensions(*dims)
    array = numpy_to_vtk(values, deep=1)
    array.SetName(name)
    image.GetPointData().SetScalars(array)
    writer = vtk.vtkXMLImageDataWriter()
    writer.SetFileName(path)
    writer.SetInputData(image)
    writer.Write()


def shared_volumes(folder, names, tmp):
    """Every volume of the folder: dict(name, dims, values (its type), domain args)."""
    for name in sorted(os.listdir(folder)):
        stem = name.split("_")[0].split(".")[0].lower()
        if names and name not in names and stem not in names:
            continue
        path = os.path.join(folder, name)
        m = re.match(r".+_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$", name)
        if m:
            dims = tuple(int(m.group(i)) for i in (1, 2, 3))
            cli_type, dtype = RAW_TYPES[m.group(4)]
            values = np.fromfile(path, dtype=dtype).astype(cli_type)
            yield {"volume": name, "dims": dims, "values": values, "array": "Scalars",
                   "domain": ["--raw", path, "--dims", ",".join(map(str, dims)),
                              "--type", cli_type]}
        elif name.endswith((".vti", ".vtk", ".cube")):
            dims, values, array = read_vtk_image(path)
            note = ""
            if name.endswith(".cube"):
                array = "density"
                path = os.path.join(tmp, name + ".vti")
                write_vti(path, dims, values, array)
                note = "read through VTK's vtkGaussianCubeReader2 into a .vti"
            yield {"volume": name, "dims": tuple(dims), "values": values, "array": array,
                   "domain": ["--mesh", path, "--array", array], "note": note}


def read_rows(path):
    with open(path) as f:
        return [{k: float(v) if k in ("Birth", "Death", "Persistence") else int(v)
                 for k, v in row.items()} for row in csv.DictReader(f)]


def topogpu(binary, *args):
    start = time.time()
    result = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
    wall = time.time() - start
    if result.returncode != 0:
        raise RuntimeError(f"topogpu {args[0]} failed: {result.stderr.strip()[-400:]}")
    return json.loads(result.stdout), wall


def diagram(binary, domain, complex_, out):
    report, wall = topogpu(binary, "persistence", *domain, "--complex", complex_,
                           "--backend", BACKEND[0], "--json", "--no-pairs", "--out", out)
    return read_rows(out), {"process_seconds": round(wall, 3),
                            "total_seconds": report.get("total_seconds")}


def counters(rows):
    finite = collections.Counter((r["PairType"], r["Birth"], r["Death"]) for r in rows
                                 if r["IsFinite"] and r["Death"] > r["Birth"])
    essential = collections.Counter((r["PairType"], r["Birth"]) for r in rows
                                    if not r["IsFinite"])
    return finite, essential


def oracle_for(volume, complex_, args, cache):
    """GUDHI (when it fits) and the union-find oracle, cached by the values' content."""
    values = volume["values"].astype(np.float64)
    key = (complex_, volume["dims"], hashlib.sha1(values.tobytes()).hexdigest())
    if key in cache:
        return cache[key]
    entry = {"same_values_as": volume["volume"]}
    start = time.time()
    entry["uf"] = vo.union_find(volume["dims"], values, complex_)
    entry["uf_seconds"] = round(time.time() - start, 3)
    n = len(values)
    if n <= args.gudhi_max_vertices:
        finite, essential, info = vo.gudhi_diagram(complex_, volume["dims"], values,
                                                   int(args.gudhi_memory_gib * (1 << 30)))
        entry["gudhi"] = info
        if finite is not None:
            entry["gudhi_pairs"] = (finite, essential)
            rows = [{"PairType": k, "Birth": b, "Death": d, "IsFinite": 1}
                    for (k, b, d), c in finite.items() for _ in range(c)]
            rows += [{"PairType": k, "Birth": b, "Death": float("inf"), "IsFinite": 0}
                     for (k, b), c in essential.items() for _ in range(c)]
            entry["uf_vs_gudhi"] = vo.check_against_union_find(rows, entry["uf"])
    else:
        entry["gudhi"] = {"error": f"not run: {n} vertices > --gudhi-max-vertices"}
    cache[key] = entry
    return entry


def check_diagram(binary, volume, complex_, args, cache, tmp):
    rows, timing = diagram(binary, volume["domain"], complex_, os.path.join(tmp, "d.csv"))
    oracle = oracle_for(volume, complex_, args, cache)
    result = {"topogpu": timing, "pairs": len(rows),
              "union_find_seconds": oracle["uf_seconds"], "gudhi": oracle["gudhi"]}
    if oracle["same_values_as"] != volume["volume"]:
        result["oracle_of"] = oracle["same_values_as"]
    problems = [f"union-find: {p}" for p in vo.check_against_union_find(rows, oracle["uf"])]
    if "gudhi_pairs" in oracle:
        result["oracle"] = "gudhi"
        finite, essential = counters(rows)
        diff = vo.compare_counters(finite, oracle["gudhi_pairs"][0])
        if diff:
            problems.append(f"GUDHI finite pairs: {diff}")
        if essential != oracle["gudhi_pairs"][1]:
            problems.append(f"GUDHI essential {sorted(oracle['gudhi_pairs'][1])} != "
                            f"ours {sorted(essential)}")
        problems += [f"oracle self-check (union-find vs GUDHI): {p}"
                     for p in oracle["uf_vs_gudhi"]]
    else:
        result["oracle"] = "union-find (dimensions 0, 2) + Euler (b1)"
    result["equal"] = not problems
    result["problems"] = problems
    return result, rows


def absolute_threshold(uf):
    """Between two distinct extremum-pair persistence values near their median."""
    f = uf["values"]
    p = np.unique(np.concatenate([f[uf[f"pairs{k}"][1]] - f[uf[f"pairs{k}"][0]]
                                  for k in (0, 2)]))
    if len(p) < 2:
        return None
    i = max(1, len(p) // 2)
    return float((p[i - 1] + p[i]) / 2)


def check_simplify(binary, volume, args, cache, rows, tmp, extra=(), absolute=True):
    """simplify at each of args.thresholds (relative) and, with absolute, at
    absolute_threshold; extra: more simplify options."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    oracle = oracle_for(volume, "simplicial", args, cache)
    uf = oracle["uf"]
    if "gudhi_pairs" in oracle:
        expected, source = oracle["gudhi_pairs"][0], "gudhi"
    else:  # dimension 1 from ours, checked against b1 by Euler above
        expected = counters(rows)[0]
        source = "union-find + ours (dimension 1)"
    runs = [("relative", t) for t in args.thresholds]
    if absolute and absolute_threshold(uf) is not None:
        runs.append(("absolute", absolute_threshold(uf)))
    results = []
    for mode, t in runs:
        out = os.path.join(tmp, "s.vti")
        start = time.time()
        options = ["--relative"] if mode == "relative" else []
        try:
            report, wall = topogpu(binary, "simplify", *volume["domain"], "--threshold",
                                   repr(t), *options, *extra, "--backend", BACKEND[0], "--json",
                                   "--out", out)
            reader = vtk.vtkXMLImageDataReader()
            reader.SetFileName(out)
            reader.Update()
            pd = reader.GetOutput().GetPointData()
            after = vtk_to_numpy(pd.GetArray(volume["array"]))
            order = vtk_to_numpy(pd.GetArray(volume["array"] + "_Order"))
            out_rows, timing = diagram(binary, ["--mesh", out, "--array", volume["array"]],
                                       "simplicial", os.path.join(tmp, "s.csv"))
            summary, problems = vo.simplification_check(
                volume["dims"], volume["values"], after, order, report["threshold"], uf,
                expected, out_rows)
            if (report["kept_minima"], report["kept_maxima"]) != (summary["kept_minima"],
                                                                  summary["kept_maxima"]):
                problems.append(f"kept extrema: topogpu {report['kept_minima']} minima, "
                                f"{report['kept_maxima']} maxima; oracle "
                                f"{summary['kept_minima']}, {summary['kept_maxima']}")
        except RuntimeError as e:
            report, wall, timing, summary, problems = {}, 0, {}, {}, [str(e)]
        results.append({"mode": mode, "threshold": t,
                        "absolute_threshold": report.get("threshold"),
                        "iterations": report.get("iterations"),
                        "changed_vertices": report.get("changed_vertices"),
                        "simplify_seconds": round(wall, 3),
                        "output_diagram_seconds": timing.get("process_seconds"),
                        "check_seconds": round(time.time() - start - wall -
                                               (timing.get("process_seconds") or 0), 3),
                        "expected_from": source, **summary, "ok": not problems,
                        "problems": problems})
    return results


def write_summary(args, summary, failures):
    if not args.out:
        return
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    result = {"volumes": summary, "failures": failures, "cores": os.cpu_count(),
              "commit": commit, "backend": args.backend,
              "gudhi_max_vertices": args.gudhi_max_vertices,
              "gudhi_memory_gib": args.gudhi_memory_gib, "thresholds": args.thresholds}
    if args.machine:
        result["machine"] = args.machine
    if args.note:
        result["notes"] = args.note
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("topogpu")
    parser.add_argument("--volumes-dir", default=os.path.join(HERE, "..", "..", "..",
                                                              "shared", "data", "volumes"))
    parser.add_argument("--only", default="")
    parser.add_argument("--gudhi-max-vertices", type=int, default=2000000)
    parser.add_argument("--gudhi-memory-gib", type=float, default=14)
    parser.add_argument("--thresholds", default="0.01,0.05,0.2")
    parser.add_argument("--no-simplify", action="store_true")
    parser.add_argument("--simplify-max-vertices", type=int, default=1 << 40)
    parser.add_argument("--complexes", default="simplicial,cubical")
    parser.add_argument("--backend", default="cpu", choices=("cpu", "gpu", "auto"))
    parser.add_argument("--out", default="")
    parser.add_argument("--machine", default="")
    parser.add_argument("--note", action="append", default=[],
                        help="a paragraph for the page (e.g. a measurement made apart)")
    args = parser.parse_args()
    args.thresholds = [float(t) for t in args.thresholds.split(",") if t]
    BACKEND[0] = args.backend
    names = {n for n in args.only.split(",") if n}
    cache, summary, failures = {}, [], []
    with tempfile.TemporaryDirectory() as tmp:
        todo = sorted(shared_volumes(args.volumes_dir, names, tmp),
                      key=lambda v: len(v["values"]))
        for volume in todo:
            row = {"volume": volume["volume"], "dims": list(volume["dims"]),
                   "type": str(volume["values"].dtype), "vertices": len(volume["values"])}
            if volume.get("note"):
                row["note"] = volume["note"]
            start = time.time()
            rows = None
            for complex_ in args.complexes.split(","):
                try:
                    result, got = check_diagram(args.topogpu, volume, complex_, args, cache,
                                                tmp)
                except RuntimeError as e:
                    result, got = {"equal": False, "problems": [str(e)]}, None
                row[complex_] = result
                rows = got if complex_ == "simplicial" else rows
                failures += [f"{volume['volume']} {complex_}: {p}" for p in result["problems"]]
            if (not args.no_simplify and rows is not None and "note" not in volume
                    and len(volume["values"]) <= args.simplify_max_vertices
                    and not volume["domain"][0] == "--mesh"):
                row["simplify"] = check_simplify(args.topogpu, volume, args, cache, rows, tmp)
                failures += [f"{volume['volume']} simplify {s['mode']} {s['threshold']}: {p}"
                             for s in row["simplify"] for p in s["problems"]]
            row["seconds"] = round(time.time() - start, 1)
            for key in [k for k in cache if k[1] != volume["dims"]]:
                del cache[key]  # keep the memory of one volume's oracles
            print(json.dumps(row), flush=True)
            summary.append(row)
            write_summary(args, summary, failures)  # after each volume: a partial run counts
    print(json.dumps({"failures": failures}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
