#!/usr/bin/env python3
"""Writes docs/benchmarks.md from the JSON that bench_critical_points.py produced on the
GPU host (docs/bench-results/critical_points_h200.json), so the page always shows the
numbers of one run. The other sections come from the other JSON files of
docs/bench-results/ and are left out while their file does not exist; the Morse-Smale
complex section (MSC_JSON, default docs/bench-results/msc_h200.json, from bench_msc.py)
also draws images/msc-benchmark.png beside OUTPUT_MD; the geodesic distance section comes
from docs/bench-results/geodesic_h200.json (bench_geodesic.py's bench_geodesic.json), the
Rips persistence section from docs/bench-results/rips_h200.json (bench_rips.py's
bench_rips.json), the GALE section from docs/bench-results/gale_h200.json (bench_gale.py's
bench_gale.json; its plots, and those of gale_devbox.json, drawn again beside them as
docs/bench-results/gale_*_wait.svg and gale_*_time_memory.svg where matplotlib imports:
run it with Debian's /usr/bin/python3). One function per section (section_*), each with
names of its own; tests/bench/test_benchmarks_doc.py (ctest docs.benchmarks_page) checks
every table's rows against its JSON and the committed page against this script's.

    python3 tests/bench/write_benchmarks_doc.py [JSON] [OUTPUT_MD] [MSC_JSON]
"""
import json
import os
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def stage(row, side, key):
    return row[side]["timings_last_run"].get(key, 0.0)


def size(dims):
    return dims[0] * dims[1] * dims[2]


def section_critical_points(data):
    """The critical points table (CPU vs GPU) and the implicit grid against the
    explicit mesh, from bench_critical_points.py's JSON."""
    rows = sorted(data["rows"], key=lambda r: -size(r["dims"]))
    table = []
    for r in rows:
        table.append(
            f"| {r['name']} {'x'.join(map(str, r['dims']))} {r['type']} | {size(r['dims']):,} | "
            f"{r['cpu']['best_seconds']:.4f} | {r['gpu']['best_seconds']:.4f} | {r['speedup']:.1f} | "
            f"{stage(r, 'cpu', 'vertex order (cpu)'):.4f} / {stage(r, 'cpu', 'classify (cpu)'):.4f} | "
            f"{stage(r, 'gpu', 'upload (gpu)'):.4f} / {stage(r, 'gpu', 'vertex order (gpu)'):.4f} / "
            f"{stage(r, 'gpu', 'classify (gpu)'):.4f} / {stage(r, 'gpu', 'compact + download (gpu)'):.4f} | "
            f"{r['cpu']['peak_host_memory_mib']:.0f} | {r['gpu']['peak_host_memory_mib']:.0f} | "
            f"{r['gpu']['peak_device_memory_mib']:.0f} |")
    mesh = []
    for r in data.get("mesh_rows", []):
        d, g, m = r["dims"], r["implicit"], r["explicit"]
        tets = 6 * (d[0] - 1) * (d[1] - 1) * (d[2] - 1)
        mesh.append(
            f"| {r['name']} {'x'.join(map(str, d))} | {tets:,} | {g['total_seconds']:.3f} | "
            f"{g['peak_host_memory_mib']:.0f} | {m['triangulation_seconds']:.3f} | "
            f"{m['timings'].get('precondition', 0):.3f} | {m['triangulation_seconds'] + m['total_seconds']:.3f} | "
            f"{m['peak_host_memory_mib']:.0f} |")
    all_same = all(r["counts_identical"] for r in rows + data.get("mesh_rows", []))
    return f"""## Critical points (`topogpu critical-points`), CPU vs GPU

`python3 tests/bench/bench_critical_points.py --topogpu build-gpu/bin/topogpu --volumes VOLUMES --out OUT --synthetic 512 --explicit fuel,neghip,silicium,tooth,engine`.
CPU = the TBB path on all cores (vertex order: counting sort for 8/16-bit data, a packed
64-bit key sort for 32-bit data, a comparison sort otherwise; the grid stencil classifier
with its interior lookup table). GPU = Thrust radix sort for the vertex order, the same
stencil classifier as one kernel, Thrust stream compaction. Best of 3 runs (the 512^3 CPU
run once). Times are end to end inside the algorithm, GPU transfers included. Counts
identical between the backends on every row: {all_same}.

| volume | vertices | CPU s | GPU s | GPU speedup | CPU order / classify s | GPU upload / order / classify / compact+download s | CPU peak host MiB | GPU-run peak host MiB | device MiB in use (incl. ~530 MiB CUDA context) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(table) + """

Reading it:
- Critical points are cheap once the vertex order exists: the classification kernel is a
  small part of the GPU time, which is dominated by moving the field to the device and
  the per-vertex classes back. The GPU's lead grows with size and with wide value types,
  where the CPU's sort dominates and the GPU sorts by radix.
- Peak host memory: the CPU path holds the values, the 8-byte vertex order (plus sort
  keys for wide types) and one byte per vertex; the GPU run keeps the order on the
  device, so its host peak is lower on big inputs. Device memory in use is sampled with
  cudaMemGetInfo after the sort and after the kernel, CUDA context included.
- Inputs under ~100k vertices are dominated by fixed launch and transfer costs.

## Implicit grid vs explicit mesh (the cost of storing a triangulation)

The `--explicit` runs use the CPU path with the grid's Freudenthal tets stored as an
explicit mesh (`topogpu critical-points --triangulation explicit`): same domain, same
answer, so the difference is what an explicit triangulation and the generic link
classifier cost. This is the baseline the GALE backend (next issue) is measured against.

| volume | tets | implicit s | implicit peak MiB | explicit: build (validate cells) s | explicit: precondition (VV, vertex star, boundary vertices) s | explicit total s | explicit peak MiB |
|---|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(mesh) + """
"""


