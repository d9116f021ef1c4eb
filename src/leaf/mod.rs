//! The column chunk of one FIXED_LEN_BYTE_ARRAY leaf: levels, mini-batches
//! cut as `parquet` cuts them, values converted straight from the Arrow
//! buffers into the page builder.
//!
//! A top-level leaf and a leaf inside a nested field go through the same
//! pipeline:
//!
//! 1. `check`: resolve the array to plain values (expanding dictionary and
//!    run-end encoding) and validate it (nulls in a required field, decimals
//!    too wide for the column);
//! 2. `view`: see its levels as a [`LevelView`](view::LevelView): the
//!    validity bitmap of a top-level leaf, the def/rep levels of a nested one;
//! 3. `distinct`: fold its values into the distinct count, if wanted;
//! 4. `batches`: cut the write (or each content-defined chunk of it) into
//!    mini-batches and hand them to the page builder.

mod batches;
mod check;
mod distinct;
mod values;
mod view;

pub(crate) use check::LeafShape;

use crate::cdc::Chunker;
use crate::chunk::{FlbaChunk, PageSink};
use crate::compat::PageStore;
use crate::levels::LeafLevels;
use crate::page::PageBuilder;
use crate::pool::PageHelpers;
use crate::values::LeafKind;
use arrow_array::ArrayRef;
use arrow_schema::FieldRef;
use distinct::DistinctValues;
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;
use std::sync::Arc;
use values::LeafValues;
use view::{FlatLevels, LevelView, NestedLevels, Span};

/// A leaf column that is a whole top-level field.
#[derive(Debug, Clone)]
pub(crate) struct FlatLeaf {
    /// The top-level field.
    pub(crate) field: FieldRef,
    /// Its array, possibly dictionary or run-end encoded.
    pub(crate) array: ArrayRef,
}

/// Wraps an array as the leaf of `field`.
pub(crate) fn flat_leaf(field: &FieldRef, array: &ArrayRef) -> FlatLeaf {
    FlatLeaf {
        field: Arc::clone(field),
        array: Arc::clone(array),
    }
}

/// Writes the column chunk of one FLBA leaf.
pub(crate) struct FlbaColumnWriter {
    kind: LeafKind,
    /// Parquet bytes per value; None for byte arrays.
    width: Option<usize>,
    builder: PageBuilder,
    distinct: DistinctValues,
    repeated_ancestor_def_level: i16,
}

impl std::fmt::Debug for FlbaColumnWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlbaColumnWriter")
            .field("kind", &self.kind)
            .field("builder", &self.builder)
            .finish_non_exhaustive()
    }
}

