//! The page builder: everything `parquet`'s `GenericColumnWriter` does for a
//! FIXED_LEN_BYTE_ARRAY leaf once levels and values are known.
//!
//! It takes mini-batches (levels plus the batch's non-null values, already in
//! Parquet form), feeds the definition-level encoder and the value encoder,
//! keeps page and chunk statistics, and cuts pages exactly where `parquet`
//! does: after each mini-batch, on the row-count or byte limit, then checks
//! whether the dictionary must fall back. Pages are compressed, given headers
//! and handed to the chunk's [`PageSink`]; the column index, offset index,
//! encoding statistics, level histograms and bloom filter are built on the way.

pub(crate) mod bloom;
pub(crate) mod header;
pub(crate) mod statistics;

use crate::chunk::{FlbaChunk, PageSink};
use crate::encoding::rle::{RleEncoder, num_required_bits};
use crate::encoding::{Fallback, ValueEncoder};
use crate::values::{ValueOrder, ValueSource};
use bloom::BloomFilter;
use header::{PageKind, PageStatistics, write_page_header};
use parquet::basic::{
    BoundaryOrder, Compression, ConvertedType, Encoding, EncodingMask, LogicalType, PageType,
    SortOrder, Type as PhysicalType,
};
use parquet::column::writer::ColumnCloseResult;
use parquet::compression::{Codec, CodecOptionsBuilder, create_codec};
use parquet::data_type::FixedLenByteArray;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{
    ColumnChunkMetaData, ColumnIndexBuilder, LevelHistogram, OffsetIndexBuilder, PageEncodingStats,
};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::statistics::{Statistics, ValueStatistics};
use parquet::schema::types::ColumnDescPtr;
use statistics::{MinMax, batch_min_max, truncate_max, truncate_min};

/// Per-column settings, resolved once from the `WriterProperties`.
#[derive(Debug, Clone)]
pub(crate) struct ColumnSettings {
    pub width: usize,
    pub order: ValueOrder,
    pub max_def: i16,
    pub max_rep: i16,
    /// `descr.sort_order().is_signed()`: chunk statistics also fill the
    /// deprecated min/max fields.
    pub signed: bool,
    /// Binary statistics may be truncated (not decimal, not Float16).
    pub truncatable: bool,
    /// Float16 column: NaNs are counted.
    pub float16: bool,
    pub version: WriterVersion,
    pub compression: Compression,
    pub dictionary: bool,
    pub statistics: EnabledStatistics,
    pub page_header_statistics: bool,
    pub data_page_size_limit: usize,
    pub data_page_row_count_limit: usize,
    pub dictionary_page_size_limit: usize,
    pub write_batch_size: usize,
    pub v2_compression_threshold: f64,
    pub column_index_truncate_length: Option<usize>,
    pub statistics_truncate_length: Option<usize>,
    pub offset_index: bool,
    pub bloom_filter_for_dictionary_chunks: bool,
}

impl ColumnSettings {
    /// Resolves the settings of `descr` (a FIXED_LEN_BYTE_ARRAY leaf without
    /// repetition) whose values are ordered by `order`.
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
            width: descr.type_length().max(0) as usize,
            order,
            max_def: descr.max_def_level(),
            max_rep: descr.max_rep_level(),
            signed: descr.sort_order() == SortOrder::SIGNED,
            truncatable: descr.physical_type() == PhysicalType::FIXED_LEN_BYTE_ARRAY
                && !is_decimal
                && !float16,
            float16,
            version: props.writer_version(),
            compression: props.compression(path),
            dictionary: props.dictionary_enabled(path),
            statistics: props.statistics_enabled(path),
            page_header_statistics: props.write_page_header_statistics(path),
            data_page_size_limit: props.column_data_page_size_limit(path),
            data_page_row_count_limit: props.column_data_page_row_count_limit(path),
            dictionary_page_size_limit: props.column_dictionary_page_size_limit(path),
            write_batch_size: props.write_batch_size(),
            v2_compression_threshold: props.column_data_page_v2_compression_ratio_threshold(path),
            column_index_truncate_length: props.column_index_truncate_length(),
            statistics_truncate_length: props.statistics_truncate_length(),
            offset_index: !props.offset_index_disabled(),
            bloom_filter_for_dictionary_chunks: props.bloom_filter_for_dictionary_encoded_chunks(),
        }
    }

    /// Whether min/max are gathered at all.
    pub(crate) fn min_max(&self) -> bool {
        self.statistics != EnabledStatistics::None && self.order != ValueOrder::Undefined
    }
}

