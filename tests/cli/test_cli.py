"""End-to-end tests of `topogpu`: the JSON contract, counts against the brute-force oracle
(tests/pvpython/cp_oracle.py, written independently of the C++ code), mesh input, and a
bad-input corpus (every case must exit 1 with a message naming the problem: never a
signal, a hang, exit 0 on garbage, or raw C++ exception text).

    python3 test_cli.py TOPOGPU_BINARY SHARED_DATA_DIR

Needs numpy; exits 77 (skipped) without it.
"""
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_helpers import (check, expect_error, finish, np, raw_case, read_off,  # noqa: E402
                         topogpu, write)
import cli_helpers  # noqa: E402
import cp_oracle  # noqa: E402

_, DATA = cli_helpers.arguments()
KEYS = ["minimum", "saddle1", "saddle2", "maximum", "degenerate", "regular"]


def counts_of(result):
    data = json.loads(result.stdout)
    return [data["counts"][k] for k in KEYS], data


def read_legacy_vtk_binary(path):
    """Points, cells (all of one size) and point arrays of a BINARY legacy VTK
    unstructured grid, parsed here without VTK (big-endian, as the format says)."""
    data = open(path, "rb").read()
    pos = 0
    types = {"float": ">f4", "double": ">f8", "int": ">i4", "vtkIdType": ">i4"}

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        text = data[pos:end].decode("ascii").strip()
        pos = end + 1
        return text

    def block(dtype, count):
        nonlocal pos
        array = np.frombuffer(data, dtype=dtype, count=count, offset=pos)
        pos += array.nbytes
        return array

    out = {"arrays": {}}
    while pos < len(data):
        words = line().split()
        if not words:
            continue
        if words[0] == "POINTS":
            out["points"] = block(types[words[2]], 3 * int(words[1])).reshape(-1, 3)
        elif words[0] == "CELLS":
            out["cells"] = block(">i4", int(words[2])).reshape(int(words[1]), -1)[:, 1:]
        elif words[0] == "CELL_TYPES":
            out["types"] = block(">i4", int(words[1]))
        elif words[0] == "FIELD":
            for _ in range(int(words[2])):
                name, comps, tuples, kind = line().split()
                out["arrays"][name] = block(types[kind], int(comps) * int(tuples))
    return out


