"""`topogpu msc` and `discrete-gradient` on the simplicial complex through every
triangulation (issue 9):
  * the shared tet meshes: explicit and gale-cpu (small segments, so most relations
    cross segments) give the same JSON and the same complex (--details, compared as vertex
    lists: edge and triangle ids differ between backends), every vertex labelled;
  * a grid tetrahedralized here (TTK's Freudenthal split written from its documented
    corners, as a legacy VTK file) against the implicit grid's simplicial path on the
    same values: same counts, same labels per vertex;
  * Euler: n0 - n1 + n2 - n3 equals V - E + F - T counted here from the tets (meshes
    with holes and two components, so chi is not 1);
  * TTK's separatrix counts are a second pass, run only with --separatrices: without it
    neither "separatrices1" nor its stage; with it, the counts `discrete-gradient
    --separatrices` gives (checked there against TTK 1.2's reference counts).
"""
import itertools
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_helpers  # noqa: E402
from cli_helpers import check, np, topogpu  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
from freudenthal import freudenthal_tets  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
if "no VTK" in topogpu("msc", "--help").stdout:
    print("SKIP: this build reads no .vtu / .vtk")
    sys.exit(77)

SAME = ("critical_cells", "simplices", "arcs", "boundary_maxima", "separatrices1",
        "separatrices2", "unlabelled_vertices", "unlabelled_cells")


def run(command, *args, timeout=240):
    r = topogpu(command, *args, "--json", timeout=timeout, memory=None)
    if r.returncode != 0:
        check(False, f"{command} {args}: rc {r.returncode}: {r.stderr[-300:]}")
        return None
    return json.loads(r.stdout)


def canonical(details):
    """The complex with every simplex as a sorted vertex tuple, labels mapped to their
    extremum: comparable across backends."""
    t = lambda s: tuple(sorted(s))  # noqa: E731
    crit = [sorted(t(s) for s in cells) for cells in details["critical_cells"]]
    maxima = [t(m) for m in details["maxima"]]
    minima = [t(s) for s in details["critical_cells"][0]]
    asc = [minima[l] if l >= 0 else None for l in details["DescendingManifold"]]
    desc = [maxima[l] if l >= 0 else None for l in details["AscendingManifold"]]
    arcs1 = sorted((t(s), minima[e], m) for s, e, m in details["saddle1_minimum"])
    arcs2 = sorted((t(s), maxima[e], m) for s, e, m in details["saddle_maximum"])
    conn = sorted((t(a), t(b), m) for a, b, m in details["saddle1_saddle2"])
    return crit, sorted(maxima), asc, desc, arcs1, arcs2, conn


def msc_with_details(tmp, tag, *args):
    path = os.path.join(tmp, tag + ".json")
    out = run("msc", *args, "--separatrices", "--details", path)
    if out is None:
        return None, None
    with open(path) as f:
        return out, canonical(json.load(f))


def compare(label, a, b):
    (oa, ca), (ob, cb) = a, b
    if oa is None or ob is None:
        return
    for key in SAME:
        check(oa.get(key) == ob.get(key), f"{label}: {key} {oa.get(key)} != {ob.get(key)}")
    names = ("critical cells", "maxima", "DescendingManifold", "AscendingManifold",
             "saddle-minimum arcs", "saddle-maximum arcs", "saddle connections")
    for name, x, y in zip(names, ca, cb):
        check(x == y, f"{label}: {name} differ")


def euler_of_tets(tets):
    faces = [set() for _ in range(4)]
    for tet in tets:
        for k in range(1, 5):
            faces[k - 1].update(itertools.combinations(sorted(tet), k))
    return sum((-1) ** k * len(f) for k, f in enumerate(faces))


def write_vtk(path, points, tets, values):
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 3.0\ntets\nASCII\nDATASET UNSTRUCTURED_GRID\n")
        f.write(f"POINTS {len(points)} double\n")
        f.writelines(f"{x} {y} {z}\n" for x, y, z in points)
        f.write(f"CELLS {len(tets)} {5 * len(tets)}\n")
        f.writelines("4 " + " ".join(map(str, t)) + "\n" for t in tets)
        f.write(f"CELL_TYPES {len(tets)}\n" + "10\n" * len(tets))
        f.write(f"POINT_DATA {len(points)}\nSCALARS f double 1\nLOOKUP_TABLE default\n")
        f.writelines(f"{v!r}\n" for v in values)


