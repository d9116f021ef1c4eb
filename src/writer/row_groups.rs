//! The row-group loop: a batch is validated, cut where the row and byte
//! limits fall (as `parquet`'s `ArrowWriter::write` cuts it), its leaves
//! written by the row group's column writers, and each full row group's
//! chunks handed to the [`RowGroupSink`].
//!
//! With more than one thread ([`RowGroupWriter::set_threads`]) the
//! per-column work runs on the process's pool: each column on its own lane
//! ([`lanes`]), driven by [`parallel`]; the steps, their order and what
//! each column writer is given are the same.

mod file_encoder;
mod lanes;
mod limits;
mod parallel;

use super::ArrowWriterOptions;
use super::engine::FileEncoder;
use crate::ArrowRowGroupWriterFactory;
use crate::cdc::Chunker;
use crate::column::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, planned_leaves, writes_flat,
};
use crate::hybrid::{self, SpliceSink};
use crate::leaf::flat_leaf;
use crate::plan::{ColumnPlan, FileRoute, LeafPath};
use crate::pool::{Pool, run_caught};
use crate::sink::{FileSink, RowGroupSink};
use crate::validate::validate_batch;
use crate::writer::LeafChunks;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lanes::{Closing, Costs, Lanes, panicked};
use limits::Step;
use parallel::column_name;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::BloomFilterPosition;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use std::io::Write;
use std::sync::Arc;

/// The default of `ArrowWriter::with_min_parallel_work`, in nanoseconds:
/// below about this much work, queuing a write's columns on their lanes
/// (a lock per lane, one wake-up of the workers) and having another
/// thread's caches fetch the column's state cost about as much as the
/// work itself.
const DEFAULT_MIN_PARALLEL: u64 = 50_000;

/// The sink of a row-group writer.
enum Sink<W: Write> {
    File(FileSink<W>),
    Splice(Box<SpliceSink<W>>),
}

impl<W: Write + Send> Sink<W> {
    fn get(&self) -> &dyn RowGroupSink<W> {
        match self {
            Sink::File(s) => s,
            Sink::Splice(s) => s.as_ref(),
        }
    }

    fn get_mut(&mut self) -> &mut dyn RowGroupSink<W> {
        match self {
            Sink::File(s) => s,
            Sink::Splice(s) => s.as_mut(),
        }
    }
}

/// The row group being filled.
struct RowGroup {
    /// The column writers, with their leaf indices.
    writers: Vec<(usize, ArrowColumnWriter)>,
    rows: usize,
}

/// Encodes row groups column by column into a [`RowGroupSink`].
pub(super) struct RowGroupWriter<W: Write> {
    sink: Sink<W>,
    factory: ArrowRowGroupWriterFactory,
    arrow_schema: SchemaRef,
    max_rows: Option<usize>,
    max_bytes: Option<usize>,
    /// Bloom filters are written after each row group (not at the end).
    bloom_after_row_group: bool,
    in_progress: Option<RowGroup>,
    /// With content-defined chunking: one chunker per leaf, kept across
    /// row groups (taken out while a worker thread uses it).
    chunkers: Option<Vec<Option<Chunker>>>,
    /// With more than one thread: this writer's handle on the pool.
    pool: Option<Pool>,
    /// With more than one thread, once a row group starts: its columns'
    /// lanes, which hold the column writers.
    lanes: Option<Arc<Lanes>>,
    /// Lanes made so far (they are numbered in order).
    lanes_made: usize,
    /// On the lanes: a full row group whose chunks are not yet spliced.
    closing: Option<Closing>,
    /// The memory held on the lanes, as published (read without waiting
    /// for them).
    lane_memory: Arc<crate::memory::LaneMemory>,
    /// During a write whose work is queued on the lanes: for each leaf
    /// the lanes take, the published share of its field's arrays, held by
    /// that work.
    queued_batch: Option<Vec<Arc<crate::memory::Share>>>,
    /// With more than one thread: each leaf's cost, in nanoseconds per
    /// 1,024 rows (guessed from its type when the threads are set, then
    /// measured), which orders the pool's work.
    costs: Costs,
    /// With more than one thread: a write whose columns' estimated work
    /// (by `costs`) is below this many nanoseconds runs on the calling
    /// thread, where handing it out would cost more than it saves.
    min_parallel: u64,
    /// Writes (or parts of one) run on the pool, and run on the caller as
    /// too small, for `Debug`.
    steps: (usize, usize),
    /// Each leaf's chunks put into the file, by the writer that encoded
    /// them (`ArrowWriter::leaf_chunks`).
    leaf_chunks: Vec<LeafChunks>,
    /// Why the writer cannot go on, after a failure half-way through a
    /// write or flush (rather than produce a broken file).
    poisoned: Option<String>,
}