/// How definition levels of a mini-batch are given.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MiniBatchLevels<'a> {
    /// `max_def == 0`: every level is a value.
    Absent,
    /// Every level has this value.
    Uniform(i16),
    /// Levels from a validity bitmap: `(bitmap bytes, bit offset)`; a set bit is
    /// level 1, a clear bit level 0 (a top-level nullable leaf).
    Bitmap(&'a [u8], usize),
    /// Levels as they are.
    Slice(&'a [i16]),
}

/// Builds the pages of one column chunk.
pub(crate) struct PageBuilder {
    s: ColumnSettings,
    descr: ColumnDescPtr,
    codec: Option<Box<dyn Codec>>,
    values: ValueEncoder,
    def_levels: RleEncoder,
    rep_levels: RleEncoder,
    bloom: Option<BloomFilter>,
    sink: PageSink,

    // current page
    page_levels: u32,
    page_rows: u32,
    page_nulls: u64,
    page_exemption: usize,
    page_def_hist: Vec<i64>,
    page_rep_hist: Vec<i64>,
    page_min_max: MinMax,
    page_nans: Option<u64>,

    // column chunk
    total_bytes_written: u64,
    total_rows_written: u64,
    total_uncompressed: u64,
    total_compressed: u64,
    total_num_values: u64,
    dictionary_page_offset: Option<u64>,
    data_page_offset: Option<u64>,
    chunk_min_max: MinMax,
    chunk_nulls: u64,
    chunk_nans: Option<u64>,
    chunk_def_hist: Vec<i64>,
    chunk_rep_hist: Vec<i64>,
    /// Encodings used, starting with RLE (levels); a small list, no allocation
    /// until a third encoding appears.
    encodings: Vec<Encoding>,
    encoding_stats: Vec<PageEncodingStats>,
    column_index: ColumnIndexBuilder,
    offset_index: Option<OffsetIndexBuilder>,
    ascending: bool,
    descending: bool,
    last_page: MinMax,

    // reusable buffers
    page_buf: Vec<u8>,
    compressed: Vec<u8>,
    header: Vec<u8>,
    levels: Vec<u8>,
    scratch: Vec<u8>,
    /// Level bytes of the last page, to size the room left for the next.
    last_levels_len: usize,
}

impl std::fmt::Debug for PageBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageBuilder")
            .field("column", &self.descr.path())
            .field("settings", &self.s)
            .finish_non_exhaustive()
    }
}

impl PageBuilder {
    pub(crate) fn try_new(
        descr: ColumnDescPtr,
        props: &WriterProperties,
        order: ValueOrder,
        sink: PageSink,
    ) -> Result<Self> {
        let s = ColumnSettings::resolve(&descr, props, order);
        let path = descr.path();
        let fallback_encoding = props.encoding(path).unwrap_or(match s.version {
            WriterVersion::PARQUET_1_0 => Encoding::PLAIN,
            WriterVersion::PARQUET_2_0 => Encoding::DELTA_BYTE_ARRAY,
        });
        let fallback = Fallback::try_new(
            fallback_encoding,
            s.width,
            props.delta_binary_packed_encoder_options(path),
        )?;
        let codec = create_codec(s.compression, &CodecOptionsBuilder::default().build())?;
        let bloom = props
            .bloom_filter_properties(path)
            .map(BloomFilter::try_new)
            .transpose()?;
        let mut column_index = ColumnIndexBuilder::new(PhysicalType::FIXED_LEN_BYTE_ARRAY);
        if s.statistics != EnabledStatistics::Page {
            column_index.to_invalid();
        }
        let encodings = Vec::new();
        Ok(Self {
            values: ValueEncoder::new(s.width, s.dictionary, fallback),
            def_levels: RleEncoder::new(num_required_bits(s.max_def as u64)),
            rep_levels: RleEncoder::new(num_required_bits(s.max_rep as u64)),
            codec,
            bloom,
            sink,
            page_levels: 0,
            page_rows: 0,
            page_nulls: 0,
            page_exemption: 0,
            page_def_hist: histogram(&s, s.max_def),
            page_rep_hist: histogram(&s, s.max_rep),
            page_min_max: MinMax::default(),
            page_nans: None,
            total_bytes_written: 0,
            total_rows_written: 0,
            total_uncompressed: 0,
            total_compressed: 0,
            total_num_values: 0,
            dictionary_page_offset: None,
            data_page_offset: None,
            chunk_min_max: MinMax::default(),
            chunk_nulls: 0,
            chunk_nans: None,
            chunk_def_hist: histogram(&s, s.max_def),
            chunk_rep_hist: histogram(&s, s.max_rep),
            encodings,
            encoding_stats: Vec::new(),
            column_index,
            offset_index: s.offset_index.then(OffsetIndexBuilder::new),
            ascending: true,
            descending: true,
            last_page: MinMax::default(),
            page_buf: Vec::new(),
            compressed: Vec::new(),
            header: Vec::new(),
            levels: Vec::new(),
            scratch: Vec::new(),
            last_levels_len: 0,
            s,
            descr,
        })
    }

