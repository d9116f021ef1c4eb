//! The delta encodings: DELTA_BINARY_PACKED for 32- and 64-bit integers (the
//! PARQUET_2_0 fallback of INT32 / INT64 decimals) and DELTA_BYTE_ARRAY for
//! fixed-width values (that of FIXED_LEN_BYTE_ARRAY).
//!
//! * [`binary_packed`]: DELTA_BINARY_PACKED, blocks of bit-packed deltas.
//! * [`byte_array`]: DELTA_BYTE_ARRAY: each value as the length of the
//!   prefix it shares with the value before it (DELTA_BINARY_PACKED), then
//!   as its suffix (DELTA_LENGTH_BYTE_ARRAY: the suffix lengths,
//!   DELTA_BINARY_PACKED, then the suffix bytes). The previous value is
//!   forgotten at every page boundary.

pub(crate) mod binary_packed;
pub(crate) mod byte_array;
// Compared with parquet's own encoders, which are behind its `experimental`
// feature (see the `upstream-encoders` feature).
#[cfg(all(test, feature = "upstream-encoders", feature = "parquet-58"))]
mod tests;

pub(crate) use binary_packed::DeltaBinaryPacked;
pub(crate) use byte_array::DeltaByteArray;
