//! How the values of a column are ordered for statistics, decided from its
//! Parquet descriptor by the rules `parquet` compares values with.
//!
//! * FLOAT, DOUBLE and Float16 (FIXED_LEN_BYTE_ARRAY): IEEE 754 total order
//!   on the little-endian bits; NaNs are skipped unless every value is NaN,
//!   and counted.
//! * INT32 / INT64 whose sort order is unsigned (unsigned integers):
//!   unsigned little-endian integers.
//! * Other INT32 / INT64 (signed integers, dates, times, timestamps,
//!   decimals): signed little-endian integers.
//! * FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY decimals: signed big-endian two's
//!   complement (all values have the column's width, so this is an
//!   unsigned compare with the sign bit flipped).
//! * Columns whose sort order is undefined (intervals): no min/max at all.
//! * Everything else (fixed-size binary, byte arrays, booleans as the bytes
//!   0 and 1): unsigned lexicographic bytes.

use parquet::basic::{ConvertedType, LogicalType, SortOrder, Type as PhysicalType};
use parquet::schema::types::ColumnDescriptor;
use std::cmp::Ordering;

/// How values of a column are ordered for statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueOrder {
    /// Unsigned lexicographic (FixedSizeBinary, UUID, byte arrays, booleans).
    Unsigned,
    /// Signed big-endian (FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY decimals).
    Signed,
    /// Signed little-endian integers of 4 or 8 bytes (INT32 / INT64).
    SignedLe,
    /// Unsigned little-endian integers of 4 or 8 bytes (INT32 / INT64 with
    /// an unsigned sort order).
    UnsignedLe,
    /// IEEE 754 total order of little-endian floats; the width (2, 4 or 8
    /// bytes) says which.
    Float,
    /// No order: no min/max statistics (intervals).
    Undefined,
}

impl ValueOrder {
    /// The order `parquet` compares the values of `descr` by.
    pub(crate) fn of(descr: &ColumnDescriptor) -> Self {
        let logical = descr.logical_type_ref();
        let decimal = descr.converted_type() == ConvertedType::DECIMAL
            || matches!(logical, Some(LogicalType::Decimal { .. }));
        match descr.physical_type() {
            _ if descr.sort_order() == SortOrder::UNDEFINED => Self::Undefined,
            PhysicalType::FLOAT | PhysicalType::DOUBLE => Self::Float,
            PhysicalType::INT32 | PhysicalType::INT64 => match descr.sort_order() {
                SortOrder::UNSIGNED => Self::UnsignedLe,
                _ => Self::SignedLe,
            },
            PhysicalType::FIXED_LEN_BYTE_ARRAY if logical == Some(&LogicalType::Float16) => {
                Self::Float
            }
            PhysicalType::FIXED_LEN_BYTE_ARRAY | PhysicalType::BYTE_ARRAY if decimal => {
                Self::Signed
            }
            _ => Self::Unsigned,
        }
    }

    /// `a` compared with `b` (both of the column's width).
    #[inline]
    pub(crate) fn cmp(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            Self::Unsigned | Self::Undefined => a.cmp(b),
            Self::Signed => match (a.first(), b.first()) {
                (Some(&x), Some(&y)) if x != y => (x as i8).cmp(&(y as i8)),
                _ => a.cmp(b),
            },
            Self::SignedLe => le_int(a).cmp(&le_int(b)),
            Self::UnsignedLe => le_uint(a).cmp(&le_uint(b)),
            Self::Float => float_key(a).cmp(&float_key(b)),
        }
    }

    /// True for a floating-point NaN (of a column ordered as floats).
    #[inline]
    pub(crate) fn is_nan(self, v: &[u8]) -> bool {
        self == Self::Float && float_is_nan(v)
    }
}

/// A little-endian two's complement integer of up to 8 bytes, sign-extended.
#[inline]
pub(crate) fn le_int(v: &[u8]) -> i64 {
    let n = v.len().min(8);
    if n == 0 {
        return 0;
    }
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&v[..n]);
    let shift = 64 - 8 * n as u32;
    (i64::from_le_bytes(b) << shift) >> shift
}

/// A little-endian unsigned integer of up to 8 bytes.
#[inline]
pub(crate) fn le_uint(v: &[u8]) -> u64 {
    let n = v.len().min(8);
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&v[..n]);
    u64::from_le_bytes(b)
}

#[inline]
pub(crate) fn f16_bits(v: &[u8]) -> u16 {
    u16::from_le_bytes([v[0], v[1]])
}

#[inline]
pub(crate) fn f16_is_nan(bits: u16) -> bool {
    bits & 0x7FFF > 0x7C00
}

/// A key whose signed integer order is the IEEE 754 total order.
#[inline]
pub(crate) fn f16_total_key(bits: u16) -> i16 {
    let x = bits as i16;
    x ^ ((((x >> 15) as u16) >> 1) as i16)
}

#[inline]
pub(crate) fn f16_key(v: &[u8]) -> i16 {
    f16_total_key(f16_bits(v))
}

/// A key whose signed integer order is the IEEE 754 total order of a
/// little-endian float of 2, 4 or 8 bytes (`f64::total_cmp`'s key).
#[inline]
pub(crate) fn float_key(v: &[u8]) -> i64 {
    match v.len() {
        2 => i64::from(f16_key(v)),
        4 => {
            let x = i32::from_le_bytes([v[0], v[1], v[2], v[3]]);
            i64::from(x ^ ((((x >> 31) as u32) >> 1) as i32))
        }
        _ => {
            let x = le_int(v);
            x ^ ((((x >> 63) as u64) >> 1) as i64)
        }
    }
}

/// Whether a little-endian float of 2, 4 or 8 bytes is a NaN.
#[inline]
pub(crate) fn float_is_nan(v: &[u8]) -> bool {
    match v.len() {
        2 => f16_is_nan(f16_bits(v)),
        4 => f32::from_le_bytes([v[0], v[1], v[2], v[3]]).is_nan(),
        _ => f64::from_bits(le_uint(v)).is_nan(),
    }
}
