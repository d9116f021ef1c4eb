//! A direct-mapped index for 4- and 8-byte values that lie close together.
//!
//! Integer columns of a few thousand distinct values (counts, codes, ids in a
//! range, dates) are most of a table's dictionary work. Read as
//! little-endian signed integers, such a mini-batch's values span a small
//! range, and a value's key is then one load from an array indexed by the
//! value's distance from the window's start: no hash, no probe, no
//! comparison. The hash table stays the index of record for everything
//! else; entries are added to each index lazily, when a mini-batch next
//! needs it, so a column that stays in its window never hashes at all.
//!
//! The window costs memory in proportion to the range it covers, so it is
//! bounded by [`Dictionary::max_window`] and by a multiple of the entries and values the
//! dictionary has seen; moving it is paid for by the values put since it
//! last moved, so values that keep drifting out of it (rising timestamps)
//! fall back to the hash table rather than rebuilding it every mini-batch.

use super::Dictionary;
use super::table::entries_target;
use crate::cpu::{prefetch, with_avx2};

/// The largest window of a dictionary whose expected count is unknown, in
/// slots of 4 bytes (256 KiB).
const MAX_SLOTS: usize = 1 << 16;

/// The largest window of any dictionary (4 MiB): a dictionary expected to
/// hold 262,144 entries (1 MiB of INT32 values) may have a window four
/// times that, about what its table and hashes would take.
const MAX_SLOTS_EXPECTED: usize = 1 << 20;

/// Windows of more slots (128 KiB) are read ahead ([`AHEAD`] values).
const FAR_SLOTS: usize = 1 << 15;

/// How many values ahead a far window is read.
const AHEAD: usize = 16;

/// The values whose range is looked at first.
const SAMPLE: usize = 8;

/// The smallest window made.
const MIN_SLOTS: usize = 1 << 10;

/// A window at most this many times the entries plus the mini-batch's
/// values (a table of that many entries would take about as much room).
const SLOTS_PER_VALUE: usize = 16;

/// The direct-mapped index: `keys[v - base]` is one more than the key of the
/// entry whose value (as a signed integer) is `v`, or 0.
#[derive(Debug, Default)]
pub(super) struct Dense {
    pub(super) base: i64,
    pub(super) keys: Vec<u32>,
    /// Entries `0..covered` are in `keys` where their value is in the window.
    pub(super) covered: usize,
    /// Values put since the window was last made.
    since: usize,
    /// A mini-batch's keys and places in the window (floats keyed by their
    /// decimals).
    pub(super) scratch: Vec<i64>,
}

impl Dense {
    /// Bytes held.
    pub(super) fn memory_size(&self) -> usize {
        self.keys.capacity() * 4 + self.scratch.capacity() * 8
    }

    /// Whether `lo..=hi` lies in the window.
    pub(super) fn contains(&self, lo: i64, hi: i64) -> bool {
        let size = self.keys.len() as i128;
        let base = self.base as i128;
        size > 0 && lo as i128 >= base && (hi as i128) < base + size
    }
}

/// The value of a `W`-byte slot as a signed integer (sign-extended).
#[inline(always)]
pub(super) fn int<const W: usize>(v: &[u8; W]) -> i64 {
    if W == 4 {
        i32::from_le_bytes([v[0], v[1], v[2], v[3]]) as i64
    } else {
        let mut b = [0u8; 8];
        b.copy_from_slice(&v[..8]);
        i64::from_le_bytes(b)
    }
}

/// The least and greatest of `values` as signed integers.
#[inline(always)]
fn range<const W: usize>(values: &[[u8; W]]) -> (i64, i64) {
    with_avx2(|| {
        values.iter().fold((i64::MAX, i64::MIN), |(lo, hi), v| {
            (lo.min(int(v)), hi.max(int(v)))
        })
    })
}

impl Dictionary {
    /// Interns `W`-byte values (`W` is 4 or 8) through the window when they
    /// fit it (or a window can be made for them), else as new entries when
    /// they rise above every entry, else through the table.
    #[inline(always)]
    pub(super) fn put_int<const W: usize>(&mut self, values: &[u8]) {
        let (chunks, _) = values.as_chunks::<W>();
        if chunks.is_empty() {
            return;
        }
        self.dense.since = self.dense.since.saturating_add(chunks.len());
        if self.floats() && self.put_scaled::<W>(chunks) {
            return;
        }
        // A few values too far apart for any window (floats' bits, hashes,
        // spread-out ids) settle it without a pass over all of them.
        let (lo, hi) = range(&chunks[..chunks.len().min(SAMPLE)]);
        let close = hi.abs_diff(lo) < self.max_window() as u64;
        let (lo, hi) = match close && chunks.len() > SAMPLE {
            true => range(chunks),
            false => (lo, hi),
        };
        if lo == hi && chunks.len() > 1 {
            // One value repeated (a date, a flag, a partition's key).
            self.put_repeated::<W>(&chunks[0], chunks.len());
        } else if close
            && !self.floats()
            && (self.dense.contains(lo, hi) || self.make_window(lo, hi, chunks.len()))
        {
            self.put_dense(chunks);
        } else if !self.put_rising(chunks) {
            self.hash_pending(chunks.len());
            self.put_with::<W>(values);
        }
    }

