"""Persistence diagrams of the shared volumes: `topogpu persistence` (simplicial complex,
TTK's) against GUDHI's lower-star persistence of the same Freudenthal tets, with the time
of each stage, the process wall time and peak memory of both (CPU; with --gpu also the
device backend, whose diagram must equal the CPU's).

    /usr/bin/python3 bench_persistence.py TOPOGPU [--volumes-dir DIR] [--gpu]
        [--gudhi-max-vertices N] [--only NAME,...] [--ties N] [--large N] [--previous JSON]
        [--out JSON] [--machine TEXT]

--ties N adds a generated tie-heavy uint8 field of N^3 vertices (ties_NxNxN_uint8.raw:
a smooth field quantized to 8 levels plus noise in {0, 1}, seeded; 0: none). --large N
adds bench_helpers' smooth float32 field of N^3 vertices (the Morse-Smale benches' 1024^3
input) for the largest run a machine holds; where the CPU path is refused (its host
memory estimate over the available memory) the row keeps the refusal (cpu_error) and
the GPU run alone. --previous
reads an earlier summary (docs/bench-results/persistence_h200.json) and adds its process
times per volume (previous_*_process_seconds). --out writes the summary in the layout
tests/bench/write_benchmarks_doc.py reads (docs/bench-results/persistence_h200.json).
Each run's stage timings (cpu_timings, gpu_timings) and peak host memory (cpu_peak_mib,
gpu_peak_mib) and device memory (gpu_peak_device_mib) are kept, and the GPU run's
extremum-pair rounds (gpu_elder_rule: rounds and saddles left to the serial sweep, minima
then maxima) and the saddle-saddle boundary expansion's rounds (cpu_ and
gpu_boundary_expansion: rounds, 2-saddles settled in them and left to the serial part,
edges toggled, seconds of each part).

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
sys.path.insert(0, HERE)
from bench_helpers import finish_summary, smooth_input  # noqa: E402

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


def tie_field(folder, n):
    """A tie-heavy uint8 field of n^3 vertices: 8 levels of a smooth field plus noise."""
    import numpy as np
    z, y, x = np.meshgrid(*(np.arange(n, dtype=np.float64),) * 3, indexing="ij")
    smooth = np.sin(x / 9.0) + np.sin(y / 7.0 + 1.0) + np.sin(z / 11.0 + 2.0)
    levels = np.floor((smooth + 3.0) / 6.0 * 7.999).astype(np.uint8)
    noise = np.random.default_rng(22).integers(0, 2, size=levels.shape, dtype=np.uint8)
    name = f"ties_{n}x{n}x{n}_uint8.raw"
    (levels + noise).tofile(os.path.join(folder, name))
    return name, (n, n, n), "uint8"


def large_field(folder, n):
    """bench_helpers' smooth float32 field of n^3 vertices (slab by slab, in parallel)."""
    _, path, dims, dtype = smooth_input(folder, n)
    name = f"smooth_{n}x{n}x{n}_float32.raw"
    os.rename(path, os.path.join(folder, name))
    return name, dims, dtype


def volumes(folder, names):
    for name in sorted(os.listdir(folder)):
        m = re.match(r"(.+)_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$", name)
        if m and (not names or name in names or m.group(1) in names):
            yield name, tuple(int(m.group(i)) for i in (2, 3, 4)), m.group(5)


def run_topogpu(topogpu, path, dims, dtype, backend, out, refusal_ok=False):
    start = time.time()
    result = subprocess.run([topogpu, "persistence", "--raw", path, "--dims",
                             ",".join(map(str, dims)), "--type", TYPES[dtype], "--backend",
                             backend, "--json", "--no-pairs", "--out", out],
                            capture_output=True, text=True)
    wall = time.time() - start
    if result.returncode != 0 and refusal_ok and "more than the memory budget" in result.stderr:
        return None, result.stderr.strip(), None
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
    parser.add_argument("--ties", type=int, default=160)
    parser.add_argument("--large", type=int, default=0)
    parser.add_argument("--previous", default="")
    parser.add_argument("--out", default="")
    parser.add_argument("--machine", default="")
    args = parser.parse_args()
    previous = {}
    if args.previous:
        with open(args.previous) as f:
            previous = {v["volume"]: v for v in json.load(f)["volumes"]}
    names = [n for n in args.only.split(",") if n]
    try:
        import gudhi  # noqa: F401
        has_gudhi = True
    except ImportError:
        has_gudhi = False
        print("note: no gudhi in this python: the GUDHI comparison is skipped", flush=True)
    summary, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        todo = [(args.volumes_dir, v) for v in volumes(args.volumes_dir, names)]
        if args.ties > 0 and (not names or "ties" in names):
            todo.append((tmp, tie_field(tmp, args.ties)))
        if args.large > 0:
            todo.append((tmp, large_field(tmp, args.large)))
        for folder, (name, dims, dtype) in todo:
            path = os.path.join(folder, name)
            n = dims[0] * dims[1] * dims[2]
            row = {"volume": name, "vertices": n}
            out = os.path.join(tmp, "cpu.csv")
            large = name.startswith("smooth_")
            report, wall, rows = run_topogpu(args.topogpu, path, dims, dtype, "cpu", out,
                                             refusal_ok=large)
            if report is None:
                row.update(cpu_error=wall)
            else:
                timings = report["timings"]
                pairing = sum(v for k, v in timings.items() if k.startswith("pairing")
                              or k.startswith("diagram records"))
                row.update(cpu_process_seconds=wall, cpu_total_seconds=report["total_seconds"],
                           cpu_pairing_seconds=pairing,
                           cpu_complex_seconds=report["total_seconds"] - pairing,
                           cpu_peak_mib=report["peak_host_memory_mib"], pairs=len(rows),
                           pair_counts=report["pair_counts"], cpu_timings=timings,
                           cpu_boundary_expansion=report.get("boundary_expansion"))
            ours = multisets(rows) if rows is not None else None
            if args.gpu:
                report_g, wall_g, rows_g = run_topogpu(args.topogpu, path, dims, dtype, "gpu",
                                                       os.path.join(tmp, "gpu.csv"))
                same = rows_g == rows if rows is not None else None
                failures += same is False
                if rows is None:
                    row.update(pairs=len(rows_g), pair_counts=report_g["pair_counts"])
                row.update(gpu_process_seconds=wall_g,
                           gpu_total_seconds=report_g["total_seconds"],
                           gpu_peak_device_mib=report_g["peak_device_memory_mib"],
                           gpu_peak_mib=report_g["peak_host_memory_mib"],
                           gpu_timings=report_g["timings"],
                           gpu_elder_rule=report_g.get("elder_rule"),
                           gpu_boundary_expansion=report_g.get("boundary_expansion"),
                           gpu_backend=report_g["backend"], gpu_equals_cpu=same)
            for key in ("cpu_process_seconds", "gpu_process_seconds"):
                if key in previous.get(name, {}):
                    row["previous_" + key] = previous[name][key]
            if has_gudhi and n <= args.gudhi_max_vertices and ours is not None:
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
    result = {"volumes": summary, "failures": failures, "cores": os.cpu_count()}
    finish_summary(result, args.machine, args.out)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
