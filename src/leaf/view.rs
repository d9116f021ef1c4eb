//! The levels of one leaf write, seen the same way whatever their source: a
//! top-level leaf's definition levels are its validity bitmap
//! ([`FlatLevels`]), a nested leaf's are its def/rep [`LevelData`]
//! ([`NestedLevels`]). The mini-batch cutter and the CDC loop are written
//! once over [`LevelView`].

use super::values::LeafValues;
use crate::cdc::Chunker;
use crate::page::{MiniBatchLevels, PageBuilder};
use crate::values::bytes::Picks;
use crate::values::{BitmapValues, EmptyValues, RangeValues};
use arrow_buffer::NullBuffer;
use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;
use arrow_buffer::bit_iterator::BitSliceIterator;
use parquet::errors::Result;
use std::ops::Range;

/// The bytes content-defined chunking hashes per array position: `width`
/// bytes each of a buffer, or each value of a byte-array leaf.
#[derive(Clone, Copy)]
pub(super) enum ChunkBytes<'a> {
    /// Position `i` is `bytes[i * width..(i + 1) * width]`.
    Fixed(&'a [u8], usize),
    /// Position `i` is the leaf's byte array `i`.
    Bytes(LeafValues<'a>),
}

impl<'a> ChunkBytes<'a> {
    /// The bytes of position `i`.
    #[inline]
    fn at(&self, i: usize) -> &'a [u8] {
        match *self {
            Self::Fixed(bytes, width) => &bytes[i * width..(i + 1) * width],
            Self::Bytes(values) => values.bytes_at(i).unwrap_or(&[]),
        }
    }
}

/// Some levels of a write, as one `parquet` write call: the level range and
/// the index (among all the write's values) of its first value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) levels: Range<usize>,
    pub(super) first_value: usize,
}

/// What the mini-batch cutter needs to know about a leaf's levels. Level
/// positions are absolute (from the start of the write); a *value* is a level
/// equal to the column's maximum definition level.
pub(super) trait LevelView {
    /// Number of levels.
    fn num_levels(&self) -> usize;
    /// Number of array positions (values and null slots) of the leaf array.
    fn num_positions(&self) -> usize;
    /// Whether `parquet` batches these levels by `data_page_row_count_limit`
    /// (some levels, none materialized) rather than by `write_batch_size`.
    fn batches_by_row_limit(&self) -> bool;
    /// Number of values among levels `[start, end)`.
    fn values_in(&self, start: usize, end: usize) -> usize;
    /// One past the level that holds the `n`-th value from `start` on
    /// (`n >= 1`), or `end` if `[start, end)` holds fewer.
    fn end_of_values(&self, start: usize, end: usize, n: usize) -> usize;
    /// `at` moved forward to the next record boundary, at most to `end`.
    fn record_end(&self, at: usize, end: usize) -> usize;
    /// Calls `f` with the array position of every value, in level order.
    fn for_each_value(&self, f: impl FnMut(usize));
    /// The array positions of the values among levels `[start, end)`, the
    /// first of which is the `first_value`-th value of the write.
    fn picks(&self, start: usize, end: usize, first_value: usize) -> Picks<'_>;
    /// Writes levels `[start, end)` as one mini-batch, whose values start at
    /// the `first_value`-th value of the write; returns how many it wrote.
    fn write_mini_batch(
        &self,
        builder: &mut PageBuilder,
        values: &LeafValues<'_>,
        start: usize,
        end: usize,
        first_value: usize,
    ) -> Result<usize>;
    /// Content-defined chunks of the whole write, hashing `bytes` per array
    /// position.
    fn content_chunks(&self, chunker: &mut Chunker, bytes: ChunkBytes<'_>) -> Vec<Span>;
    /// Whether the values of `span` (a content-defined chunk) are not all
    /// between its first and its last value in the array: `parquet` slices
    /// a chunk's values from its first to its last one, which only list
    /// views (values in any order) can break.
    fn values_out_of_order(&self, _span: &Span) -> bool {
        false
    }
}

/// How a top-level leaf's definition levels are represented; decides the
/// mini-batch size as `parquet`'s `LevelData` does.
#[derive(Clone, Copy)]
enum Validity<'a> {
    /// A required leaf: no definition levels.
    Absent,
    /// Every level has this value (no nulls, or all null).
    Uniform(i16),
    /// Levels from a validity bitmap with some nulls.
    Bitmap(&'a NullBuffer),
}

/// The levels of a top-level leaf: its validity.
pub(super) struct FlatLevels<'a> {
    len: usize,
    max_def: i16,
    nulls: Option<&'a NullBuffer>,
    validity: Validity<'a>,
}

impl<'a> FlatLevels<'a> {
    /// The levels of `len` values with logical nulls `nulls`, in a column
    /// whose maximum definition level is `max_def` (0 or 1).
    pub(super) fn new(len: usize, max_def: i16, nulls: Option<&'a NullBuffer>) -> Self {
        let validity = match nulls {
            _ if max_def == 0 => Validity::Absent,
            None => Validity::Uniform(max_def),
            Some(n) if len > 0 && n.null_count() == n.len() => Validity::Uniform(max_def - 1),
            Some(n) => Validity::Bitmap(n),
        };
        Self {
            len,
            max_def,
            nulls,
            validity,
        }
    }

