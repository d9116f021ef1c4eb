#!/usr/bin/env python3
"""Rebuild the README's performance table from criterion's output.

After `cargo bench --bench write` (or a filtered run), criterion leaves, for
every benchmark function, `<criterion dir>/<group>/<function>/new/`, with
`benchmark.json` (the group and function names) and `sample.json` (the
samples: iteration counts and total nanoseconds per sample). This script reads
them and prints one markdown row per group that has both writers:

    | group | parquet ms (min / median / max) | parquet-flba ms (min / median / max) |
      speedup (median) | speedup range (worst / best) |

* min / median / max are over the samples, of the time per iteration (one
  whole file), in milliseconds;
* speedup (median) = parquet's median / parquet-flba's median;
* worst = parquet's min / parquet-flba's max, best = parquet's max /
  parquet-flba's min;
* a group with a `memcpy` function (the `plain_nostats` groups) also gets
  "(memcpy M ms; flba/memcpy R x)", from the medians.

Groups come in the order of the workloads and configurations of
benches/workloads/mod.rs (others after them, alphabetically).

Usage (from the crate root):

    cargo bench --bench write
    python3 benches/perf_table.py                 # reads target/criterion
    python3 benches/perf_table.py --criterion-dir /path/to/target/criterion
    python3 benches/perf_table.py --baseline base # criterion's saved baseline

`CARGO_TARGET_DIR`, if set, is used for the default directory. Only the
standard library is needed.
"""

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

# Report order: benches/workloads/mod.rs's WORKLOADS and CONFIG_NAMES.
WORKLOADS = [
    "decimal",
    "decimal_nullable",
    "decimal_nonnull",
    "fsb",
    "uuid",
    "decimal128_lowcard",
    "float16",
    "setup",
]
CONFIGS = [
    "default",
    "bloom_filter",
    "parquet_2",
    "zstd",
    "zstd_parquet_2",
    "cdc",
    "plain_nostats",
]

PARQUET = "parquet"
FLBA = "parquet-flba"
MEMCPY = "memcpy"


def per_iteration_ms(sample_path):
    """Per-iteration times in ms of one function's samples."""
    with open(sample_path) as f:
        sample = json.load(f)
    iters = sample["iters"]
    times = sample["times"]
    if not iters or len(iters) != len(times):
        raise ValueError(f"{sample_path}: malformed sample")
    return [t / i / 1e6 for t, i in zip(times, iters) if i > 0]


def collect(criterion_dir, baseline):
    """{group: {function: [ms per iteration, ...]}} for every benchmark."""
    groups = {}
    for bench in sorted(criterion_dir.glob(f"**/{baseline}/benchmark.json")):
        with open(bench) as f:
            meta = json.load(f)
        group = meta.get("group_id")
        function = meta.get("function_id")
        if group is None or function is None:
            continue
        sample = bench.parent / "sample.json"
        if not sample.exists():
            continue
        groups.setdefault(group, {})[function] = per_iteration_ms(sample)
    return groups


def order_key(group):
    workload, _, config = group.partition("/")
    w = WORKLOADS.index(workload) if workload in WORKLOADS else len(WORKLOADS)
    c = CONFIGS.index(config) if config in CONFIGS else len(CONFIGS)
    return (w, c, group)


def ms(v):
    return f"{v:.2f}" if v < 1 else f"{v:.1f}"


def spread(samples):
    return min(samples), statistics.median(samples), max(samples)


def row(group, functions):
    p_min, p_med, p_max = spread(functions[PARQUET])
    f_min, f_med, f_max = spread(functions[FLBA])
    best_worst = f"{p_min / f_max:.2f}x / {p_max / f_min:.2f}x"
    if MEMCPY in functions:
        m_med = statistics.median(functions[MEMCPY])
        best_worst += f" (memcpy {ms(m_med)} ms; flba/memcpy {f_med / m_med:.1f}x)"
    return (
        f"| {group} | {ms(p_min)} / {ms(p_med)} / {ms(p_max)} "
        f"| {ms(f_min)} / {ms(f_med)} / {ms(f_max)} "
        f"| {p_med / f_med:.2f}x | {best_worst} |"
    )


def main():
    target = Path(os.environ.get("CARGO_TARGET_DIR", "target"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--criterion-dir",
        type=Path,
        default=target / "criterion",
        help="criterion's output directory (default: $CARGO_TARGET_DIR/criterion or target/criterion)",
    )
    parser.add_argument(
        "--baseline",
        default="new",
        help="which of criterion's results to read: 'new' (the last run) or a saved baseline",
    )
    args = parser.parse_args()
    if not args.criterion_dir.is_dir():
        sys.exit(f"{args.criterion_dir}: no criterion output (run `cargo bench --bench write` first)")
    groups = collect(args.criterion_dir, args.baseline)
    rows = [
        row(g, fns)
        for g, fns in sorted(groups.items(), key=lambda kv: order_key(kv[0]))
        if PARQUET in fns and FLBA in fns
    ]
    if not rows:
        sys.exit(f"{args.criterion_dir}: no group with both '{PARQUET}' and '{FLBA}' results")
    print(
        "| group | parquet ms (min / median / max) | parquet-flba ms (min / median / max) "
        "| speedup (median) | speedup range (worst / best) |"
    )
    print("|---|---|---|---:|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
