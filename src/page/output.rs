//! Writing pages out: compression, page headers, and handing the bytes to
//! the chunk's [`PageSink`].
//!
//! PLAIN values are written by the encoder straight into a block lent from
//! the sink, after room for the header and levels; an uncompressed page goes
//! back to the sink with its header and levels filled in front of them, so
//! its values are never copied. Other pages are assembled from their parts.

use super::header::{PageKind, PageStatistics, write_page_header};
use super::metrics::WrittenPage;
use super::settings::ColumnSettings;
use crate::chunk::{BlockHint, PageSink};
use crate::encoding::block::PageBlock;
use crate::encoding::{ColumnEncoder, DictionaryPage, PageBytes};
use parquet::basic::Encoding;
use parquet::compression::{Codec, CodecOptionsBuilder, create_codec};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterVersion;

/// What a data page header says, besides sizes.
#[derive(Debug)]
pub(crate) struct DataPageHead<'a> {
    /// Levels (values and nulls).
    pub num_levels: u32,
    /// Nulls.
    pub num_nulls: u64,
    /// Rows.
    pub num_rows: u32,
    /// Value encoding.
    pub encoding: Encoding,
    /// The page's levels, repetition first.
    pub levels: &'a [u8],
    /// Length of the repetition levels within `levels`.
    pub rep_len: usize,
    /// Header statistics, if written.
    pub statistics: Option<PageStatistics<'a>>,
}

impl<'a> DataPageHead<'a> {
    /// The header's page type and fields, for a page `compressed` or not.
    fn into_kind(self, version: WriterVersion, compressed: bool) -> PageKind<'a> {
        match version {
            WriterVersion::PARQUET_1_0 => PageKind::DataV1 {
                num_values: self.num_levels as i32,
                encoding: self.encoding,
                statistics: self.statistics,
            },
            WriterVersion::PARQUET_2_0 => PageKind::DataV2 {
                num_values: self.num_levels as i32,
                num_nulls: self.num_nulls as u32 as i32,
                num_rows: self.num_rows as i32,
                encoding: self.encoding,
                def_levels_len: (self.levels.len() - self.rep_len) as i32,
                rep_levels_len: self.rep_len as i32,
                is_compressed: compressed,
                statistics: self.statistics,
            },
        }
    }
}

/// Compresses pages, writes their headers and stores them.
pub(crate) struct PageOutput {
    codec: Option<Box<dyn Codec>>,
    sink: PageSink,
    header: Vec<u8>,
    /// Levels and values of a V1 page, to compress together.
    uncompressed: Vec<u8>,
    compressed: Vec<u8>,
    /// With a page store: the buffer the encoder writes PLAIN pages into,
    /// kept from page to page.
    spare: Vec<u8>,
}

impl std::fmt::Debug for PageOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageOutput")
            .field("sink", &self.sink)
            .finish_non_exhaustive()
    }
}

impl PageOutput {
    /// Pages compressed as `s` says, into `sink`.
    pub(crate) fn try_new(s: &ColumnSettings, sink: PageSink) -> Result<Self> {
        Ok(Self {
            codec: create_codec(s.compression, &CodecOptionsBuilder::default().build())?,
            sink,
            header: Vec::new(),
            uncompressed: Vec::new(),
            compressed: Vec::new(),
            spare: Vec::new(),
        })
    }

    /// The sink, with every page written.
    pub(crate) fn into_sink(self) -> PageSink {
        self.sink
    }

    /// Heap bytes held: buffers and the sink's pages.
    pub(crate) fn memory_size(&self) -> usize {
        self.sink.memory_size()
            + self.header.capacity()
            + self.uncompressed.capacity()
            + self.compressed.capacity()
            + self.spare.capacity()
    }

    /// Before `need` more bytes of values go to `encoder`: if it writes a
    /// PLAIN page, makes sure it has a block with room for them, a block of
    /// the sink (with `headroom` bytes for header and levels) when pages are
    /// kept in memory.
    pub(crate) fn supply_block(
        &mut self,
        encoder: &mut ColumnEncoder,
        headroom: usize,
        need: usize,
    ) -> Result<()> {
        if encoder.wants_page_block() {
            if self.sink.direct() {
                let block = self.sink.lend_block(headroom + need)?;
                if let Some(unused) = encoder.lend_page_block(block, headroom) {
                    self.sink.return_block(unused)?;
                }
            } else if let Some(unused) = encoder.lend_page_block(std::mem::take(&mut self.spare), 0)
            {
                self.spare = unused;
            }
        } else if let Some(block) = encoder.page_block()
            && self.sink.has_lent_block()
            && block.room() < need
        {
            let moved = block.page_len();
            self.sink
                .replace_lent_block(moved + need, moved, |fresh| encoder.move_page_block(fresh))?;
        }
        Ok(())
    }

