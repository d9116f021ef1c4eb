//! The column-level API, drop-in for `parquet::arrow::arrow_writer`'s:
//! [`compute_leaves`] → [`ArrowLeafColumn`] → [`ArrowColumnWriter`] →
//! [`ArrowColumnChunk`] → [`ArrowColumnChunk::append_to_row_group`].
//!
//! Each writer and chunk is either this crate's FIXED_LEN_BYTE_ARRAY
//! implementation or a thin wrapper around `parquet`'s own, as the
//! [`ColumnPlan`](crate::ColumnPlan) of the
//! [`ArrowRowGroupWriterFactory`](crate::ArrowRowGroupWriterFactory) that
//! created it routes the leaf.

mod delegated;
mod leaves;

pub(crate) use delegated::{Delegated, panic_error, panicking_field};

pub use leaves::{ArrowLeafColumn, compute_leaves};
pub(crate) use leaves::{planned_leaves, writes_flat};

use crate::cdc::Chunker;
use crate::chunk::FlbaChunk;
use crate::leaf::FlbaColumnWriter;
use parquet::arrow::arrow_writer as upstream;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::writer::SerializedRowGroupWriter;
use std::io::Write;

/// Encodes [`ArrowLeafColumn`]s into an [`ArrowColumnChunk`].
///
/// A panic of `parquet`'s own writer (of a leaf this crate delegates) is
/// an error naming the column, after which that writer fails every call.
///
/// Same as `parquet::arrow::arrow_writer::ArrowColumnWriter`; create them with
/// [`ArrowRowGroupWriterFactory::create_column_writers`](crate::ArrowRowGroupWriterFactory::create_column_writers).
/// Each writer is `Send` and can run on its own thread.
///
/// # Example: encoding columns in parallel
/// ```
/// # use parquet_flba::{arrow_array, arrow_schema, parquet};
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Decimal128Array, Int64Array};
/// # use arrow_schema::{DataType, Field, Schema};
/// # use parquet::arrow::ArrowSchemaConverter;
/// # use parquet::file::properties::WriterProperties;
/// # use parquet::file::writer::SerializedFileWriter;
/// use parquet_flba::{compute_leaves, ArrowRowGroupWriterFactory};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("price", DataType::Decimal128(38, 10), false),
///     Field::new("ts", DataType::Int64, false),
/// ]));
/// let props = Arc::new(WriterProperties::default());
/// let parquet_schema = ArrowSchemaConverter::new().convert(&schema).unwrap();
/// let mut out = Vec::new();
/// let mut writer =
///     SerializedFileWriter::new(&mut out, parquet_schema.root_schema_ptr(), props).unwrap();
/// let factory = ArrowRowGroupWriterFactory::new(&writer, schema.clone());
///
/// let columns: Vec<ArrayRef> = vec![
///     Arc::new(Decimal128Array::from(vec![1, 2, 3]).with_precision_and_scale(38, 10).unwrap()),
///     Arc::new(Int64Array::from(vec![10, 20, 30])),
/// ];
/// let handles: Vec<_> = factory
///     .create_column_writers(0)
///     .unwrap()
///     .into_iter()
///     .zip(schema.fields().iter().zip(columns))
///     .map(|(mut col_writer, (field, array))| {
///         let field = field.clone();
///         std::thread::spawn(move || {
///             for leaf in compute_leaves(&field, &array)? {
///                 col_writer.write(&leaf)?;
///             }
///             col_writer.close()
///         })
///     })
///     .collect();
/// let mut row_group = writer.next_row_group().unwrap();
/// for handle in handles {
///     handle.join().unwrap().unwrap().append_to_row_group(&mut row_group).unwrap();
/// }
/// row_group.close().unwrap();
/// writer.close().unwrap();
/// ```
pub struct ArrowColumnWriter(pub(crate) WriterInner);

#[allow(
    clippy::large_enum_variant,
    reason = "one writer per leaf per row group; boxing parquet's writer would only add an allocation"
)]
pub(crate) enum WriterInner {
    Flba(Box<FlbaColumnWriter>),
    Parquet(Delegated),
}

impl std::fmt::Debug for ArrowColumnWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            WriterInner::Flba(w) => f.debug_tuple("ArrowColumnWriter").field(w).finish(),
            WriterInner::Parquet(w) => f.debug_tuple("ArrowColumnWriter").field(w).finish(),
        }
    }
}

impl ArrowColumnWriter {
    /// Writes an [`ArrowLeafColumn`].
    ///
    /// On error nothing of the leaf is buffered by a FIXED_LEN_BYTE_ARRAY
    /// writer: a leaf is validated (types, nulls in required fields, decimals
    /// that do not fit the column) before any of it is encoded.
    pub fn write(&mut self, col: &ArrowLeafColumn) -> Result<()> {
        match &mut self.0 {
            WriterInner::Flba(w) => col.write_fast(w, None, false),
            WriterInner::Parquet(w) => {
                col.validate_for_parquet()?;
                col.with_parquet_leaf(|leaf| w.write(leaf))
            }
        }
    }

