#!/usr/bin/env python3
"""DuckDB on the tables of examples/scaling.rs, on 1, 2, 4, 8, 16 threads.

`SET threads=N; COPY t TO '/dev/shm/...' (FORMAT parquet, ROW_GROUP_SIZE 1048576, ...)`,
wall time of the COPY alone (the table is loaded into DuckDB first), min / median / max over
--rounds rounds, each round running every thread count once in a rotating order.

The tables mirror examples/scaling.rs (2,097,152 rows = two row groups; types, nullability and
null fractions as there; values uniformly random within each precision, from numpy):

| table | columns | what DuckDB writes |
|---|---|---|
| wide16 | 6 x Decimal128(38,10) 10% nulls, 4 x UUID, 4 x Decimal128(18,4), 2 x Decimal256(76,10) | the first 14 (DuckDB has no DECIMAL(76)) |
| mixed4 | UUID, Decimal128(38,10) 10% nulls, Int64, Utf8 | all 4 |
| decimal_nonnull | Decimal128(38,10), Decimal256(76,10) | Decimal128 only |

UUIDs are passed as the arrow.uuid extension type, which DuckDB stores as UUID ->
FIXED_LEN_BYTE_ARRAY(16) (a plain FixedSizeBinary would become a BLOB, BYTE_ARRAY).
Configurations: `default` is COMPRESSION uncompressed, `zstd` is COMPRESSION zstd,
COMPRESSION_LEVEL 1 (parquet's default zstd level). DuckDB keeps insertion order
(preserve_insertion_order, its default), as a Parquet writer of a stream does.

Compare wall times with `cargo run --release --example scaling` on the same machine in the
same window; DuckDB writes fewer column bytes for wide16 and decimal_nonnull (see the table).

    python3 -m venv /tmp/duckvenv && /tmp/duckvenv/bin/pip install duckdb pyarrow numpy
    /tmp/duckvenv/bin/python benches/duckdb_scaling.py --threads 1,2,4,8,16 --rounds 5
"""
import argparse
import os
import statistics
import time

import duckdb
import numpy as np
import pyarrow as pa

ROWS = 2 << 20
ROW_GROUP = 1 << 20
SEED = 42
PATH = "/dev/shm/flba_duckdb_scaling.parquet"
CONFIGS = {
    "default": "COMPRESSION uncompressed",
    "zstd": "COMPRESSION zstd, COMPRESSION_LEVEL 1",
}


def validity(rng, n, null_density):
    if null_density <= 0:
        return None
    valid = rng.random(n) >= null_density
    return pa.py_buffer(np.packbits(valid, bitorder="little"))


def decimal128(rng, n, precision, scale, null_density):
    """Uniform-ish values below 10^precision: 64-bit halves, the high one shifted to fit."""
    if precision <= 18:
        values = rng.integers(-(10**precision) + 1, 10**precision, size=n, dtype=np.int64)
        words = np.stack([values.view(np.uint64), (values >> 63).view(np.uint64)], axis=1)
    else:
        words = np.frombuffer(rng.bytes(n * 16), dtype=np.uint64).reshape(n, 2).copy()
        words[:, 1] = (words[:, 1].view(np.int64) >> 2).view(np.uint64)  # |v| < 2^125 < 10^38
    data = pa.py_buffer(words.tobytes())
    return pa.Array.from_buffers(
        pa.decimal128(precision, scale), n, [validity(rng, n, null_density), data]
    )


def decimal256(rng, n):
    words = np.frombuffer(rng.bytes(n * 32), dtype=np.uint64).reshape(n, 4).copy()
    words[:, 3] = (words[:, 3].view(np.int64) >> 3).view(np.uint64)  # |v| < 2^252 < 10^76
    return pa.Array.from_buffers(pa.decimal256(76, 10), n, [None, pa.py_buffer(words.tobytes())])


def uuids(rng, n):
    raw = np.frombuffer(rng.bytes(n * 16), dtype=np.uint8).reshape(n, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    storage = pa.Array.from_buffers(pa.binary(16), n, [None, pa.py_buffer(raw.tobytes())])
    return pa.ExtensionArray.from_storage(pa.uuid(), storage)


TICKERS = ["AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "JPM", "V", "XOM"]


def table(name, rng):
    """(pyarrow table DuckDB takes, not-null column names, note)."""
    n = ROWS
    if name == "wide16":
        cols = {f"d128_{i}": decimal128(rng, n, 38, 10, 0.1) for i in range(6)}
        cols.update({f"uuid_{i}": uuids(rng, n) for i in range(4)})
        cols.update({f"dec18_{i}": decimal128(rng, n, 18, 4, 0) for i in range(4)})
        decimal256(rng, n)  # drawn as in the other tables' generators, not written
        return pa.table(cols), [c for c in cols if not c.startswith("d128")], "14 of 16 columns: no DECIMAL(76)"
    if name == "mixed4":
        cols = {
            "id": uuids(rng, n),
            "amount": decimal128(rng, n, 38, 10, 0.1),
            "seq": pa.array(np.arange(n, dtype=np.int64)),
            "name": pa.array(np.array(TICKERS)[rng.integers(0, len(TICKERS), size=n)]),
        }
        return pa.table(cols), ["id", "seq", "name"], "all 4 columns"
    if name == "decimal_nonnull":
        cols = {"d128": decimal128(rng, n, 38, 10, 0)}
        return pa.table(cols), ["d128"], "Decimal128 only: no DECIMAL(76)"
    raise SystemExit(f"unknown table {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tables", default="wide16,mixed4,decimal_nonnull")
    ap.add_argument("--configs", default="default,zstd")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    print(f"# DuckDB {duckdb.__version__}, COPY wall time, {ROWS} rows, {args.rounds} rounds; "
          f"{os.cpu_count()} cores; `/ 1`: median over the one-thread median\n")
    print("| table | configuration | DuckDB wrote | threads | min / median / max ms | / 1 |")
    print("|---|---|---|---:|---|---:|")
    for name in args.tables.split(","):
        rng = np.random.default_rng(SEED)
        src, required, note = table(name, rng)  # noqa: F841 (src is read by the SQL below)
        con = duckdb.connect()
        con.execute("CREATE TABLE t AS SELECT * FROM src")
        for column in required:
            con.execute(f"ALTER TABLE t ALTER COLUMN {column} SET NOT NULL")
        for config in args.configs.split(","):
            sql = f"COPY t TO '{PATH}' (FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}, {CONFIGS[config]})"
            times = {n: [] for n in threads}
            con.execute(f"SET threads={threads[0]}")
            con.execute(sql)  # warm-up
            for r in range(args.rounds):
                for k in range(len(threads)):
                    n = threads[(k + r) % len(threads)]
                    con.execute(f"SET threads={n}")
                    start = time.perf_counter()
                    con.execute(sql)
                    times[n].append((time.perf_counter() - start) * 1e3)
            one = statistics.median(times[threads[0]]) if threads[0] == 1 else None
            for n in threads:
                t = sorted(times[n])
                med = statistics.median(t)
                ratio = f"{med / one:.2f}" if one else ""
                print(f"| {name} | {config} | {note} | {n} | {t[0]:.1f} / {med:.1f} / {t[-1]:.1f} | {ratio} |")
        con.close()
    if os.path.exists(PATH):
        os.remove(PATH)


if __name__ == "__main__":
    main()
