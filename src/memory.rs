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
use std::sync::Arc;

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
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.reserved > 0 {
            self.listener.shrink(self.reserved);
            self.reserved = 0;
        }
    }
}