    /// Writes a leaf of a batch that was validated as a whole; with a
    /// chunker (fast writers only), in content-defined chunks. The chunk
    /// takes at most `rows_left` more rows, this write's included (`None`:
    /// unknown; a hint for sizing page buffers).
    pub(crate) fn write_checked(
        &mut self,
        col: &ArrowLeafColumn,
        chunker: Option<&mut Chunker>,
        rows_left: Option<usize>,
    ) -> Result<()> {
        match (&mut self.0, chunker) {
            (WriterInner::Flba(w), chunker) => {
                w.set_rows_left(rows_left);
                col.write_fast(w, chunker, true)
            }
            (WriterInner::Parquet(w), None) => col.with_parquet_leaf(|leaf| w.write(leaf)),
            (WriterInner::Parquet(_), Some(_)) => Err(ParquetError::General(
                "content-defined chunking is only applied by this crate's writers".into(),
            )),
        }
    }

    /// Which writer this is: this crate's (`LeafPath::Fast`) or
    /// `parquet`'s own column writer (see [`crate::ColumnPlan`]).
    pub fn path(&self) -> crate::LeafPath {
        match &self.0 {
            WriterInner::Flba(_) => crate::LeafPath::Fast,
            WriterInner::Parquet(_) => crate::LeafPath::Parquet,
        }
    }

    /// Closes this column, returning the written [`ArrowColumnChunk`].
    pub fn close(self) -> Result<ArrowColumnChunk> {
        Ok(ArrowColumnChunk(match self.0 {
            WriterInner::Flba(w) => ChunkInner::Flba(w.close()?),
            WriterInner::Parquet(w) => ChunkInner::Parquet(w.close()?),
        }))
    }

    /// Estimated memory held by the writer, in bytes.
    ///
    /// This includes buffered pages, encoder buffers, the dictionary and the
    /// bloom filter.
    pub fn memory_size(&self) -> usize {
        match &self.0 {
            WriterInner::Flba(w) => w.memory_size(),
            WriterInner::Parquet(w) => w.memory_size(),
        }
    }

    /// Estimated encoded size of the column chunk so far, in bytes.
    ///
    /// Equal to `parquet`'s estimate for the same data, since row-group
    /// splitting by `max_row_group_bytes` depends on it.
    pub fn get_estimated_total_bytes(&self) -> usize {
        match &self.0 {
            WriterInner::Flba(w) => w.estimated_total_bytes(),
            WriterInner::Parquet(w) => w.get_estimated_total_bytes(),
        }
    }
}

/// The encoded data of one column chunk, see [`ArrowColumnWriter`].
pub struct ArrowColumnChunk(ChunkInner);

enum ChunkInner {
    Flba(FlbaChunk),
    Parquet(upstream::ArrowColumnChunk),
}

impl std::fmt::Debug for ArrowColumnChunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowColumnChunk")
            .field("close", self.close())
            .finish_non_exhaustive()
    }
}

impl ArrowColumnChunk {
    /// Which writer encoded this chunk: this crate's (`LeafPath::Fast`) or
    /// `parquet`'s own column writer.
    pub fn path(&self) -> crate::LeafPath {
        match &self.0 {
            ChunkInner::Flba(_) => crate::LeafPath::Fast,
            ChunkInner::Parquet(_) => crate::LeafPath::Parquet,
        }
    }

    /// The [`ColumnCloseResult`] produced when the chunk was closed.
    ///
    /// As in `parquet`, page offsets are in write order (the dictionary page
    /// last) until the chunk is appended.
    pub fn close(&self) -> &ColumnCloseResult {
        match &self.0 {
            ChunkInner::Flba(c) => &c.close,
            ChunkInner::Parquet(c) => c.close(),
        }
    }

    /// A mutable reference to the [`ColumnCloseResult`], to adjust it (e.g.
    /// drop the bloom filter) before the chunk is appended.
    pub fn close_mut(&mut self) -> &mut ColumnCloseResult {
        match &mut self.0 {
            ChunkInner::Flba(c) => &mut c.close,
            ChunkInner::Parquet(c) => c.close_mut(),
        }
    }

    /// Heap bytes the chunk holds until it is appended: its pages (this
    /// crate's: the blocks, or the page store's resident part, they are
    /// kept in; `parquet`'s: their bytes) and its bloom filter's bitset.
    pub(crate) fn memory_size(&self) -> usize {
        let close = self.close();
        let pages = match &self.0 {
            ChunkInner::Flba(c) => c.sink.memory_size(),
            ChunkInner::Parquet(_) => {
                usize::try_from(close.metadata.compressed_size()).unwrap_or(0)
            }
        };
        let filter = close
            .bloom_filter
            .as_ref()
            .map_or(0, |f| f.num_blocks() * 32);
        pages + filter
    }

    /// Splices this column's pages into the row group.
    pub fn append_to_row_group<W: Write + Send>(
        self,
        writer: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        match self.0 {
            ChunkInner::Flba(c) => c.append_to_row_group(writer),
            ChunkInner::Parquet(c) => c.append_to_row_group(writer),
        }
    }
}
