//! One parquet file encoded in parallel on parquet-flba's own threaded
//! engine: an [`AsyncArrowWriter`] with [`AsyncArrowWriter::with_threads`],
//! whose writes run on the process's worker pool.
//!
//! What DataFusion's parallel path does with one task per leaf column per
//! row group, lockstep channels and chunks copied twice before the file,
//! the engine does with a lane per column: a write queues each column's
//! part and returns, the columns of a row group (and of the next one) are
//! encoded side by side, compressed pages are shared out within a column,
//! each column is closed where it was encoded, and a full row group's
//! chunks go to the upload as soon as they are in the output.
//!
//! Row groups are cut where DataFusion's parallel path cuts them: every
//! `max_row_group_row_count` rows, never by bytes (`max_row_group_bytes` is
//! for the sequential writer only); rows in flight are bounded by the
//! engine (at most a full row group being closed while the next fills).
//! Memory goes through a [`ReservationListener`]: before each write the
//! writer reserves what it holds plus the batch, and gives back what it no
//! longer holds after.

use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::Result;
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::object_store::buffered::BufWriter;
use datafusion::physical_plan::metrics::Time;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::parquet::file::properties::{DEFAULT_MAX_ROW_GROUP_ROW_COUNT, WriterProperties};
use parquet_flba::{ArrowWriterOptions, AsyncArrowWriter, ColumnPlan};
use tokio::sync::mpsc::Receiver;

use crate::memory::ReservationListener;

/// Reservations move in steps of this many bytes: small enough that a pool
/// sized for DataFusion's own sink is not overshot by the rounding.
const RESERVATION_BLOCK: usize = 64 << 10;

/// The properties of a file written on the parallel path: `props` with
/// row groups cut by rows alone, as DataFusion's parallel path cuts them
/// (`max_row_group_row_count`, its default when unset; no byte limit).
pub(crate) fn row_count_cuts(props: WriterProperties) -> WriterProperties {
    let rows = props
        .max_row_group_row_count()
        .unwrap_or(DEFAULT_MAX_ROW_GROUP_ROW_COUNT);
    props
        .into_builder()
        .set_max_row_group_row_count(Some(rows))
        .set_max_row_group_bytes(None)
        .build()
}

/// A file being encoded on parquet-flba's threads to an object store
/// upload that is completed only by [`Self::commit`].
pub(crate) struct ThreadedFile {
    writer: AsyncArrowWriter<BufWriter>,
    /// The pool's view of the writer's memory (`ParquetSink[<path>]`).
    listener: Arc<ReservationListener>,
    /// `elapsed_compute`: the wall time of the writer's calls (the
    /// encoding runs on the pool's threads, not on this task).
    encoding_time: Time,
}

impl ThreadedFile {
    /// A writer of `schema` to `out` on `threads` threads, reserving
    /// through `reservation`; `options` should carry
    /// [`row_count_cuts`].
    pub(crate) fn new(
        out: BufWriter,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        threads: usize,
        reservation: MemoryReservation,
        encoding_time: Time,
    ) -> Result<Self> {
        let listener = Arc::new(ReservationListener::new(reservation));
        let writer = AsyncArrowWriter::try_new_with_options(out, schema, options)?
            .with_memory_listener(Arc::clone(&listener) as _)
            .with_memory_reservation_block(RESERVATION_BLOCK)
            .with_threads(threads.max(1));
        Ok(Self {
            writer,
            listener,
            encoding_time,
        })
    }

    /// Which writer encodes each leaf.
    pub(crate) fn plan(&self) -> &ColumnPlan {
        self.writer.column_plan()
    }

    /// Writes every batch `batches` brings, then flushes the last row group
    /// so that only the footer is left. A refused reservation is
    /// DataFusion's `ResourcesExhausted`.
    pub(crate) async fn encode(&mut self, mut batches: Receiver<RecordBatch>) -> Result<()> {
        while let Some(batch) = batches.recv().await {
            let start = Instant::now();
            let written = self.writer.write(&batch).await;
            self.encoding_time.add_elapsed(start);
            written.map_err(|e| self.listener.explain(e))?;
        }
        let start = Instant::now();
        let flushed = self.writer.flush().await;
        self.encoding_time.add_elapsed(start);
        flushed.map_err(|e| self.listener.explain(e))
    }

    /// Writes the footer and completes the upload: the file appears.
    pub(crate) async fn commit(mut self) -> Result<ParquetMetaData> {
        // On error the upload is dropped, not aborted: it may have been
        // completing already, which `BufWriter::abort` must not be given.
        let start = Instant::now();
        let finished = self.writer.finish().await;
        self.encoding_time.add_elapsed(start);
        finished.map_err(|e| self.listener.explain(e))
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
