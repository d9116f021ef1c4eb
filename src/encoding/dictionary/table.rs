//! The dictionary's open-addressing table: how large it is made and when it
//! grows, with the value store and hashes reserved alongside.

use super::Dictionary;
use super::hash::{hash_bytes, hash_fixed};
use super::probe::{slot_of, vacant};
use crate::cpu::prefetch;

impl Dictionary {
    /// Makes the first table if there is none, before `n` values are looked
    /// up in it, and puts the entries that came in through the window
    /// (`dense`) since the table last saw one into it.
    #[inline(always)]
    pub(super) fn hash_pending(&mut self, n: usize) {
        if self.slots.is_empty() && n > 0 {
            self.first_table(n.max(self.len));
        }
        if self.hashes.len() < self.len {
            self.hash_entries();
        }
    }

    #[cold]
    fn hash_entries(&mut self) {
        let width = self.width;
        self.hashes.reserve_exact(self.len - self.hashes.len());
        while self.hashes.len() < self.len {
            let key = self.hashes.len();
            let value = &self.values[key * width..(key + 1) * width];
            let hash = match width {
                4 => hash_fixed::<4>(value.try_into().expect("four bytes")),
                8 => hash_fixed::<8>(value.try_into().expect("eight bytes")),
                _ => hash_bytes(value),
            };
            // The table holds `key` entries; one more must fit.
            while key >= self.grow_at {
                self.grow();
            }
            let pos = vacant(&self.slots, hash);
            self.slots[pos] = slot_of(hash, self.low, key);
            self.hashes.push(hash);
        }
    }

    /// Room for more entries in the hashes and the value store (which grow
    /// together): twice as many, or up to the expected count.
    #[cold]
    pub(super) fn reserve_entries(&mut self) {
        self.reserve_more(entries_target(self.len, self.expected) - self.len);
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
    pub(super) fn grow(&mut self) {
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
    pub(super) fn first_table(&mut self, n: usize) {
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
            let pos = vacant(&self.slots, hash);
            self.slots[pos] = slot_of(hash, low, key);
        }
    }
}

/// Tables up to this many slots (128 KiB) are kept at most an eighth full
/// and looked up without prefetching.
pub(super) const SPARSE_SLOTS: usize = 1 << 15;

/// The smallest table (a power of two) that [`Dictionary::resize_table`]
/// lets hold `entries` entries without growing when `entries` is the
/// expected count (an eighth full while sparse, else up to 3/5); for a
/// smaller count the table may grow once more, at half full.
pub(super) fn slots_for(entries: usize) -> usize {
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

/// How many entries the dictionary's stores should have room for once
/// `len` fill them: twice as many (at least 64), but no more than the
/// `expected` count where that is larger than `len` (it may be near
/// `usize::MAX`: no page limit, so saturating). Always above `len`.
pub(super) fn entries_target(len: usize, expected: usize) -> usize {
    let doubled = len.saturating_mul(2).max(64);
    match expected > len {
        true => doubled.min(expected),
        false => doubled,
    }
}
