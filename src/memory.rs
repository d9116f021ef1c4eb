//! Block-batched memory accounting: a writer reserves the memory it holds
//! from a [`MemoryListener`] (e.g. a query engine's memory pool) in blocks,
//! so small growth reaches the listener rarely.
//!
//! ```
//! # use parquet_flba::{arrow_array, arrow_schema, parquet};
//! # use std::sync::{Arc, atomic::{AtomicUsize, Ordering}};
//! # use arrow_array::{ArrayRef, FixedSizeBinaryArray, RecordBatch};
//! use parquet::errors::{ParquetError, Result};
//! use parquet_flba::{ArrowWriter, MemoryListener};
//!
//! /// A pool of at most `limit` bytes.
//! #[derive(Debug)]
//! struct Pool {
//!     used: AtomicUsize,
//!     limit: usize,
//! }
//!
//! impl MemoryListener for Pool {
//!     fn try_grow(&self, bytes: usize) -> Result<()> {
//!         let used = self.used.fetch_add(bytes, Ordering::SeqCst) + bytes;
//!         if used > self.limit {
//!             self.used.fetch_sub(bytes, Ordering::SeqCst);
//!             return Err(ParquetError::General(format!("pool exhausted: {used} > {}", self.limit)));
//!         }
//!         Ok(())
//!     }
//!     fn shrink(&self, bytes: usize) {
//!         self.used.fetch_sub(bytes, Ordering::SeqCst);
//!     }
//! }
//!
//! let pool = Arc::new(Pool { used: AtomicUsize::new(0), limit: 64 << 20 });
//! let ids = FixedSizeBinaryArray::try_from_iter((0..1000u32).map(|i| [i as u8; 16])).unwrap();
//! let batch = RecordBatch::try_from_iter([("id", Arc::new(ids) as ArrayRef)]).unwrap();
//! let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), None)
//!     .unwrap()
//!     .with_memory_listener(pool.clone());
//! writer.write(&batch).unwrap();
//! assert!(pool.used.load(Ordering::SeqCst) > 0);
//! writer.close().unwrap();
//! assert_eq!(pool.used.load(Ordering::SeqCst), 0);
//! ```

use parquet::errors::{ParquetError, Result};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Receives a writer's memory reservations.
///
/// Implement it on top of an engine's memory pool (DataFusion's
/// `MemoryReservation`, a semaphore, …) and attach it with
/// [`ArrowWriter::with_memory_listener`](crate::ArrowWriter::with_memory_listener).
/// Calls come in whole blocks (1 MiB by default), and every byte granted is
/// given back: when the writer flushes a row group, when it is closed, and
/// when it is dropped.
pub trait MemoryListener: Send + Sync + std::fmt::Debug {
    /// Asks for `bytes` more; an error refuses them.
    fn try_grow(&self, bytes: usize) -> Result<()>;
    /// Gives `bytes` back.
    fn shrink(&self, bytes: usize);
}

/// Default reservation block: 1 MiB.
pub const DEFAULT_RESERVATION_BLOCK: usize = 1 << 20;

/// The memory a writer has reserved from its listener.
#[derive(Debug)]
pub(crate) struct Reservation {
    listener: Arc<dyn MemoryListener>,
    block: usize,
    reserved: usize,
}

impl Reservation {
    pub(crate) fn new(listener: Arc<dyn MemoryListener>, block: usize) -> Self {
        Self {
            listener,
            block: block.max(1),
            reserved: 0,
        }
    }

    pub(crate) fn set_block(&mut self, block: usize) {
        self.block = block.max(1);
    }

    fn round_up(&self, bytes: usize) -> usize {
        bytes.div_ceil(self.block).saturating_mul(self.block)
    }

    /// Makes sure at least `bytes` are reserved, growing by whole blocks.
    pub(crate) fn ensure(&mut self, bytes: usize) -> Result<()> {
        let want = self.round_up(bytes);
        if want > self.reserved {
            let more = want - self.reserved;
            self.listener.try_grow(more).map_err(|e| {
                ParquetError::General(format!(
                    "memory reservation refused: the writer holds {} reserved bytes and asked for \
                     {more} more ({} in all, in blocks of {}); nothing of the batch was written — \
                     flush() to write out the buffered row group and release its memory: {e}",
                    self.reserved, want, self.block
                ))
            })?;
            self.reserved = want;
        }
        Ok(())
    }

    /// Gives back whole blocks beyond what `bytes` needs.
    pub(crate) fn settle(&mut self, bytes: usize) {
        let need = self.round_up(bytes);
        if need < self.reserved {
            self.listener.shrink(self.reserved - need);
            self.reserved = need;
        }
    }

