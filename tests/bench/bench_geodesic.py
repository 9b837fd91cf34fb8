#!/usr/bin/env python3
"""Geodesic distance benchmark: the four solvers of `topogpu geodesic` (FMM, meshFIM on
one thread, meshFIM-MT on all cores, patchFIM on the GPU) on the issue's meshes, each with
a constant speed and a correlated random speed (the paper's Speed 2: a smooth random field
in [0.5, 1.5], per vertex), in one binary. Meshes (written to a temporary folder as
binary PLY, with the speed as a vertex property):
  - the paper's Mesh 1: a regular N x N square (default 1024),
  - an irregular square (jittered vertices, random diagonals; default 1096^2, ~1.2M),
  - icospheres of ~1M and ~10M vertices (icosahedron faces split F x F, projected),
  - the largest shared surfaces (--surfaces DIR, --largest K).
Per run: time (end to end, and the solver stage alone: "<solver> (cpu|gpu)"), iterations
(patchFIM: rounds, and the active patches summed over the rounds), local solves per vertex, peak host / device memory, and the mean error against the exact
reference (Euclidean distance on the squares, great-circle distance on the spheres) for the
constant speed; with the random speed (no closed form) the mean difference from FMM.
FMM, meshFIM-MT, patchFIM and auto run --runs times (default 3) on meshes up to 2M vertices
and the run with the shortest solve is kept, all its figures with it (every run's solve
time is in solve_seconds_runs). Writes bench_geodesic.json and bench_geodesic.md to --out.

End to end, on the meshes of --e2e-vertices or more (the 1M ones), constant speed:
  - the whole CLI run (fim-mt, gpu, auto): the process's wall time as the user waits for
    it (start, reading, setup, partition, device start, solve, writing --out) beside the
    command's stages (its JSON timings: read, precondition, mesh setup, patches (cpu),
    device start (wait), upload, patchfim, download, write);
  - the filter's update (--update bench_geodesic_update: the filter's work without VTK,
    so it runs on the GPU host): the first update and an update after a change of seeds
    (the kept mesh setup and patches), for fim-mt, gpu and auto;
  - the filter's whole update in ParaView (--pvpython PVPYTHON --plugin TopoGPU.so:
    bench_geodesic_filter.py; hosts with ParaView only, so the CPU solvers there): the
    same two updates timed around UpdatePipeline, whose excess over the filter's stages
    is the VTK pipeline's share.
The issue's targets are evaluated from these (process wall for the CLI; the updates for
the filter).

    python3 tests/bench/bench_geodesic.py --topogpu build-gpu/bin/topogpu --out OUT \\
        [--update build-gpu/bin/bench_geodesic_update] [--surfaces .devdata/surfaces] \\
        [--max-seconds 420] [--timeout 150]
    python3 tests/bench/bench_geodesic.py --topogpu build/bin/topogpu --out OUT \\
        --pvpython pvpython --plugin build/lib/paraview-plugins/TopoGPU/TopoGPU.so \\
        --icospheres 316 --square 1024 --irregular 0 --solvers fim-mt,auto --runs 1

--max-seconds bounds the whole script (runs that would start later are listed as skipped),
--timeout each run (a run past it is killed and listed as timed out).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench_helpers import run_json

# gpu: patchFIM with its default breadth-first patches; gpu-metis: with METIS's; auto:
# the end-to-end cost model's choice.
SOLVERS = ["gpu", "gpu-metis", "auto", "fim-mt", "fmm", "fim"]


# ---- meshes ------------------------------------------------------------------------------

def square(n, jitter=0.0, seed=1):
    """Vertices (n*n, 3) and triangles of [0,1]^2; jitter moves interior vertices by up to
    jitter * h and makes each cell's diagonal random."""
    rng = np.random.default_rng(seed)
    h = 1.0 / (n - 1)
    x, y = np.meshgrid(np.arange(n) * h, np.arange(n) * h)
    x, y = x.ravel(), y.ravel()
    if jitter > 0:
        interior = ((x > 0) & (x < 1 - h / 2) & (y > 0) & (y < 1 - h / 2))
        x = x + interior * rng.uniform(-jitter, jitter, x.size) * h
        y = y + interior * rng.uniform(-jitter, jitter, y.size) * h
    points = np.stack([x, y, np.zeros_like(x)], axis=1)
    j, i = np.meshgrid(np.arange(n - 1), np.arange(n - 1), indexing="ij")
    a = (j * n + i).ravel()
    b, c, d = a + 1, a + n, a + n + 1
    flip = rng.integers(0, 2, a.size).astype(bool) if jitter > 0 else np.zeros(a.size, bool)
    t1 = np.where(flip[:, None], np.stack([a, b, c], 1), np.stack([a, b, d], 1))
    t2 = np.where(flip[:, None], np.stack([b, d, c], 1), np.stack([a, d, c], 1))
    return points, np.concatenate([t1, t2]).astype(np.int32)


