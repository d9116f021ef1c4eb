//! [`FlbaParquetSink`]: DataFusion's parquet `DataSink`, written with
//! parquet-flba.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::{JoinSet, SpawnedTask};
use datafusion::config::TableParquetOptions;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetSink;
use datafusion::datasource::file_format::write::demux::DemuxedStreamReceiver;
use datafusion::datasource::file_format::write::{ObjectWriterBuilder, get_writer_schema};
use datafusion::datasource::physical_plan::{FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSink;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::MemoryConsumer;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::object_store::ObjectStore;
use datafusion::object_store::buffered::BufWriter;
use datafusion::object_store::path::Path;
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::metrics::{
    Count, ElapsedComputeFutureExt, ExecutionPlanMetricsSet, MetricBuilder, MetricCategory,
    MetricsSet, Time,
};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use parquet_flba::parquet::file::metadata::{ParquetMetaData, SortingColumn};
use parquet_flba::parquet::file::properties::{
    DEFAULT_MAX_ROW_GROUP_ROW_COUNT, WriterProperties, WriterPropertiesBuilder,
};
use parquet_flba::{ArrowWriterOptions, AsyncArrowWriter};
use tokio::sync::mpsc::Receiver;

use crate::memory::ReservationListener;
use crate::parallel::{self, FileJob};
use crate::sorting;

/// DataFusion 55.2's parquet [`DataSink`] (`ParquetSink`), written with
/// parquet-flba: the same files, byte for byte, for the same input,
/// configuration and options.
///
/// Like DataFusion's sink it writes each file either sequentially, through
/// an [`AsyncArrowWriter`] (when `allow_single_file_parallelism` is off or
/// content-defined chunking is on), or in parallel: one task per leaf column
/// per row group, up to `maximum_parallel_row_group_writers` row groups at a
/// time, with `maximum_buffered_record_batches_per_stream` leaf arrays queued
/// per column, spliced in order into one file. Row groups are cut where
/// DataFusion cuts them (every `max_row_group_size` rows on the parallel
/// path; by the writer's own limits on the sequential one).
///
/// Memory: the sequential writer reserves what it holds from the query's
/// memory pool through a [`ReservationListener`] (consumer
/// `ParquetSink[<path>]`), before each batch is encoded; the parallel path
/// reserves as DataFusion's does (per column writer after each array, per
/// encoded row group, and for the file buffer).
pub struct FlbaParquetSink {
    config: FileSinkConfig,
    parquet_options: TableParquetOptions,
    sorting_columns: Option<Vec<SortingColumn>>,
    written: Arc<Mutex<HashMap<Path, ParquetMetaData>>>,
    metrics: ExecutionPlanMetricsSet,
}

impl FlbaParquetSink {
    /// A sink for `config` with `parquet_options`, as
    /// `ParquetSink::new(config, parquet_options)`.
    pub fn new(config: FileSinkConfig, parquet_options: TableParquetOptions) -> Self {
        Self {
            config,
            parquet_options,
            sorting_columns: None,
            written: Default::default(),
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// The sorting columns written to every row group's metadata, as
    /// `ParquetSink::with_sorting_columns`.
    pub fn with_sorting_columns(mut self, sorting_columns: Option<Vec<SortingColumn>>) -> Self {
        self.sorting_columns = sorting_columns;
        self
    }

    /// The sink that stands for DataFusion's `stock` in a `DataSinkExec`
    /// requiring `sort_order`: same configuration and options, and the
    /// sorting columns DataFusion's parquet format derives from that order.
    pub fn replacing(stock: &ParquetSink, sort_order: Option<&LexRequirement>) -> Self {
        let config = stock.config().clone();
        let sorting_columns = sorting::for_requirement(sort_order, &config);
        Self::new(config, stock.parquet_options().clone()).with_sorting_columns(sorting_columns)
    }

    /// The parquet options.
    pub fn parquet_options(&self) -> &TableParquetOptions {
        &self.parquet_options
    }

    /// The sorting columns written to every row group's metadata (see
    /// [`Self::with_sorting_columns`]).
    pub fn sorting_columns(&self) -> Option<&[SortingColumn]> {
        self.sorting_columns.as_deref()
    }

    /// Metadata of the files written so far, by path (with hive-style
    /// partition directories), as `ParquetSink::written`.
    pub fn written(&self) -> HashMap<Path, ParquetMetaData> {
        self.written.lock().map(|w| w.clone()).unwrap_or_default()
    }

    /// The writer properties of the file at `path`: the parquet options
    /// (with the Arrow schema unless `skip_arrow_metadata`), the sorting
    /// columns and the file's encryption.
    async fn writer_properties(
        &self,
        runtime: &Arc<RuntimeEnv>,
        path: &Path,
    ) -> Result<WriterProperties> {
        let schema = self.config.output_schema();
        let mut options = self.parquet_options.clone();
        if !options.global.skip_arrow_metadata {
            options.arrow_schema(schema);
        }
        let mut builder = WriterPropertiesBuilder::try_from(&options)?;
        if let Some(columns) = &self.sorting_columns {
            builder = builder.set_sorting_columns(Some(columns.clone()));
        }
        let builder = encryption::apply(builder, runtime, &options, schema, path).await?;
        Ok(builder.build())
    }

    /// Whether files are written sequentially: content-defined chunking
    /// needs one writer to see the whole file.
    fn sequential(&self) -> bool {
        let global = &self.parquet_options.global;
        !global.allow_single_file_parallelism || global.content_defined_chunking.enabled
    }

    fn writer_options(&self, props: WriterProperties) -> ArrowWriterOptions {
        ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(self.parquet_options.global.skip_arrow_metadata)
    }
}

impl fmt::Debug for FlbaParquetSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlbaParquetSink").finish_non_exhaustive()
    }
}

impl DisplayAs for FlbaParquetSink {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, "FlbaParquetSink(file_groups=[")?;
                for (i, file) in self.config.file_group.files().iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}", file.object_meta.location)?;
                }
                write!(f, "])")
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
    }
}

