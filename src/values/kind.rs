//! The kinds of leaf this crate writes ([`LeafKind`]), by Arrow type, and
//! what each kind implies: how its Arrow values are laid out, how it is
//! stored in Parquet.

use arrow_schema::{DataType, IntervalUnit};

/// The kind of a leaf this crate writes, by its Arrow type; public in the
/// column plan ([`LeafPlan::kind`](crate::LeafPlan::kind)). New kinds are
/// added as the fast path grows (the enum is `#[non_exhaustive]`).
///
/// A decimal's Parquet storage follows its precision, as `parquet`'s schema
/// converter decides it: INT32 up to 9 digits, INT64 up to 18,
/// FIXED_LEN_BYTE_ARRAY above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LeafKind {
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
    /// `Utf8` (BYTE_ARRAY, a string).
    Utf8,
    /// `LargeUtf8` (BYTE_ARRAY, a string).
    LargeUtf8,
    /// `Utf8View` (BYTE_ARRAY, a string).
    Utf8View,
    /// `Binary` (BYTE_ARRAY).
    Binary,
    /// `LargeBinary` (BYTE_ARRAY).
    LargeBinary,
    /// `BinaryView` (BYTE_ARRAY).
    BinaryView,
}

impl LeafKind {
    /// The kind of an Arrow leaf type, whether or not the fast path can take
    /// it (a `Decimal128(9, 2)` is a [`LeafKind::Decimal128`] stored as
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
            DataType::Utf8 => Self::Utf8,
            DataType::LargeUtf8 => Self::LargeUtf8,
            DataType::Utf8View => Self::Utf8View,
            DataType::Binary => Self::Binary,
            DataType::LargeBinary => Self::LargeBinary,
            DataType::BinaryView => Self::BinaryView,
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
            Self::Utf8 => "Utf8",
            Self::LargeUtf8 => "LargeUtf8",
            Self::Utf8View => "Utf8View",
            Self::Binary => "Binary",
            Self::LargeBinary => "LargeBinary",
            Self::BinaryView => "BinaryView",
        }
    }

    /// How values of this kind are laid out in their Arrow array, for a
    /// column of Parquet width `width` (which only a `FixedSizeBinary`
    /// needs).
    pub(crate) fn layout(self, width: usize) -> Layout {
        match self {
            Self::FixedSizeBinary => Layout::Fixed(width),
            Self::Decimal32 => Layout::Fixed(4),
            Self::Decimal64 => Layout::Fixed(8),
            Self::Decimal128 => Layout::Fixed(16),
            Self::Decimal256 => Layout::Fixed(32),
            Self::Float16 => Layout::Fixed(2),
            Self::IntervalYearMonth => Layout::Fixed(4),
            Self::IntervalDayTime => Layout::Fixed(8),
            Self::Utf8 | Self::Binary => Layout::Offsets32,
            Self::LargeUtf8 | Self::LargeBinary => Layout::Offsets64,
            Self::Utf8View | Self::BinaryView => Layout::Views,
        }
    }

    /// Whether the kind is a byte array (strings and binary: BYTE_ARRAY).
    pub(crate) fn is_byte_array(self) -> bool {
        matches!(
            self,
            Self::Utf8
                | Self::LargeUtf8
                | Self::Utf8View
                | Self::Binary
                | Self::LargeBinary
                | Self::BinaryView
        )
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
}

/// How the values of a kind sit in their Arrow array: what the value
/// stage reads, and what content-defined chunking and distinct counts hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    dead_code,
    reason = "the variable-width and bit layouts are filled in as their kinds join the fast path"
)]
pub(crate) enum Layout {
    /// `n` bytes per value, back to back (primitive and fixed-size binary
    /// arrays).
    Fixed(usize),
    /// One bit per value (`Boolean`).
    Bits,
    /// Contiguous bytes with 32-bit offsets (`Utf8`, `Binary`).
    Offsets32,
    /// Contiguous bytes with 64-bit offsets (`LargeUtf8`, `LargeBinary`).
    Offsets64,
    /// 16-byte views into data buffers (`Utf8View`, `BinaryView`).
    Views,
}

impl Layout {
    /// Bytes per value of a fixed layout.
    pub(crate) fn fixed_width(self) -> Option<usize> {
        match self {
            Self::Fixed(n) => Some(n),
            _ => None,
        }
    }
}
