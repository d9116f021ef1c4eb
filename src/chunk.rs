//! Column chunks: where finished pages are kept until the row group is
//! written, and how they are spliced into the file.
//!
//! In memory, pages live in a few large blocks, recorded as ranges, so a
//! column chunk costs a handful of allocations however many pages it has.
//! Blocks double from 64 KiB up to 8 MiB, except as the column writer's
//! [`BlockHint`] says: a block for PLAIN values is made as large as the rest
//! of the current write needs (one write, one block), and no block is made
//! larger than the rest of the row group can fill, so little is allocated
//! past the pages themselves. A block can be lent out for a page to be written at its
//! end (PLAIN values straight where their page will stay, with room left in
//! front for the page header and levels) and taken back with that page in it,
//! so those values are never copied on their way into the chunk.
//!
//! With a user's [`PageStore`], each page is handed over as a `Bytes` view cut
//! from a bulk `BytesMut` block.
//!
//! As in `parquet`, the dictionary page is produced last but written first:
//! offsets are recorded in write order and moved with
//! [`ColumnCloseResult::update_dictionary_location`](parquet::column::writer::ColumnCloseResult::update_dictionary_location) when the chunk is spliced
//! through [`SerializedRowGroupWriter::append_column`](parquet::file::writer::SerializedRowGroupWriter::append_column) ([`splice`]).

mod recycle;
mod splice;

use recycle::Blocks;
pub use recycle::{DEFAULT_BLOCK_CACHE_LIMIT, block_cache_bytes, set_block_cache_limit};
pub(crate) use splice::FlbaChunk;

use crate::compat::{PageKey, PageStore};
use bytes::BytesMut;
use parquet::errors::{ParquetError, Result};

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

/// A new empty block of exactly `size` bytes, advised as huge pages when
/// large.
fn new_allocation(size: usize) -> Vec<u8> {
    let mut block = Vec::with_capacity(size);
    advise_huge_pages(block.as_mut_ptr(), block.capacity());
    block
}

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

/// A page at the end of a block: `reserve` bytes of room for its header and
/// levels at `start`, then its values.
#[derive(Debug, Clone, Copy)]
struct OpenPage {
    start: usize,
    reserve: usize,
}

/// Where a column's finished pages go.
pub(crate) struct PageSink {
    /// In-memory blocks; never reallocated once created.
    blocks: Blocks,
    /// The slot of the block lent out (empty until it comes back).
    lent: Option<usize>,
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
    hint: BlockHint,
}

/// What a column writer expects to store from now on, so that blocks fit
/// what is written instead of doubling past it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockHint {
    /// Bytes the rest of the current write will put in lent blocks (PLAIN
    /// values kept where they are written, with their headers and levels);
    /// a new lent block is made this large.
    pub expected: usize,
    /// At most the bytes the rest of the chunk can store; no new block is
    /// made larger (unless one page needs it).
    pub ceiling: usize,
}

impl Default for BlockHint {
    fn default() -> Self {
        Self {
            expected: 0,
            ceiling: usize::MAX,
        }
    }
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
    /// Pages kept in memory, or in `store` if given. With `cache_blocks`,
    /// in-memory blocks are taken from and given back to the process-wide
    /// block cache ([`recycle`]); without, they are this sink's own
    /// allocations, freed when its chunk is dropped, and kept *tight*: a
    /// writer that keeps out of the cache has a host accounting its memory
    /// (a `MemoryListener`, a query engine's pool), so new blocks are made
    /// as large as what is about to go into them rather than doubling, and
    /// [`Self::trim`] gives back what a write left unused.
    pub(crate) fn new(store: Option<Box<dyn PageStore>>, cache_blocks: bool) -> Self {
        Self {
            blocks: Blocks::new(cache_blocks),
            lent: None,
            next_block: FIRST_BLOCK,
            store: store.map(|s| (s, BytesMut::new())),
            pages: Vec::new(),
            dictionary: Vec::new(),
            dictionary_len: 0,
            length: 0,
            store_block: 0,
            hint: BlockHint::default(),
        }
    }

    /// A new in-memory block of at least `need` bytes: the next of the
    /// doubling series, but no larger than the hint's ceiling, and as large
    /// as its expected bytes when `lent` (a block for PLAIN values).
    fn new_block(&mut self, need: usize, lent: bool) -> &mut Vec<u8> {
        let size = self.block_size(need, lent, 0);
        let block = self.blocks.fresh(size, new_allocation);
        self.blocks.push(block);
        self.blocks.last_mut().unwrap()
    }

    /// Size of a new block of at least `need` bytes (see [`Self::new_block`]),
    /// `moved` of them for a page moved into it, on top of what the hint counts.
    fn block_size(&mut self, need: usize, lent: bool, moved: usize) -> usize {
        let h = self.hint;
        if self.tight() {
            let expected = h
                .expected
                .saturating_add(moved)
                .min(h.ceiling.saturating_add(moved));
            return if lent { need.max(expected) } else { need };
        }
        let size = next_block_size(&mut self.next_block, need).min(h.ceiling.saturating_add(moved));
        let size = match lent {
            true => size.max(h.expected.saturating_add(moved)),
            false => size,
        };
        // The series goes on doubling from the largest block made so far, so
        // that writes which each fill a block of their own size do not each
        // need a new block (and a page moved into it).
        self.next_block = self.next_block.max(size.saturating_mul(2).min(MAX_BLOCK));
        size.max(need)
    }

