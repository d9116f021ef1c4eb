//! Boolean values: bits in the Arrow array, one byte (0 or 1) each in their
//! staged Parquet form, which is what statistics (unsigned, `false <
//! true`), bloom filters and distinct counts see; the encoders pack them
//! again (PLAIN bit-packed, RLE).

use super::NativeValues;
use arrow_buffer::bit_chunk_iterator::BitChunks;
use arrow_buffer::bit_iterator::BitIndexIterator;

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
        out.reserve(count);
        let valid = BitIndexIterator::new(validity, bit_offset, end - start);
        out.extend(valid.map(|i| u8::from(self.bit(start + i))));
    }
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
}
