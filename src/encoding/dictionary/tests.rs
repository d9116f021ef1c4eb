//! The dictionary's keys, pages and table sizes.

use super::table::{SPARSE_SLOTS, slots_for};
use super::*;
use crate::values::Slots;
use rand::{Rng, SeedableRng, rngs::StdRng};

#[test]
fn interns_in_insertion_order() {
    for width in [1usize, 2, 3, 4, 8, 9, 12, 16, 17, 21, 32, 33, 100] {
        let mut rng = StdRng::seed_from_u64(width as u64);
        let pool: Vec<Vec<u8>> = (0..300)
            .map(|_| (0..width).map(|_| rng.random()).collect())
            .collect();
        let mut dict = Dictionary::new(width);
        let mut expected_keys = Vec::new();
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut input = Vec::new();
        for _ in 0..2000 {
            let v = &pool[rng.random_range(0..pool.len())];
            input.extend_from_slice(v);
            let key = match seen.iter().position(|s| s == v) {
                Some(k) => k,
                None => {
                    seen.push(v.clone());
                    seen.len() - 1
                }
            };
            expected_keys.push(key as u32);
        }
        dict.put(Slots::fixed(&input, width));
        assert_eq!(dict.indices, expected_keys);
        assert_eq!(dict.values().data(), seen.concat().as_slice());
        assert_eq!(dict.len(), seen.len());
    }
}

/// Many entries (tables of up to 2^19 slots, grown many times, some at
/// 3/5 load with an expected count), repeats among them: keys as a map
/// from value to first-seen order gives them, in one call and in many.
#[test]
fn large_dictionaries_keep_keys() {
    use std::collections::HashMap;
    for (width, distinct, expected) in [
        (4usize, 200_000usize, 0usize),
        (8, 150_000, 150_100),
        (3, 90_000, 0),
        (16, 70_000, 0),
    ] {
        let mut rng = StdRng::seed_from_u64(width as u64 + 7);
        let pool: Vec<Vec<u8>> = (0..distinct)
            .map(|_| (0..width).map(|_| rng.random()).collect())
            .collect();
        let mut input = Vec::new();
        let mut map: HashMap<&[u8], u32> = HashMap::new();
        let mut expected_keys = Vec::new();
        for i in 0..distinct * 2 {
            // New values in order, with earlier ones repeated between.
            let v = if i % 2 == 0 {
                &pool[i / 2]
            } else {
                &pool[rng.random_range(0..=i / 2)]
            };
            input.extend_from_slice(v);
            let next = map.len() as u32;
            expected_keys.push(*map.entry(v.as_slice()).or_insert(next));
        }
        for calls in [1, 97] {
            let mut dict = Dictionary::with_expected(width, expected);
            let step = (input.len() / width).div_ceil(calls) * width;
            for part in input.chunks(step) {
                dict.put(Slots::fixed(part, width));
            }
            assert!(
                dict.indices == expected_keys,
                "width {width}, {calls} calls"
            );
            assert_eq!(dict.len(), map.len());
        }
    }
}

/// Values all distinct (a column that will fall back): once enough of
/// them were seen, the table goes to the size for the expected count in
/// at most two steps, and stays so until that count is passed; keys
/// stay right, also past the expected count (doubling again from
/// there).
#[test]
fn distinct_values_size_the_table_for_the_expected_count() {
    for (width, expected) in [
        (8usize, 132_097usize),
        (16, 66_561),
        (4, 263_169),
        (32, 33_793),
    ] {
        let total = expected + expected / 2;
        let input: Vec<u8> = (0..total as u64)
            .flat_map(|i| {
                let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes();
                (0..width).map(move |b| v[b % 8] ^ (b / 8) as u8)
            })
            .collect();
        let mut dict = Dictionary::with_expected(width, expected);
        let mut sizes = Vec::new();
        for (call, part) in input.chunks(1024 * width).enumerate() {
            dict.put(Slots::fixed(part, width));
            if dict.len() < expected {
                sizes.push(dict.slots.len());
            }
            let want: Vec<u32> = (call * 1024..(call * 1024 + part.len() / width))
                .map(|k| k as u32)
                .collect();
            assert_eq!(&dict.indices[call * 1024..], &want[..], "width {width}");
        }
        assert_eq!(dict.len(), total);
        // Sparse tables while the evidence builds up, then at most one
        // step (eight times the values seen) before the table for the
        // expected count.
        sizes.dedup();
        let (last, before) = sizes.split_last().unwrap();
        assert_eq!(*last, slots_for(expected), "width {width}: {sizes:?}");
        let large = before.iter().filter(|&&s| s > SPARSE_SLOTS).count();
        assert!(large <= 1, "width {width}: {sizes:?}");
        assert!(dict.slots.len() >= slots_for(total));
    }
}

