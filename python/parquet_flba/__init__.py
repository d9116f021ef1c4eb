"""parquet_flba: write Parquet files from Python with parquet-flba's Rust writer.

A drop-in for ``pyarrow.parquet.write_table`` and ``pyarrow.parquet.ParquetWriter``:
the same keywords with the same defaults, for any Arrow data (pyarrow, polars,
DuckDB, pandas with pyarrow, anything with the Arrow PyCapsule interface), encoded
on every core with the GIL released.

>>> import pyarrow as pa, parquet_flba
>>> parquet_flba.write_table(pa.table({"a": [1, 2, 3]}), "example.parquet")  # doctest: +SKIP

The files are written by parquet-flba's ``ArrowWriter``, byte for byte as the
Rust ``parquet`` crate (60.2) writes them; see ``docs/python.md`` in the
repository for how they differ from pyarrow's own.
"""

from __future__ import annotations

from typing import Any

from . import _native
from . import _options as _o

__all__ = ["write_table", "ParquetWriter", "ParquetError", "PARQUET_RELEASE"]
__version__ = "0.1.0"

#: The exception for data or settings the writer refuses (a ``ValueError``).
ParquetError = _native.ParquetError

#: The Rust ``parquet`` release whose files parquet_flba writes byte for byte.
PARQUET_RELEASE = _native.parquet_release()


def _options(extra: dict, **keywords: Any) -> dict:
    return _o.normalize(extra=extra, **keywords)


def write_table(
    table: Any,
    where: Any,
    row_group_size: int | None = None,
    version: str = "2.6",
    use_dictionary: bool | list = True,
    compression: str | dict | None = "snappy",
    write_statistics: bool | list = True,
    use_deprecated_int96_timestamps: bool | None = None,
    coerce_timestamps: str | None = None,
    allow_truncated_timestamps: bool = False,
    data_page_size: int | None = None,
    flavor: str | None = None,
    filesystem: Any = None,
    compression_level: int | dict | None = None,
    use_byte_stream_split: bool | list = False,
    column_encoding: str | dict | None = None,
    data_page_version: str = "1.0",
    use_compliant_nested_type: bool = True,
    encryption_properties: Any = None,
    write_batch_size: int | None = None,
    dictionary_pagesize_limit: int | None = None,
    store_schema: bool = True,
    write_page_index: bool = False,
    write_page_checksum: bool = False,
    sorting_columns: Any = None,
    store_decimal_as_integer: bool | None = None,
    write_time_adjusted_to_utc: bool = False,
    max_rows_per_page: int | None = None,
    bloom_filter_options: dict | None = None,
    use_content_defined_chunking: bool | dict = False,
    *,
    threads: int | None = None,
    **kwargs: Any,
) -> None:
    """Write Arrow data to a Parquet file, as ``pyarrow.parquet.write_table`` does.

    ``table`` is a pyarrow ``Table``, ``RecordBatch`` or ``RecordBatchReader``, a
    polars ``DataFrame``, a DuckDB relation, or any object with
    ``__arrow_c_stream__`` or ``__arrow_c_array__``; it is read batch by batch,
    never converted to Python objects, and each batch is validated in full.
    ``where`` is a path (``str`` or ``os.PathLike``) or a writable binary file
    object (anything with ``write(bytes)``).

    The keywords are pyarrow's, with pyarrow's defaults (snappy compression,
    dictionary on, statistics in the column chunks, no page index, V1 data
    pages, row groups of up to 1,048,576 rows). A keyword value parquet_flba
    cannot honour raises ``ValueError``; an unknown keyword raises ``TypeError``.
    Column names in keywords are leaf paths (``"a"``, ``"s.x"``) or a group's
    path for all its leaves; a name matching no column raises ``ValueError``.

    Differences from pyarrow: ``store_decimal_as_integer`` defaults to ``None``,
    which stores decimals of precision up to 18 as INT32/INT64 (parquet's rule;
    ``False`` raises if the table has such decimals); ``coerce_timestamps``,
    ``flavor``, ``filesystem``, ``encryption_properties``,
    ``use_deprecated_int96_timestamps`` and ``write_page_checksum`` take only
    their defaults; ``version`` other than ``"2.6"`` is accepted only where it
    changes nothing.

    ``threads`` (parquet_flba's own): how many threads encode the file, the
    calling one included; default: the cores this process may use. The file is the same
    for any number of threads. The GIL is released while encoding, and Ctrl-C
    stops the write between batches. If the write fails, a file it created
    at a path is removed.
    """
    oracle = bool(kwargs.pop("_oracle", False))
    rows = _o.row_group_size_of(kwargs.pop("chunk_size", row_group_size))
    options = _options(
        kwargs,
        version=version,
        use_dictionary=use_dictionary,
        compression=compression,
        write_statistics=write_statistics,
        use_deprecated_int96_timestamps=use_deprecated_int96_timestamps,
        coerce_timestamps=coerce_timestamps,
        allow_truncated_timestamps=allow_truncated_timestamps,
        data_page_size=data_page_size,
        flavor=flavor,
        filesystem=filesystem,
        compression_level=compression_level,
        use_byte_stream_split=use_byte_stream_split,
        column_encoding=column_encoding,
        writer_engine_version=None,
        data_page_version=data_page_version,
        use_compliant_nested_type=use_compliant_nested_type,
        encryption_properties=encryption_properties,
        write_batch_size=write_batch_size,
        dictionary_pagesize_limit=dictionary_pagesize_limit,
        store_schema=store_schema,
        write_page_index=write_page_index,
        write_page_checksum=write_page_checksum,
        sorting_columns=sorting_columns,
        store_decimal_as_integer=store_decimal_as_integer,
        write_time_adjusted_to_utc=write_time_adjusted_to_utc,
        max_rows_per_page=max_rows_per_page,
        bloom_filter_options=bloom_filter_options,
        use_content_defined_chunking=use_content_defined_chunking,
    )
    _native.write_table(
        table, _o.where_of(where), options, _o.threads_of(threads), rows, oracle
    )


