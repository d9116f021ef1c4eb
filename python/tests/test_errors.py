"""Bad input: malformed Arrow data, values the writer refuses, failing sinks,
mismatched schemas. Each is a Python exception naming what is wrong, and a
failed write leaves no partial file at a path it created."""

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_flba
from conftest import read


class CapsuleOnly:
    """Exposes only the Arrow PyCapsule interface of a pyarrow object."""

    def __init__(self, obj, stream=True):
        self._obj, self._stream = obj, stream

    def __getattr__(self, name):
        if name == "__arrow_c_stream__" and self._stream:
            return self._obj.__arrow_c_stream__
        if name == "__arrow_c_array__" and not self._stream:
            return self._obj.__arrow_c_array__
        raise AttributeError(name)


def batch_of(name, array):
    return pa.RecordBatch.from_arrays([array], names=[name])


def bad_utf8():
    offsets = pa.py_buffer(pa.array([0, 1, 3, 4], pa.int32()).buffers()[1])
    data = pa.py_buffer(b"a\xff\xfeb")
    return pa.Array.from_buffers(pa.string(), 3, [None, offsets, data])


def decreasing_offsets():
    offsets = pa.py_buffer(pa.array([0, 3, 1, 4], pa.int32()).buffers()[1])
    return pa.Array.from_buffers(pa.binary(), 3, [None, offsets, pa.py_buffer(b"abcd")])


def dictionary_key_out_of_range():
    indices = pa.array([0, 1, 7], pa.int32())
    return pa.DictionaryArray.from_arrays(indices, pa.array(["x", "y"]), safe=False)


@pytest.mark.parametrize("make,match", [
    (bad_utf8, "utf"),
    (decreasing_offsets, "offset"),
    (dictionary_key_out_of_range, "(index|key|bound)"),
])
@pytest.mark.parametrize("stream", [True, False])
def test_malformed_arrays_are_exceptions(make, match, stream, tmp_file):
    data = CapsuleOnly(batch_of("bad", make()), stream=stream)
    with pytest.raises(parquet_flba.ParquetError, match=f"(?i)column \"bad\".*{match}"):
        parquet_flba.write_table(data, tmp_file)
    assert not tmp_file.exists()


def test_decimal_too_wide_names_column_and_row(tmp_file):
    # 10**20 does not fit Decimal128(10, 0)'s INT64 storage; parquet would
    # silently keep the low bytes, parquet-flba refuses.
    t = pa.table({"ok": pa.array([1, 2, 3]),
                  "amount": pa.array([1, 2, 10**20], pa.decimal128(38, 0)).cast(pa.decimal128(10, 0), safe=False)})
    with pytest.raises(parquet_flba.ParquetError, match=r"amount.*row|row.*amount"):
        parquet_flba.write_table(t, tmp_file)
    assert not tmp_file.exists()


def test_not_arrow_data(tmp_file):
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        parquet_flba.write_table([1, 2, 3], tmp_file)
    with pytest.raises(TypeError, match="struct"):
        parquet_flba.write_table(pa.chunked_array([[1, 2]]), tmp_file)
    assert not tmp_file.exists()


def test_bad_where():
    t = pa.table({"a": [1]})
    with pytest.raises(TypeError, match="where"):
        parquet_flba.write_table(t, 42)
    with pytest.raises(ValueError, match="filesystem"):
        parquet_flba.write_table(t, "s3://bucket/key.parquet")
    with pytest.raises(OSError):
        parquet_flba.write_table(t, "/nonexistent-dir/x/y.parquet")


def test_failing_file_object_raises_its_own_exception():
    class Boom(Exception):
        pass

    class Sink:
        def write(self, b):
            raise Boom("disk full")

    with pytest.raises(Boom, match="disk full"):
        parquet_flba.write_table(pa.table({"a": list(range(10))}), Sink())


def test_failing_stream_producer(tmp_file):
    def batches():
        yield pa.record_batch({"a": [1, 2]})
        raise RuntimeError("producer broke")

    reader = pa.RecordBatchReader.from_batches(pa.schema({"a": pa.int64()}), batches())
    with pytest.raises(ValueError, match="producer broke"):
        parquet_flba.write_table(reader, tmp_file)
    assert not tmp_file.exists()


def test_parquet_writer_schema_mismatch_then_continues(tmp_file):
    schema = pa.schema({"a": pa.int64(), "d": pa.decimal128(20, 0)})
    good = pa.table({"a": [1, 2], "d": pa.array([1, 2], pa.decimal128(20, 0))})
    # 10**30 does not fit the 9 bytes of a Decimal128(20, 0) column.
    too_wide = pa.array([1, 10**30], pa.decimal128(38, 0)).cast(pa.decimal128(20, 0), safe=False)
    with parquet_flba.ParquetWriter(tmp_file, schema) as w:
        w.write_table(good)
        with pytest.raises(ValueError, match="schema"):
            w.write_table(pa.table({"a": [1.5]}))
        with pytest.raises(parquet_flba.ParquetError, match="d"):
            w.write_table(pa.table({"a": [3, 4], "d": too_wide}))
        w.write_table(good)
    assert read(tmp_file.read_bytes()).column("a").to_pylist() == [1, 2, 1, 2]


def test_non_nullable_field_with_nulls(tmp_file):
    schema = pa.schema([pa.field("a", pa.int64(), nullable=False)])
    t = pa.Table.from_arrays([pa.array([1, None], pa.int64())], schema=schema)
    with pytest.raises(ValueError, match="a"):
        parquet_flba.write_table(t, tmp_file)
    assert not tmp_file.exists()


def test_exception_in_with_block_removes_the_file(tmp_file):
    t = pa.table({"a": [1, 2]})
    with pytest.raises(KeyError):
        with parquet_flba.ParquetWriter(tmp_file, t.schema) as w:
            w.write_table(t)
            raise KeyError("user code failed")
    assert not tmp_file.exists()


def test_closed_writer(tmp_file):
    t = pa.table({"a": [1, 2]})
    w = parquet_flba.ParquetWriter(tmp_file, t.schema)
    w.write_table(t)
    w.close()
    w.close()
    assert not w.is_open
    with pytest.raises(ValueError, match="closed"):
        w.write_table(t)
    assert pq.read_table(tmp_file).equals(t)