    /// Whether a uniform level `level` is a value.
    fn is_value(&self, level: i16) -> bool {
        level == self.max_def
    }
}

/// Number of set bits of `bits` in `[offset, offset + len)`.
fn count_set(bits: &NullBuffer, offset: usize, len: usize) -> usize {
    let b = bits.inner();
    UnalignedBitChunk::new(b.values(), b.offset() + offset, len).count_ones()
}

impl LevelView for FlatLevels<'_> {
    fn num_levels(&self) -> usize {
        self.len
    }

    fn num_positions(&self) -> usize {
        self.len
    }

    fn batches_by_row_limit(&self) -> bool {
        matches!(self.validity, Validity::Uniform(_))
    }

    #[inline]
    fn values_in(&self, start: usize, end: usize) -> usize {
        match self.validity {
            Validity::Absent => end - start,
            Validity::Uniform(l) if self.is_value(l) => end - start,
            Validity::Uniform(_) => 0,
            Validity::Bitmap(nulls) => count_set(nulls, start, end - start),
        }
    }

    fn end_of_values(&self, start: usize, end: usize, n: usize) -> usize {
        match self.validity {
            Validity::Absent => end.min(start.saturating_add(n)),
            Validity::Uniform(l) if self.is_value(l) => end.min(start.saturating_add(n)),
            Validity::Uniform(_) => end,
            Validity::Bitmap(nulls) => {
                let bits = nulls.inner();
                let from = bits.offset() + start;
                let mut seen = 0;
                for (s, e) in BitSliceIterator::new(bits.values(), from, end - start) {
                    if seen + (e - s) >= n {
                        return start + s + (n - seen);
                    }
                    seen += e - s;
                }
                end
            }
        }
    }

    #[inline]
    fn record_end(&self, at: usize, _end: usize) -> usize {
        at
    }

    fn for_each_value(&self, mut f: impl FnMut(usize)) {
        match self.validity {
            Validity::Absent => (0..self.len).for_each(f),
            Validity::Uniform(l) if self.is_value(l) => (0..self.len).for_each(f),
            Validity::Uniform(_) => {}
            Validity::Bitmap(nulls) => nulls.valid_indices().for_each(&mut f),
        }
    }

    fn picks(&self, start: usize, end: usize, _first_value: usize) -> Picks<'_> {
        match self.validity {
            Validity::Absent => Picks::Range(start, end),
            Validity::Uniform(l) if self.is_value(l) => Picks::Range(start, end),
            Validity::Uniform(_) => Picks::Range(start, start),
            Validity::Bitmap(nulls) => {
                let bits = nulls.inner();
                Picks::Bitmap {
                    bits: bits.values(),
                    bit_offset: bits.offset() + start,
                    offset: start,
                    len: end - start,
                    count: count_set(nulls, start, end - start),
                }
            }
        }
    }

    fn write_mini_batch(
        &self,
        builder: &mut PageBuilder,
        values: &LeafValues<'_>,
        start: usize,
        end: usize,
        first_value: usize,
    ) -> Result<usize> {
        let len = end - start;
        let levels = match self.validity {
            Validity::Absent => MiniBatchLevels::Absent,
            Validity::Uniform(l) if self.is_value(l) => MiniBatchLevels::Uniform(l),
            Validity::Uniform(l) => {
                let levels = MiniBatchLevels::Uniform(l);
                builder.write_mini_batch(len, levels, &EmptyValues)?;
                return Ok(0);
            }
            Validity::Bitmap(nulls) => {
                let bits = nulls.inner();
                MiniBatchLevels::Bitmap(bits.values(), bits.offset() + start)
            }
        };
        let picks = self.picks(start, end, first_value);
        let count = picks.count();
        match (values, picks) {
            (
                LeafValues::Fixed(values),
                Picks::Bitmap {
                    bits, bit_offset, ..
                },
            ) => {
                let src = BitmapValues {
                    values,
                    bits,
                    bit_offset,
                    offset: start,
                    len,
                    count,
                };
                builder.write_mini_batch(len, levels, &src)?;
            }
            (LeafValues::Fixed(values), _) => {
                let src = RangeValues { values, start, end };
                builder.write_mini_batch(len, levels, &src)?;
            }
            (bytes, picks) => {
                let src = bytes.byte_source(picks).expect("byte arrays");
                builder.write_mini_batch(len, levels, &src)?;
            }
        }
        Ok(count)
    }

    fn content_chunks(&self, chunker: &mut Chunker, bytes: ChunkBytes<'_>) -> Vec<Span> {
        let nullable = self.max_def > 0;
        let chunks = match bytes {
            ChunkBytes::Fixed(bytes, width) => {
                chunker.chunks_fixed(self.len, nullable, self.nulls, bytes, width)
            }
            ChunkBytes::Bytes(_) => {
                chunker.chunks_bytes(self.len, nullable, self.nulls, |i| bytes.at(i))
            }
        };
        chunks
            .into_iter()
            .map(|c| Span {
                levels: c.offset..c.offset + c.len,
                first_value: c.offset,
            })
            .collect()
    }
}

mod nested;
pub(super) use nested::NestedLevels;

#[cfg(test)]
mod tests;
