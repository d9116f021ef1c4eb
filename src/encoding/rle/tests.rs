//! The RLE / bit-packing hybrid against `parquet`'s `RleEncoder`, byte for byte.

use super::*;
use parquet::encodings::rle::RleEncoder as Upstream;
use rand::{Rng, SeedableRng, rngs::StdRng};

fn upstream(bit_width: u8, values: &[u32]) -> Vec<u8> {
    let mut enc = Upstream::new(bit_width, 0);
    for &v in values {
        enc.put(v as u64);
    }
    enc.consume()
}

fn ours_put(bit_width: u8, values: &[u32]) -> Vec<u8> {
    let mut enc = RleEncoder::new(bit_width);
    for &v in values {
        enc.put(v);
    }
    let mut out = Vec::new();
    enc.finish_into(&mut out);
    out
}

fn ours_slice(bit_width: u8, values: &[u32]) -> Vec<u8> {
    let mut enc = RleEncoder::new(bit_width);
    let mid = values.len() / 3;
    enc.put_slice(&values[..mid]);
    enc.put_slice(&values[mid..]);
    let mut out = Vec::new();
    enc.finish_into(&mut out);
    out
}

fn ours_runs(bit_width: u8, values: &[u32]) -> Vec<u8> {
    let mut enc = RleEncoder::new(bit_width);
    let mut i = 0;
    while i < values.len() {
        let run = values[i..].iter().take_while(|&&x| x == values[i]).count();
        enc.put_run(values[i], run);
        i += run;
    }
    let mut out = Vec::new();
    enc.finish_into(&mut out);
    out
}

#[test]
fn matches_upstream_on_random_runs() {
    let mut rng = StdRng::seed_from_u64(7);
    for case in 0..2000 {
        let bit_width: u8 = rng.random_range(0..=20);
        let max = if bit_width == 0 {
            0
        } else {
            (1u64 << bit_width) - 1
        } as u32;
        let n = rng.random_range(0..1200);
        let mut values = Vec::with_capacity(n);
        while values.len() < n {
            let cap = rng.random_range(0..=max.max(1));
            let v = rng.random_range(0..=max.min(cap));
            let run = match rng.random_range(0..4) {
                0 => 1,
                1 => rng.random_range(1..10),
                2 => rng.random_range(1..40),
                _ => rng.random_range(1..600),
            };
            values.extend(std::iter::repeat_n(v.min(max), run.min(n - values.len())));
        }
        let expected = upstream(bit_width, &values);
        assert_eq!(ours_put(bit_width, &values), expected, "put case {case}");
        assert_eq!(
            ours_slice(bit_width, &values),
            expected,
            "slice case {case}"
        );
        assert_eq!(ours_runs(bit_width, &values), expected, "runs case {case}");
    }
}

#[test]
fn put_bits_matches_per_value_puts() {
    let mut rng = StdRng::seed_from_u64(9);
    for case in 0..3000 {
        let n: usize = rng.random_range(0..600);
        let mut bits = vec![0u8; n.div_ceil(8) + 2];
        let mut i = 0;
        while i < n {
            let v = rng.random_bool(0.5);
            let run = match rng.random_range(0..3) {
                0 => 1,
                1 => rng.random_range(1..12),
                _ => rng.random_range(1..100),
            };
            for j in i..(i + run).min(n) {
                if v {
                    bits[j / 8] |= 1 << (j % 8);
                }
            }
            i += run;
        }
        // Bits past the end are not the encoder's: make them noise.
        for j in n..bits.len() * 8 {
            if rng.random_bool(0.5) {
                bits[j / 8] |= 1 << (j % 8);
            }
        }
        let offset = rng.random_range(0..=13usize).min(n);
        let len = n - offset;
        let values: Vec<u32> = (offset..n)
            .map(|j| ((bits[j / 8] >> (j % 8)) & 1) as u32)
            .collect();
        let expected = upstream(1, &values);
        let mut enc = RleEncoder::new(1);
        // Feed in two calls, as mini-batches do.
        let cut = rng.random_range(0..=len);
        enc.put_bits(&bits, offset, cut);
        enc.put_bits(&bits, offset + cut, len - cut);
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        assert_eq!(out, expected, "case {case}");
    }
}

