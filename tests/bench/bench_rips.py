#!/usr/bin/env python3
"""Vietoris-Rips persistence benchmark (issue 7): Debian's `ripser` (for the record and as
the correctness reference), our CPU backend on 1 thread and on all cores, and our GPU
backend (when `--backend gpu` runs on the GPU: a build without CUDA, or a GPU backend not
built yet, is skipped with a note), same script, on the issue's sets:

    celegans (dim 3), Vicsek300 (dim 3), sphere_3_192 (dim 3), dragon 1000 (dim 2),
    o3_4096 (sparse, threshold 1.4, dim 3)

Per run: wall time of the process, the time `topogpu rips --json` reports, peak host
memory (the process's maximum resident set, from wait4) and peak device memory (the
JSON's). Barcodes: every run of ours must equal Debian's ripser's (multisets per
dimension, relative tolerance 2e-5: single-precision distances printed with 6 digits),
when ripser ran, and Ripser++'s expected barcodes of ../shared/data/rips (dimensions 0 and
1), always; CPU and GPU must agree. A difference, or a failed run of ours, is a failure
(exit 1, results still written). Writes bench_rips.json and bench_rips.md into --out,
with Ripser, giotto-ph and Ripser++ quoted from the issue (not rerun) and the issue's
targets evaluated from the measurements.

    python3 tests/bench/bench_rips.py --topogpu build/bin/topogpu \\
        --rips ../shared/data/rips --out out [--only celegans,sphere_3_192] \\
        [--backends ripser,cpu1,cpu,gpu] [--dim-cap 2] [--timeout 600] [--max-seconds 1800]

`--dim-cap K` lowers every set's dimension to at most K (quick checks on a small machine;
the targets are then not evaluated for those sets).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time

from bench_helpers import targets_and_notes_markdown, write_result

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
from ripser_text import barcode_difference, parse as parse_text  # noqa: E402,F401

# (name, file under --rips, --format, dimension, extra options)
SETS = [
    ("celegans", "celegans.distance_matrix", "distance", 3, []),
    ("Vicsek300", "Vicsek300_300_of_300.distance_matrix", "distance", 3, []),
    ("sphere_3_192", "sphere_3_192.lower_distance_matrix", "lower-distance", 3, []),
    ("dragon1000", "roadmap/dragon_vrip.ply.txt_1000_.txt", "point-cloud", 2, []),
    ("o3_4096", "o3_4096.txt", "point-cloud", 3, ["--threshold", "1.4", "--sparse"]),
]
EXPECTED = {  # Ripser++'s expected barcodes (dims 0-1), in ../shared/data/rips
    "celegans": "expected_barcodes_ripserpp/celegans.gpu.barcodes",
    "Vicsek300": "expected_barcodes_ripserpp/Vicsek300_300_of_300.gpu.barcodes",
    "sphere_3_192": "expected_barcodes_ripserpp/sphere_3_192.gpu.barcodes",
    "dragon1000": "expected_barcodes_ripserpp/dragon1000.gpu.barcodes",
    "o3_4096": "expected_barcodes_ripserpp/o3_4096.gpu.barcodes",
}
# Quoted from the issue (the lent H200 host, 16 cores), not rerun: seconds, MB.
REFERENCE = {
    "celegans": {"ripser": (75.7, 70), "giotto16": (6.5, 187), "ripserpp": (11.4, 12500)},
    "Vicsek300": {"ripser": (81.6, 75), "giotto16": (6.8, 146), "ripserpp": (11.6, 13600)},
    "sphere_3_192": {"ripser": (14.5, 119), "giotto16": (2.15, 104), "ripserpp": (3.7, 2300)},
    "o3_4096": {"ripser": (52.6, 150), "giotto16": (6.8, 315), "ripserpp": (17.9, 3000)},
    "dragon1000": {"ripser": (21.4, 571), "giotto16": (3.9, 567), "ripserpp": (5.9, 4200)},
}
GPU_TARGET_SECONDS = {"celegans": 2.2, "Vicsek300": 2.2, "o3_4096": 2.3, "sphere_3_192": 0.7}
HOST_MEMORY_TARGET_MIB = {"celegans": 1000 * 1e6 / 2 ** 20, "Vicsek300": 1000 * 1e6 / 2 ** 20}
DEVICE_MEMORY_TARGET_MIB = {"o3_4096": 4000 * 1e6 / 2 ** 20}
CPU1_FACTOR, CPU16_FACTOR = 1.2, 1.5
NOT_BUILT = ("not built", "no CUDA support")


def run_measured(cmd, timeout):
    """Runs cmd; returns (returncode or "timeout", stdout, stderr, wall seconds, peak RSS
    MiB of the process itself, from wait4)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    chunks = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda s=stream, k=key: chunks[k].append(s.read()))
               for stream, key in ((proc.stdout, "out"), (proc.stderr, "err"))]
    for r in readers:
        r.start()
    timed_out = []
    timer = threading.Timer(timeout, lambda: (timed_out.append(1), proc.kill()))
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
    for r in readers:
        r.join()
    wall = time.monotonic() - start
    rc = "timeout" if timed_out else proc.returncode
    return rc, "".join(chunks["out"]), "".join(chunks["err"]), wall, usage.ru_maxrss / 1024.0


