//! The chunking rule stated as plainly as possible, one byte at a time, to
//! test the chunker against. Nothing here is tuned.

use super::gear::{TABLE_COUNT, tables};
use super::{Chunk, LeveledChunk};
use parquet::file::properties::CdcOptions;

/// One item of a leaf: its pieces in hashing order, and whether a chunk may
/// end at it (for nested leaves, only items that start a record).
pub(super) struct Item {
    pub pieces: Vec<Vec<u8>>,
    pub may_end: bool,
    /// Whether the item holds a (non-null) value.
    pub has_value: bool,
}

/// The rolling state, spelled out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Model {
    pub hash: u64,
    pub run: usize,
    pub size: i64,
    pub pending: bool,
    /// Chunks closed by a completed run, and by the maximum size.
    pub closed_by: (usize, usize),
}

/// Sizes and the number of zero top bits a match needs, straight from
/// `options` (which must be valid).
pub(super) fn parameters(options: &CdcOptions) -> (i64, i64, u32) {
    let (min, max) = (options.min_chunk_size as i64, options.max_chunk_size as i64);
    let mut spacing = ((min + max) / 2 - min) / 8;
    let mut log2 = 0;
    while spacing > 1 {
        spacing /= 2;
        log2 += 1;
    }
    (min, max, (log2 - options.norm_level) as u32)
}

impl Model {
    /// Runs `items`; returns the positions of the items that close a chunk.
    pub(super) fn closings(&mut self, options: &CdcOptions, items: &[Item]) -> Vec<usize> {
        let (min, max, zero_bits) = parameters(options);
        let mut closings = vec![];
        for (position, item) in items.iter().enumerate() {
            for piece in &item.pieces {
                self.size += piece.len() as i64;
                if self.size < min {
                    continue;
                }
                for &byte in piece {
                    let word = tables()[self.run][byte as usize];
                    self.hash = self.hash.wrapping_mul(2).wrapping_add(word);
                    if self.hash >> (64 - zero_bits) == 0 {
                        self.pending = true;
                    }
                }
            }
            if !item.may_end {
                continue;
            }
            let mut close = false;
            if self.pending {
                self.pending = false;
                self.run += 1;
                if self.run == TABLE_COUNT {
                    self.run = 0;
                    close = true;
                    self.closed_by.0 += 1;
                }
            }
            if !close && self.size >= max {
                close = true;
                self.closed_by.1 += 1;
            }
            if close {
                self.size = 0;
                closings.push(position);
            }
        }
        closings
    }
}

/// Flat chunks from closing positions over `len` items.
pub(super) fn flat_chunks(closings: &[usize], len: usize) -> Vec<Chunk> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(closings);
    if len > *bounds.last().unwrap() {
        bounds.push(len);
    }
    bounds
        .windows(2)
        .map(|w| Chunk {
            offset: w[0],
            len: w[1] - w[0],
        })
        .collect()
}

/// Leveled chunks from closing positions; with `skip_empty`, a closing that
/// would leave an empty chunk is dropped (nested leaves).
pub(super) fn leveled_chunks(
    closings: &[usize],
    items: &[Item],
    skip_empty: bool,
) -> Vec<LeveledChunk> {
    // values_before[i]: values in items 0..i.
    let mut values_before = vec![0];
    for item in items {
        values_before.push(values_before.last().unwrap() + usize::from(item.has_value));
    }
    let mut ends: Vec<usize> = closings.to_vec();
    if skip_empty {
        ends.retain(|&end| end > 0);
    }
    if ends.last().copied().unwrap_or(0) < items.len() {
        ends.push(items.len());
    }
    let mut start = 0;
    let mut out = vec![];
    for end in ends {
        out.push(LeveledChunk {
            value_offset: values_before[start],
            num_values: values_before[end] - values_before[start],
            level_offset: start,
            num_levels: end - start,
        });
        start = end;
    }
    out
}
