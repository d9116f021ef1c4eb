//! The row-group writer's columns on the pool: one [`Lane`] per column
//! writer of a row group, which owns the column's writer (and, with
//! content-defined chunking, its chunker: then one lane per column serves
//! every row group, as the chunker goes on from one to the next).
//!
//! A write hands each column its part as an operation on its lane and
//! returns without waiting for it: the next batch's work queues behind it,
//! so no write is a barrier and the threads keep busy across writes and
//! across row groups. A full row group's columns are closed by a last
//! operation on each lane, which leaves the chunk in a [`ChunkSlot`]; the
//! writer splices a closed row group's chunks into the file in leaf order
//! later (while the next row group's columns are encoded). Each lane's
//! operations run in the order they were queued, one at a time, so every
//! column writer sees what it sees on one thread, and the bytes are the
//! same.
//!
//! A failure inside an operation (a page store's error, a panic) is kept
//! by the lane, later operations of that column are skipped, and the
//! writer reports it at its next call and cannot continue (as after a
//! failed write on one thread).

mod closing;

pub(super) use closing::Closing;

use crate::cdc::Chunker;
use crate::column::{ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn};
use crate::memory::{LaneMemory, Share};
use crate::pool::{Lane, Op, Pool, Take, run_caught};
use closing::ChunkSlot;
use parquet::errors::{ParquetError, Result};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::time::{Duration, Instant};

/// A panic while doing `what`, as an error (the same on any thread).
pub(super) fn panicked(what: &str, message: String) -> ParquetError {
    ParquetError::General(format!("{what} panicked: {message}"))
}

/// Each leaf's cost, in nanoseconds per 1,024 rows (guessed from its type,
/// then measured on every write wherever it runs), which weighs its work
/// for the pool. Timing only orders work; it never changes bytes.
pub(super) type Costs = Arc<[AtomicU64]>;

/// Folds a write of `rows` rows of leaf `leaf` that took `elapsed` into
/// the leaf's cost (halved average).
pub(super) fn fold_cost(costs: &[AtomicU64], leaf: usize, elapsed: Duration, rows: usize) {
    if let (Some(cost), true) = (costs.get(leaf), rows > 0) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let measured = nanos.saturating_mul(1024) / rows as u64;
        let old = cost.load(Relaxed);
        cost.store((old / 2).saturating_add(measured / 2).max(1), Relaxed);
    }
}

/// The estimated work of `rows` rows of leaf `leaf` (its weight).
pub(super) fn work(costs: &[AtomicU64], leaf: usize, rows: usize) -> u64 {
    costs
        .get(leaf)
        .map_or(1, |c| c.load(Relaxed).saturating_mul(rows as u64) >> 10)
}

/// A column's state on its lane.
pub(super) struct Column {
    leaf: usize,
    /// The leaf's column path, quoted, for messages.
    name: String,
    writer: Option<ArrowColumnWriter>,
    chunker: Option<Chunker>,
    /// The first failure of a write; later writes are skipped, the close
    /// reports it.
    error: Option<ParquetError>,
    costs: Costs,
    /// Set by any column's failure, so the writer notices without waiting.
    failed: Arc<AtomicBool>,
    /// The writer's lanes' memory as last published by their columns.
    memory: Arc<LaneMemory>,
    /// This column's part of `memory`.
    published: usize,
}

impl Column {
    fn fail(&mut self, e: ParquetError) {
        self.error.get_or_insert(e);
        self.failed.store(true, SeqCst);
    }

    /// Publishes the column writer's `memory_size()` (0 once it is gone)
    /// to the writer's [`LaneMemory`], read without waiting for the lane
    /// (when it is tracked: with a memory listener).
    fn publish(&mut self) {
        if self.memory.tracking() {
            let now = self.writer_memory();
            self.memory.change(self.published, now);
            self.published = now;
        }
    }

    /// [`Self::publish`], handing `bytes` (a closed chunk's) over to the
    /// returned [`Share`] in the same change, so that memory moving from
    /// the writer to its chunk is not counted twice in between.
    fn hand_over(&mut self, bytes: usize) -> Share {
        if !self.memory.tracking() {
            return Share::adopt(&self.memory, 0);
        }
        let now = self.writer_memory();
        self.memory.change(self.published, now + bytes);
        self.published = now;
        Share::adopt(&self.memory, bytes)
    }

    fn writer_memory(&self) -> usize {
        self.writer
            .as_ref()
            .map_or(0, ArrowColumnWriter::memory_size)
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        self.memory.change(self.published, 0);
    }
}

/// The lanes of a row-group writer's columns; see the module docs.
pub(super) struct Lanes {
    pool: Pool,
    lanes: Vec<Lane<Column>>,
    /// Each lane's leaf.
    leaves: Vec<usize>,
    costs: Costs,
    failed: Arc<AtomicBool>,
}

