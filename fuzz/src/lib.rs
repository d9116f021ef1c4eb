//! Fuzz harness for `parquet_flba`.
//!
//! Three entry points, one per cargo-fuzz target (`fuzz/fuzz_targets/`):
//!
//! * [`run_differential`]: an arbitrary schema of FIXED_LEN_BYTE_ARRAY
//!   columns (plus optional Int64/Utf8, nested and dictionary-typed
//!   columns), arbitrary `WriterProperties` and batches are written with
//!   `parquet::arrow::ArrowWriter` (or its column-level API) and with
//!   `parquet_flba`'s; the files must be byte-identical, the writers'
//!   observable state equal after every write, and an error on one side
//!   an error on the other.
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
//! this file with `#[path]` and replays the corpora in `cargo test`.
//!
//! Everything is deterministic and bounded (see [`generate`]): an execution takes
//! milliseconds.

pub mod bad_input;
pub mod describe;
pub mod differential;
pub mod generate;
pub mod input;
pub mod release;
pub mod roundtrip;
pub mod scenario;
pub mod writers;

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

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

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Install (once) a panic hook that stays silent while [`quiet_catch`] runs
/// on this thread and otherwise defers to the hook that was installed
/// before (under libFuzzer, one that aborts: any other panic is a finding).
fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// The text of a panic payload.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".into()
    }
}

/// Run `f`, turning a panic into `Err(message)` without reporting it: for
/// calls whose panics are expected (parquet's own writer on bad input).
pub fn quiet_catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = QUIET.with(|q| q.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| panic_message(p.as_ref()))
}

/// Run `f`, turning a panic into `Err(message)`. The panic is reported by
/// the panic hook as usual (under libFuzzer the process aborts right there,
/// which is what a finding should do).
pub fn loud_catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = QUIET.with(|q| q.replace(false));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| panic_message(p.as_ref()))
}
