//! The Arrow types that this crate writes as FIXED_LEN_BYTE_ARRAY.

use arrow_schema::{DataType, IntervalUnit};

/// The kind of a FIXED_LEN_BYTE_ARRAY leaf, by its Arrow type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LeafKind {
    /// `FixedSizeBinary(n)` with `n > 0` (UUIDs, hashes, ...).
    FixedSizeBinary,
    /// `Decimal128(p, s)` with `p >= 19`.
    Decimal128,
    /// `Decimal256(p, s)` with `p >= 19`.
    Decimal256,
    /// `Float16`.
    Float16,
    /// `Interval(YearMonth)`.
    IntervalYearMonth,
    /// `Interval(DayTime)`.
    IntervalDayTime,
}

impl LeafKind {
    /// The kind of an Arrow leaf type, whether or not the fast path can take
    /// it (a `Decimal128(9, 2)` is a [`LeafKind::Decimal128`] stored as
    /// INT32).
    pub(crate) fn of(data_type: &DataType) -> Option<Self> {
        Some(match data_type {
            DataType::FixedSizeBinary(_) => Self::FixedSizeBinary,
            DataType::Decimal128(_, _) => Self::Decimal128,
            DataType::Decimal256(_, _) => Self::Decimal256,
            DataType::Float16 => Self::Float16,
            DataType::Interval(IntervalUnit::YearMonth) => Self::IntervalYearMonth,
            DataType::Interval(IntervalUnit::DayTime) => Self::IntervalDayTime,
            _ => return None,
        })
    }

    /// The name shown in the plan's table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::FixedSizeBinary => "FixedSizeBinary",
            Self::Decimal128 => "Decimal128",
            Self::Decimal256 => "Decimal256",
            Self::Float16 => "Float16",
            Self::IntervalYearMonth => "IntervalYearMonth",
            Self::IntervalDayTime => "IntervalDayTime",
        }
    }
}

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
