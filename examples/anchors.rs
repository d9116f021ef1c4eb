//! Value MiB/s of `parquet`'s `ArrowWriter` and of this crate on the anchor
//! shapes: the shapes that `scripts/anchors.py` times pyarrow, polars and
//! DuckDB on, so that the numbers can be set side by side, cell by cell,
//! when both are run in the same window (`scripts/anchors.py --rust FILE`
//! merges this example's output into its table; docs/performance.md has
//! the commands).
//!
//! Each cell: one warm-up, then `--reps` writes (`try_new`, `write`, `close`)
//! of one 1,048,576-row batch into a reused in-memory buffer, timed in
//! process CPU time (single-threaded writers, so CPU time is their time);
//! the median and the best are reported as value MiB/s: the non-null value
//! bytes at their Parquet width (16 for `Decimal128(38,_)` and
//! `FixedSizeBinary(16)`, 32 for `Decimal256(76,_)`) ÷ time, as the anchor
//! script counts them.
//!
//! ```text
//! cargo run --release --example anchors
//! cargo run --release --example anchors -- --reps 9 --shapes decimal_req,uuid --configs default,zstd
//! ```
//!
//! Flags: `--reps N` (default 7), `--shapes a,b` (default: all),
//! `--configs x,y` (default: default, bloom_filter, parquet_2, zstd,
//! zstd_parquet_2, cdc), `--rows N` (default 1,048,576), `--batch-rows N`
//! (write the shape in batches of N rows, as a query engine would, e.g.
//! DataFusion's 8,192; default: one batch), `--no-block-cache`
//! (parquet-flba's page blocks not reused between files).

include!("../src/versions.rs");

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::process::ExitCode;
use std::time::Duration;

use workloads::{
    ANCHOR_SHAPES, CONFIG_NAMES, DEFAULT_ROWS, Writer, anchor_shape, config, exit_code,
    parse_count, write_file,
};

/// CPU time of this process so far.
#[cfg(target_os = "linux")]
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Elsewhere: wall time (the writers are single-threaded).
#[cfg(not(target_os = "linux"))]
fn cpu_time() -> Duration {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

struct Args {
    reps: usize,
    rows: usize,
    shapes: Vec<String>,
    configs: Vec<String>,
    /// Rows per `write` call (`None`: the whole shape in one batch).
    batch_rows: Option<usize>,
}

const USAGE: &str = "usage: anchors [--reps N] [--rows N] [--shapes a,b] [--configs x,y] [--batch-rows N] [--no-block-cache]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        reps: 7,
        rows: DEFAULT_ROWS,
        shapes: ANCHOR_SHAPES.iter().map(|s| s.to_string()).collect(),
        // The six configurations named as in parquet's writer bench (the
        // anchor script has no `plain_nostats`).
        configs: CONFIG_NAMES[..6].iter().map(|s| s.to_string()).collect(),
        batch_rows: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let list = |v: String| -> Vec<String> {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        };
        match flag.as_str() {
            // Every file's page blocks freshly allocated, as in a process's
            // first file (parquet_flba::set_block_cache_limit(0)).
            "--no-block-cache" => {
                parquet_flba::set_block_cache_limit(0);
                continue;
            }
            "--reps" => args.reps = parse_count(&flag, &value()?)?,
            "--batch-rows" => args.batch_rows = Some(parse_count(&flag, &value()?)?),
            "--rows" => args.rows = parse_count(&flag, &value()?)?,
            "--shapes" => args.shapes = list(value()?),
            "--configs" => args.configs = list(value()?),
            "--help" | "-h" => {
                println!("{USAGE}\nshapes: {}", ANCHOR_SHAPES.join(", "));
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument '{flag}'\n{USAGE}")),
        }
    }
    for s in &args.shapes {
        if !ANCHOR_SHAPES.contains(&s.as_str()) {
            return Err(format!(
                "unknown shape '{s}'; known: {}",
                ANCHOR_SHAPES.join(", ")
            ));
        }
    }
    for c in &args.configs {
        if config(c).is_none() {
            return Err(format!("unknown configuration '{c}'"));
        }
    }
    Ok(args)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    println!(
        "# Value MiB/s, {} rows, CPU time, median (best) of {} writes\n",
        workloads::thousands(args.rows as u64),
        args.reps
    );
    println!("| shape | config | value MiB | parquet MiB/s | parquet-flba MiB/s | ratio |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut out = Vec::new();
    for shape in &args.shapes {
        let batch = anchor_shape(shape, args.rows).expect("validated");
        let value_mib = workloads::mib(workloads::value_bytes(&batch));
        let step = args.batch_rows.unwrap_or(batch.num_rows()).max(1);
        let batches: Vec<_> = (0..batch.num_rows())
            .step_by(step)
            .map(|at| batch.slice(at, step.min(batch.num_rows() - at)))
            .collect();
        let batches = &batches[..];
        for name in &args.configs {
            let mut rates = [(0.0f64, 0.0f64); 2];
            for (slot, writer) in Writer::BOTH.into_iter().enumerate() {
                let mut times = Vec::with_capacity(args.reps);
                for rep in 0..=args.reps {
                    out.clear();
                    let props = config(name).expect("validated");
                    let start = cpu_time();
                    write_file(writer, &mut out, batch.schema(), batches, props)
                        .map_err(|e| format!("{} on {shape}/{name}: {e}", writer.name()))?;
                    let t = (cpu_time() - start).as_secs_f64();
                    if rep > 0 {
                        times.push(t);
                    }
                }
                times.sort_by(f64::total_cmp);
                let median = times[times.len() / 2];
                rates[slot] = (value_mib / median, value_mib / times[0]);
            }
            let [(p, pb), (f, fb)] = rates;
            println!(
                "| {shape} | {name} | {value_mib:.1} | {p:.0} ({pb:.0}) | {f:.0} ({fb:.0}) | {:.2}x |",
                f / p
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    exit_code(run())
}
