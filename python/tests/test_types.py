"""Every Arrow type: written by parquet_flba, byte-identical to parquet's own
ArrowWriter with the same properties, and read back with equal values by
pyarrow, polars and DuckDB."""

import datetime
import decimal
import io
import uuid

import numpy as np
import pyarrow as pa
import pytest

from conftest import assert_same_values, fast_leaves, flba_and_oracle, read

N = 3000
rng = np.random.default_rng(7)


def nulls(n, p=0.2):
    return rng.random(n) < p


def arr(values, typ, null_p=0.2):
    mask = nulls(len(values), null_p) if null_p else None
    return pa.array(values, type=typ, mask=mask)


def decimals(precision, scale, n=N):
    digits = min(precision, 18)
    ints = rng.integers(-(10 ** digits) + 1, 10 ** digits, size=n)
    return [decimal.Decimal(int(v)).scaleb(-scale) for v in ints]


# The types parquet-flba encodes itself (FIXED_LEN_BYTE_ARRAY and decimals).
FAST = {
    "d32": lambda: arr(decimals(9, 2), pa.decimal32(9, 2)),
    "d64": lambda: arr(decimals(18, 4), pa.decimal64(18, 4)),
    "d128_small": lambda: arr(decimals(12, 3), pa.decimal128(12, 3)),
    "d128": lambda: arr(decimals(38, 10), pa.decimal128(38, 10)),
    "d256": lambda: arr(decimals(76, 10), pa.decimal256(76, 10)),
    "uuid": lambda: arr([uuid.UUID(int=int(x)).bytes for x in rng.integers(0, 2**62, N)], pa.binary(16)),
    "fsb5": lambda: arr([bytes(rng.integers(0, 256, 5, dtype=np.uint8)) for _ in range(N)], pa.binary(5)),
    "f16": lambda: pa.array(rng.standard_normal(N).astype(np.float16), mask=nulls(N)),
}

# Every other flat type: integers, floats, booleans, dates, times, timestamps,
# durations, strings and binary (fast since the whole-table work) and
# dictionaries of them.
OTHERS = {
    "bool": lambda: arr(list(rng.random(N) < 0.5), pa.bool_()),
    "i8": lambda: arr(rng.integers(-100, 100, N).tolist(), pa.int8()),
    "i16": lambda: arr(rng.integers(-1000, 1000, N).tolist(), pa.int16()),
    "i32": lambda: arr(rng.integers(-(2**31), 2**31 - 1, N).tolist(), pa.int32()),
    "i64": lambda: arr(rng.integers(-(2**62), 2**62, N).tolist(), pa.int64()),
    "u8": lambda: arr(rng.integers(0, 255, N).tolist(), pa.uint8()),
    "u16": lambda: arr(rng.integers(0, 60000, N).tolist(), pa.uint16()),
    "u32": lambda: arr(rng.integers(0, 2**32 - 1, N).tolist(), pa.uint32()),
    "u64": lambda: arr(rng.integers(0, 2**63, N).tolist(), pa.uint64()),
    "f32": lambda: arr(rng.standard_normal(N).astype(np.float32).tolist(), pa.float32()),
    "f64": lambda: arr(rng.standard_normal(N).tolist(), pa.float64()),
    "utf8": lambda: arr([f"s{x}" * (x % 5) for x in rng.integers(0, 50, N)], pa.string()),
    "large_utf8": lambda: arr([f"t{x}" for x in rng.integers(0, 500, N)], pa.large_string()),
    "utf8_view": lambda: arr([f"view-{x:020d}" for x in rng.integers(0, 500, N)], pa.string_view()),
    "binary": lambda: arr([bytes([x % 256]) * (x % 7) for x in rng.integers(0, 1000, N)], pa.binary()),
    "large_binary": lambda: arr([bytes([x % 256]) * 3 for x in rng.integers(0, 1000, N)], pa.large_binary()),
    "binary_view": lambda: arr([bytes([x % 256]) * 20 for x in rng.integers(0, 1000, N)], pa.binary_view()),
    "date32": lambda: arr(rng.integers(0, 20000, N).tolist(), pa.date32()),
    "time32ms": lambda: arr(rng.integers(0, 86_400_000, N).tolist(), pa.time32("ms")),
    "time64us": lambda: arr(rng.integers(0, 86_400_000_000, N).tolist(), pa.time64("us")),
    "time64ns": lambda: arr(rng.integers(0, 86_400_000_000_000, N).tolist(), pa.time64("ns")),
    "time32s": lambda: arr(rng.integers(0, 86_400, N).tolist(), pa.time32("s")),
    "ts_s": lambda: arr(rng.integers(0, 2**32, N).tolist(), pa.timestamp("s")),
    "ts_s_tz": lambda: arr(rng.integers(0, 2**32, N).tolist(), pa.timestamp("s", tz="Europe/Paris")),
    "ts_ms": lambda: arr(rng.integers(0, 2**40, N).tolist(), pa.timestamp("ms")),
    "ts_us_utc": lambda: arr(rng.integers(0, 2**50, N).tolist(), pa.timestamp("us", tz="UTC")),
    "ts_ns": lambda: arr(rng.integers(0, 2**60, N).tolist(), pa.timestamp("ns")),
    "dur_us": lambda: arr(rng.integers(0, 2**40, N).tolist(), pa.duration("us")),
    "dict_utf8": lambda: arr([f"k{x}" for x in rng.integers(0, 20, N)], pa.string()).dictionary_encode(),
    "dict_i64": lambda: arr(rng.integers(0, 20, N).tolist(), pa.int64()).dictionary_encode(),
}

