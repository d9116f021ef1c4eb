//! Splicing a finished chunk into the file: its pages streamed, dictionary
//! page first, to `SerializedRowGroupWriter::append_column`.

use super::{Blocks, PageSink, Stored};
use crate::compat::PageStore;
use crate::cpu::prefetch;
use bytes::Bytes;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::writer::SerializedRowGroupWriter;
use std::io::{Read, Write};
use std::sync::Mutex;

/// A finished column chunk: its pages and its `ColumnCloseResult`.
pub(crate) struct FlbaChunk {
    pub(crate) sink: PageSink,
    pub(crate) close: ColumnCloseResult,
}

impl FlbaChunk {
    /// Writes the chunk into `writer`, dictionary page first.
    pub(crate) fn append_to_row_group<W: Write + Send>(
        self,
        writer: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        let has_data_pages = !self.sink.pages.is_empty();
        let close =
            crate::compat::dictionary_first(self.close, self.sink.dictionary_len, has_data_pages)?;
        let len = self.sink.length as u64;
        let reader = SpliceReader {
            pages: Mutex::new(Some(self.sink)),
            len,
        };
        writer.append_column(&reader, close)
    }
}

/// Presents a chunk's pages, in file order, to `append_column`.
struct SpliceReader {
    pages: Mutex<Option<PageSink>>,
    len: u64,
}

impl Length for SpliceReader {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for SpliceReader {
    type T = PageStream;

    fn get_read(&self, start: u64) -> Result<PageStream> {
        if start != 0 {
            return Err(ParquetError::General(format!(
                "column chunk pages can only be read from the start, not from offset {start}"
            )));
        }
        let sink = self
            .pages
            .lock()
            .map_err(|_| ParquetError::General("column chunk lock poisoned".into()))?
            .take()
            .ok_or_else(|| ParquetError::General("column chunk already spliced".into()))?;
        let mut order = sink.dictionary;
        order.extend(sink.pages);
        Ok(PageStream {
            blocks: sink.blocks,
            store: sink.store.map(|(s, _)| s),
            pages: order.into_iter(),
            current: None,
            block: 0,
            pos: 0,
            split: 0,
            end: 0,
        })
    }

    fn get_bytes(&self, _start: u64, _length: usize) -> Result<Bytes> {
        Err(ParquetError::General(
            "column chunk pages are streamed, not read at random".into(),
        ))
    }
}

/// Streams pages out of memory or the page store, one at a time.
///
/// Each page is handed out as `parquet` hands its pages to the file writer:
/// the header, then the body, each as one `write_all`. Through
/// `append_column`'s `io::copy` (an 8 KiB buffer) a blob longer than the
/// buffer is handed out as its remainder first, then whole buffers, so the
/// file writer's `BufWriter` is left holding exactly what `parquet` leaves in
/// it (what `AsyncArrowWriter` sees when it takes the written bytes).
/// parquet 58 copies its own chunks through `io::copy` too, front first
/// (D22): so does this stream under 58.
struct PageStream {
    blocks: Blocks,
    store: Option<Box<dyn PageStore>>,
    pages: std::vec::IntoIter<Stored>,
    /// The current page from the store (else from `blocks[block]`).
    current: Option<Bytes>,
    block: usize,
    pos: usize,
    split: usize,
    end: usize,
}

/// Bytes [`PageStream`] asks the memory for beyond each read.
const READ_AHEAD: usize = 8 << 10;

impl Read for PageStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.pos < self.end {
                let blob_end = if self.pos < self.split {
                    self.split
                } else {
                    self.end
                };
                let rest = blob_end - self.pos;
                let k = buf.len();
                let n = if crate::compat::PAGES_SPLICED_WHOLE && rest > k && !rest.is_multiple_of(k)
                {
                    rest % k
                } else {
                    rest.min(k)
                };
                let blob: &[u8] = match &self.current {
                    Some(b) => b,
                    None => &self.blocks[self.block],
                };
                buf[..n].copy_from_slice(&blob[self.pos..self.pos + n]);
                self.pos += n;
                // The caller (`std::io::copy`) reads in small pieces: ask for
                // the next piece's lines now, so that reading them from
                // memory overlaps writing this one out.
                let ahead = blob_end.min(self.pos + n.max(READ_AHEAD));
                for line in blob[self.pos..ahead].iter().step_by(64) {
                    prefetch(line);
                }
                return Ok(n);
            }
            match self.pages.next() {
                None => return Ok(0),
                Some(Stored::Range {
                    block,
                    start,
                    header,
                    end,
                }) => {
                    self.current = None;
                    self.block = block;
                    self.pos = start;
                    self.split = start + header;
                    self.end = end;
                }
                Some(Stored::Key(key, header)) => {
                    let store = self
                        .store
                        .as_mut()
                        .ok_or_else(|| std::io::Error::other("page key without a page store"))?;
                    let bytes = store.take(key).map_err(std::io::Error::other)?;
                    self.pos = 0;
                    self.split = header.min(bytes.len());
                    self.end = bytes.len();
                    self.current = Some(bytes);
                }
            }
        }
    }
}
