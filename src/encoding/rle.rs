//! The RLE / bit-packing hybrid encoding, used for definition levels and for
//! dictionary indices.
//!
//! The byte stream is the one `parquet` 60.1's `RleEncoder` produces, value for
//! value: values are staged in groups of eight; a group that repeats one value
//! switches to an RLE run, anything else joins the current bit-packed run
//! (closed after 63 groups). A run that starts in the middle of a group is only
//! counted from the next group boundary, and a trailing partial group that holds
//! a single repeated value is written as a short RLE run. Matching those rules
//! exactly is what keeps pages byte-identical.

use super::bitpack::{pack_bits, write_uleb128};

/// Values per bit-packed group.
const GROUP: usize = 8;
/// A bit-packed run is closed once it holds this many groups minus one.
const MAX_GROUPS: usize = 64;

/// Streaming RLE / bit-packing hybrid encoder for values of up to 32 bits.
///
/// The open bit-packed run is kept as packed groups (`bit_width` bytes per
/// group of eight) plus a partial group of up to seven values, so whole
/// groups — e.g. a byte of a validity bitmap at bit width 1 — are packed once.
#[derive(Debug)]
pub(crate) struct RleEncoder {
    bit_width: u8,
    /// Bytes of the closed runs.
    out: Vec<u8>,
    /// Packed full groups of the open bit-packed run.
    packed: Vec<u8>,
    groups: usize,
    /// The open group.
    partial: [u32; GROUP],
    partial_len: usize,
    current: u32,
    repeat: usize,
}

impl RleEncoder {
    /// An encoder for values of `bit_width` bits (0 to 32).
    pub(crate) fn new(bit_width: u8) -> Self {
        debug_assert!(bit_width <= 32);
        Self {
            bit_width,
            out: Vec::new(),
            packed: Vec::new(),
            groups: 0,
            partial: [0; GROUP],
            partial_len: 0,
            current: 0,
            repeat: 0,
        }
    }

    /// Changes the bit width; only valid while nothing is buffered.
    pub(crate) fn set_bit_width(&mut self, bit_width: u8) {
        debug_assert!(self.is_empty());
        self.bit_width = bit_width;
    }

    /// True if no value has been put since the last [`Self::finish_into`].
    pub(crate) fn is_empty(&self) -> bool {
        self.out.is_empty() && self.groups == 0 && self.partial_len == 0 && self.repeat == 0
    }

    /// Bytes held by the encoder's buffers.
    pub(crate) fn memory_size(&self) -> usize {
        self.out.capacity() + self.packed.capacity()
    }

    /// Encodes one value.
    #[inline]
    pub(crate) fn put(&mut self, value: u32) {
        if self.current == value {
            self.repeat += 1;
            if self.repeat > GROUP {
                return;
            }
        } else {
            if self.repeat >= GROUP {
                self.write_rle_run();
            }
            self.repeat = 1;
            self.current = value;
        }
        self.partial[self.partial_len] = value;
        self.partial_len += 1;
        if self.partial_len == GROUP {
            self.commit_group();
        }
    }

    /// Encodes `count` copies of `value`; the same bytes as `count` calls to
    /// [`Self::put`], in O(1) once an RLE run is established.
    #[inline]
    pub(crate) fn put_run(&mut self, value: u32, mut count: usize) {
        while count > 0 && !(self.repeat >= GROUP && self.current == value) {
            self.put(value);
            count -= 1;
        }
        self.repeat += count;
    }

    /// Whether a whole group can be decided at once: group-aligned and no
    /// run being counted.
    #[inline]
    fn at_group_boundary(&self) -> bool {
        self.repeat == 0 && self.partial_len == 0
    }

    /// A whole group that repeats one value starts an RLE run.
    #[inline]
    fn start_rle_group(&mut self, value: u32) {
        if self.groups > 0 {
            self.write_bit_packed_run();
        }
        self.current = value;
        self.repeat = GROUP;
    }

    /// A whole mixed group joins the bit-packed run.
    #[inline]
    fn push_packed_group(&mut self, last: u32) {
        self.groups += 1;
        self.current = last;
        if self.groups + 1 >= MAX_GROUPS {
            self.write_bit_packed_run();
        }
    }