    /// The column's dotted path, for error messages.
    pub(crate) fn column_name(&self) -> String {
        self.descr.path().string()
    }

    pub(crate) fn settings(&self) -> &ColumnSettings {
        &self.s
    }

    /// Whether values currently go to a dictionary.
    pub(crate) fn has_dictionary(&self) -> bool {
        self.values.has_dictionary()
    }

    /// Dictionary page size estimate while a dictionary is active.
    pub(crate) fn estimated_dict_page_size(&self) -> Option<usize> {
        self.values.estimated_dict_page_size()
    }

    /// Whether the current encoder stores values against the previous one.
    pub(crate) fn compresses_against_previous_value(&self) -> bool {
        self.values.compresses_against_previous_value()
    }

    /// `parquet`'s `get_estimated_total_bytes` for this column.
    pub(crate) fn estimated_total_bytes(&self) -> u64 {
        self.total_bytes_written
            + self.values.estimated_data_page_size() as u64
            + self.values.estimated_dict_page_size().unwrap_or(0) as u64
    }

    /// Heap bytes held by the builder.
    pub(crate) fn memory_size(&self) -> usize {
        self.values.memory_size()
            + self.def_levels.memory_size()
            + self.rep_levels.memory_size()
            + self.bloom.as_ref().map_or(0, BloomFilter::memory_size)
            + self.sink.memory_size()
            + self.page_buf.capacity()
            + self.compressed.capacity()
            + self.header.capacity()
            + self.levels.capacity()
            + self.scratch.capacity()
    }

    /// Writes one mini-batch: `num_levels` levels given by `levels`, and the
    /// batch's non-null values.
    pub(crate) fn write_mini_batch(
        &mut self,
        num_levels: usize,
        levels: MiniBatchLevels<'_>,
        values: &impl ValueSource,
    ) -> Result<()> {
        self.write_mini_batch_nested(num_levels, levels, MiniBatchLevels::Absent, values)
    }

