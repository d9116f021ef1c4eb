//! One parquet file encoded in parallel on parquet-flba's own threaded
//! engine: an [`ArrowWriter`] with [`ArrowWriter::with_threads`], given
//! each batch by a short blocking call, its output streamed to the upload
//! in pieces.
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
//! The file waits for its input on the async side and holds no thread
//! meanwhile: each batch is written by a blocking call of its own (then
//! the last `flush`, then the footer), which never waits for the upload
//! or the input, only for the engine's threads. DataFusion keeps every
//! partition's file open until the input ends: a file that held a
//! blocking thread for its whole input made a `COPY ... PARTITIONED BY`
//! with more partitions than the runtime's blocking threads wait forever.
//!
//! Row groups are cut where DataFusion's parallel path cuts them: every
//! `max_row_group_row_count` rows, never by bytes (`max_row_group_bytes` is
//! for the sequential writer only); rows in flight are bounded by the
//! engine (at most a full row group being closed while the next fills).
//! Memory goes through a [`ReservationListener`]: before each write the
//! writer reserves what it holds plus the batch, and gives back what it no
//! longer holds after; each output piece (the footer's too) stays reserved
//! until the object store lets go of it.
//!
//! A write abandoned midway (its future dropped: the query cancelled, or
//! another file failed) stops at once: the call in flight,
//! if any, fails at its next output or reservation (the listener refuses
//! every later grow), the writer is dropped with it (its columns' queued
//! work is not done), and no later call is made.

use std::io::{self, Write};
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use bytes::Bytes;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::object_store::buffered::BufWriter;
use datafusion::physical_plan::metrics::Time;
use futures::future::{Either, select};
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::parquet::file::properties::{DEFAULT_MAX_ROW_GROUP_ROW_COUNT, WriterProperties};
use parquet_flba::{ArrowWriter, ArrowWriterOptions, ColumnPlan, MemoryListener};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc::{self, Receiver, UnboundedReceiver, UnboundedSender};

use crate::memory::ReservationListener;

#[cfg(test)]
mod tests;

/// Reservations move in steps of this many bytes: small enough that a pool
/// sized for DataFusion's own sink is not overshot by the rounding.
pub(crate) const RESERVATION_BLOCK: usize = 64 << 10;
/// Output is handed to the upload in pieces of this many bytes.
const PIECE: usize = 256 << 10;

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
/// upload once full (the rest by [`Self::send`] at the end of a call). The
/// channel is unbounded so that a call never waits for the upload (which
/// may itself need a blocking thread); what a call sends is reserved, and
/// the next call starts only once the upload has taken it.
struct Pieces {
    buffer: Vec<u8>,
    upload: UnboundedSender<Bytes>,
    /// The writer's reservation (stopped once the write is abandoned).
    listener: Arc<ReservationListener>,
    /// The pieces' part of it.
    ledger: Arc<Ledger>,
}

impl Pieces {
    /// Fails once the write was abandoned.
    fn check(&self) -> io::Result<()> {
        if self.listener.is_stopped() {
            return Err(io::Error::other("the parquet write was abandoned"));
        }
        Ok(())
    }

    /// Sends what is gathered (a piece, or the rest at the end of a call),
    /// reserved until the object store lets go of it; a refusal fails the
    /// call as DataFusion's `ResourcesExhausted`.
    fn send(&mut self) -> io::Result<()> {
        self.check()?;
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.ledger.reserve(self.buffer.len())?;
        let piece = Piece {
            bytes: std::mem::take(&mut self.buffer),
            ledger: Arc::clone(&self.ledger),
        };
        self.upload
            .send(Bytes::from_owner(piece))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the upload has ended"))
    }
}

impl Write for Pieces {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.check()?;
        // A piece is sent before it would grow (a grown piece is copied
        // into fresh memory).
        if self.buffer.len() + data.len() > PIECE {
            self.send()?;
        }
        if self.buffer.capacity() == 0 {
            self.buffer.reserve(PIECE.max(data.len()));
        }
        self.buffer.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The output pieces' part of the writer's reservation: a piece is
/// reserved until the object store drops it (the upload's buffer and its
/// multipart parts hold pieces without copying them), or until the upload
/// is complete or abandoned ([`Self::close`]: a store may keep a piece as
/// the object's bytes, and the reservation is then let go).
struct Ledger(Mutex<Option<Held>>);

/// What the pieces hold of the reservation.
struct Held {
    bytes: usize,
    listener: Arc<ReservationListener>,
}

impl Ledger {
    fn new(listener: Arc<ReservationListener>) -> Self {
        Self(Mutex::new(Some(Held { bytes: 0, listener })))
    }

    fn reserve(&self, bytes: usize) -> io::Result<()> {
        if let Some(held) = self.held().as_mut() {
            held.listener.try_grow(bytes).map_err(io::Error::other)?;
            held.bytes += bytes;
        }
        Ok(())
    }

    fn release(&self, bytes: usize) {
        if let Some(held) = self.held().as_mut() {
            let bytes = bytes.min(held.bytes);
            held.bytes -= bytes;
            held.listener.shrink(bytes);
        }
    }

