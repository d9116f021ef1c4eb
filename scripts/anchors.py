#!/usr/bin/env python3
"""pyarrow, polars and DuckDB writing the anchor shapes and whole tables to Parquet, in value MiB/s.

The anchor shapes are those of `cargo run --release --example anchors` (see
`ANCHOR_SHAPES` in benches/workloads/mod.rs): the same column types,
nullability and null densities, random values within the precision (the
generators differ, the distributions match). For each shape, configuration
and thread count, every tool writes the whole table `--reps` times after one
warm-up write, into memory (pyarrow, polars) or a file in a RAM-backed
temporary directory where there is one (DuckDB writes to a path).

The whole tables (`TABLE_SHAPES`, picked with `--shapes`) are those of
benches/workloads/tables.rs, made the same way: `mixed4`, `prims`, each
fixed-width type alone, and the string and binary tables: `strs_low` (Utf8
of 5 four-byte symbols), `strs_high` (Utf8, random printable ASCII of 8 to
40 bytes), `views_high` (the values of `strs_high` as Utf8View),
`binary_high` (Binary, 8 to 40 random bytes) and `dict_utf8`
(Dictionary(Int32, Utf8), 10% nulls, in 64 chunks, as the 64 batches of
tables.rs, each with the same dictionary of 1,000 strings of 8 to 24
bytes). Run them with `--rows 2097152` to match
`cargo bench --bench write -- tables/`; the example has no whole tables,
so `--rust` adds no rows for them.

What is reported: value MiB/s = the non-null value bytes of the columns the
tool wrote, at their Parquet width (16 for Decimal128(38,_) and
FixedSizeBinary(16), 32 for Decimal256(76,_), 1/8 for Boolean) or, for
strings and binaries, the sum of the non-null values' byte lengths (of
`dict_utf8`, the lengths of the values its keys point to, not of the
dictionary), as `value_bytes` in benches/workloads/mod.rs counts them,
÷ the median time. On one thread the time is the process's CPU time (as
the Rust example measures it); on more threads it is wall time. A `*`
marks a cell during which other processes used more than a tenth of a core
(Linux only): treat it as pessimistic.

What each tool can write: polars has no Decimal256 and writes
FixedSizeBinary as BYTE_ARRAY; DuckDB has no DECIMAL(76) and turns
FixedSizeBinary into BLOB, so it writes the Decimal128 columns and the
UUIDs (as its UUID type) only. Every tool writes the string and binary
columns as BYTE_ARRAY (String for strings, no logical type for Binary),
each from its own types: pyarrow writes the Arrow arrays as they are
(Utf8View included, and the dictionary of `dict_utf8` as given); polars
turns Utf8 and Utf8View into its String, Binary into its Binary and
`dict_utf8` into Categorical (`pl.from_arrow`'s default; written
dictionary-encoded); DuckDB reads Utf8, Utf8View and the dictionary alike
as VARCHAR and Binary as BLOB. Each tool picks its own encodings (polars
and DuckDB write `strs_high`, `views_high` and `binary_high` PLAIN with no
dictionary page, pyarrow starts a dictionary and falls back to PLAIN):
this compares speed only. A configuration a tool has no option for is "–";
pyarrow encodes one file on one thread, so its cells for more threads are
"–" too.

Usage (Python 3.9+, `pip install pyarrow polars duckdb`):

    python3 scripts/anchors.py [--rows N] [--reps N] [--threads 1,2]
        [--shapes a,b] [--configs x,y] [--tools pyarrow,polars,duckdb]
        [--rust FILE]

`--rust FILE` reads the table printed by
`cargo run --release --example anchors -- --reps N` (saved to FILE) and
adds the one-thread comparison table of docs/performance.md: the three
tools, `parquet` and parquet-flba side by side.
"""
import argparse
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROWS = 1 << 20
SHAPES = ["decimal_n75", "decimal_n0", "decimal_req", "fsb_n90", "fsb_n0", "uuid", "dec128_lowcard"]
# Whole tables, each fixed-width type alone and the string / binary tables
# (benches/workloads/tables.rs; run them with --rows 2097152 to match
# `cargo bench --bench write -- tables/`).
TABLE_SHAPES = ["mixed4", "prims", "int32", "int64", "uint64", "float64_nan", "timestamp", "date32", "boolean",
                "strs_low", "strs_high", "views_high", "binary_high", "dict_utf8"]
