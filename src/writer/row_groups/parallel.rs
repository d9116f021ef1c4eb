//! The row-group writer's steps with its columns on a [`Pool`]: validating
//! the fields of a batch, writing a part's leaves, closing the column
//! writers.
//!
//! Each step hands every column its own task (owning its column writer,
//! leaf and chunker, moved back afterwards) and waits for all of them, so
//! a step ends in the same state as the sequential loop it replaces: every
//! column writer got the same input in the same order, and the chunks go
//! to the sink in leaf order. Errors are reported as the sequential loop
//! would report them (the first in column order); a panic in a task
//! becomes a [`ParquetError::General`] naming the column. As in the
//! sequential loop, validation failures leave the writer as it was, and a
//! failure while writing or closing poisons it (its row group is no longer
//! consistent).

use super::{RowGroupWriter, no_row_group};
use crate::ArrowRowGroupWriterFactory;
use crate::cdc::Chunker;
use crate::column::{ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn};
use crate::leaf::flat_leaf;
use crate::pool::{Outcome, Pool, Take, Task, run_caught};
use crate::validate::{check_values, needs_value_check, validate_structure};
use arrow_array::RecordBatch;
use parquet::errors::{ParquetError, Result};
use std::io::Write;
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

/// A panic in a task, as the error of the call.
fn panicked(what: &str, message: String) -> ParquetError {
    ParquetError::General(format!("{what} panicked on a worker thread: {message}"))
}

