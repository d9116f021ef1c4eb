//! Writing pages out: compression, page headers, and handing the bytes to
//! the chunk's [`PageSink`].
//!
//! PLAIN values are written by the encoder straight into a block lent from
//! the sink, after room for the header and levels; an uncompressed page goes
//! back to the sink with its header and levels filled in front of them, so
//! its values are never copied. Other pages are assembled from their parts.

mod in_flight;

use super::codec::PageCodec;
use super::data_page::{
    DataPageHead, PageTag, checked_i32, compressed_len, header_into, stored_size,
};
use super::header::{PageKind, write_page_header};
use super::metrics::WrittenPage;
use super::settings::ColumnSettings;
use crate::chunk::{BlockHint, PageSink};
use crate::encoding::block::PageBlock;
use crate::encoding::{DictionaryPage, PageBytes, ValueEncoder};
use crate::pool::PageHelpers;
use in_flight::Helped;
use parquet::errors::Result;
use parquet::file::properties::WriterVersion;

/// Compresses pages, writes their headers and stores them.
pub(crate) struct PageOutput {
    codec: Option<PageCodec>,
    sink: PageSink,
    header: Vec<u8>,
    /// Levels and values of a V1 page, to compress together.
    uncompressed: Vec<u8>,
    compressed: Vec<u8>,
    /// With a page store: the buffer the encoder writes PLAIN pages into,
    /// kept from page to page.
    spare: Vec<u8>,
    /// Stored data pages not yet recorded by the page builder, in order.
    stored: Vec<(WrittenPage, PageTag)>,
    /// With a codec and a writer on several threads: compression moves to
    /// the pool's threads (see [`Self::write_data_page`]).
    helpers: Option<Helped>,
}

impl std::fmt::Debug for PageOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageOutput")
            .field("sink", &self.sink)
            .field("helpers", &self.helpers)
            .finish_non_exhaustive()
    }
}

impl PageOutput {
    /// Pages compressed as `s` says, into `sink`; with `helpers`,
    /// compressed on the writer's other threads.
    pub(crate) fn try_new(
        s: &ColumnSettings,
        sink: PageSink,
        helpers: Option<PageHelpers>,
    ) -> Result<Self> {
        let codec = PageCodec::for_compression(s.compression)?;
        let helpers = helpers.filter(|_| codec.is_some()).map(Helped::new);
        Ok(Self {
            codec,
            sink,
            header: Vec::new(),
            uncompressed: Vec::new(),
            compressed: Vec::new(),
            spare: Vec::new(),
            stored: Vec::new(),
            helpers,
        })
    }

    /// The sink, with every page written.
    pub(crate) fn into_sink(self) -> PageSink {
        self.sink
    }

    /// Heap bytes held: buffers and the sink's pages.
    pub(crate) fn memory_size(&self) -> usize {
        let helped = self.helpers.as_ref().map_or(0, Helped::memory_size);
        self.sink.memory_size()
            + self.header.capacity()
            + self.uncompressed.capacity()
            + self.compressed.capacity()
            + self.spare.capacity()
            + helped
    }

    /// After a write of a tight sink (a writer whose memory a host
    /// accounts): frees the compression buffers and the sink's unused room,
    /// so that between writes the column holds little more than its pages.
    pub(crate) fn trim(&mut self) {
        self.uncompressed = Vec::new();
        self.compressed = Vec::new();
        self.spare = Vec::new();
        self.sink.trim();
    }

    /// Whether buffers are trimmed after each write (see [`Self::trim`]).
    pub(crate) fn tight(&self) -> bool {
        self.sink.tight()
    }

