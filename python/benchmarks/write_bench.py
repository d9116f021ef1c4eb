#!/usr/bin/env python3
"""Writes the same tables with parquet_flba, pyarrow, polars and DuckDB, on one
thread and on all threads, and prints the wall-time table.

Tables (the shapes of the repository's DESIGN.md "Workloads"):
  decimal      Decimal32(9,2), Decimal64(18,6), Decimal128(38,10), Decimal256(76,10), non-null, 1Mi rows
  decimal_n75  Decimal128(38,10) + Decimal256(76,10), nullable, 75% nulls, 1Mi rows
  decimal38    the decimal table without its Decimal256 column (every tool writes every column)
  decimal38_n75  the decimal_n75 table without its Decimal256 column
  uuid         FixedSizeBinary(16) v4 UUIDs, non-null, 1Mi rows
  mixed4       UUID, Decimal128(38,4) 10% nulls, Int64 0..10,000, Utf8 of 5 four-byte symbols; 2Mi rows in 64 batches
  prims        Timestamp(ns, UTC) rising by 0-2 ms, Int64 0..10,000, Int32 0..40, Float64 prices with two
               decimals, Date32 changing every 100,000 rows; 2Mi rows in 64 batches
  strs_low     the Utf8 symbols alone; 2Mi rows in 64 batches
  strs_high    random 8-40 ASCII bytes; 2Mi rows in 64 batches

Every tool writes a file in the same folder (--dir, default /dev/shm) with the
same codec (--compression, default snappy: pyarrow's and parquet_flba's default),
statistics on, row groups of 1Mi rows. polars has no Decimal256 and DuckDB no
DECIMAL(76): they write the columns they can (marked "*"); polars writes
FixedSizeBinary as BYTE_ARRAY; DuckDB gets UUIDs as its UUID type.

"1 thread": parquet_flba threads=1, pyarrow with one CPU thread, POLARS_MAX_THREADS=1,
DuckDB SET threads=1. "all": each tool's default (all cores). Each (tool, threads)
runs in a subprocess of its own, so polars' thread pool is sized before import. Two tables: wall-clock
time, and CPU time of the writing process (all its threads): on a machine shared with other work,
the CPU figures of the one-thread rows are the ones to compare.

Usage: write_bench.py [--reps 5] [--tables a,b] [--tools a,b] [--threads 1,all] [--compression snappy]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROWS = 1 << 20
WHOLE = 1 << 21
BATCHES = 64
TOOLS = ["parquet_flba", "pyarrow", "polars", "duckdb"]
TABLES = ["decimal", "decimal38", "decimal_n75", "decimal38_n75", "uuid", "mixed4", "prims", "strs_low", "strs_high"]


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def make_table(name):
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(42)

    def decimal(typ, n, words, shift, null_density=0.0):
        data = np.frombuffer(rng.bytes(n * 8 * words), dtype=np.int64).reshape(n, words).copy()
        data[:, -1] >>= shift
        validity, nc = None, 0
        if null_density:
            valid = rng.random(n) >= null_density
            validity, nc = pa.py_buffer(np.packbits(valid, bitorder="little")), int(n - valid.sum())
        return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(data)], null_count=nc)

    def small_decimal(typ, n, bound, np_type):
        data = rng.integers(-bound, bound, n, dtype=np_type)
        return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(data)])

    def uuids(n):
        data = np.frombuffer(rng.bytes(n * 16), dtype=np.uint8).reshape(n, 16).copy()
        data[:, 6] = (data[:, 6] & 0x0F) | 0x40
        data[:, 8] = (data[:, 8] & 0x3F) | 0x80
        return pa.Array.from_buffers(pa.binary(16), n, [None, pa.py_buffer(data)])

    def symbols(n):
        return pa.array(np.array(["AAPL", "MSFT", "GOOG", "AMZN", "NVDA"])[rng.integers(0, 5, n)])

    def batched(columns):
        t = pa.table(columns)
        return pa.Table.from_batches(t.to_batches(max_chunksize=WHOLE // BATCHES))

    if name in ("decimal38", "decimal38_n75"):
        # The same columns as the full tables, Decimal256 left out: the
        # tables all four tools write whole.
        full = make_table(name.replace("38", ""))
        return full.drop_columns(["d256"])
    if name == "decimal":
        fields = [pa.field("d32", pa.decimal32(9, 2), False), pa.field("d64", pa.decimal64(18, 6), False),
                  pa.field("d128", pa.decimal128(38, 10), False), pa.field("d256", pa.decimal256(76, 10), False)]
        arrays = [small_decimal(pa.decimal32(9, 2), ROWS, 10**9, np.int32),
                  small_decimal(pa.decimal64(18, 6), ROWS, 10**18, np.int64),
                  decimal(pa.decimal128(38, 10), ROWS, 2, 2), decimal(pa.decimal256(76, 10), ROWS, 4, 3)]
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    if name == "decimal_n75":
        return pa.table({"d128": decimal(pa.decimal128(38, 10), ROWS, 2, 2, 0.75),
                         "d256": decimal(pa.decimal256(76, 10), ROWS, 4, 3, 0.75)})
    if name == "uuid":
        return pa.Table.from_arrays([uuids(ROWS)], schema=pa.schema([pa.field("id", pa.binary(16), False)]))
    if name == "mixed4":
        n = WHOLE
        amount = decimal(pa.decimal128(38, 4), n, 2, 2, 0.10)
        return batched({"id": uuids(n), "amount": amount,
                        "qty": pa.array(rng.integers(0, 10_000, n)), "sym": symbols(n)})
    if name == "prims":
        n = WHOLE
        ts = 1_700_000_000_000_000_000 + np.cumsum(rng.integers(0, 2_000_000, n))
        return batched({
            "ts": pa.array(ts, pa.timestamp("ns", tz="UTC")),
            "qty": pa.array(rng.integers(0, 10_000, n)),
            "venue": pa.array(rng.integers(0, 40, n).astype(np.int32)),
            "price": pa.array(np.round(rng.uniform(1, 1000, n), 2)),
            "day": pa.array((19_000 + np.arange(n) // 100_000).astype(np.int32), pa.date32()),
        })
    if name == "strs_low":
        return batched({"sym": symbols(WHOLE)})
    if name == "strs_high":
        n = WHOLE
        lengths = rng.integers(8, 41, n)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        data = rng.integers(33, 127, int(offsets[-1]), dtype=np.uint8)
        arr = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
        return batched({"s": arr})
    raise ValueError(name)


# ---------------------------------------------------------------------------
# Writers (each returns a function that writes the table to `path`)
# ---------------------------------------------------------------------------

def writer(tool, table, path, threads, compression):
    import pyarrow as pa

    one = threads == "1"
    if tool == "parquet_flba":
        import parquet_flba

        n = 1 if one else None
        return lambda: parquet_flba.write_table(table, path, compression=compression, threads=n), ""
    if tool == "pyarrow":
        import pyarrow.parquet as pq

        if one:
            pa.set_cpu_count(1)
            pa.set_io_thread_count(1)
        return lambda: pq.write_table(table, path, compression=compression), ""
    if tool == "polars":
        import polars as pl

        keep = [f.name for f in table.schema if not pa.types.is_decimal256(f.type)]
        note = "*" if len(keep) < len(table.schema) else ""
        df = pl.from_arrow(table.select(keep))
        return lambda: df.write_parquet(path, compression=compression, statistics=True,
                                        row_group_size=ROWS), note
    if tool == "duckdb":
        import duckdb

        con = duckdb.connect()
        if one:
            con.execute("SET threads=1")
        con.execute("SET preserve_insertion_order=true")
        cols, note = [], ""
        for f in table.schema:
            if pa.types.is_decimal256(f.type):
                note = "*"
                continue
            col = table.column(f.name)
            if pa.types.is_fixed_size_binary(f.type) and f.type.byte_width == 16:
                col = pa.chunked_array([pa.ExtensionArray.from_storage(pa.uuid(), c) for c in col.chunks],
                                       pa.uuid())
            cols.append((f.name, col))
        src = pa.table(dict(cols))  # noqa: F841 (read by the SQL below)
        con.execute("CREATE TABLE t AS SELECT * FROM src")
        sql = f"COPY t TO '{path}' (FORMAT parquet, COMPRESSION {compression}, ROW_GROUP_SIZE {ROWS})"
        return lambda: con.execute(sql), note
    raise ValueError(tool)


def worker(args):
    """Runs one (tool, threads) over the tables; prints JSON lines."""
    for name in args.tables.split(","):
        table = make_table(name)
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            path = os.path.join(tmp, "out.parquet")
            try:
                write, note = writer(args.tool, table, path, args.threads, args.compression)
            except Exception as e:  # a tool that cannot take the table
                print(json.dumps({"table": name, "error": f"{type(e).__name__}: {e}"[:80]}), flush=True)
                continue
            try:
                write()  # warm-up
                times, cpus = [], []
                for _ in range(args.reps):
                    c0, t0 = time.process_time(), time.perf_counter()
                    write()
                    times.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - c0)
                size = os.path.getsize(path)
            except Exception as e:
                print(json.dumps({"table": name, "error": f"{type(e).__name__}: {e}"[:80]}), flush=True)
                continue
        print(json.dumps({"table": name, "min": min(times), "median": statistics.median(times),
                          "max": max(times), "cpu": statistics.median(cpus), "bytes": size, "note": note}),
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tables", default=",".join(TABLES))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--threads", default="1,all")
    ap.add_argument("--compression", default="snappy")
    ap.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tool", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    import importlib.metadata as md

    versions = []
    for tool in args.tools.split(","):
        try:
            versions.append(f"{tool} {md.version(tool.replace('_', '-'))}")
        except md.PackageNotFoundError:
            versions.append(f"{tool} ?")
    print(f"# {', '.join(versions)}; {os.cpu_count()} cores; compression={args.compression}; "
          f"reps={args.reps}; load average {os.getloadavg()[0]:.1f}")
    results = {}
    for threads in args.threads.split(","):
        for tool in args.tools.split(","):
            env = dict(os.environ)
            if threads == "1":
                env["POLARS_MAX_THREADS"] = "1"
            cmd = [sys.executable, __file__, "--worker", "--tool", tool, "--threads", threads,
                   "--tables", args.tables, "--reps", str(args.reps), "--compression", args.compression]
            if args.dir:
                cmd += ["--dir", args.dir]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{tool} ({threads} threads) failed:\n{out.stderr[-2000:]}", file=sys.stderr)
            for line in out.stdout.splitlines():
                row = json.loads(line)
                results[(row["table"], threads, tool)] = row
    tools = args.tools.split(",")
    for metric, title in (("median", "wall-clock ms, median (min-max)"),
                          ("cpu", "CPU ms (all threads of the process), median")):
        print(f"\n{title}\n")
        print("| table | threads | " + " | ".join(tools) + " | parquet_flba vs best other |")
        print("|---|---|" + "---:|" * (len(tools) + 1))
        for name in args.tables.split(","):
            for threads in args.threads.split(","):
                print(table_row(results, name, threads, tools, metric))
    print("\n* wrote only the columns it can (no Decimal256); not counted in the last column.")


def table_row(results, name, threads, tools, metric):
    cells, best_other = [], None
    for tool in tools:
        row = results.get((name, threads, tool))
        if row is None or "error" in row:
            cells.append("n/a")
            continue
        value = row[metric]
        if metric == "median":
            cells.append(f"{value * 1e3:.0f} ({row['min'] * 1e3:.0f}-{row['max'] * 1e3:.0f}){row['note']}")
        else:
            cells.append(f"{value * 1e3:.0f}{row['note']}")
        if tool != "parquet_flba" and not row["note"]:
            best_other = value if best_other is None else min(best_other, value)
    ours = results.get((name, threads, "parquet_flba"))
    ratio = f"{best_other / ours[metric]:.2f}x" if ours and "error" not in ours and best_other else "n/a"
    return f"| {name} | {threads} | " + " | ".join(cells) + f" | {ratio} |"


if __name__ == "__main__":
    main()
