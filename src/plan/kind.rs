//! The Arrow types that this crate writes as FIXED_LEN_BYTE_ARRAY.

use arrow_schema::DataType;

/// The kind of a FIXED_LEN_BYTE_ARRAY leaf, by its Arrow type: the value
/// stage's own kind, so the plan and the writer cannot disagree.
pub use crate::values::FlbaKind as LeafKind;

/// The Arrow half of the decision: the kind of a leaf type that
/// `parquet`'s schema converter makes a FIXED_LEN_BYTE_ARRAY, so the fast
/// path can take it if its descriptor agrees. [`compute_leaves`], which sees
/// no descriptor, decides with this alone.
///
/// [`compute_leaves`]: crate::compute_leaves
pub(crate) fn fast_candidate(data_type: &DataType) -> Option<LeafKind> {
    match data_type {
        DataType::Decimal128(p, _) | DataType::Decimal256(p, _) if *p < 19 => None,
        DataType::FixedSizeBinary(n) if *n <= 0 => None,
        t => LeafKind::of(t),
    }
}
