//! Column chunks: where finished pages are kept until the row group is
//! written, and how they are spliced into the file.
//!
//! Pages are serialized (header ‖ body) into large arena blocks and kept as
//! `Bytes` views of those blocks, or handed to a [`PageStore`] when the writer
//! was given a [`PageStoreFactory`](parquet::arrow::arrow_writer::PageStoreFactory).
//! As in `parquet`, the dictionary page is produced last but written first:
//! offsets are recorded in write order and moved with
//! [`ColumnCloseResult::update_dictionary_location`] when the chunk is spliced
//! through [`SerializedRowGroupWriter::append_column`].

use bytes::{Bytes, BytesMut};
use parquet::arrow::arrow_writer::{PageKey, PageStore};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::writer::SerializedRowGroupWriter;
use std::io::{Read, Write};
use std::sync::Mutex;

const FIRST_BLOCK: usize = 64 * 1024;
const MAX_BLOCK: usize = 8 * 1024 * 1024;

/// Bulk allocation that pages are cut from.
#[derive(Debug, Default)]
struct Arena {
    block: BytesMut,
    next_block: usize,
}

impl Arena {
    /// Copies `parts` into one contiguous page.
    fn page(&mut self, parts: &[&[u8]]) -> Bytes {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if self.block.capacity() - self.block.len() < len {
            let size = self.next_block.max(FIRST_BLOCK);
            self.next_block = (size * 2).min(MAX_BLOCK);
            self.block = BytesMut::with_capacity(size.max(len));
            advise_huge_pages(&mut self.block);
        }
        for p in parts {
            self.block.extend_from_slice(p);
        }
        self.block.split().freeze()
    }
}

/// Asks the kernel to back a large block with transparent huge pages: the
/// block is written once, front to back, and faulting it in 4 KiB at a time
/// costs more than the writing itself.
#[cfg(target_os = "linux")]
fn advise_huge_pages(block: &mut BytesMut) {
    const HUGE: usize = 2 * 1024 * 1024;
    let cap = block.capacity();
    if cap < 2 * HUGE {
        return;
    }
    let start = block.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + cap) / HUGE * HUGE;
    if end > aligned {
        // SAFETY: `[aligned, end)` lies inside the block's allocation, which
        // stays alive while it is in use; MADV_HUGEPAGE only changes how the
        // kernel backs those pages, never their contents, and a failure is
        // harmless (the pages stay small).
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_block: &mut BytesMut) {}

/// A page as kept until splice.
#[derive(Debug)]
enum Stored {
    Bytes(Bytes),
    Key(PageKey),
}

/// Where a column's finished pages go.
pub(crate) struct PageSink {
    arena: Arena,
    store: Option<Box<dyn PageStore>>,
    pages: Vec<Stored>,
    dictionary: Vec<Stored>,
    dictionary_len: usize,
    /// Bytes of all pages so far, in write order.
    length: usize,
    resident: usize,
}

impl std::fmt::Debug for PageSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageSink")
            .field("pages", &self.pages.len())
            .field("length", &self.length)
            .finish_non_exhaustive()
    }
}

impl PageSink {
    /// Pages kept in memory, or in `store` if given.
    pub(crate) fn new(store: Option<Box<dyn PageStore>>) -> Self {
        Self {
            arena: Arena::default(),
            store,
            pages: Vec::new(),
            dictionary: Vec::new(),
            dictionary_len: 0,
            length: 0,
            resident: 0,
        }
    }

    /// Stores a page (the concatenation of `parts`: header, then body);
    /// returns its write-order offset.
    pub(crate) fn push(&mut self, parts: &[&[u8]], dictionary: bool) -> Result<u64> {
        let offset = self.length as u64;
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let page = self.arena.page(parts);
        let stored = match &mut self.store {
            Some(store) => Stored::Key(store.put(page)?),
            None => {
                self.resident += len;
                Stored::Bytes(page)
            }
        };
        if dictionary {
            self.dictionary.push(stored);
            self.dictionary_len += len;
        } else {
            self.pages.push(stored);
        }
        self.length += len;
        Ok(offset)
    }

    /// Heap bytes held: pages kept in memory plus the open arena block.
    pub(crate) fn memory_size(&self) -> usize {
        self.resident
            + self.arena.block.capacity()
            + self.store.as_ref().map_or(0, |s| s.memory_size())
    }
}

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
        let close = self
            .close
            .update_dictionary_location(self.sink.dictionary_len)?;
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
            store: sink.store,
            pages: order.into_iter(),
            current: Bytes::new(),
        })
    }

    fn get_bytes(&self, _start: u64, _length: usize) -> Result<Bytes> {
        Err(ParquetError::General(
            "column chunk pages are streamed, not read at random".into(),
        ))
    }
}

/// Streams pages out of memory or the page store, one at a time.
struct PageStream {
    store: Option<Box<dyn PageStore>>,
    pages: std::vec::IntoIter<Stored>,
    current: Bytes,
}

impl Read for PageStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.pages.next() {
                None => return Ok(0),
                Some(Stored::Bytes(b)) => self.current = b,
                Some(Stored::Key(key)) => {
                    let store = self
                        .store
                        .as_mut()
                        .ok_or_else(|| std::io::Error::other("page key without a page store"))?;
                    self.current = store.take(key).map_err(std::io::Error::other)?;
                }
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        bytes::Buf::advance(&mut self.current, n);
        Ok(n)
    }
}