/// A low-cardinality column keeps doubling from a small table.
#[test]
fn repeated_values_keep_a_small_table() {
    let mut dict = Dictionary::with_expected(16, 66_560);
    let input: Vec<u8> = (0..100_000u32)
        .flat_map(|i| {
            let v = (i % 3_000).to_le_bytes();
            (0..16).map(move |b| v[b % 4])
        })
        .collect();
    for part in input.chunks(1024 * 16) {
        dict.put(Slots::fixed(part, 16));
    }
    assert_eq!(dict.len(), 3_000);
    assert!(dict.slots.len() <= 32_768, "{}", dict.slots.len());
}

/// A small file of distinct values (5,000 UUIDs) gets no larger table
/// or store than doubling gives it, though its expected count is the
/// page limit's 66,561 entries.
#[test]
fn a_few_thousand_distinct_values_keep_a_small_table() {
    let input: Vec<u8> = (0..5_000u64)
        .flat_map(|i| {
            let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes();
            (0..16).map(move |b| v[b % 8] ^ (b / 8) as u8)
        })
        .collect();
    let mut dict = Dictionary::with_expected(16, 66_561);
    for part in input.chunks(1024 * 16) {
        dict.put(Slots::fixed(part, 16));
    }
    assert_eq!(dict.len(), 5_000);
    assert!(dict.slots.len() <= 65_536, "{}", dict.slots.len());
    assert!(
        dict.hashes.capacity() <= 5_000 * 8,
        "{}",
        dict.hashes.capacity()
    );
}

/// Puts `values` (as `width`-byte little-endian integers) in calls of the
/// given sizes, in turn, and checks the keys and the dictionary page
/// against a map of first appearances.
fn check_int_keys(width: usize, values: &[i64], calls: &[usize]) -> Dictionary {
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|v| v.to_le_bytes()[..width].to_vec())
        .collect();
    check_keys(Dictionary::with_expected(width, 100_000), &bytes, calls)
}

/// Puts `bytes` (values of the dictionary's width) into `dict` in calls of
/// the given sizes, in turn, and checks the keys and the dictionary page
/// against a map of first appearances (by bytes).
pub(super) fn check_keys(mut dict: Dictionary, bytes: &[u8], calls: &[usize]) -> Dictionary {
    use std::collections::HashMap;
    let width = dict.width;
    let mut map: HashMap<&[u8], u32> = HashMap::new();
    let (mut keys, mut page) = (Vec::new(), Vec::new());
    for v in bytes.chunks(width) {
        let next = map.len() as u32;
        let key = *map.entry(v).or_insert(next);
        if key == next {
            page.extend_from_slice(v);
        }
        keys.push(key);
    }
    let count = bytes.len() / width;
    let (mut at, mut turn) = (0, 0);
    while at < count {
        let n = calls[turn % calls.len()].min(count - at);
        dict.put(Slots::fixed(&bytes[at * width..(at + n) * width], width));
        at += n;
        turn += 1;
    }
    assert!(dict.indices == keys, "width {width}, calls {calls:?}");
    assert_eq!(dict.values().data(), page.as_slice(), "width {width}");
    dict
}

/// Integers in a small range take the direct-mapped window alone: keys
/// right, and no hash table is made.
#[test]
fn close_integers_take_the_window() {
    let mut rng = StdRng::seed_from_u64(11);
    for width in [4, 8] {
        for (lo, below) in [(0i64, 10_000i64), (-20, 40), (i32::MIN as i64, 3_000)] {
            let values: Vec<i64> = (0..50_000)
                .map(|_| lo + rng.random_range(0..below))
                .collect();
            for calls in [&[1024][..], &[1, 7, 1000]] {
                let dict = check_int_keys(width, &values, calls);
                // Tiny first calls have seen too few values to earn a
                // window of the whole range: the table takes them.
                if calls.len() == 1 {
                    assert!(
                        dict.slots.is_empty(),
                        "width {width}, {lo}+{below}: a table was made"
                    );
                }
                assert!(!dict.dense.keys.is_empty());
            }
        }
        // A date-like column that moves on every so often.
        let days: Vec<i64> = (0..300_000).map(|i| 19_000 + i / 1_000).collect();
        let dict = check_int_keys(width, &days, &[1024]);
        assert!(dict.slots.is_empty());
    }
    // The extremes of i64 (the window is kept inside it).
    for (lo, hi) in [(i64::MIN, i64::MIN + 500), (i64::MAX - 500, i64::MAX)] {
        let values: Vec<i64> = (0..20_000).map(|_| rng.random_range(lo..=hi)).collect();
        let dict = check_int_keys(8, &values, &[1024]);
        assert!(dict.slots.is_empty());
    }
}

