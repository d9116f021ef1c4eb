//! The column chunk's split-block bloom filter, created on first insert.
//!
//! The filter is the Parquet SBBF: blocks of eight 32-bit words; a value's
//! xxHash64 (seed 0, over its Parquet bytes) picks a block with its upper 32
//! bits and one bit per word with its lower 32 bits times the spec's salts.
//! It is sized from ndv and fpp exactly as `parquet` sizes it and, at close,
//! handed to `parquet`'s `Sbbf` to be folded, so the bytes are the same.
//!
//! `parquet` allocates the filter (1 MiB at the default ndv) when the column
//! writer is created; here nothing is allocated until a value is inserted. An
//! untouched filter folds to a single empty block, as an untouched full-size
//! filter does.

use crate::cpu::prefetch;
use crate::values::Slots;
use parquet::bloom_filter::Sbbf;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::BloomFilterProperties;
use twox_hash::XxHash64;

/// A block of the filter: eight 32-bit words, little-endian, as the file
/// holds them (so that the filter is handed over without a copy into the
/// file's byte order).
type Block = [u8; 32];

/// The spec's salts for the eight words of a block.
const SALT: [u32; 8] = [
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
];

const MIN_BYTES: usize = 32;
const MAX_BYTES: usize = 128 * 1024 * 1024;

/// Number of 32-byte blocks `parquet` gives a filter for `ndv` values at
/// false-positive probability `fpp`.
fn num_blocks(ndv: u64, fpp: f64) -> usize {
    let bits = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
    let bytes = (bits as usize / 8)
        .clamp(MIN_BYTES, MAX_BYTES)
        .next_power_of_two();
    bytes / 32
}

/// The block a value's hash picks among `blocks` blocks.
#[inline(always)]
fn block_index(hash: u64, blocks: usize) -> usize {
    (((hash >> 32) * blocks as u64) >> 32) as usize
}

/// Sets a value's eight bits (one per word) in its block.
#[inline(always)]
fn insert_hash(words: &mut [Block], hash: u64) {
    let x = hash as u32;
    let block = &mut words[block_index(hash, words.len())];
    let (block, _) = block.as_chunks_mut::<4>();
    for (word, salt) in block.iter_mut().zip(SALT) {
        let bits = u32::from_le_bytes(*word) | 1 << (x.wrapping_mul(salt) >> 27);
        *word = bits.to_le_bytes();
    }
}

/// Values hashed (and their blocks requested from memory) ahead of their
/// inserts: a filter of the default size (1 MiB) does not stay in the
/// core's nearest caches, and the updates of a group then overlap their
/// misses.
const GROUP: usize = 16;

/// Hashes each value and inserts it with `insert`.
#[inline(always)]
fn insert_all_with(words: &mut [Block], values: Slots<'_>, insert: impl Fn(&mut [Block], u64)) {
    // Common widths get their own copy, where the hash's length is a
    // constant.
    macro_rules! fixed {
        ($data:expr, $width:expr, $($w:literal)*) => {
            match $width {
                $($w => insert_grouped(words, $data.as_chunks::<$w>().0.iter().map(|v| &v[..]), &insert),)*
                _ => insert_grouped(words, values.iter(), &insert),
            }
        };
    }
    match values.fixed_width() {
        Some(width) => fixed!(values.data(), width, 1 2 4 8 12 16 32),
        None => insert_grouped(words, values.iter(), &insert),
    }
}

/// Inserts `values` with `insert`, a group of [`GROUP`] at a time: the
/// group's hashes first, each block requested from memory as its hash is
/// known, then the updates.
#[inline(always)]
fn insert_grouped<'a>(
    words: &mut [Block],
    mut values: impl Iterator<Item = &'a [u8]>,
    insert: &impl Fn(&mut [Block], u64),
) {
    let mut hashes = [0u64; GROUP];
    loop {
        let mut n = 0;
        // `hashes` first: the zip stops without taking a value past it.
        for (hash, v) in hashes.iter_mut().zip(values.by_ref()) {
            *hash = XxHash64::oneshot(0, v);
            prefetch(&words[block_index(*hash, words.len())]);
            n += 1;
        }
        for &hash in &hashes[..n] {
            insert(words, hash);
        }
        if n < GROUP {
            return;
        }
    }
}