impl Lanes {
    /// Lanes on `pool` for `writers`, numbered from `first` (older row
    /// groups' lanes have lower numbers: they are needed first), with the
    /// leaves' chunkers taken out of `chunkers`; `name` names a leaf; the
    /// columns publish their writers' memory to `memory`.
    pub(super) fn new(
        pool: Pool,
        first: usize,
        writers: Vec<(usize, ArrowColumnWriter)>,
        chunkers: &mut Option<Vec<Option<Chunker>>>,
        (costs, memory): (Costs, &Arc<LaneMemory>),
        name: impl Fn(usize) -> String,
    ) -> Self {
        let failed = Arc::new(AtomicBool::new(false));
        let leaves = writers.iter().map(|(leaf, _)| *leaf).collect();
        let lanes = writers
            .into_iter()
            .enumerate()
            .map(|(index, (leaf, writer))| {
                let chunker = chunkers
                    .as_mut()
                    .and_then(|c| c.get_mut(leaf))
                    .and_then(Option::take);
                let mut column = Column {
                    leaf,
                    name: name(leaf),
                    writer: Some(writer),
                    chunker,
                    error: None,
                    costs: Arc::clone(&costs),
                    failed: Arc::clone(&failed),
                    memory: Arc::clone(memory),
                    published: 0,
                };
                column.publish();
                pool.lane(first + index, column)
            })
            .collect();
        Self {
            pool,
            lanes,
            leaves,
            costs,
            failed,
        }
    }

    /// The first lane's number.
    fn first_index(&self) -> usize {
        self.lanes.first().map_or(0, Lane::index)
    }

    /// Hands the next row group's `writers` to the lanes (after the last
    /// row group's close).
    pub(super) fn begin(&self, writers: Vec<(usize, ArrowColumnWriter)>) -> Result<()> {
        self.check_count(writers.len())?;
        let ops = self.lanes.iter().zip(writers).map(|(lane, (_, writer))| {
            let op: Op<Column> = Box::new(move |c: &mut Column| {
                c.writer = Some(writer);
                c.publish();
            });
            (lane, 0, 0, op)
        });
        self.pool.push_all(ops);
        Ok(())
    }

    fn check_count(&self, n: usize) -> Result<()> {
        if n != self.lanes.len() {
            return Err(ParquetError::General(format!(
                "{n} leaf columns for {} column writers",
                self.lanes.len()
            )));
        }
        Ok(())
    }

    /// Queues each leaf's write of `rows` rows (`rows_left`: the rows the
    /// row group still takes, this write's included); each leaf's write
    /// holds its share of `shares` (the published memory of the arrays it
    /// comes from) until it is done.
    pub(super) fn write(
        &self,
        leaves: Vec<ArrowLeafColumn>,
        (rows, rows_left): (usize, Option<usize>),
        shares: &[Arc<Share>],
    ) -> Result<()> {
        self.check_count(leaves.len())?;
        self.check_count(shares.len())?;
        let ops = self
            .lanes
            .iter()
            .zip(&self.leaves)
            .zip(leaves.into_iter().zip(shares))
            .map(|((lane, leaf), (leaf_column, share))| {
                let share = Arc::clone(share);
                let op: Op<Column> = Box::new(move |c: &mut Column| {
                    write_leaf(c, &leaf_column, rows, rows_left);
                    // The leaf's arrays go with it, now.
                    drop(leaf_column);
                    drop(share);
                });
                (lane, rows, work(&self.costs, *leaf, rows), op)
            });
        self.pool.push_all(ops);
        Ok(())
    }

    /// Writes each leaf on the calling thread, once every lane is idle
    /// (a write too small to hand out). A column whose queued work failed
    /// or panicked meanwhile (its state may be half-changed) fails the
    /// write with its error, naming it, before any leaf is written.
    pub(super) fn write_here(
        &self,
        leaves: Vec<ArrowLeafColumn>,
        rows: usize,
        rows_left: Option<usize>,
    ) -> Result<()> {
        self.check_count(leaves.len())?;
        self.sync();
        self.check()?;
        for (lane, leaf_column) in self.lanes.iter().zip(leaves) {
            lane.with(|c| {
                // As on a lane: a panic fails the column.
                if let Err(message) = run_caught(|| write_leaf(c, &leaf_column, rows, rows_left)) {
                    let e = panicked(&format!("writing column {}", c.name), message);
                    c.fail(e);
                }
            });
        }
        Ok(())
    }

