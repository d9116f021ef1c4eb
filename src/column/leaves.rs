//! [`ArrowLeafColumn`] and [`compute_leaves`]: a field's array cut into its
//! Parquet leaves, each in the form its column writer takes.

use crate::cdc::Chunker;
use crate::leaf::{FlatLeaf, FlbaColumnWriter, flat_leaf};
use crate::levels::{LeafLevels, compute_levels};
use crate::plan::{ColumnPlan, FieldSpan, fast_candidate};
use crate::schema::leaf_types;
use crate::validate::types_compatible;
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field, FieldRef};
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};
use std::sync::Arc;

/// A leaf column that can be encoded by an
/// [`ArrowColumnWriter`](crate::ArrowColumnWriter).
///
/// Same role as `parquet::arrow::arrow_writer::ArrowLeafColumn`. For a
/// top-level FIXED_LEN_BYTE_ARRAY field it holds just the array: its levels
/// are derived from the validity bitmap while writing, with no per-value
/// work up front.
#[derive(Debug)]
pub struct ArrowLeafColumn(pub(crate) LeafInner);

#[derive(Debug)]
pub(crate) enum LeafInner {
    /// A whole top-level field of one FLBA leaf.
    Flat(FlatLeaf),
    /// An FLBA leaf of a nested or dictionary-typed field, with its levels.
    Leveled(Box<LeveledLeaf>),
    /// A leaf computed by `parquet`.
    Parquet(upstream::ArrowLeafColumn),
}

/// A FIXED_LEN_BYTE_ARRAY leaf of a nested or dictionary-typed field, with
/// the levels this crate computed, and what is needed to compute
/// `parquet`'s leaf instead if a `parquet` writer gets it.
#[derive(Debug)]
pub(crate) struct LeveledLeaf {
    levels: LeafLevels,
    field: FieldRef,
    array: ArrayRef,
    index: usize,
}

impl ArrowLeafColumn {
    /// Wraps a leaf computed by `parquet`.
    pub(crate) fn parquet(leaf: upstream::ArrowLeafColumn) -> Self {
        Self(LeafInner::Parquet(leaf))
    }

    /// Hands the leaf, as `parquet` computes it, to `f` (computing it here
    /// if this crate computed the leaf).
    pub(crate) fn with_parquet_leaf<R>(
        &self,
        f: impl FnOnce(&upstream::ArrowLeafColumn) -> Result<R>,
    ) -> Result<R> {
        let (field, array, index) = match &self.0 {
            LeafInner::Parquet(leaf) => return f(leaf),
            LeafInner::Flat(leaf) => (&leaf.field, &leaf.array, 0),
            LeafInner::Leveled(leaf) => (&leaf.field, &leaf.array, leaf.index),
        };
        let leaves = upstream::compute_leaves(field, array)?;
        let leaf = leaves.get(index).ok_or_else(|| {
            ParquetError::General(format!(
                "field '{}' has no leaf {index} in parquet's leaves",
                field.name()
            ))
        })?;
        f(leaf)
    }

    /// Checks a leaf that no batch validation saw (the column-level API)
    /// before a `parquet` writer gets it: decimals too wide for their
    /// column, which `parquet` would write truncated.
    pub(crate) fn validate_for_parquet(&self) -> Result<()> {
        match &self.0 {
            LeafInner::Parquet(_) => Ok(()),
            LeafInner::Flat(leaf) => crate::validate::validate_field(&leaf.field, &leaf.array),
            LeafInner::Leveled(leaf) => crate::validate::validate_field(&leaf.field, &leaf.array),
        }
    }

    /// Writes the leaf with this crate's FLBA writer. `checked`: the batch
    /// was validated already (see [`crate::validate`]); with a chunker,
    /// pages are cut at content-defined boundaries.
    pub(crate) fn write_fast(
        &self,
        writer: &mut FlbaColumnWriter,
        chunker: Option<&mut Chunker>,
        checked: bool,
    ) -> Result<()> {
        match (&self.0, chunker) {
            (LeafInner::Flat(leaf), Some(chunker)) if checked => {
                writer.write_chunked_unchecked(leaf, chunker)
            }
            (LeafInner::Flat(leaf), None) if checked => writer.write_unchecked(leaf),
            (LeafInner::Flat(leaf), None) => writer.write(leaf),
            (LeafInner::Leveled(leaf), chunker) => writer.write_leveled(&leaf.levels, chunker),
            (LeafInner::Flat(_), Some(_)) => Err(ParquetError::General(
                "content-defined chunking needs a validated batch".into(),
            )),
            (LeafInner::Parquet(_), _) => Err(ParquetError::General(
                "this leaf column was computed for a different column: a FIXED_LEN_BYTE_ARRAY \
                 column writer takes the leaf compute_leaves returns for its field"
                    .into(),
            )),
        }
    }
}

