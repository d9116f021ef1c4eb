//! The row-group writer as the [`ArrowWriter`](crate::ArrowWriter)'s
//! [`FileEncoder`]: writing, flushing a row group (its columns closed on the
//! pool with threads), the file's byte counts, footer and settings.

use super::{RowGroupWriter, parallel};
use crate::plan::ColumnPlan;
use crate::pool::Pool;
use crate::writer::engine::FileEncoder;
use arrow_array::RecordBatch;
use parquet::errors::Result;
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use std::io::Write;
use std::time::Duration;

impl<W: Write + Send> FileEncoder<W> for RowGroupWriter<W> {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.check_usable()?;
        self.validate(batch)?;
        self.write_pieces(batch)
    }

    fn flush(&mut self) -> Result<()> {
        self.check_usable()?;
        let Some(row_group) = self.in_progress.take() else {
            return Ok(());
        };
        if row_group.rows == 0 {
            // Writers created for a batch that then failed validation.
            return Ok(());
        }
        // Each chunk is spliced into the file as soon as it is closed.
        let sink = self.sink.get_mut();
        let appended = match &mut self.pool {
            Some(pool) => {
                sink.append_row_group(&mut parallel::close(pool, &self.factory, row_group.writers))
            }
            None => sink.append_row_group(
                &mut row_group
                    .writers
                    .into_iter()
                    .map(|(leaf, w)| Ok((leaf, w.close()?))),
            ),
        };
        self.poison(appended)
    }

    fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.sink.get().flushed_row_groups()
    }

    fn memory_size(&self) -> usize {
        let own = self.in_progress.as_ref().map_or(0, |rg| {
            rg.writers.iter().map(|(_, w)| w.memory_size()).sum()
        });
        own + self.sink.get().memory_size()
    }

    fn in_progress_size(&self) -> usize {
        self.estimated_bytes()
    }

    fn in_progress_rows(&self) -> usize {
        self.in_progress.as_ref().map_or(0, |rg| rg.rows)
    }

    fn bytes_written(&self) -> usize {
        self.sink.get().bytes_written()
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
        self.pool = (threads > 1).then(|| Pool::new(threads));
        // Compressed fast leaves compress their pages on the pool too (the
        // writers of a row group already open keep compressing their own).
        let helpers = match &mut self.pool {
            Some(pool) if self.factory.compresses_fast_leaves() => Some(pool.page_helpers()),
            _ => None,
        };
        self.factory.set_page_helpers(helpers);
        self.costs = match self.pool {
            Some(_) => {
                let leaves = self.factory.column_plan().leaves();
                leaves.iter().map(|l| l.cost_hint()).collect()
            }
            None => Vec::new(),
        };
    }

    fn set_min_parallel_work(&mut self, work: Duration) {
        self.min_parallel = u64::try_from(work.as_nanos()).unwrap_or(u64::MAX);
    }

    fn describe(&self, f: &mut std::fmt::DebugStruct<'_, '_>) {
        f.field("sink", self.sink.get())
            .field("threads", &self.threads())
            .field("writes_on_threads", &self.steps)
            .field(
                "pages_compressed_on_threads",
                &self.pool.as_ref().map_or((0, 0), Pool::page_counts),
            )
            .field("in_progress_rows", &self.in_progress_rows())
            .field("arrow_schema", &self.arrow_schema)
            .field("max_row_group_row_count", &self.max_rows)
            .field("max_row_group_bytes", &self.max_bytes);
    }
}