    /// Encodes a slice of values.
    pub(crate) fn put_slice(&mut self, values: &[u32]) {
        let mut i = 0;
        while i < values.len() {
            let v = values[i];
            if self.repeat >= GROUP && self.current == v {
                // Extend the RLE run with its whole continuation.
                let run = values[i..].iter().take_while(|&&x| x == v).count();
                self.repeat += run;
                i += run;
                continue;
            }
            if self.at_group_boundary() && values.len() - i >= GROUP {
                let group: &[u32; GROUP] = values[i..i + GROUP].try_into().unwrap();
                i += GROUP;
                if group.iter().all(|&x| x == group[0]) {
                    self.start_rle_group(group[0]);
                } else {
                    pack_bits(&mut self.packed, group, self.bit_width);
                    self.push_packed_group(group[GROUP - 1]);
                }
                continue;
            }
            self.put(v);
            i += 1;
        }
    }

    /// Encodes `len` one-bit values read from `bits` starting at bit
    /// `offset` (least-significant bit first): a validity bitmap as
    /// definition levels 0 and 1. The encoder's bit width must be 1.
    pub(crate) fn put_bits(&mut self, bits: &[u8], offset: usize, len: usize) {
        debug_assert_eq!(self.bit_width, 1);
        let bit = |i: usize| ((bits[(offset + i) >> 3] >> ((offset + i) & 7)) & 1) as u32;
        let mut i = 0;
        while i < len {
            if self.repeat >= GROUP {
                let run = same_bits(bits, offset + i, len - i, self.current);
                self.repeat += run;
                i += run;
                if i < len {
                    // The run ends here. Closing it now and deciding the next
                    // value as part of a fresh group is what `put` would do.
                    self.write_rle_run();
                }
                continue;
            } else if self.at_group_boundary() && len - i >= GROUP {
                let byte = read_byte(bits, offset + i);
                i += GROUP;
                match byte {
                    0x00 => self.start_rle_group(0),
                    0xFF => self.start_rle_group(1),
                    _ => {
                        self.packed.push(byte);
                        self.push_packed_group((byte >> 7) as u32);
                    }
                }
                continue;
            } else if self.partial_len > 0 && len - i >= GROUP - self.partial_len {
                // Complete the open group at once: afterwards `current` is its
                // last value and `repeat` the length of its trailing run.
                let k = GROUP - self.partial_len;
                for j in 0..k {
                    self.partial[self.partial_len + j] = bit(i + j);
                }
                i += k;
                self.partial_len = GROUP;
                let last = self.partial[GROUP - 1];
                self.repeat = self
                    .partial
                    .iter()
                    .rev()
                    .take_while(|&&v| v == last)
                    .count();
                self.current = last;
                self.commit_group();
                continue;
            }
            self.put(bit(i));
            i += 1;
        }
    }

    fn commit_group(&mut self) {
        self.partial_len = 0;
        if self.repeat >= GROUP {
            // The group is one repeated value: it becomes an RLE run.
            if self.groups > 0 {
                self.write_bit_packed_run();
            }
            return;
        }
        pack_bits(&mut self.packed, &self.partial, self.bit_width);
        self.groups += 1;
        if self.groups + 1 >= MAX_GROUPS {
            self.write_bit_packed_run();
        }
        self.repeat = 0;
    }

    fn write_rle_run(&mut self) {
        write_uleb128(&mut self.out, (self.repeat as u64) << 1);
        let bytes = (self.bit_width as usize).div_ceil(8);
        self.out
            .extend_from_slice(&self.current.to_le_bytes()[..bytes]);
        self.packed.clear();
        self.groups = 0;
        self.partial_len = 0;
        self.repeat = 0;
    }

    fn write_bit_packed_run(&mut self) {
        self.out.push(((self.groups << 1) | 1) as u8);
        self.out.extend_from_slice(&self.packed);
        self.packed.clear();
        self.groups = 0;
    }

    /// Flushes the open run, appends the encoded bytes to `dst` and resets the
    /// encoder for the next page (keeping its buffers).
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        if self.groups > 0 || self.partial_len > 0 || self.repeat > 0 {
            let tail = self.partial_len;
            let all_repeat = self.groups == 0 && (self.repeat == tail || tail == 0);
            if self.repeat > 0 && all_repeat {
                self.write_rle_run();
            } else {
                if tail > 0 {
                    self.partial[tail..].fill(0);
                    pack_bits(&mut self.packed, &self.partial, self.bit_width);
                    self.groups += 1;
                    self.partial_len = 0;
                }
                if self.groups > 0 {
                    self.write_bit_packed_run();
                }
            }
        }
        dst.extend_from_slice(&self.out);
        self.out.clear();
        self.packed.clear();
        self.groups = 0;
        self.partial_len = 0;
        self.current = 0;
        self.repeat = 0;
    }
}

