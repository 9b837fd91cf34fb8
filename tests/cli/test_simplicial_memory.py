"""The host-memory estimate and budget of the simplicial complex in `topogpu msc`,
`topogpu discrete-gradient`, `topogpu persistence` and `topogpu simplify`, end to end:
  * a budget below the run's estimate is refused before the run: exit 1, the message
    names the estimate and the budget (GiB/MiB) and what to do, the JSON carries it as
    "error", nothing is printed on stdout without --json, and --details is not written;
    a budget above the estimate runs and gives the run without a budget, field for field;
  * the estimate is an upper bound of the memory the run really takes, within 1.5x: the
    kernel's peak resident set (VmHWM, the JSON's peak_host_memory_mib) of the run minus
    that of the same command on a 2x2x2 grid (the program and its libraries), on 3D
    random and smooth grids of 96^3 to 128^3 vertices and a random 1500^2 grid, for
    `msc` and for `persistence` (whose complex computes only what the pairs read: its
    own, smaller estimate) (CPU path: --backend cpu; the GPU path's host side too where
    `topogpu info` finds a device);
  * persistence and simplify (whose complex is the Morse-Smale complex's) refuse a budget
    far below any estimate with the same message, and run as without a budget under a
    large one;
  * bad --memory-budget values are refused, naming the option.

    python3 test_simplicial_memory.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_helpers  # noqa: E402
from cli_helpers import check, expect_error, np, raw_case  # noqa: E402

TOPOGPU, DATA = cli_helpers.arguments()
MIB = 1024.0 * 1024.0


def run(command, path, dims, *extra, memory=None):
    result = cli_helpers.topogpu(command, "--raw", path, "--dims", ",".join(map(str, dims)),
                                 "--type", "float32", *extra, timeout=600, memory=memory)
    return result


def run_json(command, path, dims, *extra):
    result = run(command, path, dims, "--json", *extra)
    if result.returncode != 0:
        check(False, f"{command} {dims} {extra}: rc {result.returncode}: {result.stderr[-300:]}")
        return None
    return json.loads(result.stdout)


def smooth(dims, seed):
    z, y, x = np.meshgrid(*(np.linspace(0, 1, n) for n in dims[::-1]), indexing="ij")
    rng = np.random.default_rng(seed)
    f = np.zeros_like(x)
    for _ in range(6):
        c = rng.uniform(0, 1, 3)
        f += rng.uniform(0.5, 1.5) * np.exp(-((x - c[0]) ** 2 + (y - c[1]) ** 2 +
                                              (z - c[2]) ** 2) / 0.02)
    return f


def without_timings(fields):
    """The result without what varies from run to run (times, memory, the device), at
    every level."""
    return {k: without_timings(v) if isinstance(v, dict) else v for k, v in fields.items()
            if not re.search(r"seconds|timings|memory|totals|device", k)}


def budget_refusal(tmp, command, path, dims):
    label = f"{command} {dims}"
    free = run_json(command, path, dims, "--backend", "cpu")
    if free is None:
        return
    estimate = free.get("host_memory_estimate_mib", 0) * MIB
    check(estimate > 0, f"{label}: host_memory_estimate_mib in the JSON: {free.keys()}")
    below = int(estimate / 2)
    details = os.path.join(tmp, f"{command}-details.json")
    extra = ["--details", details] if command == "msc" else []
    result = expect_error(f"{label} --memory-budget {below} (half the estimate)",
                          [command, "--raw", path, "--dims", ",".join(map(str, dims)),
                           "--type", "float32", "--backend", "cpu", "--memory-budget",
                           str(below), *extra],
                          "of host memory, more than the memory budget of")
    err = result.stderr
    what = "Morse-Smale complex" if command == "msc" else "discrete gradient"
    named = re.search(r"would need about ([0-9.]+) (KiB|MiB|GiB) of host memory, more than "
                      r"the memory budget of ([0-9.]+) (KiB|MiB|GiB); .*memory budget", err)
    check(what in err and named is not None, f"{label}: the message: {err[-400:]!r}")
    if named:
        scale = {"KiB": 1024.0, "MiB": MIB, "GiB": 1024 * MIB}
        said = float(named.group(1)) * scale[named.group(2)]
        budget = float(named.group(3)) * scale[named.group(4)]
        check(abs(budget - below) <= 0.06 * below and said > budget,
              f"{label}: the budget {budget} (given {below}) and the estimate {said}")
    check(result.stdout.strip() == "", f"{label}: no output on stdout: {result.stdout[-200:]!r}")
    check(not os.path.exists(details), f"{label}: no --details file after the refusal")
    expect_error(f"{label} --json refused", [command, "--raw", path, "--dims",
                                            ",".join(map(str, dims)), "--type", "float32",
                                            "--backend", "cpu", "--memory-budget", str(below),
                                            "--json"], "more than the memory budget of")
    above = run_json(command, path, dims, "--backend", "cpu", "--memory-budget",
                     str(int(estimate * 2)))
    check(above is not None and without_timings(above) == without_timings(free),
          f"{label}: a budget of twice the estimate runs as without one")
    if command == "msc":
        check(run_json(command, path, dims, "--backend", "cpu", "--memory-budget", "64G")
              is not None, f"{label}: --memory-budget 64G runs")


def budget_passed_on(tmp, command, path, dims, *extra):
    label = f"{command} {dims}"
    args = [command, "--raw", path, "--dims", ",".join(map(str, dims)), "--type", "float32",
            "--backend", "cpu", *extra]
    out = os.path.join(tmp, f"{command}-refused.csv")
    result = expect_error(f"{label} --memory-budget 10K", [*args, "--memory-budget", "10K",
                                                          "--out", out],
                          "of host memory, more than the memory budget of 10.0 KiB")
    check("simplicial Morse-Smale complex" in result.stderr and "would need about" in
          result.stderr, f"{label}: the message names the complex and its estimate: "
          f"{result.stderr[-300:]!r}")
    check(not os.path.exists(out), f"{label}: no --out file after the refusal")
    free = run_json(command, path, dims, "--backend", "cpu", *extra)
    large = run_json(command, path, dims, "--backend", "cpu", "--memory-budget", "64G",
                     *extra)
    check(free is not None and large is not None and
          without_timings(free) == without_timings(large),
          f"{label}: --memory-budget 64G runs as without a budget")


def peak_bound(command, path, name, dims, baseline, backend):
    out = run_json(command, path, dims, "--backend", backend, *(
        ["--no-pairs"] if command == "persistence" else []))
    if out is None:
        return
    check(out["backend"] == backend, f"{name}: ran on {out['backend']}, not {backend}")
    estimate = out["host_memory_estimate_mib"]
    used = out["peak_host_memory_mib"] - baseline
    print(f"{command} {name} {dims} ({backend}): estimate {estimate:.1f} MiB, peak RSS "
          f"{out['peak_host_memory_mib']:.1f} MiB - baseline {baseline:.1f} = {used:.1f} MiB, "
          f"ratio {estimate / used:.2f}", flush=True)
    check(used <= estimate <= 1.5 * used,
          f"{command} {name} ({backend}): the estimate {estimate:.1f} MiB bounds the run's {used:.1f} MiB"
          " within 1.5x")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(21)
        dims = (14, 12, 10)
        small = raw_case(tmp, "small", rng.uniform(0, 1, dims[::-1]), np.float32)
        for command in ("msc", "discrete-gradient"):
            budget_refusal(tmp, command, small, dims)
        budget_passed_on(tmp, "persistence", small, dims)
        budget_passed_on(tmp, "simplify", small, dims, "--threshold", "0.2")
        for bad in ("lots", "0", "-5M", "12X"):
            expect_error(f"--memory-budget {bad}",
                         ["msc", "--raw", small, "--dims", "14,12,10", "--type", "float32",
                          "--memory-budget", bad], "--memory-budget")

        # The GPU path's host side too where there is a device (its baseline: the tiny
        # grid on the device, the driver's memory included).
        info = json.loads(cli_helpers.topogpu("info", "--json").stdout or "{}")
        backends = ["cpu", "gpu"] if info.get("gpu") else ["cpu"]
        tiny = raw_case(tmp, "tiny", rng.uniform(0, 1, (2, 2, 2)), np.float32)
        cases = [("random128", rng.uniform(0, 1, (128, 128, 128)), (128, 128, 128)),
                 ("smooth128", smooth((128, 128, 128), 3), (128, 128, 128)),
                 ("random96x112x80", rng.uniform(0, 1, (80, 112, 96)), (96, 112, 80)),
                 ("random1500x1500", rng.uniform(0, 1, (1500, 1500)), (1500, 1500))]
        paths = [(name, raw_case(tmp, name, values, np.float32), d) for name, values, d in cases]
        for backend in backends:
            for command in ("msc", "persistence"):
                base = run_json(command, tiny, (2, 2, 2), "--backend", backend)
                if base is None:
                    continue
                for name, path, d in paths:
                    peak_bound(command, path, name, d, base["peak_host_memory_mib"], backend)


main()
cli_helpers.finish()
