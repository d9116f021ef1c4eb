//! One parquet file written sequentially: every batch through parquet-flba's
//! [`AsyncArrowWriter`], as DataFusion's sink writes it through `parquet`'s.

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::object_store::buffered::BufWriter;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::{ArrowWriterOptions, AsyncArrowWriter, ColumnPlan};
use tokio::sync::mpsc::Receiver;

use std::sync::Arc;

use crate::memory::{ReservationListener, into_datafusion};
use crate::threaded::RESERVATION_BLOCK;

/// A file being written by one [`AsyncArrowWriter`] to an object store
/// upload that is completed only by [`Self::commit`].
pub(crate) struct SequentialFile {
    writer: AsyncArrowWriter<BufWriter>,
    memory: Memory,
}

/// How the file's consumer (`ParquetSink[<path>]`) follows the writer.
enum Memory {
    /// Resized to the writer's `memory_size()` after every write, as
    /// DataFusion's sink does (one thread).
    Resized(MemoryReservation),
    /// Through the writer's memory listener (several threads, where
    /// `memory_size()` would wait for the columns' queued work).
    Listener(Arc<ReservationListener>),
}

impl SequentialFile {
    /// A writer of `schema` to `out`, encoding on `threads` threads.
    pub(crate) fn new(
        out: BufWriter,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        threads: usize,
        reservation: MemoryReservation,
    ) -> Result<Self> {
        let writer = AsyncArrowWriter::try_new_with_options(out, schema, options)?
            .with_threads(threads.max(1));
        if threads <= 1 {
            return Ok(Self {
                writer,
                memory: Memory::Resized(reservation),
            });
        }
        let listener = Arc::new(ReservationListener::new(reservation));
        Ok(Self {
            writer: writer
                .with_memory_listener(Arc::clone(&listener) as _)
                .with_memory_reservation_block(RESERVATION_BLOCK),
            memory: Memory::Listener(listener),
        })
    }

    /// Which writer encodes each leaf.
    pub(crate) fn plan(&self) -> &ColumnPlan {
        self.writer.column_plan()
    }

    /// Writes every batch `batches` brings, then flushes the last row group
    /// (as closing the writer would) so that only the footer is left.
    pub(crate) async fn encode(&mut self, mut batches: Receiver<RecordBatch>) -> Result<()> {
        while let Some(batch) = batches.recv().await {
            let written = self.writer.write(&batch).await;
            written.map_err(|e| self.explain(e))?;
            self.resize()?;
        }
        let flushed = self.writer.flush().await;
        flushed.map_err(|e| self.explain(e))?;
        self.resize()
    }

    /// Follows the writer's `memory_size()` (one thread; the listener
    /// follows it by itself).
    fn resize(&self) -> Result<()> {
        if let Memory::Resized(reservation) = &self.memory {
            reservation.try_resize(self.writer.memory_size())?;
        }
        Ok(())
    }

    /// A writer error as DataFusion's (a refused reservation:
    /// `ResourcesExhausted`).
    fn explain(&self, e: parquet_flba::parquet::errors::ParquetError) -> DataFusionError {
        match &self.memory {
            Memory::Listener(listener) => listener.explain(e),
            Memory::Resized(_) => into_datafusion(e),
        }
    }

    /// Writes the footer and completes the upload: the file appears.
    pub(crate) async fn commit(mut self) -> Result<ParquetMetaData> {
        // On error the upload is dropped, not aborted: it may have been
        // completing already, which `BufWriter::abort` must not be given.
        let finished = self.writer.finish().await;
        let metadata = finished.map_err(|e| self.explain(e))?;
        if let Memory::Resized(reservation) = &self.memory {
            reservation.free();
        }
        Ok(metadata)
    }

    /// Abandons the upload: nothing appears at the path, and whatever was
    /// there stays.
    pub(crate) async fn abort(self) {
        let mut out = self.writer.into_inner();
        // The upload is dropped anyway; an error aborting it has no one to
        // go to (the write has failed with its own error).
        let _ = out.abort().await;
    }
}
