//! Boolean values: bits in the Arrow array, one byte (0 or 1) each in their
//! staged Parquet form, which is what statistics (unsigned, `false <
//! true`), bloom filters and distinct counts see; the encoders pack them
//! again (PLAIN bit-packed, RLE).

use super::NativeValues;
use arrow_buffer::bit_chunk_iterator::BitChunks;

/// Each byte's eight bits as eight bytes 0 or 1, least-significant first.
static SPREAD: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            table[b][j] = ((b >> j) & 1) as u8;
            j += 1;
        }
        b += 1;
    }
    table
};

impl NativeValues<'_> {
    /// Value `i` of a bit array.
    #[inline]
    pub(crate) fn bit(&self, i: usize) -> bool {
        let p = self.bit_offset + i;
        (self.bytes[p >> 3] >> (p & 7)) & 1 == 1
    }

    /// Appends bits `[start, end)` to `out` as bytes 0 and 1, a word at a
    /// time.
    pub(super) fn bits_range(&self, start: usize, end: usize, out: &mut Vec<u8>) {
        let len = end.saturating_sub(start);
        out.reserve(len);
        let chunks = BitChunks::new(self.bytes, self.bit_offset + start, len);
        for word in chunks.iter() {
            for b in word.to_le_bytes() {
                out.extend_from_slice(&SPREAD[b as usize]);
            }
        }
        let rest = chunks.remainder_bits();
        out.extend((0..chunks.remainder_len()).map(|j| ((rest >> j) & 1) as u8));
    }

    /// The first `len` bits as bytes 0 and 1: what content-defined
    /// chunking hashes for a boolean, one byte per value.
    pub(crate) fn bits_as_bytes(&self, len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        self.bits_range(0, len, &mut out);
        out
    }

    /// Appends the bits at `positions`, in that order, as bytes 0 and 1.
    pub(super) fn bits_gather(&self, positions: &[usize], out: &mut Vec<u8>) {
        out.extend(positions.iter().map(|&i| u8::from(self.bit(i))));
    }

    /// Appends the bits of `[start, end)` whose validity bit is set (bit
    /// `bit_offset + i` of `validity` for value `start + i`) as bytes 0 and 1.
    pub(super) fn bits_compact(
        &self,
        (start, end): (usize, usize),
        (validity, bit_offset): (&[u8], usize),
        count: usize,
        out: &mut Vec<u8>,
    ) {
        // 64 values and their validity at a time: every value is written
        // and the write position advances by its validity bit (no branch
        // per value); a word of valid values is spread eight at a time.
        let n = end.saturating_sub(start);
        let base = out.len();
        out.resize(base + n + 64, 0);
        let dst = &mut out[base..];
        let mut w = 0;
        let values = BitChunks::new(self.bytes, self.bit_offset + start, n);
        let valid = BitChunks::new(validity, bit_offset, n);
        for (v, m) in values.iter().zip(valid.iter()) {
            if m == u64::MAX {
                for (k, b) in v.to_le_bytes().into_iter().enumerate() {
                    dst[w + 8 * k..w + 8 * k + 8].copy_from_slice(&SPREAD[b as usize]);
                }
                w += 64;
            } else {
                w = compact_word(dst, w, (v, m), 64);
            }
        }
        let rest = (values.remainder_bits(), valid.remainder_bits());
        w = compact_word(dst, w, rest, values.remainder_len());
        debug_assert_eq!(w, count);
        out.truncate(base + w);
    }
}

/// Writes the first `n` bits of `v` as bytes from `dst[w]`, advancing past
/// those whose bit in `m` is set (the valid ones); returns the new `w`.
#[inline(always)]
fn compact_word(dst: &mut [u8], mut w: usize, (v, m): (u64, u64), n: usize) -> usize {
    for j in 0..n {
        dst[w] = ((v >> j) & 1) as u8;
        w += ((m >> j) & 1) as usize;
    }
    w
}

#[cfg(test)]
mod tests {
    use crate::values::{LeafKind, NativeValues};
    use arrow_array::BooleanArray;

    #[test]
    fn bits_become_bytes() {
        let values: Vec<bool> = (0..300).map(|i| i % 3 == 0 || i % 7 == 1).collect();
        let array = BooleanArray::from(values.clone());
        for offset in [0usize, 1, 5, 64, 70] {
            let sliced = array.slice(offset, 300 - offset);
            let v = NativeValues::new(LeafKind::Boolean, 1, &sliced).unwrap();
            let want: Vec<u8> = values[offset..].iter().map(|&b| u8::from(b)).collect();
            for (start, end) in [(0, 300 - offset), (3, 200 - offset), (7, 8)] {
                let mut out = vec![9];
                v.bits_range(start, end, &mut out);
                assert_eq!(out[1..], want[start..end], "offset {offset} {start}..{end}");
            }
            let mut out = Vec::new();
            v.bits_gather(&[5, 0, 77], &mut out);
            assert_eq!(out, [want[5], want[0], want[77]]);
            let validity: Vec<u8> = vec![0b1010_0101; 40];
            let mut out = Vec::new();
            v.bits_compact((2, 20), (&validity, 1), 9, &mut out);
            let picked: Vec<u8> = (0..18)
                .filter(|i| (validity[(i + 1) / 8] >> ((i + 1) % 8)) & 1 == 1)
                .map(|i| want[2 + i])
                .collect();
            assert_eq!(out, picked);
            assert_eq!(v.native(4), &[want[4]]);
        }
    }

    /// Long ranges at every bit offset, validity words all set, all clear
    /// and mixed: the valid values in order, after what `out` held.
    #[test]
    fn compacting_long_ranges_keeps_the_valid_values() {
        let values: Vec<bool> = (0..1000).map(|i| (i * 7 + i / 13) % 3 == 0).collect();
        let array = BooleanArray::from(values.clone());
        for offset in [0usize, 3, 64] {
            let sliced = array.slice(offset, 1000 - offset);
            let v = NativeValues::new(LeafKind::Boolean, 1, &sliced).unwrap();
            for vo in [0usize, 5] {
                // Bytes of all-valid, then mixed, then all-null runs.
                let validity: Vec<u8> = (0..140)
                    .map(|b| match b / 20 % 3 {
                        0 => 0xFF,
                        1 => (b * 37 + 11) as u8,
                        _ => 0,
                    })
                    .collect();
                for (start, end) in [(0usize, 900usize), (1, 800), (130, 131), (64, 192)] {
                    let valid = |i: usize| (validity[(vo + i) / 8] >> ((vo + i) % 8)) & 1 == 1;
                    let want: Vec<u8> = std::iter::once(7)
                        .chain(
                            (0..end - start)
                                .filter(|&i| valid(i))
                                .map(|i| u8::from(values[offset + start + i])),
                        )
                        .collect();
                    let mut out = vec![7];
                    v.bits_compact((start, end), (&validity, vo), want.len() - 1, &mut out);
                    assert_eq!(
                        out, want,
                        "offset {offset}, validity offset {vo}, {start}..{end}"
                    );
                }
            }
        }
    }
}