    /// Data pages stored since the last call, in page order.
    pub(crate) fn take_stored(&mut self) -> std::vec::Drain<'_, (WrittenPage, PageTag)> {
        self.stored.drain(..)
    }

    /// Before `need` more bytes of values go to `encoder`: if it writes a
    /// PLAIN page, makes sure it has a block with room for them, a block of
    /// the sink (with `headroom` bytes for header and levels) when pages are
    /// kept in memory.
    pub(crate) fn supply_block(
        &mut self,
        encoder: &mut ValueEncoder,
        headroom: usize,
        need: impl FnOnce() -> usize,
    ) -> Result<()> {
        if encoder.wants_page_block() {
            let need = need();
            // With helper threads, pages are stored while the next is being
            // written (and copied to be compressed anyway): the encoder
            // writes into the spare buffer, not a block of the sink.
            if self.sink.direct() && self.helpers.is_none() {
                let block = self.sink.lend_block(headroom + need)?;
                if let Some(unused) = encoder.lend_page_block(block, headroom) {
                    self.sink.return_block(unused)?;
                }
            } else {
                // Pages compressed here (V1) use the headroom for their
                // levels (see `compress`); on helper threads they are
                // copied anyway.
                let in_place = self.codec.is_some() && self.helpers.is_none();
                let room = if in_place { headroom } else { 0 };
                let spare = std::mem::take(&mut self.spare);
                if let Some(unused) = encoder.lend_page_block(spare, room) {
                    self.spare = unused;
                }
            }
        } else if let Some(block) = encoder.page_block()
            && self.sink.has_lent_block()
            && let need = need()
            && block.room() < need
        {
            let moved = block.page_len();
            self.sink
                .replace_lent_block(moved + need, moved, |fresh| encoder.move_page_block(fresh))?;
        }
        Ok(())
    }

    /// A block of the sink for a page whose values the encoder writes out
    /// when the page is cut (dictionary indices, DELTA_BINARY_PACKED,
    /// BYTE_STREAM_SPLIT): `headroom` bytes for header and levels, then
    /// room for `bound` bytes of values, which stay where they are written.
    /// `None` where pages are compressed or stored elsewhere (the encoder
    /// then writes into its own buffer, copied from there).
    pub(crate) fn lend_for_values(
        &mut self,
        headroom: usize,
        bound: usize,
    ) -> Result<Option<PageBlock>> {
        if self.codec.is_some() || !self.sink.direct() || self.sink.has_lent_block() {
            return Ok(None);
        }
        let block = self.sink.lend_block_for_page(headroom + bound)?;
        Ok(Some(PageBlock::new(block, headroom)))
    }

    /// How large new blocks of the sink should be: `hint`, except that with
    /// a codec lent blocks only hold one page before it is compressed (and
    /// are reused), so they are not made large up front. A tight sink keeps
    /// the hint: its blocks do not double, and one sized for the rest of
    /// the write saves moving the page at every mini-batch.
    pub(crate) fn set_block_hint(&mut self, mut hint: BlockHint) {
        if self.codec.is_some() && !self.sink.tight() {
            hint.expected = 0;
        }
        self.sink.set_hint(hint);
    }

    /// Writes a data page with `head`, `levels` and `values`; once it is
    /// stored it is listed by [`Self::take_stored`] with `tag`. With helper
    /// threads the page is compressed on one of them and stored later (by
    /// a later page, or [`Self::finish_pages`]), in order.
    pub(crate) fn write_data_page(
        &mut self,
        s: &ColumnSettings,
        head: DataPageHead,
        levels: &[u8],
        mut values: PageBytes<'_>,
        tag: PageTag,
    ) -> Result<()> {
        if self.helpers.is_some() {
            return self.send_data_page(s, head, levels, values, tag);
        }
        let uncompressed = levels.len() + values.as_slice().len();
        let compressed = self.compress(s, levels, &mut values)?;
        if compressed {
            if let PageBytes::Block(block) = values {
                self.recycle(block)?;
            }
            let body = std::mem::take(&mut self.compressed);
            let stored = self.store_compressed(s, &head, levels, uncompressed, &body);
            self.compressed = body;
            self.stored.push((stored?, tag));
            return Ok(());
        }
        let written = match values {
            PageBytes::Block(block) if self.sink.has_lent_block() => {
                self.write_header(s, &head, levels.len(), uncompressed, uncompressed, false)?;
                let (block, start, headroom) = block.into_parts();
                let prefix = [self.header.as_slice(), levels];
                let (offset, len) = self
                    .sink
                    .return_block_with_page(block, start, headroom, &prefix)?;
                WrittenPage {
                    offset,
                    len,
                    header: self.header.len(),
                    uncompressed: self.header.len() + uncompressed,
                }
            }
            PageBytes::Block(block) => {
                let written = self.store_uncompressed(s, &head, levels, block.values())?;
                self.recycle(block)?;
                written
            }
            PageBytes::Encoded(bytes) => self.store_uncompressed(s, &head, levels, bytes)?,
        };
        self.stored.push((written, tag));
        Ok(())
    }

    /// Stores a page uncompressed: header, levels, values.
    fn store_uncompressed(
        &mut self,
        s: &ColumnSettings,
        head: &DataPageHead,
        levels: &[u8],
        values: &[u8],
    ) -> Result<WrittenPage> {
        let size = levels.len() + values.len();
        self.write_header(s, head, levels.len(), size, size, false)?;
        let offset = self.sink.push(&[&self.header, levels, values], false)?;
        let total = self.header.len() + size;
        Ok(WrittenPage {
            offset,
            len: total,
            header: self.header.len(),
            uncompressed: total,
        })
    }

    /// Writes the header of a page into `header`.
    fn write_header(
        &mut self,
        s: &ColumnSettings,
        head: &DataPageHead,
        levels_len: usize,
        uncompressed: usize,
        compressed_size: usize,
        compressed: bool,
    ) -> Result<()> {
        self.header.clear();
        let sizes = (uncompressed, compressed_size, compressed);
        header_into(&mut self.header, s, head, levels_len, sizes)
    }

    /// Stores a page whose values (V1: levels and values) were compressed
    /// into `body`.
    fn store_compressed(
        &mut self,
        s: &ColumnSettings,
        head: &DataPageHead,
        levels: &[u8],
        uncompressed: usize,
        body: &[u8],
    ) -> Result<WrittenPage> {
        let compressed_size = compressed_len(s, levels.len(), body.len());
        self.write_header(s, head, levels.len(), uncompressed, compressed_size, true)?;
        let header = self.header.as_slice();
        let parts: &[&[u8]] = match s.version {
            WriterVersion::PARQUET_1_0 => &[header, body],
            WriterVersion::PARQUET_2_0 => &[header, levels, body],
        };
        let offset = self.sink.push(parts, false)?;
        Ok(WrittenPage {
            offset,
            len: header.len() + compressed_size,
            header: header.len(),
            uncompressed: header.len() + uncompressed,
        })
    }

    /// Compresses the page body into `compressed`, if there is a codec and
    /// (V2) it saves enough; returns whether it did.
    ///
    /// A V1 page compresses its levels and values as one: values alone, or
    /// values in a block with room in front for the levels, are compressed
    /// where they are; otherwise both are first copied together.
    fn compress(
        &mut self,
        s: &ColumnSettings,
        levels: &[u8],
        values: &mut PageBytes<'_>,
    ) -> Result<bool> {
        let Some(codec) = &mut self.codec else {
            return Ok(false);
        };
        self.compressed.clear();
        match s.version {
            WriterVersion::PARQUET_1_0 => {
                let whole = match values {
                    _ if levels.is_empty() => Some(values.as_slice()),
                    PageBytes::Block(block) => block.prefixed(levels),
                    PageBytes::Encoded(_) => None,
                };
                let input = match whole {
                    Some(whole) => whole,
                    None => {
                        self.uncompressed.clear();
                        self.uncompressed.extend_from_slice(levels);
                        self.uncompressed.extend_from_slice(values.as_slice());
                        &self.uncompressed
                    }
                };
                self.compressed.reserve(input.len());
                codec.compress(input, &mut self.compressed)?;
                Ok(true)
            }
            WriterVersion::PARQUET_2_0 => {
                let values = values.as_slice();
                codec.compress(values, &mut self.compressed)?;
                let uncompressed = levels.len() + values.len();
                Ok(stored_size(s, uncompressed, levels.len(), self.compressed.len()).1)
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
            header: self.header.len(),
            uncompressed: self.header.len() + raw.len(),
        })
    }
}