impl<W: Write + Send> RowGroupWriter<W> {
    /// A writer over `out` for the file `plan` routes as `route`.
    pub(super) fn open(
        out: W,
        arrow_schema: SchemaRef,
        options: ArrowWriterOptions,
        parquet: SchemaDescriptor,
        plan: ColumnPlan,
        route: FileRoute,
    ) -> Result<Self> {
        let props = options.file_properties(&arrow_schema);
        let (max_rows, max_bytes) = (props.max_row_group_row_count(), props.max_row_group_bytes());
        let bloom_after_row_group =
            props.bloom_filter_position() == BloomFilterPosition::AfterRowGroup;
        let chunkers = props
            .content_defined_chunking()
            .map(|cdc| {
                (0..parquet.num_columns())
                    .map(|_| Chunker::try_new(cdc).map(Some))
                    .collect()
            })
            .transpose()?;
        let block_cache = options.block_cache();
        let stores = options.page_store_factory;
        let schema = arrow_schema.clone();
        let (sink, factory) = match route {
            FileRoute::Split => {
                let (sink, factory) = hybrid::open(out, schema, &parquet, props, plan, stores)?;
                (Sink::Splice(sink), factory)
            }
            FileRoute::Columns | FileRoute::Parquet => {
                let root = parquet.root_schema_ptr();
                let file = SerializedFileWriter::new(out, root, Arc::new(props))?;
                let mut factory = ArrowRowGroupWriterFactory::with_plan(&file, schema, plan);
                if let Some(f) = stores {
                    factory = factory.with_page_stores(f);
                }
                (Sink::File(FileSink(file)), factory)
            }
        };
        let factory = factory.with_block_cache(block_cache);
        Ok(Self {
            sink,
            factory,
            arrow_schema,
            max_rows,
            max_bytes,
            bloom_after_row_group,
            in_progress: None,
            chunkers,
            pool: None,
            lanes: None,
            lanes_made: 0,
            closing: None,
            lane_memory: Arc::default(),
            queued_batch: None,
            costs: Arc::new([]),
            min_parallel: DEFAULT_MIN_PARALLEL,
            steps: (0, 0),
            leaf_chunks: Vec::new(),
            poisoned: None,
        })
    }

