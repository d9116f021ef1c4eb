//! [`AsyncArrowWriter`] (feature `async`), drop-in for
//! `parquet::arrow::async_writer::AsyncArrowWriter`: this crate's
//! [`ArrowWriter`] encodes into an in-memory buffer, which is handed to the
//! caller's [`AsyncFileWriter`] at the same points, in the same pieces, as
//! `parquet`'s writer hands over its own.

use crate::{ArrowWriter, ArrowWriterOptions};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use parquet::arrow::async_writer::AsyncFileWriter;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;

/// Encodes [`RecordBatch`]es to Parquet and writes them to an
/// [`AsyncFileWriter`], byte-for-byte as
/// `parquet::arrow::async_writer::AsyncArrowWriter` does, with this crate's
/// fast FIXED_LEN_BYTE_ARRAY path.
///
/// Switching is a one-line change:
/// `use parquet::arrow::AsyncArrowWriter` → `use parquet_flba::AsyncArrowWriter`.
/// The writer takes the same [`AsyncFileWriter`]s (anything that implements
/// `tokio`'s `AsyncWrite`, or `object_store`'s buffered writer) and calls them
/// identically: once with the file header and the first row group when a row
/// group is completed, once per [`flush`](Self::flush), and once for the rest
/// and the footer in [`finish`](Self::finish), followed by
/// [`AsyncFileWriter::complete`].
///
/// ```
/// # use parquet_flba::{arrow_array, arrow_schema, parquet};
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, FixedSizeBinaryArray, RecordBatch};
/// use parquet_flba::AsyncArrowWriter;
///
/// # tokio_test_block_on(async {
/// let ids = FixedSizeBinaryArray::try_from_iter([[1u8; 16], [2; 16]].into_iter()).unwrap();
/// let batch = RecordBatch::try_from_iter([("id", Arc::new(ids) as ArrayRef)]).unwrap();
///
/// let mut buffer = Vec::new();
/// let mut writer = AsyncArrowWriter::try_new(&mut buffer, batch.schema(), None).unwrap();
/// writer.write(&batch).await.unwrap();
/// writer.close().await.unwrap();
/// assert_eq!(&buffer[..4], b"PAR1");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
///
/// # Memory use
///
/// As with `parquet`'s writer, a whole row group is buffered before it is
/// written; call [`flush`](Self::flush) (e.g. when
/// [`in_progress_size`](Self::in_progress_size) gets large) to bound it, or
/// give the writer a spilling page store
/// ([`SpillPageStoreFactory`](crate::SpillPageStoreFactory)) through
/// [`ArrowWriterOptions::with_page_store_factory`].
pub struct AsyncArrowWriter<W> {
    /// Encodes into an in-memory buffer, emptied by every `do_write`.
    /// Away on a worker thread while a call encodes there; `None` after
    /// such a call was cancelled or panicked.
    encoder: Option<ArrowWriter<Vec<u8>>>,
    /// The encoder's column plan, kept here so that it outlives a lost
    /// encoder.
    plan: crate::ColumnPlan,
    /// Threads that encode ([`Self::with_threads`]).
    threads: usize,
    /// The caller's writer.
    destination: W,
}

impl<W> std::fmt::Debug for AsyncArrowWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncArrowWriter")
            .field("encoder", &self.encoder)
            .finish_non_exhaustive()
    }
}

impl<W: AsyncFileWriter> AsyncArrowWriter<W> {
    /// Creates a writer to `destination` with the given properties (the
    /// default ones if `None`).
    pub fn try_new(
        destination: W,
        schema: SchemaRef,
        props: Option<WriterProperties>,
    ) -> Result<Self> {
        let options = props
            .map(|p| ArrowWriterOptions::new().with_properties(p))
            .unwrap_or_default();
        Self::try_new_with_options(destination, schema, options)
    }

