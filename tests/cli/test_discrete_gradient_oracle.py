"""`topogpu discrete-gradient` against persistent homology: the critical cells per index
of ProcessLowerStars must be the homology changes of the lower-star filtration (Robins,
Wood and Sheppard 2011), computed independently by tests/oracles/lower_star_persistence.py
(brute-force boundary reduction on small grids, GUDHI on the refined grid otherwise).

    python3 test_discrete_gradient_oracle.py TOPOGPU_BINARY SHARED_DATA_DIR

(a) 120+ small random grids, 2D and 3D (including 1-voxel-thick ones), every tie regime,
    every --type, against the brute force; (b) medium analytic and random fields against
    GUDHI; (c) the real volumes against their GUDHI counts stored in
    tests/oracles/volume_critical_cells.json (the slow ctest oracle.volumes recomputes
    them). Each case runs with --backend cpu and --backend auto.
A CLI without the subcommand FAILS: this test is the gate for landing it.
"""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import cli_helpers  # noqa: E402
import lower_star_persistence as oracle  # noqa: E402
from cli_helpers import check  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
BACKENDS = ["cpu", "auto"]


def run_cli(path, dims, type_name, backend):
    args = ["discrete-gradient", "--raw", path, "--dims", ",".join(map(str, dims)), "--type",
            type_name, "--complex", "cubical", "--backend", backend, "--json"]
    result = cli_helpers.topogpu(*args, timeout=120, memory=None)
    if result.returncode == "timeout":
        return None, "timed out: " + " ".join([TOPOGPU, *args])
    data = None
    try:
        data = json.loads(result.stdout)
        cells = data["critical_cells"]
    except (ValueError, KeyError, TypeError):
        if (result.returncode == 1 and result.stderr.strip() and isinstance(data, dict)
                and isinstance(data.get("error"), str) and data["error"]):
            return None, f"rc 1, \"error\": {result.stderr.strip()[:300]!r}"
        return None, (f"rc {result.returncode}, no \"critical_cells\" in its JSON: "
                      f"stdout {result.stdout[-300:]!r} stderr {result.stderr.strip()[:300]!r}")
    if result.returncode != 0:
        return None, f"rc {result.returncode}, stderr {result.stderr.strip()[:300]!r}"
    return cells, None


def clear_error(error):
    # The issue asks 2D and 3D grids; a 1D one may be refused, with rc 1 and a message.
    return error is not None and error.startswith("rc 1,") and "\"error\"" in error


def compare(label, grid, expected, tmp, dims=None):
    """grid is indexed [z, y, x]; the raw file is x fastest."""
    grid = np.asarray(grid)
    type_name = grid.dtype.name
    path = os.path.join(tmp, "case.raw")
    grid.astype(grid.dtype.newbyteorder("<")).tofile(path)
    dims = dims or list(grid.shape[::-1])
    one_d = sum(1 for d in dims if d > 1) < 2
    for backend in BACKENDS:
        cells, error = run_cli(path, dims, type_name, backend)
        check((error is None and cells == expected) or (one_d and clear_error(error)),
              f"{label} dims {dims} {type_name} --backend {backend}: CLI {cells} "
              f"!= oracle {expected}" + (f" ({error})" if error else ""))


def require_subcommand(tmp):
    path = os.path.join(tmp, "probe.raw")
    np.arange(8, dtype=np.float32).tofile(path)
    cells, error = run_cli(path, [2, 2, 2], "float32", "cpu")
    if error is not None:
        print("FAIL: `topogpu discrete-gradient --raw F --dims X,Y,Z --type T --backend cpu "
              f"--json` does not work (the subcommand is missing or broken): {error}")
        sys.exit(1)


TYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32",
         "float64"]
REGIMES = ["distinct", "continuous", "ties2", "ties3", "ties4"]
SHAPES = [  # [z, y, x]; the 1-thick ones are 2D complexes
    (1, 2, 2), (1, 3, 4), (1, 5, 5), (1, 6, 7), (1, 8, 5), (2, 2, 2), (2, 3, 4), (3, 3, 3),
    (3, 4, 5), (4, 4, 4), (4, 3, 2), (5, 4, 3), (2, 5, 5), (3, 1, 6), (4, 5, 1), (1, 2, 9),
    (1, 1, 9)]