/// Windowed and hashed mini-batches in turn (close values, then far ones,
/// then close ones that the table holds already, a window that moves):
/// each index learns the entries the other added, and keys stay right.
#[test]
fn the_window_and_the_table_share_their_entries() {
    let mut rng = StdRng::seed_from_u64(12);
    for width in [4, 8] {
        let mut values = Vec::new();
        for round in 0..60i64 {
            let far = round % 3 == 1;
            for _ in 0..1024 {
                values.push(match far {
                    true => rng.random_range(-2_000_000_000..2_000_000_000),
                    // Near a centre that drifts, repeating earlier values.
                    false => round * 400 + rng.random_range(0..3_000),
                });
            }
            // Far values seen before, now in a window's range.
            if round % 7 == 6 {
                let earlier = values[rng.random_range(0..values.len())];
                values.extend(std::iter::repeat_n(earlier, 10));
            }
        }
        for calls in [&[1024][..], &[1024, 10]] {
            let dict = check_int_keys(width, &values, calls);
            assert!(!dict.slots.is_empty() && !dict.dense.keys.is_empty());
        }
    }
}

/// Values too spread out for a window (or a window that would have to
/// move every mini-batch) go to the table.
#[test]
fn spread_out_integers_take_the_table() {
    let mut rng = StdRng::seed_from_u64(13);
    let values: Vec<i64> = (0..20_000)
        .map(|_| rng.random_range(0..1_000_000_000))
        .collect();
    let dict = check_int_keys(8, &values, &[1024]);
    assert!(dict.dense.keys.is_empty());
}

/// Mini-batches that never fall and start above every entry are appended
/// without a lookup (no table, no window); repeats among them, values
/// that come back down, a window's entries before them and tiny calls
/// keep the keys right.
#[test]
fn rising_values_are_appended() {
    let mut rng = StdRng::seed_from_u64(14);
    for width in [4usize, 8] {
        let step = if width == 4 { 1_000 } else { 1_000_000 };
        // Strictly rising, then with repeats (steps of 0).
        for zero_steps in [false, true] {
            let mut x = -(step * 50_000);
            let values: Vec<i64> = (0..100_000)
                .map(|_| {
                    x += rng.random_range(i64::from(!zero_steps)..step);
                    x
                })
                .collect();
            for calls in [&[1024][..], &[1, 3, 500]] {
                let dict = check_int_keys(width, &values, calls);
                assert!(
                    dict.slots.is_empty() && dict.hashes.is_empty(),
                    "width {width}"
                );
            }
        }
        // Rising, then the same values again (the table must learn the
        // appended entries), then rising past them, then close values.
        let rising: Vec<i64> = (0..20_000).map(|i| i * step + 7).collect();
        let mut values = rising.clone();
        values.extend(rising.iter().rev().step_by(3));
        values.extend(rising.iter().map(|v| v + 20_000 * step));
        values.extend((0..5_000).map(|_| rng.random_range(0..3_000)));
        values.extend(rising.iter().map(|v| v + 40_000 * step));
        for calls in [&[1024][..], &[700, 1, 2000]] {
            let dict = check_int_keys(width, &values, calls);
            assert!(!dict.slots.is_empty() && !dict.dense.keys.is_empty());
        }
    }
}

/// A dictionary expected to be large (1 MiB of INT32 entries) takes a
/// window of up to four slots per expected entry once it has seen enough
/// values: the table it had until then is left behind, keys stay right.
#[test]
fn a_large_expected_count_allows_a_large_window() {
    let mut rng = StdRng::seed_from_u64(15);
    let values: Vec<i64> = (0..300_000)
        .map(|_| rng.random_range(0..1_000_000))
        .collect();
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|v| (*v as i32).to_le_bytes())
        .collect();
    let mut small = Dictionary::with_expected(4, 0);
    let mut large = Dictionary::with_expected(4, 262_144);
    for part in bytes.chunks(1024 * 4) {
        small.put(Slots::fixed(part, 4));
        large.put(Slots::fixed(part, 4));
    }
    assert!(small.dense.keys.is_empty());
    assert!(large.dense.keys.len() >= 1_000_000 && large.dense.keys.len() <= 1 << 20);
    assert_eq!(small.indices, large.indices);
    assert_eq!(small.values().data(), large.values().data());
}

