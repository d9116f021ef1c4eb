//! The row-group writer's steps with its columns on the pool: the
//! fields of a batch validated as tasks (the write waits for them, so a
//! bad batch fails its own write and leaves the writer as it was), then
//! each part's leaves handed to the columns' lanes ([`super::lanes`]),
//! which the write does not wait for; full row groups closed on the lanes
//! and spliced into the file later, in leaf order, while the next row
//! group's columns are encoded.
//!
//! Errors are reported as the sequential loop would report them (the
//! first in column order): validation's by the write itself; a failure
//! while encoding or closing (a page store's error, a panic, which becomes
//! a [`ParquetError::General`] naming the column) by the writer's next
//! call, and the writer cannot continue, as after such a failure on one
//! thread.

use super::lanes::{Closing, Lanes, panicked};
use super::{RowGroup, RowGroupWriter, Sink, no_row_group};
use crate::ArrowRowGroupWriterFactory;
use crate::column::{ArrowLeafColumn, writes_flat};
use crate::leaf::flat_leaf;
use crate::memory::Share;
use crate::pool::{Task, run_caught};
use crate::validate::{check_values, needs_value_check, validate_structure};
use arrow_array::RecordBatch;
use parquet::errors::{ParquetError, Result};
use std::io::Write;
use std::sync::Arc;

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
            match spans.get(i).filter(|s| writes_flat(s, &field, &array)) {
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
        let pool = self.pool.as_ref().ok_or_else(no_pool)?;
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

    /// Starts a row group on the lanes: its column writers made here (page
    /// stores are created on this thread, in file order) and handed to
    /// lanes of their own (so that its columns start while the last row
    /// group's may still be encoded), or, with content-defined chunking
    /// (whose chunkers go on from one row group to the next), to the same
    /// lanes; the index counts a row group still waiting to be spliced.
    pub(super) fn begin_on_lanes(&mut self) -> Result<()> {
        let index =
            self.sink.get().flushed_row_groups().len() + usize::from(self.closing.is_some());
        let only_fast = self.sink.get().takes_parquet_leaves();
        let writers = self.factory.create_writers(index, only_fast)?;
        match &self.lanes {
            Some(lanes) if self.chunkers.is_some() => lanes.begin(writers)?,
            _ => {
                let pool = self.pool.clone().ok_or_else(no_pool)?;
                let factory = &self.factory;
                let name = |leaf| column_name(factory, leaf);
                let first = self.lanes_made;
                self.lanes_made += writers.len();
                let lanes = Lanes::new(
                    pool,
                    first,
                    writers,
                    &mut self.chunkers,
                    (self.costs.clone(), &self.lane_memory),
                    name,
                );
                self.lanes = Some(Arc::new(lanes));
            }
        }
        self.in_progress = Some(RowGroup {
            writers: Vec::new(),
            rows: 0,
        });
        Ok(())
    }

    /// [`Self::write_part`] on the lanes: each leaf queued on its column's
    /// lane (or, for a write too small to hand out, written here once the
    /// lanes are idle) while this thread hands the part to the sink (the
    /// inner `parquet` writer of a mixed content-defined-chunking file).
    pub(super) fn write_part_on_lanes(
        &mut self,
        part: &RecordBatch,
        leaves: Vec<ArrowLeafColumn>,
        on_pool: bool,
    ) -> Result<()> {
        let rows = part.num_rows();
        let row_group = self.in_progress.as_ref().ok_or_else(no_row_group)?;
        let rows_left = self.max_rows.map(|max| max.saturating_sub(row_group.rows));
        if on_pool {
            self.steps.0 += 1;
            // Each field's arrays are held until its leaves' queued work is
            // done: published (once per write) for the memory reservation.
            if self.queued_batch.is_none() {
                self.queued_batch = Some(self.field_shares(part, leaves.len()));
            }
            let shares = self.queued_batch.as_deref().unwrap_or_default();
            let lanes = self.lanes.as_ref().ok_or_else(no_pool)?;
            lanes.write(leaves, (rows, rows_left), shares)?;
        } else {
            self.steps.1 += 1;
            let lanes = self.lanes.as_ref().ok_or_else(no_pool)?;
            // One thread's order: the last row group's columns first.
            if let Some(closing) = &self.closing {
                closing.lanes().sync();
            }
            lanes.write_here(leaves, rows, rows_left)?;
        }
        run_caught(|| self.sink.get_mut().write_rows(part))
            .map_err(|message| panicked("the inner parquet writer", message))??;
        if let Some(row_group) = &mut self.in_progress {
            row_group.rows += rows;
        }
        Ok(())
    }

    /// For each of the `count` leaves this writer's lanes take from `part`,
    /// the published share of the arrays of the field it comes from (one
    /// per field, given back once the last of its leaves' queued work is
    /// done); the whole batch's for every leaf when fields and leaves are
    /// not mapped. Nothing is measured while nobody tracks the memory.
    fn field_shares(&self, part: &RecordBatch, count: usize) -> Vec<Arc<Share>> {
        let memory = &self.lane_memory;
        if !memory.tracking() {
            let none = Arc::new(Share::new(memory, 0));
            return std::iter::repeat_n(none, count).collect();
        }
        let plan = self.factory.column_plan();
        let only_fast = self.sink.get().takes_parquet_leaves();
        let mut shares = Vec::with_capacity(count);
        if let Some(spans) = plan.fields() {
            let fields = self.arrow_schema.fields().iter();
            for ((span, field), array) in spans.iter().zip(fields).zip(part.columns()) {
                let taken = match writes_flat(span, field, array) {
                    true => 1,
                    false => span
                        .leaves()
                        .filter(|&l| !only_fast || plan.is_fast(l))
                        .count(),
                };
                if taken > 0 {
                    let share = Arc::new(Share::new(memory, array.get_array_memory_size()));
                    shares.extend(std::iter::repeat_n(share, taken));
                }
            }
        }
        if shares.len() != count {
            let share = Arc::new(Share::new(memory, part.get_array_memory_size()));
            shares = std::iter::repeat_n(share, count).collect();
        }
        shares
    }

    /// Ends the row group in progress on the lanes: each column closed on
    /// its lane. With `defer` (a row group filled by a write, into the
    /// plain file sink) its chunks are spliced later (by the throttle or
    /// the next row group's end), else now; a row group still waiting is
    /// spliced first.
    pub(super) fn end_on_lanes(&mut self, defer: bool) -> Result<()> {
        let closing = match (self.in_progress.take(), &self.lanes) {
            (Some(row_group), Some(lanes)) if row_group.rows > 0 => Some(lanes.close()),
            // Writers made for a batch that then failed validation.
            _ => None,
        };
        if self.chunkers.is_none() {
            // The next row group gets lanes of its own.
            self.lanes = None;
        }
        if let Some(waiting) = self.closing.take() {
            self.splice(waiting)?;
        }
        match closing {
            Some(closing) if defer && matches!(self.sink, Sink::File(_)) => {
                self.closing = Some(closing);
                Ok(())
            }
            Some(closing) => self.splice(closing),
            None => Ok(()),
        }
    }

    /// Splices `closing`'s chunks into the file as they come in; a failure
    /// poisons the writer.
    pub(super) fn splice(&mut self, closing: Closing) -> Result<()> {
        let counts = &mut self.leaf_chunks;
        let mut chunks = closing
            .chunks()
            .inspect(|chunk| super::count_chunk(counts, chunk));
        let appended = self.sink.get_mut().append_row_group(&mut chunks);
        drop(chunks);
        self.poison(appended)
    }

    /// Splices the row group waiting to be, if any.
    pub(super) fn splice_waiting(&mut self) -> Result<()> {
        match self.closing.take() {
            Some(closing) => self.splice(closing),
            None => Ok(()),
        }
    }

    /// A column's failure on its lanes (the row group in progress's, then
    /// the waiting one's), as this call's error (poisoning).
    pub(super) fn check_lanes(&mut self) -> Result<()> {
        let mut checked = self.lanes.as_deref().map_or(Ok(()), Lanes::check);
        if let (Ok(()), Some(closing)) = (&checked, &self.closing) {
            checked = closing.lanes().check();
        }
        self.poison(checked)
    }

    /// After a write on the lanes: waits (helping) while the lanes hold
    /// more than their share of queued rows (half a row group, at most
    /// 1,048,576 rows, or two such writes; with a memory listener, this
    /// write's: the batches queued work keeps alive are reserved, and held
    /// no longer than the host's pool needs to see them), and splices the waiting row
    /// group once its columns are closed, either then (so that the other
    /// threads have work queued while this one copies: copying a row group
    /// out takes about as long as encoding a good part of one) or once the
    /// row group in progress is half full (so that no more is held).
    pub(super) fn throttle(&mut self, rows: usize) -> Result<()> {
        let group = self.max_rows.unwrap_or(1 << 20).min(1 << 20);
        let bound = match self.lane_memory.tracking() {
            true => rows,
            false => (group / 2).max(2 * rows),
        };
        loop {
            self.check_lanes()?;
            let ready = self.closing.as_ref().is_some_and(Closing::is_closed);
            let half_full = self
                .in_progress
                .as_ref()
                .is_some_and(|rg| 2 * rg.rows >= group);
            if ready && half_full {
                self.splice_waiting()?;
                continue;
            }
            let Some(lanes) = &self.lanes else {
                return Ok(());
            };
            let closing = &self.closing;
            let ready = || closing.as_ref().is_some_and(Closing::is_closed);
            if !lanes.throttle(bound, ready) {
                return Ok(());
            }
            self.splice_waiting()?;
        }
    }

    /// Memory held by the lanes' column writers and the row group waiting
    /// to be spliced (once the lanes are idle).
    pub(super) fn memory_on_lanes(&self) -> usize {
        let current = self
            .lanes
            .as_ref()
            .map_or(0, |l| l.sum(|w| w.memory_size()));
        let closing = self.closing.as_ref();
        current + closing.map_or(0, |c| c.memory(self.lanes.as_ref()))
    }

    /// Publishes what the lanes hold (once idle): a listener was attached
    /// while they held column writers or chunks.
    pub(super) fn republish_on_lanes(&self) {
        if let Some(lanes) = &self.lanes {
            lanes.republish();
        }
        if let Some(closing) = &self.closing {
            closing.republish(self.lanes.as_ref());
        }
    }

    /// Waits (helping) until the lanes have done all their queued work.
    pub(super) fn wait_for_lanes(&self) {
        if let Some(lanes) = &self.lanes {
            lanes.sync();
        }
        if let Some(closing) = &self.closing {
            closing.lanes().sync();
        }
    }

    /// Estimated encoded bytes of the lanes' column writers (once idle).
    pub(super) fn estimated_on_lanes(&self) -> usize {
        self.lanes
            .as_ref()
            .map_or(0, |l| l.sum(|w| w.get_estimated_total_bytes()))
    }

    /// Leaves the lanes (after splicing what waits): their column writers
    /// go back to the row group in progress, the chunkers to the writer.
    pub(super) fn leave_lanes(&mut self) -> Result<()> {
        self.splice_waiting()?;
        if let Some(lanes) = self.lanes.take() {
            let writers = lanes.take_writers(&mut self.chunkers);
            if let Some(row_group) = &mut self.in_progress {
                row_group.writers = writers;
            }
        }
        Ok(())
    }
}

/// Leaf `leaf`'s column path, quoted, for messages.
pub(super) fn column_name(factory: &ArrowRowGroupWriterFactory, leaf: usize) -> String {
    match factory.column_path(leaf) {
        Some(path) => format!("'{path}'"),
        None => format!("{leaf}"),
    }
}

fn no_pool() -> ParquetError {
    ParquetError::General("no worker threads".into())
}
