//! cargo-fuzz target `roundtrip`: see `parquet_flba_fuzz::run_roundtrip`.
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};
use parquet_flba_fuzz::{Outcome, run_roundtrip};

fuzz_target!(|data: &[u8]| -> Corpus {
    match run_roundtrip(data) {
        Outcome::Keep => Corpus::Keep,
        Outcome::Reject => Corpus::Reject,
    }
});
