//! [`ArrowWriter`], drop-in for `parquet::arrow::ArrowWriter`.
//!
//! The writer picks an engine from the file's [`ColumnPlan`]: the row-group
//! loop ([`row_groups`]), which encodes each row group column by column and
//! hands the chunks to a [`RowGroupSink`](crate::sink::RowGroupSink), or,
//! with content-defined chunking and no leaf on the fast path, `parquet`'s
//! own `ArrowWriter` ([`engine::ParquetFile`]). Memory reservations wrap
//! either.

mod engine;
mod options;
mod record_batch_writer;
mod reserving;
mod row_groups;
mod work;

pub use options::ArrowWriterOptions;
pub use work::{LeafChunks, ThreadWork};

use crate::ArrowRowGroupWriterFactory;
use crate::memory::{DEFAULT_RESERVATION_BLOCK, Reservation};
use crate::plan::{ColumnPlan, FileRoute};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use engine::{FileEncoder, ParquetFile};
use parquet::errors::Result;
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use row_groups::RowGroupWriter;
use std::io::Write;

/// Encodes [`RecordBatch`]es to Parquet, byte-for-byte as
/// `parquet::arrow::ArrowWriter` does, with a fast FIXED_LEN_BYTE_ARRAY path.
///
/// Switching is a one-line change:
/// `use parquet::arrow::ArrowWriter` → `use parquet_flba::ArrowWriter`.
/// [`Self::column_plan`] tells which leaves take the fast path.
///
/// ```
/// # use parquet_flba::{arrow_array, arrow_schema, parquet};
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Decimal128Array, RecordBatch};
/// use parquet_flba::ArrowWriter;
///
/// let prices = Decimal128Array::from(vec![12_345, -6_789, 0])
///     .with_precision_and_scale(38, 10)
///     .unwrap();
/// let batch = RecordBatch::try_from_iter([("price", Arc::new(prices) as ArrayRef)]).unwrap();
///
/// let mut buffer = Vec::new();
/// let mut writer = ArrowWriter::try_new(&mut buffer, batch.schema(), None).unwrap();
/// writer.write(&batch).unwrap();
/// writer.close().unwrap();
/// ```
///
/// # Differences from `parquet`
///
/// * A decimal whose value does not fit the column's FIXED_LEN_BYTE_ARRAY
///   width (outside its declared precision by enough to overflow the width)
///   makes [`Self::write`] fail with an error naming the column and row;
///   `parquet` would silently write a truncated, wrong value.
/// * A failed [`Self::write`] leaves the writer as it was before the call:
///   batches are validated (column count, types, nulls in non-nullable
///   fields, decimal widths) before any row is buffered.
pub struct ArrowWriter<W: Write> {
    engine: Engine<W>,
    /// Memory reserved from a [`MemoryListener`](crate::MemoryListener), if one is attached.
    reservation: Option<Reservation>,
    /// Its block size, also when set before the listener.
    reservation_block: usize,
    /// A refusal met after a call had done its work, for the next call
    /// to report (see [`reserving`]).
    carried: Option<crate::memory::Refusal>,
}

/// The engine behind the writer.
enum Engine<W: Write> {
    /// This crate's row-group loop.
    RowGroups(Box<RowGroupWriter<W>>),
    /// `parquet`'s `ArrowWriter`, for the whole file.
    Parquet(Box<ParquetFile<W>>),
}

impl<W: Write + Send> Engine<W> {
    fn get(&self) -> &dyn FileEncoder<W> {
        match self {
            Engine::RowGroups(e) => e.as_ref(),
            Engine::Parquet(e) => e.as_ref(),
        }
    }

    fn get_mut(&mut self) -> &mut dyn FileEncoder<W> {
        match self {
            Engine::RowGroups(e) => e.as_mut(),
            Engine::Parquet(e) => e.as_mut(),
        }
    }
}

impl<W: Write + Send> std::fmt::Debug for ArrowWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("ArrowWriter");
        self.engine.get().describe(&mut s);
        s.field("in_progress_size", &self.in_progress_size())
            .field("reserved_memory", &self.reserved_memory())
            .finish()
    }
}

