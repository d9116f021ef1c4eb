//! Writing pages out: compression, page headers, and handing the bytes to
//! the chunk's [`PageSink`].
//!
//! PLAIN values are written by the encoder straight into a block lent from
//! the sink, after room for the header and levels; an uncompressed page goes
//! back to the sink with its header and levels filled in front of them, so
//! its values are never copied. Other pages are assembled from their parts.

use super::header::{PageKind, write_page_header};
use super::metrics::{PageCounters, WrittenPage, held};
use super::settings::ColumnSettings;
use super::statistics::HeaderMinMax;
use crate::chunk::{BlockHint, PageSink};
use crate::encoding::block::PageBlock;
use crate::encoding::{ColumnEncoder, DictionaryPage, PageBytes};
use crate::writer::pool::{PageHelpers, Ticket};
use parquet::basic::Encoding;
use parquet::compression::{Codec, CodecOptionsBuilder, create_codec};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterVersion;
use std::collections::VecDeque;

/// What a data page header says, besides sizes and the levels.
#[derive(Debug)]
pub(crate) struct DataPageHead {
    /// Levels (values and nulls).
    pub num_levels: u32,
    /// Nulls.
    pub num_nulls: u64,
    /// Rows.
    pub num_rows: u32,
    /// Value encoding.
    pub encoding: Encoding,
    /// Length of the repetition levels within the page's levels.
    pub rep_len: usize,
    /// Header statistics (min / max), if written.
    pub statistics: Option<HeaderMinMax>,
}

impl DataPageHead {
    /// The header's page type and fields, for a page with `levels_len`
    /// bytes of levels, `compressed` or not.
    fn kind(&self, version: WriterVersion, levels_len: usize, compressed: bool) -> PageKind<'_> {
        let statistics = self
            .statistics
            .as_ref()
            .map(|m| m.with_nulls(self.num_nulls));
        match version {
            WriterVersion::PARQUET_1_0 => PageKind::DataV1 {
                num_values: self.num_levels as i32,
                encoding: self.encoding,
                statistics,
            },
            WriterVersion::PARQUET_2_0 => PageKind::DataV2 {
                num_values: self.num_levels as i32,
                num_nulls: self.num_nulls as u32 as i32,
                num_rows: self.num_rows as i32,
                encoding: self.encoding,
                def_levels_len: (levels_len - self.rep_len) as i32,
                rep_levels_len: self.rep_len as i32,
                is_compressed: compressed,
                statistics,
            },
        }
    }
}

/// What the page builder records of a data page once it is stored.
#[derive(Debug)]
pub(crate) struct PageTag {
    /// Value encoding.
    pub encoding: Encoding,
    /// The page's counters.
    pub counters: PageCounters,
}

/// A data page out on a helper thread being compressed ([`PageHelpers`]).
struct InFlight {
    head: DataPageHead,
    tag: PageTag,
    levels: Vec<u8>,
    /// Levels and values, uncompressed.
    uncompressed: usize,
    ticket: Ticket<Compressed>,
}

/// The size after its header of a page of `uncompressed` bytes (levels and
/// values, `levels` of them levels), and whether it is stored compressed,
/// given `compressed` bytes of compressed values (V1: levels and values):
/// V2 pages stay uncompressed unless compression saves enough.
fn stored_size(
    s: &ColumnSettings,
    uncompressed: usize,
    levels: usize,
    compressed: usize,
) -> (usize, bool) {
    let saves = (compressed as f64) < uncompressed as f64 * s.v2_compression_threshold;
    match s.version == WriterVersion::PARQUET_1_0 || saves {
        true => (compressed_len(s, levels, compressed), true),
        false => (uncompressed, false),
    }
}

/// The size after its header of a compressed page with `levels` bytes of
/// levels and `compressed` bytes of compressed values (V1: levels and
/// values; V2 keeps its levels uncompressed, in front).
fn compressed_len(s: &ColumnSettings, levels: usize, compressed: usize) -> usize {
    match s.version {
        WriterVersion::PARQUET_1_0 => compressed,
        WriterVersion::PARQUET_2_0 => levels + compressed,
    }
}

