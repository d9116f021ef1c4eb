//! The page builder: everything `parquet`'s `GenericColumnWriter` does for a
//! FIXED_LEN_BYTE_ARRAY leaf once levels and values are known.
//!
//! It takes mini-batches (levels plus a source of the batch's non-null
//! values), feeds the level encoders and the column's
//! [`ColumnEncoder`](crate::encoding::ColumnEncoder), and cuts pages exactly
//! where `parquet` does: after each mini-batch, on the row-count or byte
//! limit, then checks whether the dictionary must fall back. A page is
//! assembled from its levels and the values the encoder flushes, compressed,
//! given a header and handed to the chunk's [`PageSink`]; the column index,
//! offset index, encoding statistics and level histograms are built on the way.
//!
//! * [`settings`]: the column's resolved settings.
//! * [`level_encoding`]: a page's levels and level histograms.
//! * [`metrics`]: page counters and chunk totals; [`index`]: page indexes.
//! * [`cut`]: cutting a data page, the dictionary page, closing the chunk.
//! * [`output`]: compression, headers ([`header`]) and storing pages.
//! * [`statistics`]: page header and chunk statistics, truncation.

pub(crate) mod cut;
pub(crate) mod header;
pub(crate) mod index;
pub(crate) mod level_encoding;
pub(crate) mod metrics;
pub(crate) mod output;
pub(crate) mod settings;
pub(crate) mod statistics;

pub(crate) use level_encoding::MiniBatchLevels;
pub(crate) use settings::ColumnSettings;

use crate::chunk::PageSink;
use crate::encoding::ColumnEncoder;
use crate::values::{ValueOrder, ValueSource};
use index::PageIndexes;
use level_encoding::PageLevels;
use metrics::{ChunkStatistics, ChunkTotals, PageCounters};
use output::PageOutput;
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;

/// Builds the pages of one column chunk.
pub(crate) struct PageBuilder {
    s: ColumnSettings,
    descr: ColumnDescPtr,
    encoder: ColumnEncoder,
    levels: PageLevels,
    page: PageCounters,
    totals: ChunkTotals,
    statistics: ChunkStatistics,
    indexes: PageIndexes,
    output: PageOutput,
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
    /// A builder for `descr`'s chunk, values ordered by `order`, pages into `sink`.
    pub(crate) fn try_new(
        descr: ColumnDescPtr,
        props: &WriterProperties,
        order: ValueOrder,
        sink: PageSink,
    ) -> Result<Self> {
        let s = ColumnSettings::resolve(&descr, props, order);
        Ok(Self {
            encoder: ColumnEncoder::try_new(&descr, props, order)?,
            levels: PageLevels::new(&s),
            page: PageCounters::default(),
            totals: ChunkTotals::default(),
            statistics: ChunkStatistics::new(&s),
            indexes: PageIndexes::new(&s),
            output: PageOutput::try_new(&s, sink)?,
            s,
            descr,
        })
    }

    /// The column's dotted path, for error messages.
    pub(crate) fn column_name(&self) -> String {
        self.descr.path().string()
    }

    /// The column's settings.
    pub(crate) fn settings(&self) -> &ColumnSettings {
        &self.s
    }

    /// Whether values currently go to a dictionary.
    pub(crate) fn has_dictionary(&self) -> bool {
        self.encoder.has_dictionary()
    }

    /// Dictionary page size estimate while a dictionary is active.
    pub(crate) fn estimated_dict_page_size(&self) -> Option<usize> {
        self.encoder.estimated_dict_page_size()
    }

    /// Whether the current encoder stores values against the previous one.
    pub(crate) fn compresses_against_previous_value(&self) -> bool {
        self.encoder.compresses_against_previous_value()
    }

    /// `parquet`'s `get_estimated_total_bytes` for this column.
    pub(crate) fn estimated_total_bytes(&self) -> u64 {
        self.totals.bytes_written
            + self.encoder.estimated_data_page_size() as u64
            + self.encoder.estimated_dict_page_size().unwrap_or(0) as u64
    }

    /// Heap bytes held by the builder.
    pub(crate) fn memory_size(&self) -> usize {
        self.encoder.memory_size() + self.levels.memory_size() + self.output.memory_size()
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
        let rows = self.levels.put(num_levels, num_values, def, rep)?;
        self.page.nulls += (num_levels - num_values) as u64;
        self.page.rows += rows as u32;
        if num_values > 0 {
            let headroom = self.page_headroom();
            self.output
                .supply_block(&mut self.encoder, headroom, num_values * self.s.width)?;
            self.encoder.write(values)?;
        }

        let page_was_empty = self.page.levels == 0;
        self.page.levels += num_levels as u32;
        if crate::compat::DELTA_FIRST_VALUE_EXEMPT
            && page_was_empty
            && num_values == 1
            && self.encoder.compresses_against_previous_value()
        {
            let size = self.encoder.estimated_data_page_size();
            if size >= self.s.data_page_size_limit {
                self.page.exemption = size;
            }
        }
        if self.should_add_data_page() {
            self.add_data_page()?;
        }
        if self
            .encoder
            .estimated_dict_page_size()
            .is_some_and(|size| size >= self.s.dictionary_page_size_limit)
        {
            self.dict_fallback()?;
        }
        Ok(())
    }

    /// Room left in front of in-place PLAIN values for the page header (with
    /// its statistics) and, for nullable pages, the levels.
    fn page_headroom(&self) -> usize {
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
            self.levels.last_len() + 32
        } else {
            0
        };
        64 + stats + levels
    }

    fn should_add_data_page(&self) -> bool {
        if self.page.levels == 0 {
            return false;
        }
        self.page.rows as usize >= self.s.data_page_row_count_limit
            || self
                .encoder
                .estimated_data_page_size()
                .saturating_sub(self.page.exemption)
                >= self.s.data_page_size_limit
    }

    fn dict_fallback(&mut self) -> Result<()> {
        if self.page.levels > 0 {
            self.add_data_page()?;
        }
        self.write_dictionary_page()
    }
}
