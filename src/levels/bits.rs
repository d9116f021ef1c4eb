//! Validity bitmaps read a word or a run at a time.

use arrow_buffer::bit_chunk_iterator::BitChunks;
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use std::ops::Range;

/// Maximal runs of valid and of null slots in a range, in order, as
/// `(valid, slots)`; the whole range is one valid run without a bitmap.
pub(super) struct Runs<'a> {
    /// Runs of set bits, relative to `start`; `None` without a bitmap.
    set: Option<BitSliceIterator<'a>>,
    start: usize,
    /// First slot not yet returned.
    pos: usize,
    end: usize,
    /// A valid run found after a null run, returned next.
    queued: Option<Range<usize>>,
}

/// The runs of `range` under `nulls`.
pub(super) fn runs(nulls: Option<&NullBuffer>, range: Range<usize>) -> Runs<'_> {
    let set = nulls.map(|n| {
        let bits = n.inner();
        BitSliceIterator::new(bits.values(), bits.offset() + range.start, range.len())
    });
    Runs {
        set,
        start: range.start,
        pos: range.start,
        end: range.end,
        queued: None,
    }
}

impl Iterator for Runs<'_> {
    type Item = (bool, Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(valid) = self.queued.take() {
            self.pos = valid.end;
            return Some((true, valid));
        }
        let Some(set) = &mut self.set else {
            let all = self.pos..self.end;
            self.pos = self.end;
            return (!all.is_empty()).then_some((true, all));
        };
        match set.next() {
            Some((from, to)) => {
                let valid = self.start + from..self.start + to;
                if valid.start > self.pos {
                    let null = self.pos..valid.start;
                    self.pos = valid.start;
                    self.queued = Some(valid);
                    return Some((false, null));
                }
                self.pos = valid.end;
                Some((true, valid))
            }
            None if self.pos < self.end => {
                let null = self.pos..self.end;
                self.pos = self.end;
                Some((false, null))
            }
            None => None,
        }
    }
}

/// Whether every slot of the bitmap is null (an empty bitmap counts).
pub(super) fn all_null(nulls: Option<&NullBuffer>) -> bool {
    nulls.is_some_and(|n| n.null_count() == n.len())
}

/// The first null slot of `range`.
pub(super) fn first_null(nulls: &NullBuffer, range: Range<usize>) -> Option<usize> {
    let bits = nulls.inner();
    let len = range.len();
    let mut set = BitSliceIterator::new(bits.values(), bits.offset() + range.start, len);
    match set.next() {
        None => (len > 0).then_some(range.start),
        Some((0, to)) => (to < len).then_some(range.start + to),
        Some(_) => Some(range.start),
    }
}

/// Appends the definition level of every slot of `range` (`max_def` when
/// the bit is set, one less otherwise) to `defs`, and the positions of the
/// set bits to `valid`, 64 slots per step.
pub(super) fn push_leaf_levels(
    defs: &mut Vec<i16>,
    valid: &mut Vec<usize>,
    bits: &BooleanBuffer,
    range: Range<usize>,
    max_def: i16,
) {
    let chunks = BitChunks::new(bits.values(), bits.offset() + range.start, range.len());
    defs.reserve(range.len());
    let mut at = range.start;
    for word in chunks.iter() {
        push_word(defs, valid, word, 64, at, max_def);
        at += 64;
    }
    let rest = chunks.remainder_len();
    if rest > 0 {
        let word = chunks.remainder_bits() & (u64::MAX >> (64 - rest));
        push_word(defs, valid, word, rest, at, max_def);
    }
}

/// [`push_leaf_levels`] for the low `n` bits of `word`, slot `at` first.
#[inline]
fn push_word(
    defs: &mut Vec<i16>,
    valid: &mut Vec<usize>,
    word: u64,
    n: usize,
    at: usize,
    max_def: i16,
) {
    let from = defs.len();
    defs.resize(from + n, max_def - 1);
    for (bit, level) in defs[from..].iter_mut().enumerate() {
        *level += ((word >> bit) & 1) as i16;
    }
    if word == u64::MAX {
        valid.extend(at..at + 64);
        return;
    }
    let mut rest = word;
    while rest != 0 {
        valid.push(at + rest.trailing_zeros() as usize);
        rest &= rest - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bitmap(valid: &[bool]) -> NullBuffer {
        NullBuffer::from(valid.to_vec())
    }

    #[test]
    fn runs_alternate_and_cover_the_range() {
        let nulls = bitmap(&[true, true, false, false, true, false, true, true]);
        let got: Vec<_> = runs(Some(&nulls), 1..8).collect();
        assert_eq!(
            got,
            vec![
                (true, 1..2),
                (false, 2..4),
                (true, 4..5),
                (false, 5..6),
                (true, 6..8)
            ]
        );
        assert_eq!(runs(None, 3..5).collect::<Vec<_>>(), vec![(true, 3..5)]);
        assert_eq!(
            runs(Some(&nulls), 2..4).collect::<Vec<_>>(),
            vec![(false, 2..4)]
        );
        assert_eq!(runs(Some(&nulls), 4..4).count(), 0);
    }

    #[test]
    fn first_null_in_range() {
        let nulls = bitmap(&[true, false, true, true, false]);
        assert_eq!(first_null(&nulls, 0..5), Some(1));
        assert_eq!(first_null(&nulls, 2..5), Some(4));
        assert_eq!(first_null(&nulls, 2..4), None);
        assert_eq!(first_null(&nulls, 1..2), Some(1));
        assert_eq!(first_null(&nulls, 3..3), None);
    }

    #[test]
    fn leaf_levels_word_at_a_time() {
        let valid: Vec<bool> = (0..200).map(|i| i % 3 != 0 || i > 130).collect();
        let nulls = bitmap(&valid);
        for range in [0..200, 5..70, 64..128, 7..8, 130..200] {
            let (mut defs, mut idx) = (Vec::new(), Vec::new());
            push_leaf_levels(&mut defs, &mut idx, nulls.inner(), range.clone(), 3);
            let want: Vec<i16> = range.clone().map(|i| 2 + valid[i] as i16).collect();
            let want_idx: Vec<usize> = range.filter(|&i| valid[i]).collect();
            assert_eq!((defs, idx), (want, want_idx));
        }
    }
}
