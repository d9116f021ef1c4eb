//! Column chunks: where finished pages are kept until the row group is
//! written, and how they are spliced into the file.
//!
//! In memory, pages live in a few large blocks (growing from 64 KiB to 8 MiB),
//! recorded as ranges, so a column chunk costs a handful of allocations however
//! many pages it has. PLAIN values are even written straight into the block, at
//! the place their page will occupy: room is left in front for the page header
//! (and levels), filled in when the page is cut, so the values are never
//! copied between the encoder and the page.
//!
//! With a user's [`PageStore`], each page is handed over as a `Bytes` view cut
//! from a bulk `BytesMut` block.
//!
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
/// Largest bulk block cut into pages handed to a user's page store.
const STORE_BLOCK: usize = 1024 * 1024;

/// Asks the kernel to back a large block with transparent huge pages: the
/// block is written once, front to back, and faulting it in 4 KiB at a time
/// costs more than the writing itself.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, cap: usize) {
    const HUGE: usize = 2 * 1024 * 1024;
    if cap < 2 * HUGE {
        return;
    }
    let start = ptr as usize;
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + cap) / HUGE * HUGE;
    if end > aligned {
        // SAFETY: `[aligned, end)` lies inside a live allocation of `cap`
        // bytes at `ptr`; MADV_HUGEPAGE only changes how the kernel backs
        // those pages, never their contents, and a failure is harmless (the
        // pages stay small).
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
fn advise_huge_pages(_ptr: *mut u8, _cap: usize) {}

/// Size of the next block: doubling from 64 KiB up to 8 MiB, and never less
/// than `need`.
fn next_block_size(next: &mut usize, need: usize) -> usize {
    let size = (*next).max(FIRST_BLOCK);
    *next = (size * 2).min(MAX_BLOCK);
    size.max(need)
}

/// A page as kept until splice.
#[derive(Debug)]
enum Stored {
    /// `blocks[block][start..end]`.
    Range {
        block: usize,
        start: usize,
        header: usize,
        end: usize,
    },
    Key(PageKey, usize),
}

/// The page being built straight in the current block: `reserve` bytes of
/// room for its header and levels at `start`, then its values.
#[derive(Debug, Clone, Copy)]
struct OpenPage {
    start: usize,
    reserve: usize,
}

/// Where a column's finished pages go.
pub(crate) struct PageSink {
    /// In-memory blocks; never reallocated once created.
    blocks: Vec<Vec<u8>>,
    open: Option<OpenPage>,
    next_block: usize,
    /// With a user's page store: the bulk buffer pages are cut from.
    store: Option<(Box<dyn PageStore>, BytesMut)>,
    pages: Vec<Stored>,
    dictionary: Vec<Stored>,
    dictionary_len: usize,
    /// Bytes of all pages so far, in write order.
    length: usize,
    /// Size of the current bulk block of the store path (pinned while any of
    /// its pages is held).
    store_block: usize,
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
            blocks: Vec::new(),
            open: None,
            next_block: FIRST_BLOCK,
            store: store.map(|s| (s, BytesMut::new())),
            pages: Vec::new(),
            dictionary: Vec::new(),
            dictionary_len: 0,
            length: 0,
            store_block: 0,
        }
    }

    /// A new in-memory block of at least `need` bytes.
    fn new_block(&mut self, need: usize) -> &mut Vec<u8> {
        let size = next_block_size(&mut self.next_block, need);
        let mut block = Vec::with_capacity(size);
        advise_huge_pages(block.as_mut_ptr(), block.capacity());
        self.blocks.push(block);
        self.blocks.last_mut().unwrap()
    }

    /// The current block, with room for `additional` more bytes.
    fn block_with_room(&mut self, additional: usize) -> &mut Vec<u8> {
        let fits = self
            .blocks
            .last()
            .is_some_and(|b| b.capacity() - b.len() >= additional);
        if !fits {
            self.new_block(additional);
        }
        self.blocks.last_mut().unwrap()
    }

    /// Whether values can be written straight into the page's final place.
    pub(crate) fn direct(&self) -> bool {
        self.store.is_none()
    }

    /// The buffer to append `additional` bytes of the open page's values to,
    /// opening a page with `reserve` bytes of room for its header and levels
    /// if none is open. In-memory sinks only (see [`Self::direct`]).
    pub(crate) fn values_buffer(&mut self, reserve: usize, additional: usize) -> &mut Vec<u8> {
        debug_assert!(self.direct());
        match self.open {
            None => {
                let block = self.block_with_room(reserve + additional);
                let start = block.len();
                block.resize(start + reserve, 0);
                self.open = Some(OpenPage { start, reserve });
            }
            Some(open) => {
                let last = self.blocks.len() - 1;
                let (cap, len) = (self.blocks[last].capacity(), self.blocks[last].len());
                if cap - len < additional {
                    // Move the open page to a fresh block with room to grow.
                    let size = next_block_size(&mut self.next_block, len - open.start + additional);
                    let mut fresh = Vec::with_capacity(size);
                    advise_huge_pages(fresh.as_mut_ptr(), fresh.capacity());
                    fresh.extend_from_slice(&self.blocks[last][open.start..]);
                    self.blocks[last].truncate(open.start);
                    if self.blocks[last].is_empty() {
                        self.blocks[last] = Vec::new();
                    }
                    self.blocks.push(fresh);
                    self.open = Some(OpenPage {
                        start: 0,
                        reserve: open.reserve,
                    });
                }
            }
        }
        self.blocks.last_mut().unwrap()
    }

    /// The values written so far into the open page (empty if none is open).
    pub(crate) fn open_values(&self) -> &[u8] {
        match self.open {
            Some(open) => &self.blocks.last().unwrap()[open.start + open.reserve..],
            None => &[],
        }
    }

    /// Whether a page is being built in place.
    pub(crate) fn has_open_page(&self) -> bool {
        self.open.is_some()
    }

    /// Finishes the open page: `prefix` (header, levels) goes right in front
    /// of its values. Returns the page's write-order offset and length.
    pub(crate) fn close_open_page(&mut self, prefix: &[&[u8]]) -> Result<(u64, usize)> {
        let open = self
            .open
            .take()
            .ok_or_else(|| ParquetError::General("no open page".into()))?;
        let prefix_len: usize = prefix.iter().map(|p| p.len()).sum();
        let mut block_index = self.blocks.len() - 1;
        let mut open = open;
        if prefix_len > open.reserve {
            // Not enough room: shift the values right.
            let shift = prefix_len - open.reserve;
            let block = &mut self.blocks[block_index];
            if block.capacity() - block.len() >= shift {
                let end = block.len();
                block.resize(end + shift, 0);
                let values_at = open.start + open.reserve;
                block.copy_within(values_at..end, values_at + shift);
            } else {
                let values = block[open.start + open.reserve..].to_vec();
                block.truncate(open.start);
                let fresh = self.new_block(prefix_len + values.len());
                fresh.resize(prefix_len, 0);
                fresh.extend_from_slice(&values);
                block_index = self.blocks.len() - 1;
                open.start = 0;
            }
            open.reserve = prefix_len;
        }
        let block = &mut self.blocks[block_index];
        let page_start = open.start + open.reserve - prefix_len;
        let mut at = page_start;
        for p in prefix {
            block[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
        let end = block.len();
        let offset = self.length as u64;
        let len = end - page_start;
        self.pages.push(Stored::Range {
            block: block_index,
            start: page_start,
            header: prefix.first().map_or(0, |h| h.len()),
            end,
        });
        self.length += len;
        Ok((offset, len))
    }

    /// Drops the open page (its values were encoded elsewhere, e.g. compressed).
    pub(crate) fn discard_open_page(&mut self) {
        if let Some(open) = self.open.take() {
            self.blocks.last_mut().unwrap().truncate(open.start);
        }
    }

    /// Stores a page (the concatenation of `parts`: header, then body);
    /// returns its write-order offset.
    pub(crate) fn push(&mut self, parts: &[&[u8]], dictionary: bool) -> Result<u64> {
        debug_assert!(self.open.is_none());
        let offset = self.length as u64;
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let header = parts.first().map_or(0, |h| h.len());
        let stored = match &mut self.store {
            Some((store, arena)) => {
                if arena.capacity() - arena.len() < len {
                    // With a store (which may spill), keep bulk blocks small: a
                    // page kept in memory pins its whole block.
                    let size = next_block_size(&mut self.next_block, len).min(len.max(STORE_BLOCK));
                    *arena = BytesMut::with_capacity(size);
                    self.store_block = arena.capacity();
                    advise_huge_pages(arena.as_mut_ptr(), arena.capacity());
                }
                for p in parts {
                    arena.extend_from_slice(p);
                }
                Stored::Key(store.put(arena.split().freeze())?, header)
            }
            None => {
                let block = self.block_with_room(len);
                let start = block.len();
                for p in parts {
                    block.extend_from_slice(p);
                }
                Stored::Range {
                    block: self.blocks.len() - 1,
                    start,
                    header,
                    end: start + len,
                }
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

    /// Heap bytes held: the in-memory blocks, or what the page store keeps
    /// resident plus its open bulk buffer.
    pub(crate) fn memory_size(&self) -> usize {
        self.blocks.iter().map(Vec::capacity).sum::<usize>()
            + self
                .store
                .as_ref()
                .map_or(0, |(s, _)| s.memory_size() + self.store_block)
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
struct PageStream {
    blocks: Vec<Vec<u8>>,
    store: Option<Box<dyn PageStore>>,
    pages: std::vec::IntoIter<Stored>,
    /// The current page from the store (else from `blocks[block]`).
    current: Option<Bytes>,
    block: usize,
    pos: usize,
    split: usize,
    end: usize,
}

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
                let n = if rest > k && !rest.is_multiple_of(k) {
                    rest % k
                } else {
                    rest.min(k)
                };
                let src = match &self.current {
                    Some(b) => &b[self.pos..self.pos + n],
                    None => &self.blocks[self.block][self.pos..self.pos + n],
                };
                buf[..n].copy_from_slice(src);
                self.pos += n;
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
