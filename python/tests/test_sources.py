"""Where data comes from (pyarrow, polars, DuckDB, bare PyCapsule objects) and
where it goes (paths, file objects)."""

import io
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_flba
from conftest import read, write_bytes
from test_errors import CapsuleOnly


def table(n=10_000):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "d": pa.array([i % 977 for i in range(n)], pa.decimal128(38, 4)),
        "s": pa.array([f"v{i % 13}" for i in range(n)]),
    })


def test_table_batch_reader_and_capsules_give_the_same_file():
    t = table()
    expected = write_bytes(t)
    batches = t.to_batches(max_chunksize=1000)
    assert len(batches) == 10
    assert write_bytes(pa.Table.from_batches(batches)) == expected
    assert write_bytes(pa.RecordBatchReader.from_batches(t.schema, batches)) == expected
    assert write_bytes(CapsuleOnly(t)) == expected
    one = t.combine_chunks().to_batches()[0]
    assert write_bytes(one) == expected
    assert write_bytes(CapsuleOnly(one, stream=False)) == expected


def test_polars_dataframe():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]})
    buf = write_bytes(df)
    assert pl.read_parquet(io.BytesIO(buf)).equals(df)


def test_duckdb_relation_and_result():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    rel = con.sql("SELECT i AS id, (i % 7)::DECIMAL(38, 2) AS d, 'x' || i AS s FROM range(5000) t(i)")
    buf = write_bytes(rel)
    got = read(buf)
    assert got.num_rows == 5000
    assert got.column("id").to_pylist() == list(range(5000))
    reader = con.sql("SELECT i FROM range(100) t(i)").to_arrow_reader()
    assert read(write_bytes(reader)).column("i").to_pylist() == list(range(100))


def test_paths_and_file_objects(tmp_path):
    t = table()
    expected = write_bytes(t)
    parquet_flba.write_table(t, str(tmp_path / "a.parquet"))
    parquet_flba.write_table(t, tmp_path / "b.parquet")
    parquet_flba.write_table(t, pathlib.PurePath(tmp_path / "c.parquet"))
    with open(tmp_path / "d.parquet", "wb") as f:
        parquet_flba.write_table(t, f)
    out = pa.BufferOutputStream()
    parquet_flba.write_table(t, out)
    for name in "abcd":
        assert (tmp_path / f"{name}.parquet").read_bytes() == expected
    assert out.getvalue().to_pybytes() == expected


def test_writer_in_pieces_matches_pyarrow_row_groups(tmp_path):
    t = table(5000)
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    with parquet_flba.ParquetWriter(ours, t.schema) as w, pq.ParquetWriter(theirs, t.schema) as p:
        for piece in (t.slice(0, 1500), t.slice(1500, 2000)):
            w.write_table(piece, row_group_size=1000)
            p.write_table(piece, row_group_size=1000)
        w.write_batch(t.slice(3500).to_batches()[0])
        p.write_batch(t.slice(3500).to_batches()[0])
        w.write(t.slice(0, 10))
        p.write(t.slice(0, 10))
    a, b = pq.ParquetFile(ours).metadata, pq.ParquetFile(theirs).metadata
    sizes = lambda m: [m.row_group(i).num_rows for i in range(m.num_row_groups)]  # noqa: E731
    assert sizes(a) == sizes(b) == [1000, 500, 1000, 1000, 1500, 10]
    assert pq.read_table(ours).equals(pq.read_table(theirs))


def test_pyarrow_reads_what_pyarrow_writes_equal():
    t = table()
    sink = io.BytesIO()
    pq.write_table(t, sink)
    assert read(write_bytes(t)).equals(pq.read_table(io.BytesIO(sink.getvalue())))


def test_row_group_size_per_call_as_pyarrow():
    t = pa.table({"a": list(range(10)), "d": pa.array(range(10), pa.decimal128(38, 0))})
    sink = io.BytesIO()
    with parquet_flba.ParquetWriter(sink, t.schema) as w:
        w.write_table(t, row_group_size=5)
        w.write_table(t, row_group_size=3)
        w.write_table(t, row_group_size=6)
        w.write_table(t)
    md = pq.ParquetFile(io.BytesIO(sink.getvalue())).metadata
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [5, 5, 3, 3, 3, 1, 6, 4, 10]


@pytest.mark.parametrize("threads", [1, 3])
def test_parquet_writer_and_write_table_same_bytes(threads):
    t = table(50_000)
    one_call = write_bytes(t, row_group_size=7_000, threads=threads)
    sink = io.BytesIO()
    with parquet_flba.ParquetWriter(sink, t.schema, threads=threads) as w:
        w.write_table(t, row_group_size=7_000)
    assert sink.getvalue() == one_call
