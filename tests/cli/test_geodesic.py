"""End-to-end tests of `topogpu geodesic`: --out on a flat triangulated square against
the Euclidean distance (numpy), the three solvers against each other, a speed array, the
stop distance, shared curved surfaces between the straight-line distance (below) and the
edge-graph Dijkstra distance (above, written here), the JSON contract and bad input.

    python3 test_geodesic.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import heapq
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_helpers import check, expect_error, finish, np, read_off, write  # noqa: E402
import cli_helpers  # noqa: E402
from geodesic_oracle import automatic_exact_radius  # noqa: E402

_, DATA = cli_helpers.arguments()
SOLVERS = ["fmm", "fim", "fim-mt"]


def topogpu(*args):
    return cli_helpers.topogpu(*args, timeout=120)


def square(n, size, jitter=0.0, seed=1):
    """n x n vertices on [0, size]^2, two triangles per cell (random diagonals and
    interior vertices moved by up to jitter * h when jitter > 0)."""
    rng = np.random.default_rng(seed)
    h = size / (n - 1)
    x, y = np.meshgrid(np.arange(n) * h, np.arange(n) * h)
    coords = np.stack([x.ravel(), y.ravel(), np.zeros(n * n)], axis=1)
    if jitter > 0:
        inner = (x.ravel() > 0) & (y.ravel() > 0) & (x.ravel() < size - h / 2) & (
            y.ravel() < size - h / 2)
        coords[inner, :2] += rng.uniform(-jitter, jitter, (inner.sum(), 2)) * h
    faces = []
    for j in range(n - 1):
        for i in range(n - 1):
            a = j * n + i
            b, c, d = a + 1, a + n, a + n + 1
            if jitter > 0 and rng.integers(2):
                faces += [(a, b, c), (b, d, c)]
            else:
                faces += [(a, b, d), (a, d, c)]
    return coords, np.array(faces)


def off_text(coords, faces):
    lines = ["OFF", f"{len(coords)} {len(faces)} 0"]
    lines += [" ".join(repr(float(c)) for c in p) for p in coords]
    lines += ["3 " + " ".join(str(int(v)) for v in f) for f in faces]
    return "\n".join(lines) + "\n"


def ply_text(coords, faces, speed):
    lines = ["ply", "format ascii 1.0", f"element vertex {len(coords)}", "property double x",
             "property double y", "property double z", "property double speed",
             f"element face {len(faces)}", "property list uchar int vertex_indices",
             "end_header"]
    lines += [" ".join(repr(float(c)) for c in p) + f" {s!r}" for p, s in zip(coords, speed)]
    lines += ["3 " + " ".join(str(int(v)) for v in f) for f in faces]
    return "\n".join(lines) + "\n"


def read_out(path):
    with open(path) as f:
        return np.array([float(line) for line in f])


def run(mesh, seeds, tmp, *extra):
    out = os.path.join(tmp, "d.txt")
    result = topogpu("geodesic", "--mesh", mesh, "--seeds", ",".join(map(str, seeds)),
                     "--out", out, "--json", *extra)
    if result.returncode != 0:
        check(False, f"{mesh} {extra}: rc {result.returncode} {result.stderr[-300:]}")
        return None, None
    return json.loads(result.stdout), read_out(out)


def dijkstra(coords, faces, seeds):
    """Edge-graph distance from the seeds: an upper bound of the discrete geodesic."""
    neighbours = [[] for _ in range(len(coords))]
    for f in faces:
        for a, b in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0])):
            w = float(np.linalg.norm(coords[a] - coords[b]))
            neighbours[a].append((b, w))
            neighbours[b].append((a, w))
    dist = np.full(len(coords), np.inf)
    heap = []
    for s in seeds:
        dist[s] = 0.0
        heap.append((0.0, s))
    heapq.heapify(heap)
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for u, w in neighbours[v]:
            if d + w < dist[u]:
                dist[u] = d + w
                heapq.heappush(heap, (d + w, u))
    return dist


with tempfile.TemporaryDirectory() as tmp:
    # --- flat squares against the Euclidean distance; the solvers against each other ---
    for jitter in (0.0, 0.3):
        n, size = 33, 2.0
        h = size / (n - 1)
        coords, faces = square(n, size, jitter)
        mesh = write(tmp, "square.off", off_text(coords, faces))
        seed = (n // 2) * n + n // 3
        exact = np.linalg.norm(coords - coords[seed], axis=1)
        results = {}
        for solver in SOLVERS:
            data, d = run(mesh, [seed], tmp, "--solver", solver)
            if d is None:
                continue
            results[solver] = d
            name = f"square jitter {jitter} {solver}"
            check(len(d) == n * n, f"{name}: {len(d)} lines for {n * n} vertices")
            err = np.abs(d - exact)
            check(err.mean() < 0.5 * h and err.max() < 2 * h,
                  f"{name}: error mean {err.mean()} max {err.max()} (h {h})")
            check(data["solver"] == solver and data["seeds"] == 1 and data["unreached"] == 0
                  and data["iterations"] > 0 and data["local_solves_per_vertex"] > 0
                  and data["converged"] is True and data["vertices"] == n * n
                  and f"{solver} (cpu)" in data["timings"] and data["total_seconds"] > 0
                  and data["peak_host_memory_mib"] > 0 and data["output"].endswith("d.txt"),
                  f"{name}: JSON {data}")
            if jitter > 0:
                check(data["obtuse_angles"] > 0 and data["unfolded_angles"] > 0,
                      f"{name}: obtuse angles {data['obtuse_angles']}")
            # Every stage the user waits for is timed, reading and writing included, and
            # the command's wall time holds them all.
            check({"read", "precondition", "mesh setup", "exact start", "write"}
                  <= set(data["timings"])
                  and data["wall_seconds"] >= data["total_seconds"] > 0,
                  f"{name}: stages {data['timings']}, wall {data.get('wall_seconds')}")
        if len(results) == 3:
            for solver in ("fim", "fim-mt"):
                diff = np.abs(results[solver] - results["fmm"]).max()
                check(diff < 1e-4 * h, f"square jitter {jitter}: {solver} vs fmm {diff}")
        # gpu and auto (the default): patchFIM where a GPU is, else fim-mt (gpu with a
        # warning); either way within the solvers' tolerance of fmm.
        for extra in (["--solver", "gpu"], []):
            data, d = run(mesh, [seed], tmp, *extra)
            if d is None or "fmm" not in results:
                continue
            name = f"square jitter {jitter} {extra or 'default'}"
            check(data["requested_solver"] == ("gpu" if extra else "auto")
                  and data["solver"] in ("gpu", "fim-mt")
                  and (data["solver"] == "gpu") == (data["backend"] == "gpu"),
                  f"{name}: JSON {data}")
            if data["solver"] == "gpu":
                check(data["patches"] > 0 and data["patch_size"] == 64
                      and data["internal_iterations"] == 7, f"{name}: JSON {data}")
            elif extra:
                check("gpu_unavailable" in data["warning_codes"],
                      f"{name}: no fallback warning {data['warnings']}")
            diff = np.abs(d - results["fmm"]).max()
            check(diff < 1e-4 * h, f"{name}: vs fmm {diff}")

    # --- a speed array (PLY vertex property) and the stop distance --------------------
    coords, faces = square(21, 1.0)
    seed = 0
    exact = np.linalg.norm(coords - coords[seed], axis=1)
    plain, _ = run(write(tmp, "plain.off", off_text(coords, faces)), [seed], tmp)
    ply = write(tmp, "speed.ply", ply_text(coords, faces, np.full(len(coords), 4.0)))
    _, base = run(write(tmp, "base.off", off_text(coords, faces)), [seed], tmp)
    data, fast = run(ply, [seed], tmp, "--speed-array", "speed")
    if fast is not None and base is not None:
        check(np.abs(fast - base / 4).max() < 1e-12, "speed 4: a quarter of the time")
        check(data["speed"] == "speed", f"speed field {data['speed']}")
    data, stopped = run(ply, [seed], tmp, "--stop", "0.1")
    if stopped is not None and base is not None:
        unreached = np.isinf(stopped)
        check(unreached.sum() == data["unreached"] > 0, f"stop: {data['unreached']} unreached")
        check(np.all(base[unreached] > 0.1) and np.all(base[~unreached] <= 0.1),
              "stop: exactly the vertices beyond 0.1 are unreached")
        check(np.all(np.abs(stopped[~unreached] - base[~unreached]) < 1e-9),
              "stop: the reached vertices keep their distances")
        check(any("unreached" in w for w in data["warnings"]), f"stop warning {data['warnings']}")
        check("unreached_vertices" in data["warning_codes"],
              f"stop warning code {data['warning_codes']}")

    # --- the exact start near the seeds ----------------------------------------------
    # A flat jittered square, whose geodesic distance is the Euclidean one (numpy): the
    # automatic radius is sqrt(mean edge x sqrt(area)) (geodesic_oracle.py), the
    # vertices within the radius are those JSON counts and carry the Euclidean distance
    # to rounding; --exact-start-radius sets the radius, 0 leaves the seed alone.
    coords, faces = square(41, 1.0, 0.3, seed=4)
    mesh = write(tmp, "exact.off", off_text(coords, faces))
    seed = 20 * 41 + 13
    exact = np.linalg.norm(coords - coords[seed], axis=1)
    automatic = automatic_exact_radius(coords, faces)
    for extra, radius in (([], automatic), (["--exact-start-radius", "0.31"], 0.31),
                          (["--exact-start-radius", "auto"], automatic),
                          (["--exact-start-radius", "0"], 0.0)):
        data, d = run(mesh, [seed], tmp, "--solver", "fmm", *extra)
        if d is None:
            continue
        inside = exact <= radius
        # (JSON numbers carry 8 significant digits)
        check(abs(data.get("exact_radius", np.inf) - radius) <= 1e-7 * radius
              and data.get("exact_vertices") == inside.sum()
              and np.abs(d[inside] - exact[inside]).max() <= 1e-12
              and "exact start" in data["timings"],
              f"exact start {extra}: radius {data.get('exact_radius')} (expected {radius}), "
              f"{data.get('exact_vertices')} vertices (expected {inside.sum()}), stages "
              f"{list(data['timings'])}")

    # --- shared curved surfaces between the straight line and the edge graph ----------
    for name in ("cgal_knot1.off", "gudhi_human.off", "cgal_camel.off"):
        path = os.path.join(DATA, "surfaces", name)
        if not os.path.exists(path):
            print(f"skip {name}: not in the shared data")
            continue
        coords, faces = read_off(path)
        seeds = [int(faces[0][0]), int(faces[len(faces) // 2][1])]
        edge = np.mean([np.linalg.norm(coords[f[0]] - coords[f[1]]) for f in faces])
        upper = dijkstra(coords, faces, seeds)
        lower = np.min([np.linalg.norm(coords - coords[s], axis=1) for s in seeds], axis=0)
        for solver in ("fmm", "fim-mt"):
            data, d = run(path, seeds, tmp, "--solver", solver)
            if d is None:
                continue
            check(np.all(d <= upper + 1e-6 * edge), f"{name} {solver}: above Dijkstra by "
                  f"{(d - upper).max()}")
            check(np.all(d >= lower - 0.5 * edge), f"{name} {solver}: below the straight "
                  f"line by {(lower - d).max()}")
            # The surface is curved: the geodesic is well below the edge-graph distance.
            check(np.mean(upper - d) > 0.01 * np.mean(d), f"{name} {solver}: no gain over "
                  "Dijkstra")

    # --- VTK inputs (builds with VTK) ---------------------------------------------------
    fertility = os.path.join(DATA, "surfaces", "ttk_fertility.vtu")
    probe = topogpu("geodesic", "--mesh", fertility, "--seeds", "0", "--json")
    if "no VTK" in probe.stderr or not os.path.exists(fertility):
        print("skip .vtu: no VTK in this build or no shared data")
    else:
        data = json.loads(probe.stdout) if probe.returncode == 0 else {}
        check(data.get("vertices") == 5166 and data.get("unreached") == 0,
              f"fertility.vtu: {probe.stdout[-300:]} {probe.stderr[-300:]}")
        # The VTK surfaces of the shared data: the three solvers agree (the unit test
        # covers the .off and .ply ones), within 1e-6 of the largest distance (about 1e-4
        # of an edge on these 5000-vertex closed surfaces; measured below 1e-7).
        for name in ("ttk_fertility.vtu", "ttk_casting.vtu"):
            path = os.path.join(DATA, "surfaces", name)
            fields = {}
            for solver in SOLVERS:
                data, d = run(path, [0, 2000], tmp, "--solver", solver)
                if d is not None:
                    fields[solver] = (data, d)
            if len(fields) == 3:
                largest = fields["fmm"][0]["max_distance"]
                for solver in ("fim", "fim-mt"):
                    diff = np.abs(fields[solver][1] - fields["fmm"][1]).max()
                    check(diff < 1e-6 * largest, f"{name}: {solver} vs fmm {diff}")
                check(all(f[0]["unreached"] == 0 for f in fields.values()), f"{name}: unreached")
        image = write(tmp, "grid.vti", """<?xml version="1.0"?>