    /// The current block, with room for `additional` more bytes (a new one
    /// if it has not).
    fn block_with_room(&mut self, additional: usize, lent: bool) -> &mut Vec<u8> {
        let fits = self
            .blocks
            .last()
            .is_some_and(|b| b.capacity() - b.len() >= additional);
        if !fits {
            self.new_block(additional, lent);
        }
        self.blocks.last_mut().unwrap()
    }

    /// Whether blocks are kept tight (see [`Self::new`]): those of a sink
    /// that keeps out of the block cache.
    pub(crate) fn tight(&self) -> bool {
        !self.blocks.cached()
    }

    /// Gives back the room the blocks have left (the lent block is the
    /// borrower's to trim): what the sink holds is then what its pages
    /// take. Called after each write of a tight sink.
    pub(crate) fn trim(&mut self) {
        for block in self.blocks.iter_mut() {
            block.shrink_to_fit();
        }
    }

    /// What the writer expects to store from now on, for sizing new blocks.
    pub(crate) fn set_hint(&mut self, hint: BlockHint) {
        self.hint = hint;
    }

    /// Whether a page's values can be written straight into its final place
    /// (in-memory pages: see [`Self::lend_block`]).
    pub(crate) fn direct(&self) -> bool {
        self.store.is_none()
    }

    /// Whether a block is lent out.
    pub(crate) fn has_lent_block(&self) -> bool {
        self.lent.is_some()
    }

    /// Lends the current block, or a new one, with at least `room` bytes free
    /// at its end, for a page to be written there. It comes back with
    /// [`Self::return_block`] or [`Self::return_block_with_page`]; meanwhile
    /// it is the borrower's (and counted in its memory). In-memory sinks only.
    pub(crate) fn lend_block(&mut self, room: usize) -> Result<Vec<u8>> {
        self.lend(room, true)
    }

    /// Lends a block as [`Self::lend_block`] does for a page whose size is
    /// known (`room` at most): a new block is sized as one to push it
    /// into, not for the PLAIN values the hint expects.
    pub(crate) fn lend_block_for_page(&mut self, room: usize) -> Result<Vec<u8>> {
        self.lend(room, false)
    }

    fn lend(&mut self, room: usize, plain: bool) -> Result<Vec<u8>> {
        if self.lent.is_some() {
            return Err(internal("a block is already lent"));
        }
        self.block_with_room(room, plain);
        let index = self.blocks.len() - 1;
        self.lent = Some(index);
        Ok(std::mem::take(&mut self.blocks[index]))
    }

    /// Lends a new block of at least `room` bytes in place of the lent one:
    /// `move_page` gets the new block, moves the page being written into it
    /// and returns the old block without it, which is taken back (and freed
    /// if nothing else is in it).
    /// `moved` of the `room` bytes are for the page that moves.
    pub(crate) fn replace_lent_block(
        &mut self,
        room: usize,
        moved: usize,
        move_page: impl FnOnce(Vec<u8>) -> Vec<u8>,
    ) -> Result<()> {
        let index = self.lent.ok_or_else(|| internal("no block is lent"))?;
        let size = self.block_size(room, true, moved);
        let old = move_page(self.blocks.fresh(size, new_allocation));
        self.blocks[index] = if old.is_empty() {
            self.blocks.release(old);
            Vec::new()
        } else {
            old
        };
        self.blocks.push(Vec::new());
        self.lent = Some(self.blocks.len() - 1);
        Ok(())
    }

    /// Takes the lent block back, as it is (no page added to it).
    pub(crate) fn return_block(&mut self, block: Vec<u8>) -> Result<()> {
        let index = self
            .lent
            .take()
            .ok_or_else(|| internal("no block is lent"))?;
        self.blocks[index] = block;
        Ok(())
    }

    /// Takes the lent block back with a page at its end: from `page_start`,
    /// `headroom` free bytes, then the page's values. `prefix` (header,
    /// levels) is written right in front of the values, shifting them if the
    /// headroom is too small. Returns the page's write-order offset and length.
    pub(crate) fn return_block_with_page(
        &mut self,
        block: Vec<u8>,
        page_start: usize,
        headroom: usize,
        prefix: &[&[u8]],
    ) -> Result<(u64, usize)> {
        let mut block_index = self
            .lent
            .take()
            .ok_or_else(|| internal("no block is lent"))?;
        self.blocks[block_index] = block;
        let mut open = OpenPage {
            start: page_start,
            reserve: headroom,
        };
        let prefix_len: usize = prefix.iter().map(|p| p.len()).sum();
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
                let fresh = self.new_block(prefix_len + values.len(), false);
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

    /// Stores a page (the concatenation of `parts`: header, then body);
    /// returns its write-order offset.
    pub(crate) fn push(&mut self, parts: &[&[u8]], dictionary: bool) -> Result<u64> {
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
                let block = self.block_with_room(len, false);
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

/// An internal error: the sink was used out of order.
fn internal(what: &str) -> ParquetError {
    ParquetError::General(format!("column chunk pages: {what}"))
}
