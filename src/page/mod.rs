//! The page builder: everything `parquet`'s `GenericColumnWriter` does for a
//! FIXED_LEN_BYTE_ARRAY leaf once levels and values are known.
//!
//! It takes mini-batches (levels plus a source of the batch's non-null
//! values), feeds the level encoders and the column's
//! [`ValueEncoder`](crate::encoding::ValueEncoder), and cuts pages exactly
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
//! * [`data_page`]: what a data page header says, its stored size.
//! * [`codec`]: page compression, as parquet's codecs compress.
//! * [`output`]: compression (on the pool's threads: `output::in_flight`),
//!   headers ([`header`]) and storing pages.
//! * [`statistics`]: page header and chunk statistics, truncation.

pub(crate) mod codec;
pub(crate) mod cut;
pub(crate) mod data_page;
pub(crate) mod header;
pub(crate) mod index;
pub(crate) mod level_encoding;
pub(crate) mod metrics;
pub(crate) mod output;
pub(crate) mod settings;
pub(crate) mod statistics;
pub(crate) mod truncate;

pub(crate) use level_encoding::MiniBatchLevels;
pub(crate) use settings::ColumnSettings;

use crate::chunk::{BlockHint, PageSink};
use crate::encoding::ValueEncoder;
use crate::pool::PageHelpers;
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
    encoder: ValueEncoder,
    levels: PageLevels,
    page: PageCounters,
    totals: ChunkTotals,
    statistics: ChunkStatistics,
    indexes: PageIndexes,
    output: PageOutput,
    /// What the current write has yet to hand over (see [`Self::expect`]).
    expected: Expected,
    /// At most the values the chunk can still take (see
    /// [`Self::set_rows_left`]).
    ceiling: Option<usize>,
}

