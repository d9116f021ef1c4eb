#!/usr/bin/env python3
"""Prints the unified diff between two parquet releases of exactly the files
parquet-flba mirrors (scripts/mirrored-files.txt).

    scripts/release-diff.py 59.2.0 59.3.3 > /tmp/59.2-59.3.3.diff

Both sources are fetched through cargo: `cargo info parquet@VERSION` downloads
the published .crate into cargo's cache and unpacks it into
$CARGO_HOME/registry/src (it resolves nothing, so it also works for a release
whose optional dependencies were never published, such as 59.3.3). A source
already there is used as is; --src DIR looks in DIR/parquet-VERSION first.

Each file's `#[cfg(test)] mod tests { ... }` blocks are left out (unless
--with-tests), so the diff is the behaviour only. A summary goes to stderr:
which mirrored files changed, appeared or disappeared, the diff's size, and
how many other files under src/ changed (not mirrored: readers, bins, ...).
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIST = HERE / "mirrored-files.txt"


def cargo_home() -> Path:
    return Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))


def find_source(version: str, extra: list) -> Path | None:
    for d in extra:
        p = Path(d) / f"parquet-{version}"
        if (p / "src" / "lib.rs").is_file():
            return p
    for p in glob.glob(str(cargo_home() / "registry" / "src" / "*" / f"parquet-{version}")):
        if (Path(p) / "src" / "lib.rs").is_file():
            return Path(p)
    return None


def fetch(version: str, extra: list, scratch: Path) -> Path:
    found = find_source(version, extra)
    if found:
        return found
    # Run outside any workspace, so cargo looks at crates.io only.
    subprocess.run(
        ["cargo", "info", "--quiet", f"parquet@{version}"],
        cwd=tempfile.gettempdir(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    found = find_source(version, extra)
    if found:
        return found
    # Older cargo: only the .crate was downloaded; unpack it ourselves.
    crates = glob.glob(str(cargo_home() / "registry" / "cache" / "*" / f"parquet-{version}.crate"))
    if not crates:
        sys.exit(f"release-diff: cargo did not fetch parquet {version}")
    with tarfile.open(crates[0]) as t:
        t.extractall(scratch, filter="data")
    return scratch / f"parquet-{version}"


def mirrored(roots: list) -> list:
    """The list's entries expanded against both sources (sorted, unique)."""
    out = set()
    for raw in LIST.read_text().splitlines():
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        if entry.endswith("/"):
            for root in roots:
                base = root / "src" / entry
                for p in base.rglob("*.rs"):
                    out.add(str(p.relative_to(root / "src")))
        else:
            out.add(entry)
    return sorted(out)


# `#[cfg(test)]` or `#[cfg(all(..., test, ...))]`: compiled for tests only.
TEST_START = re.compile(r"^#\[cfg\((test|all\(.*\btest\b.*\))\)\]\s*$")
MOD_LINE = re.compile(r"^(pub(\([^)]*\))? )?mod \w+ \{\s*$")


def strip_tests(lines: list) -> list:
    """Drops top-level test-only modules (`#[cfg(test)] mod x { ... }`;
    rustfmt layout: the block closes with the first `}` in column 0)."""
    out, i = [], 0
    while i < len(lines):
        if TEST_START.match(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j].startswith("#["):
                j += 1
            if j < len(lines) and MOD_LINE.match(lines[j]):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                i = k + 1
                continue
        out.append(lines[i])
        i += 1
    return out


def read(root: Path, rel: str, with_tests: bool) -> list | None:
    p = root / "src" / rel
    if not p.is_file():
        return None
    lines = p.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    return lines if with_tests else strip_tests(lines)


def unified(a: list, b: list, la: str, lb: str, context: int) -> list:
    if shutil.which("diff"):
        with tempfile.TemporaryDirectory() as d:
            pa, pb = Path(d) / "a", Path(d) / "b"
            pa.write_text("".join(a))
            pb.write_text("".join(b))
            r = subprocess.run(
                ["diff", f"-U{context}", "--label", la, "--label", lb, str(pa), str(pb)],
                capture_output=True,
                text=True,
            )
            return r.stdout.splitlines(keepends=True)
    import difflib

    return list(difflib.unified_diff(a, b, la, lb, n=context))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="parquet release, e.g. 59.2.0")
    ap.add_argument("new", help="parquet release, e.g. 59.3.3")
    ap.add_argument("--src", action="append", default=[], help="folder holding parquet-VERSION/ sources")
    ap.add_argument("--with-tests", action="store_true", help="keep #[cfg(test)] modules")
    ap.add_argument("-U", "--context", type=int, default=3, help="lines of context (3)")
    ap.add_argument("--list", action="store_true", help="print the mirrored files and stop")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        old = fetch(args.old, args.src, Path(scratch))
        new = fetch(args.new, args.src, Path(scratch))
        files = mirrored([old, new])
        if args.list:
            print("\n".join(files))
            return
        changed, added, removed, same, size = [], [], [], 0, 0
        for rel in files:
            a = read(old, rel, args.with_tests)
            b = read(new, rel, args.with_tests)
            if a is None and b is None:
                continue
            if a is None:
                added.append(rel)
            elif b is None:
                removed.append(rel)
            la = f"parquet-{args.old}/src/{rel}" if a is not None else "/dev/null"
            lb = f"parquet-{args.new}/src/{rel}" if b is not None else "/dev/null"
            d = unified(a or [], b or [], la, lb, args.context)
            if not d:
                same += 1
                continue
            if a is not None and b is not None:
                changed.append(rel)
            sys.stdout.writelines(d)
            size += len(d)

        mirrored_set = set(files)
        others = 0
        for root, other in ((old, new), (new, old)):
            for p in (root / "src").rglob("*.rs"):
                rel = str(p.relative_to(root / "src"))
                if rel in mirrored_set:
                    continue
                q = other / "src" / rel
                if root is new and q.is_file():
                    continue  # counted from the old side
                if not q.is_file() or q.read_bytes() != p.read_bytes():
                    others += 1
        w = sys.stderr.write
        w(f"release-diff: parquet {args.old} -> {args.new}, {len(files)} mirrored files\n")
        w(f"  unchanged: {same}\n")
        for title, group in (("changed", changed), ("new", added), ("gone", removed)):
            w(f"  {title}: {len(group)}{'' if not group else ': ' + ', '.join(group)}\n")
        w(f"  diff: {size} lines{'' if args.with_tests else ' (test modules left out)'}\n")
        w(f"  other files under src/ that differ (not mirrored): {others}\n")


if __name__ == "__main__":
    main()
