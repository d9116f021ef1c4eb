//! The row-group writer as the [`ArrowWriter`](crate::ArrowWriter)'s
//! [`FileEncoder`]: writing, flushing a row group (its columns closed on
//! their lanes with threads), the file's byte counts, footer and settings.

use super::RowGroupWriter;
use super::lanes::Lanes;
use super::parallel::column_name;
use crate::plan::ColumnPlan;
use crate::pool::Pool;
use crate::writer::engine::FileEncoder;
use crate::writer::{LeafChunks, ThreadWork};
use arrow_array::RecordBatch;
use parquet::errors::Result;
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

impl<W: Write + Send> FileEncoder<W> for RowGroupWriter<W> {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.check_usable()?;
        self.check_lanes()?;
        self.validate(batch)?;
        let written = self.write_pieces(batch);
        // The batch's share stays with the work queued for it.
        self.queued_batch = None;
        written?;
        self.throttle(batch.num_rows())
    }

    fn flush(&mut self) -> Result<()> {
        self.check_usable()?;
        self.check_lanes()?;
        self.end_row_group(false)?;
        self.check_lanes()
    }

    fn settle(&mut self) -> Result<()> {
        self.check_usable()?;
        self.check_lanes()?;
        self.splice_waiting()
    }

    fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.sink.get().flushed_row_groups()
    }

    fn memory_size(&self) -> usize {
        let own = self.in_progress.as_ref().map_or(0, |rg| {
            rg.writers.iter().map(|(_, w)| w.memory_size()).sum()
        });
        own + self.memory_on_lanes() + self.sink.get().memory_size()
    }

    fn memory_outside_lanes(&self) -> usize {
        let own: usize = self.in_progress.as_ref().map_or(0, |rg| {
            rg.writers.iter().map(|(_, w)| w.memory_size()).sum()
        });
        own + self.sink.get().memory_size()
    }

    fn lane_memory(&self) -> Option<&Arc<crate::memory::LaneMemory>> {
        // Once attached, the lanes' reservations are accounted for even
        // after the writer went back to one thread.
        let used = self.pool.is_some() || self.lane_memory.tracking();
        used.then_some(&self.lane_memory)
    }

    fn republish_lanes(&self) {
        self.republish_on_lanes();
    }

    fn sync_lanes(&self) {
        self.wait_for_lanes();
    }

    fn in_progress_size(&self) -> usize {
        self.estimated_bytes()
    }

    fn in_progress_rows(&self) -> usize {
        self.in_progress.as_ref().map_or(0, |rg| rg.rows)
    }

    fn bytes_written(&self) -> usize {
        // A full row group waiting to be spliced counts as written (its
        // chunks' bytes are final once they are in), as with one thread.
        let waiting = self
            .closing
            .as_ref()
            .map_or(0, |c| c.bytes(self.bloom_after_row_group));
        self.sink.get().bytes_written() + waiting
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.sink.get_mut().write_all(buf)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        self.sink.get_mut().flush()
    }

    fn append_key_value_metadata(&mut self, kv: KeyValue) {
        self.sink.get_mut().append_key_value_metadata(kv)
    }

    fn inner(&self) -> &W {
        self.sink.get().inner()
    }

    fn inner_mut(&mut self) -> &mut W {
        // What a full row group left to splice goes in first (a failure
        // poisons the writer, and shows at its next call).
        let _ = self.splice_waiting();
        self.sink.get_mut().inner_mut()
    }

    fn finish(&mut self) -> Result<ParquetMetaData> {
        FileEncoder::flush(self)?;
        self.sink.get_mut().finish()
    }

    fn column_plan(&self) -> &ColumnPlan {
        self.factory.column_plan()
    }

    fn set_threads(&mut self, threads: usize) {
        // The lanes' column writers come back to the row group in progress
        // (a failure poisons the writer).
        if self.lanes.is_some() {
            let left = self.leave_lanes();
            let _ = self.poison(left);
        }
        self.pool = (threads > 1).then(|| Pool::new(threads));
        // Compressed fast leaves compress their pages on the pool too (the
        // writers of a row group already open keep compressing their own),
        // when there are fewer columns than threads: with as many, the
        // columns keep the threads busy, and handing a page out costs two
        // more copies of it (into the job's buffer, and back).
        let columns = self.factory.column_plan().leaves().len();
        let helpers = match &mut self.pool {
            Some(pool) if self.factory.compresses_fast_leaves() && columns < threads => {
                Some(pool.page_helpers())
            }
            _ => None,
        };
        self.factory.set_page_helpers(helpers);
        self.costs = match self.pool {
            Some(_) => {
                let leaves = self.factory.column_plan().leaves();
                leaves
                    .iter()
                    .map(|l| AtomicU64::new(l.cost_hint()))
                    .collect()
            }
            None => Arc::new([]),
        };
        // A row group in progress goes on on the lanes.
        let writers = match (&self.pool, &mut self.in_progress) {
            (Some(_), Some(row_group)) => std::mem::take(&mut row_group.writers),
            _ => Vec::new(),
        };
        if let (Some(pool), false) = (&self.pool, writers.is_empty()) {
            let factory = &self.factory;
            let name = |leaf| column_name(factory, leaf);
            let first = self.lanes_made;
            self.lanes_made += writers.len();
            let lanes = Lanes::new(
                pool.clone(),
                first,
                writers,
                &mut self.chunkers,
                (self.costs.clone(), &self.lane_memory),
                name,
            );
            self.lanes = Some(Arc::new(lanes));
        }
    }

    fn leaf_chunks(&self) -> Vec<LeafChunks> {
        self.leaf_chunks.clone()
    }

    fn thread_work(&self) -> ThreadWork {
        let (workers, caller) = self.pool.as_ref().map_or((0, 0), Pool::lane_counts);
        let (pages_sent, pages_on_workers) = self.pool.as_ref().map_or((0, 0), Pool::page_counts);
        ThreadWork {
            threads: self.threads(),
            writes_on_threads: self.steps.0,
            writes_on_caller: self.steps.1,
            column_work_on_workers: workers,
            column_work_on_caller: caller,
            pages_sent,
            pages_on_workers,
        }
    }

    fn set_min_parallel_work(&mut self, work: Duration) {
        self.min_parallel = u64::try_from(work.as_nanos()).unwrap_or(u64::MAX);
    }

    fn set_block_cache(&mut self, block_cache: bool) {
        self.factory.set_block_cache(block_cache);
    }

    fn describe(&self, f: &mut std::fmt::DebugStruct<'_, '_>) {
        f.field("sink", self.sink.get())
            .field("thread_work", &self.thread_work())
            .field("in_progress_rows", &self.in_progress_rows())
            .field("arrow_schema", &self.arrow_schema)
            .field("max_row_group_row_count", &self.max_rows)
            .field("max_row_group_bytes", &self.max_bytes);
    }
}
