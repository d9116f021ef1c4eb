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

include!("../src/versions.rs");

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

use harness::generate::{Limits, with_limits};
use harness::input::{ByteReader, SplitMix64};
use harness::scenario::Scenario;
use harness::writers::{Api, PageStoreChoice};
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

/// Run `target` on `input`: its outcome, or `Err` with a report naming the
/// input if it panics.
fn try_one(name: &str, target: Target, input: &[u8], origin: &str) -> Result<Outcome, String> {
    std::panic::catch_unwind(|| target(input)).map_err(|p| {
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
/// (fewer rows per batch) so that a debug build stays quick. Returns how
/// many of them exercised the writers ([`Outcome::Keep`]).
fn run_generated(name: &str, target: Target) -> usize {
    let inputs = generated_inputs(name, GENERATED);
    let mut kept = 0;
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
                match try_one(name, target, input, &origin) {
                    Ok(outcome) => {
                        kept += usize::from(outcome == Outcome::Keep);
                        None
                    }
                    Err(e) => Some(e),
                }
            })
            .collect()
    });
    report(
        &format!("generated `{name}` inputs"),
        inputs.len(),
        &failures,
    );
    eprintln!("{name}: {kept} of {} generated inputs kept", inputs.len());
    kept
}

/// Every generated input must exercise the writers: both succeed (and, as
/// the target checks, give identical files / a file that reads back
/// right), or, for `bad_input`, the script ran with every verdict as
/// expected. An input both writers reject up front ([`Outcome::Reject`])
/// tests nothing, so only a few may (negative decimal scales, which parquet
/// rejects, are generated on purpose).
fn assert_mostly_kept(name: &str, kept: usize) {
    // parquet 59 rejects more of the generated scenarios (nested
    // dictionaries, run-end-encoded arrays for plain fields), and the
    // round trip skips its unreadable dictionary-of-FixedSizeBinary files.
    let share = if cfg!(feature = "parquet-60") { 85 } else { 80 };
    assert!(
        kept * 100 >= GENERATED * share,
        "only {kept} of {GENERATED} generated `{name}` inputs exercised the writers \
         (the rest were rejected by both writers up front)"
    );
}

#[test]
fn differential_generated_inputs() {
    let kept = run_generated("differential", run_differential);
    assert_mostly_kept("differential", kept);
}

#[test]
fn roundtrip_generated_inputs() {
    let kept = run_generated("roundtrip", run_roundtrip);
    assert_mostly_kept("roundtrip", kept);
}

#[test]
fn bad_input_generated_inputs() {
    let kept = run_generated("bad_input", run_bad_input);
    assert_mostly_kept("bad_input", kept);
}

/// Shares of the generated scenarios (differential and roundtrip inputs)
/// that reach the less common paths: content-defined chunking, CDC on a
/// mixed table (an FLBA leaf next to an Int64/Utf8 one: the hybrid writer
/// that splices an inner parquet writer's chunks and writes the footer
/// itself), a page store (in memory or spilling), a memory listener, several
/// threads and the column-level API. Each must be at least the share listed
/// below: over seeds 1 to 40 (`PARQUET_FLBA_FUZZ_SEED`), every share's
/// floor is more than four standard deviations under its mean (mixed-table
/// CDC averaged 93 of 300, at least 67; the column-level API 42, at least
/// 21), so that another seed does not fail it by chance.
#[test]
fn generated_inputs_reach_every_path() {
    for name in ["differential", "roundtrip"] {
        let inputs = generated_inputs(name, GENERATED);
        let mut cdc = 0;
        let mut mixed_cdc = 0;
        let mut page_store = 0;
        let mut spill = 0;
        let mut listener = 0;
        let mut threads = 0;
        let mut columns = 0;
        let mut primitives = 0;
        with_limits(Limits::SMALL, || {
            for input in &inputs {
                let sc = Scenario::decode(&mut ByteReader::new(input), true);
                let is_cdc = sc.opts.props.content_defined_chunking().is_some();
                let has_flba = sc.cols.iter().any(|c| c.flba().is_some());
                let has_other = sc.cols.iter().any(|c| c.flba().is_none());
                cdc += usize::from(is_cdc);
                mixed_cdc += usize::from(is_cdc && has_flba && has_other);
                page_store += usize::from(!matches!(sc.opts.page_store, PageStoreChoice::Default));
                spill += usize::from(matches!(sc.opts.page_store, PageStoreChoice::Spill(_)));
                let is_columns = matches!(sc.api, Api::Columns { .. });
                columns += usize::from(is_columns);
                listener += usize::from(sc.opts.memory_block.is_some() && !is_columns);
                threads += usize::from(sc.opts.threads > 1 && !is_columns);
                let primitive =
                    |c: &harness::generate::Col| matches!(c.kind, harness::generate::Kind::Prim(_));
                primitives += usize::from(sc.cols.iter().any(primitive));
            }
        });
        let n = inputs.len();
        eprintln!(
            "{name}: of {n} generated scenarios, {cdc} CDC, {mixed_cdc} mixed-table CDC, \
             {page_store} page store ({spill} spilling), {listener} memory listener, \
             {threads} several threads, {columns} column-level API, {primitives} a \
             fixed-width primitive other than Int64"
        );
        for (what, count, min_share) in [
            ("CDC", cdc, 4),
            ("mixed-table CDC", mixed_cdc, 8),
            ("a page store", page_store, 10),
            ("a spilling page store", spill, 10),
            ("a memory listener", listener, 10),
            ("several threads", threads, 10),
            ("the column-level API", columns, 20),
            ("a fixed-width primitive other than Int64", primitives, 10),
        ] {
            if what.contains("page store") && !harness::release::PAGE_STORES {
                // parquet 58 has none: no scenario uses one there.
                assert_eq!(count, 0, "`{name}`: {what} under parquet 58");
                continue;
            }
            assert!(
                count * min_share >= n,
                "`{name}`: only {count} of {n} generated scenarios use {what} \
                 (at least 1 in {min_share} expected)"
            );
        }
    }
}

