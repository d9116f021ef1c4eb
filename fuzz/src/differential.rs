//! The differential target: the same scenario through
//! `parquet::arrow` and `parquet_flba` must give the same bytes.

use super::describe::compare_files;
use super::input::ByteReader;
use super::scenario::Scenario;
use super::writers::{Step, flba, up};
use super::{Outcome, loud_catch};

/// Decode a scenario, write it with both implementations, compare.
///
/// # Panics
///
/// On a difference: bytes, writer state after a write, one side failing
/// where the other succeeds, or a panic in `parquet_flba`. Also when
/// parquet itself panics: the harness must not generate such inputs.
pub fn run(data: &[u8]) -> Outcome {
    let mut r = ByteReader::new(data);
    let sc = Scenario::decode(&mut r, true);
    let up = match loud_catch(|| up::write(&sc.schema, &sc.batches, &sc.opts, &sc.api)) {
        Ok(up) => up,
        // parquet 59 panics on some configurations that are errors in 60
        // (a dictionary of FixedSizeBinary with BYTE_STREAM_SPLIT, or given
        // a plain array): parquet_flba must return an error there.
        Err(p) if !super::release::PARQUET_60 => Err(super::writers::Failed {
            at: "parquet 59 panicked".into(),
            error: p,
        }),
        // Where parquet panics on valid input, parquet_flba returns an
        // error (`catch::KNOWN_UPSTREAM_PANICS`).
        Err(p) if super::catch::is_known_upstream_panic(&p) => Err(super::writers::Failed {
            at: "parquet panicked".into(),
            error: p,
        }),
        Err(p) => panic!(
            "HARNESS: parquet's own writer panicked ({p}); the harness must avoid this \
             configuration\n{}",
            sc.describe()
        ),
    };
    let fl = loud_catch(|| flba::write(&sc.schema, &sc.batches, &sc.opts, &sc.api))
        .unwrap_or_else(|p| panic!("BUG: parquet_flba panicked: {p}\n{}", sc.describe()));
    match (up, fl) {
        (Err(_), Err(_)) => Outcome::Reject,
        (Err(u), Ok(_)) => panic!(
            "BUG: parquet failed ({u}) but parquet_flba succeeded\n{}",
            sc.describe()
        ),
        (Ok(_), Err(f)) => panic!(
            "BUG: parquet_flba failed where parquet succeeded: {f}\n{}",
            sc.describe()
        ),
        (Ok(u), Ok(f)) => {
            if let Some(diff) = compare_files(&u.bytes, &f.bytes) {
                panic!("BUG: the files differ\n{diff}\n{}", sc.describe());
            }
            if !Step::all_match(&f.steps, &u.steps, sc.opts.threads) {
                let i = u
                    .steps
                    .iter()
                    .zip(&f.steps)
                    .position(|(a, b)| !b.matches(a, sc.opts.threads))
                    .unwrap_or(0);
                panic!(
                    "BUG: writer state differs after write #{i} (files are identical):\n  \
                     parquet:      {:?}\n  parquet_flba: {:?}\n{}",
                    u.steps.get(i),
                    f.steps.get(i),
                    sc.describe()
                );
            }
            Outcome::Keep
        }
    }
}
