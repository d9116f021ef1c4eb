//! cargo-fuzz target `bad_input`: see `parquet_flba_fuzz::run_bad_input`.
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use parquet_flba_fuzz::{Outcome, run_bad_input};

fuzz_target!(|data: &[u8]| -> Corpus {
    match run_bad_input(data) {
        Outcome::Keep => Corpus::Keep,
        Outcome::Reject => Corpus::Reject,
    }
});
