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
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
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

/// A reservation the listener refused: what was asked, and why it was
/// refused; the call that reports it says what it did and did not do
/// ([`Self::into_error`]).
#[derive(Debug)]
pub(crate) struct Refusal {
    /// What was asked for, and when.
    what: String,
    /// The listener's error.
    cause: ParquetError,
}

impl Refusal {
    /// The refusal as the error of a call, `consequence` saying what the
    /// call did (and did not) do.
    pub(crate) fn into_error(self, consequence: &str) -> ParquetError {
        ParquetError::General(format!(
            "memory reservation refused: {}: {}; {consequence}",
            self.what, self.cause
        ))
    }

    /// The same refusal, noted as met by an earlier call.
    pub(crate) fn earlier(self) -> Self {
        Self {
            what: format!(
                "after an earlier call (which was carried out), {}",
                self.what
            ),
            cause: self.cause,
        }
    }
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

    /// `bytes` rounded up to whole blocks.
    pub(crate) fn round_up(&self, bytes: usize) -> usize {
        bytes.div_ceil(self.block).saturating_mul(self.block)
    }

    /// Makes sure at least `bytes` are reserved, growing by whole blocks.
    pub(crate) fn ensure(&mut self, bytes: usize) -> std::result::Result<(), Refusal> {
        let want = self.round_up(bytes);
        if want > self.reserved {
            let more = want - self.reserved;
            if let Err(cause) = self.listener.try_grow(more) {
                return Err(Refusal {
                    what: format!(
                        "the writer holds {} reserved bytes and asked for {more} more ({want} in \
                         all, in blocks of {})",
                        self.reserved, self.block
                    ),
                    cause,
                });
            }
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

    /// Hands up to `bytes` of the reservation over to someone else (the
    /// lanes, see [`LaneMemory::lend`]), who will give them back to the
    /// listener or to [`Self::absorb`]; the bytes handed over.
    pub(crate) fn lend(&mut self, bytes: usize) -> usize {
        let lent = bytes.min(self.reserved);
        self.reserved -= lent;
        lent
    }

    /// The listener and block size, for [`LaneMemory::attach`].
    pub(crate) fn listener(&self) -> (&Arc<dyn MemoryListener>, usize) {
        (&self.listener, self.block)
    }
}

/// The memory a writer holds on other threads (its lanes), as published
/// by what holds it: each column after each of its operations (its
/// writer's memory), each closed chunk waiting to be spliced, and each
/// batch whose work is queued; read without waiting for them. With a
/// listener (once [`Self::attach`]ed: before, nothing is published), the
/// lanes also reserve themselves what they hold beyond the part of the
/// writer's reservation set aside for them (their allowance), so that the
/// writer's reservation and theirs together cover the published total at
/// all times; the writer takes theirs over at its next call.
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
    /// Held while the lanes reserve (so that two columns growing at once
    /// do not both reserve for the same bytes), with the first refusal
    /// met, for the writer's next call.
    refused: Mutex<Option<Refusal>>,
}

impl LaneMemory {
    /// Whether anyone counts the lanes' memory (a listener is attached):
    /// before, publishing is skipped.
    pub(crate) fn tracking(&self) -> bool {
        self.cover.get().is_some()
    }

    /// The lanes' memory as published.
    pub(crate) fn published(&self) -> usize {
        self.published.load(SeqCst)
    }

    /// Something's published memory went from `before` to `now` bytes
    /// (beyond what is covered, the lanes reserve the rest).
    pub(crate) fn change(&self, before: usize, now: usize) {
        if now > before {
            self.published.fetch_add(now - before, SeqCst);
            if let Some(cover) = self.cover.get() {
                cover.cover(&self.published);
            }
        } else if now < before {
            self.published.fetch_sub(before - now, SeqCst);
            if let Some(cover) = self.cover.get() {
                cover.release(&self.published);
            }
        }
    }

    /// From now on the lanes publish their memory and reserve from
    /// `listener` what they hold beyond their allowance, in blocks of
    /// `block`. Whether this call attached it (the first does; later
    /// calls change nothing): what the lanes hold already is then to be
    /// published.
    pub(crate) fn attach(&self, listener: &Arc<dyn MemoryListener>, block: usize) -> bool {
        let mut attached = false;
        let _ = self.cover.get_or_init(|| {
            attached = true;
            LaneCover {
                listener: Arc::clone(listener),
                block: block.max(1),
                allowance: AtomicUsize::new(0),
                extra: AtomicUsize::new(0),
                refused: Mutex::new(None),
            }
        });
        attached
    }

    /// Sets how much of the writer's reservation covers the lanes, and
    /// reserves at once what they published beyond it and what they
    /// reserved themselves.
    pub(crate) fn set_allowance(&self, bytes: usize) {
        if let Some(cover) = self.cover.get() {
            cover.allowance.store(bytes, SeqCst);
            cover.cover(&self.published);
        }
    }