/// Whether `array` can be written as the single leaf of a `field_type`
/// field (possibly dictionary or run-end encoded).
fn array_fits(field_type: &DataType, array: &ArrayRef) -> bool {
    match array.data_type() {
        DataType::Dictionary(_, v) => v.as_ref() == field_type,
        // parquet 59 takes a run-end-encoded array only for a run-end-encoded
        // field.
        DataType::RunEndEncoded(_, v) => {
            crate::compat::FAST_UNDER_DICTIONARY_OR_RUN_ENDS && v.data_type() == field_type
        }
        t => t == field_type,
    }
}

/// Computes the [`ArrowLeafColumn`]s of a (possibly nested) array, in the
/// order of the Parquet schema's leaves.
///
/// Same as `parquet::arrow::arrow_writer::compute_leaves`. Use it to encode
/// columns in parallel; see [`ArrowColumnWriter`](crate::ArrowColumnWriter).
/// Without a Parquet schema to look at, it computes this crate's form of a
/// leaf whose Arrow type the fast path can take (the plan's Arrow half); a
/// column writer that `parquet` backs (see
/// [`ColumnPlan`](crate::ColumnPlan)) converts it.
pub fn compute_leaves(field: &Field, array: &ArrayRef) -> Result<Vec<ArrowLeafColumn>> {
    if fast_candidate(field.data_type()).is_some() && array_fits(field.data_type(), array) {
        let field: FieldRef = Arc::new(field.clone());
        return Ok(vec![ArrowLeafColumn(LeafInner::Flat(flat_leaf(
            &field, array,
        )))]);
    }
    let mut types = Vec::new();
    leaf_types(field.data_type(), &mut types);
    let fast: Vec<bool> = types.iter().map(|t| fast_candidate(t).is_some()).collect();
    if !types_compatible(field.data_type(), array.data_type()) {
        return parquet_leaves(field, array);
    }
    split_leaves(field, array, &fast, false)
}

/// The leaves of one field of a validated batch, as `plan` routes them;
/// with `only_fast`, just the fast ones (the others are written elsewhere).
pub(crate) fn planned_leaves(
    plan: &ColumnPlan,
    span: FieldSpan,
    field: &FieldRef,
    array: &ArrayRef,
    only_fast: bool,
) -> Result<Vec<ArrowLeafColumn>> {
    if writes_flat(&span, field, array) {
        return Ok(vec![ArrowLeafColumn(LeafInner::Flat(flat_leaf(
            field, array,
        )))]);
    }
    let fast: Vec<bool> = span.leaves().map(|l| plan.is_fast(l)).collect();
    split_leaves(field, array, &fast, only_fast)
}

/// Whether a field of `span` is written (and checked) flat from `array`: a
/// flat span, and for a dictionary-typed field an array of that very type
/// (the other arrays such a field takes, plain values or other key types,
/// go through the levels).
pub(crate) fn writes_flat(span: &FieldSpan, field: &Field, array: &ArrayRef) -> bool {
    span.flat
        && match field.data_type() {
            DataType::Dictionary(..) => array.data_type() == field.data_type(),
            _ => true,
        }
}

/// `parquet`'s leaves of a field, wrapped.
fn parquet_leaves(field: &Field, array: &ArrayRef) -> Result<Vec<ArrowLeafColumn>> {
    Ok(upstream::compute_leaves(field, array)?
        .into_iter()
        .map(ArrowLeafColumn::parquet)
        .collect())
}

/// The leaves of a field: this crate's levels for the leaves `fast` marks,
/// `parquet`'s for the others (left out with `only_fast`).
fn split_leaves(
    field: &Field,
    array: &ArrayRef,
    fast: &[bool],
    only_fast: bool,
) -> Result<Vec<ArrowLeafColumn>> {
    if !fast.iter().any(|&f| f) {
        return match only_fast {
            true => Ok(Vec::new()),
            false => parquet_leaves(field, array),
        };
    }
    let ours = compute_levels(field, array, &|i| fast.get(i).copied().unwrap_or(false))?;
    let mut theirs: Vec<Option<upstream::ArrowLeafColumn>> =
        match !only_fast && fast.iter().any(|&f| !f) {
            true => upstream::compute_leaves(field, array)?
                .into_iter()
                .map(Some)
                .collect(),
            false => Vec::new(),
        };
    let field_ref: FieldRef = Arc::new(field.clone());
    let mut out = Vec::with_capacity(ours.len());
    for (index, levels) in ours.into_iter().enumerate() {
        let leaf = match levels {
            Some(levels) => LeafInner::Leveled(Box::new(LeveledLeaf {
                levels,
                field: field_ref.clone(),
                array: array.clone(),
                index,
            })),
            None if only_fast => continue,
            None => LeafInner::Parquet(theirs.get_mut(index).and_then(Option::take).ok_or_else(
                || ParquetError::General(format!("field '{}' has no leaf {index}", field.name())),
            )?),
        };
        out.push(ArrowLeafColumn(leaf));
    }
    Ok(out)
}