impl<W: Write + Send> RowGroupWriter<W> {
    /// [`Self::validate`] with each field's value checks on the pool: the
    /// column count and types first, on the caller; then, as the
    /// sequential checks order them, the first error of the fields
    /// `validate_batch` checks, else the first of the single-leaf fast
    /// fields.
    pub(super) fn validate_parallel(&mut self, batch: &RecordBatch) -> Result<()> {
        validate_structure(&self.arrow_schema, batch)?;
        let plan = self.factory.column_plan();
        let spans = plan.fields().unwrap_or_default();
        // Per task: whether it checks a single-leaf fast field, and its name.
        let mut checks: Vec<(bool, String)> = Vec::new();
        let mut tasks: Vec<(u64, Task<Result<()>>)> = Vec::new();
        let fields = self.arrow_schema.fields().iter().zip(batch.columns());
        for (i, (field, array)) in fields.enumerate() {
            let (field, array) = (field.clone(), array.clone());
            match spans.get(i).filter(|s| s.flat) {
                Some(span) => {
                    if let Some(shape) = self.factory.shape(span.first) {
                        checks.push((true, field.name().clone()));
                        let weight = array.get_array_memory_size() as u64;
                        tasks.push((
                            weight,
                            Box::new(move || shape.validate(&flat_leaf(&field, &array))),
                        ));
                    }
                }
                None if needs_value_check(&field, &array) => {
                    checks.push((false, field.name().clone()));
                    let weight = array.get_array_memory_size() as u64;
                    tasks.push((weight, Box::new(move || check_values(&field, &array))));
                }
                None => {}
            }
        }
        let pool = self.pool.as_mut().ok_or_else(no_pool)?;
        let (outcomes, _) = pool.run(tasks, || ());
        let mut errors: Vec<(bool, ParquetError)> = Vec::new();
        for ((flat, name), outcome) in checks.into_iter().zip(outcomes) {
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(e)) => errors.push((flat, e)),
                Err(message) => errors.push((
                    flat,
                    panicked(&format!("validating column '{name}'"), message),
                )),
            }
        }
        // A stable sort keeps column order within each kind.
        errors.sort_by_key(|(flat, _)| *flat);
        match errors.into_iter().next() {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// The loop of [`Self::write_part`] on the pool: each leaf written by
    /// its column writer (with its chunker) in a task, while the caller
    /// hands the part to the sink (the inner `parquet` writer of a mixed
    /// content-defined-chunking file), then takes tasks too.
    ///
    /// With `close` (the part fills the row group), each task also closes
    /// its column writer, and the caller splices the chunks into the file
    /// in leaf order as they come in — the first columns' bytes are copied
    /// out while later columns are still being encoded. The row group is
    /// then flushed (or, on error, dropped: the error poisons the writer).
    pub(super) fn write_part_parallel(
        &mut self,
        part: &RecordBatch,
        leaves: Vec<ArrowLeafColumn>,
        close: bool,
    ) -> Result<()> {
        let rows = part.num_rows();
        let row_group = self.in_progress.as_mut().ok_or_else(no_row_group)?;
        let rows_left = self.max_rows.map(|max| max.saturating_sub(row_group.rows));
        let writers = std::mem::take(&mut row_group.writers);
        let mut order = Vec::with_capacity(writers.len());
        let mut tasks: Vec<(u64, Task<Written>)> = Vec::with_capacity(writers.len());
        for ((leaf, mut writer), column) in writers.into_iter().zip(leaves) {
            let mut chunker = self
                .chunkers
                .as_mut()
                .and_then(|c| c.get_mut(leaf))
                .and_then(Option::take);
            order.push(leaf);
            let weight = self
                .costs
                .get(leaf)
                .map_or(1, |c| c.saturating_mul(rows as u64) >> 10);
            tasks.push((
                weight,
                Box::new(move || {
                    let start = Instant::now();
                    let result = writer.write_checked(&column, chunker.as_mut(), rows_left);
                    let elapsed = start.elapsed();
                    let state = match result {
                        Ok(()) if close => State::Closed(writer.close()),
                        result => State::Open(writer, result),
                    };
                    (state, chunker, elapsed)
                }),
            ));
        }
        let pool = self.pool.as_mut().ok_or_else(no_pool)?;
        let take = if close { Take::InOrder } else { Take::Lightest };
        let results = pool.submit(tasks, take);
        let local = run_caught(|| self.sink.get_mut().write_rows(part));
        let mut outcomes = order.into_iter().zip(results);
        if close {
            self.in_progress = None;
            let (chunkers, costs, factory) = (&mut self.chunkers, &mut self.costs, &self.factory);
            let mut settle = |(leaf, outcome): (usize, Outcome<Written>)| {
                let (state, chunker, elapsed) = outcome.map_err(|message| {
                    let what = format!("writing column {}", column_name(factory, leaf));
                    panicked(&what, message)
                })?;
                take_back(chunkers, costs, leaf, chunker, elapsed, rows);
                match state {
                    State::Closed(chunk) => Ok((leaf, chunk?)),
                    State::Open(_, Err(e)) => Err(e),
                    State::Open(_, Ok(())) => Err(ParquetError::General(format!(
                        "column {} was not closed",
                        column_name(factory, leaf)
                    ))),
                }
            };
            return match local_result(local) {
                Ok(()) => {
                    let mut chunks = outcomes.by_ref().map(&mut settle);
                    self.sink.get_mut().append_row_group(&mut chunks)
                }
                // As in the sequential order of errors: a column's first.
                Err(local) => Err(outcomes.map(settle).find_map(Result::err).unwrap_or(local)),
            };
        }
        let row_group = self.in_progress.as_mut().ok_or_else(no_row_group)?;
        let mut first_error = None;
        let mut lost = false;
        for (leaf, outcome) in outcomes {
            match outcome {
                Ok((State::Open(writer, result), chunker, elapsed)) => {
                    row_group.writers.push((leaf, writer));
                    take_back(
                        &mut self.chunkers,
                        &mut self.costs,
                        leaf,
                        chunker,
                        elapsed,
                        rows,
                    );
                    if let Err(e) = result {
                        first_error.get_or_insert(e);
                    }
                }
                Ok((State::Closed(_), _, _)) => {
                    lost = true;
                    first_error.get_or_insert(ParquetError::General(format!(
                        "column {} was closed before the row group was full",
                        column_name(&self.factory, leaf)
                    )));
                }
                Err(message) => {
                    // The column writer went down with its task.
                    lost = true;
                    let what = format!("writing column {}", column_name(&self.factory, leaf));
                    first_error.get_or_insert(panicked(&what, message));
                }
            }
        }
        if let Err(e) = local_result(local) {
            first_error.get_or_insert(e);
        }
        if lost {
            // The row group is incomplete; the error poisons the writer.
            self.in_progress = None;
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        if let Some(row_group) = &mut self.in_progress {
            row_group.rows += rows;
        }
        Ok(())
    }
}

/// A write task's column writer afterwards: still open (with the write's
/// result), or closed (the write succeeded and the row group is full).
#[allow(
    clippy::large_enum_variant,
    reason = "one per column per step, moved back once; boxing would only add an allocation"
)]
enum State {
    Open(ArrowColumnWriter, Result<()>),
    Closed(Result<ArrowColumnChunk>),
}

