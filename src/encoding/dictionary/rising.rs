//! Values above every entry: rising columns (event times, sequence ids)
//! whose mini-batches only add entries.
//!
//! A value greater than the greatest entry (read as a signed integer) cannot
//! be an entry, so a mini-batch of 4- or 8-byte values that never falls and
//! starts above the dictionary's greatest entry is appended as it is: one
//! pass to check the order, a copy of the values, keys counted up. The
//! table and the window learn of the new entries only when a later
//! mini-batch needs them, so a rising column that fills its dictionary page
//! and falls back never hashes at all.

use super::Dictionary;
use super::dense::int;
use super::table::entries_target;
use crate::cpu::with_avx2;

/// The greatest entry of a dictionary of 4- or 8-byte values, as a signed
/// integer.
#[derive(Debug, Default)]
pub(super) struct Top {
    /// The greatest of entries `0..covered` (meaningless while none is).
    top: i64,
    covered: usize,
}

impl Dictionary {
    /// Appends `chunks` as new entries with their keys if they never fall
    /// and start above every entry; false (nothing done) if not.
    #[inline(always)]
    pub(super) fn put_rising<const W: usize>(&mut self, chunks: &[[u8; W]]) -> bool {
        let Some(first) = chunks.first() else {
            return true;
        };
        if self.top.covered < self.len {
            let (entries, _) = self.values.as_chunks::<W>();
            let from = self.top.covered;
            let top = with_avx2(|| entries[from..].iter().map(int).max());
            let top = top.expect("an entry past the covered ones");
            self.top.top = if from == 0 {
                top
            } else {
                self.top.top.max(top)
            };
            self.top.covered = self.len;
        }
        if self.len > 0 && int(first) <= self.top.top {
            return false;
        }
        // Whether the values rise strictly, and whether they never fall.
        let (strict, rising) = with_avx2(|| {
            chunks
                .iter()
                .zip(&chunks[1..])
                .fold((true, true), |(s, r), (a, b)| {
                    (s & (int(a) < int(b)), r & (int(a) <= int(b)))
                })
        });
        if !rising {
            return false;
        }
        let last = chunks.last().map_or(0, int);
        let start = self.len as u32;
        let (flat, _) = chunks.as_flattened().split_at(chunks.len() * W);
        if strict {
            self.reserve_rising(chunks.len() * W);
            self.values.extend_from_slice(flat);
            self.indices.extend(start..start + chunks.len() as u32);
            self.len += chunks.len();
        } else {
            // Repeats sit next to each other: each is the entry before it.
            let mut prev = int(first);
            let mut key = start;
            self.reserve_rising(chunks.len() * W);
            self.values.extend_from_slice(first);
            for v in chunks {
                let x = int(v);
                if x != prev {
                    self.values.extend_from_slice(v);
                    key += 1;
                    prev = x;
                }
                self.indices.push(key);
            }
            self.len = key as usize + 1;
        }
        self.top = Top {
            top: last,
            covered: self.len,
        };
        true
    }

    /// Room for `bytes` more in the value store: twice the entries, or up
    /// to the expected count, but at least `bytes`.
    fn reserve_rising(&mut self, bytes: usize) {
        if self.values.capacity() - self.values.len() >= bytes {
            return;
        }
        let target = entries_target(self.len, self.expected).saturating_mul(self.width);
        let more = target.saturating_sub(self.values.len()).max(bytes);
        self.values.reserve_exact(more);
    }
}
