#!/usr/bin/env python3
"""docs.benchmarks_page: writes docs/benchmarks.md again, into a temporary folder, from the
JSON in docs/bench-results, and checks that each section's table has one row per record
of its JSON (counted here from the JSON, not by the generator's code), that no line of
the page is a lone character (a table whose rows went elsewhere), and, where matplotlib
imports as it did for the committed page, that the committed page is the generated one.

    python3 test_benchmarks_doc.py
"""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..")
results = os.path.join(root, "docs", "bench-results")
sys.path.insert(0, here)


def load(name):
    path = os.path.join(results, name)
    return json.load(open(path)) if os.path.exists(path) else None


def sections(text):
    """{heading: [table rows of each table, in order]} for the page's '## ' sections."""
    found, heading, tables, table = {}, None, [], None
    for line in text.split("\n") + [""]:
        if line.startswith("## "):
            if heading:
                found[heading] = tables
            heading, tables, table = line[3:], [], None
        elif line.startswith("|"):
            if table is None:
                table = []
                tables.append(table)
            table.append(line)
        else:
            table = None
    if heading:
        found[heading] = tables
    return found


def rows_of(tables, index=0):
    """Data rows of the index-th table (its header and separator left out)."""
    return len(tables[index]) - 2 if len(tables) > index else -1


def section(found, prefix):
    matches = [h for h in found if h.startswith(prefix)]
    assert len(matches) == 1, (prefix, list(found))
    return found[matches[0]]


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "benchmarks.md")
        subprocess.run([sys.executable, os.path.join(here, "write_benchmarks_doc.py"),
                        os.path.join(results, "critical_points_h200.json"), page,
                        os.path.join(results, "msc_h200.json")],
                       check=True, stdout=subprocess.DEVNULL)
        text = open(page).read()
    found = sections(text)

    def expect(prefix, index, count, what):
        got = rows_of(section(found, prefix), index)
        if got != count:
            failures.append(f"{prefix!r} table {index}: {got} rows, {count} {what} in the JSON")

    cp = load("critical_points_h200.json")
    expect("Critical points", 0, len(cp["rows"]), "volumes")
    expect("Implicit grid vs explicit mesh", 0, len(cp.get("mesh_rows", [])), "mesh rows")
    explicit = load("explicit_critical_points.json")
    if explicit:
        runs = {(r["case"], r["label"]) for r in explicit["rows"]}
        expect("Explicit backend before/after", 0, len(runs), "case/binary runs")
    smooth = load("smooth_h200.json")
    if smooth:
        expect("Scalar field smoother", 0, len(smooth), "volumes")
    gradient = load("discrete_gradient_h200.json")
    if gradient:
        expect("Discrete gradient", 0, len(gradient), "volumes")
    msc = load("msc_h200.json")
    if msc:
        from bench_msc import TTK_REFERENCE
        expect("Morse-Smale complex", 0, len(msc["rows"]) + len(TTK_REFERENCE),
               "inputs and quoted TTK rows")
    simplicial = load("msc_simplicial_h200.json")
    if simplicial:
        expect("Simplicial Morse-Smale complex", 0, len(simplicial["rows"]), "runs")
    geodesic = load("geodesic_h200.json")
    if geodesic:
        expect("Geodesic distance", 0, len(geodesic["rows"]), "runs")
    rips = load("rips_h200.json")
    if rips:
        from bench_rips import REFERENCE
        quoted = sum(len([k for k in ("ripser", "giotto16", "ripserpp")
                          if k in REFERENCE.get(r["name"], {})]) for r in rips["rows"])
        expect("Vietoris-Rips persistence", 0,
               sum(len(r["runs"]) for r in rips["rows"]) + quoted, "runs and quoted rows")
    verify = load("verify_persistence_devbox.json")
    if verify:
        expect("Persistence diagram and simplification on every shared volume", 0,
               len(verify["volumes"]), "volumes")
    gale = load("gale_h200.json")
    if gale:
        expect("GALE vs the explicit backend", 0, len(gale["rows"]), "runs")

    lone = [n for n, line in enumerate(text.split("\n"), 1) if len(line.strip()) == 1]
    if lone:
        failures.append(f"lines holding a lone character: {lone[:10]}")
    try:
        import matplotlib  # noqa: F401  the committed page drew its plots
        committed = open(os.path.join(root, "docs", "benchmarks.md")).read()
        if committed != text:
            failures.append("docs/benchmarks.md is not what write_benchmarks_doc.py writes from "
                            "docs/bench-results: run it again and commit the page")
    except ImportError:
        print("matplotlib missing: the committed page is not compared")

    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print(f"benchmarks page: {len(found)} sections, every table's rows match its JSON")
    return 0


if __name__ == "__main__":
    sys.exit(main())