/// The 64 bits of `bits` from bit `pos` on (least-significant first),
/// zero past the end: one unaligned load and a shift, no branch on the bit
/// offset.
#[inline(always)]
fn bits64(bits: &[u8], pos: usize) -> u64 {
    let (byte, shift) = (pos >> 3, pos & 7);
    let word = match bits.get(byte..byte + 16) {
        Some(b) => u128::from_le_bytes(b.try_into().expect("16 bytes")),
        None => {
            // Near the end: the bytes left, then zeros.
            let mut b = [0u8; 16];
            let tail = bits.get(byte..).unwrap_or_default();
            b[..tail.len()].copy_from_slice(tail);
            u128::from_le_bytes(b)
        }
    };
    (word >> shift) as u64
}

/// The 8 bits of `bits` from bit `pos` on.
#[inline(always)]
fn read_byte(bits: &[u8], pos: usize) -> u8 {
    bits64(bits, pos) as u8
}

/// Number of consecutive bits equal to `value` (0 or 1) from bit `pos`, at
/// most `max`: 64 bits per step.
#[inline]
fn same_bits(bits: &[u8], pos: usize, max: usize, value: u32) -> usize {
    let flip = if value == 1 { u64::MAX } else { 0 };
    let mut n = 0;
    while n < max {
        let diff = bits64(bits, pos + n) ^ flip;
        if diff != 0 {
            return (n + diff.trailing_zeros() as usize).min(max);
        }
        n += 64;
    }
    max
}

/// The upper bound `parquet` uses as the encoded size of `num_values` values of
/// `bit_width` bits (`RleEncoder::max_buffer_size`); it drives page cuts, so it
/// must be reproduced exactly.
pub(crate) fn max_buffer_size(bit_width: u8, num_values: usize) -> usize {
    let runs = num_values.div_ceil(GROUP);
    let bit_packed = runs + runs * bit_width as usize;
    let rle = runs * (1 + (bit_width as usize).div_ceil(8));
    bit_packed.max(rle)
}

