"""Ripser's text output and barcode comparison, shared by the Rips tests and benchmark
(tests/cli/test_rips.py, tests/pvpython/rips_persistence_test.py, tests/bench/bench_rips.py).

Bars are compared as multisets per dimension within a relative tolerance: the text rounds
to a few digits and the distances are single precision."""
import math
import re

INTERVAL = re.compile(r"^ \[([^,]+),\s*([^)]*)\)$")


def parse(text):
    """Ripser's text output -> {dim: [(birth, death)]}; death inf for ' [b, )'."""
    bars, dim = {}, None
    for line in text.splitlines():
        if line.startswith("persistence intervals in dim "):
            dim = int(line[len("persistence intervals in dim "):-1])
            bars[dim] = []
            continue
        m = INTERVAL.match(line)
        if m and dim is not None:
            death = m.group(2).strip()
            bars[dim].append((float(m.group(1)), math.inf if death == "" else float(death)))
    return bars


def close(a, b, tol=2e-5):
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def barcode_difference(ours, theirs, dims=None, tol=2e-5):
    """'' when equal as multisets per dimension, else what differs. dims: the dimensions
    to compare (default: both must have the same ones, all compared). Sorted greedy
    matching, then the leftovers by search (equal-looking births may sort either way)."""
    if dims is None and sorted(ours) != sorted(theirs):
        return f"dimensions {sorted(ours)} vs {sorted(theirs)}"
    for k in sorted(theirs) if dims is None else dims:
        a, b = sorted(ours.get(k, [])), sorted(theirs.get(k, []))
        if len(a) != len(b):
            return f"dim {k}: {len(a)} bars vs {len(b)}"
        pairs = [(x, y) for x, y in zip(a, b)
                 if not (close(x[0], y[0], tol) and close(x[1], y[1], tol))]
        xs = [x for x, _ in pairs]
        for _, y in pairs:
            hit = next((i for i, x in enumerate(xs)
                        if close(x[0], y[0], tol) and close(x[1], y[1], tol)), None)
            if hit is None:
                return f"dim {k}: {y} has no match"
            xs.pop(hit)
    return ""