    /// How large new blocks of the sink should be: `hint`, except that with
    /// a codec lent blocks only hold one page before it is compressed (and
    /// are reused), so they are not made large up front.
    pub(crate) fn set_block_hint(&mut self, mut hint: BlockHint) {
        if self.codec.is_some() {
            hint.expected = 0;
        }
        self.sink.set_hint(hint);
    }

    /// Writes a data page with `head` and `values`.
    pub(crate) fn write_data_page(
        &mut self,
        s: &ColumnSettings,
        head: DataPageHead<'_>,
        values: PageBytes<'_>,
    ) -> Result<WrittenPage> {
        let bytes: &[u8] = match &values {
            PageBytes::Encoded(bytes) => bytes,
            PageBytes::Block(block) => block.values(),
        };
        let levels = head.levels;
        let uncompressed = levels.len() + bytes.len();
        let compressed = self.compress(s, levels, bytes)?;
        let compressed_size = match (compressed, s.version) {
            (false, _) => uncompressed,
            (true, WriterVersion::PARQUET_1_0) => self.compressed.len(),
            (true, WriterVersion::PARQUET_2_0) => levels.len() + self.compressed.len(),
        };
        let kind = head.into_kind(s.version, compressed);
        self.header.clear();
        write_page_header(
            &mut self.header,
            checked_i32(uncompressed)?,
            checked_i32(compressed_size)?,
            &kind,
        );
        let total = self.header.len() + uncompressed;
        let written = |(offset, len)| WrittenPage {
            offset,
            len,
            uncompressed: total,
        };
        if compressed {
            if let PageBytes::Block(block) = values {
                self.recycle(block)?;
            }
            let header = self.header.as_slice();
            let parts: &[&[u8]] = match s.version {
                WriterVersion::PARQUET_1_0 => &[header, &self.compressed],
                WriterVersion::PARQUET_2_0 => &[header, levels, &self.compressed],
            };
            let offset = self.sink.push(parts, false)?;
            let len = parts.iter().map(|p| p.len()).sum();
            return Ok(written((offset, len)));
        }
        let placed = match values {
            PageBytes::Block(block) if self.sink.has_lent_block() => {
                let (block, start, headroom) = block.into_parts();
                let prefix = [self.header.as_slice(), levels];
                self.sink
                    .return_block_with_page(block, start, headroom, &prefix)?
            }
            PageBytes::Block(block) => {
                let parts = [self.header.as_slice(), levels, block.values()];
                let offset = self.sink.push(&parts, false)?;
                self.recycle(block)?;
                (offset, total)
            }
            PageBytes::Encoded(bytes) => {
                let offset = self.sink.push(&[&self.header, levels, bytes], false)?;
                (offset, total)
            }
        };
        Ok(written(placed))
    }

    /// Compresses the page body into `compressed`, if there is a codec and
    /// (V2) it saves enough; returns whether it did.
    fn compress(&mut self, s: &ColumnSettings, levels: &[u8], values: &[u8]) -> Result<bool> {
        let Some(codec) = &mut self.codec else {
            return Ok(false);
        };
        self.compressed.clear();
        match s.version {
            WriterVersion::PARQUET_1_0 => {
                self.uncompressed.clear();
                self.uncompressed.extend_from_slice(levels);
                self.uncompressed.extend_from_slice(values);
                self.compressed.reserve(self.uncompressed.len());
                codec.compress(&self.uncompressed, &mut self.compressed)?;
                Ok(true)
            }
            WriterVersion::PARQUET_2_0 => {
                codec.compress(values, &mut self.compressed)?;
                let uncompressed = (levels.len() + values.len()) as f64;
                Ok((self.compressed.len() as f64) < uncompressed * s.v2_compression_threshold)
            }
        }
    }

    /// Takes back a flushed PLAIN page's block whose values were copied
    /// elsewhere: to the sink it was lent from, or as the spare buffer.
    fn recycle(&mut self, block: PageBlock) -> Result<()> {
        let (mut block, start, _) = block.into_parts();
        if self.sink.has_lent_block() {
            block.truncate(start);
            self.sink.return_block(block)
        } else {
            if block.capacity() >= self.spare.capacity() {
                block.clear();
                self.spare = block;
            }
            Ok(())
        }
    }

    /// Writes the dictionary page.
    pub(crate) fn write_dictionary_page(&mut self, page: &DictionaryPage) -> Result<WrittenPage> {
        let raw = page.values.as_slice();
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
                num_values: page.num_values as i32,
            },
        );
        let offset = self.sink.push(&[&self.header, body], true)?;
        Ok(WrittenPage {
            offset,
            len: self.header.len() + body.len(),
            uncompressed: self.header.len() + raw.len(),
        })
    }
}

/// `size` as a page header size, or an error if it does not fit.
fn checked_i32(size: usize) -> Result<i32> {
    i32::try_from(size)
        .map_err(|_| ParquetError::General(format!("Page size overflow: {size} bytes")))
}