def section_explicit_backend():
    """The explicit backend before/after its rewrite (bench_explicit.py, dev box)."""
    # Before/after of the explicit backend (bench_explicit.py; one process per run, peak =
    # the process's maxrss).
    explicit_source = os.path.join(root, "docs/bench-results/explicit_critical_points.json")
    explicit_section = ""
    if os.path.exists(explicit_source):
        explicit = json.load(open(explicit_source))
        by_case = {}
        for r in explicit["rows"]:
            by_case.setdefault(r["case"], {})[r["label"]] = r
        lines = []
        for case, runs in by_case.items():
            for label in sorted(runs, key=lambda x: (x != "before", x)):
                r = runs[label]
                t = r.get("timings") or {}
                d = [int(x) for x in r["dims"].split(",")]
                tets = 6 * (d[0] - 1) * (d[1] - 1) * (d[2] - 1)
                lines.append(
                    f"| {case} {r['dims'].replace(',', 'x')} {r['type']} | {tets:,} | {label} | "
                    f"{r['wall_seconds']:.1f} | {r.get('triangulation_seconds') or 0:.1f} | "
                    f"{t.get('precondition', 0):.1f} | {t.get('classify (cpu)', 0):.1f} | "
                    f"{r['peak_memory_mib']:,.0f} |")
        same = all(len({str(r.get("counts")) for r in runs.values()}) == 1
                   for runs in by_case.values())
        explicit_section = f"""
## Explicit backend before/after the lean rewrite (dev box)

`python3 tests/bench/bench_explicit.py --binary before=/work/main/build/bin/topogpu --binary after=build/bin/topogpu`
on {explicit.get('host', 'the dev box')}: `topogpu critical-points --triangulation explicit --backend cpu`,
each run alone in its own process (peak = that process's maximum resident set), the
binaries interleaved, fastest of {max(r.get('runs', 1) for r in explicit['rows'])} runs kept: the 2-core box is shared with other work, so
absolute times vary between sessions (up to 2-3x), peaks do not. grid128 is
a random uint8 128^3 field (seed 1), engine is engine_256x256x128_uint8.raw, both stored
as the grid's tets. Before: cells sorted and copied, 64-bit ids, edges + VE + a VV copy,
every triangle stored for the boundary flags, VF built though 3D never reads it. After:
the input's cells read in place, VV built from the vertex star, boundary vertices from
per-vertex facet counts (no facet list), 32-bit ids where they fit. Counts identical
before and after on every case: {same}.

| case | tets | binary | wall s | build (validate cells) s | precondition s | classify s | peak MiB |
|---|---:|---|---:|---:|---:|---:|---:|
""" + "\n".join(lines) + "\n"
    return explicit_section


def section_smoother():
    """The scalar field smoother, CPU vs GPU (bench_smooth.py)."""
    # The module template's smoother (bench_smooth.py on the GPU host).
    smooth_source = os.path.join(root, "docs/bench-results/smooth_h200.json")
    smooth_section = ""
    if os.path.exists(smooth_source):
        smooth = json.load(open(smooth_source))
        lines = []
        for r in sorted(smooth, key=lambda r: -size(r["dims"])):
            memory = (f"{r['cpu_peak_host_memory_mib']:.0f} | {r['gpu_peak_host_memory_mib']:.0f}"
                      if "cpu_peak_host_memory_mib" in r else "- | -")
            lines.append(
                f"| {r['name']} {'x'.join(map(str, r['dims']))} {r['type']} | {r['iterations']} | "
                f"{r['cpu_seconds']:.4f} | {r['gpu_seconds']:.4f} | "
                f"{r['cpu_seconds'] / max(r['gpu_seconds'], 1e-9):.1f} | {memory} | "
                f"{r['peak_device_memory_mib']:.0f} | {r['identical']} |")
        smooth_section = """
## Scalar field smoother (`topogpu smooth`), CPU vs GPU

`python3 tests/bench/bench_smooth.py --topogpu build-gpu/bin/topogpu --volumes VOLUMES --out OUT --iterations 10`
on the GPU host: each volume smoothed by 10 Laplacian passes with each backend (fastest of
the runs), the two output files compared byte for byte ("identical").

| volume | passes | CPU s | GPU s | GPU speedup | CPU peak host MiB | GPU-run peak host MiB | device MiB in use | identical |
|---|---:|---:|---:|---:|---:|---:|---:|---|
""" + "\n".join(lines) + "\n"
    return smooth_section


def section_discrete_gradient():
    """The cubical discrete gradient, CPU vs GPU (bench_discrete_gradient.py)."""
    # Discrete gradient on the cubical complex (bench_discrete_gradient.py on the GPU host).
    gradient_source = os.path.join(root, "docs/bench-results/discrete_gradient_h200.json")
    gradient_section = ""
    if os.path.exists(gradient_source):
        gradient = json.load(open(gradient_source))
        lines = []
        for r in sorted(gradient, key=lambda r: -size(r["dims"])):
            g, c = r["gpu_timings"], r["cpu_timings"]
            lines.append(
                f"| {r['name']} {'x'.join(map(str, r['dims']))} {r['type']} | "
                f"{' / '.join(str(n) for n in r['critical_cells'])} | {r['cpu_seconds']:.4f} | "
                f"{c.get('gradient (cpu)', 0):.4f} | {r['gpu_seconds']:.4f} | "
                f"{g.get('gradient (gpu)', 0):.4f} | {g.get('download (gpu)', 0):.4f} | "
                f"{r['cpu_seconds'] / max(r['gpu_seconds'], 1e-9):.1f} | "
                f"{r['cpu_peak_host_memory_mib']:.0f} | {r['gpu_peak_host_memory_mib']:.0f} | "
                f"{r['peak_device_memory_mib']:.0f} | {r['critical_cells'] == r['gpu_critical_cells']} |")
        gradient_section = """
## Discrete gradient on the cubical complex (`topogpu discrete-gradient`), CPU vs GPU

`python3 tests/bench/bench_discrete_gradient.py --topogpu build-gpu/bin/topogpu --volumes VOLUMES --out OUT --synthetic 512`
on the GPU host: ProcessLowerStars, one vertex's lower star per thread (CPU: TBB; GPU: one
CUDA thread), the same host/device function on both, so the gradients are bit-identical
(gpu_equality compares every cell's byte). Totals include the vertex order, the critical
cell compaction and, on the GPU, the transfers: the download of the one-byte-per-cell
gradient (8 bytes per vertex) dominates the GPU total here; the Morse-Smale complex keeps the
gradient on the device and overlaps the copies with its later stages (below). Critical cells per dimension (vertices / edges / quads / voxels).

| volume | critical cells | CPU s | CPU gradient s | GPU s | GPU gradient s | GPU download s | GPU speedup | CPU peak host MiB | GPU-run peak host MiB | device MiB in use | CPU = GPU |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
""" + "\n".join(lines) + "\n"
    return gradient_section


