//! [`FileEncoder`]: what [`ArrowWriter`](crate::ArrowWriter) asks of the
//! engine behind it, and the engine that hands the whole file to
//! `parquet`'s `ArrowWriter` ([`ParquetFile`]).

use super::ArrowWriterOptions;
use crate::ArrowRowGroupWriterFactory;
use crate::compat::PageStoreFactory;
use crate::plan::ColumnPlan;
use crate::validate::validate_batch;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::writer::SerializedFileWriter;
use std::io::Write;
use std::sync::Arc;

/// The operations of [`ArrowWriter`](crate::ArrowWriter) that an engine
/// implements (the consuming ones are inherent methods of each engine).
pub(super) trait FileEncoder<W: Write>: Send {
    fn write(&mut self, batch: &RecordBatch) -> Result<()>;
    fn flush(&mut self) -> Result<()>;
    /// Finishes the work a write left running (a full row group not yet
    /// in the file), so that what the writer holds is what one thread
    /// would hold; see `ArrowWriter::with_memory_listener`.
    fn settle(&mut self) -> Result<()> {
        Ok(())
    }
    fn flushed_row_groups(&self) -> &[RowGroupMetaData];
    fn memory_size(&self) -> usize;
    /// The memory held outside the lanes (on one thread, all of it): with
    /// what the lanes published ([`Self::lane_memory`]), what the writer
    /// holds, read without waiting for work on other threads.
    fn memory_outside_lanes(&self) -> usize {
        self.memory_size()
    }
    /// The memory held on other threads (the lanes), as published (none
    /// on one thread).
    fn lane_memory(&self) -> Option<&std::sync::Arc<crate::memory::LaneMemory>> {
        None
    }
    /// Publishes what the lanes hold (once idle), after the lane memory's
    /// listener was attached.
    fn republish_lanes(&self) {}
    /// Waits (helping) until the lanes have done all their queued work.
    fn sync_lanes(&self) {}
    fn in_progress_size(&self) -> usize;
    fn in_progress_rows(&self) -> usize;
    fn bytes_written(&self) -> usize;
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()>;
    fn sync(&mut self) -> std::io::Result<()>;
    fn append_key_value_metadata(&mut self, kv: KeyValue);
    fn inner(&self) -> &W;
    fn inner_mut(&mut self) -> &mut W;
    fn finish(&mut self) -> Result<ParquetMetaData>;
    fn column_plan(&self) -> &ColumnPlan;
    /// Sets how many threads encode a row group's columns (1: the caller
    /// alone); an engine that cannot use more ignores it.
    fn set_threads(&mut self, threads: usize);
    /// Sets the least estimated work of a write that goes to the threads
    /// (see `ArrowWriter::with_min_parallel_work`).
    fn set_min_parallel_work(&mut self, work: std::time::Duration);
    /// Sets whether the fast leaves' column writers created from now on
    /// use the process-wide block cache.
    fn set_block_cache(&mut self, block_cache: bool);
    /// Adds the engine's state to the writer's `Debug` output.
    fn describe(&self, f: &mut std::fmt::DebugStruct<'_, '_>);
    /// Each leaf's chunks put into the file, by the writer that encoded
    /// them (an engine that leaves the file to `parquet`: none).
    fn leaf_chunks(&self) -> Vec<super::LeafChunks> {
        Vec::new()
    }
    /// Where the work has run (an engine on one thread: all on the caller).
    fn thread_work(&self) -> super::ThreadWork {
        super::ThreadWork {
            threads: 1,
            ..Default::default()
        }
    }
}

/// The whole file through `parquet`'s `ArrowWriter`: content-defined
/// chunking with no leaf on the fast path (see
/// [`FileRoute::Parquet`](crate::plan::FileRoute::Parquet)).
pub(super) struct ParquetFile<W: Write> {
    writer: upstream::ArrowWriter<W>,
    arrow_schema: SchemaRef,
    page_stores: Option<Arc<dyn PageStoreFactory>>,
    plan: ColumnPlan,
    /// For the factory of `into_serialized_writer`.
    block_cache: bool,
    /// The error of a panic of `parquet`'s writer (its state is unknown
    /// after one: every later call fails with it).
    broken: Option<String>,
    /// The writer's properties (to find which column panicked).
    props: parquet::file::properties::WriterProperties,
}

