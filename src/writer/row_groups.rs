//! The row-group loop: a batch is validated, cut where the row and byte
//! limits fall (as `parquet`'s `ArrowWriter::write` cuts it), its leaves
//! written by the row group's column writers, and each full row group's
//! chunks handed to the [`RowGroupSink`].
//!
//! With more than one thread ([`RowGroupWriter::set_threads`]) the
//! per-column work of each step runs on a [`Pool`] ([`parallel`]); the
//! steps, their order and what each column writer is given are the same.

mod file_encoder;
mod limits;
mod parallel;

use super::ArrowWriterOptions;
use super::engine::FileEncoder;
use crate::ArrowRowGroupWriterFactory;
use crate::cdc::Chunker;
use crate::column::{ArrowColumnWriter, ArrowLeafColumn, planned_leaves};
use crate::hybrid::{self, SpliceSink};
use crate::leaf::flat_leaf;
use crate::plan::{ColumnPlan, FileRoute};
use crate::pool::Pool;
use crate::sink::{FileSink, RowGroupSink};
use crate::validate::validate_batch;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use limits::Step;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// The default of `ArrowWriter::with_min_parallel_work`, in nanoseconds:
/// below about this much work, handing a write's columns to the workers
/// and collecting them cost more than running them on the caller
/// (measured on two columns of 8,192 rows, see the README).
const DEFAULT_MIN_PARALLEL: u64 = 250_000;

/// The sink of a row-group writer.
enum Sink<W: Write + Send> {
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
pub(super) struct RowGroupWriter<W: Write + Send> {
    sink: Sink<W>,
    factory: ArrowRowGroupWriterFactory,
    arrow_schema: SchemaRef,
    max_rows: Option<usize>,
    max_bytes: Option<usize>,
    in_progress: Option<RowGroup>,
    /// With content-defined chunking: one chunker per leaf, kept across
    /// row groups (taken out while a worker thread uses it).
    chunkers: Option<Vec<Option<Chunker>>>,
    /// With more than one thread: the workers that encode columns.
    pool: Option<Pool>,
    /// With more than one thread: each leaf's cost, in nanoseconds per
    /// 1,024 rows (guessed from its type when the threads are set, then
    /// measured), which orders the pool's tasks.
    costs: Vec<u64>,
    /// With more than one thread: a write whose columns' estimated work
    /// (by `costs`) is below this many nanoseconds runs on the calling
    /// thread, where handing it out would cost more than it saves.
    min_parallel: u64,
    /// Writes (or parts of one) run on the pool, and run on the caller as
    /// too small, for `Debug`.
    steps: (usize, usize),
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
        let chunkers = props
            .content_defined_chunking()
            .map(|cdc| {
                (0..parquet.num_columns())
                    .map(|_| Chunker::try_new(cdc).map(Some))
                    .collect()
            })
            .transpose()?;
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
        Ok(Self {
            sink,
            factory,
            arrow_schema,
            max_rows,
            max_bytes,
            in_progress: None,
            chunkers,
            pool: None,
            costs: Vec::new(),
            min_parallel: DEFAULT_MIN_PARALLEL,
            steps: (0, 0),
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
        let plan = self.factory.column_plan();
        let spans = plan.fields().unwrap_or_default();
        validate_batch(&self.arrow_schema, batch, |i| {
            spans.get(i).is_some_and(|s| s.flat)
        })?;
        for ((span, field), array) in spans
            .iter()
            .zip(self.arrow_schema.fields())
            .zip(batch.columns())
        {
            if let (true, Some(shape)) = (span.flat, self.factory.shape(span.first)) {
                shape.validate(&flat_leaf(field, array))?;
            }
        }
        Ok(())
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
                    FileEncoder::flush(self)?;
                    pieces.push(piece);
                }
                Step::Write(Some(n)) => {
                    pieces.push(piece.slice(n, piece.num_rows() - n));
                    pieces.push(piece.slice(0, n));
                }
                Step::Write(None) => {
                    // With threads, a part that fills the row group by rows
                    // is written and flushed in one step (see
                    // `write_part_parallel`).
                    let fills = self.pool.is_some()
                        && self
                            .max_rows
                            .is_some_and(|max| buffered + piece.num_rows() >= max);
                    let written = self.write_part(&piece, fills);
                    self.poison(written)?;
                    let rows = self.in_progress.as_ref().map_or(0, |rg| rg.rows);
                    if self.is_full(rows) {
                        FileEncoder::flush(self)?;
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
    /// is computed before any is written. `fills`: the part fills the row
    /// group (threads only), which is then flushed too.
    fn write_part(&mut self, part: &RecordBatch, fills: bool) -> Result<()> {
        let leaves = self.leaves(part)?;
        let rows = part.num_rows();
        let on_pool = self.on_pool(rows);
        let row_group = self.in_progress.as_mut().ok_or_else(no_row_group)?;
        if leaves.len() != row_group.writers.len() {
            return Err(ParquetError::General(format!(
                "the batch has {} leaf columns for {} column writers",
                leaves.len(),
                row_group.writers.len()
            )));
        }
        if on_pool {
            self.steps.0 += 1;
            return self.write_part_parallel(part, leaves, fills);
        }
        // With threads, a write too small to hand out: on the caller, timed
        // as on the pool (the costs decide the next write).
        let timed = self.pool.is_some();
        self.steps.1 += usize::from(timed);
        let rows_left = self.max_rows.map(|max| max.saturating_sub(row_group.rows));
        for ((leaf, writer), column) in row_group.writers.iter_mut().zip(&leaves) {
            let chunker = self.chunkers.as_mut().and_then(|c| c.get_mut(*leaf));
            let start = timed.then(Instant::now);
            writer.write_checked(column, chunker.and_then(Option::as_mut), rows_left)?;
            if let Some(start) = start {
                parallel::fold_cost(&mut self.costs, *leaf, start.elapsed(), rows);
            }
        }
        self.sink.get_mut().write_rows(part)?;
        row_group.rows += rows;
        Ok(())
    }

    /// Whether the work of writing `rows` rows goes to the pool: there is
    /// one, and the columns' estimated work for those rows reaches
    /// `min_parallel`.
    fn on_pool(&self, rows: usize) -> bool {
        let work = || -> u64 {
            self.costs
                .iter()
                .map(|c| c.saturating_mul(rows as u64) >> 10)
                .fold(0, u64::saturating_add)
        };
        self.pool.is_some() && work() >= self.min_parallel
    }

    /// Starts a row group if none is in progress; returns its row count.
    fn row_group(&mut self) -> Result<usize> {
        if let Some(row_group) = &self.in_progress {
            return Ok(row_group.rows);
        }
        let index = self.sink.get().flushed_row_groups().len();
        let only_fast = self.sink.get().takes_parquet_leaves();
        let writers = self.factory.create_writers(index, only_fast)?;
        self.in_progress = Some(RowGroup { writers, rows: 0 });
        Ok(0)
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
