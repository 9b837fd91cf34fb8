"""Runs every ```python block of README.md and docs/**/*.md in pvpython, as written.

Usage: python3 doc_snippets_test.py PVPYTHON PLUGIN_DIR REPO_ROOT
Each block runs in its own pvpython from the repository root with PV_PLUGIN_PATH set to
the plugin's folder (what the docs tell users to do); a block fails on a non-zero exit or
a Python traceback.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

PVPYTHON, PLUGIN_DIR, ROOT = sys.argv[1:4]
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)

pages = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
env = dict(os.environ, PV_PLUGIN_PATH=PLUGIN_DIR)
count, failures = 0, []
for page in pages:
    with open(page, encoding="utf-8") as f:
        text = f.read()
    for number, match in enumerate(BLOCK.finditer(text), start=1):
        count += 1
        label = "%s block %d (line %d)" % (os.path.relpath(page, ROOT), number,
                                           text.count("\n", 0, match.start()) + 1)
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
            script.write(match.group(1))
        try:
            run = subprocess.run([PVPYTHON, script.name], cwd=ROOT, env=env, timeout=120,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        finally:
            os.unlink(script.name)
        output = run.stdout
        ok = run.returncode == 0 and "Traceback" not in output
        print("%s: %s" % (label, "ran" if ok else "FAILED (exit %d)" % run.returncode))
        if not ok:
            failures.append(label)
            print(output[-3000:])
assert count > 0, "no python blocks found"
assert not failures, "snippets that do not run as written: %s" % failures
print("doc_snippets: %d python blocks ran as written" % count)