/// Long stretches: 63-group bit-packed runs back to back, runs that
/// cross calls, and runs longer than 2^19 bits (run lengths of more
/// than three LEB128 bytes).
#[test]
fn put_bits_long_stretches_match_upstream() {
    let mut rng = StdRng::seed_from_u64(10);
    let patterns: [(usize, f64, f64); 4] = [
        // (bits, chance of a zero byte, chance of a 0xFF byte)
        (5_000, 0.0, 0.0),
        (5_000, 0.02, 0.02),
        (1_300_000, 0.0, 1.0),
        (2_200_000, 0.000_002, 0.999_99),
    ];
    for (case, (n, zero, ones)) in patterns.into_iter().enumerate() {
        let bytes: Vec<u8> = (0..n.div_ceil(8) + 16)
            .map(|_| {
                let p: f64 = rng.random();
                if p < zero {
                    0
                } else if p < zero + ones {
                    0xFF
                } else {
                    // Mixed: never uniform.
                    rng.random_range(1..=0xFEu8)
                }
            })
            .collect();
        let offset = case % 7;
        let len = n - offset;
        let values: Vec<u32> = (offset..n)
            .map(|j| ((bytes[j / 8] >> (j % 8)) & 1) as u32)
            .collect();
        let expected = upstream(1, &values);
        for calls in [1, 3, 1000] {
            let mut enc = RleEncoder::new(1);
            let step = len.div_ceil(calls);
            let mut at = 0;
            while at < len {
                let k = step.min(len - at);
                enc.put_bits(&bytes, offset + at, k);
                at += k;
            }
            let mut out = Vec::new();
            enc.finish_into(&mut out);
            assert!(out == expected, "case {case}, {calls} calls");
        }
    }
}

#[test]
fn reuse_after_finish() {
    let mut enc = RleEncoder::new(3);
    let mut first = Vec::new();
    for v in [1, 2, 3, 3, 3] {
        enc.put(v);
    }
    enc.finish_into(&mut first);
    let mut second = Vec::new();
    for v in [0, 0, 5] {
        enc.put(v);
    }
    enc.finish_into(&mut second);
    assert_eq!(first, upstream(3, &[1, 2, 3, 3, 3]));
    assert_eq!(second, upstream(3, &[0, 0, 5]));
}

#[test]
fn max_buffer_size_matches_upstream() {
    for bw in 0..=32u8 {
        for n in [0, 1, 7, 8, 9, 100, 1023, 20000] {
            assert_eq!(max_buffer_size(bw, n), Upstream::max_buffer_size(bw, n));
        }
    }
}

/// Long stretches of mixed groups (past the 63 groups of a bit-packed run),
/// broken by whole repeated groups at random, fed in slices cut anywhere:
/// the groups packed together come out as upstream's one by one.
#[test]
fn long_mixed_stretches_match_upstream() {
    let mut rng = StdRng::seed_from_u64(11);
    for case in 0..300 {
        let bit_width: u8 = rng.random_range(1..=24);
        let max = ((1u64 << bit_width) - 1) as u32;
        let n = rng.random_range(0..4000);
        let mut values: Vec<u32> = Vec::with_capacity(n);
        while values.len() < n {
            if rng.random_bool(0.01) {
                let v = rng.random_range(0..=max);
                let run = rng.random_range(8..30).min(n - values.len());
                values.extend(std::iter::repeat_n(v, run));
            } else {
                values.push(rng.random_range(0..=max));
            }
        }
        let expected = upstream(bit_width, &values);
        let mut enc = RleEncoder::new(bit_width);
        let mut i = 0;
        while i < values.len() {
            let take = rng.random_range(1..=700).min(values.len() - i);
            enc.put_slice(&values[i..i + take]);
            i += take;
        }
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        assert_eq!(out, expected, "case {case}");
    }
}
