"""The whole update of the TopoGPU Persistence Diagram and Topological Simplification
filters in pvpython on a raw volume already read, timed around UpdatePipeline beside the
filters' own stages (TopoGPUTimingStages: the rest is the VTK pipeline's share, the copy
into VTK arrays included), and, in the same script, `topogpu persistence` and `topogpu
simplify` on the same file (process wall time, the CLI's stage timings and peak memory):
the filter against the command line, on one machine.

    pvpython bench_persistence_filter.py PLUGIN TOPOGPU VOLUME.raw --dims X,Y,Z
        --type uint8|int16|float32|float64 [--backends cpu] [--threshold 0.01]
        [--repeat 2] [--out JSON] [--machine TEXT]

Each filter update is a first update (a new filter on the reader's output); the fastest
of --repeat is kept. The simplification runs at --threshold relative to the range
(ThresholdIsAbsolute 0). Prints the JSON summary (the layout write_benchmarks_doc.py
reads: docs/bench-results/persistence_filter_devbox.json). ParaView is not on the GPU
host: there bench_persistence.py times the same work without VTK.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_helpers import filter_stages as stages, finish_summary  # noqa: E402

READER_TYPES = {"uint8": "unsigned char", "int16": "short", "float32": "float",
                "float64": "double"}


def filter_update(make, repeat):
    best = None
    for _ in range(repeat):
        proxy = make()
        start = time.perf_counter()
        proxy.UpdatePipeline()
        seconds = time.perf_counter() - start
        t = stages(proxy)
        run = {"seconds": seconds, "timings": t, "pipeline_seconds": seconds - sum(t.values()),
               "output_points": proxy.GetDataInformation().GetNumberOfPoints()}
        Delete(proxy)  # noqa: F405
        if best is None or seconds < best["seconds"]:
            best = run
    return best


def cli(topogpu, command, volume, dims, dtype, backend, *extra):
    start = time.time()
    result = subprocess.run([topogpu, command, "--raw", volume, "--dims", dims, "--type",
                             dtype, "--backend", backend, "--json", *extra],
                            capture_output=True, text=True)
    wall = time.time() - start
    if result.returncode != 0:
        raise SystemExit(f"topogpu {command} failed: {result.stderr[-400:]}")
    report = json.loads(result.stdout)
    return {"process_seconds": wall, "timings": report["timings"],
            "peak_mib": report["peak_host_memory_mib"], "backend_ran": report["backend"]}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plugin")
    p.add_argument("topogpu")
    p.add_argument("volume")
    p.add_argument("--dims", required=True)
    p.add_argument("--type", required=True, choices=sorted(READER_TYPES))
    p.add_argument("--backends", default="cpu")
    p.add_argument("--threshold", type=float, default=0.01)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--out", default="")
    p.add_argument("--machine", default="")
    args = p.parse_args()
    LoadPlugin(args.plugin, remote=False, ns=globals())  # noqa: F405
    dims = [int(d) for d in args.dims.split(",")]
    reader = ImageReader(FileNames=[args.volume])  # noqa: F405
    reader.DataScalarType = READER_TYPES[args.type]
    reader.DataByteOrder = "LittleEndian"
    reader.DataExtent = [0, dims[0] - 1, 0, dims[1] - 1, 0, dims[2] - 1]
    reader.UpdatePipeline()  # in memory before the filters' first update
    field = ["POINTS", "ImageFile"]
    rows = []
    for backend in args.backends.split(","):
        shown = {"cpu": "CPU", "gpu": "GPU", "auto": "Auto"}[backend]
        diagram = filter_update(lambda: TopoGPUPersistenceDiagram(  # noqa: F405
            Input=reader, ScalarField=field, Backend=shown), args.repeat)
        simplified = filter_update(lambda: TopoGPUTopologicalSimplification(  # noqa: F405
            Input=reader, ScalarField=field, Backend=shown, ThresholdIsAbsolute=0,
            PersistenceThreshold=args.threshold), args.repeat)
        rows.append({
            "backend": backend,
            "persistence_filter": diagram,
            "persistence_cli": cli(args.topogpu, "persistence", args.volume, args.dims,
                                   args.type, backend, "--no-pairs"),
            "simplify_filter": simplified,
            "simplify_cli": cli(args.topogpu, "simplify", args.volume, args.dims, args.type,
                                backend, "--threshold", str(args.threshold), "--relative"),
        })
        print(json.dumps(rows[-1]), flush=True)
    result = {"volume": os.path.basename(args.volume), "dims": dims, "threshold": args.threshold,
              "rows": rows, "cores": os.cpu_count(),
              "pvpython_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    finish_summary(result, args.machine, args.out)


main()
