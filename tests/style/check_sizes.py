#!/usr/bin/env python3
"""style.sizes: no source file over 800 lines and no function over 150 lines, so that each
file holds one idea a reader can hold against its paper, and each function one step.

Checked: the C++ and CUDA sources (.h .hpp .cpp .cxx .cu .cuh) under core, cuda,
triangulation, frontend, filters, cli and plugin. A file or a function may be longer when
it says why, in a comment starting with `size:` (the reason must follow):

    // size: <reason>       in the file's preamble (before its first line of code other
                            than preprocessor lines) for the file's length;
    // size: <reason>       between the previous definition and the function's opening
                            brace (its comment block or signature) for a function.

Every excess without a reason today is listed in sizes_known.txt (`file PATH` and
`function PATH: NAME`): the test fails on an excess that is not listed and on a listed one
that is now within the limits (take it off, so that it cannot grow back). The list only
shrinks.

A function is found on the brace structure, with comments, string and character literals
(raw strings included) and preprocessor lines blanked first: a brace block opened at
namespace or class level whose head (the text since the previous `;`, `{` or `}`) ends in
a parameter list and qualifiers (`const`, `noexcept`, `override`, `-> type`, a
constructor's initialiser list) or is a lambda bound at namespace level. Its length runs
from the first line of its declaration (a `template <...>` line included) to its closing
brace; lambdas and local classes inside a function count toward that function.

    python3 check_sizes.py SOURCE_DIR [KNOWN_LIST]
    python3 check_sizes.py --self-test
"""
import os
import re
import sys
import tempfile

from style_sources import read_known, sources

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 150
MARKER = re.compile(r"(//|/\*|\*)\s*size:\s*\S")

# What may follow a function's parameter list before its body.
QUALIFIERS = re.compile(
    r"^(\s|const\b|volatile\b|noexcept\b(\s*\([^()]*\))?|override\b|final\b|mutable\b"
    r"|constexpr\b|&&|&|->[^{};]*|__device__|__host__|try\b)*$")
LAMBDA = re.compile(r"\[[^\[\]]*\]\s*(\([^()]*\))?\s*(mutable\b|constexpr\b|noexcept\b|"
                    r"->[^{};=]*|\s)*$")
NAME = re.compile(r"((?:[A-Za-z_]\w*\s*(?:<[^<>]*>)?\s*::\s*)*"
                  r"(?:~?[A-Za-z_]\w*|operator\s*(?:\(\s*\)|[^\s(]+)))\s*$")


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines
    kept, so offsets and line numbers stay those of the source)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text.startswith("//", j):
                    break
                if text.startswith("/*", j):
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            wipe(i, j)
            i = j
            line_start = False
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == '"' or c == "'":
            raw = re.match(r'"([^()\\\s]{0,16})\(', text[i:i + 20]) if c == '"' and i > 0 \
                and text[i - 1] == "R" else None
            if raw:
                delim = ")" + raw.group(1) + '"'
                end = text.find(delim, i + raw.end())
                j = n if end < 0 else end + len(delim)
            elif c == "'" and is_digit_separator(text, i):
                i += 1
                continue
            else:
                j = i + 1
                while j < n and text[j] != c and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
                j = min(j + 1, n)
            wipe(i + 1, j - 1)  # keep the quotes: `extern "C"` stays recognisable
            i = j
        else:
            i += 1
    return "".join(out)


