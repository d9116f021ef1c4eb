//! One parquet file written sequentially: every batch through parquet-flba's
//! [`AsyncArrowWriter`], as DataFusion's sink writes it through `parquet`'s.

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::Result;
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::object_store::buffered::BufWriter;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::{ArrowWriterOptions, AsyncArrowWriter, ColumnPlan};
use tokio::sync::mpsc::Receiver;

use crate::memory::into_datafusion;

/// A file being written by one [`AsyncArrowWriter`] to an object store
/// upload that is completed only by [`Self::commit`].
pub(crate) struct SequentialFile {
    writer: AsyncArrowWriter<BufWriter>,
    /// Kept at the writer's `memory_size()` after every write, as
    /// DataFusion's sink keeps its `ParquetSink[<path>]` consumer.
    reservation: MemoryReservation,
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
        Ok(Self {
            writer,
            reservation,
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
            self.writer.write(&batch).await.map_err(into_datafusion)?;
            self.reservation.try_resize(self.writer.memory_size())?;
        }
        self.writer.flush().await.map_err(into_datafusion)?;
        self.reservation.try_resize(self.writer.memory_size())?;
        Ok(())
    }

    /// Writes the footer and completes the upload: the file appears.
    pub(crate) async fn commit(mut self) -> Result<ParquetMetaData> {
        // On error the upload is dropped, not aborted: it may have been
        // completing already, which `BufWriter::abort` must not be given.
        let metadata = self.writer.finish().await.map_err(into_datafusion)?;
        self.reservation.free();
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