impl<W: Write + Send> ParquetFile<W> {
    pub(super) fn try_new(
        out: W,
        arrow_schema: SchemaRef,
        options: ArrowWriterOptions,
        plan: ColumnPlan,
    ) -> Result<Self> {
        let page_stores = options.page_store_factory.clone();
        let block_cache = options.block_cache();
        let props = options.properties.clone();
        let schema = arrow_schema.clone();
        let writer =
            upstream::ArrowWriter::try_new_with_options(out, schema, options.into_upstream())?;
        Ok(Self {
            writer,
            arrow_schema,
            page_stores,
            plan,
            block_cache,
            broken: None,
            props,
        })
    }

    /// Runs `f` on `parquet`'s writer: a panic (`parquet` panics on some
    /// inputs it accepts) is an error naming the file's columns, and
    /// breaks the writer.
    /// After a panic writing `batch`, the column is the first field that
    /// panics alone (else every column is named).
    fn run<T>(
        &mut self,
        doing: &str,
        batch: Option<&RecordBatch>,
        f: impl FnOnce(&mut upstream::ArrowWriter<W>) -> Result<T>,
    ) -> Result<T> {
        if let Some(e) = &self.broken {
            return Err(ParquetError::General(e.clone()));
        }
        let writer = &mut self.writer;
        match crate::pool::run_caught(|| f(writer)) {
            Ok(result) => result,
            Err(message) => {
                let column = batch.and_then(|b| crate::column::panicking_field(b, &self.props));
                let column = column.unwrap_or_else(|| {
                    let leaves = self.plan.leaves().iter();
                    let all: Vec<String> = leaves.map(|l| l.column_path().string()).collect();
                    all.join("', '")
                });
                let e = crate::column::panic_error(&column, doing, &message);
                self.broken = Some(e.to_string());
                Err(e)
            }
        }
    }

    pub(super) fn into_inner(mut self) -> Result<W> {
        // The row group in progress is flushed first, panics contained.
        self.run("flushing a row group", None, |w| w.flush())?;
        self.writer.into_inner()
    }

    pub(super) fn into_serialized_writer(
        self,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        let (writer, _) = self.writer.into_serialized_writer()?;
        let mut factory = ArrowRowGroupWriterFactory::new(&writer, self.arrow_schema)
            .with_block_cache(self.block_cache);
        if let Some(f) = self.page_stores {
            factory = factory.with_page_stores(f);
        }
        Ok((writer, factory))
    }
}

impl<W: Write + Send> FileEncoder<W> for ParquetFile<W> {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() > 0 {
            self.plan.check_writable()?;
            validate_batch(&self.arrow_schema, batch, |_| false)?;
        }
        self.run("writing", Some(batch), |w| w.write(batch))
    }

    fn flush(&mut self) -> Result<()> {
        self.run("flushing a row group", None, |w| w.flush())
    }

    fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.writer.flushed_row_groups()
    }

    fn memory_size(&self) -> usize {
        self.writer.memory_size()
    }

    fn in_progress_size(&self) -> usize {
        self.writer.in_progress_size()
    }

    fn in_progress_rows(&self) -> usize {
        self.writer.in_progress_rows()
    }

    fn bytes_written(&self) -> usize {
        self.writer.bytes_written()
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(buf)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        self.writer.sync()
    }

    fn append_key_value_metadata(&mut self, kv: KeyValue) {
        self.writer.append_key_value_metadata(kv)
    }

    fn inner(&self) -> &W {
        self.writer.inner()
    }

    fn inner_mut(&mut self) -> &mut W {
        self.writer.inner_mut()
    }

    fn finish(&mut self) -> Result<ParquetMetaData> {
        self.run("finishing", None, |w| w.finish())
    }

    fn column_plan(&self) -> &ColumnPlan {
        &self.plan
    }

    /// `parquet`'s `ArrowWriter` encodes on the calling thread.
    fn set_threads(&mut self, _threads: usize) {}

    fn set_min_parallel_work(&mut self, _work: std::time::Duration) {}

    /// `parquet`'s writer keeps no blocks; the setting is kept for
    /// `into_serialized_writer`'s factory.
    fn set_block_cache(&mut self, block_cache: bool) {
        self.block_cache = block_cache;
    }

    fn describe(&self, f: &mut std::fmt::DebugStruct<'_, '_>) {
        f.field("parquet", &self.writer);
    }
}