<VTKFile type="ImageData" version="0.1" byte_order="LittleEndian">
  <ImageData WholeExtent="0 2 0 2 0 0" Origin="0 0 0" Spacing="1 1 1">
    <Piece Extent="0 2 0 2 0 0">
      <PointData Scalars="f">
        <DataArray type="Float32" Name="f" format="ascii">0 1 2 3 4 5 6 7 8</DataArray>
      </PointData>
    </Piece>
  </ImageData>
</VTKFile>
""")
        expect_error("a grid", ["geodesic", "--mesh", image, "--seeds", "0"], "is a grid")
        # Cells other than triangles are refused as the filter refuses them (naming the
        # first one), not skipped: two triangles and a quad (cell 2), and a poly data
        # whose line (cell 0) comes before its triangles.
        mixed = write(tmp, "mixed.vtu", """<?xml version="1.0"?>
<VTKFile type="UnstructuredGrid" version="0.1" byte_order="LittleEndian">
  <UnstructuredGrid>
    <Piece NumberOfPoints="6" NumberOfCells="3">
      <Points><DataArray type="Float64" NumberOfComponents="3" format="ascii">
        0 0 0 1 0 0 1 1 0 0 1 0 2 0 0 2 1 0</DataArray></Points>
      <Cells>
        <DataArray type="Int64" Name="connectivity" format="ascii">0 1 2 0 2 3 1 4 5 2</DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">3 6 10</DataArray>
        <DataArray type="UInt8" Name="types" format="ascii">5 5 9</DataArray>
      </Cells>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
