"""pyarrow's keywords, checked against the written file's metadata, and against
parquet's own ArrowWriter (same bytes)."""

import inspect

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_flba
from conftest import flba_and_oracle, metadata, read, write_bytes

N = 5000


def table():
    return pa.table({
        "id": pa.array(range(N), pa.int64()),
        "price": pa.array([i * 7 % 1000 for i in range(N)], pa.decimal128(38, 2)),
        "name": pa.array([f"n{i % 50}" for i in range(N)]),
        "s": pa.StructArray.from_arrays([pa.array(range(N), pa.int32()), pa.array([float(i) for i in range(N)])],
                                        names=["x", "y"]),
    })


def chunk(buf, column, row_group=0):
    return metadata(buf).row_group(row_group).column(column)


def same(**kwargs):
    ours, theirs = flba_and_oracle(table(), **kwargs)
    assert ours == theirs
    return ours


def test_signatures_have_pyarrows_keywords_and_defaults():
    for ours, theirs in ((parquet_flba.write_table, pq.write_table),
                         (parquet_flba.ParquetWriter.__init__, pq.ParquetWriter.__init__)):
        mine = inspect.signature(ours).parameters
        for name, p in inspect.signature(theirs).parameters.items():
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            assert name in mine, name
            if name == "store_decimal_as_integer":
                assert mine[name].default is None  # parquet's rule: see the docstring
            else:
                assert mine[name].default == p.default, name


def test_pyarrow_defaults():
    buf = same()
    md = metadata(buf)
    assert md.num_row_groups == 1
    for i in range(md.num_columns):
        assert chunk(buf, i).compression == "SNAPPY"
        assert chunk(buf, i).is_stats_set
        assert not chunk(buf, i).has_offset_index
        assert not chunk(buf, i).has_column_index
    assert "RLE_DICTIONARY" in chunk(buf, 0).encodings or "PLAIN_DICTIONARY" in chunk(buf, 0).encodings
    assert b"ARROW:schema" in md.metadata


@pytest.mark.parametrize("codec,level,expect", [
    ("none", None, "UNCOMPRESSED"), ("NONE", None, "UNCOMPRESSED"), ("snappy", None, "SNAPPY"),
    ("gzip", None, "GZIP"), ("gzip", 1, "GZIP"), ("brotli", 3, "BROTLI"), ("lz4", None, "LZ4"),
    ("LZ4_RAW", None, "LZ4"), ("zstd", None, "ZSTD"), ("zstd", 9, "ZSTD"),
])
def test_compression(codec, level, expect):
    buf = same(compression=codec, compression_level=level)
    assert all(chunk(buf, i).compression == expect for i in range(4))


def test_compression_levels_change_the_bytes():
    assert same(compression="zstd", compression_level=1) != same(compression="zstd", compression_level=15)
    # pyarrow's default gzip level is 9 (parquet's own default would be 6).
    assert same(compression="gzip") == same(compression="gzip", compression_level=9)


def test_compression_per_column():
    buf = same(compression={"id": "zstd", "s": "gzip"}, compression_level={"id": 5})
    assert [chunk(buf, i).compression for i in range(5)] == ["ZSTD", "UNCOMPRESSED", "UNCOMPRESSED", "GZIP", "GZIP"]


def test_dictionary_and_encodings():
    buf = same(use_dictionary=False, compression="none")
    assert all("DICTIONARY" not in "".join(chunk(buf, i).encodings) for i in range(5))
    buf = same(use_dictionary=["name"], compression="none")
    assert "DICTIONARY" in "".join(chunk(buf, 2).encodings)
    assert "DICTIONARY" not in "".join(chunk(buf, 0).encodings)
    buf = same(use_dictionary=False, column_encoding={"id": "DELTA_BINARY_PACKED", "name": "DELTA_BYTE_ARRAY"})
    assert "DELTA_BINARY_PACKED" in chunk(buf, 0).encodings
    assert "DELTA_BYTE_ARRAY" in chunk(buf, 2).encodings
    buf = same(use_dictionary=False, use_byte_stream_split=["price", "s.y"])
    assert "BYTE_STREAM_SPLIT" in chunk(buf, 1).encodings
    assert "BYTE_STREAM_SPLIT" in chunk(buf, 4).encodings


def test_statistics_and_page_index():
    buf = same(write_statistics=False)
    assert not any(chunk(buf, i).is_stats_set for i in range(5))
    buf = same(write_statistics=["id"])
    assert chunk(buf, 0).is_stats_set and not chunk(buf, 2).is_stats_set
    buf = same(write_page_index=True)
    assert all(chunk(buf, i).has_column_index and chunk(buf, i).has_offset_index for i in range(5))


def test_row_groups_and_pages():
    buf = same(row_group_size=1000)
    md = metadata(buf)
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [1000] * 5
    buf = same(row_group_size=3000, data_page_size=1024, max_rows_per_page=200, write_batch_size=100,
               dictionary_pagesize_limit=256, write_page_index=True)
    assert metadata(buf).num_row_groups == 2
    assert read(buf).equals(read(same()))