def section_msc(msc_source, page_dir):
    """The Morse-Smale complex: table, targets and plot (bench_msc.py); the plot goes to
    page_dir/images."""
    # Morse-Smale complex (bench_msc.py on the GPU host): table, targets, plot.
    msc_section = ""
    if os.path.exists(msc_source):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_helpers import verdict
        from bench_msc import TTK_REFERENCE, evaluate_targets

        msc = json.load(open(msc_source))
        msc_rows = sorted(msc["rows"], key=lambda r: r["vertices"])

        def ok(run):
            return run is not None and "error" not in run

        def stages(run):
            s = run["stages"]
            return f"{s['gradient']:.3f} / {s['arcs_manifolds']:.3f} / {s['saddle_saddle']:.3f}"

        lines = []
        for r in msc_rows:
            cpu, gpu = r["runs"].get("cpu"), r["runs"].get("gpu")
            cells = [f"{r['name']} {'x'.join(map(str, r['dims']))} {r['type']}", f"{r['vertices']:,}"]
            ref = cpu if ok(cpu) else gpu
            if not ok(ref):
                errors = "; ".join(run["error"][:100] for run in (cpu, gpu) if run) or "not run"
                lines.append("| " + " | ".join(cells + ["failed: " + errors.replace("|", "/")] +
                                               [""] * 10) + " |")
                continue
            fallback = "" if not ok(gpu) or gpu["backend"] == "gpu" else " (CPU fallback)"
            arcs = ref["arcs"]
            cells += [
                f"{cpu['best_seconds']:.3f}" if ok(cpu) else "-",
                f"{gpu['best_seconds']:.3f}{fallback}" if ok(gpu) else "-",
                f"{cpu['best_seconds'] / max(gpu['best_seconds'], 1e-9):.1f}"
                if ok(cpu) and ok(gpu) else "-",
                stages(cpu) if ok(cpu) else "-", stages(gpu) if ok(gpu) else "-",
                f"{cpu['peak_host_memory_mib']:.0f}" if ok(cpu) else "-",
                f"{gpu['peak_host_memory_mib']:.0f}" if ok(gpu) else "-",
                f"{gpu['peak_device_memory_mib']:.0f}" if ok(gpu) else "-",
                " / ".join(map(str, ref["critical_cells"])),
                f"{arcs['saddle1_saddle2']:,} ({arcs['saddle1_saddle2_multiplicity_sum']:,})"
                if "saddle1_saddle2" in arcs else "-",
                {True: "yes", False: "**no**", None: "-"}[r["agree"]]]
            lines.append("| " + " | ".join(cells) + " |")
        for ref in TTK_REFERENCE:
            dims = ref["dims"]
            lines.append(
                f"| {ref['name']} {'x'.join(map(str, dims))} uint8: **TTK 1.2 reference (quoted "
                f"from the issue, not rerun)**, 16 threads, same H200 host | "
                f"{dims[0] * dims[1] * dims[2]:,} | {ref['seconds']} | | | | | "
                f"{ref['peak_host_gb'] * 1e9 / 2 ** 20:,.0f} ({ref['peak_host_gb']} GB) | | | | | |")
        targets = evaluate_targets(msc["rows"])
        target_lines = "\n".join(f"| {t['target']} | {t['measured']} | {verdict(t['met'])} |"
                                 for t in targets)
        notes = "".join(f"- {n}\n" for n in msc.get("notes", []))
        notes += "".join(f"- **failure**: {f}\n" for f in msc.get("failures", []))

        plot_note = ""
        plot_path = os.path.join(page_dir, "images", "msc-benchmark.png")
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            both = [r for r in msc_rows if ok(r["runs"].get("cpu")) or ok(r["runs"].get("gpu"))]
            names = [r["name"] for r in both]
            fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
            width = 0.38
            for k, (side, colour) in enumerate((("cpu", "#4e79a7"), ("gpu", "#59a14f"))):
                xs = [i + (k - 0.5) * width for i in range(len(both))]
                ys = [r["runs"][side]["best_seconds"] if ok(r["runs"].get(side)) else 0 for r in both]
                left.bar(xs, ys, width, label=side.upper(), color=colour)
            for ref in TTK_REFERENCE:
                if ref["name"] in names:
                    i = names.index(ref["name"])
                    left.plot([i - width, i + width], [ref["seconds"]] * 2, "k-", lw=2)
                    left.annotate("TTK 1.2 (quoted)", (i, ref["seconds"]), ha="center",
                                  va="bottom", fontsize=7)
            left.set_yscale("log")
            left.set_ylabel("end-to-end seconds (log)")
            left.set_title("topogpu msc: CPU (TBB) vs GPU")
            left.legend(loc="upper left")
            colours = {"gradient": "#f28e2b", "arcs_manifolds": "#76b7b2", "saddle_saddle": "#e15759"}
            labels = {"gradient": "gradient", "arcs_manifolds": "saddle-extremum arcs + manifolds",
                      "saddle_saddle": "saddle-saddle arcs"}
            for k, side in enumerate(("cpu", "gpu")):
                xs = [i + (k - 0.5) * width for i in range(len(both))]
                bottom = [0.0] * len(both)
                for key in ("gradient", "arcs_manifolds", "saddle_saddle"):
                    shares = []
                    for r in both:
                        run = r["runs"].get(side)
                        total = sum(run["stages"].values()) if ok(run) else 0
                        shares.append(run["stages"][key] / total if total else 0)
                    right.bar(xs, shares, width, bottom=bottom, color=colours[key],
                              label=labels[key] if k == 0 else None,
                              edgecolor="white" if side == "cpu" else "black", linewidth=0.5)
                    bottom = [b + s for b, s in zip(bottom, shares)]
            right.set_ylabel("share of the stage time (left bar CPU, right bar GPU)")
            right.set_title("where the time goes")
            right.set_ylim(0, 1.18)
            right.legend(fontsize=8, loc="upper center", ncol=3)
            for ax in (left, right):
                ax.set_xticks(range(len(both)))
                ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
            fig.tight_layout()
            os.makedirs(os.path.dirname(plot_path), exist_ok=True)
            fig.savefig(plot_path, dpi=90)
            plot_note = "![topogpu msc, CPU vs GPU per input and the stages' shares](images/msc-benchmark.png)\n"
        except ImportError:
            plot_note = "(matplotlib missing: no plot drawn)\n"

        msc_section = f"""
## Morse-Smale complex (`topogpu msc`), CPU vs GPU

`python3 tests/bench/bench_msc.py --topogpu build-gpu/bin/topogpu --volumes VOLUMES --out OUT --synthetic 512,1024`
(as `tests/gpu/run_gpu_tests.sh` runs it) on the GPU host ({msc.get('device') or 'no GPU run'},
{msc['cpu_count']} CPU cores): the whole complex (gradient, saddle-extremum arcs and
manifolds, saddle-saddle arcs with multiplicities) with each backend, fastest of
{msc['repeat']} GPU and {msc['cpu_repeat']} CPU runs, end to end inside the algorithm (GPU
transfers included, reading the file not). The `smooth N^3` inputs are a sum of 36
Gaussians and 4 low-amplitude sine products on the unit box (`bench_helpers.smooth_input`,
seed 1), so every size has a few thousand critical cells, not white noise's hundreds of
millions. Stages = gradient / saddle-extremum arcs and manifolds / saddle-saddle arcs
(seconds, last run). CPU = GPU compares the critical cells, every arc count and
multiplicity sum, the boundary maxima and the unlabelled counts. The TTK rows are quoted
from the issue, not rerun.

| input | vertices | CPU s | GPU s | GPU speedup | CPU stages s | GPU stages s | CPU peak host MiB | GPU-run peak host MiB | device MiB in use | critical cells | saddle-saddle arcs (multiplicity sum) | CPU = GPU |
|---|---:|---:|---:|---:|---|---|---:|---:|---:|---|---|---|
""" + "\n".join(lines) + f"""

{plot_note}
Targets of the issue, evaluated from the rows above by `bench_msc.evaluate_targets`
(peaks against TTK's reading GB as 10^9 bytes, the stricter reading):

| target | measured | verdict |
|---|---|---|
{target_lines}
""" + (f"\n{notes}" if notes else "")
    return msc_section


