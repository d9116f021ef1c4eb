//! The hash a value is looked up by: its bytes mixed a word at a time, with
//! fixed-size loads for the widths the dictionary specialises.

/// The hash of a `W`-byte value: one or two words loaded at a fixed size.
#[inline(always)]
pub(super) fn hash_fixed<const W: usize>(value: &[u8; W]) -> u32 {
    if W <= 8 {
        let mut word = [0u8; 8];
        word[..W].copy_from_slice(value);
        mix(u64::from_le_bytes(word))
    } else if W <= 16 {
        let mut lo = [0u8; 8];
        let mut hi = [0u8; 8];
        lo.copy_from_slice(&value[..8]);
        hi[..W - 8].copy_from_slice(&value[8..]);
        mix(u64::from_le_bytes(lo) ^ u64::from_le_bytes(hi).rotate_left(29).wrapping_mul(K))
    } else {
        hash_bytes(value)
    }
}

/// The multiplier of the mixes (the golden ratio in 64 bits).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// 64 bits folded to 32 well-spread ones.
#[inline(always)]
fn mix(x: u64) -> u32 {
    let x = (x ^ (x >> 32)).wrapping_mul(K);
    let x = (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 32)) as u32
}

/// The hash of a value of any width, eight bytes at a time.
#[inline]
pub(super) fn hash_bytes(value: &[u8]) -> u32 {
    let mut h: u64 = value.len() as u64;
    let (words, tail) = value.as_chunks::<8>();
    for w in words {
        h = (h ^ u64::from_le_bytes(*w)).wrapping_mul(K).rotate_left(31);
    }
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    h ^= u64::from_le_bytes(last);
    mix(h)
}
