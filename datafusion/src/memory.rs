//! parquet-flba's memory accounting over DataFusion's memory pool.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// Set when the pool refuses, until [`Self::explain`] reports it.
    refused: AtomicBool,
}

impl ReservationListener {
    /// Reserves through `reservation` (which should start empty).
    pub fn new(reservation: MemoryReservation) -> Self {
        Self {
            reservation,
            refused: AtomicBool::new(false),
        }
    }

    /// A writer's error as DataFusion's: `ResourcesExhausted` (with the
    /// writer's message, which includes the pool's) if this listener refused
    /// a reservation since the last call, as [`into_datafusion`] otherwise.
    pub fn explain(&self, e: ParquetError) -> DataFusionError {
        if self.refused.swap(false, Ordering::Relaxed) {
            DataFusionError::ResourcesExhausted(e.to_string())
        } else {
            into_datafusion(e)
        }
    }

    /// Bytes currently reserved.
    pub fn size(&self) -> usize {
        self.reservation.size()
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
        self.reservation.try_grow(bytes).map_err(|e| {
            self.refused.store(true, Ordering::Relaxed);
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
