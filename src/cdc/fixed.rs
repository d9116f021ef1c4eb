//! Chunking a top-level leaf straight from its fixed-width value bytes and
//! validity bitmap, without materializing levels.
//!
//! A top-level leaf has one item per array position: a definition level (if
//! the leaf is nullable; 1 for a value, 0 for a null) and the value's bytes
//! (if valid). The walks here keep the state in locals, hash the common widths
//! with unrolled loops, count whole stretches below the minimum chunk size
//! without looking at them, and check for a chunk end once per item.

use super::cursor::Cursor;
use super::{Chunk, Chunker, Cuts};
use crate::cpu::prefetch;
use arrow_buffer::NullBuffer;

impl Chunker {
    /// Chunks of a top-level leaf of `len` fixed-width values (`bytes` holds
    /// value `i` at `[i * width, (i + 1) * width)`). `nullable` says whether
    /// the leaf has definition levels; `nulls` is its validity, if any value
    /// may be null.
    ///
    /// As in `parquet`, a chunk closed by item `i` ends before it, and one
    /// closed by the first item of a call is empty.
    pub(crate) fn chunks_fixed(
        &mut self,
        len: usize,
        nullable: bool,
        nulls: Option<&NullBuffer>,
        bytes: &[u8],
        width: usize,
    ) -> Vec<Chunk> {
        let needed = len.checked_mul(width);
        assert!(
            needed.is_some_and(|n| n <= bytes.len()),
            "chunker: {len} values of {width} bytes in a buffer of {}",
            bytes.len()
        );
        let shape = match (nullable, nulls) {
            (false, _) => Shape::Required,
            (true, None) => Shape::AllValid,
            (true, Some(nulls)) => Shape::Bitmap(nulls),
        };
        let mut cursor = self.cursor();
        let mut cuts = Cuts::default();
        let walk = Walk {
            cursor: &mut cursor,
            cuts: &mut cuts,
            shape,
            len,
        };
        match width {
            1 => walk.run(Unrolled::<1>::new(bytes, len)),
            2 => walk.run(Unrolled::<2>::new(bytes, len)),
            4 => walk.run(Unrolled::<4>::new(bytes, len)),
            8 => walk.run(Unrolled::<8>::new(bytes, len)),
            16 => walk.run(Unrolled::<16>::new(bytes, len)),
            32 => walk.run(Unrolled::<32>::new(bytes, len)),
            _ => walk.run(Strided { bytes, width }),
        }
        self.keep(&cursor);
        cuts.finish(len)
    }
}

/// Which levels the leaf has.
#[derive(Clone, Copy)]
enum Shape<'a> {
    /// None: every item is just a value.
    Required,
    /// All 1: every item is a level and a value.
    AllValid,
    /// 1 where the bitmap is set (level and value), else 0 (level only).
    Bitmap(&'a NullBuffer),
}

/// Fixed-width values, by position.
trait Values: Copy {
    /// Bytes per value.
    fn width(&self) -> usize;
    /// Value `i`.
    fn get(&self, i: usize) -> &[u8];
    /// Hashes value `i` (see [`Cursor::mix`]).
    fn mix(&self, cursor: &mut Cursor, i: usize) -> u64;
    /// How many values [`Self::mix_run`] hashes at once: 1, or for narrow
    /// values as many as make 32 bytes.
    fn run_len(&self) -> usize {
        1
    }
    /// Hashes values `i..i + self.run_len()` as one stretch of bytes (they
    /// lie back to back); returns the lowest hash on the way.
    #[inline(always)]
    fn mix_run(&self, cursor: &mut Cursor, i: usize) -> u64 {
        self.mix(cursor, i)
    }
    /// Asks for value `i`'s bytes to be brought into the cache.
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        if let Some(first) = self.get(i).first() {
            prefetch(first);
        }
    }
}

/// How many bitmap words ahead of the walk [`Walk::bitmap`] prefetches.
const PREFETCH_WORDS: usize = 2;

/// Values of a width known at compile time.
#[derive(Clone, Copy)]
struct Unrolled<'a, const N: usize>(&'a [[u8; N]]);

impl<'a, const N: usize> Unrolled<'a, N> {
    fn new(bytes: &'a [u8], len: usize) -> Self {
        Self(bytes[..len * N].as_chunks::<N>().0)
    }
}

