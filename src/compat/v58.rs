//! parquet 58.4 (58.4.0 and 58.4.1, whose write paths are identical). See
//! the module above; `docs/releases.md` lists each difference (D-numbers)
//! with the releases' source lines.

use super::PageIndexes;
use parquet::basic::{ColumnOrder, LogicalType};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ColumnIndexBuilder, ParquetMetaData, ParquetMetaDataBuilder};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::properties::{BloomFilterProperties, WriterProperties};
use parquet::file::statistics::ValueStatistics;
use parquet::schema::types::{ColumnDescriptor, ColumnPath};

/// The patch releases of the 58 line whose writer this crate matches byte
/// for byte: 58.4.0 and 58.4.1 differ only in `src/thrift.rs` (tests of
/// the legacy thrift reader), so `Cargo.toml` admits `>=58.4.0, <58.5`.
pub(crate) const VERIFIED_RELEASES: &[&str] = &["58.4.0", "58.4.1"];

/// D27-D32: the rules 60.2 changed, as every release before it has them.
pub(crate) use super::before_60_2::*;

/// D25: the byte-array writer takes dictionaries of `Utf8View` and
/// `BinaryView` (59 and 58 panic on one: `arrow_writer/byte_array.rs`'s
/// `downcast_op!` has no arm for them).
pub(crate) const DICTIONARY_OF_VIEWS: bool = false;

/// D1: no dictionary for FIXED_LEN_BYTE_ARRAY under `PARQUET_1_0`
/// (`has_dictionary_support`).
pub(crate) const FLBA_DICTIONARY_UNDER_V1: bool = false;
/// D14: the smallest decimal precision stored as INT32: 58's schema
/// converter stores precision 1 as INT64 (`precision > 1 && <= 9`), as
/// 59's does.
pub(crate) const DECIMAL_INT32_MIN_PRECISION: u8 = 2;
/// D2, D3: float and Float16 min/max skip NaN (an all-NaN page has none), a zero min
/// is written as -0 and a zero max as +0.
pub(crate) const FLOAT_TOTAL_ORDER: bool = false;
/// D4: no NaN counts anywhere.
pub(crate) const NAN_COUNTS: bool = false;
/// D6: the DICTIONARY_PAGE entry of `encoding_stats` comes first: 58's
/// column writer holds a dictionary column's data pages back and writes
/// the dictionary page before them.
pub(crate) const DICTIONARY_STATS_FIRST: bool = true;
/// D9: no exemption: once a page's estimate reaches the limit, a page is
/// cut after every mini-batch.
pub(crate) const DELTA_FIRST_VALUE_EXEMPT: bool = false;
/// D10: no granular windows at all in 58 (D20).
pub(crate) const DELTA_WINDOWS_BY_VALUES: bool = false;
/// D13, D15, D16: 58 writes leaves under dictionary arrays by other rules
/// (a dictionary of FixedSizeBinary through its byte-array writer, nulls
/// of a required field as stored): such leaves go to parquet's own column
/// writer. (58's schema converter refuses run-end-encoded fields, so no
/// plan ever holds one.)
pub(crate) const FAST_UNDER_DICTIONARY_OR_RUN_ENDS: bool = false;
/// D15: 58 does not check required fields for logical nulls.
pub(crate) const REQUIRED_NULLS_REJECTED: bool = false;
/// Batch types are compared with the schema's looking through a dictionary
/// only at the top of a column.
pub(crate) const NESTED_TYPE_COMPATIBILITY: bool = false;

/// D24: `RleEncoder::len` (the size estimate of an RLE-encoded BOOLEAN
/// page) counts only the bit-packed groups already written (with their
/// indicator byte), not the partial group.
pub(crate) const RLE_LENGTH_COUNTS_PENDING_VALUES: bool = false;

/// D19: every write is cut into batches of `write_batch_size` levels, also
/// when its levels are compact (58 materialises all levels).
pub(crate) const COMPACT_LEVELS_BATCHED_BY_ROW_LIMIT: bool = false;
/// D20: no byte budget windows: a batch is written whole, whatever its
/// values' size (58 has no `ByteBudgetChunker`).
pub(crate) const BYTE_BUDGET_WINDOWS: bool = false;
/// D21: 58's column writer holds a dictionary column's data pages back
/// until the dictionary page is written, and its size estimate
/// (`get_estimated_total_bytes`, hence `in_progress_size` and the
/// `max_row_group_bytes` split) counts a held page without its header.
pub(crate) const DICTIONARY_DATA_PAGES_HELD: bool = true;

