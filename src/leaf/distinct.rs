//! The distinct-value count of a column chunk (`parquet`'s
//! `set_write_row_group_number_distinct_values`): the Arrow bytes of every
//! value hashed with XxHash64 (seed 0) into a set.

use super::values::LeafValues;
use super::view::LevelView;
use std::collections::HashSet;
use twox_hash::XxHash64;

/// Hashes of the values seen so far, when the count is wanted.
#[derive(Debug, Default)]
pub(super) struct DistinctValues(Option<HashSet<u64>>);

impl DistinctValues {
    /// A counter that counts if `enabled`, and otherwise does nothing.
    pub(super) fn new(enabled: bool) -> Self {
        Self(enabled.then(HashSet::new))
    }

    /// Adds every value of a write.
    pub(super) fn add<V: LevelView>(&mut self, view: &V, values: &LeafValues<'_>) {
        let Some(seen) = &mut self.0 else {
            return;
        };
        match values {
            LeafValues::Fixed(values) => view.for_each_value(|i| {
                seen.insert(XxHash64::oneshot(0, values.native(i)));
            }),
            // Byte arrays: the value's bytes (an Arrow dictionary's value
            // for its key).
            bytes => view.for_each_value(|i| {
                if let Some(v) = bytes.bytes_at(i) {
                    seen.insert(XxHash64::oneshot(0, v));
                }
            }),
        }
    }

    /// Heap bytes held (a hash and a control byte per slot).
    pub(super) fn heap_size(&self) -> usize {
        self.0.as_ref().map_or(0, |s| s.capacity() * 9)
    }

    /// The count, if wanted and any value was seen.
    pub(super) fn count(&self) -> Option<u64> {
        self.0
            .as_ref()
            .filter(|s| !s.is_empty())
            .map(|s| s.len() as u64)
    }
}