def bench_result(name):
    """docs/bench-results/NAME as JSON, None when that run has not been made."""
    source = os.path.join(root, "docs/bench-results", name)
    return json.load(open(source)) if os.path.exists(source) else None


def section_msc_simplicial():
    """TTK's (simplicial) Morse-Smale complex beside the cubical one (bench_msc_simplicial.py)."""
    data = bench_result("msc_simplicial_h200.json")
    if data is None:
        return ""
    lines = []
    for r in data["rows"]:
        stages = ", ".join(f"{k} {v:.2f}" for k, v in r["timings"].items() if v >= 0.05)
        lines.append(f"| {r['input']} | {r['complex']} | {r.get('backend', 'cpu')} | "
                     f"{r['process_seconds']:.2f} | {r['peak_rss_gb']:.2f} | "
                     f"{' / '.join(str(n) for n in r['critical_cells'])} | {stages} |")
    return """
## Simplicial Morse-Smale complex (TTK's), CPU and GPU

`python3 tests/bench/bench_msc_simplicial.py --topogpu build-gpu/bin/topogpu --volumes VOLUMES --only engine,aneurism --backends cpu,gpu --out OUT`
on the GPU host (""" + str(data["cores"]) + """ CPU threads): `topogpu msc --complex simplicial`
(TTK 1.2's critical cells, separatrices and segmentation on the Freudenthal tets) beside the
cubical complex as the baseline, process wall time and peak resident memory of the whole
run (`/usr/bin/time -v`) with the program's stages; every simplicial row is checked
against Euler's relation. TTK 1.2's MorseSmaleComplex on the same host, measured from
outside for issue 21: engine 12.2 s (16.5 s whole run), 8.7 GB. Stages under 0.05 s are
left out of the list. On the GPU the simplicial gradient, both V-path forests, the labels,
the arcs and the saddle connections run on the device; the boundary forest (the ascending
paths that leave the box, which the arcs and boundary maxima read) and the download of
the gradient and labels are the host's share left. The last row is a 1024^3 float32
field (`bench_helpers.smooth_input`, 1.07e9 vertices, 6.4e9 tets) on one H200 with
`--backend gpu`: its saddle connections' device estimate did not fit beside the rest, so
they ran on the host (the run's warning) while everything else stayed on the device.

| input | complex | backend | process s | peak RSS GB | critical cells | stages (s) |
|---|---|---|---:|---:|---|---|
""" + "\n".join(lines) + "\n"


