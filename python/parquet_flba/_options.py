"""pyarrow's writer keywords, checked and normalised for the extension module.

Every keyword of ``pyarrow.parquet.write_table`` / ``ParquetWriter`` (pyarrow 26)
is accepted by name, with pyarrow's default. A value that parquet_flba cannot
honour raises ``ValueError`` (or ``TypeError`` for a value of the wrong kind)
naming the keyword: nothing is silently ignored. Column names are resolved
against the file's schema on the Rust side (``src/columns.rs``).
"""

from __future__ import annotations

import os
from typing import Any

# pyarrow's ``_DEFAULT_ROW_GROUP_SIZE`` and ``_MAX_ROW_GROUP_SIZE``.
DEFAULT_ROW_GROUP_SIZE = 1024 * 1024
MAX_ROW_GROUP_SIZE = 64 * 1024 * 1024

CODECS = {"none", "uncompressed", "snappy", "gzip", "brotli", "lz4", "lz4_raw", "zstd"}
ENCODINGS = {
    "PLAIN",
    "BYTE_STREAM_SPLIT",
    "DELTA_BINARY_PACKED",
    "DELTA_LENGTH_BYTE_ARRAY",
    "DELTA_BYTE_ARRAY",
    "RLE",
}
# pyarrow's bloom filter defaults (also parquet's).
BLOOM_NDV = 1024 * 1024
BLOOM_FPP = 0.05


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected a bool, got {value!r}")
    return value


def _positive(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name}: expected a positive int or None, got {value!r}")
    return value


def _names(name: str, value: Any) -> list[str]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name}: expected a bool or a list of column names, got {value!r}")
    out = []
    for column in value:
        if not isinstance(column, str):
            raise TypeError(f"{name}: column names must be str, got {column!r}")
        out.append(column)
    return out


def _bool_or_columns(name: str, value: Any) -> tuple[bool, dict[str, bool]]:
    """pyarrow's "bool or list" keywords: True/False for all columns, or the
    columns to turn on (the others off)."""
    if isinstance(value, bool):
        return value, {}
    return False, {column: True for column in _names(name, value)}


def _unsupported(name: str, value: Any, allowed: Any, why: str) -> None:
    if value is not allowed and value != allowed:
        raise ValueError(f"{name}={value!r} is not supported by parquet_flba: {why}")


def _codec(name: str, codec: Any) -> str:
    if not isinstance(codec, str):
        raise TypeError(f"{name}: expected a codec name, got {codec!r}")
    lowered = codec.lower()
    if lowered not in CODECS:
        raise ValueError(
            f"{name}: unsupported codec {codec!r}; valid: NONE, SNAPPY, GZIP, BROTLI, LZ4, LZ4_RAW, ZSTD"
        )
    return lowered


def _level(name: str, level: Any) -> int | None:
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"{name}: expected an int, got {level!r}")
    return level


def compression_of(codec: Any, level: Any) -> tuple:
    """``compression`` and ``compression_level`` (each a value or a dict per
    column) as ((default codec, level), {column: (codec, level)})."""
    if isinstance(codec, dict):
        # pyarrow: columns not in the dict are left uncompressed.
        default_codec = "none"
        per_codec = {str(c): _codec("compression", v) for c, v in codec.items()}
    elif codec is None:
        default_codec, per_codec = "none", {}
    else:
        default_codec, per_codec = _codec("compression", codec), {}
    if isinstance(level, dict):
        default_level = None
        per_level = {str(c): _level("compression_level", v) for c, v in level.items()}
    else:
        default_level, per_level = _level("compression_level", level), {}
    columns = {
        c: (per_codec.get(c, default_codec), per_level.get(c, default_level))
        for c in set(per_codec) | set(per_level)
    }
    # With codecs per column, a single level applies to those columns.
    default = (default_codec, None if per_codec else default_level)
    return default, columns


