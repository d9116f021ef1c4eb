//! How the values of a column are ordered for statistics, in the order
//! `parquet` uses for each kind of column.
//!
//! * FixedSizeBinary / UUID: unsigned lexicographic bytes.
//! * Decimals: signed big-endian two's complement (all values have the column's
//!   width, so this is an unsigned compare with the sign bit flipped).
//! * Decimals stored as INT32 / INT64: signed little-endian integers.
//! * Float16: IEEE 754 total order on the little-endian bits; NaNs are skipped
//!   unless every value is NaN, and counted.
//! * Intervals: no min/max at all.

use std::cmp::Ordering;

/// How values of a column are ordered for statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueOrder {
    /// Unsigned lexicographic (FixedSizeBinary, UUID).
    Unsigned,
    /// Signed big-endian (FIXED_LEN_BYTE_ARRAY decimals).
    Signed,
    /// Signed little-endian integers of 4 or 8 bytes (INT32 / INT64
    /// decimals).
    SignedLe,
    /// IEEE 754 total order of little-endian half floats.
    Float16,
    /// No order: no min/max statistics (intervals).
    Undefined,
}

impl ValueOrder {
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
            Self::Float16 => f16_key(a).cmp(&f16_key(b)),
        }
    }

    /// True for a Float16 NaN.
    #[inline]
    pub(crate) fn is_nan(self, v: &[u8]) -> bool {
        self == Self::Float16 && f16_is_nan(f16_bits(v))
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