    /// Gives back every piece's reservation (and lets go of it): the
    /// upload is complete or abandoned.
    fn close(&self) {
        if let Some(held) = self.held().take() {
            held.listener.shrink(held.bytes);
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Option<Held>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A piece of the file on its way to the upload.
struct Piece {
    bytes: Vec<u8>,
    ledger: Arc<Ledger>,
}

impl AsRef<[u8]> for Piece {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Piece {
    fn drop(&mut self) {
        self.ledger.release(self.bytes.len());
    }
}

/// A file being encoded on parquet-flba's threads to an object store
/// upload that is completed only by [`Self::commit`].
pub(crate) struct ThreadedFile {
    /// Away in a blocking call while one runs; lost with a call that was
    /// abandoned.
    writer: Option<ArrowWriter<Pieces>>,
    plan: ColumnPlan,
    pieces: UnboundedReceiver<Bytes>,
    out: BufWriter,
    /// The pool's view of the writer's memory (`ParquetSink[<path>]`).
    listener: Arc<ReservationListener>,
    /// The output's part of it.
    ledger: Arc<Ledger>,
    /// `elapsed_compute`: the time the writer's calls take on their
    /// blocking threads (the encoding itself runs on the pool's threads
    /// too).
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
        let (upload, pieces) = mpsc::unbounded_channel();
        let ledger = Arc::new(Ledger::new(Arc::clone(&listener)));
        let output = Pieces {
            buffer: Vec::new(),
            upload,
            listener: Arc::clone(&listener),
            ledger: Arc::clone(&ledger),
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
            ledger,
            encoding_time,
        })
    }

    /// Which writer encodes each leaf.
    pub(crate) fn plan(&self) -> &ColumnPlan {
        &self.plan
    }

    /// Writes every batch `batches` brings, each in a blocking call of its
    /// own, then flushes the last row group, so that only the footer is
    /// left; the output goes to the upload meanwhile. A refused
    /// reservation is DataFusion's `ResourcesExhausted`.
    pub(crate) async fn encode(&mut self, mut batches: Receiver<RecordBatch>) -> Result<()> {
        while let Some(batch) = batches.recv().await {
            self.call(move |writer| writer.write(&batch)).await?;
        }
        self.call(|writer| {
            writer.flush()?;
            Ok(writer.inner_mut().send()?)
        })
        .await
    }

    /// Writes the footer and completes the upload: the file appears.
    pub(crate) async fn commit(mut self) -> Result<ParquetMetaData> {
        // Only the footer is left (the row groups were flushed).
        let metadata = self
            .call(|writer| {
                let metadata = writer.finish()?;
                writer.inner_mut().send()?;
                Ok(metadata)
            })
            .await?;
        // On error the upload is dropped, not aborted: it may have been
        // completing already, which `BufWriter::abort` must not be given.
        self.out.shutdown().await?;
        self.ledger.close();
        Ok(metadata)
    }

    /// Abandons the upload: nothing appears at the path, and whatever was
    /// there stays.
    pub(crate) async fn abort(mut self) {
        // The upload is dropped anyway; an error aborting it has no one to
        // go to (the write has failed with its own error).
        let _ = self.out.abort().await;
    }

    /// Runs `call` on the writer in a blocking call of its own, handing
    /// the output to the upload as it comes, and the rest once the call is
    /// done. If this future is dropped before the call returns, the call
    /// is abandoned: it fails at its next output or reservation, and the
    /// writer is dropped with it.
    async fn call<T: Send + 'static>(
        &mut self,
        call: impl FnOnce(&mut ArrowWriter<Pieces>) -> parquet_flba::parquet::errors::Result<T>
        + Send
        + 'static,
    ) -> Result<T> {
        let mut writer = self.writer.take().ok_or_else(|| {
            DataFusionError::Execution("the parquet writer went with an abandoned call".into())
        })?;
        let mut abandon = Abandon(Some(Arc::clone(&self.listener)));
        let time = self.encoding_time.clone();
        let task = SpawnedTask::spawn_blocking(move || {
            let start = Instant::now();
            let result = call(&mut writer);
            time.add_elapsed(start);
            (writer, result)
        });
        let mut joined = pin!(task.join_unwind());
        let joined = loop {
            match select(joined.as_mut(), pin!(self.pieces.recv())).await {
                Either::Left((joined, _)) => break joined,
                Either::Right((Some(piece), _)) => self.out.put(piece).await?,
                // The writer (which holds the sender) is gone: its call is
                // ending.
                Either::Right((None, _)) => break joined.as_mut().await,
            }
        };
        let (writer, result) = joined.map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))?;
        abandon.0 = None;
        self.writer = Some(writer);
        let value = result.map_err(|e| self.listener.explain(e))?;
        while let Ok(piece) = self.pieces.try_recv() {
            self.out.put(piece).await?;
        }
        Ok(value)
    }
}

impl Drop for ThreadedFile {
    /// The upload is complete or abandoned: what it still holds of the
    /// output is no longer the write's.
    fn drop(&mut self) {
        self.ledger.close();
    }
}

/// Stops the listener if dropped armed: the call in flight was abandoned.
struct Abandon(Option<Arc<ReservationListener>>);

impl Drop for Abandon {
    fn drop(&mut self) {
        if let Some(listener) = self.0.take() {
            listener.stop();
        }
    }
}