def test_data_page_version_and_version():
    buf = same(data_page_version="2.0")
    assert metadata(buf).format_version in ("2.6", "2.0")
    assert read(buf).num_rows == N
    assert same(version="2.4") == same(version="2.6")  # nothing in this table differs
    with pytest.raises(ValueError, match="version"):
        write_bytes(pa.table({"t": pa.array([1], pa.timestamp("ns"))}), version="2.4")


def test_bloom_filters_cdc_sorting_store_schema():
    plain = same(compression="none")
    bloom = same(compression="none", bloom_filter_options={"id": True, "name": {"ndv": 100, "fpp": 0.01}})
    assert len(bloom) > len(plain)
    assert chunk(bloom, 0).to_dict().get("has_bloom_filter", True)
    cdc = same(use_content_defined_chunking={"min_chunk_size": 1024, "max_chunk_size": 4096})
    assert cdc != same()
    assert read(cdc).equals(read(same()))
    sorted_ = same(sorting_columns=[pq.SortingColumn(0)])
    assert metadata(sorted_).row_group(0).sorting_columns[0].column_index == 0
    bare = same(store_schema=False)
    assert b"ARROW:schema" not in (metadata(bare).metadata or {})


def test_time_adjusted_to_utc():
    t = pa.table({"t": pa.array([1, 2], pa.time64("us"))})
    ours, theirs = flba_and_oracle(t, write_time_adjusted_to_utc=True)
    assert ours == theirs
    assert "isAdjustedToUTC=true" in str(metadata(ours).schema)
    assert "isAdjustedToUTC=false" in str(metadata(write_bytes(t)).schema)


def test_key_value_metadata(tmp_file):
    t = table()
    with parquet_flba.ParquetWriter(tmp_file, t.schema) as w:
        w.add_key_value_metadata({"origin": "test", b"k": b"v"})
        w.write_table(t)
    md = pq.ParquetFile(tmp_file).metadata.metadata
    assert md[b"origin"] == b"test" and md[b"k"] == b"v"


@pytest.mark.parametrize("kwargs,error,match", [
    ({"compression": "lzo"}, ValueError, "codec"),
    ({"compression": "snappy", "compression_level": 3}, ValueError, "level"),
    ({"compression": "gzip", "compression_level": 99}, ValueError, "compression.*range"),
    ({"compression": {"nope": "zstd"}}, ValueError, "nope"),
    ({"use_dictionary": ["missing"]}, ValueError, "missing"),
    ({"column_encoding": "PLAIN"}, ValueError, "use_dictionary"),
    ({"use_dictionary": False, "column_encoding": "RLE_DICTIONARY"}, ValueError, "encoding"),
    ({"use_byte_stream_split": True, "use_dictionary": False, "column_encoding": "PLAIN"}, ValueError,
     "use_byte_stream_split"),
    ({"bloom_filter_options": {"id": {"fpp": 2.0}}}, ValueError, "fpp"),
    ({"bloom_filter_options": {"id": {"size": 1}}}, ValueError, "unknown"),
    ({"use_content_defined_chunking": {"min_chunk_size": 1}}, ValueError, "Missing"),
    ({"version": "3.0"}, ValueError, "version"),
    ({"data_page_version": "3.0"}, ValueError, "version"),
    ({"coerce_timestamps": "ms"}, ValueError, "coerce_timestamps"),
    ({"use_deprecated_int96_timestamps": True}, ValueError, "INT96"),
    ({"flavor": "spark"}, ValueError, "flavor"),
    ({"filesystem": object()}, ValueError, "filesystem"),
    ({"encryption_properties": object()}, ValueError, "encryption"),
    ({"write_page_checksum": True}, ValueError, "checksum"),
    ({"row_group_size": 0}, ValueError, "0"),
    ({"data_page_size": -1}, ValueError, "data_page_size"),
    ({"threads": 0}, ValueError, "threads"),
    ({"sorting_columns": [pq.SortingColumn(99)]}, ValueError, "sorting_columns"),
    ({"no_such_keyword": 1}, TypeError, "no_such_keyword"),
    ({"write_statistics": "id"}, TypeError, "write_statistics"),
])
def test_bad_keywords_raise(kwargs, error, match, tmp_file):
    with pytest.raises(error, match=match):
        parquet_flba.write_table(table(), tmp_file, **kwargs)
    assert not tmp_file.exists()


def test_store_decimal_as_integer_false_refused_for_small_decimals(tmp_file):
    t = pa.table({"d": pa.array([1, 2], pa.decimal128(10, 2))})
    with pytest.raises(ValueError, match="store_decimal_as_integer"):
        parquet_flba.write_table(t, tmp_file, store_decimal_as_integer=False)
    assert not tmp_file.exists()


def test_store_decimal_as_integer_true_and_wide_decimals_ok():
    t = pa.table({"d": pa.array([1, 2], pa.decimal128(38, 2))})
    assert write_bytes(t, store_decimal_as_integer=False) == write_bytes(t)
    assert write_bytes(table(), store_decimal_as_integer=True) == write_bytes(table())