def section_persistence():
    """Persistence diagram of scalar fields (bench_persistence.py on the GPU host)."""
    data = bench_result("persistence_h200.json")
    if data is None:
        return ""
    lines = []
    refusals = []
    for v in data["volumes"]:
        if "cpu_error" in v:  # the CPU path refused by its host memory estimate
            refusals.append(f"{v['volume']}: {v['cpu_error']}")
            cpu = "refused (below) | - | - | -"
            same = "-"
        else:
            cpu = (f"{v['cpu_process_seconds']:.2f} | {v['cpu_complex_seconds']:.2f} | "
                   f"{v['cpu_pairing_seconds']:.2f} | {v['cpu_peak_mib'] / 1024:.2f}")
            same = "yes" if v["gpu_equals_cpu"] else "NO"
        name = v["volume"] + (f" (run at {v['measured_at']})" if "measured_at" in v else "")
        lines.append(f"| {name} | {v['vertices']} | {v['pairs']} | {cpu} | "
                     f"{v['gpu_process_seconds']:.2f} | {v['gpu_peak_device_mib'] / 1024:.2f} | "
                     f"{same} |")
    stage_lines = []
    for v in data["volumes"]:
        for side in ("cpu", "gpu"):
            t = v.get(side + "_timings", {})
            listed = ", ".join(f"{k} {s:.2f}" for k, s in t.items() if s >= 0.05)
            if listed:
                stage_lines.append(f"| {v['volume']} | {side} | {listed} |")
    engine = [v for v in data["volumes"] if v["volume"].startswith("engine")]
    targets = ""
    if engine:
        e = engine[0]
        targets = f"""
| target (issue 22, engine) | measured | verdict |
|---|---|---|
| full diagram <= 1.5 s on {data['cores']} CPU threads | {e['cpu_process_seconds']:.2f} s | {'met' if e['cpu_process_seconds'] <= 1.5 else 'missed'} |
| full diagram <= 0.5 s on the GPU | {e['gpu_process_seconds']:.2f} s | {'met' if e['gpu_process_seconds'] <= 0.5 else 'missed'} |
"""
    ties = [v for v in data["volumes"] if v["volume"].startswith("ties_160")]
    if ties:
        targets += (f"| 160^3 tie-heavy uint8 field <= 2 s on the GPU | "
                    f"{ties[0]['gpu_process_seconds']:.2f} s | "
                    f"{'met' if ties[0]['gpu_process_seconds'] <= 2 else 'missed'} |\n")
    huge = [v for v in data["volumes"] if v["vertices"] >= 1024 ** 3 and "gpu_process_seconds" in v]
    if huge:
        h = huge[0]
        cpu = (f"met; the CPU path {h['cpu_process_seconds']:.1f} s, "
               f"{h['cpu_peak_mib'] / 1024:.1f} GB of host memory"
               if "cpu_process_seconds" in h else "met (the CPU path is refused by its host estimate)")
        earlier = (f" (the run at {h['measured_at']})" if "measured_at" in h else "")
        targets += (f"| 1024^3 float32 on one H200{earlier} | {h['gpu_process_seconds']:.2f} s "
                    f"on the GPU, {h['gpu_peak_device_mib'] / 1024:.1f} GB of device memory "
                    f"| {cpu} |\n")
    if engine and "previous_gpu_process_seconds" in engine[0]:
        e = engine[0]
        targets += (f"\nEngine in the previous run of this benchmark: "
                    f"{e['previous_cpu_process_seconds']:.2f} s on the CPU, "
                    f"{e['previous_gpu_process_seconds']:.2f} s on the GPU.\n")
    return """
## Persistence diagram of a scalar field (`topogpu persistence`), CPU and GPU

`/usr/bin/python3 tests/bench/bench_persistence.py build-gpu/bin/topogpu --volumes-dir VOLUMES --gpu`
on the GPU host (""" + str(data["cores"]) + """ CPU threads): the simplicial complex's
diagram (TTK's PersistenceDiagram, Discrete Morse Sandwich), process wall time and peak
memory of the whole run, the complex and the pairing stages. With `--backend gpu` the
complex and the extremum pairs' rounds (ElderRounds.h) run on the device, the
saddle-saddle pairs on the host; its diagram must equal the CPU's row for row (last
column). A row with a commit in its volume name was kept from that earlier run. GUDHI's lower-star persistence is the oracle in ctest
(`cli.persistence`, `pvpython.persistence_diagram.*`) and in this script where GUDHI is
installed (it was not on the GPU host).

| volume | vertices | pairs | CPU process s | complex s | pairing s | CPU peak GB | GPU process s | device peak GB | GPU = CPU |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
""" + "\n".join(lines) + "\n" + "".join(f"\nRefused on the CPU: {r}\n" for r in refusals) + """
Stages of each run (seconds, those of at least 0.05 s; "diagram file" is the CSV written):

| volume | backend | stages |
|---|---|---|
""" + "\n".join(stage_lines) + "\n" + targets


def section_persistence_filter():
    """The Persistence Diagram and Topological Simplification filters' whole update in
    pvpython beside the CLI (bench_persistence_filter.py on the dev box)."""
    data = bench_result("persistence_filter_devbox.json")
    if data is None:
        return ""
    lines = []
    for r in data["rows"]:
        for what, filt, cli in (("persistence diagram", "persistence_filter", "persistence_cli"),
                                ("simplification", "simplify_filter", "simplify_cli")):
            f, c = r[filt], r[cli]
            lines.append(f"| {what} | {r['backend']} | {f['seconds']:.2f} | "
                         f"{f['pipeline_seconds']:.2f} | {c['process_seconds']:.2f} | "
                         f"{c['peak_mib'] / 1024:.2f} |")
    return f"""
## Persistence diagram and simplification filters in ParaView (pvpython)

`pvpython tests/bench/bench_persistence_filter.py PLUGIN topogpu {data['volume']} ...` on
the {data.get('machine', 'dev box')} ({data['cores']} cores): the filters' first update
(UpdatePipeline on a volume already read, the copy into VTK arrays and the pipeline's
share included) beside `topogpu persistence` / `topogpu simplify` on the same file
(process wall time, the file read included) in the same script; simplification at
{data['threshold']} of the range. The pipeline column is the update's time outside the
filter's own stages.

| filter | backend | filter update s | pipeline s | CLI process s | CLI peak GB |
|---|---|---:|---:|---:|---:|
""" + "\n".join(lines) + "\n"


def section_simplify():
    """Topological simplification (bench_simplify.py on the GPU host)."""
    data = bench_result("simplify_h200.json")
    if data is None:
        return ""
    lines = []
    for r in data["runs"]:
        own = {k: v for k, v in r["timings"].items() if not k.startswith("diagram: ")}
        diagram = sum(v for k, v in r["timings"].items() if k.startswith("diagram: "))
        lines.append(f"| {r['volume']} | {r['relative_threshold']} | {r['backend_ran']} | "
                     f"{r['process_wall_seconds']:.2f} | {diagram:.2f} | "
                     f"{', '.join(f'{k} {v:.2f}' for k, v in own.items() if v >= 0.01)} | "
                     f"{r['peak_host_memory_mib'] / 1024:.2f} | "
                     f"{r['peak_device_memory_mib'] / 1024:.2f} |")
    return """
## Topological simplification (`topogpu simplify`), CPU and GPU

`/usr/bin/python3 tests/bench/bench_simplify.py build-gpu/bin/topogpu --volumes-dir VOLUMES --only engine --thresholds 0.01`
on the GPU host: the input's persistence diagram (its stages summed in the "diagram"
column), then the sweeps that flatten the removed extrema's regions; the two backends'
simplified volumes and `_Order` arrays must be byte-identical (the script fails
otherwise). Process wall time and peak memory of the whole run.

| volume | relative threshold | backend | process s | diagram s | own stages (s) | host peak GB | device peak GB |
|---|---:|---|---:|---:|---|---:|---:|
""" + "\n".join(lines) + "\n"


