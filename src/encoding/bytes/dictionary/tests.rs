//! The byte-array dictionary: keys in first-seen order, the page in
//! `parquet`'s layout, the index stream, and the key remap agreeing with
//! interning every value.

use super::*;
use arrow_array::{BinaryArray, StringArray};

fn random_values(n: usize, distinct: u64, seed: u64) -> Vec<Vec<u8>> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = x % distinct;
            // Lengths 0 to 40, so that short and long values mix.
            let len = (k * 7 % 41) as usize;
            (0..len).map(|i| (k >> (i % 8)) as u8 ^ i as u8).collect()
        })
        .collect()
}

/// Keys as a naive interner gives them.
fn naive_keys(values: &[Vec<u8>]) -> (Vec<u32>, Vec<Vec<u8>>) {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let keys = values
        .iter()
        .map(|v| match seen.iter().position(|s| s == v) {
            Some(k) => k as u32,
            None => {
                seen.push(v.clone());
                (seen.len() - 1) as u32
            }
        })
        .collect();
    (keys, seen)
}

#[test]
fn interns_in_first_seen_order() {
    for distinct in [1u64, 5, 300, 5000] {
        let values = random_values(6000, distinct, distinct);
        let array = BinaryArray::from_iter_values(values.iter());
        let v = ByteValues::of(&array).unwrap();
        let mut d = ByteDictionary::new();
        // In pieces, so that the table grows between calls.
        for (s, e) in [(0, 10), (10, 1000), (1000, 6000)] {
            d.put(&v, &Picks::Range(s, e));
        }
        let (keys, entries) = naive_keys(&values);
        assert_eq!(d.indices(), &keys[..]);
        assert_eq!(d.len(), entries.len());
        let mut page = Vec::new();
        for e in &entries {
            page.extend_from_slice(&(e.len() as u32).to_le_bytes());
            page.extend_from_slice(e);
        }
        assert_eq!(d.encoded_size(), page.len());
        let visited: Vec<Vec<u8>> = d.entries().map(<[u8]>::to_vec).collect();
        assert_eq!(visited, entries);
        assert_eq!(d.into_page(), (page, entries.len()));
    }
}

#[test]
fn the_data_page_estimate_has_the_bit_width_byte() {
    let a = StringArray::from(vec!["x", "y", "z"]);
    let v = ByteValues::of(&a).unwrap();
    let mut d = ByteDictionary::new();
    assert_eq!(d.estimated_data_page_size(), 1);
    d.put(&v, &Picks::Range(0, 3));
    assert_eq!(d.estimated_data_page_size(), 1 + max_buffer_size(2, 3));
    let mut out = Vec::new();
    d.finish_page_into(&mut out);
    assert_eq!(out[0], 2);
    assert_eq!(d.buffered(), 0);
}
