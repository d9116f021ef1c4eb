//! Counters of the current page and running totals of the column chunk.

use super::settings::ColumnSettings;
use crate::encoding::min_max::MinMax;
use parquet::basic::{Encoding, PageType};
use parquet::file::metadata::PageEncodingStats;

/// Counts of the current page.
#[derive(Debug, Default)]
pub(crate) struct PageCounters {
    /// Levels (values and nulls).
    pub levels: u32,
    /// Rows started.
    pub rows: u32,
    /// Nulls (levels that are not values).
    pub nulls: u64,
    /// Size of a page's first value that alone exceeds the byte limit (with
    /// encodings that store values against the previous one): not counted
    /// against the limit.
    pub exemption: usize,
}

/// Where a page went and what it cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WrittenPage {
    /// Write-order offset in the chunk.
    pub offset: u64,
    /// Bytes written (header and body, compressed).
    pub len: usize,
    /// Bytes of the header.
    pub header: usize,
    /// Bytes the page would take uncompressed, header included.
    pub uncompressed: usize,
}

/// Sizes, offsets and encodings of the column chunk so far.
#[derive(Debug, Default)]
pub(crate) struct ChunkTotals {
    /// Bytes of all pages written.
    pub bytes_written: u64,
    /// Rows of all data pages.
    pub rows_written: u64,
    /// Uncompressed bytes of all pages.
    pub uncompressed: u64,
    /// Compressed bytes of all pages.
    pub compressed: u64,
    /// Levels of all data pages.
    pub num_values: u64,
    /// Write-order offset of the dictionary page.
    pub dictionary_page_offset: Option<u64>,
    /// Write-order offset of the first data page.
    pub data_page_offset: Option<u64>,
    /// Encodings used besides RLE (levels), in order of first use.
    pub encodings: Vec<Encoding>,
    /// Pages per (type, encoding), the dictionary page first.
    pub encoding_stats: Vec<PageEncodingStats>,
    /// D21 (parquet 58): the headers of the dictionary-encoded data pages
    /// written before the dictionary page. 58's column writer holds those
    /// pages back until the dictionary page is written, and its size
    /// estimate counts a held page without its header.
    pub held_headers: u64,
}

/// Whether parquet's column writer holds a data page of `encoding` back
/// until the dictionary page is written (D21: parquet 58, for the pages
/// that use the dictionary).
pub(crate) fn held(encoding: Encoding) -> bool {
    crate::compat::DICTIONARY_DATA_PAGES_HELD
        && matches!(
            encoding,
            Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
        )
}

impl ChunkTotals {
    fn add_written(&mut self, page: WrittenPage) {
        self.uncompressed += page.uncompressed as u64;
        self.compressed += page.len as u64;
        self.bytes_written += page.len as u64;
    }

    fn add_encoding(&mut self, encoding: Encoding) {
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
    }

    /// Counts a data page of `counters` written as `page`.
    pub(crate) fn add_data_page(
        &mut self,
        page: WrittenPage,
        page_type: PageType,
        encoding: Encoding,
        counters: &PageCounters,
    ) {
        self.add_encoding(encoding);
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
        self.add_written(page);
        if held(encoding) {
            self.held_headers += page.header as u64;
        }
        self.num_values += counters.levels as u64;
        self.data_page_offset.get_or_insert(page.offset);
        self.rows_written += counters.rows as u64;
    }

    /// Counts the dictionary page, written as `page`.
    pub(crate) fn add_dictionary_page(&mut self, page: WrittenPage) {
        self.add_encoding(Encoding::PLAIN);
        let entry = PageEncodingStats {
            page_type: PageType::DICTIONARY_PAGE,
            encoding: Encoding::PLAIN,
            count: 1,
        };
        // D6: 60 lists the dictionary page first; 59 when it was written
        // (after the data pages that use it).
        match crate::compat::DICTIONARY_STATS_FIRST {
            true => self.encoding_stats.insert(0, entry),
            false => self.encoding_stats.push(entry),
        }
        self.add_written(page);
        self.held_headers = 0;
        self.dictionary_page_offset = Some(page.offset);
    }

    /// Whether a data page was written without the dictionary.
    pub(crate) fn has_non_dictionary_data_page(&self) -> bool {
        self.encoding_stats.iter().any(|e| {
            matches!(e.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2)
                && !matches!(
                    e.encoding,
                    Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                )
        })
    }
}

/// The column chunk's statistics so far: min/max, nulls, NaNs, histograms.
#[derive(Debug)]
pub(crate) struct ChunkStatistics {
    /// Min and max of all values.
    pub min_max: MinMax,
    /// Nulls.
    pub nulls: u64,
    /// Float16 NaNs, once counted.
    pub nans: Option<u64>,
    /// Definition level histogram (empty when not kept).
    pub def_histogram: Vec<i64>,
    /// Repetition level histogram (empty when not kept).
    pub rep_histogram: Vec<i64>,
    /// Total length of the byte-array values (`unencoded_byte_array_data_bytes`;
    /// None for other columns).
    pub variable_length_bytes: Option<i64>,
}

impl ChunkStatistics {
    /// Empty statistics for a column with `s`'s settings.
    pub(crate) fn new(s: &ColumnSettings) -> Self {
        let histogram = |max: i16| match s.histograms(max) {
            true => vec![0; max as usize + 1],
            false => Vec::new(),
        };
        Self {
            min_max: MinMax::default(),
            nulls: 0,
            nans: None,
            def_histogram: histogram(s.max_def),
            rep_histogram: histogram(s.max_rep),
            variable_length_bytes: None,
        }
    }

    /// Folds in a page's statistics: its nulls, NaNs, min/max and (rep, def)
    /// histograms.
    pub(crate) fn add_page(
        &mut self,
        s: &ColumnSettings,
        nulls: u64,
        (nans, variable_length_bytes): (Option<u64>, Option<i64>),
        min_max: &MinMax,
        (rep, def): (&[i64], &[i64]),
    ) {
        self.nulls += nulls;
        if let Some(bytes) = variable_length_bytes {
            *self.variable_length_bytes.get_or_insert(0) += bytes;
        }
        if let Some(nans) = nans {
            *self.nans.get_or_insert(0) += nans;
        }
        self.min_max.merge(s.order, min_max);
        for (c, p) in self.def_histogram.iter_mut().zip(def) {
            *c += p;
        }
        for (c, p) in self.rep_histogram.iter_mut().zip(rep) {
            *c += p;
        }
    }
}