""")
        expect_error("a quad in a .vtu", ["geodesic", "--mesh", mixed, "--seeds", "0"],
                     "1 of the 3 cells are not triangles (cell 2 is a vtkQuad)")
        lined = write(tmp, "lined.vtp", """<?xml version="1.0"?>
<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">
  <PolyData>
    <Piece NumberOfPoints="4" NumberOfLines="1" NumberOfPolys="2">
      <Points><DataArray type="Float64" NumberOfComponents="3" format="ascii">
        0 0 0 1 0 0 1 1 0 0 1 0</DataArray></Points>
      <Lines>
        <DataArray type="Int64" Name="connectivity" format="ascii">0 2</DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">2</DataArray>
      </Lines>
      <Polys>
        <DataArray type="Int64" Name="connectivity" format="ascii">0 1 2 0 2 3</DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">3 6</DataArray>
      </Polys>
    </Piece>
  </PolyData>
</VTKFile>
""")
        expect_error("a line in a .vtp", ["geodesic", "--mesh", lined, "--seeds", "0"],
                     "1 of the 3 cells are not triangles (cell 0 is a vtkLine)")
        expect_error("vtu speed array", ["geodesic", "--mesh", fertility, "--seeds", "0",
                                         "--speed-array", "nope"], "nope")

    # --- the help and the docs agree --------------------------------------------------------
    # Every default `geodesic --help` states is the one docs/cli.md states, and the page
    # is no longer a draft.
    helped = topogpu("geodesic", "--help").stdout
    docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")
    cli_doc = open(os.path.join(docs, "cli.md")).read()
    cli_doc = cli_doc[cli_doc.index("`geodesic` (geodesic distance"):]
    for option in ("--patch-size", "--internal-iterations", "--band-width", "--partition",
                   "--exact-start-radius"):
        said = re.search(r"^  %s .*default ([^\s,)]+)" % option, helped, re.M)
        documented = re.search(r"`%s [^`]*` \([^)]*default ([^\s,)]+)\)" % option, cli_doc)
        check(said is not None and documented is not None and
              said.group(1) == documented.group(1),
              f"{option}: --help says default {said and said.group(1)}, docs/cli.md "
              f"{documented and documented.group(1)}")
    page = open(os.path.join(docs, "filters", "geodesic-distance.md")).readline()
    check("draft" not in page.lower(), f"geodesic-distance.md is titled {page.strip()!r}")

    # --- bad input -------------------------------------------------------------------------
    coords, faces = square(5, 1.0)
    good = write(tmp, "good.off", off_text(coords, faces))
    zero = np.ones(len(coords))
    zero[7] = 0
    zero_speed = write(tmp, "zero.ply", ply_text(coords, faces, zero))
    quads = write(tmp, "quads.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n")
    empty = write(tmp, "empty.off", "OFF\n0 0 0\n")
    cases = [
        (["--mesh", good], "--seeds"),
        (["--mesh", good, "--seeds", "abc"], "--seeds"),
        (["--mesh", good, "--seeds", ""], "--seeds"),
        (["--mesh", good, "--seeds", "1,,2"], "--seeds"),
        (["--mesh", good, "--seeds", "-3"], "--seeds"),
        (["--mesh", good, "--seeds", "25"], "seed vertex 25 is out of range"),
        (["--mesh", good, "--seeds", "0", "--patch-size", "2"], "--patch-size"),
        (["--mesh", good, "--seeds", "0", "--internal-iterations", "0"],
         "--internal-iterations"),
        (["--mesh", good, "--seeds", "0", "--partition", "scotch"], "--partition"),
        (["--mesh", good, "--seeds", "0", "--band-width", "0"], "--band-width"),
        (["--mesh", good, "--seeds", "0", "--band-width", "nan"], "--band-width"),
        (["--mesh", good, "--seeds", "0", "--solver", "dijkstra"], "unknown solver"),
        (["--mesh", good, "--seeds", "0", "--stop", "-1"], "--stop"),
        (["--mesh", good, "--seeds", "0", "--exact-start-radius", "nan"],
         "--exact-start-radius"),
        (["--mesh", good, "--seeds", "0", "--exact-start-radius", "-1"],
         "--exact-start-radius"),
        (["--mesh", good, "--seeds", "0", "--exact-start-radius", "1e999"],
         "--exact-start-radius"),
        (["--mesh", good, "--seeds", "0", "--stop", "nan"], "--stop"),
        (["--mesh", good, "--seeds", "0", "--stop", "1x"], "--stop"),
        (["--mesh", good, "--seeds", "0", "--speed-array", "speed"], "OFF files carry no"),
        (["--mesh", zero_speed, "--seeds", "0", "--speed-array", "nope"], "no vertex property"),
        (["--mesh", zero_speed, "--seeds", "0", "--speed-array", "speed"],
         "the speed must be finite and positive; it is 0 at vertex 7"),
        (["--mesh", quads, "--seeds", "0"], "triangle"),
        (["--mesh", empty, "--seeds", "0"], None),
        (["--mesh", os.path.join(tmp, "missing.off"), "--seeds", "0"], "missing.off"),
        (["--mesh", good, "--seeds", "0", "--out", tmp], "cannot write"),
        (["--mesh", good, "--seeds", "0", "--array", "x"], "unknown option"),
        (["--mesh", write(tmp, "mesh.obj", "v 0 0 0\n"), "--seeds", "0"], "unsupported"),
    ]
    for args, needle in cases:
        for json_flag in ([], ["--json"]):
            expect_error(f"geodesic {' '.join(args)} {' '.join(json_flag)}",
                         ["geodesic", *args, *json_flag], needle)

finish()
