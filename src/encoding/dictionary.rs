//! Dictionary encoding keyed by the fixed-width value itself.
//!
//! Distinct values are stored back to back in insertion order, which is
//! exactly the PLAIN body of the dictionary page, and looked up through an
//! open-addressing table of `u32` entry numbers. Nothing is allocated per
//! entry: the value store and the table grow geometrically.

use super::rle::{RleEncoder, max_buffer_size, num_required_bits};
use crate::cpu::prefetch;

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
    /// Stored hash of each entry (to rehash).
    hashes: Vec<u32>,
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
            len: 0,
            grow_at: 0,
            low: 0,
            expected,
            seen: 0,
            indices: Vec::new(),
            rle: RleEncoder::new(0),
        }
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
            + self.rle.memory_size()
    }

    /// The distinct values, concatenated in key order.
    pub(crate) fn values(&self) -> &[u8] {
        &self.values
    }

    /// The distinct values, concatenated in key order, without the table.
    pub(crate) fn into_values(self) -> Vec<u8> {
        self.values
    }

    fn bit_width(&self) -> u8 {
        num_required_bits(self.len.saturating_sub(1) as u64)
    }

    /// Interns each of `values` (`width` bytes each) and buffers its index.
    pub(crate) fn put(&mut self, values: &[u8]) {
        let n = values.len() / self.width;
        self.indices.reserve(n);
        if self.slots.is_empty() && n > 0 {
            self.first_table(n);
        }
        match self.width {
            1 => self.put_with::<1>(values),
            2 => self.put_with::<2>(values),
            4 => self.put_with::<4>(values),
            8 => self.put_with::<8>(values),
            12 => self.put_with::<12>(values),
            16 => self.put_with::<16>(values),
            32 => self.put_with::<32>(values),
            _ => {
                for value in values.chunks_exact(self.width) {
                    let key = self.intern(value, hash_bytes(value));
                    self.indices.push(key);
                }
            }
        }
        self.seen = self.seen.saturating_add(n);
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
        let mut hashes = [0u32; GROUP];
        for group in chunks.chunks(GROUP) {
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
            for (value, &hash) in group.iter().zip(&hashes) {
                let key = self.intern_fixed::<W>(value, hash);
                self.indices.push(key);
            }
        }
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
        let mask = self.slots.len() - 1;
        let low = self.low;
        let mut pos = hash as usize & mask;
        loop {
            let slot = self.slots[pos];
            if slot == 0 {
                return self.insert_at(pos, value, hash);
            }
            if (slot ^ hash) & !low == 0 {
                let key = (slot & low) - 1;
                let start = key as usize * width;
                if self.values[start..start + width] == *value {
                    return key;
                }
            }
            pos = (pos + 1) & mask;
        }
    }

    #[inline(always)]
    fn insert_at(&mut self, pos: usize, value: &[u8], hash: u32) -> u32 {
        let key = self.len as u32;
        self.slots[pos] = (hash & !self.low) | (key + 1);
        if self.hashes.len() == self.hashes.capacity() {
            self.reserve_entries();
        }
        self.hashes.push(hash);
        self.values.extend_from_slice(value);
        self.len += 1;
        key
    }

    /// Room for more entries in the hashes and the value store (which grow
    /// together): twice as many, or up to the expected count.
    #[cold]
    fn reserve_entries(&mut self) {
        let mut target = (self.len * 2).max(64);
        if self.expected > self.len {
            target = target.min(self.expected);
        }
        self.reserve_more(target - self.len);
    }

    /// Room for `more` entries beyond `len` in the hashes and the value
    /// store.
    fn reserve_more(&mut self, more: usize) {
        self.hashes.reserve_exact(more);
        self.values.reserve_exact(more.saturating_mul(self.width));
    }

    /// Doubles the table (see [`Self::resize_table`]); or, when nearly
    /// every value so far was new (7 in 8, of at least [`JUMP_EVIDENCE`]),
    /// makes it as large as eight times the values seen so far need, up to
    /// the expected count of entries, with the value store and hashes
    /// reserved for them too: two steps to the expected count instead of
    /// about six doublings. Such a column (random decimals, UUIDs) fills
    /// its dictionary page and falls back; each doubling up to there
    /// rehashed every entry and copied the value store.
    #[cold]
    fn grow(&mut self) {
        let doubled = (self.slots.len() * 2).max(64);
        let distinct =
            self.seen >= JUMP_EVIDENCE && self.len.saturating_mul(8) >= self.seen.saturating_mul(7);
        if distinct && self.expected > self.len {
            // At most eight times the values seen so far, so that a small
            // row group or file (a few thousand distinct values) gets no
            // larger table than doubling would have given it.
            let target = self.expected.min(self.seen.saturating_mul(8));
            let capacity = slots_for(target).max(doubled);
            self.resize_table(capacity);
            self.reserve_more(target.saturating_sub(self.len));
        } else {
            self.resize_table(doubled);
        }
    }

    /// The first table, before the first `n` values go in: sparse, with
    /// room for as many entries as those values could add (up to
    /// [`FIRST_ENTRIES`]) rather than doubling from the smallest table
    /// while they are put (a file of a few thousand rows paid for most of
    /// those doublings).
    #[cold]
    fn first_table(&mut self, n: usize) {
        let mut entries = n.min(FIRST_ENTRIES);
        if self.expected > 0 {
            entries = entries.min(self.expected);
        }
        self.resize_table((entries * 8).next_power_of_two().max(64));
        self.reserve_more(entries);
    }

    /// Makes the table `capacity` slots (a power of two that holds every
    /// entry) and rehashes every entry into it. A table of up to
    /// [`SPARSE_SLOTS`] slots is kept at most an eighth full, so that most
    /// lookups find their entry at the first probe (a probe sequence of
    /// varying length is a mispredicted branch; such a table is at most
    /// 128 KiB). A larger one is kept at most half full, except that a table
    /// at most 3/5 full with the expected count of entries is not doubled
    /// before that count is reached.
    fn resize_table(&mut self, capacity: usize) {
        let half = capacity / 2;
        let e = self.expected;
        self.grow_at = if capacity <= SPARSE_SLOTS {
            capacity / 8
        } else if e > half && e.saturating_mul(5) <= capacity.saturating_mul(3) {
            e
        } else {
            half
        };
        // Entry numbers + 1 up to `grow_at` fit in `low` (all 32 bits, no
        // tag, past 2^32 - 1 entries).
        let bits = (usize::BITS - self.grow_at.leading_zeros()).min(32);
        self.low = ((1u64 << bits) - 1) as u32;
        let low = self.low;
        self.slots.clear();
        self.slots.resize(capacity, 0);
        let mask = capacity - 1;
        const AHEAD: usize = 16;
        for (key, &hash) in self.hashes.iter().enumerate() {
            // The slots of later entries are requested while this one is
            // placed (the new table is as large as the old one twice over).
            if let Some(&later) = self.hashes.get(key + AHEAD) {
                prefetch(&self.slots[later as usize & mask]);
            }
            let mut pos = hash as usize & mask;
            while self.slots[pos] != 0 {
                pos = (pos + 1) & mask;
            }
            self.slots[pos] = (hash & !low) | (key as u32 + 1);
        }
    }

    /// Appends the current page's indices (bit width byte, then RLE/bit-packed
    /// indices) to `dst` and clears them.
    pub(crate) fn finish_page_into(&mut self, dst: &mut Vec<u8>) {
        let bit_width = self.bit_width();
        dst.push(bit_width);
        self.rle.set_bit_width(bit_width);
        self.rle.put_slice(&self.indices);
        self.rle.finish_into(dst);
        self.indices.clear();
    }
}

