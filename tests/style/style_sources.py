"""What the style checks share: the project's C++ and CUDA sources, and the lists of
known exceptions that only shrink (include_direction_known.txt, sizes_known.txt)."""
import os

FOLDERS = ("base", "core", "cuda", "triangulation", "frontend", "filters", "cli", "plugin")
SUFFIXES = (".h", ".hpp", ".cpp", ".cxx", ".cu", ".cuh")


def sources(root, folders=FOLDERS, suffixes=SUFFIXES):
    """(repository path, file path) of each source under the folders, in sorted order
    (build folders and hidden ones left out)."""
    for folder in folders:
        for here, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")))
            for name in sorted(files):
                if name.endswith(suffixes):
                    full = os.path.join(here, name)
                    yield os.path.relpath(full, root).replace(os.sep, "/"), full


def read_known(path):
    """The entries of a known list (one a line; blank lines and # comments skipped)."""
    if not path or not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}