/// The sink's metrics, named as DataFusion's sink names them.
struct SinkMetrics {
    rows: Count,
    bytes: Count,
    compute: Time,
}

impl SinkMetrics {
    fn new(set: &ExecutionPlanMetricsSet) -> Self {
        Self {
            rows: MetricBuilder::new(set)
                .with_category(MetricCategory::Rows)
                .global_counter("rows_written"),
            // The row groups' compressed sizes, without footer and indexes.
            bytes: MetricBuilder::new(set)
                .with_category(MetricCategory::Bytes)
                .global_counter("bytes_written"),
            compute: MetricBuilder::new(set).elapsed_compute(0),
        }
    }

    fn count(&self, file: &ParquetMetaData) {
        self.rows.add(file.file_metadata().num_rows() as usize);
        let bytes: i64 = file
            .row_groups()
            .iter()
            .map(|rg| rg.compressed_size())
            .sum();
        self.bytes.add(bytes as usize);
    }
}

#[async_trait]
impl FileSink for FlbaParquetSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    async fn spawn_writer_tasks_and_join(
        &self,
        context: &Arc<TaskContext>,
        demux_task: SpawnedTask<Result<()>>,
        mut file_stream_rx: DemuxedStreamReceiver,
        object_store: Arc<dyn ObjectStore>,
    ) -> Result<u64> {
        let metrics = SinkMetrics::new(&self.metrics);
        let runtime = context.runtime_env();
        let buffer_size = context
            .session_config()
            .options()
            .execution
            .objectstore_writer_buffer_size;
        let mut files: JoinSet<Result<(Path, ParquetMetaData)>> = JoinSet::new();

        while let Some((path, batches)) = file_stream_rx.recv().await {
            let props = self.writer_properties(&runtime, &path).await?;
            let schema = get_writer_schema(&self.config);
            if self.sequential() {
                let out =
                    BufWriter::with_capacity(Arc::clone(&object_store), path.clone(), buffer_size);
                let writer = AsyncArrowWriter::try_new_with_options(
                    out,
                    schema,
                    self.writer_options(props),
                )?;
                let reservation = MemoryConsumer::new(format!("ParquetSink[{path}]"))
                    .register(context.memory_pool());
                let listener = Arc::new(ReservationListener::new(reservation));
                let writer = writer.with_memory_listener(listener.clone());
                let task = write_sequentially(writer, batches, listener);
                files.spawn(
                    async move { Ok((path, task.await?)) }
                        .with_elapsed_compute(metrics.compute.clone()),
                );
            } else {
                let out = ObjectWriterBuilder::new(
                    // Parquet compresses its own pages; the file is never compressed.
                    FileCompressionType::UNCOMPRESSED,
                    &path,
                    Arc::clone(&object_store),
                )
                .with_buffer_size(Some(buffer_size))
                .build()?;
                let global = &self.parquet_options.global;
                let job = FileJob {
                    schema,
                    row_group_rows: props
                        .max_row_group_row_count()
                        .unwrap_or(DEFAULT_MAX_ROW_GROUP_ROW_COUNT),
                    options: self.writer_options(props),
                    parallel_row_groups: global.maximum_parallel_row_group_writers,
                    buffered_batches: global.maximum_buffered_record_batches_per_stream,
                    pool: Arc::clone(context.memory_pool()),
                    encoding_time: metrics.compute.clone(),
                };
                files.spawn(
                    async move { Ok((path, parallel::write_file(job, batches, out).await?)) },
                );
            }
        }

        while let Some(joined) = files.join_next().await {
            let (path, file) = match joined {
                Ok(written) => written?,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => return Err(DataFusionError::ExecutionJoin(Box::new(e))),
            };
            metrics.count(&file);
            let mut written = self
                .written
                .lock()
                .map_err(|_| DataFusionError::Internal("written files lock poisoned".into()))?;
            if written.contains_key(&path) {
                return Err(DataFusionError::Internal(format!(
                    "duplicate entry detected for partitioned file {path}"
                )));
            }
            written.insert(path, file);
        }

        demux_task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
        Ok(metrics.rows.value() as u64)
    }
}

