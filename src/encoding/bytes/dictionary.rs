//! The dictionary of a byte-array column.
//!
//! Its entries are kept back to back in the dictionary page's own layout
//! (each a 4-byte little-endian length, then its bytes, in key order), so
//! that the page is the store and nothing is allocated per entry. An
//! open-addressing table of `u32` slots finds a value's entry: a slot holds
//! one more than the entry number in its low bits and the entry's hash in
//! the bits above, so most probes that meet another entry are told apart
//! without reading it. Short entries (up to 16 bytes) are compared through
//! two words rather than a byte compare.
//!
//! Values come either from a byte array by position, or (an Arrow
//! dictionary array, whose values are already distinct) through the key
//! remap (`remap.rs`): each Arrow key is looked up once, and its later rows
//! cost a load.

use super::hash::{Short, hash_value, short};
use crate::cpu::prefetch;
use crate::encoding::dictionary::probe::{Probe, probe, slot_of, vacant};
use crate::encoding::rle::{RleEncoder, max_buffer_size, num_required_bits};
use crate::values::bytes::{ByteValues, Picks, ValueAt, with_layout};

/// One distinct value: where its bytes are in the page, its hash, and (a
/// value of at most 16 bytes) the words that identify it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: usize,
    len: u32,
    hash: u32,
    short: Short,
}

/// Tables up to this many slots (128 KiB) are kept at most an eighth full
/// and looked up without prefetching.
const SPARSE_SLOTS: usize = 1 << 15;

/// The most entries the first table is made for.
const FIRST_ENTRIES: usize = 1024;

/// The dictionary of a byte-array column, with the indices of the current
/// data page.
#[derive(Debug)]
pub(crate) struct ByteDictionary {
    /// The dictionary page body: every entry as its length (u32 LE) and
    /// bytes, in key order.
    page: Vec<u8>,
    entries: Vec<Entry>,
    /// Open-addressing table (see the module documentation); 0 is empty.
    slots: Vec<u32>,
    /// The table grows when the entries reach this.
    grow_at: usize,
    /// The slot bits that hold one more than the entry number.
    low: u32,
    /// Indices buffered for the current data page.
    indices: Vec<u32>,
    rle: RleEncoder,
}

impl Default for ByteDictionary {
    fn default() -> Self {
        Self::new()
    }
}

impl ByteDictionary {
    /// An empty dictionary.
    pub(crate) fn new() -> Self {
        Self {
            page: Vec::new(),
            entries: Vec::new(),
            slots: Vec::new(),
            grow_at: 0,
            low: 0,
            indices: Vec::new(),
            rle: RleEncoder::new(0),
        }
    }

    /// Number of distinct values.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// `parquet`'s estimate of the dictionary page: its exact size (every
    /// entry with its 4-byte length).
    pub(crate) fn encoded_size(&self) -> usize {
        self.page.len()
    }

