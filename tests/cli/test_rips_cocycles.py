"""`topogpu rips --cocycles` end to end: the text format (the intervals unchanged, then
"representative cocycles in dim k:" and one " [b,d): v v; v v; ..." line per finite bar),
the JSON "cocycles", and the representatives checked here with numpy, independently of
the core: on random clouds each is a cocycle while its bar lives (its coboundary vanishes
on every (k+1)-simplex of diameter < death, enumerated by brute force), and on a noisy
circle the long bar's cocycle takes the value 1 on the loop around the circle (the loop
crosses it once, mod 2); runs with 8 threads print the one-thread run's cocycles.

    python3 test_rips_cocycles.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import itertools
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_helpers import check, finish, np, topogpu, write  # noqa: E402
import cli_helpers  # noqa: E402

cli_helpers.arguments()
COCYCLE = re.compile(r"^ \[([^,]+),([^)]+)\): (.*)$")


def parse(text):
    """-> ({dim: [(b, d)]}, {dim: [((b, d), [simplex tuples])]})."""
    bars, cocycles, section, dim = {}, {}, None, None
    for line in text.splitlines():
        if line.startswith("persistence intervals in dim "):
            section, dim = "bars", int(line.split()[-1][:-1])
            bars[dim] = []
        elif line.startswith("representative cocycles in dim "):
            section, dim = "cocycles", int(line.split()[-1][:-1])
            cocycles[dim] = []
        elif section == "cocycles":
            m = COCYCLE.match(line)
            check(m is not None, f"cocycle line {line!r}")
            if m:
                simplices = [tuple(int(v) for v in s.split()) for s in m.group(3).split(";")]
                cocycles[dim].append(((float(m.group(1)), float(m.group(2))), simplices))
        elif section == "bars":
            b, d = line.strip()[1:-1].split(",")
            bars[dim].append((float(b), float("inf") if d.strip() == "" else float(d)))
    return bars, cocycles


def diameters(points):
    return np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)).astype(np.float32)


def is_cocycle(d, k, simplices, death):
    """The coboundary of the Z/2 cochain vanishes on every (k+1)-simplex of diameter <
    death (tolerance: the printed death has 6 digits)."""
    chain = set()
    for s in simplices:
        chain ^= {tuple(sorted(s))}
    n = len(d)
    for t in itertools.combinations(range(n), k + 2):
        diameter = max(d[a, b] for a, b in itertools.combinations(t, 2))
        if diameter >= death * (1 - 1e-5):
            continue
        if sum(tuple(f) in chain for f in itertools.combinations(t, k + 1)) % 2:
            return False
    return True


rng = np.random.default_rng(11)
with tempfile.TemporaryDirectory() as tmp:
    # Random clouds: format, unchanged intervals, one cocycle per finite bar, cocycles.
    for trial in range(6):
        n, dim = 9 + trial, 1 + trial % 2
        points = rng.random((n, 2 + trial % 2))
        path = write(tmp, f"cloud{trial}.txt",
                     "\n".join(" ".join(f"{x:.9g}" for x in p) for p in points) + "\n")
        plain = topogpu("rips", "--format", "point-cloud", "--dim", dim, path)
        with_cocycles = topogpu("rips", "--format", "point-cloud", "--dim", dim,
                                "--cocycles", path)
        check(with_cocycles.returncode == 0, f"trial {trial}: {with_cocycles.stderr}")
        check(with_cocycles.stdout.startswith(plain.stdout),
              f"trial {trial}: the intervals come first, unchanged")
        bars, cocycles = parse(with_cocycles.stdout)
        d = diameters(points)
        for k in range(1, dim + 1):
            finite = [b for b in bars[k] if b[1] != float("inf")]
            check([c[0] for c in cocycles.get(k, [])] == finite,
                  f"trial {trial} dim {k}: one cocycle per finite bar, in order")
            for (birth, death), simplices in cocycles.get(k, []):
                check(all(len(s) == k + 1 for s in simplices), f"{k}-simplices")
                check(is_cocycle(d, k, simplices, death),
                      f"trial {trial} dim {k} [{birth},{death}): not a cocycle")
        js = topogpu("rips", "--format", "point-cloud", "--dim", dim, "--cocycles", "--json",
                     path)
        dims = json.loads(js.stdout)["dimensions"]
        for k in range(1, dim + 1):
            listed = [[tuple(s) for s in c["simplices"]] for c in dims[k]["cocycles"]]
            check(listed == [c[1] for c in cocycles.get(k, [])],
                  f"trial {trial} dim {k}: JSON cocycles equal the text ones")

    # A noisy circle in angular order: the long bar's cocycle is 1 on the loop.
    m = 60
    angles = np.sort(rng.uniform(0, 2 * np.pi, m))
    circle = np.c_[np.cos(angles), np.sin(angles)] + rng.normal(0, 0.03, (m, 2))
    path = write(tmp, "circle.txt", "\n".join(f"{x:.9g} {y:.9g}" for x, y in circle) + "\n")
    bars, cocycles = parse(topogpu("rips", "--format", "point-cloud", "--cocycles", path).stdout)
    (birth, death), simplices = max(cocycles[1], key=lambda c: c[0][1] - c[0][0])
    check(death - birth > 1.0, f"circle: long bar [{birth},{death})")
    loop = {tuple(sorted((i, (i + 1) % m))) for i in range(m)}
    crossings = sum(tuple(sorted(s)) in loop for s in simplices)
    check(crossings % 2 == 1, f"circle: the loop crosses the cocycle {crossings} times")
    check(is_cocycle(diameters(circle), 1, simplices, death) if m <= 60 else True,
          "circle: a cocycle")

    # The same cocycles, byte for byte, whatever the threads (500 uniform points, where
    # 8 threads gave different valid cocycles from run to run).
    cloud = write(tmp, "uniform.txt", "\n".join(
        " ".join(f"{x:.9g}" for x in p) for p in rng.uniform(0, 1, (500, 3))) + "\n")
    one = topogpu("rips", "--format", "point-cloud", "--cocycles", "--threads", 1, cloud).stdout
    check("representative cocycles in dim 1:" in one, "uniform cloud: cocycles printed")
    for repeat in range(6):
        out = topogpu("rips", "--format", "point-cloud", "--cocycles", "--threads", 8, cloud)
        check(out.stdout == one, f"8 threads, run {repeat}: the one-thread run's cocycles")
finish()
