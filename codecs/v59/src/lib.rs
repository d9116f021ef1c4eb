//! The compression crates that parquet 59.3 compresses pages with, at the
//! versions it depends on (so cargo resolves one copy, shared with
//! parquet), each behind a feature of its own name. parquet-flba's
//! `src/page/codec.rs` calls them; nothing else should depend on this.

#[cfg(feature = "brotli")]
pub use brotli;
#[cfg(feature = "lz4_flex")]
pub use lz4_flex;
#[cfg(feature = "zstd")]
pub use zstd;
