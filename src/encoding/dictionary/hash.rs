//! The hash a value is looked up by: its bytes mixed a word at a time, with
//! fixed-size loads for the widths the dictionary specialises.

/// The hash of a `W`-byte value: one or two words loaded at a fixed size.
#[inline(always)]
pub(super) fn hash_fixed<const W: usize>(value: &[u8; W]) -> u32 {
    if W <= 8 {
        let mut word = [0u8; 8];
        word[..W].copy_from_slice(value);
        fold(u64::from_le_bytes(word) ^ A, K)
    } else if W <= 16 {
        let mut lo = [0u8; 8];
        let mut hi = [0u8; 8];
        lo.copy_from_slice(&value[..8]);
        hi[..W - 8].copy_from_slice(&value[8..]);
        fold(u64::from_le_bytes(lo) ^ A, u64::from_le_bytes(hi) ^ B)
    } else {
        hash_bytes(value)
    }
}

/// The multiplier of the mixes (the golden ratio in 64 bits).
pub(crate) const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Constants xored into the words before they are multiplied (a zero
/// operand would zero the product).
pub(crate) const A: u64 = 0x243F_6A88_85A3_08D3;
pub(crate) const B: u64 = 0x1319_8A2E_0370_7344;

/// `a` times `b` in 128 bits, the halves folded together, then to 32 bits:
/// every bit of either word reaches the result through one multiply.
#[inline(always)]
pub(crate) fn fold(a: u64, b: u64) -> u32 {
    let p = u128::from(a) * u128::from(b);
    let h = (p as u64) ^ ((p >> 64) as u64);
    (h ^ (h >> 32)) as u32
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
    fold(h ^ A, K)
}
