//! Content-defined chunking for FIXED_LEN_BYTE_ARRAY leaves: page boundaries
//! placed where a rolling gear hash of the data says, exactly where `parquet`
//! 60.1 (and Arrow C++) place them, so that the same data gives the same
//! pages however it is batched or shifted.
//!
//! * [`gear`] derives the hash tables from their published rule.
//! * [`bounds`] turns [`CdcOptions`] into sizes and a match threshold.
//! * [`cursor`] holds the rolling state and states the rule precisely.
//! * [`fixed`] walks top-level leaves straight from their value bytes and
//!   validity bitmap ([`Chunker::chunks_fixed`]); [`leveled`] walks leaves
//!   given by definition and repetition levels ([`Chunker::chunks_leveled`]);
//!   `bytes` walks top-level byte-array leaves ([`Chunker::chunks_bytes`]).
//!
//! A chunker belongs to one leaf column of an `ArrowWriter` and is never
//! reset: its state carries across batches, pages and row groups.

mod bounds;
mod bytes;
mod cursor;
mod fixed;
mod gear;
mod leveled;

#[cfg(test)]
mod cases;
#[cfg(test)]
mod model;
#[cfg(test)]
mod tests;

use bounds::Bounds;
use cursor::{Carry, Cursor};
use parquet::errors::Result;
use parquet::file::properties::CdcOptions;

/// One chunk of a top-level leaf: `[offset, offset + len)` in levels, which
/// are also array positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub offset: usize,
    pub len: usize,
}

/// One chunk of a leaf given by its levels: a range of levels and the range
/// of non-null values those levels hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeveledChunk {
    pub level_offset: usize,
    pub num_levels: usize,
    pub value_offset: usize,
    pub num_values: usize,
}

/// The rolling-hash chunker of one leaf column.
#[derive(Debug, Clone)]
pub(crate) struct Chunker {
    tables: &'static gear::Tables,
    bounds: Bounds,
    carry: Carry,
}

impl Chunker {
    /// A chunker for `options`; invalid options give `parquet`'s errors.
    pub(crate) fn try_new(options: &CdcOptions) -> Result<Self> {
        Ok(Self {
            tables: gear::tables(),
            bounds: Bounds::new(options)?,
            carry: Carry::default(),
        })
    }

    /// The state, loaded for one call.
    fn cursor(&self) -> Cursor {
        Cursor::resume(self.tables, self.bounds, self.carry)
    }

    /// Keeps `cursor`'s state for the next call.
    fn keep(&mut self, cursor: &Cursor) {
        self.carry = cursor.carry();
    }
}

/// Collects the [`Chunk`]s of one call from the positions where chunks
/// close.
#[derive(Default)]
struct Cuts {
    out: Vec<Chunk>,
    start: usize,
}

impl Cuts {
    /// The chunk open so far closes before item `at`, which opens the next.
    /// (`at` may equal the start: a chunk closed by the first item of a call
    /// is empty, as in `parquet`.)
    fn cut(&mut self, at: usize) {
        let len = at - self.start;
        self.out.push(Chunk {
            offset: self.start,
            len,
        });
        self.start = at;
    }

    /// All chunks, the last one ending at `end` (if not empty).
    fn finish(mut self, end: usize) -> Vec<Chunk> {
        if end > self.start {
            self.cut(end);
        }
        self.out
    }
}
