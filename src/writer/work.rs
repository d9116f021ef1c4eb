//! Where a writer's work ran: [`ArrowWriter::thread_work`].

use super::ArrowWriter;
use std::io::Write;

/// Where a writer's work has run so far, on several threads
/// ([`ArrowWriter::with_threads`]); with one thread, everything is on the
/// calling thread. For tests and tuning: the file is the same whatever
/// these say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadWork {
    /// The threads the writer encodes on, the calling thread included.
    pub threads: usize,
    /// Writes whose columns were handed to the worker pool.
    pub writes_on_threads: usize,
    /// Writes kept on the calling thread (estimated work below
    /// [`ArrowWriter::with_min_parallel_work`], or one thread).
    pub writes_on_caller: usize,
    /// Column operations (a leaf's part of a write, a column's close) run
    /// by a worker thread.
    pub column_work_on_workers: usize,
    /// Column operations run by the writer's own thread.
    pub column_work_on_caller: usize,
    /// Pages of compressed columns handed to the pool to compress.
    pub pages_sent: usize,
    /// Of those, the pages a worker compressed (not the thread of the
    /// column that waited for them).
    pub pages_on_workers: usize,
}

/// The column chunks of one leaf that a writer has put into the file, by
/// the writer that encoded them ([`ArrowWriter::leaf_chunks`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeafChunks {
    /// Chunks encoded by this crate's writer.
    pub fast_path: usize,
    /// Chunks encoded by `parquet`'s own column writer.
    pub parquet_path: usize,
}

impl<W: Write + Send> ArrowWriter<W> {
    /// Where the writer's work has run so far (see [`ThreadWork`]).
    pub fn thread_work(&self) -> ThreadWork {
        self.engine.get().thread_work()
    }

    /// For each leaf (in [`Self::column_plan`]'s order), the column chunks
    /// put into the file so far and which writer encoded them: what ran,
    /// where the plan says what will. Leaves that `parquet`'s `ArrowWriter`
    /// writes as a whole (content-defined chunking with no leaf on the
    /// fast path, or the leaves an inner `parquet` writer takes under
    /// chunking) count no chunk here; a leaf past the end has none yet.
    pub fn leaf_chunks(&self) -> Vec<LeafChunks> {
        self.engine.get().leaf_chunks()
    }
}
