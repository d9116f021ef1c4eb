//! parquet 60.1 and 60.2. See the module above; `docs/releases.md` lists
//! each difference (D-numbers) with both releases' source lines. The rules
//! that differ between 60.1 and 60.2 (D27-D32) read [`AT_60_2`].

use super::PageIndexes;
use parquet::basic::{ColumnOrder, LogicalType};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::Result;
use parquet::file::metadata::page_index::{PageIndexBuilder, PageIndexProvider};
use parquet::file::metadata::{ColumnIndexBuilder, ParquetMetaData, ParquetMetaDataBuilder};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::properties::{BloomFilterProperties, WriterProperties};
use parquet::file::statistics::ValueStatistics;
use parquet::schema::types::{ColumnDescriptor, ColumnPath};
use std::sync::Arc;

/// The releases of the 60 line whose writer this crate matches byte for
/// byte (`Cargo.toml` admits `>=60.1.0, <60.3`; where 60.1 and 60.2 differ,
/// the rule reads [`AT_60_2`]).
pub(crate) const VERIFIED_RELEASES: &[&str] = &["60.1.0", "60.2.0"];

/// The minor version of [`RESOLVED_RELEASE`](super::RESOLVED_RELEASE) (`2` for `"60.2.0"`): some
/// rules differ between the patch releases of one line (60.1 and 60.2).
const RESOLVED_MINOR: u32 = {
    let v = super::RESOLVED_RELEASE.as_bytes();
    let mut i = 0;
    while i < v.len() && v[i] != b'.' {
        i += 1;
    }
    i += 1;
    let mut minor = 0;
    while i < v.len() && v[i].is_ascii_digit() {
        minor = minor * 10 + (v[i] - b'0') as u32;
        i += 1;
    }
    minor
};

/// Whether the resolved release is 60.2 or later (the rules D27-D32).
const AT_60_2: bool = RESOLVED_MINOR >= 2;

/// D27: a chunk's `encodings` list RLE (for levels) only when the column
/// has levels and a data page was written (60.1: always).
pub(crate) const RLE_LISTED_ONLY_WITH_LEVELS: bool = AT_60_2;
/// D28: a page is a null page of the column index when all its levels are
/// nulls (60.1: when its nulls equal its rows, which lists mistake).
pub(crate) const NULL_PAGE_BY_LEVELS: bool = AT_60_2;
/// D29: with a byte limit on row groups, a batch into an empty row group
/// writes its first row alone (the size estimate then measures a row).
pub(crate) const ROW_GROUP_BYTES_FIRST_ROW_ALONE: bool = AT_60_2;
/// D30: a byte-budget window sized in levels holds at most twice the
/// values that fit the budget.
pub(crate) const LEVEL_WINDOWS_CAPPED_BY_VALUES: bool = AT_60_2;
/// D31: a page cut with nothing buffered (a content-defined chunk that
/// ended where a page was just cut) writes no page, and a chunk of no rows
/// no dictionary page (60.1: an empty data page, a dictionary page).
pub(crate) const EMPTY_PAGES_SKIPPED: bool = AT_60_2;
/// D32: `ArrowWriter::try_new` refuses a nullable map key before anything
/// else, an explicit Parquet schema too (60.1: only the schema converter
/// did).
pub(crate) const MAP_KEYS_CHECKED_FIRST: bool = AT_60_2;

/// D25: the byte-array writer takes dictionaries of `Utf8View` and
/// `BinaryView` (59 and 58 panic on one: `arrow_writer/byte_array.rs`'s
/// `downcast_op!` has no arm for them).
pub(crate) const DICTIONARY_OF_VIEWS: bool = true;

