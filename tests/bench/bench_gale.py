#!/usr/bin/env python3
"""Critical points on tetrahedralized volumes with the explicit backend and GALE (CPU and
GPU producers), through the CLI, as GALE's paper measures them: total time, GALE's
initialization time (segmentation, cells per segment, edge/triangle lists), the time its
consumers waited on producers, and peak host memory (the kernel's maxrss of each run,
one process per run, os.wait4). Each volume is stored as its Freudenthal tets with the
zero-valued vertices and the tets holding them dropped (--drop-zero, as the paper drops
the background voxels). The counts must agree across backends (checked).

    python3 tests/bench/bench_gale.py [--volumes DIR] [--cases engine,aneurism]
        [--binary build/bin/topogpu] [--repeat 2] [--output JSON]

Cases are NAME_XxYxZ_type.raw files of --volumes (default ../shared/data/volumes, or
.devdata/volumes on the device). Writes docs/bench-results/gale_critical_points.json
(rows of other cases kept) and prints one line per run.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_helpers import raw_volumes  # noqa: E402

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BACKENDS = ["explicit", "gale-cpu", "gale-gpu"]


def run_measured(cmd):
    out_file, err_file = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out_file, stderr=err_file)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out_file.seek(0)
    err_file.seek(0)
    code = os.waitstatus_to_exitcode(status)
    report = json.loads(out_file.read().decode(errors="replace")) if code == 0 else None
    return code, wall, usage.ru_maxrss / 1024.0, report, err_file.read().decode()[-1000:]


def main():
    default_volumes = os.path.join(root, ".devdata", "volumes")
    if not os.path.isdir(default_volumes):
        default_volumes = os.path.abspath(os.path.join(root, "..", "shared", "data", "volumes"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--volumes", default=default_volumes)
    parser.add_argument("--cases", default="engine,aneurism")
    parser.add_argument("--binary", default=os.path.join(root, "build", "bin", "topogpu"))
    parser.add_argument("--repeat", type=int, default=2, help="runs per backend; fastest kept")
    parser.add_argument("--segment-size", type=int, default=100)
    parser.add_argument("--output",
                        default=os.path.join(root, "docs/bench-results/gale_critical_points.json"))
    args = parser.parse_args()
    volumes = {name: (path, dims, dtype) for name, path, dims, dtype in raw_volumes(args.volumes)}
    result = {"rows": []}
    if os.path.exists(args.output):
        result = json.load(open(args.output))
    cases = args.cases.split(",")
    result["rows"] = [r for r in result["rows"] if r["case"] not in cases]
    result["host"] = f"{platform.node()} ({os.cpu_count()} cores)"
    failed = False
    for case in cases:
        if case not in volumes:
            print(f"skip {case}: no {case}_*.raw in {args.volumes}")
            continue
        path, dims, dtype = volumes[case]
        counts = {}
        for backend in BACKENDS:
            best = None
            for _ in range(max(1, args.repeat)):
                cmd = [args.binary, "critical-points", "--raw", path,
                       "--dims", ",".join(map(str, dims)), "--type", dtype,
                       "--triangulation", backend, "--drop-zero", "--backend", "cpu",
                       "--segment-size", str(args.segment_size), "--json"]
                code, wall, peak, report, err = run_measured(cmd)
                if code != 0:
                    print(f"{case} {backend}: exit {code}: {err}")
                    failed = True
                    break
                gale = report.get("gale", {})
                row = {"case": case, "backend": backend, "vertices": report["vertices"],
                       "total_seconds": report["total_seconds"],
                       "mesh_seconds": report["triangulation_seconds"],
                       "initialization_seconds": gale.get("initialization_seconds"),
                       "consumer_wait_seconds": gale.get("consumer_wait_seconds"),
                       "producer": gale.get("producer"),
                       "peak_host_memory_mib": round(peak, 1), "wall_seconds": round(wall, 3),
                       "timings": report.get("timings"), "counts": report["counts"],
                       "warnings": report.get("warnings", [])}
                print(json.dumps({k: row[k] for k in ("case", "backend", "total_seconds",
                                                      "initialization_seconds",
                                                      "consumer_wait_seconds",
                                                      "peak_host_memory_mib")}), flush=True)
                if best is None or row["total_seconds"] < best["total_seconds"]:
                    best = row
            if best is None:
                continue
            counts[backend] = best["counts"]
            result["rows"].append(best)
        if len({json.dumps(c, sort_keys=True) for c in counts.values()}) > 1:
            print(f"{case}: the backends disagree: {counts}")
            failed = True
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(result, f, indent=1)
    print("wrote", args.output)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
