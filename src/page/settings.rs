//! [`ColumnSettings`]: what the page builder (and the leaf writer driving it)
//! needs from the `WriterProperties` for one column, resolved once.

use crate::compat;
use crate::values::ValueOrder;
use parquet::basic::{Compression, ConvertedType, LogicalType, SortOrder, Type as PhysicalType};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnDescPtr;

/// Per-column settings, resolved once from the `WriterProperties`.
#[derive(Debug, Clone)]
pub(crate) struct ColumnSettings {
    /// Bytes per value in Parquet form; None where values vary in width
    /// (BYTE_ARRAY).
    pub width: Option<usize>,
    /// The physical type.
    pub physical: PhysicalType,
    /// How values are ordered for statistics.
    pub order: ValueOrder,
    /// Maximum definition level.
    pub max_def: i16,
    /// Maximum repetition level.
    pub max_rep: i16,
    /// `descr.sort_order().is_signed()`: chunk statistics also fill the
    /// deprecated min/max fields.
    pub signed: bool,
    /// Binary statistics may be truncated (FIXED_LEN_BYTE_ARRAY and
    /// BYTE_ARRAY, not decimal, not Float16).
    pub truncatable: bool,
    /// A UTF-8 column (logical String or converted UTF8): valid UTF-8 is
    /// truncated on character boundaries.
    pub utf8: bool,
    /// Floating-point values (FLOAT, DOUBLE, Float16): NaNs are counted.
    pub floating: bool,
    /// Data page version.
    pub version: WriterVersion,
    /// Page compression.
    pub compression: Compression,
    /// Statistics level.
    pub statistics: EnabledStatistics,
    /// Whether data page headers carry statistics.
    pub page_header_statistics: bool,
    /// Data page byte limit.
    pub data_page_size_limit: usize,
    /// Data page row limit.
    pub data_page_row_count_limit: usize,
    /// Dictionary page byte limit (the fallback point).
    pub dictionary_page_size_limit: usize,
    /// Levels per mini-batch.
    pub write_batch_size: usize,
    /// V2 pages stay uncompressed unless compression saves this ratio.
    pub v2_compression_threshold: f64,
    /// Truncation of column index min/max.
    pub column_index_truncate_length: Option<usize>,
    /// Truncation of statistics min/max.
    pub statistics_truncate_length: Option<usize>,
    /// Whether an offset index is written.
    pub offset_index: bool,
    /// Whether a bloom filter is kept for a chunk whose pages all use the
    /// dictionary.
    pub bloom_filter_for_dictionary_chunks: bool,
}

impl ColumnSettings {
    /// Resolves the settings of `descr` (a leaf this crate writes) whose
    /// values are ordered by `order`.
    pub(crate) fn resolve(
        descr: &ColumnDescPtr,
        props: &WriterProperties,
        order: ValueOrder,
    ) -> Self {
        let path = descr.path();
        let is_decimal = descr.converted_type() == ConvertedType::DECIMAL
            || matches!(descr.logical_type_ref(), Some(LogicalType::Decimal { .. }));
        let float16 = matches!(descr.logical_type_ref(), Some(LogicalType::Float16));
        Self {
            width: crate::values::value_width(descr),
            physical: descr.physical_type(),
            order,
            max_def: descr.max_def_level(),
            max_rep: descr.max_rep_level(),
            signed: descr.sort_order() == SortOrder::SIGNED,
            truncatable: matches!(
                descr.physical_type(),
                PhysicalType::FIXED_LEN_BYTE_ARRAY | PhysicalType::BYTE_ARRAY
            ) && !is_decimal
                && !float16,
            utf8: descr.logical_type_ref() == Some(&LogicalType::String)
                || descr.converted_type() == ConvertedType::UTF8,
            floating: order == ValueOrder::Float,
            version: props.writer_version(),
            compression: props.compression(path),
            statistics: props.statistics_enabled(path),
            page_header_statistics: props.write_page_header_statistics(path),
            data_page_size_limit: props.column_data_page_size_limit(path),
            data_page_row_count_limit: compat::data_page_row_count_limit(props, path),
            dictionary_page_size_limit: props.column_dictionary_page_size_limit(path),
            write_batch_size: props.write_batch_size(),
            v2_compression_threshold: props.column_data_page_v2_compression_ratio_threshold(path),
            column_index_truncate_length: props.column_index_truncate_length(),
            statistics_truncate_length: props.statistics_truncate_length(),
            offset_index: !props.offset_index_disabled(),
            bloom_filter_for_dictionary_chunks: compat::bloom_filter_for_dictionary_chunks(props),
        }
    }

    /// Whether level histograms are kept for a level with this maximum.
    pub(crate) fn histograms(&self, max_level: i16) -> bool {
        self.statistics != EnabledStatistics::None && max_level > 0
    }
}
