#!/usr/bin/env python3
"""Topological simplification benchmark (`topogpu simplify`): for each volume (default
engine and aneurism) and relative threshold, the CPU (TBB, all cores) and the GPU
backend in one run of this script: process wall time, peak host and device memory, the
stage timings (the input diagram's prefixed "diagram: ", then "kept extrema", the
sweeps, "check"), pairs removed per type, iterations, changed vertices; the two
backends' simplified volumes must be byte-identical (and their counts equal).

    /usr/bin/python3 tests/bench/bench_simplify.py TOPOGPU [--volumes-dir DIR]
        [--only engine,aneurism] [--thresholds 0.01,0.1] [--no-gpu] [--json-out FILE]

Prints one line per run and a JSON summary on the last line (also written to --json-out,
e.g. docs/bench-results/simplify-<machine>.json).
"""
import argparse
import filecmp
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_helpers import raw_volumes, run_json  # noqa: E402

TYPES = {"uint8": "uint8", "int16le": "int16", "float32": "float32", "float64": "float64"}


def run(topogpu, path, dims, dtype, backend, threshold, out):
    cmd = [topogpu, "simplify", "--raw", path, "--dims", ",".join(map(str, dims)), "--type",
           TYPES.get(dtype, dtype), "--threshold", str(threshold), "--relative",
           "--backend", backend, "--out", out, "--json"]
    start = time.time()
    report = run_json(cmd)
    return report, time.time() - start


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("topogpu")
    p.add_argument("--volumes-dir", default=os.path.join(HERE, "..", "..", "..", "shared",
                                                         "data", "volumes"))
    p.add_argument("--only", default="engine,aneurism")
    p.add_argument("--thresholds", default="0.01,0.1")
    p.add_argument("--no-gpu", action="store_true")
    p.add_argument("--json-out")
    args = p.parse_args()
    names = set(args.only.split(","))
    backends = ["cpu"] + ([] if args.no_gpu else ["gpu"])
    rows, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, dims, dtype in raw_volumes(args.volumes_dir):
            if name not in names:
                continue
            for threshold in map(float, args.thresholds.split(",")):
                outputs = {}
                for backend in backends:
                    out = os.path.join(tmp, f"{name}_{backend}.raw")
                    report, wall = run(args.topogpu, path, dims, dtype, backend, threshold,
                                       out)
                    outputs[backend] = (out, report)
                    row = {"volume": name, "dims": dims, "backend": backend,
                           "backend_ran": report["backend"], "relative_threshold": threshold,
                           "process_wall_seconds": round(wall, 3),
                           "total_seconds": report["total_seconds"],
                           "peak_host_memory_mib": report["peak_host_memory_mib"],
                           "peak_device_memory_mib": report["peak_device_memory_mib"],
                           "timings": report["timings"], "iterations": report["iterations"],
                           "pairs_removed": report["finite_pairs"]["removed"],
                           "pairs_kept": report["finite_pairs"]["kept"],
                           "changed_vertices": report["changed_vertices"],
                           "flattened_vertices": report["flattened_vertices"],
                           "warnings": report["warnings"]}
                    rows.append(row)
                    print(f"{name} T={threshold} {backend} (ran {report['backend']}): "
                          f"{wall:.2f} s wall, host {report['peak_host_memory_mib']:.0f} MiB, "
                          f"device {report['peak_device_memory_mib']:.0f} MiB, removed "
                          f"{row['pairs_removed']}, changed {row['changed_vertices']}",
                          flush=True)
                if "gpu" in outputs:
                    (a, ra), (b, rb) = outputs["cpu"], outputs["gpu"]
                    same = filecmp.cmp(a, b, shallow=False) and all(
                        ra[k] == rb[k] for k in ("iterations", "changed_vertices",
                                                 "flattened_vertices", "finite_pairs"))
                    rows[-1]["equal_to_cpu"] = same
                    if not same:
                        failures += 1
                        print(f"FAIL {name} T={threshold}: GPU output differs from the CPU's")
    summary = {"benchmark": "simplify", "runs": rows, "failures": failures}
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(summary, f, indent=1)
    print(json.dumps(summary))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
