//! One parquet file encoded in parallel on parquet-flba's own threaded
//! engine: an [`ArrowWriter`] with [`ArrowWriter::with_threads`], driven
//! from a blocking task, its output streamed to the upload in pieces.
//!
//! What DataFusion's parallel path does with one task per leaf column per
//! row group, lockstep channels and chunks copied twice before the file,
//! the engine does with a lane per column: a write queues each column's
//! part and returns, the columns of a row group (and of the next one) are
//! encoded side by side, compressed pages are shared out within a column,
//! and each column is closed where it was encoded. The row group's chunks
//! are copied into the output in pieces of [`PIECE`] bytes, each handed to
//! the upload (without another copy) while the next is filled, so the file
//! is written while the writer copies, not after.
//!
//! Row groups are cut where DataFusion's parallel path cuts them: every
//! `max_row_group_row_count` rows, never by bytes (`max_row_group_bytes` is
//! for the sequential writer only); rows in flight are bounded by the
//! engine (at most a full row group being closed while the next fills).
//! Memory goes through a [`ReservationListener`]: before each write the
//! writer reserves what it holds plus the batch, and gives back what it no
//! longer holds after.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use bytes::Bytes;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::object_store::buffered::BufWriter;
use datafusion::physical_plan::metrics::Time;
use parquet_flba::parquet::errors::ParquetError;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::parquet::file::properties::{DEFAULT_MAX_ROW_GROUP_ROW_COUNT, WriterProperties};
use parquet_flba::{ArrowWriter, ArrowWriterOptions, ColumnPlan, MemoryListener};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc::{self, Receiver, Sender};

use crate::memory::ReservationListener;

/// Reservations move in steps of this many bytes: small enough that a pool
/// sized for DataFusion's own sink is not overshot by the rounding.
pub(crate) const RESERVATION_BLOCK: usize = 64 << 10;
/// Output is handed to the upload in pieces of this many bytes.
const PIECE: usize = 256 << 10;
/// Pieces on their way to the upload before the writer waits.
const PIECES_IN_FLIGHT: usize = 4;

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

/// The writer's output: bytes gathered into pieces, each sent to the
/// upload once full, until [`Self::detach`]; afterwards kept here.
struct Pieces {
    buffer: Vec<u8>,
    upload: Option<Sender<Bytes>>,
    /// The writer's reservation, which also covers the pieces on their
    /// way to the upload: grown here (a refusal fails the write as
    /// DataFusion's `ResourcesExhausted`), shrunk once the upload has a
    /// piece.
    listener: Arc<ReservationListener>,
}

impl Pieces {
    /// Sends what is gathered (a piece, or the rest at the end).
    fn send(&mut self) -> io::Result<()> {
        let Some(upload) = &self.upload else {
            return Ok(());
        };
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.listener
            .try_grow(self.buffer.len())
            .map_err(io::Error::other)?;
        let piece = std::mem::replace(&mut self.buffer, Vec::with_capacity(PIECE));
        upload
            .blocking_send(Bytes::from(piece))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the upload has ended"))
    }

    /// Sends what is gathered and stops sending: the upload's receiver
    /// ends once it has taken the pieces.
    fn detach(&mut self) -> io::Result<()> {
        let sent = self.send();
        self.upload = None;
        sent
    }
}

impl Write for Pieces {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        // A piece is sent before it would grow (a grown piece is copied
        // into fresh memory).
        if self.buffer.len() + data.len() > PIECE {
            self.send()?;
        }
        self.buffer.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A file being encoded on parquet-flba's threads to an object store
/// upload that is completed only by [`Self::commit`].
pub(crate) struct ThreadedFile {
    /// Away on the blocking task while [`Self::encode`] runs.
    writer: Option<ArrowWriter<Pieces>>,
    plan: ColumnPlan,
    pieces: Receiver<Bytes>,
    out: BufWriter,
    /// The pool's view of the writer's memory (`ParquetSink[<path>]`).
    listener: Arc<ReservationListener>,
    /// `elapsed_compute`: the time the writer's calls take on the task
    /// that drives it (the encoding itself runs on the pool's threads too).
    encoding_time: Time,
}

impl ThreadedFile {
    /// A writer of `schema` to `out` on `threads` threads, reserving its
    /// memory and the output on its way to the upload through
    /// `reservation` (`ParquetSink[<path>]`); `options` should carry
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
        let (upload, pieces) = mpsc::channel(PIECES_IN_FLIGHT);
        let output = Pieces {
            buffer: Vec::with_capacity(PIECE),
            upload: Some(upload),
            listener: Arc::clone(&listener),
        };
        let writer = ArrowWriter::try_new_with_options(output, schema, options)?
            .with_memory_listener(Arc::clone(&listener) as _)
            .with_memory_reservation_block(RESERVATION_BLOCK)
            .with_threads(threads.max(1));
        Ok(Self {
            plan: writer.column_plan().clone(),
            writer: Some(writer),
            pieces,
            out,
            listener,
            encoding_time,
        })
    }

