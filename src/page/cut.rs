//! Cutting pages and closing the chunk: a data page from the page's levels
//! and the values the encoder flushes, the dictionary page when the
//! dictionary is done, and the chunk's metadata, indexes and bloom filter.

use super::PageBuilder;
use super::data_page::{DataPageHead, PageTag};
use super::statistics::{HeaderMinMax, chunk_statistics};
use crate::chunk::FlbaChunk;
use crate::compat;
use parquet::basic::{Encoding, EncodingMask, PageType};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::Result;
use parquet::file::metadata::{ColumnChunkMetaData, LevelHistogram};
use parquet::file::properties::{EnabledStatistics, WriterVersion};

impl PageBuilder {
    /// Cuts the current page; an empty one too before 60.2 (D31: 60.2
    /// writes nothing when the page holds no levels).
    pub(crate) fn add_data_page(&mut self) -> Result<()> {
        if compat::EMPTY_PAGES_SKIPPED && self.page.levels == 0 {
            return Ok(());
        }
        let headroom = self.page_headroom();
        let output = &mut self.output;
        let values = self
            .encoder
            .flush_data_page(|bound| output.lend_for_values(headroom, bound))?;
        let s = &self.s;
        // Statistics and index entries first: they do not depend on the bytes.
        let page_stats = values.min_max.is_set() && s.statistics == EnabledStatistics::Page;
        self.statistics.add_page(
            s,
            self.page.nulls,
            (values.nan_count, values.variable_length_bytes),
            values.min_max,
            self.levels.histograms(),
        );
        self.indexes.add_page(
            s,
            &self.page,
            page_stats.then_some(values.min_max),
            (values.nan_count, values.variable_length_bytes),
            self.levels.index_histograms(),
        );
        let header_min_max = match page_stats && s.page_header_statistics {
            true => HeaderMinMax::new(s, values.min_max, values.nan_count),
            false => None,
        };
        let (levels, rep_len) = self.levels.finish(s.version);
        let encoding = values.encoding;
        let head = DataPageHead {
            num_levels: self.page.levels,
            num_nulls: self.page.nulls,
            num_rows: self.page.rows,
            encoding,
            rep_len,
            statistics: header_min_max,
        };
        let tag = PageTag {
            encoding,
            counters: std::mem::take(&mut self.page),
        };
        self.output
            .write_data_page(s, head, levels, values.bytes, tag)?;
        self.levels.reset_histograms();
        self.record_stored();
        Ok(())
    }

    /// Records the data pages the output stored since the last call: their
    /// locations and sizes.
    fn record_stored(&mut self) {
        let page_type = match self.s.version {
            WriterVersion::PARQUET_1_0 => PageType::DATA_PAGE,
            WriterVersion::PARQUET_2_0 => PageType::DATA_PAGE_V2,
        };
        for (written, tag) in self.output.take_stored() {
            self.indexes.add_location(written.offset, written.len);
            self.totals
                .add_data_page(written, page_type, tag.encoding, &tag.counters);
        }
    }

    /// Stores the data pages still being compressed on helper threads (before
    /// the dictionary page, and at close).
    pub(crate) fn finish_pages(&mut self) -> Result<()> {
        let finished = self.output.finish_pages(&self.s);
        self.record_stored();
        finished
    }

    /// Writes the dictionary page and ends dictionary encoding.
    pub(super) fn write_dictionary_page(&mut self) -> Result<()> {
        // The data pages that use it are counted first.
        self.finish_pages()?;
        let Some(page) = self.encoder.flush_dict_page()? else {
            return Ok(());
        };
        let written = self.output.write_dictionary_page(&page)?;
        self.totals.add_dictionary_page(written);
        Ok(())
    }

    /// Finishes the chunk: last page, dictionary page, metadata, indexes.
    pub(crate) fn close(mut self, distinct_count: Option<u64>) -> Result<FlbaChunk> {
        if self.page.levels > 0 {
            self.add_data_page()?;
        }
        self.finish_pages()?;
        // 60.2 writes no dictionary page for a chunk of no rows (D31).
        if self.encoder.has_dictionary()
            && (self.totals.rows_written > 0 || !compat::EMPTY_PAGES_SKIPPED)
        {
            self.write_dictionary_page()?;
        }
        let metadata = self.build_metadata(distinct_count)?;
        let keep_bloom =
            self.s.bloom_filter_for_dictionary_chunks || self.totals.has_non_dictionary_data_page();
        let bloom_filter = self.encoder.flush_bloom_filter().filter(|_| keep_bloom);
        let (column_index, offset_index) = self.indexes.finish()?;
        Ok(FlbaChunk {
            sink: self.output.into_sink(),
            close: ColumnCloseResult {
                bytes_written: self.totals.bytes_written,
                rows_written: self.totals.rows_written,
                metadata,
                bloom_filter,
                column_index,
                offset_index,
            },
        })
    }

    /// Whether the chunk's encodings list RLE for its levels: always before
    /// 60.2; since, when the column has levels and a data page was written
    /// (D27).
    fn lists_level_encoding(&self) -> bool {
        !compat::RLE_LISTED_ONLY_WITH_LEVELS
            || ((self.s.max_def > 0 || self.s.max_rep > 0)
                && self.totals.data_page_offset.is_some())
    }

    fn build_metadata(&self, distinct_count: Option<u64>) -> Result<ColumnChunkMetaData> {
        let (s, totals) = (&self.s, &self.totals);
        let mut builder = ColumnChunkMetaData::builder(self.descr.clone())
            .set_compression(s.compression)
            .set_encodings_mask(EncodingMask::new_from_encodings(
                std::iter::once(&Encoding::RLE)
                    .filter(|_| self.lists_level_encoding())
                    .chain(&totals.encodings),
            ))
            .set_page_encoding_stats(totals.encoding_stats.clone())
            .set_total_compressed_size(totals.compressed as i64)
            .set_total_uncompressed_size(totals.uncompressed as i64)
            .set_num_values(totals.num_values as i64)
            .set_data_page_offset(totals.data_page_offset.unwrap_or(0) as i64)
            .set_dictionary_page_offset(totals.dictionary_page_offset.map(|o| o as i64));
        if s.statistics != EnabledStatistics::None {
            let stats = &self.statistics;
            let histogram =
                |max: i16, h: &Vec<i64>| (max > 0).then(|| LevelHistogram::from(h.clone()));
            builder = builder
                .set_statistics(chunk_statistics(
                    s,
                    &stats.min_max,
                    distinct_count,
                    stats.nulls,
                    stats.nans,
                ))
                .set_unencoded_byte_array_data_bytes(stats.variable_length_bytes)
                .set_repetition_level_histogram(histogram(s.max_rep, &stats.rep_histogram))
                .set_definition_level_histogram(histogram(s.max_def, &stats.def_histogram));
        }
        builder.build()
    }
}
