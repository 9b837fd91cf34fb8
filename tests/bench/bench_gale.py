#!/usr/bin/env python3
"""GALE benchmark (issue 9): critical points, the simplicial discrete gradient and the
Morse-Smale complex on tetrahedralized volumes with the explicit backend and GALE (CPU and
GPU producers), through the CLI, as GALE's paper measures them. Each volume is stored as
its Freudenthal tets with the zero-valued vertices and the tets holding them dropped
(--drop-zero, as the paper drops the background voxels). Per run (one process each,
fastest of --repeat kept): the algorithm's time (its precondition included: Explicit's
global one, GALE's per segment), GALE's initialization (segmentation, cells per segment,
edge/triangle lists), the mesh construction, peak host memory (the process's maxrss,
os.wait4), the consumers' waiting time and its breakdown (the paper's figure 10: queue,
producer batches, kernel + copies, integration; segments the consumers computed
themselves). The results must agree across backends (critical point counts; critical
cells of the gradient; for msc the critical cells, the arcs and their multiplicities,
TTK's 1-separatrix counts, the boundary maxima, the unlabelled counts and the
segmentation's cells): a mismatch, a failed run or a GALE-GPU run without its GPU producer
on a machine with a GPU is a failure (exit 1, results still written).

    python3 tests/bench/bench_gale.py --topogpu build/bin/topogpu [--volumes DIR]
        [--cases engine,lidc2,aneurism] [--algorithms critical-points,discrete-gradient,msc]
        [--backends explicit,gale-cpu,gale-gpu] [--repeat 1] [--out docs/bench-results]
        [--name bench_gale] [--timeout 300] [--max-seconds 540] [--merge-from JSON]

Cases are NAME_XxYxZ_type.raw files of --volumes (default .devdata/volumes on the device,
else ../shared/data/volumes). Writes OUT/NAME.json and OUT/NAME.md with the issue's
targets (GALE-GPU >= 2x Explicit on critical points and discrete gradient at <= 0.6x its
peak memory, and >= 1.5x GALE-CPU; the issue sets none for msc) evaluated from the
measurements, and, where matplotlib imports, two plots: OUT/NAME_wait.svg (figure 10:
per case and algorithm, the consumers' waiting split per backend beside the compute
time) and OUT/NAME_time_memory.svg (time and peak memory per backend).
write_benchmarks_doc.py draws them again from the JSON (Debian's python3-matplotlib).
--merge-from keeps the rows of an earlier JSON that this run did not measure (a long
benchmark split over several calls: e.g. msc alone, then the earlier critical points and
gradient rows kept), each marked with its source.
"""
import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_helpers import raw_volumes, write_markdown_report, write_result  # noqa: E402

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ALGORITHMS = ["critical-points", "discrete-gradient", "msc"]
TARGET_ALGORITHMS = ("critical-points", "discrete-gradient")  # the targets
BACKENDS = ["explicit", "gale-cpu", "gale-gpu"]
SPEEDUP_VS_EXPLICIT, MEMORY_VS_EXPLICIT, SPEEDUP_VS_CPU = 2.0, 0.6, 1.5
GALE_KEYS = ("producer", "segments", "initialization_seconds", "construction_seconds",
             "segmentation_seconds", "cell_list_seconds", "producer_setup_seconds",
             "simplex_list_seconds", "validation_seconds", "consumer_wait_seconds",
             "queue_seconds", "producer_seconds", "prepare_seconds", "kernel_seconds",
             "integrate_seconds", "consumer_compute_seconds", "requests", "batches",
             "segments_computed", "segments_computed_by_consumers", "segments_ahead",
             "peak_cache_bytes", "memory_bytes")
# What must agree across backends on the Morse-Smale complex (msc --json on a mesh).
MSC_KEYS = ("simplices", "critical_cells", "arcs", "boundary_maxima", "separatrices1",
            "unlabelled_vertices", "unlabelled_cells", "segmentation")
# The figure-10 split of the consumers' waiting, as the JSON gives it (seconds summed over
# threads): "producer" is the batches' time less their kernel + copies and integration
# (so preparation and the rest), "computed by consumers" the segments consumers computed
# themselves instead of waiting (CPU producers' work sharing).
WAIT_PARTS = (("queue", "#bab0ac"), ("producer", "#f28e2b"), ("kernel + copies", "#e15759"),
              ("integration", "#76b7b2"), ("computed by consumers", "#59a14f"))