/// Tables up to this many slots (128 KiB) are kept at most an eighth full
/// and looked up without prefetching.
const SPARSE_SLOTS: usize = 1 << 15;

/// The smallest table (a power of two) that [`Dictionary::resize_table`]
/// lets hold `entries` entries without growing when `entries` is the
/// expected count (an eighth full while sparse, else up to 3/5); for a
/// smaller count the table may grow once more, at half full.
fn slots_for(entries: usize) -> usize {
    let sparse = entries.saturating_mul(8).next_power_of_two();
    if sparse <= SPARSE_SLOTS {
        return sparse.max(64);
    }
    // Past the sparse size: up to 3/5 full when the expected count is
    // reached (`resize_table`'s rule), so at least 5/3 of `entries` slots.
    entries
        .saturating_mul(5)
        .div_ceil(3)
        .next_power_of_two()
        .max(SPARSE_SLOTS * 2)
}

/// The most entries the first table is made for (8,192 slots, 32 KiB).
const FIRST_ENTRIES: usize = 1024;

/// Values a dictionary must have seen, nearly all of them new, before its
/// table is sized ahead of its entries ([`Dictionary::grow`]):
/// the first few mini-batches of a column of a few thousand distinct
/// values are all new too.
const JUMP_EVIDENCE: usize = 4 * FIRST_ENTRIES;

#[inline(always)]
fn hash_fixed<const W: usize>(value: &[u8; W]) -> u32 {
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

const K: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline(always)]
fn mix(x: u64) -> u32 {
    let x = (x ^ (x >> 32)).wrapping_mul(K);
    let x = (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 32)) as u32
}

