//! The default command: write the generated trades table with both writers in
//! each configuration, check byte identity, report throughput and allocations.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::progress::Progress;
use arrow_array::RecordBatch;

use crate::workloads::alloc_counter;
use crate::workloads::{CONFIG_NAMES, Writer, config, trades_batches, value_bytes, write_file};
use crate::workloads::{mib, thousands};
use crate::{Arg, Args};

struct Options {
    rows: usize,
    batch_size: usize,
    configs: Vec<&'static str>,
    runs: usize,
    out: Option<PathBuf>,
}

fn parse(mut args: Args) -> Result<Options, String> {
    let mut o = Options {
        rows: 2_000_000,
        batch_size: 65_536,
        configs: Vec::new(),
        runs: 3,
        out: None,
    };
    while let Some(arg) = args.next_arg()? {
        match arg {
            Arg::Flag(f) if f == "--rows" => o.rows = args.positive(&f)?,
            Arg::Flag(f) if f == "--batch-size" => o.batch_size = args.positive(&f)?,
            Arg::Flag(f) if f == "--runs" => o.runs = args.positive(&f)?,
            Arg::Flag(f) if f == "--out" => o.out = Some(PathBuf::from(args.value(&f)?)),
            Arg::Flag(f) if f == "--config" => {
                for name in args.value(&f)?.split(',').map(str::trim) {
                    if name.is_empty() {
                        continue;
                    }
                    let known = CONFIG_NAMES.iter().find(|c| **c == name).ok_or_else(|| {
                        format!(
                            "unknown configuration '{name}'; known: {}",
                            CONFIG_NAMES.join(", ")
                        )
                    })?;
                    if !o.configs.contains(known) {
                        o.configs.push(known);
                    }
                }
            }
            Arg::Flag(f) => return Err(format!("unknown option '{f}' (see --help)")),
            Arg::Positional(p) => {
                return Err(format!(
                    "unexpected argument '{p}' (the only subcommand is `rewrite`; see --help)"
                ));
            }
        }
    }
    if o.configs.is_empty() {
        o.configs = CONFIG_NAMES.to_vec();
    }
    Ok(o)
}

/// Result of one writer in one configuration.
#[derive(Default)]
struct Measured {
    best: Option<Duration>,
    allocations: u64,
}

/// Result of one configuration.
struct Row {
    config: &'static str,
    parquet: Measured,
    flba: Measured,
    file_bytes: usize,
    /// `None` if identical, else a description of the first difference.
    difference: Option<String>,
}

/// Describes where two files differ, or `None` if they are identical.
fn first_difference(a: &[u8], b: &[u8]) -> Option<String> {
    if a == b {
        return None;
    }
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    Some(format!(
        "sizes {} vs {} bytes, first difference at byte {}",
        thousands(a.len() as u64),
        thousands(b.len() as u64),
        thousands(at as u64)
    ))
}

/// Reserves and pre-faults `cap` bytes so page faults are not timed.
fn prefaulted(cap: usize) -> Vec<u8> {
    let mut v = vec![0u8; cap];
    v.clear();
    v
}

fn measure_config(
    config_name: &'static str,
    batches: &[RecordBatch],
    sinks: &mut [Vec<u8>; 2],
    runs: usize,
    pb: &Progress,
) -> Result<Row, String> {
    let props = config(config_name).expect("validated configuration");
    let schema = batches[0].schema();
    let mut measured = [Measured::default(), Measured::default()];
    // Alternate the writers run by run so drift on a noisy machine hits both.
    for run in 1..=runs {
        for (i, writer) in Writer::BOTH.into_iter().enumerate() {
            pb.set_message(format!("{config_name}: {} run {run}/{runs}", writer.name()));
            let sink = &mut sinks[i];
            sink.clear();
            let props = props.clone();
            alloc_counter::reset();
            let start = Instant::now();
            let result = write_file(writer, &mut *sink, schema.clone(), batches, props);
            let elapsed = start.elapsed();
            let allocations = alloc_counter::snapshot().allocations;
            result.map_err(|e| {
                format!(
                    "{} failed in configuration {config_name}: {e}",
                    writer.name()
                )
            })?;
            let m = &mut measured[i];
            m.allocations = allocations;
            m.best = Some(m.best.map_or(elapsed, |b| b.min(elapsed)));
            pb.inc(1);
        }
    }
    let [parquet, flba] = measured;
    Ok(Row {
        config: config_name,
        parquet,
        flba,
        file_bytes: sinks[0].len(),
        difference: first_difference(&sinks[0], &sinks[1]),
    })
}