class ParquetWriter:
    """Write a Parquet file in pieces, as ``pyarrow.parquet.ParquetWriter`` does.

    ``schema`` is a pyarrow ``Schema`` (or any object with
    ``__arrow_c_schema__``); every piece written must have it (field names,
    types and nullability; metadata aside). The keywords are
    :func:`write_table`'s. As with pyarrow, each ``write_table`` /
    ``write_batch`` / ``write`` call ends its row groups: row groups of
    ``row_group_size`` rows (default: up to 1,048,576), the last one possibly
    shorter.

    Use it as a context manager: leaving the block normally closes the file
    (writes the footer); leaving it with an exception abandons the file, and
    removes it if the writer created it at a path. A failed write raises and
    leaves the writer usable, with every earlier row kept.
    """

    def __init__(
        self,
        where: Any,
        schema: Any,
        filesystem: Any = None,
        flavor: str | None = None,
        version: str = "2.6",
        use_dictionary: bool | list = True,
        compression: str | dict | None = "snappy",
        write_statistics: bool | list = True,
        use_deprecated_int96_timestamps: bool | None = None,
        compression_level: int | dict | None = None,
        use_byte_stream_split: bool | list = False,
        column_encoding: str | dict | None = None,
        writer_engine_version: str | None = None,
        data_page_version: str = "1.0",
        use_compliant_nested_type: bool = True,
        encryption_properties: Any = None,
        write_batch_size: int | None = None,
        dictionary_pagesize_limit: int | None = None,
        store_schema: bool = True,
        write_page_index: bool = False,
        write_page_checksum: bool = False,
        sorting_columns: Any = None,
        store_decimal_as_integer: bool | None = None,
        write_time_adjusted_to_utc: bool = False,
        max_rows_per_page: int | None = None,
        bloom_filter_options: dict | None = None,
        use_content_defined_chunking: bool | dict = False,
        *,
        threads: int | None = None,
        coerce_timestamps: str | None = None,
        allow_truncated_timestamps: bool = False,
        data_page_size: int | None = None,
        **options: Any,
    ) -> None:
        oracle = bool(options.pop("_oracle", False))
        settings = _options(
            options,
            version=version,
            use_dictionary=use_dictionary,
            compression=compression,
            write_statistics=write_statistics,
            use_deprecated_int96_timestamps=use_deprecated_int96_timestamps,
            coerce_timestamps=coerce_timestamps,
            allow_truncated_timestamps=allow_truncated_timestamps,
            data_page_size=data_page_size,
            flavor=flavor,
            filesystem=filesystem,
            compression_level=compression_level,
            use_byte_stream_split=use_byte_stream_split,
            column_encoding=column_encoding,
            writer_engine_version=writer_engine_version,
            data_page_version=data_page_version,
            use_compliant_nested_type=use_compliant_nested_type,
            encryption_properties=encryption_properties,
            write_batch_size=write_batch_size,
            dictionary_pagesize_limit=dictionary_pagesize_limit,
            store_schema=store_schema,
            write_page_index=write_page_index,
            write_page_checksum=write_page_checksum,
            sorting_columns=sorting_columns,
            store_decimal_as_integer=store_decimal_as_integer,
            write_time_adjusted_to_utc=write_time_adjusted_to_utc,
            max_rows_per_page=max_rows_per_page,
            bloom_filter_options=bloom_filter_options,
            use_content_defined_chunking=use_content_defined_chunking,
        )
        self.schema = schema
        self.where = where
        self._writer = _native.Writer(_o.where_of(where), schema, settings, _o.threads_of(threads), oracle)

    def write_table(self, table: Any, row_group_size: int | None = None) -> None:
        """Write ``table`` (any Arrow data, see :func:`write_table`), in row groups
        of ``row_group_size`` rows (default: up to 1,048,576)."""
        self._writer.write(table, _o.row_group_size_of(row_group_size))

    def write_batch(self, batch: Any, row_group_size: int | None = None) -> None:
        """Write one record batch (any Arrow data), as :meth:`write_table`."""
        self._writer.write(batch, _o.row_group_size_of(row_group_size))

    def write(self, table_or_batch: Any, row_group_size: int | None = None) -> None:
        """Write a table or a record batch (any Arrow data), as :meth:`write_table`."""
        self._writer.write(table_or_batch, _o.row_group_size_of(row_group_size))

    def add_key_value_metadata(self, key_value_metadata: dict) -> None:
        """Add key-value pairs to the file's footer metadata."""
        pairs = []
        for key, value in key_value_metadata.items():
            pairs.append((_text(key), _text(value)))
        self._writer.add_key_value_metadata(pairs)

    def close(self) -> None:
        """Write the footer and close the file (a file object is flushed, not
        closed). Closing twice does nothing."""
        self._writer.close()

    def abort(self) -> None:
        """Abandon the file without a footer; a file created at a path is removed."""
        self._writer.abort()

    @property
    def is_open(self) -> bool:
        """Whether the file is still open for writing."""
        return self._writer.is_open

    def column_plan(self) -> list[tuple[str, str, str | None]]:
        """Each leaf column's path, ``"fast"`` (encoded by parquet-flba) or
        ``"parquet"`` (by parquet's own column writer), and why."""
        return self._writer.column_plan()

    def __enter__(self) -> "ParquetWriter":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        if exc_type is None:
            self.close()
        else:
            self.abort()
        return False

    def __del__(self) -> None:
        writer = getattr(self, "_writer", None)
        if writer is not None and writer.is_open:
            try:
                writer.close()
            except Exception:
                writer.abort()


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return str(value)
