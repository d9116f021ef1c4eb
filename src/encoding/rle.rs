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

    /// The size `parquet`'s `RleEncoder::len` reports for what has been
    /// put (it decides where a BOOLEAN RLE page is cut): the closed runs,
    /// and the open bit-packed run as the release counts it (D24: 60 counts
    /// every pending value, the partial group included, as if the run were
    /// closed; 59 and 58 only the groups already written, with their
    /// indicator byte). An RLE run being counted is not included.
    pub(crate) fn estimated_len(&self) -> usize {
        let width = self.bit_width as usize;
        let open = match crate::compat::RLE_LENGTH_COUNTS_PENDING_VALUES {
            true => match self.groups * GROUP + self.partial_len {
                0 => 0,
                n => 1 + (n * width).div_ceil(8),
            },
            false => match self.groups {
                0 => 0,
                g => 1 + g * width,
            },
        };
        self.out.len() + open
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
                if group.iter().all(|&x| x == group[0]) {
                    i += GROUP;
                    self.start_rle_group(group[0]);
                    continue;
                }
                // The mixed groups from here, as many as the open bit-packed
                // run still takes, packed in one call (a call per group of
                // eight was most of the cost of packing dictionary indices).
                let room = MAX_GROUPS - 1 - self.groups;
                let (groups, _) = values[i..].as_chunks::<GROUP>();
                let mixed = 1 + groups[1..]
                    .iter()
                    .take(room - 1)
                    .take_while(|g| g.iter().any(|&x| x != g[0]))
                    .count();
                let end = i + mixed * GROUP;
                pack_bits(&mut self.packed, &values[i..end], self.bit_width);
                i = end;
                self.groups += mixed - 1;
                self.push_packed_group(values[end - 1]);
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

    /// Appends a dictionary-encoded data page's indices to `dst`: the bit
    /// width byte, then `indices` RLE / bit-packed at that width.
    pub(crate) fn write_indices(&mut self, bit_width: u8, indices: &[u32], dst: &mut Vec<u8>) {
        dst.push(bit_width);
        self.set_bit_width(bit_width);
        self.put_slice(indices);
        self.finish_into(dst);
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

// Compared with parquet's own encoder, which is behind its `experimental`
// feature (see the `upstream-encoders` feature).
#[cfg(all(test, feature = "upstream-encoders", feature = "parquet-58"))]
mod tests;