BACKEND_COLOURS = {"explicit": "#4e79a7", "gale-cpu": "#b07aa1", "gale-gpu": "#edc948"}


def wait_measured(cmd, timeout):
    """(exit code, wall seconds, peak host MiB of the process (its own maxrss: os.wait4 on
    its pid, polled so that a timeout can kill it), parsed JSON or None, stderr tail)."""
    out_file, err_file = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out_file, stderr=err_file)
    try:
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if time.perf_counter() - start > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
    except BaseException:  # interrupted (SIGTERM: see main): no orphan run left behind
        proc.kill()
        proc.wait()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    out_file.seek(0)
    err_file.seek(0)
    code = proc.returncode
    report = None
    if code == 0:
        try:
            report = json.loads(out_file.read().decode(errors="replace"))
        except ValueError:
            code = -1
    return code, wall, usage.ru_maxrss / 1024.0, report, \
        err_file.read().decode(errors="replace")[-1500:]


def result_of(algorithm, report):
    """What must agree across backends."""
    if algorithm == "critical-points":
        return report.get("counts")
    if algorithm == "discrete-gradient":
        return report.get("critical_cells")
    return {k: report.get(k) for k in MSC_KEYS}


def result_summary(algorithm, result):
    """The result in a table cell: the counts, or for msc the critical cells / TTK's
    1-separatrices (ascending, descending, saddle connectors; when the run counted them)
    / the segmentation's cells (ascending, descending, Morse-Smale)."""
    if algorithm != "msc" or not isinstance(result, dict):
        return json.dumps(result)
    sep, seg = result.get("separatrices1"), result.get("segmentation") or {}
    text = " / ".join(map(str, result.get("critical_cells") or []))
    if sep:
        text += "; sep. " + " / ".join(str(sep.get(k, "-")) for k in (
            "ascending", "descending", "saddle_connectors"))
    return text + "; seg. " + " / ".join(str(seg.get(k, "-")) for k in (
        "ascending", "descending", "morse_smale"))


def wait_parts(row):
    """The figure-10 split of a row's consumer waiting (WAIT_PARTS order), seconds."""
    g = row.get("gale") or {}
    kernel, integrate = g.get("kernel_seconds") or 0.0, g.get("integrate_seconds") or 0.0
    producer = max(0.0, (g.get("producer_seconds") or 0.0) - kernel - integrate)
    return [g.get("queue_seconds") or 0.0, producer, kernel, integrate,
            g.get("consumer_compute_seconds") or 0.0]


def disagreements(rows):
    """Per (case, algorithm), the backends' results when they differ."""
    found = []
    groups = {}
    for r in rows:
        groups.setdefault((r["case"], r["algorithm"]), {})[r["backend"]] = r["result"]
    for (case, algorithm), seen in groups.items():
        if len({json.dumps(v, sort_keys=True) for v in seen.values()}) > 1:
            found.append(f"{case} {algorithm}: the backends disagree: {seen}")
    return found


def init_seconds(row):
    """GALE's initialization at construction (segmentation, cell lists, producer setup).
    The edge / triangle lists a precondition builds are in the algorithm's time already,
    and the cells' validation is the explicit backend's construction too (in the mesh
    time of both); rows of earlier runs without the split give their whole
    initialization."""
    g = row.get("gale") or {}
    if g.get("construction_seconds") is not None:
        return g["construction_seconds"]
    return row.get("initialization_seconds") or 0.0


def measured_seconds(row):
    """The compared time: the algorithm (precondition included) plus GALE's own
    initialization at construction (the mesh both start from is built and validated the
    same way)."""
    return row["algorithm_seconds"] + init_seconds(row)


