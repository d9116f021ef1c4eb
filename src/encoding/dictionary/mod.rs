//! Dictionary encoding keyed by the fixed-width value itself.
//!
//! Distinct values are stored back to back in insertion order, which is
//! exactly the PLAIN body of the dictionary page, and looked up through an
//! open-addressing table of `u32` entry numbers. Nothing is allocated per
//! entry: the value store and the table grow geometrically.

mod dense;
pub(crate) mod hash;
pub(crate) mod probe;
mod rising;
mod scaled;
#[cfg(test)]
mod scaled_tests;
mod table;
#[cfg(test)]
mod tests;

use super::rle::{RleEncoder, max_buffer_size, num_required_bits};
use crate::cpu::prefetch;
use crate::values::Slots;
use dense::Dense;
use hash::{hash_bytes, hash_fixed};
use probe::{Probe, probe, slot_of};
use rising::Top;
use scaled::Scale;
use table::SPARSE_SLOTS;

/// A dictionary of `width`-byte values with the indices of the current page.
#[derive(Debug)]
pub(crate) struct Dictionary {
    width: usize,
    /// Distinct values, in key order (the dictionary page body).
    values: Vec<u8>,
    /// Open-addressing table: 0 for an empty slot, else one more than the
    /// entry number in the bits of `low` and the entry's hash in the bits
    /// above (a tag: most probes that meet another entry are told apart in
    /// the slot, without reading that entry's value or hash from memory).
    slots: Vec<u32>,
    /// Stored hash of each entry (to rehash); entries past its length are
    /// not in the table yet (they came in through `dense`).
    hashes: Vec<u32>,
    /// The direct-mapped window of 4- and 8-byte values.
    dense: Dense,
    /// The greatest entry of 4- or 8-byte values.
    top: Top,
    /// How the window is keyed: by the values (integers), or for FLOAT and
    /// DOUBLE by their decimals ([`scaled`]), never by their bits.
    scale: Scale,
    len: usize,
    /// The table grows when `len` reaches this.
    grow_at: usize,
    /// The slot bits that hold one more than the entry number: enough for
    /// `grow_at`.
    low: u32,
    /// The most entries the dictionary is expected to reach before the
    /// column falls back (0: unknown); growth stops short of doubling past it.
    expected: usize,
    /// Values put before the current call of [`Self::put`].
    seen: usize,
    /// Indices buffered for the current data page.
    indices: Vec<u32>,
    rle: RleEncoder,
}

impl Dictionary {
    /// An empty dictionary of `width`-byte values.
    #[cfg(test)]
    pub(crate) fn new(width: usize) -> Self {
        Self::with_expected(width, 0)
    }

    /// An empty dictionary of `width`-byte values expected to hold at most
    /// `expected` entries (0 if unknown): its arrays grow geometrically, but
    /// not past that, so a dictionary that fills its page limit and falls
    /// back holds about the page limit, not up to twice it.
    pub(crate) fn with_expected(width: usize, expected: usize) -> Self {
        Self {
            width,
            values: Vec::new(),
            slots: Vec::new(),
            hashes: Vec::new(),
            dense: Dense::default(),
            top: Top::default(),
            scale: Scale::Ints,
            len: 0,
            grow_at: 0,
            low: 0,
            expected,
            seen: 0,
            indices: Vec::new(),
            rle: RleEncoder::new(0),
        }
    }

    /// The dictionary of a FLOAT or DOUBLE column (4 or 8 bytes): values
    /// that are decimals are looked up by their digits ([`scaled`]).
    pub(crate) fn for_floats(mut self) -> Self {
        if matches!(self.width, 4 | 8) {
            self.scale = Scale::Unknown(0);
        }
        self
    }

    /// Whether the values are FLOAT or DOUBLE.
    fn floats(&self) -> bool {
        self.scale != Scale::Ints
    }

    /// Number of distinct values.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// `parquet`'s estimate of the dictionary page size: width times entries.
    pub(crate) fn encoded_size(&self) -> usize {
        self.width * self.len
    }

