"""README.md and docs/**/*.md point only inside the repository: every relative markdown
link resolves to a file or folder of the repository, and no text names a file outside it
other than the test data and seed papers the tests read (../shared/data, ../shared/seeds,
which the pages present as such).

Usage: python3 doc_links_test.py REPO_ROOT
"""
import glob
import os
import re
import sys

ROOT = os.path.realpath(sys.argv[1])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\.\./shared/(?!data\b|seeds\b)[\w./-]*")

pages = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
failures = []
links = 0
for page in pages:
    with open(page, encoding="utf-8") as f:
        text = f.read()
    where = os.path.relpath(page, ROOT)
    for match in LINK.finditer(text):
        target = match.group(1).split("#")[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue  # an anchor on the same page, or a URL
        links += 1
        path = os.path.realpath(os.path.join(os.path.dirname(page), target))
        if not (path == ROOT or path.startswith(ROOT + os.sep)) or not os.path.exists(path):
            failures.append("%s: link %s does not resolve inside the repository" % (where, target))
    for match in OUTSIDE.finditer(text):
        failures.append("%s: names %s, outside the repository" % (where, match.group(0)))
for failure in failures:
    print("FAIL:", failure)
assert not failures, "%d links or paths point outside the repository" % len(failures)
print("doc_links: %d relative links in %d pages resolve inside the repository" % (links, len(pages)))