/// What a compression job hands back: its codec and buffers, and the
/// outcome.
struct Compressed {
    codec: Box<dyn Codec>,
    /// What was compressed: V1 levels and values, V2 values.
    input: Vec<u8>,
    output: Vec<u8>,
    result: Result<()>,
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
    /// Stored data pages not yet recorded by the page builder, in order.
    stored: Vec<(WrittenPage, PageTag)>,
    /// With a codec and a writer on several threads: compression moves to
    /// the pool's threads (see [`Self::write_data_page`]).
    helpers: Option<Helped>,
}

/// The state of compressing pages on helper threads.
struct Helped {
    helpers: PageHelpers,
    /// Pages out being compressed, oldest first.
    in_flight: VecDeque<InFlight>,
    /// Codecs and buffers not lent to a job (each kept for one use, so
    /// that a buffer keeps the size its use needs).
    codecs: Vec<Box<dyn Codec>>,
    inputs: Vec<Vec<u8>>,
    outputs: Vec<Vec<u8>>,
    levels: Vec<Vec<u8>>,
}

impl std::fmt::Debug for PageOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageOutput")
            .field("sink", &self.sink)
            .field("helpers", &self.helpers.as_ref().map(|h| &h.helpers))
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
        let codec = create_codec(s.compression, &CodecOptionsBuilder::default().build())?;
        let helpers = helpers.filter(|_| codec.is_some()).map(|helpers| Helped {
            helpers,
            in_flight: VecDeque::new(),
            codecs: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            levels: Vec::new(),
        });
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
        let helped = self.helpers.as_ref().map_or(0, |h| {
            let lent: usize = h.in_flight.iter().map(|f| f.uncompressed).sum();
            let idle = h.inputs.iter().chain(&h.outputs).chain(&h.levels);
            idle.map(Vec::capacity).sum::<usize>() + lent
        });
        self.sink.memory_size()
            + self.header.capacity()
            + self.uncompressed.capacity()
            + self.compressed.capacity()
            + self.spare.capacity()
            + helped
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
        encoder: &mut ColumnEncoder,
        headroom: usize,
        need: usize,
    ) -> Result<()> {
        if encoder.wants_page_block() {
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

    /// The bytes the pages out on helper threads will take once stored
    /// (headers included, but for the dictionary-encoded pages parquet 58
    /// holds back: see `ChunkTotals::held_headers`), waiting for them if need be; they count in the chunk's size estimate
    /// as if they were stored.
    pub(crate) fn pending_bytes(&self, s: &ColumnSettings) -> u64 {
        let Some(h) = &self.helpers else {
            return 0;
        };
        let mut header = Vec::new();
        let mut total = 0;
        for page in &h.in_flight {
            total += page.ticket.peek(|outcome| match outcome {
                Some(Ok(Compressed {
                    output,
                    result: Ok(()),
                    ..
                })) => {
                    header.clear();
                    let (size, compressed) =
                        stored_size(s, page.uncompressed, page.levels.len(), output.len());
                    let sizes = (page.uncompressed, size, compressed);
                    match header_into(&mut header, s, &page.head, page.levels.len(), sizes) {
                        Ok(()) if held(page.head.encoding) => size as u64,
                        Ok(()) => (header.len() + size) as u64,
                        Err(_) => 0,
                    }
                }
                // The error comes when the page is stored.
                _ => 0,
            });
        }
        total
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

    /// [`Self::write_data_page`] with helper threads: the page's bytes are
    /// copied into a buffer of their own and handed, with a codec of their
    /// own, to a helper; then pages beyond what may be out at once are
    /// stored (waiting for them if need be).
    fn send_data_page(
        &mut self,
        s: &ColumnSettings,
        head: DataPageHead,
        levels: &[u8],
        values: PageBytes<'_>,
        tag: PageTag,
    ) -> Result<()> {
        let bytes = values.as_slice();
        let Some(h) = &mut self.helpers else {
            return Err(ParquetError::General("no helper threads".into()));
        };
        let mut input = h.inputs.pop().unwrap_or_default();
        input.clear();
        if s.version == WriterVersion::PARQUET_1_0 {
            input.extend_from_slice(levels);
        }
        input.extend_from_slice(bytes);
        let mut kept_levels = h.levels.pop().unwrap_or_default();
        kept_levels.clear();
        kept_levels.extend_from_slice(levels);
        let mut output = h.outputs.pop().unwrap_or_default();
        let mut codec = match h.codecs.pop() {
            Some(codec) => codec,
            None => create_codec(s.compression, &CodecOptionsBuilder::default().build())?
                .ok_or_else(|| ParquetError::General("the column has no codec".into()))?,
        };
        let uncompressed = levels.len() + bytes.len();
        let job = move || {
            output.clear();
            output.reserve(input.len());
            let result = codec.compress(&input, &mut output);
            Compressed {
                codec,
                input,
                output,
                result,
            }
        };
        let ticket = h.helpers.spawn(job);
        h.in_flight.push_back(InFlight {
            head,
            tag,
            levels: kept_levels,
            uncompressed,
            ticket,
        });
        let out_at_once = h.helpers.in_flight();
        if let PageBytes::Block(block) = values {
            self.recycle(block)?;
        }
        while self
            .helpers
            .as_ref()
            .is_some_and(|h| h.in_flight.len() > out_at_once)
        {
            self.store_oldest(s)?;
        }
        Ok(())
    }

    /// Stores every page still out on a helper thread, in order.
    pub(crate) fn finish_pages(&mut self, s: &ColumnSettings) -> Result<()> {
        while self
            .helpers
            .as_ref()
            .is_some_and(|h| !h.in_flight.is_empty())
        {
            self.store_oldest(s)?;
        }
        Ok(())
    }

    /// Waits for the oldest page out on a helper thread and stores it as
    /// the page would have been stored had it been compressed here.
    fn store_oldest(&mut self, s: &ColumnSettings) -> Result<()> {
        let Some(page) = self.helpers.as_mut().and_then(|h| h.in_flight.pop_front()) else {
            return Ok(());
        };
        let done = page.ticket.wait().map_err(|message| {
            ParquetError::General(format!(
                "compressing a page panicked on a worker thread: {message}"
            ))
        })?;
        let Compressed {
            codec,
            input,
            output,
            result,
        } = done;
        if let Some(h) = &mut self.helpers {
            h.codecs.push(codec);
        }
        result?;
        let levels = page.levels.as_slice();
        let (_, compressed) = stored_size(s, page.uncompressed, levels.len(), output.len());
        let written = match compressed {
            true => self.store_compressed(s, &page.head, levels, page.uncompressed, &output)?,
            // V2 (the only version that can stay uncompressed): `input`
            // holds the values alone.
            false => self.store_uncompressed(s, &page.head, levels, &input)?,
        };
        self.stored.push((written, page.tag));
        if let Some(h) = &mut self.helpers {
            h.inputs.push(input);
            h.outputs.push(output);
            h.levels.push(page.levels);
        }
        Ok(())
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

/// Writes the header of a data page with `head` and `levels_len` bytes of
/// levels into `out`; `sizes`: uncompressed and stored sizes, and whether
/// the page is compressed.
fn header_into(
    out: &mut Vec<u8>,
    s: &ColumnSettings,
    head: &DataPageHead,
    levels_len: usize,
    (uncompressed, stored, compressed): (usize, usize, bool),
) -> Result<()> {
    write_page_header(
        out,
        checked_i32(uncompressed)?,
        checked_i32(stored)?,
        &head.kind(s.version, levels_len, compressed),
    );
    Ok(())
}

/// `size` as a page header size, or an error if it does not fit.
fn checked_i32(size: usize) -> Result<i32> {
    i32::try_from(size)
        .map_err(|_| ParquetError::General(format!("Page size overflow: {size} bytes")))
}
