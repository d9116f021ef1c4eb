//! Page min/max against a naive model, and each order against the
//! integer or float order it stands for.

use super::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

fn naive(order: ValueOrder, values: &[u8], width: usize) -> Option<(Vec<u8>, Vec<u8>, u64)> {
    let vals: Vec<&[u8]> = values.chunks_exact(width).collect();
    let nans = vals.iter().filter(|v| order.is_nan(v)).count() as u64;
    let candidates: Vec<&[u8]> = if vals.iter().all(|v| order.is_nan(v)) {
        vals.clone()
    } else {
        vals.iter().copied().filter(|v| !order.is_nan(v)).collect()
    };
    let min = candidates.iter().copied().min_by(|a, b| order.cmp(a, b))?;
    let max = candidates.iter().copied().max_by(|a, b| order.cmp(a, b))?;
    Some((min.to_vec(), max.to_vec(), nans))
}

#[test]
fn batch_min_max_matches_naive() {
    let mut rng = StdRng::seed_from_u64(5);
    for case in 0..3000 {
        let (order, width) = match case % 6 {
            0 => (ValueOrder::Unsigned, rng.random_range(1..40)),
            1 => (ValueOrder::Signed, rng.random_range(1..40)),
            2 => (ValueOrder::SignedLe, [4, 8][rng.random_range(0..2)]),
            3 => (ValueOrder::UnsignedLe, [4, 8][rng.random_range(0..2)]),
            _ => (ValueOrder::Float, [2, 4, 8][rng.random_range(0..3)]),
        };
        let n = rng.random_range(1..[50, 300][case % 2]);
        let values: Vec<u8> = (0..n * width)
            .map(|_| {
                *[0u8, 1, 0x7C, 0x7E, 0x80, 0xFC, 0xFE, 0xFF]
                    .get(rng.random_range(0..8))
                    .unwrap()
            })
            .collect();
        let Some((lo, hi, nans)) = batch_min_max(order, Slots::fixed(&values, width)) else {
            // parquet 59: no min/max for a batch of only NaN (D3).
            assert!(
                !crate::compat::FLOAT_TOTAL_ORDER
                    && values.chunks_exact(width).all(|v| order.is_nan(v)),
                "case {case}"
            );
            continue;
        };
        let (nmin, nmax, nnans) = naive(order, &values, width).unwrap();
        assert_eq!(
            &values[lo * width..(lo + 1) * width],
            nmin.as_slice(),
            "case {case}"
        );
        assert_eq!(
            &values[hi * width..(hi + 1) * width],
            nmax.as_slice(),
            "case {case}"
        );
        assert_eq!(nans, nnans);
    }
}

