//! cargo-fuzz target `differential`: see `parquet_flba_fuzz::run_differential`.
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use parquet_flba_fuzz::{Outcome, run_differential};

fuzz_target!(|data: &[u8]| -> Corpus {
    match run_differential(data) {
        Outcome::Keep => Corpus::Keep,
        Outcome::Reject => Corpus::Reject,
    }
});
