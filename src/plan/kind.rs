//! The Arrow types that this crate writes: those `parquet` stores as
//! FIXED_LEN_BYTE_ARRAY, and decimals of every width (INT32 / INT64 up to
//! precision 18).

use arrow_schema::DataType;

/// The kind of a leaf this crate writes, by its Arrow type: the value
/// stage's own kind, so the plan and the writer cannot disagree.
pub use crate::values::LeafKind;

/// The Arrow half of the decision: the kind of a leaf type the fast path
/// can take if its descriptor agrees. [`compute_leaves`], which sees no
/// descriptor, decides with this alone.
///
/// [`compute_leaves`]: crate::compute_leaves
pub(crate) fn fast_candidate(data_type: &DataType) -> Option<LeafKind> {
    match data_type {
        DataType::FixedSizeBinary(n) if *n <= 0 => None,
        t => LeafKind::of(t),
    }
}
