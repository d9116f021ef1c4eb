#!/usr/bin/env python3
"""Checks the relative links of the repository's Markdown pages.

Every `[text](target)` outside code blocks in README.md, docs/*.md and
fuzz/README.md must name a file or folder of the repository (and, for
`page.md#anchor`, a heading of that page). README.md must not link outside
the repository at all, and stays within 10 KiB (it is the front page; the
rest belongs in docs/). Run from anywhere: `python3 scripts/check-links.py`.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def headings(path):
    """GitHub-style anchors of a page's headings."""
    text = FENCE.sub("", open(path, encoding="utf-8").read())
    out = set()
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def main():
    os.chdir(ROOT)
    pages = ["README.md", *sorted(glob.glob("docs/*.md")), "fuzz/README.md"]
    problems, count = [], 0
    for page in pages:
        text = FENCE.sub("", open(page, encoding="utf-8").read())
        for target in LINK.findall(text):
            count += 1
            if re.match(r"[a-z]+:", target):
                if page == "README.md":
                    problems.append(f"{page}: links outside the repository: {target}")
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                problems.append(f"{page}: no such file: {target}")
            elif anchor and resolved.endswith(".md") and anchor not in headings(resolved):
                problems.append(f"{page}: no such heading: {target}")
    size = os.path.getsize("README.md")
    if size > 10 * 1024:
        problems.append(f"README.md: {size} bytes, over the front page's 10 KiB")
    for p in problems:
        print(p)
    print(f"{count} links in {len(pages)} pages, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