impl<const N: usize> Values for Unrolled<'_, N> {
    fn width(&self) -> usize {
        N
    }

    fn get(&self, i: usize) -> &[u8] {
        &self.0[i]
    }

    #[inline(always)]
    fn mix(&self, cursor: &mut Cursor, i: usize) -> u64 {
        cursor.mix(&self.0[i])
    }

    fn run_len(&self) -> usize {
        if N > 0 && N < 16 { 32 / N } else { 1 }
    }

    #[inline(always)]
    fn mix_run(&self, cursor: &mut Cursor, i: usize) -> u64 {
        cursor.mix_slice(self.0[i..i + self.run_len()].as_flattened())
    }
}

/// Values of any other width.
#[derive(Clone, Copy)]
struct Strided<'a> {
    bytes: &'a [u8],
    width: usize,
}

impl Values for Strided<'_> {
    fn width(&self) -> usize {
        self.width
    }

    fn get(&self, i: usize) -> &[u8] {
        &self.bytes[i * self.width..][..self.width]
    }

    #[inline(always)]
    fn mix(&self, cursor: &mut Cursor, i: usize) -> u64 {
        cursor.mix_slice(self.get(i))
    }
}

/// One call's walk over the items of a leaf.
struct Walk<'c> {
    cursor: &'c mut Cursor,
    cuts: &'c mut Cuts,
    shape: Shape<'c>,
    len: usize,
}