impl FlbaColumnWriter {
    /// Fails as [`Self::try_new`] fails for these settings, without
    /// building the writer.
    pub(crate) fn check_settings(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<()> {
        PageBuilder::check_settings(descr, props)
    }

    /// A writer for the column `descr` holding values of `kind`; finished
    /// pages go to `store` if given, and are compressed on `helpers`'
    /// threads if given. With `cache_blocks`, its in-memory page blocks go
    /// through the process-wide block cache (see `set_block_cache_limit`);
    /// without, they are its own, counted in its memory size and freed
    /// with its chunk.
    pub(crate) fn try_new(
        descr: ColumnDescPtr,
        props: &WriterProperties,
        kind: LeafKind,
        store: Option<Box<dyn PageStore>>,
        helpers: Option<PageHelpers>,
        cache_blocks: bool,
    ) -> Result<Self> {
        let width = crate::values::value_width(&descr);
        let repeated_ancestor_def_level = descr.repeated_ancestor_def_level();
        let sink = PageSink::new(store, cache_blocks);
        let builder = PageBuilder::try_new(descr, props, sink, helpers)?;
        Ok(Self {
            kind,
            width,
            builder,
            distinct: DistinctValues::new(crate::compat::write_distinct_counts(props)),
            repeated_ancestor_def_level,
        })
    }

    fn shape(&self) -> LeafShape {
        LeafShape {
            kind: self.kind,
            width: self.width.unwrap_or(0),
            max_def: self.builder.settings().max_def,
        }
    }

    /// Validates and writes a top-level leaf; nothing is buffered if
    /// validation fails.
    pub(crate) fn write(&mut self, leaf: &FlatLeaf) -> Result<()> {
        let resolved = check::resolve(leaf, self.kind)?;
        self.shape().check(leaf, &resolved)?;
        self.write_flat(&resolved, None)
    }

    /// Writes a top-level leaf already validated with [`LeafShape::validate`].
    pub(crate) fn write_unchecked(&mut self, leaf: &FlatLeaf) -> Result<()> {
        let resolved = check::resolve(leaf, self.kind)?;
        self.write_flat(&resolved, None)
    }

    /// Validates nothing; writes `leaf` in content-defined chunks, cutting a
    /// page after every chunk but the last (`parquet`'s `write_with_chunker`).
    pub(crate) fn write_chunked_unchecked(
        &mut self,
        leaf: &FlatLeaf,
        chunker: &mut Chunker,
    ) -> Result<()> {
        let resolved = check::resolve(leaf, self.kind)?;
        self.write_flat(&resolved, Some((chunker, &leaf.array)))
    }

    fn write_flat(
        &mut self,
        r: &check::Resolved,
        cdc: Option<(&mut Chunker, &ArrayRef)>,
    ) -> Result<()> {
        let values = LeafValues::new(self.kind, self.width.unwrap_or(0), r.values.as_ref())?;
        let max_def = self.builder.settings().max_def;
        let view = FlatLevels::new(r.values.len(), max_def, r.nulls.as_ref());
        self.write_view(&view, &values, cdc)
    }

    /// Writes a leaf of a nested (or dictionary-typed) field from its levels,
    /// validating it first; with a chunker, in content-defined chunks.
    pub(crate) fn write_leveled(
        &mut self,
        levels: &LeafLevels,
        chunker: Option<&mut Chunker>,
    ) -> Result<()> {
        let array = check::resolve_leveled(levels, self.kind)?;
        let values = LeafValues::new(self.kind, self.width.unwrap_or(0), array.as_ref())?;
        let view = NestedLevels::new(levels, self.repeated_ancestor_def_level);
        if let Some(fixed) = values.fixed() {
            check::check_leveled(levels, &view, fixed, array.data_type(), || {
                self.builder.column_name()
            })?;
        }
        self.write_view(&view, &values, chunker.map(|c| (c, &levels.array)))
    }

    /// The one pipeline: distinct count, then the whole write as one span,
    /// or content-defined chunks of it (`array` is the leaf as given, whose
    /// dictionary keys, if any, are what is chunked).
    fn write_view<V: LevelView>(
        &mut self,
        view: &V,
        values: &LeafValues<'_>,
        cdc: Option<(&mut Chunker, &ArrayRef)>,
    ) -> Result<()> {
        self.distinct.add(view, values);
        let b = &mut self.builder;
        let count = view.values_in(0, view.num_levels());
        b.expect(count, view.num_levels());
        if self.width.is_none() {
            b.expect_plain_bytes(values.plain_bytes(view.num_positions(), count));
        }
        let written = match cdc {
            None => {
                let whole = Span {
                    levels: 0..view.num_levels(),
                    first_value: 0,
                };
                batches::write_span(b, self.width, view, values, whole)
            }
            Some((chunker, array)) => {
                batches::write_content_defined(b, self.width, view, values, chunker, array)
            }
        };
        b.trim();
        written
    }

    /// The chunk will take at most `rows` more rows (`None`: unknown); a
    /// hint for sizing its page blocks.
    pub(crate) fn set_rows_left(&mut self, rows: Option<usize>) {
        self.builder.set_rows_left(rows);
    }

    /// Heap bytes held by the writer, including the (boxed) writer itself.
    pub(crate) fn memory_size(&self) -> usize {
        std::mem::size_of::<Self>() + self.builder.memory_size() + self.distinct.heap_size()
    }

    /// `parquet`'s estimate of the chunk's encoded size so far.
    pub(crate) fn estimated_total_bytes(&self) -> usize {
        self.builder.estimated_total_bytes() as usize
    }

    /// Finishes the column chunk.
    pub(crate) fn close(self) -> Result<FlbaChunk> {
        self.builder.close(self.distinct.count())
    }
}