/// D1: FIXED_LEN_BYTE_ARRAY columns get a dictionary under `PARQUET_1_0`.
pub(crate) const FLBA_DICTIONARY_UNDER_V1: bool = true;
/// D14: the smallest decimal precision stored as INT32 (precision 1 is
/// INT32 in 60, INT64 in 59).
pub(crate) const DECIMAL_INT32_MIN_PRECISION: u8 = 1;
/// D2, D3: float and Float16 min/max by IEEE 754 total order (`-0 < +0`), an all-NaN
/// page gets NaN min/max; no zero replacement.
pub(crate) const FLOAT_TOTAL_ORDER: bool = true;
/// D4: float and Float16 statistics and column indexes carry NaN counts.
pub(crate) const NAN_COUNTS: bool = true;
/// D6: the DICTIONARY_PAGE entry of `encoding_stats` comes first.
pub(crate) const DICTIONARY_STATS_FIRST: bool = true;
/// D9: a page's first DELTA_BYTE_ARRAY value is exempt from the page limit.
pub(crate) const DELTA_FIRST_VALUE_EXEMPT: bool = true;
/// D10: DELTA_BYTE_ARRAY granular windows end after a number of values.
pub(crate) const DELTA_WINDOWS_BY_VALUES: bool = true;
/// D13, D15, D16: leaves under dictionary or run-end-encoded arrays are
/// written by this crate (their levels and values follow 60's rules).
pub(crate) const FAST_UNDER_DICTIONARY_OR_RUN_ENDS: bool = true;
/// D15: a null reached in a non-nullable field (also through a dictionary
/// or run-end-encoded array) is an error.
pub(crate) const REQUIRED_NULLS_REJECTED: bool = true;
/// Whether `ArrowWriter::write` looks through dictionary and run-end
/// layers at every depth when comparing a batch's types with the schema's
/// (60); 59 does so only at the top of a column.
pub(crate) const NESTED_TYPE_COMPATIBILITY: bool = true;

/// D24: `RleEncoder::len` (the size estimate of an RLE-encoded BOOLEAN
/// page) counts the pending values of the open bit-packed run, the partial
/// group included.
pub(crate) const RLE_LENGTH_COUNTS_PENDING_VALUES: bool = true;

/// D19: a write whose levels are compact (absent or one repeated value)
/// is cut into batches of `data_page_row_count_limit` levels rather than
/// `write_batch_size`.
pub(crate) const COMPACT_LEVELS_BATCHED_BY_ROW_LIMIT: bool = true;
/// D20: a batch whose values could overflow the page or dictionary byte
/// budget is written in smaller windows (`ByteBudgetChunker`).
pub(crate) const BYTE_BUDGET_WINDOWS: bool = true;
/// D21: a dictionary column's data pages go to the page writer as they are
/// cut (their headers count in the size estimate at once).
pub(crate) const DICTIONARY_DATA_PAGES_HELD: bool = false;

/// D22: `ArrowWriter` splices its chunks with one `write_all` per page
/// header and body (`append_column_from_pages`), which decides what the
/// file writer's `BufWriter` holds when `AsyncArrowWriter` takes the
/// written bytes (not the bytes of the file).
pub(crate) const PAGES_SPLICED_WHOLE: bool = true;

/// D18: a batch is split in a loop, the byte limit measured against the
/// rows the row limit already trimmed; what is left goes on as one piece.
pub(crate) const ROW_GROUP_SPLIT_MEASURES_TRIMMED_ROWS: bool = true;

/// D26: the fallback encoding is checked against the column's type when
/// the writer is created (`encodings/encoding/mod.rs:234`
/// `unsupported_column_encoding`).
pub(crate) const FALLBACK_ENCODING_CHECKED_AT_CREATION: bool = true;

/// The per-column data page row limit.
pub(crate) fn data_page_row_count_limit(props: &WriterProperties, path: &ColumnPath) -> usize {
    props.column_data_page_row_count_limit(path)
}

/// Whether a chunk whose data pages all use the dictionary keeps its bloom
/// filter (D7).
pub(crate) fn bloom_filter_for_dictionary_chunks(props: &WriterProperties) -> bool {
    props.bloom_filter_for_dictionary_encoded_chunks()
}

/// Whether chunk statistics carry the number of distinct values (D8).
pub(crate) fn write_distinct_counts(props: &WriterProperties) -> bool {
    props.write_row_group_number_distinct_values()
}

/// Block layout of DELTA_BINARY_PACKED streams (D12).
pub(crate) use parquet::file::properties::DeltaBinaryPackedEncoderOptions as DeltaOptions;

/// The column's DELTA_BINARY_PACKED block layout, if set (D12).
pub(crate) fn delta_options(props: &WriterProperties, path: &ColumnPath) -> Option<DeltaOptions> {
    props.delta_binary_packed_encoder_options(path)
}

/// `(values per block, miniblocks per block)` of `options`.
pub(crate) fn delta_layout(options: &DeltaOptions) -> (usize, usize) {
    (options.block_size(), options.mini_blocks_per_block())
}

/// Appends a page's column index entry (D4: with its NaN count).
pub(crate) fn column_index_append(
    builder: &mut ColumnIndexBuilder,
    null_page: bool,
    (min, max): (Vec<u8>, Vec<u8>),
    nulls: i64,
    nans: Option<i64>,
) {
    builder.append(null_page, min, max, nulls, nans);
}