    /// Threads that encode a row group's columns, the caller included.
    pub(super) fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, Pool::threads)
    }

    fn check_usable(&self) -> Result<()> {
        match &self.poisoned {
            Some(why) => Err(ParquetError::General(format!(
                "the writer cannot continue after a failed write: {why}"
            ))),
            None => Ok(()),
        }
    }

    /// Records a failure that leaves the file inconsistent.
    fn poison<T>(&mut self, result: Result<T>) -> Result<T> {
        if let Err(e) = &result {
            self.poisoned = Some(e.to_string());
        }
        result
    }

    /// Checks the whole batch before any of it is buffered: single-leaf
    /// fast fields by their column's shape, the others by [`validate_batch`].
    fn validate(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.on_pool(batch.num_rows()) {
            return self.validate_parallel(batch);
        }
        // A panic is an error, as on the pool.
        run_caught(|| {
            let plan = self.factory.column_plan();
            let spans = plan.fields().unwrap_or_default();
            let fields = self.arrow_schema.fields();
            validate_batch(&self.arrow_schema, batch, |i| {
                spans
                    .get(i)
                    .is_some_and(|s| writes_flat(s, &fields[i], batch.column(i)))
            })?;
            for ((span, field), array) in spans
                .iter()
                .zip(self.arrow_schema.fields())
                .zip(batch.columns())
            {
                let flat = writes_flat(span, field, array);
                if let (true, Some(shape)) = (flat, self.factory.shape(span.first)) {
                    shape.validate(&flat_leaf(field, array))?;
                }
            }
            Ok(())
        })
        .map_err(|message| panicked("validating the batch", message))?
    }

    /// Writes a validated batch into row groups, split where the row and
    /// byte limits fall ([`Self::next_step`]): a split makes two pieces,
    /// written (and split further) one after the other.
    fn write_pieces(&mut self, batch: &RecordBatch) -> Result<()> {
        // Pieces still to write, the next one last.
        let mut pieces = vec![batch.clone()];
        while let Some(piece) = pieces.pop() {
            if piece.num_rows() == 0 {
                continue;
            }
            let buffered = self.row_group()?;
            match self.next_step(buffered, piece.num_rows()) {
                Step::Flush => {
                    self.end_row_group(true)?;
                    pieces.push(piece);
                }
                Step::Write(Some(n)) => {
                    pieces.push(piece.slice(n, piece.num_rows() - n));
                    pieces.push(piece.slice(0, n));
                }
                Step::Write(None) => {
                    let written = self.write_part(&piece);
                    self.poison(written)?;
                    let rows = self.in_progress.as_ref().map_or(0, |rg| rg.rows);
                    if self.is_full(rows) {
                        self.end_row_group(true)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The leaves of `part` that this writer's column writers take.
    fn leaves(&self, part: &RecordBatch) -> Result<Vec<ArrowLeafColumn>> {
        let plan = self.factory.column_plan();
        let only_fast = self.sink.get().takes_parquet_leaves();
        let fields = self.arrow_schema.fields().iter().zip(part.columns());
        let mut leaves = Vec::with_capacity(plan.leaves().len());
        match plan.fields() {
            Some(spans) => {
                for (span, (field, array)) in spans.iter().zip(fields) {
                    leaves.extend(planned_leaves(plan, *span, field, array, only_fast)?);
                }
            }
            None => {
                for (field, array) in fields {
                    leaves.extend(
                        upstream::compute_leaves(field, array)?
                            .into_iter()
                            .map(ArrowLeafColumn::parquet),
                    );
                }
            }
        }
        Ok(leaves)
    }

    /// Writes one slice of a validated batch into the row group: every leaf
    /// is computed before any is written.
    fn write_part(&mut self, part: &RecordBatch) -> Result<()> {
        let leaves = self.leaves(part)?;
        let rows = part.num_rows();
        let on_pool = self.on_pool(rows);
        if self.lanes.is_some() {
            return self.write_part_on_lanes(part, leaves, on_pool);
        }
        let row_group = self.in_progress.as_mut().ok_or_else(no_row_group)?;
        if leaves.len() != row_group.writers.len() {
            return Err(ParquetError::General(format!(
                "the batch has {} leaf columns for {} column writers",
                leaves.len(),
                row_group.writers.len()
            )));
        }
        let rows_left = self.max_rows.map(|max| max.saturating_sub(row_group.rows));
        for ((leaf, writer), column) in row_group.writers.iter_mut().zip(&leaves) {
            let chunker = self.chunkers.as_mut().and_then(|c| c.get_mut(*leaf));
            // A panic fails the write, as on the pool.
            run_caught(|| {
                writer.write_checked(column, chunker.and_then(Option::as_mut), rows_left)
            })
            .map_err(|message| {
                let what = format!("writing column {}", column_name(&self.factory, *leaf));
                panicked(&what, message)
            })??;
        }
        run_caught(|| self.sink.get_mut().write_rows(part))
            .map_err(|message| panicked("the inner parquet writer", message))??;
        row_group.rows += rows;
        Ok(())
    }

    /// Whether the work of writing `rows` rows goes to the pool: there is
    /// one, and the columns' estimated work for those rows reaches
    /// `min_parallel`.
    fn on_pool(&self, rows: usize) -> bool {
        let work = || -> u64 {
            (0..self.costs.len())
                .map(|leaf| lanes::work(&self.costs, leaf, rows))
                .fold(0, u64::saturating_add)
        };
        self.pool.is_some() && work() >= self.min_parallel
    }

    /// Starts a row group if none is in progress; returns its row count.
    fn row_group(&mut self) -> Result<usize> {
        if let Some(row_group) = &self.in_progress {
            return Ok(row_group.rows);
        }
        if self.pool.is_some() {
            self.begin_on_lanes()?;
            return Ok(0);
        }
        let index = self.sink.get().flushed_row_groups().len();
        let only_fast = self.sink.get().takes_parquet_leaves();
        let writers = self.factory.create_writers(index, only_fast)?;
        self.in_progress = Some(RowGroup { writers, rows: 0 });
        Ok(0)
    }

    /// Ends the row group in progress: its chunks go into the file (on the
    /// lanes, with `defer`, later). A failure poisons the writer.
    fn end_row_group(&mut self, defer: bool) -> Result<()> {
        if self.pool.is_some() {
            return self.end_on_lanes(defer);
        }
        let Some(row_group) = self.in_progress.take() else {
            return Ok(());
        };
        if row_group.rows == 0 {
            // Writers created for a batch that then failed validation.
            return Ok(());
        }
        // Each chunk is spliced into the file as soon as it is closed; a
        // panic fails the flush, as on the pool.
        let factory = &self.factory;
        let counts = &mut self.leaf_chunks;
        let closed = row_group.writers.into_iter().map(|(leaf, w)| {
            let closed = run_caught(|| w.close()).map_err(|message| {
                panicked(
                    &format!("closing column {}", column_name(factory, leaf)),
                    message,
                )
            })?;
            Ok((leaf, closed?))
        });
        let mut chunks = closed.inspect(|chunk| count_chunk(counts, chunk));
        let appended = self.sink.get_mut().append_row_group(&mut chunks);
        self.poison(appended)
    }

    /// The writer and factory, to go on at the column level.
    pub(super) fn into_serialized_writer(
        mut self,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        FileEncoder::flush(&mut self)?;
        match self.sink {
            Sink::File(s) => s.into_serialized_writer(self.factory),
            Sink::Splice(s) => s.into_serialized_writer(self.factory),
        }
    }

    /// Flushes, writes the footer if not yet written and returns the output.
    pub(super) fn into_inner(mut self) -> Result<W> {
        FileEncoder::flush(&mut self)?;
        match self.sink {
            Sink::File(s) => s.into_inner(),
            Sink::Splice(s) => s.into_inner(),
        }
    }
}

fn no_row_group() -> ParquetError {
    ParquetError::General("no row group in progress".into())
}

/// Counts `chunk` (on its way into the file) for its leaf in `counts`.
fn count_chunk(counts: &mut Vec<LeafChunks>, chunk: &Result<(usize, ArrowColumnChunk)>) {
    if let Ok((leaf, chunk)) = chunk {
        if counts.len() <= *leaf {
            counts.resize(leaf + 1, LeafChunks::default());
        }
        match chunk.path() {
            LeafPath::Fast => counts[*leaf].fast_path += 1,
            LeafPath::Parquet => counts[*leaf].parquet_path += 1,
        }
    }
}
