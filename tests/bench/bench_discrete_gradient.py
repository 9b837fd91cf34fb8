#!/usr/bin/env python3
"""Discrete gradient benchmark: CPU (TBB, all cores) against GPU, same binary, same run.
For every raw volume (NAME_XxYxZ_type.raw) and optionally a synthetic N^3 float32 field,
runs `topogpu discrete-gradient --json` with each backend (fastest of --repeat runs),
checks that both found the same critical cells per dimension (gpu_equality compares every
cell's byte), and writes bench_discrete_gradient.json and bench_discrete_gradient.md with
the per-stage timings and peak memory.

    python3 tests/bench/bench_discrete_gradient.py --topogpu build/bin/topogpu \\
        --volumes ../shared/data/volumes --out out [--synthetic 512]
"""
import argparse
import json
import os
import sys

from bench_helpers import noise_input, noise_path, raw_volumes, run_json


def run(topogpu, path, dims, dtype, backend, repeat):
    cmd = [topogpu, "discrete-gradient", "--raw", path, "--dims", ",".join(map(str, dims)),
           "--type", dtype, "--complex", "cubical", "--backend", backend, "--repeat",
           str(repeat), "--json"]
    return run_json(cmd)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topogpu", required=True)
    p.add_argument("--volumes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--synthetic", type=int, default=0, help="also an N^3 float32 field")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    inputs = raw_volumes(args.volumes)
    if args.synthetic:
        inputs.append(noise_input(args.out, args.synthetic))
    rows, failed = [], False
    for name, path, dims, dtype in inputs:
        cpu = run(args.topogpu, path, dims, dtype, "cpu", args.repeat)
        gpu = run(args.topogpu, path, dims, dtype, "gpu", args.repeat)
        same = cpu["critical_cells"] == gpu["critical_cells"]
        failed |= not same or gpu["backend"] != "gpu"
        row = {"name": name, "dims": dims, "type": dtype,
               "critical_cells": cpu["critical_cells"], "gpu_critical_cells": gpu["critical_cells"],
               "cpu_seconds": min(cpu["runs_total_seconds"]),
               "gpu_seconds": min(gpu["runs_total_seconds"]), "gpu_backend": gpu["backend"],
               "cpu_timings": cpu["timings"], "gpu_timings": gpu["timings"],
               "cpu_peak_host_memory_mib": cpu["peak_host_memory_mib"],
               "gpu_peak_host_memory_mib": gpu["peak_host_memory_mib"],
               "peak_device_memory_mib": gpu["peak_device_memory_mib"]}
        rows.append(row)
        print(f"{name:24s} {'x'.join(map(str, dims)):>14s} {dtype:8s} {cpu['critical_cells']} "
              f"cpu {row['cpu_seconds']:.4f} s gpu {row['gpu_seconds']:.4f} s "
              f"({row['gpu_backend']}) same {same}")
    if args.synthetic:
        os.remove(noise_path(args.out, args.synthetic))
    with open(os.path.join(args.out, "bench_discrete_gradient.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(args.out, "bench_discrete_gradient.md"), "w") as f:
        f.write("| input | dims | type | critical cells | CPU s | CPU gradient s | GPU s | "
                "GPU gradient s | speed-up | CPU peak host MiB | device MiB in use | same |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['name']} | {'x'.join(map(str, r['dims']))} | {r['type']} | "
                    f"{' '.join(map(str, r['critical_cells']))} | {r['cpu_seconds']:.4f} | "
                    f"{r['cpu_timings'].get('gradient (cpu)', 0):.4f} | "
                    f"{r['gpu_seconds']:.4f} | {r['gpu_timings'].get('gradient (gpu)', 0):.4f} | "
                    f"{r['cpu_seconds'] / max(r['gpu_seconds'], 1e-9):.1f} | "
                    f"{r['cpu_peak_host_memory_mib']:.0f} | {r['peak_device_memory_mib']:.0f} | "
                    f"{r['critical_cells'] == r['gpu_critical_cells']} |\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
