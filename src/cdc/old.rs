//! TEMPORARY: the previous chunker, kept only to test the new one against.

//! Content-defined chunking for FIXED_LEN_BYTE_ARRAY leaves: page boundaries
//! placed where a rolling gear hash of the data matches a mask, exactly where
//! `parquet` 60.1 (and Arrow C++) place them.
//!
//! The gear tables follow the published generation rule shared by Arrow C++
//! and arrow-rs: entry `n` of table `s` is the first 8 bytes (big-endian) of
//! `MD5(64 bytes of value s ‖ 64 bytes of value n)`. They are derived here at
//! first use, not pasted.
//!
//! A chunker belongs to one leaf column of an `ArrowWriter` and is never reset:
//! its state carries across batches, pages and row groups.

use crate::levels::LevelData;
use arrow_buffer::NullBuffer;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::CdcOptions;
use std::sync::OnceLock;

const NUM_TABLES: usize = 8;

type GearTables = [[u64; 256]; NUM_TABLES];

/// The gear tables, derived once from their generation rule.
fn gear_tables() -> &'static GearTables {
    static TABLES: OnceLock<Box<GearTables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tables = Box::new([[0u64; 256]; NUM_TABLES]);
        for (seed, table) in tables.iter_mut().enumerate() {
            for (n, entry) in table.iter_mut().enumerate() {
                let mut message = [seed as u8; 128];
                message[64..].fill(n as u8);
                let digest = md5(&message);
                *entry = u64::from_be_bytes(digest[..8].try_into().unwrap());
            }
        }
        tables
    })
}

/// MD5 (RFC 1321) of a short message.
fn md5(message: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    // K[i] = floor(2^32 * |sin(i + 1)|)
    let k: [u32; 64] =
        std::array::from_fn(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32);
    let mut data = message.to_vec();
    let bit_len = (message.len() as u64).wrapping_mul(8);
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&bit_len.to_le_bytes());
    let mut h: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    for block in data.chunks_exact(64) {
        let m: [u32; 16] = std::array::from_fn(|i| {
            u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap())
        });
        let [mut a, mut b, mut c, mut d] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(k[i])
                .wrapping_add(m[g])
                .rotate_left(S[i]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(rotated);
        }
        h = [
            h[0].wrapping_add(a),
            h[1].wrapping_add(b),
            h[2].wrapping_add(c),
            h[3].wrapping_add(d),
        ];
    }
    let mut out = [0u8; 16];
    for (i, word) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// One chunk of a leaf: `[offset, offset + len)` in levels (which, for a
/// top-level leaf, are also array positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub offset: usize,
    pub len: usize,
}

/// The rolling-hash chunker of one leaf column.
#[derive(Debug, Clone)]
pub(crate) struct Chunker {
    tables: &'static GearTables,
    min_chunk_size: i64,
    max_chunk_size: i64,
    mask: u64,
    pub(super) hash: u64,
    pub(super) matched: bool,
    pub(super) nth_run: usize,
    pub(super) chunk_size: i64,
}

impl Chunker {
    /// A chunker for the given options; the errors are `parquet`'s.
    pub(crate) fn try_new(options: &CdcOptions) -> Result<Self> {
        Ok(Self {
            tables: gear_tables(),
            min_chunk_size: options.min_chunk_size as i64,
            max_chunk_size: options.max_chunk_size as i64,
            mask: mask(
                options.min_chunk_size as i64,
                options.max_chunk_size as i64,
                options.norm_level,
            )?,
            hash: 0,
            matched: false,
            nth_run: 0,
            chunk_size: 0,
        })
    }

    #[inline(always)]
    fn roll(&mut self, bytes: &[u8]) {
        self.chunk_size += bytes.len() as i64;
        if self.chunk_size < self.min_chunk_size {
            return;
        }
        let table = &self.tables[self.nth_run];
        let mut hash = self.hash;
        let mut matched = self.matched;
        for &b in bytes {
            hash = hash.wrapping_shl(1).wrapping_add(table[b as usize]);
            matched |= hash & self.mask == 0;
        }
        self.hash = hash;
        self.matched = matched;
    }

