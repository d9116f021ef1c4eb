//! The column-level API, drop-in for `parquet::arrow::arrow_writer`'s:
//! [`compute_leaves`] → [`ArrowLeafColumn`] → [`ArrowColumnWriter`] →
//! [`ArrowColumnChunk`] → [`ArrowColumnChunk::append_to_row_group`].
//!
//! Each type is either this crate's fast FIXED_LEN_BYTE_ARRAY implementation or
//! a thin wrapper around `parquet`'s own, chosen per leaf by
//! [`ArrowRowGroupWriterFactory`](crate::ArrowRowGroupWriterFactory).

use crate::chunk::FlbaChunk;
use crate::factory::leaf_types;
use crate::leaf::{FlatLeaf, FlbaColumnWriter, flat_leaf};
use crate::levels::{LeafLevels, compute_levels};
use crate::values::FlbaKind;
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field, FieldRef};
use parquet::arrow::arrow_writer as upstream;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::writer::SerializedRowGroupWriter;
use std::io::Write;
use std::sync::Arc;

/// A leaf column that can be encoded by [`ArrowColumnWriter`].
///
/// Same role as `parquet::arrow::arrow_writer::ArrowLeafColumn`. For a
/// top-level FIXED_LEN_BYTE_ARRAY field it holds just the array: its levels
/// are derived from the validity bitmap while writing, with no per-value work
/// up front.
#[derive(Debug)]
pub struct ArrowLeafColumn(pub(crate) LeafInner);

#[derive(Debug)]
pub(crate) enum LeafInner {
    Flat(FlatLeaf),
    Leveled(Box<LeveledLeaf>),
    Upstream(upstream::ArrowLeafColumn),
}

/// A FIXED_LEN_BYTE_ARRAY leaf of a nested or dictionary-typed field, with
/// the levels this crate computed, and what is needed to fall back to
/// `parquet`'s own leaf if a `parquet` writer gets it.
#[derive(Debug)]
pub(crate) struct LeveledLeaf {
    pub(crate) levels: LeafLevels,
    field: FieldRef,
    array: ArrayRef,
    index: usize,
}

impl LeveledLeaf {
    fn upstream(&self) -> Result<upstream::ArrowLeafColumn> {
        upstream::compute_leaves(&self.field, &self.array)?
            .into_iter()
            .nth(self.index)
            .ok_or_else(|| ParquetError::General("leaf index out of range".into()))
    }
}

/// Whether a leaf of this Arrow type may take the fast path (the writer
/// decides for sure, from the Parquet descriptor).
fn is_flba_candidate(data_type: &DataType) -> bool {
    is_flat_candidate(data_type)
}

/// The leaves of a non-flat field: this crate's levels for FLBA candidates,
/// `parquet`'s for the rest (`fast(i)` says which leaves to compute here).
pub(crate) fn leveled_leaves(
    field: &Field,
    array: &ArrayRef,
    fast: &dyn Fn(usize) -> bool,
    num_leaves: usize,
) -> Result<Vec<ArrowLeafColumn>> {
    let ours = compute_levels(field, array, fast)?;
    let needs_upstream = (0..num_leaves).any(|i| !fast(i));
    let mut theirs = if needs_upstream {
        upstream::compute_leaves(field, array)?
            .into_iter()
            .map(Some)
            .collect()
    } else {
        Vec::new()
    };
    let field_ref: FieldRef = Arc::new(field.clone());
    ours.into_iter()
        .enumerate()
        .map(|(i, levels)| {
            Ok(ArrowLeafColumn(match levels {
                Some(levels) => LeafInner::Leveled(Box::new(LeveledLeaf {
                    levels,
                    field: field_ref.clone(),
                    array: array.clone(),
                    index: i,
                })),
                None => LeafInner::Upstream(
                    theirs
                        .get_mut(i)
                        .and_then(Option::take)
                        .ok_or_else(|| ParquetError::General("missing leaf".into()))?,
                ),
            }))
        })
        .collect()
}