/// D22: 58's `ArrowWriter` splices its chunks through `append_column`,
/// whose `io::copy` hands each page header and body to the file writer's
/// `BufWriter` in 8 KiB pieces, front first: what `AsyncArrowWriter` gets
/// at each write differs from 59's (not the bytes of the file).
pub(crate) const PAGES_SPLICED_WHOLE: bool = false;

/// D18: a batch is split recursively: the row limit's two pieces are
/// written one after the other, each split again by the byte limit.
pub(crate) const ROW_GROUP_SPLIT_MEASURES_TRIMMED_ROWS: bool = false;

/// D26: the fallback encoding is not checked against the column's type:
/// RLE and DELTA_LENGTH_BYTE_ARRAY (and DELTA_BYTE_ARRAY on INT32/INT64)
/// get an encoder on any type (`encodings/encoding/mod.rs:83` `get_encoder`),
/// which panics only when given values (a column whose dictionary never
/// falls back is written normally).
pub(crate) const FALLBACK_ENCODING_CHECKED_AT_CREATION: bool = false;

/// The data page row limit (one for all columns in 58).
pub(crate) fn data_page_row_count_limit(props: &WriterProperties, _path: &ColumnPath) -> usize {
    props.data_page_row_count_limit()
}

/// 58 always keeps a chunk's bloom filter (D7).
pub(crate) fn bloom_filter_for_dictionary_chunks(_props: &WriterProperties) -> bool {
    true
}

/// 58 never writes distinct counts (D8).
pub(crate) fn write_distinct_counts(_props: &WriterProperties) -> bool {
    false
}

/// 58 has no DELTA_BINARY_PACKED options (D12): a type without values, so
/// `Option<DeltaOptions>` is always `None`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DeltaOptions {}

/// Always `None` (D12).
pub(crate) fn delta_options(_props: &WriterProperties, _path: &ColumnPath) -> Option<DeltaOptions> {
    None
}

/// Never called: there is no value of `DeltaOptions`.
pub(crate) fn delta_layout(options: &DeltaOptions) -> (usize, usize) {
    match *options {}
}

/// Appends a page's column index entry (no NaN counts in 58).
pub(crate) fn column_index_append(
    builder: &mut ColumnIndexBuilder,
    null_page: bool,
    (min, max): (Vec<u8>, Vec<u8>),
    nulls: i64,
    _nans: Option<i64>,
) {
    builder.append(null_page, min, max, nulls);
}

/// `stats` unchanged (no NaN counts in 58).
pub(crate) fn with_nan_count<T>(
    stats: ValueStatistics<T>,
    _nans: Option<u64>,
) -> ValueStatistics<T> {
    stats
}

/// The footer's column order of `descr`: the type-defined order by its sort
/// order (D5: Float16 is SIGNED in 58).
pub(crate) fn column_order(descr: &ColumnDescriptor) -> ColumnOrder {
    ColumnOrder::TYPE_DEFINED_ORDER(ColumnOrder::sort_order_for_type(
        descr.logical_type_ref(),
        descr.converted_type(),
        descr.physical_type(),
    ))
}

/// The page indexes the inner writer wrote for `(row_group, column)`
/// (a missing column index is `ColumnIndexMetaData::NONE` in 58).
pub(crate) fn inner_page_index(
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> (Option<ColumnIndexMetaData>, Option<OffsetIndexMetaData>) {
    let ci = metadata
        .column_index()
        .and_then(|ci| ci.get(row_group)?.get(column))
        .filter(|ci| !matches!(ci, ColumnIndexMetaData::NONE))
        .cloned();
    let oi = metadata
        .offset_index()
        .and_then(|oi| oi.get(row_group)?.get(column))
        .cloned();
    (ci, oi)
}

/// `builder` with the page indexes `indexes`. 58 keeps one column index per
/// chunk (`NONE` where there is none) and an offset index for every chunk or
/// for none (it is a file-wide setting there).
pub(crate) fn set_page_indexes(
    builder: ParquetMetaDataBuilder,
    (column_indexes, offset_indexes): PageIndexes,
) -> Result<ParquetMetaDataBuilder> {
    let any_ci = column_indexes.iter().flatten().any(Option::is_some);
    let column_index = any_ci.then(|| {
        column_indexes
            .into_iter()
            .map(|rg| {
                rg.into_iter()
                    .map(|ci| ci.unwrap_or(ColumnIndexMetaData::NONE))
                    .collect()
            })
            .collect()
    });
    let any_oi = offset_indexes.iter().flatten().any(Option::is_some);
    let offset_index = match any_oi {
        false => None,
        true => Some(
            offset_indexes
                .into_iter()
                .map(|rg| rg.into_iter().collect::<Option<Vec<_>>>())
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    ParquetError::General(
                        "parquet-flba bug: some column chunks have an offset index and some do \
                         not, which parquet 58 cannot write"
                            .into(),
                    )
                })?,
        ),
    };
    Ok(builder
        .set_column_index(column_index)
        .set_offset_index(offset_index))
}

