//! Random inputs for the chunker tests: batches of every shape, as both the
//! chunker and [`super::model`] take them.

use super::bounds::Bounds;
use super::model::Item;
use super::{Chunk, Chunker, LeveledChunk};
use crate::levels::LevelData;
use arrow_buffer::NullBuffer;
use parquet::file::properties::CdcOptions;

/// Options from their three numbers.
pub(super) fn options(min: usize, max: usize, norm_level: i32) -> CdcOptions {
    CdcOptions {
        min_chunk_size: min,
        max_chunk_size: max,
        norm_level,
    }
}

/// xorshift64: the tests' randomness.
pub(super) struct Rng(pub u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub(super) fn bytes(&mut self, n: usize) -> Vec<u8> {
        // Mostly random; sometimes long runs of one byte, as real data has.
        let fill = self.chance(20).then(|| self.next() as u8);
        (0..n)
            .map(|_| fill.unwrap_or_else(|| self.next() as u8))
            .collect()
    }
}

/// Valid options that make chunks close often, by matches and by size.
pub(super) fn random_options(rng: &mut Rng) -> CdcOptions {
    loop {
        let min = match rng.below(4) {
            0 => 0,
            _ => rng.below(400) as usize,
        };
        let max = min + 1 + rng.below(4000) as usize;
        let norm = rng.below(9) as i32 - 4;
        let o = options(min, max, norm);
        if Bounds::new(&o).is_ok() {
            return o;
        }
    }
}

/// One top-level batch for [`Chunker::chunks_fixed`].
pub(super) struct FixedBatch {
    pub len: usize,
    pub nullable: bool,
    pub nulls: Option<NullBuffer>,
    pub bytes: Vec<u8>,
    pub width: usize,
}

impl FixedBatch {
    pub(super) fn random(rng: &mut Rng, width: usize) -> Self {
        let len = match rng.below(10) {
            0 => 0,
            1 => rng.below(20_000) as usize,
            _ => rng.below(900) as usize,
        };
        let nullable = rng.chance(70);
        let nulls = (nullable && rng.chance(80)).then(|| {
            let valid_percent = [0, 5, 10, 50, 90, 100][rng.below(6) as usize];
            // Sliced at an odd offset, so the bitmap is not word-aligned.
            let skip = rng.below(70) as usize;
            let bits: Vec<bool> = (0..skip + len).map(|_| rng.chance(valid_percent)).collect();
            NullBuffer::from(bits).slice(skip, len)
        });
        let spare = rng.below(3) as usize * width;
        let bytes = rng.bytes(len * width + spare);
        Self {
            len,
            nullable,
            nulls,
            bytes,
            width,
        }
    }

    pub(super) fn items(&self) -> Vec<Item> {
        (0..self.len)
            .map(|i| {
                let valid = self.nulls.as_ref().is_none_or(|n| n.is_valid(i));
                let mut pieces = vec![];
                if self.nullable {
                    pieces.push(i16::from(valid).to_le_bytes().to_vec());
                }
                if valid {
                    pieces.push(self.bytes[i * self.width..(i + 1) * self.width].to_vec());
                }
                Item {
                    pieces,
                    may_end: true,
                    has_value: valid,
                }
            })
            .collect()
    }

    pub(super) fn run(&self, chunker: &mut Chunker) -> Vec<Chunk> {
        let nulls = self.nulls.as_ref();
        chunker.chunks_fixed(self.len, self.nullable, nulls, &self.bytes, self.width)
    }
}

/// One batch for [`Chunker::chunks_leveled`].
pub(super) struct LeveledBatch {
    pub def: LevelData,
    pub rep: LevelData,
    pub max_def: i16,
    pub max_rep: i16,
    pub slot_level: i16,
    pub num_levels: usize,
    pub bytes: Vec<u8>,
    pub width: usize,
}

/// Levels in a random representation (sometimes shorter than `levels`).
fn level_data(rng: &mut Rng, levels: Vec<i16>) -> LevelData {
    let shown = match rng.below(8) {
        0 => rng.below(levels.len() as u64 + 1) as usize,
        _ => levels.len(),
    };
    match rng.below(4) {
        0 => LevelData::Uniform {
            value: levels.first().copied().unwrap_or(1),
            count: shown,
        },
        _ => LevelData::Materialized(levels[..shown].to_vec()),
    }
}

impl LeveledBatch {
    pub(super) fn random(rng: &mut Rng, width: usize, (max_def, max_rep): (i16, i16)) -> Self {
        let most = if rng.chance(10) { 20_000 } else { 900 };
        let num_levels = rng.below(most) as usize;
        let present = rng.below(101);
        let record_start = 1 + rng.below(60);
        let def = (0..num_levels)
            .map(|_| match rng.chance(present) {
                true => max_def,
                false => rng.below(max_def as u64) as i16,
            })
            .collect();
        let rep = (0..num_levels)
            .map(|i| match i == 0 || rng.chance(record_start) {
                true => 0,
                false => 1 + rng.below(max_rep as u64) as i16,
            })
            .collect();
        let def = if max_def > 0 {
            level_data(rng, def)
        } else {
            LevelData::Absent
        };
        let rep = if max_rep > 0 {
            level_data(rng, rep)
        } else {
            LevelData::Absent
        };
        Self {
            def,
            rep,
            max_def,
            max_rep,
            slot_level: rng.below(max_def as u64 + 1) as i16,
            num_levels,
            bytes: rng.bytes(num_levels * width),
            width,
        }
    }

    pub(super) fn value(&self, slot: usize) -> &[u8] {
        &self.bytes[slot * self.width..(slot + 1) * self.width]
    }

    pub(super) fn items(&self) -> Vec<Item> {
        let mut slot = 0;
        (0..self.num_levels)
            .map(|i| {
                let d = self.def.get(i).unwrap_or(0);
                let r = self.rep.get(i).unwrap_or(0);
                let mut pieces = vec![];
                if self.max_def > 0 || self.max_rep > 0 {
                    pieces.push(d.to_le_bytes().to_vec());
                }
                if self.max_rep > 0 {
                    pieces.push(r.to_le_bytes().to_vec());
                }
                let has_value = d == self.max_def;
                let position = if self.max_rep > 0 { slot } else { i };
                if has_value {
                    pieces.push(self.value(position).to_vec());
                }
                slot += usize::from(d >= self.slot_level);
                Item {
                    pieces,
                    may_end: self.max_rep == 0 || r == 0,
                    has_value,
                }
            })
            .collect()
    }

    pub(super) fn run(&self, chunker: &mut Chunker) -> Vec<LeveledChunk> {
        chunker.chunks_leveled(
            &self.def,
            &self.rep,
            self.max_def,
            self.max_rep,
            self.slot_level,
            self.num_levels,
            |i| self.value(i),
        )
    }
}