/// The leaves of a nested field that `track(i)` selects, with this crate's
/// levels (every selected leaf must be an FLBA candidate).
pub(crate) fn tracked_leaves(
    field: &Field,
    array: &ArrayRef,
    track: &dyn Fn(usize) -> bool,
) -> Result<Vec<ArrowLeafColumn>> {
    let field_ref: FieldRef = Arc::new(field.clone());
    compute_levels(field, array, track)?
        .into_iter()
        .enumerate()
        .filter(|(i, _)| track(*i))
        .map(|(i, levels)| {
            let levels = levels.ok_or_else(|| {
                ParquetError::General(format!("no levels for leaf {i} of {}", field.name()))
            })?;
            Ok(ArrowLeafColumn(LeafInner::Leveled(Box::new(LeveledLeaf {
                levels,
                field: field_ref.clone(),
                array: array.clone(),
                index: i,
            }))))
        })
        .collect()
}

/// Whether a top-level field of this type is a single FLBA-able leaf whose
/// array can be kept as is.
pub(crate) fn is_flat_candidate(data_type: &DataType) -> bool {
    match data_type {
        DataType::Decimal128(p, _) | DataType::Decimal256(p, _) => *p >= 19,
        DataType::FixedSizeBinary(n) => *n > 0,
        t => FlbaKind::of(t).is_some(),
    }
}

/// Whether `array` can be written as a leaf of a `field_type` field.
fn array_fits(field_type: &DataType, array: &ArrayRef) -> bool {
    match array.data_type() {
        DataType::Dictionary(_, v) => v.as_ref() == field_type,
        DataType::RunEndEncoded(_, v) => v.data_type() == field_type,
        t => t == field_type,
    }
}

/// Computes the [`ArrowLeafColumn`]s of a (possibly nested) array, in the
/// order of the Parquet schema's leaves.
///
/// Same as `parquet::arrow::arrow_writer::compute_leaves`. Use it to encode
/// columns in parallel; see [`ArrowColumnWriter`].
pub fn compute_leaves(field: &Field, array: &ArrayRef) -> Result<Vec<ArrowLeafColumn>> {
    if is_flat_candidate(field.data_type()) && array_fits(field.data_type(), array) {
        let field: FieldRef = Arc::new(field.clone());
        return Ok(vec![ArrowLeafColumn(LeafInner::Flat(flat_leaf(
            &field, array,
        )))]);
    }
    let mut types = Vec::new();
    leaf_types(field.data_type(), &mut types);
    if types.iter().any(|t| is_flba_candidate(t))
        && crate::validate::types_compatible(field.data_type(), array.data_type())
    {
        let fast: Vec<bool> = types.iter().map(|t| is_flba_candidate(t)).collect();
        return leveled_leaves(
            field,
            array,
            &|i| fast.get(i).copied().unwrap_or(false),
            fast.len(),
        );
    }
    Ok(upstream::compute_leaves(field, array)?
        .into_iter()
        .map(|l| ArrowLeafColumn(LeafInner::Upstream(l)))
        .collect())
}

/// Encodes [`ArrowLeafColumn`]s into an [`ArrowColumnChunk`].
///
/// Same as `parquet::arrow::arrow_writer::ArrowColumnWriter`; create them with
/// [`ArrowRowGroupWriterFactory::create_column_writers`](crate::ArrowRowGroupWriterFactory::create_column_writers).
/// Each writer is `Send` and can run on its own thread.
///
/// # Example: encoding columns in parallel
/// ```
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
    Upstream(upstream::ArrowColumnWriter),
}