/// Sets `hash`'s eight bits in its block with AVX2: the eight salted
/// products, shifts and ORs at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn set_bits_avx2(words: &mut [Block], hash: u64) {
    use std::arch::x86_64::*;
    let block = &mut words[block_index(hash, words.len())];
    // SAFETY: AVX2 is enabled for this function; the loads and stores are
    // unaligned and cover exactly the 32 bytes of `block` and `SALT`.
    unsafe {
        let salts = _mm256_loadu_si256(SALT.as_ptr().cast());
        let x = _mm256_set1_epi32(hash as u32 as i32);
        let shifts = _mm256_srli_epi32::<27>(_mm256_mullo_epi32(x, salts));
        let bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), shifts);
        let ptr = block.as_mut_ptr().cast::<__m256i>();
        _mm256_storeu_si256(ptr, _mm256_or_si256(_mm256_loadu_si256(ptr), bits));
    }
}

/// [`insert_all_with`] with the block update of [`set_bits_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn insert_all_avx2(words: &mut [Block], values: Slots<'_>) {
    insert_all_with(words, values, |words, hash| set_bits_avx2(words, hash));
}

/// [`insert_grouped`] with the block update of [`set_bits_avx2`], for
/// values of any lengths.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn insert_each_avx2<'a>(words: &mut [Block], values: impl Iterator<Item = &'a [u8]>) {
    insert_grouped(words, values, &|words: &mut [Block], hash: u64| {
        set_bits_avx2(words, hash)
    });
}

/// A lazily created split-block bloom filter.
#[derive(Debug)]
pub(crate) struct BloomFilter {
    blocks: usize,
    fpp: f64,
    words: Vec<Block>,
    /// One bit per value of one or two bytes (booleans, `Float16`, one-byte
    /// `FixedSizeBinary`) set once the value is in the filter: inserting a
    /// value again sets no new bit (the filter is the OR of its values'
    /// bits), so each of at most 65,536 such values is hashed once per
    /// chunk rather than every time it comes.
    seen: Vec<u64>,
}

impl BloomFilter {
    /// Validates the properties up front, as `parquet` does when it creates
    /// the filter eagerly.
    pub(crate) fn try_new(props: &BloomFilterProperties) -> Result<Self> {
        let (fpp, ndv) = crate::compat::bloom_filter_fpp_ndv(props);
        if !(0.0..1.0).contains(&fpp) {
            return Err(ParquetError::General(format!(
                "False positive probability must be between 0.0 and 1.0, got {fpp}"
            )));
        }
        Ok(Self {
            blocks: num_blocks(ndv, fpp),
            fpp,
            words: Vec::new(),
            seen: Vec::new(),
        })
    }

