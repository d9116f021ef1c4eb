//! The kinds of leaf this crate writes ([`FlbaKind`]), by Arrow type, and
//! what each kind implies: Arrow width, Parquet storage, statistics order.

use super::ValueOrder;
use arrow_schema::{DataType, IntervalUnit};

/// The kind of a leaf this crate writes, by its Arrow type. Public as
/// [`LeafKind`](crate::LeafKind) in the column plan.
///
/// A decimal's Parquet storage follows its precision, as `parquet`'s schema
/// converter decides it: INT32 up to 9 digits, INT64 up to 18,
/// FIXED_LEN_BYTE_ARRAY above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FlbaKind {
    /// `FixedSizeBinary(n)` with `n > 0` (UUIDs, hashes, ...).
    FixedSizeBinary,
    /// `Decimal32(p, s)` (INT32).
    Decimal32,
    /// `Decimal64(p, s)` (INT32 or INT64).
    Decimal64,
    /// `Decimal128(p, s)` (INT32, INT64 or FIXED_LEN_BYTE_ARRAY).
    Decimal128,
    /// `Decimal256(p, s)` (INT32, INT64 or FIXED_LEN_BYTE_ARRAY).
    Decimal256,
    /// `Float16`.
    Float16,
    /// `Interval(YearMonth)`.
    IntervalYearMonth,
    /// `Interval(DayTime)`.
    IntervalDayTime,
}

impl FlbaKind {
    /// The kind of an Arrow leaf type, whether or not the fast path can take
    /// it (a `Decimal128(9, 2)` is a [`FlbaKind::Decimal128`] stored as
    /// INT32).
    pub(crate) fn of(data_type: &DataType) -> Option<Self> {
        Some(match data_type {
            DataType::FixedSizeBinary(_) => Self::FixedSizeBinary,
            DataType::Decimal32(_, _) => Self::Decimal32,
            DataType::Decimal64(_, _) => Self::Decimal64,
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
            Self::Decimal32 => "Decimal32",
            Self::Decimal64 => "Decimal64",
            Self::Decimal128 => "Decimal128",
            Self::Decimal256 => "Decimal256",
            Self::Float16 => "Float16",
            Self::IntervalYearMonth => "IntervalYearMonth",
            Self::IntervalDayTime => "IntervalDayTime",
        }
    }

    /// Bytes per value in the Arrow buffer.
    pub(crate) fn native_width(self, width: usize) -> usize {
        match self {
            Self::FixedSizeBinary => width,
            Self::Decimal32 => 4,
            Self::Decimal64 => 8,
            Self::Decimal128 => 16,
            Self::Decimal256 => 32,
            Self::Float16 => 2,
            Self::IntervalYearMonth => 4,
            Self::IntervalDayTime => 8,
        }
    }

    /// Whether the kind is a decimal.
    pub(crate) fn is_decimal(self) -> bool {
        matches!(
            self,
            Self::Decimal32 | Self::Decimal64 | Self::Decimal128 | Self::Decimal256
        )
    }

    /// Whether values of this kind with Parquet width `width` are stored as
    /// INT32 / INT64 (little-endian) rather than FIXED_LEN_BYTE_ARRAY: the
    /// decimals of width 4 and 8. A FIXED_LEN_BYTE_ARRAY decimal is at least
    /// 9 bytes wide (precision ≥ 19), and [`NativeValues::new`](super::NativeValues::new) admits no
    /// decimal of width 1 to 3 or 5 to 7.
    pub(crate) fn stored_as_int(self, width: usize) -> bool {
        self.is_decimal() && matches!(width, 4 | 8)
    }

    /// How the column's statistics order values of Parquet width `width`.
    pub(crate) fn order(self, width: usize) -> ValueOrder {
        match self {
            _ if self.stored_as_int(width) => ValueOrder::SignedLe,
            Self::FixedSizeBinary => ValueOrder::Unsigned,
            Self::Decimal32 | Self::Decimal64 | Self::Decimal128 | Self::Decimal256 => {
                ValueOrder::Signed
            }
            Self::Float16 => ValueOrder::Float16,
            Self::IntervalYearMonth | Self::IntervalDayTime => ValueOrder::Undefined,
        }
    }
}
