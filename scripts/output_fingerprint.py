#!/usr/bin/env python3
"""Fingerprints of the CLI's outputs on data made here, to show a restructuring changed none.

Runs every command of `topogpu` on small grids, meshes and clouds it writes itself, drops
what may change between runs (timings, memory, thread counts) from the JSON, and prints one
SHA-256 per run (stdout and every file the run wrote). Run it on the commit before and after
a change and diff the two outputs:

  python3 scripts/output_fingerprint.py --topogpu build/bin/topogpu > before.txt

With --backend gpu on a machine with a device it fingerprints the GPU runs instead (and
GALE's GPU producer). meshFIM on all threads (fim-mt) may end a few ulps apart from run to
run on many cores: compare its lines only between repeated runs of the same binary.
"""
import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import random
import struct
import tempfile

VOLATILE = ("seconds", "timings", "memory", "peak", "wall", "threads", "device", "warm")


# meshFIM on all threads converges to the same distances by a schedule-dependent number
# of sweeps and local solves; GALE's consumers and producers share the segments by timing.
SCHEDULE_DEPENDENT = ("iterations", "local_solves_per_vertex")
GALE_SCHEDULE = ("requests", "batches", "segments_computed", "segments_ahead")


def strip_volatile(value, extra=()):
    words = VOLATILE + tuple(extra)
    if isinstance(value, dict):
        return {k: strip_volatile(v, extra) for k, v in value.items()
                if not any(word in k for word in words)}
    if isinstance(value, list):
        return [strip_volatile(v, extra) for v in value]
    return value


def write_grids(tmp):
    rng = random.Random(20)
    grids = {
        "f32": (struct.pack("<%df" % 7680, *(rng.random() for _ in range(7680))),
                "24,20,16", "float32"),
        "u8ties": (bytes(rng.randrange(4) for _ in range(18 ** 3)), "18,18,18", "uint8"),
        "f64_2d": (struct.pack("<%dd" % 1200, *(rng.random() for _ in range(1200))),
                   "40,30", "float64"),
    }
    paths = {}
    for name, (data, dims, dtype) in grids.items():
        path = os.path.join(tmp, name + ".raw")
        with open(path, "wb") as f:
            f.write(data)
        paths[name] = (path, dims, dtype)
    return paths


def write_surface(tmp):
    """A jittered height field as an OFF triangle surface (obtuse angles included)."""
    rng = random.Random(7)
    n = 30
    points, faces = [], []
    for j in range(n):
        for i in range(n):
            points.append((i + 0.3 * rng.random(), j + 0.3 * rng.random(),
                           math.sin(i / 5.0) * math.cos(j / 7.0) * 3))
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = j * n + i, j * n + i + 1, (j + 1) * n + i, (j + 1) * n + i + 1
            faces += [(a, b, d), (a, d, c)]
    path = os.path.join(tmp, "surface.off")
    with open(path, "w") as f:
        f.write("OFF\n%d %d 0\n" % (len(points), len(faces)))
        f.writelines("%.17g %.17g %.17g\n" % p for p in points)
        f.writelines("3 %d %d %d\n" % t for t in faces)
    return path


def write_tets(tmp):
    """A Freudenthal-split 7x6x5 grid with a random point array, as legacy VTK."""
    rng = random.Random(11)
    nx, ny, nz = 7, 6, 5
    points = [(x, y, z) for z in range(nz) for y in range(ny) for x in range(nx)]
    vid = lambda x, y, z: (z * ny + y) * nx + x
    tets = []
    paths = [(1, 2, 4), (1, 4, 2), (2, 1, 4), (2, 4, 1), (4, 1, 2), (4, 2, 1)]
    for z in range(nz - 1):
        for y in range(ny - 1):
            for x in range(nx - 1):
                for order in paths:
                    corner, tet = [x, y, z], [vid(x, y, z)]
                    for bit in order:
                        corner[{1: 0, 2: 1, 4: 2}[bit]] += 1
                        tet.append(vid(*corner))
                    tets.append(tet)
    values = [rng.random() for _ in points]
    path = os.path.join(tmp, "tets.vtk")
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 3.0\ntets\nASCII\nDATASET UNSTRUCTURED_GRID\n")
        f.write("POINTS %d double\n" % len(points))
        f.writelines("%d %d %d\n" % p for p in points)
        f.write("CELLS %d %d\n" % (len(tets), 5 * len(tets)))
        f.writelines("4 %d %d %d %d\n" % tuple(t) for t in tets)
        f.write("CELL_TYPES %d\n" % len(tets))
        f.writelines("10\n" for _ in tets)
        f.write("POINT_DATA %d\nSCALARS f double 1\nLOOKUP_TABLE default\n" % len(points))
        f.writelines("%.17g\n" % v for v in values)
    return path


