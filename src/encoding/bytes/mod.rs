//! Byte-array values (Parquet BYTE_ARRAY: strings and binary): the
//! column's dictionary and the encodings used without one, each reading
//! the values straight from the Arrow buffers.
//!
//! * [`dictionary`]: the dictionary, whose store is the dictionary page
//!   itself;
//! * [`encoder`]: the column's encoder, as the page builder drives it;
//! * [`fallback`]: PLAIN, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY;
//! * [`min_max`]: page min/max, over values or over a page's entries;
//! * [`remap`]: an Arrow dictionary array's keys mapped into the column's
//!   dictionary, kept while the batches bring the same values;
//! * `hash`: the dictionary's hash and short-value compare.

pub(crate) mod dictionary;
pub(crate) mod encoder;
pub(crate) mod fallback;
mod hash;
pub(crate) mod min_max;
pub(crate) mod remap;

// Compared with parquet's own encoders, which are behind its `experimental`
// feature (see the `upstream-encoders` feature).
#[cfg(all(test, feature = "upstream-encoders", feature = "parquet-58"))]
mod tests;