    /// Creates a writer to `destination` with [`ArrowWriterOptions`].
    pub fn try_new_with_options(
        destination: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self> {
        let encoder = ArrowWriter::try_new_with_options(Vec::new(), schema, options)?;
        Ok(Self {
            plan: encoder.column_plan().clone(),
            encoder: Some(encoder),
            threads: 1,
            destination,
        })
    }

    /// The encoder (an error once it was lost to a cancelled call).
    fn encoder(&mut self) -> Result<&mut ArrowWriter<Vec<u8>>> {
        self.encoder.as_mut().ok_or_else(lost)
    }

    /// Runs `call` on the encoder: with more than one thread on a worker
    /// thread of the pool, awaited (the executor thread is free meanwhile,
    /// and the call waits for its column work there); else here, as
    /// `parquet`'s writer encodes on the calling task.
    async fn encode<T: Send + 'static>(
        &mut self,
        call: impl FnOnce(&mut ArrowWriter<Vec<u8>>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let mut encoder = self.encoder.take().ok_or_else(lost)?;
        if self.threads <= 1 {
            let result = call(&mut encoder);
            self.encoder = Some(encoder);
            return result;
        }
        let job = move || {
            let result = call(&mut encoder);
            (encoder, result)
        };
        // With no worker to run it (`set_worker_threads(0)`, threads that
        // cannot be started), the job runs on this task.
        let (encoder, result) = crate::pool::spawn_driver(job, self.threads)
            .await
            .map_err(|message| ParquetError::General(format!("encoding panicked: {message}")))?;
        self.encoder = Some(encoder);
        result
    }

    /// Attaches a [`MemoryListener`](crate::MemoryListener) (e.g. over a
    /// query engine's memory reservation) that the writer reserves the
    /// memory it holds from; see [`ArrowWriter::with_memory_listener`].
    /// A refused reservation fails [`write`](Self::write) before anything of
    /// the batch is written, and the writer stays usable.
    pub fn with_memory_listener(
        mut self,
        listener: std::sync::Arc<dyn crate::MemoryListener>,
    ) -> Self {
        self.encoder = self.encoder.map(|e| e.with_memory_listener(listener));
        self
    }

    /// Sets the block size of memory reservations (default 1 MiB); see
    /// [`ArrowWriter::with_memory_reservation_block`].
    pub fn with_memory_reservation_block(mut self, bytes: usize) -> Self {
        self.encoder = self.encoder.map(|e| e.with_memory_reservation_block(bytes));
        self
    }

    /// Bytes currently reserved from the memory listener (0 without one).
    pub fn reserved_memory(&self) -> usize {
        self.encoder
            .as_ref()
            .map_or(0, ArrowWriter::reserved_memory)
    }

    /// Each leaf's chunks put into the file so far and which writer encoded
    /// them; see [`ArrowWriter::leaf_chunks`] (empty while a call is in
    /// progress elsewhere, or after a cancelled one).
    pub fn leaf_chunks(&self) -> Vec<crate::LeafChunks> {
        self.encoder
            .as_ref()
            .map_or_else(Vec::new, ArrowWriter::leaf_chunks)
    }

    /// Which writer encodes each leaf column, and why; see
    /// [`ArrowWriter::column_plan`].
    pub fn column_plan(&self) -> &crate::ColumnPlan {
        &self.plan
    }

    /// Metadata of the row groups flushed so far.
    pub fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.encoder
            .as_ref()
            .map_or(&[], ArrowWriter::flushed_row_groups)
    }

    /// Estimated memory held by the writer, in bytes; see
    /// [`ArrowWriter::memory_size`].
    pub fn memory_size(&self) -> usize {
        self.encoder.as_ref().map_or(0, ArrowWriter::memory_size)
    }

    /// Estimated encoded size of the in-progress row group, in bytes; see
    /// [`ArrowWriter::in_progress_size`].
    pub fn in_progress_size(&self) -> usize {
        self.encoder
            .as_ref()
            .map_or(0, ArrowWriter::in_progress_size)
    }

    /// Number of rows buffered in the in-progress row group.
    pub fn in_progress_rows(&self) -> usize {
        self.encoder
            .as_ref()
            .map_or(0, ArrowWriter::in_progress_rows)
    }

