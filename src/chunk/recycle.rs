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
//! or not they came from here. Blocks are kept by capacity, so finding one
//! is a map lookup, not a scan. When the cache is full, the blocks cached
//! longest are freed first. Blocks never carry data from one chunk to
//! another: a block is handed out empty (length 0), and bytes past a
//! vector's length are never read.
//!
//! A chunk whose writer accounts its memory to a host (a memory listener,
//! or the block cache turned off for it) neither takes from nor gives to
//! the cache: its [`Blocks`] are made uncached, so every block it holds is
//! its own allocation, counted in its `memory_size()`, and freed with it.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How many bytes of freed page blocks are kept for reuse unless
/// [`set_block_cache_limit`] says otherwise: 64 MiB.
///
/// These bytes belong to no writer: no `memory_size()`, memory listener or
/// query-engine reservation counts them, and blocks of 4 MiB and more are
/// backed by huge pages, so they stay resident until they are pushed out by
/// newer blocks or the limit is lowered. A writer with a
/// [`MemoryListener`](crate::MemoryListener), or with the block cache turned
/// off (`ArrowWriterOptions::with_block_cache(false)`,
/// `ArrowRowGroupWriterFactory::with_block_cache(false)`), does not use the
/// cache: what it holds is what it reports. `docs/memory.md` has what the
/// cache saves on the bench workloads.
pub const DEFAULT_BLOCK_CACHE_LIMIT: usize = 64 << 20;

/// Blocks smaller than this are left to the allocator (which reuses small
/// allocations without faults anyway).
const SMALLEST: usize = 32 << 10;

static CACHE: Mutex<Cache> = Mutex::new(Cache::new(DEFAULT_BLOCK_CACHE_LIMIT));

/// The cached blocks by capacity, each capacity's oldest first and tagged
/// with the order they were given in; their total capacity, and the limit
/// (under the same lock: a block given while the limit is lowered is
/// either trimmed by the new limit or kept within it, never kept beyond).
struct Cache {
    by_capacity: BTreeMap<usize, VecDeque<(u64, Vec<u8>)>>,
    /// The tag of the next block given.
    given: u64,
    bytes: usize,
    limit: usize,
}

impl Cache {
    const fn new(limit: usize) -> Self {
        Self {
            by_capacity: BTreeMap::new(),
            given: 0,
            bytes: 0,
            limit,
        }
    }

    /// Frees the oldest blocks until at most `limit` bytes are kept.
    fn trim(&mut self, limit: usize) {
        while self.bytes > limit {
            // The capacity whose oldest block was given first: one look at
            // each capacity kept (a handful: blocks come in a few sizes).
            let oldest = self
                .by_capacity
                .iter()
                .filter_map(|(&cap, blocks)| blocks.front().map(|(tag, _)| (*tag, cap)))
                .min();
            let Some((_, capacity)) = oldest else { break };
            self.pop(capacity, false);
        }
    }

    /// Removes a block of `capacity` (the newest, or with `!newest` the
    /// oldest), dropping the capacity's entry once it is empty.
    fn pop(&mut self, capacity: usize, newest: bool) -> Option<Vec<u8>> {
        let blocks = self.by_capacity.get_mut(&capacity)?;
        let (_, block) = match newest {
            true => blocks.pop_back(),
            false => blocks.pop_front(),
        }?;
        if blocks.is_empty() {
            self.by_capacity.remove(&capacity);
        }
        self.bytes -= block.capacity();
        Some(block)
    }

    /// An empty block of exactly `capacity` bytes, if one is kept.
    fn take(&mut self, capacity: usize) -> Option<Vec<u8>> {
        // The most recently kept: its memory is the likeliest to be warm.
        self.pop(capacity, true)
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
        self.given += 1;
        let tag = self.given;
        self.by_capacity
            .entry(capacity)
            .or_default()
            .push_back((tag, block));
    }

    /// How many blocks are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_capacity.values().map(VecDeque::len).sum()
    }
}

/// The cache; a panic never happens while it is locked, so a poisoned lock
/// still guards a consistent cache.
fn cache() -> MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sets how many bytes of freed page blocks parquet-flba keeps, process-wide,
/// for later column chunks (of any writer that uses the cache) to reuse, and
/// frees what is cached beyond it; returns the previous limit. `0` turns the
/// cache off and frees everything in it.
///
/// Column writers keep their pages in large blocks until the row group is
/// written; writing into freshly allocated memory costs the kernel a page
/// fault and a zeroed page for every 4 KiB, which for fixed-width columns is
/// a large part of the write. Blocks of finished chunks are therefore kept
/// (up to [`DEFAULT_BLOCK_CACHE_LIMIT`] unless set here) and handed to new
/// chunks that need a block of the same size: the next row group, or the
/// next file. The files written are the same whatever the limit.
///
/// # What is accounted
///
/// Cached blocks belong to no writer: they are not counted by any writer's
/// `memory_size()` or memory reservation, and (backed by huge pages when
/// 4 MiB or larger) stay resident until pushed out or freed here. Writers
/// that account their memory therefore keep out of the cache: a writer with
/// a [`MemoryListener`](crate::MemoryListener), and one whose options or
/// row-group factory turn the cache off (`with_block_cache(false)`), neither
/// take blocks from it nor give blocks to it, so their listener or
/// `memory_size()` sees every block they hold. A process that accounts its
/// memory some other way (summing `memory_size()` of several writers, say)
/// and writes with cache-using writers should count [`block_cache_bytes`]
/// too, or set the limit to 0 here. `docs/memory.md` says what the cache
/// saves on the bench workloads.
pub fn set_block_cache_limit(bytes: usize) -> usize {
    let mut cache = cache();
    let previous = std::mem::replace(&mut cache.limit, bytes);
    cache.trim(bytes);
    previous
}