def small_grid(rng, shape, regime, type_name):
    size = int(np.prod(shape))
    if regime == "distinct":
        values = rng.permutation(size) - (size // 2 if type_name.startswith("int") else 0)
    elif regime == "continuous":
        values = rng.standard_normal(size) * (1 if type_name.startswith("float") else 40)
        if type_name.startswith("int"):
            values = np.clip(np.round(values), -127, 127)
        elif type_name.startswith("uint"):
            values = np.clip(np.round(values) + 128, 0, 255)
    else:
        levels = int(regime[-1])
        values = rng.integers(0, levels, size=size) - (1 if type_name.startswith("int") else 0)
        if type_name.startswith("float"):
            values = values * 0.75 - 0.5
    return np.asarray(values).astype(type_name).reshape(shape)


def small_cases(tmp):
    rng = np.random.default_rng(20261121)
    cases = 0
    for case in range(130):
        shape = SHAPES[case % len(SHAPES)]
        regime = REGIMES[case % len(REGIMES)]
        type_name = TYPES[(case // len(REGIMES)) % len(TYPES)]
        grid = small_grid(rng, shape, regime, type_name)
        expected = oracle.brute_force_counts(grid)
        # A 2D grid also given as --dims X,Y (two numbers).
        dims = [shape[2], shape[1]] if shape[0] == 1 and case % 3 == 0 else None
        compare(f"small case {case} {regime}", grid, expected, tmp, dims)
        cases += 1
    return cases


def medium_fields():
    rng = np.random.default_rng(6)
    fields = []
    z, y, x = np.meshgrid(np.linspace(0, 1, 24), np.linspace(0, 1, 20), np.linspace(0, 1, 28),
                          indexing="ij")
    gauss = np.zeros_like(x)
    for _ in range(12):
        c = rng.random(3)
        gauss += rng.uniform(0.5, 2) * np.exp(-((x - c[0])**2 + (y - c[1])**2 + (z - c[2])**2)
                                               / (2 * rng.uniform(0.05, 0.2)**2))
    fields.append(("sum of Gaussians 28x20x24", gauss.astype(np.float32)))
    fields.append(("sum of Gaussians quantised to uint8",
                   np.round(255 * gauss / gauss.max()).astype(np.uint8)))
    sines = np.sin(3 * np.pi * x) * np.sin(2 * np.pi * y) * np.sin(2.5 * np.pi * z)
    fields.append(("product of sines 28x20x24", sines.astype(np.float64)))
    yy, xx = np.meshgrid(np.linspace(0, 1, 70), np.linspace(0, 1, 90), indexing="ij")
    fields.append(("product of sines 2D 90x70",
                   (np.sin(5 * np.pi * xx) * np.sin(4 * np.pi * yy))[None].astype(np.float32)))
    fields.append(("random float32 20x18x16", rng.standard_normal((16, 18, 20)).astype(np.float32)))
    fields.append(("random int16 3 levels 18x16x14",
                   rng.integers(-1, 2, size=(14, 16, 18)).astype(np.int16)))
    return fields


def main():
    try:
        import gudhi  # noqa: F401
    except ImportError:
        print("FAIL: the oracle needs python3-gudhi (scripts/setup.sh installs it)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        require_subcommand(tmp)
        small = small_cases(tmp)
        for label, field in medium_fields():
            expected = oracle.gudhi_counts(field)
            check(oracle.euler(expected) == 1, f"{label}: oracle Euler {expected}")
            compare(label, field, expected, tmp)
        stored_path = os.path.join(os.path.dirname(oracle.__file__), oracle.VOLUME_COUNTS_FILE)
        with open(stored_path) as f:
            stored = json.load(f)
        volumes_dir = os.path.join(DATA, "volumes")
        if not os.path.isdir(volumes_dir):
            print(f"note: {volumes_dir} is missing: the real volumes are not checked")
        for name in oracle.VOLUMES if os.path.isdir(volumes_dir) else []:
            path = os.path.join(volumes_dir, name + ".raw")
            dims, dtype = oracle.volume_spec(name)
            for backend in BACKENDS:
                cells, error = run_cli(path, dims, dtype.name, backend)
                check(error is None and cells == stored[name],
                      f"{name} --backend {backend}: CLI {cells} != GUDHI {stored[name]}"
                      + (f" ({error})" if error else ""))
    print(f"{cli_helpers.passed} passed, {len(cli_helpers.failures)} failed ({small} small "
          f"grids, {len(oracle.VOLUMES)} volumes)")
    return 1 if cli_helpers.failures else 0


if __name__ == "__main__":
    sys.exit(main())
