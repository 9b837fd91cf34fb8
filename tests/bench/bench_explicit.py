#!/usr/bin/env python3
"""Time and peak memory of the explicit (mesh) backend's critical points, through the CLI,
for one or more topogpu binaries (e.g. before/after a change). Each run is its own
process, one at a time (the big ones need several GiB); its peak resident memory is the
kernel's maxrss of that process (os.wait4). The binaries alternate, --repeat times each
(default 2), and the fastest run of each is kept.

    python3 tests/bench/bench_explicit.py --binary before=/work/main/build/bin/topogpu \
        --binary after=build/bin/topogpu [--cases grid128,engine] [--output JSON]

Cases: grid128, a 128^3 random uint8 field (seed 1, written to a temporary file) stored
as 12.3M tets; engine, ../shared/data/volumes/engine_256x256x128_uint8.raw as 49.5M tets.
Writes docs/bench-results/explicit_critical_points.json by default; rows of an existing
file for other labels are kept, so the before and after runs can be made separately.
"""
import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
data = os.path.abspath(os.path.join(root, "..", "shared", "data", "volumes"))


def grid128(tmp):
    path = os.path.join(tmp, "random_128x128x128_uint8.raw")
    if not os.path.exists(path):
        rng = random.Random(1)
        with open(path, "wb") as f:
            f.write(bytes(rng.getrandbits(8) for _ in range(128 ** 3)))
    return path, "128,128,128", "uint8"


def engine(tmp):
    return os.path.join(data, "engine_256x256x128_uint8.raw"), "256,256,128", "uint8"


CASES = {"grid128": grid128, "engine": engine}


def run_measured(binary, raw, dims, dtype):
    cmd = [binary, "critical-points", "--raw", raw, "--dims", dims, "--type", dtype,
           "--triangulation", "explicit", "--backend", "cpu", "--json"]
    out_file = tempfile.TemporaryFile()
    err_file = tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out_file, stderr=err_file)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    out_file.seek(0)
    err_file.seek(0)
    return {"command": " ".join(cmd), "exit_code": proc.returncode,
            "wall_seconds": round(seconds, 3),
            "peak_memory_mib": round(usage.ru_maxrss / 1024.0, 1),
            "stdout": out_file.read().decode(errors="replace"),
            "stderr": err_file.read().decode(errors="replace")[-2000:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", action="append", required=True,
                        help="LABEL=PATH of a topogpu binary (repeatable)")
    parser.add_argument("--cases", default="grid128,engine")
    parser.add_argument("--repeat", type=int, default=2,
                        help="runs per binary and case, interleaved; the fastest is kept "
                             "(the dev box is shared, so single runs are noisy)")
    parser.add_argument("--output",
                        default=os.path.join(root, "docs/bench-results/explicit_critical_points.json"))
    args = parser.parse_args()
    result = {"rows": []}
    if os.path.exists(args.output):
        result = json.load(open(args.output))
    labels = [b.split("=", 1)[0] for b in args.binary]
    result["rows"] = [r for r in result["rows"] if r["label"] not in labels]
    result["host"] = f"{platform.node()} ({os.cpu_count()} cores)"
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            raw, dims, dtype = CASES[case](tmp)
            best = {}
            for _ in range(max(1, args.repeat)):
                for spec in args.binary:
                    label, binary = spec.split("=", 1)
                    m = run_measured(os.path.abspath(binary), raw, dims, dtype)
                    print(json.dumps({"label": label, "case": case, "exit_code": m["exit_code"],
                                      "wall_seconds": m["wall_seconds"],
                                      "peak_memory_mib": m["peak_memory_mib"]}), flush=True)
                    old = best.get(label)
                    if old is None or (m["exit_code"], m["wall_seconds"]) < (old["exit_code"], old["wall_seconds"]):
                        best[label] = m
            for spec in args.binary:
                label = spec.split("=", 1)[0]
                m = best[label]
                row = {"label": label, "case": case, "dims": dims, "type": dtype,
                       "runs": max(1, args.repeat),
                       "exit_code": m["exit_code"], "wall_seconds": m["wall_seconds"],
                       "peak_memory_mib": m["peak_memory_mib"]}
                if m["exit_code"] == 0:
                    report = json.loads(m["stdout"])
                    row["counts"] = report.get("counts")
                    row["timings"] = report.get("timings_last_run", report.get("timings"))
                    row["triangulation_seconds"] = report.get("triangulation_seconds")
                else:
                    row["error"] = m["stderr"]
                result["rows"].append(row)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    return 0 if all(r["exit_code"] == 0 for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
