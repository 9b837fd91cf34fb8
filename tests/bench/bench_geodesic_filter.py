"""The whole update of the TopoGPU Geodesic Distance filter in pvpython: the first update
on a surface already in memory, then updates after a change of seeds (the kept mesh
setup and patches), each timed around UpdatePipeline, beside the filter's own stages
(TopoGPUTimingStages): the rest of the wall time is the VTK pipeline's share (the
triangulation's cache check, the output's shallow copy, field data).

    pvpython bench_geodesic_filter.py PLUGIN MESH.ply [--solvers fim-mt,auto] [--repeat 3]
        [--seeds 0] [--next-seeds 1]

Prints one JSON object: per solver, "first" and "seed_change" (the fastest of --repeat),
each with "seconds", "solver" (GeodesicSolver: the one that ran), "timings" and
"pipeline_seconds". ParaView is not on the GPU host: there bench_geodesic_update runs the
same update without VTK (bench_geodesic.py --update).
"""
import argparse
import json
import os
import sys
import time

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_helpers import filter_stages as stages  # noqa: E402


def ran(proxy):
    solver = proxy.GetClientSideObject().GetOutputDataObject(0).GetFieldData() \
        .GetAbstractArray("GeodesicSolver")
    return solver.GetValue(0) if solver is not None else "?"


def timed(proxy):
    start = time.perf_counter()
    proxy.UpdatePipeline()
    seconds = time.perf_counter() - start
    t = stages(proxy)
    return {"seconds": seconds, "solver": ran(proxy), "timings": t,
            "pipeline_seconds": seconds - sum(t.values())}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plugin")
    p.add_argument("mesh")
    p.add_argument("--solvers", default="fim-mt,auto")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seeds", default="0")
    p.add_argument("--next-seeds", default="1")
    args = p.parse_args()
    LoadPlugin(args.plugin, remote=False, ns=globals())  # noqa: F405
    surface = PLYReader(FileNames=[args.mesh])  # noqa: F405
    surface.UpdatePipeline()  # in memory before the filter's first update
    seeds = [int(s) for s in args.seeds.split(",")]
    nxt = [int(s) for s in args.next_seeds.split(",")]
    if nxt == seeds:
        p.error("--next-seeds must differ from --seeds (a change of seeds)")
    result = {"mesh": args.mesh,
              "vertices": surface.GetDataInformation().GetNumberOfPoints(), "solvers": {}}
    for solver in args.solvers.split(","):
        f = TopoGPUGeodesicDistance(Input=surface, SeedIds=seeds, Solver=solver)  # noqa
        first = timed(f)
        best = None
        for r in range(max(1, args.repeat)):
            f.SeedIds = nxt if r % 2 == 0 else seeds
            u = timed(f)
            if best is None or u["seconds"] < best["seconds"]:
                best = u
        result["solvers"][solver] = {"first": first, "seed_change": best}
        Delete(f)  # noqa: F405
    print(json.dumps(result))


if __name__ == "__main__":
    main()