/// Bytes of freed page blocks currently kept for reuse (see
/// [`set_block_cache_limit`]); no writer's `memory_size()` counts them.
pub fn block_cache_bytes() -> usize {
    cache().bytes
}

/// An empty block of exactly `capacity` bytes, from the cache if it has one.
fn take(capacity: usize) -> Option<Vec<u8>> {
    if capacity < SMALLEST {
        return None;
    }
    cache().take(capacity)
}

/// Keeps `block` for reuse if the limit leaves room (freeing the oldest
/// blocks to make it); otherwise frees it.
fn give(block: Vec<u8>) {
    if block.capacity() >= SMALLEST {
        cache().give(block);
    }
}

/// A chunk's blocks: with `cached`, new ones are taken from the cache when
/// it has one of the size, and all are given to it when dropped; without,
/// they are the chunk's own allocations, freed with it.
#[derive(Debug)]
pub(super) struct Blocks {
    blocks: Vec<Vec<u8>>,
    cached: bool,
}

impl Blocks {
    /// No blocks yet; `cached` says whether they go through the cache.
    pub(super) fn new(cached: bool) -> Self {
        Self {
            blocks: Vec::new(),
            cached,
        }
    }

    /// Whether the blocks go through the cache.
    pub(super) fn cached(&self) -> bool {
        self.cached
    }

    /// An empty block of exactly `capacity` bytes: a cached one if this
    /// chunk uses the cache and one is kept, else `make`'s.
    pub(super) fn fresh(&self, capacity: usize, make: impl FnOnce(usize) -> Vec<u8>) -> Vec<u8> {
        self.cached
            .then(|| take(capacity))
            .flatten()
            .unwrap_or_else(|| make(capacity))
    }

    /// Lets go of a block no longer needed: to the cache if this chunk
    /// uses it, else freed.
    pub(super) fn release(&self, block: Vec<u8>) {
        if self.cached {
            give(block);
        }
    }
}

impl Drop for Blocks {
    fn drop(&mut self) {
        if self.cached {
            for block in self.blocks.drain(..) {
                give(block);
            }
        }
    }
}

impl std::ops::Deref for Blocks {
    type Target = Vec<Vec<u8>>;

    fn deref(&self) -> &Vec<Vec<u8>> {
        &self.blocks
    }
}

impl std::ops::DerefMut for Blocks {
    fn deref_mut(&mut self) -> &mut Vec<Vec<u8>> {
        &mut self.blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_back_empty_with_their_capacity_and_the_limit_holds() {
        let mut cache = Cache::new(3 * SMALLEST);
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
        assert_eq!(cache.len(), 1);
        cache.trim(0);
        assert_eq!((cache.bytes, cache.len()), (0, 0));
        assert!(cache.by_capacity.is_empty());
    }

    #[test]
    fn the_oldest_block_goes_first_across_capacities() {
        let mut cache = Cache::new(6 * SMALLEST);
        // Given in this order: A (1), B (2), C (1), D (2): 6 units, full.
        let tagged = |cap: usize, byte: u8| {
            let mut b = Vec::with_capacity(cap * SMALLEST);
            b.push(byte);
            b
        };
        for (cap, byte) in [(1, b'A'), (2, b'B'), (1, b'C'), (2, b'D')] {
            cache.give(tagged(cap, byte));
        }
        assert_eq!((cache.bytes, cache.len()), (6 * SMALLEST, 4));
        // One more unit frees A (the oldest); two more free B as well.
        cache.give(Vec::with_capacity(SMALLEST));
        assert_eq!((cache.bytes, cache.len()), (6 * SMALLEST, 4));
        cache.give(Vec::with_capacity(2 * SMALLEST));
        assert_eq!((cache.bytes, cache.len()), (6 * SMALLEST, 4));
        // Left: C (1), D (2), E (1), F (2); the newest of a size comes first.
        let ones: Vec<u64> = cache.by_capacity[&SMALLEST]
            .iter()
            .map(|(tag, _)| *tag)
            .collect();
        assert_eq!(ones, vec![3, 5]);
        let twos: Vec<u64> = cache.by_capacity[&(2 * SMALLEST)]
            .iter()
            .map(|(tag, _)| *tag)
            .collect();
        assert_eq!(twos, vec![4, 6]);
        let newest = cache.by_capacity[&SMALLEST][1].1.as_ptr();
        let taken = cache.take(SMALLEST).unwrap();
        assert_eq!(taken.as_ptr(), newest);
        assert_eq!(cache.by_capacity[&SMALLEST][0].0, 3);
    }
}