def write_cloud(tmp):
    rng = random.Random(3)
    path = os.path.join(tmp, "cloud.txt")
    with open(path, "w") as f:
        f.writelines("%.17g %.17g %.17g\n" % (rng.random(), rng.random(), rng.random())
                     for _ in range(45))
    return path


def runs(tmp, backend):
    grids = write_grids(tmp)
    surface, tets, cloud = write_surface(tmp), write_tets(tmp), write_cloud(tmp)
    be = ["--backend", backend]
    out = lambda name: os.path.join(tmp, "out", name)
    cases = []
    for name, (path, dims, dtype) in grids.items():
        raw = ["--raw", path, "--dims", dims, "--type", dtype]
        gale = ("gale-cpu", "gale-gpu") if backend == "gpu" else ("gale-cpu",)
        for tri in ("implicit", "explicit", *gale):
            cases.append(("cp-%s-%s" % (name, tri),
                          ["critical-points", *raw, "--triangulation", tri, *be]))
        for complex_ in ("cubical", "simplicial"):
            extra = ["--separatrices"] if complex_ == "simplicial" else []
            cases.append(("dg-%s-%s" % (name, complex_),
                          ["discrete-gradient", *raw, "--complex", complex_, *extra, *be]))
            pairs = ["--persistence-pairs"] if complex_ == "cubical" else []
            cases.append(("msc-%s-%s" % (name, complex_),
                          ["msc", *raw, "--complex", complex_, *pairs,
                           "--details", out("msc-%s-%s.json" % (name, complex_)), *be]))
        cases.append(("msc-%s-gale" % name,
                      ["msc", *raw, "--complex", "simplicial", "--triangulation", "gale-cpu",
                       *be]))
        cases.append(("smooth-%s" % name,
                      ["smooth", *raw, "--iterations", "3",
                       "--output", out("smooth-%s.raw" % name), *be]))
    mesh = ["--mesh", tets, "--array", "f"]
    for tri in ("explicit", "gale-cpu"):
        cases.append(("cp-tets-" + tri, ["critical-points", *mesh, "--triangulation", tri, *be]))
        cases.append(("msc-tets-" + tri, ["msc", *mesh, "--triangulation", tri,
                                          "--details", out("msc-tets-%s.json" % tri), *be]))
    cases.append(("dg-tets", ["discrete-gradient", *mesh, "--separatrices", *be]))
    cases.append(("smooth-tets", ["smooth", *mesh, "--iterations", "2", *be]))
    cases.append(("cp-surface-z", ["critical-points", "--mesh", surface, "--array", "z", *be]))
    solvers = ["gpu"] if backend == "gpu" else ["fmm", "fim", "fim-mt"]
    for solver in solvers:
        for radius in ("auto", "0"):
            cases.append(("geodesic-%s-%s" % (solver, radius),
                          ["geodesic", "--mesh", surface, "--seeds", "0,377", "--solver", solver,
                           "--exact-start-radius", radius,
                           "--out", out("geo-%s-%s.txt" % (solver, radius))]))
    rips = ["rips", "--format", "point-cloud", "--backend", backend]
    cases.append(("rips-dim2", [*rips, "--dim", "2", cloud]))
    cases.append(("rips-cocycles", [*rips, "--dim", "2", "--cocycles", cloud]))
    cases.append(("rips-sparse", [*rips, "--dim", "2", "--sparse", "--threshold", "0.4", cloud]))
    return cases


def fingerprint(topogpu, name, args, tmp):
    outdir = os.path.join(tmp, "out")
    for f in os.listdir(outdir):
        os.remove(os.path.join(outdir, f))
    digest = hashlib.sha256()
    for json_mode in (True, False):
        command = [topogpu, *args] + (["--json"] if json_mode else [])
        if not json_mode and args[0] != "rips":
            continue  # the text of the other commands is their JSON's counts
        run = subprocess.run(command, capture_output=True, text=True, timeout=600)
        text = run.stdout.replace(tmp, "TMP")  # the paths of the run's own files
        if json_mode:
            try:
                extra = SCHEDULE_DEPENDENT if "fim-mt" in args else ()
                extra += GALE_SCHEDULE if any(a.startswith("gale-") for a in args) else ()
                text = json.dumps(strip_volatile(json.loads(text), extra), sort_keys=True)
            except ValueError:
                pass
        digest.update(("%d\n%s" % (run.returncode, text)).encode())
    for f in sorted(os.listdir(outdir)):
        with open(os.path.join(outdir, f), "rb") as handle:
            data = handle.read()
        if f.endswith(".json"):
            data = json.dumps(strip_volatile(json.loads(data)), sort_keys=True).encode()
        digest.update(f.encode() + b"\n" + data.replace(tmp.encode(), b"TMP"))
    return digest.hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topogpu", default="build/bin/topogpu")
    parser.add_argument("--backend", default="cpu", choices=("cpu", "gpu"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "out"))
        for name, args in runs(tmp, options.backend):
            print(name, fingerprint(options.topogpu, name, args, tmp), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
