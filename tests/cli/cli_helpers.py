"""What the CLI tests share: running `topogpu` (time and memory capped), the pass/fail
tally, the bad-input contract, and writing and reading the files the cases feed it.

A test script starts with `TOPOGPU, DATA = cli_helpers.arguments()` and ends with
`cli_helpers.finish()`. Needs numpy; without it the importing test exits 77 (skipped).
"""
import ctypes
import json
import os
import re
import resource
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not available to this python")
    sys.exit(77)

# The oracles (cp_oracle.py, smoother_oracle.py) live with the pvpython tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pvpython"))

# What the C++ runtime says when an exception escapes untranslated.
RAW_EXCEPTION_TEXT = re.compile(
    r"stoi|stol|stod|std::|bad_alloc|vector::|basic_string|max_size\(\)|terminate called|"
    r"what\(\)|Segmentation|Aborted|core dumped")

TOPOGPU = None
failures = []
passed = 0


def arguments():
    """TOPOGPU_BINARY SHARED_DATA_DIR from the command line."""
    global TOPOGPU
    if len(sys.argv) != 3:
        raise SystemExit("usage: %s TOPOGPU_BINARY SHARED_DATA_DIR" % sys.argv[0])
    TOPOGPU = sys.argv[1]
    return sys.argv[1], sys.argv[2]


def check(condition, message):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(message)
        print("FAIL:", message, flush=True)


def finish():
    print(f"{passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


def memory_cap(limit):
    # A corrupt header must not be able to take the machine's memory: with this cap an
    # attempt to allocate it fails (and must be reported as an error, not a crash).
    # RLIMIT_DATA (heap and private writable mappings), not RLIMIT_AS: the CUDA libraries
    # the binary links (cuSPARSE pulls in libnvJitLink) map hundreds of MB of address
    # space at load time, which would fail the load itself under a small AS cap.
    return lambda: resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def topogpu(*args, timeout=60, memory=3 << 30):
    """Runs the CLI; a hang comes back as returncode "timeout" (so checks fail, not raise).
    memory=None leaves the address space uncapped (real volumes on the GPU)."""
    try:
        return subprocess.run([TOPOGPU, *map(str, args)], capture_output=True, text=True,
                              errors="replace", timeout=timeout,
                              preexec_fn=memory_cap(memory) if memory else None)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, "timeout", "", "timeout")


def opens_during(path, *args, timeout=120):
    """Runs the CLI and counts how many times it (or a child) opened `path`, by Linux's
    inotify (IN_OPEN on the file): (result, count), count None where inotify is missing."""
    libc = ctypes.CDLL(None, use_errno=True)
    # closes watched too: inotify merges an event into an identical one still queued,
    # so only opens separated by a close are told apart
    in_open, in_close, in_nonblock = 0x20, 0x08 | 0x10, 0x800
    fd = libc.inotify_init1(in_nonblock) if hasattr(libc, "inotify_init1") else -1
    if fd < 0 or libc.inotify_add_watch(fd, os.fsencode(path), in_open | in_close) < 0:
        return topogpu(*args, timeout=timeout, memory=None), None
    try:
        result = topogpu(*args, timeout=timeout, memory=None)
        events = b""
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            events += chunk
        count, at = 0, 0
        while at + 16 <= len(events):
            _, mask, _, length = struct.unpack_from("iIII", events, at)
            count += bool(mask & in_open)
            at += 16 + length
        return result, count
    finally:
        os.close(fd)


def expect_error(label, args, needle=None, allow_success=False, memory=3 << 30):
    """The CLI must exit 1 with a message on stderr (and with --json a JSON "error"), the
    needle in both when given; or exit 0 when allowed (a corrupted byte can leave a valid
    file); never a signal, a hang or raw exception text."""
    result = topogpu(*args, memory=memory)
    rc, err = result.returncode, result.stderr
    if allow_success and rc == 0:
        check(True, label)
        return result
    ok = rc == 1 and err.strip() != "" and not RAW_EXCEPTION_TEXT.search(err)
    if ok and "--json" in args:
        try:
            error = json.loads(result.stdout).get("error")
            ok = isinstance(error, str) and error != "" and (needle is None or needle in error)
        except ValueError:
            ok = False
    if ok and needle is not None:
        ok = needle in err
    check(ok, f"{label}: rc {rc}, stderr {err[-300:]!r}, stdout {result.stdout[-200:]!r}"
              + (f" (wanted {needle!r})" if needle else ""))
    return result


def write(tmp, name, content):
    path = os.path.join(tmp, name)
    with open(path, "wb" if isinstance(content, bytes) else "w") as f:
        f.write(content)
    return path


def raw_case(tmp, name, values, dtype):
    """Writes values as a raw volume of dtype (native little-endian) tmp/name.raw."""
    path = os.path.join(tmp, name + ".raw")
    np.asarray(values, dtype=dtype).tofile(path)
    return path


def read_off(path):
    """Vertex coordinates and triangles of an OFF file, parsed here, not by the CLI."""
    with open(path) as f:
        tokens = [t for line in f for t in line.split("#")[0].split()]
    nv, nf = int(tokens[1]), int(tokens[2])
    coords = np.array(tokens[4:4 + 3 * nv], dtype=float).reshape(nv, 3)
    faces = np.array(tokens[4 + 3 * nv:4 + 3 * nv + 4 * nf], dtype=np.int64).reshape(nf, 4)[:, 1:]
    return coords, faces
