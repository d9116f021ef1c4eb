//! Decoding fuzz input bytes into decisions.
//!
//! [`ByteReader`] hands out small integers, booleans and choices from the
//! input, front to back. When the input is exhausted every read returns zero,
//! so a short input still decodes, to the simplest choices (choice 0 is always
//! the plainest option), which is what the fuzzer's minimizer wants.
//!
//! Bulk value data (thousands of bytes per column) does not come from the
//! input directly: a column draws a seed from the input and a
//! [`SplitMix64`] stream expands it, so one mutated byte changes a whole
//! column while the structure stays put.

/// Reads decisions from fuzz input bytes; zeros once exhausted.
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// Whether every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The next byte, or 0.
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// The next eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// A boolean from the low bit of the next byte.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// True with probability about `num / 256` (never when exhausted, as
    /// long as `num > 0` means "rarely").
    pub fn chance(&mut self, num: u8) -> bool {
        self.u8() >= 255 - num.saturating_sub(1) && num > 0
    }

    /// A number in `lo..=hi` (one byte when the span fits, else two or four).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        debug_assert!(lo <= hi);
        let span = (hi - lo) as u64 + 1;
        let raw = if span <= 256 {
            u64::from(self.u8())
        } else if span <= 65_536 {
            u64::from(self.u16())
        } else {
            u64::from(self.u32())
        };
        lo + (raw % span) as usize
    }

    /// An index below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.range(0, n - 1)
    }

    /// One of `items` (the first when exhausted).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Up to `n` raw bytes (fewer at the end of the input).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = start.saturating_add(n).min(self.data.len());
        self.pos = self.pos.saturating_add(n);
        &self.data[start..end]
    }

    /// A value stream seeded from the next eight bytes.
    pub fn rng(&mut self) -> SplitMix64 {
        SplitMix64::new(self.u64())
    }
}

/// A small deterministic PRNG (SplitMix64), for bulk value data.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 if `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64().checked_rem(n).unwrap_or(0)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// Fill `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_reader_returns_zero_choices() {
        let mut r = ByteReader::new(&[]);
        assert_eq!(r.u8(), 0);
        assert_eq!(r.range(3, 9), 3);
        assert!(!r.bool());
        assert!(!r.chance(10));
        assert_eq!(r.pick(&['a', 'b']), 'a');
        assert!(r.bytes(4).is_empty());
    }

    #[test]
    fn chance_is_rare_for_small_numerators() {
        let data: Vec<u8> = (0..=255).collect();
        let mut r = ByteReader::new(&data);
        let hits = (0..256).filter(|_| r.chance(16)).count();
        assert_eq!(hits, 16);
    }
}