/// The generated scenarios' string columns (`Kind::Utf8`, a top-level
/// `Utf8` field) are planned on the fast path, whatever the scenario's
/// options: the differential and round-trip targets then check, leaf by
/// leaf, that they ran there (`writers::check_ran_as_planned`). Identical
/// files alone would not tell a fast string leaf from a delegated one.
#[test]
fn generated_string_columns_are_fast() {
    use harness::generate::Kind;
    use parquet_flba::LeafPath;
    for name in ["differential", "roundtrip"] {
        let inputs = generated_inputs(name, GENERATED);
        let mut with_strings = 0;
        with_limits(Limits::SMALL, || {
            for (i, input) in inputs.iter().enumerate() {
                let sc = Scenario::decode(&mut ByteReader::new(input), true);
                let Some(col) = sc.cols.iter().find(|c| c.kind == Kind::Utf8) else {
                    continue;
                };
                // A scenario both writers reject up front has no plan.
                let Ok(wr) = harness::writers::flba::writer(Vec::new(), &sc.schema, &sc.opts)
                else {
                    continue;
                };
                with_strings += 1;
                let path = col.leaf_path(false);
                let leaf = wr
                    .column_plan()
                    .leaves()
                    .iter()
                    .find(|l| *l.column_path() == path)
                    .unwrap_or_else(|| panic!("`{name}` #{i}: no leaf {path} in the plan"));
                assert_eq!(
                    leaf.path(),
                    LeafPath::Fast,
                    "`{name}` #{i}: the Utf8 leaf {path} is delegated ({:?})",
                    leaf.reason()
                );
            }
        });
        eprintln!("{name}: {with_strings} generated scenarios with a Utf8 column");
        assert!(
            with_strings * 5 >= inputs.len(),
            "`{name}`: only {with_strings} of {} generated scenarios have a Utf8 column",
            inputs.len()
        );
    }
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

/// Corpus files that must be replayed per target (the committed corpora
/// hold about 30 each): an empty or missing corpus fails the test.
const MIN_CORPUS: usize = 20;

#[test]
fn corpus_and_regressions_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    let mut failures = Vec::new();
    let mut summary = Vec::new();
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
            let paths = files(&root.join(kind).join(name));
            let mut kept = 0;
            for path in &paths {
                let input = std::fs::read(path).expect("read fuzz input");
                match try_one(name, target, &input, &path.display().to_string()) {
                    Ok(outcome) => kept += usize::from(outcome == Outcome::Keep),
                    Err(e) => failures.push(e),
                }
                replayed += 1;
            }
            summary.push(format!("{kind}/{name}: {kept} of {} kept", paths.len()));
            if kind == "corpus" {
                assert!(
                    paths.len() >= MIN_CORPUS,
                    "fuzz/corpus/{name} holds {} inputs; at least {MIN_CORPUS} expected",
                    paths.len()
                );
                // A corpus input that both writers reject up front tests
                // nothing: most must exercise the writers (fewer with
                // parquet 59, which rejects more, see `assert_mostly_kept`;
                // the corpora were grown against parquet 60).
                let tenths = if cfg!(feature = "parquet-60") { 8 } else { 7 };
                assert!(
                    kept * 10 >= paths.len() * tenths,
                    "only {kept} of {} inputs of fuzz/corpus/{name} exercised the writers",
                    paths.len()
                );
            }
        }
    }
    eprintln!(
        "replayed {replayed} corpus and regression inputs: {}",
        summary.join(", ")
    );
    report("corpus and regression inputs", replayed, &failures);
}
