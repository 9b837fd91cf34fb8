"""`topogpu discrete-gradient --complex simplicial` and `--mesh` end to end:
  * raw volumes: the critical cells equal TTK 1.2's MorseSmaleComplex ones
    (ttk-reference/volumes.json, msc_critical_points), through the implicit grid and
    through the explicit copy of its tets (--triangulation explicit), and so do the
    --separatrices counts (msc_separatrices1) on the smaller ones;
  * the shared tet meshes and triangle surfaces: the Euler characteristic
    n0 - n1 + n2 - n3 equals the one SOURCES.md publishes (or, for OFF files, one
    counted here from the faces), and the simplex counts' V - E + F - T; meshes the CLI
    cannot use (quadratic tets, polygons, .mesh) fail with a clear error;
  * msc --complex simplicial: TTK's critical cells and separatrix counts;
  * the JSON contract and bad input (--complex, msc --persistence-pairs on the simplicial
    complex,
    cubical on a mesh, NaN on a mesh).
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_helpers  # noqa: E402
from cli_helpers import check, expect_error, np, topogpu  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
VOLUMES = os.path.join(DATA, "volumes")
if not os.path.isdir(VOLUMES):
    print("SKIP: no shared data at", DATA)
    sys.exit(77)

KEYS = ("minimum", "saddle1", "saddle2", "maximum")


def run_json(*args, timeout=120):
    result = topogpu("discrete-gradient", *args, "--json", timeout=timeout, memory=None)
    if result.returncode != 0:
        check(False, f"{args}: rc {result.returncode}: {result.stderr[-300:]}")
        return None
    return json.loads(result.stdout)


def raw_args(name):
    stem = name[:-len(".raw")]
    dims, dtype = stem.split("_")[-2:]
    return ["--raw", os.path.join(VOLUMES, name), "--dims", dims.replace("x", ","),
            "--type", dtype]


# ---- parity with TTK on raw volumes ------------------------------------------------------
with open(os.path.join(DATA, "ttk-reference", "volumes.json")) as f:
    reference = json.load(f)
for name, explicit in (("bucky_32x32x32_uint8.raw", True),
                       ("m4_density_25x22x31_float32.raw", True),
                       ("headmr_48x62x42_uint8.raw", False),
                       ("silicium_98x34x34_uint8.raw", False)):
    expected = [reference[name]["msc_critical_points"][k] for k in KEYS]
    for triangulation in ("implicit", "explicit") if explicit else ("implicit",):
        out = run_json(*raw_args(name), "--complex", "simplicial", "--triangulation",
                       triangulation, *(["--separatrices"] if explicit else []))
        if out is None:
            continue
        check(out["critical_cells"] == expected,
              f"{name} ({triangulation}): {out['critical_cells']} != TTK's {expected}")
        if explicit:
            want = reference[name]["msc_separatrices1"]
            check(all(out["separatrices1"][k] == want[k] for k in want),
                  f"{name} ({triangulation}): separatrices {out['separatrices1']} != TTK's "
                  f"{want}")
        check(out["complex"] == "simplicial" and out["triangulation"] == triangulation,
              f"{name}: JSON names {out['complex']}, {out['triangulation']}")
        n = out["simplices"]
        nx, ny, nz = (int(x) for x in name.split("_")[-2].split("x"))
        check(n[0] == nx * ny * nz and n[3] == 6 * (nx - 1) * (ny - 1) * (nz - 1),
              f"{name}: simplices {n}")
        check(out["gradient_bytes"] == sum(n) and out["cells"] == sum(n),
              f"{name}: one byte per simplex: {out['gradient_bytes']} for {n}")
        for key in ("timings", "total_seconds", "peak_host_memory_mib"):
            check(key in out, f"{name}: JSON lacks {key}")
# the simplicial complex is the default on grids too (TTK's, as critical-points): TTK's
# counts without --complex; the cubical complex, asked for by name, differs
out = run_json(*raw_args("bucky_32x32x32_uint8.raw"))
bucky_ttk = [reference["bucky_32x32x32_uint8.raw"]["msc_critical_points"][k] for k in KEYS]
check(out is not None and out["complex"] == "simplicial" and "simplices" in out
      and out["critical_cells"] == bucky_ttk,
      f"raw volumes default to the simplicial complex with TTK's counts {bucky_ttk}: "
      f"{out and (out['complex'], out['critical_cells'])}")
out = run_json(*raw_args("bucky_32x32x32_uint8.raw"), "--complex", "cubical")
check(out is not None and out["complex"] == "cubical" and "simplices" not in out
      and out["critical_cells"] != bucky_ttk, "--complex cubical on a raw volume")


# ---- meshes ------------------------------------------------------------------------------
def off_euler(path):
    """V - E + F over the referenced vertices, counted from the OFF faces here."""
    _, faces = cli_helpers.read_off(path)
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [0, 2]], faces[:, [1, 2]]]),
                    axis=1)
    return len(np.unique(faces)) - len(np.unique(edges, axis=0)) + len(faces)


# (file, array, chi of the complex, unreferenced vertices: each is a critical 0-cell)
meshes = [
    ("tets/bluntfin_density_tets.vtu", "Density", 1, 0),  # 77 zero-volume tets
    ("tets/combustor_density_tets.vtu", "Density", None, 0),  # 2 inverted tets
    ("tets/vtk_post_lox.vtk", "Pressure", 1, 0),
    ("tets/vtk_cylinder_linear_tets.vtk", "vel_norm", 1, 0),
    ("tets/vtk_a_grid.vtk", "z", 0, 0),  # a through-hole, no scalar: a coordinate
    ("tets/vtk_tetraMesh.vtk", "x", None, 0),  # half of the tets inverted
    ("tets/vtk_Tetrahedron.vtu", "Polynomial", None, 0),
    ("surfaces/cgal_bunny00.off", "z", "off", 0),
    ("surfaces/cgal_knot1.off", "x", "off", 0),
    ("surfaces/cgal_refined_elephant.off", "y", -4, 0),
    ("surfaces/ttk_inputData_terrain.off", "z", 1, 0),
    ("surfaces/stanford_bunny_bun_zipper.ply", "z", -3, 1113),
    ("surfaces/horse.ply", "x", 2, 0),
    ("surfaces/ttk_fertility.vtu", "z", -6, 0),
    ("surfaces/ttk_casting.vtu", "x", -16, 0),
]
for path, array, chi, unreferenced in meshes:
    full = os.path.join(DATA, path)
    if not os.path.exists(full):
        check(False, f"missing {full}")
        continue
    if (path.endswith(".vtu") or path.endswith(".vtk")) and "no VTK" in topogpu(
            "discrete-gradient", "--help").stdout:
        continue
    out = run_json("--mesh", full, "--array", array, "--separatrices")
    if out is None:
        continue
    c, n = out["critical_cells"], out["simplices"]
    # two descending 1-separatrices per 1-saddle; at most two ascending ones per
    # (d-1)-saddle, exactly two (none leaving) on a closed surface
    sep = out["separatrices1"]
    top = 1 if n[3] == 0 else 2
    up = sep["ascending"] + sep["ascending_leaving_boundary"]
    check(sep["descending"] == 2 * c[1] and up <= 2 * c[top],
          f"{path}: separatrices {sep} for critical cells {c}")
    if chi == "off" or path.endswith("fertility.vtu") or path.endswith("casting.vtu"):
        check(up == 2 * c[top] and sep["ascending_leaving_boundary"] == 0,
              f"{path}: closed surface, separatrices {sep} for {c}")
    euler = c[0] - c[1] + c[2] - c[3]
    check(out["complex"] == "simplicial", f"{path}: meshes default to simplicial")
    check(euler == n[0] - n[1] + n[2] - n[3], f"{path}: critical {c} vs simplices {n}")
    if chi == "off":
        chi = off_euler(full)
    if chi is not None:
        check(euler == chi + unreferenced,
              f"{path}: n0-n1+n2-n3 = {euler}, published chi {chi} (+{unreferenced})")
    check(c[0] >= 1 and min(c) >= 0, f"{path}: {c}")
    check((n[3] == 0) == path.startswith("surfaces"), f"{path}: dimension from {n}")

# meshes the CLI cannot use: a clear error, never a crash
expect_error("quadratic tets", ["discrete-gradient", "--mesh",
                                os.path.join(DATA, "tets/pyvista_fea_bracket_quadtets.vtu"),
                                "--array", "x", "--json"], "triangulate")
expect_error("polygonal faces", ["discrete-gradient", "--mesh",
                                 os.path.join(DATA, "surfaces/cgal_double-torus-example.off"),
                                 "--array", "z", "--json"], "triangle")

# ---- bad input ---------------------------------------------------------------------------
bucky = raw_args("bucky_32x32x32_uint8.raw")
expect_error("unknown complex", ["discrete-gradient", *bucky, "--complex", "cubes", "--json"],
             "--complex must be cubical or simplicial")
expect_error("separatrices on the cubical complex",
             ["discrete-gradient", *bucky, "--complex", "cubical", "--separatrices", "--json"],
             "--complex simplicial")
expect_error("msc --persistence-pairs on the simplicial complex",
             ["msc", *bucky, "--complex", "simplicial", "--persistence-pairs", "--json"],
             "not yet implemented")
# msc on the simplicial complex: TTK's critical cells, 1-separatrices and unlabelled
# vertices (msc_unassigned_vertices: TTK's segmentation rule)
for name in ("bucky_32x32x32_uint8.raw", "m4_density_25x22x31_float32.raw"):
    r = topogpu("msc", *raw_args(name), "--complex", "simplicial", "--separatrices", "--json",
                timeout=120)
    ok = r.returncode == 0
    if ok:
        out = json.loads(r.stdout)
        ref = reference[name]
        ok = (out["critical_cells"] == [ref["msc_critical_points"][k] for k in KEYS]
              and all(out["separatrices1"][k] == v for k, v in ref["msc_separatrices1"].items())
              and out["unlabelled_vertices"] == ref["msc_unassigned_vertices"])
    check(ok, f"msc --complex simplicial on {name}: {r.stdout[-400:]} {r.stderr[-200:]}")
r = topogpu("msc", "--mesh", os.path.join(DATA, "tets/vtk_post_lox.vtk"), "--array", "Pressure",
            "--json")
expect_error("--separatrices on the cubical complex",
             ["msc", *raw_args("bucky_32x32x32_uint8.raw"), "--complex", "cubical",
              "--separatrices", "--json"], "simplicial")
check(r.returncode == 0 and json.loads(r.stdout)["complex"] == "simplicial",
      f"msc on a tet mesh: {r.stderr[-200:]}")
expect_error("cubical complex on a mesh",
             ["discrete-gradient", "--mesh", os.path.join(DATA, "surfaces/cgal_knot1.off"),
              "--array", "z", "--complex", "cubical", "--json"], "regular grid")
with tempfile.TemporaryDirectory() as tmp:
    nan_off = cli_helpers.write(tmp, "nan.off", "OFF\n4 2 0\n0 0 0\n1 0 nan\n0 1 0\n1 1 1\n"
                                                "3 0 1 2\n3 1 3 2\n")
    expect_error("NaN on a mesh", ["discrete-gradient", "--mesh", nan_off, "--array", "z",
                                   "--json"], "vertex 1")
    # two triangles sharing an edge, z = 0 0 0 1 at vertices 0..3: one minimum (vertex 0)
    # and nothing else (the field on the disk has no critical point but the minimum)
    square = cli_helpers.write(tmp, "square.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 1\n"
                                                  "3 0 1 2\n3 1 3 2\n")
    out = run_json("--mesh", square, "--array", "z")
    check(out is not None and out["critical_cells"] == [1, 0, 0, 0],
          f"square: {out and out['critical_cells']}")

# ---- --backend gpu on a grid --------------------------------------------------------------
# The device's result is TTK's critical cells as the CPU's; without a usable device, or
# with a device memory budget too small (1 byte, any machine), the CPU runs and the
# JSON says why.
GRID = "headmr_48x62x42_uint8.raw"
grid_expected = [reference[GRID]["msc_critical_points"][k] for k in KEYS]
out = run_json(*raw_args(GRID), "--complex", "simplicial", "--backend", "gpu")
if out is not None:
    if out["backend"] == "gpu":
        check(out["critical_cells"] == grid_expected and out["warnings"] == [],
              f"--backend gpu on the device: {out['critical_cells']} {out['warnings']}")
    else:
        check(out["critical_cells"] == grid_expected
              and out["warning_codes"] == ["gpu_unavailable"]
              and "running on the CPU" in out["warnings"][0]
              and "gradient (cpu)" in out["timings"],
              f"--backend gpu without a device: {out['critical_cells']} {out['warnings']}")
os.environ["TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES"] = "1"
out = run_json(*raw_args(GRID), "--complex", "simplicial", "--backend", "gpu")
del os.environ["TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES"]
check(out is not None and out["backend"] == "cpu"
      and out["critical_cells"] == grid_expected
      and out["warning_codes"][0] in ("gpu_unavailable", "gpu_memory_insufficient")
      and "running on the CPU" in out["warnings"][0],
      f"--backend gpu within a 1-byte budget: {out and (out['backend'], out['warnings'])}")

cli_helpers.finish()