def section_verify():
    """Diagrams and simplification of every shared volume against oracles (dev box)."""
    data = bench_result("verify_persistence_devbox.json")
    if data is None:
        return ""

    def oracle(r):
        if "oracle" not in r:
            return "error"
        name = "GUDHI" if r["oracle"] == "gudhi" else "union-find + Euler"
        return f"{name}{'' if r['equal'] else ' (DIFFERS)'}"

    lines = []
    for v in data["volumes"]:
        s, c = v["simplicial"], v["cubical"]
        g = s.get("gudhi", {})
        gudhi = (f"{g['process_seconds']:.1f} / {g['peak_mib'] / 1024:.2f}" if "peak_mib" in g
                 else "same values as " + s["oracle_of"] if "oracle_of" in s
                 else "failed: " + g["error"] if "process_seconds" in g
                 else "not run (size)")
        runs = v.get("simplify", [])
        simplify = f"{sum(r['ok'] for r in runs)} / {len(runs)}" if runs else "-"
        lines.append(f"| {v['volume']} | {v['vertices']} | {oracle(s)} | {oracle(c)} | "
                     f"{s['topogpu']['process_seconds']:.2f} / "
                     f"{c['topogpu']['process_seconds']:.2f} | {gudhi} | "
                     f"{s['union_find_seconds']:.1f} | {simplify} |")
    return """
## Persistence diagram and simplification on every shared volume, against oracles

`/usr/bin/python3 tests/bench/verify_persistence_volumes.py build/bin/topogpu --out docs/bench-results/verify_persistence_devbox.json`
on the dev box (""" + data.get("machine", "") + ", commit " + data.get("commit", "?") + """):
`topogpu persistence --backend cpu` on every file of `shared/data/volumes` (the .vtk and
.vti through `--mesh`, the .cube through VTK's reader into a .vti), simplicial (TTK's
Freudenthal tets) and `--complex cubical`, against GUDHI's lower-star SimplexTree and
cubical complex where GUDHI fits (at most """ + str(data["gudhi_max_vertices"]) + """
vertices, its address space capped at """ + str(data["gudhi_memory_gib"]) + """ GiB):
the multisets of finite pairs (type, birth, death) of positive persistence and of
essential classes must be equal. On every volume the union-find oracle
(`tests/bench/union_find_oracle.c`, written for this check) gives the exact pairs of
dimension 0 and 2 and, through b1 = b0 + b2 - chi of every sublevel set, the number of
dimension-1 classes alive at each value; where GUDHI ran it must agree with GUDHI, where
it did not it is the oracle (so there the saddle-saddle pairs are checked through b1(t)
only, not pair by pair). Then `topogpu simplify` at """ + ", ".join(
        f"{t:g}" for t in data["thresholds"]) + """ of the range and at one absolute threshold
(between two persistence values near the median), checked by
`volume_oracle.simplification_check`: the output's extrema are exactly the kept ones,
every raised (lowered) vertex lies in a removed minimum's (maximum's) region and stays at
or below (above) the value where that region joins a kept extremum, every other vertex
keeps its value and relative order, the output's diagram by the oracle equals `topogpu
persistence` of the output, and per dimension the output's pairs equal the input's minus
the removed ones up to a bottleneck distance below the threshold. Failures: """ + str(
        len(data["failures"])) + """. Times are process wall times on the shared 2-core box.
""" + "".join(f"\n{note}\n" for note in data.get("notes", [])) + """

| volume | vertices | simplicial diagram | cubical diagram | topogpu s (simplicial / cubical) | GUDHI simplicial s / peak GiB | union-find s | simplify runs passed |
|---|---:|---|---|---:|---:|---:|---:|
""" + "\n".join(lines) + "\n"


def section_msc_threshold():
    """PersistenceThreshold answers from the cancellation hierarchy (topogpu msc)."""
    data = bench_result("msc_threshold_h200.json")
    if data is None:
        return ""
    def label(a):
        return (f"{a['persistence_threshold']}{' (automatic)' if a['automatic'] else ''}"
                f"{', first: allocates' if a.get('first') else ''}")
    lines = [f"| {label(a)} | "
             f"{' / '.join(str(n) for n in a['critical_cells'])} | {a['seconds'] * 1000:.0f} | "
             f"{'met' if a['seconds'] <= 0.1 else 'missed'} |" for a in data["answers"]]
    return f"""
## Persistence threshold of the Morse-Smale complex (the slider), GPU

`/usr/bin/python3 tests/bench/bench_msc_threshold.py build-gpu/bin/topogpu --out docs/bench-results/msc_threshold_h200.json`
(`{data['command']}`) on engine on the GPU host ({data['machine']}): the complex and its
diagram once (process {data['process_wall_seconds']:.2f} s, peak host
{data['peak_host_mib'] / 1024:.2f} GB), the cancellation hierarchy once
({data['hierarchy_seconds']:.2f} s, {data['hierarchy_pairs']} pairs), then each threshold
answered from the hierarchy without recomputing the gradient (what a slider move costs
in the filter, less the copy into VTK arrays). Target: <= 100 ms per move. The answer
runs on the host threads for both backends. The first answer also allocates the
answer's arrays (about 75 million labels on engine); a slider move rewrites the last
answer's arrays in place (the filter keeps them), as the later rows do.

| threshold | minima / 1-saddles / 2-saddles / maxima | answer ms | <= 100 ms |
|---|---|---:|---|
""" + "\n".join(lines) + "\n"


