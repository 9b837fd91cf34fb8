#!/usr/bin/env python3
"""clang-tidy on the project's C++ sources (.cpp and .cxx of core, cuda, triangulation,
frontend, filters, cli and plugin), with the repository's .clang-tidy and the build's
compile_commands.json. The .cu files are left out (nvcc's flags are not clang's).

    scripts/clang_tidy.py [--all | BASE] [--build DIR] [--jobs N]

By default it checks the sources changed since BASE (default HEAD~1; the working tree,
so edits not yet committed count), so a commit is checked on what it touched; --all
checks every source. The project's headers
are checked through the sources that include them (.clang-tidy's HeaderFilterRegex).
Every finding is printed; the run fails when clang-tidy reports an error: a finding of a
check that .clang-tidy's WarningsAsErrors promotes, or a source that does not compile.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

FOLDERS = ("core", "cuda", "triangulation", "frontend", "filters", "cli", "plugin")
SUFFIXES = (".cpp", ".cxx")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def project_path(path):
    """The source's path in the repository when it is one clang-tidy checks, else None."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(ROOT)).replace(os.sep, "/")
    if rel.startswith("..") or not rel.endswith(SUFFIXES):
        return None
    return rel if rel.split("/")[0] in FOLDERS else None


def compiled_sources(build):
    database = os.path.join(build, "compile_commands.json")
    if not os.path.exists(database):
        sys.exit(f"clang_tidy: {database} is missing (configure the build first: "
                 "scripts/build.sh; CMAKE_EXPORT_COMPILE_COMMANDS is on)")
    sources = set()
    for entry in json.load(open(database)):
        path = entry["file"]
        if not os.path.isabs(path):
            path = os.path.join(entry["directory"], path)
        rel = project_path(path)
        if rel:
            sources.add(rel)
    return sources


def changed_sources(base):
    # The working tree against the base: in CI the tree is HEAD; at a desk, the edits
    # not yet committed count too.
    r = subprocess.run(["git", "diff", "--name-only", "--diff-filter=ACMR", base],
                       cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"clang_tidy: git diff {base} failed: {r.stderr.strip()}")
    return {line for line in r.stdout.split() if line}


def tidy(tool, build, rel):
    start = time.monotonic()
    r = subprocess.run([tool, "-p", build, "--quiet", os.path.join(ROOT, rel)], cwd=ROOT,
                       capture_output=True, text=True)
    return rel, r.returncode, r.stdout, r.stderr, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", default="HEAD~1",
                        help="check the sources changed since this commit (default HEAD~1)")
    parser.add_argument("--all", action="store_true", help="check every source")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the build folder with compile_commands.json (default build)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--clang-tidy", default=shutil.which("clang-tidy") or "clang-tidy")
    args = parser.parse_args()
    if shutil.which(args.clang_tidy) is None:
        sys.exit(f"clang_tidy: {args.clang_tidy} not found (Debian: apt-get install "
                 "clang-tidy; scripts/setup.sh installs it)")

    sources = compiled_sources(args.build)
    if not args.all:
        changed = changed_sources(args.base)
        sources = {s for s in sources if s in changed}
        print(f"clang_tidy: {len(sources)} changed source(s) since {args.base}")
    else:
        print(f"clang_tidy: all {len(sources)} sources")
    failed, warned = [], 0
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for rel, rc, out, err, seconds in pool.map(
                lambda s: tidy(args.clang_tidy, args.build, s), sorted(sources)):
            findings = [line for line in out.splitlines() if ": warning: " in line or
                        ": error: " in line]
            warned += len(findings)
            if out.strip() or rc != 0:
                print(f"--- {rel} ({seconds:.0f} s)")
                print(out.rstrip())
                if rc != 0:
                    print(err.rstrip())
                    failed.append(rel)
    print(f"clang_tidy: {len(sources)} source(s) in {time.monotonic() - start:.0f} s, "
          f"{warned} finding(s), {len(failed)} failing")
    if failed:
        print("clang_tidy: errors in " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