    /// The bytes the lanes reserved themselves since the last call, now
    /// the writer's to account for.
    pub(crate) fn take_extra(&self) -> usize {
        self.cover.get().map_or(0, |c| {
            let _lock = c.lock();
            c.extra.swap(0, SeqCst)
        })
    }

    /// Takes over `bytes` of the writer's reservation (its part for the
    /// lanes, [`Reservation::lend`]) as if the lanes had reserved them, with
    /// `allowance` left to them by the writer: as what they publish goes
    /// down (a row group's chunks spliced one by one), they give back the
    /// whole blocks they no longer need, there and then.
    pub(crate) fn lend(&self, bytes: usize, allowance: usize) {
        if let Some(cover) = self.cover.get() {
            let _lock = cover.lock();
            cover.extra.fetch_add(bytes, SeqCst);
            cover.allowance.store(allowance, SeqCst);
        }
    }

    /// The bytes the lanes reserved themselves and the writer has not
    /// taken over yet.
    pub(crate) fn extra_so_far(&self) -> usize {
        self.cover.get().map_or(0, |c| c.extra.load(SeqCst))
    }

    /// The refusal a lane met since the last call, if any.
    pub(crate) fn take_refusal(&self) -> Option<Refusal> {
        let cover = self.cover.get()?;
        cover.lock().take()
    }
}

impl LaneCover {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Refusal>> {
        self.refused.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reserves what the lanes' total (`published`) needs beyond their
    /// allowance and what they reserved already.
    ///
    /// Compared under the lock only: a column giving blocks back
    /// ([`Self::release`]) may be about to lower what is had, by a total
    /// it read before this column published more.
    fn cover(&self, published: &AtomicUsize) {
        let mut refused = self.lock();
        let total = published.load(SeqCst);
        let have = self.allowance.load(SeqCst) + self.extra.load(SeqCst);
        if total <= have {
            return;
        }
        let more = (total - have)
            .div_ceil(self.block)
            .saturating_mul(self.block);
        match self.listener.try_grow(more) {
            Ok(()) => {
                self.extra.fetch_add(more, SeqCst);
            }
            Err(cause) => {
                refused.get_or_insert(Refusal {
                    what: format!(
                        "columns encoded on other threads came to hold {total} bytes, {more} more \
                         than was reserved for them"
                    ),
                    cause,
                });
            }
        }
    }
}

impl LaneCover {
    /// Gives back the whole blocks of what the lanes reserved themselves
    /// that the lanes' `total` no longer needs, but one (so that a total
    /// going up and down around a block's edge does not call the listener
    /// each time).
    fn release(&self, published: &AtomicUsize) {
        if self.extra.load(SeqCst) == 0 {
            return;
        }
        let _lock = self.lock();
        // The total as it is now, not as this column left it: another
        // column that published more since may have found its growth
        // covered by the very blocks a stale total would give back.
        let total = published.load(SeqCst);
        let extra = self.extra.load(SeqCst);
        let keep = total
            .saturating_sub(self.allowance.load(SeqCst))
            .div_ceil(self.block)
            .saturating_mul(self.block)
            .saturating_add(self.block);
        if keep < extra {
            self.listener.shrink(extra - keep);
            self.extra.store(keep, SeqCst);
        }
    }
}

impl Drop for LaneCover {
    fn drop(&mut self) {
        let extra = self.extra.swap(0, SeqCst);
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

/// A share of a writer's published lane memory held by something that
/// outlives the operation that published it (a closed chunk waiting to be
/// spliced, a batch whose work is queued): given back when dropped.
#[derive(Debug)]
pub(crate) struct Share {
    memory: Arc<LaneMemory>,
    bytes: usize,
}

impl Share {
    /// Publishes `bytes` as held (nothing if nobody is tracking: see
    /// [`LaneMemory::tracking`]).
    pub(crate) fn new(memory: &Arc<LaneMemory>, bytes: usize) -> Self {
        let bytes = if memory.tracking() { bytes } else { 0 };
        memory.change(0, bytes);
        Self {
            memory: Arc::clone(memory),
            bytes,
        }
    }

    /// Takes over `bytes` that someone else published (and no longer
    /// counts), to give them back when dropped.
    pub(crate) fn adopt(memory: &Arc<LaneMemory>, bytes: usize) -> Self {
        Self {
            memory: Arc::clone(memory),
            bytes,
        }
    }

    /// Publishes the share's `bytes` if it published none (nobody was
    /// tracking when it was made).
    pub(crate) fn publish(&mut self, bytes: usize) {
        if self.bytes == 0 && self.memory.tracking() {
            self.memory.change(0, bytes);
            self.bytes = bytes;
        }
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        self.memory.change(self.bytes, 0);
    }
}

#[cfg(test)]
mod tests;
