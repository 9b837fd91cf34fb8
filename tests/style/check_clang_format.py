#!/usr/bin/env python3
"""style.clang_format: every C++ and CUDA source of the project (the .clang-format at the
root) is as clang-format writes it: clang-format --dry-run --Werror on each, the files
that would change and the first lines that would change printed.

    python3 check_clang_format.py SOURCE_DIR [CLANG_FORMAT]
"""
import os
import subprocess
import sys

from style_sources import FOLDERS as CODE_FOLDERS
from style_sources import sources

# The code's folders and the tests' and examples' sources as well.
FOLDERS = CODE_FOLDERS + ("tests", "examples")


def main():
    root = os.path.abspath(sys.argv[1])
    tool = sys.argv[2] if len(sys.argv) > 2 else "clang-format"
    files = [full for _, full in sources(root, FOLDERS)]
    bad = []
    for start in range(0, len(files), 50):
        batch = files[start:start + 50]
        r = subprocess.run([tool, "--dry-run", "--Werror", *batch], cwd=root,
                           capture_output=True, text=True)
        if r.returncode != 0:
            for line in r.stderr.splitlines():
                if ": error: code should be clang-formatted" in line:
                    bad.append(line.split(":")[0])
            print(r.stderr[:3000])
    if bad:
        print(f"{len(set(bad))} of {len(files)} files are not clang-format clean "
              f"(run clang-format -i on them): " + ", ".join(sorted(set(bad))))
        return 1
    print(f"clang-format clean: {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
