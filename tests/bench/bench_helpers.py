"""What the CPU-vs-GPU benchmark scripts share: the raw-volume naming, running the CLI
for its --json report, and the optional synthetic fields (white noise, or a smooth sum of
Gaussians and sines)."""
import json
import os
import re
import subprocess

PATTERN = re.compile(r"(.*)_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$")


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


def smooth_factors(n, seed=1):
    """The smooth field as a sum of separable terms sum_r z_r(k) y_r(j) x_r(i) over the
    grid's [0,1]^3: 36 Gaussians of both signs (widths 0.04-0.15 of the box) and 4
    products of sines of amplitude 0.02-0.05 (3-8 periods per axis). Returns three
    (terms, n) float64 arrays, amplitudes folded into z. The field is defined on the unit
    box, so every size samples the same function (similar critical cells at every n)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, n)
    xs, ys, zs = [], [], []
    for _ in range(36):
        centre, width = rng.uniform(0.1, 0.9, 3), rng.uniform(0.04, 0.15)
        amplitude = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.5)
        g = [np.exp(-((t - c) ** 2) / (2 * width ** 2)) for c in centre]
        xs.append(g[0])
        ys.append(g[1])
        zs.append(amplitude * g[2])
    for _ in range(4):
        periods, phases = rng.integers(3, 9, 3), rng.uniform(0, 2 * np.pi, 3)
        s = [np.sin(2 * np.pi * p * t + f) for p, f in zip(periods, phases)]
        xs.append(s[0])
        ys.append(s[1])
        zs.append(rng.uniform(0.02, 0.05) * s[2])
    return np.array(xs), np.array(ys), np.array(zs)


def smooth_input(out, n, seed=1):
    """Writes the N^3 float32 smooth field of smooth_factors (x fastest) to out and
    returns its input row; remove smooth_path(out, n) when done. Written by slabs of z
    (one matrix product per slab, float64 then rounded), so 1024^3 (4 GiB) needs about
    0.6 GiB of memory, not copies of the whole field."""
    import numpy as np
    x, y, z = smooth_factors(n, seed)
    plane = (y[:, :, None] * x[:, None, :]).reshape(len(x), n * n)  # (terms, y*x)
    slab = max(1, (1 << 25) // (n * n))  # <= 256 MiB of float64 per slab
    path = smooth_path(out, n)
    with open(path, "wb") as f:
        for k in range(0, n, slab):
            (z[:, k:k + slab].T @ plane).astype(np.float32).tofile(f)
    return (f"smooth {n}^3", path, (n, n, n), "float32")