    /// Writes one mini-batch with definition and repetition levels; the
    /// repetition levels must start at a record boundary.
    pub(crate) fn write_mini_batch_nested(
        &mut self,
        num_levels: usize,
        def: MiniBatchLevels<'_>,
        rep: MiniBatchLevels<'_>,
        values: &impl ValueSource,
    ) -> Result<()> {
        let num_values = values.count();
        match def {
            MiniBatchLevels::Absent => {}
            MiniBatchLevels::Uniform(level) => {
                self.def_levels.put_run(level as u32, num_levels);
                if let Some(h) = self.page_def_hist.get_mut(level as usize) {
                    *h += num_levels as i64;
                }
            }
            MiniBatchLevels::Bitmap(bits, offset) => {
                self.def_levels.put_bits(bits, offset, num_levels);
                if let [nulls, valid, ..] = self.page_def_hist.as_mut_slice() {
                    *valid += num_values as i64;
                    *nulls += (num_levels - num_values) as i64;
                }
            }
            MiniBatchLevels::Slice(levels) => {
                put_level_runs(&mut self.def_levels, &mut self.page_def_hist, levels);
            }
        }
        self.page_nulls += (num_levels - num_values) as u64;
        if self.s.max_rep > 0 {
            let rows = match rep {
                MiniBatchLevels::Uniform(level) => {
                    self.rep_levels.put_run(level as u32, num_levels);
                    if let Some(h) = self.page_rep_hist.get_mut(level as usize) {
                        *h += num_levels as i64;
                    }
                    if level == 0 { num_levels } else { 0 }
                }
                MiniBatchLevels::Slice(levels) => {
                    put_level_runs(&mut self.rep_levels, &mut self.page_rep_hist, levels);
                    levels.iter().filter(|&&l| l == 0).count()
                }
                _ => {
                    return Err(ParquetError::General(format!(
                        "Repetition levels are required, because max repetition level = {}",
                        self.s.max_rep
                    )));
                }
            };
            self.page_rows += rows as u32;
        } else {
            self.page_rows += num_levels as u32;
        }

        self.put_values(values)?;

        let page_was_empty = self.page_levels == 0;
        self.page_levels += num_levels as u32;
        if page_was_empty && num_values == 1 && self.values.compresses_against_previous_value() {
            let size = self.values.estimated_data_page_size();
            if size >= self.s.data_page_size_limit {
                self.page_exemption = size;
            }
        }
        if self.should_add_data_page() {
            self.add_data_page()?;
        }
        if self
            .values
            .estimated_dict_page_size()
            .is_some_and(|size| size >= self.s.dictionary_page_size_limit)
        {
            self.dict_fallback()?;
        }
        Ok(())
    }

    /// Hands a mini-batch's values to the encoder, converting them straight
    /// into the page buffer when the encoding allows, and folds them into
    /// the statistics and the bloom filter.
    fn put_values(&mut self, src: &impl ValueSource) -> Result<()> {
        let n = src.count();
        if n == 0 {
            return Ok(());
        }
        let reserve = self.page_reserve();
        let s = &self.s;
        let bloom = match self.values.has_dictionary() {
            true => None,
            false => self.bloom.as_mut(),
        };
        let stats = Observer {
            s,
            min_max: &mut self.page_min_max,
            nans: &mut self.page_nans,
            bloom,
        };
        let want = s.min_max();
        if self.values.is_plain() && self.sink.direct() {
            let buf = self.sink.values_buffer(reserve, n * s.width);
            let start = buf.len();
            let extremes = match src.borrowed() {
                Some(values) => {
                    buf.extend_from_slice(values);
                    None
                }
                None => src.append_to(buf, want),
            };
            stats.observe(&buf[start..], extremes)?;
            self.values.appended_external(n, n * s.width);
        } else if let Some(values) = src.borrowed() {
            stats.observe(values, None)?;
            self.values.put(values);
        } else if let Some(buf) = self.values.direct_buffer() {
            let start = buf.len();
            let extremes = src.append_to(buf, want);
            stats.observe(&buf[start..], extremes)?;
            self.values.appended(n);
        } else {
            self.scratch.clear();
            let extremes = src.append_to(&mut self.scratch, want);
            stats.observe(&self.scratch, extremes)?;
            self.values.put(&self.scratch);
        }
        Ok(())
    }

    /// Room left in front of in-place PLAIN values for the page header (with
    /// its statistics) and, for V1/V2 nullable pages, the levels.
    fn page_reserve(&self) -> usize {
        let s = &self.s;
        let stats = if s.page_header_statistics {
            let len = match (s.truncatable, s.statistics_truncate_length) {
                (true, Some(l)) => s.width.min(l),
                _ => s.width,
            };
            2 * len + 48
        } else {
            0
        };
        let levels = if s.max_def > 0 {
            self.last_levels_len + 32
        } else {
            0
        };
        64 + stats + levels
    }

    fn should_add_data_page(&self) -> bool {
        if self.page_levels == 0 {
            return false;
        }
        self.page_rows as usize >= self.s.data_page_row_count_limit
            || self
                .values
                .estimated_data_page_size()
                .saturating_sub(self.page_exemption)
                >= self.s.data_page_size_limit
    }

    fn dict_fallback(&mut self) -> Result<()> {
        if self.page_levels > 0 {
            self.add_data_page()?;
        }
        self.write_dictionary_page()
    }