fn table_row(row: &Row, input_bytes: u64) -> String {
    let rate = |d: Option<Duration>| mib(input_bytes) / d.unwrap_or(Duration::MAX).as_secs_f64();
    let (p, f) = (rate(row.parquet.best), rate(row.flba.best));
    format!(
        "| {:<14} | {:>13.1} | {:>18.1} | {:>6.2}x | {:>14} / {:<14} | {:>8.1} | {:<9} |",
        row.config,
        p,
        f,
        f / p,
        thousands(row.parquet.allocations),
        thousands(row.flba.allocations),
        mib(row.file_bytes as u64),
        if row.difference.is_none() {
            "yes"
        } else {
            "NO"
        },
    )
}

/// Generates the trades table behind a spinner.
fn generate_batches(rows: usize, batch_size: usize) -> Vec<RecordBatch> {
    let note = Progress::message(format!(
        "generating the trades table ({} rows)",
        thousands(rows as u64)
    ));
    let batches = trades_batches(rows, batch_size);
    note.finish_and_clear();
    batches
}

/// Prints the table's shape, columns and value bytes, and how it is measured.
fn print_intro(o: &Options, batches: &[RecordBatch], input_bytes: u64) {
    let schema = batches[0].schema();
    println!(
        "trades table: {} rows in {} batches of up to {} rows",
        thousands(o.rows as u64),
        batches.len(),
        thousands(o.batch_size as u64)
    );
    let columns: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{} {}", f.name(), f.data_type()))
        .collect();
    println!("columns: {}", columns.join(", "));
    println!(
        "value bytes: {:.1} MiB (non-null values as Parquet stores them: FLBA width for decimals and ids, 8 B per ts, symbol bytes)",
        mib(input_bytes)
    );
    println!(
        "each file written into memory; best of {} run(s) per writer, alternating; allocations = heap allocations for one file\n\
         (on a shared machine, read nothing into speed differences under ~10%)\n",
        o.runs
    );
}

/// Progress over `len` timed writes, redrawn between runs (never while
/// allocations are being counted).
fn progress_bar(len: u64) -> Progress {
    Progress::new(len, "writes")
}

/// The Markdown header (title and alignment lines) of the results table.
fn table_header() -> String {
    format!(
        "| {:<14} | {:>13} | {:>18} | {:>7} | {:>31} | {:>8} | {:<9} |\n|{:-<16}|{:->15}|{:->20}|{:->9}|{:-^33}|{:->10}|{:-<11}|",
        "config",
        "parquet MiB/s",
        "parquet-flba MiB/s",
        "speedup",
        "allocations (parquet / flba)",
        "file MiB",
        "identical",
        "",
        ":",
        ":",
        ":",
        "",
        ":",
        "",
    )
}