    /// Interns `value` once (by the rules for a single value) and buffers its
    /// key `n` times.
    #[inline(never)]
    fn put_repeated<const W: usize>(&mut self, value: &[u8; W], n: usize) {
        self.put_int::<W>(value);
        let key = *self.indices.last().expect("the value's key");
        self.indices.resize(self.indices.len() + n - 1, key);
    }

    /// The most slots a window may have: four per entry the dictionary is
    /// expected to reach (it replaces the table, which would take about as
    /// much), between [`MAX_SLOTS`] and [`MAX_SLOTS_EXPECTED`].
    fn max_window(&self) -> usize {
        // Clamped before rounding up: an expected count near `usize::MAX`
        // (no page limit to speak of) has no power of two above it.
        (self.expected.saturating_mul(4))
            .clamp(MAX_SLOTS, MAX_SLOTS_EXPECTED)
            .next_power_of_two()
    }

    /// Makes a window that holds `lo..=hi` (and the current window's range
    /// where both fit), if its size and the values put since the last one
    /// allow; false if not.
    #[cold]
    pub(super) fn make_window(&mut self, lo: i64, hi: i64, n: usize) -> bool {
        let (mut from, mut to) = (lo as i128, hi as i128);
        let max_window = self.max_window();
        let had = !self.dense.keys.is_empty();
        if had {
            let base = self.dense.base as i128;
            let end = base + self.dense.keys.len() as i128 - 1;
            if to.max(end) - from.min(base) < max_window as i128 {
                (from, to) = (from.min(base), to.max(end));
            }
        }
        let span = to - from + 1;
        let allowed = (self.len.saturating_add(n).saturating_mul(SLOTS_PER_VALUE))
            .clamp(MIN_SLOTS, max_window) as i128;
        if span > allowed {
            return false;
        }
        let size = (span as usize * 2)
            .next_power_of_two()
            .clamp(MIN_SLOTS, allowed as usize);
        let size = size.max(span as usize);
        // Rebuilding costs the window and a pass over the entries: paid for
        // by the values put since the last one.
        if had && self.dense.since < (size + self.len) / 2 {
            return false;
        }
        // Centred on the range, kept inside i64.
        let margin = (size as i128 - span) / 2;
        let base = (from - margin).clamp(i64::MIN as i128, i64::MAX as i128 - size as i128 + 1);
        let dense = &mut self.dense;
        dense.base = base as i64;
        dense.keys.clear();
        dense.keys.resize(size, 0);
        dense.covered = 0;
        dense.since = 0;
        true
    }

    /// Interns values that all lie in the window.
    #[inline(always)]
    fn put_dense<const W: usize>(&mut self, chunks: &[[u8; W]]) {
        self.cover_with::<W>(|v| Some(int(v)));
        let base = self.dense.base;
        let keys = self.dense.keys.as_mut_slice();
        let (values, len, expected) = (&mut self.values, &mut self.len, self.expected);
        // One pass that holds everything in registers: the index buffer's
        // length is written once (the slice's length is known), and a new
        // entry (rare) is a call.
        // A window past the core's nearer caches is read a few values
        // ahead: a new entry's branch goes either way at random while the
        // dictionary fills, and each miss of it let only one window load
        // wait on memory at a time.
        let far = keys.len() > FAR_SLOTS;
        self.indices.extend(chunks.iter().enumerate().map(|(i, v)| {
            if far && let Some(later) = chunks.get(i + AHEAD) {
                let at = int(later).wrapping_sub(base) as u64 as usize;
                if let Some(slot) = keys.get(at) {
                    prefetch(slot);
                }
            }
            let at = int(v).wrapping_sub(base) as u64 as usize;
            match keys[at] {
                0 => insert(keys, at, values, len, expected, v),
                k => k - 1,
            }
        }));
        self.dense.covered = self.len;
    }

    /// Puts the entries added since the window last saw them into it, each
    /// at its key (`None`: no place in the window).
    #[inline(always)]
    pub(super) fn cover_with<const W: usize>(&mut self, key: impl Fn(&[u8; W]) -> Option<i64>) {
        let dense = &mut self.dense;
        if dense.covered == self.len {
            return;
        }
        let window = 0..dense.keys.len() as i128;
        let (entries, _) = self.values.as_chunks::<W>();
        for (entry, v) in entries.iter().enumerate().skip(dense.covered) {
            let Some(k) = key(v) else { continue };
            let at = k as i128 - dense.base as i128;
            if window.contains(&at) {
                dense.keys[at as usize] = entry as u32 + 1;
            }
        }
        dense.covered = self.len;
    }
}

/// A new entry, found through the window at `at`: its key.
#[inline(never)]
pub(super) fn insert<const W: usize>(
    keys: &mut [u32],
    at: usize,
    values: &mut Vec<u8>,
    len: &mut usize,
    expected: usize,
    value: &[u8; W],
) -> u32 {
    let key = *len as u32;
    keys[at] = key + 1;
    if values.capacity() - values.len() < W {
        let more = entries_target(*len, expected) - *len;
        values.reserve_exact(more.saturating_mul(W));
    }
    values.extend_from_slice(value);
    *len += 1;
    key
}
