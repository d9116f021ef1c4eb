//! The hash a byte-array value is looked up by in the column's dictionary,
//! and the words that tell two short values apart without a byte compare.
//!
//! A value of up to 16 bytes is fully described by its length and two
//! words read from its start and its end (overlapping when it is shorter
//! than their sum): [`Short`]. Longer values are hashed eight bytes at a
//! time and compared byte for byte.

use crate::encoding::dictionary::hash::{A, B, K, fold};

/// A value of at most 16 bytes as two words: with its length, equal words
/// mean equal values.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct Short(pub u64, pub u64);

/// The words of `v` if it is at most 16 bytes long.
#[inline(always)]
pub(super) fn short(v: &[u8]) -> Option<Short> {
    let n = v.len();
    Some(match n {
        0 => Short(0, 0),
        1..=3 => Short(
            u64::from(v[0]) | u64::from(v[n / 2]) << 8 | u64::from(v[n - 1]) << 16,
            0,
        ),
        4..=7 => Short(u64::from(read_u32(v, 0)), u64::from(read_u32(v, n - 4))),
        8..=16 => Short(read_u64(v, 0), read_u64(v, n - 8)),
        _ => return None,
    })
}

#[inline(always)]
fn read_u32(v: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(v[at..at + 4].try_into().unwrap())
}

#[inline(always)]
fn read_u64(v: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(v[at..at + 8].try_into().unwrap())
}

/// The hash of a short value of length `n` with words `s`.
#[inline(always)]
pub(super) fn hash_short(s: Short, n: usize) -> u32 {
    fold(s.0 ^ A ^ ((n as u64) << 59), s.1 ^ B)
}

/// The hash of a value of any length.
#[inline(always)]
pub(super) fn hash_value(v: &[u8]) -> u32 {
    match short(v) {
        Some(s) => hash_short(s, v.len()),
        None => hash_long(v),
    }
}

/// The hash of a value longer than 16 bytes, eight bytes at a time.
#[inline(never)]
fn hash_long(v: &[u8]) -> u32 {
    let mut h = (v.len() as u64).wrapping_mul(K);
    let (words, _) = v.as_chunks::<8>();
    for w in words {
        h = (h ^ u64::from_le_bytes(*w)).wrapping_mul(K).rotate_left(31);
    }
    // The last eight bytes (overlapping the words when the length is not a
    // multiple of eight).
    h ^= read_u64(v, v.len() - 8);
    fold(h ^ A, K)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Short values with equal words and lengths are equal, and vice versa.
    #[test]
    fn short_words_identify_a_value() {
        let mut seen = std::collections::HashMap::new();
        let mut x = 7u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 17) as usize;
            // Few distinct bytes, so that many values repeat.
            let v: Vec<u8> = (0..n).map(|i| ((x >> (i * 3)) & 3) as u8).collect();
            let key = (short(&v).unwrap(), n);
            if let Some(other) = seen.insert(key, v.clone()) {
                assert_eq!(other, v);
            }
            assert_eq!(hash_value(&v), hash_short(key.0, n));
        }
        assert!(short(&[0; 17]).is_none());
        assert_ne!(hash_value(&[0; 17]), hash_value(&[0; 18]));
    }
}