def is_digit_separator(text, i):
    """Whether the quote at i separates digits (1'000'000) rather than opening a char."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.'"):
        j -= 1
    return j < i and text[j].isdigit() and i + 1 < len(text) and text[i + 1].isalnum()


def matching_braces(code):
    """Offset of each `{` -> offset of its `}` (the end of the text when unbalanced)."""
    match, stack = {}, []
    for i, c in enumerate(code):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            match[stack.pop()] = i
    for i in stack:
        match[i] = len(code)
    return match


def strip_templates(head):
    """The head without its `template <...>` prefixes."""
    while True:
        m = re.match(r"\s*template\s*<", head)
        if not m:
            return head
        depth, i = 1, m.end()
        while i < len(head) and depth:
            depth += {"<": 1, ">": -1}.get(head[i], 0)
            i += 1
        head = head[i:]


def last_paren_group(head):
    """(start, end) of the last top-level (...) in the head, None when there is none."""
    depth, end = 0, None
    for i in range(len(head) - 1, -1, -1):
        c = head[i]
        if c == ")":
            if depth == 0:
                end = i
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0 and end is not None:
                return i, end
    return None


def classify(head):
    """'container' (namespace, class), 'function', 'lambda' (bound at namespace level),
    'init' (a constructor's initialiser list, still open), or None (an initialiser, an
    enum, anything else)."""
    h = strip_templates(head).strip()
    if re.match(r'(inline\s+)?namespace\b|extern\s*""', h):
        return "container"
    if re.match(r"(typedef\s+)?enum\b", h):
        return None
    if re.match(r"((typedef|static|inline|constexpr)\s+)*(class|struct|union)\b", h) and \
            not h.endswith(")"):
        return "container"
    top = re.sub(r"==|!=|<=|>=", "", outside_brackets(h))
    if "=" in top and not re.search(r"\boperator\b", h):
        return "lambda" if LAMBDA.search(h[h.rfind("=") + 1:]) else None
    group = last_paren_group(h)
    if group is None:
        return None
    if QUALIFIERS.match(h[group[1] + 1:]):
        return "function"
    if constructor_params(h) is not None:
        return "init"
    return None


def outside_brackets(h):
    """The head's characters outside parentheses and square brackets."""
    out, depth = [], 0
    for c in h:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def constructor_params(h):
    """(start, end) of a constructor's parameter list when the head reads
    `Name(params) [noexcept] : initialisers...`, else None."""
    depth = 0
    for i, c in enumerate(h):
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return (start, i) if re.match(r"\s*(noexcept\b\s*)?:(?!:)", h[i + 1:]) \
                    else None
    return None


def function_name(head):
    h = strip_templates(head)
    ctor = constructor_params(h)
    group = ctor if ctor is not None else last_paren_group(h)
    if group is None:
        return "<lambda>"
    m = NAME.search(h[:group[0]])
    if not m:
        return "<lambda>" if "[" in h[:group[0]] else "<unnamed>"
    return re.sub(r"\s+", "", m.group(1))