impl<W: Write + Send> ArrowWriter<W> {
    /// Creates a writer over `output` with the given properties (the
    /// default ones if `None`).
    ///
    /// Column chunks reach `output` in writes of at most 8 KiB (through
    /// `SerializedRowGroupWriter::append_column`, as parquet 58's own
    /// writer does): where each write is a system call (a `File`, a
    /// socket), wrap `output` in a [`BufWriter`](std::io::BufWriter) of a
    /// MiB or so, and flush it after [`Self::finish`] so that a failure is
    /// seen (the README's "Writing to a file" has the figures).
    pub fn try_new(output: W, schema: SchemaRef, props: Option<WriterProperties>) -> Result<Self> {
        let options = props
            .map(|p| ArrowWriterOptions::new().with_properties(p))
            .unwrap_or_default();
        Self::try_new_with_options(output, schema, options)
    }

    /// Creates a writer over `output` with [`ArrowWriterOptions`]; the
    /// file's [`ColumnPlan`] picks the engine.
    pub fn try_new_with_options(
        output: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self> {
        let parquet = options.parquet_schema(&schema)?;
        let plan = ColumnPlan::for_file(&schema, &parquet, &options.properties);
        let engine = match plan.file_route() {
            FileRoute::Parquet => Engine::Parquet(Box::new(ParquetFile::try_new(
                output, schema, options, plan,
            )?)),
            route => Engine::RowGroups(Box::new(RowGroupWriter::open(
                output, schema, options, parquet, plan, route,
            )?)),
        };
        Ok(Self {
            engine,
            reservation: None,
            reservation_block: DEFAULT_RESERVATION_BLOCK,
            carried: None,
        })
    }

    /// Which writer encodes each leaf column, and why: see [`ColumnPlan`].
    pub fn column_plan(&self) -> &ColumnPlan {
        self.engine.get().column_plan()
    }

    /// Metadata of the row groups flushed so far.
    pub fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.engine.get().flushed_row_groups()
    }

    /// Estimated memory held by the writer, in bytes: the sum of
    /// [`ArrowColumnWriter::memory_size`](crate::ArrowColumnWriter::memory_size)
    /// over the in-progress row group.
    pub fn memory_size(&self) -> usize {
        self.engine.get().memory_size()
    }

    /// Estimated encoded size of the in-progress row group, in bytes (equal
    /// to `parquet`'s estimate).
    pub fn in_progress_size(&self) -> usize {
        self.engine.get().in_progress_size()
    }

    /// Number of rows buffered in the in-progress row group.
    pub fn in_progress_rows(&self) -> usize {
        self.engine.get().in_progress_rows()
    }

    /// Number of bytes written to the underlying writer so far.
    pub fn bytes_written(&self) -> usize {
        self.engine.get().bytes_written()
    }

