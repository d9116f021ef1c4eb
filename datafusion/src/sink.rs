//! [`FlbaParquetSink`]: DataFusion's parquet `DataSink`, written with
//! parquet-flba.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::config::TableParquetOptions;
use datafusion::datasource::file_format::parquet::ParquetSink;
use datafusion::datasource::file_format::write::demux::DemuxedStreamReceiver;
use datafusion::datasource::file_format::write::get_writer_schema;
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
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use parquet_flba::parquet::file::metadata::{ParquetMetaData, SortingColumn};
use parquet_flba::parquet::file::properties::{
    DEFAULT_MAX_ROW_GROUP_ROW_COUNT, WriterProperties, WriterPropertiesBuilder,
};
use parquet_flba::{ArrowWriter, ArrowWriterOptions, ColumnPlan};

use crate::files::{Files, OpenFile};
use crate::metrics::SinkMetrics;
use crate::parallel::{FileJob, ParallelFile};
use crate::sequential::SequentialFile;
use crate::threaded::{ThreadedFile, row_count_cuts};
use crate::{display, encryption, sorting};

/// DataFusion 55.2's parquet [`DataSink`] (`ParquetSink`), written with
/// parquet-flba: the same files, byte for byte, for the same input,
/// configuration and options.
///
/// Like DataFusion's sink it writes each file either sequentially, through
/// an [`AsyncArrowWriter`](parquet_flba::AsyncArrowWriter) (when
/// `allow_single_file_parallelism` is off or content-defined chunking is
/// on), or in parallel. Row groups are cut where DataFusion cuts them
/// (every `max_row_group_size` rows on the parallel path, which ignores
/// `max_row_group_bytes` as DataFusion's does; by the writer's own limits
/// on the sequential one), so the files are the same.
///
/// The parallel path is parquet-flba's own threaded engine (unless
/// [`Self::with_threads`] is 1 or the machine has one core): one
/// [`ArrowWriter`](parquet_flba::ArrowWriter) per file on
/// [`Self::file_threads`] threads of parquet-flba's worker pool, given each
/// batch by a short blocking call (a file waiting for its input holds no
/// thread, so any number of partitions can be open at once). A write
/// queues each leaf column's part on a lane
/// of its own and returns; the columns of a row group and of the next are
/// encoded side by side, compressed pages are shared out within a column
/// when there are fewer columns than threads, each column is closed where
/// it was encoded, and the row group's chunks are copied into the output
/// in 256 KiB pieces, each handed to the upload while the next is filled.
/// The engine bounds what is in flight (one full row group being closed
/// while the next fills), which is within what DataFusion's defaults for
/// `maximum_parallel_row_group_writers` (1) and
/// `maximum_buffered_record_batches_per_stream` allow.
///
/// With threads set to 1, the parallel path is DataFusion's layout: one
/// task per leaf column per row group, up to
/// `maximum_parallel_row_group_writers` row groups at a time, with
/// `maximum_buffered_record_batches_per_stream` leaf arrays queued per
/// column, spliced in order into one file.
///
/// Memory is reserved from the query's pool under DataFusion's consumer
/// names, resized to parquet-flba's own measure of what its writers hold:
/// on the sequential path one consumer per file (`ParquetSink[<path>]`)
/// resized to the writer's `memory_size()` after each batch (through the
/// writer's memory listener when it runs on several threads); on the
/// engine's parallel path the same consumer, through a
/// [`ReservationListener`](crate::ReservationListener) (64 KiB steps):
/// before each write what the writer holds plus the batch, and whatever
/// its columns hold beyond that while they encode, and each output piece
/// until the object store lets go of it (the upload's buffer and its
/// multipart parts hold pieces without copying them); on DataFusion's layout
/// each column writer's `memory_size()` after each array, kept until its
/// chunk is closed, the row group's estimated size until its first chunk
/// is in the file buffer, and the file buffer.
///
/// Unlike DataFusion's sink, a write that fails leaves no file: the first
/// error of any column, file or of the input ends the write (on the
/// parallel path within the row group where it happened), and the files'
/// uploads are completed only once every file and the whole input have
/// succeeded. Until then each finished file holds its last buffer (at most
/// `objectstore_writer_buffer_size` bytes).
pub struct FlbaParquetSink {
    config: FileSinkConfig,
    parquet_options: TableParquetOptions,
    sorting_columns: Option<Vec<SortingColumn>>,
    threads: usize,
    /// Whether a plan sent to other processes may carry raw encryption keys.
    send_keys: bool,
    written: Arc<Mutex<HashMap<Path, ParquetMetaData>>>,
    plans: Arc<Mutex<HashMap<Path, ColumnPlan>>>,
    metrics: ExecutionPlanMetricsSet,
    /// Made once per sink, not per file: the writer properties without
    /// encryption (with the Arrow schema encoded for the footer), and the
    /// schema the files are written with.
    properties: OnceLock<WriterProperties>,
    schema: OnceLock<SchemaRef>,
}