    /// Cuts the current page, even an empty one.
    pub(crate) fn add_data_page(&mut self) -> Result<()> {
        // Statistics and index entries first: they do not depend on the bytes.
        let s = &self.s;
        self.chunk_nulls += self.page_nulls;
        if let Some(nans) = self.page_nans {
            *self.chunk_nans.get_or_insert(0) += nans;
        }
        let has_min_max = self.page_min_max.is_set();
        if has_min_max {
            self.chunk_min_max.merge(s.order, &self.page_min_max);
        }
        let page_stats = has_min_max && s.statistics == EnabledStatistics::Page;
        self.update_indexes(page_stats);
        if self.s.statistics != EnabledStatistics::None {
            for (c, p) in self.chunk_def_hist.iter_mut().zip(&self.page_def_hist) {
                *c += p;
            }
            for (c, p) in self.chunk_rep_hist.iter_mut().zip(&self.page_rep_hist) {
                *c += p;
            }
        }

        let s = &self.s;
        // Page header statistics, truncated like chunk statistics.
        let header_stats = (page_stats && s.page_header_statistics).then(|| {
            let (min, max) = (
                self.page_min_max.min().unwrap(),
                self.page_min_max.max().unwrap(),
            );
            if s.truncatable {
                let (min, min_t) = truncate_min(min, s.statistics_truncate_length);
                let (max, max_t) = truncate_max(max, s.statistics_truncate_length);
                (min, max, !min_t, !max_t, None)
            } else {
                let nans = self.page_nans.map(|n| n as i64);
                (min.to_vec(), max.to_vec(), true, true, nans)
            }
        });
        let statistics =
            header_stats
                .as_ref()
                .map(
                    |(min, max, min_exact, max_exact, nan_count)| PageStatistics {
                        null_count: self.page_nulls as i64,
                        min,
                        max,
                        min_exact: *min_exact,
                        max_exact: *max_exact,
                        nan_count: *nan_count,
                    },
                );

        // Levels (V1: each with a 4-byte length prefix), repetition first.
        self.levels.clear();
        if s.max_rep > 0 {
            finish_levels(&mut self.rep_levels, s.version, &mut self.levels);
        }
        let rep_len = self.levels.len();
        if s.max_def > 0 {
            finish_levels(&mut self.def_levels, s.version, &mut self.levels);
        }
        self.last_levels_len = self.levels.len();
        let levels = self.levels.as_slice();
        // PLAIN values may already sit in the sink, where the page goes.
        let in_place = self.sink.has_open_page();
        let (encoding, encoded) = self.values.finish_page();
        let values = if in_place {
            self.sink.open_values()
        } else {
            encoded
        };
        let uncompressed = levels.len() + values.len();

        // The body: either the values stay where they are (only the header and
        // levels are added in front), or the page is written out whole.
        let (body, is_compressed): (Option<&[u8]>, bool) = match (&mut self.codec, s.version) {
            (None, _) => (None, false),
            (Some(codec), WriterVersion::PARQUET_1_0) => {
                self.page_buf.clear();
                self.page_buf.extend_from_slice(levels);
                self.page_buf.extend_from_slice(values);
                self.compressed.clear();
                self.compressed.reserve(uncompressed);
                codec.compress(&self.page_buf, &mut self.compressed)?;
                (Some(&self.compressed), true)
            }
            (Some(codec), WriterVersion::PARQUET_2_0) => {
                self.compressed.clear();
                codec.compress(values, &mut self.compressed)?;
                if (self.compressed.len() as f64)
                    >= (uncompressed as f64) * s.v2_compression_threshold
                {
                    (None, false)
                } else {
                    (Some(&self.compressed), true)
                }
            }
        };
        let compressed_size = match (body, s.version) {
            (None, _) => uncompressed,
            (Some(b), WriterVersion::PARQUET_1_0) => b.len(),
            (Some(b), WriterVersion::PARQUET_2_0) => levels.len() + b.len(),
        };
        self.header.clear();
        let kind = match s.version {
            WriterVersion::PARQUET_1_0 => PageKind::DataV1 {
                num_values: self.page_levels as i32,
                encoding,
                statistics,
            },
            WriterVersion::PARQUET_2_0 => PageKind::DataV2 {
                num_values: self.page_levels as i32,
                num_nulls: self.page_nulls as u32 as i32,
                num_rows: self.page_rows as i32,
                encoding,
                def_levels_len: (levels.len() - rep_len) as i32,
                rep_levels_len: rep_len as i32,
                is_compressed,
                statistics,
            },
        };
        write_page_header(
            &mut self.header,
            checked_i32(uncompressed)?,
            checked_i32(compressed_size)?,
            &kind,
        );
        let header = self.header.as_slice();
        let (offset, page_len) = match (body, s.version, in_place) {
            (None, _, true) => self.sink.close_open_page(&[header, levels])?,
            (None, _, false) => {
                let offset = self.sink.push(&[header, levels, encoded], false)?;
                (offset, header.len() + uncompressed)
            }
            (Some(b), version, _) => {
                self.sink.discard_open_page();
                let parts: &[&[u8]] = match version {
                    WriterVersion::PARQUET_1_0 => &[header, b],
                    WriterVersion::PARQUET_2_0 => &[header, levels, b],
                };
                let offset = self.sink.push(parts, false)?;
                (offset, parts.iter().map(|p| p.len()).sum())
            }
        };
        let uncompressed_total = (header.len() + uncompressed) as u64;
        self.values.reset_page();

        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
        let page_type = match s.version {
            WriterVersion::PARQUET_1_0 => PageType::DATA_PAGE,
            WriterVersion::PARQUET_2_0 => PageType::DATA_PAGE_V2,
        };
        match self.encoding_stats.last_mut() {
            Some(last) if last.page_type == page_type && last.encoding == encoding => {
                last.count += 1
            }
            _ => self.encoding_stats.push(PageEncodingStats {
                page_type,
                encoding,
                count: 1,
            }),
        }
        if let Some(index) = &mut self.offset_index {
            index.append_offset_and_size(offset as i64, page_len as i32);
        }
        self.total_uncompressed += uncompressed_total;
        self.total_compressed += page_len as u64;
        self.total_bytes_written += page_len as u64;
        self.total_num_values += self.page_levels as u64;
        self.data_page_offset.get_or_insert(offset);

        self.total_rows_written += self.page_rows as u64;
        self.page_levels = 0;
        self.page_rows = 0;
        self.page_nulls = 0;
        self.page_exemption = 0;
        self.page_def_hist.fill(0);
        self.page_rep_hist.fill(0);
        self.page_min_max.clear();
        self.page_nans = None;
        Ok(())
    }