NESTED = {
    "list_i64": lambda: pa.array([[int(x)] * (int(x) % 4) if x % 9 else None for x in rng.integers(0, 100, N)],
                                 pa.list_(pa.int64())),
    "list_d128": lambda: pa.array(
        [[decimal.Decimal(int(x)).scaleb(-2)] * (int(x) % 3) for x in rng.integers(0, 100, N)],
        pa.list_(pa.decimal128(38, 2))),
    "large_list_uuid": lambda: pa.array([[uuid.UUID(int=int(x)).bytes] * (int(x) % 3) for x in rng.integers(0, 99, N)],
                                        pa.large_list(pa.binary(16))),
    "fixed_list_f64": lambda: pa.array([[float(x), float(-x)] for x in range(N)], pa.list_(pa.float64(), 2)),
    "struct": lambda: pa.StructArray.from_arrays(
        [arr(decimals(20, 2), pa.decimal128(20, 2)), arr([f"x{i % 7}" for i in range(N)], pa.string())],
        names=["amount", "label"], mask=pa.array(nulls(N, 0.1))),
    "map": lambda: pa.array([[("a", int(x)), ("b", None)] if x % 5 else None for x in rng.integers(0, 100, N)],
                            pa.map_(pa.string(), pa.int64())),
    "list_struct": lambda: pa.array([[{"u": uuid.UUID(int=i).bytes, "n": i}] * (i % 3) for i in range(N)],
                                    pa.list_(pa.struct([("u", pa.binary(16)), ("n", pa.int32())]))),
}


def table_of(columns):
    return pa.table({name: make() for name, make in columns.items()})


CONFIGS = {
    "pyarrow_defaults": {},
    "uncompressed_page_index": {"compression": "none", "write_page_index": True},
    "v2_zstd": {"data_page_version": "2.0", "compression": "zstd"},
    "no_dictionary": {"use_dictionary": False, "compression": "none"},
    "small_pages": {"data_page_size": 512, "max_rows_per_page": 100, "row_group_size": 1000},
}


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("group", ["fast", "others", "nested"])
def test_same_bytes_as_parquet_and_read_back(group, config):
    columns = {"fast": FAST, "others": OTHERS, "nested": NESTED}[group]
    table = table_of(columns)
    ours, theirs = flba_and_oracle(table, **CONFIGS[config])
    assert ours == theirs
    assert_same_values(read(ours), table)


def test_fast_path_taken_for_decimal_and_fixed_length_columns():
    table = table_of(FAST)
    fast = fast_leaves(table)
    assert fast == set(FAST), fast
    nested = fast_leaves(table_of({k: NESTED[k] for k in ("list_d128", "large_list_uuid", "struct")}))
    assert {"list_d128.list.element", "large_list_uuid.list.element", "struct.amount"} <= nested, nested


