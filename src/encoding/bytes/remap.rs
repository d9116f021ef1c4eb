//! The remap of an Arrow dictionary array's keys into the column's
//! dictionary: each Arrow key is interned the first time a row uses it, and
//! its later rows cost a load.
//!
//! A mapping holds as long as the Arrow dictionary's values do. Each batch
//! brings its own dictionary array, but the batches of a column often bring
//! the same values again (a file read back with its dictionary pages, a
//! producer that encodes against a fixed set of codes): the remap keeps a
//! copy of the values it was made for (up to [`MAX_KEPT`] bytes) and,
//! when the next write's dictionary has the same offsets and bytes, keeps
//! its mappings instead of interning every value anew.

use super::dictionary::ByteDictionary;
use crate::values::bytes::ByteValues;

/// The most bytes of an Arrow dictionary's values (offsets and data) the
/// remap keeps a copy of, to recognise them in the next write.
const MAX_KEPT: usize = 1 << 20;

/// The column dictionary's key of each value of an Arrow dictionary array,
/// found the first time a row uses it (u32::MAX until then).
#[derive(Debug, Default)]
pub(crate) struct KeyRemap {
    /// Per Arrow key: the dictionary key it maps to ([`UNMAPPED`] until its
    /// first use) and its value's length, loaded together.
    map: Vec<(u32, u32)>,
    /// The Arrow dictionary's values the mappings are for, if kept.
    source: Option<Source>,
}

/// A copy of an Arrow dictionary's values: its offsets and the bytes they
/// span.
#[derive(Debug, PartialEq)]
enum Source {
    Offsets32(Vec<i32>, Vec<u8>),
    Offsets64(Vec<i64>, Vec<u8>),
}

/// The bytes `offsets` span in `data` (None if they do not lie in it).
fn span<'a, O: Copy + TryInto<usize>>(offsets: &[O], data: &'a [u8]) -> Option<&'a [u8]> {
    let first = (*offsets.first()?).try_into().ok()?;
    let last = (*offsets.last()?).try_into().ok()?;
    data.get(first..last)
}

impl Source {
    /// Whether `values` are the values this is a copy of.
    fn matches(&self, values: &ByteValues<'_>) -> bool {
        match (self, *values) {
            (Self::Offsets32(o, d), ByteValues::Offsets32 { offsets, data }) => {
                o.as_slice() == offsets && span(offsets, data) == Some(d.as_slice())
            }
            (Self::Offsets64(o, d), ByteValues::Offsets64 { offsets, data }) => {
                o.as_slice() == offsets && span(offsets, data) == Some(d.as_slice())
            }
            _ => false,
        }
    }

    /// A copy of `values`, if they are offsets and data of at most
    /// [`MAX_KEPT`] bytes (views are not kept).
    fn of(values: &ByteValues<'_>) -> Option<Self> {
        let fits = |offsets: usize, data: &[u8]| offsets + data.len() <= MAX_KEPT;
        match *values {
            ByteValues::Offsets32 { offsets, data } => {
                let bytes = span(offsets, data)?;
                fits(offsets.len() * 4, bytes)
                    .then(|| Self::Offsets32(offsets.to_vec(), bytes.to_vec()))
            }
            ByteValues::Offsets64 { offsets, data } => {
                let bytes = span(offsets, data)?;
                fits(offsets.len() * 8, bytes)
                    .then(|| Self::Offsets64(offsets.to_vec(), bytes.to_vec()))
            }
            ByteValues::Views { .. } => None,
        }
    }

    fn memory_size(&self) -> usize {
        match self {
            Self::Offsets32(o, d) => o.capacity() * 4 + d.capacity(),
            Self::Offsets64(o, d) => o.capacity() * 8 + d.capacity(),
        }
    }
}

const UNMAPPED: u32 = u32::MAX;

impl KeyRemap {
    /// Forgets every mapping, for an Arrow dictionary of `len` values.
    pub(crate) fn reset(&mut self, len: usize) {
        self.map.clear();
        self.map.resize(len, (UNMAPPED, 0));
        self.source = None;
    }

    /// Makes the remap ready for a write whose Arrow dictionary has the
    /// values `values`: its mappings are kept if they were made for the same
    /// values (equal offsets and bytes), else forgotten.
    pub(crate) fn begin(&mut self, values: &ByteValues<'_>) {
        let same = self.map.len() == values.len()
            && self.source.as_ref().is_some_and(|s| s.matches(values));
        if !same {
            self.reset(values.len());
            self.source = Source::of(values);
        }
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        self.map.capacity() * 8 + self.source.as_ref().map_or(0, Source::memory_size)
    }

