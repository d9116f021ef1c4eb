//! Fuzz harness for `parquet_flba`.
//!
//! Three entry points, one per cargo-fuzz target (`fuzz/fuzz_targets/`):
//!
//! * [`run_differential`]: an arbitrary schema of FIXED_LEN_BYTE_ARRAY
//!   columns (plus optional Int64/Utf8, nested and dictionary-typed
//!   columns), arbitrary `WriterProperties` and batches are written with
//!   `parquet::arrow::ArrowWriter` (or its column-level API) and with
//!   `parquet_flba`'s; the files must be byte-identical, the writers'
//!   observable state equal after every write, an error on one side
//!   an error on the other, every leaf this crate writes planned fast
//!   unless the scenario explains why not ([`planned::check_plan_fast`]),
//!   and every leaf written by the writer its plan names
//!   ([`writers::check_ran_as_planned`]; each chunk's path with the
//!   column-level API).
//! * [`run_roundtrip`]: a file written by `parquet_flba` is read back with
//!   parquet's readers; the arrays must equal the input and every
//!   statistic, column index entry and bloom filter must agree with the
//!   data recomputed naively here.
//! * [`run_bad_input`]: decimals beyond their byte width or precision,
//!   schema mismatches, nulls in non-nullable fields, empty and zero-column
//!   batches, extreme properties: every write is an error or a success,
//!   never a panic; the writer stays usable after a failed write and its
//!   file holds exactly the accepted batches, byte-identical to parquet
//!   writing only those.
//!
//! A bug panics with a message describing the scenario and the difference;
//! an input that does not decode to anything worth comparing returns
//! [`Outcome::Reject`]. Inputs are decoded with a small hand-written
//! [`input::ByteReader`] (no `arbitrary`), and the harness uses only crates
//! the main crate already depends on, so `tests/fuzz_replay.rs` compiles
//! this file with `#[path]` and replays the corpora in `cargo test`. The
//! main crate's `tests/common` mounts [`catch`], [`describe`],
//! [`planned`], [`readback`], [`release`] and [`writers`] the same way: one copy of the
//! writers of both sides, the read-back and the failure descriptions for
//! the tests and the fuzz targets (these modules use each other only as
//! siblings, and nothing else of the harness).
//!
//! Everything is deterministic and bounded (see [`generate`]): an execution takes
//! milliseconds.

pub mod bad_input;
pub mod catch;
pub mod describe;
pub mod differential;
pub mod generate;
pub mod input;
pub mod planned;
pub mod primitive;
pub mod readback;
pub mod release;
pub mod roundtrip;
pub mod scenario;
pub mod writers;

pub use catch::{loud_catch, panic_message, quiet_catch};

/// What an input was worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The input exercised the writers: keep it in the corpus.
    Keep,
    /// The input decoded to nothing worth comparing (e.g. a configuration
    /// both writers reject up front).
    Reject,
}

/// The differential target: both writers, byte-identical files.
pub fn run_differential(data: &[u8]) -> Outcome {
    differential::run(data)
}

/// The round-trip target: `parquet_flba`'s file read back and checked.
pub fn run_roundtrip(data: &[u8]) -> Outcome {
    roundtrip::run(data)
}

/// The bad-input target: errors, never panics; the writer recovers.
pub fn run_bad_input(data: &[u8]) -> Outcome {
    bad_input::run(data)
}
