#!/usr/bin/env python3
"""style.include_direction: the project's includes run one way, from the front ends down:

    core/common (the base, to be split out)  <  triangulation  <  core/<module>
      <  cuda  <  frontend  <  filters, cli, plugin

A file may include what is at its own level or below (a core module may include another
core module; tests, examples and benchmarks are not checked). Every include against the
direction today is listed in include_direction_known.txt: the test fails on one that is
not listed (a new back-edge) and on a listed one that is gone (take it off the list, so
that it cannot come back). The list only shrinks, until the layer targets replace it.

    python3 check_include_direction.py SOURCE_DIR
"""
import os
import re
import sys

from style_sources import read_known, sources

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def level(path):
    """The layer of a repository path (smaller is lower), None when unchecked."""
    parts = path.split("/")
    top = parts[0]
    if top == "core":
        return 0 if len(parts) > 1 and parts[1] == "common" else 2
    return {"triangulation": 1, "cuda": 3, "frontend": 4, "filters": 5, "cli": 5,
            "plugin": 5}.get(top)


def back_edges(root):
    found = set()
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
    return found


def main():
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