impl Walk<'_> {
    fn run<V: Values>(self, values: V) {
        match self.shape {
            // Zero-width values add no bytes: the literal rule, item by item.
            Shape::Required if values.width() == 0 => self.literal(values),
            Shape::Required => self.uniform::<V, false>(values),
            Shape::AllValid => self.uniform::<V, true>(values),
            Shape::Bitmap(nulls) => self.bitmap(values, nulls),
        }
    }

    /// Item `i` under the literal rule (see [`Cursor::piece`]), with a
    /// level if `level` is given; true when it closes the chunk.
    #[inline]
    fn literal_item<V: Values>(&mut self, values: V, i: usize, level: Option<bool>) -> bool {
        if let Some(valid) = level {
            self.cursor.piece_level(i16::from(valid));
        }
        if level != Some(false) {
            self.cursor.piece(values.get(i));
        }
        self.cursor.close_item()
    }

    /// Every item of a required leaf under the literal rule.
    fn literal<V: Values>(mut self, values: V) {
        for i in 0..self.len {
            if self.literal_item(values, i, None) {
                self.cuts.cut(i);
            }
        }
    }

    /// Items that all have the same size: values with (`LEVELED`) or without
    /// a definition level 1 before each.
    fn uniform<V: Values, const LEVELED: bool>(mut self, values: V) {
        let step = values.width() as i64 + if LEVELED { 2 } else { 0 };
        let mut i = 0;
        while i < self.len {
            // Items that stay below the minimum are counted, not hashed.
            let quiet = self.cursor.quiet_items(step).min(self.len - i);
            self.cursor.size += quiet as i64 * step;
            i += quiet;
            if i == self.len {
                break;
            }
            if self.cursor.hashing() {
                i = self.hashed_stretch::<V, LEVELED>(values, i, step);
            } else {
                // The item that reaches the minimum, or one after a pending
                // match: piece by piece.
                if self.literal_item(values, i, LEVELED.then_some(true)) {
                    self.cuts.cut(i);
                }
                i += 1;
            }
        }
    }

    /// Hashes whole items of `step` bytes from `i`, up to the one that closes
    /// the chunk or the end of the leaf; returns the item after the last one
    /// taken.
    #[inline(always)]
    fn hashed_stretch<V: Values, const LEVELED: bool>(
        &mut self,
        values: V,
        mut i: usize,
        step: i64,
    ) -> usize {
        // A copy in locals: through the reference, the hash would go to
        // memory and back on every item.
        let mut cursor = *self.cursor;
        // The item at which the chunk reaches the maximum closes it anyway;
        // the ones before it can only close it by completing the run.
        let at_max = i.saturating_add(cursor.items_to_max(step) - 1);
        let first = i;
        let end = at_max.min(self.len);
        // Narrow values without levels lie back to back: a run of them is
        // hashed as one stretch and checked once. A run with a match is
        // hashed again value by value (from the hash before it), since a
        // match moves to the next table.
        let run = if LEVELED { 1 } else { values.run_len() };
        while i < end {
            let stop = if run > 1 && end - i >= run {
                let before = cursor.hash;
                if values.mix_run(&mut cursor, i) > cursor.bounds.limit {
                    i += run;
                    continue;
                }
                cursor.hash = before;
                i + run
            } else {
                i + 1
            };
            while i < stop {
                let lowest = item_hash::<V, LEVELED>(&mut cursor, values, i);
                if lowest <= cursor.bounds.limit && cursor.advance_run() {
                    cursor.size = 0;
                    *self.cursor = cursor;
                    self.cuts.cut(i);
                    return i + 1;
                }
                i += 1;
            }
        }
        cursor.size += (i - first) as i64 * step;
        if i < self.len {
            let lowest = item_hash::<V, LEVELED>(&mut cursor, values, i);
            cursor.size += step;
            let closed = cursor.end_item(lowest);
            debug_assert!(closed, "the chunk has reached its maximum");
            *self.cursor = cursor;
            self.cuts.cut(i);
            return i + 1;
        }
        *self.cursor = cursor;
        i
    }

    /// Items with levels from a validity bitmap, 64 at a time.
    ///
    /// The values of a sparse leaf are read scattered, which the hardware
    /// does not foresee: the valid values [`PREFETCH_WORDS`] words ahead
    /// are asked for before each word is walked.
    fn bitmap<V: Values>(mut self, values: V, nulls: &NullBuffer) {
        let width = values.width() as i64;
        let chunks = nulls.inner().bit_chunks();
        let mut words = chunks.iter_padded();
        let mut ahead = chunks.iter_padded().skip(PREFETCH_WORDS);
        let mut base = 0;
        while base < self.len {
            let n = (self.len - base).min(64);
            let mut word = words.next().unwrap_or(0);
            if n < 64 {
                word &= (1u64 << n) - 1;
            }
            // A word exists `PREFETCH_WORDS` on only while it starts
            // before the end.
            let ahead_base = base + 64 * PREFETCH_WORDS;
            if let Some(mut next) = ahead.next() {
                let ahead_n = self.len - ahead_base;
                if ahead_n < 64 {
                    next &= (1u64 << ahead_n) - 1;
                }
                while next != 0 {
                    values.prefetch(ahead_base + next.trailing_zeros() as usize);
                    next &= next - 1;
                }
            }
            let bytes = 2 * n as i64 + i64::from(word.count_ones()) * width;
            if self.cursor.quiet_items(bytes) > 0 {
                // The whole word stays below the minimum.
                self.cursor.size += bytes;
            } else {
                self.bitmap_word(values, base, word, n);
            }
            base += n;
        }
    }

    /// The `n` items from `base` whose validity is `word`.
    #[inline(always)]
    fn bitmap_word<V: Values>(&mut self, values: V, base: usize, word: u64, n: usize) {
        let step = values.width() as i64 + 2;
        let mut bit = 0;
        while bit < n {
            if !self.cursor.hashing() {
                // Below the minimum, or a match pending: piece by piece.
                let valid = word >> bit & 1 == 1;
                if self.literal_item(values, base + bit, Some(valid)) {
                    self.cuts.cut(base + bit);
                }
                bit += 1;
                continue;
            }
            // Up to the next item that closes a chunk, every item is hashed
            // in full: on a copy of the cursor in locals.
            let mut cursor = *self.cursor;
            while bit < n {
                let i = base + bit;
                let valid = word >> bit & 1 == 1;
                bit += 1;
                let lowest = if valid {
                    cursor.size += step;
                    item_hash::<V, true>(&mut cursor, values, i)
                } else {
                    cursor.size += 2;
                    cursor.mix_level(0)
                };
                if cursor.end_item(lowest) {
                    self.cuts.cut(i);
                    break;
                }
            }
            *self.cursor = cursor;
        }
    }
}

/// Hashes item `i` in full: level 1 (if `LEVELED`), then value `i`; returns
/// the lowest hash on the way.
#[inline(always)]
fn item_hash<V: Values, const LEVELED: bool>(cursor: &mut Cursor, values: V, i: usize) -> u64 {
    if LEVELED {
        let level = cursor.mix_level(1);
        level.min(values.mix(cursor, i))
    } else {
        values.mix(cursor, i)
    }
}