    /// Queues each column's close; the chunks come to the returned row
    /// group's slots.
    pub(super) fn close(self: &Arc<Self>) -> Closing {
        let mut slots = Vec::with_capacity(self.lanes.len());
        let mut ops = Vec::with_capacity(self.lanes.len());
        for (lane, leaf) in self.lanes.iter().zip(&self.leaves) {
            let slot = Arc::new(ChunkSlot::default());
            let filled = Arc::clone(&slot);
            let op: Op<Column> = Box::new(move |c: &mut Column| {
                // A failure stays with the column (what `check` reports);
                // the slot says where to look.
                let chunk = match (&c.error, c.writer.take()) {
                    (Some(_), _) => Err(failed_column(&c.name)),
                    (None, Some(writer)) => writer.close(),
                    (None, None) => Err(ParquetError::General("no column writer to close".into())),
                };
                let chunk = chunk.map_err(|e| {
                    c.fail(e);
                    failed_column(&c.name)
                });
                // The writer's memory becomes its chunk's, held by the slot.
                let memory = chunk.as_ref().map_or(0, ArrowColumnChunk::memory_size);
                let share = c.hand_over(memory);
                filled.fill(chunk, memory, share);
            });
            ops.push((lane, 0, 1, op));
            slots.push((*leaf, slot));
        }
        self.pool.push_all(ops);
        Closing {
            lanes: Arc::clone(self),
            slots,
        }
    }

    /// Waits (helping) until every lane is idle.
    pub(super) fn sync(&self) {
        self.pool
            .help_until(Take::Lightest, || self.lanes.iter().all(Lane::is_idle));
    }

    /// Waits (helping) until every lane has at most `bound` rows queued,
    /// or `ready` holds; whether it was `ready`.
    pub(super) fn throttle(&self, bound: usize, mut ready: impl FnMut() -> bool) -> bool {
        let under = || self.lanes.iter().all(|l| l.pending() <= bound);
        if under() {
            return false;
        }
        let mut was_ready = false;
        self.pool.help_until(Take::Lightest, || {
            was_ready = ready();
            was_ready || under()
        });
        was_ready
    }

    /// The first failure of a column (in leaf order), once the lanes are
    /// idle; `Ok` if none failed.
    pub(super) fn check(&self) -> Result<()> {
        if !self.failed.load(SeqCst) && self.lanes.iter().all(|l| l.panicked().is_none()) {
            return Ok(());
        }
        self.sync();
        for lane in &self.lanes {
            if let Some(message) = lane.panicked() {
                let name = lane.with(|c| c.name.clone()).unwrap_or_default();
                return Err(panicked(&format!("writing column {name}"), message));
            }
            if let Some(Some(e)) = lane.with(|c| c.error.take()) {
                return Err(e);
            }
        }
        Err(ParquetError::General("a column failed".into()))
    }

    /// Publishes each column's memory (once every lane is idle): when a
    /// listener is attached while the lanes hold column writers.
    pub(super) fn republish(&self) {
        self.sync();
        for lane in &self.lanes {
            lane.with(Column::publish);
        }
    }

    /// `f` over each idle lane's current column writer, summed (once every
    /// lane is idle).
    pub(super) fn sum(&self, f: impl Fn(&ArrowColumnWriter) -> usize) -> usize {
        self.sync();
        self.lanes
            .iter()
            .filter_map(|lane| lane.with(|c| c.writer.as_ref().map_or(0, &f)))
            .sum()
    }

    /// Ends the lanes (once idle): the current column writers, with their
    /// leaves, and the chunkers put back into `chunkers`.
    pub(super) fn take_writers(
        &self,
        chunkers: &mut Option<Vec<Option<Chunker>>>,
    ) -> Vec<(usize, ArrowColumnWriter)> {
        self.sync();
        let mut writers = Vec::with_capacity(self.lanes.len());
        for lane in &self.lanes {
            lane.with(|c| {
                if let Some(slot) = chunkers.as_mut().and_then(|s| s.get_mut(c.leaf)) {
                    *slot = c.chunker.take();
                }
                if let Some(writer) = c.writer.take() {
                    writers.push((c.leaf, writer));
                }
                c.publish();
            });
        }
        writers
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        // Work queued for a writer that is gone is not done.
        for lane in &self.lanes {
            lane.cancel();
        }
    }
}

/// What a closed slot says of a column that failed (its error is the
/// column's).
fn failed_column(name: &str) -> ParquetError {
    ParquetError::General(format!("column {name} failed"))
}

/// A leaf's write on its lane: skipped after a failure, timed into the
/// leaf's cost.
fn write_leaf(c: &mut Column, column: &ArrowLeafColumn, rows: usize, rows_left: Option<usize>) {
    if c.error.is_some() {
        return;
    }
    let Some(writer) = c.writer.as_mut() else {
        c.fail(ParquetError::General("no column writer to write".into()));
        return;
    };
    let start = Instant::now();
    let written = writer.write_checked(column, c.chunker.as_mut(), rows_left);
    fold_cost(&c.costs, c.leaf, start.elapsed(), rows);
    c.publish();
    if let Err(e) = written {
        c.fail(e);
    }
}
