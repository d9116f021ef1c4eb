//! Min/max of byte-array values, in `parquet`'s order for BYTE_ARRAY
//! statistics: unsigned lexicographic bytes (a prefix sorts first).
//!
//! Values are compared by an 8-byte big-endian prefix first (zero-padded,
//! which keeps the order whenever two prefixes differ) and byte for byte
//! only on a tie. A dictionary page's min/max is found over the distinct
//! entries its indices use ([`PageKeys`]), each looked at once per page.

use super::dictionary::ByteDictionary;
#[cfg(test)]
use crate::values::bytes::{ByteValues, Picks, ValueAt, with_layout};

/// The first eight bytes of `v`, zero-padded, as a big-endian integer.
#[inline(always)]
fn prefix_key(v: &[u8]) -> u64 {
    if v.len() >= 8 {
        u64::from_be_bytes(v[..8].try_into().unwrap())
    } else {
        let mut b = [0u8; 8];
        b[..v.len()].copy_from_slice(v);
        u64::from_be_bytes(b)
    }
}

/// A value with its prefix key.
#[derive(Clone, Copy)]
struct Keyed<'a> {
    key: u64,
    value: &'a [u8],
}

impl<'a> Keyed<'a> {
    #[inline(always)]
    fn new(value: &'a [u8]) -> Self {
        Self {
            key: prefix_key(value),
            value,
        }
    }

    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        self.key < other.key || (self.key == other.key && self.value < other.value)
    }
}

/// The smallest and largest of `values` at `picks`, by position, or None
/// if there are none (the encodings fold them in as they copy the values;
/// this is their reference in the tests).
#[cfg(test)]
pub(crate) fn min_max_positions(
    values: &ByteValues<'_>,
    picks: &Picks<'_>,
) -> Option<(usize, usize)> {
    with_layout!(values, v => min_max_with(v, picks))
}

/// [`min_max_positions`] for values of one layout.
#[cfg(test)]
fn min_max_with<'a>(values: impl ValueAt<'a>, picks: &Picks<'_>) -> Option<(usize, usize)> {
    let mut best = Extremes::default();
    // Inlined into each of `for_each`'s loops (a call per value cost more
    // than the comparison).
    picks.for_each(
        #[inline(always)]
        |i| best.fold(i, values.at(i)),
    );
    best.positions()
}

/// The smallest and largest values folded in so far, with their positions:
/// [`min_max_positions`]'s accumulator, also fed by the PLAIN append as it
/// copies each value (one pass over the values instead of two).
#[derive(Default)]
pub(crate) struct Extremes<'a> {
    best: Option<(usize, Keyed<'a>, usize, Keyed<'a>)>,
}

impl<'a> Extremes<'a> {
    /// Takes in `value`, at position `i`.
    #[inline(always)]
    pub(crate) fn fold(&mut self, i: usize, value: &'a [u8]) {
        let v = Keyed::new(value);
        match &mut self.best {
            None => self.best = Some((i, v, i, v)),
            Some((lo_at, lo, hi_at, hi)) => {
                if v.lt(lo) {
                    *lo_at = i;
                    *lo = v;
                } else if hi.lt(&v) {
                    *hi_at = i;
                    *hi = v;
                }
            }
        }
    }

    /// The positions of the smallest and the largest value, if any came.
    pub(crate) fn positions(&self) -> Option<(usize, usize)> {
        self.best.map(|(lo, _, hi, _)| (lo, hi))
    }
}

/// `a < b` as unsigned bytes, by their prefix keys first (no call to
/// compare slices where those differ).
#[inline]
fn less(a: &[u8], b: &[u8]) -> bool {
    Keyed::new(a).lt(&Keyed::new(b))
}

/// Which dictionary entries the current data page uses, for its min/max.
#[derive(Debug, Default)]
pub(crate) struct PageKeys {
    /// One flag per dictionary entry: used on this page.
    seen: Vec<bool>,
    /// The flagged entries (the first `count`), to fold into the min/max
    /// and to clear at the end of the page; one slot longer than the
    /// dictionary, so that every key can be stored before it is known to
    /// be new.
    used: Vec<u32>,
    count: usize,
    /// The smallest and largest entry used so far.
    min: Option<u32>,
    max: Option<u32>,
}