    /// Number of bytes of the file encoded so far (handed to the
    /// [`AsyncFileWriter`] or about to be).
    pub fn bytes_written(&self) -> usize {
        self.encoder.as_ref().map_or(0, ArrowWriter::bytes_written)
    }

    /// Encodes `batch`; if that completes one or more row groups, writes
    /// everything encoded so far to the [`AsyncFileWriter`] in one call.
    ///
    /// As [`ArrowWriter::write`], the batch is validated first; on error
    /// nothing of it is written and the writer can be used as before.
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let batch = batch.clone();
        let completed = self
            .encode(move |encoder| {
                let before = encoder.flushed_row_groups().len();
                encoder.write(&batch)?;
                // A row group the write filled goes into the buffer now,
                // to be handed over as `parquet`'s writer hands it over.
                encoder.settle()?;
                Ok(before != encoder.flushed_row_groups().len())
            })
            .await?;
        if completed {
            self.do_write().await?;
        }
        Ok(())
    }

    /// Flushes all buffered rows into a new row group and writes everything
    /// encoded so far to the [`AsyncFileWriter`].
    pub async fn flush(&mut self) -> Result<()> {
        self.encode(|encoder| encoder.flush()).await?;
        self.do_write().await
    }

    /// Encodes the column chunks of each row group on up to `threads`
    /// threads (1, the default: the calling task alone, as `parquet`'s
    /// writer; 0 counts as 1, more than 65,536 as 65,536); the bytes are
    /// the same. See
    /// [`ArrowWriter::with_threads`]. With more than one thread, each
    /// [`write`](Self::write), [`flush`](Self::flush) and
    /// [`finish`](Self::finish) encodes on the process's worker threads
    /// (see [`set_worker_threads`](crate::set_worker_threads)) and awaits
    /// them: the executor thread is never blocked. A call whose future is
    /// dropped before it completes leaves the writer unusable (its later
    /// calls return an error), as the encoding state went with it.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = crate::pool::clamp_threads(threads);
        self.encoder = self.encoder.map(|e| e.with_threads(threads));
        self
    }

    /// With [`Self::with_threads`]: the least estimated work a write must
    /// bring for its columns to be handed to the threads; see
    /// [`ArrowWriter::with_min_parallel_work`].
    pub fn with_min_parallel_work(mut self, work: std::time::Duration) -> Self {
        self.encoder = self.encoder.map(|e| e.with_min_parallel_work(work));
        self
    }

    /// Adds key-value metadata to the file footer.
    pub fn append_key_value_metadata(&mut self, kv_metadata: KeyValue) {
        if let Some(encoder) = &mut self.encoder {
            encoder.append_key_value_metadata(kv_metadata);
        }
    }

    /// Flushes buffered rows, writes the footer, writes the rest of the file
    /// to the [`AsyncFileWriter`] and calls its
    /// [`complete`](AsyncFileWriter::complete), without consuming the
    /// writer. Writing afterwards is an error.
    pub async fn finish(&mut self) -> Result<ParquetMetaData> {
        let metadata = self.encode(|encoder| encoder.finish()).await?;
        self.do_write().await?;
        self.destination.complete().await?;
        Ok(metadata)
    }

    /// As [`finish`](Self::finish), consuming the writer.
    pub async fn close(mut self) -> Result<ParquetMetaData> {
        self.finish().await
    }

    /// The [`AsyncFileWriter`], without flushing anything: rows and bytes
    /// not yet written to it (see [`finish`](Self::finish)) are lost.
    pub fn into_inner(self) -> W {
        self.destination
    }

    /// Hands the encoded bytes to the async writer, emptying the buffer.
    async fn do_write(&mut self) -> Result<()> {
        let buffer = std::mem::take(self.encoder()?.inner_mut());
        self.destination
            .write(Bytes::from(buffer))
            .await
            .map_err(|e| ParquetError::External(Box::new(e)))
    }
}

/// The error of a call after an earlier call's encoding state was lost.
fn lost() -> ParquetError {
    ParquetError::General(
        "the writer cannot continue: an earlier call was cancelled or panicked while encoding"
            .into(),
    )
}