/// Number of bits needed to represent `value` (0 for 0).
pub(crate) fn num_required_bits(value: u64) -> u8 {
    (64 - value.leading_zeros()) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::encodings::rle::RleEncoder as Upstream;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn upstream(bit_width: u8, values: &[u32]) -> Vec<u8> {
        let mut enc = Upstream::new(bit_width, 0);
        for &v in values {
            enc.put(v as u64);
        }
        enc.consume()
    }

    fn ours_put(bit_width: u8, values: &[u32]) -> Vec<u8> {
        let mut enc = RleEncoder::new(bit_width);
        for &v in values {
            enc.put(v);
        }
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        out
    }

    fn ours_slice(bit_width: u8, values: &[u32]) -> Vec<u8> {
        let mut enc = RleEncoder::new(bit_width);
        let mid = values.len() / 3;
        enc.put_slice(&values[..mid]);
        enc.put_slice(&values[mid..]);
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        out
    }

    fn ours_runs(bit_width: u8, values: &[u32]) -> Vec<u8> {
        let mut enc = RleEncoder::new(bit_width);
        let mut i = 0;
        while i < values.len() {
            let run = values[i..].iter().take_while(|&&x| x == values[i]).count();
            enc.put_run(values[i], run);
            i += run;
        }
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        out
    }

    #[test]
    fn matches_upstream_on_random_runs() {
        let mut rng = StdRng::seed_from_u64(7);
        for case in 0..2000 {
            let bit_width: u8 = rng.random_range(0..=20);
            let max = if bit_width == 0 {
                0
            } else {
                (1u64 << bit_width) - 1
            } as u32;
            let n = rng.random_range(0..1200);
            let mut values = Vec::with_capacity(n);
            while values.len() < n {
                let cap = rng.random_range(0..=max.max(1));
                let v = rng.random_range(0..=max.min(cap));
                let run = match rng.random_range(0..4) {
                    0 => 1,
                    1 => rng.random_range(1..10),
                    2 => rng.random_range(1..40),
                    _ => rng.random_range(1..600),
                };
                values.extend(std::iter::repeat_n(v.min(max), run.min(n - values.len())));
            }
            let expected = upstream(bit_width, &values);
            assert_eq!(ours_put(bit_width, &values), expected, "put case {case}");
            assert_eq!(
                ours_slice(bit_width, &values),
                expected,
                "slice case {case}"
            );
            assert_eq!(ours_runs(bit_width, &values), expected, "runs case {case}");
        }
    }

    #[test]
    fn put_bits_matches_per_value_puts() {
        let mut rng = StdRng::seed_from_u64(9);
        for case in 0..3000 {
            let n: usize = rng.random_range(0..600);
            let mut bits = vec![0u8; n.div_ceil(8) + 2];
            let mut i = 0;
            while i < n {
                let v = rng.random_bool(0.5);
                let run = match rng.random_range(0..3) {
                    0 => 1,
                    1 => rng.random_range(1..12),
                    _ => rng.random_range(1..100),
                };
                for j in i..(i + run).min(n) {
                    if v {
                        bits[j / 8] |= 1 << (j % 8);
                    }
                }
                i += run;
            }
            // Bits past the end are not the encoder's: make them noise.
            for j in n..bits.len() * 8 {
                if rng.random_bool(0.5) {
                    bits[j / 8] |= 1 << (j % 8);
                }
            }
            let offset = rng.random_range(0..=13usize).min(n);
            let len = n - offset;
            let values: Vec<u32> = (offset..n)
                .map(|j| ((bits[j / 8] >> (j % 8)) & 1) as u32)
                .collect();
            let expected = upstream(1, &values);
            let mut enc = RleEncoder::new(1);
            // Feed in two calls, as mini-batches do.
            let cut = rng.random_range(0..=len);
            enc.put_bits(&bits, offset, cut);
            enc.put_bits(&bits, offset + cut, len - cut);
            let mut out = Vec::new();
            enc.finish_into(&mut out);
            assert_eq!(out, expected, "case {case}");
        }
    }

    /// Long stretches: 63-group bit-packed runs back to back, runs that
    /// cross calls, and runs longer than 2^19 bits (run lengths of more
    /// than three LEB128 bytes).
    #[test]
    fn put_bits_long_stretches_match_upstream() {
        let mut rng = StdRng::seed_from_u64(10);
        let patterns: [(usize, f64, f64); 4] = [
            // (bits, chance of a zero byte, chance of a 0xFF byte)
            (5_000, 0.0, 0.0),
            (5_000, 0.02, 0.02),
            (1_300_000, 0.0, 1.0),
            (2_200_000, 0.000_002, 0.999_99),
        ];
        for (case, (n, zero, ones)) in patterns.into_iter().enumerate() {
            let bytes: Vec<u8> = (0..n.div_ceil(8) + 16)
                .map(|_| {
                    let p: f64 = rng.random();
                    if p < zero {
                        0
                    } else if p < zero + ones {
                        0xFF
                    } else {
                        // Mixed: never uniform.
                        rng.random_range(1..=0xFEu8)
                    }
                })
                .collect();
            let offset = case % 7;
            let len = n - offset;
            let values: Vec<u32> = (offset..n)
                .map(|j| ((bytes[j / 8] >> (j % 8)) & 1) as u32)
                .collect();
            let expected = upstream(1, &values);
            for calls in [1, 3, 1000] {
                let mut enc = RleEncoder::new(1);
                let step = len.div_ceil(calls);
                let mut at = 0;
                while at < len {
                    let k = step.min(len - at);
                    enc.put_bits(&bytes, offset + at, k);
                    at += k;
                }
                let mut out = Vec::new();
                enc.finish_into(&mut out);
                assert!(out == expected, "case {case}, {calls} calls");
            }
        }
    }

    #[test]
    fn reuse_after_finish() {
        let mut enc = RleEncoder::new(3);
        let mut first = Vec::new();
        for v in [1, 2, 3, 3, 3] {
            enc.put(v);
        }
        enc.finish_into(&mut first);
        let mut second = Vec::new();
        for v in [0, 0, 5] {
            enc.put(v);
        }
        enc.finish_into(&mut second);
        assert_eq!(first, upstream(3, &[1, 2, 3, 3, 3]));
        assert_eq!(second, upstream(3, &[0, 0, 5]));
    }

    #[test]
    fn max_buffer_size_matches_upstream() {
        for bw in 0..=32u8 {
            for n in [0, 1, 7, 8, 9, 100, 1023, 20000] {
                assert_eq!(max_buffer_size(bw, n), Upstream::max_buffer_size(bw, n));
            }
        }
    }
}