def encodings_of(use_dictionary: Any, column_encoding: Any, use_byte_stream_split: Any) -> tuple:
    """``column_encoding`` and ``use_byte_stream_split`` as (default encoding
    or None, {column: encoding}), with pyarrow's rules."""
    if column_encoding is not None:
        if use_dictionary is True:
            raise ValueError("To use 'column_encoding' set 'use_dictionary' to False")
        if isinstance(use_dictionary, (list, tuple)) and isinstance(column_encoding, dict):
            for column in use_dictionary:
                if column_encoding.get(column) is not None:
                    raise ValueError("To use 'column_encoding' set 'use_dictionary' to False")
    default = None
    columns: dict[str, str] = {}
    if isinstance(column_encoding, str):
        default = column_encoding.upper()
    elif isinstance(column_encoding, dict):
        columns = {str(c): str(e).upper() for c, e in column_encoding.items()}
    elif column_encoding is not None:
        raise TypeError("'column_encoding' should be a dictionary or a string")
    if use_byte_stream_split is True:
        if column_encoding is not None:
            raise ValueError("'use_byte_stream_split' cannot be passed together with 'column_encoding'")
        default = "BYTE_STREAM_SPLIT"
    elif use_byte_stream_split is not False and use_byte_stream_split is not None:
        for column in _names("use_byte_stream_split", use_byte_stream_split):
            if columns.get(column) is not None or default is not None:
                raise ValueError("'use_byte_stream_split' cannot be passed together with 'column_encoding'")
            columns[column] = "BYTE_STREAM_SPLIT"
    for e in ([default] if default else []) + list(columns.values()):
        if e not in ENCODINGS:
            raise ValueError(f"column_encoding: unsupported encoding {e!r}; valid: {', '.join(sorted(ENCODINGS))}")
    return default, columns


def bloom_filters_of(options: Any) -> dict:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"bloom_filter_options: expected a dict of column -> bool or dict, got {options!r}")
    out = {}
    for column, spec in options.items():
        if spec is False:
            continue
        if spec is True:
            spec = {}
        if not isinstance(spec, dict):
            raise TypeError(f"bloom_filter_options[{column!r}]: expected a bool or a dict with 'ndv' and 'fpp'")
        unknown = set(spec) - {"ndv", "fpp"}
        if unknown:
            raise ValueError(f"bloom_filter_options[{column!r}]: unknown keys {sorted(unknown)}")
        ndv = spec.get("ndv", BLOOM_NDV)
        fpp = spec.get("fpp", BLOOM_FPP)
        if isinstance(ndv, bool) or not isinstance(ndv, int) or ndv <= 0:
            raise ValueError(f"bloom_filter_options[{column!r}]: 'ndv' must be a positive int, got {ndv!r}")
        if not isinstance(fpp, (int, float)) or not 0.0 < fpp < 1.0:
            raise ValueError(f"bloom_filter_options[{column!r}]: 'fpp' must be between 0 and 1, got {fpp!r}")
        out[str(column)] = (ndv, float(fpp))
    return out


def cdc_of(value: Any) -> tuple | None:
    if value is False or value is None:
        return None
    if value is True:
        return (256 * 1024, 1024 * 1024, 0)
    if isinstance(value, dict):
        unknown = set(value) - {"min_chunk_size", "max_chunk_size", "norm_level"}
        missing = {"min_chunk_size", "max_chunk_size"} - set(value)
        if unknown:
            raise ValueError(f"Unknown options in 'use_content_defined_chunking': {unknown}")
        if missing:
            raise ValueError(f"Missing options in 'use_content_defined_chunking': {missing}")
        lo = _positive("use_content_defined_chunking['min_chunk_size']", value["min_chunk_size"])
        hi = _positive("use_content_defined_chunking['max_chunk_size']", value["max_chunk_size"])
        norm = value.get("norm_level", 0)
        if isinstance(norm, bool) or not isinstance(norm, int):
            raise TypeError("use_content_defined_chunking['norm_level'] must be an int")
        if lo >= hi:
            raise ValueError("use_content_defined_chunking: min_chunk_size must be below max_chunk_size")
        return (lo, hi, norm)
    raise TypeError("'use_content_defined_chunking' should be either boolean or a dictionary")


def sorting_of(columns: Any) -> list:
    if columns is None:
        return []
    out = []
    for c in columns:
        try:
            out.append((int(c.column_index), bool(c.descending), bool(c.nulls_first)))
        except AttributeError:
            raise TypeError(
                "sorting_columns: expected pyarrow.parquet.SortingColumn objects "
                "(column_index, descending, nulls_first)"
            ) from None
    return out


def row_group_size_of(value: Any) -> int:
    """pyarrow's rule: None is 1Mi rows, at most 64Mi, never 0."""
    if value is None or value == -1:
        return DEFAULT_ROW_GROUP_SIZE
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"row_group_size: expected an int, got {value!r}")
    if value == 0:
        raise ValueError("Row group size cannot be 0")
    if value < 0:
        raise ValueError(f"row_group_size: must be positive, got {value}")
    return min(value, MAX_ROW_GROUP_SIZE)


