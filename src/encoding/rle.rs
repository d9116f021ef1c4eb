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

/// Values per bit-packed group.
const GROUP: usize = 8;
/// A bit-packed run is closed once it holds this many groups minus one.
const MAX_GROUPS: usize = 64;

/// Streaming RLE / bit-packing hybrid encoder for values of up to 32 bits.
#[derive(Debug)]
pub(crate) struct RleEncoder {
    bit_width: u8,
    /// Bytes of the closed runs.
    out: Vec<u8>,
    /// Values of the open bit-packed run, including a partial trailing group.
    pending: Vec<u32>,
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
            pending: Vec::new(),
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
        self.out.is_empty() && self.pending.is_empty() && self.repeat == 0
    }

    /// Bytes held by the encoder's buffers.
    pub(crate) fn memory_size(&self) -> usize {
        self.out.capacity() + self.pending.capacity() * 4
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
        self.pending.push(value);
        if self.pending.len().is_multiple_of(GROUP) {
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
            if self.repeat == 0
                && self.pending.len().is_multiple_of(GROUP)
                && values.len() - i >= GROUP
            {
                // Group-aligned with no run being counted: decide a whole group.
                let group = &values[i..i + GROUP];
                i += GROUP;
                let first = group[0];
                if group.iter().all(|&x| x == first) {
                    if !self.pending.is_empty() {
                        self.write_bit_packed_run();
                    }
                    self.current = first;
                    self.repeat = GROUP;
                } else {
                    self.pending.extend_from_slice(group);
                    self.current = group[GROUP - 1];
                    if self.pending.len() / GROUP + 1 >= MAX_GROUPS {
                        self.write_bit_packed_run();
                    }
                }
                continue;
            }
            self.put(v);
            i += 1;
        }
    }

    fn commit_group(&mut self) {
        if self.repeat >= GROUP {
            // The group is one repeated value: it becomes an RLE run.
            self.pending.truncate(self.pending.len() - GROUP);
            if !self.pending.is_empty() {
                self.write_bit_packed_run();
            }
            return;
        }
        if self.pending.len() / GROUP + 1 >= MAX_GROUPS {
            self.write_bit_packed_run();
        }
        self.repeat = 0;
    }

    fn write_rle_run(&mut self) {
        write_uleb128(&mut self.out, (self.repeat as u64) << 1);
        let bytes = (self.bit_width as usize).div_ceil(8);
        self.out
            .extend_from_slice(&self.current.to_le_bytes()[..bytes]);
        self.pending.clear();
        self.repeat = 0;
    }

    fn write_bit_packed_run(&mut self) {
        debug_assert_eq!(self.pending.len() % GROUP, 0);
        let groups = self.pending.len() / GROUP;
        self.out.push(((groups << 1) | 1) as u8);
        pack_bits(&mut self.out, &self.pending, self.bit_width);
        self.pending.clear();
    }

    /// Flushes the open run, appends the encoded bytes to `dst` and resets the
    /// encoder for the next page (keeping its buffers).
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        if !self.pending.is_empty() || self.repeat > 0 {
            let tail = self.pending.len() % GROUP;
            let all_repeat = self.pending.len() == tail && (self.repeat == tail || tail == 0);
            if self.repeat > 0 && all_repeat {
                self.write_rle_run();
            } else {
                if tail > 0 {
                    self.pending.resize(self.pending.len() + GROUP - tail, 0);
                }
                if !self.pending.is_empty() {
                    self.write_bit_packed_run();
                }
            }
        }
        dst.extend_from_slice(&self.out);
        self.out.clear();
        self.pending.clear();
        self.current = 0;
        self.repeat = 0;
    }
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

/// Appends `values` packed least-significant-bit first at `bit_width` bits each.
/// `values.len() * bit_width` must be a multiple of 8.
pub(crate) fn pack_bits(out: &mut Vec<u8>, values: &[u32], bit_width: u8) {
    let bw = bit_width as u32;
    if bw == 0 {
        return;
    }
    if bw == 1 {
        for group in values.chunks_exact(8) {
            let mut byte = 0u8;
            for (i, &v) in group.iter().enumerate() {
                byte |= ((v & 1) as u8) << i;
            }
            out.push(byte);
        }
        return;
    }
    let mask: u64 = if bw == 32 {
        u32::MAX as u64
    } else {
        (1u64 << bw) - 1
    };
    let mut acc: u64 = 0;
    let mut bits: u32 = 0;
    for &v in values {
        acc |= (v as u64 & mask) << bits;
        bits += bw;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    debug_assert_eq!(bits, 0);
}

/// Appends `value` as an unsigned LEB128 varint.
#[inline]
pub(crate) fn write_uleb128(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `value` zigzag-encoded as a varint.
#[inline]
pub(crate) fn write_zigzag(out: &mut Vec<u8>, value: i64) {
    write_uleb128(out, ((value << 1) ^ (value >> 63)) as u64);
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