with tempfile.TemporaryDirectory() as tmp:
    # --- raw volumes against the oracle (every class, vertex counts) ---------------
    rng = np.random.default_rng(3)
    cases = [
        ("ties3d", rng.integers(0, 4, 9 * 7 * 5), (9, 7, 5), np.uint8, "uint8"),
        ("float3d", rng.random(6 * 8 * 7), (6, 8, 7), np.float32, "float32"),
        ("image2d", rng.integers(-50, 50, 20 * 15), (20, 15, 1), np.int16, "int16"),
        ("thin", rng.random(12 * 10), (12, 1, 10), np.float64, "float64"),
    ]
    for name, values, dims, dtype, type_name in cases:
        path = raw_case(tmp, name, values, dtype)
        expected = cp_oracle.classify(values.astype(dtype), cp_oracle.grid_cells(dims),
                                      int(np.prod(dims)))
        for triangulation in ("implicit", "explicit"):
            result = topogpu("critical-points", "--raw", path, "--dims",
                             ",".join(map(str, dims)), "--type", type_name, "--backend",
                             "cpu", "--triangulation", triangulation, "--json")
            label = f"{name} ({triangulation})"
            check(result.returncode == 0, f"{label}: exit {result.returncode}: {result.stderr}")
            if result.returncode != 0:
                continue
            counts, data = counts_of(result)
            check(counts == list(expected.counts),
                  f"{label}: counts {counts} != oracle {list(expected.counts)}")
            check(data["backend"] == "cpu" and data["triangulation"] == triangulation,
                  f"{label}: backend {data['backend']}, triangulation {data['triangulation']}")
            check(data["vertices"] == int(np.prod(dims)), f"{label}: vertex count")
            check(isinstance(data["timings"], dict) and data["total_seconds"] >= 0,
                  f"{label}: timings")

    # --repeat N runs N times.
    result = topogpu("critical-points", "--raw", os.path.join(tmp, "ties3d.raw"), "--dims",
                     "9,7,5", "--type", "uint8", "--repeat", "3", "--json")
    check(result.returncode == 0 and len(json.loads(result.stdout)["runs_total_seconds"]) == 3,
          "--repeat 3: three runs reported")

    # GPU requested: runs on the GPU when there is one, else falls back with a warning.
    result = topogpu("critical-points", "--raw", os.path.join(tmp, "ties3d.raw"), "--dims",
                     "9,7,5", "--type", "uint8", "--backend", "gpu", "--json")
    data = json.loads(result.stdout)
    check(data["backend"] == "gpu" or data["warning_codes"] == ["gpu_unavailable"],
          f"gpu request without GPU must warn with its code: {data['warning_codes']}")
    check(len(data["warning_codes"]) == len(data["warnings"]),
          f"one code per warning: {data['warning_codes']} {data['warnings']}")

    # --- help and usage come from the command table -----------------------------------
    result = topogpu("help")
    check(result.returncode == 0 and "critical-points" in result.stdout and "info" in result.stdout,
          "help lists the commands")
    for command in ("critical-points", "info"):
        result = topogpu(command, "--help")
        check(result.returncode == 0 and "--json" in result.stdout and "usage:" in result.stdout,
              f"{command} --help")
    result = topogpu("info", "--json")
    check(result.returncode == 0 and "cuda_build" in json.loads(result.stdout), "info --json")
    # Every command of the table rejects options it does not list.
    listed = re.findall(r"^  ([a-z][a-z-]+) ", topogpu("help").stdout, re.M)
    check("critical-points" in listed and "info" in listed, f"commands listed: {listed}")
    for command in listed:
        if command != "help":
            expect_error(f"{command} --bogus", [command, "--bogus"], "unknown option")
            expect_error(f"{command} --bogus --json", [command, "--bogus", "--json"])

    # --- the bad-input corpus ---------------------------------------------------------
    ok_raw = raw_case(tmp, "ok", np.arange(24), np.uint8)
    nan_path = raw_case(tmp, "nan", [0.0, 1.0, float("nan"), 2.0] * 6, np.float32)
    empty = write(tmp, "empty.raw", b"")
    four_k = write(tmp, "z4096.raw", bytes(4096))
    terrain = os.path.join(DATA, "surfaces", "ttk_inputData_terrain.off")
    cp = ["critical-points"]
    raw = cp + ["--raw", ok_raw, "--dims", "4,3,2", "--type", "uint8"]
    bad = [
        (cp + ["--raw", nan_path, "--dims", "4,3,2", "--type", "float32"], "NaN"),
        (cp + ["--raw", nan_path, "--dims", "4,4,2", "--type", "float32"], "bytes"),
        (cp + ["--raw", nan_path, "--dims", "4,3,2", "--type", "complex"], "unknown scalar type"),
        (cp + ["--raw", os.path.join(tmp, "none.raw"), "--dims", "2,2,2", "--type", "uint8"],
         "cannot open"),
        (cp + ["--raw", raw_case(tmp, "line", np.arange(10), np.uint8), "--dims", "10,1,1",
               "--type", "uint8"], "fewer than two axes"),
        (cp + ["--raw", nan_path], "missing required option"),
        (cp, None),
        ([], None),
        (["no-such-command"], "unknown command"),
        # Overflowing products of --dims, checked before the file is touched.
        (cp + ["--raw", empty, "--dims", "2097152,1048576,1048576", "--type", "float64"],
         "overflows"),
        (cp + ["--raw", four_k, "--dims", "4611686018427388928,4,1", "--type", "uint8"],
         "overflows"),
        (cp + ["--raw", four_k, "--dims", "4294967296,4294967296,4", "--type", "uint8"],
         "overflows"),
        (cp + ["--raw", four_k, "--dims", "99999999999999999999,2,2", "--type", "uint8"],
         "--dims"),
        (cp + ["--raw", four_k, "--dims", "1024,-4,1", "--type", "uint8"], "--dims"),
        (cp + ["--raw", four_k, "--dims", "0,4096,1", "--type", "uint8"], "--dims"),
        (cp + ["--raw", four_k, "--dims", "64,64,1,1", "--type", "uint8"], "--dims"),
        (cp + ["--raw", four_k, "--dims", "64,64x", "--type", "uint8"], "--dims"),
        (cp + ["--raw", four_k, "--dims", "64,,64", "--type", "uint8"], "--dims"),
        (cp + ["--raw", four_k, "--dims", "", "--type", "uint8"], "--dims"),
        (cp + ["--raw", four_k, "--dims", "64", "--type", "uint8"], "--dims"),
        # Directories and other non-files.
        (cp + ["--raw", tmp, "--dims", "2,2,2", "--type", "uint8"], "is a directory"),
        (cp + ["--mesh", tmp, "--array", "z"], "is a directory"),
        (cp + ["--mesh", os.path.join(tmp, "dir.off"), "--array", "z"], "is a directory"),
        (cp + ["--mesh", os.path.join(tmp, "dir.vtu"), "--array", "z"], "is a directory"),
        (cp + ["--mesh", "/dev/null", "--array", "z"], None),
        (cp + ["--mesh", os.path.join(tmp, "none.vtu"), "--array", "z"], "cannot open"),
        # Options: unknown, repeated, missing values, mixed inputs.
        (["info", "--bogus"], "unknown option"),
        (["info", "extra"], "unexpected argument"),
        (raw + ["--bogus"], "unknown option"),
        (raw + ["--repeat"], "needs a value"),
        (raw + ["--backend", "tpu"], "unknown backend"),
        (raw + ["--triangulation", "gale"], "--triangulation"),
        (raw + ["--array", "z"], "--array"),
        (raw + ["--raw", ok_raw], "twice"),
        (cp + ["--mesh", terrain, "--array", "z", "--dims", "2,2,2"], "--dims"),
        (cp + ["--mesh", terrain, "--array", "z", "--triangulation", "implicit"], "implicit"),
        (cp + ["--mesh", terrain, "--array", "pressure"], "x, y or z"),
        (cp + ["--mesh", write(tmp, "a.obj", "v 0 0 0\n"), "--array", "z"], "unsupported"),
    ]
    os.mkdir(os.path.join(tmp, "dir.off"))
    os.mkdir(os.path.join(tmp, "dir.vtu"))
    for value in ["0", "-5", "3abc", "", " 3", "3 ", "+3", "0x10", "1e3", "99999999999999999999"]:
        bad.append((raw + ["--repeat", value], "--repeat"))
    if os.geteuid() != 0:  # root reads anything
        locked = raw_case(tmp, "locked", np.arange(24), np.uint8)
        os.chmod(locked, 0)
        bad.append((cp + ["--raw", locked, "--dims", "4,3,2", "--type", "uint8"], "locked"))

    # OFF: header counts beyond the file, truncation, bad numbers and faces.
    tri = "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 1\n"
    off_cases = {
        "huge": ("OFF\n1000000000000000 1 0\n0 0 0\n3 0 0 0\n", "more than its"),
        "hugefaces": ("OFF\n3 1000000000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", "more than its"),
        "negative": ("OFF\n-3 1 0\n", "no vertices"),
        "overflow": ("OFF\n99999999999999999999 1 0\n", "vertex count"),
        "noheader": ("4 2 0\n", "not an OFF file"),
        "coff": ("COFF\n3 1 0\n", "variant"),
        "empty": ("", "empty"),
        "truncated": (tri + "# " + "padding " * 8 + "\n3 0 1 2\n", "ends inside the face list"),
        "truncheader": (tri + "3 0 1 2\n", "more than its"),
        "truncvert": ("OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1\n3 0 1 2\n3 1 2 3\n", None),
        "badnumber": (tri.replace("1 1 1", "1 x 1") + "3 0 1 2\n3 1 2 3\n", "not a finite number"),
        "nan": (tri.replace("1 1 1", "1 nan 1") + "3 0 1 2\n3 1 2 3\n", "not a finite number"),
        "badid": (tri + "3 0 1 2\n3 1 2 4\n", "refers to vertex 4"),
        "negid": (tri + "3 0 1 2\n3 1 -2 3\n", "refers to vertex -2"),
        "idtext": (tri + "3 0 1 2\n3 1 2 b\n", "not an integer"),
        "quad": (tri + "3 0 1 2\n4 0 1 2 3\n", "only triangle meshes"),
        "twoverts": (tri + "3 0 1 2\n2 1 2\n", "at least 3"),
        "hugeface": (tri + "3 0 1 2\n4611686018427387904 1 2 3\n", "only triangle meshes"),
        "repeated": (tri + "3 0 1 2\n3 1 1 3\n", "repeats a vertex"),
        "nofaces": ("OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", "no faces"),
    }
    for name, (text, needle) in off_cases.items():
        bad.append((cp + ["--mesh", write(tmp, name + ".off", text), "--array", "z"], needle))
    bad.append((cp + ["--mesh", os.path.join(DATA, "surfaces", "cgal_double-torus-example.off"),
                      "--array", "z"], "only triangle meshes"))

    # PLY: header problems, counts beyond the file, truncated bodies, bad lists.
    def ply(fmt, body, vertices=3, faces=1, extra=""):
        header = (f"ply\nformat {fmt} 1.0\nelement vertex {vertices}\nproperty float x\n"
                  f"property float y\nproperty float z\n{extra}element face {faces}\n"
                  "property list uchar int vertex_indices\nend_header\n")
        return header.encode() + body

    tri_ascii = b"0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
    tri_binary = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + struct.pack("<B3i", 3, 0, 1, 2)
    ply_ok_ascii = write(tmp, "ok_ascii.ply", ply("ascii", tri_ascii))
    ply_ok_binary = write(tmp, "ok_binary.ply", ply("binary_little_endian", tri_binary))
    for path in (ply_ok_ascii, ply_ok_binary):
        result = topogpu("critical-points", "--mesh", path, "--array", "y", "--json")
        check(result.returncode == 0 and counts_of(result)[0] == [1, 0, 0, 1, 0, 1],
              f"{os.path.basename(path)}: {result.stderr}")
    ply_cases = {
        "magic": (b"plx\n" + ply("ascii", tri_ascii)[4:], "not a PLY file"),
        "format": (ply("binary_middle_endian", tri_binary), "unknown format"),
        "noend": (ply("ascii", b"").replace(b"end_header\n", b""), "end_header"),
        "hugecount": (ply("binary_little_endian", tri_binary, vertices=10**15), "more than its"),
        "hugecount2": (ply("ascii", tri_ascii, faces=2**62), "more than its"),
        "badcount": (ply("ascii", tri_ascii, vertices="3x"), "malformed element"),
        "truncbin": (ply("binary_little_endian", tri_binary[:-3]), "truncated"),
        "truncbin2": (ply("binary_little_endian", tri_binary, faces=2), "truncated"),
        "truncascii": (ply("ascii", tri_ascii[:-6]), "truncated"),
        "truncascii2": (ply("ascii", tri_ascii[:-2]), "ends early"),
        "badtype": (ply("ascii", tri_ascii, extra="property quad w\n"), "unknown property type"),
        "floatcount": (ply("ascii", tri_ascii).replace(b"list uchar", b"list float"),
                       "bad list property"),
        "listhuge": (ply("binary_little_endian", tri_binary[:-13] + struct.pack("<B3i", 255, 0, 1, 2)),
                     None),
        "listhuge2": (ply("binary_little_endian", tri_binary[:-13] + struct.pack("<i3i", 2**31 - 1, 0, 1, 2))
                      .replace(b"list uchar", b"list int"), "more than the rest"),
        "quad": (ply("ascii", b"0 0 0\n1 0 0\n0 1 0\n1 1 0\n4 0 1 2 3\n", vertices=4),
                 "only triangle meshes"),
        "badid": (ply("ascii", b"0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n"), "refers to vertex"),
        "badnum": (ply("ascii", b"0 0 0\n1 0 0\n0 q 0\n3 0 1 2\n"), "not a finite number"),
        "pointcloud": (ply("ascii", tri_ascii[:-8], faces=0), "no faces"),
        "noz": (ply("ascii", tri_ascii).replace(b"property float z\n", b"")
                .replace(b"0 0 0\n1 0 0\n0 1 0\n", b"0 0\n1 0\n0 1\n"), "x, y or z"),
        "noarray": (ply("ascii", tri_ascii), "no vertex property"),
    }
    for name, (content, needle) in ply_cases.items():
        array = "pressure" if name == "noarray" else "z"
        bad.append((cp + ["--mesh", write(tmp, name + ".ply", content), "--array", array], needle))

    # VTK formats (builds with VTK): readers' errors become ours.
    probe = topogpu("critical-points", "--mesh", write(tmp, "probe.vtu", "x"), "--array", "z")
    with_vtk = "no VTK" not in probe.stderr
    if with_vtk:
        bad += [
            (cp + ["--mesh", write(tmp, "garbage.vtu", "<VTKFile><oops"), "--array", "z"], None),
            (cp + ["--mesh", write(tmp, "garbage.vtk", "# vtk DataFile\nnonsense\n"), "--array", "z"], None),
            (cp + ["--mesh", write(tmp, "empty.vtu", ""), "--array", "z"], None),
            (cp + ["--mesh", os.path.join(DATA, "tets", "vtk_post_lox.vtk"), "--array", "Nope"],
             "no numeric point array"),
        ]

    # Out of memory: a clear message saying what was being done.
    big = raw_case(tmp, "big", np.random.default_rng(1).integers(0, 255, 128 ** 3), np.uint8)
    expect_error("explicit 128^3 grid under a 300 MB cap",
                 cp + ["--raw", big, "--dims", "128,128,128", "--type", "uint8",
                       "--triangulation", "explicit", "--backend", "cpu"],
                 "not enough memory for", memory=300 << 20)

    # A .vti is a grid: the implicit triangulation, or explicit on request; both equal
    # the oracle on the grid's cells.
    vti_values = rng.random(5 * 6 * 7)
    vti = write(tmp, "grid.vti", f"""<?xml version="1.0"?>
<VTKFile type="ImageData" version="0.1" byte_order="LittleEndian">
<ImageData WholeExtent="0 4 0 5 0 6" Origin="0 0 0" Spacing="1 1 1">
<Piece Extent="0 4 0 5 0 6"><PointData Scalars="f">
<DataArray type="Float64" Name="f" format="ascii">{' '.join(map(repr, vti_values))}</DataArray>
</PointData><CellData/></Piece></ImageData></VTKFile>
""")
    if with_vtk:
        expected = cp_oracle.classify(vti_values, cp_oracle.grid_cells((5, 6, 7)), 5 * 6 * 7)
        for triangulation in ("implicit", "explicit"):
            result = topogpu("critical-points", "--mesh", vti, "--array", "f", "--json",
                             "--triangulation", triangulation)
            check(result.returncode == 0, f"grid.vti: {result.stderr}")
            if result.returncode == 0:
                counts, data = counts_of(result)
                check(counts == list(expected.counts) and data["triangulation"] == triangulation,
                      f"grid.vti ({triangulation}): {counts} != oracle {list(expected.counts)}")

    for args, needle in bad:
        label = "bad input " + " ".join(map(str, args))[-140:]
        expect_error(label, args, needle)
        if args[:1] == ["critical-points"] and len(args) > 1:
            expect_error(label + " (json)", args + ["--json"])

    # --- messages that tell the truth ----------------------------------------------
    # A NUL or control byte quoted from a file is shown escaped, never cutting the
    # message (what() is a C string) nor garbling the terminal.
    nul_cloud = write(tmp, "nul.txt", b"0 0\n1 0\n2 \x00x\n")
    result = expect_error("NUL byte in a number", ["rips", "--format", "point-cloud",
                                                  nul_cloud], "is not a number")
    check("\\x00x" in result.stderr and "\x00" not in result.stderr,
          f"NUL byte shown escaped: {result.stderr!r}")
    result = expect_error("NUL byte in a number (json)", ["rips", "--format", "point-cloud",
                                                         nul_cloud, "--json"], "is not a number")
    check("\\x00x" in json.loads(result.stdout or "{}").get("error", ""),
          f"NUL byte escaped in the JSON error: {result.stdout!r}")
    bell = write(tmp, "bell.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 \x07\n3 0 1 2\n")
    result = expect_error("control byte in an OFF coordinate",
                          cp + ["--mesh", bell, "--array", "z"], "not a finite number")
    check("\\x07" in result.stderr, f"control byte shown escaped: {result.stderr!r}")

    # '-': standard input where the reader streams its input (rips, as ripser), a clear
    # refusal where it needs a whole file (--raw, --mesh), never "unknown option".
    cloud_text = "0 0\n1 0\n0 1\n1 1\n"
    from_file = topogpu("rips", "--format", "point-cloud", write(tmp, "cloud.txt", cloud_text))
    try:
        from_stdin = subprocess.run([cli_helpers.TOPOGPU, "rips", "--format", "point-cloud", "-"],
                                    input=cloud_text, capture_output=True, text=True, timeout=60)
        check(from_stdin.returncode == 0 and from_stdin.stdout == from_file.stdout
              and from_file.returncode == 0,
              f"rips - reads standard input: rc {from_stdin.returncode} {from_stdin.stderr!r}")
    except subprocess.TimeoutExpired:
        check(False, "rips - hangs")
    for args in (cp + ["--raw", "-", "--dims", "2,2,2", "--type", "uint8"],
                 cp + ["--mesh", "-", "--array", "z"]):
        expect_error(" ".join(args), args, "standard input ('-')")
    expect_error("'-' twice", ["rips", "-", "-"], "unexpected argument '-'")

    # A point index beyond what the sparse format takes: the limit is stated.
    far = write(tmp, "far.txt", "0 1 1.0\n0 3000000000 2.0\n")
    result = expect_error("point index 3000000000", ["rips", "--format", "sparse", far],
                          "3000000000 is beyond the largest")
    check("2000000000" in result.stderr and "3000000000.0" not in result.stderr,
          f"the limit stated: {result.stderr!r}")

    # GALE (and the explicit backend) store a grid as its simplices: the gradient and the
    # Morse-Smale complex then run on the simplicial complex, by default; the cubical
    # complex asked for explicitly is refused with the reason.
    grid_values = raw_case(tmp, "gale_grid", rng.random(5 * 4 * 3), np.float32)
    grid = ["--raw", grid_values, "--dims", "5,4,3", "--type", "float32"]
    for command in ("discrete-gradient", "msc"):
        for kind in ("gale-cpu", "explicit"):
            result = topogpu(command, *grid, "--triangulation", kind, "--json")
            check(result.returncode == 0
                  and json.loads(result.stdout).get("complex") == "simplicial",
                  f"{command} --triangulation {kind} on a raw grid: rc {result.returncode} "
                  f"{result.stderr[-300:]!r}")
            expect_error(f"{command} --complex cubical --triangulation {kind}",
                         [command, *grid, "--triangulation", kind, "--complex", "cubical"],
                         "stores the grid as its simplices")
    expect_error("cubical complex on a mesh", ["discrete-gradient", "--mesh", terrain,
                                               "--array", "z", "--complex", "cubical"],
                 "is a mesh")

    # --- seeded random truncations and byte corruptions of valid files -------------
    randomness = random.Random(5)
    ply_terrain = os.path.join(tmp, "terrain_big_endian.ply")
    coords, faces = read_off(terrain)
    header = (f"ply\nformat binary_big_endian 1.0\nelement vertex {len(coords)}\n"
              "property double x\nproperty double y\nproperty double z\n"
              f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n")
    with open(ply_terrain, "wb") as f:
        f.write(header.encode() + coords.astype(">f8").tobytes())
        rows = np.zeros(len(faces), dtype=[("n", "u1"), ("v", ">i4", 3)])
        rows["n"], rows["v"] = 3, faces
        f.write(rows.tobytes())
    sources = [(terrain, "z"), (ply_terrain, "z"), (ply_ok_ascii, "z")]
    if with_vtk:
        sources += [(os.path.join(DATA, "tets", "vtk_post_lox.vtk"), "Pressure"),
                    (os.path.join(DATA, "tets", "vtk_tetraMesh.vtk"), "z"),
                    (os.path.join(DATA, "tets", "vtk_Tetrahedron.vtu"), "z"),
                    (os.path.join(DATA, "tets", "vtk_Tetrahedron.vtu"), "z"),
                    (os.path.join(DATA, "surfaces", "ttk_casting.vtu"), "z"),
                    (vti, "f")]
    text_sources = {terrain, ply_ok_ascii, os.path.join(DATA, "tets", "vtk_tetraMesh.vtk")}
    for source, array in sources:
        if not os.path.exists(source):
            print("missing", source)
            continue
        original = open(source, "rb").read()
        ext = os.path.splitext(source)[1]
        result = topogpu("critical-points", "--mesh", source, "--array", array)
        check(result.returncode == 0, f"{source} reads: {result.stderr}")
        for trial in range(12):
            cut = randomness.randrange(0, len(original) - 64)
            path = write(tmp, f"cut{trial}{ext}", original[:cut])
            # Text formats can lose whole records and still parse; binary files and XML
            # (which must end with </VTKFile>) cannot.
            expect_error(f"{os.path.basename(source)} truncated to {cut} bytes",
                         ["critical-points", "--mesh", path, "--array", array] +
                         (["--json"] if trial % 2 else []),
                         allow_success=source in text_sources)
        for trial in range(12):
            corrupt = bytearray(original)
            for _ in range(randomness.choice([1, 4, 32])):
                corrupt[randomness.randrange(len(corrupt))] = randomness.randrange(256)
            path = write(tmp, f"corrupt{trial}{ext}", bytes(corrupt))
            expect_error(f"{os.path.basename(source)} corrupted (trial {trial})",
                         ["critical-points", "--mesh", path, "--array", array],
                         allow_success=True)

# --- meshes from the shared data against the oracle ---------------------------------
terrain = os.path.join(DATA, "surfaces", "ttk_inputData_terrain.off")
if os.path.exists(terrain):
    coords, faces = read_off(terrain)
    expected = cp_oracle.classify(coords[:, 2], faces, len(coords))
    result = topogpu("critical-points", "--mesh", terrain, "--array", "z", "--json")
    counts, _ = counts_of(result)
    check(counts == list(expected.counts), f"terrain: counts {counts} != oracle {list(expected.counts)}")
    check(expected.euler_from_links == expected.euler_domain == 1, "terrain: Euler relation")
else:
    print("shared data missing: mesh cases skipped")

# VTK formats (builds with VTK): the binary legacy post mesh (2288 points, SOURCES.md),
# parsed here without VTK; every class, regular included, must equal the oracle's.
post = os.path.join(DATA, "tets", "vtk_post_lox.vtk")
probe = topogpu("critical-points", "--mesh", post, "--array", "Pressure", "--json")
if "no VTK" not in probe.stderr and os.path.exists(post):
    mesh = read_legacy_vtk_binary(post)
    check(bool(np.all(mesh["types"] == 10)), "post: all cells are tets")
    pressure = mesh["arrays"]["Pressure"].astype(np.float32)
    expected = cp_oracle.classify(pressure, mesh["cells"].astype(np.int64), len(mesh["points"]))
    counts, data = counts_of(probe)
    check(data["vertices"] == len(mesh["points"]) == 2288 and data["dimension"] == 3,
          f"post: {data['vertices']} vertices, dimension {data['dimension']}")
    check(counts == list(expected.counts), f"post: counts {counts} != oracle {list(expected.counts)}")

finish()