/// What a write task hands back: its column writer's state, the chunker it
/// took, and how long the write took.
type Written = (State, Option<Chunker>, Duration);

/// Puts back what a write task took for leaf `leaf` (its chunker) and
/// folds the write's time into the leaf's cost (nanoseconds per 1,024
/// rows), which weighs the leaf's next task: the pool's workers take the
/// heaviest first. Timing only orders tasks; it never changes bytes.
fn take_back(
    chunkers: &mut Option<Vec<Option<Chunker>>>,
    costs: &mut [u64],
    leaf: usize,
    chunker: Option<Chunker>,
    elapsed: Duration,
    rows: usize,
) {
    if let Some(slot) = chunkers.as_mut().and_then(|c| c.get_mut(leaf)) {
        *slot = chunker;
    }
    fold_cost(costs, leaf, elapsed, rows);
}

/// Folds a write of `rows` rows of leaf `leaf` that took `elapsed` into the
/// leaf's cost (nanoseconds per 1,024 rows, halved average).
pub(super) fn fold_cost(costs: &mut [u64], leaf: usize, elapsed: Duration, rows: usize) {
    if let (Some(cost), Some(rows)) = (costs.get_mut(leaf), NonZeroUsize::new(rows)) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let measured = nanos.saturating_mul(1024) / rows.get() as u64;
        *cost = (*cost / 2).saturating_add(measured / 2).max(1);
    }
}

/// The result of the caller's own part of a step (the inner `parquet`
/// writer's), a panic as an error.
fn local_result(local: Outcome<Result<()>>) -> Result<()> {
    local
        .map_err(|message| panicked("the inner parquet writer", message))
        .and_then(|r| r)
}

/// Closes `writers` on the pool; the chunks in leaf order, each as soon
/// as it and those before it are closed (the caller closes the next one it
/// needs while workers close the others), or the error of the first that
/// failed.
pub(super) fn close<'a>(
    pool: &mut Pool,
    factory: &'a ArrowRowGroupWriterFactory,
    writers: Vec<(usize, ArrowColumnWriter)>,
) -> impl Iterator<Item = Result<(usize, ArrowColumnChunk)>> + 'a {
    type Closing = (u64, Task<Result<ArrowColumnChunk>>);
    let (order, tasks): (Vec<usize>, Vec<Closing>) = writers
        .into_iter()
        .map(|(leaf, w)| {
            let weight = w.memory_size() as u64;
            (leaf, (weight, Box::new(move || w.close()) as Task<_>))
        })
        .unzip();
    let results = pool.submit(tasks, Take::InOrder);
    order.into_iter().zip(results).map(
        move |(leaf, outcome): (usize, Outcome<Result<ArrowColumnChunk>>)| match outcome {
            Ok(chunk) => Ok((leaf, chunk?)),
            Err(message) => Err(panicked(
                &format!("closing column {}", column_name(factory, leaf)),
                message,
            )),
        },
    )
}

/// Leaf `leaf`'s column path, quoted, for messages.
fn column_name(factory: &ArrowRowGroupWriterFactory, leaf: usize) -> String {
    match factory.column_path(leaf) {
        Some(path) => format!("'{path}'"),
        None => format!("{leaf}"),
    }
}

fn no_pool() -> ParquetError {
    ParquetError::General("no worker threads".into())
}
