#!/usr/bin/env python3
"""Critical points benchmark: CPU (TBB, all cores) against GPU, same binary, same run.

For every raw volume (NAME_XxYxZ_type.raw) and optionally a synthetic N^3 float32
field, runs `topogpu critical-points --json` with each backend, keeps the fastest of
--repeat runs (the first GPU run pays for context creation), checks both backends found
the same counts, and writes bench_critical_points.json and bench_critical_points.md.

    python3 tests/bench/bench_critical_points.py --topogpu build/bin/topogpu \
        --volumes ../shared/data/volumes --out out [--synthetic 512] [--repeat 3]
"""
import argparse
import json
import os
import sys

from bench_helpers import PATTERN, run_json


def run(topogpu, path, dims, dtype, backend, repeat, triangulation="implicit"):
    cmd = [topogpu, "critical-points", "--raw", path, "--dims", ",".join(map(str, dims)),
           "--type", dtype, "--backend", backend, "--json", "--repeat", str(repeat),
           "--triangulation", triangulation]
    return run_json(cmd)


def synthetic(n, folder):
    import numpy as np
    path = os.path.join(folder, f"synthetic_{n}x{n}x{n}_float32.raw")
    if not os.path.exists(path):
        rng = np.random.default_rng(1)
        x = np.linspace(0, 1, n, dtype=np.float32)
        field = np.zeros((n, n, n), dtype=np.float32)
        for _ in range(12):  # a sum of Gaussians plus a little noise
            c = rng.random(3).astype(np.float32)
            s = np.float32(0.05 + 0.1 * rng.random())
            gz = np.exp(-((x - c[2]) ** 2) / (2 * s * s))[:, None, None]
            gy = np.exp(-((x - c[1]) ** 2) / (2 * s * s))[None, :, None]
            gx = np.exp(-((x - c[0]) ** 2) / (2 * s * s))[None, None, :]
            field += gz * gy * gx
        field += np.float32(1e-3) * rng.random((n, n, n), dtype=np.float32)
        field.tofile(path)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topogpu", required=True)
    p.add_argument("--volumes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--synthetic", type=int, default=0, help="also an N^3 float32 field")
    p.add_argument("--only", default="", help="comma-separated volume name prefixes")
    p.add_argument("--explicit", default="",
                   help="comma-separated volume prefixes also run on the CPU with the grid's "
                        "tets stored as an explicit mesh (the mesh backend's cost)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)

    inputs = []
    for name in sorted(os.listdir(args.volumes)):
        m = PATTERN.match(name)
        if not m or (args.only and not any(name.startswith(o) for o in args.only.split(","))):
            continue
        dtype = "int16" if m.group(5) == "int16le" else m.group(5)
        inputs.append((m.group(1), os.path.join(args.volumes, name),
                       [int(m.group(i)) for i in (2, 3, 4)], dtype))
    if args.synthetic:
        try:
            inputs.append((f"synthetic {args.synthetic}^3", synthetic(args.synthetic, "/tmp"),
                           [args.synthetic] * 3, "float32"))
        except ImportError:
            print("numpy missing: synthetic field skipped", file=sys.stderr)

    rows, ok = [], True
    for name, path, dims, dtype in inputs:
        row = {"name": name, "dims": dims, "type": dtype}
        for backend in ("cpu", "gpu"):
            # the big synthetic field runs once on the CPU: it is the slow side
            repeat = 1 if backend == "cpu" and name.startswith("synthetic") else args.repeat
            r = run(args.topogpu, path, dims, dtype, backend, repeat)
            row[backend] = {"backend_ran": r["backend"], "best_seconds": min(r["runs_total_seconds"]),
                            "timings_last_run": r["timings"], "counts": r["counts"],
                            "peak_host_memory_mib": r["peak_host_memory_mib"],
                            "peak_device_memory_mib": r["peak_device_memory_mib"],
                            "warnings": r["warnings"], "device": r.get("device", "")}
        same = row["cpu"]["counts"] == row["gpu"]["counts"]
        ok &= same and row["gpu"]["backend_ran"] == "gpu"
        row["speedup"] = row["cpu"]["best_seconds"] / max(row["gpu"]["best_seconds"], 1e-9)
        row["counts_identical"] = same
        rows.append(row)
        print(f"{name:28s} cpu {row['cpu']['best_seconds']:.4f} s  gpu {row['gpu']['best_seconds']:.4f} s"
              f"  x{row['speedup']:.1f}  same counts: {same}", flush=True)

    # The mesh backend on the same domains: what storing the triangulation costs.
    mesh_rows = []
    for name, path, dims, dtype in inputs:
        if not args.explicit or not any(name.startswith(o) for o in args.explicit.split(",")):
            continue
        # the implicit CPU run of the main table is the comparison: no second run
        cpu = next(r["cpu"] for r in rows if r["name"] == name)
        grid = {"total_seconds": cpu["best_seconds"], "peak_host_memory_mib": cpu["peak_host_memory_mib"],
                "counts": cpu["counts"]}
        mesh = run(args.topogpu, path, dims, dtype, "cpu", 1, "explicit")
        same = grid["counts"] == mesh["counts"]
        ok &= same
        mesh_rows.append({"name": name, "dims": dims, "type": dtype, "implicit": grid, "explicit": mesh,
                          "counts_identical": same})
        print(f"{name:28s} implicit {grid['total_seconds']:.3f} s {grid['peak_host_memory_mib']:.0f} MiB"
              f" | explicit build {mesh['triangulation_seconds']:.3f} s + run {mesh['total_seconds']:.3f} s"
              f" {mesh['peak_host_memory_mib']:.0f} MiB  same counts: {same}", flush=True)

    with open(os.path.join(args.out, "bench_critical_points.json"), "w") as f:
        json.dump({"cpu_count": os.cpu_count(), "rows": rows, "mesh_rows": mesh_rows}, f, indent=1)
    device = next((r["gpu"]["device"] for r in rows if r["gpu"]["device"]), "no GPU")
    lines = [f"Critical points, `topogpu critical-points`, best of {args.repeat} runs "
             f"(CPU: TBB on {os.cpu_count()} cores; GPU: {device}). Times include the vertex "
             "order; GPU times include host-device transfers.", "",
             "| volume | vertices | CPU s | GPU s | speedup | GPU classify s | CPU peak host MiB | GPU peak host MiB | GPU device MiB in use | counts equal |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n = r["dims"][0] * r["dims"][1] * r["dims"][2]
        classify = r["gpu"]["timings_last_run"].get("classify (gpu)", float("nan"))
        lines.append(f"| {r['name']} {'x'.join(map(str, r['dims']))} {r['type']} | {n} | "
                     f"{r['cpu']['best_seconds']:.4f} | {r['gpu']['best_seconds']:.4f} | {r['speedup']:.1f} | "
                     f"{classify:.4f} | {r['cpu']['peak_host_memory_mib']:.0f} | {r['gpu']['peak_host_memory_mib']:.0f} | "
                     f"{r['gpu']['peak_device_memory_mib']:.0f} | {r['counts_identical']} |")
    if mesh_rows:
        lines += ["", "Implicit grid vs the same tets as an explicit mesh (CPU, one run each):", "",
                  "| volume | tets | implicit s | implicit peak MiB | explicit build s | explicit precondition s | explicit total s | explicit peak MiB | counts equal |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in mesh_rows:
            d = r["dims"]
            tets = 6 * (d[0] - 1) * (d[1] - 1) * (d[2] - 1)
            g, m = r["implicit"], r["explicit"]
            lines.append(f"| {r['name']} {'x'.join(map(str, d))} | {tets} | {g['total_seconds']:.3f} | "
                         f"{g['peak_host_memory_mib']:.0f} | {m['triangulation_seconds']:.3f} | "
                         f"{m['timings'].get('precondition', 0):.3f} | "
                         f"{m['triangulation_seconds'] + m['total_seconds']:.3f} | "
                         f"{m['peak_host_memory_mib']:.0f} | {r['counts_identical']} |")
    with open(os.path.join(args.out, "bench_critical_points.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