#[test]
fn little_endian_order_is_integer_order() {
    let vals: [i64; 9] = [i64::MIN, -(1 << 40), -300, -1, 0, 1, 255, 1 << 33, i64::MAX];
    for a in vals {
        for b in vals {
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            assert_eq!(ValueOrder::SignedLe.cmp(&x, &y), a.cmp(&b), "{a} {b}");
            let (a, b) = (a as i32, b as i32);
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            assert_eq!(ValueOrder::SignedLe.cmp(&x, &y), a.cmp(&b), "{a} {b}");
        }
    }
    let values: Vec<u8> = [5i32, -7, i32::MAX, 0, i32::MIN, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(
        batch_min_max(ValueOrder::SignedLe, Slots::fixed(&values, 4)),
        Some((4, 2, 0))
    );
}

#[test]
fn float_order_is_total_order() {
    let f64s = [
        f64::NEG_INFINITY,
        -1e300,
        -1.5,
        -0.0,
        0.0,
        f64::MIN_POSITIVE,
        2.25,
        f64::INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7FF0_0000_0000_0001),
    ];
    for a in f64s {
        for b in f64s {
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            assert_eq!(ValueOrder::Float.cmp(&x, &y), a.total_cmp(&b), "{a} {b}");
            assert_eq!(ValueOrder::Float.is_nan(&x), a.is_nan());
            let (a, b) = (a as f32, b as f32);
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            assert_eq!(ValueOrder::Float.cmp(&x, &y), a.total_cmp(&b), "{a} {b}");
            assert_eq!(ValueOrder::Float.is_nan(&x), a.is_nan());
        }
    }
    let values: Vec<u8> = [f64::NAN, 3.0, -0.0, 0.0, f64::NAN, -7.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(
        batch_min_max(ValueOrder::Float, Slots::fixed(&values, 8)),
        Some((5, 1, 2))
    );
    let mut zeros = MinMax::default();
    zeros.update(
        ValueOrder::Float,
        &0.0f32.to_le_bytes(),
        &(-0.0f32).to_le_bytes(),
    );
    zeros.replace_float_zeros();
    assert_eq!(zeros.min(), Some(&(-0.0f32).to_le_bytes()[..]));
    assert_eq!(zeros.max(), Some(&0.0f32.to_le_bytes()[..]));
}

#[test]
fn unsigned_le_order_is_unsigned_integer_order() {
    let vals: [u64; 6] = [0, 1, 255, 1 << 31, (1 << 32) + 7, u64::MAX];
    for a in vals {
        for b in vals {
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            assert_eq!(ValueOrder::UnsignedLe.cmp(&x, &y), a.cmp(&b), "{a} {b}");
            let (a, b) = (a as u32, b as u32);
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            assert_eq!(ValueOrder::UnsignedLe.cmp(&x, &y), a.cmp(&b), "{a} {b}");
        }
    }
}

#[test]
fn signed_order_is_integer_order() {
    let vals: [i64; 7] = [i64::MIN, -300, -1, 0, 1, 255, i64::MAX];
    for a in vals {
        for b in vals {
            let (x, y) = (a.to_be_bytes(), b.to_be_bytes());
            assert_eq!(ValueOrder::Signed.cmp(&x, &y), a.cmp(&b));
        }
    }
}

/// Floats mostly NaN (whole blocks of them, NaNs of either sign and any
/// payload) among ±0, ±∞ and ordinary values: the blocked pass gives the
/// naive min, max and NaN count.
#[test]
fn nan_heavy_floats_match_naive() {
    let mut rng = StdRng::seed_from_u64(6);
    for case in 0..400 {
        let width = [4, 8][case % 2];
        let n = rng.random_range(1..700);
        let nan_share = [0.5, 0.97, 0.999, 1.0][case % 4];
        let mut values = Vec::new();
        for _ in 0..n {
            let x: f64 = match rng.random_bool(nan_share) {
                true => f64::from_bits(0x7FF0_0000_0000_0001 | rng.random::<u64>()),
                false => *[0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1.5, -2.25]
                    .get(rng.random_range(0..6))
                    .unwrap(),
            };
            match width {
                4 => {
                    let bits = match x.is_nan() {
                        true => 0x7F80_0001 | rng.random::<u32>(),
                        false => (x as f32).to_bits(),
                    };
                    values.extend_from_slice(&bits.to_le_bytes());
                }
                _ => values.extend_from_slice(&x.to_bits().to_le_bytes()),
            }
        }
        let order = ValueOrder::Float;
        let got = batch_min_max(order, Slots::fixed(&values, width));
        let (nmin, nmax, nnans) = naive(order, &values, width).unwrap();
        let Some((lo, hi, nans)) = got else {
            assert!(
                !crate::compat::FLOAT_TOTAL_ORDER && nnans == n as u64,
                "case {case}"
            );
            continue;
        };
        assert_eq!(
            &values[lo * width..(lo + 1) * width],
            nmin.as_slice(),
            "case {case}"
        );
        assert_eq!(
            &values[hi * width..(hi + 1) * width],
            nmax.as_slice(),
            "case {case}"
        );
        assert_eq!(nans, nnans, "case {case}");
    }
}