def test_fast_path_taken_for_every_flat_column():
    table = table_of(OTHERS)
    fast = fast_leaves(table)
    assert fast == set(OTHERS), set(OTHERS) - fast
    nested = fast_leaves(table_of({k: NESTED[k] for k in ("list_i64", "map")}))
    assert {"list_i64.list.element", "map.key_value.key", "map.key_value.value"} <= nested, nested


def test_polars_reads_back_equal_values():
    pl = pytest.importorskip("polars")
    table = pa.table({
        "d128": FAST["d128"](),
        "uuid": FAST["uuid"](),
        "i64": OTHERS["i64"](),
        "f64": OTHERS["f64"](),
        "utf8": OTHERS["utf8"](),
        "bool": OTHERS["bool"](),
        "date": OTHERS["date32"](),
        "ts": OTHERS["ts_us_utc"](),
        "list": NESTED["list_i64"](),
        "struct": NESTED["struct"](),
    })
    ours, theirs = flba_and_oracle(table)
    assert ours == theirs
    got = pl.read_parquet(io.BytesIO(ours))
    expected = pl.from_arrow(table)
    assert got.columns == expected.columns
    for name in expected.columns:
        assert got[name].to_list() == expected[name].to_list(), name


def test_duckdb_reads_back_equal_values(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    table = pa.table({
        "d128": FAST["d128"](),
        "d64": FAST["d64"](),
        "uuid": FAST["uuid"](),
        "i64": OTHERS["i64"](),
        "utf8": OTHERS["utf8"](),
        "date": OTHERS["date32"](),
        "list": NESTED["list_i64"](),
        "struct": NESTED["struct"](),
    })
    path = tmp_path / "t.parquet"
    import parquet_flba

    parquet_flba.write_table(table, path)
    got = duckdb.sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_table()
    assert got.num_rows == table.num_rows
    for name in table.column_names:
        assert got.column(name).to_pylist() == table.column(name).to_pylist(), name


def test_nested_and_time_layout_as_pyarrow_writes_it():
    from conftest import metadata

    table = pa.table({"l": NESTED["list_i64"](), "m": NESTED["map"](), "ts": OTHERS["ts_s"](),
                      "t": OTHERS["time32s"]()})
    ours, theirs = flba_and_oracle(table)
    assert ours == theirs
    sink = io.BytesIO()
    import pyarrow.parquet as pq

    pq.write_table(table, sink)
    pyarrows = metadata(sink.getvalue()).schema
    mine = metadata(ours).schema
    assert [mine.column(i).path for i in range(len(mine))] == [pyarrows.column(i).path for i in range(len(pyarrows))]
    for i in range(len(mine)):
        assert mine.column(i).logical_type.to_json() == pyarrows.column(i).logical_type.to_json(), mine.column(i).path
    assert read(ours).column("ts").type == pa.timestamp("ms")
    legacy, _ = flba_and_oracle(table, use_compliant_nested_type=False)
    assert metadata(legacy).schema.column(0).path == "l.list.item"


def test_second_timestamps_that_overflow_milliseconds_are_refused():
    import parquet_flba

    table = pa.table({"ts": pa.array([0, 2**62], pa.timestamp("s"))})
    with pytest.raises(parquet_flba.ParquetError, match="ts"):
        parquet_flba.write_table(table, io.BytesIO())


def test_empty_table_and_zero_columns_of_rows():
    table = table_of(FAST).slice(0, 0)
    ours, theirs = flba_and_oracle(table)
    assert ours == theirs
    assert read(ours).num_rows == 0


def test_dates_times_read_back():
    table = pa.table({
        "d": pa.array([datetime.date(2024, 1, 2), None], pa.date32()),
        "t": pa.array([datetime.time(1, 2, 3), None], pa.time64("us")),
    })
    ours, theirs = flba_and_oracle(table)
    assert ours == theirs
    assert read(ours).to_pylist() == table.to_pylist()
