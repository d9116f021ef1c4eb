"""Type stubs of parquet_flba: pyarrow.parquet's write_table and ParquetWriter."""

import os
from typing import Any, Protocol

from ._native import ParquetError as ParquetError

__version__: str
PARQUET_RELEASE: str

class _Writable(Protocol):
    def write(self, data: bytes, /) -> Any: ...

_Where = str | os.PathLike[str] | _Writable

def write_table(
    table: Any,
    where: _Where,
    row_group_size: int | None = None,
    version: str = "2.6",
    use_dictionary: bool | list[str] = True,
    compression: str | dict[str, str] | None = "snappy",
    write_statistics: bool | list[str] = True,
    use_deprecated_int96_timestamps: bool | None = None,
    coerce_timestamps: str | None = None,
    allow_truncated_timestamps: bool = False,
    data_page_size: int | None = None,
    flavor: str | None = None,
    filesystem: Any = None,
    compression_level: int | dict[str, int] | None = None,
    use_byte_stream_split: bool | list[str] = False,
    column_encoding: str | dict[str, str] | None = None,
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
    bloom_filter_options: dict[str, bool | dict[str, Any]] | None = None,
    use_content_defined_chunking: bool | dict[str, int] = False,
    *,
    threads: int | None = None,
) -> None: ...

class ParquetWriter:
    schema: Any
    where: _Where
    def __init__(
        self,
        where: _Where,
        schema: Any,
        filesystem: Any = None,
        flavor: str | None = None,
        version: str = "2.6",
        use_dictionary: bool | list[str] = True,
        compression: str | dict[str, str] | None = "snappy",
        write_statistics: bool | list[str] = True,
        use_deprecated_int96_timestamps: bool | None = None,
        compression_level: int | dict[str, int] | None = None,
        use_byte_stream_split: bool | list[str] = False,
        column_encoding: str | dict[str, str] | None = None,
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
        bloom_filter_options: dict[str, bool | dict[str, Any]] | None = None,
        use_content_defined_chunking: bool | dict[str, int] = False,
        *,
        threads: int | None = None,
        coerce_timestamps: str | None = None,
        allow_truncated_timestamps: bool = False,
        data_page_size: int | None = None,
    ) -> None: ...
    def write_table(self, table: Any, row_group_size: int | None = None) -> None: ...
    def write_batch(self, batch: Any, row_group_size: int | None = None) -> None: ...
    def write(self, table_or_batch: Any, row_group_size: int | None = None) -> None: ...
    def add_key_value_metadata(self, key_value_metadata: dict[str | bytes, str | bytes]) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...
    @property
    def is_open(self) -> bool: ...
    def column_plan(self) -> list[tuple[str, str, str | None]]: ...
    def __enter__(self) -> ParquetWriter: ...
    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool: ...
