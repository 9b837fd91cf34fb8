#!/usr/bin/env python3
"""The Morse-Smale complex on the simplicial complex (TTK's) beside the cubical one (the
baseline), on each of --backends (cpu, gpu; default cpu), per input: process wall time,
the CLI's stage timings and the peak resident memory (/usr/bin/time -v; the CLI's own peak_host_memory_mib where time is missing).
Inputs: raw volumes (NAME_XxYxZ_type.raw in --volumes, --only to pick some) and N^3
float32 normal-noise fields (--random 128: seed 1, written with the standard library, so
no numpy is needed). --cores N pins the runs to the first N cores (taskset), as the
2-core build machine of the issue's target. Each simplicial run is checked against
Euler's relation on a box (n0 - n1 + n2 - n3 = 1; 2D: n0 - n1 + n2 = 1), so a wrong
complex fails the benchmark (exit 1) rather than reporting a speed. Writes
bench_msc_simplicial.json and .md into --out.

    python3 tests/bench/bench_msc_simplicial.py --topogpu build/bin/topogpu \\
        --volumes ../shared/data/volumes --only engine --random 128 --cores 2 --out out

TTK 1.2 is not run here: its figures on the H200 host are quoted in issue 21 (engine
12.2 s, 8.7 GB with 16 threads).
"""
import argparse
import array
import json
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_helpers import raw_volumes  # noqa: E402


def random_field(out, n):
    """An n^3 float32 standard-normal field (seed 1), written once per size."""
    path = os.path.join(out, f"random_{n}.raw")
    if not os.path.exists(path):
        rng = random.Random(1)
        with open(path, "wb") as f:
            for _ in range(n):  # one slab at a time: bounded memory
                array.array("f", (rng.gauss(0.0, 1.0) for _ in range(n * n))).tofile(f)
    return (f"random {n}^3", path, (n, n, n), "float32")


def run(topogpu, row, complex_, backend, cores, timeout):
    name, path, dims, dtype = row
    cmd = [topogpu, "msc", "--raw", path, "--dims", ",".join(map(str, dims)), "--type",
           dtype, "--complex", complex_, "--backend", backend, "--json"]
    if cores:
        cmd = ["taskset", "-c", f"0-{cores - 1}"] + cmd
    if os.path.exists("/usr/bin/time"):
        cmd = ["/usr/bin/time", "-v"] + cmd
    start = time.monotonic()
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = time.monotonic() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {result.stderr[-2000:]}")
    out = json.loads(result.stdout)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    peak_gb = (int(rss.group(1)) / 2**20 if rss
               else out.get("peak_host_memory_mib", 0) / 1024)
    return {"input": name, "complex": complex_, "backend": out.get("backend", backend),
            "process_seconds": round(wall, 3),
            "peak_rss_gb": round(peak_gb, 3), "timings": out.get("timings", {}),
            "critical_cells": out.get("critical_cells"),
            "arcs": out.get("arcs")}


def euler_ok(row, dims):
    n = row["critical_cells"]
    alternating = n[0] - n[1] + n[2] - (n[3] if sum(d > 1 for d in dims) == 3 else 0)
    return alternating == 1


def write_markdown(path, rows):
    lines = ["# Morse-Smale complex: simplicial (TTK's) against cubical", "",
             "| input | complex | backend | process s | peak RSS GB | stages (s) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        stages = ", ".join(f"{k} {v:.2f}" for k, v in r["timings"].items() if v >= 0.05)
        lines.append(f"| {r['input']} | {r['complex']} | {r.get('backend', 'cpu')} | "
                     f"{r['process_seconds']:.2f} | "
                     f"{r['peak_rss_gb']:.2f} | {stages} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topogpu", required=True)
    ap.add_argument("--volumes", default="")
    ap.add_argument("--only", default="", help="comma-separated volume names")
    ap.add_argument("--random", default="", help="comma-separated N for N^3 fields")
    ap.add_argument("--cores", type=int, default=0, help="pin to the first N cores")
    ap.add_argument("--no-cubical", action="store_true", help="skip the baseline")
    ap.add_argument("--backends", default="cpu",
                    help="comma-separated: cpu, gpu (each complex runs on each)")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    inputs = []
    if args.volumes:
        only = {s for s in args.only.split(",") if s}
        inputs += [v for v in raw_volumes(args.volumes) if not only or v[0] in only]
    inputs += [random_field(args.out, int(n)) for n in args.random.split(",") if n]
    rows, failed = [], False
    for row in inputs:
        runs = [(c, b) for c in ("simplicial",) + (() if args.no_cubical else ("cubical",))
                for b in args.backends.split(",")]
        for complex_, backend in runs:
            try:
                r = run(args.topogpu, row, complex_, backend, args.cores, args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"FAILED {row[0]} {complex_} {backend}: {e}", file=sys.stderr)
                failed = True
                continue
            if complex_ == "simplicial" and not euler_ok(r, row[2]):
                print(f"FAILED {row[0]}: Euler's relation does not hold for "
                      f"{r['critical_cells']}", file=sys.stderr)
                failed = True
            rows.append(r)
            print(f"{r['input']:>20} {complex_:>10} {backend:>4} {r['process_seconds']:8.2f} s "
                  f"{r['peak_rss_gb']:6.2f} GB  {r['timings']}")
    result = {"cores": args.cores or os.cpu_count(), "rows": rows}
    with open(os.path.join(args.out, "bench_msc_simplicial.json"), "w") as f:
        json.dump(result, f, indent=1)
    write_markdown(os.path.join(args.out, "bench_msc_simplicial.md"), rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
