#!/usr/bin/env python3
"""Scalar field smoother benchmark: CPU (TBB, all cores) against GPU, same binary, same
run. For every raw volume (NAME_XxYxZ_type.raw) and optionally a synthetic N^3 float32
field, runs `topogpu smooth --iterations K --json` with each backend (fastest of
--repeat runs), checks that both wrote byte-identical volumes, and writes
bench_smooth.json and bench_smooth.md.

    python3 tests/bench/bench_smooth.py --topogpu build/bin/topogpu \\
        --volumes ../shared/data/volumes --out out [--iterations 10] [--synthetic 256]
"""
import argparse
import filecmp
import json
import os
import sys

from bench_helpers import noise_input, noise_path, raw_volumes, run_json


def run(topogpu, path, dims, dtype, backend, iterations, repeat, output):
    cmd = [topogpu, "smooth", "--raw", path, "--dims", ",".join(map(str, dims)),
           "--type", dtype, "--iterations", str(iterations), "--backend", backend,
           "--repeat", str(repeat), "--output", output, "--json"]
    return run_json(cmd)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topogpu", required=True)
    p.add_argument("--volumes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--synthetic", type=int, default=0, help="also an N^3 float32 field")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    inputs = raw_volumes(args.volumes)
    if args.synthetic:
        inputs.append(noise_input(args.out, args.synthetic))
    rows, failed = [], False
    for name, path, dims, dtype in inputs:
        out_cpu = os.path.join(args.out, "smooth_cpu.raw")
        out_gpu = os.path.join(args.out, "smooth_gpu.raw")
        cpu = run(args.topogpu, path, dims, dtype, "cpu", args.iterations, args.repeat, out_cpu)
        gpu = run(args.topogpu, path, dims, dtype, "gpu", args.iterations, args.repeat, out_gpu)
        identical = filecmp.cmp(out_cpu, out_gpu, shallow=False)
        failed |= not identical or gpu["backend"] != "gpu"
        row = {"name": name, "dims": dims, "type": dtype, "iterations": args.iterations,
               "cpu_seconds": min(cpu["runs_total_seconds"]),
               "gpu_seconds": min(gpu["runs_total_seconds"]), "gpu_backend": gpu["backend"],
               "identical": identical,
               "cpu_peak_host_memory_mib": cpu["peak_host_memory_mib"],
               "gpu_peak_host_memory_mib": gpu["peak_host_memory_mib"],
               "peak_device_memory_mib": gpu["peak_device_memory_mib"]}
        rows.append(row)
        print(f"{name:24s} {'x'.join(map(str, dims)):>14s} {dtype:8s} cpu {row['cpu_seconds']:.4f} s "
              f"gpu {row['gpu_seconds']:.4f} s ({row['gpu_backend']}) identical {identical}")
        for f in (out_cpu, out_gpu):
            os.remove(f)
    with open(os.path.join(args.out, "bench_smooth.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(args.out, "bench_smooth.md"), "w") as f:
        f.write(f"| input | dims | type | passes | CPU s | GPU s | speed-up | CPU peak host MiB | "
                f"GPU-run peak host MiB | device MiB in use | identical |\n"
                f"|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['name']} | {'x'.join(map(str, r['dims']))} | {r['type']} | "
                    f"{r['iterations']} | {r['cpu_seconds']:.4f} | {r['gpu_seconds']:.4f} | "
                    f"{r['cpu_seconds'] / max(r['gpu_seconds'], 1e-9):.1f} | "
                    f"{r['cpu_peak_host_memory_mib']:.0f} | {r['gpu_peak_host_memory_mib']:.0f} | "
                    f"{r['peak_device_memory_mib']:.0f} | {r['identical']} |\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