    /// Column index and offset index entries for the page being cut.
    fn update_indexes(&mut self, page_stats: bool) {
        let s = &self.s;
        let null_page = self.page_rows as u64 == self.page_nulls;
        let nan_count = s.float16.then(|| self.page_nans.unwrap_or(0) as i64);
        if self.column_index.valid() {
            if null_page {
                self.column_index
                    .append(true, vec![], vec![], self.page_nulls as i64, nan_count);
            } else if !page_stats {
                self.column_index.to_invalid();
            } else {
                let (min, max) = (
                    self.page_min_max.min().unwrap(),
                    self.page_min_max.max().unwrap(),
                );
                if let (Some(last_min), Some(last_max)) =
                    (self.last_page.min(), self.last_page.max())
                {
                    use std::cmp::Ordering::Greater;
                    if self.ascending
                        && (s.order.cmp(last_min, min) == Greater
                            || s.order.cmp(last_max, max) == Greater)
                    {
                        self.ascending = false;
                    }
                    if self.descending
                        && (s.order.cmp(min, last_min) == Greater
                            || s.order.cmp(max, last_max) == Greater)
                    {
                        self.descending = false;
                    }
                }
                self.last_page.clear();
                self.last_page.update(ValueOrder::Unsigned, min, max);
                let (min, max) = if s.truncatable {
                    (
                        truncate_min(min, s.column_index_truncate_length).0,
                        truncate_max(max, s.column_index_truncate_length).0,
                    )
                } else {
                    (min.to_vec(), max.to_vec())
                };
                self.column_index
                    .append(false, min, max, self.page_nulls as i64, nan_count);
            }
        }
        let (rep_hist, def_hist) = self.page_histograms();
        self.column_index.append_histograms(&rep_hist, &def_hist);
        if let Some(index) = &mut self.offset_index {
            index.append_row_count(self.page_rows as i64);
        }
    }