/// Writes every batch of `batches` with `writer` and closes the file.
async fn write_sequentially(
    mut writer: AsyncArrowWriter<BufWriter>,
    mut batches: Receiver<RecordBatch>,
    listener: Arc<ReservationListener>,
) -> Result<ParquetMetaData> {
    while let Some(batch) = batches.recv().await {
        writer
            .write(&batch)
            .await
            .map_err(|e| listener.explain(e))?;
    }
    writer.close().await.map_err(|e| listener.explain(e))
}

#[async_trait]
impl DataSink for FlbaParquetSink {
    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}

/// Parquet modular encryption of the written files, as DataFusion's sink
/// sets it up: properties given in the options, or made by the runtime's
/// encryption factory named there.
#[cfg(feature = "encryption")]
mod encryption {
    use super::*;
    use datafusion::arrow::datatypes::Schema;
    use parquet_flba::parquet::encryption::encrypt::FileEncryptionProperties;

    pub(super) async fn apply(
        builder: WriterPropertiesBuilder,
        runtime: &Arc<RuntimeEnv>,
        options: &TableParquetOptions,
        schema: &Arc<Schema>,
        path: &Path,
    ) -> Result<WriterPropertiesBuilder> {
        if let Some(given) = &options.crypto.file_encryption {
            let props = FileEncryptionProperties::try_from(given.clone())?;
            return Ok(builder.with_file_encryption_properties(Arc::new(props)));
        }
        if let Some(id) = &options.crypto.factory_id {
            let factory = runtime.parquet_encryption_factory(id)?;
            let made = factory
                .get_file_encryption_properties(&options.crypto.factory_options, schema, path)
                .await?;
            if let Some(props) = made {
                return Ok(builder.with_file_encryption_properties(props));
            }
        }
        Ok(builder)
    }
}

/// Without the `encryption` feature this build cannot encrypt, and it never
/// writes a plaintext file where encryption was asked for: encryption
/// options (properties given in the options, or an encryption factory named
/// there) are refused with an error that says how to turn the feature on.
/// Stock DataFusion with `parquet_encryption` would encrypt; without it,
/// it ignores the given properties, which this crate does not copy.
#[cfg(not(feature = "encryption"))]
mod encryption {
    use super::*;
    use datafusion::arrow::datatypes::Schema;
    use datafusion::common::DataFusionError;

    #[allow(clippy::unused_async)]
    pub(super) async fn apply(
        builder: WriterPropertiesBuilder,
        _runtime: &Arc<RuntimeEnv>,
        options: &TableParquetOptions,
        _schema: &Arc<Schema>,
        path: &Path,
    ) -> Result<WriterPropertiesBuilder> {
        refuse(options, path)?;
        Ok(builder)
    }

    /// The error for encryption options this build cannot honour.
    pub(crate) fn refuse(options: &TableParquetOptions, path: &Path) -> Result<()> {
        let asked = match (&options.crypto.file_encryption, &options.crypto.factory_id) {
            (Some(_), _) => {
                "file encryption properties ('format.crypto.file_encryption.*')".to_string()
            }
            (None, Some(id)) => format!("the parquet encryption factory '{id}'"),
            (None, None) => return Ok(()),
        };
        Err(DataFusionError::Configuration(format!(
            "parquet-flba-datafusion cannot encrypt '{path}': the options ask for {asked}, \
             but this build has no `encryption` feature. Enable it \
             (`parquet-flba-datafusion = {{ features = [\"encryption\"] }}`), or write \
             this file without parquet-flba; it will not write the file in plaintext."
        )))
    }
}
