//! Arrow arrays whose values Parquet stores as FIXED_LEN_BYTE_ARRAY, read
//! straight from their buffers.
//!
//! | Arrow type | Parquet bytes (width `L`) |
//! |---|---|
//! | `FixedSizeBinary(n)` | the `n` bytes as stored |
//! | `Decimal128` / `Decimal256` (precision ≥ 19) | two's complement, big-endian, the low `L` bytes |
//! | `Float16` | 2 bytes, little-endian |
//! | `Interval(YearMonth)` | months (i32 LE), then 8 zero bytes |
//! | `Interval(DayTime)` | 4 zero bytes, days (i32 LE), milliseconds (i32 LE) |
//!
//! * [`NativeValues`] (`native`) views a leaf's values buffer and checks it;
//! * `convert` turns a contiguous run of values into Parquet bytes in a
//!   caller-owned buffer (a `FixedSizeBinary` run needs no conversion and is
//!   borrowed), folding decimal [`Extremes`] in on the way;
//! * [`order`] says how a column's values compare for statistics;
//! * [`ValueSource`] (`source`) hands the page builder the values of one
//!   mini-batch: a range, the valid positions of a bitmap, or listed positions.

mod convert;
mod extremes;
mod native;
pub(crate) mod order;
mod source;

pub(crate) use extremes::Extremes;
pub(crate) use native::NativeValues;
pub(crate) use order::ValueOrder;
pub(crate) use source::{BitmapValues, EmptyValues, IndexValues, RangeValues, ValueSource};

use arrow_schema::{DataType, IntervalUnit};

/// The kind of a FIXED_LEN_BYTE_ARRAY leaf, by its Arrow type. Public as
/// [`LeafKind`](crate::LeafKind) in the column plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FlbaKind {
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

impl FlbaKind {
    /// The kind of an Arrow leaf type, whether or not the fast path can take
    /// it (a `Decimal128(9, 2)` is a [`FlbaKind::Decimal128`] stored as
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

    /// Bytes per value in the Arrow buffer.
    pub(crate) fn native_width(self, width: usize) -> usize {
        match self {
            Self::FixedSizeBinary => width,
            Self::Decimal128 => 16,
            Self::Decimal256 => 32,
            Self::Float16 => 2,
            Self::IntervalYearMonth => 4,
            Self::IntervalDayTime => 8,
        }
    }

    /// How the column's statistics order values.
    pub(crate) fn order(self) -> ValueOrder {
        match self {
            Self::FixedSizeBinary => ValueOrder::Unsigned,
            Self::Decimal128 | Self::Decimal256 => ValueOrder::Signed,
            Self::Float16 => ValueOrder::Float16,
            Self::IntervalYearMonth | Self::IntervalDayTime => ValueOrder::Undefined,
        }
    }
}