    fn page_histograms(&self) -> (Option<LevelHistogram>, Option<LevelHistogram>) {
        let on = self.s.statistics != EnabledStatistics::None;
        (
            (on && self.s.max_rep > 0).then(|| LevelHistogram::from(self.page_rep_hist.clone())),
            (on && self.s.max_def > 0).then(|| LevelHistogram::from(self.page_def_hist.clone())),
        )
    }

    /// Writes the dictionary page and ends dictionary encoding.
    fn write_dictionary_page(&mut self) -> Result<()> {
        let Some(dictionary) = self.values.take_dictionary() else {
            return Ok(());
        };
        if let Some(bloom) = &mut self.bloom {
            bloom.insert_all(dictionary.values(), self.s.width)?;
        }
        let raw = dictionary.values();
        let body: &[u8] = match &mut self.codec {
            Some(codec) => {
                self.compressed.clear();
                codec.compress(raw, &mut self.compressed)?;
                &self.compressed
            }
            None => raw,
        };
        self.header.clear();
        write_page_header(
            &mut self.header,
            checked_i32(raw.len())?,
            checked_i32(body.len())?,
            &PageKind::Dictionary {
                num_values: dictionary.len() as i32,
            },
        );
        let page_len = self.header.len() + body.len();
        let offset = self.sink.push(&[&self.header, body], true)?;
        if !self.encodings.contains(&Encoding::PLAIN) {
            self.encodings.push(Encoding::PLAIN);
        }
        self.encoding_stats.insert(
            0,
            PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: Encoding::PLAIN,
                count: 1,
            },
        );
        self.total_uncompressed += (self.header.len() + raw.len()) as u64;
        self.total_compressed += page_len as u64;
        self.total_bytes_written += page_len as u64;
        self.dictionary_page_offset = Some(offset);
        Ok(())
    }

    /// Finishes the chunk: last page, dictionary page, metadata, indexes.
    pub(crate) fn close(mut self, distinct_count: Option<u64>) -> Result<FlbaChunk> {
        if self.page_levels > 0 {
            self.add_data_page()?;
        }
        if self.values.has_dictionary() {
            self.write_dictionary_page()?;
        }
        let metadata = self.build_metadata(distinct_count)?;

        let has_plain_data_page = self.encoding_stats.iter().any(|e| {
            matches!(e.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2)
                && !matches!(
                    e.encoding,
                    Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                )
        });
        let keep_bloom = self.s.bloom_filter_for_dictionary_chunks || has_plain_data_page;
        let bloom_filter = self
            .bloom
            .take()
            .map(BloomFilter::finish)
            .filter(|_| keep_bloom);

        self.column_index
            .set_boundary_order(match (self.ascending, self.descending) {
                (true, _) => BoundaryOrder::ASCENDING,
                (false, true) => BoundaryOrder::DESCENDING,
                (false, false) => BoundaryOrder::UNORDERED,
            });
        let column_index = match self.column_index.valid() {
            true => Some(self.column_index.build()?),
            false => None,
        };
        let offset_index = self.offset_index.map(OffsetIndexBuilder::build);
        Ok(FlbaChunk {
            sink: self.sink,
            close: ColumnCloseResult {
                bytes_written: self.total_bytes_written,
                rows_written: self.total_rows_written,
                metadata,
                bloom_filter,
                column_index,
                offset_index,
            },
        })
    }

    fn build_metadata(&mut self, distinct_count: Option<u64>) -> Result<ColumnChunkMetaData> {
        let s = &self.s;
        let mut builder = ColumnChunkMetaData::builder(self.descr.clone())
            .set_compression(s.compression)
            .set_encodings_mask(EncodingMask::new_from_encodings(
                std::iter::once(&Encoding::RLE).chain(&self.encodings),
            ))
            .set_page_encoding_stats(self.encoding_stats.clone())
            .set_total_compressed_size(self.total_compressed as i64)
            .set_total_uncompressed_size(self.total_uncompressed as i64)
            .set_num_values(self.total_num_values as i64)
            .set_data_page_offset(self.data_page_offset.unwrap_or(0) as i64)
            .set_dictionary_page_offset(self.dictionary_page_offset.map(|o| o as i64));
        if s.statistics != EnabledStatistics::None {
            let min = self.chunk_min_max.min();
            let max = self.chunk_min_max.max();
            let statistics = match (min, max) {
                (Some(min), Some(max)) if s.truncatable => {
                    let (min, min_t) = truncate_min(min, s.statistics_truncate_length);
                    let (max, max_t) = truncate_max(max, s.statistics_truncate_length);
                    ValueStatistics::new(
                        Some(FixedLenByteArray::from(min)),
                        Some(FixedLenByteArray::from(max)),
                        distinct_count,
                        Some(self.chunk_nulls),
                        false,
                    )
                    .with_backwards_compatible_min_max(s.signed)
                    .with_max_is_exact(!max_t)
                    .with_min_is_exact(!min_t)
                }
                _ => ValueStatistics::new(
                    min.map(|v| FixedLenByteArray::from(v.to_vec())),
                    max.map(|v| FixedLenByteArray::from(v.to_vec())),
                    distinct_count,
                    Some(self.chunk_nulls),
                    false,
                )
                .with_nan_count(self.chunk_nans)
                .with_backwards_compatible_min_max(s.signed),
            };
            builder = builder
                .set_statistics(Statistics::from(statistics))
                .set_unencoded_byte_array_data_bytes(None)
                .set_repetition_level_histogram(
                    (s.max_rep > 0).then(|| LevelHistogram::from(self.chunk_rep_hist.clone())),
                )
                .set_definition_level_histogram(
                    (s.max_def > 0).then(|| LevelHistogram::from(self.chunk_def_hist.clone())),
                );
        }
        builder.build()
    }
}

