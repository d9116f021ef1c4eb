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
use crate::validate::{check_values, needs_value_check, validate_structure};
use crate::writer::pool::{Outcome, Pool, Task};
use arrow_array::RecordBatch;
use parquet::errors::{ParquetError, Result};
use std::io::Write;

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
        let mut tasks: Vec<Task<Result<()>>> = Vec::new();
        let fields = self.arrow_schema.fields().iter().zip(batch.columns());
        for (i, (field, array)) in fields.enumerate() {
            let (field, array) = (field.clone(), array.clone());
            match spans.get(i).filter(|s| s.flat) {
                Some(span) => {
                    if let Some(shape) = self.factory.shape(span.first) {
                        checks.push((true, field.name().clone()));
                        tasks.push(Box::new(move || shape.validate(&flat_leaf(&field, &array))));
                    }
                }
                None if needs_value_check(&field, &array) => {
                    checks.push((false, field.name().clone()));
                    tasks.push(Box::new(move || check_values(&field, &array)));
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
    pub(super) fn write_part_parallel(
        &mut self,
        part: &RecordBatch,
        leaves: Vec<ArrowLeafColumn>,
    ) -> Result<()> {
        let row_group = self.in_progress.as_mut().ok_or_else(no_row_group)?;
        let rows_left = self.max_rows.map(|max| max.saturating_sub(row_group.rows));
        let writers = std::mem::take(&mut row_group.writers);
        let mut order = Vec::with_capacity(writers.len());
        let mut tasks: Vec<Task<Written>> = Vec::with_capacity(writers.len());
        for ((leaf, mut writer), column) in writers.into_iter().zip(leaves) {
            let mut chunker = self
                .chunkers
                .as_mut()
                .and_then(|c| c.get_mut(leaf))
                .and_then(Option::take);
            order.push(leaf);
            tasks.push(Box::new(move || {
                let result = writer.write_checked(&column, chunker.as_mut(), rows_left);
                (writer, chunker, result)
            }));
        }
        let pool = self.pool.as_mut().ok_or_else(no_pool)?;
        let sink = &mut self.sink;
        let (outcomes, local) = pool.run(tasks, || sink.get_mut().write_rows(part));
        let mut first_error = None;
        let mut lost = false;
        for (leaf, outcome) in order.into_iter().zip(outcomes) {
            match outcome {
                Ok((writer, chunker, result)) => {
                    row_group.writers.push((leaf, writer));
                    if let Some(slot) = self.chunkers.as_mut().and_then(|c| c.get_mut(leaf)) {
                        *slot = chunker;
                    }
                    if let Err(e) = result {
                        first_error.get_or_insert(e);
                    }
                }
                Err(message) => {
                    // The column writer went down with its task.
                    lost = true;
                    let what = format!("writing column {}", column_name(&self.factory, leaf));
                    first_error.get_or_insert(panicked(&what, message));
                }
            }
        }
        match local {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(message) => {
                first_error.get_or_insert(panicked("the inner parquet writer", message));
            }
        }
        if lost {
            // The row group is incomplete; the error poisons the writer.
            self.in_progress = None;
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        if let Some(row_group) = &mut self.in_progress {
            row_group.rows += part.num_rows();
        }
        Ok(())
    }
}

/// What a write task hands back: the column writer and chunker it took,
/// and the write's result.
type Written = (ArrowColumnWriter, Option<Chunker>, Result<()>);

/// Closes `writers` on the pool; the chunks in leaf order, or the first
/// error in leaf order.
pub(super) fn close(
    pool: &mut Pool,
    factory: &ArrowRowGroupWriterFactory,
    writers: Vec<(usize, ArrowColumnWriter)>,
) -> Result<Vec<(usize, ArrowColumnChunk)>> {
    let (order, tasks): (Vec<usize>, Vec<Task<Result<ArrowColumnChunk>>>) = writers
        .into_iter()
        .map(|(leaf, w)| (leaf, Box::new(move || w.close()) as Task<_>))
        .unzip();
    let (outcomes, _) = pool.run(tasks, || ());
    order
        .into_iter()
        .zip(outcomes)
        .map(
            |(leaf, outcome): (usize, Outcome<Result<ArrowColumnChunk>>)| match outcome {
                Ok(chunk) => Ok((leaf, chunk?)),
                Err(message) => Err(panicked(
                    &format!("closing column {}", column_name(factory, leaf)),
                    message,
                )),
            },
        )
        .collect()
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