    /// Bytes currently reserved.
    pub(crate) fn reserved(&self) -> usize {
        self.reserved
    }

    /// Takes over `bytes` the listener granted to someone else on this
    /// reservation's behalf (the lanes, see [`LaneMemory`]).
    pub(crate) fn absorb(&mut self, bytes: usize) {
        self.reserved += bytes;
    }

    /// The listener and block size, for [`LaneMemory::attach`].
    pub(crate) fn listener(&self) -> (&Arc<dyn MemoryListener>, usize) {
        (&self.listener, self.block)
    }
}

/// The memory of a writer's column writers on other threads (its lanes),
/// as each column last published it (after each of its operations, so
/// the writer reads it without waiting for them); with a listener, the
/// lanes also reserve themselves what they hold beyond the part of the
/// writer's reservation set aside for them, so the reservation always
/// covers them, and the writer takes that over at its next call.
#[derive(Debug, Default)]
pub(crate) struct LaneMemory {
    published: AtomicUsize,
    cover: OnceLock<LaneCover>,
}

#[derive(Debug)]
struct LaneCover {
    listener: Arc<dyn MemoryListener>,
    block: usize,
    /// Of the writer's reservation, the bytes set aside for the lanes.
    allowance: AtomicUsize,
    /// Bytes the lanes reserved themselves, not yet taken over.
    extra: AtomicUsize,
    /// A refusal met by a lane, for the writer's next write.
    refused: Mutex<Option<ParquetError>>,
}

impl LaneMemory {
    /// The lanes' memory as published.
    pub(crate) fn published(&self) -> usize {
        self.published.load(Relaxed)
    }

    /// A column's published memory went from `before` to `now` bytes.
    pub(crate) fn change(&self, before: usize, now: usize) {
        if now >= before {
            let total = self.published.fetch_add(now - before, Relaxed) + (now - before);
            if let Some(cover) = self.cover.get() {
                cover.cover(total);
            }
        } else {
            self.published.fetch_sub(before - now, Relaxed);
        }
    }

    /// From now on the lanes reserve from `listener` what they hold beyond
    /// their allowance, in blocks of `block` (once; later calls change
    /// nothing).
    pub(crate) fn attach(&self, listener: &Arc<dyn MemoryListener>, block: usize) {
        let _ = self.cover.get_or_init(|| LaneCover {
            listener: Arc::clone(listener),
            block: block.max(1),
            allowance: AtomicUsize::new(0),
            extra: AtomicUsize::new(0),
            refused: Mutex::new(None),
        });
    }

    /// Sets how much of the writer's reservation covers the lanes, and
    /// reserves at once what they hold beyond it (a column may have
    /// published more since the writer read the figures it set it from).
    pub(crate) fn set_allowance(&self, bytes: usize) {
        if let Some(cover) = self.cover.get() {
            cover.allowance.store(bytes, Relaxed);
            cover.cover(self.published());
        }
    }

    /// The bytes the lanes reserved themselves since the last call, now
    /// the writer's to account for.
    pub(crate) fn take_extra(&self) -> usize {
        self.cover.get().map_or(0, |c| c.extra.swap(0, Relaxed))
    }

    /// The bytes the lanes reserved themselves and the writer has not
    /// taken over yet.
    pub(crate) fn extra_so_far(&self) -> usize {
        self.cover.get().map_or(0, |c| c.extra.load(Relaxed))
    }

    /// The refusal a lane met since the last call, if any.
    pub(crate) fn take_refusal(&self) -> Option<ParquetError> {
        let cover = self.cover.get()?;
        cover
            .refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl LaneCover {
    /// Reserves what the lanes' `total` needs beyond their allowance and
    /// what they reserved already.
    fn cover(&self, total: usize) {
        let have = self.allowance.load(Relaxed) + self.extra.load(Relaxed);
        if total <= have {
            return;
        }
        let more = (total - have)
            .div_ceil(self.block)
            .saturating_mul(self.block);
        match self.listener.try_grow(more) {
            Ok(()) => {
                self.extra.fetch_add(more, Relaxed);
            }
            Err(e) => {
                let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
                refused.get_or_insert(ParquetError::General(format!(
                    "memory reservation refused: columns encoded on other threads needed {more} \
                     more bytes; nothing of this batch was written — flush() to write out the \
                     buffered row group and release its memory: {e}"
                )));
            }
        }
    }
}

impl Drop for LaneCover {
    fn drop(&mut self) {
        let extra = self.extra.swap(0, Relaxed);
        if extra > 0 {
            self.listener.shrink(extra);
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.reserved > 0 {
            self.listener.shrink(self.reserved);
            self.reserved = 0;
        }
    }
}
