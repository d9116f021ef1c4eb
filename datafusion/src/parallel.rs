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
use datafusion::physical_plan::metrics::Time;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::parquet::file::writer::SerializedFileWriter;
use parquet_flba::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory, ArrowWriter,
    ArrowWriterOptions, compute_leaves,
};
use tokio::io::{AsyncWrite, AsyncWriteExt};
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

/// Encodes `batches` into one parquet file written to `out`.
pub(crate) async fn write_file(
    job: FileJob,
    batches: Receiver<RecordBatch>,
    out: Box<dyn AsyncWrite + Send + Unpin>,
) -> Result<ParquetMetaData> {
    let buffer = SharedBuffer::new(FILE_BUFFER);
    let writer = ArrowWriter::try_new_with_options(
        buffer.clone(),
        Arc::clone(&job.schema),
        job.options.clone(),
    )?;
    let (file, factory) = writer.into_serialized_writer()?;
    let (groups_tx, groups_rx) = mpsc::channel(job.parallel_row_groups.max(1));
    let pool = Arc::clone(&job.pool);
    let encoder = SpawnedTask::spawn(encode_row_groups(factory, batches, groups_tx, job));
    let metadata = assemble(file, buffer, groups_rx, out, pool).await?;
    encoder
        .join_unwind()
        .await
        .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
    Ok(metadata)
}

/// Cuts `batches` into row groups of `max_row_group_row_count` rows (the
/// last may be shorter) and sends each, being encoded, to `groups`.
async fn encode_row_groups(
    factory: ArrowRowGroupWriterFactory,
    mut batches: Receiver<RecordBatch>,
    groups: Sender<RowGroupTask>,
    job: FileJob,
) -> Result<()> {
    let limit = job.row_group_rows.max(1);
    let mut index = 0;
    let mut group = RowGroupEncoder::start(&factory, index, &job)?;
    while let Some(mut batch) = batches.recv().await {
        while batch.num_rows() > 0 {
            let room = limit - group.rows;
            if batch.num_rows() < room {
                group.push(&batch).await?;
                break;
            }
            group.push(&batch.slice(0, room)).await?;
            index += 1;
            let full =
                std::mem::replace(&mut group, RowGroupEncoder::start(&factory, index, &job)?);
            if groups.send(full.finish(&job)).await.is_err() {
                // The file is being abandoned; its error is reported there.
                return Ok(());
            }
            batch = batch.slice(room, batch.num_rows() - room);
        }
    }
    if group.rows > 0 {
        // As above, a closed channel means the file is being abandoned.
        let _ = groups.send(group.finish(&job)).await;
    }
    Ok(())
}

/// The row group being filled: one encoding task per leaf column, fed
/// through a bounded channel.
struct RowGroupEncoder {
    schema: SchemaRef,
    rows: usize,
    columns: Vec<Sender<ArrowLeafColumn>>,
    tasks: Vec<SpawnedTask<Result<ArrowColumnWriter>>>,
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

    /// Hands the leaf columns of `batch` to their tasks.
    async fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut columns = self.columns.iter();
        for (array, field) in batch.columns().iter().zip(self.schema.fields()) {
            for leaf in compute_leaves(field, array)? {
                let column = columns.next().ok_or_else(|| {
                    DataFusionError::Internal("more leaf columns than column writers".into())
                })?;
                if column.send(leaf).await.is_err() {
                    // The column's task ended with an error, reported when
                    // the row group is joined.
                    return Ok(());
                }
            }
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// Ends the row group: its column tasks finish what they were given and
    /// their chunks are closed, in schema order, on a task of their own.
    fn finish(self, job: &FileJob) -> RowGroupTask {
        let Self { columns, tasks, .. } = self;
        drop(columns);
        let reservation =
            MemoryConsumer::new("ParquetSink(SerializedRowGroupWriter)").register(&job.pool);
        let time = job.encoding_time.clone();
        SpawnedTask::spawn(async move {
            let mut chunks = Vec::with_capacity(tasks.len());
            for task in tasks {
                let writer = task
                    .join_unwind()
                    .await
                    .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
                reservation.grow(writer.get_estimated_total_bytes());
                let _timer = time.timer();
                chunks.push(writer.close()?);
            }
            Ok(EncodedRowGroup {
                chunks,
                reservation,
            })
        })
    }
}

/// Encodes every leaf array `leaves` brings, keeping `reservation` at the
/// writer's memory.
async fn encode_column(
    mut writer: ArrowColumnWriter,
    mut leaves: Receiver<ArrowLeafColumn>,
    reservation: MemoryReservation,
    time: Time,
) -> Result<ArrowColumnWriter> {
    while let Some(leaf) = leaves.recv().await {
        let _timer = time.timer();
        writer.write(&leaf)?;
        reservation.try_resize(writer.memory_size())?;
    }
    Ok(writer)
}

/// Appends the encoded row groups to `file` in the order they were cut,
/// handing the buffered bytes to `out` as they pass [`FLUSH_AT`], and closes
/// the file.
async fn assemble(
    mut file: SerializedFileWriter<SharedBuffer>,
    buffer: SharedBuffer,
    mut groups: Receiver<RowGroupTask>,
    mut out: Box<dyn AsyncWrite + Send + Unpin>,
    pool: Arc<dyn MemoryPool>,
) -> Result<ParquetMetaData> {
    let held = MemoryConsumer::new("ParquetSink(SerializedFileWriter)").register(&pool);
    while let Some(task) = groups.recv().await {
        let group = task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
        let mut row_group = file.next_row_group()?;
        for chunk in group.chunks {
            chunk.append_to_row_group(&mut row_group)?;
            group.reservation.free();
            let mut bytes = lock(&buffer)?;
            held.try_resize(bytes.len())?;
            if bytes.len() > FLUSH_AT {
                out.write_all(&bytes).await?;
                bytes.clear();
                held.try_resize(0)?;
            }
        }
        row_group.close()?;
    }
    let metadata = file.close()?;
    let rest = lock(&buffer)?;
    out.write_all(&rest).await?;
    out.shutdown().await?;
    held.free();
    Ok(metadata)
}

/// The file buffer. Only this task writes to it (the file writer's
/// `Write`s happen inside the calls above), so it is never contended.
fn lock(buffer: &SharedBuffer) -> Result<futures::lock::MutexGuard<'_, Vec<u8>>> {
    buffer
        .buffer
        .try_lock()
        .ok_or_else(|| DataFusionError::Internal("parquet file buffer is in use".into()))
}