/// Writes `metadata`'s page indexes and footer to `out`.
pub(crate) fn write_footer<W: std::io::Write + Send>(
    out: parquet::file::writer::TrackedWrite<W>,
    metadata: &ParquetMetaData,
    props: &WriterProperties,
) -> Result<()> {
    // 58 always writes each chunk's path in the schema (59's
    // `write_path_in_schema` default).
    let _ = props;
    parquet::file::metadata::ParquetMetaDataWriter::new_with_tracked(out, metadata).finish()
}

/// The `(scale, precision)` of a DECIMAL logical type (a struct variant in 58).
pub(crate) fn decimal_scale_precision(logical: Option<&LogicalType>) -> Option<(i32, i32)> {
    match logical {
        Some(LogicalType::Decimal { scale, precision }) => Some((*scale, *precision)),
        _ => None,
    }
}

/// The INTEGER logical type of `bit_width` bits, signed or not.
pub(crate) fn integer_logical(bit_width: i8, is_signed: bool) -> LogicalType {
    LogicalType::Integer {
        bit_width,
        is_signed,
    }
}

/// The TIME logical type of `unit`, adjusted to UTC or not.
pub(crate) fn time_logical(utc: bool, unit: parquet::basic::TimeUnit) -> LogicalType {
    LogicalType::Time {
        is_adjusted_to_u_t_c: utc,
        unit,
    }
}

/// The TIMESTAMP logical type of `unit`, adjusted to UTC or not.
pub(crate) fn timestamp_logical(utc: bool, unit: parquet::basic::TimeUnit) -> LogicalType {
    LogicalType::Timestamp {
        is_adjusted_to_u_t_c: utc,
        unit,
    }
}

/// Whether `encoding` is ALP (parquet 60's floating-point encoding, which
/// this crate leaves to `parquet`; older releases have none).
pub(crate) fn is_alp(encoding: parquet::basic::Encoding) -> bool {
    let _ = encoding;
    false
}

/// A bloom filter's `(fpp, ndv)` (public fields in 58).
pub(crate) fn bloom_filter_fpp_ndv(props: &BloomFilterProperties) -> (f64, u64) {
    (props.fpp, props.ndv)
}

/// `close` for a chunk whose dictionary page (`dictionary_len` bytes, 0 if
/// none) was stored after its data pages but goes first in the file: the
/// dictionary page at offset 0, every data page `dictionary_len` further.
/// (58's column writer holds the data pages back and writes the dictionary
/// page first, so its offsets come out this way directly; a chunk without
/// data pages keeps a data page offset of 0 there, where 59 moves it past
/// the dictionary page.)
pub(crate) fn dictionary_first(
    mut close: ColumnCloseResult,
    dictionary_len: usize,
    has_data_pages: bool,
) -> Result<ColumnCloseResult> {
    if dictionary_len == 0 || !has_data_pages {
        // (No data page: nothing to move, and the dictionary page is at 0.)
        return Ok(close);
    }
    let shift = i64::try_from(dictionary_len)
        .map_err(|_| ParquetError::General("dictionary page too large".into()))?;
    close.metadata = close
        .metadata
        .into_builder()
        .set_dictionary_page_offset(Some(0))
        .set_data_page_offset(shift)
        .build()?;
    if let Some(index) = close.offset_index.as_mut() {
        let mut offset = shift;
        for page in &mut index.page_locations {
            page.offset = offset;
            offset += i64::from(page.compressed_page_size);
        }
    }
    Ok(close)
}
