//! Definition and repetition levels of leaves inside nested fields (structs,
//! lists of every layout, maps, and dictionary or run-end-encoded wrappers).
//!
//! Levels are computed in two phases:
//!
//! 1. [`shape`] walks the field and its array once and records every nested
//!    node (its kind, validity, offsets and the levels it contributes) and,
//!    for every leaf, the chain of nodes above it. Wrappers are resolved
//!    here: run-end-encoded arrays and dictionaries of nested values are
//!    expanded, dictionaries of leaf values are kept as leaves.
//! 2. [`expand`] produces each *tracked* leaf's levels on its own, walking its
//!    chain top-down over ranges of slots: validity is read as runs of set
//!    and unset bits, a null or empty span becomes one run of levels, and a
//!    leaf's definition levels are written a 64-bit validity word at a time.
//!    A slot that opens a list carries a [`expand::Mark`] down to the level it
//!    starts, so repetition levels are final when written.
//!
//! The *representation* of the levels matters as much as their values:
//! `parquet` picks a leaf's mini-batch size from whether its levels are one
//! repeated value or a buffer. [`store::LevelStore`] follows the same rule:
//! levels stay one repeated value while every span appended is a run of that
//! value; a run of another value, a leaf's per-value definition levels
//! (a leaf with a validity buffer, unless it is entirely null), or the
//! content of a non-empty list turns them into a buffer for good.
//!
//! Leaves that are not tracked (other types, written by `parquet` itself)
//! cost nothing in phase 2.

mod bits;
mod expand;
mod shape;

pub(crate) use shape::unwrap_type;
mod store;

#[cfg(test)]
mod tests;

use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};
use parquet::errors::Result;

/// Level values in one of three representations (`parquet`'s `LevelData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LevelData {
    /// The column has no such levels (max level 0).
    Absent,
    /// `count` copies of `value`.
    Uniform { value: i16, count: usize },
    /// A buffer of levels.
    Materialized(Vec<i16>),
}

impl LevelData {
    /// Number of levels.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Absent => 0,
            Self::Uniform { count, .. } => *count,
            Self::Materialized(v) => v.len(),
        }
    }

    /// Level `i`.
    pub(crate) fn get(&self, i: usize) -> Option<i16> {
        match self {
            Self::Absent => None,
            Self::Uniform { value, count } => (i < *count).then_some(*value),
            Self::Materialized(v) => v.get(i).copied(),
        }
    }
}

/// The levels of one leaf column for one batch.
#[derive(Debug, Clone)]
pub(crate) struct LeafLevels {
    /// Definition levels.
    pub(crate) def: LevelData,
    /// Repetition levels.
    pub(crate) rep: LevelData,
    /// Positions in `array` of the values to write, in level order.
    pub(crate) non_null_indices: Vec<usize>,
    /// Definition level of a present value.
    pub(crate) max_def: i16,
    /// Repetition level of a value that continues the innermost list.
    pub(crate) max_rep: i16,
    /// The leaf array (a dictionary of a leaf type is kept: `parquet` writes
    /// the dictionary's keys for CDC; run-end-encoded arrays are expanded).
    pub(crate) array: ArrayRef,
    /// A null reached in a non-nullable field, as `parquet` reports it.
    pub(crate) validation_error: Option<String>,
}

/// Computes the levels of every leaf of `field` whose depth-first index `i`
/// has `track(i)`; other leaves are `None`.
pub(crate) fn compute_levels(
    field: &Field,
    array: &ArrayRef,
    track: &dyn Fn(usize) -> bool,
) -> Result<Vec<Option<LeafLevels>>> {
    let shape = shape::Shape::of(field, array, track)?;
    Ok(shape
        .leaves
        .iter()
        .map(|leaf| {
            leaf.tracked
                .then(|| expand::leaf_levels(&shape, leaf, array.len()))
        })
        .collect())
}

/// Whether arrays of this type are leaves: anything that is neither nested
/// (struct, list of any layout, map, union) nor a wrapper (dictionary, run-end
/// encoding).
pub(crate) fn is_leaf(data_type: &DataType) -> bool {
    data_type.is_primitive()
        || matches!(
            data_type,
            DataType::Null
                | DataType::Boolean
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::FixedSizeBinary(_)
                | DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
        )
}