/// An expected count of `usize::MAX` (a page limit no column reaches) caps
/// the window like any large one.
#[test]
fn an_unbounded_expected_count_caps_the_window() {
    let values: Vec<u8> = (0..5_000i32).flat_map(|v| (v * 7).to_le_bytes()).collect();
    let mut dict = Dictionary::with_expected(4, usize::MAX);
    dict.put(Slots::fixed(&values, 4));
    assert_eq!(dict.len(), 5_000);
    assert!(dict.dense.keys.len() <= 1 << 20);
}

/// Rising values in a dictionary whose expected count is `usize::MAX`:
/// the value store is reserved without overflow (found by libFuzzer).
#[test]
fn rising_values_with_an_unbounded_expected_count() {
    for width in [4usize, 8] {
        let values: Vec<u8> = (0..3_000i64)
            .flat_map(|v| (v * 1_000_003).to_le_bytes()[..width].to_vec())
            .collect();
        let mut dict = Dictionary::with_expected(width, usize::MAX);
        for part in values.chunks(1000 * width) {
            dict.put(Slots::fixed(part, width));
        }
        assert_eq!(dict.len(), 3_000);
    }
}

/// The one growth rule of the value store, the hashes and the window's
/// entries: doubling, at least 64, capped by the expected count, never
/// overflowing.
#[test]
fn entries_grow_to_twice_or_the_expected_count() {
    use super::table::entries_target;
    assert_eq!(entries_target(0, usize::MAX), 64);
    assert_eq!(entries_target(100, 150), 150);
    assert_eq!(entries_target(100, 50), 200);
    assert_eq!(entries_target(100, 100), 200);
    assert_eq!(entries_target(usize::MAX / 2 + 1, usize::MAX), usize::MAX);
    assert_eq!(entries_target(usize::MAX - 1, 0), usize::MAX);
    for (len, expected) in [(0, 0), (63, 64), (1 << 20, 1 << 21), (7, usize::MAX)] {
        assert!(entries_target(len, expected) > len);
    }
}

/// Mini-batches of one repeated value (new or known, close to the others
/// or far from them, rising or falling), between mixed ones: the value is
/// interned once and its key repeated, and the keys stay right.
#[test]
fn one_repeated_value_per_mini_batch() {
    let mut rng = StdRng::seed_from_u64(5);
    for width in [4, 8] {
        let mut values: Vec<i64> = Vec::new();
        for run in 0..400 {
            let v = match rng.random_range(0..4) {
                0 => rng.random_range(0..50),
                1 => run * 1_000_000,
                2 => rng.random_range(i32::MIN as i64..i32::MAX as i64),
                _ => -run,
            };
            let n = rng.random_range(1..300);
            if rng.random_bool(0.2) {
                values.extend((0..n).map(|_| rng.random_range(0..50)));
            } else {
                values.extend(std::iter::repeat_n(v, n));
            }
        }
        for calls in [&[64][..], &[1, 2, 9, 100, 1000]] {
            check_int_keys(width, &values, calls);
        }
    }
}

/// A page's indices go into a block sized by `indices_bound`: no run
/// structure makes them longer (runs of every length around the group
/// size, all distinct, one value, bit widths 0 to 17).
#[test]
fn indices_stay_within_their_bound() {
    let mut rng = StdRng::seed_from_u64(21);
    for case in 0..400 {
        let distinct = [1usize, 2, 3, 200, 70_000][case % 5];
        let run = [1usize, 7, 8, 9, 15, 16, 17, 63, 64, 65, 500][case % 11];
        let n = rng.random_range(0..5_000);
        let mut dict = Dictionary::with_expected(8, 0);
        let mut values = Vec::with_capacity(n * 8);
        let mut v = 0u64;
        for i in 0..n {
            if i % run == 0 {
                v = rng.random_range(0..distinct as u64);
            }
            values.extend_from_slice(&v.to_le_bytes());
        }
        dict.put(Slots::fixed(&values, 8));
        let bound = dict.indices_bound();
        let mut out = Vec::new();
        dict.finish_page_into(&mut out);
        assert!(out.len() <= bound, "case {case}: {} > {bound}", out.len());
    }
}