/// Measures every configuration of `o`, printing a table row for each and,
/// with `--out`, saving both writers' files.
fn measure_all(
    o: &Options,
    batches: &[RecordBatch],
    input_bytes: u64,
    sinks: &mut [Vec<u8>; 2],
    pb: &Progress,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for config_name in &o.configs {
        let row = match measure_config(config_name, batches, sinks, o.runs, pb) {
            Ok(row) => row,
            Err(e) => {
                pb.abandon();
                return Err(e);
            }
        };
        pb.suspend(|| println!("{}", table_row(&row, input_bytes)));
        if let Some(dir) = &o.out {
            for (writer, bytes) in Writer::BOTH.iter().zip(sinks.iter()) {
                let path = dir.join(format!("trades-{}-{}.parquet", row.config, writer.name()));
                std::fs::write(&path, bytes)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Prints the geometric-mean speedup and the byte-identity verdict; returns
/// exit code 2 if any configuration's files differ.
fn print_summary(rows: &[Row], out: Option<&Path>) -> ExitCode {
    let speedups: Vec<f64> = rows
        .iter()
        .filter_map(|r| Some(r.parquet.best?.as_secs_f64() / r.flba.best?.as_secs_f64()))
        .collect();
    let geomean = (speedups.iter().map(|s| s.ln()).sum::<f64>() / speedups.len() as f64).exp();
    println!(
        "\ngeometric-mean speedup over {} configuration(s): {geomean:.2}x",
        rows.len()
    );
    if let Some(dir) = out {
        println!(
            "files kept in {} (trades-<config>-<writer>.parquet)",
            dir.display()
        );
    }

    let mismatches: Vec<&Row> = rows.iter().filter(|r| r.difference.is_some()).collect();
    if mismatches.is_empty() {
        println!(
            "byte-identical: parquet-flba wrote exactly the same bytes as parquet in all {} configuration(s)",
            rows.len()
        );
        ExitCode::SUCCESS
    } else {
        for r in &mismatches {
            eprintln!(
                "error: configuration {}: files differ ({})",
                r.config,
                r.difference.as_deref().unwrap_or_default()
            );
        }
        if out.is_none() {
            eprintln!("rerun with --out DIR to keep both files for inspection");
        }
        ExitCode::from(2)
    }
}

/// Runs the demo.
pub fn run(args: Args) -> Result<ExitCode, String> {
    let o = parse(args)?;
    if let Some(dir) = &o.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create output directory {}: {e}", dir.display()))?;
    }

    let batches = generate_batches(o.rows, o.batch_size);
    let input_bytes: u64 = batches.iter().map(value_bytes).sum();
    print_intro(&o, &batches, input_bytes);

    // Output buffers, reused across runs, sized generously and pre-faulted.
    let cap = input_bytes as usize + input_bytes as usize / 4 + (16 << 20);
    let mut sinks = [prefaulted(cap), prefaulted(cap)];

    let pb = progress_bar((o.configs.len() * o.runs * 2) as u64);
    pb.suspend(|| println!("{}", table_header()));
    let rows = measure_all(&o, &batches, input_bytes, &mut sinks, &pb)?;
    pb.finish_and_clear();

    Ok(print_summary(&rows, o.out.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Args {
        Args::new(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn demo_arguments() {
        let o = parse(args(&[])).unwrap();
        assert_eq!((o.rows, o.batch_size, o.runs), (2_000_000, 65_536, 3));
        assert_eq!(o.configs, CONFIG_NAMES.to_vec());
        let o = parse(args(&[
            "--rows=1_000",
            "--config",
            "zstd,default",
            "--config=zstd",
            "--out",
            "/tmp/x",
        ]))
        .unwrap();
        assert_eq!(o.rows, 1000);
        assert_eq!(o.configs, vec!["zstd", "default"]);
        assert_eq!(o.out, Some(PathBuf::from("/tmp/x")));
        assert!(parse(args(&["--rows", "x"])).is_err());
        assert!(parse(args(&["--rows", "0"])).is_err());
        assert!(parse(args(&["--config", "nope"])).is_err());
        assert!(parse(args(&["--help-me"])).is_err());
        assert!(parse(args(&["stray"])).is_err());
        assert!(parse(args(&["--rows=5=6"])).is_err());
    }

    #[test]
    fn differences_are_located() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert!(first_difference(b"abc", b"abd").unwrap().contains("byte 2"));
        assert!(first_difference(b"abc", b"ab").unwrap().contains("byte 2"));
    }
}