def threads_of(value: Any) -> int:
    if value is None:
        from . import _native

        return _native.default_threads()  # the cores this process may use
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"threads: expected a positive int or None, got {value!r}")
    return value


def where_of(value: Any) -> Any:
    """A path (as str) or a writable file object."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if "://" in path:
            raise ValueError(
                f"where={path!r}: parquet_flba writes local paths and file objects; open the "
                "remote file with its filesystem (e.g. fs.open_output_stream(path)) and pass that"
            )
        return path
    if hasattr(value, "write"):
        return value
    raise TypeError(f"where: expected a path (str or os.PathLike) or a writable binary file object, got {value!r}")


def normalize(
    *,
    version,
    use_dictionary,
    compression,
    write_statistics,
    use_deprecated_int96_timestamps,
    coerce_timestamps,
    allow_truncated_timestamps,
    data_page_size,
    flavor,
    filesystem,
    compression_level,
    use_byte_stream_split,
    column_encoding,
    writer_engine_version,
    data_page_version,
    use_compliant_nested_type,
    encryption_properties,
    write_batch_size,
    dictionary_pagesize_limit,
    store_schema,
    write_page_index,
    write_page_checksum,
    sorting_columns,
    store_decimal_as_integer,
    write_time_adjusted_to_utc,
    max_rows_per_page,
    bloom_filter_options,
    use_content_defined_chunking,
    extra,
) -> dict:
    """The options dict that ``_native`` takes (see ``src/options.rs``)."""
    if extra:
        name = sorted(extra)[0]
        if name == "metadata_collector":
            raise ValueError("metadata_collector is not supported by parquet_flba")
        raise TypeError(f"write_table() got an unexpected keyword argument {name!r}")
    if version not in ("1.0", "2.4", "2.6"):
        raise ValueError(f"Unsupported Parquet format version: {version}")
    if data_page_version not in ("1.0", "2.0"):
        raise ValueError(f"Unsupported Parquet data page version: {data_page_version}")
    _unsupported("use_deprecated_int96_timestamps", bool(use_deprecated_int96_timestamps), False,
                 "parquet cannot write INT96 timestamps")
    _unsupported("coerce_timestamps", coerce_timestamps, None,
                 "timestamps are written at their own resolution; cast the table first")
    _bool("allow_truncated_timestamps", allow_truncated_timestamps)  # only acts with coerce_timestamps
    _unsupported("flavor", flavor, None, "cast and rename the table for Spark first")
    _unsupported("filesystem", filesystem, None,
                 "open the file with the filesystem (fs.open_output_stream(path)) and pass that as where")
    _unsupported("encryption_properties", encryption_properties, None,
                 "pyarrow's encryption properties cannot be handed to parquet")
    _unsupported("write_page_checksum", write_page_checksum, False,
                 "parquet 60 does not write page checksums")
    if writer_engine_version not in (None, "V2"):
        raise ValueError(f"writer_engine_version={writer_engine_version!r}: only 'V2' exists")
    if store_decimal_as_integer is not None:
        _bool("store_decimal_as_integer", store_decimal_as_integer)
    default_encoding, column_encodings = encodings_of(use_dictionary, column_encoding, use_byte_stream_split)
    return {
        "compression": compression_of(compression, compression_level),
        "use_dictionary": _bool_or_columns("use_dictionary", use_dictionary),
        "write_statistics": _bool_or_columns("write_statistics", write_statistics),
        "encoding": (default_encoding, column_encodings),
        "bloom_filter": bloom_filters_of(bloom_filter_options),
        "data_page_size": _positive("data_page_size", data_page_size),
        "max_rows_per_page": _positive("max_rows_per_page", max_rows_per_page),
        "write_batch_size": _positive("write_batch_size", write_batch_size),
        "dictionary_pagesize_limit": _positive("dictionary_pagesize_limit", dictionary_pagesize_limit),
        "data_page_version": data_page_version,
        "version": version,
        "write_page_index": _bool("write_page_index", write_page_index),
        "cdc": cdc_of(use_content_defined_chunking),
        "store_schema": _bool("store_schema", store_schema),
        "sorting_columns": sorting_of(sorting_columns),
        "compliant_nested": _bool("use_compliant_nested_type", use_compliant_nested_type),
        "time_utc": _bool("write_time_adjusted_to_utc", write_time_adjusted_to_utc),
        "decimal_as_integer": store_decimal_as_integer,
    }