    /// Which writer encodes each leaf.
    pub(crate) fn plan(&self) -> &ColumnPlan {
        &self.plan
    }

    /// Writes every batch `batches` brings, on a blocking task, then
    /// flushes the last row group, so that only the footer is left; the
    /// output goes to the upload meanwhile. A refused reservation is
    /// DataFusion's `ResourcesExhausted`.
    pub(crate) async fn encode(&mut self, batches: Receiver<RecordBatch>) -> Result<()> {
        let writer = self
            .writer
            .take()
            .ok_or_else(|| DataFusionError::Internal("parquet file encoded twice".into()))?;
        let stop = Arc::new(AtomicBool::new(false));
        // Dropped with this future (a cancelled write): the task stops
        // taking batches.
        let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
        let time = self.encoding_time.clone();
        let task = SpawnedTask::spawn_blocking(move || drive(writer, batches, &stop, &time));
        // Until the writer detaches its output (or fails and drops it).
        while let Some(piece) = self.pieces.recv().await {
            let bytes = piece.len();
            self.out.put(piece).await?;
            self.listener.shrink(bytes);
        }
        let (writer, result) = task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))?;
        self.writer = Some(writer);
        result.map_err(|e| self.listener.explain(e))
    }

    /// Writes the footer and completes the upload: the file appears.
    pub(crate) async fn commit(mut self) -> Result<ParquetMetaData> {
        let mut writer = self
            .writer
            .take()
            .ok_or_else(|| DataFusionError::Internal("parquet file not encoded".into()))?;
        // Only the footer is left (the row groups were flushed), written on
        // this task as DataFusion's parallel path writes it.
        let start = Instant::now();
        let metadata = writer.finish().map_err(|e| self.listener.explain(e));
        self.encoding_time.add_elapsed(start);
        let metadata = metadata?;
        let rest = std::mem::take(&mut writer.inner_mut().buffer);
        // On error the upload is dropped, not aborted: it may have been
        // completing already, which `BufWriter::abort` must not be given.
        self.out.put(Bytes::from(rest)).await?;
        self.out.shutdown().await?;
        Ok(metadata)
    }

    /// Abandons the upload: nothing appears at the path, and whatever was
    /// there stays.
    pub(crate) async fn abort(mut self) {
        // The upload is dropped anyway; an error aborting it has no one to
        // go to (the write has failed with its own error).
        let _ = self.out.abort().await;
    }
}

/// Sets its flag when dropped.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The blocking task: writes every batch (until `stop`), flushes, and
/// detaches the output; hands the writer back with the outcome.
fn drive(
    mut writer: ArrowWriter<Pieces>,
    mut batches: Receiver<RecordBatch>,
    stop: &AtomicBool,
    time: &Time,
) -> (
    ArrowWriter<Pieces>,
    parquet_flba::parquet::errors::Result<()>,
) {
    let mut written = Ok(());
    while let Some(batch) = batches.blocking_recv() {
        if stop.load(Ordering::Relaxed) {
            written = Err(ParquetError::General("the write was cancelled".into()));
            break;
        }
        let start = Instant::now();
        written = writer.write(&batch);
        time.add_elapsed(start);
        if written.is_err() {
            break;
        }
    }
    if written.is_ok() {
        let start = Instant::now();
        written = writer.flush();
        time.add_elapsed(start);
    }
    // Also after a failure: the upload's receiver must see the end.
    let detached = writer.inner_mut().detach();
    if written.is_ok() {
        written = detached.map_err(ParquetError::from);
    }
    (writer, written)
}