def icosphere(f):
    """The icosahedron's faces split into f x f triangles each, vertices projected to the
    unit sphere: 10 f^2 + 2 vertices. Points on the faces' edges are shared (the same
    float sums on both faces, so equal bit for bit)."""
    phi = (1 + 5 ** 0.5) / 2
    corners = []
    for a in (-1.0, 1.0):
        for b in (-phi, phi):
            corners += [(0, a, b), (a, b, 0), (b, 0, a)]
    corners = np.array(corners)
    faces = [(i, j, k) for i in range(12) for j in range(i + 1, 12) for k in range(j + 1, 12)
             if all(abs(np.linalg.norm(corners[p] - corners[q]) - 2) < 1e-9
                    for p, q in ((i, j), (j, k), (i, k)))]
    assert len(faces) == 20
    I, J = np.meshgrid(np.arange(f + 1), np.arange(f + 1), indexing="ij")
    keep = I + J <= f
    I, J = I[keep], J[keep]
    local = -np.ones((f + 1, f + 1), np.int64)
    local[I, J] = np.arange(I.size)
    boundary = (I == 0) | (J == 0) | (I + J == f)
    ui, uj = np.meshgrid(np.arange(f), np.arange(f), indexing="ij")
    up = ui + uj < f
    down = ui + uj < f - 1
    up_tris = np.stack([local[ui[up], uj[up]], local[ui[up] + 1, uj[up]],
                        local[ui[up], uj[up] + 1]], 1)
    down_tris = np.stack([local[ui[down] + 1, uj[down]], local[ui[down] + 1, uj[down] + 1],
                          local[ui[down], uj[down] + 1]], 1)
    face_tris = np.concatenate([up_tris, down_tris])
    interior_points, boundary_points, tris = [], [], []
    for a, b, c in faces:
        w = (f - I - J)[:, None] * corners[a] + I[:, None] * corners[b] + J[:, None] * corners[c]
        interior_points.append(w[~boundary])
        boundary_points.append(w[boundary])
    # Global ids: every face's interior points, then the unique boundary points.
    n_interior = sum(len(p) for p in interior_points)
    unique, inverse = np.unique(np.concatenate(boundary_points), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    points = np.concatenate(interior_points + [unique]) / f
    at_interior, at_boundary = 0, 0
    for q in range(20):
        ids = np.empty(I.size, np.int64)
        ni, nb = int((~boundary).sum()), int(boundary.sum())
        ids[~boundary] = at_interior + np.arange(ni)
        ids[boundary] = n_interior + inverse[at_boundary:at_boundary + nb]
        at_interior += ni
        at_boundary += nb
        tris.append(ids[face_tris])
    points /= np.linalg.norm(points, axis=1)[:, None]
    return points, np.concatenate(tris).astype(np.int32)


def random_speed(points, seed=2):
    """Speed 2: a smooth random field in [0.5, 1.5] (16 random plane waves of wavelength
    0.1-0.4 in 3D, normalised), correlated over a tenth of the domain."""
    rng = np.random.default_rng(seed)
    field = np.zeros(len(points))
    for _ in range(16):
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        k = 2 * np.pi / rng.uniform(0.1, 0.4)
        field += np.sin(k * points @ direction + rng.uniform(0, 2 * np.pi))
    field /= np.abs(field).max()
    return 1.0 + 0.5 * field


def write_ply(path, points, tris, speed):
    """Binary little-endian PLY: x y z speed (double) per vertex, uchar-int faces."""
    vertex = np.empty(len(points), dtype=[("x", "<f8"), ("y", "<f8"), ("z", "<f8"),
                                          ("speed", "<f8")])
    vertex["x"], vertex["y"], vertex["z"] = points[:, 0], points[:, 1], points[:, 2]
    vertex["speed"] = speed
    face = np.empty(len(tris), dtype=[("n", "u1"), ("v", "<i4", (3,))])
    face["n"], face["v"] = 3, tris
    header = ("ply\nformat binary_little_endian 1.0\n"
              f"element vertex {len(points)}\nproperty double x\nproperty double y\n"
              "property double z\nproperty double speed\n"
              f"element face {len(tris)}\nproperty list uchar int vertex_indices\n"
              "end_header\n")
    with open(path, "wb") as f:
        f.write(header.encode())
        vertex.tofile(f)
        face.tofile(f)


def vertex_count(path):
    """The vertex count from an .off or .ply header (0 when unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("latin-1").splitlines()
        if path.endswith(".ply"):
            for line in head:
                words = line.split()
                if words[:2] == ["element", "vertex"]:
                    return int(words[2])
            return 0
        lines = [ln.split("#")[0].strip() for ln in head]
        lines = [ln for ln in lines if ln]
        first = lines[0].split()
        counts = first[1:] if len(first) > 1 else lines[1].split()
        return int(counts[0])
    except (OSError, ValueError, IndexError):
        return 0


def read_distances(path):
    with open(path) as f:
        return np.array(f.read().split(), dtype=np.float64)


# ---- runs --------------------------------------------------------------------------------

def run_one(args, mesh, solver, speed, out_file):
    """The CLI's JSON, with process_seconds: the wall time of the whole process."""
    cmd = [args.topogpu, "geodesic", "--mesh", mesh["path"], "--seeds", str(mesh["seed"]),
           "--solver", "gpu" if solver.startswith("gpu") else solver, "--out", out_file,
           "--json"]
    if solver == "gpu-metis":
        cmd += ["--partition", "metis"]
    if solver.startswith("gpu") and args.band_width:
        cmd += ["--band-width", args.band_width]
    if speed == "random":
        cmd += ["--speed-array", "speed"]
    start = time.perf_counter()
    data = run_json(cmd, timeout=args.timeout)
    data["process_seconds"] = time.perf_counter() - start
    return data


E2E_SOLVERS = ("fim-mt", "gpu", "auto")


def run_updates(args, mesh):
    """bench_geodesic_update and bench_geodesic_filter.py on one mesh (constant speed):
    {solver: {"first": ..., "seed_change": ...}} per tool."""
    seeds, other = str(mesh["seed"]), str(mesh["other_seed"])
    found = {}
    if args.update:
        found["update"] = {}
        for solver in E2E_SOLVERS:
            out = subprocess.run([args.update, mesh["path"], solver, "--seeds", seeds,
                                  "--next-seeds", other, "--repeat", str(max(args.runs, 2))],
                                 capture_output=True, text=True, timeout=args.timeout)
            if out.returncode != 0:
                raise RuntimeError(f"bench_geodesic_update {solver}: {out.stderr[-300:]}")
            found["update"][solver] = json.loads(out.stdout)
    if args.pvpython and args.plugin:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "bench_geodesic_filter.py")
        out = subprocess.run([args.pvpython, script, args.plugin, mesh["path"], "--solvers",
                              "fim-mt,auto", "--seeds", seeds, "--next-seeds", other,
                              "--repeat", str(max(args.runs, 2))],
                             capture_output=True, text=True, timeout=4 * args.timeout)
        if out.returncode != 0:
            raise RuntimeError(f"bench_geodesic_filter.py: {out.stderr[-300:]}")
        found["filter"] = json.loads(out.stdout.strip().splitlines()[-1])["solvers"]
    return found