impl FlbaParquetSink {
    /// A sink for `config` with `parquet_options`, as
    /// `ParquetSink::new(config, parquet_options)`.
    pub fn new(config: FileSinkConfig, parquet_options: TableParquetOptions) -> Self {
        Self {
            config,
            parquet_options,
            sorting_columns: None,
            threads: 0,
            send_keys: false,
            written: Default::default(),
            plans: Default::default(),
            metrics: ExecutionPlanMetricsSet::new(),
            properties: OnceLock::new(),
            schema: OnceLock::new(),
        }
    }

    /// The sorting columns written to every row group's metadata, as
    /// `ParquetSink::with_sorting_columns`.
    pub fn with_sorting_columns(mut self, sorting_columns: Option<Vec<SortingColumn>>) -> Self {
        self.sorting_columns = sorting_columns;
        self
    }

    /// The most threads per file: a larger count (from a setting or from
    /// a plan on the wire) is taken as this one.
    pub const MAX_THREADS: usize = 1024;

    /// Threads that encode each file's columns (`parquet_flba.threads` in
    /// [`FlbaOptions`](crate::FlbaOptions)): 0 (the default) chooses
    /// (see [`Self::file_threads`]), 1 uses no engine threads (the
    /// parallel path is then DataFusion's layout), above 1 that many
    /// threads per file on both paths, at most [`Self::MAX_THREADS`]. The
    /// files are the same.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.min(Self::MAX_THREADS);
        self
    }

    /// Whether this sink's raw encryption keys, if it has any, may be sent
    /// to other processes in its plan (`parquet_flba.send_encryption_keys`
    /// in [`FlbaOptions`](crate::FlbaOptions); parquet-flba-ballista's
    /// codec refuses to encode a sink with keys without it). Off by
    /// default.
    pub fn with_encryption_keys_sent(mut self, send: bool) -> Self {
        self.send_keys = send;
        self
    }

    /// See [`Self::with_encryption_keys_sent`].
    pub fn encryption_keys_sent(&self) -> bool {
        self.send_keys
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

    /// The threads setting (see [`Self::with_threads`]; 0: chosen per
    /// path).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Threads that encode a file on the parallel path (`parallel`) or the
    /// sequential one: [`Self::with_threads`] if set; else on the parallel
    /// path parquet-flba's worker pool
    /// ([`parquet_flba::worker_threads`], the machine's cores unless
    /// capped with [`parquet_flba::set_worker_threads`]) and 1 on the
    /// sequential path. Always at least 1.
    pub fn file_threads(&self, parallel: bool) -> usize {
        match self.threads {
            0 if parallel => parquet_flba::worker_threads().max(1),
            0 => 1,
            n => n,
        }
    }

    /// Metadata of the files written so far, by path (with hive-style
    /// partition directories), as `ParquetSink::written`.
    pub fn written(&self) -> HashMap<Path, ParquetMetaData> {
        self.written.lock().map(|w| w.clone()).unwrap_or_default()
    }

    /// Which writer encoded each leaf of the files written so far, by path:
    /// parquet-flba's fast path or `parquet`'s column writer, and why.
    pub fn written_plans(&self) -> HashMap<Path, ColumnPlan> {
        self.plans.lock().map(|w| w.clone()).unwrap_or_default()
    }

    /// Which writer will encode each leaf of the files this sink writes,
    /// from its schema and options. Encryption properties made by an
    /// encryption factory are only known per file and are not taken into
    /// account (an encrypted file's leaves are all `parquet`'s).
    pub fn column_plan(&self) -> Result<ColumnPlan> {
        let props = encryption::given(self.properties()?, &self.parquet_options, &Path::default())?;
        let writer = ArrowWriter::try_new_with_options(
            Vec::new(),
            self.writer_schema(),
            self.writer_options(props.build()),
        )?;
        Ok(writer.column_plan().clone())
    }

    /// The writer properties from the options (with the Arrow schema unless
    /// `skip_arrow_metadata`) and the sorting columns, without encryption;
    /// made on first use and kept for every file of the sink.
    fn properties(&self) -> Result<WriterPropertiesBuilder> {
        if let Some(props) = self.properties.get() {
            return Ok(props.clone().into_builder());
        }
        let mut options = self.parquet_options.clone();
        if !options.global.skip_arrow_metadata {
            options.arrow_schema(self.config.output_schema());
        }
        let mut builder = WriterPropertiesBuilder::try_from(&options)?;
        if let Some(columns) = &self.sorting_columns {
            builder = builder.set_sorting_columns(Some(columns.clone()));
        }
        let props = self.properties.get_or_init(|| builder.build());
        Ok(props.clone().into_builder())
    }

    /// The schema the files are written with (without the partition
    /// columns unless kept), made once.
    fn writer_schema(&self) -> SchemaRef {
        Arc::clone(self.schema.get_or_init(|| get_writer_schema(&self.config)))
    }

    /// The writer properties of the file at `path`: [`Self::properties`]
    /// and the file's encryption.
    async fn writer_properties(
        &self,
        runtime: &Arc<RuntimeEnv>,
        path: &Path,
    ) -> Result<WriterProperties> {
        let schema = self.config.output_schema();
        let builder = self.properties()?;
        let builder =
            encryption::apply(builder, runtime, &self.parquet_options, schema, path).await?;
        Ok(builder.build())
    }

    /// Whether files are written sequentially: content-defined chunking
    /// needs one writer to see the whole file.
    fn sequential(&self) -> bool {
        let global = &self.parquet_options.global;
        !global.allow_single_file_parallelism || global.content_defined_chunking.enabled
    }

    /// The writers' options. Their page blocks stay out of parquet-flba's
    /// process-wide block cache: the pool's reservations follow the
    /// writers' `memory_size()`, and cached blocks would be memory no
    /// reservation sees.
    fn writer_options(&self, props: WriterProperties) -> ArrowWriterOptions {
        ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(self.parquet_options.global.skip_arrow_metadata)
            .with_block_cache(false)
    }

    /// Opens the file at `path`: its upload and its writer.
    async fn open(
        &self,
        context: &Arc<TaskContext>,
        path: Path,
        store: &Arc<dyn ObjectStore>,
        metrics: &SinkMetrics,
    ) -> Result<OpenFile> {
        let props = self
            .writer_properties(&context.runtime_env(), &path)
            .await?;
        let schema = self.writer_schema();
        let buffer_size = context
            .session_config()
            .options()
            .execution
            .objectstore_writer_buffer_size;
        // Parquet compresses its own pages; the file as a whole never is.
        let out = BufWriter::with_capacity(Arc::clone(store), path.clone(), buffer_size);
        if self.sequential() {
            let reservation =
                MemoryConsumer::new(format!("ParquetSink[{path}]")).register(context.memory_pool());
            let file = SequentialFile::new(
                out,
                schema,
                self.writer_options(props),
                self.file_threads(false),
                reservation,
            )?;
            Ok(OpenFile::sequential(path, file, metrics.compute.clone()))
        } else if self.file_threads(true) > 1 {
            // parquet-flba's own threaded engine, row groups cut by rows.
            let reservation =
                MemoryConsumer::new(format!("ParquetSink[{path}]")).register(context.memory_pool());
            let file = ThreadedFile::new(
                out,
                schema,
                self.writer_options(row_count_cuts(props)),
                self.file_threads(true),
                reservation,
                metrics.compute.clone(),
            )?;
            Ok(OpenFile::threaded(path, file))
        } else {
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
            Ok(OpenFile::parallel(path, ParallelFile::new(job, out)?))
        }
    }
}

