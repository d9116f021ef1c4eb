//! The kinds of leaf this crate writes ([`LeafKind`]), by Arrow type, and
//! what each kind implies: how its Arrow values are laid out, how it is
//! stored in Parquet.

use arrow_schema::{DataType, IntervalUnit, TimeUnit};

/// The kind of a leaf this crate writes, by its Arrow type; public in the
/// column plan ([`LeafPlan::kind`](crate::LeafPlan::kind)). New kinds are
/// added as the fast path grows (the enum is `#[non_exhaustive]`).
///
/// Storage follows `parquet`'s schema converter: a decimal's follows its
/// precision (INT32 up to 9 digits, INT64 up to 18, FIXED_LEN_BYTE_ARRAY
/// above); integers of 8 to 32 bits, `Date32` and `Time32` are INT32;
/// 64-bit integers, `Time64`, `Timestamp` and `Duration` are INT64;
/// `Date64` is INT32 (days) under `coerce_types`, INT64 otherwise;
/// `Float32` is FLOAT, `Float64` DOUBLE and `Boolean` BOOLEAN.
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
    /// `Int8` (INT32).
    Int8,
    /// `Int16` (INT32).
    Int16,
    /// `Int32` (INT32).
    Int32,
    /// `Int64` (INT64).
    Int64,
    /// `UInt8` (INT32).
    UInt8,
    /// `UInt16` (INT32).
    UInt16,
    /// `UInt32` (INT32, its bit pattern).
    UInt32,
    /// `UInt64` (INT64, its bit pattern).
    UInt64,
    /// `Date32` (INT32).
    Date32,
    /// `Date64` (INT64, or INT32 days under `coerce_types`).
    Date64,
    /// `Time32` of any unit (INT32).
    Time32,
    /// `Time64` of any unit (INT64).
    Time64,
    /// `Timestamp` of any unit, with or without a time zone (INT64).
    Timestamp,
    /// `Duration` of any unit (INT64).
    Duration,
    /// `Float32` (FLOAT).
    Float32,
    /// `Float64` (DOUBLE).
    Float64,
    /// `Boolean` (BOOLEAN).
    Boolean,
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
            DataType::Int8 => Self::Int8,
            DataType::Int16 => Self::Int16,
            DataType::Int32 => Self::Int32,
            DataType::Int64 => Self::Int64,
            DataType::UInt8 => Self::UInt8,
            DataType::UInt16 => Self::UInt16,
            DataType::UInt32 => Self::UInt32,
            DataType::UInt64 => Self::UInt64,
            DataType::Date32 => Self::Date32,
            DataType::Date64 => Self::Date64,
            DataType::Time32(TimeUnit::Second | TimeUnit::Millisecond) => Self::Time32,
            DataType::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond) => Self::Time64,
            DataType::Timestamp(_, _) => Self::Timestamp,
            DataType::Duration(_) => Self::Duration,
            DataType::Float32 => Self::Float32,
            DataType::Float64 => Self::Float64,
            DataType::Boolean => Self::Boolean,
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
            Self::Int8 => "Int8",
            Self::Int16 => "Int16",
            Self::Int32 => "Int32",
            Self::Int64 => "Int64",
            Self::UInt8 => "UInt8",
            Self::UInt16 => "UInt16",
            Self::UInt32 => "UInt32",
            Self::UInt64 => "UInt64",
            Self::Date32 => "Date32",
            Self::Date64 => "Date64",
            Self::Time32 => "Time32",
            Self::Time64 => "Time64",
            Self::Timestamp => "Timestamp",
            Self::Duration => "Duration",
            Self::Float32 => "Float32",
            Self::Float64 => "Float64",
            Self::Boolean => "Boolean",
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
            Self::Int8 | Self::UInt8 => Layout::Fixed(1),
            Self::Int16 | Self::UInt16 => Layout::Fixed(2),
            Self::Int32 | Self::UInt32 | Self::Date32 | Self::Time32 | Self::Float32 => {
                Layout::Fixed(4)
            }
            Self::Int64
            | Self::UInt64
            | Self::Date64
            | Self::Time64
            | Self::Timestamp
            | Self::Duration
            | Self::Float64 => Layout::Fixed(8),
            Self::Boolean => Layout::Bits,
            Self::Utf8 | Self::Binary => Layout::Offsets32,
            Self::LargeUtf8 | Self::LargeBinary => Layout::Offsets64,
            Self::Utf8View | Self::BinaryView => Layout::Views,
        }
    }

    /// Whether the kind is an integer, date, time, timestamp or duration:
    /// always stored as a little-endian INT32 / INT64.
    pub(crate) fn is_integer(self) -> bool {
        matches!(
            self,
            Self::Int8
                | Self::Int16
                | Self::Int32
                | Self::Int64
                | Self::UInt8
                | Self::UInt16
                | Self::UInt32
                | Self::UInt64
                | Self::Date32
                | Self::Date64
                | Self::Time32
                | Self::Time64
                | Self::Timestamp
                | Self::Duration
        )
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
    /// integer kinds, and the decimals of width 4 and 8. A
    /// FIXED_LEN_BYTE_ARRAY decimal is at least 9 bytes wide (precision
    /// ≥ 19), and [`NativeValues::new`](super::NativeValues::new) admits no
    /// decimal of width 1 to 3 or 5 to 7.
    pub(crate) fn stored_as_int(self, width: usize) -> bool {
        self.is_integer() || (self.is_decimal() && matches!(width, 4 | 8))
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