def solve_seconds(data):
    """The solver stage: "<solver> (cpu)", or the GPU's upload, rounds and download (the
    mesh reading, precondition, mesh setup and patch partition are outside)."""
    t = data["timings"]
    if data["solver"] == "gpu":
        return sum(t.get(k, 0.0) for k in ("upload (gpu)", "patchfim (gpu)", "download (gpu)"))
    return t.get(f"{data['solver']} (cpu)", 0.0)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topogpu", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--square", type=int, default=1024, help="regular square side (0: none)")
    p.add_argument("--irregular", type=int, default=1096, help="irregular square side")
    p.add_argument("--icospheres", default="316,1000",
                   help="icosphere face splits F (10 F^2 + 2 vertices), comma-separated")
    p.add_argument("--surfaces", default="", help="folder of shared .off/.ply surfaces")
    p.add_argument("--largest", type=int, default=4, help="the K largest shared surfaces")
    p.add_argument("--solvers", default=",".join(SOLVERS))
    p.add_argument("--speeds", default="constant,random")
    p.add_argument("--fim-max-vertices", type=int, default=3_000_000,
                   help="single-threaded meshFIM only on meshes up to this size")
    p.add_argument("--band-width", default="",
                   help="patchFIM's band in mean edge times (default: the solver's)")
    p.add_argument("--timeout", type=float, default=150, help="seconds per run")
    p.add_argument("--max-seconds", type=float, default=420, help="seconds in all")
    p.add_argument("--metis-max-vertices", type=int, default=2_000_000,
                   help="largest mesh for gpu-metis (METIS's partition takes ~10 s per 1M "
                        "vertices and ~100 s at 10M, outside the solve)")
    p.add_argument("--runs", type=int, default=3,
                   help="runs of fmm, fim-mt and gpu per mesh up to --runs-max-vertices; "
                        "the one with the shortest solve is kept (run-to-run noise of a "
                        "shared host: FMM's own solve varies by up to 30%%)")
    p.add_argument("--runs-max-vertices", type=int, default=2_000_000)
    p.add_argument("--e2e-vertices", type=int, default=900_000,
                   help="meshes from this size get the end-to-end section")
    p.add_argument("--update", default="",
                   help="bench_geodesic_update binary: the filter's update without VTK")
    p.add_argument("--pvpython", default="", help="pvpython, for the filter's whole update")
    p.add_argument("--plugin", default="", help="the TopoGPU plugin, with --pvpython")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    tmp = tempfile.mkdtemp(prefix="bench_geodesic_")
    solvers = [s for s in args.solvers.split(",") if s]
    speeds = [s for s in args.speeds.split(",") if s]
    rows, notes, updates = [], [], []

    def generated():
        """(name, generator, kind) in increasing size, so that the time limit cuts the
        largest ones."""
        items = []
        if args.square:
            items.append((f"regular square {args.square}^2", lambda: square(args.square),
                          "plane"))
        if args.irregular:
            items.append((f"irregular square {args.irregular}^2",
                          lambda: square(args.irregular, 0.3, 5), "plane"))
        # 0 (like --square 0) means none
        for f in sorted(f for f in (int(x) for x in args.icospheres.split(",") if x) if f > 0):
            items.append((f"icosphere F={f}", lambda f=f: icosphere(f), "sphere"))
        return items

    meshes = []
    for name, make, kind in generated():
        meshes.append({"name": name, "make": make, "kind": kind})
    if args.surfaces and os.path.isdir(args.surfaces):
        found = [os.path.join(args.surfaces, n) for n in os.listdir(args.surfaces)
                 if n.endswith((".off", ".ply"))]
        found.sort(key=lambda q: -vertex_count(q))
        for path in found[:args.largest]:
            meshes.append({"name": os.path.basename(path), "path": path, "kind": "surface"})
    elif args.surfaces:
        notes.append(f"no surface folder {args.surfaces}: shared surfaces skipped")

    try:
        for mesh in meshes:
            if time.time() - start > args.max_seconds:
                notes.append(f"{mesh['name']}: skipped (over --max-seconds {args.max_seconds})")
                continue
            exact = None
            if "make" in mesh:
                t0 = time.time()
                points, tris = mesh["make"]()
                mesh["vertices"] = len(points)
                if mesh["kind"] == "plane":
                    centre = np.argmin(np.linalg.norm(points[:, :2] - 0.5, axis=1))
                    mesh["seed"] = int(centre)
                    exact = np.linalg.norm(points - points[centre], axis=1)
                else:
                    mesh["seed"] = 0
                    exact = np.arccos(np.clip(points @ points[0], -1.0, 1.0))
                # The seed after a change of seeds (updates): another vertex.
                mesh["other_seed"] = (mesh["seed"] + len(points) // 3) % len(points)
                mesh["path"] = os.path.join(tmp, "mesh.ply")
                write_ply(mesh["path"], points, tris, random_speed(points))
                print(f"{mesh['name']}: {len(points)} vertices, {len(tris)} triangles, "
                      f"generated in {time.time() - t0:.1f} s", flush=True)
                del points, tris
            else:
                mesh["seed"] = 0
                mesh["other_seed"] = 1
            big = mesh.get("vertices", vertex_count(mesh["path"])) >= args.e2e_vertices
            if big and (args.update or args.pvpython) and \
                    time.time() - start < args.max_seconds:
                try:
                    found = run_updates(args, mesh)
                    updates.append({"mesh": mesh["name"], "vertices": mesh.get("vertices"),
                                    **found})
                    print_updates(found)
                except (OSError, RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                    notes.append(f"{mesh['name']}: updates failed: {str(e)[-300:]}")
            for speed in speeds:
                if speed == "random" and mesh["kind"] == "surface":
                    continue  # shared surfaces carry no speed property
                fmm = None
                results = {}
                for solver in solvers:
                    vertices = mesh.get("vertices", 0)
                    row = {"mesh": mesh["name"], "kind": mesh["kind"], "speed": speed,
                           "solver": solver, "seed": mesh["seed"]}
                    if solver == "fim" and vertices > args.fim_max_vertices:
                        row["status"] = f"skipped (over --fim-max-vertices)"
                        rows.append(row)
                        continue
                    if solver == "gpu-metis" and vertices > args.metis_max_vertices:
                        row["status"] = "skipped (over --metis-max-vertices)"
                        rows.append(row)
                        continue
                    if time.time() - start > args.max_seconds:
                        row["status"] = "skipped (over --max-seconds)"
                        rows.append(row)
                        continue
                    out_file = os.path.join(tmp, "d.txt")
                    try:
                        data = run_one(args, mesh, solver, speed, out_file)
                        runs = [solve_seconds(data)]
                        walls = [data["process_seconds"]]
                        while (len(runs) < args.runs
                               and solver in ("fmm", "fim-mt", "gpu", "auto")
                               and data["vertices"] <= args.runs_max_vertices):
                            again = run_one(args, mesh, solver, speed, out_file)
                            runs.append(solve_seconds(again))
                            walls.append(again["process_seconds"])
                            if runs[-1] < solve_seconds(data):
                                data = again
                    except subprocess.TimeoutExpired:
                        row["status"] = f"timed out (--timeout {args.timeout} s)"
                        rows.append(row)
                        print(f"  {speed:8s} {solver:7s} timed out", flush=True)
                        continue
                    except RuntimeError as e:
                        row["status"] = "failed: " + str(e)[-300:]
                        rows.append(row)
                        print(f"  {speed:8s} {solver:7s} FAILED {str(e)[-300:]}", flush=True)
                        continue
                    d = read_distances(out_file)
                    mesh["vertices"] = data["vertices"]
                    row.update({
                        "status": "ok", "ran": data["solver"], "backend": data["backend"],
                        "vertices": data["vertices"], "total_seconds": data["total_seconds"],
                        "solve_seconds": solve_seconds(data), "solve_seconds_runs": runs,
                        "process_seconds": min(walls), "process_seconds_runs": walls,
                        "wall_seconds": data.get("wall_seconds"),
                        "timings": data["timings"],
                        "iterations": data["iterations"],
                        "local_solves_per_vertex": data["local_solves_per_vertex"],
                        "unreached": data["unreached"], "converged": data["converged"],
                        "peak_host_memory_mib": data["peak_host_memory_mib"],
                        "peak_device_memory_mib": data["peak_device_memory_mib"],
                        "warnings": data["warnings"], "patches": data.get("patches"),
                        "partition": data.get("partition"),
                        "patch_rounds": data.get("patch_rounds")})
                    finite = np.isfinite(d)
                    if exact is not None and speed == "constant":
                        row["mean_error"] = float(np.abs(d[finite] - exact[finite]).mean())
                        row["max_error"] = float(np.abs(d[finite] - exact[finite]).max())
                        row["error_reference"] = "exact"
                    results[solver] = d
                    if solver == "fmm":
                        fmm = d
                    rows.append(row)
                    print(f"  {speed:8s} {solver:7s} ({data['solver']}) total "
                          f"{data['total_seconds']:.3f} s, solve {row['solve_seconds']:.4f} s, "
                          f"{data['local_solves_per_vertex']:.1f} solves/v, mean error "
                          f"{row.get('mean_error', float('nan')):.3e}", flush=True)
                # Differences from FMM (the only reference with a random speed).
                if fmm is not None:
                    for row in rows:
                        if (row["mesh"] == mesh["name"] and row["speed"] == speed
                                and row["solver"] in results):
                            d = results[row["solver"]]
                            both = np.isfinite(d) & np.isfinite(fmm)
                            row["mean_diff_vs_fmm"] = float(np.abs(d[both] - fmm[both]).mean())
                            row["max_diff_vs_fmm"] = float(np.abs(d[both] - fmm[both]).max())
            if "make" in mesh:
                os.remove(mesh["path"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # Speed-ups against FMM on the same mesh and speed (solver stage and end to end).
    by_key = {(r["mesh"], r["speed"], r["solver"]): r for r in rows if r.get("status") == "ok"}
    for r in rows:
        f = by_key.get((r["mesh"], r["speed"], "fmm"))
        if r.get("status") == "ok" and f:
            r["speedup_vs_fmm_solve"] = f["solve_seconds"] / max(r["solve_seconds"], 1e-9)
            r["speedup_vs_fmm_total"] = f["total_seconds"] / max(r["total_seconds"], 1e-9)
    device = subprocess.run([args.topogpu, "info", "--json"], capture_output=True, text=True)
    try:
        info = json.loads(device.stdout)
    except ValueError:
        info = {}
    result = {"rows": rows, "notes": notes, "cpu_count": os.cpu_count(), "info": info,
              "seconds": time.time() - start, "updates": updates,
              "e2e_vertices": args.e2e_vertices}
    result["targets"] = end_to_end_targets(result)
    with open(os.path.join(args.out, "bench_geodesic.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "bench_geodesic.md"), "w") as f:
        f.write(markdown(result) + end_to_end_markdown(result))
    print(markdown(result) + end_to_end_markdown(result))
    failed = any(r.get("status", "").startswith("failed") for r in rows)
    return 1 if failed else 0


def markdown(result):
    """The table (shared with write_benchmarks_doc.py)."""
    lines = ["| mesh | vertices | speed | solver (ran) | solve s | total s | x FMM (solve) | "
             "iterations | solves / vertex | mean error | mean diff vs FMM | host MiB | "
             "device MiB | status |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in result["rows"]:
        if r.get("status") != "ok":
            lines.append(f"| {r['mesh']} | | {r['speed']} | {r['solver']} | | | | | | | | | | "
                         f"{r.get('status', '')} |")
            continue
        err = f"{r['mean_error']:.2e}" if "mean_error" in r else "-"
        diff = f"{r['mean_diff_vs_fmm']:.1e}" if "mean_diff_vs_fmm" in r else "-"
        speedup = f"{r['speedup_vs_fmm_solve']:.1f}" if "speedup_vs_fmm_solve" in r else "-"
        pr = f" ({r['patch_rounds']})" if r.get("patch_rounds") else ""
        ran = r["solver"] + ("" if r["ran"] == r["solver"].replace("-metis", "") else f" ({r['ran']})")
        lines.append(
            f"| {r['mesh']} | {r['vertices']:,} | {r['speed']} | {ran} | "
            f"{r['solve_seconds']:.4f} | {r['total_seconds']:.3f} | {speedup} | "
            f"{r['iterations']}{pr} | {r['local_solves_per_vertex']:.1f} | {err} | {diff} | "
            f"{r['peak_host_memory_mib']:.0f} | {r['peak_device_memory_mib']:.0f} | ok |")
    text = "\n".join(lines) + "\n"
    if result.get("notes"):
        text += "\n" + "\n".join(f"- {n}" for n in result["notes"]) + "\n"
    return text


# ---- end to end ---------------------------------------------------------------------------

CLI_STAGES = ("read", "precondition", "mesh setup", "patches (cpu)", "device start (wait)",
              "upload (gpu)", "patchfim (gpu)", "download (gpu)", "fim-mt (cpu)", "write")
UPDATE_STAGES = ("triangulation", "triangulation (cached)", "points", "precondition",
                 "mesh setup", "mesh setup (cached)", "exact start", "patches (cpu)",
                 "patches (cached)", "device start (wait)", "upload (gpu)", "patchfim (gpu)",
                 "download (gpu)", "release (gpu)", "fim-mt (cpu)", "input units", "output")


def unaccounted(update):
    """An update's seconds outside all of its stages."""
    return update["seconds"] - sum(update["timings"].values())


def print_updates(found):
    """Per solver and update: seconds, the stages' sum and the unaccounted remainder."""
    for tool, runs in found.items():
        for solver, both in runs.items():
            for which in ("first", "seed_change"):
                x = both[which]
                print(f"  {tool} {solver} ({x['solver']}) {which.replace('_', ' ')}: "
                      f"{x['seconds']:.4f} s, stages {sum(x['timings'].values()):.4f} s, "
                      f"unaccounted {unaccounted(x):.4f} s", flush=True)


def end_to_end_rows(result):
    """The CLI rows of the end-to-end meshes (constant speed)."""
    return [r for r in result["rows"] if r.get("status") == "ok" and r["speed"] == "constant"
            and r["solver"] in E2E_SOLVERS and r["vertices"] >= result.get("e2e_vertices", 0)]


def ratio(slow, fast):
    return slow / fast if slow and fast else None


def end_to_end_targets(result):
    """The issue's targets: the CLI (gpu against fim-mt, process wall) >= 2x, the filter's
    update (after a change of seeds; first update shown) >= 5x, on the 1M meshes."""
    targets = []
    by = {(r["mesh"], r["solver"]): r for r in end_to_end_rows(result)}
    for mesh in sorted({m for m, _ in by}):
        cpu, gpu = by.get((mesh, "fim-mt")), by.get((mesh, "gpu"))
        auto = by.get((mesh, "auto"))
        if cpu and gpu:
            x = ratio(cpu["process_seconds"], gpu["process_seconds"])
            targets.append({"target": f"CLI gpu >= 2x fim-mt end to end, {mesh}",
                            "measured": f"{x:.2f}x ({gpu['process_seconds']:.3f} s against "
                                        f"{cpu['process_seconds']:.3f} s; auto ran "
                                        f"{auto['ran'] if auto else '-'})",
                            "met": x >= 2 if gpu["ran"] == "gpu" else None})
    for u in result.get("updates", []):
        runs = u.get("update", {})
        cpu, gpu, auto = runs.get("fim-mt"), runs.get("gpu"), runs.get("auto")
        if cpu and gpu:
            for which in ("seed_change", "first"):
                x = ratio(cpu[which]["seconds"], gpu[which]["seconds"])
                ok = gpu[which]["solver"] == "gpu"
                targets.append({
                    "target": f"filter update ({which.replace('_', ' ')}) gpu >= 5x fim-mt, "
                              f"{u['mesh']} (bench_geodesic_update)",
                    "measured": f"{x:.2f}x ({gpu[which]['seconds']:.4f} s against "
                                f"{cpu[which]['seconds']:.4f} s; auto ran "
                                f"{auto[which]['solver'] if auto else '-'}, "
                                f"{auto[which]['seconds']:.4f} s)" if auto else f"{x:.2f}x",
                    "met": (x >= 5) if ok and which == "seed_change" else None})
    return targets


def end_to_end_markdown(result):
    lines = ["", "### End to end (constant speed, the meshes of "
             f"{result.get('e2e_vertices', 0):,} vertices or more)", "",
             "The whole CLI run: process wall time (the fastest of the runs) and the "
             "command's stages, seconds.", "",
             "| mesh | solver (ran) | process s | command s | " +
             " | ".join(CLI_STAGES) + " |",
             "|---|---|---:|---:|" + "---:|" * len(CLI_STAGES)]
    for r in end_to_end_rows(result):
        t = r.get("timings", {})
        lines.append(f"| {r['mesh']} | {r['solver']} ({r['ran']}) | "
                     f"{r['process_seconds']:.3f} | {r.get('wall_seconds') or 0:.3f} | " +
                     " | ".join(f"{t[k]:.4f}" if k in t else "-" for k in CLI_STAGES) + " |")
    for tool, label in (("update", "bench_geodesic_update (the filter's work without VTK)"),
                        ("filter", "the filter in pvpython (UpdatePipeline; pipeline s: the "
                                   "time outside the filter's stages)")):
        found = [u for u in result.get("updates", []) if tool in u]
        if not found:
            continue
        lines += ["", f"The filter's update, {label}, seconds (unaccounted: outside every "
                  "stage).", "",
                  "| mesh | solver (ran) | update | seconds | pipeline s | unaccounted s | " +
                  " | ".join(UPDATE_STAGES) + " |",
                  "|---|---|---|---:|---:|---:|" + "---:|" * len(UPDATE_STAGES)]
        for u in found:
            for solver, both in u[tool].items():
                for which in ("first", "seed_change"):
                    x = both[which]
                    t = x["timings"]
                    pipeline = x.get("pipeline_seconds")
                    lines.append(
                        f"| {u['mesh']} | {solver} ({x['solver']}) | "
                        f"{which.replace('_', ' ')} | {x['seconds']:.4f} | "
                        f"{'-' if pipeline is None else f'{pipeline:.4f}'} | "
                        f"{unaccounted(x):.4f} | " +
                        " | ".join(f"{t[k]:.4f}" if k in t else "-" for k in UPDATE_STAGES)
                        + " |")
    if result.get("targets"):
        lines += ["", "| target | measured | verdict |", "|---|---|---|"]
        verdicts = {True: "met", False: "NOT met", None: "not measured (no GPU run)"}
        for t in result["targets"]:
            verdict = verdicts[t["met"]]
            if t["met"] is None and "(first)" in t["target"]:
                verdict = "shown beside the seed change (the target)"
            lines.append(f"| {t['target']} | {t['measured']} | {verdict} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
