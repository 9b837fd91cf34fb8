"""Persistence diagrams of the shared volumes: `topogpu persistence` (simplicial complex,
TTK's) against GUDHI's lower-star persistence of the same Freudenthal tets, with the time
of each stage, the process wall time and peak memory of both (CPU; with --gpu also the
device backend, whose diagram must equal the CPU's).

    /usr/bin/python3 bench_persistence.py TOPOGPU [--volumes-dir DIR] [--gpu]
        [--gudhi-max-vertices N] [--only NAME,...]

GUDHI runs in a child process (its own wall time and peak memory) only on volumes of at
most --gudhi-max-vertices vertices (default 300000: its simplex tree holds every simplex);
where it runs, the finite pairs of positive persistence and the essential classes must be
equal as multisets (without GUDHI in this python the comparison is skipped with a note).
Prints one line per volume and a JSON summary on the last line.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracles"))

TYPES = {"uint8": "uint8", "int16le": "int16", "float32": "float32", "float64": "float64"}

GUDHI_CHILD = r"""
import sys, time, json, resource
import numpy as np
sys.path.insert(0, sys.argv[1])
import simplicial_persistence as oracle
path, nx, ny, nz, dtype = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
start = time.time()
values = np.fromfile(path, dtype=np.dtype(dtype)).astype(np.float64)
finite, essential = oracle.gudhi_diagram(oracle.grid_simplices(nx, ny, nz), values)
print(json.dumps({"seconds": time.time() - start,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "finite": finite, "essential": essential}))
"""


def volumes(folder, names):
    for name in sorted(os.listdir(folder)):
        m = re.match(r"(.+)_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$", name)
        if m and (not names or name in names or m.group(1) in names):
            yield name, tuple(int(m.group(i)) for i in (2, 3, 4)), m.group(5)


def run_topogpu(topogpu, path, dims, dtype, backend, out):
    start = time.time()
    result = subprocess.run([topogpu, "persistence", "--raw", path, "--dims",
                             ",".join(map(str, dims)), "--type", TYPES[dtype], "--backend",
                             backend, "--json", "--no-pairs", "--out", out],
                            capture_output=True, text=True)
    wall = time.time() - start
    if result.returncode != 0:
        raise SystemExit(f"topogpu failed: {result.stderr[-400:]}")
    report = json.loads(result.stdout)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    return report, wall, rows


def multisets(rows):
    finite = collections.Counter((int(r["PairType"]), float(r["Birth"]), float(r["Death"]))
                                 for r in rows if r["IsFinite"] == "1"
                                 and float(r["Death"]) > float(r["Birth"]))
    essential = collections.Counter((int(r["PairType"]), float(r["Birth"])) for r in rows
                                    if r["IsFinite"] == "0")
    return finite, essential


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("topogpu")
    parser.add_argument("--volumes-dir",
                        default=os.path.join(HERE, "..", "..", "..", "shared", "data", "volumes"))
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--gudhi-max-vertices", type=int, default=300000)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    try:
        import gudhi  # noqa: F401
        has_gudhi = True
    except ImportError:
        has_gudhi = False
        print("note: no gudhi in this python: the GUDHI comparison is skipped", flush=True)
    summary, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, dims, dtype in volumes(args.volumes_dir, names):
            path = os.path.join(args.volumes_dir, name)
            n = dims[0] * dims[1] * dims[2]
            row = {"volume": name, "vertices": n}
            out = os.path.join(tmp, "cpu.csv")
            report, wall, rows = run_topogpu(args.topogpu, path, dims, dtype, "cpu", out)
            timings = report["timings"]
            pairing = sum(v for k, v in timings.items() if k.startswith("pairing")
                          or k.startswith("diagram records"))
            row.update(cpu_process_seconds=wall, cpu_total_seconds=report["total_seconds"],
                       cpu_pairing_seconds=pairing,
                       cpu_complex_seconds=report["total_seconds"] - pairing,
                       cpu_peak_mib=report["peak_host_memory_mib"], pairs=len(rows),
                       pair_counts=report["pair_counts"])
            ours = multisets(rows)
            if args.gpu:
                report_g, wall_g, rows_g = run_topogpu(args.topogpu, path, dims, dtype, "gpu",
                                                       os.path.join(tmp, "gpu.csv"))
                same = rows_g == rows
                failures += not same
                row.update(gpu_process_seconds=wall_g,
                           gpu_total_seconds=report_g["total_seconds"],
                           gpu_peak_device_mib=report_g["peak_device_memory_mib"],
                           gpu_backend=report_g["backend"], gpu_equals_cpu=same)
            if has_gudhi and n <= args.gudhi_max_vertices:
                dt = {"int16le": "<i2"}.get(dtype, dtype)
                start = time.time()
                child = subprocess.run([sys.executable, "-c", GUDHI_CHILD,
                                        os.path.join(HERE, "..", "oracles"), path,
                                        *map(str, dims), dt], capture_output=True, text=True)
                if child.returncode != 0:
                    raise SystemExit(f"gudhi failed on {name}: {child.stderr[-400:]}")
                g = json.loads(child.stdout)
                theirs = (collections.Counter(tuple(p) for p in g["finite"]),
                          collections.Counter(tuple(p) for p in g["essential"]))
                same = theirs == ours
                failures += not same
                row.update(gudhi_process_seconds=time.time() - start,
                           gudhi_seconds=g["seconds"], gudhi_peak_mib=g["peak_mib"],
                           equals_gudhi=same)
            print(json.dumps(row), flush=True)
            summary.append(row)
    print(json.dumps({"volumes": summary, "failures": failures}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
