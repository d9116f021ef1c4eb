//! One parquet file encoded in parallel: the leaf columns of each row group
//! by their own tasks, several row groups at a time, spliced in order.
//!
//! The pieces and their bounds are DataFusion's (the settings
//! `maximum_parallel_row_group_writers` and
//! `maximum_buffered_record_batches_per_stream` mean the same here); the
//! encoding is parquet-flba's column-level API
//! (`ArrowRowGroupWriterFactory` → `ArrowColumnWriter` → `ArrowColumnChunk`).

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::datasource::file_format::write::SharedBuffer;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool, MemoryReservation};
use datafusion::object_store::buffered::BufWriter;
use datafusion::physical_plan::metrics::Time;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::parquet::file::writer::SerializedFileWriter;
use parquet_flba::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory, ArrowWriter,
    ArrowWriterOptions, ColumnPlan, compute_leaves,
};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc::{self, Receiver, Sender};

/// Initial capacity of the in-memory file buffer.
const FILE_BUFFER: usize = 1 << 20;
/// The file buffer is handed to the object store once it holds more.
const FLUSH_AT: usize = 1_024_000;

/// What one file's encoding needs.
pub(crate) struct FileJob {
    pub(crate) schema: SchemaRef,
    pub(crate) options: ArrowWriterOptions,
    /// Rows per row group (`max_row_group_row_count`, DataFusion's default
    /// when unset).
    pub(crate) row_group_rows: usize,
    pub(crate) parallel_row_groups: usize,
    pub(crate) buffered_batches: usize,
    pub(crate) pool: Arc<dyn MemoryPool>,
    pub(crate) encoding_time: Time,
}

/// An encoded row group: its column chunks in schema order, and the
/// reservation that holds their memory until they are in the file.
struct EncodedRowGroup {
    chunks: Vec<ArrowColumnChunk>,
    reservation: MemoryReservation,
}

type RowGroupTask = SpawnedTask<Result<EncodedRowGroup>>;

/// A file being encoded in parallel into an in-memory buffer that is
/// handed to an object store upload, completed only by [`Self::commit`].
pub(crate) struct ParallelFile {
    /// The file writer (header written); its row groups are appended in
    /// order as they are encoded.
    file: SerializedFileWriter<SharedBuffer>,
    /// Until [`Self::encode`] takes it: creates each row group's writers.
    factory: Option<ArrowRowGroupWriterFactory>,
    plan: ColumnPlan,
    buffer: SharedBuffer,
    out: BufWriter,
    /// The file buffer's bytes (`ParquetSink(SerializedFileWriter)`).
    held: MemoryReservation,
    job: Arc<FileJob>,
}

impl ParallelFile {
    /// A file of `job.schema` to `out`.
    pub(crate) fn new(job: FileJob, out: BufWriter) -> Result<Self> {
        let buffer = SharedBuffer::new(FILE_BUFFER);
        let writer = ArrowWriter::try_new_with_options(
            buffer.clone(),
            Arc::clone(&job.schema),
            job.options.clone(),
        )?;
        let plan = writer.column_plan().clone();
        let (file, factory) = writer.into_serialized_writer()?;
        let held = MemoryConsumer::new("ParquetSink(SerializedFileWriter)").register(&job.pool);
        Ok(Self {
            file,
            factory: Some(factory),
            plan,
            buffer,
            out,
            held,
            job: Arc::new(job),
        })
    }

    /// Which writer encodes each leaf.
    pub(crate) fn plan(&self) -> &ColumnPlan {
        &self.plan
    }