/// `stats` with its NaN count (D4).
pub(crate) fn with_nan_count<T>(
    stats: ValueStatistics<T>,
    nans: Option<u64>,
) -> ValueStatistics<T> {
    stats.with_nan_count(nans)
}

/// The footer's column order of `descr` (D5).
pub(crate) fn column_order(descr: &ColumnDescriptor) -> ColumnOrder {
    ColumnOrder::column_order_for_type(
        descr.logical_type_ref(),
        descr.converted_type(),
        descr.physical_type(),
    )
}

/// The page indexes the inner writer wrote for `(row_group, column)`.
pub(crate) fn inner_page_index(
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> (Option<ColumnIndexMetaData>, Option<OffsetIndexMetaData>) {
    match metadata.page_index() {
        Some(pi) => (
            pi.column_index(row_group, column).cloned(),
            pi.offset_index(row_group, column).cloned(),
        ),
        None => (None, None),
    }
}

/// `builder` with the page indexes `indexes` (chunks without one: `None`).
/// (60.2 deprecates `put_*_index` for `try_put_*_index`, which 60.1 lacks.)
#[allow(deprecated)]
pub(crate) fn set_page_indexes(
    builder: ParquetMetaDataBuilder,
    (column_indexes, offset_indexes): PageIndexes,
) -> Result<ParquetMetaDataBuilder> {
    let row_groups = column_indexes.len();
    let columns = column_indexes.first().map_or(0, Vec::len);
    let mut index = PageIndexBuilder::new(row_groups, columns);
    for (rg, (cis, ois)) in column_indexes.into_iter().zip(offset_indexes).enumerate() {
        for (col, (ci, oi)) in cis.into_iter().zip(ois).enumerate() {
            if let Some(ci) = ci {
                index.put_column_index(ci, rg, col);
            }
            if let Some(oi) = oi {
                index.put_offset_index(oi, rg, col);
            }
        }
    }
    let index = index.build();
    let index = (index.has_column_indexes() || index.has_offset_indexes())
        .then(|| Arc::new(index) as Arc<dyn PageIndexProvider>);
    Ok(builder.set_page_index(index))
}

/// Writes `metadata`'s page indexes and footer to `out`.
pub(crate) fn write_footer<W: std::io::Write + Send>(
    out: parquet::file::writer::TrackedWrite<W>,
    metadata: &ParquetMetaData,
    props: &WriterProperties,
) -> Result<()> {
    parquet::file::metadata::ParquetMetaDataWriter::new_with_tracked(out, metadata)
        .with_write_path_in_schema(props.write_path_in_schema())
        .with_preserve_page_index_locations(false)
        .finish()
}

/// The `(scale, precision)` of a DECIMAL logical type.
pub(crate) fn decimal_scale_precision(logical: Option<&LogicalType>) -> Option<(i32, i32)> {
    match logical {
        Some(LogicalType::Decimal(d)) => Some((d.scale, d.precision)),
        _ => None,
    }
}

/// The INTEGER logical type of `bit_width` bits, signed or not.
pub(crate) fn integer_logical(bit_width: i8, is_signed: bool) -> LogicalType {
    LogicalType::integer(bit_width, is_signed)
}

/// The TIME logical type of `unit`, adjusted to UTC or not.
pub(crate) fn time_logical(utc: bool, unit: parquet::basic::TimeUnit) -> LogicalType {
    LogicalType::time(utc, unit)
}

/// The TIMESTAMP logical type of `unit`, adjusted to UTC or not.
pub(crate) fn timestamp_logical(utc: bool, unit: parquet::basic::TimeUnit) -> LogicalType {
    LogicalType::timestamp(utc, unit)
}

/// Whether `encoding` is ALP (parquet 60's floating-point encoding, which
/// this crate leaves to `parquet`; older releases have none).
pub(crate) fn is_alp(encoding: parquet::basic::Encoding) -> bool {
    encoding == parquet::basic::Encoding::ALP
}

/// A bloom filter's `(fpp, ndv)`.
pub(crate) fn bloom_filter_fpp_ndv(props: &BloomFilterProperties) -> (f64, u64) {
    (props.fpp(), props.ndv())
}

/// `close` for a chunk whose dictionary page (`dictionary_len` bytes, 0 if
/// none) was stored after its data pages but goes first in the file.
pub(crate) fn dictionary_first(
    close: ColumnCloseResult,
    dictionary_len: usize,
    _has_data_pages: bool,
) -> Result<ColumnCloseResult> {
    close.update_dictionary_location(dictionary_len)
}