    #[inline(always)]
    fn roll_level(&mut self, level: i16) {
        self.roll(&level.to_le_bytes());
    }

    #[inline(always)]
    fn need_new_chunk(&mut self) -> bool {
        if self.matched {
            self.matched = false;
            self.nth_run += 1;
            if self.nth_run >= NUM_TABLES {
                self.nth_run = 0;
                self.chunk_size = 0;
                return true;
            }
        }
        if self.chunk_size >= self.max_chunk_size {
            self.chunk_size = 0;
            return true;
        }
        false
    }

    /// (The reference for [`Self::chunks_fixed`], kept for its test.)
    ///
    /// Chunks of a top-level leaf of `len` levels. `nulls` is `Some` for a
    /// nullable leaf (definition levels 1 and 0), `None` for a required one;
    /// `value(i)` gives the Arrow bytes hashed for the value at position `i`.
    ///
    /// As in `parquet`, a boundary found at level `i` closes `[prev, i)`, and
    /// a boundary at level 0 yields an empty first chunk.
    #[cfg(test)]
    pub(crate) fn chunks<'a>(
        &mut self,
        len: usize,
        nullable: bool,
        nulls: Option<&NullBuffer>,
        value: impl Fn(usize) -> &'a [u8],
    ) -> Vec<Chunk> {
        let mut chunks = Vec::new();
        let mut prev = 0;
        for i in 0..len {
            let valid = nulls.is_none_or(|n| n.is_valid(i));
            if nullable {
                self.roll_level(valid as i16);
            }
            if valid {
                self.roll(value(i));
            }
            if self.need_new_chunk() {
                chunks.push(Chunk {
                    offset: prev,
                    len: i - prev,
                });
                prev = i;
            }
        }
        if prev < len {
            chunks.push(Chunk {
                offset: prev,
                len: len - prev,
            });
        }
        chunks
    }

    /// Chunks of a top-level leaf of `len` fixed-width values (`bytes`
    /// holds value `i` at `[i * width, (i + 1) * width)`): the same as
    /// [`Self::chunks`] with `value(i)` that slice, with the state kept in
    /// registers, definition levels rolled two bytes at once, validity read
    /// a word at a time and values below the minimum chunk size skipped
    /// without hashing (as `parquet` skips them).
    pub(crate) fn chunks_fixed(
        &mut self,
        len: usize,
        nullable: bool,
        nulls: Option<&NullBuffer>,
        bytes: &[u8],
        width: usize,
    ) -> Vec<Chunk> {
        assert!(bytes.len() >= len * width, "chunker values out of range");
        let mut run = Run::new(self);
        let mut chunks = Vec::new();
        let mut prev = 0;
        let mut boundary = |i: usize, chunks: &mut Vec<Chunk>| {
            chunks.push(Chunk {
                offset: prev,
                len: i - prev,
            });
            prev = i;
        };
        match (nullable, nulls) {
            (false, _) => {
                let w = width as i64;
                let mut i = 0;
                while i < len {
                    // Values whose bytes keep the chunk below the minimum are
                    // not hashed, and cannot end a chunk (min < max).
                    if !run.matched && run.chunk_size + w < run.min {
                        let skip = ((run.min - run.chunk_size - 1) / w.max(1)) as usize;
                        let skip = skip.min(len - i);
                        if skip > 0 {
                            run.chunk_size += skip as i64 * w;
                            i += skip;
                            continue;
                        }
                    }
                    run.value(&bytes[i * width..(i + 1) * width]);
                    if run.need_new_chunk() {
                        boundary(i, &mut chunks);
                    }
                    i += 1;
                }
            }
            (true, None) => {
                for i in 0..len {
                    run.level(1);
                    run.value(&bytes[i * width..(i + 1) * width]);
                    if run.need_new_chunk() {
                        boundary(i, &mut chunks);
                    }
                }
            }
            (true, Some(nulls)) => {
                let bits = nulls.inner();
                let mut i = 0;
                for word in bits.bit_chunks().iter_padded() {
                    let n = (len - i).min(64);
                    let word = if n < 64 {
                        word & ((1u64 << n) - 1)
                    } else {
                        word
                    };
                    // A word of levels that keeps the chunk below the minimum
                    // is not hashed and cannot end a chunk.
                    let size = 2 * n as i64 + word.count_ones() as i64 * width as i64;
                    if !run.matched && run.chunk_size + size < run.min {
                        run.chunk_size += size;
                        i += n;
                        if i >= len {
                            break;
                        }
                        continue;
                    }
                    for bit in 0..n {
                        if word >> bit & 1 == 1 {
                            run.level(1);
                            run.value(&bytes[i * width..(i + 1) * width]);
                        } else {
                            run.level(0);
                        }
                        if run.need_new_chunk() {
                            boundary(i, &mut chunks);
                        }
                        i += 1;
                    }
                    if i >= len {
                        break;
                    }
                }
            }
        }
        run.store(self);
        if prev < len {
            chunks.push(Chunk {
                offset: prev,
                len: len - prev,
            });
        }
        chunks
    }
}

