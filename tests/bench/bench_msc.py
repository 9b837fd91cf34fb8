#!/usr/bin/env python3
"""Morse-Smale complex benchmark: CPU (TBB, all cores) against GPU, same binary, same run.
For every raw volume (NAME_XxYxZ_type.raw in --volumes, or the --only ones) and smooth
synthetic N^3 float32 fields (--synthetic 512,1024: 36 Gaussians plus low-amplitude
sines, bench_helpers.smooth_input), runs `topogpu msc --json` with each backend (fastest of
--repeat runs) and once more with --no-saddle-connections where that is cheap; checks that
the backends agree on the critical cells, every arc count and multiplicity sum, the
boundary maxima and the unlabelled counts (a mismatch, a failed run or a GPU run that fell
back to the CPU is a failure: exit 1, results still written); writes bench_msc.json and
bench_msc.md into --out with TTK 1.2's figures quoted from the issue and the issue's
targets evaluated from the measurements.

    python3 tests/bench/bench_msc.py --topogpu build/bin/topogpu \\
        --volumes ../shared/data/volumes --out out --synthetic 512,1024 \\
        [--backends cpu,gpu] [--cpu-max-size 512] [--max-seconds 240]

Without a GPU, `--backends cpu` runs the CPU side alone (no comparison, no speed-up).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from bench_helpers import (raw_volumes, run_json, smooth_input, write_markdown_report,
                           write_result)

# TTK 1.2 MorseSmaleComplex, 16 threads, on the lent H200 host (issue 6); quoted, not rerun.
TTK_REFERENCE = [
    {"name": "engine", "dims": [256, 256, 128], "seconds": 12.2, "peak_host_gb": 8.7,
     "unlabelled_ascending_fraction": 0.26},
    {"name": "aneurism", "dims": [256, 256, 256], "seconds": 10.5, "peak_host_gb": 10.1,
     "unlabelled_ascending_fraction": 0.71},
]
GPU_TARGET_SECONDS = {"engine": 0.5, "aneurism": 0.25}
SPEEDUP_TARGET = 20.0
SPEEDUP_MIN_VERTICES = 1 << 23  # engine's size: smaller inputs are launch/transfer bound
# Compared between backends (and between a full and a --no-saddle-connections run).
RESULT_KEYS = ("critical_cells", "arcs", "boundary_maxima", "unlabelled_vertices",
               "unlabelled_voxels")


def size_arg(text):
    """'512' or '512^3' -> 512^3 vertices; a larger plain number is a vertex count."""
    n = int(text.split("^")[0])
    return n ** 3 if "^" in text or n <= 4096 else n


def stage_groups(timings):
    """Sums the CLI's per-stage seconds into the issue's three stages: the gradient (up to
    the critical cells, uploads included), the saddle-extremum arcs and manifolds, and the
    saddle-saddle arcs ("saddle ..." stages), by the order the pipeline reports them."""
    names = [k.rsplit(" (", 1)[0] for k in timings]
    last_gradient = max((i for i, n in enumerate(names) if n == "critical cells"),
                        default=-1)
    groups = {"gradient": 0.0, "arcs_manifolds": 0.0, "saddle_saddle": 0.0}
    for i, (name, seconds) in enumerate(zip(names, timings.values())):
        if name.startswith("saddle "):
            groups["saddle_saddle"] += seconds
        elif i <= last_gradient or (last_gradient < 0 and
                                    name in ("upload", "vertex order", "gradient")):
            groups["gradient"] += seconds
        else:
            groups["arcs_manifolds"] += seconds
    return groups


def mismatches(a, b, keys=RESULT_KEYS):
    """The keys (arc kinds one by one) where two msc reports differ; keys missing from both
    are skipped, from one only are a difference."""
    out = []
    for key in keys:
        x, y = a.get(key), b.get(key)
        if isinstance(x, dict) and isinstance(y, dict):
            out += [f"{key}.{k}: {x.get(k)} != {y.get(k)}"
                    for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)]
        elif x != y:
            out.append(f"{key}: {x} != {y}")
    return out


def run_msc(topogpu, entry, backend, repeat, timeout, no_saddle=False):
    """One `topogpu msc --json` call; returns its summary, or {"error": ...}."""
    name, path, dims, dtype = entry
    cmd = [topogpu, "msc", "--raw", path, "--dims", ",".join(map(str, dims)), "--type", dtype,
           "--complex", "cubical", "--backend", backend, "--repeat", str(repeat), "--json"]
    if no_saddle:
        cmd.append("--no-saddle-connections")
    start = time.monotonic()
    try:
        report = run_json(cmd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"requested": backend, "error": f"timed out after {timeout:.0f} s",
                "timed_out": True, "wall_seconds": time.monotonic() - start}
    except (RuntimeError, ValueError) as e:
        return {"requested": backend, "error": str(e).strip()[-2000:],
                "wall_seconds": time.monotonic() - start}
    summary = {k: report.get(k) for k in RESULT_KEYS}
    summary.update({
        "requested": backend, "backend": report["backend"], "repeat": repeat,
        "best_seconds": min(report["runs_total_seconds"]),
        "runs_total_seconds": report["runs_total_seconds"],
        "timings_last_run": report["timings"], "stages": stage_groups(report["timings"]),
        "peak_host_memory_mib": report["peak_host_memory_mib"],
        "peak_device_memory_mib": report["peak_device_memory_mib"],
        "warnings": report.get("warnings", []), "device": report.get("device"),
        "wall_seconds": time.monotonic() - start})
    return summary


def evaluate_targets(rows):
    """The issue's performance targets, each from the measured rows: met true/false, or
    None where the needed run is missing."""
    by_name = {r["name"]: r["runs"] for r in rows}

    def ok(run):
        return run is not None and "error" not in run

    def gpu_ok(run):
        return ok(run) and run["backend"] == "gpu"

    targets = []
    for name, limit in GPU_TARGET_SECONDS.items():
        run = by_name.get(name, {}).get("gpu")
        targets.append({
            "target": f"{name}: GPU end to end <= {limit} s",
            "measured": f"{run['best_seconds']:.3f} s" if gpu_ok(run) else "not measured",
            "met": run["best_seconds"] <= limit if gpu_ok(run) else None})
    speedups = [(r["name"], r["runs"]["cpu"]["best_seconds"] / r["runs"]["gpu"]["best_seconds"])
                for r in rows if r["vertices"] >= SPEEDUP_MIN_VERTICES
                and ok(r["runs"].get("cpu")) and gpu_ok(r["runs"].get("gpu"))]
    worst = min(speedups, key=lambda s: s[1]) if speedups else None
    targets.append({
        "target": f"GPU >= {SPEEDUP_TARGET:.0f}x our CPU (every input of >= 2^23 vertices "
                  "run on both)",
        "measured": (", ".join(f"{n} {s:.1f}x" for n, s in speedups) + f"; worst {worst[0]}"
                     if speedups else "not measured"),
        "met": worst[1] >= SPEEDUP_TARGET if worst else None})
    for ref in TTK_REFERENCE:
        run = by_name.get(ref["name"], {}).get("cpu")
        targets.append({
            "target": f"{ref['name']}: our CPU faster than TTK 1.2's {ref['seconds']} s",
            "measured": f"{run['best_seconds']:.3f} s" if ok(run) else "not measured",
            "met": run["best_seconds"] < ref["seconds"] if ok(run) else None})
    for ref in TTK_REFERENCE:
        limit = ref["peak_host_gb"] * 1e9 / 4 / 2 ** 20  # GB read as 10^9 bytes: stricter
        for backend in ("cpu", "gpu"):
            run = by_name.get(ref["name"], {}).get(backend)
            good = gpu_ok(run) if backend == "gpu" else ok(run)
            targets.append({
                "target": f"{ref['name']}: {backend.upper()}-run peak host memory <= 1/4 of "
                          f"TTK's {ref['peak_host_gb']} GB ({limit:.0f} MiB)",
                "measured": f"{run['peak_host_memory_mib']:.0f} MiB" if good else "not measured",
                "met": run["peak_host_memory_mib"] <= limit if good else None})
    big = [r for r in rows if r["synthetic"] and r["dims"][0] >= 1024]
    run = big[0]["runs"].get("gpu") if big else None
    targets.append({
        "target": "a 1024^3 float32 field completes on the GPU",
        "measured": (f"{run['best_seconds']:.2f} s, {run['peak_device_memory_mib']:.0f} MiB "
                     "on the device" if gpu_ok(run) else
                     (run.get("error") or f"ran on {run.get('backend')}") if run else
                     "not measured"),
        "met": gpu_ok(run) if run else None})
    return targets


def run_cells(row, backend):
    """The table cells after input and size for one run of a row."""
    run, cpu = row["runs"][backend], row["runs"].get("cpu")
    if "error" in run:
        return [backend, "failed"] + [""] * 8 + [run["error"][:160].replace("|", "/")]
    fell_back = "" if run["backend"] == backend else f" (ran on {run['backend']})"
    speedup = ""
    if backend == "gpu" and cpu and "error" not in cpu:
        speedup = f"{cpu['best_seconds'] / max(run['best_seconds'], 1e-9):.1f}"
    s = run["stages"]
    quick = row["runs"].get(backend + "_no_saddle")
    arcs = run["arcs"] or {}
    return [backend + fell_back, f"{run['best_seconds']:.3f}", speedup,
            f"{s['gradient']:.3f} / {s['arcs_manifolds']:.3f} / {s['saddle_saddle']:.3f}",
            f"{quick['best_seconds']:.3f}" if quick and "error" not in quick else "-",
            f"{run['peak_host_memory_mib']:.0f}", f"{run['peak_device_memory_mib']:.0f}",
            " ".join(map(str, run["critical_cells"])),
            (f"{arcs['saddle1_saddle2']} ({arcs['saddle1_saddle2_multiplicity_sum']})"
             if "saddle1_saddle2" in arcs else "-"),
            " ".join(map(str, run["unlabelled_vertices"].values())),
            {True: "yes", False: "**NO**", None: "-"}[row["agree"]]]


def write_markdown(path, result):
    lines = [
        f"# Morse-Smale complex benchmark ({result['cpu_count']} CPU cores; "
        f"{result.get('device') or 'no GPU run'})", "",
        "Total = fastest of the runs, end to end inside `topogpu msc` (GPU transfers "
        "included, reading the file not). Stages = gradient / saddle-extremum arcs and "
        "manifolds / saddle-saddle arcs, seconds, from the last run. Speed-up = CPU total / "
        "GPU total. Critical cells = minima 1-saddles 2-saddles maxima; saddle-saddle arcs "
        "= arcs (multiplicity sum); unlabelled = vertices (ascending descending).", "",
        "| input | size | backend | total s | speed-up | stages s | without saddle-saddle s "
        "| peak host MiB | peak device MiB | critical cells | saddle-saddle arcs | unlabelled "
        "| CPU = GPU |",
        "|---|---|---|---:|---:|---|---:|---:|---:|---|---|---|---|"]
    for row in result["rows"]:
        size = "x".join(map(str, row["dims"])) + " " + row["type"]
        for backend in ("cpu", "gpu"):
            if backend in row["runs"]:
                lines.append("| " + " | ".join([row["name"], size] +
                                               run_cells(row, backend)) + " |")
    for ref in TTK_REFERENCE:
        lines.append(
            f"| {ref['name']} | {'x'.join(map(str, ref['dims']))} uint8 | **reference (quoted, "
            f"not rerun)**: TTK 1.2 MorseSmaleComplex, 16 threads, same H200 host | "
            f"{ref['seconds']} | | | | {ref['peak_host_gb']} GB | | | | "
            f"{ref['unlabelled_ascending_fraction']:.0%} (ascending) | |")
    write_markdown_report(path, lines, result)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topogpu", required=True)
    p.add_argument("--volumes", default="", help="folder of NAME_XxYxZ_type.raw volumes")
    p.add_argument("--only", default="", help="comma list of volume names to run (default all)")
    p.add_argument("--out", required=True)
    p.add_argument("--synthetic", default="", help="comma list of N: smooth N^3 float32 fields")
    p.add_argument("--backends", default="cpu,gpu")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--cpu-repeat", type=int, default=0, help="CPU runs (default: --repeat)")
    p.add_argument("--cpu-max-size", type=size_arg, default=512 ** 3,
                   help="CPU runs only up to this size: N (N^3 vertices) or a vertex count; "
                        "default 512")
    p.add_argument("--no-saddle-max", type=float, default=5.0,
                   help="rerun with --no-saddle-connections (once) where the full run took "
                        "at most this many seconds; 0: never")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per topogpu call")
    p.add_argument("--max-seconds", type=float, default=0.0,
                   help="total budget: later inputs are skipped with a note (0: none)")
    p.add_argument("--scratch", default="", help="where synthetic fields are written "
                   "(default: a temporary folder, removed at the end)")
    args = p.parse_args()
    start = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    backends = [b for b in args.backends.split(",") if b]
    if not set(backends) <= {"cpu", "gpu"} or not backends:
        p.error("--backends: cpu, gpu or cpu,gpu")
    only = {n for n in args.only.split(",") if n}
    inputs = [v for v in raw_volumes(args.volumes) if not only or v[0] in only]
    missing = only - {v[0] for v in inputs}
    inputs.sort(key=lambda v: v[2][0] * v[2][1] * v[2][2])
    sizes = sorted(int(n) for n in args.synthetic.split(",") if n)
    scratch = args.scratch or tempfile.mkdtemp(prefix="bench_msc_")
    os.makedirs(scratch, exist_ok=True)
    rows, notes, failures = [], [], []
    if missing:
        notes.append(f"volumes not found in '{args.volumes}': {', '.join(sorted(missing))}")

    def remaining():
        return args.max_seconds - (time.monotonic() - start) if args.max_seconds else None

    def call(entry, backend, repeat, no_saddle=False):
        left = remaining()
        timeout = args.timeout if left is None else min(args.timeout, left)
        if timeout <= 0:
            return None
        run = run_msc(args.topogpu, entry, backend, repeat, timeout, no_saddle)
        if run.get("timed_out") and left is not None and left < args.timeout:
            run["error"] = f"stopped at the --max-seconds budget ({args.max_seconds:.0f} s)"
            run["budget"] = True
        return run

    try:
        queue = [("volume", v) for v in inputs] + [("synthetic", n) for n in sizes]
        for i, (kind, item) in enumerate(queue):
            left = remaining()
            if left is not None and left <= 0:
                skipped = [q[1][0] if q[0] == "volume" else f"smooth {q[1]}^3" for q in queue[i:]]
                notes.append(f"--max-seconds {args.max_seconds:.0f} spent: skipped "
                             f"{', '.join(skipped)}")
                break
            try:
                entry = item if kind == "volume" else smooth_input(scratch, item)
            except (OSError, MemoryError) as e:
                failures.append(f"smooth {item}^3: could not be written: {e}")
                continue
            name, path, dims, dtype = entry
            vertices = dims[0] * dims[1] * dims[2]
            row = {"name": name, "dims": list(dims), "type": dtype, "vertices": vertices,
                   "synthetic": kind == "synthetic", "runs": {}, "agree": None,
                   "mismatches": []}
            for backend in backends:
                if backend == "cpu" and vertices > args.cpu_max_size:
                    notes.append(f"{name}: CPU not run ({vertices:,} vertices > --cpu-max-size)")
                    continue
                repeat = (args.cpu_repeat or args.repeat) if backend == "cpu" else args.repeat
                run = call(entry, backend, repeat)
                if run is None:
                    notes.append(f"{name} {backend}: not run, --max-seconds spent")
                    continue
                row["runs"][backend] = run
                if run.get("budget"):
                    notes.append(f"{name} {backend}: {run['error']}")
                elif "error" in run:
                    failures.append(f"{name} {backend}: {run['error']}")
                elif backend == "gpu" and run["backend"] != "gpu":
                    failures.append(f"{name}: the GPU run fell back to the CPU: "
                                    f"{'; '.join(run['warnings'])}")
                elif (args.no_saddle_max > 0 and run["best_seconds"] <= args.no_saddle_max and
                      dims[2] > 1):
                    quick = call(entry, backend, repeat, no_saddle=True)  # warm, as the full run
                    if quick is not None:
                        row["runs"][backend + "_no_saddle"] = quick
                        if "error" in quick and not quick.get("budget"):
                            failures.append(f"{name} {backend} --no-saddle-connections: "
                                            f"{quick['error']}")
                        elif "error" not in quick:
                            keys = ("critical_cells", "boundary_maxima", "unlabelled_vertices")
                            diff = mismatches(run, quick, keys)
                            diff += [f"arcs.{k}: {run['arcs'][k]} != {quick['arcs'].get(k)}"
                                     for k in run["arcs"] if not k.startswith("saddle1_saddle2")
                                     and run["arcs"][k] != quick["arcs"].get(k)]
                            if diff:
                                failures.append(f"{name} {backend}: --no-saddle-connections "
                                                f"changed {'; '.join(diff)}")
            cpu, gpu = row["runs"].get("cpu"), row["runs"].get("gpu")
            if cpu and gpu and "error" not in cpu and "error" not in gpu:
                row["mismatches"] = mismatches(cpu, gpu)
                row["agree"] = not row["mismatches"]
                if row["mismatches"]:
                    failures.append(f"{name}: CPU and GPU differ: {'; '.join(row['mismatches'])}")
            rows.append(row)
            done = {b: r for b, r in row["runs"].items() if "error" not in r}
            print(f"{name:24s} {'x'.join(map(str, dims)):>14s} {dtype:8s} " +
                  " ".join(f"{b} {r['best_seconds']:.3f} s" for b, r in done.items()) +
                  f" agree {row['agree']}", flush=True)
            if kind == "synthetic":
                os.remove(path)
    finally:
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)

    device = next((r["runs"]["gpu"].get("device") for r in rows if "gpu" in r["runs"]
                   and r["runs"]["gpu"].get("device")), None)
    result = {"cpu_count": os.cpu_count(), "device": device, "topogpu": args.topogpu,
              "backends": backends, "repeat": args.repeat,
              "cpu_repeat": args.cpu_repeat or args.repeat, "max_seconds": args.max_seconds,
              "elapsed_seconds": time.monotonic() - start, "rows": rows,
              "ttk_reference_quoted_not_rerun": TTK_REFERENCE, "notes": notes,
              "failures": failures}
    result["targets"] = evaluate_targets(rows)
    return write_result(args.out, "bench_msc", result, write_markdown)


if __name__ == "__main__":
    sys.exit(main())