/// A level histogram's counters: one per level when histograms are kept
/// (statistics on, max level above 0), none otherwise.
fn histogram(s: &ColumnSettings, max_level: i16) -> Vec<i64> {
    match s.statistics != EnabledStatistics::None && max_level > 0 {
        true => vec![0; max_level as usize + 1],
        false => Vec::new(),
    }
}

/// Appends a page's levels: V1 prefixes them with their length.
fn finish_levels(encoder: &mut RleEncoder, version: WriterVersion, out: &mut Vec<u8>) {
    match version {
        WriterVersion::PARQUET_1_0 => {
            let start = out.len();
            out.extend_from_slice(&[0; 4]);
            encoder.finish_into(out);
            let len = (out.len() - start - 4) as u32;
            out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        }
        WriterVersion::PARQUET_2_0 => encoder.finish_into(out),
    }
}

/// Encodes `levels` run by run and counts them into `histogram`.
fn put_level_runs(encoder: &mut RleEncoder, histogram: &mut [i64], levels: &[i16]) {
    let mut i = 0;
    while i < levels.len() {
        let v = levels[i];
        let run = levels[i..].iter().take_while(|&&x| x == v).count();
        encoder.put_run(v as u32, run);
        if let Some(h) = histogram.get_mut(v as usize) {
            *h += run as i64;
        }
        i += run;
    }
}

/// Folds values into page statistics and the bloom filter.
struct Observer<'a> {
    s: &'a ColumnSettings,
    min_max: &'a mut MinMax,
    nans: &'a mut Option<u64>,
    bloom: Option<&'a mut BloomFilter>,
}

impl Observer<'_> {
    fn observe(self, values: &[u8], extremes: Option<(usize, usize)>) -> Result<()> {
        let width = self.s.width;
        let min_max = match extremes {
            _ if !self.s.min_max() => None,
            Some((lo, hi)) => Some((lo, hi, 0)),
            None => batch_min_max(self.s.order, values, width),
        };
        if let Some((lo, hi, nans)) = min_max {
            self.min_max.update(
                self.s.order,
                &values[lo * width..(lo + 1) * width],
                &values[hi * width..(hi + 1) * width],
            );
            if self.s.float16 {
                *self.nans.get_or_insert(0) += nans;
            }
        }
        if let Some(bloom) = self.bloom {
            bloom.insert_all(values, width)?;
        }
        Ok(())
    }
}

fn checked_i32(size: usize) -> Result<i32> {
    i32::try_from(size)
        .map_err(|_| ParquetError::General(format!("Page size overflow: {size} bytes")))
}
