#!/usr/bin/env python3
"""style.include_direction: the project's includes run one way, from the front ends down,
as the build's targets link (CMakeLists.txt):

    base  <  triangulation  <  core/common  <  core/<module>  <  cuda
      <  frontend  <  filters, cli, plugin

A file may include what is at its own level or below (tests, examples and benchmarks are
not checked). Between modules, core/<a> and cuda/<a> may include core/<b> or cuda/<b>
only when the module target topogpu_<a> depends on topogpu_<b> (the DEPENDS of
core/<a>/CMakeLists.txt, followed through), so an include never needs a library the
module does not link. Every include against the direction today is listed in
include_direction_known.txt: the test fails on one that is not listed (a new back-edge)
and on a listed one that is gone (take it off the list, so that it cannot come back).

    python3 check_include_direction.py SOURCE_DIR
    python3 check_include_direction.py --self-test   (the rules on a small made-up tree)
"""
import os
import re
import sys
import tempfile

from style_sources import read_known, sources

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def level(path):
    """The layer of a repository path (smaller is lower), None when unchecked."""
    parts = path.split("/")
    top = parts[0]
    if top == "core":
        return 2 if len(parts) > 1 and parts[1] == "common" else 3
    return {"base": 0, "triangulation": 1, "cuda": 4, "frontend": 5, "filters": 6, "cli": 6,
            "plugin": 6}.get(top)


def module_of(path):
    """The core module a core/ or cuda/ path belongs to (None for common and others)."""
    parts = path.split("/")
    if parts[0] in ("core", "cuda") and len(parts) > 2 and parts[1] != "common":
        return parts[1]
    return None


def module_dependencies(root):
    """Module -> the modules its target links, followed through (from topogpu_module's
    DEPENDS in core/<module>/CMakeLists.txt)."""
    direct = {}
    core = os.path.join(root, "core")
    for name in sorted(os.listdir(core)):
        lists = os.path.join(core, name, "CMakeLists.txt")
        if not os.path.exists(lists):
            continue
        text = open(lists).read()
        m = re.search(r"topogpu_module\((.*?)\)", text, re.S)
        deps = re.search(r"DEPENDS\s+([^)]*)", m.group(1)) if m else None
        direct[name] = set(re.findall(r"topogpu_(\w+)", deps.group(1))) if deps else set()
    closed = {}
    for name in direct:
        seen, todo = set(), list(direct[name])
        while todo:
            dep = todo.pop()
            if dep not in seen:
                seen.add(dep)
                todo.extend(direct.get(dep, ()))
        closed[name] = seen
    return closed


def back_edges(root):
    found = set()
    dependencies = module_dependencies(root)
    for path, full in sources(root):
        mine = level(path)
        with open(full, errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue  # the file's own folder (or a front end's include path)
                target = m.group(1)
                theirs = level(target)
                if mine is not None and theirs is not None and theirs > mine:
                    found.add(f"{path} -> {target}")
                a, b = module_of(path), module_of(target)
                if a and b and a != b and b not in dependencies.get(a, ()):
                    found.add(f"{path} -> {target}")
    return found


def self_test():
    """Each rule on a made-up tree: the edges it must find, and only those."""
    files = {
        "core/a/CMakeLists.txt": "topogpu_module(a SOURCES A.cpp DEPENDS topogpu_common)",
        "core/b/CMakeLists.txt": "topogpu_module(b SOURCES B.cpp DEPENDS topogpu_a)",
        "core/a/A.cpp": '#include "base/Types.h"\n#include "core/b/B.h"\n',
        "core/b/B.cpp": '#include "core/a/A.h"\n#include "triangulation/T.h"\n',
        "cuda/a/A.cu": '#include "core/a/A.h"\n#include "cuda/b/B.cuh"\n',
        "triangulation/T.cpp": '#include "base/Types.h"\n#include "core/common/C.h"\n',
        "base/Types.h": '#include "cuda/common/X.h"\n',
        "frontend/F.cpp": '#include "cuda/a/A.h"\n',
    }
    expected = {"core/a/A.cpp -> core/b/B.h", "cuda/a/A.cu -> cuda/b/B.cuh",
                "triangulation/T.cpp -> core/common/C.h", "base/Types.h -> cuda/common/X.h"}
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        found = back_edges(root)
    if found != expected:
        print("self-test FAILED: found", sorted(found), "expected", sorted(expected))
        return 1
    print("self-test: the", len(expected), "made-up back-edges found, nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(sys.argv[1])
    known_path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "include_direction_known.txt")
    known = read_known(known_path)
    found = back_edges(root)
    new, gone = sorted(found - known), sorted(known - found)
    for edge in new:
        print("NEW include against the direction:", edge)
    for edge in gone:
        print("no longer there (take it off include_direction_known.txt):", edge)
    if new or gone:
        return 1
    print(f"include direction: no new back-edge ({len(found)} known ones left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
