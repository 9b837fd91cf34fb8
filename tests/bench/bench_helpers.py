"""What the CPU-vs-GPU benchmark scripts share: the raw-volume naming, running the CLI
for its --json report, the optional synthetic fields (white noise, or a smooth sum of
Gaussians and sines), and writing a benchmark's result with its targets' verdicts."""
import json
import os
import re
import subprocess

PATTERN = re.compile(r"(.*)_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$")


def verdict(met):
    return {True: "met", False: "NOT met", None: "not measured"}[met]


def targets_and_notes_markdown(result):
    """The markdown lines closing a benchmark's report: the targets' table with their
    verdicts, then the notes and the failures (if any)."""
    lines = ["", "## Targets of the issue (evaluated from the measurements above)", "",
             "| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {t['target']} | {t['measured']} | {verdict(t['met'])} |"
              for t in result["targets"]]
    if result["notes"] or result["failures"]:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}" for n in result["notes"]]
        lines += [f"- FAILURE: {f}" for f in result["failures"]]
    return lines


def write_markdown_report(path, lines, result):
    """Writes the report's lines, then its targets and notes (targets_and_notes_markdown),
    to path."""
    with open(path, "w") as f:
        f.write("\n".join(lines + targets_and_notes_markdown(result)) + "\n")


def write_result(out, name, result, write_markdown):
    """Writes OUT/NAME.json and (write_markdown) OUT/NAME.md, prints the targets' verdicts,
    the notes and the failures; returns the script's exit code (1 on a failure)."""
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(result, f, indent=1)
    write_markdown(os.path.join(out, name + ".md"), result)
    print("targets of the issue:")
    for t in result["targets"]:
        print(f"  {verdict(t['met']):12s} {t['target']}: {t['measured']}")
    for n in result["notes"]:
        print("note:", n)
    for f in result["failures"]:
        print("FAILURE:", f)
    return 1 if result["failures"] else 0


def run_json(cmd, timeout=None):
    """Runs a topogpu command that prints --json and returns the parsed report; with a
    timeout (seconds) the command is killed then and subprocess.TimeoutExpired raised."""
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {result.stderr}")
    return json.loads(result.stdout)


def raw_volumes(folder):
    """(name, path, dims, dtype) for every NAME_XxYxZ_type.raw in folder, sorted by name;
    dtype is spelled as the CLI's --type wants it."""
    inputs = []
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            m = PATTERN.match(name)
            if m:
                dtype = "int16" if m.group(5) == "int16le" else m.group(5)
                inputs.append((m.group(1), os.path.join(folder, name),
                               tuple(int(m.group(i)) for i in (2, 3, 4)), dtype))
    return inputs


def noise_path(out, n):
    return os.path.join(out, f"synthetic_{n}.raw")


def noise_input(out, n):
    """Writes an N^3 float32 normal-noise field (seed 1) to out and returns its input row;
    remove noise_path(out, n) when done."""
    import numpy as np
    path = noise_path(out, n)
    np.random.default_rng(1).normal(size=n ** 3).astype(np.float32).tofile(path)
    return (f"noise {n}^3", path, (n, n, n), "float32")


def smooth_path(out, n):
    return os.path.join(out, f"smooth_{n}.raw")


def smooth_terms(seed=1):
    """The smooth field's terms on the unit box [0,1]^3: 36 Gaussians of both signs
    ("gauss": amplitude, centre, width 0.04-0.15) and 4 low-amplitude products of sines
    ("sines": amplitude 0.02-0.05, 3-8 periods and a phase per axis). Defined on the unit
    box, so every grid size samples the same function (similar critical cells at every n:
    a few thousand, where white noise has hundreds of millions)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    terms = []
    for _ in range(36):
        centre, width = rng.uniform(0.1, 0.9, 3), rng.uniform(0.04, 0.15)
        amplitude = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.5)
        terms.append(("gauss", amplitude, centre, width))
    for _ in range(4):
        periods, phases = rng.integers(3, 9, 3), rng.uniform(0, 2 * np.pi, 3)
        terms.append(("sines", rng.uniform(0.02, 0.05), periods, phases))
    return terms


def smooth_factors(n, terms):
    """Every term is separable: f(x,y,z) = sum_r a_r X_r(x) Y_r(y) Z_r(z). Returns the
    (terms, n) float64 arrays X, Y and a*Z sampled at i/(n-1)."""
    import numpy as np
    t = np.linspace(0.0, 1.0, n)
    xs, ys, zs = [], [], []
    for kind, amplitude, a, b in terms:
        if kind == "gauss":
            g = [np.exp(-((t - c) ** 2) / (2 * b ** 2)) for c in a]
        else:
            g = [np.sin(2 * np.pi * p * t + f) for p, f in zip(a, b)]
        xs.append(g[0])
        ys.append(g[1])
        zs.append(amplitude * g[2])
    return np.array(xs), np.array(ys), np.array(zs)


_SLABS = {}  # the factors for the forked slab writers (shared copy-on-write)


def _write_slab(k0):
    import numpy as np
    d = _SLABS
    values = (d["z"][:, k0:k0 + d["slab"]].T @ d["plane"]).astype(np.float32)
    with open(d["path"], "r+b") as f:
        os.pwrite(f.fileno(), values.tobytes(), k0 * d["n"] * d["n"] * 4)


def smooth_input(out, n, seed=1, slab_bytes=1 << 27, workers=None):
    """Writes the N^3 float32 smooth field of smooth_terms (x fastest) to out and returns
    its input row; remove smooth_path(out, n) when done. Slabs of z, each one matrix
    product (float64, then rounded) written in place by a pool of forked processes (numpy
    may have a single-threaded BLAS), so 1024^3 (4 GiB) needs about slab_bytes * 1.5 per
    worker, never a copy of the whole field; the bytes do not depend on the slab size or
    the number of workers."""
    import multiprocessing
    x, y, z = smooth_factors(n, smooth_terms(seed))
    path = smooth_path(out, n)
    with open(path, "wb") as f:
        f.truncate(n ** 3 * 4)
    _SLABS.update(n=n, z=z, path=path, slab=max(1, slab_bytes // (8 * n * n)),
                  plane=(y[:, :, None] * x[:, None, :]).reshape(len(x), n * n))
    starts = range(0, n, _SLABS["slab"])
    workers = min(workers or os.cpu_count() or 1, len(starts))
    try:
        if workers > 1:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                pool.map(_write_slab, starts, chunksize=1)
        else:
            for k0 in starts:
                _write_slab(k0)
    finally:
        _SLABS.clear()
    return (f"smooth {n}^3", path, (n, n, n), "float32")


def filter_stages(proxy):
    """A TopoGPU filter's own stages after its update, {stage: seconds}, from the output's
    TopoGPUTimingStages and TopoGPUTimings field data (pvpython)."""
    data = proxy.GetClientSideObject().GetOutputDataObject(0).GetFieldData()
    names, seconds = data.GetAbstractArray("TopoGPUTimingStages"), data.GetArray(
        "TopoGPUTimings")
    if names is None or seconds is None:
        return {}
    return {names.GetValue(i): seconds.GetValue(i) for i in range(names.GetNumberOfValues())}


def finish_summary(result, machine, out):
    """Adds the machine's description, writes the summary to out (when given) and prints
    it as the last line."""
    if machine:
        result["machine"] = machine
    if out:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
    print(json.dumps(result))