def section_geodesic():
    """Geodesic distance: table, targets, end to end (bench_geodesic.py)."""
    # Geodesic distance (bench_geodesic.py on the GPU host): table and the targets.
    geodesic_source = os.path.join(root, "docs/bench-results/geodesic_h200.json")
    geodesic_section = ""
    if os.path.exists(geodesic_source):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_geodesic import markdown as geodesic_table
        geodesic = json.load(open(geodesic_source))
        ok = {(r["mesh"], r["speed"], r["solver"]): r for r in geodesic["rows"]
              if r.get("status") == "ok"}
        target_rows = []
        for (mesh, speed, solver), r in sorted(ok.items()):
            fmm = ok.get((mesh, speed, "fmm"))
            if fmm is None or solver == "fmm" or r["ran"] != solver.replace("-metis", ""):
                continue
            million = 900_000 <= r["vertices"] <= 1_300_000
            if solver in ("gpu", "gpu-metis") and million:
                x = r["speedup_vs_fmm_solve"]
                target_rows.append(f"| patchFIM ({solver}) >= 50x FMM, {mesh}, {speed} speed | {x:.1f}x | "
                                   f"{'met' if x >= 50 else 'missed'} |")
            if solver == "fim-mt" and million:
                x = r["speedup_vs_fmm_solve"]
                target_rows.append(f"| meshFIM-MT >= 6x FMM ({geodesic['cpu_count']} threads), "
                                   f"{mesh}, {speed} speed | {x:.1f}x | {'met' if x >= 6 else 'missed'} |")
            if "mean_error" in r and "mean_error" in fmm:
                met = r["mean_error"] <= fmm["mean_error"] * 1.001
                target_rows.append(f"| {solver} mean error <= FMM's, {mesh} | {r['mean_error']:.3e} vs "
                                   f"{fmm['mean_error']:.3e} | {'met' if met else 'missed'} |")
        big = [r for r in ok.values() if r["solver"] == "gpu" and r["vertices"] >= 9_000_000]
        for r in big:
            correct = r["converged"] and r["unreached"] == 0 and r.get("mean_error", 0) < 1e-2
            target_rows.append(f"| patchFIM correct at 10M vertices, {r['mesh']}, {r['speed']} speed | "
                               f"converged {r['converged']}, unreached {r['unreached']}, mean error "
                               f"{r.get('mean_error', float('nan')):.2e} | {'met' if correct else 'missed'} |")
        geodesic_section = f"""
## Geodesic distance (`topogpu geodesic`): FMM, meshFIM, meshFIM-MT, patchFIM (GPU)

`python3 tests/bench/bench_geodesic.py --topogpu build-gpu/bin/topogpu --out OUT --surfaces SURFACES`
on the GPU host ({geodesic['cpu_count']} cores): one seed (the centre of the squares, vertex 0
elsewhere), constant speed 1 and the paper's Speed 2 (a smooth random speed in [0.5, 1.5]).
"solve s" is the solver stage alone (FMM / meshFIM: "<solver> (cpu)"; patchFIM: upload,
rounds and download); "total s" adds the precondition, the mesh setup (edge lengths,
virtual edges) and, for patchFIM, the partition and the cell-assembly arrays.
Mean error against the exact distance (Euclidean on the squares, great circle on the
spheres) for the constant speed; the random speed has no closed form, so only the mean
difference from FMM is shown. patchFIM: patches of 64 vertices (gpu: grown
breadth-first, the default; gpu-metis: METIS), at most 7 internal iterations, GEO in
float32, values in double on the device; its iterations are rounds (active patches
summed over the rounds in parentheses).

""" + geodesic_table(geodesic) + """
| target (issue 8) | measured | verdict |
|---|---|---|
""" + "\n".join(target_rows) + "\n"
        # The whole CLI run and the filter's update (bench_geodesic.py --update), a later run
        # than the table above: after the patch tables stay on the device between updates.
        update_source = os.path.join(root, "docs/bench-results/geodesic_update_h200.json")
        if os.path.exists(update_source):
            from bench_geodesic import end_to_end_markdown
            update = json.load(open(update_source))
            radius_rows = []
            for mesh, by_radius in update.get("seed_change_by_exact_start_radius", {}).items():
                for radius, label in (("-1", "auto (default)"), ("0", "0 (the seeds alone)")):
                    runs = by_radius.get(radius, {})
                    if "fim-mt" not in runs or "gpu" not in runs:
                        continue
                    cpu, gpu = runs["fim-mt"]["seed_change"], runs["gpu"]["seed_change"]
                    radius_rows.append(
                        f"| {mesh} | {label} | {cpu['seconds']:.4f} | {gpu['seconds']:.4f} | "
                        f"{cpu['seconds'] / gpu['seconds']:.2f}x | "
                        f"{gpu['timings'].get('exact start', 0):.4f} | "
                        f"{gpu['timings'].get('patchfim (gpu)', 0):.4f} |")
            geodesic_section += f"""
`python3 tests/bench/bench_geodesic.py ... --update build-gpu/bin/bench_geodesic_update
--square 1024 --icospheres 316 --solvers fim-mt,gpu --speeds constant` on the GPU host
({update['cpu_count']} cores), a later run than the table above (the exact start near the
seeds, the obtuse angles' fans, and the patch tables kept on the device between updates).
""" + end_to_end_markdown(update) + """
The filter's seed-change update by exact-start radius (`ExactStartRadius`,
`--exact-start-radius`; a second run of bench_geodesic_update on the same host), seconds.
The exact start (CPU window propagation) is the same work for both solvers; radius 0
starts from the seeds alone, less accurate next to them (see the geodesic distance page):

| mesh | exact-start radius | fim-mt | gpu | gpu vs fim-mt | gpu: exact start | gpu: patchfim |
|---|---|---:|---:|---:|---:|---:|
""" + "\n".join(radius_rows) + "\n"
    return geodesic_section


def section_rips():
    """Vietoris-Rips persistence: tables and targets (bench_rips.py)."""
    # Rips persistence (bench_rips.py on the GPU host): its tables and the targets.
    rips_source = os.path.join(root, "docs/bench-results/rips_h200.json")
    rips_section = ""
    if os.path.exists(rips_source):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_rips import markdown as rips_markdown
        rips = json.load(open(rips_source))
        rips_section = f"""
## Vietoris-Rips persistence (`topogpu rips`): Debian's ripser, our CPU (1 thread, all cores), our GPU

`python3 tests/bench/bench_rips.py --topogpu build-gpu/bin/topogpu --rips RIPS --out OUT`
on the GPU host ({rips['cpu_count']} cores; `BENCH_RIPS=1 bash tests/gpu/run_gpu_tests.sh`),
the sets and dimensions of issue 7; every run of ours checked against Debian's ripser
(when installed there) and Ripser++'s expected barcodes. Upstream Ripser, giotto-ph and
Ripser++ are quoted from the issue (same host), not rerun.

""" + rips_markdown(rips)
    return rips_section