impl PageKeys {
    /// Takes in the page's new indices `keys` of `dict`.
    ///
    /// Each key is stored at the end of the used ones and counted only if
    /// its flag was down: no branch on whether it is new (early in a page
    /// of a large dictionary, that branch went either way at random). The
    /// new entries are then folded into the min/max in a second loop.
    pub(crate) fn observe(&mut self, dict: &ByteDictionary, keys: &[u32]) {
        if self.seen.len() < dict.len() {
            self.seen.resize(dict.len().next_power_of_two(), false);
        }
        if self.used.len() <= dict.len() {
            self.used.resize(dict.len() + 1, 0);
        }
        let start = self.count;
        let mut count = start;
        // Once the page has used every entry, no key can be new: a column of
        // a few distinct values stops looking after its first keys.
        for chunk in keys.chunks(64) {
            if count == dict.len() {
                break;
            }
            for &k in chunk {
                let flag = &mut self.seen[k as usize];
                self.used[count] = k;
                count += usize::from(!*flag);
                *flag = true;
            }
        }
        self.count = count;
        for i in start..count {
            self.fold(dict, self.used[i]);
        }
    }

    #[inline]
    fn fold(&mut self, dict: &ByteDictionary, k: u32) {
        let v = dict.entry(k);
        match (self.min, self.max) {
            (Some(lo), Some(hi)) => {
                if less(v, dict.entry(lo)) {
                    self.min = Some(k);
                } else if less(dict.entry(hi), v) {
                    self.max = Some(k);
                }
            }
            _ => {
                self.min = Some(k);
                self.max = Some(k);
            }
        }
    }

    /// The page's smallest and largest entries, if it used any.
    pub(crate) fn min_max(&self) -> Option<(u32, u32)> {
        self.min.zip(self.max)
    }

    /// Ends the page: no entry is used.
    pub(crate) fn clear(&mut self) {
        for &k in &self.used[..self.count] {
            self.seen[k as usize] = false;
        }
        self.count = 0;
        self.min = None;
        self.max = None;
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        self.seen.capacity() + self.used.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_keys_keep_the_order() {
        let words: Vec<&[u8]> = vec![
            b"",
            b"\0",
            b"\0\0",
            b"a",
            b"a\0",
            b"a\0\0\0\0\0\0\0\0",
            b"ab",
            b"abcdefgh",
            b"abcdefghi",
            b"abcdefgh\0",
            b"b",
            b"\xff",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        for a in &words {
            for b in &words {
                let (x, y) = (Keyed::new(a), Keyed::new(b));
                assert_eq!(x.lt(&y), a < b, "{a:?} < {b:?}");
            }
        }
    }

    #[test]
    fn positions_of_min_and_max() {
        let a = arrow_array::StringArray::from(vec!["m", "", "zz", "z", "a", "zz"]);
        let v = ByteValues::of(&a).unwrap();
        assert_eq!(min_max_positions(&v, &Picks::Range(0, 6)), Some((1, 2)));
        assert_eq!(
            min_max_positions(&v, &Picks::Indices(&[3, 0])),
            Some((0, 3))
        );
        assert_eq!(min_max_positions(&v, &Picks::Range(2, 2)), None);
    }

    #[test]
    fn page_keys_follow_the_page() {
        let a = arrow_array::StringArray::from(vec!["m", "b", "x", "m", "c"]);
        let v = ByteValues::of(&a).unwrap();
        let mut d = ByteDictionary::new();
        d.put(&v, &Picks::Range(0, 5));
        let mut p = PageKeys::default();
        p.observe(&d, d.indices());
        assert_eq!(p.min_max(), Some((1, 2)));
        p.clear();
        p.observe(&d, &[0, 3]);
        assert_eq!(p.min_max(), Some((3, 0)));
    }
}
