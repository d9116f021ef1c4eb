//! Floats keyed by their decimals: keys and pages as a map of first
//! appearances by bits gives them, and which index took the values.

use super::scaled::Scale;
use super::tests::check_keys;
use super::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// A float column's values as their bits: 4-byte or 8-byte.
#[derive(Clone, Copy)]
enum Width {
    F32,
    F64,
}

impl Width {
    fn bytes(self, values: &[f64]) -> Vec<u8> {
        match self {
            Width::F32 => values
                .iter()
                .flat_map(|&v| (v as f32).to_le_bytes())
                .collect(),
            Width::F64 => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
        }
    }

    fn size(self) -> usize {
        match self {
            Width::F32 => 4,
            Width::F64 => 8,
        }
    }
}

/// Puts `values` (as floats or doubles) into a float dictionary in calls
/// of the given sizes, in turn, and checks the keys and the dictionary page
/// against a map of first appearances by bits.
fn check(width: Width, values: &[f64], calls: &[usize]) -> Dictionary {
    let dict = Dictionary::with_expected(width.size(), 100_000).for_floats();
    check_keys(dict, &width.bytes(values), calls)
}

/// A price that walks by up to `step` hundredths from `cents`, with `nan`
/// of the values NaN.
fn prices(rng: &mut StdRng, n: usize, cents: i64, step: i64, nan: f64) -> Vec<f64> {
    let mut c = cents;
    (0..n)
        .map(|_| {
            c += rng.random_range(-step..=step);
            match rng.random_bool(nan) {
                true => f64::NAN,
                false => c as f64 / 100.0,
            }
        })
        .collect()
}

const CALLS: [&[usize]; 3] = [&[1024], &[1, 7, 1000], &[5000]];

/// Prices with two decimals take the window keyed by hundredths; NaN goes
/// through the table, in its turn.
#[test]
fn prices_take_the_window() {
    let mut rng = StdRng::seed_from_u64(21);
    for width in [Width::F32, Width::F64] {
        for (cents, nan) in [(10_000, 0.0), (10_000, 0.01), (-50_000, 0.2), (0, 0.0)] {
            let values = prices(&mut rng, 60_000, cents, 20, nan);
            for calls in CALLS {
                let dict = check(width, &values, calls);
                assert!(matches!(dict.scale, Scale::Exponent(2, _)));
                assert!(!dict.dense.keys.is_empty());
            }
        }
        // Prices in a range the first mini-batch shows: the window alone,
        // no table is made.
        let values: Vec<f64> = (0..60_000)
            .map(|_| rng.random_range(-2_000..9_000) as f64 / 100.0)
            .collect();
        for calls in [&[1024][..], &[5000]] {
            let dict = check(width, &values, calls);
            assert!(dict.slots.is_empty() && !dict.dense.keys.is_empty());
        }
    }
}

/// Values that are the same number but not the same bits, or that look
/// like a decimal without being one, are told apart: 0.0 and -0.0, NaN
/// payloads, 0.1 + 0.2 and 0.3, ±∞, subnormals, values past 2^51 (2^22
/// for floats), more decimals than the column's.
#[test]
fn near_misses_are_told_apart() {
    let mut rng = StdRng::seed_from_u64(22);
    let odd = [
        0.0,
        -0.0,
        f64::NAN,
        f64::from_bits(0x7ff8_0000_0000_0001),
        f64::from_bits(0xfff8_0000_0000_0000),
        0.1 + 0.2,
        0.3,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE / 4.0,
        5e-324,
        2_251_799_813_685_248.0,
        22_517_998_136_852.49,
        4_194_304.0,
        41_943.04,
        1.005,
        1.001,
        f64::MAX,
        f64::MIN,
    ];
    for width in [Width::F32, Width::F64] {
        let mut values = prices(&mut rng, 4_000, 100, 3, 0.0);
        for _ in 0..20_000 {
            values.push(match rng.random_bool(0.3) {
                true => odd[rng.random_range(0..odd.len())],
                false => rng.random_range(-300..300) as f64 / 100.0,
            });
        }
        for calls in CALLS {
            let dict = check(width, &values, calls);
            assert!(matches!(dict.scale, Scale::Exponent(2, _)));
        }
    }
}

/// A price that drifts far (the window is made again, the table holds
/// what the old window did not), and earlier values seen again.
#[test]
fn a_drifting_price_moves_the_window() {
    let mut rng = StdRng::seed_from_u64(23);
    for width in [Width::F32, Width::F64] {
        let mut values = Vec::new();
        for round in 0..40i64 {
            let cents = match width {
                Width::F32 => round * 5_000,
                Width::F64 => round * 30_000,
            };
            values.extend(prices(&mut rng, 3_000, cents, 40, 0.01));
            if round % 5 == 4 {
                let earlier = values[rng.random_range(0..values.len())];
                values.extend(std::iter::repeat_n(earlier, 30));
            }
        }
        for calls in CALLS {
            let dict = check(width, &values, calls);
            assert!(!dict.dense.keys.is_empty());
        }
    }
}

/// Whole numbers take exponent 0; thousandths 3.
#[test]
fn the_smallest_exponent_is_chosen() {
    let mut rng = StdRng::seed_from_u64(24);
    for width in [Width::F32, Width::F64] {
        let whole: Vec<f64> = (0..20_000)
            .map(|_| rng.random_range(-5_000..5_000) as f64)
            .collect();
        let dict = check(width, &whole, &[1024]);
        assert!(matches!(dict.scale, Scale::Exponent(0, _)));
        assert!(dict.slots.is_empty());
        let milli: Vec<f64> = (0..20_000)
            .map(|_| rng.random_range(0..9_000) as f64 / 1000.0)
            .collect();
        let dict = check(width, &milli, &[1024]);
        assert!(matches!(dict.scale, Scale::Exponent(3, _)));
    }
}

/// Floats that are not decimals (random bits, random fractions) stop
/// being tried: after a few mini-batches the column is the table's.
#[test]
fn other_floats_stop_trying() {
    let mut rng = StdRng::seed_from_u64(25);
    for width in [Width::F32, Width::F64] {
        let pool: Vec<f64> = (0..3_000).map(|_| rng.random::<f64>() * 1e4).collect();
        let values: Vec<f64> = (0..40_000)
            .map(|_| pool[rng.random_range(0..pool.len())])
            .collect();
        for calls in CALLS {
            let dict = check(width, &values, calls);
            // Every float in this range is the float nearest some number
            // of ten-thousandths: floats may keep an exponent.
            if let Width::F64 = width {
                assert_eq!(dict.scale, Scale::Off);
            }
        }
        // Decimals at first, then not: the exponent is given up after a
        // few mini-batches that do not fit it.
        let mut values = prices(&mut rng, 5_000, 10_000, 20, 0.0);
        values.extend((0..30_000).map(|_| pool[rng.random_range(0..pool.len())]));
        let dict = check(width, &values, &[1024]);
        if let Width::F64 = width {
            assert_eq!(dict.scale, Scale::Off);
        }
    }
}

/// Integers are never keyed by decimals: a dictionary not made for floats
/// keeps its integer window.
#[test]
fn only_float_columns_are_keyed_by_decimals() {
    let dict = Dictionary::with_expected(8, 100).for_floats();
    assert!(dict.floats());
    for width in [1, 2, 12, 16] {
        let dict = Dictionary::with_expected(width, 100).for_floats();
        assert!(!dict.floats() && dict.scale == Scale::Ints, "width {width}");
    }
    assert!(!Dictionary::with_expected(4, 100).floats());
}
