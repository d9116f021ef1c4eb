//! Arrow arrays whose values this crate writes (FIXED_LEN_BYTE_ARRAY, and
//! decimals stored as INT32 / INT64), read straight from their buffers.
//!
//! | Arrow type | Parquet bytes (width `L`) |
//! |---|---|
//! | `FixedSizeBinary(n)` | the `n` bytes as stored |
//! | `Decimal128` / `Decimal256` (precision ≥ 19) | two's complement, big-endian, the low `L` bytes |
//! | any decimal of precision ≤ 9 (INT32) / ≤ 18 (INT64) | two's complement, little-endian, the low 4 / 8 bytes |
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
    /// 9 bytes wide (precision ≥ 19), and [`NativeValues::new`] admits no
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

/// Byte width of a decimal of `precision` digits stored as
/// FIXED_LEN_BYTE_ARRAY, computed as `parquet` computes it.
pub(crate) fn decimal_width(precision: u8) -> usize {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// Bytes per value of a leaf this crate writes: 4 for INT32, 8 for INT64,
/// the type length for FIXED_LEN_BYTE_ARRAY (0 for any other physical type).
pub(crate) fn parquet_width(descr: &parquet::schema::types::ColumnDescriptor) -> usize {
    use parquet::basic::Type;
    match descr.physical_type() {
        Type::INT32 => 4,
        Type::INT64 => 8,
        Type::FIXED_LEN_BYTE_ARRAY => descr.type_length().max(0) as usize,
        _ => 0,
    }
}

/// Bytes a decimal of `precision` digits is stored in, as `parquet`'s schema
/// converter stores it: INT32 (4) up to 9 digits, INT64 (8) up to 18,
/// FIXED_LEN_BYTE_ARRAY of [`decimal_width`] bytes above.
pub(crate) fn decimal_stored_width(precision: u8) -> usize {
    match decimal_physical_type(precision) {
        parquet::basic::Type::INT32 => 4,
        parquet::basic::Type::INT64 => 8,
        _ => decimal_width(precision),
    }
}

/// The physical type `parquet`'s schema converter stores a decimal of
/// `precision` digits as (precision 1 is INT64 under parquet 59, D14).
pub(crate) fn decimal_physical_type(precision: u8) -> parquet::basic::Type {
    use parquet::basic::Type;
    match precision {
        p if (crate::compat::DECIMAL_INT32_MIN_PRECISION..=9).contains(&p) => Type::INT32,
        0..=18 => Type::INT64,
        _ => Type::FIXED_LEN_BYTE_ARRAY,
    }
}

/// The name of the physical type a decimal of `precision` digits is stored as.
pub(crate) fn decimal_physical_name(precision: u8) -> &'static str {
    match decimal_physical_type(precision) {
        parquet::basic::Type::INT32 => "INT32",
        parquet::basic::Type::INT64 => "INT64",
        _ => "FIXED_LEN_BYTE_ARRAY",
    }
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
    fn integer_decimals_are_their_low_little_endian_bytes() {
        use arrow_array::{Decimal32Array, Decimal64Array};
        let d128 = Decimal128Array::from(vec![-2i128, 70_000, i128::from(i32::MIN)]);
        let v = NativeValues::new(FlbaKind::Decimal128, 4, &d128).unwrap();
        assert!(v.borrow(0, 3).is_none() && !v.tracks_extremes());
        assert_eq!(FlbaKind::Decimal128.order(4), ValueOrder::SignedLe);
        assert_eq!(FlbaKind::Decimal128.order(9), ValueOrder::Signed);
        let mut out = Vec::new();
        v.convert_range(0, 3, &mut out, None);
        let want: Vec<u8> = [-2i32, 70_000, i32::MIN]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(out, want);
        let v = NativeValues::new(FlbaKind::Decimal128, 8, &d128).unwrap();
        let mut out = Vec::new();
        v.convert_range(1, 3, &mut out, None);
        let want: Vec<u8> = [70_000i64, i64::from(i32::MIN)]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(out, want);
        let d256 = Decimal256Array::from(vec![i256::from_i128(-5)]);
        let v = NativeValues::new(FlbaKind::Decimal256, 8, &d256).unwrap();
        let mut out = Vec::new();
        v.convert_range(0, 1, &mut out, None);
        assert_eq!(out, (-5i64).to_le_bytes());
        // Decimal32 as INT32 and Decimal64 as INT64 are borrowed as they are.
        let d32 = Decimal32Array::from(vec![1, -1]);
        let v = NativeValues::new(FlbaKind::Decimal32, 4, &d32).unwrap();
        assert_eq!(v.borrow(0, 2).unwrap(), [1, 0, 0, 0, 255, 255, 255, 255]);
        let d64 = Decimal64Array::from(vec![Some(7), None, Some(1 << 40)]);
        let v = NativeValues::new(FlbaKind::Decimal64, 8, &d64).unwrap();
        assert_eq!(v.borrow(2, 3).unwrap(), (1i64 << 40).to_le_bytes());
        // Decimal64 as INT32: a value beyond i32 does not fit.
        let v = NativeValues::new(FlbaKind::Decimal64, 4, &d64).unwrap();
        assert_eq!(v.first_unfit_decimal(3, |i| d64.is_valid(i)), Some(2));
        assert_eq!(v.first_unfit_decimal(2, |i| d64.is_valid(i)), None);
        assert_eq!(v.format_decimal(2), (1i64 << 40).to_string());
        let v = NativeValues::new(FlbaKind::Decimal128, 4, &d128).unwrap();
        assert_eq!(v.first_unfit_decimal(3, |_| true), None);
        // No decimal width between 4 and 8 or below 4.
        assert!(NativeValues::new(FlbaKind::Decimal128, 5, &d128).is_err());
        assert!(NativeValues::new(FlbaKind::Decimal32, 8, &d32).is_err());
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

    /// `gather` gives the bytes and extremes positions of converting each
    /// position on its own, for every kind and width (the sparse path of
    /// nullable and nested leaves).
    #[test]
    fn gather_matches_one_value_at_a_time() {
        use arrow_array::{
            ArrayRef, Decimal32Array, Decimal64Array, Float16Array, IntervalDayTimeArray,
            IntervalYearMonthArray,
        };
        use arrow_buffer::IntervalDayTime;
        use rand::{Rng, SeedableRng, rngs::StdRng};
        use std::sync::Arc;
        let mut r = StdRng::seed_from_u64(5);
        let n = 300;
        let i128s: Vec<i128> = (0..n).map(|_| r.random::<i64>() as i128 * 1000).collect();
        let mut cases: Vec<(FlbaKind, usize, ArrayRef)> = Vec::new();
        let d128: ArrayRef = Arc::new(Decimal128Array::from(i128s.clone()));
        let d256: ArrayRef = Arc::new(Decimal256Array::from(
            i128s
                .iter()
                .map(|&v| i256::from_i128(v))
                .collect::<Vec<_>>(),
        ));
        for w in [4, 8, 9, 10, 12, 16] {
            cases.push((FlbaKind::Decimal128, w, d128.clone()));
        }
        for w in [4, 8, 9, 13, 16, 17, 24, 32] {
            cases.push((FlbaKind::Decimal256, w, d256.clone()));
        }
        let small: Vec<i32> = (0..n).map(|_| r.random()).collect();
        cases.push((
            FlbaKind::Decimal32,
            4,
            Arc::new(Decimal32Array::from(small.clone())),
        ));
        let d64 = Decimal64Array::from(small.iter().map(|&v| v as i64).collect::<Vec<_>>());
        cases.push((FlbaKind::Decimal64, 8, Arc::new(d64.clone())));
        cases.push((FlbaKind::Decimal64, 4, Arc::new(d64)));
        for w in [2usize, 3, 4, 8, 12, 16, 20, 32] {
            let bytes: Vec<Vec<u8>> = (0..n)
                .map(|_| (0..w).map(|_| r.random()).collect())
                .collect();
            let a = FixedSizeBinaryArray::try_from_iter(bytes.into_iter()).unwrap();
            cases.push((FlbaKind::FixedSizeBinary, w, Arc::new(a)));
        }
        let f16 = Float16Array::from(
            (0..n)
                .map(|_| half::f16::from_bits(r.random()))
                .collect::<Vec<_>>(),
        );
        cases.push((FlbaKind::Float16, 2, Arc::new(f16)));
        cases.push((
            FlbaKind::IntervalYearMonth,
            12,
            Arc::new(IntervalYearMonthArray::from(small)),
        ));
        let dt = IntervalDayTimeArray::from(
            (0..n)
                .map(|_| IntervalDayTime::new(r.random(), r.random()))
                .collect::<Vec<_>>(),
        );
        cases.push((FlbaKind::IntervalDayTime, 12, Arc::new(dt)));
        for (kind, width, array) in cases {
            let array = array.slice(3, n - 3);
            let v = NativeValues::new(kind, width, array.as_ref()).unwrap();
            for round in 0..20 {
                let k = r.random_range(0..60);
                let positions: Vec<usize> = (0..k).map(|_| r.random_range(0..n - 3)).collect();
                let (mut got, mut want) = (vec![1u8], vec![1u8]);
                let (mut eg, mut ew) = (Extremes::default(), Extremes::default());
                v.gather(&positions, &mut got, Some(&mut eg));
                for &p in &positions {
                    v.convert_range(p, p + 1, &mut want, Some(&mut ew));
                }
                assert_eq!(got, want, "{kind:?} width {width} round {round}");
                assert_eq!(eg.positions(), ew.positions(), "{kind:?} width {width}");
            }
            // Compaction by a validity bitmap: densities from empty to full,
            // ranges and bit offsets that do and do not align to words.
            for round in 0..40 {
                let density = [0.0, 0.3, 0.5, 0.8, 0.97, 1.0][round % 6];
                let start = r.random_range(0..40);
                let end = r.random_range(start..n - 3);
                let bit_offset = r.random_range(0..70);
                let valid: Vec<bool> = (start..end).map(|_| r.random_bool(density)).collect();
                let mut bits = vec![0u8; (bit_offset + valid.len()).div_ceil(8) + 1];
                for (i, &ok) in valid.iter().enumerate() {
                    if ok {
                        let b = bit_offset + i;
                        bits[b / 8] |= 1 << (b % 8);
                    }
                }
                let count = valid.iter().filter(|&&ok| ok).count();
                let (mut got, mut want) = (vec![1u8], vec![1u8]);
                let (mut eg, mut ew) = (Extremes::default(), Extremes::default());
                v.compact(
                    (start, end),
                    (&bits, bit_offset),
                    count,
                    &mut got,
                    Some(&mut eg),
                );
                for (i, &ok) in valid.iter().enumerate() {
                    if ok {
                        v.convert_range(start + i, start + i + 1, &mut want, Some(&mut ew));
                    }
                }
                assert_eq!(got, want, "{kind:?} width {width} compact round {round}");
                assert_eq!(eg.positions(), ew.positions(), "{kind:?} width {width}");
            }
        }
    }
}
