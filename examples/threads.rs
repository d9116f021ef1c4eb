//! Wall time of `ArrowWriter::with_threads(2)` against `with_threads(1)` on
//! the tables of the `threads/` benchmarks (`decimal_nonnull`: two FLBA
//! columns; `mixed4`: UUID, nullable decimal, Int64, Utf8) in the default
//! configuration, and under zstd on one wide column (`uuid`: pages
//! compressed on the second thread) and on `decimal_nonnull`; each file
//! written as one batch (`1x`), as 16 batches (`16x`) or as 128 batches of
//! 8,192 rows (`128x`, DataFusion's batch size), 1,048,576 rows.
//!
//! Each round writes the file once on one thread and once on two, back to
//! back (the order alternating between rounds), and the round's ratio is
//! two-thread time ÷ one-thread time: pairing the runs keeps a noisy,
//! shared machine's slow spells out of the ratio better than comparing two
//! separately timed medians. Reported: the median (min–max) of the ratios,
//! and min / median wall time per thread count. The files written on one
//! and on two threads are checked to be identical.
//!
//! ```text
//! cargo run --release --example threads
//! cargo run --release --example threads -- --rounds 41
//! cargo run --release --example threads -- --only uuid/zstd
//! # for a profiler: only THREADS threads on shape SHAPE, --rounds times
//! cargo run --release --example threads -- --only decimal_nonnull/default --profile 2/128x
//! # page blocks not reused between files (parquet_flba::set_block_cache_limit(0))
//! cargo run --release --example threads -- --no-block-cache
//! ```

include!("../src/versions.rs");

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::process::ExitCode;
use std::time::Instant;

use arrow_array::RecordBatch;
use workloads::{DEFAULT_ROWS, config, exit_code, parse_count, setup_batches, workload};

/// One file written with parquet-flba on `threads` threads into `out`; its
/// wall time in milliseconds.
fn write(
    batches: &[RecordBatch],
    configuration: &str,
    threads: usize,
    out: &mut Vec<u8>,
) -> Result<f64, String> {
    out.clear();
    let props = config(configuration).ok_or("unknown configuration")?;
    let start = Instant::now();
    let mut w = parquet_flba::ArrowWriter::try_new(&mut *out, batches[0].schema(), Some(props))
        .map_err(|e| e.to_string())?
        .with_threads(threads);
    for b in batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.close().map_err(|e| e.to_string())?;
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

fn run() -> Result<(), String> {
    let mut rounds = 21;
    let mut only: Option<String> = None;
    let mut profile: Option<(usize, String)> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                let value = args.next().ok_or("--rounds needs a value")?;
                rounds = parse_count("--rounds", &value)?;
            }
            "--only" => only = Some(args.next().ok_or("--only needs TABLE/CONFIGURATION")?),
            // Every file's page blocks freshly allocated, as in a process's
            // first file.
            "--no-block-cache" => {
                parquet_flba::set_block_cache_limit(0);
            }
            "--profile" => {
                let value = args.next().ok_or("--profile needs THREADS/SHAPE")?;
                let (threads, shape) = value
                    .split_once('/')
                    .ok_or("--profile needs THREADS/SHAPE, e.g. 2/128x")?;
                profile = Some((parse_count("--profile", threads)?, shape.to_string()));
            }
            other => {
                return Err(format!(
                    "unknown argument {other} (--rounds N, --only TABLE/CONFIGURATION, --profile THREADS/SHAPE, --no-block-cache)"
                ));
            }
        }
    }
    let decimal = workload("decimal_nonnull")
        .expect("workload")
        .build(DEFAULT_ROWS);
    let uuid = workload("uuid").expect("workload").build(DEFAULT_ROWS);
    let mixed = setup_batches(1, DEFAULT_ROWS).remove(0);
    println!("# with_threads(2) ÷ with_threads(1), wall time, {rounds} paired rounds\n");
    println!(
        "| table | configuration | batches | ratio median (min–max) | 1 thread min / median ms | 2 threads min / median ms |"
    );
    println!("|---|---|---|---:|---:|---:|");
    let (mut one, mut two) = (Vec::new(), Vec::new());
    let tables = [
        ("decimal_nonnull", "default", decimal.clone()),
        ("mixed4", "default", mixed),
        ("uuid", "zstd", uuid),
        ("decimal_nonnull", "zstd", decimal),
    ];
    for (name, configuration, batch) in tables {
        if only
            .as_ref()
            .is_some_and(|o| *o != format!("{name}/{configuration}"))
        {
            continue;
        }
        let split = |n: usize| -> Vec<RecordBatch> {
            (0..n)
                .map(|i| batch.slice(i * (DEFAULT_ROWS / n), DEFAULT_ROWS / n))
                .collect()
        };
        let (sixteen, many) = (split(16), split(128));
        let shapes = [
            ("1x", std::slice::from_ref(&batch)),
            ("16x", &sixteen[..]),
            ("128x", &many[..]),
        ];
        for (shape, batches) in shapes {
            if let Some((threads, wanted)) = &profile {
                if wanted == shape {
                    let mut times: Vec<f64> = (0..rounds)
                        .map(|_| write(batches, configuration, *threads, &mut one))
                        .collect::<Result<_, _>>()?;
                    times.sort_by(f64::total_cmp);
                    println!(
                        "| {name} | {configuration} | {shape} | {threads} threads: min / median {:.1} / {:.1} ms |",
                        times[0],
                        times[rounds / 2]
                    );
                }
                continue;
            }
            // Warm-up, and the bytes check.
            write(batches, configuration, 1, &mut one)?;
            write(batches, configuration, 2, &mut two)?;
            if one != two {
                return Err(format!("{name}/{shape}: two threads wrote different bytes"));
            }
            let (mut t1, mut t2, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
            for round in 0..rounds {
                let (a, b) = if round % 2 == 0 {
                    let a = write(batches, configuration, 1, &mut one)?;
                    (a, write(batches, configuration, 2, &mut two)?)
                } else {
                    let b = write(batches, configuration, 2, &mut two)?;
                    (write(batches, configuration, 1, &mut one)?, b)
                };
                t1.push(a);
                t2.push(b);
                ratios.push(b / a);
            }
            for v in [&mut t1, &mut t2, &mut ratios] {
                v.sort_by(f64::total_cmp);
            }
            let mid = rounds / 2;
            println!(
                "| {name} | {configuration} | {shape} | {:.2} ({:.2}–{:.2}) | {:.1} / {:.1} | {:.1} / {:.1} |",
                ratios[mid],
                ratios[0],
                ratios[rounds - 1],
                t1[0],
                t1[mid],
                t2[0],
                t2[mid]
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    exit_code(run())
}
