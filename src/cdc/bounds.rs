//! The fixed parameters of a chunker, derived from [`CdcOptions`]: the
//! minimum and maximum chunk sizes, and which hash values count as a match.

use super::gear::TABLE_COUNT;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::CdcOptions;

/// Sizes in bytes and the match threshold of one chunker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Bounds {
    /// Bytes a chunk takes in before its bytes are hashed at all.
    pub min: i64,
    /// Bytes at which a chunk is closed whatever the hash says.
    pub max: i64,
    /// The largest hash that matches: a hash matches when its top
    /// [`Bounds::match_bits`] bits are all zero.
    pub limit: u64,
}

impl Bounds {
    /// The bounds of `options`, with `parquet`'s errors for options it
    /// rejects.
    pub(super) fn new(options: &CdcOptions) -> Result<Self> {
        let min = options.min_chunk_size as i64;
        let max = options.max_chunk_size as i64;
        if min < 0 {
            return Err(general("min_chunk_size must be non-negative"));
        }
        if max <= min {
            return Err(general(
                "max_chunk_size must be greater than min_chunk_size",
            ));
        }
        let bits = match_bits(min, max, options.norm_level);
        if !(1..=63).contains(&bits) {
            return Err(general(&format!(
                "The number of bits in the CDC mask must be between 1 and 63, got {bits}"
            )));
        }
        Ok(Self {
            min,
            max,
            limit: u64::MAX >> bits,
        })
    }

    /// How many top bits of the hash must be zero for a match (the popcount
    /// of `parquet`'s mask).
    #[cfg(test)]
    pub(super) fn match_bits(&self) -> u32 {
        self.limit.leading_zeros()
    }
}

/// The number of leading hash bits a match requires, before range checks.
///
/// A chunk should average the midpoint of `min` and `max`; past the `min`
/// bytes that are never hashed, the remaining distance is split between the
/// [`TABLE_COUNT`] matches a chunk needs, and a match that happens once every
/// `2^k` bytes on average needs `k` zero bits. `norm_level` moves `k` down
/// (more frequent matches) or up.
fn match_bits(min: i64, max: i64, norm_level: i32) -> i32 {
    let per_match = (min.midpoint(max) - min) / TABLE_COUNT as i64;
    let k = per_match.checked_ilog2().map_or(0, |k| k as i32);
    // parquet subtracts in i32; wrapping keeps its release-mode answer
    // instead of panicking on extreme levels.
    k.wrapping_sub(norm_level)
}

fn general(message: &str) -> ParquetError {
    ParquetError::General(message.to_string())
}
