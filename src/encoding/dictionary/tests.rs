//! The dictionary's keys, pages and table sizes.

use super::table::{SPARSE_SLOTS, slots_for};
use super::*;
use crate::values::Slots;
use rand::{Rng, SeedableRng, rngs::StdRng};

#[test]
fn interns_in_insertion_order() {
    for width in [1usize, 2, 3, 4, 8, 12, 16, 17, 32, 100] {
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