/// A content-defined chunk of a leveled leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeveledChunk {
    pub level_offset: usize,
    pub num_levels: usize,
    pub value_offset: usize,
    pub num_values: usize,
}

impl Chunker {
    /// Chunks of a leaf given by its levels (`parquet`'s `calculate`).
    /// `value(i)` gives the bytes hashed for array position `i`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chunks_leveled<'a>(
        &mut self,
        def: &LevelData,
        rep: &LevelData,
        max_def: i16,
        max_rep: i16,
        repeated_ancestor_def_level: i16,
        num_levels: usize,
        value: impl Fn(usize) -> &'a [u8],
    ) -> Vec<LeveledChunk> {
        let mut chunks = Vec::new();
        let mut prev = 0;
        let mut prev_value = 0;
        let mut value_offset = 0;
        if max_rep == 0 && max_def == 0 {
            for i in 0..num_levels {
                self.roll(value(i));
                if self.need_new_chunk() {
                    chunks.push(LeveledChunk {
                        level_offset: prev,
                        num_levels: i - prev,
                        value_offset: prev,
                        num_values: i - prev,
                    });
                    prev = i;
                }
            }
            prev_value = prev;
            value_offset = num_levels;
        } else if max_rep == 0 {
            for i in 0..num_levels {
                let d = def.get(i).unwrap_or(0);
                self.roll_level(d);
                if d == max_def {
                    self.roll(value(i));
                }
                if self.need_new_chunk() {
                    chunks.push(LeveledChunk {
                        level_offset: prev,
                        num_levels: i - prev,
                        value_offset: prev_value,
                        num_values: value_offset - prev_value,
                    });
                    prev = i;
                    prev_value = value_offset;
                }
                if d == max_def {
                    value_offset += 1;
                }
            }
        } else {
            let mut leaf_offset = 0;
            for i in 0..num_levels {
                let d = def.get(i).unwrap_or(0);
                let r = rep.get(i).unwrap_or(0);
                self.roll_level(d);
                self.roll_level(r);
                if d == max_def {
                    self.roll(value(leaf_offset));
                }
                if r == 0 && self.need_new_chunk() && i > prev {
                    chunks.push(LeveledChunk {
                        level_offset: prev,
                        num_levels: i - prev,
                        value_offset: prev_value,
                        num_values: value_offset - prev_value,
                    });
                    prev = i;
                    prev_value = value_offset;
                }
                if d == max_def {
                    value_offset += 1;
                }
                if d >= repeated_ancestor_def_level {
                    leaf_offset += 1;
                }
            }
        }
        if prev < num_levels {
            chunks.push(LeveledChunk {
                level_offset: prev,
                num_levels: num_levels - prev,
                value_offset: prev_value,
                num_values: value_offset - prev_value,
            });
        }
        chunks
    }
}

