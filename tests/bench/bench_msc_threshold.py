#!/usr/bin/env python3
"""Persistence threshold of the Morse-Smale complex (the filter's slider) from the
cancellation hierarchy: one `topogpu msc --complex simplicial --persistence-thresholds`
run on a volume (default engine) computes the complex, its diagram and the hierarchy
once, then answers each threshold without recomputing the gradient. Records the process
wall time and peak memory, the complex's stages, the hierarchy's time and each answer's
time. The first answer also allocates the answer's arrays; later answers rewrite them
in place, as a slider move does in the filter (its cache keeps the last answer). The
list ends with the first threshold again, so both costs of the same answer show.

    /usr/bin/python3 tests/bench/bench_msc_threshold.py TOPOGPU [--volumes-dir DIR]
        [--only engine] [--backend gpu] [--thresholds auto,1,5,20,100,auto]
        [--machine TEXT] --out FILE
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_helpers import raw_volumes, run_json  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("topogpu")
    p.add_argument("--volumes-dir",
                   default=os.path.join(HERE, "..", "..", "..", "shared", "data", "volumes"))
    p.add_argument("--only", default="engine")
    p.add_argument("--backend", default="gpu")
    p.add_argument("--thresholds", default="auto,1,5,20,100,auto")
    p.add_argument("--machine", default="")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    volumes = [v for v in raw_volumes(args.volumes_dir) if v[0] == args.only]
    if not volumes:
        sys.exit(f"no volume {args.only} in {args.volumes_dir}")
    name, path, dims, dtype = volumes[0]
    cmd = [args.topogpu, "msc", "--raw", path, "--dims", ",".join(map(str, dims)), "--type",
           dtype, "--complex", "simplicial", "--backend", args.backend,
           "--persistence-thresholds", args.thresholds, "--json"]
    start = time.time()
    report = run_json(cmd)
    wall = time.time() - start
    answers = [json.loads(a) if isinstance(a, str) else a for a in report["simplified"]]
    if report.get("backend") != args.backend:
        sys.exit(f"ran on {report.get('backend')}, not {args.backend}: {report.get('warnings')}")
    result = {
        "benchmark": "msc_persistence_threshold",
        "machine": args.machine,
        "volume": os.path.basename(path),
        "backend": args.backend,
        "command": "topogpu msc --complex simplicial --backend " + args.backend +
                   " --persistence-thresholds " + args.thresholds + " --json",
        "process_wall_seconds": round(wall, 2),
        "peak_host_mib": report.get("peak_host_memory_mib"),
        "peak_device_mib": report.get("peak_device_memory_mib"),
        "hierarchy_seconds": report["hierarchy_seconds"],
        "hierarchy_pairs": report["hierarchy_pairs"],
        "timings": report["timings"],
        "answers": [{"persistence_threshold": a["persistence_threshold"],
                     "automatic": a["automatic"], "critical_cells": a["critical_cells"],
                     "seconds": a["seconds"], "first": i == 0}
                    for i, a in enumerate(answers)],
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    for a in result["answers"]:
        print(f"threshold {a['persistence_threshold']}: {a['critical_cells']} in "
              f"{a['seconds'] * 1000:.0f} ms")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
