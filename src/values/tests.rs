//! Value kinds, widths and conversions against `parquet`'s own.

use super::native::d256_unfit;
use super::*;
use arrow_array::{Array, Decimal128Array, Decimal256Array, FixedSizeBinaryArray};
use arrow_buffer::i256;

// parquet's function is behind its `experimental` feature (see the
// `upstream-encoders` feature).
#[cfg(all(feature = "upstream-encoders", feature = "parquet-58"))]
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
    let v = NativeValues::new(LeafKind::Decimal128, 10, &a).unwrap();
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
    let v = NativeValues::new(LeafKind::Decimal256, 17, &b).unwrap();
    let mut out = Vec::new();
    v.convert_range(0, 1, &mut out, None);
    let mut expected = vec![0xFF; 16];
    expected.push(0xFD);
    assert_eq!(out, expected);
}

#[test]
fn conversion_appends_after_existing_bytes() {
    let a = Decimal128Array::from(vec![1i128, 2, 3, 4]);
    let v = NativeValues::new(LeafKind::Decimal128, 9, &a).unwrap();
    let mut out = vec![7u8; 3];
    let mut e = Extremes::default();
    v.convert_range(1, 4, &mut out, Some(&mut e));
    assert_eq!(out.len(), 3 + 3 * 9);
    assert_eq!(&out[..3], &[7, 7, 7]);
    assert_eq!(out[3 + 8], 2);
    assert_eq!(out[3 + 26], 4);
    assert_eq!(e.positions(), Some((0, 2)));
    let ym = arrow_array::IntervalYearMonthArray::from(vec![5, -1]);
    let v = NativeValues::new(LeafKind::IntervalYearMonth, 12, &ym).unwrap();
    let mut out = Vec::new();
    v.convert_range(0, 2, &mut out, None);
    assert_eq!(out[..12], [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(out[12..16], [0xFF; 4]);
}

#[test]
fn integer_decimals_are_their_low_little_endian_bytes() {
    use arrow_array::{Decimal32Array, Decimal64Array};
    let d128 = Decimal128Array::from(vec![-2i128, 70_000, i128::from(i32::MIN)]);
    let v = NativeValues::new(LeafKind::Decimal128, 4, &d128).unwrap();
    assert!(v.borrow(0, 3).is_none() && !v.tracks_extremes());
    let mut out = Vec::new();
    v.convert_range(0, 3, &mut out, None);
    let want: Vec<u8> = [-2i32, 70_000, i32::MIN]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(out, want);
    let v = NativeValues::new(LeafKind::Decimal128, 8, &d128).unwrap();
    let mut out = Vec::new();
    v.convert_range(1, 3, &mut out, None);
    let want: Vec<u8> = [70_000i64, i64::from(i32::MIN)]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(out, want);
    let d256 = Decimal256Array::from(vec![i256::from_i128(-5)]);
    let v = NativeValues::new(LeafKind::Decimal256, 8, &d256).unwrap();
    let mut out = Vec::new();
    v.convert_range(0, 1, &mut out, None);
    assert_eq!(out, (-5i64).to_le_bytes());
    // Decimal32 as INT32 and Decimal64 as INT64 are borrowed as they are.
    let d32 = Decimal32Array::from(vec![1, -1]);
    let v = NativeValues::new(LeafKind::Decimal32, 4, &d32).unwrap();
    assert_eq!(v.borrow(0, 2).unwrap(), [1, 0, 0, 0, 255, 255, 255, 255]);
    let d64 = Decimal64Array::from(vec![Some(7), None, Some(1 << 40)]);
    let v = NativeValues::new(LeafKind::Decimal64, 8, &d64).unwrap();
    assert_eq!(v.borrow(2, 3).unwrap(), (1i64 << 40).to_le_bytes());
    // Decimal64 as INT32: a value beyond i32 does not fit.
    let v = NativeValues::new(LeafKind::Decimal64, 4, &d64).unwrap();
    assert_eq!(v.first_unfit_decimal(3, |i| d64.is_valid(i)), Some(2));
    assert_eq!(v.first_unfit_decimal(2, |i| d64.is_valid(i)), None);
    assert_eq!(v.format_decimal(2), (1i64 << 40).to_string());
    let v = NativeValues::new(LeafKind::Decimal128, 4, &d128).unwrap();
    assert_eq!(v.first_unfit_decimal(3, |_| true), None);
    // No decimal width between 4 and 8 or below 4.
    assert!(NativeValues::new(LeafKind::Decimal128, 5, &d128).is_err());
    assert!(NativeValues::new(LeafKind::Decimal32, 8, &d32).is_err());
}

#[test]
fn unsupported_widths_are_errors() {
    let a = Decimal128Array::from(vec![1i128]);
    assert!(NativeValues::new(LeafKind::Decimal128, 17, &a).is_err());
    assert!(NativeValues::new(LeafKind::Decimal128, 0, &a).is_err());
    assert!(NativeValues::new(LeafKind::Decimal256, 16, &a).is_err());
    let f = FixedSizeBinaryArray::try_from_iter([[1u8, 2]].into_iter()).unwrap();
    assert!(NativeValues::new(LeafKind::FixedSizeBinary, 3, &f).is_err());
    assert!(NativeValues::new(LeafKind::FixedSizeBinary, 2, &f).is_ok());
}

#[test]
fn unfit_decimals_are_found() {
    let a = Decimal128Array::from(vec![Some(1i128), None, Some(1 << 80), Some(-(1 << 71))]);
    let v = NativeValues::new(LeafKind::Decimal128, 9, &a).unwrap();
    assert_eq!(v.first_unfit_decimal(4, |i| a.is_valid(i)), Some(2));
    assert_eq!(v.first_unfit_decimal_among(&[0, 3, 2]), Some(2));
    assert_eq!(v.first_unfit_decimal_among(&[0, 3]), None);
    let b = Decimal128Array::from(vec![Some(-(1i128 << 71)), Some((1 << 71) - 1)]);
    let v = NativeValues::new(LeafKind::Decimal128, 9, &b).unwrap();
    assert_eq!(v.first_unfit_decimal(2, |_| true), None);
    let c = Decimal256Array::from(vec![Some(i256::from_i128(1)), Some(i256::MAX)]);
    let v = NativeValues::new(LeafKind::Decimal256, 17, &c).unwrap();
    assert_eq!(v.first_unfit_decimal(2, |_| true), Some(1));
    assert_eq!(v.first_unfit_decimal(2, |i| i == 0), None);
    assert_eq!(v.format_decimal(0), "1");
}

/// The shift-wise Decimal256 check agrees with the byte-wise one at every
/// width, on each side of every width's bounds.
#[test]
fn decimal256_fit_matches_the_bytes() {
    let mut values = vec![i256::ZERO, i256::ONE, i256::MINUS_ONE, i256::MAX, i256::MIN];
    for bits in 1..256u32 {
        let edge = i256::ONE << (bits - 1) as u8;
        for v in [edge, edge.wrapping_neg()] {
            values.extend([v, v.wrapping_add(i256::ONE), v.wrapping_sub(i256::ONE)]);
        }
    }
    let a = Decimal256Array::from(values.clone());
    for width in 1..32 {
        let shift = 8 * width as u8 - 1;
        for v in &values {
            let bytes = v.to_le_bytes();
            let fill = if bytes[width - 1] & 0x80 != 0 {
                0xFF
            } else {
                0
            };
            let want = bytes[width..].iter().any(|&b| b != fill);
            assert_eq!(d256_unfit(&bytes, shift), want, "{v} in {width} bytes");
        }
        if width > 16 {
            let v = NativeValues::new(LeafKind::Decimal256, width, &a).unwrap();
            let want = values.iter().position(|x| {
                let b = x.to_le_bytes();
                let fill = if b[width - 1] & 0x80 != 0 { 0xFF } else { 0 };
                b[width..].iter().any(|&c| c != fill)
            });
            assert_eq!(v.first_unfit_decimal(values.len(), |_| true), want);
        }
    }
}

#[test]
fn fixed_size_binary_is_borrowed() {
    let a = FixedSizeBinaryArray::try_from_iter([[1u8, 2], [3, 4], [5, 6]].into_iter()).unwrap();
    let a = a.slice(1, 2);
    let v = NativeValues::new(LeafKind::FixedSizeBinary, 2, &a).unwrap();
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
    let mut cases: Vec<(LeafKind, usize, ArrayRef)> = Vec::new();
    let d128: ArrayRef = Arc::new(Decimal128Array::from(i128s.clone()));
    let d256: ArrayRef = Arc::new(Decimal256Array::from(
        i128s
            .iter()
            .map(|&v| i256::from_i128(v))
            .collect::<Vec<_>>(),
    ));
    for w in [4, 8, 9, 10, 12, 16] {
        cases.push((LeafKind::Decimal128, w, d128.clone()));
    }
    for w in [4, 8, 9, 13, 16, 17, 24, 32] {
        cases.push((LeafKind::Decimal256, w, d256.clone()));
    }
    let small: Vec<i32> = (0..n).map(|_| r.random()).collect();
    cases.push((
        LeafKind::Decimal32,
        4,
        Arc::new(Decimal32Array::from(small.clone())),
    ));
    let d64 = Decimal64Array::from(small.iter().map(|&v| v as i64).collect::<Vec<_>>());
    cases.push((LeafKind::Decimal64, 8, Arc::new(d64.clone())));
    cases.push((LeafKind::Decimal64, 4, Arc::new(d64)));
    for w in [2usize, 3, 4, 8, 12, 16, 20, 32] {
        let bytes: Vec<Vec<u8>> = (0..n)
            .map(|_| (0..w).map(|_| r.random()).collect())
            .collect();
        let a = FixedSizeBinaryArray::try_from_iter(bytes.into_iter()).unwrap();
        cases.push((LeafKind::FixedSizeBinary, w, Arc::new(a)));
    }
    let f16 = Float16Array::from(
        (0..n)
            .map(|_| half::f16::from_bits(r.random()))
            .collect::<Vec<_>>(),
    );
    cases.push((LeafKind::Float16, 2, Arc::new(f16)));
    cases.push((
        LeafKind::IntervalYearMonth,
        12,
        Arc::new(IntervalYearMonthArray::from(small)),
    ));
    let dt = IntervalDayTimeArray::from(
        (0..n)
            .map(|_| IntervalDayTime::new(r.random(), r.random()))
            .collect::<Vec<_>>(),
    );
    cases.push((LeafKind::IntervalDayTime, 12, Arc::new(dt)));
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

/// `ValueOrder::of` follows the comparison rules `parquet` applies to the
/// descriptor its schema converter makes of each Arrow type.
#[test]
fn value_order_follows_the_descriptor() {
    use arrow_schema::{DataType, Field, IntervalUnit, Schema, TimeUnit};
    let cases = [
        (DataType::FixedSizeBinary(16), ValueOrder::Unsigned),
        (DataType::Decimal128(38, 2), ValueOrder::Signed),
        (DataType::Decimal256(40, 2), ValueOrder::Signed),
        (DataType::Decimal128(9, 2), ValueOrder::SignedLe),
        (DataType::Decimal64(18, 2), ValueOrder::SignedLe),
        (DataType::Decimal32(5, 2), ValueOrder::SignedLe),
        (DataType::Float16, ValueOrder::Float),
        (
            DataType::Interval(IntervalUnit::YearMonth),
            ValueOrder::Undefined,
        ),
        (
            DataType::Interval(IntervalUnit::DayTime),
            ValueOrder::Undefined,
        ),
        (DataType::Int8, ValueOrder::SignedLe),
        (DataType::Int64, ValueOrder::SignedLe),
        (DataType::UInt8, ValueOrder::UnsignedLe),
        (DataType::UInt32, ValueOrder::UnsignedLe),
        (DataType::UInt64, ValueOrder::UnsignedLe),
        (DataType::Float32, ValueOrder::Float),
        (DataType::Float64, ValueOrder::Float),
        (DataType::Date32, ValueOrder::SignedLe),
        (DataType::Date64, ValueOrder::SignedLe),
        (DataType::Time64(TimeUnit::Nanosecond), ValueOrder::SignedLe),
        (
            DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
            ValueOrder::SignedLe,
        ),
        (
            DataType::Duration(TimeUnit::Millisecond),
            ValueOrder::SignedLe,
        ),
        (DataType::Boolean, ValueOrder::Unsigned),
        (DataType::Utf8, ValueOrder::Unsigned),
        (DataType::Binary, ValueOrder::Unsigned),
    ];
    let fields: Vec<Field> = cases
        .iter()
        .enumerate()
        .map(|(i, (t, _))| Field::new(format!("c{i}"), t.clone(), true))
        .collect();
    let descr = parquet::arrow::ArrowSchemaConverter::new()
        .convert(&Schema::new(fields))
        .unwrap();
    for (i, (t, order)) in cases.iter().enumerate() {
        assert_eq!(ValueOrder::of(&descr.column(i)), *order, "{t}");
    }
}
