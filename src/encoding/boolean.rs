//! The encodings of BOOLEAN values (staged as bytes 0 and 1): PLAIN, the
//! values bit-packed least-significant bit first; and RLE, a 4-byte
//! little-endian length followed by the RLE / bit-packing hybrid at bit
//! width 1. Booleans have no dictionary.

use super::rle::RleEncoder;
use parquet::errors::{ParquetError, Result};

/// Packs bytes 0 and 1 into `out`'s bits, from bit `count` on (the bits
/// past `count` in `out` must be 0): eight values at a time once `count`
/// is byte-aligned.
fn pack_into(out: &mut Vec<u8>, count: usize, values: &[u8]) {
    out.resize((count + values.len()).div_ceil(8), 0);
    let head = values.len().min((8 - count % 8) % 8);
    for (pos, &v) in (count..).zip(&values[..head]) {
        out[pos >> 3] |= (v & 1) << (pos & 7);
    }
    let at = count + head;
    let (groups, tail) = values[head..].as_chunks::<8>();
    for (byte, group) in out[at / 8..].iter_mut().zip(groups) {
        *byte = gather_bits(u64::from_le_bytes(*group));
    }
    let at = at + groups.len() * 8;
    for (pos, &v) in (at..).zip(tail) {
        out[pos >> 3] |= (v & 1) << (pos & 7);
    }
}

/// The low bit of each of the eight bytes of `x` (little-endian), as the
/// bits of one byte: byte `i`'s bit lands at bit `i` (the products of the
/// multiplier's eight terms meet at bits 56 to 63 without carries).
#[inline(always)]
fn gather_bits(x: u64) -> u8 {
    ((x & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// PLAIN booleans: bit-packed.
#[derive(Debug, Default)]
pub(crate) struct PlainBooleans {
    bits: Vec<u8>,
    count: usize,
}

impl PlainBooleans {
    /// Encodes `values` (bytes 0 and 1).
    pub(crate) fn put(&mut self, values: &[u8]) {
        pack_into(&mut self.bits, self.count, values);
        self.count += values.len();
    }

    /// `parquet`'s estimate: the bytes the bits take.
    pub(crate) fn estimated_size(&self) -> usize {
        self.count.div_ceil(8)
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        self.bits.capacity()
    }

    /// Appends the page's values to `dst` and starts a new page.
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        dst.extend_from_slice(&self.bits);
        self.bits.clear();
        self.count = 0;
    }
}

/// RLE booleans: the length, then the hybrid encoding at bit width 1.
#[derive(Debug)]
pub(crate) struct RleBooleans {
    rle: RleEncoder,
    /// Whether the current page has a value (`parquet` creates its encoder
    /// on a page's first value).
    started: bool,
    /// The values of one put, packed into bits.
    scratch: Vec<u8>,
}

impl Default for RleBooleans {
    fn default() -> Self {
        Self {
            rle: RleEncoder::new(1),
            started: false,
            scratch: Vec::new(),
        }
    }
}

/// Bytes of the length in front of an RLE page's values.
const LENGTH_BYTES: usize = 4;

impl RleBooleans {
    /// A mini-batch is written to the page, values or not: `parquet`
    /// creates its encoder there (and counts the length from then on).
    pub(crate) fn start(&mut self) {
        self.started = true;
    }

    /// Encodes `values` (bytes 0 and 1).
    pub(crate) fn put(&mut self, values: &[u8]) {
        self.started = true;
        self.scratch.clear();
        pack_into(&mut self.scratch, 0, values);
        self.rle.put_bits(&self.scratch, 0, values.len());
    }

    /// `parquet`'s estimate: 0 before the page's first mini-batch, then
    /// the length and what its encoder reports for the runs so far.
    pub(crate) fn estimated_size(&self) -> usize {
        match self.started {
            false => 0,
            true => LENGTH_BYTES + self.rle.estimated_len(),
        }
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        self.rle.memory_size() + self.scratch.capacity()
    }

    /// Appends the page's values to `dst` and starts a new page. A page
    /// cut before any mini-batch is an error: `parquet` panics there ("RLE
    /// value encoder is not initialized"), so there are no bytes to match.
    /// Content-defined chunking makes such a page where a chunk ends right
    /// after a page limit cut one.
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) -> Result<()> {
        if !self.started {
            return Err(ParquetError::General(format!(
                "parquet {} cannot write an empty data page of an RLE-encoded BOOLEAN column \
                 (its RLE encoder panics: \"RLE value encoder is not initialized\"); \
                 content-defined chunking cuts one where a chunk ends right after a page \
                 limit: write the column with PLAIN encoding, or without content-defined \
                 chunking",
                crate::compat::RESOLVED_RELEASE
            )));
        }
        let at = dst.len();
        dst.extend_from_slice(&[0; LENGTH_BYTES]);
        self.rle.finish_into(dst);
        let len = (dst.len() - at - LENGTH_BYTES) as i32;
        dst[at..at + LENGTH_BYTES].copy_from_slice(&len.to_le_bytes());
        self.started = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_matches_one_bit_at_a_time() {
        let values: Vec<u8> = (0..203u32)
            .map(|i| u8::from(i % 3 == 0 || i % 7 == 2))
            .collect();
        for start in [0usize, 1, 5, 8, 13] {
            for split in [0usize, 1, 9, 64, 150] {
                let (a, b) = values.split_at(split.min(values.len()));
                let mut fast = Vec::new();
                let mut slow = Vec::new();
                let mut at = 0;
                for part in [&values[..start], a, b] {
                    pack_into(&mut fast, at, part);
                    slow.resize((at + part.len()).div_ceil(8), 0);
                    for (pos, &v) in (at..).zip(part) {
                        slow[pos >> 3] |= v << (pos & 7);
                    }
                    at += part.len();
                }
                assert_eq!(fast, slow, "start {start}, split {split}");
            }
        }
    }

    #[test]
    fn plain_packs_bits() {
        let mut p = PlainBooleans::default();
        p.put(&[1, 0, 1]);
        p.put(&[1, 1, 0, 0, 0, 0, 1]);
        assert_eq!(p.estimated_size(), 2);
        let mut out = Vec::new();
        p.finish_into(&mut out);
        assert_eq!(out, [0b0001_1101, 0b0000_0010]);
        assert_eq!(p.estimated_size(), 0);
    }

    #[test]
    fn rle_has_a_length_and_refuses_empty_pages() {
        let mut r = RleBooleans::default();
        let mut out = Vec::new();
        assert!(r.finish_into(&mut out).is_err());
        r.put(&[1; 20]);
        assert!(r.estimated_size() >= LENGTH_BYTES);
        r.finish_into(&mut out).unwrap();
        // A run of 20 ones: header 40, value 1.
        assert_eq!(out, [2, 0, 0, 0, 40, 1]);
    }
}
