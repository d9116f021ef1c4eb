//! parquet-flba's memory accounting over DataFusion's memory pool.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use datafusion::error::DataFusionError;
use datafusion::execution::memory_pool::MemoryReservation;
use parquet_flba::MemoryListener;
use parquet_flba::parquet::errors::{ParquetError, Result};

/// A [`MemoryListener`] over a DataFusion [`MemoryReservation`]: the writer
/// it is attached to grows and shrinks the reservation as it buffers and
/// flushes row groups, so the query's memory pool sees the writer's memory
/// and can refuse it.
///
/// A refused reservation fails the writer's `write` (nothing of the batch is
/// written); [`Self::explain`] turns that error back into DataFusion's
/// `ResourcesExhausted`, so a query over a too-small pool fails as it does
/// with DataFusion's own sink.
pub struct ReservationListener {
    reservation: MemoryReservation,
    /// The pool's refusals not yet reported by [`Self::explain`], as their
    /// messages (the writer's error carries the message of the refusal
    /// that caused it); the last few only.
    refusals: Mutex<Vec<String>>,
    /// Set once the write is abandoned: every later grow is refused.
    stopped: AtomicBool,
}

/// Refusals kept for [`ReservationListener::explain`].
const REFUSALS_KEPT: usize = 8;

impl ReservationListener {
    /// Reserves through `reservation` (which should start empty).
    pub fn new(reservation: MemoryReservation) -> Self {
        Self {
            reservation,
            refusals: Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
        }
    }

    /// A writer's error as DataFusion's: `ResourcesExhausted` (with the
    /// writer's message, which includes the pool's) if it was caused by a
    /// reservation this listener refused since the last call (its message
    /// carries the pool's refusal), as [`into_datafusion`] otherwise. A
    /// refusal the writer did not report (e.g. one met by a column whose
    /// work was then dropped) does not relabel a later, unrelated error.
    pub fn explain(&self, e: ParquetError) -> DataFusionError {
        let refusals = std::mem::take(&mut *self.refusals());
        let message = e.to_string();
        if refusals.iter().any(|refusal| message.contains(refusal)) {
            DataFusionError::ResourcesExhausted(message)
        } else {
            into_datafusion(e)
        }
    }

    /// Bytes currently reserved.
    pub fn size(&self) -> usize {
        self.reservation.size()
    }

    /// Refuses every later grow (the write was abandoned: whatever its
    /// writer still does is not to hold more memory); shrinking goes on.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
    }

    /// Whether [`Self::stop`] was called.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    fn refusals(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.refusals.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for ReservationListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReservationListener")
            .field("consumer", &self.reservation.consumer().name())
            .field("size", &self.reservation.size())
            .finish()
    }
}

impl MemoryListener for ReservationListener {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        if self.is_stopped() {
            return Err(ParquetError::General(
                "the write was abandoned: no more memory is reserved for it".into(),
            ));
        }
        self.reservation.try_grow(bytes).map_err(|e| {
            let mut refusals = self.refusals();
            if refusals.len() == REFUSALS_KEPT {
                refusals.remove(0);
            }
            refusals.push(e.to_string());
            ParquetError::External(Box::new(e))
        })
    }

    fn shrink(&self, bytes: usize) {
        self.reservation.shrink(bytes.min(self.reservation.size()));
    }
}

/// A `parquet` / parquet-flba error as DataFusion's: a `DataFusionError`
/// carried in `ParquetError::External` is handed back as it is, anything else
/// becomes `DataFusionError::ParquetError`.
pub fn into_datafusion(e: ParquetError) -> DataFusionError {
    match e {
        ParquetError::External(inner) => match inner.downcast::<DataFusionError>() {
            Ok(df) => *df,
            Err(other) => DataFusionError::ParquetError(Box::new(ParquetError::External(other))),
        },
        e => DataFusionError::ParquetError(Box::new(e)),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::execution::memory_pool::{GreedyMemoryPool, MemoryConsumer, MemoryPool};

    use super::*;

    /// A refusal labels the error it caused, and only that one: a refusal
    /// the writer never reported (met by a column whose work was then
    /// dropped) does not make a later, unrelated error
    /// `ResourcesExhausted`.
    #[test]
    fn a_refusal_labels_only_its_own_error() {
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1000));
        let listener = ReservationListener::new(MemoryConsumer::new("x").register(&pool));
        listener.try_grow(2000).expect_err("over the pool");
        let unrelated = ParquetError::General("the upload failed: connection reset".into());
        let e = listener.explain(unrelated);
        assert!(
            !matches!(e, DataFusionError::ResourcesExhausted(_)),
            "an unrelated error as {e}"
        );
        // As the writer reports a refusal: the pool's message inside its own.
        let refused = listener.try_grow(3000).expect_err("over the pool");
        let reported = ParquetError::General(format!(
            "memory reservation refused: the writer asked for 3000 more: {refused}"
        ));
        let e = listener.explain(reported);
        assert!(matches!(e, DataFusionError::ResourcesExhausted(_)), "{e}");
    }
}
