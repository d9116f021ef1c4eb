//! [`Picks`]: the positions of a byte-array leaf that one mini-batch
//! writes, and [`ByteSource`]: those positions with the values they pick.

use super::{ByteValues, DictionaryKeys};
use arrow_buffer::bit_iterator::BitIndexIterator;

/// The positions of a leaf that one mini-batch writes, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Picks<'a> {
    /// Every position in `[start, end)`.
    Range(usize, usize),
    /// The positions `offset + j` for the set bits `j` of `bits` from
    /// `bit_offset` on, among `len`; `count` of them are set.
    Bitmap {
        /// The validity bits.
        bits: &'a [u8],
        /// The bit of position `offset`.
        bit_offset: usize,
        /// The first position.
        offset: usize,
        /// Number of positions looked at.
        len: usize,
        /// Number of set bits among them.
        count: usize,
    },
    /// The listed positions (any order: list views).
    Indices(&'a [usize]),
    /// The listed positions as `u32` (keys into an Arrow dictionary's
    /// values).
    Keys(&'a [u32]),
}

/// The positions of [`Picks`], as an iterator.
pub(crate) enum PicksIter<'a> {
    Range(std::ops::Range<usize>),
    Bitmap(BitIndexIterator<'a>, usize),
    Indices(std::slice::Iter<'a, usize>),
    Keys(std::slice::Iter<'a, u32>),
}

impl Iterator for PicksIter<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Self::Range(r) => r.next(),
            Self::Bitmap(bits, offset) => bits.next().map(|j| *offset + j),
            Self::Indices(i) => i.next().copied(),
            Self::Keys(k) => k.next().map(|&k| k as usize),
        }
    }
}

/// The values of one mini-batch of a byte-array leaf: the leaf's values and
/// the positions picked, or for an Arrow dictionary array, the dictionary's
/// values and the positions of the keys picked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ByteSource<'a> {
    /// The values (of the leaf, or of its Arrow dictionary).
    pub(crate) values: ByteValues<'a>,
    /// The keys of an Arrow dictionary array, if the leaf is one.
    pub(crate) keys: Option<DictionaryKeys<'a>>,
    /// The positions of the mini-batch (of values, or of keys).
    pub(crate) picks: Picks<'a>,
}

impl<'a> Picks<'a> {
    /// Number of positions picked.
    #[inline]
    pub(crate) fn count(&self) -> usize {
        match *self {
            Self::Range(start, end) => end - start,
            Self::Bitmap { count, .. } => count,
            Self::Indices(i) => i.len(),
            Self::Keys(k) => k.len(),
        }
    }

    /// The positions, as an iterator.
    pub(crate) fn iter(&self) -> PicksIter<'a> {
        match *self {
            Self::Range(start, end) => PicksIter::Range(start..end),
            Self::Bitmap {
                offset, len, count, ..
            } if count == len => PicksIter::Range(offset..offset + len),
            Self::Bitmap {
                bits,
                bit_offset,
                offset,
                len,
                ..
            } => PicksIter::Bitmap(BitIndexIterator::new(bits, bit_offset, len), offset),
            Self::Indices(i) => PicksIter::Indices(i.iter()),
            Self::Keys(k) => PicksIter::Keys(k.iter()),
        }
    }

    /// The picks as one range, when they are consecutive positions.
    #[inline]
    pub(crate) fn as_range(&self) -> Option<(usize, usize)> {
        match *self {
            Self::Range(start, end) => Some((start, end)),
            Self::Bitmap {
                offset, len, count, ..
            } if count == len => Some((offset, offset + len)),
            Self::Bitmap { .. } => None,
            Self::Indices(i) => {
                let start = *i.first()?;
                let run = i.windows(2).all(|w| w[1] == w[0] + 1);
                run.then(|| (start, start + i.len()))
            }
            Self::Keys(_) => None,
        }
    }

    /// Calls `f` with every position, in order.
    #[inline(always)]
    pub(crate) fn for_each(&self, mut f: impl FnMut(usize)) {
        match *self {
            Self::Range(start, end) => (start..end).for_each(f),
            Self::Bitmap { count: 0, .. } => {}
            Self::Bitmap {
                offset, len, count, ..
            } if count == len => (offset..offset + len).for_each(f),
            Self::Bitmap {
                bits,
                bit_offset,
                offset,
                len,
                ..
            } => BitIndexIterator::new(bits, bit_offset, len).for_each(|j| f(offset + j)),
            Self::Indices(i) => i.iter().for_each(|&i| f(i)),
            Self::Keys(k) => k.iter().for_each(|&k| f(k as usize)),
        }
    }
}

impl ByteSource<'_> {
    /// The values' PLAIN size: each value's bytes and 4-byte length.
    pub(crate) fn plain_size(&self) -> usize {
        let values = &self.values;
        let bytes = match (&self.keys, self.picks.as_range()) {
            (None, Some((start, end))) => values.bytes_in(start, end),
            (None, None) => {
                let mut total = 0;
                self.picks.for_each(|i| total += values.value_len(i));
                total
            }
            (Some(keys), _) => {
                let mut total = 0;
                self.picks.for_each(|i| {
                    if let Some(k) = keys.get(i).filter(|&k| k < values.len()) {
                        total += values.value_len(k);
                    }
                });
                total
            }
        };
        bytes + 4 * self.picks.count()
    }
}