#[inline]
fn hash_bytes(value: &[u8]) -> u32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    #[test]
    fn interns_in_insertion_order() {
        for width in [1usize, 2, 3, 4, 8, 12, 16, 17, 32, 100] {
            let mut rng = StdRng::seed_from_u64(width as u64);
            let pool: Vec<Vec<u8>> = (0..300)
                .map(|_| (0..width).map(|_| rng.random()).collect())
                .collect();
            let mut dict = Dictionary::new(width);
            let mut expected_keys = Vec::new();
            let mut seen: Vec<Vec<u8>> = Vec::new();
            let mut input = Vec::new();
            for _ in 0..2000 {
                let v = &pool[rng.random_range(0..pool.len())];
                input.extend_from_slice(v);
                let key = match seen.iter().position(|s| s == v) {
                    Some(k) => k,
                    None => {
                        seen.push(v.clone());
                        seen.len() - 1
                    }
                };
                expected_keys.push(key as u32);
            }
            dict.put(&input);
            assert_eq!(dict.indices, expected_keys);
            assert_eq!(dict.values(), seen.concat().as_slice());
            assert_eq!(dict.len(), seen.len());
        }
    }

    /// Many entries (tables of up to 2^19 slots, grown many times, some at
    /// 3/5 load with an expected count), repeats among them: keys as a map
    /// from value to first-seen order gives them, in one call and in many.
    #[test]
    fn large_dictionaries_keep_keys() {
        use std::collections::HashMap;
        for (width, distinct, expected) in [
            (4usize, 200_000usize, 0usize),
            (8, 150_000, 150_100),
            (3, 90_000, 0),
            (16, 70_000, 0),
        ] {
            let mut rng = StdRng::seed_from_u64(width as u64 + 7);
            let pool: Vec<Vec<u8>> = (0..distinct)
                .map(|_| (0..width).map(|_| rng.random()).collect())
                .collect();
            let mut input = Vec::new();
            let mut map: HashMap<&[u8], u32> = HashMap::new();
            let mut expected_keys = Vec::new();
            for i in 0..distinct * 2 {
                // New values in order, with earlier ones repeated between.
                let v = if i % 2 == 0 {
                    &pool[i / 2]
                } else {
                    &pool[rng.random_range(0..=i / 2)]
                };
                input.extend_from_slice(v);
                let next = map.len() as u32;
                expected_keys.push(*map.entry(v.as_slice()).or_insert(next));
            }
            for calls in [1, 97] {
                let mut dict = Dictionary::with_expected(width, expected);
                let step = (input.len() / width).div_ceil(calls) * width;
                for part in input.chunks(step) {
                    dict.put(part);
                }
                assert!(
                    dict.indices == expected_keys,
                    "width {width}, {calls} calls"
                );
                assert_eq!(dict.len(), map.len());
            }
        }
    }

    /// Values all distinct (a column that will fall back): once enough of
    /// them were seen, the table goes to the size for the expected count in
    /// at most two steps, and stays so until that count is passed; keys
    /// stay right, also past the expected count (doubling again from
    /// there).
    #[test]
    fn distinct_values_size_the_table_for_the_expected_count() {
        for (width, expected) in [
            (8usize, 132_097usize),
            (16, 66_561),
            (4, 263_169),
            (32, 33_793),
        ] {
            let total = expected + expected / 2;
            let input: Vec<u8> = (0..total as u64)
                .flat_map(|i| {
                    let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes();
                    (0..width).map(move |b| v[b % 8] ^ (b / 8) as u8)
                })
                .collect();
            let mut dict = Dictionary::with_expected(width, expected);
            let mut sizes = Vec::new();
            for (call, part) in input.chunks(1024 * width).enumerate() {
                dict.put(part);
                if dict.len() < expected {
                    sizes.push(dict.slots.len());
                }
                let want: Vec<u32> = (call * 1024..(call * 1024 + part.len() / width))
                    .map(|k| k as u32)
                    .collect();
                assert_eq!(&dict.indices[call * 1024..], &want[..], "width {width}");
            }
            assert_eq!(dict.len(), total);
            // Sparse tables while the evidence builds up, then at most one
            // step (eight times the values seen) before the table for the
            // expected count.
            sizes.dedup();
            let (last, before) = sizes.split_last().unwrap();
            assert_eq!(*last, slots_for(expected), "width {width}: {sizes:?}");
            let large = before.iter().filter(|&&s| s > SPARSE_SLOTS).count();
            assert!(large <= 1, "width {width}: {sizes:?}");
            assert!(dict.slots.len() >= slots_for(total));
        }
    }

    /// A low-cardinality column keeps doubling from a small table.
    #[test]
    fn repeated_values_keep_a_small_table() {
        let mut dict = Dictionary::with_expected(16, 66_560);
        let input: Vec<u8> = (0..100_000u32)
            .flat_map(|i| {
                let v = (i % 3_000).to_le_bytes();
                (0..16).map(move |b| v[b % 4])
            })
            .collect();
        for part in input.chunks(1024 * 16) {
            dict.put(part);
        }
        assert_eq!(dict.len(), 3_000);
        assert!(dict.slots.len() <= 32_768, "{}", dict.slots.len());
    }

    /// A small file of distinct values (5,000 UUIDs) gets no larger table
    /// or store than doubling gives it, though its expected count is the
    /// page limit's 66,561 entries.
    #[test]
    fn a_few_thousand_distinct_values_keep_a_small_table() {
        let input: Vec<u8> = (0..5_000u64)
            .flat_map(|i| {
                let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes();
                (0..16).map(move |b| v[b % 8] ^ (b / 8) as u8)
            })
            .collect();
        let mut dict = Dictionary::with_expected(16, 66_561);
        for part in input.chunks(1024 * 16) {
            dict.put(part);
        }
        assert_eq!(dict.len(), 5_000);
        assert!(dict.slots.len() <= 65_536, "{}", dict.slots.len());
        assert!(
            dict.hashes.capacity() <= 5_000 * 8,
            "{}",
            dict.hashes.capacity()
        );
    }
}