def line_of(offsets, pos):
    """1-based line number of an offset (offsets: the offset of each line start)."""
    lo, hi = 0, len(offsets) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if offsets[mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def functions(text):
    """(name, first line, last line, head start, opening brace) of every function
    definition (offsets into the text)."""
    code = blank(text)
    match = matching_braces(code)
    offsets = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    found = []

    def scan(start, end):
        head_start, i = start, start
        while i < end:
            c = code[i]
            if c in ";}":
                head_start = i + 1
            elif c == ":" and re.search(r"\b(public|private|protected)\s*$",
                                        code[head_start:i]):
                head_start = i + 1
            elif c == "{":
                head = code[head_start:i]
                kind = classify(head)
                close = match[i]
                if kind == "init":
                    # a brace initialiser inside the list (`b_{y},` or `b_{y} {`): skip it
                    if code[close + 1:close + 200].lstrip()[:1] in (",", "{"):
                        i = close + 1
                        continue
                    kind = "function"
                if kind == "container":
                    scan(i + 1, close)
                elif kind in ("function", "lambda"):
                    first = head_start + (len(head) - len(head.lstrip()))
                    found.append((function_name(head), line_of(offsets, first),
                                  line_of(offsets, min(close, len(text) - 1)), head_start, i))
                i = close + 1
                head_start = i
                continue
            i += 1

    scan(0, len(code))
    return found


def preamble_end(text):
    """Offset of the first line of code that is not a preprocessor line or a comment."""
    code = blank(text)
    m = re.search(r"\S", code)
    return m.start() if m else len(text)


def has_marker(text, start, end):
    return any(MARKER.search(line) for line in text[start:end].splitlines())


def excesses(path, text):
    """The entries of one file that exceed the limits without a reason."""
    found = []
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    pre = preamble_end(text)
    if lines > MAX_FILE_LINES and not has_marker(text, 0, pre):
        found.append((f"file {path}", f"{lines} lines"))
    for name, first, last, head_start, brace in functions(text):
        length = last - first + 1
        if length > MAX_FUNCTION_LINES and not has_marker(text, max(head_start, pre), brace):
            found.append((f"function {path}: {name}", f"{length} lines from line {first}"))
    return found


def check(root, known_path):
    found = {}
    for path, full in sources(root):
        with open(full, errors="replace") as f:
            text = f.read()
        for key, what in excesses(path, text):
            found.setdefault(key, []).append(what)
    known = read_known(known_path)
    new, gone = sorted(set(found) - known), sorted(known - set(found))
    for key in new:
        print(f"TOO LONG ({', '.join(found[key])}): {key}  (split it, or say why in a "
              f"'// size: <reason>' comment)")
    for key in gone:
        print("within the limits now (take it off sizes_known.txt):", key)
    if new or gone:
        return 1
    print(f"sizes: nothing new over {MAX_FILE_LINES} lines a file or {MAX_FUNCTION_LINES} "
          f"a function ({len(found)} known ones left)")
    return 0


def self_test():
    """Probes: each case a small tree checked against an empty (or given) known list."""

    def body(n, inner=""):
        # a function of exactly n lines (signature and closing brace included)
        return ("int probe(int x) {\n" + inner + "  x += 1;\n" * (n - 2 - inner.count("\n"))
                + "}\n")

    lambda_inner = "  auto f = [&](int y) {\n    return y + 1;\n  };\n"
    tricky_inner = ('  const char* s = "}}}{";\n  char c = \'}\';\n  // }\n  /* { */\n'
                    '  const char* r = R"x(})x";\n')
    ctor = ("struct Probe {\n  Probe(int a) : a_{a}, b_(a) {\n" + "    a_ += 1;\n" * 160 +
            "  }\n  int a_, b_;\n};\n")
    cases = [
        ("151-line function", "core/probe/Probe.cpp", "namespace t {\n" + body(151) + "}\n",
         "", 1),
        ("150-line function", "core/probe/Probe.cpp", "namespace t {\n" + body(150) + "}\n",
         "", 0),
        ("151 lines with a lambda inside", "cuda/probe/Probe.cu",
         body(151, lambda_inner), "", 1),
        ("braces in literals and comments", "cli/Probe.cpp", body(151, tricky_inner), "", 1),
        ("braces in literals, within the limit", "cli/Probe.cpp", body(150, tricky_inner),
         "", 0),
        ("a reason given", "filters/probe/Probe.cxx",
         "namespace t {\n// size: one table, read top to bottom\n" + body(151) + "}\n", "",
         0),
        ("a marker without a reason", "filters/probe/Probe.cxx",
         "// size:\n" + body(151), "", 1),
        ("template member in a class", "core/probe/Probe.h",
         "namespace t {\ntemplate <class T>\nclass C {\n public:\n  template <typename U>\n"
         "  U get() const {\n" + "    U u{};\n" * 150 + "    return u;\n  }\n};\n}\n", "",
         1),
        ("constructor with brace initialisers", "core/probe/Probe.h", ctor, "", 1),
        ("801-line file", "triangulation/Probe.h", "int x;\n" * 801, "", 1),
        ("801-line file with a reason", "triangulation/Probe.h",
         "// size: generated table\n#pragma once\n" + "int x;\n" * 799, "", 0),
        ("known excess", "core/probe/Probe.cpp", body(151),
         "function core/probe/Probe.cpp: probe\n", 0),
        ("known entry now within limits", "core/probe/Probe.cpp", body(150),
         "function core/probe/Probe.cpp: probe\n", 1),
        ("tests are not checked", "tests/Probe.cpp", body(400), "", 0),
    ]
    failed = 0
    for title, path, text, known, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
            known_path = os.path.join(root, "known.txt")
            with open(known_path, "w") as f:
                f.write(known)
            with open(os.devnull, "w") as null:
                saved, sys.stdout = sys.stdout, null
                try:
                    rc = check(root, known_path)
                finally:
                    sys.stdout = saved
        ok = rc == expected
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {title}: exit {rc}, expected {expected}")
    if failed:
        return 1
    print("sizes self-test passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(sys.argv[1])
    known = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "sizes_known.txt")
    return check(root, known)


if __name__ == "__main__":
    sys.exit(main())
