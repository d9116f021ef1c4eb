//! The rolling state of a chunker, and the two ways of feeding it.
//!
//! The data of a leaf is a sequence of *items* (one per level: its
//! definition level, its repetition level, its value if it has one), and an
//! item is a sequence of *pieces* (a level is a piece of two little-endian
//! bytes, a value a piece of its Arrow bytes). Per byte, the gear hash
//! becomes `hash * 2 + table[byte]` (wrapping), and a *match* is a hash whose
//! top bits are zero, i.e. at most [`Bounds::limit`].
//!
//! * The size of the current chunk counts every piece; a piece that leaves it
//!   below [`Bounds::min`] is not hashed at all.
//! * After an item (for nested leaves, only after an item that starts a
//!   record), a match anywhere in the bytes hashed since the last such check
//!   advances the run to the next gear table; the eighth advance closes the
//!   chunk and starts the run over. Independently, a chunk whose size has
//!   reached [`Bounds::max`] is closed. Closing a chunk resets its size to 0.
//!
//! [`Cursor::piece`] and [`Cursor::close_item`] apply that rule literally.
//! The fast loops instead check a whole item at once: [`Cursor::mix`] hashes
//! unconditionally and returns the lowest hash it went through, which
//! matches exactly when one of the hashes does.

use super::bounds::Bounds;
use super::gear::{TABLE_COUNT, Table, Tables};

/// What a chunker keeps from one call to the next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Carry {
    /// The gear hash; never reset.
    pub hash: u64,
    /// The gear table in use: how many matches the current run has.
    pub run: usize,
    /// Bytes in the current chunk.
    pub size: i64,
    /// A match not yet acted on (only nested leaves carry one across items).
    pub pending: bool,
}

/// A chunker's state held in locals for the length of one call.
///
/// It is `Copy` so that hot loops can work on a copy of their own, which
/// the compiler keeps in registers, and store it back once.
#[derive(Clone, Copy)]
pub(super) struct Cursor {
    tables: &'static Tables,
    table: &'static Table,
    run: usize,
    /// The gear hash.
    pub hash: u64,
    /// Bytes in the current chunk.
    pub size: i64,
    pending: bool,
    /// The chunker's parameters.
    pub bounds: Bounds,
}

impl Cursor {
    /// Resumes from `carry`.
    pub(super) fn resume(tables: &'static Tables, bounds: Bounds, carry: Carry) -> Self {
        Self {
            tables,
            table: &tables[carry.run],
            run: carry.run,
            hash: carry.hash,
            size: carry.size,
            pending: carry.pending,
            bounds,
        }
    }

    /// The state to keep for the next call.
    pub(super) fn carry(&self) -> Carry {
        Carry {
            hash: self.hash,
            run: self.run,
            size: self.size,
            pending: self.pending,
        }
    }

    /// Whether every piece of the next item is hashed and no match is
    /// pending: the condition for the fast, whole-item path.
    #[inline(always)]
    pub(super) fn hashing(&self) -> bool {
        self.size >= self.bounds.min && !self.pending
    }

    /// How many items of `step` bytes each can be taken in without reaching
    /// the minimum (so without hashing and without closing a chunk).
    #[inline]
    pub(super) fn quiet_items(&self, step: i64) -> usize {
        let room = self.bounds.min - self.size;
        if self.pending || room <= 0 || step <= 0 {
            return 0;
        }
        usize::try_from((room - 1) / step).unwrap_or(usize::MAX)
    }

    /// How many items of `step > 0` bytes each it takes for the chunk to reach
    /// the maximum (at least one).
    #[inline]
    pub(super) fn items_to_max(&self, step: i64) -> usize {
        let room = self.bounds.max - self.size;
        if room <= 0 {
            return 1;
        }
        usize::try_from((room - 1) / step + 1).unwrap_or(usize::MAX)
    }

