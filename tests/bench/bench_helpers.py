"""What the CPU-vs-GPU benchmark scripts share: the raw-volume naming, running the CLI
for its --json report, and the optional synthetic noise field."""
import json
import os
import re
import subprocess

PATTERN = re.compile(r"(.*)_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$")


def run_json(cmd):
    """Runs a topogpu command that prints --json and returns the parsed report."""
    result = subprocess.run(cmd, capture_output=True, text=True)
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
