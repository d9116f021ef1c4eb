//! The fuzz harness crate: selects the parquet release (features
//! `parquet-60`, the default, and `parquet-59`) and mounts the harness,
//! `lib.rs`, which `tests/fuzz_replay.rs` in the main crate mounts too.

include!("../../src/versions.rs");

#[path = "lib.rs"]
mod harness;
pub use harness::*;
