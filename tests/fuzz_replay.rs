//! The fuzz harness (`fuzz/src/lib.rs`) in `cargo test`.
//!
//! * Each target's entry point runs on a few hundred inputs generated from a
//!   fixed-seed PRNG (`PARQUET_FLBA_FUZZ_SEED`, decimal or `0x` hex, picks
//!   another seed), with the harness's small size limits.
//! * Every file of `fuzz/corpus/TARGET/` and `fuzz/regressions/TARGET/` is
//!   replayed through its target's entry point.
//!
//! The harness is compiled into this test with `#[path]`: it uses only
//! crates this crate already depends on. See `fuzz/README.md` for running
//! the targets under libFuzzer.

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

use harness::generate::{Limits, with_limits};
use harness::input::SplitMix64;
use harness::{Outcome, run_bad_input, run_differential, run_roundtrip};

/// Default seed when `PARQUET_FLBA_FUZZ_SEED` is not set.
const DEFAULT_SEED: u64 = 0xF1BA_F022_5EED_0004;

/// Generated inputs per target.
const GENERATED: usize = 300;

type Target = fn(&[u8]) -> Outcome;

const TARGETS: [(&str, Target); 3] = [
    ("differential", run_differential),
    ("roundtrip", run_roundtrip),
    ("bad_input", run_bad_input),
];

fn seed() -> u64 {
    match std::env::var("PARQUET_FLBA_FUZZ_SEED") {
        Ok(s) => {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("PARQUET_FLBA_FUZZ_SEED={s:?} is not a u64"))
        }
        Err(_) => DEFAULT_SEED,
    }
}

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

/// Run `target` on `input`: `Err` with a report naming the input if it
/// panics.
fn try_one(name: &str, target: Target, input: &[u8], origin: &str) -> Result<(), String> {
    std::panic::catch_unwind(|| target(input))
        .map(|_| ())
        .map_err(|p| {
            format!(
                "fuzz target `{name}` failed on {origin}: {}\ninput ({} bytes, hex): {}\n\
                 To keep it as a regression input: \
                 echo {} | xxd -r -p > fuzz/regressions/{name}/<name>",
                harness::panic_message(p.as_ref()),
                input.len(),
                hex(input),
                hex(input)
            )
        })
}

/// Panic listing `failures` (the first one in full), if any.
fn report(what: &str, total: usize, failures: &[String]) {
    if failures.is_empty() {
        return;
    }
    let firsts: Vec<&str> = failures
        .iter()
        .map(|f| f.lines().next().unwrap_or(""))
        .collect();
    panic!(
        "{} of {total} {what} failed:\n  {}\n\nfirst failure in full:\n{}",
        failures.len(),
        firsts.join("\n  "),
        failures[0]
    );
}

/// `count` byte vectors from the seed mixed with the target's name: mostly
/// short (the harness reads zeros past the end), some long enough to carry
/// literal values.
fn generated_inputs(name: &str, count: usize) -> Vec<Vec<u8>> {
    let mix = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut rng = SplitMix64::new(seed() ^ mix);
    (0..count)
        .map(|_| {
            let len = if rng.chance(1, 4) {
                rng.below(1024) as usize
            } else {
                rng.below(96) as usize
            };
            let mut v = vec![0u8; len];
            rng.fill(&mut v);
            v
        })
        .collect()
}

/// Run `target` on the generated inputs, with the harness's small limits
/// (fewer rows per batch) so that a debug build stays quick.
fn run_generated(name: &str, target: Target) {
    let inputs = generated_inputs(name, GENERATED);
    let failures: Vec<String> = with_limits(Limits::SMALL, || {
        inputs
            .iter()
            .enumerate()
            .filter_map(|(i, input)| {
                let origin = format!(
                    "generated input #{i} (seed {:#x}, limits {:?})",
                    seed(),
                    Limits::SMALL
                );
                try_one(name, target, input, &origin).err()
            })
            .collect()
    });
    report(
        &format!("generated `{name}` inputs"),
        inputs.len(),
        &failures,
    );
}

#[test]
fn differential_generated_inputs() {
    run_generated("differential", run_differential);
}

#[test]
fn roundtrip_generated_inputs() {
    run_generated("roundtrip", run_roundtrip);
}

#[test]
fn bad_input_generated_inputs() {
    run_generated("bad_input", run_bad_input);
}

/// The files of `dir`, sorted (none if it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| {
                    !p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn corpus_and_regressions_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    let mut failures = Vec::new();
    for kind in ["regressions", "corpus"] {
        if let Ok(entries) = std::fs::read_dir(root.join(kind)) {
            for e in entries.filter_map(Result::ok) {
                let dir_name = e.file_name().to_string_lossy().into_owned();
                assert!(
                    !e.path().is_dir() || TARGETS.iter().any(|(n, _)| *n == dir_name),
                    "fuzz/{kind}/{dir_name}: no fuzz target of that name"
                );
            }
        }
        for (name, target) in TARGETS {
            for path in files(&root.join(kind).join(name)) {
                let input = std::fs::read(&path).expect("read fuzz input");
                if let Err(e) = try_one(name, target, &input, &path.display().to_string()) {
                    failures.push(e);
                }
                replayed += 1;
            }
        }
    }
    eprintln!("replayed {replayed} corpus and regression inputs");
    report("corpus and regression inputs", replayed, &failures);
}
