"""Helpers shared by the tests of the parquet_flba package.

The oracle: ``write_table(..., _oracle=True)`` writes the same data with the
same properties through parquet's own ``ArrowWriter`` (the Rust crate
parquet-flba is byte-identical to); ``flba_and_oracle`` returns both files'
bytes so a test can compare them.
"""

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_flba


def write_bytes(data, **kwargs):
    sink = io.BytesIO()
    parquet_flba.write_table(data, sink, **kwargs)
    return sink.getvalue()


def flba_and_oracle(data, **kwargs):
    """The file parquet_flba writes for ``data`` and the one parquet's own
    ArrowWriter writes with the same properties (one thread)."""
    ours = write_bytes(data, **kwargs)
    theirs = write_bytes(data, _oracle=True, **kwargs)
    return ours, theirs


def read(buf):
    return pq.read_table(io.BytesIO(buf))


def metadata(buf):
    return pq.ParquetFile(io.BytesIO(buf)).metadata


def _plain(column):
    """A column without dictionary encoding (pyarrow restores it only for strings)."""
    if pa.types.is_dictionary(column.type):
        return column.cast(column.type.value_type)
    return column


def assert_same_values(actual: pa.Table, expected: pa.Table):
    """Equal values (list element names aside: pyarrow compares types without them)."""
    assert actual.num_rows == expected.num_rows
    assert actual.column_names == expected.column_names
    for name in expected.column_names:
        a, e = _plain(actual.column(name)), _plain(expected.column(name))
        if not a.type.equals(e.type):
            e = e.cast(a.type)
        assert a.combine_chunks().equals(e.combine_chunks()), name


def fast_leaves(table, **kwargs):
    """The leaves parquet-flba encodes itself for ``table``."""
    sink = io.BytesIO()
    with parquet_flba.ParquetWriter(sink, table.schema, **kwargs) as w:
        plan = w.column_plan()
    return {path for path, route, _ in plan if route == "fast"}


@pytest.fixture
def tmp_file(tmp_path):
    return tmp_path / "out.parquet"
