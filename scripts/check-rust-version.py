#!/usr/bin/env python3
"""Checks that each manifest's `rust-version` is at least that of every
crate its lock file holds.

For the root crate, fuzz/ and datafusion/ (the workspace, with ballista/),
every registry package in the lock file is looked up in cargo's unpacked
registry sources (`$CARGO_HOME/registry/src`, filled by any build), and
its own `rust-version` compared with the manifest's. The lock file holds the
dependencies of every feature set, so the check covers them all. A package
that has not been unpacked yet (no build has needed it) is listed and
skipped. Run after a build: `python3 scripts/check-rust-version.py`.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (lock file, manifests that must declare a high enough rust-version)
LOCKS = [
    ("Cargo.lock", ["Cargo.toml", "cli/Cargo.toml", "codecs/v58/Cargo.toml",
                    "codecs/v59/Cargo.toml", "codecs/v60/Cargo.toml", "python/Cargo.toml"]),
    ("fuzz/Cargo.lock", ["fuzz/Cargo.toml"]),
    ("datafusion/Cargo.lock", ["datafusion/Cargo.toml", "datafusion/ballista/Cargo.toml"]),
]
PACKAGE = re.compile(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"\nsource = "registry')
RUST_VERSION = re.compile(r'^rust-version\s*=\s*"([^"]+)"', re.M)


def version(text):
    parts = [int(x) for x in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    registries = glob.glob(os.path.join(home, "registry", "src", "*"))
    failed = False
    for lock, manifests in LOCKS:
        needed, unpacked_missing = ((0,), "nothing"), []
        for name, ver in PACKAGE.findall(open(os.path.join(ROOT, lock)).read()):
            paths = [os.path.join(r, f"{name}-{ver}", "Cargo.toml") for r in registries]
            found = [p for p in paths if os.path.exists(p)]
            if not found:
                unpacked_missing.append(f"{name} {ver}")
                continue
            m = RUST_VERSION.search(open(found[0]).read())
            if m and version(m[1]) > needed[0]:
                needed = (version(m[1]), f"{name} {ver}")
        want = ".".join(map(str, needed[0][:2]))
        for manifest in manifests:
            m = RUST_VERSION.search(open(os.path.join(ROOT, manifest)).read())
            have = m[1] if m else None
            ok = have is not None and version(have) >= needed[0]
            failed |= not ok
            print(f"{'ok  ' if ok else 'FAIL'} {manifest}: rust-version {have}, {lock} needs {want} ({needed[1]})")
        if unpacked_missing:
            print(f"     {lock}: {len(unpacked_missing)} packages not unpacked, not checked: "
                  + ", ".join(unpacked_missing[:5]) + (" …" if len(unpacked_missing) > 5 else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
