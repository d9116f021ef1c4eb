//! Page blocks of finished chunks, kept for the next chunks to fill.
//!
//! A column chunk keeps its pages in a few large blocks (see [`super`]),
//! written once front to back and freed when the chunk has been spliced into
//! the file. Memory the allocator has just handed back to the kernel costs a
//! page fault and a zeroed page per 4 KiB (or 2 MiB) the next time it is
//! written: 1,048,576 rows of `Decimal128(38,10)` + `Decimal256(76,10)` in
//! batches of 8,192 took 35–41 ms per file with every block new and 20–21 ms
//! with blocks reused (the README has the commands). So
//! the blocks of a spliced chunk are kept here, process-wide, up to a limit
//! ([`DEFAULT_BLOCK_CACHE_LIMIT`], changed with [`set_block_cache_limit`]),
//! and a new block of the same capacity is taken from here rather than
//! allocated: the next row group, or the next file, writes into memory
//! that is already mapped.
//!
//! A block is reused only for a request of exactly its capacity, so a
//! column writer's blocks — and its `memory_size()` — are the same whether
//! or not they came from here. When the cache is full, the blocks cached
//! longest are freed first. Blocks never carry data from one chunk to
//! another: a block is handed out empty (length 0), and bytes past a
//! vector's length are never read.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How many bytes of freed page blocks are kept for reuse unless
/// [`set_block_cache_limit`] says otherwise: 64 MiB.
pub const DEFAULT_BLOCK_CACHE_LIMIT: usize = 64 << 20;

/// Blocks smaller than this are left to the allocator (which reuses small
/// allocations without faults anyway).
const SMALLEST: usize = 32 << 10;

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    blocks: VecDeque::new(),
    bytes: 0,
    limit: DEFAULT_BLOCK_CACHE_LIMIT,
});

/// The cached blocks, oldest first, their total capacity, and the limit
/// (under the same lock: a block given while the limit is lowered is
/// either trimmed by the new limit or kept within it, never kept beyond).
struct Cache {
    blocks: VecDeque<Vec<u8>>,
    bytes: usize,
    limit: usize,
}

impl Cache {
    /// Frees the oldest blocks until at most `limit` bytes are kept.
    fn trim(&mut self, limit: usize) {
        while self.bytes > limit {
            match self.blocks.pop_front() {
                Some(block) => self.bytes -= block.capacity(),
                None => break,
            }
        }
    }

    /// An empty block of exactly `capacity` bytes, if one is kept.
    fn take(&mut self, capacity: usize) -> Option<Vec<u8>> {
        // The most recently kept first: its memory is the likeliest to be
        // warm.
        let at = self.blocks.iter().rposition(|b| b.capacity() == capacity)?;
        let block = self.blocks.remove(at)?;
        self.bytes -= block.capacity();
        Some(block)
    }

    /// Keeps `block` (emptied), freeing the oldest blocks to stay within
    /// the limit; frees it instead if it is too small to be worth keeping or
    /// larger than the limit.
    fn give(&mut self, mut block: Vec<u8>) {
        let (capacity, limit) = (block.capacity(), self.limit);
        if capacity < SMALLEST || capacity > limit {
            return;
        }
        block.clear();
        self.trim(limit - capacity);
        self.bytes += capacity;
        self.blocks.push_back(block);
    }
}

/// The cache; a panic never happens while it is locked, so a poisoned lock
/// still guards a consistent cache.
fn cache() -> MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sets how many bytes of freed page blocks parquet-flba keeps, process-wide,
/// for later column chunks (of any writer) to reuse, and frees what is cached
/// beyond it; returns the previous limit. `0` turns the cache off and frees
/// everything in it.
///
/// Column writers keep their pages in large blocks until the row group is
/// written; writing into freshly allocated memory costs the kernel a page
/// fault and a zeroed page for every 4 KiB, which for fixed-width columns is
/// a large part of the write. Blocks of finished chunks are therefore kept
/// (up to [`DEFAULT_BLOCK_CACHE_LIMIT`] unless set here) and handed to new
/// chunks that need a block of the same size: the next row group, or the
/// next file. Cached blocks belong to no writer: they are not counted by any
/// writer's `memory_size()` or memory reservation. The files written are the
/// same whatever the limit.
pub fn set_block_cache_limit(bytes: usize) -> usize {
    let mut cache = cache();
    let previous = std::mem::replace(&mut cache.limit, bytes);
    cache.trim(bytes);
    previous
}

/// Bytes of freed page blocks currently kept for reuse (see
/// [`set_block_cache_limit`]).
pub fn block_cache_bytes() -> usize {
    cache().bytes
}

/// An empty block of exactly `capacity` bytes, from the cache if it has one.
pub(super) fn take(capacity: usize) -> Option<Vec<u8>> {
    if capacity < SMALLEST {
        return None;
    }
    cache().take(capacity)
}

/// Keeps `block` for reuse if the limit leaves room (freeing the oldest
/// blocks to make it); otherwise frees it.
pub(super) fn give(block: Vec<u8>) {
    if block.capacity() >= SMALLEST {
        cache().give(block);
    }
}

/// A chunk's blocks: given to the cache when dropped.
#[derive(Debug, Default)]
pub(super) struct Blocks(pub(super) Vec<Vec<u8>>);

impl Drop for Blocks {
    fn drop(&mut self) {
        for block in self.0.drain(..) {
            give(block);
        }
    }
}

impl std::ops::Deref for Blocks {
    type Target = Vec<Vec<u8>>;

    fn deref(&self) -> &Vec<Vec<u8>> {
        &self.0
    }
}

impl std::ops::DerefMut for Blocks {
    fn deref_mut(&mut self) -> &mut Vec<Vec<u8>> {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_back_empty_with_their_capacity_and_the_limit_holds() {
        let limit = 3 * SMALLEST;
        let mut cache = Cache {
            blocks: VecDeque::new(),
            bytes: 0,
            limit,
        };
        let mut block = Vec::with_capacity(SMALLEST);
        block.extend_from_slice(b"stale bytes");
        cache.give(block);
        cache.give(Vec::with_capacity(2 * SMALLEST));
        assert_eq!(cache.bytes, 3 * SMALLEST);
        // No block of another capacity is handed out.
        assert!(cache.take(SMALLEST + 1).is_none());
        let block = cache.take(SMALLEST).expect("a cached block");
        assert_eq!((block.len(), block.capacity()), (0, SMALLEST));
        assert_eq!(cache.bytes, 2 * SMALLEST);
        // Full: the oldest goes first.
        cache.give(block);
        cache.give(Vec::with_capacity(SMALLEST));
        assert_eq!(cache.bytes, 2 * SMALLEST);
        assert!(cache.take(2 * SMALLEST).is_none());
        assert_eq!(cache.take(SMALLEST).map(|b| b.capacity()), Some(SMALLEST));
        // Too small or too large to keep.
        cache.give(Vec::with_capacity(SMALLEST - 1));
        cache.give(Vec::with_capacity(4 * SMALLEST));
        assert_eq!(cache.bytes, SMALLEST);
        assert_eq!(cache.blocks.len(), 1);
        cache.trim(0);
        assert_eq!((cache.bytes, cache.blocks.len()), (0, 0));
    }
}