impl std::fmt::Debug for ArrowColumnWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            WriterInner::Flba(w) => f.debug_tuple("ArrowColumnWriter").field(w).finish(),
            WriterInner::Upstream(w) => f.debug_tuple("ArrowColumnWriter").field(w).finish(),
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
        match (&mut self.0, &col.0) {
            (WriterInner::Flba(w), LeafInner::Flat(leaf)) => w.write(leaf),
            (WriterInner::Upstream(w), LeafInner::Upstream(leaf)) => w.write(leaf),
            (WriterInner::Flba(w), LeafInner::Leveled(leaf)) => w.write_leveled(&leaf.levels, None),
            (WriterInner::Upstream(w), LeafInner::Leveled(leaf)) => w.write(&leaf.upstream()?),
            (WriterInner::Upstream(w), LeafInner::Flat(leaf)) => {
                let leaves = upstream::compute_leaves(&leaf.field, &leaf.array)?;
                match leaves.as_slice() {
                    [only] => w.write(only),
                    _ => Err(ParquetError::General(format!(
                        "field '{}' does not have exactly one leaf",
                        leaf.field.name()
                    ))),
                }
            }
            (WriterInner::Flba(_), LeafInner::Upstream(_)) => Err(ParquetError::General(
                "this leaf column was computed for a different column: a FIXED_LEN_BYTE_ARRAY \
                 column writer takes the single leaf compute_leaves returns for its field"
                    .into(),
            )),
        }
    }

    /// Writes a validated flat leaf in content-defined chunks.
    pub(crate) fn write_chunked(
        &mut self,
        col: &ArrowLeafColumn,
        chunker: &mut crate::cdc::Chunker,
    ) -> Result<()> {
        match (&mut self.0, &col.0) {
            (WriterInner::Flba(w), LeafInner::Flat(leaf)) => {
                w.write_chunked_unchecked(leaf, chunker)
            }
            (WriterInner::Flba(w), LeafInner::Leveled(leaf)) => {
                w.write_leveled(&leaf.levels, Some(chunker))
            }
            _ => Err(ParquetError::General(
                "content-defined chunking on the fast path needs a FIXED_LEN_BYTE_ARRAY leaf"
                    .into(),
            )),
        }
    }

    pub(crate) fn write_validated(&mut self, col: &ArrowLeafColumn) -> Result<()> {
        match (&mut self.0, &col.0) {
            (WriterInner::Flba(w), LeafInner::Flat(leaf)) => w.write_unchecked(leaf),
            _ => self.write(col),
        }
    }

    /// Closes this column, returning the written [`ArrowColumnChunk`].
    pub fn close(self) -> Result<ArrowColumnChunk> {
        Ok(ArrowColumnChunk(match self.0 {
            WriterInner::Flba(w) => ChunkInner::Flba(w.close()?),
            WriterInner::Upstream(w) => ChunkInner::Upstream(w.close()?),
        }))
    }

    /// Estimated memory held by the writer, in bytes.
    ///
    /// This includes buffered pages, encoder buffers, the dictionary and the
    /// bloom filter.
    pub fn memory_size(&self) -> usize {
        match &self.0 {
            WriterInner::Flba(w) => w.memory_size(),
            WriterInner::Upstream(w) => w.memory_size(),
        }
    }

    /// Estimated encoded size of the column chunk so far, in bytes.
    ///
    /// Equal to `parquet`'s estimate for the same data, since row-group
    /// splitting by `max_row_group_bytes` depends on it.
    pub fn get_estimated_total_bytes(&self) -> usize {
        match &self.0 {
            WriterInner::Flba(w) => w.estimated_total_bytes(),
            WriterInner::Upstream(w) => w.get_estimated_total_bytes(),
        }
    }
}

/// The encoded data of one column chunk, see [`ArrowColumnWriter`].
pub struct ArrowColumnChunk(ChunkInner);

enum ChunkInner {
    Flba(FlbaChunk),
    Upstream(upstream::ArrowColumnChunk),
}

impl std::fmt::Debug for ArrowColumnChunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowColumnChunk")
            .field("close", self.close())
            .finish_non_exhaustive()
    }
}

impl ArrowColumnChunk {
    /// The [`ColumnCloseResult`] produced when the chunk was closed.
    ///
    /// As in `parquet`, page offsets are in write order (the dictionary page
    /// last) until the chunk is appended.
    pub fn close(&self) -> &ColumnCloseResult {
        match &self.0 {
            ChunkInner::Flba(c) => &c.close,
            ChunkInner::Upstream(c) => c.close(),
        }
    }

    /// A mutable reference to the [`ColumnCloseResult`], to adjust it (e.g.
    /// drop the bloom filter) before the chunk is appended.
    pub fn close_mut(&mut self) -> &mut ColumnCloseResult {
        match &mut self.0 {
            ChunkInner::Flba(c) => &mut c.close,
            ChunkInner::Upstream(c) => c.close_mut(),
        }
    }

    /// Splices this column's pages into the row group.
    pub fn append_to_row_group<W: Write + Send>(
        self,
        writer: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        match self.0 {
            ChunkInner::Flba(c) => c.append_to_row_group(writer),
            ChunkInner::Upstream(c) => c.append_to_row_group(writer),
        }
    }
}