    /// Hashes `bytes`, whatever the chunk size; returns the lowest hash on
    /// the way, which matches (is at most the limit) exactly when one of
    /// the hashes does.
    ///
    /// Four bytes per step. Each hash doubles the one before and adds a
    /// table word, so four bytes on from `h` the hash is
    /// `16h + (8a + 4b + 2c + d)`: the step from hash to hash is one
    /// shift-add, with the sum and the three hashes in between computed
    /// beside it rather than after it. The running minimum is off that
    /// chain too, and is compared with the limit once per item, by the
    /// caller. A tail of two bytes (a level is a whole item of two) takes
    /// the same step at two bytes; a last odd byte is hashed alone.
    #[inline(always)]
    pub(super) fn mix<const N: usize>(&mut self, bytes: &[u8; N]) -> u64 {
        self.mix_slice(bytes)
    }

    /// [`Self::mix`] for a length known at run time.
    #[inline(always)]
    pub(super) fn mix_slice(&mut self, bytes: &[u8]) -> u64 {
        let table = self.table;
        let mut hash = self.hash;
        let mut lowest = u64::MAX;
        let (quads, rest) = bytes.as_chunks::<4>();
        for &[a, b, c, d] in quads {
            let (a, b, c, d) = (
                table[usize::from(a)],
                table[usize::from(b)],
                table[usize::from(c)],
                table[usize::from(d)],
            );
            let ab = (a << 1).wrapping_add(b);
            let abc = (ab << 1).wrapping_add(c);
            let abcd = (abc << 1).wrapping_add(d);
            let h1 = (hash << 1).wrapping_add(a);
            let h2 = (hash << 2).wrapping_add(ab);
            let h3 = (hash << 3).wrapping_add(abc);
            hash = (hash << 4).wrapping_add(abcd);
            lowest = lowest.min(h1.min(h2)).min(h3.min(hash));
        }
        let (pairs, rest) = rest.as_chunks::<2>();
        for &[a, b] in pairs {
            let (a, b) = (table[usize::from(a)], table[usize::from(b)]);
            let between = (hash << 1).wrapping_add(a);
            hash = (hash << 2).wrapping_add((a << 1).wrapping_add(b));
            lowest = lowest.min(between.min(hash));
        }
        for &byte in rest {
            hash = (hash << 1).wrapping_add(table[usize::from(byte)]);
            lowest = lowest.min(hash);
        }
        self.hash = hash;
        lowest
    }

    /// [`Self::mix`] for a level.
    #[inline(always)]
    pub(super) fn mix_level(&mut self, level: i16) -> u64 {
        self.mix(&level.to_le_bytes())
    }

    /// Acts on the lowest hash of an item fed with [`Self::mix`] and on the
    /// chunk size (which the caller has already advanced): true when the item
    /// closes the chunk.
    #[inline(always)]
    pub(super) fn end_item(&mut self, lowest: u64) -> bool {
        let completed = lowest <= self.bounds.limit && self.advance_run();
        if completed || self.size >= self.bounds.max {
            self.size = 0;
            return true;
        }
        false
    }

    /// Moves the run to its next table after a match; true when that
    /// completes the run (which starts over at the first table).
    #[inline]
    pub(super) fn advance_run(&mut self) -> bool {
        let next = self.run + 1;
        self.run = if next == TABLE_COUNT { 0 } else { next };
        self.table = &self.tables[self.run];
        self.run == 0
    }

    /// Takes in one piece under the literal rule: counted always, hashed
    /// only once the chunk has reached the minimum.
    #[inline]
    pub(super) fn piece(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as i64;
        if self.size >= self.bounds.min {
            // The common widths get an unrolled loop.
            let lowest = if let Ok(bytes) = <&[u8; 16]>::try_from(bytes) {
                self.mix(bytes)
            } else if let Ok(bytes) = <&[u8; 32]>::try_from(bytes) {
                self.mix(bytes)
            } else {
                self.mix_slice(bytes)
            };
            self.pending |= lowest <= self.bounds.limit;
        }
    }

    /// [`Self::piece`] for a level.
    #[inline]
    pub(super) fn piece_level(&mut self, level: i16) {
        self.size += 2;
        if self.size >= self.bounds.min {
            let lowest = self.mix_level(level);
            self.pending |= lowest <= self.bounds.limit;
        }
    }

    /// Acts on the pending match and the chunk size after an item fed with
    /// [`Self::piece`]: true when the item closes the chunk.
    #[inline]
    pub(super) fn close_item(&mut self) -> bool {
        let lowest = if std::mem::take(&mut self.pending) {
            0
        } else {
            u64::MAX
        };
        self.end_item(lowest)
    }
}
