//! Compressing a column's data pages on the writer's other threads
//! ([`PageHelpers`]): each page is copied out with a codec of its own, a few
//! pages are out at once, and they are stored in page order, as they would
//! have been stored had they been compressed on the column's own thread.

use super::PageOutput;
use crate::encoding::PageBytes;
use crate::page::codec::PageCodec;
use crate::page::data_page::{DataPageHead, PageTag, header_into, stored_size};
use crate::page::metrics::held;
use crate::page::settings::ColumnSettings;
use crate::pool::{PageHelpers, Ticket};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterVersion;
use std::collections::VecDeque;

/// A data page out on a helper thread being compressed ([`PageHelpers`]).
struct InFlight {
    head: DataPageHead,
    tag: PageTag,
    levels: Vec<u8>,
    /// Levels and values, uncompressed.
    uncompressed: usize,
    /// The heap the page holds while it is out, as counted when it was
    /// sent: its levels, its input and output buffers, and its codec.
    held: usize,
    ticket: Ticket<Compressed>,
}

/// What a compression job hands back: its codec and buffers, and the
/// outcome.
struct Compressed {
    codec: PageCodec,
    /// What was compressed: V1 levels and values, V2 values.
    input: Vec<u8>,
    output: Vec<u8>,
    result: Result<()>,
}

/// The state of compressing pages on helper threads.
pub(super) struct Helped {
    helpers: PageHelpers,
    /// Pages out being compressed, oldest first.
    in_flight: VecDeque<InFlight>,
    /// Codecs and buffers not lent to a job (each kept for one use, so
    /// that a buffer keeps the size its use needs); each codec with the
    /// heap it holds.
    codecs: Vec<(PageCodec, usize)>,
    inputs: Vec<Vec<u8>>,
    outputs: Vec<Vec<u8>>,
    levels: Vec<Vec<u8>>,
}

impl Helped {
    /// Nothing out yet, nothing kept.
    pub(super) fn new(helpers: PageHelpers) -> Self {
        Self {
            helpers,
            in_flight: VecDeque::new(),
            codecs: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            levels: Vec::new(),
        }
    }

    /// Heap bytes held: idle buffers and codecs, and the pages out being
    /// compressed (each with its buffers and codec, as counted when it
    /// was sent, so the figure does not change while the helpers work).
    pub(super) fn memory_size(&self) -> usize {
        let lent: usize = self.in_flight.iter().map(|f| f.held).sum();
        let idle = self.inputs.iter().chain(&self.outputs).chain(&self.levels);
        let codecs: usize = self.codecs.iter().map(|(_, bytes)| bytes).sum();
        idle.map(Vec::capacity).sum::<usize>() + codecs + lent
    }
}

impl std::fmt::Debug for Helped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.helpers, f)
    }
}

impl PageOutput {
    /// The bytes the pages out on helper threads will take once stored
    /// (headers included, but for the dictionary-encoded pages parquet 58
    /// holds back: see `ChunkTotals::held_headers`), waiting for them if
    /// need be; they count in the chunk's size estimate as if they were
    /// stored.
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

    /// [`Self::write_data_page`] with helper threads: the page's bytes are
    /// copied into a buffer of their own and handed, with a codec of their
    /// own, to a helper; then pages beyond what may be out at once are
    /// stored (waiting for them if need be).
    pub(super) fn send_data_page(
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
        let mut codec = match h.codecs.pop() {
            Some((codec, _)) => codec,
            None => PageCodec::for_compression(s.compression)?
                .ok_or_else(|| ParquetError::General("the column has no codec".into()))?,
        };
        // As it will be once it has compressed the page.
        let codec_bytes = codec.memory_size_for(input.len());
        // Room for the most the codec can make of the page, here, so that
        // the page's heap is known while it is out.
        let mut output = h.outputs.pop().unwrap_or_default();
        output.clear();
        output.reserve(codec.max_compressed_len(input.len()));
        let held = kept_levels.capacity() + input.capacity() + output.capacity() + codec_bytes;
        let uncompressed = levels.len() + bytes.len();
        let job = move || {
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
            held,
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
            mut codec,
            input,
            output,
            result,
        } = done;
        if let Some(h) = &mut self.helpers {
            let bytes = codec.memory_size();
            h.codecs.push((codec, bytes));
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
}