/// Byte width of a decimal of `precision` digits stored as
/// FIXED_LEN_BYTE_ARRAY, computed as `parquet` computes it.
pub(crate) fn decimal_width(precision: u8) -> usize {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// The precision of a decimal type (0 for any other type).
pub(crate) fn decimal_precision(data_type: &DataType) -> u8 {
    match data_type {
        DataType::Decimal32(p, _)
        | DataType::Decimal64(p, _)
        | DataType::Decimal128(p, _)
        | DataType::Decimal256(p, _) => *p,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Decimal128Array, Decimal256Array, FixedSizeBinaryArray};
    use arrow_buffer::i256;

    #[test]
    fn decimal_width_matches_upstream() {
        for p in 1..=76u8 {
            assert_eq!(
                decimal_width(p),
                parquet::arrow::schema::decimal_length_from_precision(p),
                "precision {p}"
            );
        }
    }

    #[test]
    fn decimal_conversion_is_big_endian_truncated() {
        let a = Decimal128Array::from(vec![1i128, -2, 0x0102_0304_0506_0708_090A]).slice(1, 2);
        let v = NativeValues::new(FlbaKind::Decimal128, 10, &a).unwrap();
        let mut out = Vec::new();
        v.convert_range(0, 2, &mut out, None);
        let mut expected = vec![0xFF; 9];
        expected.push(0xFE);
        expected.extend_from_slice(
            &[
                0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
            ][1..],
        );
        assert_eq!(out, expected);

        let b = Decimal256Array::from(vec![i256::from_i128(-3)]);
        let v = NativeValues::new(FlbaKind::Decimal256, 17, &b).unwrap();
        let mut out = Vec::new();
        v.convert_range(0, 1, &mut out, None);
        let mut expected = vec![0xFF; 16];
        expected.push(0xFD);
        assert_eq!(out, expected);
    }

    #[test]
    fn conversion_appends_after_existing_bytes() {
        let a = Decimal128Array::from(vec![1i128, 2, 3, 4]);
        let v = NativeValues::new(FlbaKind::Decimal128, 9, &a).unwrap();
        let mut out = vec![7u8; 3];
        let mut e = Extremes::default();
        v.convert_range(1, 4, &mut out, Some(&mut e));
        assert_eq!(out.len(), 3 + 3 * 9);
        assert_eq!(&out[..3], &[7, 7, 7]);
        assert_eq!(out[3 + 8], 2);
        assert_eq!(out[3 + 26], 4);
        assert_eq!(e.positions(), Some((0, 2)));
        let ym = arrow_array::IntervalYearMonthArray::from(vec![5, -1]);
        let v = NativeValues::new(FlbaKind::IntervalYearMonth, 12, &ym).unwrap();
        let mut out = Vec::new();
        v.convert_range(0, 2, &mut out, None);
        assert_eq!(out[..12], [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(out[12..16], [0xFF; 4]);
    }

    #[test]
    fn unsupported_widths_are_errors() {
        let a = Decimal128Array::from(vec![1i128]);
        assert!(NativeValues::new(FlbaKind::Decimal128, 17, &a).is_err());
        assert!(NativeValues::new(FlbaKind::Decimal128, 0, &a).is_err());
        assert!(NativeValues::new(FlbaKind::Decimal256, 16, &a).is_err());
        let f = FixedSizeBinaryArray::try_from_iter([[1u8, 2]].into_iter()).unwrap();
        assert!(NativeValues::new(FlbaKind::FixedSizeBinary, 3, &f).is_err());
        assert!(NativeValues::new(FlbaKind::FixedSizeBinary, 2, &f).is_ok());
    }

    #[test]
    fn unfit_decimals_are_found() {
        let a = Decimal128Array::from(vec![Some(1i128), None, Some(1 << 80), Some(-(1 << 71))]);
        let v = NativeValues::new(FlbaKind::Decimal128, 9, &a).unwrap();
        assert_eq!(v.first_unfit_decimal(4, |i| a.is_valid(i)), Some(2));
        assert_eq!(v.first_unfit_decimal_among(&[0, 3, 2]), Some(2));
        assert_eq!(v.first_unfit_decimal_among(&[0, 3]), None);
        let b = Decimal128Array::from(vec![Some(-(1i128 << 71)), Some((1 << 71) - 1)]);
        let v = NativeValues::new(FlbaKind::Decimal128, 9, &b).unwrap();
        assert_eq!(v.first_unfit_decimal(2, |_| true), None);
        let c = Decimal256Array::from(vec![Some(i256::from_i128(1)), Some(i256::MAX)]);
        let v = NativeValues::new(FlbaKind::Decimal256, 17, &c).unwrap();
        assert_eq!(v.first_unfit_decimal(2, |_| true), Some(1));
        assert_eq!(v.first_unfit_decimal(2, |i| i == 0), None);
        assert_eq!(v.format_decimal(0), "1");
    }

    #[test]
    fn fixed_size_binary_is_borrowed() {
        let a =
            FixedSizeBinaryArray::try_from_iter([[1u8, 2], [3, 4], [5, 6]].into_iter()).unwrap();
        let a = a.slice(1, 2);
        let v = NativeValues::new(FlbaKind::FixedSizeBinary, 2, &a).unwrap();
        assert_eq!(v.borrow(0, 2).unwrap(), &[3, 4, 5, 6]);
        let mut out = Vec::new();
        v.convert_range(0, 2, &mut out, None);
        assert_eq!(out, [3, 4, 5, 6]);
    }
}