    /// Maps `keys` (Arrow keys into `values`) in place to keys of `dict`,
    /// interning each Arrow value the first time it is used, and buffers
    /// them as the page's indices; returns the total length of the values.
    pub(crate) fn put(
        &mut self,
        dict: &mut ByteDictionary,
        values: &ByteValues<'_>,
        keys: &mut [u32],
    ) -> usize {
        if keys.is_empty() {
            return 0;
        }
        dict.ensure_table(keys.len());
        // `bytes` stays in a register: `map_new` returns the length rather
        // than adding to it through a reference.
        let mut bytes = 0;
        for k in keys.iter_mut() {
            let (mut mapped, mut len) = self.map[*k as usize];
            if mapped == UNMAPPED {
                (mapped, len) = self.map_new(dict, values, *k as usize);
            }
            bytes += len as usize;
            *k = mapped;
        }
        dict.push_indices(keys);
        bytes
    }

    /// The first use of Arrow key `k`: interns its value.
    #[cold]
    #[inline(never)]
    fn map_new(
        &mut self,
        dict: &mut ByteDictionary,
        values: &ByteValues<'_>,
        k: usize,
    ) -> (u32, u32) {
        let value = values.value(k);
        let mapped = (dict.intern(value), value.len() as u32);
        self.map[k] = mapped;
        mapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::bytes::Picks;
    use arrow_array::{Array, LargeStringArray, StringArray};

    /// Keys mapped through a kept remap are the keys a fresh remap gives.
    #[test]
    fn the_same_values_keep_their_mappings() {
        let a = StringArray::from(vec!["x", "yy", "zzz"]);
        let b = StringArray::from(vec!["x", "yy", "zzz"]);
        let other = StringArray::from(vec!["x", "yy", "zzy"]);
        let mut dict = ByteDictionary::new();
        let mut remap = KeyRemap::default();
        let v = ByteValues::of(&a).unwrap();
        remap.begin(&v);
        let mut keys = vec![2, 0, 2];
        assert_eq!(remap.put(&mut dict, &v, &mut keys), 7);
        assert_eq!(keys, [0, 1, 0]);
        // Equal values in another array: the mappings stay.
        let v = ByteValues::of(&b).unwrap();
        remap.begin(&v);
        assert_eq!(remap.map[2], (0, 3));
        let mut keys = vec![1, 2];
        remap.put(&mut dict, &v, &mut keys);
        assert_eq!(keys, [2, 0]);
        // One byte differs: forgotten, and the new value is its own entry.
        let v = ByteValues::of(&other).unwrap();
        remap.begin(&v);
        assert!(remap.map.iter().all(|&(m, _)| m == UNMAPPED));
        let mut keys = vec![2, 0];
        remap.put(&mut dict, &v, &mut keys);
        assert_eq!(keys, [3, 1]);
        // A slice of the same bytes has other offsets: forgotten.
        let sliced = b.slice(1, 2);
        let v = ByteValues::of(&sliced).unwrap();
        remap.begin(&v);
        assert!(remap.map.iter().all(|&(m, _)| m == UNMAPPED));
        // Another layout never matches.
        let large = LargeStringArray::from(vec!["yy", "zzz"]);
        assert!(
            !remap
                .source
                .as_ref()
                .unwrap()
                .matches(&ByteValues::of(&large).unwrap())
        );
    }

    #[test]
    fn a_remap_gives_the_keys_interning_gives() {
        let dict_values =
            StringArray::from(vec!["b", "", "a", "b", "long value past sixteen bytes"]);
        let v = ByteValues::of(&dict_values).unwrap();
        let rows: Vec<u32> = vec![0, 2, 0, 4, 1, 3, 3, 2];
        let mut remapped = ByteDictionary::new();
        let mut remap = KeyRemap::default();
        remap.reset(dict_values.len());
        let mut keys = rows.clone();
        remap.put(&mut remapped, &v, &mut keys);
        let mut direct = ByteDictionary::new();
        let idx: Vec<usize> = rows.iter().map(|&k| k as usize).collect();
        direct.put(&v, &Picks::Indices(&idx));
        assert_eq!(remapped.indices(), direct.indices());
        assert_eq!(keys, direct.indices());
        assert_eq!(remapped.into_page(), direct.into_page());
    }
}