def section_gale(page_dir):
    """GALE against the explicit backend: the GPU host's table, targets and plots, then the
    dev box's; the plots go to page_dir/bench-results."""
    # GALE (bench_gale.py): the GPU host's table, targets and plots, drawn here from its JSON
    # (an older JSON without msc rows shows what it has), then the dev box's plots.
    gale_section = ""
    gale_results = os.path.join(root, "docs/bench-results")
    gale_source = os.path.join(gale_results, "gale_h200.json")
    # the plots go beside the page (its bench-results/), as the msc plot into its images/
    gale_plot_dir = os.path.join(page_dir, "bench-results")
    if os.path.exists(gale_source):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_gale import measured_seconds, plot_lines, table_lines, write_plots
        from bench_helpers import targets_and_notes_markdown

        def gale_plots(name, result):
            """Redrawn from the JSON where matplotlib imports, else the files already there."""
            os.makedirs(gale_plot_dir, exist_ok=True)
            drawn = write_plots(result, gale_plot_dir, name)
            return drawn or [f for f in (f"{name}_wait.svg", f"{name}_time_memory.svg")
                             if os.path.exists(os.path.join(gale_plot_dir, f))]

        def gale_ratios(result, algorithm):
            """Per case: GALE-CPU's time and peak over Explicit's, and segment computations
        per segment (every relation counted), for one algorithm's rows."""
            parts = []
            for case in result["cases"]:
                rows = {r["backend"]: r for r in result["rows"]
                        if r["case"] == case and r["algorithm"] == algorithm}
                e, c = rows.get("explicit"), rows.get("gale-cpu")
                if e and c and c.get("gale"):
                    seconds = measured_seconds(c) / max(e["algorithm_seconds"], 1e-9)
                    parts.append(f"{case} {seconds:.1f}x the time, "
                                 f"{c['peak_host_memory_mib'] / e['peak_host_memory_mib']:.2f}x "
                                 f"the peak, {c['gale']['segments_computed'] / c['gale']['segments']:.0f} "
                                 "segment computations per segment")
            return "; ".join(parts)

        gale = json.load(open(gale_source))
        measured = sorted({r["algorithm"] for r in gale["rows"]},
                          key=lambda a: ["critical-points", "discrete-gradient", "msc"].index(a)
                          if a in ("critical-points", "discrete-gradient", "msc") else 9)
        gale_section = f"""
## GALE vs the explicit backend on tetrahedralized volumes ({', '.join(measured)})

`BENCH_GALE=1 bash tests/gpu/run_gpu_tests.sh` (tests/bench/bench_gale.py) on the GPU host
({gale['host']}; {gale.get('device') or 'no GPU'}), results in
[bench-results/gale_h200.md](bench-results/gale_h200.md):

""" + "\n".join(table_lines(gale) + [""] + plot_lines(gale_plots("gale_h200", gale),
                                                           "bench-results/")
                    + [line.replace("## ", "### ", 1) if line.startswith("## ") else line
                       for line in targets_and_notes_markdown(gale)[1:]]) + "\n"
        devbox_source = os.path.join(gale_results, "gale_devbox.json")
        if os.path.exists(devbox_source):
            devbox = json.load(open(devbox_source))
            msc_ratios = gale_ratios(devbox, "msc") or "not measured"
            gradient_ratios = gale_ratios(devbox, "discrete-gradient") or "not measured"
            gale_section += f"""
The same benchmark on the dev box ({devbox['host']}; no GPU, so gale-gpu ran its CPU
producers: marked *), for the split of the waiting with CPU producers and for msc on
small volumes: [bench-results/gale_devbox.md](bench-results/gale_devbox.md) (table,
targets not measured without a GPU; a build without CUDA and VTK, so the peaks are the
algorithm's rather than the libraries'; the 2-core box is shared, so times vary between
sessions). GALE-CPU against Explicit on the Morse-Smale complex: {msc_ratios} (discrete
gradient: {gradient_ratios}): the complex's paths and manifolds come back to segments
whose relations the bounded cache no longer holds.

""" + "\n".join(plot_lines(gale_plots("gale_devbox", devbox), "bench-results/")) + "\n"
    return gale_section


def page(data, msc_source, page_dir):
    """The whole page."""
    rows = sorted(data["rows"], key=lambda r: -size(r["dims"]))
    device = next((r["gpu"]["device"] for r in rows if r["gpu"]["device"]), "no GPU")
    return f"""# Benchmarks

Every number here comes from a script in `tests/bench/` (or `tests/gpu/`) that runs the
baseline and the contender in the same process or script; rerun them to check. This page
is written by `tests/bench/write_benchmarks_doc.py` from
[bench-results/critical_points_h200.json](bench-results/critical_points_h200.json).

- **GPU host**: the lent device: {device}, with {data['cpu_count']} CPU cores. Run
  `bash tests/gpu/run_gpu_tests.sh`: it builds for sm_90, runs `gpu_equality` (CPU and
  GPU vertex orders and classes identical vertex for vertex:
  [bench-results/gpu_equality_h200.txt](bench-results/gpu_equality_h200.txt)),
  compute-sanitizer memcheck ([bench-results/memcheck_h200.txt](bench-results/memcheck_h200.txt))
  and the benchmark below.
- **Dev box**: the project's build machine, 2 cores, 24 GiB, no GPU.

""" + section_critical_points(data) + (
        section_explicit_backend() + section_smoother() + section_discrete_gradient() +
        section_msc(msc_source, page_dir) + section_msc_simplicial() + section_persistence() + section_persistence_filter() +
        section_simplify() + section_verify() +
        section_msc_threshold() + section_geodesic() + section_rips() +
        section_gale(page_dir)) + """

## Dev box (2 cores, no GPU)

`build/bin/topogpu critical-points --raw engine_256x256x128_uint8.raw --dims 256,256,128 --type uint8 --repeat 3`
on 2026-11-21: CPU path 0.25-0.33 s (vertex order 0.02 s, classification 0.21 s,
summary 0.03 s), peak host memory 114 MiB. The first call in a process also builds the
interior lookup tables (about 20 ms, once). The same command took 25 s with the first,
generic implementation of this session (link classification through the triangulation
accessors and a comparison sort), which remains the mesh path.
"""


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        root, "docs/bench-results/critical_points_h200.json")
    target = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "docs/benchmarks.md")
    msc_source = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        root, "docs/bench-results/msc_h200.json")
    text = page(json.load(open(source)), msc_source,
                os.path.dirname(os.path.abspath(target)))
    open(target, "w").write(text.rstrip("\n") + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