# tables.rs builds a table in 64 batches; dict_utf8 is made of as many
# chunks, each with the same dictionary (the other tables are one chunk).
TABLE_BATCHES = 64
CONFIGS = ["default", "bloom_filter", "parquet_2", "zstd", "zstd_parquet_2", "cdc"]
TOOLS = ["pyarrow", "polars", "duckdb"]
MIB = float(1 << 20)


# --------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------

def make_table(shape, rows):
    """Returns (pyarrow Table, {column name: value bytes}).

    A column's value bytes are its non-null values' bytes at their Parquet
    width, or for strings and binaries the sum of their byte lengths.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    # views_high has the values of strs_high (as in tables.rs): the same seed.
    seeded = "strs_high" if shape == "views_high" else shape
    gen = np.random.default_rng(20261203 + (SHAPES + TABLE_SHAPES).index(seeded))

    def nulls(density):
        # A validity bitmap with each row null with probability `density`.
        if density == 0:
            return None, rows
        valid = gen.random(rows) >= density
        return pa.py_buffer(np.packbits(valid, bitorder="little")), int(valid.sum())

    def signed_words(words, spare_bits):
        # Little-endian two's-complement integers of `words` 64-bit words,
        # the top word shifted right so that |v| < 2^(64 * words - spare_bits).
        raw = np.frombuffer(gen.bytes(rows * words * 8), dtype="<i8").reshape(rows, words).copy()
        raw[:, -1] >>= spare_bits  # arithmetic: the sign stays
        return raw

    fields, arrays, value_bytes = [], [], {}

    def add(name, typ, nullable, data, density, width):
        bitmap, valid = nulls(density)
        arrays.append(pa.Array.from_buffers(typ, rows, [bitmap, pa.py_buffer(data)], null_count=rows - valid))
        fields.append(pa.field(name, typ, nullable=nullable))
        value_bytes[name] = width * valid

    def add_array(name, array, nbytes):
        # A column built whole (nullable, as every column of tables.rs).
        arrays.append(array)
        fields.append(pa.field(name, array.type))
        value_bytes[name] = nbytes

    def symbols():
        # Five four-byte symbols.
        return pa.array(["AAPL", "MSFT", "NVDA", "AMZN", "META"]).take(pa.array(gen.integers(0, 5, size=rows)))

    def byte_arrays(g, n, shortest, longest, ascii):
        # `n` values of `shortest..=longest` bytes: printable ASCII (' '..='~')
        # or any byte; a Utf8 / Binary array of them and their value bytes.
        lengths = g.integers(shortest, longest + 1, size=n)
        offsets = np.zeros(n + 1, dtype="<i8")
        np.cumsum(lengths, out=offsets[1:])
        total = int(offsets[-1])
        if total >= 1 << 31:
            raise SystemExit(f"{shape}: {total:,} value bytes do not fit 32-bit offsets; use fewer --rows")
        data = g.integers(0x20, 0x7F, size=total, dtype=np.uint8) if ascii else g.bytes(total)
        typ = pa.string() if ascii else pa.binary()
        buffers = [None, pa.py_buffer(offsets.astype("<i4")), pa.py_buffer(data)]
        return pa.Array.from_buffers(typ, n, buffers), total

    if shape.startswith("decimal_"):
        density = {"decimal_n75": 0.75, "decimal_n0": 0.0, "decimal_req": 0.0}[shape]
        nullable = shape != "decimal_req"
        # |v| <= 2^124 < 10^38 and |v| <= 2^251 < 10^76: within the precision.
        add("d128", pa.decimal128(38, 10), nullable, signed_words(2, 3), density, 16)
        add("d256", pa.decimal256(76, 10), nullable, signed_words(4, 4), density, 32)
    elif shape in ("fsb_n90", "fsb_n0", "uuid"):
        data = gen.integers(0, 256, size=(rows, 16), dtype=np.uint8)
        if shape == "uuid":  # version 4, variant 10
            data[:, 6] = (data[:, 6] & 0x0F) | 0x40
            data[:, 8] = (data[:, 8] & 0x3F) | 0x80
        density = {"fsb_n90": 0.9, "fsb_n0": 0.0, "uuid": 0.0}[shape]
        add("fsb16", pa.binary(16), shape != "uuid", data, density, 16)
    elif shape == "dec128_lowcard":
        distinct = np.unique(gen.integers(-(10**17), 10**17, size=4096, dtype=np.int64))
        gen.shuffle(distinct)
        low = distinct[:1000][gen.integers(0, 1000, size=rows)]
        data = np.stack([low, low >> 63], axis=1)  # sign-extended to 128 bits
        add("amount", pa.decimal128(38, 2), False, np.ascontiguousarray(data), 0.0, 16)
    elif shape in TABLE_SHAPES:
        def column(name, typ, data, width, density=0.0):
            add(name, typ, True, np.ascontiguousarray(data), density, width)

        def prices(nan=0.0):
            cents = np.maximum(10_000 + np.cumsum(gen.integers(-20, 21, size=rows)), 1)
            p = cents / 100.0
            if nan:
                p[gen.random(rows) < nan] = np.nan
            return p.astype("<f8")

        def timestamps():
            return (1_704_205_800_000_000_000 + np.cumsum(gen.integers(0, 2_000_001, size=rows))).astype("<i8")

        def dates():
            return (19_724 + np.arange(rows) // 100_000).astype("<i4")

        if shape == "mixed4":
            data = gen.integers(0, 256, size=(rows, 16), dtype=np.uint8)
            data[:, 6] = (data[:, 6] & 0x0F) | 0x40
            data[:, 8] = (data[:, 8] & 0x3F) | 0x80
            column("id", pa.binary(16), data, 16)
            low = gen.integers(1, 100_000_000, size=rows, dtype=np.int64)
            column("price", pa.decimal128(38, 4), np.stack([low, low >> 63], axis=1), 16, 0.1)
            column("qty", pa.int64(), gen.integers(0, 10_000, size=rows, dtype="<i8"), 8)
            add_array("sym", symbols(), 4 * rows)
        elif shape == "prims":
            column("ts", pa.timestamp("ns", tz="UTC"), timestamps(), 8)
            column("id", pa.int64(), gen.integers(0, 10_000, size=rows, dtype="<i8"), 8)
            column("n", pa.int32(), gen.integers(0, 40, size=rows, dtype="<i4"), 4)
            column("price", pa.float64(), prices(), 8)
            column("day", pa.date32(), dates(), 4)
        elif shape == "int32":
            column("int32", pa.int32(), gen.integers(0, 1_000_000, size=rows, dtype="<i4"), 4)
        elif shape == "int64":
            column("int64", pa.int64(), gen.integers(0, 10_000, size=rows, dtype="<i8"), 8)
        elif shape == "uint64":
            column("uint64", pa.uint64(), np.frombuffer(gen.bytes(rows * 8), dtype="<u8"), 8)
        elif shape == "float64_nan":
            column("float64", pa.float64(), prices(0.01), 8)
        elif shape == "timestamp":
            column("ts", pa.timestamp("ns", tz="UTC"), timestamps(), 8)
        elif shape == "date32":
            column("date32", pa.date32(), dates(), 4)
        elif shape == "boolean":  # 10% nulls
            bits = np.packbits(gen.random(rows) < 0.5, bitorder="little")
            bitmap, valid = nulls(0.1)
            arrays.append(pa.Array.from_buffers(pa.bool_(), rows, [bitmap, pa.py_buffer(bits)], null_count=rows - valid))
            fields.append(pa.field("flag", pa.bool_()))
            value_bytes["flag"] = valid / 8
        elif shape == "strs_low":
            add_array("sym", symbols(), 4 * rows)
        elif shape in ("strs_high", "views_high"):
            strings, nbytes = byte_arrays(gen, rows, 8, 40, ascii=True)
            add_array("s", strings if shape == "strs_high" else strings.cast(pa.string_view()), nbytes)
        elif shape == "binary_high":
            add_array("b", *byte_arrays(gen, rows, 8, 40, ascii=False))
        else:  # dict_utf8
            # Int32 keys into 1,000 strings (from a generator of their own),
            # 10% of them null; TABLE_BATCHES chunks sharing the dictionary.
            dictionary, _ = byte_arrays(np.random.default_rng(1000), 1000, 8, 24, ascii=True)
            lengths = pc.binary_length(dictionary).to_numpy()
            keys = gen.integers(0, 1000, size=rows, dtype="<i4")
            bitmap, valid = nulls(0.1)
            mask = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), count=rows, bitorder="little").astype(bool)
            nbytes = int(lengths[keys[mask]].sum())  # the lengths of the values the keys point to
            keys = pa.Array.from_buffers(pa.int32(), rows, [bitmap, pa.py_buffer(keys)], null_count=rows - valid)
            whole = pa.DictionaryArray.from_arrays(keys, dictionary)
            per = -(-rows // TABLE_BATCHES)
            add_array("d", pa.chunked_array([whole.slice(s, per) for s in range(0, rows, per)]), nbytes)
    else:
        raise SystemExit(f"unknown shape {shape!r}; known: {', '.join(SHAPES + TABLE_SHAPES)}")
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields)), value_bytes


# --------------------------------------------------------------------------
# The writers: each returns {config: write function or None}, and the names
# of the columns it writes
# --------------------------------------------------------------------------

def pyarrow_writers(table, threads):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Settings as arrow-rs's defaults where pyarrow's differ: no compression,
    # a page index, one row group for the table.
    base = dict(compression="NONE", write_page_index=True, row_group_size=table.num_rows)
    extra = {
        "default": {},
        "bloom_filter": {"bloom_filter_options": {name: True for name in table.column_names}},
        "parquet_2": {"data_page_version": "2.0"},
        "zstd": {"compression": "zstd", "compression_level": 1},
        "zstd_parquet_2": {"compression": "zstd", "compression_level": 1, "data_page_version": "2.0"},
        "cdc": {"use_content_defined_chunking": True},
    }

    def writer(options):
        def write():
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, **options)
            return sink.getvalue().size
        return write

    if threads > 1:
        return {c: None for c in CONFIGS}, table.column_names
    return {c: writer(dict(base, **extra[c])) for c in CONFIGS}, table.column_names


def polars_writers(table, threads):
    import io

    import polars as pl
    import pyarrow as pa

    keep = [f.name for f in table.schema if not pa.types.is_decimal256(f.type)]
    frame = pl.from_arrow(table.select(keep))
    options = {
        "default": dict(compression="uncompressed"),
        "zstd": dict(compression="zstd", compression_level=1),
    }

    def writer(opts):
        def write():
            out = io.BytesIO()
            frame.write_parquet(out, statistics=True, row_group_size=table.num_rows, **opts)
            return out.getbuffer().nbytes
        return write

    return {c: writer(options[c]) if c in options else None for c in CONFIGS}, keep


def duckdb_writers(table, threads, folder, shape):
    import duckdb
    import pyarrow as pa

    columns, keep = [], []
    for field, column in zip(table.schema, table.columns):
        if pa.types.is_decimal256(field.type):
            continue
        if pa.types.is_fixed_size_binary(field.type):
            if shape in ("uuid", "mixed4"):
                column = pa.chunked_array([pa.ExtensionArray.from_storage(pa.uuid(), c) for c in column.chunks])
                field = pa.field(field.name, column.type, nullable=False)
            else:
                continue  # a BLOB, not a fixed-length column
        columns.append(column)
        keep.append(field)
    if not keep:
        return {c: None for c in CONFIGS}, []
    src = pa.Table.from_arrays(columns, schema=pa.schema(keep))  # noqa: F841 (read by the SQL)
    con = duckdb.connect()
    con.execute(f"SET threads={threads}")
    con.execute("SET preserve_insertion_order=true")
    con.execute("CREATE TABLE t AS SELECT * FROM src")
    for field in keep:
        if not field.nullable:
            con.execute(f"ALTER TABLE t ALTER COLUMN {field.name} SET NOT NULL")
    path = os.path.join(folder, "anchors_duckdb.parquet")
    options = {
        "default": "COMPRESSION uncompressed",
        "parquet_2": "COMPRESSION uncompressed, PARQUET_VERSION v2",
        "zstd": "COMPRESSION zstd, COMPRESSION_LEVEL 1",
        "zstd_parquet_2": "COMPRESSION zstd, COMPRESSION_LEVEL 1, PARQUET_VERSION v2",
    }

    def writer(opts):
        sql = f"COPY t TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE {table.num_rows}, {opts})"

        def write():
            con.execute(sql)
            return os.path.getsize(path)
        return write

    return {c: writer(options[c]) if c in options else None for c in CONFIGS}, [f.name for f in keep]


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------

def machine_busy():
    """(jiffies all processes were busy, jiffies of this process), or None off Linux."""
    try:
        with open("/proc/stat") as fh:
            v = [int(x) for x in fh.readline().split()[1:]]
        with open("/proc/self/stat") as fh:
            own = fh.read().rsplit(")", 1)[1].split()
        return v[0] + v[1] + v[2] + v[5] + v[6] + v[7], int(own[11]) + int(own[12])
    except OSError:
        return None


def time_cell(write, reps, threads):
    """Median seconds (CPU on one thread, wall on more) and whether others were busy."""
    write()  # warm-up
    times = []
    gc.collect()
    gc.disable()
    before, start = machine_busy(), time.perf_counter()
    try:
        for _ in range(reps):
            cpu, wall = time.process_time(), time.perf_counter()
            write()
            times.append(time.process_time() - cpu if threads == 1 else time.perf_counter() - wall)
    finally:
        gc.enable()
    after, span = machine_busy(), time.perf_counter() - start
    busy = False
    if before and after:
        others = (after[0] - before[0]) - (after[1] - before[1])
        busy = others > 10 + 0.1 * span * os.sysconf("SC_CLK_TCK")
    return statistics.median(times), busy


def worker(args):
    """Runs every cell for one thread count and prints one JSON line per cell."""
    threads = args.worker
    folder = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        for shape in args.shapes:
            table, value_bytes = make_table(shape, args.rows)
            for tool in args.tools:
                if tool == "pyarrow":
                    writes, cols = pyarrow_writers(table, threads)
                elif tool == "polars":
                    writes, cols = polars_writers(table, threads)
                else:
                    writes, cols = duckdb_writers(table, threads, tmp, shape)
                value_mib = sum(value_bytes[c] for c in cols) / MIB
                for config in args.configs:
                    cell = dict(shape=shape, config=config, tool=tool, threads=threads)
                    if writes.get(config) is not None:
                        seconds, busy = time_cell(writes[config], args.reps, threads)
                        cell.update(mib_s=value_mib / seconds, busy=busy)
                    print(json.dumps(cell), flush=True)


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

def fmt(cell):
    if cell is None or "mib_s" not in cell:
        return "–"
    return f"{cell['mib_s']:,.0f}" + ("*" if cell["busy"] else "")


def read_rust(path):
    """{(shape, config): (parquet MiB/s, parquet-flba MiB/s)} from the example's table."""
    out = {}
    row = re.compile(r"^\|\s*(\w+)\s*\|\s*(\w+)\s*\|\s*[\d.]+\s*\|\s*([\d.]+)[^|]*\|\s*([\d.]+)[^|]*\|")
    with open(path) as fh:
        for line in fh:
            m = row.match(line)
            if m:
                out[(m[1], m[2])] = (float(m[3]), float(m[4]))
    if not out:
        raise SystemExit(f"{path}: no rows of `cargo run --release --example anchors` found")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=ROWS)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", default="1", help="thread counts, e.g. 1,2")
    ap.add_argument("--shapes", default=",".join(SHAPES),
                    help=f"default: the anchor shapes; the whole tables: {', '.join(TABLE_SHAPES)}")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--rust", help="the output of `cargo run --release --example anchors`")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    for name, known in (("shapes", SHAPES + TABLE_SHAPES), ("configs", CONFIGS), ("tools", TOOLS)):
        chosen = [x for x in getattr(args, name).split(",") if x]
        unknown = [x for x in chosen if x not in known]
        if unknown:
            ap.error(f"unknown {name}: {', '.join(unknown)}; known: {', '.join(known)}")
        setattr(args, name, chosen)
    if args.rows < 1 or args.reps < 1:
        ap.error("--rows and --reps must be at least 1")
    if args.worker is not None:
        return worker(args)

    # Each thread count runs in a process of its own: polars reads its
    # thread count when it is imported.
    threads = [int(t) for t in args.threads.split(",") if t]
    cells = {}
    for t in threads:
        env = dict(os.environ, POLARS_MAX_THREADS=str(t))
        cmd = [sys.executable, __file__, "--worker", str(t), "--rows", str(args.rows), "--reps", str(args.reps),
               "--shapes", ",".join(args.shapes), "--configs", ",".join(args.configs),
               "--tools", ",".join(args.tools)]
        run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
        if run.returncode != 0:
            raise SystemExit(f"the run on {t} thread(s) failed (exit status {run.returncode})")
        for line in run.stdout.splitlines():
            c = json.loads(line)
            cells[(c["shape"], c["config"], c["tool"], c["threads"])] = c

    from importlib import metadata
    versions = []
    for tool in args.tools:
        try:
            versions.append(f"{tool} {metadata.version(tool)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{tool} (not installed)")
    print(f"# Value MiB/s, {args.rows:,} rows, median of {args.reps} writes "
          f"(1 thread: CPU time; more: wall time); {', '.join(versions)}\n")
    print("| shape | config | threads | " + " | ".join(args.tools) + " |")
    print("|---|---|---:|" + "---:|" * len(args.tools))
    for shape in args.shapes:
        for config in args.configs:
            for t in threads:
                row = [fmt(cells.get((shape, config, tool, t))) for tool in args.tools]
                print(f"| {shape} | {config} | {t} | " + " | ".join(row) + " |")

    if args.rust:
        rust = read_rust(args.rust)
        print("\n| shape | config | " + " | ".join(args.tools)
              + " | parquet | parquet-flba | parquet-flba ÷ best anchor |")
        print("|---|---|" + "---:|" * (len(args.tools) + 3))
        for shape in args.shapes:
            for config in args.configs:
                if (shape, config) not in rust:
                    continue
                parquet, flba = rust[(shape, config)]
                anchors = [cells.get((shape, config, tool, 1)) for tool in args.tools]
                best = max([c["mib_s"] for c in anchors if c and "mib_s" in c], default=None)
                ratio = "–" if best is None else f"{flba / best:.2f}×"
                print(f"| {shape} | {config} | " + " | ".join(fmt(c) for c in anchors)
                      + f" | {parquet:,.0f} | {flba:,.0f} | {ratio} |")


if __name__ == "__main__":
    sys.exit(main())