def ours_cmd(topogpu, path, fmt, dim, extra, backend, threads):
    return [topogpu, "rips", "--format", fmt, "--dim", str(dim), *extra, "--backend", backend,
            "--threads", str(threads), "--json", path]


def run_ours(cmd, timeout, requested):
    rc, out, err, wall, rss = run_measured(cmd, timeout)
    if rc != 0:
        return {"requested": requested, "error": "timed out after %.0f s" % timeout
                if rc == "timeout" else err.strip()[-2000:], "wall_seconds": wall,
                "timed_out": rc == "timeout"}
    report = json.loads(out)
    bars = {d["dimension"]: [(b, math.inf if e is None else e) for b, e in d["intervals"]]
            for d in report["dimensions"]}
    return {"requested": requested, "backend": report["backend"], "wall_seconds": wall,
            "seconds": report["total_seconds"], "timings": report["timings"],
            "peak_host_memory_mib": rss, "reported_host_memory_mib":
            report["peak_host_memory_mib"], "peak_device_memory_mib":
            report["peak_device_memory_mib"], "warnings": report.get("warnings", []),
            "sparse": report["sparse"], "threshold": report["threshold"],
            "apparent_percent": [d["apparent_percent"] for d in report["dimensions"]],
            "bars_per_dimension": [len(d["intervals"]) for d in report["dimensions"]],
            "_bars": bars}


def gpu_probe(topogpu, rips):
    """'' when `--backend gpu` runs on the GPU, else why not."""
    path = os.path.join(rips, "random16.lower_distance_matrix")
    cmd = [topogpu, "rips", "--format", "lower-distance", "--backend", "gpu", "--json", path]
    rc, out, err, _, _ = run_measured(cmd, 120)
    if rc != 0:
        return (err.strip() or f"exit {rc}")[-300:]
    report = json.loads(out)
    if report["backend"] != "gpu":
        return "ran on %s: %s" % (report["backend"], "; ".join(report.get("warnings", [])))
    return ""


def evaluate_targets(rows, cpu_count):
    by = {r["name"]: r for r in rows}

    def good(row, key, backend=None):
        run = row["runs"].get(key) if row else None
        ok = run is not None and "error" not in run and not row.get("dim_capped")
        return run if ok and (backend is None or run.get("backend") == backend) else None

    targets = []
    for name, limit in GPU_TARGET_SECONDS.items():
        run = good(by.get(name), "gpu", "gpu")
        targets.append({"target": f"{name}: GPU <= {limit} s (3x giotto-ph, 16 threads)",
                        "measured": f"{run['wall_seconds']:.2f} s" if run else "not measured",
                        "met": run["wall_seconds"] <= limit if run else None})
    for name, limit in HOST_MEMORY_TARGET_MIB.items():
        run = good(by.get(name), "gpu", "gpu")
        targets.append({"target": f"{name}: GPU-run host memory < 1 GB ({limit:.0f} MiB)",
                        "measured": f"{run['peak_host_memory_mib']:.0f} MiB" if run else
                        "not measured",
                        "met": run["peak_host_memory_mib"] < limit if run else None})
    for name, limit in DEVICE_MEMORY_TARGET_MIB.items():
        run = good(by.get(name), "gpu", "gpu")
        targets.append({"target": f"{name}: device memory within 4 GB ({limit:.0f} MiB)",
                        "measured": f"{run['peak_device_memory_mib']:.0f} MiB" if run else
                        "not measured",
                        "met": run["peak_device_memory_mib"] <= limit if run else None})
    # The quoted CPU times are the lent host's (16 cores): a run elsewhere (the 2-core dev
    # box) is listed but not judged against them.
    comparable = cpu_count >= 16
    for name, ref in REFERENCE.items():
        run = good(by.get(name), "cpu1")
        limit = CPU1_FACTOR * ref["ripser"][0]
        targets.append({"target": f"{name}: CPU, 1 thread, <= {CPU1_FACTOR}x upstream Ripser's "
                                  f"{ref['ripser'][0]} s ({limit:.1f} s)",
                        "measured": (f"{run['wall_seconds']:.2f} s on a {cpu_count}-core host"
                                     if run else "not measured"),
                        "met": run["wall_seconds"] <= limit if run and comparable else None})
    for name, ref in REFERENCE.items():
        run = good(by.get(name), "cpu")
        limit = CPU16_FACTOR * ref["giotto16"][0]
        targets.append({"target": f"{name}: CPU, 16 threads, <= {CPU16_FACTOR}x giotto-ph's "
                                  f"{ref['giotto16'][0]} s ({limit:.2f} s)",
                        "measured": (f"{run['wall_seconds']:.2f} s on {cpu_count} cores"
                                     if run else "not measured"),
                        "met": run["wall_seconds"] <= limit if run and comparable else None})
    return targets