/// What the rest of a write will hand a [`PageBuilder`].
#[derive(Debug, Default, Clone, Copy)]
struct Expected {
    values: usize,
    levels: usize,
    /// Byte arrays: the PLAIN size of the write's values (lengths and
    /// bytes), for values of no fixed width.
    plain_bytes: usize,
    /// The values `plain_bytes` is for.
    plain_values: usize,
    /// Pages cut other than by the page limits (content-defined chunks).
    cuts: usize,
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
    /// Fails as [`Self::try_new`] fails for these settings (the fallback
    /// encoding, the codec), without building anything.
    pub(crate) fn check_settings(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<()> {
        ValueEncoder::check_settings(descr, props)?;
        codec::PageCodec::check(props.compression(descr.path()))
    }

    /// A builder for `descr`'s chunk (values ordered as `parquet` orders
    /// that column's), pages into `sink`; compressed on `helpers`' threads
    /// if given (and compressed).
    pub(crate) fn try_new(
        descr: ColumnDescPtr,
        props: &WriterProperties,
        sink: PageSink,
        helpers: Option<PageHelpers>,
    ) -> Result<Self> {
        let order = ValueOrder::of(&descr);
        let s = ColumnSettings::resolve(&descr, props, order);
        Ok(Self {
            encoder: ValueEncoder::try_new(&descr, props, order)?,
            levels: PageLevels::new(&s),
            page: PageCounters::default(),
            totals: ChunkTotals::default(),
            statistics: ChunkStatistics::new(&s),
            indexes: PageIndexes::new(&s),
            output: PageOutput::try_new(&s, sink, helpers)?,
            s,
            descr,
            expected: Expected::default(),
            ceiling: None,
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
        self.totals.bytes_written - self.totals.held_headers
            + self.output.pending_bytes(&self.s)
            + self.encoder.estimated_data_page_size() as u64
            + self.encoder.estimated_dict_page_size().unwrap_or(0) as u64
    }

    /// Heap bytes held by the builder.
    pub(crate) fn memory_size(&self) -> usize {
        self.encoder.memory_size() + self.levels.memory_size() + self.output.memory_size()
    }

    /// After a write, a writer whose memory a host accounts gives back the
    /// room its buffers and blocks have left (see [`PageOutput::trim`]).
    pub(crate) fn trim(&mut self) {
        if self.output.tight() {
            self.output.trim();
            self.encoder.trim();
        }
    }

    /// The current write will hand over `values` values in `levels` levels:
    /// in-memory PLAIN pages then get a block sized for all of them at once
    /// rather than blocks doubling past what the write needs.
    pub(crate) fn expect(&mut self, values: usize, levels: usize) {
        self.expected = Expected {
            values,
            levels,
            plain_bytes: 0,
            plain_values: 0,
            cuts: 0,
        };
        self.encoder.begin_write();
    }

    /// The current write's values (byte arrays) take `bytes` bytes as PLAIN
    /// (their lengths included): new blocks are sized by it.
    pub(crate) fn expect_plain_bytes(&mut self, bytes: usize) {
        self.expected.plain_bytes = bytes;
        self.expected.plain_values = self.expected.values;
    }

    /// The current write will also cut `cuts` pages besides those the page
    /// limits cut (content-defined chunks).
    pub(crate) fn expect_cuts(&mut self, cuts: usize) {
        self.expected.cuts = cuts;
    }

    /// The chunk will take at most `rows` more rows, this write's included
    /// (`None`: unknown). A leaf that is not repeated has at most a value per
    /// row, so new blocks need not be larger than those values take.
    pub(crate) fn set_rows_left(&mut self, rows: Option<usize>) {
        self.ceiling = rows.filter(|_| self.s.max_rep == 0);
    }

    /// How large new blocks for this column's pages should be: PLAIN pages
    /// kept in memory take `headroom` in front of their values.
    fn block_hint(&self, headroom: usize) -> BlockHint {
        let e = self.expected;
        BlockHint {
            expected: self.page_bytes(e.values, e.levels, e.cuts, headroom),
            ceiling: match (self.ceiling, self.s.width) {
                (Some(values), Some(_)) => self.page_bytes(values, values, e.cuts, headroom),
                _ => usize::MAX,
            },
        }
    }

    /// A generous estimate of the bytes in-memory PLAIN pages of `values`
    /// values in `levels` levels take, with `headroom` in front of each page
    /// and `cuts` pages cut besides those the page limits cut.
    fn page_bytes(&self, values: usize, levels: usize, cuts: usize, headroom: usize) -> usize {
        let e = &self.expected;
        let bytes = match self.s.width {
            Some(width) => values.saturating_mul(width),
            // Byte arrays: the write's PLAIN bytes, for the values left.
            None => match e.plain_values {
                0 => 0,
                n => (e.plain_bytes as u128 * values.min(n) as u128 / n as u128) as usize,
            },
        };
        let pages = (bytes / self.s.data_page_size_limit.max(1))
            .saturating_add(levels / self.s.data_page_row_count_limit.max(1))
            .saturating_add(cuts)
            .saturating_add(3);
        bytes
            .saturating_add(pages.saturating_mul(headroom))
            .saturating_add(bytes / 256 + 4096)
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
        self.expected.levels = self.expected.levels.saturating_sub(num_levels);
        self.page.nulls += (num_levels - num_values) as u64;
        self.page.rows += rows as u32;
        self.encoder.start_mini_batch();
        if num_values > 0 {
            let headroom = self.page_headroom();
            self.output.set_block_hint(self.block_hint(headroom));
            // The PLAIN size, asked for only when a PLAIN page takes the
            // values (a byte array's is a pass over their lengths).
            let width = self.s.width;
            let need = || match (width, values.byte_source()) {
                (Some(width), _) => num_values * width,
                (None, Some(src)) => src.plain_size(),
                (None, None) => 0,
            };
            self.output
                .supply_block(&mut self.encoder, headroom, need)?;
            self.encoder.write(values)?;
            self.expected.values = self.expected.values.saturating_sub(num_values);
            self.ceiling = self.ceiling.map(|c| c.saturating_sub(num_values));
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
            // Byte arrays: as long as the truncation allows (a longer min
            // or max only moves the page).
            let width = s
                .width
                .unwrap_or(s.statistics_truncate_length.unwrap_or(64));
            let len = match (s.truncatable, s.statistics_truncate_length) {
                (true, Some(l)) => width.min(l),
                _ => width,
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
        let page = &self.page;
        let rows_full = page.rows as usize >= self.s.data_page_row_count_limit;
        let counted = self.encoder.estimated_data_page_size();
        // A page exempted up to a size (the first value of a delta page) is
        // full only past it.
        let bytes_full = counted.saturating_sub(page.exemption) >= self.s.data_page_size_limit;
        page.levels > 0 && (rows_full || bytes_full)
    }

    fn dict_fallback(&mut self) -> Result<()> {
        if self.page.levels > 0 {
            self.add_data_page()?;
        }
        self.write_dictionary_page()
    }
}