def evaluate(result):
    targets = []
    for algorithm in [a for a in result["algorithms"] if a in TARGET_ALGORITHMS]:
        for case in result["cases"]:
            rows = {r["backend"]: r for r in result["rows"]
                    if r["case"] == case and r["algorithm"] == algorithm}
            e, c, g = rows.get("explicit"), rows.get("gale-cpu"), rows.get("gale-gpu")
            gpu_ok = g is not None and g.get("producer") == "gpu"
            name = f"{algorithm} on {case}"
            if e and g:
                speed = measured_seconds(e) / max(measured_seconds(g), 1e-9)
                memory = g["peak_host_memory_mib"] / max(e["peak_host_memory_mib"], 1e-9)
                targets.append({
                    "target": f"{name}: GALE-GPU >= {SPEEDUP_VS_EXPLICIT}x Explicit",
                    "measured": f"{speed:.2f}x ({measured_seconds(e):.3f} s / "
                                f"{measured_seconds(g):.3f} s)"
                                + ("" if gpu_ok else ", GPU producer not used"),
                    "met": (speed >= SPEEDUP_VS_EXPLICIT) if gpu_ok else None})
                targets.append({
                    "target": f"{name}: GALE-GPU peak host memory <= {MEMORY_VS_EXPLICIT}x "
                              "Explicit's",
                    "measured": f"{memory:.2f}x ({g['peak_host_memory_mib']:.0f} MiB / "
                                f"{e['peak_host_memory_mib']:.0f} MiB)",
                    "met": (memory <= MEMORY_VS_EXPLICIT) if gpu_ok else None})
            if c and g:
                speed = measured_seconds(c) / max(measured_seconds(g), 1e-9)
                targets.append({
                    "target": f"{name}: GALE-GPU >= {SPEEDUP_VS_CPU}x GALE-CPU",
                    "measured": f"{speed:.2f}x" + ("" if gpu_ok else ", GPU producer not used"),
                    "met": (speed >= SPEEDUP_VS_CPU) if gpu_ok else None})
    return targets


def table_lines(result):
    """The measurements' table (markdown lines)."""
    lines = ["Tetrahedralized volumes, zero-valued vertices dropped. Time = the algorithm "
             "(its precondition included, with the edge / triangle lists GALE builds there) "
             "+ GALE's initialization at construction (segmentation / cell lists / producer "
             "setup, split in the column), fastest of the runs; mesh = building and "
             "validating the mesh (the same checks for every backend), and GALE from it; "
             "wait = consumers' waiting "
             "summed over threads; its split (the paper's figure 10, seconds summed over "
             "threads): queue / producer batches less their kernel + copies and integration "
             "/ kernel + copies / integration / segments the consumers computed themselves "
             "(CPU producers: instead of waiting); peak = the process's maxrss. Result: the "
             "counts (msc: critical cells; sep. = TTK's 1-separatrices ascending / "
             "descending / saddle connectors; seg. = ascending / descending / Morse-Smale "
             "cells of the segmentation). Wall = the whole process as measured from "
             "outside; untimed = wall less every stage the run reports (reading, dropping "
             "the zeros, the mesh, GALE's initialization, the algorithm): process start "
             "and exit.", "",
             "| case | algorithm | backend | tets | time s | algorithm s "
             "| GALE init s (segments / lists / producer) | mesh s "
             "| peak MiB | wait s | queue / producer / kernel / integrate / consumers s "
             "| segments (by consumers, ahead) | wall s | untimed s | result |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|"]
    for r in result["rows"]:
        g = r.get("gale") or {}
        br = " / ".join(f"{x:.3f}" for x in wait_parts(r)) if g else ""
        seg = (f"{g.get('segments_computed')} ({g.get('segments_computed_by_consumers')}, "
               f"{g.get('segments_ahead')})") if g else ""
        merged = f" [from {os.path.basename(r['merged_from'])}]" if r.get("merged_from") else ""
        lines.append(
            f"| {r['case']} | {r['algorithm']} | {r['backend']}"
            f"{' (' + str(g.get('producer')) + ')' if g else ''}{merged} | "
            f"{r.get('cells', '')} | "
            f"{measured_seconds(r):.3f} | {r['algorithm_seconds']:.3f} | "
            f"{init_seconds(r):.3f}{init_split(g)} | {r['mesh_seconds']:.3f} | "
            f"{r['peak_host_memory_mib']:.0f} | {(g.get('consumer_wait_seconds') or 0):.3f} | "
            f"{br} | {seg} | {r['wall_seconds']:.3f} | {untimed(r)} | "
            f"{result_summary(r['algorithm'], r['result'])} |")
    return lines


def untimed(row):
    """The row's wall time outside every reported stage ('-' for rows measured before the
    CLI reported its input stages)."""
    stages = row.get("input_timings")
    if stages is None:
        return "-"
    return f"{row['wall_seconds'] - sum(stages.values()) - row['algorithm_seconds']:.3f}"


def init_split(g):
    """' (a / b / c)': the construction's stages, where the row has them."""
    keys = ("segmentation_seconds", "cell_list_seconds", "producer_setup_seconds")
    if any(g.get(k) is None for k in keys):
        return ""
    return " (" + " / ".join(f"{g[k]:.3f}" for k in keys) + ")"