LABELS = {"ripser": "Debian ripser", "cpu1": "ours, CPU, 1 thread", "cpu": "ours, CPU, all cores",
          "gpu": "ours, GPU"}


def write_markdown(path, result):
    with open(path, "w") as f:
        f.write(f"# Rips persistence benchmark ({result['cpu_count']} CPU cores"
                f"{'; ' + result['device'] if result.get('device') else ''})\n\n" +
                markdown(result))


def markdown(result):
    """The tables (runs, quoted references, the issue's targets) and notes, as markdown:
    bench_rips.md and the section of docs/benchmarks.md."""
    lines = ["Time = wall time of the process (reading the file included); peak host = the "
             "process's maximum resident set; peak device = `topogpu rips --json`'s. "
             "= ripser / = Ripser++: barcodes equal to Debian's ripser's (all dimensions) / "
             "to Ripser++'s expected ones (dimensions 0-1). Quoted rows: the issue's "
             "measurements on the lent H200 host, not rerun.", "",
             "| set | dim | run | time s | peak host MiB | peak device MiB | apparent % "
             "(dims 1..) | = ripser | = Ripser++ | note |",
             "|---|---:|---|---:|---:|---:|---|---|---|---|"]
    yes = {True: "yes", False: "**NO**", None: "-"}
    for row in result["rows"]:
        for key in ("ripser", "cpu1", "cpu", "gpu"):
            run = row["runs"].get(key)
            if run is None:
                continue
            if "error" in run:
                lines.append(f"| {row['name']} | {row['dim']} | {LABELS[key]} | failed | | | | "
                             f"| | {run['error'][:150].replace('|', '/')} |")
                continue
            note = "" if key in ("ripser", run.get("backend")) or (
                key.startswith("cpu") and run.get("backend") == "cpu") else \
                f"ran on {run.get('backend')}"
            apparent = " ".join(f"{p:.1f}" for p in run.get("apparent_percent", [])[1:])
            lines.append(
                f"| {row['name']} | {row['dim']} | {LABELS[key]} | {run['wall_seconds']:.2f} | "
                f"{run['peak_host_memory_mib']:.0f} | "
                f"{run.get('peak_device_memory_mib', 0):.0f} | {apparent or '-'} | "
                f"{yes[run.get('equal_ripser')]} | {yes[run.get('equal_ripserpp')]} | {note} |")
        ref = REFERENCE.get(row["name"], {})
        for key, label in (("ripser", "upstream Ripser -O3, 1 thread (quoted)"),
                           ("giotto16", "giotto-ph, 16 threads (quoted)"),
                           ("ripserpp", "Ripser++, H200 (quoted; host memory)")):
            if key in ref:
                lines.append(f"| {row['name']} | | {label} | {ref[key][0]} | {ref[key][1]} | | | "
                             "| | |")
    lines += targets_and_notes_markdown(result)
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topogpu", required=True)
    p.add_argument("--rips", required=True, help="the folder ../shared/data/rips (or a copy)")
    p.add_argument("--out", required=True)
    p.add_argument("--only", default="", help="comma list of set names (default all)")
    p.add_argument("--backends", default="ripser,cpu1,cpu,gpu",
                   help="among ripser (Debian's), cpu1 (1 thread), cpu (all cores), gpu")
    p.add_argument("--ripser", default=shutil.which("ripser") or "/usr/bin/ripser")
    p.add_argument("--dim-cap", type=int, default=-1, help="lower every set's dimension to "
                   "at most this (quick checks; no target evaluated for capped sets)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    p.add_argument("--max-seconds", type=float, default=0.0,
                   help="total budget: later runs are skipped with a note (0: none)")
    args = p.parse_args()
    start = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    backends = [b for b in args.backends.split(",") if b]
    if not backends or not set(backends) <= set(LABELS):
        p.error("--backends: a comma list of ripser, cpu1, cpu, gpu")
    only = {n for n in args.only.split(",") if n}
    unknown = only - {s[0] for s in SETS}
    if unknown:
        p.error("unknown sets: " + ", ".join(sorted(unknown)))
    notes, failures, rows = [], [], []
    if "ripser" in backends and not os.path.exists(args.ripser):
        notes.append(f"Debian's ripser not found ({args.ripser}): not run; barcodes checked "
                     "against Ripser++'s expected ones (dims 0-1) and CPU = GPU only")
        backends.remove("ripser")
    device = None
    if "gpu" in backends:
        why = gpu_probe(args.topogpu, args.rips)
        if why:
            notes.append(f"GPU skipped: `--backend gpu` does not run on the GPU here ({why})")
            backends.remove("gpu")

    def remaining():
        return args.max_seconds - (time.monotonic() - start) if args.max_seconds else None

    for name, rel, fmt, dim, extra in SETS:
        if only and name not in only:
            continue
        path = os.path.join(args.rips, rel)
        if not os.path.exists(path):
            notes.append(f"{name}: {path} is missing: not run")
            continue
        capped = 0 <= args.dim_cap < dim
        row = {"name": name, "file": rel, "format": fmt, "dim": min(dim, args.dim_cap)
               if capped else dim, "issue_dim": dim, "options": extra, "dim_capped": capped,
               "runs": {}}
        bars = {}
        for key in backends:
            left = remaining()
            if left is not None and left <= 0:
                notes.append(f"{name} {key}: not run, --max-seconds spent")
                continue
            timeout = args.timeout if left is None else min(args.timeout, left)
            if key == "ripser":
                cmd = [args.ripser, "--format", fmt, "--dim", str(row["dim"]), *[
                    o for o in extra if o != "--sparse"], path]
                rc, out, err, wall, rss = run_measured(cmd, timeout)
                run = {"wall_seconds": wall, "peak_host_memory_mib": rss}
                if rc != 0:
                    run["error"] = "timed out after %.0f s" % timeout if rc == "timeout" \
                        else err.strip()[-500:]
                    notes.append(f"{name} ripser: {run['error']}")
                else:
                    bars[key] = parse_text(out)
            else:
                backend = "gpu" if key == "gpu" else "cpu"
                threads = 1 if key == "cpu1" else 0
                run = run_ours(ours_cmd(args.topogpu, path, fmt, row["dim"], extra, backend,
                                        threads), timeout, key)
                if "error" in run:
                    (notes if run.get("timed_out") and left is not None and left < args.timeout
                     else failures).append(f"{name} {key}: {run['error']}")
                else:
                    bars[key] = run.pop("_bars")
                    if key == "gpu":
                        device = device or "GPU"
                        if run["backend"] != "gpu":
                            failures.append(f"{name}: the GPU run fell back to the CPU: "
                                            f"{'; '.join(run['warnings'])}")
            row["runs"][key] = run
            print(f"{name:14s} dim {row['dim']} {key:6s} " + (
                f"{run['wall_seconds']:.2f} s, {run['peak_host_memory_mib']:.0f} MiB"
                if "error" not in run else "failed: " + run["error"][:120]), flush=True)
        expected_path = os.path.join(args.rips, EXPECTED.get(name, ""))
        expected = parse_text(open(expected_path).read()) if name in EXPECTED and \
            os.path.exists(expected_path) else None
        for key, run in row["runs"].items():
            if key == "ripser" or key not in bars:
                continue
            if "ripser" in bars:
                diff = barcode_difference(bars[key], bars["ripser"])
                run["equal_ripser"] = not diff
                if diff:
                    failures.append(f"{name} {key}: barcodes differ from ripser's: {diff}")
            if expected is not None:
                diff = barcode_difference(bars[key], expected, dims=[0, 1])
                run["equal_ripserpp"] = not diff
                if diff:
                    failures.append(f"{name} {key}: barcodes differ from Ripser++'s "
                                    f"expected: {diff}")
        ours = [k for k in ("cpu1", "cpu", "gpu") if k in bars]
        for k in ours[1:]:
            diff = barcode_difference(bars[k], bars[ours[0]])
            if diff:
                failures.append(f"{name}: {k} and {ours[0]} differ: {diff}")
        rows.append(row)

    result = {"cpu_count": os.cpu_count(), "device": device, "topogpu": args.topogpu,
              "backends": backends, "dim_cap": args.dim_cap, "timeout": args.timeout,
              "max_seconds": args.max_seconds, "elapsed_seconds": time.monotonic() - start,
              "rows": rows, "reference_quoted_not_rerun": REFERENCE, "notes": notes,
              "failures": failures}
    result["targets"] = evaluate_targets(rows, os.cpu_count() or 1)
    return write_result(args.out, "bench_rips", result, write_markdown)


if __name__ == "__main__":
    sys.exit(main())