    /// Encodes `batch`, splitting it across row groups when it would exceed
    /// `max_row_group_row_count` rows or `max_row_group_bytes` estimated bytes.
    ///
    /// The batch is validated first; on error nothing of it is written and
    /// the writer can be used as before.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.reserve_for(batch)?;
        let written = self.engine.get_mut().write(batch);
        self.settle_after_write(written)
    }

    /// Finishes what a write left running (a full row group not yet in
    /// the output), so the output holds every full row group.
    #[cfg(feature = "async")]
    pub(crate) fn settle(&mut self) -> Result<()> {
        self.engine.get_mut().settle()
    }

    /// Writes `buf` to the underlying writer, through its byte counter.
    pub fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.engine.get_mut().write_all(buf)
    }

    /// Flushes the underlying writer.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.engine.get_mut().sync()
    }

    /// Flushes all buffered rows into a new row group.
    pub fn flush(&mut self) -> Result<()> {
        self.report_refusals(reserving::FLUSH, true)?;
        let flushed = self.engine.get_mut().flush();
        self.settle_reservation();
        flushed
    }

    /// Encodes the column chunks of each row group on up to `threads`
    /// threads, the calling thread included: `threads` 1 (the default)
    /// encodes on the calling thread alone, exactly as before; 0 counts
    /// as 1, and a count above 65,536 as 65,536 (the pool's cap, below,
    /// bounds the threads anyway). The file is byte-identical whatever the
    /// number of threads.
    ///
    /// The other threads are the process's worker pool, shared by every
    /// writer ([`set_worker_threads`](crate::set_worker_threads) caps it;
    /// by default as many workers as the machine has cores): this writer
    /// uses at most `threads - 1` of them at once. Workers are started on
    /// first use and kept for the process; dropping a writer waits for
    /// nothing. If one cannot be started, fewer threads do the same work.
    ///
    /// # How the work is shared
    ///
    /// Each leaf column of a row group has a lane: the column writer and
    /// the work queued for it, done in order by whichever thread is free.
    /// A [`write`](Self::write) checks the batch (its fields' checks on the
    /// threads too, and the write waits for them: bad input fails its own
    /// write), queues each column's part on its lane and returns without
    /// waiting for the encoding, so the next batches' work queues behind
    /// it and the threads stay busy from one write to the next; a write
    /// waits (and encodes too) only while the lanes hold more than about a
    /// quarter of a row group (with a [`MemoryListener`](crate::MemoryListener),
    /// while they hold more than its own work: the batches kept alive for
    /// queued work are few, and reserved). A full row group's columns are closed on
    /// their lanes, and its chunks are copied into the output, in schema
    /// order, by the calling thread during a later call, while the next
    /// row group's columns (on lanes of their own) are encoded: row groups
    /// overlap. Every column writer gets the same input in the same order
    /// as with one thread and no state is shared between columns, so
    /// nothing about the bytes depends on which thread ran what.
    ///
    /// [`flush`](Self::flush), [`finish`](Self::finish),
    /// [`close`](Self::close), [`into_inner`](Self::into_inner) and
    /// [`inner_mut`](Self::inner_mut) finish everything queued before they
    /// return. [`in_progress_size`](Self::in_progress_size),
    /// [`memory_size`](Self::memory_size) and
    /// [`bytes_written`](Self::bytes_written) wait for the lanes, and give
    /// what one thread gives, except that a full row group not yet copied
    /// out counts in `memory_size` (its chunks are held) and already in
    /// `bytes_written` (its bytes are final); [`flushed_row_groups`](Self::flushed_row_groups)
    /// and [`inner`](Self::inner) show it only once it is copied out (by
    /// the first write after its columns are closed, at the latest when
    /// the next row group fills or the writer is flushed). With a
    /// [`MemoryListener`](crate::MemoryListener), each write also copies out a full row group
    /// before it returns, and reserves without waiting for the lanes: from
    /// what each column published after its last operation (with the
    /// chunks waiting to be spliced and the batches whose work is queued),
    /// plus the batch; a column that comes to hold more than the
    /// reservation leaves for the lanes reserves the rest from the
    /// listener itself, so the reservation covers
    /// [`memory_size`](Self::memory_size) at all times (a refusal met
    /// there fails the next `write`, `flush` or `finish`, before it does
    /// anything; `flush` and `finish` wait for the queued work first).
    ///
    /// # When it pays
    ///
    /// A row group's columns are encoded side by side, and the next row
    /// group's columns start while the last one's finish; within one
    /// column, only page compression is shared out (below). The wall time
    /// is therefore at least that of the most expensive column of a row
    /// group (over all row groups in flight), and at least what stays on
    /// the calling thread: checking the batch, splitting it into leaves,
    /// and copying every chunk into the output, which a many-core machine
    /// with many columns ends up waiting for. A busy machine may not give
    /// the workers a core, in which case they only add their hand-over
    /// cost. `docs/threads.md` has measurements.
    ///
    /// Compressed columns also compress their data pages on the pool: each
    /// page is handed to a worker when it is cut, while its column goes on
    /// (up to `2 × threads − 1` pages of a column out at once, at most 8; a
    /// thread that needs a page back compresses queued pages itself
    /// meanwhile). Pages are stored in order, so the bytes are the same.
    /// Uncompressed pages, and the dictionary page, are not handed out
    /// (there is nothing to overlap). A file that `parquet`'s own
    /// `ArrowWriter` writes whole (content-defined chunking where no leaf is
    /// on the fast path) ignores this setting. With content-defined
    /// chunking on a table mixing fast and `parquet` leaves, the inner
    /// `parquet` writer runs on the calling thread while the lanes encode
    /// the fast leaves, and row groups do not overlap.
    ///
    /// # Errors and memory
    ///
    /// Invalid input is found before anything of the batch is buffered, as
    /// with one thread (the first error in column order is returned), and
    /// the writer stays usable. A failure while encoding (a page store that
    /// cannot store a page, say) leaves the writer unable to continue, as
    /// with one thread; on several threads it is returned by the writer's
    /// next call (a later `write`, or the `flush` or `close`), since the
    /// write that queued the work has returned. A panic while a column is
    /// encoded is returned as
    /// [`ParquetError::General`](parquet::errors::ParquetError::General)
    /// naming the column, on any number of threads (one included), with
    /// the same effect. Besides what is said above of a row group not yet
    /// copied out, [`Self::memory_size`] and memory reservations count the
    /// same buffers as with one thread, except that a compressed column
    /// keeps the buffers its pages were compressed in on the pool (for
    /// each page out at once: a copy of its levels, a copy of the page, an
    /// output buffer with room for the most its codec can make of it, and
    /// a codec; all counted); columns encoded at the same time also hold
    /// their scratch space at the same time, and the batches whose work is
    /// queued are kept alive until it is done (reserved, not counted in
    /// `memory_size`, which waits for that work).
    /// Page stores are created as before (in file order, on the calling
    /// thread) and then used from the worker threads.
    pub fn with_threads(mut self, threads: usize) -> Self {
        let threads = crate::pool::clamp_threads(threads);
        self.engine.get_mut().set_threads(threads);
        self
    }

    /// With [`Self::with_threads`]: the least work a write must bring for
    /// its columns to be handed to the threads; a smaller write (a batch of
    /// a few hundred narrow rows, say) is encoded on the calling thread,
    /// column after column, once the work queued before it is done,
    /// because handing its columns out would cost more than it saves.
    /// Default: 50 µs.
    ///
    /// The work is estimated per write from each column's cost per row,
    /// first guessed from its type (about 2 value bytes per nanosecond on
    /// the fast path) and then measured on every write, wherever it runs.
    /// It never changes the bytes written: only which thread writes.
    /// `Duration::ZERO` hands every write to the threads;
    /// `Duration::MAX` keeps every write on the calling thread (pages are
    /// still compressed on the threads, and a row group's columns still
    /// closed there, while the next row group's writes go on).
    pub fn with_min_parallel_work(mut self, work: std::time::Duration) -> Self {
        self.engine.get_mut().set_min_parallel_work(work);
        self
    }

    /// Adds key-value metadata to the file footer.
    pub fn append_key_value_metadata(&mut self, kv_metadata: KeyValue) {
        self.engine.get_mut().append_key_value_metadata(kv_metadata)
    }

    /// The underlying writer.
    pub fn inner(&self) -> &W {
        self.engine.get().inner()
    }

    /// The underlying writer, mutably. Writing to it directly corrupts the
    /// file; use [`Self::write_all`].
    pub fn inner_mut(&mut self) -> &mut W {
        self.engine.get_mut().inner_mut()
    }

    /// Flushes buffered rows, writes the footer and returns the underlying
    /// writer.
    pub fn into_inner(self) -> Result<W> {
        match self.engine {
            Engine::RowGroups(e) => e.into_inner(),
            Engine::Parquet(e) => e.into_inner(),
        }
    }

    /// Flushes buffered rows and writes the footer, without consuming the
    /// writer. Writing afterwards is an error.
    pub fn finish(&mut self) -> Result<ParquetMetaData> {
        self.report_refusals(reserving::FINISH, true)?;
        let finished = self.engine.get_mut().finish();
        match &finished {
            Ok(_) => self.release_reservation(),
            // What is still held stays reserved.
            Err(_) => self.settle_reservation(),
        }
        finished
    }

    /// Flushes buffered rows, writes the footer and closes the writer.
    pub fn close(mut self) -> Result<ParquetMetaData> {
        self.finish()
    }

    /// Flushes buffered rows and splits the writer into the file writer and
    /// the row-group factory, to continue at the column level (e.g. encoding
    /// columns in parallel).
    ///
    /// # Errors
    ///
    /// With content-defined chunking on a schema that mixes leaves on the
    /// fast path with leaves `parquet` writes, rows already written are held
    /// partly by an inner `parquet` writer whose footer data cannot be handed
    /// to a [`SerializedFileWriter`]: this returns
    /// [`ParquetError::NYI`](parquet::errors::ParquetError::NYI) once any row
    /// was written (before, it works as in `parquet`).
    pub fn into_serialized_writer(
        self,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        match self.engine {
            Engine::RowGroups(e) => e.into_serialized_writer(),
            Engine::Parquet(e) => e.into_serialized_writer(),
        }
    }
}