/// A [`Chunker`]'s state in locals, for the fixed-width loops.
struct Run {
    tables: &'static GearTables,
    table: &'static [u64; 256],
    /// The hash matches if it is at most this (`!mask`).
    limit: u64,
    min: i64,
    max: i64,
    hash: u64,
    matched: bool,
    nth_run: usize,
    chunk_size: i64,
}

impl Run {
    fn new(c: &Chunker) -> Self {
        Self {
            tables: c.tables,
            table: &c.tables[c.nth_run],
            limit: !c.mask,
            min: c.min_chunk_size,
            max: c.max_chunk_size,
            hash: c.hash,
            matched: c.matched,
            nth_run: c.nth_run,
            chunk_size: c.chunk_size,
        }
    }

    fn store(&self, c: &mut Chunker) {
        c.hash = self.hash;
        c.matched = self.matched;
        c.nth_run = self.nth_run;
        c.chunk_size = self.chunk_size;
    }

    /// Rolls a definition level (0 or 1) as its two little-endian bytes.
    #[inline(always)]
    fn level(&mut self, level: u8) {
        self.chunk_size += 2;
        if self.chunk_size < self.min {
            return;
        }
        let t = self.table;
        let a = t[level as usize];
        let h1 = (self.hash << 1).wrapping_add(a);
        let h2 = (h1 << 1).wrapping_add(t[0]);
        self.matched |= (h1 <= self.limit) | (h2 <= self.limit);
        self.hash = h2;
    }

    #[inline(always)]
    fn value(&mut self, bytes: &[u8]) {
        self.chunk_size += bytes.len() as i64;
        if self.chunk_size < self.min {
            return;
        }
        let t = self.table;
        let limit = self.limit;
        let mut h = self.hash;
        let mut m = false;
        let mut pairs = bytes.chunks_exact(2);
        for p in &mut pairs {
            // Two steps from `h` at once: h2 does not wait for h1.
            let a = t[p[0] as usize];
            let b = t[p[1] as usize];
            let h1 = (h << 1).wrapping_add(a);
            let h2 = (h << 2).wrapping_add((a << 1).wrapping_add(b));
            m |= (h1 <= limit) | (h2 <= limit);
            h = h2;
        }
        for &b in pairs.remainder() {
            h = (h << 1).wrapping_add(t[b as usize]);
            m |= h <= limit;
        }
        self.hash = h;
        self.matched |= m;
    }

    #[inline(always)]
    fn need_new_chunk(&mut self) -> bool {
        if self.matched {
            self.matched = false;
            self.nth_run += 1;
            if self.nth_run >= NUM_TABLES {
                self.nth_run = 0;
                self.chunk_size = 0;
                self.table = &self.tables[0];
                return true;
            }
            self.table = &self.tables[self.nth_run];
        }
        if self.chunk_size >= self.max {
            self.chunk_size = 0;
            return true;
        }
        false
    }
}

/// The hash mask: the top bits, as many as `log2((avg - min) / 8)` minus the
/// normalization level.
fn mask(min_chunk_size: i64, max_chunk_size: i64, norm_level: i32) -> Result<u64> {
    if min_chunk_size < 0 {
        return Err(ParquetError::General(
            "min_chunk_size must be non-negative".to_string(),
        ));
    }
    if max_chunk_size <= min_chunk_size {
        return Err(ParquetError::General(
            "max_chunk_size must be greater than min_chunk_size".to_string(),
        ));
    }
    let avg = min_chunk_size.midpoint(max_chunk_size);
    let target = (avg - min_chunk_size) / NUM_TABLES as i64;
    let bits = if target > 0 {
        63 - target.leading_zeros() as i32
    } else {
        0
    };
    let effective = bits - norm_level;
    if !(1..=63).contains(&effective) {
        return Err(ParquetError::General(format!(
            "The number of bits in the CDC mask must be between 1 and 63, got {effective}"
        )));
    }
    Ok(u64::MAX << (64 - effective))
}