def plot_lines(plots, prefix=""):
    """Markdown image links to the plots (file names, relative to the page via prefix)."""
    captions = {"wait": "consumers' waiting split as the paper's figure 10, per backend, "
                        "beside the compute time",
                "time_memory": "time and peak host memory per backend"}
    lines = []
    for name in plots:
        kind = "wait" if name.endswith("_wait.svg") else "time_memory"
        lines += [f"![{captions[kind]}]({prefix}{name})", ""]
    return lines


def write_markdown(path, result):
    lines = [f"# GALE benchmark ({result['host']}; {result.get('device') or 'no GPU'})", ""]
    lines += table_lines(result) + [""] + plot_lines(result.get("plots", []))
    write_markdown_report(path, lines, result)


def write_plots(result, out, name):
    """Draws OUT/NAME_wait.svg and OUT/NAME_time_memory.svg from the result (matplotlib);
    returns the file names written ([] when matplotlib is missing or there is no row)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    rows = result["rows"]
    if not rows:
        return []
    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "bench_gale"})
    groups = []  # (case, algorithm) in the rows' order
    for r in rows:
        if (r["case"], r["algorithm"]) not in groups:
            groups.append((r["case"], r["algorithm"]))
    backends = [b for b in BACKENDS if any(r["backend"] == b for r in rows)]
    by_key = {(r["case"], r["algorithm"], r["backend"]): r for r in rows}
    title = f"{result['host']}; {result.get('device') or 'no GPU: gale-gpu ran CPU producers'}"
    written = []

    # Figure 10: per (case, algorithm) one panel; per backend a stacked bar of the wait's
    # split (thread-seconds) and, beside it, the compute time (GALE init + algorithm).
    columns = min(3, len({a for _, a in groups}))  # a line per case where it fits
    lines = (len(groups) + columns - 1) // columns
    fig, axes = plt.subplots(lines, columns, figsize=(4.6 * columns, 3.6 * lines + 0.6),
                             squeeze=False)
    width = 0.36
    for index, (case, algorithm) in enumerate(groups):
        ax = axes[index // columns][index % columns]
        for i, backend in enumerate(backends):
            r = by_key.get((case, algorithm, backend))
            if r is None:
                continue
            bottom = 0.0
            if r.get("gale"):
                for (label, colour), value in zip(WAIT_PARTS, wait_parts(r)):
                    ax.bar(i - width / 2, value, width, bottom=bottom, color=colour,
                           label=label)
                    bottom += value
                wait = r["gale"].get("consumer_wait_seconds") or 0.0
                ax.plot([i - width], [wait], marker=">", color="black", ms=6,
                        label="consumer wait (total)")
            init = init_seconds(r)
            ax.bar(i + width / 2, init, width, color="white", edgecolor="#555555",
                   hatch="//", label="GALE initialization")
            ax.bar(i + width / 2, r["algorithm_seconds"], width, bottom=init,
                   color="#4e79a7", label="algorithm (wall)")
        ax.set_xticks(range(len(backends)))
        ax.set_xticklabels([b + ("*" if b == "gale-gpu" and not result.get("device") else "")
                            for b in backends], fontsize=8)
        ax.set_title(f"{case}: {algorithm}", fontsize=9)
        ax.set_ylabel("seconds", fontsize=8)
        ax.tick_params(labelsize=7)
    for index in range(len(groups), lines * columns):
        axes[index // columns][index % columns].axis("off")
    handles, labels = {}, []
    for ax in fig.axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    fig.legend([handles[k] for k in labels], labels, loc="lower center", ncol=4, fontsize=7,
               frameon=False)
    fig.suptitle("Consumer waiting split (left bar, seconds summed over consumer threads) "
                 "and compute time (right bar, wall seconds)\n" + title
                 + ("; * = gale-gpu with CPU producers" if not result.get("device") else ""),
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.1 if lines == 1 else 0.06, 1, 0.95))
    path = os.path.join(out, f"{name}_wait.svg")
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    written.append(os.path.basename(path))

    # Time (GALE init hatched) and peak host memory per backend, per (case, algorithm).
    fig, (top, bottom_ax) = plt.subplots(2, 1, figsize=(max(6.0, 1.3 * len(groups) + 2), 6.4),
                                         sharex=True)
    width = 0.8 / max(1, len(backends))
    for k, backend in enumerate(backends):
        xs, inits, algos, peaks = [], [], [], []
        for g, (case, algorithm) in enumerate(groups):
            r = by_key.get((case, algorithm, backend))
            if r is None:
                continue
            xs.append(g + (k - (len(backends) - 1) / 2) * width)
            inits.append(init_seconds(r))
            algos.append(r["algorithm_seconds"])
            peaks.append(r["peak_host_memory_mib"])
        colour = BACKEND_COLOURS[backend]
        top.bar(xs, algos, width, color=colour, label=backend)
        top.bar(xs, inits, width, bottom=algos, color=colour, alpha=0.45, hatch="//")
        bottom_ax.bar(xs, peaks, width, color=colour)
        for x, a, i, p in zip(xs, algos, inits, peaks):
            top.annotate(f"{a + i:.3g}", (x, a + i), ha="center", va="bottom", fontsize=6)
            bottom_ax.annotate(f"{p:.0f}", (x, p), ha="center", va="bottom", fontsize=6)
    times = [r["algorithm_seconds"] + (init_seconds(r)) for r in rows]
    top.set_ylabel("seconds, log (hatched: GALE init)", fontsize=8)
    top.set_yscale("log")
    top.set_ylim(max(1e-4, min(times) / 3), max(times) * 3)
    top.legend(fontsize=8)
    top.set_title("Time (algorithm + GALE initialization) and peak host memory\n" + title,
                  fontsize=9)
    bottom_ax.set_ylabel("peak host MiB (maxrss)", fontsize=8)
    bottom_ax.set_ylim(0, max(r["peak_host_memory_mib"] for r in rows) * 1.12)
    bottom_ax.set_xticks(range(len(groups)))
    bottom_ax.set_xticklabels([f"{c}\n{a}" for c, a in groups], fontsize=7)
    for ax in (top, bottom_ax):
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    path = os.path.join(out, f"{name}_time_memory.svg")
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    written.append(os.path.basename(path))
    return written


def merge_rows(result, path):
    """Adds the rows of an earlier result (path) that this run did not measure, marked
    with their source; returns a note."""
    earlier = json.load(open(path))
    measured = {(r["case"], r["algorithm"], r["backend"]) for r in result["rows"]}
    kept = [dict(r, merged_from=r.get("merged_from") or path) for r in earlier["rows"]
            if (r["case"], r["algorithm"], r["backend"]) not in measured]
    result["rows"] += kept
    for key in ("cases", "algorithms"):
        result[key] += [x for x in earlier.get(key, []) if x not in result[key]]
    return (f"{len(kept)} rows kept from {path} ({earlier.get('host')}; "
            f"{earlier.get('device') or 'no GPU'}), not measured in this run")


def sort_rows(result):
    cases = result["cases"]
    result["rows"].sort(key=lambda r: (
        cases.index(r["case"]) if r["case"] in cases else len(cases),
        ALGORITHMS.index(r["algorithm"]) if r["algorithm"] in ALGORITHMS else len(ALGORITHMS),
        BACKENDS.index(r["backend"]) if r["backend"] in BACKENDS else len(BACKENDS)))


def device_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else None
    except (OSError, subprocess.SubprocessError):
        return None


def measure(args, result, case, volume, algorithm, backend, device):
    """Runs one backend (--repeat times) and adds its fastest row to result (a failed run
    to its failures)."""
    path, dims, dtype = volume
    cmd = [args.topogpu, algorithm, "--raw", path, "--dims",
           ",".join(map(str, dims)), "--type", dtype, "--triangulation", backend,
           "--drop-zero", "--json"]
    if algorithm == "critical-points":
        cmd += ["--backend", "cpu"]
    else:  # the gradient and the complex of the tets (CPU consumers)
        cmd += ["--complex", "simplicial"]
    if backend != "explicit":
        cmd += ["--segment-size", str(args.segment_size)] + args.extra.split()
    best = None
    for _ in range(max(1, args.repeat)):
        code, wall, peak, report, err = wait_measured(cmd, args.timeout)
        if code != 0:
            result["failures"].append(
                f"{case} {algorithm} {backend}: exit {code}: {err.strip()}")
            break
        gale = report.get("gale")
        cells = None
        for w in report.get("notes", []) + report.get("warnings", []):
            if "cells left" in w:
                cells = w.split("vertices, ")[-1].split(" cells")[0]
        row = {"case": case, "algorithm": algorithm, "backend": backend,
               "vertices": report["vertices"], "cells": cells,
               "algorithm_seconds": report["total_seconds"],
               "mesh_seconds": report["triangulation_seconds"],
               "initialization_seconds": (gale or {}).get(
                   "initialization_seconds"),
               "producer": (gale or {}).get("producer"),
               "gale": {k: gale.get(k) for k in GALE_KEYS} if gale else None,
               "peak_host_memory_mib": round(peak, 1),
               "wall_seconds": round(wall, 3), "timings": report.get("timings"),
               "input_timings": report.get("input_timings"),
               "process_seconds": report.get("process_seconds"),
               "result": result_of(algorithm, report),
               "warnings": report.get("warnings", [])}
        print(json.dumps({k: row[k] for k in (
            "case", "algorithm", "backend", "algorithm_seconds",
            "initialization_seconds", "mesh_seconds", "peak_host_memory_mib")}
            | {"wait": (gale or {}).get("consumer_wait_seconds")}), flush=True)
        if best is None or measured_seconds(row) < measured_seconds(best):
            best = row
    if best is None:
        return
    if backend == "gale-gpu" and best["producer"] != "gpu":
        message = (f"{case} {algorithm} gale-gpu: the GPU producer was not used "
                   f"({best['producer']}; {'; '.join(best['warnings'])})")
        (result["failures"] if device else result["notes"]).append(message)
    result["rows"].append(best)


def main():
    default_volumes = os.path.join(root, ".devdata", "volumes")
    if not os.path.isdir(default_volumes):
        default_volumes = os.path.abspath(os.path.join(root, "..", "shared", "data", "volumes"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topogpu", "--binary", dest="topogpu",
                        default=os.path.join(root, "build", "bin", "topogpu"))
    parser.add_argument("--volumes", default=default_volumes)
    parser.add_argument("--cases", default="engine,lidc2,aneurism")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--repeat", type=int, default=1, help="runs per backend; fastest kept")
    parser.add_argument("--segment-size", type=int, default=100)
    parser.add_argument("--extra", default="", help="more CLI options for the GALE runs")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per run")
    parser.add_argument("--max-seconds", type=float, default=540,
                        help="later runs are skipped (noted) past this many seconds")
    parser.add_argument("--out", default=os.path.join(root, "docs", "bench-results"))
    parser.add_argument("--name", default="bench_gale")
    parser.add_argument("--merge-from", default=None,
                        help="an earlier NAME.json whose rows this run does not measure "
                             "are kept (marked)")
    args = parser.parse_args()
    volumes = {name: (path, dims, dtype) for name, path, dims, dtype in raw_volumes(args.volumes)}
    cases = [c for c in args.cases.split(",") if c]
    algorithms = [a for a in args.algorithms.split(",") if a]
    backends = [b for b in args.backends.split(",") if b]
    for what, given, known in (("algorithm", algorithms, ALGORITHMS),
                               ("backend", backends, BACKENDS)):
        unknown = [x for x in given if x not in known]
        if unknown or not given:
            parser.error(f"unknown or no {what} {unknown}: choose from {','.join(known)}")
    if args.merge_from and not os.path.isfile(args.merge_from):
        parser.error(f"--merge-from: no file {args.merge_from}")
    # A timeout's SIGTERM ends the script through wait_measured's cleanup.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    device = device_name()
    result = {"host": f"{platform.node()} ({os.cpu_count()} cores)", "device": device,
              "cases": [], "algorithms": algorithms, "rows": [], "notes": [],
              "failures": [], "targets": []}
    began = time.perf_counter()
    try:
        for case in cases:
            if case not in volumes:
                result["notes"].append(f"{case}: no {case}_*.raw in {args.volumes}; skipped")
                continue
            result["cases"].append(case)
            for algorithm in algorithms:
                for backend in backends:
                    if time.perf_counter() - began > args.max_seconds:
                        result["notes"].append(f"{case} {algorithm} {backend}: skipped (past "
                                               f"--max-seconds {args.max_seconds:.0f})")
                        continue
                    measure(args, result, case, volumes[case], algorithm, backend, device)
    except (KeyboardInterrupt, SystemExit):  # a time cap's SIGTERM: keep what was measured
        result["failures"].append("interrupted: only the rows measured before are written")
    if args.merge_from:
        result["notes"].append(merge_rows(result, args.merge_from))
    sort_rows(result)
    result["failures"] += disagreements(result["rows"])
    result["targets"] = evaluate(result)
    os.makedirs(args.out, exist_ok=True)
    result["plots"] = write_plots(result, args.out, args.name)
    if not result["plots"] and result["rows"]:
        result["notes"].append("no plots: matplotlib is missing here (write_benchmarks_doc.py "
                               "draws them from the JSON)")
    sys.exit(write_result(args.out, args.name, result, write_markdown))


if __name__ == "__main__":
    main()