with tempfile.TemporaryDirectory() as tmp:
    # ---- shared tet meshes: explicit vs GALE (CPU producers) --------------------------
    for name, array in (("bluntfin_density_tets.vtu", "Density"),
                        ("vtk_post_lox.vtk", "Pressure"),
                        ("vtk_cylinder_linear_tets.vtk", "vel_norm"),
                        ("vtk_a_grid.vtk", "z")):
        mesh = os.path.join(DATA, "tets", name)
        if not os.path.exists(mesh):
            check(False, f"missing {mesh}")
            continue
        base = ("--mesh", mesh, "--array", array)
        results = {}
        for kind in ("explicit", "gale-cpu"):
            # small segments: most relations cross segments
            extra = ("--segment-size", "32") if kind != "explicit" else ()
            results[kind] = msc_with_details(tmp, name + kind, *base, "--triangulation", kind,
                                             *extra)
        compare(f"{name}: explicit vs gale-cpu", results["explicit"], results["gale-cpu"])
        out = results["explicit"][0]
        if out is not None:
            # TTK's rule (the default) leaves ascending paths through the boundary
            # unlabelled (cli.msc_ttk_segmentation); through the boundary none is
            check(out["unlabelled_vertices"]["descending"] == 0
                  and out["unlabelled_vertices"]["morse_smale"] == 0,
                  f"{name}: unlabelled {out['unlabelled_vertices']}")
            wide = run("msc", *base, "--ascending-through-boundary")
            check(wide is not None and wide["unlabelled_vertices"] == {
                "ascending": 0, "descending": 0, "morse_smale": 0}
                and wide["unlabelled_cells"] == 0, f"{name}: unlabelled {wide}")
            a = out["arcs"]
            check(a["saddle1_minimum_multiplicity_sum"] == 2 * out["critical_cells"][1],
                  f"{name}: two descending paths per 1-saddle: {a}")
            # TTK's 2-separatrices: one wall per 1-saddle and per 2-saddle, each holding
            # at least its saddle
            w, n = out.get("separatrices2", {}), out["critical_cells"]
            check(w.get("ascending") == n[1] and w.get("descending") == n[2]
                  and w.get("ascending_edges", 0) >= n[1]
                  and w.get("descending_triangles", 0) >= n[2],
                  f"{name}: 2-separatrices {w} for critical cells {n}")
        grads = [run("discrete-gradient", *base, "--triangulation", kind, "--separatrices")
                 for kind in ("explicit", "gale-cpu")]
        if None not in grads:
            check(grads[0]["critical_cells"] == grads[1]["critical_cells"]
                  and grads[0]["simplices"] == grads[1]["simplices"],
                  f"{name}: discrete-gradient explicit {grads[0]['critical_cells']} vs "
                  f"gale-cpu {grads[1]['critical_cells']}")
            if out is not None:
                check(out["separatrices1"] == grads[0]["separatrices1"],
                      f"{name}: msc --separatrices {out['separatrices1']} != "
                      f"discrete-gradient --separatrices {grads[0]['separatrices1']}")
        plain = run("msc", *base)
        if plain is not None and out is not None:
            stages = list(plain.get("timings", {}))
            check("separatrices1" not in plain and not any("separatrix" in s for s in stages),
                  f"{name}: msc without --separatrices still counts them: {stages}")
            check(all(plain[k] == out[k] for k in SAME
                      if k not in ("separatrices1", "separatrices2")),
                  f"{name}: msc with and without --separatrices differ")

    # ---- a tetrahedralized grid vs the implicit grid -----------------------------------
    rng = np.random.default_rng(7)
    nx, ny, nz = 9, 7, 6
    values = rng.integers(0, 12, nx * ny * nz).astype(np.float64)  # ties on purpose
    points = [(x, y, z) for z in range(nz) for y in range(ny) for x in range(nx)]
    tets = freudenthal_tets(nx, ny, nz)
    vtk = os.path.join(tmp, "grid_tets.vtk")
    write_vtk(vtk, points, tets, values)
    raw = cli_helpers.raw_case(tmp, "grid", values, np.float64)
    # the labels through the boundary: TTK's rule takes a vertex's first star cell,
    # which the implicit grid and a mesh of its tets number differently
    grid = msc_with_details(tmp, "implicit", "--raw", raw, "--dims", f"{nx},{ny},{nz}",
                            "--type", "float64", "--complex", "simplicial",
                            "--ascending-through-boundary")
    for kind in ("explicit", "gale-cpu"):
        compare(f"tetrahedralized grid ({kind}) vs implicit grid",
                msc_with_details(tmp, "mesh" + kind, "--mesh", vtk, "--array", "f",
                                 "--triangulation", kind, "--ascending-through-boundary"),
                grid)

    # ---- Euler on meshes with holes and two components ---------------------------------
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        kept = [t for t in tets if rng.random() > 0.3]
        # a second component: the same cells shifted
        n = len(points)
        both = kept + [tuple(v + n for v in t) for t in kept[: len(kept) // 3]]
        pts = points + [(x + 20, y, z) for x, y, z in points]
        vals = rng.random(2 * n)
        used = sorted({v for t in both for v in t})
        renumber = {v: i for i, v in enumerate(used)}
        path = os.path.join(tmp, f"holes{seed}.vtk")
        write_vtk(path, [pts[v] for v in used], [tuple(renumber[v] for v in t) for t in both],
                  [vals[v] for v in used])
        chi = euler_of_tets(both)
        for kind in ("explicit", "gale-cpu"):
            out = run("msc", "--mesh", path, "--array", "f", "--triangulation", kind,
                      "--ascending-through-boundary")
            if out is None:
                continue
            c = out["critical_cells"]
            check(c[0] - c[1] + c[2] - c[3] == chi,
                  f"holes{seed} ({kind}): critical cells {c}, chi {chi} counted from the tets")
            check(out["unlabelled_vertices"] == {"ascending": 0, "descending": 0,
                                                 "morse_smale": 0},
                  f"holes{seed} ({kind}): unlabelled {out['unlabelled_vertices']}")

cli_helpers.finish()