    /// `parquet`'s estimate of the current data page: the bit-width byte
    /// and the worst-case size of the buffered indices.
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        1 + max_buffer_size(self.bit_width(), self.indices.len())
    }

    /// Number of indices buffered for the current data page.
    pub(crate) fn buffered(&self) -> usize {
        self.indices.len()
    }

    /// The indices buffered for the current data page.
    pub(crate) fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Bytes held: page, entries, table, indices.
    pub(crate) fn memory_size(&self) -> usize {
        self.page.capacity()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.slots.capacity() * 4
            + self.indices.capacity() * 4
            + self.rle.memory_size()
    }

    /// Gives back most of the room ahead of the entries and the index
    /// buffer (a writer whose memory a host accounts, after a write).
    pub(crate) fn trim(&mut self) {
        let keep = self.entries.len() + self.entries.len() / 8;
        if self.entries.capacity() > keep + 1024 {
            self.entries.shrink_to(keep);
            let bytes = self.page.len() + self.page.len() / 8;
            self.page.shrink_to(bytes);
        }
        self.indices.shrink_to_fit();
    }

    /// The bytes of entry `key`.
    #[inline(always)]
    pub(crate) fn entry(&self, key: u32) -> &[u8] {
        let e = self.entries[key as usize];
        &self.page[e.start..e.start + e.len as usize]
    }

    /// Every entry's bytes, in key order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &[u8]> {
        self.entries
            .iter()
            .map(|e| &self.page[e.start..e.start + e.len as usize])
    }

    /// The dictionary page body and its number of entries.
    pub(crate) fn into_page(self) -> (Vec<u8>, usize) {
        (self.page, self.entries.len())
    }

    fn bit_width(&self) -> u8 {
        num_required_bits(self.entries.len().saturating_sub(1) as u64)
    }

    /// Interns the values of `values` at `picks` and buffers their indices.
    pub(crate) fn put(&mut self, values: &ByteValues<'_>, picks: &Picks<'_>) {
        let n = picks.count();
        if n == 0 {
            return;
        }
        self.ensure_table(n);
        // The keys go straight into the index buffer, grown once for all of
        // them (taken out of `self` meanwhile).
        let mut indices = std::mem::take(&mut self.indices);
        let start = indices.len();
        indices.resize(start + n, 0);
        let keys = &mut indices[start..];
        with_layout!(values, v => match *picks {
            Picks::Range(from, to) => self.put_grouped(v, from..to, keys),
            Picks::Bitmap { offset, len, count, .. } if count == len => {
                self.put_grouped(v, offset..offset + len, keys)
            }
            _ => self.put_grouped(v, picks.iter(), keys),
        });
        self.indices = indices;
    }

    /// Interns the values at `positions` (one per key of `keys`) and writes
    /// their keys, sixteen at a time: a group's values are read and hashed
    /// first (their slots requested from memory when the table no longer
    /// fits the core's caches), then looked up, so that the lookups of a
    /// group overlap rather than wait for each other.
    #[inline(always)]
    fn put_grouped<'a>(
        &mut self,
        values: impl ValueAt<'a>,
        mut positions: impl Iterator<Item = usize>,
        keys: &mut [u32],
    ) {
        const GROUP: usize = 16;
        let mut group: [(&[u8], u32); GROUP] = [(&[], 0); GROUP];
        for out in keys.chunks_mut(GROUP) {
            // The mask may change if the table grows inside the group: a
            // stale prefetch only wastes a request.
            let mask = self.slots.len() - 1;
            let far = self.slots.len() > SPARSE_SLOTS;
            for (slot, i) in group.iter_mut().take(out.len()).zip(&mut positions) {
                let value = values.at(i);
                let hash = hash_value(value);
                if far {
                    prefetch(&self.slots[hash as usize & mask]);
                }
                *slot = (value, hash);
            }
            for (key, &(value, hash)) in out.iter_mut().zip(&group) {
                *key = self.intern_hashed(value, hash);
            }
        }
    }

    /// The key of `value`, inserting it if it is new.
    #[inline(always)]
    pub(crate) fn intern(&mut self, value: &[u8]) -> u32 {
        self.intern_hashed(value, hash_value(value))
    }

    /// [`Self::intern`] of a value whose hash ([`hash_value`]) is `hash`.
    #[inline(always)]
    fn intern_hashed(&mut self, value: &[u8], hash: u32) -> u32 {
        match short(value) {
            Some(s) => self.intern_short(value, s, hash),
            None => self.intern_long(value, hash),
        }
    }

    /// [`Self::intern`] of a value of at most 16 bytes: entries are compared
    /// by length and words.
    #[inline(always)]
    fn intern_short(&mut self, value: &[u8], s: Short, hash: u32) -> u32 {
        let n = value.len();
        if self.entries.len() >= self.grow_at {
            self.grow();
        }
        let entries = &self.entries;
        let is = |key: u32| {
            let e = &entries[key as usize];
            e.len as usize == n && e.short == s
        };
        match probe(&self.slots, self.low, hash, is) {
            Probe::Found(key) => key,
            Probe::Vacant(pos) => self.insert_at(pos, value, hash),
        }
    }

    /// [`Self::intern`] of a longer value, compared byte for byte.
    #[inline(never)]
    fn intern_long(&mut self, value: &[u8], hash: u32) -> u32 {
        if self.entries.len() >= self.grow_at {
            self.grow();
        }
        let (entries, page) = (&self.entries, &self.page);
        let is = |key: u32| {
            let e = entries[key as usize];
            e.len as usize == value.len() && &page[e.start..][..value.len()] == value
        };
        match probe(&self.slots, self.low, hash, is) {
            Probe::Found(key) => key,
            Probe::Vacant(pos) => self.insert_at(pos, value, hash),
        }
    }

    #[inline(always)]
    fn insert_at(&mut self, pos: usize, value: &[u8], hash: u32) -> u32 {
        let key = self.entries.len() as u32;
        self.slots[pos] = slot_of(hash, self.low, key as usize);
        self.page.reserve(4 + value.len());
        // parquet writes the length as a u32, whatever it is.
        self.page
            .extend_from_slice(&(value.len() as u32).to_le_bytes());
        let start = self.page.len();
        self.page.extend_from_slice(value);
        self.entries.push(Entry {
            start,
            len: value.len() as u32,
            hash,
            short: short(value).unwrap_or(Short(0, 0)),
        });
        key
    }

    /// Buffers the indices of `keys` (already in this dictionary).
    #[inline]
    pub(crate) fn push_indices(&mut self, keys: &[u32]) {
        self.indices.extend_from_slice(keys);
    }

    /// At most how many bytes [`Self::finish_page_into`] appends now.
    pub(crate) fn indices_bound(&self) -> usize {
        1 + max_buffer_size(self.bit_width(), self.indices.len()) + 8
    }

    /// Appends the current page's indices (bit width byte, then RLE /
    /// bit-packed indices) to `dst` and clears them.
    pub(crate) fn finish_page_into(&mut self, dst: &mut Vec<u8>) {
        self.rle.write_indices(self.bit_width(), &self.indices, dst);
        self.indices.clear();
    }

    /// Makes the first table, if there is none, before `n` values are put.
    #[inline]
    pub(super) fn ensure_table(&mut self, n: usize) {
        if self.slots.is_empty() {
            self.first_table(n);
        }
    }

    /// The first table, sized for as many entries as `n` values could add
    /// (up to [`FIRST_ENTRIES`]).
    #[cold]
    fn first_table(&mut self, n: usize) {
        let entries = n.min(FIRST_ENTRIES);
        self.resize_table((entries * 8).next_power_of_two().max(64));
    }

    /// Doubles the table.
    #[cold]
    fn grow(&mut self) {
        self.resize_table((self.slots.len() * 2).max(64));
    }

    /// Makes the table `capacity` slots and rehashes every entry into it:
    /// at most an eighth full while it fits the core's caches, else half.
    fn resize_table(&mut self, capacity: usize) {
        self.grow_at = if capacity <= SPARSE_SLOTS {
            capacity / 8
        } else {
            capacity / 2
        };
        let bits = (usize::BITS - self.grow_at.leading_zeros()).min(32);
        self.low = ((1u64 << bits) - 1) as u32;
        let low = self.low;
        self.slots.clear();
        self.slots.resize(capacity, 0);
        for (key, e) in self.entries.iter().enumerate() {
            let pos = vacant(&self.slots, e.hash);
            self.slots[pos] = slot_of(e.hash, low, key);
        }
    }
}

#[cfg(test)]
mod tests;