impl fmt::Debug for FlbaParquetSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlbaParquetSink").finish_non_exhaustive()
    }
}

impl DisplayAs for FlbaParquetSink {
    /// `FlbaParquetSink(file_groups=[...]), fast_path=9/12 leaves,
    /// parquet=[...]`: the file group as DataFusion's sink shows it (at
    /// most five files but in `EXPLAIN VERBOSE`), then how many leaves
    /// parquet-flba's fast path writes and which it leaves to `parquet`.
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, "FlbaParquetSink(file_groups=")?;
                display::file_group(&self.config.file_group, t, f)?;
                write!(f, "), ")?;
                display::leaf_paths(&self.column_plan(), t, f)?;
                if self.threads > 1 {
                    write!(f, ", threads={}", self.threads)?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
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
        let mut files = Files::new();
        let mut failed = None;
        while let Some((path, batches)) = file_stream_rx.recv().await {
            match self.open(context, path, &object_store, &metrics).await {
                Ok(file) => files.spawn(file, batches),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        for file in files.finish(demux_task, failed).await? {
            metrics.count(&file.metadata, &file.plan);
            let poisoned = || DataFusionError::Internal("written files lock poisoned".into());
            let mut written = self.written.lock().map_err(|_| poisoned())?;
            if written.contains_key(&file.path) {
                return Err(DataFusionError::Internal(format!(
                    "duplicate entry detected for partitioned file {}",
                    file.path
                )));
            }
            self.plans
                .lock()
                .map_err(|_| poisoned())?
                .insert(file.path.clone(), file.plan);
            written.insert(file.path, file.metadata);
        }
        Ok(metrics.rows() as u64)
    }
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