    /// `parquet`'s estimate of the current data page: the worst-case size of
    /// the buffered indices at the current bit width.
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        max_buffer_size(self.bit_width(), self.indices.len())
    }

    /// Bytes held: values, table, hashes and buffered indices.
    pub(crate) fn memory_size(&self) -> usize {
        self.values.capacity()
            + self.slots.capacity() * 4
            + self.hashes.capacity() * 4
            + self.indices.capacity() * 4
            + self.dense.memory_size()
            + self.rle.memory_size()
    }

    /// Gives back most of the room the value store, the hashes and the
    /// index buffer have ahead (a writer whose memory a host accounts, after
    /// a write): an eighth of the entries is kept, so that the next write
    /// rarely grows them at once.
    pub(crate) fn trim(&mut self) {
        let keep = self.len + self.len / 8;
        if self.values.capacity() > (keep + 1024).saturating_mul(self.width) {
            self.hashes.shrink_to(keep);
            self.values.shrink_to(keep.saturating_mul(self.width));
        }
        self.indices.shrink_to_fit();
    }

    /// The distinct values, in key order.
    pub(crate) fn values(&self) -> Slots<'_> {
        Slots::fixed(&self.values, self.width)
    }

    /// The distinct values, concatenated in key order, without the table.
    pub(crate) fn into_values(self) -> Vec<u8> {
        self.values
    }

    fn bit_width(&self) -> u8 {
        num_required_bits(self.len.saturating_sub(1) as u64)
    }

    /// Interns each of `values` (of the dictionary's width) and buffers its
    /// index.
    pub(crate) fn put(&mut self, values: Slots<'_>) {
        debug_assert_eq!(values.fixed_width(), Some(self.width));
        let n = values.len();
        let values = values.data();
        self.indices.reserve(n);
        match self.width {
            4 => self.put_int::<4>(values),
            8 => self.put_int::<8>(values),
            _ => {
                self.hash_pending(n);
                // Every width a decimal or a `FixedSizeBinary` id takes up
                // to 32 bytes (Decimal128(20, 2) is 9, Decimal256(50, 18)
                // 21) gets its own loop: fixed-size hashes and compares
                // (a runtime width called `memcmp` for each compare).
                macro_rules! widths {
                    ($($w:literal)*) => {
                        match self.width {
                            $($w => self.put_fixed::<$w>(values),)*
                            w => {
                                for value in values.chunks_exact(w).take(n) {
                                    let key = self.intern(value, hash_bytes(value));
                                    self.indices.push(key);
                                }
                            }
                        }
                    };
                }
                widths!(1 2 3 5 6 7 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
            }
        }
        self.seen = self.seen.saturating_add(n);
    }

    /// [`Self::put_with`], not inlined (one loop per width).
    #[inline(never)]
    fn put_fixed<const W: usize>(&mut self, values: &[u8]) {
        self.put_with::<W>(values);
    }

    /// Interns values of the const width `W` a group at a time: the group's
    /// hashes are computed first and their table slots requested from memory
    /// ([`prefetch`]), so the lookups of a group overlap their cache misses
    /// instead of waiting for them one by one (a large dictionary's table
    /// does not fit in the core's caches).
    #[inline(always)]
    fn put_with<const W: usize>(&mut self, values: &[u8]) {
        const GROUP: usize = 16;
        let (chunks, _) = values.as_chunks::<W>();
        // The keys go straight into the index buffer, grown once for all of
        // them (taken out of `self` meanwhile): pushing each stored the
        // buffer's length and reloaded the table's fields after every
        // value, and appending a group's keys from the stack was a call to
        // `memcpy` per 16 values.
        let mut indices = std::mem::take(&mut self.indices);
        let start = indices.len();
        indices.resize(start + chunks.len(), 0);
        let mut hashes = [0u32; GROUP];
        for (group, keys) in chunks.chunks(GROUP).zip(indices[start..].chunks_mut(GROUP)) {
            // The mask may change if the table grows inside the group: a
            // stale prefetch only wastes a request.
            let mask = self.slots.len().wrapping_sub(1);
            // A sparse table (at most 128 KiB) stays in the core's caches.
            let far = self.slots.len() > SPARSE_SLOTS;
            for (hash, value) in hashes.iter_mut().zip(group) {
                *hash = hash_fixed::<W>(value);
                if far {
                    prefetch(&self.slots[*hash as usize & mask]);
                }
            }
            for ((value, &hash), key) in group.iter().zip(&hashes).zip(keys) {
                *key = self.intern_fixed::<W>(value, hash);
            }
        }
        self.indices = indices;
    }

    /// [`Self::intern`] of a value of the const width `W` (the comparisons
    /// compile to fixed-size ones).
    #[inline(always)]
    fn intern_fixed<const W: usize>(&mut self, value: &[u8; W], hash: u32) -> u32 {
        self.intern_sized(value, W, hash)
    }

    #[inline(always)]
    fn intern(&mut self, value: &[u8], hash: u32) -> u32 {
        self.intern_sized(value, self.width, hash)
    }

    /// The key of `value` (`width` bytes, the dictionary's width), inserting
    /// it if it is new.
    #[inline(always)]
    fn intern_sized(&mut self, value: &[u8], width: usize, hash: u32) -> u32 {
        if self.len >= self.grow_at {
            self.grow();
        }
        let values = &self.values;
        let is = |key: u32| {
            let start = key as usize * width;
            values[start..start + width] == *value
        };
        match probe(&self.slots, self.low, hash, is) {
            Probe::Found(key) => key,
            Probe::Vacant(pos) => self.insert_at(pos, value, hash),
        }
    }

    #[inline(always)]
    fn insert_at(&mut self, pos: usize, value: &[u8], hash: u32) -> u32 {
        let key = self.len as u32;
        self.slots[pos] = slot_of(hash, self.low, key as usize);
        if self.hashes.len() == self.hashes.capacity() {
            self.reserve_entries();
        }
        self.hashes.push(hash);
        self.values.extend_from_slice(value);
        self.len += 1;
        key
    }

    /// At most how many bytes [`Self::finish_page_into`] appends now.
    pub(crate) fn indices_bound(&self) -> usize {
        1 + max_buffer_size(self.bit_width(), self.indices.len()) + 8
    }

    /// Appends the current page's indices (bit width byte, then RLE/bit-packed
    /// indices) to `dst` and clears them.
    pub(crate) fn finish_page_into(&mut self, dst: &mut Vec<u8>) {
        self.rle.write_indices(self.bit_width(), &self.indices, dst);
        self.indices.clear();
    }
}