    /// Inserts each of `values`.
    pub(crate) fn insert_all(&mut self, values: Slots<'_>) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        if self.words.is_empty() {
            self.words = vec![[0; 32]; self.blocks];
        }
        if let Some(width @ (1 | 2)) = values.fixed_width() {
            self.insert_small(values.data(), width);
            return Ok(());
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available, as just checked.
            unsafe { insert_all_avx2(&mut self.words, values) };
            return Ok(());
        }
        insert_all_with(&mut self.words, values, insert_hash);
        Ok(())
    }

    /// Inserts the values of one or two bytes in `data` that are not in
    /// the filter yet ([`Self::seen`]).
    fn insert_small(&mut self, data: &[u8], width: usize) {
        let slots = 1usize << (8 * width);
        if self.seen.len() < slots / 64 {
            self.seen.resize(slots / 64, 0);
        }
        for value in data.chunks_exact(width) {
            // The value's bytes as a little-endian number.
            let at = value
                .iter()
                .rev()
                .fold(0, |at, &b| at << 8 | usize::from(b));
            let (word, bit) = (at / 64, 1u64 << (at % 64));
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                insert_hash(&mut self.words, XxHash64::oneshot(0, value));
            }
        }
    }

    /// Inserts each of `values` (byte arrays: any lengths).
    pub(crate) fn insert_each<'a>(&mut self, mut values: impl Iterator<Item = &'a [u8]>) {
        let Some(first) = values.next() else {
            return;
        };
        if self.words.is_empty() {
            self.words = vec![[0; 32]; self.blocks];
        }
        let values = std::iter::once(first).chain(values);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available, as just checked.
            unsafe { insert_each_avx2(&mut self.words, values) };
            return;
        }
        insert_grouped(&mut self.words, values, &insert_hash);
    }

    /// Bytes held by the filter.
    pub(crate) fn memory_size(&self) -> usize {
        self.words.capacity() * 32 + self.seen.capacity() * 8
    }

    /// The folded filter, as `parquet` hands it to the file writer.
    pub(crate) fn finish(self) -> Sbbf {
        if self.words.is_empty() {
            return Sbbf::new_with_num_of_bytes(MIN_BYTES);
        }
        // The blocks are the filter's bytes as the file holds them.
        let mut filter = Sbbf::new(self.words.as_flattened());
        filter.fold_to_target_fpp(self.fpp);
        filter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    #[test]
    fn sizing_matches_parquet() {
        for ndv in [
            0u64,
            1,
            7,
            100,
            1000,
            65_536,
            1 << 20,
            10_000_000,
            u32::MAX as u64,
        ] {
            for fpp in [0.0001, 0.01, 0.05, 0.1, 0.5, 0.9] {
                let up = Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap();
                assert_eq!(num_blocks(ndv, fpp), up.num_blocks(), "ndv {ndv} fpp {fpp}");
            }
        }
    }

    /// Values of one and two bytes, each coming many times, over several
    /// inserts: hashed once each, the same filter as parquet's, which
    /// inserts every one.
    #[test]
    fn small_values_match_parquet() {
        let mut rng = StdRng::seed_from_u64(5);
        let props = BloomFilterProperties::default();
        let fpp = crate::compat::bloom_filter_fpp_ndv(&props).0;
        for (width, distinct) in [(1usize, 2u32), (1, 256), (2, 300), (2, 65_536)] {
            let mut ours = BloomFilter::try_new(&props).unwrap();
            let mut up = Sbbf::new_with_ndv_fpp(1000, fpp).unwrap();
            ours.blocks = up.num_blocks();
            for _ in 0..3 {
                let values: Vec<u8> = (0..4000)
                    .flat_map(|_| {
                        let v = rng.random_range(0..distinct).to_le_bytes();
                        v[..width].to_vec()
                    })
                    .collect();
                ours.insert_all(Slots::fixed(&values, width)).unwrap();
                for v in values.chunks_exact(width) {
                    up.insert(v);
                }
            }
            up.fold_to_target_fpp(fpp);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            ours.finish().write(&mut a).unwrap();
            up.write(&mut b).unwrap();
            assert_eq!(a, b, "width {width}, {distinct} distinct");
        }
    }

    #[test]
    fn byte_arrays_match_parquet() {
        let mut rng = StdRng::seed_from_u64(4);
        let props = BloomFilterProperties::default();
        let fpp = crate::compat::bloom_filter_fpp_ndv(&props).0;
        let values: Vec<Vec<u8>> = (0..700)
            .map(|i| (0..i % 37).map(|_| rng.random()).collect())
            .collect();
        let mut ours = BloomFilter::try_new(&props).unwrap();
        let mut up = Sbbf::new_with_ndv_fpp(1000, fpp).unwrap();
        ours.blocks = up.num_blocks();
        ours.insert_each(values.iter().map(Vec::as_slice));
        for v in &values {
            up.insert(v.as_slice());
        }
        up.fold_to_target_fpp(fpp);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        ours.finish().write(&mut a).unwrap();
        up.write(&mut b).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn bits_match_parquet() {
        let mut rng = StdRng::seed_from_u64(3);
        for width in [1usize, 2, 4, 5, 8, 12, 16, 32] {
            let props = BloomFilterProperties::default();
            let mut ours = BloomFilter::try_new(&props).unwrap();
            let mut scalar = BloomFilter::try_new(&props).unwrap();
            let mut up =
                Sbbf::new_with_ndv_fpp(1000, crate::compat::bloom_filter_fpp_ndv(&props).0)
                    .unwrap();
            ours.blocks = up.num_blocks();
            scalar.blocks = up.num_blocks();
            let values: Vec<u8> = (0..width * 500).map(|_| rng.random()).collect();
            ours.insert_all(Slots::fixed(&values, width)).unwrap();
            scalar.words = vec![[0; 32]; scalar.blocks];
            insert_all_with(&mut scalar.words, Slots::fixed(&values, width), insert_hash);
            assert_eq!(ours.words, scalar.words);
            for v in values.chunks_exact(width) {
                up.insert(v);
            }
            up.fold_to_target_fpp(crate::compat::bloom_filter_fpp_ndv(&props).0);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            ours.finish().write(&mut a).unwrap();
            up.write(&mut b).unwrap();
            assert_eq!(a, b, "width {width}");
        }
    }
}