    /// Encodes every batch `batches` brings into row groups and appends
    /// them to the file; only the footer is left afterwards. The first error
    /// of any column, row group or of the file ends it.
    pub(crate) async fn encode(&mut self, batches: Receiver<RecordBatch>) -> Result<()> {
        let factory = self
            .factory
            .take()
            .ok_or_else(|| DataFusionError::Internal("parquet file encoded twice".into()))?;
        let (groups_tx, groups_rx) = mpsc::channel(self.job.parallel_row_groups.max(1));
        let encoder = SpawnedTask::spawn(encode_row_groups(
            factory,
            batches,
            groups_tx,
            Arc::clone(&self.job),
        ));
        // If the encoder fails, it closes the channel: the row groups sent
        // before are appended, then its error is the one returned (and the
        // file is never finished).
        self.append(groups_rx).await?;
        encoder
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))?
    }

    /// Appends the encoded row groups to the file in the order they were
    /// cut, handing the buffered bytes to the upload as they pass
    /// [`FLUSH_AT`].
    async fn append(&mut self, mut groups: Receiver<RowGroupTask>) -> Result<()> {
        while let Some(task) = groups.recv().await {
            let group = task
                .join_unwind()
                .await
                .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
            let mut row_group = self.file.next_row_group()?;
            for chunk in group.chunks {
                chunk.append_to_row_group(&mut row_group)?;
                // As DataFusion's sink: the row group's reservation goes
                // once its first chunk is in the file buffer, which is
                // reserved for instead.
                group.reservation.free();
                let mut bytes = lock(&self.buffer)?;
                self.held.try_resize(bytes.len())?;
                if bytes.len() > FLUSH_AT {
                    self.out.write_all(&bytes).await?;
                    bytes.clear();
                    self.held.try_resize(0)?;
                }
            }
            row_group.close()?;
        }
        Ok(())
    }

    /// Writes the footer and the rest of the file, and completes the
    /// upload: the file appears.
    pub(crate) async fn commit(mut self) -> Result<ParquetMetaData> {
        let metadata = self.file.close()?;
        let rest = std::mem::take(&mut *lock(&self.buffer)?);
        // On error the upload is dropped, not aborted: it may have been
        // completing already, which `BufWriter::abort` must not be given.
        self.out.write_all(&rest).await?;
        self.out.shutdown().await?;
        self.held.free();
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

/// Cuts `batches` into row groups of `max_row_group_row_count` rows (the
/// last may be shorter) and sends each, being encoded, to `groups`.
///
/// Batches are cut where DataFusion cuts them, and a batch that leaves no
/// rows for the row group it opens (a zero-row batch, or the empty rest of
/// one that filled a row group) is handed to the column writers all the
/// same, as there.
async fn encode_row_groups(
    factory: ArrowRowGroupWriterFactory,
    mut batches: Receiver<RecordBatch>,
    groups: Sender<RowGroupTask>,
    job: Arc<FileJob>,
) -> Result<()> {
    let limit = job.row_group_rows.max(1);
    let mut index = 0;
    let mut group = RowGroupEncoder::start(&factory, index, &job)?;
    while let Some(mut batch) = batches.recv().await {
        loop {
            if group.rows + batch.num_rows() < limit {
                group.push(&batch).await?;
                break;
            }
            let room = limit - group.rows;
            group.push(&batch.slice(0, room)).await?;
            index += 1;
            let full =
                std::mem::replace(&mut group, RowGroupEncoder::start(&factory, index, &job)?);
            if groups.send(full.finish(&job)).await.is_err() {
                // The file has failed already, with an error of its own.
                return Ok(());
            }
            batch = batch.slice(room, batch.num_rows() - room);
        }
    }
    if group.rows > 0 {
        // As above, a closed channel means the file has failed already.
        let _ = groups.send(group.finish(&job)).await;
    }
    Ok(())
}

/// A column's encoding task: hands back its writer and the reservation
/// that holds the writer's memory.
type ColumnTask = SpawnedTask<Result<(ArrowColumnWriter, MemoryReservation)>>;

/// The row group being filled: one encoding task per leaf column, fed
/// through a bounded channel.
struct RowGroupEncoder {
    schema: SchemaRef,
    rows: usize,
    columns: Vec<Sender<ArrowLeafColumn>>,
    tasks: Vec<ColumnTask>,
}

impl RowGroupEncoder {
    fn start(factory: &ArrowRowGroupWriterFactory, index: usize, job: &FileJob) -> Result<Self> {
        let writers = factory.create_column_writers(index)?;
        let mut columns = Vec::with_capacity(writers.len());
        let mut tasks = Vec::with_capacity(writers.len());
        for writer in writers {
            let (tx, rx) = mpsc::channel(job.buffered_batches.max(1));
            let reservation =
                MemoryConsumer::new("ParquetSink(ArrowColumnWriter)").register(&job.pool);
            columns.push(tx);
            tasks.push(SpawnedTask::spawn(encode_column(
                writer,
                rx,
                reservation,
                job.encoding_time.clone(),
            )));
        }
        Ok(Self {
            schema: Arc::clone(&job.schema),
            rows: 0,
            columns,
            tasks,
        })
    }

    /// Hands the leaf columns of `batch` to their tasks. A column task that
    /// has ended can only have failed: its error is returned at once, so
    /// the write ends within the row group where it happened.
    async fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut column = 0;
        for (array, field) in batch.columns().iter().zip(self.schema.fields()) {
            for leaf in compute_leaves(field, array)? {
                let sender = self.columns.get(column).ok_or_else(|| {
                    DataFusionError::Internal("more leaf columns than column writers".into())
                })?;
                if sender.send(leaf).await.is_err() {
                    return Err(self.failure(column).await);
                }
                column += 1;
            }
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// The error column task `column` ended with.
    async fn failure(&mut self, column: usize) -> DataFusionError {
        if column >= self.tasks.len() {
            return DataFusionError::Internal(format!("no task for leaf column {column}"));
        }
        match self.tasks.swap_remove(column).join_unwind().await {
            Ok(Err(e)) => e,
            Ok(Ok(_)) => DataFusionError::Internal(format!(
                "the task of leaf column {column} ended before its row group"
            )),
            Err(e) => DataFusionError::ExecutionJoin(Box::new(e)),
        }
    }

    /// Ends the row group: its column tasks finish what they were given and
    /// their chunks are closed, in schema order, on a task of their own.
    ///
    /// Memory as in DataFusion's sink: the row group's reservation
    /// (`ParquetSink(SerializedRowGroupWriter)`) grows by each column's
    /// estimated size before the column is closed, and the column keeps its
    /// own reservation until then.
    fn finish(self, job: &FileJob) -> RowGroupTask {
        let Self { columns, tasks, .. } = self;
        drop(columns);
        let reservation =
            MemoryConsumer::new("ParquetSink(SerializedRowGroupWriter)").register(&job.pool);
        let time = job.encoding_time.clone();
        SpawnedTask::spawn(async move {
            let mut chunks = Vec::with_capacity(tasks.len());
            for task in tasks {
                let (writer, column_reservation) = task
                    .join_unwind()
                    .await
                    .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
                reservation.grow(writer.get_estimated_total_bytes());
                let _timer = time.timer();
                chunks.push(writer.close()?);
                drop(column_reservation);
            }
            Ok(EncodedRowGroup {
                chunks,
                reservation,
            })
        })
    }
}

/// Encodes every leaf array `leaves` brings, keeping `reservation` at the
/// writer's `memory_size()` after each.
async fn encode_column(
    mut writer: ArrowColumnWriter,
    mut leaves: Receiver<ArrowLeafColumn>,
    reservation: MemoryReservation,
    time: Time,
) -> Result<(ArrowColumnWriter, MemoryReservation)> {
    while let Some(leaf) = leaves.recv().await {
        let _timer = time.timer();
        writer.write(&leaf)?;
        reservation.try_resize(writer.memory_size())?;
    }
    Ok((writer, reservation))
}

/// The file buffer. Only this task writes to it (the file writer's
/// `Write`s happen inside the calls above), so it is never contended.
fn lock(buffer: &SharedBuffer) -> Result<futures::lock::MutexGuard<'_, Vec<u8>>> {
    buffer
        .buffer
        .try_lock()
        .ok_or_else(|| DataFusionError::Internal("parquet file buffer is in use".into()))
}
